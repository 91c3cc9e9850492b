"""The observation encoder: one fixed-size vector of what a seat may know (ruledraft.engine.encoding)."""

from __future__ import annotations

import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import README
from strategies import BUNDLED_RULESETS, MINI, bundled_game, bundled_ruleset, bundled_without_effects, game_seeds

import ruledraft.engine.encoding as encoding
from ruledraft.engine.encoding import FIELDS, Encoder, FieldSpec, encoder_for
from ruledraft.engine.state import Game
from ruledraft.language.loading import load_ruleset
from ruledraft.play.agents import observe


@pytest.fixture(scope="module")
def mini_game(tmp_path_factory):
    path = tmp_path_factory.mktemp("mini") / "mini.yaml"
    path.write_text(MINI)
    return Game(load_ruleset(path), 2)


def _mini_state(game):
    apple, pear = game.ruleset.card_index("apple"), game.ruleset.card_index("pear")
    state = game.new_initial_state(0, deals=[[[apple, apple, pear, pear, pear], [apple] * 5]])
    state.apply_actions([pear, apple])
    return state


def test_a_hand_built_position_gives_the_vector_worked_out_by_hand(mini_game):
    """Seat 1 after turn 1 of a two-player game of apples and pears: every field as counted by hand, seats relative to seat 1."""
    state = _mini_state(mini_game)
    vector = Encoder(mini_game).encode(state.observation(1))
    assert vector == [
        *(2, 2),  # hand: seat 0's old hand less the pear it played
        *(4, 0),  # known_hands: seat 0 now holds seat 1's old hand, four apples
        1,  # known
        *(4, 4),  # hand_sizes: seat 1, seat 0
        *(1, 0, 0, 1),  # played: seat 1 an apple, seat 0 a pear
        *(0, 0, 0, 0),  # kept
        *(0, 0),  # scores
        *(0, 0),  # round_scores (one round, not scored yet)
        1,  # round
        2,  # turn
        0,  # controls_dummy
        0,  # can_use_action
        0,  # deciding
        *(0, 0),  # decision_card
        *(0, 0),  # decision_shown
        *(0, 0),  # decision_owner
    ]


def test_fields_name_offset_and_size_and_cut_a_vector_by_name(mini_game):
    """Encoder.fields lie end to end over the whole vector, in FIELDS order, and decode cuts a vector into them."""
    enc = Encoder(mini_game)
    assert [(f.name, f.offset, f.size) for f in enc.fields] == [
        ("hand", 0, 2),
        ("known_hands", 2, 2),
        ("known", 4, 1),
        ("hand_sizes", 5, 2),
        ("played", 7, 4),
        ("kept", 11, 4),
        ("scores", 15, 2),
        ("round_scores", 17, 2),
        ("round", 19, 1),
        ("turn", 20, 1),
        ("controls_dummy", 21, 1),
        ("can_use_action", 22, 1),
        ("deciding", 23, 1),
        ("decision_card", 24, 2),
        ("decision_shown", 26, 2),
        ("decision_owner", 28, 2),
    ]
    assert enc.size == 30
    parts = enc.decode(enc.encode(_mini_state(mini_game).observation(0)))
    assert parts["hand"] == [4, 0] and parts["played"] == [0, 1, 1, 0] and parts["known"] == [1]
    assert enc.field("turn").offset == 20
    with pytest.raises(KeyError):
        enc.field("nope")


def test_one_more_field_spec_is_one_more_part_of_the_vector(mini_game):
    """A FieldSpec appended to the table is placed after the others with its size, bounds and values."""
    extra = FieldSpec(
        "seat", lambda g: 1, lambda g, obs, seats: [float(obs.seat)], lambda g: 0.0, lambda g: 9.0, "the seat"
    )
    enc = Encoder(mini_game, [*FIELDS, extra])
    f = enc.field("seat")
    assert (f.offset, f.size, f.low, f.high, enc.size) == (30, 1, (0.0,), (9.0,), 31)
    assert enc.encode(_mini_state(mini_game).observation(1))[-1] == 1.0


@pytest.mark.parametrize("rid", bundled_without_effects())
def test_the_vector_has_the_same_size_at_every_moment_for_every_seat(rid):
    """Every observation of every seat over a whole game encodes to Encoder.size values within the fields' bounds."""
    rs = bundled_ruleset(rid)
    for players in (rs.min_players, rs.max_players):
        game = bundled_game(rid, players)
        enc = encoder_for(game)
        low = [lo for f in enc.fields for lo in f.low]
        high = [hi for f in enc.fields for hi in f.high]
        rng = random.Random(players)
        state = game.new_initial_state(players)
        while True:
            for seat in range(game.num_players):
                v = enc.encode(state.observation(seat))
                assert len(v) == enc.size
                assert all((lo is None or lo <= x) and (hi is None or x <= hi) for x, lo, hi in zip(v, low, high))
            if state.is_terminal():
                break
            state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])


