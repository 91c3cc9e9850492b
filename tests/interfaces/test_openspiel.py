"""The OpenSpiel game (ruledraft.openspiel, the `openspiel` extra): OpenSpiel's own checks, chance, moves, observers, serialization, its MCTS."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from strategies import BUNDLED_RULESETS, bundled_game

pyspiel = pytest.importorskip("pyspiel")
ruledraft_openspiel = pytest.importorskip("ruledraft.openspiel")

from ruledraft.engine.encoding import encoder_for  # noqa: E402

#: few deals keep the chance node's outcome list short; the test needs no more
DEALS = 64


def _load(ruleset, players=0, **more):
    return pyspiel.load_game("ruledraft", {"ruleset": ruleset, "players": players, "deals": DEALS, **more})


@pytest.mark.parametrize("rid", BUNDLED_RULESETS)
def test_openspiels_random_sim_test_passes_on_every_bundled_ruleset(rid):
    """pyspiel.random_sim_test (legal moves, chance, observers, serialization) passes on every bundled ruleset at its fewest players."""
    pyspiel.random_sim_test(_load(rid), num_sims=1, serialize=True, verbose=False)


def test_the_game_type_says_simultaneous_imperfect_information_with_explicit_chance():
    """The registered game type: simultaneous moves, explicit chance, imperfect information, every string and tensor provided."""
    game_type = _load("sushi-go").get_type()
    assert game_type.short_name == "ruledraft"
    assert game_type.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
    assert game_type.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert game_type.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert game_type.provides_information_state_tensor and game_type.provides_observation_tensor
    assert game_type.provides_information_state_string and game_type.provides_observation_string
    assert set(game_type.parameter_specification) == {"ruleset", "players", "deals", "returns"}


def test_parameters_choose_the_ruleset_and_players_and_the_sizes_follow_the_engine():
    """players=0 is the ruleset's fewest; actions, players and the observation size are the engine game's and encoder's."""
    game = _load("sushi-go-two-player-dummy")
    engine_game = bundled_game("sushi-go-two-player-dummy", 2)
    assert game.num_players() == 2
    assert game.num_distinct_actions() == engine_game.num_distinct_actions == 2028
    assert game.observation_tensor_size() == encoder_for(engine_game).size
    four = _load("sushi-go", 4)
    assert four.num_players() == 4
    assert four.information_state_tensor_size() == encoder_for(bundled_game("sushi-go", 4)).size + 3 * 4 * 12


def test_the_deal_is_a_uniform_chance_node_whose_outcome_is_the_engines_seed():
    """The first node is chance with `deals` equally likely outcomes; outcome i deals the engine's game i."""
    game = _load("sushi-go", 3)
    state = game.new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == list(range(DEALS)) and all(p == pytest.approx(1 / DEALS) for _, p in outcomes)
    state.apply_action(17)
    assert state.engine.hands == bundled_game("sushi-go", 3).new_initial_state(17).hands
    assert state.current_player() == pyspiel.PlayerId.SIMULTANEOUS
    assert "17" not in state.observation_string(0).split("; ")[0]


def test_picks_are_simultaneous_and_a_card_effect_decision_is_one_players_node():
    """Picks are simultaneous nodes of every player; while a Party menu or spoon waits, only the deciding seat moves, with the decision's options."""
    game = _load("sushi-go-party-party-sampler", 3)
    rng = np.random.default_rng(2)
    decisions = 0
    for deal in range(6):
        state = game.new_initial_state()
        state.apply_action(deal)
        while not state.is_terminal():
            engine = state.engine
            if state.is_simultaneous_node():
                assert engine.pending is None
                state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(3)])
            else:
                assert state.current_player() == engine.pending.seat
                assert state.legal_actions() == sorted(engine.pending.options)
                decisions += 1
                state.apply_action(int(rng.choice(state.legal_actions())))
        assert state.returns() == [float(t) for t in state.engine.totals()[:3]]
    assert decisions, "no game asked for a decision"


def test_observations_are_the_encoder_vector_and_hide_other_hands():
    """The observation tensor is the engine encoder's vector of the seat's view; its strings show the own hand, never an unseen other hand."""
    game = _load("sushi-go", 2)
    state = game.new_initial_state()
    state.apply_action(5)
    engine = state.engine
    enc = encoder_for(engine.game)
    for seat in range(2):
        assert state.observation_tensor(seat) == pytest.approx(enc.encode(engine.observation(seat)))
    ids = engine.game.ruleset.catalogue.ids
    text = state.observation_string(0)
    assert f"hand {' '.join(sorted(ids[c] for c in engine.hands[0]))}" in text
    assert " ".join(sorted(ids[c] for c in engine.hands[1])) not in text
    assert state.information_state_string(0) != state.information_state_string(1)


