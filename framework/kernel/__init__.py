"""The compiled game kernel: whole games of a ruleset played in compiled code.

The interpreter (:mod:`ruledraft.engine`) stays the reference engine. A kernel is
written from a compiled ruleset at a number of players (:mod:`.codegen`: the
ruleset's constants, one function per rule written by the rule's own kind, the game
loop) and compiled by numba, its machine code cached in the user's cache directory
(``$XDG_CACHE_HOME/ruledraft``, else ``~/.cache/ruledraft``). For a seed it plays the
very game the reference engine plays (the same deal, the same moves of the built-in
bots, the same points): the random streams are CPython's own, reproduced
(:mod:`.rng`).

The seam for the rest of the program::

    kernel = compile_kernel(ruleset, players)      # Kernel, or Unsupported(reason)
    if isinstance(kernel, Kernel) and kernel.refuses(bots) is None:
        games = kernel.play(seeds, bots)           # KernelGames: arrays, one row a game

A ruleset the kernel cannot play yet (a kind or an effect without a kernel part,
a dummy with pass patterns...) gives :class:`Unsupported` with the reason, and so does a
machine without numba (the ``kernel`` extra): the caller plays on the reference engine.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, cast

import attrs
import numpy as np

from ruledraft.caches import cache_dir as cache_dir  # where compiled kernels are kept
from ruledraft.caches import write_whole
from ruledraft.errors import InputError
from ruledraft.kernel.cache_files import mended
from ruledraft.language.ruleset import CompiledRuleset

if TYPE_CHECKING:
    import subprocess

    from ruledraft.kernel.rollout import Rollouts

__all__ = [
    "BOTS",
    "COUNT_CAP",
    "DEFAULT_SAMPLES",
    "NO_NUMBA",
    "Kernel",
    "KernelGames",
    "Room",
    "Unsupported",
    "bot_refusal",
    "bot_names",
    "bots_refusal",
    "cache_dir",
    "cache_refusal",
    "compile_kernel",
    "compiling",
    "is_cached",
    "is_cached_for",
    "parse_kernel_bot",
    "plans",
    "ready_apart",
    "source_refusal",
    "start_compiling",
]

#: the bots the kernel plays, by name (the registry's names), and their codes in the kernel
BOTS = {"random": 0, "first": 1, "greedy": 2, "value": 3, "planner": 4}
#: the planner's samples without the option, and the count its card values stop at
#: (``play.planner.DEFAULT_SAMPLES`` and ``COUNT_CAP``, which this layer cannot import)
DEFAULT_SAMPLES = 4
COUNT_CAP = 6
#: what the kernel's bots are called in its refusals
_PLAYS = "random, first, greedy, value, planner[:samples=N]"


def _parse_bot(spec: str) -> tuple[str, int] | str:
    """A bot spec the kernel plays as (name, samples), or why it cannot play it. Only
    the planner takes an option in the kernel: ``samples``, a whole number of at least 1."""
    head, *parts = spec.strip().split(":")
    if head not in BOTS:
        return f"the bot '{spec}' has no kernel part (the kernel plays {_PLAYS})"
    if parts and head != "planner":  # value:tempura=3, say: the kernel's value bot reads the ruleset's values
        return f"the bot '{spec}' has no kernel part ({head} plays on the kernel only without options; the one option the kernel takes is planner's samples=N)"
    samples = DEFAULT_SAMPLES
    for i, part in enumerate(parts):
        key, eq, value = part.partition("=")
        if key.strip() != "samples" or not eq or i > 0:
            return f"the bot '{spec}' has no kernel part (the kernel's planner takes samples=N only)"
        try:
            samples = int(value)
        except ValueError:
            return f"the bot '{spec}': samples is a whole number"
        if samples < 1:
            return f"the bot '{spec}': samples must be at least 1"
    return head, samples


def bot_names(bots: Sequence[object]) -> list[str]:
    """The kernel's name of each of these bots as ``Kernel.play`` reads it (spaces around
    it and its options dropped: ``" planner:samples=2"`` is ``planner``); "" for one it
    has no part for."""
    names = []
    for spec in bots:
        made = _parse_bot(spec) if isinstance(spec, str) else ""
        names.append("" if isinstance(made, str) else made[0])
    return names


def plans(bots: Sequence[object]) -> bool:
    """Whether a seat of these bots plays the planner, whose game loop
    (``play_planner``) is compiled apart the first time a planner plays."""
    return "planner" in bot_names(bots)


def parse_kernel_bot(spec: str) -> tuple[str, int]:
    """A bot spec the kernel plays (``bot_refusal`` is None) as (name, samples)."""
    made = _parse_bot(spec)
    if isinstance(made, str):
        raise ValueError(made)
    return made


def bot_refusal(spec: object) -> str | None:
    """Why the kernel cannot play the bot ``spec`` (a registry name with its options, as
    ``--bots`` takes it), or None: it can."""
    if not isinstance(spec, str):
        return f"the bot '{type(spec).__name__}' has no kernel part (the kernel plays {_PLAYS})"
    made = _parse_bot(spec)
    return made if isinstance(made, str) else None


def bots_refusal(ruleset: CompiledRuleset, bots: Sequence[str]) -> str | None:
    """Why the kernel cannot play these bots (each one it has a part for) on this
    ruleset, or None: the planner's part (``planner.tmpl``, ``planner_effects.tmpl`` for
    card effects, ``dummy_planner.tmpl`` for a dummy) plays the standard and the dummy
    turn procedures (an effect whose decisions no look judges is refused by
    :func:`decision_refusal`)."""
    names = bot_names(bots)
    if "planner" in names and ruleset.procedure not in ("standard", "dummy"):
        return f"the bot 'planner' has no kernel part for the '{ruleset.procedure}' turn procedure yet"
    if "greedy" in names and _greedy_reads_turned(ruleset):
        return (
            "the greedy bot's rescoring of a rule that pairs cards and reads other seats' tables, "
            "beside cards turned face down, has no kernel part yet"
        )
    return None


def _greedy_reads_turned(ruleset: CompiledRuleset) -> bool:
    """Whether the reference's greedy bot reads cards turned face down when it rescores a
    move: it scores a rule of one seat's own cards from its row (``score_row``, no turned
    card, as the kernel's greedy does), any other through the table (``Tableau.turned``);
    so a rule that pairs cards beyond its seat's own (a boost changing a majority) beside
    an effect that turns cards face down has no kernel greedy."""
    if not any(rule.holds_cards and not rule.own_cards_only for rule in ruleset.rules):
        return False
    from ruledraft.kernel.effects import turns_cards

    return turns_cards(ruleset)


#: why there is no kernel where numba could not be installed (a dependency of ruledraft on CPython)
NO_NUMBA = "numba is not installed (pip install numba)"


class Room:
    """Arrays :meth:`Kernel.play` writes its games into, kept from one call to the next.

    A run plays its games a block at a time; each block's results made anew are fresh
    pages of memory, and the system's faults on them cost more than the kernel spends
    on a Sushi Go! game's scoring. A caller that is done with one block's
    :class:`KernelGames` before asking for the next hands the same room to every call
    (their arrays are views into its own, written over by the next call)."""

    def __init__(self) -> None:
        self._arrays: dict[str, np.ndarray] = {}

    def filled(self, name: str, shape: tuple[int, ...], value: int = 0) -> np.ndarray:
        """An int64 array of ``shape`` filled with ``value``: the first ``shape[0]`` rows of
        the one kept under ``name``, made anew when it is too small or shaped otherwise."""
        view = self.taken(name, shape)
        view.fill(value)
        return view

    def taken(self, name: str, shape: tuple[int, ...]) -> np.ndarray:
        """:meth:`filled` without the fill, for an array every game loop writes whole (each
        of its places, for every game it plays): what it held is written over."""
        kept = self._arrays.get(name)
        if kept is None or kept.shape[1:] != shape[1:] or len(kept) < shape[0]:
            kept = self._arrays[name] = np.empty(shape, np.int64)
        return kept[: shape[0]]


def _filled(room: Room | None, name: str, shape: tuple[int, ...], value: int = 0) -> np.ndarray:
    """``room.filled(...)``, or a new array where there is no room."""
    if room is None:
        return np.full(shape, value, np.int64) if value else np.zeros(shape, np.int64)
    return room.filled(name, shape, value)


def _whole(room: Room | None, name: str, shape: tuple[int, ...]) -> np.ndarray:
    """``room.taken(...)`` (an array the game loops write whole), or a new array of zeros
    where there is no room."""
    return np.zeros(shape, np.int64) if room is None else room.taken(name, shape)


@attrs.frozen
class Unsupported:
    """No kernel for this ruleset (at this number of players): ``reason`` says why, in a few words."""

    reason: str


@attrs.frozen
class KernelGames:
    """Games played by a kernel, one row each, in the order of the seeds given."""

    seeds: np.ndarray  # (games,) the game seeds
    rule_ids: tuple[str, ...]
    #: (games, seats) final points
    totals: np.ndarray
    #: (games, rules, seats): each rule's points over the game, in ``rule_ids`` order
    rule_points: np.ndarray
    #: (games, seats): 1 for a winning seat
    winners: np.ndarray
    #: (games, rounds, turns, players): every action, as ``Game.encode_action`` writes it
    #: (the last turn of each round is the automatic last card, but with a dummy)
    moves: np.ndarray
    #: (games, rounds, round rules, seats): each round's points of each round-end rule
    round_points: np.ndarray
    #: (games, rounds + 1, seats, card types): each seat's count of every card at each
    #: scoring -- its table at each round end, then the cards it kept to game end
    tables: np.ndarray
    #: (games, rounds, races, seats, card types): the cards each rule scoring during the
    #: round (a race, in ruleset order) took off each seat's table in each round
    raced: np.ndarray | None = None
    #: (games, most, 4): the decisions card effects asked, in the order made: round,
    #: turn, seat, action (-1 after the last); None: the ruleset asks none
    decisions: np.ndarray | None = None
    #: (games, most, 3): the cards a seat placed through an effect by its own choice
    #: (turn, seat, card; -1 after the last); None: none can be
    placements: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.seeds)

    def game(self, i: int) -> tuple[int, tuple[int, ...], tuple[int, ...], dict[str, tuple[int, ...]]]:
        """Game ``i`` as the runner's per-game result holds it: (seed, totals, winning seats,
        points per rule id)."""
        totals = tuple(int(x) for x in self.totals[i])
        winners = tuple(int(s) for s in np.flatnonzero(self.winners[i]))
        rules = {rid: tuple(int(x) for x in self.rule_points[i, j]) for j, rid in enumerate(self.rule_ids)}
        return int(self.seeds[i]), totals, winners, rules

    def one(self, i: int) -> KernelGames:
        """Game ``i`` alone, as games of their own."""
        rows = slice(i, i + 1)
        return KernelGames(
            self.seeds[rows],
            self.rule_ids,
            self.totals[rows],
            self.rule_points[rows],
            self.winners[rows],
            self.moves[rows],
            self.round_points[rows],
            self.tables[rows],
            None if self.raced is None else self.raced[rows],
            None if self.decisions is None else self.decisions[rows],
            None if self.placements is None else self.placements[rows],
        )

    def decisions_of(self, i: int) -> list[tuple[int, int, int, int]]:
        """Game ``i``'s decisions in the order made: (round, turn, seat, action)."""
        if self.decisions is None:
            return []
        return [(int(r), int(t), int(s), int(a)) for r, t, s, a in self.decisions[i] if r >= 0]

    def scoring_points(self) -> np.ndarray:
        """(games, scorings, rules, seats) flattened to (games, points): each round's
        points rule by rule, seat by seat, then game end's -- the order a game's
        scorings list them."""
        G = len(self.seeds)
        rounds = self.round_points.reshape(G, -1)
        ends = self.rule_points[:, self.round_points.shape[2] :].reshape(G, -1)
        return np.concatenate([rounds, ends], axis=1)


