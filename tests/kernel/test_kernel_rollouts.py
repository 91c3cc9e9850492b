"""ismcts's roll-outs on the kernel: the same play-outs, so the same searches, for a fixed iteration budget."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

pytest.importorskip("numba")

from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.engine.view import seat_view  # noqa: E402
from ruledraft.kernel import Kernel, compile_kernel, rollout_kernel  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play import ismcts  # noqa: E402
from ruledraft.play.planner import count_values, policy_action  # noqa: E402
from ruledraft.play.runner import game_seed, play_game  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent


def _load(ruleset_id: str):
    """A bundled ruleset by id, or an example by its path from the repository's root."""
    return load_ruleset(str(ROOT / ruleset_id) if ruleset_id.startswith("examples/") else ruleset_id)


def _states(game: Game, games: int):
    """Every state between turns of ``games`` random games (seeds 0, 1, ...)."""
    rng = random.Random(games)
    for g in range(games):
        state = game.new_initial_state(g)
        while not state.finished:
            yield state.clone()
            state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])


@pytest.mark.parametrize(
    ("ruleset_id", "players"),
    [
        ("sushi-go", 4),
        ("sushi-go-party-starter", 5),  # cards added before rounds
        ("examples/midnight-apothecary.yaml", 3),  # reshuffled between rounds
        ("examples/sushi-go-switchback.yaml", 5),  # a direction per turn
    ],
)
def test_kernel_play_out_ends_as_the_reference_policy_play_out(ruleset_id, players):
    """From every state of a few random games (and from states of seed 0, as a search's
    worlds have), Kernel.play_out gives the totals and winners that playing on by
    policy_action gives on the reference engine, and leaves the state as it was."""
    kernel = compile_kernel(_load(ruleset_id), players)
    assert isinstance(kernel, Kernel), kernel
    game = Game(kernel.ruleset, players)
    counts = count_values(game)
    values = kernel.policy_values(counts)
    checked = 0
    for state in _states(game, 6):
        before = (state.round, state.turn, [h[:] for h in state.hands], state.deck[:], state.totals())
        ref = state.clone()
        while not ref.finished:
            ref.apply_actions([policy_action(ref, s, counts) for s in ref.acting_seats()])
        assert kernel.play_out(state, values) == (ref.totals(), ref.winners)
        assert (state.round, state.turn, [h[:] for h in state.hands], state.deck[:], state.totals()) == before
        checked += 1
    assert checked > 6 * 3  # every round of every game


@pytest.mark.parametrize("objective", ["margin", "win"])
def test_ismcts_searches_the_same_with_kernel_roll_outs(objective):
    """ismcts (rollout=values, a fixed number of iterations) grows the very same tree and
    picks the same moves whether its roll-outs run on the kernel or on the reference engine."""
    rs = load_ruleset("sushi-go")
    game = Game(rs, 4)
    assert ismcts._rollout_kernel(game, count_values(game)) is not None  # compiled by the test above

    def searches(on_kernel: bool) -> list:
        bot = ismcts.ISMCTSAgent(seed=3, iterations=60, objective=objective)
        bot.kernel_rollouts = on_kernel
        out = []
        for state in list(_states(game, 1))[::2]:
            view = seat_view(state, 1)
            if len(view.legal_actions()) > 1:
                root = bot.search(view, 1)
                out.append(([sorted(table.items()) for table in root.stats], bot.act(view, 1)))
        return out

    on_kernel = searches(True)
    assert searches(False) == on_kernel
    assert len(on_kernel) > 5


def test_ismcts_games_are_the_same_with_kernel_roll_outs(monkeypatch):
    """Whole games of ismcts against planners: the same moves with roll-outs on the kernel or not."""
    game = Game(load_ruleset("sushi-go"), 3)
    bots = ["ismcts:iterations=25", "planner", "ismcts:iterations=10:objective=win"]
    assert ismcts._rollout_kernel(game, count_values(game)) is not None
    seeds = [game_seed(9, i) for i in range(2)]
    on_kernel = [[r.actions for r in play_game(game, s, bots).history] for s in seeds]
    monkeypatch.setattr(ismcts, "_rollout_kernel", lambda game, values: None)
    assert [[r.actions for r in play_game(game, s, bots).history] for s in seeds] == on_kernel


def test_a_search_never_compiles_a_kernel(monkeypatch, tmp_path):
    """rollout_kernel gives no kernel for a ruleset whose kernel is not in the cache (it is
    not compiled for a search), and the ruleset's dummy variant, which has none, gives none."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    assert rollout_kernel(load_ruleset("sushi-go"), 4) is None
    assert not (tmp_path / "ruledraft").exists()
    monkeypatch.undo()
    assert rollout_kernel(load_ruleset("sushi-go-two-player-dummy"), 2) is None
