"""Running many games: seeds, bots, several processes, statistics.

Each game's seed is derived from the simulation seed and the game's index, and each
bot's from the game seed and its seat, so a simulation gives the same results
whatever the number of processes (``jobs``), the machines (a cluster) and the order
they finish in. The games are played in chunks by :mod:`ruledraft.play.executor`
(:class:`GamesWork` says how to play a chunk of a simulation).

The figures a run counts beside its sums come from a *collector*
(:class:`Collector`): the lab's :class:`~ruledraft.lab.figures.LabTally`, which the
lab registers as the default (:func:`register_collector`) or a caller passes.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from operator import add
from typing import Any, Protocol, cast

import attrs

from ruledraft.engine.scoresheet import Scoring, add_rule_points
from ruledraft.engine.seeds import bot_seed, bot_seeds, game_seed  # noqa: F401 - long imported from here
from ruledraft.engine.state import MAX_SEED, Game, State
from ruledraft.errors import IllegalMoveError
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play import executor
from ruledraft.play.agents import illegal_move, is_foreign, make_agent, parse_bot, seat_mover
from ruledraft.play.bot_specs import absolute_spec
from ruledraft.play.engines import kernel_for
from ruledraft.play.executor import (  # noqa: F401 - where they have long been imported from
    Chunk,
    Interrupt,
    ShippedRuleset,
    StopSignals,
    WorkerError,
    available_cores,
    steady_heap,
)
from ruledraft.play.game_log import record_game, record_line
from ruledraft.play.isolate import IsolatedAgent
from ruledraft.play.match import Match, fill_seats  # noqa: F401 - fill_seats: where it has long been imported from


class Collector(Protocol):
    """The counts behind a run's figures, kept per game and merged exactly (the lab's
    :class:`~ruledraft.lab.figures.LabTally` is one): a :class:`Tally` with a collector
    reads its sums from it at :meth:`Tally.flush`."""

    wins: Any
    scores: Any

    def empty_copy(self) -> Collector: ...
    def add_state(self, state: State, totals: Sequence[int] | None = None) -> None: ...

    # optional: ``add_kernel_games(games)`` counts games a compiled kernel played (a
    # ``KernelGames``) all at once; a collector without it has its games played on the
    # reference engine (the same games)

    def merge(self, other: Any) -> None: ...
    def flush(self) -> None: ...
    def rule_points(self) -> dict[str, list[int]]: ...
    def figures(self, tally: Tally, bots: Sequence[str]) -> dict:
        """The figures of ``tally`` (its sums and these counts), as ``simulate --json`` prints them."""
        ...


#: ``factory(game, cards)``: an empty collector for games of ``game`` (``cards``: with the per-card counts)
CollectorFactory = Callable[[Game, bool], Collector]

_DEFAULT_COLLECTOR: list[CollectorFactory] = []


def register_collector(factory: CollectorFactory) -> None:
    """Make ``factory`` the collector of runs that name none (the lab registers its own)."""
    _DEFAULT_COLLECTOR[:] = [factory]


def collector_for(game: Game, cards: bool, factory: CollectorFactory | None = None) -> Collector | None:
    """An empty collector for ``game``: from ``factory``, else the registered one (None if none is)."""
    if factory is None:
        if not _DEFAULT_COLLECTOR:
            return None
        factory = _DEFAULT_COLLECTOR[0]
    return factory(game, cards)


def _start_method() -> str:
    return executor.start_method()


def play_game(
    game: Game,
    seed: int,
    bots: Sequence[str],
    agents: Sequence | None = None,
    *,
    specs: Sequence[str] | None = None,
    foreign: Sequence[bool] | None = None,
    isolate: ShippedRuleset | None = None,
) -> State:
    """Play one game to the end with the named bots (or the given agents). ``specs``:
    the specs the agents are made from when they differ from the names the messages
    give (a bot file named by its absolute path, on a worker elsewhere).

    Only the seats that act are asked (every player during the picks, the deciding
    seat while a card effect waits for a decision), each with its seat's view, and
    every move is checked (a built-in bot's pick by the procedure as it plays it, any
    other before). A uniform agent (``uniform_random``)
    is never asked: the engine draws its move from its stream, as its ``act`` would;
    nor is one that promises the first legal move (``first_legal``). A bot from outside (``foreign``, by
    default the bots loaded from a file, a module or an entry point) that raises ends
    the game with a :class:`BotFailure`; a built-in bot's error is raised as it is.
    With ``isolate`` (the ruleset as it travels), each bot from outside runs in a
    process of its own (:mod:`ruledraft.play.isolate`) and is sent only its view."""
    specs = bots if specs is None else specs
    if agents is None:
        seeds = bot_seeds(seed, len(specs))
        if isolate is not None:  # each bot from outside in a process of its own
            agents = [
                IsolatedAgent(spec, seeds[n], isolate, game.num_players, n, shown=bots[n])
                if parse_bot(spec).kind.foreign
                else make_agent(spec, seeds[n], shown=bots[n])
                for n, spec in enumerate(specs)
            ]
        else:
            agents = [make_agent(spec, s, shown=bot) for spec, s, bot in zip(specs, seeds, bots)]
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for {game.num_players} players")
    state = game.new_initial_state(seed)
    randoms = [getattr(a, "uniform_random", None) for a in agents]
    uniform = [r for r in randoms if r is not None]
    if len(uniform) == len(agents):  # every seat picks uniformly: the engine's own loop plays the same game
        state.play_out(uniform)
        return state
    if foreign is None:
        foreign = [is_foreign(spec) for spec in specs]
    # what State.apply_actions calls, minus checks that hold here; it checks every move
    # (a built-in bot's pick is not checked before it: see _name_refused)
    apply = game.procedure.apply
    moves = [_mover(state, a, r, name, alien, seed) for a, r, name, alien in zip(agents, randoms, bots, foreign)]
    seats = list(enumerate(moves))  # the picks: every player acts (state.acting_seats())
    while not state.finished:
        pending = state.pending
        if pending is None:
            actions = [move(s) for s, move in seats]
        else:  # a card effect's decision: only its seat acts
            actions = [moves[pending.seat](pending.seat)]
        try:
            apply(state, actions)
        except IllegalMoveError:
            _name_refused(state, actions, bots, seed)
            raise  # every move was legal: the refusal was the engine's own
    return state


def _name_refused(state: State, actions: list[Any], bots: Sequence[str], seed: int) -> None:
    """Raise the failure of the first bot whose move the procedure refused (which leaves
    the state as it was): a built-in bot's pick, played unchecked, as every other move
    was checked before. Raised here, not returned: a failure held in ``play_game``'s
    frame while its traceback holds that frame would keep the game alive until the
    collector finds the cycle."""
    for seat, action in zip(state.acting_seats(), actions):
        if not (type(action) is int and action in state.legal_actions(seat)):
            raise illegal_move(bots[seat], seat, action, seed) from None


#: the attributes by which an agent promises what its ``act`` returns, so that
#: :func:`play_game` takes the move without asking it (a wrapper that must see every
#: call, such as the tournament's timing, hides them)
UNASKED = ("uniform_random", "first_legal")


def _mover(state: State, agent: Any, uniform: Any, name: str, alien: bool, seed: int) -> Callable[[int], int]:
    """How a seat's move is chosen: a uniform agent's (``uniform``: its stream) is the
    engine's draw from its stream, and that of an agent whose class says ``first_legal``
    the seat's first legal move, what its ``act`` would return, so the agent is never
    handed anything; any other agent is asked with its seat's view and checked."""
    if uniform is not None:
        sample = state.sample_action
        return lambda s: sample(s, uniform)
    # the promise of the agent's own class: a subclass with an act of its own is asked
    if vars(type(agent)).get("first_legal") is True:
        legal = state.legal_actions
        return lambda s: legal(s)[0]
    return seat_mover(agent, name, state, seed, foreign=alien, applied_checked=True)


