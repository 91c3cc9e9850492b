"""The language front end refuses what it cannot show or bound: unprintable text,
values and divisions that would fail late, hostile ids, rule files that would make
bots crawl, player-count keys no game uses; and messages list what is allowed."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.errors import RulesetError, ScoringError
from ruledraft.language.build import MAX_DECISION_STEPS, MAX_GAME_STEPS, RulesetBuilder
from ruledraft.language.bundled import bundled_ids, bundled_path
from ruledraft.language.expression import compile_expression
from ruledraft.language.inheritance import resolve_document
from ruledraft.language.loading import check_ruleset, load_ruleset
from ruledraft.language.schema_check import check_schema
from ruledraft.language.suggest import MAX_SUGGESTION_INPUT, did_you_mean
from ruledraft.language.yaml_loader import load_document
from ruledraft.tableau import Tableau

runner = CliRunner()

HEAD = """\
format: 1
id: mini
name: Mini
players: {min: 2, max: 4}
cards:
  - {id: apple, count: 40}
  - {id: pear, count: 40}
deal:
  hand_size: {2-4: 5}
rounds: {count: 1}
scoring:
"""


def write(tmp_path: Path, text: str, name: str = "r.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def found(path: Path) -> list:
    """``(line, column, severity, message)`` of every diagnostic checking ``path`` gives."""
    return [(d.line, d.column, d.severity, d.message) for d in check_ruleset(path).diagnostics]


def loader_errors(text: str) -> list:
    with pytest.raises(RulesetError) as info:
        load_document(text, "t.yaml")
    return [(d.line, d.column, d.message) for d in info.value.diagnostics]


# -- text that reaches the terminal ---------------------------------------------------------

UNSHOWABLE = "cannot be shown and is not allowed in a rule file"


def test_surrogate_escape_is_refused_where_it_is_written():
    """A lone surrogate written as an escape ("\\ud800") is a located load error, not a crash later."""
    assert loader_errors('name: "ab\\ud800"\n') == [
        (1, 10, f"character U+D800 (a lone surrogate, half of a character) {UNSHOWABLE}")
    ]


def test_terminal_escape_sequences_are_refused():
    """ESC (the set-window-title sequence) and BEL in a name are load errors at the first control character."""
    assert loader_errors('name: "x\\e]0;owned\\a"\nid: "\\x07"\n') == [
        (1, 9, f"character U+001B (a control character) {UNSHOWABLE}"),
        (2, 6, f"character U+0007 (a control character) {UNSHOWABLE}"),
    ]


def test_bidi_controls_are_refused_in_values_keys_and_comments():
    """A bidi override is refused wherever it is written: in a value, a key or a comment."""
    text = "name: a\u202eb\n\u2066key: 1\n# note \u202e\n"
    assert loader_errors(text) == [
        (1, 8, f"character U+202E (a bidirectional-text control) {UNSHOWABLE}"),
        (2, 1, f"character U+2066 (a bidirectional-text control) {UNSHOWABLE}"),
        (3, 8, f"character U+202E (a bidirectional-text control) {UNSHOWABLE}"),
    ]


def test_tabs_and_line_breaks_in_text_are_still_allowed():
    """Tab and line feed are ordinary text, in quoted and block values alike."""
    doc = load_document('a: "x\\ty"\nb: |\n  one\n  two\n', "t.yaml")
    assert doc.data == {"a": "x\ty", "b": "one\ntwo\n"}


def test_markup_in_names_is_shown_as_written(tmp_path):
    """Rich markup in a ruleset's and a card's name validates, and `show` prints it exactly as written."""
    text = (
        HEAD.replace("name: Mini", "name: 'Oops [/] [bold'").replace(
            "{id: apple, count: 40}", "{id: apple, count: 40, name: '[red]Apple[/]'}"
        )
        + "  - {id: apples, kind: per_card, cards: apple, value: 1}\n"
    )
    path = write(tmp_path, text)
    assert found(path) == []
    result = runner.invoke(app, ["show", str(path)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[0] == "Oops [/] [bold (mini)"
    assert "    40 x [red]Apple[/]  colour: apple" in result.stdout.splitlines()


# -- numbers ----------------------------------------------------------------------------------


def test_constant_division_by_zero_is_a_located_validation_error(tmp_path):
    """`1 / 0` and `x % (2 - 2)` are refused by validate, at the divisor's line and column."""
    text = (
        HEAD
        + '  - {id: a, kind: expression, expr: "1 / 0"}\n  - {id: b, kind: expression, expr: "count(pear) % (2 - 2)"}\n'
    )
    path = write(tmp_path, text)
    assert found(path) == [
        (12, 42, "error", "division by zero: '0' is always 0"),
        (13, 53, "error", "remainder by zero: '2 - 2' is always 0"),
    ]
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert f"{path}:12:42: error: division by zero: '0' is always 0" in result.output


