"""``ruledraft validate``: check rule files, report every problem as FILE:LINE:COLUMN."""

from __future__ import annotations

import json
from enum import Enum
from typing import List

import typer

from ruledraft.bundled import bundled_ids
from ruledraft.errors import InputError
from ruledraft.loading import check_ruleset


class Format(str, Enum):
    text = "text"
    json = "json"


def summary_line(ruleset) -> str:
    cat = ruleset.catalogue
    players = f"{ruleset.min_players}-{ruleset.max_players}" if ruleset.min_players != ruleset.max_players else str(ruleset.min_players)
    def n(count: int, noun: str) -> str:
        return f"{count} {noun}{'' if count == 1 else 's'}"

    return (
        f"{ruleset.name} ({ruleset.id}{' ' + ruleset.version if ruleset.version else ''}): {players} players, "
        f"{n(cat.size, 'card type')}, {n(sum(c.count for c in cat.cards), 'card')}, {n(ruleset.rounds, 'round')}, "
        f"{n(len(ruleset.rules), 'scoring rule')}"
    )


def validate(
    paths: List[str] = typer.Argument(..., help="Rule files (or bundled ruleset ids: " + ", ".join(bundled_ids()) + ") to check.", metavar="PATH..."),
    format: Format = typer.Option(Format.text, "--format", "-f", help="text: one problem per line; json: for tools."),
    show_source: bool = typer.Option(False, "--show-source", help="Show the offending line with a caret under each problem."),
) -> None:
    """Check rule files against the schema and the semantic rules.

    Every problem is reported, one per line, as FILE:LINE:COLUMN: error: MESSAGE.
    Exits 1 if any file has a problem, 0 if all are valid.
    """
    reports = []
    failed = False
    for path in paths:
        try:
            result = check_ruleset(path)
        except InputError as e:
            failed = True
            reports.append({"file": path, "valid": False, "diagnostics": [{"file": path, "line": 0, "column": 0, "severity": "error", "message": str(e)}]})
            if format is Format.text:
                typer.echo(f"error: {e}", err=True)
            continue
        if result.ok:
            reports.append({"file": result.file, "valid": True, "summary": summary_line(result.ruleset),
                            "diagnostics": [d.to_json() for d in result.diagnostics]})
            if format is Format.text:
                for d in result.diagnostics:  # warnings
                    typer.echo(d.format(with_source=show_source))
                typer.echo(f"{result.file}: ok: {summary_line(result.ruleset)}")
        else:
            failed = True
            reports.append({"file": result.file, "valid": False, "diagnostics": [d.to_json() for d in result.diagnostics]})
            if format is Format.text:
                for d in result.diagnostics:
                    typer.echo(d.format(with_source=show_source))
    if format is Format.json:
        typer.echo(json.dumps(reports, indent=2))
    raise typer.Exit(1 if failed else 0)
