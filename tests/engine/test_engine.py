"""The drafting engine (ruledraft.engine.state, ruledraft.engine.procedures) against the Sushi Go! rules:
dealing, legal actions, chopsticks, illegal moves, cloning, observations, passing,
the automatic last card and the two-player dummy variant."""

from __future__ import annotations

import contextlib
import re
from collections import Counter

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import (
    BUNDLED_RULESETS,
    bundled_game,
    bundled_ruleset,
    bundled_without_dummy,
    bundled_without_effects,
    cards,
    forced_game,
    game_seeds,
    game_setups,
    midgame,
)

from ruledraft.engine.procedures import sample_distinct, sample_one_or_two
from ruledraft.engine.state import Game, State, decide_winners
from ruledraft.errors import ArgumentError, IllegalMoveError
from ruledraft.language.scoring import score_rules
from ruledraft.play.agents import make_agent
from ruledraft.play.runner import bot_seed
from ruledraft.tableau import Tableau

#: bundled rulesets without card effects: every seat acts every turn (see strategies)
PLAIN = st.sampled_from(bundled_without_effects())

PROPERTY = settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])

DUMMY = "sushi-go-two-player-dummy"


# ---------------------------------------------------------------- helpers


def names(rs, seq):
    return [rs.card_id(c) for c in seq]


def fields(state):
    """Every field of a state except its game, for before/after comparisons."""
    return {k: getattr(state, k) for k in State.__slots__ if k != "game"}


def bots_for(names_, seed):
    return [make_agent(n, bot_seed(seed, s)) for s, n in enumerate(names_)]


def step(state, agents):
    state.apply_actions([a.act(state, s) for s, a in enumerate(agents)])


def play_out(state, agents):
    while not state.finished:
        step(state, agents)
    return state


def first_single(state, seat):
    """The first legal action of ``seat`` that takes one card for itself (dummy pick allowed)."""
    for a in state.legal_actions(seat):
        if len(state.game.decode_action(a)[0]) == 1:
            return a
    raise AssertionError("no single-card action")


@contextlib.contextmanager
def round_end_tables():
    """Collect, for each round scored, the cards on every seat's table just before scoring."""
    captured = []
    original = State.end_round

    def spy(self):
        captured.append([p[:] for p in self.played])
        return original(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(State, "end_round", spy)
        yield captured


def round_points(state):
    """Per rule, per seat: the points the round-end rules give the current tables."""
    return score_rules(state.game.ruleset.round_rules, state.tableau())[1]


# ---------------------------------------------------------------- dealing


@pytest.mark.parametrize("players, size", [(2, 10), (3, 9), (4, 8), (5, 7)])
def test_hand_size_per_player_count_is_the_rulesets(players, size):
    """Sushi Go! deals 10/9/8/7 cards for 2/3/4/5 players, as the ruleset says, every round."""
    game = bundled_game("sushi-go", players)
    assert game.ruleset.hand_size(players) == size == game.hand_size
    state = play_out(game.new_initial_state(5), bots_for(["random"] * players, 5))
    assert len(state.history) == 3
    for rnd in state.history:
        assert [len(h) for h in rnd.hands] == [size] * players


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS)
def test_every_bundled_ruleset_deals_its_hand_size_to_every_seat(ruleset_id):
    """Each bundled ruleset deals ruleset.hand_size(players) cards to every seat (the dummy's pile included)."""
    rs = bundled_ruleset(ruleset_id)
    for players in rs.player_counts:
        game = bundled_game(ruleset_id, players)
        state = game.new_initial_state(11)
        hands = state.history[0].hands
        assert len(hands) == rs.num_seats(players)
        assert [len(h) for h in hands] == [rs.hand_size(players)] * rs.num_seats(players)


def test_dummy_variant_deals_three_hands_of_nine():
    """Two players with a dummy: three hands of 9, the third kept as the dummy's face-down pile."""
    game = bundled_game(DUMMY, 2)
    state = game.new_initial_state(3)
    dealt = state.history[0].hands
    assert [len(h) for h in dealt] == [9, 9, 9]
    assert state.dummy_piles[0] == dealt[2][1:]  # the top card is already drawn by the controller
    assert state.hands[2] == []


@pytest.mark.parametrize(
    "ruleset_id", [rid for rid in BUNDLED_RULESETS if bundled_ruleset(rid).between_rounds == "keep_deck"]
)
def test_deals_take_consecutive_cards_from_one_shuffled_deck(ruleset_id):
    """Over the 3 rounds the deck is never over-drawn and no deck position is dealt twice (no reshuffle)."""
    rs = bundled_ruleset(ruleset_id)
    for players in rs.player_counts:
        game = bundled_game(ruleset_id, players)
        state = play_out(game.new_initial_state(players), bots_for(["random"] * players, players))
        assert (
            Counter(state.deck)
            == Counter(game.deck)
            == Counter({c.index: c.count for c in rs.catalogue.cards if c.count})
        )
        dealt = [c for rnd in state.history for hand in rnd.hands for c in hand]
        assert len(dealt) == 3 * rs.num_seats(players) * rs.hand_size(players) <= len(game.deck)
        assert dealt == list(state.deck[: len(dealt)])
        assert not Counter(dealt) - Counter(game.deck)


@PROPERTY
@given(setup=game_setups(PLAIN))
def test_a_new_state_is_reproducible_from_its_seed(setup):
    """The same seed gives the same deck and the same deal; the whole game replays identically with seeded bots."""
    rid, players, seed, bots = setup
    game = bundled_game(rid, players)
    a, b = game.new_initial_state(seed), game.new_initial_state(seed)
    assert a.deck == b.deck and a.history == b.history and a.hands == b.hands
    play_out(a, bots_for(bots, seed))
    play_out(b, bots_for(bots, seed))
    assert a.history == b.history and a.totals() == b.totals() and a.winners == b.winners


def test_different_seeds_give_different_deals():
    """Fifty seeds give fifty different round-1 deals."""
    game = bundled_game("sushi-go", 4)
    deals = {tuple(map(tuple, game.new_initial_state(seed).history[0].hands)) for seed in range(50)}
    assert len(deals) == 50


