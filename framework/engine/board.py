"""What a player decides on, seat by seat, read from a game state.

:func:`board` gathers, for every seat, what the terminal game shows beside the
cards: the points so far and the points the round's rules would give now, the hand
size (or a dummy's pile size), the quantities each majority rule compares, each
modifier's cards that are loaded or still waiting, the cards kept to the end of the
game (those kept from earlier rounds and those played this round), and what its
cards count in a race; :func:`races` tells each race's places and who took them.
It reads the compiled rules through the :class:`~ruledraft.language.rule.Rule`
protocol only (``ranks_by`` and ``quantities``, ``holds_cards`` and
``loaded_and_waiting``, ``score``, a turn scoring part's ``standing``; and the optional
``counted_as`` of a boost and ``comparisons`` of a neighbours rule), so a display
needs to know nothing of scoring internals, and a plug-in kind shows like a
built-in one.

It reads the tables, the scores and the hand sizes, which every seat may see; never
a hand's cards.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs

from ruledraft.engine.state import State
from ruledraft.errors import ScoringError
from ruledraft.language.rule import Rule
from ruledraft.tableau import Tableau, with_kept


@attrs.frozen
class SeatBoard:
    """One seat's side of the board."""

    seat: int
    is_dummy: bool
    #: points from the rounds scored so far (and game end, once the game is over)
    points: int
    #: what this round's round-end rules would give for the cards on the table now (None:
    #: a rule cannot score this table, a division by 0 the round may yet leave behind)
    round_points: int | None
    #: cards in hand (0 for a dummy, whose cards are a pile)
    hand: int
    #: a dummy's face-down pile size; None for a player
    pile: int | None
    #: per majority rule, in ruleset order: (rule id, this seat's quantity)
    majorities: tuple[tuple[str, int], ...]
    #: per modifier rule, in ruleset order: (rule id, loaded, waiting)
    modifiers: tuple[tuple[str, int, int], ...]
    #: cards kept to the end of the game: kept from earlier rounds, then those played this round
    kept: tuple[int, ...]
    #: this round's cards on the table, in play order
    played: tuple[int, ...]
    #: per rule that scores during the round (a race), in ruleset order: (rule id, what
    #: this seat's cards count now toward its next place)
    races: tuple[tuple[str, int], ...] = ()
    #: the cards of ``played`` that are copies of another card type (a special order):
    #: (position in ``played``, the card it is)
    copies: tuple[tuple[int, int], ...] = ()
    #: the cards of ``played`` that count as more than one card for the rules (a boost):
    #: (position in ``played``, how many cards it counts as)
    counted: tuple[tuple[int, int], ...] = ()
    #: per rule that compares each seat with its neighbours only, in ruleset order:
    #: (rule id, ((neighbour seat, 1 more / 0 as much / -1 less than it), ...))
    neighbours: tuple[tuple[str, tuple[tuple[int, int], ...]], ...] = ()


@attrs.frozen
class RaceBoard:
    """A rule that scores during the round (a race), as the board shows it."""

    rule: str
    #: what a seat must count to take a place
    target: int
    #: the points of each place, in order
    places: tuple[int, ...]
    #: the places taken this round, in order: (seat, place from 1, points)
    taken: tuple[tuple[int, int, int], ...]
    #: how many places are used up (seats tied on a place use up as many places)
    used: int


def majority_words(state: State) -> tuple[tuple[str, str], ...]:
    """(rule id, what it compares, in plain words) for each majority column of the
    board, in its order: what a column's numbers count."""
    return tuple((rule.id, rule.ranks_by.words) for rule in state.game.ruleset.rules if rule.ranks_by is not None)


def races(state: State) -> tuple[RaceBoard, ...]:
    """Each rule that scores during the round (a race): its target, its places and
    who took which so far this round (the :class:`~ruledraft.language.rule.TurnScoring`
    standing and the round's race events)."""
    game = state.game
    if not game.turn_rules or state.is_terminal():
        return ()
    table = state.tableau()
    out = []
    book = state.book
    assert book is not None  # a game with turn rules keeps its book
    for (i, part), progress in zip(game.turn_rules, book.turn_progress):
        rule = game.ruleset.round_rules[i].id
        standing = part.standing(table, progress)
        taken = tuple(
            (e.what[2], e.what[3], e.what[4])
            for e in state.events
            if e.round == state.round and e.what[0] == "race" and e.what[1] == rule
        )
        out.append(RaceBoard(rule, standing.target, standing.places, taken, standing.taken))
    return tuple(out)