@attrs.frozen
class GameResult:
    index: int
    seed: int
    totals: tuple
    winners: tuple
    rule_points: dict[str, tuple]
    record: dict | None = None
    #: the game's counts for the figures (per card, per rule, score histograms), not yet folded
    lab: Collector | None = attrs.field(default=None, eq=False, repr=False)


def _result(index: int, state: State, record: dict | None, lab: Collector | None = None) -> GameResult:
    return GameResult(
        index=index,
        seed=state.seed,
        totals=tuple(state.totals()),
        winners=tuple(state.winners),
        rule_points={k: tuple(v) for k, v in state.rule_points.items()},
        record=record,
        lab=lab,
    )


def run_games(
    ruleset: CompiledRuleset,
    players: int,
    seed: int,
    bots: Sequence[str],
    indices: Iterable[int],
    log: bool = False,
    stop: Callable[[], bool] | None = None,
    cards: bool = True,
    collector: CollectorFactory | None = None,
    *,
    game: Game | None = None,
    engine: str = "reference",
    isolate: ShippedRuleset | None = None,
) -> list[GameResult]:
    """Play the games with these indices (before each, ``stop()`` may end the run:
    the results of the games already played are returned), each with its own counts
    from the collector (``cards``: the per-card ones too; see :func:`collector_for`).
    ``game``: the ruleset's table for ``players``, when the caller has it;
    ``engine``: ``kernel`` plays them on the compiled kernel where it can (the same games);
    ``isolate``: each bot from outside in a process of its own (as :func:`play_game`)."""
    game = Game(ruleset, players) if game is None else game
    template = collector_for(game, cards, collector)
    kernel = kernel_for(ruleset, players, bots) if engine == "kernel" and _takes_kernel_games(template) else None
    if kernel is not None:
        return _kernel_results(kernel, game, seed, bots, list(indices), log, stop, template)
    out = []
    for index in indices:
        if stop is not None and stop():
            break
        state = play_game(game, game_seed(seed, index), bots, isolate=isolate)
        lab = None
        if template is not None:
            lab = template.empty_copy()
            lab.add_state(state)  # folded later, with the others (a fold of one game costs more than the game)
        out.append(_result(index, state, record_game(state, bots) if log else None, lab))
    return out