@pytest.mark.parametrize(
    ("seed", "words"),
    [
        (
            2**64 + 5,
            "seed must be from 0 to 2**64 - 1, not 18446744073709551621 (the generator would play the game of seed 5)",
        ),
        (
            -1,
            "seed must be from 0 to 2**64 - 1, not -1 (the generator would play the game of seed 18446744073709551615)",
        ),
        (1.5, "seed must be a whole number, not 1.5"),
        ("3", "seed must be a whole number, not '3'"),
    ],
)
def test_a_seed_that_would_play_another_seeds_game_is_refused(seed, words):
    """A seed past 2**64 - 1 or below 0 (which the generator would fold onto another seed's game), or not a whole number, is an ArgumentError; 2**64 - 1 and numpy's integers are played."""
    game = bundled_game("sushi-go", 2)
    with pytest.raises(ArgumentError, match=re.escape(words)):
        game.new_initial_state(seed)
    import numpy as np

    assert game.new_initial_state(np.uint64(2**64 - 1)).hands == game.new_initial_state(2**64 - 1).hands
    assert game.new_initial_state(np.int32(5)).hands == game.new_initial_state(5).hands


def test_a_player_count_that_is_not_a_whole_number_is_refused():
    """Game(ruleset, 2.0) or a word for players is an ArgumentError, not a game that fails later."""
    rs = bundled_game("sushi-go", 2).ruleset
    for players in (2.0, "3", True):
        with pytest.raises(ArgumentError, match="players must be a whole number"):
            Game(rs, players)


def test_an_action_past_the_action_space_is_no_action():
    """decode_action and action_to_string refuse an action at or past num_distinct_actions (it read as a dummy's pick in a game without one)."""
    for rid, players in (("sushi-go", 2), ("sushi-go-two-player-dummy", 2)):
        game = bundled_game(rid, players)
        for action in (game.num_distinct_actions, 10**6):
            with pytest.raises(IllegalMoveError, match=f"not an action: {action}"):
                game.decode_action(action)
            with pytest.raises(IllegalMoveError, match=f"not an action: {action}"):
                game.action_to_string(action)
        last = game.num_distinct_actions - 1
        assert game.encode_action(*game.decode_action(last)) == last


@PROPERTY
@given(setup=game_setups(PLAIN))
def test_every_dealt_card_is_played_exactly_once_per_round(setup):
    """Per round, the multiset of dealt hands (dummy pile included) equals the multiset of cards on the tables when it is scored, chopsticks included."""
    rid, players, seed, bots = setup
    game = bundled_game(rid, players)
    with round_end_tables() as tables:
        state = play_out(game.new_initial_state(seed), bots_for(bots, seed))
    assert len(tables) == len(state.history) == game.ruleset.rounds
    for rnd, played in zip(state.history, tables):
        dealt = Counter(c for hand in rnd.hands for c in hand)
        assert Counter(c for seq in played for c in seq) == dealt
        # the log of picks agrees: every pick, minus one chopsticks per two-card pick
        picked = Counter()
        returned = 0
        for turn in rnd.turns:
            for action in turn.actions:
                own, dummy_card = game.decode_action(action)
                picked.update(own)
                if dummy_card is not None:
                    picked[dummy_card] += 1
                returned += len(own) > 1
        if returned:
            picked[game.ruleset.card_index("chopsticks")] -= returned
        assert +picked == dealt


@pytest.mark.parametrize("ruleset_id, players", [("sushi-go", 1), ("sushi-go", 6), (DUMMY, 3)])
def test_a_player_count_outside_the_ruleset_is_refused(ruleset_id, players):
    """Game() refuses a player count the ruleset does not allow, with an InputError naming the range."""
    from ruledraft.errors import InputError

    rs = bundled_ruleset(ruleset_id)
    with pytest.raises(InputError, match=f"is for {rs.player_range}, not"):
        Game(rs, players)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), ruleset_id=st.sampled_from(["sushi-go", DUMMY]))
def test_actions_encode_and_decode_losslessly(data, ruleset_id):
    """encode_action/decode_action round-trip every card sequence (up to the chopsticks' extra card) and dummy pick, within num_distinct_actions."""
    game = bundled_game(ruleset_id, 2)
    K = game.num_card_types
    seq = tuple(data.draw(st.lists(st.integers(0, K - 1), min_size=1, max_size=1 + game.max_extra)))
    dummy = data.draw(st.one_of(st.none(), st.integers(0, K - 1))) if game.ruleset.dummy else None
    action = game.encode_action(seq, dummy)
    assert 0 <= action < game.num_distinct_actions
    assert game.decode_action(action) == (seq, dummy)
    assert (action < K) == (len(seq) == 1 and dummy is None)


# ---------------------------------------------------------------- legal actions


def test_a_hand_with_duplicates_offers_each_card_once():
    """Legal actions list each distinct card of the hand once, sorted, whatever the duplicates."""
    game, state = forced_game(
        "sushi-go",
        2,
        [
            ["tempura*4", "sashimi*3", "wasabi", "pudding", "maki_2"],
            ["dumpling*10"],
        ],
    )
    rs = game.ruleset
    assert state.legal_actions(0) == sorted(set(cards(rs, "tempura", "sashimi", "wasabi", "pudding", "maki_2")))
    assert state.legal_actions(1) == [rs.card_index("dumpling")]


def test_chopsticks_offer_every_ordered_pair_the_hand_allows_once():
    """With chopsticks on the table, the two-card actions are exactly the ordered pairs the hand holds (a pair of one card only if held twice), each once."""
    game, state = forced_game(
        "sushi-go",
        2,
        [
            ["chopsticks", "tempura*9"],
            ["sashimi*2", "wasabi", "squid_nigiri", "dumpling*6"],
        ],
    )
    rs = game.ruleset
    state.apply_actions(cards(rs, "chopsticks", "dumpling"))
    hand = state.hands[0]
    assert Counter(names(rs, hand)) == Counter({"sashimi": 2, "wasabi": 1, "squid_nigiri": 1, "dumpling": 5})
    legal = state.legal_actions(0)
    assert len(legal) == len(set(legal))
    decoded = {game.decode_action(a) for a in legal}
    distinct = sorted(set(hand))
    expected = {((c,), None) for c in distinct}
    expected |= {((a, b), None) for a in distinct for b in distinct if a != b or hand.count(a) >= 2}
    assert decoded == expected


