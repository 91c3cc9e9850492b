"""The ``ismcts`` bot's roll-outs in a kernel: a game from the middle to its end, every
seat playing the look-ahead policy (``play.planner.policy_action``), in compiled code.

The policy draws nothing at random (the legal move whose cards are worth most by the
count-aware card values, the first on a tie), so a compiled roll-out ends the game
with the very totals and winners the reference engine's roll-out reaches: the search
is the same, iteration for iteration, only faster. :class:`Rollouts` writes a state
(the engine's, duck-typed: this layer stands above the engine but reads only what a
state holds) into one flat integer array -- the layout ``rollout.tmpl`` reads -- and
calls the kernel's ``rollout``.

Where cards have effects (the kernel module's ``EFFECTS``), the flat array holds the
effects' bookkeeping too (:meth:`Rollouts.buffer`: the cards discarded, the changed table
cards, the cards placed earlier in the round, the cards known to be in a hand, the
races' progress) and the kernel plays the card effects' decisions by the policy
(``planner._decision_action``). Such a state is written at the start of a turn, no
decision pending: the caller plays a turn that asks decisions on the engine first
(``play.ismcts``).

Without card effects, a race's progress and the cards it took off the tables ride
in the flat array too; a dummy's state has a layout of its own (``_dummy_buffer``). A
state the kernel cannot hold (a replay's forced deals) is refused (:meth:`Rollouts.refuses`): the caller plays that roll-out on
the reference engine.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any

import numpy as np
from numba import njit

from ruledraft.errors import InputError

# numba's compile flags compared quickly; inner functions made machine code only in their entry points;
# cached functions loaded without numba's registries; function ids that two processes never share (see each)
from ruledraft.kernel import numba_flags, numba_ids, numba_link, numba_load  # noqa: F401

__all__ = ["Redeals", "Rollouts", "warm_rollout"]

#: the largest seed the kernel's flat array holds (the world's seed is 0)
MAX_SEED = 2**63 - 1
#: the most cards one shuffle of :func:`_arrange` takes (an index in the 11 bits under a 53-bit key)
MAX_ARRANGED = 2048


def shuffle_streams(module: ModuleType) -> tuple[np.ndarray, np.ndarray]:
    """Room for the random streams of the shuffles between rounds a module's roll-outs
    keep from one to the next (``rollout.tmpl``'s ``_roll_shuffle``): a stream to a row,
    two a round, and the game seed each was seeded for (none yet: 2**64 - 1)."""
    rows = 2 * int(module.R)
    return np.zeros((rows, 625), np.uint32), np.full(rows, np.iinfo(np.uint64).max, np.uint64)


class Rollouts:
    """Roll-outs of one game (a ruleset at a number of seats) in a kernel module, the
    count-aware card values ``values`` (``values[card][n]``, as
    ``play.planner.count_values`` makes them) fixed."""

    def __init__(self, module: ModuleType, seats: int, values: Sequence[Sequence[float]]) -> None:
        self._fn = module.rollout
        self.seats = seats
        #: card types
        self.cards = int(module.K)
        table = np.asarray(values, np.float64)
        if table.shape != (module.K, module.PLAN_CAP + 1):
            raise ValueError(f"count values of shape {table.shape}, not {(module.K, module.PLAN_CAP + 1)}")
        # laid out as the planner's policy reads them (planner.tmpl): K values it skips, then the table
        self._values = np.concatenate([np.zeros(module.K), table.ravel()])
        self._out = np.zeros(2 * seats, np.int64)
        # the streams of the shuffles between rounds, kept from one roll-out to the next (rollout.tmpl)
        self._seeded, self._known = shuffle_streams(module)
        #: whether the module's game has card effects: states with their bookkeeping, at a turn's start
        self.effects = bool(module.EFFECTS)
        self._races = int(module.NRACE)
        #: whether the module's game has a dummy: states in its own layout
        self.dummy = bool(getattr(module, "DUMMY", False))

    def refuses(self, state: Any) -> str | None:
        """Why the kernel cannot hold ``state`` (None: it can; with card effects, once no
        decision is pending)."""
        if not self.effects:
            if state.book is not None and not self._races:  # a race's bookkeeping alone is written
                return "card effects or a race"
            if state.pending is not None:
                return "a pending decision"
        if (state.dummy_piles or state.controller >= 0) and not self.dummy:
            return "a dummy"
        if state.forced_deals is not None:
            return "deals given for a replay"
        if not 0 <= state.seed <= MAX_SEED:
            return "a seed of more than 63 bits"
        return None

    def buffer(self, state: Any, joint: Sequence[int] = ()) -> np.ndarray:
        """``state`` as the flat array ``rollout`` reads (see ``rollout.tmpl``); with
        ``joint``, every seat's move of the first turn, which the kernel plays (the
        state's ``apply_actions(joint)``, with card effects the decisions they ask by the
        policy) before the policy takes over."""
        if self.effects:
            return self._effects_buffer(state, joint)
        if self.dummy:
            return self._dummy_buffer(state, joint)
        hands = state.hands
        flat = [
            len(hands),
            state.round,
            state.turn,
            len(hands[0]),
            len(state.deck) - state.deck_pos,
            state.seed,
            len(state.reserves),
            1 if joint else 0,
            *map(sum, zip(state.game_end_scores, *state.round_scores)),
        ]
        for h in hands:
            flat += h
        _cards_in_play(flat, state)
        if self._races:
            self._races_written(flat, state.book)
        flat += joint
        return np.array(flat, np.int64)

    def _races_written(self, flat: list[int], book: Any) -> None:
        """The races' part of a state without card effects (``rollout.tmpl``): the cards
        discarded (their number, then them), then each race's places used and points per seat."""
        flat.append(len(book.discarded))
        flat += book.discarded
        self._progress_written(flat, book)

    def _progress_written(self, flat: list[int], book: Any) -> None:
        """Each race's places used and points per seat this round."""
        if len(book.turn_progress) != self._races:
            raise ValueError(f"{len(book.turn_progress)} turn rules' progress for {self._races} races")
        for progress in book.turn_progress:
            flat.append(progress.used)
            flat += progress.points

    def _dummy_buffer(self, state: Any, joint: Sequence[int]) -> np.ndarray:
        """``state`` of the dummy procedure as ``_rollout_dummy`` reads it
        (dummy_planner.tmpl): seats, round, cards left in the deck, the world's seed, the
        controller, 1 if the first turn's moves are given (else 0); each seat's points so
        far; each player's hand length, then the hands (the controller's drawn card the
        last of its own); the dummy's pile (its length, its cards from the top); the tables
        and kept cards and the rest of the deck as the plain layout has them; the players'
        first moves if given."""
        players = state.game.num_players
        hands = state.hands[:players]
        pile = state.dummy_piles[0] if state.dummy_piles else []
        flat = [
            len(state.hands),
            state.round,
            len(state.deck) - state.deck_pos,
            state.seed,
            state.controller,
            1 if joint else 0,
            *map(sum, zip(state.game_end_scores, *state.round_scores)),
        ]
        flat += map(len, hands)
        for h in hands:
            flat += h
        flat.append(len(pile))
        flat += pile
        _cards_in_play(flat, state)
        flat += joint
        return np.array(flat, np.int64)

    def _effects_buffer(self, state: Any, joint: Sequence[int]) -> np.ndarray:
        """``state`` (at a turn's start, no decision pending) as ``_rollout_fx`` reads it
        (planner_effects.tmpl): seats, round, turns done this round, cards left in the
        deck, the world's seed, families of held-back cards, 1 if the first turn's moves
        are given (else 0); each seat's points so far;
        the hands, the tables and the kept cards (each: every seat's length, then every
        seat's cards); the rest of the deck; each family's length and cards; the cards
        effects discarded (their number, then them); the changed table cards (their
        number, then seat, position, physical card, face before it was turned or -1, the
        table's length when it was turned or 0, each); per seat, the cards it placed
        earlier this round (a length, then them), then the cards known to be in its hand
        (the same); each race's places used and points per seat this round; the first
        turn's move of each seat if given."""
        if state.pending is not None:
            raise ValueError("a pending decision: the kernel's roll-out starts at a turn's start")
        book = state.book
        hands = state.hands
        flat = [
            len(hands),
            state.round,
            state.turn,
            len(state.deck) - state.deck_pos,
            state.seed,
            len(state.reserves),
            1 if joint else 0,
            *map(sum, zip(state.game_end_scores, *state.round_scores)),
        ]
        flat += map(len, hands)
        for h in hands:
            flat += h
        _cards_in_play(flat, state)
        flat.append(len(book.discarded))
        flat += book.discarded
        flat.append(len(book.under))
        for (seat, p), (card, former, stamp) in sorted(book.under.items()):
            flat += (seat, p, card, former, stamp if former >= 0 else 0)
        for rows in (book.round_placed, book.known_in_hand):
            for row in rows:
                flat.append(len(row))
                flat += row
        self._progress_written(flat, book)
        flat += joint
        return np.array(flat, np.int64)

    def play(self, state: Any, joint: Sequence[int] = ()) -> tuple[list[int], list[int]]:
        """``state`` (which :meth:`refuses` accepts, not finished) played to the end by the
        policy, after ``joint`` if given (every seat's move of the turn): (each seat's
        final total, the winning seats)."""
        return self.run(self.buffer(state, joint))

    def redeals(self, state: Any, kept: Sequence[list[int]], pool: list[int]) -> Redeals:
        """:class:`Redeals` of ``state`` (which :meth:`refuses` accepts)."""
        return Redeals(self, state, kept, pool)

    def run(self, buf: np.ndarray) -> tuple[list[int], list[int]]:
        """:meth:`play` of the state whose flat array is ``buf``."""
        out = self._out
        self._fn(buf, self._values, out, self._seeded, self._known)
        n = self.seats
        values = out.tolist()
        if values[n] < 0:  # as the reference engine's deal says it (State.deal_hands)
            raise InputError(f"the deck has run out in round {-values[n]}")
        return values[:n], [s for s in range(n) if values[n + s]]


