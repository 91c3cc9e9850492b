"""The PettingZoo environments (ruledraft.rl, the `rl` extra): PettingZoo's own API tests, masks, seeds, rewards."""

from __future__ import annotations

import contextlib
import io
import random
import re

import numpy as np
import pytest
from paths import DATA, README
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test
from strategies import BUNDLED_RULESETS, bundled_game, bundled_ruleset, bundled_without_effects

from ruledraft import rl
from ruledraft.engine.encoding import encoder_for
from ruledraft.errors import ArgumentError, IllegalMoveError, InputError
from ruledraft.kernel.batch import batch_refusal

# PettingZoo's checks warn about every observation that is a dict (its own classic games
# with action masks are exempted by name): the mask has to travel in the observation
pytestmark = [
    pytest.mark.filterwarnings("ignore:Observation is not a NumPy array:UserWarning"),
    pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be:UserWarning"),
]


def _tables():
    """Each bundled ruleset at its fewest players and at four (or its most): sushi-go at 2 and 4, the dummy variant, pass-both-ways..."""
    out = []
    for rid in bundled_without_effects():
        rs = bundled_ruleset(rid)
        for n in sorted({rs.min_players, min(4, rs.max_players)}):
            out.append((rid, n))
    return out


TABLES = _tables()


def _on_engines(tables):
    """Each table on the reference engine, and on the kernel where it holds the game."""
    out = []
    for rid, n in tables:
        out.append((rid, n, "reference"))
        if batch_refusal(bundled_ruleset(rid)) is None:
            out.append((rid, n, "kernel"))
    return out


#: the tables, on each engine that can play them
ENGINE_TABLES = _on_engines(TABLES)


@pytest.fixture(params=["kernel", "reference"])
def engine(request):
    """Both engines an environment of sushi-go plays on."""
    return request.param


#: every bundled ruleset whose cards ask for decisions (the Party menus), at its fewest players
EFFECT_TABLES = [
    (rid, bundled_ruleset(rid).min_players) for rid in BUNDLED_RULESETS if rid not in bundled_without_effects()
]


def test_the_tables_cover_the_cases_the_environments_must_pass():
    """The API tests run on sushi-go at 2 and 4 players, the dummy variant and pass-both-ways."""
    assert {("sushi-go", 2), ("sushi-go", 4), ("sushi-go-two-player-dummy", 2), ("sushi-go-pass-both-ways", 4)} <= set(
        TABLES
    )


@pytest.mark.parametrize(("rid", "players", "engine"), ENGINE_TABLES + [(*t, "reference") for t in EFFECT_TABLES])
def test_the_aec_environment_passes_pettingzoos_api_test(rid, players, engine):
    """pettingzoo.test.api_test passes on the wrapped environment and on the raw one."""
    api_test(rl.env(engine=engine, ruleset=rid, players=players), num_cycles=1000)
    api_test(rl.raw_env(engine=engine, ruleset=rid, players=players), num_cycles=1000)


@pytest.mark.parametrize(("rid", "players", "engine"), ENGINE_TABLES + [(*t, "reference") for t in EFFECT_TABLES])
def test_the_parallel_environment_passes_pettingzoos_parallel_api_test(rid, players, engine):
    """pettingzoo.test.parallel_api_test passes on the parallel environment."""
    parallel_api_test(rl.parallel_env(engine=engine, ruleset=rid, players=players), num_cycles=1000)


@pytest.mark.parametrize(("rid", "players", "engine"), ENGINE_TABLES)
def test_both_environments_pass_pettingzoos_seed_tests(rid, players, engine):
    """seed_test and parallel_seed_test pass (the latter samples unmasked actions: illegal ones end the game by illegal_reward)."""
    seed_test(lambda: rl.env(engine=engine, ruleset=rid, players=players), num_cycles=500)
    parallel_seed_test(
        lambda: rl.parallel_env(engine=engine, ruleset=rid, players=players, illegal_reward=-1), num_cycles=500
    )


