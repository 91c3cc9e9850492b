"""Decisions: a choice a card effect asks of one seat in the middle of a turn.

The class lives with the card effects that ask them
(:mod:`ruledraft.language.decision`); this is its name in the engine.
"""

from __future__ import annotations

import numbers
import operator
import reprlib
import sys
from typing import Any

import attrs

from ruledraft.errors import InputError
from ruledraft.language.decision import Decision as Decision

__all__ = ["Decision", "asked"]


def asked(effect: Any, decision: Any, game: Any, step: str) -> Decision | None:
    """What an effect's ``step`` (``start``, ``decide``) returned, checked: None, or a
    :class:`Decision` of one of the game's players, about one of its cards, with at least
    one choice among the game's actions (whole numbers; numpy's too, and a list, are
    taken as a tuple of ints). Anything else (a plug-in effect's fault) is an
    :class:`InputError` naming the effect, not a failure deep in the engine later."""
    if decision is None:
        return None
    if type(decision) is Decision:
        options = decision.options
        if type(options) is tuple and options and set(map(type, options)) == {int}:  # as every built-in effect
            ints: tuple[int, ...] | None = options
        elif isinstance(options, (tuple, list)) and options and all(_whole(o) for o in options):
            ints = tuple(operator.index(o) for o in options)
        else:
            ints = None
        if (
            ints is not None
            and 0 <= min(ints)
            and max(ints) <= game.done_action
            and _index(decision.seat, game.num_players)
            and _index(decision.card, game.num_card_types)
            and (decision.owner == -1 or _index(decision.owner, game.num_seats))
        ):
            return decision if ints is options else attrs.evolve(decision, options=ints)
    kind = getattr(effect, "kind", type(effect).__name__)
    module = type(effect).__module__
    where = getattr(sys.modules.get(module), "__file__", None) or module  # a plug-in's file
    given = repr(decision) if type(decision) is Decision else reprlib.repr(decision)  # (a Decision's is short)
    raise InputError(
        f"card effect '{kind}' ({where}): its {step}() gave {given[:300]}, where None or a Decision of a seat "
        f"from 0 to {game.num_players - 1}, about a card of the game, with at least one of the game's actions "
        f"(0 to {game.done_action}) as its options is wanted"
    )


def _whole(value: Any) -> bool:
    """Whether ``value`` is a whole number (numpy's too), not a bool."""
    return type(value) is int or (not isinstance(value, bool) and isinstance(value, numbers.Integral))


def _index(value: Any, size: int) -> bool:
    """Whether ``value`` is a whole number (not a bool) from 0 to ``size`` - 1."""
    return _whole(value) and 0 <= int(value) < size
