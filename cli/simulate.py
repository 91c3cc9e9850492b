"""``ruledraft simulate``: many games with bots, and statistics about them."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING

import attrs
import typer

from ruledraft.lab.counterfactual import MARGINAL_SECTION, MarginalCounts
from ruledraft.lab.extra_counts import with_extras
from ruledraft.lab.figures import FEWEST_COMPARED, LabTally, formatted
from ruledraft.lab.rotation import ROTATION_SECTION, rotated_tally, rotation_figures, seatings
from ruledraft.play.agents import BotFailure, BotSpecError, time_budget_note
from ruledraft.play.cluster import ClusterError
from ruledraft.play.game_log import record_line
from ruledraft.play.log_target import open_log
from ruledraft.play.match import Match, check_seed
from ruledraft.play.runner import GameResult, WorkerError, simulate_match

from .card_worth import marginal_parts
from .common import (
    OutputRefused,
    checked_ruleset,
    console,
    counted,
    fail,
    failed_bot,
    leave_interrupted,
    plus_minus,
    print_parts,
    reported_errors,
    shown,
    stopped_words,
    write_html_report,
)
from .options import (
    allow_path_option,
    allowed_dirs,
    chosen_engine,
    cluster_option,
    cluster_wanted,
    engine_option,
    games_option,
    jobs_option,
    json_option,
    lineup_option,
    log_option,
    parse_jobs,
    players_option,
    quiet_option,
    report_directory,
    report_option,
    ruleset_argument,
    scheduler_option,
    seat_bots_help,
    seed_option,
    usual_lineup,
    usual_players,
)

if TYPE_CHECKING:  # rich is imported where it lays out text: a quiet run with --json never does
    from rich.console import JustifyMethod
    from rich.table import Table


def _pct(x: float) -> str:
    return f"{x:.1%}"


def _span(pair, fmt: str = "{:.1%}") -> str:
    """An interval as ``low-high``."""
    return f"{fmt.format(pair[0])}-{fmt.format(pair[1])}"


#: the most seats whose points per rule get a column each (beyond, only all seats together: see --json)
RULE_SEAT_COLUMNS = 4


#: under the tables: what their words mean, one line each (``--explain`` says more)
SEATS_LEGEND = "95% CI: holds the true figure in 95 of 100 such runs; ± is half its width"
TEST_LEGEND = "seats differ: chi-square test of equal wins; df: degrees of freedom; p: chance"
CARDS_LEGEND = "vs none: win rate of takers minus that of non-takers, in percentage points"
ADJUSTED_LEGEND = "adjusted: vs none within each seat and its bot, pooled (Mantel-Haenszel)"
FEW_LEGEND = "* fewer than {fewest} seat-games with the card, or without it: a few seats decide it"
EFFECT_LEGEND = "pts is 0 for effect cards ({cards}): their worth shows in win% and vs none"
#: cards that score but are never taken: an effect puts them on the tables (a card turned face down)
PLACED_LEGEND = "never taken, only placed by card effects, points a game: {cards}"
EXPLAIN_HINT = "(--explain says what each figure means)"

#: ``--explain``: one paragraph per figure
EXPLANATIONS = (
    (
        "wins",
        "The share of games the seat won. A win shared by several seats counts as a fraction for each "
        "(two tied winners get half a win each).",
    ),
    (
        "95% CI",
        "A 95% confidence interval: had the same simulation been run many times with other seeds, 95 of "
        "100 such intervals would hold the true figure. Narrow it with more games. '±' after a mean is "
        "half the interval's width.",
    ),
    (
        "mean score, sd, min, max",
        "The seat's final score over all games: its mean, its standard deviation (how far a typical game "
        "lies from the mean), and the lowest and highest scores seen.",
    ),
    (
        "seats differ (chi-square, df, p)",
        "Whether the seats win equally often. The chi-square statistic measures how far the win counts lie "
        "from equal shares; df (degrees of freedom) is the number of seats that can win, less one; p is the "
        "chance that equal seats would lie at least this far apart. Below 0.05 the seats are taken to differ. "
        "When the seats play different bots this tests the bots as much as the seats; with --rotate every "
        "deal is played once per rotation of the bots through the seats, so it tests the seats alone, and a "
        "table gives each bot's win share.",
    ),
    (
        "margin of victory, ties",
        "How many points the winner led the runner-up by (mean, median, and the range holding 90% of games), "
        "and how often the top score was tied or the win shared.",
    ),
    (
        "points per scoring rule",
        "The mean points each rule gave per seat and game ('all seats'), with its 95% interval, and the "
        "rule's share of all points scored.",
    ),
    (
        "per card: taken, turn, pts",
        "Copies of the card taken per game (all seats together), the mean turn it was taken on, and the "
        "points each copy brought: a rule's points shared among the cards it read.",
    ),
    (
        "per card: adjusted",
        "The same difference worked out within each seat (and so each seat's bot) and then pooled "
        "(Mantel-Haenszel), with its 95% interval: what the card does to a seat's chances, rather than which "
        "seat or which bot tends to take it.",
    ),
    (
        "per card: win%, vs none",
        "The win rate of seats that took at least one copy, and how many percentage points higher (or lower) "
        "it is than the win rate of seats that took none, with its 95% interval. With different bots at the "
        "seats this mostly shows which bot takes the card: for card figures, give every seat the same bot.",
    ),
)


def explanation_lines() -> list[str]:
    """The paragraphs ``simulate --explain`` prints after the tables."""
    return [f"{name}: {text}" for name, text in EXPLANATIONS]


def _bots_note(summary) -> str | None:
    bots = list(dict.fromkeys(s.bot for s in summary.seats if s.bot != "dummy"))
    if len(bots) < 2:
        return None
    return (
        "Different bots at the seats: 'vs none' mostly shows which bot takes a card.\n"
        f"For card figures give every seat one bot (--bots {shown(bots[0])})."
    )


def _effect_cards(ruleset, cards: Sequence[dict]) -> list[str]:
    """The cards in the table whose worth is an action or effect, not points of their own."""
    if ruleset is None:
        return []
    ids = ruleset.catalogue.ids
    acting = {ids[e.card] for e in getattr(ruleset, "effects", ())} | {ids[a.card] for a in ruleset.actions}
    return [c["card"] for c in cards if c["card"] in acting and not c.get("points_per_card")]


def summary_tables(summary, ruleset, *, cards: bool = False, explain: bool = False) -> list[Table | str]:
    """The tables (and plain lines) ``simulate`` prints: results per seat with 95%
    intervals, whether the seats differ, the margin of victory and ties, points per
    scoring rule, and with ``cards`` the per-card figures; under them, what their
    words mean (with ``explain``, a paragraph per figure)."""
    from rich.table import Table

    figures = summary.figures
    seats = Table(
        title=f"{shown(ruleset.name)}: {counted(summary.games, 'game')}, {counted(summary.players, 'player')}, seed {summary.seed}"
    )
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
        seats.add_column(name, justify=justify, no_wrap=name != "bot")
    for s in summary.seats:
        fig = figures["seats"][s.seat] if figures else None
        wins = s.bot != "dummy" or (fig is not None and fig["can_win"])
        mean = formatted(s.mean, ".2f")
        if fig is not None and summary.games > 1:
            half = (fig["mean_interval"][1] - fig["mean_interval"][0]) / 2
            mean = f"{formatted(s.mean, '.1f')} {plus_minus()} {half:.1f}"
        seats.add_row(
            str(s.seat),
            shown(s.bot),  # a bot's file name may hold control characters
            _pct(s.win_share) if wins else "-",
            "{:.1f}-{:.1f}%".format(*(100 * x for x in fig["win_share_interval"])) if wins and fig is not None else "-",
            mean,
            f"{s.stdev:.1f}" if summary.games > 1 else "-",  # one game has no spread to tell
            str(s.min),
            str(s.max),
        )
    out: list[Table | str] = [seats]
    if figures:
        out.append(SEATS_LEGEND.replace("\u00b1", plus_minus()))
        outcome = _outcome_lines(figures)
        if outcome and outcome[0].startswith(("seats differ", "no evidence")):
            outcome.insert(1, TEST_LEGEND)
            if _mixed_line_up(figures):
                outcome.insert(1, MIXED_SEATS)
        out.extend(outcome)
        if figures.get("rotation"):
            out.extend(rotation_parts(figures["rotation"]))
    rules = Table(title="Mean points per scoring rule, per seat")
    rules.add_column("rule")
    if figures:
        rules.add_column("all seats", justify="right")
        rules.add_column("95% CI", justify="right", no_wrap=True)
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
                " to ".join(formatted(x, ".1f") for x in r["interval"]) if summary.games > 1 else "-",
                _pct(r["share_of_points"]),
            ]
        if per_seat:
            row += [formatted(s.rules[rid], ".2f") for s in summary.seats]
        rules.add_row(*row)
    out.append(rules)
    if cards and figures and figures.get("cards"):
        out.append(card_table(figures["cards"]))
        out.append(CARDS_LEGEND)
        adjusted = adjusted_table(figures["cards"])
        if adjusted is not None:
            out.append(adjusted)
            out.append(ADJUSTED_LEGEND)
        if any(few_compared(c) for c in figures["cards"]):
            out.append(FEW_LEGEND.format(fewest=FEWEST_COMPARED))
        acting = _effect_cards(ruleset, figures["cards"])
        if acting:
            out.append(EFFECT_LEGEND.format(cards=", ".join(acting)))
        placed = [c for c in figures["cards"] if not c.get("taken_per_game") and c.get("points_per_game")]
        if placed:
            out.append(
                PLACED_LEGEND.format(cards=", ".join(f"{shown(c['card'])} {c['points_per_game']:.2f}" for c in placed))
            )
        note = _bots_note(summary)
        if note is not None:
            out.append(note)
    if figures and figures.get("marginal"):
        out.extend(marginal_parts(figures))
    if figures:
        out.extend(explanation_lines() if explain else [EXPLAIN_HINT])
    return out


def rotation_parts(rotation: dict) -> list[Table | str]:
    """What ``simulate --rotate`` adds under the seat test: how the line-up was
    rotated, and each bot's win share over the seatings with its 95% interval."""
    from rich.table import Table

    k = len(rotation["seatings"])
    if k == 1:
        return ["one bot at every seat: --rotate plays the line-up as it is"]
    lines: list[Table | str] = [
        f"the line-up rotated through the seats: {k} seatings of {rotation['games_per_seating']} deals each, "
        "the same deals in each (the seats above are measured with the bots balanced)"
    ]
    bots = Table(title="Bots: win share over the seatings")
    for name in ("bot", "seats", "wins", "per seat", "95% CI"):
        bots.add_column(name, justify="left" if name == "bot" else "right", no_wrap=name != "bot")
    for b in rotation["bots"]:
        bots.add_row(
            shown(b["bot"]),
            str(b["seats"]),
            _pct(b["win_share"]),
            _pct(b["win_rate_per_seat"]),
            _span(b["interval"]),
        )
    lines.append(bots)
    lines.append(ROTATION_LEGEND)
    return lines


