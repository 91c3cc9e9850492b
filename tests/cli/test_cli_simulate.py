"""``ruledraft simulate`` and ``ruledraft replay``: JSON summaries, game logs that validate
against the schema and replay clean, tampered logs, and bad input reported without a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from jsonschema import Draft202012Validator
from strategies import BUNDLED_RULESETS, bundled_game, bundled_ruleset
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.language.bundled import schema_path
from ruledraft.play.runner import simulate as run_simulation

runner = CliRunner()

SEAT_KEYS = {"seat", "bot", "wins", "win_share", "mean", "stdev", "min", "max", "rules"}
TIMING_KEYS = ("elapsed_seconds", "games_per_second")


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def assert_no_traceback(result):
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(schema_path("game-log.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def read_lines(path):
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def sushi_go_log(tmp_path_factory):
    """A 30-game 3-player log of sushi-go (seed 1, greedy then random) and the JSON summary printed with it."""
    path = tmp_path_factory.mktemp("logs") / "games.jsonl"
    result = invoke(
        "simulate",
        "sushi-go",
        "--players",
        3,
        "--games",
        30,
        "--seed",
        1,
        "--bots",
        "greedy,random",
        "--json",
        "--log",
        path,
    )
    assert result.exit_code == 0, result.output
    return path, result


# ---------------------------------------------------------------- the JSON summary


def test_simulate_json_prints_the_summary_fields(sushi_go_log):
    """`simulate sushi-go --players 3 --games 30 --seed 1 --bots greedy,random --json` prints one JSON object with the run's settings and per-seat statistics."""
    _, result = sushi_go_log
    data = json.loads(result.stdout)
    assert {k: data[k] for k in ("ruleset", "players", "games", "seed", "bots")} == {
        "ruleset": "sushi-go",
        "players": 3,
        "games": 30,
        "seed": 1,
        "bots": ["greedy", "random", "random"],
    }
    assert set(TIMING_KEYS) <= set(data)
    assert [s["seat"] for s in data["seats"]] == [0, 1, 2]
    assert [s["bot"] for s in data["seats"]] == ["greedy", "random", "random"]
    rule_ids = set(bundled_ruleset("sushi-go").rule_ids)
    for seat in data["seats"]:
        assert set(seat) == SEAT_KEYS
        assert set(seat["rules"]) == rule_ids
        assert sum(seat["rules"].values()) == pytest.approx(seat["mean"])
    assert sum(s["win_share"] for s in data["seats"]) == pytest.approx(1.0)


def test_simulate_json_agrees_with_the_library(sushi_go_log):
    """The printed summary equals runner.simulate's for the same settings (timing aside)."""
    _, result = sushi_go_log
    printed = json.loads(result.stdout)
    expected = run_simulation(bundled_ruleset("sushi-go"), 3, 30, 1, ["greedy", "random", "random"]).to_json()
    for key in TIMING_KEYS:
        printed.pop(key)
        expected.pop(key)
    assert printed == expected


def test_simulate_jobs_does_not_change_output_or_log(tmp_path):
    """--jobs 2 prints the same summary (timing aside) and writes the same log, line for line, as --jobs 1."""
    outputs = []
    for jobs in (1, 2):
        log = tmp_path / f"jobs{jobs}.jsonl"
        result = invoke(
            "simulate",
            "sushi-go-pass-both-ways",
            "-p",
            4,
            "-g",
            20,
            "-s",
            3,
            "--bots",
            "random,greedy",
            "--jobs",
            jobs,
            "--json",
            "-q",
            "--log",
            log,
        )
        assert result.exit_code == 0, result.output
        data = json.loads(result.stdout)
        for key in TIMING_KEYS:
            data.pop(key)
        outputs.append((data, log.read_text(encoding="utf-8")))
    assert outputs[0] == outputs[1]


# ---------------------------------------------------------------- logs and replay


