"""``ruledraft replay``: play logged games again and check every pick and score."""

from __future__ import annotations

import hashlib
import json
import os

import typer

from ruledraft.errors import InputError, LineProblem, RulesetError
from ruledraft.language.bundled import OutOfReach, bundled_ids
from ruledraft.language.file_access import UnreadableInput, display_name, input_kind
from ruledraft.language.loading import load_named_ruleset
from ruledraft.play.game_log import STDIN_NAME, read_records, record_problems, replay_record

from .common import counted, get_ruleset, reported_errors, say_problem, shown
from .options import allow_path_option, allowed_dirs


def _record_ruleset(record: dict, log_dir: str):
    """What a record names as its ruleset: the rule file it was played from when that is
    still there (a game of a bundled ruleset names no file), else a file of that name in
    the log's directory (the log and its rule file moved together), then its id; an
    :class:`InputError` when the file is gone: its id a bundled ruleset's (the game was
    not played from that one) or nothing at all to load."""
    name = record.get("ruleset")
    path = record.get("ruleset_file")
    if isinstance(path, str) and path and (not isinstance(name, str) or os.path.lexists(path)):
        return path
    beside = os.path.basename(path) if isinstance(path, str) and path else ""
    if beside and os.path.isfile(os.path.join(log_dir, beside)):
        return beside  # (loaded from the log's directory)
    if isinstance(path, str) and path and name in bundled_ids():
        return InputError(
            f"the rule file it was played from, {display_name(path)}, is not there, and the bundled "
            f"{name!r} only shares its id (give the rule file with --ruleset FILE, or --ruleset {name} "
            "if it was the bundled one)"
        )
    if isinstance(path, str) and path and isinstance(name, str) and not os.path.lexists(name):
        return InputError(
            f"the rule file it was played from, {display_name(path)}, is not there, and no bundled ruleset "
            f"has its id {display_name(name)!r} (give the rule file with --ruleset FILE)"
        )
    return name


def replay(
    logs: list[str] = typer.Argument(
        ...,
        help="JSON Lines game logs written by `simulate --log` or `play --log`, one or more (-: standard input).",
        metavar="LOG...",
    ),
    ruleset: str = typer.Option(
        None,
        "--ruleset",
        "-r",
        help="Ruleset to check against: a bundled id ("
        + ", ".join(bundled_ids())
        + ") or a rule file (default: the one each record names).",
    ),
    allow_path: list[str] = allow_path_option(),
) -> None:
    """Replay logged games and check every pick and score.

    Each record is first checked against schemas/game-log.schema.json and its
    ruleset (every problem is reported with the line and the place in the
    record), then the game is played again under its ruleset; any illegal pick or
    score that does not match is reported. Exits 1 on any bad record or mismatch.
    A record's ruleset is a bundled id or a file in the log's directory, in the
    current directory or under an --allow-path DIR; --ruleset names any file.
    A line may be at most 8 MiB long. Several logs are replayed in turn, each
    summed up on a line of its own, then all of them.
    """
    with reported_errors():
        allow = allowed_dirs(allow_path)
        if logs.count("-") > 1:
            raise InputError("standard input (-) can be read once: name it once")
        if "-" in logs and ruleset == "-":
            raise InputError("the log and the ruleset cannot both be read from standard input (-)")
        for log in logs:
            if log != "-":
                try:
                    input_kind(log)  # a FIFO, device or refused path: a message, before any is opened
                except UnreadableInput as e:
                    raise InputError(str(e)) from None
        cache: dict[tuple[str, str], object] = {}
        named = get_ruleset(ruleset, allow) if ruleset is not None else None  # any file: its errors the command's
        games = bad = strays = empty = unusable = 0
        for log in logs:
            try:
                counts = _replay_log(log, named, cache, allow)
            except InputError as e:  # read only in part (gzip data, say): said, and the other logs replayed
                if len(logs) == 1:
                    raise
                typer.echo(f"error: {shown(str(e))}", err=True)
                unusable += 1
                continue
            if len(logs) > 1:
                typer.echo(f"{shown(STDIN_NAME if log == '-' else log)}: {_summary(*counts)}")
            games, bad, strays = games + counts[0], bad + counts[1], strays + counts[2]
            empty += not counts[0] and not counts[2]
        unread = f"; {counted(unusable, 'log')} could not be read" if unusable else ""
        typer.echo(
            _summary(games, bad, strays) if len(logs) == 1 else f"in all: {_summary(games, bad, strays)}{unread}"
        )
        raise typer.Exit(2 if unusable else 1 if bad or strays or empty else 0)