def _kernel_results(
    kernel: Any,
    game: Game,
    seed: int,
    bots: Sequence[str],
    indices: list[int],
    log: bool,
    stop: Callable[[], bool] | None,
    template: Collector | None,
) -> list[GameResult]:
    """:func:`run_games` on the kernel: the same results, each game's counts its own."""
    out: list[GameResult] = []
    first = 0
    for games in kernel_blocks(kernel, game, seed, bots, indices, stop):
        for i, index in enumerate(indices[first : first + len(games)]):
            lab = None
            if template is not None:
                lab = template.empty_copy()
                cast(Any, lab).add_kernel_games(games.one(i))  # the collectors that count in bulk (checked)
            record = record_game(kernel_state(game, games, i), bots) if log else None
            s, totals, winners, rules = games.game(i)
            out.append(GameResult(index, s, totals, winners, rules, record, lab))
        first += len(games)
    return out


def kernel_blocks(
    kernel: Any,
    game: Game,
    seed: int,
    bots: Sequence[str],
    indices: Sequence[int],
    stop: Callable[[], bool] | None = None,
    blocks: BlockSize | None = None,
) -> Iterator[Any]:
    """The games with these indices played on ``kernel`` (a :class:`ruledraft.kernel.Kernel`
    for ``game`` and ``bots``), a block at a time (``blocks``: their sizes, kept by a
    caller that plays these bots again; new by default), in order: each block's
    :class:`~ruledraft.kernel.KernelGames` (``stop()``, before each block, may end them)."""
    values, counts = _card_values(game, bots), _count_values(game, bots)
    blocks = BlockSize() if blocks is None else blocks
    first = 0
    while first < len(indices):
        if stop is not None and stop():
            return
        block = indices[first : first + blocks.next(len(indices) - first)]
        with blocks.timing(len(block)):
            games = kernel.play([game_seed(seed, i) for i in block], bots, values, counts)
        first += len(block)
        yield games


def _takes_kernel_games(lab: Any) -> bool:
    """Whether a collector (or none) counts a kernel's games in bulk (the lab's does)."""
    return lab is None or callable(getattr(lab, "add_kernel_games", None))


def _card_values(game: Game, bots: Sequence[str]) -> list[float] | None:
    """The value bot's card values, when a seat plays it (the kernel takes them)."""
    if "value" not in bots:
        return None
    from ruledraft.play.agents import default_card_values

    return default_card_values(game)


def _count_values(game: Game, bots: Sequence[str]) -> list[list[float]] | None:
    """The planner's count-aware card values, when a seat plays it (the kernel takes them)."""
    if not any(b.split(":")[0].strip() == "planner" for b in bots):
        return None
    from ruledraft.play.planner import count_values

    return count_values(game)


def kernel_state(game: Game, games: Any, i: int) -> State:
    """Game ``i`` of a kernel's games as the reference engine's finished state: its
    moves played again (the state a log record or a figure reads)."""
    state = game.new_initial_state(int(games.seeds[i]))
    last = 0 if game.ruleset.dummy else 1  # the last turn is the automatic last card (none with a dummy)
    decided = iter(games.decisions_of(i))  # card effects' decisions, in the order made
    for rnd in games.moves[i].tolist():
        for actions in rnd[: len(rnd) - last]:
            state.apply_actions(actions)
            while state.pending is not None and not state.finished:
                state.apply_actions([next(decided)[3]])
    if not state.finished:
        raise RuntimeError(f"the kernel's moves of seed {int(games.seeds[i])} do not end the game")
    return state


