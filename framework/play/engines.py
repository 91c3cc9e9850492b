"""Which engine plays a run's games: the interpreter (the reference engine) or the
compiled kernel (:mod:`ruledraft.kernel`).

Both play the same games for a seed (the same deals, moves, points and figures), so
the choice changes only the time a run takes. ``--engine`` (and the API's
``engine=``) takes:

* ``reference``: the interpreter, always;
* ``kernel``: the kernel, compiled first if it is not in the cache yet; a ruleset
  or a bot it cannot play is an error naming why;
* ``auto`` (the default): the kernel whenever the ruleset and the bots compile to it
  and it pays. When the kernel cannot play them the run plays on the reference
  engine and, for a run of :data:`NOTE_GAMES` games or more, :attr:`Engine.note`
  says why in one line (decided by the count, not by a timing, so a command prints
  the same lines on any machine). When the kernel is not
  compiled yet, a run that the reference engine finishes sooner than the compiler
  plays there while a process of its own compiles the kernel for later runs; a
  run too short to pay for loading the kernel plays on the reference engine too.
  A run where a seat plays ``ismcts`` (which the kernel does not play, but whose
  roll-outs it does once they are in the cache) starts that compile too when they
  are not. ``RULEDRAFT_BACKGROUND_COMPILE=0`` in the environment starts no such process
  (a shared machine, a batch job, a test suite that compiles what it checks itself).
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import AbstractContextManager
from typing import Any

import attrs

from ruledraft.engine.seeds import game_seed
from ruledraft.engine.state import Game
from ruledraft.errors import InputError
from ruledraft.language.ruleset import CompiledRuleset

__all__ = ["ENGINES", "Engine", "choose_engine", "kernel_for"]

#: what ``--engine`` takes
ENGINES = ("auto", "kernel", "reference")

#: seconds a run on the reference engine must be expected to take before ``auto``
#: loads a kernel from the cache for it (importing numba and loading cost about this; see
#: DEVELOPERS.md). Measured: the README's main job, whose games take 1.0-1.6 s on the
#: reference engine, takes 0.91x the processor time as a whole process on the kernel
LOAD_SECONDS = 1.0
#: ... where the kernel's game loop is kept as native code (and the lab's fold, for a run
#: with figures: :mod:`ruledraft.kernel.native`), loaded without numba in about 0.03 s
NATIVE_LOAD_SECONDS = 0.1
#: ... and before ``auto`` compiles a kernel that is not in the cache (its first compile costs about this)
COMPILE_SECONDS = 25.0
#: the environment variable that, set to 0, keeps ``auto`` from starting the compiler in the background
BACKGROUND_COMPILE = "RULEDRAFT_BACKGROUND_COMPILE"
#: auto names why the kernel does not play a run of at least this many games
NOTE_GAMES = 1000


@attrs.frozen
class Engine:
    """The engine chosen for a run: ``name`` is ``kernel`` or ``reference``; ``note``, a
    line to say (why the reference engine plays though the kernel was asked for, or
    that the kernel is being compiled for later runs), or None."""

    name: str
    note: str | None = None

    @property
    def kernel(self) -> bool:
        return self.name == "kernel"


def check_engine(engine: str, option: str = "--engine") -> None:
    """:class:`InputError` unless ``engine`` is one of :data:`ENGINES`."""
    if engine not in ENGINES:
        raise InputError(f"{option} is {', '.join(ENGINES[:-1])} or {ENGINES[-1]}, not {engine!r}")


def kernel_refusal(ruleset: CompiledRuleset, players: int, bots: Sequence[Any]) -> str | None:
    """Why the kernel cannot play these bots on this ruleset (None: it can), without
    compiling: the ruleset, the bots, or a cache its source cannot be written to."""
    reason = _quick_refusal(bots)
    if reason is not None:
        return reason
    from ruledraft.kernel import bots_refusal, cache_refusal, source_refusal

    named = [str(b) for b in bots]
    return source_refusal(ruleset, players, named) or bots_refusal(ruleset, named) or cache_refusal(ruleset)


def _quick_refusal(bots: Sequence[Any]) -> str | None:
    """What refuses the kernel before its source is written: a bot, or no numba."""
    import importlib.util

    from ruledraft.kernel import NO_NUMBA, bot_refusal

    for bot in bots:
        reason = bot_refusal(bot)
        if reason is not None:
            return reason
    if importlib.util.find_spec("numba") is None:
        return NO_NUMBA
    return None


def kernel_for(ruleset: CompiledRuleset, players: int, bots: Sequence[Any]) -> Any:
    """The compiled kernel (compiled now, or loaded from the cache) that plays these bots,
    or None when there is none (the reference engine plays: the games are the same)."""
    if kernel_refusal(ruleset, players, bots) is not None:
        return None
    from ruledraft.kernel import Kernel, compile_kernel

    made = compile_kernel(ruleset, players, apart=True)
    return made if isinstance(made, Kernel) and made.refuses(list(bots)) is None else None


def _load_seconds(ruleset: CompiledRuleset, bots: Sequence[Any], figures: bool) -> float:
    """About the processor seconds loading the ruleset's kernel from the cache costs (a
    seat that plans plays the planner's loop, which numba loads)."""
    from ruledraft.kernel import native_kept, plans

    return NATIVE_LOAD_SECONDS if not plans(bots) and native_kept(ruleset, figures) else LOAD_SECONDS


