"""numba's cache files that cannot be read (``ruledraft.kernel.cache_files``): removed and
compiled again, where numba itself would raise on every run until the cache is deleted.
A small cached function stands for a kernel's: every kernel entry point, the lab's
fold and the background compile load through :func:`mended`."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("numba")

from kernel_checks import fresh_module_loader  # noqa: E402

from ruledraft.kernel.cache_files import mended, unreadable_files  # noqa: E402

SOURCE = """
from numba import njit


@njit(cache=True)
def step(x):
    return 3 * x + 1


@njit(cache=True)
def twice(x):
    return step(step(x))
"""


@pytest.fixture
def cached(tmp_path, monkeypatch):
    """A function to import the small module afresh (new dispatchers, as in a new process), numba's cache in ``tmp_path``."""
    return fresh_module_loader(SOURCE, tmp_path, monkeypatch)


def _files(tmp_path: Path, suffix: str, function: str = "step") -> list[Path]:
    return sorted((tmp_path / "numba").rglob(f"small_kernel.{function}-*{suffix}"))


def _spoil(tmp_path: Path, part: str) -> None:
    """``step``'s index overwritten (garbage) or its machine code cut short, as a full
    disk or a killed writer leaves them."""
    if part in ("index", "both"):
        for f in _files(tmp_path, ".nbi"):
            f.write_bytes(b"garbage")
    if part in ("code", "both"):
        for f in _files(tmp_path, ".nbc"):
            f.write_bytes(f.read_bytes()[:100])


@pytest.mark.parametrize("part", ["index", "code", "both"])
def test_a_cache_file_numba_cannot_read_is_removed_and_compiled_again(cached, tmp_path, part):
    """numba raises on a spoilt cache file every time; through mended the function is
    compiled again, gives the same result, and a later load reads the new files."""
    assert cached().step(4) == 13  # compiled and saved
    assert _files(tmp_path, ".nbi") and _files(tmp_path, ".nbc")
    _spoil(tmp_path, part)
    with pytest.raises(Exception) as raised:
        cached().step(4)
    assert {p.suffix for p in unreadable_files(raised.value)} == {".nbi", ".nbc"}
    module = cached()
    assert mended(lambda: module.step(4)) == 13
    again = cached()
    assert again.step(4) == 13
    assert again.step.stats.cache_hits and not again.step.stats.cache_misses  # loaded, not compiled


def test_again_compiles_between_the_removal_and_the_retry_which_loads_what_it_compiled(cached, tmp_path):
    """With ``again`` (a kernel's entry point compiles again apart, in a child) the spoilt
    files are gone when it runs, it compiles into the cache, and the call made again
    loads from there instead of compiling in the caller."""
    assert cached().step(4) == 13
    _spoil(tmp_path, "both")
    module = cached()
    left: list[list[Path]] = []

    def again():
        left.append(_files(tmp_path, ""))
        assert cached().step(4) == 13  # a dispatcher of its own compiles and saves, as the child does

    assert mended(lambda: module.step(4), again=again) == 13
    assert left == [[]]  # removed before it ran
    assert module.step.stats.cache_hits and not module.step.stats.cache_misses


def test_an_error_not_from_numbas_cache_is_raised_and_nothing_removed(cached, tmp_path):
    """An error of the call itself passes through mended as it is, the cache untouched."""
    module = cached()
    assert module.step(1) == 4
    before = _files(tmp_path, "")

    def fails():
        module.step(2)
        raise ValueError("the caller's own")

    with pytest.raises(ValueError, match="the caller's own") as raised:
        mended(fails)
    assert unreadable_files(raised.value) == []
    assert _files(tmp_path, "") == before


def test_a_callee_whose_cache_cannot_be_read_is_compiled_again_for_a_new_caller(cached, tmp_path):
    """A caller compiled anew (a new kernel) over a cached callee whose files are spoilt
    (the shared random-number functions, say): numba raises while typing the caller;
    mended removes the callee's files only, and both compile."""
    assert cached().twice(1) == 13
    _spoil(tmp_path, "both")
    for f in _files(tmp_path, "", "twice"):
        f.unlink()
    with pytest.raises(Exception) as raised:
        cached().twice(1)
    assert unreadable_files(raised.value) and all(".step-" in p.name for p in unreadable_files(raised.value))
    module = cached()
    assert mended(lambda: module.twice(1)) == 13
    assert _files(tmp_path, ".nbi", "twice") and cached().step(4) == 13


def test_files_that_cannot_be_removed_end_in_the_error_not_a_loop(cached, tmp_path, monkeypatch):
    """Where the spoilt files cannot be removed, mended raises numba's error again
    instead of trying for ever."""
    cached().step(4)
    _spoil(tmp_path, "index")

    def refuse(self, missing_ok=False):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "unlink", refuse)
    module = cached()
    with pytest.raises(Exception) as raised:
        mended(lambda: module.step(4))
    assert unreadable_files(raised.value)


def test_an_error_writing_the_cache_removes_nothing(cached, tmp_path, monkeypatch):
    """A file numba cannot write (a full disk) is not an unreadable one: the error is
    raised and the cached signatures already there stay."""
    import errno

    from numba.core import caching

    module = cached()
    assert module.step(4) == 13
    before = _files(tmp_path, "")

    def full(self, filepath):
        raise OSError(errno.ENOSPC, "No space left on device", filepath)

    monkeypatch.setattr(caching.IndexDataCacheFile, "_open_for_write", full)
    with pytest.raises(OSError, match="No space left"):
        mended(lambda: module.step(4.5))  # a new signature, saved beside the first
    assert _files(tmp_path, "") == before