class Kernel:
    """A compiled ruleset at a number of players (see the module docstring)."""

    def __init__(
        self, ruleset: CompiledRuleset, players: int, module: ModuleType, path: Path, seconds: float, apart: bool
    ):
        self.ruleset = ruleset
        self.players = players
        self.seats = ruleset.num_seats(players)
        self.module = module
        #: the generated source (kept in the cache directory; numba's cache beside it)
        self.path = path
        #: seconds this object spent making its module ready: writing and importing it the
        #: first time in this process (shared by every player count), and compiling its game
        #: loop or loading it from numba's cache, where this object was the one to do that
        self.compile_seconds = seconds
        #: its game loop, planner's loop and the lab's fold, where numba's cache lacks them, are
        #: compiled in a child process (the ``apart`` of the last compile_kernel to return it)
        self._apart = apart

    def compile_apart(self, apart: bool) -> None:
        """What this kernel lacks in numba's cache (its game loop, the planner's, the lab's
        fold) is compiled from now on in a child process (``apart``) or in this one."""
        self._apart = apart

    def ready_loop(self) -> None:
        """The game loop compiled (in a child process where the kernel compiles apart:
        :meth:`compile_apart`) or loaded from numba's cache, unless this process has it
        already; what it took is added to :attr:`compile_seconds`. :func:`compile_kernel`
        does this unless told the caller plays another entry point only; :meth:`play` does
        it before its first game."""
        if self.path in _LOOPS_READY or not isinstance(self.module, ModuleType):  # native: ready
            return
        started = time.perf_counter()
        _ready_loop(self.path, self._apart)
        self.compile_seconds += time.perf_counter() - started

    def refuses(self, bots: Sequence[str]) -> str | None:
        """Why the kernel cannot play these bots (None: it can)."""
        for name in bots:
            reason = bot_refusal(name)
            if reason is not None:
                return reason
        reason = bots_refusal(self.ruleset, bots)
        if reason is None and getattr(self.module, "FX_BLIND", False):
            reason = decision_refusal(bots)
        return reason

    def ready_for(self, bots: Sequence[object]) -> float:
        """The game loop these bots play made ready now (a seat that plans plays the
        planner's, compiled apart the first time): seconds it took, for a caller that
        keeps compiling off a run's clock."""
        if not plans(bots):
            return 0.0
        started = time.perf_counter()
        ready_apart(self.path, "play_planner", self._apart)
        return time.perf_counter() - started

    def ready_fold(self) -> float:
        """The lab's compiled fold (:mod:`ruledraft.kernel.fold`, which a run with figures
        calls on every block of games) made ready now, compiled apart the first time on
        this machine, rather than inside the run's first block, on its clock, and in each
        worker: seconds it took."""
        started = time.perf_counter()
        from ruledraft.kernel.native import load_fold

        if load_fold() is None:  # kept as native code: nothing to compile or load through numba
            ready_apart(self.path, "fold", self._apart)
        return time.perf_counter() - started

    def play(
        self,
        seeds: Sequence[int] | np.ndarray,
        bots: Sequence[str],
        values: Sequence[float] | None = None,
        counts: Sequence[Sequence[float]] | None = None,
        room: Room | None = None,
    ) -> KernelGames:
        """Play one game per seed (a game seed, as ``engine.seeds.game_seed`` makes),
        ``bots[seat]`` at each seat (a name, or ``planner:samples=N``); ``values``: the
        value bot's worth of each card type (needed when a seat plays it; the
        reference's defaults are ``play.agents.default_card_values``); ``counts``: the
        planner's count-aware card values (``play.planner.count_values``, needed when a
        seat plays it); ``room``: where to write the games (:class:`Room`, the arrays of
        the last call given it written over), else new arrays."""
        if len(bots) != self.players:
            raise ValueError(f"{len(bots)} bots for {self.players} players")
        reason = self.refuses(bots)
        if reason is not None:
            raise ValueError(reason)
        seeds_u = np.asarray(seeds, dtype=np.uint64)
        G, N, r = len(seeds_u), self.seats, self.ruleset
        H = r.hand_size(self.players)
        # each game's totals, rules' points and tables the loops write whole (not filled
        # first: about 1% of a random Sushi Go! run); a dummy's wins and the moves not always
        totals = _whole(room, "totals", (G, N))
        rules = _whole(room, "rules", (G, len(r.rules), N))
        wins = _filled(room, "wins", (G, N))
        moves = _filled(room, "moves", (G, r.rounds, H, self.players))  # the players' actions (a dummy has none)
        nrr = len(r.round_rules)
        round_points = _whole(room, "round_points", (G, r.rounds, nrr, N))
        tables = _whole(room, "tables", (G, r.rounds + 1, N, r.catalogue.size))
        raced = _filled(room, "raced", (G, r.rounds, self.module.NRACE, N, r.catalogue.size))
        parsed = [p for p in map(_parse_bot, bots) if not isinstance(p, str)]  # none refused (above)
        codes = np.array([BOTS[p[0]] for p in parsed] + [0] * (N - self.players), np.int64)  # a dummy seat: no bot
        if any(p[0] == "value" for p in parsed) and values is None:
            raise ValueError("the value bot needs its card values")
        worth = np.zeros(r.catalogue.size, np.float64) if values is None else np.asarray(values, np.float64)
        if any(p[0] == "planner" for p in parsed):
            worth = self._planner_values(worth, counts, [p[1] for p in parsed])
            ready_apart(self.path, "play_planner", self._apart)  # compiled the first time a planner plays
            loop = self.module.play_planner
        else:
            self.ready_loop()
            loop = self.module.play  # compiled without the planner's look-ahead (codegen._game_loops)
        effects = bool(getattr(self.module, "EFFECTS", False))
        decisions = _filled(room, "decisions", (G, self.module.MAXD if effects else 1, 4), -1)
        placements = _filled(room, "placements", (G, self.module.MAXP if effects else 1, 3), -1)
        loop(seeds_u, codes, worth, totals, rules, wins, moves, round_points, tables, raced, decisions, placements)
        ran_out = np.flatnonzero(wins[:, 0] < 0)
        if len(ran_out):  # as the reference engine's deal says it (State.deal_hands)
            raise InputError(f"the deck has run out in round {-int(wins[ran_out[0], 0])}")
        return KernelGames(
            seeds_u,
            r.rule_ids,
            totals,
            rules,
            wins,
            moves,
            round_points,
            tables,
            raced,
            decisions if effects else None,
            placements if effects else None,
        )

    def _planner_values(
        self, values: np.ndarray, counts: Sequence[Sequence[float]] | None, samples: list[int]
    ) -> np.ndarray:
        """The game loop's ``values`` with the planner's inputs after the value bot's
        (see ``planner.tmpl``): the count values, row by row, then each seat's samples."""
        K = self.ruleset.catalogue.size
        if counts is None:
            raise ValueError("the planner needs its count values")
        table = np.asarray(counts, np.float64)
        if table.shape != (K, COUNT_CAP + 1):
            raise ValueError(f"the planner's count values are {K} rows of {COUNT_CAP + 1}, not {table.shape}")
        return np.concatenate([values, table.ravel(), np.asarray(samples, np.float64)])

    def rollouts(self, values: Sequence[Sequence[float]]) -> Rollouts:
        """The ``ismcts`` bot's roll-outs of this game with the count-aware card values
        ``values`` (``play.planner.count_values``): see :mod:`.rollout`."""
        from ruledraft.kernel.rollout import Rollouts

        return Rollouts(self.module, self.seats, values)


