"""PettingZoo environments for any ruleset (``pip install 'ruledraft[rl]'``).

* :class:`DraftEnv` (AEC; :func:`env` wraps it as PettingZoo recommends, :func:`raw_env`
  is the bare class) and :class:`ParallelDraftEnv` (:func:`parallel_env`).
* Agents ``player_0``, ``player_1``, ... are the seats of the players (a dummy seat
  is not an agent).
* Observation: a dict with ``observation`` (a float32 ``Box``: the vector of
  :class:`ruledraft.engine.encoding.Encoder`, the same for every agent of a game) and
  ``action_mask`` (int8, one entry per action of ``Game.num_distinct_actions``: 1 where
  the action is legal for that agent now). The vectors of all agents are made at once
  by :class:`BulkEncoder` (NumPy), from what :func:`seat_views` lets each seat see.
  Every bound is finite: scores are bounded by the language's bound on a rule's
  points (``ExpressionLimits.max_value``) times the scorings of a game.
* ``state()`` (``state_space``): the global state for a centralized critic: player
  0's observation vector, then every seat's hand by type (hidden information).
* Action: ``Discrete(Game.num_distinct_actions)``; ``Game.decode_action`` turns one
  into the cards taken.
* Picks are simultaneous. The AEC environment asks each acting agent in turn (seat
  order) and plays the joint move when the last one has chosen; an agent that does
  not act at a moment (``State.acting_seats()``) is skipped. In the parallel
  environment every live agent is in the dict it returns; an agent that does not act
  at a moment has an all-zero mask, and whatever it sends (or leaving it out) is
  ignored. A mask is all zero for every agent once the game is over.
* Rewards come at game end: ``reward="points"`` (the final score), ``"margin"``
  (own score minus the best other seat that can win) or ``"win"`` (1 for a win,
  shared equally by tied winners, else 0). With ``per_round=True`` they come as the
  game goes: after each move, the change of :func:`reward_so_far` (a round's points
  when it is scored), adding up to the game-end reward.
* :class:`DraftGymEnv` (:func:`single_agent_env`, or
  ``gymnasium.make("ruledraft/Draft-v0", ...)``) is a gymnasium environment for one
  learner against bots (``opponents="planner"``).
* ``reset(seed=S)`` plays the game ``Game.new_initial_state(S)``; ``reset()`` without a
  seed plays the next seed of a stream started by the last seed given (or by the
  operating system if none was).
* An illegal action raises :class:`ruledraft.errors.IllegalMoveError`, or with
  ``illegal_reward=R`` ends the game: the agent that made it gets R, the others 0.
* ``engine="auto" | "kernel" | "reference"``: the environments play on the ruleset's
  compiled kernel (:mod:`ruledraft.kernel.batch`: the move and every agent's vector
  and mask in compiled code) where it holds the game (no card effects, races or
  dummy) -- ``auto`` once it is in the cache, starting its compile in the background
  otherwise -- else on the reference engine; ``.engine`` names the one that plays.
  Both give the same observations, masks, rewards and games. On the kernel,
  ``engine_state`` is the reference engine's replay of the game's moves.
  :class:`DraftGymEnv` takes ``engine`` too: on the kernel its opponents (random,
  first, greedy, value, planner) choose in compiled code, seeded as the reference's,
  so they make the same moves; other opponents (ismcts, a plug-in) play on the
  reference engine.
"""

from __future__ import annotations

import os
import random
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv, ParallelEnv
from pettingzoo.utils import wrappers

from ruledraft.engine.decisions import Decision
from ruledraft.engine.encoding import FIELDS as STANDARD_FIELDS
from ruledraft.engine.encoding import Encoder, encoder_for
from ruledraft.engine.procedures import StandardProcedure
from ruledraft.engine.seeds import env_seed
from ruledraft.engine.state import MAX_SEED, Game, State, derive_seed
from ruledraft.engine.view import SeatView as EngineSeatView
from ruledraft.engine.view import seat_view
from ruledraft.errors import ArgumentError, IllegalMoveError, InputError, finite_number, truth_value, whole_number
from ruledraft.kernel import (
    BOTS,
    Unsupported,
    bot_refusal,
    bots_refusal,
    compile_kernel,
    is_cached,
    parse_kernel_bot,
    plans,
    ready_apart,
    start_compiling,
)
from ruledraft.kernel.batch import Batch, batch_refusal, encoder_offsets
from ruledraft.language.compiled_expression import ExpressionLimits
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.agents import Agent, default_card_values, make_agent
from ruledraft.play.bot_specs import as_action
from ruledraft.play.engines import BACKGROUND_COMPILE, ready_searches
from ruledraft.play.match import game_of
from ruledraft.play.planner import count_values

__all__ = [
    "REWARDS",
    "BulkEncoder",
    "DraftEnv",
    "DraftGymEnv",
    "ParallelDraftEnv",
    "SeatView",
    "env",
    "parallel_env",
    "raw_env",
    "reward_so_far",
    "rewards",
    "seat_views",
    "single_agent_env",
]

#: the reward options
REWARDS = ("points", "margin", "win")
#: the opponents the gymnasium environment plays on the kernel
KERNEL_OPPONENTS = ("random", "first", "greedy", "value", "planner")
#: the engines an environment plays on (``auto``: the kernel where it holds the game)
ENGINES = ("auto", "kernel", "reference")
#: ``render`` returns the text (``ansi``) or prints it (``human``)
RENDER_MODES = ("ansi", "human")


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
        rivals = game.ruleset.rivals(players)
        return [float(totals[s] - max(totals[o] for o in range(rivals) if o != s)) for s in range(players)]
    raise ArgumentError(f"reward must be one of {', '.join(REWARDS)}, not {kind!r}")


def reward_so_far(state: State, kind: str = "points") -> list[float]:
    """Each player's reward were the game to end now: :func:`rewards` of the scores so
    far (``win``: 0 until the game is over). The per-round rewards of the environments
    are its changes, so they add up to the game-end reward."""
    if kind == "win" and not state.is_terminal():
        return [0.0] * state.game.num_players
    return rewards(state, kind)