def _play_aec(environment, rng, check=None):
    """Masked random actions to the end; returns the final rewards by agent and the joint actions played."""
    final = {}
    for agent in environment.agent_iter():
        obs, reward, terminated, truncated, _ = environment.last()
        if terminated or truncated:
            final[agent] = reward
            environment.step(None)
            continue
        if check is not None:
            check(agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        environment.step(int(legal[rng.randrange(len(legal))]))
    return final


@pytest.mark.parametrize(("rid", "players", "engine"), ENGINE_TABLES)
def test_the_action_mask_is_exactly_the_legal_actions_of_the_acting_agent(rid, players, engine):
    """At every step of a game the selected agent's mask has 1 at its legal actions and 0 elsewhere; the observation is the encoder's vector."""
    environment = rl.raw_env(engine=engine, ruleset=rid, players=players)
    environment.reset(seed=3)
    enc = encoder_for(environment.game)
    checked = []

    def check(agent, obs):
        seat = int(agent.split("_")[1])
        state = environment.engine_state
        assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(state.legal_actions(seat))
        assert obs["action_mask"].dtype == np.int8 and obs["observation"].dtype == np.float32
        assert obs["observation"].tolist() == enc.encode(state.observation(seat))
        checked.append(agent)

    _play_aec(environment, random.Random(3), check)
    assert len(checked) >= players * environment.game.hand_size


def test_masks_are_all_zero_once_the_game_is_over(engine):
    """After the last joint move every agent's mask is all zero and every agent is terminated."""
    environment = rl.raw_env(engine=engine, ruleset="sushi-go", players=3)
    environment.reset(seed=1)
    rng = random.Random(1)
    while not environment.terminations[environment.agent_selection]:
        legal = np.flatnonzero(environment.observe(environment.agent_selection)["action_mask"])
        environment.step(int(legal[rng.randrange(len(legal))]))
    assert all(environment.terminations.values())
    assert all(not environment.observe(a)["action_mask"].any() for a in environment.possible_agents)


def _final_state(engine, rid, players, seed, reward):
    """A parallel game with masked random actions; returns its rewards and the engine game replayed from the same moves."""
    environment = rl.parallel_env(engine=engine, ruleset=rid, players=players, reward=reward)
    obs, _ = environment.reset(seed=seed)
    rng = random.Random(seed)
    moves = []
    while environment.agents:
        actions = {}
        for a in environment.agents:
            legal = np.flatnonzero(obs[a]["action_mask"])
            actions[a] = int(legal[rng.randrange(len(legal))])
        moves.append([actions[f"player_{s}"] for s in range(players)])
        obs, rewards, terminations, truncations, _ = environment.step(actions)
    assert all(terminations.values()) and not any(truncations.values())
    state = bundled_game(rid, players).new_initial_state(seed)
    for joint in moves:
        state.apply_actions(joint)
    assert state.is_terminal()
    assert environment.engine_state.history == state.history
    return rewards, state


@pytest.mark.parametrize(
    ("rid", "engine"),
    [
        (rid, engine)
        for rid, _, engine in _on_engines([(r, bundled_ruleset(r).min_players) for r in bundled_without_effects()])
    ],
)
def test_rewards_are_the_engines_points_margins_and_win_shares(rid, engine):
    """reward=points is each player's total; margin is its total minus the best other's (a dummy that cannot win left out); win is 1 shared by the winners."""
    players = bundled_ruleset(rid).min_players
    points, state = _final_state(engine, rid, players, 11, "points")
    totals = state.totals()
    assert points == {f"player_{s}": float(totals[s]) for s in range(players)}
    margins, _ = _final_state(engine, rid, players, 11, "margin")
    for s in range(players):
        best_other = max(totals[o] for o in range(players) if o != s)
        assert margins[f"player_{s}"] == totals[s] - best_other
    wins, _ = _final_state(engine, rid, players, 11, "win")
    assert wins == {f"player_{s}": (1 / len(state.winners) if s in state.winners else 0.0) for s in range(players)}


def test_a_seed_replays_the_same_game_and_is_the_engines_game_of_that_seed(engine):
    """reset(seed=S) twice with the same moves gives the same observations and the engine's game S; another seed deals differently."""
    histories = []
    for _ in range(2):
        environment = rl.raw_env(engine=engine, ruleset="sushi-go", players=4)
        environment.reset(seed=42)
        assert environment.engine_state.hands == bundled_game("sushi-go", 4).new_initial_state(42).hands
        _play_aec(environment, random.Random(0))
        histories.append(environment.engine_state.history)
    assert histories[0] == histories[1]
    environment.reset(seed=43)
    assert environment.engine_state.hands != bundled_game("sushi-go", 4).new_initial_state(42).hands


def test_reset_without_a_seed_continues_a_reproducible_stream(engine):
    """After reset(seed=S), further reset() calls deal the same sequence of games in every environment."""
    deals = []
    for _ in range(2):
        environment = rl.parallel_env(engine=engine, ruleset="sushi-go", players=2)
        environment.reset(seed=5)
        environment.reset()
        first = [h[:] for h in environment.engine_state.hands]
        environment.reset()
        deals.append((first, [h[:] for h in environment.engine_state.hands]))
    assert deals[0] == deals[1]
    assert deals[0][0] != deals[0][1]


def test_stepping_before_reset_or_naming_no_agent_is_refused(engine):
    """step() before reset() raises asking for reset() in the parallel and the gymnasium environments (it played seed 0 on the reference engine); an action for an agent that is not there is an ArgumentError."""
    for environment, move in (
        (rl.parallel_env("sushi-go", 2, engine=engine), {"player_0": 0, "player_1": 0}),
        (rl.single_agent_env("sushi-go", 2, engine=engine), 0),
    ):
        with pytest.raises(IllegalMoveError, match=re.escape("no game is dealt yet: reset() first")):
            environment.step(move)
    par = rl.parallel_env("sushi-go", 2, engine=engine)
    par.reset(seed=9)
    legal = {a: par.engine_state.legal_actions(s)[0] for s, a in enumerate(par.agents)}
    with pytest.raises(ArgumentError, match=re.escape("no agent 'player_9': the agents are player_0, player_1")):
        par.step({**legal, "player_9": 0})
    par.step(legal)


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda: rl.parallel_env("sushi-go", 2.0), "players must be a whole number, not 2.0"),
        (lambda: rl.parallel_env("sushi-go", "3"), "players must be a whole number, not '3'"),
        (
            lambda: rl.parallel_env(123),
            "a ruleset is a bundled id, a rule file's path, a compiled ruleset or a Game, not 123",
        ),
        (lambda: rl.parallel_env("sushi-go", 2, per_round="no"), "per_round must be True or False, not 'no'"),
        (lambda: rl.raw_env("sushi-go", 2, illegal_reward="x"), "illegal_reward must be a finite number, not 'x'"),
        (
            lambda: rl.single_agent_env("sushi-go", 3, illegal_reward=float("nan")),
            "illegal_reward must be a finite number, not nan",
        ),
        (lambda: rl.single_agent_env("sushi-go", 3, seat=1.5), "seat must be a whole number, not 1.5"),
        (lambda: rl.single_agent_env("sushi-go", 3, seat=True), "seat must be a whole number, not True"),
        (
            lambda: rl.single_agent_env("sushi-go", 3, opponents=5),
            "opponents are a bot's name or a list of names, not 5",
        ),
        (
            lambda: rl.raw_env("sushi-go", 2).observe("player_9"),
            "no agent 'player_9': the agents are player_0, player_1",
        ),
    ],
)
def test_an_environments_arguments_out_of_their_kind_are_argument_errors(make, words):
    """A float or a word for players or seat, a word for per_round (truthy: it was taken as True), for illegal_reward (found out at the first illegal move) or for a ruleset, an unknown agent to observe: an ArgumentError (a ValueError) naming it, at once."""
    with pytest.raises(ArgumentError, match=re.escape(words)) as raised:
        make()
    assert isinstance(raised.value, ValueError)


