"""Ties handled per place in one majority rule: ``ties: {most: ..., least: ...}``.

"Most bees split 5; fewest bees lose 2 each in full" is one rule. Tables are scored
through the engine's pipeline (``score_table``); the arithmetic is in the comments.
A rule that writes ``ties`` as one word (or not at all) scores as it always did.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ruledraft.engine.table_scoring import score_table
from ruledraft.language.loading import check_ruleset, load_ruleset

HEAD = """\
format: 1
id: bees
name: Bees
players: {min: 2, max: 5}
cards:
  - {id: bee, count: 30}
  - {id: flower, count: 30}
deal: {hand_size: {"2-5": 6}}
rounds: {count: 1}
scoring:
  - id: bees
    kind: majority
    quantity: {count: bee}
"""


def ruleset(rule: str):
    """The bees game with ``rule``'s lines (indented 4) after its quantity."""
    return load_ruleset("bees.yaml", text=HEAD + rule)


def points(rs, *bees: int) -> list[int]:
    """The bees rule's points when the seats have these many bees (and a flower each)."""
    table = {"rounds": [[["bee"] * n + ["flower"] for n in bees]]}
    return score_table(rs, table)["rules"]["bees"]


BEES = """\
    most: [5]
    least: [-2]
    ties: {most: split, least: full}
"""


def test_most_split_and_fewest_in_full_in_one_rule():
    """Two tied for the most share 5 (2 each, 1 dropped); two tied for the fewest lose 2 each in full."""
    rs = ruleset(BEES)
    # bees 3, 3, 1, 1: most 5 // 2 = 2 each; fewest -2 each (not split)
    assert points(rs, 3, 3, 1, 1) == [2, 2, -2, -2]
    # bees 2, 0, 0: 5 to seat 0; seats 1 and 2 tied for the fewest: -2 each
    assert points(rs, 2, 0, 0) == [5, -2, -2]
    # everyone level at 1: the most split three ways (5 // 3 = 1), the fewest -2 each: 1 - 2 = -1
    assert points(rs, 1, 1, 1) == [-1, -1, -1]


def test_the_same_tables_under_one_word_for_the_whole_rule():
    """The old forms still mean one handling for every place: split halves the fine, full doubles the prize."""
    split = ruleset(BEES.replace("{most: split, least: full}", "split"))
    full = ruleset(BEES.replace("{most: split, least: full}", "full"))
    # split: most 5 // 2 = 2 each, fewest -2 // 2 = -1 each
    assert points(split, 3, 3, 1, 1) == [2, 2, -1, -1]
    # full: most 5 each, fewest -2 each
    assert points(full, 3, 3, 1, 1) == [5, 5, -2, -2]


def test_a_list_sets_each_place_and_the_last_covers_the_places_after_it():
    """most: [5, 3, 1] with ties [split, full]: 1st place split, 2nd and 3rd in full."""
    rs = ruleset("    most: [5, 3, 1]\n    tie_skips_places: false\n    ties: {most: [split, full]}\n")
    # bees 4, 2, 2, 0: 1st seat 0 (5); 2nd seats 1, 2 in full (3 each); 3rd seat 3 (1)
    assert points(rs, 4, 2, 2, 0) == [5, 3, 3, 1]
    # bees 4, 4, 2, 2, 1: 1st split (5 // 2 = 2 each); 2nd in full (3 each); 3rd seat 4 (1)
    assert points(rs, 4, 4, 2, 2, 1) == [2, 2, 3, 3, 1]
    # bees 1, 1, 1, 0, 0: 1st split three ways (1 each); 2nd in full (3 each)
    assert points(rs, 1, 1, 1, 0, 0) == [1, 1, 1, 3, 3]


def test_places_a_tie_uses_up_still_follow_tie_skips_places():
    """With tie_skips_places (the default) two tied first use up 2nd place: 4, 4, 2, 2 scores 2, 2, 0, 0."""
    rs = ruleset("    most: [5, 3]\n    ties: {most: [split, full]}\n")
    assert points(rs, 4, 4, 2, 2) == [2, 2, 0, 0]
    # 4, 2, 2, 1: 1st seat 0; 2nd tied in full: 3 each
    assert points(rs, 4, 2, 2, 1) == [5, 3, 3, 0]


