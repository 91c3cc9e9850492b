"""The lab's statistics against values worked out by hand or read from the usual tables."""

from __future__ import annotations

import math

import pytest

from ruledraft.lab.statistics import (
    chi_square_quantile,
    chi_square_sf,
    chi_square_uniform,
    gamma_q,
    holm,
    mean_interval,
    newcombe,
    normal_cdf,
    normal_quantile,
    t_quantile,
    wilson,
)

Z = 1.959963984540054  # the 97.5% point of the standard normal


def test_normal_quantiles_match_the_tables():
    """The normal quantiles are the tabled 1.959964 (97.5%), 2.575829 (99.5%) and 1.644854 (95%)."""
    assert normal_quantile(0.975) == pytest.approx(1.959963984540054, abs=1e-12)
    assert normal_quantile(0.995) == pytest.approx(2.5758293035489004, abs=1e-12)
    assert normal_quantile(0.95) == pytest.approx(1.6448536269514722, abs=1e-12)
    assert normal_quantile(0.001) == pytest.approx(-3.090232306167813, abs=1e-10)
    assert normal_cdf(normal_quantile(0.3)) == pytest.approx(0.3, abs=1e-15)


def test_wilson_interval_of_five_in_ten_by_hand():
    """Wilson for 5 of 10: centre 0.5, half-width z/(1+z^2/n) * sqrt(p(1-p)/n + z^2/4n^2)."""
    half = Z / (1 + Z * Z / 10) * math.sqrt(0.25 / 10 + Z * Z / 400)
    low, high = wilson(5, 10)
    assert low == pytest.approx(0.5 - half, abs=1e-12)
    assert high == pytest.approx(0.5 + half, abs=1e-12)
    assert (round(low, 4), round(high, 4)) == (0.2366, 0.7634)


def test_wilson_interval_of_none_in_ten_reaches_z2_over_n_plus_z2():
    """0 of 10: the interval is 0 to z^2 / (n + z^2) = 0.2775."""
    low, high = wilson(0, 10)
    assert low == 0.0
    assert high == pytest.approx(Z * Z / (10 + Z * Z), abs=1e-12)
    assert round(high, 4) == 0.2775


def test_wilson_takes_fractional_successes_from_shared_wins():
    """2.5 wins in 10 games (a win shared by two counts one half) is the interval at p = 0.25."""
    p, n = 0.25, 10
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    half = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    low, high = wilson(2.5, 10)
    assert (low, high) == (pytest.approx(centre - half, abs=1e-12), pytest.approx(centre + half, abs=1e-12))


def test_wilson_of_no_games_is_the_whole_range():
    """No games: nothing is known, the interval is 0 to 1."""
    assert wilson(0, 0) == (0.0, 1.0)


def test_newcombe_difference_matches_newcombe_1998_example():
    """Newcombe (1998), 56/70 against 48/80: difference 0.2000, method 10 interval 0.0524 to 0.3339."""
    d, low, high = newcombe(56, 70, 48, 80)
    assert d == pytest.approx(0.2, abs=1e-12)
    assert (round(low, 4), round(high, 4)) == (0.0524, 0.3339)


def test_mean_interval_of_one_to_five_by_hand():
    """1..5: mean 3, variance 2.5, t(0.975, 4) = 2.776445, interval 3 -/+ 2.776445 * sqrt(2.5/5)."""
    mean, low, high = mean_interval(5, 15, 55)
    half = 2.7764451051977987 * math.sqrt(2.5 / 5)
    assert mean == 3.0
    assert (low, high) == (pytest.approx(3 - half, abs=1e-9), pytest.approx(3 + half, abs=1e-9))
    _, nlow, _ = mean_interval(5, 15, 55, normal=True)
    assert nlow == pytest.approx(3 - Z * math.sqrt(0.5), abs=1e-12)


def test_mean_interval_of_one_value_has_no_width():
    """One value (or none) gives its mean and an interval of no width."""
    assert mean_interval(1, 7, 49) == (7.0, 7.0, 7.0)
    assert mean_interval(0, 0, 0) == (0.0, 0.0, 0.0)


