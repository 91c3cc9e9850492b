"""Game logs in (``ruledraft replay``) and table files in (``ruledraft score``): every record
is checked against ``schemas/game-log.schema.json`` and its ruleset before it is replayed,
every problem named by file, line and JSON path, bounded line length and memory, no traceback."""

from __future__ import annotations

import copy
import io
import json
import subprocess
import sys

import pytest
from strategies import BUNDLED_RULESETS, bundled_game, bundled_ruleset
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.errors import IllegalMoveError, InputError
from ruledraft.language.json_check import MAX_PROBLEMS
from ruledraft.play.game_log import (
    MAX_LINE_BYTES,
    MAX_SEED,
    read_lines,
    record_game,
    record_problems,
    replay_record,
)
from ruledraft.play.runner import play_game

runner = CliRunner()

HUGE = "1" * 5000  # more digits than Python converts to an int


def make_record(ruleset_id="sushi-go", players=3, seed=7):
    """The record of a game played by bots with a small seed (so it fits every JSON reader)."""
    game = bundled_game(ruleset_id, players)
    bots = ["greedy"] + ["random"] * (players - 1)
    return record_game(play_game(game, seed, bots), bots)


@pytest.fixture(scope="module")
def record():
    """A clean 3-player sushi-go record."""
    return make_record()


def write_log(tmp_path, lines, name="games.jsonl"):
    """Write the records (dicts, or raw text lines) as a JSON Lines file; its path as a string."""
    path = tmp_path / name
    text = "".join((line if isinstance(line, str) else json.dumps(line)) + "\n" for line in lines)
    path.write_text(text, encoding="utf-8")
    return str(path)


def replay(path):
    """Run ``ruledraft replay PATH``; the result, after checking that it ended without a traceback."""
    result = runner.invoke(app, ["replay", path])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


def changed(record, change):
    """A deep copy of ``record`` with ``change(copy)`` applied."""
    new = copy.deepcopy(record)
    change(new)
    return new


def set_at(path, value):
    """A change that sets the value at ``path`` (a list of keys and indices)."""

    def change(rec):
        target = rec
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value

    return change


# ---------------------------------------------------------------- clean logs


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS)
def test_records_of_every_bundled_ruleset_check_and_replay_clean(ruleset_id, tmp_path):
    """Records written by record_game (the dummy variant included) pass every check and replay clean, through the API and the command."""
    rs = bundled_ruleset(ruleset_id)
    players = 2 if rs.dummy else 4
    records = [make_record(ruleset_id, players, seed) for seed in (0, 1, MAX_SEED)]
    for rec in records:
        assert record_problems(rec, rs) == []
        assert replay_record(rs, rec) == []
    result = replay(write_log(tmp_path, records))
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert result.stdout == "3 games replayed, 3 clean, 0 with problems\n"


# ---------------------------------------------------------------- malformed and forged records

