"""Steps per second of the PettingZoo parallel environment, beside an earlier version.

    python3 benchmarks/rl_speed.py [--baseline REV] [--rounds 15] [--games 20]

Plays the same games (the first legal action of every mask, seeds 0, 1, ...) in
``ruledraft.rl.parallel_env`` as it is and as it was at git revision ``REV`` (its
``framework/rl.py`` loaded beside the current engine), alternating the two
``--rounds`` times, and prints each one's steps per second, their ratio (median of
the rounds) and the machine's load. Time is this process's CPU time (``--clock
wall`` for the clock on the wall): on a shared, loaded machine the wall clock
mostly measures the other processes. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from ruledraft import rl

ROOT = Path(__file__).resolve().parent.parent


def baseline_module(rev: str):
    """``framework/rl.py`` at ``rev``, loaded as a module of its own."""
    text = subprocess.run(
        ["git", "show", f"{rev}:framework/rl.py"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    spec = importlib.util.spec_from_loader("ruledraft_rl_baseline", loader=None)
    module = importlib.util.module_from_spec(spec)
    exec(compile(text, f"{rev}:framework/rl.py", "exec"), module.__dict__)
    return module


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}
clock = CLOCKS["cpu"]


def steps_per_second(make, games: int) -> float:
    env = make()
    steps = 0
    start = clock()
    for seed in range(games):
        obs, _ = env.reset(seed=seed)
        while env.agents:
            actions = {a: int(o["action_mask"].argmax()) for a, o in obs.items()}
            obs, *_ = env.step(actions)
            steps += 1
    return steps / (clock() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="bc2f3af", help="git revision of the earlier rl.py")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ruleset", default="sushi-go")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    old = baseline_module(args.baseline)
    ratios, before, after = [], [], []
    for _ in range(args.rounds):
        b = steps_per_second(lambda: old.parallel_env(args.ruleset, args.players), args.games)
        a = steps_per_second(lambda: rl.parallel_env(args.ruleset, args.players), args.games)
        before.append(b)
        after.append(a)
        ratios.append(a / b)
    load = os.getloadavg()
    print(
        f"{args.ruleset}, {args.players} players, {args.games} games x {args.rounds} rounds, alternating"
        f" ({args.clock} time)"
    )
    print(f"  {args.baseline}: {statistics.median(before):>9,.0f} steps/s")
    print(f"  now:     {statistics.median(after):>9,.0f} steps/s")
    print(f"  ratio:   {statistics.median(ratios):.2f}x (rounds: {', '.join(f'{r:.2f}' for r in ratios)})")
    print(f"  load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    sys.exit(main())
