"""The game as the unit for every per-rule and per-card mean and interval (issue 21):
a rule whose points sum to a constant in every game has an interval of no width in
``simulate``, ``compare``, ``sweep`` and reports alike, and the per-rule interval is the
t interval over each game's points (recounted from ``--log`` records)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.lab.statistics import mean_interval

runner = CliRunner()


def cli_json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--quiet", "--json"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def rule(figures: dict, rid: str) -> dict:
    return next(r for r in figures["rules"] if r["rule"] == rid)


@pytest.mark.parametrize("players", [3, 4])
def test_pudding_sums_to_zero_every_game_so_its_interval_has_no_width(tmp_path, players):
    """Sushi Go! pudding at 3 and 4 players: +6 to the most and -6 to the fewest, split among ties (6 divides by 1, 2 and 3; all tied: none), so every game's puddings sum to 0 (checked in the log) and simulate's interval is [0, 0]; the other rules' intervals are the t intervals over the games' points per seat."""
    log = tmp_path / "games.jsonl"
    out = cli_json(
        "simulate", "sushi-go", "--players", str(players), "--games", "60", "--bots", "random", "--log", str(log)
    )
    records = [json.loads(line) for line in log.read_text().splitlines()]
    assert all(sum(r["rules"]["pudding"]) == 0 for r in records)
    assert any(max(r["rules"]["pudding"]) == 6 for r in records)  # the rule did score
    figures = out["figures"]
    assert (rule(figures, "pudding")["mean"], rule(figures, "pudding")["interval"]) == (0.0, [0.0, 0.0])
    for rid in ("maki", "nigiri", "tempura"):
        per_game = [sum(r["rules"][rid]) / players for r in records]
        m, lo, hi = mean_interval(60, sum(per_game), sum(x * x for x in per_game))
        assert rule(figures, rid)["mean"] == pytest.approx(m, abs=1e-12)
        assert rule(figures, rid)["interval"] == pytest.approx([lo, hi], abs=1e-9)


def test_sweep_and_compare_give_the_constant_rule_no_width_either():
    """sweep at 3 and 4 players and compare's sides show pudding's interval as [0, 0] too; compare's pudding row is 0 with no width."""
    sweep = cli_json("sweep", "sushi-go", "--players", "3-4", "--games", "20", "--bots", "random")
    for count in sweep["counts"]:
        assert rule(count["figures"], "pudding")["interval"] == [0.0, 0.0]
    comp = cli_json("compare", "sushi-go", "--games", "20", "--bots", "random", "--bots-b", "greedy")
    for side in ("a", "b"):
        assert rule(comp[side]["figures"], "pudding")["interval"] == [0.0, 0.0]
    row = next(r for r in comp["rows"] if r["figure"] == "rule pudding")
    assert (row["difference"], row["interval"]) == (0.0, [0.0, 0.0])


def test_mover_without_correlation_is_newcombes_interval_and_correlation_narrows_it():
    """mover with correlation 0 gives Newcombe's method 10 (56/70 - 48/80: 0.2, -0.0524 to 0.3339 in his 1998 paper); a positive correlation narrows it."""
    from ruledraft.lab.statistics import mover, newcombe, wilson

    i1, i0 = wilson(56, 70), wilson(48, 80)
    d, lo, hi = mover(56 / 70, i1, 48 / 80, i0, 0.0)
    assert (d, lo, hi) == pytest.approx(newcombe(56, 70, 48, 80), abs=1e-12)
    assert (round(lo, 4), round(hi, 4)) == (0.0524, 0.3339)
    _, lo2, hi2 = mover(56 / 70, i1, 48 / 80, i0, 0.5)
    assert lo < lo2 < d < hi2 < hi