def kernel_game(kernel: Any, game: Game, seed: int, bots: Sequence[str]) -> State:
    """The game :func:`play_game` plays for ``seed``, played on the compiled kernel: its
    finished state on the reference engine (the kernel's moves played again)."""
    games = kernel.play([seed], bots, _card_values(game, bots), _count_values(game, bots))
    return kernel_state(game, games, 0)


def tally_games(
    ruleset: CompiledRuleset,
    players: int,
    seed: int,
    bots: Sequence[str],
    indices: range,
    stop: Callable[[], bool] | None = None,
    cards: bool = True,
) -> Tally:
    """Play the games with these indices (a range) and keep only their statistics:
    :func:`play_chunk` without records."""
    return play_chunk(ruleset, players, seed, bots, indices.start, indices.stop, stop=stop, cards=cards).tally


def play_chunk(
    ruleset: CompiledRuleset,
    players: int,
    seed: int,
    bots: Sequence[str],
    start: int,
    end: int,
    log: bool = False,
    stop: Callable[[], bool] | None = None,
    cards: bool = True,
) -> Chunk:
    """Play games ``start..end`` of the run seeded with ``seed`` into one tally (and, with
    ``log``, their records): :meth:`GamesWork.play`, the step every way of running a
    simulation shares. ``stop`` and ``cards`` as for :func:`run_games`."""
    work = GamesWork(ShippedRuleset(ruleset), players, seed, bots, records="dicts" if log else "", cards=cards)
    return work.play(start, end, stop)