def test_chopsticks_cannot_be_used_on_the_turn_they_are_played():
    """Chopsticks in hand (or being played this turn) give no two-card action; the turn after they do."""
    game, state = forced_game(
        "sushi-go",
        3,
        [
            ["chopsticks", "tempura*8"],
            ["sashimi*9"],
            ["dumpling*9"],
        ],
    )
    rs = game.ruleset
    assert all(len(game.decode_action(a)[0]) == 1 for a in state.legal_actions(0))
    assert not state.can_use_action(0)
    before = state.clone()
    pair = game.encode_action(cards(rs, "chopsticks", "tempura"))
    with pytest.raises(IllegalMoveError):
        state.apply_actions([pair, rs.card_index("sashimi"), rs.card_index("dumpling")])
    assert fields(state) == fields(before)
    state.apply_actions(cards(rs, "chopsticks", "sashimi", "dumpling"))
    assert state.can_use_action(0)
    assert any(len(game.decode_action(a)[0]) == 2 for a in state.legal_actions(0))
    # the other seats have no chopsticks on their table
    for seat in (1, 2):
        assert all(len(game.decode_action(a)[0]) == 1 for a in state.legal_actions(seat))


@PROPERTY
@given(setup=game_setups(PLAIN))
def test_two_card_actions_exist_exactly_when_chopsticks_were_played_earlier(setup):
    """At every decision, a seat has two-card actions iff chopsticks from an earlier turn are on its table and its hand has two cards to take (beyond a dummy's card); never three cards."""
    rid, players, seed, bots = setup
    game = bundled_game(rid, players)
    cat = game.ruleset.catalogue
    chop = cat.index_of("chopsticks") if cat.has_card("chopsticks") else -1  # -1: never on a table
    state = game.new_initial_state(seed)
    agents = bots_for(bots, seed)
    while not state.finished:
        for seat in range(players):
            sizes = {len(game.decode_action(a)[0]) for a in state.legal_actions(seat)}
            spare = len(state.hands[seat]) - (1 if seat == state.controller else 0)
            expected = chop in state.played[seat] and spare >= 2
            assert (2 in sizes) == expected, (state.round, state.turn, seat)
            assert sizes <= {1, 2}
            assert state.can_use_action(seat) == expected
        step(state, agents)


def chopsticks_three_players():
    """Seat 0 plays chopsticks on turn 1 and receives seat 2's wasabi and squid on turn 2."""
    return forced_game(
        "sushi-go",
        3,
        [
            ["chopsticks", "tempura*8"],
            ["dumpling*9"],
            ["wasabi", "squid_nigiri", "egg_nigiri", "sashimi*6"],
        ],
    )


def test_chopsticks_wasabi_then_nigiri_triples_and_the_chopsticks_go_to_the_next_seat():
    """Wasabi then squid with chopsticks lands the squid on the wasabi (9 points); the chopsticks leave the table and the hand passed to seat 1 holds them."""
    game, state = chopsticks_three_players()
    rs = game.ruleset
    state.apply_actions(cards(rs, "chopsticks", "dumpling", "sashimi"))
    assert Counter(names(rs, state.hands[0])) == Counter(
        {"wasabi": 1, "squid_nigiri": 1, "egg_nigiri": 1, "sashimi": 5}
    )
    pair = game.encode_action(cards(rs, "wasabi", "squid_nigiri"))
    assert pair in state.legal_actions(0)
    state.apply_actions([pair, rs.card_index("tempura"), rs.card_index("dumpling")])
    assert names(rs, state.played[0]) == ["wasabi", "squid_nigiri"]
    points = round_points(state)
    assert points["nigiri"][0] + points["wasabi"][0] == 9
    # seat 0 passed to seat 1 (left): the rest of its hand plus the chopsticks
    assert Counter(names(rs, state.hands[1])) == Counter({"egg_nigiri": 1, "sashimi": 5, "chopsticks": 1})
    assert "chopsticks" not in names(rs, state.hands[0]) and "chopsticks" not in names(rs, state.hands[2])
    assert not state.can_use_action(0)


def test_chopsticks_nigiri_then_wasabi_does_not_triple():
    """Squid then wasabi with chopsticks: the squid scores 3 and the wasabi stays empty."""
    game, state = chopsticks_three_players()
    rs = game.ruleset
    state.apply_actions(cards(rs, "chopsticks", "dumpling", "sashimi"))
    state.apply_actions(
        [game.encode_action(cards(rs, "squid_nigiri", "wasabi")), rs.card_index("tempura"), rs.card_index("dumpling")]
    )
    assert names(rs, state.played[0]) == ["squid_nigiri", "wasabi"]
    points = round_points(state)
    assert (points["nigiri"][0], points["wasabi"][0]) == (3, 0)


def test_at_most_one_chopsticks_per_turn_with_two_on_the_table():
    """Two chopsticks on the table still allow only two cards a turn, and using them returns one chopsticks only."""
    game, state = forced_game(
        "sushi-go",
        2,
        [
            ["chopsticks*2", "tempura*8"],
            ["sashimi*10"],
        ],
    )
    rs = game.ruleset
    chop, tem, sas = cards(rs, "chopsticks", "tempura", "sashimi")
    state.apply_actions([chop, sas])  # seat 0 gets the sashimi, seat 1 the chopsticks + tempura
    state.apply_actions([sas, tem])
    state.apply_actions([chop, sas])  # seat 0's second chopsticks (they came back to it)
    assert state.counts[0][chop] == 2
    assert Counter(names(rs, state.hands[0])) == Counter({"sashimi": 7})
    legal = state.legal_actions(0)
    assert max(len(game.decode_action(a)[0]) for a in legal) == 2
    before = state.clone()
    with pytest.raises(IllegalMoveError):
        state.apply_actions([raw_action(game, [sas, sas, sas]), tem])
    assert fields(state) == fields(before)
    state.apply_actions([game.encode_action([sas, sas]), tem])
    assert state.counts[1][chop] == 0
    # one chopsticks left seat 0's table, into the hand now at seat 1
    assert names(rs, state.played[0]).count("chopsticks") == 1
    assert names(rs, state.hands[1]).count("chopsticks") == 1


# ---------------------------------------------------------------- illegal moves, cloning


def illegal_cases(state):
    """``(label, actions)`` that the rules forbid in ``state`` (a standard game, seat 0 with usable chopsticks)."""
    game = state.game
    K = game.num_card_types
    n = game.num_players
    legal = [state.legal_actions(s)[0] for s in range(n)]
    pair0 = next(a for a in state.legal_actions(0) if len(game.decode_action(a)[0]) == 2)
    absent = [c for c in range(K) if c not in state.hands[1]]
    rest = legal[2:]
    return [
        ("too few actions", legal[:-1]),
        ("too many actions", legal + [legal[0]]),
        ("a card not in hand", [pair0, absent[0], *rest]),
        ("a card index out of range", [legal[0], K, *rest]),
        ("a negative action", [legal[0], -1, *rest]),
        ("not an integer", [legal[0], "tempura", *rest]),
        ("a float", [legal[0], float(legal[1]), *rest]),
        ("a bool", [legal[0], True, *rest]),
        ("None", [legal[0], None, *rest]),
        ("two cards without chopsticks", [legal[0], game.encode_action(state.hands[1][:2]), *rest]),
        ("a dummy pick in a game without a dummy", [legal[0], game.encode_action([legal[1]], legal[1]), *rest]),
        ("a huge action", [legal[0], 10**12, *rest]),
        ("three cards", [raw_action(game, state.hands[0][:3]), *legal[1:]]),
    ]