def test_log_has_one_valid_record_per_game(sushi_go_log, validator):
    """--log writes one JSON object per game, each valid against schemas/game-log.schema.json and describing its game."""
    path, _ = sushi_go_log
    lines = read_lines(path)
    assert len(lines) == 30
    seeds = set()
    for line in lines:
        record = json.loads(line)
        errors = sorted(validator.iter_errors(record), key=lambda e: list(e.path))
        assert not errors, [e.message for e in errors]
        assert record["ruleset"] == "sushi-go" and record["players"] == 3
        assert record["seats"] == ["greedy", "random", "random"]
        assert len(record["rounds"]) == 3
        assert all(len(r["hands"]) == 3 and len(r["turns"]) == 9 for r in record["rounds"])
        assert record["winners"] and set(record["winners"]) <= {0, 1, 2}
        seeds.add(record["seed"])
    assert len(seeds) == 30


def test_a_record_names_its_generator_and_another_is_refused(sushi_go_log, tmp_path):
    """Every record says the random scheme its seed deals with; a record naming another is
    refused at its line; one without the key (written before records named it) replays."""
    path, _ = sushi_go_log
    assert {json.loads(line)["generator"] for line in read_lines(path)} == {"mt19937-splitmix64"}

    def other(record):
        record["generator"] = "pcg64"

    bad = tamper(path, tmp_path / "other.jsonl", 2, other)
    result = invoke("replay", bad)
    assert result.exit_code == 1
    assert f"{bad}:2: error: generator: expected \"mt19937-splitmix64\", got 'pcg64'" in result.output

    def older(record):
        del record["generator"]

    assert invoke("replay", tamper(path, tmp_path / "older.jsonl", 2, older)).exit_code == 0


def test_replay_of_a_clean_log_exits_zero(sushi_go_log):
    """`ruledraft replay FILE` on a fresh log exits 0 and says every game is clean."""
    path, _ = sushi_go_log
    result = invoke("replay", path)
    assert result.exit_code == 0, result.output
    assert "30 games replayed, 30 clean, 0 with problems" in result.output


def tamper(path, out, line_no, change):
    """Copy the log at ``path`` to ``out`` with ``change(record)`` applied to line ``line_no`` (1-based)."""
    lines = read_lines(path)
    record = json.loads(lines[line_no - 1])
    change(record)
    lines[line_no - 1] = json.dumps(record)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_replay_names_a_pick_of_a_card_the_seat_does_not_hold(sushi_go_log, tmp_path):
    """A first-turn pick changed to a card the seat was not dealt makes replay exit 1, naming the line, the turn and the illegal pick."""
    path, _ = sushi_go_log
    ids = bundled_ruleset("sushi-go").catalogue.ids
    holder = {}

    def change(record):
        hand = record["rounds"][0]["hands"][0]
        holder["card"] = card = next(c for c in ids if c not in hand)
        record["rounds"][0]["turns"][0]["picks"][0] = [card]

    bad = tamper(path, tmp_path / "bad-pick.jsonl", 3, change)
    result = invoke("replay", bad)
    assert result.exit_code == 1
    assert_no_traceback(result)
    assert f"{bad}:3: error: round 1, turn 1: illegal pick" in result.output
    assert holder["card"] in result.output
    assert "30 games replayed, 29 clean, 1 with problems" in result.output


