"""Why the front end keeps each hand-written part: what PyYAML or jsonschema alone would do, beside what we do.

The loader is built on PyYAML's composer and the schema check on jsonschema's errors and
``best_match``. Each test here pins one spot where the library alone falls short, by showing
the library's own result next to ours. If a library starts doing as well, its half of a test
fails: then the hand-written part can go.
"""

from __future__ import annotations

from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from paths import DATA
from strategies import MINI

from ruledraft.errors import RulesetError
from ruledraft.language.schema_check import check_schema, load_schema
from ruledraft.language.yaml_loader import LoaderLimits, load_document, load_file

BROKEN = DATA / "broken"


def errors(text: str, **kwargs: Any) -> list[tuple[int, int, str]]:
    """``(line, column, message)`` of each loader error of ``text``."""
    with pytest.raises(RulesetError) as info:
        load_document(text, "r.yaml", **kwargs)
    return [(d.line, d.column, d.message) for d in info.value.diagnostics]


def ours(text: str) -> list[tuple[int, int, str]]:
    """``(line, column, message)`` of each schema diagnostic of ``text``."""
    return [(d.line, d.column, d.message) for d in check_schema(load_document(text, "r.yaml"))]


def library(data: Any) -> tuple[list[Any], str]:
    """jsonschema's own ``best_match`` for ``data``: the path it names and its message."""
    error = best_match(Draft202012Validator(load_schema()).iter_errors(data))
    assert error is not None
    return list(error.absolute_path), error.message


# -- the loader: PyYAML's composer, overridden where it cannot keep a guarantee -----------------


def test_an_alias_is_located_where_it_is_written_not_at_its_anchor():
    """compose() gives an alias the anchored node (the anchor's mark); the loader keeps the alias's place."""
    text = "a: &x [1]\nb: *x\n"
    node = yaml.compose(text)
    assert node.value[1][1].start_mark.line + 1 == 1  # the shared node: line 1, where the anchor is
    assert load_document(text).locate(("b",)) == (2, 4)


def test_unknown_aliases_are_all_reported():
    """compose() stops at the first unknown alias; the loader reports each one and carries on."""
    text = "a: *x\nb: *y\n"
    with pytest.raises(yaml.composer.ComposerError, match="found undefined alias 'x'"):
        yaml.compose(text)
    assert errors(text) == [
        (1, 4, "unknown alias '*x' (no '&x' before it)"),
        (2, 4, "unknown alias '*y' (no '&y' before it)"),
    ]


def test_an_alias_inside_its_own_anchor_is_refused_not_a_cycle():
    """compose() builds a node that contains itself; the loader refuses the alias at its place."""
    text = "a: &t [1, *t]\n"
    node = yaml.compose(text)
    assert node.value[0][1].value[1] is node.value[0][1]
    assert errors(text) == [(1, 11, "alias '*t' is used inside the value it names")]


def test_an_anchor_may_be_named_again():
    """compose() refuses a second anchor of the same name; YAML 1.2 and the loader allow it."""
    text = "a: &x 1\nb: *x\nc: &x 2\nd: *x\n"
    with pytest.raises(yaml.composer.ComposerError, match="found duplicate anchor 'x'"):
        yaml.compose(text)
    assert load_document(text).data == {"a": 1, "b": 1, "c": 2, "d": 2}


def test_nesting_is_refused_while_composing_before_the_stack_runs_out():
    """compose() recurses per level and overflows; the loader stops at the level that crosses the limit."""
    text = "a: " + "[" * 100_000
    with pytest.raises(RecursionError):
        yaml.compose(text)
    assert errors(text) == [(1, 4 + 63, "values are nested more than 64 levels deep")]


def test_an_alias_bomb_is_counted_as_expanded_while_composing():
    """compose() accepts a bomb (shared nodes); the loader counts the expansion and stops at the alias that crosses."""
    text = "a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b]\n"
    assert yaml.compose(text) is not None
    limit = "the file builds more than 100 values (aliases repeating aliases can multiply a small file into a huge one)"
    assert errors(text, limits=LoaderLimits(max_nodes=100)) == [
        (3, 5, limit)
    ]  # the first *b: 60 values so far, and b builds 45


def test_duplicate_keys_are_errors():
    """PyYAML keeps the last of two equal keys without a word; the loader reports the second at its place."""
    text = "c: 1\nc: 2\n"
    assert yaml.safe_load(text) == {"c": 2}
    assert errors(text) == [(2, 1, "duplicate key 'c' (first at line 1)")]


def test_problems_before_a_syntax_error_are_reported_with_it():
    """compose() raises at a syntax error with nothing built; keys and scalars checked while composing are still reported."""
    text = "a: 1\na: 2\nb: 010\nc: [1\n"
    with pytest.raises(yaml.MarkedYAMLError):
        yaml.compose(text)
    assert errors(text) == [
        (2, 1, "duplicate key 'a' (first at line 1)"),
        (3, 4, "write whole numbers in plain decimal: '010' would be read as 8"),
        (4, 4, "YAML syntax: the '[' here is not closed with ']' before the file ends"),
    ]