def test_values_that_could_overflow_statistics_are_refused(tmp_path):
    """A product of constant factors that can pass 10**15 is refused at validation, at the part that overflows."""
    text = HEAD + '  - {id: big, kind: expression, expr: "1 + count(apple) * 999999999 * 999999999"}\n'
    assert found(write(tmp_path, text)) == [
        (
            12,
            44,
            "error",
            "'count(apple) * 999999999 * 999999999' can reach 39,999,999,920,000,000,040; values must stay between "
            "-1,000,000,000,000,000 and 1,000,000,000,000,000",
        ),
    ]


def test_a_part_ending_in_parentheses_is_quoted_with_them(tmp_path):
    """The part past the limit ends in a parenthesised operand: the quote closes its
    parentheses ('... * (count(apple)))'), where it stopped before the last two."""
    text = HEAD + '  - {id: big, kind: expression, expr: "999999999 * (999999999 * (count(apple)))"}\n'
    [(_, _, _, message)] = found(write(tmp_path, text))
    assert message.startswith("'999999999 * (999999999 * (count(apple)))' can reach ")


def test_a_long_expression_past_the_limit_is_cut_short_in_its_message(tmp_path):
    """800 characters of 9*9*... are shown by their start and length, and a reach of 380 digits by its power of ten."""
    text = HEAD + '  - {id: big, kind: expression, expr: "' + "*".join(["9"] * 400) + '"}\n'
    ((line, column, severity, message),) = found(write(tmp_path, text))
    assert (line, severity) == (12, "error")
    assert message == (
        "'9*9*9*9*9*9*9*9*9*9*9*9*9*9*9*9*9*9*9*9*...(799 characters)' can reach at least 10^381; values must stay "
        "between -1,000,000,000,000,000 and 1,000,000,000,000,000"
    )


def test_the_value_bound_follows_the_catalogue(tmp_path):
    """The same factor is fine where the counts it multiplies are small enough: the bound comes from the deck."""
    text = HEAD + '  - {id: big, kind: expression, expr: "count(apple) * 999999999 * 9999"}\n'
    assert found(write(tmp_path, text)) == []


DIV = (
    HEAD
    + """\
  - id: ratio
    kind: expression
    expr: 10 / count(pear)
"""
)


def test_run_time_division_by_zero_names_the_rule_and_the_divisor(tmp_path):
    """Dividing by a count that is 0 raises a ScoringError with the rule id and the divisor's file:line:column."""
    path = write(tmp_path, DIV)
    rs = load_ruleset(path)
    apples_only = Tableau.from_cards(rs.catalogue.size, [[0], [0, 0]], round=1)
    (rule,) = rs.round_rules
    with pytest.raises(ScoringError) as info:
        rule.score(apples_only)
    err = info.value
    assert (err.rule, err.file, err.line, err.column) == ("ratio", str(path), 14, 16)
    assert str(err) == (
        f"{path}:14:16: error: scoring rule 'ratio': division by zero in expression "
        "'10 / count(pear)' ('count(pear)' is 0)"
    )