def _summary(games: int, bad: int, strays: int) -> str:
    """ "N games replayed, C clean, B with problems" (and the lines that are no game record)."""
    summary = f"{counted(games, 'game')} replayed, {games - bad} clean, {bad} with problems"
    if strays:
        summary += "; 1 line is no game record" if strays == 1 else f"; {strays} lines are no game records"
    return summary


def _ruleset_of(record: dict, log_dir: str, cache: dict[tuple[str, str], object], allow):
    """The ruleset ``record`` names, loaded from ``log_dir`` (once: kept in ``cache`` by
    name and directory), or an :class:`InputError` whose message is the record's problem."""
    name = _record_ruleset(record, log_dir)
    if isinstance(name, InputError):
        return name
    if not isinstance(name, str):
        return InputError("no ruleset named in the record")
    key = (name, log_dir)
    if key not in cache:
        try:
            cache[key] = load_named_ruleset(name, base=log_dir, allow=(*allow, log_dir, "."), within_what="the log")
        except OutOfReach as e:
            cache[key] = InputError(
                f"cannot load ruleset '{display_name(name)}': {e} (or give the ruleset with --ruleset FILE)"
            )
        except (InputError, RulesetError) as e:
            cache[key] = InputError(f"cannot load ruleset '{display_name(name)}': {e}")
    return cache[key]


def _replay_log(log: str, named, cache: dict[tuple[str, str], object], allow) -> tuple[int, int, int]:
    """Replay the records of ``log``, each problem said at its line: (records, those with
    problems, lines that are no game record). ``named``: the ruleset of ``--ruleset``
    (None: each record's own, loaded once for each log's directory into ``cache``)."""
    log_dir = (os.path.dirname(log) if log != "-" else "") or "."
    where = STDIN_NAME if log == "-" else log
    games = bad = strays = 0  # strays: lines that are no game record at all
    seen: dict[int, int] = {}  # each record's digest (64 bits): the line it was first on (a game logged twice)
    for line, record in read_records(log, dash_is_stdin=True):
        if isinstance(record, LineProblem):  # a line that is not JSON, not UTF-8 or too long
            strays += 1
            say_problem(record.where, record.message)
            continue
        problems = record_problems(record)
        if not isinstance(record, dict):  # JSON, but a list or a number: no game to count
            strays += 1
            for p in problems:
                say_problem(f"{where}:{line}", p)
            continue
        games += 1
        if problems:
            bad += 1
            for p in problems:
                say_problem(f"{where}:{line}", p)
            continue
        digest = int.from_bytes(hashlib.sha256(json.dumps(record, sort_keys=True).encode()).digest()[:8], "big")
        if digest in seen:
            bad += 1
            say_problem(f"{where}:{line}", f"the same game as line {seen[digest]}: a game is logged once")
            continue
        seen[digest] = line
        rs = named if named is not None else _ruleset_of(record, log_dir, cache, allow)
        problems = [str(rs)] if isinstance(rs, InputError) else replay_record(rs, record, shape_checked=True)
        if problems:
            bad += 1
            for p in problems:
                say_problem(f"{where}:{line}", p)
    if not games and not strays:  # nothing to check is no check passed
        say_problem(where, "no game record in it (a log has one JSON object a line)")
    return games, bad, strays
