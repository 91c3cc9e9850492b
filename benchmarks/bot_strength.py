"""The strength figures of issue 11: the ``planner`` and ``ismcts`` bots against three
of an opponent in 4-player Sushi Go!, with 95% Wilson intervals, and the time one
decision of each takes.

Seats are rotated: the games are split into four equal parts (as equal as the count
allows), the bot measured sits at seat 0, 1, 2 and 3 in turn, and every part uses
the same seed, so the same deals are played from every seat. A win shared by k
seats counts 1/k for each (the runner's win share), so the share is a mean of
values in [0, 1]; the Wilson interval is computed on that share over the games
played. A fair share is 25%. Figures only: nothing is asserted, and CI never runs
this.

    python3 benchmarks/bot_strength.py [--games 500] [--jobs 2] [--seed 1]
        [--match planner/greedy --match ismcts/planner ...] [--timing-games 3]

``--games 0`` prints only the times per decision.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from ismcts_strength import decision_times, wilson  # noqa: E402

from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.agents import parse_bot  # noqa: E402
from ruledraft.play.planner import count_values  # noqa: E402
from ruledraft.play.runner import available_cores, simulate  # noqa: E402

#: (bot, opponent, the issue's target win share)
MATCHES = (
    ("planner", "greedy", 0.50),
    ("planner", "first", 0.35),
    ("ismcts", "planner", 0.40),
    ("ismcts", "greedy", 0.60),
)
#: the issue's bound on one ismcts decision at the default budget, in seconds
ISMCTS_DECISION_BOUND = 0.25
PLAYERS = 4


def rotated_share(ruleset, bot: str, opponent: str, games: int, seed: int, jobs: int) -> tuple[float, int]:
    """``bot``'s win share over ``games`` games against three ``opponent``s, the bot at
    each seat in turn for a quarter of the games (the same seed each time); and the
    number of games played."""
    wins = 0.0
    played = 0
    for at in range(PLAYERS):
        n = games // PLAYERS + (1 if at < games % PLAYERS else 0)
        if not n:
            continue
        bots = [opponent] * PLAYERS
        bots[at] = bot
        summary = simulate(ruleset, PLAYERS, n, seed, bots, jobs=jobs)
        wins += summary.seats[at].wins
        played += summary.games
    return (wins / played if played else 0.0), played


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--jobs", type=int, default=available_cores())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--match", action="append", metavar="BOT/OPPONENT", help="one match instead of the issue's (repeatable)"
    )
    parser.add_argument("--timing-games", type=int, default=3)
    args = parser.parse_args()
    ruleset = load_ruleset("sushi-go")
    if args.match:
        matches = []
        for text in args.match:
            bot, _, opponent = text.partition("/")
            target = next((t for b, o, t in MATCHES if (b, o) == (bot, opponent)), None)
            matches.append((bot, opponent, target))
    else:
        matches = list(MATCHES)
    for bot, opponent, _ in matches:
        parse_bot(bot)
        parse_bot(opponent)
    if args.games:
        print(f"{ruleset.name}, {PLAYERS} players, seats rotated, seed {args.seed}; a fair share is 25%")
        print(f"{'bot':<10} {'against':<12} {'games':>5} {'win share':>9}  {'95% interval':<15} {'target':>6}")
    for bot, opponent, target in matches if args.games else ():
        start = time.perf_counter()
        share, played = rotated_share(ruleset, bot, opponent, args.games, args.seed, args.jobs)
        low, high = wilson(share, played)
        aim = f">= {target:.0%}" if target is not None else ""
        took = time.perf_counter() - start
        print(
            f"{bot:<10} {'3 x ' + opponent:<12} {played:>5} {share:>8.1%}  {low:>5.1%} - {high:<6.1%}  {aim:>6}"
            f"   ({took:.0f} s)",
            flush=True,
        )
    count_values(Game(ruleset, PLAYERS))  # the card values both bots use, measured once before the clock runs
    for bot in dict.fromkeys(b for b, _, _ in matches) if args.timing_games > 0 else ():
        times = decision_times(ruleset, bot, args.timing_games, args.seed)
        bound = f" (bound {ISMCTS_DECISION_BOUND * 1000:.0f} ms)" if bot == "ismcts" else ""
        print(
            f"one decision of {bot} (one core, {len(times)} decisions): median "
            f"{statistics.median(times) * 1000:.2f} ms, mean {statistics.fmean(times) * 1000:.2f} ms, "
            f"slowest {max(times) * 1000:.1f} ms{bound}",
            flush=True,
        )


if __name__ == "__main__":
    main()
