"""The engine's shuffle (ruledraft.engine.state.shuffled) draws its random stream as
the sort by ``rng.random()`` keys it was defined as: the same order of cards and the
same draws, so every seed deals the games it always dealt."""

from __future__ import annotations

import _random
import random

from hypothesis import given
from hypothesis import strategies as st

from ruledraft.engine.state import derive_seed, shuffled

SEEDS = st.integers(min_value=0, max_value=2**64 - 1)


def by_random_keys(cards: list[int], rng: _random.Random) -> list[int]:
    """The definition: a stable sort of the cards by one ``rng.random()`` each, in card order."""
    return sorted(cards, key=lambda _: rng.random())


@given(st.lists(st.integers(min_value=0, max_value=20), max_size=120), SEEDS)
def test_shuffled_is_the_sort_by_random_keys(cards, seed):
    """Same order as sorting by one random key per card, and the stream left where that leaves it."""
    mine, reference = _random.Random(seed), _random.Random(seed)
    assert shuffled(cards, mine) == by_random_keys(cards, reference)
    assert mine.random() == reference.random()


@given(st.lists(st.integers(min_value=0, max_value=5), max_size=40), SEEDS)
def test_shuffled_takes_any_iterable_and_leaves_it_alone(cards, seed):
    """A tuple or a generator is shuffled like the list; the list given is not changed."""
    before = cards[:]
    out = shuffled(cards, _random.Random(seed))
    assert cards == before
    assert shuffled(tuple(cards), _random.Random(seed)) == out
    assert shuffled(iter(cards), _random.Random(seed)) == out
    assert sorted(out) == sorted(cards)


def test_shuffled_reads_a_subclass_generator():
    """``random.Random`` (the Python wrapper) gives the same shuffle as the C generator it wraps."""
    deck = [c % 9 for c in range(108)]
    for seed in range(20):
        s = derive_seed(seed, 0)
        assert shuffled(deck, random.Random(s)) == shuffled(deck, _random.Random(s))


def test_shuffled_deck_of_seed_zero_is_pinned():
    """Ten cards shuffled by seed 0's deck stream, as the engine has always shuffled them."""
    assert shuffled(list(range(10)), _random.Random(derive_seed(0, 0))) == [3, 5, 0, 4, 9, 7, 8, 2, 1, 6]
