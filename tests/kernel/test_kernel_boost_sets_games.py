"""Lantern Festival and Meadow Keepers (disjoint sets, neighbours, a boost, a modifier with
``same``) and a file of two boosts on a wasabi play on the kernel the reference engine's
games: same deals, same moves, same points, same logs."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from kernel_checks import assert_same_games, simulate_on_both_engines  # noqa: E402
from test_kernel_boost_sets import LANTERN, MEADOW, TWO_BOOSTS  # noqa: E402

from ruledraft.kernel import Kernel, compile_kernel  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.runner import game_seed  # noqa: E402

#: every built-in bot the kernel plays alone, and mixed
LINEUPS = (["random"], ["first"], ["value"], ["greedy"], ["greedy", "random", "value", "first"])


def _play_everyone(source: str, seeds: int) -> None:
    ruleset = load_ruleset(source)
    for players in (ruleset.min_players, ruleset.max_players):
        kernel = compile_kernel(ruleset, players)
        assert isinstance(kernel, Kernel), kernel
        for j, lineup in enumerate(LINEUPS):
            bots = (lineup * players)[:players]
            assert_same_games(kernel, bots, [game_seed(18 + j, i) for i in range(seeds)], scorings=True)


@pytest.mark.parametrize("source", [LANTERN, MEADOW], ids=["lantern-festival", "meadow-keepers"])
def test_the_examples_play_the_reference_games_at_their_fewest_and_most_players(source):
    """2 and 5 players; random, first, value and greedy tables and a mixed one: 25 seeds each,
    the kernel's moves, totals, winners and points per rule and per scoring the reference's."""
    _play_everyone(source, 25)


def test_two_boosts_on_a_wasabi_play_the_reference_games(tmp_path):
    """Boosts in a row, a game-end boost and a wasabi: 15 seeds of every line-up at 2 and 4 players."""
    path = tmp_path / "two-boosts.yaml"
    path.write_text(TWO_BOOSTS, encoding="utf-8")
    _play_everyone(str(path), 15)


@pytest.mark.parametrize(("source", "players"), [(LANTERN, "3"), (MEADOW, "4")], ids=["lantern", "meadow"])
def test_simulate_figures_and_logs_are_the_same_on_both_engines(tmp_path, source, players):
    """simulate --json (every lab figure) and the game log on the kernel are the reference's, byte for byte."""
    figures = simulate_on_both_engines(
        tmp_path, [source, "-p", players, "-g", "150", "-s", "3", "--bots", "greedy,random,value"]
    )
    assert figures["figures"]["cards"]