class GamesWork:
    """The games of one simulation as :mod:`ruledraft.play.executor` plays them: a chunk
    of games into one tally and, as asked, their records (``records``: ``"results"``,
    a :class:`GameResult` per game, with ``log`` its log record; ``"dicts"``, the log records;
    ``"lines"``, the log's JSON lines as one text; ``""``, none).

    It travels to worker processes and clusters: the ruleset as a
    :class:`~ruledraft.play.executor.ShippedRuleset`, a bot file by its absolute path
    (the names in records and messages stay as given)."""

    inline_chunk = 100

    def __init__(
        self,
        ruleset: ShippedRuleset,
        players: int,
        seed: int,
        bots: Sequence[str],
        *,
        records: str = "",
        log: bool = False,
        cards: bool = True,
        collector: CollectorFactory | None = None,
        game: Game | None = None,
        isolate: bool = False,
        engine: str = "reference",
    ) -> None:
        self.shipped = ruleset
        #: each bot from outside in a process of its own, sent only its views
        self.isolate = isolate
        #: ``kernel``: the chunks play on the compiled kernel wherever it can be had (the
        #: same games; a process that cannot have it plays them on the reference engine)
        self.engine = engine
        if engine == "kernel":
            # a chunk checks for a stop before each block (a few milliseconds); without
            # records, chunks of up to 20 blocks: each chunk's tally is made, read and merged
            self.inline_chunk = KERNEL_BLOCK if records else 20 * KERNEL_BLOCK
        self.log = log
        self.players = players
        self.seed = seed
        self.bots = tuple(bots)
        self.specs = tuple(absolute_spec(b) for b in self.bots)
        self.records = records
        self.cards = cards
        if collector is None and _DEFAULT_COLLECTOR:
            collector = _DEFAULT_COLLECTOR[0]  # named, so that processes elsewhere use it too
        self.collector = collector
        self.cap = 200 if records else 2000 if engine != "kernel" else 20 * KERNEL_BLOCK
        self._game = game  # (not sent: where it is played, it is built there once)
        self._lab: tuple[Collector | None] | None = None  # the collector's empty counts, once
        self._kernel: tuple[Any] | None = None  # the kernel that plays here (or None), once
        self._blocks = BlockSize()  # the games of each kernel call here

    @classmethod
    def of(cls, match: Match, **options: Any) -> GamesWork:
        """The games of ``match`` (``options`` as for the constructor)."""
        shipped = ShippedRuleset(match.ruleset, match.document)
        return cls(shipped, match.players, match.seed, match.bots, game=match.game, **options)

    @property
    def game(self) -> Game:
        if self._game is None:
            self._game = Game(self.shipped.ruleset, self.players)
        return self._game

    def __getstate__(self) -> dict:
        skip = ("_game", "_lab", "_kernel")  # built where the games are played
        return (
            {k: v for k, v in self.__dict__.items() if k not in skip} | dict.fromkeys(skip) | {"_blocks": BlockSize()}
        )

    def empty(self) -> Tally:
        game = self.game
        if self._lab is None:  # the collector's empty counts, made once and copied
            self._lab = (collector_for(game, self.cards, self.collector),)
        template = self._lab[0]
        lab = None if template is None else template.empty_copy()
        return Tally.empty(game.num_seats, game.ruleset.rule_ids, lab=lab)

    def _kernel_here(self) -> Any:
        """The kernel that plays this work's chunks in this process, or None (made once)."""
        if self._kernel is None:
            kernel = None
            if self.engine == "kernel" and _takes_kernel_games(self.empty().lab):
                kernel = kernel_for(self.shipped.ruleset, self.players, self.bots)
            self._kernel = (kernel,)
        return self._kernel[0]

    def play(self, start: int, end: int, stop: Callable[[], bool] | None = None) -> Chunk:
        kernel = self._kernel_here()
        if kernel is not None:
            return self._play_kernel(kernel, start, end, stop)
        game, seed, bots, specs, kept = self.game, self.seed, self.bots, self.specs, self.records
        isolate = self.shipped if self.isolate else None
        tally = self.empty()
        records: list = []
        index = start
        with executor.steady_heap():
            while index < end:
                if stop is not None and stop():
                    break
                state = play_game(game, game_seed(seed, index), bots, specs=specs, isolate=isolate)
                tally.add_state(state)
                if kept == "lines":
                    records.append(record_line(record_game(state, bots)))
                elif kept == "dicts":
                    records.append(record_game(state, bots))
                elif kept == "results":
                    records.append(_result(index, state, record_game(state, bots) if self.log else None))
                index += 1
        tally.flush()
        return Chunk(start, index, tally, "".join(records) if kept == "lines" else tuple(records))

    def _play_kernel(self, kernel: Any, start: int, end: int, stop: Callable[[], bool] | None) -> Chunk:
        """:meth:`play` on the kernel: blocks of games counted in bulk; records, when kept,
        from each game's moves played again on the reference engine (the same record)."""
        game, bots, kept = self.game, list(self.bots), self.records
        values = _card_values(game, bots)
        tally = self.empty()
        records: list = []
        index = start
        blocks = self._blocks
        from ruledraft.kernel import Room  # loaded with the kernel already

        room = Room()  # each block's games written over the last's, done with (below)
        while index < end:
            if stop is not None and stop():
                break
            n = blocks.next(end - index)
            with blocks.timing(n):
                games = kernel.play(game_seeds(self.seed, index, n), bots, values, _count_values(game, bots), room=room)
            tally.add_kernel_games(games)
            if kept:
                for i in range(n):
                    state = kernel_state(game, games, i)
                    if kept == "lines":
                        records.append(record_line(record_game(state, bots)))
                    elif kept == "dicts":
                        records.append(record_game(state, bots))
                    else:
                        records.append(_result(index + i, state, record_game(state, bots) if self.log else None))
            del games  # counted and recorded: the room's arrays are the next block's
            index += n
        tally.flush()
        return Chunk(start, index, tally, "".join(records) if kept == "lines" else tuple(records))


#: games the kernel plays in one call at most (and a chunk played here holds)
KERNEL_BLOCK = 1000
#: ...and the seconds one call should take at most: a compiled call cannot be stopped
#: midway (a Ctrl-C, a SIGTERM, even a second one, waits for it to return), so the
#: games of slow bots (a planner of many samples) are played a few to a call
KERNEL_CALL_SECONDS = 0.25
#: the games of a process's first call, before its time says how many a call takes (one:
#: a slow bot's first call is as short as a call can be)
FIRST_BLOCK = 1


class BlockSize:
    """How many games the next kernel call plays: :data:`FIRST_BLOCK` at first, then as
    many as the calls so far say take about :data:`KERNEL_CALL_SECONDS` (1 to
    :data:`KERNEL_BLOCK`). The games and their figures do not depend on it."""

    def __init__(self) -> None:
        self.games = FIRST_BLOCK

    def next(self, left: int) -> int:
        return min(self.games, left)

    def played(self, games: int, seconds: float) -> None:
        each = seconds / games
        fit = int(KERNEL_CALL_SECONDS / each) if each > 0 else KERNEL_BLOCK
        self.games = max(1, min(KERNEL_BLOCK, fit))

    @contextlib.contextmanager
    def timing(self, games: int) -> Iterator[None]:
        """Time the call that plays ``games`` games inside, for the next one's size."""
        started = time.perf_counter()
        yield
        self.played(games, time.perf_counter() - started)


