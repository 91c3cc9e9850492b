"""A KeyboardInterrupt that a bot's or a plug-in's own code raises is that code's failure,
named as any other it raises, the same with one process or two; Ctrl-C is still a stop."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ruledraft.errors import described, raised_by_stop

KI_BOT = """
class Raising:
    def __init__(self, seed):
        self.moves = 0

    def act(self, view, seat):
        self.moves += 1
        if self.moves > 3:
            raise KeyboardInterrupt
        return view.legal_actions()[0]
"""

# the longest-run plug-in of examples/plugins, its rule raising as it scores
KI_PLUGIN = """
import attrs

from ruledraft.language.kinds import register_scoring_kind
from ruledraft.language.rule import OwnCardsRule

SCHEMA = {"required": ["cards"], "properties": {"cards": {"$ref": "#/$defs/selector"}}}


@attrs.frozen(eq=False)
class Raising(OwnCardsRule):
    id: str
    when: str
    cards: frozenset

    @property
    def reads(self):
        return self.cards

    def score(self, t):
        raise KeyboardInterrupt

    def describe(self):
        return "raises"


def build(spec, ctx):
    return Raising(spec["id"], spec["when"], frozenset(ctx.cards(("cards",), spec["cards"])))


register_scoring_kind("raising", build, SCHEMA)
"""

KI_RULES = """format: 1
extends: sushi-go
id: sushi-go-raising
name: Sushi Go! with a rule that raises
scoring:
  - id: raising
    kind: raising
    cards: {tag: nigiri}
"""


def _ruledraft(*args: str, cwd, stdin: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruledraft", *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def sigint_restored():
    """The test sets this process's SIGINT handler: put it back afterwards."""
    saved = signal.getsignal(signal.SIGINT)
    yield
    signal.signal(signal.SIGINT, saved)


def test_an_error_is_described_by_its_type_and_first_line_or_its_type_alone():
    """described() gives 'Type: first line', and the type alone for an error that says nothing."""
    assert described(ValueError("boom\nand more")) == "ValueError: boom"
    assert described(KeyboardInterrupt()) == "KeyboardInterrupt"
    assert described(RuntimeError("  \n")) == "RuntimeError"


def test_an_interrupt_is_a_stop_only_where_a_signal_could_have_raised_it(sigint_restored):
    """Under a handler that raises (Python's own) an interrupt may be a stop; under SIGINT ignored, or a
    handler that says it raised none, it is code's; one carrying its signal is always a stop."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    assert raised_by_stop(KeyboardInterrupt())
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    assert not raised_by_stop(KeyboardInterrupt())

    def notes_only(signum, frame):
        pass

    notes_only.stop_raised = lambda: False  # type: ignore[attr-defined]
    signal.signal(signal.SIGINT, notes_only)
    assert not raised_by_stop(KeyboardInterrupt())
    notes_only.stop_raised = lambda: True  # type: ignore[attr-defined]
    assert raised_by_stop(KeyboardInterrupt())
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    stop = KeyboardInterrupt()
    stop.signum = signal.SIGTERM  # type: ignore[attr-defined]
    assert raised_by_stop(stop)
    assert not raised_by_stop(ValueError())


def test_in_another_thread_an_interrupt_is_always_codes(sigint_restored):
    """Signals reach the main thread only: a KeyboardInterrupt in another thread was raised by code."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    seen = []
    worker = threading.Thread(target=lambda: seen.append(raised_by_stop(KeyboardInterrupt())))
    worker.start()
    worker.join()
    assert seen == [False]