def test_per_place_ties_with_awards_by_player_count():
    """Ties per place combine with awards that vary with the number of players."""
    rs = ruleset("    most: {default: [6, 3], players: {'2': [6]}}\n    ties: {most: [full, split]}\n")
    # 2 players, tied: the one place in full, 6 each
    assert points(rs, 2, 2) == [6, 6]
    # 3 players 3, 1, 1: 6 to seat 0, 2nd split 3 // 2 = 1 each
    assert points(rs, 3, 1, 1) == [6, 1, 1]


def test_per_place_ties_with_eligible_and_multiplier():
    """The slow path (eligible, multiplier) splits by place too: only seats with a flower score, times their flowers."""
    rs = ruleset(
        "    most: [4]\n    least: [-2]\n    ties: {most: split, least: full}\n    multiplier: {count: flower}\n"
    )
    # every seat has 1 flower: bees 3, 3, 0, 0: most 4 // 2 = 2 each, fewest -2 each in full
    assert points(rs, 3, 3, 0, 0) == [2, 2, -2, -2]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.integers(0, 4), min_size=2, max_size=5),
    st.sampled_from(["split", "full"]),
    st.booleans(),
)
def test_one_word_and_the_same_word_at_every_place_score_alike(bees, word, skips):
    """ties: W and ties: {most: W, least: [W]} give the same points on any table."""
    rule = f"    most: [5, 3]\n    least: [-2]\n    tie_skips_places: {str(skips).lower()}\n"
    plain = ruleset(rule + f"    ties: {word}\n")
    per_place = ruleset(rule + f"    ties: {{most: {word}, least: [{word}]}}\n")
    assert points(plain, *bees) == points(per_place, *bees)


def diagnostics(rule: str) -> list[tuple[int, int, str]]:
    result = check_ruleset("bees.yaml", text=HEAD + rule)
    return [(d.line, d.column, d.message) for d in result.diagnostics]


def test_ties_for_a_place_never_awarded_are_located_errors():
    """A handling for a place past the awards, or for fewest without least, is named where it is written."""
    assert diagnostics("    most: [5]\n    ties: {most: [split, full]}\n") == [
        (15, 26, "ties for place 2 of 'most', but 'most' awards 1 place at most")
    ]
    assert diagnostics("    most: [5]\n    ties: {least: full}\n") == [
        (15, 12, "ties are given for 'least' but the rule awards nothing for the fewest (add 'least:' or remove this)")
    ]


def test_misspelt_ties_get_did_you_mean():
    """A misspelt handling or key in the per-place form is located, with the near miss suggested."""
    assert diagnostics("    most: [5]\n    least: [-2]\n    ties: {most: splt, lest: full}\n") == [
        (16, 18, "'most' must be one of split, full, or a list of them, not 'splt' (did you mean 'split'?)"),
        (16, 24, "unknown key 'lest' in 'ties' (did you mean 'least'?)"),
    ]


def describe(rule: str) -> str:
    (r,) = ruleset(rule).rules
    return r.describe()


def test_show_says_how_each_place_handles_ties():
    """show words per-place ties, and keeps the one sentence when every place is handled alike."""
    assert describe(BEES) == (
        "Players are ranked by number of Bee. Most: 5. Fewest: -2. Players tied for the most split the "
        "points, dropping the remainder; players tied for the fewest each score in full. A tie for a place "
        "uses up the places after it."
    )
    assert describe("    most: [5, 3, 1]\n    ties: {most: [split, full]}\n") == (
        "Players are ranked by number of Bee. Most: 5 / 3 / 1. Players tied for the most: 1st place split "
        "(remainder dropped), 2nd place and after in full. A tie for a place uses up the places after it."
    )
    same = "Tied players each score in full."
    assert same in describe(BEES.replace("{most: split, least: full}", "{most: full, least: [full]}"))
    assert same in describe(BEES.replace("{most: split, least: full}", "full"))
