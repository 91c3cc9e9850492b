"""Generated rule files: the kernel plays every seed as the reference engine does.

Small rule files are drawn with every scoring kind the kernel has a part for
(per_card, table, sets in every form, majority, modifier, with ``same`` and several
modifier cards too, expression, neighbours, boost, race), cards added before rounds,
every pass shape (a direction per round, a pattern per turn), ``keep_deck`` and
``reshuffle``, and an extra-pick action; each is compiled with the normal pipeline,
its kernel built, and games of random, first, greedy and value bots compared with
the reference engine's move for move, with the same totals, rule points and winners;
where the kernel's batch holds a file (no card effect, no race), the batch environment's
games are played beside the PettingZoo environment's, step by step.

Compiling a kernel costs many seconds (numba); its machine code is cached by the
generated source (``~/.cache/ruledraft``), so the examples are drawn derandomized:
the same rule files every run, compiled once per machine and loaded afterwards
(measured on a 2-core machine at load 10-15: first run 5-13 minutes on the clock,
about 1.5 minutes of CPU; later runs about a minute on the clock, 8 s of CPU). A
ruleset the kernel refuses is assumed away; a separate test checks most drawn files
are taken.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

pytest.importorskip("numba")

from kernel_checks import assert_same_games  # noqa: E402

from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.errors import RulesetError  # noqa: E402
from ruledraft.kernel import Kernel, compile_kernel  # noqa: E402
from ruledraft.kernel.batch import batch_refusal  # noqa: E402
from ruledraft.kernel.codegen import NoKernel, plain_rule, refusal, write_source  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.runner import game_seed  # noqa: E402
from ruledraft.tableau import Tableau  # noqa: E402

KINDS = ("per_card", "table", "sets", "majority", "modifier", "expression", "neighbours", "boost", "race")
DIRECTIONS = ("left", "right", "none")
BOTS = ("random", "first", "greedy", "value")

#: expressions over cards a, b (any two card ids) the rules may use
EXPRESSIONS = (
    "count({a}) * 2 - count({b})",
    "if count({a}) > count({b}) then 3 else 0",
    "min(5, count({a}) * count({b}))",
    "count({a}) * min(3, count_opponents(count({a}) > 0))",
    "max_opponents(count({a})) - count({b})",
    "count({a}) % 3 + count({b}) / 2",
    "if count({a}) >= max_opponents(count({a})) and count({a}) > 0 then 4 else -1",
    "(count({a}) - count({b}) * 2) / 3 + (count({b}) - 4) % 3",  # rounding toward zero below 0
)


@st.composite
def rule_files(draw: Any) -> dict[str, Any]:
    """A small rule file as a document (see the module docstring)."""
    n = draw(st.integers(3, 6))
    ids = [f"c{i}" for i in range(n)]
    cards: list[dict[str, Any]] = []
    for i, cid in enumerate(ids):
        card: dict[str, Any] = {"id": cid, "count": draw(st.integers(3, 8))}
        if i % 2 == 0 or draw(st.booleans()):
            card["tags"] = ["t"]
            card["attributes"] = {"v": draw(st.integers(1, 3))}
        if draw(st.integers(0, 5)) == 0:
            card["keep"] = "game"
        cards.append(card)
    players_max = draw(st.integers(2, 4))
    hand = draw(st.integers(3, 6))
    rounds = draw(st.integers(1, 3))
    between = draw(st.sampled_from(("keep_deck", "reshuffle")))
    card_id = st.sampled_from(ids)
    selector = st.one_of(card_id, st.just({"tag": "t"}), st.lists(card_id, min_size=1, max_size=3, unique=True))
    doc: dict[str, Any] = {
        "format": 1,
        "id": "generated",
        "name": "Generated",
        "players": {"min": 2, "max": players_max},
        "cards": cards,
        "deal": {"hand_size": {f"2-{players_max}" if players_max > 2 else "2": hand}, "between_rounds": between},
        "rounds": {"count": rounds},
        "turn": {"procedure": "standard"},
    }
    if draw(st.booleans()):  # a pattern per turn in some rounds
        doc["rounds"]["pass"] = [
            draw(
                st.one_of(
                    st.sampled_from(DIRECTIONS),
                    st.builds(lambda t: {"turns": t}, st.lists(st.sampled_from(DIRECTIONS), min_size=1, max_size=3)),
                )
            )
            for _ in range(rounds)
        ]
    else:
        doc["rounds"]["pass"] = [draw(st.sampled_from(DIRECTIONS)) for _ in range(rounds)]
    if rounds > 1 and draw(st.booleans()):  # one card type joins the deck before each round
        held = draw(card_id)
        held_card = next(c for c in cards if c["id"] == held)
        per_round = [draw(st.integers(0, 2)) for _ in range(rounds)]
        held_card["count"] = max(held_card["count"], sum(per_round))
        doc["rounds"]["add"] = [{"cards": held, "count": {f"2-{players_max}" if players_max > 2 else "2": per_round}}]
    if draw(st.booleans()):  # an extra pick: play the card, later take two cards in a turn
        cards.append({"id": "chop", "count": draw(st.integers(1, 4))})
        doc["actions"] = [{"id": "chopsticks", "kind": "extra_pick", "card": "chop", "extra": 1}]
    rules: list[dict[str, Any]] = []
    for j, kind in enumerate(draw(st.lists(st.sampled_from(KINDS), min_size=1, max_size=4))):
        rule: dict[str, Any] = {"id": f"r{j}", "kind": kind}
        if draw(st.integers(0, 3)) == 0:
            rule["when"] = "game_end"
        if kind == "per_card":
            rule["cards"] = draw(selector)
            rule["value"] = draw(st.one_of(st.integers(-3, 5), st.just({"attribute": "v"})))
            if isinstance(rule["value"], dict):
                rule["cards"] = {"tag": "t"}
        elif kind == "table":
            rule["cards"] = draw(selector)
            rule["points"] = draw(st.lists(st.integers(-2, 12), min_size=1, max_size=5))
        elif kind == "sets":
            shape = draw(st.sampled_from(("size", "layers", "disjoint")))
            if shape == "size":
                rule["cards"] = draw(selector)
                rule["size"] = draw(st.integers(1, 3))
                rule["points"] = draw(st.integers(-2, 10))
            else:
                rule["cards"] = {"tag": "t"}
                rule["distinct"] = draw(st.sampled_from((True, "v")))
                if shape == "disjoint":
                    rule["grouping"] = "disjoint"
                    rule["size"] = draw(st.integers(2, 3))
                    rule["points"] = draw(st.integers(1, 10))
                else:
                    rule["points"] = draw(st.lists(st.integers(0, 12), min_size=1, max_size=5))
        elif kind == "majority":
            rule["quantity"] = draw(
                st.one_of(st.builds(lambda c: {"count": c}, selector), st.just({"sum": "v", "of": {"tag": "t"}}))
            )
            rule["most"] = draw(st.lists(st.integers(1, 8), min_size=1, max_size=2))
            if draw(st.booleans()):
                rule["least"] = draw(st.lists(st.integers(-6, -1), min_size=1, max_size=1))
            rule["ties"] = draw(st.sampled_from(("split", "full")))
            rule["tie_skips_places"] = draw(st.booleans())
            if draw(st.booleans()):
                rule["minimum"] = draw(st.integers(1, 2))
            if draw(st.booleans()):
                rule["all_equal"] = "nothing"
            if draw(st.integers(0, 3)) == 0:
                rule["multiplier"] = {"count": draw(card_id)}
        elif kind == "modifier":
            rule["card"] = draw(card_id)
            rule["targets"] = draw(
                st.one_of(st.just({"tag": "t"}), st.lists(card_id, min_size=1, max_size=2, unique=True))
            )
            rule["value"] = draw(st.one_of(st.integers(1, 3), st.just({"attribute": "v"})))
            if isinstance(rule["value"], dict):
                rule["targets"] = {"tag": "t"}
            rule["factor"] = draw(st.integers(2, 3))
            rule["capacity"] = draw(st.integers(1, 2))
            if draw(st.integers(0, 2)) == 0:  # several modifier cards, targets of their value of v
                rule["card"] = draw(st.lists(card_id, min_size=1, max_size=2, unique=True))
                rule["targets"] = {"tag": "t"}
                rule["same"] = "v"
        elif kind == "neighbours":
            rule["quantity"] = draw(
                st.one_of(st.builds(lambda c: {"count": c}, selector), st.just({"sum": "v", "of": {"tag": "t"}}))
            )
            points = st.integers(-3, 4)
            by_round = st.one_of(points, st.lists(points, min_size=1, max_size=3))
            for key in draw(st.lists(st.sampled_from(("win", "tie", "loss")), min_size=1, max_size=3, unique=True)):
                rule[key] = draw(points if rule.get("when") == "game_end" else by_round)
        elif kind == "boost":
            rule["card"] = draw(st.one_of(card_id, st.lists(card_id, min_size=1, max_size=2, unique=True)))
            rule["targets"] = draw(
                st.one_of(st.just({"tag": "t"}), st.lists(card_id, min_size=1, max_size=3, unique=True))
            )
            rule["factor"] = draw(st.integers(2, 3))
            if draw(st.booleans()):
                rule["capacity"] = draw(st.integers(1, 2))
            if draw(st.integers(0, 2)) == 0:
                rule["targets"] = {"tag": "t"}
                rule["same"] = "v"
            rule.pop("when", None)  # at game end its cards must be kept: at round end
        elif kind == "race":  # places at turn ends, the scorers' cards taken off the tables
            rule["cards"] = draw(selector)
            if draw(st.booleans()):
                rule["cards"] = {"tag": "t"}
                rule["value"] = {"attribute": "v"}
            rule["threshold"] = draw(st.integers(2, 6))
            rule["places"] = draw(st.lists(st.integers(-3, 9), min_size=1, max_size=3))
            rule["ties"] = draw(st.sampled_from(("full", "split")))
            rule["leftovers"] = draw(st.sampled_from(("places", "nothing")))
            rule.pop("when", None)  # a race scores during the rounds
        else:
            a, b = draw(card_id), draw(card_id)
            rule["expr"] = draw(st.sampled_from(EXPRESSIONS)).format(a=a, b=b)
        rules.append(rule)
    doc["scoring"] = rules
    if draw(st.booleans()):
        doc["winner"] = {"tie_breaks": [{draw(st.sampled_from(("most", "least"))): {"count": draw(card_id)}}]}
    effects = draw(st.integers(0, 5))  # cards that act: miso soup (collision), Party chopsticks (second_pick)
    if effects in (1, 3):
        cards.append({"id": "miso", "count": draw(st.integers(2, 6)), "effect": {"kind": "collision"}})
    if effects in (2, 3):
        cards.append({"id": "pchop", "count": draw(st.integers(1, 3)), "effect": {"kind": "second_pick"}})
    deck = sum(c["count"] for c in cards)
    seats_cards = players_max * (hand + 1) * (1 if between == "reshuffle" else rounds)
    if deck < seats_cards:  # enough cards for the deals: a filler nobody scores
        cards.append({"id": "filler", "count": seats_cards - deck})
    return doc


def _compiled(doc: dict[str, Any]):
    """The compiled ruleset of a generated document (None: the language refuses it)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "generated.yaml"
        path.write_text(json.dumps(doc), encoding="utf-8")
        try:
            return load_ruleset(str(path))
        except RulesetError:
            return None