_KERNELS: dict[tuple[int, int], tuple[CompiledRuleset, Kernel | Unsupported]] = {}
#: per ruleset (by identity): its kernel module, imported, and the seconds that took, or why there is none
_MODULES: dict[int, tuple[CompiledRuleset, tuple[ModuleType, Path, float] | Unsupported]] = {}
#: the kernel modules (by file) whose game loop this process has compiled or loaded
_LOOPS_READY: set[Path] = set()


def compile_kernel(
    ruleset: CompiledRuleset, players: int, *, apart: bool = False, loop: bool = True
) -> Kernel | Unsupported:
    """The kernel of ``ruleset`` at ``players`` players, compiled (or loaded from the
    cache), or :class:`Unsupported` saying why there is none. One compiled module
    serves every player count of a ruleset; both are remembered per process.
    ``apart``: a game loop not in the cache yet is compiled in a child process, then
    loaded (what a run does: a Ctrl-C during the compile ends it at once and cleanly,
    which numba's compiler in this process would not, and the compiler's memory goes
    with the child); else in this process. ``loop``: False for a caller that plays
    another of the module's entry points only (the batch environment's, ismcts's
    roll-out; :func:`ready_apart` makes those ready): the game loop is then compiled
    only if :meth:`Kernel.play` plays it."""
    key = (id(ruleset), players)
    known = _KERNELS.get(key)
    if known is not None and known[0] is ruleset:
        made = known[1]
    else:
        made = _compile(ruleset, players, apart)
        _KERNELS[key] = (ruleset, made)
    if isinstance(made, Kernel):
        made.compile_apart(apart)  # from now on this caller's way, whoever made the kernel first
        if loop:
            made.ready_loop()
    return made


