"""One way to play the games of a run in chunks: here, on worker processes, or on a cluster.

A *work* (:class:`Work`) says how to play games ``start..end`` of a run into a
:class:`Chunk` -- their tally, and the records a log wants -- and what the tally of no
games is. :func:`run` has a *backend* play the chunks: this process
(:class:`InProcess`), forked worker processes (:class:`Processes`), or a Dask
cluster (:class:`ruledraft.play.cluster.DaskBackend`); and it folds what comes back
(:class:`Fold`): tallies merge exactly, in any order, and records are handed over in
game order. ``simulate``, ``compare`` and ``sweep`` all run through it, locally and on
a cluster, so they stop, lose workers and count progress the same way:

* the first SIGINT, SIGTERM or SIGHUP (:class:`StopSignals`) ends the run between chunks:
  the chunks finished are folded (their records too, in order), the rest dropped;
  a second signal ends the process at once, killing its worker processes first;
* a worker process that fails or dies ends the run with one :class:`WorkerError`
  line (a problem of the ruleset or a bot travels as itself);
* ``progress`` receives the number of games of each finished chunk.

Every game's seed comes from the run's seed and the game's index, so a chunk gives
the same result wherever and however often it is played.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import pickle
import signal
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, ClassVar, Protocol

import attrs

from ruledraft import heap, lifeline
from ruledraft.errors import RuledraftError, described, raised_by_stop
from ruledraft.language.kinds.registry import prints_to_stderr
from ruledraft.language.ruleset import CompiledRuleset

# ---------------------------------------------------------------- the heap while games run

_HEAP_LOCK = threading.Lock()
_HEAP_USERS = 0
_HEAP_SAVED: tuple = ()  # (threshold, whether we froze) of the first user


@contextlib.contextmanager
def steady_heap() -> Iterator[None]:
    """While many games run, leave the objects alive before them (the loaded ruleset,
    the parsers and schemas behind it) out of the cyclic garbage collector's scans:
    games allocate millions of short-lived objects, and each full collection would
    walk all of those long-lived ones again (about 7% of a simulation). Young objects
    are collected less often too (games make almost no reference cycles: about 3%).

    The collector is left as it was found: a heap the caller froze itself stays
    frozen, and overlapping uses (threads) restore it once, when the last one ends.
    """
    global _HEAP_USERS, _HEAP_SAVED
    with _HEAP_LOCK:
        if _HEAP_USERS == 0:
            _HEAP_SAVED = (gc.get_threshold(), not heap.frozen())
            settle_heap(freeze=_HEAP_SAVED[1])
        _HEAP_USERS += 1
    try:
        yield
    finally:
        with _HEAP_LOCK:
            _HEAP_USERS -= 1
            if _HEAP_USERS == 0:
                threshold, froze = _HEAP_SAVED
                gc.set_threshold(*threshold)
                if froze:
                    gc.unfreeze()


def settle_heap(freeze: bool = True) -> None:
    """What :func:`steady_heap` does, for a process that only runs games from now on."""
    if freeze:
        gc.freeze()
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 10_000), *threshold[1:])


# ---------------------------------------------------------------- stopping


class WorkerError(RuntimeError):
    """A worker process failed (its error, or how it ended)."""


class Interrupt(KeyboardInterrupt):
    """A stop signal raised as an exception (the ``ruledraft`` command raises it for
    SIGTERM, as Python does KeyboardInterrupt for SIGINT). ``signum`` says which
    signal (the exit status is 128 + signum)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


def wait_for(objects: list, timeout: float | None = None) -> list:
    """``multiprocessing.connection.wait``, imported when first waited on (a run of one
    process never waits on a worker)."""
    from multiprocessing.connection import wait

    return wait(objects, timeout)


#: the signals that stop a run (the first cleanly, a second at once): Ctrl-C, a request
#: to end (``kill``, ``timeout``, a service manager) and the terminal closed
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: those nobody answers with a second (no one at the keyboard): a run that has not
#: stopped :data:`TERM_GRACE` seconds after one stops at once
UNANSWERED = (signal.SIGTERM, signal.SIGHUP)