def test_numpy_values_are_taken_where_python_ones_are():
    """numpy's booleans, floats and integers pass where bool, float and int do."""
    env_ = rl.single_agent_env("sushi-go", 3, seat=np.int64(2), per_round=np.bool_(True), illegal_reward=np.float32(-2))
    assert (env_.seat, env_._table.per_round, env_._table.illegal_reward) == (2, True, -2.0)


def test_an_illegal_action_raises_a_message_naming_the_agent_the_action_and_the_seed(engine):
    """Without illegal_reward, an action that is not legal raises IllegalMoveError, in both environments."""
    environment = rl.raw_env(engine=engine, ruleset="sushi-go", players=2)
    environment.reset(seed=9)
    bad = next(
        a for a in range(environment.game.num_distinct_actions) if a not in environment.engine_state.legal_actions(0)
    )
    with pytest.raises(IllegalMoveError, match=re.escape(f"player_0: action {bad} is not legal now (seed 9)")):
        environment.step(bad)
    par = rl.parallel_env(engine=engine, ruleset="sushi-go", players=2)
    par.reset(seed=9)
    with pytest.raises(IllegalMoveError, match=re.escape(f"player_0: action {bad} is not legal now (seed 9)")):
        par.step({"player_0": bad, "player_1": 0})
    with pytest.raises(IllegalMoveError, match=re.escape("player_1 acts now but sent no action (seed 9)")):
        par.step({"player_0": par.engine_state.legal_actions(0)[0]})


@pytest.mark.parametrize("kind", [float, bool, str])
def test_an_action_that_is_not_an_integer_is_bad_input_never_a_move(engine, kind):
    """A float, a bool or a string equal to a legal move is an ArgumentError, never rounded into the move, even with illegal_reward; a numpy integer is that move."""
    par = rl.parallel_env(engine=engine, ruleset="sushi-go", players=2, illegal_reward=-1)
    par.reset(seed=9)
    legal = par.engine_state.legal_actions(0)
    move = 1 if kind is bool else legal[0]
    assert move in legal
    others = {"player_1": par.engine_state.legal_actions(1)[0]}
    words = re.escape(f"player_0: an action is a whole number (of the action space), not {kind(move)!r}")
    with pytest.raises(ArgumentError, match=words):
        par.step({"player_0": kind(move), **others})
    aec = rl.raw_env(engine=engine, ruleset="sushi-go", players=2)
    aec.reset(seed=9)
    with pytest.raises(ArgumentError, match=words):
        aec.step(kind(move))
    plain = rl.parallel_env(engine=engine, ruleset="sushi-go", players=2)
    plain.reset(seed=9)
    plain.step({"player_0": legal[0], **others})
    par.step({"player_0": np.int64(legal[0]), **others})
    assert par.engine_state.hands == plain.engine_state.hands


def test_illegal_reward_ends_the_game_with_that_reward_for_the_agent_that_made_it(engine):
    """With illegal_reward=-1 an illegal action terminates every agent: -1 for the one that made it, 0 for the others."""
    par = rl.parallel_env(engine=engine, ruleset="sushi-go", players=3, illegal_reward=-1)
    par.reset(seed=2)
    bad = next(a for a in range(par.game.num_distinct_actions) if a not in par.engine_state.legal_actions(1))
    obs, rewards, terminations, _, _ = par.step(
        {"player_0": par.engine_state.legal_actions(0)[0], "player_1": bad, "player_2": 0}
    )
    assert rewards == {"player_0": 0.0, "player_1": -1.0, "player_2": 0.0}
    assert all(terminations.values()) and par.agents == []
    assert all(not o["action_mask"].any() for o in obs.values())
    with pytest.raises(IllegalMoveError, match=re.escape("the game is over (seed 2): reset() starts another")):
        par.step({})
    aec = rl.raw_env(engine=engine, ruleset="sushi-go", players=3, illegal_reward=-1)
    aec.reset(seed=2)
    aec.step(-1)
    assert all(aec.terminations.values())
    assert aec.rewards == {"player_0": -1.0, "player_1": 0.0, "player_2": 0.0}


EFFECTS = str(DATA / "effects-small.yaml")


def test_while_a_card_effect_waits_only_the_deciding_agent_is_selected():
    """With Party's chopsticks, menu and miso soup, the AEC selector picks just the deciding seat while a decision is pending, with the decision's options as its mask."""
    environment = rl.raw_env(ruleset=EFFECTS, players=3)
    environment.reset(seed=5)
    decisions = []

    def check(agent, obs):
        state = environment.engine_state
        if state.pending is not None:
            assert agent == f"player_{state.pending.seat}"
            assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(state.pending.options)
            decisions.append(agent)

    _play_aec(environment, random.Random(5), check)
    assert decisions, "the game asked for no decision"


def test_the_parallel_env_gives_non_deciding_agents_an_all_zero_mask_and_ignores_them():
    """In a decision the parallel env's other agents have all-zero masks; what they send is ignored and the decision is applied."""
    par = rl.parallel_env(ruleset=EFFECTS, players=3)
    obs, _ = par.reset(seed=5)
    rng = random.Random(5)
    while par.agents and par.engine_state.pending is None:
        actions = {
            a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items() if o["action_mask"].any()
        }
        obs, *_ = par.step(actions)
    state = par.engine_state
    assert state.pending is not None, "the game asked for no decision"
    decider = f"player_{state.pending.seat}"
    for agent, o in obs.items():
        assert o["action_mask"].any() == (agent == decider)
    turn, pending = state.turn, state.pending
    obs, *_ = par.step({**{a: 10**6 for a in par.agents}, decider: pending.options[0]})
    assert par.engine_state.pending != pending or par.engine_state.turn != turn


