"""Semantic checks of rule files (what JSON Schema cannot see), through ``check_ruleset``.

The corpus ``tests/data/broken-semantic/*.yaml``: each file starts with comment lines

    # expect: [FILE:]LINE:COLUMN: KEY WORDS ... MORE KEY WORDS
    # xfail: REASON            (optional: a known bug, the expectation is what should happen)

and checking it must give exactly those diagnostics: one per ``expect`` line, at that
line and column (of FILE when given, a file next to it, else of the file itself), its
message containing each ``...``-separated fragment in order. Only the location and the
words a user needs are pinned, so the wording can still be polished.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from paths import DATA

from ruledraft.language.bundled import bundled_ids
from ruledraft.language.loading import check_ruleset

CORPUS = DATA / "broken-semantic"
EXPECT = re.compile(r"^# expect: (?:(?P<file>[\w./-]+\.ya?ml):)?(?P<line>\d+):(?P<column>\d+): (?P<words>.+?)\s*$")
XFAIL = re.compile(r"^# xfail: (?P<reason>.+?)\s*$")


def read_header(path: Path):
    """The expectations ``[(file name, line, column, [fragments])]`` and the xfail reason (or None) of a corpus file."""
    expected, reason = [], None
    for text in path.read_text(encoding="utf-8").splitlines():
        if not text.startswith("#"):
            break
        m = EXPECT.match(text)
        if m:
            fragments = [f.strip() for f in m["words"].split(" ... ")]
            expected.append((m["file"] or path.name, int(m["line"]), int(m["column"]), fragments))
            continue
        m = XFAIL.match(text)
        if m:
            reason = m["reason"]
    return expected, reason


def corpus_params():
    """One pytest param per corpus file; known bugs are strict xfails."""
    out = []
    for path in sorted(CORPUS.glob("*.yaml")):
        _, reason = read_header(path)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        out.append(pytest.param(path, id=path.stem, marks=marks))
    return out


def contains_in_order(message: str, fragments) -> bool:
    """Whether ``message`` contains every fragment, in this order."""
    pos = 0
    for fragment in fragments:
        found = message.find(fragment, pos)
        if found < 0:
            return False
        pos = found + len(fragment)
    return True


def test_corpus_files_all_declare_expectations():
    """Every corpus file states at least one expected diagnostic (a file without one would test nothing)."""
    files = sorted(CORPUS.glob("*.yaml"))
    assert len(files) >= 20
    for path in files:
        expected, _ = read_header(path)
        assert expected, f"{path.name} has no '# expect:' line"


@pytest.mark.parametrize("path", corpus_params())
def test_broken_semantic_corpus(path):
    """Each broken file gives exactly its expected diagnostics: located (file, line, column) and with the key words."""
    expected, _ = read_header(path)
    result = check_ruleset(path)
    assert result.ruleset is None and not result.ok
    got = sorted(result.diagnostics, key=lambda d: (Path(d.file).name, d.line, d.column))
    want = sorted(expected, key=lambda e: (e[0], e[1], e[2]))
    shown = "\n".join(d.format() for d in got)
    assert len(got) == len(want), f"expected {len(want)} diagnostics, got:\n{shown}"
    for d, (name, line, column, fragments) in zip(got, want):
        assert (Path(d.file).resolve(), d.line, d.column) == ((CORPUS / name).resolve(), line, column), shown
        assert contains_in_order(d.message, fragments), f"{fragments} not in {d.message!r}"
        assert d.severity == "error"


def test_diagnostics_carry_the_source_line():
    """A semantic diagnostic keeps the offending source line, so a caret can be drawn under the column."""
    path = CORPUS / "unknown-card-in-selector.yaml"
    d = min(check_ruleset(path).diagnostics)
    assert d.source_line is not None and "aple" in d.source_line
    assert d.source_line[d.column - 1 :].startswith("aple")
    assert d.format(with_source=True).splitlines()[-1].strip() == "^"


def test_expression_error_column_points_at_the_token_in_the_file(tmp_path):
    """An expression syntax error points at the offending token's line and column in the file, however the text is quoted."""
    head = (
        "format: 1\nid: mini\nname: Mini\nplayers: {min: 2, max: 4}\n"
        "cards:\n  - {id: apple, count: 10}\n  - {id: pear, count: 10}\n"
        "deal:\n  hand_size: {2: 5, 3-4: 4}\nrounds: {count: 1, pass: left}\n"
    )
    cases = {
        # expression text in the file          -> (line offset from the 'expr' line, column of the second '*')
        "expr: count(apple) * * 2": (0, 26),
        'expr: "count(apple) * * 2"': (0, 27),
        "expr: 'count(apple) * * 2'": (0, 27),
        'expr: "count(\\x61pple) * * 2"': (0, 30),  # an escape is 4 characters in the file, 1 in the value
        "expr: >\n      count(apple)\n      + * 2": (2, 9),
    }
    for text, (offset, column) in cases.items():
        path = tmp_path / "e.yaml"
        body = head + "scoring:\n  - id: apples\n    kind: expression\n    " + text + "\n"
        path.write_text(body, encoding="utf-8")
        expr_line = body.splitlines().index("    " + text.splitlines()[0]) + 1
        diagnostics = check_ruleset(path).diagnostics
        assert len(diagnostics) == 1, [d.format() for d in diagnostics]
        d = diagnostics[0]
        assert (d.line, d.column) == (expr_line + offset, column), (text, d.format())
        assert "unexpected" in d.message


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_bundled_rulesets_have_no_diagnostics(ruleset_id):
    """The bundled rulesets check clean (so every diagnostic of the corpus comes from its own mistake)."""
    result = check_ruleset(ruleset_id)
    assert result.diagnostics == []
    assert result.ok