def decision_refusal(bots: Sequence[str]) -> str | None:
    """Why these bots cannot decide for card effects in the kernel (None: they can), where
    an effect's decisions are not ones the kernel's greedy, value and planner can judge
    (see ``language.effect.EffectPart.lookahead``)."""
    for name in bot_names(bots):
        if name in ("greedy", "value", "planner"):
            return f"the {name} bot's choices on card effects' decisions have no kernel part yet"
    return None


def source_refusal(ruleset: CompiledRuleset, players: int, bots: Sequence[str] = ()) -> str | None:
    """Why there is no kernel of ``ruleset`` at ``players`` players (None: there is one),
    or none for ``bots`` on it, found by writing its source, without numba."""
    if not ruleset.min_players <= players <= ruleset.max_players:
        return f"{ruleset.name} is for {ruleset.player_range}, not {players}"
    from ruledraft.kernel.codegen import refusal
    from ruledraft.kernel.effects import blind

    reason = refusal(ruleset, players)
    if reason is not None:
        return reason
    if bots and blind(ruleset):
        reason = decision_refusal(bots)
        if reason is not None:
            return reason
    made = _source(ruleset)
    return made.reason if isinstance(made, Unsupported) else None


def cache_refusal(ruleset: CompiledRuleset) -> str | None:
    """Why the kernel of ``ruleset`` cannot be kept in the cache (None: it can), found
    without writing there: said before anything is timed or compiled. Both folders are
    written to even where the kernel is compiled already: its own (a lock beside the
    module) and numba's (numba keeps no cached code it cannot write beside: on a
    read-only cache it raised "no locator available" as the module was imported)."""
    made = _source(ruleset)
    if isinstance(made, Unsupported):
        return made.reason
    for folder in (made[1].parent, _numba_dir()):
        why = _unwritable_folder(folder)
        if why is not None:
            return f"its cache cannot be written ({folder}: {why})"
    return None


