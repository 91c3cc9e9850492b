"""``ruledraft score RULESET TABLE``: JSON and JSON Lines tables in, one JSON object per table out,
and clear one-line errors (never a traceback) for bad input."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ruledraft.bundled import bundled_ids
from ruledraft.cli.app import app

runner = CliRunner()

TABLE = {
    "rounds": [
        [["tempura", "tempura", "maki_3"], ["wasabi", "squid_nigiri", "pudding"]],
        [["sashimi", "sashimi", "sashimi"], ["dumpling", "dumpling", "maki_1"]],
        [["pudding", "pudding"], ["maki_2"]],
    ]
}
# round 1: seat 0 tempura 5 + maki 6 = 11; seat 1 wasabi+squid 9
# round 2: seat 0 sashimi 10; seat 1 dumplings 3 + maki 6 = 9
# round 3: seat 1 maki 6
# game end (2 players, no -6): puddings 2 against 1 -> seat 0 +6
EXPECTED = {"rounds": [[11, 9], [10, 9], [0, 6]], "game_end": [6, 0], "totals": [27, 24], "winners": [0]}

SECOND = {"rounds": [[["maki_1"], ["maki_1"], []], [[], [], ["pudding"]], [[], [], []]]}
SECOND_EXPECTED = {"rounds": [[3, 3, 0], [0, 0, 0], [0, 0, 0]], "game_end": [-3, -3, 6], "totals": [0, 0, 6], "winners": [2]}


def run(*args, input=None):
    """Invoke the ``ruledraft`` app; the result (stdout and stderr kept apart)."""
    return runner.invoke(app, list(args), input=input)


def assert_clean_failure(result, *words):
    """A non-zero exit with a message on standard error containing ``words``, no traceback, nothing on stdout."""
    assert result.exit_code != 0, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.stdout == ""
    message = result.stderr
    for word in words:
        assert word in message, message
    return message


def write(tmp_path, name, text):
    """Write ``text`` to ``tmp_path/name``; its path as a string."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


# --------------------------------------------------------------------------- good input


def test_score_json_file_prints_the_result_object(tmp_path):
    """A JSON table file gives exactly one line: the JSON object of rounds, game end, totals and winners."""
    result = run("score", "sushi-go", write(tmp_path, "table.json", json.dumps(TABLE, indent=2)))
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert len(lines) == 1
    assert json.loads(lines[0]) == EXPECTED
    assert list(json.loads(lines[0])) == ["rounds", "game_end", "totals", "winners"]
    assert result.stderr == ""


def test_score_rules_option_adds_the_per_rule_points(tmp_path):
    """``--rules`` adds each scoring rule's points per seat, summed over the game."""
    result = run("score", "sushi-go", write(tmp_path, "table.json", json.dumps(TABLE)), "--rules")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert {k: out[k] for k in EXPECTED} == EXPECTED
    assert out["rules"] == {
        "tempura": [5, 0],
        "sashimi": [10, 0],
        "dumpling": [0, 3],
        "nigiri": [0, 3],
        "wasabi": [0, 6],
        "maki": [6, 12],
        "pudding": [6, 0],
    }


def test_score_json_lines_gives_one_object_per_line(tmp_path):
    """JSON Lines input (one table per line, blank lines skipped) gives one result line per table, in order."""
    text = json.dumps(TABLE) + "\n\n" + json.dumps(SECOND) + "\n"
    result = run("score", "sushi-go", write(tmp_path, "tables.jsonl", text))
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in result.stdout.splitlines()] == [EXPECTED, SECOND_EXPECTED]


def test_score_dash_reads_standard_input():
    """``-`` reads the table (JSON or JSON Lines) from standard input."""
    result = run("score", "sushi-go", "-", input=json.dumps(TABLE))
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in result.stdout.splitlines()] == [EXPECTED]
    result = run("score", "sushi-go", "-", input=json.dumps(SECOND) + "\n" + json.dumps(TABLE) + "\n")
    assert result.exit_code == 0, result.output
    assert [json.loads(line) for line in result.stdout.splitlines()] == [SECOND_EXPECTED, EXPECTED]


def test_score_accepts_a_variant_and_a_rule_file(tmp_path):
    """The ruleset argument may be any bundled id or the path of a rule file."""
    from ruledraft.bundled import bundled_path

    t = {"rounds": [[["soy_sauce", "tempura"], ["sashimi"]], [[], []], [[], []]]}
    by_id = run("score", "sushi-go-soy-sauce", write(tmp_path, "t.json", json.dumps(t)))
    by_path = run("score", str(bundled_path("sushi-go-soy-sauce")), str(tmp_path / "t.json"))
    assert by_id.exit_code == 0 and by_path.exit_code == 0, by_id.output + by_path.output
    assert json.loads(by_id.stdout)["totals"] == [4, 0]
    assert by_id.stdout == by_path.stdout


# --------------------------------------------------------------------------- bad tables


def test_unknown_card_names_round_seat_and_suggests(tmp_path):
    """An unknown card id fails with the round, the seat, the bad id and a did-you-mean."""
    t = {"rounds": [[["tempura"], ["sashimi"]], [["sashimi"], ["tempra"]], [[], []]]}
    path = write(tmp_path, "table.json", json.dumps(t))
    message = assert_clean_failure(run("score", "sushi-go", path), "round 2", "seat 1", "'tempra'", "did you mean 'tempura'")
    assert path in message


