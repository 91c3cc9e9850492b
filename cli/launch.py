"""The ``ruledraft`` command's entry point, kept free of imports: a Ctrl-C (or SIGTERM)
while the program is still loading ends as quietly as one later, with "interrupted"
and status 130 (143), never a traceback.

Two settings of the process's own, made before anything is imported: numpy's BLAS
threads (nothing the command does multiplies matrices of floats, and OpenBLAS's idle
threads spin, about 0.1 s of processor time for each process that imports numpy), and
the garbage collector, paused while the program loads and told at the end that what
is left is not garbage (the collection at exit looked through every object numba made,
about 0.15 s of each run)."""

from __future__ import annotations

import atexit
import gc
import os
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
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # read when numpy is first imported
    collecting = gc.isenabled()
    gc.disable()  # the imports' objects live as long as the process: no collection need look through them
    atexit.register(gc.freeze)  # run last: nothing is left for the interpreter's collection at exit
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
    finally:
        gc.freeze()  # what the imports made, out of every later collection's way
        if collecting:
            gc.enable()
    signal.signal(signal.SIGTERM, previous)
    try:
        run()
    finally:  # (for a caller that goes on: the process's Ctrl-C as it found it)
        if before is signal.default_int_handler and signal.getsignal(signal.SIGINT) is interrupts.remembered:
            signal.signal(signal.SIGINT, before)
