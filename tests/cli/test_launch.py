"""The command's entry point: an interrupt while the program is still loading ends
with "interrupted" and the usual status, never a traceback."""

from __future__ import annotations

import importlib.abc
import json
import os
import signal
import subprocess
import sys
import time

import pytest
from paths import ROOT

from ruledraft import heap
from ruledraft.cli import interrupts, launch


@pytest.fixture(autouse=True)
def _unfrozen():
    """The launcher freezes the objects of the process it runs in: this one's are let go again after each test."""
    yield
    heap.thaw()


@pytest.fixture(autouse=True)
def _handlers_back():
    """The launcher installs its handlers of the stop signals in the process it runs in: this one's are put back."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)


class _InterruptedLoading(importlib.abc.MetaPathFinder):
    """Raises the interrupt as the command line's module is looked for."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def find_spec(self, name, path=None, target=None):
        if name == "ruledraft.cli.app":
            raise self.error
        return None


def _wrapped(interrupt: BaseException) -> RuntimeError:
    """What Python 3.11 raises for an interrupt that arrives in a class's ``__set_name__``."""
    error = RuntimeError("Error calling __set_name__ on 'Field' instance '_cells' in 'Column'")
    error.__cause__ = interrupt
    return error


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (KeyboardInterrupt(), 130),
        (launch._Stopped(), 143),
        (launch._Stopped(signal.SIGHUP), 129),
        (_wrapped(KeyboardInterrupt()), 130),
        (_wrapped(launch._Stopped()), 143),
    ],
)
def test_an_interrupt_while_loading_is_one_line_and_the_status(monkeypatch, capsys, error, status):
    """Ctrl-C (130), SIGTERM (143) or SIGHUP (129) during the imports, bare or wrapped by __set_name__: "interrupted", no traceback."""
    monkeypatch.delitem(sys.modules, "ruledraft.cli.app", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_InterruptedLoading(error), *sys.meta_path])
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(SystemExit) as stop:
        launch.main()
    assert stop.value.code == status
    assert capsys.readouterr().err == "interrupted\n"
    assert signal.getsignal(signal.SIGTERM) is launch._terminated
    signal.signal(signal.SIGTERM, before)


@pytest.mark.parametrize(("error", "status"), [(KeyboardInterrupt(), 130), (launch._Stopped(), 143)])
def test_an_interrupt_while_the_command_s_own_modules_load_is_one_line_and_the_status(
    monkeypatch, capsys, error, status
):
    """Ctrl-C (130) or SIGTERM (143) inside ``load``, as it imports the modules of the
    command named (after the command line's own): "interrupted", no traceback."""
    from ruledraft.cli import app as app_module

    def interrupted(argv):
        raise error

    monkeypatch.setattr(app_module, "load", interrupted)
    assert _exit_of(launch.main).code == status
    assert capsys.readouterr().err == "interrupted\n"


def test_another_error_while_loading_is_not_taken_for_an_interrupt(monkeypatch):
    """A RuntimeError with no interrupt behind it goes on as it is (a defect to see, not "interrupted")."""
    monkeypatch.delitem(sys.modules, "ruledraft.cli.app", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_InterruptedLoading(_wrapped(ValueError("no"))), *sys.meta_path])
    before = signal.getsignal(signal.SIGTERM)
    try:
        with pytest.raises(RuntimeError, match="__set_name__"):
            launch.main()
    finally:
        signal.signal(signal.SIGTERM, before)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_while_loading_raises_the_interrupt_the_launcher_catches(signum):
    """The launcher's SIGTERM (SIGHUP) handler turns the signal into its interrupt, which carries it (status 143, 129)."""
    with pytest.raises(launch._Stopped) as raised:
        launch._terminated(signum, None)
    assert raised.value.signum == signum


def test_a_launcher_started_under_nohup_keeps_ignoring_the_terminal_closing(monkeypatch):
    """SIGHUP ignored when the launcher starts (nohup) is still ignored while the command runs; otherwise the
    command line's handler takes it."""
    from ruledraft.cli import app as app_module

    seen = []
    monkeypatch.setattr(app_module, "main", lambda: seen.append(signal.getsignal(signal.SIGHUP)))
    monkeypatch.setattr(app_module, "load", lambda argv: None)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    launch.main()
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    launch.main()
    assert seen == [signal.SIG_IGN, signal.SIG_DFL]


