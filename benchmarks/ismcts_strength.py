"""How strong the ``ismcts`` bot is, and how long one of its decisions takes.

Plays ``ismcts`` (seat 0) against three copies of each opponent in 4-player Sushi Go!
and prints its win share with a 95% Wilson interval (a fair share is 25%), then the
time one decision takes at the budget given, on one core. Figures only: nothing is
asserted, and CI never runs this.

    python3 benchmarks/ismcts_strength.py [--games 500] [--jobs 2] [--bot ismcts]
        [--against greedy --against value ...] [--ruleset sushi-go] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

from ruledraft.engine.state import Game
from ruledraft.language.loading import load_ruleset
from ruledraft.play.agents import make_agent, parse_bot
from ruledraft.play.runner import available_cores, simulate

DEFAULT_OPPONENTS = ("greedy", "value", "first", "random")


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``share`` observed over ``n`` trials."""
    if n == 0:
        return 0.0, 1.0
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def decision_times(ruleset, bot: str, games: int, seed: int) -> list[float]:
    """Seconds per decision of ``bot`` at seat 0 over ``games`` games against greedy bots
    (decisions with one legal move, which need no search, left out)."""
    game = Game(ruleset, 4)
    times = []
    for g in range(games):
        state = game.new_initial_state(seed + g)
        agents = [make_agent(bot, seed + g)] + [make_agent("greedy", seed + g + s) for s in range(1, 4)]
        while not state.is_terminal():
            actions = []
            for s in state.acting_seats():
                if s == 0 and len(state.legal_actions(0)) > 1:
                    start = time.perf_counter()
                    actions.append(agents[0].act(state, 0))
                    times.append(time.perf_counter() - start)
                else:
                    actions.append(agents[s].act(state, s))
            state.apply_actions(actions)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--jobs", type=int, default=available_cores())
    parser.add_argument("--bot", default="ismcts", help="the searching bot's spec (e.g. ismcts:iterations=400)")
    parser.add_argument("--against", action="append", help="an opponent's spec (repeatable)")
    parser.add_argument("--ruleset", default="sushi-go")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timing-games", type=int, default=3)
    args = parser.parse_args()
    ruleset = load_ruleset(args.ruleset)
    parse_bot(args.bot)
    opponents = args.against or list(DEFAULT_OPPONENTS)
    print(f"{args.bot} at seat 0 against three of each, {args.games} games, 4 players, {ruleset.name}")
    print(f"{'opponents':<24} {'win share':>9}  95% interval")
    for opponent in opponents:
        parse_bot(opponent)
        start = time.perf_counter()
        summary = simulate(ruleset, 4, args.games, args.seed, [args.bot] + [opponent] * 3, jobs=args.jobs)
        share = summary.seats[0].win_share
        low, high = wilson(share, summary.games)
        took = time.perf_counter() - start
        print(f"3 x {opponent:<20} {share:>8.1%}  {low:.1%} - {high:.1%}   ({took:.0f} s)")
    times = decision_times(ruleset, args.bot, args.timing_games, args.seed)
    print(
        f"one decision of {args.bot} (one core, {len(times)} decisions): median {statistics.median(times) * 1000:.1f} ms,"
        f" mean {statistics.fmean(times) * 1000:.1f} ms, slowest {max(times) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