class StopSignals:
    """While a run lasts, SIGINT, SIGTERM and SIGHUP (the terminal closed) ask it to
    stop instead of killing it.

    The first signal only records itself (``signum``) and wakes whoever waits on
    ``fileno()``; the run then stops between games, keeping every finished one. A
    second one calls the ``on_second`` callbacks (which end the worker processes),
    says "interrupted" and ends the process at once with status 128 + signal (no
    clean-up that could hang or print a traceback). Outside the main thread signals
    cannot be caught: nothing is installed and the run cannot be stopped this way.

    A game in play in this process is played to its end (a slow bot's may take a
    while): on a terminal, a Ctrl-C the run has not answered within
    :data:`SLOW_STOP` seconds is answered on standard error with
    :data:`STILL_STOPPING`, so that nobody takes the wait for a hang. A SIGTERM (sent
    by ``timeout``, a service manager: nobody to send a second) or a SIGHUP the run
    has not answered within :data:`TERM_GRACE` seconds counts as the second: a game
    that never ends (a planner on a huge table) cannot keep the process alive.
    """

    SIGNALS = STOP_SIGNALS
    #: a stop signal sent before the run took the signals over, whose interrupt did not
    #: end the program (one raised while a finalizer runs is only printed as ignored):
    #: the command line remembers it here (0: none), and the run starts stopped
    early: ClassVar[Callable[[], int]] = staticmethod(lambda: 0)

    def __init__(self) -> None:
        self.signum = 0
        self.on_second: list[Callable[[], None]] = []
        self._saved: dict = {}
        self._fds: tuple = ()
        #: on a terminal: set by the first SIGINT, for the thread that says the run is stopping
        self._asked: threading.Event | None = None
        #: set by the first SIGTERM or SIGHUP, for the thread that sends the second if the run lasts
        self._termed: threading.Event | None = None
        self._ended = threading.Event()

    def requested(self) -> bool:
        return self.signum != 0

    def fileno(self) -> int:
        return self._fds[0]

    def drain(self) -> None:
        """Empty the wake-up pipe (the signal itself is in ``signum``)."""
        try:
            while os.read(self._fds[0], 512):
                pass
        except OSError:  # empty (it does not block)
            pass

    def wait(self, seconds: float) -> None:
        """Sleep up to ``seconds``, waking at once on a signal."""
        if not self._fds:
            time.sleep(seconds)
            return
        if wait_for([self.fileno()], seconds):
            self.drain()

    def _handle(self, signum, frame) -> None:
        if self.signum:  # asked twice: no more clean-up, leave now
            for end in self.on_second:
                end()
            try:
                os.write(2, b"interrupted\n")
            finally:
                os._exit(128 + signum)
        self.signum = signum
        try:
            os.write(self._fds[1], b"!")
        except OSError:
            pass
        if signum == signal.SIGINT and self._asked is not None:
            self._asked.set()  # (no thread is started in a handler: the watcher waits already)
        if signum in UNANSWERED and self._termed is not None:
            self._termed.set()

    # it raises no KeyboardInterrupt: one met while it is in place was raised by code (errors.raised_by_stop)
    _handle.stop_raised = lambda: False  # type: ignore[attr-defined]

    def _watch(self, asked: threading.Event) -> None:
        """On a terminal, for as long as the run lasts: once asked to stop, say so if the
        run has not ended :data:`SLOW_STOP` seconds later."""
        asked.wait()
        if not self._ended.wait(SLOW_STOP):
            with contextlib.suppress(OSError):  # the line of a progress bar cleared first
                os.write(2, b"\r\x1b[2K" + STILL_STOPPING.encode() + b"\n")

    def _term_deadline(self, termed: threading.Event) -> None:
        """Once a SIGTERM (SIGHUP) came: if the run has not ended :data:`TERM_GRACE`
        seconds later, send the second one (the handler then ends the process, status
        143, 129)."""
        termed.wait()
        if not self._ended.wait(TERM_GRACE):
            with contextlib.suppress(OSError):
                os.kill(os.getpid(), self.signum)

    def __enter__(self) -> StopSignals:
        self._fds = os.pipe()
        for fd in self._fds:
            os.set_blocking(fd, False)
        if threading.current_thread() is threading.main_thread():
            if _on_terminal():
                self._asked = threading.Event()
                threading.Thread(target=self._watch, args=(self._asked,), daemon=True).start()
            self._termed = threading.Event()
            threading.Thread(target=self._term_deadline, args=(self._termed,), daemon=True).start()
            for sig in self.SIGNALS:
                if signal.getsignal(sig) is signal.SIG_IGN:
                    # ignored by whoever started the process (a script's `cmd &`, nohup), as the
                    # command's loading left it: the run keeps ignoring it rather than taking it
                    # up halfway (a Ctrl-C just before the run was lost, one a moment later stopped it)
                    continue
                self._saved[sig] = signal.signal(sig, self._handle)
            asked = StopSignals.early()
            if asked and not self.signum:
                self._handle(asked, None)
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self._saved.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
        self._saved.clear()
        self._ended.set()  # after the handlers: no handler runs while an event is being set
        if self._asked is not None:
            self._asked.set()  # the watcher, never asked, ends too
        if self._termed is not None:
            self._termed.set()  # the deadline's thread too (the run has ended: it sends nothing)
        for fd in self._fds:
            os.close(fd)
        self._fds = ()


