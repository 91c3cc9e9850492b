"""Running many games: seeds, bots, several processes, statistics.

Each game's seed is derived from the simulation seed and the game's index, and each
bot's from the game seed and its seat, so a simulation gives the same results
whatever the number of processes (``jobs``) and the order they finish in.
"""

from __future__ import annotations

import contextlib
import gc
import math
import threading
import time
from operator import add
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import attrs

from .agents import make_agent
from .engine import Game, State, derive_seed
from .game_log import record_game
from .ruleset import CompiledRuleset


_HEAP_LOCK = threading.Lock()
_HEAP_USERS = 0
_HEAP_SAVED: tuple = ()  # (threshold, whether we froze) of the first user


@contextlib.contextmanager
def steady_heap():
    """While many games run, leave the objects alive before them (the loaded ruleset,
    the parsers and schemas behind it) out of the cyclic garbage collector's scans:
    games allocate millions of short-lived objects, and each full collection would
    walk all of those long-lived ones again (about 7% of a simulation). Young objects
    are collected less often too (games make almost no reference cycles: about 3%).

    The collector is left as it was found: a heap the caller froze itself stays
    frozen, and overlapping uses (threads) restore it once, when the last one ends.
    """
    global _HEAP_USERS, _HEAP_SAVED
    with _HEAP_LOCK:
        if _HEAP_USERS == 0:
            _HEAP_SAVED = (gc.get_threshold(), gc.get_freeze_count() == 0)
            _settle_heap(freeze=_HEAP_SAVED[1])
        _HEAP_USERS += 1
    try:
        yield
    finally:
        with _HEAP_LOCK:
            _HEAP_USERS -= 1
            if _HEAP_USERS == 0:
                threshold, froze = _HEAP_SAVED
                gc.set_threshold(*threshold)
                if froze:
                    gc.unfreeze()


def _settle_heap(freeze: bool = True) -> None:
    if freeze:
        gc.freeze()
    threshold = gc.get_threshold()
    gc.set_threshold(max(threshold[0], 10_000), *threshold[1:])


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


def tally_games(ruleset: CompiledRuleset, players: int, seed: int, bots: Sequence[str],
                indices: Iterable[int]) -> "Tally":
    """Play the games with these indices and keep only their statistics (no per-game
    results to build, send between processes or keep in memory)."""
    game = Game(ruleset, players)
    tally = Tally.empty(game.num_seats, ruleset.rule_ids)
    for index in indices:
        tally.add_state(play_game(game, game_seed(seed, index), bots))
    tally.flush()
    return tally


@attrs.define
class Tally:
    """Statistics of many games that merge exactly.

    Everything is an integer sum (a win shared by k seats counts ``unit // k``, with
    ``unit`` divisible by every possible k), so tallies merged in any grouping and any
    order -- games split over processes, or later over machines -- give the same
    summary as one tally of all the games.
    """

    num_seats: int
    rule_ids: tuple
    unit: int
    games: int = 0
    wins: list = attrs.Factory(list)  # per seat, in 1/unit
    total: list = attrs.Factory(list)
    total_sq: list = attrs.Factory(list)
    low: list = attrs.Factory(list)
    high: list = attrs.Factory(list)
    rules: Dict[str, list] = attrs.Factory(dict)  # rule id -> points per seat
    #: id(rules) -> (rules, [points of each scoring]), summed in bulk by flush()
    _pending: dict = attrs.field(factory=dict, eq=False, repr=False)
    _pending_games: int = attrs.field(default=0, eq=False, repr=False)

    @classmethod
    def empty(cls, num_seats: int, rule_ids: Sequence[str]) -> "Tally":
        n = num_seats
        return cls(n, tuple(rule_ids), math.lcm(*range(1, n + 1)), 0, [0] * n, [0] * n, [0] * n,
                   [None] * n, [None] * n, {rid: [0] * n for rid in rule_ids})

    def _add_outcome(self, totals: Sequence[int], winners: Sequence[int]) -> None:
        self.games += 1
        if winners:
            share = self.unit // len(winners)
            for s in winners:
                self.wins[s] += share
        low, high, total, sq = self.low, self.high, self.total, self.total_sq
        for s, x in enumerate(totals):
            total[s] += x
            sq[s] += x * x
            if low[s] is None or x < low[s]:
                low[s] = x
            if high[s] is None or x > high[s]:
                high[s] = x

    def add_result(self, result: GameResult) -> None:
        """Count one game's result."""
        self._add_outcome(result.totals, result.winners)
        for rid, pts in result.rule_points.items():
            self.rules[rid] = list(map(add, self.rules[rid], pts))

    def add_state(self, state: State) -> None:
        """Count one finished game, straight from its state."""
        self._add_outcome(state.totals(), state.winners)
        pending = self._pending
        for rules, points in state.scored:
            entry = pending.get(id(rules))
            if entry is None:
                pending[id(rules)] = (rules, [points])
            else:
                entry[1].append(points)
        self._pending_games += 1
        if self._pending_games >= 1024:
            self.flush()

    def flush(self) -> None:
        """Fold the buffered points of each rule into the sums (column by column, in C)."""
        for rules, scorings in self._pending.values():
            for rule, per_scoring in zip(rules, zip(*scorings)):
                self.rules[rule.id] = list(map(add, self.rules[rule.id], map(sum, zip(*per_scoring))))
        self._pending.clear()
        self._pending_games = 0

    def merge(self, other: "Tally") -> None:
        """Add another tally of other games (of the same table) to this one."""
        if (other.num_seats, other.rule_ids, other.unit) != (self.num_seats, self.rule_ids, self.unit):
            raise ValueError("cannot merge tallies of different tables (seats or scoring rules differ)")
        self.flush()
        other.flush()
        self.games += other.games
        self.wins = list(map(add, self.wins, other.wins))
        self.total = list(map(add, self.total, other.total))
        self.total_sq = list(map(add, self.total_sq, other.total_sq))
        self.low = [b if a is None or (b is not None and b < a) else a for a, b in zip(self.low, other.low)]
        self.high = [b if a is None or (b is not None and b > a) else a for a, b in zip(self.high, other.high)]
        for rid, pts in other.rules.items():
            self.rules[rid] = list(map(add, self.rules[rid], pts))

    def __getstate__(self) -> dict:  # the pending points hold compiled rules: fold them first
        self.flush()
        return {f.name: getattr(self, f.name) for f in attrs.fields(type(self))}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def summary(self, ruleset_id: str, players: int, seed: int, bots: Sequence[str], elapsed: float = 0.0) -> "Summary":
        self.flush()
        n = self.games
        seats = []
        for seat in range(self.num_seats):
            wins = self.wins[seat] / self.unit
            total, sq = self.total[seat], self.total_sq[seat]
            # the variance from exact integer sums: n*sum(x^2) - sum(x)^2 = n^2 * (population variance)
            var = (n * sq - total * total) / (n * (n - 1)) if n > 1 else 0.0
            seats.append(
                SeatStats(
                    seat=seat,
                    bot=bots[seat] if seat < len(bots) else "dummy",
                    wins=wins,
                    win_share=wins / n if n else 0.0,
                    mean=total / n if n else 0.0,
                    stdev=math.sqrt(var),
                    min=self.low[seat] if self.low[seat] is not None else 0,
                    max=self.high[seat] if self.high[seat] is not None else 0,
                    rules={rid: (self.rules[rid][seat] / n if n else 0.0) for rid in self.rule_ids},
                )
            )
        return Summary(ruleset_id, players, n, seed, tuple(bots), tuple(seats), self.rule_ids, elapsed)


