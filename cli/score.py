"""``ruledraft score``: score finished tables without playing them."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any, BinaryIO

import typer

from ruledraft.engine.table_scoring import TableError, table_sheet, unreachable
from ruledraft.errors import InputError, LineProblem
from ruledraft.language.file_access import UnreadableInput, open_input
from ruledraft.language.json_check import parse_json, path_lines
from ruledraft.language.kinds.registry import PluginError
from ruledraft.play.game_log import MAX_LINE_BYTES, read_lines, replay_sheet, size_in_words

from .common import get_ruleset, reported_errors, say_problem, shown
from .options import allow_path_option, allowed_dirs, ruleset_argument

#: lines read past a bad first line for one that is a JSON object (then the file is JSON Lines)
LOOK_AHEAD = 5

#: the endings of a file named as JSON Lines: one line of output for each line in, even where it has one
JSON_LINES = (".jsonl", ".ndjson")


def read_tables(fh: BinaryIO, name: str) -> Iterator[tuple]:
    """``(where, object, text)`` for a JSON document holding one table (``where`` its
    file's name, ``text`` the document with a blank line for each line before it), or
    JSON Lines with one per line (``where`` ``FILE:LINE``, no text). Read line by line:
    no line, and no whole document, may be longer than
    :data:`~ruledraft.play.game_log.MAX_LINE_BYTES`."""
    lines = read_lines(fh, name, read_on=True)  # a line that is not UTF-8 (or too long): its LineProblem
    size = 0  # bytes so far: a whole document may not be longer than a line

    def counted(line: str | InputError) -> str:
        if isinstance(line, InputError):
            raise line
        nonlocal size
        size += len(line.encode("utf-8"))
        if size > MAX_LINE_BYTES:
            raise InputError(f"{name}: longer than {size_in_words(MAX_LINE_BYTES)} (the limit for one table)")
        return line

    for first_n, first in lines:  # noqa: B007 - the first table's line number is used below
        if counted(first).strip():
            break
    else:
        raise InputError(f"{name}: no table in the file")
    pending: tuple[int, Any]
    try:
        pending = (first_n, parse_json(first, name, first_n))
    except InputError as bad_first:
        # not a document of its own: the whole file is one (pretty-printed) document, and
        # its own error is the one that points at the real mistake; unless one of the next
        # few lines is a JSON object of its own (JSON Lines whose first lines are bad). A
        # first line opening a list is a document's (tables, and log lines, are objects).
        seen = ["\n" * (first_n - 1), first]  # blank lines first, so line numbers are right
        ahead: list[tuple[int, Any]] = [(first_n, bad_first)]  # (line number, table or its error)
        unreadable: InputError | None = None  # a line not UTF-8 or too long: no document then
        for n, line in () if first.lstrip().startswith("[") else lines:
            if isinstance(line, InputError):
                ahead.append((n, line))
                unreadable = unreadable or line
            else:
                seen.append(counted(line))
                if not line.strip():
                    continue
                try:
                    ahead.append((n, parse_json(line, name, n)))
                except InputError as e:
                    ahead.append((n, e))
            if isinstance(ahead[-1][1], dict) or len(ahead) > LOOK_AHEAD:
                break
        if not isinstance(ahead[-1][1], dict):
            if unreadable is not None:
                raise unreadable from None
            seen.extend(counted(line) for _, line in lines)
            whole = "".join(seen)
            yield name, parse_json(whole, name), whole
            return
        for n, item in ahead[:-1]:
            yield f"{name}:{n}", item, None
        pending = ahead[-1]
    # JSON Lines (one line on its own is the same as a JSON file of one table); a line
    # that is no JSON is yielded as its InputError, and the lines after it are read on
    for n, line in lines:
        if not isinstance(line, InputError) and not line.strip():
            continue
        yield f"{name}:{pending[0]}", pending[1], None
        try:
            pending = (n, line if isinstance(line, InputError) else parse_json(line, name, n))
        except InputError as e:
            pending = (n, e)
    if pending[0] != first_n or name.lower().endswith(JSON_LINES):
        yield f"{name}:{pending[0]}", pending[1], None
    else:  # one line alone in a file not named as JSON Lines: a document
        yield name, pending[1], "\n" * (first_n - 1) + first


def _placed(e: TableError, where: str, text: str | None) -> list[str]:
    """A document's problems with the line of each one's path (``FILE:LINE: error: ...``)."""
    if text is None:
        return e.lines
    lines = list(e.lines)
    found = path_lines(text, [path for path, _ in e.problems])
    for i, (path, message) in enumerate(e.problems[: len(lines)]):
        said = f"{where}: error: {path}: {message}" if path else f"{where}: error: {message}"
        if lines[i] == said and path in found:
            lines[i] = f"{where}:{found[path]}{said[len(where) :]}"
    return lines


def _scored(rs: Any, data: Any, where: str, partial: bool, rescore: bool, text: str | None) -> tuple[Any, list[str]]:
    """One table (or game log line) scored: its sheet, or None and what is wrong with
    it, each problem said on standard error as it is found (in a document, ``text``, at
    its line)."""
    if isinstance(data, LineProblem):  # a line that is no JSON (or no UTF-8 text, or too long)
        return None, [say_problem(data.where, data.message)]
    if isinstance(data, InputError):
        return None, [say_error(str(data))]
    if isinstance(data, dict) and "format" in data:  # a game log line: scored by replaying it
        sheet, problems = replay_sheet(rs, data, rescore=rescore)
        return sheet, [] if sheet is not None else [say_problem(where, p) for p in problems]
    try:
        sheet = table_sheet(rs, data, where, partial=partial)
    except TableError as e:
        lines = _placed(e, where, text)
        if isinstance(data, list) and any(isinstance(item, dict) for item in data):  # tables in one list
            lines = [f"{lines[0]} (for several tables, write JSON Lines: one table per line)", *lines[1:]]
        return None, [say_error(line, prefixed=False) for line in lines]
    except PluginError as e:  # (a plug-in's totals past the bound): this table's problem, said in its place
        return None, [say_problem(where, str(e))]
    for line in unreachable(rs, data):  # scored all the same: a what-if is a fair question
        typer.echo(shown(f"{where}: warning: {line}"), err=True)
    return sheet, []


def say_error(text: str, *, prefixed: bool = True) -> str:
    """``text`` on standard error (after ``error:`` when ``prefixed``), escaped; the line said."""
    line = shown(f"error: {text}" if prefixed else text)
    typer.echo(line, err=True)
    return line


def score(
    ruleset: str = ruleset_argument(stdin=True),
    table: str = typer.Argument(
        ...,
        help=shown(
            'A JSON file {"rounds": [[[cards of seat 0 in play order], ...], ...]} (per round, per seat, card ids), or JSON Lines with one such object per line, or game log lines (as --log writes them); - reads standard input.',
            markup=True,
        ),
    ),
    rules: bool = typer.Option(False, "--rules", help="Also give the points of each scoring rule."),
    allow_path: list[str] = allow_path_option(),
    partial: bool = typer.Option(
        False, "--partial", help="Accept tables with fewer rounds than the ruleset has (the rounds played so far)."
    ),
    rescore: bool = typer.Option(
        False,
        "--rescore",
        help="For game log lines: score them by the rules given without comparing the scores the log recorded "
        "(what logged games score under rules changed since); their deals and moves are still checked.",
    ),
) -> None:
    """Score finished tables without playing them.

    Prints one JSON object per table: the points of each round, of game end,
    the totals and the winners (seat indices). Each table is checked against
    schemas/score-table.schema.json and the ruleset first (it must have every
    round of the game unless --partial is given). Every problem of every bad
    table is reported on standard error, and for JSON Lines in its place in the
    output as {"where": "FILE:LINE", "errors": [...]} (one line out for each table
    in; a file of one line is JSON Lines when named .jsonl or .ndjson); the good
    ones are still scored, and the command then exits 1 (2 if a line was not
    JSON). A line (and a JSON document) may be at most 8 MiB long.

    A game log line (an object with "format", as simulate --log and play --log
    write it) is scored turn by turn by replaying it, as replay checks it: the
    only form for a ruleset whose scoring needs the turns (a race). With --rescore
    the scores it recorded are not compared: logged games are scored by rules
    changed since they were played.
    """
    with reported_errors():
        if ruleset == "-" and table == "-":
            raise InputError("the ruleset and the table cannot both be read from standard input (-)")
        rs = get_ruleset(ruleset, allowed_dirs(allow_path))
        name = "<stdin>" if table == "-" else table
        try:
            fh = contextlib.nullcontext(typer.get_binary_stream("stdin")) if table == "-" else open_input(table)
        except UnreadableInput as e:
            raise InputError(str(e)) from None
        bad = tables = unreadable = 0
        seen: list[str] = []  # every problem said
        with fh as stream:
            for where, data, text in read_tables(stream, name):
                tables += 1
                sheet, said = _scored(rs, data, where, partial, rescore, text)
                seen.extend(said)
                if sheet is None:
                    bad += 1
                    unreadable += isinstance(data, InputError)
                    if where != name:  # JSON Lines: one line out per table in, a bad one's saying why
                        typer.echo(json.dumps({"where": where, "errors": said}))
                else:
                    typer.echo(json.dumps(sheet.to_json(rules=rules)))
        if bad:
            if not rescore and any("in the log, the rules give" in line for line in seen):
                typer.echo(
                    "note: the rules score these games otherwise than when they were logged;"
                    " --rescore scores them by the rules as they are now",
                    err=True,
                )
            if tables > 1:
                typer.echo(f"{bad} of {tables} tables could not be scored", err=True)
            raise typer.Exit(2 if unreadable else 1)
