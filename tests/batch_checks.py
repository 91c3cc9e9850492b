"""The batch environment played beside the PettingZoo environment on the reference engine,
step by step: what the batch environment's tests and the kernel's property over
generated rule files check."""

from __future__ import annotations

import numpy as np

from ruledraft import rl
from ruledraft.batch_env import BatchDraftEnv
from ruledraft.engine.state import Game


def turns(game: Game) -> int:
    """The joint moves of one game (a round's last card is played for the seats)."""
    return game.ruleset.rounds * (game.ruleset.hand_size(game.num_players) - 1)


def stack(observations, names):
    """The agents' observations and masks of a PettingZoo step, as the batch returns a game's."""
    return (
        np.stack([observations[a]["observation"] for a in names]),
        np.stack([observations[a]["action_mask"] for a in names]),
    )


def play_alongside(game: Game, games: int, seed: int, *, reward: str = "points", per_round: bool = False) -> dict:
    """Play random legal moves in a batch and, game by game, the same moves in ParallelDraftEnv; assert every step agrees."""
    env = BatchDraftEnv(game, games=games, reward=reward, per_round=per_round)
    names = [f"player_{p}" for p in range(game.num_players)]
    obs, masks = env.reset(seed=seed)
    refs = [rl.ParallelDraftEnv(game, reward=reward, per_round=per_round, engine="reference") for _ in range(games)]
    seen = [stack(ref.reset(seed=int(s))[0], names) for ref, s in zip(refs, env.seeds)]
    rng = np.random.default_rng(seed)
    tally = {"ended": 0, "pairs": 0, "steps": 0}
    K = game.num_card_types
    for _ in range(2 * turns(game) + 3):
        for g in range(games):
            np.testing.assert_array_equal(obs[g], seen[g][0])
            np.testing.assert_array_equal(masks[g], seen[g][1])
        actions = np.array(
            [[rng.choice(np.flatnonzero(masks[g, p])) for p in range(game.num_players)] for g in range(games)]
        )
        tally["pairs"] += int((actions >= K).sum())
        obs, masks, rewards, ended, info = env.step(actions)
        tally["steps"] += 1
        final = iter(info.get("final_observation", ()))
        for g, ref in enumerate(refs):
            after, points, done, _, _ = ref.step({a: int(actions[g, p]) for p, a in enumerate(names)})
            np.testing.assert_array_equal(rewards[g], [points[a] for a in names])
            assert ended[g] == done[names[0]]
            seen[g] = stack(after, names)
            if ended[g]:
                tally["ended"] += 1
                np.testing.assert_array_equal(next(final), seen[g][0])
                seen[g] = stack(ref.reset(seed=int(env.seeds[g]))[0], names)
    return tally