def test_both_environments_pass_pettingzoos_api_tests_with_card_effects():
    """api_test and parallel_api_test pass on a ruleset whose cards ask for decisions."""
    api_test(rl.env(ruleset=EFFECTS, players=3), num_cycles=1000)
    parallel_api_test(rl.parallel_env(ruleset=EFFECTS, players=3), num_cycles=1000)


def test_the_spaces_are_fixed_per_game_and_the_same_objects_each_call():
    """observation_space is a Dict of a float32 Box of Encoder.size and an int8 mask over num_distinct_actions; action_space is Discrete of that size."""
    environment = rl.parallel_env(ruleset="sushi-go-two-player-dummy", players=2)
    game = environment.game
    space = environment.observation_space("player_1")
    assert space is environment.observation_space("player_1")
    assert space["observation"].shape == (encoder_for(game).size,)
    assert space["action_mask"].shape == (game.num_distinct_actions,) == (2028,)
    assert environment.action_space("player_0").n == game.num_distinct_actions
    assert environment.possible_agents == ["player_0", "player_1"]


def test_render_returns_the_table_as_text(engine):
    """render() gives the ruleset, the seed, the round and turn, and each seat's points, table and hand."""
    environment = rl.raw_env(engine=engine, ruleset="sushi-go", players=2, render_mode="ansi")
    environment.reset(seed=1)
    state = environment.engine_state
    ids = environment.game.ruleset.catalogue.ids
    lines = environment.render().splitlines()
    assert lines[0] == "Sushi Go!, seed 1: round 1, turn 1"
    assert lines[1] == f"player_0: 0 points; table: -; hand: {' '.join(ids[c] for c in state.hands[0])}"
    environment.close()


def test_the_environments_take_a_compiled_ruleset_or_a_game_and_check_their_options():
    """A compiled ruleset or a Game works as the ruleset; a wrong reward, render mode or player count is one clear error."""
    game = bundled_game("sushi-go", 3)
    assert rl.parallel_env(ruleset=game).possible_agents == ["player_0", "player_1", "player_2"]
    assert rl.raw_env(ruleset=game.ruleset, players=5).game.num_players == 5
    assert rl.env("sushi-go", 4).unwrapped.game.num_players == 4
    by_numpy = rl.parallel_env("sushi-go", 2)
    by_numpy.reset(seed=np.int64(7))
    assert by_numpy.engine_state.hands == bundled_game("sushi-go", 2).new_initial_state(7).hands
    with pytest.raises(ValueError, match=re.escape("reward must be one of points, margin, win, not 'score'")):
        rl.raw_env(reward="score")
    with pytest.raises(ValueError, match=re.escape("render_mode must be one of ansi, human, not 'rgb_array'")):
        rl.parallel_env(render_mode="rgb_array")
    with pytest.raises(Exception, match="is for 2-5 players, not 7"):
        rl.raw_env(ruleset="sushi-go", players=7)


def test_the_readme_random_policy_loop_runs_and_prints_the_engines_margins():
    """The README's Reinforcement learning code block runs as written and prints each player's margin for game seed 1."""
    text = README.read_text()
    code = text.split("## Reinforcement learning", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) <= 13
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    printed = dict(line.split() for line in out.getvalue().splitlines())
    assert list(printed) == ["player_0", "player_1", "player_2", "player_3"]
    state = bundled_game("sushi-go", 4).new_initial_state(1)
    rng = np.random.default_rng(1)
    while not state.is_terminal():
        state.apply_actions([int(rng.choice(sorted(state.legal_actions(s)))) for s in range(4)])
    totals = state.totals()
    assert {a: float(m) for a, m in printed.items()} == {
        f"player_{s}": float(totals[s] - max(totals[o] for o in range(4) if o != s)) for s in range(4)
    }


@pytest.mark.parametrize("source", BUNDLED_RULESETS + (EFFECTS,))
def test_the_bulk_encoder_gives_every_players_encoder_vector_at_every_moment(source):
    """BulkEncoder's rows equal Encoder.encode(state.observation(seat)) for every player at every step of random games, card effects included."""
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset

    rs = bundled_ruleset(source) if source in BUNDLED_RULESETS else load_ruleset(source)
    checked = 0
    for players in sorted({rs.min_players, min(rs.max_players, 5)}):
        game = Game(rs, players)
        enc, bulk = encoder_for(game), rl.BulkEncoder(game)
        for seed in range(2):
            state, rng = game.new_initial_state(seed), random.Random(seed)
            while True:
                matrix = bulk.encode(state, range(players))
                assert matrix.dtype == np.float32 and matrix.shape == (players, enc.size)
                for seat in range(players):
                    assert matrix[seat].tolist() == enc.encode(state.observation(seat))
                checked += 1
                if state.is_terminal():
                    break
                state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert checked > 50


@pytest.mark.parametrize("rid", ["sushi-go", "sushi-go-two-player-dummy", "sushi-go-party-party-sampler"])
def test_observation_bounds_are_finite_and_hold_every_observation(rid):
    """Every bound of the observation and state spaces is finite, and every observation and state of a random game lies within them."""
    players = bundled_ruleset(rid).min_players
    par = rl.parallel_env(rid, players)
    space = par.observation_space("player_0")["observation"]
    assert np.isfinite(space.low).all() and np.isfinite(space.high).all()
    assert np.isfinite(par.state_space.low).all() and np.isfinite(par.state_space.high).all()
    obs, _ = par.reset(seed=4)
    rng = random.Random(4)
    while par.agents:
        assert all(space.contains(o["observation"]) for o in obs.values())
        assert par.state_space.contains(par.state())
        actions = {
            a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items() if o["action_mask"].any()
        }
        obs, *_ = par.step(actions)