class SeatView(NamedTuple):
    """What one seat may see at one moment, as card indices (read-only by contract:
    the lists are the state's own, not copies)."""

    seat: int
    #: 0-based round and turn
    round: int
    turn: int
    #: its own hand
    hand: Sequence[int]
    #: the hands now at other seats whose contents it has seen
    known_hands: Mapping[int, Sequence[int]]
    #: public: cards in each seat's hand, each seat's table and kept cards by type, scores
    hand_sizes: Sequence[int]
    tables: Sequence[Sequence[int]]
    kept: Sequence[Sequence[int]]
    scores: Sequence[int]
    round_scores: Sequence[Sequence[int]]
    controls_dummy: bool
    can_use_action: bool
    #: the decision it must make now, else None
    pending: Decision | None


def seat_views(state: State, seats: Sequence[int]) -> list[SeatView]:
    """What each of ``seats`` may see of ``state``: the one place the environments read
    the game for a seat (the same as ``State.observation(seat)``, without naming the
    cards). The public parts are read once and shared by the views."""
    pending = state.pending
    procedure = state.game.procedure
    sizes = [len(h) for h in state.hands]
    scores = state.totals()
    picking = not state.finished and pending is None
    out = []
    for seat in seats:
        known = state.known_cards(seat, procedure.known_hands(state, seat))
        out.append(
            SeatView(
                seat=seat,
                round=state.round,
                turn=state.turn,
                hand=state.hands[seat],
                known_hands=known,
                hand_sizes=sizes,
                tables=state.counts,
                kept=state.kept_counts,
                scores=scores,
                round_scores=state.round_scores,
                controls_dummy=state.controller == seat,
                can_use_action=state.can_use_action(seat) if picking else False,
                pending=pending if pending is not None and pending.seat == seat else None,
            )
        )
    return out


def _bot_sees(state: State, seat: int) -> EngineSeatView:
    """What a bot opponent of the single-agent environment is handed to choose a move
    (its ``act(view, seat)``): its seat's view, so no bot sees more or changes the game."""
    return seat_view(state, seat)


#: the NumPy types made once (naming one by its class costs a look-up in every call)
_UINT8, _INT8, _FLOAT32 = np.dtype(np.uint8), np.dtype(np.int8), np.dtype(np.float32)

#: the encoder's fields that :class:`BulkEncoder` fills in bulk, in order
BULK_FIELDS = tuple(spec.name for spec in STANDARD_FIELDS)


