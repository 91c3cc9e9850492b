"""``ruledraft quality``: how a ruleset plays -- skill gap, seat advantage, decisiveness,
lead changes, score spread, the last round, and what each card's pick depends on."""

from __future__ import annotations

import json
import shlex

import attrs
import typer
from rich.table import Table

from ruledraft.lab.compare import lineup
from ruledraft.lab.extra_counts import with_extras
from ruledraft.lab.figures import formatted
from ruledraft.lab.quality import (
    EXPLANATIONS,
    QUALITY_SECTION,
    QualityCounts,
    advantage_points,
    gap_points,
    quality_figures,
    seatings,
)

from .common import (
    console,
    counted,
    fail,
    leave_interrupted,
    print_parts,
    reported_errors,
    shown,
    stopped_words,
    write_html_report,
)
from .options import (
    allow_path_option,
    allowed_dirs,
    games_option,
    jobs_option,
    json_option,
    lineup_option,
    parse_jobs,
    players_option,
    quiet_option,
    report_directory,
    report_option,
    ruleset_argument,
    seat_bots_help,
    seed_option,
    usual_lineup,
    usual_players,
)
from .simulate import RunsOn, checked_match, load_with_inputs, notes, run_logged, seating_label


def _pct(x: float | None) -> str:
    return "-" if x is None else formatted(100 * x, ".1f") + "%"


def _ci(pair, scale: float = 100, unit: str = "%", digits: int = 1) -> str:
    if not pair:
        return "-"
    return " to ".join(formatted(scale * x, f".{digits}f") for x in pair) + unit


def quality(
    ruleset: str = ruleset_argument(stdin=True),
    players: int | None = players_option(),
    games: int = games_option("Games per seating (with rotation, every deal is played once per seating)."),
    seed: int = seed_option("Seed of the games", "; every seating plays the same deals"),
    bots: str | None = lineup_option(seat_bots_help()),
    rotate: bool | None = typer.Option(
        None,
        "--rotate/--no-rotate",
        help="Play the line-up rotated through the seats, each deal once per seating "
        "(the default when the seats have different bots).",
        show_default=False,
    ),
    jobs: str = jobs_option("Processes to run games on", "; results do not depend on it"),
    as_json: bool = json_option("the measures"),
    quiet: bool = quiet_option(),
    allow_path: list[str] = allow_path_option(),
    report: str | None = report_option(),
) -> None:
    """Measure how a ruleset plays: skill gap, seat advantage, decisiveness and more.

    The measures: skill gap, seat advantage, decisiveness, lead changes, score
    spread, how often the last round decides, and what each card's pick depends
    on. Ctrl-C (or SIGTERM, or the terminal closing) stops early: the games
    finished so far are measured, and the exit status is 130 (143, 129).
    """
    with reported_errors():
        jobs_used, note = parse_jobs(jobs)
        rs, document, _inputs = load_with_inputs(ruleset, allowed_dirs(allow_path))
        players = usual_players(rs, players)
        bots = usual_lineup(bots, players)
        match = checked_match(rs, players, bots, seed, document)
        report_dir = report_directory(report)
        notes(note, match.bots)
        mixed = len(set(match.bots)) > 1
        lineups = seatings(match.bots, mixed if rotate is None else rotate)
        on = RunsOn(jobs_used, None, None)
        runs = []
        interrupted = None
        for k, bots_here in enumerate(lineups):
            m = attrs.evolve(match, bots=bots_here)
            summary = run_logged(  # the lab's per-card figures only for the report's sections
                m,
                games,
                on,
                None,
                cards=report_dir is not None,
                quiet=quiet,
                collector=with_extras(QualityCounts.for_game),
                label=seating_label(rs.id, k, len(lineups)),
            )
            runs.append((bots_here, summary.figures))
            if summary.interrupted:
                interrupted = summary
                break
        out = {
            "ruleset": rs.id,
            "players": players,
            "seed": seed,
            "bots": list(match.bots),
            "games_per_seating": games,
            **quality_figures(runs, players, rs.catalogue.ids),
        }
        stopped = ""
        if interrupted is not None:
            stopped = stopped_words(out["games"], games * len(lineups), games, len(lineups))
            out["interrupted"] = True
            if not out["games"]:  # nothing to measure: its one line, as compare, sweep and tournament say it
                fail(stopped, 128 + interrupted.signal)
        if as_json:
            typer.echo(json.dumps(out, indent=2))
        else:
            print_quality(out, rs.name, stopped)
        if report_dir is not None:
            command = ["ruledraft", "quality", ruleset, "-p", str(players), "-g", str(games), "-s", str(seed)]
            command += ["-b", bots] + ([] if rotate is None else ["--rotate" if rotate else "--no-rotate"])
            write_html_report(
                report_dir,
                err=as_json,
                title=f"{shown(rs.name)}: game quality, {counted(out['games'], 'game')}, {counted(players, 'player')}"
                + (f" ({stopped})" if stopped else ""),
                command=shlex.join(command),
                sides=[(f"seating {k + 1}: {lineup(b)}", figures) for k, (b, figures) in enumerate(runs)],
                extra=[(*QUALITY_SECTION[:2], out, QUALITY_SECTION[3])],
            )
        if interrupted is not None:
            leave_interrupted(stopped, interrupted.signal, said=not as_json)


