"""ruledraft's ``ismcts`` against OpenSpiel's own information-set MCTS at equal iterations.

    python3 benchmarks/openspiel_search.py [--games 40] [--iterations 50] [--seed 0]
        [--ruleset sushi-go] [--players 2]

Both search the game ``ruledraft_turns`` (``ruledraft.openspiel``: the picks taken
one seat after another, each hidden from the seats after it until the turn is
played): OpenSpiel's ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` (UCT constant
1.4, one random roll-out per leaf, a new world per iteration through the state's
``resample_from_infostate``), and ruledraft's ``ismcts:iterations=N`` on the engine's
state. One seat is OpenSpiel's, the others ruledraft's; the OpenSpiel bot sits at
every seat in turn on the same deals. Prints OpenSpiel's win share (a win shared by
k seats counts 1/k; fair: 1/players) with its 95% Wilson interval, the time per
decision of each and the machine's load. Figures only: nothing is asserted.

(OpenSpiel's C++ ``pyspiel.ISMCTSBot`` cannot run on a Python game: see the
"OpenSpiel" section of the README.)
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import ruledraft.openspiel  # noqa: F401 - registers the games
from ruledraft.lab.statistics import wilson
from ruledraft.play.agents import make_agent
from ruledraft.play.runner import bot_seeds


def play(game, deal: int, theirs: int, iterations: int, seed: int, times: dict) -> float:
    """One game: OpenSpiel's bot at seat ``theirs``; its win share of the game."""
    players = game.num_players()
    rng = np.random.RandomState(seed * 7919 + deal * 31 + theirs)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 1.4, iterations, random_state=rng)
    seeds = bot_seeds(deal, players)
    ours = {s: make_agent(f"ismcts:iterations={iterations}", seeds[s]) for s in range(players) if s != theirs}
    state = game.new_initial_state()
    state.apply_action(deal)
    while not state.is_terminal():
        seat = state.current_player()
        started = time.process_time()
        if seat == theirs:
            action = bot.step(state)
            times["openspiel"].append(time.process_time() - started)
        else:
            action = ours[seat].act(state.engine.clone(), seat)
            times["ruledraft"].append(time.process_time() - started)
        state.apply_action(action)
    winners = state.engine.winners
    return 1.0 / len(winners) if theirs in winners else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ruleset", default="sushi-go")
    parser.add_argument("--players", type=int, default=2)
    args = parser.parse_args()
    game = pyspiel.load_game("ruledraft_turns", {"ruleset": args.ruleset, "players": args.players})
    players = game.num_players()
    times: dict[str, list[float]] = {"openspiel": [], "ruledraft": []}
    wins = 0.0
    played = 0
    deals = -(-args.games // players)
    for d in range(deals):
        deal = args.seed + d
        for theirs in range(players):  # the same deal from every seat
            wins += play(game, deal, theirs, args.iterations, args.seed, times)
            played += 1
    low, high = wilson(wins, played)
    load = os.getloadavg()
    print(
        f"{args.ruleset}, {players} players, {played} games ({deals} deals, every seat), {args.iterations} iterations each"
    )
    print(
        f"OpenSpiel ISMCTS against ruledraft ismcts: win share {wins / played:.1%} "
        f"[{low:.1%} - {high:.1%}] (fair {1 / players:.0%})"
    )
    for who, spent in times.items():
        print(f"  {who}: median {statistics.median(spent) * 1000:.1f} ms CPU per decision ({len(spent)} decisions)")
    print(f"  load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
