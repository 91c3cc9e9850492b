"""A figure's value in each game of a batch, exactly, as one array: the per-game values
``compare`` sums (and differences across its sides) without a fraction made per game.

A :class:`Column` holds integer numerators over one denominator shared by the batch's
games (an int64 array, or Python integers where a number could pass what an int64
holds). Its sums, of the values and of their squares, are exact fractions, so they add
up to what the games' own values, summed one by one, would give: the result never
depends on how the games were batched.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import attrs
import numpy as np

#: below this an int64 sum of numbers is safe (with room for one more addition)
_SAFE = 2**62


def _largest(numbers: Any) -> int:
    """The largest magnitude among ``numbers`` (0 for none)."""
    return (
        int(np.abs(numbers).max(initial=0)) if numbers.dtype != object else max(map(abs, numbers.tolist()), default=0)
    )


def exact(numbers: Any) -> Any:
    """``numbers`` (an array or a sequence of integers, of any shape) as an int64 array,
    or as Python integers where one of them is too large for int64 arithmetic; not
    integers (a float): :class:`TypeError`."""
    array = numbers if isinstance(numbers, np.ndarray) else np.array(numbers, dtype=object)
    if array.dtype.kind in "iub":
        return array.astype(np.int64, copy=False)
    if array.dtype != object or not all(isinstance(x, (int, np.integer)) for x in array.flat):
        raise TypeError(f"exact values are integers, not {array.dtype}")
    listed = [int(x) for x in array.flat]
    if max(map(abs, listed), default=0) < _SAFE:
        return np.array(listed, dtype=np.int64).reshape(array.shape)
    out = np.empty(len(listed), dtype=object)
    out[:] = listed
    return out.reshape(array.shape)


def times(numbers: Any, k: int) -> Any:
    """``numbers * k``, exactly."""
    if k == 1:
        return numbers
    if numbers.dtype != object and _largest(numbers) * k < _SAFE:
        return numbers * k
    return numbers.astype(object) * k


def plus(a: Any, b: Any) -> Any:
    """``a + b``, exactly."""
    if a.dtype != object and b.dtype != object and _largest(a) + _largest(b) < _SAFE:
        return a + b
    return a.astype(object) + b.astype(object)


@attrs.frozen(eq=False)
class Column:
    """One figure's value in each game: ``numerators[g] / denominator`` (compared by
    :meth:`values`, not as arrays)."""

    numerators: Any = attrs.field(converter=exact)
    denominator: int = 1

    def __len__(self) -> int:
        return len(self.numerators)

    def over(self, denominator: int) -> Any:
        """The numerators over ``denominator`` (a multiple of this column's)."""
        return times(self.numerators, denominator // self.denominator)

    def sums(self) -> tuple[int | Fraction, int | Fraction]:
        """The sum of the values and the sum of their squares, exactly."""
        numbers = self.numerators
        m = _largest(numbers)
        if numbers.dtype != object and m * m * max(len(numbers), 1) < _SAFE:
            total, squares = int(numbers.sum()), int((numbers * numbers).sum())
        else:
            listed = [int(x) for x in numbers.tolist()]
            total, squares = sum(listed), sum(x * x for x in listed)
        d = self.denominator
        return (total, squares) if d == 1 else (Fraction(total, d), Fraction(squares, d * d))

    def values(self) -> list[int | Fraction]:
        """Each game's value (an integer where it is whole)."""
        d = self.denominator
        return [x if d == 1 else Fraction(x, d) for x in map(int, self.numerators.tolist())]


def zeros(games: int) -> Column:
    """A value of 0 in each of ``games`` games."""
    return Column(np.zeros(games, np.int64))


def combined(terms: Sequence[tuple[int, Column]], divide: int = 1) -> Column:
    """The sum of ``sign * column`` over ``terms`` (the same games), divided by
    ``divide``, exactly: the columns brought to their least common denominator."""
    common = math.lcm(*(c.denominator for _, c in terms))
    total: Any = None
    for sign, c in terms:
        x = c.over(common)
        x = x if sign > 0 else -x
        total = x if total is None else plus(total, x)
    return Column(total, common * divide)
