"""``ruledraft simulate``: many games with bots, and statistics about them."""

from __future__ import annotations

import json
import os
import shlex
import stat
from collections.abc import Sequence

import typer
from rich.console import Console, JustifyMethod
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ruledraft.engine.state import MAX_SEED
from ruledraft.errors import InputError, RuledraftError
from ruledraft.play.agents import BotFailure, BotSpecError, agent_names, parse_bot
from ruledraft.play.ismcts import time_budget_note
from ruledraft.play.runner import GameResult, WorkerError, available_cores
from ruledraft.play.runner import simulate as run_simulation

from .common import (
    allow_path_option,
    allowed_dirs,
    bots_help,
    checked_ruleset,
    fail,
    report_directory,
    report_option,
    reported_errors,
    ruleset_help,
    shown,
    write_html_report,
)


def parse_bots(
    spec: str, players: int, *, allow: list[str] | None = None, card_ids: Sequence[str] | None = None
) -> list[str]:
    """``greedy,random`` -> one bot spec per seat; the last fills the seats left. Each
    spec is ``NAME[:KEY=VALUE]...``, ``FILE.py:CLASS[:...]`` or ``MODULE:CLASS[:...]``
    (loaded and its options checked now; with ``card_ids``, card values too)."""
    names = [n.strip() for n in spec.split(",") if n.strip()]
    known = allow if allow is not None else agent_names()
    if not names:
        raise InputError("--bots needs at least one bot name; known: " + ", ".join(known))
    for n in names:
        if allow is None:
            try:
                parse_bot(n, card_ids)
            except BotSpecError as e:
                raise BotSpecError(shown(e)) from None
        elif n not in known:
            from ruledraft.language.suggest import did_you_mean

            raise InputError(f"unknown bot '{n}'{did_you_mean(n, known)}; known: {', '.join(known)}")
    if len(names) > players:
        raise InputError(f"--bots names {len(names)} bots for {players} players")
    return names + [names[-1]] * (players - len(names))


def summary_tables(summary, ruleset) -> list[Table]:
    """Two tables: results per seat, and mean points per scoring rule per seat."""
    seats = Table(title=f"{ruleset.name}: {summary.games} games, {summary.players} players, seed {summary.seed}")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("seat", "right"),
        ("bot", "left"),
        ("win share", "right"),
        ("mean score", "right"),
        ("sd", "right"),
        ("min", "right"),
        ("max", "right"),
    )
    for name, justify in columns:
        seats.add_column(name, justify=justify)
    for s in summary.seats:
        seats.add_row(
            str(s.seat),
            s.bot,
            f"{s.win_share:.1%}" if s.bot != "dummy" else "-",
            f"{s.mean:.2f}",
            f"{s.stdev:.2f}",
            str(s.min),
            str(s.max),
        )
    rules = Table(title="Mean points per scoring rule")
    rules.add_column("rule")
    for s in summary.seats:
        rules.add_column(f"{s.seat}: {s.bot}", justify="right")
    for rid in summary.rule_ids:
        rules.add_row(rid, *(f"{s.rules[rid]:.2f}" for s in summary.seats))
    return [seats, rules]


def load_with_inputs(name: str, allow=()):
    """The compiled ruleset, its checked document and every file read for it (the rule
    file and each parent named by ``extends:``), each file read once."""
    result = checked_ruleset(name, allow)
    return result.ruleset, result.document, list(result.files)


def parse_jobs(text: str) -> tuple[int, str | None]:
    """``--jobs``: a number of processes, or ``0``/``auto`` for every processor; more
    than there are processors is capped (with a note to say so)."""
    cores = available_cores()
    word = text.strip().lower()
    if word in ("auto", "0"):
        return cores, None
    try:
        jobs = int(word)
    except ValueError:
        jobs = -1
    if jobs < 0:
        raise InputError(
            f"--jobs takes a number of processes, or 0 or 'auto' for all {cores} processors, not {shown(text)!r}"
        )
    if jobs > cores:
        return (
            cores,
            f"note: --jobs {jobs} is more than the {cores} processor{'s' if cores > 1 else ''} here; using {cores}",
        )
    return jobs, None


