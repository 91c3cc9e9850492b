"""A tune mark's range stays within the numbers a rule file may hold: its ends past
±1,000,000 are errors at their places, so no search tries numbers no ruleset takes;
a mark where no whole number fits is named in the schema's error at its place."""

from __future__ import annotations

import pytest

from ruledraft.language.loading import check_ruleset
from ruledraft.language.tunable import MAX_END, find_marks
from ruledraft.language.yaml_loader import load_document


def errors(text: str) -> list[str]:
    """The problems of ``text``'s tune marks, as ``LINE:COLUMN: message``."""
    _, problems = find_marks(load_document(text, "r.yaml"))
    return [f"{d.line}:{d.column}: {d.message}" for d in problems]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "points: {tune: [1, 99999999999999999999], start: 3}\n",
            ["1:20: tune mark points: the range's high end must lie within ±1,000,000, not 99999999999999999999"],
        ),
        (
            "points:\n  tune: [-1000001, 2]\n",
            ["2:10: tune mark points: the range's low end must lie within ±1,000,000, not -1000001"],
        ),
    ],
    ids=["huge high end", "low end one past"],
)
def test_a_range_end_past_a_million_is_an_error_at_that_end(text, expected):
    """An end beyond ±1,000,000 (the schema's widest number) is refused where it is written."""
    assert errors(text) == expected


def test_the_widest_range_allowed_is_accepted():
    """[-1000000, 1000000] is a mark like any other, its start the midpoint."""
    marks, problems = find_marks(load_document(f"points: {{tune: [-{MAX_END}, {MAX_END}]}}\n", "r.yaml"))
    assert problems == []
    assert [(m.low, m.high, m.start) for m in marks] == [(-MAX_END, MAX_END, 0)]


def test_a_mark_where_no_whole_number_fits_says_it_stood_for_one(tmp_path):
    """A mark in place of a name or a card id: the schema's error at its place says the mark put a whole number there."""
    path = tmp_path / "named.yaml"
    path.write_text(
        "format: 1\nid: named\nname: {tune: [1, 3]}\nextends: sushi-go\ncards:\n"
        "  - {id: {tune: [1, 3], start: 1}, attributes: {value: 3}}\n",
        encoding="utf-8",
    )
    result = check_ruleset(path)
    assert not result.ok
    assert [d.format() for d in result.diagnostics if d.severity == "error"] == [
        f"{path}:3:7: error: 'name' must be text, not 2 (tune mark name stands for a whole number, here 2)",
        f"{path}:6:10: error: 'id' must be text, not 1 (tune mark cards[0].id stands for a whole number, here 1)",
    ]