def test_a_card_name_given_twice_is_a_warning_at_the_second(tmp_path):
    """Two cards named 'Apple' (written, or made from an id; one in a parent): valid, with a warning at the second pointing at the first; none in one group."""
    path = tmp_path / "names.yaml"
    path.write_text(
        "format: 1\nid: names\nname: Names\nplayers: {min: 2, max: 2}\n"
        "cards:\n  - {id: apple, name: Apple, count: 30}\n  - {id: crab, name: Apple, count: 30}\n"
        "deal: {hand_size: {'2': 5}}\nrounds: {count: 1}\n"
        "scoring:\n  - {id: p, kind: per_card, cards: apple, value: 1}\n",
        encoding="utf-8",
    )
    result = check_ruleset(path)
    assert result.ok
    assert [(d.severity, d.line, d.column, d.message) for d in result.diagnostics] == [
        (
            "warning",
            7,
            22,
            "two cards are called 'Apple' (the first at line 6): `play` and the reports tell cards apart by their names",
        )
    ]
    made = tmp_path / "made.yaml"  # a name made from an id counts too
    made.write_text(
        path.read_text(encoding="utf-8").replace("{id: apple, name: Apple,", "{id: apple,"), encoding="utf-8"
    )
    assert [(d.line, d.column) for d in check_ruleset(made).diagnostics] == [(7, 22)]
    child = tmp_path / "child.yaml"  # the first in the parent: named with its file
    child.write_text(
        "format: 1\nextends: sushi-go\nid: kid\nname: Kid\ncards:\n  - {id: tempura2, name: Tempura, count: 3}\n",
        encoding="utf-8",
    )
    (warning,) = [d for d in check_ruleset(child).diagnostics if d.message.startswith("two cards")]
    assert (warning.line, warning.column) == (6, 26)
    assert warning.message.startswith("two cards are called 'Tempura' (the first at ")
    assert "sushi-go.yaml:" in warning.message
    grouped = tmp_path / "grouped.yaml"  # one group's cards may share a name (takeout boxes of each order)
    grouped.write_text(
        path.read_text(encoding="utf-8").replace("name: Apple,", "name: Apple, group: fruit,"), encoding="utf-8"
    )
    assert check_ruleset(grouped).diagnostics == []


