"""``show`` lines up card names and underlines the title by the columns they take on a terminal."""

from __future__ import annotations

from ruledraft.errors import display_columns
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import load_ruleset


def test_wide_card_names_line_up_and_the_title_is_underlined_to_its_width(tmp_path):
    """寿司 (two wide characters) and 🍣x pad to the columns of 'Salmon roll'; the title's '=' line is as wide as the title on screen."""
    path = tmp_path / "wide.yaml"
    path.write_text(
        "format: 1\nid: wide\nname: 寿司ゴー 🍣\nplayers: {min: 2, max: 2}\n"
        "cards:\n  - {id: a, name: 寿司, count: 30}\n  - {id: b, name: Salmon roll, count: 30}\n"
        "  - {id: c, name: 🍣x, count: 3}\n"
        "deal: {hand_size: {'2': 5}}\nrounds: {count: 1}\n"
        "scoring:\n  - {id: p, kind: per_card, cards: a, value: 1}\n",
        encoding="utf-8",
    )
    lines = describe_ruleset(load_ruleset(path)).splitlines()
    assert lines[1] == "=" * display_columns(lines[0]) == "=" * 18
    cards = [line for line in lines if " x " in line and "colour" in line]
    assert [display_columns(line.split("colour")[0]) for line in cards] == [22, 22, 22]
    assert display_columns("e\u0301") == 1 and display_columns("ab") == 2