def test_scoring_error_survives_pickling():
    """A ScoringError crosses a process boundary whole (rule, file, line, column and message)."""
    err = ScoringError("division by zero in expression 'x'", "ratio", "r.yaml", 3, 7)
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is ScoringError
    assert (back.message, back.rule, back.file, back.line, back.column) == (err.message, "ratio", "r.yaml", 3, 7)
    assert str(back) == "r.yaml:3:7: error: scoring rule 'ratio': division by zero in expression 'x'"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_simulate_reports_a_run_time_division_by_zero_in_one_line(tmp_path, jobs):
    """`simulate` (serial or on worker processes) ends with exit 1 and the located one-line message, no traceback."""
    path = write(tmp_path, DIV)
    proc = subprocess.run(
        [sys.executable, "-m", "ruledraft", "simulate", str(path), "--games", "20", "--jobs", jobs],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    assert [line for line in proc.stderr.splitlines() if line.strip()] == [
        f"{path}:14:16: warning: division by 'count(pear)', which can be 0: a game where it is stops "
        "with an error (write max(1, count(pear)) for at least 1)",
        f"{path}:14:16: error: scoring rule 'ratio': division by zero in expression "
        "'10 / count(pear)' ('count(pear)' is 0)",
    ]


def test_only_a_divisor_that_can_be_zero_makes_an_expression_fallible():
    """may_fail (which makes scoring name the rule in the error) is set only by a divisor that can be 0."""
    rs = load_ruleset("sushi-go")
    assert compile_expression("count() / 2 + count() % 3", rs.catalogue).may_fail is False
    assert compile_expression("2 / count()", rs.catalogue).may_fail is True
    assert compile_expression("2 % (count() - 1)", rs.catalogue).may_fail is True
    assert compile_expression("2 % (count() + 1)", rs.catalogue).may_fail is False
    assert compile_expression("count() / max(1, count(tempura)) + count() % players", rs.catalogue).may_fail is False


def test_validate_warns_of_a_divisor_that_can_be_zero_and_of_no_other(tmp_path):
    """`validate` passes the file (exit 0) with a located warning on the divisor that can be 0, none on one that cannot."""
    path = write(tmp_path, DIV.replace("10 / count(pear)", "10 / count(pear) + count(apple) / (round + count(pear))"))
    proc = subprocess.run(
        [sys.executable, "-m", "ruledraft", "validate", str(path)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == (
        f"{path}:14:16: warning: division by 'count(pear)', which can be 0: a game where it is stops "
        "with an error (write max(1, count(pear)) for at least 1)"
    )
    assert len(proc.stdout.splitlines()) == 2 and ": ok: " in proc.stdout.splitlines()[1]


# -- memory -----------------------------------------------------------------------------------


def test_a_long_name_gets_no_suggestion():
    """A name over MAX_SUGGESTION_INPUT characters gets no did-you-mean; one at the limit still does."""
    assert did_you_mean("tempuraa", ["tempura"]) == " (did you mean 'tempura'?)"
    assert did_you_mean("t" * MAX_SUGGESTION_INPUT, ["t" * MAX_SUGGESTION_INPUT + "x"]) != ""
    assert did_you_mean("t" * (MAX_SUGGESTION_INPUT + 1), ["t" * MAX_SUGGESTION_INPUT]) == ""


HOSTILE = """
import resource
from ruledraft.errors import InputError
from ruledraft.language.loading import load_ruleset
from ruledraft.engine.table_scoring import parse_table

rs = load_ruleset("sushi-go")
hostile = "x" * (64 << 20)
try:
    parse_table(rs, {"rounds": [[[hostile], []]]})
except InputError as e:
    print(str(e))
# this process's own peak: ru_maxrss would also count the parent's pages that the
# fork before exec carried over (the test process's size, not this script's)
try:
    with open("/proc/self/status") as status:
        print(next(int(line.split()[1]) for line in status if line.startswith("VmHWM:")))
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def test_a_64_mib_unknown_id_is_a_clear_error_in_bounded_memory():
    """A 64 MiB unknown card id ends in a short error and the process peaks under 300 MB (it used to be killed)."""
    proc = subprocess.run([sys.executable, "-c", HOSTILE], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    message, peak_kib = proc.stdout.splitlines()
    assert message == "table: error: rounds[0][0][0]: unknown card '" + "x" * 37 + "...'"
    assert int(peak_kib) < 300 * 1024


# -- work per decision --------------------------------------------------------------------------


def heavy_ruleset() -> str:
    """A legal 500-kind, 100-card-hand, 200-rule file (greedy took over a minute per game on it)."""
    lines = ["format: 1", "id: heavy", "name: Heavy", "players: {min: 2, max: 2}", "cards:"]
    lines += [f"  - {{id: c{i:03d}, count: 20, tags: [x]}}" for i in range(500)]
    lines += ["deal:", "  hand_size: {2: 100}", "rounds: {count: 1}", "scoring:"]
    lines += [f"  - {{id: r{i:03d}, kind: per_card, cards: {{tag: x}}, value: 1}}" for i in range(200)]
    return "\n".join(lines) + "\n"


def test_a_ruleset_that_would_make_bots_crawl_is_refused(tmp_path):
    """The estimate of a bot's work per hand (hand x candidates x scoring) over the limit is a located error."""
    assert found(write(tmp_path, heavy_ruleset())) == [
        (
            510,
            5,
            "error",
            "choosing cards would cost a bot about 1,007,020,000 steps per hand (100 cards in a hand x 100 candidate "
            "actions x 100,702 steps to score each); the limit is 20,000,000: use fewer card kinds, smaller hands, "
            "or fewer or narrower rules; the costliest rule is 'r000'",
        ),
    ]


def long_game_ruleset(players: int, rounds: int) -> str:
    """500 kinds, hands of 100 and one rule: within the work of a hand, ``players`` and ``rounds`` as given."""
    lines = ["format: 1", "id: long", "name: Long", f"players: {{min: 2, max: {players}}}", "cards:"]
    lines += [f"  - {{id: c{i:03d}, count: 20, tags: [x]}}" for i in range(500)]
    lines += ["deal:", f"  hand_size: {{2-{players}: 100}}", "  between_rounds: reshuffle"]
    lines += [f"rounds: {{count: {rounds}}}", "scoring:", "  - {id: all, kind: per_card, cards: {tag: x}, value: 1}"]
    return "\n".join(lines) + "\n"


def test_a_ruleset_whose_games_would_take_minutes_is_refused(tmp_path):
    """Each hand within the limit, but 16 seats x 20 rounds of such hands (minutes of a greedy bot's work a game) is a located error."""
    assert found(write(tmp_path, long_game_ruleset(16, 20))) == [
        (
            511,
            5,
            "error",
            "with 16 players one game would cost the bots about 3,254,400,000 steps (10,170,000 steps to choose a hand x 16 seats "
            "x 20 rounds); the limit is 100,000,000: use fewer players or rounds, fewer card kinds, smaller hands, "
            "or fewer or narrower rules; the costliest rule is 'all'",
        ),
    ]


def test_the_same_hands_over_a_short_game_are_accepted(tmp_path):
    """Two players and four rounds of those hands stay within the game's limit: the bound is on the whole game."""
    assert found(write(tmp_path, long_game_ruleset(2, 4))) == []


def test_the_game_work_is_bounded_for_each_player_count(tmp_path):
    """Hands of 100 at 2 players and of 10 at 3-16 are each within the limit: the largest hand is not taken with the most seats."""
    text = long_game_ruleset(16, 3).replace("hand_size: {2-16: 100}", "hand_size: {2: 100, 3-16: 10}")
    assert found(write(tmp_path, text)) == []
    too_many_rounds = text.replace("rounds: {count: 3}", "rounds: {count: 20}")
    ((_, _, severity, message),) = found(write(tmp_path, too_many_rounds))
    assert severity == "error" and message.startswith("with 2 players one game would cost the bots about ")


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_bundled_rulesets_sit_far_below_the_game_work_limit(ruleset_id):
    """Every bundled ruleset's whole game needs under 3% of MAX_GAME_STEPS."""
    checker = RulesetBuilder(resolve_document(bundled_path(ruleset_id), check=check_schema))
    checker.run()
    players = checker.data["players"]
    rounds = checker.data["rounds"]["count"]
    works = [
        checker.decision_work(n)[0] * (n + checker.dummy_seats()) * rounds
        for n in range(players["min"], players["max"] + 1)
    ]
    assert 0 < max(works) < MAX_GAME_STEPS * 3 / 100


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_bundled_rulesets_sit_far_below_the_work_limit(ruleset_id):
    """Every bundled ruleset needs under 1% of MAX_DECISION_STEPS."""
    checker = RulesetBuilder(resolve_document(bundled_path(ruleset_id), check=check_schema))
    checker.run()
    total = checker.decision_work()[0]
    assert 0 < total < MAX_DECISION_STEPS / 100


# -- player-count keys ------------------------------------------------------------------------


def test_player_count_keys_no_game_uses_are_errors_where_written(tmp_path):
    """hand_size {"9": 4} and most.players {"9-10": ...} in a 2-6 game are errors at their keys."""
    text = HEAD.replace("max: 4", "max: 6").replace("{2-4: 5}", '{2-6: 5, "9": 4}') + textwrap.dedent("""\
          - id: most
            kind: majority
            quantity: {count: pear}
            most: {default: [6, 3], players: {"9-10": [9]}}
            minimum: 1
        """)
    assert found(write(tmp_path, text)) == [
        (9, 23, "error", "the hand size for 9 players can never be used: the game is for 2-6 players"),
        (15, 37, "error", "awards for 9-10 players can never be used: the game is for 2-6 players"),
    ]


def test_majority_keys_count_dummy_seats(tmp_path):
    """With 2 players and a dummy, majority key "3" is used and "2" never is."""
    text = HEAD.replace("max: 4", "max: 2").replace("{2-4: 5}", "{2: 5}") + textwrap.dedent("""\
          - id: most
            kind: majority
            quantity: {count: pear}
            most: {default: [6, 3], players: {"3": [6], "2": [9]}}
            minimum: 1
        turn: {procedure: dummy, dummy: {seats: 1}}
        """)
    assert found(write(tmp_path, text)) == [
        (
            15,
            49,
            "error",
            "awards for 2 seats can never be used: the game is scored with 3 seats (2 players and 1 dummy seat)",
        ),
    ]


def test_unused_inherited_keys_are_warnings_and_validate_still_passes(tmp_path):
    """A key no game uses, inherited through extends from a parent that has the same problem, is a warning: exit 0."""
    parent = HEAD.replace("{2-4: 5}", '{2-4: 5, "9": 4}') + "  - {id: apples, kind: per_card, cards: apple, value: 1}\n"
    write(tmp_path, parent, "parent.yaml")
    child = write(
        tmp_path, "format: 1\nextends: parent.yaml\nid: kid\nname: Kid\nplayers: {min: 2, max: 3}\n", "kid.yaml"
    )
    message = "the hand size for 9 players can never be used: the game is for 2-3 players (inherited through 'extends')"
    result = check_ruleset(child)
    assert result.ok
    assert [(Path(d.file).name, d.line, d.column, d.severity, d.message) for d in result.diagnostics] == [
        ("parent.yaml", 9, 23, "warning", message),
    ]
    cli = runner.invoke(app, ["validate", str(child)])
    assert cli.exit_code == 0, cli.output
    assert f"{tmp_path / 'parent.yaml'}:9:23: warning: {message}" in cli.output


def test_a_warning_on_a_valid_file_reaches_json_and_shows_its_source(tmp_path):
    """validate --format json lists a valid file's warning (valid: true, severity warning, exit 0); --show-source prints the warned line with a caret under the column."""
    parent_text = (
        HEAD.replace("{2-4: 5}", '{2-4: 5, "9": 4}') + "  - {id: apples, kind: per_card, cards: apple, value: 1}\n"
    )
    parent = write(tmp_path, parent_text, "parent.yaml")
    child = write(
        tmp_path, "format: 1\nextends: parent.yaml\nid: kid\nname: Kid\nplayers: {min: 2, max: 3}\n", "kid.yaml"
    )
    message = "the hand size for 9 players can never be used: the game is for 2-3 players (inherited through 'extends')"
    cli = runner.invoke(app, ["validate", "--format", "json", str(child)])
    assert cli.exit_code == 0, cli.output
    [report] = json.loads(cli.stdout)
    assert (report["file"], report["valid"]) == (str(child), True)
    assert report["diagnostics"] == [
        {"file": str(parent), "line": 9, "column": 23, "severity": "warning", "message": message}
    ]
    cli = runner.invoke(app, ["validate", "--show-source", str(child)])
    assert cli.exit_code == 0, cli.output
    assert cli.stdout.splitlines()[:3] == [
        f"{parent}:9:23: warning: {message}",
        "    " + parent_text.splitlines()[8],
        "    " + " " * 22 + "^",
    ]


def test_narrowing_the_parent_range_is_silent(tmp_path):
    """A child that narrows its parent's player range inherits hand sizes it no longer uses without a word."""
    child = write(tmp_path, "format: 1\nextends: sushi-go\nid: kid\nname: Kid\nplayers: {min: 2, max: 3}\n")
    assert found(child) == []


def test_the_two_player_dummy_ruleset_validates_clean():
    """The bundled dummy variant (3 scoring seats, parent's keys for 2-5) has no diagnostic at all."""
    assert check_ruleset("sushi-go-two-player-dummy").diagnostics == []


# -- messages that list what is allowed ---------------------------------------------------------


def test_messages_list_what_is_allowed(tmp_path):
    """'pass', a player-count key in 'most' and an unknown selector key each say what may be written instead."""
    text = HEAD.replace("rounds: {count: 1}", "rounds: {count: 1, pass: sideways}") + textwrap.dedent("""\
          - {id: most, kind: majority, quantity: {count: pear}, most: {"2-5": [6, 3]}}
          - {id: double, kind: modifier, card: apple, targets: {same: pear}, factor: 2, value: 1}
        """)
    assert found(write(tmp_path, text)) == [
        (10, 26, "error", "'pass' must be one of left, right, none, {turns: ...}, or a list of them, not 'sideways'"),
        (
            12,
            62,
            "error",
            "unknown key '2-5' in 'most'; awards that depend on the number of players go under "
            "'players': write {default: [...], players: {'2-5': [...]}}",
        ),
        (13, 55, "error", "unknown key 'same' in 'targets'; the keys allowed here are cards, group and tag"),
    ]


def test_the_guides_limits_table_gives_the_limits_the_compiler_enforces():
    """The guide's table of limits states the deck, expression-work and bot-work bounds with the numbers the compiler checks."""
    from paths import EXAMPLES

    from ruledraft.language.build import MAX_DECK, MAX_SCORING_STEPS

    guide = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    table = guide[guide.index("### Limits") :].split("\n---\n", 1)[0]
    rows = {line.split("|")[1].strip(): line.split("|")[2] for line in table.splitlines() if line.startswith("| ")}
    assert f"at most {MAX_DECK:,} cards" in rows["the deck"]
    assert f"at most {MAX_SCORING_STEPS:,} steps" in rows["expression work"]
    assert f"at most {MAX_DECISION_STEPS:,} steps" in rows["bot work"]
    assert f"at most {MAX_GAME_STEPS:,} steps" in rows["a game's bot work"]


@pytest.mark.parametrize("digits", [60, 4_001, 4_400])
def test_a_number_thousands_of_digits_long_is_said_by_its_length_not_echoed(tmp_path, digits):
    """A card count of 60, 4,001 or 4,400 digits (past Python's 4,300 it cannot even be read as a number): one
    short message at its place, naming how many digits it has; never the digits themselves, nor "cannot read"."""
    path = tmp_path / "big.yaml"
    path.write_text(
        "format: 1\nextends: sushi-go\nid: t\nname: T\ncards:\n  - {id: tempura, count: 1" + "0" * (digits - 1) + "}\n",
        encoding="utf-8",
    )
    (d,) = check_ruleset(path).diagnostics
    assert (d.line, d.column) == (6, 26) and "0" * 8 not in d.message and len(d.message) < 100
    assert f"a whole number of {digits:,} digits" in d.message
