"""The lab's compiled fold of kernel blocks counts what its numpy fold counts, sum for sum."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("numba")

from kernel_checks import kernel_blocks  # noqa: E402

from ruledraft.lab import figures  # noqa: E402
from ruledraft.lab.figures import LabTally  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402


def _state(game, blocks, compiled: bool, monkeypatch) -> dict:
    """Every count of a lab tally fed ``blocks``, folded compiled or by numpy."""
    if not compiled:
        monkeypatch.setattr(figures, "_compiled_fold", lambda: None)
    lab = LabTally.for_game(game)
    for block in blocks:
        lab.add_kernel_games(block)
    state = lab.state()
    monkeypatch.undo()
    return state


@pytest.mark.parametrize(
    ("ruleset_id", "players", "bots"),
    [
        ("sushi-go", 4, ["random"]),  # chopsticks: two cards in some actions
        ("sushi-go", 2, ["greedy", "value"]),
        ("sushi-go-soy-sauce", 5, ["random", "first"]),
    ],
)
def test_compiled_fold_counts_what_the_numpy_fold_counts(ruleset_id, players, bots, monkeypatch):
    """Blocks of kernel games (some folded alone, some buffered together): the compiled
    fold and the numpy fold leave identical counts, card by card and rule by rule."""
    game, blocks = kernel_blocks(ruleset_id, players, bots, 11, ((0, 300), (300, 40), (340, 700)))
    compiled = _state(game, blocks, True, monkeypatch)
    assert compiled == _state(game, blocks, False, monkeypatch)
    assert compiled["games"] == 1040
    assert sum(compiled["picks"]) == 1040 * players * game.ruleset.rounds * game.ruleset.hand_size(players) + sum(
        n * (a >= game.num_card_types) for a, n in _chopstick_moves(blocks)
    )


def _chopstick_moves(blocks):
    """(action, 1) for every move of the blocks (a move with the special action takes two cards)."""
    for block in blocks:
        for a in block.moves.ravel().tolist():
            yield a, 1


def test_the_lab_loads_no_numba_itself():
    """A run on the reference engine folds its figures without importing numba (the
    compiled fold is only for a process that has it loaded already)."""
    code = (
        "import sys\n"
        "from ruledraft.lab.figures import LabTally\n"
        "from ruledraft.language.loading import load_ruleset\n"
        "from ruledraft.play.match import Match\n"
        "from ruledraft.play.runner import simulate_match\n"
        "s = simulate_match(Match.build(load_ruleset('sushi-go'), 3, ['random'], 1), 300, collector=LabTally.for_game)\n"
        "print(s.games, 'numba' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["300", "False"]


def test_warming_the_fold_compiles_what_a_run_with_figures_calls():
    """fold.warm() (what the background compile runs) leaves nothing for a kernel run
    with every figure to compile: the lab's calls find every signature ready."""
    from ruledraft.kernel import fold
    from ruledraft.play.match import Match
    from ruledraft.play.runner import simulate_match

    fold.warm()
    functions = (fold.held_by_turn, fold.card_sums, fold.share_sums)
    ready = [len(f.signatures) for f in functions]
    match = Match.build(load_ruleset("sushi-go"), 3, ["random"], 1)
    simulate_match(match, 600, collector=LabTally.for_game, engine="kernel")
    assert [len(f.signatures) for f in functions] == ready
