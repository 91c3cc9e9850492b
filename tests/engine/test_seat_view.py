"""A seat's view (ruledraft.engine.view): what a bot is handed, written as an attacker would try it."""

from __future__ import annotations

import json
import random
from types import MappingProxyType

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import played_game, played_ruleset, played_sources, source_id

from ruledraft.engine import view as view_module
from ruledraft.engine.records import RoundRecord
from ruledraft.engine.scoresheet import ScoreSheet, Scoring
from ruledraft.engine.state import Game, State
from ruledraft.engine.view import seat_view, twin_game
from ruledraft.language.catalogue import CardType, Catalogue
from ruledraft.language.decision import Decision
from ruledraft.language.loading import load_ruleset
from ruledraft.language.ruleset import CompiledRuleset

PROPERTY = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SOURCES = played_sources()


def positions(source: str, seed: int, players: int | None = None):
    """Every state of one random game of ``source`` (the state moves on: read each before the next)."""
    rs = played_ruleset(source)
    game = played_game(source, players if players is not None else rs.min_players)
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        yield state
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    yield state


def some_positions(source: str, seed: int, every: int = 3):
    """A few states of a random game (every ``every``-th), as clones."""
    return [s.clone() for i, s in enumerate(positions(source, seed)) if i % every == 0]


# ---------------------------------------------------------------- what the view says


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_the_view_answers_what_the_state_says_of_the_seat(source):
    """Hand, tables, kept cards, scores, legal moves, the pending decision and the known hands are the state's own, for every seat, all game long."""
    for state in positions(source, 7):
        for seat in range(state.game.num_seats):
            view = seat_view(state, seat)
            obs = state.observation(seat)
            ids = state.game.ruleset.catalogue.ids
            assert [ids[c] for c in view.hand] == obs.hand
            assert [[ids[c] for c in t] for t in view.tables] == obs.played
            assert [[ids[c] for c in k] for k in view.kept] == obs.kept
            assert list(view.hand_sizes) == obs.hand_sizes
            assert list(view.scores) == obs.scores
            assert [list(r) for r in view.round_scores] == obs.round_scores
            assert view.legal_actions() == state.legal_actions(seat)
            assert view.pending == obs.pending
            assert view.controls_dummy == obs.controls_dummy
            assert view.can_use_action == obs.can_use_action
            assert view.acting_seats() == (() if state.finished else state.acting_seats())
            # the same knowledge of the other hands, whole or in part (a card given back in
            # sight of all), a controller's drawn cards hidden from the others in both
            assert {s: sorted(ids[c] for c in cards) for s, cards in view.known_hands.items()} == {
                s: sorted(h) for s, h in obs.known_hands.items()
            }
            assert (view.round, view.turn, view.finished) == (state.round, state.turn, state.finished)
            assert list(view.winners) == state.winners


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_card_names_and_actions_come_from_the_view(source):
    """Card ids, display names and indices, and every legal action in words, without reaching into the ruleset's catalogue."""
    state = next(iter(positions(source, 3)))
    view = seat_view(state, 0)
    rs = state.game.ruleset
    for card in rs.catalogue.cards:
        assert view.card_id(card.index) == card.id
        assert view.card_name(card.index) == card.name
        assert view.card_index(card.id) == card.index
    for action in view.legal_actions():
        cards, dummy = view.decode_action(action)
        assert view.encode_action(cards, dummy) == action
        assert view.action_to_string(action) == state.game.action_to_string(action, state)
    with pytest.raises(KeyError):
        view.card_index("no-such-card")


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_the_view_as_json_is_plain_data_naming_cards(source):
    """to_dict() survives a JSON round trip and names the seat's hand and legal moves by card id."""
    for state in some_positions(source, 11, every=5):
        for seat in state.acting_seats() or (0,):
            view = seat_view(state, seat)
            data = view.to_dict()
            assert json.loads(json.dumps(data)) == data
            ids = state.game.ruleset.catalogue.ids
            assert data["hand"] == [ids[c] for c in state.hands[seat]]
            assert [a["action"] for a in data["legal_actions"]] == state.legal_actions(seat)
            assert len(data["history"]) == len(state.history)


