"""The engine's random streams, compiled: the same numbers, draw for draw.

The reference engine seeds CPython's generator (MT19937) with integers and draws
``random()`` floats and ``getrandbits`` words from it; seeds for sub-streams come
from :func:`ruledraft.engine.state.derive_seed` (splitmix64 over parts). These
functions do the same inside compiled code, so a kernel game and a reference game
with one seed deal the same cards and make the same random choices:

* :func:`mt_seed`: ``random.Random(n)`` for a whole number ``0 <= n < 2**64``
  (CPython's ``init_by_array`` over the 32-bit words of ``n``, low word first);
* :func:`mt_random`: ``Random.random()`` (53 bits from two words);
* :func:`mt_randbelow`: ``Random._randbelow(n)`` (``choice``): ``getrandbits(k)``
  tries, ``k = n.bit_length()``;
* :func:`derive_seed1` .. :func:`derive_seed3`: ``derive_seed(seed, *parts)``.

A state is a ``uint32`` array of 625 entries: the 624 words, then the position.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

N = 624
M = 397
MATRIX_A = np.uint32(0x9908B0DF)
UPPER = np.uint32(0x80000000)
LOWER = np.uint32(0x7FFFFFFF)


@njit(cache=True, inline="always")
def _init_genrand(mt: np.ndarray, s: np.uint32) -> None:
    mt[0] = s
    for i in range(1, N):
        prev = np.uint64(mt[i - 1])
        mt[i] = np.uint32(
            (np.uint64(1812433253) * (prev ^ (prev >> np.uint64(30))) + np.uint64(i)) & np.uint64(0xFFFFFFFF)
        )
    mt[N] = N


@njit(cache=True)
def mt_seed(mt: np.ndarray, seed: np.uint64) -> None:
    """Seed ``mt`` as ``random.Random(seed)`` does (``seed`` below 2**64)."""
    lo = np.uint32(seed & np.uint64(0xFFFFFFFF))
    hi = np.uint32(seed >> np.uint64(32))
    key = np.empty(2, np.uint64)
    key[0] = np.uint64(lo)
    key[1] = np.uint64(hi)
    key_length = 2 if hi != 0 else 1
    _init_genrand(mt, np.uint32(19650218))
    i = 1
    j = 0
    k = N if N > key_length else key_length
    mask = np.uint64(0xFFFFFFFF)
    while k > 0:
        prev = np.uint64(mt[i - 1])
        v = (np.uint64(mt[i]) ^ ((prev ^ (prev >> np.uint64(30))) * np.uint64(1664525))) + key[j] + np.uint64(j)
        mt[i] = np.uint32(v & mask)
        i += 1
        j += 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
        if j >= key_length:
            j = 0
        k -= 1
    k = N - 1
    while k > 0:
        prev = np.uint64(mt[i - 1])
        v = (np.uint64(mt[i]) ^ ((prev ^ (prev >> np.uint64(30))) * np.uint64(1566083941))) - np.uint64(i)
        mt[i] = np.uint32(v & mask)
        i += 1
        if i >= N:
            mt[0] = mt[N - 1]
            i = 1
        k -= 1
    mt[0] = np.uint32(0x80000000)
    mt[N] = N


@njit(cache=True)
def _twist(mt: np.ndarray) -> None:
    for kk in range(N - M):
        y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER)
        mt[kk] = mt[kk + M] ^ (y >> np.uint32(1)) ^ (MATRIX_A if y & np.uint32(1) else np.uint32(0))
    for kk in range(N - M, N - 1):
        y = (mt[kk] & UPPER) | (mt[kk + 1] & LOWER)
        mt[kk] = mt[kk + (M - N)] ^ (y >> np.uint32(1)) ^ (MATRIX_A if y & np.uint32(1) else np.uint32(0))
    y = (mt[N - 1] & UPPER) | (mt[0] & LOWER)
    mt[N - 1] = mt[M - 1] ^ (y >> np.uint32(1)) ^ (MATRIX_A if y & np.uint32(1) else np.uint32(0))
    mt[N] = 0


@njit(cache=True, inline="always")
def mt_uint32(mt: np.ndarray) -> Any:  # an np.uint32
    """The next 32-bit word (``genrand_uint32``)."""
    if mt[N] >= N:
        _twist(mt)
    y = mt[mt[N]]
    mt[N] += np.uint32(1)
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return np.uint32(y)


@njit(cache=True, inline="always")
def mt_random(mt: np.ndarray) -> float:
    """``Random.random()``: a float in [0, 1) from 53 random bits."""
    a = mt_uint32(mt) >> np.uint32(5)
    b = mt_uint32(mt) >> np.uint32(6)
    return (float(a) * 67108864.0 + float(b)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def mt_randbelow(mt: np.ndarray, n: int) -> int:
    """``Random._randbelow(n)`` for ``1 <= n < 2**32`` (what ``choice`` draws)."""
    k = 0
    m = n
    while m:
        k += 1
        m >>= 1
    shift = np.uint32(32 - k)
    r = int(mt_uint32(mt) >> shift)
    while r >= n:
        r = int(mt_uint32(mt) >> shift)
    return r


@njit(cache=True, inline="always")
def _mix(x: np.uint64, p: np.uint64) -> Any:  # an np.uint64
    x = x + np.uint64(0x9E3779B97F4A7C15) + p
    z = x
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return np.uint64(z ^ (z >> np.uint64(31)))


@njit(cache=True)
def derive_seed1(seed: np.uint64, a: np.uint64) -> Any:  # an np.uint64
    """``derive_seed(seed, a)``."""
    return _mix(np.uint64(seed), np.uint64(a))


@njit(cache=True)
def derive_seed2(seed: np.uint64, a: np.uint64, b: np.uint64) -> Any:  # an np.uint64
    """``derive_seed(seed, a, b)``."""
    return _mix(_mix(np.uint64(seed), np.uint64(a)), np.uint64(b))
