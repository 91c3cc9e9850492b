"""A seat's points over a game stay within the language's value limit, bounded at
validation: what the game kernel's 64-bit integers and the statistics' floating-point
numbers could not hold exactly is refused with a located message."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest
from strategies import BUNDLED_RULESETS
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.errors import RulesetError
from ruledraft.language.bounds import MAX_TOTAL, rule_bound
from ruledraft.language.expression import ExpressionLimits
from ruledraft.language.kinds.plugin_rule import CheckedRule
from ruledraft.language.loading import check_ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent.parent
#: the examples (the plug-ins' are validated with their plug-in by tests/language/test_plugins.py)
EXAMPLES = sorted(
    str(p) for p in [*(ROOT / "examples").glob("*.yaml"), *(ROOT / "examples" / "tutorial").glob("*.yaml")]
)

HEAD = """\
format: 1
id: big
name: Big
players: {min: 2, max: 4}
cards:
  - {id: apple, count: 40}
  - {id: pear, count: 40}
deal:
  hand_size: {2-4: 5}
rounds: {count: 1}
scoring:
"""

LIMIT = "totals must stay between -1,000,000,000,000,000 and 1,000,000,000,000,000"


def found(tmp_path: Path, text: str) -> list:
    """``(line, column, message)`` of every error checking the rule file ``text`` gives."""
    path = tmp_path / "r.yaml"
    path.write_text(text, encoding="utf-8")
    return [(d.line, d.column, d.message) for d in check_ruleset(path).diagnostics if d.severity == "error"]


def test_the_limit_is_the_languages_value_limit():
    """A game's total is held to the same 10**15 as every value of an expression (below 2**53)."""
    assert MAX_TOTAL == ExpressionLimits.max_value == 10**15 < 2**53


def test_points_of_ten_to_the_seventeen_per_card_are_refused_where_written(tmp_path):
    """A per-card value of 10**17 is refused at the number, before anything is built."""
    text = HEAD + "  - {id: huge, kind: per_card, cards: apple, value: 100000000000000000}\n"
    assert found(tmp_path, text) == [(12, 53, "'value' must be at most 1000000, not 100000000000000000")]


def test_a_huge_multiplier_is_refused_at_the_multiplier(tmp_path):
    """A majority's award times a multiplier that can reach 4 * 10**10 would pass 10**15: refused, naming the
    rule and the bound, at the multiplier."""
    text = (
        HEAD + "  - {id: maj, kind: majority, quantity: {count: apple}, most: [1000000],"
        ' multiplier: {expr: "count(pear) * 999999999"}}\n'
    )
    assert found(tmp_path, text) == [
        (
            12,
            86,
            "a seat's points over a game could reach 39,999,999,960,000,000 in size, above or below 0 (rule 'maj' alone up to "
            f"39,999,999,960,000,000 at the round's end); {LIMIT}, so that the game kernel and the statistics "
            "hold them exactly: use smaller numbers or fewer copies of the cards",
        )
    ]


def test_an_expression_power_scored_every_round_is_refused_at_the_expression(tmp_path):
    """count(apple) to the fifth, times 9, is within 10**15 once, but not over 20 rounds: refused at its text."""
    text = (
        HEAD.replace("rounds: {count: 1}", "rounds: {count: 20}").replace("count: 40}", "count: 400}")
        + '  - {id: p, kind: expression, expr: "count(apple) * count(apple) * count(apple) * count(apple)'
        ' * count(apple) * 9"}\n'
    )
    assert found(tmp_path, text) == [
        (
            12,
            37,
            "a seat's points over a game could reach 1,843,200,000,000,000 in size, above or below 0 (rule 'p' alone up to "
            f"92,160,000,000,000 at the end of each of 20 rounds); {LIMIT}, so that the game kernel and the "
            "statistics hold them exactly: use smaller numbers or fewer copies of the cards",
        )
    ]


def test_many_modifiers_together_pass_the_limit_at_the_largest_rule(tmp_path):
    """Each rule within bounds, their sum over the rounds not: refused at the rule giving the most, at its largest number."""
    head = HEAD.replace("rounds: {count: 1}", "rounds: {count: 20}").replace("count: 40}", "count: 4999}")
    rules = "".join(
        f"  - {{id: m{i}, kind: modifier, card: pear, targets: apple, value: 1000000, factor: {989 + i}}}\n"
        for i in range(12)
    )
    errors = found(tmp_path, head + rules)
    assert [(line, column) for line, column, _ in errors] == [(23, 66)]
    assert errors[0][2].startswith(
        "a seat's points over a game could reach 1,191,961,560,000,000 in size, above or below 0 (rule 'm11' alone up to "
        "4,994,001,000,000 at the end of each of 20 rounds)"
    )


