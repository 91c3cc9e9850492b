"""Sets of different cards counted two ways, named by ``grouping``: ``layers`` (the default,
Party's onigiri) and ``disjoint`` (the most sets of exactly ``size`` different values).

Tables are scored through the engine's pipeline (``score_table``); the arithmetic is in
the comments. A ``sets`` rule without ``grouping`` scores as it always did.
"""

from __future__ import annotations

import functools
import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from ruledraft.engine.table_scoring import score_table
from ruledraft.language.kinds.sets import most_disjoint_sets
from ruledraft.language.loading import check_ruleset, load_ruleset

HEAD = """\
format: 1
id: gems
name: Gems
players: {min: 2, max: 4}
cards:
  - {id: ruby, count: 9, attributes: {colour: 1}}
  - {id: garnet, count: 9, attributes: {colour: 1}}
  - {id: amber, count: 9, attributes: {colour: 2}}
  - {id: topaz, count: 9, attributes: {colour: 3}}
  - {id: jade, count: 9, attributes: {colour: 4}}
  - {id: sapphire, count: 9, attributes: {colour: 5}}
  - {id: amethyst, count: 9, attributes: {colour: 6}}
  - {id: pebble, count: 9}
deal: {hand_size: {"2-4": 8}}
rounds: {count: 1}
scoring:
"""
SIX = "[ruby, amber, topaz, jade, sapphire, amethyst]"
#: "12 per set of 4 different colours", one colour per card
FOURS = f"  - {{id: gems, kind: sets, cards: {SIX}, distinct: true, grouping: disjoint, size: 4, points: 12}}\n"
#: what the designer first wrote: the layered sets, a set of 4 or more colours scoring 12
LAYERED = f"  - {{id: gems, kind: sets, cards: {SIX}, distinct: true, points: [0, 0, 0, 0, 12]}}\n"
#: ruby and garnet share colour 1: 5 per set of 3 different colours
COLOURS = (
    "  - {id: gems, kind: sets, cards: [ruby, garnet, amber, topaz], distinct: colour, grouping: disjoint,"
    " size: 3, points: 5}\n"
)


@functools.cache
def ruleset(rules: str):
    return load_ruleset("gems.yaml", text=HEAD + rules)


def points(rules: str, *seats: list[str]) -> list[int]:
    """The gems rule's points for these seats' cards."""
    return score_table(ruleset(rules), {"rounds": [[list(s) for s in seats]]})["rules"]["gems"]


#: 8 cards over 6 colours, ruby and amber twice
EIGHT = ["ruby", "ruby", "amber", "amber", "topaz", "jade", "sapphire", "amethyst"]


def test_eight_cards_over_six_colours_make_two_sets_of_four():
    """Disjoint: {ruby, amber, topaz, jade} + {ruby, amber, sapphire, amethyst}: 2 x 12 = 24;
    layered: one set of 6 colours (12) and one of 2 (0) = 12."""
    assert points(FOURS, EIGHT, []) == [24, 0]
    assert points(LAYERED, EIGHT, []) == [12, 0]


def test_disjoint_sets_by_hand():
    """Counts per colour and the most sets of 4 different colours they make."""
    # 3 rubies + amber, topaz, jade: rubies can be in one set only: 1 set (the other 2 rubies left over)
    assert points(FOURS, ["ruby"] * 3 + ["amber", "topaz", "jade"], []) == [12, 0]
    # two each of four colours: 2 sets = 24; three colours only (9 cards): no set = 0
    assert points(FOURS, ["ruby", "amber", "topaz", "jade"] * 2, ["ruby", "amber", "topaz"] * 3) == [24, 0]
    # 2, 2, 2, 1, 1 of five colours (8 cards): 2 sets use 8 cards, min(c, 2) = 2+2+2+1+1 = 8 >= 2 x 4
    assert points(FOURS, ["ruby", "amber", "topaz"] * 2 + ["jade", "sapphire"], []) == [24, 0]
    # 3, 3, 1, 1 (8 cards): min(c, 2) = 2+2+1+1 = 6 < 8, so only 1 set
    assert points(FOURS, ["ruby", "amber"] * 3 + ["topaz", "jade"], []) == [12, 0]


def test_values_of_an_attribute_count_as_one():
    """Ruby and garnet are both colour 1: ruby, garnet, amber, topaz make one set of 3 colours (5)."""
    assert points(COLOURS, ["ruby", "garnet", "amber", "topaz"], []) == [5, 0]
    # colour counts 2, 2, 2: two sets of 3 = 10
    assert points(COLOURS, ["ruby", "garnet", "amber", "amber", "topaz", "topaz"], []) == [10, 0]
    # colour counts 2, 1: only 2 colours, no set
    assert points(COLOURS, ["ruby", "garnet", "amber"], ["pebble"]) == [0, 0]