def test_a_name_with_a_line_break_is_refused_and_shown_on_one_line(tmp_path):
    """A ruleset name holding a line break (quoted "a\\nb"), which would print as lines of their own, is a located error quoting it escaped, on one line."""
    import subprocess
    import sys

    path = tmp_path / "nl.yaml"
    path.write_text(
        'format: 1\nid: nl\nname: "Two\\nLines"\nplayers: {min: 2, max: 2}\n'
        "cards:\n  - {id: apple, count: 30}\ndeal: {hand_size: {'2': 5}}\nrounds: {count: 1}\n"
        "scoring:\n  - {id: p, kind: per_card, cards: apple, value: 1}\n",
        encoding="utf-8",
    )
    proc = subprocess.run(
        [sys.executable, "-m", "ruledraft", "validate", str(path)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 1 and proc.stdout.splitlines() == [
        f"{path}:3:7: error: 'name' must be one line of text, not blank nor only invisible characters (a line break in a name would show as lines "
        "of their own), not 'Two\\nLines'"
    ]


def test_a_range_key_past_the_game_and_places_past_its_seats_are_warnings(tmp_path):
    """A hand-size range of 0-17 in a 2-4 player game, and 6 majority places at 4 seats: valid, each a warning saying what is never used."""
    path = tmp_path / "past.yaml"
    path.write_text(
        "format: 1\nid: past\nname: Past\nplayers: {min: 2, max: 4}\n"
        "cards:\n  - {id: a, count: 40}\n  - {id: b, count: 40}\n"
        "deal: {hand_size: {0-17: 5}}\nrounds: {count: 2, pass: [left, right]}\n"
        "scoring:\n"
        "  - {id: m, kind: majority, quantity: {count: b}, most: [6, 5, 4, 3, 2, 1], minimum: 1}\n"
        "  - {id: n, kind: majority, quantity: {count: a}, least: {default: [-6], players: {'2': [-6, -3, -1]}}}\n",
        encoding="utf-8",
    )
    result = check_ruleset(path)
    assert result.ok
    assert [(d.severity, d.line, d.column, d.message) for d in result.diagnostics] == [
        (
            "warning",
            8,
            20,
            "the hand size for 0-17 players reaches past what any game has (1-16 players)"
            " and the game is for 2-4 players: write '2-4'",
        ),
        (
            "warning",
            11,
            70,
            "6 places awarded, but a game scores at most 4 seats: the awards from the 5th place on are never given",
        ),
        (
            "warning",
            12,
            98,
            "3 places awarded, but a game scores at most 2 seats: the awards from the 3rd place on are never given",
        ),
    ]


@pytest.mark.parametrize(
    ("rule", "cards", "warning"),
    [
        ("{id: r, kind: sets, cards: a, size: 6, points: 5}", "", "a seat takes 5 cards a round"),
        (
            "{id: r, kind: sets, cards: a, size: 11, points: 5, when: game_end}",
            ", keep: game",
            "a seat takes 5 cards a round over 2 rounds",
        ),
        ("{id: r, kind: sets, cards: a, size: 6, points: 5}", ", keep: game", "a seat takes 5 cards a round"),
        ("{id: r, kind: sets, cards: b, size: 4, points: 5}", "", "the deck has 3 such cards"),
    ],
)
def test_a_set_no_table_can_hold_is_a_warning(tmp_path, rule, cards, warning):
    """A set of 6 from 5-card hands (kept cards too: a round's rule sees the round's), of 11 at game end over 2 rounds of 5, of 4 from 3 copies: valid, warned of at its size."""
    path = tmp_path / "sets.yaml"
    path.write_text(
        "format: 1\nid: sets\nname: Sets\nplayers: {min: 2, max: 4}\n"
        f"cards:\n  - {{id: a, count: 40{cards}}}\n  - {{id: b, count: 3}}\n  - {{id: c, count: 40}}\n"
        "deal: {hand_size: {2-3: 5, '4': 4}}\nrounds: {count: 2, pass: [left, right]}\n"
        f"scoring:\n  - {rule}\n",
        encoding="utf-8",
    )
    result = check_ruleset(path)
    assert result.ok
    size = rule.split("size: ")[1].split(",")[0]
    assert [(d.severity, d.line, d.message) for d in result.diagnostics] == [
        ("warning", 12, f"a set of {size} can never be made: {warning}, so this rule never scores")
    ]


def test_a_set_a_table_can_hold_or_effects_can_reach_is_not_warned_of(tmp_path):
    """A set of 5 from 5-card hands, and a set of 6 in a ruleset whose effects may put more cards on a table, give no warning."""
    body = (
        "format: 1\nid: sets\nname: Sets\nplayers: {min: 2, max: 2}\n"
        "cards:\n  - {id: a, count: 40}\n  - {id: c, count: 40}\n"
        "deal: {hand_size: {'2': 5}}\nrounds: {count: 1}\n"
        "scoring:\n  - {id: r, kind: sets, cards: a, size: SIZE, points: 5}\n"
    )
    path = tmp_path / "fits.yaml"
    path.write_text(body.replace("SIZE", "5"), encoding="utf-8")
    assert check_ruleset(path).diagnostics == []
    effects = tmp_path / "effects.yaml"
    effects.write_text(
        body.replace("SIZE", "6").replace(
            "{id: c, count: 40}", "{id: c, count: 40, effect: {kind: draw_and_choose, draw: 4, order: 1}}"
        ),
        encoding="utf-8",
    )
    result = check_ruleset(effects)
    assert result.ok and result.diagnostics == []


def test_fitting_keys_and_places_give_no_warning(tmp_path):
    """Ranges that any game could have (2-3 in a 3-4 player game) and as many places as seats check clean."""
    path = tmp_path / "fit.yaml"
    path.write_text(
        "format: 1\nid: fit\nname: Fit\nplayers: {min: 3, max: 4}\n"
        "cards:\n  - {id: a, count: 40}\n  - {id: b, count: 40}\n"
        "deal: {hand_size: {2-3: 5, '4': 4}}\nrounds: {count: 2, pass: [left, right]}\n"
        "scoring:\n  - {id: m, kind: majority, quantity: {count: b}, most: [4, 3, 2, 1], minimum: 1}\n"
        "  - {id: n, kind: majority, quantity: {count: a}, most: {default: [3, 2, 1], players: {'4': [4, 3, 2, 1]}}, minimum: 1}\n",
        encoding="utf-8",
    )
    assert check_ruleset(path).diagnostics == []


def test_the_caret_stands_under_the_column_after_wide_characters(tmp_path):
    """An unknown key after '寿司🍣' (three characters, six columns wide) has its caret six blanks in, under the key; a tab stays a tab."""
    from ruledraft.errors import Diagnostic

    line = '  - {id: a, name: "寿司🍣", grup: x}'
    d = Diagnostic("f.yaml", 6, line.index("grup") + 1, "unknown key 'grup'", source_line=line)
    caret = d.format(with_source=True).splitlines()[2]
    assert caret.index("^") - 4 == line.index("grup") + 3  # three wide characters: three more columns
    assert caret.rstrip("^").strip() == ""
    accented = "e\u0301 x"  # e and a combining accent: one column
    assert Diagnostic("f", 1, 4, "m", source_line=accented).format(with_source=True).endswith("\n      ^")
    joined = "\U0001f469\u200d\U0001f373 x"  # a woman cook: two wide characters and a joiner, four columns
    assert Diagnostic("f", 1, 5, "m", source_line=joined).format(with_source=True).endswith("\n    " + " " * 5 + "^")
    tabbed = Diagnostic("f", 1, 3, "m", source_line="\tab").format(with_source=True)
    assert tabbed.endswith("\n    \t ^")


def test_a_name_that_is_a_word_of_the_expression_language_is_a_warning(tmp_path):
    """A card id 'if', a tag 'and', an attribute 'not' and a group 'true' are valid, each warned of once where written: no expression can name them."""
    path = tmp_path / "words.yaml"
    path.write_text(
        "format: 1\nid: words\nname: Words\nplayers: {min: 2, max: 2}\ncards:\n"
        "  - {id: if, count: 30, tags: [and], attributes: {not: 1}}\n"
        "  - {id: pear, count: 30, group: 'true', tags: [and]}\n"
        "deal: {hand_size: {'2': 5}}\nrounds: {count: 1}\n"
        "scoring:\n  - {id: p, kind: per_card, cards: if, value: 1}\n",
        encoding="utf-8",
    )
    result = check_ruleset(path)
    assert result.ok
    tail = "is a word of the expression language: no expression can name it (rename it to use it in one)"
    assert [(d.severity, d.line, d.column, d.message) for d in result.diagnostics] == [
        ("warning", 6, 10, f"the card id 'if' {tail}"),
        ("warning", 6, 32, f"the tag 'and' {tail}"),
        ("warning", 6, 51, f"the attribute 'not' {tail}"),
        ("warning", 7, 34, f"the group 'true' {tail}"),
    ]


def test_a_card_called_none_without_a_group_is_warned_of_its_lost_colour(tmp_path):
    """A card 'none' with no group is in the no-colour group ('none'): warned of at its id; with a group of its own, not."""
    path = tmp_path / "none.yaml"
    text = (
        "format: 1\nid: nocolour\nname: No colour\nplayers: {min: 2, max: 2}\n"
        "cards:\n  - {id: none, count: 30}\n  - {id: pear, count: 30}\n"
        "deal: {hand_size: {'2': 5}}\nrounds: {count: 1}\n"
        "scoring:\n  - {id: p, kind: per_card, cards: pear, value: 1}\n"
    )
    path.write_text(text, encoding="utf-8")
    result = check_ruleset(path)
    assert result.ok and result.ruleset.catalogue.cards[0].group == "none"
    assert [(d.line, d.column, d.message.split(":")[0]) for d in result.diagnostics] == [
        (6, 10, "a card without a group is its own colour, but 'none' is the group of cards with no colour")
    ]
    path.write_text(text.replace("{id: none, count: 30}", "{id: none, count: 30, group: nothing}"), encoding="utf-8")
    assert check_ruleset(path).diagnostics == []


def test_the_reserved_words_are_the_grammars_quoted_words():
    """RESERVED_WORDS lists exactly the words the expression grammar spells out."""
    import re

    from ruledraft.language import expression

    grammar = (Path(expression.__file__).with_name("expression.lark")).read_text(encoding="utf-8")
    quoted = set(re.findall(r'"([a-z]+)"', grammar))
    assert quoted == expression.RESERVED_WORDS


def test_a_removal_a_parent_still_uses_shows_its_own_line_under_the_message():
    """validate --show-source of the variant that removes the durian shows the variant's remove line with a caret under the card."""
    from paths import ROOT

    result = check_ruleset(ROOT / "examples" / "tutorial" / "broken-remove.yaml")
    shown = result.diagnostics[0].format(with_source=True).splitlines()
    assert shown[1:] == ["      cards: [durian]", "              ^"]


def test_an_awards_range_past_any_game_counts_a_dummy_seat_only_in_a_dummy_game(tmp_path):
    """Majority awards keyed 2-17 in a 2-4 player game without a dummy: warned of against 1-16 seats."""
    path = tmp_path / "awards.yaml"
    path.write_text(
        "format: 1\nid: awards\nname: Awards\nplayers: {min: 2, max: 4}\n"
        "cards:\n  - {id: a, count: 40}\n  - {id: b, count: 40}\n"
        "deal: {hand_size: {2-4: 5}}\nrounds: {count: 1}\n"
        "scoring:\n  - {id: m, kind: majority, quantity: {count: b}, most: {players: {2-17: [6, 3]}}, minimum: 1}\n",
        encoding="utf-8",
    )
    result = check_ruleset(path)
    assert result.ok
    assert [d.message for d in result.diagnostics] == [
        "awards for 2-17 players reach past what any game has (1-16 players) and the game is for 2-4 players:"
        " write '2-4'"
    ]


@pytest.mark.parametrize(
    ("players", "passing", "where", "why"),
    [
        ("{min: 2, max: 3}", "pass: none", (9, 26), "no hand is ever passed on"),
        ("{min: 1, max: 1}", "pass: left", (4, 24), "the game is for one player"),
    ],
)
def test_a_game_where_no_pick_is_a_choice_is_warned_of(tmp_path, players, passing, where, why):
    """No hand ever passed on, or one player: every seat ends each round with its whole hand, so validate warns; a chopsticks action (the order then matters) spares it."""
    body = (
        f"format: 1\nid: still\nname: Still\nplayers: {players}\n"
        "cards:\n  - {id: a, count: 40}\n  - {id: b, count: 40}\n"
        f"deal: {{hand_size: {{1-3: 5}}}}\nrounds: {{count: 2, {passing}}}\n"
        "scoring:\n  - {id: p, kind: per_card, cards: a, value: 1}\n"
    )
    path = tmp_path / "still.yaml"
    path.write_text(body, encoding="utf-8")
    result = check_ruleset(path)
    assert result.ok
    (d,) = [d for d in result.diagnostics if "no pick is a choice" in d.message]
    assert (d.line, d.column) == where and f"no pick is a choice: {why}, so every seat ends each round" in d.message
    path.write_text(
        body.replace("{id: b, count: 40}", "{id: b, count: 40, effect: {kind: extra_pick, extra: 1}}"), encoding="utf-8"
    )
    assert not [d for d in check_ruleset(path).diagnostics if "no pick is a choice" in d.message]


def test_no_pick_warning_spares_rules_that_read_the_order_of_play(tmp_path):
    """pass: none with a wasabi-like modifier (its worth hangs on what is played after it): no 'no pick is a choice' warning."""
    path = tmp_path / "ordered.yaml"
    path.write_text(
        "format: 1\nid: ordered\nname: Ordered\nplayers: {min: 2, max: 3}\n"
        "cards:\n  - {id: fish, count: 40, attributes: {value: 2}}\n  - {id: sauce, count: 40}\n"
        "deal: {hand_size: {2-3: 5}}\nrounds: {count: 2, pass: none}\n"
        "scoring:\n  - {id: fish, kind: per_card, cards: fish, value: {attribute: value}}\n"
        "  - {id: sauce, kind: modifier, card: sauce, targets: fish, value: {attribute: value}, factor: 3}\n",
        encoding="utf-8",
    )
    result = check_ruleset(path)
    assert result.ok and not [d for d in result.diagnostics if "no pick is a choice" in d.message]


@pytest.mark.parametrize(
    ("keep", "needed", "hint"),
    [("", 10, False), (", keep: game", 14, True)],
)
def test_a_deck_too_small_to_reshuffle_names_kept_cards_only_where_there_are_some(tmp_path, keep, needed, hint):
    """Reshuffled every round, a deck too small for one round's deal is told the number it needs; that kept cards leave the deck is said only where cards are kept."""
    path = tmp_path / "r.yaml"
    path.write_text(
        "format: 1\nid: r\nname: R\nplayers: {min: 2, max: 2}\n"
        f"cards:\n  - {{id: a, count: 5}}\n  - {{id: b, count: 4{keep}}}\n"
        'deal: {hand_size: {"2": 5}, between_rounds: reshuffle}\nrounds: {count: 2}\n'
        "scoring:\n  - {id: pa, kind: per_card, cards: a, value: 1}\n",
        encoding="utf-8",
    )
    (d,) = check_ruleset(path).diagnostics
    assert (d.line, d.column) == (8, 25)
    assert (
        f"to 2 seats for every round{' (cards kept to game end leave the deck)' if hint else ''} ({needed} needed)"
        in d.message
    )


_MAKI_HEAD = (
    "format: 1\nid: rolls\nname: Rolls\nplayers: {min: 2, max: 4}\n"
    "cards:\n  - {id: maki, count: 40}\n  - {id: rice, count: 40}\n"
    "deal: {hand_size: {2-4: 5}}\nrounds: {count: 1}\n"
    "scoring:\n  - id: maki\n    kind: majority\n    quantity: {count: maki}\n"
)


def _majority_said(tmp_path, rest: str) -> list[tuple]:
    """(severity, line, column, message) of each diagnostic of a valid rule file whose maki majority ends with ``rest``."""
    head = _MAKI_HEAD
    if "# quantity: " in rest:  # another quantity for the rule, in place of the count
        quantity = rest.split("# quantity: ")[1].splitlines()[0]
        head = head.replace("quantity: {count: maki}", f"quantity: {quantity}")
    path = tmp_path / "rolls.yaml"
    path.write_text(head + rest, encoding="utf-8")
    result = check_ruleset(path)
    assert result.ok
    return [(d.severity, d.line, d.column, d.message) for d in result.diagnostics]


@pytest.mark.parametrize(
    ("most", "place"),
    [
        ("most: [6, 3]", "2nd place (3 points)"),
        ("most: {default: [6], players: {'4': [6, 3, 1]}}", "2nd place (3 points)"),
        ("most: [6, 0, 1]", "3rd place (1 point)"),
    ],
)
def test_a_second_place_for_the_most_without_a_minimum_is_a_warning(tmp_path, most, place):
    """most: [6, 3] with neither minimum nor eligible: valid, warned at 'most' that a player with 0 can take the place (maki's rulebook leaves them out)."""
    assert _majority_said(tmp_path, f"    {most}\n") == [
        (
            "warning",
            14,
            5,
            f"the {place} is awarded with no 'minimum': a player with 0 takes part and can take it"
            " (write 'minimum: 1' to leave such players out, as maki does, or 'minimum: 0' to keep them in)",
        )
    ]


@pytest.mark.parametrize(
    "rest",
    [
        "    most: [6, 3]\n    minimum: 1\n",
        "    most: [6, 3]\n    minimum: 0\n",
        "    most: [6, 3]\n    eligible: 'count(maki) >= 1'\n",
        "    most: [6]\n",
        "    most: [6, 0]\n",
        "    least: [-6, -3]\n",
        "    most: [6, 3]\n    # quantity: 'count(maki) - 2'\n",
    ],
)
def test_a_majority_that_says_who_takes_part_or_awards_one_place_is_not_warned(tmp_path, rest):
    """A minimum (1, or 0 to keep players with none), an eligible condition, a lone first place, a second place worth 0, places for the fewest, or an expression (which may go below 0, where minimum: 0 would change scores): no warning."""
    assert _majority_said(tmp_path, rest) == []


@pytest.mark.parametrize(
    "rest",
    [
        "    most: []\n",
        "    most: []\n    least: []\n",
        "    most: {default: [], players: {'2': [0]}}\n",
        "    most: [0, 0]\n    minimum: 1\n",
    ],
)
def test_a_majority_no_place_of_which_scores_is_a_warning(tmp_path, rest):
    """Empty or zero awards for the most and the fewest at every player count: valid, warned at the rule's first award key that it never scores."""
    assert _majority_said(tmp_path, rest) == [
        (
            "warning",
            14,
            5,
            "no place is worth any points, for the most or the fewest, at any number of players: this rule never scores",
        )
    ]


@pytest.mark.parametrize(
    "rest",
    [
        "    most: [{tune: [0, 6], start: 0}, 0]\n    minimum: 1\n",
        "    most: []\n    least: [{tune: [-6, 0], start: 0}]\n",
        "    most: {default: [], players: {'2': [{tune: [0, 3], start: 0}]}}\n",
    ],
)
def test_a_majority_whose_zero_award_is_a_tune_mark_is_not_warned(tmp_path, rest):
    """An award that is a tune mark starting at 0 (the search may give it points): no 'never scores' warning, where the same 0 written plainly has one (above)."""
    assert _majority_said(tmp_path, rest) == []


def test_a_tune_mark_in_one_majority_leaves_anothers_warning(tmp_path):
    """A mark in maki's awards spares maki, not a second majority (maki2, whose name maki's starts) that never scores."""
    rest = "    most: [{tune: [0, 6], start: 0}]\n  - {id: maki2, kind: majority, quantity: {count: rice}, most: [0]}\n"
    said = _majority_said(tmp_path, rest)
    assert [(line, message.endswith("this rule never scores")) for _, line, _, message in said] == [(15, True)]


def test_a_variant_tuning_an_award_of_its_parents_majority_is_not_warned(tmp_path):
    """A variant whose majority replaces its parent's by id, an award a tune mark starting at 0: no warning; written plainly as 0, warned."""
    (tmp_path / "rolls.yaml").write_text(_MAKI_HEAD + "    most: [6, 3]\n    minimum: 1\n", encoding="utf-8")
    variant = tmp_path / "variant.yaml"
    body = (
        "format: 1\nextends: rolls.yaml\nid: variant\nname: Variant\nscoring:\n"
        "  - {{id: rice, kind: per_card, cards: rice, value: 1}}\n"
        "  - {{id: maki, kind: majority, quantity: {{count: maki}}, minimum: 1, most: [{}, 0]}}\n"
    )
    variant.write_text(body.format("{tune: [0, 6], start: 0}"), encoding="utf-8")
    result = check_ruleset(variant)
    assert result.ok and result.diagnostics == []
    variant.write_text(body.format("0"), encoding="utf-8")
    result = check_ruleset(variant)
    assert result.ok and [d.message.endswith("this rule never scores") for d in result.diagnostics] == [True]


def test_a_majority_scoring_at_one_player_count_only_is_not_warned(tmp_path):
    """most: {players: {'2': [3]}}: it scores in 2-player games, so no warning."""
    assert _majority_said(tmp_path, "    most: {players: {'2': [3]}}\n") == []


def _named_cards(tmp_path, cards: str):
    """check_ruleset of a 2-player rule file whose cards are ``cards`` (YAML lines), the first with id apple."""
    path = tmp_path / "names.yaml"
    path.write_text(
        "format: 1\nid: names\nname: Names\nplayers: {min: 2, max: 2}\n"
        f"cards:\n{cards}"
        "deal: {hand_size: {'2': 5}}\nrounds: {count: 1}\n"
        "scoring:\n  - {id: p, kind: per_card, cards: apple, value: 1}\n",
        encoding="utf-8",
    )
    return check_ruleset(path)


@pytest.mark.parametrize("second", ["apple", "APPLE", "Ap\\u200bple", "Apple\\u2060"])
def test_two_names_the_same_but_for_case_or_invisible_characters_are_a_warning(tmp_path, second):
    """'Apple' and 'apple' (play matches typed names case aside), or a zero-width character inside: the same warning, naming both."""
    result = _named_cards(
        tmp_path, f'  - {{id: apple, name: Apple, count: 30}}\n  - {{id: crab, name: "{second}", count: 30}}\n'
    )
    assert result.ok
    (d,) = result.diagnostics
    written = second.encode().decode("unicode_escape")
    assert (d.severity, d.line, d.column) == ("warning", 7, 22)
    assert d.message == (
        f"two cards are called 'Apple' and {written!r}, which read the same (case, width and invisible characters aside)"
        " (the first at line 6): `play` and the reports tell cards apart by their names"
    )


@pytest.mark.parametrize("name", ["\\u200b", "\\u3164\\u3164", "\\u2800", " \\ufeff ", "\\ufe0f"])
def test_a_name_of_only_invisible_characters_is_refused_as_blank(tmp_path, name):
    """A card named by a zero-width space, Hangul fillers, a blank braille cell or a byte-order mark only: refused as a blank name would be."""
    result = _named_cards(tmp_path, f'  - {{id: apple, name: "{name}", count: 30}}\n')
    assert not result.ok
    (d,) = result.diagnostics
    assert (d.line, d.column) == (6, 23)
    assert d.message.startswith("'name' must be one line of text, not blank nor only invisible characters")