@pytest.mark.parametrize("name", ["ruledraft", "ruledraft_turns"])
def test_an_observer_of_another_kind_than_one_players_view_is_refused(name):
    """A public-only observer (or one of every player's private information, or without the public part) is refused with a ValueError, never given the player's hand; the player's own view, with or without perfect recall, is served."""
    from open_spiel.python.observation import make_observation

    game = pyspiel.load_game(name, {"ruleset": "sushi-go", "players": 3})
    state = game.new_initial_state()
    state.apply_action(5)
    kinds = pyspiel.PrivateInfoType
    for public, private in ((True, kinds.NONE), (True, kinds.ALL_PLAYERS), (False, kinds.SINGLE_PLAYER)):
        asked = pyspiel.IIGObservationType(perfect_recall=False, public_info=public, private_info=private)
        with pytest.raises(ValueError, match="ruledraft observes one player's view"):
            make_observation(game, asked)
    for recall in (False, True):
        own = make_observation(game, pyspiel.IIGObservationType(perfect_recall=recall))
        own.set_from(state, 0)
        assert own.tensor.any()


def test_the_information_state_remembers_own_moves_and_earlier_rounds():
    """The information-state string grows with every move and names the player's own move; its tensor holds earlier rounds' tables."""
    game = _load("sushi-go", 2, returns="win")
    state = game.new_initial_state()
    state.apply_action(3)
    before = state.information_state_string(0)
    moves = [state.legal_actions(0)[0], state.legal_actions(1)[0]]
    state.apply_actions(moves)
    after = state.information_state_string(0)
    assert after.startswith(before) and f"played {moves[0]}" in after and f"played {moves[1]}" not in after
    rng = np.random.default_rng(0)
    while state.engine.round == 0:
        state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])
    tensor = np.array(state.information_state_tensor(0))
    size = encoder_for(state.engine.game).size
    earlier = tensor[size:].reshape(3, 2, -1)
    assert earlier[0].tolist() == [state.engine.history[0].counts[0], state.engine.history[0].counts[1]]
    assert not earlier[1:].any()
    while not state.is_terminal():
        state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(2)])
    assert sorted(state.returns()) in ([0.0, 1.0], [0.5, 0.5])


def test_a_state_survives_serialization_pickling_and_cloning():
    """serialize/deserialize_game_and_state and pickle give the same game position; a clone moves on without touching its original."""
    game = _load("sushi-go-party-party-sampler", 3)
    state = game.new_initial_state()
    state.apply_action(9)
    rng = np.random.default_rng(9)
    for _ in range(5):
        if state.is_simultaneous_node():
            state.apply_actions([int(rng.choice(state.legal_actions(p))) for p in range(3)])
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    _, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))
    assert copy.engine.hands == state.engine.hands and copy.engine.history == state.engine.history
    assert copy.information_state_string(1) == state.information_state_string(1)
    unpickled = pickle.loads(pickle.dumps(state))
    assert unpickled.engine.played == state.engine.played
    clone = state.clone()
    history = state.history()
    while not clone.is_terminal():
        if clone.is_simultaneous_node():
            clone.apply_actions([int(rng.choice(clone.legal_actions(p))) for p in range(3)])
        else:
            clone.apply_action(int(rng.choice(clone.legal_actions())))
    assert state.history() == history and not state.is_terminal()