def test_unknown_card_in_json_lines_names_the_line():
    """In JSON Lines input the message also names the line of the bad table."""
    text = json.dumps(TABLE) + "\n" + json.dumps({"rounds": [[["pudding"], ["salmon_nigri"]]]}) + "\n"
    result = run("score", "sushi-go", "-", input=text)
    message = result.stderr
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    for word in ("<stdin>:2", "round 1", "seat 1", "'salmon_nigri'", "did you mean 'salmon_nigiri'"):
        assert word in message, message


def test_invalid_json_line_names_line_and_column():
    """A line that is not JSON fails with its line and column."""
    text = json.dumps(TABLE) + "\n" + '{"rounds": [[["tempura"], ]]}\n'
    result = run("score", "sushi-go", "-", input=text)
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert "<stdin>:2:" in result.stderr and "not valid JSON" in result.stderr


@pytest.mark.parametrize(
    "rounds, words",
    [
        ([[[], []]] * 4, ["4 rounds", "3"]),  # too many rounds
        ([], ["0 rounds", "3"]),  # no round at all
    ],
)
def test_wrong_number_of_rounds_is_refused(tmp_path, rounds, words):
    """A table with more rounds than the game has (or none) fails with both numbers."""
    path = write(tmp_path, "t.json", json.dumps({"rounds": rounds}))
    assert_clean_failure(run("score", "sushi-go", path), *words)


@pytest.mark.parametrize(
    "ruleset, rounds, words",
    [
        ("sushi-go", [[["tempura"]], [[]], [[]]], ["1 seat", "2-5 players"]),  # too few players
        ("sushi-go", [[[]] * 6] * 3, ["6 seat", "2-5 players"]),  # too many players
        ("sushi-go", [[[], []], [[], [], []], [[], []]], ["round 2", "3 seats", "2"]),  # seats change between rounds
        ("sushi-go-two-player-dummy", [[[], []]] * 3, ["2 seats", "dummy"]),  # the dummy seat is missing
    ],
)
def test_wrong_number_of_players_is_refused(tmp_path, ruleset, rounds, words):
    """A table whose number of seats the game does not allow (or that changes between rounds) fails clearly."""
    path = write(tmp_path, "t.json", json.dumps({"rounds": rounds}))
    assert_clean_failure(run("score", ruleset, path), *words)


def test_more_copies_than_the_deck_has_is_refused(tmp_path):
    """Playing more copies of a card than the deck holds (over all rounds and seats) fails with both numbers."""
    t = {"rounds": [[["chopsticks", "chopsticks"], ["chopsticks"]], [["chopsticks"], []], [["chopsticks"], []]]}
    path = write(tmp_path, "t.json", json.dumps(t))
    assert_clean_failure(run("score", "sushi-go", path), "5", "chopsticks", "4")


@pytest.mark.parametrize(
    "text, words",
    [
        ('[1, 2, 3]', ['"rounds"']),
        ('{"rounds": 3}', ['"rounds"']),
        ('{"rounds": [["tempura"], ["sashimi"]]}', ["round 1", "list"]),
        ('{"rounds": [[["tempura", 7], []]]}', ["round 1", "seat 0", "unknown card 7"]),
    ],
)
def test_malformed_tables_are_refused(tmp_path, text, words):
    """A table of the wrong shape fails with a message about its shape, not a traceback."""
    path = write(tmp_path, "t.json", text)
    assert_clean_failure(run("score", "sushi-go", path), *words)


def test_missing_table_file_is_refused(tmp_path):
    """A table file that does not exist fails with its name."""
    missing = str(tmp_path / "nope.json")
    assert_clean_failure(run("score", "sushi-go", missing), missing, "cannot read")


# --------------------------------------------------------------------------- bad ruleset


def test_unknown_ruleset_lists_the_bundled_ids(tmp_path):
    """An unknown ruleset id fails with a did-you-mean and the list of bundled ruleset ids."""
    path = write(tmp_path, "t.json", json.dumps(TABLE))
    message = assert_clean_failure(run("score", "sushi-goo", path), "sushi-goo", "did you mean 'sushi-go'")
    for rid in bundled_ids():
        assert rid in message
    assert set(bundled_ids()) >= {"sushi-go", "sushi-go-pass-both-ways", "sushi-go-soy-sauce", "sushi-go-two-player-dummy"}


def test_missing_rule_file_is_refused(tmp_path):
    """A rule file path that does not exist fails with its name."""
    path = write(tmp_path, "t.json", json.dumps(TABLE))
    missing = str(tmp_path / "mine.yaml")
    assert_clean_failure(run("score", missing, path), missing, "no such file")


# --------------------------------------------------------------------------- reading table files


def test_broken_pretty_printed_json_points_at_the_broken_line(tmp_path):
    """A pretty-printed (multi-line) table with a JSON error reports the line of the error, not line 1."""
    text = '{\n  "rounds": [\n    [["tempura"], ["sashimi"]],\n    [["tempura"] ["sashimi"]]\n  ]\n}\n'
    path = write(tmp_path, "pretty.json", text)
    message = assert_clean_failure(run("score", "sushi-go", path), "not valid JSON")
    assert f"{path}:4:" in message
    assert f"{path}:1:" not in message


def test_table_file_that_is_not_utf8_is_a_clean_error(tmp_path):
    """A table file with bytes that are not UTF-8 fails with an input error naming the file, not an internal error."""
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"rounds": [[["tempura\xff"], []]]}')
    assert_clean_failure(run("score", "sushi-go", str(path)), str(path))


def test_json_nested_too_deeply_is_a_clean_error(tmp_path):
    """A table nested a hundred thousand levels deep is refused with a message, not a crash."""
    path = write(tmp_path, "deep.json", "[" * 100_000 + "\n")
    assert_clean_failure(run("score", "sushi-go", path), "nested too deeply")
