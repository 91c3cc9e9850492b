"""PettingZoo environments for any ruleset (``pip install 'ruledraft[rl]'``).

* :class:`DraftEnv` (AEC; :func:`env` wraps it as PettingZoo recommends, :func:`raw_env`
  is the bare class) and :class:`ParallelDraftEnv` (:func:`parallel_env`).
* Agents ``player_0``, ``player_1``, ... are the seats of the players (a dummy seat
  is not an agent).
* Observation: a dict with ``observation`` (a float32 ``Box``: the vector of
  :class:`ruledraft.engine.encoding.Encoder`, the same for every agent of a game) and
  ``action_mask`` (int8, one entry per action of ``Game.num_distinct_actions``: 1 where
  the action is legal for that agent now).
* Action: ``Discrete(Game.num_distinct_actions)``; ``Game.decode_action`` turns one
  into the cards taken.
* Picks are simultaneous. The AEC environment asks each acting agent in turn (seat
  order) and plays the joint move when the last one has chosen; an agent that does
  not act at a moment (``State.acting_seats()``) is skipped. In the parallel
  environment every live agent is in the dict it returns; an agent that does not act
  at a moment has an all-zero mask, and whatever it sends (or leaving it out) is
  ignored. A mask is all zero for every agent once the game is over.
* Rewards come at game end only: ``reward="points"`` (the final score),
  ``"margin"`` (own score minus the best other seat that can win) or ``"win"`` (1
  for a win, shared equally by tied winners, else 0).
* ``reset(seed=S)`` plays the game ``Game.new_initial_state(S)``; ``reset()`` without a
  seed plays the next seed of a stream started by the last seed given (or by the
  operating system if none was).
* An illegal action raises :class:`ruledraft.errors.IllegalMoveError`, or with
  ``illegal_reward=R`` ends the game: the agent that made it gets R, the others 0.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from ruledraft.engine.encoding import encoder_for
from ruledraft.engine.state import MAX_SEED, Game, State, derive_seed
from ruledraft.errors import IllegalMoveError, InputError
from ruledraft.language.ruleset import CompiledRuleset

__all__ = ["REWARDS", "DraftEnv", "ParallelDraftEnv", "env", "parallel_env", "raw_env", "rewards"]

#: the reward options
REWARDS = ("points", "margin", "win")
#: ``render`` returns the text (``ansi``) or prints it (``human``)
RENDER_MODES = ("ansi", "human")


def _game(ruleset: str | os.PathLike[str] | CompiledRuleset | Game, players: int | None) -> Game:
    if isinstance(ruleset, Game):
        if players is not None and players != ruleset.num_players:
            raise InputError(f"the game is for {ruleset.num_players} players, not {players}")
        return ruleset
    if not isinstance(ruleset, CompiledRuleset):
        from ruledraft.language.loading import load_ruleset

        ruleset = load_ruleset(ruleset)
    return Game(ruleset, players if players is not None else ruleset.min_players)


def rewards(state: State, kind: str = "points") -> list[float]:
    """Each player's reward for the finished game ``state`` (see :data:`REWARDS`)."""
    game = state.game
    players = game.num_players
    totals = state.totals()
    if kind == "points":
        return [float(t) for t in totals[:players]]
    if kind == "win":
        winners = state.winners
        share = 1.0 / len(winners) if winners else 0.0
        return [share if s in winners else 0.0 for s in range(players)]
    if kind == "margin":
        dummy = game.ruleset.dummy
        rivals = len(totals) if dummy is not None and dummy.can_win else players
        return [float(totals[s] - max(totals[o] for o in range(rivals) if o != s)) for s in range(players)]
    raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {kind!r}")