#: how long a Ctrl-C may wait for the games in play before the run says it is stopping
SLOW_STOP = 1.0
#: how long a SIGTERM waits for the games in play before it counts as the second signal
TERM_GRACE = 5.0
#: what it says then (on a terminal)
STILL_STOPPING = "stopping once the games in play end (Ctrl-C again stops at once)"


def _on_terminal() -> bool:
    """Whether standard error is a terminal (where someone waits on a Ctrl-C)."""
    try:
        return os.isatty(2)
    except OSError:
        return False


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


# ---------------------------------------------------------------- what is run


@attrs.frozen
class Chunk:
    """Games ``start`` to ``end`` (excluded) of a run: their tally and, when the run
    keeps them, their records in game order (per-game results, or the log's lines as
    one text). ``end`` is where a stop cut the chunk short."""

    start: int
    end: int
    tally: Any
    records: Any = ()


class Tally(Protocol):
    """What a chunk's games are counted into: tallies of any chunks merge exactly."""

    def merge(self, other: Any, /) -> None: ...


class Work(Protocol):
    """The games of a run, as a backend plays them: anywhere, any number of times.

    A work travels to worker processes (inherited through ``fork``) and to a cluster
    (pickled): a compiled ruleset travels as its document (:class:`ShippedRuleset`)."""

    #: the most games in one chunk (fewer when records travel: they are heavy)
    cap: int
    #: games per chunk when this process plays them itself (a stop waits for one chunk)
    inline_chunk: int

    def play(self, start: int, end: int, stop: Callable[[], bool] | None = None) -> Chunk:
        """Play games ``start..end`` (``stop()`` may cut the chunk short, between games)."""
        ...

    def empty(self) -> Any:
        """The tally of no games."""
        ...


