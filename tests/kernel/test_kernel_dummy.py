"""The dummy procedure in the kernel (Sushi Go! for two with a dummy): the controller
draws the pile's top card and picks for itself and for the dummy, as the reference's
bots choose, draw for draw; the same games, figures and logs on both engines."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from kernel_checks import simulate_on_both_engines  # noqa: E402

from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.kernel import Kernel, compile_kernel, is_cached  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.agents import default_card_values  # noqa: E402
from ruledraft.play.runner import game_seed, play_game  # noqa: E402

DUMMY = "sushi-go-two-player-dummy"
LINEUPS = (
    ["random", "random"],
    ["first", "first"],
    ["value", "value"],
    ["greedy", "greedy"],
    ["greedy", "random"],
    ["value", "first"],
    ["random", "greedy"],
)


@pytest.fixture(scope="module")
def kernel() -> Kernel:
    made = compile_kernel(load_ruleset(DUMMY), 2)
    assert isinstance(made, Kernel), made
    return made


@pytest.mark.parametrize("bots", LINEUPS, ids=lambda b: ",".join(b))
def test_dummy_games_equal_the_reference(kernel, bots):
    """40 seeds: the players' moves (the controller's with the dummy's card), totals of all
    three seats, winners (never the dummy), points per rule and scoring, and tables."""
    game = Game(kernel.ruleset, 2)
    seeds = [game_seed(18, i) for i in range(40)]
    games = kernel.play(seeds, bots, default_card_values(game))
    dummy_moves = two_own = 0
    for i, seed in enumerate(seeds):
        state = play_game(game, seed, bots)
        _, totals, winners, rule_points = games.game(i)
        assert games.moves[i].tolist() == [r.actions for r in state.history], f"moves differ, seed {seed}"
        assert list(totals) == state.totals() and len(totals) == 3, f"totals differ, seed {seed}"
        assert list(winners) == state.winners and 2 not in winners, f"winners differ, seed {seed}"
        assert {k: list(v) for k, v in rule_points.items()} == state.rule_points, f"rule points, seed {seed}"
        points = [x for sc in state.scorings for row in sc.points for x in row]
        assert games.scoring_points()[i].tolist() == points, f"points per scoring differ, seed {seed}"
        tables = [rec.counts for rec in state.history] + [state.kept_counts]
        assert games.tables[i].tolist() == [[list(row) for row in t] for t in tables], f"tables, seed {seed}"
        for rec in state.history:
            for actions in rec.actions:
                for a in actions:
                    own, dummy = game.decode_action(a)
                    dummy_moves += dummy is not None
                    two_own += len(own) == 2
    assert dummy_moves == 40 * 3 * 9  # every turn of every round, one controller
    if bots != ["first", "first"]:
        assert two_own > 0  # chopsticks used (by the controller too, some turns)


def test_a_compiled_dummy_kernel_is_known_to_be_in_the_cache(kernel):
    """Its loop is play_dummy: is_cached finds its compiled code on disk for the ruleset loaded
    anew (so auto loads it rather than compile it again)."""
    assert kernel.module.play is kernel.module.play_dummy
    assert is_cached(load_ruleset(DUMMY))


def test_simulate_figures_and_logs_are_the_same_on_both_engines(tmp_path):
    """simulate --json (every lab figure, the dummy's seat included) and the log: the same on both engines."""
    figures = simulate_on_both_engines(tmp_path, [DUMMY, "-p", "2", "-g", "200", "-s", "4", "--bots", "greedy,value"])
    assert len(figures["figures"]["seats"]) == 3
