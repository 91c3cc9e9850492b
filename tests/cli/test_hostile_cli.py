"""What a hostile or unlucky user gives the command line ends in one clear line and
the documented exit status: rich markup in a ruleset's name, a full disk behind
standard output, plug-ins that are no plug-ins or whose rules return nonsense."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from paths import ROOT

RULESETS = ROOT / "rulesets"
CANNOT_WRITE = 74


def ruledraft(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, stdout=subprocess.PIPE):
    """Run the installed command as a user would, in its own process."""
    return subprocess.run(
        [sys.executable, "-m", "ruledraft", *args],
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


@pytest.fixture(scope="module")
def markup_file(tmp_path_factory) -> Path:
    """Sushi Go! under a name that is broken rich markup."""
    text = (RULESETS / "sushi-go.yaml").read_text()
    lines = ["name: 'Oops [/] [bold'" if line.startswith("name:") else line for line in text.splitlines()]
    path = tmp_path_factory.mktemp("markup") / "oops.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("extra", [(), ("--jobs", "2")], ids=["one process", "two processes"])
def test_markup_in_a_ruleset_name_is_printed_as_written(markup_file, extra):
    """`simulate` prints a name with `[/]` and `[bold` as text, not as a style that fails."""
    done = ruledraft("simulate", str(markup_file), "--players", "2", "--games", "5", *extra)
    assert done.returncode == 0, done.stderr
    assert "Oops [/] [bold: 5 games, 2 players" in done.stdout
    assert "internal error" not in done.stderr


def test_markup_in_a_ruleset_name_reaches_the_report(markup_file, tmp_path):
    """`simulate --report` with a name full of markup writes its report and says where."""
    done = ruledraft("simulate", str(markup_file), "--players", "2", "--games", "5", "--report", str(tmp_path / "r"))
    assert done.returncode == 0, done.stderr
    assert "Oops [/] [bold" in done.stdout
    assert any((tmp_path / "r").iterdir())


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    "args",
    [("validate", "sushi-go"), ("schema",), ("simulate", "sushi-go", "--players", "2", "--games", "3")],
    ids=["validate", "schema", "simulate"],
)
def test_standard_output_on_a_full_disk_is_one_line_and_exit_74(args):
    """Output that cannot be written (ENOSPC) ends in one line saying so and status 74."""
    with open("/dev/full", "w") as full:
        done = ruledraft(*args, stdout=full)
    assert done.returncode == CANNOT_WRITE
    assert done.stderr.strip().splitlines() == ["ruledraft: cannot write the output: No space left on device"]


@pytest.mark.parametrize("unbuffered", ["1", ""], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize(
    "args",
    [("schema",), ("simulate", "sushi-go-party-master-menu", "--games", "300", "--json", "-q")],
    ids=["schema", "simulate-json"],
)
def test_an_output_the_disk_takes_only_part_of_is_one_line_and_exit_74(tmp_path, args, unbuffered):
    """A disk that fills in the middle of a large write (here the file size limit, 30,000 bytes, below the ~68 KB
    written): one line and status 74, unbuffered too (PYTHONUNBUFFERED, a container's usual setting), where
    Python's unbuffered output dropped the rest of a write the system took only part of, exit 0."""
    import resource

    def limited() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (30_000, 30_000))

    out = tmp_path / "out.json"
    with open(out, "w") as f:
        done = subprocess.run(
            [sys.executable, "-m", "ruledraft", *args],
            stdout=f,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
            env={**os.environ, "PYTHONUNBUFFERED": unbuffered},
            preexec_fn=limited,  # noqa: PLW1509 - the child's own limit, set before it runs
        )
    assert done.returncode == CANNOT_WRITE, done.stderr
    assert done.stderr.strip().splitlines() == ["ruledraft: cannot write the output: File too large"]
    assert out.stat().st_size == 30_000


