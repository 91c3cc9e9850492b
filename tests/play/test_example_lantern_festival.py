"""Lantern Festival (examples/lantern-festival.yaml): an original game built on a boost
(a sparkler makes the next lantern count twice for every rule), same-colour dye pots
(a clear pot takes the colour of its first lantern), disjoint garlands, neighbour
fights and per-place ties. It validates, scores a hand-worked night, shows its rules
as the golden file says, the bots play it legally, the planner beats random, `play`
shows what a boosted lantern counts as and each neighbour comparison, and the balance
figures give the sparkle's points to the sparklers."""

from __future__ import annotations

import functools
import json
import os
from fractions import Fraction

import pytest
from paths import EXAMPLES, ROOT
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.board import board
from ruledraft.engine.state import Game
from ruledraft.engine.table_scoring import score_table
from ruledraft.lab.figures import LabTally
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import load_ruleset
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.agents import make_agent
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import Tally, play_game, simulate

FESTIVAL = EXAMPLES / "lantern-festival.yaml"
TABLE = EXAMPLES / "lantern-festival-table.json"
GOLDEN = ROOT / "tests" / "data" / "lantern-festival.show.txt"

runner = CliRunner()


@functools.cache
def ruleset() -> CompiledRuleset:
    return load_ruleset(str(FESTIVAL))