#: under the bots' table of a rotated run
ROTATION_LEGEND = "wins: the bot's share of all games; per seat: that share per seat it holds, with its 95% CI"


#: under the seat test when the seats play different bots (no rotation: each seat keeps its bot)
MIXED_SEATS = "The seats play different bots: this compares the bots, not the seats."


def _mixed_line_up(figures: dict) -> bool:
    """Whether the seats that can win play different bots (so the seat test compares bots)."""
    return len({s["bot"] for s in figures["seats"] if s["can_win"]}) > 1


def _outcome_lines(figures: dict) -> list[str]:
    lines = []
    test = figures["seats_equal"]
    if sum(1 for s in figures["seats"] if s["can_win"]) >= 2 and figures["games"]:
        p = test["p_value"]
        words = "seats differ" if p < 0.05 else "no evidence seats differ"
        lines.append(f"{words}: p {_p(p)} (chi-square {test['statistic']:.1f}, {test['df']} df)")
    m, ties = figures["margin"], figures["ties"]
    q = m["quantiles"]
    if q["50"] is not None and len(figures["seats"]) >= 2:  # one player has no margin over anyone
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


def _card_columns(title: str, figures: Sequence[str]) -> Table:
    """A table of cards: the card's name on the left (wrapping), then ``figures``
    right-justified (never wrapping)."""
    from rich.table import Table

    table = Table(title=title)
    table.add_column("card", justify="left")
    for name in figures:
        table.add_column(name, justify="right", no_wrap=True)
    return table


