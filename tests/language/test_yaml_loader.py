"""Tests of ruledraft.language.yaml_loader: plain data, positions, safety limits, located errors."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import ROOT

from ruledraft.errors import Diagnostic, RulesetError
from ruledraft.language.yaml_loader import Document, LoaderLimits, load_document, load_file

SUSHI_GO = ROOT / "rulesets" / "sushi-go.yaml"


def errors_of(text: str, **kwargs) -> list:
    """The diagnostics loading ``text`` raises (fails if it loads)."""
    with pytest.raises(RulesetError) as info:
        load_document(text, "r.yaml", **kwargs)
    return info.value.diagnostics


def only_error(text: str, **kwargs) -> Diagnostic:
    """The single diagnostic loading ``text`` raises."""
    diagnostics = errors_of(text, **kwargs)
    assert len(diagnostics) == 1, diagnostics
    return diagnostics[0]


def plain(value) -> bool:
    """Whether ``value`` is built only of dict (with str keys), list, str, int, float, bool, None."""
    if isinstance(value, dict):
        return all(isinstance(k, str) and plain(v) for k, v in value.items())
    if isinstance(value, list):
        return all(plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, bool))


# -- plain data ---------------------------------------------------------------------------


def test_sushi_go_loads_as_plain_data():
    """The reference ruleset loads into plain dicts/lists/scalars with string keys."""
    doc = load_file(SUSHI_GO)
    assert isinstance(doc, Document)
    assert doc.file == str(SUSHI_GO)
    assert plain(doc.data)
    assert doc.data["format"] == 1
    assert doc.data["deal"]["hand_size"] == {"2": 10, "3": 9, "4": 8, "5": 7}
    assert doc.data["cards"][3]["attributes"] == {"icons": 1}
    assert doc.data["version"] == "1.0"
    assert doc.lines[doc.locate(("id",))[0] - 1] == "id: sushi-go"


def test_scalar_types_follow_the_standard_tags():
    """Plain scalars become int/float/bool/None/str as YAML's standard tags say."""
    doc = load_document("a: 3\nb: 2.5\nc: true\nd: ~\ne: null\nf: word\ng: '3'\nh: !!str 4\ni: !!float 2\nj: -7\n")
    assert doc.data == {
        "a": 3,
        "b": 2.5,
        "c": True,
        "d": None,
        "e": None,
        "f": "word",
        "g": "3",
        "h": "4",
        "i": 2.0,
        "j": -7,
    }


def test_only_yaml_1_2_booleans_are_booleans():
    """true/True/TRUE and false/False/FALSE are booleans; YAML 1.1's yes/no/on/off stay text (a card may be called no), unless tagged !!bool."""
    doc = load_document("a: true\nb: False\nc: TRUE\nd: yes\ne: no\nf: On\ng: OFF\nh: !!bool yes\nids: [no, off]\n")
    assert doc.data == {
        "a": True,
        "b": False,
        "c": True,
        "d": "yes",
        "e": "no",
        "f": "On",
        "g": "OFF",
        "h": True,
        "ids": ["no", "off"],
    }


@pytest.mark.parametrize("tag", ["", '!!int "{}"'])
@pytest.mark.parametrize(
    "written, read_as", [("010", 8), ("0x10", 16), ("0b101", 5), ("1:10", 70), ("1_000", 1000), ("٣", 3), ("１", 1)]
)
def test_whole_numbers_not_in_plain_decimal_are_refused_where_written(written, read_as, tag):
    """YAML 1.1 number forms (octal 010, hex, binary, sexagesimal, underscores) and digits of other scripts are errors at their spot, not silent other numbers, tagged !!int or not."""
    if not tag and not written.isascii():
        return  # untagged, these are text: the schema says what is wrong with them
    text = tag.format(written) if tag else written
    with pytest.raises(RulesetError) as info:
        load_document(f"players:\n  max: {text}\n", "r.yaml")
    (d,) = info.value.diagnostics
    assert (d.file, d.line, d.column) == ("r.yaml", 2, 8)
    assert d.message == f"write whole numbers in plain decimal: '{written}' would be read as {read_as}"


