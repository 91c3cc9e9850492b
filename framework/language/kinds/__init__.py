"""The scoring kinds: each one a self-contained unit, found through one registry.

A unit (one module per built-in kind: :mod:`.sets`, :mod:`.table`, :mod:`.per_card`,
:mod:`.modifier`, :mod:`.majority`, :mod:`.expression`, :mod:`.race`,
:mod:`.neighbours`, :mod:`.boost`) holds

* ``SCHEMA``: the JSON Schema of a rule of that kind (its own keys; ``id``, ``kind``,
  ``when`` and ``description`` are common to every rule);
* ``build(spec, ctx)``: the compiled rule, asking ``ctx``
  (:class:`~ruledraft.language.kinds.context.RuleContext`) to resolve names and
  compile expressions, which records every mistake with its place;
* the rule class, which implements :class:`~ruledraft.language.rule.Rule`: it
  scores, and ``describe()`` says it in plain words for ``ruledraft show``.

:data:`SCORING_KINDS` lists them; ``schemas/ruleset.schema.json`` is generated from
it (``python3 -m ruledraft.language.schema``). A plug-in adds a kind with
:func:`register_scoring_kind` (see ``examples/README.md``, "Plug-in scoring kinds").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ruledraft.language.kinds import boost, expression, majority, modifier, neighbours, per_card, race, sets, table
from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.kinds.plugin_schema import base_definitions, check_plugin_schema
from ruledraft.language.kinds.registry import PluginError, Registry, load_plugin, loaded_plugins
from ruledraft.language.rule import Rule

__all__ = [
    "SCORING_KINDS",
    "PluginError",
    "RuleContext",
    "ScoringKind",
    "load_plugin",
    "loaded_plugins",
    "register_scoring_kind",
]

Builder = Callable[[Mapping[str, Any], RuleContext], Rule | None]

#: keys every scoring rule has, whatever its kind
COMMON_KEYS = ("id", "kind", "when", "description")


@attrs.frozen
class ScoringKind:
    """A scoring kind: its name (the ``kind:`` value), builder and schema fragment."""

    name: str
    build: Builder = attrs.field(repr=False)
    #: JSON Schema of a rule of this kind (an object schema of its own keys)
    schema: Mapping[str, Any] = attrs.field(repr=False)
    #: a bot's cost estimate scores the rule once per seat (it compares seats)
    compares_seats: bool = False

    @property
    def schema_name(self) -> str:
        """The name of its definition in the ruleset schema: ``per_card`` -> ``perCardRule``."""
        first, *rest = self.name.split("_")
        return first + "".join(w.title() for w in rest) + "Rule"

    def full_schema(self) -> dict[str, Any]:
        """``schema`` with what every rule has added where a plug-in left it out:
        ``type: object``, no other keys, and the common keys allowed."""
        out: dict[str, Any] = dict(self.schema)
        out.setdefault("type", "object")
        out.setdefault("additionalProperties", False)
        own = dict(out.get("properties") or {})
        out["properties"] = {**{k: own.pop(k, True) for k in COMMON_KEYS}, **own}
        return out


#: every scoring kind, built-in first, then plug-ins in the order they were registered
SCORING_KINDS: Registry[ScoringKind] = Registry("scoring kind", "ruledraft.scoring_kinds")

for _unit in (sets, table, per_card, modifier, majority, expression, race, neighbours, boost):
    SCORING_KINDS.register(
        ScoringKind(_unit.NAME, _unit.build, _unit.SCHEMA, compares_seats=_unit in (majority, race, neighbours, boost)),
        builtin=True,
    )


def register_scoring_kind(
    name: str, build: Builder, schema: Mapping[str, Any], *, compares_seats: bool = False
) -> ScoringKind:
    """Add a scoring kind, for a mechanism no data rule can express.

    ``name`` is what rule files write as ``kind:``; ``schema`` is the JSON Schema of
    such a rule (its ``properties``, ``required``...; the common keys ``id``,
    ``kind``, ``when`` and ``description`` are added); ``build(spec, ctx)`` returns
    the compiled rule (an object with the :class:`~ruledraft.language.rule.Rule`
    methods, most easily a subclass of :class:`~ruledraft.language.rule.RuleBase`),
    or ``None`` after recording a problem through ``ctx``. ``compares_seats``: the
    rule ranks or compares seats (a bot's cost estimate counts it once per seat).

    :class:`PluginError` if the name is malformed or taken, or the schema is no
    object schema.
    """
    if not isinstance(schema, Mapping) or schema.get("type", "object") != "object":
        raise PluginError(f"scoring kind '{name}': its schema must be a JSON Schema of an object")
    if not callable(build):
        raise PluginError(f"scoring kind '{name}': build must be a function (spec, ctx) -> rule")
    check_plugin_schema(name, dict(schema))
    kind = ScoringKind(name, build, schema, compares_seats=compares_seats)
    if isinstance(name, str) and kind.schema_name in base_definitions():
        raise PluginError(f"scoring kind '{name}': the name is reserved")
    return SCORING_KINDS.register(kind)
