"""What every compiled card effect holds: its card, when it acts, its play order and
the card's name, and its kind (each unit's ``NAME``). A unit's class adds its own
keys (keyword arguments only, so the common ones need no place in line)::

    @attrs.frozen(kw_only=True)
    class Collision(EffectBase):
        KIND: ClassVar[str] = NAME
        at_least: int

    Collision(**common(spec, ctx, card, WHEN), at_least=spec.get("at_least", 2))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import attrs

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
    """The keys every effect has (Sushi Go!'s chopsticks, a pick rule, have their own)."""

    #: the kind's name, the ``kind:`` value (each unit's ``NAME``)
    KIND: ClassVar[str] = ""
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


def common(spec: Mapping[str, Any], ctx: RuleContext, card: int, when: str) -> dict[str, Any]:
    """The common keys of an effect of ``card`` declared as ``spec`` (``when``: the kind's default trigger)."""
    return {
        "card": card,
        "when": spec.get("when", when),
        "order": spec.get("order", 0),
        "name": ctx.catalogue.cards[card].name,
    }
