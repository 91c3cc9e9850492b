"""``ruledraft schema``: the ruleset JSON Schema, with the plug-ins loaded, for editors."""

from __future__ import annotations

import typer

from ruledraft.language.schema import ruleset_schema, schema_text

from .common import reported_errors


def schema() -> None:
    """Print the ruleset JSON Schema with every scoring kind and card effect, plug-ins included (for editors).

    Without plug-ins it is the schemas/ruleset.schema.json shipped with ruledraft.
    """
    with reported_errors():
        typer.echo(schema_text(ruleset_schema()), nl=False)
