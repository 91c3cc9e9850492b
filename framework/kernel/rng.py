"""The engine's random streams, compiled: the same numbers, draw for draw.

The reference engine seeds CPython's generator (MT19937) with integers and draws
``random()`` floats and ``getrandbits`` words from it; seeds for sub-streams come
from :func:`ruledraft.engine.state.derive_seed` (splitmix64 over parts). These
functions do the same inside compiled code, so a kernel game and a reference game
with one seed deal the same cards and make the same random choices:

* :func:`mt_seed_many`: ``random.Random(n)`` for whole numbers ``0 <= n < 2**64``
  (CPython's ``init_by_array`` over the 32-bit words of ``n``, low word first);
* :func:`random_at`: ``Random.random()`` (53 bits from two words);
* :func:`randbelow_at`: ``Random._randbelow(n)`` (``choice``): ``getrandbits(k)``
  tries, ``k = n.bit_length()``;
* :func:`derive_seed1` .. :func:`derive_seed3`: ``derive_seed(seed, *parts)``.

A stream is a row of 625 ``uint32`` of a 2-D array: the 624 words, then the
position; :func:`mt_seed`, :func:`mt_random` and :func:`mt_randbelow` take a
single stream (a 1-D array) for tests and one-off use.
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


def _genrand_base() -> np.ndarray:
    """``init_genrand(19650218)``, where ``init_by_array`` starts for every seed: made once."""
    mt = [0] * N
    mt[0] = 19650218
    for i in range(1, N):
        prev = mt[i - 1]
        mt[i] = (1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF
    return np.array(mt, dtype=np.uint32)


BASE = _genrand_base()


@njit(cache=True)
def mt_seed(mt: np.ndarray, seed: np.uint64) -> None:
    """Seed ``mt`` as ``random.Random(seed)`` does (``seed`` below 2**64)."""
    seeds = np.empty(1, np.uint64)
    seeds[0] = seed
    mt_seed_many(mt.reshape((1, N + 1)), seeds)


@njit(cache=True)
def mt_seed_many(mts: np.ndarray, seeds: np.ndarray) -> None:
    """Seed the streams ``mts[t]`` with ``seeds[t]`` (see :func:`mt_seed`) side by side:
    each stream's seeding is a chain of some 1,250 dependent steps; laid out word by
    word across the streams, the chains run together (the processor overlaps them,
    several to a vector instruction)."""
    n = len(seeds)
    mask = np.uint64(0xFFFFFFFF)
    key0 = np.empty(n, np.uint64)
    key1 = np.empty(n, np.uint64)
    two = np.empty(n, np.uint64)  # 1 where the seed has two 32-bit words
    w = np.empty((N, n), np.uint64)  # word i of stream t at w[i, t]
    for t in range(n):
        seed = np.uint64(seeds[t])
        key0[t] = seed & mask
        key1[t] = seed >> np.uint64(32)
        two[t] = np.uint64(1) if key1[t] != 0 else np.uint64(0)
    for i in range(N):
        for t in range(n):
            w[i, t] = np.uint64(BASE[i])
    i = 1
    for step in range(N):  # k = max(N, key length) = N steps; the key word j alternates for two words
        odd = np.uint64(step & 1)
        for t in range(n):
            j = odd * two[t]
            k = key1[t] if j else key0[t]
            prev = w[i - 1, t]
            w[i, t] = ((w[i, t] ^ ((prev ^ (prev >> np.uint64(30))) * np.uint64(1664525))) + k + j) & mask
        i += 1
        if i >= N:
            for t in range(n):
                w[0, t] = w[N - 1, t]
            i = 1
    for _ in range(N - 1):
        ii = np.uint64(i)
        for t in range(n):
            prev = w[i - 1, t]
            w[i, t] = ((w[i, t] ^ ((prev ^ (prev >> np.uint64(30))) * np.uint64(1566083941))) - ii) & mask
        i += 1
        if i >= N:
            for t in range(n):
                w[0, t] = w[N - 1, t]
            i = 1
    for t in range(n):
        mts[t, 0] = np.uint32(0x80000000)
        for i in range(1, N):
            mts[t, i] = np.uint32(w[i, t])
        mts[t, N] = N


# Streams are rows of one 2-D array and are named by their row: a row taken as an
# array of its own in the game loop costs a reference count each time.


@njit(cache=True, inline="always")
def uint32_at(mts: np.ndarray, t: int) -> Any:  # an np.uint32
    """The next 32-bit word (``genrand_uint32``) of stream ``mts[t]``.

    The twist is done word by word as the words are drawn, not 624 at once: word
    ``kk`` of a twist reads words ``kk + 1`` and ``kk + 397`` as they were before it
    (those not yet redone) and, from ``kk = 227`` on, word ``kk - 227`` as it is after
    it (redone already): drawing in order computes exactly what the whole twist would,
    and a game draws far fewer than 624 words from most of its streams."""
    kk = mts[t, N]
    if kk >= N:
        kk = 0
    nxt = kk + 1 if kk + 1 < N else 0
    far = kk + M if kk < N - M else kk + M - N
    y = (mts[t, kk] & UPPER) | (mts[t, nxt] & LOWER)
    y = mts[t, far] ^ (y >> np.uint32(1)) ^ (MATRIX_A if y & np.uint32(1) else np.uint32(0))
    mts[t, kk] = y
    mts[t, N] = kk + 1
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return np.uint32(y)


@njit(cache=True, inline="always")
def random_at(mts: np.ndarray, t: int) -> float:
    """``Random.random()`` of stream ``mts[t]``: a float in [0, 1) from 53 random bits."""
    a = uint32_at(mts, t) >> np.uint32(5)
    b = uint32_at(mts, t) >> np.uint32(6)
    return (float(a) * 67108864.0 + float(b)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def randbelow_at(mts: np.ndarray, t: int, n: int) -> int:
    """``Random._randbelow(n)`` of stream ``mts[t]``, ``1 <= n < 2**32`` (what ``choice`` draws)."""
    k = 0
    m = n
    while m:
        k += 1
        m >>= 1
    shift = np.uint32(32 - k)
    r = int(uint32_at(mts, t) >> shift)
    while r >= n:
        r = int(uint32_at(mts, t) >> shift)
    return r


@njit(cache=True)
def mt_random(mt: np.ndarray) -> float:
    """``Random.random()`` of the single stream ``mt``."""
    return random_at(mt.reshape((1, N + 1)), 0)


@njit(cache=True)
def mt_randbelow(mt: np.ndarray, n: int) -> int:
    """``Random._randbelow(n)`` of the single stream ``mt``."""
    return randbelow_at(mt.reshape((1, N + 1)), 0, n)


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