def _kernel_source(ruleset) -> str | None:
    """The kernel's source for the ruleset, without compiling it (None: no kernel)."""
    if ruleset is None or refusal(ruleset) is not None:
        return None
    try:
        return write_source(ruleset)
    except NoKernel:
        return None


def _assert_same_games(kernel: Kernel, bots: list[str], seeds: list[int]) -> None:
    """Kernel and reference games of ``seeds``: the same moves, decisions, totals, winners and rule points."""
    assert_same_games(kernel, bots, seeds, decisions=True)


SLOW = settings(
    max_examples=3,  # each a kernel compiled (about 20 s of processor time when not in the cache)
    derandomize=True,  # the same rule files every run: their kernels come from the cache
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@SLOW
@given(doc=rule_files(), data=st.data())
def test_the_kernel_plays_generated_rule_files_as_the_reference_does(doc, data):
    """A generated rule file the kernel takes, at its fewest and most players: seeds of
    random, first, greedy and value bots (two line-ups, 20 and 40 seeds) give the reference
    engine's moves and points."""
    ruleset = _compiled(doc)
    assume(_kernel_source(ruleset) is not None)  # every rule with a kernel part
    for players in sorted({ruleset.min_players, ruleset.max_players}):
        kernel = compile_kernel(ruleset, players)
        assert isinstance(kernel, Kernel), kernel
        for lineup in range(2):
            bots = data.draw(st.lists(st.sampled_from(BOTS), min_size=players, max_size=players), label="bots")
            first = data.draw(st.integers(0, 2**53 - 1), label="seed")
            _assert_same_games(kernel, bots, [game_seed(first, i) for i in range(20 * (lineup + 1))])


@SLOW
@given(doc=rule_files(), data=st.data())
def test_the_batch_environment_plays_generated_rule_files_as_the_pettingzoo_environment(doc, data):
    """A generated rule file the kernel's batch holds (no card effect, no race) with two
    rules or more, at a number of players drawn: two places of the batch environment,
    moved by random legal actions over two games or more each, give the reference
    PettingZoo environment's observations, masks, rewards and game ends at every step."""
    from batch_checks import play_alongside

    ruleset = _compiled(doc)
    assume(_kernel_source(ruleset) is not None and batch_refusal(ruleset) is None and len(ruleset.rules) >= 2)
    players = data.draw(st.integers(ruleset.min_players, ruleset.max_players), label="players")
    seed = data.draw(st.integers(0, 2**53 - 1), label="seed")
    assert play_alongside(Game(ruleset, players), 2, seed)["ended"] >= 4  # each place twice or more


def test_most_generated_rule_files_are_accepted_and_every_shape_is_drawn():
    """Of 100 generated rule files at least 80% compile and have a kernel (its source
    written, not compiled); those cover every kind, both between-round modes, cards
    added before rounds, pass patterns, the extra pick and the card effects with kernel parts."""
    drawn: list[tuple[dict[str, Any], Any]] = []

    @settings(max_examples=100, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(doc=rule_files())
    def draw(doc):
        drawn.append((doc, _compiled(doc)))

    draw()
    kernels = [(d, r) for d, r in drawn if _kernel_source(r) is not None]
    assert len(drawn) == 100
    assert len(kernels) >= 80
    kinds = {rule["kind"] for d, _ in kernels for rule in d["scoring"]}
    assert kinds == set(KINDS)
    assert {d["deal"]["between_rounds"] for d, _ in kernels} == {"keep_deck", "reshuffle"}
    assert any("add" in d["rounds"] for d, _ in kernels)
    assert any(isinstance(p, dict) for d, _ in kernels for p in d["rounds"]["pass"])
    assert any(r.actions for _, r in kernels)
    assert any(r.tie_breaks for _, r in kernels)
    assert {e.kind for _, r in kernels for e in r.effects} == {"collision", "second_pick"}


@settings(max_examples=80, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=rule_files(), data=st.data())
def test_every_generated_rules_kernel_part_scores_tables_as_the_rule_does(doc, data):
    """Each rule of a generated file, its kernel part run as plain Python: 30 drawn tables
    (any cards, any number of seats the file allows, any round) scored as ``rule.score`` does."""
    ruleset = _compiled(doc)
    assume(ruleset is not None)
    K = ruleset.catalogue.size
    parts = [(rule, plain_rule(ruleset, rule)) for rule in ruleset.rules]
    assume(any(part is not None for _, part in parts))
    for _ in range(30):
        seats = ruleset.num_seats(data.draw(st.sampled_from(list(ruleset.player_counts)), label="players"))
        cards = data.draw(
            st.lists(st.lists(st.integers(0, K - 1), max_size=12), min_size=seats, max_size=seats), label="tables"
        )
        t = Tableau.from_cards(K, cards, data.draw(st.integers(1, ruleset.rounds), label="round"))
        counts = np.array(t.counts, dtype=np.int64)
        seq = np.zeros((seats, 14), dtype=np.int64)
        for s, row in enumerate(t.cards):
            seq[s, : len(row)] = row
        lens = np.array([len(row) for row in t.cards], dtype=np.int64)
        for rule, part in parts:
            if part is not None:
                out = np.zeros(seats, dtype=np.int64)
                part(counts, seq, lens, t.round, out)
                assert out.tolist() == rule.score(t), f"rule {rule.id}, table {t.cards}, round {t.round}"
