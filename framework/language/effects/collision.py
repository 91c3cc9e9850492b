"""The ``collision`` effect: Party's miso soup. At the end of a turn, if at least
``at_least`` copies of the card were placed this turn, by anyone and any way, every
copy placed this turn is discarded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from ruledraft.language.effects.base import EffectBase, common
from ruledraft.language.kinds.context import RuleContext

NAME = "collision"
WHEN = "turn_end"
TRIGGERS = ("turn_end",)
SCHEMA: dict[str, Any] = {
    "title": "Collision",
    "description": "At the end of a turn, if enough copies were placed this turn by anyone, all of them are discarded.",
    "properties": {
        "at_least": {
            "title": "At least",
            "description": "How many copies placed in one turn make them all discarded.",
            "type": "integer",
            "minimum": 2,
            "maximum": 100,
            "default": 2,
        },
    },
}


@attrs.frozen(kw_only=True)
class Collision(EffectBase):
    KIND: ClassVar[str] = NAME
    at_least: int

    def describe(self) -> str:
        return (
            f"{self.name}: at the end of a turn, if {self.at_least} or more were placed in it "
            "(by anyone, any way), all of them are discarded."
        )


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> Collision:
    return Collision(**common(spec, ctx, card, WHEN), at_least=spec.get("at_least", 2))
