"""The view a built-in bot is handed while it acts (engine.view.act_on_view): the answers of seat_view's view, nothing reachable that is part of the game, the full view once kept."""

from __future__ import annotations

import random
from types import MappingProxyType

import pytest
from strategies import played_game, played_positions, played_ruleset, played_sources, source_id

from ruledraft.engine import view as view_module
from ruledraft.engine.records import RoundRecord
from ruledraft.engine.scoresheet import ScoreSheet, Scoring
from ruledraft.engine.state import Game, State
from ruledraft.engine.view import SeatView, act_on_view, seat_view
from ruledraft.language.catalogue import CardType, Catalogue
from ruledraft.language.decision import Decision
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play import agents
from ruledraft.tableau import Tableau

SOURCES = played_sources()

#: what a view answers without arguments (properties, and methods called bare)
PROPERTIES = (
    "seat players num_seats game ruleset round turn rounds finished hand hand_sizes tables table_counts played "
    "counts kept kept_cards kept_counts controls_dummy acting pending deciding_seat families done_action "
    "num_card_types cards scores round_scores winners known_hands can_use_action rule_points history events"
).split()
METHODS = "is_terminal tableau kept_tableau acting_seats legal_actions totals round_points_now".split()


def plain(value):
    """An answer as comparable data (tableaux by their parts, mappings as dicts)."""
    if isinstance(value, Tableau):
        return ("Tableau", value.counts, value.cards, value.round, value.turned, value.echoes)
    if isinstance(value, MappingProxyType):
        return dict(value)
    return value


def answers(view: SeatView) -> dict:
    """Every answer of ``view`` that needs no argument, and the moves decoded."""
    out = {name: plain(getattr(view, name)) for name in PROPERTIES}
    out.update((name, plain(getattr(view, name)())) for name in METHODS)
    out["decoded"] = [view.decode_action(a) for a in view.legal_actions()]
    out["ids"] = [(view.card_id(c), view.card_name(c)) for c in range(view.num_card_types)]
    return out


def dump(obj, depth=0):
    """Every value reachable from ``obj`` as plain data (the rules and games by name)."""
    if isinstance(obj, (int, float, str, bytes, bool, type(None))):
        return obj
    if isinstance(obj, (CompiledRuleset, Catalogue, CardType, Game)) or definition(obj) or depth > 40:
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
    if hasattr(obj, "__dict__") and not callable(obj):
        fields.update((k, dump(v, depth + 1)) for k, v in vars(obj).items())
    return [type(obj).__name__, sorted(fields.items())]


def positions(source: str, seed: int, players: int):
    """Every state of one random game, the finished one too."""
    return played_positions(source, seed, players, last=True)


def definition(obj) -> bool:
    """Whether ``obj`` is part of the compiled rules (a rule, an effect and their memos): shared by every game of a ruleset."""
    return type(obj).__module__.startswith("ruledraft.language") and not isinstance(obj, Decision)


