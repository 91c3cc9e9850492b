"""``ruledraft simulate``: many games with bots, and statistics about them."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import stat
from collections.abc import Callable, Iterator, Sequence

import attrs
import typer
from rich.console import Console, JustifyMethod
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ruledraft.engine.state import MAX_SEED
from ruledraft.errors import InputError, RuledraftError
from ruledraft.lab.figures import LabTally, formatted
from ruledraft.play.agents import BotFailure, BotSpecError
from ruledraft.play.cluster import ClusterError
from ruledraft.play.game_log import record_line
from ruledraft.play.ismcts import time_budget_note
from ruledraft.play.match import Match, check_seed, fill_seats
from ruledraft.play.runner import GameResult, WorkerError, available_cores, simulate_match

from .common import (
    allow_path_option,
    allowed_dirs,
    bots_help,
    checked_ruleset,
    cluster_option,
    cluster_wanted,
    fail,
    leave_interrupted,
    report_directory,
    report_option,
    reported_errors,
    ruleset_help,
    scheduler_option,
    shown,
    write_html_report,
)


def parse_bots(spec: str, players: int, *, card_ids: Sequence[str] | None = None) -> list[str]:
    """``greedy,random`` -> one bot spec per seat; the last fills the seats left. Each
    spec is ``NAME[:KEY=VALUE]...``, ``FILE.py:CLASS[:...]`` or ``MODULE:CLASS[:...]``
    (loaded and its options checked now; with ``card_ids``, card values too). The
    seats are filled by :func:`~ruledraft.play.runner.fill_seats`, as ``ruledraft.simulate`` fills them."""
    try:
        return fill_seats(spec, players, card_ids, option="--bots")
    except BotSpecError as e:
        raise BotSpecError(shown(e)) from None


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _span(pair, fmt: str = "{:.1%}") -> str:
    """An interval as ``low-high``."""
    return f"{fmt.format(pair[0])}-{fmt.format(pair[1])}"


#: the most seats whose points per rule get a column each (beyond, only all seats together: see --json)
RULE_SEAT_COLUMNS = 4


def summary_tables(summary, ruleset, *, cards: bool = False) -> list[Table | str]:
    """The tables (and plain lines) ``simulate`` prints: results per seat with 95%
    intervals, whether the seats differ, the margin of victory and ties, points per
    scoring rule, and with ``cards`` the per-card figures."""
    figures = summary.figures
    seats = Table(title=f"{ruleset.name}: {summary.games} games, {summary.players} players, seed {summary.seed}")
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("seat", "right"),
        ("bot", "left"),
        ("wins", "right"),
        ("95% CI", "right"),
        ("mean score", "right"),
        ("sd", "right"),
        ("min", "right"),
        ("max", "right"),
    )
    for name, justify in columns:
        seats.add_column(name, justify=justify)
    for s in summary.seats:
        fig = figures["seats"][s.seat] if figures else None
        wins = s.bot != "dummy" or (fig is not None and fig["can_win"])
        mean = formatted(s.mean, ".2f")
        if fig is not None and summary.games > 1:
            mean = f"{formatted(s.mean, '.1f')} ± {(fig['mean_interval'][1] - fig['mean_interval'][0]) / 2:.1f}"
        seats.add_row(
            str(s.seat),
            s.bot,
            _pct(s.win_share) if wins else "-",
            "{:.1f}-{:.1f}%".format(*(100 * x for x in fig["win_share_interval"])) if wins and fig is not None else "-",
            mean,
            f"{s.stdev:.1f}",
            str(s.min),
            str(s.max),
        )
    out: list[Table | str] = [seats]
    if figures:
        out.extend(_outcome_lines(figures))
    rules = Table(title="Mean points per scoring rule, per seat")
    rules.add_column("rule")
    if figures:
        rules.add_column("all seats", justify="right")
        rules.add_column("95% CI", justify="right")
        rules.add_column("share", justify="right")
    per_seat = not figures or len(summary.seats) <= RULE_SEAT_COLUMNS
    if per_seat:
        for s in summary.seats:
            rules.add_column(f"{s.seat}: {s.bot}" if not figures else str(s.seat), justify="right")
    for n, rid in enumerate(summary.rule_ids):
        row = [rid]
        if figures:
            r = figures["rules"][n]
            row += [
                formatted(r["mean"], ".2f"),
                " to ".join(formatted(x, ".1f") for x in r["interval"]),
                _pct(r["share_of_points"]),
            ]
        if per_seat:
            row += [formatted(s.rules[rid], ".2f") for s in summary.seats]
        rules.add_row(*row)
    out.append(rules)
    if cards and figures and figures.get("cards"):
        out.append(card_table(figures["cards"]))
    return out


def _outcome_lines(figures: dict) -> list[str]:
    lines = []
    test = figures["seats_equal"]
    if sum(1 for s in figures["seats"] if s["can_win"]) >= 2 and figures["games"]:
        p = test["p_value"]
        words = "seats differ" if p < 0.05 else "no evidence seats differ"
        lines.append(f"{words}: p {_p(p)} (chi-square {test['statistic']:.1f}, {test['df']} df)")
    m, ties = figures["margin"], figures["ties"]
    q = m["quantiles"]
    if q["50"] is not None:
        lines.append(
            f"margin of victory: mean {formatted(m['mean'], '.1f')}, median {q['50']}, 5-95% {q['5']} to {q['95']}"
        )
        lines.append(
            f"top score tied in {_pct(ties['top_score_tied'])} of games, win shared in {_pct(ties['shared_win'])}"
            + (f", no winner in {_pct(ties['no_winner'])}" if ties["no_winner"] else "")
        )
    return lines


def _p(p: float) -> str:
    if p < 0.001:
        return "< 0.001"
    return f"= {p:.3f}" if p < 0.01 else f"= {p:.2f}"


def card_table(cards: Sequence[dict]) -> Table:
    """Per card: copies taken per game, the mean turn it is taken on, points per copy,
    the win rate of seats that took it, and how much higher (or lower) that is than of
    seats that took none, with its 95% interval."""
    table = Table(
        title="Per card: taken per game, mean turn, points per copy,\n"
        "win rate of takers, and its difference from non-takers"
    )
    columns: tuple[tuple[str, JustifyMethod], ...] = (
        ("card", "left"),
        ("taken", "right"),
        ("turn", "right"),
        ("pts", "right"),
        ("win%", "right"),
        ("vs none", "right"),
        ("95% CI", "right"),
    )
    for name, justify in columns:
        table.add_column(name, justify=justify)
    for c in cards:
        turn = c["mean_turn"]
        per = c["points_per_card"]
        took = c["takers"]["seats"]
        table.add_row(
            c["card"],
            f"{c['taken_per_game']:.2f}",
            f"{turn:.1f}" if turn is not None else "-",
            formatted(per, ".2f") if per is not None else "-",
            _pct(c["takers"]["win_rate"]) if took else "-",
            formatted(c["difference"] * 100, "+.1f") if took and c["non_takers"]["seats"] else "-",
            " to ".join(formatted(100 * x, "+.1f") for x in c["difference_interval"])
            if took and c["non_takers"]["seats"]
            else "-",
        )
    return table


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
        self.write_lines(record_line(record))

    def write_lines(self, text: str) -> None:
        """Record games already written as the log's lines (one text, whole lines)."""
        if not text:
            return
        self.lines.append(text)
        self.buffered += len(text)
        if self.buffered >= self.FLUSH_AT:
            self.flush()

    def flush(self) -> None:
        if not self.lines or self.fd is None:
            return
        text = "".join(self.lines)
        data = text.encode("utf-8")
        count = text.count("\n")
        self.lines, self.buffered = [], 0
        view = memoryview(data)
        done = 0  # bytes of this flush in the file
        try:
            while done < len(data):
                done += os.write(self.fd, view[done:])
        except OSError as e:
            whole = data.rfind(b"\n", 0, done) + 1  # the complete lines that did get in
            if self.regular:
                try:  # no half line: back to the last complete one
                    os.ftruncate(self.fd, self.written + whole)
                except OSError:
                    whole = 0
            if not self.regular or whole:
                self.games += data.count(b"\n", 0, whole)
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
    scheduler: str | None = scheduler_option(),
    cluster: str | None = cluster_option(),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    cards: bool = typer.Option(
        True,
        "--cards/--no-cards",
        help="Count and show the per-card figures: taken, turn, points, win rates (--no-cards: leave them out).",
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    allow_path: list[str] = allow_path_option(),
    report: str | None = report_option(),
) -> None:
    """Simulate games between bots and print win shares, scores and points per rule.

    Ctrl-C (or SIGTERM) stops early: the games finished so far are summarised and
    logged, and the exit status is 130 (143).
    """
    with reported_errors():
        check_seed(seed, "--seed")
        where = cluster_wanted(scheduler, cluster, jobs)
        jobs_used, note = parse_jobs(jobs) if where is None else (1, None)
        rs, document, inputs = load_with_inputs(ruleset, allowed_dirs(allow_path))
        match = checked_match(rs, players, bots, seed, document)
        report_dir = report_directory(report)
        notes(note, match.bots)
        game_log = GameLog(log, inputs) if log is not None else None
        on = RunsOn(jobs_used, where, scheduler)
        summary = run_logged(match, games, on, game_log, cards=cards or report_dir is not None, quiet=quiet)
        stopped = f"interrupted after {summary.games} of {summary.requested} games" if summary.interrupted else ""
        if as_json:
            typer.echo(json.dumps(summary.to_json(), indent=2))
        else:
            print_summary(summary, rs, cards=cards, ran_on=on.name, stopped=stopped, log=log)
        if report_dir is not None and summary.figures is not None:
            command = [
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
            write_html_report(
                report_dir,
                err=as_json,
                title=f"{rs.name}: {summary.games} games, {players} players" + (f" ({stopped})" if stopped else ""),
                command=shlex.join(command),
                sides=[(f"{rs.id}, {players} players", summary.figures)],
            )
        if summary.interrupted:
            leave_interrupted(stopped, summary.signal, said=not as_json)


def checked_match(rs, players: int, bots: str, seed: int, document, ruleset_name: str | None = None) -> Match:
    """The match the options make, checked once (:meth:`~ruledraft.play.match.Match.build`),
    its messages naming the options; ``ruleset_name``: how they name the ruleset."""
    try:
        return Match.build(rs, players, bots, seed, document=document, names=("--seed", "--bots", ruleset_name))
    except BotSpecError as e:
        raise BotSpecError(shown(e)) from None


def notes(jobs_note: str | None, bots: Sequence[str]) -> None:
    """The notes said before a run: jobs capped to the processors, bots' time budgets."""
    if jobs_note:
        typer.echo(jobs_note, err=True)
    budget_note = time_budget_note(list(bots))
    if budget_note:
        typer.echo(shown(budget_note), err=True)


@attrs.frozen
class RunsOn:
    """Where the games run: ``jobs`` local processes, or the cluster ``where`` names
    (:func:`~ruledraft.cli.common.cluster_wanted`: its name and local workers) at ``scheduler``."""

    jobs: int
    where: tuple[str, int | None] | None
    scheduler: str | None

    @property
    def name(self) -> str:
        if self.where is None:
            return f"{self.jobs} job{'s' if self.jobs > 1 else ''}"
        return self.where[0]


@contextlib.contextmanager
def progress_bar(description: str, total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on standard error (none with ``quiet``, or when standard error is
    not a terminal): yields what advances it by a number of games."""
    err = Console(stderr=True)
    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=quiet or not err.is_terminal,  # elsewhere it would only leave a blank line
        transient=True,
    ) as progress:
        task = progress.add_task(shown(description, markup=True), total=total)
        yield lambda n: progress.advance(task, n)


@contextlib.contextmanager
def run_errors() -> Iterator[None]:
    """A failure of the run as one line: the cluster (exit 1), a worker (70), a bot (1)."""
    try:
        yield
    except ClusterError as e:
        fail(f"error: {shown(e)}", 1)
    except WorkerError as e:
        fail(f"error: {shown(e)}", 70)
    except BotFailure as e:  # its text comes from the bot's own code
        fail(f"error: {shown(e)}", 1)


def run_logged(match: Match, games: int, on: RunsOn, game_log: GameLog | None, *, cards: bool, quiet: bool):
    """Play the match's games where ``on`` says, with a progress bar, writing the log;
    its summary. A failure ends the command (:func:`run_errors`); the log keeps its
    complete lines whatever happens."""
    lines = None if game_log is None else game_log.write_lines
    try:
        with run_errors(), progress_bar(match.ruleset.id, games, quiet) as advance:
            if on.where is None:
                summary = simulate_match(
                    match,
                    games,
                    jobs=on.jobs,
                    progress=advance,
                    on_lines=lines,
                    cards=cards,
                    collector=LabTally.for_game,
                )
            else:
                from ruledraft.play import cluster

                with cluster.backend(on.scheduler, on.where[1]) as backend:
                    summary = simulate_match(
                        match,
                        games,
                        progress=advance,
                        on_lines=lines,
                        cards=cards,
                        collector=LabTally.for_game,
                        backend=backend,
                    )
            if game_log:
                game_log.close()
    finally:
        if game_log and game_log.fd is not None:  # leaving early: keep the complete lines
            try:
                game_log.close()
            except LogWriteError:
                pass
    return summary


def print_summary(summary, rs, *, cards: bool, ran_on: str, stopped: str, log: str | None) -> None:
    """The summary's tables and lines on standard output."""
    out = Console()
    for part in summary_tables(summary, rs, cards=cards):
        if isinstance(part, str):
            out.print(part, markup=False, highlight=False)
        else:
            out.print(part)
    out.print(
        f"{summary.games} games in {summary.elapsed:.2f}s ({summary.games_per_second:,.0f} games/s, {ran_on})",
        highlight=False,
        soft_wrap=True,
    )
    if stopped:
        out.print(stopped, highlight=False, soft_wrap=True)
    if log:
        out.print(f"log: {shown(log)}", markup=False, highlight=False, soft_wrap=True)