BAD_RECORDS = [
    # (change, the one problem it must produce)
    (
        set_at(["rounds", 1, "turns", 0], "pick"),
        "rounds[1].turns[0]: expected a turn (an object with picks), got a string",
    ),
    (set_at(["rounds", 1, "turns", 0], None), "rounds[1].turns[0]: expected a turn (an object with picks), got null"),
    (
        set_at(["rounds", 1, "turns", 0], ["tempura"]),
        "rounds[1].turns[0]: expected a turn (an object with picks), got a list",
    ),
    (set_at(["rounds", 0, "turns"], "all of them"), "rounds[0].turns: expected a list of turns, got a string"),
    (
        set_at(["rounds", 2, "turns", 3, "picks", 1], "tempura"),
        "rounds[2].turns[3].picks[1]: expected a list of card ids, got a string",
    ),
    (set_at(["rounds", 0, "hands", 0, 0], "Tempura"), "rounds[0].hands[0][0]: expected a card id, got 'Tempura'"),
    (set_at(["rules"], "maki"), "rules: expected an object of points per rule id, got a string"),
    (set_at(["turns"], "9"), "unknown key 'turns'"),
    (set_at(["sead"], 7), "unknown key 'sead' (did you mean 'seed'?)"),
    (set_at(["format"], True), "format: expected 1, got true"),
    (set_at(["format"], 2), "format: expected 1, got 2"),
    (set_at(["format"], 1.0), "format: expected 1, got 1.0"),
    (lambda r: r.pop("seats"), "missing key 'seats'"),
    (set_at(["seats"], ["greedy", "random"]), "seats: 2 names for 3 players"),
    (set_at(["seats"], "greedy"), "seats: expected a list of names, one per player, got a string"),
    (set_at(["seats", 1], 3), "seats[1]: expected a name, got a whole number"),
    (lambda r: r["rounds"].append(copy.deepcopy(r["rounds"][0])), "rounds: 4 rounds, but Sushi Go! has 3"),
    (lambda r: r["rounds"].pop(), "rounds: 2 rounds, but Sushi Go! has 3"),
    (set_at(["rounds"], []), "rounds: expected a list of rounds with at least 1 item(s), got an empty list"),
    (
        lambda r: r.__setitem__("seed", r["seed"] + 2**64),
        f"seed: expected a whole number from 0 to {MAX_SEED}, got {7 + 2**64}",
    ),
    (set_at(["seed"], MAX_SEED + 1), f"seed: expected a whole number from 0 to {MAX_SEED}, got {MAX_SEED + 1}"),
    (set_at(["seed"], -1), f"seed: expected a whole number from 0 to {MAX_SEED}, got -1"),
    (
        set_at(["seed"], 7.0),
        "seed: expected a whole number, got 7.0 (a whole number is written without a decimal point)",
    ),
    (set_at(["players"], 3.5), "players: expected a number of players, got 3.5"),
    (set_at(["seed"], "7"), "seed: expected a whole number, got a string"),
    (set_at(["players"], True), "players: expected a number of players, got true"),
    (set_at(["players"], 6), "players: 6 players, but Sushi Go! is for 2-5 players"),
    (set_at(["ruleset"], None), "ruleset: expected a ruleset id, got null"),
    (lambda r: r["rounds"][0]["hands"].pop(), "rounds[0].hands: 2 hands for 3 seats"),
    (lambda r: r["rounds"][1]["turns"][4]["picks"].append([]), "rounds[1].turns[4].picks: 4 lists for 3 seats"),
    (lambda r: r["rounds"][2]["scores"].append(0), "rounds[2].scores: 4 scores for 3 seats"),
    (set_at(["game_end"], [0, 0]), "game_end: 2 scores for 3 seats"),
    (set_at(["totals"], [1, 2, 3, 4]), "totals: 4 totals for 3 seats"),
    (lambda r: r["rules"]["maki"].pop(), "rules.maki: 2 scores for 3 seats"),
    (set_at(["winners"], [3]), "winners[0]: seat 3 wins, but the players are seats 0-2"),
    (set_at(["winners"], [1, 1]), "winners: a seat is named twice"),
    (set_at(["winners", 0], -1), "winners[0]: expected a seat number of at least 0, got -1"),
    (set_at(["rounds", 0, "turns", 0, "auto"], False), "rounds[0].turns[0].auto: expected true, got false"),
    (
        set_at(["rounds", 0, "turns", 0, "controller"], 0),
        "rounds[0].turns[0]: a dummy's turn, but Sushi Go! has no dummy",
    ),
]


@pytest.mark.parametrize("change, problem", BAD_RECORDS)
def test_each_malformed_or_forged_record_is_refused_with_its_path(record, tmp_path, change, problem):
    """A record with one thing wrong (shape, format, seats, rounds, seed, per-seat lengths) gets exactly that problem, named by line and JSON path; exit 1; the other records still replay."""
    bad = changed(record, change)
    other = changed(record, set_at(["seats", 0], "someone else"))  # the same game twice would be refused
    path = write_log(tmp_path, [record, bad, other])
    result = replay(path)
    assert result.exit_code == 1
    assert result.stderr == f"{path}:2: error: {problem}\n"
    assert result.stdout == "3 games replayed, 2 clean, 1 with problems\n"
    assert replay_record(bundled_ruleset("sushi-go"), bad) == [f"error: {problem}"]


def test_a_record_that_is_not_an_object_is_refused(tmp_path):
    """A line holding JSON that is not an object (a list, a string, null) is reported, counted as no game, exit 1."""
    path = write_log(tmp_path, ["[1, 2]", '"game"', "null"])
    result = replay(path)
    assert result.exit_code == 1
    assert result.stderr == "".join(
        f"{path}:{n}: error: expected a game record (a JSON object), got {what}\n"
        for n, what in ((1, "a list"), (2, "a string"), (3, "null"))
    )
    assert result.stdout == "0 games replayed, 0 clean, 0 with problems; 3 lines are no game records\n"


def test_integers_longer_than_python_converts_are_a_located_problem(record, tmp_path):
    """Integers of 5,000 digits (seed, a score, a seat) are reported at their path, exit 1, not an internal error (exit 70)."""
    text = json.dumps(record)
    line = text.replace(f'"seed": {record["seed"]}', f'"seed": {HUGE}')
    assert line != text
    rec = changed(record, set_at(["rounds", 0, "scores", 1], 0))
    scores = json.dumps(rec).replace(
        '"scores": ' + json.dumps(rec["rounds"][0]["scores"]),
        '"scores": [' + f"{record['rounds'][0]['scores'][0]}, -{HUGE}, 0]",
        1,
    )
    path = write_log(tmp_path, [line, scores])
    result = replay(path)
    assert result.exit_code == 1
    assert result.stderr == (
        f"{path}:1: error: seed: expected a whole number, got a number of 5000 digits\n"
        f"{path}:2: error: rounds[0].scores[1]: expected a whole number of points, got a number of 5000 digits\n"
    )


