"""The ``second_pick`` effect: Party's chopsticks. On a later turn, after the reveal,
the seat may play a second card from its hand (a decision: a card, or done to
decline); the card with the effect then goes into that hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from ruledraft.language.effects.base import EffectBase, common
from ruledraft.language.kinds.context import RuleContext

NAME = "second_pick"
WHEN = "reveal"
TRIGGERS = ("reveal",)
SCHEMA: dict[str, Any] = {
    "title": "Second pick (after the reveal)",
    "description": "On a later turn, after the reveal, play a second card from your hand; this card then goes into your hand.",
    "properties": {},
}


@attrs.frozen(kw_only=True)
class SecondPick(EffectBase):
    KIND: ClassVar[str] = NAME

    def describe(self) -> str:
        return (
            f"{self.name}: on a later turn, after the reveal (order {self.order}), you may play a second "
            f"card from your hand; the {self.name} then go into your hand."
        )


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> SecondPick:
    return SecondPick(**common(spec, ctx, card, WHEN))
