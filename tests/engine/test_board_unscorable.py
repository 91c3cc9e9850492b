"""The board of a table a rule cannot score yet (a division by 0 the round may leave behind)."""

from __future__ import annotations

from ruledraft.cli.board import board_lines
from ruledraft.cli.play import SeatNames
from ruledraft.engine.board import board
from ruledraft.engine.state import Game
from ruledraft.language.loading import load_ruleset


def test_a_round_a_rule_cannot_score_yet_shows_a_question_mark(tmp_path):
    """count(tempura) / count(sashimi) on an empty table: the board's round points are None, shown '?', and the other columns are there."""
    path = tmp_path / "ratio.yaml"
    path.write_text(
        "format: 1\nextends: sushi-go\nid: ratio\nname: Ratio\n"
        "scoring:\n  - {id: ratio, kind: expression, expr: 'count(tempura) / count(sashimi)'}\n",
        encoding="utf-8",
    )
    game = Game(load_ruleset(path), 3)
    state = game.new_initial_state(0)
    assert [b.round_points for b in board(state)] == [None, None, None]
    lines = board_lines(state, SeatNames(game, 0, {1: "random", 2: "random"}), 80, 20)
    row = next(line for line in lines if line.startswith("  you"))
    assert row.split()[:5] == ["you", "(seat", "0)", "0", "?"]
