"""What an interrupt looks like by the time the command line sees it, and how it ends
(the standard library's ``signal`` and ``sys`` only: the launcher uses it before
anything else is loaded)."""

from __future__ import annotations

import signal
import sys
from typing import NoReturn

#: the stop signal this process was sent, once it was (0: none yet)
PENDING = 0


def remembered(signum: int, frame: object) -> None:
    """The command line's SIGINT handler until a run takes the signals over: Python's
    KeyboardInterrupt, with the signal remembered first. A KeyboardInterrupt raised
    while a finalizer runs is only printed as ignored, and the program would go on as
    if never stopped; the run about to start then reads the signal (:func:`taken`)."""
    global PENDING
    PENDING = signum
    raise KeyboardInterrupt


# a KeyboardInterrupt met while it is in place is Ctrl-C's only if it noted one (errors.raised_by_stop)
remembered.stop_raised = lambda: PENDING != 0  # type: ignore[attr-defined]


def taken() -> int:
    """The stop signal remembered (0: none), forgotten once read: what a run starts
    with (``StopSignals.early``)."""
    global PENDING
    signum, PENDING = PENDING, 0
    return signum


def exit_interrupted(stop: KeyboardInterrupt) -> NoReturn:
    """Say "interrupted" and end with status 128 + the signal's number (SIGTERM's
    interrupt carries its ``signum``; Ctrl-C's is SIGINT): 130 or 143."""
    sys.stderr.write("interrupted\n")
    sys.stderr.flush()
    raise SystemExit(128 + getattr(stop, "signum", signal.SIGINT)) from None
