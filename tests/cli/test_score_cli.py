"""``ruledraft score RULESET TABLE``: JSON and JSON Lines tables in, one JSON object per table out,
and clear one-line errors (never a traceback) for bad input."""

from __future__ import annotations

import json

import pytest
from paths import ROOT
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.language.bundled import bundled_ids

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
SECOND_EXPECTED = {
    "rounds": [[3, 3, 0], [0, 0, 0], [0, 0, 0]],
    "game_end": [-3, -3, 6],
    "totals": [0, 0, 6],
    "winners": [2],
}


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
    from ruledraft.language.bundled import bundled_path

    t = {"rounds": [[["soy_sauce", "tempura"], ["sashimi"]], [[], []], [[], []]]}
    by_id = run("score", "sushi-go-soy-sauce", write(tmp_path, "t.json", json.dumps(t)))
    by_path = run("score", str(bundled_path("sushi-go-soy-sauce")), str(tmp_path / "t.json"))
    assert by_id.exit_code == 0 and by_path.exit_code == 0, by_id.output + by_path.output
    assert json.loads(by_id.stdout)["totals"] == [4, 0]
    assert by_id.stdout == by_path.stdout


# --------------------------------------------------------------------------- bad tables


def bad_table(result):
    """The lines on standard error of a refused table: exit 1, no traceback, nothing on stdout."""
    assert result.exit_code == 1, result.output
    assert isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    assert result.stdout == ""
    return result.stderr.splitlines()


def test_unknown_card_names_its_path_and_suggests(tmp_path):
    """An unknown card id fails with the file, the JSON path of the card (round 2, seat 1), the bad id and a did-you-mean."""
    t = {"rounds": [[["tempura"], ["sashimi"]], [["sashimi"], ["tempra"]], [[], []]]}
    path = write(tmp_path, "table.json", json.dumps(t))
    assert bad_table(run("score", "sushi-go", path)) == [
        f"{path}:1: error: rounds[1][1][0]: unknown card 'tempra' (did you mean 'tempura'?)"
    ]


def test_unknown_card_in_json_lines_names_the_line():
    """In JSON Lines input the message also names the line of the bad table; one line out per table in, the bad one's saying where and why, then the count."""
    t = {"rounds": [[["pudding"], ["salmon_nigri"]], [[], []], [[], []]]}
    text = json.dumps(TABLE) + "\n" + json.dumps(t) + "\n" + json.dumps(TABLE) + "\n"
    result = run("score", "sushi-go", "-", input=text)
    assert result.exit_code == 1
    said = "<stdin>:2: error: rounds[0][1][0]: unknown card 'salmon_nigri' (did you mean 'salmon_nigiri'?)"
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        EXPECTED,
        {"where": "<stdin>:2", "errors": [said]},
        EXPECTED,
    ]
    assert result.stderr == f"{said}\n1 of 3 tables could not be scored\n"


def test_invalid_json_line_names_line_and_column():
    """A line that is not JSON (or not UTF-8) is named with its line (and column), the lines after it are still read, and the exit status is 2."""
    bad_card = json.dumps({"rounds": [[["pudding"], ["x"]], [[], []], [[], []]]})
    text = json.dumps(TABLE) + "\n" + '{"rounds": [[["tempura"], ]]}\n' + bad_card + "\n"
    data = text.encode() + b"\xff\xfe\n" + json.dumps(TABLE).encode() + b"\n"
    result = run("score", "sushi-go", "-", input=data)
    assert result.exit_code == 2
    assert "Traceback" not in result.output
    said = [
        "<stdin>:2:27: error: not valid JSON: Expecting value",
        "<stdin>:3: error: rounds[0][1][0]: unknown card 'x'",
        "<stdin>:4: error: not UTF-8 text (byte 1 of the line)",
    ]
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        EXPECTED,
        {"where": "<stdin>:2", "errors": [said[0]]},
        {"where": "<stdin>:3", "errors": [said[1]]},
        {"where": "<stdin>:4", "errors": [said[2]]},
        EXPECTED,
    ]
    assert result.stderr.splitlines() == [*said, "3 of 5 tables could not be scored"]


