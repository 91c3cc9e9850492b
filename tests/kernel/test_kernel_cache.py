"""The kernel's cache: kernels of each optimisation level kept apart (the suite compiles
lighter, see conftest.py; test_kernel_runs.py's background compile makes and plays the
optimised one), one process compiling a kernel at a time, and a run's compile ended by
Ctrl-C."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("numba")

from paths import EXAMPLES  # noqa: E402

from ruledraft import kernel  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402

#: the tutorial's first game (two cards, one rule): the tests of the cache's workings that
#: compile a kernel into an empty cache compile this one, a third quicker than Sushi Go!'s
SMALL = str(EXAMPLES / "tutorial" / "step1.yaml")


def _kernel_file(monkeypatch, level: str | None) -> tuple[str, str]:
    """The kernel file's name and numba's directory of sushi-go with ``NUMBA_OPT`` at ``level``."""
    if level is None:
        monkeypatch.delenv("NUMBA_OPT", raising=False)
    else:
        monkeypatch.setenv("NUMBA_OPT", level)
    monkeypatch.setattr(kernel, "_SOURCES", {})
    made = kernel._source(load_ruleset("sushi-go"))
    assert not isinstance(made, kernel.Unsupported), made
    return made[1].name, kernel._numba_dir().name


@pytest.mark.parametrize("given", ["relative/cache", "", None])
def test_a_relative_or_empty_xdg_cache_home_is_ignored(monkeypatch, tmp_path, given):
    """A relative XDG_CACHE_HOME (or an empty one, or none) means ~/.cache, as the XDG
    specification asks, so no command leaves a cache in the directory it ran from; an
    absolute one is used as it is."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(tmp_path)
    if given is None:
        monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CACHE_HOME", given)
    assert kernel.cache_dir() == tmp_path / "home" / ".cache" / "ruledraft"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "elsewhere"))
    assert kernel.cache_dir() == tmp_path / "elsewhere" / "ruledraft"


def test_kernels_of_each_optimisation_level_are_kept_apart(monkeypatch, tmp_path):
    """A kernel compiled at a lighter optimisation (NUMBA_OPT=1, the suite's) has a file and a
    numba cache of its own, which a run at numba's default level never loads; 3 is the default."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    default = _kernel_file(monkeypatch, None)
    assert default[1] == "numba"
    assert _kernel_file(monkeypatch, "3") == default
    unoptimised = _kernel_file(monkeypatch, "1")
    assert unoptimised[1] == "numba-opt1"
    assert unoptimised[0] != default[0]


def test_the_static_compiled_parts_are_cached_by_optimisation_level(tmp_path):
    """The random streams, the lab's fold and the roll-out's re-deal, imported on their own
    (as a test file or a script does), keep their machine code in the cache directory of the
    optimisation level, not in the package's ``__pycache__`` where a run at another level
    would load it."""
    probe = (
        "from ruledraft.kernel import fold, rng, rollout\n"
        "for f in (fold.lab_block, rng.mt_seed, rollout._arrange):\n"
        "    print(f._cache._cache_path)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path)}
    for level, folder in ((None, "numba"), ("1", "numba-opt1"), ("3", "numba")):
        env.pop("NUMBA_OPT", None)
        if level is not None:
            env["NUMBA_OPT"] = level
        out = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
        paths = out.stdout.split()
        assert len(paths) == 3, out
        for path in paths:
            assert Path(path).parent == tmp_path / "ruledraft" / folder, (level, path)


_APART_COUNT = """
import glob, os, sys
from ruledraft import kernel
from ruledraft.language.loading import load_ruleset
calls = []
compile_apart = kernel._compile_apart
kernel._compile_apart = lambda *args: (calls.append(args), compile_apart(*args))[1]
assert isinstance(kernel.compile_kernel(load_ruleset(sys.argv[1]), 2, apart=True), kernel.Kernel)
print(len(calls))
if sys.argv[2:] == ["spoil"]:  # the game loop's index and machine code overwritten, as a full disk leaves them
    for path in glob.glob(os.path.join(kernel._numba_dir(), "**", "k_*.play-*.nb*"), recursive=True):
        with open(path, "wb") as f:
            f.write(b"garbage")
"""


def test_a_game_loop_whose_cache_cannot_be_read_is_compiled_again_apart(tmp_path):
    """A run's game loop whose cache files numba cannot read is compiled again in a child
    process, as the first time (so a Ctrl-C ends that compile too), then loaded: one
    compile apart for the first run, one for the run that finds the files spoilt, none
    once they are whole again."""
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path)}

    def compiles_apart(*args: str) -> int:
        out = subprocess.run(
            [sys.executable, "-c", _APART_COUNT, SMALL, *args], env=env, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return int(out.stdout)

    assert compiles_apart("spoil") == 1
    assert compiles_apart() == 1
    assert compiles_apart() == 0


_HOLDER = """
import sys, time
from pathlib import Path
from ruledraft.kernel import compiling
with compiling(Path(sys.argv[1])):
    print("in", time.time(), flush=True)
    sys.stdin.readline()  # held until told
    print("out", time.time(), flush=True)
