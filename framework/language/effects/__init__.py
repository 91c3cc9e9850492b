"""Card effects: what a card does when it is played, each one a unit found through
one registry, in the pattern of the scoring kinds (:mod:`ruledraft.language.kinds`).

A card declares its effect in its entry: ``effect: {kind: draw_and_choose, draw: 4,
not: [menu], order: 7}``. A unit (one module per kind: :mod:`.extra_pick`,
:mod:`.second_pick`, :mod:`.draw_and_choose`, :mod:`.collision`,
:mod:`.turn_face_down`, :mod:`.copy_earlier`, :mod:`.ask_for`) holds

* ``NAME`` and ``SCHEMA``: the JSON Schema of the effect's own keys (``kind``,
  ``when``, ``order`` and ``description`` are common to every effect);
* ``WHEN``: its trigger when the card gives none, and ``TRIGGERS``, those it allows;
* ``build(spec, ctx, card)``: the compiled effect (an attrs object with ``kind``,
  ``card``, ``when``, ``order`` and ``describe()``; :class:`.base.EffectBase` gives the
  common keys and :func:`.base.common` reads them), asking ``ctx`` to resolve names.

The engine runs a compiled effect through the run-time step of its kind
(:mod:`ruledraft.engine.effects`); it knows no card by name.

Triggers (``when``):

* ``pick`` -- while choosing (Sushi Go!'s chopsticks: take two cards at once);
* ``play`` -- when the card is revealed (played, or placed by another effect);
* ``reveal`` -- after each later reveal while the card is on its owner's table;
* ``turn_end`` -- at the end of every turn of the round (the card may have arrived this turn);

``round_end`` and ``game_end`` are reserved for effects still to come.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

import attrs

from ruledraft.language.effects import (
    ask_for,
    collision,
    copy_earlier,
    draw_and_choose,
    extra_pick,
    second_pick,
    turn_face_down,
)
from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.kinds.registry import Registry

#: keys every effect has, whatever its kind
COMMON_KEYS = ("kind", "when", "order", "description")
#: every trigger the language names (a unit allows some of them)
TRIGGERS = ("pick", "play", "reveal", "turn_end", "round_end", "game_end")


class CompiledEffect(Protocol):
    """What the engine reads of a compiled effect."""

    @property
    def kind(self) -> str: ...
    @property
    def card(self) -> int: ...
    @property
    def when(self) -> str: ...
    @property
    def order(self) -> int: ...
    def describe(self) -> str: ...


Builder = Callable[[Mapping[str, Any], RuleContext, int], Any]


@attrs.frozen
class EffectKind:
    """An effect kind: its name (the ``kind:`` value), builder, schema and triggers."""

    name: str
    build: Builder = attrs.field(repr=False)
    schema: Mapping[str, Any] = attrs.field(repr=False)
    when: str = "play"
    triggers: tuple[str, ...] = ("play",)

    @property
    def schema_name(self) -> str:
        """Its definition in the ruleset schema: ``draw_and_choose`` -> ``drawAndChooseEffect``."""
        first, *rest = self.name.split("_")
        return first + "".join(w.title() for w in rest) + "Effect"

    def full_schema(self) -> dict[str, Any]:
        """``schema`` with the common keys, ``type: object`` and no other keys."""
        out: dict[str, Any] = dict(self.schema)
        out.setdefault("type", "object")
        out.setdefault("additionalProperties", False)
        own = dict(out.get("properties") or {})
        common: dict[str, Any] = {
            "kind": True,
            "when": {
                "title": "When",
                "description": f"When the effect acts: {', '.join(self.triggers)} (default {self.when}).",
                "enum": list(self.triggers),
            },
            "order": {
                "title": "Order",
                "description": "Play order: in one turn the lower number resolves first, every seat's before the next number (ties: seat order).",
                "type": "integer",
                "minimum": 0,
                "maximum": 1000,
            },
            "description": {
                "title": "Description",
                "description": "Notes about the effect for people.",
                "$ref": "#/$defs/description",
            },
        }
        out["properties"] = {**common, **own}
        return out


#: every effect kind, in the order registered
EFFECT_KINDS: Registry[EffectKind] = Registry("card effect", "ruledraft.card_effects")

for _unit in (extra_pick, second_pick, draw_and_choose, collision, turn_face_down, copy_earlier, ask_for):
    EFFECT_KINDS.register(EffectKind(_unit.NAME, _unit.build, _unit.SCHEMA, _unit.WHEN, _unit.TRIGGERS), builtin=True)


def effect_schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``effect`` definition (kind enum and one branch per kind) and the kinds' own
    definitions, for the ruleset schema."""
    units = EFFECT_KINDS.units(builtin_only=True)
    names = [k.name for k in units]
    effect: dict[str, Any] = {
        "title": "Effect",
        "description": "What the card does when played (see the effect kinds).",
        "type": "object",
        "required": ["kind"],
        "properties": {"kind": {"title": "Effect kind", "description": f"{', '.join(names)}.", "enum": names}},
        "allOf": [
            {
                "if": {"required": ["kind"], "properties": {"kind": {"const": k.name}}},
                "then": {"$ref": f"#/$defs/{k.schema_name}"},
            }
            for k in units
        ],
    }
    return effect, {k.schema_name: k.full_schema() for k in units}
