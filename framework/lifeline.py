"""Child processes that end with the process they work for.

A compile apart (``python -m ruledraft.kernel``) and an isolated bot's process
(``python -m ruledraft.play.isolate``) are started with the starting process's pid in
:data:`PARENT`, and a run's worker is handed it; each calls :func:`end_with_parent`
first thing. On Linux the kernel then kills the child when that process ends, however
it ends: a second Ctrl-C (which leaves at once, with no clean-up), SIGKILL, a closed
terminal. A bot stuck in a loop would otherwise run on for ever (and the worker
waiting on it), and a compile to its end.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Mapping

#: the environment variable that names the process a child works for, by its pid
PARENT = "RULEDRAFT_WORKS_FOR"


def inherited_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (this process's environment by default) without :data:`PARENT`: a child
    never takes the process that started this one for its own parent."""
    return {k: v for k, v in (os.environ if env is None else env).items() if k != PARENT}


def child_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (this process's environment by default) for a child that ends with this
    process: :data:`PARENT` names this process, or, outside the main thread, is left out
    (Linux signals a child when the thread that started it ends, and a thread may end
    long before its process)."""
    made = inherited_env(env)
    parent = parent_pid()
    if parent:
        made[PARENT] = str(parent)
    return made


def parent_pid() -> int:
    """This process's pid, for a child to end with (:func:`end_with_parent`), or 0 outside
    the main thread (see :func:`child_env`)."""
    return os.getpid() if threading.current_thread() is threading.main_thread() else 0


def end_with_parent(parent: int | None = None) -> None:
    """On Linux, have this process killed when its parent ends (``PR_SET_PDEATHSIG``),
    and end it now if that process is gone already: the process ``parent`` (a pid), by
    default the one named in :data:`PARENT`. Elsewhere, or with no parent named, nothing."""
    named = os.environ.get(PARENT, "") if parent is None else str(parent)
    if not sys.platform.startswith("linux") or not named.isdigit() or int(named) <= 1:
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != int(named):  # gone before the line above
        os._exit(1)
