"""Card effects: what a card does when it is played, each one a unit found through
one registry, in the pattern of the scoring kinds (:mod:`ruledraft.language.kinds`).

A card declares its effect in its entry: ``effect: {kind: draw_and_choose, draw: 4,
not: [menu], order: 7}``. A unit (one module per kind: :mod:`.extra_pick`,
:mod:`.second_pick`, :mod:`.draw_and_choose`, :mod:`.collision`,
:mod:`.turn_face_down`, :mod:`.copy_earlier`, :mod:`.ask_for`) holds

* ``NAME`` and ``SCHEMA``: the JSON Schema of the effect's own keys (``kind``,
  ``when``, ``order`` and ``description`` are common to every effect);
* ``WHEN``: its trigger when the card gives none, and ``TRIGGERS``, those it allows;
* ``build(spec, ctx, card)``: the compiled effect, asking ``ctx`` to resolve names;
* the compiled effect's class, which implements
  :class:`~ruledraft.language.effect.CardEffect`: it describes itself, carries its
  run-time step (``start``, ``decide``, ``turn_end``), words the events it notes for
  ``play``, and says what the engine and the bots must know of it beforehand.
  :class:`.base.EffectBase` gives the common keys and the defaults; :func:`.base.common`
  reads the keys.

:data:`EFFECT_KINDS` lists them. The engine runs a compiled effect through its step;
it knows no card and no effect by name. A plug-in adds an effect with
:func:`register_card_effect` (see ``examples/README.md``, "Plug-in card effects").

Triggers (``when``):

* ``pick`` -- while choosing (Sushi Go!'s chopsticks: take two cards at once);
* ``play`` -- when the card is revealed (played, or placed by another effect);
* ``reveal`` -- after each later reveal while the card is on its owner's table;
* ``turn_end`` -- at the end of every turn of the round (the card may have arrived this turn);

``round_end`` and ``game_end`` are reserved for effects still to come.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import attrs

from ruledraft.language.effect import CardEffect
from ruledraft.language.effects import (
    ask_for,
    collision,
    copy_earlier,
    draw_and_choose,
    extra_pick,
    second_pick,
    turn_face_down,
)
from ruledraft.language.effects.base import EffectBase, has_step, no_step
from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.kinds.plugin_schema import base_definitions, check_plugin_schema
from ruledraft.language.kinds.registry import PluginError, Registry
from ruledraft.language.ruleset import ExtraPick

__all__ = [
    "EFFECT_KINDS",
    "CardEffect",
    "EffectBase",
    "EffectKind",
    "effect_schemas",
    "has_step",
    "no_step",
    "register_card_effect",
]

#: keys every effect has, whatever its kind
COMMON_KEYS = ("kind", "when", "order", "description")
#: every trigger the language names (a unit allows some of them)
TRIGGERS = ("pick", "play", "reveal", "turn_end", "round_end", "game_end")


#: ``build(spec, ctx, card)``: the compiled effect (an extra pick for ``extra_pick``), or
#: None after a problem recorded through ``ctx``
Builder = Callable[[Mapping[str, Any], RuleContext, int], CardEffect | ExtraPick | None]


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
                "description": "Play order: in one turn the lower number resolves first, every seat's before the next number (ties: seat order; default 0).",
                "type": "integer",
                "default": 0,
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


#: every effect kind, built-in first, then plug-ins in the order they were registered
EFFECT_KINDS: Registry[EffectKind] = Registry("card effect", "ruledraft.card_effects")

for _unit in (extra_pick, second_pick, draw_and_choose, collision, turn_face_down, copy_earlier, ask_for):
    EFFECT_KINDS.register(EffectKind(_unit.NAME, _unit.build, _unit.SCHEMA, _unit.WHEN, _unit.TRIGGERS), builtin=True)


def register_card_effect(
    name: str,
    build: Builder,
    schema: Mapping[str, Any],
    *,
    when: str = "play",
    triggers: Iterable[str] = ("play",),
) -> EffectKind:
    """Add a card effect, for a card that does something no built-in effect does.

    ``name`` is what rule files write as ``kind:`` under a card's ``effect:``;
    ``schema`` is the JSON Schema of the effect's own keys (``kind``, ``when``,
    ``order`` and ``description`` are added, and no other key is allowed);
    ``when`` is its trigger when the card gives none and ``triggers`` those it
    allows (``play``, ``reveal``, ``turn_end``); ``build(spec, ctx, card)`` returns
    the compiled effect (an object with the
    :class:`~ruledraft.language.effect.CardEffect` methods, most easily an attrs
    subclass of :class:`~ruledraft.language.effects.base.EffectBase` that gives its
    step), or ``None`` after recording a problem through ``ctx``.

    :class:`PluginError` if the name is malformed or taken, the schema is no object
    schema, or the triggers are not ones the engine runs.
    """
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        raise PluginError(f"card effect '{name}': its schema must be a JSON Schema of an object")
    if not callable(build):
        raise PluginError(f"card effect '{name}': build must be a function (spec, ctx, card) -> effect")
    allowed = tuple(triggers)
    runs = ("play", "reveal", "turn_end")
    if not allowed or any(t not in runs for t in allowed) or when not in allowed:
        raise PluginError(
            f"card effect '{name}': its triggers must be some of {', '.join(runs)}, its default (when) one of them"
        )
    check_plugin_schema(name, dict(schema), what="card effect")
    kind = EffectKind(name, build, schema, when, allowed)
    if isinstance(name, str) and kind.schema_name in base_definitions():
        raise PluginError(f"card effect '{name}': the name is reserved")
    return EFFECT_KINDS.register(kind)


def effect_schemas(kinds: Iterable[EffectKind] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The ``effect`` definition (kind enum and one branch per kind) and the kinds' own
    definitions, for the ruleset schema (``kinds``: default every registered effect,
    plug-ins included)."""
    units = tuple(EFFECT_KINDS.units() if kinds is None else kinds)
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
