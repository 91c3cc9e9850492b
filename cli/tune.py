"""``ruledraft tune``: search a rule file's tune marks for a target, and write the tuned file beside it."""

from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import sys
import textwrap
from typing import Any

import typer

from ruledraft.errors import InputError
from ruledraft.lab.figures import FEWEST_COMPARED, formatted
from ruledraft.lab.tune import SEARCHES, TARGET_FORMS, Try, parse_target, result_json, tuned_path, write_tuned
from ruledraft.lab.tune import tune as run_tune
from ruledraft.language.inheritance import parent_elsewhere
from ruledraft.play.match import check_seed

from .common import (
    NO_ROOM,
    OutputRefused,
    checked_ruleset,
    counted,
    fail,
    leave_interrupted,
    reported_errors,
    shown,
    write_html_report,
)
from .options import (
    allow_path_option,
    allowed_dirs,
    bots_option,
    bounded_option,
    engine_option,
    games_option,
    jobs_option,
    json_option,
    parse_jobs,
    players_option,
    quiet_option,
    report_directory,
    report_option,
    seat_bots_help,
    seed_option,
    usual_players,
)
from .simulate import checked_match, notes, progress_bar, run_errors


def _form(f) -> str:
    """How a figure's numbers are written: a card's effect with its sign, a share or a score without."""
    return "+.1f" if f.target.startswith("cards") else ".1f"


def _values(t: Try, names) -> str:
    return ", ".join(str(t.values[n]) for n in names)


#: the width of a try's values before what it measured: wider values (many marks) take a
#: line of their own, what it measured the next, under the same column
VALUES = 12


def _try_lines(t: Try, names) -> list[str]:
    """A try's line: its values, then whether it meets the target and its farthest figure
    (two lines where the values are wider than their column)."""
    head, values = f"  try {t.number:>3}: ", _values(t, names)
    if t.invalid:
        rest = f"invalid: {shown(t.invalid)}"
    elif (unmeasured := next((f for f in t.figures if f.unmeasured), None)) is not None:
        rest = f"{'unmeasured':<21} {shown(unmeasured.item)}: {unmeasured.unmeasured}"
    else:
        state = "met, intervals inside" if t.inside else "met" if t.met else f"off by {t.miss:.1f}"
        rest = f"{state:<21}"
        if t.figures:  # the figure furthest from the target (or whose interval reaches furthest out)
            f = max(t.figures, key=lambda f: (f.miss, f.spread))
            lo, hi, form = *f.interval, _form(f)
            rest += f" {shown(f.item)} {formatted(f.value, form)} [{formatted(lo, form)}, {formatted(hi, form)}]"
    if len(values) > VALUES:
        return [f"{head}{values}".rstrip(), f"{' ' * (len(head) + VALUES + 1)}{rest}".rstrip()]
    return [f"{head}{values:<{VALUES}} {rest}".rstrip()]


def _figure_lines(t: Try) -> list[str]:
    out = []
    for f in t.figures:
        if f.unmeasured:
            out.append(f"  {shown(f.item):<16} {f.unmeasured}")
            continue
        lo, hi, form = *f.interval, _form(f)
        where = "inside" if f.spread == 0 else "met" if f.miss == 0 else "outside"
        out.append(
            f"  {shown(f.item):<16} {formatted(f.value, form):>7}  [{formatted(lo, form)}, {formatted(hi, form)}]"
            f"  band [{formatted(f.band[0], form)}, {formatted(f.band[1], form)}]  {where}"
        )
    return out


#: ``--engine``'s help for tune, whose every try is a ruleset of its own (a kernel compiled for it alone)
TUNE_ENGINE_HELP = (
    "Which engine plays each try's games (auto, kernel or reference); the figures are the same. Each try's values "
    "make a kernel of their own: kernel compiles one for every try (about 10-25 s each, worth it for long tries); "
    "auto compiles one only for a try that would take longer than that on the interpreter, which plays the rest."
)


def _check_engine(engine: str, rs, players: int, lineup, games: int) -> None:
    """``--engine`` checked on the start values before any try is played: ``kernel``
    refused where the kernel cannot play the rule file or the bots; with ``auto``, why it
    plays on the interpreter said on standard error (tries of 1,000 games or more)."""
    from ruledraft.play.engines import NOTE_GAMES, check_engine, kernel_refusal, refuse_unplayable

    check_engine(engine)
    if engine == "kernel":
        refuse_unplayable([("", rs, players, lineup)])
    elif engine == "auto" and games >= NOTE_GAMES:
        reason = kernel_refusal(rs, players, lineup)
        if reason is not None:
            typer.echo(shown(f"engine: reference ({reason})"), err=True)