def test_validate_reports_the_bound_as_a_located_error(tmp_path):
    """`ruledraft validate` prints FILE:LINE:COLUMN: error: ... and exits 1; load_ruleset raises RulesetError."""
    path = tmp_path / "r.yaml"
    path.write_text(
        HEAD
        + '  - {id: maj, kind: majority, quantity: {count: apple}, most: [1000000], multiplier: {expr: "count(pear)'
        ' * 999999999"}}\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert (
        f"{path}:12:86: error: a seat's points over a game could reach 39,999,999,960,000,000 in size" in result.output
    )
    with pytest.raises(RulesetError):
        load_ruleset(str(path))


def test_the_bound_follows_the_deck(tmp_path):
    """The same rule is fine where the deck is small enough: 40 pears times 999,999,999 times 10,000 is 4 * 10**14."""
    text = (
        HEAD + "  - {id: maj, kind: majority, quantity: {count: apple}, most: [10000],"
        ' multiplier: {expr: "count(pear) * 999999999"}}\n'
    )
    assert found(tmp_path, text) == []


@pytest.mark.parametrize(
    ("card", "effect"),
    [
        ("{id: forger, count: 99, effect: {kind: copy_earlier}}", "copies of x"),
        ("{id: box, count: 9, effect: {kind: turn_face_down, face_down: x}}", "face-down cards"),
    ],
)
def test_cards_that_card_effects_make_count_in_the_bound(tmp_path, card, effect):
    """x has one copy (or none: the face-down card), but special orders copy it and
    takeout boxes make it: count(x)**4 * 10**15 / 10**3 passed by the deck's count (1 or
    0) and wrapped an int64 on the kernel. The copies the effects may add count."""
    head = HEAD.replace("  - {id: apple, count: 40}", f"  - {{id: x, count: {0 if 'box' in card else 1}}}\n  - {card}")
    text = (
        head + '  - {id: e, kind: expression, expr: "count(x) * count(x) * count(x) * count(x) * 999999999 * 999999"}\n'
    )
    [(line, column, message)] = found(tmp_path, text)
    last = text.splitlines()[-1]
    assert (line, column) == (len(text.splitlines()), last.index('"count') + 1), effect  # at the expression
    assert LIMIT in message and message.endswith("(counted with the copies card effects may add to a table)")
    small = head + '  - {id: e, kind: expression, expr: "count(x) * 999"}\n'
    assert found(tmp_path, small) == []


def test_per_card_bounds_count_every_copy_in_the_deck():
    """Sushi Go!'s nigiri rule: 5 egg (1) + 10 salmon (2) + 5 squid (3) = 40 points at most a round."""
    ruleset = load_ruleset("sushi-go")
    rules = {r.id: r for r in ruleset.rules}
    assert rule_bound(rules["nigiri"], ruleset) == 40
    assert rule_bound(rules["wasabi"], ruleset) == 2 * 40  # factor 3 adds twice each nigiri's value
    assert rule_bound(rules["dumpling"], ruleset) == 15
    assert rule_bound(rules["maki"], ruleset) == 6  # one place a seat (a share of it in a tie)
    assert rule_bound(rules["tempura"], ruleset) == 108 * 5  # a set per card of the deck, at most


@pytest.mark.parametrize("source", [*BUNDLED_RULESETS, *EXAMPLES], ids=lambda s: Path(s).stem)
def test_every_bundled_ruleset_and_example_is_within_bounds(source):
    """No bundled ruleset or example is refused by the bound (the tutorial's broken files fail for their own reasons)."""
    try:
        load_ruleset(source)
    except RulesetError as e:
        assert "points over a game" not in str(e)
        assert "broken" in source or "tutorial" in source


@attrs.frozen
class _NewKindRule:
    """A rule of a kind the bound does not name: its settings only."""

    id: str
    when: str
    points: tuple[int, ...]
    words: str


def test_a_kind_not_named_is_bounded_by_its_largest_number_per_card_and_a_plug_ins_is_checked_as_it_scores():
    """An unnamed built-in kind: the deck (108 cards) times its largest number; a plug-in's (CheckedRule): 0 here."""
    ruleset = load_ruleset("sushi-go")
    rule = _NewKindRule("new", "round_end", (2, -7, 3), "new")
    assert rule_bound(rule, ruleset) == 108 * 7
    assert rule_bound(CheckedRule(rule, "new"), ruleset) == 0