@functools.cache
def brute_force(counts: tuple[int, ...], size: int) -> int:
    """The most sets of ``size`` different types, by trying every first set (``counts`` sorted)."""
    best = 0
    for chosen in itertools.combinations([i for i, c in enumerate(counts) if c], size):
        rest = tuple(sorted(c - (i in chosen) for i, c in enumerate(counts)))
        best = max(best, 1 + brute_force(rest, size))
    return best


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=6), st.integers(1, 4))
def test_the_count_of_disjoint_sets_is_the_most_possible(counts, size):
    """most_disjoint_sets equals an exhaustive search over the ways of making sets."""
    assert most_disjoint_sets(counts, size) == brute_force(tuple(sorted(counts)), size)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["ruby", "garnet", "amber", "topaz", "jade", "pebble"]), max_size=12))
def test_a_sets_rule_without_grouping_means_layers(cards):
    """distinct sets without grouping score as grouping: layers on any table (the meaning files had)."""
    plain = "  - {id: gems, kind: sets, cards: [ruby, garnet, amber, topaz, jade], distinct: colour, points: [0, 1, 4, 9]}\n"
    layers = plain.replace("distinct: colour,", "distinct: colour, grouping: layers,")
    assert points(plain, cards, []) == points(layers, cards, [])


def test_onigiri_in_the_bundled_party_library_still_scores_in_layers():
    """Party's onigiri (circle, triangle, 2 squares) still scores 9 + 1."""
    rs = load_ruleset("sushi-go-party-master-menu")
    rule = next(r for r in rs.rules if r.id == "onigiri")
    assert not rule.disjoint
    cards = ["onigiri_circle", "onigiri_triangle", "onigiri_square", "onigiri_square"]
    table = {"rounds": [[cards, [], []]] + [[[], [], []]] * (rs.rounds - 1)}
    assert score_table(rs, table)["rules"]["onigiri"] == [10, 0, 0]


def diagnostics(rules: str) -> list[tuple[int, int, str]]:
    return [(d.line, d.column, d.message) for d in check_ruleset("gems.yaml", text=HEAD + rules).diagnostics]


def test_wrong_disjoint_specs_are_located():
    """grouping without distinct, a misspelt grouping, no size, and a size no selection can fill."""
    assert diagnostics("  - {id: gems, kind: sets, cards: ruby, grouping: disjoint, size: 2, points: 3}\n") == [
        (17, 41, "'grouping' needs 'distinct': it says how sets of different cards are made")
    ]
    assert diagnostics(
        f"  - {{id: gems, kind: sets, cards: {SIX}, distinct: true, grouping: disjont, size: 4, points: 12}}\n"
    ) == [(17, 109, "'grouping' must be one of layers, disjoint, not 'disjont' (did you mean 'disjoint'?)")]
    assert diagnostics(
        f"  - {{id: gems, kind: sets, cards: {SIX}, distinct: true, grouping: disjoint, points: 12}}\n"
    ) == [(17, 5, "missing required key 'size' in a 'sets' scoring rule")]
    assert diagnostics(COLOURS.replace("size: 3", "size: 4")) == [
        (
            17,
            109,
            "a set needs 4 different values, but the cards selected have only 3 values of 'colour': "
            "no set could ever score",
        )
    ]


def test_show_names_the_disjoint_meaning():
    """show says the sets are the most disjoint sets of exactly size values, and what left-over cards score."""
    (rule,) = ruleset(FOURS).rules
    assert rule.describe() == (
        "The most sets of 4 different cards among Ruby, Amber, Topaz, Jade, Sapphire, Amethyst, no card in "
        "two sets: each set scores 12; cards left over score nothing."
    )
    (rule,) = ruleset(COLOURS).rules
    assert rule.describe().startswith("The most sets of 3 different colours among Ruby, Garnet, Amber, Topaz,")


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 6), min_size=1, max_size=7),
    st.lists(st.integers(0, 30), min_size=1, max_size=6),
    st.booleans(),
)
def test_sets_in_layers_score_one_peel_of_different_types_at_a_time(counts, table, paired):
    """Layers score each peel of one card per type left as table[types] (last entry beyond), classes as one type."""
    from ruledraft.language.kinds.sets import Sets
    from ruledraft.tableau import Tableau

    indices = tuple(range(len(counts)))
    classes = tuple(indices[i : i + 2] for i in range(0, len(indices), 2)) if paired else ()
    rule = Sets("s", "round", indices, 1, 0, tuple(table), distinct=True, classes=classes)
    left = [sum(counts[i] for i in members) for members in classes] if paired else list(counts)
    expected = 0
    while any(left):
        expected += table[min(sum(1 for c in left if c), len(table) - 1)]
        left = [max(c - 1, 0) for c in left]
    assert rule.score(Tableau([counts, [0] * len(counts)], [[], []])) == [expected, 0]