@pytest.mark.parametrize("seed", ["1e400", "-1e400", "2.5e20"])
def test_a_seed_of_the_wrong_type_is_one_problem_not_two(record, tmp_path, seed):
    """A seed written as a float far past the range (1e400 reads as infinity): one line saying it is no whole
    number; it was said twice, once more as out of range."""
    text = json.dumps(record)
    line = text.replace(f'"seed": {record["seed"]}', f'"seed": {seed}')
    assert line != text
    path = write_log(tmp_path, [line])
    result = replay(path)
    assert result.exit_code == 1
    (said,) = result.stderr.splitlines()
    assert said.startswith(f"{path}:1: error: seed: expected a whole number, got ")


def test_every_problem_of_a_record_is_reported_in_path_order(record, tmp_path):
    """A record with several problems gets one line for each, in the order of their paths."""

    def change(rec):
        rec["format"] = True
        rec["rounds"][1]["turns"][0] = "x"
        rec["rounds"][0]["turns"][2] = None
        del rec["winners"]
        rec["seed"] = -4

    path = write_log(tmp_path, [changed(record, change)])
    result = replay(path)
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [
        f"{path}:1: error: missing key 'winners'",
        f"{path}:1: error: format: expected 1, got true",
        f"{path}:1: error: rounds[0].turns[2]: expected a turn (an object with picks), got null",
        f"{path}:1: error: rounds[1].turns[0]: expected a turn (an object with picks), got a string",
        f"{path}:1: error: seed: expected a whole number from 0 to {MAX_SEED}, got -4",
    ]


def test_the_number_of_problems_reported_for_a_record_is_bounded(record, tmp_path):
    """A record with a hundred bad card ids gets at most MAX_PROBLEMS lines and one saying more were left out."""
    rec = changed(record, set_at(["rounds", 0, "hands", 0], ["Bad"] * 100))
    path = write_log(tmp_path, [rec])
    result = replay(path)
    assert result.exit_code == 1
    lines = result.stderr.splitlines()
    assert len(lines) == MAX_PROBLEMS + 1
    assert lines[0] == f"{path}:1: error: rounds[0].hands[0][0]: expected a card id, got 'Bad'"
    assert lines[-1] == f"{path}:1: error: more problems not shown (the first {MAX_PROBLEMS} are)"


def test_a_consistent_record_that_lies_is_still_caught_by_the_replay(record, tmp_path):
    """A record whose shape and counts are right but whose picks were changed is refused by the replay itself (exit 1)."""
    held = set(record["rounds"][0]["hands"][0])
    absent = next(c for c in bundled_ruleset("sushi-go").catalogue.ids if c not in held)
    rec = changed(record, set_at(["rounds", 0, "turns", 0, "picks", 0, 0], absent))
    path = write_log(tmp_path, [rec])
    result = replay(path)
    assert result.exit_code == 1
    assert f"{path}:1: error: round 1, turn 1: illegal pick:" in result.stderr


def test_a_dummy_controller_that_is_not_a_player_is_refused(tmp_path):
    """In the dummy variant a controller that names the dummy's own seat is reported at its path."""
    rec = make_record("sushi-go-two-player-dummy", 2)
    rec["rounds"][0]["turns"][1]["controller"] = 2
    path = write_log(tmp_path, [rec])
    result = replay(path)
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"{path}:1: error: rounds[0].turns[1].controller: seat 2 controls the dummy, but the players are seats 0-1\n"
    )


def test_control_characters_in_a_record_do_not_reach_the_terminal(record, tmp_path):
    """An unknown key holding an escape sequence is shown escaped."""
    rec = changed(record, set_at(["\x1b[31mred"], 1))
    path = write_log(tmp_path, [rec])
    result = replay(path)
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr
    assert result.stderr == f"{path}:1: error: unknown key '\\x1b[31mred'\n"


# ---------------------------------------------------------------- reading lines


def test_read_lines_accepts_a_line_of_exactly_the_limit():
    """A line of exactly ``limit`` bytes (with or without its newline) is read; one byte more is refused with the line number."""
    assert list(read_lines(io.BytesIO(b"0123456789\n0123456789"), "f", limit=10)) == [
        (1, "0123456789\n"),
        (2, "0123456789"),
    ]
    with pytest.raises(InputError) as e:
        list(read_lines(io.BytesIO(b"ok\n0123456789a\n"), "f.jsonl", limit=10))
    assert str(e.value) == "f.jsonl:2: line longer than 10 bytes (the limit for one record or table)"


