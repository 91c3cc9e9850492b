"""Your own bot from the command line: ``FILE.py:CLASS``, ``MODULE:CLASS`` and the
``ruledraft.bots`` entry point group, in ``simulate`` (one process, forked and spawned
workers) and ``play``; bots that fail; and ``replay``, which never loads a bot."""

from __future__ import annotations

import json
import random
import re
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.play import agents, bot_specs, runner
from ruledraft.play.runner import game_seed

cli = CliRunner()

BOTS = textwrap.dedent(
    '''
    from ruledraft.play.agents import BotOption


    class Last:
        """Takes the last legal move (or the first, with first=true)."""

        options = (BotOption("first", bool, False, "take the first move instead"),)

        def __init__(self, seed, first=False):
            self.name = "last"
            self.first = first

        def act(self, state, seat):
            legal = state.legal_actions(seat)
            return legal[0] if self.first else legal[-1]


    class Boom:
        def __init__(self, seed):
            self.name = "boom"

        def act(self, state, seat):
            raise RuntimeError("boom")


    class Cheat:
        def __init__(self, seed):
            self.name = "cheat"

        def act(self, state, seat):
            return 999


    class Loud:
        def __init__(self, seed):
            self.name = "loud"

        def act(self, state, seat):
            raise RuntimeError("\\x1b[31mred")


    class NoAct:
        def __init__(self, seed):
            pass


    class Exits:
        def __init__(self, seed):
            pass

        def act(self, state, seat):
            raise SystemExit(3)


    class Chatty:
        def __init__(self, seed):
            print("made")

        def act(self, state, seat):
            print("thinking out loud")
            return state.legal_actions(seat)[0]


    class Shelling:
        """Writes to file descriptor 1 itself, past sys.stdout (as a program it runs, or C code, would)."""

        def __init__(self, seed):
            import os

            os.write(1, b"made by descriptor\\n")

        def act(self, state, seat):
            import subprocess

            subprocess.run(["echo", "a helper program's line"], check=True)
            return state.legal_actions(seat)[0]


    class NumpyLast:
        """Last, its moves numpy integers."""

        def __init__(self, seed, first=False):
            self.name = "numpy-last"

        def act(self, state, seat):
            import numpy as np

            return np.int64(state.legal_actions(seat)[-1])


    class Odd(BaseException):
        pass


    class RaisesBase:
        def __init__(self, seed):
            pass

        def act(self, state, seat):
            raise Odd("base")


    class BadInit:
        def __init__(self, seed):
            raise ValueError("cannot start")

        def act(self, state, seat):
            return state.legal_actions(seat)[0]


    NUMBER = 3
    '''
)


@pytest.fixture
def bot_file(tmp_path, monkeypatch):
    """mybots.py in tmp_path, also importable as the module mybots; caches cleared after."""
    path = tmp_path / "mybots.py"
    path.write_text(BOTS, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield path
    agents._SPECS.clear()
    bot_specs._entry_kinds.clear()


@pytest.fixture
def entry_point(bot_file, tmp_path):
    """A dist-info on sys.path whose entry points name mybots:Last as 'lastbot'."""
    info = tmp_path / "mybots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: mybots\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[ruledraft.bots]\nlastbot = mybots:Last\n", encoding="utf-8")
    return "lastbot"


def simulate(*args):
    result = cli.invoke(app, ["simulate", "sushi-go", "-q", "--json", *map(str, args)])
    return result


def seats(result):
    assert result.exit_code == 0, result.output
    return [(s["bot"], s["mean"]) for s in json.loads(result.stdout)["seats"]]


def test_a_bot_from_a_file_plays_by_path(bot_file):
    """--bots path/mybots.py:Last plays, named by its spec, with the same results as MODULE:CLASS."""
    by_path = seats(simulate("--games", "6", "--bots", f"{bot_file}:Last,greedy"))
    by_module = seats(simulate("--games", "6", "--bots", "mybots:Last,greedy"))
    assert by_path[0][0] == f"{bot_file}:Last" and by_module[0][0] == "mybots:Last"
    assert [m for _, m in by_path] == [m for _, m in by_module]


