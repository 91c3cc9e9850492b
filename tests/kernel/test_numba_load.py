"""ruledraft's cached functions loaded without numba's compile-time registries
(``ruledraft.kernel.numba_load``): a small module stands for a kernel's."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("numba")

from kernel_checks import fresh_module_loader  # noqa: E402

from ruledraft.kernel import numba_link, numba_load  # noqa: E402

SOURCE = """
import numpy as np
from numba import njit


@njit(cache=True)
def total(n):
    return np.arange(n).sum()
"""


@pytest.fixture
def refreshes(monkeypatch):
    """The calls of numba's refresh of its contexts, counted from here on."""
    from numba.core import base

    calls = []
    real = base.BaseContext.refresh

    def counted(self):
        calls.append(self)
        return real(self)

    monkeypatch.setattr(base.BaseContext, "refresh", counted)
    return calls


def test_it_is_on_for_the_numba_installed():
    """The numba ruledraft installs is one the module fits: cached kernels load this way."""
    from numba.core import caching

    assert numba_load.install() is True
    assert caching.Cache.load_overload is numba_load._load_overload


def test_a_kernel_modules_function_loads_from_the_cache_without_a_refresh(tmp_path, monkeypatch, refreshes):
    """A kernel module's function compiled into the cache loads back (a new dispatcher,
    as in a new process) with no refresh of numba's contexts, and answers right."""
    small = fresh_module_loader(SOURCE, tmp_path, monkeypatch, prefix=numba_link.KERNEL_MODULE_PREFIX)
    assert small().total(10) == 45
    refreshes.clear()
    m = small()
    assert m.total(10) == 45
    assert sum(m.total.stats.cache_hits.values()) == 1 and not m.total.stats.cache_misses
    assert refreshes == []


def test_other_code_loads_as_numba_loads_it(tmp_path, monkeypatch, refreshes):
    """The same function in a module not ruledraft's (a user's, numba's own) is loaded
    by numba's own load: its contexts refreshed first."""
    small = fresh_module_loader(SOURCE, tmp_path, monkeypatch, prefix="users_module_")
    assert small().total(10) == 45
    refreshes.clear()
    m = small()
    assert m.total(10) == 45
    assert sum(m.total.stats.cache_hits.values()) == 1
    assert refreshes


def test_a_load_that_fails_without_the_refresh_is_made_as_numba_makes_it(tmp_path, monkeypatch, refreshes):
    """Where loading without the refresh raises, numba's own load (refreshed) loads the
    function in its place."""
    from numba.core import caching

    small = fresh_module_loader(SOURCE, tmp_path, monkeypatch, prefix=numba_link.KERNEL_MODULE_PREFIX)
    assert small().total(10) == 45
    real = caching.Cache._guard_against_spurious_io_errors
    failed = []

    def first_fails(self):
        if not failed:
            failed.append(self)
            raise RuntimeError("a registry this load wanted")
        return real(self)

    monkeypatch.setattr(caching.Cache, "_guard_against_spurious_io_errors", first_fails)
    refreshes.clear()
    m = small()
    assert m.total(10) == 45
    assert failed and refreshes
    assert sum(m.total.stats.cache_hits.values()) == 1 and not m.total.stats.cache_misses


_LOADED = """
import json, sys

from numba.core import base, caching

if sys.argv[1:] == ["numbas-own"]:  # numba's own load, as without ruledraft.kernel.numba_load
    from ruledraft.kernel import numba_load

    caching.Cache.load_overload = numba_load._ORIGINAL["load_overload"]

refreshed = []
real = base.BaseContext.refresh
base.BaseContext.refresh = lambda self: (refreshed.append(1), real(self))[1]

from ruledraft import simulate

summary = simulate("sushi-go", players=2, games=20, bots=["random", "greedy"], seed=3, engine="kernel")
loaded = len(refreshed)

import numba
import numpy as np


@numba.njit
def later(x):  # compiled after the load: it needs numba's registries, refreshed by its compile
    return sorted([int(v) for v in np.sort(x)])[0]


print(json.dumps([loaded, later(np.array([3, 1, 2])), summary.engine, summary.to_json()["seats"]]))
"""


def test_a_cached_kernel_plays_in_a_new_process_without_a_refresh_and_numba_compiles_after_it():
    """A new process plays Sushi Go! on its cached kernel having refreshed none of numba's
    contexts, the same figures as the process that compiled or loaded it first and as
    a process where numba loads it its own way (refreshed); a function compiled after
    that in the same process still compiles (its compile refreshes what it needs)."""
    first = subprocess.run([sys.executable, "-c", _LOADED], capture_output=True, text=True, timeout=600, check=False)
    assert first.returncode == 0, first.stderr
    second = subprocess.run([sys.executable, "-c", _LOADED], capture_output=True, text=True, timeout=600, check=False)
    assert second.returncode == 0, second.stderr
    loaded, smallest, engine, seats = json.loads(second.stdout)
    assert (loaded, smallest, engine) == (0, 1, "kernel")
    assert seats == json.loads(first.stdout)[3]
    argv = [sys.executable, "-c", _LOADED, "numbas-own"]
    own = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    assert own.returncode == 0, own.stderr
    refreshed, _, engine, own_seats = json.loads(own.stdout)
    assert refreshed > 0 and engine == "kernel" and own_seats == seats


def test_a_numba_made_otherwise_keeps_its_own_load(monkeypatch):
    """Where numba's cache takes other arguments than this module passes, it is not put on."""
    from numba.core import caching

    monkeypatch.setattr(caching.Cache, "_load_overload", lambda self, sig, target_context, extra: None)
    assert numba_load._fits() is None


def test_a_numba_of_another_version_keeps_its_own_load(monkeypatch):
    """On a numba version the module was not checked on, it is not put on."""
    import numba

    monkeypatch.setattr(numba, "__version__", "0.99.0")
    assert numba_load._fits() is None
