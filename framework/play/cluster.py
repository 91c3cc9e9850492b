"""Runs on a Dask cluster (the optional extra ``ruledraft[dask]``): the executor's
cluster backend (:class:`DaskBackend`).

The games of a run are cut into chunks; each chunk is one task that plays its games
with the run's work (:class:`ruledraft.play.executor.Work`, the same step local worker
processes take), so a cluster counts and logs exactly the games ``--jobs 1`` does,
seed for seed. The chunks' tallies are merged on the cluster, two at a time, up a
tree: only the final tally comes back. With a log, each chunk's records come back as
the log's lines, written on the worker, and are handed over in game order as soon as
the chunks before them are in.

Tasks are pure (every game's seed comes from the run's seed and the game's index):
when a worker is lost, the scheduler runs its tasks again elsewhere and they give the
same results; a task that runs far longer than the others (a hung worker) is played
again on another worker, and the first copy to finish counts; the client takes each
chunk's records once, so nothing is counted or logged twice.

The client resolves every path before shipping (the rule file, bot files, plug-ins);
workers receive the ruleset as its checked document (they may not see the rule file)
and compile it once per process, and must run this client's version of ruledraft.
Every Dask import stays in this module.
"""

from __future__ import annotations

import contextlib
import copy
import os
import signal
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from ruledraft.errors import InputError, RuledraftError, ScoringError
from ruledraft.play import executor
from ruledraft.play.agents import BotFailure
from ruledraft.play.executor import STOP_SIGNALS, Chunk, Fold, ShippedRuleset, StopSignals, Work, WorkerError
from ruledraft.play.runner import GamesWork, Tally

#: how long to try reaching a scheduler before saying it cannot be reached
CONNECT_TIMEOUT = 5.0

#: Dask's settings for a local cluster (``--cluster local:N``), whose processes reach one
#: another on this machine. A worker that wants a result from a worker that died (killed
#: mid-run) tries to connect to it until ``distributed.comm.timeouts.connect`` passes
#: before asking the scheduler for it again: 30 s by default, and a run waited that long
#: for its last chunks. Here a peer that does not answer in the time a scheduler is given
#: is taken for gone. The workers take the settings from the cluster as it starts them.
LOCAL_CLUSTER_CONFIG = {"distributed.comm.timeouts.connect": f"{CONNECT_TIMEOUT:g}s"}

#: the games in one task: at most this many (fewer with a log, whose records travel)
CHUNK_CAP = 2000
LOG_CHUNK_CAP = 200

#: a task running longer than this (seconds), and than ``TASK_TIME_FACTOR`` times the
#: slowest chunk so far, is taken for hung and played again on another worker
TASK_TIME_FLOOR = 120.0
TASK_TIME_FACTOR = 20

#: the states of a task that will not give a result (a lost one, "pending" again, is recomputed)
FAILED = ("error", "cancelled")

INSTALL_HINT = "running on a Dask cluster needs the dask extra: pip install 'ruledraft[dask]'"


class ClusterError(RuledraftError):
    """The cluster cannot be used: dask is missing, the scheduler cannot be reached or
    was lost, a worker runs another version, or a local cluster did not start."""


class OnWorkerError(RuledraftError):
    """A problem that arose on a worker (a file it cannot read, a plug-in it cannot
    load), said as arising there."""