def test_the_history_shows_only_what_the_seat_saw():
    """The visible history holds the seat's own dealt hands and every revealed pick, never another seat's deal."""
    states = list(s.clone() for s in positions("sushi-go", 5, players=3))
    state = states[-1]
    view = seat_view(state, 1)
    assert len(view.history) == 3
    for seen, record in zip(view.history, state.history):
        assert seen.dealt == tuple(record.hands[1])
        assert [t.actions for t in seen.turns] == [tuple(a) for a in record.actions]
        assert seen.tables == tuple(tuple(t) for t in record.tables)
    assert all(len(r.hands[0]) == 0 and len(r.hands[2]) == 0 for r in view.world().history)


# ---------------------------------------------------------------- an attacker


def definition(obj) -> bool:
    """Whether ``obj`` is part of the compiled rules (a rule, an effect, the catalogue):
    shared by every game of a ruleset, the real one and the views' worlds alike."""
    return type(obj).__module__.startswith("ruledraft.language") and not isinstance(obj, Decision)


def reachable(root, stop=()):
    """Every object reachable from ``root`` through attributes (slots included) and
    containers, but not into ``stop`` types nor the rule definitions every game shares."""
    seen: dict[int, object] = {}
    todo = [root]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (int, float, str, bytes, bool, type(None))):
            continue
        seen[id(obj)] = obj
        if isinstance(obj, stop) or definition(obj) or callable(obj) and not isinstance(obj, (State, RoundRecord)):
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
        if hasattr(obj, "__dict__"):
            todo.extend(vars(obj).values())
    return seen


DEFINITIONS = (CompiledRuleset, Catalogue, CardType, Game)


def dump(obj, depth=0):
    """Every value reachable from ``obj`` as plain data (the rule definitions by name)."""
    if isinstance(obj, (int, float, str, bytes, bool, type(None))):
        return obj
    if isinstance(obj, DEFINITIONS) or depth > 40:
        return type(obj).__name__
    if isinstance(obj, dict | MappingProxyType):
        return sorted((repr(k), dump(v, depth + 1)) for k, v in obj.items())
    if isinstance(obj, list | tuple):
        return [dump(v, depth + 1) for v in obj]
    if callable(obj):
        return "callable"
    fields = {}
    for klass in type(obj).__mro__:
        for name in getattr(klass, "__slots__", ()):
            if hasattr(obj, name):
                fields[name] = dump(getattr(obj, name), depth + 1)
    if hasattr(obj, "__dict__"):
        fields.update((k, dump(v, depth + 1)) for k, v in vars(obj).items())
    if not fields:
        return type(obj).__name__
    return [type(obj).__name__, sorted(fields.items())]


def disguised(state: State, seat: int, draw) -> State:
    """Another real game ``seat`` cannot tell from ``state``: what it cannot see dealt
    again, another seed, another deck order before the deal and other dealt hands."""
    other = state.resample_hidden(seat, draw)
    other.seed = state.seed ^ 0x5A5A5A5A
    other.deck = sorted(other.deck[: other.deck_pos], key=lambda _: draw()) + other.deck[other.deck_pos :]
    history = other.history = [r.copy() for r in other.history]
    for r in history:
        r.hands = [h if s == seat else sorted(h, key=lambda _: draw()) for s, h in enumerate(r.hands)]
    return other


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_two_games_the_seat_cannot_tell_apart_give_the_same_view(source):
    """Everything reachable from a view (its private world included) is the same for two games that differ only in what the seat has not seen: no hidden card, seed or deal can be read off it."""
    rng = random.Random(2)
    changed = 0
    for state in some_positions(source, 5):
        for seat in range(state.game.num_players):
            other = disguised(state, seat, rng.random)
            changed += other.hands != state.hands
            assert dump(seat_view(state, seat)) == dump(seat_view(other, seat))
    assert changed  # the games did differ in hidden cards


@given(st.sampled_from(SOURCES), st.integers(0, 2**32))
@PROPERTY
def test_nothing_reachable_from_a_view_is_part_of_the_real_game(source, seed):
    """No list, record, book or state of the real game can be reached from a view, its worlds or their game: only copies and the shared rule definitions."""
    for state in some_positions(source, seed, every=4):
        live = reachable(state, stop=DEFINITIONS)
        mutable_live = {
            i for i, o in live.items() if isinstance(o, (list, dict, set, State, RoundRecord, Scoring, ScoreSheet))
        }
        for seat in state.acting_seats() or (0,):
            view = seat_view(state, seat)
            for root in (view, view.world(), view.sample_world(random.Random(seed).random)):
                got = reachable(root, stop=(CompiledRuleset, Catalogue, CardType))
                assert not mutable_live & set(got), source
                assert state.game not in [o for o in got.values() if isinstance(o, Game)]
                assert all(o.seed == 0 for o in got.values() if isinstance(o, State))


