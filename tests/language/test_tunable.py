"""Tune marks (ruledraft.language.tunable): found with their places, wrong ones as located errors,
replaced by numbers so every later stage sees a plain rule file, written back into the text."""

from __future__ import annotations

import shutil

import pytest
from paths import DATA, ROOT

from ruledraft.errors import RulesetError
from ruledraft.language.loading import check_ruleset
from ruledraft.language.tunable import MAX_MARKS, apply_marks, find_marks, tuned_text
from ruledraft.language.yaml_loader import load_document
from ruledraft.play.match import Match
from ruledraft.play.runner import simulate_match

VARIANT = DATA / "tune" / "sushi-go-squid-12.yaml"

MARKED = """\
format: 1
id: marked
points:
  plain: 3
  flow: {tune: [2, 6]}       # a comment after
  block:
    tune: [1, 9]
    start: 8
  table: [0, 1, {tune: [2, 4], start: 3}, 6]
cards:
  - {id: maki, count: {tune: [4, 12]}}
"""


def errors(text: str) -> list[str]:
    """The problems of ``text``'s tune marks, as ``LINE:COLUMN: message``."""
    _, problems = find_marks(load_document(text, "r.yaml"))
    return [f"{d.line}:{d.column}: {d.message}" for d in problems]


def test_marks_are_found_in_order_with_names_places_and_starts():
    """Every mark is found where it is written, named by its path (list items by id), with the midpoint or its start."""
    marks, problems = find_marks(load_document(MARKED, "r.yaml"))
    assert problems == []
    assert [(m.name, m.low, m.high, m.start, m.line, m.column) for m in marks] == [
        ("points.flow", 2, 6, 4, 5, 9),
        ("points.block", 1, 9, 8, 7, 5),
        ("points.table[2]", 2, 4, 3, 9, 17),
        ("cards[maki].count", 4, 12, 8, 11, 23),
    ]


def test_the_marks_are_replaced_by_their_starts_or_the_values_given():
    """The document later stages see holds numbers where the marks were: the starts, or the values asked for."""
    doc = load_document(MARKED, "r.yaml")
    plain, marks = apply_marks(doc)
    assert plain.data["points"] == {"plain": 3, "flow": 4, "block": 8, "table": [0, 1, 3, 6]}
    assert plain.data["cards"][0]["count"] == 8
    assert doc.data["points"]["flow"] == {"tune": [2, 6]}  # the loaded document is left as it was
    assert plain.locate(("points", "flow")) == (5, 9)  # places are kept
    tuned, _ = apply_marks(doc, {"points.flow": 2, "cards[maki].count": 12})
    assert tuned.data["points"]["flow"] == 2 and tuned.data["cards"][0]["count"] == 12
    assert marks.values == {"points.flow": 4, "points.block": 8, "points.table[2]": 3, "cards[maki].count": 8}


def test_tuned_text_writes_the_numbers_in_and_keeps_the_rest():
    """The tuned text has each mark's value where the mark was; comments and every other line are as written."""
    doc = load_document(MARKED, "r.yaml")
    _, marks = apply_marks(doc)
    text = tuned_text(marks, {"points.flow": 5, "points.block": 2, "points.table[2]": 4})
    assert text == (
        "format: 1\nid: marked\npoints:\n  plain: 3\n  flow: 5       # a comment after\n  block:\n    2\n"
        "  table: [0, 1, 4, 6]\ncards:\n  - {id: maki, count: 8}\n"
    )
    again = load_document(text, "r.yaml")
    assert again.data == apply_marks(doc, {"points.flow": 5, "points.block": 2, "points.table[2]": 4})[0].data
    assert find_marks(again) == ([], [])