def test_state_is_player_0s_view_then_every_hand_by_type(engine):
    """parallel_env.state() (and the AEC env's) is player 0's observation vector followed by every seat's hand counted by type."""
    par = rl.parallel_env("sushi-go", 3, engine=engine)
    obs, _ = par.reset(seed=8)
    state = par.state()
    game = par.game
    K, size = game.num_card_types, encoder_for(game).size
    assert state.shape == par.state_space.shape == (size + 3 * K,)
    assert state[:size].tolist() == obs["player_0"]["observation"].tolist()
    for s, hand in enumerate(par.engine_state.hands):
        assert state[size + s * K : size + (s + 1) * K].tolist() == [float(hand.count(c)) for c in range(K)]
    aec = rl.raw_env("sushi-go", 3, engine=engine)
    aec.reset(seed=8)
    assert aec.state().tolist() == state.tolist()


@pytest.mark.parametrize("reward", rl.REWARDS)
def test_per_round_rewards_come_at_each_round_end_and_add_up_to_the_game_end_reward(reward, engine):
    """With per_round=True the parallel env rewards each round's change (zero inside a round) and the sum is the game-end reward of the same game."""
    players, seed = 3, 6
    par = rl.parallel_env("sushi-go", players, reward=reward, per_round=True, engine=engine)
    obs, _ = par.reset(seed=seed)
    rng = random.Random(seed)
    summed = dict.fromkeys(par.possible_agents, 0.0)
    paid_in_round = []
    while par.agents:
        round_before = par.engine_state.round
        actions = {
            a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items() if o["action_mask"].any()
        }
        obs, rewards_now, *_ = par.step(actions)
        for a, r in rewards_now.items():
            summed[a] += r
        if any(rewards_now.values()):
            paid_in_round.append(par.engine_state.round != round_before or par.engine_state.is_terminal())
    final, _ = _final_state(engine, "sushi-go", players, seed, reward)
    assert summed == pytest.approx(final)
    assert all(paid_in_round)
    if reward == "points":
        assert len(paid_in_round) >= 3


def test_the_single_agent_env_passes_gymnasiums_env_checker():
    """gymnasium.utils.env_checker.check_env passes on the single-agent env with planner, greedy and random opponents, card effects included."""
    from gymnasium.utils.env_checker import check_env

    check_env(rl.single_agent_env("sushi-go", 3, opponents="planner"), skip_render_check=True)
    check_env(rl.single_agent_env(EFFECTS, 3, opponents=["greedy", "random"], per_round=True), skip_render_check=True)
    check_env(rl.single_agent_env("sushi-go-two-player-dummy", 2, seat=1), skip_render_check=True)


def test_the_single_agent_env_plays_the_learner_against_its_bots_to_the_end():
    """Every observation asks the learner to act; the game is the engine's game of the seed, which only the last step's info gives (it deals the hidden cards); the rewards add up to the learner's final points."""
    import gymnasium

    env_ = gymnasium.make("ruledraft/Draft-v0", ruleset=EFFECTS, players=3, seat=1, opponents="greedy", per_round=True)
    obs, info = env_.reset(seed=12)
    assert info == {}
    inner = env_.unwrapped
    total, rng = 0.0, random.Random(12)
    terminated = False
    while not terminated:
        state = inner.engine_state
        assert 1 in state.acting_seats()
        assert np.flatnonzero(obs["action_mask"]).tolist() == sorted(state.legal_actions(1))
        obs, reward, terminated, truncated, info = env_.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        total += reward
        assert not truncated
        assert info == ({"seed": 12} if terminated else {})
    assert total == inner.engine_state.totals()[1]
    assert inner.engine_state.history[0].hands == inner.game.new_initial_state(12).history[0].hands


def _play_against_bots(environment, episodes):
    """Random legal moves of the learner over ``episodes`` games (reset(seed=3), then reset()): every step's returns and each game's history."""
    rng = np.random.default_rng(3)
    seen = []
    obs, info = environment.reset(seed=3)
    for _ in range(episodes):
        done = False
        while not done:
            obs, reward, done, truncated, info = environment.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            seen.append((obs["observation"].tolist(), obs["action_mask"].tolist(), reward, done, truncated, info))
        seen.append(environment.engine_state.history)
        obs, info = environment.reset()
    return seen


@pytest.mark.parametrize(
    ("rid", "players", "seat", "opponents"),
    [
        ("sushi-go", 4, 0, "random"),
        ("sushi-go", 5, 4, ["first", "random", "greedy", "value"]),
        ("sushi-go", 3, 1, ["planner:samples=2", "planner"]),
        ("sushi-go-party-starter", 3, 2, ["greedy", "value"]),
        ("sushi-go-pass-both-ways", 4, 1, ["value", "greedy", "random"]),
    ],
)
def test_the_single_agent_env_on_the_kernel_plays_the_reference_engines_games(rid, players, seat, opponents):
    """On the kernel, the learner's observations, masks and rewards and every game, the bots' moves included, equal the reference engine's."""
    on = {
        engine: rl.single_agent_env(rid, players, seat=seat, opponents=opponents, per_round=True, engine=engine)
        for engine in ("kernel", "reference")
    }
    assert {e: env_.engine for e, env_ in on.items()} == {"kernel": "kernel", "reference": "reference"}
    kernel = _play_against_bots(on["kernel"], 3)
    assert kernel == _play_against_bots(on["reference"], 3)
    assert sum(1 for step in kernel if isinstance(step, tuple) and step[3]) == 3


