"""A rule relative to its own card: ``same: colour`` on a ``modifier`` (and a ``boost``):
a catalyst triples the next ingredient *of its own colour*; a catalyst in several
colours is one rule (``card:`` a selector); a colourless catalyst takes the colour of
the first ingredient it lands on.

Ingredients score 1 each (a per_card rule); the catalyst's rule scores the extra
(factor 3: 2 more per ingredient on it). Arithmetic in the comments.
"""

from __future__ import annotations

import functools

from ruledraft.engine.table_scoring import score_table
from ruledraft.language.loading import load_ruleset

HEAD = """\
format: 1
id: potions
name: Potions
players: {min: 2, max: 4}
cards:
  - {id: ember,  count: 10, tags: [ingredient], attributes: {colour: 1}}
  - {id: frost,  count: 10, tags: [ingredient], attributes: {colour: 2}}
  - {id: moss,   count: 10, tags: [ingredient], attributes: {colour: 3}}
  - {id: salt,   count: 10, tags: [ingredient]}
  - {id: red_catalyst,  count: 3, tags: [catalyst], attributes: {colour: 1}}
  - {id: blue_catalyst, count: 3, tags: [catalyst], attributes: {colour: 2}}
  - {id: clear_catalyst, count: 3, tags: [catalyst]}
  - {id: sparkler, count: 4}
deal: {hand_size: {"2-4": 7}}
rounds: {count: 1}
scoring:
  - {id: base, kind: per_card, cards: {tag: ingredient}, value: 1}
"""
CATALYST = (
    "  - {id: catalyst, kind: modifier, card: {tag: catalyst}, targets: {tag: ingredient}, value: 1,"
    " factor: 3, same: colour, capacity: CAP}\n"
)


@functools.cache
def ruleset(rules: str):
    return load_ruleset("potions.yaml", text=HEAD + rules)


def points(rules: str, *tables: list[str]) -> dict[str, list[int]]:
    return score_table(ruleset(rules), {"rounds": [list(tables)]})["rules"]


def catalyst(capacity: int = 1) -> str:
    return CATALYST.replace("CAP", str(capacity))


def test_a_catalyst_takes_only_its_own_colour():
    """A red catalyst passes over frost (blue) and takes the ember (red) after it."""
    # seat 0: base 2; the ember is tripled: extra 2
    # seat 1: no red ingredient after the red catalyst: extra 0
    got = points(catalyst(), ["red_catalyst", "frost", "ember"], ["red_catalyst", "frost", "moss"])
    assert got == {"base": [2, 2], "catalyst": [2, 0]}


def test_catalysts_of_several_colours_are_one_rule():
    """A red and a blue catalyst under one rule: each ingredient finds the catalyst of its colour."""
    # the red catalyst is older but blue frost goes onto the blue one; the ember onto the red: 2 + 2
    assert points(catalyst(), ["red_catalyst", "blue_catalyst", "frost", "ember"], [])["catalyst"] == [4, 0]


def test_a_colourless_catalyst_takes_the_colour_of_what_it_lands_on():
    """A clear catalyst with room for 2 takes the first ingredient's colour, then only that colour."""
    # seat 0: frost (blue) first: the catalyst is blue now; ember passes; the second frost fills it: 2 + 2
    # seat 1: ember first (red); moss passes; ember: 2 + 2; the frost after finds it full
    got = points(
        catalyst(2),
        ["clear_catalyst", "frost", "ember", "frost"],
        ["clear_catalyst", "ember", "moss", "ember", "frost"],
    )
    assert got == {"base": [3, 4], "catalyst": [4, 4]}


def test_an_ingredient_without_a_colour_goes_onto_no_catalyst():
    """Salt has no colour: under same: colour it shares none, so no catalyst takes it."""
    assert points(catalyst(), ["clear_catalyst", "salt", "moss"], [])["catalyst"] == [2, 0]


def test_a_boost_with_same_colour():
    """same: works for a boost too: a red sparkler doubles the next red ingredient only."""
    head = "  - {id: sparkle, kind: boost, card: red_catalyst, targets: {tag: ingredient}, factor: 2, same: colour}\n"
    # frost passes, the ember counts twice for the base rule: +1
    assert points(head, ["red_catalyst", "frost", "ember"], [])["sparkle"] == [1, 0]


def test_show_says_what_same_means():
    """show's words for a same-colour catalyst name the attribute and the colourless case."""
    words = ruleset(catalyst()).round_rules[1].describe()
    assert words.startswith("The modifier cards are catalyst cards (Red Catalyst, Blue Catalyst, Clear Catalyst).")
    assert "A card goes only onto a modifier card of its own colour" in words
    assert "without a colour takes the colour of the first card it takes" in words