@pytest.mark.parametrize("written, read_as", [("1:30.5", "90.5"), ("1_0.5", "10.5")])
def test_numbers_in_yaml_1_1_forms_are_refused_tagged_or_not(written, read_as):
    """A base-60 or underscored number (YAML 1.1's float forms), written as it is or tagged !!float, is an error at its spot; !!float "2.5" is 2.5."""
    for text in (written, f'!!float "{written}"'):
        with pytest.raises(RulesetError) as info:
            load_document(f"a: {text}\n", "r.yaml")
        (d,) = info.value.diagnostics
        assert d.message == f"write numbers in plain decimal: '{written}' would be read as {read_as}"
    assert load_document('a: !!float "2.5"\n').data == {"a": 2.5}


def test_keys_become_the_text_written():
    """Every mapping key is a string, exactly as written (2 -> '2', 1.50 -> '1.50', true -> 'true')."""
    doc = load_document("2: a\n1.50: b\ntrue: c\n~: d\n'quoted': e\n6-8: f\n")
    assert list(doc.data) == ["2", "1.50", "true", "~", "quoted", "6-8"]


def test_implicit_timestamps_stay_text():
    """A plain date is kept as the text written, not turned into a datetime."""
    assert load_document("when: 2024-01-31\n").data == {"when": "2024-01-31"}


def test_non_specific_tag_gives_text():
    """The non-specific tag '!' makes a string, as YAML says."""
    assert load_document("a: ! 12\n").data == {"a": "12"}


def test_aliases_expand_to_independent_copies():
    """An alias gives a copy of the anchored value: changing one does not change the other."""
    doc = load_document("a: &x {k: [1, 2]}\nb: *x\n")
    assert doc.data["a"] == doc.data["b"] == {"k": [1, 2]}
    doc.data["b"]["k"].append(3)
    assert doc.data["a"] == {"k": [1, 2]}


def test_alias_used_as_a_key():
    """An alias of a scalar can be used as a mapping key (its text is the key)."""
    assert load_document("a: &k name\n*k : 1\n").data == {"a": "name", "name": 1}


def test_anchor_may_be_redefined():
    """A later anchor with the same name replaces the earlier one (YAML 1.2)."""
    assert load_document("a: &x 1\nb: &x 2\nc: *x\n").data == {"a": 1, "b": 2, "c": 2}


# -- positions ------------------------------------------------------------------------------


def test_locate_values_and_keys():
    """locate gives the 1-based position of a value, or of its key with key=True."""
    doc = load_document("name: Mini\nplayers:\n  min: 2\n  max:   4\ncards:\n  - {id: apple, count: 10}\n")
    assert doc.locate(("name",)) == (1, 7)
    assert doc.locate(("name",), key=True) == (1, 1)
    assert doc.locate(("players", "max")) == (4, 10)
    assert doc.locate(("players", "max"), key=True) == (4, 3)
    assert doc.locate(("players",)) == (3, 3)
    assert doc.locate(("players",), key=True) == (2, 1)
    assert doc.locate(("cards", 0)) == (6, 5)
    assert doc.locate(("cards", 0), key=True) == (6, 5)
    assert doc.locate(("cards", 0, "count")) == (6, 24)
    assert doc.locate(("cards", 0, "count"), key=True) == (6, 17)
    assert doc.locate(()) == (1, 1)


def test_locate_unknown_path_gives_nearest_ancestor():
    """An unknown path is located at its nearest known ancestor."""
    doc = load_document("a: 1\nb:\n  c: {d: 2}\n")
    assert doc.locate(("b", "c", "missing")) == doc.locate(("b", "c")) == (3, 6)
    assert doc.locate(("b", "c", "d", 0, "x")) == (3, 10)
    assert doc.locate(("nowhere",)) == (1, 1)
    assert doc.locate(["b", "c"]) == (3, 6)


def test_locate_follows_crlf_and_unicode_line_breaks():
    """Lines are counted as YAML counts them (CRLF is one break)."""
    doc = load_document("a: 1\r\nb: 2\r\nc: x\n")
    assert doc.locate(("c",)) == (3, 4)
    assert doc.lines == ("a: 1", "b: 2", "c: x")


def test_positions_inside_an_alias_point_at_the_anchored_text():
    """Values reached through an alias are located where the anchored value is written."""
    doc = load_document("base: &b {min: 2, max: 4}\nplayers: *b\n")
    assert doc.locate(("players",)) == (2, 10)
    assert doc.locate(("players",), key=True) == (2, 1)
    assert doc.locate(("players", "max")) == (1, 24)
    assert doc.locate(("players", "max"), key=True) == (1, 19)


