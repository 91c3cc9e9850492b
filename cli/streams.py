"""Standard output and error as the command can write them, set up before anything
else is loaded (:func:`usable_streams`, called by :mod:`ruledraft.cli.launch`): a
character their encoding has no code for is written as its nearest ASCII, and a
standard output the command was started with closed fails each write with
:class:`OutputClosed` (status 74, as a full disk), rather than as Python's ``None``."""

from __future__ import annotations

import codecs
import errno
import io
import os
import sys
from typing import Any

#: the nearest ASCII of the characters the command prints beside plain ASCII, for an
#: output whose encoding has no code for them (``PYTHONIOENCODING=ascii``, or the C
#: locale with Python's UTF-8 mode off)
_NEAREST = {
    "\u00b1": "+/-",
    "\u2026": "...",
    "\u2192": "->",
    "\u2190": "<-",
    "\u2014": "--",
    "\u2013": "-",
    "\u00d7": "x",
    "\u2265": ">=",
    "\u2264": "<=",
    "\u2260": "!=",
    "\u00b7": ".",
    "\u2022": "*",
    "\u2018": "'",
    "\u2019": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u00a0": " ",
}


def _nearest(error: UnicodeError) -> tuple[str | bytes, int]:
    """The error handler ``ruledraft-nearest``: a character the encoding cannot hold as
    its nearest ASCII (:data:`_NEAREST`), or ``?``; a byte Python read undecoded (a file
    name in the C locale, ``surrogateescape``) as that byte, as Python writes it there."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    c = error.object[error.start]
    if "\udc80" <= c <= "\udcff":
        return bytes([ord(c) - 0xDC00]), error.start + 1
    return _NEAREST.get(c, "?"), error.start + 1


codecs.register_error("ruledraft-nearest", _nearest)


class OutputClosed(OSError):
    """A write to standard output where the command was started with it closed: reported
    as an output that cannot be written (status 74), as a full disk is."""


class _ClosedOutput(io.TextIOBase):
    """Standard output where the command was started with it closed (``>&-``): each write
    raises :class:`OutputClosed`, rather than Python's ``None`` failing inside the command."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OutputClosed(errno.EBADF, "standard output is closed")


def printable(text: str, stream: object) -> str:
    """``text`` as ``stream`` (standard output, say) prints it: a character its encoding
    has no code for as its nearest ASCII (for a table, whose columns are measured with
    what is printed in them)."""
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        return text.encode(encoding, "ruledraft-nearest").decode(encoding)
    except (LookupError, UnicodeDecodeError):
        return text


class _WholeWrites(io.FileIO):
    """A file descriptor whose every write writes all it is given, or raises.

    Unbuffered (``PYTHONUNBUFFERED``, ``python -u``: a container's usual setting),
    Python's standard output writes its text straight to the descriptor and takes no
    notice of a write the system made only in part: on a disk that fills mid-write,
    the rest was dropped without a word (a 68 KB ``schema`` left as 24 KB, exit 0).
    Here the rest is written again, and the disk's refusal (``ENOSPC``) raised, for the
    command line to report (status 74), as the buffered output always did."""

    def write(self, data: Any) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            written = super().write(view[done:])
            if written is None:  # (a descriptor set not to block, whose reader is full)
                return done
            done += written
        return done


def _whole_writes(stream: Any) -> Any:
    """Standard output as Python made it unbuffered, over :class:`_WholeWrites` with the
    same encoding; as it is otherwise (buffered, Python's buffered writer writes a
    partial write's rest itself; a stream a caller put in its place; a closed output)."""
    try:
        raw = stream.buffer
        if type(stream) is not io.TextIOWrapper or type(raw) is not io.FileIO or raw.closed:
            return stream
        stream.flush()
        return io.TextIOWrapper(
            _WholeWrites(raw.fileno(), "w", closefd=False),
            encoding=stream.encoding,
            errors=stream.errors,
            line_buffering=stream.line_buffering,
            write_through=True,
        )
    except (OSError, ValueError, AttributeError):
        return stream


def usable_streams() -> None:
    """Standard output and error as the command can write them: a character their
    encoding has no code for (an ASCII or Latin-1 locale) written as its nearest ASCII,
    not an encoding error that ends the command; a closed standard output reported; a
    write the disk takes only part of written again, or reported (:class:`_WholeWrites`)."""
    if sys.stdout is not None:
        sys.stdout = _whole_writes(sys.stdout)
    if sys.stdout is None:
        sys.stdout = _ClosedOutput()
        try:  # the free descriptor 1 taken, so that no file opened later (a --log) becomes a child's stdout
            held = os.open(os.devnull, os.O_WRONLY)
            if held != 1:
                os.close(held)
        except OSError:
            pass
    for stream in (sys.stdout, sys.stderr):
        encoding = getattr(stream, "encoding", None)
        if not encoding or getattr(stream, "errors", None) not in ("strict", "surrogateescape", "backslashreplace"):
            continue
        try:
            if codecs.lookup(encoding).name == "utf-8":
                continue
            stream.reconfigure(errors="ruledraft-nearest")  # type: ignore[union-attr]
        except (LookupError, AttributeError, ValueError, OSError):
            continue