class LogWriteError(RuledraftError):
    """Writing the game log failed part-way through the run."""


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _kind(mode: int) -> str:
    for test, what in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
    ):
        if test(mode):
            return what
    return "not a regular file"


class GameLog:
    """The ``--log`` target: a regular file (created or truncated) or ``/dev/null``,
    never one of the run's input files. Checked before the run without a blocking
    open; lines are written whole (a failed write is cut back to the last complete
    line and reported as :class:`LogWriteError`)."""

    FLUSH_AT = 1 << 16

    def __init__(self, path: str, inputs: Sequence[str]):
        if path == "":
            raise InputError("--log needs a file name (an empty one would log nothing)")
        self.path = path
        self.name = shown(path)
        try:
            existing = os.stat(path)
        except FileNotFoundError:
            existing = None
        except OSError as e:
            raise InputError(f"--log {self.name}: cannot write: {e.strerror}") from None
        if existing is not None:
            self._check(existing, inputs)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, 0o666)
        except OSError as e:
            raise InputError(f"--log {self.name}: cannot write: {e.strerror}") from None
        try:
            opened = os.fstat(fd)
            self._check(opened, inputs)  # the file may have changed since it was looked at
            os.set_blocking(fd, True)
            self.regular = stat.S_ISREG(opened.st_mode)
            if self.regular:
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        self.fd: int | None = fd
        self.lines: list[str] = []
        self.buffered = 0
        self.written = 0  # bytes of complete lines in the file
        self.games = 0  # games written

    def _check(self, st: os.stat_result, inputs: Sequence[str]) -> None:
        if not stat.S_ISREG(st.st_mode):
            try:
                null = os.stat(os.devnull)
            except OSError:
                null = None
            if null is not None and _same_file(st, null):
                return
            raise InputError(
                f"--log {self.name}: {_kind(st.st_mode)}; --log takes a regular file (created or replaced) or {os.devnull}"
            )
        for n, file in enumerate(inputs):
            try:
                same = _same_file(st, os.stat(file))
            except OSError:
                continue
            if same:
                what = (
                    "the rule file"
                    if n == 0
                    else f"{shown(file)}, a rule file that {'it extends' if n == 1 else 'its parents extend'}"
                )
                raise InputError(f"--log {self.name} is {what}: the log would overwrite it")

    def write_result(self, result: GameResult) -> None:
        """Record one game (``simulate``'s ``on_result``; a run asked to log builds every record)."""
        if result.record is not None:
            self.write(result.record)

    def write(self, record: dict) -> None:
        line = json.dumps(record, separators=(",", ":")) + "\n"
        self.lines.append(line)
        self.buffered += len(line)
        if self.buffered >= self.FLUSH_AT:
            self.flush()

    def flush(self) -> None:
        if not self.lines or self.fd is None:
            return
        data = "".join(self.lines).encode("utf-8")
        count = len(self.lines)
        self.lines, self.buffered = [], 0
        view = memoryview(data)
        try:
            while view:
                n = os.write(self.fd, view)
                view = view[n:]
        except OSError as e:
            if self.regular:
                try:  # no half line: back to the last complete one
                    os.ftruncate(self.fd, self.written)
                except OSError:
                    pass
            fd, self.fd = self.fd, None
            os.close(fd)
            kept = f"{self.games} game{'s' if self.games != 1 else ''}"
            raise LogWriteError(
                f"{self.name}: cannot write the game log: {e.strerror} (it keeps the first {kept} written, as complete lines)"
            ) from None
        self.written += len(data)
        self.games += count

    def close(self) -> None:
        """Write what is buffered and close (a write error is raised)."""
        try:
            self.flush()
        finally:
            if self.fd is not None:
                fd, self.fd = self.fd, None
                os.close(fd)


