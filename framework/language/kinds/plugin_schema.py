"""The base of the ruleset schema (``ruleset.base.schema.json``: everything but the
scoring kinds and the card effects) and the check of a plug-in's schema fragment
against it, shared by :func:`~ruledraft.language.kinds.register_scoring_kind` and
:func:`~ruledraft.language.effects.register_card_effect`.

Below both registries and the schema generation (:mod:`.schema`), so the imports
run one way.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

from ruledraft.language.kinds.registry import PluginError

BASE = Path(__file__).with_name("ruleset.base.schema.json")


@functools.cache
def base_schema() -> dict[str, Any]:
    """The base schema as read (shared: copy it before changing it)."""
    loaded: dict[str, Any] = json.loads(BASE.read_text(encoding="utf-8"))
    return loaded


def base_definitions() -> frozenset[str]:
    """The names of the definitions the base schema has (a kind may not take one)."""
    return frozenset(base_schema()["$defs"])


def check_plugin_schema(name: str, schema: dict[str, Any], what: str = "scoring kind") -> None:
    """A plug-in's schema (of a ``what`` named ``name``) must be JSON and a valid JSON
    Schema whose ``$ref``s name the ruleset schema's definitions: found now, not as an
    internal error mid-validation."""
    import jsonschema  # only when a plug-in registers: not on every start

    try:
        text = json.dumps(schema)
    except (TypeError, ValueError) as e:
        raise PluginError(f"{what} '{name}': its schema is not JSON data ({e})") from None
    try:
        jsonschema.Draft202012Validator.check_schema(schema)
    except jsonschema.SchemaError as e:
        raise PluginError(f"{what} '{name}': its schema is not a valid JSON Schema: {e.message}") from None
    known = base_definitions()
    for ref in sorted(set(re.findall(r'"\$ref": "([^"]*)"', text))):
        if not (ref.startswith("#/$defs/") and ref.removeprefix("#/$defs/") in known):
            raise PluginError(
                f"{what} '{name}': its schema refers to {ref!r}; a plug-in may refer to the ruleset "
                "schema's own definitions (#/$defs/selector, #/$defs/points, ...)"
            )
