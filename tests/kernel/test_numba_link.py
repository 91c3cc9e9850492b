"""A kernel's inner functions kept as IR until their entry point (``ruledraft.kernel.numba_link``):
a small module stands for a kernel's, its inner functions made as codegen makes them
(no Python or C wrapper), its entry points with both."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytest.importorskip("numba")

from kernel_checks import fresh_module_loader  # noqa: E402

from ruledraft.kernel import numba_link  # noqa: E402

SOURCE = """
from numba import njit

INNER = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


@njit(cache=True, **INNER)
def step(x):
    return 3 * x + 1


@njit(cache=True, **INNER)
def twice(x):
    if x < 0:
        raise ValueError("below zero", x)
    return step(step(x))


@njit(cache=True)
def first(x):
    return twice(x) + 1


@njit(cache=True)
def second(x):
    return step(x) * 2
"""


@pytest.fixture
def small(tmp_path, monkeypatch):
    """A function to import the small module afresh (new dispatchers, as in a new process), numba's cache in ``tmp_path``."""
    return fresh_module_loader(SOURCE, tmp_path, monkeypatch, prefix=numba_link.KERNEL_MODULE_PREFIX)


def _library(dispatcher):
    (result,) = dispatcher.overloads.values()
    return result.library


def test_it_is_on_for_the_numba_installed():
    """The numba ruledraft installs is one the module fits: the kernel compiles this way."""
    from numba.core import codegen

    assert numba_link.install() is True
    assert codegen.JITCodeLibrary.finalize is numba_link._finalize


def test_an_inner_function_is_linked_into_its_entry_point_only(small):
    """Functions without wrappers are kept as IR (no machine code of their own); the
    entry point has its machine code, with theirs in it, and answers right."""
    m = small()
    assert m.first(4) == 41
    assert numba_link._inner(_library(m.step)) and numba_link._inner(_library(m.twice))
    assert not numba_link._inner(_library(m.first))
    assert _library(m.step).get_pointer_to_function("anything") == 0
    with pytest.raises(ValueError, match="below zero"):  # an inner function's exception reaches Python
        m.first(-1)


def test_an_entry_point_compiled_later_links_the_inner_functions_from_the_cache(small):
    """An inner function's cache entry is its IR: another entry point compiled later (as
    a planner's loop after the game loop) links it, loaded, not compiled again."""
    assert small().first(4) == 41
    m = small()
    assert m.second(4) == 26
    assert sum(m.step.stats.cache_hits.values()) == 1 and not m.step.stats.cache_misses
    assert numba_link._inner(_library(m.step))
    assert m.first(4) == 41


def test_an_entry_point_compiled_again_over_cached_inner_functions(tmp_path):
    """An entry point whose cache files are gone is compiled again over the inner
    functions loaded from the cache, in a process of its own; an inner function's raise
    with a value made at run time reaches Python, compiled and loaded. (On a kernel,
    test_kernel_cache.py's spoilt game loop: numba wrote a loaded inner function's
    environment through a null address.)"""
    (tmp_path / "ruledraft_kernel_small.py").write_text(SOURCE, encoding="utf-8")
    run = (
        "import sys; sys.path.insert(0, sys.argv[1]); import ruledraft.kernel.rng, ruledraft_kernel_small as m\n"
        "assert m.step.__module__.startswith(ruledraft.kernel.numba_link.KERNEL_MODULE_PREFIX)\n"
        "try:\n    m.first(-1)\nexcept ValueError as e:\n    print(*e.args)\n"
        "print(m.first(4), m.second(4))"
    )
    argv = [sys.executable, "-c", run, str(tmp_path)]
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    assert subprocess.run(argv, env=env, capture_output=True, text=True, check=True).stdout.split() == [
        "below",
        "zero",
        "-1",
        "41",
        "26",
    ]
    entry = list((tmp_path / "cache").rglob("ruledraft_kernel_small.first-*"))
    assert entry and list((tmp_path / "cache").rglob("ruledraft_kernel_small.twice-*"))
    for path in entry:
        path.unlink()
    out = subprocess.run(argv, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["below", "zero", "-1", "41", "26"]


def test_a_cfunc_keeps_its_machine_code(small):
    """A C callback (no Python wrapper, but a C one) is not an inner function: it has its
    address, and calls an inner one."""
    import numba

    m = small()
    callback = numba.cfunc("int64(int64)")(lambda x: m.step(x) + 1)
    assert callback.address != 0
    assert callback.ctypes(4) == 14


def test_a_numba_made_otherwise_keeps_its_own_methods(monkeypatch):
    """Where numba's methods take other arguments than this module passes, it is not put on."""
    from numba.core import codegen

    monkeypatch.setattr(codegen.JITCodeLibrary, "get_pointer_to_function", lambda self, name, extra: 0)
    assert numba_link._fits() is None


RECURSIVE = """
from numba import njit

INNER = {"no_cpython_wrapper": True, "no_cfunc_wrapper": True}


@njit(**INNER)
def even(n):
    if n == 0:
        return True
    return odd(n - 1)


@njit(**INNER)
def odd(n):
    if n == 0:
        return False
    return even(n - 1)


@njit
def entry(n):
    return even(n)
"""


def test_a_function_called_recursively_keeps_its_machine_code(tmp_path, monkeypatch):
    """numba calls a function recursively through a pointer it sets once machine code
    defines the function by name: the one called so is not inner, and the calls answer
    (they ended in numba's abort for an unresolved symbol)."""
    m = fresh_module_loader(RECURSIVE, tmp_path, monkeypatch, prefix=numba_link.KERNEL_MODULE_PREFIX)()
    assert m.entry(10) is True and m.entry(7) is False
    assert not numba_link._inner(_library(m.even))


def test_functions_outside_the_kernel_modules_compile_as_numba_makes_them(tmp_path, monkeypatch):
    """The same functions in a module not named as a kernel's (a user's, numba's own):
    nothing of theirs is kept as IR."""
    m = fresh_module_loader(SOURCE, tmp_path, monkeypatch, prefix="users_module_")()
    assert m.first(4) == 41
    assert not numba_link._inner(_library(m.step)) and not numba_link._inner(_library(m.twice))


def test_a_numba_of_another_version_keeps_its_own_methods(monkeypatch):
    """On a numba version the module was not checked on, it is not put on."""
    import numba

    monkeypatch.setattr(numba, "__version__", "0.99.0")
    assert numba_link._fits() is None
