"""The kernels kept in the cache are bounded (``ruledraft.kernel.cache_prune``): past the
most recently used, a kernel's files go from every place they are kept, but never one
used in the last day, being compiled, or locked by a process."""

from __future__ import annotations

import fcntl
import os
import shutil
import time
from pathlib import Path

import pytest

pytest.importorskip("numba")

from paths import EXAMPLES  # noqa: E402

from ruledraft import kernel  # noqa: E402
from ruledraft.kernel.cache_prune import SPARED_SECONDS, mark_used, numba_folder, prune, prune_native  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402

DAY = 24 * 3600
NOW = 1_900_000_000.0


def _kernel(cache: Path, n: int, age_days: float, used_days: float | None = None) -> str:
    """A kernel's files as a compile leaves them, made ``age_days`` ago (and marked used
    ``used_days`` ago): its module, lock, native code, bytecode and numba's files."""
    stem = f"k_{n:020x}"
    made = NOW - age_days * DAY
    kernels = cache / "kernels"
    numba = numba_folder(kernels)
    files = [
        kernels / f"{stem}.py",
        kernels / f"{stem}.lock",
        kernels / f"{stem}.native-0123456789ab.cpython-311-x86_64-linux-gnu.so",
        kernels / f"{stem}.native-0123456789ab.json",
        kernels / "__pycache__" / f"{stem}.cpython-311.pyc",
        cache / "numba" / numba / f"{stem}.play-706.py311.nbi",
        cache / "numba" / numba / f"{stem}.play-706.py311.1.nbc",
        cache / "numba-opt1" / numba / f"{stem}.play-706.py311.nbi",
    ]
    for file in files:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text("x")
        os.utime(file, (made, made))
    if used_days is not None:
        used = kernels / f"{stem}.used"
        used.write_text("")
        os.utime(used, (NOW - used_days * DAY,) * 2)
    return stem


def _left(cache: Path, stem: str) -> int:
    """How many files of the kernel ``stem`` are left in the cache."""
    return sum(1 for file in cache.rglob(f"{stem}.*"))


def _numba_dirs(cache: Path) -> list[Path]:
    return [cache / "numba", cache / "numba-opt1"]


def test_the_least_recently_used_kernels_past_the_bound_go_from_every_place(tmp_path):
    """With five kernels and room for two, the three used least recently lose every file
    (module, lock, native code, bytecode, numba's files at each level); the two kept and
    the cache's other files (the fold's native code, the schema's record) are untouched."""
    stems = [_kernel(tmp_path, n, age_days=10 + n) for n in range(5)]  # kernel 0 the newest
    others = [tmp_path / "kernels" / "fold_0123456789abcdef.native-0123456789ab.json", tmp_path / "schema-passed.json"]
    others += [tmp_path / "kernels" / "k_short.py"]  # not a kernel's digest
    for file in others:
        file.write_text("x")
    removed = prune(tmp_path / "kernels", _numba_dirs(tmp_path), keep=2, now=NOW)
    assert sorted(removed) == sorted(stems[2:])
    assert [_left(tmp_path, stem) for stem in stems] == [8, 8, 0, 0, 0]
    assert all(file.exists() for file in others)


def test_another_kernel_folders_files_in_a_shared_numba_cache_are_left_alone(tmp_path):
    """numba's cache may serve several kernels' folders (two cache homes, one
    NUMBA_CACHE_DIR): pruning one folder's kernels removes nothing of another's, whose
    modules it cannot see (the test suite's compiled kernels, say)."""
    stems = [_kernel(tmp_path, n, age_days=10 + n) for n in range(3)]
    theirs = (
        tmp_path
        / "numba"
        / numba_folder(tmp_path / "elsewhere" / "kernels")
        / "k_0123456789abcdef0123.play-1.py311.nbi"
    )
    theirs.parent.mkdir(parents=True)
    theirs.write_text("x")
    os.utime(theirs, (NOW - 100 * DAY,) * 2)
    assert sorted(prune(tmp_path / "kernels", _numba_dirs(tmp_path), keep=1, now=NOW)) == stems[1:]
    assert theirs.exists()