def quality_parts(q: dict, name: str) -> list[Table | str]:
    """The tables and lines ``quality`` prints (``q``: the measures' JSON)."""
    out: list[Table | str] = []
    k = len(q["seatings"])
    out.append(
        f"{name}: {counted(q['games'], 'game')}, {counted(q['players'], 'player')}, seed {q['seed']}"
    )  # wider than the table
    seats = Table(title="Seats: win share")
    for col in ("seat", "wins", "95% CI"):
        seats.add_column(col, justify="right", no_wrap=True)
    for s in q["seats"]:
        seats.add_row(str(s["seat"]), _pct(s["win_share"]), _ci(s["interval"]))
    out.append(seats)
    if k > 1:
        out.append(f"the line-up rotated through the seats: {k} seatings, the same deals in each")
    adv = q["seat_advantage"]
    p = adv["p_value"]
    ranked = (
        f"seat {adv['best_seat']} best, seat {adv['worst_seat']} worst"
        if adv["difference"]
        else "every seat wins as often"
    )
    # lines short at any width: a line wrapped inside a figure reads as two
    out.append(f"seat advantage: {formatted(advantage_points(q), '.1f')} percentage points ({ranked})")
    out.append(
        f"seat advantage 95% CI: {_ci(adv['interval'], unit='')} percentage points; "
        f"chi-square p {'< 0.001' if p < 0.001 else f'= {p:.3f}'}"
    )
    if not adv["bots_balanced"]:
        out.append("the seats have different bots: the seat advantage compares the bots too")
    skill = q["skill"]
    if skill["gap"] is not None:
        bots = Table(title="Bots: win share of the seats each holds")
        for col in ("bot", "seats", "wins", "per seat", "95% CI"):
            bots.add_column(col, justify="left" if col == "bot" else "right", no_wrap=col != "bot")
        for b in skill["bots"]:
            bots.add_row(
                shown(b["bot"]),
                str(b["seats"]),
                _pct(b["win_share"]),
                _pct(b["win_rate_per_seat"]),
                _ci(b["interval"]),
            )
        out.append(bots)
        gap = skill["gap"]
        which = f"{gap['strongest']} over {gap['weakest']}" if gap["difference"] else "the bots are level"
        out.append(f"skill gap: {formatted(gap_points(q), '.1f')} percentage points per seat ({which})")
        # a line of its own, short at any width: a line wrapped inside an interval reads as two figures
        out.append(f"skill gap 95% CI: {_ci(gap['interval'], unit='')} percentage points")
    else:
        out.append("skill gap: - (one bot at every seat; name several with --bots, e.g. greedy,random)")
    games = Table(title="Per game")
    for col in ("measure", "mean", "95% CI", "median", "5-95%"):
        games.add_column(col, justify="left" if col == "measure" else "right", no_wrap=True)
    d = q["decisiveness"]
    spread = q["games"] > 1  # the intervals of means over games: one game has no spread to tell
    games.add_row("decisiveness", _pct(d["mean_share"]), _ci(d["interval"]) if spread else "-", "", "")
    for label, key in (("lead changes", "lead_changes"), ("score spread", "score_spread")):
        f = q[key]
        qs = f["quantiles"]
        games.add_row(
            label,
            formatted(f["mean"], ".2f") if f["mean"] is not None else "-",
            _ci(f["interval"], 1, "", 2) if spread else "-",
            "-" if qs["50"] is None else str(qs["50"]),
            "-" if qs["5"] is None else f"{qs['5']} to {qs['95']}",
        )
    last = q["last_round_decides"]
    games.add_row("last round decides", _pct(last["rate"]), _ci(last["interval"]), "", "")
    out.append(games)
    if d["mean_turn"] is not None:
        out.append(
            f"the winner leads for good from turn {formatted(d['mean_turn'], '.1f')} of "
            f"{formatted(q['turns'], '.1f')} on average (games with one winner: {d['games']})"
        )
    picks = Table(
        title="Picks from a hand with a choice: share, lift over a blind pick,\nand the card the lift depends on most"
    )
    for col in ("card", "offered", "picked", "lift", "depends on", "with", "without"):
        named = col in ("card", "depends on")  # a long id folds onto a second line, never cut short
        picks.add_column(
            col, justify="left" if named else "right", no_wrap=not named, overflow="fold" if named else "ellipsis"
        )
    for c in q["picks"]:
        dep = c["depends_on"]
        picks.add_row(
            c["card"],
            str(c["offered"]),
            _pct(c["pick_share"]),
            formatted(c["lift"], ".2f") if c["lift"] is not None else "-",
            dep["card"] if dep else "-",
            formatted(dep["with"], ".2f") if dep else "-",
            formatted(dep["without"], ".2f") if dep else "-",
        )
    out.append(picks)
    out += [f"{key.replace('_', ' ')}: {text}" for key, text in EXPLANATIONS.items()]
    return out


def print_quality(q: dict, name: str, stopped: str) -> None:
    """The measures' tables and lines on standard output."""
    out = console()
    print_parts(quality_parts(q, shown(name)), out)
    if stopped:
        out.print(stopped, highlight=False, soft_wrap=True)
