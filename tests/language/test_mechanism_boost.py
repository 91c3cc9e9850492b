"""The ``boost`` kind: a card that makes the next target card count twice for every
other rule (its count, its icons, the sets, tables, majorities and neighbour fights it
is in), scoring the difference it makes; and its interactions: a boosted card in
layered and in disjoint sets, under a same-colour modifier, cards turned face down,
neighbours at 2 and 3 players.

Tables are scored through the engine's pipeline (``score_table``); the arithmetic is in
the comments. Lanterns: red (colour 1, glow 1), blue (colour 2, glow 1), gold (colour
3, glow 2), green (colour 4, glow 1).
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

from ruledraft.engine.table_scoring import score_table
from ruledraft.errors import RulesetError
from ruledraft.kernel.codegen import plain_rule, write_source
from ruledraft.language.loading import load_ruleset
from ruledraft.tableau import Tableau

HEAD = """\
format: 1
id: lanterns
name: Lanterns
players: {min: 2, max: 5}
cards:
  - {id: red,   count: 10, tags: [lantern], attributes: {colour: 1, glow: 1}}
  - {id: blue,  count: 10, tags: [lantern], attributes: {colour: 2, glow: 1}}
  - {id: gold,  count: 10, tags: [lantern], attributes: {colour: 3, glow: 2}}
  - {id: green, count: 10, tags: [lantern], attributes: {colour: 4, glow: 1}}
  - {id: sparkler, count: 10}
  - {id: red_dye, count: 4, tags: [dye], attributes: {colour: 1}}
  - {id: blue_dye, count: 4, tags: [dye], attributes: {colour: 2}}
  - {id: clear_dye, count: 4, tags: [dye]}
  - {id: box, count: 4, group: none}
deal: {hand_size: {"2-5": 7}}
rounds: {count: 1}
scoring:
"""
SPARKLE = "  - {id: sparkle, kind: boost, card: sparkler, targets: {tag: lantern}, factor: 2}\n"
LIGHT = "  - {id: light, kind: per_card, cards: {tag: lantern}, value: 1}\n"


@functools.cache
def ruleset(rules: str):
    return load_ruleset("lanterns.yaml", text=HEAD + rules)


def rules_of(rules: str, *tables: list[str]) -> dict[str, list[int]]:
    """Each rule's points for one round of ``tables`` (card ids per seat, in play order)."""
    return score_table(ruleset(rules), {"rounds": [list(tables)]})["rules"]


def test_a_boosted_card_counts_twice_for_a_count():
    """A lantern after the sparkler counts as two lanterns; one before it does not."""
    # seat 0: the sparkler takes red: light 2 as played, 3 boosted: sparkle +1
    # seat 1: red came before the sparkler, blue after it: blue boosted: +1
    # seat 2: a sparkler with nothing after it: 0
    got = rules_of(LIGHT + SPARKLE, ["sparkler", "red", "blue"], ["red", "sparkler", "blue"], ["red", "sparkler"])
    assert got == {"light": [2, 2, 1], "sparkle": [1, 1, 0]}


def test_a_boosted_card_doubles_its_icons_in_a_table_over_a_sum():
    """The issue's example: a table over icon totals reads twice the boosted card's glow."""
    rules = "  - {id: glow, kind: table, quantity: {sum: glow}, points: [0, 1, 3, 6, 10, 15]}\n" + SPARKLE
    # seat 0: gold (2) + red (1) = 3 glow: 6; the sparkler doubles gold: 5 glow: 15, so +9
    # seat 1: the sparkler doubles red: 2 + 1 + 1 = 4 glow: 10 instead of 6: +4
    got = rules_of(rules, ["sparkler", "gold", "red"], ["gold", "sparkler", "red"])
    assert got == {"glow": [6, 6], "sparkle": [9, 4]}


def test_a_boosted_card_can_win_a_majority():
    """Most glow 6, second 3: a doubled gold lantern takes the first place from the other seat."""
    rules = "  - {id: brightest, kind: majority, quantity: {sum: glow}, most: [6, 3]}\n" + SPARKLE
    # as played: seat 0 glow 2, seat 1 glow 3 (gold + red): 3 and 6
    # boosted: seat 0 glow 4 beats 3: 6 and 3, so the sparkle gives +3 and -3
    got = rules_of(rules, ["sparkler", "gold"], ["gold", "red"])
    assert got == {"brightest": [3, 6], "sparkle": [3, -3]}