def _cards_in_play(flat: list[int], state: Any) -> None:
    """The part of both layouts after the hands, onto ``flat``: every seat's table length,
    then every seat's table; the same for the kept cards; the rest of the deck; each
    family of held-back cards (its length, its cards)."""
    for rows in (state.played, state.kept_cards):
        flat += map(len, rows)
        for row in rows:
            flat += row
    flat += state.deck[state.deck_pos :]
    for r in state.reserves:
        flat.append(len(r))
        flat += r


class Redeals:
    """Roll-outs of one state whose unseen cards are dealt again and again (``ismcts``'s
    determinizations): the state's flat array made once, and at each deal only the
    cards dealt written into it, in compiled code.

    ``kept[s]``: the cards of seat ``s``'s hand that stay (its own whole hand, the cards
    of another's it has seen); the rest of the hands, then the rest of the deck, are the
    ``pool`` arranged; each family of held-back cards is arranged on its own. A deal
    sorts each by one ``random()`` an item, drawn pool first, then family by family
    (``State.resample_hidden``'s draws, in its order): :meth:`deal` takes the 53-bit
    keys of those draws from the words of one ``getrandbits`` (the same words, so the
    generator ends where the ``random()`` calls leave it)."""

    def __init__(self, rollouts: Rollouts, state: Any, kept: Sequence[list[int]], pool: list[int]) -> None:
        self.rollouts = rollouts
        hands = state.hands
        seats = len(hands)
        buf = rollouts.buffer(state, joint=[0] * seats)
        # past the header and the points (and, where cards have effects, the hands' lengths)
        at = 7 + 2 * seats if rollouts.effects else 8 + seats
        #: where each seat's hand lies in the flat array
        self.hand_at: list[tuple[int, int]] = []
        pos: list[int] = []
        for s, hand in enumerate(hands):
            buf[at : at + len(kept[s])] = kept[s]
            pos += range(at + len(kept[s]), at + len(hand))
            self.hand_at.append((at, at + len(hand)))
            at += len(hand)
        dealt = len(pos)
        at += 2 * seats + sum(map(len, state.played)) + sum(map(len, state.kept_cards))
        deck = len(state.deck) - state.deck_pos
        if len(pool) != dealt + deck:
            raise ValueError(f"a pool of {len(pool)} cards for {dealt} in hands and {deck} in the deck")
        pos += range(at, at + deck)
        self.deck_at = (at, at + deck)
        at += deck
        items = pool[:]
        bounds = [0, len(pool)]
        #: where each family of held-back cards lies in the flat array
        self.reserve_at: list[tuple[int, int]] = []
        for r in state.reserves:
            pos += range(at + 1, at + 1 + len(r))
            self.reserve_at.append((at + 1, at + 1 + len(r)))
            at += 1 + len(r)
            items += r
            bounds.append(len(items))
        self.fits = all(b - a < MAX_ARRANGED for a, b in zip(bounds, bounds[1:]))
        self.joint_at = len(buf) - seats  # the first turn's moves come last in both layouts
        self.buf = buf
        self.draws = len(items)
        self._items = np.array(items, np.int64)
        self._bounds = np.array(bounds, np.int64)
        self._pos = np.array(pos, np.int64)
        self._scratch = np.zeros(max(bounds[-1], 1), np.uint64)
        self._hands = np.array(self.hand_at, np.int64)
        self._masks = np.zeros(seats, np.int64)
        #: whether :meth:`deal`'s bitmasks hold every card type
        self.masks = rollouts.cards < 63

    def deal(self, bits: Callable[[int], int]) -> list[int]:
        """A new deal into the flat array, drawn with ``bits`` (a generator's ``getrandbits``):
        the card types in each seat's hand, as bitmasks (bit ``c``: card type ``c``;
        meaningful where :attr:`masks`)."""
        n = self.draws
        words = np.frombuffer(bits(64 * n).to_bytes(8 * n, "little"), "<u4")
        _arrange(words, self._items, self._bounds, self._pos, self.buf, self._scratch, self._hands, self._masks)
        masks: list[int] = self._masks.tolist()
        return masks

    def flat(self) -> list[int]:
        """The flat array of the last deal, as a list (its hands at :attr:`hand_at`)."""
        flat: list[int] = self.buf.tolist()
        return flat

    def play(self, joint: Sequence[int]) -> tuple[list[int], list[int]]:
        """The last deal played out, every seat's first move the one of ``joint``."""
        buf = self.buf
        at = self.joint_at
        for s, a in enumerate(joint):
            buf[at + s] = a
        return self.rollouts.run(buf)