"""


def _holder(path) -> subprocess.Popen:
    """A process that takes the compile of the kernel at ``path``, holding it until a line comes in."""
    return subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def _times(out: str) -> tuple[float, float]:
    """When a holder went in and came out, from its output."""
    (went_in, t_in), (came_out, t_out) = (line.split() for line in out.splitlines())
    assert (went_in, came_out) == ("in", "out")
    return float(t_in), float(t_out)


def test_a_second_process_waits_for_the_kernel_being_compiled(tmp_path):
    """While one process holds a kernel's compile, another wanting the same kernel waits
    until it is done (then loads what the first left in the cache); one wanting a
    different kernel does not wait."""
    path = tmp_path / "k_same.py"
    first = _holder(path)
    went_in = first.stdout.readline()
    assert went_in.startswith("in ")
    other, _ = _holder(tmp_path / "k_other.py").communicate("\n", timeout=60)  # the first still holds its own
    second = _holder(path)
    second.stdin.write("\n")
    second.stdin.flush()
    time.sleep(0.5)
    assert second.poll() is None  # waiting for the first
    first_out, _ = first.communicate("\n", timeout=60)
    second_out, _ = second.communicate(timeout=60)
    assert first.returncode == second.returncode == 0
    assert _times(second_out)[0] >= _times(went_in + first_out)[1]  # in only once the first was out
    assert _times(other)[1] > 0


@pytest.mark.skipif(not os.path.exists("/proc/self/cmdline"), reason="finds the compiler in /proc")
def test_ctrl_c_during_the_kernel_compile_ends_the_run_at_once(tmp_path):
    """A run that compiles its kernel (an empty cache, --engine kernel) compiles it in a
    child process: SIGINT to the terminal's process group then ends the run within
    seconds, as one stopped before its first game ("interrupted after 0 of N games", its
    summary of no game), status 130, no traceback or message from the compiler, and no
    process left behind."""
    args = ["simulate", SMALL, "-p", "4", "-g", "5000", "--engine", "kernel"]
    out, err = _interrupted_while_compiling(args, tmp_path, b"--game-loop", within=120)
    assert err.strip() == "interrupted after 0 of 5000 games"
    assert out.startswith("0 games in ") and out.rstrip().endswith("interrupted after 0 of 5000 games")


@pytest.mark.skipif(not os.path.exists("/proc/self/cmdline"), reason="finds the compiler in /proc")
def test_ctrl_c_during_the_compile_of_the_planners_loop_or_the_rollout_ends_the_run_at_once(tmp_path):
    """The planner's game loop and ismcts's roll-out, compiled the first time they are
    used, are compiled in a child process too: SIGINT during either compile ends the run
    before its first game ("interrupted after 0 of N games"), status 130 and no message
    from the compiler (the game loop they need first is compiled on the way, into the
    same cache)."""
    # the planner on the kernel; ismcts on the reference engine, its roll-outs on the kernel
    for bots, engine, flag in (
        ("planner", "kernel", b"--planner"),
        ("ismcts:kernel=yes,random", "reference", b"--rollout"),
    ):
        args = ["simulate", SMALL, "-p", "2", "-g", "5000", "--engine", engine, "--bots", bots]
        # at once: the rest of the module is compiled already, so this compile is short
        out, err = _interrupted_while_compiling(args, tmp_path, flag, within=240, into=0.2)
        assert err.strip() == "interrupted after 0 of 5000 games", (flag, err)
        assert out.startswith("0 games in "), (flag, out)
    # on two processes the planner's loop (not cached: its compile above was interrupted)
    # is compiled before the workers start (they load it), so a signal as its child starts, before any code of its own has run, ends the
    # run before its first game: its summary of no game, no report made
    args = ["simulate", SMALL, "-p", "2", "-g", "20000", "--jobs", "2", "--engine", "kernel", "--bots", "planner"]
    args += ["--report", str(tmp_path / "report")]
    out, err = _interrupted_while_compiling(args, tmp_path, b"--planner", within=240, into=0.0)
    assert err.strip() == "interrupted after 0 of 20000 games", err
    assert out.startswith("0 games in ") and "report: none written, no game finished" in out
    assert not (tmp_path / "report").exists()  # checked before the run, made only for a report
    assert "Exception ignored" not in err and "Traceback" not in err


def test_a_compile_apart_ends_when_the_process_waiting_on_it_is_killed(monkeypatch, tmp_path):
    """A compile apart started for a process ends when that process is killed, with no
    Ctrl-C of its own: a run's worker may start one after the Ctrl-C it ignores (waiting
    for another worker's compile), and the run kills its workers as it stops."""
    import signal

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setattr(kernel, "_SOURCES", {})
    made = kernel._source(load_ruleset(SMALL))
    assert not isinstance(made, kernel.Unsupported), made
    kernel._write(*made)  # the module's file, nothing compiled: the planner's loop takes a while
    waiting = "import sys; from pathlib import Path; from ruledraft import kernel; kernel._compile_apart(Path(sys.argv[1]), 'play_planner')"
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path)}
    run = subprocess.Popen([sys.executable, "-c", waiting, str(made[1])], env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while not _compilers(run.pid, b"--planner"):
            assert run.poll() is None, "the waiting process ended by itself"
            assert time.monotonic() < deadline, "no compiler started"
            time.sleep(0.05)
        time.sleep(0.5)  # into its imports
        os.kill(run.pid, signal.SIGKILL)
        run.wait(10)
        deadline = time.monotonic() + 5  # a compile left running takes longer
        while _compilers(run.pid, b"--planner"):
            assert time.monotonic() < deadline, "the compiler was left running"
            time.sleep(0.1)
    finally:
        with contextlib.suppress(OSError):
            os.killpg(run.pid, signal.SIGKILL)


def _interrupted_while_compiling(
    args: list[str], cache: Path, flag: bytes, within: float, into: float = 1.0
) -> tuple[str, str]:
    """``ruledraft ARGS`` (its cache in ``cache``) sent SIGINT, as a terminal sends it to
    its process group, ``into`` seconds into the compile the child ``flag`` shows: its
    output and errors, once it has ended with status 130 and the compiler with it."""
    import signal

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(cache)}
    run = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    try:
        deadline = time.monotonic() + within
        while not _compilers(run.pid, flag):
            assert run.poll() is None, run.communicate()
            assert time.monotonic() < deadline, f"no {flag!r} compiler started"
            time.sleep(0.1)
        time.sleep(into)  # into the compile
        os.killpg(run.pid, signal.SIGINT)
        out, err = run.communicate(timeout=30)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
    assert run.returncode == 130, err
    deadline = time.monotonic() + 5  # a compile left running would take longer
    while _compilers(run.pid, flag):  # the child ends on the same signal
        assert time.monotonic() < deadline, "the compiler was left running"
        time.sleep(0.1)
    return out, err