def test_options_of_a_bot_from_a_file(bot_file):
    """mybots.py:Last:first=true plays as first does; a bad option value is a one-line error, exit 2."""
    with_option = seats(simulate("--games", "6", "--bots", f"{bot_file}:Last:first=true,greedy"))
    first = seats(simulate("--games", "6", "--bots", "first,greedy"))
    assert [m for _, m in with_option] == [m for _, m in first]
    bad = simulate("--games", "2", "--bots", "mybots:Last:first=perhaps")
    assert bad.exit_code == 2
    assert bad.stderr == "error: bot 'mybots:Last:first=perhaps': option first=perhaps: expected true or false\n"


def test_an_installed_bot_appears_by_name(entry_point):
    """An entry point in ruledraft.bots is usable by its name, with options, and listed by ruledraft bots."""
    by_name = seats(simulate("--games", "6", "--bots", "lastbot,greedy"))
    by_module = seats(simulate("--games", "6", "--bots", "mybots:Last,greedy"))
    assert [m for _, m in by_name] == [m for _, m in by_module]
    assert seats(simulate("--games", "2", "--bots", "lastbot:first=1,greedy"))[0][0] == "lastbot:first=1"
    listing = cli.invoke(app, ["bots"], env={"COLUMNS": "200"})
    assert "lastbot: Takes the last legal move (or the first, with first=true)." in listing.stdout.splitlines()
    assert "  first=true/false (default False): take the first move instead" in listing.stdout.splitlines()


def test_an_installed_bot_that_fails_to_load_leaves_the_others_listed(entry_point, tmp_path):
    """One installed bot whose module raises on import: ruledraft bots lists every other
    bot (the installed one that loads too), names the broken one on standard error, exit 2."""
    (tmp_path / "brokenbots.py").write_text("raise RuntimeError('broken at import')\n", encoding="utf-8")
    entries = tmp_path / "mybots-1.0.dist-info" / "entry_points.txt"
    entries.write_text(entries.read_text(encoding="utf-8") + "badbot = brokenbots:Bot\n", encoding="utf-8")
    listing = cli.invoke(app, ["bots"], env={"COLUMNS": "200"})
    assert listing.exit_code == 2
    lines = listing.stdout.splitlines()
    assert "lastbot: Takes the last legal move (or the first, with first=true)." in lines
    assert any(line.startswith("greedy: ") for line in lines) and not any("badbot" in line for line in lines)
    [error] = listing.stderr.strip().splitlines()
    assert error.startswith("error: bot 'badbot': ") and "broken at import" in error