def test_diagnostic_fills_source_line():
    """Document.diagnostic gives a Diagnostic at the value with its source line."""
    doc = load_document("a: 1\nb: wrong\n", "x.yaml")
    diag = doc.diagnostic(("b",), "bad b")
    assert (diag.file, diag.line, diag.column, diag.message) == ("x.yaml", 2, 4, "bad b")
    assert diag.source_line == "b: wrong"
    assert doc.diagnostic(("b",), "bad key", key=True).column == 1


def chars_at(doc: Document, path: tuple, value: str) -> list:
    """``(character, line, column)`` for each character of the scalar at ``path``."""
    locate = doc.scalar_locator(path)
    return [(ch,) + locate(i) for i, ch in enumerate(value)]


def test_scalar_locator_plain():
    """Offsets in a plain scalar map to its columns; folded line breaks to the break."""
    doc = load_document("expr: count(apple) * 2\nlong: one\n  two\n")
    locate = doc.scalar_locator(("expr",))
    assert locate(0) == (1, 7)
    assert locate(6) == (1, 13)  # the 'a' of apple
    assert locate(len("count(apple) * 2")) == (1, 23)  # just past the end
    assert doc.data["long"] == "one two"
    assert chars_at(doc, ("long",), "one two")[2:5] == [("e", 2, 9), (" ", 2, 10), ("t", 3, 3)]


def test_scalar_locator_single_quoted():
    """Offsets in a single-quoted scalar skip the quote and count '' as one character."""
    doc = load_document("e: 'it''s x'\n")
    locate = doc.scalar_locator(("e",))
    assert doc.data["e"] == "it's x"
    assert locate(0) == (1, 5)
    assert locate(2) == (1, 7)  # the doubled quote
    assert locate(3) == (1, 9)  # 's'
    assert locate(5) == (1, 11)  # 'x'


def test_scalar_locator_double_quoted_with_escapes():
    """Offsets in a double-quoted scalar follow escapes (\\t, \\x41) to where they are written."""
    doc = load_document('e: "a\\tb\\x41c"\n')
    assert doc.data["e"] == "a\tbAc"
    locate = doc.scalar_locator(("e",))
    assert [locate(i) for i in range(5)] == [(1, 5), (1, 6), (1, 8), (1, 9), (1, 13)]


def test_scalar_locator_literal_block():
    """Offsets in a literal block scalar map line by line, past the indentation."""
    doc = load_document("expr: |\n  count(a)\n    + count(b)\n")
    value = doc.data["expr"]
    assert value == "count(a)\n  + count(b)\n"
    locate = doc.scalar_locator(("expr",))
    assert locate(0) == (2, 3)
    assert locate(value.index("+")) == (3, 5)
    assert locate(value.index("b")) == (3, 13)


def test_scalar_locator_folded_block():
    """Offsets in a folded block scalar are found by walking its content lines."""
    doc = load_document("expr: >-\n  count(a)\n  + count(b)\n\n  - 1\n")
    value = doc.data["expr"]
    assert value == "count(a) + count(b)\n- 1"
    locate = doc.scalar_locator(("expr",))
    assert locate(value.index("+")) == (3, 3)
    assert locate(value.index("b")) == (3, 11)
    assert locate(value.index("-")) == (5, 3)
    assert locate(value.index(" +")) == (2, 11)  # the folded line break


def test_scalar_locator_explicit_indentation_indicator():
    """A block scalar with an indentation indicator keeps its extra spaces in the value."""
    doc = load_document("e: |2\n    x\n")
    assert doc.data["e"] == "  x\n"
    assert doc.scalar_locator(("e",))(2) == (2, 5)


def test_scalar_locator_after_anchor_and_tag():
    """A scalar written after an anchor and a tag is located from its own first character."""
    doc = load_document("e: &a !!str hello\nf: *a\n")
    assert doc.scalar_locator(("e",))(0) == (1, 13)
    assert doc.scalar_locator(("f",))(1) == (1, 14)


def test_scalar_locator_clamps_and_falls_back():
    """Out-of-range offsets are clamped; a non-scalar path maps every offset to its position."""
    doc = load_document("e: abc\nm: {k: 1}\n")
    locate = doc.scalar_locator(("e",))
    assert locate(-5) == (1, 4)
    assert locate(100) == (1, 7)
    assert doc.scalar_locator(("m",))(3) == (2, 4)
    assert doc.scalar_locator(("nowhere",))(0) == (1, 1)


# -- located errors ---------------------------------------------------------------------------


