"""Agents: whoever chooses a seat's action -- bots here, a human in the CLI.

An agent is anything with ``name`` and ``act(state, seat) -> action``. Agents are
found by name through a registry (:func:`register_agent`, :func:`make_agent`), so a
new bot plugs in without touching the runner or the CLI.

Bots look only at what their seat may know: their own hand and the public tables.
"""

from __future__ import annotations

import _random
import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ruledraft.tableau import Tableau


class Agent(Protocol):
    name: str

    def act(self, state, seat: int) -> int:  # pragma: no cover - protocol
        ...


AgentFactory = Callable[[int], Agent]

_REGISTRY: dict[str, AgentFactory] = {}


def register_agent(name: str, factory: AgentFactory, *, replace: bool = False) -> None:
    """Make ``name`` usable wherever bots are named (``--bots greedy,random``).

    ``factory(seed)`` returns a fresh agent seeded with ``seed``.
    """
    if name in _REGISTRY and not replace:
        raise ValueError(f"an agent called {name!r} is already registered")
    _REGISTRY[name] = factory


def agent_names() -> list[str]:
    return sorted(_REGISTRY)


def make_agent(name: str, seed: int) -> Agent:
    """A new agent of the named kind; ``KeyError`` with the known names if unknown."""
    try:
        factory = _REGISTRY[name]
    except KeyError:
        raise KeyError(name) from None
    return factory(seed)


class RandomAgent:
    """Uniform over the legal actions (chopsticks moves included), seeded."""

    name = "random"

    def __init__(self, seed: int = 0):
        # the C generator itself: the same stream as random.Random(seed), seeded
        # without the Python-level wrapper (a simulation seeds one per seat per game)
        #: the stream this agent draws from. An agent with ``uniform_random`` promises
        #: that ``act`` is ``state.sample_action(seat, uniform_random)``, so a table of
        #: such agents can be played by the engine's tighter loop (State.play_out).
        rng = _random.Random(seed) if type(seed) is int else random.Random(seed)  # str seeds: random's own hashing
        self.uniform_random = rng.random
        self._game: object = None
        self._sample: Any = None

    def act(self, state, seat: int) -> int:
        if state.game is not self._game:  # the game's sampler, looked up once
            self._game = state.game
            self._sample = state.game.procedure.sample_action
        return self._sample(state, seat, self.uniform_random)


class GreedyAgent:
    """Takes the action that most raises its own score as the ruleset's scoring rules
    count it right now (round rules on this round's table, game-end rules on the
    cards kept so far); ties are broken by the seeded RNG.

    It knows nothing of any particular game: it asks each compiled rule, and skips
    rules that cannot see the cards a move changes.
    """

    name = "greedy"

    def __init__(self, seed: int = 0):
        self._rng = random.Random(seed)

    def act(self, state, seat: int) -> int:
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        game = state.game
        K = game.num_card_types
        kept = game.kept
        score_kept = bool(game.ruleset.game_rules)
        this_round = _Baseline(state.tableau(), seat)
        to_game_end = None
        best: list[int] = []
        best_gain = None
        for action in legal:
            if action < K:
                # the common case: one card, for this seat only
                gain = this_round.gain(game.round_rules_reading[action], action)
                if kept[action] and score_kept:
                    if to_game_end is None:
                        to_game_end = _Baseline(_kept_now(state), seat)
                    gain += to_game_end.gain(game.game_rules_reading[action], action)
            else:
                gain = self._gain(state, seat, action)
            if best_gain is None or gain > best_gain:
                best_gain, best = gain, [action]
            elif gain == best_gain:
                best.append(action)
        return best[0] if len(best) == 1 else self._rng.choice(best)

    def _gain(self, state, seat: int, action: int) -> int:
        """Score change for any action: several cards, a dummy's card, kept cards."""
        game = state.game
        ruleset = game.ruleset
        cards, dummy_card = game.decode_action(action)
        dummy_seat = game.num_players if ruleset.dummy else None
        returned = _returned_card(state, seat, cards)
        changed = set(cards)
        if returned is not None:
            changed.add(returned)
        if dummy_card is not None:
            changed.add(dummy_card)
        round_t = state.tableau()
        hyp = _with_cards(round_t, seat, cards, returned)
        if dummy_card is not None and dummy_seat is not None:
            hyp = _with_cards(hyp, dummy_seat, (dummy_card,), None)
        gain = 0
        rules = {r for c in changed for r in game.round_rules_reading[c]}
        for rule in ruleset.round_rules:  # in ruleset order, for reproducible sums
            if rule in rules:
                gain += rule.score_seat(hyp, seat) - rule.score_seat(round_t, seat)
        kept = game.kept
        kept_cards = tuple(c for c in cards if kept[c])
        kept_dummy = dummy_card is not None and kept[dummy_card]
        if (kept_cards or kept_dummy) and ruleset.game_rules:
            kept_t = _kept_now(state)
            hyp_k = _with_cards(kept_t, seat, kept_cards, None) if kept_cards else kept_t
            if kept_dummy and dummy_card is not None and dummy_seat is not None:
                hyp_k = _with_cards(hyp_k, dummy_seat, (dummy_card,), None)
            for rule in ruleset.game_rules:
                gain += rule.score_seat(hyp_k, seat) - rule.score_seat(kept_t, seat)
        return gain


