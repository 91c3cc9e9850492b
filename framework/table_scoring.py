"""Scoring finished tables without playing: the cards each seat played, round by round.

A table is ``{"rounds": [[[seat 0's cards in play order], [seat 1's], ...], ...]}``
with card ids. Cards of a kind the ruleset keeps to game end (pudding) are kept
from the round they were played in.
"""

from __future__ import annotations

from typing import Any, List

from .engine import decide_winners
from .errors import InputError
from .ruleset import CompiledRuleset
from .scoring import score_rules
from .tableau import Tableau


def parse_table(ruleset: CompiledRuleset, table: Any, where: str = "table") -> List[List[List[int]]]:
    """Check a table's shape and card ids; card indices per round per seat."""
    if not isinstance(table, dict) or not isinstance(table.get("rounds"), list):
        raise InputError(f'{where}: expected an object {{"rounds": [[[cards of seat 0], [cards of seat 1], ...], ...]}}')
    rounds = table["rounds"]
    if not 1 <= len(rounds) <= ruleset.rounds:
        raise InputError(f"{where}: {len(rounds)} rounds, but {ruleset.name} has {ruleset.rounds}")
    seats = None
    out = []
    for r, rnd in enumerate(rounds):
        if not isinstance(rnd, list) or not all(isinstance(s, list) for s in rnd):
            raise InputError(f"{where}: round {r + 1} must be a list with one list of card ids per seat")
        if seats is None:
            seats = len(rnd)
        elif len(rnd) != seats:
            raise InputError(f"{where}: round {r + 1} has {len(rnd)} seats, round 1 has {seats}")
        cards_r = []
        for s, cards in enumerate(rnd):
            row = []
            for c in cards:
                if not isinstance(c, str) or not ruleset.catalogue.has_card(c):
                    from .suggest import clipped, did_you_mean

                    raise InputError(f"{where}: round {r + 1}, seat {s}: unknown card {clipped(repr(c))}{did_you_mean(str(c), ruleset.catalogue.ids)}")
                row.append(ruleset.catalogue.index_of(c))
            cards_r.append(row)
        out.append(cards_r)
    dummies = ruleset.dummy.seats if ruleset.dummy else 0
    players = (seats or 0) - dummies
    if not ruleset.min_players <= players <= ruleset.max_players:
        extra = f" plus {dummies} dummy seat(s)" if dummies else ""
        raise InputError(f"{where}: {seats} seats, but {ruleset.name} is for {ruleset.min_players}-{ruleset.max_players} players{extra}")
    for r, n, card in _over_the_deck(ruleset, out):
        raise InputError(f"{where}: {n} {card.id} played{r}, but the deck has only {card.count}")
    return out


def _over_the_deck(ruleset: CompiledRuleset, rounds: List[List[List[int]]]):
    """``(where, number, card)`` for cards played more often than the deck allows: over
    the whole game, or (when every card not kept is shuffled back between rounds) in
    one round together with the kept cards of earlier rounds."""
    cards = ruleset.catalogue.cards
    used = [0] * len(cards)
    for r, rnd in enumerate(rounds):
        if ruleset.between_rounds == "reshuffle":
            used = [n if cards[i].keep == "game" else 0 for i, n in enumerate(used)]
        for seat in rnd:
            for c in seat:
                used[c] += 1
        for i, n in enumerate(used):
            if n > cards[i].count:
                yield (f" in round {r + 1}" if ruleset.between_rounds == "reshuffle" else ""), n, cards[i]
                return


def score_table(ruleset: CompiledRuleset, table: Any, where: str = "table") -> dict:
    """Points per round, at game end, in total, and the winners."""
    rounds = parse_table(ruleset, table, where)
    seats = len(rounds[0])
    K = ruleset.catalogue.size
    kept_cards: List[List[int]] = [[] for _ in range(seats)]
    round_points = []
    by_rule_total = {rid: [0] * seats for rid in ruleset.rule_ids}
    for r, cards in enumerate(rounds):
        total, by_rule = score_rules(ruleset.round_rules, Tableau.from_cards(K, cards, r + 1))
        round_points.append(total)
        for rid, pts in by_rule.items():
            by_rule_total[rid] = [a + b for a, b in zip(by_rule_total[rid], pts)]
        for s, seq in enumerate(cards):
            kept_cards[s].extend(c for c in seq if ruleset.catalogue.cards[c].keep == "game")
    kept = Tableau.from_cards(K, kept_cards, len(rounds))
    game_end, by_rule = score_rules(ruleset.game_rules, kept)
    for rid, pts in by_rule.items():
        by_rule_total[rid] = [a + b for a, b in zip(by_rule_total[rid], pts)]
    totals = [sum(r[s] for r in round_points) + game_end[s] for s in range(seats)]
    players = seats - (ruleset.dummy.seats if ruleset.dummy else 0)
    return {
        "rounds": round_points,
        "game_end": game_end,
        "totals": totals,
        "winners": decide_winners(ruleset, players, totals, kept),
        "rules": by_rule_total,
    }