def test_openspiels_mcts_plays_the_turn_based_conversion():
    """OpenSpiel's MCTSBot (random roll-outs) chooses legal moves on pyspiel.convert_to_turn_based of a Party menu."""
    from open_spiel.python.algorithms import mcts

    game = pyspiel.convert_to_turn_based(_load("sushi-go-party-party-sampler", 3, returns="win"))
    rng = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 1.4, 16, mcts.RandomRolloutEvaluator(1, rng), random_state=rng)
    state = game.new_initial_state()
    moves = 0
    while not state.is_terminal() and moves < 8:
        if state.is_chance_node():
            state.apply_action(int(rng.randint(DEALS)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    assert moves == 8


def test_wrong_parameters_are_clear_errors():
    """An unknown returns option or a player count outside the ruleset's range is refused."""
    with pytest.raises(Exception, match="returns must be one of points, win"):
        _load("sushi-go", returns="margin")
    with pytest.raises(Exception, match="is for 2-5 players, not 7"):
        _load("sushi-go", 7)


def _turns(ruleset, players=0, **more):
    return pyspiel.load_game("ruledraft_turns", {"ruleset": ruleset, "players": players, "deals": DEALS, **more})


@pytest.mark.parametrize("rid", ["sushi-go", "sushi-go-party-party-sampler", "sushi-go-two-player-dummy"])
def test_the_turn_by_turn_game_passes_random_sim_test(rid):
    """pyspiel.random_sim_test passes on ruledraft_turns: sequential picks, a Party menu's decisions, a dummy."""
    game = _turns(rid)
    assert game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_a_turn_by_turn_state_and_its_determinization_survive_serialization_and_pickling():
    """A ruledraft_turns state mid-turn, and a world resample_from_infostate dealt from it, come back from
    serialize/deserialize and pickle with the same hands, tables and picks chosen."""
    game = _turns("sushi-go-party-master-menu", 3)
    state = game.new_initial_state()
    state.apply_action(4)
    rng = np.random.default_rng(4)
    for _ in range(4):  # the second turn, seat 0 has chosen: seat 2 has not seen the hand it passes to
        state.apply_action(int(rng.choice(state.legal_actions())))
    world = state.resample_from_infostate(2, np.random.default_rng(1).random)
    assert world.engine.hands != state.engine.hands  # another deal of what seat 2 cannot see
    for original in (state, world):
        _, copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, original))
        for back in (copy, pickle.loads(pickle.dumps(original))):
            assert str(back) == str(original) and back.chosen == original.chosen
            assert back.engine.hands == original.engine.hands and back.engine.history == original.engine.history
            assert back.engine.played == original.engine.played


