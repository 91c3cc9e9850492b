"""How many game-log records per second the client of a cluster writes.

On a cluster the workers play the games; the client only receives each chunk's
records and writes them to the ``--log`` file, in game order. This measures that
client path alone, with chunks made beforehand from real games (200 records each,
as a cluster's log chunks are), each one pickled and unpickled as Dask carries it:

* ``lines``: the workers send the log's lines as one text per chunk (what runs now);
* ``dicts``: the workers send the records and the client writes each as JSON (before).

Run: ``python benchmarks/cluster_log_path.py [--games N] [--rounds R]``; the two
alternate, and the median of the rounds is printed with the machine's load.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import tempfile
import time

from ruledraft.cli.simulate import GameLog
from ruledraft.language.loading import load_ruleset
from ruledraft.play.executor import Fold, steady_heap
from ruledraft.play.runner import GamesWork, ShippedRuleset

CHUNK = 200


def chunks(kind: str, games: int) -> list[bytes]:
    """``games`` games' records in pickled chunks (a few real chunks, repeated)."""
    work = GamesWork(ShippedRuleset(load_ruleset("sushi-go")), 4, 0, ["random"] * 4, records=kind)
    made = [pickle.dumps(work.play(start, start + CHUNK)) for start in range(0, 5 * CHUNK, CHUNK)]
    return [made[n % len(made)] for n in range(games // CHUNK)]


def client_path(kind: str, sent: list[bytes], path: str) -> float:
    """Seconds to unpickle every chunk, fold it and write its records to the log."""
    log = GameLog(path, [])
    write = log.write_lines if kind == "lines" else lambda records: [log.write(r) for r in records]
    fold = Fold(_Nothing(), on_records=write)
    with steady_heap():  # as the client runs
        started = time.perf_counter()
        for data in sent:
            chunk = pickle.loads(data)
            fold.played(chunk.start, chunk.end, chunk.records)
        fold.finish()
        log.close()
        return time.perf_counter() - started


class _Nothing:
    def merge(self, other: object) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    sent = {kind: chunks(kind, args.games) for kind in ("lines", "dicts")}
    games = len(sent["lines"]) * CHUNK
    times: dict[str, list[float]] = {"lines": [], "dicts": []}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.rounds):
            for kind in ("dicts", "lines"):
                times[kind].append(client_path(kind, sent[kind], os.path.join(tmp, f"{kind}.jsonl")))
        same = (
            open(os.path.join(tmp, "lines.jsonl"), "rb").read() == open(os.path.join(tmp, "dicts.jsonl"), "rb").read()
        )
    load = os.getloadavg()
    print(f"{games} games, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; the two logs identical: {same}")
    for kind in ("dicts", "lines"):
        median = statistics.median(times[kind])
        print(f"  {kind:>5}: {games / median:>10,.0f} records/s (median of {args.rounds}: {median:.3f} s)")
    print(f"  lines / dicts: {statistics.median(times['dicts']) / statistics.median(times['lines']):.1f}x")


if __name__ == "__main__":
    main()