def test_the_views_world_does_not_carry_the_seed():
    """A bot cannot deal the game again from its world: the world's seed is 0 and its deck holds only undealt cards."""
    game = played_game("sushi-go", 4)
    state = game.new_initial_state(123456789)
    world = seat_view(state, 0).world()
    assert world.seed == 0 and state.seed == 123456789
    assert world.deck_pos == 0 and len(world.deck) == len(state.deck) - state.deck_pos
    assert world.all_cards() == state.all_cards()
    assert game.new_initial_state(world.seed).hands != state.hands


@pytest.mark.parametrize(("rid", "players"), [("sushi-go", 3), ("sushi-go-party-my-first-meal", 4)])
def test_a_given_deal_leaves_the_deck_as_the_same_deal_shuffled_does(rid, players):
    """A game started from given hands (deals=) holds every card once at every move of every round (reshuffles and held-back desserts too): the dealt cards leave the deck, so a seat's view samples the worlds, and a planner makes the moves, of the same deal shuffled."""
    from ruledraft.play.agents import make_agent

    game = played_game(rid, players)
    natural = game.new_initial_state(1)
    moves = []
    while not natural.is_terminal():
        moves.append(
            [random.Random(len(moves) * 8 + s).choice(natural.legal_actions(s)) for s in natural.acting_seats()]
        )
        natural.apply_actions(moves[-1])
    given = game.new_initial_state(1, [[list(h) for h in r.hands] for r in natural.history])
    natural = game.new_initial_state(1)
    deck = sorted(c for c, t in enumerate(game.ruleset.catalogue.cards) for _ in range(t.count))
    assert given.all_cards() == natural.all_cards() == deck
    worlds = [seat_view(s, 0).sample_world(random.Random(0)) for s in (natural, given)]
    assert worlds[0].all_cards() == worlds[1].all_cards()
    planner = [make_agent("planner:samples=4", 7).act(seat_view(s, 0), 0) for s in (natural, given)]
    assert planner[0] == planner[1]
    for move in moves:
        for state in (natural, given):
            state.apply_actions(move)
        assert given.all_cards() == natural.all_cards(), (given.round, given.turn)
        assert sorted(given.deck[given.deck_pos :]) == sorted(natural.deck[natural.deck_pos :])
    assert given.totals() == natural.totals()


def test_the_view_cannot_be_written():
    """Setting or deleting an attribute of the view fails, and what it answers is immutable."""
    state = next(iter(positions("sushi-go-party-master-menu", 4)))
    view = seat_view(state, 0)
    with pytest.raises(AttributeError):
        view.hand = (1, 2)
    with pytest.raises(AttributeError):
        view._world = state
    with pytest.raises(AttributeError):
        del view._seat
    with pytest.raises(AttributeError):
        view.extra = 1
    assert not hasattr(view, "__dict__")
    with pytest.raises(AttributeError):
        view.hand.append(0)
    with pytest.raises(TypeError):
        view.tables[0][0] = 1
    with pytest.raises(TypeError):
        view.known_hands[1] = ()
    with pytest.raises(TypeError):
        view.rule_points["x"] = (1,)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        view.ruleset.rounds = 9
    assert type(view.legal_actions()) is list  # a fresh list: changing it changes nothing
    view.legal_actions().clear()
    assert view.legal_actions() == state.legal_actions(0)


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_changing_the_views_worlds_leaves_the_game_as_it_was(source):
    """A bot that plays on, rewrites hands, records, scores and even the game of its worlds changes neither the real game nor the view."""
    rng = random.Random(9)
    for state in some_positions(source, 3, every=6):
        before = dump(state)
        seat = (state.acting_seats() or (0,))[0]
        view = seat_view(state, seat)
        seen = dump(view)
        for world in (view.world(), view.sample_world(rng)):
            for h in world.hands:
                h.clear()
            for r in world.history:
                if r.tables is None:  # the round in play: the world's own copy
                    r.actions.clear()
                    r.hands.clear()
                else:  # an ended round: shared by the seat's worlds, so unchangeable
                    with pytest.raises(AttributeError):
                        r.actions.clear()
                    with pytest.raises(TypeError):
                        r.tables[0] = ()
            for s in world.scorings:  # shared by the seat's worlds, so unchangeable
                with pytest.raises(TypeError):
                    s.totals[0] = 999
                with pytest.raises(AttributeError):
                    s.points.clear()
            world.scorings.clear()
            world.game.hand_size = -1
            world.game.procedure = None
            world.seed = 1
        assert twin_game(state.game) is not state.game
        assert dump(state) == before
        assert dump(view) == seen
        view_module._TWINS.pop(id(state.game))  # the broken twin is made afresh


