"""Each scoring kind's kernel part scores a table as the kind's own rule does.

The part is run as plain Python (``codegen.plain_rule``: the very source the kernel
compiles, without numba), so every rule of every bundled ruleset, example and test
rule file is checked against ``rule.score`` on many random tables, cheaply.
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from strategies import BUNDLED_RULESETS

from ruledraft.errors import RulesetError
from ruledraft.kernel.codegen import plain_rule
from ruledraft.language.loading import load_ruleset
from ruledraft.tableau import Tableau

ROOT = Path(__file__).resolve().parent.parent.parent
FILES = [*BUNDLED_RULESETS, *sorted(str(p) for p in (ROOT / "examples").glob("*.yaml"))]


def _ruleset(source: str):
    try:
        return load_ruleset(source)
    except RulesetError:
        return None  # a tutorial's broken file, or a card library without a menu


def _random_table(rng: random.Random, seats: int, card_types: int, rnd: int) -> Tableau:
    cards = [[rng.randrange(card_types) for _ in range(rng.randrange(0, 14))] for _ in range(seats)]
    if rng.random() < 0.3:  # many equal tables: ties, everyone level
        cards = [cards[0][:] for _ in range(seats)]
    return Tableau.from_cards(card_types, cards, rnd)


@pytest.mark.parametrize("source", FILES, ids=lambda s: Path(s).stem)
def test_every_kernel_part_scores_random_tables_as_its_rule_does(source):
    """For every rule with a kernel part, at every seat count: 150 random tables scored alike."""
    ruleset = _ruleset(source)
    if ruleset is None:
        pytest.skip("not a playable rule file")
    rng = random.Random(source)
    K = ruleset.catalogue.size
    checked = 0
    for rule in ruleset.rules:
        part = plain_rule(ruleset, rule)
        if part is None:
            continue
        for _ in range(150):
            seats = ruleset.num_seats(rng.choice(list(ruleset.player_counts)))
            t = _random_table(rng, seats, K, rng.randrange(1, ruleset.rounds + 1))
            counts = np.array(t.counts, dtype=np.int64)
            seq = np.zeros((seats, 16), dtype=np.int64)
            for s, cards in enumerate(t.cards):
                seq[s, : len(cards)] = cards
            lens = np.array([len(c) for c in t.cards], dtype=np.int64)
            out = np.zeros(seats, dtype=np.int64)
            part(counts, seq, lens, t.round, out)
            assert out.tolist() == rule.score(t), f"rule {rule.id}, table {t.cards}, round {t.round}"
        checked += 1
    assert checked or not ruleset.rules


def test_the_parts_cover_every_built_in_kind_but_the_race():
    """Sets, table, per-card, modifier, majority and expression rules all have a kernel part."""
    kinds = set()
    for source in FILES:
        ruleset = _ruleset(source)
        for rule in ruleset.rules if ruleset is not None else ():
            if plain_rule(ruleset, rule) is not None:
                kinds.add(type(rule).__name__)
    assert {"Sets", "Table", "PerCard", "Modifier", "Majority", "Expression"} <= kinds