@pytest.mark.parametrize(
    "args",
    [("rulesets",), ("validate", "sushi-go"), ("simulate", "sushi-go", "--players", "2", "--games", "3")],
    ids=["rulesets", "validate", "simulate"],
)
def test_a_closed_standard_output_is_one_line_and_exit_74(args):
    """Started with standard output closed (`>&-`): one line saying so and status 74, as a
    full disk gives (it was an internal error, exit 70: Python's stdout is None there)."""
    done = subprocess.run(
        [sys.executable, "-m", "ruledraft", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
        preexec_fn=lambda: os.close(1),  # noqa: PLW1509 - the child's own descriptor, closed before it runs
    )
    assert done.returncode == CANNOT_WRITE, done.stderr
    assert done.stderr.strip().splitlines() == ["ruledraft: cannot write the output: standard output is closed"]


@pytest.mark.parametrize(
    "env",
    [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "POSIX", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}],
    ids=["ascii", "posix locale"],
)
def test_an_ascii_only_output_gets_the_tables_and_legends_in_ascii(env):
    """An output whose encoding is ASCII: simulate's tables in ASCII boxes, a mean's interval
    and the legend with +/- for the plus-minus sign (a UnicodeEncodeError ended it, exit 70),
    the table's borders straight; --explain's words with it too."""
    done = ruledraft("simulate", "sushi-go", "--players", "3", "--games", "20", "--explain", env=env)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert any(re.search(r"\| *\d+\.\d \+/- \d+\.\d \|", line) for line in lines), lines
    assert "95% CI: holds the true figure in 95 of 100 such runs; +/- is half its width" in lines
    top = next(i for i, line in enumerate(lines) if line.startswith("+"))
    seats = lines[top : top + 7]  # borders, header, rule and three seats
    assert seats[-1] == seats[0] and len({len(line) for line in seats}) == 1  # every row as wide as the borders
    assert "'+/-' after a mean" in done.stdout
    assert all(ord(c) < 128 for c in done.stdout)


@pytest.mark.parametrize(
    "env",
    [{"PYTHONIOENCODING": "ascii"}, {"LC_ALL": "POSIX", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}],
    ids=["ascii", "posix locale"],
)
def test_tune_writes_its_target_in_ascii_where_the_output_is(env, tmp_path):
    """tune's lines, where the output's encoding is ASCII: the target's plus-minus as +/- (it went out as UTF-8
    bytes, past the command's nearest-ASCII handler, as click writes by default)."""
    rules = tmp_path / "squid.yaml"
    rules.write_text((ROOT / "examples" / "tuning" / "sushi-go-squid-12.yaml").read_text(encoding="utf-8"))
    args = ["tune", str(rules), "-p", "2", "-b", "random", "-g", "10", "-t", "seats:5", "--budget", "1", "-q"]
    done = subprocess.run(
        [sys.executable, "-m", "ruledraft", *args, "-o", str(tmp_path / "out.yaml")],
        capture_output=True,
        env={**os.environ, **env},
        timeout=300,
    )
    assert done.returncode in (0, 1), done.stderr
    assert b"within +/-5 points" in done.stdout
    assert all(byte < 128 for byte in done.stdout)


def test_a_check_whose_output_is_closed_by_its_reader_never_exits_0(tmp_path):
    """replay of a tampered log piped into a reader that closes at once (`| head -c 0`) exits 141, never 0: the rest went unchecked."""
    log = tmp_path / "games.jsonl"
    assert ruledraft("simulate", "sushi-go", "--players", "2", "--games", "40", "-q", "--log", str(log)).returncode == 0
    lines = log.read_text().splitlines()
    lines[0] = lines[0].replace('"totals":[', '"totals":[1', 1)  # a total tampered with
    log.write_text("\n".join(lines) + "\n")
    reader_gone = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "replay", str(log)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert reader_gone.stdout is not None
    reader_gone.stdout.close()
    assert reader_gone.wait(timeout=120) == 141


def test_escape_codes_in_a_rule_files_name_are_shown_not_run(tmp_path):
    """A rule file named with a terminal's title and clear-screen codes is named escaped in its errors and in validate's ok line."""
    bad = tmp_path / "bad\x1b]0;x\x07.yaml"
    bad.write_text("format: 1\nid: x\n\tname: y\n")
    good = tmp_path / "ok\x1b[2J\nname.yaml"
    good.write_text((ROOT / "examples" / "tutorial" / "step1.yaml").read_text())
    done = ruledraft("validate", str(tmp_path))
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert any(line.startswith(f"{tmp_path}/bad\\x1b]0;x\\x07.yaml:3:1: error: ") for line in lines), lines
    assert f"{tmp_path}/ok\\x1b[2J\\nname.yaml: ok: Fruit Stand (fruit-stand): 2-4 players" in done.stdout