def test_the_size_follows_the_table_of_the_module_docstring():
    """Four-player Sushi Go! (12 card types, 3 rounds): K + (P-1)K + (P-1) + P + 2PK + P + RP + 4 values, then the decision's 1 + 2K + P."""
    game = bundled_game("sushi-go", 4)
    K, P, R = 12, 4, 3
    assert game.num_card_types == K
    assert encoder_for(game).size == K + (P - 1) * K + (P - 1) + P + 2 * P * K + P + R * P + 4 + 1 + 2 * K + P


def _played(rid, seed, turns):
    rs = bundled_ruleset(rid)
    game = bundled_game(rid, rs.min_players + seed % (rs.max_players - rs.min_players + 1))
    state = game.new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(turns):
        if state.is_terminal():
            break
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    return game, state


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(BUNDLED_RULESETS), game_seeds(), st.integers(0, 30))
def test_no_peeking_states_a_seat_cannot_tell_apart_give_the_same_vector(rid, seed, turns):
    """Re-dealing what a seat cannot see (resample_hidden, canonical_hidden) never changes that seat's vector."""
    game, state = _played(rid, seed, turns)
    enc = encoder_for(game)
    rng = random.Random(seed)
    for seat in range(game.num_players):
        mine = enc.encode(state.observation(seat))
        assert enc.encode(state.resample_hidden(seat, rng.random).observation(seat)) == mine
        assert enc.encode(state.canonical_hidden(seat).observation(seat)) == mine


def test_a_seat_that_cannot_see_a_hand_gets_the_same_vector_whatever_is_in_it():
    """Two 4-player deals that differ only in seat 2's hand give seat 0 the same vector on turn 1 and a different one to seat 2."""
    game = bundled_game("sushi-go", 4)
    a = game.new_initial_state(5)
    hands = [h[:] for h in a.hands]
    other = 0 if set(hands[2]) != {0} else 1
    hands[2] = [other] * game.hand_size
    rest = [[0] * game.hand_size for _ in range(4)]
    b = game.new_initial_state(5, deals=[hands, rest, rest])
    a2 = game.new_initial_state(5, deals=[[h[:] for h in a.hands], rest, rest])
    enc = encoder_for(game)
    assert enc.encode(a2.observation(0)) == enc.encode(b.observation(0))
    assert sorted(a2.hands[2]) != sorted(b.hands[2])
    assert enc.encode(a2.observation(2)) != enc.encode(b.observation(2))


def test_observe_gives_the_observation_and_its_vector():
    """ruledraft.play.agents.observe(state, seat) is state.observation(seat) with the encoder's vector of it."""
    game = bundled_game("sushi-go-two-player-dummy", 2)
    state = game.new_initial_state(3)
    obs, vector = observe(state, 1)
    assert obs == state.observation(1)
    assert vector == Encoder(game).encode(obs)
    assert encoder_for(game) is encoder_for(game)


def test_the_dummy_seat_comes_after_the_players_for_every_observer():
    """With a dummy, relative seats rotate over the players only and the dummy stays last."""
    game = bundled_game("sushi-go-two-player-dummy", 2)
    enc = encoder_for(game)
    assert enc.layout.relative_seats(0) == [0, 1, 2]
    assert enc.layout.relative_seats(1) == [1, 0, 2]
    state = game.new_initial_state(3)
    sizes = [enc.decode(enc.encode(state.observation(s)))["hand_sizes"] for s in (0, 1)]
    assert sizes[0][2] == sizes[1][2] == 0
    assert sizes[0][:2] == [len(state.hands[0]), len(state.hands[1])]
    assert sizes[1][:2] == [len(state.hands[1]), len(state.hands[0])]


def test_the_module_docstring_and_the_readme_document_every_field_in_order():
    """Each name of FIELDS appears, in order, in the encoding module's table and in the README's field table."""
    names = [spec.name for spec in FIELDS]
    in_doc = re.findall(r"^``(\w+)``", encoding.__doc__, re.M)
    assert in_doc == names
    readme = (README).read_text().split("## Reinforcement learning", 1)[1]
    in_readme = [n for row in re.findall(r"^\| (`[^|]+) \|", readme, re.M) for n in re.findall(r"`(\w+)`", row)]
    assert in_readme == names
