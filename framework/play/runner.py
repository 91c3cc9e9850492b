"""Running many games: seeds, bots, several processes, statistics.

Each game's seed is derived from the simulation seed and the game's index, and each
bot's from the game seed and its seat, so a simulation gives the same results
whatever the number of processes (``jobs``) and the order they finish in.
"""

from __future__ import annotations

import contextlib
import gc
import math
import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from multiprocessing.connection import wait as wait_for
from operator import add
from typing import Any

import attrs

from ruledraft.engine.scoresheet import Scoring, add_rule_points
from ruledraft.engine.state import MAX_SEED, Game, State, derive_seed
from ruledraft.errors import InputError, RuledraftError
from ruledraft.lab.figures import LabTally, figures
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.agents import agent_names, checked_act, is_foreign, make_agent, parse_bot
from ruledraft.play.game_log import record_game

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
    """The seed of game number ``index`` of a simulation seeded with ``seed``.

    Logged seeds stay within ``0..MAX_SEED`` (2**53 - 1): a JSON number any reader
    (jq, JavaScript) holds exactly, so a filtered log still replays.
    """
    return derive_seed(seed, 0x5EED, index) >> 11


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in a game seeded with ``seed``."""
    return derive_seed(seed, 0xB07, seat)


def bot_seeds(seed: int, seats: int) -> list[int]:
    """``[bot_seed(seed, seat) for seat in range(seats)]``, mixing the shared prefix once."""
    base = derive_seed(seed, 0xB07)
    return [derive_seed(base, seat) for seat in range(seats)]


def fill_seats(
    bots: str | Sequence[Any], players: int, card_ids: Sequence[str] | None = None, *, option: str = "bots"
) -> list:
    """One bot per seat from the bots named, as ``--bots`` takes them: ``greedy,random``
    (or a list), the last filling the seats left. Each spec is checked now
    (:class:`~ruledraft.play.agents.BotSpecError` if unusable; with the ruleset's
    ``card_ids``, card values too); an entry that is not text (an agent) is kept as
    it is. :class:`InputError` for no bot, or more bots than ``players``; ``option``
    is how the messages name the setting."""
    entries = [n.strip() for n in bots.split(",")] if isinstance(bots, str) else list(bots)
    if not any(entries):
        raise InputError(f"{option} needs at least one bot name; known: " + ", ".join(agent_names()))
    if "" in entries:  # 'random,,greedy': a seat left out would shift the others
        raise InputError(f"{option} has an empty entry (seat {entries.index('')}): name a bot for every seat listed")
    for entry in entries:
        if isinstance(entry, str):
            parse_bot(entry, card_ids)
    if len(entries) > players:
        raise InputError(f"{option} names {len(entries)} bots for {players} players")
    return entries + [entries[-1]] * (players - len(entries))


def play_game(game: Game, seed: int, bots: Sequence[str], agents: Sequence | None = None) -> State:
    """Play one game to the end with the named bots (or the given agents)."""
    if agents is None:
        agents = [make_agent(name, s) for name, s in zip(bots, bot_seeds(seed, len(bots)))]
    if len(agents) != game.num_players:
        raise ValueError(f"{len(agents)} agents for {game.num_players} players")
    state = game.new_initial_state(seed)
    randoms = [getattr(a, "uniform_random", None) for a in agents]
    uniform = [r for r in randoms if r is not None]
    if len(uniform) == len(agents):  # every seat picks uniformly: the engine's own loop plays the same game
        state.play_out(uniform)
        return state
    apply = game.procedure.apply  # what State.apply_actions calls, minus checks that hold here
    if any(is_foreign(name) for name in bots):  # a bot from outside: its failures and moves are checked
        named = [(s, a, bots[s]) for s, a in enumerate(agents)]
        while not state.finished:
            if state.pending is not None:  # a card effect asks one seat to decide
                s = state.pending.seat
                apply(state, [checked_act(agents[s], bots[s], state, s, seed)])
                continue
            apply(state, [checked_act(a, name, state, s, seed) for s, a, name in named])
        return state
    acts = list(enumerate(a.act for a in agents))
    while not state.finished:
        if state.pending is not None:
            s = state.pending.seat
            apply(state, [agents[s].act(state, s)])
            continue
        apply(state, [act(state, s) for s, act in acts])
    return state


@attrs.frozen
class GameResult:
    index: int
    seed: int
    totals: tuple
    winners: tuple
    rule_points: dict[str, tuple]
    record: dict | None = None
    #: the game's counts for the lab's figures (per card, per rule, score histograms)
    lab: LabTally | None = attrs.field(default=None, eq=False, repr=False)


def run_games(
    ruleset: CompiledRuleset,
    players: int,
    seed: int,
    bots: Sequence[str],
    indices: Iterable[int],
    log: bool = False,
    stop: Callable[[], bool] | None = None,
    cards: bool = True,
) -> list[GameResult]:
    """Play the games with these indices (before each, ``stop()`` may end the run:
    the results of the games already played are returned). ``cards``: count the
    lab's per-card figures too (see :mod:`ruledraft.lab.figures`)."""
    game = Game(ruleset, players)
    template = LabTally.for_game(game, cards)
    out = []
    for index in indices:
        if stop is not None and stop():
            break
        s = game_seed(seed, index)
        state = play_game(game, s, bots)
        lab = template.empty_copy()
        lab.add_state(state)  # folded later, with the others (a fold of one game costs more than the game)
        out.append(
            GameResult(
                index=index,
                seed=s,
                totals=tuple(state.totals()),
                winners=tuple(state.winners),
                rule_points={k: tuple(v) for k, v in state.rule_points.items()},
                record=record_game(state, bots) if log else None,
                lab=lab,
            )
        )
    return out


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


