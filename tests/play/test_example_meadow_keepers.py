"""Meadow Keepers (examples/meadow-keepers.yaml): an original game built on per-place
ties (bees), the most disjoint sets of three colours (bouquets) and comparisons with
the neighbours only (hornets). It validates, scores a hand-worked game, and the bots
(planner, greedy, random) play it legally at 2 to 5 players; its logs replay clean."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.engine.table_scoring import score_table
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import load_ruleset
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import play_game, simulate

ROOT = Path(__file__).resolve().parents[2]
MEADOW = ROOT / "examples" / "meadow-keepers.yaml"

runner = CliRunner()


@functools.cache
def ruleset() -> CompiledRuleset:
    return load_ruleset(str(MEADOW))


def test_the_example_validates():
    """`ruledraft validate` accepts the meadow and sums it up in one line, with no warning."""
    result = runner.invoke(app, ["validate", str(MEADOW)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{MEADOW}: ok: Meadow Keepers (meadow-keepers 1.0): 2-5 players, 10 card types, 70 cards, "
        "3 rounds, 4 scoring rules\n"
    )


#: a hand-worked game of 3 keepers, seat by seat per round
GAME = [
    [
        ["bee", "bee", "poppy", "tulip", "cornflower", "buttercup", "hornet_nest"],
        ["bee", "poppy", "cornflower", "buttercup", "violet", "daisy", "hornet", "honey"],
        ["bee", "bee", "hornet", "hornet", "hornet", "honey", "honey"],
    ],
    [
        ["daisy", "daisy", "violet", "violet", "cornflower", "cornflower", "hornet"],
        ["bee", "bee", "bee", "hornet"],
        ["hornet_nest", "honey"],
    ],
    [["honey"], ["honey"], ["bee"]],
]


def test_a_hand_worked_game():
    """Three seasons of 3 keepers, every rule's points worked by hand."""
    sheet = score_table(ruleset(), {"rounds": GAME})
    # season 1
    #   bees 2, 1, 2: seats 0 and 2 share the most (5 // 2 = 2 each); seat 1 fewest: -2
    #   bouquets, colours per seat: 0: red 2 (poppy, tulip), blue, yellow -> one bouquet (the
    #     second red has no partners): 5; 1: five colours -> one bouquet of 3 (2 left over): 5
    #   hornets, stings 2, 1, 3 (win 1 in season 1): 0 beats 1, loses to 2: 0; 1 loses both: -2; 2: 2
    #   honey 0, 1, 2 pots: 0, 1, 3
    #   total: 2 + 5 + 0 + 0 = 7; -2 + 5 - 2 + 1 = 2; 2 + 0 + 2 + 3 = 7
    # season 2
    #   bees 0, 3, 0: 5 to seat 1; seats 0 and 2 tied for the fewest, -2 each in full
    #   bouquets: seat 0 has two of each of three colours: 2 bouquets, 10
    #   hornets, stings 1, 1, 2 (win 2 in season 2): 0 ties 1, loses to 2: -1; 1 the same: -1; 2: 4
    #   honey: seat 2 one pot: 1
    #   total: -2 + 10 - 1 = 7; 5 - 1 = 4; -2 + 4 + 1 = 3
    # season 3
    #   bees 0, 0, 1: 5 to seat 2; seats 0 and 1 -2 each; honey 1, 1, 0; no stings: ties, 0
    #   total: -2 + 1 = -1; -1; 5
    assert sheet["rules"]["bees"] == [2 - 2 - 2, -2 + 5 - 2, 2 - 2 + 5]
    assert sheet["rules"]["bouquets"] == [5 + 10, 5, 0]
    assert sheet["rules"]["hornets"] == [0 - 1, -2 - 1, 2 + 4]
    assert sheet["rules"]["honey"] == [1, 2, 4]
    assert sheet["rounds"] == [[7, 2, 7], [7, 4, 3], [-1, -1, 5]]
    assert sheet["totals"] == [13, 5, 15]
    assert sheet["winners"] == [2]


