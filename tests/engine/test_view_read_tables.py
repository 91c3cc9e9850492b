"""The tables the built-in bots read in place while they act (engine.view.read_tables, read_kept) and the one mover that asks them (engine.view.trusted_mover)."""

from __future__ import annotations

import inspect
import random

import pytest
from strategies import played_game, played_ruleset, played_sources, source_id
from strategies import played_positions as positions

from ruledraft.engine import view as view_module
from ruledraft.engine.view import SeatView, act_on_view, read_kept, read_tables, seat_view, trusted_mover
from ruledraft.play import agents
from ruledraft.tableau import Tableau

SOURCES = played_sources()


def view_answers(view: SeatView) -> tuple:
    """What the views' tests compare: the hand, the tables, the legal moves, the round and turn."""
    return (view.hand, view.tables, view.kept_counts, tuple(view.legal_actions()), view.round, view.turn)


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


@pytest.mark.parametrize("bot", ["greedy", "value", "first"])
@pytest.mark.parametrize(
    ("rid", "players", "moves"),
    [
        ("sushi-go", 4, 4 * 21),
        ("sushi-go-party-master-menu", 4, None),
        ("sushi-go-party-party-sampler", 5, None),
        ("sushi-go-two-player-dummy", 2, None),
    ],
)
def test_built_in_bots_play_the_same_game_through_the_mover_as_on_full_views(rid, players, moves, bot):
    """A table of one built-in bot asked through seat_mover (its picks handed the tables in place, no view; decisions on quick views), each agent kept the whole game, makes every move the same agents make on seat_view's views, and leaves the game's tables as they were before each move."""
    game = played_game(rid, players)
    state = game.new_initial_state(11)
    quick = [agents.make_agent(bot, s) for s in range(players)]
    slow = [agents.make_agent(bot, s) for s in range(players)]
    movers = [agents.seat_mover(a, bot, state, 11, foreign=False) for a in quick]
    made = decided = 0
    while not state.is_terminal():
        seats = state.acting_seats()
        decided += state.pending is not None
        tables = ([row[:] for row in state.counts], [seq[:] for seq in state.played], [k[:] for k in state.kept_counts])
        expected = [slow[s].act(seat_view(state, s), s) for s in seats]
        got = [movers[s](s) for s in seats]
        assert got == expected
        assert (state.counts, state.played, state.kept_counts) == tables
        state.apply_actions(got)
        made += len(got)
    assert made == moves if moves is not None else made > 20
    assert decided or rid in ("sushi-go", "sushi-go-two-player-dummy")
    del movers  # the game's movers gone, nothing of the game is left behind
    assert not view_module._LIVE


def test_nothing_handed_to_a_pick_leads_to_the_game_state():
    """What the mover hands a pick (its legal moves, the game, two readers of the tables) reaches no part of the live state, the readers give the state's tables while the pick runs, a reader kept past the pick reads nothing, and nothing is left once the mover is gone."""
    state = played_game("sushi-go", 4).new_initial_state(6)
    handed = []

    def pick(seat, legal, game, tables, kept_tables):
        handed.append((legal, game, tables, kept_tables, parts(tables()), parts(kept_tables())))
        return legal[0]

    move = trusted_mover(lambda view, seat: 0, state, lambda s, a: a, pick=pick)
    move(1)
    ((legal, game, tables, kept_tables, read, read_kept),) = handed
    assert game is not state.game  # the views' twin
    assert read == parts(state.tableau()) and read_kept == parts(state.kept_tableau())
    hidden = {id(state), id(state.deck), id(state.hands), *map(id, state.hands)}
    seen: set[int] = set()
    stack = [legal, tables, kept_tables]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (int, str, type(None))):
            continue
        seen.add(id(obj))
        assert id(obj) not in hidden, obj
        if isinstance(obj, list):
            stack.extend(obj)
        elif inspect.ismethod(obj):
            stack.append(obj.__self__)
        elif type(obj).__name__ == "_PickReader":
            assert not getattr(obj, "__dict__", None)  # it holds nothing
        else:
            raise AssertionError(f"unexpected {type(obj).__name__} handed to a pick")
    with pytest.raises(KeyError):
        tables()  # past the pick
    with pytest.raises(KeyError):
        kept_tables()
    handed.clear()
    del move, tables, kept_tables  # the mover and its readers gone, nothing is left behind
    assert not view_module._LIVE


def test_a_bot_with_one_legal_move_is_asked_only_when_the_mover_is_not_told_it_plays_it():
    """With forced=True a seat's only legal move is played without asking the bot (the built-in bots take it without reading or drawing); without, the bot is asked and its answer checked."""
    state = played_game("sushi-go", 2).new_initial_state(4)
    rng = random.Random(4)
    while len(state.legal_actions(0)) != 1:
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    asked = []

    def act(view, seat):
        asked.append(seat)
        return -7

    refused = []
    quick = trusted_mover(act, state, lambda seat, action: refused.append(action) or -1, forced=True)
    slow = trusted_mover(act, state, lambda seat, action: refused.append(action) or -1)
    assert quick(0) == state.legal_actions(0)[0] and asked == []
    assert slow(0) == -1 and asked == [0] and refused == [-7]
    assert not view_module._LIVE


def test_each_view_a_bot_keeps_through_the_mover_answers_as_at_its_own_move():
    """A mover hands a seat's quick view again only while nothing else holds it: views a bot keeps over several moves are distinct full views, each answering as seat_view's view of its own move."""
    state = played_game("sushi-go", 3).new_initial_state(8)
    rng = random.Random(8)
    kept: list = []
    move = trusted_mover(lambda view, seat: kept.append(view) or view.legal_actions()[0], state, lambda s, a: a)
    then = []
    for _ in range(3):
        then.append(view_answers(seat_view(state, 1)))
        action = move(1)
        state.apply_actions([action if s == 1 else state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert len({id(v) for v in kept}) == 3
    assert all(type(v) is SeatView for v in kept)
    assert [view_answers(v) for v in kept] == then
    assert not view_module._LIVE


def test_a_view_nothing_keeps_is_handed_again_and_still_answers_as_now():
    """The view a bot drops is handed to it again at its next move, answering as seat_view's view of that move."""
    state = played_game("sushi-go", 3).new_initial_state(9)
    rng = random.Random(9)
    seen: list = []

    def act(view, seat):
        seen.append((id(view), view_answers(view)))
        return view.legal_actions()[0]

    move = trusted_mover(act, state, lambda s, a: a)
    expected = []
    for _ in range(3):
        expected.append(view_answers(seat_view(state, 2)))
        action = move(2)
        state.apply_actions([action if s == 2 else state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert len({i for i, _ in seen}) == 1
    assert [a for _, a in seen] == expected
    assert not view_module._LIVE


def test_a_pick_that_chooses_an_illegal_move_is_refused():
    """A pick handed to the mover is checked as a view's bot is: an illegal move goes to refuse."""
    state = played_game("sushi-go", 4).new_initial_state(3)
    refused = []
    move = trusted_mover(
        lambda view, seat: 0, state, lambda seat, action: refused.append(action) or -1, pick=lambda *read: 99
    )
    assert move(1) == -1 and refused == [99]


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