@pytest.mark.parametrize(
    "rounds, partial, problem",
    [
        ([[[], []]] * 4, False, "rounds: 4 rounds, but Sushi Go! has 3"),
        ([[[], []]] * 4, True, "rounds: 4 rounds, but Sushi Go! has 3"),
        ([[[], []]], False, "rounds: 1 round, but Sushi Go! has 3 (--partial scores the rounds played so far)"),
        ([[[], []]] * 2, False, "rounds: 2 rounds, but Sushi Go! has 3 (--partial scores the rounds played so far)"),
        ([], True, "rounds: expected a list of rounds with at least 1 item(s), got an empty list"),
    ],
)
def test_wrong_number_of_rounds_is_refused(tmp_path, rounds, partial, problem):
    """A table with more rounds than the game has, none, or fewer without --partial fails naming both numbers."""
    path = write(tmp_path, "t.json", json.dumps({"rounds": rounds}))
    args = ["score", "sushi-go", path] + (["--partial"] if partial else [])
    assert bad_table(run(*args)) == [f"{path}:1: error: {problem}"]


def test_partial_scores_the_rounds_played_so_far(tmp_path):
    """With --partial a table of the first rounds is scored, game-end scoring included."""
    t = {"rounds": TABLE["rounds"][:2]}
    result = run("score", "sushi-go", write(tmp_path, "t.json", json.dumps(t)), "--partial")
    assert result.exit_code == 0, result.output
    # puddings after two rounds: seat 1 has one, seat 0 none -> seat 1 +6 (no fine with 2 players)
    assert json.loads(result.stdout) == {
        "rounds": [[11, 9], [10, 9]],
        "game_end": [0, 6],
        "totals": [21, 24],
        "winners": [1],
    }


@pytest.mark.parametrize(
    "ruleset, rounds, problem",
    [
        ("sushi-go", [[["tempura"]], [[]], [[]]], "rounds[0]: 1 seat, but Sushi Go! is for 2-5 players"),
        ("sushi-go", [[[]] * 6] * 3, "rounds[0]: 6 seats, but Sushi Go! is for 2-5 players"),
        ("sushi-go", [[[], []], [[], [], []], [[], []]], "rounds[1]: 3 seats, but round 1 has 2"),
        (
            "sushi-go-two-player-dummy",
            [[[], []]] * 3,
            "rounds[0]: 2 seats, but Sushi Go! (two players with a dummy) is for 2 players plus 1 dummy seat(s)",
        ),
    ],
)
def test_wrong_number_of_players_is_refused(tmp_path, ruleset, rounds, problem):
    """A table whose number of seats the game does not allow (or that changes between rounds) fails clearly."""
    path = write(tmp_path, "t.json", json.dumps({"rounds": rounds}))
    assert bad_table(run("score", ruleset, path)) == [f"{path}:1: error: {problem}"]


def test_more_copies_than_the_deck_has_is_refused(tmp_path):
    """Playing more copies of a card than the deck holds (over all rounds and seats) fails with both numbers."""
    t = {"rounds": [[["chopsticks", "chopsticks"], ["chopsticks"]], [["chopsticks"], []], [["chopsticks"], []]]}
    path = write(tmp_path, "t.json", json.dumps(t))
    assert bad_table(run("score", "sushi-go", path)) == [
        f"{path}:1: error: rounds: 5 chopsticks played, but the deck has only 4"
    ]


def test_a_pretty_printed_tables_problems_name_the_lines_of_their_values(tmp_path):
    """In a JSON document over several lines each problem gives the line its path's value
    starts on (a card on line 4, a missing round at its list's line 2)."""
    text = '{\n "rounds": [\n  [["maki_3"],\n   ["makki"], [], []]\n ]\n}\n'
    path = write(tmp_path, "t.json", text)
    assert bad_table(run("score", "sushi-go", path)) == [
        f"{path}:2: error: rounds: 1 round, but Sushi Go! has 3 (--partial scores the rounds played so far)",
        f"{path}:4: error: rounds[0][1][0]: unknown card 'makki' (did you mean 'maki_3'?)",
    ]


