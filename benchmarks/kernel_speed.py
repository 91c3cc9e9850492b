"""The compiled kernel's speed beside the hand-written engine and the reference engine.

    python3 benchmarks/kernel_speed.py [--seconds 1] [--repeats 5] [--players 2 4 5] [--before CHECKOUT]

For each player count: the kernel's compile time (or the time to load it from the
cache), then games per second of CPU time for Sushi Go! with random players on
the kernel, the hand-written engine (``handwritten_sushi_go.py``, the yardstick)
and the reference engine's ``bench`` loop (``play_game``), measured in turn
``--repeats`` times; the medians and the median of the per-turn ratios are printed,
with the machine's load. Then the same for greedy players (kernel against the
reference; with ``--before CHECKOUT``, also against the reference engine of that
checkout, the release before the kernel, in a process of its own each turn, as
``reference_speed.py`` times it: issue 18's greedy target), and for four planners at 4 players (kernel against the reference, the
planner's count values computed once beforehand; ismcts's roll-outs: ``ismcts_speed.py``).
Issue 18 asks the random figure at 4 players
(``simulate --jobs 1`` with every lab figure: ``kernel_simulate.py``) for 10x the
hand-written engine; the kernel's own rate printed here bounds it. Figures only:
nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import random  # noqa: E402

import handwritten_sushi_go  # noqa: E402

from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.kernel import Kernel, compile_kernel  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.runner import game_seed, play_game  # noqa: E402


def _rate(step, seconds: float) -> float:
    """Games per CPU second of ``step()`` (which plays some games and says how many)."""
    n = 0
    started = time.process_time()
    while True:
        n += step()
        elapsed = time.process_time() - started
        if elapsed >= seconds:
            return n / elapsed


def kernel_rate(kernel: Kernel, bot: str, seconds: float, batch: int, counts=None) -> float:
    seeds = [game_seed(1, i) for i in range(batch)]
    bots = [bot] * kernel.players
    return _rate(lambda: len(kernel.play(seeds, bots, None, counts)), seconds)


def reference_rate(game: Game, bot: str, seconds: float) -> float:
    bots = [bot] * game.num_players
    counter = iter(range(10**12))

    def one() -> int:
        play_game(game, game_seed(1, next(counter)), bots)
        return 1

    return _rate(one, seconds)


def handwritten_rate(players: int, seconds: float) -> float:
    rng = random.Random(1)

    def one() -> int:
        handwritten_sushi_go.play(players, rng)
        return 1

    return _rate(one, seconds)


def before_rate(checkout: str, players: int, bot: str, games: int) -> float:
    """Games per CPU second of ``checkout``'s reference engine (its ``.venv``), Sushi Go!
    with ``bot`` at every seat, in a process of its own (``reference_speed.timed``)."""
    import reference_speed

    python = os.path.join(checkout, ".venv", "bin", "python")
    seconds, _ = reference_speed.timed(python, "sushi-go", players, bot, games)
    return games / seconds


def load() -> str:
    return "load average " + ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="CPU time per figure")
    parser.add_argument("--repeats", type=int, default=5, help="alternations (the median is printed)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 4, 5])
    parser.add_argument("--greedy-players", type=int, default=4, help="0: skip the greedy figure")
    parser.add_argument("--planner-players", type=int, default=4, help="0: skip the planner figure")
    parser.add_argument("--before", help="a checkout from before the kernel (with its .venv): greedy against it too")
    args = parser.parse_args()
    ruleset = load_ruleset("sushi-go")
    print(f"start: {load()}")
    for players in args.players:
        started = time.perf_counter()
        kernel = compile_kernel(ruleset, players)
        if not isinstance(kernel, Kernel):
            print(f"{players} players: no kernel ({kernel.reason})")
            continue
        print(
            f"{players} players: kernel ready in {time.perf_counter() - started:.2f} s (compiled or loaded from the cache)"
        )
        game = Game(ruleset, players)
        k, h, r = [], [], []
        for _ in range(args.repeats):
            k.append(kernel_rate(kernel, "random", args.seconds, 2000))
            h.append(handwritten_rate(players, args.seconds))
            r.append(reference_rate(game, "random", args.seconds))
        ratio = statistics.median(a / b for a, b in zip(k, h))
        print(
            f"  random: kernel {statistics.median(k):>11,.0f}  hand-written {statistics.median(h):>9,.0f}  "
            f"reference bench loop {statistics.median(r):>8,.0f} games/s  "
            f"(kernel {ratio:.1f}x the hand-written, {statistics.median(a / b for a, b in zip(k, r)):.1f}x the reference)"
        )
        print(f"  {load()}", flush=True)
    if args.greedy_players:
        players = args.greedy_players
        kernel = compile_kernel(ruleset, players)
        if isinstance(kernel, Kernel):
            game = Game(ruleset, players)
            k, r, b = [], [], []
            for _ in range(args.repeats):
                k.append(kernel_rate(kernel, "greedy", args.seconds, 200))
                r.append(reference_rate(game, "greedy", args.seconds))
                if args.before:
                    b.append(before_rate(args.before, players, "greedy", round(1200 * args.seconds)))
            print(
                f"{players} greedy players: kernel {statistics.median(k):>9,.0f}  reference {statistics.median(r):>7,.0f} "
                f"games/s  ({statistics.median(a / b for a, b in zip(k, r)):.1f}x)"
            )
            if b:
                print(
                    f"  the release before's reference {statistics.median(b):>7,.0f} games/s: the kernel "
                    f"{statistics.median(x / y for x, y in zip(k, b)):.1f}x it"
                )
            print(f"  {load()}", flush=True)
    if args.planner_players:
        planner_figure(ruleset, args.planner_players, args.seconds, args.repeats)


def planner_figure(ruleset, players: int, seconds: float, repeats: int) -> None:
    """Four (``players``) planners: the kernel against the reference engine, alternated."""
    from ruledraft.play.planner import count_values

    kernel = compile_kernel(ruleset, players)
    if not isinstance(kernel, Kernel):
        print(f"{players} planners: no kernel ({kernel.reason})")
        return
    game = Game(ruleset, players)
    counts = count_values(game)
    k, r = [], []
    for _ in range(repeats):
        k.append(kernel_rate(kernel, "planner", seconds, 20, counts))
        r.append(reference_rate(game, "planner", seconds))
    print(
        f"{players} planners: kernel {statistics.median(k):>9,.1f}  reference {statistics.median(r):>7,.1f} "
        f"games/s  ({statistics.median(a / b for a, b in zip(k, r)):.1f}x)"
    )
    print(f"  {load()}", flush=True)


if __name__ == "__main__":
    main()
