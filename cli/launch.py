"""The ``ruledraft`` command's entry point, kept free of imports: a Ctrl-C (or SIGTERM)
while the program is still loading ends as quietly as one later, with "interrupted"
and status 130 (143), never a traceback."""

from __future__ import annotations

import signal

from ruledraft.cli import interrupts
from ruledraft.cli.interrupts import exit_interrupted, interrupt_behind


class _Stopped(KeyboardInterrupt):
    """SIGTERM while loading (Ctrl-C is Python's own KeyboardInterrupt)."""

    signum = signal.SIGTERM


def _terminated(signum: int, frame: object) -> None:
    raise _Stopped


def main() -> None:
    """Load the command line, then run it (``ruledraft.cli.app.main``, which takes over
    both signals)."""
    previous = signal.signal(signal.SIGTERM, _terminated)
    before = signal.getsignal(signal.SIGINT)
    if before is signal.default_int_handler:  # not where Ctrl-C is ignored
        signal.signal(signal.SIGINT, interrupts.remembered)
    try:
        from ruledraft.cli.app import main as run
    except (KeyboardInterrupt, RuntimeError) as e:
        stop = interrupt_behind(e)
        if stop is None:
            raise
        exit_interrupted(stop)
    signal.signal(signal.SIGTERM, previous)
    try:
        run()
    finally:  # (for a caller that goes on: the process's Ctrl-C as it found it)
        if before is signal.default_int_handler and signal.getsignal(signal.SIGINT) is interrupts.remembered:
            signal.signal(signal.SIGINT, before)