def _unwritable_folder(folder: Path) -> str | None:
    """Why ``folder`` (or the deepest folder of its path there is, where the rest would
    be made) cannot be written to, or None."""
    import errno

    at = folder
    while not at.exists() and at != at.parent:
        at = at.parent
    if not at.is_dir():
        return os.strerror(errno.ENOTDIR)
    if os.access(at, os.W_OK | os.X_OK):
        return None
    try:
        read_only = bool(os.statvfs(at).f_flag & os.ST_RDONLY)
    except (OSError, AttributeError):
        read_only = False
    return os.strerror(errno.EROFS if read_only else errno.EACCES)


def _unwritable(path: Path, why: str | None) -> str:
    return f"its cache cannot be written ({path.parent}: {why})"


#: per ruleset (by identity): its kernel's source and file, or why there is none
_SOURCES: dict[int, tuple[CompiledRuleset, tuple[str, Path] | Unsupported]] = {}


def _source(ruleset: CompiledRuleset) -> tuple[str, Path] | Unsupported:
    """The kernel module's source and the file it is kept in (named by a digest of it
    and of the code it is made of), or why there is none."""
    known = _SOURCES.get(id(ruleset))
    if known is not None and known[0] is ruleset:
        return known[1]
    import hashlib

    from ruledraft.kernel.codegen import NoKernel, source_hash, write_source

    made: tuple[str, Path] | Unsupported
    try:
        source = write_source(ruleset)
    except NoKernel as e:
        made = Unsupported(str(e))
    else:
        digest = hashlib.sha256((source_hash() + _optimisation() + source).encode()).hexdigest()[:20]
        made = (source, cache_dir() / "kernels" / f"k_{digest}.py")
    _SOURCES[id(ruleset)] = (ruleset, made)
    return made


def _optimisation() -> str:
    """numba's optimisation level where ``NUMBA_OPT`` sets one other than its default
    (``""`` otherwise): part of a kernel's file name and of numba's cache directory, since
    numba's cache does not tell machine code compiled at one level from another's (the
    test suite compiles at 1, quicker, and its kernels must never be loaded by a run at
    full speed)."""
    level = os.environ.get("NUMBA_OPT", "").strip()
    return "" if level in ("", "3") else f"opt{level}"


def _compile(ruleset: CompiledRuleset, players: int, apart: bool = False) -> Kernel | Unsupported:
    if importlib.util.find_spec("numba") is None:
        return Unsupported(NO_NUMBA)
    reason = source_refusal(ruleset, players)
    if reason is not None:
        return Unsupported(reason)
    known = _MODULES.get(id(ruleset))
    made = known[1] if known is not None and known[0] is ruleset else None
    if made is None:
        made = _native_or_module(ruleset)
        _MODULES[id(ruleset)] = (ruleset, made)
        if not isinstance(made, Unsupported):  # once a process: kept from pruning (cache_prune)
            from ruledraft.kernel.cache_prune import mark_used

            mark_used(made[1])
    if isinstance(made, Unsupported):
        return made
    module, path, seconds = made
    return Kernel(ruleset, players, module, path, seconds, apart)


def _native_or_module(ruleset: CompiledRuleset) -> tuple[ModuleType, Path, float] | Unsupported:
    """The kernel module with its game loop as native code where that is kept
    (:mod:`.native`: numba is not loaded for it), else :func:`_module`'s."""
    started = time.perf_counter()
    made = _source(ruleset)
    if not isinstance(made, Unsupported) and made[1].exists():
        from ruledraft.kernel.native import load_loop

        native = load_loop(made[1])
        if native is not None:
            return cast(ModuleType, native), made[1], time.perf_counter() - started
    return _module(ruleset)


def _write(source: str, path: Path) -> None:
    """The source at ``path`` (written whole, then renamed: readers never see half of it)."""
    if not path.exists() or path.read_text(encoding="utf-8") != source:
        write_whole(path, source.encode("utf-8"))


def _import(path: Path) -> ModuleType:
    """The kernel module kept at ``path``, imported under the name numba's cache knows it by."""
    name = f"ruledraft_kernel_{path.stem[2:]}"  # the prefix numba_link.KERNEL_MODULE_PREFIX links
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # numba's cache finds the module's globals by its name
        spec.loader.exec_module(module)
    return module


def _module(ruleset: CompiledRuleset) -> tuple[ModuleType, Path, float] | Unsupported:
    """The ruleset's kernel module, written and imported, nothing of it compiled yet
    (numba compiles a function the first time it is called): (module, its file, seconds taken)."""
    started = time.perf_counter()
    made = _source(ruleset)
    if isinstance(made, Unsupported):
        return made
    source, path = made
    try:
        _write(source, path)
    except OSError as e:
        return Unsupported(_unwritable(path, e.strerror))
    _use_cache_dir()
    with compiling(path):  # another thread or process writing or importing it meanwhile: one at a time
        module = _import(path)
    return module, path, time.perf_counter() - started


