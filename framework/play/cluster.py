"""Simulations on a Dask cluster (the optional extra ``ruledraft[dask]``).

The games of a run are cut into chunks; each chunk is one task that plays its games
with :func:`ruledraft.play.runner.play_chunk` (the step the local worker processes
use too), so a cluster counts and logs exactly the games ``--jobs 1`` does, seed for
seed. The chunks' tallies are merged on the cluster, two at a time, up a tree:
only the final :class:`~ruledraft.play.runner.Tally` comes back. With a log, each
chunk's records come back as well and are handed over in game order as soon as the
chunks before them are in.

``compare``'s chunks (both sides' games, :func:`ruledraft.lab.compare.play_chunk`) go
up the same tree (:func:`run_chunks` takes any chunk function and its tally), and a
sweep plays every player count on one client.

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
from typing import TYPE_CHECKING, Any, NoReturn

from ruledraft.errors import InputError, RuledraftError
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.runner import Chunk, StopSignals, Summary, Tally, WorkerError, play_chunk, steady_heap

if TYPE_CHECKING:
    from ruledraft.lab.compare import CompareTally, Side

#: how long to try reaching a scheduler before saying it cannot be reached
CONNECT_TIMEOUT = 5.0

#: the games in one task: at most this many (fewer with a log, whose records travel)
CHUNK_CAP = 2000
LOG_CHUNK_CAP = 200

#: the states of a task that will not give a result (a lost one, "pending" again, is recomputed)
FAILED = ("error", "cancelled")

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
                    dashboard_address=":0",
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
    log: bool,
    cards: bool,
    start: int,
    end: int,
) -> Chunk:
    """``simulate``'s task: games ``start..end`` of the run (:func:`ruledraft.play.runner.play_chunk`)."""
    ruleset = _compiled(digest, document, plugins)
    with steady_heap():
        return play_chunk(ruleset, players, seed, bots, start, end, log, cards=cards)


def _play_sides(
    document_a: Any,
    digest_a: str,
    document_b: Any,
    digest_b: str,
    plugins: Sequence[str],
    side_a: tuple[int, tuple[str, ...], int],
    side_b: tuple[int, tuple[str, ...], int],
    paired: bool,
    start: int,
    end: int,
) -> CompareTally:
    """``compare``'s task: games ``start..end`` of both sides (:func:`ruledraft.lab.compare.play_chunk`);
    a side travels as (players, bots, seed) beside its ruleset's document."""
    from ruledraft.lab.compare import Side
    from ruledraft.lab.compare import play_chunk as play_compare_chunk

    a = Side(_compiled(digest_a, document_a, plugins), *side_a)
    b = Side(_compiled(digest_b, document_b, plugins), *side_b)
    with steady_heap():
        return play_compare_chunk(a, b, paired, start, end)