@attrs.frozen
class Chunk:
    """Games ``start`` to ``end`` (excluded) of a run: their statistics, and with a log
    their game-log records in game order. ``end`` is where a stop cut the chunk short."""

    start: int
    end: int
    tally: Tally
    records: tuple = ()


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
    ``log``, their records): the step every way of running a simulation shares (worker
    processes, a cluster), so all of them count and log the same games the same way.
    ``stop`` and ``cards`` as for :func:`run_games`."""
    game = Game(ruleset, players)
    tally = Tally.empty(game.num_seats, ruleset.rule_ids, lab=LabTally.for_game(game, cards))
    records = []
    index = start
    while index < end:
        if stop is not None and stop():
            break
        state = play_game(game, game_seed(seed, index), bots)
        tally.add_state(state)
        if log:
            records.append(record_game(state, bots))
        index += 1
    tally.flush()
    return Chunk(start, index, tally, tuple(records))


@attrs.define
class Tally:
    """Statistics of many games that merge exactly.

    Everything is an integer sum (a win shared by k seats counts ``unit // k``, with
    ``unit`` divisible by every possible k), so tallies merged in any grouping and any
    order -- games split over processes, or later over machines -- give the same
    summary as one tally of all the games. ``lab`` holds the counts behind the lab's
    figures (:mod:`ruledraft.lab.figures`): per card, per rule, score histograms; a
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
    lab: LabTally | None = attrs.field(default=None, eq=False)
    #: the scorings of the games counted since the last flush(), summed in bulk by it
    _pending: list[Scoring] = attrs.field(factory=list, eq=False, repr=False)
    _pending_games: int = attrs.field(default=0, eq=False, repr=False)

    @classmethod
    def empty(cls, num_seats: int, rule_ids: Sequence[str], lab: LabTally | None = None) -> Tally:
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

    def flush(self) -> None:
        """Bring the sums up to date: fold the buffered points of each rule into them
        (column by column, in C), or with a lab, read them from the lab's."""
        if self.lab is not None:
            self._read_lab(self.lab)
            return
        add_rule_points(self.rules, self._pending)
        self._pending.clear()
        self._pending_games = 0

    def _read_lab(self, lab: LabTally) -> None:
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
            figures=figures(self, bots) if self.lab is not None else None,
        )


# ---------------------------------------------------------------- stopping


