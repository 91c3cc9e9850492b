"""Tournaments: several bots, every line-up, seats rotated on the same deals.

:func:`run_tournament` plays, for ``players`` seats and the bots named, every
*line-up* -- every multiset of ``players`` bots taken from them that holds at least
two different bots (``a,b`` at 4 players: ``a b b b``, ``a a b b``, ``a a a b``) --
and each line-up at each of its *seatings*: the line-up turned round the table one
seat at a time (``a b b b``, ``b b b a``, ``b b a b``, ``b a b b``), so that every bot
sits at every seat equally often. Every seating plays the same deals (deal ``d`` is
game seed ``game_seed(seed, d)``, as ``simulate``'s game ``d``): the luck of the cards
is the same for every bot at every seat.

What it counts, per bot:

* **win share**: the wins of its seats (a win shared by k seats counts 1/k) over the
  seats it played, with its 95% Wilson interval (:func:`ruledraft.lab.statistics.wilson`).
  Seats of one bot in one game are counted as separate trials, so the interval is a
  little narrow for line-ups where a bot holds several seats; a fair share is 1/players.
* **rating**: OpenSkill's Plackett-Luce model (the ``openskill`` package, the
  ``tournament`` extra), each game a free-for-all of the bots at the table, a bot
  placed by the mean place of its seats (winners first, then by score); the games
  are rated one after another in a fixed order (deal by deal, the seatings of a deal
  in line-up order), so any number of processes or a cluster gives the same ratings.
  ``ordinal`` is ``mu - 3 sigma``, the conservative figure ranked by.
* **time per decision**: every call of its ``act`` timed (CPU time of the thread
  that plays it, so other work on the machine counts little), median and 95th
  percentile (from a histogram of 1% wide bins, so the figures merge across
  processes; times are the one figure that differs from run to run).

The games are played by :mod:`ruledraft.play.executor` (this process, worker
processes, or a Dask cluster); shares and ratings are the same on all of them.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from ruledraft.engine.state import Game
from ruledraft.errors import InputError
from ruledraft.lab.statistics import wilson
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play import executor
from ruledraft.play.agents import make_agent, parse_bot
from ruledraft.play.bot_specs import BotFailure, absolute_spec
from ruledraft.play.executor import Chunk, ShippedRuleset, StopSignals, steady_heap
from ruledraft.play.match import check_players, check_seed
from ruledraft.play.runner import UNASKED, bot_seeds, game_seed, play_game

__all__ = [
    "MAX_GAMES",
    "MAX_LINEUPS",
    "RATING",
    "TournamentTally",
    "TournamentWork",
    "lineups",
    "run_tournament",
    "seatings",
]

#: the rating model, as the JSON and the README name it
RATING = "OpenSkill Plackett-Luce (openskill package)"
INSTALL = "pip install 'ruledraft[tournament]'"
#: decision times are kept in bins this many times wider than the one before (1%)
_BIN = math.log(1.01)
_FLOOR = 1e-7  # seconds: the lowest bin's edge
#: the most line-ups a tournament plays (20 bots at 8 seats would make 2.2 million)
MAX_LINEUPS = 100_000
#: the most games a tournament plays in all (every seating of every line-up, every deal)
MAX_GAMES = 10_000_000


def lineups(bots: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Every multiset of ``players`` bots from ``bots`` (in the order given) with at
    least two different bots; for one bot, the one line-up of it alone.
    :class:`InputError` if there would be more than :data:`MAX_LINEUPS` (counted first)."""
    distinct = list(dict.fromkeys(bots))
    count = math.comb(len(distinct) + players - 1, players) - (len(distinct) if len(distinct) > 1 else 0)
    if count > MAX_LINEUPS:
        raise InputError(
            f"{len(distinct)} bots at {players} seats make {count:,} line-ups, more than the "
            f"{MAX_LINEUPS:,} a tournament plays: name fewer bots or play fewer seats"
        )
    every = list(itertools.combinations_with_replacement(distinct, players))
    mixed = [lu for lu in every if len(set(lu)) > 1]
    return mixed or every