def raw_action(game, cards) -> int:
    """The number a pick of ``cards`` in this order would be, however many they are: what a
    forged move sends (``encode_action`` refuses more cards than a pick takes)."""
    K = game.num_card_types
    action, place = cards[0], K
    for c in cards[1:]:
        action += place * (c + 1)
        place *= K + 1
    return action


def state_with_chopsticks_ready():
    game, state = forced_game(
        "sushi-go",
        3,
        [
            ["chopsticks", "tempura*8"],
            ["dumpling*9"],
            ["wasabi", "squid_nigiri", "egg_nigiri", "sashimi*6"],
        ],
    )
    rs = game.ruleset
    state.apply_actions(cards(rs, "chopsticks", "dumpling", "sashimi"))
    return state


@pytest.mark.parametrize("label", [label for label, _ in illegal_cases(state_with_chopsticks_ready())])
def test_illegal_actions_raise_and_leave_the_state_unchanged(label):
    """Each kind of illegal action list raises IllegalMoveError and changes no field of the state (even when seat 0's action was legal)."""
    state = state_with_chopsticks_ready()
    actions = dict(illegal_cases(state))[label]
    before = state.clone()
    with pytest.raises(IllegalMoveError):
        state.apply_actions(actions)
    assert fields(state) == fields(before)
    # and the state still plays on normally
    state.apply_actions([state.legal_actions(s)[0] for s in range(3)])


def test_a_refused_turn_leaves_every_table_in_its_order():
    """A seat whose legal card is taken back after another seat's illegal one keeps its table in the order played: an egg nigiri played before a wasabi stays off it (1 point, not 3)."""
    game, state = forced_game("sushi-go", 2, [["egg_nigiri*2", "tempura*8"], ["wasabi", "dumpling*9"]])
    rs = game.ruleset
    state.apply_actions(cards(rs, "egg_nigiri", "dumpling"))
    state.apply_actions(cards(rs, "wasabi", "tempura"))  # the hands have passed twice: seat 0 holds its egg again
    assert state.played[0] == cards(rs, "egg_nigiri", "wasabi")
    before = (state.seat_round_points_now(0), [t[:] for t in state.played], [r[:] for r in state.counts])
    hands = [sorted(h) for h in state.hands]
    with pytest.raises(IllegalMoveError, match="sashimi"):
        state.apply_actions(cards(rs, "egg_nigiri", "sashimi"))
    assert (state.seat_round_points_now(0), state.played, state.counts) == before
    assert before[0] == 1
    assert [sorted(h) for h in state.hands] == hands
    state.apply_actions(cards(rs, "egg_nigiri", "dumpling"))
    assert state.played[0] == cards(rs, "egg_nigiri", "wasabi", "egg_nigiri")
    assert state.seat_round_points_now(0) == 1 + 3


@settings(max_examples=60, deadline=None)
@given(rid=PLAIN, turns=st.integers(0, 20), seed=st.integers(0, 2**32), data=st.data())
def test_a_refused_joint_move_leaves_tables_counts_and_hands_as_they_were(rid, turns, seed, data):
    """Legal cards from the first seats, then an illegal action from a later one: IllegalMoveError, and every table, count and hand as it was, in its order (a random bot reads a hand's order)."""
    rs = bundled_ruleset(rid)
    state = midgame(rid, data.draw(st.integers(rs.min_players, rs.max_players)), seed, turns)
    assume(not state.is_terminal() and state.pending is None and len(state.acting_seats()) > 1)
    seats = state.acting_seats()
    bad_seat = data.draw(st.integers(1, len(seats) - 1))
    K = state.game.num_card_types
    actions = [data.draw(st.sampled_from(state.legal_actions(s))) for s in seats[:bad_seat]]
    absent = [c for c in range(K) if c not in state.hands[seats[bad_seat]]]
    actions.append(data.draw(st.sampled_from(absent + [K + 10**6, -1, None])))
    actions += [state.legal_actions(s)[0] for s in seats[bad_seat + 1 :]]
    before = ([t[:] for t in state.played], [r[:] for r in state.counts], [h[:] for h in state.hands])
    with pytest.raises(IllegalMoveError):
        state.apply_actions(actions)
    assert (state.played, state.counts, state.hands) == before


def test_a_seat_out_of_range_and_an_action_past_the_last_are_named_as_such():
    """legal_actions of no seat is an ArgumentError naming the seats; an action past the action space is 'not an action'."""
    state = bundled_game("sushi-go", 3).new_initial_state(3)
    for seat in (3, 7, -1):
        with pytest.raises(ArgumentError, match=f"no seat {seat}: the seats are 0 to 2"):
            state.legal_actions(seat)
    space = state.game.num_distinct_actions
    for action in (space, 10**6):
        with pytest.raises(IllegalMoveError, match=f"^seat 0: not an action: {action}$"):
            state.apply_actions([action, 0, 0])


def test_a_seat_that_is_no_seat_is_an_argument_error_for_sampling_and_listing_moves():
    """legal_actions('0'), legal_actions(True), sample_action(9) and sample_action(-1) name the seats; numpy's integers are seats."""
    import random

    import numpy as np

    state = bundled_game("sushi-go", 3).new_initial_state(3)
    rng = random.Random(1).random
    for seat in ("0", True, 1.0):
        with pytest.raises(ArgumentError, match="seat must be a whole number"):
            state.legal_actions(seat)
        with pytest.raises(ArgumentError, match="seat must be a whole number"):
            state.sample_action(seat, rng)
    for seat in (3, 9, -1):
        with pytest.raises(ArgumentError, match=f"no seat {seat}: the seats are 0 to 2"):
            state.sample_action(seat, rng)
    assert state.legal_actions(np.int64(2)) == state.legal_actions(2)
    assert state.sample_action(np.int64(2), random.Random(5).random) == state.sample_action(2, random.Random(5).random)


