"""compare's per-game values as columns: exact, and the same whether the kernel plays a
side's games (counted and valued a block at a time) or the reference engine does (game by game)."""

from __future__ import annotations

import math
from fractions import Fraction

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ruledraft.lab.columns import Column, combined
from ruledraft.lab.compare import Side, Sums, comparison, differences, pairing, play_chunk
from ruledraft.language.loading import load_ruleset

#: whole numbers past what int64 arithmetic holds, and small ones
numbers = st.one_of(st.integers(-50, 50), st.integers(-(2**70), 2**70))
fractions = st.builds(Fraction, numbers, st.integers(1, 60))


def of_values(values: list[Fraction]) -> Column:
    """The column of these per-game fractions, over their least common denominator."""
    common = math.lcm(*(v.denominator for v in values))
    return Column([int(v * common) for v in values], common)


@settings(max_examples=60, deadline=None)
@given(st.lists(fractions, min_size=1, max_size=12), st.data())
def test_columns_sum_and_subtract_as_the_fractions_do(values, data):
    """A column of per-game fractions sums, squares and differences exactly as the fractions one by one."""
    other = data.draw(st.lists(fractions, min_size=len(values), max_size=len(values)))
    a, b = of_values(values), of_values(other)
    assert a.values() == values
    total, squares = a.sums()
    assert total == sum(values) and squares == sum(v * v for v in values)
    diff = differences({"x": a}, {"x": b, "y": b})
    assert diff["x"].values() == [y - x for x, y in zip(values, other)]
    assert diff["y"].values() == other
    k = data.draw(st.integers(1, 7))
    assert combined([(1, a), (1, b)], divide=k).values() == [(x + y) / k for x, y in zip(values, other)]


def test_sums_of_columns_skip_a_figure_that_is_zero_in_every_game():
    """A figure 0 in every game adds no key; one whose values cancel keeps its squares."""
    sums = Sums()
    sums.add_columns(3, {"none": Column([0, 0, 0]), "cancel": Column([2, -2, 0], 3)})
    assert sums.n == 3 and "none" not in sums.total
    assert sums.total["cancel"] == 0 and sums.squares["cancel"] == Fraction(8, 9)


CASES = [
    # ruleset A, ruleset B, players, bots A, bots B, rotate
    # independent: the decks differ
    ("sushi-go", "sushi-go-soy-sauce", 2, ["random", "greedy"], ["random", "greedy"], False),
    # a race, the menu and special order
    ("sushi-go-party-dinner-for-two", None, 2, ["random", "greedy"], ["random"] * 2, False),
    # the spoon and the takeout box
    ("sushi-go-party-master-menu", None, 3, ["random"] * 3, ["first", "random", "random"], False),
    # a dummy, side A rotated
    ("sushi-go-two-player-dummy", None, 2, ["greedy", "random"], ["first", "random"], True),
]


@pytest.mark.parametrize(("ruleset_a", "ruleset_b", "players", "bots_a", "bots_b", "rotate"), CASES)
def test_a_chunk_on_the_kernel_counts_what_the_reference_engine_counts(
    ruleset_a, ruleset_b, players, bots_a, bots_b, rotate
):
    """play_chunk with both sides on the kernel (blocks valued in bulk) gives exactly the sums, pairs, card
    moments and comparison of the same games on the reference engine (valued game by game)."""
    rs_a = load_ruleset(ruleset_a)
    rs_b = load_ruleset(ruleset_b) if ruleset_b else rs_a
    a = Side(rs_a, players, bots_a, 11, label="A", engine="kernel")
    b = Side(rs_b, players, bots_b, 11, label="B", engine="kernel")
    paired, why = pairing(a, b, False)
    assert paired == (rs_a.catalogue.ids == rs_b.catalogue.ids)
    on_kernel = play_chunk(a, b, paired, 3, 40, rotate=rotate)
    ref_a, ref_b = attrs.evolve(a, engine="reference"), attrs.evolve(b, engine="reference")
    on_reference = play_chunk(ref_a, ref_b, paired, 3, 40, rotate=rotate)
    sums = [(on_kernel.sums_a, on_reference.sums_a), (on_kernel.sums_b, on_reference.sums_b)]
    if paired:
        sums.append((on_kernel.pairs, on_reference.pairs))
    for mine, theirs in sums:
        assert (mine.n, mine.total, mine.squares) == (theirs.n, theirs.total, theirs.squares)
        assert mine.n == 37 and mine.total
    assert on_kernel.cards.keys() == on_reference.cards.keys()
    assert bool(on_kernel.cards) == (paired or rotate)
    for cid, moments in on_kernel.cards.items():
        assert (moments.total, moments.products) == (on_reference.cards[cid].total, on_reference.cards[cid].products)
    assert comparison(a, b, on_kernel, why) == comparison(ref_a, ref_b, on_reference, why)


def test_a_side_on_the_kernel_pairs_with_a_side_on_the_reference_engine():
    """One side on the kernel, the other on the reference engine (a chunk on a process without the kernel): the
    pairs are those of both on the reference engine."""
    rs = load_ruleset("sushi-go-party-points-platter")
    a = Side(rs, 3, ["random"] * 3, 2, label="A", engine="kernel")
    b = Side(rs, 3, ["greedy", "random", "random"], 2, label="B", engine="reference")
    paired, why = pairing(a, b, False)
    mixed = play_chunk(a, b, paired, 0, 25)
    reference = play_chunk(attrs.evolve(a, engine="reference"), b, paired, 0, 25)
    assert (mixed.pairs.total, mixed.pairs.squares) == (reference.pairs.total, reference.pairs.squares)
    assert comparison(a, b, mixed, why) == comparison(a, b, reference, why)