def test_a_line_that_is_not_utf8_is_one_bad_record_named_with_its_number(record, tmp_path):
    """A log line with bytes that are not UTF-8 is named by file and line and counted apart; the lines after it still replay, exit 1."""
    path = tmp_path / "latin1.jsonl"
    path.write_bytes(
        (json.dumps(record) + "\n").encode()
        + b'{"ruleset": "sushi-go\xff"}\n'
        + json.dumps(changed(record, set_at(["seats", 0], "someone else"))).encode()
    )
    result = replay(str(path))
    assert result.exit_code == 1
    assert result.stderr == f"{path}:2: error: not UTF-8 text (byte 22 of the line)\n"
    assert result.stdout == "2 games replayed, 2 clean, 0 with problems; 1 line is no game record\n"


LONG_LINE_SCRIPT = r"""
import resource, subprocess, sys
proc = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(proc.stderr)
print("exit", proc.returncode)
print("maxrss_kib", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


@pytest.mark.parametrize("command", ["replay", "score"])
def test_a_64_mib_line_is_refused_in_bounded_memory(tmp_path, command):
    """A 64 MiB line (a hostile log or table) gets a one-line error naming the line and the limit, the process
    staying under 300 MB: score stops there (exit 2); replay counts it as one bad record and reads on (exit 1)."""
    path = tmp_path / "long.jsonl"
    with open(path, "wb") as fh:
        fh.write(b'{"rounds": [[["' + b"a" * (64 * 2**20) + b'"]]]}\n')
    args = [sys.executable, "-c", "from ruledraft.cli.app import main; main()", command]
    args += [str(path)] if command == "replay" else ["sushi-go", str(path)]
    proc = subprocess.run([sys.executable, "-c", LONG_LINE_SCRIPT, *args], capture_output=True, text=True, timeout=300)
    stderr, exit_line, rss_line = proc.stdout.rsplit("\n", 3)[:3]
    limit = f"line longer than {MAX_LINE_BYTES // 2**20} MiB (the limit for one record or table)"
    assert (stderr, exit_line) == (f"{path}:1: error: {limit}", "exit 1" if command == "replay" else "exit 2")
    assert int(rss_line.split()[1]) < 300 * 1024


def test_many_unknown_keys_are_named_up_to_five(record, tmp_path):
    """A record with many unknown keys names the first five (in file order) and counts the rest."""
    rec = changed(record, lambda r: r.update({f"k{i}": i for i in range(8)}))
    path = write_log(tmp_path, [rec])
    result = replay(path)
    assert result.exit_code == 1
    assert result.stderr == (
        f"{path}:1: error: unknown key 'k0'; unknown key 'k1'; unknown key 'k2'; "
        "unknown key 'k3'; unknown key 'k4'; and 3 more unknown keys\n"
    )


def test_the_schema_reads_the_format_record_game_writes():
    """The log schema's format constant and its seed bounds are the ones the code writes and checks."""
    from ruledraft.language.bundled import schema_path
    from ruledraft.play.game_log import LOG_FORMAT

    schema = json.loads(schema_path("game-log.schema.json").read_text(encoding="utf-8"))
    assert schema["properties"]["format"] == {"const": LOG_FORMAT, "description": "Version of this record format."}
    assert (schema["properties"]["seed"]["minimum"], schema["properties"]["seed"]["maximum"]) == (0, MAX_SEED)


def test_the_quick_check_agrees_with_jsonschema(record):
    """The quick validity check used for clean records says exactly what jsonschema says, for clean records and every malformed one above (format 1.0 aside: JSON Schema takes it for 1; the record check refuses it)."""
    from ruledraft.language.json_check import _quick, _validator

    quick, full = _quick("game-log.schema.json"), _validator("game-log.schema.json")
    dummy = make_record("sushi-go-two-player-dummy", 2)
    samples = [record, dummy, [1], None] + [changed(record, change) for change, _ in BAD_RECORDS]
    samples += [
        changed(dummy, set_at(["rounds", 0, "turns", 0, "drawn"], [1])),
        changed(dummy, set_at(["rounds", 0, "turns", 0, "controller"], -1)),
    ]
    for rec in samples:
        if rec is not None and not isinstance(rec, list) and rec.get("format") == 1.0 and type(rec["format"]) is float:
            assert not quick(rec) and not list(full.iter_errors(rec))
            continue
        assert quick(rec) == (not list(full.iter_errors(rec))), rec


