"""What every compiled card effect holds: its card, when it acts, its play order and
the card's name, and its kind (each unit's ``NAME``); the defaults of
:class:`~ruledraft.language.effect.CardEffect`, and the words of the events several
effects note. A unit's class adds its own keys (keyword arguments only, so the common
ones need no place in line) and its step::

    @attrs.frozen(kw_only=True)
    class Collision(EffectBase):
        KIND: ClassVar[str] = NAME
        at_least: int

        def turn_end(self, state: EffectState) -> None: ...

    Collision(**common(spec, ctx, card, WHEN), at_least=spec.get("at_least", 2))
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from ruledraft.language.decision import Decision
from ruledraft.language.effect import CardEffect, EffectKernelWriter, EffectPart, EffectState, Speech
from ruledraft.language.kinds.context import RuleContext

#: the schema of ``discard``, for an effect whose card may leave the table once it has acted
DISCARD: dict[str, Any] = {
    "title": "Discard",
    "description": "Whether the card with the effect is discarded afterwards (default true).",
    "type": "boolean",
    "default": True,
}


@attrs.frozen(kw_only=True)
class EffectBase:
    """The keys every effect has (Sushi Go!'s chopsticks, a pick rule, have their own),
    and the defaults of :class:`~ruledraft.language.effect.CardEffect`. A unit gives
    the step of its trigger: :meth:`start` (``play``, ``reveal``) or :meth:`turn_end`."""

    #: the kind's name, the ``kind:`` value (each unit's ``NAME``)
    KIND: ClassVar[str] = ""
    #: it reads the cards each seat placed earlier this round (``State.round_placed``)
    keeps_round: ClassVar[bool] = False
    #: it turns table cards into other card types (a face-down card, a copy): a round's
    #: table may then hold more of a type than the deck has
    changes_cards: ClassVar[bool] = False
    #: a look-ahead bot declines its decisions (says done) when it may
    bots_decline: ClassVar[bool] = False
    #: the most cards one of its actions takes out of the deck for good (a card it plays
    #: from there): under ``between_rounds: keep_deck`` the rule check counts them
    deck_taken: ClassVar[int] = 0
    #: a card with it may become another card and act as that card (a copy)
    plays_copies: ClassVar[bool] = False
    #: the card index of the card with the effect
    card: int
    #: its trigger (``pick``, ``play``, ``reveal``, ``turn_end``)
    when: str
    #: play order within a turn: lower first, every seat's before the next number
    order: int
    #: the card's name, for the words of ``describe()``
    name: str

    @property
    def kind(self) -> str:
        return self.KIND

    def describe(self) -> str:  # pragma: no cover - every unit says itself
        return f"{self.name}: {self.kind} (order {self.order})."

    def start(self, state: EffectState, seat: int) -> Decision | None:
        """The step of a ``play`` or ``reveal`` effect: ``seat``'s card acts; a decision
        when it needs a choice (the turn waits for it), else None."""
        raise NotImplementedError(f"the {self.kind} effect has no step for when: {self.when}")

    def decide(self, state: EffectState, decision: Decision, action: int) -> Decision | None:
        """The choice ``action`` (already checked legal) made for ``decision``; the next
        decision when the choice asks another (of any seat), else None."""
        raise NotImplementedError(f"the {self.kind} effect asks no decision")

    def turn_end(self, state: EffectState) -> None:
        """The step of a ``turn_end`` effect, after every other effect of the turn."""
        raise NotImplementedError(f"the {self.kind} effect has no step for when: {self.when}")

    def redrawn(self, shown: Sequence[int]) -> tuple[int, ...]:
        """The options of its decision had it shown ``shown`` (cards drawn) instead: any of them."""
        return tuple(sorted(set(shown)))

    def rehanded(self, state: Any, decision: Decision, hand: Sequence[int]) -> tuple[int, ...] | None:
        """The options of its decision had the deciding seat held ``hand`` instead (a
        re-deal of that hidden hand for another seat's world): ``()`` if such a hand could
        not be asked it; None (the default) if the effect does not say, and the re-deal
        keeps the cards of the options in the hand so the decision stays legal."""
        return None

    def event_line(self, what: Sequence[Any], say: Speech) -> str | None:
        """An event of this effect's own in words (None: not one of its own; the
        events several effects note are worded by :func:`shared_event_line`)."""
        return None

    def kernel(self, w: EffectKernelWriter) -> EffectPart | None:
        """The effect's part of the compiled game kernel (:class:`EffectPart`); None: it
        has none yet, and a ruleset with it plays on the reference engine."""
        return None

    def table_excess(self, counts: Sequence[int]) -> Mapping[int, int | None] | None:
        """How many more cards of a type than the deck has (``counts``, per type) a
        round's table may hold through this effect: per type, a number, or None where
        only the whole deck bounds it; None where it cannot say (every type then). None
        for an effect that :attr:`changes_cards`, else nothing (``score`` checks a table
        by it)."""
        return None if self.changes_cards else {}

    def face_down_cards(self) -> frozenset[int]:
        """The card types this effect lays over another card on a table (a card turned
        face down), which a table of card ids does not show: none (``score`` refuses a
        table with one beside a rule that pairs cards, whose pairs it may have held)."""
        return frozenset()

    def same_kind(self, other: CardEffect | None) -> bool:
        """Whether ``other`` (a card's effect, or None) is of this effect's kind."""
        return other is not None and other.kind == self.kind

    @staticmethod
    def discard_own(state: EffectState, seat: int, card: int, why: str) -> None:
        """The card with the effect leaves ``seat``'s table, discarded (its physical
        card, should it be a copy), and a ``discarded`` event says ``why``."""
        state.discard(state.remove_from_table(seat, card))
        state.note("discarded", seat, card, why, 0)


def shared_event_line(what: Sequence[Any], say: Speech) -> str | None:
    """The events several effects note, in words: ``played`` (a card played through an
    effect), ``to_hand`` (a table card into a hand), ``discarded`` (``why``: ``used``,
    its effect done; a unit words its own reasons in its :meth:`~EffectBase.event_line`)."""
    event, seat = what[0], what[1]
    if event == "played":
        return (
            f"{say.subject(seat, 'play', 'plays')} {say.name(what[2])} with {say.pronoun(seat)} {say.acting(what[3])}."
        )
    if event == "to_hand":
        return f"{say.subject(seat, 'take', 'takes')} {say.acting(what[2])} into {say.pronoun(seat)} hand."
    if event == "discarded":
        return f"{discarded(what, say)}{' after use.' if what[3] == 'used' else '.'}"
    return None


def discarded(what: Sequence[Any], say: Speech) -> str:
    """The start of a ``discarded`` event's line: ``Your Miso Soup is discarded``."""
    return f"{say.whose(what[1])} {say.acting(what[2])} is discarded"


def has_step(effect: CardEffect) -> bool:
    """Whether ``effect`` carries the run-time step of its trigger (a unit of
    :class:`EffectBase` overrides it; any other object has it callable)."""
    when = getattr(effect, "when", None)  # a plug-in's object may lack anything
    method = "turn_end" if when == "turn_end" else "start"
    step = getattr(type(effect), method, None)
    return callable(step) and step is not getattr(EffectBase, method)


def no_step(kind: str, when: object, card_id: str) -> str:
    """Why an effect of ``kind`` acting at ``when`` (of card ``card_id``) cannot be played:
    it has no step for its trigger."""
    step = "turn_end" if when == "turn_end" else "start"
    return (
        f"the card effect '{kind}' of card '{card_id}' has no engine step for when: {when} "
        f"(its effect object needs a {step} method; see register_card_effect)"
    )


def common(spec: Mapping[str, Any], ctx: RuleContext, card: int, when: str) -> dict[str, Any]:
    """The common keys of an effect of ``card`` declared as ``spec`` (``when``: the kind's default trigger)."""
    return {
        "card": card,
        "when": spec.get("when", when),
        "order": spec.get("order", 0),
        "name": ctx.catalogue.cards[card].name,
    }