def test_a_boosted_card_in_layered_sets():
    """Layered sets of different colours (onigiri): the second copy starts a second layer."""
    rules = (
        "  - {id: garland, kind: sets, cards: {tag: lantern}, distinct: colour, points: [0, 1, 3, 6, 10]}\n" + SPARKLE
    )
    # as played: red, blue, gold: one layer of 3 colours: 6
    # red boosted: red x2, blue, gold: layer {red, blue, gold} 6 + layer {red} 1 = 7: +1
    # seat 1: blue boosted, then blue played: blue x3, green: layers {blue, green} 3 + {blue} 1 + {blue} 1 = 5,
    #   as played {blue, green} 3 + {blue} 1 = 4: +1
    got = rules_of(rules, ["sparkler", "red", "blue", "gold"], ["sparkler", "blue", "green", "blue"])
    assert got == {"garland": [6, 4], "sparkle": [1, 1]}


def test_a_boosted_card_in_disjoint_sets():
    """Disjoint sets of 3 colours, 6 each: the two copies of a boosted card go into two sets."""
    rules = (
        "  - {id: garlands, kind: sets, cards: {tag: lantern}, distinct: colour, grouping: disjoint,"
        " size: 3, points: 6}\n" + SPARKLE
    )
    # seat 0: gold, red x2, blue x2: gold is in one set only: 1 set, 6; gold boosted: 2 sets, 12: +6
    # seat 1: red boosted, with blue: red x2, blue: two colours only, no set either way: 0
    got = rules_of(rules, ["sparkler", "gold", "red", "blue", "red", "blue"], ["sparkler", "red", "blue"])
    assert got == {"garlands": [6, 0], "sparkle": [6, 0]}


DYE = "  - {id: dye, kind: modifier, card: {tag: dye}, targets: {tag: lantern}, value: 1, factor: 3, same: colour}\n"


def test_a_boosted_card_under_a_same_colour_modifier():
    """A doubled red lantern on a red dye: two red lanterns, both tripled (2 x 3 = 6)."""
    # seat 0: the sparkler and the red dye both take red: as played light 1, dye extra 2;
    #   boosted light 2 (+1) and both copies on the dye: extra 4 (+2): sparkle 3; in all 1 + 2 + 3 = 6
    # seat 1: the red dye passes over blue (colour 2) and takes red; the sparkler takes blue:
    #   light 2, dye 2, sparkle +1 (blue counts twice, not on a dye)
    got = rules_of(LIGHT + DYE + SPARKLE, ["sparkler", "red_dye", "red"], ["red_dye", "sparkler", "blue", "red"])
    assert got == {"light": [1, 2], "dye": [2, 2], "sparkle": [3, 1]}


def test_two_boosts_on_one_card_count_it_four_times():
    """Two boost rules on one card: each counts what the earlier left: 1 -> 2 -> 4 cards."""
    rules = LIGHT + SPARKLE + "  - {id: glitter, kind: boost, card: sparkler, targets: red, factor: 2}\n"
    # red is on a sparkler for both: light 1; sparkle 2 - 1 = 1; glitter 4 - 2 = 2
    assert rules_of(rules, ["sparkler", "red"], []) == {"light": [1, 0], "sparkle": [1, 0], "glitter": [2, 0]}


def score_turned(rules: str, seq: list[str], turned: dict[int, tuple[str, int]]) -> dict[str, int]:
    """Each rule's points for one seat whose cards at some positions were turned face down
    (as the engine tells the rules: position -> (the card it was, the table's length then))."""
    rs = ruleset(rules)
    index = rs.catalogue.index_of
    t = Tableau.from_cards(rs.catalogue.size, [[index(c) for c in seq]])
    t.turned = [{p: (index(was), n) for p, (was, n) in turned.items()}]
    return {rule.id: rule.score(t)[0] for rule in rs.round_rules}