def test_a_line_that_is_not_json_names_its_line_and_column(tmp_path):
    """A log line that is not JSON is named by file, line and column of the mistake and counted as no game; the next line is still read (exit 1)."""
    path = write_log(tmp_path, ['{"format": 1', "{}"])
    result = replay(path)
    assert result.exit_code == 1
    assert result.stderr.startswith(f"{path}:1:13: error: not valid JSON: Expecting ',' delimiter\n{path}:2: error: ")
    assert result.stdout == "1 game replayed, 0 clean, 1 with problems; 1 line is no game record\n"


def test_a_record_of_another_ruleset_is_refused_under_ruleset(record, tmp_path):
    """With --ruleset naming another ruleset, each record is refused at its ruleset field (exit 1), not replayed."""
    path = write_log(tmp_path, [record])
    result = runner.invoke(app, ["replay", path, "--ruleset", "sushi-go-soy-sauce"])
    assert result.exit_code == 1
    assert (
        result.stderr == f"{path}:1: error: ruleset: the record is a game of 'sushi-go', not of 'sushi-go-soy-sauce'\n"
    )


def test_a_line_that_is_not_json_is_one_bad_record_and_the_rest_still_replay(tmp_path):
    """A log with a cut or garbled line between good ones: that line is reported and counted apart, the others replay, exit 1."""
    log = tmp_path / "g.jsonl"
    assert CliRunner().invoke(app, ["simulate", "sushi-go", "-g", "2", "-q", "--log", str(log)]).exit_code == 0
    first, second = log.read_text(encoding="utf-8").splitlines()
    log.write_text(f"{first}\n{{bad\n{second}\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["replay", str(log)])
    assert result.exit_code == 1
    assert result.stdout == "2 games replayed, 2 clean, 0 with problems; 1 line is no game record\n"
    assert result.stderr.startswith(f"{log}:2:2: error: not valid JSON")


def test_play_refuses_a_seed_that_its_log_could_not_replay():
    """play --seed outside 0..2^53-1 is refused up front (its log would not replay), with simulate's message."""
    for seed in ("-5", str(2**53)):
        result = CliRunner().invoke(app, ["play", "sushi-go", "-p", "2", "--seed", seed], input="1\n")
        assert result.exit_code == 2
        assert result.stderr == f"error: --seed must be a whole number from 0 to 9007199254740991, not {seed}\n"


def test_a_dummy_turn_without_its_controller_or_draw_is_refused(tmp_path):
    """In a dummy ruleset's log, a turn without 'controller' (or 'drawn') is refused at its path, not replayed as clean."""
    log = tmp_path / "d.jsonl"
    args = ["simulate", "sushi-go-two-player-dummy", "-p", "2", "-g", "1", "-q", "--log", str(log)]
    assert CliRunner().invoke(app, args).exit_code == 0
    for key in ("controller", "drawn"):
        record = json.loads(log.read_text(encoding="utf-8"))
        del record["rounds"][0]["turns"][2][key]
        forged = tmp_path / f"no-{key}.jsonl"
        forged.write_text(json.dumps(record) + "\n", encoding="utf-8")
        result = CliRunner().invoke(app, ["replay", str(forged)])
        assert result.exit_code == 1
        assert result.stderr == (
            f"{forged}:1: error: rounds[0].turns[2]: missing key '{key}' "
            "(every turn of Sushi Go! (two players with a dummy) has a dummy)\n"
        )


def test_a_variant_that_took_a_bundled_id_is_not_replayed_against_the_bundled_rules_once_its_file_is_gone(tmp_path):
    """A variant with id sushi-go (validate warns of it) logs a game; with the variant's file gone, replay says
    the file is not there and the bundled ruleset only shares its id, rather than report score mismatches."""
    variant = tmp_path / "v6.yaml"
    variant.write_text(
        "format: 1\nextends: sushi-go\nid: sushi-go\nname: Mine\n"
        "scoring:\n  - {id: tempura, kind: sets, cards: tempura, size: 2, points: 50}\n",
        encoding="utf-8",
    )
    checked = runner.invoke(app, ["validate", str(variant)])
    assert checked.exit_code == 0
    assert checked.output.splitlines()[0] == (
        f"{variant}:3:5: warning: 'sushi-go' is the id of a bundled ruleset; give this rule file an id of its "
        "own (logs and reports name a ruleset by its id)"
    )
    log = tmp_path / "t.jsonl"
    ran = runner.invoke(app, ["simulate", str(variant), "-g", "3", "-q", "--log", str(log), "-p", "3"])
    assert ran.exit_code == 0, ran.output
    assert replay(str(log)).exit_code == 0
    variant.rename(tmp_path / "moved.yaml")
    result = replay(str(log))
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == (
        f"{log}:1: error: the rule file it was played from, {variant}, is not there, and the bundled "
        "'sushi-go' only shares its id (give the rule file with --ruleset FILE, or --ruleset sushi-go if it was "
        "the bundled one)"
    )
    assert len(lines) == 4 and lines[-1] == "3 games replayed, 0 clean, 3 with problems"
    named = runner.invoke(app, ["replay", str(log), "--ruleset", str(tmp_path / "moved.yaml")])
    assert named.exit_code == 0, named.output


def test_a_log_whose_rule_file_is_gone_names_the_file_and_the_way_to_give_it(tmp_path):
    """A variant with an id of its own logs games, then its file moves: replay names the
    file the log points to and --ruleset, not only 'no ruleset named so' and the bundled list."""
    variant = tmp_path / "mine.yaml"
    variant.write_text("format: 1\nextends: sushi-go\nid: mine\nname: Mine\n", encoding="utf-8")
    log = tmp_path / "t.jsonl"
    ran = runner.invoke(app, ["simulate", str(variant), "-g", "2", "-q", "--log", str(log), "-p", "3"])
    assert ran.exit_code == 0, ran.output
    variant.rename(tmp_path / "moved.yaml")
    result = replay(str(log))
    assert result.exit_code == 1
    assert result.output.splitlines()[0] == (
        f"{log}:1: error: the rule file it was played from, {variant}, is not there, "
        "and no bundled ruleset has its id 'mine' (give the rule file with --ruleset FILE)"
    )


def test_a_pick_of_more_cards_than_a_turn_takes_is_refused_before_it_is_played(record, tmp_path):
    """A logged pick listing 50,000 cards (a forged line well under the size limit) is one problem naming the turn and the most a pick takes, answered at once: no action is built from the cards (that took minutes)."""
    record = copy.deepcopy(record)
    record["rounds"][0]["turns"][0]["picks"][0] = ["maki_3"] * 50_000
    result = replay(write_log(tmp_path, [record]))
    assert result.exit_code == 1
    assert result.stderr.endswith(
        ":1: error: round 1, turn 1: seat 0 took 50000 cards in one pick; a pick of Sushi Go! takes at most 2 cards\n"
    )
    game = bundled_ruleset("sushi-go")
    with pytest.raises(IllegalMoveError, match="3 cards in one pick, where a pick takes at most 2"):
        Game(game, 3).encode_action([0, 1, 2])


CAN_WIN = """\
format: 1
extends: sushi-go
id: dummy-can-win
name: Dummy Can Win
players: {min: 2, max: 2}
deal:
  hand_size: {2: 9}
turn:
  procedure: dummy
  dummy: {seats: 1, can_win: true}
"""


def test_games_a_dummy_that_can_win_wins_replay_clean(tmp_path):
    """With can_win, a logged game the dummy (seat 2 of 2 players) wins replays clean; a seat past the dummy is still refused, naming the seats that can win."""
    rules = tmp_path / "can-win.yaml"
    rules.write_text(CAN_WIN, encoding="utf-8")
    log = tmp_path / "games.jsonl"
    args = ["simulate", str(rules), "-p", "2", "--games", "60", "--bots", "random", "-q", "--log", str(log)]
    assert runner.invoke(app, args).exit_code == 0
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert any(r["winners"] == [2] for r in records), "the dummy won none of 60 games"
    result = replay(str(log))
    assert result.exit_code == 0, result.output
    assert result.stdout == "60 games replayed, 60 clean, 0 with problems\n"
    won = next(r for r in records if r["winners"] == [2])
    path = write_log(tmp_path, [changed(won, set_at(["winners"], [3]))], "forged.jsonl")
    assert replay(path).stderr == f"{path}:1: error: winners[0]: seat 3 wins, but seats 0-2 can win\n"


def test_a_rule_missing_from_a_log_or_unknown_to_the_rules_is_said_in_words(record, tmp_path):
    """A rule's points left out of a record say 'no points in the log'; points of a rule the ruleset lacks say so (they read 'None')."""
    bad = changed(record, lambda r: r["rules"].pop("maki"))
    bad["rules"]["nosuch"] = [1, 2, 3]
    path = write_log(tmp_path, [bad])
    lines = replay(path).stderr.splitlines()
    maki = record["rules"]["maki"]
    assert f"{path}:1: error: rule maki: no points in the log, the rules give {maki}" in lines
    assert f"{path}:1: error: rule nosuch: [1, 2, 3] in the log, but the rules have no such rule" in lines
    assert not any("None" in line for line in lines)


def test_a_log_on_standard_input_replays_as_a_file_does(record):
    """replay - reads the log from standard input (what its refusal of a FIFO advises): a clean record, then a forged one, each said at <stdin>:LINE."""
    forged = changed(record, lambda r: r["totals"].__setitem__(0, r["totals"][0] + 1))
    text = json.dumps(record) + "\n" + json.dumps(forged) + "\n"
    result = runner.invoke(app, ["replay", "-"], input=text)
    assert result.exit_code == 1
    assert result.stdout == "2 games replayed, 1 clean, 1 with problems\n"
    assert result.stderr.startswith("<stdin>:2: error: ")
    assert "<stdin>:1:" not in result.stderr
    assert runner.invoke(app, ["replay", "-"], input=json.dumps(record) + "\n").exit_code == 0


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("nosuch", "error: no ruleset 'nosuch': not a file, nor a bundled ruleset"),
        ("", "error: '': no file name (the name is empty)"),
    ],
)
def test_a_ruleset_given_that_cannot_load_is_said_once_and_refuses_the_command(record, tmp_path, given, said):
    """replay --ruleset naming nothing loadable: one line and exit 2, not the same problem once a record."""
    path = write_log(tmp_path, [record] * 5)
    result = runner.invoke(app, ["replay", path, "--ruleset", given])
    assert result.exit_code == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith(said)