def test_syntax_error_is_located_and_says_the_fix():
    """Malformed YAML gives a diagnostic at the problem mark saying what to write instead."""
    diag = only_error("a: 1\nb: 2\nc: d: e\n")
    assert diag.format() == (
        "r.yaml:3:5: error: YAML syntax: the value of 'c' holds ': ', which YAML reads as another key; "
        "put the value in quotes: c: 'd: e'"
    )
    assert diag.source_line == "c: d: e"


def test_tab_indentation_explains_itself():
    """A tab used as indentation is a located error that mentions tabs."""
    diag = only_error("a:\n\tb: 1\n")
    assert (diag.line, diag.column) == (2, 1)
    assert "tabs cannot be used" in diag.message


def test_unreadable_character_is_located():
    """A control character is reported at its line and column."""
    diag = only_error("a: 1\nb: x\x01y\n")
    assert (diag.line, diag.column) == (2, 5)
    assert "#x0001" in diag.message


def test_duplicate_keys_report_first_occurrence():
    """A repeated key is an error at the repeat naming the line of the first."""
    diags = errors_of("a: 1\nb: {x: 1, x: 2}\na: 3\n")
    assert [(d.line, d.column, d.message) for d in diags] == [
        (2, 11, "duplicate key 'x' (first at line 2)"),
        (3, 1, "duplicate key 'a' (first at line 1)"),
    ]


def test_keys_that_collide_after_becoming_text_are_duplicates():
    """2 and '2' are the same key once keys are text."""
    assert only_error("2: a\n'2': b\n").message == "duplicate key '2' (first at line 1)"


@pytest.mark.parametrize(
    "text, tag",
    [
        ("a: !!python/object/apply:os.system ['ls']\n", "!!python/object/apply:os.system"),
        ("a: !!python/name:os.getcwd ''\n", "!!python/name:os.getcwd"),
        ("a: !foo 1\n", "!foo"),
        ("a: !!binary aGk=\n", "!!binary"),
        ("a: !!set {x}\n", "!!set"),
        ("a: !!omap [{x: 1}]\n", "!!omap"),
        ("a: !!timestamp 2024-01-01\n", "!!timestamp"),
        ("!!python/str k: x\n", "!!python/str"),
        ("!custom k: x\n", "!custom"),
    ],
)
def test_disallowed_tags_are_located_errors(text, tag):
    """Any tag but the standard scalar, list and mapping tags is an error at the tagged value."""
    diag = only_error(text)
    assert diag.message == f"tag '{tag}' is not allowed in a rule file"
    assert diag.line == 1


def test_tag_errors_never_construct_objects(tmp_path):
    """A python/object/apply tag is refused without running anything."""
    marker = tmp_path / "ran"
    errors_of(f"a: !!python/object/apply:os.mkdir ['{marker}']\n")
    assert not marker.exists()


def test_unreadable_explicit_scalar_is_an_error():
    """!!int on text that is not a number is a located error."""
    diag = only_error("a: 1\nb: !!int ten\n")
    assert (diag.line, diag.column, diag.message) == (2, 4, "cannot read 'ten' as a whole number")


def test_mapping_or_list_as_key_is_an_error():
    """A key that is a list or a mapping is a located error."""
    assert only_error("{[1, 2]: a}\n").message == "a mapping key must be a single value, not a list"
    assert only_error("? {k: 1}\n: a\n").message == "a mapping key must be a single value, not a mapping"


def test_merge_keys_are_refused():
    """The YAML merge key '<<' is not supported."""
    assert "merge keys" in only_error("a: &x {k: 1}\nb: {<<: *x}\n").message


def test_unknown_and_recursive_aliases_are_errors():
    """An alias with no anchor, or inside its own anchor, is a located error."""
    assert only_error("a: *nope\n").message.startswith("unknown alias '*nope'")
    diag = only_error("a: &r [1, *r]\n")
    assert (diag.line, diag.column) == (1, 11)
    assert "inside the value it names" in diag.message


@pytest.mark.parametrize("text", ["", "\n\n", "# only a comment\n", "---\n", "---\n...\n"])
def test_empty_file_is_an_error(text):
    """A file with no content is an error at 1:1."""
    diag = only_error(text)
    assert (diag.line, diag.column) == (1, 1)
    assert "empty" in diag.message


