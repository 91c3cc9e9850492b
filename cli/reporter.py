"""What ``play`` prints after each set of moves: the reveal, the decisions and what
card effects did, round summaries and the end of the game."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import typer

from ruledraft.engine.decisions import Decision
from ruledraft.engine.records import Turn
from ruledraft.engine.state import Event, Game, State
from ruledraft.play.words import TableCopies, tie_words

from .common import shown
from .event_words import event_line
from .naming import SeatNames, card_name, grouped_items, option_name
from .terminal import layout, packed, terminal_width


def take_cards(game: Game, tables: list[list[int]], seat: int, action: int):
    """Put the cards of ``seat``'s ``action`` on ``tables`` (as the engine does: a used
    special card leaves the table); the special action used, if any."""
    cards, dummy = game.decode_action(action)
    if dummy is not None:
        tables[game.num_players].append(dummy)
    counts = [0] * game.num_card_types
    for c in tables[seat]:
        counts[c] += 1
    used = game.special_action_for(counts, len(cards))
    tables[seat].extend(cards)
    if used is not None:
        tables[seat].remove(used.card)
    return used


class Reporter:
    """Prints what happened after each set of moves: the reveal, the decisions and
    what card effects did, round summaries, the end of the game."""

    @property
    def width(self) -> int:
        """The columns to fit: as given, else the terminal's now (a resized window is followed)."""
        return self._width or terminal_width()

    def __init__(
        self,
        state: State,
        names: SeatNames,
        write: Callable[..., None] = typer.echo,
        width: int | None = None,
        pause: Callable[..., None] | None = None,
    ):
        self.names = names
        self.pause = pause
        self.write = write
        self._width = width
        self.seen_rounds = 0
        self.seen_turns = 0  # turns of the current round already reported
        self.seen_decisions = 0  # decisions of the current round already reported
        self.seen_events = 0  # events of the game (``State.events``) already reported
        self.tables: list[list[int]] = [[] for _ in range(state.game.num_seats)]
        #: this round's copies on each seat's table, as events name them
        self.copies = TableCopies()
        #: the decisions asked, by (round, index among the round's decisions)
        self.asked: dict[tuple[int, int], Decision] = {}

    def after_moves(self, state: State) -> None:
        game = state.game
        # the turns just played: the moves, and a last card the engine played by itself
        while True:
            self._happenings(state)
            if self.seen_rounds < len(state.round_scores):
                self._round_summary(state, self.seen_rounds)
                self.seen_rounds += 1
                self.seen_turns = 0
                self.seen_decisions = 0
                self.tables = [[] for _ in range(game.num_seats)]
                self.copies = TableCopies()
                if self.seen_rounds < len(state.history):
                    continue
            break
        if state.pending is not None:  # remembered, to tell what its answer means
            self.asked[state.round, len(state.history[-1].decisions)] = state.pending
        if state.is_terminal():
            self._game_end(state)

    def _reveal(self, game: Game, turn: Turn) -> None:
        rs = game.ruleset
        parts, dummy_parts = [], []
        for seat, action in enumerate(turn.actions):
            cards, dummy = game.decode_action(action)
            used = take_cards(game, self.tables, seat, action)
            text = " + ".join(card_name(rs, c) for c in cards)
            if used is not None:
                text += f" (using {card_name(rs, used.card)}, returned to the hand passed on)"
            parts.append(f"{self.names.short(seat)}: {text}")
            if dummy is not None:
                dummy_parts.append(
                    f"{self.names.short(game.num_players)}: {card_name(rs, dummy)} (given by {self.names.short(seat)})"
                )
        head = "Last cards (played automatically)" if turn.auto else "Revealed"
        for line in packed(f"{head}:", parts + dummy_parts, self.width):
            self.write(line)

    def _happenings(self, state: State) -> None:
        """What the round has seen since the last report, in the order it happened:
        per turn the reveal, then the decisions made and what the effects did."""
        game = state.game
        r = self.seen_rounds
        hist = state.history[r]
        turns = hist.turns
        # (turn, decisions made before it, 0: an event / 1: a decision, sequence) -> what
        items: list[tuple[tuple[int, int, int, int], object]] = [
            ((t, -1, 0, 0), turns[t]) for t in range(self.seen_turns, len(turns))
        ]
        for i in range(self.seen_decisions, len(hist.decisions)):
            t, seat, action = hist.decisions[i]
            items.append(((t, i, 1, 0), (seat, action, self.asked.pop((r, i), None))))
        events = state.events
        k = self.seen_events
        while k < len(events) and events[k].round == r:
            items.append(((events[k].turn, events[k].after, 0, k), events[k]))
            k += 1
        self.seen_turns, self.seen_decisions, self.seen_events = len(turns), len(hist.decisions), k
        items.sort(key=lambda item: item[0])
        places: dict[tuple[int, str, int], int] = {}  # race places taken, to tell ties
        for _, e in items:
            if isinstance(e, Event) and e.what[0] == "race":
                key = (e.turn, e.what[1], e.what[3])
                places[key] = places.get(key, 0) + 1
        made: list[tuple[int, int, Decision | None]] = []  # decisions in a row, told on one line
        for _, item in items:
            if isinstance(item, tuple) and not isinstance(item, Event):
                made.append(item)
                continue
            self._decisions(game, made)
            made = []
            if isinstance(item, Turn):
                self._reveal(game, item)
            elif isinstance(item, Event):
                what = item.what
                tied = what[0] == "race" and places[item.turn, what[1], what[3]] > 1
                copies = self.copies.for_event(what)
                self.write(f"  - {event_line(game, self.names, what, tied, self.width - 4, copies)}")
        self._decisions(game, made)

    def _decisions(self, game: Game, made: Sequence[tuple[int, int, Decision | None]]) -> None:
        """Decisions card effects asked for, as they were made."""
        if not made:
            return
        parts = [f"{self.names.short(seat)}: {option_name(game, a, asked)}" for seat, a, asked in made]
        for line in packed("Decided:", parts, self.width):
            self.write(line)

    def _table(self, header: Sequence[str], rows: Sequence[Sequence[str]], seats: Sequence[int]) -> None:
        short = [self.names.short(s) for s in seats]
        for line in layout(header, rows, self.width, short, right=range(1, len(header))):
            self.write(line)

    def _round_summary(self, state: State, r: int) -> None:
        game = state.game
        rs = game.ruleset
        seats = range(game.num_seats)
        self.write("")
        self.write(f"=== End of round {r + 1} of {rs.rounds} ===")
        # with card effects, cards move after the picks: the tables the round was scored on
        tables = state.history[r].tables if game.general else None
        for s in seats:
            table = tables[s] if tables is not None else self.tables[s]
            for line in packed(f"  {self.names.long(s)}:", grouped_items(rs, table), self.width, ","):
                self.write(line)
        sheet = state.score_sheet()
        scoring = sheet.rounds[r]
        rule_ids = [rule.id for rule in scoring.rules]
        totals_after = [sum(sc.totals[s] for sc in sheet.rounds[: r + 1]) for s in seats]
        rows = []
        for s in seats:
            by_rule = [pts[s] for pts in scoring.points]
            rows.append([self.names.long(s), *map(str, by_rule), str(scoring.totals[s]), str(totals_after[s])])
        self.write(f"Points in round {r + 1}:")
        self._table(["seat", *map(shown, rule_ids), "round", "total"], rows, seats)
        if self.pause and r + 1 < rs.rounds:
            self.pause(f"to start round {r + 2}")
        elif self.pause:  # the last round's points too, before the game's end pushes them off the screen
            self.pause("to see the final scores", True)  # the game is over: nothing to quit

    def _game_end(self, state: State) -> None:
        game = state.game
        rs = game.ruleset
        seats = range(game.num_seats)
        self.write("")
        self.write("=== Game over ===")
        sheet = state.score_sheet()
        if rs.game_rules and sheet.game_end is not None:
            scoring = sheet.game_end
            kept = state.kept_cards
            rule_ids = [rule.id for rule in scoring.rules]
            self.write("Kept to the end of the game:")
            for s in seats:
                for line in packed(f"  {self.names.short(s)}:", grouped_items(rs, kept[s]), self.width, ","):
                    self.write(line)
            rows = [
                [
                    self.names.long(s),
                    *(str(pts[s]) for pts in scoring.points),
                    str(scoring.totals[s]),
                ]
                for s in seats
            ]
            self.write("Game-end points (on the cards kept to the end):")
            self._table(["seat", *map(shown, rule_ids), "game end"], rows, seats)
        totals = sheet.totals
        self.write("Final totals:")
        self._table(["seat", "points"], [[self.names.long(s), str(totals[s])] for s in seats], seats)
        winners = sheet.winners
        tie = tie_words(state, self.names)
        if tie is not None:
            self.write(tie)
        if not winners:
            self.write("No winner: the tie is not broken and this game does not share wins.")
        elif len(winners) == 1:
            w = winners[0]
            self.write(
                f"Winner: {self.names.short(w)}, with {totals[w]} points."
                + (" Well played!" if w == self.names.human else "")
            )
        else:
            self.write(f"Shared win: {self.names.list(winners)}, with {totals[winners[0]]} points each.")
