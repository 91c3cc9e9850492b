"""``compare --rotate``: each deal played in every seating of each side's line-up is one unit, both sides
rotated alike on the same seeds; the figures are recomputed here from the two sides' own ``simulate --rotate``
records."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.lab.compare import joined_values

runner = CliRunner()

GAMES = 40
BOTS_A, BOTS_B = "greedy,random,random", "greedy,greedy,random"
COMMON = ["sushi-go", "-p", "3", "-g", str(GAMES), "-s", "11", "-q"]
COMPARE = ["compare", *COMMON, "-b", BOTS_A, "--bots-b", BOTS_B, "--json"]


def run(*args) -> dict:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def logged(tmp_path, bots: str, name: str) -> tuple[dict, list[dict]]:
    """A side's `simulate --rotate --json` and its `--log` records."""
    log = tmp_path / f"{name}.jsonl"
    out = run("simulate", *COMMON, "-b", bots, "--rotate", "--json", "--log", log)
    return out, [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cmprot")
    return run(*COMPARE, "--rotate"), logged(tmp, BOTS_A, "a"), logged(tmp, BOTS_B, "b")


def by_deal(records: list[dict]) -> list[list[dict]]:
    """The records of each deal, one per seating (the log holds the seatings one after the other)."""
    k = len(records) // GAMES
    seatings = [records[i * GAMES : (i + 1) * GAMES] for i in range(k)]
    for other in seatings[1:]:
        assert [r["seed"] for r in other] == [r["seed"] for r in seatings[0]]
    return [list(deal) for deal in zip(*seatings)]


def win(record: dict, seat: int) -> Fraction:
    return Fraction(1, len(record["winners"])) if seat in record["winners"] else Fraction(0)


def took(record: dict, seat: int, card: str) -> bool:
    return any(card in turn["picks"][seat] for rnd in record["rounds"] for turn in rnd["turns"])


def row(result: dict, figure: str) -> dict:
    return next(r for r in result["rows"] if r["figure"] == figure)


def test_seat_rows_are_paired_deals_averaged_over_their_seatings(sides):
    """Seat 0's win share and score: per deal, B's mean over its three seatings minus A's, then the mean over the
    40 deals with Student's t interval, as the logs of each side's `simulate --rotate` give them."""
    result, (_, log_a), (_, log_b) = sides
    assert result["paired"] and result["games"] == GAMES
    deals_a, deals_b = by_deal(log_a), by_deal(log_b)
    assert len(deals_a) == len(deals_b) == GAMES and len(deals_a[0]) == 3
    for figure, value in (("seat 0 win share", lambda r: win(r, 0)), ("seat 0 score", lambda r: r["totals"][0])):
        mean_a = [sum(map(value, deal)) / Fraction(len(deal)) for deal in deals_a]
        mean_b = [sum(map(value, deal)) / Fraction(len(deal)) for deal in deals_b]
        d = np.array([float(b - a) for a, b in zip(mean_a, mean_b)])
        half = stats.t.ppf(0.975, GAMES - 1) * d.std(ddof=1) / math.sqrt(GAMES)
        got = row(result, figure)
        assert got["a"] == pytest.approx(float(sum(mean_a) / GAMES))
        assert got["b"] == pytest.approx(float(sum(mean_b) / GAMES))
        assert got["difference"] == pytest.approx(d.mean())
        assert got["interval"] == pytest.approx([d.mean() - half, d.mean() + half])
        assert got["p_value"] == pytest.approx(2 * stats.t.sf(abs(d.mean()) / (d.std(ddof=1) / math.sqrt(GAMES)), 39))


def _strata_parts(deals: list[list[dict]], card: str) -> np.ndarray:
    """Per deal, for every (seating, seat): took the card, its win if it did, its win."""
    out = []
    for deal in deals:
        t = [float(took(r, s, card)) for r in deal for s in range(3)]
        w = [float(win(r, s)) for r in deal for s in range(3)]
        out.append(t + [a * b for a, b in zip(t, w)] + w)
    return np.array(out)


def _mantel_haenszel(means: np.ndarray) -> float:
    """Takers minus others pooled over strata of one seat-game per deal, from the means of the strata parts."""
    k = len(means) // 3
    t, u, v = means[:k], means[k : 2 * k], means[2 * k :]
    return float((u - v * t).sum() / (t * (1 - t)).sum())


def test_vs_none_is_mantel_haenszel_over_seating_and_seat_with_the_deal_as_unit(sides):
    """A card's vs none: Mantel-Haenszel over the nine strata of seating and seat on each side, recomputed from
    the logs' picks and winners; its variance is the delta method's over the deals (the gradient taken here by
    finite differences), across the sides since the deals are paired."""
    result, (_, log_a), (_, log_b) = sides
    deals_a, deals_b = by_deal(log_a), by_deal(log_b)
    checked = 0
    for card in ("tempura", "sashimi", "dumpling", "salmon_nigiri", "maki_2", "pudding"):
        got = next((r for r in result["rows"] if r["figure"] == f"card {card} vs none"), None)
        if got is None:
            continue
        parts = np.concatenate([_strata_parts(deals_a, card), _strata_parts(deals_b, card)], axis=1)
        width = parts.shape[1] // 2
        means = parts.mean(axis=0)

        def f(m: np.ndarray, width: int = width) -> float:
            return _mantel_haenszel(m[width:]) - _mantel_haenszel(m[:width])

        assert got["a"] == pytest.approx(_mantel_haenszel(means[:width]))
        assert got["b"] == pytest.approx(_mantel_haenszel(means[width:]))
        assert got["difference"] == pytest.approx(f(means))
        h = 1e-6
        grad = np.array([(f(means + h * e) - f(means - h * e)) / (2 * h) for e in np.eye(len(means))])
        se = math.sqrt(grad @ np.cov(parts, rowvar=False) @ grad / GAMES)
        z = stats.norm.ppf(0.975)
        assert got["interval"] == pytest.approx([f(means) - z * se, f(means) + z * se], rel=1e-4)
        checked += 1
    assert checked >= 4


def test_sides_figures_and_bot_shares_are_simulate_rotates(sides):
    """Each side's figures are its `simulate --rotate` figures (seats shown as rotated), the per copy row's A and B
    are the sides' own per copy slopes, and each bot's win share is the one `simulate --rotate` gives."""
    result, (sim_a, _), (sim_b, _) = sides
    for key, sim in (("a", sim_a), ("b", sim_b)):
        figures = result[key]["figures"]
        assert [s["bot"] for s in figures["seats"]] == ["rotated"] * 3
        assert [s["wins"] for s in figures["seats"]] == [s["wins"] for s in sim["figures"]["seats"]]
        assert figures["cards"] == sim["figures"]["cards"]
        rotation = result["rotation"][key]
        assert rotation["seatings"] == sim["figures"]["rotation"]["seatings"]
        assert rotation["bots"] == sim["figures"]["rotation"]["bots"]
        assert rotation["games_played"] == [GAMES] * 3
    cards = {c["card"]: c for c in sim_a["figures"]["cards"]}
    per_copy = [r for r in result["rows"] if r["figure"].endswith(" per copy")]
    assert per_copy
    for r in per_copy:
        assert r["a"] == pytest.approx(cards[r["figure"].split()[1]]["per_copy"])
    greedy = {k: next(b for b in result["rotation"][k]["bots"] if b["bot"] == "greedy") for k in "ab"}
    assert greedy["a"]["seats"] == 1 and greedy["b"]["seats"] == 2


def test_one_bot_at_every_seat_is_the_plain_compare():
    """With one bot at every seat on both sides there is one seating each: --rotate gives the plain comparison."""
    args = ["compare", *COMMON, "-g", "12", "-b", "greedy", "--bots-b", "random", "--json"]
    plain = run(*args)
    assert run(*args, "--rotate") == plain
    assert "rotation" not in plain


def test_rotated_compare_on_two_jobs_is_the_same():
    """`--jobs 2` gives the very comparison of `--jobs 1`, rotated (independent games too, with --seed-b)."""
    args = ["compare", *COMMON, "-g", "16", "-b", BOTS_A, "--bots-b", BOTS_B, "--json", "--rotate"]
    for extra in ([], ["--seed-b", "5"]):
        one = run(*args, *extra, "-j", "1")
        assert run(*args, *extra, "-j", "2") == one
        assert one["paired"] is (not extra) and one["rotation"]["a"]["games_played"] == [16, 16, 16]


def test_independent_rotated_per_copy_is_each_sides_own(sides):
    """With --seed-b the games are independent: the per copy rows' A and B are still each side's own slope, and
    the interval adds the two sides' variances (wider than nothing, centred on B - A)."""
    result = run(*COMPARE, "--rotate", "--seed-b", "5")
    assert not result["paired"]
    cards = {c["card"]: c for c in result["b"]["figures"]["cards"]}
    rows = [r for r in result["rows"] if r["figure"].endswith(" per copy")]
    assert rows
    for r in rows:
        assert r["b"] == pytest.approx(cards[r["figure"].split()[1]]["per_copy"])
        lo, hi = r["interval"]
        assert lo < r["difference"] < hi
        assert r["difference"] == pytest.approx((lo + hi) / 2)


def test_independent_rotated_win_shares_differ_by_welch_over_the_deals(tmp_path):
    """With --seed-b a rotated side's seat win share per deal is its mean over the seatings, not a proportion of
    games: B - A is Welch's interval on the deals' values, recomputed from each side's logs (Newcombe's, on the
    games as if independent, was about twice as wide where a deal's seatings pull against each other)."""
    result = run(*COMPARE, "--rotate", "--seed-b", "5")
    assert not result["paired"]
    log_a = logged(tmp_path, BOTS_A, "a")[1]
    common_b = [*COMMON[:-3], "-s", "5", "-q"]
    log = tmp_path / "b5.jsonl"
    run("simulate", *common_b, "-b", BOTS_B, "--rotate", "--json", "--log", log)
    log_b = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    for seat in range(3):
        a = np.array([float(sum(win(r, seat) for r in deal) / len(deal)) for deal in by_deal(log_a)])
        b = np.array([float(sum(win(r, seat) for r in deal) / len(deal)) for deal in by_deal(log_b)])
        welch = stats.ttest_ind(b, a, equal_var=False)
        va, vb = a.var(ddof=1) / GAMES, b.var(ddof=1) / GAMES
        df = (va + vb) ** 2 / (va**2 / (GAMES - 1) + vb**2 / (GAMES - 1))
        half = stats.t.ppf(0.975, df) * math.sqrt(va + vb)
        got = row(result, f"seat {seat} win share")
        assert got["difference"] == pytest.approx(b.mean() - a.mean())
        assert got["interval"] == pytest.approx([b.mean() - a.mean() - half, b.mean() - a.mean() + half])
        assert got["p_value"] == pytest.approx(welch.pvalue)


def test_text_and_report_show_the_rotation(tmp_path):
    """The terminal says how each deal was played and each bot's win share; the report has its rotation section
    and its command says --rotate."""
    args = ["compare", *COMMON, "-g", "10", "-b", BOTS_A, "--bots-b", BOTS_B, "--rotate"]
    result = runner.invoke(app, [*args, "--report", str(tmp_path / "r")])
    assert result.exit_code == 0, result.output
    assert "10 deals a side" in result.output
    assert "rotated: every deal played A in 3 seatings and B in 3 seatings; the deal is the\nunit" in result.output
    assert all(len(line) <= 80 for line in result.output.splitlines() if not line.startswith("report: "))
    assert "A bots' win shares: greedy" in result.output
    page = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "r").rglob("*.html"))
    assert "Bots over the seatings" in page and "--rotate" in page