def test_sampling_a_move_of_a_seat_that_is_not_deciding_is_refused():
    """While one seat decides a card effect, sample_action of another seat is an IllegalMoveError, not the decider's option."""
    import random

    game = bundled_game("sushi-go-party-master-menu", 4)
    for seed in range(200):
        state = game.new_initial_state(seed)
        rng = random.Random(seed).random
        while not state.finished and state.pending is None:
            state.apply_actions([state.sample_action(s, rng) for s in state.acting_seats()])
        if state.pending is not None:
            break
    else:
        pytest.fail("no decision was asked in 200 random games")
    decider = state.pending.seat
    other = (decider + 1) % game.num_seats
    assert state.legal_actions(other) == []
    with pytest.raises(IllegalMoveError, match=f"seat {other} has no move now: seat {decider} is deciding"):
        state.sample_action(other, rng)
    assert state.sample_action(decider, rng) in state.pending.options


def test_a_finished_game_refuses_moves():
    """apply_actions on a finished game raises IllegalMoveError and leaves it as it was."""
    game = bundled_game("sushi-go", 2)
    state = play_out(game.new_initial_state(1), bots_for(["random", "random"], 1))
    before = state.clone()
    assert state.legal_actions(0) == []
    with pytest.raises(IllegalMoveError):
        state.apply_actions([0, 0])
    assert fields(state) == fields(before)


@PROPERTY
@given(setup=game_setups(PLAIN), moves=st.integers(min_value=0, max_value=40))
def test_mutating_a_clone_never_changes_the_original(setup, moves):
    """A clone played to the end (and its lists mutated in place) leaves the original's every field as it was."""
    rid, players, seed, bots = setup
    game = bundled_game(rid, players)
    state = game.new_initial_state(seed)
    agents = bots_for(bots, seed)
    for _ in range(moves):
        if state.finished:
            break
        step(state, agents)
    reference = state.clone()
    snapshot = {k: repr(v) for k, v in fields(state).items()}
    clone = state.clone()
    for lists in (
        clone.hands,
        clone.played,
        clone.counts,
        clone.kept_cards,
        clone.kept_counts,
        clone.round_scores,
        clone.dummy_piles,
    ):
        for row in lists:
            row.append(0)
    clone.drawn.append(0)
    clone.game_end_scores.append(0)
    clone.winners.append(99)
    for pts in clone.rule_points.values():
        pts[0] += 1000
    assert {k: repr(v) for k, v in fields(state).items()} == snapshot
    clone = state.clone()
    play_out(clone, bots_for(bots, seed + 1))
    assert fields(state) == fields(reference)
    assert {k: repr(v) for k, v in fields(state).items()} == snapshot


# ---------------------------------------------------------------- observation


def test_round_one_turn_one_knows_no_other_hand():
    """In a 4-player game, at round 1 turn 1 no seat's observation holds another seat's hand."""
    game = bundled_game("sushi-go", 4)
    state = game.new_initial_state(8)
    rs = game.ruleset
    for seat in range(4):
        obs = state.observation(seat)
        assert obs.known_hands == {}
        assert obs.hand == names(rs, state.hands[seat])
        assert obs.hand_sizes == [8] * 4


def test_an_observation_is_the_same_whatever_the_hidden_cards_are():
    """With a dummy, observation(seat) of a game and of the game with the seat's hidden cards dealt again are equal (the controller's known hand listed the drawn cards' places)."""
    import random

    game = bundled_game("sushi-go-two-player-dummy", 2)
    for seed in range(4):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        step = 0
        while not state.finished:
            for seat in range(game.num_players):
                world = state.resample_hidden(seat, random.Random(step * 7 + seat).random)
                assert world.observation(seat) == state.observation(seat), (seed, step, seat)
            state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
            step += 1


def test_after_one_pass_a_seat_knows_only_the_hand_it_passed():
    """After one pass left, seat s knows the hand now at seat s+1 (what it held, minus its pick) and no other."""
    game = bundled_game("sushi-go", 4)
    rs = game.ruleset
    state = game.new_initial_state(8)
    dealt = [h[:] for h in state.hands]
    picks = [state.legal_actions(s)[0] for s in range(4)]
    state.apply_actions(picks)
    for seat in range(4):
        known = state.observation(seat).known_hands
        nxt = (seat + 1) % 4
        assert set(known) == {nxt}
        held = dealt[seat][:]
        held.remove(picks[seat])
        assert Counter(known[nxt]) == Counter(names(rs, held))
    state.apply_actions([state.legal_actions(s)[0] for s in range(4)])
    for seat in range(4):
        assert set(state.observation(seat).known_hands) == {(seat + 1) % 4, (seat + 2) % 4}


@PROPERTY
@given(setup=game_setups(PLAIN))
def test_observations_never_show_a_hand_the_seat_has_not_held(setup):
    """Tracking every hand as it passes: a seat's known_hands are exactly the hands it held earlier this round, minus a dummy card only their controller drew."""
    rid, players, seed, bots = setup
    game = bundled_game(rid, players)
    rs = game.ruleset
    state = game.new_initial_state(seed)
    agents = bots_for(bots, seed)
    rnd = -1
    while not state.finished:
        if state.round != rnd:
            rnd = state.round
            origin = list(range(players))  # which dealt hand each player seat holds now
            held = [{s} for s in range(players)]
        for seat in range(players):
            obs = state.observation(seat)
            assert obs.hand == names(rs, state.hands[seat])
            known = obs.known_hands
            expected = {o for o in range(players) if o != seat and origin[o] in held[seat]}
            assert set(known) == expected
            for o in expected:
                visible = list(state.hands[o])
                if o == state.controller:
                    for c in state.drawn:
                        visible.remove(c)
                assert Counter(known[o]) == Counter(names(rs, visible))
        step(state, agents)
        if state.round == rnd and not state.finished:
            d = rs.pass_directions[rnd]
            moved = [0] * players
            for s in range(players):
                moved[(s + d) % players] = origin[s]
            origin = moved
            for s in range(players):
                held[s].add(origin[s])


# ---------------------------------------------------------------- last card, passing


