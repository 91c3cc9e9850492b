"""Whether a bot that sees only its seat's view plays as well as before views.

Plays the ``ismcts`` bot of this tree (handed its seat's view) against the
``ismcts`` of an earlier git revision (handed the live state, as bots were then) in
2-player games, each deal twice with the seats swapped, and prints the share of
games the bot of this tree wins (a tie counts half) with its 95% Wilson interval:
50% is no change. Figures only: nothing is asserted, and CI never runs this.

    python3 benchmarks/view_strength.py [--rev fc5d562] [--deals 150] [--iterations 100]
        [--ruleset sushi-go]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ruledraft.engine.state import Game
from ruledraft.engine.view import seat_view
from ruledraft.language.loading import load_ruleset
from ruledraft.play.ismcts import ISMCTSAgent
from ruledraft.play.runner import bot_seeds, game_seed

ROOT = Path(__file__).resolve().parent.parent


def wilson(share: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion ``share`` observed over ``n`` trials."""
    centre = (share + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(share * (1 - share) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def old_ismcts(rev: str):
    """The ``ISMCTSAgent`` class of ``framework/play/ismcts.py`` at git revision ``rev``."""
    text = subprocess.run(
        ["git", "show", f"{rev}:framework/play/ismcts.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    path = Path(tempfile.mkdtemp()) / "ismcts_before_views.py"
    path.write_text(text, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("ismcts_before_views", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.ISMCTSAgent


def play(game: Game, seed: int, new_seat: int, old_class, iterations: int) -> float:
    """One game; the share of the win of the bot of this tree at ``new_seat``."""
    state = game.new_initial_state(seed)
    seeds = bot_seeds(seed, game.num_players)
    agents = [
        ISMCTSAgent(seeds[s], iterations=iterations) if s == new_seat else old_class(seeds[s], iterations=iterations)
        for s in range(game.num_players)
    ]
    while not state.is_terminal():
        state.apply_actions(
            [
                agents[s].act(seat_view(state, s), s) if s == new_seat else agents[s].act(state, s)
                for s in state.acting_seats()
            ]
        )
    winners = state.winners
    return 1.0 / len(winners) if new_seat in winners else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rev", default="fc5d562", help="the revision before views")
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--iterations", type=int, default=100)
    parser.add_argument("--ruleset", default="sushi-go")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    game = Game(load_ruleset(args.ruleset), args.players)
    old_class = old_ismcts(args.rev)
    start = time.perf_counter()
    wins = 0.0
    games = 0
    for d in range(args.deals):
        seed = game_seed(args.seed, d)
        for new_seat in range(game.num_players):
            wins += play(game, seed, new_seat, old_class, args.iterations)
            games += 1
    share = wins / games
    low, high = wilson(share, games)
    print(
        f"{args.ruleset}, {args.players} players, ismcts:iterations={args.iterations}, {games} games ({args.deals} "
        f"deals, seats rotated): this tree's ismcts (views) wins {share:.1%} [{low:.1%}-{high:.1%}] against "
        f"{args.rev}'s (live state), fair share {1 / args.players:.1%}; {time.perf_counter() - start:.0f} s"
    )


if __name__ == "__main__":
    main()