def _compilers(pgid: int, flag: bytes = b"--game-loop") -> list[str]:
    """The kernel compilers (``python -m ruledraft.kernel --game-loop``, or ``flag``) running in process group ``pgid``."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            if os.getpgid(int(entry)) != pgid:
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                args = f.read().split(b"\0")
        except OSError:
            continue
        if flag in args:
            found.append(entry)
    return found


def test_the_batch_environment_and_the_roll_out_never_compile_the_game_loop(monkeypatch):
    """The batch environment and ismcts's roll-out play entry points of their own: making
    them ready leaves the game loop uncompiled (a compile of its own, half a minute at
    full optimisation), which the kernel's first game then makes ready, once."""
    import attrs

    from ruledraft.batch_env import BatchDraftEnv
    from ruledraft.engine.state import Game
    from ruledraft.play.ismcts import kernel_rollouts

    readied: list[Path] = []
    ways: list[bool] = []
    ready_loop = kernel._ready_loop
    monkeypatch.setattr(kernel, "_LOOPS_READY", set())  # as in a process that has played no kernel game
    monkeypatch.setattr(
        kernel,
        "_ready_loop",
        lambda path, apart: (readied.append(path), ways.append(apart), ready_loop(path, apart))[2],
    )

    def fresh():  # a ruleset object of its own: nothing of it remembered by the process
        return attrs.evolve(load_ruleset("sushi-go"))

    env = BatchDraftEnv(Game(fresh(), 2), games=2)
    env.reset(seed=1)
    assert kernel_rollouts(Game(fresh(), 3), compile=True) is not None
    assert readied == []
    made = kernel.compile_kernel(fresh(), 2, apart=True, loop=False)
    assert isinstance(made, kernel.Kernel) and readied == []
    assert made.play([1, 2], ["random", "random"]).totals.shape == (2, 2)
    assert readied == [made.path] and ways == [True]
    made.play([3], ["random", "random"])
    kernel.compile_kernel(fresh(), 4)
    assert readied == [made.path]  # once a process
    # a kernel made without the loop in this process's way is made ready in the next caller's
    monkeypatch.setattr(kernel, "_LOOPS_READY", set())
    again = fresh()
    assert kernel.compile_kernel(again, 3, loop=False) is kernel.compile_kernel(again, 3, apart=True)
    assert ways == [True, True]