def _records(chunk: Chunk) -> tuple:
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
    """Games per task: about sixteen tasks per worker (so they finish together and the
    progress moves), capped so that no task holds much."""
    cap = LOG_CHUNK_CAP if log else CHUNK_CAP
    return max(1, min(cap, -(-games // (16 * max(1, workers)))))


def _shared(client: Any, document: Any) -> tuple[Any, str]:
    """A ruleset's checked document kept on the cluster for the run's tasks, and its digest
    (the key workers compile it under)."""
    digest = hashlib.sha256(pickle.dumps(document)).hexdigest()
    return client.submit(_document, document, key=f"ruledraft-document-{uuid.uuid4().hex[:12]}"), digest


def _plugins(plugins: Sequence[str] | None) -> tuple[str, ...]:
    if plugins is None:
        from ruledraft.language.kinds import loaded_plugins

        plugins = loaded_plugins()
    return tuple(plugins)


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
    cards: bool = True,
) -> Tally:
    """Play ``games`` games of the ruleset in the checked ``document`` on the cluster
    ``client`` talks to, and return their tally (reduced on the cluster): the chunks of
    :func:`ruledraft.play.runner.play_chunk` through :func:`run_chunks`.

    ``on_record``, ``progress`` and ``stop`` as for :func:`run_chunks`.
    ``plugins``: the scoring-kind plug-ins workers load (by default the ones loaded here).
    ``cards``: count the per-card figures too (as ``simulate --cards``).
    """
    plugins = _plugins(plugins)
    bots = list(bots)
    doc, digest = _shared(client, document)

    def empty() -> Tally:
        return play_chunk(_compiled(digest, document, ()), players, seed, bots, 0, 0, cards=cards).tally

    tally: Tally = run_chunks(
        client,
        games,
        _play,
        (doc, digest, plugins, players, seed, bots, on_record is not None, cards),
        empty,
        on_record=on_record,
        progress=progress,
        stop=stop,
    )
    return tally


def run_chunks(
    client: Any,
    games: int,
    play: Callable[..., Any],
    args: Sequence[Any],
    empty: Callable[[], Any],
    *,
    on_record: Callable[[dict], None] | None = None,
    progress: Callable[[int], None] | None = None,
    stop: StopSignals | None = None,
) -> Any:
    """Play ``games`` games on the cluster ``client`` talks to, in chunks, and return their
    tally, reduced on the cluster.

    Each chunk is the task ``play(*args, start, end)`` (``args`` may hold futures, such as
    a shared document): a :class:`~ruledraft.play.runner.Chunk` (its tally, and its records
    with a log), or a tally itself; tallies merge with their ``merge``, exactly, in any
    order. ``empty()`` gives the tally of no games (the result when nothing finished).

    A few chunks per worker are queued at a time (a long run holds little anywhere).
    Each finished chunk's tally is merged on the cluster with the next one ready,
    two at a time, so only the last merge comes back. ``on_record`` (a log: the chunks
    are then Chunks with records) receives every game's record, in game order, as soon
    as the games before it are in; ``progress`` the number of games of each finished
    chunk. When ``stop`` is requested the queued chunks are cancelled and the tally
    counts exactly the chunks finished by then (each of their records handed over, in
    order).
    """
    from distributed import as_completed, wait

    log = on_record is not None
    emit: Callable[[dict], None] = on_record if on_record is not None else (lambda record: None)
    args = tuple(args)
    workers = max(1, len(client.scheduler_info().get("workers", {})))
    size = chunk_size(games, workers, log)
    window = 4 * workers  # chunks queued or running at a time (workers that join later widen it)
    run = uuid.uuid4().hex[:12]

    next_start = 0  # of the next chunk to submit
    running: dict[str, tuple[int, Any, Any]] = {}  # chunk key -> (start, chunk, records)
    ready: list[Any] = []  # finished chunks and merges, not merged yet
    merging: dict[str, Any] = {}  # merges on their way
    waiting: dict[int, Any] = {}  # start -> records future (or records), until written in order
    written = 0  # the start of the next chunk to write
    pending = as_completed()
    merges = 0

    def submit_chunk() -> None:
        nonlocal next_start
        start, end = next_start, min(games, next_start + size)
        next_start = end
        chunk = client.submit(play, *args, start, end, key=f"ruledraft-chunk-{run}-{start}")
        records = client.submit(_records, chunk, key=f"ruledraft-records-{run}-{start}") if log else None
        running[chunk.key] = (start, chunk, records)
        pending.add(chunk)

    def merge_ready() -> None:
        nonlocal merges
        while len(ready) >= 2:
            a, b = ready.pop(), ready.pop()
            future = client.submit(_merge, a, b, key=f"ruledraft-merge-{run}-{merges}")
            merges += 1
            merging[future.key] = future
            pending.add(future)

    def write_in_order(block: bool) -> None:
        nonlocal written
        while written in waiting:
            item = waiting[written]
            if not isinstance(item, tuple):
                if not block and item.status == "pending":
                    return
                if item.status in FAILED:
                    _raise_failure(item)
                item = item.result()
            del waiting[written]
            for record in item:
                emit(record)
            written = min(games, written + size)

    try:
        while next_start < games and len(running) < window:
            submit_chunk()
        while not pending.is_empty():
            if stop is not None and stop.requested():
                break
            batch = pending.next_batch(block=False)
            if not batch:
                if log:
                    write_in_order(block=False)
                if stop is not None:
                    if select.select([stop], [], [], 0.05)[0]:
                        stop.drain()
                else:
                    time.sleep(0.05)
                continue
            for future in batch:
                if future.status in FAILED:  # "pending" again is a result lost with its worker: recomputed
                    _raise_failure(future)
                if future.key in merging:
                    del merging[future.key]
                else:
                    start, chunk, records = running.pop(future.key)
                    if log:
                        waiting[start] = records
                    if progress is not None:
                        progress(min(games, start + size) - start)
                    window = max(window, 4 * len(client.scheduler_info().get("workers", {})))
                    while next_start < games and len(running) < window and (stop is None or not stop.requested()):
                        submit_chunk()
                ready.append(future)
            merge_ready()
            if log:
                write_in_order(block=False)
        # the end, or a stop: what is still running is dropped, what finished is counted
        with _quiet():
            client.cancel([c for _, c, _ in running.values()] + [r for _, _, r in running.values() if r is not None])
        running.clear()
        wait(list(merging.values()))
        for future in merging.values():
            if future.status in FAILED:
                _raise_failure(future)
            ready.append(future)
        merging.clear()
        if log:
            write_in_order(block=True)
            for start in sorted(waiting):  # finished games after a gap (a stop): logged too
                written = start
                write_in_order(block=True)
        if not ready:  # nothing played: an empty tally of this table
            return empty()
        total = client.submit(_merge, *ready, key=f"ruledraft-merge-{run}-total")
        try:
            tally = total.result()
        except Exception:  # noqa: BLE001 - the failure of a task, told as one message
            _raise_failure(total)
        return tally
    except BaseException:  # an error or an interrupt: nothing left running for this run
        with _quiet():
            client.cancel([c for _, c, _ in running.values()] + list(merging.values()))
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
    cards: bool = True,
) -> Summary:
    """:func:`ruledraft.play.runner.simulate` on a cluster: the scheduler at ``scheduler``
    or a ``LocalCluster`` of ``local_workers`` processes (started and closed here).

    SIGINT or SIGTERM stops the run as it stops the local one: the summary counts the
    chunks finished by then (``Summary.signal`` says which signal); a second signal
    ends the process at once, killing a local cluster's workers first.
    """
    with StopSignals() as stop:
        with connect(scheduler, local_workers) as client:
            started = time.perf_counter()  # the games' time, not the cluster's start
            if local_workers is not None:
                pids = list(client.run(os.getpid).values())
                stop.on_second.append(lambda: _kill(pids))
            if stop.requested():
                tally = play_chunk(ruleset, players, seed, bots, 0, 0, cards=cards).tally
            else:
                tally = run_on_cluster(
                    client,
                    document,
                    players,
                    bots,
                    games,
                    seed,
                    on_record=on_record,
                    progress=progress,
                    stop=stop,
                    cards=cards,
                )
            elapsed = time.perf_counter() - started
        return tally.summary(ruleset.id, players, seed, bots, elapsed, requested=games, signum=stop.signum)


def play_sides_on_cluster(
    a: Side,
    b: Side,
    documents: tuple[Any, Any],
    games: int,
    *,
    paired: bool,
    scheduler: str | None = None,
    local_workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    plugins: Sequence[str] | None = None,
) -> CompareTally:
    """:func:`ruledraft.lab.compare.play_sides` on a cluster (as :func:`simulate_on_cluster`
    connects): the same chunks, merged up the same tree; ``documents`` are the two sides'
    checked documents (the same object for both when the sides share a ruleset)."""
    from ruledraft.lab.compare import empty_compare_tally

    with connect(scheduler, local_workers) as client:
        doc_a, digest_a = _shared(client, documents[0])
        doc_b, digest_b = (doc_a, digest_a) if documents[1] is documents[0] else _shared(client, documents[1])
        result: CompareTally = run_chunks(
            client,
            games,
            _play_sides,
            (
                doc_a,
                digest_a,
                doc_b,
                digest_b,
                _plugins(plugins),
                (a.players, a.bots, a.seed),
                (b.players, b.bots, b.seed),
                paired,
            ),
            lambda: empty_compare_tally(a, b, paired),
            progress=progress,
        )
    return result


def sweep_on_cluster(
    ruleset: CompiledRuleset,
    document: Any,
    counts: Sequence[int],
    games: int,
    seed: int,
    bots: Callable[[int], list[str]],
    spec: str,
    *,
    scheduler: str | None = None,
    local_workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[dict, int]:
    """:func:`ruledraft.lab.sweep.sweep` on a cluster: every player count's games on the one
    client (connected as :func:`simulate_on_cluster` connects), each count's tally
    reduced there. A stop signal ends the sweep as it ends a local one."""
    from ruledraft.lab.sweep import sweep

    with StopSignals() as stop:
        with connect(scheduler, local_workers) as client:
            if local_workers is not None:
                pids = list(client.run(os.getpid).values())
                stop.on_second.append(lambda: _kill(pids))

            def play_count(
                rs: CompiledRuleset,
                players: int,
                n: int,
                seed: int,
                names: Sequence[str],
                *,
                progress: Callable[[int], None] | None = None,
            ) -> Summary:
                tally = run_on_cluster(
                    client, document, players, names, n, seed, progress=progress, stop=stop, cards=True
                )
                return tally.summary(rs.id, players, seed, names, requested=n, signum=stop.signum)

            return sweep(ruleset, counts, games, seed, bots, spec, progress=progress, play=play_count)


def _kill(pids: Sequence[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
