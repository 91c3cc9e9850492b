"""Tests of the ruleset JSON Schema and ruledraft.language.schema_check, including the broken-file corpus."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from paths import DATA, ROOT
from strategies import MINI

from ruledraft.errors import Diagnostic, RulesetError
from ruledraft.language.schema_check import check_schema, load_schema
from ruledraft.language.yaml_loader import load_document, load_file

SUSHI_GO = ROOT / "rulesets" / "sushi-go.yaml"
BROKEN = DATA / "broken"
EXPECT = re.compile(r"^# expect: (\d+):(\d+): (.+?)\s*$")


def check_text(text: str) -> list:
    """Schema diagnostics of ``text`` (which must load)."""
    return check_schema(load_document(text, "r.yaml"))


def messages(text: str) -> list:
    """``(line, column, message)`` of each schema diagnostic of ``text``."""
    return [(d.line, d.column, d.message) for d in check_text(text)]


# -- the schema itself --------------------------------------------------------------------


def test_schema_is_valid_2020_12():
    """The ruleset schema is itself a valid JSON Schema 2020-12 document."""
    schema = load_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == "https://ruledraft.dev/schemas/ruleset.schema.json"


def test_load_schema_returns_a_fresh_copy():
    """load_schema gives a dict the caller may change without affecting later checks."""
    first = load_schema()
    first["properties"].clear()
    assert "format" in load_schema()["properties"]
    assert check_schema(load_file(SUSHI_GO)) == []


def walk_properties(schema, where="#"):
    """Yield ``(where, subschema)`` for every property schema and every $defs entry."""
    if isinstance(schema, dict):
        for name, sub in schema.get("properties", {}).items():
            yield f"{where}/properties/{name}", sub
        for name, sub in schema.get("$defs", {}).items():
            yield f"{where}/$defs/{name}", sub
        for key, sub in schema.items():
            if key not in ("const", "enum", "default", "required"):
                yield from walk_properties(sub, f"{where}/{key}")
    elif isinstance(schema, list):
        for index, sub in enumerate(schema):
            yield from walk_properties(sub, f"{where}/{index}")


def test_every_property_and_definition_has_title_and_description():
    """Editors can show help for every key: each property and $defs entry has a title and description."""
    schema = load_schema()
    assert schema.get("title") and schema.get("description")
    lacking = [
        where
        for where, sub in walk_properties(schema)
        if isinstance(sub, dict)
        and not (sub.get("title") and sub.get("description"))
        and "/then/properties/" not in where  # bare 'required' refinements of properties described above
        and "/if/properties/" not in where
    ]
    assert lacking == []


def test_sushi_go_passes_the_schema():
    """The reference ruleset has no schema problems at all."""
    assert check_schema(load_file(SUSHI_GO)) == []


def test_minimal_ruleset_passes():
    """A small complete ruleset passes the schema."""
    assert check_text(MINI) == []


def test_extending_ruleset_needs_only_the_basics():
    """With extends, players/cards/deal/rounds/scoring may be left out and card counts omitted."""
    text = "format: 1\nid: mini-plus\nname: Mini+\nextends: sushi-go\ncards:\n  - {id: tempura, name: Fried}\nremove: {scoring: [tempura]}\n"
    assert check_text(text) == []


def test_without_extends_the_sections_are_required():
    """Without extends, the five main sections are all required."""
    assert messages("format: 1\nid: x\nname: X\n") == [
        (1, 1, "missing required keys 'players', 'cards', 'deal', 'rounds' and 'scoring' at the top level"),
    ]


# -- wording and positions ----------------------------------------------------------------------


def test_unknown_key_is_reported_at_the_key_with_suggestion():
    """An unknown key is reported at the key, naming the rule kind and the closest allowed key."""
    text = MINI.replace(
        "value: 1}", "value: 1}\n  - id: pairs\n    kind: sets\n    cards: pear\n    sizee: 2\n    points: 5"
    )
    assert messages(text) == [(16, 5, "unknown key 'sizee' in a 'sets' scoring rule (did you mean 'size'?)")]


def test_unknown_keys_are_reported_one_by_one():
    """Every unknown key in one mapping gets its own diagnostic."""
    text = MINI.replace("{id: apple, count: 10}", "{id: apple, count: 10, flavour: red, size: 3}")
    found = messages(text)
    assert [m for _, _, m in found] == ["unknown key 'flavour' in a card", "unknown key 'size' in a card"]
    assert [c for _, c, _ in found] == [28, 42]


def test_suggestions_come_from_the_schema():
    """The did-you-mean candidates are the keys the schema allows at that spot (here: a majority rule)."""
    text = MINI.replace(
        "  - {id: apples, kind: per_card, cards: apple, value: 1}",
        "  - {id: m, kind: majority, quantity: {count: apple}, most: [3], all_eqaul: nothing, multiplyer: 2}",
    )
    assert [m for _, _, m in messages(text)] == [
        "unknown key 'all_eqaul' in a 'majority' scoring rule (did you mean 'all_equal'?)",
        "unknown key 'multiplyer' in a 'majority' scoring rule (did you mean 'multiplier'?)",
    ]


def test_misspelt_required_key_is_reported_once():
    """A misspelt required key is reported as unknown (with the suggestion), not also as missing."""
    text = MINI.replace("{id: apple, count: 10}", "{idd: apple, count: 10}")
    assert messages(text) == [(6, 6, "unknown key 'idd' in a card (did you mean 'id'?)")]


def test_a_designers_word_for_a_key_points_to_the_key():
    """colour (or color) on a card points to group, which is a card's colour, and copies to count; as did-you-mean
    hints, saying why, where no key is spelt close to them."""
    text = MINI.replace("{id: apple, count: 10}", "{id: apple, colour: red, copies: 10}")
    assert messages(text) == [
        (6, 17, "unknown key 'colour' in a card (did you mean 'group'? a card's colour is its group)"),
        (6, 30, "unknown key 'copies' in a card (did you mean 'count'? how many copies the deck holds)"),
    ]


def test_a_key_of_the_item_above_written_at_the_left_edge_says_to_indent_it():
    """A scoring rule's last key written at the left edge is read as a key of the file: the message says it is
    a key of a scoring rule, to be indented as the rule's others (it had suggested 'id'); a key no item above
    takes keeps its did-you-mean."""
    rule = "  - {id: apples, kind: per_card, cards: apple, value: 1}\n"
    text = MINI.replace(rule, "  - id: apples\n    cards: apple\n    value: 1\nkind: per_card\n")
    assert (
        15,
        1,
        "unknown key 'kind' at the top level; 'kind' is a key of a scoring rule: indent it as that item's other keys",
    ) in messages(text)
    text = MINI.replace(rule, rule + "scorng: []\n")
    assert messages(text) == [(13, 1, "unknown key 'scorng' at the top level (did you mean 'scoring'?)")]


def test_wrong_type_message():
    """A value of the wrong type says what it must be and what it is."""
    assert messages(MINI.replace("count: 10}", "count: ten}", 1)) == [
        (6, 24, "'count' must be a whole number, not 'ten'")
    ]


def test_float_is_not_a_whole_number():
    """3.0 is not accepted where a whole number is required."""
    assert messages(MINI.replace("count: 10}", "count: 10.0}", 1)) == [
        (6, 24, "'count' must be a whole number, not 10.0")
    ]


def test_bool_is_not_a_number():
    """true is not accepted where a whole number is required."""
    assert messages(MINI.replace("count: 10}", "count: true}", 1)) == [
        (6, 24, "'count' must be a whole number, not true")
    ]


def test_enum_message_with_suggestion():
    """A value outside an enum lists the choices and suggests the closest."""
    text = MINI.replace("kind: per_card,", "kind: per_card, when: roundend,")
    assert messages(text) == [
        (12, 40, "'when' must be one of round_end, game_end, not 'roundend' (did you mean 'round_end'?)"),
    ]


def test_missing_required_key_at_parent_position():
    """A missing required key is reported where its mapping is (at the key holding it)."""
    text = MINI.replace("players: {min: 2, max: 4}", "players:\n  min: 2")
    assert messages(text) == [(4, 1, "missing required key 'max' in 'players'")]


def test_wrong_kind_does_not_flood_with_unknown_keys():
    """With a bad kind, only the kind and keys that fit no kind at all are reported."""
    text = MINI.replace("kind: per_card, cards: apple, value: 1}", "kind: percard, cards: apple, value: 1, valeu: 2}")
    assert [m for _, _, m in messages(text)] == [
        "'kind' must be one of sets, table, per_card, modifier, majority, expression, race, neighbours, boost, not 'percard' (did you mean 'per_card'?)",
        "unknown key 'valeu' in a scoring rule (did you mean 'value'?)",
    ]


def test_bad_nested_value_does_not_make_its_key_unknown():
    """A rule key with a bad value is reported for its value only, not also as an unknown key."""
    text = MINI.replace("cards: apple, value: 1}", "cards: 7, value: {attribute: 3}}")
    assert [m for _, _, m in messages(text)] == [
        "'cards' must be text, a list or a mapping, not 7",
        "'attribute' must be text, not 3",
    ]


def test_diagnostics_are_sorted_and_never_repeat_a_spot():
    """Diagnostics come sorted by position, and no spot is reported twice."""
    text = MINI.replace("name: Mini", "name: ''\nnam: x").replace("count: 10}", "count: -1, cout: 3}")
    diags = check_text(text)
    assert diags == sorted(diags)
    spots = [(d.line, d.column) for d in diags]
    assert len(spots) == len(set(spots))
    assert all(d.source_line is not None for d in diags)


def test_pattern_error_in_a_key():
    """A bad hand_size key is reported at the key."""
    text = MINI.replace("{2: 5, 3-4: 4}", "{2: 5, three: 4}")
    assert messages(text) == [
        (
            9,
            21,
            "key 'three' in 'hand_size' must be a number of players like 4, or a range like 6-8, of at most 2 digits each (a game is for 1-16 players)",
        ),
    ]


def test_quantity_with_two_forms():
    """A quantity may use only one of count, sum, distinct and expr."""
    text = MINI.replace(
        "  - {id: apples, kind: per_card, cards: apple, value: 1}",
        "  - {id: m, kind: majority, quantity: {count: apple, expr: '1'}, most: [3]}",
    )
    assert messages(text) == [
        (12, 54, "use only one of 'count', 'sum', 'distinct' or 'expr' in 'quantity', not 'count' and 'expr'"),
    ]


def test_quantity_branch_errors_come_from_the_form_used():
    """Within the form a quantity uses ({distinct: ...}), its own errors are reported."""
    text = MINI.replace(
        "  - {id: apples, kind: per_card, cards: apple, value: 1}",
        "  - {id: m, kind: majority, quantity: {distinct: colour, of: {tag: fruit}}, most: [3]}",
    )
    assert [m for _, _, m in messages(text)] == [
        "'distinct' must be one of group, card, not 'colour'",
    ]


def test_too_many_items_located_at_first_extra_item():
    """A list over its maximum length is reported at the first item past the limit."""
    rules = "".join(f"  - {{id: r{i}, kind: per_card, cards: apple, value: 1}}\n" for i in range(201))
    text = MINI.split("scoring:\n")[0] + "scoring:\n" + rules
    assert messages(text) == [(12 + 200, 5, "'scoring' has 201 items; at most 200 are allowed")]


# -- robustness ----------------------------------------------------------------------------------

KEYS = st.sampled_from(
    [
        "format",
        "id",
        "name",
        "players",
        "cards",
        "deal",
        "rounds",
        "scoring",
        "kind",
        "count",
        "sum",
        "of",
        "distinct",
        "most",
        "least",
        "default",
        "tag",
        "attribute",
        "value",
        "points",
        "size",
        "min",
        "max",
        "quantity",
        "hand_size",
        "2",
        "x",
        "extends",
        "remove",
        "winner",
        "tie_breaks",
        "turn",
        "dummy",
    ]
)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**8), 10**8),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(["sets", "table", "per_card", "modifier", "majority", "expression", "apple", "Apple", "", "left"]),
)
PLAIN_DATA = st.recursive(
    SCALARS,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(KEYS, children, max_size=5)),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(KEYS, PLAIN_DATA, max_size=8))
def test_check_schema_never_raises(data):
    """For any plain data, check_schema returns located, sorted diagnostics without raising."""
    doc = load_document(yaml.safe_dump(data, sort_keys=False) if data else "{}", "h.yaml")
    diags = check_schema(doc)
    assert diags == sorted(diags)
    assert all(isinstance(d, Diagnostic) and d.line >= 1 and d.column >= 1 for d in diags)


# -- the broken-file corpus ----------------------------------------------------------------------


def corpus_files() -> list:
    """Every file of tests/data/broken."""
    return sorted(BROKEN.glob("*.yaml"))


def expectations(path: Path) -> list:
    """The ``# expect: LINE:COLUMN: MESSAGE`` lines at the top of a corpus file."""
    found = []
    with open(path, encoding="utf-8", errors="replace", newline="") as handle:
        for line in handle:
            match = EXPECT.match(line.rstrip("\r\n"))
            if not match:
                break
            found.append((int(match.group(1)), int(match.group(2)), match.group(3)))
    return found