class BulkEncoder:
    """The :class:`~ruledraft.engine.encoding.Encoder`'s vectors of several seats at
    once, as one float32 matrix (a row per seat): what every seat shares (tables, kept
    cards, scores) is gathered once by NumPy for all seats in their relative order; a
    seat's own part (its hand, the hands it has seen, its decision) is one count over
    all seats. Row ``i`` equals ``Encoder.encode(state.observation(seats[i]))``; an
    encoder with other fields than :data:`BULK_FIELDS` is encoded seat by seat."""

    def __init__(self, game: Game, encoder: Encoder | None = None) -> None:
        enc = encoder if encoder is not None else encoder_for(game)
        self.game = game
        self.encoder = enc
        self.size = enc.size
        self.bulk = tuple(f.name for f in enc.fields) == BULK_FIELDS
        self.at = at = {f.name: f.offset for f in enc.fields}
        layout = enc.layout
        K = self.K = layout.num_card_types
        S = self.S = layout.seats
        R = self.R = layout.rounds
        #: per player, the seats in its relative order
        self.order = np.array([layout.relative_seats(s) for s in range(game.num_players)], dtype=np.intp)
        #: per player, the absolute seat -> its relative position
        self.position = np.argsort(self.order, axis=1)
        # the public part: per absolute seat one row [table by type | kept by type | hand
        # size | score | each round's points]; a player's rows in its relative order,
        # flattened, land in its vector at ``dest`` from ``src``
        self.columns = C = 2 * K + 2 + R
        dest: list[int] = []
        src: list[int] = []
        if self.bulk:
            for r in range(S):
                for k in range(K):
                    dest += [at["played"] + r * K + k, at["kept"] + r * K + k]
                    src += [r * C + k, r * C + K + k]
                dest += [at["hand_sizes"] + r, at["scores"] + r]
                src += [r * C + 2 * K, r * C + 2 * K + 1]
                for rnd in range(R):
                    dest.append(at["round_scores"] + rnd * S + r)
                    src.append(r * C + 2 * K + 2 + rnd)
        self.dest = np.array(dest, dtype=np.intp)
        src_at = np.array(src, dtype=np.intp)
        # per player, where each element of its vector comes from in the public rows
        # laid flat and followed by [0, round, turn]: its relative seat's row, then the
        # column (the private parts point at the 0 and are counted on top)
        zero = S * C
        self.gather = np.full((game.num_players, enc.size), zero, dtype=np.intp)
        if self.bulk:
            self.gather[:, self.dest] = self.order[:, src_at // C] * C + src_at % C
            self.gather[:, at["round"]] = zero + 1
            self.gather[:, at["turn"]] = zero + 2
        self.everyone = list(range(game.num_players))
        # every player at once (:meth:`encode_all`): the cards on the tables, kept and in
        # hands counted by one bincount of their codes, the other numbers beside them,
        # and every vector gathered from that by one index. Which hands a player has
        # seen depends only on the round and the turn in the standard procedure, so the
        # index is made once per (round, turn): a hand not seen points at a 0, its flag
        # at 0 or 1
        procedure = game.procedure
        self.all_at_once = (
            self.bulk
            and type(procedure).known_hands is StandardProcedure.known_hands
            and game.num_seats == game.num_players
        )
        self._indices: dict[tuple[int, int], np.ndarray] = {}
        #: :meth:`encode_all`'s scores of the state last encoded: (its ``round_scores``,
        #: their number, its ``game_end_scores``, per seat its score then each round's points)
        self._scored: tuple[list[list[int]], int, list[int], list[tuple[int, ...]]] | None = None
        #: the cards whose special action (chopsticks) lets a seat take extra cards
        self._action_cards = tuple(getattr(procedure, "action_cards", ()))
        #: after :meth:`encode_all` of a state where the players pick: (that state, the
        #: numbers its vectors were gathered from, the players who may take extra
        #: cards), else None (:meth:`pick_masks`)
        self.picks: tuple[State, np.ndarray, list[int]] | None = None
        #: where the counts end and the other numbers begin, and where those end
        self._counted = S * 3 * K
        self._tail = self._counted + S * (2 + R)
        #: the index of every vector but the hands it shows (the same at every moment)
        self._template = self._public_index() if self.all_at_once else self.gather
        #: per player and action, where :meth:`pick_masks` reads: a pick of one card (an
        #: action below K, the card's type) at the player's count of that type in hand,
        #: every other action at the 0
        n = game.num_distinct_actions
        self._pick_index = np.full((game.num_players, n), self._tail, dtype=np.intp)
        self._pick_index[:, : min(K, n)] = (
            np.arange(game.num_players)[:, None] * 3 * K + 2 * K + np.arange(min(K, n))[None, :]
        )

    def pick_masks(self, every: np.ndarray) -> np.ndarray:
        """Every player's mask of the picks of one card, from the numbers ``every`` of
        :attr:`picks` (int8, 1 where the hand holds a card of that type): one gather."""
        return every[self._pick_index].astype(bool).view(_INT8)

    def _public_index(self) -> np.ndarray:
        """:attr:`gather` for the numbers :meth:`encode_all` makes (see :meth:`_index`),
        the hands left at the 0."""
        K, C, R = self.K, self.columns, self.R
        counted, zero = self._counted, self._tail
        source = self.gather[:, self.dest]
        row, column = source // C, source % C
        public = np.where(column < 2 * K, row * 3 * K + column, counted + row * (2 + R) + column - 2 * K)
        index = np.full((self.game.num_players, self.size), zero, dtype=np.intp)
        index[:, self.dest] = public
        index[:, self.at["round"]] = zero + 1
        index[:, self.at["turn"]] = zero + 2
        return index

    def _index(self, state: State) -> np.ndarray:
        """The gather index of every player's vector at this round and turn, into the
        numbers :meth:`encode_all` makes: per seat its table, kept cards and hand by
        type (``seat * 3K + part * K + type``), then per seat its hand size, score and
        each round's points, then ``0, round, turn, 1``."""
        key = (state.round, state.turn)
        index = self._indices.get(key)
        if index is not None:
            return index
        K, at = self.K, self.at
        one = self._tail + 3
        index = self._template.copy()
        procedure = self.game.procedure
        types = np.arange(K)
        for p in range(self.game.num_players):
            index[p, at["hand"] : at["hand"] + K] = p * 3 * K + 2 * K + types
            for other in procedure.known_hands(state, p):
                if other == p:
                    continue
                r = int(self.position[p, other])
                start = at["known_hands"] + (r - 1) * K
                index[p, start : start + K] = other * 3 * K + 2 * K + types
                index[p, at["known"] + r - 1] = one
        self._indices[key] = index
        return index

    def encode_all(self, state: State) -> np.ndarray:
        """Every player's vector at ``state`` (``encode(state, range(players))``), without
        a view object per seat where the procedure allows (:attr:`all_at_once`)."""
        book = state.book
        if not self.all_at_once or (book is not None and any(book.known_in_hand)):
            # cards every seat saw go into a hand (State.known_cards): each view says whose
            return self.encode(state, self.everyone)
        K, S, R = self.K, self.S, self.R
        hands = state.hands
        # each seat's score and points per round: they change only when a round or the
        # game is scored (the engine appends to ``round_scores`` and replaces
        # ``game_end_scores``), so they are made again only then
        scored = self._scored
        scores_by_round = state.round_scores
        if (
            scored is None
            or scored[0] is not scores_by_round
            or scored[1] != len(scores_by_round)
            or scored[2] is not state.game_end_scores
        ):
            scores = state.totals()
            later = (0,) * (R - len(scores_by_round))
            by_round = list(zip(*scores_by_round)) if scores_by_round else [()] * S
            tails = [(scores[s], *by_round[s], *later) for s in range(S)]
            scored = self._scored = (scores_by_round, len(scores_by_round), state.game_end_scores, tails)
        tails = scored[3]
        # per seat its table, kept cards and hand by type, then per seat its hand size,
        # score and points per round, then 0, round, turn, 1: one list
        counts, kept_counts = state.counts, state.kept_counts
        action_cards = self._action_cards
        blob: list[int] = []
        numbers: list[int] = []
        for s in range(S):
            hand = hands[s]
            by_type = [0] * K
            for c in hand:
                by_type[c] += 1
            blob += counts[s]
            blob += kept_counts[s]
            blob += by_type
            numbers.append(len(hand))
            numbers += tails[s]
        numbers += (0, state.round + 1, state.turn + 1, 1)
        blob += numbers
        # every number as one byte when all fit (one conversion, quicker to a bytearray
        # than to bytes, and the gather moves bytes), else as 64-bit integers: a count
        # of 256 or more, a score out of 0..255
        every: np.ndarray
        try:
            every = np.frombuffer(bytearray(blob), dtype=_UINT8)
        except ValueError:
            every = np.array(blob, dtype=np.int64)
        index = self._indices.get((state.round, state.turn))
        out = every[self._index(state) if index is None else index].astype(_FLOAT32)
        at = self.at
        if 0 <= state.controller < S:
            out[state.controller, at["controls_dummy"]] = 1.0
        pending = state.pending
        self.picks = None
        if pending is None:
            if not state.finished:
                extra = []
                for seat in self.everyone if action_cards else ():
                    row = counts[seat]
                    for c in action_cards:  # no card of a special action on its table: none to use
                        if row[c]:
                            if state.can_use_action(seat):
                                out[seat, at["can_use_action"]] = 1.0
                                extra.append(seat)
                            break
                # the picks: a seat without extra cards may take one card of any type in its hand
                self.picks = (state, every, extra)
        else:
            seat = pending.seat
            row = out[seat]
            row[at["deciding"]] = 1.0
            row[at["decision_card"] + pending.card] += 1.0
            for c in pending.shown:
                row[at["decision_shown"] + c] += 1.0
            if 0 <= pending.owner < S:
                row[at["decision_owner"] + int(self.position[seat, pending.owner])] += 1.0
        return out

    def encode(self, state: State, seats: Sequence[int]) -> np.ndarray:
        """The vectors of ``seats`` (players) at ``state``: a (len(seats), size) float32 matrix."""
        seats = list(seats)
        if not self.bulk:
            enc = self.encoder
            return np.array([enc.encode(state.observation(s)) for s in seats], dtype=np.float32).reshape(
                len(seats), self.size
            )
        views = seat_views(state, seats)
        n, K, S, at, size = len(seats), self.K, self.S, self.at, self.size
        if not n:
            return np.zeros((0, size), dtype=np.float32)
        public = views[0]
        # one conversion of one plain list: faster than filling the parts one by one
        later = [0] * (self.R - len(public.round_scores))
        by_round = list(zip(*public.round_scores)) if public.round_scores else [()] * S
        flat_rows: list[int] = []
        for s in range(S):
            flat_rows += public.tables[s]
            flat_rows += public.kept[s]
            flat_rows.append(public.hand_sizes[s])
            flat_rows.append(public.scores[s])
            flat_rows += by_round[s]
            flat_rows += later
        flat_rows += (0, public.round + 1, public.turn + 1)
        rows = np.array(flat_rows, dtype=np.float32)
        out = rows[self.gather if seats == self.everyone else self.gather[seats]]
        # each seat's own part: one list of flat positions, counted once
        flat: list[int] = []
        position = self.position
        for i, view in enumerate(views):
            row = i * size
            base = row + at["hand"]
            flat += [base + c for c in view.hand]
            rel = position[view.seat]
            for other, cards in view.known_hands.items():
                r = int(rel[other])  # 1..S-1
                base = row + at["known_hands"] + (r - 1) * K
                flat += [base + c for c in cards]
                flat.append(row + at["known"] + r - 1)
            if view.controls_dummy:
                flat.append(row + at["controls_dummy"])
            if view.can_use_action:
                flat.append(row + at["can_use_action"])
            pending = view.pending
            if pending is not None:
                flat += [row + at["deciding"], row + at["decision_card"] + pending.card]
                base = row + at["decision_shown"]
                flat += [base + c for c in pending.shown]
                if 0 <= pending.owner < S:
                    flat.append(row + at["decision_owner"] + int(rel[pending.owner]))
        if flat:
            out += np.bincount(flat, minlength=n * size).reshape(n, size)
        return out


def _score_bound(game: Game) -> float:
    """The most points a seat can have in absolute value: each rule's points per round
    are bounded by the language (``ExpressionLimits.max_value``)."""
    rules = game.ruleset
    scorings = len(rules.round_rules) * rules.rounds + len(rules.game_rules)
    return float(max(1, scorings) * ExpressionLimits.max_value)


class _Table:
    """What both environments share: the game, its spaces, the state, seeds, masks."""

    def __init__(
        self,
        ruleset: str | os.PathLike[str] | CompiledRuleset | Game,
        players: int | None,
        reward: str,
        illegal_reward: float | None,
        per_round: bool = False,
    ) -> None:
        if reward not in REWARDS:
            raise ArgumentError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
        self.game = game = game_of(ruleset, players)
        self.reward = reward
        self.per_round = per_round
        self.illegal_reward = illegal_reward
        self.encoder = enc = encoder_for(game)
        self.bulk = BulkEncoder(game, enc)
        self.agents = [f"player_{i}" for i in range(game.num_players)]
        self.seat_of = {a: i for i, a in enumerate(self.agents)}
        bound = _score_bound(game)
        low = np.array([-bound if x is None else x for f in enc.fields for x in f.low], dtype=np.float32)
        high = np.array([bound if x is None else x for f in enc.fields for x in f.high], dtype=np.float32)
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
        K, S = game.num_card_types, game.num_seats
        copies = np.array([c.count for c in game.ruleset.catalogue.cards], dtype=np.float32)
        #: the global state (``state()``): seat 0's observation, then every seat's hand by type
        self.state_space = spaces.Box(
            low=np.concatenate([low, np.zeros(S * K, dtype=np.float32)]),
            high=np.concatenate([high, np.tile(copies, S)]),
            dtype=np.float32,
        )
        self.state: State = game.new_initial_state(0)
        self.seed: int = 0
        self._stream: tuple[int, int] | None = None
        #: the game has ended (played to the end, or by an illegal action)
        self.over = False
        #: every player's observation vector at the state as it is (None: not made yet)
        self._vectors: np.ndarray | None = None
        self._masks: np.ndarray | None = None
        self._legal: dict[int, list[int]] | None = None
        #: the rewards so far (per-round rewards are their changes)
        self.so_far = [0.0] * game.num_players

    def new_game(self, seed: int | None) -> None:
        """Start a game: ``seed`` itself, or the next of the stream."""
        self.seed = self._game_seed(seed)
        self.state = self.game.new_initial_state(self.seed)
        self._fresh()

    def _game_seed(self, seed: int | None) -> int:
        """The seed of the next game: ``seed`` itself, or the next of the stream."""
        if seed is not None:
            game_seed = env_seed(seed)  # a NumPy integer too
            self._stream = (game_seed, 0)
            return game_seed
        if self._stream is None:
            self._stream = (random.SystemRandom().randrange(MAX_SEED + 1), 0)
        base, count = self._stream
        self._stream = (base, count + 1)
        return derive_seed(base, count + 1) >> 11

    def _fresh(self) -> None:
        """Nothing known of the new game yet: not over, nothing encoded, no reward so far."""
        self.over = False
        self._vectors = self._masks = self._legal = None
        self.so_far = [0.0] * self.game.num_players

    def acting_seats(self) -> Sequence[int]:
        """The seats that act now."""
        return self.state.acting_seats()

    @property
    def finished(self) -> bool:
        """The game has been played to its end."""
        return self.state.finished

    def vectors(self) -> np.ndarray:
        """Every player's observation vector now (a new matrix after each move: rows
        handed out earlier keep their values)."""
        if self._vectors is None:
            self._vectors = self.bulk.encode_all(self.state)
        return self._vectors

    def legal(self) -> dict[int, list[int]]:
        """The legal actions of each acting seat now, asked of the engine once per move
        (the masks and the check of the actions sent both read them)."""
        if self._legal is None:
            state = self.state
            self._legal = {} if state.finished else {s: state.legal_actions(s) for s in state.acting_seats()}
        return self._legal

    def masks(self) -> np.ndarray:
        """Every player's action mask now (a new matrix after each move)."""
        masks = self._masks
        if masks is None:
            picks = None
            if not self.over:
                self.vectors()
                picks = self.bulk.picks
            if picks is not None and picks[0] is self.state:
                # a pick of one card is the card's type: legal where the hand holds one
                _, every, extra = picks
                masks = self.bulk.pick_masks(every)
                for seat in extra:  # one or more extra cards: the engine's list
                    masks[seat, self.state.legal_actions(seat)] = 1
            else:
                n = self.game.num_distinct_actions
                masks = np.zeros((self.game.num_players, n), dtype=np.int8)
                if not self.over:
                    at = [seat * n + a for seat, legal in self.legal().items() for a in legal]
                    masks.put(at, 1)
            self._masks = masks
        return masks

    def observe(self, seat: int) -> dict[str, np.ndarray]:
        return {"observation": self.vectors()[seat], "action_mask": self.masks()[seat]}

    def seat(self, agent: Any) -> int:
        """The seat of ``agent`` (``player_2``); :class:`ArgumentError` for a name that is none."""
        seat = self.seat_of.get(agent) if isinstance(agent, str) else None
        if seat is None:
            raise self.no_agent([agent])
        return seat

    def no_agent(self, names: Sequence[Any]) -> ArgumentError:
        return ArgumentError(f"no agent {', '.join(map(repr, names))}: the agents are {', '.join(self.agents)}")

    def observations(self, agents: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
        """The observations of ``agents`` (rows of one matrix of vectors and one of masks)."""
        vectors, masks = self.vectors(), self.masks()
        if agents == self.agents:  # every player (the rows in seat order)
            return {a: {"observation": v, "action_mask": m} for a, v, m in zip(self.agents, vectors, masks)}
        seat_of = self.seat_of
        return {a: {"observation": vectors[seat_of[a]], "action_mask": masks[seat_of[a]]} for a in agents}

    def global_state(self) -> np.ndarray:
        """Seat 0's observation, then every seat's hand by type (hidden information:
        for a centralized critic, never for a player's policy)."""
        hands = np.zeros((self.game.num_seats, self.game.num_card_types), dtype=np.float32)
        for s, hand in enumerate(self.state.hands):
            np.add.at(hands[s], hand, 1.0)
        return np.concatenate([self.vectors()[0], hands.ravel()])

    def action(self, agent: str, action: Any) -> int | None:
        """``action`` as an engine action, or None if it is illegal and the game ends
        for it (``illegal_reward``)."""
        seat = self.seat_of[agent]
        a = as_action(action)  # an integer-like value; a float, a bool or a string is no action
        if type(a) is not int:
            raise ArgumentError(f"{agent}: an action is a whole number (of the action space), not {action!r}")
        legal = self.legal()
        if a in (legal[seat] if seat in legal else self.state.legal_actions(seat)):
            return a
        if self.illegal_reward is not None:
            return None
        raise IllegalMoveError(f"{agent}: action {action!r} is not legal now (seed {self.seed})")

    def play_in_order(self, chosen: list[int]) -> None:
        """Apply the joint move: ``chosen`` has the acting seats' actions in seat order."""
        self._vectors = self._masks = self._legal = None
        self.state.apply_actions(chosen)

    def play(self, chosen: Mapping[int, int]) -> None:
        """Apply the joint move: ``chosen`` has one action per acting seat."""
        state = self.state
        self._vectors = self._masks = self._legal = None
        # a seat that does not act now sends nothing: the engine takes one action per acting seat
        state.apply_actions([chosen[s] for s in state.acting_seats()])

    def final_rewards(self) -> list[float]:
        self.over = True
        self._masks = None
        final = rewards(self.state, self.reward)
        if self.per_round:
            return [f - before for f, before in zip(final, self.so_far)]
        return final

    def round_rewards(self) -> list[float]:
        """With ``per_round``, what each player's reward so far changed by in the last
        move (a round's points when it ends); else zeros."""
        players = self.game.num_players
        if not self.per_round:
            return [0.0] * players
        now = reward_so_far(self.state, self.reward)
        change = [n - b for n, b in zip(now, self.so_far)]
        self.so_far = now
        return change

    def illegal(self, seat: int) -> list[float]:
        """The rewards when ``seat``'s illegal action ends the game."""
        self.over = True
        self._masks = None
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


class _KernelTable(_Table):
    """A :class:`_Table` whose game is played and encoded by the ruleset's compiled kernel
    (``kernel.batch``, one game): the same observations, masks and rewards for the same
    seeds and actions. The engine state (:attr:`state`: ``engine_state``, ``render``) is
    made on demand by the reference engine replaying the game's moves."""

    def __init__(self, batch: Batch, at: np.ndarray, *args: Any) -> None:
        self._moves: list[list[int]] = []
        self._replayed: tuple[int, int, State] | None = None
        super().__init__(*args)
        self._batch = batch
        self._at = at
        players = self.game.num_players
        self._order = np.array([self.encoder.layout.relative_seats(s) for s in range(players)], np.int64)
        self._first = np.zeros(1, np.int64)  # the one game's place in the batch
        self._obs = np.zeros((1, players, self.encoder.size), np.float32)
        self._mask_room = np.zeros((1, players, self.game.num_distinct_actions), np.int8)
        self._everyone = list(range(players))
        self._sent = np.zeros((1, players), np.int64)

    @property
    def state(self) -> State:
        """The game as the reference engine has it: its moves replayed from the seed."""
        known = self._replayed
        if known is not None and known[0] == self.seed and known[1] == len(self._moves):
            return known[2]
        state = self.game.new_initial_state(self.seed)
        for joint in self._moves:
            state.apply_actions(joint)
        self._replayed = (self.seed, len(self._moves), state)
        return state

    @state.setter
    def state(self, value: State) -> None:
        """The base class sets a state: this table makes its own from the moves."""

    def new_game(self, seed: int | None) -> None:
        self.seed = self._game_seed(seed)  # a seed of the stream is below 2**53
        self._moves = []
        self._replayed = None
        self._batch.new(self._first, np.array([self.seed], np.uint64))
        self._fresh()

    def acting_seats(self) -> Sequence[int]:
        return [] if self.finished else self._everyone

    @property
    def finished(self) -> bool:
        return bool(self._batch.arrays[0][0, 4])

    def _encode(self) -> None:
        self._batch.encode(self._first, self._at, self._order, self._obs, self._mask_room)
        self._vectors = self._obs[0].copy()
        self._masks = self._mask_room[0].copy()

    def vectors(self) -> np.ndarray:
        if self._vectors is None:
            self._encode()
        return self._vectors  # type: ignore[return-value]

    def masks(self) -> np.ndarray:
        if self._masks is None:
            self._encode()
        if self.over and self._masks.any():  # type: ignore[union-attr]  # an illegal action ended the game
            self._masks = np.zeros_like(self._masks)
        return self._masks  # type: ignore[return-value]

    def legal(self) -> dict[int, list[int]]:
        if self._legal is None:
            masks = self.masks()
            self._legal = {s: np.flatnonzero(masks[s]).tolist() for s in self.acting_seats()}
        return self._legal

    def play_in_order(self, chosen: list[int]) -> None:
        self._vectors = self._masks = self._legal = None
        sent = self._sent
        sent[0] = chosen
        if self._batch.step(sent) >= 0:
            seat = -1 - int(self._batch.status[0])
            raise IllegalMoveError(f"{self.agents[seat]}: action {chosen[seat]} is not legal now (seed {self.seed})")
        self._moves.append(list(chosen))

    def play(self, chosen: Mapping[int, int]) -> None:
        self.play_in_order([chosen[s] for s in self.acting_seats()])

    def play_against_bots(self, seat: int, action: int, bots: np.ndarray, values: np.ndarray) -> None:
        """Play ``seat``'s ``action`` (legal) with the kernel's bots' moves at the other seats
        (``bots``: a code of ``kernel.BOTS`` per seat, -1 at ``seat``; ``values``: the value
        bot's; the streams seeded by :meth:`seed_bots`)."""
        sent = self._sent
        sent[0, seat] = action
        self._batch.bots_act(bots, values, sent)
        self.play_in_order(sent[0].tolist())

    def seed_bots(self, bots: np.ndarray) -> None:
        """Seed the bots' streams for the game just begun (as the reference's bots are seeded)."""
        self._batch.seed_bots(self._first, bots)

    def _rewards_now(self, over: bool) -> list[float]:
        return self._batch.rewards(self._first, self.reward, over)[0].tolist()

    def final_rewards(self) -> list[float]:
        self.over = True
        self._masks = None
        final = self._rewards_now(over=True)
        if self.per_round:
            return [f - before for f, before in zip(final, self.so_far)]
        return final

    def round_rewards(self) -> list[float]:
        if not self.per_round:
            return [0.0] * self.game.num_players
        now = self._rewards_now(over=False)
        change = [n - b for n, b in zip(now, self.so_far)]
        self.so_far = now
        return change

    def global_state(self) -> np.ndarray:
        batch = self._batch
        K = self.game.num_card_types
        hands = np.zeros((self.game.num_seats, K), np.float32)
        for s in range(self.game.num_seats):
            np.add.at(hands[s], batch.hand(0, s), 1.0)
        return np.concatenate([self.vectors()[0], hands.ravel()])


def _bots_refusal(ruleset: CompiledRuleset, bots: Sequence[str]) -> str | None:
    """Why the kernel's batch cannot play these opponents (None: it can)."""
    for name in bots:
        reason = bot_refusal(name)
        if reason is None and name.split(":")[0] not in KERNEL_OPPONENTS:
            reason = f"the bot '{name}' is not one the environment plays on the kernel ({', '.join(KERNEL_OPPONENTS)})"
        if reason is not None:
            return reason
    return bots_refusal(ruleset, bots)


def _kernel_ready(ruleset: CompiledRuleset, planner: bool) -> bool:
    """Whether the ruleset's batch functions (``planner``: the batch's planner too), all
    the environment plays of its kernel, are in the cache; if not, a process of its own starts compiling them for
    later environments (unless ``RULEDRAFT_BACKGROUND_COMPILE=0``), as ``--engine auto``
    does for a run."""
    parts = ("batch_step", "batch_bots_planner") if planner else ("batch_step",)
    if all(is_cached(ruleset, part) for part in parts):
        return True
    if os.environ.get(BACKGROUND_COMPILE, "1") != "0":
        start_compiling(ruleset, batch_planner=planner)
    return False


def _table(
    ruleset: str | os.PathLike[str] | CompiledRuleset | Game,
    players: int | None,
    reward: str,
    illegal_reward: float | None,
    per_round: bool,
    engine: str,
    bots: Sequence[str] = (),
) -> _Table:
    """The table of an environment: on the ruleset's kernel (``engine="kernel"``, compiled
    first if it is not in the cache; ``"auto"`` where the kernel holds the game and is in
    the cache), else on the reference engine. Both give the same observations, masks and
    rewards for the same seeds and actions."""
    if engine not in ENGINES:
        raise ArgumentError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    per_round = truth_value(per_round, "per_round")
    illegal_reward = None if illegal_reward is None else finite_number(illegal_reward, "illegal_reward")
    game = game_of(ruleset, players)
    args = (game, None, reward, illegal_reward, per_round)
    if engine == "reference":
        return _Table(*args)
    reason = batch_refusal(game.ruleset) or _bots_refusal(game.ruleset, bots)
    at = encoder_offsets(encoder_for(game))
    planner = plans(bots)
    if engine == "auto" and reason is None and at is not None and not _kernel_ready(game.ruleset, planner):
        return _Table(*args)
    if reason is None and at is None:
        reason = "an encoder of its own"
    kernel = compile_kernel(game.ruleset, game.num_players, apart=True, loop=False) if reason is None else None
    if isinstance(kernel, Unsupported):
        reason = kernel.reason
    if kernel is None or isinstance(kernel, Unsupported) or at is None:
        if engine == "kernel":
            raise InputError(f"{game.ruleset.name} cannot be played on the kernel: {reason}")
        return _Table(*args)
    ready_apart(kernel.path, "batch_step")
    if planner:  # its look-ahead, compiled apart when first wanted
        ready_apart(kernel.path, "batch_bots_planner")
    return _KernelTable(Batch(kernel.module, game.num_players, 1), at, *args)


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
        per_round: bool = False,
        engine: str = "auto",
    ) -> None:
        """Take a table (the constructors' common part)."""
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ArgumentError(f"render_mode must be one of {', '.join(RENDER_MODES)}, not {render_mode!r}")
        self._table = _table(ruleset, players, reward, illegal_reward, per_round, engine)
        #: the engine that plays the games: ``kernel`` or ``reference``
        self.engine = "kernel" if isinstance(self._table, _KernelTable) else "reference"
        self.state_space = self._table.state_space
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

    def state(self) -> np.ndarray:
        """The global state (``state_space``): seat 0's observation vector, then every
        seat's hand by type. It holds what the players cannot see: for a centralized
        critic in training, never as a player's observation."""
        return self._table.global_state()

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
        per_round: bool = False,
        engine: str = "auto",
    ) -> None:
        super().__init__()
        self._seat(ruleset, players, reward, illegal_reward, render_mode, per_round, engine)
        # every agent steps once a cycle, what PettingZoo's aec_to_parallel needs, unless card
        # effects ask one seat for a decision the others wait on
        self.metadata = {**type(self).metadata, "is_parallelizable": not self.game.effects}
        self._chosen: dict[int, int] = {}
        self.reset()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        return self._table.observe(self._table.seat(agent))

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
        for s in self._table.acting_seats():
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
            if all(s in self._chosen for s in table.acting_seats()):
                table.play(self._chosen)
                self._chosen = {}
                if table.finished:
                    self._finish(table.final_rewards())
                else:
                    for s, r in enumerate(table.round_rewards()):
                        self.rewards[self.possible_agents[s]] = r
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
        per_round: bool = False,
        engine: str = "auto",
    ) -> None:
        self._seat(ruleset, players, reward, illegal_reward, render_mode, per_round, engine)
        self.agents = self.possible_agents[:]
        self._dealt = False  # no game until reset()

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return self._table.observations(self.agents)

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        self._table.new_game(seed)
        self._dealt = True
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
        if not self._dealt:
            raise IllegalMoveError("no game is dealt yet: reset() first")
        if not self.agents:
            raise IllegalMoveError(f"the game is over (seed {table.seed}): reset() starts another")
        unknown = [a for a in actions if a not in table.seat_of]
        if unknown:  # a misspelt name would otherwise go unnoticed
            raise table.no_agent(unknown)
        live = self.agents[:]
        final: list[float] | None = None
        chosen: list[int] = []
        names = self.possible_agents
        masks = table.masks()
        n = masks.shape[1]
        for s in table.acting_seats():
            agent = names[s]
            try:
                sent = actions[agent]
            except KeyError:
                raise IllegalMoveError(f"{agent} acts now but sent no action (seed {table.seed})") from None
            if type(sent) is not int or not 0 <= sent < n or not masks[s, sent]:  # converted and checked
                sent = table.action(agent, sent)
                if sent is None:
                    final = table.illegal(s)
                    break
            chosen.append(sent)
        done = final is not None
        if final is None:
            table.play_in_order(chosen)
            if table.finished:
                final = table.final_rewards()
                done = True
            else:
                final = table.round_rewards()
        observations = table.observations(live)
        if live == names:
            rewards_now = dict(zip(live, final))
        else:
            seat_of = table.seat_of
            rewards_now = {a: final[seat_of[a]] for a in live}
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


