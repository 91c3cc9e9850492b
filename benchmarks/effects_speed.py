"""Games per second of the Party menus whose card effects have kernel parts: the
reference engine's ``bench`` loop against the kernel, alternated in one run, processor
time (what the machine's load changes least), median of the alternations.

    python3 benchmarks/effects_speed.py [--seconds 1.5] [--rounds 3] [--bots random,greedy] [MENU ...]

Each figure plays the seeds ``ruledraft bench`` plays (run seed 1), one bot in every
seat (each of ``--bots`` in turn: random, first, greedy, value or planner), at 4
players and at the most the menu allows; where a bot is refused on the kernel, first
is measured instead. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

from ruledraft.engine.seeds import game_seed
from ruledraft.engine.state import Game
from ruledraft.kernel import Kernel, compile_kernel
from ruledraft.language.bundled import bundled_ids
from ruledraft.language.loading import load_ruleset
from ruledraft.play.agents import default_card_values
from ruledraft.play.planner import count_values
from ruledraft.play.runner import game_seeds, play_game

#: the bundled menus with card effects (asked of the rule files: a new one joins)
MENUS = tuple(i for i in bundled_ids() if load_ruleset(i).effects)


def reference_rate(game: Game, bot: str, seconds: float) -> float:
    """Games per processor second of the bench loop (``play.bench.measure``)."""
    bots = [bot] * game.num_players
    for i in range(3):
        play_game(game, game_seed(0, i), bots)
    n = 0
    started = time.process_time()
    while True:
        play_game(game, game_seed(1, n), bots)
        n += 1
        spent = time.process_time() - started
        if n >= 20 and spent >= seconds:
            return n / spent


def kernel_rate(kernel: Kernel, bot: str, seconds: float) -> float:
    """Games per processor second on the kernel (``play.bench.measure_kernel``'s batches)."""
    bots = [bot] * kernel.players
    game = Game(kernel.ruleset, kernel.players)
    values = default_card_values(game) if bot == "value" else None
    counts = count_values(game) if bot == "planner" else None
    batch, n = 64 if bot != "planner" else 4, 0
    started = time.process_time()
    while True:
        kernel.play(game_seeds(1, n, batch), bots, values, counts)
        n += batch
        spent = time.process_time() - started
        if spent >= seconds:
            return n / spent
        if spent < seconds / 4:
            batch *= 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("menus", nargs="*", default=list(MENUS))
    parser.add_argument("--seconds", type=float, default=1.5)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--bots", default="random,greedy", help="the bots measured, one in every seat, in turn")
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}")
    print(f"{'ruleset':<32} {'players':>7} {'bot':<7} {'reference':>10} {'kernel':>10} {'ratio':>7}")
    for menu in args.menus:
        ruleset = load_ruleset(menu)
        for players in sorted({4, ruleset.max_players}):
            kernel = compile_kernel(ruleset, players)
            if not isinstance(kernel, Kernel):
                print(f"{menu:<32} {players:>7} no kernel: {kernel.reason}")
                continue
            game = Game(ruleset, players)
            for bot in args.bots.split(","):
                if kernel.refuses([bot] * players) is not None:
                    bot = "first"
                refs, kers = [], []
                for _ in range(args.rounds):
                    refs.append(reference_rate(game, bot, args.seconds))
                    kers.append(kernel_rate(kernel, bot, args.seconds))
                ratio = statistics.median(k / r for k, r in zip(kers, refs))
                print(
                    f"{menu:<32} {players:>7} {bot:<7} {statistics.median(refs):>10,.0f} "
                    f"{statistics.median(kers):>10,.0f} {ratio:>6.1f}x",
                    flush=True,
                )
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
