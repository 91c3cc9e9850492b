"""``simulate`` as a whole process on each engine: start-up, compile or cache, games, every figure.

    python3 benchmarks/kernel_simulate.py [--repeats 5] [--games 2000 20000] [--bots greedy,random]

For each number of games, ``ruledraft simulate sushi-go --players 4`` is run as a
process of its own with ``--engine reference``, ``kernel`` and ``auto`` in turn,
``--repeats`` times; the median processor time (user + system, the process and its
children) and wall time of each are printed, with the ratios against the reference
engine and the machine's load before and after. The kernel is loaded from the cache
(one run before the timed ones puts it there). Then the large run of random
players (``--random-games``, 100,000: ``--bots random --jobs 1``, every figure) as
a whole process on each engine, its games per second of processor time beside the
hand-written engine's (``handwritten_sushi_go.py``, the yardstick: issue 18 asks
for 10x). Then, in this process, games per second of ``simulate --jobs 1`` (runs
of 100,000 games) on the kernel with every figure and without the lab's figures (a
plain tally), beside the hand-written engine, in turn: the figures' cost on top of
the plain run (at most 15%) and each against the hand-written engine; and inside
those runs, the time of the kernel's games, of the lab's compiled fold and of the
rest, each way (the figures' cost without the run-to-run noise of this machine,
which moves the ratio of two runs by a third). Figures only: nothing here is asserted.
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
#: games of one simulate call in process (a large run: chunks of up to 20 blocks of ``runner.KERNEL_BLOCK`` games)
RUN = 100_000


def load() -> str:
    return "load average " + " ".join(f"{x:.1f}" for x in os.getloadavg())


def run(games: int, bots: str, engine: str, players: int = 4) -> tuple[float, float]:
    """(processor seconds, wall seconds) of one simulate process."""
    command = [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "--players", str(players), "--jobs", "1"]
    command += ["--games", str(games), "--seed", "1", "--bots", bots, "--engine", engine, "-q", "--json"]
    # a user's Python keeps the modules' compiled bytecode: a shell that says not to write it would
    # have every process compile the sources that changed since it was last written (tens of ms)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    started = time.perf_counter()
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
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


def handwritten_rate(players: int, seconds: float, seed: int = 0) -> float:
    """Games per processor second of the hand-written engine."""
    rng = random.Random(seed)
    games = 0
    started = time.process_time()
    while time.process_time() - started < seconds:
        handwritten_sushi_go.play(players, rng)
        games += 1
    return games / (time.process_time() - started)


def large_run(games: int, repeats: int, seconds: float) -> None:
    """The whole process of a large random run on each engine, beside the hand-written engine."""
    run(50, "random", "kernel")  # the kernel into the cache
    cpu: dict[str, list[float]] = {"reference": [], "kernel": []}
    hand = []
    start = []  # a run of one game on the kernel: the process's start and exit, nearly all of it
    for r in range(repeats):
        for engine in cpu:
            cpu[engine].append(run(games, "random", engine)[0])
        start.append(run(1, "random", "kernel")[0])
        hand.append(handwritten_rate(4, seconds, r))
    h = statistics.median(hand)
    print(f"  {games} games, --bots random, 4 players, every figure (hand-written engine {h:,.0f} games/s):")
    for engine, times in cpu.items():
        c = statistics.median(times)
        ratio = statistics.median(games / t / x for t, x in zip(times, hand))
        print(f"    {engine:<10} {c:7.2f} s CPU  {games / c:9,.0f} games/s  {ratio:5.2f}x the hand-written engine")
    s = statistics.median(start)
    rest = statistics.median(games / (t - b) / x for t, b, x in zip(cpu["kernel"], start, hand))
    print(
        f"    of the kernel's process, {s:.2f} s is its start and exit (a run of one game); the games and their"
        f" figures alone {rest:5.2f}x the hand-written engine; 10x the whole process needs"
        f" {games / (10 * h):.2f} s in all"
    )


class _Stopwatch:
    """Processor time spent in a function, through a wrapper put in its place: the
    kernel's games (``Kernel.play``) and the lab's compiled fold (``fold.lab_block``),
    called once a block of games, timed inside the runs themselves."""

    def __init__(self, owner: object, name: str):
        self.seconds = 0.0
        real = getattr(owner, name)

        def timed(*args: object, **kwargs: object) -> object:
            started = time.process_time()
            try:
                return real(*args, **kwargs)
            finally:
                self.seconds += time.process_time() - started

        setattr(owner, name, timed)


def in_process(seconds: float, repeats: int) -> None:
    from ruledraft.kernel import Kernel, fold
    from ruledraft.lab.figures import LabTally
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.match import Match
    from ruledraft.play.runner import simulate_match

    def plain(game: object, cards: bool) -> None:
        return None  # no lab: the plain tally (wins, totals, points per rule)

    games_watch, fold_watch = _Stopwatch(Kernel, "play"), _Stopwatch(fold, "lab_block")
    for players in (2, 4, 5):
        match = Match.build(load_ruleset("sushi-go"), players, ["random"], 1)
        ways = {"every figure": LabTally.for_game, "plain": plain}
        for collector in ways.values():
            simulate_match(match, 2000, collector=collector, engine="kernel")  # loaded
        rates: dict[str, list[float]] = {way: [] for way in ways}
        # per way, each run's microseconds a game: (the games, the lab's fold, the rest)
        split: dict[str, list[tuple[float, float, float]]] = {way: [] for way in ways}
        hand = []
        for r in range(repeats):
            for way, collector in ways.items():
                games = 0
                games_watch.seconds = fold_watch.seconds = 0.0
                started = time.process_time()
                while time.process_time() - started < seconds:
                    simulate_match(match, RUN, collector=collector, engine="kernel")
                    games += RUN
                spent = time.process_time() - started
                rates[way].append(games / spent)
                g, f = games_watch.seconds, fold_watch.seconds
                split[way].append((1e6 * g / games, 1e6 * f / games, 1e6 * (spent - g - f) / games))
            hand.append(handwritten_rate(players, seconds, r))
        k, p, h = statistics.median(rates["every figure"]), statistics.median(rates["plain"]), statistics.median(hand)
        ratio = statistics.median(a / b for a, b in zip(rates["every figure"], hand))
        cost = statistics.median(b / a - 1 for a, b in zip(rates["every figure"], rates["plain"]))
        print(
            f"  {players} players: every figure {k:9,.0f} games/s, plain {p:9,.0f}, hand-written {h:8,.0f}: "
            f"every figure {ratio:5.1f}x the hand-written, the figures cost {100 * cost:+.0f}% of the plain run"
        )
        (eg, ef, er), (pg, _, pr) = ([statistics.median(x[i] for x in split[w]) for i in range(3)] for w in ways)
        print(
            f"    inside the runs, us a game: every figure: games {eg:.2f}, the lab's fold {ef:.2f}, the rest {er:.2f};"
            f" plain: games {pg:.2f}, the rest {pr:.2f} (the fold alone: {100 * ef / (pg + pr):+.0f}% of the plain run)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--games", type=int, nargs="+", default=[2000, 20000])
    parser.add_argument("--bots", default="greedy,random")
    parser.add_argument("--random-games", type=int, default=100_000, help="the large run (0: skip it)")
    parser.add_argument("--seconds", type=float, default=2.0)
    args = parser.parse_args()
    print(f"simulate as a whole process ({load()}):")
    for games in args.games:
        whole_process(games, args.bots, args.repeats)
    if args.random_games:
        large_run(args.random_games, args.repeats, args.seconds)
    print(f"simulate --jobs 1 with every figure, random players, CPU time ({load()}):")
    in_process(args.seconds, args.repeats)
    print(f"({load()})")


if __name__ == "__main__":
    main()