class Fold:
    """What comes back from the chunks: their tallies merged into ``total``, their
    records handed to ``on_records`` in game order, and each chunk's games counted
    with ``progress``."""

    def __init__(
        self,
        total: Any,
        on_records: Callable[[Any], None] | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> None:
        self.total = total
        self.on_records = on_records
        self.progress = progress
        self._waiting: dict[int, tuple[int, Any]] = {}  # start -> (end, records)
        self._next = 0  # the first game not handed over yet

    @property
    def wants_records(self) -> bool:
        return self.on_records is not None

    def add(self, chunk: Chunk) -> None:
        """A finished chunk: its tally, its records and its games."""
        self.merge(chunk.tally)
        self.played(chunk.start, chunk.end, chunk.records)

    def merge(self, tally: Any) -> None:
        self.total.merge(tally)

    def played(self, start: int, end: int, records: Any = ()) -> None:
        """Games ``start..end`` are in (their tally merged or to be): count them, and hand
        over their records once the games before them are in."""
        if self.progress is not None:
            self.progress(end - start)
        if self.on_records is None:
            return
        self._waiting[start] = (end, records)
        while self._next in self._waiting:
            end, records = self._waiting.pop(self._next)
            self.on_records(records)
            self._next = end

    def finish(self) -> Any:
        """The total; records that came after a gap (a stop) are handed over too, in order."""
        if self.on_records is not None:
            for start in sorted(self._waiting):
                self.on_records(self._waiting.pop(start)[1])
        return self.total


class Backend(Protocol):
    """Where the chunks are played."""

    def play(self, work: Work, games: int, fold: Fold, stop: StopSignals | None) -> None:
        """Play games ``0..games`` in chunks and give each finished one to ``fold``,
        until all are in or ``stop`` is requested."""
        ...


def run(
    work: Work,
    games: int,
    backend: Backend,
    *,
    on_records: Callable[[Any], None] | None = None,
    progress: Callable[[int], None] | None = None,
    stop: StopSignals | None = None,
) -> Any:
    """Play ``games`` games of ``work`` on ``backend`` and return their folded tally
    (``on_records`` gets each chunk's records, in game order; ``progress`` each chunk's
    number of games). A stop keeps exactly the chunks finished by then."""
    fold = Fold(work.empty(), on_records, progress)
    if games > 0 and (stop is None or not stop.requested()):
        backend.play(work, games, fold, stop)
    return fold.finish()


def local(jobs: int, games: int, method: Callable[[], str] | None = None) -> Backend:
    """This process for one job (or fewer than two games), else ``jobs`` worker processes
    (started by what ``method`` says, asked only then: fork where there is one, else spawn)."""
    if jobs <= 1 or games < 2:
        return InProcess()
    return Processes(min(jobs, games), method() if method is not None else None)


class InProcess:
    """The chunks played one after the other in this process (small ones: a stop
    waits for at most one). The first is a fiftieth of the run, so that progress
    shows soon; the next take about :data:`CHUNK_SECONDS` each, up to the work's
    ``inline_chunk``: a chunk's tally is made and merged, which counts where the
    games are fast (the kernel's: a chunk of 2,000 games takes 20 ms, its tally's
    merge a few percent of that)."""

    def play(self, work: Work, games: int, fold: Fold, stop: StopSignals | None) -> None:
        requested = None if stop is None else stop.requested
        size = max(1, min(work.inline_chunk, games // 50 or 1))
        start = 0
        while start < games:
            if requested is not None and requested():
                break
            end = min(games, start + size)
            began = time.perf_counter()
            try:
                with prints_to_stderr():  # a plug-in's rule or effect printing never mixes with the output
                    chunk = work.play(start, end, requested)
            except BaseException as e:  # a plug-in's code failing: its PluginError, as from a worker
                _raise_plugin_failure(e)
                raise
            fold.add(chunk)
            rate = (end - start) / max(time.perf_counter() - began, 1e-6)
            size = max(size, min(work.inline_chunk, int(CHUNK_SECONDS * rate)))
            start = end


# ---------------------------------------------------------------- worker processes

#: what the main process sends its workers when the run is asked to stop: each ends its
#: chunk once the game in play is over and sends back the games it finished (None where
#: the system has no such signal: the chunks in play are then lost, as a second signal loses them)
STOP_CHUNK: signal.Signals | None = getattr(signal, "SIGUSR1", None)
#: how long a stopped run waits for its workers' games in play (seconds): less than a
#: SIGTERM's grace (:data:`TERM_GRACE`), so that a stuck bot's worker is ended and the
#: games the others finished are still summarised
WORKER_GRACE = 3.0

#: a chunk of games sent to a worker should take about this long: short enough
#: that the progress bar moves and little work is lost on a stop, long enough that
#: sending chunks costs nothing measurable
CHUNK_SECONDS = 0.2


def available_cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def start_method() -> str:
    """``fork`` where there is one: the workers start with the compiled ruleset
    already in memory, and read no file."""
    import multiprocessing  # (with its sockets and pickling: only for a run of processes)

    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def _worker_main(conn, close: Sequence, work: Work, parent: int = 0) -> None:
    """A worker process: play the chunks the main process sends, send back each one's
    :class:`Chunk`, until told to stop (``None``) or the main process goes away.

    It ignores SIGINT, SIGTERM and SIGHUP (the main process decides and ends it): a stop reaches
    it from the main process as :data:`STOP_CHUNK`, after which it ends the chunk in play
    once its game in play is over and sends back the games finished (and any chunk sent
    after, at once, empty). It never prints (an error travels back as a message) and
    leaves by ``os._exit``. On Linux it
    ends with the main process (``parent``, its pid; 0: started outside the main
    thread), however that ends: a worker waiting on a bot's process stuck in a loop
    would never see the main process's end of the pipe close.
    """
    code = 0
    try:
        lifeline.end_with_parent(parent)
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        asked: list[int] = []  # the main process's stop, once it came
        if STOP_CHUNK is not None:
            signal.signal(STOP_CHUNK, lambda signum, frame: asked.append(signum))
        for other in close:  # the main process's ends of the pipes, inherited through fork
            try:
                other.close()
            except OSError:
                pass
        settle_heap()  # this process only runs games from here on (see steady_heap)
        sys.stdout = sys.stderr  # what a plug-in's rule or effect prints never reaches the run's output
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):
                break
            if task is None:
                break
            started = time.perf_counter()
            start, end = task
            chunk = work.play(start, end, lambda: bool(asked))
            conn.send(("done", chunk, time.perf_counter() - started))
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass  # the main process is gone: nobody to tell
    except BaseException as e:  # noqa: BLE001 - reported by the main process, never printed here
        code = 1
        try:  # a problem of the ruleset or a bot travels as itself, anything else as text
            conn.send(("error", travelling_error(e)))
        except BaseException:  # noqa: BLE001
            pass
    if heap.code_from_elsewhere():  # a bot's or a plug-in's: what it left open written, as the interpreter's end would
        isolated = sys.modules.get("ruledraft.play.isolate")
        if isolated is not None:  # the bots' own processes told to end (each then ends as Python does)
            with contextlib.suppress(Exception):
                isolated.close_all()
        flush_files(thaw=True)
    os._exit(code)


def flush_files(thaw: bool = False) -> None:
    """Flush every file this process holds open for writing, but standard output and
    error: a bot's or a plug-in's file left open and unflushed has its last lines
    written before a worker leaves by ``os._exit`` (which skips the interpreter's end,
    where they would be), and has none waiting when a worker is forked (which would
    write them twice). ``thaw``: the frozen objects looked through too (a worker that
    is leaving: the collector's list of objects leaves them out)."""
    import io

    if thaw:
        gc.unfreeze()
    std = {id(s) for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__)}
    for obj in gc.get_objects():
        if isinstance(obj, io.IOBase) and id(obj) not in std:
            with contextlib.suppress(Exception):
                if not obj.closed and obj.writable():
                    obj.flush()


def _raise_plugin_failure(e: BaseException) -> None:
    """The :class:`~ruledraft.language.kinds.PluginError` naming the plug-in whose code
    raised ``e``, raised, if one did (see :func:`_plugin_cause`)."""
    failure = _plugin_cause(e)
    if failure is not None:
        raise failure from None


def _plugin_cause(e: BaseException) -> RuledraftError | None:
    """The :class:`~ruledraft.language.kinds.PluginError` naming the plug-in whose code
    raised ``e`` (a KeyboardInterrupt of its own too, not a stop signal's), or None. An
    error of ruledraft's own names its cause already (a bot's failure met while a
    plug-in's card effect asked the bot: the bot's)."""
    if isinstance(e, RuledraftError) or raised_by_stop(e):
        return None
    from ruledraft.language.kinds.registry import plugin_failure

    return plugin_failure(e)


def travelling_error(e: BaseException) -> RuledraftError | str:
    """An error of a worker as it travels to the main process: a problem of the
    ruleset, a bot or a plug-in as itself, anything else as its one-line text."""
    e = _plugin_cause(e) or e  # a plug-in's code failed: its own message
    return e if isinstance(e, RuledraftError) else described(e)


class _Workers:
    """``jobs`` worker processes, each fed chunks of games through its own pipe."""

    def __init__(self, jobs: int, work: Work, stop: StopSignals | None = None, method: str | None = None):
        import multiprocessing

        ctx: Any = multiprocessing.get_context(method or start_method())  # typed as the base, which has no Process
        forked = ctx.get_start_method() == "fork"
        self.procs: list = []
        self.conns: list = []
        self.stop = stop
        if stop is not None:  # before the first fork: a second signal at any moment from now kills them
            stop.on_second.append(self.kill_now)
        if forked and heap.code_from_elsewhere():
            flush_files()  # no bot's file forked with lines its workers would write again
        try:
            for _ in range(jobs):
                mine, theirs = ctx.Pipe()
                self.conns.append(mine)
                proc = ctx.Process(
                    target=_worker_main,
                    daemon=True,
                    args=(theirs, self.conns if forked else [], work, lifeline.parent_pid()),
                )
                try:
                    proc.start()
                finally:
                    theirs.close()
                self.procs.append(proc)
        except BaseException:  # a worker that cannot start (or a stop meanwhile): none is left behind
            self.close(finished=False)
            raise

    def ask_to_stop(self) -> bool:
        """Ask every worker to end its chunks once its game in play is over (:data:`STOP_CHUNK`);
        whether they could be asked."""
        if STOP_CHUNK is None:
            return False
        for proc in self.procs:
            if proc.exitcode is None:
                try:
                    os.kill(proc.pid, STOP_CHUNK)
                except OSError:
                    pass
        return True

    def kill(self) -> None:
        """End every worker now (SIGKILL: they hold nothing worth saving)."""
        for proc in self.procs:
            if proc.exitcode is None:
                try:
                    os.kill(proc.pid, signal.SIGKILL)
                except OSError:
                    pass

    def kill_now(self) -> None:
        """Kill every worker and wait for each to be gone (a few milliseconds), so that
        none outlives a process that is about to leave without clean-up."""
        self.kill()
        for proc in self.procs:
            if proc.exitcode is None:
                try:
                    os.waitpid(proc.pid, 0)
                except OSError:
                    pass

    def close(self, finished: bool) -> None:
        """Let the workers leave (``finished``) or kill them, then reap them all."""
        try:
            if finished:
                for conn in self.conns:
                    try:
                        conn.send(None)
                    except OSError:
                        pass
                deadline = time.monotonic() + 5
                for proc in self.procs:
                    proc.join(max(0.0, deadline - time.monotonic()))
            self.kill()
            for proc in self.procs:
                proc.join()
            for conn in self.conns:
                conn.close()
        finally:  # only once they are reaped: a second signal until then kills them before leaving
            if self.stop is not None:
                self.stop.on_second.remove(self.kill_now)

    def describe_end(self, n: int) -> str:
        proc = self.procs[n]
        proc.join(1)
        code = proc.exitcode
        if code is None:
            return "stopped answering"
        if code < 0:
            return f"was killed by {signal_name(-code)}"
        return f"ended with exit status {code}"


class Processes:
    """The chunks dealt to ``jobs`` worker processes, two in flight per worker so that
    none waits for work; each chunk sized to take about :data:`CHUNK_SECONDS` (from
    the time the chunks so far took), smaller near the end so the workers finish
    together."""

    def __init__(self, jobs: int, method: str | None = None):
        self.jobs = jobs
        self.method = method  # how the workers start: fork (the default where there is one) or spawn

    def play(self, work: Work, games: int, fold: Fold, stop: StopSignals | None) -> None:
        jobs = self.jobs
        per_game_seconds: float | None = None
        next_start = 0

        def next_chunk() -> tuple[int, int] | None:
            nonlocal next_start
            left = games - next_start
            if left <= 0:
                return None
            # one game while no game has been timed: a slow bot's first chunk holds no finished
            # game a stop could lose with it (a stuck worker is ended with its chunk)
            size = 1 if per_game_seconds is None else int(CHUNK_SECONDS / max(per_game_seconds, 1e-6))
            size = max(1, min(size, work.cap, -(-left // (2 * jobs))))
            task = (next_start, next_start + size)
            next_start += size
            return task

        def requested() -> bool:
            return stop is not None and stop.requested()

        workers = _Workers(jobs, work, stop, self.method)
        finished = False
        in_flight = [0] * jobs

        def send(n: int, conn) -> None:
            task = next_chunk()
            if task is None:
                return
            try:
                conn.send(task)
            except OSError:
                pass  # the worker has ended: its pipe still holds why (or ends), read as an answer
            in_flight[n] += 1

        # once a stop is asked, each worker ends its chunks after its game in play and sends
        # back the games it finished; they are counted, and no more chunks are sent. A worker
        # whose game in play has not ended within WORKER_GRACE seconds is ended with it (the
        # games it finished in that chunk are lost). A second signal ends it all at once.
        deadline: float | None = None
        try:
            for n, conn in enumerate(workers.conns):
                send(n, conn)
                send(n, conn)
            index_of = {conn: n for n, conn in enumerate(workers.conns)}
            while any(in_flight):
                if requested() and deadline is None:
                    if not workers.ask_to_stop():
                        break  # (no way to ask them: the chunks in play are lost)
                    deadline = time.monotonic() + WORKER_GRACE
                busy = [c for c, k in zip(workers.conns, in_flight) if k]
                ready: Any  # a worker's connection, or the stop signal's
                if deadline is None:
                    answered = wait_for(busy + ([stop] if stop is not None else []))
                else:
                    answered = wait_for(busy, max(0.0, deadline - time.monotonic()))
                    if not answered:
                        break  # their games in play outlasted the grace
                for ready in answered:
                    if ready is stop:
                        stop.drain()
                        continue
                    n = index_of[ready]
                    try:
                        message = ready.recv()
                    except (EOFError, OSError):
                        if requested():  # (one that ended as the run stopped: its chunks are lost)
                            in_flight[n] = 0
                            continue
                        raise WorkerError(f"worker process {n + 1} {workers.describe_end(n)}") from None
                    if message[0] != "done":
                        if isinstance(message[1], RuledraftError):
                            raise message[1]
                        raise WorkerError(f"worker process {n + 1} failed: {message[1]}")
                    _, chunk, seconds = message
                    in_flight[n] -= 1
                    if chunk.end > chunk.start:
                        per_game_seconds = seconds / (chunk.end - chunk.start)
                    if not requested():
                        send(n, ready)
                    fold.add(chunk)
            finished = not requested()
        finally:
            workers.close(finished)


# ---------------------------------------------------------------- rulesets that travel

#: compiled rulesets by the digest of their document, a few per process
_COMPILED: OrderedDict[str, CompiledRuleset] = OrderedDict()


class ShippedRuleset:
    """A compiled ruleset that can travel to other processes and machines: it travels
    as its checked document (with the rule file's absolute path, as this process sees
    it) and the plug-ins loaded here, and is compiled there once per process.

    Where processes fork, the compiled ruleset is inherited as it is."""

    __slots__ = ("_ruleset", "document", "plugins", "_digest")

    def __init__(self, ruleset: CompiledRuleset | None, document: Any = None, plugins: Sequence[str] | None = None):
        if ruleset is None and document is None:
            raise ValueError("a shipped ruleset needs the compiled ruleset or its document")
        self._ruleset = ruleset
        self.document = None if document is None else _with_absolute_file(document)
        if plugins is None:
            from ruledraft.language.kinds import loaded_plugins

            plugins = loaded_plugins()
        self.plugins = tuple(plugins)
        self._digest = ""

    @property
    def ruleset(self) -> CompiledRuleset:
        if self._ruleset is None:
            self._ruleset = _compiled(self.digest, self.document, self.plugins)
        return self._ruleset

    @property
    def digest(self) -> str:
        if not self._digest:
            self._digest = hashlib.sha256(pickle.dumps(self.document)).hexdigest()
        return self._digest

    def __getstate__(self) -> tuple:
        if self.document is None:
            raise ValueError("running games in other processes here needs the ruleset's source (or document)")
        return (self.document, self.plugins, self.digest)

    def __setstate__(self, state: tuple) -> None:
        self.document, self.plugins, self._digest = state
        self._ruleset = None


def _with_absolute_file(document: Any) -> Any:
    """The document, naming its rule file by its absolute path (a worker elsewhere would
    resolve a relative one in its own directory)."""
    file = getattr(document, "file", None)
    if not isinstance(file, str) or not file or file == "-" or file.startswith("<") or os.path.isabs(file):
        return document
    absolute = str(Path(file).resolve())
    if attrs.has(type(document)):
        return attrs.evolve(document, file=absolute)
    import copy

    out = copy.copy(document)
    out.file = absolute
    return out


def _compiled(digest: str, document: Any, plugins: Sequence[str]) -> CompiledRuleset:
    ruleset = _COMPILED.get(digest)
    if ruleset is None:
        from ruledraft.language.build import compile_ruleset
        from ruledraft.language.kinds import load_plugin

        for spec in plugins:  # the plug-ins the client loaded (files at the same path)
            load_plugin(spec)
        ruleset = compile_ruleset(document)
        _COMPILED[digest] = ruleset
        while len(_COMPILED) > 4:
            _COMPILED.popitem(last=False)
    return ruleset
