"""Turn shapes: the pass direction as a per-turn pattern (``rounds.pass``)."""

from __future__ import annotations

import random
import re
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import ROOT
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.language.describe import describe_ruleset as describe
from ruledraft.language.loading import check_ruleset, load_ruleset
from ruledraft.play.agents import make_agent
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import bot_seed

EXAMPLE = str(ROOT / "examples" / "sushi-go-switchback.yaml")

HEADER = """\
format: 1
extends: sushi-go
id: shapes
name: Shapes
"""


def write(tmp_path, rounds: str, name: str = "shapes.yaml"):
    path = tmp_path / name
    path.write_text(HEADER + rounds, encoding="utf-8")
    return path


def problems(path) -> list[tuple[int, int, str]]:
    return [(d.line, d.column, d.message) for d in check_ruleset(path).diagnostics]


@pytest.fixture(scope="module")
def switchback():
    return load_ruleset(EXAMPLE)


# ---------------------------------------------------------------- the language


def test_the_example_compiles_to_one_pattern_per_round(switchback):
    """The switchback example's rounds.pass compiles to (left, right), (right,) and (left, left, none)."""
    assert switchback.pass_patterns == ((1, -1), (-1,), (1, 1, 0))
    assert switchback.pass_directions == (1, -1, 1)


def test_a_pattern_repeats_through_the_round(switchback):
    """pass_direction(round, turn) walks the round's pattern and starts it again when it runs out."""
    assert [switchback.pass_direction(0, t) for t in range(5)] == [1, -1, 1, -1, 1]
    assert [switchback.pass_direction(1, t) for t in range(3)] == [-1, -1, -1]
    assert [switchback.pass_direction(2, t) for t in range(7)] == [1, 1, 0, 1, 1, 0, 1]


def test_existing_files_mean_the_same_and_keep_the_fast_path():
    """Bundled rulesets with one direction per round have no per-turn patterns and pass as before."""
    for name, directions in (("sushi-go", (1, 1, 1)), ("sushi-go-pass-both-ways", (1, -1, 1))):
        rs = load_ruleset(name)
        assert rs.pass_patterns == ()
        assert rs.pass_directions == directions
        assert [rs.pass_direction(r, 4) for r in range(3)] == list(directions)


def test_a_pattern_of_one_direction_is_that_direction(tmp_path):
    """{turns: [right, right]} for every round compiles exactly as 'pass: right' (the fast path)."""
    patterned = load_ruleset(write(tmp_path, "rounds:\n  pass: {turns: [right, right]}\n"))
    plain = load_ruleset(write(tmp_path, "rounds:\n  pass: right\n", "plain.yaml"))
    assert patterned.pass_patterns == () == plain.pass_patterns
    assert patterned.pass_directions == (-1, -1, -1) == plain.pass_directions


def test_one_pattern_applies_to_every_round(tmp_path):
    """pass: {turns: [left, right]} gives every round the same alternating pattern."""
    rs = load_ruleset(write(tmp_path, "rounds:\n  pass: {turns: [left, right]}\n"))
    assert rs.pass_patterns == ((1, -1),) * 3


def test_misspelt_pattern_key_and_direction_are_located_with_suggestions(tmp_path):
    """A misspelt 'turns' key and a misspelt direction inside a pattern are each reported at their place with a did-you-mean."""
    path = write(tmp_path, "rounds:\n  pass: [{turn: [left]}, {turns: [lfet]}, left]\n")
    assert problems(path) == [
        (6, 11, "unknown key 'turn' in an item of 'pass' (did you mean 'turns'?)"),
        (6, 35, "item 1 of 'turns' must be one of left, right, none, not 'lfet' (did you mean 'left'?)"),
    ]


def test_an_empty_pattern_is_refused(tmp_path):
    """A pattern with no direction is refused at its list."""
    path = write(tmp_path, "rounds:\n  pass: {turns: []}\n")
    assert problems(path) == [(6, 17, "'turns' must not be empty")]


def test_a_list_of_patterns_must_have_one_per_round(tmp_path):
    """A list mixing directions and patterns is still counted against rounds.count, located at 'pass'."""
    path = write(tmp_path, "rounds:\n  pass: [{turns: [left, right]}, left]\n")
    assert problems(path) == [(6, 9, "'pass' lists 2 directions for 3 rounds")]


def test_show_says_the_patterns_in_plain_words(switchback):
    """show describes each round's pass pattern turn by turn."""
    text = describe(switchback)
    assert (
        "  Hands pass in round 1: turn by turn left, right (then again from the start); "
        "in round 2: right after every turn; "
        "in round 3: turn by turn left, left, none (then again from the start)."
    ) in text.splitlines()


def test_show_says_one_pattern_for_every_round(tmp_path):
    """show describes a pattern shared by every round once."""
    rs = load_ruleset(write(tmp_path, "rounds:\n  pass: {turns: [left, right]}\n"))
    assert (
        "  Hands pass turn by turn left, right (then again from the start), every round." in describe(rs).splitlines()
    )


# ---------------------------------------------------------------- the engine