def seatings(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """The line-up turned round the table one seat at a time (each seating once)."""
    n = len(lineup)
    return list(dict.fromkeys(tuple(lineup[(i + k) % n] for i in range(n)) for k in range(n)))


def _places(totals: Sequence[int], winners: Sequence[int]) -> tuple[int, ...]:
    """Each seat's place (0 best): winners first, then by total; equal seats share a place."""
    keys = [(s in winners, t) for s, t in enumerate(totals)]
    return tuple(sum(1 for other in keys if other > k) for k in keys)


class _Timed:
    """An agent whose every decision is timed into ``bins`` (its other attributes are the agent's)."""

    def __init__(self, agent: Any, bins: Counter):
        self._agent = agent
        self._bins = bins

    def act(self, state: Any, seat: int) -> int:
        started = time.thread_time()
        action = self._agent.act(state, seat)
        seconds = time.thread_time() - started
        self._bins[max(0, int(math.log(max(seconds, _FLOOR) / _FLOOR) / _BIN))] += 1
        return action

    def __getattr__(self, name: str) -> Any:
        if name in UNASKED:  # timed, it plays through act like every other bot
            raise AttributeError(name)
        return getattr(self._agent, name)


def _seconds(bin_index: int) -> float:
    """The middle of a bin, in seconds."""
    return _FLOOR * math.exp((bin_index + 0.5) * _BIN)


def _quantile(bins: Counter, q: float) -> float | None:
    total = sum(bins.values())
    if not total:
        return None
    rank = q * (total - 1)
    seen = 0
    for b in sorted(bins):
        seen += bins[b]
        if seen > rank:
            return _seconds(b)
    return _seconds(max(bins))


class TournamentTally:
    """Per seating: games and each seat's wins (in 1/``unit``); per bot: decision-time
    bins. Integer sums only, so tallies merge exactly in any order."""

    def __init__(self, tables: int, players: int) -> None:
        self.unit = math.lcm(*range(1, players + 1))
        self.games = [0] * tables
        self.wins = [[0] * players for _ in range(tables)]
        self.times: dict[str, Counter] = {}
        self.signal = 0

    def add(self, table: int, winners: Sequence[int]) -> None:
        self.games[table] += 1
        if winners:
            share = self.unit // len(winners)
            for s in winners:
                self.wins[table][s] += share

    def merge(self, other: TournamentTally) -> None:
        for t, n in enumerate(other.games):
            self.games[t] += n
            mine, theirs = self.wins[t], other.wins[t]
            for s, w in enumerate(theirs):
                mine[s] += w
        for bot, bins in other.times.items():
            self.times.setdefault(bot, Counter()).update(bins)


class TournamentWork:
    """The games of a tournament as :mod:`ruledraft.play.executor` plays them. Game ``i``
    is deal ``i // T`` at seating ``i % T`` (``T`` seatings in all), so the games are
    interleaved: every seating has played about as many deals at any point. Its
    records are ``(seating, places)`` per game, in game order, for the ratings."""

    inline_chunk = 20

    def __init__(
        self, shipped: ShippedRuleset, players: int, seed: int, tables: Sequence[tuple[str, ...]], deals: int
    ) -> None:
        self.shipped = shipped
        self.players = players
        self.seed = seed
        self.tables = [tuple(t) for t in tables]
        self.specs = [tuple(absolute_spec(b) for b in t) for t in self.tables]
        self.deals = deals
        self.cap = 200
        self._game: Game | None = None

    @property
    def game(self) -> Game:
        if self._game is None:
            for bot in dict.fromkeys(b for t in self.specs for b in t):
                parse_bot(bot)  # known here too (a worker elsewhere): foreign bots' moves are checked
            self._game = Game(self.shipped.ruleset, self.players)
        return self._game

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_game"} | {"_game": None}

    def empty(self) -> TournamentTally:
        return TournamentTally(len(self.tables), self.players)

    def play(self, start: int, end: int, stop: Callable[[], bool] | None = None) -> Chunk:
        game, count = self.game, len(self.tables)
        tally = self.empty()
        records = []
        index = start
        with steady_heap():
            while index < end:
                if stop is not None and stop():
                    break
                deal, table = divmod(index, count)
                bots, specs = self.tables[table], self.specs[table]
                seed = game_seed(self.seed, deal)
                agents = [
                    _Timed(make_agent(spec, s, shown=bot), tally.times.setdefault(bot, Counter()))
                    for spec, bot, s in zip(specs, bots, bot_seeds(seed, self.players))
                ]
                try:
                    state = play_game(game, seed, bots, agents, specs=specs)
                except BotFailure as e:  # which of the tournament's tables it failed at, too
                    raise BotFailure(f"{e} (seats: {', '.join(bots)})", e.detail) from e
                winners = tuple(state.winners)
                tally.add(table, winners)
                records.append((table, _places(state.totals(), winners)))
                index += 1
        return Chunk(start, index, tally, tuple(records))


def _model() -> Any:
    """OpenSkill's Plackett-Luce model; :class:`InputError` saying how to install it when missing."""
    try:
        from openskill.models import PlackettLuce
    except ImportError:
        raise InputError(
            f"the tournament's ratings need the openskill package, which is not installed: {INSTALL}"
        ) from None
    return PlackettLuce()


def _rate(bots: Sequence[str], tables: Sequence[tuple[str, ...]], games: Sequence[tuple[int, tuple]]) -> dict:
    """Each bot's OpenSkill rating after the games, rated in the order given."""
    model = _model()
    ratings = {b: model.rating(name=b) for b in bots}
    for table, places in games:
        seated = tables[table]
        at: dict[str, list[int]] = {}
        for bot, place in zip(seated, places):
            at.setdefault(bot, []).append(place)
        names = list(at)
        if len(names) < 2:
            continue
        rated = model.rate([[ratings[b]] for b in names], ranks=[sum(at[b]) / len(at[b]) for b in names])
        for b, team in zip(names, rated):
            ratings[b] = team[0]
    return {b: {"mu": r.mu, "sigma": r.sigma, "ordinal": r.mu - 3 * r.sigma} for b, r in ratings.items()}


def run_tournament(
    ruleset: CompiledRuleset,
    bots: Sequence[str],
    players: int,
    games: int,
    seed: int = 0,
    *,
    jobs: int = 1,
    document: Any = None,
    backend: executor.Backend | None = None,
    progress: Callable[[int], None] | None = None,
    chosen: Sequence[Sequence[str]] | None = None,
) -> dict:
    """Play the tournament and return its figures (the ``--json`` document).

    ``games``: games per line-up: every seating plays the same ``ceil(games /
    players)`` deals (a line-up that looks the same turned round has fewer seatings,
    so fewer games); ``chosen``: the line-ups to play instead of every
    one (each ``players`` bot specs). Games run on ``jobs`` worker processes or on
    ``backend`` (a cluster), with the same figures. SIGINT stops it between chunks:
    the figures count the games finished (``interrupted``)."""
    check_seed(seed, error=ValueError)
    check_players(ruleset, players)
    _model()  # before any game is played
    names = list(dict.fromkeys(bots))
    if not names:
        raise InputError("a tournament needs at least one bot")
    for b in names:
        parse_bot(b, ruleset.catalogue.ids)
    if games < 1:
        raise ValueError(f"games must be at least 1, not {games}")
    plan = [tuple(lu) for lu in chosen] if chosen is not None else lineups(names, players)
    for lu in plan:
        if len(lu) != players:
            raise InputError(f"line-up {', '.join(lu)} has {len(lu)} bots for {players} players")
        for b in lu:
            if b not in names:
                names.append(b)
                parse_bot(b, ruleset.catalogue.ids)
    tables: list[tuple[str, ...]] = []
    table_lineup: list[int] = []
    for n, lu in enumerate(plan):
        for seating in seatings(lu):
            tables.append(seating)
            table_lineup.append(n)
    deals = -(-games // players)
    if deals * len(tables) > MAX_GAMES:
        raise InputError(
            f"{len(plan):,} line-ups in {len(tables):,} seatings of {deals:,} deals each are "
            f"{deals * len(tables):,} games, more than the {MAX_GAMES:,} a tournament plays: "
            "ask fewer --games, or name fewer bots"
        )
    work = TournamentWork(ShippedRuleset(ruleset, document), players, seed, tables, deals)
    total_games = deals * len(tables)
    if backend is None:
        backend = executor.local(jobs, total_games)
    order: list[tuple[int, tuple]] = []

    def keep(records: Any) -> None:
        order.extend(records)

    with steady_heap(), StopSignals() as stop:
        started = time.perf_counter()
        tally: TournamentTally = executor.run(work, total_games, backend, on_records=keep, progress=progress, stop=stop)
        elapsed = time.perf_counter() - started
    tally.signal = stop.signum
    return _figures(ruleset, players, seed, names, plan, tables, table_lineup, deals, tally, order, elapsed)


def _figures(
    ruleset: CompiledRuleset,
    players: int,
    seed: int,
    names: Sequence[str],
    plan: Sequence[tuple[str, ...]],
    tables: Sequence[tuple[str, ...]],
    table_lineup: Sequence[int],
    deals: int,
    tally: TournamentTally,
    order: Sequence[tuple[int, tuple]],
    elapsed: float,
) -> dict:
    unit = tally.unit
    seats_of = dict.fromkeys(names, 0)
    wins_of = dict.fromkeys(names, 0)
    per_lineup: list[dict] = [
        {"bots": list(lu), "seatings": 0, "games": 0, "wins": dict.fromkeys(lu, 0), "seats": dict.fromkeys(lu, 0)}
        for lu in plan
    ]
    for t, seating in enumerate(tables):
        row = per_lineup[table_lineup[t]]
        row["seatings"] += 1
        row["games"] += tally.games[t]
        for s, bot in enumerate(seating):
            seats_of[bot] += tally.games[t]
            wins_of[bot] += tally.wins[t][s]
            row["seats"][bot] += tally.games[t]
            row["wins"][bot] += tally.wins[t][s]
    ratings = _rate(names, tables, order) if order else {b: None for b in names}
    bots_out: list[dict[str, Any]] = []
    for b in names:
        n, w = seats_of[b], wins_of[b] / unit
        bins = tally.times.get(b, Counter())
        median, p95 = _quantile(bins, 0.5), _quantile(bins, 0.95)
        bots_out.append(
            {
                "bot": b,
                "seat_games": n,
                "wins": w,
                "win_share": w / n if n else None,
                "win_share_interval": list(wilson(w, n)) if n else None,
                "rating": ratings[b],
                "decisions": sum(bins.values()),
                "decision_ms_median": None if median is None else median * 1000,
                "decision_ms_p95": None if p95 is None else p95 * 1000,
            }
        )
    bots_out.sort(key=lambda r: -(r["rating"]["ordinal"] if r["rating"] else 0.0))
    lineups_out = []
    for row in per_lineup:
        shares: dict[str, dict[str, Any]] = {}
        for b, n in row["seats"].items():
            w = row["wins"][b] / unit
            shares[b] = {"seats": len([x for x in row["bots"] if x == b]), "win_share": w / n if n else None}
            shares[b]["win_share_interval"] = list(wilson(w, n)) if n else None
        lineups_out.append({"bots": row["bots"], "seatings": row["seatings"], "games": row["games"], "by_bot": shares})
    played = sum(tally.games)
    # each seating plays each deal once: a stop leaves a line-up's seatings with as many deals
    # each (its seats balance the bots) or some one deal ahead of the others (they do not)
    seatings_of: dict[int, list[int]] = {}
    for t in range(len(tables)):
        seatings_of.setdefault(table_lineup[t], []).append(tally.games[t])
    return {
        "ruleset": ruleset.id,
        "players": players,
        "seed": seed,
        "bots": list(names),
        "deals": deals,
        "deals_played": max(tally.games, default=0),
        "balanced": all(len(set(counts)) <= 1 for counts in seatings_of.values()),
        "games": played,
        "requested": deals * len(tables),
        "interrupted": bool(tally.signal),
        "signal": tally.signal,
        "fair_share": 1 / players,
        "rating_model": RATING,
        "seconds": elapsed,
        "ranking": bots_out,
        "lineups": lineups_out,
    }
