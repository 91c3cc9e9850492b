"""Where a game log may be written: a regular file (created or replaced) or the null
device, never a file the run reads (its rule file, a file that extends, a plug-in's or
a bot's code), which the log would overwrite. ``simulate --log``, ``play --log`` and
the Python API's ``simulate(log=...)`` check their paths here before anything is played."""

from __future__ import annotations

import os
import stat
from collections.abc import Sequence

from ruledraft.errors import InputError
from ruledraft.language.file_access import file_kind
from ruledraft.language.kinds.registry import plugin_files
from ruledraft.play.bot_specs import bot_files
from ruledraft.play.words import shown

__all__ = ["check_log_path", "open_log"]


def _same_file(a: os.stat_result, b: os.stat_result) -> bool:
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def log_refusal(name: str, st: os.stat_result, inputs: Sequence[str], option: str = "--log") -> None:
    """An :class:`InputError` if the log's file (``st``; ``name`` as shown) is one the
    run reads: the rule file, a file it extends (``inputs``, the rule file first), or the
    code of a plug-in or a bot loaded from a file or a module."""
    for n, file in enumerate(inputs):
        try:
            same = _same_file(st, os.stat(file))
        except OSError:
            continue
        if same:
            what = (
                "the rule file"
                if n == 0
                else f"{shown(file)}, a rule file that {'it extends' if n == 1 else 'its parents extend'}"
            )
            raise InputError(f"{option} {name} is {what}: the log would overwrite it")
    for kind, files in (("plug-in", plugin_files()), ("bot", bot_files())):
        for file in files:
            try:
                same = _same_file(st, os.stat(file))
            except OSError:
                continue
            if same:
                raise InputError(f"{option} {name} is the code of a {kind} this run loaded: the log would overwrite it")


def check_log_path(path: str, inputs: Sequence[str], option: str = "--log") -> None:
    """A log's path (``option`` names it in messages) checked before anything is played,
    without opening it (a FIFO would block): a regular file that is none of the run's
    inputs (:func:`log_refusal`) or ``/dev/null``; a path not there yet is created when
    the log is written."""
    if path == "":
        raise InputError(f"{option} needs a file name (an empty one would log nothing)")
    if path == "-":  # elsewhere standard input; standard output carries the results
        raise InputError(
            f"{option} needs a file name, not - (a log is not written to standard output; ./- names a file called -)"
        )
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as e:
        raise InputError(f"{option} {shown(path)}: cannot write: {e.strerror}") from None
    refuse_log_file(shown(path), st, inputs, option)


def refuse_log_file(name: str, st: os.stat_result, inputs: Sequence[str], option: str = "--log") -> None:
    """An :class:`InputError` unless the log's file (``st``) is a regular file that is
    none of the run's inputs, or ``/dev/null``."""
    if not stat.S_ISREG(st.st_mode):
        if _is_null(st):
            return
        raise InputError(
            f"{option} {name}: {file_kind(st.st_mode, fifo='a FIFO')}; {option} takes a regular file (created or replaced) or {os.devnull}"
        )
    log_refusal(name, st, inputs, option)


def _is_null(st: os.stat_result) -> bool:
    try:
        return _same_file(st, os.stat(os.devnull))
    except OSError:
        return False


def open_log(path: str, inputs: Sequence[str], option: str = "--log") -> tuple[int, bool]:
    """The log's file opened for writing, checked before and once open (the path may
    have become a FIFO or an input meanwhile), a regular file emptied: its descriptor
    and whether it is a regular file. Never blocks on a FIFO (opened without waiting,
    then refused)."""
    check_log_path(path, inputs, option)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, 0o666)
    except OSError as e:
        raise InputError(f"{option} {shown(path)}: cannot write: {e.strerror}") from None
    try:
        opened = os.fstat(fd)
        refuse_log_file(shown(path), opened, inputs, option)  # the file may have changed since it was looked at
        os.set_blocking(fd, True)
        regular = stat.S_ISREG(opened.st_mode)
        if regular:
            os.ftruncate(fd, 0)
    except BaseException:
        os.close(fd)
        raise
    return fd, regular