@pytest.mark.parametrize("after", [0.15, 0.3, 0.6, 1.0])
def test_ctrl_c_early_in_a_real_process_never_prints_a_traceback(after):
    """`python -m ruledraft simulate` stopped by SIGINT at several moments of its start."""
    p = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-g", "1000000", "--engine", "reference", "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(after)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=120)
    assert "Traceback" not in err, err
    # before Python installs its own handler the signal's default ends the process
    assert p.returncode in (130, -signal.SIGINT), (p.returncode, err)
    if p.returncode == 130:
        assert "interrupted" in err


def _exit_of(main) -> SystemExit:
    """How ``main`` ends (the signals' handlers put back as they were)."""
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        with pytest.raises(SystemExit) as stop:
            main()
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    return stop.value


def _ended(monkeypatch, run) -> SystemExit:
    """How the command line's entry point ends with ``run`` as its command (the signals' handlers as they were)."""
    from ruledraft.cli import app as app_module

    monkeypatch.setattr(app_module, "_run", run)
    return _exit_of(app_module.main)


def _ctrl_c() -> KeyboardInterrupt:
    """Ctrl-C's interrupt as the command line's handler raises it (the handler in place, the signal noted)."""
    signal.signal(signal.SIGINT, interrupts.remembered)
    try:
        interrupts.remembered(signal.SIGINT, None)
    except KeyboardInterrupt as e:
        return e
    raise AssertionError("the handler raised nothing")


@pytest.mark.parametrize(("interrupt", "status"), [(_ctrl_c, 130), (launch._Stopped, 143)])
def test_an_interrupt_wrapped_on_its_way_out_of_a_command_is_still_interrupted(monkeypatch, capsys, interrupt, status):
    """An interrupt wrapped in another error on its way out of a command: "interrupted", not an internal error."""

    def run():
        raise _wrapped(interrupt())

    stop = _ended(monkeypatch, run)
    assert stop.code == status
    assert capsys.readouterr().err == "interrupted\n"


def test_a_signal_whose_interrupt_went_astray_starts_the_run_stopped(monkeypatch):
    """A Ctrl-C before the run, its KeyboardInterrupt lost (raised in a finalizer, Python only prints it), is
    remembered by the command line's handler: the run that starts next stops at once, counting no game."""
    from strategies import bundled_ruleset

    from ruledraft.cli import interrupts
    from ruledraft.play.executor import StopSignals
    from ruledraft.play.match import Match
    from ruledraft.play.runner import simulate_match

    monkeypatch.setattr(interrupts, "PENDING", 0)
    monkeypatch.setattr(StopSignals, "early", interrupts.taken)
    with pytest.raises(KeyboardInterrupt):
        interrupts.remembered(signal.SIGINT, None)
    assert interrupts.PENDING == signal.SIGINT
    summary = simulate_match(Match.trusted(bundled_ruleset("sushi-go"), 3, ("random",) * 3, 1), 500)
    assert (summary.games, summary.signal) == (0, signal.SIGINT)
    assert interrupts.PENDING == 0  # read once: the next run plays
    assert simulate_match(Match.trusted(bundled_ruleset("sushi-go"), 3, ("random",) * 3, 1), 5).games == 5


def _launched(monkeypatch) -> tuple[bool, int, str | None, list]:
    """The launcher run in this process (the program already imported) with a command that notes what it starts
    with: (collecting, objects frozen, OPENBLAS_NUM_THREADS, what it left to run at exit)."""
    import atexit
    import gc
    import os

    from ruledraft.cli import app as app_module

    app_module.load(sys.argv[1:])  # the program already imported, the commands the launcher loads too
    seen = []

    def command():
        seen.append((gc.isenabled(), gc.get_freeze_count(), os.environ.get("OPENBLAS_NUM_THREADS")))

    at_exit: list = []
    monkeypatch.setattr(app_module, "main", command)
    monkeypatch.setattr(atexit, "register", lambda f, *args: at_exit.append(f))
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        launch.main()
    finally:
        heap.thaw()
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    ((collecting, frozen, threads),) = seen
    return collecting, frozen, threads, at_exit