def test_a_decision_of_another_seat_never_shows_its_drawn_cards():
    """While another seat chooses among cards only it drew (a menu), no view of an other seat holds those drawn cards, even when no re-deal could draw a card it may choose."""
    found = 0
    for source in SOURCES:
        rs = played_ruleset(source)
        for seed in range(6):
            for state in positions(source, seed):
                pending = state.pending
                if pending is None or not pending.shown:
                    continue
                for seat in range(state.game.num_players):
                    if seat == pending.seat:
                        continue
                    world = seat_view(state, seat).world()
                    found += 1
                    assert world.pending is not None and world.pending.seat == pending.seat
                    assert world.pending.options, rs.id
                    assert sorted(world.all_cards()) == sorted(state.all_cards())
    assert found


@pytest.mark.parametrize("source", SOURCES, ids=source_id)
def test_the_quick_world_is_the_engines_canonical_copy(source):
    """The view's quick layout of the unseen cards (no effects, dummy or decision) is State.canonical_hidden's, card for card."""
    checked = 0
    for state in some_positions(source, 13, every=2):
        if state.book is not None or state.pending is not None or state.controller >= 0:
            continue
        for seat in range(state.game.num_players):
            held = state.game.procedure.known_hands(state, seat)
            assert dump(view_module._plain_canonical(state, seat, held)) == dump(state.canonical_hidden(seat))
            checked += 1
    assert checked or played_game(source, played_ruleset(source).min_players).general or "dummy" in source


# ---------------------------------------------------------------- another seat deciding from its hidden hand


def _deciding_from_a_hidden_hand(source: str, players: int, effect: str, seeds: range):
    """``(state, viewer)`` for each game of ``seeds`` that reaches a decision of ``effect`` asked of a
    seat from its own hand, ``viewer`` a seat that has not seen that hand."""
    game = Game(played_ruleset(source), players)
    for seed in seeds:
        state, rng = game.new_initial_state(seed), random.Random(seed)
        while not state.is_terminal():
            pending = state.pending
            if pending is not None and pending.effect == effect and not pending.shown:
                decider = pending.seat
                viewers = [s for s in range(players) if s != decider]
                viewers = [s for s in viewers if decider not in game.procedure.known_hands(state, s)]
                if viewers:
                    yield state, viewers[0]
                    break
            seats = [pending.seat] if pending is not None else state.acting_seats()
            state.apply_actions([rng.choice(state.legal_actions(s)) for s in seats])


