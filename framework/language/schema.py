"""The ruleset JSON Schema, generated from the scoring kinds and the card effects.

``ruleset.base.schema.json`` (beside this module) holds everything but the kinds:
the generation adds each kind's definition, the ``kind`` enum and the branch that
applies a kind's definition to a rule of that kind. ``schemas/ruleset.schema.json``
is the schema of the built-in kinds, committed for editors; regenerate it with

    python3 -m ruledraft.language.schema          (write it)
    python3 -m ruledraft.language.schema --check  (exit 1 if it is stale)

``ruledraft schema`` prints the schema with the plug-ins loaded.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from ruledraft.language.effects import EFFECT_KINDS, effect_schemas
from ruledraft.language.kinds import SCORING_KINDS, ScoringKind
from ruledraft.language.kinds.plugin_schema import BASE as BASE
from ruledraft.language.kinds.plugin_schema import base_definitions as base_definitions
from ruledraft.language.kinds.plugin_schema import base_schema


def _or_list(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"


def ruleset_schema(kinds: Iterable[ScoringKind] | None = None, *, builtin_effects: bool = False) -> dict[str, Any]:
    """The ruleset schema for ``kinds`` (default: every registered kind, plug-ins
    included) and the card effects (every registered one, or the built-in ones)."""
    units = tuple(SCORING_KINDS.units() if kinds is None else kinds)
    schema = copy.deepcopy(base_schema())
    names = [k.name for k in units]
    rule = schema["$defs"]["scoringRule"]
    rule["properties"]["kind"]["description"] = f"{_or_list(names)}."
    rule["properties"]["kind"]["enum"] = names
    rule["allOf"] = [
        {
            "if": {"required": ["kind"], "properties": {"kind": {"const": k.name}}},
            "then": {"$ref": f"#/$defs/{k.schema_name}"},
        }
        for k in units
    ]
    defs: dict[str, Any] = {}
    for key, value in schema["$defs"].items():
        if key == "scoringRule":
            for k in units:
                defs[k.schema_name] = copy.deepcopy(k.full_schema())
        defs[key] = value
    effect, effect_defs = effect_schemas(EFFECT_KINDS.units(builtin_only=True) if builtin_effects else None)
    card = defs["card"]
    card["properties"]["effect"] = {
        "title": "Effect",
        "description": "What the card does in play (for example kind: draw_and_choose).",
        "$ref": "#/$defs/effect",
    }
    defs["effect"] = effect
    defs.update(effect_defs)
    schema["$defs"] = defs
    return schema


def schema_text(schema: dict[str, Any]) -> str:
    """The schema as the committed file writes it."""
    return json.dumps(schema, indent=2) + "\n"


def committed_path() -> Path:
    from ruledraft.language.bundled import schema_path

    return schema_path()


def builtin_schema_text() -> str:
    """What ``schemas/ruleset.schema.json`` must hold: the schema of the built-in kinds."""
    return schema_text(ruleset_schema(SCORING_KINDS.units(builtin_only=True), builtin_effects=True))


def main(argv: list[str]) -> int:
    path = committed_path()
    text = builtin_schema_text()
    if argv[1:] == ["--check"]:
        if path.read_text(encoding="utf-8") != text:
            print(f"{path} is stale: run python3 -m ruledraft.language.schema", file=sys.stderr)
            return 1
        return 0
    path.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