def test_the_command_runs_with_the_collector_on_and_what_loading_made_frozen(monkeypatch):
    """Collection is on again for the command (its cycles are collected), what was loaded before it is frozen,
    and the check that may freeze the rest at exit is left to run."""
    import gc

    assert gc.isenabled()
    collecting, frozen, _, at_exit = _launched(monkeypatch)
    assert collecting and gc.isenabled()
    assert frozen > 10_000  # the command line's modules, at the least
    assert at_exit == [launch._frozen_at_exit]


def test_a_caller_who_turned_the_collector_off_keeps_it_off(monkeypatch):
    """A process that runs the launcher with collection switched off finds it off afterwards, as it was."""
    import gc

    gc.disable()
    try:
        collecting, _, _, _ = _launched(monkeypatch)
    finally:
        gc.enable()
    assert not collecting


def test_numpy_s_blas_threads_are_one_unless_the_user_said(monkeypatch):
    """OPENBLAS_NUM_THREADS is 1 in the command's environment (the processes it starts inherit it), unless the
    environment names a number of threads already (OPENBLAS_NUM_THREADS, or OMP_NUM_THREADS, which OpenBLAS reads)."""
    for name in launch._BLAS_THREADS:
        monkeypatch.delenv(name, raising=False)
    assert _launched(monkeypatch)[2] == "1"
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "4")
    assert _launched(monkeypatch)[2] == "4"
    monkeypatch.delenv("OPENBLAS_NUM_THREADS")
    monkeypatch.setenv("OMP_NUM_THREADS", "2")  # OpenBLAS reads it too
    assert _launched(monkeypatch)[2] is None


#: a process that runs the command with a hook of its own that runs after the launcher's at
#: exit, just before the interpreter's last collection: how many objects it has to look through
_LEFT_AT_EXIT = """
import atexit, gc, sys
atexit.register(lambda: print("left:", len(gc.get_objects()), file=sys.stderr))
sys.argv = ["ruledraft", *sys.argv[1:]]
from ruledraft.cli.launch import main
main()
"""

#: a bot that writes each of its moves to a file it opens when its module loads and
#: never closes, its module held in a reference cycle
_LOGGING_BOT = """
import os

LOG = open(os.environ["MOVES_LOG"], "w")


class Logger:
    def __init__(self, seed):
        self.module = globals()

    def act(self, view, seat):
        LOG.write(f"{view.legal_actions()[0]}\\n")
        return view.legal_actions()[0]
"""


def _left_at_exit(*args: str, env: dict | None = None) -> int:
    proc = subprocess.run(
        [sys.executable, "-c", _LEFT_AT_EXIT, *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return int(proc.stderr.rsplit("left:", 1)[1])


def test_a_run_of_the_command_s_own_code_leaves_nothing_for_the_last_collection():
    """A run that loaded only the command's own code ends with everything frozen (its last collection is free)."""
    assert _left_at_exit("simulate", "sushi-go", "--games", "20", "--engine", "reference", "-q") < 100


def test_a_bot_s_file_left_open_is_written_at_exit(tmp_path):
    """A bot from a file whose module keeps a file open: the run leaves its objects to the last collection,
    which closes the file, every move written."""
    import os

    bot = tmp_path / "logging_bot.py"
    bot.write_text(_LOGGING_BOT)
    moves = tmp_path / "moves.txt"
    env = {**os.environ, "MOVES_LOG": str(moves)}
    args = ["simulate", "sushi-go", "-p", "2", "--games", "3", "--engine", "reference", "-q"]
    left = _left_at_exit(*args, "--bots", f"{bot}:Logger,random", env=env)
    assert left > 1000
    assert len(moves.read_text().splitlines()) == 3 * 27  # three rounds of 10-card hands, the last card given


def test_a_ctrl_c_a_finalizer_swallowed_after_the_run_still_ends_the_command_interrupted(monkeypatch, capsys):
    """A Ctrl-C whose KeyboardInterrupt is raised in a finalizer (Python would print it as ignored and go on), as
    one during a report's drawing can be: no traceback, and the command still ends "interrupted", status 130, not 0."""
    from ruledraft.cli import interrupts

    class Finalized:
        def __del__(self):
            interrupts.remembered(signal.SIGINT, None)

    def run():
        Finalized()  # dropped at once: its KeyboardInterrupt is "ignored"
        raise SystemExit(0)  # as every command's end in click's standalone mode

    ignored: list[type] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda raised: ignored.append(raised.exc_type))
    stop = _ended(monkeypatch, run)
    assert ignored == []  # not reported: no traceback printed
    assert (stop.code, capsys.readouterr().err) == (130, "interrupted\n")
    assert interrupts.PENDING == 0


def test_an_error_in_a_finalizer_that_is_no_interrupt_is_reported_as_python_reports_it(monkeypatch):
    """Another error raised in a finalizer (or a KeyboardInterrupt with no signal behind it) goes to the hook
    that was in place, and the command's own exit stands."""
    from ruledraft.cli import interrupts

    class Failing:
        def __del__(self):
            raise ValueError("in a finalizer")

    def run():
        Failing()
        raise SystemExit(0)

    ignored: list[type] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda raised: ignored.append(raised.exc_type))
    assert _ended(monkeypatch, run).code == 0
    assert ignored == [ValueError] and interrupts.PENDING == 0


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["simulate", "sushi-go", "--help"], "simulate"),
        (["--plugin", "kinds.py", "validate", "x.yaml"], "validate"),
        (["--plugin=kinds.py", "--plugin", "more", "play"], "play"),
        (["--help"], None),
        (["--version", "simulate"], None),
        (["simulat", "sushi-go"], None),
        (["--plugin"], None),
        ([], None),
    ],
)
def test_the_command_run_is_read_before_any_option_but_plugin(argv, command):
    """The launcher loads one command's modules where the arguments name it first (after
    any --plugin and its value); anything else gets the whole command line."""
    from ruledraft.cli.app import command_named

    assert command_named(argv) == command


