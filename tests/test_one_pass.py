"""One walk from a rule file to a compiled ruleset: each expression compiled once, every mistake reported."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import ruledraft.language.build as build
import ruledraft.language.expression as expression
from ruledraft.language.bundled import bundled_ids, bundled_path
from ruledraft.language.loading import check_ruleset

ROOT = Path(__file__).resolve().parent.parent
SOURCES = [str(bundled_path(rid)) for rid in bundled_ids()] + [
    str(p)
    for p in sorted((ROOT / "examples").rglob("*.yaml"))
    if "plugins" not in p.parts and not p.name.startswith("broken-")
]


@pytest.mark.parametrize("source", SOURCES, ids=lambda s: Path(s).stem)
def test_expressions_compile_once(source, monkeypatch):
    """Loading a bundled ruleset or an example compiles each expression of it exactly once (a counter wraps the compiler)."""
    calls: Counter = Counter()
    real = expression.compile_expression

    def counting(text, catalogue, **kwargs):
        calls[(kwargs.get("file"), kwargs["locate"](0) if kwargs.get("locate") else None, text)] += 1
        return real(text, catalogue, **kwargs)

    monkeypatch.setattr(expression, "compile_expression", counting)
    monkeypatch.setattr(build, "compile_expression", counting)
    walk = build.RulesetBuilder(_document(source))
    assert [d for d in walk.run() if d.severity == "error"] == []
    assert walk.ruleset is not None
    assert all(n == 1 for n in calls.values()), [k for k, n in calls.items() if n > 1]
    assert sum(calls.values()) == len(walk.expressions)
    text = Path(source).read_text(encoding="utf-8")
    if "expr:" in text or "eligible:" in text:
        assert calls


def _document(source: str):
    from ruledraft.language.inheritance import resolve_document
    from ruledraft.language.schema_check import check_schema

    return resolve_document(source, check=check_schema)


def test_the_loader_compiles_through_the_one_walk(monkeypatch):
    """check_ruleset compiles each expression of sushi-go-party-sampler once: as many calls as places."""
    calls: Counter = Counter()
    real = build.compile_expression

    def counting(text, catalogue, **kwargs):
        calls[(kwargs["locate"](0), text)] += 1
        return real(text, catalogue, **kwargs)

    monkeypatch.setattr(build, "compile_expression", counting)
    result = check_ruleset(ROOT / "examples" / "sushi-go-party-sampler.yaml")
    assert result.ok
    assert calls and set(calls.values()) == {1}


def test_a_schema_error_no_longer_hides_the_other_sections_checks():
    """Five independent mistakes (two the schema sees, three only the walk sees) are all reported, in order."""
    result = check_ruleset(ROOT / "tests" / "data" / "broken-semantic" / "mistakes-in-five-sections.yaml")
    assert not result.ok
    assert [(d.line, d.column, d.message) for d in result.diagnostics] == [
        (15, 26, "'pass' must be one of left, right, none, or a list of them, not 'upward'"),
        (18, 38, "unknown card 'aple' (did you mean 'apple'?)"),
        (19, 51, "unknown key 'sise' in a 'sets' scoring rule (did you mean 'size'?)"),
        (20, 73, "no card has the attribute 'valeu' (did you mean 'value'?)"),
        (23, 21, "unknown card 'pudding'"),
    ]


def test_a_rule_the_schema_refused_is_not_walked(tmp_path):
    """A scoring rule with a schema error gets that error only: the walk skips it rather than guess at its names."""
    path = tmp_path / "one.yaml"
    path.write_text(
        "format: 1\nid: one\nname: One\nplayers: {min: 2, max: 2}\ncards:\n  - {id: apple, count: 20}\n"
        "deal: {hand_size: {2: 5}}\nrounds: {count: 1}\nscoring:\n"
        "  - {id: pairs, kind: sets, cards: [aple], sise: 2, points: 3}\n"
        "  - {id: each, kind: per_card, cards: peer, value: 1}\n",
        encoding="utf-8",
    )
    result = check_ruleset(path)
    assert [(d.line, d.column, d.message) for d in result.diagnostics] == [
        (10, 44, "unknown key 'sise' in a 'sets' scoring rule (did you mean 'size'?)"),
        (11, 39, "unknown card 'peer'"),
    ]