def test_a_line_feed_in_a_files_name_stays_on_its_message_line_in_score_and_replay(tmp_path):
    """score and replay name a file called 'esc<ESC>[31mred<LF>name.json' escaped on one FILE:LINE:COLUMN line,
    as show and compare do; its line feed never splits the message in two."""
    odd = tmp_path / "esc\x1b[31mred\nname.json"
    odd.write_text("x")
    said = f"{tmp_path}/esc\\x1b[31mred\\nname.json:1:1: error: not valid JSON: Expecting value"
    for command in (["score", "sushi-go", str(odd)], ["replay", str(odd)]):
        done = ruledraft(*command)
        assert done.returncode != 0
        assert said in done.stderr.splitlines(), done.stderr


def test_a_module_that_registers_nothing_is_no_plugin():
    """`--plugin os` names a module that registers no unit: refused, not accepted silently."""
    done = ruledraft("--plugin", "os", "validate", "sushi-go")
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "error: plug-in 'os' registers no scoring kind or card effect "
        "(a plug-in registers its units when it is imported)"
    )


def test_a_plugin_file_that_registers_nothing_is_no_plugin(tmp_path):
    """A Python file that imports cleanly but registers nothing is refused the same way."""
    (tmp_path / "empty.py").write_text("X = 1\n")
    done = ruledraft("--plugin", "empty.py", "validate", "sushi-go", cwd=tmp_path)
    assert done.returncode == 2
    assert "plug-in 'empty.py' registers no scoring kind or card effect" in done.stderr