def test_a_run_and_the_command_lines_handlers_say_whether_they_raised(sigint_restored):
    """A run's handler notes a signal and raises nothing; the command line's raises only for a signal it noted."""
    from ruledraft.cli import interrupts
    from ruledraft.play.executor import StopSignals

    with StopSignals():
        assert not raised_by_stop(KeyboardInterrupt())
    signal.signal(signal.SIGINT, interrupts.remembered)
    assert not raised_by_stop(KeyboardInterrupt())
    with pytest.raises(KeyboardInterrupt) as ctrl_c:
        interrupts.remembered(signal.SIGINT, None)
    try:
        assert raised_by_stop(ctrl_c.value)
    finally:
        interrupts.PENDING = 0


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_bots_own_keyboard_interrupt_is_its_failure(tmp_path, jobs):
    """A bot raising KeyboardInterrupt ends the run as any failure of a bot (one line, status 1), never
    "interrupted" (130) in one process and a worker's failure (70) in two."""
    (tmp_path / "raising.py").write_text(KI_BOT)
    proc = _ruledraft(
        "simulate", "sushi-go", "-p", "3", "-g", "20", "-b", "raising.py:Raising,random,random", "--jobs", jobs, "-q",
        cwd=tmp_path,
    )  # fmt: skip
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error: bot 'raising.py:Raising' at seat 0 raised KeyboardInterrupt (game seed ")
    assert proc.stderr.count("\n") == 1 and "interrupted" not in proc.stderr


def test_a_bots_own_keyboard_interrupt_in_play_is_its_failure(tmp_path):
    """In play too, the bot's KeyboardInterrupt is named as its failure, not taken for Ctrl-C."""
    (tmp_path / "raising.py").write_text(KI_BOT)
    proc = _ruledraft("play", "sushi-go", "-p", "2", "--bots", "raising.py:Raising", cwd=tmp_path, stdin="1\n" * 10)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith("error: bot 'raising.py:Raising' at seat 1 raised KeyboardInterrupt (game seed ")
    assert "interrupted" not in proc.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_plugins_own_keyboard_interrupt_is_its_failure(tmp_path, jobs):
    """A plug-in's rule raising KeyboardInterrupt as it scores: one line naming the plug-in's file and line, status 2."""
    (tmp_path / "raising.py").write_text(KI_PLUGIN)
    (tmp_path / "rules.yaml").write_text(KI_RULES)
    proc = _ruledraft(
        "--plugin", "raising.py", "simulate", "rules.yaml", "-p", "3", "-g", "20", "-b", "random", "--jobs", jobs,
        "-q", cwd=tmp_path,
    )  # fmt: skip
    line = KI_PLUGIN.splitlines().index("        raise KeyboardInterrupt") + 1
    assert (proc.returncode, proc.stderr) == (
        2,
        f"error: plug-in {tmp_path / 'raising.py'}, line {line}: KeyboardInterrupt\n",
    )


def test_code_raising_keyboard_interrupt_as_it_is_imported_failed_to_load(tmp_path):
    """A bot file or a plug-in raising KeyboardInterrupt as it is imported: its failure to load, status 2."""
    (tmp_path / "raising.py").write_text("raise KeyboardInterrupt\n")
    bot = _ruledraft("simulate", "sushi-go", "-p", "2", "-g", "5", "-b", "raising.py:B,random", "-q", cwd=tmp_path)
    assert (bot.returncode, bot.stderr) == (
        2,
        "error: bot 'raising.py:B': raising.py failed to import: KeyboardInterrupt\n",
    )
    plugin = _ruledraft("--plugin", "raising.py", "simulate", "sushi-go", "-p", "2", "-g", "5", "-q", cwd=tmp_path)
    assert (plugin.returncode, plugin.stderr) == (2, "error: plug-in 'raising.py' failed to load: KeyboardInterrupt\n")


def test_ctrl_c_while_a_bot_thinks_in_play_is_still_interrupted(tmp_path):
    """Ctrl-C while a bot's move is under way in play (its KeyboardInterrupt raised inside the bot): 130, "interrupted"."""
    from processes import interrupted, sleeping_bot, until_exists

    bot, asked = sleeping_bot(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "play", "sushi-go", "-p", "2", "--bots", bot],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None
    proc.stdin.write("1\n")
    proc.stdin.flush()
    _, err = interrupted(proc, lambda: until_exists(proc, asked))
    assert (proc.returncode, err) == (130, "interrupted\n")


def _installed(folder, group: str, line: str, module: str, source: str) -> dict[str, str]:
    """A package on PYTHONPATH whose entry point in ``group`` is ``line``: the environment that finds it."""
    import os

    info = folder / "kipkg-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: kipkg\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[{group}]\n{line}\n")
    (folder / f"{module}.py").write_text(source)
    return {**os.environ, "PYTHONPATH": str(folder)}