def tune(
    rule_file: str = typer.Argument(..., help="A rule file with tune marks ({tune: [LOW, HIGH]} in place of numbers)."),
    target: list[str] = typer.Option(
        ...,
        "--target",
        "-t",
        help=f"What to reach ({TARGET_FORMS}): every card's win effect (takers minus non-takers, adjusted for seat and bot) within ±K "
        "percentage points (or those cards'), every seat's win share within ±K points of an equal share, or a "
        "seat's mean score within MEAN±K. Repeat to add targets.",
    ),
    players: int | None = players_option(),
    bots: str = bots_option("greedy", seat_bots_help()),
    games: int = games_option("Games per try (every try plays the same seeds).", fewest=2),
    budget: int = bounded_option(30, "--budget", low=1, high=10_000, help="The most tries (sets of values) to play."),
    seed: int = seed_option("Seed of every try's games (and of the search)"),
    search: str = typer.Option(
        SEARCHES[0],
        "--search",
        help="tpe: Optuna's TPE sampler (the tune extra); pattern: a coordinate pattern search, "
        "quick for one or two numbers.",
    ),
    jobs: str = jobs_option(),
    output: str | None = typer.Option(
        None,
        "--output",
        "-o",
        metavar="FILE",
        help="Where to write the tuned rule file (a new file); by default NAME.tuned.yaml beside the rule file.",
        show_default=False,
    ),
    as_json: bool = json_option("the search (every try and its figures)"),
    quiet: bool = quiet_option(),
    report: str | None = report_option(),
    allow_path: list[str] = allow_path_option(),
    engine: str = engine_option(help=TUNE_ENGINE_HELP),
) -> None:
    """Search the numbers a rule file marks as tunable for a target, and write the tuned file.

    Each try plays the same games (one seed) with other values; a search over
    the whole numbers keeps the values that come nearest the target (with
    several figures, by the root of the sum of their squared misses). It stops
    when a try meets the target with every 95% interval inside it, when
    --budget tries are played, or when the search has nothing new to try. The
    best values are printed with their figures and written into a copy of the
    rule file (NAME.tuned.yaml: comments kept; nothing is overwritten), unless
    they miss the target and this run cannot tell them from the start values:
    then nothing is written, exit 1. Ctrl-C keeps the best so far, writes it, and
    exits 130.
    """
    with reported_errors():
        check_seed(seed, "--seed")
        if rule_file == "-" or _is_pipe(rule_file):
            raise InputError(
                f"tune needs a rule file, not {'standard input' if rule_file == '-' else 'a pipe'}:"
                " every try reads the file again with its values, and the best are written beside it"
            )
        jobs_used, note = parse_jobs(jobs)
        allow = allowed_dirs(allow_path)
        checked = checked_ruleset(rule_file, allow)
        rs = checked.ruleset
        players = usual_players(rs, players)
        marks = checked.marks
        if marks is None or not marks:
            raise InputError(f"{shown(rule_file)} has no tune marks: {_marks_elsewhere(checked)}")
        targets = [parse_target(t, rs.catalogue.ids) for t in target]
        if search not in SEARCHES:
            raise InputError(f"--search takes {' or '.join(SEARCHES)}, not {shown(search)!r}")
        if search == "tpe":
            try:
                import optuna  # noqa: F401
            except ImportError:
                raise InputError(
                    "--search tpe needs optuna, which is not installed: pip install 'ruledraft[tune]' "
                    "(or use --search pattern)"
                ) from None
        # the players, bots and seed checked on the start values, before any try is played
        lineup = checked_match(rs, players, bots, seed, checked.document).bots
        _check_engine(engine, rs, players, lineup, games)
        if output == "":
            raise InputError("--output needs a file name (leave it out to write the tuned file beside the rule file)")
        if output is not None and os.path.lexists(output):
            raise InputError(f"--output {shown(output)} exists already: tune writes only new files")
        destination = output if output is not None else tuned_path(os.fspath(checked.file))
        _check_writable(destination, "--output" if output is not None else "the tuned file")
        if output is not None:
            _check_parent_reached(checked.file, output, allow)
        report_dir = report_directory(report)
        notes(note, lineup)
        names = marks.names
        width = shutil.get_terminal_size((80, 24)).columns

        def say(line: str) -> None:
            for part in _wrapped(line, width):
                _echo_beside_the_bar(part)

        if not as_json:
            say(
                f"{shown(rs.name)}: tuning {counted(len(names), 'number')}, {counted(players, 'player')}, "
                f"bots {shown(bots if len(set(lineup)) == 1 else ','.join(lineup))}"
            )
            say(f"{counted(games, 'game')} per try, seed {seed}, at most {counted(budget, 'try', 'tries')}")
            for t in targets:
                say(f"target {shown(t.text)}: {shown(t.describe(players))}")
                if t.kind == "seats" and len(set(lineup)) > 1:
                    say(
                        "warning: the seats play different bots, so their win shares compare the bots as much as "
                        "the seats: no value may bring them together; give every seat one bot for a seats target"
                    )
            say("values: " + ", ".join(f"{shown(m.name)} [{m.low}, {m.high}]" for m in marks.marks))

        def said(t: Try) -> None:
            if not as_json:
                for line in _try_lines(t, names):
                    say(line)

        # what the search plays, said the same to it and in its JSON
        settings: dict[str, Any] = {
            "players": players,
            "bots": lineup,
            "games": games,
            "seed": seed,
            "budget": budget,
            "search": search,
        }
        with run_errors(), progress_bar(rs.id, games * _tries_at_most(marks, budget), quiet) as advance:
            result = run_tune(
                rule_file,
                marks,
                targets,
                allow=allow,
                jobs=jobs_used,
                progress=advance,
                on_try=said,
                engine=engine,
                **settings,
            )
        best, start = result.best, result.start
        if result.signum and not result.tries:  # stopped before a try ended: nothing to judge
            if as_json:  # a document all the same, as any stopped run gives: no tries, nothing written
                history = result_json(
                    result, ruleset=rs.id, file=checked.file, targets=targets, written=None, **settings
                )
                typer.echo(json.dumps(history, indent=2))
            fail(result.stopped, 128 + result.signum)
        if best is None or best.invalid is not None:
            fail(f"no try gave a playable ruleset ({result.stopped})", 128 + result.signum if result.signum else 1)
            return
        unmeasured = next((f for f in best.figures if f.unmeasured), None)
        if unmeasured is not None:  # every try: the best is no better than the start
            if as_json:  # the tries, each unmeasured, and nothing written
                history = result_json(
                    result, ruleset=rs.id, file=checked.file, targets=targets, written=None, **settings
                )
                typer.echo(json.dumps(history, indent=2))
            fail(
                f"no try could be measured against the target ({result.stopped}): {shown(unmeasured.item)}: "
                f"{unmeasured.unmeasured}; nothing written",
                128 + result.signum if result.signum else 1,
            )
            return
        # values that miss the target and that this run cannot tell from the start's (or that
        # are the start's) are no reason to change the rule file
        at_start = start is not None and best.values == start.values
        unchanged = not best.met and start is not None and (at_start or result.indistinct)
        if not unchanged:
            _write(marks, best.values, destination)
        history = result_json(
            result,
            ruleset=rs.id,
            file=checked.file,
            targets=targets,
            written=None if unchanged else destination,
            **settings,
        )
        if as_json:
            typer.echo(json.dumps(history, indent=2))
        else:
            say(f"stopped: {result.stopped} ({len(result.tries)} of {counted(budget, 'try', 'tries')})")
            say("best values:")
            for m in marks.marks:
                was = "" if best.values[m.name] == m.start else f" (was {m.start})"
                say(f"  {shown(m.name)} = {best.values[m.name]}{was}")
            verdict = (
                "meets the target, every interval inside"
                if best.inside
                else "meets the target (some intervals reach outside: play more games per try)"
                if best.met
                else f"misses the target by {best.miss:.1f}"
            )
            say(f"figures of try {best.number}, which {verdict}:")
            for line in _figure_lines(best):
                say(line)
            if result.indistinct and start is not None:
                say(
                    f"note: this run cannot tell these values from the start's: each figure of try {best.number} and "
                    f"of try {start.number} (the start) lies inside the other's 95% interval; play more games per try "
                    "(--games) before changing the rule file"
                )
            thin = [f for f in best.figures if f.thin]
            if len(thin) == 1:
                (figure,) = thin
                name = shown(figure.item)
                whose = name + ("'" if name.endswith("s") else "'s")  # chopsticks', tempura's
                say(
                    f"warning: {whose} figure compares only "
                    f"{counted(figure.compared or 0, 'seat-game')} with the card or "
                    f"without it (fewer than {FEWEST_COMPARED}): one or two seats decide it, and values tuned to "
                    "it follow the noise; play more games per try, or leave the card out of the target"
                )
            elif thin:  # one warning for them all, not a paragraph a card
                listed = ", ".join(f"{shown(f.item)} ({f.compared or 0})" for f in thin)
                say(
                    f"warning: the figures of {listed} compare fewer than {FEWEST_COMPARED} seat-games with the card "
                    "or without it: one or two seats decide each, and values tuned to them follow the noise; play "
                    "more games per try, or leave those cards out of the target"
                )
            if not unchanged:
                typer.echo(f"wrote {shown(destination)}")  # a path is copied whole: never broken across lines
        if report_dir is not None:
            sides = [(f"start values (try {start.number})", start.run)] if start is not None and start.run else []
            if best.run and (start is None or best.number != start.number):
                sides.append((f"tuned values (try {best.number})", best.run))
            command = ["ruledraft", "tune", rule_file, "-p", str(players), "-b", bots, "-g", str(games)]
            command += ["-s", str(seed), "--budget", str(budget), "--search", search]
            for t in targets:
                command += ["-t", t.text]
            write_html_report(
                report_dir,
                err=as_json,
                title=f"{rs.name}: tuned {', '.join(f'{n} = {best.values[n]}' for n in names)} ({result.stopped})",
                command=shlex.join(command),
                sides=sides,
            )
            path = os.path.join(os.fspath(report_dir), "search.json")
            try:
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(history, f, indent=2)
            except OSError as e:
                raise OSError(e.errno, e.strerror, path) from None
        if result.signum:
            leave_interrupted(result.stopped, result.signum, said=not as_json)
        if unchanged and at_start:
            fail("nothing written: no try came nearer the target than the start values", 1)
        if unchanged:
            fail(f"nothing written: try {best.number} misses the target and cannot be told from the start values", 1)