def test_a_block_mark_keeps_the_comments_of_its_lines():
    """A mark written as a block mapping with a comment on each line: the value goes where
    the mark began, before its first comment; each later line keeps its comment alone."""
    text = "a:            # the key's\n  tune: [1, 8]    # the range\n  start: 3        # rulebook\nb: 1\n"
    doc = load_document(text, "r.yaml")
    _, marks = apply_marks(doc)
    tuned = tuned_text(marks, {"a": 5})
    assert tuned == "a:            # the key's\n  5    # the range\n          # rulebook\nb: 1\n"
    assert load_document(tuned, "r.yaml").data == {"a": 5, "b": 1}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a: {tune: [2, 6.5]}\n", "1:15: tune mark a: the range's high end must be a whole number, not 6.5"),
        ("a: {tune: [x, 6]}\n", "1:12: tune mark a: the range's low end must be a whole number, not 'x'"),
        ("a: {tune: [true, 6]}\n", "1:12: tune mark a: the range's low end must be a whole number, not true"),
        (
            "a: {tune: [{tune: [1, 2]}, 6]}\n",
            "1:12: tune mark a: the range's low end must be a whole number, not an object",
        ),
        ("a: {tune: 4}\n", "1:11: tune mark a: 'tune' takes a range of two whole numbers, such as [2, 6]"),
        ("a: {tune: [1, 2, 3]}\n", "1:11: tune mark a: 'tune' takes a range of two whole numbers, such as [2, 6]"),
        ("a: {tune: [6, 2]}\n", "1:11: tune mark a: the range runs backwards (6 is above 2; write [2, 6])"),
        ("a: {tune: [2, 6], start: 7}\n", "1:26: tune mark a: 'start' 7 is outside the range [2, 6]"),
        ("a: {tune: [2, 6], start: 2.5}\n", "1:26: tune mark a: 'start' must be a whole number, not 2.5"),
        (
            "a:\n  - {tune: [2, 6], step: 1}\n",
            "2:20: tune mark a[0]: 'step' is not a key of a tune mark (only tune and start)",
        ),
        (
            "a: &x {tune: [2, 6]}\nb: *x\n",
            "1:4: tune mark a: a tune mark cannot be anchored (&), an alias (*) or tagged (!)",
        ),
    ],
)
def test_a_wrong_mark_is_a_located_error(text, expected):
    """A mark that is not two whole numbers low to high (with a start inside, no other key, written out) is an error at its place."""
    assert expected in errors(text)


def test_too_many_marks_is_an_error_at_the_first_one_over():
    """More than MAX_MARKS marks in a file is one error, at the first mark over the limit."""
    text = "".join(f"n{i}: {{tune: [0, 9]}}\n" for i in range(MAX_MARKS + 1))
    assert errors(text) == [
        f"{MAX_MARKS + 1}:6: too many tune marks: {MAX_MARKS + 1} (at most {MAX_MARKS} in a file; "
        "tune a few numbers at a time, writing the others in)"
    ]
    assert errors(text.rsplit("\n", 2)[0] + "\n") == []


def test_a_value_outside_its_mark_or_an_unknown_name_is_refused():
    """Values asked for must fit the mark's range and name a mark of the file."""
    doc = load_document(MARKED, "r.yaml")
    with pytest.raises(RulesetError, match=r"tune mark points.flow: 7 is outside \[2, 6\]"):
        apply_marks(doc, {"points.flow": 7})
    with pytest.raises(RulesetError, match="no tune mark named points.nope"):
        apply_marks(doc, {"points.nope": 3})


def test_validate_reports_a_wrong_mark_at_its_place_in_the_rule_file(tmp_path):
    """A wrong mark in a rule file is reported by the loader as FILE:LINE:COLUMN, before the schema sees the file."""
    bad = tmp_path / "bad.yaml"
    bad.write_text(VARIANT.read_text(encoding="utf-8").replace("[1, 12]", "[12, 1]"), encoding="utf-8")
    result = check_ruleset(bad)
    assert not result.ok
    assert [d.format() for d in result.diagnostics] == [
        f"{bad}:11:51: error: tune mark cards[squid_nigiri].attributes.value: the range runs backwards "
        "(12 is above 1; write [1, 12])"
    ]


