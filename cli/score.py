"""``ruledraft score``: score finished tables without playing them."""

from __future__ import annotations

import json

import typer

from ruledraft.errors import InputError
from ruledraft.table_scoring import score_table

from .common import get_ruleset, reported_errors


def score(
    ruleset: str = typer.Argument(..., help="A bundled ruleset id (sushi-go) or a rule file."),
    table: str = typer.Argument(..., help='A JSON file {"rounds": [[[cards of seat 0 in play order], ...], ...]}, or JSON Lines with one such object per line; - reads standard input.'),
    rules: bool = typer.Option(False, "--rules", help="Also give the points of each scoring rule."),
) -> None:
    """Score finished tables without playing them.

    Prints one JSON object per table: the points of each round, of game end,
    the totals and the winners (seat indices).
    """
    with reported_errors():
        rs = get_ruleset(ruleset)
        try:
            text = typer.get_text_stream("stdin").read() if table == "-" else open(table, encoding="utf-8").read()
        except OSError as e:
            raise InputError(f"{table}: cannot read: {e.strerror}") from None
        name = "<stdin>" if table == "-" else table
        tables = []
        try:
            tables.append((name, json.loads(text)))
        except json.JSONDecodeError:
            for n, line in enumerate(text.splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    tables.append((f"{name}:{n}", json.loads(line)))
                except json.JSONDecodeError as e:
                    raise InputError(f"{name}:{n}:{e.colno}: not valid JSON: {e.msg}") from None
        for where, data in tables:
            result = score_table(rs, data, where)
            if not rules:
                result.pop("rules")
            typer.echo(json.dumps(result))