@pytest.mark.parametrize("start", ["fork", "spawn"])
@pytest.mark.parametrize("how", ["path", "module", "entry point"])
def test_workers_load_the_same_bots(entry_point, bot_file, monkeypatch, start, how):
    """simulate --jobs 2, forked or spawned, gives the same summary as --jobs 1 for a bot by path, module or entry point."""
    spec = {"path": f"{bot_file}:Last", "module": "mybots:Last", "entry point": entry_point}[how]
    monkeypatch.setattr(runner, "_start_method", lambda: start)
    one = seats(simulate("--games", "12", "--seed", "4", "--bots", f"{spec},greedy", "--jobs", "1"))
    two = seats(simulate("--games", "12", "--seed", "4", "--bots", f"{spec},greedy", "--jobs", "2"))
    assert one == two


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize(
    ("cls", "pattern"),
    [
        ("Boom", r"raised RuntimeError: boom"),
        ("Cheat", r"chose 999, not a legal action"),
        ("Exits", r"raised SystemExit: 3"),
        ("RaisesBase", r"raised Odd: base"),
    ],
)
def test_a_failing_bot_is_named_with_its_seat_and_the_games_seed(bot_file, jobs, cls, pattern):
    """A bot that raises or plays an illegal move ends the run with one line naming it, its seat and the game's seed, exit 1."""
    result = simulate("--games", "8", "--seed", "2", "--bots", f"greedy,mybots:{cls}", "--jobs", jobs)
    assert result.exit_code == 1
    found = re.fullmatch(rf"error: bot 'mybots:{cls}' at seat 1 {pattern} \(game seed (\d+)\)\n", result.stderr)
    assert found, result.stderr
    assert int(found.group(1)) in {game_seed(2, i) for i in range(8)}


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bots_prints_go_to_standard_error_and_leave_the_output_whole(bot_file, jobs):
    """A bot that prints when made and at every move: simulate --json's standard output is still one JSON
    document, and the bot's lines are on standard error, with one process or two."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "3", "-g", "4", "-q", "--json"]
        + ["--bots", f"{bot_file}:Chatty,random", "--jobs", jobs],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"] == 4
    assert (
        proc.stderr.count("thinking out loud") == 4 * 3 * 8 and "made" in proc.stderr
    )  # 8 picks a round: the 9th card is played for it


def test_what_a_bot_writes_to_descriptor_1_goes_to_standard_error_too(bot_file):
    """A bot that writes to file descriptor 1 as it is made and runs a program that prints at every move: simulate --json's standard output is still one JSON document, their lines on standard error."""
    import subprocess
    import sys

    proc = subprocess.run(
        [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "3", "-g", "2", "-q", "--json"]
        + ["--bots", f"{bot_file}:Shelling,random", "--engine", "reference"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["games"] == 2
    assert proc.stderr.count("a helper program's line") == 2 * 3 * 8 and "made by descriptor" in proc.stderr


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("missing.py:Bot", "error: bot 'missing.py:Bot': no such file: missing.py"),
        ("/dev/zero:Bot", "error: bot '/dev/zero:Bot': /dev/zero is a device, not a Python file"),
        (
            "ismcts:ms=60000:iterations=1",
            "error: bot 'ismcts:ms=60000:iterations=1': ms is instead of iterations: give one of them "
            "(ms=60000 would leave iterations=1 unused)",
        ),
        ("/:Bot", "error: bot '/:Bot': / is a directory, not a Python file"),
        (
            "mybots:NoAct",
            "error: bot 'mybots:NoAct': NoAct in module mybots is not a bot (a class with act(view, seat) -> action)",
        ),
        (
            "mybots:NUMBER",
            "error: bot 'mybots:NUMBER': NUMBER in module mybots is not a bot (a class with act(view, seat) -> action)",
        ),
        ("mybots:Gone", "error: bot 'mybots:Gone': module mybots has no class 'Gone'"),
        (
            "nosuchmodule:Bot",
            "error: bot 'nosuchmodule:Bot': module nosuchmodule failed to import: ModuleNotFoundError: No module named 'nosuchmodule'",
        ),
        (
            "mybots:Last:depth=2",
            "error: bot 'mybots:Last:depth=2': unknown option 'depth' (options of mybots:Last: first)",
        ),
    ],
)
def test_bad_bot_specs_are_one_line_errors(bot_file, spec, message):
    """A spec naming no usable bot exits 2 with exactly one line on stderr."""
    result = simulate("--games", "2", "--bots", spec)
    assert (result.exit_code, result.stderr) == (2, message + "\n")


def test_a_file_that_fails_to_import_is_one_line(tmp_path):
    """A bot file raising on import is reported as failing to import, with the error, exit 2."""
    bad = tmp_path / "broken.py"
    bad.write_text("raise ValueError('not today')\n", encoding="utf-8")
    result = simulate("--games", "2", "--bots", f"{bad}:Bot")
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: bot '{bad}:Bot': {bad} failed to import: ValueError: not today\n",
    )


def test_an_installed_bot_that_fails_to_load_is_one_line(tmp_path, monkeypatch):
    """An entry point whose module is missing is an exit-2 message naming the entry point."""
    info = tmp_path / "badbots-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: badbots\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text("[ruledraft.bots]\nghost = nowhere_at_all:Ghost\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        result = simulate("--games", "2", "--bots", "ghost")
    finally:
        bot_specs._entry_kinds.clear()
    assert (result.exit_code, result.stderr) == (
        2,
        "error: bot 'ghost': entry point 'ghost' (nowhere_at_all:Ghost) in ruledraft.bots failed to load: "
        "ModuleNotFoundError: No module named 'nowhere_at_all'\n",
    )