def test_the_numba_folder_is_the_one_numba_keeps_the_kernels_in(tmp_path):
    """numba_folder() names the folder numba's cache locator picks for a module in the
    kernels' folder (numba's rule, which the pruning must follow exactly)."""
    from numba.core.caching import _CacheLocator

    module = tmp_path / "ruledraft" / "kernels" / "k_00000000000000000001.py"
    assert numba_folder(module.parent) == _CacheLocator.get_suitable_cache_subpath(str(module))


def test_numba_files_left_without_their_module_go_by_their_own_age(tmp_path):
    """A kernel whose module is gone (deleted by hand) but whose numba files are left
    goes by the age of those files: old ones are removed, recent ones kept."""
    old, recent = _kernel(tmp_path, 1, age_days=40), _kernel(tmp_path, 2, age_days=0.5)
    for stem in (old, recent):
        for file in (tmp_path / "kernels").glob(f"{stem}.*"):
            file.unlink()
    assert prune(tmp_path / "kernels", _numba_dirs(tmp_path), keep=0, now=NOW) == [old]
    assert _left(tmp_path, old) == 0 and _left(tmp_path, recent) == 4


def test_a_kernel_marked_used_counts_from_its_mark_not_from_its_compile(tmp_path):
    """A kernel compiled long ago but marked used yesterday is kept before one compiled
    more recently and not used since: the mark says when it was last used."""
    old_but_used = _kernel(tmp_path, 1, age_days=30, used_days=1.5)
    newer = _kernel(tmp_path, 2, age_days=5)
    assert prune(tmp_path / "kernels", _numba_dirs(tmp_path), keep=1, now=NOW) == [newer]
    assert _left(tmp_path, old_but_used) == 9 and _left(tmp_path, newer) == 0


def test_a_kernel_used_in_the_last_day_is_kept_past_the_bound(tmp_path):
    """However many kernels there are, none used within a day is removed (a session of
    edits, or a test suite, uses many at once)."""
    recent = [_kernel(tmp_path, n, age_days=2, used_days=(SPARED_SECONDS - 60) / DAY) for n in range(3)]
    old = _kernel(tmp_path, 9, age_days=3)
    assert prune(tmp_path / "kernels", _numba_dirs(tmp_path), keep=1, now=NOW) == [old]
    assert all(_left(tmp_path, stem) == 9 for stem in recent)


def test_a_kernel_being_compiled_or_locked_is_kept(tmp_path):
    """A kernel whose compile is marked as under way, or whose lock a process holds (it
    is loading or compiling it), is not removed; once the lock is let go it is."""
    kept = _kernel(tmp_path, 1, age_days=1)
    compiling = _kernel(tmp_path, 2, age_days=40)
    locked = _kernel(tmp_path, 3, age_days=50)
    mark = tmp_path / "kernels" / f"{compiling}.compiling"
    mark.write_text("1")
    os.utime(mark, (NOW - 60,) * 2)
    with open(tmp_path / "kernels" / f"{locked}.lock") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert prune(tmp_path / "kernels", _numba_dirs(tmp_path), keep=1, now=NOW) == []
    assert prune(tmp_path / "kernels", _numba_dirs(tmp_path), keep=1, now=NOW) == [locked]
    assert _left(tmp_path, kept) == 8 and _left(tmp_path, compiling) == 9 and _left(tmp_path, locked) == 0


def test_mark_used_makes_then_renews_the_mark_and_leaves_the_module_alone(tmp_path):
    """mark_used() makes ``.used`` beside the module, then sets its time to now; the
    module's own time (numba's check of its cache) stays as it was."""
    stem = _kernel(tmp_path, 1, age_days=10)
    module = tmp_path / "kernels" / f"{stem}.py"
    before = module.stat().st_mtime
    mark_used(module)
    marker = module.with_suffix(".used")
    assert marker.exists() and time.time() - marker.stat().st_mtime < 60
    os.utime(marker, (NOW - 10 * DAY,) * 2)
    mark_used(module)
    assert time.time() - marker.stat().st_mtime < 60
    assert module.stat().st_mtime == before
    mark_used(tmp_path / "missing" / "k_0.py")  # a folder that is not there: nothing raised


