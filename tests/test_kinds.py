"""Scoring kinds as self-contained units: the registry, the generated schema, the Rule protocol."""

from __future__ import annotations

from ruledraft.language.bundled import bundled_ids
from ruledraft.language.kinds import SCORING_KINDS
from ruledraft.language.kinds.schema import builtin_schema_text, committed_path, ruleset_schema
from ruledraft.language.loading import load_ruleset
from ruledraft.language.rule import Rule


def test_the_committed_ruleset_schema_is_the_generated_one():
    """schemas/ruleset.schema.json is exactly what the built-in kinds generate (regenerate: python3 -m ruledraft.language.kinds.schema)."""
    assert committed_path().read_text(encoding="utf-8") == builtin_schema_text()


def test_the_kind_list_lives_in_the_registry():
    """The schema's kind enum and its per-kind branches come from the registry, in its order."""
    schema = ruleset_schema(SCORING_KINDS.units(builtin_only=True))
    rule = schema["$defs"]["scoringRule"]
    names = ["sets", "table", "per_card", "modifier", "majority", "expression"]
    assert rule["properties"]["kind"]["enum"] == names
    assert [b["then"]["$ref"] for b in rule["allOf"]] == [
        "#/$defs/setsRule",
        "#/$defs/tableRule",
        "#/$defs/perCardRule",
        "#/$defs/modifierRule",
        "#/$defs/majorityRule",
        "#/$defs/expressionRule",
    ]


def test_every_bundled_rule_implements_the_rule_protocol():
    """Every compiled rule of every bundled ruleset provides the Rule protocol."""
    for rid in bundled_ids():
        for rule in load_ruleset(rid).rules:
            assert isinstance(rule, Rule), (rid, rule.id)
