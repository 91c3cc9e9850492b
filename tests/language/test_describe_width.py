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


BAKERY = """\
format: 1
id: bakery
name: Bakery
players: {min: 2, max: 4}
cards:
  - {id: sugar, name: Sugar, count: 20}
  - {id: bun, name: Bun, count: 20, attributes: {value: 2}}
  - {id: coffee, name: Coffee, count: 6}
  - {id: oven, name: Oven, count: 6}
  - {id: apron, name: Apron, count: 4, effect: {kind: second_pick}}
deal:
  hand_size: {2-4: 6}
rounds: {count: 2}
scoring:
  - {id: sugar, kind: race, cards: sugar, threshold: 3, places: [5, 2]}
  - {id: buns, kind: per_card, cards: bun, value: {attribute: value}}
  - {id: coffee, kind: modifier, card: coffee, targets: bun, factor: 3, value: {attribute: value}}
  - {id: oven, kind: boost, card: oven, targets: bun, factor: 2}
"""


def test_rules_of_a_single_card_read_as_sentences(tmp_path):
    """A race, a modifier and a boost of one card kind, and a second pick on a card with a singular name, are worded for one card: "each Sugar counts 1", "When a Bun is played", "this card then goes into your hand"."""
    path = tmp_path / "bakery.yaml"
    path.write_text(BAKERY, encoding="utf-8")
    text = " ".join(describe_ruleset(load_ruleset(str(path))).split())
    assert "sugar: A race: each Sugar counts 1. At the end of each turn" in text
    assert "coffee: When a Bun is played while you have a Coffee with room on it" in text
    assert "oven: When a Bun is played while you have an Oven with room on it" in text
    assert "you may play a second card from your hand, and this card then goes into your hand." in text
    for wrong in ("Sugar count 1", "one of Bun", "Apron then go"):
        assert wrong not in text


def test_an_expression_quantity_reads_with_one_article(tmp_path):
    """A table rule over an expression and an expression tie-break read "By the value of"
    and "the highest value of", never "the the"."""
    path = tmp_path / "value.yaml"
    path.write_text(
        "format: 1\nid: value\nname: Value\nplayers: {min: 2, max: 4}\n"
        "cards:\n  - {id: a, count: 20}\n  - {id: e, count: 20}\n"
        "deal:\n  hand_size: {'2-4': 6}\nrounds:\n  count: 1\n  pass: left\n"
        "scoring:\n  - {id: etbl, kind: table, quantity: 'count(e) * 2 - 3', points: [10, 20, 30]}\n"
        "winner:\n  tie_breaks:\n    - {most: 'count(e) * 3 - players'}\n",
        encoding="utf-8",
    )
    text = " ".join(describe_ruleset(load_ruleset(str(path))).split())
    assert "By the value of `count(e) * 2 - 3`: 0: 10" in text
    assert "then the highest value of `count(e) * 3 - players`" in text
    assert "the the" not in text