class _Table:
    """What both environments share: the game, its spaces, the state, seeds, masks."""

    def __init__(
        self,
        ruleset: str | os.PathLike[str] | CompiledRuleset | Game,
        players: int | None,
        reward: str,
        illegal_reward: float | None,
    ) -> None:
        if reward not in REWARDS:
            raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.game = game = _game(ruleset, players)
        self.reward = reward
        self.illegal_reward = illegal_reward
        self.encoder = enc = encoder_for(game)
        self.agents = [f"player_{i}" for i in range(game.num_players)]
        self.seat_of = {a: i for i, a in enumerate(self.agents)}
        low = np.array([-np.inf if x is None else x for f in enc.fields for x in f.low], dtype=np.float32)
        high = np.array([np.inf if x is None else x for f in enc.fields for x in f.high], dtype=np.float32)
        n = game.num_distinct_actions
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=low, high=high, dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(n,), dtype=np.int8),
                }
            )
            for a in self.agents
        }
        self.action_spaces = {a: spaces.Discrete(n) for a in self.agents}
        self.state: State = game.new_initial_state(0)
        self.seed: int = 0
        self._stream: tuple[int, int] | None = None
        #: the game has ended (played to the end, or by an illegal action)
        self.over = False

    def new_game(self, seed: int | None) -> None:
        """Start a game: ``seed`` itself, or the next of the stream."""
        if seed is not None:
            game_seed = int(seed)  # a NumPy integer too
            self._stream = (game_seed, 0)
        else:
            if self._stream is None:
                self._stream = (random.SystemRandom().randrange(MAX_SEED + 1), 0)
            base, count = self._stream
            self._stream = (base, count + 1)
            game_seed = derive_seed(base, count + 1) >> 11
        self.seed = game_seed
        self.state = self.game.new_initial_state(game_seed)
        self.over = False

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        state = self.state
        vector = np.asarray(self.encoder.encode(state.observation(seat)), dtype=np.float32)
        mask = np.zeros(self.game.num_distinct_actions, dtype=np.int8)
        if not self.over and seat in state.acting_seats():
            mask[state.legal_actions(seat)] = 1
        return {"observation": vector, "action_mask": mask}

    def action(self, agent: str, action: Any) -> int | None:
        """``action`` as an engine action, or None if it is illegal and the game ends
        for it (``illegal_reward``)."""
        seat = self.seat_of[agent]
        try:
            a = int(action)
        except (TypeError, ValueError):
            a = -1
        if a in self.state.legal_actions(seat):
            return a
        if self.illegal_reward is not None:
            return None
        raise IllegalMoveError(f"{agent}: action {action!r} is not legal now (seed {self.seed})")

    def play(self, chosen: Mapping[int, int]) -> None:
        """Apply the joint move: ``chosen`` has one action per acting seat."""
        state = self.state
        # a seat that does not act now sends nothing: the engine takes one action per acting seat
        state.apply_actions([chosen[s] for s in state.acting_seats()])

    def final_rewards(self) -> list[float]:
        self.over = True
        return rewards(self.state, self.reward)

    def illegal(self, seat: int) -> list[float]:
        """The rewards when ``seat``'s illegal action ends the game."""
        self.over = True
        out = [0.0] * self.game.num_players
        out[seat] = float(self.illegal_reward or 0.0)
        return out

    def render(self) -> str:
        state = self.state
        game = self.game
        ids = game.ruleset.catalogue.ids
        lines = [f"{game.ruleset.name}, seed {self.seed}: round {state.round + 1}, turn {state.turn + 1}"]
        if state.is_terminal():
            lines[0] = f"{game.ruleset.name}, seed {self.seed}: game over, winners {state.winners}"
        totals = state.totals()
        for s in range(game.num_seats):
            who = self.agents[s] if s < game.num_players else f"dummy_{s - game.num_players}"
            hand = " ".join(ids[c] for c in state.hands[s])
            table = " ".join(ids[c] for c in state.played[s])
            lines.append(f"{who}: {totals[s]} points; table: {table or '-'}; hand: {hand or '-'}")
        return "\n".join(lines)


class _OnTable:
    """What both environments answer from their :class:`_Table`."""

    _table: _Table
    render_mode: str | None

    def _seat(
        self,
        ruleset: str | os.PathLike[str] | CompiledRuleset | Game,
        players: int | None,
        reward: str,
        illegal_reward: float | None,
        render_mode: str | None,
    ) -> None:
        """Take a table (the constructors' common part)."""
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {', '.join(RENDER_MODES)}, not {render_mode!r}")
        self._table = _Table(ruleset, players, reward, illegal_reward)
        self.game = self._table.game
        self.possible_agents = self._table.agents[:]
        self.render_mode = render_mode

    def render(self) -> str | None:
        text = self._table.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    @property
    def engine_state(self) -> State:
        """The engine state of the game being played."""
        return self._table.state

    def observation_space(self, agent: str) -> spaces.Space:
        """The same object for every call (PettingZoo seeds spaces through it)."""
        return self._table.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self._table.action_spaces[agent]


