"""Properties of the ``boost`` kind over any tables: the boosted table is the table as
played with each boosted card repeated (counts and cards agreeing), a boost without
its card on the table changes nothing, and the totals are the other rules scored on
the boosted table."""

from __future__ import annotations

import functools
from collections import Counter

from hypothesis import assume, given
from hypothesis import strategies as st

from ruledraft.engine.scoresheet import score_scoring
from ruledraft.language.loading import load_ruleset
from ruledraft.tableau import Tableau

HEAD = """\
format: 1
id: lanterns
name: Lanterns
players: {min: 2, max: 4}
cards:
  - {id: red,   count: 20, tags: [lantern], attributes: {colour: 1, glow: 1}}
  - {id: blue,  count: 20, tags: [lantern], attributes: {colour: 2, glow: 1}}
  - {id: gold,  count: 20, tags: [lantern], attributes: {colour: 3, glow: 2}}
  - {id: sparkler, count: 20}
  - {id: red_dye, count: 20, tags: [dye], attributes: {colour: 1}}
  - {id: clear_dye, count: 20, tags: [dye]}
deal: {hand_size: {"2-4": 7}}
rounds: {count: 1}
scoring:
  - {id: light, kind: per_card, cards: {tag: lantern}, value: 1}
  - {id: garlands, kind: sets, cards: {tag: lantern}, distinct: colour, grouping: disjoint, size: 3, points: 6}
  - {id: layers, kind: sets, cards: {tag: lantern}, distinct: colour, points: [0, 1, 3, 6]}
  - {id: fight, kind: neighbours, quantity: {sum: glow}, win: 2, loss: -1}
  - {id: brightest, kind: majority, quantity: {sum: glow}, most: [5, 2]}
  - {id: dye, kind: modifier, card: {tag: dye}, targets: {tag: lantern}, value: 1, factor: 3, capacity: 2, same: colour}
"""
BOOST = "  - {id: sparkle, kind: boost, card: sparkler, targets: {tag: lantern}, factor: FACTOR}\n"


@functools.cache
def ruleset(factor: int | None):
    return load_ruleset("lanterns.yaml", text=HEAD + ("" if factor is None else BOOST.replace("FACTOR", str(factor))))


tables = st.lists(st.lists(st.integers(0, 5), max_size=9), min_size=2, max_size=4)
factors = st.integers(2, 4)


def boost_of(factor: int):
    return next(r for r in ruleset(factor).round_rules if r.id == "sparkle")


@given(tables, factors)
def test_the_boosted_table_repeats_each_boosted_card(cards, factor):
    """Counts and cards agree on the boosted table; without its echoes it is the table as played."""
    rs = ruleset(factor)
    after = boost_of(factor).as_read(Tableau.from_cards(rs.catalogue.size, cards))
    assert after.echoes is not None
    for s, seq in enumerate(cards):
        assert Counter(after.cards[s]) == Counter({c: n for c, n in enumerate(after.counts[s]) if n})
        kept = [c for p, c in enumerate(after.cards[s]) if p not in after.echoes[s]]
        assert kept == seq
        # each echo repeats the card before it, factor - 1 echoes per boosted card
        assert all(after.cards[s][p] == after.cards[s][p - 1] for p in after.echoes[s])
        assert len(after.echoes[s]) % (factor - 1) == 0


@given(tables, factors)
def test_a_boost_without_its_card_changes_nothing(cards, factor):
    """A table with no sparkler scores every rule as the ruleset without the boost does, and the boost 0."""
    sparkler = ruleset(factor).catalogue.index_of("sparkler")
    assume(all(sparkler not in seq for seq in cards))
    t = Tableau.from_cards(ruleset(factor).catalogue.size, cards)
    with_boost = score_scoring(ruleset(factor).round_rules, t).by_rule()
    without = score_scoring(ruleset(None).round_rules, t).by_rule()
    assert with_boost.pop("sparkle") == [0] * len(cards)
    assert with_boost == without


@given(tables, factors)
def test_the_totals_are_the_other_rules_on_the_boosted_table(cards, factor):
    """Round totals with the boost equal the other rules' points on the boosted table."""
    t = Tableau.from_cards(ruleset(factor).catalogue.size, cards)
    totals = score_scoring(ruleset(factor).round_rules, t).totals
    boosted = boost_of(factor).as_read(t)
    assert totals == score_scoring(ruleset(None).round_rules, boosted).totals