@pytest.mark.parametrize(
    "text, what",
    [("- a\n- b\n", "a list"), ("hello\n", "text"), ("3\n", "the value 3"), ("~\n", "null"), ("# c\n[1]\n", "a list")],
)
def test_top_level_must_be_a_mapping(text, what):
    """A top level that is not a mapping is a located error naming what it is."""
    diag = only_error(text)
    assert "top level of a rule file must be a mapping" in diag.message
    assert what in diag.message


def test_second_document_is_an_error():
    """A second YAML document in the file is an error where it starts."""
    diag = only_error("a: 1\n---\nb: 2\n")
    assert (diag.line, diag.column) == (2, 1)


def test_several_problems_are_reported_together():
    """Independent problems (duplicate key, bad tag) are all reported, sorted by position."""
    diags = errors_of("a: !x 1\nb: 2\nb: 3\n")
    assert [(d.line, d.column) for d in diags] == [(1, 4), (3, 1)]


# -- limits ---------------------------------------------------------------------------


def test_limits_defaults():
    """The default limits are 1 MiB, 100,000 values, 64 levels and 100,000 characters."""
    limits = LoaderLimits()
    assert (limits.max_file_size, limits.max_nodes, limits.max_depth, limits.max_scalar_length) == (
        1 << 20,
        100_000,
        64,
        100_000,
    )


def test_file_size_limit_is_an_error_at_1_1():
    """Text larger than the size limit is refused at 1:1 before parsing."""
    diag = only_error("a: " + "x" * 200 + "\n", limits=LoaderLimits(max_file_size=100))
    assert (diag.line, diag.column) == (1, 1)
    assert "too large" in diag.message


def test_file_size_limit_counts_utf8_bytes():
    """The size limit is in UTF-8 bytes, not characters."""
    text = "a: " + "é" * 40 + "\n"  # 44 characters, 84 bytes
    assert only_error(text, limits=LoaderLimits(max_file_size=50)).message.startswith("the file is too large (84 bytes")
    load_document(text, limits=LoaderLimits(max_file_size=100))


def test_file_size_limit_in_load_file(tmp_path):
    """load_file refuses a file over the limit at 1:1."""
    path = tmp_path / "big.yaml"
    path.write_text("a: " + "x" * 2000 + "\n")
    with pytest.raises(RulesetError) as info:
        load_file(path, limits=LoaderLimits(max_file_size=1000))
    diag = info.value.diagnostics[0]
    assert (diag.file, diag.line, diag.column) == (str(path), 1, 1)


def test_billion_laughs_is_stopped_early():
    """Aliases multiplying into too many values are refused quickly, without building them."""
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 12):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]")
    started = time.perf_counter()
    diag = only_error("\n".join(lines) + "\n")
    assert time.perf_counter() - started < 5
    assert "more than 100000 values" in diag.message
    assert diag.line == 5  # the alias (in a4) that crosses 100,000 values


def test_node_limit_counts_plain_values_too():
    """The value limit counts every scalar, list and mapping."""
    text = "a: [" + ", ".join(["1"] * 20) + "]\n"
    assert "more than 10 values" in only_error(text, limits=LoaderLimits(max_nodes=10)).message
    load_document(text, limits=LoaderLimits(max_nodes=30))


def test_depth_limit():
    """Lists and mappings nested deeper than the limit are refused at the level that crosses it."""
    ok = "a: " + "[" * 63 + "]" * 63 + "\n"  # the top mapping is level 1
    load_document(ok)
    diag = only_error("a: " + "[" * 64 + "]" * 64 + "\n")
    assert (diag.line, diag.column) == (1, 4 + 63)
    assert "nested more than 64 levels" in diag.message


def test_depth_limit_through_aliases():
    """An alias that would nest values past the limit is refused."""
    limits = LoaderLimits(max_depth=5)
    text = "a: &x [[[1]]]\nb: {c: *x}\n"  # *x reaches level 2 + 3
    load_document(text, limits=limits)
    diag = only_error("a: &x [[[1]]]\nb: {c: {d: *x}}\n", limits=limits)
    assert (diag.line, diag.column) == (2, 12)


def test_deep_nesting_does_not_overflow_the_stack():
    """Even a hundred thousand nested brackets end in a located error, not a RecursionError."""
    diag = only_error("a: " + "[" * 100_000)
    assert "nested more than 64 levels" in diag.message


def test_scalar_length_limit():
    """A text value longer than the limit is a located error."""
    diag = only_error("a: 1\nb: " + "x" * 50 + "\n", limits=LoaderLimits(max_scalar_length=20))
    assert (diag.line, diag.column) == (2, 4)
    assert "too long" in diag.message


