"""Where ruledraft keeps what it remembers between runs: ``$XDG_CACHE_HOME/ruledraft``
(else ``~/.cache/ruledraft``): the compiled kernels (:mod:`ruledraft.kernel`), the
rule files the schema passed (:mod:`ruledraft.language.schema_passed`) and the texts
parsed (:mod:`ruledraft.language.yaml_parsed`). Deleting it costs only the work of
remaking what it held."""

from __future__ import annotations

import errno
import os
from pathlib import Path


def cache_dir() -> Path:
    """``$XDG_CACHE_HOME/ruledraft`` (else ``~/.cache/ruledraft``). A relative
    ``XDG_CACHE_HOME`` is ignored, as the XDG specification asks: it would put a cache
    in every directory a command is run from."""
    base = os.environ.get("XDG_CACHE_HOME", "")
    if not os.path.isabs(base):
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ruledraft"


def write_whole(path: Path, data: bytes) -> None:
    """``data`` written to ``path`` whole: into a file of its own, then renamed into place,
    so that a reader (another run) never sees half of one; the folder is made first.
    OSError where it cannot be written (the new file removed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    new = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        new.write_bytes(data)
        os.replace(new, path)
    except OSError:
        new.unlink(missing_ok=True)
        raise


#: what a write into the cache fails with when there is no room: the disk or the quota full
_NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT})


def cache_full(error: BaseException) -> str | None:
    """Why the kernel cannot be kept, where ``error`` (raised compiling or loading it) is a
    write into the cache that found no room (the disk or the user's quota full), in the
    words the kernel's cache refusal uses (``kernel.cache_refusal``); None for any other
    error. numba names no file when its cache file cannot be written: the folder named is
    then where numba writes (``NUMBA_CACHE_DIR``, which may lie on another disk, else
    under this cache)."""
    if not isinstance(error, OSError) or error.errno not in _NO_ROOM:
        return None
    if isinstance(error.filename, str):
        folder = Path(error.filename).parent
    else:
        folder = Path(os.environ.get("NUMBA_CACHE_DIR") or cache_dir())
    return f"its cache cannot be written ({folder}: {os.strerror(error.errno)})"
