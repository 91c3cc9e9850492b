"""Lantern Festival and Meadow Keepers (disjoint sets, neighbours, a boost, a modifier with
``same``) and a file of two boosts on a wasabi play on the kernel the reference engine's
games: same deals, same moves, same points, same logs."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numba")

from test_kernel_boost_sets import LANTERN, MEADOW, TWO_BOOSTS  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from ruledraft.cli.app import app  # noqa: E402
from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.kernel import Kernel, compile_kernel  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.agents import default_card_values  # noqa: E402
from ruledraft.play.runner import game_seed, play_game  # noqa: E402

#: every built-in bot the kernel plays alone, and mixed
LINEUPS = (["random"], ["first"], ["value"], ["greedy"], ["greedy", "random", "value", "first"])


def _assert_same_games(kernel: Kernel, bots: list[str], seeds: list[int]) -> None:
    game = Game(kernel.ruleset, kernel.players)
    games = kernel.play(seeds, bots, default_card_values(game))
    for i, seed in enumerate(seeds):
        state = play_game(game, seed, bots)
        _, totals, winners, rule_points = games.game(i)
        assert games.moves[i].tolist() == [r.actions for r in state.history], f"moves differ, seed {seed}, {bots}"
        assert list(totals) == state.totals(), f"totals differ, seed {seed}, {bots}"
        assert list(winners) == state.winners, f"winners differ, seed {seed}, {bots}"
        assert {k: list(v) for k, v in rule_points.items()} == state.rule_points, f"rule points, seed {seed}"
        points = [x for sc in state.scorings for row in sc.points for x in row]
        assert games.scoring_points()[i].tolist() == points, f"points per scoring differ, seed {seed}"


def _play_everyone(source: str, seeds: int) -> None:
    ruleset = load_ruleset(source)
    for players in (ruleset.min_players, ruleset.max_players):
        kernel = compile_kernel(ruleset, players)
        assert isinstance(kernel, Kernel), kernel
        for j, lineup in enumerate(LINEUPS):
            bots = (lineup * players)[:players]
            _assert_same_games(kernel, bots, [game_seed(18 + j, i) for i in range(seeds)])


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
    out = {}
    for engine in ("reference", "kernel"):
        log = tmp_path / f"{engine}.jsonl"
        args = ["simulate", source, "-p", players, "-g", "150", "-s", "3", "--bots", "greedy,random,value"]
        result = CliRunner().invoke(app, [*args, "--engine", engine, "--json", "--log", str(log)])
        assert result.exit_code == 0, result.output
        summary = json.loads(result.stdout)
        for key in ("elapsed_seconds", "games_per_second"):
            summary.pop(key, None)
        out[engine] = summary
    assert out["kernel"] == out["reference"]
    assert out["kernel"]["figures"]["cards"]
    assert (tmp_path / "kernel.jsonl").read_bytes() == (tmp_path / "reference.jsonl").read_bytes()