# ---------------------------------------------------------------- several processes

_WORKER: dict = {}


def _worker_init(source: str) -> None:
    from .loading import load_ruleset

    _WORKER["ruleset"] = load_ruleset(source)
    _settle_heap()  # this process only runs games from here on (see steady_heap)


def _worker_run(players: int, seed: int, bots: Sequence[str], indices: Sequence[int], log: bool) -> List[GameResult]:
    return run_games(_WORKER["ruleset"], players, seed, bots, indices, log)


def _worker_tally(players: int, seed: int, bots: Sequence[str], indices: Sequence[int]) -> Tally:
    return tally_games(_WORKER["ruleset"], players, seed, bots, indices)


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
    and mean points per scoring rule."""
    num_seats = len(results[0].totals) if results else ruleset.num_seats(players)
    tally = Tally.empty(num_seats, ruleset.rule_ids)
    for r in results:
        tally.add_result(r)
    return tally.summary(ruleset.id, players, seed, bots, elapsed)


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
    game = Game(ruleset, players)
    tally = Tally.empty(game.num_seats, ruleset.rule_ids)
    per_game = log or on_result is not None  # otherwise only statistics travel
    pending: Dict[int, GameResult] = {}
    next_index = 0

    def deliver(batch) -> None:
        nonlocal next_index
        if isinstance(batch, Tally):
            tally.merge(batch)
            done = batch.games
        else:  # results, handed over in game order
            for r in batch:
                pending[r.index] = r
            while next_index in pending:
                r = pending.pop(next_index)
                tally.add_result(r)
                if on_result is not None:
                    on_result(r)
                next_index += 1
            done = len(batch)
        if progress is not None:
            progress(done)

    if jobs <= 1 or games < 2:
        chunk = max(1, min(100, games // 50 or 1))
        for start in range(0, games, chunk):
            indices = range(start, min(games, start + chunk))
            deliver(run_games(ruleset, players, seed, bots, indices, log) if per_game
                    else tally_games(ruleset, players, seed, bots, indices))
    else:
        if source is None:
            raise ValueError("simulate with jobs > 1 needs the ruleset's source to load it in each process")
        jobs = min(jobs, games)
        chunk = max(1, min(200 if per_game else 1000, games // (jobs * 8) or 1))
        with ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init, initargs=(source,)) as pool:
            futures = [
                pool.submit(_worker_run, players, seed, list(bots), list(range(start, min(games, start + chunk))), log)
                if per_game else
                pool.submit(_worker_tally, players, seed, list(bots), range(start, min(games, start + chunk)))
                for start in range(0, games, chunk)
            ]
            for fut in as_completed(futures):
                deliver(fut.result())
    return tally.summary(ruleset.id, players, seed, bots, time.perf_counter() - started)