class Interrupt(KeyboardInterrupt):
    """A stop signal raised as an exception (the ``ruledraft`` command raises it for
    SIGTERM, as Python does KeyboardInterrupt for SIGINT). ``signum`` says which
    signal (the exit status is 128 + signum)."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class StopSignals:
    """While a run lasts, SIGINT and SIGTERM ask it to stop instead of killing it.

    The first signal only records itself (``signum``) and wakes whoever waits on
    ``fileno()``; the run then stops between games, keeping every finished one. A
    second one calls the ``on_second`` callbacks (which end the worker processes),
    says "interrupted" and ends the process at once with status 128 + signal (no
    clean-up that could hang or print a traceback). Outside the main thread signals
    cannot be caught: nothing is installed and the run cannot be stopped this way.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.signum = 0
        self.on_second: list[Callable[[], None]] = []
        self._saved: dict = {}
        self._fds: tuple = ()

    def requested(self) -> bool:
        return self.signum != 0

    def fileno(self) -> int:
        return self._fds[0]

    def drain(self) -> None:
        """Empty the wake-up pipe (the signal itself is in ``signum``)."""
        try:
            while os.read(self._fds[0], 512):
                pass
        except OSError:  # empty (it does not block)
            pass

    def _handle(self, signum, frame) -> None:
        if self.signum:  # asked twice: no more clean-up, leave now
            for end in self.on_second:
                end()
            try:
                os.write(2, b"interrupted\n")
            finally:
                os._exit(128 + signum)
        self.signum = signum
        try:
            os.write(self._fds[1], b"!")
        except OSError:
            pass

    def __enter__(self) -> StopSignals:
        self._fds = os.pipe()
        for fd in self._fds:
            os.set_blocking(fd, False)
        if threading.current_thread() is threading.main_thread():
            for sig in self.SIGNALS:
                self._saved[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc) -> None:
        for sig, old in self._saved.items():
            signal.signal(sig, old if old is not None else signal.SIG_DFL)
        self._saved.clear()
        for fd in self._fds:
            os.close(fd)
        self._fds = ()


# ---------------------------------------------------------------- several processes

#: a chunk of games sent to a worker should take about this long: short enough
#: that the progress bar moves and little work is lost on a stop, long enough that
#: sending chunks costs nothing measurable
CHUNK_SECONDS = 0.2


