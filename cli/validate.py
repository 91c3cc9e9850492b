"""``ruledraft validate``: check rule files, report every problem as FILE:LINE:COLUMN."""

from __future__ import annotations

import json
from enum import Enum

import typer

from ruledraft.errors import InputError
from ruledraft.language.bundled import bundled_ids, resolve_source
from ruledraft.language.loading import check_ruleset

from .common import fail, shown
from .options import allow_path_option, allowed_dirs


class Format(str, Enum):
    text = "text"
    json = "json"


def summary_line(ruleset, *, raw: bool = False) -> str:
    """``Name (id version): 2-5 players, ...``; its names made safe for the terminal,
    or as written (``raw``: for JSON, which escapes what it must itself)."""
    cat = ruleset.catalogue
    show = str if raw else shown

    def n(count: int, noun: str) -> str:
        return f"{count} {noun}{'' if count == 1 else 's'}"

    return (
        f"{show(ruleset.name)} ({ruleset.id}{' ' + show(ruleset.version) if ruleset.version else ''}): {ruleset.player_range}, "
        f"{n(cat.size, 'card type')}, {n(sum(c.count for c in cat.cards), 'card')}, {n(ruleset.rounds, 'round')}, "
        f"{n(len(ruleset.rules), 'scoring rule')}"
    )


def tunable_lines(result) -> list[str]:
    """A line per tune mark of a valid file: where it is, its range, the number checked in its place."""
    if not result.marks:
        return []
    return [
        f"{shown(result.file)}:{m.line}:{m.column}: tunable: {shown(m.name)} in [{m.low}, {m.high}], "
        f"checked at {result.marks.values[m.name]}"
        for m in result.marks.marks
    ]


def expand_directory(path: str) -> list[str]:
    """The rule files (``*.yaml``, ``*.yml``) directly in a directory, sorted (a directory
    so named is not one, and is passed over); InputError if none."""
    import os

    from ruledraft.language.file_access import display_name, os_reason

    try:
        names = sorted(
            n for n in os.listdir(path) if n.endswith((".yaml", ".yml")) and not os.path.isdir(os.path.join(path, n))
        )
    except OSError as e:
        raise InputError(f"{display_name(path)}: {os_reason(e)}") from None
    if not names:
        raise InputError(f"{display_name(path)}: no rule files (*.yaml, *.yml) in this directory")
    return [os.path.join(path, n) for n in names]


def _is_directory_argument(path: str) -> bool:
    import os

    try:
        return os.path.isdir(path) and resolve_source(path).is_dir()
    except InputError:
        return False


def validate(
    paths: list[str] = typer.Argument(
        ...,
        help="Rule files, directories of rule files (their *.yaml and *.yml), bundled ruleset ids ("
        + ", ".join(bundled_ids())
        + "), or - for standard input.",
        metavar="PATH...",
    ),
    format: Format = typer.Option(Format.text, "--format", "-f", help="text: one problem per line; json: for tools."),
    show_source: bool = typer.Option(
        False, "--show-source", help="Show the offending line with a caret under each problem."
    ),
    allow_path: list[str] = allow_path_option(),
) -> None:
    """Check rule files against the schema and the semantic rules.

    Every problem is reported, one per line, as FILE:LINE:COLUMN: error:
    MESSAGE. Exits 2 if an argument is not a file that can be read (missing, a
    directory without rule files, a FIFO, a device, no permission), else 1 if
    any file has a problem, 0 if all are valid. `extends:` may name a bundled
    ruleset or a file in the extending file's directory; --allow-path DIR
    widens that.
    """
    reports = []
    failed = False
    bad_argument = False

    def refuse(path: str, e: InputError) -> None:
        nonlocal bad_argument
        bad_argument = True
        reports.append(
            {
                "file": path,
                "valid": False,
                "diagnostics": [{"file": path, "line": 0, "column": 0, "severity": "error", "message": str(e)}],
            }
        )
        if format is Format.text:
            typer.echo(f"error: {shown(e)}", err=True)

    try:
        allow = allowed_dirs(allow_path)
    except InputError as e:
        fail(f"error: {e}", 2)
    files: list[str] = []
    for path in paths:
        if _is_directory_argument(path):
            try:
                files.extend(expand_directory(path))
            except InputError as e:
                refuse(path, e)
        else:
            files.append(path)
    if files.count("-") > 1:  # read once, standard input is then empty
        fail("error: standard input (-) can be read only once: give - once", 2)
    for path in files:
        try:
            result = check_ruleset(path, allow=allow)
        except InputError as e:
            refuse(path, e)
            continue
        if result.ok:
            reports.append(
                {
                    "file": result.file,
                    "valid": True,
                    "summary": summary_line(result.ruleset, raw=True),
                    "diagnostics": [d.to_json() for d in result.diagnostics],
                    **({"tunable": [m.to_json() for m in result.marks.marks]} if result.marks else {}),
                }
            )
            if format is Format.text:
                for d in result.diagnostics:  # warnings
                    typer.echo(d.format(with_source=show_source))
                typer.echo(f"{shown(result.file)}: ok: {summary_line(result.ruleset)}")
                for line in tunable_lines(result):
                    typer.echo(line)
        else:
            failed = True
            reports.append(
                {"file": result.file, "valid": False, "diagnostics": [d.to_json() for d in result.diagnostics]}
            )
            if format is Format.text:
                for d in result.diagnostics:
                    typer.echo(d.format(with_source=show_source))
    if format is Format.json:
        typer.echo(json.dumps(reports, indent=2))
    raise typer.Exit(2 if bad_argument else 1 if failed else 0)
