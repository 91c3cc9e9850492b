"""``compare``'s per-card win figures (issue 19): each side's takers-minus-non-takers win
rate and win rate per copy taken, their difference B - A with its interval, the game
as the unit, recounted here from ``simulate --log`` records of the same games."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.lab.figures import per_copy, versus_none
from ruledraft.lab.statistics import Moments, delta_wald

runner = CliRunner()
Z = 1.959963984540054


def cli_json(*args: str) -> dict:
    result = runner.invoke(app, [*args, "--quiet", "--json"], env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def logged(tmp_path, name: str, *args: str) -> list[dict]:
    """The game records ``simulate --log`` writes for ``args``."""
    log = tmp_path / f"{name}.jsonl"
    cli_json("simulate", *args, "--log", str(log))
    return [json.loads(line) for line in log.read_text().splitlines()]


def seat_games(records: list[dict], card: str) -> tuple[np.ndarray, np.ndarray]:
    """Per game and player seat: copies of ``card`` among its picks, and its win (1/k when k seats share it)."""
    copies = np.array(
        [
            [
                sum(p.count(card) for rnd in r["rounds"] for t in rnd["turns"] for p in [t["picks"][s]])
                for s in range(r["players"])
            ]
            for r in records
        ],
        dtype=float,
    )
    wins = np.array(
        [[1 / len(r["winners"]) if s in r["winners"] else 0.0 for s in range(r["players"])] for r in records]
    )
    return copies, wins


def influence_vs_none(copies: np.ndarray, wins: np.ndarray) -> tuple[float, np.ndarray]:
    """Takers' win rate minus non-takers', and each game's influence on it (seat-games pooled, games the unit)."""
    took = copies > 0
    p1, p0 = wins[took].mean(), wins[~took].mean()
    G = len(copies)
    z = ((took * (wins - p1)).sum(1)) / (took.sum() / G) - ((~took * (wins - p0)).sum(1)) / ((~took).sum() / G)
    return p1 - p0, z


def influence_slope(copies: np.ndarray, wins: np.ndarray) -> tuple[float, np.ndarray]:
    """The least-squares slope of win on copies over seat-games, and each game's influence on it."""
    beta, alpha = np.polyfit(copies.ravel(), wins.ravel(), 1)
    x = copies - copies.mean()
    residual = wins - alpha - beta * copies
    G = len(copies)
    return beta, (x * residual).sum(1) / ((x * x).sum() / G)


def clustered(estimate: float, z: np.ndarray) -> tuple[float, float]:
    """The Wald interval from per-game influences (games the unit)."""
    G = len(z)
    se = math.sqrt((z * z).sum() / (G * (G - 1)))
    return estimate - Z * se, estimate + Z * se


def sato(copies: np.ndarray, wins: np.ndarray, add: float = 0.0) -> tuple[float, float]:
    """The Mantel-Haenszel risk difference of winning, takers minus others, over the seats
    as strata, and Sato's variance, written out from the seat-games; ``add`` wins and as
    many losses more on each side, shared among the seats with both (Agresti-Caffo)."""
    both = [s for s in range(copies.shape[1]) if 0 < (copies[:, s] > 0).sum() < copies.shape[0]]
    share = add / len(both)
    num = den = p_sum = q_sum = 0.0
    for s in both:
        took = copies[:, s] > 0
        n1, n0 = took.sum() + 2 * share, (~took).sum() + 2 * share
        x1, x0 = wins[took, s].sum() + share, wins[~took, s].sum() + share
        t = n1 + n0
        num += (x1 * n0 - x0 * n1) / t
        den += n1 * n0 / t
        p_sum += (n1 * n1 * x0 - n0 * n0 * x1 + n1 * n0 * (n0 - n1) / 2) / (t * t)
        q_sum += (x1 * (n0 - x0) + x0 * (n1 - x1)) / (2 * t)
    rd = num / den
    return rd, (rd * p_sum + q_sum) / (den * den)


def influence_mh(copies: np.ndarray, wins: np.ndarray) -> tuple[float, np.ndarray]:
    """The Mantel-Haenszel difference over the seats as a function of the games' means of
    (took, won having taken, won) per seat, and each game's influence on it (its deviation
    from the means times a central-difference gradient)."""
    took = (copies > 0).astype(float)
    y = np.concatenate([took, took * wins, wins], axis=1)

    def f(m: np.ndarray) -> float:
        P = copies.shape[1]
        t, u, v = m[:P], m[P : 2 * P], m[2 * P :]
        return float((u - v * t).sum() / (t * (1 - t)).sum())

    mean = y.mean(axis=0)
    h = 1e-6
    grad = np.array([(f(mean + h * e) - f(mean - h * e)) / (2 * h) for e in np.eye(len(mean))])
    return f(mean), (y - mean) @ grad


def row(result: dict, figure: str) -> dict:
    return next(r for r in result["rows"] if r["figure"] == figure)


