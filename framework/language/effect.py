"""What every compiled card effect provides: the :class:`CardEffect` protocol, and the
views of a game it acts on.

A card effect is one unit (:mod:`ruledraft.language.effects`), like a scoring kind:
its schema, its builder, and the compiled effect, which says itself in words and
carries its own run-time step. The engine, the bots and ``play`` ask an effect
through these names only, never by its kind's name, so an effect brought by a
plug-in is checked, shown, played, logged and replayed like a built-in one.

* ``kind``, ``card``, ``when`` (its trigger), ``order``, ``describe()`` (its line under
  "Card effects" in ``ruledraft show``);
* the step, for its trigger: ``start(state, seat)`` for a ``play`` or ``reveal``
  effect (a :class:`~ruledraft.language.decision.Decision` when it needs a choice,
  else None), ``decide(state, decision, action)`` for the choices it asks (the next
  decision, or None), ``turn_end(state)`` for a ``turn_end`` effect. The state is seen
  through :class:`EffectState`: the seam that keeps every card countable;
* ``event_line(what, say)``: the events it notes (``state.note``) in a sentence of
  ``play``, through :class:`Speech`; None for an event that is not its own;
* what the engine and the bots must know of it beforehand: ``keeps_round`` (it reads
  the cards placed earlier this round), ``changes_cards`` (it turns table cards into
  other card types), ``bots_decline`` (a look-ahead bot says done to its decisions
  when it may: acting costs points it cannot see), ``table_excess(counts)`` (how many
  more of each type than the deck has a table may hold through it: ``score``'s check);
* ``redrawn(shown)``: the options of its decision had it shown ``shown`` instead (a
  re-deal of the cards only the deciding seat has seen);
* ``rehanded(state, decision, hand)``: the options of its decision had the deciding
  seat held ``hand`` instead (a re-deal, for another seat, of the hand it decides
  from): ``()`` if that hand could not be asked it, None if the effect does not say
  (the cards of its options are then kept in the re-dealt hand);
* ``kernel(w)``: the effect's part of the compiled game kernel (:class:`EffectPart`,
  written through :class:`EffectKernelWriter`), or None: then the kernel refuses the
  ruleset, naming the effect, and the reference engine plays it.

:class:`~ruledraft.language.effects.base.EffectBase` gives the common keys, the
defaults and the words of the events several effects share.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import attrs

from ruledraft.language.catalogue import Catalogue
from ruledraft.language.decision import Decision


class _Rules(Protocol):
    @property
    def catalogue(self) -> Catalogue: ...


class EffectGame(Protocol):
    """What a step reads of the game (``Game``): the decision actions, the card
    effects of the other cards."""

    @property
    def ruleset(self) -> _Rules: ...
    @property
    def num_card_types(self) -> int: ...
    @property
    def num_players(self) -> int: ...
    @property
    def families(self) -> tuple[str, ...]: ...
    @property
    def done_action(self) -> int: ...
    @property
    def effect_of(self) -> Sequence[CardEffect | None]: ...
    @property
    def play_effects(self) -> Sequence[CardEffect | None]: ...


class EffectState(Protocol):
    """The state as a step sees it (``State``): read the hands and tables, change them
    only through these methods, so every card stays countable (in a hand, on a
    table, in the deck, kept, shown in a pending decision, or discarded)."""

    @property
    def game(self) -> EffectGame: ...
    @property
    def hands(self) -> Sequence[Sequence[int]]: ...
    @property
    def counts(self) -> Sequence[Sequence[int]]: ...
    @property
    def played(self) -> Sequence[Sequence[int]]: ...
    @property
    def placed(self) -> Sequence[Sequence[int]]: ...
    @property
    def round_placed(self) -> Sequence[Sequence[int]]: ...

    def place(self, seat: int, card: int) -> None:
        """Put ``card`` on ``seat``'s table: placed this turn, its own ``play`` effect queued."""

    def remove_from_table(self, seat: int, card: int, *, turned: bool = False) -> int:
        """Take the newest copy of ``card`` off ``seat``'s table; the physical card."""
        ...

    def change_card(self, seat: int, position: int, new: int, *, turned: bool = False) -> None:
        """The card at ``position`` of ``seat``'s table becomes card type ``new``."""

    def take_from_hand(self, seat: int, card: int) -> None:
        """``card`` leaves ``seat``'s hand (to be placed or given)."""

    def into_hand(self, seat: int, card: int, *, known: bool = False, private: bool = False) -> None:
        """``card`` goes into ``seat``'s hand, seen by the seats that have held that hand
        (a card taken back from the table); ``known``: by every seat; ``private``: by
        ``seat`` alone (a card drawn face down), and each seat the hand passes to after."""

    def became(self, seat: int, card: int, new: int) -> None:
        """``seat``'s ``card`` placed this turn counts as ``new`` from now on."""

    def discard(self, card: int) -> None:
        """``card`` (already off the table) goes to the discard pile."""

    def draw(self, n: int) -> list[int]:
        """Up to ``n`` cards from the top of the deck."""
        ...

    def return_to_deck(self, cards: Sequence[int], seat: int) -> None:
        """Shuffle ``cards`` back into the rest of the deck."""

    def add_job(self, seat: int, effect: CardEffect) -> None:
        """Queue ``effect`` of ``seat``'s card for this turn."""

    def note(self, *what: Any) -> None:
        """Record what the effect just did, for ``play`` to tell (an event's ``what``)."""


