"""How fast ``ismcts`` searches with its roll-outs in the compiled kernel, and how strong
that makes it at today's decision time.

Speed: processor time per iteration of one ``ismcts`` decision (400 iterations, the
first decision of seat 0 in a few deals of Sushi Go!, or of ``--ruleset``: a Party
menu's card effects play on the engine but for the roll-out from the next turn) with the kernel's roll-outs
(``kernel=yes``) and with the engine's (``kernel=no``), alternated, median of
``--reps``; with ``--before PYTHON`` (the interpreter of a checkout from before the
kernel) the same decisions there too, in a process of their own, in turn with the
others. The search is the same either way (the same tree for the same seed), so the
ratio is the speed-up of the bot itself. What ``ismcts`` does once per process and
ruleset (the planner's count values, and with the kernel loading it: some 70 ms) is
done before the clock starts, in each process, and printed apart.

Strength (``--strength GAMES``): ``ismcts:ms=65`` with the kernel (today's default
decision time; a wall-clock budget, so the load of the machine counts) against the
default ``ismcts`` (400 iterations, whose moves are the same with or without the
kernel: it plays with it, to save time), 2 players, seats rotated (each deal played
both ways); the searcher's win share (a shared win counts one half) with a 95% Wilson
interval. ``--seconds`` stops starting deals after that long.

    python3 benchmarks/ismcts_speed.py [--reps 5] [--players 4] [--ruleset ID] [--before /path/to/python]
    python3 benchmarks/ismcts_speed.py --strength 500 [--jobs 2] [--seconds 1800]

Figures only: nothing is asserted, and CI never runs this.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any

ITERATIONS = 400
DEALS = (1, 2, 3)


_loaded: dict[tuple[str, int, str], tuple[Any, float]] = {}


def _game(ruleset_id: str, players: int, options: dict[str, str]) -> tuple[Any, float]:
    """The process's one game of ``ruleset_id`` at ``players``, and the milliseconds of
    processor time its first decision took the first time it was asked for: what
    ``ismcts`` does once per process and ruleset (the planner's count values; with
    the kernel, loading it), kept off the clock of :func:`decision_times`."""
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.ismcts import ISMCTSAgent

    key = (ruleset_id, players, options.get("kernel", ""))  # a game (a ruleset object) for each option
    if key not in _loaded:
        game = Game(load_ruleset(ruleset_id), players)
        started = time.process_time()
        ISMCTSAgent(seed=0, iterations=2, **options).act(game.new_initial_state(0), 0)
        _loaded[key] = (game, (time.process_time() - started) * 1e3)
    game, once = _loaded[key]
    return game, once


def decision_times(players: int, kernel: str | None, ruleset_id: str = "sushi-go") -> list[float]:
    """Microseconds of processor time per iteration of seat 0's first decision in each
    deal of :data:`DEALS` (``kernel``: the bot's option; None for a checkout without it),
    the game loaded first (see :func:`_game`); the last number is the milliseconds the
    load took."""
    from ruledraft.play.ismcts import ISMCTSAgent

    options = {} if kernel is None else {"kernel": kernel}
    game, once = _game(ruleset_id, players, options)
    out = []
    for deal in DEALS:
        state = game.new_initial_state(deal)
        agent = ISMCTSAgent(seed=deal, iterations=ITERATIONS, **options)
        started = time.process_time()
        agent.act(state, 0)
        out.append((time.process_time() - started) / ITERATIONS * 1e6)
    return [*out, once]


def _before(python: str, players: int, ruleset_id: str) -> list[float]:
    """:func:`decision_times` without the option, in the interpreter ``python``."""
    code = (
        "import json, sys; sys.path.insert(0, sys.argv[1]); import ismcts_speed as b; "
        "print(json.dumps(b.decision_times(int(sys.argv[2]), None, sys.argv[3])))"
    )
    here = os.path.dirname(os.path.abspath(__file__))
    done = subprocess.run(  # noqa: S603 - the interpreter the caller named
        [python, "-c", code, here, str(players), ruleset_id], capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def speed(reps: int, players: int, before: str | None, ruleset_id: str = "sushi-go") -> None:
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.ismcts import kernel_rollouts

    game = Game(load_ruleset(ruleset_id), players)
    started = time.process_time()
    if kernel_rollouts(game, compile=True) is None:
        sys.exit("no kernel roll-out here (is numba installed?)")
    print(f"kernel loaded (or compiled) in {time.process_time() - started:.1f} s of processor time")
    runs: dict[str, list[float]] = {"kernel": [], "engine": [], "before": []}
    once: dict[str, float] = {}
    for _ in range(reps):
        for name, times in (
            ("kernel", lambda: decision_times(players, "yes", ruleset_id)),
            ("engine", lambda: decision_times(players, "no", ruleset_id)),
            ("before", lambda: _before(before, players, ruleset_id) if before else []),
        ):
            got = times()
            if got:
                runs[name].append(statistics.mean(got[:-1]))
                once[name] = got[-1]
    load = os.getloadavg()
    print(
        f"ismcts, {ITERATIONS} iterations, seat 0's first decision of deals {DEALS}, {players} players, {game.ruleset.name}"
    )
    print(f"processor time per iteration, median of {reps} alternations (load {load[0]:.1f} {load[1]:.1f}):")
    kern = statistics.median(runs["kernel"])
    for name, label in (
        ("kernel", "kernel roll-outs"),
        ("engine", "engine roll-outs"),
        ("before", "before the kernel"),
    ):
        if runs[name]:
            us = statistics.median(runs[name])
            print(
                f"  {label:<20} {us:7.1f} us  {1e6 / us:8.0f} iterations/s  kernel x{us / kern:.2f}"
                f"   (once a process, off the clock: {once[name]:.0f} ms)"
            )


_games: dict[int, Any] = {}


def _pair(seed: int, players: int, bots: tuple[str, str]) -> float:
    """The searcher's (``bots[0]``'s) win share over one deal played both ways round."""
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.runner import play_game

    game = _games.get(players)
    if game is None:  # one per process: its kernel is loaded once
        game = _games[players] = Game(load_ruleset("sushi-go"), players)
    share = 0.0
    for lineup in ((bots[0], bots[1]), (bots[1], bots[0])):
        state = play_game(game, seed, list(lineup))
        seat = lineup.index(bots[0])
        if seat in state.winners:
            share += 1.0 / len(state.winners)
    return share


def strength(games: int, jobs: int, seconds: float, players: int = 2) -> None:
    from ruledraft.engine.state import Game
    from ruledraft.lab.statistics import wilson
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.ismcts import kernel_rollouts

    game = _games[players] = Game(load_ruleset("sushi-go"), players)
    if kernel_rollouts(game, compile=True) is None:  # loaded before the workers fork
        sys.exit("no kernel roll-out here (is numba installed?)")
    bots = ("ismcts:ms=65:kernel=yes", "ismcts:kernel=yes")
    started = time.perf_counter()
    deadline = started + seconds
    shares: list[float] = []
    loads = []
    with ProcessPoolExecutor(jobs) as pool:
        pending = set()
        seed = 0
        while seed < games // 2 or pending:
            while seed < games // 2 and len(pending) < 2 * jobs and time.perf_counter() < deadline:
                pending.add(pool.submit(_pair, 1000 + seed, players, bots))
                seed += 1
            if not pending:
                break
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            shares.extend(f.result() for f in finished)
            loads.append(os.getloadavg()[0])
    played = 2 * len(shares)
    won = sum(shares)
    low, high = wilson(won, played)
    print(f"{bots[0]} against {bots[1]} (= today's default ismcts), {players} players, seats rotated")
    print(
        f"  {played} games: win share {won / played:.1%} (95% Wilson {low:.1%} - {high:.1%}); "
        f"{time.perf_counter() - started:.0f} s; load {statistics.mean(loads):.1f} (mean while playing)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--ruleset", default="sushi-go", help="a bundled ruleset's id or a rule file")
    parser.add_argument("--before", help="the Python of a checkout from before the kernel, timed in turn")
    parser.add_argument("--strength", type=int, default=0, help="games of the strength run (0: none)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=float("inf"), help="start no deal after this long")
    args = parser.parse_args()
    if args.strength:
        strength(args.strength, args.jobs, args.seconds)
    else:
        speed(args.reps, args.players, args.before, args.ruleset)


if __name__ == "__main__":
    main()