def test_with_two_keepers_the_neighbour_is_met_once_and_nobody_pays_for_fewest_bees():
    """At 2 players: one hornet fight per season, and the fewest bees cost nothing."""
    game = [[["bee", "hornet"], ["hornet_nest"]], [[], []], [[], []]]
    sheet = score_table(ruleset(), {"rounds": game})
    # season 1: seat 1's 2 stings beat seat 0's 1 once: +1 / -1 (not twice);
    # seasons 2 and 3: no stings, a tie, 0; bees: 5 to seat 0 in season 1, then level at 0:
    # 5 // 2 = 2 each in seasons 2 and 3; no fine for the fewest with 2 players
    assert sheet["rules"]["hornets"] == [-1, 1]
    assert sheet["rules"]["bees"] == [5 + 2 + 2, 2 + 2]


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_planner_greedy_and_random_play_legally_and_the_logs_replay(players):
    """The planner, greedy and random bots finish games at every player count, every card
    stays accounted for, and the games' logs replay clean."""
    game = Game(ruleset(), players)
    bots = (["planner", "greedy", "random"] * 2)[:players]
    state = play_game(game, 1, bots)
    assert state.finished
    assert state.all_cards() == sorted(ruleset().catalogue.deck())
    assert replay_record(ruleset(), record_game(state, bots)) == []


def test_a_short_simulate_and_its_log_replay(tmp_path):
    """`simulate` with planner and greedy scores every rule, and `replay` finds its log clean."""
    log = tmp_path / "games.jsonl"
    result = runner.invoke(
        app,
        ["simulate", str(MEADOW), "--players", "3", "--bots", "planner,greedy,random", "--games", "4"]
        + ["--quiet", "--log", str(log)],
    )
    assert result.exit_code == 0, result.output
    for rule in ("bees", "bouquets", "hornets", "honey"):
        assert rule in result.output
    replay = runner.invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0, replay.output
    assert "4 games replayed, 4 clean, 0 with problems" in replay.output


def test_show_words_the_three_mechanisms():
    """show says the per-place ties, the disjoint bouquets and the neighbour fights."""
    result = runner.invoke(app, ["show", str(MEADOW)], env={"COLUMNS": "2000"})
    assert result.exit_code == 0, result.output
    text = " ".join(result.output.split())
    assert (
        "Players tied for the most split the points, dropping the remainder; players tied for the fewest each score in full."
        in text
    )
    assert "The most sets of 3 different colours among flower cards" in text
    assert "With 2 players the one opponent is both neighbours and is compared once." in text


def test_play_shows_the_bees_and_the_stings_on_the_board_within_80_columns(tmp_path):
    """`ruledraft play` at 2 seats puts a bees and a hornets column on the board, fits 80
    columns, and its log replays clean."""
    log = tmp_path / "game.jsonl"
    result = runner.invoke(
        app,
        ["play", str(MEADOW), "--players", "2", "--seed", "3", "--log", str(log)],
        input="1\n" * 100,
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    assert "  hornets: total 'stings' on hornet cards (Hornet, Hornet Nest)" in lines
    assert "  seat             points  round  hand  bees       hornets" in lines
    # the hornets column: each keeper's stings, then the fight with the one neighbour
    assert "  you (seat 0)          0     +2    10     0  0 (= seat 1)" in lines
    assert "=== Game over ===" in lines
    replay = runner.invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0, replay.output
    assert "1 game replayed, 1 clean, 0 with problems" in replay.output


def test_the_guide_shows_the_table_as_shipped():
    """The guide's section 23 shows examples/meadow-keepers-table.json as it is, and says its totals."""
    guide = (ROOT / "examples" / "README.md").read_text(encoding="utf-8")
    table = (ROOT / "examples" / "meadow-keepers-table.json").read_text(encoding="utf-8")
    assert f"```text\n{table}```\n" in guide
    assert '"totals": [13, 5, 15]' in guide


def test_the_planner_beats_random_and_ismcts_plays_legally():
    """Over 30 two-player games the planner wins clearly more than random and scores more;
    the ismcts search bot finishes a game whose log replays clean."""
    result = simulate(ruleset(), 2, 30, 0, ["planner", "random"])
    planner, rand = result.seats
    assert planner.wins > 2 * rand.wins
    assert planner.mean > rand.mean
    state = play_game(Game(ruleset(), 2), 1, ["ismcts", "random"])
    assert state.finished
    assert replay_record(ruleset(), record_game(state, ["ismcts", "random"])) == []


GOLDEN = ROOT / "tests" / "data" / "meadow-keepers.show.txt"


def test_show_matches_the_golden_file():
    """show explains the meadow's cards and its four rules as the golden file says
    (RULEDRAFT_UPDATE_GOLDEN=1 rewrites it)."""
    text = describe_ruleset(ruleset())
    if os.environ.get("RULEDRAFT_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