class Speech(Protocol):
    """How ``play`` puts seats and cards in words, for an effect's :meth:`CardEffect.event_line`."""

    def name(self, card: int) -> str:
        """A card's name."""
        ...

    def acting(self, card: int) -> str:
        """The card whose effect acts (or that the effect moves), named as the card it
        is when it is a copy of another type: ``Special Order (as Menu (7))``."""
        ...

    def subject(self, seat: int, verb: str, verb_s: str) -> str:
        """``You take`` or ``Seat 1 takes``."""
        ...

    def whose(self, seat: int) -> str:
        """``Your`` or ``Seat 1's``."""
        ...

    def pronoun(self, seat: int) -> str:
        """``your`` or ``its``."""
        ...

    def whom(self, seat: int) -> str:
        """``you`` or ``seat 1``."""
        ...

    def counted(self, n: int, noun: str) -> str:
        """``1 card``, ``3 cards``."""
        ...

    def asked(self, action: int, *, family: str = "") -> str:
        """A card or family named in a decision: ``Tempura``, or ``nigiri card`` after
        the words ``family`` (``any nigiri card``)."""
        ...


class EffectKernelWriter(Protocol):
    """What an effect's ``kernel(w)`` may ask while it writes its part of the game kernel
    (:mod:`ruledraft.kernel`, ``effects.tmpl``).

    A part is the bodies of compiled functions over ``fx``, the kernel's table of one
    game (``fx.hand[fx.slot[s], :fx.hl[fx.slot[s]]]`` seat ``s``'s hand in order,
    ``fx.seq[s, :fx.lens[s]]`` its table in play order, ``fx.counts[s, c]`` its count of
    card ``c``, ``fx.placed[s, :fx.npl[s]]`` what it placed this turn, ``fx.opts`` the
    options of a decision), changed only through the helpers of ``effects.tmpl``
    (``fx_place``, ``fx_remove_newest``, ``fx_take_from_hand``, ``fx_into_hand``,
    ``fx_into_hand_known``, ``fx_discard``, ``fx_note_placed``, ``fx_hand_options``,
    ``fx_follow``, ``fx_draw``, ``fx_return_shown``; a card changed into another:
    ``fx_newest``, ``fx_change``, ``fx_add_job``, ``fx_remove_newest_of``, ``fx.rpl`` its
    placements earlier this round), which keep every card
    countable as the reference engine's state does. ``N`` is the number of seats.
    """

    @property
    def done_action(self) -> int:
        """The decision action that declines (``Game.done_action``)."""
        ...

    @property
    def card_types(self) -> int:
        """The number of card types ``K`` (a decision action ``K + f`` names family ``f``)."""
        ...

    @property
    def families(self) -> tuple[str, ...]:
        """The families a decision may name, in action order (``Game.families``)."""
        ...

    def array(self, values: Sequence[int]) -> str:
        """The name of a constant ``int64`` array holding ``values``."""
        ...

    def copies(self, card: int) -> int:
        """How many copies of ``card`` the game has (its deck and the cards added later)."""
        ...

    @property
    def effect_kinds(self) -> tuple[str, ...]:
        """Per card type, the kind of its effect ("" for none; ``Game.effect_of``)."""
        ...


