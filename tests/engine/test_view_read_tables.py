"""The tables the built-in bots read in place while they act (engine.view.read_tables, read_kept) and the one mover that asks them (engine.view.trusted_mover)."""

from __future__ import annotations

import random

import pytest
from strategies import played_game, played_ruleset, played_sources, source_id
from strategies import played_positions as positions

from ruledraft.engine import view as view_module
from ruledraft.engine.view import SeatView, act_on_view, read_kept, read_tables, seat_view, trusted_mover
from ruledraft.play import agents
from ruledraft.tableau import Tableau

SOURCES = played_sources()


def parts(t: Tableau) -> tuple:
    """A tableau as comparable data."""
    return (t.counts, t.cards, t.round, t.turned, t.echoes)


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_read_tables_answers_as_the_views_copies(source):
    """On a built-in bot's quick view, read_tables and read_kept give what seat_view's view's tableau() and kept_tableau() give, all game long (effects' face-down cards included), and leave the view quick."""
    checked = 0
    for state in positions(source, 4, played_ruleset(source).max_players):
        for seat in state.acting_seats():
            full = seat_view(state, seat)
            got = []

            def read(view, s, got=got):
                got.append((parts(read_tables(view)), parts(read_kept(view))))
                assert type(view) is not SeatView  # still the quick view
                return view.legal_actions()[0]

            act_on_view(read, state, seat)
            assert got == [(parts(full.tableau()), parts(full.kept_tableau()))]
            checked += 1
    assert checked > 10


def test_read_tables_of_any_other_view_is_a_copy():
    """A view that is not a built-in bot's quick view is answered with its own copy: changing it changes neither the view nor the game."""
    state = played_game("sushi-go", 3).new_initial_state(2)
    rng = random.Random(2)
    for _ in range(4):
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    view = seat_view(state, 1)
    before = [row[:] for row in state.counts]
    t, k = read_tables(view), read_kept(view)
    t.counts[0][0] += 5
    t.cards[0].append(0)
    k.counts[1][1] += 5
    assert state.counts == before
    assert parts(view.tableau()) != parts(t)
    assert view.tableau().counts == before


def test_the_trusted_mover_refuses_an_illegal_move_and_leaves_nothing_behind():
    """trusted_mover returns a legal move as it is, hands an illegal one (or a non-int) to refuse, and holds no state afterwards."""
    state = played_game("sushi-go", 4).new_initial_state(3)
    refused = []
    moves = iter([None, 10**6, "0"])

    def odd(view, seat):
        return next(moves, None) if seat == 2 else view.legal_actions()[-1]

    move = trusted_mover(odd, state, lambda seat, action: refused.append((seat, action)) or -1)
    assert move(0) == state.legal_actions(0)[-1]
    assert [move(2), move(2), move(2)] == [-1, -1, -1]
    assert refused == [(2, None), (2, 10**6), (2, "0")]
    assert not view_module._LIVE


def test_greedy_plays_the_same_game_through_the_mover_as_on_full_views():
    """A table of greedy bots asked through seat_mover (quick views, tables read in place) makes every move greedy makes on seat_view's views, and leaves the game's tables as they were before each move."""
    game = played_game("sushi-go", 4)
    state = game.new_initial_state(11)
    quick = [agents.GreedyAgent(s) for s in range(4)]
    slow = [agents.GreedyAgent(s) for s in range(4)]
    movers = [agents.seat_mover(a, "greedy", state, 11, foreign=False) for a in quick]
    moves = 0
    while not state.is_terminal():
        seats = state.acting_seats()
        tables = ([row[:] for row in state.counts], [seq[:] for seq in state.played], [k[:] for k in state.kept_counts])
        expected = [slow[s].act(seat_view(state, s), s) for s in seats]
        got = [movers[s](s) for s in seats]
        assert got == expected
        assert (state.counts, state.played, state.kept_counts) == tables
        state.apply_actions(got)
        moves += len(got)
    assert moves == 4 * 21
    assert not view_module._LIVE


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_resample_hidden_into_itself_deals_what_a_copy_gets(source):
    """resample_hidden(copy=False) deals into the state itself the very cards a copy gets from the same draws (hands, deck, dummy piles, drawn cards, reserves, a re-drawn decision), all game long."""
    checked = 0
    for state in positions(source, 6, played_ruleset(source).min_players):
        for seat in state.acting_seats():
            copied = state.resample_hidden(seat, random.Random(seat).random)
            target = state.clone()
            dealt = target.resample_hidden(seat, random.Random(seat).random, copy=False)
            assert dealt is target
            got = [
                (w.hands, w.deck[w.deck_pos :], w.dummy_piles, w.drawn, w.reserves, w.pending) for w in (dealt, copied)
            ]
            assert got[0] == got[1]
            checked += 1
    assert checked > 10
