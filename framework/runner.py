"""Running many games: seeds, bots, several processes, statistics.

Each game's seed is derived from the simulation seed and the game's index, and each
bot's from the game seed and its seat, so a simulation gives the same results
whatever the number of processes (``jobs``) and the order they finish in.
"""

from __future__ import annotations

import contextlib
import gc
import math
import time
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import attrs

from .agents import make_agent
from .engine import Game, State, derive_seed
from .game_log import record_game
from .ruleset import CompiledRuleset


@contextlib.contextmanager
def steady_heap():
    """While many games run, leave the objects alive before them (the loaded ruleset,
    the parsers and schemas behind it) out of the cyclic garbage collector's scans:
    games allocate millions of short-lived objects, and each full collection would
    walk all of those long-lived ones again (about 7% of a simulation)."""
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()


def game_seed(seed: int, index: int) -> int:
    """The seed of game number ``index`` of a simulation seeded with ``seed``."""
    return derive_seed(seed, 0x5EED, index)


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in a game seeded with ``seed``."""
    return derive_seed(seed, 0xB07, seat)


def bot_seeds(seed: int, seats: int) -> List[int]:
    """``[bot_seed(seed, seat) for seat in range(seats)]``, mixing the shared prefix once."""
    base = derive_seed(seed, 0xB07)
    return [derive_seed(base, seat) for seat in range(seats)]


def play_game(game: Game, seed: int, bots: Sequence[str], agents: Optional[Sequence] = None) -> State:
    """Play one game to the end with the named bots (or the given agents)."""
    if agents is None:
        agents = [make_agent(name, s) for name, s in zip(bots, bot_seeds(seed, len(bots)))]
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for {game.num_players} players")
    state = game.new_initial_state(seed)
    randoms = [getattr(a, "uniform_random", None) for a in agents]
    if all(randoms):  # every seat picks uniformly: the engine's own loop plays the same game
        state.play_out(randoms)
        return state
    acts = list(enumerate(a.act for a in agents))
    apply = game.procedure.apply  # what State.apply_actions calls, minus checks that hold here
    while not state.finished:
        apply(state, [act(state, s) for s, act in acts])
    return state


@attrs.frozen
class GameResult:
    index: int
    seed: int
    totals: tuple
    winners: tuple
    rule_points: Dict[str, tuple]
    record: Optional[dict] = None


def run_games(ruleset: CompiledRuleset, players: int, seed: int, bots: Sequence[str],
              indices: Iterable[int], log: bool = False) -> List[GameResult]:
    """Play the games with these indices."""
    game = Game(ruleset, players)
    out = []
    for index in indices:
        s = game_seed(seed, index)
        state = play_game(game, s, bots)
        out.append(
            GameResult(
                index=index,
                seed=s,
                totals=tuple(state.totals()),
                winners=tuple(state.winners),
                rule_points={k: tuple(v) for k, v in state.rule_points.items()},
                record=record_game(state, bots) if log else None,
            )
        )
    return out


# ---------------------------------------------------------------- several processes

_WORKER: dict = {}


def _worker_init(source: str) -> None:
    from .loading import load_ruleset

    _WORKER["ruleset"] = load_ruleset(source)
    gc.freeze()  # this process only runs games from here on (see steady_heap)


def _worker_run(players: int, seed: int, bots: Sequence[str], indices: Sequence[int], log: bool) -> List[GameResult]:
    return run_games(_WORKER["ruleset"], players, seed, bots, indices, log)


# ---------------------------------------------------------------- statistics


@attrs.frozen
class SeatStats:
    seat: int
    bot: str
    wins: float
    win_share: float
    mean: float
    stdev: float
    min: int
    max: int
    rules: Dict[str, float]

    def to_json(self) -> dict:
        return attrs.asdict(self)


@attrs.frozen
class Summary:
    ruleset: str
    players: int
    games: int
    seed: int
    bots: tuple
    seats: tuple  # SeatStats per player seat (and dummy seats, which never win)
    rule_ids: tuple
    elapsed: float = attrs.field(eq=False, default=0.0)

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed if self.elapsed else 0.0

    def to_json(self) -> dict:
        return {
            "ruleset": self.ruleset,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "bots": list(self.bots),
            "seats": [s.to_json() for s in self.seats],
            "elapsed_seconds": round(self.elapsed, 3),
            "games_per_second": round(self.games_per_second, 1),
        }


def summarize(ruleset: CompiledRuleset, players: int, seed: int, bots: Sequence[str],
              results: Sequence[GameResult], elapsed: float = 0.0) -> Summary:
    """Per seat: win share (a shared win counts fractionally), mean score and spread,
    and mean points per scoring rule. Results are taken in game order."""
    results = sorted(results, key=lambda r: r.index)
    n = len(results)
    num_seats = len(results[0].totals) if results else ruleset.num_seats(players)
    rule_ids = ruleset.rule_ids
    seats = []
    for seat in range(num_seats):
        scores = [r.totals[seat] for r in results]
        wins = sum(1.0 / len(r.winners) for r in results if seat in r.winners)
        mean = sum(scores) / n if n else 0.0
        var = sum((x - mean) ** 2 for x in scores) / (n - 1) if n > 1 else 0.0
        seats.append(
            SeatStats(
                seat=seat,
                bot=bots[seat] if seat < len(bots) else "dummy",
                wins=wins,
                win_share=wins / n if n else 0.0,
                mean=mean,
                stdev=math.sqrt(var),
                min=min(scores) if scores else 0,
                max=max(scores) if scores else 0,
                rules={rid: (sum(r.rule_points[rid][seat] for r in results) / n if n else 0.0) for rid in rule_ids},
            )
        )
    return Summary(ruleset.id, players, n, seed, tuple(bots), tuple(seats), rule_ids, elapsed)


def simulate(ruleset: CompiledRuleset, players: int, games: int, seed: int, bots: Sequence[str], *,
             jobs: int = 1, source: Optional[str] = None, log: bool = False,
             progress: Optional[Callable[[int], None]] = None,
             on_result: Optional[Callable[[GameResult], None]] = None) -> Summary:
    """Play ``games`` games and summarise them.

    With ``jobs > 1`` games run on that many processes, each of which loads the
    ruleset again from ``source``; results are identical to ``jobs=1``.
    ``on_result`` receives every game's result in game order (for writing logs).
    """
    with steady_heap():
        return _simulate(ruleset, players, games, seed, bots, jobs, source, log, progress, on_result)


def _simulate(ruleset, players, games, seed, bots, jobs, source, log, progress, on_result) -> Summary:
    started = time.perf_counter()
    results: List[GameResult] = []
    pending: Dict[int, GameResult] = {}
    next_index = 0

    def deliver(batch: List[GameResult]) -> None:
        nonlocal next_index
        for r in batch:
            pending[r.index] = r
        while next_index in pending:
            r = pending.pop(next_index)
            results.append(r)
            if on_result is not None:
                on_result(r)
            next_index += 1
        if progress is not None:
            progress(len(batch))

    if jobs <= 1 or games < 2:
        chunk = max(1, min(100, games // 50 or 1))
        for start in range(0, games, chunk):
            deliver(run_games(ruleset, players, seed, bots, range(start, min(games, start + chunk)), log))
    else:
        if source is None:
            raise ValueError("simulate with jobs > 1 needs the ruleset's source to load it in each process")
        jobs = min(jobs, games)
        chunk = max(1, min(200, games // (jobs * 8) or 1))
        with ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init, initargs=(source,)) as pool:
            futures = [
                pool.submit(_worker_run, players, seed, list(bots), list(range(start, min(games, start + chunk))), log)
                for start in range(0, games, chunk)
            ]
            for fut in as_completed(futures):
                deliver(fut.result())
    return summarize(ruleset, players, seed, bots, results, time.perf_counter() - started)
