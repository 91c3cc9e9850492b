"""Scoring finished tables without playing: the cards each seat played, round by round.

A table is ``{"rounds": [[[seat 0's cards in play order], [seat 1's], ...], ...]}``
with card ids. Cards of a kind the ruleset keeps to game end (pudding) are kept
from the round they were played in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from ruledraft.engine.scoresheet import PlayedGame, ScoreSheet, score_game, turns_needed
from ruledraft.errors import InputError
from ruledraft.language.bounds import excess_by_effects
from ruledraft.language.catalogue import CardType
from ruledraft.language.json_check import MAX_PROBLEMS, format_problems, plural, schema_problems, show
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.language.suggest import did_you_mean

__all__ = ["TableError", "parse_table", "score_table", "table_problems", "table_sheet", "turns_needed"]


class TableError(InputError):
    """A table that is not a finished table of the ruleset: every problem found, each
    ``WHERE: error: PATH: MESSAGE`` (at most :data:`~ruledraft.language.json_check.MAX_PROBLEMS`),
    and the ``(PATH, MESSAGE)`` problems the lines say (the first of them, in order)."""

    def __init__(self, lines: list[str], problems: Sequence[tuple[str, str]] = ()):
        super().__init__("\n".join(lines))
        self.lines = lines
        self.problems = list(problems)


def table_problems(ruleset: CompiledRuleset, table: Any, partial: bool = True) -> list[tuple[str, str]]:
    """``(JSON path, message)`` for every problem of a table: its shape (against
    ``schemas/score-table.schema.json``), then, if that is right, its agreement with
    the ruleset: the number of rounds (fewer than the ruleset's only when ``partial``),
    of seats, card ids, and copies of each card."""
    problems = schema_problems(table, "score-table.schema.json")
    if problems:
        return problems
    rounds = table["rounds"]
    if len(rounds) > ruleset.rounds or (len(rounds) < ruleset.rounds and not partial):
        more = "" if len(rounds) > ruleset.rounds else " (--partial scores the rounds played so far)"
        problems.append(("rounds", f"{plural(len(rounds), 'round')}, but {ruleset.name} has {ruleset.rounds}{more}"))
    seats = len(rounds[0])
    for r, rnd in enumerate(rounds[1:], 1):
        if len(rnd) != seats:
            problems.append((f"rounds[{r}]", f"{plural(len(rnd), 'seat')}, but round 1 has {seats}"))
    dummies = ruleset.dummy.seats if ruleset.dummy else 0
    if not ruleset.min_players <= seats - dummies <= ruleset.max_players:
        extra = f" plus {dummies} dummy seat(s)" if dummies else ""
        problems.append(
            (
                "rounds[0]",
                f"{plural(seats, 'seat')}, but {ruleset.name} is for {ruleset.player_range}{extra}",
            )
        )
    for r, rnd in enumerate(rounds):
        for s, cards in enumerate(rnd):
            for i, c in enumerate(cards):
                if not ruleset.catalogue.has_card(c):
                    if len(problems) > MAX_PROBLEMS:
                        return problems
                    problems.append(
                        (f"rounds[{r}][{s}][{i}]", f"unknown card {show(c)}{did_you_mean(c, ruleset.catalogue.ids)}")
                    )
    return problems


def parse_table(
    ruleset: CompiledRuleset, table: Any, where: str = "table", partial: bool = True
) -> list[list[list[int]]]:
    """Check a table (see :func:`table_problems`); card indices per round per seat.
    :class:`TableError` with every problem found."""
    problems = table_problems(ruleset, table, partial)
    if not problems:
        out = [[[ruleset.catalogue.index_of(c) for c in cards] for cards in rnd] for rnd in table["rounds"]]
        for r, n, card, more in _over_the_deck(ruleset, out):
            copies = f" (and {more} more through card effects)" if more else ""
            problems.append(("rounds", f"{n} {card.id} played{r}, but the deck has only {card.count}{copies}"))
        problems += _face_down_beside_pairs(ruleset, out)
    if problems:
        raise TableError([f"{where}: {line}" for line in format_problems(problems)], problems)
    return out


def _face_down_beside_pairs(ruleset: CompiledRuleset, rounds: list[list[list[int]]]) -> list[tuple[str, str]]:
    """A seat's table holding a card turned face down (a card effect's
    ``face_down_cards``) and a face-up card that holds others for a rule that pairs cards
    (a wasabi): the table does not say what was turned, and a nigiri turned on a wasabi
    keeps that wasabi used, so the table's points would be a guess. The game log line says it."""
    hidden: set[int] = set()
    for effect in ruleset.effects:
        hidden |= effect.face_down_cards()
    pairing = [(rule, _holders(rule)) for rule in ruleset.rules if rule.holds_cards]
    if not hidden or not pairing:
        return []
    ids = ruleset.catalogue.ids
    out = []
    for r, rnd in enumerate(rounds):
        for seat, cards in enumerate(rnd):
            down = next((c for c in cards if c in hidden), None)
            rule = next((rule for rule, holders in pairing if not holders.isdisjoint(cards)), None)
            if down is not None and rule is not None:
                out.append(
                    (
                        f"rounds[{r}][{seat}]",
                        f"a {ids[down]} beside a card that rule '{rule.id}' pairs others with: a table does not say which card "
                        "was turned face down, whose pair may still hold (a nigiri turned on a wasabi keeps it "
                        "used); give the game's log line (as --log writes it) instead of a table",
                    )
                )
    return out


