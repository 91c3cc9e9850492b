"""numba's cache files that cannot be read, found and removed so the code compiles afresh.

numba keeps what it compiled in files (an index, ``*.nbi``, and the machine code,
``*.nbc``) and reads them back the next time. A file cut short or overwritten with
something else than numba wrote (a full disk, a process killed while it wrote, a copy
gone wrong) makes numba raise while it reads (a pickle error, most often) instead of
compiling again, and would do so on every later run. :func:`mended` removes the files
numba failed to read and tries again.
"""

from __future__ import annotations

import contextlib
import glob
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

__all__ = ["mended", "unreadable_files"]

T = TypeVar("T")

#: the module of numba that reads (and writes) its cache files
_CACHING = "numba.core.caching"
#: its functions that read them (an error while it writes one is not the file's fault)
_READERS = frozenset({"load_overload", "_load_overload", "load", "_load_index", "_load_data"})


def unreadable_files(error: BaseException) -> list[Path]:
    """The cache files (each index and the machine code it lists) numba was reading when
    it raised ``error`` (or the error it is the cause or context of); none when the error
    was not raised reading numba's cache."""
    found: list[Path] = []
    seen: set[int] = set()
    todo: list[BaseException | None] = [error]
    while todo:
        exc = todo.pop()
        if exc is None or id(exc) in seen:
            continue
        seen.add(id(exc))
        todo += [exc.__cause__, exc.__context__]
        tb = exc.__traceback__
        while tb is not None:
            frame = tb.tb_frame
            if frame.f_globals.get("__name__") == _CACHING and frame.f_code.co_name in _READERS:
                owner = frame.f_locals.get("self")  # the file's reader, or the cache that holds it
                index = getattr(owner, "_index_path", None) or getattr(
                    getattr(owner, "_cache_file", None), "_index_path", None
                )
                if isinstance(index, str) and index.endswith(".nbi"):
                    path = Path(index)
                    found.append(path)
                    stem = glob.escape(path.name[: -len(".nbi")])
                    found.extend(sorted(path.parent.glob(f"{stem}.*.nbc")))
            tb = tb.tb_next
    return list(dict.fromkeys(found))


def mended(call: Callable[[], T], again: Callable[[], object] | None = None) -> T:
    """``call()``, which compiles numba functions or loads them from numba's cache; where
    numba raises reading a cache file, the files it was reading are removed and
    ``call()`` runs again (compiling what they held), as long as each error names files
    not removed yet. Any other error is raised, and so is one that names only files
    removed already (or that could not be removed). ``again``: run after the files are
    removed, before the call is made again (a kernel's entry point compiles into the
    cache in a child process, so the call loads it rather than compiling here)."""
    removed: set[Path] = set()
    while True:
        try:
            return call()
        except Exception as error:
            files = [path for path in unreadable_files(error) if path not in removed]
            if not files:
                raise
            for path in files:
                with contextlib.suppress(OSError):
                    path.unlink()
            removed.update(files)
            if again is not None:
                again()