@pytest.mark.parametrize("ruleset_id", [r for r in bundled_without_dummy() if r in bundled_without_effects()])
@pytest.mark.parametrize("players", [2, 3, 5])
def test_the_last_card_is_played_automatically(ruleset_id, players):
    """In a standard game no decision is ever asked with one card left: the last cards are passed on and played by the engine as an 'auto' turn."""
    game = bundled_game(ruleset_id, players)
    state = game.new_initial_state(21)
    agents = bots_for(["random"] * players, 21)
    while not state.finished:
        assert all(len(h) >= 2 for h in state.hands)
        rnd = state.round
        if len(state.hands[0]) == 2:
            picks = [a.act(state, s) for s, a in enumerate(agents)]
            left = []
            for s, action in enumerate(picks):
                hand = state.hands[s][:]
                own, _ = game.decode_action(action)
                for c in own:
                    hand.remove(c)
                if len(own) > 1:
                    hand.append(game.ruleset.card_index("chopsticks"))
                left.append(hand)
            state.apply_actions(picks)
            turns = state.history[rnd].turns
            assert len(turns) == game.hand_size
            last = turns[-1]
            assert last.auto is True
            d = game.ruleset.pass_directions[rnd]
            assert [[a] for a in last.actions] == [left[(s - d) % players] for s in range(players)]
            assert state.finished or (state.round == rnd + 1 and state.turn == 0)
        else:
            step(state, agents)


def test_chopsticks_on_a_two_card_hand_pass_on_and_are_played_automatically():
    """Using chopsticks on the last two cards returns the chopsticks into the one-card hand passed on, which the next seat plays automatically; every dealt card is on a table when the round is scored."""
    game, state = forced_game(
        "sushi-go",
        2,
        [
            ["chopsticks", "tempura*9"],
            ["sashimi*10"],
        ],
    )
    rs = game.ruleset
    chop, tem, sas = cards(rs, "chopsticks", "tempura", "sashimi")
    with round_end_tables() as tables:
        state.apply_actions([chop, sas])
        while len(state.hands[0]) > 2:
            state.apply_actions([state.hands[0][0], state.hands[1][0]])
        assert state.turn == 8 and state.can_use_action(0)
        pair = game.encode_action(state.hands[0])
        assert pair in state.legal_actions(0)
        state.apply_actions([pair, state.hands[1][0]])
    assert state.round == 1 and state.turn == 0
    auto = state.history[0].turns[-1]
    assert auto.auto is True and auto.actions[1] == chop
    assert len(state.history[0].turns) == 10
    first = tables[0]
    assert Counter(first[0] + first[1]) == Counter({tem: 9, sas: 10, chop: 1})
    assert first[1][-1] == chop and chop not in first[0]
    assert [len(t) for t in first] == [10, 10]


def test_pass_both_ways_passes_right_in_round_two():
    """pass-both-ways passes left, right, left: in round 2 seat i's hand goes to seat i-1; the base game always left."""
    assert bundled_ruleset("sushi-go").pass_directions == (1, 1, 1)
    rs = bundled_ruleset("sushi-go-pass-both-ways")
    assert rs.pass_directions == (1, -1, 1)
    game = bundled_game("sushi-go-pass-both-ways", 3)
    state = game.new_initial_state(4)
    agents = bots_for(["random"] * 3, 4)
    for rnd, direction in enumerate((1, -1, 1)):
        assert state.round == rnd and state.turn == 0
        dealt = [h[:] for h in state.hands]
        picks = [state.legal_actions(s)[0] for s in range(3)]
        state.apply_actions(picks)
        for s in range(3):
            rest = dealt[s][:]
            rest.remove(picks[s])
            assert Counter(state.hands[(s + direction) % 3]) == Counter(rest)
        while state.round == rnd and not state.finished:
            step(state, agents)


# ---------------------------------------------------------------- the two-player dummy variant


@PROPERTY
@given(seed=game_seeds(), bots=st.lists(st.sampled_from(["random", "greedy"]), min_size=2, max_size=2))
def test_dummy_control_alternates_and_the_controller_draws_the_pile_top(seed, bots):
    """Control alternates every turn from seat 0/1/0 in rounds 1/2/3; each turn the controller draws the pile's next card into its hand, and only the controller's actions (all of them) pick a dummy card."""
    game = bundled_game(DUMMY, 2)
    state = game.new_initial_state(seed)
    agents = bots_for(bots, seed)
    while not state.finished:
        rnd, turn = state.round, state.turn
        pile = state.history[rnd].hands[2]
        controller = state.controller
        assert controller == ((0, 1, 0)[rnd] + turn) % 2
        assert state.drawn == [pile[turn]]
        assert state.dummy_piles[0] == pile[turn + 1 :]
        assert len(state.hands[controller]) == len(state.hands[1 - controller]) + 1
        assert pile[turn] in state.hands[controller]
        assert state.observation(controller).controls_dummy and not state.observation(1 - controller).controls_dummy
        for seat in (0, 1):
            legal = state.legal_actions(seat)
            assert len(legal) == len(set(legal))
            assert all((game.decode_action(a)[1] is not None) == (seat == controller) for a in legal)
        step(state, agents)
    for rnd, record in enumerate(state.history):
        assert [t.controller for t in record.turns] == [((0, 1, 0)[rnd] + t) % 2 for t in range(9)]
        assert [t.drawn for t in record.turns] == [(c,) for c in record.hands[2]]


def test_the_dummy_controller_must_pick_for_the_dummy():
    """The controller's action without a dummy card, a dummy card it does not hold, or a dummy card from the other player, raise IllegalMoveError and change nothing."""
    game = bundled_game(DUMMY, 2)
    state = game.new_initial_state(2)
    c = state.controller
    assert c == 0
    own = state.hands[0][0]
    other = state.legal_actions(1)[0]
    absent = next(k for k in range(game.num_card_types) if k not in state.hands[0])
    bad = [
        [own, other],  # no dummy card
        [game.encode_action([own], absent), other],  # a dummy card it does not hold
        [
            state.legal_actions(0)[0],
            game.encode_action([other], state.hands[1][1]),
        ],  # the other player picks for the dummy
    ]
    if state.hands[0].count(own) == 1:
        bad.append([game.encode_action([own], own), other])  # the same single card twice
    for actions in bad:
        before = state.clone()
        with pytest.raises(IllegalMoveError):
            state.apply_actions(actions)
        assert fields(state) == fields(before)


@PROPERTY
@given(seed=game_seeds(), bots=st.lists(st.sampled_from(["random", "greedy"]), min_size=2, max_size=2))
def test_dummy_seats_end_each_round_with_nine_cards_and_the_dummy_never_uses_chopsticks(seed, bots):
    """Each of the three seats has 9 cards on the table when a round is scored; the dummy's table is exactly its picks in order (no chopsticks ever leave it); the dummy never wins."""
    game = bundled_game(DUMMY, 2)
    with round_end_tables() as tables:
        state = play_out(game.new_initial_state(seed), bots_for(bots, seed))
    assert len(tables) == 3
    for record, played in zip(state.history, tables):
        assert [len(p) for p in played] == [9, 9, 9]
        dummy_picks = []
        for turn in record.turns:
            _, dummy_card = game.decode_action(turn.actions[turn.controller])
            dummy_picks.append(dummy_card)
        assert played[2] == dummy_picks
    assert set(state.winners) <= {0, 1} and state.winners