def _ready_loop(path: Path, apart: bool) -> None:
    """The game loop of the kernel module at ``path`` compiled (``apart``: in a child
    process, then loaded) or loaded from numba's cache, into this process."""
    with compiling(path):
        if apart and not _loop_cached(path):
            _compile_apart(path)
        module = _import(path)
        # a cache file numba cannot read: compiled again (apart, as the first time)
        mended(lambda: warm(module), again=(lambda: _compile_apart(path)) if apart else None)
    _LOOPS_READY.add(path)


def _loop_cached(path: Path) -> bool:
    """Whether numba's cache holds the game loop of the kernel module at ``path``."""
    return _cached(path, "play")


#: the entry points a dummy's module binds to loops of its own (``codegen._dummy_source``),
#: whose cache files numba names by the function's own name
_CACHED_AS = {"play": ("play", "play_dummy"), "play_planner": ("play_planner", "play_dummy_planner")}


def _cached(path: Path, function: str) -> bool:
    """Whether numba's cache holds ``function`` of the kernel module at ``path``."""
    if function == "fold":  # the module's own, not the kernel's
        return any(_numba_dir().rglob("fold.lab_block-*.nbi"))
    return any(any(_numba_dir().rglob(f"{path.stem}.{name}-*.nbi")) for name in _CACHED_AS.get(function, (function,)))


#: what a child compiles apart (``python -m ruledraft.kernel FLAG FILE``), by the entry point
APART = {
    "play": "--game-loop",
    "play_planner": "--planner",
    "rollout": "--rollout",
    "batch_step": "--batch",
    "batch_bots_planner": "--batch-planner",
    "fold": "--fold",  # the lab's (one for every ruleset: the path only says who waits for it)
}

#: the kernel modules whose entry points this process knows are ready: (path, function)
_READY: set[tuple[Path, str]] = set()


def ready_apart(path: Path, function: str, apart: bool = True) -> None:
    """``function`` (``play_planner``, ``rollout``, ``batch_step``, ``batch_bots_planner``
    or ``fold``, compiled the first time it is called)
    of the kernel module at ``path`` compiled into numba's cache apart, as the game loop
    is (:func:`_compile_apart`), unless it is there already; either way, then loaded
    into this process (:func:`~ruledraft.kernel.cache_files.mended`: a cache file numba
    cannot read is compiled again, apart too). Another process wanting it meanwhile waits
    (:func:`compiling`). ``apart`` False: compiled in this process, as the game loop of a
    kernel made with ``compile_kernel(..., apart=False)`` is."""
    if (path, function) in _READY:
        return
    with compiling(path):
        if apart and not _cached(path, function):
            _compile_apart(path, function)
        module = _import(path)
        # a cache file numba cannot read is compiled again (apart, then loaded here, where it was)
        mended(lambda: warm_entry(module, function), again=(lambda: _compile_apart(path, function)) if apart else None)
    _READY.add((path, function))


def warm_entry(module: ModuleType, function: str) -> None:
    """Compile ``function`` (one of :data:`APART`'s) of a kernel module, or load it from
    numba's cache: the game loop or the planner's by one game (:func:`warm`), the
    roll-out by one roll-out, the batch functions by one game stepped once, the batch's
    planner by one move."""
    if function == "rollout":
        from ruledraft.kernel.rollout import warm_rollout

        warm_rollout(module)
    elif function == "batch_step":
        from ruledraft.kernel.batch import warm_batch

        warm_batch(module)
    elif function == "batch_bots_planner":
        from ruledraft.kernel.batch import warm_batch_planner

        warm_batch_planner(module)
    elif function == "fold":
        from ruledraft.kernel import fold

        fold.warm()
    else:
        warm(module, function)


def _compile_apart(path: Path, function: str = "play") -> None:
    """Compile ``function`` of the kernel module at ``path`` (its game loop by default)
    into numba's cache in a child process (``python -m ruledraft.kernel --game-loop``,
    ``--planner`` or ``--rollout``), for this process to load. A Ctrl-C reaches the
    child too and ends it; this process's wait then raises KeyboardInterrupt, as
    anywhere else in a run; so it does when the child ended on the signal while this
    process only took note of it (a run playing its games stops after the chunk in
    hand: here, before compiling in its place). Should the child fail otherwise, this
    process compiles (and any error shows here)."""
    import signal
    import subprocess

    if _optimisation() == "opt0":  # numba caches nothing it compiles at level 0
        return
    from ruledraft.lifeline import PARENT, inherited_env

    env = inherited_env()
    env.setdefault("NUMBA_CACHE_DIR", str(_numba_dir()))
    env[PARENT] = str(os.getpid())  # the child ends with this process (which waits for it, in this thread)
    argv = [sys.executable, "-m", "ruledraft.kernel", APART[function], str(path)]
    if hasattr(os, "posix_spawn"):
        returncode = _spawn_and_wait(argv, env)
    else:
        returncode = subprocess.run(  # noqa: S603 - this interpreter, our own module
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            check=False,
        ).returncode
    if returncode == -signal.SIGINT:
        stop = KeyboardInterrupt()
        stop.signum = signal.SIGINT  # type: ignore[attr-defined]  # a stop signal's, not code's (errors.raised_by_stop)
        raise stop


