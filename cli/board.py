"""Every seat's board as ``play`` prints it before each pick."""

from __future__ import annotations

from ruledraft.engine.board import board
from ruledraft.engine.state import State

from .common import shown
from .naming import SeatNames, grouped, in_play_order
from .terminal import layout, packed


def board_lines(state: State, names: SeatNames, width: int, room: int | None = None) -> list[str]:
    """Every seat's board fitted into ``width`` columns: a table of points so far,
    the round's running points, hand (or pile) size, each majority's quantity, each
    modifier's state and the kept cards; then each seat's cards played this round, in
    the order played."""
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
    ]
    if keeps:
        header.append("kept")
    rows = []
    for b in seats:
        mods = []
        for _, loaded, waiting in b.modifiers:
            parts = ([f"{loaded} loaded"] if loaded else []) + ([f"{waiting} waiting"] if waiting else [])
            mods.append(" ".join(parts) or "-")
        row = [
            names.long(b.seat),
            str(b.points),
            f"{b.round_points:+}" if b.round_points else "0",
            f"pile {b.pile}" if b.pile is not None else str(b.hand),
            *(str(q) for _, q in b.majorities),
            *mods,
        ]
        if keeps:
            row.append(grouped(rs, b.kept))
        rows.append(row)
    right = {1, 2, 3} | set(range(4, 4 + len(first.majorities)))
    lines = layout(header, rows, width, [names.short(b.seat) for b in seats], right)
    if not any(b.played for b in seats):
        return lines  # the round's first turn: nothing on the tables yet
    lines.append("Played this round:")
    for b in seats:
        lines.extend(packed(f"  {names.short(b.seat)}:", in_play_order(rs, b.played), width, ","))
    return lines
