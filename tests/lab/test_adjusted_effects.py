"""Card effects adjusted for seat and bot (issue 21): the takers-minus-others win rate
within each seat, pooled by Mantel and Haenszel with Sato's variance, beside the raw
figure in simulate's tables and --json."""

from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.lab.statistics import mantel_haenszel

runner = CliRunner()


def test_one_stratum_gives_the_plain_difference_and_its_wald_variance():
    """One stratum: 300 of 1000 against 200 of 1000 is 0.1, and Sato's variance is p1 q1 / n1 + p0 q0 / n0 = 0.00037."""
    rd, var = mantel_haenszel([(300, 1000, 200, 1000)])
    assert rd == pytest.approx(0.1) and var == pytest.approx(0.3 * 0.7 / 1000 + 0.2 * 0.8 / 1000, rel=1e-12)


def test_strata_undo_simpsons_paradox():
    """Takers win 70% vs 76% at a strong seat and 10% vs 16% at a weak one (6 points worse at each), but mostly take at the weak seat: pooled they look 48 points worse; Mantel-Haenszel gives -6."""
    strong, weak = (70, 100, 684, 900), (90, 900, 16, 100)
    pooled = (70 + 90) / 1000 - (684 + 16) / 1000
    assert pooled == pytest.approx(-0.54)
    rd, var = mantel_haenszel([strong, weak])
    assert rd == pytest.approx(-0.06, abs=1e-12) and 0 < var < 0.01
    assert mantel_haenszel([(1, 3, 0, 0)]) is None


def test_a_side_all_lost_in_two_trials_gets_a_wide_interval_not_none():
    """500 takers winning 125 against 2 others both lost: Sato's variance alone is that of the takers (a
    5-point-wide interval from two seat-games); with one win and one loss more on each side (Agresti-Caffo)
    the others' side counts 1 of 4 and the interval is over 80 points wide."""
    rd, var = mantel_haenszel([(125, 500, 0, 2)])
    assert rd == pytest.approx(0.25) and var == pytest.approx(0.25 * 0.75 / 500)
    centre, wide = mantel_haenszel([(125, 500, 0, 2)], add=1.0)
    assert centre == pytest.approx(126 / 502 - 1 / 4)
    assert wide == pytest.approx((126 / 502) * (376 / 502) / 502 + 0.25 * 0.75 / 4, rel=1e-9)
    assert 2 * 1.96 * math.sqrt(wide) > 0.8 > 2 * 1.96 * math.sqrt(var) * 10
    shared = mantel_haenszel([(60, 250, 0, 1), (65, 250, 0, 1)], add=1.0)
    assert shared is not None and shared[1] > 10 * var  # the added counts are shared over the strata


def test_simulate_shows_the_adjusted_effect_beside_the_raw_one_from_the_seats_of_the_log(tmp_path):
    """greedy,random on sushi-go: each card's adjusted figure is the Mantel-Haenszel difference over the seats recounted from the log, with Sato's interval (Agresti-Caffo's counts); tempura's raw -40-odd points shrink within the seats."""
    log = tmp_path / "g.jsonl"
    result = runner.invoke(
        app,
        ["simulate", "sushi-go", "--games", "120", "--bots", "greedy,random", "--log", str(log), "--json", "--quiet"],
    )
    assert result.exit_code == 0, result.output
    cards = {c["card"]: c for c in json.loads(result.stdout)["figures"]["cards"]}
    records = [json.loads(line) for line in log.read_text().splitlines()]
    for card in ("tempura", "sashimi", "maki_3"):
        strata = []
        for s in range(4):
            n1 = x1 = n0 = x0 = 0.0
            for r in records:
                took = any(card in p for rnd in r["rounds"] for t in rnd["turns"] for p in [t["picks"][s]])
                won = 1 / len(r["winners"]) if s in r["winners"] else 0.0
                if took:
                    n1, x1 = n1 + 1, x1 + won
                else:
                    n0, x0 = n0 + 1, x0 + won
            strata.append((x1, n1, x0, n0))
        rd, _ = mantel_haenszel(strata)
        _, var = mantel_haenszel(strata, add=1.0)  # one win and one loss more on each side
        adjusted = cards[card]["adjusted"]
        assert adjusted["difference"] == pytest.approx(rd, abs=1e-12)
        half = 1.959963984540054 * math.sqrt(var)
        assert adjusted["interval"] == pytest.approx([rd - half, rd + half], abs=1e-9)
    assert cards["tempura"]["difference"] < -0.3 and abs(cards["tempura"]["adjusted"]["difference"]) < 0.2
    text = runner.invoke(app, ["simulate", "sushi-go", "--games", "120", "--bots", "greedy,random", "--quiet"])
    lines = text.stdout.splitlines()
    assert "adjusted: vs none within each seat and its bot, pooled (Mantel-Haenszel)" in lines
    row = next(
        x for x in lines[lines.index(next(x for x in lines if "within each seat and bot" in x)) :] if "tempura" in x
    )
    assert f"{cards['tempura']['adjusted']['difference'] * 100:+.1f}" in row
    assert all(len(x) <= 80 for x in lines)


def test_the_adjusted_interval_of_a_few_games_stays_within_the_possible_differences():
    """Four planners, 8 games: maki_2's Wald interval (2 seat-games without it) would pass +100 points; a difference of two win rates, and its interval, lie within -1..1."""
    result = runner.invoke(
        app,
        ["simulate", "sushi-go", "-p", "4", "-g", "8", "-b", "planner", "--cards", "--json", "--engine", "reference"],
    )
    assert result.exit_code == 0, result.output
    cards = {c["card"]: c for c in json.loads(result.stdout)["figures"]["cards"]}
    assert cards["maki_2"]["adjusted"]["interval"][1] == 1.0
    for c in cards.values():
        if c["adjusted"] is not None:
            lo, hi = c["adjusted"]["interval"]
            assert -1.0 <= lo <= c["adjusted"]["difference"] <= hi <= 1.0, c["card"]
