"""``ruledraft simulate``: many games with bots, and statistics about them."""

from __future__ import annotations

import json
from typing import List, Optional

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from ruledraft.agents import agent_names
from ruledraft.errors import InputError, RulesetError
from ruledraft.loading import resolve_source
from ruledraft.runner import simulate as run_simulation

from .common import allow_path_option, allowed_dirs, bots_help, get_ruleset, reported_errors, ruleset_help


def parse_bots(spec: str, players: int, *, allow: Optional[List[str]] = None) -> List[str]:
    """``greedy,random`` -> one bot name per seat; the last name fills the seats left."""
    names = [n.strip() for n in spec.split(",") if n.strip()]
    known = allow if allow is not None else agent_names()
    if not names:
        raise InputError("--bots needs at least one bot name; known: " + ", ".join(known))
    for n in names:
        if n not in known:
            from ruledraft.suggest import did_you_mean

            raise InputError(f"unknown bot '{n}'{did_you_mean(n, known)}; known: {', '.join(known)}")
    if len(names) > players:
        raise InputError(f"--bots names {len(names)} bots for {players} players")
    return names + [names[-1]] * (players - len(names))


def summary_tables(summary, ruleset) -> List[Table]:
    """Two tables: results per seat, and mean points per scoring rule per seat."""
    seats = Table(title=f"{ruleset.name}: {summary.games} games, {summary.players} players, seed {summary.seed}")
    for name, justify in (("seat", "right"), ("bot", "left"), ("win share", "right"), ("mean score", "right"),
                          ("sd", "right"), ("min", "right"), ("max", "right")):
        seats.add_column(name, justify=justify)
    for s in summary.seats:
        seats.add_row(
            str(s.seat), s.bot, f"{s.win_share:.1%}" if s.bot != "dummy" else "-",
            f"{s.mean:.2f}", f"{s.stdev:.2f}", str(s.min), str(s.max),
        )
    rules = Table(title="Mean points per scoring rule")
    rules.add_column("rule")
    for s in summary.seats:
        rules.add_column(f"{s.seat}: {s.bot}", justify="right")
    for rid in summary.rule_ids:
        rules.add_row(rid, *(f"{s.rules[rid]:.2f}" for s in summary.seats))
    return [seats, rules]


def simulate(
    ruleset: str = typer.Argument(..., help=ruleset_help(stdin=True)),
    players: int = typer.Option(4, "--players", "-p", help="Number of players."),
    games: int = typer.Option(1000, "--games", "-g", min=1, max=10_000_000, help="Number of games."),
    seed: int = typer.Option(0, "--seed", "-s", help="Seed of the whole simulation; game i uses a seed derived from it and i."),
    bots: str = typer.Option("greedy,random", "--bots", "-b", help=bots_help("Bot per seat, comma-separated; the last fills the remaining seats.")),
    jobs: int = typer.Option(1, "--jobs", "-j", min=1, max=256, help="Processes to run games on (results do not depend on it)."),
    log: Optional[str] = typer.Option(None, "--log", help="Write every game to this JSON Lines file, one record per line (the game-log schema in schemas/)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    allow_path: List[str] = allow_path_option(),
) -> None:
    """Simulate games between bots and print win shares, scores and points per rule."""
    with reported_errors():
        if ruleset == "-" and jobs > 1:
            raise InputError("simulate --jobs N cannot read the ruleset from standard input (-); give a file, or --jobs 1")
        allow = allowed_dirs(allow_path)
        rs = get_ruleset(ruleset, allow)
        source = str(resolve_source(ruleset))
        if jobs > 1 and allow and games > 1:
            try:  # what each worker process loads: the file alone, without --allow-path
                get_ruleset(source)
            except (InputError, RulesetError):
                raise InputError("the processes of --jobs N load the ruleset without --allow-path, "
                                 "and its extends: needs it; use --jobs 1") from None
        if not rs.min_players <= players <= rs.max_players:
            raise InputError(f"{rs.name} is for {rs.min_players}-{rs.max_players} players, not {players}")
        names = parse_bots(bots, players)
        log_fh = None
        if log:
            try:
                log_fh = open(log, "w", encoding="utf-8")
            except OSError as e:
                raise InputError(f"{log}: cannot write: {e.strerror}") from None

        def write(result) -> None:
            log_fh.write(json.dumps(result.record, separators=(",", ":")) + "\n")

        err = Console(stderr=True)
        try:
            with Progress(
                TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
                TimeElapsedColumn(), console=err, disable=quiet, transient=True,
            ) as progress:
                task = progress.add_task(f"{rs.id}", total=games)
                summary = run_simulation(
                    rs, players, games, seed, names, jobs=jobs, source=source, log=log_fh is not None,
                    progress=lambda n: progress.advance(task, n), on_result=write if log_fh else None,
                )
        finally:
            if log_fh:
                log_fh.close()
        if as_json:
            typer.echo(json.dumps(summary.to_json(), indent=2))
            return
        out = Console()
        for table in summary_tables(summary, rs):
            out.print(table)
        out.print(f"{summary.games} games in {summary.elapsed:.2f}s ({summary.games_per_second:,.0f} games/s, {jobs} job{'s' if jobs > 1 else ''})")
        if log:
            out.print(f"log: {log}")