def problems(path: Path) -> list:
    """Every diagnostic loading and schema-checking the file gives."""
    try:
        doc = load_file(path)
    except RulesetError as exc:
        return exc.diagnostics
    return check_schema(doc)


def test_corpus_is_there():
    """The broken-file corpus exists and every file in it declares what it expects."""
    files = corpus_files()
    assert len(files) >= 40
    assert all(expectations(path) for path in files)


@pytest.mark.parametrize("path", corpus_files(), ids=lambda p: p.stem)
def test_broken_file(path):
    """Each broken file gives exactly the diagnostics its '# expect:' lines list, at those spots."""
    expected = expectations(path)
    assert expected, f"{path.name} has no '# expect:' line"
    found = problems(path)
    assert len(found) == len(expected), "\n".join(d.format() for d in found)
    for (line, column, text), diag in zip(expected, found):
        assert (diag.line, diag.column) == (line, column), diag.format()
        assert text in diag.message, diag.format()
        assert diag.file == str(path)


def test_a_key_written_in_the_wrong_section_is_told_where_it_belongs(tmp_path):
    """rounds.between_rounds and turn.hand_size: each unknown key says it belongs in 'deal'."""
    from ruledraft.language.loading import check_ruleset

    path = tmp_path / "misplaced.yaml"
    path.write_text(
        "format: 1\nextends: sushi-go\nid: misplaced\nname: Misplaced\n"
        "rounds: {count: 3, between_rounds: reshuffle}\nturn: {procedure: standard, hand_size: {'2': 4}}\n",
        encoding="utf-8",
    )
    assert [(d.line, d.column, d.message) for d in check_ruleset(path).diagnostics] == [
        (
            5,
            20,
            "unknown key 'between_rounds' in 'rounds'; 'between_rounds' belongs in 'deal' (deal: {between_rounds: ...})",
        ),
        (6, 29, "unknown key 'hand_size' in 'turn'; 'hand_size' belongs in 'deal' (deal: {hand_size: ...})"),
    ]