def test_a_json_lines_file_of_one_line_gets_its_line_of_output(tmp_path):
    """A file named .jsonl with one bad table gets its {"where", "errors"} line on standard
    output, as each line of a longer one does; the same line named .json is one document."""
    line = json.dumps({"rounds": [[["tempura"], ["tempra"]]]}) + "\n"
    said = "error: rounds[0][1][0]: unknown card 'tempra' (did you mean 'tempura'?)"
    one = write(tmp_path, "one.jsonl", line)
    out = run("score", "sushi-go", one, "--partial")
    assert out.exit_code == 1
    assert [json.loads(x) for x in out.stdout.splitlines()] == [{"where": f"{one}:1", "errors": [f"{one}:1: {said}"]}]
    document = write(tmp_path, "one.json", line)
    assert bad_table(run("score", "sushi-go", document, "--partial")) == [f"{document}:1: {said}"]


def test_card_effects_raise_only_the_cards_they_can_make(tmp_path):
    """Where a takeout box turns cards face down, every other card is still bounded by
    the deck (four squid nigiri of three are refused) and face-down cards only by the
    whole deck; a special order (3 in the deck) may make three more of any card, no more."""
    squid = ["squid_nigiri"] * 4
    path = write(tmp_path, "t.json", json.dumps({"rounds": [[squid, ["takeout_face_down"] * 5, []]]}))
    assert bad_table(run("score", "sushi-go-party-master-menu", path, "--partial")) == [
        f"{path}:1: error: rounds: 4 squid_nigiri played in round 1, but the deck has only 3"
    ]
    path = write(tmp_path, "ok.json", json.dumps({"rounds": [[["squid_nigiri"], ["takeout_face_down"] * 5, []]]}))
    assert run("score", "sushi-go-party-master-menu", path, "--partial").exit_code == 0
    menu = "[maki, tempura, sashimi, dumpling, special_order, wasabi, pudding]"
    copies = write(
        tmp_path,
        "copies.yaml",
        f"format: 1\nextends: sushi-go-party\nid: copies\nname: Copies\nmenu: {menu}\n",
    )
    six = write(tmp_path, "six.json", json.dumps({"rounds": [[["squid_nigiri"] * 6, []]]}))
    assert run("score", copies, six, "--partial").exit_code == 0
    seven = write(tmp_path, "seven.json", json.dumps({"rounds": [[["squid_nigiri"] * 7, []]]}))
    assert bad_table(run("score", copies, seven, "--partial")) == [
        f"{seven}:1: error: rounds: 7 squid_nigiri played in round 1, but the deck has only 3"
        " (and 3 more through card effects)"
    ]


def test_a_card_turned_face_down_beside_a_wasabi_is_refused_for_the_log_line(tmp_path):
    """A table cannot say which card a takeout box turned: beside a face-up wasabi it may
    have been the nigiri that keeps it used (a later salmon then scores 2, not 6), so the
    table is refused for the game's log line; without a wasabi it is scored."""
    sampler = str(ROOT / "examples" / "sushi-go-party-sampler.yaml")
    table = [["wasabi", "takeout_face_down", "salmon_nigiri"], ["edamame"], []]
    path = write(tmp_path, "t.json", json.dumps({"rounds": [table]}))
    [line] = bad_table(run("score", sampler, path, "--partial"))
    assert line.startswith(
        f"{path}:1: error: rounds[0][0]: a takeout_face_down beside a card that rule 'wasabi' pairs others with: "
    )
    assert line.endswith("give the game's log line (as --log writes it) instead of a table")
    plain = write(tmp_path, "plain.json", json.dumps({"rounds": [[["takeout_face_down", "salmon_nigiri"], [], []]]}))
    assert run("score", sampler, plain, "--partial").exit_code == 0


@pytest.mark.parametrize(
    "text, problems",
    [
        (
            "[1, 2, 3]",
            ['expected a table (an object {"rounds": [[[cards of seat 0], [cards of seat 1], ...], ...]}), got a list'],
        ),
        ('{"rounds": 3}', ["rounds: expected a list of rounds, got a whole number"]),
        (
            '{"rounds": [["tempura"], ["sashimi"]]}',
            [
                "rounds[0][0]: expected a list of card ids, got a string",
                "rounds[1][0]: expected a list of card ids, got a string",
            ],
        ),
        ('{"rounds": [[["tempura", 7], []]]}', ["rounds[0][0][1]: expected a card id, got a whole number"]),
        (
            '{"rounds": [[["tempura", null], [true]]]}',
            ["rounds[0][0][1]: expected a card id, got null", "rounds[0][1][0]: expected a card id, got true"],
        ),
        (
            '{"rounds": [[["tempura", ' + "9" * 5000 + "], []]]}",
            ["rounds[0][0][1]: expected a card id, got a number of 5000 digits"],
        ),
        ('{"round": []}', ["missing key 'rounds'", "unknown key 'round' (did you mean 'rounds'?)"]),
    ],
)
def test_malformed_tables_are_refused(tmp_path, text, problems):
    """A table of the wrong shape fails (exit 1) with every problem at its JSON path, not a traceback."""
    path = write(tmp_path, "t.json", text)
    assert bad_table(run("score", "sushi-go", path)) == [f"{path}:1: error: {p}" for p in problems]


