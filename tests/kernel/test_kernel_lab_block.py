"""A kernel's block folded at once (kernel.fold.lab_block) counts what the numpy fold counts."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

pytest.importorskip("numba")

from kernel_checks import kernel_blocks  # noqa: E402

from ruledraft.kernel import fold as kernel_fold  # noqa: E402
from ruledraft.lab import figures  # noqa: E402
from ruledraft.lab.figures import LabTally  # noqa: E402


def _blocks(ruleset_id: str, players: int, bots: list[str]):
    return kernel_blocks(ruleset_id, players, bots, 5, ((0, 256), (256, 30), (286, 900)))


@pytest.mark.parametrize("cards", [True, False])
@pytest.mark.parametrize(
    ("ruleset_id", "players", "bots"),
    [("sushi-go", 4, ["random"]), ("sushi-go", 2, ["greedy", "value"]), ("sushi-go-soy-sauce", 5, ["first", "random"])],
)
def test_block_fold_counts_what_the_numpy_fold_counts(ruleset_id, players, bots, cards, monkeypatch):
    """Blocks of 256 games or more go through lab_block (each block once, never refused
    here), the small one through the buffer; every count equals the numpy fold's."""
    game, blocks = _blocks(ruleset_id, players, bots)
    used: list[int] = []
    real = kernel_fold.lab_block

    def counted(*args):
        out = real(*args)
        used.append(int(out[0][0]))
        return out

    monkeypatch.setattr(kernel_fold, "lab_block", counted)
    lab = LabTally.for_game(game, cards)
    for block in blocks:
        lab.add_kernel_games(block)
    folded = lab.state()
    assert used == [1, 1]
    monkeypatch.setattr(figures, "_compiled_fold", lambda: None)
    reference = LabTally.for_game(game, cards)
    for block in blocks:
        reference.add_kernel_games(block)
    assert folded == reference.state()
    assert folded["games"] == 1186
    assert sum(sum(h.values()) for h in folded["scores"]) == 1186 * game.num_seats


def test_a_refused_block_is_folded_as_before(monkeypatch):
    """Where lab_block says a sum could pass an int64 (here: told so), the block is
    buffered and folded by the other folds: the same counts, nothing counted twice."""
    game, blocks = _blocks("sushi-go", 3, ["random"])
    real = kernel_fold.lab_block

    def refused(*args):
        out = real(*args)
        out[0][0] = 0
        return out

    lab = LabTally.for_game(game)
    for block in blocks:
        lab.add_kernel_games(block)
    expected = lab.state()
    monkeypatch.setattr(kernel_fold, "lab_block", refused)
    again = LabTally.for_game(game)
    for block in blocks:
        again.add_kernel_games(block)
    assert again.state() == expected
    assert again.state()["games"] == 1186