@pytest.mark.parametrize("text", ["", "\n\n  \n"])
def test_an_empty_log_says_it_holds_no_game(tmp_path, text):
    """A log with no line but blanks: exit 1, saying it holds no game record (a check of nothing never passes silently)."""
    path = tmp_path / "empty.jsonl"
    path.write_text(text, encoding="utf-8")
    result = replay(str(path))
    assert result.exit_code == 1
    assert result.stderr == f"{path}: error: no game record in it (a log has one JSON object a line)\n"
    assert result.stdout == "0 games replayed, 0 clean, 0 with problems\n"


def test_a_game_from_a_seed_no_log_keeps_has_no_record():
    """A finished game dealt from seed 2**60 + 1 (the engine takes seeds to 2**64 - 1): record_game refuses it, naming the range a record keeps, rather than write a line replay and read_log refuse."""
    game = bundled_game("sushi-go", 2)
    state = play_game(game, 2**60 + 1, ["random", "random"])
    with pytest.raises(
        InputError, match=r"^a record keeps a game's seed as a whole number from 0 to 9007199254740991 "
    ):
        record_game(state, ["random", "random"])
    assert (
        replay_record(
            bundled_ruleset("sushi-go"), record_game(play_game(game, 2**53 - 1, ["random"] * 2), ["random"] * 2)
        )
        == []
    )


