"""Bots (ruledraft.play.agents): the random bot, the greedy bot and the agent registry."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import (
    BUNDLED_RULESETS,
    bundled_game,
    bundled_ruleset,
    bundled_without_effects,
    cards,
    forced_game,
    game_setups,
)

from ruledraft.engine.seeds import private_seed
from ruledraft.language.scoring import score_rules
from ruledraft.play import agents as agents_module
from ruledraft.play.agents import GreedyAgent, RandomAgent, agent_names, make_agent, register_agent
from ruledraft.play.runner import bot_seed, play_game
from ruledraft.tableau import Tableau

PROPERTY = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# ---------------------------------------------------------------- helpers


def bots_for(names, seed):
    return [make_agent(n, bot_seed(seed, s)) for s, n in enumerate(names)]


def reference_gain(state, seat, action):
    """The immediate gain of ``action`` for ``seat``, computed the slow, obvious way: score
    every round-end rule on the whole table before and after the move, and every game-end
    rule on the cards kept so far (this round's kept cards included) before and after."""
    game = state.game
    rs = game.ruleset
    K = game.num_card_types
    own, dummy_card = game.decode_action(action)
    after = [p[:] for p in state.played]
    after[seat] += list(own)
    if len(own) > 1:  # the special action's card leaves the table (chopsticks: back to the hand)
        for special in game.actions:
            if state.counts[seat][special.card]:
                after[seat].remove(special.card)
                break
    if dummy_card is not None:
        after[game.num_players].append(dummy_card)

    def round_total(played):
        return score_rules(rs.round_rules, Tableau.from_cards(K, played, state.round + 1))[0][seat]

    def game_total(played):
        kept = [k + [c for c in p if game.kept[c]] for k, p in zip(state.kept_cards, played)]
        return score_rules(rs.game_rules, Tableau.from_cards(K, kept, state.round + 1))[0][seat]

    return round_total(after) - round_total(state.played) + game_total(after) - game_total(state.played)


def play_and_check(state, agents, check):
    """Play to the end, calling ``check(state, seat, action)`` on every decision."""
    while not state.finished:
        actions = []
        for seat in state.acting_seats():  # all seats, or the one a card effect asks
            action = agents[seat].act(state, seat)
            check(state, seat, action)
            actions.append(action)
        state.apply_actions(actions)
    return state


# ---------------------------------------------------------------- random


@PROPERTY
@given(setup=game_setups(st.sampled_from(bundled_without_effects()), bots=("random",)))
def test_random_plays_only_legal_actions(setup):
    """Every action the random bot chooses is among the state's legal actions (chopsticks and dummy picks included)."""
    rid, players, seed, bots = setup
    game = bundled_game(rid, players)

    def check(state, seat, action):
        assert action in state.legal_actions(seat)

    play_and_check(game.new_initial_state(seed), bots_for(bots, seed), check)


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS)
def test_random_with_the_same_seed_plays_the_same_game(ruleset_id):
    """Two games with the same game seed and the same bot seeds are identical, move for move; another bot seed plays differently."""
    rs = bundled_ruleset(ruleset_id)
    players = rs.min_players
    game = bundled_game(ruleset_id, players)
    a = play_game(game, 17, ["random"] * players)
    b = play_game(game, 17, ["random"] * players)
    assert a.history == b.history and a.totals() == b.totals() and a.winners == b.winners
    c = play_game(game, 17, ["random"] * players, agents=[RandomAgent(1000 + s) for s in range(players)])
    assert c.history[0].hands == a.history[0].hands
    assert c.history != a.history


def test_random_choices_cover_the_legal_actions():
    """Over many seeds the random bot picks every legal action of a state at least once (uniform, not fixed)."""
    game = bundled_game("sushi-go", 3)
    state = game.new_initial_state(5)
    legal = state.legal_actions(0)
    picks = Counter(RandomAgent(seed).act(state, 0) for seed in range(400))
    assert set(picks) == set(legal)


# ---------------------------------------------------------------- greedy


