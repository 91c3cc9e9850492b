"""``ruledraft sweep``: one ruleset's key figures for several player counts."""

from __future__ import annotations

import json
import shlex

import typer

from ruledraft.lab.figures import formatted
from ruledraft.lab.sweep import FEWEST_SEATS, few_seats, key_figures, player_counts, sweep_on_cluster
from ruledraft.lab.sweep import sweep as run_sweep
from ruledraft.play.match import check_seed

from .common import checked_ruleset, counted, fail, leave_interrupted, reported_errors, shown, write_html_report
from .compare import GLUE, fit, heading, p_text
from .options import (
    SEAT_BOTS_AS_SIMULATE,
    allow_path_option,
    allowed_dirs,
    chosen_engines,
    cluster_option,
    cluster_wanted,
    engine_option,
    games_option,
    jobs_option,
    json_option,
    lineup_option,
    parse_bots,
    parse_jobs,
    players_option,
    quiet_option,
    report_directory,
    report_option,
    ruleset_argument,
    scheduler_option,
    seed_option,
    usual_lineup,
)
from .simulate import notes, progress_bar, run_errors

LABEL = 20
COLUMN = 15  # the narrowest column: "100.0 [57,100]" and a space


def _blocks(counts: list[dict]) -> list[tuple[str, list[tuple[str, list[str]]]]]:
    """(title, [(row label, one cell per count)]) for every block of the table."""
    keys = [key_figures(c["figures"], c["players"]) for c in counts]
    alone = [c["players"] < 2 for c in counts]  # one player has no margin over anyone
    most = max(c["players"] for c in counts)

    def per_seat(field: str, cell) -> list[tuple[str, list[str]]]:
        return [(f"seat {s}", [cell(*k[field][s]) if s < len(k[field]) else "-" for k in keys]) for s in range(most)]

    rules = list(dict.fromkeys(r for k in keys for r in k["rules"]))
    return [
        (
            "win share % [95% interval]",
            per_seat(
                "win_share",
                lambda w, lo, hi: f"{w * 100:.1f} [{formatted(lo * 100, '.0f')},{formatted(hi * 100, '.0f')}]",
            )
            + [("seats equal: p", [p_text(k["seats_equal_p"]) for k in keys])],
        ),
        ("mean score (sd)", per_seat("score", lambda m, sd: f"{formatted(m, '.1f')} ({sd:.1f})")),
        (
            "margin of victory",
            [
                ("mean", ["-" if a else formatted(k["margin_mean"], ".2f") for k, a in zip(keys, alone)]),
                ("median", ["-" if a else str(k["margin_median"]) for k, a in zip(keys, alone)]),
                ("top score tied %", ["-" if a else f"{k['top_tied'] * 100:.1f}" for k, a in zip(keys, alone)]),
            ],
        ),
        (
            "mean points per seat, by rule",
            [
                (fit(shown(r), LABEL - 2), [formatted(k["rules"][r], ".2f") if r in k["rules"] else "-" for k in keys])
                for r in rules
            ],
        ),
    ]