def _wrapped(line: str, width: int) -> list[str]:
    """``line`` broken between words to fit ``width`` columns, the lines after the first
    indented four more than it."""
    indent = " " * (len(line) - len(line.lstrip(" ")))
    return textwrap.wrap(
        line,
        max(width, 40),
        subsequent_indent=indent + "    ",
        break_on_hyphens=False,
        drop_whitespace=True,
    ) or [line]


def _echo_beside_the_bar(line: str) -> None:
    """A line on standard output that, while the progress bar is drawn on the same
    terminal, is printed above the bar rather than after it on the bar's own line."""
    from rich.file_proxy import FileProxy

    if isinstance(sys.stdout, FileProxy) and sys.__stdout__ is not None and sys.__stdout__.isatty():
        sys.stdout.write(line + "\n")  # the bar's console prints it above the bar (the same terminal)
        sys.stdout.flush()
    else:  # no bar, or standard output is not the terminal the bar is on
        # (named, not click's default: that one writes UTF-8 where the encoding is ASCII,
        # past the nearest-ASCII handler the command's streams have)
        typer.echo(line, file=sys.stdout)


def _tries_at_most(marks, budget: int) -> int:
    """The most tries the search can play: the budget, or every set of values when there are fewer."""
    return min(budget, math.prod(m.size for m in marks.marks))