@njit(cache=True)
def _arrange(words: np.ndarray, items: np.ndarray, bounds: np.ndarray, pos: np.ndarray, buf: np.ndarray, keys: np.ndarray, hands: np.ndarray, masks: np.ndarray) -> None:  # fmt: skip
    """``buf[pos[i]]`` for the items of each run ``items[bounds[g]:bounds[g + 1]]`` in the
    order Python's stable sort by one ``random()`` each gives: item ``i``'s draw made of
    ``words[2 i]`` and ``words[2 i + 1]`` (53 bits, the float times 2**53: they order
    alike), its index in its run in the 11 bits below (so ties keep their order). Then
    ``masks[s]``: the card types of ``buf[hands[s, 0]:hands[s, 1]]`` as bits (those
    below 63)."""
    for g in range(len(bounds) - 1):
        lo = bounds[g]
        n = bounds[g + 1] - lo
        for i in range(n):
            a = np.uint64(words[2 * (lo + i)] >> np.uint32(5))
            b = np.uint64(words[2 * (lo + i) + 1] >> np.uint32(6))
            keys[i] = (((a << np.uint64(26)) | b) << np.uint64(11)) | np.uint64(i)
        run = keys[:n]
        run.sort()
        for i in range(n):
            buf[pos[lo + i]] = items[lo + np.int64(run[i] & np.uint64(MAX_ARRANGED - 1))]
    for s in range(len(masks)):
        m = 0
        for j in range(hands[s, 0], hands[s, 1]):
            if buf[j] < 63:
                m |= 1 << buf[j]
        masks[s] = m


