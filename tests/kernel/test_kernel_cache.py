"""The kernel's cache: kernels of each optimisation level kept apart, one process
compiling a kernel at a time, and the optimised kernel (what users run; the suite
compiles with less optimisation, see conftest.py) playing the reference's games."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time

import pytest

pytest.importorskip("numba")

from paths import TESTS  # noqa: E402

from ruledraft import kernel  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402


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


_OPTIMISED = """
import sys
sys.path.insert(0, sys.argv[1])
from kernel_checks import assert_same_games
from ruledraft.kernel import compile_kernel, _numba_dir
from ruledraft.language.loading import load_ruleset
from ruledraft.play.runner import game_seed
made = compile_kernel(load_ruleset("sushi-go"), 4)
assert _numba_dir().name == "numba", _numba_dir()
assert_same_games(made, ["greedy", "random", "value", "first"], [game_seed(5, i) for i in range(150)], scorings=True)
print("same games")
"""


def test_the_optimised_kernel_plays_the_reference_games(tmp_path):
    """The kernel as users get it (numba's default optimisation, not the suite's) plays
    the reference engine's games: greedy, random, value and first, 150 seeds."""
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_OPT", "NUMBA_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = str(tmp_path)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_OPTIMISED), str(TESTS)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == "same games\n"