def _spawn_and_wait(argv: list[str], env: dict[str, str]) -> int:
    """Run ``argv`` (no input, output to nowhere) with SIGINT's default action from its
    first instruction, and wait for it: its status as :attr:`subprocess.Popen.returncode`
    gives it. A run's worker ignores SIGINT and a child inherits that; the child resets it
    itself only once its imports are done, and a Ctrl-C meanwhile was lost (the compile
    then ran to its end). Should this wait be interrupted, the child is ended with it."""
    import signal

    quiet = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0)] + [
        (os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)
    ]
    pid = os.posix_spawn(argv[0], argv, env, file_actions=quiet, setsigdef=(signal.SIGINT,))
    try:
        _, status = os.waitpid(pid, 0)
    except BaseException:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        raise
    return os.waitstatus_to_exitcode(status)


@contextlib.contextmanager
def compiling(path: Path) -> Iterator[None]:
    """Held while this process compiles the kernel module at ``path`` (or loads it from
    numba's cache): another process wanting the same kernel (a second run, a worker, the
    background compile) waits, then loads what this one left in the cache, rather than
    compiling it again beside it. A lock file beside the module; the lock goes with
    the process that holds it. Where locks cannot be taken, nothing waits."""
    try:
        import fcntl
    except ImportError:  # not on this system: each process compiles for itself
        yield
        return
    try:
        held = open(path.with_suffix(".lock"), "a")  # noqa: SIM115 - closed below, after the unlock
    except OSError:
        yield
        return
    with held:
        try:
            fcntl.flock(held, fcntl.LOCK_EX)
        except OSError:
            pass
        try:
            yield
        finally:
            with contextlib.suppress(OSError):
                fcntl.flock(held, fcntl.LOCK_UN)


def warm(module: ModuleType, function: str = "play") -> None:
    """Compile the game loop of a kernel module (or load it from numba's cache): one game
    at the smallest number of seats its hands are written for (``function``:
    ``play_planner`` for the planner's loop, played by random bots: the same types)."""
    getattr(module, function)(*loop_arguments(module))


def loop_arguments(module: ModuleType) -> tuple[np.ndarray, ...]:
    """A game loop's arguments for one game of random bots at the smallest number of
    seats its hands are written for: the types :meth:`Kernel.play` passes."""
    seats = next(n for n in range(len(module.HS)) if module.HS[n] > 0)
    R, H, K = module.R, int(module.HS[seats]), module.K
    z = np.zeros
    return (
        np.zeros(1, np.uint64),
        z(seats, np.int64),
        z(K, np.float64),
        z((1, seats), np.int64),
        z((1, module.NRR + module.NGR, seats), np.int64),
        z((1, seats), np.int64),
        z((1, R, H, seats), np.int64),
        z((1, R, module.NRR, seats), np.int64),
        z((1, R + 1, seats, K), np.int64),
        z((1, R, module.NRACE, seats, K), np.int64),
        np.full((1, module.MAXD, 4), -1, np.int64),
        np.full((1, module.MAXP, 3), -1, np.int64),
    )


def is_cached(ruleset: CompiledRuleset, function: str = "play") -> bool:
    """Whether the ruleset's kernel is compiled in the cache already (loading it is quick);
    ``function``: the part asked for (``rollout``: the ismcts roll-out, compiled apart)."""
    made = _source(ruleset)
    if isinstance(made, Unsupported):
        return False
    path = made[1]
    if function == "play" and path in _LOOPS_READY:
        return True
    if not path.exists():
        return False
    from ruledraft.kernel import native

    if function == "play":
        return native.has_loop(path) or _loop_cached(path)
    if function == "fold" and native.has_fold():
        return True
    return _cached(path, function)


def native_kept(ruleset: CompiledRuleset, fold: bool = True) -> bool:
    """Whether the ruleset's game loop (and with ``fold`` the lab's fold) is kept as native
    code for this machine (:mod:`.native`): loaded without numba."""
    made = _source(ruleset)
    if isinstance(made, Unsupported):
        return False
    from ruledraft.kernel import native

    return native.has_loop(made[1]) and (not fold or native.has_fold())


def is_cached_for(ruleset: CompiledRuleset, bots: Sequence[object]) -> bool:
    """Whether the game loop these bots play on the ruleset's kernel is in the cache: the
    kernel's, and the planner's (compiled apart) where a seat plans."""
    return is_cached(ruleset) and (not plans(bots) or is_cached(ruleset, "play_planner"))


#: a compile mark (``k_....compiling``) this recent says a background compile is under way
COMPILING_SECONDS = 600


def start_compiling(ruleset: CompiledRuleset, *, planner: bool = False, batch_planner: bool = False) -> bool:
    """Start compiling the ruleset's kernel in a process of its own, which outlives this
    one and leaves it in the cache for later runs (``planner``: the planner's game loop
    too, for a run where a seat plans; ``batch_planner``: the batch's planner too, for an
    environment whose opponents plan). False if there is nothing to start (no kernel,
    or another process began compiling it in the last ten minutes: that compile is asked
    for the planners' loops too, which it compiles at its end)."""
    made = _source(ruleset)
    if isinstance(made, Unsupported):
        return False
    source, path = made
    mark = path.with_suffix(".compiling")
    try:
        if time.time() - mark.stat().st_mtime < COMPILING_SECONDS:
            _request(path, planner=planner, batch_planner=batch_planner)  # of the compile under way
            return False
    except OSError:
        pass
    try:
        _write(source, path)
        mark.write_text(str(os.getpid()), encoding="utf-8")
    except OSError:  # a cache that cannot be written: nothing to compile into
        return False
    _outliving(
        *(["--with-planner"] if planner else []), *(["--with-batch-planner"] if batch_planner else []), str(path)
    )
    return True