def test_greedy_puts_the_squid_on_its_wasabi():
    """With a wasabi on its table and a squid nigiri in hand, greedy takes the squid (9 points) over every other card."""
    game, state = forced_game(
        "sushi-go",
        3,
        [
            ["wasabi", "tempura*8"],
            ["sashimi*9"],
            ["squid_nigiri", "salmon_nigiri", "egg_nigiri", "maki_3", "dumpling", "pudding", "tempura", "sashimi*2"],
        ],
    )
    rs = game.ruleset
    state.apply_actions(cards(rs, "wasabi", "sashimi", "sashimi"))
    assert rs.card_index("squid_nigiri") in state.hands[0]
    for seed in range(5):
        assert GreedyAgent(seed).act(state, 0) == rs.card_index("squid_nigiri")


def test_greedy_completes_a_tempura_pair_over_an_egg_nigiri():
    """With one tempura on the table greedy takes the second tempura (5) over an egg nigiri (1); with none it takes the egg."""
    game, state = forced_game(
        "sushi-go",
        2,
        [
            ["tempura", "egg_nigiri", "sashimi*4", "dumpling*4"],
            ["tempura*2", "egg_nigiri", "sashimi*3", "wasabi*4"],
        ],
    )
    rs = game.ruleset
    tem, egg, wasabi = cards(rs, "tempura", "egg_nigiri", "wasabi")
    # no tempura on seat 1's table yet: a lone tempura scores 0, the egg 1
    assert GreedyAgent(0).act(state, 1) == egg
    state.apply_actions([tem, wasabi])
    # seat 0 now holds seat 1's hand (tempura, egg, ...) with a tempura on its table
    assert tem in state.hands[0] and egg in state.hands[0]
    for seed in range(5):
        assert GreedyAgent(seed).act(state, 0) == tem


def test_greedy_uses_chopsticks_for_wasabi_then_squid():
    """With chopsticks on its table greedy takes wasabi then squid (9 points), not the reverse order (3)."""
    game, state = forced_game(
        "sushi-go",
        2,
        [
            ["chopsticks", "tempura*9"],
            ["wasabi", "squid_nigiri", "egg_nigiri", "sashimi*7"],
        ],
    )
    rs = game.ruleset
    state.apply_actions(cards(rs, "chopsticks", "sashimi"))
    best = game.encode_action(cards(rs, "wasabi", "squid_nigiri"))
    assert best in state.legal_actions(0)
    assert GreedyAgent(0).act(state, 0) == best


@PROPERTY
@given(setup=game_setups(st.sampled_from(bundled_without_effects())))
def test_greedy_choice_has_the_highest_immediate_gain(setup):
    """In states reached by the drawn bots, greedy's action gains as much as the best legal action, by a slow reference scoring of the whole table."""
    rid, players, seed, bots = setup
    game = bundled_game(rid, players)
    greedy = GreedyAgent(seed)
    state = game.new_initial_state(seed)
    agents = bots_for(bots, seed)
    checked = 0
    while not state.finished:
        for seat in {0, max(state.controller, 0)}:
            legal = state.legal_actions(seat)
            gains = {a: reference_gain(state, seat, a) for a in legal}
            choice = greedy.act(state, seat)
            assert choice in gains
            assert gains[choice] == max(gains.values()), (
                game.action_to_string(choice),
                gains[choice],
                max(gains.values()),
            )
            checked += 1
        state.apply_actions([a.act(state, s) for s, a in enumerate(agents)])
    assert checked >= 3 * 5


@pytest.mark.parametrize("ruleset_id", bundled_without_effects())
def test_greedy_plays_every_bundled_ruleset(ruleset_id):
    """Greedy plays legal actions to the end of a game at every player count of each bundled ruleset; as the dummy's controller it always picks a dummy card."""
    rs = bundled_ruleset(ruleset_id)
    for players in rs.player_counts:
        game = bundled_game(ruleset_id, players)
        dummy_picks = []

        def check(state, seat, action, game=game, dummy_picks=dummy_picks):
            assert action in state.legal_actions(seat)
            dummy_card = game.decode_action(action)[1]
            assert (dummy_card is not None) == (seat == state.controller)
            if dummy_card is not None:
                dummy_picks.append(dummy_card)

        state = play_and_check(game.new_initial_state(players), bots_for(["greedy"] * players, players), check)
        assert state.winners
        if rs.dummy:
            assert len(dummy_picks) == 27


