"""The ``second_pick`` effect: Party's chopsticks. On a later turn, after the reveal,
the seat may play a second card from its hand (a decision: a card, or done to
decline); the card with the effect then goes into that hand."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext

NAME = "second_pick"
WHEN = "reveal"
TRIGGERS = ("reveal",)
SCHEMA: dict[str, Any] = {
    "title": "Second pick (after the reveal)",
    "description": "On a later turn, after the reveal, play a second card from your hand; this card then goes into your hand.",
    "properties": {},
}


@attrs.frozen
class SecondPick:
    card: int
    when: str
    order: int
    name: str

    @property
    def kind(self) -> str:
        return NAME

    def describe(self) -> str:
        return (
            f"{self.name}: on a later turn, after the reveal (order {self.order}), you may play a second "
            f"card from your hand; the {self.name} then go into your hand."
        )


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> SecondPick:
    return SecondPick(card, spec.get("when", WHEN), spec.get("order", 0), ctx.catalogue.cards[card].name)
