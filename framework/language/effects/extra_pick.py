"""The ``extra_pick`` effect: Sushi Go!'s chopsticks. Once the card is on your table,
on a later turn you may take ``extra`` more cards from your hand at once; the card
then goes back into the hand that is passed on. Resolved at pick time: the engine
encodes the cards taken as one action (``Game.encode_action``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.ruleset import ExtraPick

NAME = "extra_pick"
WHEN = "pick"
TRIGGERS = ("pick",)
SCHEMA: dict[str, Any] = {
    "title": "Extra pick (take several cards at once)",
    "description": "On a later turn, take extra cards from your hand at once; this card then goes back into the hand.",
    "properties": {
        "extra": {
            "title": "Extra cards",
            "description": "How many more cards may be taken at once (1, the only value supported).",
            "type": "integer",
            "minimum": 1,
            "maximum": 1,
            "default": 1,
        },
    },
}


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> ExtraPick:
    return ExtraPick(
        id=ctx.catalogue.cards[card].id,
        card=card,
        extra=spec.get("extra", 1),
        description=str(spec.get("description", "")),
    )
