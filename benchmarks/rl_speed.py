"""Steps per second of the PettingZoo parallel environment, beside an earlier version,
and of the batch environment on the kernel.

    python3 benchmarks/rl_speed.py [--baseline REV] [--rounds 15] [--games 20] [--batch 1024]

Plays the same games (the first legal action of every mask, seeds 0, 1, ...) in
``ruledraft.rl.parallel_env`` as it is (on ``--engine``, the kernel by default) and as it was at git revision ``REV`` (its
``framework/rl.py`` loaded beside the current engine), alternating the two
``--rounds`` times, and prints each one's steps per second, their ratio (median of
the rounds) and the machine's load. In each round it also steps
``ruledraft.batch_env.BatchDraftEnv`` with ``--batch`` games at once (the same policy,
the first legal action of every mask, chosen by NumPy over the batch) for as many joint
steps as the parallel environment made, and prints its joint steps (a game's turn) per
second and their ratio to the earlier version's (``--batch 0``: not measured). Time is this process's CPU time (``--clock
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
from ruledraft.batch_env import BatchDraftEnv

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


def batch_steps_per_second(env: BatchDraftEnv, steps: int) -> float:
    """Joint steps a second of ``env`` (every game a step a call), ``steps`` of them at least."""
    _, masks = env.reset(seed=0)
    calls = max(1, -(-steps // env.num_games))
    start = clock()
    for _ in range(calls):
        _, masks, *_ = env.step(masks.argmax(axis=2))
    return calls * env.num_games / (clock() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="bc2f3af", help="git revision of the earlier rl.py")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--ruleset", default="sushi-go")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu")
    parser.add_argument("--engine", choices=rl.ENGINES, default="kernel", help="the engine of the environment now")
    parser.add_argument("--batch", type=int, default=1024, help="games of the batch environment (0: none)")
    args = parser.parse_args()
    global clock
    clock = CLOCKS[args.clock]
    old = baseline_module(args.baseline)
    batch = BatchDraftEnv(args.ruleset, args.players, games=args.batch) if args.batch > 0 else None
    ratios, before, after, batched = [], [], [], []
    steps = 0
    if batch is not None:  # the joint steps of the parallel environment's games
        rules = batch.game.ruleset
        steps = args.games * rules.rounds * (rules.hand_size(args.players) - 1)
    for _ in range(args.rounds):
        b = steps_per_second(lambda: old.parallel_env(args.ruleset, args.players), args.games)
        a = steps_per_second(lambda: rl.parallel_env(args.ruleset, args.players, engine=args.engine), args.games)
        if batch is not None:
            batched.append(batch_steps_per_second(batch, steps))
        before.append(b)
        after.append(a)
        ratios.append(a / b)
    load = os.getloadavg()
    print(
        f"{args.ruleset}, {args.players} players, {args.games} games x {args.rounds} rounds, alternating"
        f" ({args.clock} time)"
    )
    print(f"  {args.baseline}: {statistics.median(before):>9,.0f} steps/s")
    print(f"  now:     {statistics.median(after):>9,.0f} steps/s (on the {args.engine} engine)")
    print(f"  ratio:   {statistics.median(ratios):.2f}x (rounds: {', '.join(f'{r:.2f}' for r in ratios)})")
    if batched:
        per = [x / b for x, b in zip(batched, before)]
        print(
            f"  batch environment, {args.batch} games a call: {statistics.median(batched):>9,.0f} joint steps/s,"
            f" {statistics.median(per):.1f}x {args.baseline}"
        )
    print(f"  load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    sys.exit(main())