def test_dummy_variant_chopsticks_return_into_the_swapped_hand():
    """In the dummy variant a player's used chopsticks go back into the hand the other player receives; the dummy's chopsticks stay on its table."""
    game, state = forced_game(
        DUMMY,
        2,
        [
            ["chopsticks", "tempura*8"],
            ["wasabi", "squid_nigiri", "sashimi*7"],
            ["chopsticks", "dumpling*8"],
        ],
    )
    rs = game.ruleset
    chop, tem, sas, wasabi, squid, dum = cards(
        rs, "chopsticks", "tempura", "sashimi", "wasabi", "squid_nigiri", "dumpling"
    )
    assert state.controller == 0 and state.drawn == [chop]
    # seat 0 controls: it plays a chopsticks and gives the drawn chopsticks to the dummy
    state.apply_actions([game.encode_action([chop], chop), sas])
    assert names(rs, state.played[2]) == ["chopsticks"]
    assert state.controller == 1 and state.drawn == [dum]
    assert Counter(names(rs, state.hands[0])) == Counter({"wasabi": 1, "squid_nigiri": 1, "sashimi": 6})
    pair = game.encode_action([wasabi, squid])
    assert pair in state.legal_actions(0)
    state.apply_actions([pair, game.encode_action([tem], dum)])
    assert names(rs, state.played[0]) == ["wasabi", "squid_nigiri"]
    points = round_points(state)
    assert points["nigiri"][0] + points["wasabi"][0] == 9
    assert Counter(names(rs, state.hands[1])).get("chopsticks") == 1  # swapped to seat 1 (plus its drawn card)
    assert names(rs, state.played[2]) == ["chopsticks", "dumpling"]  # the dummy kept its chopsticks


def test_the_dummy_can_never_win():
    """decide_winners skips the dummy seat even with the highest total; the tied players go to the pudding tie-break."""
    rs = bundled_ruleset(DUMMY)
    K = rs.catalogue.size
    pud = rs.card_index("pudding")
    kept = Tableau.from_cards(K, [[pud], [pud, pud], [pud] * 5], 3)
    assert decide_winners(rs, 2, [10, 5, 50], kept) == [0]
    assert decide_winners(rs, 2, [10, 10, 50], kept) == [1]
    level = Tableau.from_cards(K, [[pud], [pud], []], 3)
    assert decide_winners(rs, 2, [10, 10, 50], level) == [0, 1]


def test_winners_most_points_then_most_puddings_then_shared():
    """Base game: most points wins; a points tie goes to the most puddings among the tied (not among all); still tied, the win is shared."""
    rs = bundled_ruleset("sushi-go")
    K = rs.catalogue.size
    pud = rs.card_index("pudding")
    kept = Tableau.from_cards(K, [[pud], [pud, pud], [pud] * 5], 3)
    assert decide_winners(rs, 3, [30, 20, 25], kept) == [0]
    assert decide_winners(rs, 3, [30, 30, 25], kept) == [1]  # seat 2 has more puddings but is not tied
    level = Tableau.from_cards(K, [[pud], [pud], []], 3)
    assert decide_winners(rs, 3, [30, 30, 25], level) == [0, 1]


# --------------------------------------------------------------------------- sampling


def _all_samples(state, seat):
    """What a one-draw sampler returns for every slot of the unit interval it can pick."""
    legal = state.legal_actions(seat)
    total = len(legal)
    # a slot per action: feeding the middle of slot i must give a distinct legal action
    return [state.sample_action(seat, lambda i=i: (i + 0.5) / total) for i in range(total)]


class _Stream:
    """A scripted ``random()``: the given draws, then :class:`_Exhausted`."""

    def __init__(self, draws):
        self.draws = list(draws)

    def __call__(self):
        if not self.draws:
            raise _Exhausted
        return self.draws.pop(0)


class _Exhausted(Exception):
    pass


def _first_attempt_outcomes(hand):
    """How often sample_distinct keeps each card on its first attempt, over a grid of
    first and second draws fine enough to hit every threshold it compares with."""
    from math import lcm

    size = len(hand)
    second = lcm(*Counter(hand).values())
    kept = Counter()
    for i in range(size):
        for j in range(second):
            try:
                kept[sample_distinct(hand, _Stream([(i + 0.5) / size, (j + 0.5) / second]))] += 1
            except _Exhausted:  # rejected: a second attempt would start
                pass
    return kept, second


@given(hand=st.lists(st.integers(0, 5), min_size=1, max_size=10))
def test_sample_distinct_keeps_every_distinct_card_equally_often(hand):
    """sample_distinct is uniform over the distinct cards, whatever their multiplicities: each is kept on an attempt with the same probability."""
    kept, second = _first_attempt_outcomes(hand)
    assert set(kept) == set(hand)
    assert set(kept.values()) == {second}  # 1/len(hand) of the grid per distinct card


@given(hand=st.lists(st.integers(0, 5), min_size=1, max_size=10))
def test_sample_one_or_two_maps_the_unit_interval_onto_every_single_and_ordered_pair(hand):
    """sample_one_or_two is uniform: the slots of [0, 1) map one-to-one onto every card and every ordered pair the hand allows."""
    counts = Counter(hand)
    expected = [(c, -1) for c in counts] + [(a, b) for a in counts for b in counts if a != b or counts[a] > 1]
    total = len(expected)
    got = [sample_one_or_two(hand, lambda i=i: (i + 0.5) / total) for i in range(total)]
    assert sorted(got) == sorted(expected)
    pairs = expected[len(counts) :]
    got = [sample_one_or_two(hand, lambda i=i: (i + 0.5) / len(pairs), singles=False) for i in range(len(pairs))]
    assert sorted(got) == sorted(pairs)


