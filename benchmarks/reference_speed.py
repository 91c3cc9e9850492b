"""The reference engine against a checkout from before, the two timed in turn.

    python3 benchmarks/reference_speed.py --before /path/to/checkout [--reps 5]

Plays the same games (the same seeds, the same bots) on the reference engine of this
checkout and of the one given (its ``.venv/bin/python``, or ``--before-python``), one
process each, alternated rep by rep, for the line-ups the issue measured: Sushi Go! at
4 players with ``greedy,random``, four ``greedy``, four ``random``, Master Menu
with four ``greedy``, and four ``value`` and four ``first`` (the other bots the loop
asks without a full view). Each process times its games in processor time after a warm-up
(``runner.play_game``, the loop every command plays through; no tallies) and checks
that both played the same games (a digest of every game's totals and winners).
Prints games per second, the ratio now/before of the time a game takes (median of the
reps' ratios) and the load average. Figures only: nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from pathlib import Path

#: (ruleset, players, bots, games): the line-ups of issue 18's "within 10% of today's", and the other built-in bots
LINEUPS = (
    ("sushi-go", 4, "greedy,random", 1500),
    ("sushi-go", 4, "greedy", 800),
    ("sushi-go", 4, "random", 3000),
    ("sushi-go-party-master-menu", 4, "greedy", 80),
    ("sushi-go", 4, "value", 2000),
    ("sushi-go", 4, "first", 2000),
)

#: what each process runs: the same code reads both checkouts (play_game and game_seed
#: have kept their names and meanings)
CHILD = """
import hashlib, sys, time
from ruledraft.engine.state import Game
from ruledraft.language.loading import load_ruleset
from ruledraft.play import runner
rid, players, bots, games = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), int(sys.argv[4])
bots += [bots[-1]] * (players - len(bots))
game = Game(load_ruleset(rid), players)
for i in range(max(3, games // 20)):
    runner.play_game(game, runner.game_seed(2, i), bots)
digest = hashlib.sha256()
started = time.process_time()
for i in range(games):
    state = runner.play_game(game, runner.game_seed(1, i), bots)
    digest.update(repr((state.totals(), state.winners)).encode())
print(time.process_time() - started, digest.hexdigest()[:16])
"""


def timed(python: str, rid: str, players: int, bots: str, games: int) -> tuple[float, str]:
    """Processor seconds of ``games`` games in a new process of ``python``, and their digest."""
    out = subprocess.run(
        [python, "-c", CHILD, rid, str(players), bots, str(games)], capture_output=True, text=True, check=True
    ).stdout.split()
    return float(out[0]), out[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="a checkout from before (with its .venv)")
    parser.add_argument("--before-python", help="its Python (default: BEFORE/.venv/bin/python)")
    parser.add_argument("--reps", type=int, default=5, help="alternations (the median ratio is printed)")
    parser.add_argument("--scale", type=float, default=1.0, help="times the games of every line-up")
    args = parser.parse_args()
    before = args.before_python or str(Path(args.before) / ".venv" / "bin" / "python")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"{'line-up':<44} {'before g/s':>10} {'now g/s':>10} {'now/before time':>16}")
    for rid, players, bots, games in LINEUPS:
        n = max(1, round(games * args.scale))
        ratios, then, now = [], [], []
        for _ in range(args.reps):
            b, digest_b = timed(before, rid, players, bots, n)
            a, digest_a = timed(sys.executable, rid, players, bots, n)
            if digest_a != digest_b:
                sys.exit(f"{rid} {bots}: the two checkouts played different games")
            then.append(n / b)
            now.append(n / a)
            ratios.append(a / b)
        name = f"{rid} {players}p {bots}"
        print(
            f"{name:<44} {statistics.median(then):>10,.0f} {statistics.median(now):>10,.0f} "
            f"{statistics.median(ratios):>9.3f} ({min(ratios):.2f}-{max(ratios):.2f})",
            flush=True,
        )
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