def board(state: State) -> list[SeatBoard]:
    """Every seat's side of the board (players, then dummies)."""
    game = state.game
    rs = game.ruleset
    n = game.num_seats
    table = state.tableau()
    kept_now = with_kept(game.kept, state.kept_tableau(), table)
    finished = state.is_terminal()
    round_points: list[int | None] = [0] * n
    if not finished:
        try:
            round_points = list(state.round_points_now())
        except ScoringError:  # (a game that still divides by 0 at round end stops there)
            round_points = [None] * n
    majorities: list[tuple[str, list[int]]] = []
    read = {"round_end": _as_read(rs.round_rules, table), "game_end": _as_read(rs.game_rules, kept_now)}
    for rule in rs.rules:
        if rule.ranks_by is not None and rule.turn_scoring is None:
            majorities.append((rule.id, rule.quantities(read[rule.when])))
        elif rule.ranks_by is not None:
            majorities.append((rule.id, rule.quantities(table)))
    modifiers: list[tuple[str, list[tuple[int, int]]]] = []
    for rule in rs.round_rules:
        if rule.holds_cards:
            turned = table.turned
            if turned is None:
                modifiers.append((rule.id, [rule.loaded_and_waiting(seq) for seq in table.cards]))
            else:  # a modifier turned face down holds nothing; one whose target was turned stays full
                modifiers.append((rule.id, [rule.loaded_and_waiting(q, turned[s]) for s, q in enumerate(table.cards)]))
    boosted: list[list[tuple[tuple[int, int], ...]]] = []
    compared: list[tuple[str, list[tuple[tuple[int, int], ...]]]] = []
    for rule in rs.round_rules:
        # optional parts outside the Rule protocol (a plug-in's rule may have neither)
        counted_as = getattr(rule, "counted_as", None)
        if callable(counted_as):
            marks = counted_as(table)
            if any(marks):
                boosted.append(marks)
    for (rid, q), rule in zip(majorities, (r for r in rs.rules if r.ranks_by is not None)):
        comparisons = getattr(rule, "comparisons", None)
        found = comparisons(q) if callable(comparisons) else None
        if found is not None:
            compared.append((rid, found))
    counted: list[tuple[str, tuple[int, ...]]] = []
    if game.turn_rules and not finished and state.book is not None:
        for (i, part), progress in zip(game.turn_rules, state.book.turn_progress):
            counted.append((rs.round_rules[i].id, part.standing(table, progress).counted))
    totals = state.totals()
    under = state.book.under if state.book is not None else {}
    out = []
    for s in range(n):
        is_dummy = s >= game.num_players
        pile = None
        if is_dummy:
            d = s - game.num_players
            pile = len(state.dummy_piles[d]) if d < len(state.dummy_piles) else 0
        out.append(
            SeatBoard(
                seat=s,
                is_dummy=is_dummy,
                points=totals[s],
                round_points=round_points[s],
                hand=len(state.hands[s]),
                pile=pile,
                majorities=tuple((rid, q[s]) for rid, q in majorities),
                modifiers=tuple((rid, *lw[s]) for rid, lw in modifiers),
                kept=tuple(kept_now.cards[s]),
                played=tuple(state.played[s]),
                races=tuple((rid, q[s]) for rid, q in counted),
                counted=_most_counted(b[s] for b in boosted),
                neighbours=tuple((rid, found[s]) for rid, found in compared),
                copies=tuple(
                    sorted(
                        (p, physical)
                        for (seat, p), (physical, former, _) in under.items()
                        if seat == s and former == -1
                    )
                ),
            )
        )
    return out


def _as_read(rules: Iterable[Rule], t: Tableau) -> Tableau:
    """The table the rules read: ``t`` as the last boost among ``rules`` leaves it (a
    boosted card as several), or ``t`` itself without one."""
    for rule in reversed(tuple(rules)):
        as_read = getattr(rule, "as_read", None)  # optional, outside the Rule protocol
        if callable(as_read):
            found: Tableau = as_read(t)
            return found
    return t


def _most_counted(marks: Iterable[tuple[tuple[int, int], ...]]) -> tuple[tuple[int, int], ...]:
    """(position, times) of the boosted cards, from each boost's marks (each counts the
    earlier boosts' too, so the last word on a card is the largest)."""
    out: dict[int, int] = {}
    for seat_marks in marks:
        for p, times in seat_marks:
            out[p] = max(out.get(p, 1), times)
    return tuple(sorted(out.items()))
