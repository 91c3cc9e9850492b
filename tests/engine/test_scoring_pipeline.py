"""The one scoring pipeline (:mod:`ruledraft.engine.scoresheet`): the engine, ``score``,
tallies and the game log all score through it, and it scores a finished game exactly
as the engine did while playing it."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import DATA
from strategies import (
    BUNDLED_RULESETS,
    bundled_game,
    bundled_ruleset,
    bundled_table_scored,
    bundled_without_effects,
    game_setups,
)

from ruledraft.engine.scoresheet import (
    PlayedGame,
    PlayedRound,
    ScoreSheet,
    Scoring,
    add_rule_points,
    score_game,
)
from ruledraft.engine.table_scoring import score_table, table_sheet
from ruledraft.play.game_log import record_game
from ruledraft.play.runner import Tally, play_game

SETTINGS = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def finished_state(ruleset_id: str, players: int, seed: int, bots):
    return play_game(bundled_game(ruleset_id, players), seed, list(bots))


@SETTINGS
@given(setup=game_setups(st.sampled_from(bundled_table_scored())))
def test_the_pipeline_scores_a_finished_game_as_the_engine_did_while_playing(setup):
    """For every bundled ruleset, score_game of a finished game's history equals the engine's own sheet, round scores, game end, totals, winners and rule points."""
    rid, players, seed, bots = setup
    state = finished_state(rid, players, seed, bots)
    sheet = score_game(bundled_ruleset(rid), PlayedGame.from_history(players, state.history))
    assert sheet == state.score_sheet()
    assert sheet.round_points == state.round_scores
    assert sheet.game_end_points == state.game_end_scores
    assert sheet.totals == state.totals()
    assert sheet.winners == state.winners
    assert sheet.rule_points == state.rule_points


@SETTINGS
@given(setup=game_setups(st.sampled_from(bundled_table_scored())), data=st.data())
def test_permuting_the_seats_of_a_finished_record_permutes_its_scores(setup, data):
    """Giving the players' tables of a finished game to other seats (a dummy stays last) moves every score, rule point and win with them."""
    rid, players, seed, bots = setup
    rs = bundled_ruleset(rid)
    state = finished_state(rid, players, seed, bots)
    played = PlayedGame.from_history(players, state.history)
    seats = played.num_seats
    perm = data.draw(st.permutations(list(range(players)))) + list(range(players, seats))
    moved = PlayedGame(
        players, tuple(PlayedRound(tuple(r.tables[perm[i]] for i in range(seats))) for r in played.rounds)
    )
    before, after = score_game(rs, played), score_game(rs, moved)
    for r, points in enumerate(before.round_points):
        assert after.round_points[r] == [points[perm[i]] for i in range(seats)]
    assert after.game_end_points == [before.game_end_points[perm[i]] for i in range(seats)]
    assert after.totals == [before.totals[perm[i]] for i in range(seats)]
    for rule, points in before.rule_points.items():
        assert after.rule_points[rule] == [points[perm[i]] for i in range(seats)]
    assert after.winners == sorted(i for i in range(seats) if perm[i] in before.winners)


@pytest.mark.parametrize("ruleset_id", bundled_without_effects())
def test_score_gives_the_engine_s_sheet_for_the_cards_each_seat_played(ruleset_id):
    """A finished game's tables, as card ids through score_table, give the record the engine logged (rounds, game end, totals, winners, rules)."""
    rs = bundled_ruleset(ruleset_id)
    players = rs.min_players
    state = finished_state(ruleset_id, players, 5, ["greedy"] * players)
    ids = rs.catalogue.ids
    table = {"rounds": [[[ids[c] for c in t] for t in r.tables] for r in state.history]}
    record = record_game(state, ["greedy"] * players)
    result = score_table(rs, table, partial=False)
    assert result == {
        "rounds": [r["scores"] for r in record["rounds"]],
        "game_end": record["game_end"],
        "totals": record["totals"],
        "winners": record["winners"],
        "rules": record["rules"],
    }
    assert table_sheet(rs, table) == state.score_sheet()


def test_a_game_in_progress_has_a_sheet_of_its_rounds_and_no_winners():
    """Mid-game, the state's sheet holds the rounds scored so far, zero game-end points and no winners."""
    game = bundled_game("sushi-go", 3)
    state = game.new_initial_state(4)
    streams = [random.Random(s).random for s in range(3)]
    while state.round == 0:
        state.apply_actions([state.sample_action(s, streams[s]) for s in state.acting_seats()])
    sheet = state.score_sheet()
    assert not sheet.finished and sheet.winners == [] and sheet.game_end_points == [0, 0, 0]
    assert sheet.round_points == state.round_scores and len(sheet.rounds) == 1
    assert sheet.totals == state.totals()
    assert sheet.rule_points == state.rule_points