@pytest.mark.parametrize(
    ("source", "players", "effect", "seeds"),
    [
        ("sushi-go-party-big-banquet", 4, "second_pick", range(60)),
        ("sushi-go-party-master-menu", 3, "ask_for", range(60)),  # mostly the asking seat
        ("sushi-go-party-master-menu", 5, "ask_for", range(200)),  # more often a giver, of two kinds or more
    ],
)
def test_another_seats_decision_does_not_reveal_its_hidden_hand_to_a_views_worlds(source, players, effect, seeds):
    """While another seat decides from its hand (a second pick, a spoon's request or its giver's choice), a view's
    worlds deal that hand again (its real hand is not kept) and ask the decision again of the new hand: every
    option offered can be played there. Games the viewer cannot tell apart (the state re-dealt for it) give it the
    same canonical world, but for the rare giver whose re-deals of few matching cards all fail (then its options'
    cards are kept)."""
    cases = list(_deciding_from_a_hidden_hand(source, players, effect, seeds))
    assert len(cases) >= 3
    same = compared = 0
    for state, _ in cases:
        decider = state.pending.seat
        real = sorted(state.hands[decider])
        viewers = [
            s for s in range(players) if s != decider and decider not in state.game.procedure.known_hands(state, s)
        ]
        for viewer in viewers:
            view = seat_view(state, viewer)
            kept = sum(sorted(view.sample_world(random.Random(k)).hands[decider]) == real for k in range(20))
            assert kept < 20
            world = view.world()
            for shown in (world, view.sample_world(random.Random(5)), state.resample_hidden(viewer, random.random)):
                assert shown.pending.seat == decider and shown.pending.effect == effect
                for option in shown.pending.options:
                    shown.clone().apply_actions([option])  # legal in the world dealt
            for k in range(3):  # the game as the viewer cannot tell it from this one
                twin = state.resample_hidden(viewer, random.Random(k).random)
                assert seat_view(twin, viewer).to_dict() == view.to_dict()
                other = seat_view(twin, viewer).world()
                compared += 1
                same += sorted(other.hands[decider]) == sorted(world.hands[decider]) and (
                    other.pending.options == world.pending.options
                )
    assert compared >= 10 and same >= 0.9 * compared, (same, compared)


def test_a_view_and_its_world_copy_deeply_after_a_round_is_scored():
    """copy.deepcopy of a view is the view (it never changes); of its world after round 1 of Master Menu, a state that plays on alike without touching the world."""
    import copy

    game = Game(load_ruleset("sushi-go-party-master-menu"), 3)
    state = game.new_initial_state(123)
    rng = random.Random(1)
    while len(state.history) < 2:
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    view = seat_view(state, 0)
    assert copy.deepcopy(view) is view and copy.copy(view) is view
    world = view.world()
    twin = copy.deepcopy(world)
    before = repr(world.history), world.totals()
    rng_a, rng_b = random.Random(2), random.Random(2)
    while not twin.finished:
        twin.apply_actions([twin.sample_action(s, rng_a.random) for s in twin.acting_seats()])
    clone = world.clone()
    while not clone.finished:
        clone.apply_actions([clone.sample_action(s, rng_b.random) for s in clone.acting_seats()])
    assert (repr(world.history), world.totals()) == before
    assert twin.totals() == clone.totals() and twin.history == clone.history


def test_a_spoon_given_back_in_sight_of_all_is_in_the_observation_and_its_vector():
    """Big Banquet: seat 0's spoon asks for a dumpling; seat 1 gives it and gets the spoon
    back in its hand in sight of all. After the pass the spoon lies in seat 2's hand, which
    seat 0 has not held: seat 0's observation (RL, OpenSpiel) knows it as its view does, and
    the encoder's vector says so (the observation knew nothing of that hand)."""
    from ruledraft.engine.encoding import Encoder

    rs = load_ruleset("sushi-go-party-big-banquet")
    ids = rs.catalogue.index_of
    spoon, tempura, eel, dumpling = ids("spoon_4"), ids("tempura"), ids("eel"), ids("dumpling")
    game = Game(rs, 3)
    state = game.new_initial_state(0)
    state.hands = [[tempura, eel, tempura], [dumpling, eel, eel], [tempura, tempura, dumpling]]
    state.played = [[spoon], [], []]
    state.counts = [[t.count(c) for c in range(game.num_card_types)] for t in state.played]
    state.apply_actions([tempura, eel, dumpling])
    state.apply_actions([dumpling])  # asked for a dumpling: seat 1 gives it and gets the spoon
    assert state.book is not None and state.book.known_in_hand == [[], [], [spoon]] and spoon in state.hands[2]
    obs = state.observation(0)
    assert obs.known_hands.get(2) == ["spoon_4"] == [rs.catalogue.ids[c] for c in seat_view(state, 0).known_hands[2]]
    enc = Encoder(game)
    vector = enc.encode(obs)
    at = enc.field("known_hands").offset + 1 * game.num_card_types  # relative seat 2's block
    assert vector[at : at + game.num_card_types] == [1.0 if c == spoon else 0.0 for c in range(game.num_card_types)]
    assert vector[enc.field("known").offset + 1] == 1.0
