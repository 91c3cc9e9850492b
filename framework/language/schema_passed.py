"""The rule files the schema passed, remembered between runs.

Checking a document against the ruleset schema is the longest part of loading a rule
file (with jsonschema's import, about 0.04 s of processor time for Sushi Go!), and its
answer follows from the schema and the document's data alone. A document that passed is remembered by a digest of the two (and of
ruledraft's version) in ``schema-passed.json`` in the cache directory
(:mod:`ruledraft.caches`; the last :data:`KEPT`); a later run that loads the same data
under the same schema takes it as passed, without jsonschema. A document with
problems is never remembered: its problems are found, and said, every time. The
cache is the user's own (what lies there is trusted, as the compiled kernels beside
it are); one that cannot be read or written remembers nothing.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
from pathlib import Path
from typing import Any

#: how many documents are remembered (the most recently passed)
KEPT = 256
#: a document longer than this (characters) is checked every time, not remembered
LARGEST = 64 * 1024
#: ``RULEDRAFT_SCHEMA_MEMO=0`` in the environment: every document is checked every time
MEMO = "RULEDRAFT_SCHEMA_MEMO"


def kinds_generation() -> tuple[int, int]:
    """The scoring kinds' and card effects' registrations so far (a plug-in's change the schema)."""
    from ruledraft.language.effects import EFFECT_KINDS
    from ruledraft.language.kinds import SCORING_KINDS

    return SCORING_KINDS.generation, EFFECT_KINDS.generation


@functools.cache
def _schema_digest(generation: tuple[int, int]) -> str:
    from ruledraft.language.schema import ruleset_schema
    from ruledraft.version import __version__

    text = json.dumps(ruleset_schema(), sort_keys=True)
    return hashlib.sha256(f"{__version__}\n{text}".encode()).hexdigest()


def _key(data: Any, text: str) -> str | None:
    if os.environ.get(MEMO, "1") == "0" or len(text) > LARGEST:
        return None
    digest = _schema_digest(kinds_generation())
    return hashlib.sha256(f"{digest}\n{data!r}".encode()).hexdigest()


def _file() -> Path:
    from ruledraft.caches import cache_dir

    return cache_dir() / "schema-passed.json"


def _kept() -> list[str]:
    try:
        kept = json.loads(_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    return [k for k in kept if isinstance(k, str)] if isinstance(kept, list) else []


def passed(data: Any, text: str) -> bool:
    """Whether a document of this data (and text, for its size) passed the schema before."""
    key = _key(data, text)
    return key is not None and key in _kept()


def remember(data: Any, text: str) -> None:
    """Remember that a document of this data passed the schema (nothing where it cannot be written)."""
    key = _key(data, text)
    if key is None:
        return
    kept = [k for k in _kept() if k != key][-(KEPT - 1) :] + [key]
    from ruledraft.caches import write_whole

    with contextlib.suppress(OSError):
        write_whole(_file(), json.dumps(kept).encode("utf-8"))
