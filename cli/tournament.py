"""``ruledraft tournament``: several bots in every line-up, seats rotated on the same deals."""

from __future__ import annotations

import json
import shlex
import textwrap

import typer

from ruledraft.errors import InputError
from ruledraft.lab.tournament import RATING, lineups, run_tournament, seatings
from ruledraft.play.engines import ready_searches
from ruledraft.play.match import check_seed

from .common import checked_ruleset, counted, fail, leave_interrupted, reported_errors, shown, write_html_report
from .options import (
    allow_path_option,
    allowed_dirs,
    bots_help,
    bounded_option,
    cluster_option,
    cluster_wanted,
    compiling_status,
    jobs_option,
    json_option,
    parse_jobs,
    players_option,
    quiet_option,
    report_directory,
    report_option,
    ruleset_argument,
    scheduler_option,
    seed_option,
    usual_players,
)
from .simulate import notes, progress_bar, run_errors


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


#: the width the summary is laid out for (as when piped: COLUMNS=80)
WIDTH = 80
#: the bot column; a longer name takes a line of its own above its figures
BOT = 16


def _wrapped(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)


def tournament_text(result: dict) -> list[str]:
    """The terminal form: the ranking, then each line-up's win shares (at most 80 columns
    but for a single word longer than that)."""
    count = len(result["lineups"])
    deals = counted(result["deals"], "deal")
    if result["interrupted"]:  # the deals played, not those asked for
        deals = f"{counted(result['deals_played'], 'deal')} (of {result['deals']:,})"
    lines = _wrapped(
        f"{shown(result['ruleset'])}, {counted(result['players'], 'player')}, seed {result['seed']}: "
        f"{count} line-up{'' if count == 1 else 's'}, seats rotated on the same {deals}, "
        f"{counted(result['games'], 'game')}; a fair share is {result['fair_share']:.0%}"
    )
    lines += [
        "",
        f"{'bot':<{BOT}} {'win share':>9}  {'95% interval':<13} {'rating':>6} {'+-':>4} {'ordinal':>7}"
        f" {'ms/dec':>7} {'p95':>6}",
    ]
    for row in result["ranking"]:
        low, high = row["win_share_interval"] or (None, None)
        r = row["rating"] or {}
        interval = "-" if low is None else f"{low:.1%}-{high:.1%}"
        mu = "-" if not r else f"{r['mu']:.1f}"
        sigma = "-" if not r else f"{r['sigma']:.1f}"
        ordinal = "-" if not r else f"{r['ordinal']:.1f}"
        name = shown(row["bot"])
        if len(name) > BOT:
            lines.append(name)
            name = ""
        lines.append(
            f"{name:<{BOT}} {_pct(row['win_share']):>9}  {interval:<13} {mu:>6} {sigma:>4} {ordinal:>7}"
            f" {_ms(row['decision_ms_median']):>7} {_ms(row['decision_ms_p95']):>6}"
        )
    lines += ["", "line-up (win share of each bot's seats)"]
    for lu in result["lineups"]:
        parts = [
            f"{shown(b)} x{v['seats']} {_pct(v['win_share'])}"
            if v["seats"] > 1
            else f"{shown(b)} {_pct(v['win_share'])}"
            for b, v in lu["by_bot"].items()
        ]
        lines += _wrapped(f"  {', '.join(parts)}   ({counted(lu['games'], 'game')})", "    ")
    lines.append("")
    lines += _wrapped(
        f"rating: {RATING}, from each game's order of finish (places, not wins alone: it can rank a bot "
        "above one that wins more); +-: its sigma; ranked by ordinal (mu - 3 sigma). Intervals: Wilson, 95%. "
        "ms/dec: CPU milliseconds per decision, median; p95: its 95th percentile."
    )
    return lines


