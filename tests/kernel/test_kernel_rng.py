"""The kernel's random streams are CPython's, draw for draw."""

from __future__ import annotations

import _random
import random

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from ruledraft.engine.state import derive_seed, shuffled  # noqa: E402
from ruledraft.kernel import rng  # noqa: E402

SEEDS = [0, 1, 12345, 2**32 - 1, 2**32, 2**53 - 1, 2**64 - 1, 0xDEADBEEFCAFEF00D]


@pytest.mark.parametrize("seed", SEEDS)
def test_random_floats_are_cpythons(seed):
    """mt_seed + mt_random give the floats _random.Random(seed).random() gives (two twists' worth)."""
    mt = np.zeros(625, np.uint32)
    rng.mt_seed(mt, np.uint64(seed))
    theirs = _random.Random(seed)
    assert [rng.mt_random(mt) for _ in range(1500)] == [theirs.random() for _ in range(1500)]


def test_streams_are_columns_seeded_side_by_side():
    """mt_seed_many seeds the first columns of a wider array, each as CPython's
    Random(seed) state (word for word, position 624), and leaves the others alone."""
    mts = np.full((625, len(SEEDS) + 3), 7, np.uint32)
    rng.mt_seed_many(mts, np.array(SEEDS, np.uint64))
    for t, seed in enumerate(SEEDS):
        assert tuple(int(x) for x in mts[:, t]) == random.Random(seed).getstate()[1]
    assert (mts[:, len(SEEDS) :] == 7).all()
    theirs = _random.Random(SEEDS[3])
    assert [rng.random_at(mts, 3) for _ in range(700)] == [theirs.random() for _ in range(700)]


@pytest.mark.parametrize("n", [3, 48, rng.MIN_COLUMNS + 5])
def test_an_array_of_streams_is_at_least_the_vector_loops_width_and_seeds_the_same(n):
    """new_streams(n) is zeros at least MIN_COLUMNS wide (the seeding's chains along a
    row run as vector instructions only with rows that far apart), and its first n
    columns seed as an array exactly n wide does, word for word."""
    assert rng.MIN_COLUMNS >= 64  # 48 columns seeded one chain at a time on the project's machine, 64 side by side
    seeds = np.array([(SEEDS * 20)[i] ^ i for i in range(n)], np.uint64)
    wide = rng.new_streams(n)
    assert wide.shape == (625, max(n, rng.MIN_COLUMNS)) and wide.dtype == np.uint32 and not wide.any()
    exact = np.zeros((625, n), np.uint32)
    rng.mt_seed_many(wide, seeds)
    rng.mt_seed_many(exact, seeds)
    assert (wide[:, :n] == exact).all() and not wide[:, n:].any()
    assert tuple(int(x) for x in wide[:, n - 1]) == random.Random(int(seeds[-1])).getstate()[1]


def test_the_kernels_njit_compiles_once_for_the_constants_a_caller_passes():
    """rng.njit compiles a function once for the constants a compiled caller passes (numba's njit: once each)."""
    import numba

    def add(x, flag):
        return x + 1 if flag else x

    ours, numbas = rng.njit(cache=False)(add), numba.njit(cache=False)(add)

    def caller(f):
        return numba.njit(cache=False)(lambda n: f(3, True) + f(4, True) + f(n, False))

    assert caller(ours)(5) == caller(numbas)(5) == 4 + 5 + 5
    assert [str(s) for s in ours.signatures] == ["(int64, bool)"]
    assert len(numbas.signatures) == 3


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_randbelow_is_what_choice_draws(seed):
    """mt_randbelow(n) equals random.Random(seed)._randbelow(n) over many n in a row."""
    mt = np.zeros(625, np.uint32)
    rng.mt_seed(mt, np.uint64(seed))
    theirs = random.Random(seed)
    ns = list(range(1, 400)) + [2**31, 2**32 - 1]
    assert [rng.mt_randbelow(mt, n) for n in ns] == [theirs._randbelow(n) for n in ns]


@pytest.mark.parametrize("seed", SEEDS)
def test_derived_seeds_are_the_engines(seed):
    """derive_seed1/2 equal engine.state.derive_seed for parts up to 64 bits."""
    for a in (0, 1, 0xB07, 2**63 + 5):
        assert int(rng.derive_seed1(np.uint64(seed), np.uint64(a))) == derive_seed(seed, a)
        assert int(rng.derive_seed2(np.uint64(seed), np.uint64(a), np.uint64(3))) == derive_seed(seed, a, 3)


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_shuffles_in_a_row_are_the_engines(seed):
    """shuffle_into deals what engine.state.shuffled deals from one stream, shuffle after
    shuffle across the twists (sizes that end a draw on the last word of a twist, and one
    sorted as floats)."""
    mts = np.zeros((625, 3), np.uint32)
    rng.mt_seed_many(mts, np.array([seed, seed + 1, seed + 2], np.uint64))
    theirs = _random.Random(seed + 1)
    for n in (108, 1, 203, 2, 311, 50, 312, 2049, 17):
        src = np.arange(1000, 1000 + n, dtype=np.int64) % 37  # repeated cards: a stable sort keeps their order
        out = np.full(n + 1, -1, np.int64)
        rng.shuffle_into(mts, 1, src, n, out, np.empty(2 * n + 257, np.uint64))
        assert out.tolist() == shuffled(src.tolist(), theirs) + [-1]


@pytest.mark.parametrize("seed", SEEDS[:4])
def test_keys_are_the_floats_bits(seed):
    """key_at is random() times 2**53, draw for draw, over three twists in a row."""
    mts = np.zeros((625, 1), np.uint32)
    rng.mt_seed_many(mts, np.array([seed], np.uint64))
    theirs = _random.Random(seed)
    assert [int(rng.key_at(mts, 0)) for _ in range(950)] == [int(theirs.random() * 2**53) for _ in range(950)]


def test_words_drawn_side_by_side_are_each_streams():
    """draw_words gives each stream's next words, past a twist, and leaves every stream
    where drawing them one by one would (the draws after them go on alike);
    shuffle_drawn_into deals from them what the engine's shuffle deals."""
    seeds = SEEDS[:5]
    mts = np.zeros((625, 7), np.uint32)
    rng.mt_seed_many(mts, np.array(seeds, np.uint64))
    words = np.zeros((2 * 700, 5), np.uint32)
    rng.draw_words(mts, 5, 2 * 700, words)
    src = np.arange(700, dtype=np.int64) % 23
    for b, seed in enumerate(seeds):
        theirs = _random.Random(seed)
        assert [int(w) for w in words[:, b]] == [theirs.getrandbits(32) for _ in range(2 * 700)]
        assert [rng.random_at(mts, b) for _ in range(300)] == [theirs.random() for _ in range(300)]
        out = np.zeros(700, np.int64)
        rng.shuffle_drawn_into(words, b, src, 700, out, np.empty(2 * 700 + 257, np.uint64))
        assert out.tolist() == shuffled(src.tolist(), _random.Random(seed))
