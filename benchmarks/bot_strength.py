"""The strength figures of issue 11: the ``planner`` and ``ismcts`` bots against three
of an opponent in 4-player Sushi Go!, with 95% Wilson intervals, and the time one
decision of each takes -- a thin call of ``ruledraft.lab.tournament`` (what
``ruledraft tournament`` runs), with the one line-up "the bot and three opponents".

That line-up is turned round the table (the bot at seat 0, 1, 2 and 3 in turn), every
seating on the same deals. A win shared by k seats counts 1/k for each; a fair share
is 25%. Figures only: nothing is asserted, and CI never runs this.

    python3 benchmarks/bot_strength.py [--games 500] [--jobs 2] [--seed 1]
        [--match planner/greedy --match ismcts/planner ...]
"""

from __future__ import annotations

import argparse
import time

from ruledraft.lab.tournament import run_tournament
from ruledraft.language.loading import load_ruleset
from ruledraft.play.runner import available_cores

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--jobs", type=int, default=available_cores())
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--match", action="append", metavar="BOT/OPPONENT", help="one match instead of the issue's (repeatable)"
    )
    args = parser.parse_args()
    ruleset = load_ruleset("sushi-go")
    matches = []
    for text in args.match or ():
        bot, _, opponent = text.partition("/")
        matches.append((bot, opponent, next((t for b, o, t in MATCHES if (b, o) == (bot, opponent)), None)))
    print(f"{ruleset.name}, {PLAYERS} players, seats rotated, seed {args.seed}; a fair share is 25%")
    print(f"{'bot':<10} {'against':<12} {'games':>5} {'win share':>9}  {'95% interval':<15} {'target':>6}  ms/decision")
    for bot, opponent, target in matches or MATCHES:
        start = time.perf_counter()
        result = run_tournament(
            ruleset, [bot, opponent], PLAYERS, args.games, args.seed, jobs=args.jobs, chosen=[(bot,) + (opponent,) * 3]
        )
        mine = result["lineups"][0]["by_bot"][bot]
        low, high = mine["win_share_interval"]
        row = next(r for r in result["ranking"] if r["bot"] == bot)
        aim = f">= {target:.0%}" if target is not None else ""
        bound = f" (bound {ISMCTS_DECISION_BOUND * 1000:.0f})" if bot == "ismcts" else ""
        print(
            f"{bot:<10} {'3 x ' + opponent:<12} {result['games']:>5} {mine['win_share']:>8.1%}  "
            f"{low:>5.1%} - {high:<6.1%}  {aim:>6}  median {row['decision_ms_median']:.2f}, "
            f"p95 {row['decision_ms_p95']:.2f}{bound}   ({time.perf_counter() - start:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