def test_every_problem_of_a_table_is_reported(tmp_path):
    """A table with a wrong number of rounds, a seat too many in one round and two unknown cards gets one line for each."""
    t = {"rounds": [[["tempra"], ["sashimi"]], [["sashimi"], [], ["wasabbi"]]]}
    path = write(tmp_path, "t.json", json.dumps(t))
    assert bad_table(run("score", "sushi-go", path)) == [
        f"{path}:1: error: rounds: 2 rounds, but Sushi Go! has 3 (--partial scores the rounds played so far)",
        f"{path}:1: error: rounds[1]: 3 seats, but round 1 has 2",
        f"{path}:1: error: rounds[0][0][0]: unknown card 'tempra' (did you mean 'tempura'?)",
        f"{path}:1: error: rounds[1][2][0]: unknown card 'wasabbi' (did you mean 'wasabi'?)",
    ]


def test_a_whole_document_over_the_line_limit_is_refused(tmp_path, monkeypatch):
    """A pretty-printed table longer in all than the line limit is refused before it is parsed."""
    import ruledraft.cli.score as score_cli

    monkeypatch.setattr(score_cli, "MAX_LINE_BYTES", 100)
    text = "{\n" + '  "rounds": [\n' + '    [["tempura"], ["sashimi"]],\n' * 5 + "  ]\n}\n"
    path = write(tmp_path, "pretty.json", text)
    result = run("score", "sushi-go", path)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr == f"error: {path}: longer than 100 bytes (the limit for one table)\n"


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
    assert set(bundled_ids()) >= {
        "sushi-go",
        "sushi-go-pass-both-ways",
        "sushi-go-soy-sauce",
        "sushi-go-two-player-dummy",
    }


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


def test_blank_lines_count_towards_the_limit_and_keep_line_numbers(tmp_path, monkeypatch):
    """Blank lines before a table count towards the size limit (a file of newlines is refused early), and an error after them names its true line."""
    import ruledraft.cli.score as score_cli

    text = "\n\n" + '{\n  "rounds": [\n    [["tempura"] ["sashimi"]]\n  ]\n}\n'
    path = write(tmp_path, "late.json", text)
    result = run("score", "sushi-go", path)
    assert result.exit_code == 2
    assert result.stderr == f"{path}:5:18: error: not valid JSON: Expecting ',' delimiter\n"
    monkeypatch.setattr(score_cli, "MAX_LINE_BYTES", 100)
    path = write(tmp_path, "blank.json", "\n" * 200)
    result = run("score", "sushi-go", path)
    assert result.exit_code == 2
    assert result.stderr == f"error: {path}: longer than 100 bytes (the limit for one table)\n"


def test_an_empty_table_file_is_refused(tmp_path):
    """A file with nothing but blank lines is refused with its name (exit 2)."""
    path = write(tmp_path, "empty.json", "\n  \n")
    result = run("score", "sushi-go", path)
    assert result.exit_code == 2
    assert result.stderr == f"error: {path}: no table in the file\n"


