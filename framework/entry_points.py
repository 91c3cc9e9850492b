"""The installed packages' entry points in ruledraft's groups (plug-in scoring kinds,
card effects and bots), remembered between runs.

Finding them takes :mod:`importlib.metadata`, whose import (with the email, zip and
socket modules it brings) and reading of every installed package's metadata cost
about 0.02 s of processor time a run, most often to learn that there are none. What
it found is kept in ``entry-points.json`` in the cache directory
(:mod:`ruledraft.caches`) beside a digest of where it looked: each folder on
``sys.path``, the packages' metadata folders in it (``*.dist-info``, ``*.egg-info``)
and the size and time of each one's ``entry_points.txt`` (a zip on the path by its own
size and time). Installing, removing or upgrading a package, or editing a package's
entry points, changes the digest, and the next run asks :mod:`importlib.metadata`
again. The last 16 digests' entry points are kept (another virtual environment using
the same cache directory is another digest, not a new question each time). Where another import hook than Python's own can list distributions, or
``RULEDRAFT_ENTRY_POINTS_MEMO=0`` is set, nothing is remembered.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

#: the groups ruledraft reads (all three found and kept at once; another group is asked for each time)
GROUPS = ("ruledraft.scoring_kinds", "ruledraft.card_effects", "ruledraft.bots")
#: ``RULEDRAFT_ENTRY_POINTS_MEMO=0`` in the environment: importlib.metadata is asked every time
MEMO = "RULEDRAFT_ENTRY_POINTS_MEMO"
#: the layout of the file (changed, an older file is not read)
FORMAT = 2
#: how many environments' entry points are kept (each a digest of where it looked: one per
#: virtual environment, say, that runs ruledraft with this cache directory)
KEPT = 16
#: the names of the folders a distribution's metadata is in (an egg's is EGG-INFO)
_METADATA = (".dist-info", ".egg-info", ".egg")

#: what this process found last: sys.path's folders as they were, the digest of where it
#: looked (None: not remembered) and the entry points
_found: tuple[tuple[object, ...], str | None, dict[str, list[tuple[str, str]]]] | None = None


def entry_points(group: str) -> list[EntryPoint]:
    """The installed packages' entry points in ``group`` (one of ruledraft's), as
    :func:`importlib.metadata.entry_points` gives them."""
    if group not in GROUPS:
        import importlib.metadata

        return list(importlib.metadata.entry_points(group=group))
    listed = _listed().get(group, [])
    if not listed:
        return []
    from importlib.metadata import EntryPoint

    return [EntryPoint(name=name, value=value, group=group) for name, value in listed]


def _listed() -> dict[str, list[tuple[str, str]]]:
    """Every group's entry points: as found before where nothing they come from changed
    (in this process, else in the cache), else asked for and kept."""
    global _found
    if os.environ.get(MEMO, "1") == "0":
        return _asked()
    glance = _glance()
    if _found is not None and _found[0] == glance:  # nothing on sys.path or in its folders added or removed
        return _found[2]
    where = _where()
    known = _found[2] if where is not None and _found is not None and _found[1] == where else None
    found = known if known is not None else _kept(where) if where is not None else None
    if found is None:
        found = _asked()
        if where is not None:
            _keep(where, found)
    _found = (glance, where, found)
    return found


def _glance() -> tuple[object, ...]:
    """sys.path and the time of each of its folders (a package installed or removed in one
    changes it): where they are as before, so is what this process found there."""
    return tuple((entry, _stamp(entry or ".")) for entry in sys.path)


def _asked() -> dict[str, list[tuple[str, str]]]:
    import importlib.metadata

    return {g: [(ep.name, ep.value) for ep in importlib.metadata.entry_points(group=g)] for g in GROUPS}


def _where() -> str | None:
    """A digest of every place importlib.metadata would read entry points from, or None
    where an import hook of another kind could list distributions of its own."""
    for finder in sys.meta_path:
        if hasattr(finder, "find_distributions") and getattr(finder, "__name__", "") != "PathFinder":
            return None
    seen: list[object] = [FORMAT, sys.version]
    for entry in sys.path:
        folder = entry or "."
        try:
            with os.scandir(folder) as listing:
                names = sorted(e.name for e in listing if e.name.endswith(_METADATA) or e.name == "EGG-INFO")
        except NotADirectoryError:  # a zip on the path
            seen.append((entry, _stamp(folder)))
            continue
        except OSError:
            seen.append((entry, None))
            continue
        seen.append((entry, [(name, _stamp(_listing(folder, name))) for name in names]))
    return hashlib.sha256(repr(seen).encode("utf-8", "surrogatepass")).hexdigest()


def _listing(folder: str, name: str) -> str:
    """Where the metadata folder ``name`` lists its entry points (an egg in its EGG-INFO)."""
    inner = ("EGG-INFO", "entry_points.txt") if name.endswith(".egg") else ("entry_points.txt",)
    return os.path.join(folder, name, *inner)


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)


def _file() -> Path:
    from ruledraft.caches import cache_dir

    return cache_dir() / "entry-points.json"


def _read() -> list[Any]:
    """The kept entries, ``[digest, groups]`` each, the latest last (none where the file
    cannot be read or is not the memo's)."""
    try:
        with open(_file(), encoding="utf-8") as f:
            kept = json.load(f)
    except (OSError, ValueError):
        return []
    if not (isinstance(kept, dict) and kept.get("format") == FORMAT and isinstance(kept.get("kept"), list)):
        return []
    return [e for e in kept["kept"] if isinstance(e, list) and len(e) == 2 and isinstance(e[0], str)]


def _kept(where: str) -> dict[str, list[tuple[str, str]]] | None:
    for digest, groups in _read():
        if digest == where:
            try:
                return {str(g): [(str(n), str(v)) for n, v in eps] for g, eps in groups.items()}
            except (ValueError, TypeError, AttributeError):
                return None
    return None


def _keep(where: str, found: dict[str, list[tuple[str, str]]]) -> None:
    """Keep ``found`` for ``where``, beside what other environments found (the last :data:`KEPT`)."""
    from ruledraft.caches import write_whole

    kept = [e for e in _read() if e[0] != where][-(KEPT - 1) :] + [[where, found]]
    with contextlib.suppress(OSError):
        write_whole(_file(), json.dumps({"format": FORMAT, "kept": kept}).encode("utf-8"))