def simulate(
    ruleset: str = typer.Argument(..., help=ruleset_help(stdin=True)),
    players: int = typer.Option(4, "--players", "-p", help="Number of players."),
    games: int = typer.Option(1000, "--games", "-g", min=1, max=10_000_000, help="Number of games."),
    seed: int = typer.Option(
        0,
        "--seed",
        "-s",
        help=f"Seed of the whole simulation (0 to {MAX_SEED}); game i uses a seed derived from it and i.",
    ),
    bots: str = typer.Option(
        "greedy,random",
        "--bots",
        "-b",
        help=bots_help(
            "Bot per seat, comma-separated; the last fills the remaining seats. Options after colons (value:tempura=3); your own bot as FILE.py:CLASS or MODULE:CLASS (see `ruledraft bots`)."
        ),
    ),
    jobs: str = typer.Option(
        "1",
        "--jobs",
        "-j",
        help="Processes to run games on (0 or auto: one per processor; results do not depend on it).",
    ),
    log: str | None = typer.Option(
        None,
        "--log",
        help="Write every game to this JSON Lines file, one record per line (the game-log schema in schemas/): a regular file, or /dev/null.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    allow_path: list[str] = allow_path_option(),
    report: str | None = report_option(),
) -> None:
    """Simulate games between bots and print win shares, scores and points per rule.

    Ctrl-C (or SIGTERM) stops early: the games finished so far are summarised and
    logged, and the exit status is 130 (143).
    """
    with reported_errors():
        if not 0 <= seed <= MAX_SEED:
            raise InputError(f"--seed must be a whole number from 0 to {MAX_SEED}, not {seed}")
        jobs_used, note = parse_jobs(jobs)
        rs, document, inputs = load_with_inputs(ruleset, allowed_dirs(allow_path))
        if not rs.min_players <= players <= rs.max_players:
            raise InputError(f"{rs.name} is for {rs.min_players}-{rs.max_players} players, not {players}")
        names = parse_bots(bots, players, card_ids=rs.catalogue.ids)
        report_dir = report_directory(report)
        err = Console(stderr=True)
        if note:
            typer.echo(note, err=True)
        budget_note = time_budget_note(names)
        if budget_note:
            typer.echo(shown(budget_note), err=True)
        game_log = GameLog(log, inputs) if log is not None else None
        try:
            with Progress(
                TextColumn("[progress.description]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TimeElapsedColumn(),
                console=err,
                disable=quiet,
                transient=True,
            ) as progress:
                task = progress.add_task(shown(rs.id, markup=True), total=games)
                summary = run_simulation(
                    rs,
                    players,
                    games,
                    seed,
                    names,
                    jobs=jobs_used,
                    document=document,
                    log=game_log is not None,
                    progress=lambda n: progress.advance(task, n),
                    on_result=None if game_log is None else game_log.write_result,
                    cards=report_dir is not None,
                )
            if game_log:
                game_log.close()
        except WorkerError as e:
            fail(f"error: {shown(e)}", 70)
        except BotFailure as e:  # its text comes from the bot's own code
            fail(f"error: {shown(e)}", 1)
        finally:
            if game_log and game_log.fd is not None:  # leaving early: keep the complete lines
                try:
                    game_log.close()
                except LogWriteError:
                    pass
        stopped = f"interrupted after {summary.games} of {summary.requested} games" if summary.interrupted else ""
        if as_json:
            typer.echo(json.dumps(summary.to_json(), indent=2))
        else:
            out = Console()
            for table in summary_tables(summary, rs):
                out.print(table)
            out.print(
                f"{summary.games} games in {summary.elapsed:.2f}s ({summary.games_per_second:,.0f} games/s, "
                f"{jobs_used} job{'s' if jobs_used > 1 else ''})",
                highlight=False,
                soft_wrap=True,
            )
            if stopped:
                out.print(stopped, highlight=False, soft_wrap=True)
            if log:
                out.print(f"log: {shown(log)}", markup=False, highlight=False, soft_wrap=True)
        if report_dir is not None and summary.figures is not None:
            write_html_report(
                report_dir,
                err=as_json,
                title=f"{rs.name}: {summary.games} games, {players} players" + (f" ({stopped})" if stopped else ""),
                command=shlex.join(
                    [
                        "ruledraft",
                        "simulate",
                        ruleset,
                        "-p",
                        str(players),
                        "-g",
                        str(games),
                        "-s",
                        str(seed),
                        "-b",
                        bots,
                    ]
                ),
                sides=[(f"{rs.id}, {players} players", summary.figures)],
            )
        if summary.interrupted:
            typer.echo(stopped, err=True)
            raise typer.Exit(128 + summary.signal)