def test_play_against_a_bot_from_a_file(bot_file, tmp_path):
    """play --bots mybots.py:Last plays a whole game piped in, and the log names the bot by its spec."""
    log = tmp_path / "game.jsonl"
    result = cli.invoke(
        app,
        ["play", "sushi-go", "--players", "2", "--bots", f"{bot_file}:Last", "--log", str(log)],
        input="1\n" * 60,
    )
    assert result.exit_code == 0, result.output
    assert json.loads(log.read_text(encoding="utf-8"))["seats"] == ["human", f"{bot_file}:Last"]


def test_play_reports_a_failing_bot(bot_file):
    """play with a bot that raises ends with one line naming the bot, its seat and the game's seed, exit 1."""
    result = cli.invoke(
        app, ["play", "sushi-go", "--players", "2", "--seed", "7", "--bots", "mybots:Boom"], input="1\n" * 60
    )
    assert result.exit_code == 1
    assert result.stderr == "error: bot 'mybots:Boom' at seat 1 raised RuntimeError: boom (game seed 7)\n"


@pytest.mark.parametrize("jobs, isolate", [("1", False), ("2", False), ("1", True)])
def test_ruledraft_debug_shows_the_traceback_of_a_failing_bot(bot_file, monkeypatch, jobs, isolate):
    """A bot that raises: one line naming it; with RULEDRAFT_DEBUG=1 the traceback of what its code raised
    comes first, its file and line, from a worker process or the bot's own (--isolate) too, and none of
    ruledraft's own frames."""
    args = ["--games", "4", "--seed", "7", "--bots", f"{bot_file}:Boom,greedy", "--jobs", jobs]
    args += ["--isolate"] if isolate else []
    plain = simulate(*args)
    line = f"error: bot '{bot_file}:Boom' at seat 0 raised RuntimeError: boom (game seed "
    assert plain.exit_code == 1 and plain.stderr.startswith(line) and plain.stderr.count("\n") == 1
    monkeypatch.setenv("RULEDRAFT_DEBUG", "1")
    shown = simulate(*args)
    assert shown.exit_code == 1
    trace, _, last = shown.stderr.rstrip("\n").rpartition("\n")
    assert last.startswith(line) and last.endswith(")")  # (on two workers, either's game may fail first)
    assert trace.startswith("Traceback (most recent call last):\n")
    at = bot_file.read_text(encoding="utf-8").splitlines().index('        raise RuntimeError("boom")') + 1
    assert f'File "{bot_file}", line {at}, in act' in trace and trace.endswith("RuntimeError: boom")
    assert "ruledraft" not in trace.replace(str(bot_file), "")


def test_a_bots_failure_keeps_what_it_raised_for_a_caller(monkeypatch):
    """From Python, a bot's failure has what the bot raised as its cause and the traceback as its detail."""
    import pickle

    import ruledraft

    monkeypatch.setattr(agents, "_REGISTRY", dict(agents._REGISTRY))

    class Broken:
        def __init__(self, seed=0):
            pass

        def act(self, view, seat):
            return {}["no such key"]

    ruledraft.register_agent("broken-for-test", Broken)
    with pytest.raises(agents.BotFailure) as caught:
        ruledraft.play_game("sushi-go", bots=["broken-for-test", "greedy"], players=2)
    assert isinstance(caught.value.__cause__, KeyError)
    assert caught.value.detail.endswith("KeyError: 'no such key'\n") and "in act" in caught.value.detail
    revived = pickle.loads(pickle.dumps(caught.value))  # as it comes from a worker process
    assert (type(revived), str(revived), revived.detail) == (type(caught.value), str(caught.value), caught.value.detail)


