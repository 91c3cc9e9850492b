"""The rule files parsed before, remembered between runs.

Reading a rule file's YAML while keeping the line and column of every value is, after
the schema's check (:mod:`ruledraft.language.schema_passed`), the longest part of
loading one: about 0.02 s of processor time for Sushi Go!, as much as a few thousand
of its games on the kernel. What a text parsed into follows from the text alone (and
the loader's limits and code): a text that parsed is remembered, by a digest of it,
the name its messages give it, the limits, ruledraft's version and Python's, as a file
in ``parsed/`` in the cache directory (:mod:`ruledraft.caches`; the last :data:`KEPT`):
its data and where each value sits. A later run that reads the same text takes them
from there. A text that did not parse is never remembered: its problems are found,
and said, every time. The files are :mod:`marshal`'s, which holds plain values only
(what is read back cannot run anything); one that cannot be read, or is not what this
module wrote, is removed and the text parsed again. The cache is the user's own, as
the compiled kernels beside it are.
"""

from __future__ import annotations

import contextlib
import hashlib
import marshal
import os
import sys
from pathlib import Path
from typing import Any

#: how many parsed texts are kept (the most recently read)
KEPT = 256
#: a text longer than this (characters) is parsed every time, not remembered
LARGEST = 64 * 1024
#: nor is one whose data and places take more than this (bytes): the memo stays under 64 MB
LARGEST_KEPT = 256 * 1024
#: ``RULEDRAFT_PARSE_MEMO=0`` in the environment: every text is parsed every time
MEMO = "RULEDRAFT_PARSE_MEMO"
#: the layout of what is kept (changed, older files are not read)
FORMAT = 1

#: what a value's place is kept as: (path, line, column, key line, key column, scalar span)
Row = tuple[Any, ...]


def _folder() -> Path:
    from ruledraft.caches import cache_dir

    return cache_dir() / "parsed"


def place(text: str, file: str, limits: object) -> Path | None:
    """Where what ``text`` (named ``file``, read within ``limits``) parses into is kept, or
    None where it is not (the memo off, or the text too long)."""
    if os.environ.get(MEMO, "1") == "0" or len(text) > LARGEST:
        return None
    from ruledraft.version import __version__

    head = f"{FORMAT}\n{__version__}\n{sys.version}\n{file!r}\n{limits!r}\n"
    digest = hashlib.sha256((head + text).encode("utf-8", "surrogatepass")).hexdigest()
    return _folder() / f"{digest[:40]}.marshal"


def recalled(path: Path | None) -> tuple[Any, list[Row]] | None:
    """What the text kept at ``path`` (:func:`place`) parsed into before: its data and its
    values' places, or None (never parsed, or not remembered)."""
    if path is None:
        return None
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    try:
        kept = marshal.loads(raw)
        if not (isinstance(kept, tuple) and len(kept) == 3 and kept[0] == FORMAT and isinstance(kept[2], list)):
            raise ValueError("not a parsed text")
    except (ValueError, EOFError, TypeError):
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    with contextlib.suppress(OSError):
        os.utime(path)  # read again: among the last to go
    return kept[1], kept[2]


def remember(path: Path | None, data: Any, rows: list[Row]) -> None:
    """Keep at ``path`` (:func:`place`) that the text parsed into ``data``, its values at
    ``rows`` (nothing where the cache cannot be written, or for no place)."""
    if path is None:
        return
    try:
        raw = marshal.dumps((FORMAT, data, rows))
    except ValueError:  # a value marshal cannot hold: parsed every time
        return
    if len(raw) > LARGEST_KEPT:
        return
    from ruledraft.caches import write_whole

    with contextlib.suppress(OSError):
        write_whole(path, raw)
        _prune(path.parent)


def _prune(folder: Path) -> None:
    """The least recently read files past :data:`KEPT` removed."""
    entries = []
    for entry in os.scandir(folder):
        if entry.name.endswith(".marshal"):
            with contextlib.suppress(OSError):
                entries.append((entry.stat().st_mtime_ns, entry.path))
    for _, path in sorted(entries)[: max(0, len(entries) - KEPT)]:
        with contextlib.suppress(OSError):
            os.unlink(path)