class DraftEnv(_OnTable, AECEnv):
    """The AEC environment (see the module's description)."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "name": "ruledraft_v0", "is_parallelizable": True}

    def __init__(
        self,
        ruleset: str | os.PathLike[str] | CompiledRuleset | Game = "sushi-go",
        players: int | None = None,
        *,
        reward: str = "points",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self._seat(ruleset, players, reward, illegal_reward, render_mode)
        self._chosen: dict[int, int] = {}
        self.reset()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._table.observe(self._table.seat_of[agent])

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._table.new_game(seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._chosen = {}
        self.agent_selection = self._next_agent()

    def _next_agent(self) -> str:
        """The first acting seat that has not chosen yet this turn."""
        for s in self._table.state.acting_seats():
            if s not in self._chosen:
                return self.possible_agents[s]
        raise AssertionError("every acting seat has chosen")  # pragma: no cover - step plays the turn first

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        table = self._table
        seat = table.seat_of[agent]
        a = table.action(agent, action)
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if a is None:
            self._finish(table.illegal(seat))
        else:
            self._chosen[seat] = a
            if all(s in self._chosen for s in table.state.acting_seats()):
                table.play(self._chosen)
                self._chosen = {}
                if table.state.is_terminal():
                    self._finish(table.final_rewards())
                else:
                    self.agent_selection = self._next_agent()
            else:
                self.agent_selection = self._next_agent()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def _finish(self, final: list[float]) -> None:
        for s, a in enumerate(self.possible_agents):
            self.rewards[a] = final[s]
        self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.agents[0]


class ParallelDraftEnv(_OnTable, ParallelEnv):
    """The parallel environment (see the module's description)."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES), "name": "ruledraft_v0"}

    def __init__(
        self,
        ruleset: str | os.PathLike[str] | CompiledRuleset | Game = "sushi-go",
        players: int | None = None,
        *,
        reward: str = "points",
        illegal_reward: float | None = None,
        render_mode: str | None = None,
    ) -> None:
        self._seat(ruleset, players, reward, illegal_reward, render_mode)
        self.agents = self.possible_agents[:]

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {a: self._table.observe(self._table.seat_of[a]) for a in self.agents}

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        self._table.new_game(seed)
        self.agents = self.possible_agents[:]
        return self._observations(), {a: {} for a in self.agents}

    def step(
        self, actions: Mapping[str, Any]
    ) -> tuple[
        dict[str, dict[str, np.ndarray]],
        dict[str, float],
        dict[str, bool],
        dict[str, bool],
        dict[str, dict[str, Any]],
    ]:
        table = self._table
        if not self.agents:
            raise IllegalMoveError(f"the game is over (seed {table.seed}): reset() starts another")
        live = self.agents[:]
        final: list[float] | None = None
        chosen: dict[int, int] = {}
        for s in table.state.acting_seats():
            agent = self.possible_agents[s]
            if agent not in actions:
                raise IllegalMoveError(f"{agent} acts now but sent no action (seed {table.seed})")
            a = table.action(agent, actions[agent])
            if a is None:
                final = table.illegal(s)
                break
            chosen[s] = a
        if final is None:
            table.play(chosen)
            if table.state.is_terminal():
                final = table.final_rewards()
        observations = {a: table.observe(table.seat_of[a]) for a in live}
        if final is None:
            rewards_now = dict.fromkeys(live, 0.0)
        else:
            rewards_now = {a: final[table.seat_of[a]] for a in live}
        done = final is not None
        terminations = dict.fromkeys(live, done)
        truncations = dict.fromkeys(live, False)
        infos: dict[str, dict[str, Any]] = {a: {} for a in live}
        if done:
            self.agents = []
        if self.render_mode == "human":
            self.render()
        return observations, rewards_now, terminations, truncations, infos


def raw_env(*args: Any, **kwargs: Any) -> DraftEnv:
    """The AEC environment without wrappers (``DraftEnv(...)``)."""
    return DraftEnv(*args, **kwargs)


def env(*args: Any, **kwargs: Any) -> AECEnv:
    """The AEC environment with PettingZoo's usual checks: actions within bounds, and
    ``reset`` before ``step`` (``ruleset``, ``players``, ``reward``,
    ``illegal_reward``, ``render_mode`` as :class:`DraftEnv` takes them)."""
    wrapped: AECEnv = DraftEnv(*args, **kwargs)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)


def parallel_env(*args: Any, **kwargs: Any) -> ParallelDraftEnv:
    """The parallel environment (``ParallelDraftEnv(...)``)."""
    return ParallelDraftEnv(*args, **kwargs)