def test_a_run_marks_its_kernel_used_and_the_compile_prunes_the_cache(monkeypatch, tmp_path):
    """Loading a ruleset's kernel marks it used; kernel.prune_cache (what the background
    compile does last) keeps it and removes an old kernel past the bound from the kernels'
    folder and from numba's caches of every optimisation level."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cache = tmp_path / "ruledraft"
    monkeypatch.setattr(kernel, "_SOURCES", {})
    monkeypatch.setattr(kernel, "_MODULES", {})
    source = tmp_path / "step1.yaml"
    shutil.copy(EXAMPLES / "tutorial" / "step1.yaml", source)
    made = kernel.compile_kernel(load_ruleset(str(source)), 2, loop=False)
    assert isinstance(made, kernel.Kernel), made
    marker = made.path.with_suffix(".used")
    assert marker.exists()
    old = _kernel(cache, 7, age_days=(NOW - time.time()) / DAY + 40)  # made 40 days ago
    monkeypatch.setattr("ruledraft.kernel.cache_prune.KEEP", 1)
    assert kernel.prune_cache(made.path) == [old]
    assert _left(cache, old) == 0
    assert made.path.exists() and marker.exists()


def _native(kernels: Path, stem: str, key: str, age_days: float, used_days: float | None = None) -> list[Path]:
    """A native build's files (library, description; a mark if ``used_days``), made
    ``age_days`` ago."""
    base = f"{stem}.native-{key}"
    files = [kernels / f"{base}.cpython-311-x86_64-linux-gnu.so", kernels / f"{base}.json"]
    if used_days is not None:
        files.append(kernels / f"{base}.used")
    for file in files:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text("x")
        days = used_days if file.suffix == ".used" else age_days
        os.utime(file, (NOW - days * DAY,) * 2)
    return files


def test_native_code_this_install_cannot_load_goes_once_unused_for_a_day(tmp_path):
    """prune_native removes the native builds of another machine key (a kernel's or the
    fold's) and the folds of another release, unused for a day; this key's kernel loops
    and its fold stay however old, another key's build used within the day stays, and
    nothing goes where native code is off (no key)."""
    kernels = tmp_path / "kernels"
    key, other, fold = "0123456789ab", "ba9876543210", f"fold_{1:016x}"
    kept = [
        *_native(kernels, f"k_{1:020x}", key, age_days=90),  # this install's: goes with its kernel, not here
        *_native(kernels, fold, key, age_days=90),  # the fold this install loads
        *_native(kernels, f"k_{2:020x}", other, age_days=90, used_days=0.5),  # another install, in use
        kernels / f"k_{1:020x}.py",  # not native code
    ]
    kept[-1].write_text("x")
    gone = [
        *_native(kernels, f"k_{1:020x}", other, age_days=3),
        *_native(kernels, fold, other, age_days=40, used_days=2),
        *_native(kernels, f"fold_{2:016x}", key, age_days=5),  # an earlier release's fold
    ]
    (kernels / f"fold_{2:016x}.native-{key}.failed").write_text("x")
    os.utime(kernels / f"fold_{2:016x}.native-{key}.failed", (NOW - 5 * DAY,) * 2)
    gone.append(kernels / f"fold_{2:016x}.native-{key}.failed")
    removed = prune_native(kernels, key, fold, now=NOW)
    assert sorted(removed) == sorted(
        [f"k_{1:020x}.native-{other}", f"{fold}.native-{other}", f"fold_{2:016x}.native-{key}"]
    )
    assert all(f.exists() for f in kept) and not any(f.exists() for f in gone)
    assert prune_native(kernels, None, fold, now=NOW + 200 * DAY) == []  # native code off here: nothing known
    assert prune_native(kernels, key, fold, now=NOW + 2 * DAY) == [f"k_{2:020x}.native-{other}"]  # its day over
    assert prune_native(tmp_path / "missing", key, fold, now=NOW) == []


def test_a_kernels_native_mark_does_not_stand_for_the_kernel_s_own(tmp_path):
    """A kernel's last use is its own ``.used``: an older mark of its native code for
    another key (same suffix) does not make it look unused."""
    recent = _kernel(tmp_path, 1, age_days=30, used_days=2)
    _native(tmp_path / "kernels", recent, "ba9876543210", age_days=60, used_days=60)
    older = _kernel(tmp_path, 2, age_days=30, used_days=10)
    assert prune(tmp_path / "kernels", _numba_dirs(tmp_path), keep=1, now=NOW) == [older]
    assert _left(tmp_path, recent) > 0
