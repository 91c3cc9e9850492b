"""Many games of one kernel stepped together by moves sent from outside: the engine of the
batch environment (``ruledraft.batch_env``). The games' states live in arrays with the
game first (:class:`Batch`); the kernel's ``batch_new``, ``batch_step`` and
``batch_encode`` (``batch.tmpl``) start games, play a turn of every game and encode
every player's observation vector and action mask, each in one call.

A game holds what the ismcts roll-out holds: no card effects, no race, no dummy
(:func:`batch_refusal`).
"""

from __future__ import annotations

import copy
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from ruledraft.engine.encoding import FIELDS as STANDARD_FIELDS

if TYPE_CHECKING:
    from ruledraft.engine.encoding import Encoder
    from ruledraft.language.ruleset import CompiledRuleset

__all__ = ["FIELDS", "MAX_KERNEL_SEED", "Batch", "batch_refusal", "encoder_offsets", "warm_batch", "warm_batch_planner"]

#: the planner's code among the bots (``kernel.BOTS``)
BOT_PLANNER = 4
#: the largest game seed the kernel holds (its seeds are 64-bit words, as the ismcts roll-out's)
MAX_KERNEL_SEED = 2**63 - 1
#: what ``batch_step`` reports of a game
TURN, ROUND_END, GAME_END, OVER = 0, 1, 2, 3
#: the Encoder's fields that stay 0 in the games the kernel holds (a dummy, a decision)
ZERO_FIELDS = ("controls_dummy", "deciding", "decision_card", "decision_shown", "decision_owner")
#: the Encoder's other standard fields, which ``batch_encode`` fills, in the order it takes their offsets
FIELDS = tuple(spec.name for spec in STANDARD_FIELDS if spec.name not in ZERO_FIELDS)


def encoder_offsets(enc: Encoder) -> np.ndarray | None:
    """The offsets of :data:`FIELDS` in the encoder's vector, or None if it has other
    fields (an encoder of its own: ``batch_encode`` cannot write it)."""
    at = {f.name: f.offset for f in enc.fields}
    if tuple(at) != tuple(spec.name for spec in STANDARD_FIELDS):
        return None
    return np.array([at[name] for name in FIELDS], np.int64)


def batch_refusal(ruleset: CompiledRuleset) -> str | None:
    """Why the kernel's batch functions cannot step games of ``ruleset`` (None: they can,
    if it has a kernel), found without compiling."""
    if ruleset.effects:
        return "it has card effects"
    if any(rule.turn_scoring is not None for rule in ruleset.round_rules):
        return "it has a race"
    if ruleset.dummy is not None:
        return "it has a dummy"
    return None


