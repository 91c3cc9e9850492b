"""Intervals, tests and quantiles in plain Python, exact to the last digits that matter.

Nothing here needs more than :mod:`math`; every function is checked against values
computed by hand or read from the usual statistical tables (tests/lab/test_lab_statistics.py).

* :func:`wilson` -- the Wilson score interval of a proportion. ``successes`` may be
  fractional: a win shared by k seats counts 1/k to each of them, so a seat's wins
  are a sum of such shares and the interval is taken at that (fractional) count.
* :func:`newcombe` -- Newcombe's hybrid score interval (his method 10) for the
  difference of two independent proportions, built from the two Wilson intervals.
* :func:`mean_interval` -- a mean and its interval from the count, the sum and the sum
  of squares (Student's t with n - 1 degrees of freedom, or the normal).
* :func:`chi_square_uniform` -- Pearson's statistic of "every cell is equally likely",
  its degrees of freedom and its p-value (:func:`chi_square_sf`, the regularized upper
  incomplete gamma function :func:`gamma_q`).
* :func:`normal_quantile`, :func:`t_quantile`, :func:`chi_square_quantile`.
* :func:`holm` -- Holm's step-down correction of several p-values.
* :func:`mantel_haenszel` -- a risk difference over strata (seats, bots) and Sato's
  variance.
* :class:`Moments` and :func:`delta_wald` -- a figure that is a smooth function of
  the means of per-game values (a ratio of sums, a difference of win rates, a slope),
  with the game as the unit: its variance by the delta method from the games' sample
  covariance (the seats of one game may be as dependent as they like), and the Wald
  interval and two-sided test of "it is 0" from that one standard error (:func:`wald`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from fractions import Fraction

__all__ = [
    "chi_square_quantile",
    "chi_square_sf",
    "chi_square_uniform",
    "delta_variance",
    "delta_wald",
    "Moments",
    "mantel_haenszel",
    "mover",
    "gamma_q",
    "holm",
    "mean_interval",
    "newcombe",
    "newcombe_p_value",
    "normal_cdf",
    "normal_quantile",
    "t_cdf",
    "t_quantile",
    "wald",
    "wilson",
]

_EPS = 1e-16


def normal_cdf(x: float) -> float:
    """P(Z <= x) for a standard normal Z."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """The x with P(Z <= x) = p (Acklam's approximation, then two Newton steps on erfc)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a probability strictly between 0 and 1, not {p}")
    a = [-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02]
    a += [-3.066479806614716e01, 2.506628277459239e00]
    b = [-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01]
    b += [-1.328068155288572e01]
    c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00]
    c += [4.374664141464968e00, 2.938163982698783e00]
    d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00]
    low = 0.02425
    if p < low:
        q = math.sqrt(-2 * math.log(p))
        x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    elif p <= 1 - low:
        q = p - 0.5
        r = q * q
        x = (
            (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5])
            * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
        )
    else:
        q = math.sqrt(-2 * math.log(1 - p))
        x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / (
            (((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1
        )
    for _ in range(2):  # Newton on the exact cdf
        err = normal_cdf(x) - p
        x -= err / (math.exp(-x * x / 2) / math.sqrt(2 * math.pi))
    return x


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"a confidence strictly between 0 and 1, not {confidence}")
    return normal_quantile(0.5 + confidence / 2)


def wilson(successes: float, n: float, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval (low, high) of a proportion: ``successes`` of ``n``
    (fractional successes allowed: shared wins count 1/k each). (0, 1) when n is 0."""
    if n <= 0:
        return (0.0, 1.0)
    if not 0 <= successes <= n:
        raise ValueError(f"successes must be within 0..n, not {successes} of {n}")
    z = _z(confidence)
    p = successes / n
    z2 = z * z
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = z / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == n else min(1.0, centre + half)
    return (low, high)


def newcombe(x1: float, n1: float, x2: float, n2: float, confidence: float = 0.95) -> tuple[float, float, float]:
    """The difference p1 - p2 of two independent proportions and Newcombe's interval
    for it (method 10: from the Wilson intervals of each). Either side empty: (0, -1, 1)."""
    if n1 <= 0 or n2 <= 0:
        return (0.0, -1.0, 1.0)
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, confidence)
    l2, u2 = wilson(x2, n2, confidence)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return (d, max(-1.0, low), min(1.0, high))


def newcombe_p_value(x1: float, n1: float, x2: float, n2: float, null: float = 0.0) -> float:
    """The two-sided p-value of "p1 - p2 = null" (0: "p1 = p2") that goes with Newcombe's
    interval: one minus the largest confidence whose interval (:func:`newcombe`) still
    leaves out ``null``, found by bisection (the interval and the test are then one
    method: the 95% interval leaves out ``null`` exactly when p < 0.05). 1 when the
    difference is ``null``, or either side empty."""
    if n1 <= 0 or n2 <= 0:
        return 1.0
    d = x1 / n1 - x2 / n2
    if d == null:
        return 1.0

    def excludes(confidence: float) -> bool:
        _, low, high = newcombe(x1, n1, x2, n2, confidence)
        return low > null if d > null else high < null

    lo, hi = 1e-12, 1 - 1e-15  # confidences: lo's interval leaves 0 out (it has almost no width)
    if excludes(hi):
        return 1 - hi
    if not excludes(lo):
        return 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if excludes(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo < 1e-15:
            break
    return min(1.0, 1 - (lo + hi) / 2)


# ---------------------------------------------------------------- incomplete gamma and beta


def gamma_q(a: float, x: float) -> float:
    """The regularized upper incomplete gamma function Q(a, x) = Gamma(a, x) / Gamma(a)
    (a series below a + 1, Lentz's continued fraction above)."""
    if a <= 0:
        raise ValueError(f"a must be positive, not {a}")
    if x <= 0:
        return 1.0
    log_front = -x + a * math.log(x) - math.lgamma(a)
    if x < a + 1:  # P by its series, Q = 1 - P
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * _EPS:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPS:
            break
    return math.exp(log_front) * h


def chi_square_sf(statistic: float, df: int) -> float:
    """P(X >= statistic) for X chi-square with ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be at least 1, not {df}")
    return gamma_q(df / 2, statistic / 2)


def chi_square_quantile(p: float, df: int) -> float:
    """The x with P(X <= x) = p for X chi-square with ``df`` degrees of freedom (bisection)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a probability strictly between 0 and 1, not {p}")
    lo, hi = 0.0, max(1.0, float(df))
    while 1 - chi_square_sf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if 1 - chi_square_sf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * hi:
            break
    return (lo + hi) / 2


def _beta_cf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1, a - 1
    c = 1.0
    d = 1 - qab * x / qap
    d = 1 / (tiny if abs(d) < tiny else d)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1 + aa * d
        d = 1 / (tiny if abs(d) < tiny else d)
        c = 1 + aa / c
        c = tiny if abs(c) < tiny else c
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1 + aa * d
        d = 1 / (tiny if abs(d) < tiny else d)
        c = 1 + aa / c
        c = tiny if abs(c) < tiny else c
        delta = d * c
        h *= delta
        if abs(delta - 1) < _EPS:
            break
    return h


def _beta_i(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _beta_cf(a, b, x) / a
    return 1 - front * _beta_cf(b, a, 1 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T <= t) for Student's T with ``df`` degrees of freedom."""
    tail = 0.5 * _beta_i(df / 2, 0.5, df / (df + t * t))
    return 1 - tail if t > 0 else tail


@functools.lru_cache(maxsize=256)
def t_quantile(p: float, df: float) -> float:
    """The t with P(T <= t) = p for Student's T with ``df`` degrees of freedom (bisection)."""
    if not 0.0 < p < 1.0:
        raise ValueError(f"a probability strictly between 0 and 1, not {p}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1 - p, df)
    lo, hi = 0.0, max(2.0, normal_quantile(p) * 2)
    while t_cdf(hi, df) < p:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * hi:
            break
    return (lo + hi) / 2


# ---------------------------------------------------------------- means and tests


def mean_interval(
    n: int, total: float, total_sq: float, confidence: float = 0.95, *, normal: bool = False
) -> tuple[float, float, float]:
    """(mean, low, high) of ``n`` values given their sum and sum of squares: Student's t
    with n - 1 degrees of freedom (or the normal, with ``normal``). Fewer than two
    values: the mean (or 0) with an interval of no width."""
    if n <= 0:
        return (0.0, 0.0, 0.0)
    mean = total / n
    if n < 2:
        return (mean, mean, mean)
    var = max(0.0, (n * total_sq - total * total) / (n * (n - 1)))
    q = normal_quantile(0.5 + confidence / 2) if normal else t_quantile(0.5 + confidence / 2, n - 1)
    half = q * math.sqrt(var / n)
    return (mean, mean - half, mean + half)


def chi_square_uniform(observed: Sequence[float]) -> tuple[float, int, float]:
    """Pearson's test that every cell is equally likely: (statistic, degrees of
    freedom, p-value). Counts may be fractional (shared wins). Nothing observed, or
    one cell: (0, df, 1)."""
    k = len(observed)
    total = sum(observed)
    df = max(1, k - 1)
    if k < 2 or total <= 0:
        return (0.0, df, 1.0)
    expected = total / k
    stat = sum((o - expected) ** 2 for o in observed) / expected
    return (stat, df, chi_square_sf(stat, df))


def holm(pvalues: Sequence[float], alpha: float = 0.05) -> list[tuple[float, bool]]:
    """Holm's step-down correction: per p-value (in the order given), its adjusted
    p-value and whether it is rejected at ``alpha`` with the others."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return [(a, a <= alpha) for a in adjusted]


# ---------------------------------------------------------------- the game as the unit


class Moments:
    """Per-game vectors of integers, counted as exact sums: the number of games, the sum
    of each component and of each product of two components. Merging adds them, so
    moments of chunks merge in any order into the same figures."""

    __slots__ = ("n", "total", "products")

    def __init__(
        self, width: int, n: int = 0, total: Sequence[int] | None = None, products: Sequence[int] | None = None
    ):
        self.n = n
        #: per component, the sum over games
        self.total = list(total) if total is not None else [0] * width
        #: per pair of components (row-major, ``width`` x ``width``), the sum over games of their product
        self.products = list(products) if products is not None else [0] * (width * width)

    @property
    def width(self) -> int:
        return len(self.total)

    def add_sums(self, n: int, total: Sequence[int], products: Sequence[int]) -> None:
        """Add ``n`` games given by their sums (``products`` row-major)."""
        self.n += n
        self.total = [a + b for a, b in zip(self.total, total)]
        self.products = [a + b for a, b in zip(self.products, products)]

    def merge(self, other: Moments) -> None:
        self.add_sums(other.n, other.total, other.products)

    def means(self) -> list[Fraction]:
        """Per component, its mean over the games (exact)."""
        return [Fraction(t, self.n) if self.n else Fraction(0) for t in self.total]

    def covariance(self) -> list[list[Fraction]]:
        """The sample covariance of the components (n - 1 in the denominator; 0 below two games)."""
        n, m, t = self.n, self.width, self.total
        if n < 2:
            return [[Fraction(0)] * m for _ in range(m)]
        return [[Fraction(n * self.products[i * m + j] - t[i] * t[j], n * (n - 1)) for j in range(m)] for i in range(m)]

    def state(self) -> tuple:
        return (self.n, tuple(self.total), tuple(self.products))


def delta_variance(gradient: Sequence[Fraction | float], moments: Moments) -> Fraction | float:
    """The delta method's variance of f(means of the per-game vectors): g' S g / n, with
    g the gradient of f at the means and S the games' sample covariance (exact when the
    gradient is made of fractions; 0 with no games)."""
    n = moments.n
    if not n:
        return Fraction(0)
    cov = moments.covariance()
    used = [i for i, g in enumerate(gradient) if g]
    return sum((gradient[i] * cov[i][j] * gradient[j] for i in used for j in used), Fraction(0)) / n


def wald(
    estimate: Fraction | float, variance: Fraction | float, confidence: float = 0.95
) -> tuple[float, float, float, float]:
    """(estimate, low, high, p): the Wald interval estimate -+ z se and the two-sided
    p-value of "it is 0" from the same z (one method for both). With no spread (variance
    0): an interval of no width, p 1 when the estimate is 0 and 0 otherwise."""
    x = float(estimate)
    if variance <= 0:
        return (x, x, x, 1.0 if x == 0 else 0.0)
    se = math.sqrt(variance)
    z = _z(confidence)
    return (x, x - z * se, x + z * se, min(1.0, 2 * normal_cdf(-abs(x) / se)))


def mover(
    p1: float, interval1: tuple[float, float], p0: float, interval0: tuple[float, float], correlation: float = 0.0
) -> tuple[float, float, float]:
    """The difference p1 - p0 and its interval by the method of variance estimates
    recovery (Newcombe's method 10 when ``correlation`` is 0; Zou's form for two
    correlated estimates otherwise), from each estimate's own interval."""
    d = p1 - p0
    a, b = p1 - interval1[0], interval0[1] - p0  # how far each limit lies from its estimate
    c, e = interval1[1] - p1, p0 - interval0[0]
    low = d - math.sqrt(max(0.0, a * a + b * b - 2 * correlation * a * b))
    high = d + math.sqrt(max(0.0, c * c + e * e - 2 * correlation * c * e))
    return (d, max(-1.0, low), min(1.0, high))


def mantel_haenszel(
    strata: Sequence[tuple[Fraction | float, float, Fraction | float, float]],
    *,
    add: float = 0.0,
) -> tuple[float, float] | None:
    """The Mantel-Haenszel risk difference over ``strata`` of (x1, n1, x0, n0) -- successes
    and trials of the exposed, then of the others (successes may be fractional) -- and
    its variance by Sato's estimator (Greenland and Robins' dually consistent form: sound
    with few large strata and with many small ones). Strata with an empty side carry no
    weight; None when none has both sides.

    ``add``: successes, and as many failures, added to each side, shared out over the
    strata with both sides (Agresti and Caffo's adjustment is ``add=1``): a side of a
    few trials all won or all lost then no longer has a variance of 0."""
    used_strata = [(x1, n1, x0, n0) for x1, n1, x0, n0 in strata if n1 > 0 and n0 > 0]
    if not used_strata:
        return None
    share = add / len(used_strata)
    num = den = p_sum = q_sum = 0.0
    for x1, n1, x0, n0 in used_strata:
        n1, n0 = n1 + 2 * share, n0 + 2 * share
        total = n1 + n0
        a, c = float(x1) + share, float(x0) + share
        num += (a * n0 - c * n1) / total
        den += n1 * n0 / total
        p_sum += (n1 * n1 * c - n0 * n0 * a + n1 * n0 * (n0 - n1) / 2) / (total * total)
        q_sum += (a * (n0 - c) + c * (n1 - a)) / (2 * total)
    rd = num / den
    return rd, max(0.0, (rd * p_sum + q_sum) / (den * den))


def delta_wald(
    estimate: Fraction | float, gradient: Sequence[Fraction | float], moments: Moments, confidence: float = 0.95
) -> tuple[float, float, float, float]:
    """(estimate, low, high, p) of a figure f(means of the per-game vectors), the game as
    the unit: :func:`wald` with the variance of :func:`delta_variance`."""
    return wald(estimate, delta_variance(gradient, moments), confidence)