def test_joined_values_average_the_figures_and_join_the_strata():
    """Two seatings of one deal: the figures are their mean, the card parts summed, and the seat parts laid out
    took, won-if-took, won, each over (seating, seat)."""
    from ruledraft.lab.columns import Column

    first = (
        {"seat 0 score": Column([4]), "seat 1 score": Column([2])},
        np.array([[[1, 2, 3, 4, 5, 6, 1, 0, 1, 0, 1, 1]]]),
    )
    second = (
        {"seat 0 score": Column([1]), "seat 1 score": Column([5])},
        np.array([[[1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 1]]]),
    )
    values, parts = joined_values([first, second], 2)
    assert {k: v.values() for k, v in values.items()} == {
        "seat 0 score": [Fraction(5, 2)],
        "seat 1 score": [Fraction(7, 2)],
    }
    assert parts.tolist() == [[[2, 3, 4, 5, 6, 7, 1, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 1]]]
    assert joined_values([first], 2) == first


def test_integer_delta_variance_is_the_exact_one():
    """The rotated rows' delta method in integers over one denominator gives exactly the fractions' variance."""
    from ruledraft.lab.compare import _covariance, _delta
    from ruledraft.lab.statistics import Moments, delta_variance

    rng = np.random.default_rng(3)
    for width, n in ((3, 2), (8, 5), (20, 40)):
        rows = rng.integers(-4, 9, size=(n, width)).tolist()
        moments = Moments(width)
        for r in rows:
            moments.add_sums(1, r, [a * b for a in r for b in r])
        gradient = [Fraction(int(p), int(q)) for p, q in zip(rng.integers(-7, 7, width), rng.integers(1, 30, width))]
        gradient[0] = Fraction(0)
        exact = delta_variance(gradient, moments)
        assert _delta(_covariance(moments), gradient, n) == exact
        assert exact > 0


def test_a_line_up_and_its_rotation_play_the_same_deals():
    """Rotated, greedy-random and random-greedy play the same games deal by deal (here with a dummy seat): every
    figure is equal on both sides in every deal, so none is tested; unrotated, the seats differ."""
    args = ["compare", "sushi-go-two-player-dummy", "-p", "2", "-g", "8", "-b", "greedy,random"]
    args += ["--bots-b", "random,greedy", "-q", "--json"]
    rotated = run(*args, "--rotate")
    assert rotated["compared"] == 0 and rotated["rows"]
    assert all(r["difference"] == 0 and not r["tested"] for r in rotated["rows"])
    plain = run(*args)
    assert row(plain, "seat 0 win share")["difference"] < 0