SIBLING_BOT = """
from sibling_moves import first


class First:
    def __init__(self, seed=0):
        pass

    def act(self, view, seat):
        return first(view.legal_actions())
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bot_file_imports_the_modules_beside_it_and_a_module_bot_is_found_where_the_command_runs(
    tmp_path, monkeypatch, jobs
):
    """A bot file that imports a module in its own folder plays (as `python FILE` would run it) from elsewhere,
    and MODULE:CLASS finds a module in the folder the command runs in, neither on PYTHONPATH; both play the
    games `first` plays, on worker processes too, and a module beside a bot hides none of Python's."""
    import sys

    folder = tmp_path / "bots"
    folder.mkdir()
    (folder / "sibling_moves.py").write_text("def first(moves):\n    return moves[0]\n", encoding="utf-8")
    (folder / "sibling_bot.py").write_text(SIBLING_BOT, encoding="utf-8")
    (folder / "random.py").write_text("raise SystemExit('not this one')\n", encoding="utf-8")
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "sibling_moves", raising=False)
    monkeypatch.delitem(sys.modules, "sibling_bot", raising=False)
    monkeypatch.setattr(agents, "_SPECS", {})
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    expected = seats(simulate("--games", "4", "--seed", "2", "--bots", "first,greedy", "--jobs", jobs))
    by_file = simulate(
        "--games", "4", "--seed", "2", "--bots", f"{folder / 'sibling_bot.py'}:First,greedy", "--jobs", jobs
    )
    assert [mean for _, mean in seats(by_file)] == [mean for _, mean in expected]
    monkeypatch.chdir(folder)
    by_module = simulate("--games", "4", "--seed", "2", "--bots", "sibling_bot:First,greedy", "--jobs", jobs)
    assert [mean for _, mean in seats(by_module)] == [mean for _, mean in expected]
    assert sys.path.index(str(folder.resolve())) > sys.path.index(str(Path(random.__file__).parent))


def test_replay_never_loads_a_bot_named_in_a_log(bot_file, tmp_path):
    """A log of games by a file bot replays clean after the file is gone: replay plays the recorded moves."""
    log = tmp_path / "games.jsonl"
    result = simulate("--games", "3", "--bots", f"{bot_file}:Last,greedy", "--log", str(log))
    assert result.exit_code == 0, result.output
    bot_file.unlink()
    agents._SPECS.clear()
    import sys

    for name in [n for n in sys.modules if n.startswith("ruledraft_bot_") or n == "mybots"]:
        del sys.modules[name]
    replayed = cli.invoke(app, ["replay", str(log)])
    assert replayed.exit_code == 0, replayed.output
    assert not [n for n in sys.modules if n.startswith("ruledraft_bot_") or n == "mybots"]


def test_a_bots_own_error_text_is_made_safe_for_the_terminal(bot_file):
    """An escape sequence in a bot's exception reaches stderr escaped, never raw."""
    result = simulate("--games", "2", "--bots", "mybots:Loud")
    assert result.exit_code == 1
    assert "\x1b" not in result.stderr
    assert result.stderr.startswith("error: bot 'mybots:Loud' at seat 0 raised RuntimeError: ")


def test_play_leaves_no_log_when_a_bot_fails(bot_file, tmp_path):
    """play --log with a bot that raises creates no log file (the game never finished)."""
    log = tmp_path / "game.jsonl"
    result = cli.invoke(
        app, ["play", "sushi-go", "--players", "2", "--bots", "mybots:Boom", "--log", str(log)], input="1\n" * 60
    )
    assert result.exit_code == 1
    assert not log.exists()