def test_a_file_with_marks_checks_as_the_file_with_the_numbers_written_in(tmp_path):
    """The marked variant at its start compiles to the document of the file with 12 written in; at 3, to Sushi Go!'s cards."""
    marked = check_ruleset(VARIANT)
    assert marked.ok and marked.marks is not None
    assert [m.to_json() for m in marked.marks.marks] == [
        {"name": "cards[squid_nigiri].attributes.value", "low": 1, "high": 12, "start": 12, "line": 11, "column": 44}
    ]
    plain_file = tmp_path / "plain.yaml"
    plain_file.write_text(tuned_text(marked.marks, {}), encoding="utf-8")
    plain = check_ruleset(plain_file)
    assert plain.ok and not plain.marks
    assert marked.document.data == plain.document.data
    three = check_ruleset(VARIANT, tune={"cards[squid_nigiri].attributes.value": 3})
    bundled = check_ruleset("sushi-go")
    assert three.document.data["cards"] == bundled.document.data["cards"]
    assert marked.document.data["cards"] != bundled.document.data["cards"]


def test_a_file_with_marks_at_their_starts_plays_the_same_games_as_the_plain_file(tmp_path):
    """Substitution equality: the same seeds give the same games, point for point, on both files."""
    shutil.copy(VARIANT, tmp_path / "variant.yaml")
    marked = check_ruleset(tmp_path / "variant.yaml")
    plain_file = tmp_path / "plain.yaml"
    plain_file.write_text(tuned_text(marked.marks, {}), encoding="utf-8")
    plain = check_ruleset(plain_file)
    runs = []
    for result in (marked, plain):
        match = Match.build(result.ruleset, 3, ["greedy", "random"], 7, document=result.document)
        runs.append(simulate_match(match, 40, jobs=2))
    assert runs[0].figures == runs[1].figures
    assert runs[0].seats == runs[1].seats
    assert sum(s.rules["nigiri"] for s in runs[0].seats) > 0


def test_a_parent_with_marks_is_read_at_their_starts(tmp_path):
    """A file extending a file with tune marks gets the parent's starts; only the named file's marks are tuned."""
    shutil.copy(VARIANT, tmp_path / "variant.yaml")
    (tmp_path / "child.yaml").write_text(
        "format: 1\nid: child\nname: Child\nextends: ./variant.yaml\n", encoding="utf-8"
    )
    result = check_ruleset(tmp_path / "child.yaml")
    assert result.ok and not result.marks
    assert next(c for c in result.document.data["cards"] if c["id"] == "squid_nigiri")["attributes"] == {"value": 12}


def test_the_bundled_rulesets_have_no_marks():
    """The bundled rule files hold plain numbers only (a mark there would change what every user plays)."""
    for path in sorted((ROOT / "rulesets").glob("*.yaml")):
        assert find_marks(load_document(path.read_text(encoding="utf-8"), str(path))) == ([], [])


def test_marks_in_a_table_cell_and_a_modifier_factor_compile_as_the_numbers(tmp_path):
    """Any whole number can be a mark: a table's cell and a modifier's factor, at the rulebook's values, give Sushi Go!'s scoring."""
    path = tmp_path / "cells.yaml"
    path.write_text(
        "format: 1\nid: cells\nname: Cells\nextends: sushi-go\nscoring:\n"
        "  - {id: dumpling, when: round_end, kind: table, cards: dumpling, points: [0, 1, 3, 6, {tune: [5, 20]}, 15]}\n"
        "  - {id: wasabi, when: round_end, kind: modifier, card: wasabi, targets: {tag: nigiri},"
        " value: {attribute: value}, factor: {tune: [1, 5], start: 2}}\n",
        encoding="utf-8",
    )
    marked = check_ruleset(path)
    assert marked.ok, marked.diagnostics
    assert marked.marks.values == {"scoring[dumpling].points[4]": 12, "scoring[wasabi].factor": 2}
    rulebook = check_ruleset(path, tune={"scoring[dumpling].points[4]": 10, "scoring[wasabi].factor": 3})
    bundled = check_ruleset("sushi-go")
    ours = {r["id"]: r for r in rulebook.document.data["scoring"]}
    theirs = {r["id"]: r for r in bundled.document.data["scoring"]}
    assert {k: ours[k]["points" if k == "dumpling" else "factor"] for k in ("dumpling", "wasabi")} == {
        k: theirs[k]["points" if k == "dumpling" else "factor"] for k in ("dumpling", "wasabi")
    }
    scoring = {rule.id: rule for rule in rulebook.ruleset.rules}
    assert set(scoring) == {rule.id for rule in bundled.ruleset.rules}