def card_table(cards: Sequence[dict]) -> Table:
    """Per card: copies taken per game, the mean turn it is taken on, points per copy,
    the win rate of seats that took it, and how much higher (or lower) that is than of
    seats that took none, with its 95% interval."""
    table = _card_columns(
        "Per card: taken per game, mean turn, points per copy,\nwin rate of takers, and its difference from non-takers",
        ("taken", "turn", "pts", "win%", "vs none", "95% CI"),
    )
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
            formatted(c["difference"] * 100, "+.1f") + _few(c) if took and c["non_takers"]["seats"] else "-",
            " to ".join(formatted(100 * x, "+.1f") for x in c["difference_interval"])
            if took and c["non_takers"]["seats"]
            else "-",
        )
    return table


def adjusted_table(cards: Sequence[dict]) -> Table | None:
    """Per card: the takers-minus-others win rate as it is (raw), and within each seat
    and bot, pooled by Mantel-Haenszel (adjusted), with its 95% interval; None when no
    card has an adjusted figure."""
    rows = [c for c in cards if c.get("adjusted") is not None]
    if not rows:
        return None
    table = _card_columns("Per card: vs none, and within each seat and bot", ("vs none", "adjusted", "95% CI"))
    for c in rows:
        adj = c["adjusted"]
        table.add_row(
            c["card"],
            formatted(c["difference"] * 100, "+.1f") + _few(c) if c["difference"] is not None else "-",
            formatted(adj["difference"] * 100, "+.1f") + _few(c),
            " to ".join(formatted(100 * x, "+.1f") for x in adj["interval"]),
        )
    return table