def warm_rollout(module: ModuleType) -> None:
    """Compile the kernel module's ``rollout`` (or load it from numba's cache): one
    roll-out of a round's last turn at the smallest number of seats its hands are
    written for; and the deals' shuffle."""
    seats = next(n for n in range(len(module.HS)) if module.HS[n] > 0)
    K = module.K
    if getattr(module, "DUMMY", False):  # the last turn of the last round: the controller's two cards, the other's one
        players = int(module.P)
        head = [seats, module.R - 1, 0, 0, 0, 0, *([0] * seats)]  # seats, round, deck, seed, controller, given; points
        hands = [2, *([1] * (players - 1)), *([0] * (players + 1))]  # lengths, then the cards (all type 0)
        flat = [*head, *hands, 0, *([0] * (2 * seats))]  # an empty pile; no table, nothing kept
    elif module.EFFECTS:  # the last round over: empty hands and tables, nothing discarded or changed
        flat = [seats, module.R - 1, 0, 0, 0, 0, 0, *([0] * (6 * seats + 2)), *([0] * ((seats + 1) * module.NRACE))]
    else:  # every hand one card of type 0, nothing played, nothing kept, an empty deck, last round
        flat = [seats, module.R - 1, 0, 1, 0, 0, 0, 0, *([0] * seats), *([0] * seats), *([0] * seats), *([0] * seats)]
        if module.NRACE:  # nothing discarded, no place taken
            flat += [0] * (1 + (seats + 1) * module.NRACE)
    values = np.zeros(K + K * (module.PLAN_CAP + 1))
    module.rollout(np.array(flat, np.int64), values, np.zeros(2 * seats, np.int64), *shuffle_streams(module))
    one = np.zeros(1, np.int64)
    words = np.frombuffer(bytes(8), "<u4")  # read-only, as :meth:`Redeals.deal` hands them
    _arrange(
        words,
        one,
        np.array([0, 1], np.int64),
        one,
        one.copy(),
        np.zeros(1, np.uint64),
        np.zeros((1, 2), np.int64),
        one.copy(),
    )