def test_control_characters_in_a_bots_file_name_never_reach_the_terminal(tmp_path):
    """A bot file named with a colour code, a window-title sequence and rich [markup]: simulate's tables and
    play's seat names show it escaped (and simulate's note on mixed bots), and no raw ESC or BEL is printed."""
    name = "\x1b[31mred\x1b]0;title\x07[bold]x.py"
    (tmp_path / name).write_text(BOTS, encoding="utf-8")
    spec = f"{tmp_path / name}:Last"
    out = cli.invoke(app, ["simulate", "sushi-go", "-p", "2", "-g", "3", "-q", "--bots", spec], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "\\x1b[31mred\\x1b]0;title\\x07[bold]x.py:Last" in out.stdout
    mixed = cli.invoke(app, ["simulate", "sushi-go", "-p", "2", "-g", "3", "--bots", f"{spec},random"])
    assert mixed.exit_code == 0, mixed.output
    assert "\x1b" not in mixed.output and "\x07" not in mixed.output
    assert "For card figures give every seat one bot" in mixed.output  # the note naming the first bot, escaped
    played = cli.invoke(app, ["play", "sushi-go", "--players", "2", "--bots", spec], input="1\n" * 40)
    assert "\x1b" not in played.output and "\x07" not in played.output
    assert "seat 1 (" in played.output and "\\x1b[31mred" in played.output


def test_a_bots_prints_are_moved_only_in_the_main_thread():
    """In the main thread a bot's stdout is standard error; in another (a server's table) sys.stdout is left
    alone, since threads swapping the one sys.stdout would restore it in the wrong order."""
    import sys
    import threading

    from ruledraft.play.bot_specs import prints_to_stderr

    with prints_to_stderr():
        assert sys.stdout is sys.stderr
    seen = []

    def in_a_thread():
        before = sys.stdout
        with prints_to_stderr():
            seen.append(sys.stdout is before)

    thread = threading.Thread(target=in_a_thread)
    thread.start()
    thread.join()
    assert seen == [True]


@pytest.mark.parametrize("isolate", [False, True])
def test_a_bot_whose_moves_are_numpy_integers_plays_as_with_python_integers(bot_file, isolate):
    """A move that is an integer of numpy's is the move of that number: the same games as the bot returning ints, alone or in a process of its own."""
    where = ["--isolate"] if isolate else []
    numpy = seats(simulate("--games", "6", "--seed", "4", "--bots", "greedy,mybots:NumpyLast", *where))
    python = seats(simulate("--games", "6", "--seed", "4", "--bots", "greedy,mybots:Last", *where))
    assert [mean for _, mean in numpy] == [mean for _, mean in python]


def test_a_registered_bot_that_raises_is_named_like_one_from_a_file(bot_file, monkeypatch):
    """A bot made by a factory given to register_agent is not one of ruledraft's own: its error is a BotFailure naming it, its seat and the game's seed, in play_game and simulate."""
    import mybots

    import ruledraft

    monkeypatch.setattr(agents, "_REGISTRY", dict(agents._REGISTRY))
    ruledraft.register_agent("boomer", mybots.Boom)
    assert agents.is_foreign("boomer") and not agents.is_foreign("greedy")  # before any spec of it is parsed
    with pytest.raises(agents.BotFailure, match=r"^bot 'boomer' at seat 0 raised RuntimeError: boom \(game seed 1\)$"):
        ruledraft.play_game("sushi-go", players=3, bots="boomer,greedy", seed=1)
    result = simulate("--games", "2", "--bots", "boomer,greedy")
    assert result.exit_code == 1 and result.stderr.startswith(
        "error: bot 'boomer' at seat 0 raised RuntimeError: boom"
    ), result.stderr


def test_what_a_bot_file_prints_as_it_is_imported_goes_to_standard_error(tmp_path, monkeypatch):
    """A bot file that prints when imported leaves --json whole: the print is on standard error."""
    (tmp_path / "noisy.py").write_text(
        "print('IMPORT TIME PRINT')\n\n\nclass First:\n    def __init__(self, seed):\n        pass\n\n"
        "    def act(self, view, seat):\n        return view.legal_actions(seat)[0]\n"
    )
    monkeypatch.chdir(tmp_path)
    result = simulate("--games", "2", "--bots", "noisy.py:First,random")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["games"] == 2 and "IMPORT TIME PRINT" in result.stderr


@pytest.mark.parametrize("how", [["--jobs", "1"], ["--jobs", "2"], ["--isolate"]])
def test_a_bot_file_that_cannot_be_made_is_named_as_typed(bot_file, monkeypatch, how):
    """A bot whose constructor raises is one line naming it as typed (not by the absolute path workers are sent), alone, on workers and in a process of its own."""
    monkeypatch.chdir(bot_file.parent)
    result = simulate("--games", "4", "--bots", "greedy,mybots.py:BadInit", *how)
    assert result.exit_code == 1
    assert result.stderr == "error: bot 'mybots.py:BadInit' could not be made: ValueError: cannot start\n"


def test_a_registered_bot_that_cannot_be_made_is_a_bot_failure(bot_file, monkeypatch):
    """A factory given to register_agent that raises as its bot is made is a BotFailure naming the bot, as for one from a file."""
    import mybots

    import ruledraft

    monkeypatch.setattr(agents, "_REGISTRY", dict(agents._REGISTRY))
    ruledraft.register_agent("badinit", mybots.BadInit)
    with pytest.raises(agents.BotFailure, match=r"^bot 'badinit' could not be made: ValueError: cannot start$"):
        ruledraft.play_game("sushi-go", players=3, bots="badinit,greedy", seed=1)
    result = simulate("--games", "2", "--bots", "greedy,badinit")
    assert (result.exit_code, result.stderr) == (
        1,
        "error: bot 'badinit' could not be made: ValueError: cannot start\n",
    )


def test_a_move_that_is_integer_like_is_that_integer_and_anything_else_stays_to_be_refused():
    """as_action takes what the engine takes for a move: numpy integers and 0-d arrays become ints; bools, floats and text stay as they are (then refused as not legal)."""
    import numpy as np

    moved = [bot_specs.as_action(x) for x in (7, np.int64(7), np.uint8(7), np.array(7))]
    assert moved == [7] * 4 and all(type(m) is int for m in moved)
    for other in (True, np.True_, 7.0, np.float64(7), "7", None, [7]):
        assert bot_specs.as_action(other) is other


def test_a_name_registered_twice_and_a_bare_action_are_argument_errors():
    """register_agent under a taken name, and apply_actions(5) for apply_actions([5]): ArgumentError (ruledraft's bad-input error, a ValueError), saying what is wanted."""
    from ruledraft.engine.state import Game
    from ruledraft.errors import ArgumentError
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.agents import register_agent

    with pytest.raises(
        ArgumentError, match=r"^an agent called 'greedy' is already registered \(replace=True replaces it\)$"
    ):
        register_agent("greedy", lambda seed: None)
    state = Game(load_ruleset("sushi-go"), 2).new_initial_state(1)
    with pytest.raises(ArgumentError, match=r"^actions is a list of one action per acting seat \(2 now\), not 5$"):
        state.apply_actions(5)


#: a bot that writes each move to a file of its process's own, opened once and never flushed nor closed
_LEAKY_BOT = """
import os

LOGS = {}


class Leaky:
    def __init__(self, seed=0):
        pass

    def act(self, view, seat):
        pid = os.getpid()
        if pid not in LOGS:
            LOGS[pid] = open(os.path.join(os.environ["MOVES_DIR"], f"moves-{pid}.txt"), "w")
        LOGS[pid].write(f"{seat}\\n")
        return view.legal_actions()[0]
"""


@pytest.mark.parametrize("isolate", [False, True], ids=["in-worker", "isolated"])
def test_a_bot_s_unflushed_file_keeps_every_line_on_two_workers(tmp_path, isolate):
    """A bot that never flushes or closes the file it writes its moves to: on two worker processes (and in a process
    of its own under --isolate) every move is written, as on one process. Workers leave at once, with no
    interpreter's end: what was not flushed (the last part of each file) was lost, and --isolate's processes were
    killed with their worker."""
    import os
    import subprocess
    import sys

    bot = tmp_path / "leaky.py"
    bot.write_text(_LEAKY_BOT)
    args = [
        "simulate",
        "sushi-go",
        "-p",
        "3",
        "-g",
        "60",
        "-q",
        "--bots",
        f"{bot}:Leaky,random",
        "--engine",
        "reference",
    ]
    lines = {}
    for jobs in ("1", "2"):
        moves = tmp_path / f"jobs-{jobs}"
        moves.mkdir()
        done = subprocess.run(
            [sys.executable, "-m", "ruledraft", *args, "--jobs", jobs, *(["--isolate"] if isolate else [])],
            capture_output=True,
            text=True,
            timeout=300,
            env={**os.environ, "MOVES_DIR": str(moves)},
        )
        assert done.returncode == 0, done.stderr
        lines[jobs] = sum(len(f.read_text().splitlines()) for f in moves.iterdir())
    assert lines["2"] == lines["1"] == 60 * 3 * 8  # three rounds of eight picks (the ninth card is given)
