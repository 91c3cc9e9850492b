"""The ``planner`` bot: legal, reproducible, blind to what its seat cannot see, stronger than greedy."""

from __future__ import annotations

import random

import pytest
import strategies
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.play.agents import BotSpecError, make_agent, parse_bot
from ruledraft.play.ismcts import ISMCTSAgent
from ruledraft.play.planner import COUNT_CAP, PlannerAgent, count_values
from ruledraft.play.runner import simulate


@settings(max_examples=15, deadline=None)
@given(strategies.bundled_ruleset_ids(), strategies.game_seeds(), st.integers(0, 2**32 - 1), st.data())
def test_planner_plays_only_legal_moves_on_every_bundled_ruleset(rid, seed, bot_seed, data):
    """Every move a planner bot makes, at every seat of a whole game, is a legal action."""
    rs = strategies.bundled_ruleset(rid)
    players = data.draw(st.integers(rs.min_players, rs.max_players))
    game = strategies.bundled_game(rid, players)
    state = game.new_initial_state(seed)
    bots = [PlannerAgent(bot_seed + s, samples=1) for s in range(players)]
    while not state.is_terminal():
        seats = state.acting_seats()
        actions = [bots[s].act(state, s) for s in seats]
        for s, a in zip(seats, actions):
            assert a in state.legal_actions(s)
        state.apply_actions(actions)
    assert state.is_terminal()


@pytest.mark.parametrize("rid", strategies.BUNDLED_RULESETS)
def test_planner_move_is_the_same_for_the_same_seed(rid):
    """Planner bots with the same seed choose the same move in the same state, every turn of a game."""
    rs = strategies.bundled_ruleset(rid)
    for turns in (0, 3, 9):
        state = strategies.midgame(rid, rs.min_players, 7, turns)
        assert not state.is_terminal()
        seat = state.acting_seats()[0]  # seat 0, or the seat a card effect asks
        moves = {PlannerAgent(5, samples=3).act(state.clone(), seat) for _ in range(3)}
        assert len(moves) == 1
        assert moves <= set(state.legal_actions(seat))


@pytest.mark.parametrize("rid", strategies.BUNDLED_RULESETS)
@pytest.mark.parametrize("turns", [0, 2, 5])
def test_planner_does_not_peek_at_hidden_cards(rid, turns):
    """A state and a copy with everything the seat cannot see dealt again give the same move."""
    rs = strategies.bundled_ruleset(rid)
    players = rs.min_players
    for seed in range(4):
        state = strategies.midgame(rid, players, seed, turns)
        acting = state.acting_seats()  # a card effect's decision: only the deciding seat acts
        seat = acting[seed % len(acting)]
        other = state.resample_hidden(seat, random.Random(seed + 100).random)
        assert other.hands[seat] == state.hands[seat]
        assert PlannerAgent(3).act(state, seat) == PlannerAgent(3).act(other, seat)


def test_planner_beats_greedy_in_a_small_match():
    """Against three greedy bots over 60 four-player games, the planner wins clearly more than its fair share."""
    rs = strategies.bundled_ruleset("sushi-go")
    summary = simulate(rs, 4, 60, 3, ["planner:samples=2"] + ["greedy"] * 3, jobs=2)
    assert summary.seats[0].win_share > 0.45


def test_count_values_see_that_a_card_completes_a_set():
    """In Sushi Go!, one more sashimi is worth most to a seat that has two, and one more tempura to a seat that has one."""
    game = strategies.bundled_game("sushi-go", 4)
    values = count_values(game)
    index = game.ruleset.catalogue.index_of
    sashimi, tempura = values[index("sashimi")], values[index("tempura")]
    assert sashimi[2] == max(sashimi)
    assert sashimi[2] > 5 > sashimi[0]
    assert tempura[1] > 3 > tempura[0]
    assert len(sashimi) == COUNT_CAP + 1
    assert count_values(strategies.bundled_game("sushi-go", 4)) is values  # measured once


