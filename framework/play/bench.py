"""Speed figures: games per second for bots on rulesets (``ruledraft bench``).

Figures are printed, never asserted: timing depends on the machine and its load.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import attrs

from ruledraft.engine.state import Game
from ruledraft.play.agents import default_card_values
from ruledraft.play.runner import KERNEL_BLOCK, _count_values, game_seed, game_seeds, play_game, simulate, steady_heap


@attrs.frozen
class Figure:
    ruleset: str
    players: int
    bots: str
    jobs: int
    games: int
    seconds: float
    #: which engine played the games: "reference" (the interpreter) or "kernel" (compiled)
    engine: str = "reference"
    #: with the kernel: seconds it took to compile it (or load it from the cache), not in ``seconds``
    compile_seconds: float = 0.0
    #: what was timed: "games" (the game loop on one process) or "simulate" (a whole run
    #: of ``simulate`` with its ``jobs`` processes, start-up and figures included)
    measure: str = "games"

    @property
    def games_per_second(self) -> float:
        return self.games / self.seconds if self.seconds else 0.0

    def to_json(self) -> dict:
        return {**attrs.asdict(self), "games_per_second": round(self.games_per_second, 1)}


def measure(ruleset, players: int, bot: str, *, min_seconds: float = 1.0, min_games: int = 20) -> Figure:
    """Play games with ``bot`` in every seat on one process until ``min_seconds`` have
    passed (and at least ``min_games``)."""
    game = Game(ruleset, players)
    bots = [bot] * players
    for i in range(3):  # warm up
        play_game(game, game_seed(0, i), bots)
    n = 0
    with steady_heap():  # as simulate runs its games
        started = time.perf_counter()
        while True:
            play_game(game, game_seed(1, n), bots)
            n += 1
            elapsed = time.perf_counter() - started
            if n >= min_games and elapsed >= min_seconds:
                return Figure(ruleset.id, players, bot, 1, n, elapsed)


def measure_kernel(kernel, bot: str, *, min_seconds: float = 1.0, min_games: int = 20) -> tuple[int, float]:
    """Play games with ``bot`` in every seat on the kernel (a compiled
    :class:`ruledraft.kernel.Kernel`), in growing batches, until ``min_seconds`` have
    passed (and at least ``min_games``): (games, seconds). The seeds are those
    :func:`measure` gives the reference engine (run seed 1)."""
    from ruledraft.kernel import Room  # loaded with the kernel already

    bots = [bot] * kernel.players
    game = Game(kernel.ruleset, kernel.players)
    values = default_card_values(game) if bot == "value" else None
    counts = _count_values(game, bots)  # the planner's
    room = Room()  # each call's games written over the last's, as simulate's are
    batch = 1  # doubled while the calls are quick: a slow bot's first call is one game, a Ctrl-C's wait one game's time
    n = 0
    started = time.perf_counter()
    while True:
        kernel.play(game_seeds(1, n, batch), bots, values, counts, room=room)
        n += batch
        elapsed = time.perf_counter() - started
        if n >= min_games and elapsed >= min_seconds:
            return n, elapsed
        if elapsed < min_seconds / 4:  # up to the calls simulate makes: a larger one is more memory, not more speed
            batch = min(2 * batch, KERNEL_BLOCK)


def measure_jobs(
    ruleset, source: str, players: int, bot: str, jobs: int, games: int, engine: str = "reference"
) -> Figure:
    """Throughput of :func:`ruledraft.play.runner.simulate` with ``jobs`` processes
    (start-up included) on ``engine`` (``kernel``, compiled already, or ``reference``)."""
    started = time.perf_counter()
    simulate(ruleset, players, games, 1, [bot] * players, jobs=jobs, source=source, engine=engine)
    return Figure(ruleset.id, players, bot, jobs, games, time.perf_counter() - started, engine, measure="simulate")


def player_counts(ruleset, wanted: Sequence[int]) -> list:
    """The counts of ``wanted`` the ruleset plays, each once in the order given (else its fewest)."""
    counts = [n for n in dict.fromkeys(wanted) if ruleset.min_players <= n <= ruleset.max_players]
    return counts or [ruleset.min_players]


def default_player_counts(ruleset) -> list:
    """The player counts measured unless others are asked for: a menu of a card library
    (Sushi Go Party!) at 4 players and at the most it allows, any other ruleset at 2 and 4."""
    wanted = [4, ruleset.max_players] if ruleset.menu else [2, 4]
    return player_counts(ruleset, sorted(set(wanted)))
