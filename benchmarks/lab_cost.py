"""What the balance lab's figures cost a simulation of random bots.

Plays the same games (one process) three ways, interleaved and repeated so a busy
machine spreads over all of them alike: a plain tally (per-seat wins and points per
rule, what ``simulate`` counted before the lab), with the lab's per-seat and per-rule
figures, and with the per-card figures too (``--cards``, the default of ``simulate``).
Prints games per second, the microseconds per game spent counting, and each way's
cost: its counting beyond the plain tally's, against the plain run's time (timed
apart from the play, so a busy machine blurs it less). The target is at
most 15% with every figure. Figures only: nothing is asserted.

On the compiled kernel (``--engines kernel``, the default runs both) the games come
in blocks of ``runner.KERNEL_BLOCK`` and each block is counted at once
(``add_kernel_games``), as ``simulate --engine kernel`` counts them; a table the
kernel cannot play is skipped there.

    python3 benchmarks/lab_cost.py [--games 4000] [--kernel-games 40000] [--repeat 5]
        [--engines kernel reference] [sushi-go:4 sushi-go-party-my-first-meal:4 ...]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from ruledraft.engine.state import Game
from ruledraft.lab.figures import LabTally
from ruledraft.language.loading import load_ruleset
from ruledraft.play.runner import KERNEL_BLOCK, Tally, game_seed, game_seeds, play_game

DEFAULT_TABLES = ("sushi-go:4", "sushi-go:2", "sushi-go-soy-sauce:5", "sushi-go-party-my-first-meal:4")
WAYS = ("plain", "seats and rules", "every figure")


def run(game: Game, games: int, way: str) -> tuple[float, float]:
    """Seconds to play and count ``games`` games one way, and of those the seconds
    spent counting."""
    rs = game.ruleset
    lab = None if way == "plain" else LabTally.for_game(game, cards=way == "every figure")
    tally = Tally.empty(game.num_seats, rs.rule_ids, lab=lab)
    bots = ["random"] * game.num_players
    clock = time.perf_counter
    counting = 0.0
    start = clock()
    for i in range(games):
        state = play_game(game, game_seed(1, i), bots)
        t = clock()
        tally.add_state(state)
        counting += clock() - t
    t = clock()
    tally.flush()
    if lab is not None:
        lab.flush()
    end = clock()
    return end - start, counting + end - t


def run_kernel(game: Game, kernel: object, games: int, way: str) -> tuple[float, float]:
    """:func:`run` on the kernel: blocks of games played, then counted in bulk."""
    rs = game.ruleset
    lab = None if way == "plain" else LabTally.for_game(game, cards=way == "every figure")
    tally = Tally.empty(game.num_seats, rs.rule_ids, lab=lab)
    bots = ["random"] * game.num_players
    clock = time.process_time
    counting = 0.0
    start = clock()
    for first in range(0, games, KERNEL_BLOCK):
        block = kernel.play(game_seeds(1, first, min(KERNEL_BLOCK, games - first)), bots)  # type: ignore[attr-defined]
        t = clock()
        tally.add_kernel_games(block)
        counting += clock() - t
    t = clock()
    tally.flush()
    if lab is not None:
        lab.flush()
    end = clock()
    return end - start, counting + end - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="*", default=list(DEFAULT_TABLES), help="RULESET:PLAYERS")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--kernel-games", type=int, default=40000, help="games a way on the kernel")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--engines", nargs="+", default=["kernel", "reference"], choices=["kernel", "reference"])
    args = parser.parse_args()
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    print(f"{'table':<36} {'way':<16} {'games/s':>8} {'count us':>9} {'cost':>7}")
    for engine in args.engines:
        for table in args.tables:
            measure(table, engine, args.kernel_games if engine == "kernel" else args.games, args.repeat)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


def measure(table: str, engine: str, games: int, repeat: int) -> None:
    """Print the three ways' figures for one table on one engine."""
    name, _, players = table.partition(":")
    game = Game(load_ruleset(name), int(players or 4))
    label = f"{table} ({engine})"
    if engine == "kernel":
        from ruledraft.kernel import Kernel, compile_kernel

        kernel = compile_kernel(game.ruleset, game.num_players)
        if not isinstance(kernel, Kernel):
            print(f"{label:<36} no kernel: {kernel.reason}")
            return

        def one(way: str, n: int) -> tuple[float, float]:
            return run_kernel(game, kernel, n, way)
    else:

        def one(way: str, n: int) -> tuple[float, float]:
            return run(game, n, way)

    one("every figure", min(games, 2 * KERNEL_BLOCK))  # warm up
    times: dict[str, list[float]] = {w: [] for w in WAYS}
    counting: dict[str, list[float]] = {w: [] for w in WAYS}
    for _ in range(repeat):
        for way in WAYS:
            total, count = one(way, games)
            times[way].append(total)
            counting[way].append(count)
    # the cost of a way: its counting beyond the plain tally's, against the plain run
    plain = statistics.median(times["plain"])
    base = statistics.median(counting["plain"])
    for way in WAYS:
        extra = statistics.median(counting[way]) - base
        cost = "" if way == "plain" else f"{100 * extra / plain:+.1f}%"
        per_game = f"{1e6 * statistics.median(counting[way]) / games:.1f}"
        print(f"{label:<36} {way:<16} {games / statistics.median(times[way]):>8.0f} {per_game:>9} {cost:>7}")


if __name__ == "__main__":
    main()
