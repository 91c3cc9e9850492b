"""What the balance lab's figures cost a simulation of random bots.

Plays the same games (one process) three ways, interleaved and repeated so a busy
machine spreads over all of them alike: a plain tally (per-seat wins and points per
rule, what ``simulate`` counted before the lab), with the lab's per-seat and per-rule
figures, and with the per-card figures too (``--cards``, the default of ``simulate``).
Prints games per second, the microseconds per game spent counting, and each way's
cost: its counting beyond the plain tally's, against the plain run's time (timed
apart from the play, so a busy machine blurs it less). The target is at
most 15% with every figure. Figures only: nothing is asserted.

    python3 benchmarks/lab_cost.py [--games 4000] [--repeat 5] [sushi-go:4 sushi-go-party-my-first-meal:4 ...]
"""

from __future__ import annotations

import argparse
import statistics
import time

from ruledraft.engine.state import Game
from ruledraft.lab.figures import LabTally
from ruledraft.language.loading import load_ruleset
from ruledraft.play.runner import Tally, game_seed, play_game

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tables", nargs="*", default=list(DEFAULT_TABLES), help="RULESET:PLAYERS")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'table':<36} {'way':<16} {'games/s':>8} {'count us':>9} {'cost':>7}")
    for table in args.tables:
        name, _, players = table.partition(":")
        game = Game(load_ruleset(name), int(players or 4))
        run(game, min(args.games, 200), "every figure")  # warm up
        times: dict[str, list[float]] = {w: [] for w in WAYS}
        counting: dict[str, list[float]] = {w: [] for w in WAYS}
        for _ in range(args.repeat):
            for way in WAYS:
                total, count = run(game, args.games, way)
                times[way].append(total)
                counting[way].append(count)
        # the cost of a way: its counting beyond the plain tally's, against the plain run
        plain = statistics.median(times["plain"])
        base = statistics.median(counting["plain"])
        for way in WAYS:
            extra = statistics.median(counting[way]) - base
            cost = "" if way == "plain" else f"{100 * extra / plain:+.1f}%"
            per_game = f"{1e6 * statistics.median(counting[way]) / args.games:.1f}"
            print(f"{table:<36} {way:<16} {args.games / statistics.median(times[way]):>8.0f} {per_game:>9} {cost:>7}")


if __name__ == "__main__":
    main()