def test_replay_takes_standard_input_once_and_the_api_reads_a_file_called_dash(record, tmp_path, monkeypatch):
    """replay - --ruleset - is refused (one standard input, exit 2); read_log("-") reads a file called - in the current directory, as any name, not standard input."""
    import ruledraft

    result = runner.invoke(app, ["replay", "-", "--ruleset", "-"], input=json.dumps(record) + "\n")
    assert result.exit_code == 2
    assert result.stderr == "error: the log and the ruleset cannot both be read from standard input (-)\n"
    monkeypatch.chdir(tmp_path)
    (tmp_path / "-").write_text(json.dumps(record) + "\n", encoding="utf-8")
    monkeypatch.setattr("sys.stdin", io.StringIO("not a log\n"))
    assert ruledraft.read_log("-") == [record]


def test_several_logs_are_replayed_in_turn_each_summed_up_then_all(record, tmp_path):
    """replay A B -: each log's problems at its own lines, a line of counts for each, then the counts in all;
    one bad record anywhere is exit 1."""
    clean = write_log(tmp_path, [record, make_record(seed=8)], "clean.jsonl")
    forged = changed(record, set_at(["totals", 0], record["totals"][0] + 1))
    mixed = write_log(tmp_path / "..", [make_record(seed=9), forged, "not json"], f"{tmp_path.name}-mixed.jsonl")
    result = runner.invoke(app, ["replay", clean, mixed, "-"], input=json.dumps(make_record(seed=10)) + "\n")
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == f"{clean}: 2 games replayed, 2 clean, 0 with problems"
    assert lines[1].startswith(f"{mixed}:2: error: totals: ")
    assert lines[2] == f"{mixed}:3:1: error: not valid JSON: Expecting value"
    assert lines[3] == f"{mixed}: 2 games replayed, 1 clean, 1 with problems; 1 line is no game record"
    assert lines[4] == "<stdin>: 1 game replayed, 1 clean, 0 with problems"
    assert lines[5] == "in all: 5 games replayed, 4 clean, 1 with problems; 1 line is no game record"
    assert len(lines) == 6
    both = runner.invoke(app, ["replay", clean, clean])
    assert both.exit_code == 0  # the same game in two logs: each log logs it once
    assert both.output.splitlines()[-1] == "in all: 4 games replayed, 4 clean, 0 with problems"


