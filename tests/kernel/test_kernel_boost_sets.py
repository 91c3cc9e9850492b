"""The disjoint sets, the neighbours, the general modifier pairing and the boost in the
kernel: each part scores tables as its rule does, and Lantern Festival and Meadow
Keepers (and a file of two boosts on a wasabi) play the reference engine's games."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from ruledraft.kernel.codegen import plain_rule
from ruledraft.language.loading import load_ruleset
from ruledraft.tableau import Tableau

ROOT = Path(__file__).resolve().parent.parent.parent
LANTERN = str(ROOT / "examples" / "lantern-festival.yaml")
MEADOW = str(ROOT / "examples" / "meadow-keepers.yaml")

#: two boosts (the second on the table the first left, one game-end boost on kept cards),
#: a wasabi the boosted nigiri ride onto, disjoint sets of different cards, neighbours by round
TWO_BOOSTS = """\
format: 1
id: two-boosts
name: Two Boosts
players: {min: 2, max: 4}
cards:
  - {id: egg, count: 8, tags: [nigiri], attributes: {v: 1}}
  - {id: salmon, count: 8, tags: [nigiri], attributes: {v: 2}}
  - {id: squid, count: 6, tags: [nigiri], attributes: {v: 3}}
  - {id: wasabi, count: 5}
  - {id: spark, count: 5}
  - {id: flare, count: 4}
  - {id: gem, count: 8, keep: game}
  - {id: prism, count: 4, keep: game}
deal:
  hand_size: {2-4: 9}
  between_rounds: reshuffle
rounds: {count: 3}
scoring:
  - {id: nigiri, kind: per_card, cards: {tag: nigiri}, value: {attribute: v}}
  - {id: wasabi, kind: modifier, card: wasabi, targets: {tag: nigiri}, value: {attribute: v}, factor: 3}
  - {id: trio, kind: sets, cards: {tag: nigiri}, distinct: true, grouping: disjoint, size: 3, points: 4}
  - {id: most, kind: neighbours, quantity: {count: squid}, win: [1, 2], tie: 1, loss: [-1, 0, -2]}
  - {id: spark, kind: boost, card: spark, targets: {tag: nigiri}, factor: 2}
  - {id: flare, kind: boost, card: flare, targets: [salmon, squid], factor: 3, capacity: 2}
  - {id: gems, kind: table, cards: gem, points: [0, 1, 3, 6, 10, 15]}
  - {id: prism, kind: boost, card: prism, targets: gem, factor: 2, when: game_end}
"""


@pytest.fixture(scope="module")
def two_boosts(tmp_path_factory):
    path = tmp_path_factory.mktemp("rules") / "two-boosts.yaml"
    path.write_text(TWO_BOOSTS, encoding="utf-8")
    return str(path)


def _check_parts(ruleset, rng: random.Random, tables: int) -> set[str]:
    """Every rule's part against its ``score`` on random tables: the kinds checked."""
    K = ruleset.catalogue.size
    kinds = set()
    for rule in ruleset.rules:
        part = plain_rule(ruleset, rule)
        assert part is not None, rule.id
        kinds.add(type(rule).__name__)
        for _ in range(tables):
            seats = ruleset.num_seats(rng.choice(list(ruleset.player_counts)))
            cards = [[rng.randrange(K) for _ in range(rng.randrange(0, 15))] for _ in range(seats)]
            if rng.random() < 0.3:
                cards = [cards[0][:] for _ in range(seats)]
            t = Tableau.from_cards(K, cards, rng.randrange(1, ruleset.rounds + 1))
            seq = np.zeros((seats, 17), dtype=np.int64)
            for s, row in enumerate(t.cards):
                seq[s, : len(row)] = row
            lens = np.array([len(row) for row in t.cards], dtype=np.int64)
            out = np.zeros(seats, dtype=np.int64)
            part(np.array(t.counts, dtype=np.int64), seq, lens, t.round, out)
            assert out.tolist() == rule.score(t), f"rule {rule.id}, table {t.cards}, round {t.round}"
    return kinds


@pytest.mark.parametrize("source", [LANTERN, MEADOW], ids=["lantern-festival", "meadow-keepers"])
def test_the_examples_parts_score_600_random_tables_as_their_rules(source):
    """Every rule of Lantern Festival and Meadow Keepers, its kernel part as plain Python:
    600 random tables (a third of them level) scored as ``rule.score`` does."""
    kinds = _check_parts(load_ruleset(source), random.Random(source), 600)
    assert {"Sets", "Neighbours"} <= kinds


def test_two_boosts_a_wasabi_and_a_game_end_boost_score_as_their_rules(two_boosts):
    """Boosts in a row (the second reading the first's echoes), a classic wasabi under boosted
    nigiri and a game-end boost: 800 random tables scored alike."""
    kinds = _check_parts(load_ruleset(two_boosts), random.Random(18), 800)
    assert {"Boost", "Modifier", "Sets", "Neighbours", "Table", "PerCard"} <= kinds


def test_a_boosted_table_as_the_rulebook_example_counts_it(two_boosts):
    """A spark before a squid on a wasabi: the squid counts twice for every rule, so the
    boost adds 3 (nigiri) and 6 (the echo rides onto the same wasabi, tripled too), and
    nothing to the trio (two squids are one type) or the neighbours (a win either way):
    9, in the rule and in its kernel part."""
    ruleset = load_ruleset(two_boosts)
    spark = next(r for r in ruleset.rules if r.id == "spark")
    K = ruleset.catalogue.size
    egg, salmon, squid, wasabi, sp = 0, 1, 2, 3, 4
    t = Tableau.from_cards(K, [[wasabi, sp, squid, egg, salmon], []], 1)
    assert spark.score(t) == [9, 0]
    part = plain_rule(ruleset, spark)
    seq = np.zeros((2, 8), dtype=np.int64)
    seq[0, :5] = t.cards[0]
    out = np.zeros(2, dtype=np.int64)
    part(np.array(t.counts, dtype=np.int64), seq, np.array([5, 0], dtype=np.int64), 1, out)
    assert out.tolist() == [9, 0]
