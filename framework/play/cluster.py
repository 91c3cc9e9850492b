"""Simulations on a Dask cluster (the optional extra ``ruledraft[dask]``).

The games of a run are cut into chunks; each chunk is one task that plays its games
with :func:`ruledraft.play.runner.play_chunk` (the step the local worker processes
use too), so a cluster counts and logs exactly the games ``--jobs 1`` does, seed for
seed. The chunks' tallies are merged on the cluster, two at a time, up a tree:
only the final :class:`~ruledraft.play.runner.Tally` comes back. With a log, each
chunk's records come back as well and are handed over in game order as soon as the
chunks before them are in.

Tasks are pure (every game's seed comes from the run's seed and the game's index):
when a worker is lost, the scheduler runs its tasks again elsewhere and they give the
same results; the client takes each chunk's records once, so nothing is counted or
logged twice.

Workers receive the ruleset as its checked document (they may not see the rule
file) and compile it once per process. Every Dask import stays in this module.
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import logging
import os
import pickle
import select
import signal
import time
import uuid
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NoReturn

from ruledraft.errors import InputError, RuledraftError
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.runner import Chunk, StopSignals, Summary, Tally, WorkerError, play_chunk, steady_heap

#: how long to try reaching a scheduler before saying it cannot be reached
CONNECT_TIMEOUT = 5.0

#: the games in one task: at most this many (fewer with a log, whose records travel)
CHUNK_CAP = 2000
LOG_CHUNK_CAP = 200

INSTALL_HINT = "running on a Dask cluster needs the dask extra: pip install 'ruledraft[dask]'"


class ClusterError(RuledraftError):
    """The cluster cannot be used: dask is missing, the scheduler cannot be reached,
    or a local cluster did not start."""


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
    after an error or an interrupt). :class:`ClusterError` if neither can be had."""
    require_dask()
    from distributed import Client, LocalCluster

    if (scheduler is None) == (local_workers is None):
        raise ValueError("connect takes a scheduler address or a number of local workers")
    if local_workers is not None:
        # the workers ignore Ctrl-C (it reaches the whole process group): this process
        # decides when the run stops, and closes them
        with _quiet(), _ignoring_sigint():
            try:
                cluster = LocalCluster(
                    n_workers=local_workers,
                    threads_per_worker=1,
                    processes=True,
                    dashboard_address=None,
                    scheduler_kwargs={"dashboard": False},
                    silence_logs=logging.CRITICAL,
                )
            except Exception as e:  # noqa: BLE001 - any failure to start is one message
                raise ClusterError(
                    f"a local Dask cluster of {local_workers} workers did not start: {_reason(e)}"
                ) from None
        try:
            with _quiet():
                client = Client(cluster, timeout=CONNECT_TIMEOUT)
            try:
                yield client
            finally:
                with _quiet():
                    client.close()
        finally:
            with _quiet():
                cluster.close()
        return
    assert scheduler is not None
    try:
        with _quiet():
            client = Client(scheduler, timeout=CONNECT_TIMEOUT)
    except Exception as e:  # noqa: BLE001 - a wrong address, a refused connection, a timeout
        raise ClusterError(
            f"cannot reach the Dask scheduler at {scheduler} within {CONNECT_TIMEOUT:g} s: {_reason(e)}"
        ) from None
    try:
        yield client
    finally:
        with _quiet():
            client.close()


def _reason(e: BaseException) -> str:
    text = " ".join(str(e).split())
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """Dask's own log lines (warnings about ports, closing comms) stay off the terminal."""
    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        log.setLevel(level)


@contextlib.contextmanager
def _ignoring_sigint() -> Iterator[None]:
    """Processes started meanwhile inherit SIGINT ignored (Python keeps it so)."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


# ---------------------------------------------------------------- on the workers

#: compiled rulesets by the digest of their document, a few per worker process
_COMPILED: OrderedDict[str, CompiledRuleset] = OrderedDict()


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


def _document(document: Any) -> Any:
    """The ruleset document as a task's result: kept on the cluster, recomputed if lost."""
    return document