def test_a_boost_turned_face_down_boosts_nothing():
    """A sparkler turned face down (a takeout box) after red went onto it: red counts once."""
    # positions: 0 the sparkler, now a box, turned when the table had 2 cards; 1 red
    assert score_turned(LIGHT + SPARKLE, ["box", "red"], {0: ("sparkler", 2)}) == {"light": 1, "sparkle": 0}


def test_a_boosted_card_turned_face_down_keeps_the_boost_used():
    """Red on the sparkler, then turned face down: it counts as a box, and the sparkler's
    place stays taken (the blue after it is not boosted)."""
    # light: only blue, 1; the red's pair is broken, the blue finds no room: sparkle 0
    got = score_turned(LIGHT + SPARKLE, ["sparkler", "box", "blue"], {1: ("red", 2)})
    assert got == {"light": 1, "sparkle": 0}


def test_a_boost_turned_before_its_target_takes_nothing():
    """A sparkler already face down when red is played never takes it."""
    assert score_turned(LIGHT + SPARKLE, ["box", "red"], {0: ("sparkler", 1)}) == {"light": 1, "sparkle": 0}


def test_a_same_colour_modifier_turned_face_down():
    """A red dye turned face down after its red lantern: the red scores no extra."""
    # as played: red dye (now a box), red; the pair is broken: dye 0, light 1
    assert score_turned(LIGHT + DYE, ["box", "red"], {0: ("red_dye", 2)}) == {"light": 1, "dye": 0}
    # face up, the same table scores the extra 2
    assert rules_of(LIGHT + DYE, ["red_dye", "red"], []) == {"light": [1, 0], "dye": [2, 0]}


GLOW_FIGHT = "  - {id: fight, kind: neighbours, quantity: {sum: glow}, win: 2, loss: -1}\n" + SPARKLE


def test_a_boost_in_a_neighbour_fight_at_two_players():
    """At 2 players the one opponent is both neighbours, compared once: a doubled red ties a gold."""
    # as played: glow 1 against 2: -1 and 2; boosted: 2 against 2, a tie: 0 and 0
    # so the sparkle gives seat 0 +1 and takes 2 from seat 1
    got = rules_of(GLOW_FIGHT, ["sparkler", "red"], ["gold"])
    assert got == {"fight": [-1, 2], "sparkle": [1, -2]}


def test_a_boost_in_a_neighbour_fight_at_three_players():
    """At 3 players each seat's two neighbours are the two others, each compared once."""
    # as played glow 1, 2, 1: seat 0 loses to 1, ties 2: -1; seat 1 beats both: 4; seat 2: -1
    # boosted seat 0 has 2: ties seat 1, beats seat 2: 2; seat 1 ties 0, beats 2: 2; seat 2 loses both: -2
    got = rules_of(GLOW_FIGHT, ["sparkler", "red"], ["gold"], ["blue"])
    assert got == {"fight": [-1, 4, -1], "sparkle": [3, -2, -1]}


def test_the_totals_are_the_rules_on_the_boosted_table():
    """The round's totals are what every rule scores on the boosted table."""
    rs = ruleset(LIGHT + DYE + SPARKLE)
    sheet = score_table(rs, {"rounds": [[["sparkler", "red_dye", "red"], ["red"]]]})
    # seat 0: the red counts as two red lanterns, each 1 x 3: 6; seat 1: 1
    assert sheet["totals"] == [6, 1]


def test_the_kernel_scores_a_boost_as_its_rule():
    """A ruleset with a boost has a kernel: the boost's part (run as plain Python) gives
    the rule's +1 for a lantern after the sparkler and 0 for one before it."""
    rs = ruleset(LIGHT + SPARKLE)
    assert "def rule1(" in write_source(rs)
    boost = rs.rules[1]
    t = Tableau.from_cards(rs.catalogue.size, [[4, 0], [0, 4, 1]])
    seq = np.array([[4, 0, 0], [0, 4, 1]], dtype=np.int64)
    out = np.zeros(2, dtype=np.int64)
    plain_rule(rs, boost)(np.array(t.counts, dtype=np.int64), seq, np.array([2, 3], dtype=np.int64), 1, out)
    assert out.tolist() == boost.score(t) == [1, 1]