def test_planner_takes_its_options_from_the_spec():
    """The spec's samples reach the bot; the default is 4 deals per decision."""
    assert parse_bot("planner:samples=9").make(1).samples == 9
    assert make_agent("planner", 1).samples == 4


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("planner:samples=0", "bot 'planner:samples=0': option samples=0: must be at least 1"),
        (  # 2**63 deals overflowed the kernel's count: the engines played different games
            "planner:samples=9223372036854775808",
            "bot 'planner:samples=9223372036854775808': option samples=9223372036854775808: must be at most 10,000",
        ),
        ("planner:samples=many", "bot 'planner:samples=many': option samples=many: expected a whole number"),
        ("planner:depth=3", "bot 'planner:depth=3': unknown option 'depth' (options of planner: samples)"),
    ],
)
def test_bad_planner_options_are_one_line_errors(spec, message):
    """A bad planner option is refused when parsed, and by simulate in one line with exit status 2."""
    with pytest.raises(BotSpecError) as e:
        parse_bot(spec)
    assert str(e.value) == message
    result = CliRunner().invoke(app, ["simulate", "sushi-go", "--players", "4", "--games", "1", "--bots", spec, "-q"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: {message}"]


def test_bots_lists_planner_with_its_option_and_default():
    """`ruledraft bots` lists planner with its summary and its samples option and default."""
    result = CliRunner().invoke(app, ["bots"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("planner: "))
    assert lines[at] == (
        "planner: Values a move by what it is worth at round end: a few deals of the unseen cards, "
        "the rest of the round played out by count-aware card values (planner:samples=8)."
    )
    assert lines[at + 1] == "  samples=integer (default 4, at most 10,000): deals of the unseen cards per decision"


@pytest.mark.parametrize("rid", strategies.BUNDLED_RULESETS)
def test_ismcts_with_random_rollouts_still_plays_a_whole_game(rid):
    """ismcts:rollout=random plays a whole game of legal moves on every bundled ruleset."""
    rs = strategies.bundled_ruleset(rid)
    game = strategies.bundled_game(rid, rs.min_players)
    state = game.new_initial_state(4)
    bots = [ISMCTSAgent(s, iterations=3, rollout="random") for s in range(game.num_players)]
    while not state.is_terminal():
        seats = state.acting_seats()
        actions = [bots[s].act(state, s) for s in seats]
        for s, a in zip(seats, actions):
            assert a in state.legal_actions(s)
        state.apply_actions(actions)


def test_ismcts_rolls_out_by_card_values_unless_told_otherwise():
    """ismcts defaults to rollout=values; rollout=random is taken; anything else is a one-line error."""
    assert make_agent("ismcts", 1).rollout == "values"
    assert parse_bot("ismcts:rollout=random").make(1).rollout == "random"
    with pytest.raises(BotSpecError) as e:
        parse_bot("ismcts:rollout=smart")
    assert str(e.value) == "bot 'ismcts:rollout=smart': option rollout=smart: expected values or random"


@pytest.mark.parametrize("name", ["effects-small", "effects-flip-copy", "effects-spoon", "effects-race"])
def test_planner_and_ismcts_play_through_card_effect_decisions(name):
    """On rulesets whose cards ask for decisions (menu, chopsticks, takeout box, special order, spoon, a race), planner and ismcts with card-value roll-outs play whole games, every move legal, and the logs replay."""

    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.game_log import record_game, replay_record
    from ruledraft.play.runner import play_game

    ruleset = load_ruleset(DATA / f"{name}.yaml")
    bots = ["planner", "ismcts:iterations=8", "planner:samples=1"]
    state = play_game(Game(ruleset, 3), 11, bots)
    assert state.is_terminal()
    if name != "effects-race":  # the race scores at turn ends and asks nothing
        assert any(t.decisions for r in state.history for t in r.turns), "no decision was asked"
    assert replay_record(ruleset, record_game(state, bots)) == []