@attrs.frozen(kw_only=True)
class EffectPart:
    """An effect's part of the game kernel: the bodies of its steps, in numba-compatible
    Python (see :class:`EffectKernelWriter`), for its trigger.

    * ``start``: body of ``(fx, s) -> int``, seat ``s``'s card acts (``play``, ``reveal``):
      the number of options written to ``fx.opts`` when it asks a decision, else 0;
    * ``decide``: body of ``(fx, s, a)``, the option ``a`` chosen by seat ``s`` (the seat
      whose card acts is ``fx.ctr[OWNER_AT]``); a choice that asks another (of any seat)
      writes its options to ``fx.opts`` and calls ``fx_follow(fx, seat, n)``;
    * ``turn_end``: body of ``(fx,)``, after every other effect of the turn;
    * ``decisions``: the most decisions it can ask in one turn over the whole table;
    * ``placements``: the most cards it can place in one turn that the lab counts as
      placed by an effect (``fx_note_placed``);
    * ``lookahead``: the kernel's greedy and value bots may judge its decisions as the
      reference's do (a one-step look in a re-dealt world, ``kernel/effects.tmpl``
      ``_look_choose``): what its decisions show only their seat comes through ``fx_draw``,
      and a card known to every seat goes into a hand through ``fx_into_hand_known``, so
      the look re-deals what the seat cannot see as ``SeatView.sample_world`` does.
      Otherwise those bots are refused the ruleset;
    * ``copies``: a card with it may become another card with an effect (a copy), so
      the room for decisions and placements grows by its copies times any other part's
      per copy of its card;
    * ``turns``: it turns table cards face down (``fx_change(..., True)``, as
      ``State.change_card(turned=True)``), so the rules that pair cards (``modifier``,
      ``boost``) read the turned cards (``Tableau.turned``) at scoring and in a look;
    * ``grows``: it may leave a seat's table longer than its picks alone would (a card
      placed beside the one with the effect, which stays): the kernel holds a table of a
      hand and two cards, so a ruleset with such a part plays on the reference engine.
    """

    start: str | None = None
    decide: str | None = None
    turn_end: str | None = None
    decisions: int = 0
    placements: int = 0
    lookahead: bool = False
    copies: bool = False
    turns: bool = False
    grows: bool = False


class CardEffect(Protocol):
    """A compiled card effect, as the engine, the bots and ``play`` see it."""

    @property
    def kind(self) -> str: ...
    @property
    def card(self) -> int: ...
    @property
    def when(self) -> str: ...
    @property
    def order(self) -> int: ...
    @property
    def keeps_round(self) -> bool: ...
    @property
    def changes_cards(self) -> bool: ...
    @property
    def bots_decline(self) -> bool: ...
    def table_excess(self, counts: Sequence[int]) -> Mapping[int, int | None] | None: ...
    def face_down_cards(self) -> frozenset[int]: ...
    def describe(self) -> str: ...
    def start(self, state: EffectState, seat: int) -> Decision | None: ...
    def decide(self, state: EffectState, decision: Decision, action: int) -> Decision | None: ...
    def turn_end(self, state: EffectState) -> None: ...
    def redrawn(self, shown: Sequence[int]) -> tuple[int, ...]: ...
    def rehanded(self, state: Any, decision: Decision, hand: Sequence[int]) -> tuple[int, ...] | None: ...
    def event_line(self, what: Sequence[Any], say: Speech) -> str | None: ...
    def kernel(self, w: EffectKernelWriter) -> EffectPart | None: ...
