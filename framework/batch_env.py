"""Many games of one ruleset stepped at once on its compiled kernel: an environment for
reinforcement learning whose every call moves a whole batch of games, with NumPy arrays
in and out and no Python object per game, seat or move.

* ``BatchDraftEnv(ruleset, players, games=G)``; :meth:`~BatchDraftEnv.reset` returns
  the observations ``(G, players, size)`` (float32) and action masks
  ``(G, players, actions)`` (int8); :meth:`~BatchDraftEnv.step` takes one action per
  game and player ``(G, players)`` and returns the observations, the masks, the rewards
  ``(G, players)`` (float32), which games ended ``(G,)`` and an info dict.
* A player's vector and mask are exactly those of the PettingZoo environments
  (``ruledraft.rl``, the :class:`~ruledraft.engine.encoding.Encoder`'s layout), and the
  rewards are theirs (``reward="points" | "margin" | "win"``, ``per_round``).
* Games start again by themselves: a game that ends returns its last rewards, and the
  observations and masks returned with them are already the next game's first
  (the last ones are in ``info["final_observation"]``, the ended games' seeds in
  ``info["final_seeds"]``).
* Seeds: ``reset(seed=S)`` starts game ``k`` (0, 1, 2, ... in the order the games
  start, the batch's first ``G`` in place order) with seed ``S`` for ``k = 0`` and
  ``derive_seed(S, k) >> 11`` after: the games ``ParallelDraftEnv`` plays after
  ``reset(seed=S)`` and then ``reset()`` again and again. So a game here, moved by the
  same actions, is the very game the PettingZoo environment plays. ``S`` is between 0
  and 2**63 - 1, as on the PettingZoo environments on the kernel.
* An illegal action raises :class:`~ruledraft.errors.IllegalMoveError` naming the
  game, the player and the seed, and no game moves. Actions that are not integers of
  shape ``(games, players)`` raise :class:`~ruledraft.errors.ArgumentError` (a
  ``ValueError``).
* The kernel holds games without card effects, races or a dummy (Sushi Go! and its
  variants, the Party menus without them); another ruleset is refused with
  :class:`~ruledraft.errors.InputError` saying why.
"""

from __future__ import annotations

import os
import random
from typing import Any

import numpy as np

from ruledraft.engine.encoding import encoder_for
from ruledraft.engine.seeds import env_seed
from ruledraft.engine.state import MAX_SEED, Game, derive_seed
from ruledraft.errors import ArgumentError, IllegalMoveError, InputError, truth_value, whole_number
from ruledraft.kernel import Unsupported, compile_kernel, ready_apart
from ruledraft.kernel.batch import GAME_END, ROUND_END, Batch, batch_refusal, encoder_offsets
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.match import game_of

__all__ = ["REWARDS", "BatchDraftEnv", "batch_env"]

#: the reward options (as ``ruledraft.rl``'s)
REWARDS = ("points", "margin", "win")


