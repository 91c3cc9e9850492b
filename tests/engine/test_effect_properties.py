"""Properties of play over every bundled ruleset, every example with card effects and the
test data's effect rulesets: scoring is fair to seats, no card is lost or made, a seed is a
game, and random play never raises."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import (
    effect_examples,
    permuted_played_game,
    played_game,
    played_ruleset,
    played_setups,
    played_sources,
    seat_permutations,
    source_id,
)

from ruledraft.engine.scoresheet import PlayedGame, score_game
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import play_game

sources = pytest.mark.parametrize("source", played_sources(), ids=source_id)
#: the sources scored from their tables alone (a race needs the turns: ``score_game`` refuses it)
table_scored = pytest.mark.parametrize(
    "source",
    [s for s in played_sources() if not played_game(s, played_ruleset(s).min_players).turn_rules],
    ids=source_id,
)


def test_the_examples_with_effects_are_found():
    """The original game and the Party sampler menu are the examples with effects the properties run over."""
    assert [source_id(s) for s in effect_examples()] == ["caravan-bazaar", "sushi-go-party-sampler"]


@table_scored
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_permuting_the_seats_of_a_finished_game_permutes_its_scores(source, data):
    """Scoring a finished game's record with its players' seats permuted permutes every
    seat's round points, game-end points, totals and the winners."""
    players, seed, _ = data.draw(played_setups(source))
    g = played_game(source, players)
    state = g.new_initial_state(seed)
    state.play_out([random.Random(seed + s).random for s in range(players)])
    played = PlayedGame.from_history(players, state.history)
    sheet = score_game(played_ruleset(source), played)
    assert (sheet.totals, sheet.winners) == (state.totals(), state.winners)
    perm = data.draw(seat_permutations(players))
    order = perm + list(range(players, g.num_seats))
    moved = score_game(played_ruleset(source), permuted_played_game(played, perm))
    assert moved.totals == [sheet.totals[s] for s in order]
    assert moved.round_points == [[rnd[s] for s in order] for rnd in sheet.round_points]
    assert moved.game_end_points == [sheet.game_end_points[s] for s in order]
    assert moved.winners == sorted(i for i, s in enumerate(order) if s in sheet.winners)


@sources
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_every_dealt_card_is_accounted_for_at_all_times(source, data):
    """After every pick and every decision of a random game, the cards in hands, on tables,
    in the deck, kept, held back, shown for a decision, discarded or out of play since an
    earlier round (``State.all_cards``) are the whole deck."""
    players, seed, _ = data.draw(played_setups(source))
    g = played_game(source, players)
    everything = sorted(played_ruleset(source).catalogue.deck())
    state = g.new_initial_state(seed)
    rngs = [random.Random(seed + s).random for s in range(g.num_seats)]
    steps = 0
    while not state.is_terminal():
        assert state.all_cards() == everything, (state.round, state.turn)
        state.apply_actions([state.sample_action(s, rngs[s]) for s in state.acting_seats()])
        steps += 1
    assert state.all_cards() == everything
    assert steps >= played_ruleset(source).rounds


@sources
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_a_fixed_seed_replays_the_same_game(source, data):
    """The same seed and bots play the same game twice (the same history and scores), and its log replays clean."""
    players, seed, bots = data.draw(played_setups(source))
    g = played_game(source, players)
    first = play_game(g, seed, bots)
    again = play_game(g, seed, bots)
    assert first.history == again.history
    assert (first.totals(), first.winners) == (again.totals(), again.winners)
    record = record_game(first, bots)
    assert record == record_game(again, bots)
    assert replay_record(played_ruleset(source), record) == []


@sources
@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_random_and_greedy_play_never_raises(source, data):
    """Random and greedy bots, in any mix and at any allowed player count, finish the game with a score for every seat."""
    players, seed, bots = data.draw(played_setups(source))
    g = played_game(source, players)
    state = play_game(g, seed, bots)
    assert state.finished
    assert len(state.totals()) == g.num_seats
    assert state.winners
