"""The ``draw_and_choose`` effect: Party's menu. When played, draw ``draw`` cards from
the deck; the seat plays one of them as if picked (its own effects act), never one of
the cards ``not`` names; the rest go back into the deck, shuffled. With ``discard``
(the default) the card with the effect is then discarded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from ruledraft.language.effects.base import DISCARD, EffectBase, common
from ruledraft.language.kinds.context import RuleContext

NAME = "draw_and_choose"
WHEN = "play"
TRIGGERS = ("play",)
SCHEMA: dict[str, Any] = {
    "title": "Draw and choose",
    "description": "Draw cards from the deck, play one of them, shuffle the rest back.",
    "required": ["draw"],
    "properties": {
        "draw": {
            "title": "Cards drawn",
            "description": "How many cards are drawn from the deck.",
            "type": "integer",
            "minimum": 1,
            "maximum": 20,
        },
        "not": {
            "title": "Not these",
            "description": "Cards that may not be chosen (they go back with the rest).",
            "$ref": "#/$defs/selector",
        },
        "discard": DISCARD,
    },
}


@attrs.frozen(kw_only=True)
class DrawAndChoose(EffectBase):
    KIND: ClassVar[str] = NAME
    draw: int
    excluded: frozenset[int]
    discard: bool
    excluded_words: str

    def describe(self) -> str:
        text = f"{self.name}: when played (order {self.order}), draw {self.draw} cards from the deck and play one"
        if self.excluded:
            text += f" (not {self.excluded_words})"
        text += "; the others go back into the deck, shuffled"
        return text + (f"; the {self.name} is discarded." if self.discard else ".")


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> DrawAndChoose | None:
    excluded: tuple[int, ...] = ()
    words = ""
    if "not" in spec:
        found = ctx.cards(("not",), spec["not"])
        if found is None:
            return None
        excluded, words = found, ctx.words(spec["not"])
    return DrawAndChoose(
        **common(spec, ctx, card, WHEN),
        draw=spec["draw"],
        excluded=frozenset(excluded),
        discard=spec.get("discard", True),
        excluded_words=words,
    )