def available_cores() -> int:
    """The processors this process may run on."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _start_method() -> str:
    """``fork`` where there is one: the workers start with the compiled ruleset
    already in memory, and read no file."""
    return "fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"


def _worker_main(
    conn,
    close: Sequence,
    payload,
    players: int,
    seed: int,
    bots: Sequence[str],
    log: bool,
    per_game: bool,
    cards: bool = True,
) -> None:
    """A worker process: play the chunks of games the main process sends, send back
    results or tallies, until told to stop (``None``) or the main process goes away.

    It ignores SIGINT and SIGTERM (the main process decides and ends it), never
    prints (an error travels back as a message) and leaves by ``os._exit``.
    """
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        for other in close:  # the main process's ends of the pipes, inherited through fork
            try:
                other.close()
            except OSError:
                pass
        if isinstance(payload, CompiledRuleset):
            ruleset = payload
        else:  # a checked document, sent where processes cannot fork
            from ruledraft.language.build import compile_ruleset

            ruleset = compile_ruleset(payload)
        _settle_heap()  # this process only runs games from here on (see steady_heap)
        while True:
            try:
                task = conn.recv()
            except (EOFError, OSError):
                break
            if task is None:
                break
            started = time.perf_counter()
            indices = range(*task)
            result = (
                run_games(ruleset, players, seed, bots, indices, log, cards=cards)
                if per_game
                else play_chunk(ruleset, players, seed, bots, indices.start, indices.stop, cards=cards).tally
            )
            conn.send(("done", task, result, time.perf_counter() - started))
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass  # the main process is gone: nobody to tell
    except BaseException as e:  # noqa: BLE001 - reported by the main process, never printed here
        code = 1
        from ruledraft.language.kinds.registry import plugin_failure

        e = plugin_failure(e) or e  # a plug-in's code failed: its own message
        try:  # a problem of the ruleset (a division by zero, ...) travels as itself, anything else as text
            conn.send(("error", e if isinstance(e, RuledraftError) else f"{type(e).__name__}: {e}"))
        except BaseException:  # noqa: BLE001
            pass
    os._exit(code)


class WorkerError(RuntimeError):
    """A worker process failed (its error, or how it ended)."""


class _Workers:
    """``jobs`` worker processes, each fed chunks of games through its own pipe."""

    def __init__(
        self, jobs: int, payload, players, seed, bots, log, per_game, stop: StopSignals | None = None, cards=True
    ):
        ctx: Any = multiprocessing.get_context(_start_method())  # typed as the base, which has no Process
        forked = ctx.get_start_method() == "fork"
        if not forked and isinstance(payload, CompiledRuleset):
            raise ValueError("simulate with jobs > 1 needs the ruleset's source (or document) on this platform")
        self.procs: list = []
        self.conns: list = []
        if stop is not None:  # before the first fork: a second signal at any moment from now kills them
            stop.on_second.append(self.kill_now)
        try:
            for _ in range(jobs):
                mine, theirs = ctx.Pipe()
                self.conns.append(mine)
                proc = ctx.Process(
                    target=_worker_main,
                    daemon=True,
                    args=(
                        theirs,
                        self.conns if forked else [],
                        payload,
                        players,
                        seed,
                        list(bots),
                        log,
                        per_game,
                        cards,
                    ),
                )
                try:
                    proc.start()
                finally:
                    theirs.close()
                self.procs.append(proc)
        except BaseException:  # a worker that cannot start (or a stop meanwhile): none is left behind
            self.close(finished=False)
            if stop is not None:
                stop.on_second.remove(self.kill_now)
            raise

    def kill(self) -> None:
        """End every worker now (SIGKILL: they hold nothing worth saving)."""
        for proc in self.procs:
            if proc.exitcode is None:
                try:
                    os.kill(proc.pid, signal.SIGKILL)
                except OSError:
                    pass

    def kill_now(self) -> None:
        """Kill every worker and wait for each to be gone (a few milliseconds), so that
        none outlives a process that is about to leave without clean-up."""
        self.kill()
        for proc in self.procs:
            if proc.exitcode is None:
                try:
                    os.waitpid(proc.pid, 0)
                except OSError:
                    pass

    def close(self, finished: bool) -> None:
        """Let the workers leave (``finished``) or kill them, then reap them all."""
        if finished:
            for conn in self.conns:
                try:
                    conn.send(None)
                except OSError:
                    pass
            deadline = time.monotonic() + 5
            for proc in self.procs:
                proc.join(max(0.0, deadline - time.monotonic()))
        self.kill()
        for proc in self.procs:
            proc.join()
        for conn in self.conns:
            conn.close()

    def describe_end(self, n: int) -> str:
        proc = self.procs[n]
        proc.join(1)
        code = proc.exitcode
        if code is None:
            return "stopped answering"
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"ended with exit status {code}"


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
    #: the lab's figures (:func:`ruledraft.lab.figures.figures`), None for a tally without them
    figures: dict | None = None

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
) -> Summary:
    """Per seat: win share (a shared win counts fractionally), mean score and spread,
    and mean points per scoring rule; with the lab's figures when every result carries
    the lab's counts."""
    num_seats = len(results[0].totals) if results else ruleset.num_seats(players)
    counted = all(r.lab is not None for r in results)
    lab = LabTally.for_game(Game(ruleset, players), cards) if counted else None
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
    log: bool = False,
    progress: Callable[[int], None] | None = None,
    on_result: Callable[[GameResult], None] | None = None,
    cards: bool = True,
) -> Summary:
    """Play ``games`` games and summarise them (``cards``: with the lab's per-card
    figures, on by default: they cost a few percent of the time).

    With ``jobs > 1`` games run on that many worker processes; results are identical
    to ``jobs=1``. The workers are forked with the compiled ruleset in memory and read
    no file (where processes cannot fork, they are sent the checked ``document``, or
    the one loaded here from ``source``). ``on_result`` receives every game's result,
    in game order.

    SIGINT or SIGTERM (in the main thread) stops the run: the workers are ended at
    once, queued games are dropped, and the summary counts exactly the games whose
    results arrived (``on_result`` has had each of them, the last few possibly out of
    order); ``Summary.signal`` says which signal. A second signal ends the process
    at once (see :class:`StopSignals`).
    """
    if not 0 <= seed <= MAX_SEED:
        raise ValueError(f"the seed must be within 0..{MAX_SEED}, not {seed}")
    with steady_heap(), StopSignals() as stop:
        return _simulate(
            ruleset, players, games, seed, bots, jobs, source, document, log, progress, on_result, stop, cards
        )