def reference_seconds(game: Game, bots: Sequence[str], games: int, sample: int = 3) -> float:
    """About the processor seconds ``games`` games of these bots take on the reference
    engine (a few played and timed)."""
    from ruledraft.engine.seeds import bot_seeds
    from ruledraft.play.agents import checked_act, make_agent

    started = time.process_time()  # processor time: what the machine's load does not change
    for i in range(sample):  # as the runner's play_game plays them: each bot handed its seat's view
        seed = game_seed(0, i)
        agents = [make_agent(b, s) for b, s in zip(bots, bot_seeds(seed, len(bots)))]
        state = game.new_initial_state(seed)
        uniform: list[Any] = [getattr(a, "uniform_random", None) for a in agents]
        if all(u is not None for u in uniform):  # the engine's own loop, as the runner's
            state.play_out(uniform)
        while not state.finished:
            state.apply_actions(
                [
                    state.sample_action(s, uniform[s])
                    if uniform[s] is not None
                    else checked_act(agents[s], bots[s], state, s, seed, foreign=False)
                    for s in state.acting_seats()
                ]
            )
    return (time.process_time() - started) / sample * games


def _compile_for_searches(ruleset: CompiledRuleset, players: int, bots: Sequence[Any]) -> None:
    """Where a seat plays ``ismcts`` with roll-outs the kernel can play (by card values,
    ``kernel=auto``: ``yes`` compiles it in the run) and the ruleset's roll-out is not in
    the cache, start compiling it in the background for later runs, as ``auto`` does for
    a kernel it would play:
    ``ismcts:kernel=auto`` never compiles in a game, so without this a search bot would
    roll out on the reference engine until another run left the kernel in the cache.
    Silent; nothing where ``RULEDRAFT_BACKGROUND_COMPILE=0`` or numba is missing."""
    import importlib.util

    if os.environ.get(BACKGROUND_COMPILE, "1") == "0" or not any(_search_kernel(b) == "auto" for b in bots):
        return
    if importlib.util.find_spec("numba") is None:
        return
    from ruledraft.kernel import is_cached, source_refusal, start_compiling

    if source_refusal(ruleset, players) is None and not is_cached(ruleset, "rollout"):
        start_compiling(ruleset)


def _search_kernel(bot: Any) -> str | None:
    """``bot``'s ``kernel`` option (``auto``, ``yes`` or ``no``) where it is a spec of
    ``ismcts`` rolling out by card values, else None."""
    from ruledraft.play.agents import parse_bot

    if not isinstance(bot, str) or bot.split(":", 1)[0].strip().lower() != "ismcts":
        return None  # (a bot from a file is not loaded again to ask)
    try:
        spec = parse_bot(bot)
    except InputError:
        return None
    options = spec.options
    if spec.kind.name != "ismcts" or options.get("rollout", "values") != "values":
        return None
    return str(options.get("kernel", "auto"))


def ready_searches(
    ruleset: CompiledRuleset,
    players: int,
    bots: Sequence[Any],
    compiling: Callable[[], AbstractContextManager[object]] | None = None,
    game: Game | None = None,
) -> None:
    """Where a seat plays ``ismcts:kernel=yes``, compile (or load) the kernel's roll-out
    now, before the run's clock starts and any worker forks, rather than in the middle
    of that seat's first decision; ``compiling`` is entered while one not in the cache
    yet compiles (a terminal shows what the wait is for). Nothing where the kernel
    cannot roll the ruleset out (the bot then rolls out on the reference engine)."""
    if not any(_search_kernel(b) == "yes" for b in bots):
        return
    import importlib.util

    if importlib.util.find_spec("numba") is None:
        return
    from ruledraft.kernel import is_cached
    from ruledraft.play.ismcts import kernel_rollouts

    cached = is_cached(ruleset, "rollout")
    waiting = compiling() if compiling is not None and not cached else contextlib.nullcontext()
    with waiting:
        kernel_rollouts(Game(ruleset, players) if game is None else game, compile=True)


def ready_searches_behind(ruleset: CompiledRuleset, players: int, bots: Sequence[Any]) -> None:
    """:func:`ready_searches` in a thread of its own, for a table that opens at once: a
    server's people choose their first cards while ``ismcts:kernel=yes`` has its
    roll-out compiled, and the bot's first decision waits only for what is left of
    that (``ismcts.kernel_rollouts`` lets one thread load it). An error is left for
    that decision to meet and report."""
    if not any(_search_kernel(b) == "yes" for b in bots):
        return

    def ready() -> None:
        with contextlib.suppress(Exception):
            ready_searches(ruleset, players, bots)

    threading.Thread(target=ready, name="ruledraft-ready-searches", daemon=True).start()


