"""The ``ruledraft`` command's entry point, kept free of imports: a Ctrl-C (or SIGTERM,
or SIGHUP) while the program is still loading ends as quietly as one later, with
"interrupted" and status 130 (143, 129), never a traceback.

Two settings of the process's own, made before anything is imported: numpy's BLAS
threads, one unless the environment says how many (nothing the command does multiplies
matrices of floats, and OpenBLAS's idle threads spin, about 0.1 s of processor time for
each process that imports numpy), and the garbage collector, paused while the program
loads, then told that what the loading made is not garbage: no later collection looks
through it again. At exit, what the run made is frozen too (the interpreter's last
collection went through every object numba made, about 0.1 s), unless code from
elsewhere was loaded: a bot's or a plug-in's module in a reference cycle is collected
only there, and a file it left open would lose what it had not written."""

from __future__ import annotations

import atexit
import gc
import os
import signal
import sys

from ruledraft import heap
from ruledraft.cli import interrupts
from ruledraft.cli.interrupts import exit_interrupted
from ruledraft.cli.streams import usable_streams


class _Stopped(KeyboardInterrupt):
    """SIGTERM (or SIGHUP) while loading (Ctrl-C is Python's own KeyboardInterrupt)."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminated(signum: int, frame: object) -> None:
    raise _Stopped(signum)


#: what OpenBLAS reads for its number of threads, first found first: one the user set is left as it is
_BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _frozen_at_exit(loaded: frozenset[str]) -> None:
    """Everything frozen, the interpreter's last collection left nothing to look through,
    if every module imported since ``loaded`` is the command's own or Python's."""
    if not heap.code_from_elsewhere(loaded):
        gc.freeze()


def program() -> None:
    """The ``ruledraft`` command (``python -m ruledraft`` too): :func:`main`, then the
    process's end. Where nothing but the command's own modules and Python's were loaded
    and no other thread is left, it ends at once after its exit handlers and streams:
    the interpreter's own end would free every module and object one by one (about
    0.01 s, all of them the process's to lose anyway)."""
    heap.launched()
    loaded = frozenset(sys.modules)  # Python's and the site's, before the command's
    try:
        main()
    except SystemExit as e:
        code = e.code
    else:
        code = None
    if not isinstance(code, int | None) or not _nothing_to_lose(loaded):
        raise SystemExit(code)
    atexit._run_exitfuncs()  # noqa: SLF001 - what os._exit skips of the end: run as the interpreter runs them
    try:
        for stream in (sys.stdout, sys.stderr):
            if stream is not None:
                stream.flush()
    except BaseException:  # noqa: BLE001 - a closed pipe: said as the interpreter's end says it
        raise SystemExit(code) from None
    os._exit(code or 0)


def _nothing_to_lose(loaded: frozenset[str]) -> bool:
    """Whether the process can end without the interpreter's own end: every module
    imported since ``loaded`` the command's own or Python's (no bot's or plug-in's code,
    whose objects may hold a file unwritten), and no thread the interpreter would wait for."""
    if heap.code_from_elsewhere(loaded):
        return False
    threading = sys.modules.get("threading")
    return threading is None or all(t.daemon or t is threading.main_thread() for t in threading.enumerate())


def main() -> None:
    """Load the command line, then run it (``ruledraft.cli.app.main``, which takes over
    both signals)."""
    usable_streams()
    if not any(os.environ.get(name) for name in _BLAS_THREADS):  # read when numpy is first imported
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    collecting = gc.isenabled()
    gc.disable()  # the imports' objects live as long as the process: no collection need look through them
    previous = signal.signal(signal.SIGTERM, _terminated)
    hung_up = signal.getsignal(signal.SIGHUP)
    if hung_up is not signal.SIG_IGN:  # (nohup's ignoring kept)
        signal.signal(signal.SIGHUP, _terminated)
    before = signal.getsignal(signal.SIGINT)
    if before is signal.default_int_handler:  # not where Ctrl-C is ignored
        signal.signal(signal.SIGINT, interrupts.remembered)
    try:
        from ruledraft.cli.app import load
        from ruledraft.cli.app import main as run

        load(sys.argv[1:])  # the modules of the command run (of every command where none is named)
    except (KeyboardInterrupt, RuntimeError) as e:
        from ruledraft.errors import stop_behind

        stop = stop_behind(e, by_code=True)  # no code of a bot's or a plug-in's is loaded yet: a signal's
        if stop is None:
            raise
        exit_interrupted(stop)
    finally:
        heap.freeze()  # what the imports made, out of every later collection's way
        if collecting:
            gc.enable()
    atexit.register(_frozen_at_exit, frozenset(sys.modules))  # run last, after the program's own
    signal.signal(signal.SIGTERM, previous)
    signal.signal(signal.SIGHUP, hung_up if hung_up is not None else signal.SIG_DFL)
    try:
        run()
    finally:  # (for a caller that goes on: the process's Ctrl-C as it found it)
        if before is signal.default_int_handler and signal.getsignal(signal.SIGINT) is interrupts.remembered:
            signal.signal(signal.SIGINT, before)