def test_replay_names_a_later_pick_the_seat_cannot_make(sushi_go_log, tmp_path):
    """A pick in round 2, turn 4 changed to a card absent from the hand the seat holds then (after passing) is reported for that line and turn."""
    path, _ = sushi_go_log
    game = bundled_game("sushi-go", 3)
    rs = game.ruleset
    record = json.loads(read_lines(path)[4])
    deals = [[[rs.card_index(c) for c in h] for h in r["hands"]] for r in record["rounds"]]
    state = game.new_initial_state(0, deals=deals)
    for rnd, turn in ((0, t) for t in range(8)):
        state.apply_actions([game.action_from_ids(p) for p in record["rounds"][rnd]["turns"][turn]["picks"]])
    for turn in range(3):
        state.apply_actions([game.action_from_ids(p) for p in record["rounds"][1]["turns"][turn]["picks"]])
    assert (state.round, state.turn) == (1, 3)
    absent = next(c for c in rs.catalogue.ids if rs.card_index(c) not in state.hands[2])

    def change(rec):
        rec["rounds"][1]["turns"][3]["picks"][2] = [absent]

    bad = tamper(path, tmp_path / "bad-later-pick.jsonl", 5, change)
    result = invoke("replay", bad)
    assert result.exit_code == 1
    assert f"{bad}:5: error: round 2, turn 4: illegal pick: seat 2" in result.output
    assert absent in result.output


def test_replay_names_the_last_cards_a_changed_legal_pick_leads_to(sushi_go_log, tmp_path):
    """A pick of round 1 changed to another card of the same hand: legal, but the last
    cards the rules play differ from the log's; replay names that turn and round at once
    (on a ruleset that reshuffles the tables, before the next deal could be blamed)."""
    path, _ = sushi_go_log
    game = bundled_game("sushi-go", 3)
    rs = game.ruleset
    record = json.loads(read_lines(path)[0])
    state = game.new_initial_state(record["seed"])
    for turn in range(3):
        state.apply_actions([game.action_from_ids(p) for p in record["rounds"][0]["turns"][turn]["picks"]])
    logged = record["rounds"][0]["turns"][3]["picks"][0]
    found = []
    for other in sorted({rs.catalogue.ids[c] for c in state.hands[0]} - set(logged)):

        def change(rec, other=other):
            rec["rounds"][0]["turns"][3]["picks"][0] = [other]

        bad = tamper(path, tmp_path / f"swap-{other}.jsonl", 1, change)
        result = invoke("replay", bad)
        assert result.exit_code == 1
        assert_no_traceback(result)
        found += [line for line in result.output.splitlines() if "the rules play the last cards" in line]
    assert found, "no swap of a legal pick reached the last cards"
    assert found[0].startswith(f"{tmp_path}/swap-")
    assert ":1: error: round 1, turn 9: the rules play the last cards [[" in found[0]
    assert found[0].endswith("(a pick earlier in round 1 is not the game's?)")


def test_replay_names_a_changed_score(sushi_go_log, tmp_path):
    """A round score changed by one point makes replay exit 1, naming the line, the round and both scores."""
    path, _ = sushi_go_log
    logged = {}

    def change(record):
        logged["true"] = record["rounds"][1]["scores"][:]
        record["rounds"][1]["scores"][1] += 1
        logged["false"] = record["rounds"][1]["scores"][:]

    bad = tamper(path, tmp_path / "bad-score.jsonl", 7, change)
    result = invoke("replay", bad)
    assert result.exit_code == 1
    assert_no_traceback(result)
    assert (
        f"{bad}:7: error: round 2: scores {logged['false']} in the log, the rules give {logged['true']}"
        in result.output
    )


def test_replay_names_changed_totals_and_winners(sushi_go_log, tmp_path):
    """Changed totals or winners are reported (exit 1) with the logged and the true values."""
    path, _ = sushi_go_log

    def change(record):
        record["totals"][0] += 5
        record["winners"] = [2] if record["winners"] != [2] else [0]

    bad = tamper(path, tmp_path / "bad-totals.jsonl", 1, change)
    result = invoke("replay", bad)
    assert result.exit_code == 1
    assert f"{bad}:1: error: totals:" in result.output
    assert f"{bad}:1: error: winners:" in result.output


