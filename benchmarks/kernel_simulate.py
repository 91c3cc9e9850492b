"""``simulate`` as a whole process on each engine: start-up, compile or cache, games, every figure.

    python3 benchmarks/kernel_simulate.py [--repeats 5] [--games 2000 20000] [--bots greedy,random]

For each number of games, ``ruledraft simulate sushi-go --players 4`` is run as a
process of its own with ``--engine reference``, ``kernel`` and ``auto`` in turn,
``--repeats`` times; the median processor time (user + system, the process and its
children) and wall time of each are printed, with the ratios against the reference
engine and the machine's load before and after. The kernel is loaded from the cache
(one run before the timed ones puts it there). Then, in this process, games per
second of ``simulate --jobs 1`` with every figure on the kernel beside the
hand-written engine (``handwritten_sushi_go.py``), in turn. Figures only: nothing
here is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import random  # noqa: E402

import handwritten_sushi_go  # noqa: E402

ENGINES = ("reference", "kernel", "auto")


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def run(games: int, bots: str, engine: str) -> tuple[float, float]:
    """(processor seconds, wall seconds) of one simulate process."""
    command = [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "--players", "4"]
    command += ["--games", str(games), "--seed", "1", "--bots", bots, "--engine", engine, "-q", "--json"]
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"simulate --engine {engine} failed ({proc.returncode})")
    return usage.ru_utime + usage.ru_stime, wall


def whole_process(games: int, bots: str, repeats: int) -> None:
    run(50, bots, "kernel")  # the kernel into the cache
    times: dict[str, list[tuple[float, float]]] = {e: [] for e in ENGINES}
    for _ in range(repeats):
        for engine in ENGINES:
            times[engine].append(run(games, bots, engine))
    ref_cpu = statistics.median(c for c, _ in times["reference"])
    print(f"  {games} games, --bots {bots}:")
    for engine in ENGINES:
        cpu = statistics.median(c for c, _ in times[engine])
        wall = statistics.median(w for _, w in times[engine])
        print(f"    {engine:<10} {cpu:7.2f} s CPU {wall:7.2f} s wall   {ref_cpu / cpu:5.2f}x the reference (CPU)")


def in_process(seconds: float, repeats: int) -> None:
    from ruledraft.lab.figures import LabTally
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.match import Match
    from ruledraft.play.runner import simulate_match

    for players in (2, 4, 5):
        match = Match.build(load_ruleset("sushi-go"), players, ["random"], 1)
        simulate_match(match, 2000, collector=LabTally.for_game, engine="kernel")  # loaded
        kernel, hand = [], []
        for r in range(repeats):
            games = 0
            started = time.process_time()
            while time.process_time() - started < seconds:
                simulate_match(match, 20_000, collector=LabTally.for_game, engine="kernel")
                games += 20_000
            kernel.append(games / (time.process_time() - started))
            rng = random.Random(r)
            games = 0
            started = time.process_time()
            while time.process_time() - started < seconds:
                handwritten_sushi_go.play(players, rng)
                games += 1
            hand.append(games / (time.process_time() - started))
        k, h = statistics.median(kernel), statistics.median(hand)
        print(f"  {players} players: kernel simulate {k:9,.0f} games/s, hand-written {h:8,.0f}, {k / h:5.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--bots", default="greedy,random")
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    print(f"simulate as a whole process ({load()}):")
    for games in args.games:
        whole_process(games, args.bots, args.repeats)
    print(f"simulate --jobs 1 with every figure, random players, CPU time ({load()}):")
    in_process(args.seconds, args.repeats)
    print(f"({load()})")


if __name__ == "__main__":
    main()
