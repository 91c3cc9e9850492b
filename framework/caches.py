"""Where ruledraft keeps what it remembers between runs: ``$XDG_CACHE_HOME/ruledraft``
(else ``~/.cache/ruledraft``): the compiled kernels (:mod:`ruledraft.kernel`), the
rule files the schema passed (:mod:`ruledraft.language.schema_passed`) and the texts
parsed (:mod:`ruledraft.language.yaml_parsed`). Deleting it costs only the work of
remaking what it held."""

from __future__ import annotations

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