def require_dask() -> None:
    """:class:`ClusterError` saying how to install the extra, unless ``distributed`` imports."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise ClusterError(INSTALL_HINT) from None


def parse_cluster(text: str) -> int:
    """``--cluster local:N`` -> N, the number of worker processes (:class:`InputError` if not)."""
    kind, _, count = text.strip().partition(":")
    try:
        n = int(count)
    except ValueError:
        n = 0
    if kind != "local" or n < 1:
        raise InputError(f"--cluster takes local:N (N worker processes on this machine), not {text!r}")
    return n


@contextlib.contextmanager
def connect(scheduler: str | None = None, local_workers: int | None = None) -> Iterator[Any]:
    """A ``distributed.Client`` of the scheduler at ``scheduler``, or of a ``LocalCluster``
    of ``local_workers`` worker processes started here and closed on leaving (also
    after an error or an interrupt). :class:`ClusterError` if neither can be had.
    Dask's own log lines stay off the terminal meanwhile."""
    require_dask()
    import logging

    import dask
    from distributed import Client, LocalCluster

    if (scheduler is None) == (local_workers is None):
        raise ValueError("connect takes a scheduler address or a number of local workers")
    with _quiet():
        if local_workers is not None:
            # the workers ignore Ctrl-C and SIGTERM (each reaches the whole process group, as
            # from a terminal, `timeout` or `kill -- -PGID`): this process
            # decides when the run stops, and closes them
            with _ignoring_stops(), dask.config.set(LOCAL_CLUSTER_CONFIG):
                try:
                    cluster = LocalCluster(
                        n_workers=local_workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=":0",
                        scheduler_kwargs={"dashboard": False},
                        silence_logs=logging.CRITICAL,
                    )
                except Exception as e:  # noqa: BLE001 - any failure to start is one message
                    raise ClusterError(
                        f"a local Dask cluster of {local_workers} workers did not start: {_reason(e)}"
                    ) from None
            try:
                client = Client(cluster, timeout=CONNECT_TIMEOUT)
                try:
                    yield client
                finally:
                    client.close()
            finally:
                cluster.close()
            return
        assert scheduler is not None
        problem = address_problem(scheduler)
        if problem is not None:
            raise ClusterError(problem)
        try:
            _probe(scheduler)
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError) as e:  # a wrong address, a refused connection, a timeout
            raise ClusterError(
                f"cannot reach the Dask scheduler at {scheduler} within {CONNECT_TIMEOUT:g} s: {_reason(e)}"
            ) from None
        except Exception:  # noqa: BLE001 - something answered, but its bytes are no Dask message
            raise ClusterError(
                f"something answers at {scheduler}, but not as a Dask scheduler does "
                "(is it the scheduler's address and port? 8786 unless it was started with another)"
            ) from None
        try:
            _some_worker(client, scheduler)
            yield client
        finally:
            with contextlib.suppress(Exception):  # a lost scheduler: nothing left to close
                client.close(timeout=2)


def _some_worker(client: Any, scheduler: str) -> None:
    """Say so on standard error where the scheduler has no worker yet, and how to start
    one: the run waits for them (an adaptive cluster starts its workers once tasks are
    queued, a batch system once its jobs run), and would otherwise wait in silence."""
    if client.nthreads():
        return
    sys.stderr.write(
        f"waiting for a worker: the Dask scheduler at {scheduler} has none yet "
        f"(start them with `dask worker {scheduler}`; Ctrl-C stops)\n"
    )
    sys.stderr.flush()


#: the address schemes a Dask client speaks (``tcp`` when none is written)
SCHEMES = ("tcp", "tls", "inproc", "ucx", "ws", "wss")


def address_problem(address: str) -> str | None:
    """What is wrong with the form of a scheduler's address (None: nothing), said before
    anything is asked of it: another scheme (``http://``), or no port."""
    scheme, sep, rest = address.rpartition("://")
    form = "tcp://HOST:PORT (8786 unless the scheduler was started with another)"
    if sep and scheme not in SCHEMES:
        return f"a Dask scheduler's address is {form}, not {address} ({scheme}:// is not one of {', '.join(SCHEMES)})"
    host, _, port = rest.rpartition(":")
    if scheme != "inproc" and (not host or not (port.isascii() and port.isdigit())):
        return f"a Dask scheduler's address is {form}, not {address} (it names no port)"
    return None


def _probe(address: str) -> None:
    """Fail at once (not after the whole connect timeout) when nothing listens at a TCP
    address: a wrong port or host answers a plain connection straight away."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp"):
        return  # tls, ucx, ...: the client's own handshake decides
    host, _, port = rest.rpartition(":")
    if not host or not (port.isascii() and port.isdigit()):
        return
    import socket

    with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT):
        pass


def _reason(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


_NOISY = ("distributed", "tornado", "asyncio")


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Dask's own log lines (warnings about ports, closing comms, a lost scheduler) stay
    off the terminal: every logger of ``distributed`` (whose own configuration gives
    some of them levels of their own) and of the libraries under it."""
    import logging  # (imported here: a run without a cluster imports this module too)

    manager = logging.getLogger().manager
    names = [n for n in list(manager.loggerDict) if n.split(".")[0] in _NOISY] + list(_NOISY)
    saved = {}
    for name in dict.fromkeys(names):
        log = logging.getLogger(name)
        saved[name] = log.level
        log.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for name, level in saved.items():
            logging.getLogger(name).setLevel(level)


@contextlib.contextmanager
def _ignoring_stops() -> Iterator[None]:
    """Processes started meanwhile inherit SIGINT, SIGTERM and SIGHUP ignored (Python keeps
    them so): a signal to the whole group leaves the workers, and the results they hold,
    to this process, which counts what finished and closes them. (A worker killed by
    the group's SIGTERM lost its chunks' results, which Dask then computed again on a
    new worker before the run could end: 11-14 s.)"""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {s: signal.signal(s, signal.SIG_IGN) for s in STOP_SIGNALS}
    try:
        yield
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