class Batch:
    """``games`` games of a kernel module at ``seats`` seats, stepped together."""

    def __init__(self, module: ModuleType, seats: int, games: int) -> None:
        self.module = module
        self.seats = N = seats
        self.games = G = games
        K, R = int(module.K), int(module.R)
        H = int(module.HS[N])
        z = np.zeros
        families = max(int(module.NADD), 1)
        #: every game's state, in the order the kernel's functions take it (batch.tmpl)
        self.arrays: tuple[np.ndarray, ...] = (
            z((G, 5), np.int64),  # gi: round, turn, place in the deck, cards in the deck, over
            z(G, np.uint64),  # seeds
            z((G, N, H + 1), np.int64),  # hand
            z((G, N), np.int64),  # hl
            z((G, N), np.int64),  # slot
            z((G, N, K), np.int64),  # counts
            z((G, N, H + 2), np.int64),  # seq
            z((G, N), np.int64),  # lens
            z((G, N, K), np.int64),  # kcounts
            z((G, N, R * H + 2), np.int64),  # kseq
            z((G, N), np.int64),  # klens
            z((G, int(module.DT)), np.int64),  # deck
            z((G, families, max(len(module.RES), 1)), np.int64),  # reserve
            z((G, families), np.int64),  # rpos
            z((G, R, N), np.int64),  # rsc: each round's points
            z((G, N), np.int64),  # gsc: the game end's
            z((G, N), np.int64),  # wins
        )
        self.status = z(G, np.int64)
        #: the bots' random streams, a column per game and seat (:meth:`seed_bots`)
        self._streams: np.ndarray | None = None

    def __deepcopy__(self, memo: dict[int, object]) -> Batch:
        """A copy of every game's state and the bots' streams; the compiled module is shared."""
        twin = copy.copy(self)
        memo[id(self)] = twin
        twin.arrays = tuple(a.copy() for a in self.arrays)
        twin.status = self.status.copy()
        streams = self._streams
        twin._streams = None if streams is None else streams.copy()  # noqa: SLF001 - the twin is a Batch
        return twin

    @property
    def round_points(self) -> np.ndarray:
        """``[game, round, seat]``: each round's points (0 for rounds not scored yet)."""
        return self.arrays[14]

    @property
    def totals(self) -> np.ndarray:
        """``[game, seat]``: the points so far (rounds scored, and the game end's)."""
        points: np.ndarray = self.arrays[14].sum(axis=1) + self.arrays[15]
        return points

    @property
    def wins(self) -> np.ndarray:
        """``[game, seat]``: 1 for a winner of a game over."""
        return self.arrays[16]

    @property
    def seeds(self) -> np.ndarray:
        """Each game's seed."""
        return self.arrays[1]

    @property
    def rounds_and_turns(self) -> np.ndarray:
        """``[game, 0]`` the round, ``[game, 1]`` the turn (both from 0)."""
        return self.arrays[0][:, :2]

    def rewards(self, games: np.ndarray, kind: str, over: bool) -> np.ndarray:
        """``[game, seat]``: the rewards of ``games`` were they to end now (``over``: they
        have ended), as ``ruledraft.rl.rewards`` gives them: ``points`` the totals,
        ``margin`` a seat's total less the best other's, ``win`` 1 shared by the winners
        (0 before the end)."""
        totals: np.ndarray = self.totals[games].astype(np.float64)
        if kind == "points":
            return totals
        if kind == "win":
            if not over:
                return np.zeros_like(totals)
            wins: np.ndarray = self.wins[games].astype(np.float64)
            shares: np.ndarray = wins / np.maximum(wins.sum(axis=1, keepdims=True), 1.0)
            return shares
        if kind != "margin":
            raise ValueError(f"no reward {kind!r}")
        out: np.ndarray = np.empty_like(totals)
        for s in range(self.seats):
            out[:, s] = totals[:, s] - np.delete(totals, s, axis=1).max(axis=1)
        return out

    def hand(self, game: int, seat: int) -> list[int]:
        """The cards ``seat`` of ``game`` holds, in their order."""
        hand, hl, slot = self.arrays[2], self.arrays[3], self.arrays[4]
        h = int(slot[game, seat])
        return [int(c) for c in hand[game, h, : hl[game, h]]]

    def new(self, which: np.ndarray, seeds: np.ndarray) -> None:
        """Start a game in each place ``which[i]`` with seed ``seeds[i]``."""
        a = self.arrays
        self.module.batch_new(np.asarray(which, np.int64), np.asarray(seeds, np.uint64), *a)

    def step(self, actions: np.ndarray) -> int:
        """Every game not over plays ``actions[game]`` (one action per seat); what each
        did is in :attr:`status` (:data:`TURN`, :data:`ROUND_END`, :data:`GAME_END`,
        :data:`OVER`). An illegal action plays nothing: the first game that sent one is
        returned (its seat is ``-1 - status[game]``), else -1."""
        return int(self.module.batch_step(actions, self.status, *self.arrays))

    def seed_bots(self, which: np.ndarray, bots: np.ndarray) -> None:
        """Seed the streams of the bot seats (``bots[seat] >= 0``, a code of
        ``kernel.BOTS``) of the games ``which``, as the gymnasium environment seeds its
        bots: ``derive_seed(game seed, 5, seat) >> 11``."""
        if self._streams is None:
            self._streams = np.zeros((625, self.games * self.seats), np.uint32)
        self.module.batch_bot_streams(np.asarray(which, np.int64), bots, self._streams, self.arrays[1])

    def bots_act(self, bots: np.ndarray, values: np.ndarray, actions: np.ndarray) -> None:
        """Every bot seat's action of every game not over into ``actions`` (after
        :meth:`seed_bots`; the seats at -1 are left as they are): random, first, greedy,
        value and planner, as in the game loop (``values``: the game loop's, the
        planner's inputs after the value bot's values when a seat plays it)."""
        a = self.arrays
        act = self.module.batch_bots_planner if (bots == BOT_PLANNER).any() else self.module.batch_bots
        act(bots, values, self._streams, actions, *a[:1], *a[2:12], a[13])

    def encode(self, which: np.ndarray, at: np.ndarray, order: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> None:
        """Every player's vector and mask of the games ``which`` into ``obs`` and ``masks``
        (see ``batch.tmpl``'s ``batch_encode``)."""
        a = self.arrays
        self.module.batch_encode(
            np.asarray(which, np.int64), at, order, obs, masks, a[0], a[2], a[3], a[4], a[5], a[8], a[14], a[15]
        )


def warm_batch(module: ModuleType) -> None:
    """Compile the kernel module's batch functions (or load them from numba's cache): one
    game started, stepped by a first move and encoded, at the smallest number of seats
    its hands are written for."""
    seats = next(n for n in range(len(module.HS)) if module.HS[n] > 0)
    batch = Batch(module, seats, 1)
    batch.new(np.zeros(1, np.int64), np.zeros(1, np.uint64))
    K = int(module.K)
    actions = np.array([[batch.hand(0, s)[0] for s in range(seats)]], np.int64)
    bots = np.array([3 if s == 0 else s % 3 for s in range(seats)], np.int64)  # value, first, greedy, random
    batch.seed_bots(np.zeros(1, np.int64), bots)
    batch.bots_act(bots, np.zeros(K, np.float64), actions)
    batch.step(actions)
    at = np.arange(11, dtype=np.int64)
    size = 11 + 4 * K * seats + (module.R + 4) * seats
    batch.encode(
        np.zeros(1, np.int64),
        at * 0,
        np.tile(np.arange(seats, dtype=np.int64), (seats, 1)),
        np.zeros((1, seats, size), np.float32),
        np.zeros((1, seats, K * (K + 1)), np.int8),
    )


def warm_batch_planner(module: ModuleType) -> None:
    """Compile the kernel module's ``batch_bots_planner`` (or load it from numba's cache):
    one move of a game whose every seat plays the planner with one sample."""
    seats = next(n for n in range(len(module.HS)) if module.HS[n] > 0)
    batch = Batch(module, seats, 1)
    batch.new(np.zeros(1, np.int64), np.zeros(1, np.uint64))
    K = int(module.K)
    bots = np.full(seats, BOT_PLANNER, np.int64)
    values = np.concatenate([np.zeros(K + K * (int(module.PLAN_CAP) + 1)), np.ones(seats)])
    batch.seed_bots(np.zeros(1, np.int64), bots)
    batch.bots_act(bots, values, np.zeros((1, seats), np.int64))