def test_an_installed_bot_or_plugin_raising_keyboard_interrupt_as_it_loads_failed_to_load(tmp_path):
    """An entry point's module raising KeyboardInterrupt as it is imported: its failure to load, status 2."""
    bot_env = _installed(tmp_path / "b", "ruledraft.bots", "kibot = kibots:B", "kibots", "raise KeyboardInterrupt\n")
    argv = [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "2", "-g", "3", "-q"]
    bot = subprocess.run([*argv, "-b", "kibot,random"], capture_output=True, text=True, timeout=300, env=bot_env)
    assert (bot.returncode, bot.stderr) == (
        2,
        "error: bot 'kibot': entry point 'kibot' (kibots:B) in ruledraft.bots failed to load: KeyboardInterrupt\n",
    )
    group = "ruledraft.scoring_kinds"
    kind_env = _installed(tmp_path / "k", group, "kikind = kikinds:register", "kikinds", "raise KeyboardInterrupt\n")
    kind = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=kind_env)
    assert kind.returncode == 2 and kind.stderr.startswith("error: entry point 'kikind' (kikinds:register) in ")
    assert kind.stderr.endswith("failed to load: KeyboardInterrupt\n")


BADLY_SHOWN = """
class Unshown:
    def __repr__(self):
        raise KeyboardInterrupt


class ChoosesUnshown:
    def __init__(self, seed):
        pass

    def act(self, view, seat):
        return Unshown()


class Untold(Exception):
    def __str__(self):
        raise KeyboardInterrupt


class RaisesUntold:
    def __init__(self, seed):
        pass

    def act(self, view, seat):
        raise Untold()
"""