def _play(
    document: Any,
    digest: str,
    plugins: Sequence[str],
    players: int,
    seed: int,
    bots: Sequence[str],
    start: int,
    end: int,
    log: bool,
) -> Chunk:
    ruleset = _compiled(digest, document, plugins)
    with steady_heap():
        return play_chunk(ruleset, players, seed, bots, start, end, log)


def _records(chunk: Chunk) -> tuple:
    return chunk.records


def _merge(*parts: Chunk | Tally) -> Tally:
    """One tally of the parts (chunks or tallies), without changing them (a task's
    inputs may be read again)."""
    tallies = [p.tally if isinstance(p, Chunk) else p for p in parts]
    out = copy.deepcopy(tallies[0])
    for t in tallies[1:]:
        out.merge(t)
    return out


# ---------------------------------------------------------------- on the client


def chunk_size(games: int, workers: int, log: bool) -> int:
    """Games per task: about sixteen tasks per worker (so they finish together and the
    progress moves), capped so that no task holds much."""
    cap = LOG_CHUNK_CAP if log else CHUNK_CAP
    return max(1, min(cap, -(-games // (16 * max(1, workers)))))


def run_on_cluster(
    client: Any,
    document: Any,
    players: int,
    bots: Sequence[str],
    games: int,
    seed: int,
    *,
    on_record: Callable[[dict], None] | None = None,
    progress: Callable[[int], None] | None = None,
    stop: StopSignals | None = None,
    plugins: Sequence[str] | None = None,
) -> Tally:
    """Play ``games`` games of the ruleset in the checked ``document`` on the cluster
    ``client`` talks to, and return their tally (reduced on the cluster).

    ``on_record`` (a log) receives every game's record, in game order, as soon as the
    games before it are in; ``progress`` the number of games of each finished chunk.
    When ``stop`` is requested the queued tasks are cancelled and the tally counts
    exactly the chunks finished by then (each of their records handed over, in order).
    ``plugins``: the scoring-kind plug-ins workers load (by default the ones loaded here).
    """
    from distributed import as_completed

    if plugins is None:
        from ruledraft.language.kinds import loaded_plugins

        plugins = loaded_plugins()
    log = on_record is not None
    emit: Callable[[dict], None] = on_record if on_record is not None else (lambda record: None)
    bots = list(bots)
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    size = chunk_size(games, workers, log)
    run = uuid.uuid4().hex[:12]
    digest = hashlib.sha256(pickle.dumps(document)).hexdigest()
    doc = client.submit(_document, document, key=f"ruledraft-document-{run}")
    starts = list(range(0, games, size))
    chunks = [
        client.submit(
            _play,
            doc,
            digest,
            tuple(plugins),
            players,
            seed,
            bots,
            s,
            min(games, s + size),
            log,
            key=f"ruledraft-chunk-{run}-{s}",
        )
        for s in starts
    ]
    records = (
        [client.submit(_records, c, key=f"ruledraft-records-{run}-{s}") for c, s in zip(chunks, starts)] if log else []
    )
    level: list[Any] = list(chunks)
    depth = 0
    while len(level) > 1 or depth == 0:  # chunks are merged at least once: the root is a Tally
        level = [
            client.submit(_merge, *level[i : i + 2], key=f"ruledraft-merge-{run}-{depth}-{i}")
            for i in range(0, len(level), 2)
        ]
        depth += 1
    root = level[0]

    watched = records if log else chunks
    start_of = {f.key: s for f, s in zip(watched, starts)}
    waiting: dict[int, tuple] = {}  # records that arrived before the chunks ahead of them
    next_start = 0
    seen: set[int] = set()

    def hand_over() -> None:
        nonlocal next_start
        while next_start in waiting:
            for record in waiting.pop(next_start):
                emit(record)
            next_start = next_start + size

    def take(futures: list) -> None:
        failed = [f for f in futures if f.status != "finished"]
        if failed:
            _raise_failure(failed[0])
        fresh = [f for f in futures if start_of[f.key] not in seen]
        if log:
            for f, recs in zip(fresh, client.gather(fresh)):
                waiting[start_of[f.key]] = recs
            hand_over()
        for f in fresh:
            s = start_of[f.key]
            seen.add(s)
            if progress is not None:
                progress(min(games, s + size) - s)

    try:
        pending = as_completed(watched)
        while not pending.is_empty():
            if stop is not None and stop.requested():
                break
            batch = pending.next_batch(block=False)
            if batch:
                take(batch)
                continue
            if stop is not None:
                ready, _, _ = select.select([stop], [], [], 0.1)
                if ready:
                    stop.drain()
            else:
                time.sleep(0.05)
        if stop is None or not stop.requested():
            try:
                tally: Tally = root.result()
            except Exception:  # noqa: BLE001 - the failure of a task, told as one message
                _raise_failure(root)
            return tally
        # stopped: count the chunks finished by now, no more
        finished = [c.status == "finished" for c in chunks]
        client.cancel([root] + [c for c, f in zip(chunks, finished) if not f])
        if log:
            late = [r for s, r, f in zip(starts, records, finished) if f and s not in seen]
            for r, recs in zip(late, client.gather(late)):
                waiting[start_of[r.key]] = recs
            for s in sorted(waiting):  # finished games, so logged too (the last ones possibly after a gap)
                for record in waiting.pop(s):
                    emit(record)
        done = [c for c, f in zip(chunks, finished) if f]
        if not done:  # nothing played: an empty tally of this table
            return play_chunk(_compiled(digest, document, ()), players, seed, bots, 0, 0).tally
        stopped: Tally = client.submit(_merge, *done, key=f"ruledraft-merge-{run}-stopped").result()
        return stopped
    except BaseException:  # an error or an interrupt: nothing left running for this run
        with _quiet():
            client.cancel([f for f in (root, *chunks, *records) if not f.done()])
        raise


def _raise_failure(future: Any) -> NoReturn:
    """Raise the failure of a task: a problem of the ruleset or a bot as itself, anything
    else (a worker lost too often, an import missing on a worker) as :class:`WorkerError`."""
    try:
        error = future.exception()
    except Exception as e:  # noqa: BLE001 - a cancelled task (its workers gone) has no exception to show
        error = e
    if isinstance(error, RuledraftError):
        raise error
    raise WorkerError(f"a task on the Dask cluster failed: {_reason(error) if error is not None else future.status}")


def simulate_on_cluster(
    ruleset: CompiledRuleset,
    document: Any,
    players: int,
    games: int,
    seed: int,
    bots: Sequence[str],
    *,
    scheduler: str | None = None,
    local_workers: int | None = None,
    on_record: Callable[[dict], None] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Summary:
    """:func:`ruledraft.play.runner.simulate` on a cluster: the scheduler at ``scheduler``
    or a ``LocalCluster`` of ``local_workers`` processes (started and closed here).

    SIGINT or SIGTERM stops the run as it stops the local one: the summary counts the
    chunks finished by then (``Summary.signal`` says which signal); a second signal
    ends the process at once, killing a local cluster's workers first.
    """
    started = time.perf_counter()
    with StopSignals() as stop:
        with connect(scheduler, local_workers) as client:
            if local_workers is not None:
                pids = list(client.run(os.getpid).values())
                stop.on_second.append(lambda: _kill(pids))
            if stop.requested():
                tally = play_chunk(ruleset, players, seed, bots, 0, 0).tally
            else:
                tally = run_on_cluster(
                    client, document, players, bots, games, seed, on_record=on_record, progress=progress, stop=stop
                )
        return tally.summary(
            ruleset.id, players, seed, bots, time.perf_counter() - started, requested=games, signum=stop.signum
        )


def _kill(pids: Sequence[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
