"""The ``turn_face_down`` effect: Party's takeout box. When played, the seat turns any
number of its cards placed this round (and still on its table, this turn's included)
face down, one card at a time until it says done: each becomes the ``face_down`` card,
a card type the ruleset declares (usually ``count: 0``, scored by an ordinary rule) and
nothing else. With ``discard`` (the default) the card with the effect is then discarded.

The physical card stays under its face and goes back into the deck as itself."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

from ruledraft.language.effects.base import DISCARD, EffectBase, common
from ruledraft.language.kinds.context import RuleContext

NAME = "turn_face_down"
WHEN = "play"
TRIGGERS = ("play",)
SCHEMA: dict[str, Any] = {
    "title": "Turn face down",
    "description": "Turn any number of your cards placed this round face down: each becomes the face-down card.",
    "required": ["face_down"],
    "properties": {
        "face_down": {
            "title": "Face-down card",
            "description": "The card a turned card becomes (declare it with count: 0 and score it with a rule).",
            "$ref": "#/$defs/identifier",
        },
        "discard": DISCARD,
    },
}


@attrs.frozen(kw_only=True)
class TurnFaceDown(EffectBase):
    KIND: ClassVar[str] = NAME
    face_down: int
    discard: bool
    face_down_name: str

    def describe(self) -> str:
        text = (
            f"{self.name}: when played (order {self.order}), turn any number of your cards placed "
            f"this round face down, one at a time (done ends): each becomes a {self.face_down_name}, "
            "which counts for nothing but its own scoring (the newest copy of the card named is turned)"
        )
        return text + (f"; the {self.name} is discarded." if self.discard else ".")


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> TurnFaceDown | None:
    face_down = ctx.card(("face_down",), spec["face_down"])
    if face_down is None:
        return None
    cards = ctx.catalogue.cards
    if face_down == card:
        ctx.error(("face_down",), f"the face-down card must be another card than {cards[card].id}")
        return None
    return TurnFaceDown(
        **common(spec, ctx, card, WHEN),
        face_down=face_down,
        discard=spec.get("discard", True),
        face_down_name=cards[face_down].name,
    )
