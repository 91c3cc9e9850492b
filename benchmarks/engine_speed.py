"""Engine speed, printed beside a hand-written baseline measured at the same moment.

    python3 benchmarks/engine_speed.py [--seconds 2] [--jobs 2]

Prints games per second for random and greedy bots on every bundled ruleset at 2
and 4 players (one process), the hand-written Sushi Go! engine in
``handwritten_sushi_go.py`` as the yardstick, the ratio between them, and how
``simulate`` scales with ``--jobs``. Figures only: nothing here is asserted, since
a shared machine's speed drifts from minute to minute.
"""

from __future__ import annotations

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import handwritten_sushi_go  # noqa: E402

from ruledraft.language.bundled import bundled_ids, bundled_path  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.bench import measure, measure_jobs, player_counts  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per figure")
    parser.add_argument("--jobs", type=int, default=2, help="processes for the scaling figure (1: skip)")
    parser.add_argument("--jobs-games", type=int, default=6000, help="games for the scaling figure")
    args = parser.parse_args()

    baseline = handwritten_sushi_go.games_per_second(4, args.seconds)
    print(f"hand-written Sushi Go!, 4 random players        {baseline:>9,.0f} games/s")
    for rid in bundled_ids():
        rs = load_ruleset(rid)
        for n in player_counts(rs, [2, 4]):
            for bot in ("random", "greedy"):
                fig = measure(rs, n, bot, min_seconds=args.seconds)
                line = f"{rid:<28} {n} players {bot:<7} {fig.games_per_second:>9,.0f} games/s"
                if rid == "sushi-go" and n == 4 and bot == "random":
                    again = handwritten_sushi_go.games_per_second(4, args.seconds)
                    line += f"   ({fig.games_per_second / ((baseline + again) / 2):.2f} x the hand-written engine)"
                print(line, flush=True)
    if args.jobs > 1:
        rs = load_ruleset("sushi-go")
        source = str(bundled_path("sushi-go"))
        one = measure_jobs(rs, source, 4, "random", 1, args.jobs_games)
        many = measure_jobs(rs, source, 4, "random", args.jobs, args.jobs_games)
        print(
            f"simulate sushi-go, 4 random players, {args.jobs_games} games: "
            f"--jobs 1 {one.games_per_second:,.0f} games/s, --jobs {args.jobs} {many.games_per_second:,.0f} games/s "
            f"({many.games_per_second / one.games_per_second:.2f}x)"
        )


if __name__ == "__main__":
    main()