def test_yaml_1_2_scalars_not_yaml_1_1():
    """PyYAML reads ``no`` as false, ``010`` as 8 and the key ``2`` as a number; the loader reads YAML 1.2 and text keys."""
    assert yaml.safe_load("a: no\n2: x\nb: 010\n") == {"a": False, 2: "x", "b": 8}
    assert load_document("a: no\n2: x\n").data == {"a": "no", "2": "x"}
    assert errors("b: 010\n") == [(1, 4, "write whole numbers in plain decimal: '010' would be read as 8")]


def test_a_column_inside_a_quoted_value_follows_its_escapes():
    """A node's mark is only where the scalar starts; the loader maps each character of the value to its column."""
    text = 'expr: "\\t\\u00e9 + nigiri"\n'
    node = yaml.compose(text).value[0][1]
    assert (node.start_mark.line + 1, node.start_mark.column + 1) == (1, 7)
    offset = node.value.index("nigiri")  # 5 in the value, 15 characters into the line's text
    assert load_document(text).scalar_locator(("expr",))(offset) == (1, 7 + 1 + 2 + 6 + 3)


def test_a_control_character_written_as_an_escape_is_refused_where_the_escape_is():
    """PyYAML refuses raw control characters but turns ``\\e`` into ESC; the loader refuses it at the escape's column."""
    text = 'a: "red \\e[31m"\n'
    assert yaml.safe_load(text) == {"a": "red \x1b[31m"}
    message = "character U+001B (a control character) cannot be shown and is not allowed in a rule file"
    assert errors(text) == [(1, 9, message)]


def test_a_bidi_control_is_refused_even_in_a_comment():
    """PyYAML reads a right-to-left override as text; the loader refuses it anywhere, since a code frame shows the line."""
    text = "# note \u202e\na: 1\n"
    assert yaml.safe_load(text) == {"a": 1}
    message = "character U+202E (a bidirectional-text control) cannot be shown and is not allowed in a rule file"
    assert errors(text) == [(1, 8, message)]


# -- the schema check: jsonschema's errors, worded and located for an author -------------------


def test_an_unknown_key_is_named_at_the_key_with_a_suggestion():
    """best_match names the mapping and lists the extra key; the check points at the key and offers the near one."""
    text = MINI.replace("{id: apple, count: 10}", "{id: apple, count: 10, cont: 3}")
    assert library(load_document(text).data) == (
        ["cards", 0],
        "Additional properties are not allowed ('cont' was unexpected)",
    )
    assert ours(text) == [(6, 28, "unknown key 'cont' in a card (did you mean 'count'?)")]


def test_types_are_named_in_plain_words():
    """best_match says ``'ten' is not of type 'integer'``; the check says what to write."""
    text = MINI.replace("count: 1, pass", "count: 'ten', pass")
    assert library(load_document(text).data) == (["rounds", "count"], "'ten' is not of type 'integer'")
    assert ours(text) == [(10, 17, "'count' must be a whole number, not 'ten'")]


def test_a_whole_number_is_written_without_a_point():
    """JSON Schema calls 1.0 an integer; the check's type checker does not."""
    text = MINI.replace("count: 1, pass", "count: 1.0, pass")
    assert Draft202012Validator(load_schema()).is_valid(load_document(text).data)
    assert ours(text) == [(10, 17, "'count' must be a whole number, not 1.0")]


def test_a_repeated_item_is_named_and_located():
    """best_match says the list has non-unique elements; the check names the repeat and points at it."""
    text = MINI.replace("tags: [fruit]", "tags: [fruit, fruit]")
    assert library(load_document(text).data) == (["cards", 1, "tags"], "['fruit', 'fruit'] has non-unique elements")
    assert ours(text) == [(7, 41, "'tags' lists 'fruit' more than once")]


def test_a_choice_of_forms_reports_the_form_not_every_branch():
    """For a missing or doubled form best_match blames the keys the author wrote; the check names the forms."""
    missing = load_file(BROKEN / "quantity-no-form.yaml")
    doubled = load_file(BROKEN / "quantity-two-forms.yaml")
    assert library(missing.data) == (
        ["scoring", 1],
        "Unevaluated properties are not allowed ('least', 'quantity' were unexpected)",
    )
    assert library(doubled.data) == (
        ["scoring", 0],
        "Unevaluated properties are not allowed ('most', 'quantity' were unexpected)",
    )
    assert (16, 5, "missing required key 'count', 'sum', 'distinct' or 'expr' in 'quantity'") in [
        (d.line, d.column, d.message) for d in check_schema(missing)
    ]
    assert [(d.line, d.column, d.message) for d in check_schema(doubled)] == [
        (15, 29, "use only one of 'count', 'sum', 'distinct' or 'expr' in 'quantity', not 'count' and 'sum'")
    ]


def test_a_word_that_may_also_be_a_list_says_so():
    """best_match reports only the single-word branch of the choice; the check mentions the list form and a near word."""
    text = MINI.replace("pass: left", "pass: lfet")
    assert library(load_document(text).data) == (["rounds", "pass"], "'lfet' is not one of ['left', 'right', 'none']")
    assert ours(text) == [
        (
            10,
            26,
            "'pass' must be one of left, right, none, {turns: ...}, or a list of them, not 'lfet' (did you mean 'left'?)",
        )
    ]
