"""One walk from a rule file to a compiled ruleset: each expression compiled once, every mistake reported."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from paths import DATA, ROOT

import ruledraft.language.build as build
import ruledraft.language.expression as expression
from ruledraft.language.bundled import bundled_ids, bundled_path
from ruledraft.language.loading import check_ruleset

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
    from ruledraft.language.tunable import preparer

    prepare, _ = preparer()  # as the loader does: tune marks read at their starts
    return resolve_document(source, check=check_schema, prepare=prepare)


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
    result = check_ruleset(DATA / "broken-semantic" / "mistakes-in-five-sections.yaml")
    assert not result.ok
    assert [(d.line, d.column, d.message) for d in result.diagnostics] == [
        (15, 26, "'pass' must be one of left, right, none, {turns: ...}, or a list of them, not 'upward'"),
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


# ---------------------------------------------------------------- a child with extends: and a schema error

CHILD_HEAD = "format: 1\nextends: sushi-go\nid: child\nname: Child\n"


def _located(result):
    return [(d.line, d.column, d.message) for d in result.diagnostics]


def test_a_schema_error_in_a_child_no_longer_hides_the_other_sections_checks():
    """A child of sushi-go with six mistakes (two the schema sees, four only the walk sees) reports all six, in order."""
    result = check_ruleset(DATA / "broken-semantic" / "child-mistakes-in-several-sections.yaml")
    assert not result.ok and result.ruleset is None
    assert _located(result) == [
        (13, 5, "card 'natto' has no 'count'"),
        (14, 16, "'pass' must be one of left, right, none, {turns: ...}, or a list of them, not 'upward'"),
        (16, 46, "unknown card 'chopstiks' (did you mean 'chopsticks'?)"),
        (19, 59, "unknown key 'mostt' in a 'majority' scoring rule (did you mean 'most'?)"),
        (20, 40, "unknown card 'nato' (did you mean 'natto'?)"),
        (23, 21, "unknown card 'puding' (did you mean 'pudding'?)"),
    ]


def test_a_rule_whose_one_schema_mistake_is_an_unknown_key_is_still_checked(tmp_path):
    """A rule with a key its kind does not know has its card checked too; one missing a required key is not walked."""
    rules = (
        "scoring:\n"
        "  - {id: a, kind: per_card, cards: nato, value: 1, most: [6, 3]}\n"
        "  - {id: b, kind: per_card, cards: nato, valeu: 1}\n"
        "  - {id: c, kind: per_card, cards: {tag: nosuch}, value: 1}\n"
    )
    plain = tmp_path / "plain.yaml"
    plain.write_text(
        "format: 1\nid: plain\nname: Plain\nplayers: {min: 2, max: 2}\n"
        "cards:\n  - {id: tempura, count: 40}\n  - {id: natto, count: 40}\n"
        "deal: {hand_size: {'2': 5}}\nrounds: {count: 1}\n" + rules,
        encoding="utf-8",
    )
    assert _located(check_ruleset(plain)) == [
        (11, 36, "unknown card 'nato' (did you mean 'natto'?)"),
        (11, 52, "unknown key 'most' in a 'per_card' scoring rule"),
        (12, 42, "unknown key 'valeu' in a 'per_card' scoring rule (did you mean 'value'?)"),
        (13, 42, "no card has the tag 'nosuch'"),
    ]
    child = tmp_path / "child.yaml"
    child.write_text(CHILD_HEAD + rules, encoding="utf-8")
    assert _located(check_ruleset(child)) == [
        (6, 36, "unknown card 'nato'"),
        (6, 52, "unknown key 'most' in a 'per_card' scoring rule"),
        (7, 42, "unknown key 'valeu' in a 'per_card' scoring rule (did you mean 'value'?)"),
        (8, 42, "no card has the tag 'nosuch'"),
    ]


def test_accepted_sections_of_a_child_judge_its_own_part_and_match_rules_by_id():
    """In a merged child: unwritten sections are the parent's (accepted), written ones are judged on the child's part, rules by id."""
    from ruledraft.language.inheritance import resolve_document

    path = DATA / "broken-semantic" / "child-mistakes-in-several-sections.yaml"
    doc = resolve_document(path, check=lambda document: [])
    valid = build.accepted_sections(doc.child.data, doc.data)
    rule_ids = [rule["id"] for rule in doc.data["scoring"]]
    assert rule_ids == ["tempura", "sashimi", "dumpling", "nigiri", "wasabi", "maki", "pudding", "natto"]
    assert [valid(("scoring", i)) for i in range(len(rule_ids))] == [True] * 5 + [False, True, True]
    assert [valid((name,)) for name in ("players", "cards", "deal", "rounds", "turn", "actions", "winner")] == [
        True,
        True,
        True,
        False,
        True,
        True,
        True,
    ]
    assert valid(("extends",)) and not valid(("scoring", len(rule_ids)))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("remove: 5\n", [(5, 9, "'remove' must be a mapping, not 5")]),
        ("remove: {cards: 5}\n", [(5, 17, "'cards' must be a list, not 5")]),
        ("remove: {scoring: [{a: 1}, pudding]}\n", [(5, 20, "item 1 of 'scoring' must be text, not a mapping")]),
        ("cards: {natto: 3}\n", [(5, 8, "'cards' must be a list, not a mapping")]),
        (
            "cards: [5, {id: [1]}, {count: 2}]\n",
            [
                (5, 9, "item 1 of 'cards' must be a mapping, not 5"),
                (5, 17, "'id' must be text, not a list"),
                (5, 23, "missing required key 'id' in a card"),
            ],
        ),
        (
            "scoring:\n  - {id: {a: 1}, kind: per_card, cards: nato, value: 1}\n  - 7\n"
            "  - {kind: per_card, cards: nato, value: 1}\n  - {id: extra, kind: per_card, cards: nato, value: 1}\n",
            [
                (6, 10, "'id' must be text, not a mapping"),
                (7, 5, "item 2 of 'scoring' must be a mapping, not 7"),
                (8, 5, "missing required key 'id' in a 'per_card' scoring rule"),
                (9, 40, "unknown card 'nato'"),
            ],
        ),
        ("scoring: 5\n", [(5, 10, "'scoring' must be a list, not 5")]),
        ("players: 5\n", [(5, 10, "'players' must be a mapping, not 5")]),
    ],
    ids=["remove", "remove-list", "remove-id", "cards", "card-entries", "rule-ids", "scoring", "players"],
)
def test_a_child_the_schema_refused_is_merged_without_crashing(tmp_path, body, expected):
    """Child data of the wrong shape is left out of the merge: its schema problem is reported, valid entries still walked."""
    path = tmp_path / "child.yaml"
    path.write_text(CHILD_HEAD + body, encoding="utf-8")
    assert _located(check_ruleset(path)) == expected


def test_the_ids_of_a_remove_list_the_schema_refused_are_still_removed(tmp_path):
    """In 'remove: {scoring: [{a: 1}, pudding]}' the entry that is no id is left out and 'pudding' is still removed."""
    from ruledraft.language.inheritance import resolve_document

    path = tmp_path / "child.yaml"
    path.write_text(CHILD_HEAD + "remove: {scoring: [{a: 1}, pudding]}\n", encoding="utf-8")
    doc = resolve_document(path, check=lambda document: [])
    assert [rule["id"] for rule in doc.data["scoring"]] == [
        "tempura",
        "sashimi",
        "dumpling",
        "nigiri",
        "wasabi",
        "maki",
    ]


def test_an_extends_the_schema_refused_stops_before_any_parent(tmp_path):
    """A child whose 'extends' is no text gets its schema problems only, as before: no parent is looked for."""
    path = tmp_path / "child.yaml"
    path.write_text("format: 1\nextends: 5\nid: child\nname: Child\nrounds: {pass: upward}\n", encoding="utf-8")
    assert _located(check_ruleset(path)) == [
        (2, 10, "'extends' must be text, not 5"),
        (5, 16, "'pass' must be one of left, right, none, {turns: ...}, or a list of them, not 'upward'"),
    ]


def test_a_parents_schema_error_still_stops_the_walk_beside_the_childs(tmp_path):
    """A child with a schema error whose parent has one too: both schema problems (the parent's said at the
    child's extends: too), and nothing of the walk (its 'peer')."""
    (tmp_path / "parent.yaml").write_text(
        (DATA / "broken-semantic" / "parent-with-schema-error.yaml").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    path = tmp_path / "child.yaml"
    path.write_text(
        "format: 1\nextends: parent.yaml\nid: child\nname: Child\nrounds: {pass: upward}\n"
        "scoring:\n  - {id: pears, kind: per_card, cards: peer, value: 1}\n",
        encoding="utf-8",
    )
    result = check_ruleset(path)
    assert [(Path(d.file).name, d.line, d.column, d.message) for d in result.diagnostics] == [
        ("child.yaml", 2, 10, "'parent.yaml', which this file extends, has a problem, shown at its place"),
        ("child.yaml", 5, 16, "'pass' must be one of left, right, none, {turns: ...}, or a list of them, not 'upward'"),
        ("parent.yaml", 7, 24, "'count' must be at least 0, not -1"),
    ]


def test_a_childs_schema_error_is_kept_beside_the_merges_own_problems(tmp_path):
    """A schema error and a duplicate card id in a child are both reported (the merge's problems do not replace the schema's)."""
    path = tmp_path / "child.yaml"
    path.write_text(CHILD_HEAD + "cards:\n  - {id: tofu, count: -3}\n  - {id: tofu, count: 4}\n", encoding="utf-8")
    assert _located(check_ruleset(path)) == [
        (6, 23, "'count' must be at least 0, not -3"),
        (7, 10, "duplicate card id 'tofu' (first at line 6)"),
    ]


def test_a_child_with_a_schema_error_shows_nothing_of_a_parent_that_is_no_rule_file(tmp_path):
    """A child with a schema error extending a file that is not a rule file: that one error at 'extends', none of the file's text."""
    (tmp_path / "secret").write_text("root:x:0:0:TOPSECRET:/root:/bin/bash\n", encoding="utf-8")
    path = tmp_path / "child.yaml"
    path.write_text("format: 1\nextends: ./secret\nid: child\nname: Child\nrounds: {pass: upward}\n", encoding="utf-8")
    result = check_ruleset(path)
    assert _located(result) == [
        (2, 10, "'./secret' is not a rule file"),
        (5, 16, "'pass' must be one of left, right, none, {turns: ...}, or a list of them, not 'upward'"),
    ]
    assert all(d.file == str(path) and "TOPSECRET" not in (d.source_line or "") for d in result.diagnostics)


def test_a_child_with_a_schema_error_keeps_the_extends_warning(tmp_path):
    """The warning that a bundled id shadows a file beside the child is kept beside the schema error and the walk's."""
    (tmp_path / "sushi-go.yaml").write_text("format: 1\nid: x\nname: X\n", encoding="utf-8")
    path = tmp_path / "child.yaml"
    path.write_text(
        CHILD_HEAD + "rounds: {pass: upward}\nscoring:\n  - {id: pears, kind: per_card, cards: peer, value: 1}\n",
        encoding="utf-8",
    )
    assert [(d.line, d.column, d.severity) for d in check_ruleset(path).diagnostics] == [
        (2, 10, "warning"),
        (5, 16, "error"),
        (7, 40, "error"),
    ]
