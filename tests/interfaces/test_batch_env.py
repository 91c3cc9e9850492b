"""The batch environment on the kernel (ruledraft.batch_env): its games, moved by the same actions, are the PettingZoo environment's."""

from __future__ import annotations

import contextlib
import io
import re

import numpy as np
import pytest
from batch_checks import play_alongside, turns
from paths import DATA, README, ROOT

from ruledraft.batch_env import BatchDraftEnv
from ruledraft.engine.seeds import MAX_ENV_SEED
from ruledraft.engine.state import Game, derive_seed
from ruledraft.errors import ArgumentError, IllegalMoveError, InputError
from ruledraft.kernel.batch import MAX_KERNEL_SEED
from ruledraft.language.loading import load_ruleset

#: every case the kernel's batch functions take a branch for: chopsticks (sushi-go, the
#: apothecary's own special card), cards added each round and decks shuffled again
#: (party-starter), pass patterns (switchback), the fewest and the most players
TABLES = [
    ("sushi-go", 2),
    ("sushi-go", 5),
    ("sushi-go-party-starter", 2),
    ("sushi-go-party-starter", 8),
    ("examples/sushi-go-switchback.yaml", 3),
    ("examples/sushi-go-switchback.yaml", 5),
    ("examples/midnight-apothecary.yaml", 6),
]


def _game(rid: str, players: int) -> Game:
    path = ROOT / rid if rid.startswith("examples/") else rid
    return Game(load_ruleset(path), players)


@pytest.mark.parametrize(("rid", "players"), TABLES)
def test_batch_games_equal_the_pettingzoo_environments(rid, players):
    """Observations, masks, rewards and game ends equal ParallelDraftEnv's at every step, over two games in each place."""
    game = _game(rid, players)
    tally = play_alongside(game, 3, seed=players)
    assert tally["ended"] == 6
    if game.procedure.actions:  # the special action was played, not only offered
        assert tally["pairs"] > 0


def test_a_batch_of_many_games_equals_the_pettingzoo_environments():
    """70 games, whose decks' streams are seeded side by side 64 at a time (the kernel's batch_new), at the reset
    and again as they all end together: every step equals ParallelDraftEnv's."""
    tally = play_alongside(_game("sushi-go", 2), 70, seed=5)
    assert tally["ended"] == 140


@pytest.mark.parametrize("reward", ["points", "margin", "win"])
@pytest.mark.parametrize("per_round", [False, True])
def test_every_reward_equals_the_pettingzoo_environments(reward, per_round):
    """Each kind of reward, at the game end or round by round, equals ParallelDraftEnv's."""
    tally = play_alongside(_game("sushi-go", 3), 2, seed=11, reward=reward, per_round=per_round)
    assert tally["ended"] == 4


def test_round_by_round_rewards_add_up_to_the_final_points():
    """With per_round, a game's rewards sum to its players' final totals."""
    env = BatchDraftEnv("sushi-go", 4, games=4, per_round=True)
    final = BatchDraftEnv("sushi-go", 4, games=4)
    _, masks = env.reset(seed=3)
    final.reset(seed=3)
    summed = np.zeros((4, 4))
    for _ in range(turns(env.game)):
        first = masks.argmax(axis=2)  # the first legal action of every player
        _, masks, rewards, ended, _ = env.step(first)
        _, _, points, ended_too, _ = final.step(first)
        summed += rewards
    assert ended.all() and ended_too.all()
    np.testing.assert_array_equal(summed, points)
    assert points.sum() > 0


def test_the_games_take_the_seeds_of_the_parallel_environments_stream():
    """Game k (in the order the games start) has seed S, then derive_seed(S, k) >> 11."""
    env = BatchDraftEnv("sushi-go", 2, games=3)
    _, masks = env.reset(seed=99)
    assert env.seeds.tolist() == [99, derive_seed(99, 1) >> 11, derive_seed(99, 2) >> 11]
    for _ in range(turns(env.game)):
        _, masks, _, ended, info = env.step(masks.argmax(axis=2))
    assert ended.all()
    assert info["final_seeds"].tolist() == [99, derive_seed(99, 1) >> 11, derive_seed(99, 2) >> 11]
    assert env.seeds.tolist() == [derive_seed(99, k) >> 11 for k in (3, 4, 5)]


def test_an_illegal_action_is_refused_and_no_game_moves():
    """An action the hand cannot make raises IllegalMoveError naming the game and player; every game stays as it was."""
    env = BatchDraftEnv("sushi-go", 2, games=2)
    obs, masks = env.reset(seed=1)
    actions = masks.argmax(axis=2)
    actions[1, 1] = int(np.flatnonzero(masks[1, 1] == 0)[0])
    with pytest.raises(IllegalMoveError, match=r"game 1, player_1: action \d+ is not legal now \(seed \d+\)"):
        env.step(actions)
    actions[1, 1] = masks[1, 1].argmax()
    again, _, _, _, _ = env.step(actions)
    ref, ref_masks = BatchDraftEnv("sushi-go", 2, games=2).reset(seed=1)
    np.testing.assert_array_equal(obs, ref)
    assert not np.array_equal(again, obs)


