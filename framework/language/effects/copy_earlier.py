"""The ``copy_earlier`` effect: Party's special order. When played, the card becomes a
copy of a card type its seat placed earlier this round (a copy counts as the card it
copies; the original may have left the table or been turned face down; never a card
with this effect): from then on it is that card for every rule, and a copied card's
when-played effect acts. With nothing to copy it is discarded.

The physical card stays under its face and goes back into the deck as itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from ruledraft.language.effects.base import EffectBase, common
from ruledraft.language.kinds.context import RuleContext

NAME = "copy_earlier"
WHEN = "play"
TRIGGERS = ("play",)
SCHEMA: dict[str, Any] = {
    "title": "Copy an earlier card",
    "description": "Become a copy of a card you placed earlier this round; with nothing to copy, discarded.",
    "properties": {},
}


@attrs.frozen(kw_only=True)
class CopyEarlier(EffectBase):
    KIND: ClassVar[str] = NAME

    def describe(self) -> str:
        return (
            f"{self.name}: when played (order {self.order}), becomes a copy of a card you placed earlier "
            f"this round (not a {self.name}): every rule sees that card, and its when-played effect acts; "
            f"with nothing to copy the {self.name} is discarded."
        )


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> CopyEarlier:
    return CopyEarlier(**common(spec, ctx, card, WHEN))