def _marks_elsewhere(checked) -> str:
    """What to do about a rule file without tune marks: tune its parent's, if a parent has some."""
    parents = [m for m in (checked.all_marks or ())[1:] if m]
    if parents:
        return (
            f"the tune marks are in {shown(parents[0].file)}, which it extends "
            "(a parent's marks are read as their starts; tune that file)"
        )
    return "write a number as {tune: [LOW, HIGH]} to tune it"


def _check_parent_reached(source: Any, output: str, allow: Any) -> None:
    """Refuse, before any try is played, a tuned file whose ``extends:`` would name no
    parent, or another one, from the folder it is written in."""
    folder = os.path.dirname(os.path.abspath(output))
    name = parent_elsewhere(source, folder, allow)
    if name is not None:
        raise InputError(
            f"--output {shown(output)}: the rule file extends {shown(name)!r}, which is found from its own folder, "
            f"not from {shown(folder)}: leave out --output to write the tuned file beside it"
        )


def _check_writable(path: str, what: str) -> None:
    """Refuse, before any try is played, a tuned file that could not be written."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{what} {shown(path)}: no directory {shown(folder)} to write it in")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise InputError(f"{what} {shown(path)}: the directory {shown(folder)} cannot be written to")


def _write(marks, values, destination: str) -> None:
    """The tuned file written; a full disk ends as every command's does, any other write
    refused (the file made: ``write_tuned`` says why it could not be) in a message, both
    status 74."""
    try:
        write_tuned(marks, values, destination)
    except OSError as e:
        if e.errno in NO_ROOM:
            raise
        raise OutputRefused(f"cannot write {shown(destination)}: {e.strerror or e}") from None


def _is_pipe(source: str) -> bool:
    """Whether ``source`` names a pipe already open (``/dev/stdin``, ``<(...)``'s
    ``/dev/fd/N``): read once, with no folder of its own to write the tuned file in."""
    from ruledraft.language.file_access import UnreadableInput, input_kind

    try:
        return input_kind(source) == "pipe"
    except UnreadableInput:  # said where the file is read
        return False