def _simulate(
    ruleset, players, games, seed, bots, jobs, source, document, log, progress, on_result, stop: StopSignals, cards
) -> Summary:
    started = time.perf_counter()
    game = Game(ruleset, players)
    tally = Tally.empty(game.num_seats, ruleset.rule_ids, lab=LabTally.for_game(game, cards))
    per_game = log or on_result is not None  # otherwise only statistics travel
    pending: dict[int, GameResult] = {}
    next_index = 0

    def hand_over(r: GameResult) -> None:
        tally.add_result(r)
        if on_result is not None:
            on_result(r)

    def deliver(batch) -> None:
        nonlocal next_index
        if isinstance(batch, Tally):
            tally.merge(batch)
            done = batch.games
        else:  # results, handed over in game order
            for r in batch:
                pending[r.index] = r
            while next_index in pending:
                hand_over(pending.pop(next_index))
                next_index += 1
            done = len(batch)
        if progress is not None:
            progress(done)

    if jobs <= 1 or games < 2:
        chunk = max(1, min(100, games // 50 or 1))
        for start in range(0, games, chunk):
            if stop.requested():
                break
            indices = range(start, min(games, start + chunk))
            deliver(
                run_games(ruleset, players, seed, bots, indices, log, stop.requested, cards)
                if per_game
                else play_chunk(
                    ruleset, players, seed, bots, start, indices.stop, stop=stop.requested, cards=cards
                ).tally
            )
    else:
        payload = ruleset
        if _start_method() != "fork":
            if document is None and source is not None:
                from ruledraft.language.inheritance import resolve_document
                from ruledraft.language.schema_check import check_schema

                document = resolve_document(source, check=check_schema)
            if document is not None:
                payload = document
        _run_on_workers(min(jobs, games), payload, players, games, seed, bots, log, per_game, deliver, stop, cards)
    # what arrived out of order before a stop: finished games, so counted and logged too
    for index in sorted(pending):
        hand_over(pending.pop(index))
    return tally.summary(
        ruleset.id, players, seed, bots, time.perf_counter() - started, requested=games, signum=stop.signum
    )


def _run_on_workers(
    jobs, payload, players, games, seed, bots, log, per_game, deliver, stop: StopSignals, cards=True
) -> None:
    """Deal chunks of games to ``jobs`` workers (two chunks in flight per worker, so
    none waits for work) until every game is in or a stop is requested."""
    cap = 200 if per_game else 2000
    per_game_seconds: float | None = None
    next_start = 0

    def next_chunk() -> tuple | None:
        nonlocal next_start
        left = games - next_start
        if left <= 0:
            return None
        if per_game_seconds is None:
            size = 4  # a first measurement, quickly
        else:
            size = int(CHUNK_SECONDS / max(per_game_seconds, 1e-6))
        # near the end, smaller chunks so that the workers finish together
        size = max(1, min(size, cap, -(-left // (2 * jobs))))
        task = (next_start, next_start + size)
        next_start += size
        return task

    workers = _Workers(jobs, payload, players, seed, bots, log, per_game, stop, cards)
    finished = False
    in_flight = [0] * jobs

    def send(n: int, conn) -> None:
        task = next_chunk()
        if task is None:
            return
        try:
            conn.send(task)
        except OSError:
            pass  # the worker has ended: its pipe still holds why (or ends), read as an answer
        in_flight[n] += 1

    try:
        for n, conn in enumerate(workers.conns):
            send(n, conn)
            send(n, conn)
        index_of = {conn: n for n, conn in enumerate(workers.conns)}
        while any(in_flight) and not stop.requested():
            busy = [c for c, k in zip(workers.conns, in_flight) if k]
            ready: Any  # a worker's connection, or the stop signal's
            for ready in wait_for(busy + [stop]):
                if ready is stop:
                    stop.drain()
                    continue
                if stop.requested():
                    break
                n = index_of[ready]
                try:
                    message = ready.recv()
                except (EOFError, OSError):
                    if stop.requested():
                        break
                    raise WorkerError(f"worker process {n + 1} {workers.describe_end(n)}") from None
                if message[0] != "done":
                    if isinstance(message[1], RuledraftError):
                        raise message[1]
                    raise WorkerError(f"worker process {n + 1} failed: {message[1]}")
                _, (lo, hi), result, seconds = message
                in_flight[n] -= 1
                if hi > lo:
                    per_game_seconds = seconds / (hi - lo)
                send(n, ready)
                deliver(result)
        finished = not stop.requested()
    finally:
        try:
            workers.close(finished)
        finally:  # only once they are reaped: a second signal until then kills them before leaving
            stop.on_second.remove(workers.kill_now)