def test_the_single_agent_env_plays_on_the_kernel_only_the_bots_it_has():
    """ismcts opponents leave auto on the reference engine and are refused by engine=kernel; planner, greedy, value, first and random play there."""
    assert rl.single_agent_env("sushi-go", 2, opponents="ismcts:iterations=5").engine == "reference"
    with pytest.raises(InputError, match="the bot 'ismcts:iterations=5' has no kernel part"):
        rl.single_agent_env("sushi-go", 2, opponents="ismcts:iterations=5", engine="kernel")
    assert rl.single_agent_env("sushi-go", 3, opponents="planner", engine="kernel").engine == "kernel"
    with pytest.raises(ValueError, match="engine must be one of auto, kernel, reference"):
        rl.single_agent_env("sushi-go", 2, engine="fast")


def test_the_single_agent_env_readies_an_ismcts_kernel_yes_rollout_when_made(monkeypatch):
    """An ismcts:kernel=yes opponent has its roll-out compiled (or loaded) when the environment is made, not in its first step."""
    from ruledraft.play import ismcts

    asked: list[tuple[str, int, bool]] = []
    monkeypatch.setattr(
        ismcts,
        "kernel_rollouts",
        lambda game, compile=False: asked.append((game.ruleset.id, game.num_players, compile)),
    )
    rl.single_agent_env("sushi-go", 3, opponents=["greedy", "ismcts:kernel=yes:iterations=5"])
    assert asked == [("sushi-go", 3, True)]
    rl.single_agent_env("sushi-go", 3, opponents="ismcts:iterations=5")
    assert len(asked) == 1


def test_the_single_agent_env_refuses_unknown_bots_and_ends_on_an_illegal_action(engine):
    """An unknown opponent or a wrong count of them is one clear error; an illegal action ends the episode with illegal_reward, or raises with None."""
    with pytest.raises(ValueError, match="no bot called 'nobody'"):
        rl.single_agent_env("sushi-go", 3, opponents="nobody", engine=engine)
    with pytest.raises(ValueError, match="1 opponents for 2 other players"):
        rl.single_agent_env("sushi-go", 3, opponents=["greedy"], engine=engine)
    env_ = rl.single_agent_env("sushi-go", 2, illegal_reward=-5, engine=engine)
    obs, _ = env_.reset(seed=1)
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, _ = env_.step(bad)
    assert (reward, terminated) == (-5, True)
    with pytest.raises(IllegalMoveError, match=re.escape("the game is over (seed 1): reset() starts another")):
        env_.step(0)
    strict = rl.single_agent_env("sushi-go", 2, illegal_reward=None, engine=engine)
    strict.reset(seed=1)
    with pytest.raises(IllegalMoveError, match=f"player_0: action {bad} is not legal now"):
        strict.step(bad)


def test_an_encoder_with_other_fields_is_encoded_seat_by_seat_with_the_same_rows():
    """BulkEncoder given an Encoder of other fields (a part left out) falls back to Encoder.encode per seat: the rows are still that encoder's vectors."""
    from ruledraft.engine.encoding import FIELDS, Encoder

    game = bundled_game("sushi-go", 3)
    custom = Encoder(game, FIELDS[:4])
    bulk = rl.BulkEncoder(game, custom)
    assert not bulk.bulk
    state = game.new_initial_state(2)
    state.apply_actions([state.legal_actions(s)[0] for s in range(3)])
    matrix = bulk.encode(state, [2, 0])
    assert matrix.shape == (2, custom.size)
    assert matrix.tolist() == [custom.encode(state.observation(2)), custom.encode(state.observation(0))]
    assert rl.BulkEncoder(game).encode(state, [2, 0]).tolist() == [
        encoder_for(game).encode(state.observation(2)),
        encoder_for(game).encode(state.observation(0)),
    ]


@pytest.mark.parametrize("source", BUNDLED_RULESETS + (EFFECTS,))
def test_encode_all_gives_the_bulk_encoders_rows_at_every_moment(source):
    """BulkEncoder.encode_all (the environments' path: one gather per move) equals encode() for every player at every step of random games."""
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset

    rs = bundled_ruleset(source) if source in BUNDLED_RULESETS else load_ruleset(source)
    checked = 0
    for players in sorted({rs.min_players, min(rs.max_players, 5)}):
        game = Game(rs, players)
        bulk = rl.BulkEncoder(game)
        for seed in range(2):
            state, rng = game.new_initial_state(seed), random.Random(seed)
            while True:
                assert bulk.encode_all(state).tolist() == bulk.encode(state, range(players)).tolist()
                checked += 1
                if state.is_terminal():
                    break
                state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert checked > 50


def test_encode_all_counts_past_255_cards_of_a_type():
    """A count that does not fit a byte (a freak deck) is encoded all the same: encode_all equals encode()."""
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset

    game = Game(load_ruleset("sushi-go"), 3)
    state = game.new_initial_state(4)
    state.counts[1][2] = 300  # as if 300 cards of type 2 lay on seat 1's table
    bulk = rl.BulkEncoder(game)
    rows = bulk.encode_all(state)
    assert 300.0 in rows
    assert rows.tolist() == bulk.encode(state, range(3)).tolist()


@pytest.mark.parametrize("points", [256, -7, 10**12])
def test_encode_all_encodes_scores_that_do_not_fit_a_byte(points):
    """A score past 255 or below 0 (encode_all's bytes give way to integers) is encoded all the same, also by an encoder that encoded the state before: encode_all equals encode(), and the masks are still the legal actions."""
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset

    game = Game(load_ruleset("sushi-go"), 3)
    state = game.new_initial_state(5)
    state.apply_actions([state.legal_actions(s)[0] for s in state.acting_seats()])
    bulk = rl.BulkEncoder(game)
    assert bulk.encode_all(state)[0, bulk.at["scores"]] == 0.0
    state.round_scores.append([points, 3, 0])  # as if a round had been scored
    rows = bulk.encode_all(state)
    assert rows[0, bulk.at["scores"]] == np.float32(points)
    assert rows.tolist() == bulk.encode(state, range(3)).tolist()
    _, every, extra = bulk.picks
    masks = bulk.pick_masks(every)
    assert not extra
    assert [np.flatnonzero(m).tolist() for m in masks] == [sorted(state.legal_actions(s)) for s in range(3)]