def _outliving(*args: str) -> subprocess.Popen[bytes]:
    """Start ``python -m ruledraft.kernel ARGS`` in a process that outlives this one: no
    parent named in its environment, a session of its own (a Ctrl-C of this run does not
    stop it), nothing to read or write. OSError where no process can be started."""
    import subprocess

    from ruledraft.lifeline import inherited_env

    env = inherited_env()
    env.setdefault("NUMBA_CACHE_DIR", str(_numba_dir()))
    return subprocess.Popen(  # noqa: S603 - this interpreter, our own module
        [sys.executable, "-m", "ruledraft.kernel", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
        start_new_session=True,
    )


def start_native(kernel: Kernel) -> bool:
    """Start keeping the kernel's game loop and the lab's fold as native code
    (:mod:`.native`) in a process of its own that outlives this one, where this machine
    could have them and does not (none kept, no build failed lately or is under way):
    later runs load them without numba. False if there is nothing to start."""
    from ruledraft.kernel import native

    module = kernel.module
    if not isinstance(module, ModuleType) or not native.native_loop(module) or not native.wanted(kernel.path):
        return False
    if not native.claim(kernel.path):  # another run is starting it
        return False
    try:
        builder = _outliving("--native", str(kernel.path))
    except OSError:  # no process to be had now: a later run starts it
        native.release(kernel.path)
        return False
    native.hand_over(kernel.path, builder.pid)  # the build outlives this run
    return True


#: what a run may ask of a background compile already under way, by the name of its file
#: beside the kernel's (``k_....wants-planner``)
_LATER = ("planner", "batch-planner")


def _request(path: Path, *, planner: bool, batch_planner: bool) -> None:
    """Ask the background compile under way of the kernel at ``path`` to compile the
    planner's loop (and the batch's planner) too, once it has done what it was started
    for (``python -m ruledraft.kernel`` reads :func:`later_requests` at its end)."""
    for name, wanted in zip(_LATER, (planner, batch_planner)):
        if wanted:
            with contextlib.suppress(OSError):
                path.with_suffix(f".wants-{name}").touch()


def later_requests(path: Path) -> set[str]:
    """What runs asked of the background compile of the kernel at ``path`` while it ran
    (:func:`_request`), the requests taken away as they are read."""
    asked = set()
    for name in _LATER:
        try:
            path.with_suffix(f".wants-{name}").unlink()
        except OSError:
            continue
        asked.add(name)
    return asked


def _numba_dir() -> Path:
    """Where numba keeps the kernels' machine code (and that of the static compiled parts,
    the random streams and the fold): one directory per optimisation level."""
    level = _optimisation()
    return Path(os.environ.get("NUMBA_CACHE_DIR") or cache_dir() / (f"numba-{level}" if level else "numba"))


def prune_cache(path: Path) -> list[str]:
    """After the kernel at ``path`` is compiled: it marked used, and the kernels used
    least recently past :data:`.cache_prune.KEEP` removed, from numba's caches too
    (each optimisation level's), and the native code this install cannot load, unused
    for a day (:func:`.cache_prune.prune_native`). Returns those removed."""
    from ruledraft.kernel import cache_prune, native

    cache_prune.mark_used(path)
    numba_dirs = {_numba_dir(), *(p for p in cache_dir().glob("numba*") if p.is_dir())}
    removed = cache_prune.prune(path.parent, sorted(numba_dirs), keep=cache_prune.KEEP)
    return removed + cache_prune.prune_native(path.parent, native.machine_key(), native.fold_stem().name)


def _use_cache_dir() -> None:
    """numba keeps its compiled code under our cache directory unless told otherwise
    (``NUMBA_CACHE_DIR``): set before numba is first imported, or on its config."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    where = str(_numba_dir())
    if sys.modules.get("numba") is not None:  # imported (None: a machine, or a test, without it)
        import numba

        setattr(numba.config, "CACHE_DIR", where)  # noqa: B010 - the config module declares it at run time
    else:
        os.environ["NUMBA_CACHE_DIR"] = where


# numba picks a cached function's directory when the function is decorated, so the
# static compiled parts (the random streams, the fold, ismcts's re-deal) must find
# it set when they are imported: each is a module of this package, imported after this.
_use_cache_dir()


class _NoSciPyForNumbasCheck:  # a finder of sys.meta_path (importlib.abc's base would import importlib.resources)
    """Where SciPy is installed, numba imports ``scipy.linalg`` (a tenth of a second or
    more) as it first loads its registries, only to note whether its ``np.correlate``
    and ``np.convolve`` may use BLAS; nothing a kernel compiles uses them. While that
    module (``numba.np.arraymath``) is being imported, ``scipy.linalg`` is not found, so
    numba notes no BLAS; at the next import asked for (numba's registries go on
    importing), the note is put back as numba would have made it, and this finder leaves
    ``sys.meta_path``: numba code of one's own (a bot's) compiles as it would have, and
    what wants BLAS imports SciPy itself."""

    def __init__(self) -> None:
        self.refused = False

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        module = sys.modules.get("numba.np.arraymath")
        if module is None:
            return None
        if getattr(getattr(module, "__spec__", None), "_initializing", False):
            if name == "scipy.linalg":
                self.refused = True
                raise ImportError("scipy.linalg is not imported while numba loads its registries")
            return None
        if self.refused:  # SciPy is installed (it was asked for after ``import scipy`` succeeded)
            setattr(module, "_HAVE_BLAS", True)  # noqa: B010 - numba's own module
        with contextlib.suppress(ValueError):
            sys.meta_path.remove(self)
        return None


if "numba.np.arraymath" not in sys.modules and "scipy.linalg" not in sys.modules:
    sys.meta_path.insert(0, _NoSciPyForNumbasCheck())