def tournament(
    ruleset: str = ruleset_argument(),
    bots: str = typer.Option(
        ...,
        "--bots",
        "-b",
        help=bots_help("The bots, comma-separated (at least two); options after colons (value:tempura=3)."),
    ),
    players: int | None = players_option(),
    games: int = bounded_option(
        200, "--games", "-g", low=1, high=1_000_000, help="Games per line-up (shared among its seatings)."
    ),
    seed: int = seed_option("Seed of the deals"),
    jobs: str = jobs_option(),
    scheduler: str | None = scheduler_option(),
    cluster: str | None = cluster_option(),
    as_json: bool = json_option("the ranking and every line-up"),
    quiet: bool = quiet_option(),
    report: str | None = report_option(),
    allow_path: list[str] = allow_path_option(),
) -> None:
    """Play a tournament: every line-up of the bots, seats rotated on the same deals.

    Every multiset of PLAYERS bots holding at least two different ones is a
    line-up; each is played turned round the table one seat at a time, every
    seating on the same deals. Prints each bot's win share (95% Wilson interval),
    its OpenSkill rating and its time per decision (median and 95th percentile),
    then each line-up's shares. --jobs and a cluster give the same figures but the
    times. Ctrl-C (or SIGTERM, or the terminal closing) stops early: the games
    finished are counted (exit status 130, 143, 129).
    """
    with reported_errors():
        names = [b.strip() for b in bots.split(",")]
        if "" in names:
            raise InputError("--bots has an empty entry: name a bot between each pair of commas")
        if len(dict.fromkeys(names)) < 2:
            raise InputError("--bots needs at least two different bots for a tournament")
        check_seed(seed, "--seed")
        where = cluster_wanted(scheduler, cluster, jobs)
        jobs_used, note = parse_jobs(jobs) if where is None else (1, None)
        checked = checked_ruleset(ruleset, allowed_dirs(allow_path))
        rs = checked.ruleset
        players = usual_players(rs, players)
        if not rs.min_players <= players <= rs.max_players:
            raise InputError(f"{shown(rs.name)} is for {rs.player_range}, not {players}")
        report_dir = report_directory(report)
        notes(note, names)
        plan = lineups(names, players)
        # a seat's ismcts:kernel=yes compiles its roll-out now, not inside a decision whose time is reported
        ready_searches(rs, players, names, compiling_status(rs, quiet))
        total = sum(len(seatings(lu)) for lu in plan) * -(-games // players)
        with run_errors(), progress_bar(f"{rs.id} tournament", total, quiet) as advance:
            if where is None:
                result = run_tournament(
                    rs, names, players, games, seed, jobs=jobs_used, document=checked.document, progress=advance
                )
            else:
                from ruledraft.play import cluster as dask_cluster

                with dask_cluster.backend(scheduler, where[1]) as on:
                    result = run_tournament(
                        rs, names, players, games, seed, document=checked.document, backend=on, progress=advance
                    )
        stopped = f"interrupted after {result['games']} of {result['requested']} games" if result["interrupted"] else ""
        if stopped and result["games"] and not result["balanced"]:
            stopped += " (a seating cut short: its line-up's seats do not balance)"
        if stopped and not result["games"]:
            fail(stopped, 128 + result["signal"])
        shared = {k: v for k, v in result.items() if k not in ("seconds", "signal")}  # --json's, and the report's
        if as_json:
            typer.echo(json.dumps(shared, indent=2))
        else:
            for line in tournament_text(result):
                typer.echo(line)
            if not stopped and any(lu["games"] != games for lu in result["lineups"]):  # said, not left to find
                typer.echo(
                    f"--games {games} a line-up, rounded up: each seating plays the same {counted(result['deals'], 'deal')}"
                )
            if stopped:
                typer.echo(stopped)
        if report_dir is not None:
            command = ["ruledraft", "tournament", ruleset, "-b", bots, "-p", str(players), "-g", str(games)]
            command += ["-s", str(seed)]
            write_html_report(
                report_dir,
                err=as_json,
                title=f"{rs.name}: tournament of {', '.join(names)} ({counted(result['games'], 'game')})",
                command=shlex.join(command),
                sides=[],
                tournament=shared,
            )
        if stopped:
            leave_interrupted(stopped, result["signal"], said=not as_json)