def kernel_refused(reason: str, where: str = "", option: str = "--engine ") -> InputError:
    """The error for the kernel asked for by name where it cannot play: ``reason`` says
    why, ``where`` names the run it stops at (a side, a player count, a figure), and
    ``option`` is how the choice is spelt (``--engine `` on the command line,
    ``engine=`` in Python)."""
    words = "reference or auto" if option.endswith(" ") else "'reference' or 'auto'"
    return InputError(f"{where + ': ' if where else ''}the kernel cannot play this: {reason} (use {option}{words})")


def refuse_unplayable(
    runs: Iterable[tuple[str, CompiledRuleset, int, Sequence[Any]]], option: str = "--engine "
) -> None:
    """``kernel`` asked for over several runs (label, ruleset, players, bots): the first
    the kernel cannot play refused by its label, before any run's kernel compiles."""
    for label, ruleset, players, bots in runs:
        reason = kernel_refusal(ruleset, players, bots)
        if reason is not None:
            raise kernel_refused(reason, label, option)


def choose_engine(
    ruleset: CompiledRuleset,
    players: int,
    bots: Sequence[Any],
    engine: str = "auto",
    games: int | None = None,
    *,
    game: Game | None = None,
    background: bool = True,
    compiling: Callable[[], AbstractContextManager[object]] | None = None,
    option: str = "--engine ",
    figures: bool = True,
) -> Engine:
    """The engine that plays ``games`` games of these bots (None: as many as it takes,
    the kernel if it can) -- see the module docstring. With ``kernel`` or ``auto``
    choosing it, the kernel is compiled (or loaded) here, before any worker starts,
    so workers forked from this process have it too. ``background``: ``auto`` may
    start the compiler in a process of its own. ``compiling``: entered while a kernel not
    in the cache yet is compiled before the run (half a minute or so): a terminal shows
    what the wait is for. A seat's ``ismcts:kernel=yes`` has its roll-out made ready here
    too (:func:`ready_searches`), whichever engine plays. ``option``: how a refusal names the
    choice (``--engine `` on the command line, ``engine=`` in Python). ``figures``: the run
    tallies the lab's figures, whose compiled fold is made ready with the kernel."""
    check_engine(engine)
    ready_searches(ruleset, players, bots, compiling, game)
    if engine == "reference":
        return Engine("reference")
    expected = math.inf  # seconds the run would take on the reference engine
    if engine == "auto" and games is not None:
        # what the kernel cannot play is said by the number of games, never by a timing,
        # so that the same command prints the same lines on any machine at any load
        reason = kernel_refusal(ruleset, players, bots)
        if reason is not None:
            if background:
                _compile_for_searches(ruleset, players, bots)
            return Engine("reference", f"engine: reference ({reason})" if games >= NOTE_GAMES else None)
        expected = reference_seconds(Game(ruleset, players) if game is None else game, list(bots), games)
        if expected < _load_seconds(ruleset, bots, figures):  # over before the kernel would be loaded: nothing to say
            return Engine("reference")
    reason = kernel_refusal(ruleset, players, bots)
    if reason is not None:
        if engine == "kernel":
            raise kernel_refused(reason, option=option)
        if background:
            _compile_for_searches(ruleset, players, bots)
        return Engine("reference", f"engine: reference ({reason})")
    from ruledraft.caches import cache_full
    from ruledraft.kernel import Kernel, Unsupported, compile_kernel, is_cached, is_cached_for, plans, start_compiling

    # a planner's loop too, and the lab's fold, compiled apart
    cached = is_cached_for(ruleset, bots) and (not figures or is_cached(ruleset, "fold"))
    if engine == "auto" and expected < COMPILE_SECONDS and not cached:
        if background and os.environ.get(BACKGROUND_COMPILE, "1") != "0":  # silently: the same lines either way
            start_compiling(ruleset, planner=plans(bots))
        return Engine("reference")
    waiting = compiling() if compiling is not None and not cached else contextlib.nullcontext()
    try:
        with waiting:
            made = compile_kernel(ruleset, players, apart=True)
            if isinstance(made, Kernel):  # the planner's loop now, before the run's clock starts and any worker forks
                made.ready_for(bots)
                if figures:
                    made.ready_fold()
    except OSError as e:  # a cache with no room left for what numba compiled: named, not "the output"
        full = cache_full(e)
        if full is None:
            raise
        made = Unsupported(full)
    if not isinstance(made, Kernel):
        if engine == "kernel":
            raise kernel_refused(made.reason, option=option)
        return Engine("reference", f"engine: reference ({made.reason})")
    if background and os.environ.get(BACKGROUND_COMPILE, "1") != "0":  # silently, for later runs
        from ruledraft.kernel import start_native

        start_native(made)
    return Engine("kernel")