def test_each_command_alone_answers_as_the_whole_command_line():
    """The command line made with one command gives that command's --help word for word
    as the whole one does, and runs it alike."""
    from typer.testing import CliRunner

    from ruledraft.cli.app import COMMANDS, app, make_app

    env = {"COLUMNS": "80", "TERM": "dumb"}
    runner = CliRunner()
    for name in COMMANDS:
        alone = runner.invoke(make_app([name]), [name, "--help"], env=env)
        whole = runner.invoke(app, [name, "--help"], env=env)
        assert alone.exit_code == whole.exit_code == 0, alone.output
        assert alone.output == whole.output, name
    run = ["simulate", "sushi-go", "--games", "20", "--engine", "reference", "--json"]
    alone, whole = runner.invoke(make_app(["simulate"]), run), runner.invoke(app, run)
    assert json.loads(alone.stdout)["seats"] == json.loads(whole.stdout)["seats"]


def _named_after_a_run(args: tuple[str, ...], names: str, **env: str) -> set[str]:
    """What ``names`` (a Python expression of module names, read after the run) holds
    once ``ruledraft ARGS`` has run in a fresh process through the launcher."""
    script = (
        "import sys\n"
        "from ruledraft.cli import launch\n"
        "sys.argv = ['ruledraft', *sys.argv[1:]]\n"
        "try:\n"
        "    launch.main()\n"
        "finally:\n"
        f"    print(' '.join({names}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120, env={**os.environ, **env}
    )
    assert done.returncode == 0, done.stderr
    return set(done.stderr.split("\n")[-2].split())


def test_a_command_run_loads_none_of_the_other_commands_modules():
    """`ruledraft simulate` imports the modules of simulate, not those of tune, serve or
    the fourteen others; `ruledraft --help` imports every command's."""

    def loaded(*args: str) -> set[str]:
        return _named_after_a_run(args, "m for m in sys.modules if m.startswith('ruledraft.cli.')")

    run = loaded("simulate", "sushi-go", "--games", "5", "--engine", "reference", "-q")
    assert "ruledraft.cli.simulate" in run
    assert not run & {f"ruledraft.cli.{m}" for m in ("tune", "serve", "play", "compare", "quality", "tournament")}
    every = loaded("--help")
    assert {f"ruledraft.cli.{m}" for m in ("simulate", "tune", "serve", "play", "compare", "quality")} <= every