def test_rescore_scores_logged_games_by_rules_changed_since(tmp_path):
    """Games logged under tempura 5 then scored with tempura 8: refused with a note naming --rescore; with --rescore each is scored anew, tempura's points 8/5 of the logged ones."""
    rules = tmp_path / "eel.yaml"
    text = "format: 1\nextends: sushi-go\nid: eel\nname: Eel\nscoring:\n  - {id: tempura, kind: sets, cards: tempura, size: 2, points: 5}\n"
    rules.write_text(text, encoding="utf-8")
    log = tmp_path / "g.jsonl"
    made = run("simulate", str(rules), "-p", "3", "-g", "4", "--log", str(log), "-q")
    assert made.exit_code == 0, made.output
    logged = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    rules.write_text(text.replace("points: 5", "points: 8"), encoding="utf-8")
    refused = run("score", str(rules), str(log))
    assert refused.exit_code == 1
    assert "--rescore scores them by the rules as they are now" in refused.stderr
    scored = run("score", str(rules), str(log), "--rescore", "--rules")
    assert scored.exit_code == 0, scored.output
    sheets = [json.loads(line) for line in scored.stdout.splitlines()]
    assert len(sheets) == 4
    for game, sheet in zip(logged, sheets):
        assert [p * 8 // 5 for p in game["rules"]["tempura"]] == sheet["rules"]["tempura"]
        assert sheet["totals"] == [sum(s) for s in zip(*sheet["rounds"], sheet["game_end"])]


def test_a_table_no_game_can_leave_is_scored_with_a_warning():
    """14 cards for a seat in a 2-player round of 10: scored (a what-if), with a warning naming the seat and round; a reachable table gets none."""
    crowded = {"rounds": [[["tempura"] * 13 + ["sashimi"], []]]}
    result = run("score", "sushi-go", "-", "--partial", input=json.dumps(crowded))
    assert result.exit_code == 0
    assert json.loads(result.stdout)["totals"] == [30, 0]
    assert result.stderr == (
        "<stdin>: warning: rounds[0][0]: 14 cards, but a seat takes 10 a round with 2 players: no game leaves this table\n"
    )
    fine = run("score", "sushi-go", "-", "--partial", input=json.dumps({"rounds": [[["tempura"] * 10, []]]}))
    assert fine.exit_code == 0 and fine.stderr == ""


def test_a_bad_first_line_of_json_lines_is_one_bad_table():
    """JSON Lines whose first line is not JSON: that line is a bad table and the lines after it are scored; a pretty-printed document with a mistake is still one document."""
    text = "not json\n" + json.dumps(TABLE) + "\n"
    result = run("score", "sushi-go", "-", input=text)
    assert result.exit_code == 2
    assert [json.loads(line) for line in result.stdout.splitlines()] == [
        {"where": "<stdin>:1", "errors": ["<stdin>:1:1: error: not valid JSON: Expecting value"]},
        EXPECTED,
    ]
    pretty = json.dumps(TABLE, indent=2).replace('"rounds"', '"rounds" x', 1)
    broken = run("score", "sushi-go", "-", input=pretty)
    assert broken.exit_code == 2 and broken.stdout == ""
    assert broken.stderr.startswith("<stdin>:2:12: error: not valid JSON")


def test_json_lines_whose_first_two_lines_are_bad_are_still_json_lines():
    """Two bad lines then a table: each bad line is a bad table and the table is scored; a pretty-printed document with a mistake stays one document."""
    text = "oops\noops2\n" + json.dumps(TABLE) + "\n"
    result = run("score", "sushi-go", "-", input=text)
    assert result.exit_code == 2
    assert [json.loads(line).get("where") for line in result.stdout.splitlines()] == ["<stdin>:1", "<stdin>:2", None]


@pytest.mark.parametrize(
    "text",
    [
        "[\n" + json.dumps(TABLE) + ",\n" + json.dumps(TABLE) + "\n]\n",  # a table a line, inside a list
        json.dumps([TABLE, TABLE], indent=2),
        json.dumps([TABLE]),
    ],
)
def test_tables_written_as_a_list_are_one_document_told_to_write_json_lines(text):
    """A list of tables, however its lines fall, is one document, and not a table: one error saying to write JSON Lines (never its lines scored one by one as JSON Lines); the Python API's error gives no such advice."""
    result = run("score", "sushi-go", "-", input=text)
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr.splitlines() == [
        '<stdin>:1: error: expected a table (an object {"rounds": [[[cards of seat 0], [cards of seat 1], ...], ...]}),'
        " got a list (for several tables, write JSON Lines: one table per line)"
    ]
    from ruledraft.api import score_table
    from ruledraft.engine.table_scoring import TableError

    with pytest.raises(TableError) as caught:
        score_table("sushi-go", json.loads(text))
    assert str(caught.value).endswith("got a list")