def test_a_selector_written_as_an_expression_names_the_selector_form(tmp_path):
    """quantity: {count: tag:maki} (the expression's spelling) says a selector writes it {tag: maki}."""
    from ruledraft.language.loading import check_ruleset

    path = tmp_path / "spelled.yaml"
    path.write_text(
        "format: 1\nextends: sushi-go\nid: spelled\nname: Spelled\n"
        "scoring:\n  - {id: maki, kind: majority, quantity: {count: tag:maki}, most: [6, 3]}\n",
        encoding="utf-8",
    )
    (d,) = check_ruleset(path).diagnostics
    assert (d.line, d.column) == (6, 50)
    assert d.message.endswith(", not 'tag:maki' (a selector names a tag as {tag: maki})")


def test_an_empty_value_where_text_belongs_says_to_quote_the_word(tmp_path):
    """id: null reads as YAML's empty value: the error says to put the word in quotes."""
    from ruledraft.language.loading import check_ruleset

    path = tmp_path / "null.yaml"
    path.write_text(
        "format: 1\nextends: sushi-go\nid: nv\nname: NV\ncards:\n  - {id: null, count: 3}\n", encoding="utf-8"
    )
    (d,) = check_ruleset(path).diagnostics
    assert (d.line, d.column, d.message) == (
        6,
        10,
        "'id' must be text, not an empty value"
        " (YAML reads nothing written, null and ~ as empty: give a value, or quote a word like null)",
    )


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (
            '"bogus\\nfake.yaml:1:1: error: FORGED": 1',
            "r.yaml:{n}:1: error: unknown key 'bogus\\nfake.yaml:1:1: error: FORGED' at the top level",
        ),
        ('version: "1\\nfake.yaml:1:1: error: FORGED"', "r.yaml:{n}:10: error: 'version' must be one line of text"),
    ],
)
def test_a_line_break_the_file_wrote_never_breaks_a_diagnostic_line(line, said):
    """A key or a version holding a line break (a file forging a diagnostic of its own) is said escaped, each diagnostic one line."""
    text = MINI + line + "\n"
    n = text.count("\n")
    (d,) = check_text(text)
    shown = d.format()
    assert "\n" not in shown
    assert shown.startswith(said.format(n=n))