def test_rule_points_are_summed_column_by_column_over_scorings():
    """add_rule_points adds each rule's points per seat over every scoring given, whichever rules each scored."""

    class Rule:
        def __init__(self, rid):
            self.id = rid

    round_rules, game_rules = (Rule("a"), Rule("b")), (Rule("c"),)
    scorings = [
        Scoring(round_rules, [[1, 2], [3, 4]], [4, 6]),
        Scoring(game_rules, [[5, 0]], [5, 0]),
        Scoring(round_rules, [[10, 20], [0, 1]], [10, 21]),
    ]
    acc = {"a": [100, 0], "b": [0, 0], "c": [0, 0]}
    add_rule_points(acc, scorings)
    assert acc == {"a": [111, 22], "b": [3, 5], "c": [5, 0]}


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS)
def test_a_tally_sums_the_rule_points_of_the_games_score_sheets(ruleset_id):
    """Tally.add_state's per-rule sums equal the sum of each game's ScoreSheet.rule_points."""
    rs = bundled_ruleset(ruleset_id)
    players = rs.min_players
    tally = Tally.empty(bundled_game(ruleset_id, players).num_seats, rs.rule_ids)
    expected = {rid: [0] * tally.num_seats for rid in rs.rule_ids}
    for seed in range(6):
        state = finished_state(ruleset_id, players, seed, ["random"] * players)
        tally.add_state(state)
        for rid, pts in state.score_sheet().rule_points.items():
            expected[rid] = [a + b for a, b in zip(expected[rid], pts)]
    tally.flush()
    assert tally.rules == expected


def test_a_round_carries_its_record_and_every_card_is_face_up_unless_told():
    """PlayedGame.from_history keeps each round's RoundRecord (deal and turns) beside its tables; card states default to none."""
    state = finished_state("sushi-go", 2, 3, ["random", "random"])
    played = PlayedGame.from_history(2, state.history)
    assert [r.record for r in played.rounds] == state.history
    assert all(r.record is h for r, h in zip(played.rounds, state.history))
    assert [list(map(list, r.tables)) for r in played.rounds] == [h.tables for h in state.history]
    assert all(r.card_states is None for r in played.rounds)


def test_the_score_sheet_as_json_is_what_score_prints():
    """ScoreSheet.to_json gives rounds, game end, totals and winners in that order, and the rule points only when asked."""
    rs = bundled_ruleset("sushi-go")
    sheet = table_sheet(rs, {"rounds": [[["tempura", "tempura", "pudding"], ["sashimi"]]]})
    assert isinstance(sheet, ScoreSheet)
    assert list(sheet.to_json(rules=False)) == ["rounds", "game_end", "totals", "winners"]
    assert sheet.to_json() == {
        "rounds": [[5, 0]],
        "game_end": [6, 0],  # two players: nobody loses points for the fewest puddings
        "totals": [11, 0],
        "winners": [0],
        "rules": {**{rid: [0, 0] for rid in rs.rule_ids}, "tempura": [5, 0], "pudding": [6, 0]},
    }


LOG_BEFORE = DATA / "logs" / "written-before-typed-history.jsonl"


def test_game_logs_written_before_the_typed_history_replay_and_record_the_same():
    """Logs written before the history became typed records replay clean, and the replayed game's record is the logged one, byte for byte (but for the generator records name since)."""
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.game_log import replay_record

    lines = LOG_BEFORE.read_text().splitlines()
    assert len(lines) == 8
    for line in lines:
        record = json.loads(line)
        rs = load_ruleset(record["ruleset"])
        assert replay_record(rs, record) == []
        state = bundled_game(record["ruleset"], record["players"]).new_initial_state(record["seed"])
        for rnd in record["rounds"]:
            for turn in rnd["turns"]:
                if not turn.get("auto"):
                    state.apply_actions(_actions(state, turn))
        assert state.is_terminal()
        now = line.replace('{"format":1,', '{"format":1,"generator":"mt19937-splitmix64",', 1)
        assert json.dumps(record_game(state, record["seats"]), separators=(",", ":")) == now  # as simulate writes it


def _actions(state, turn):
    game = state.game
    out = []
    for seat in state.acting_seats():
        dummy = turn["picks"][game.num_players][0] if game.ruleset.dummy and seat == state.controller else None
        out.append(game.action_from_ids(turn["picks"][seat], dummy))
    return out