@pytest.mark.parametrize(
    ("df", "value"),
    [(1, 12.706204736174698), (4, 2.7764451051977987), (10, 2.2281388519649385), (30, 2.0422724563012373)],
)
def test_t_quantiles_match_the_tables(df, value):
    """Student's t at 97.5%: 12.7062 (1 df), 2.7764 (4), 2.2281 (10), 2.0423 (30)."""
    assert t_quantile(0.975, df) == pytest.approx(value, abs=1e-9)
    assert t_quantile(0.025, df) == pytest.approx(-value, abs=1e-9)


def test_regularized_upper_gamma_has_closed_forms():
    """Q(1, x) = exp(-x) and Q(1/2, x) = erfc(sqrt(x)), on both sides of the series/fraction switch."""
    for x in (0.1, 0.9, 1.5, 3.0, 10.0, 40.0):
        assert gamma_q(1, x) == pytest.approx(math.exp(-x), rel=1e-12, abs=1e-300)
        assert gamma_q(0.5, x) == pytest.approx(math.erfc(math.sqrt(x)), rel=1e-10, abs=1e-300)


@pytest.mark.parametrize(
    ("statistic", "df", "p"),
    [
        (3.841458820694124, 1, 0.05),
        (6.634896601021214, 1, 0.01),
        (5.991464547107979, 2, 0.05),
        (7.814727903251178, 3, 0.05),
        (11.070497693516351, 5, 0.05),
        (18.307038053275146, 10, 0.05),
        (13.276704135987622, 4, 0.01),
        (2.0, 2, math.exp(-1)),
    ],
)
def test_chi_square_p_values_match_the_tables_to_1e9(statistic, df, p):
    """The chi-square upper tail at the tabled critical values gives their p-values to 1e-9."""
    assert chi_square_sf(statistic, df) == pytest.approx(p, abs=1e-9)


def test_chi_square_quantiles_match_the_tables():
    """chi-square 95% points: 3.841459 (1 df), 7.814728 (3), 18.307038 (10)."""
    assert chi_square_quantile(0.95, 1) == pytest.approx(3.841458820694124, abs=1e-9)
    assert chi_square_quantile(0.95, 3) == pytest.approx(7.814727903251178, abs=1e-9)
    assert chi_square_quantile(0.95, 10) == pytest.approx(18.307038053275146, abs=1e-9)


def test_chi_square_of_equal_seats_by_hand():
    """30 and 10 wins: statistic (100 + 100) / 20 = 10, p = erfc(sqrt(5)); 12.5, 12.5, 25: 6.25, p = exp(-3.125)."""
    stat, df, p = chi_square_uniform([30, 10])
    assert (stat, df) == (10.0, 1)
    assert p == pytest.approx(math.erfc(math.sqrt(5)), abs=1e-12)
    assert chi_square_uniform([12.5, 12.5, 25]) == (pytest.approx(6.25), 2, pytest.approx(math.exp(-3.125)))


def test_chi_square_of_nothing_is_no_evidence():
    """No wins at all (or one seat): statistic 0, p-value 1."""
    assert chi_square_uniform([0, 0]) == (0.0, 1, 1.0)
    assert chi_square_uniform([5]) == (0.0, 1, 1.0)


def test_holm_steps_down_by_hand():
    """p = .01, .04, .03, .005: adjusted .03, .06, .06, .02 (4x, 3x, 2x, 1x in order, kept monotone)."""
    out = holm([0.01, 0.04, 0.03, 0.005])
    assert [round(a, 12) for a, _ in out] == [0.03, 0.06, 0.06, 0.02]
    assert [r for _, r in out] == [True, False, False, True]


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.5, 2.0])
def test_quantiles_refuse_probabilities_outside_zero_and_one(bad):
    """A probability of 0, 1 or beyond has no quantile: a ValueError saying what is wanted."""
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        normal_quantile(bad)