def test_blocks_sums_wait_for_the_flush_and_stop_short_of_an_int64(monkeypatch):
    """Blocks' sums are added together as arrays until a flush; where their bounds
    together would reach 2**62 (here: each block says 2**61), the sums so far are
    added to the tally's first: the same counts either way."""
    game, blocks = _blocks("sushi-go", 4, ["random"])
    real = kernel_fold.lab_block
    drained: list[int] = []
    real_add = LabTally._add_block_sums

    def big(*args):
        out = real(*args)
        out[0][5] = 2**61
        return out

    def add(self):
        if self._block_sums is not None:
            drained.append(int(self._block_sums.arrays[1].sum()) // game.num_seats)
        real_add(self)

    monkeypatch.setattr(LabTally, "_add_block_sums", add)
    lab = LabTally.for_game(game)
    for block in (blocks[0], blocks[2], blocks[0], blocks[2]):
        lab.add_kernel_games(block)
    together = lab.state()
    assert drained == [256 + 900 + 256 + 900]
    drained.clear()
    monkeypatch.setattr(kernel_fold, "lab_block", big)
    apart = LabTally.for_game(game)
    for block in (blocks[0], blocks[2], blocks[0], blocks[2]):
        apart.add_kernel_games(block)
    assert apart.state() == together
    assert drained == [256, 900, 256, 900]


def test_blocks_sums_travel_and_merge():
    """A tally holding blocks' sums not yet added pickles and merges with them."""
    game, blocks = _blocks("sushi-go", 3, ["random"])
    one, two, whole = LabTally.for_game(game), LabTally.for_game(game), LabTally.for_game(game)
    for block in blocks:
        whole.add_kernel_games(block)
    one.add_kernel_games(blocks[0])
    two.add_kernel_games(blocks[1])
    two.add_kernel_games(blocks[2])
    assert one._block_sums is not None and two._block_sums is not None
    one.merge(pickle.loads(pickle.dumps(two)))
    assert one.state() == whole.state()


def test_blocks_histograms_grow_either_way():
    """Totals below and above the columns so far widen the histograms: each total keeps
    its count; the games and the games tied, shared and with no winner add up."""
    import numpy as np

    def block(low: int, totals: list[int], margins: list[int]) -> tuple:
        scalars = np.array([1, low, 1, 2, 3, 10], np.int64)
        hist = np.array([totals], np.int64)
        return (scalars, hist, np.array(margins, np.int64), np.ones(1, np.int64))

    sums = figures._BlockSums(block(5, [1, 2, 3], [4]), 6)
    sums.add(block(2, [1, 0, 0, 0, 1], [1, 1, 1]), 2)
    sums.add(block(9, [7], [0, 2]), 7)
    assert sums.low == 2
    assert dict(enumerate(sums.arrays[1][0].tolist(), start=2)) == {2: 1, 3: 0, 4: 0, 5: 1, 6: 3, 7: 3, 8: 0, 9: 7}
    assert sums.arrays[2].tolist() == [5, 3, 1]
    assert sums.arrays[3].tolist() == [3]
    assert sums.games == 15 and sums.arrays[0][2:5].tolist() == [3, 6, 9]
    assert sums.bound == 30 and sums.has_room(2**62 - 31) and not sums.has_room(2**62 - 30)


def _lab_block(game, block):
    """lab_block's answer for ``block``, called as a tally calls it."""
    tally = LabTally.for_game(game)
    tally._fold_kernel_block(kernel_fold, block)  # makes its tables of shares, once
    _, slots, positions, ends, first, cards, weights = tally._block_shares
    arrays = (block.totals, block.winners, block.round_points, block.rule_points, block.moves, block.tables)
    return kernel_fold.lab_block(*arrays, tally.unit, True, slots, positions, ends, first, cards, weights)


def _folds_as_numpy(game, block) -> dict:
    """The tally of ``block`` (through lab_block where it takes it), checked against the
    numpy fold's; returned."""
    lab = LabTally.for_game(game)
    lab.add_kernel_games(block)
    reference = LabTally.for_game(game)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(figures, "_compiled_fold", lambda: None)
        reference.add_kernel_games(block)
    assert lab.state() == reference.state()
    return lab.state()


@pytest.mark.parametrize("seat_total", [0, 2**40])
def test_points_past_what_its_columns_and_int64_hold_refuse_the_block(seat_total):
    """A block with one rule's points at 2**40 at one round (the language allows 10**15)
    is refused by lab_block, and the tally folds it the numpy way, the same counts:
    whether a seat's total stays as it was (another rule's points there lowered as
    much: the sums could pass an int64, found after the pass) or rises by 2**40 (its
    histogram would need 2**40 columns: refused before any is made)."""
    game, blocks = _blocks("sushi-go", 4, ["random"])
    block = blocks[2]
    assert _lab_block(game, block)[0][0] == 1
    block.round_points[7, 1, 0, 2] += 2**40
    block.round_points[7, 1, 1, 2] += seat_total - 2**40
    block.rule_points[7, 0, 2] += 2**40
    block.rule_points[7, 1, 2] += seat_total - 2**40
    block.totals[7, 2] += seat_total
    out = _lab_block(game, block)
    assert out[0][0] == 0
    assert out[1].size <= game.num_seats * kernel_fold.HIST_COLUMNS
    state = _folds_as_numpy(game, block)
    assert (max(state["scores"][2]) >= 2**40) == bool(seat_total)


def test_blocks_sums_start_again_where_their_histograms_would_grow_too_wide(monkeypatch):
    """Blocks whose totals lie far apart (here: told that the columns end sooner) are
    not added together as arrays: the sums so far go into the tally's first, and the
    counts are the same."""
    game, blocks = _blocks("sushi-go", 4, ["random"])
    together = LabTally.for_game(game)
    for block in blocks:
        together.add_kernel_games(block)
    blocks[2].totals[:] += 400  # beside the first block's, each histogram narrow
    blocks[0].totals[:] -= 400
    wide = LabTally.for_game(game)
    for block in blocks:
        wide.add_kernel_games(block)
    monkeypatch.setattr(kernel_fold, "HIST_COLUMNS", 300)
    drained: list[int] = []
    real_add = LabTally._add_block_sums

    def add(self):
        if self._block_sums is not None:
            drained.append(self._block_sums.games)
        real_add(self)

    monkeypatch.setattr(LabTally, "_add_block_sums", add)
    apart = LabTally.for_game(game)
    for block in blocks:
        apart.add_kernel_games(block)
    assert apart.state() == wide.state()
    assert drained == [256, 900, 256 + 900]  # apart's two, then wide's together (read last)
    assert together.state()["games"] == wide.state()["games"] == 1186


@pytest.mark.parametrize("shift", [1, 5])
def test_actions_numbered_otherwise_give_the_same_sums(shift):
    """lab_block counts a pick of one card without its slots only where the action's
    number is the card's: the actions renumbered (each moved ``shift`` places along,
    the slots with them, so no card is its own action) give the same sums, chopsticks'
    pairs included."""
    game, blocks = _blocks("sushi-go", 4, ["random"])
    block = blocks[2]
    tally = LabTally.for_game(game)
    tally._fold_kernel_block(kernel_fold, block)  # makes its tables of shares, once
    _, slots, positions, ends, first, cards, weights = tally._block_shares
    K = game.num_card_types
    span = slots.shape[1]
    assert (slots[0, :K] == range(K)).all() and (block.moves >= K).any()  # picks of one card and of pairs
    moved = (np.arange(span) + shift) % span
    renumbered = np.empty_like(slots)
    renumbered[:, moved] = slots
    rest = (block.totals, block.winners, block.round_points, block.rule_points)
    before = kernel_fold.lab_block(
        *rest, block.moves, block.tables, tally.unit, True, slots, positions, ends, first, cards, weights
    )
    after = kernel_fold.lab_block(
        *rest, moved[block.moves], block.tables, tally.unit, True, renumbered, positions, ends, first, cards, weights
    )
    assert before[0][0] == 1
    assert len(before) == len(after)
    for x, y in zip(before, after):
        np.testing.assert_array_equal(x, y)