def reachable(root, stop=()) -> dict[int, object]:
    """Every object reachable from ``root`` through attributes and containers, short of the rule definitions (and ``stop``)."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (int, float, str, bytes, bool, type(None))):
            continue
        seen[id(obj)] = obj
        if isinstance(obj, (CompiledRuleset, Catalogue, CardType, type, *stop)) or definition(obj):
            continue
        if isinstance(obj, dict | MappingProxyType):
            todo.extend(obj.keys())
            todo.extend(obj.values())
        elif isinstance(obj, list | tuple | set | frozenset):
            todo.extend(obj)
        for klass in type(obj).__mro__:
            for name in getattr(klass, "__slots__", ()):
                if hasattr(obj, name):
                    todo.append(getattr(obj, name))
        if hasattr(obj, "__dict__") and not callable(obj):
            todo.extend(vars(obj).values())
    return seen


def live_parts(state: State) -> set[int]:
    """The ids of the game's own changeable objects: the state, its lists, records, scorings, book (its
    rules, the ``Game``, are shared with the views' twin games as seat_view's views share them)."""
    found = reachable(state, stop=(Game,))
    kinds = (list, dict, set, State, RoundRecord, Scoring, ScoreSheet)
    return {i for i, o in found.items() if isinstance(o, kinds) or type(o).__name__ == "EffectBook"}


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_a_built_in_bots_view_answers_as_seat_views_view(source):
    """For every acting seat all game long, at the smallest and largest tables, the view a built-in bot is handed answers everything as seat_view's view does, reaching nothing of the game, and is not the full view until asked for more than it reads."""
    checked = 0
    rs = played_ruleset(source)
    for players in sorted({rs.min_players, rs.max_players}):
        for state in positions(source, 5, players):
            live = live_parts(state)
            for seat in state.acting_seats() or (0,):
                expected = answers(seat_view(state, seat))
                quick = {}

                def look(view, s, quick=quick, live=live):
                    assert type(view) is not SeatView  # not made whole yet
                    assert not live & set(reachable(view))
                    quick["seat"] = view.seat
                    quick["hand"] = view.hand
                    quick["tableau"] = plain(view.tableau())
                    quick["pending"] = view.pending
                    quick["legal"] = view.legal_actions()
                    assert type(view) is not SeatView  # what the built-in bots read leaves it so
                    got = answers(view)
                    assert not live & set(reachable(view))
                    quick["all"] = got
                    return (view.legal_actions() or [None])[0]

                action, legal = act_on_view(look, state, seat)
                assert quick["all"] == expected
                assert (quick["hand"], quick["tableau"], quick["pending"]) == (
                    expected["hand"],
                    expected["tableau"],
                    expected["pending"],
                )
                assert quick["legal"] == expected["legal_actions"]
                assert legal == (action is not None)
                checked += 1
    assert checked > 10


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_a_built_in_bots_view_deals_the_worlds_of_seat_views_view(source):
    """Dealt again with the same draws, the world a built-in bot's view gives is seat_view's view's, part for part, for every acting seat all game long (decisions of card effects included), holds nothing of the game, and leaves the view quick."""
    dealt = 0
    for state in positions(source, 9, played_ruleset(source).min_players):
        live = live_parts(state)
        for seat in state.acting_seats():
            expected = dump(seat_view(state, seat).sample_world(random.Random(seat).random))
            got = []

            def deal(view, s, got=got, live=live):
                world = view.sample_world(random.Random(s))
                assert not live & set(reachable(world))
                got.append(dump(world))
                assert type(view) is not SeatView
                return None

            act_on_view(deal, state, seat)
            assert got == [expected]
            dealt += 1
    assert dealt > 10


def test_a_view_kept_past_its_move_answers_as_then():
    """A built-in bot's view kept after its move is the full view of that moment: it answers, and makes its world, as seat_view's view of that moment, once the game has moved on."""
    game = played_game("sushi-go", 4)
    state = game.new_initial_state(3)
    rng = random.Random(3)
    for _ in range(5):
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    kept = []
    act_on_view(lambda view, seat: kept.append(view) or view.legal_actions()[0], state, 2)
    then = answers(seat_view(state, 2))
    world = seat_view(state, 2).world()
    for _ in range(6):  # into the next round
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert state.round == 1
    (view,) = kept
    assert type(view) is SeatView
    assert answers(view) == then
    assert view.world().hands == world.hands and view.world().history == world.history
    assert not view_module._LIVE  # nothing left behind


@pytest.mark.parametrize("rid", ["sushi-go", "sushi-go-party-master-menu", "sushi-go-party-party-sampler"])
def test_built_in_bots_make_the_same_moves_on_either_view(rid):
    """greedy, value and first, asked through checked_act with the live state (the quick view), make the moves they make on seat_view's view, decisions of card effects included."""
    game = Game(played_ruleset(rid), 4)
    moves = 0
    for seed in range(2):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            for seat in state.acting_seats():
                for name in ("greedy", "value", "first"):
                    quick = agents.checked_act(agents.make_agent(name, seed), name, state, seat, seed, foreign=False)
                    full = agents.make_agent(name, seed).act(seat_view(state, seat), seat)
                    assert quick == full, (name, rid)
                    moves += 1
            state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert moves > 100
    assert not view_module._LIVE


def test_a_bot_that_raises_leaves_nothing_behind():
    """A built-in bot's error goes up as it is, and the state it read is no longer held for its view."""
    state = played_game("sushi-go", 3).new_initial_state(1)

    def fails(view, seat):
        raise KeyError("boom")

    with pytest.raises(KeyError):
        act_on_view(fails, state, 0)
    assert not view_module._LIVE