# -- files -------------------------------------------------------------------------------


def test_unreadable_file_is_error_at_1_1(tmp_path):
    """A file that cannot be read is a RulesetError at 1:1."""
    missing = tmp_path / "nope.yaml"
    with pytest.raises(RulesetError) as info:
        load_file(missing)
    diag = info.value.diagnostics[0]
    assert (diag.file, diag.line, diag.column) == (str(missing), 1, 1)
    assert diag.message.startswith("cannot read the file")
    with pytest.raises(RulesetError):
        load_file(tmp_path)  # a directory


def test_invalid_utf8_is_located(tmp_path):
    """A file that is not UTF-8 is an error at the line of the bad byte."""
    path = tmp_path / "bad.yaml"
    path.write_bytes(b"a: 1\nb: caf\xe9\n")
    with pytest.raises(RulesetError) as info:
        load_file(path)
    diag = info.value.diagnostics[0]
    assert (diag.line, diag.column) == (2, 7)
    assert "UTF-8" in diag.message


def test_byte_order_mark_is_accepted(tmp_path):
    """A UTF-8 byte order mark at the start of a file is ignored."""
    path = tmp_path / "bom.yaml"
    path.write_bytes(b"\xef\xbb\xbfa: 1\n")
    doc = load_file(path)
    assert doc.data == {"a": 1}
    assert doc.locate(("a",), key=True) == (1, 1)


# -- never a traceback -----------------------------------------------------------------------

YAMLISH = st.lists(
    st.sampled_from(
        list("ab1: -[]{},&*!|>'\"#\n\t ?%@`\\.~")
        + ["\r\n", "\x85", "\u2028", "\ufeff", "é", "<<", "!!", "---", "...", "&a ", "*a", "!!python/object:x ", "\x00"]
        + ["!!int ", "!!str ", "!!binary ", "0x", "1e9", "true", "null", "  ", "\n  ", "\n- ", "key: "]
    ),
    max_size=80,
).map("".join)


def check_outcome(text: str) -> None:
    """Loading gives a Document of plain data, or a RulesetError with sensible positions."""
    try:
        doc = load_document(text, "h.yaml")
    except RulesetError as exc:
        assert exc.diagnostics
        for diag in exc.diagnostics:
            assert diag.line >= 1 and diag.column >= 1
            assert diag.file == "h.yaml"
        return
    assert isinstance(doc.data, dict) and plain(doc.data)
    for path in list(doc._positions)[:50]:
        line, column = doc.locate(path)
        assert line >= 1 and column >= 1
        doc.scalar_locator(path)(3)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text())
def test_arbitrary_text_never_raises_anything_but_ruleset_error(text):
    """Any text at all either loads or raises RulesetError."""
    check_outcome(text)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(YAMLISH)
def test_yaml_like_text_never_raises_anything_but_ruleset_error(text):
    """Text built from YAML's special characters either loads or raises RulesetError."""
    check_outcome(text)


def test_a_text_read_again_gives_the_same_document_with_data_of_its_own():
    """The same text read twice (a parent read for each file that extends it) gives equal
    data and positions, each document's data its own: changing one leaves the next read as
    written; a changed text is read anew."""
    from ruledraft.language import yaml_loader

    text = "id: t\ncards:\n  - {id: a, count: 2}\n"
    first = load_document(text, "again.yaml")
    first.data["cards"][0]["count"] = 99
    first.data["id"] = "changed"
    second = load_document(text, "again.yaml")
    assert second.data == {"id": "t", "cards": [{"id": "a", "count": 2}]}
    assert second.locate(("cards", 0, "count")) == (3, 20) == first.locate(("cards", 0, "count"))
    assert load_document(text.replace("2}", "3}"), "again.yaml").data["cards"][0]["count"] == 3
    for n in range(2 * yaml_loader._PARSED_KEPT):  # other texts read: the kept ones stay few
        load_document(f"id: t{n}\n", "other.yaml")
    assert len(yaml_loader._PARSED) == yaml_loader._PARSED_KEPT
    big = "id: t\n" + "# a comment\n" * (yaml_loader._PARSED_SIZE // 12 + 1)
    assert load_document(big, "big.yaml").data == {"id": "t"}
    assert all(key[1] != big for key in yaml_loader._PARSED)  # a long text is not kept
