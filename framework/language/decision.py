"""Decisions: a choice a card effect asks of one seat in the middle of a turn.

While a decision is pending (``State.pending``), :meth:`State.acting_seats` is just
the deciding seat and :meth:`State.legal_actions` lists the decision's options.
Decision actions are small integers, as picks are (see ``Game``):

* ``c`` (``0 <= c < K``): choose card type ``c``;
* ``K + f``: name card family ``f`` (``Game.families``);
* ``Game.done_action``: end a choice of several cards, or decline an optional one.

A choice of several cards is a sequence of one-card decisions ending in done.
"""

from __future__ import annotations

import attrs


@attrs.frozen
class Decision:
    """One choice a seat must make before the turn can go on."""

    #: the deciding seat (not necessarily the seat whose card acts)
    seat: int
    #: the effect kind that asks (``second_pick``, ``draw_and_choose``...)
    effect: str
    #: the card index whose effect asks
    card: int
    #: plain words for the terminal
    prompt: str
    #: the legal actions, sorted
    options: tuple[int, ...]
    #: cards only the deciding seat may see while it decides (the cards drawn by a menu)
    shown: tuple[int, ...] = ()
    #: the seat whose card acts
    owner: int = -1