class _Baseline:
    """One seat's score before a move, rule by rule (computed once, on demand), and
    the change one more card would make."""

    __slots__ = ("t", "seat", "row", "seq", "base")

    def __init__(self, t: Tableau, seat: int):
        self.t = t
        self.seat = seat
        self.row = t.counts[seat]
        self.seq = t.cards[seat]
        self.base: dict[object, tuple[object, int]] = {}

    def gain(self, rules, card: int) -> int:
        """Points ``rules`` would give ``seat`` with ``card`` added, minus what they give now."""
        row2 = self.row[:]
        row2[card] += 1
        seq2 = self.seq + [card]
        t, seat, base = self.t, self.seat, self.base
        hyp = None
        gain = 0
        for rule in rules:
            if rule.own_cards_only:
                if rule not in base:
                    base[rule] = rule.score_row(self.row, self.seq)
                gain += rule.score_row(row2, seq2) - base[rule]
                continue
            if hyp is None:
                hyp = t.with_seat(seat, row2, seq2)
            ranks_by = rule.ranks_by
            if ranks_by is not None and ranks_by.is_local:
                # a majority: the other seats' quantities do not change with this move
                if rule not in base:
                    q = rule.quantities(t)
                    base[rule] = (q, rule.award(q, t)[seat])
                q, before = base[rule]
                gain += rule.score_seat_changed(hyp, seat, q) - before
            else:
                if rule not in base:
                    base[rule] = rule.score_seat(t, seat)
                gain += rule.score_seat(hyp, seat) - base[rule]
        return gain


def _returned_card(state, seat: int, cards: Sequence[int]) -> int | None:
    """The special-action card that leaves the table when ``cards`` are taken together."""
    action = state.game.special_action_for(state.counts[seat], len(cards))
    return action.card if action is not None else None


def _with_cards(t: Tableau, seat: int, cards: Sequence[int], removed: int | None) -> Tableau:
    counts = t.counts[seat][:]
    seq = t.cards[seat] + list(cards)
    for c in cards:
        counts[c] += 1
    if removed is not None:
        counts[removed] -= 1
        seq.remove(removed)
    return t.with_seat(seat, counts, seq)


def _kept_now(state) -> Tableau:
    """Cards that will be kept to game end, counting those already played this round."""
    kept = state.game.kept
    counts = [row[:] for row in state.kept_counts]
    cards = [seq[:] for seq in state.kept_cards]
    for s, seq in enumerate(state.played):
        for c in seq:
            if kept[c]:
                counts[s][c] += 1
                cards[s].append(c)
    return Tableau(counts, cards, state.round + 1)


register_agent("random", RandomAgent)
register_agent("greedy", GreedyAgent)