def test_replay_names_changed_points_per_rule(sushi_go_log, tmp_path):
    """Points moved between two scoring rules in the 'rules' field (totals unchanged) make replay exit 1, naming the line and the rules."""
    path, _ = sushi_go_log

    def change(record):
        record["rules"]["maki"][0] += 3
        record["rules"]["nigiri"][0] -= 3

    bad = tamper(path, tmp_path / "bad-rules.jsonl", 2, change)
    result = invoke("replay", bad)
    assert result.exit_code == 1
    assert f"{bad}:2: error: rule maki:" in result.output and f"{bad}:2: error: rule nigiri:" in result.output


def test_replay_names_a_record_whose_ruleset_is_unknown(sushi_go_log, tmp_path):
    """A record naming a ruleset that does not exist is reported for its line (exit 1) and the other games are still replayed."""
    path, _ = sushi_go_log

    def change(record):
        record["ruleset"] = "no-such-ruleset"

    bad = tamper(path, tmp_path / "bad-ruleset.jsonl", 3, change)
    result = invoke("replay", bad)
    assert_no_traceback(result)
    assert result.exit_code == 1
    assert f"{bad}:3:" in result.output and "no-such-ruleset" in result.output
    assert "30 games replayed, 29 clean, 1 with problems" in result.output


def test_simulate_prints_tables_with_a_dummy_row(tmp_path):
    """Without --json, simulate prints the per-seat and per-rule tables (no line ending in a centred title's padding); the dummy seat is labelled and has no win share."""
    result = invoke("simulate", "sushi-go-two-player-dummy", "--players", 2, "--games", 4, "-q")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert [line for line in out.splitlines() if line.endswith(" ")] == []
    assert "Mean points per scoring rule" in out and "4 games in" in out
    dummy_row = next(line for line in out.splitlines() if " dummy " in line and "│" in line)
    assert " - " in dummy_row


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS)
def test_every_bundled_ruleset_simulates_and_replays_clean(ruleset_id, tmp_path, validator):
    """Each bundled ruleset (the dummy variant included) simulates with a log whose records validate and replay clean."""
    rs = bundled_ruleset(ruleset_id)
    players = 2 if rs.dummy else 4
    log = tmp_path / "games.jsonl"
    result = invoke(
        "simulate",
        ruleset_id,
        "--players",
        players,
        "--games",
        8,
        "--seed",
        4,
        "--bots",
        "greedy,random",
        "--json",
        "-q",
        "--log",
        log,
    )
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["ruleset"] == ruleset_id and len(data["seats"]) == rs.num_seats(players)
    lines = read_lines(log)
    assert len(lines) == 8
    for line in lines:
        record = json.loads(line)
        assert not list(validator.iter_errors(record))
        if rs.dummy:
            for rnd in record["rounds"]:
                assert len(rnd["hands"]) == 3
                assert all("controller" in t and len(t["drawn"]) == 1 and len(t["picks"][2]) == 1 for t in rnd["turns"])
    result = invoke("replay", log)
    assert result.exit_code == 0, result.output
    assert "8 games replayed, 8 clean, 0 with problems" in result.output


def test_replay_of_a_dummy_log_with_a_wrong_controller_fails(tmp_path):
    """In a dummy-variant log, a turn logged with the wrong controller makes replay exit 1, naming it."""
    log = tmp_path / "dummy.jsonl"
    result = invoke(
        "simulate", "sushi-go-two-player-dummy", "--players", 2, "--games", 2, "--seed", 9, "-q", "--json", "--log", log
    )
    assert result.exit_code == 0, result.output

    def change(record):
        turn = record["rounds"][0]["turns"][2]
        turn["controller"] = 1 - turn["controller"]

    bad = tamper(log, tmp_path / "bad-dummy.jsonl", 2, change)
    result = invoke("replay", bad)
    assert result.exit_code == 1
    assert f"{bad}:2: error: round 1, turn 3:" in result.output and "controlling the dummy" in result.output


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "args, message",
    [
        (["sushi-go", "--bots", "greedy,nope"], "unknown bot 'nope'"),
        (["sushi-go", "--bots", ","], "--bots"),
        (["sushi-go", "--players", 6], "2-5 players"),
        (["sushi-go", "--players", 1, "--bots", "random"], "2-5 players"),
        (["sushi-go-two-player-dummy", "--players", 3], "is for 2 players, not 3"),
        (["no-such-ruleset"], "no ruleset 'no-such-ruleset'"),
        (["missing/file.yaml"], "no such file"),
    ],
)
def test_bad_simulate_input_is_a_message_not_a_traceback(args, message):
    """A bad --bots name, a player count the ruleset does not allow or an unknown ruleset: non-zero exit, a message on stderr, no traceback."""
    result = invoke("simulate", *args, "--games", 3, "-q")
    assert result.exit_code != 0
    assert_no_traceback(result)
    assert message in result.stderr
    assert result.stdout == ""


