"""The kernels kept in the cache, bounded: each edit of a rule file makes a kernel of
its own (its numbers are compiled in), a few megabytes with numba's files and its
native code, and a new release of ruledraft makes every kernel anew. Without a bound,
a designer's afternoon of edits would be kept for good.

A kernel is the files named by its digest (``k_<digest>``): beside its module in
``kernels/`` (the module, its lock, its native code and what the background compile
leaves), its bytecode in ``kernels/__pycache__/``, and numba's index and machine code
in a folder of numba's cache. A run that loads a kernel marks it used
(:func:`mark_used`); the background compile, having added a kernel, removes the files
of those used least recently past the :data:`KEEP` most recent (:func:`prune`). A
kernel used in the last :data:`SPARED_SECONDS`, being compiled, or locked by a process
is never removed. A removed kernel costs only a compile, should its rule file come back.

Native code (``<stem>.native-<key>``: a kernel's game loop or the lab's fold, built for
one machine key, which a new install of numba changes) is marked used as it is loaded
(``.native-<key>.used``); :func:`prune_native` removes the builds this install can no
longer load (another key, or a fold of another release) once unused for a day.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from ruledraft.kernel import COMPILING_SECONDS

#: the kernels kept, the most recently used first (each a few megabytes: some hundreds in all)
KEEP = 64

#: a kernel used this recently is kept however many there are (a day)
SPARED_SECONDS = 24 * 3600

_KERNEL = re.compile(r"k_[0-9a-f]{20}")

#: a file of native code: its stem (a kernel's or the fold's) and the machine key it was built for
_NATIVE = re.compile(r"(k_[0-9a-f]{20}|fold_[0-9a-f]{16})\.native-([0-9a-f]{12})\.")


def mark_used(path: Path) -> None:
    """Mark the kernel whose module is kept at ``path`` as used now (a file beside it,
    ``.used``: the module's own time is numba's check of its cache, never touched)."""
    marker = path.with_suffix(".used")
    with contextlib.suppress(OSError):  # a cache that cannot be written: nothing is pruned there either
        try:
            os.utime(marker)
        except FileNotFoundError:
            marker.touch()


def numba_folder(kernels: Path) -> str:
    """The folder of a numba cache that holds the files of the modules in ``kernels``:
    numba names it after the modules' folder and a digest of its absolute path
    (``_CacheLocator.get_suitable_cache_subpath``), so several kernels' folders (two
    cache homes, one ``NUMBA_CACHE_DIR``) share a numba cache without sharing a folder."""
    where = os.path.abspath(kernels)
    return f"{os.path.basename(where)}_{hashlib.sha1(where.encode()).hexdigest()}"


def _stem(name: str) -> str | None:
    """The kernel a file of the cache belongs to (``k_<digest>``), or None."""
    match = _KERNEL.match(name)
    return match.group(0) if match and name[match.end() : match.end() + 1] == "." else None


def _last_used(kernels: Path, files: list[Path]) -> float:
    """When a kernel was last used: its mark's time, else its module's (when it was made;
    a kernel kept before marks), else the newest of its files' (its module gone: numba's
    files left behind; 0: none can be read)."""
    times, newest = {}, 0.0
    for file in files:
        with contextlib.suppress(OSError):
            made = file.stat().st_mtime
            newest = max(newest, made)
            if file.parent == kernels:
                times[file.name] = made  # (its native code's marks are named apart: .native-<key>.used)
    stem = _stem(files[0].name) if files else None
    return times.get(f"{stem}.used", times.get(f"{stem}.py", newest))


@contextlib.contextmanager
def _claimed(kernels: Path, stem: str, now: float) -> Iterator[bool]:
    """Whether the kernel is free to remove, its lock held meanwhile: False where a
    process compiles it (a fresh compile mark) or holds its lock (it is loading or
    compiling it); a process that wants it while its files go waits for the lock."""
    with contextlib.suppress(OSError):
        if now - (kernels / f"{stem}.compiling").stat().st_mtime < COMPILING_SECONDS:
            yield False
            return
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not on this system: nothing can tell, so nothing is removed
        yield False
        return
    try:
        held = open(kernels / f"{stem}.lock")  # noqa: SIM115 - closed below (read: never made here)
    except FileNotFoundError:
        yield True
        return
    except OSError:
        yield False
        return
    with held:
        try:
            fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(held, fcntl.LOCK_UN)


def prune(kernels: Path, numba_dirs: Iterable[Path], keep: int = KEEP, now: float | None = None) -> list[str]:
    """Remove the files of the kernels in ``kernels`` (the folder of their modules) used
    least recently past the ``keep`` most recent, with their bytecode and their files in
    each of ``numba_dirs`` (numba's caches: this folder's kernels are in
    :func:`numba_folder` of each; another folder's are not touched), sparing a kernel
    used in the last :data:`SPARED_SECONDS` and one a process is compiling or holds.
    Returns the kernels removed. Never raises for a file: one that cannot be removed is
    left."""
    now = time.time() if now is None else now
    families: dict[str, list[Path]] = {}
    places = [kernels, kernels / "__pycache__", *(numba_dir / numba_folder(kernels) for numba_dir in numba_dirs)]
    for place in places:
        with contextlib.suppress(OSError):
            for file in place.iterdir():
                stem = _stem(file.name)
                if stem is not None:
                    families.setdefault(stem, []).append(file)
    last = {stem: _last_used(kernels, files) for stem, files in families.items()}
    removed = []
    for stem in sorted(families, key=last.__getitem__, reverse=True)[keep:]:
        if now - last[stem] < SPARED_SECONDS:
            continue
        with _claimed(kernels, stem, now) as free:
            if not free:
                continue
            for file in sorted(families[stem], key=lambda f: f.suffix == ".py"):  # the module last
                with contextlib.suppress(OSError):
                    file.unlink()
        removed.append(stem)
    return removed


def prune_native(kernels: Path, key: str | None, fold: str, now: float | None = None) -> list[str]:
    """Remove the native code in ``kernels`` that this install cannot load: built for
    another machine key than ``key`` (the processor, Python, numba or numpy changed:
    another install), or the lab's fold of another release than the one named ``fold``
    (``fold_<digest>``), once none of it was used for :data:`SPARED_SECONDS` (another
    install on this machine that still runs marks its own as it loads them). A kernel's
    native code for this key goes with its kernel (:func:`prune`). Returns the builds
    removed (``<stem>.native-<key>``); never raises for a file. Nothing where ``key`` is
    None (native code is off here: which builds this machine loads is not known)."""
    if key is None:
        return []
    now = time.time() if now is None else now
    builds: dict[tuple[str, str], list[Path]] = {}
    with contextlib.suppress(OSError):
        for file in kernels.iterdir():
            match = _NATIVE.match(file.name)
            if match is not None:
                builds.setdefault((match.group(1), match.group(2)), []).append(file)
    removed = []
    for (stem, built_for), files in sorted(builds.items()):
        if built_for == key and (stem == fold or stem.startswith("k_")):
            continue  # this install's: a fold it loads, a kernel's kept with its kernel
        last = 0.0
        for file in files:
            with contextlib.suppress(OSError):
                last = max(last, file.stat().st_mtime)
        if now - last < SPARED_SECONDS:
            continue
        for file in files:
            with contextlib.suppress(OSError):
                file.unlink()
        removed.append(f"{stem}.native-{built_for}")
    return removed