@pytest.mark.parametrize("card", ["tempura", "maki_2", "pudding"])
def test_paired_card_win_figures_match_a_recount_from_the_logs(tmp_path, card):
    """Paired greedy against random on sushi-go: each side's per copy, B - A and its interval (per-game differences of influences), and the seat-adjusted vs none (Mantel-Haenszel, Sato), as recounted from the two sides' logs."""
    games = ["--players", "4", "--games", "80", "--seed", "3"]
    recs_a = logged(tmp_path, "a", "sushi-go", *games, "--bots", "random")
    recs_b = logged(tmp_path, "b", "sushi-go", *games, "--bots", "greedy")
    result = cli_json("compare", "sushi-go", *games, "--bots", "random", "--bots-b", "greedy")
    assert result["paired"] is True
    ca, wa = seat_games(recs_a, card)
    cb, wb = seat_games(recs_b, card)
    r = row(result, f"card {card} per copy")
    (ea, za), (eb, zb) = influence_slope(ca, wa), influence_slope(cb, wb)
    assert (r["a"], r["b"], r["difference"]) == pytest.approx((ea, eb, eb - ea), abs=1e-12)
    assert r["interval"] == pytest.approx(list(clustered(eb - ea, zb - za)), abs=1e-9)
    assert r["measure"] == "win_rate_per_copy" and r["group"] == "cards"
    assert 0 <= r["p_value"] <= r["p_holm"] <= 1
    # vs none: within each seat (one bot a seat), pooled by Mantel-Haenszel; paired, the game
    # the unit: each game's influence on each side's estimate (a numerical gradient), differenced
    r = row(result, f"card {card} vs none")
    (ea, za), (eb, zb) = influence_mh(ca, wa), influence_mh(cb, wb)
    assert (ea, eb) == pytest.approx((sato(ca, wa)[0], sato(cb, wb)[0]), abs=1e-12)
    assert (r["a"], r["b"], r["difference"]) == pytest.approx((ea, eb, eb - ea), abs=1e-12)
    assert r["interval"] == pytest.approx(list(clustered(eb - ea, zb - za)), abs=1e-7)
    assert r["measure"] == "win_rate"
    side = next(c for c in result["a"]["figures"]["cards"] if c["card"] == card)
    assert side["difference"] == pytest.approx(influence_vs_none(ca, wa)[0], abs=1e-12)
    assert side["adjusted"]["difference"] == pytest.approx(sato(ca, wa)[0], abs=1e-12)
    assert side["per_copy"] == pytest.approx(influence_slope(ca, wa)[0], abs=1e-12)
    assert side["per_copy_interval"] == pytest.approx(list(clustered(*influence_slope(ca, wa))), abs=1e-9)


def test_independent_card_win_figures_add_the_sides_variances(tmp_path):
    """With --seed-b the sides' games are independent: B - A of the seat-adjusted vs none adds the two sides' Sato variances (Agresti-Caffo's counts); Wald interval and test."""
    recs_a = logged(tmp_path, "a", "sushi-go", "--games", "60", "--seed", "4", "--bots", "random")
    recs_b = logged(tmp_path, "b", "sushi-go", "--games", "60", "--seed", "9", "--bots", "random")
    result = cli_json("compare", "sushi-go", "--games", "60", "--seed", "4", "--seed-b", "9", "--bots", "random")
    assert result["paired"] is False
    ca, wa = seat_games(recs_a, "sashimi")
    cb, wb = seat_games(recs_b, "sashimi")
    (ea, _), (eb, _) = sato(ca, wa), sato(cb, wb)
    va, vb = sato(ca, wa, add=1)[1], sato(cb, wb, add=1)[1]  # one win and one loss more on each side
    se = math.sqrt(va + vb)
    r = row(result, "card sashimi vs none")
    assert r["interval"] == pytest.approx([eb - ea - Z * se, eb - ea + Z * se], abs=1e-9)
    assert r["p_value"] == pytest.approx(math.erfc(abs(eb - ea) / se / math.sqrt(2)), abs=1e-9)


def test_card_win_rows_are_in_the_holm_family_and_the_table():
    """Every card both sides have gets a vs none and a per copy row after its taken and points rows, counted in Holm's family and printed in percent."""
    args = ["sushi-go", "--games", "30", "--bots", "random", "--bots-b", "greedy", "--quiet"]
    result = cli_json("compare", *args[:-1])
    cards = [r["figure"] for r in result["rows"] if r["group"] == "cards"]
    assert cards[:4] == ["card tempura taken", "card tempura points", "card tempura vs none", "card tempura per copy"]
    wins = [r for r in result["rows"] if r["measure"] in ("win_rate", "win_rate_per_copy")]
    assert all(r["tested"] for r in wins if r["interval"][0] != r["interval"][1])
    tested = [r for r in result["rows"] if r["tested"]]
    assert result["compared"] == len(tested)
    ps = sorted(r["p_value"] for r in tested)
    smallest = min(tested, key=lambda r: r["p_value"])
    assert smallest["p_holm"] == pytest.approx(min(1.0, len(tested) * ps[0]))
    text = runner.invoke(app, ["compare", *args], env={"COLUMNS": "80"}).output
    line = next(x for x in text.splitlines() if "card tempura vs none" in x)
    tempura = row(result, "card tempura vs none")
    assert f"{tempura['difference'] * 100:+.1f}%" in line
    assert (
        "vs none: takers' win rate minus non-takers', within each seat and its bot;\nper copy: win rate per copy taken."
        in text
    )