def test_bad_input_through_the_installed_command_has_no_traceback():
    """Run as a real process, an unknown bot ends with exit 2 and a one-line error on stderr, nothing on stdout."""
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            "from ruledraft.cli.app import main; main()",
            "simulate",
            "sushi-go",
            "--bots",
            "greedy,nope",
            "--games",
            "2",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stdout == ""
    assert proc.stderr.startswith("error: unknown bot 'nope'") and len(proc.stderr.strip().splitlines()) == 1


def test_replay_of_a_missing_or_garbled_file_is_a_message(tmp_path):
    """replay of a missing file or a line that is not JSON exits non-zero with a message, no traceback."""
    result = invoke("replay", tmp_path / "missing.jsonl")
    assert result.exit_code != 0
    assert_no_traceback(result)
    assert "cannot read" in result.output
    garbled = tmp_path / "garbled.jsonl"
    garbled.write_text('{"format": 1\n', encoding="utf-8")
    result = invoke("replay", garbled)
    assert result.exit_code != 0
    assert_no_traceback(result)
    assert f"{garbled}:1" in result.output


def test_replay_refuses_a_log_whose_deals_do_not_come_from_its_seed(sushi_go_log, tmp_path):
    """A record whose seed was changed no longer matches its logged deals: replay exits 1 and names the line."""
    path, _ = sushi_go_log

    def change(record):
        record["seed"] += 1

    bad = tamper(path, tmp_path / "bad-seed.jsonl", 4, change)
    result = invoke("replay", bad)
    assert result.exit_code == 1
    assert f"{bad}:4: error: round 1: the cards dealt in the log are not those seed" in result.output


def test_replay_of_json_nested_too_deeply_is_a_clean_error(tmp_path):
    """A log line nested a hundred thousand levels deep is a bad record with a message (exit 1), not a crash."""
    path = tmp_path / "deep.jsonl"
    path.write_text("[" * 100_000 + "\n")
    result = invoke("replay", path)
    assert_no_traceback(result)
    assert result.exit_code == 1 and "nested too deeply" in result.output


@pytest.mark.parametrize(
    "args, words",
    [
        (["--players", "abc"], "--players takes player counts"),
        (["--bots", "foo"], "unknown bot 'foo'"),
    ],
)
def test_bench_refuses_bad_values_with_a_message(args, words):
    """bench checks its player counts and bot names like simulate does: a message and exit 2."""
    result = invoke("bench", "sushi-go", "--seconds", "0.01", *args)
    assert_no_traceback(result)
    assert result.exit_code == 2 and words in result.output


# ---------------------------------------------------------------- --log targets, --jobs, --seed, rule files read once


def run_simulate(*args, timeout=120, **kwargs):
    """``ruledraft simulate`` as a real process."""
    return subprocess.run(
        [sys.executable, "-m", "ruledraft", "simulate", *[str(a) for a in args]],
        capture_output=True,
        text=True,
        timeout=timeout,
        **kwargs,
    )


