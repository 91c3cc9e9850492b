"""Child processes that end with the process they work for.

A compile apart (``python -m ruledraft.kernel``) and an isolated bot's process
(``python -m ruledraft.play.isolate``) are started with the starting process's pid in
:data:`PARENT`; each calls :func:`end_with_parent` first thing. On Linux the kernel
then kills the child when that process ends, however it ends: a second Ctrl-C (which
leaves at once, with no clean-up), SIGKILL, a closed terminal. A bot stuck in a loop
would otherwise run on for ever, and a compile to its end.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

#: the environment variable that names the process a child works for, by its pid
PARENT = "RULEDRAFT_WORKS_FOR"


def parent_env() -> dict[str, str]:
    """What a child's environment adds so that it ends with this process; nothing outside
    the main thread (Linux signals a child when the thread that started it ends, and a
    thread may end long before its process)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {PARENT: str(os.getpid())}


def end_with_parent() -> None:
    """On Linux, have this process killed when the process named in :data:`PARENT` ends
    (``PR_SET_PDEATHSIG``), and end it now if that process is gone already. Elsewhere, or
    with no parent named, nothing."""
    parent = os.environ.get(PARENT, "")
    if not sys.platform.startswith("linux") or not parent.isdigit():
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != int(parent):  # gone before the line above
        os._exit(1)
