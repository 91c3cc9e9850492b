"""The ``ismcts`` bot's roll-outs in a kernel: a game from the middle to its end, every
seat playing the look-ahead policy (``play.planner.policy_action``), in compiled code.

The policy draws nothing at random (the legal move whose cards are worth most by the
count-aware card values, the first on a tie), so a compiled roll-out ends the game
with the very totals and winners the reference engine's roll-out reaches: the search
is the same, iteration for iteration, only faster. :class:`Rollouts` writes a state
(the engine's, duck-typed: this layer stands above the engine but reads only what a
state holds) into one flat integer array -- the layout ``rollout.tmpl`` reads -- and
calls the kernel's ``rollout``.

A state the kernel cannot hold (card effects or races with their book, a pending
decision, a dummy, a replay's forced deals) is refused (:meth:`Rollouts.refuses`):
the caller plays that roll-out on the reference engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

import numpy as np

__all__ = ["Rollouts", "warm_rollout"]

#: the largest seed the kernel's flat array holds (the world's seed is 0)
MAX_SEED = 2**63 - 1


class Rollouts:
    """Roll-outs of one game (a ruleset at a number of seats) in a kernel module, the
    count-aware card values ``values`` (``values[card][n]``, as
    ``play.planner.count_values`` makes them) fixed."""

    def __init__(self, module: ModuleType, seats: int, values: Sequence[Sequence[float]]) -> None:
        self._fn = module.rollout
        self.seats = seats
        self._cv = np.ascontiguousarray(np.asarray(values, np.float64))
        if self._cv.shape != (module.K, module.ROLLOUT_CAP + 1):
            raise ValueError(f"count values of shape {self._cv.shape}, not {(module.K, module.ROLLOUT_CAP + 1)}")
        self._out = np.zeros(2 * seats, np.int64)

    @staticmethod
    def refuses(state: Any) -> str | None:
        """Why the kernel cannot hold ``state`` (None: it can)."""
        if state.book is not None:
            return "card effects or a race"
        if state.pending is not None:
            return "a pending decision"
        if state.dummy_piles or state.controller >= 0:
            return "a dummy"
        if state.forced_deals is not None:
            return "deals given for a replay"
        if not 0 <= state.seed <= MAX_SEED:
            return "a seed of more than 63 bits"
        return None

    def parts(self, state: Any, given: bool = False) -> tuple[list[int], list[int]]:
        """The parts of ``state``'s flat array (see ``rollout.tmpl``) around its hands: the
        head (``given``: the first turn's moves will follow the held-back cards) and what
        lies between the hands and the rest of the deck (the tables and the kept cards)."""
        hands, played, kept = state.hands, state.played, state.kept_cards
        head = [
            len(hands),
            state.round,
            state.turn,
            len(hands[0]),
            len(state.deck) - state.deck_pos,
            state.seed,
            len(state.reserves),
            1 if given else 0,
            *map(sum, zip(state.game_end_scores, *state.round_scores)),
        ]
        middle = list(map(len, played))
        for p in played:
            middle += p
        middle += map(len, kept)
        for k in kept:
            middle += k
        return head, middle

    def buffer(self, state: Any) -> np.ndarray:
        """``state`` as the flat array ``rollout`` reads (see ``rollout.tmpl``)."""
        head, middle = self.parts(state)
        return self._flat(head, state.hands, middle, state.deck[state.deck_pos :], state.reserves, ())

    @staticmethod
    def _flat(
        head: list[int],
        hands: Sequence[list[int]],
        middle: list[int],
        deck: list[int],
        reserves: Sequence[list[int]],
        joint: Sequence[int],
    ) -> np.ndarray:
        flat = head[:]
        for h in hands:
            flat += h
        flat += middle
        flat += deck
        for r in reserves:
            flat.append(len(r))
            flat += r
        flat += joint
        return np.array(flat, np.int64)

    def play(self, state: Any) -> tuple[list[int], list[int]]:
        """``state`` (which :meth:`refuses` accepts, not finished) played to the end by the
        policy: (each seat's final total, the winning seats)."""
        return self._run(self.buffer(state))

    def play_parts(
        self,
        head: list[int],
        hands: Sequence[list[int]],
        middle: list[int],
        deck: list[int],
        reserves: Sequence[list[int]],
        joint: Sequence[int],
    ) -> tuple[list[int], list[int]]:
        """:meth:`play` of the state whose :meth:`parts` (made with ``given``) are ``head``
        and ``middle``, its hands ``hands``, the rest of its deck ``deck`` and held-back
        cards ``reserves`` -- after every seat plays its move of ``joint`` (the state's
        ``apply_actions(joint)``, done in the kernel)."""
        return self._run(self._flat(head, hands, middle, deck, reserves, joint))

    def _run(self, buf: np.ndarray) -> tuple[list[int], list[int]]:
        out = self._out
        self._fn(buf, self._cv, out)
        n = self.seats
        values = out.tolist()
        return values[:n], [s for s in range(n) if values[n + s]]


def warm_rollout(module: ModuleType) -> None:
    """Compile the kernel module's ``rollout`` (or load it from numba's cache): one
    roll-out of a round's last turn at the smallest number of seats its hands are
    written for."""
    seats = next(n for n in range(len(module.HS)) if module.HS[n] > 0)
    K = module.K
    # every hand one card of type 0, nothing played, nothing kept, an empty deck, last round
    flat = [seats, module.R - 1, 0, 1, 0, 0, 0, 0, *([0] * seats), *([0] * seats), *([0] * seats), *([0] * seats)]
    module.rollout(np.array(flat, np.int64), np.zeros((K, module.ROLLOUT_CAP + 1)), np.zeros(2 * seats, np.int64))