@pytest.mark.parametrize(
    "target, words",
    [
        ("", "error: --log needs a file name (an empty one would log nothing)"),
        (
            "-",
            "error: --log needs a file name, not - (a log is not written to standard output; ./- names a file called -)",
        ),
        (
            "/dev/full",
            "error: --log /dev/full: a device; --log takes a regular file (created or replaced) or /dev/null",
        ),
        (".", "error: --log .: a directory; --log takes a regular file (created or replaced) or /dev/null"),
    ],
)
def test_log_must_be_a_file_name_of_a_regular_file(target, words):
    """--log "", --log - and --log at a device or a directory are refused before the run: exit 2, one line, nothing on stdout (no file called - made)."""
    result = invoke("simulate", "sushi-go", "--games", 2, "-q", "--log", target)
    assert result.exit_code == 2
    assert result.stderr == words + "\n" and result.stdout == ""
    assert not os.path.exists("-")


def test_log_to_a_fifo_is_refused_without_waiting_for_a_reader(tmp_path):
    """--log at a FIFO nobody reads is a one-line error before the run (no blocking open), exit 2."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    proc = run_simulate("sushi-go", "--games", 2, "-q", "--log", fifo)
    assert proc.returncode == 2
    assert (
        proc.stderr == f"error: --log {fifo}: a FIFO; --log takes a regular file (created or replaced) or /dev/null\n"
    )
    assert proc.stdout == ""


def test_log_to_a_missing_folder_is_refused_before_the_run(tmp_path):
    """--log in a folder that does not exist: exit 2 and 'cannot write' with the reason, before any game is played."""
    target = tmp_path / "no-such-folder" / "games.jsonl"
    result = invoke("simulate", "sushi-go", "--games", 2, "-q", "--json", "--log", target)
    assert result.exit_code == 2
    assert result.stderr == f"error: --log {target}: cannot write: No such file or directory\n" and result.stdout == ""


def test_log_to_dev_null_runs(tmp_path):
    """--log /dev/null is accepted: the run completes and logs nowhere."""
    result = invoke("simulate", "sushi-go", "--games", 3, "-q", "--json", "--log", "/dev/null")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 3


@pytest.mark.parametrize("jobs", [1, 2])
def test_log_may_not_overwrite_the_rule_file_or_its_parent(tmp_path, jobs):
    """--log naming the rule file, or the parent it extends, is refused before the run and leaves both files as they were."""
    parent = tmp_path / "parent.yaml"
    parent.write_bytes(
        schema_path("ruleset.schema.json").parent.joinpath("..", "rulesets", "sushi-go.yaml").read_bytes()
    )
    child = tmp_path / "child.yaml"
    child.write_text(
        "format: 1\nextends: parent.yaml\nid: child\nname: Child\ncards:\n  - {id: pudding, count: 12}\n",
        encoding="utf-8",
    )
    before = {p: p.read_bytes() for p in (parent, child)}
    result = invoke("simulate", child, "--games", 2, "-q", "--jobs", jobs, "--log", child)
    assert result.exit_code == 2
    assert result.stderr == f"error: --log {child} is the rule file: the log would overwrite it\n"
    result = invoke("simulate", child, "--games", 2, "-q", "--jobs", jobs, "--log", parent)
    assert result.exit_code == 2
    assert (
        result.stderr == f"error: --log {parent} is {parent}, a rule file that it extends: the log would overwrite it\n"
    )
    assert {p: p.read_bytes() for p in (parent, child)} == before


def test_a_rule_file_read_from_a_pipe_runs_on_two_workers(tmp_path):
    """A rule file given as <(...) is read once: simulate --jobs 2 runs, logs and exits 0 without a traceback.
    (Sushi Go!'s rules under an id of their own: a bundled ruleset's id is warned of.)"""
    rules = schema_path("ruleset.schema.json").parent.joinpath("..", "rulesets", "sushi-go.yaml").resolve()
    log = tmp_path / "games.jsonl"
    proc = subprocess.run(
        [
            "bash",
            "-c",
            '"$0" -m ruledraft simulate <(sed "s/^id: sushi-go$/id: piped/" "$1") --games 20 --jobs 2 -q --json --log "$2"',
            sys.executable,
            str(rules),
            str(log),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == "" and json.loads(proc.stdout)["games"] == 20
    assert len(read_lines(log)) == 20


def test_a_write_error_mid_run_keeps_the_complete_lines(tmp_path):
    """When the log cannot grow (file size limit) the run ends with exit 74, as every output that could not be
    written, and one message; the log keeps only complete records."""
    import resource

    limit = 100_000
    log = tmp_path / "games.jsonl"

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    proc = run_simulate(
        "sushi-go", "--games", 2000, "--bots", "random", "-q", "--log", log, "--jobs", 2, preexec_fn=small_files
    )
    assert proc.returncode == 74, proc.stderr
    lines = read_lines(log)
    assert proc.stderr == (
        f"error: {log}: cannot write the game log: File too large "
        f"(it keeps the first {len(lines)} games written, as complete lines)\n"
    )
    assert proc.stdout == "" and 0 < len(lines) < 2000
    assert log.read_text(encoding="utf-8").endswith("\n") and all(json.loads(line)["format"] == 1 for line in lines)


@pytest.mark.skipif(
    not os.access("/proc/self/status", os.W_OK), reason="needs Linux's /proc, opened for writing (root)"
)
def test_a_log_file_that_refuses_writes_ends_as_an_output_that_could_not_be_written():
    """--log /proc/self/status (a regular file that opens for writing and refuses every write): exit 74, as a full
    disk, with the system's reason, not 1 (nothing checked was wrong)."""
    proc = run_simulate("sushi-go", "--games", 5, "-q", "--log", "/proc/self/status")
    assert proc.returncode == 74, proc.stderr
    assert proc.stderr == (
        "error: /proc/self/status: cannot write the game log: Invalid argument "
        "(it keeps the first 0 games written, as complete lines)\n"
    )