def test_the_turn_by_turn_information_state_recalls_what_the_seat_saw_before():
    """ruledraft_turns keys an information state by everything the seat saw: over 40 two-player first rounds (seat 0 always its first move, seat 1 at random), no key at round 2 is shared by histories whose observations differed (deals 5 and 25 shared one: the view at round 2 forgets round 1's tables)."""
    import random

    game = _turns("sushi-go", 2)
    seen: dict[str, tuple[str, ...]] = {}
    for v in range(40):
        rng = random.Random(v)
        state = game.new_initial_state()
        state.apply_action(1)
        history = []
        while state.engine.round < 1:
            if state.current_player() == 0:
                history.append(state.observation_string(0))
                state.apply_action(state.legal_actions()[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        assert seen.setdefault(state.information_state_string(0), tuple(history)) == tuple(history), v


def test_a_world_dealt_again_for_one_seat_keeps_no_other_seats_past_views():
    """resample_from_infostate(0) after a round: seat 0's key keeps its past views, seat 1's no longer holds what seat 1 saw of the real deal (its hands), only its moves and its view of the new world."""
    game = _turns("sushi-go", 2)
    state = game.new_initial_state()
    state.apply_action(3)
    while state.engine.round < 1:
        state.apply_action(state.legal_actions()[0])
    world = state.resample_from_infostate(0, np.random.default_rng(2).random)
    assert world.views[0] == state.views[0] and world.views[1] == []
    assert world.information_state_string(0).startswith(state.information_state_string(0).split("; now ")[0])
    real = state.views[1][0]  # seat 1's first view: its first hand
    assert real not in world.information_state_string(1)


def test_returns_win_is_a_constant_sum_game_and_deals_are_bounded():
    """returns=win declares a constant sum (OpenSpiel checks it against utility_sum), points a general sum;
    a number of deals past the bound is a clear error, not a chance node of billions of outcomes."""
    win = _load("sushi-go", 3, returns="win")
    assert win.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert _load("sushi-go", 3).get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    pyspiel.random_sim_test(win, num_sims=2, serialize=True, verbose=False)
    pyspiel.random_sim_test(_turns("sushi-go", 3, returns="win"), num_sims=1, serialize=True, verbose=False)
    with pytest.raises(Exception, match="deals must be from 1 to 1,048,576, not 2097152"):
        pyspiel.load_game("ruledraft", {"ruleset": "sushi-go", "deals": 1 << 21})


def test_the_turn_by_turn_game_plays_the_simultaneous_games_moves():
    """Seat 0's pick is hidden from seat 1 until the turn is played; then both engines are at the same state."""
    turns, joint = _turns("sushi-go", 2).new_initial_state(), _load("sushi-go", 2).new_initial_state()
    turns.apply_action(5)
    joint.apply_action(5)
    before = turns.information_state_string(1)
    a0 = turns.legal_actions(0)[0]
    turns.apply_action(a0)
    assert turns.current_player() == 1 and turns.information_state_string(1) == before
    assert "chose" not in turns.information_state_string(1) and "chose" in turns.information_state_string(0)
    a1 = turns.legal_actions(1)[-1]
    turns.apply_action(a1)
    joint.apply_actions([a0, a1])
    assert turns.engine.hands == joint.engine.hands and turns.engine.played == joint.engine.played


def test_a_resampled_state_is_one_the_player_cannot_tell_apart():
    """resample_from_infostate keeps the player's information state and deals the hidden cards again."""
    game = _turns("sushi-go", 3)
    state = game.new_initial_state()
    state.apply_action(9)
    state.apply_action(state.legal_actions()[0])  # seat 0 picks; seat 1 must not know what
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    others = set()
    for _ in range(8):
        world = state.resample_from_infostate(1, sampler)
        assert world.information_state_string(1) == state.information_state_string(1)
        assert world.engine.hands[1] == state.engine.hands[1]
        assert world.chosen[0] in world.engine.legal_actions(0)
        others.add(tuple(sorted(world.engine.hands[2])))
    assert len(others) > 1  # seat 2's unseen hand is dealt again


def test_openspiels_own_ismcts_plays_the_turn_by_turn_game():
    """OpenSpiel's information-set MCTS (open_spiel.python.algorithms.ismcts) chooses legal moves on ruledraft_turns."""
    from open_spiel.python.algorithms import ismcts, mcts

    game = _turns("sushi-go", 2)
    rng = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 1.4, 16, random_state=rng)
    state = game.new_initial_state()
    state.apply_action(3)
    for _ in range(6):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.engine.turn == 3  # six picks of two seats: three turns played


def test_an_illegal_move_or_deal_is_refused_at_once_and_the_state_plays_on():
    """A turn-by-turn move not among the seat's legal actions is refused when made (not at the turn's last
    seat), as is a deal that is no chance outcome; the state is left as it was and plays on."""
    from ruledraft.errors import IllegalMoveError

    for name in ("ruledraft_turns", "ruledraft"):
        game = pyspiel.load_game(name, {"ruleset": "sushi-go", "players": 3})
        with pytest.raises(IllegalMoveError, match="is not an outcome of the chance node"):
            game.new_initial_state().apply_action(game.new_initial_state().chance_outcomes()[-1][0] + 1)
    game = pyspiel.load_game("ruledraft_turns", {"ruleset": "sushi-go", "players": 3})
    state = game.new_initial_state()
    state.apply_action(0)
    before = str(state)
    for bad in (10**6, 155, max(state.legal_actions()) + 1):
        with pytest.raises(IllegalMoveError, match="is not a legal action now"):
            state.apply_action(bad)
        assert str(state) == before and state.current_player() == 0
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[0])
    assert len(state.returns()) == 3


def test_an_action_that_is_no_whole_number_is_refused_on_a_direct_call():
    """The states' own ``_apply_action`` (as a Python caller reaches it, past pyspiel's typed
    wrapper) refuses 1.7 or True rather than playing action 1."""
    from ruledraft.errors import ArgumentError

    for name in ("ruledraft_turns", "ruledraft"):
        game = pyspiel.load_game(name, {"ruleset": "sushi-go", "players": 2})
        state = game.new_initial_state()
        with pytest.raises(ArgumentError, match="action must be a whole number, not 1.7"):
            state._apply_action(1.7)
        state._apply_action(0)
        before = str(state)
        legal = state.legal_actions(0)
        for bad in (float(legal[0]) + 0.5, True):
            with pytest.raises(ArgumentError, match="action must be a whole number"):
                state._apply_action(bad)
        assert str(state) == before
        if name == "ruledraft":
            with pytest.raises(ArgumentError, match="action must be a whole number"):
                state._apply_actions([legal[0], 1.5])
            assert str(state) == before