@given(setup=game_setups(PLAIN), turns=st.integers(min_value=0, max_value=12))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_sample_action_draws_uniformly_over_the_legal_actions(setup, turns):
    """sample_action is uniform over the legal actions: with a special action possible, or a dummy to pick for, the slots of [0, 1) map one-to-one onto them (chopsticks pairs included); otherwise it is sample_distinct over the hand, whose distinct cards are exactly the legal actions."""
    import random

    ruleset_id, players, seed, bots = setup
    game = bundled_game(ruleset_id, players)
    state = game.new_initial_state(seed)
    agents = [make_agent(b, bot_seed(seed, s)) for s, b in enumerate(bots)]
    for _ in range(turns):
        assume(not state.is_terminal())  # the game ended sooner: nothing left to check
        state.apply_actions([agents[s].act(state, s) for s in state.acting_seats()])
    assume(not state.is_terminal())  # a finished game has no one to act
    for seat in state.acting_seats():
        if state.can_use_action(seat) or state.controller == seat:  # one draw over the listed actions
            assert sorted(_all_samples(state, seat)) == sorted(state.legal_actions(seat))
        else:
            hand = state.hands[seat]
            assert sorted(set(hand)) == sorted(state.legal_actions(seat))
            for k in range(5):
                assert state.sample_action(seat, random.Random(k).random) == sample_distinct(
                    hand, random.Random(k).random
                )


@given(setup=game_setups(PLAIN, bots=["random"]), turns=st.integers(min_value=0, max_value=30))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_play_out_is_the_same_game_as_sampling_and_applying_turn_by_turn(setup, turns):
    """State.play_out plays, draw for draw, the game that sample_action and apply_actions give turn by turn, from any point of a game."""
    import random

    ruleset_id, players, seed, _ = setup
    game = bundled_game(ruleset_id, players)
    state = game.new_initial_state(seed)
    agents = bots_for(["random"] * players, seed)
    for _ in range(turns):
        assume(not state.is_terminal())  # the game ended sooner: nothing left to check
        step(state, agents)
    fast, slow = state.clone(), state.clone()
    fast.play_out([random.Random(seed + s).random for s in range(players)])
    streams = [random.Random(seed + s).random for s in range(players)]
    while not slow.is_terminal():
        slow.apply_actions([slow.sample_action(s, streams[s]) for s in slow.acting_seats()])
    assert fast.history == slow.history
    assert (fast.totals(), fast.winners, fast.rule_points) == (slow.totals(), slow.winners, slow.rule_points)


TWO_ACTIONS = """\
format: 1
extends: sushi-go
id: sushi-go-two-actions
name: Sushi Go! with wasabi that also works as chopsticks
actions:
  - id: wasabi_pick
    kind: extra_pick
    card: wasabi
    extra: 1
    per_turn: 1
    then: return_to_hand
"""


@given(seed=game_seeds(), players=st.integers(2, 5))
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_play_out_with_several_special_actions_is_the_same_game_as_turn_by_turn(seed, players, tmp_path_factory):
    """With two special actions (chopsticks, and wasabi that also lets a seat take two cards) play_out takes its general path and still plays the turn-by-turn game."""
    import random

    from ruledraft.language.loading import load_ruleset

    path = tmp_path_factory.mktemp("two-actions") / "two-actions.yaml"
    path.write_text(TWO_ACTIONS)
    game = Game(load_ruleset(path), players)
    fast, slow = game.new_initial_state(seed), game.new_initial_state(seed)
    fast.play_out([random.Random(seed + s).random for s in range(players)])
    streams = [random.Random(seed + s).random for s in range(players)]
    while not slow.is_terminal():
        slow.apply_actions([slow.sample_action(s, streams[s]) for s in slow.acting_seats()])
    assert fast.history == slow.history
    assert (fast.totals(), fast.winners) == (slow.totals(), slow.winners)
    assert [a.id for a in game.ruleset.actions] == ["chopsticks", "wasabi_pick"]


def test_play_out_needs_one_stream_per_player():
    """play_out refuses a number of random streams other than the number of players."""
    state = bundled_game("sushi-go", 3).new_initial_state(1)
    with pytest.raises(ValueError, match="3 players"):
        state.play_out([lambda: 0.5] * 2)


# --------------------------------------------------------------------------- determinization


def _unseen_multiset(state, seat):
    """Every card ``seat`` cannot place: other hands, dummy piles and the undealt deck."""
    cards = Counter(state.deck[state.deck_pos :])
    for other, hand in enumerate(state.hands):
        if other != seat:
            cards.update(hand)
    for pile in state.dummy_piles:
        cards.update(pile)
    if state.pending is not None and state.pending.seat != seat:
        cards.update(state.pending.shown)  # drawn for another seat's decision (a menu): unseen
    return cards


@given(setup=game_setups(), turns=st.integers(min_value=0, max_value=14), draw=st.integers(0, 2**32))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_resample_hidden_keeps_what_the_seat_knows_and_redeals_the_rest(setup, turns, draw):
    """resample_hidden keeps the seat's hand, every table and the hands it has seen; the other cards are only moved among unseen places, and the game plays on."""
    import random

    ruleset_id, players, seed, bots = setup
    game = bundled_game(ruleset_id, players)
    state = game.new_initial_state(seed)
    agents = [make_agent(b, bot_seed(seed, s)) for s, b in enumerate(bots)]
    for _ in range(turns):
        assume(not state.is_terminal())  # the game ended sooner: nothing left to check
        state.apply_actions([agents[s].act(state, s) for s in state.acting_seats()])
    seat = 0
    known = game.procedure.known_hands(state, seat)
    before = ([h[:] for h in state.hands], state.deck[:], [p[:] for p in state.dummy_piles])
    other = state.resample_hidden(seat, random.Random(draw).random)
    assert other.hands[seat] == state.hands[seat]
    assert other.played == state.played and other.kept_cards == state.kept_cards
    assert [len(h) for h in other.hands] == [len(h) for h in state.hands]
    for s, seen in known.items():
        assert not Counter(seen) - Counter(other.hands[s])  # what the seat saw is still there
    assert _unseen_multiset(other, seat) == _unseen_multiset(state, seat)
    assert (state.hands, state.deck, state.dummy_piles) == before  # the original is untouched
    while not other.is_terminal():
        other.apply_actions([agents[s].act(other, s) for s in other.acting_seats()])
    assert len(other.totals()) == game.num_seats


def test_resample_hidden_changes_the_hands_a_seat_has_not_seen():
    """At the first turn every other hand is unseen, so re-dealing moves cards between them and the deck."""
    import random

    game = bundled_game("sushi-go", 4)
    state = game.new_initial_state(11)
    redeals = {tuple(map(tuple, state.resample_hidden(0, random.Random(k).random).hands[1:])) for k in range(5)}
    assert len(redeals) == 5
    assert tuple(map(tuple, state.hands[1:])) not in redeals
