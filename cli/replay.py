"""``ruledraft replay``: play logged games again and check every pick and score."""

from __future__ import annotations

import os

import typer

from ruledraft.bundled import bundled_ids
from ruledraft.errors import InputError, RulesetError
from ruledraft.game_log import read_records, replay_record
from ruledraft.loading import load_ruleset

from .common import reported_errors


def replay(
    log: str = typer.Argument(..., help="A JSON Lines game log written by `simulate --log` or `play --log`."),
    ruleset: str = typer.Option(None, "--ruleset", "-r", help="Ruleset to check against: a bundled id (" + ", ".join(bundled_ids()) + ") or a rule file (default: the one each record names)."),
) -> None:
    """Replay logged games and check every pick and score.

    Each game is played again under its ruleset; any illegal pick or score that
    does not match is reported. Exits 1 on any mismatch.
    """
    with reported_errors():
        cache = {}
        games = bad = 0
        for line, record in read_records(log):
            games += 1
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
                problems = replay_record(cache[name], record) if isinstance(record, dict) else ["not a JSON object"]
            if problems:
                bad += 1
                for p in problems:
                    typer.echo(f"{log}:{line}: {p}", err=True)
        typer.echo(f"{games} games replayed, {games - bad} clean, {bad} with problems")
        raise typer.Exit(1 if bad or not games else 0)