def test_an_extends_name_with_a_line_break_is_said_on_one_line(tmp_path):
    """extends: "parent.yaml\\n" beside a parent.yaml: the ruleset not found, its name escaped on the diagnostic's one line."""
    from ruledraft.language.loading import check_ruleset

    (tmp_path / "parent.yaml").write_text(MINI, encoding="utf-8")
    child = tmp_path / "child.yaml"
    child.write_text('format: 1\nextends: "parent.yaml\\n"\nid: child\nname: Child\n', encoding="utf-8")
    (d,) = check_ruleset(child).diagnostics
    assert d.format() == (
        f"{child}:2:10: error: cannot find the ruleset 'parent.yaml\\n' to extend (did you mean 'parent.yaml'?)"
    )


def test_a_line_of_a_megabyte_is_said_in_a_line_of_a_few_hundred_characters(tmp_path):
    """A 900,000-character line without a colon, and an unknown key of 301 characters: each message quotes at most 80 of them with the length, and --show-source's frame 80 each side of the caret."""
    from ruledraft.language.loading import check_ruleset

    path = tmp_path / "long.yaml"
    path.write_text(MINI + "k" * 900_000 + "\n", encoding="utf-8")
    (d,) = check_ruleset(path).diagnostics
    assert d.message.count("(900000 characters)") == 2 and len(d.message) < 300
    frame = d.format(with_source=True).splitlines()
    assert frame[1:] == ["    " + "k" * 80 + "...", "    ^"]
    key = "a" * 150 + "B" + "c" * 150
    path.write_text(MINI + f"{key}: 1\n", encoding="utf-8")
    (d,) = check_ruleset(path).diagnostics
    assert d.message == f"unknown key '{'a' * 77}... (301 characters)' at the top level"
    assert d.format(with_source=True).splitlines()[1:] == ["    " + "a" * 80 + "...", "    ^"]


