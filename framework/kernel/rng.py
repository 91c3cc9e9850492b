"""The engine's random streams, compiled: the same numbers, draw for draw.

The reference engine seeds CPython's generator (MT19937) with integers and draws
``random()`` floats and ``getrandbits`` words from it; seeds for sub-streams come
from :func:`ruledraft.engine.state.derive_seed` (splitmix64 over parts). These
functions do the same inside compiled code, so a kernel game and a reference game
with one seed deal the same cards and make the same random choices:

* :func:`mt_seed_many`: ``random.Random(n)`` for whole numbers ``0 <= n < 2**64``
  (CPython's ``init_by_array`` over the 32-bit words of ``n``, low word first);
* :func:`random_at`: ``Random.random()`` (53 bits from two words);
* :func:`shuffle_into`: the engine's shuffle (items sorted by a ``random()`` each);
  :func:`draw_words` draws the same words from streams at one position row by row,
  side by side, and :func:`shuffle_drawn_into` shuffles with them (the game loop's decks);
* :func:`randbelow_at`: ``Random._randbelow(n)`` (``choice``): ``getrandbits(k)``
  tries, ``k = n.bit_length()``;
* :func:`derive_seed1` .. :func:`derive_seed3`: ``derive_seed(seed, *parts)``.

A stream is a column of a 2-D array of ``uint32`` with 625 rows: the 624 words,
then the position. Word ``i`` of every stream lies in row ``i``, side by side:
seeding runs the streams' chains together along the rows and leaves the words where
they are drawn from (with a stream to a row, as before, the copy across cost more
than the chains). :func:`mt_seed`, :func:`mt_random` and :func:`mt_randbelow` take a
single stream (a 1-D array) for tests and one-off use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, TypeVar, cast

import numpy as np
from numba import njit as _numba_njit
from numba.core import config, cpu, types

# numba's compile flags compared quickly; inner functions made machine code only in their entry points;
# cached functions loaded without numba's registries; function ids that two processes never share (see each)
from ruledraft.kernel import numba_flags, numba_ids, numba_link, numba_load  # noqa: F401

#: numba's own inlining (of its IR, before LLVM's) of the hot small functions into their
#: callers: at its full optimisation level only. Inlining copies the callee's IR block by
#: block, and at the lower level the test suite compiles at it costs about a sixth of a
#: kernel's compile, for speed nobody measures there. The kernel modules' functions
#: marked ``inline="always"`` follow it too (codegen's njit).
INLINE: Literal["always", "never"] = "always" if int(getattr(config, "OPT", 3)) >= 3 else "never"

_F = TypeVar("_F", bound=Callable[..., Any])
#: whether numba's compile options include ``_nrt`` (its reference counting, on by default)
_HAS_NRT_OPTION = hasattr(cpu.CPUTargetOptions, "_nrt")
_unliteral: Callable[[Any], Any] = types.unliteral


def njit(*args: Any, **options: Any) -> Callable[[_F], _F]:
    """numba's ``njit``, but a compiled caller's constant arguments reach the function as
    their plain types. numba types a constant argument as a literal (``Literal[int](3)``)
    and compiles the function anew for each one it is called with: a card's effect that
    removes card 13 from a table, and another that removes 14, would compile
    ``fx_remove_newest`` twice, and a turn function called with ``t = 0`` once for the
    first turn and once for the others. One compile per plain signature instead (Master
    Menu's kernel at 3 players: 79 s -> 56 s at the suite's optimisation level); LLVM
    still sees the constants where it inlines (the games' speed measures the same).

    ``refcounts=False``: the function takes no reference on the arrays it is handed or
    views (numba's ``_nrt`` option; none where numba has no such option). Only for a
    function that makes no array and returns none: numba otherwise takes and gives back a
    reference on each array argument at every call, an atomic step of the processor each
    time (a random bot's pick of two cards: about 2% of a random game)."""
    if not options.pop("refcounts", True) and _HAS_NRT_OPTION:
        options["_nrt"] = False

    def make(f: _F) -> _F:
        dispatcher: Any = _numba_njit(*args, **options)(f)
        template = dispatcher.get_call_template

        def get_call_template(argtys: Any, kws: Any) -> Any:
            return template(tuple(map(_unliteral, argtys)), {k: _unliteral(v) for k, v in kws.items()})

        dispatcher.get_call_template = get_call_template
        return cast(_F, dispatcher)

    return make


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
    mt_seed_many(mt.reshape((N + 1, 1)), seeds)


@njit(cache=True)
def mt_seed_many(mts: np.ndarray, seeds: np.ndarray) -> None:
    """Seed the streams ``mts[:, t]`` with ``seeds[t]`` (see :func:`mt_seed`), for the
    first ``len(seeds)`` columns, side by side: each stream's seeding is a chain of some
    1,250 dependent steps; along the rows, the chains run together, 32-bit words (as
    CPython's), many to a vector instruction. The key word added at each step is the
    seed's low word, or at odd steps of a seed of two words its high word plus one:
    taken from a row per parity, the inner loop has no branch."""
    n = len(seeds)
    kj = np.empty((2, n), np.uint32)
    for t in range(n):
        seed = np.uint64(seeds[t])
        lo = np.uint32(seed & np.uint64(0xFFFFFFFF))
        hi = np.uint32(seed >> np.uint64(32))
        kj[0, t] = lo
        kj[1, t] = hi + np.uint32(1) if hi != 0 else lo
    # the first N - 1 steps read the words init_genrand left, BASE (the same in every
    # stream), and nothing yet written but the word before: no copy of BASE made first
    for t in range(n):
        mts[0, t] = BASE[0]
    for i in range(1, N):
        p = (i - 1) & 1
        b = BASE[i]
        for t in range(n):
            prev = mts[i - 1, t]
            mts[i, t] = (b ^ ((prev ^ (prev >> np.uint32(30))) * np.uint32(1664525))) + kj[p, t]
    for t in range(n):  # the wrap, then step N (its key word at the odd row)
        mts[0, t] = mts[N - 1, t]
        prev = mts[0, t]
        mts[1, t] = (mts[1, t] ^ ((prev ^ (prev >> np.uint32(30))) * np.uint32(1664525))) + kj[1, t]
    i = 2
    for _ in range(N - 1):
        ii = np.uint32(i)
        for t in range(n):
            prev = mts[i - 1, t]
            mts[i, t] = (mts[i, t] ^ ((prev ^ (prev >> np.uint32(30))) * np.uint32(1566083941))) - ii
        i += 1
        if i >= N:
            for t in range(n):
                mts[0, t] = mts[N - 1, t]
            i = 1
    for t in range(n):
        mts[0, t] = np.uint32(0x80000000)
        mts[N, t] = N


#: the fewest columns an array of streams is made with (:func:`new_streams`). The
#: chains :func:`mt_seed_many` runs along a row are vector instructions only where the
#: row it writes lies far enough from the row it reads: the compiler checks their
#: distance at run time against the words its vector loop takes at once, and below it
#: runs the chains one at a time. On this project's 2-core machine 64 columns (256
#: bytes) were enough, 48 were not (the 16 two-player games of a batch, 3 streams
#: each): seeding them took 27.9 us, 10.3 us in an array 64 or 128 columns wide. 128
#: leaves room for processors whose vectors are twice as wide; the columns past the
#: streams in use are never touched.
MIN_COLUMNS = 128


@njit(cache=True)
def new_streams(n: int) -> np.ndarray:
    """An array for ``n`` streams (zeros, to be seeded by :func:`mt_seed_many`), at
    least :data:`MIN_COLUMNS` wide."""
    return np.zeros((N + 1, max(n, MIN_COLUMNS)), np.uint32)


# Streams are columns of one 2-D array and are named by their column: a column taken
# as an array of its own in the game loop would cost a reference count each time.


@njit(cache=True, inline=INLINE)
def _twisted(mts: np.ndarray, t: int, kk: int, now: Any, after: Any) -> Any:  # an np.uint32
    """Word ``kk`` of stream ``mts[:, t]`` twisted (untempered), from its old value
    ``now`` and the old value ``after`` of the word after it; stored in its place."""
    far = kk + M if kk < N - M else kk + M - N
    y = (now & UPPER) | (after & LOWER)
    y = mts[far, t] ^ (y >> np.uint32(1)) ^ (MATRIX_A if y & np.uint32(1) else np.uint32(0))
    mts[kk, t] = y
    return y


@njit(cache=True, inline=INLINE)
def _tempered(y: Any) -> Any:  # an np.uint32
    """A twisted word ``y`` tempered: the word ``genrand_uint32`` returns."""
    y ^= y >> np.uint32(11)
    y ^= (y << np.uint32(7)) & np.uint32(0x9D2C5680)
    y ^= (y << np.uint32(15)) & np.uint32(0xEFC60000)
    y ^= y >> np.uint32(18)
    return np.uint32(y)


@njit(cache=True, inline=INLINE)
def uint32_at(mts: np.ndarray, t: int) -> Any:  # an np.uint32
    """The next 32-bit word (``genrand_uint32``) of stream ``mts[:, t]``.

    The twist is done word by word as the words are drawn, not 624 at once: word
    ``kk`` of a twist reads words ``kk + 1`` and ``kk + 397`` as they were before it
    (those not yet redone) and, from ``kk = 227`` on, word ``kk - 227`` as it is after
    it (redone already): drawing in order computes exactly what the whole twist would,
    and a game draws far fewer than 624 words from most of its streams."""
    return _tempered(_untempered_at(mts, t))


@njit(cache=True, inline=INLINE)
def _untempered_at(mts: np.ndarray, t: int) -> Any:  # an np.uint32
    """The next word of stream ``mts[:, t]`` as the twist leaves it (``uint32_at`` tempers it)."""
    kk = mts[N, t]
    if kk >= N:
        kk = 0
    mts[N, t] = kk + 1
    return _twisted(mts, t, kk, mts[kk, t], mts[kk + 1 if kk + 1 < N else 0, t])


@njit(cache=True, inline=INLINE)
def pair_at(mts: np.ndarray, t: int) -> tuple[Any, Any]:  # two np.uint32
    """The next two words of stream ``mts[:, t]`` (``uint32_at`` twice, what every
    ``random()`` takes): the position read and written once, and the second word's
    old value, which the first word's twist reads, loaded once."""
    kk = mts[N, t]
    if kk >= N:
        kk = 0
    if kk + 2 < N:
        w0 = mts[kk, t]
        w1 = mts[kk + 1, t]
        y = _twisted(mts, t, kk, w0, w1)
        z = _twisted(mts, t, kk + 1, w1, mts[kk + 2, t])
        mts[N, t] = kk + 2
    else:  # the last words of a twist: the next ones wrap to the start
        y = _untempered_at(mts, t)
        z = _untempered_at(mts, t)
    return _tempered(y), _tempered(z)


@njit(cache=True, inline=INLINE)
def random_at(mts: np.ndarray, t: int) -> float:
    """``Random.random()`` of stream ``mts[:, t]``: a float in [0, 1) from 53 random bits."""
    a, b = pair_at(mts, t)
    return (float(a >> np.uint32(5)) * 67108864.0 + float(b >> np.uint32(6))) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def randbelow_at(mts: np.ndarray, t: int, n: int) -> int:
    """``Random._randbelow(n)`` of stream ``mts[:, t]``, ``1 <= n < 2**32`` (what ``choice`` draws)."""
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


@njit(cache=True, inline=INLINE)
def key_at(mts: np.ndarray, t: int) -> Any:  # an np.uint64
    """The 53 bits ``Random.random()`` of stream ``mts[:, t]`` is made of, as an integer
    (``random_at`` is this over 2**53: the two order alike)."""
    a, b = pair_at(mts, t)
    return _key_of(a, b)


@njit(cache=True, inline=INLINE)
def _key_of(a: Any, b: Any) -> Any:  # two np.uint32 -> an np.uint64
    """The 53 bits ``random()`` makes of its two words ``a`` and ``b``, as an integer."""
    return (np.uint64(a >> np.uint32(5)) << np.uint64(26)) | np.uint64(b >> np.uint32(6))


#: how many items :func:`shuffle_into` sorts by packed keys (an index in the 11 bits under a 53-bit key)
PACKED = 2048


@njit(cache=True)
def shuffle_into(mts: np.ndarray, t: int, src: np.ndarray, n: int, out: np.ndarray, scratch: np.ndarray) -> None:
    """``out[:n]`` = ``src[:n]`` in the order the engine's shuffle gives with stream
    ``mts[:, t]``: ``sorted(range(n), key=[random() for _ in range(n)].__getitem__)``
    (stable: equal keys keep their order). ``scratch``: ``2 * n + 257`` uint64 of room."""
    if n > PACKED:  # a deck this large: sort the floats themselves
        keys = np.empty(n, np.float64)
        for i in range(n):
            keys[i] = random_at(mts, t)
        order = np.argsort(keys, kind="mergesort")
        for i in range(n):
            out[i] = src[order[i]]
        return
    for i in range(n):
        scratch[i] = (key_at(mts, t) << np.uint64(11)) | np.uint64(i)
    _sort_packed(scratch, src, n, out)


@njit(cache=True)
def shuffle_drawn_into(
    words: np.ndarray, b: int, src: np.ndarray, n: int, out: np.ndarray, scratch: np.ndarray
) -> None:
    """:func:`shuffle_into` from the ``2 * n`` words its stream would give, drawn before
    (``words[:2 * n, b]``, by :func:`draw_words`); ``n`` at most :data:`PACKED`."""
    for i in range(n):
        scratch[i] = (_key_of(words[2 * i, b], words[2 * i + 1, b]) << np.uint64(11)) | np.uint64(i)
    _sort_packed(scratch, src, n, out)


@njit(cache=True, inline=INLINE)
def _sort_packed(scratch: np.ndarray, src: np.ndarray, n: int, out: np.ndarray) -> None:
    """``out[:n]`` = ``src`` in the order of the keys ``scratch[:n]`` (``random()``'s 53
    bits, the item's index in the 11 bits below them: they sort as the floats do, ties
    by index, what a stable sort keeps), so the sort moves plain integers: a counting
    pass on the top 8 bits (uniform keys: about one item a bucket), then an insertion
    sort, which finds almost nothing left to do."""
    packed = scratch[:n]
    done = scratch[n : 2 * n]
    cnt = scratch[2 * n : 2 * n + 257]
    cnt[:] = 0
    for i in range(n):
        cnt[(packed[i] >> np.uint64(56)) + np.uint64(1)] += np.uint64(1)
    for j in range(256):
        cnt[j + 1] += cnt[j]
    for i in range(n):
        k = packed[i]
        b = k >> np.uint64(56)
        done[cnt[b]] = k
        cnt[b] += np.uint64(1)
    for i in range(1, n):
        k = done[i]
        j = i - 1
        while j >= 0 and done[j] > k:
            done[j + 1] = done[j]
            j -= 1
        done[j + 1] = k
    for i in range(n):
        out[i] = src[done[i] & np.uint64(PACKED - 1)]


@njit(cache=True)
def draw_words(mts: np.ndarray, n: int, count: int, words: np.ndarray) -> None:
    """The next ``count`` words of each of the streams ``mts[:, :n]``, which stand at one
    position (as seeded together), into ``words[:count, :n]``: what ``uint32_at`` draws
    from each, stream after stream, drawn row by row, the streams side by side (the
    words of a twist read only those at the same rows of their own stream)."""
    kk = np.int64(mts[N, 0])
    for i in range(count):
        if kk >= N:
            kk = 0
        nxt = kk + 1 if kk + 1 < N else 0
        for t in range(n):
            words[i, t] = _tempered(_twisted(mts, t, kk, mts[kk, t], mts[nxt, t]))
        kk += 1
    for t in range(n):
        mts[N, t] = kk


@njit(cache=True)
def mt_random(mt: np.ndarray) -> float:
    """``Random.random()`` of the single stream ``mt``."""
    return random_at(mt.reshape((N + 1, 1)), 0)


@njit(cache=True)
def mt_randbelow(mt: np.ndarray, n: int) -> int:
    """``Random._randbelow(n)`` of the single stream ``mt``."""
    return randbelow_at(mt.reshape((N + 1, 1)), 0, n)


@njit(cache=True, inline=INLINE)
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
