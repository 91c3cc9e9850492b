"""What ruledraft reads, and how: every input path goes through here.

* Inputs are regular files, ``-`` (standard input) and pipes that are already
  open, such as the ``/dev/fd/63`` of the shell's ``<(...)``: each is read once, in
  the calling process. A named FIFO, a device, a socket or a directory is refused
  with a one-line reason found by ``stat`` alone, so nothing ever waits on an open
  that has no writer.
* A path the system refuses (too long a name, no permission, a link loop, a file
  used as a directory) gets words of its own instead of an exception.
* :func:`within` is the containment test of the path policy of rule files
  (``extends:``, a log's ruleset): see :func:`ruledraft.language.loading.resolve_source`.
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from collections.abc import Iterable
from typing import BinaryIO, Union

from ruledraft.errors import InputError

#: names shown in messages are cut to this many characters
_MAX_NAME = 120

_REASONS = {
    errno.ENOENT: "no such file",
    errno.ENOTDIR: "a part of the path is not a directory",
    errno.ENAMETOOLONG: "the name is too long",
    errno.ELOOP: "too many levels of symbolic links (a link loop?)",
    errno.EACCES: "permission denied",
    errno.EPERM: "permission denied",
    errno.EISDIR: "is a directory",
}

PathLike = Union[str, "os.PathLike[str]"]


class UnreadableInput(InputError):
    """A path that is not an input ruledraft reads.

    ``str()`` is ``NAME: cannot read: REASON`` when the system refused the path
    (``os_error``), ``NAME: REASON`` when it is not a kind of file that is read
    (``is a named pipe (FIFO), ...``).
    """

    def __init__(self, path: PathLike, reason: str, *, os_error: bool = False):
        self.path = os.fspath(path)
        self.reason = reason
        self.os_error = os_error
        super().__init__(f"{display_name(self.path)}: {'cannot read: ' if os_error else ''}{reason}")


def display_name(path: PathLike) -> str:
    """The path as messages show it: cut short if it is very long."""
    text = os.fspath(path)
    if not text:
        return "''"
    if len(text) > _MAX_NAME:
        return f"{text[: _MAX_NAME // 2]}...({len(text)} characters)"
    return text


def os_reason(exc: OSError) -> str:
    """Plain words for why the system refused a path."""
    if exc.errno in _REASONS:
        return _REASONS[exc.errno]
    return (exc.strerror or str(exc)).lower()


_PIPE_DEV: int | None = None


def _pipe_device() -> int | None:
    """The device number of anonymous pipes (Linux's pipefs), found from a pipe of our own."""
    global _PIPE_DEV
    if _PIPE_DEV is None and sys.platform.startswith("linux"):
        r, w = os.pipe()
        try:
            _PIPE_DEV = os.fstat(r).st_dev
        finally:
            os.close(r)
            os.close(w)
    return _PIPE_DEV


_FD_PATH = re.compile(r"/(dev/fd|proc/(self|\d+)/fd)/\d+\Z|/dev/stdin\Z")


def _is_open_pipe(path: str, st: os.stat_result) -> bool:
    """A FIFO that is an already-open anonymous pipe (``<(...)``), not a named FIFO on disk."""
    device = _pipe_device()
    if device is not None:
        return st.st_dev == device
    return bool(_FD_PATH.search(os.path.abspath(path)))


def file_kind(mode: int, *, fifo: str = "a named pipe (FIFO)") -> str | None:
    """What a path that is no regular file is, in words (``a directory``, ``fifo``, ``a
    device``, ``a socket``, ``not a regular file``); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    for test, what in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, fifo),
        (stat.S_ISCHR, "a device"),
        (stat.S_ISBLK, "a device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return what
    return "not a regular file"


def _kind_reason(mode: int) -> str:
    what = file_kind(mode)
    if what in (None, "not a regular file"):
        return "is not a regular file"
    if stat.S_ISDIR(mode):
        return "is a directory"
    if stat.S_ISFIFO(mode):
        return f"is {what}, not a file; to read a pipe, give - and send it to standard input"
    return f"is {what}, not a file"


def input_kind(path: PathLike) -> str:
    """``"file"`` (readable) or ``"pipe"`` (already open); otherwise :class:`UnreadableInput`. Never opens the path."""
    text = os.fspath(path)
    if not text:
        raise UnreadableInput(text, "no file name (the name is empty)")
    try:
        st = os.stat(text)
    except OSError as exc:
        raise UnreadableInput(text, os_reason(exc), os_error=True) from None
    except ValueError:  # a NUL in the name
        raise UnreadableInput(text.replace("\0", "\\0"), "the name contains a NUL character") from None
    if stat.S_ISREG(st.st_mode):
        if not os.access(text, os.R_OK):
            raise UnreadableInput(text, _REASONS[errno.EACCES], os_error=True)
        return "file"
    if stat.S_ISFIFO(st.st_mode) and _is_open_pipe(text, st):
        return "pipe"
    raise UnreadableInput(text, _kind_reason(st.st_mode))


def read_input(path: PathLike, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of a regular file, of ``-`` (standard input) or of an open pipe.

    Anything else is :class:`UnreadableInput`, found before any blocking open.
    """
    text = os.fspath(path)
    if text == "-":
        stream = getattr(sys.stdin, "buffer", sys.stdin)
        if stream is None:
            raise UnreadableInput("-", "there is no standard input")
        data = stream.read(limit + 1)
        return data.encode("utf-8", "surrogateescape") if isinstance(data, str) else data
    kind = input_kind(text)
    if kind == "pipe":
        return _read_pipe_once(text, limit)
    with _open_checked(text, kind) as handle:
        try:
            return handle.read(limit + 1)
        except OSError as exc:
            raise UnreadableInput(text, os_reason(exc), os_error=True) from None


def open_input(path: PathLike) -> BinaryIO:
    """A binary stream of a regular file, of ``-`` (standard input) or of an open pipe,
    for input read piece by piece; anything else is :class:`UnreadableInput`, found
    before any blocking open (the checks of :func:`read_input`)."""
    text = os.fspath(path)
    if text == "-":
        stream: BinaryIO | None = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise UnreadableInput("-", "there is no standard input")
        return stream
    return _open_checked(text, input_kind(text))


def _open_checked(text: str, kind: str) -> BinaryIO:
    """Open what :func:`input_kind` found to be a ``file`` or a ``pipe``, never waiting:
    a regular file swapped for a FIFO after the stat is refused, not waited on."""
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
    if kind == "file":
        flags |= getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(text, flags)
    except OSError as exc:
        raise UnreadableInput(text, os_reason(exc), os_error=True) from None
    try:
        mode = os.fstat(fd).st_mode
        if kind == "file" and not stat.S_ISREG(mode):
            raise UnreadableInput(text, _kind_reason(mode))
        os.set_blocking(fd, True)
    except OSError as exc:
        os.close(fd)
        raise UnreadableInput(text, os_reason(exc), os_error=True) from None
    except BaseException:
        os.close(fd)
        raise
    return os.fdopen(fd, "rb")


#: what each open pipe gave, by (name, device, inode): a pipe can be read only once, so a
#: second look at the same name (a check, then a load; a worker process forked later)
#: gets the same text
_PIPES_READ: dict[tuple[str, int, int], bytes] = {}


def _read_pipe_once(text: str, limit: int) -> bytes:
    try:
        st = os.stat(text)
        key = (text, st.st_dev, st.st_ino)
        if key not in _PIPES_READ:
            with open(text, "rb") as handle:
                _PIPES_READ[key] = handle.read(limit + 1)
    except OSError as exc:
        raise UnreadableInput(text, os_reason(exc), os_error=True) from None
    data: bytes = _PIPES_READ[key]
    return data[: limit + 1]


def within(path: PathLike, roots: Iterable[PathLike]) -> bool:
    """Whether ``path`` (after following every link) lies inside one of the directories ``roots``."""
    real = os.path.realpath(path)
    for root in roots:
        top = os.path.realpath(root)
        try:
            if os.path.commonpath([real, top]) == top:
                return True
        except ValueError:  # different drives
            continue
    return False