def _holders(rule: Any) -> frozenset[int]:
    """The cards that hold others for a pairing rule (its ``holder_set``; every card it
    reads where it names none)."""
    return frozenset(getattr(rule, "holder_set", None) or rule.reads)


@attrs.frozen
class _AnyCard:
    """Stands for every card in :func:`_over_the_deck`'s message ("70 cards played...")."""

    id: str
    count: int


def _ANY_CARD(deck: int) -> _AnyCard:
    return _AnyCard("cards", deck)


def _over_the_deck(
    ruleset: CompiledRuleset, rounds: list[list[list[int]]]
) -> Iterator[tuple[str, int, CardType | _AnyCard, int]]:
    """``(where, number, card, more)`` for cards played more often than the deck allows
    (its count, and ``more`` that card effects may add: a face-down card, a copy): over
    the whole game, or (when every card not kept is shuffled back between rounds) in
    one round together with the kept cards of earlier rounds; where card effects change
    cards, the whole deck bounds every card played too."""
    cards = ruleset.catalogue.cards
    counts = [card.count for card in cards]
    changed = any(e.changes_cards for e in ruleset.effects)
    more = excess_by_effects(ruleset)  # per type, None: only the whole deck bounds it
    used = [0] * len(cards)
    for r, rnd in enumerate(rounds):
        where = f" in round {r + 1}" if ruleset.between_rounds == "reshuffle" else ""
        if ruleset.between_rounds == "reshuffle":
            used = [n if cards[i].kept else 0 for i, n in enumerate(used)]
        for seat in rnd:
            for c in seat:
                used[c] += 1
        for i, n in enumerate(used):
            extra = more[i]
            if extra is not None and n > cards[i].count + extra:
                yield where, n, cards[i], extra
                return
        if changed:
            total, deck = sum(used), sum(counts)
            if total > deck:
                yield where, total, _ANY_CARD(deck), 0
                return


def unreachable(ruleset: CompiledRuleset, table: Any) -> list[str]:
    """What no game of ``ruleset`` can leave on a (well-formed) table, in words: a seat
    with more cards in a round than it takes in one, where picks alone fill the tables
    (no card effect, a plain turn: an extra pick puts its card back, so a seat ends a
    round with a card a turn). Such a table still scores (a what-if is a fair question),
    but a hand-copied one may hold a slip."""
    if not ruleset.picks_alone:
        return []
    out = []
    for r, rnd in enumerate(table["rounds"]):
        hand = ruleset.hand_sizes.get(len(rnd))
        if hand is None:
            continue  # a count of seats the ruleset has not: refused on its own
        for seat, cards in enumerate(rnd):
            if len(cards) > hand:
                out.append(
                    f"rounds[{r}][{seat}]: {len(cards)} cards, but a seat takes {hand} a round"
                    f" with {len(rnd)} players: no game leaves this table"
                )
    return out


def table_sheet(ruleset: CompiledRuleset, table: Any, where: str = "table", partial: bool = True) -> ScoreSheet:
    """The score sheet of a table, by the engine's scoring pipeline. ``partial=False``
    also refuses a table with fewer rounds than the ruleset has (the ``score``
    command's default). :class:`TableError` for a table that is not a table of the
    ruleset, or of a ruleset whose scoring needs the turns (:func:`turns_needed`)."""
    reason = turns_needed(ruleset)
    if reason is not None:
        raise TableError([f"{where}: error: {reason}"])
    rounds = parse_table(ruleset, table, where, partial)
    return score_game(ruleset, PlayedGame.from_tables(ruleset, rounds))


def score_table(ruleset: CompiledRuleset, table: Any, where: str = "table", partial: bool = True) -> dict[str, Any]:
    """Points per round, at game end, in total, the winners and each rule's points
    (:meth:`ScoreSheet.to_json <ruledraft.engine.scoresheet.ScoreSheet.to_json>`) of a
    table (see :func:`table_sheet`)."""
    return table_sheet(ruleset, table, where, partial).to_json()