@pytest.mark.parametrize("value", ["auto", "0"])
def test_jobs_auto_uses_every_processor(value):
    """--jobs auto (or 0) runs on one process per available processor, as the last line says."""
    from ruledraft.play.runner import available_cores

    cores = available_cores()
    result = invoke("simulate", "sushi-go", "--games", 4, "-q", "--jobs", value)
    assert result.exit_code == 0, result.output
    assert result.stdout.rstrip().endswith(f"{cores} job{'s' if cores > 1 else ''})")


def test_jobs_beyond_the_processors_are_capped_with_a_note():
    """--jobs 999 runs on as many processes as there are processors and says so on stderr."""
    from ruledraft.play.runner import available_cores

    cores = available_cores()
    result = invoke("simulate", "sushi-go", "--games", 4, "-q", "--jobs", 999)
    assert result.exit_code == 0, result.output
    assert (
        result.stderr
        == f"note: --jobs 999 is more than the {cores} processor{'s' if cores > 1 else ''} here; using {cores}\n"
    )
    assert result.stdout.rstrip().endswith(f"{cores} job{'s' if cores > 1 else ''})")


@pytest.mark.parametrize("value", ["-1", "two", "1.5"])
def test_jobs_must_be_a_count_or_auto(value):
    """--jobs that is not a whole number >= 0 or 'auto' is refused: exit 2 and one line."""
    from ruledraft.play.runner import available_cores

    result = invoke("simulate", "sushi-go", "--games", 2, "-q", "--jobs", value)
    assert result.exit_code == 2
    assert result.stderr == (
        f"error: --jobs takes a number of processes, or 0 or 'auto' for all "
        f"{available_cores()} processors, not '{value}'\n"
    )


@pytest.mark.parametrize("seed", [-1, 2**53, 2**64])
def test_seed_outside_53_bits_is_refused(seed):
    """--seed below 0 or above 2**53 - 1 is refused with exit 2 and the range."""
    result = invoke("simulate", "sushi-go", "--games", 2, "-q", "--seed", seed)
    assert result.exit_code == 2
    assert result.stderr == f"error: --seed must be a whole number from 0 to 9007199254740991, not {seed}\n"


