"""A plug-in card effect: ``trade_in``, when played the seat may discard a card from its table.

No built-in effect does this: a player gets rid of a card that would cost them
(a third tempura that will never pair, a pudding race already lost). Load it with
``ruledraft --plugin examples/plugins/trade_in.py`` (or install a package that names
it in the ``ruledraft.card_effects`` entry-point group); then a card may write::

    effect: {kind: trade_in, not: [pudding]}   # may not trade in pudding
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from ruledraft.language.decision import Decision
from ruledraft.language.effect import EffectState, Speech
from ruledraft.language.effects import register_card_effect
from ruledraft.language.effects.base import EffectBase, common
from ruledraft.language.kinds.context import RuleContext

NAME = "trade_in"
SCHEMA = {
    "title": "Trade in a card",
    "description": "When played, you may discard one card from your table (done: keep them all).",
    "properties": {
        "not": {"title": "Not these", "description": "Cards that may not be traded in.", "$ref": "#/$defs/selector"},
    },
}


@attrs.frozen(kw_only=True)
class TradeIn(EffectBase):
    """When played: a decision among the card types on the seat's table (not cards
    with this effect, not the excluded ones) or done; the card chosen is discarded."""

    KIND: ClassVar[str] = NAME
    excluded: frozenset[int]
    excluded_words: str

    def describe(self) -> str:
        text = f"{self.name}: when played (order {self.order}), you may discard a card from your table"
        return text + (f" (not {self.excluded_words})." if self.excluded else ".")

    def start(self, state: EffectState, seat: int) -> Decision | None:
        effect_of = state.game.effect_of
        options = sorted(
            c
            for c, n in enumerate(state.counts[seat])
            if n and c not in self.excluded and not self.same_kind(effect_of[c])
        )
        if not options:
            return None
        return Decision(
            seat=seat,
            effect=self.kind,
            card=self.card,
            prompt=f"{self.name}: discard a card from your table? (done: no)",
            options=(*options, state.game.done_action),
            owner=seat,
        )

    def rehanded(self, state: Any, decision: Decision, hand: Sequence[int]) -> tuple[int, ...]:
        """Its options are cards on the table, which every seat sees: a re-deal of the
        hidden hands (another seat's view of the game) leaves them as they are."""
        return decision.options

    def decide(self, state: EffectState, decision: Decision, action: int) -> None:
        if action == state.game.done_action:
            return
        seat = decision.seat
        state.discard(state.remove_from_table(seat, action))
        state.note("traded_in", seat, action, decision.card)

    def event_line(self, what: Sequence[Any], say: Speech) -> str | None:
        if what[0] != "traded_in":
            return None
        seat = what[1]
        return (
            f"{say.subject(seat, 'trade', 'trades')} in {say.pronoun(seat)} {say.name(what[2])} "
            f"with {say.pronoun(seat)} {say.name(what[3])}."
        )


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> TradeIn | None:
    excluded: tuple[int, ...] = ()
    if "not" in spec:
        found = ctx.cards(("not",), spec["not"])  # an unknown name: a located error, and None
        if found is None:
            return None
        excluded = found
    return TradeIn(
        **common(spec, ctx, card, "play"),
        excluded=frozenset(excluded),
        excluded_words=ctx.words(spec["not"]) if "not" in spec else "",
    )


EFFECT = register_card_effect(NAME, build, SCHEMA)
