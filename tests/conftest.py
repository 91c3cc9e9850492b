"""Fixtures shared by test modules."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

# The machine the suite runs on may be busy: no example fails for the time it took
# (hypothesis's default is a 200 ms deadline per example, and a health check on slow
# generation). How many examples each test draws stays its own.
settings.register_profile("ruledraft", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ruledraft")

# The kernel's tests compile the kernels they check; a run of `auto` elsewhere in the
# suite (a CLI test, say) must not start the compiler in a process of its own beside
# them (ruledraft.play.engines.BACKGROUND_COMPILE). The test of that process sets it back.
os.environ.setdefault("RULEDRAFT_BACKGROUND_COMPILE", "0")

# Nor keep a kernel's game loop as native code, nor load one (ruledraft.kernel.native:
# a build takes as long again as numba's compile): every other test plays through numba.
# tests/kernel/test_kernel_native.py builds and plays them.
os.environ.setdefault("RULEDRAFT_NATIVE", "0")

# The suite compiles dozens of kernels (every bundled rule file, example and generated
# one) and checks what they play, not how fast: numba compiles them with LLVM's lightest
# optimisation, in about six sevenths of the time, and without numba's own inlining
# (ruledraft.kernel.rng.INLINE: a tenth more off; level 0 would be quicker still, but
# numba cannot cache what it compiles at 0, and the suite's processes share the cache).
# Those kernels are kept apart from the optimised ones (ruledraft.kernel._optimisation);
# tests/kernel/test_kernel_cache.py plays an optimised kernel too. Set before numba is
# imported (its config reads it then).
os.environ.setdefault("NUMBA_OPT", "1")
# Nor does it need LLVM's loop vectorizer, which numba runs at every level: without it a
# kernel with card effects compiles in about a tenth less time (Caravan Bazaar's 28.6 s ->
# 21.8 s of CPU, Dinner for Two's 26.6 -> 24.6), and integer code computes the same (nor
# does LLVM reorder a sum of floats it was not told it may).
os.environ.setdefault("NUMBA_LOOP_VECTORIZE", "0")

#: the test files that compile many kernels, longest first. The suite's workers take
#: whole files (`--dist loadfile`) in the order collected: the long ones start first and
#: the many short ones even out the end, where a long file begun last would keep one
#: worker busy while the other idles. (pytest-xdist would otherwise order the files by
#: their number of tests, which says nothing of their time.) The files that play those
#: kernels again (test_kernel_effects.py) come after them and find them compiled.
LONGEST_FIRST = (
    "tests/kernel/test_kernel_games_examples.py",
    "tests/kernel/test_kernel_games_party_1.py",
    "tests/kernel/test_kernel_games_party_2.py",
    "tests/kernel/test_kernel_planner.py",
    "tests/kernel/test_kernel_planner_dummy_race.py",
    "tests/kernel/test_kernel_games.py",
    "tests/kernel/test_kernel_runs.py",
    "tests/kernel/test_kernel_native.py",
    "tests/kernel/test_kernel_property.py",
    "tests/kernel/test_kernel_race.py",
    "tests/kernel/test_kernel_boost_sets_games.py",
)


def pytest_configure(config: pytest.Config) -> None:
    """Keep the order :func:`pytest_collection_modifyitems` gives (pytest-xdist's loadfile
    would sort the files by how many tests each has)."""
    if hasattr(config.option, "loadscopereorder"):
        config.option.loadscopereorder = False


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The files of :data:`LONGEST_FIRST` first, in its order; the others as collected."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.nodeid.partition("::")[0], len(rank)))


@pytest.fixture(scope="module")
def client():
    """A real LocalCluster of two worker processes, and a client of it, for the whole module."""
    import dask
    from distributed import Client, LocalCluster

    from ruledraft.play.cluster import LOCAL_CLUSTER_CONFIG

    with dask.config.set(LOCAL_CLUSTER_CONFIG):  # as `--cluster local:N` starts its workers
        cluster = LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            scheduler_kwargs={"dashboard": False},
        )
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture(autouse=True)
def _signal_handlers_restored():
    """Each test leaves SIGINT and SIGTERM as it found them: a command run in this
    process may ignore both on its way out, and a process started later by another
    test would inherit the ignoring (then `terminate()` could not end it)."""
    import signal

    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    yield
    for sig, handler in saved.items():
        if handler is not None:
            signal.signal(sig, handler)
