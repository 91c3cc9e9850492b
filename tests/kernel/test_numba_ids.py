"""numba's function ids drawn at random (``ruledraft.kernel.numba_ids``): code compiled
by two processes never shares a name, so numba's cache never mixes their environments."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

from ruledraft.kernel import numba_ids, numba_link  # noqa: E402

#: ``f``'s Python wrapper boxes an array, reading its dtype from the function's
#: environment; ``g`` calls ``f``, so its cache entry carries a copy of that environment
SOURCE = """
import numpy as np
from numba import njit


@njit(cache=True)
def f(n):
    return np.zeros(n, np.uint32)


@njit(cache=True)
def g(n):
    return f(n).sum() + n
"""

#: one process: ruledraft's kernel modules imported (or, with "plain", numba's own ids
#: put back), then each step of argv[2]: call f, call g, or drop f's cache entry
STEPS = """
import glob, itertools, os, sys
sys.path.insert(0, sys.argv[1])
import ruledraft.kernel.rng
if sys.argv[3] == "plain":
    from numba.core.bytecode import FunctionIdentity
    FunctionIdentity._unique_ids = itertools.count(1)
import small_module as m
for step in sys.argv[2].split(","):
    if step == "f":
        print(m.f(3).tolist())
    elif step == "g":
        print(m.g(3))
    else:
        for path in glob.glob(os.path.join(os.environ["NUMBA_CACHE_DIR"], "**", "small_module.f-*"), recursive=True):
            os.remove(path)
"""


def _steps(tmp_path, steps, ids="random"):
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    argv = [sys.executable, "-c", STEPS, str(tmp_path), steps, ids]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("ids", ["random", "plain"])
def test_a_function_compiled_again_after_a_caller_was_loaded_keeps_its_constants(tmp_path, ids):
    """The three processes CI met: one compiles f, then g (both cached); f's entry is lost
    (a new installation's path) and a second process loads g, then compiles f again; a
    third loads g, then that f. With numba's counted ids the second f had g's name for its
    environment, and the third process's call of f fails ("'descr' is NULL"); with random
    ids every call returns the array. (numba's own ids are shown to collide on the
    numba versions the kernel's numba modules were checked on: another may number
    its compiles otherwise.)"""
    if ids == "plain" and not numba_link.tested_numba():
        pytest.skip("numba's own ids are shown to collide only on the numba versions checked")
    (tmp_path / "small_module.py").write_text(SOURCE, encoding="utf-8")
    first = _steps(tmp_path, "f,g,drop", ids)
    assert first.returncode == 0 and first.stdout.split("\n")[:2] == ["[0, 0, 0]", "3"], first.stderr
    second = _steps(tmp_path, "g,f", ids)
    assert second.returncode == 0 and second.stdout.split("\n")[:2] == ["3", "[0, 0, 0]"], second.stderr
    third = _steps(tmp_path, "g,f", ids)
    if ids == "plain":  # numba's own ids: the collision this module prevents, still there
        assert third.returncode != 0 and "'descr' is NULL" in third.stderr, third.stdout + third.stderr
    else:
        assert third.returncode == 0 and third.stdout.split("\n")[:2] == ["3", "[0, 0, 0]"], third.stderr


def test_ids_are_installed_distinct_and_drawn_afresh_in_a_forked_child():
    """Importing the kernel's modules puts the random ids on numba; a thousand drawn are
    distinct and positive, and a forked child does not draw what its parent draws."""
    from numba.core.bytecode import FunctionIdentity

    import ruledraft.kernel.rng  # noqa: F401

    assert numba_ids.install() and isinstance(FunctionIdentity._unique_ids, numba_ids.RandomIds)
    drawn = [next(FunctionIdentity._unique_ids) for _ in range(1000)]
    assert len(set(drawn)) == 1000 and all(0 < x < 2**62 for x in drawn)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its next id, to the parent
        os.close(read)
        os.write(write, str(next(FunctionIdentity._unique_ids)).encode())
        os._exit(0)
    os.close(write)
    mine = next(FunctionIdentity._unique_ids)
    with os.fdopen(read) as f:
        childs = int(f.read())
    os.waitpid(pid, 0)
    assert childs != mine and childs not in drawn


def test_a_numba_whose_ids_are_not_a_counter_keeps_them(monkeypatch):
    """Where numba's ids are not the counter this module knows, it leaves them alone."""
    from numba.core.bytecode import FunctionIdentity

    other = iter(range(5, 10**6))
    monkeypatch.setattr(FunctionIdentity, "_unique_ids", other)
    assert numba_ids.install() is False and FunctionIdentity._unique_ids is other
