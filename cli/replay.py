"""``ruledraft replay``: play logged games again and check every pick and score."""

from __future__ import annotations

import os

import typer

from ruledraft.bundled import bundled_ids
from ruledraft.errors import InputError, RulesetError
from ruledraft.game_log import read_records, record_problems, replay_record
from ruledraft.loading import load_ruleset

from .common import reported_errors, shown


def replay(
    log: str = typer.Argument(..., help="A JSON Lines game log written by `simulate --log` or `play --log`."),
    ruleset: str = typer.Option(None, "--ruleset", "-r", help="Ruleset to check against (default: the id in each record)."),
) -> None:
    """Replay logged games and check every pick and score.

    Each record is first checked against schemas/game-log.schema.json and its
    ruleset (every problem is reported with the line and the place in the
    record), then the game is played again under its ruleset; any illegal pick or
    score that does not match is reported. Exits 1 on any bad record or mismatch.
    A line may be at most 8 MiB long.
    """
    with reported_errors():
        cache = {}
        games = bad = 0
        for line, record in read_records(log):
            games += 1
            problems = record_problems(record)
            if problems:
                bad += 1
                for p in problems:
                    typer.echo(shown(f"{log}:{line}: {p}"), err=True)
                continue
            name = ruleset
            if name is None and isinstance(record, dict):
                # a bundled id first; a record's own file only for rulesets that are not bundled
                name = record.get("ruleset")
                if name not in bundled_ids() and isinstance(record.get("ruleset_file"), str) and os.path.isfile(record["ruleset_file"]):
                    name = record["ruleset_file"]
            if not isinstance(name, str):
                typer.echo(f"{log}:{line}: no ruleset named in the record", err=True)
                bad += 1
                continue
            if name not in cache:
                try:
                    cache[name] = load_ruleset(name)
                except (InputError, RulesetError) as e:
                    cache[name] = e
            if isinstance(cache[name], Exception):
                problems = [f"cannot load ruleset {name!r}: {cache[name]}"]
            else:
                problems = replay_record(cache[name], record, shape_checked=True)
            if problems:
                bad += 1
                for p in problems:
                    typer.echo(shown(f"{log}:{line}: {p}"), err=True)
        typer.echo(f"{games} games replayed, {games - bad} clean, {bad} with problems")
        raise typer.Exit(1 if bad or not games else 0)