def wrong(rules: str) -> list[str]:
    with pytest.raises(RulesetError) as e:
        load_ruleset("lanterns.yaml", text=HEAD + rules)
    return [f"{d.line}:{d.column}: {d.message}" for d in e.value.diagnostics]


def test_a_boost_of_an_unknown_card_is_located_with_a_suggestion():
    """An unknown boost card is reported where it is written, with the likely name."""
    got = wrong("  - {id: sparkle, kind: boost, card: sparkle, targets: {tag: lantern}, factor: 2}\n")
    assert got == ["18:38: unknown card 'sparkle' (did you mean 'sparkler'?)"]


def test_an_unknown_same_attribute_is_located_with_a_suggestion():
    """same: names an attribute of the cards; a misspelt one is located with the likely name."""
    got = wrong("  - {id: sparkle, kind: boost, card: sparkler, targets: {tag: lantern}, factor: 2, same: color}\n")
    assert got == ["18:90: no card has the attribute 'color' (did you mean 'colour'?)"]


def test_a_game_end_boost_needs_a_kept_card():
    """At game end only kept cards are scored: a boost card that is not kept is refused."""
    got = wrong("  - {id: sparkle, kind: boost, card: sparkler, targets: red, factor: 2, when: game_end}\n")
    assert len(got) == 1 and got[0].startswith("18:38: a game-end boost works on the cards kept to game end")


def test_a_factor_below_two_is_refused():
    """A boost that counts a card once changes nothing: the schema asks for 2 or more."""
    got = wrong("  - {id: sparkle, kind: boost, card: sparkler, targets: red, factor: 1}\n")
    assert len(got) == 1 and "factor" in got[0] and "2" in got[0]


def test_a_boosted_card_on_a_classic_modifier():
    """A one-card modifier without same: (wasabi) holds a boosted lantern's two copies in one place."""
    rules = (
        LIGHT + "  - {id: wasabi, kind: modifier, card: box, targets: {tag: lantern}, value: 1, factor: 3}\n" + SPARKLE
    )
    # seat 0: box (the wasabi), sparkler, red, blue: red on the box and on the sparkler; blue finds the box full
    #   as played: light 2, wasabi 2; boosted: light 3 (+1), both reds on the box: wasabi 4 (+2): sparkle 3
    #   in all 2 + 2 + 3 = 7 = red as two lanterns tripled (6) + blue (1)
    got = rules_of(rules, ["box", "sparkler", "red", "blue"], [])
    assert got == {"light": [2, 0], "wasabi": [2, 0], "sparkle": [3, 0]}


def test_thirty_boosts_play_a_game_at_once_and_score_it():
    """A 3 KB rule file of 30 boosts, each doubling an apple placed after its card: tables score as one boost would (an apple after b3 counts twice), and reference games play at once (each boost's read cards were worked out afresh from the earlier boosts', 2**30 steps a game)."""
    import json
    import subprocess
    import sys

    n = 30
    text = (
        "format: 1\nid: boosts\nname: Boosts\nplayers: {min: 2, max: 4}\ncards:\n  - {id: apple, count: 20}\n"
        + "".join(f"  - {{id: b{i}, count: 1}}\n" for i in range(n))
        + 'deal: {hand_size: {"2-4": 5}}\nrounds: {count: 1}\nscoring:\n'
        + "  - {id: apples, kind: per_card, cards: apple, value: 1}\n"
        + "".join(f"  - {{id: x{i}, kind: boost, card: b{i}, targets: apple, factor: 2}}\n" for i in range(n))
    )
    done = subprocess.run(
        [sys.executable, "-m", "ruledraft", "simulate", "-", "--engine", "reference", "--games", "3", "--json", "-q"],
        input=text,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["games"] == 3
    rs = load_ruleset("boosts.yaml", text=text)
    ids = rs.catalogue.ids
    table = [["apple", "b3", "apple", "b7"], ["b1", "apple"]]
    points = score_table(rs, {"rounds": [table]})["rules"]
    assert (points["apples"], points["x1"], points["x3"], points["x7"]) == ([2, 1], [0, 1], [1, 0], [0, 0])
    assert [sum(p[s] for p in points.values()) for s in (0, 1)] == [3, 2]  # an apple after its boost card: 2
    assert ids[0] == "apple"