class BatchDraftEnv:
    """``games`` games of ``ruleset`` at ``players`` players, stepped together on the
    ruleset's compiled kernel (see the module's description)."""

    def __init__(
        self,
        ruleset: str | os.PathLike[str] | CompiledRuleset | Game = "sushi-go",
        players: int | None = None,
        *,
        games: int = 256,
        reward: str = "points",
        per_round: bool = False,
    ) -> None:
        if reward not in REWARDS:
            raise ArgumentError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        games = whole_number(games, "games")
        if games < 1:
            raise ArgumentError(f"games must be at least 1, not {games}")
        per_round = truth_value(per_round, "per_round")
        self.game = game = game_of(ruleset, players)
        self.players = P = game.num_players
        self.reward = reward
        self.per_round = per_round
        reason = batch_refusal(game.ruleset)
        if reason is not None:
            raise InputError(f"{game.ruleset.name} cannot be played by the batch environment: {reason}")
        kernel = compile_kernel(game.ruleset, P, apart=True, loop=False)  # the batch functions alone
        if isinstance(kernel, Unsupported):
            raise InputError(f"{game.ruleset.name} has no compiled kernel: {kernel.reason}")
        ready_apart(kernel.path, "batch_step")
        self.encoder = enc = encoder_for(game)
        at = encoder_offsets(enc)
        if at is None:
            raise InputError(f"{game.ruleset.name}: the batch environment encodes the standard fields only")
        self._at = at
        #: the length of an observation vector
        self.size = enc.size
        #: the number of actions (``Game.num_distinct_actions``); ``Game.decode_action`` reads one
        self.num_actions = game.num_distinct_actions
        self.num_games = G = int(games)
        self._order = np.array([enc.layout.relative_seats(s) for s in range(P)], np.int64)
        self._batch = Batch(kernel.module, P, G)
        self._obs = np.zeros((G, P, self.size), np.float32)
        self._masks = np.zeros((G, P, self.num_actions), np.int8)
        self._all = np.arange(G, dtype=np.int64)
        self._base = 0
        self._started = 0
        self._so_far = np.zeros((G, P), np.float64)
        self._dealt = False

    @property
    def seeds(self) -> np.ndarray:
        """The seed of each game now in play (a copy)."""
        return self._batch.seeds.copy()

    def _next_seeds(self, n: int) -> np.ndarray:
        """The seeds of the next ``n`` games to start."""
        out = np.empty(n, np.uint64)
        for i in range(n):
            k = self._started + i
            out[i] = self._base if k == 0 else derive_seed(self._base, k) >> 11
        self._started += n
        return out

    def reset(self, seed: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Start every game afresh (see the module's description for the seeds): the
        observations and the masks (new arrays)."""
        if seed is None:
            seed = random.SystemRandom().randrange(MAX_SEED + 1)
        seed = env_seed(seed)  # as the PettingZoo environments'
        self._base = seed
        self._started = 0
        self._batch.new(self._all, self._next_seeds(self.num_games))
        self._dealt = True
        self._so_far[:] = 0.0
        self._batch.encode(self._all, self._at, self._order, self._obs, self._masks)
        return self._obs.copy(), self._masks.copy()

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        """Play one turn of every game: ``actions[game, player]`` (an integer array of
        shape ``(games, players)``). Returns the observations, the masks, the rewards,
        which games ended (their observations and masks are the next game's first) and
        ``info`` (``final_observation``: the ended games' last observations, in the order
        of their places; ``final_seeds``: their seeds)."""
        G, P = self.num_games, self.players
        if not self._dealt:
            raise IllegalMoveError("no game is dealt yet: reset() first")
        try:
            sent = np.asarray(actions)
        except (TypeError, ValueError) as error:
            raise ArgumentError(f"actions must be integers of shape ({G}, {P}): {error}") from None
        if sent.shape != (G, P) or sent.dtype.kind not in "iu":
            raise ArgumentError(f"actions must be integers of shape ({G}, {P}), not {sent.dtype} {sent.shape}")
        batch = self._batch
        bad = batch.step(np.ascontiguousarray(sent, np.int64))
        if bad >= 0:
            seat = -1 - int(batch.status[bad])
            raise IllegalMoveError(
                f"game {bad}, player_{seat}: action {int(sent[bad, seat])} is not legal now (seed {int(batch.seeds[bad])})"
            )
        status = batch.status
        ended = np.flatnonzero(status == GAME_END)
        rewards = np.zeros((G, P), np.float32)
        if self.per_round:
            scored = np.flatnonzero(status == ROUND_END)
            if len(scored):
                now = self._batch.rewards(scored, self.reward, over=False)
                rewards[scored] = now - self._so_far[scored]
                self._so_far[scored] = now
        info: dict[str, Any] = {}
        if len(ended):
            final = self._batch.rewards(ended, self.reward, over=True)
            rewards[ended] = final - self._so_far[ended] if self.per_round else final
            self._so_far[ended] = 0.0
            batch.encode(ended, self._at, self._order, self._obs, self._masks)
            info["final_observation"] = self._obs[ended].copy()
            info["final_seeds"] = batch.seeds[ended].copy()
            batch.new(ended, self._next_seeds(len(ended)))
        batch.encode(self._all, self._at, self._order, self._obs, self._masks)
        terminated = np.zeros(G, bool)
        terminated[ended] = True
        return self._obs.copy(), self._masks.copy(), rewards, terminated, info


def batch_env(*args: Any, **kwargs: Any) -> BatchDraftEnv:
    """``BatchDraftEnv(...)``."""
    return BatchDraftEnv(*args, **kwargs)