def test_a_step_before_any_reset_is_refused():
    """step() before reset() raises IllegalMoveError asking for reset()."""
    env = BatchDraftEnv("sushi-go", 2, games=2)
    with pytest.raises(IllegalMoveError, match=r"no game is dealt yet: reset\(\) first"):
        env.step(np.zeros((2, 2), np.int64))


@pytest.mark.parametrize(
    "sent", [[[0, 0]], [[0.5, 1.0], [0.0, 1.0]], "no", [[True, False], [False, True]], [[2**70, 0], [0, 0]]]
)
def test_actions_of_another_shape_or_type_are_refused(sent):
    """Actions that are not integers of shape (games, players) are bad input, a ValueError, not an illegal move."""
    env = BatchDraftEnv("sushi-go", 2, games=2)
    env.reset(seed=1)
    with pytest.raises(ValueError, match=r"actions must be integers of shape \(2, 2\)") as raised:
        env.step(sent)
    assert isinstance(raised.value, ArgumentError) and not isinstance(raised.value, IllegalMoveError)


@pytest.mark.parametrize(
    ("rid", "players", "reason"),
    [
        ("sushi-go-party-master-menu", 4, "card effects"),
        (str(DATA / "kernel" / "race-icons.yaml"), 3, "a race"),
        ("sushi-go-two-player-dummy", 2, "a dummy"),
    ],
)
def test_a_ruleset_the_batch_cannot_hold_is_refused_with_the_reason(rid, players, reason):
    """Card effects, a race and a dummy are refused with InputError saying so, before any compile."""
    with pytest.raises(InputError, match=f"cannot be played by the batch environment: it has {reason}"):
        BatchDraftEnv(rid, players, games=1)


def test_a_reward_or_a_batch_size_out_of_range_is_refused():
    """An unknown reward, no games at all, or a seed out of range raise ArgumentError, a ValueError."""
    with pytest.raises(ArgumentError, match="reward must be one of points, margin, win"):
        BatchDraftEnv("sushi-go", 2, reward="rank")
    with pytest.raises(ArgumentError, match="games must be at least 1"):
        BatchDraftEnv("sushi-go", 2, games=0)
    for games in (1.5, "2", True):
        with pytest.raises(ArgumentError, match=re.escape(f"games must be a whole number, not {games!r}")):
            BatchDraftEnv("sushi-go", 2, games=games)
    assert MAX_ENV_SEED == MAX_KERNEL_SEED  # a seed the environments take, the kernel holds
    for seed in (-1, 2**63, 1.5):
        with pytest.raises(ArgumentError, match=re.escape(f"a seed is a whole number from 0 to 2**63 - 1, not {seed}")):
            BatchDraftEnv("sushi-go", 2, games=1).reset(seed=seed)


def test_the_largest_seed_the_kernel_holds_plays_the_parallel_environments_games():
    """reset(seed=2**63 - 1), as the PettingZoo environments on the kernel take it, plays their games for that seed and the stream after it."""
    top = 2**63 - 1
    env = BatchDraftEnv("sushi-go", 3, games=2)
    env.reset(seed=top)
    assert env.seeds.tolist() == [top, derive_seed(top, 1) >> 11]
    tally = play_alongside(_game("sushi-go", 3), 2, seed=top)
    assert tally["ended"] == 4


def test_the_readmes_batch_example_runs_as_written():
    """The README's BatchDraftEnv block plays 1024 games to their end and prints that every game's win shares sum to 1."""
    text = README.read_text()
    blocks = [block.split("```", 1)[0] for block in text.split("```python\n")[1:]]
    code = next(block for block in blocks if "BatchDraftEnv" in block)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert out.getvalue() == "True 1.0\n"


@pytest.mark.parametrize("bad", [-1, 156, 10**12])
def test_an_action_out_of_the_action_space_is_illegal(bad):
    """A negative action or one past Game.num_distinct_actions raises IllegalMoveError for that player."""
    env = BatchDraftEnv("sushi-go", 4, games=1)
    _, masks = env.reset(seed=2)
    actions = masks.argmax(axis=2)
    actions[0, 2] = bad
    with pytest.raises(IllegalMoveError, match=f"game 0, player_2: action {bad} is not legal now"):
        env.step(actions)


def test_a_deep_copy_steps_as_the_original_and_apart_from_it():
    """copy.deepcopy of a batch environment mid-game gives the original's next step; stepping the copy leaves the original as it was."""
    import copy

    env = BatchDraftEnv("sushi-go", 3, games=4)
    _, masks = env.reset(seed=21)
    _, masks, _, _, _ = env.step(masks.argmax(axis=2))
    twin = copy.deepcopy(env)
    assert twin._batch.module is env._batch.module  # the compiled functions are shared
    twin_out = twin.step(masks.argmax(axis=2))
    out = env.step(masks.argmax(axis=2))
    for mine, theirs in zip(out[:4], twin_out[:4]):
        np.testing.assert_array_equal(mine, theirs)
    moved = twin.step(twin_out[1].argmax(axis=2))
    assert not np.array_equal(moved[0], out[0])
    np.testing.assert_array_equal(env.seeds, twin.seeds)