def test_what_a_plugin_prints_as_it_is_imported_stays_out_of_the_schema(tmp_path):
    """A plug-in that prints when imported leaves `schema`'s output whole JSON (the editor workflow): the print is on standard error."""
    source = (ROOT / "examples" / "plugins" / "longest_run.py").read_text()
    (tmp_path / "noisy_run.py").write_text(source + "\nprint('IMPORT TIME PRINT')\n")
    done = ruledraft("--plugin", "noisy_run.py", "schema", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "longest_run" in json.dumps(json.loads(done.stdout)) and "IMPORT TIME PRINT" in done.stderr


def test_the_log_never_overwrites_the_code_of_a_bot_or_a_plugin_the_run_loaded(tmp_path):
    """--log naming the bot file or the plug-in file the run loaded is refused before playing, and the file is left whole."""
    bot = tmp_path / "mine.py"
    bot.write_text(
        "class First:\n    def __init__(self, seed):\n        pass\n\n    def act(self, view, seat):\n        return view.legal_actions(seat)[0]\n"
    )
    done = ruledraft(
        "simulate", "sushi-go", "--games", "2", "--bots", "mine.py:First,random", "--log", "mine.py", cwd=tmp_path
    )
    assert (done.returncode, done.stderr) == (
        2,
        "error: --log mine.py is the code of a bot this run loaded: the log would overwrite it\n",
    )
    assert bot.read_text().startswith("class First")
    plugin = ROOT / "examples" / "plugins"
    (tmp_path / "longest_run.py").write_text((plugin / "longest_run.py").read_text())
    (tmp_path / "conveyor.yaml").write_text((plugin / "sushi-go-conveyor.yaml").read_text())
    done = ruledraft(
        "--plugin",
        "longest_run.py",
        "simulate",
        "conveyor.yaml",
        "--games",
        "2",
        "--log",
        "longest_run.py",
        cwd=tmp_path,
    )
    assert done.returncode == 2 and "--log longest_run.py is the code of a plug-in this run loaded" in done.stderr, (
        done.stderr
    )
    assert "register_scoring_kind" in (tmp_path / "longest_run.py").read_text()


@pytest.mark.parametrize("target", ["/dev/full", "fifo"])
def test_play_refuses_a_log_that_is_a_device_or_a_fifo_before_the_game(tmp_path, target):
    """play --log /dev/full (or a FIFO) is refused before the first move, as simulate refuses it, not after the whole game."""
    if target == "fifo":
        target = str(tmp_path / "fifo")
        os.mkfifo(target)
    elif not os.path.exists(target):
        pytest.skip("needs /dev/full (Linux)")
    done = subprocess.run(
        [sys.executable, "-m", "ruledraft", "play", "sushi-go", "--players", "2", "--log", target],
        input="1\n" * 40,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert f"--log {target}: a " in done.stderr and "--log takes a regular file" in done.stderr
    assert "Your pick" not in done.stdout


def test_names_in_a_wide_script_fit_80_columns_by_their_display_width(tmp_path):
    """A card named in two-column characters (林檎 x 20) is wrapped by the columns it takes: no line of show or of a game of play is wider than 80."""
    from rich.cells import cell_len

    from ruledraft.cli.terminal import wrapped

    rules = (ROOT / "examples" / "tutorial" / "step1.yaml").read_text()
    (tmp_path / "wide.yaml").write_text(rules.replace("name: Apple,", 'name: "' + "林檎" * 20 + ' 林檎林檎",'))
    env = {"COLUMNS": "80", "LINES": "30"}
    shown = ruledraft("show", "wide.yaml", cwd=tmp_path, env=env)
    played = subprocess.run(
        [sys.executable, "-m", "ruledraft", "play", "wide.yaml", "--players", "2"],
        input="1\n" * 10,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, **env},
    )
    assert shown.returncode == 0 and played.returncode == 0, shown.stderr + played.stderr
    assert "林檎" * 10 in shown.stdout + played.stdout
    assert [line for line in (shown.stdout + played.stdout).splitlines() if cell_len(line) > 80] == []
    assert wrapped("林檎" * 5 + " ab", 10, "", "  ") == ["林檎林檎林", "  檎林檎林", "  檎 ab"]


def test_a_key_written_twice_in_a_table_or_a_log_record_is_refused(tmp_path):
    """JSON keeps the last of a key written twice: score and replay refuse such a table or record, naming the key and the line (rule files refuse it too)."""
    table = tmp_path / "table.json"
    table.write_text('{"rounds": [[["tempura"], ["sashimi"]]], "rounds": []}\n')
    done = ruledraft("score", "sushi-go", str(table), "--partial")
    assert done.returncode == 2
    assert done.stderr == f"{table}:1: error: the key 'rounds' appears twice in one object (which one is meant?)\n"
    log = tmp_path / "games.jsonl"
    assert ruledraft("simulate", "sushi-go", "--players", "2", "--games", "2", "-q", "--log", str(log)).returncode == 0
    first, second = log.read_text().splitlines()
    log.write_text(first + "\n" + second.replace('{"', '{"seed": 1, "', 1) + "\n")
    done = ruledraft("replay", str(log))
    assert done.returncode == 1
    assert f"{log}:2: error: the key 'seed' appears twice in one object (which one is meant?)" in done.stderr


def test_validate_json_gives_a_name_as_written_and_the_terminal_its_escape(tmp_path):
    """A game named with a tag character (U+E0041) is that character in --format json's summary (JSON escapes it itself), and an escape in the text line."""
    rules = (ROOT / "examples" / "tutorial" / "step1.yaml").read_text()
    (tmp_path / "tag.yaml").write_text(rules.replace("name: Fruit Stand", "name: Fruit\U000e0041 Stand"))
    (report,) = json.loads(ruledraft("validate", "tag.yaml", "--format", "json", cwd=tmp_path).stdout)
    assert report["summary"].startswith("Fruit\U000e0041 Stand (fruit-stand)")
    assert "Fruit\\U000e0041 Stand (fruit-stand)" in ruledraft("validate", "tag.yaml", cwd=tmp_path).stdout


@pytest.mark.parametrize(
    "args", [("validate", ""), ("show", ""), ("simulate", ""), ("replay", ""), ("score", "sushi-go", "")]
)
def test_an_empty_file_name_is_said_to_be_empty(args):
    """An empty argument where a file is named is refused as empty (it was read as '.', a directory, or ': cannot read'), exit 2."""
    done = ruledraft(*args)
    assert (done.returncode, done.stderr) == (2, "error: '': no file name (the name is empty)\n")


def test_a_plugin_that_is_a_fifo_is_refused_without_waiting(tmp_path):
    """A FIFO named as a plug-in is refused at once (reading it would wait for a writer)."""
    os.mkfifo(tmp_path / "kinds.py")
    done = ruledraft("--plugin", "kinds.py", "validate", "sushi-go", cwd=tmp_path)
    assert done.returncode == 2
    assert done.stderr.strip() == "error: plug-in 'kinds.py': a named pipe (FIFO), not a Python file"


BAD_KIND = textwrap.dedent(
    """
    import os

    import attrs

    from ruledraft.language.kinds import register_scoring_kind
    from ruledraft.language.rule import OwnCardsRule

    SCHEMA = {
        "title": "Bad",
        "description": "Scores whatever BAD_RESULT says.",
        "required": ["cards"],
        "properties": {"cards": {"title": "Cards", "description": "Cards.", "$ref": "#/$defs/selector"}},
    }


    @attrs.frozen(eq=False)
    class Bad(OwnCardsRule):
        id: str
        when: str
        cards: frozenset

        @property
        def reads(self):
            return self.cards

        def score(self, t):
            n = t.num_seats
            if os.environ["BAD_RESULT"] == "prints":
                print("PRINTED FROM A RULE")
                return [0] * n
            return {
                "strings": ["x"] * n,
                "too few": [1] * (n - 1),
                "huge": [10**400] * n,
                "true": [True] * n,
                "a float": [1.5] * n,
                "a number": 7,
                "none": None,
            }[os.environ["BAD_RESULT"]]

        def score_row(self, row, seq):
            return 0

        def describe(self):
            return "Whatever BAD_RESULT says."


    def build(spec, ctx):
        return Bad(spec["id"], spec["when"], frozenset(ctx.cards(("cards",), spec["cards"])))


    register_scoring_kind("bad_kind", build, SCHEMA)
    """
)

BAD_RULES = """\
format: 1
extends: sushi-go
id: bad
name: Bad
scoring:
  - {id: badrule, kind: bad_kind, cards: {cards: [tempura]}}
"""


@pytest.mark.parametrize(
    ("result", "said"),
    [
        ("strings", "score gave 'x'"),
        ("too few", "score gave 2 values for 3 seats"),
        ("huge", "score gave 1000000000000000000000000000000000000..."),
        ("true", "score gave True"),
        ("a float", "score gave 1.5"),
        ("a number", "score gave int 7, not a list of one number per seat"),
    ],
)
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_plugin_rule_that_returns_nonsense_is_one_line(tmp_path, result, said, jobs):
    """A plug-in rule's points that are not one whole number per seat within the bounds
    end the run in one line naming the rule and the kind, exit 2, on any --jobs."""
    (tmp_path / "bad_kind.py").write_text(BAD_KIND)
    (tmp_path / "bad.yaml").write_text(BAD_RULES)
    done = ruledraft(
        "--plugin",
        "bad_kind.py",
        "simulate",
        "bad.yaml",
        "--players",
        "3",
        "--games",
        "4",
        "--jobs",
        jobs,
        cwd=tmp_path,
        env={"BAD_RESULT": result},
    )
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: scoring rule 'badrule' (plug-in kind 'bad_kind'): {said} (a rule's points:")


@pytest.mark.parametrize(
    ("result", "said"),
    [("none", "score gave NoneType None, not a list"), ("too few", "score gave 0 values for 1 seat (")],
)
def test_a_plugin_rule_scored_seat_by_seat_by_a_look_ahead_bot_is_checked_too(tmp_path, result, said):
    """A plug-in rule that defines only ``score`` is scored one seat or row at a time when
    greedy weighs a card (RuleBase's and OwnCardsRule's defaults index its result): its
    nonsense is the same one line, exit 2, not an internal error (a row is a table of one seat)."""
    (tmp_path / "bad_kind.py").write_text(re.sub(r"\n *def score_row\(self, row, seq\):\n *return 0\n", "\n", BAD_KIND))
    assert "def score_row" not in (tmp_path / "bad_kind.py").read_text()
    (tmp_path / "bad.yaml").write_text(BAD_RULES)
    args = ["simulate", "bad.yaml", "--players", "3", "--games", "4", "--bots", "greedy"]
    done = ruledraft("--plugin", "bad_kind.py", *args, cwd=tmp_path, env={"BAD_RESULT": result})
    assert done.returncode == 2, done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"error: scoring rule 'badrule' (plug-in kind 'bad_kind'): {said}")


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_what_a_plugin_rule_prints_goes_to_standard_error_and_json_stays_whole(tmp_path, jobs):
    """A plug-in rule that prints while it scores (in the lab's set-up, the games, a
    greedy bot's look): standard error gets it, simulate --json and compare --json parse."""
    (tmp_path / "bad_kind.py").write_text(BAD_KIND)
    (tmp_path / "bad.yaml").write_text(BAD_RULES)
    for args in (
        ["simulate", "bad.yaml", "--players", "3", "--games", "4", "--bots", "greedy,random"],
        ["compare", "bad.yaml", "sushi-go", "--players", "3", "--games", "4"],
    ):
        done = ruledraft(
            "--plugin", "bad_kind.py", *args, "--jobs", jobs, "--json", cwd=tmp_path, env={"BAD_RESULT": "prints"}
        )
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) and "PRINTED FROM A RULE" not in done.stdout
        assert "PRINTED FROM A RULE" in done.stderr


