"""A kernel's block folded at once (kernel.fold.lab_block) counts what the numpy fold counts."""

from __future__ import annotations

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