def test_the_example_validates():
    """`ruledraft validate` accepts the festival and sums it up in one line, with no warning."""
    result = runner.invoke(app, ["validate", str(FESTIVAL)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{FESTIVAL}: ok: Lantern Festival (lantern-festival 1.0): 2-5 players, 9 card types, 55 cards, "
        "3 rounds, 6 scoring rules\n"
    )


def test_a_hand_worked_night():
    """The first night of examples/lantern-festival-table.json, every rule worked by hand."""
    sheet = score_table(ruleset(), json.loads(TABLE.read_text(encoding="utf-8")))
    # seat 0: sparkler, gold, red, blue, mooncake: the sparkler takes gold (counts as two golds)
    #   as played: light 3; garlands: gold, red, blue: one garland, 6; glow 2 + 1 + 1 = 4
    #   boosted: light 4 (+1); garlands: the second gold has no partners, still 6; glow 6
    # seat 1: clear dye, blue, red, blue, green, 2 mooncakes: the clear pot takes blue (it is
    #   blue now), passes red, takes the second blue (full), passes green: dye 2 + 2 = 4
    #   light 4; garlands: blue, red, green (+ a blue): 6; glow 4
    # seat 2: red, sparkler, green, green, red dye, red: the sparkler takes the first green;
    #   the red dye takes the last red: dye 2; light 4; garlands: red and green only, 0; glow 4
    #   boosted: light 5 (+1); glow 5
    # street on night 1 (win 1, loss -1): as played 4, 4, 4: ties, 0 each
    #   boosted 6, 4, 5: seat 0 beats both +2; seat 1 loses both -2; seat 2 beats 1, loses to 0: 0
    # sparkle = boosted - as played, every rule: seat 0 1 + 2 = 3; seat 1 -2 (seat 0's and
    #   seat 2's sparklers cost it its ties); seat 2 1 + 0 = 1
    # mooncakes 1, 2, 0: seat 1 the most, 4; seat 2 the fewest, -2
    rules = sheet["rules"]
    assert rules == {
        "light": [3, 4, 4],
        "garlands": [6, 6, 0],
        "street": [0, 0, 0],
        "dye": [0, 4, 2],
        "sparkle": [3, -2, 1],
        "mooncakes": [0, 4, -2],
    }
    # 3 + 6 + 3 = 12; 4 + 6 + 4 - 2 + 4 = 16; 4 + 2 + 1 - 2 = 5
    assert sheet["totals"] == [12, 16, 5]


def test_at_two_players_the_one_neighbour_is_met_once_with_a_boosted_lantern():
    """Two players: the doubled red ties the gold's glow, one fight, not two."""
    game = {"rounds": [[["sparkler", "red_lantern"], ["gold_lantern"]]]}
    rules = score_table(ruleset(), game)["rules"]
    # as played glow 1 against 2: -1 and +1; boosted 2 against 2: 0 and 0
    # sparkle: seat 0 +1 light, +1 street: 2; seat 1 loses its win: -1
    assert rules["street"] == [-1, 1]
    assert rules["sparkle"] == [2, -1]


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


def test_every_move_a_bot_makes_is_legal():
    """greedy, planner and ismcts choose among the legal moves at every turn of a game."""
    game = Game(ruleset(), 3)
    agents = [make_agent(name, s) for s, name in enumerate(["greedy", "planner", "ismcts:iterations=100"])]
    state = game.new_initial_state(7)
    while not state.is_terminal():
        seats = state.acting_seats()
        moves = []
        for seat in seats:
            move = agents[seat].act(state, seat)
            assert move in state.legal_actions(seat)
            moves.append(move)
        state.apply_actions(moves)
    assert state.finished


def test_the_planner_beats_random():
    """Over 30 two-player games the planner wins clearly more than random and scores more."""
    result = simulate(ruleset(), 2, 30, 0, ["planner", "random"])
    planner, rand = result.seats
    assert planner.wins > 2 * rand.wins
    assert planner.mean > rand.mean


def test_show_matches_the_golden_file():
    """show explains the festival's cards and six rules as the golden file says
    (RULEDRAFT_UPDATE_GOLDEN=1 rewrites it)."""
    text = describe_ruleset(ruleset())
    if os.environ.get("RULEDRAFT_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")


def test_play_shows_a_boosted_lantern_and_the_neighbour_comparisons(tmp_path):
    """`ruledraft play` says what a boosted lantern counts as and whom each seat's glow
    beats, ties or loses to, within 80 columns; its log replays clean."""
    log = tmp_path / "game.jsonl"
    result = runner.invoke(
        app,
        ["play", str(FESTIVAL), "--players", "3", "--seed", "3", "--log", str(log)],
        input="1\n" * 100,
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    assert "    Blue Lantern (counts as 2)" in lines
    # the street column counts the boosted blue twice: 2 reds + 3 blues, one doubled = 6
    assert "    points 10  round +3  hand 2  street 6 (< seat 2, = seat 1)  mooncakes 0" in lines
    replay = runner.invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0, replay.output
    assert "1 game replayed, 1 clean, 0 with problems" in replay.output


def test_the_balance_figures_give_the_sparkle_to_the_sparklers_and_add_up():
    """Each rule's cards' points plus its unattributed points are all its points; the
    sparkle's points belong to sparklers only (or to no card: a seat without one)."""
    game = Game(ruleset(), 3)
    tally = Tally.empty(game.num_seats, game.ruleset.rule_ids, lab=LabTally.for_game(game))
    for i in range(12):
        tally.add_state(play_game(game, i, ["greedy", "random", "random"]))
    tally.flush()
    lab = tally.lab
    per_rule = lab.rule_card_points()
    totals = lab.rule_points()
    for rid in ruleset().rule_ids:
        brought = sum(per_rule[rid].values(), Fraction(0))
        assert brought + lab.unattributed.get(rid, 0) == sum(totals[rid]), rid
    sparkler = ruleset().catalogue.index_of("sparkler")
    assert set(per_rule["sparkle"]) <= {sparkler}
    assert per_rule["sparkle"][sparkler] > 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_board_compares_each_seat_with_its_neighbours(players):
    """At 2 players the one opponent is both neighbours and appears once on the board; at
    3 the two others; at 4 the seats to the right and to the left, never the one across."""
    # a few turns in, so that the tables hold lanterns
    state = Game(ruleset(), players).new_initial_state(5)
    for _ in range(4):
        state.apply_actions([state.legal_actions(s)[0] for s in state.acting_seats()])
    seats = board(state)
    glow = [dict(b.majorities)["street"] for b in seats]
    for b in seats:
        ((rule, found),) = b.neighbours
        assert rule == "street"
        expected = {(b.seat - 1) % players, (b.seat + 1) % players}
        assert {o for o, _ in found} == expected and len(found) == len(expected)
        for other, sign in found:
            assert sign == (glow[b.seat] > glow[other]) - (glow[b.seat] < glow[other])