def game_seeds(seed: int, start: int, n: int) -> Any:
    """``[game_seed(seed, i) for i in range(start, start + n)]`` as a numpy array, all at once."""
    import numpy as np

    from ruledraft.engine.state import derive_seed

    base = np.uint64(derive_seed(seed, 0x5EED))
    with np.errstate(over="ignore"):
        x = base + np.uint64(0x9E3779B97F4A7C15) + np.arange(start, start + n, dtype=np.uint64)
        z = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return z >> np.uint64(11)


@attrs.define
class Tally:
    """Statistics of many games that merge exactly.

    Everything is an integer sum (a win shared by k seats counts ``unit // k``, with
    ``unit`` divisible by every possible k), so tallies merged in any grouping and any
    order -- games split over processes, or later over machines -- give the same
    summary as one tally of all the games. ``lab`` holds the counts behind the lab's
    figures (a :class:`Collector`, such as the lab's): per card, per rule, score histograms; a
    tally made without it (``Tally.empty(seats, rules)``) summarises without figures.

    With a lab, the lab counts every game and this tally's sums (wins, totals, their
    squares, lowest and highest, points per rule) are read from the lab's at
    :meth:`flush`, so a game is counted once; tallies with a lab merge only with
    tallies with a lab.
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
    rules: dict[str, list] = attrs.Factory(dict)  # rule id -> points per seat
    lab: Collector | None = attrs.field(default=None, eq=False)
    #: the scorings of the games counted since the last flush(), summed in bulk by it
    _pending: list[Scoring] = attrs.field(factory=list, eq=False, repr=False)
    _pending_games: int = attrs.field(default=0, eq=False, repr=False)

    @classmethod
    def empty(cls, num_seats: int, rule_ids: Sequence[str], lab: Collector | None = None) -> Tally:
        n = num_seats
        return cls(
            n,
            tuple(rule_ids),
            math.lcm(*range(1, n + 1)),
            0,
            [0] * n,
            [0] * n,
            [0] * n,
            [None] * n,
            [None] * n,
            {rid: [0] * n for rid in rule_ids},
            lab,
        )

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
        if self.lab is None and result.lab is not None and not self.games:
            self.lab = result.lab.empty_copy()  # an empty tally takes on the lab's counts
        if self.lab is not None:
            if result.lab is None:
                raise ValueError("a tally with the lab's counts needs them for every game")
            self.games += 1
            self.lab.merge(result.lab)
            return
        self._add_outcome(result.totals, result.winners)
        for rid, pts in result.rule_points.items():
            self.rules[rid] = list(map(add, self.rules[rid], pts))

    def add_state(self, state: State) -> None:
        """Count one finished game, straight from its state."""
        totals = state.totals()
        if self.lab is not None:
            self.games += 1
            self.lab.add_state(state, totals)
            return
        self._add_outcome(totals, state.winners)
        self._pending.extend(state.scorings)
        self._pending_games += 1
        if self._pending_games >= 1024:
            self.flush()

    def add_kernel_games(self, games: Any, each: bool = False) -> None:
        """Count games a compiled kernel played (a :class:`ruledraft.kernel.KernelGames`),
        all at once, into the same sums as :meth:`add_state` would (``each``: the lab's
        counts keep each game's values until they are read: ``LabTally.card_columns``)."""
        n = len(games)
        if not n:
            return
        if self.lab is not None:
            self.games += n
            lab = cast(Any, self.lab)  # the collectors that count in bulk (checked)
            if each:  # only the lab's tally takes ``each`` (compare's); a plug-in collector need not
                lab.add_kernel_games(games, each=True)
            else:
                lab.add_kernel_games(games)
            return
        self.flush()
        import numpy as np

        totals = games.totals
        won = games.winners
        k = won.sum(axis=1, keepdims=True)
        shares = np.where(won > 0, self.unit // np.maximum(k, 1), 0)
        self.games += n
        self.wins = list(map(add, self.wins, shares.sum(axis=0).tolist()))
        self.total = list(map(add, self.total, totals.sum(axis=0).tolist()))
        self.total_sq = list(map(add, self.total_sq, (totals * totals).sum(axis=0).tolist()))
        lows, highs = totals.min(axis=0).tolist(), totals.max(axis=0).tolist()
        self.low = [b if a is None or b < a else a for a, b in zip(self.low, lows)]
        self.high = [b if a is None or b > a else a for a, b in zip(self.high, highs)]
        sums = games.rule_points.sum(axis=0).tolist()
        for j, rid in enumerate(games.rule_ids):
            self.rules[rid] = list(map(add, self.rules[rid], sums[j]))

    def flush(self) -> None:
        """Bring the sums up to date: fold the buffered points of each rule into them
        (column by column, in C), or with a lab, read them from the lab's."""
        if self.lab is not None:
            self._read_lab(self.lab)
            return
        add_rule_points(self.rules, self._pending)
        self._pending.clear()
        self._pending_games = 0

    def _read_lab(self, lab: Collector) -> None:
        lab.flush()
        self.wins = list(lab.wins)
        self.total = [sum(x * m for x, m in h.items()) for h in lab.scores]
        self.total_sq = [sum(x * x * m for x, m in h.items()) for h in lab.scores]
        self.low = [min(h) if h else None for h in lab.scores]
        self.high = [max(h) if h else None for h in lab.scores]
        self.rules = lab.rule_points()

    def merge(self, other: Tally) -> None:
        """Add another tally of other games (of the same table) to this one."""
        if (other.num_seats, other.rule_ids, other.unit) != (self.num_seats, self.rule_ids, self.unit):
            raise ValueError("cannot merge tallies of different tables (seats or scoring rules differ)")
        if self.lab is None and other.lab is not None and not self.games:
            self.lab = other.lab.empty_copy()  # an empty tally takes on the lab's counts
        if other.lab is None and self.lab is not None and not other.games:
            return
        if (self.lab is None) != (other.lab is None):
            raise ValueError("cannot merge a tally with the lab's counts and one without")
        if self.lab is not None and other.lab is not None:
            self.games += other.games
            self.lab.merge(other.lab)
            return
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

    def summary(
        self,
        ruleset_id: str,
        players: int,
        seed: int,
        bots: Sequence[str],
        elapsed: float = 0.0,
        *,
        requested: int | None = None,
        signum: int = 0,
    ) -> Summary:
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
        return Summary(
            ruleset_id,
            players,
            n,
            seed,
            tuple(bots),
            tuple(seats),
            self.rule_ids,
            elapsed,
            requested=n if requested is None else requested,
            signal=signum,
            figures=self.lab.figures(self, bots) if self.lab is not None else None,
            tally=self,
        )


# ---------------------------------------------------------------- statistics


@attrs.frozen
class SeatStats:
    """One seat's figures over a simulation: its bot, wins (a win shared by k seats
    counts 1/k), win share, mean score and its standard deviation, lowest and highest
    score, and the mean points of each scoring rule (by rule id)."""

    seat: int
    bot: str
    wins: float
    win_share: float
    mean: float
    stdev: float
    min: int
    max: int
    rules: dict[str, float]

    def to_json(self) -> dict:
        return attrs.asdict(self)


@attrs.frozen
class Summary:
    """What ``simulate`` found: the ruleset's id, players, games played, seed, the bot
    of each seat, a :class:`SeatStats` per seat (dummy seats too, as ``dummy``), the
    scoring rules' ids and the time taken; :meth:`to_json` is ``simulate --json``."""

    ruleset: str
    players: int
    games: int
    seed: int
    bots: tuple
    seats: tuple  # SeatStats per player seat (and dummy seats, which never win)
    rule_ids: tuple
    elapsed: float = attrs.field(eq=False, default=0.0)
    #: the games asked for (``games`` is fewer when the run was interrupted)
    requested: int | None = attrs.field(default=None, converter=attrs.converters.optional(int))
    #: the signal that stopped the run early (SIGINT, SIGTERM), 0 if it ran to the end
    signal: int = 0
    #: the collector's figures (the lab's: :func:`ruledraft.lab.figures.figures`), None for a tally without one
    figures: dict | None = None
    #: the tally summarised (what runs of the same table merge: ``simulate --rotate``)
    tally: Tally | None = attrs.field(default=None, eq=False, repr=False)
    #: the engine that played the games (``kernel`` or ``reference``; the figures are the same on either),
    #: None where the summary was made without a run (``Tally.summary``)
    engine: str | None = attrs.field(default=None, eq=False)

    def __attrs_post_init__(self) -> None:
        if self.requested is None:
            object.__setattr__(self, "requested", self.games)

    @property
    def interrupted(self) -> bool:
        return self.signal != 0

    @property
    def games_per_second(self) -> float:
        return self.games / self.elapsed if self.elapsed else 0.0

    def to_json(self) -> dict:
        return {
            "ruleset": self.ruleset,
            "players": self.players,
            "games": self.games,
            "games_requested": self.requested,
            "interrupted": self.interrupted,
            "seed": self.seed,
            "bots": list(self.bots),
            "seats": [s.to_json() for s in self.seats],
            "elapsed_seconds": round(self.elapsed, 3),
            "games_per_second": round(self.games_per_second, 1),
            **({"figures": self.figures} if self.figures is not None else {}),
        }


def summarize(
    ruleset: CompiledRuleset,
    players: int,
    seed: int,
    bots: Sequence[str],
    results: Sequence[GameResult],
    elapsed: float = 0.0,
    cards: bool = True,
    collector: CollectorFactory | None = None,
) -> Summary:
    """Per seat: win share (a shared win counts fractionally), mean score and spread,
    and mean points per scoring rule; with the collector's figures when every result
    carries its counts."""
    num_seats = len(results[0].totals) if results else ruleset.num_seats(players)
    counted = all(r.lab is not None for r in results)
    lab = collector_for(Game(ruleset, players), cards, collector) if counted else None
    tally = Tally.empty(num_seats, ruleset.rule_ids, lab=lab)
    for r in results:
        tally.add_result(r)
    return tally.summary(ruleset.id, players, seed, bots, elapsed)


def simulate(
    ruleset: CompiledRuleset,
    players: int,
    games: int,
    seed: int,
    bots: Sequence[str],
    *,
    jobs: int = 1,
    source: str | None = None,
    document=None,
    **options: Any,
) -> Summary:
    """:func:`simulate_match` of the match these values make (checked by the caller:
    the seed is, again, since a seed out of range would log games no reader replays).
    Where processes cannot fork, ``jobs > 1`` sends the workers the checked
    ``document``, or the one loaded here from ``source``."""
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"the seed must be within 0..{MAX_SEED}, not {seed}")
    if document is None and source is not None and jobs > 1 and _start_method() != "fork":
        from ruledraft.language.inheritance import resolve_document
        from ruledraft.language.schema_check import check_schema
        from ruledraft.language.tunable import preparer

        document = resolve_document(source, check=check_schema, prepare=preparer()[0])
    return simulate_match(Match.trusted(ruleset, players, bots, seed, document), games, jobs=jobs, **options)


def simulate_match(
    match: Match,
    games: int,
    *,
    jobs: int = 1,
    log: bool = False,
    progress: Callable[[int], None] | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    on_lines: Callable[[str], None] | None = None,
    cards: bool = True,
    collector: CollectorFactory | None = None,
    backend: executor.Backend | None = None,
    isolate: bool = False,
    engine: str = "reference",
) -> Summary:
    """Play ``games`` games of ``match`` and summarise them (``cards``: with the
    collector's per-card figures, on by default: they cost a few percent of the time).
    ``engine``: ``kernel`` plays them on the compiled kernel (the same games and
    figures; :func:`ruledraft.play.engines.choose_engine` decides, compiling it first).

    With ``jobs > 1`` games run on that many worker processes, or on ``backend`` when
    given (a cluster: :class:`ruledraft.play.cluster.DaskBackend`); results are
    identical to ``jobs=1``. Worker processes are forked with the compiled ruleset in
    memory and read no file (where processes cannot fork, they are sent the match's
    checked document). ``on_result`` receives every game's result (with ``log``, its
    record), in game order; ``on_lines`` the game log's lines instead, a text per
    chunk of games, in game order.

    SIGINT, SIGTERM or SIGHUP (in the main thread) stops the run: the workers are ended at
    once, queued games are dropped, and the summary counts exactly the games whose
    results arrived (``on_result`` has had each of them, the last few possibly out of
    order); ``Summary.signal`` says which signal. A second signal ends the process
    at once (see :class:`StopSignals`). With ``isolate``, each bot from a file, a
    module or a package plays in a process of its own, sent only its views.
    """
    kept = "lines" if on_lines is not None else "results" if on_result is not None else ""
    work = GamesWork.of(match, records=kept, log=log, cards=cards, collector=collector, isolate=isolate, engine=engine)
    if backend is None:
        backend = executor.local(jobs, games, _start_method)
    deliver = on_lines if on_lines is not None else _each(on_result) if on_result is not None else None
    with steady_heap(), StopSignals() as stop:
        started = time.perf_counter()
        tally = executor.run(work, games, backend, on_records=deliver, progress=progress, stop=stop)
        elapsed = time.perf_counter() - started
    summary = tally.summary(
        match.ruleset.id, match.players, match.seed, match.bots, elapsed, requested=games, signum=stop.signum
    )
    return attrs.evolve(summary, engine=engine)


def _each(on_result: Callable[[GameResult], None]) -> Callable[[Sequence[GameResult]], None]:
    def deliver(results: Sequence[GameResult]) -> None:
        for r in results:
            on_result(r)

    return deliver
