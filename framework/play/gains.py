"""What one more card would add: the scoring look-ups the bots share.

The ``greedy`` and ``value`` bots (:mod:`ruledraft.play.agents`) and the ``planner``
(:mod:`ruledraft.play.planner`) ask the ruleset's own compiled rules what a card is
worth to a seat, on this round's table and on the cards kept to game end; these are
the pieces they share, below all of them.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from ruledraft.engine.view import SeatView, read_kept
from ruledraft.tableau import Tableau, with_kept

__all__ = ["Baseline", "kept_now", "returned_by", "returned_card", "sampled_gains", "with_cards", "with_kept"]


class Baseline:
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
        if not rules:  # no rule reads the card (chopsticks this round, pudding)
            return 0
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


def returned_card(state, seat: int, cards: Sequence[int]) -> int | None:
    """The special-action card that leaves ``seat``'s table when ``cards`` are taken together."""
    return returned_by(state.game, state.counts[seat], cards)


def returned_by(game, row: Sequence[int], cards: Sequence[int]) -> int | None:
    """:func:`returned_card` for a table whose counts are ``row``."""
    action = game.special_action_for(row, len(cards))
    return action.card if action is not None else None


def with_cards(t: Tableau, seat: int, cards: Sequence[int], removed: int | None) -> Tableau:
    counts = t.counts[seat][:]
    seq = t.cards[seat] + list(cards)
    for c in cards:
        counts[c] += 1
    if removed is not None:
        counts[removed] -= 1
        seq.remove(removed)
    return t.with_seat(seat, counts, seq)


def kept_now(state) -> Tableau:
    """Cards that will be kept to game end, counting those already played this round
    (``state``: a state, or a seat's view). Its own lists."""
    t = read_kept(state) if isinstance(state, SeatView) else state.kept_tableau()
    return with_kept(state.game.kept, t, state.tableau())


def sampled_gains(game, games: int) -> Iterator[tuple[list[int], list[float]]]:
    """At every seat and turn of ``games`` random games seeded 0, 1, ...: the seat's
    count of each card, and the points one more card of each type would add as the
    ruleset's own rules count them (round rules on the round's table, game-end rules
    on the cards kept). Read each pair before the next: the game moves on."""
    K = game.num_card_types
    kept = game.kept
    score_kept = bool(game.ruleset.game_rules)
    for i in range(games):
        rng = random.Random(i)
        state = game.new_initial_state(i)
        while not state.is_terminal():
            seats = state.acting_seats()
            for seat in seats:
                this_round = Baseline(state.tableau(), seat)
                to_game_end = Baseline(kept_now(state), seat) if score_kept else None
                gains: list[float] = []
                for card in range(K):
                    gain = this_round.gain(game.round_rules_reading[card], card)
                    if kept[card] and to_game_end is not None:
                        gain += to_game_end.gain(game.game_rules_reading[card], card)
                    gains.append(gain)
                yield state.counts[seat], gains
            state.apply_actions([state.sample_action(seat, rng.random) for seat in seats])