def _bots(players, seed):
    return [make_agent("random", bot_seed(seed, s)) for s in range(players)]


def test_hands_move_as_the_pattern_says_each_turn(switchback):
    """After each turn of each round, every remaining hand is the one the pattern's direction brings to that seat."""
    game = Game(switchback, 4)
    state = game.new_initial_state(3)
    bots = _bots(4, 3)
    checked = 0
    while not state.finished:
        rnd, turn = state.round, state.turn
        before = [Counter(h) for h in state.hands]
        tables = [Counter(p) for p in state.played]
        state.apply_actions([b.act(state, s) for s, b in enumerate(bots)])
        if state.round != rnd or sum(before[0].values()) <= 2:
            continue  # the round ended (its last card is played automatically)
        d = switchback.pass_direction(rnd, turn)
        for seat in range(4):
            now = Counter(state.played[seat])
            # what the seat passes on: its hand, less the cards it put down, plus any it took back (chopsticks)
            left = before[seat] - (now - tables[seat]) + (tables[seat] - now)
            assert Counter(state.hands[(seat + d) % 4]) == left
        checked += 1
    assert checked > 10


@settings(max_examples=25, deadline=None)
@given(players=st.integers(3, 5), seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 20))
def test_play_out_with_patterns_is_the_same_game_as_sampling_and_applying(players, seed, turns):
    """With per-turn patterns, State.play_out plays draw for draw the game sample_action and apply_actions give."""
    game = Game(load_ruleset(EXAMPLE), players)
    state = game.new_initial_state(seed)
    bots = _bots(players, seed)
    for _ in range(turns):
        if state.finished:
            break
        state.apply_actions([b.act(state, s) for s, b in enumerate(bots)])
    fast, slow = state.clone(), state.clone()
    fast.play_out([random.Random(seed + s).random for s in range(players)])
    streams = [random.Random(seed + s).random for s in range(players)]
    while not slow.is_terminal():
        slow.apply_actions([slow.sample_action(s, streams[s]) for s in slow.acting_seats()])
    assert fast.history == slow.history
    assert fast.totals() == slow.totals()


@settings(max_examples=20, deadline=None)
@given(players=st.integers(3, 5), seed=st.integers(0, 2**32 - 1))
def test_known_hands_are_the_hands_the_seat_has_held(players, seed):
    """known_hands lists exactly the other seats whose current hand passed through the seat this round."""
    game = Game(load_ruleset(EXAMPLE), players)
    state = game.new_initial_state(seed)
    bots = _bots(players, seed)
    held: list[set[int]] = []  # per seat: ids of the hand lists it has held this round
    rnd = -1
    while not state.finished:
        if state.round != rnd:
            rnd = state.round
            held = [set() for _ in range(players)]
        for seat in range(players):
            held[seat].add(id(state.hands[seat]))
        for seat in range(players):
            expected = {o for o in range(players) if o != seat and id(state.hands[o]) in held[seat]}
            assert set(game.procedure.known_hands(state, seat)) == expected
        state.apply_actions([b.act(state, s) for s, b in enumerate(bots)])


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_dealt_card_is_accounted_for_and_logs_replay(switchback, players):
    """Random games with patterns and pudding held back keep every card dealt, in the deck or held back, and their logs replay clean."""
    game = Game(switchback, players)
    for seed in range(5):
        state = game.new_initial_state(seed)
        bots = _bots(players, seed)
        while not state.finished:
            rnd = state.round
            state.apply_actions([b.act(state, s) for s, b in enumerate(bots)])
            if state.round == rnd and not state.finished:
                in_play = Counter()
                for seat in range(players):
                    in_play.update(state.hands[seat])
                    in_play.update(state.played[seat])
                assert in_play == Counter(c for hand in state.history[-1].hands for c in hand)
                dealt = Counter(c for r in state.history for hand in r.hands for c in hand)
                held = Counter(c for reserve in state.reserves for c in reserve)
                assert dealt + Counter(state.deck[state.deck_pos :]) + held == Counter(switchback.catalogue.deck())
        record = record_game(state, ["random"] * players)
        assert replay_record(switchback, record) == []


# ---------------------------------------------------------------- play


def test_play_shows_the_direction_of_each_turn():
    """play's turn heading names the direction hands pass after that turn, following the pattern."""
    result = CliRunner().invoke(
        app, ["play", EXAMPLE, "--players", "3", "--seed", "2"], input="1\n" * 80, env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    headings = re.findall(r"--- Round (\d) of 3, turn (\d+) of 9 \(hands (pass \w+|do not pass)\) ---", result.output)
    by_round = {r: [d for rr, _t, d in headings if rr == r] for r in "123"}
    assert by_round["1"][:4] == ["pass left", "pass right", "pass left", "pass right"]
    assert set(by_round["2"]) == {"pass right"}
    # a turn whose hands stay put says so, never "hands pass none"
    assert by_round["3"][:6] == ["pass left", "pass left", "do not pass", "pass left", "pass left", "do not pass"]
    assert "hands pass none" not in result.output