def test_a_local_cluster_larger_than_the_machine_is_capped_like_jobs():
    """`--cluster local:999` starts no more workers than there are processors, and says so."""
    from ruledraft.play.runner import available_cores

    cores = available_cores()
    done = ruledraft("simulate", "sushi-go", "--cluster", "local:999", "--games", "6", "--players", "2", "--quiet")
    assert done.returncode == 0, done.stderr
    s = "s" if cores > 1 else ""
    assert f"note: --cluster local:999 is more than the {cores} processor{s} here; using {cores}" in done.stderr
    assert f"local Dask cluster of {cores} worker{s})" in done.stdout


def test_an_address_that_answers_garbage_is_no_scheduler(tmp_path):
    """A server that answers with bytes no Dask scheduler sends is named as such, in one
    line and at once (not an allocation error from reading its bytes as a length)."""
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer() -> None:
        server.settimeout(60)
        try:
            while True:
                conn, _ = server.accept()
                with conn:
                    conn.sendall(b"\xff" * 64)
        except OSError:
            pass

    threading.Thread(target=answer, daemon=True).start()
    try:
        done = ruledraft("simulate", "sushi-go", "--scheduler", f"tcp://127.0.0.1:{port}", "--games", "4")
    finally:
        server.close()
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        f"error: something answers at tcp://127.0.0.1:{port}, but not as a Dask scheduler does "
        "(is it the scheduler's address and port? 8786 unless it was started with another)"
    ]


@pytest.mark.parametrize("value", ["nan", "-nan", "NaN"])
def test_bench_refuses_a_time_that_is_not_a_number(value):
    """`bench --seconds nan` passed the option's range (no comparison with it holds) and measured forever: exit 2,
    said as out of range as any other time."""
    done = ruledraft(
        "bench", "sushi-go", "--players", "2", "--bots", "random", "--engine", "reference", "--seconds", value
    )
    assert done.returncode == 2
    assert "Invalid value for '--seconds': nan is out of range: 0.01 to 3,600" in done.stderr


@pytest.mark.parametrize("command", ["validate", "simulate"])
def test_a_file_that_fails_as_it_is_read_is_an_unusable_argument(command):
    """/proc/self/mem passes the checks before the read, then the read fails (input/output error): exit 2, one line, as for any file that cannot be read (it was a rule-file problem at 1:1, exit 1)."""
    done = ruledraft(command, "/proc/self/mem")
    assert done.returncode == 2
    assert done.stderr == "error: /proc/self/mem: cannot read: input/output error\n"
