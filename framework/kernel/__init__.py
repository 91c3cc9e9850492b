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
the dummy procedure...) gives :class:`Unsupported` with the reason, and so does a
machine without numba (the ``kernel`` extra): the caller plays on the reference engine.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs
import numpy as np

from ruledraft.language.ruleset import CompiledRuleset

__all__ = ["BOTS", "Kernel", "KernelGames", "Unsupported", "cache_dir", "compile_kernel"]

#: the bots the kernel plays, by name (the registry's names), and their codes in the kernel
BOTS = {"random": 0, "first": 1, "greedy": 2, "value": 3}


def cache_dir() -> Path:
    """Where compiled kernels are kept: ``$XDG_CACHE_HOME/ruledraft`` (else ``~/.cache/ruledraft``)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "ruledraft"


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
    #: (games, rounds, turns, seats): every action, as ``Game.encode_action`` writes it
    #: (the last turn of each round is the automatic last card)
    moves: np.ndarray

    def __len__(self) -> int:
        return len(self.seeds)

    def game(self, i: int) -> tuple[int, tuple[int, ...], tuple[int, ...], dict[str, tuple[int, ...]]]:
        """Game ``i`` as the runner's per-game result holds it: (seed, totals, winning seats,
        points per rule id)."""
        totals = tuple(int(x) for x in self.totals[i])
        winners = tuple(int(s) for s in np.flatnonzero(self.winners[i]))
        rules = {rid: tuple(int(x) for x in self.rule_points[i, j]) for j, rid in enumerate(self.rule_ids)}
        return int(self.seeds[i]), totals, winners, rules

    def game_results(self, first_index: int = 0) -> Iterator[Any]:
        """The games as :class:`ruledraft.play.runner.GameResult` (what a tally adds), indexed from ``first_index``."""
        from ruledraft.play.runner import GameResult

        for i in range(len(self)):
            seed, totals, winners, rules = self.game(i)
            yield GameResult(first_index + i, seed, totals, winners, rules)


class Kernel:
    """A compiled ruleset at a number of players (see the module docstring)."""

    def __init__(self, ruleset: CompiledRuleset, players: int, module: ModuleType, path: Path, seconds: float):
        self.ruleset = ruleset
        self.players = players
        self.seats = ruleset.num_seats(players)
        self.module = module
        #: the generated source (kept in the cache directory; numba's cache beside it)
        self.path = path
        #: seconds spent making its module ready (writing, importing and compiling, or
        #: loading numba's cache), the first time in this process; shared by every player count
        self.compile_seconds = seconds
        self._values: np.ndarray | None = None

    def refuses(self, bots: Sequence[str]) -> str | None:
        """Why the kernel cannot play these bots (None: it can)."""
        for name in bots:
            if name not in BOTS:
                return f"the bot '{name}' has no kernel part (the kernel plays {', '.join(BOTS)}, without options)"
        return None

    def play(self, seeds: Sequence[int] | np.ndarray, bots: Sequence[str]) -> KernelGames:
        """Play one game per seed (a game seed, as ``runner.game_seed`` makes), ``bots[seat]`` at each seat."""
        if len(bots) != self.players:
            raise ValueError(f"{len(bots)} bots for {self.players} players")
        reason = self.refuses(bots)
        if reason is not None:
            raise ValueError(reason)
        seeds_u = np.asarray(seeds, dtype=np.uint64)
        G, N, r = len(seeds_u), self.seats, self.ruleset
        H = r.hand_size(self.players)
        totals = np.zeros((G, N), np.int64)
        rules = np.zeros((G, len(r.rules), N), np.int64)
        wins = np.zeros((G, N), np.int64)
        moves = np.zeros((G, r.rounds, H, N), np.int64)
        codes = np.array([BOTS[b] for b in bots], np.int64)
        values = np.zeros(r.catalogue.size, np.float64)
        if "value" in bots:  # the value bot's default card values, as the reference computes them
            from ruledraft.engine.state import Game
            from ruledraft.play.agents import default_card_values

            if self._values is None:
                self._values = np.array(default_card_values(Game(r, self.players)), np.float64)
            values = self._values
        self.module.play(seeds_u, codes, values, totals, rules, wins, moves)
        return KernelGames(seeds_u, r.rule_ids, totals, rules, wins, moves)


_KERNELS: dict[tuple[int, int], tuple[CompiledRuleset, Kernel | Unsupported]] = {}
#: per ruleset (by identity): its compiled module and the seconds it took, or why there is none
_MODULES: dict[int, tuple[CompiledRuleset, tuple[ModuleType, Path, float] | Unsupported]] = {}


def compile_kernel(ruleset: CompiledRuleset, players: int) -> Kernel | Unsupported:
    """The kernel of ``ruleset`` at ``players`` players, compiled (or loaded from the
    cache), or :class:`Unsupported` saying why there is none. One compiled module
    serves every player count of a ruleset; both are remembered per process."""
    key = (id(ruleset), players)
    known = _KERNELS.get(key)
    if known is not None and known[0] is ruleset:
        return known[1]
    made = _compile(ruleset, players)
    _KERNELS[key] = (ruleset, made)
    return made


def _compile(ruleset: CompiledRuleset, players: int) -> Kernel | Unsupported:
    if not ruleset.min_players <= players <= ruleset.max_players:
        return Unsupported(f"{ruleset.name} is for {ruleset.player_range}, not {players}")
    if importlib.util.find_spec("numba") is None:
        return Unsupported("numba is not installed (pip install 'ruledraft[kernel]')")
    from ruledraft.kernel.codegen import refusal

    reason = refusal(ruleset, players)
    if reason is not None:
        return Unsupported(reason)
    known = _MODULES.get(id(ruleset))
    made = known[1] if known is not None and known[0] is ruleset else None
    if made is None:
        made = _module(ruleset)
        _MODULES[id(ruleset)] = (ruleset, made)
    if isinstance(made, Unsupported):
        return made
    module, path, seconds = made
    return Kernel(ruleset, players, module, path, seconds)


def _module(ruleset: CompiledRuleset) -> tuple[ModuleType, Path, float] | Unsupported:
    """The ruleset's kernel module, written, imported and its game loop compiled (or
    loaded from numba's cache): (module, its file, seconds taken)."""
    import hashlib

    from ruledraft.kernel.codegen import NoKernel, source_hash, write_source

    started = time.perf_counter()
    try:
        source = write_source(ruleset)
    except NoKernel as e:
        return Unsupported(str(e))
    digest = hashlib.sha256((source_hash() + source).encode()).hexdigest()[:20]
    folder = cache_dir() / "kernels"
    folder.mkdir(parents=True, exist_ok=True)
    _use_cache_dir()
    path = folder / f"k_{digest}.py"
    if not path.exists() or path.read_text(encoding="utf-8") != source:
        tmp = folder / f".k_{digest}.{os.getpid()}.tmp"
        tmp.write_text(source, encoding="utf-8")
        os.replace(tmp, path)
    name = f"ruledraft_kernel_{digest}"
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # numba's cache finds the module's globals by its name
        spec.loader.exec_module(module)
    players = ruleset.min_players
    Kernel(ruleset, players, module, path, 0.0).play([0], ["random"] * players)  # compile, or load the cache
    return module, path, time.perf_counter() - started


def _use_cache_dir() -> None:
    """numba keeps its compiled code under our cache directory unless told otherwise
    (``NUMBA_CACHE_DIR``): set before numba is first imported, or on its config."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return
    where = str(cache_dir() / "numba")
    if "numba" in sys.modules:
        import numba

        setattr(numba.config, "CACHE_DIR", where)  # noqa: B010 - the config module declares it at run time
    else:
        os.environ["NUMBA_CACHE_DIR"] = where