def test_the_largest_seed_gives_logged_seeds_jq_keeps(tmp_path):
    """--seed 2**53 - 1 runs, and every logged game seed survives a round trip through a double (as in jq)."""
    log = tmp_path / "games.jsonl"
    result = invoke("simulate", "sushi-go", "--games", 20, "-q", "--seed", 2**53 - 1, "--log", log)
    assert result.exit_code == 0, result.output
    seeds = [json.loads(line)["seed"] for line in read_lines(log)]
    assert len(seeds) == 20 and all(0 <= s <= 2**53 - 1 and int(float(s)) == s for s in seeds)


def test_an_empty_entry_in_bots_is_an_error_not_a_shifted_seat():
    """--bots 'random,,greedy' names no bot for seat 1: one line and exit 2, never a game with the seats shifted."""
    result = CliRunner().invoke(app, ["simulate", "sushi-go", "-g", "5", "-q", "--bots", "random,,greedy"])
    assert result.exit_code == 2
    assert result.output == "error: --bots has an empty entry (seat 1): name a bot for every seat listed\n"


def _cells(text: str) -> dict[str, list[str]]:
    """A rich table's rows in ``text``: first cell -> the other cells."""
    rows = [line.split("│") for line in text.splitlines() if line.startswith("│")]
    return {r[1].strip(): [c.strip() for c in r[2:-1]] for r in rows}


def test_one_game_gives_no_interval_of_a_mean_and_no_spread():
    """--games 1: the intervals of means over games (a rule's points, a card's marginal points, quality's per-game
    measures) and the seats' sd are '-', not intervals of no width that read as certain; proportions keep theirs."""
    out = runner.invoke(
        app, ["simulate", "sushi-go", "-p", "3", "-g", "1", "--marginal"], env={"COLUMNS": "100"}
    ).output
    seats = _cells(out[: out.index("Mean points per scoring rule")])
    assert seats["0"][2:5] == ["20.7-100.0%", "39.00", "-"]  # seat 0: its wins' interval kept, sd '-'
    rules = _cells(out[out.index("Mean points per scoring rule") : out.index("Per card:")])
    assert rules["tempura"][:2] == ["6.67", "-"] and rules["nigiri"][:2] == ["10.00", "-"]
    marginal = _cells(out[out.index("Points a card brings per game") :])
    assert marginal and all(cells[2] == "-" for cells in marginal.values())
    quality = runner.invoke(app, ["quality", "sushi-go", "-p", "3", "-g", "1", "-b", "greedy"], env={"COLUMNS": "100"})
    per_game = _cells(quality.output[quality.output.index("Per game") :])
    assert [per_game[k][1] for k in ("decisiveness", "lead changes", "score spread")] == ["-", "-", "-"]
    assert per_game["last round decides"][1] == "20.7 to 100.0%"


def test_replay_refuses_a_game_logged_twice_and_a_gzip_file_in_one_line(sushi_go_log, tmp_path):
    """The same record on two lines is the same game logged twice: the second is named
    with the first's line. A gzip file is one message saying how to read it, not an error
    for every stretch of bytes between its newlines."""
    import gzip

    path, _ = sushi_go_log
    lines = read_lines(path)
    twice = tmp_path / "twice.jsonl"
    twice.write_text("\n".join([*lines[:3], lines[1]]) + "\n", encoding="utf-8")
    result = invoke("replay", twice)
    assert result.exit_code == 1
    assert f"{twice}:4: error: the same game as line 2: a game is logged once" in result.output
    assert "4 games replayed, 3 clean, 1 with problems" in result.output
    packed = tmp_path / "games.jsonl.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    result = invoke("replay", packed)
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {packed}: gzip data, not JSON Lines: unpack it first (zcat {packed} | ruledraft replay -)"
    )