def test_standard_input_is_named_once_and_every_log_is_looked_at_before_any_is_read(record, tmp_path):
    """replay - - is refused (exit 2); a missing log stops the command before any record is replayed, naming
    it."""
    result = runner.invoke(app, ["replay", "-", "-"], input=json.dumps(record) + "\n")
    assert result.exit_code == 2
    assert result.output == "error: standard input (-) can be read once: name it once\n"
    clean = write_log(tmp_path, [record])
    missing = str(tmp_path / "gone.jsonl")
    result = runner.invoke(app, ["replay", clean, missing])
    assert result.exit_code == 2
    assert result.output == f"error: {missing}: cannot read: no such file\n"


def _turns_cut(record, r: int, t: int):
    """``record`` with turn ``t`` of round ``r`` (0-based; -1 the last) taken out."""
    return changed(record, lambda rec: rec["rounds"][r]["turns"].pop(t))


def test_a_turn_missing_from_a_round_is_named_with_the_round_and_its_turns(record, tmp_path):
    """A round's last turn (the cards left, which the rules play) missing: the round, the turns logged and played,
    and what the rules play there; an earlier turn missing: the rules play on after the round's turns; a turn
    logged twice at the end: the rules end the round sooner; the last turn without its "auto" mark: said so.
    Each the record's one problem."""
    last = record["rounds"][0]["turns"][-1]["picks"]
    turns = len(record["rounds"][0]["turns"])
    cases = [
        (
            _turns_cut(record, 0, -1),
            f"round 1: the log has {turns - 1} turns, the rules play {turns}: the last turn is missing "
            f"(the rules play {last} on turn {turns})",
        ),
        (
            _turns_cut(record, 0, -2),
            f"round 1: the log has {turns - 1} turns, and the rules play on after them (a turn is missing?)",
        ),
        (
            changed(record, lambda rec: rec["rounds"][1]["turns"].append(rec["rounds"][1]["turns"][-1])),
            f"round 2: the log has {turns + 1} turns, the rules end the round after {turns}",
        ),
        (
            changed(record, lambda rec: rec["rounds"][0]["turns"][-1].pop("auto")),
            f"round 1, turn {turns}: the rules play these last cards themselves: the log gives the turn without "
            '"auto": true',
        ),
    ]
    for forged, problem in cases:
        result = replay(write_log(tmp_path, [forged]))
        assert result.exit_code == 1
        assert result.output.splitlines()[0] == f"{tmp_path / 'games.jsonl'}:1: error: {problem}"
        assert result.output.splitlines()[1] == "1 game replayed, 0 clean, 1 with problems"


def test_a_log_moved_with_its_rule_file_replays_from_its_new_folder(tmp_path, monkeypatch):
    """A variant's games logged beside it, then the folder moved: replay finds the rule file beside the log (the
    help's "a file in the log's directory"), from any current directory; the file it was played from is gone."""
    played = tmp_path / "played"
    played.mkdir()
    (played / "mine.yaml").write_text("format: 1\nextends: sushi-go\nid: mine\nname: Mine\n", encoding="utf-8")
    monkeypatch.chdir(played)
    ran = runner.invoke(app, ["simulate", "mine.yaml", "-g", "3", "-q", "--log", "games.jsonl", "-p", "3"])
    assert ran.exit_code == 0, ran.output
    played.rename(tmp_path / "moved")
    monkeypatch.chdir(tmp_path)
    result = replay(str(tmp_path / "moved" / "games.jsonl"))
    assert result.exit_code == 0, result.output
    assert result.output.splitlines() == ["3 games replayed, 3 clean, 0 with problems"]


def test_among_several_logs_an_empty_one_fails_and_an_unreadable_one_leaves_the_others_replayed(record, tmp_path):
    """An empty log among several is exit 1, as alone; a log that turns out unreadable once opened (gzip data)
    is said and the logs after it still replayed, exit 2; a name with an escape code is shown escaped on its
    summary line, as on its problems' lines."""
    import gzip

    clean = write_log(tmp_path, [record])
    empty = write_log(tmp_path, [], "empty.jsonl")
    result = runner.invoke(app, ["replay", clean, empty])
    assert result.exit_code == 1
    assert result.output.splitlines()[-1] == "in all: 1 game replayed, 1 clean, 0 with problems"
    packed = tmp_path / "games.jsonl.gz"
    packed.write_bytes(gzip.compress(b"{}\n"))
    odd = write_log(tmp_path, [record], "odd\x1b[31m.jsonl")
    result = runner.invoke(app, ["replay", str(packed), odd])
    assert result.exit_code == 2
    lines = result.output.splitlines()
    assert lines[0].startswith(f"error: {packed}: gzip data, not JSON Lines")
    assert lines[1] == f"{tmp_path}/odd\\x1b[31m.jsonl: 1 game replayed, 1 clean, 0 with problems"
    assert lines[2] == "in all: 1 game replayed, 1 clean, 0 with problems; 1 log could not be read"