def sweep_text(result: dict) -> list[str]:
    """The terminal form of a sweep: one block per figure, a column per player count
    (in pages of as many counts as fit 80 columns)."""
    counts = result["counts"]
    lines = heading(
        f"{shown(result['ruleset'])}: {counted(result['games'], 'game')} per player count, bots {shown(result['bots'])}, "
        f"seed{GLUE}{result['seed']}"
    )
    lines.append("Every count plays from this seed; the counts' games are independent.")
    lines += [
        f"{counted(c['players'], 'player')}: only {c['games']} of {result['games']} games (interrupted)"
        for c in counts
        if c.get("games", result["games"]) != result["games"]
    ]
    # every cell with two spaces before it at least ("100.0 [91,100]", a large score's "-1234.5 (678.9)")
    column = max([COLUMN] + [len(cell) + 2 for _, rows in _blocks(counts) for _, cells in rows for cell in cells])
    per_page = max(1, (80 - LABEL) // column)
    for start in range(0, len(counts), per_page):
        page = counts[start : start + per_page]
        lines += ["", " " * LABEL + "".join(f"{counted(c['players'], 'player'):>{column}}" for c in page)]
        for title, rows in _blocks(page):
            lines.append(title)
            for label, cells in rows:
                lines.append(f"  {label:<{LABEL - 2}}" + "".join(f"{cell:>{column}}" for cell in cells))
    lines.append("top cards: takers' win rate - the others', within each seat and bot (% points)")
    for c in counts:
        top = ", ".join(
            f"{shown(card)} {formatted(d * 100, '+.0f')}"
            for card, d in key_figures(c["figures"], c["players"])["top_cards"]
        )
        lines.append(f"  {counted(c['players'], 'player'):<{LABEL - 2}}" + fit(top or "-", 80 - LABEL))
    if any(few_seats(c["figures"]) for c in counts):
        lines.append(f"  (not ranked: cards with fewer than {FEWEST_SEATS} seat-games of takers or of others)")
    return lines


def sweep(
    ruleset: str = ruleset_argument(),
    players: str = players_option(..., "Player counts: a range (2-5) or a list (3,5)."),
    bots: str | None = lineup_option(SEAT_BOTS_AS_SIMULATE),
    games: int = games_option("Games per player count.", fewest=2),
    seed: int = seed_option("Seed of every count's games"),
    jobs: str = jobs_option(),
    scheduler: str | None = scheduler_option(),
    cluster: str | None = cluster_option(),
    as_json: bool = json_option("every count's figures"),
    quiet: bool = quiet_option(),
    report: str | None = report_option(),
    allow_path: list[str] = allow_path_option(),
    engine: str = engine_option(),
) -> None:
    """Play a ruleset at several player counts and show the key figures side by side.

    Per count: win share per seat with intervals and the test that seats are
    equal, mean score and spread, margin of victory, points per rule and the
    cards whose takers win most. Ctrl-C (or SIGTERM, or the terminal closing)
    stops early: the counts finished and the one cut short are shown, and the
    exit status is 130 (143, 129).
    """
    with reported_errors():
        check_seed(seed, "--seed")
        where = cluster_wanted(scheduler, cluster, jobs)
        jobs_used, note = parse_jobs(jobs) if where is None else (1, None)
        checked = checked_ruleset(ruleset, allowed_dirs(allow_path))
        rs = checked.ruleset
        counts = player_counts(players, rs.min_players, rs.max_players, shown(rs.name))
        lineups = {n: parse_bots(usual_lineup(bots, n), n, card_ids=rs.catalogue.ids) for n in counts}
        bots = usual_lineup(bots, counts[-1])
        report_dir = report_directory(report)
        notes(note, lineups[counts[-1]])
        runs = {f"{n} players": (rs, n, lineups[n], None) for n in counts}
        chosen = chosen_engines(runs, engine, games, quiet)
        engines = {n: chosen[f"{n} players"] for n in counts}
        with run_errors(), progress_bar(rs.id, games * len(counts), quiet) as advance:
            if where is None:
                result, signum = run_sweep(
                    rs,
                    counts,
                    games,
                    seed,
                    lineups.__getitem__,
                    bots,
                    jobs=jobs_used,
                    progress=advance,
                    engine=lambda n, _names: engines[n],
                )
            else:
                result, signum = sweep_on_cluster(
                    rs,
                    checked.document,
                    counts,
                    games,
                    seed,
                    lineups.__getitem__,
                    bots,
                    scheduler=scheduler,
                    local_workers=where[1],
                    progress=advance,
                    engine=lambda n, _names: engines[n],
                )
        stopped = ""
        if signum:
            cut = result["interrupted_at"]
            done = [c["players"] for c in result["counts"] if c["players"] != cut]
            at_cut = next((c["games"] for c in result["counts"] if c["players"] == cut), 0)
            finished = f" (finished: {', '.join(map(str, done))} players)" if done else ""
            if cut is None:  # the stop came as the last count's last game ended
                stopped = "interrupted as the last count finished" + finished
            else:
                stopped = f"interrupted after {at_cut} of {games} games at {cut} players" + finished
            if not result["counts"]:
                fail(stopped, 128 + signum)
        if as_json:
            typer.echo(json.dumps(result, indent=2))
        else:
            for line in sweep_text(result):
                typer.echo(line)
            if stopped:
                typer.echo(stopped)
        if report_dir is not None:
            write_html_report(
                report_dir,
                err=as_json,
                title=f"{rs.name}: {games} games at each of {len(counts)} player counts"
                + (f" ({stopped})" if stopped else ""),
                command=shlex.join(
                    ["ruledraft", "sweep", ruleset, "-p", players, "-g", str(games), "-s", str(seed), "-b", bots]
                ),
                sides=[(counted(c["players"], "player"), c["figures"]) for c in result["counts"]],
                sweep=result,
            )
        if stopped:
            leave_interrupted(stopped, signum, said=not as_json)
