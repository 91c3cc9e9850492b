"""Safe YAML loading that keeps the position of every value.

A rule file is read into plain Python data (``dict``/``list``/``str``/``int``/
``float``/``bool``/``None``) while the line and column of every value -- and of
every mapping key -- are recorded, so that any later stage can point at the exact
spot of a problem (``rules.yaml:12:7: error: ...``).

The data is built from PyYAML's *composer* (node marks, aliases as shared nodes;
never a constructor of arbitrary objects), so that:

* only the standard scalar tags (str, int, float, bool, null) and plain lists and
  mappings are ever produced; any other tag is a located error;
* every mapping key is a string (``2: 10`` gives the key ``"2"``, exactly as
  written); duplicate keys are errors;
* booleans are YAML 1.2's: only ``true``/``false`` (in any of their three
  spellings); YAML 1.1's ``yes``, ``no``, ``on``, ``off`` stay text, so a card
  called ``no`` is not the value ``false``;
* the size of what is built is bounded (:class:`LoaderLimits`): file size, number
  of values (counted while aliases are expanded, which stops "billion laughs"
  bombs before they grow), nesting depth and length of a text value;
* malformed input of any kind ends in :class:`~ruledraft.errors.RulesetError`,
  never in another exception.
"""

from __future__ import annotations

import contextlib
import copy
import os
import threading
from typing import Any

import attrs

from ruledraft.errors import Diagnostic, RulesetError
from ruledraft.language import yaml_parsed
from ruledraft.language.document import (
    DEFAULT_LIMITS,
    Document,
    LoaderLimits,
    Path,
    _Pos,
    _split_lines,
)

__all__ = ["DEFAULT_LIMITS", "Document", "LoaderLimits", "Path", "UnreadableRuleFile", "load_document", "load_file"]


def load_document(
    text: str | bytes | bytearray, file: str | os.PathLike[str] = "<string>", *, limits: LoaderLimits = DEFAULT_LIMITS
) -> Document:
    """Parse rule-file text into a :class:`Document`; raise :class:`RulesetError` if it is unusable."""
    file = str(file)
    if isinstance(text, (bytes, bytearray)):
        text = _decode(bytes(text), file, limits)
    if not isinstance(text, str):
        raise TypeError(f"load_document() needs text, not {type(text).__name__}")
    if len(text) > limits.max_file_size or (
        4 * len(text) > limits.max_file_size and len(text.encode("utf-8", "surrogatepass")) > limits.max_file_size
    ):
        raise _too_large(file, len(text.encode("utf-8", "surrogatepass")), limits)
    if len(text) > _PARSED_SIZE:
        return _document(text, file, *_composed(text, file, limits))
    key = (file, text, limits)
    with _PARSED_LOCK:
        doc = _PARSED.pop(key, None)
    if doc is None:
        doc = _parsed(text, file, limits)
    with _PARSED_LOCK:
        _PARSED[key] = doc
        while len(_PARSED) > _PARSED_KEPT:  # the least recently read go
            del _PARSED[next(iter(_PARSED))]
    return attrs.evolve(doc, data=copy.deepcopy(doc.data))  # its own data: a caller may change it


#: the last few texts parsed (a parent read for each file that extends it, a file read
#: again by tune's trials), each of at most _PARSED_SIZE characters (a few megabytes kept
#: at most, whatever files are read): a Document's positions never change, so only the
#: data is copied
_PARSED: dict[tuple[str, str, LoaderLimits], Document] = {}
_PARSED_KEPT = 4
_PARSED_SIZE = 64 * 1024
_PARSED_LOCK = threading.Lock()


def _parsed(text: str, file: str, limits: LoaderLimits) -> Document:
    """The document of ``text``, as a run parsed it before (:mod:`.yaml_parsed`), else
    parsed now and remembered."""
    kept_at = yaml_parsed.place(text, file, limits)
    kept = yaml_parsed.recalled(kept_at)
    if kept is not None:
        data, rows = kept
        with contextlib.suppress(TypeError, ValueError, IndexError):  # not rows of places: parsed again
            return _document(text, file, data, {tuple(r[0]): _Pos(r[1], r[2], r[3], r[4], r[5]) for r in rows})
    data, positions = _composed(text, file, limits)
    rows = [(path, p.line, p.column, p.key_line, p.key_column, p.scalar) for path, p in positions.items()]
    yaml_parsed.remember(kept_at, data, rows)
    return _document(text, file, data, positions)


def _document(text: str, file: str, data: Any, positions: dict[Path, _Pos]) -> Document:
    """The document of ``text`` that holds ``data``, its values at ``positions``."""
    lines, starts = _split_lines(text)
    return Document(file, text, lines, data, positions=positions, line_starts=starts)


class UnreadableRuleFile(RulesetError):
    """A rule file the system would not let be read (an input/output error while reading
    it): at its 1:1 where another file extends it; ``input`` is the refusal, which a
    command reads as an unusable argument (exit 2) when it is the file it was given."""

    def __init__(self, file: str, refusal: Any) -> None:
        super().__init__([Diagnostic(file, 1, 1, f"cannot read the file: {refusal.reason}")])
        self.input = refusal


def load_file(path: str | os.PathLike[str], *, limits: LoaderLimits = DEFAULT_LIMITS) -> Document:
    """Read and parse a rule file; raise :class:`RulesetError` (at 1:1 if it cannot be read).

    ``-`` reads standard input (named ``<stdin>`` in messages); an already-open pipe
    (``<(...)``) is read once. A named FIFO, a device, a socket or a directory is
    refused without being opened for reading (see :mod:`ruledraft.language.file_access`).
    """
    from ruledraft.language.file_access import UnreadableInput, read_input

    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    file = "<stdin>" if text == "-" else text
    try:
        raw = read_input(text, limits.max_file_size)
    except UnreadableInput as exc:
        raise UnreadableRuleFile(file, exc) from None
    if len(raw) > limits.max_file_size:
        try:
            size = os.path.getsize(text) if text != "-" else 0
        except OSError:
            size = 0
        raise _too_large(file, max(size, len(raw)), limits, more=size < len(raw))
    return load_document(_decode(raw, file, limits), file, limits=limits)


# ---------------------------------------------------------------------------
# helpers


def _too_large(file: str, size: int, limits: LoaderLimits, more: bool = False) -> RulesetError:
    amount = f"more than {limits.max_file_size} bytes" if more else f"{size} bytes"
    return RulesetError.single(
        file, 1, 1, f"the file is too large ({amount}; a rule file may have at most {limits.max_file_size} bytes)"
    )


def _decode(raw: bytes, file: str, limits: LoaderLimits) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    else:
        encoding = "utf-8-sig"
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        bad = raw[exc.start : exc.start + 1].hex()
        raise RulesetError.single(
            file, line, column, f"the file is not valid {encoding.split('-sig')[0].upper()} text (byte 0x{bad})"
        ) from None


def _composed(text: str, file: str, limits: LoaderLimits) -> tuple[object, dict[Path, _Pos]]:
    """``text`` parsed (:func:`ruledraft.language.yaml_composer.composed`: PyYAML is
    imported the first time a text is parsed)."""
    from ruledraft.language.yaml_composer import composed

    return composed(text, file, limits)