# ---------------------------------------------------------------- on the workers


def _version() -> str:
    from ruledraft.version import __version__

    return __version__


def _shared(work: Work) -> Work:
    """The run's work as a task's result: kept on the cluster (once per worker that
    needs it), recomputed if lost."""
    return work


def _play(version: str, work: Work, start: int, end: int) -> Chunk:
    """A chunk's task: games ``start..end`` of the work, by a worker of this version."""
    if _version() != version:
        raise OnWorkerError(_other_version(_here(), _version(), version))
    try:
        return work.play(start, end)
    except (BotFailure, ScoringError):  # as it is when the games run here
        raise
    except RuledraftError as e:  # a file the worker cannot read, a plug-in it cannot load
        raise OnWorkerError(f"on the Dask worker at {_here()}: {e}") from None


def _here() -> str:
    from distributed import get_worker

    try:
        return str(get_worker().address)
    except ValueError:
        return "?"


def _other_version(where: str, theirs: str, mine: str) -> str:
    return (
        f"the Dask worker at {where} runs ruledraft {theirs}, not {mine} as this client does: install the same version"
    )


def _records(chunk: Chunk) -> Any:
    return chunk.records


def _merge(*parts: Any) -> Any:
    """One tally of the parts (chunks, or tallies with a ``merge``), without changing
    them (a task's inputs may be read again)."""
    tallies = [p.tally if isinstance(p, Chunk) else p for p in parts]
    out = copy.deepcopy(tallies[0])
    for t in tallies[1:]:
        out.merge(t)
    return out


# ---------------------------------------------------------------- on the client


