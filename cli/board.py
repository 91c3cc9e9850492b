"""Every seat's board as ``play`` prints it before each pick."""

from __future__ import annotations

from collections.abc import Sequence

from ruledraft.engine.board import RaceBoard, SeatBoard, board, races
from ruledraft.engine.state import State

from .common import shown
from .event_words import ordinal
from .naming import SeatNames, grouped, grouped_items, in_play_order
from .terminal import layout, packed


def board_lines(state: State, names: SeatNames, width: int, room: int | None = None) -> list[str]:
    """Every seat's board fitted into ``width`` columns: a table of points so far,
    the round's running points, hand (or pile) size, each majority's quantity, each
    modifier's state, what its cards count in a race, and the kept cards (counted when
    they make the table too wide, those of earlier rounds then listed under it, or
    left to the ``kept`` command when the board would not fit ``room`` rows); each
    race's places; then each seat's cards played this round, in the order played."""
    game = state.game
    rs = game.ruleset
    seats = board(state)
    keeps = any(game.kept)
    first = seats[0]
    header = [
        "seat",
        "points",
        "round",
        "hand",
        *(shown(rid) for rid, _ in first.majorities),
        *(shown(rid) for rid, _, _ in first.modifiers),
        *(shown(rid) for rid, _ in first.races),
    ]
    if keeps:
        header.append("kept")
    race_boards = races(state)
    rows = []
    for b in seats:
        mods = []
        for _, loaded, waiting in b.modifiers:
            parts = ([f"{loaded} loaded"] if loaded else []) + ([f"{waiting} waiting"] if waiting else [])
            mods.append(" ".join(parts) or "-")
        row = [
            names.long(b.seat),
            str(b.points),
            "?" if b.round_points is None else f"{b.round_points:+}" if b.round_points else "0",
            f"pile {b.pile}" if b.pile is not None else str(b.hand),
            *(_with_neighbours(rid, q, b, names) for rid, q in b.majorities),
            *mods,
            *(f"{min(q, race.target)}/{race.target}" for (_, q), race in zip(b.races, race_boards)),
        ]
        if keeps:
            row.append(grouped(rs, b.kept))
        rows.append(row)
    race_at = len(header) - len(first.races) - (1 if keeps else 0)
    right = {1, 2, 3} | set(range(4, 4 + len(first.majorities))) | set(range(race_at, race_at + len(first.races)))
    short = [names.short(b.seat) for b in seats]
    lines = layout(header, rows, width, short, right)
    kept_lines: list[str] = []
    if keeps and len(lines) > len(rows) + 1:  # no table fits: the kept cards counted, and listed below
        counted = [[*r[:-1], str(len(b.kept)) if b.kept else "-"] for r, b in zip(rows, seats)]
        table = layout(header, counted, width, short, right | {len(header) - 1})
        if len(table) == len(rows) + 1:
            lines = table
            kept_lines = kept_from_earlier_rounds(state, names, width)
    # a seat past the target mid-turn (a decision pending) takes its place at the turn's
    # end: its column is capped and the race's line says so
    reached = [
        [(b.seat, b.races[k][1]) for b in seats if b.races[k][1] >= race.target] for k, race in enumerate(race_boards)
    ]
    race_rows = [line for race, r in zip(race_boards, reached) for line in race_lines(race, names, width, r)]
    played = []
    if any(b.played for b in seats):  # else the round's first turn: nothing on the tables yet
        played.append("Played this round:")
        for b in seats:
            played.extend(
                packed(
                    f"  {names.short(b.seat)}:",
                    in_play_order(rs, b.played, dict(b.copies), dict(b.counted)),
                    width,
                    ",",
                )
            )
    if kept_lines and room is not None and len(lines) + len(kept_lines) + len(race_rows) + len(played) > room:
        kept_lines = [KEPT_ON_REQUEST]
    return lines + race_rows + kept_lines + played  # a race's line right under the table whose column it explains


def _with_neighbours(rule: str, q: int, b: SeatBoard, names: SeatNames) -> str:
    """A majority column's number; for a rule that compares with the neighbours, each
    comparison after it: ``2 (> seat 1, = you)`` (more than seat 1, as much as you; ``<``: less)."""
    for rid, found in b.neighbours:
        if rid == rule:
            return f"{q} (" + ", ".join(f"{'=><'[sign]} {names.short(seat)}" for seat, sign in found) + ")"
    return str(q)


#: said under the board instead of the cards kept from earlier rounds when they do not fit the screen
KEPT_ON_REQUEST = "Kept to the end of the game: 'kept' lists them."


def kept_from_earlier_rounds(state: State, names: SeatNames, width: int, *, every: bool = False) -> list[str]:
    """Each seat's cards kept from earlier rounds (this round's are among the cards played):
    the seats that kept some, or with ``every`` each seat, "-" for none (nothing when no
    seat kept a card)."""
    rs = state.game.ruleset
    if not any(state.kept_cards):
        return []
    lines = ["Kept to the end of the game:"]
    for s, kept in enumerate(state.kept_cards):
        if kept or every:
            lines.extend(packed(f"  {names.short(s)}:", grouped_items(rs, kept) or ["-"], width, ","))
    return lines


def race_lines(race: RaceBoard, names: SeatNames, width: int, reached: Sequence[tuple[int, int]] = ()) -> list[str]:
    """A race under the board: what takes a place, the places taken (by whom, for how
    many points) and those still open, e.g. ``uramaki, a race to 10: 1st seat 2 (8);
    open: 2nd (5), 3rd (2)``; then the seats that have ``reached`` the target during
    this turn (seat, count), whose places are taken at its end."""
    parts = [f"{ordinal(place)} {names.short(seat)} ({points})" for seat, place, points in race.taken]
    left = [f"{ordinal(k + 1)} ({race.places[k]})" for k in range(race.used, len(race.places))]
    if left:
        parts.append("open: " + ", ".join(left))
    else:
        parts.append("no place left")
    if reached:
        parts.append("place at turn end: " + ", ".join(f"{names.short(seat)} ({q})" for seat, q in reached))
    return packed(f"  {shown(race.rule)}, a race to {race.target}:", parts, width)