def tie_state():
    """Seat 0 to move with nothing on its table and a hand where several cards all gain 0."""
    game, state = forced_game(
        "sushi-go",
        2,
        [
            ["tempura", "sashimi", "wasabi", "chopsticks", "dumpling", "egg_nigiri*5"],
            ["sashimi*10"],
        ],
    )
    return game, state


def test_greedy_breaks_ties_with_its_seeded_rng():
    """Among equally good actions greedy's choice depends only on its seed: the same seed repeats it, different seeds spread over all the tied actions."""
    game, state = tie_state()
    rs = game.ruleset
    # dumpling (1) and egg nigiri (1) tie for the best gain; tempura, sashimi, wasabi, chopsticks gain 0
    tied = set(cards(rs, "dumpling", "egg_nigiri"))
    gains = {a: reference_gain(state, 0, a) for a in state.legal_actions(0)}
    assert {a for a, g in gains.items() if g == max(gains.values())} == tied
    choices = [GreedyAgent(seed).act(state, 0) for seed in range(40)]
    assert set(choices) == tied
    assert [GreedyAgent(seed).act(state, 0) for seed in range(40)] == choices
    a, b = GreedyAgent(7), GreedyAgent(7)
    assert [a.act(state, 0) for _ in range(10)] == [b.act(state, 0) for _ in range(10)]


# ---------------------------------------------------------------- registry


def test_make_agent_with_an_unknown_name_raises_key_error():
    """make_agent('nope', 0) raises KeyError naming 'nope'; the built-in bots are registered."""
    with pytest.raises(KeyError, match="nope"):
        make_agent("nope", 0)
    assert {"random", "greedy"} <= set(agent_names())
    assert isinstance(make_agent("greedy", 3), GreedyAgent)
    assert isinstance(make_agent("random", 3), RandomAgent)


class FirstLegal:
    """A test bot: always the first legal action; remembers its seed."""

    name = "first-legal"

    def __init__(self, seed):
        self.seed = seed
        self.moves = 0

    def act(self, state, seat):
        self.moves += 1
        return state.legal_actions(seat)[0]


@pytest.fixture
def first_legal_registered():
    name = "test-first-legal"
    made = []

    def factory(seed):
        agent = FirstLegal(seed)
        made.append(agent)
        return agent

    register_agent(name, factory)
    try:
        yield name, made
    finally:
        agents_module._REGISTRY.pop(name, None)


def test_a_registered_bot_plays_through_play_game(first_legal_registered):
    """A bot registered by name is made by play_game with the seat's private seed and plays a whole game; registering the name again needs replace=True."""
    name, made = first_legal_registered
    assert name in agent_names()
    game = bundled_game("sushi-go", 3)
    state = play_game(game, 99, [name, "random", "greedy"])
    assert state.finished and state.winners
    assert len(made) == 1 and made[0].seed == private_seed(bot_seed(99, 0)) and made[0].moves == 3 * (9 - 1)
    again = play_game(game, 99, [name, "random", "greedy"])
    assert again.history == state.history
    with pytest.raises(ValueError):
        register_agent(name, FirstLegal)
    register_agent(name, FirstLegal, replace=True)
    assert isinstance(make_agent(name, 1), FirstLegal)


def test_the_documented_registration_name_still_works():
    """`ruledraft.agents.register_agent`, the name the README documents, registers into the one registry."""
    from ruledraft.agents import agent_names, register_agent

    class Lazy:
        name = "lazy-doc"

        def __init__(self, seed):
            pass

        def act(self, state, seat):
            return state.legal_actions(seat)[0]

    register_agent("lazy-doc", Lazy)
    try:
        assert "lazy-doc" in agent_names() and "lazy-doc" in agents_module.agent_names()
    finally:
        agents_module._REGISTRY.pop("lazy-doc", None)