def few_compared(card: dict) -> bool:
    """Whether a card's takers or the seats without it are fewer than
    :data:`~ruledraft.lab.figures.FEWEST_COMPARED` seat-games (sweep leaves such a card
    unranked, tune untuned)."""
    return 0 < min(card["takers"]["seats"], card["non_takers"]["seats"]) < FEWEST_COMPARED


def _few(card: dict) -> str:
    return "*" if few_compared(card) else ""


def load_with_inputs(name: str, allow=()):
    """The compiled ruleset, its checked document and every file read for it (the rule
    file and each parent named by ``extends:``), each file read once."""
    result = checked_ruleset(name, allow)
    return result.ruleset, result.document, list(result.files)


class LogWriteError(OutputRefused):
    """Writing the game log failed part-way through the run (the file opened, a write
    refused: no room, or a file such as ``/proc/self/status`` that takes no such
    writes): status 74, as every output that could not be written."""


class GameLog:
    """The ``--log`` target: a regular file (created or truncated) or ``/dev/null``,
    never one of the run's input files. Checked before the run without a blocking
    open; lines are written whole (a failed write is cut back to the last complete
    line and reported as :class:`LogWriteError`)."""

    FLUSH_AT = 1 << 16

    def __init__(self, path: str, inputs: Sequence[str]):
        self.path = path
        self.name = shown(path)
        fd, self.regular = open_log(path, inputs)
        self.fd: int | None = fd
        self.lines: list[str] = []
        self.buffered = 0
        self.written = 0  # bytes of complete lines in the file
        self.games = 0  # games written

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
    ruleset: str = ruleset_argument(stdin=True),
    players: int | None = players_option(),
    games: int = games_option("Number of games."),
    seed: int = seed_option("Seed of the whole simulation", "; game i uses a seed derived from it and i"),
    bots: str | None = lineup_option(seat_bots_help()),
    jobs: str = jobs_option("Processes to run games on", "; results do not depend on it"),
    log: str | None = log_option(
        "Write every game to this JSON Lines file, one record per line (the game-log schema in schemas/): a regular file, or /dev/null."
    ),
    scheduler: str | None = scheduler_option(),
    cluster: str | None = cluster_option(),
    as_json: bool = json_option("the summary"),
    cards: bool = typer.Option(
        True,
        "--cards/--no-cards",
        help="Count and show the per-card figures: taken, turn, points, win rates (--no-cards: leave them out).",
    ),
    explain: bool = typer.Option(False, "--explain", help="After the tables, a paragraph on what each figure means."),
    marginal: bool = typer.Option(
        False,
        "--marginal",
        help="Also value every card as a counterfactual: the points its seat loses without that copy (costs time).",
    ),
    quiet: bool = quiet_option(),
    allow_path: list[str] = allow_path_option(),
    report: str | None = report_option(),
    isolate: bool = typer.Option(
        False,
        "--isolate",
        help="Run each bot from a file, a module or a package in a process of its own, sent only its seat's view (for a bot contest).",
    ),
    rotate: bool = typer.Option(
        False,
        "--rotate",
        help="Play every deal once per rotation of the bots through the seats (--games deals each), "
        "so the seats are measured with the bots balanced; adds each bot's win share, and the "
        "adjusted card effect is taken within each seat and bot.",
    ),
    engine: str = engine_option(),
) -> None:
    """Simulate games between bots and print win shares, scores and points per rule.

    Ctrl-C (or SIGTERM, or the terminal closing) stops early: the games
    finished so far are summarised and logged, and the exit status is 130 (143,
    129).
    """
    with reported_errors():
        check_seed(seed, "--seed")
        where = cluster_wanted(scheduler, cluster, jobs)
        jobs_used, note = parse_jobs(jobs) if where is None else (1, None)
        rs, document, inputs = load_with_inputs(ruleset, allowed_dirs(allow_path))
        players = usual_players(rs, players)
        bots = usual_lineup(bots, players)
        match = checked_match(rs, players, bots, seed, document)
        report_dir = report_directory(report)
        notes(note, match.bots)
        engine = chosen_engine(rs, players, match.bots, engine, games, match.game, quiet=quiet)
        game_log = GameLog(log, inputs) if log is not None else None
        on = RunsOn(jobs_used, where, scheduler, isolate)
        collector = with_extras(MarginalCounts.for_game) if marginal else LabTally.for_game
        per_card = cards or report_dir is not None
        run = run_rotated if rotate else run_logged
        summary = run(match, games, on, game_log, cards=per_card, quiet=quiet, collector=collector, engine=engine)
        seated = len(seatings(match.bots, True)) if rotate else 1
        stopped = stopped_words(summary.games, summary.requested, games, seated) if summary.interrupted else ""
        if as_json:
            typer.echo(json.dumps(summary.to_json(), indent=2))
        else:
            print_summary(summary, rs, cards=cards, ran_on=on.name, stopped=stopped, log=log, explain=explain)
        if report_dir is not None and summary.games == 0:  # stopped at once: no figures to show
            typer.echo("report: none written, no game finished", err=as_json)
        elif report_dir is not None and summary.figures is not None:
            command = (
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
                + (["--marginal"] if marginal else [])
                + (["--rotate"] if rotate else [])
            )
            write_html_report(
                report_dir,
                err=as_json,
                title=f"{shown(rs.name)}: {counted(summary.games, 'game')}, {counted(players, 'player')}"
                + (f" ({stopped})" if stopped else ""),
                command=shlex.join(command),
                sides=[(f"{rs.id}, {counted(players, 'player')}", summary.figures)],
                extra=([MARGINAL_SECTION] if marginal else [])
                + ([(*ROTATION_SECTION[:2], summary.figures["rotation"], ROTATION_SECTION[3])] if rotate else []),
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
    #: each bot from outside in a process of its own (``--isolate``)
    isolate: bool = False

    @property
    def name(self) -> str:
        if self.where is None:
            return f"{self.jobs} job{'s' if self.jobs > 1 else ''}"
        return self.where[0]


@contextlib.contextmanager
def progress_bar(description: str, total: int, quiet: bool) -> Iterator[Callable[[int], None]]:
    """A progress bar on standard error (none with ``quiet``, or when standard error is
    not a terminal): yields what advances it by a number of games."""
    err = None if quiet else console(stderr=True)
    if err is None or not err.is_terminal:  # elsewhere a bar would only leave a blank line
        yield lambda n: None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("[progress.description]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
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
        failed_bot(e)


#: what the seats of a rotated run show as their bot (each seat had every bot in turn)
ROTATED = "rotated"


def run_rotated(
    match: Match,
    games: int,
    on: RunsOn,
    game_log: GameLog | None,
    *,
    cards: bool,
    quiet: bool,
    collector=None,
    engine: str = "reference",
):
    """Play the match's ``games`` deals once per rotation of its line-up through the
    seats (:func:`~ruledraft.lab.rotation.seatings`), the same game seeds in each, and
    summarise them together: the seats with the bots balanced, the card strata of seat
    and bot, and under ``figures["rotation"]`` each bot's win share. The log holds the
    seatings' games one seating after the other. An interrupted seating ends the run."""
    runs = []
    last = None
    elapsed = 0.0
    lineups = seatings(match.bots, True)
    for k, bots_here in enumerate(lineups):
        last = run_logged(
            attrs.evolve(match, bots=bots_here),
            games,
            on,
            game_log,
            cards=cards,
            quiet=quiet,
            collector=collector,
            engine=engine,
            close_log=k == len(lineups) - 1,
            label=seating_label(match.ruleset.id, k, len(lineups)),
        )
        elapsed += last.elapsed
        runs.append((bots_here, last.tally))
        if last.interrupted:
            break
    assert last is not None
    if game_log is not None and game_log.fd is not None:  # stopped before the last seating
        game_log.close()
    rotation = rotation_figures(runs, games)
    merged = rotated_tally(runs)
    summary = merged.summary(
        match.ruleset.id,
        match.players,
        match.seed,
        [ROTATED] * match.players if len(lineups) > 1 else list(match.bots),  # one bot: nothing was rotated
        elapsed,
        requested=games * len(lineups),
        signum=last.signal,
    )
    assert summary.figures is not None
    summary.figures["rotation"] = rotation
    return attrs.evolve(summary, bots=tuple(match.bots))


def run_logged(
    match: Match,
    games: int,
    on: RunsOn,
    game_log: GameLog | None,
    *,
    cards: bool,
    quiet: bool,
    collector=None,
    engine: str = "reference",
    close_log: bool = True,
    label: str | None = None,
):
    """Play the match's games where ``on`` says (on ``engine``), with a progress bar
    (``label``: its words, by default the ruleset's id), writing the log; its summary
    (``collector``: the lab's tally by default). A failure
    ends the command (:func:`run_errors`); the log keeps its complete lines whatever
    happens (and stays open for more games without ``close_log``, unless the run fails)."""
    lines = None if game_log is None else game_log.write_lines
    done = False
    try:
        with run_errors(), progress_bar(label or match.ruleset.id, games, quiet) as advance:
            if on.where is None:
                summary = simulate_match(
                    match,
                    games,
                    jobs=on.jobs,
                    progress=advance,
                    on_lines=lines,
                    cards=cards,
                    collector=collector or LabTally.for_game,
                    isolate=on.isolate,
                    engine=engine,
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
                        collector=collector or LabTally.for_game,
                        backend=backend,
                        isolate=on.isolate,
                        engine=engine,
                    )
            if game_log:
                if close_log:
                    game_log.close()
                else:
                    game_log.flush()
            done = True
    finally:
        if game_log and game_log.fd is not None and not done:  # leaving early: keep the complete lines
            try:
                game_log.close()
            except LogWriteError:
                pass
    return summary


def seating_label(ruleset_id: str, k: int, seatings: int) -> str:
    """A progress bar's words for seating ``k`` (from 0) of a rotated run: the id alone for one seating."""
    return f"{ruleset_id}, seating {k + 1} of {seatings}" if seatings > 1 else ruleset_id


def rate_text(per_second: float) -> str:
    """Games a second in words: whole from 10 up, two figures below (a slow run's 0.22 is not 0)."""
    return f"{per_second:,.0f}" if per_second >= 10 else f"{per_second:.2g}"


def print_summary(
    summary, rs, *, cards: bool, ran_on: str, stopped: str, log: str | None, explain: bool = False
) -> None:
    """The summary's tables and lines on standard output (``explain``: a paragraph per
    figure); with no game finished (a run stopped at once), its one line alone."""
    out = console()
    print_parts(summary_tables(summary, rs, cards=cards, explain=explain) if summary.games else (), out)
    out.print(
        f"{counted(summary.games, 'game')} in {summary.elapsed:.2f}s ({rate_text(summary.games_per_second)} games/s, {ran_on})",
        highlight=False,
        soft_wrap=True,
    )
    if stopped:
        out.print(stopped, highlight=False, soft_wrap=True)
    if log:
        out.print(f"log: {shown(log)}", markup=False, highlight=False, soft_wrap=True)