def _kernel_bots(game: Game, seat: int, opponents: Mapping[int, str]) -> tuple[np.ndarray, np.ndarray]:
    """The kernel's codes of the opponents (-1 at the learner's ``seat``) and the values
    its bots read: the value bot's card values, then the planner's count values and
    each seat's samples if one plays the planner (as ``Kernel.play`` lays them out)."""
    specs = {s: parse_kernel_bot(name) for s, name in opponents.items()}
    codes = np.array([-1 if s == seat else BOTS[specs[s][0]] for s in range(game.num_players)], np.int64)
    values = np.asarray(default_card_values(game), np.float64)
    if any(head == "planner" for head, _ in specs.values()):
        samples = [float(specs[s][1]) if s in specs else 1.0 for s in range(game.num_players)]
        counts = np.asarray(count_values(game), np.float64).ravel()
        values = np.concatenate([values, counts, samples])
    return codes, values


class DraftGymEnv(gymnasium.Env):
    """A gymnasium environment: one learner at ``seat``, bots in the other seats.

    ``opponents`` is a bot name or spec (``"planner"``, ``"greedy"``,
    ``"ismcts:iterations=200"``) for every other player, or one per other player in
    seat order. Observation and action spaces are the learner's in the PettingZoo
    environments (a dict of ``observation`` and ``action_mask``; ``Discrete``). A step
    is the learner's move: the bots choose theirs for the same turn (each from its
    own copy of the game), and any decision a card effect then asks of a bot alone is
    made before the step returns, so every observation asks the learner to act.
    Rewards as in the PettingZoo environments (``reward``, ``per_round``). An illegal
    action ends the episode with ``illegal_reward`` (default -1; ``None`` raises
    :class:`~ruledraft.errors.IllegalMoveError`). The ``info`` of the step that ends a
    game holds its ``seed`` (to play it again); no earlier one does, since the seed
    deals every card the learner cannot see.
    ``engine`` as the PettingZoo environments': on the kernel the opponents random,
    first, greedy, value and planner choose in compiled code, the same moves as on
    the reference engine.
    """

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES)}

    def __init__(
        self,
        ruleset: str | os.PathLike[str] | CompiledRuleset | Game = "sushi-go",
        players: int | None = None,
        *,
        seat: int = 0,
        opponents: str | Sequence[str] = "random",
        reward: str = "points",
        per_round: bool = False,
        illegal_reward: float | None = -1.0,
        render_mode: str | None = None,
        engine: str = "auto",
    ) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ArgumentError(f"render_mode must be one of {', '.join(RENDER_MODES)}, not {render_mode!r}")
        if engine not in ENGINES:
            raise ArgumentError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
        game = game_of(ruleset, players)
        seat = whole_number(seat, "seat")
        if not 0 <= seat < game.num_players:
            raise ArgumentError(f"seat must be from 0 to {game.num_players - 1}, not {seat}")
        self.seat = seat
        others = [s for s in range(game.num_players) if s != seat]
        if not isinstance(opponents, str) and not (
            isinstance(opponents, Sequence) and all(isinstance(o, str) for o in opponents)
        ):
            raise ArgumentError(f"opponents are a bot's name or a list of names, not {opponents!r}")
        names = [opponents] * len(others) if isinstance(opponents, str) else list(opponents)
        if len(names) != len(others):
            raise ArgumentError(f"{len(names)} opponents for {len(others)} other players")
        for name in names:
            try:
                make_agent(name, 0)
            except KeyError:
                raise ArgumentError(f"no bot called {name!r}") from None
        ready_searches(game.ruleset, game.num_players, names, game=game)  # not in the first step
        self._table = table = _table(game, None, reward, illegal_reward, per_round, engine, names)
        #: the engine that plays the games (and the opponents' moves): ``kernel`` or ``reference``
        self.engine = "kernel" if isinstance(table, _KernelTable) else "reference"
        self.game = game
        self.opponents = dict(zip(others, names))
        self._bots: dict[int, Agent] = {}
        #: on the kernel, each seat's bot (a code of ``kernel.BOTS``; -1 the learner) and what its bots read
        self._codes: np.ndarray | None = None
        self._values: np.ndarray | None = None
        if self.engine == "kernel":
            self._codes, self._values = _kernel_bots(game, seat, self.opponents)
        self.agent = table.agents[seat]
        self.observation_space = table.observation_spaces[self.agent]
        self.action_space = table.action_spaces[self.agent]
        self.render_mode = render_mode
        self._gained = 0.0
        self._dealt = False  # no game until reset()

    def _observe(self) -> dict[str, np.ndarray]:
        """The learner's observation: new arrays every time (callers keep them)."""
        return {k: v.copy() for k, v in self._table.observe(self.seat).items()}

    @property
    def engine_state(self) -> State:
        """The engine state of the game being played."""
        return self._table.state

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        if seed is not None:
            seed = env_seed(seed)  # before gymnasium's own words for it
        super().reset(seed=seed)
        table = self._table
        table.new_game(seed)
        if (
            isinstance(table, _KernelTable) and self._codes is not None
        ):  # the kernel's bots, seeded as the reference's below
            table.seed_bots(self._codes)
        else:
            self._bots = {
                s: make_agent(name, derive_seed(table.seed, 5, s) >> 11) for s, name in self.opponents.items()
            }
        self._gained = 0.0
        self._dealt = True
        self._bots_move()
        return self._observe(), {}

    def _bots_move(self) -> None:
        """Play the moves in which only bots act (decisions asked of them alone)."""
        table = self._table
        while not table.finished and self.seat not in table.acting_seats():
            state = table.state
            table.play({s: self._bots[s].act(_bot_sees(state, s), s) for s in state.acting_seats()})
            self._gained += table.final_rewards()[self.seat] if table.finished else table.round_rewards()[self.seat]

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        table = self._table
        if not self._dealt:
            raise IllegalMoveError("no game is dealt yet: reset() first")
        if table.over:
            raise IllegalMoveError(f"the game is over (seed {table.seed}): reset() starts another")
        a = table.action(self.agent, action)
        if a is None:
            gained = table.illegal(self.seat)[self.seat]
            return self._observe(), gained, True, False, {"seed": table.seed}  # the game ends
        if isinstance(table, _KernelTable):
            assert self._codes is not None and self._values is not None
            table.play_against_bots(self.seat, a, self._codes, self._values)
        else:
            state = table.state
            chosen = {self.seat: a}
            for s in state.acting_seats():
                if s != self.seat:
                    chosen[s] = self._bots[s].act(_bot_sees(state, s), s)
            table.play(chosen)
        self._gained = table.final_rewards()[self.seat] if table.finished else table.round_rewards()[self.seat]
        self._bots_move()
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._gained, table.finished, False, {"seed": table.seed} if table.finished else {}

    def render(self) -> str | None:
        text = self._table.render()
        if self.render_mode == "human":
            print(text)
            return None
        return text


def single_agent_env(*args: Any, **kwargs: Any) -> DraftGymEnv:
    """The gymnasium environment with bot opponents (``DraftGymEnv(...)``; also
    ``gymnasium.make("ruledraft/Draft-v0", ...)``)."""
    return DraftGymEnv(*args, **kwargs)


if "ruledraft/Draft-v0" not in gymnasium.registry:
    gymnasium.register(id="ruledraft/Draft-v0", entry_point="ruledraft.rl:DraftGymEnv")