def chunk_size(games: int, workers: int, log: bool) -> int:
    """Games per task: about sixteen tasks per worker thread (so they finish together
    and the progress moves), capped so that no task holds much."""
    cap = LOG_CHUNK_CAP if log else CHUNK_CAP
    return max(1, min(cap, -(-games // (16 * max(1, workers)))))


class DaskBackend:
    """The executor's backend on the cluster ``client`` talks to (:func:`connect`).

    A few chunks per worker thread are queued at a time (a long run holds little
    anywhere); each finished chunk's tally is merged on the cluster with the next one
    ready, two at a time, so only the last merge comes back. ``task_time``: after how
    many seconds a running task is taken for hung and played again elsewhere (by
    default :data:`TASK_TIME_FACTOR` times the slowest chunk so far, at least
    :data:`TASK_TIME_FLOOR`). ``local_pids``: the processes of a local cluster, killed
    by a second stop signal."""

    def __init__(self, client: Any, *, task_time: float | None = None, local_pids: Sequence[int] = ()) -> None:
        self.client = client
        self.task_time = task_time
        self.local_pids = tuple(local_pids)
        self._checked: set[str] = set()

    def threads(self) -> int:
        """The worker threads the cluster has now (checking each new worker's version)."""
        nthreads = self.client.nthreads()
        self.check_versions(nthreads)
        return max(1, sum(nthreads.values()))

    def check_versions(self, workers: Sequence[str]) -> None:
        """:class:`ClusterError` when a worker runs another version of ruledraft."""
        new = [w for w in workers if w not in self._checked]
        if not new:
            return
        mine = _version()
        for where, theirs in self.client.run(_version, workers=new, on_error="ignore").items():
            if isinstance(theirs, str) and theirs != mine:
                raise ClusterError(_other_version(where, theirs, mine))
        self._checked.update(new)

    def play(self, work: Work, games: int, fold: Fold, stop: StopSignals | None) -> None:
        if stop is not None and self.local_pids:
            stop.on_second.append(self._kill_local)
        try:
            with _quiet():
                _Run(self, work, games, fold, stop).run()
        finally:
            if stop is not None and self.local_pids:
                stop.on_second.remove(self._kill_local)

    def _kill_local(self) -> None:
        for pid in self.local_pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def lost(self) -> bool:
        """Whether the connection to the scheduler is gone."""
        return self.client.status != "running"


class _Run:
    """One run's chunks on the cluster (see :class:`DaskBackend`)."""

    def __init__(self, backend: DaskBackend, work: Work, games: int, fold: Fold, stop: StopSignals | None):
        from distributed import as_completed

        self.backend = backend
        self.client = backend.client
        self.games = games
        self.fold = fold
        self.stop = stop
        self.log = fold.wants_records
        threads = backend.threads()
        self.size = min(chunk_size(games, threads, self.log), work.cap)
        self.window = 4 * threads  # chunks queued or running at a time (workers that join later widen it)
        self.counted_at = time.monotonic()
        self.key = uuid.uuid4().hex[:12]
        self.version = _version()
        self.shared = self.client.submit(_shared, work, key=f"ruledraft-work-{self.key}")
        self.next_start = 0
        self.chunks: dict[str, int] = {}  # a chunk task's key -> its start (a task played again: two keys)
        self.running: dict[int, list[Any]] = {}  # start -> its chunk tasks (a copy when one hung)
        self.submitted: dict[int, float] = {}  # start -> when its newest task was submitted
        self.records: dict[str, tuple[int, Any]] = {}  # a records task's key -> its chunk's start, the task
        self.merging: dict[str, Any] = {}
        self.ready: list[Any] = []  # finished chunks and merges, not merged yet
        self.merges = 0
        self.slowest = 0.0
        self.pending = as_completed()

    def requested(self) -> bool:
        return self.stop is not None and self.stop.requested()

    def submit_chunk(self, start: int, end: int, again: int = 0, workers: list[str] | None = None) -> None:
        key = f"ruledraft-chunk-{self.key}-{start}" + (f"-again{again}" if again else "")
        where = {} if workers is None else {"workers": workers, "allow_other_workers": False}
        future = self.client.submit(_play, self.version, self.shared, start, end, key=key, **where)
        self.chunks[key] = start
        self.running.setdefault(start, []).append(future)
        self.submitted[start] = time.monotonic()
        self.pending.add(future)

    def fill(self) -> None:
        if time.monotonic() - self.counted_at > 5:  # workers that joined: a wider window (a cheap call, now and then)
            self.counted_at = time.monotonic()
            self.window = max(self.window, 4 * self.backend.threads())
        while self.next_start < self.games and len(self.running) < self.window and not self.requested():
            start = self.next_start
            self.next_start = min(self.games, start + self.size)
            self.submit_chunk(start, self.next_start)

    def end_of(self, start: int) -> int:
        return min(self.games, start + self.size)

    def finished_chunk(self, future: Any) -> None:
        start = self.chunks.pop(future.key)
        copies = self.running.pop(start, None)
        if copies is None:  # another copy of this chunk finished first
            return
        self.slowest = max(self.slowest, time.monotonic() - self.submitted.pop(start))
        others = [c for c in copies if c.key != future.key]
        if others:
            self.client.cancel(others)
            for c in others:
                self.chunks.pop(c.key, None)
        self.ready.append(future)
        if self.log:
            records = self.client.submit(_records, future, key=f"ruledraft-records-{self.key}-{start}")
            self.records[records.key] = (start, records)
            self.pending.add(records)
        else:
            self.fold.played(start, self.end_of(start))

    def merge_ready(self) -> None:
        while len(self.ready) >= 2:
            a, b = self.ready.pop(), self.ready.pop()
            future = self.client.submit(_merge, a, b, key=f"ruledraft-merge-{self.key}-{self.merges}")
            self.merges += 1
            self.merging[future.key] = future
            self.pending.add(future)

    def take(self, future: Any) -> None:
        key = future.key
        if key in self.merging:
            if future.status in FAILED:
                self.fail(future)
            del self.merging[key]
            self.ready.append(future)
        elif key in self.records:
            if future.status in FAILED:
                self.fail(future)
            start, _ = self.records.pop(key)
            self.fold.played(start, self.end_of(start), future.result())
        elif key in self.chunks:
            if future.status in FAILED:  # "pending" again is a result lost with its worker: recomputed
                self.fail(future)
            self.finished_chunk(future)
        # else a copy of a chunk that another copy finished first (cancelled)

    def replay_hung(self) -> None:
        """Play again elsewhere each chunk running far longer than the others."""
        limit = self.backend.task_time or max(TASK_TIME_FLOOR, TASK_TIME_FACTOR * self.slowest)
        now = time.monotonic()
        late = [s for s, t in self.submitted.items() if now - t > limit and s in self.running]
        if not late:
            return
        processing = self.client.processing()
        for start in late:
            keys = {c.key for c in self.running[start]}
            hung = {w for w, tasks in processing.items() if keys & set(tasks)}
            if not hung:  # still waiting for a worker: not hung
                self.submitted[start] = now
                continue
            others = [w for w in processing if w not in hung]
            self.submit_chunk(start, self.end_of(start), len(keys), others or None)

    def run(self) -> None:
        from distributed import wait

        try:
            self.fill()
            while not self.pending.is_empty() and not self.requested():
                batch = self.pending.next_batch(block=False)
                if not batch:  # (a lost scheduler cancels every task: they come as failed)
                    if self.stop is not None:
                        self.stop.wait(0.05)
                    else:
                        time.sleep(0.05)
                    self.replay_hung()
                    continue
                for future in batch:
                    self.take(future)
                self.merge_ready()
                self.fill()
            # the end, or a stop: what is still running is dropped, what finished is counted
            self.client.cancel([c for copies in self.running.values() for c in copies])
            self.running.clear()
            wait(list(self.merging.values()) + self.records_left())
            for future in list(self.merging.values()):
                self.take(future)
            for future in self.records_left():
                self.take(future)
            if self.ready:
                total = self.client.submit(_merge, *self.ready, key=f"ruledraft-merge-{self.key}-total")
                try:
                    tally = total.result()
                except Exception:  # noqa: BLE001 - the failure of a task, told as one message
                    self.fail(total)
                self.fold.merge(tally)
        except BaseException:  # an error or an interrupt: nothing left running for this run
            if not self.backend.lost():
                running = [c for copies in self.running.values() for c in copies]
                self.client.cancel(running + list(self.merging.values()))
            raise

    def records_left(self) -> list[Any]:
        return [future for _, future in self.records.values()]

    def fail(self, future: Any) -> NoReturn:
        """Raise the failure of a task: a problem of the ruleset or a bot as itself, a lost
        scheduler as :class:`ClusterError`, anything else (a worker lost too often, an
        import missing on a worker) as :class:`WorkerError`."""
        if self.backend.lost():
            raise ClusterError(f"lost the connection to the Dask scheduler at {_address(self.client)} mid-run")
        try:
            error = future.exception()
        except Exception as e:  # noqa: BLE001 - a cancelled task (its workers gone) has no exception to show
            error = e
        if isinstance(error, RuledraftError):
            raise error
        what = _reason(error) if error is not None else future.status
        raise WorkerError(f"a task on the Dask cluster failed: {what}")


def _address(client: Any) -> str:
    try:
        return str(client.scheduler.address)
    except AttributeError:
        return "?"


@contextlib.contextmanager
def backend(
    scheduler: str | None = None, local_workers: int | None = None, *, task_time: float | None = None
) -> Iterator[DaskBackend]:
    """A :class:`DaskBackend` of the scheduler at ``scheduler`` or of a local cluster of
    ``local_workers`` processes (:func:`connect`), for as long as the block lasts."""
    with connect(scheduler, local_workers) as client:
        pids = list(client.run(os.getpid).values()) if local_workers is not None else []
        yield DaskBackend(client, task_time=task_time, local_pids=pids)


def run_on_cluster(
    client: Any,
    document: Any,
    players: int,
    bots: Sequence[str],
    games: int,
    seed: int,
    *,
    on_record: Callable[[dict], None] | None = None,
    on_lines: Callable[[str], None] | None = None,
    progress: Callable[[int], None] | None = None,
    stop: StopSignals | None = None,
    plugins: Sequence[str] | None = None,
    cards: bool = True,
    task_time: float | None = None,
) -> Tally:
    """Play ``games`` games of the ruleset in the checked ``document`` on the cluster
    ``client`` talks to, and return their tally (reduced on the cluster).

    ``on_record`` receives every game's log record, in game order, as soon as the games
    before it are in (``on_lines``: the log's lines, a text per chunk); ``progress``
    the number of games of each finished chunk; when ``stop`` is requested the queued
    chunks are cancelled and the tally counts exactly the chunks finished by then.
    ``plugins``: the scoring-kind plug-ins workers load (by default the ones loaded
    here). ``cards``: count the per-card figures too (as ``simulate --cards``).
    ``task_time`` as for :class:`DaskBackend`."""
    records = "lines" if on_lines is not None else "dicts" if on_record is not None else ""
    work = GamesWork(ShippedRuleset(None, document, plugins), players, seed, bots, records=records, cards=cards)
    deliver: Callable[[Any], None] | None = on_lines
    if on_record is not None:
        emit = on_record

        def deliver(chunk_records: Any) -> None:
            for record in chunk_records:
                emit(record)

    tally: Tally = executor.run(
        work, games, DaskBackend(client, task_time=task_time), on_records=deliver, progress=progress, stop=stop
    )
    return tally