def test_a_card_every_seat_takes_alike_has_no_per_copy_figure():
    """per_copy is None when every seat-game took as many copies (no spread in copies); versus_none when all or none took it."""
    # two players, every seat took 1 copy: nobody took none, copies do not vary
    means = [Fraction(2), Fraction(1), Fraction(2), Fraction(2), Fraction(1), Fraction(1)]
    assert versus_none(means, 2, 1) is None and per_copy(means, 2, 1) is None


def test_delta_method_of_a_ratio_by_hand():
    """Three games, y = (takers, taker wins): 1,1; 2,1; 1,0. Rate W/T = 2/4; influences (W - T/2)/(4/3) = 3/8, 0, -3/8: se sqrt((9/64 * 2) / 6)."""
    m = Moments(2)
    for y in ([1, 1], [2, 1], [1, 0]):
        m.add_sums(1, y, [a * b for a in y for b in y])
    T, W = m.means()
    estimate, low, high, p = delta_wald(W / T, [-W / (T * T), 1 / T], m)
    se = math.sqrt((9 / 64 * 2) / 6)
    assert estimate == 0.5 and (low, high) == pytest.approx((0.5 - Z * se, 0.5 + Z * se), abs=1e-12)
    assert p == pytest.approx(math.erfc(0.5 / se / math.sqrt(2)), abs=1e-12)


def test_holm_family_leaves_out_rows_equal_in_every_game_and_repeated_tests(tmp_path):
    """Paired random against greedy on sushi-go: rows whose B - A is 0 in every game (each card taken: every dealt card is taken; nigiri's and pudding's totals are fixed by the deal, checked in the logs) and card points that repeat a one-card rule's test (tempura, sashimi, dumpling) are out of Holm's family, whose size sets every p_holm."""
    games = ["--players", "4", "--games", "40", "--seed", "1"]
    result = cli_json("compare", "sushi-go", *games, "--bots", "random", "--bots-b", "greedy")
    recs_a = logged(tmp_path, "a", "sushi-go", *games, "--bots", "random")
    recs_b = logged(tmp_path, "b", "sushi-go", *games, "--bots", "greedy")
    for rid in ("nigiri", "pudding"):
        assert [sum(r["rules"][rid]) for r in recs_a] == [sum(r["rules"][rid]) for r in recs_b]
    untested = {r["figure"] for r in result["rows"] if not r["tested"]}
    assert {"rule nigiri", "rule pudding", "card tempura taken", "card wasabi taken"} <= untested
    assert all(row(result, f)["interval"] == [0.0, 0.0] or row(result, f)["same_as"] for f in untested)
    twins = {r["figure"]: r["same_as"] for r in result["rows"] if r["same_as"]}
    assert twins == {f"card {c} points": f"rule {c}" for c in ("tempura", "sashimi", "dumpling")}
    for card, rule_row in twins.items():
        a, b = row(result, card), row(result, rule_row)
        assert a["p_value"] == pytest.approx(b["p_value"], rel=1e-9)
        assert (a["p_holm"], a["flagged"]) == (b["p_holm"], b["flagged"])
    tested = [r for r in result["rows"] if r["tested"]]
    assert result["compared"] == len(tested) == len(result["rows"]) - len(untested)
    ps = sorted(r["p_value"] for r in tested)
    first = min(tested, key=lambda r: r["p_value"])
    assert first["p_holm"] == pytest.approx(min(1.0, len(tested) * ps[0]))


def test_independent_win_shares_take_the_p_value_that_inverts_newcombes_interval():
    """Independent games: a win share row's 95% interval leaves out 0 exactly when its p-value is below 0.05, and at confidence 1 - p the interval's nearer end is 0."""
    from ruledraft.lab.statistics import newcombe, newcombe_p_value

    for x1, n1, x2, n2 in [(56, 70, 48, 80), (30, 100, 20, 100), (0, 50, 10, 50), (12, 40, 12, 40)]:
        p = newcombe_p_value(x1, n1, x2, n2)
        d, lo, hi = newcombe(x1, n1, x2, n2)
        assert (lo > 0 or hi < 0) == (p < 0.05)
        if 0 < p < 1:
            _, lo_p, hi_p = newcombe(x1, n1, x2, n2, 1 - p)
            assert min(abs(lo_p), abs(hi_p)) == pytest.approx(0, abs=1e-9)
        else:
            assert d == 0 and p == 1.0
    result = cli_json("compare", "sushi-go", "--games", "50", "--seed", "2", "--seed-b", "7", "--bots", "random")
    for s in range(4):
        r = row(result, f"seat {s} win share")
        assert r["p_value"] == pytest.approx(newcombe_p_value(r["b"] * 50, 50, r["a"] * 50, 50), abs=1e-12)
