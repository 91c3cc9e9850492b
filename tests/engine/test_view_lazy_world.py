"""A seat's view of a plain state holds tuples and makes its world only when asked: the same world as made at once."""

from __future__ import annotations

import random
from types import MappingProxyType

import pytest
from strategies import played_game, played_ruleset, played_sources, source_id

from ruledraft.engine import view as view_module
from ruledraft.engine.state import State
from ruledraft.engine.view import seat_view

SOURCES = played_sources()


def dump(obj, depth=0):
    """Every value reachable from ``obj`` as plain data (games and rule definitions by name)."""
    if isinstance(obj, (int, float, str, bytes, bool, type(None))):
        return obj
    if type(obj).__module__.startswith("ruledraft.language") or type(obj).__name__ == "Game" or depth > 40:
        return type(obj).__name__
    if isinstance(obj, dict | MappingProxyType):
        return sorted((repr(k), dump(v, depth + 1)) for k, v in obj.items())
    if isinstance(obj, list | tuple):
        return [type(obj).__name__, [dump(v, depth + 1) for v in obj]]
    fields = {}
    for klass in type(obj).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if hasattr(obj, name):
                fields[name] = dump(getattr(obj, name), depth + 1)
    if hasattr(obj, "__dict__"):
        fields.update((k, dump(v, depth + 1)) for k, v in vars(obj).items())
    return [type(obj).__name__, sorted(fields.items())]


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_a_views_world_made_late_is_the_world_made_at_once(source):
    """For every seat all game long, the world a view makes when asked (lists and tuples alike) is the one built straight from the state, and its legal moves, known hands and rule points are the state's."""
    rs = played_ruleset(source)
    late = 0
    for players in sorted({rs.min_players, rs.max_players}):
        game = played_game(source, players)
        state = game.new_initial_state(21)
        rng = random.Random(21)
        while True:
            for seat in range(game.num_seats):
                held = game.procedure.known_hands(state, seat)
                view = seat_view(state, seat)
                now = view_module._world_of(state, seat, held)
                assert dump(view.world()) == dump(now)
                assert view.legal_actions() == state.legal_actions(seat)
                assert dict(view.known_hands) == view_module._known(state, seat, held)
                assert dict(view.rule_points) == {k: tuple(v) for k, v in state.rule_points.items()}
                late += not isinstance(view._world, State)
            if state.is_terminal():
                break
            state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert late or game.procedure.general or "dummy" in source


def test_the_world_of_a_view_kept_past_its_turn_is_still_that_turns():
    """A view kept while the game moves on answers, and builds its world, as at the moment it was made."""
    game = played_game("sushi-go", 4)
    state = game.new_initial_state(8)
    rng = random.Random(8)
    for _ in range(9):
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    view = seat_view(state, 1)
    before = dump(view_module._world_of(state, 1, game.procedure.known_hands(state, 1)))
    hand, tables, kept = view.hand, view.tables, view.kept
    for _ in range(12):  # into the next round
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert state.round == view.round + 1
    assert dump(view.world()) == before
    assert (view.hand, view.tables, view.kept) == (hand, tables, kept)
    assert seat_view(state, 1).round == state.round