def test_a_code_frame_cut_short_keeps_its_caret_under_the_column():
    """A diagnostic at column 200 of a 400-character line: the frame shows 80 characters each side, cut with '...', the caret under the same character; a line of 200 is shown whole."""
    line = "x" * 199 + "Y" + "z" * 200
    d = Diagnostic("f.yaml", 3, 200, "here", source_line=line)
    _, shown, caret = d.format(with_source=True).splitlines()
    assert shown == "    ..." + "x" * 80 + "Y" + "z" * 79 + "..."
    assert shown[caret.index("^")] == "Y"
    d = Diagnostic("f.yaml", 3, 150, "here", source_line=line[:200])
    assert d.format(with_source=True).splitlines()[1] == "    " + line[:200]


def test_a_code_frame_shows_a_line_s_escape_sequences_as_escapes(tmp_path):
    """A rule file holding a terminal's escape sequences (a title set, a colour): the loader refuses the character, and --show-source's frame writes them as escapes, the caret under the character named, not sequences the terminal would run."""
    from ruledraft.language.loading import check_ruleset

    path = tmp_path / "esc.yaml"
    path.write_text(MINI + 'name: "\x1b]0;PWNED\x07\x1b[31mred"\n', encoding="utf-8")
    (d,) = check_ruleset(path).diagnostics
    _, shown, caret = d.format(with_source=True).splitlines()
    assert "\x1b" not in shown and "\x07" not in shown
    assert shown == '    name: "\\x1b]0;PWNED\\x07\\x1b[31mred"'
    assert shown[caret.index("^") :].startswith("\\x1b]0;")


def test_a_code_frame_cuts_a_wide_line_by_the_columns_it_takes():
    """A line of 300 wide characters (600 columns) is cut to 80 columns each side of the caret, 40 characters, and a line of 90 wide characters (180 columns) and a tab is shown whole, the caret under its character."""
    line = "寿" * 150 + "Y" + "寿" * 150
    d = Diagnostic("f.yaml", 3, 151, "here", source_line=line)
    _, shown, caret = d.format(with_source=True).splitlines()
    assert shown == "    ..." + "寿" * 40 + "Y" + "寿" * 39 + "..."
    assert caret == "    " + " " * (3 + 80) + "^"
    line = "\t" + "寿" * 90 + "Y"
    d = Diagnostic("f.yaml", 3, 92, "here", source_line=line)
    assert d.format(with_source=True).splitlines()[1:] == ["    " + line, "    \t" + " " * 180 + "^"]


def test_a_code_frame_counts_a_tab_as_a_tab_stop_and_never_opens_on_a_lone_mark():
    """150 tabs then the caret's character: cut to 10 tabs (80 columns at tab stops of 8), the caret line's tabs the same; 500 accented e's (e and a combining acute) then the caret's character: the cut opens on an e, never on its accent alone."""
    d = Diagnostic("f.yaml", 1, 151, "here", source_line="\t" * 150 + "Y")
    _, shown, caret = d.format(with_source=True).splitlines()
    assert shown == "    ..." + "\t" * 10 + "Y" and caret == "       " + "\t" * 10 + "^"
    d = Diagnostic("f.yaml", 1, 1001, "here", source_line="e\u0301" * 500 + "Y")
    _, shown, caret = d.format(with_source=True).splitlines()
    assert shown == "    ..." + "e\u0301" * 80 + "Y" and caret == "    " + " " * (3 + 80) + "^"