def test_every_command_alone_counts_the_lab_s_figures():
    """The command line made for one command makes the lab the runs' collector, as the
    whole one does (bench's module alone does not import the lab)."""
    script = (
        "from ruledraft.cli.app import make_app\n"
        "make_app(['bench'])\n"
        "from ruledraft.play import runner\n"
        "print(bool(runner._DEFAULT_COLLECTOR))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.stdout.strip() == "True", done.stderr


def test_a_quiet_json_run_loads_neither_the_expression_parser_nor_rich(tmp_path):
    """A quiet `simulate --json --jobs 1` of sushi-go (no expression in it, nothing laid
    out) never imports lark or rich, nor (once a run has found there are no plug-ins and
    parsed the file) importlib.metadata or PyYAML, nor what only a run of processes or a
    cluster uses (multiprocessing, logging) or importlib.resources; one of a rule file
    that writes an expression imports lark."""
    unused = ("lark", "rich", "importlib.metadata", "yaml", "multiprocessing", "logging", "importlib.resources")

    def loaded(ruleset: str) -> set[str]:
        shown = f"m for m in {unused!r} if m in sys.modules"
        # a cache of its own: no other test's process writes its memos between the two runs
        return _named_after_a_run(
            ("simulate", ruleset, "--games", "5", "--jobs", "1", "-q", "--json"), shown, XDG_CACHE_HOME=str(tmp_path)
        )

    loaded("sushi-go")  # the plug-ins' entry points and the text parsed, remembered
    assert loaded("sushi-go") == set()
    apothecary = str(ROOT / "examples" / "midnight-apothecary.yaml")
    loaded(apothecary)
    assert loaded(apothecary) - {"logging"} == {"lark"}  # (lark imports logging)


#: ``ruledraft ARGS`` through :func:`launch.program` in a fresh process that says on
#: standard error whether the interpreter's own end ran (Python audits it)
_ENDED = """
import os, sys
def heard(event, args, write=os.write):
    if event == "cpython.PyInterpreterState_Clear":
        write(2, b"interpreter's end\\n")
sys.addaudithook(heard)
sys.argv = ["ruledraft", *sys.argv[1:]]
from ruledraft.cli.launch import program
program()
"""


def _program(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", _ENDED, *args], capture_output=True, text=True, env=env, timeout=120)


def test_a_run_of_the_command_s_own_code_ends_at_once_with_its_whole_output_and_status():
    """`ruledraft` (the program) of its own code only skips the interpreter's end, and loses nothing: the whole
    JSON on standard output, status 0; an error's message and status 2."""
    done = _program("simulate", "sushi-go", "--games", "300", "--engine", "reference", "--json", "-q")
    assert done.returncode == 0, done.stderr
    assert "interpreter's end" not in done.stderr
    assert json.loads(done.stdout)["games"] == 300
    refused = _program("validate", str(ROOT / "no-such-file.yaml"))
    assert refused.returncode == 2
    assert "no-such-file.yaml: no such file" in refused.stderr
    assert "interpreter's end" not in refused.stderr


def test_a_bot_s_code_leaves_the_program_to_the_interpreter_s_end(tmp_path):
    """A bot from a file whose module keeps a file open: the program ends through the interpreter's end, which
    writes the file, every move in it."""
    bot = tmp_path / "logging_bot.py"
    bot.write_text(_LOGGING_BOT)
    moves = tmp_path / "moves.txt"
    args = ["simulate", "sushi-go", "-p", "2", "--games", "3", "--engine", "reference", "-q"]
    done = _program(*args, "--bots", f"{bot}:Logger,random", env={**os.environ, "MOVES_LOG": str(moves)})
    assert done.returncode == 0, done.stderr
    assert "interpreter's end" in done.stderr
    assert len(moves.read_text().splitlines()) == 3 * 27


def test_a_thread_the_interpreter_waits_for_leaves_the_end_to_it(monkeypatch):
    """Nothing to lose where every module since the start is the command's or Python's and no other thread
    runs; a module of a bot's, or a thread that is no daemon, is something to lose."""
    import threading

    loaded = frozenset(sys.modules)
    assert launch._nothing_to_lose(loaded) == all(
        t.daemon or t is threading.main_thread() for t in threading.enumerate()
    )
    monkeypatch.setattr(threading, "enumerate", lambda: [threading.main_thread()])
    assert launch._nothing_to_lose(loaded)
    monkeypatch.setitem(sys.modules, "ruledraft_bot_logger", sys)
    assert not launch._nothing_to_lose(loaded)
    monkeypatch.delitem(sys.modules, "ruledraft_bot_logger")
    waiting = threading.Thread(target=lambda: None)
    monkeypatch.setattr(threading, "enumerate", lambda: [threading.main_thread(), waiting])
    assert not launch._nothing_to_lose(loaded)
    waiting.daemon = True
    assert launch._nothing_to_lose(loaded)
