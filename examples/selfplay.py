"""Self-play training on any ruleset with nothing but NumPy: a linear softmax policy
learned by REINFORCE in the PettingZoo parallel environment, then measured in the
gymnasium environment against ruledraft's bots.

    python3 examples/selfplay.py [--ruleset sushi-go] [--players 3] [--games 6000] [--eval 300]

Every seat plays the same policy (self-play). The policy scores each action by a
linear function of the observation vector (``logits = x @ W + b``, illegal actions
masked out) and is trained on per-round rewards (points; each move's return is the
points its seat scores from then on), against a running mean as baseline. At the
end the trained policy (choosing its most likely action) plays every seat in turn
against ``random``, ``first`` and ``greedy`` opponents, and the script prints its
win share with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np

from ruledraft import rl


def features(observation: np.ndarray) -> np.ndarray:
    """The observation scaled for a linear model: counts and points to about -5..5."""
    return np.clip(observation / 10.0, -5.0, 5.0)


class Policy:
    """A linear softmax over the legal actions."""

    def __init__(self, size: int, actions: int) -> None:
        self.W = np.zeros((size, actions))
        self.b = np.zeros(actions)

    def probabilities(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        logits = x @ self.W + self.b
        logits = np.where(mask > 0, logits, -np.inf)
        logits -= logits.max()
        p = np.exp(logits)
        return p / p.sum()

    def best(self, observation: dict[str, np.ndarray]) -> int:
        x = features(observation["observation"])
        logits = np.where(observation["action_mask"] > 0, x @ self.W + self.b, -np.inf)
        return int(np.argmax(logits))


def train(ruleset: str, players: int, games: int, seed: int = 0, lr: float = 0.05, batch: int = 16) -> Policy:
    """A policy trained by ``games`` games of self-play."""
    env = rl.parallel_env(ruleset, players, per_round=True)
    space = env.observation_space("player_0")
    policy = Policy(space["observation"].shape[0], space["action_mask"].shape[0])
    rng = np.random.default_rng(seed)
    baseline = 0.0
    xs: list[np.ndarray] = []
    grads: list[np.ndarray] = []
    returns: list[float] = []
    for game in range(games):
        obs, _ = env.reset(seed=seed * 1_000_003 + game)
        steps: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {a: [] for a in env.possible_agents}
        gained: dict[str, list[float]] = {a: [] for a in env.possible_agents}
        while env.agents:
            actions = {}
            for agent, o in obs.items():
                if not o["action_mask"].any():
                    continue
                x = features(o["observation"])
                p = policy.probabilities(x, o["action_mask"])
                a = int(rng.choice(len(p), p=p))
                actions[agent] = a
                g = -p
                g[a] += 1.0  # d log p(a) / d logits
                steps[agent].append((x, g))
                gained[agent].append(0.0)
            obs, rewards, *_ = env.step(actions)
            for agent, r in rewards.items():
                if gained[agent]:
                    gained[agent][-1] += r
        for agent in env.possible_agents:
            to_go = np.cumsum(gained[agent][::-1])[::-1]
            for (x, g), ret in zip(steps[agent], to_go):
                xs.append(x)
                grads.append(g)
                returns.append(float(ret))
        if (game + 1) % batch == 0:
            r = np.array(returns)
            baseline = 0.9 * baseline + 0.1 * r.mean() if baseline else r.mean()
            adv = (r - baseline) / (r.std() + 1e-6)
            G = np.array(grads) * adv[:, None]
            policy.W += lr * np.array(xs).T @ G / len(r)
            policy.b += lr * G.sum(axis=0) / len(r)
            xs, grads, returns = [], [], []
    return policy


def wilson(wins: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a win share."""
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def evaluate(policy: Policy, ruleset: str, players: int, opponents: str, games: int, seed: int = 10**6) -> float:
    """The policy's win share (ties shared) in ``games`` games against ``opponents``,
    its seat rotated game by game."""
    wins = 0.0
    for game in range(games):
        seat = game % players
        env = rl.single_agent_env(ruleset, players, seat=seat, opponents=opponents, reward="win", illegal_reward=None)
        obs, _ = env.reset(seed=seed + game)
        terminated = False
        reward = 0.0
        while not terminated:
            obs, reward, terminated, _, _ = env.step(policy.best(obs))
        wins += reward
    return wins / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="sushi-go")
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--games", type=int, default=6000, help="self-play games to train on")
    parser.add_argument("--eval", type=int, default=300, help="games against each opponent")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    start = time.perf_counter()
    policy = train(args.ruleset, args.players, args.games, args.seed)
    print(f"trained on {args.games} self-play games in {time.perf_counter() - start:.0f} s")
    fair = 1 / args.players
    for opponents in ("random", "first", "greedy"):
        share = evaluate(policy, args.ruleset, args.players, opponents, args.eval)
        low, high = wilson(share * args.eval, args.eval)
        print(f"vs {opponents:<7} win share {share:.2f} [{low:.2f}-{high:.2f}] (an equal share: {fair:.2f})")


if __name__ == "__main__":
    main()