@pytest.mark.parametrize(
    ("bot", "said"),
    [
        ("ChoosesUnshown", "chose an object of type Unshown that cannot be shown, not a legal action"),
        ("RaisesUntold", "raised Untold"),
    ],
)
def test_a_keyboard_interrupt_from_a_bots_answer_or_its_error_is_the_bots_failure(tmp_path, bot, said):
    """A move whose repr, or an error whose message, raises KeyboardInterrupt: the bot's failure, status 1."""
    (tmp_path / "unshown.py").write_text(BADLY_SHOWN)
    proc = _ruledraft(
        "simulate", "sushi-go", "-p", "2", "-g", "3", "-b", f"unshown.py:{bot},random", "-q", cwd=tmp_path
    )
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.startswith(f"error: bot 'unshown.py:{bot}' at seat 0 {said} (game seed ")


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_a_stop_signal_to_the_group_stops_an_isolated_run_and_is_no_bots_failure(tmp_path, signum, status):
    """--isolate: a signal sent to the run's process group stops the run ("interrupted after N of M games"), never
    reaching the bot's process (SIGTERM killed it, even while it started, and the run blamed the bot)."""
    import os

    from processes import interrupted, until_exists

    (tmp_path / "fast.py").write_text(
        "import pathlib\n\nclass B:\n    def __init__(self, seed):\n        pathlib.Path('made').touch()\n\n"
        "    def act(self, view, seat):\n        return view.legal_actions()[0]\n"
    )
    argv = [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "2", "-g", "1000000", "-q", "--isolate"]
    proc = subprocess.Popen(
        [*argv, "-b", "fast.py:B,fast.py:B"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    proc.send_signal = lambda sig: os.killpg(proc.pid, sig)  # type: ignore[method-assign]  # to the whole group
    _, err = interrupted(proc, lambda: until_exists(proc, tmp_path / "made"), signum)
    assert proc.returncode == status, err
    assert err.splitlines()[-1].startswith("interrupted after ") and "fast.py:B" not in err.splitlines()[-1]


_API_RUN = """
import sys
import ruledraft
from ruledraft.language.kinds import load_plugin

load_plugin("raising.py")
try:
    ruledraft.simulate("rules.yaml", players=3, games=20, bots=["random"] * 3, jobs=int(sys.argv[1]), engine="reference")
except Exception as e:
    print(type(e).__name__, e)
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_the_api_names_a_failing_plugin_alike_at_any_jobs(tmp_path, jobs):
    """ruledraft.simulate: a plug-in's rule raising as it scores is a PluginError naming its file and line, in
    this process as from a worker (it was the rule's own ValueError with jobs=1)."""
    (tmp_path / "raising.py").write_text(KI_PLUGIN.replace("raise KeyboardInterrupt", "raise ValueError('no')"))
    (tmp_path / "rules.yaml").write_text(KI_RULES)
    proc = subprocess.run(
        [sys.executable, "-c", _API_RUN, jobs], cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )
    line = KI_PLUGIN.splitlines().index("        raise KeyboardInterrupt") + 1
    assert proc.stdout == f"PluginError plug-in {tmp_path / 'raising.py'}, line {line}: ValueError: no\n", proc.stderr


STUCK_BOT = """
import os
import pathlib

MOVES = [0]


class Stuck:
    def __init__(self, seed):
        pass

    def act(self, view, seat):
        MOVES[0] += 1
        if MOVES[0] > 20:
            # written whole, then named: the test reads it as soon as the name exists
            pathlib.Path(f"stuck.{os.getpid()}").write_text(str(os.getpid()))
            os.replace(f"stuck.{os.getpid()}", "stuck")
            while True:
                pass
        return view.legal_actions()[0]
"""


@pytest.mark.parametrize(
    ("jobs", "signals"),
    [
        ("1", (signal.SIGINT, signal.SIGINT)),
        ("2", (signal.SIGTERM, signal.SIGTERM)),
        ("1", (signal.SIGKILL,)),
        ("2", ("main", signal.SIGKILL)),
    ],
    ids=["ctrl-c-twice", "sigterm-twice-jobs-2", "sigkill", "sigkill-main-process-jobs-2"],
)
def test_an_isolated_bot_stuck_in_a_loop_ends_with_the_run_however_it_ends(tmp_path, jobs, signals):
    """A bot stuck in a loop in its own process (--isolate) is ended with the run that started it: a second
    signal (which leaves at once), SIGKILL to the group; it was left running for ever."""
    import os
    import time

    from processes import until_exists

    (tmp_path / "stuck.py").write_text(STUCK_BOT)
    argv = [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "3", "-g", "2000", "--isolate", "-q"]
    proc = subprocess.Popen(
        [*argv, "-b", "stuck.py:Stuck,random", "--jobs", jobs],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        until_exists(proc, tmp_path / "stuck")
        bot = int((tmp_path / "stuck").read_text())
        if signals[0] == "main":  # to the main process alone: its workers wait on the bot's process
            os.kill(proc.pid, signals[1])
        else:
            for signum in signals:
                os.killpg(proc.pid, signum)
                time.sleep(0.3)
        proc.wait(timeout=60)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{bot}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not Path(f"/proc/{bot}").exists(), "the bot's process outlived the run"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_an_error_of_ruledrafts_own_met_in_a_plugins_code_keeps_its_cause(tmp_path, monkeypatch):
    """A bot's failure that reached the run through a plug-in's code (its card effect asking the bot) is the
    bot's, from a worker and in this process alike; the plug-in's own error is the plug-in's."""
    import importlib.util

    from ruledraft.language.kinds import registry
    from ruledraft.play.bot_specs import BotFailure
    from ruledraft.play.executor import _raise_plugin_failure, travelling_error

    path = tmp_path / "effect.py"
    path.write_text("def ask(bot):\n    bot()\n")
    spec = importlib.util.spec_from_file_location("ruledraft_plugin_effect_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    monkeypatch.setattr(registry, "_plugin_files", {str(path.resolve())})

    def failing_bot():
        raise BotFailure("bot 'mine.py:Bot' at seat 1 raised ValueError: no (game seed 7)")

    def broken():
        raise ValueError("no")

    for cause, expected in ((failing_bot, BotFailure), (broken, registry.PluginError)):
        try:
            module.ask(cause)
        except Exception as e:  # noqa: BLE001
            raised = e
        assert type(travelling_error(raised)) is expected
        with pytest.raises(expected):
            _raise_plugin_failure(raised)
            raise raised


_FROM_A_THREAD = """
import concurrent.futures
import ruledraft

def run():
    return ruledraft.simulate("sushi-go", players=2, games=3, bots=["fast.py:B", "random"], isolate=True).games

with concurrent.futures.ThreadPoolExecutor(1) as pool:
    print(pool.submit(run).result())
"""


def test_an_isolated_bot_started_from_a_thread_ignores_a_parent_named_by_whoever_started_this(tmp_path):
    """ruledraft.simulate(isolate=True) from a thread, in a process that inherited the variable naming a parent
    (an isolated bot's own tools do): its bot's process does not take that pid for its parent and end at once."""
    import os

    from ruledraft.lifeline import PARENT

    (tmp_path / "fast.py").write_text("class B:\n    def __init__(self, seed):\n        pass\n\n"
                                     "    def act(self, view, seat):\n        return view.legal_actions()[0]\n")  # fmt: skip
    env = {**os.environ, PARENT: str(os.getpid())}  # alive, and not the bot process's parent
    proc = subprocess.run(
        [sys.executable, "-c", _FROM_A_THREAD], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
    )
    assert (proc.returncode, proc.stdout) == (0, "3\n"), proc.stderr
