"""Scoring kinds as self-contained units: the registry, the generated schema, the Rule protocol."""

from __future__ import annotations

import json

from ruledraft.language.bundled import bundled_ids
from ruledraft.language.kinds import SCORING_KINDS
from ruledraft.language.loading import load_ruleset
from ruledraft.language.rule import Rule
from ruledraft.language.schema import builtin_schema_text, committed_path, ruleset_schema


def test_the_committed_ruleset_schema_is_the_generated_one():
    """schemas/ruleset.schema.json is exactly what the built-in kinds generate (regenerate: python3 -m ruledraft.language.schema)."""
    assert committed_path().read_text(encoding="utf-8") == builtin_schema_text()


def test_the_kind_list_lives_in_the_registry():
    """The schema's kind enum and its per-kind branches come from the registry, in its order."""
    schema = ruleset_schema(SCORING_KINDS.units(builtin_only=True))
    rule = schema["$defs"]["scoringRule"]
    names = ["sets", "table", "per_card", "modifier", "majority", "expression", "race", "neighbours", "boost"]
    assert rule["properties"]["kind"]["enum"] == names
    assert [b["then"]["$ref"] for b in rule["allOf"]] == [
        "#/$defs/setsRule",
        "#/$defs/tableRule",
        "#/$defs/perCardRule",
        "#/$defs/modifierRule",
        "#/$defs/majorityRule",
        "#/$defs/expressionRule",
        "#/$defs/raceRule",
        "#/$defs/neighboursRule",
        "#/$defs/boostRule",
    ]


def test_every_bundled_rule_implements_the_rule_protocol():
    """Every compiled rule of every bundled ruleset provides the Rule protocol."""
    for rid in bundled_ids():
        for rule in load_ruleset(rid).rules:
            assert isinstance(rule, Rule), (rid, rule.id)


# -- a kind defined here, in the test module: a registry entry and nothing else ------------

import attrs  # noqa: E402
import pytest  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from ruledraft.cli.app import app  # noqa: E402
from ruledraft.language.kinds import register_scoring_kind  # noqa: E402
from ruledraft.language.loading import check_ruleset  # noqa: E402
from ruledraft.language.rule import RuleBase  # noqa: E402
from ruledraft.play.runner import simulate  # noqa: E402
from ruledraft.tableau import Tableau  # noqa: E402

runner = CliRunner()


@attrs.frozen(eq=False)
class Bonus(RuleBase):
    """``points`` to every seat with at least one ``card``."""

    id: str
    when: str
    card: int
    points: int
    name: str

    @property
    def reads(self) -> frozenset[int]:
        return frozenset({self.card})

    def score(self, t: Tableau) -> list[int]:
        return [self.points if row[self.card] else 0 for row in t.counts]

    def describe(self) -> str:
        return f"{self.points} points for having a {self.name}."


def build_bonus(spec, ctx):
    card = ctx.card(("card",), spec["card"])
    if card is None:
        return None
    return Bonus(spec["id"], spec["when"], card, spec["points"], ctx.catalogue.cards[card].name)


BONUS_SCHEMA = {
    "title": "Bonus rule",
    "required": ["card", "points"],
    "properties": {"card": {"$ref": "#/$defs/identifier"}, "points": {"$ref": "#/$defs/points"}},
}


@pytest.fixture
def bonus_kind():
    """The ``bonus`` kind registered for one test."""
    kind = register_scoring_kind("bonus", build_bonus, BONUS_SCHEMA)
    yield kind
    SCORING_KINDS.unregister("bonus")


BONUS_FILE = """\
format: 1
extends: sushi-go
id: sushi-go-bonus
name: Sushi Go! with a bonus
scoring:
  - id: chopsticks_bonus
    kind: bonus
    card: {card}
    points: 4
"""


def write(tmp_path, card="chopsticks", extra=""):
    path = tmp_path / "bonus.yaml"
    path.write_text(BONUS_FILE.format(card=card) + extra, encoding="utf-8")
    return path


def test_a_registered_kind_joins_the_schema(bonus_kind):
    """The kind's fragment is in the schema `ruledraft schema` prints, with its name in the kind enum."""
    result = runner.invoke(app, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.output)
    assert "bonus" in schema["$defs"]["scoringRule"]["properties"]["kind"]["enum"]
    assert schema["$defs"]["bonusRule"]["properties"]["card"] == {"$ref": "#/$defs/identifier"}
    assert list(schema["$defs"]["bonusRule"]["properties"])[:4] == ["id", "kind", "when", "description"]


def test_a_registered_kind_gets_located_errors(bonus_kind, tmp_path):
    """Its schema errors and the names its builder resolves are located diagnostics like a built-in kind's."""
    result = check_ruleset(write(tmp_path, card="chopstick", extra="    colour: red\n"))
    assert [(d.line, d.column, d.message) for d in result.diagnostics] == [
        (8, 11, "unknown card 'chopstick' (did you mean 'chopsticks'?)"),  # checked beside the unknown key
        (10, 5, "unknown key 'colour' in a 'bonus' scoring rule"),
    ]
    result = check_ruleset(write(tmp_path, card="chopstick"))
    assert [(d.line, d.column, d.message) for d in result.diagnostics] == [
        (8, 11, "unknown card 'chopstick' (did you mean 'chopsticks'?)")
    ]


def test_a_registered_kind_is_shown_scored_and_simulated_on_two_jobs(bonus_kind, tmp_path):
    """`show` describes it, the engine scores it, and --jobs 2 workers score it the same as one process."""
    path = write(tmp_path)
    shown = runner.invoke(app, ["show", str(path)])
    assert shown.exit_code == 0
    assert "  chopsticks_bonus: 4 points for having a Chopsticks." in shown.output.splitlines()
    rs = check_ruleset(path).ruleset
    rule = next(r for r in rs.rules if r.id == "chopsticks_bonus")
    chop = rs.card_index("chopsticks")
    t = Tableau.from_cards(rs.catalogue.size, [[chop], [], [chop, chop]])
    assert rule.score(t) == [4, 0, 4]
    one = simulate(rs, 3, 60, 5, ["greedy", "random", "random"], jobs=1, source=str(path))
    two = simulate(rs, 3, 60, 5, ["greedy", "random", "random"], jobs=2, source=str(path))
    assert one.seats == two.seats
    assert [s.rules["chopsticks_bonus"] for s in two.seats] == [s.rules["chopsticks_bonus"] for s in one.seats]
    assert any(s.rules["chopsticks_bonus"] > 0 for s in two.seats)
    result = runner.invoke(app, ["simulate", str(path), "--players", "3", "--games", "40", "--jobs", "2", "--quiet"])
    assert result.exit_code == 0, result.output
    assert "chopsticks_bonus" in result.output