@pytest.mark.parametrize("source", BUNDLED_RULESETS + (EFFECTS,))
def test_the_parallel_envs_masks_are_the_legal_actions_on_every_ruleset(source):
    """Every agent's mask in the parallel environment is exactly its legal actions at every step (all zero for a seat that does not act), chopsticks and card effects included."""
    from ruledraft.language.loading import load_ruleset

    rs = bundled_ruleset(source) if source in BUNDLED_RULESETS else load_ruleset(source)
    checked = 0
    for players in sorted({rs.min_players, min(rs.max_players, 5)}):
        env = rl.parallel_env(rs, players)
        rng = random.Random(players)
        for seed in range(2):
            obs, _ = env.reset(seed=seed)
            while env.agents:
                state = env.engine_state
                acting = state.acting_seats()
                for agent, o in obs.items():
                    seat = int(agent.split("_")[1])
                    legal = sorted(state.legal_actions(seat)) if seat in acting else []
                    assert np.flatnonzero(o["action_mask"]).tolist() == legal
                    checked += 1
                moves = {
                    f"player_{s}": int(rng.choice(np.flatnonzero(obs[f"player_{s}"]["action_mask"]))) for s in acting
                }
                obs, *_ = env.step(moves)
    assert checked > 100


def _play_parallel(environment, seed, games):
    """Masked random actions over ``games`` games (reset(seed), then reset()); every step's observations, rewards and ends, and each game's history."""
    rng = random.Random(seed)
    steps, histories = [], []
    obs, _ = environment.reset(seed=seed)
    for _ in range(games):
        while environment.agents:
            actions = {a: int(rng.choice(np.flatnonzero(o["action_mask"]))) for a, o in obs.items()}
            obs, rewards, terminations, _, _ = environment.step(actions)
            steps.append(
                (
                    {a: (o["observation"].tolist(), o["action_mask"].tolist()) for a, o in obs.items()},
                    rewards,
                    terminations,
                    environment.state().tolist(),
                )
            )
        histories.append(environment.engine_state.history)
        obs, _ = environment.reset()
    return steps, histories


@pytest.mark.parametrize(("rid", "players"), [(rid, n) for rid, n, engine in ENGINE_TABLES if engine == "kernel"])
@pytest.mark.parametrize("per_round", [False, True])
def test_the_kernel_and_the_reference_engine_step_the_same_games(rid, players, per_round):
    """On the kernel, the parallel env's observations, masks, rewards, ends, global states and games equal the reference engine's."""
    on = {
        engine: rl.parallel_env(rid, players, reward="margin", per_round=per_round, engine=engine)
        for engine in ("kernel", "reference")
    }
    assert {e: env.engine for e, env in on.items()} == {"kernel": "kernel", "reference": "reference"}
    kernel, reference = (_play_parallel(on[e], 4, games=2) for e in ("kernel", "reference"))
    assert len(kernel[0]) == 2 * bundled_ruleset(rid).rounds * (bundled_ruleset(rid).hand_size(players) - 1)
    assert kernel == reference


def test_the_aec_env_on_the_kernel_plays_the_reference_engines_game():
    """The AEC env on the kernel gives each agent the reference engine's observation and ends with its rewards."""
    seen = {}
    for engine in ("kernel", "reference"):
        environment = rl.raw_env("sushi-go", 3, engine=engine, per_round=True)
        environment.reset(seed=12)
        observed: list = []
        final = _play_aec(
            environment, random.Random(12), lambda agent, obs, into=observed: into.append(obs["observation"].tolist())
        )
        seen[engine] = (observed, final, environment.engine_state.history)
    assert seen["kernel"] == seen["reference"]


def test_an_engine_the_game_cannot_be_played_on_is_refused_or_left_for_the_reference():
    """engine=kernel on a ruleset it cannot hold raises InputError saying why; auto plays it on the reference engine; an unknown engine is a ValueError."""
    with pytest.raises(
        InputError,
        match=re.escape("Sushi Go! (two players with a dummy) cannot be played on the kernel: it has a dummy"),
    ):
        rl.parallel_env("sushi-go-two-player-dummy", 2, engine="kernel")
    with pytest.raises(InputError, match="cannot be played on the kernel: it has card effects"):
        rl.raw_env(str(EFFECTS), 2, engine="kernel")
    assert rl.parallel_env("sushi-go-two-player-dummy", 2).engine == "reference"
    with pytest.raises(ValueError, match="engine must be one of auto, kernel, reference, not 'fast'"):
        rl.parallel_env("sushi-go", 2, engine="fast")


def test_auto_plays_on_the_kernel_once_it_is_cached_and_else_starts_compiling_it(monkeypatch):
    """engine=auto uses a kernel in the cache; one not there leaves the game to the reference engine and starts the background compile."""
    started = []
    monkeypatch.setattr(
        rl, "start_compiling", lambda ruleset, batch_planner=False: started.append((ruleset.name, batch_planner))
    )
    monkeypatch.setattr(rl, "is_cached", lambda ruleset, function="play": False)
    monkeypatch.setenv("RULEDRAFT_BACKGROUND_COMPILE", "1")
    assert rl.parallel_env("sushi-go", 2).engine == "reference"
    assert started == [("Sushi Go!", False)]
    monkeypatch.setenv("RULEDRAFT_BACKGROUND_COMPILE", "0")
    assert rl.parallel_env("sushi-go", 2).engine == "reference"
    assert len(started) == 1
    rl.parallel_env("sushi-go", 2, engine="kernel")  # compiled, if it was not
    monkeypatch.setattr(rl, "is_cached", lambda ruleset, function="play": True)
    assert rl.parallel_env("sushi-go", 2).engine == "kernel"


