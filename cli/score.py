"""``ruledraft score``: score finished tables without playing them."""

from __future__ import annotations

import json

import typer

from typing import List

from ruledraft.errors import InputError
from ruledraft.file_access import UnreadableInput, read_input
from ruledraft.table_scoring import score_table

from .common import allow_path_option, allowed_dirs, get_ruleset, reported_errors, ruleset_help, shown

#: a table file larger than this is refused (a whole game fits in a few kilobytes)
MAX_TABLE_BYTES = 64 << 20


def read_tables(table: str, name: str) -> list:
    """``(where, object)`` for a JSON file holding one table, or JSON Lines with one per line."""
    try:
        if table == "-":
            text = typer.get_text_stream("stdin").read()
        else:
            raw = read_input(table, MAX_TABLE_BYTES)
            if len(raw) > MAX_TABLE_BYTES:
                raise InputError(f"{name}: too large (more than {MAX_TABLE_BYTES} bytes)")
            text = raw.decode("utf-8-sig")
    except UnreadableInput as e:
        raise InputError(str(e)) from None
    except UnicodeDecodeError as e:
        raise InputError(f"{name}: not UTF-8 text (byte {e.start})") from None
    lines = [(n, line) for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    if not lines:
        raise InputError(f"{name}: no table in the file")
    try:
        return [(name, json.loads(text))]
    except RecursionError:
        raise InputError(f"{name}: JSON nested too deeply") from None
    except json.JSONDecodeError as whole:
        # JSON Lines only if the first line is a document of its own; otherwise the
        # whole-document error is the one that points at the real mistake
        try:
            json.loads(lines[0][1])
        except (json.JSONDecodeError, RecursionError):
            raise InputError(f"{name}:{whole.lineno}:{whole.colno}: not valid JSON: {whole.msg}") from None
    tables = []
    for n, line in lines:
        try:
            tables.append((f"{name}:{n}", json.loads(line)))
        except json.JSONDecodeError as e:
            raise InputError(f"{name}:{n}:{e.colno}: not valid JSON: {e.msg}") from None
        except RecursionError:
            raise InputError(f"{name}:{n}: JSON nested too deeply") from None
    return tables


def score(
    ruleset: str = typer.Argument(..., help=ruleset_help(stdin=True)),
    table: str = typer.Argument(..., help=shown('A JSON file {"rounds": [[[cards of seat 0 in play order], ...], ...]} (per round, per seat, card ids), or JSON Lines with one such object per line; - reads standard input.', markup=True)),
    rules: bool = typer.Option(False, "--rules", help="Also give the points of each scoring rule."),
    allow_path: List[str] = allow_path_option(),
) -> None:
    """Score finished tables without playing them.

    Prints one JSON object per table: the points of each round, of game end,
    the totals and the winners (seat indices).
    """
    with reported_errors():
        if ruleset == "-" and table == "-":
            raise InputError("the ruleset and the table cannot both be read from standard input (-)")
        rs = get_ruleset(ruleset, allowed_dirs(allow_path))
        name = "<stdin>" if table == "-" else table
        tables = read_tables(table, name)
        for where, data in tables:
            result = score_table(rs, data, where)
            if not rules:
                result.pop("rules")
            typer.echo(json.dumps(result))