def test_auto_with_planning_opponents_waits_for_nothing_and_has_the_planner_compiled(monkeypatch):
    """With planner opponents, auto plays on the kernel only once the batch's planner is cached too; until then the background compile is asked for it."""
    started = []
    monkeypatch.setattr(
        rl, "start_compiling", lambda ruleset, batch_planner=False: started.append((ruleset.name, batch_planner))
    )
    monkeypatch.setattr(rl, "is_cached", lambda ruleset, function="play": function != "batch_bots_planner")
    monkeypatch.setenv("RULEDRAFT_BACKGROUND_COMPILE", "1")
    assert rl.single_agent_env("sushi-go", 3, opponents=["greedy", "planner"]).engine == "reference"
    assert started == [("Sushi Go!", True)]
    assert rl.single_agent_env("sushi-go", 3, opponents="greedy").engine == "kernel"
    assert len(started) == 1
    rl.single_agent_env("sushi-go", 3, opponents="planner", engine="kernel")  # compiled, if it was not
    monkeypatch.setattr(rl, "is_cached", lambda ruleset, function="play": True)
    assert rl.single_agent_env("sushi-go", 3, opponents=["greedy", "planner"]).engine == "kernel"


def test_a_seed_out_of_range_or_not_whole_is_refused_on_both_engines_and_the_largest_plays_alike():
    """On either engine a seed below 0, above 2**63 - 1 (2**64 + 5 would alias 5), not whole or a bool raises ArgumentError; the largest seed plays the same game on both."""
    kernel = rl.parallel_env("sushi-go", 2, engine="kernel")
    reference = rl.parallel_env("sushi-go", 2, engine="reference")
    for environment in (kernel, reference, rl.raw_env("sushi-go", 2), rl.single_agent_env("sushi-go", 2)):
        for seed in (-1, 2**63, 2**64 + 5):
            with pytest.raises(
                ArgumentError, match=re.escape(f"a seed is a whole number from 0 to 2**63 - 1, not {seed}")
            ):
                environment.reset(seed=seed)
        for seed in (1.5, True, "3"):
            with pytest.raises(
                ArgumentError, match=re.escape(f"a seed is a whole number from 0 to 2**63 - 1, not {seed!r}")
            ):
                environment.reset(seed=seed)
    assert _play_parallel(kernel, 2**63 - 1, games=1) == _play_parallel(reference, 2**63 - 1, games=1)


def test_a_refused_seed_leaves_the_stream_of_seeds_where_it_was(engine):
    """After reset(seed=5), a refused seed does not move the stream: the next reset() deals the game it would have dealt."""
    environment = rl.parallel_env("sushi-go", 2, engine=engine)
    untouched = rl.parallel_env("sushi-go", 2, engine=engine)
    environment.reset(seed=5)
    untouched.reset(seed=5)
    with pytest.raises(ValueError, match="a seed is a whole number from 0 to"):
        environment.reset(seed=2**64)
    environment.reset()
    untouched.reset()
    assert environment.engine_state.history[0].hands == untouched.engine_state.history[0].hands


def test_the_engine_state_is_the_game_of_this_reset_after_a_reset_with_the_same_seed(engine):
    """Two games of one seed, each a move in but by different moves: engine_state and render follow the second, as on the reference engine."""
    environment = rl.parallel_env("sushi-go", 2, engine=engine)
    seen = []
    for pick in (0, -1):
        obs, _ = environment.reset(seed=1)
        environment.step({a: int(np.flatnonzero(o["action_mask"])[pick]) for a, o in obs.items()})
        seen.append((environment.engine_state.played, environment.render()))
    assert seen[0][0] != seen[1][0]
    assert seen[0][1] != seen[1][1]
    reference = rl.parallel_env("sushi-go", 2, engine="reference")
    obs, _ = reference.reset(seed=1)
    reference.step({a: int(np.flatnonzero(o["action_mask"])[-1]) for a, o in obs.items()})
    assert seen[1][0] == reference.engine_state.played


def test_a_deep_copy_of_an_environment_plays_on_apart_from_the_original(engine):
    """copy.deepcopy of a parallel env mid-game steps as the original does, and stepping the copy leaves the original where it was."""
    import copy

    def first_legal(observations):
        return {a: int(np.flatnonzero(o["action_mask"])[0]) for a, o in observations.items()}

    environment = rl.parallel_env("sushi-go", 3, engine=engine)
    obs, _ = environment.reset(seed=8)
    obs, *_ = environment.step(first_legal(obs))
    twin = copy.deepcopy(environment)
    before = environment.engine_state.played
    twin_obs, *twin_rest = twin.step(first_legal(obs))
    assert environment.engine_state.played == before
    assert twin.engine_state.played != before
    again, *rest = environment.step(first_legal(obs))
    assert {a: o["observation"].tolist() for a, o in again.items()} == {
        a: o["observation"].tolist() for a, o in twin_obs.items()
    }
    assert rest == twin_rest
    assert environment.engine_state.played == twin.engine_state.played


def test_the_aec_env_says_it_converts_to_parallel_only_where_every_agent_steps_each_turn():
    """metadata is_parallelizable: true on Sushi Go! (aec_to_parallel's env passes parallel_api_test), false on Master Menu, whose card effects ask one seat while the others wait (PettingZoo then refuses the conversion, which would fail mid-game)."""
    from pettingzoo.utils.conversions import aec_to_parallel

    plain = rl.env("sushi-go", 3, engine="reference")
    assert plain.unwrapped.metadata["is_parallelizable"] is True
    parallel_api_test(aec_to_parallel(plain), num_cycles=50)
    menu = rl.env("sushi-go-party-master-menu", 4, engine="reference")
    assert menu.unwrapped.metadata["is_parallelizable"] is False
    assert rl.DraftEnv.metadata["is_parallelizable"] is True  # the class's own is left as it was
    with pytest.raises(AssertionError, match="not generally safe"):
        aec_to_parallel(menu)
