"""The functions of the Python API (``import ruledraft``) that are more than a name
re-exported: each takes a ruleset as a compiled one or as a bundled id or a path, and
fills bots into seats as the command line does.

The package's ``__init__`` imports this module only when one of its names is first
used, so ``import ruledraft`` (and the ``ruledraft`` command's start) stays quick.
"""

from __future__ import annotations

import contextlib
import os
import signal
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TextIO

from ruledraft.engine.state import Game, State
from ruledraft.engine.table_scoring import table_sheet
from ruledraft.errors import ArgumentError, InputError, ReplayMismatch, RulesetError, truth_value, whole_number
from ruledraft.language import loading
from ruledraft.language.bundled import OutOfReach, bundled_ids
from ruledraft.language.file_access import UnreadableInput, input_kind
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play import runner
from ruledraft.play.agents import is_foreign, make_agent, parse_bot
from ruledraft.play.engines import ENGINES
from ruledraft.play.executor import UNANSWERED
from ruledraft.play.game_log import read_records, record_problems, replay_game
from ruledraft.play.log_target import open_log
from ruledraft.play.match import Match, check_seed, fill_seats

__all__ = [
    "bundled_rulesets",
    "check_ruleset",
    "load_ruleset",
    "play_game",
    "read_log",
    "replay",
    "score_table",
    "simulate",
    "tournament",
]

PathText = str | os.PathLike[str]
#: a ruleset as the functions here take it: compiled, or a bundled id or a path to load
RulesetLike = CompiledRuleset | str | os.PathLike[str]
#: the bots of a table: ``"greedy,random"`` or ``["greedy", "random"]`` (bot specs)
Bots = str | Sequence[Any]

DEFAULT_BOTS = "greedy,random"  # what `ruledraft simulate` plays without --bots
MAX_GAMES = 10_000_000  # the most games one call plays, as `--games` takes
MAX_TOURNAMENT_GAMES = 1_000_000  # the most games of a tournament's line-up, as `tournament --games` takes


def bundled_rulesets() -> list[str]:
    """The ids of the rulesets that ship with ruledraft (``sushi-go``, ...), sorted."""
    return bundled_ids()


def check_ruleset(
    source: PathText | None = None,
    *,
    text: str | None = None,
    name: str = "<text>",
    allow_paths: Sequence[PathText] = (),
) -> loading.CheckResult:
    """Load, check and compile a ruleset, returning every problem instead of raising.

    ``source`` is a bundled id (``"sushi-go"``) or a path to a rule file; or give
    the rule file's ``text`` instead (its messages name it ``name``; its
    ``extends:`` is resolved from the current directory). ``allow_paths`` lists
    directories a rule file's ``extends:`` may also reach (``--allow-path``).

    The result has ``ok``, ``ruleset`` (the compiled ruleset, or None) and
    ``diagnostics`` (each a :class:`~ruledraft.errors.Diagnostic`: ``file``,
    ``line``, ``column``, ``message``, ``severity``; ``format()`` gives
    ``FILE:LINE:COLUMN: error: MESSAGE``). :class:`~ruledraft.errors.InputError`
    only when ``source`` names no ruleset or file that can be read.
    """
    if (source is None) == (text is None):
        raise TypeError("give either a ruleset's source (a bundled id or a path) or its text=")
    if source is not None and not isinstance(source, (str, os.PathLike)):
        raise ArgumentError(f"a ruleset's source is a bundled id or a path, not {source!r}")
    if text is not None and not isinstance(text, str):
        raise ArgumentError(f"text is a rule file's text, not {text!r}")
    if text is not None:
        return loading.check_ruleset(name, allow=tuple(allow_paths), text=text)
    assert source is not None
    return loading.check_ruleset(source, allow=tuple(allow_paths))


def load_ruleset(
    source: PathText | None = None,
    *,
    text: str | None = None,
    name: str = "<text>",
    allow_paths: Sequence[PathText] = (),
) -> CompiledRuleset:
    """The compiled ruleset of a bundled id, a rule file or rule-file ``text``.

    Arguments as for :func:`check_ruleset`. A rule file with problems raises
    :class:`~ruledraft.errors.RulesetError`: its ``diagnostics`` list every one, and
    its message is one ``FILE:LINE:COLUMN: error: MESSAGE`` line per problem. A
    name that is neither a bundled id nor a readable file raises
    :class:`~ruledraft.errors.InputError`.
    """
    result = check_ruleset(source, text=text, name=name, allow_paths=allow_paths)
    if not result.ok:
        raise RulesetError([d for d in result.diagnostics if d.severity == "error"])
    assert result.ruleset is not None  # ok means compiled
    return result.ruleset


def _compiled(ruleset: RulesetLike) -> tuple[CompiledRuleset, Any, tuple[str, ...]]:
    """The compiled ruleset, and (when loaded here) the checked document it came from,
    which worker processes get where they cannot be forked, and the files read (the rule
    file, then those it extends)."""
    if isinstance(ruleset, CompiledRuleset):  # its rule file, when it was read from one (a log must not be it)
        return ruleset, None, (ruleset.source,) if os.path.isfile(ruleset.source) else ()
    if not isinstance(ruleset, (str, os.PathLike)):
        raise ArgumentError(f"ruleset must be a compiled ruleset, a bundled id or a path, not {ruleset!r}")
    result = check_ruleset(ruleset)
    if not result.ok:
        raise RulesetError([d for d in result.diagnostics if d.severity == "error"])
    assert result.ruleset is not None
    return result.ruleset, result.document, result.files


def play_game(
    ruleset: RulesetLike, players: int = 4, bots: Bots = DEFAULT_BOTS, seed: int = 0, engine: str = "reference"
) -> State:
    """Play one game with bots to the end; the finished :class:`~ruledraft.engine.state.State`.

    ``bots`` name one bot per seat as ``--bots`` does (``"greedy,random"``, or a
    list of specs such as ``"value:tempura=3"`` or ``"mybot.py:MyBot"``); the last
    fills the seats left. An entry may also be an agent object (``name`` and
    ``act(view, seat)``), which then plays its seat (and, repeated, the seats
    after it) as it is. Only the seats that act are asked, each with its seat's
    view (:class:`~ruledraft.engine.view.SeatView`): every player during the picks,
    the one deciding seat while a card effect waits for a decision. Every move is
    checked. Bots made from specs are seeded from ``seed`` as in ``simulate``, so a
    game with a given seed is the same game every time.

    ``engine``: ``reference`` (the default: one game seldom pays for loading the
    compiled kernel), ``kernel`` (compiled first if it is not in the cache; bots
    named by spec only; an :class:`~ruledraft.errors.InputError` naming why where it
    cannot play) or ``auto`` (the kernel where a seat plans, whose moves cost enough
    to pay for loading it, and the kernel is in the cache; else the reference engine). Either engine plays the same game: the
    kernel's moves are played again on the reference engine for the state returned.

    The state gives ``totals()``, ``winners``, ``score_sheet()``, ``history``;
    :func:`~ruledraft.play.game_log.record_game` turns it into a log record.
    :class:`~ruledraft.errors.InputError` for a player count the ruleset does not
    take or a bot that cannot be made; :class:`~ruledraft.play.agents.BotFailure`
    when a bot from outside (a file, a module, an object) raises or picks an
    illegal move.
    """
    if engine not in ENGINES:
        raise ArgumentError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    rs = _compiled(ruleset)[0]
    seed, players = _checked_seed(seed), whole_number(players, "players")
    game = Game(rs, players)
    seats = fill_seats(bots, players, rs.catalogue.ids)
    if all(isinstance(s, str) for s in seats):
        named = list(seats)
        kernel = _one_game_kernel(rs, players, named, engine)
        if kernel is not None:
            return runner.kernel_game(kernel, game, seed, named)
        with _plugin_errors():
            return runner.play_game(game, seed, named)  # the same game simulate plays for this seed
    if engine == "kernel":
        raise ArgumentError("engine='kernel' plays bots named by spec only, not agent objects")
    for s in seats:
        if isinstance(s, type):
            raise TypeError(
                f"bots are specs or agent objects, not the class {s.__name__}: pass {s.__name__}(seed), or register it"
            )
    seeds = runner.bot_seeds(seed, players)
    agents = [make_agent(s, seeds[n]) if isinstance(s, str) else s for n, s in enumerate(seats)]
    names = [s if isinstance(s, str) else str(getattr(s, "name", type(s).__name__)) for s in seats]
    foreign = [not isinstance(s, str) or is_foreign(s) for s in seats]
    with _plugin_errors():
        return runner.play_game(game, seed, names, agents, foreign=foreign)


@contextlib.contextmanager
def _plugin_errors() -> Iterator[None]:
    """An error raised by a plug-in's code (a scoring rule of a plug-in kind, a card
    effect) becomes the :class:`~ruledraft.language.kinds.PluginError` naming the
    plug-in's file and line, as ``simulate`` and the command line say it (the error
    itself its cause); any other error passes as it is."""
    try:
        yield
    except Exception as e:
        from ruledraft.errors import RuledraftError
        from ruledraft.language.kinds.registry import plugin_failure

        failure = None if isinstance(e, RuledraftError) else plugin_failure(e)
        if failure is None:
            raise
        raise failure from e


def _one_game_kernel(ruleset: CompiledRuleset, players: int, bots: list[str], engine: str) -> Any:
    """The kernel that plays one game of these bots, or None (the reference engine plays)."""
    from ruledraft.play.engines import choose_engine, kernel_for

    if engine == "reference":
        return None
    if engine == "auto":  # one game pays for loading the kernel only where a seat plans
        from ruledraft.kernel import is_cached_for, plans

        return kernel_for(ruleset, players, bots) if plans(bots) and is_cached_for(ruleset, bots) else None
    choose_engine(
        ruleset, players, bots, "kernel", 1, background=False, option="engine=", figures=False
    )  # why it cannot, if not
    from ruledraft.kernel import compile_kernel

    return compile_kernel(ruleset, players, apart=True)  # the one choose_engine made (remembered per process)


def simulate(
    ruleset: RulesetLike,
    players: int = 4,
    games: int = 1000,
    bots: Bots = DEFAULT_BOTS,
    seed: int = 0,
    jobs: int = 1,
    isolate: bool = False,
    engine: str = "auto",
    log: PathText | TextIO | None = None,
) -> runner.Summary:
    """Play ``games`` games between bots and summarise them: what ``ruledraft simulate`` prints.

    ``bots`` as ``--bots`` takes them (``"greedy,random"`` or a list of specs; the
    last fills the seats left), so ``simulate("sushi-go", bots=["greedy"])`` is
    ``ruledraft simulate sushi-go --bots greedy``. Game ``i`` is seeded from ``seed``
    and ``i``; ``jobs`` processes (0: one per processor) give the same figures as
    one. ``isolate`` runs each bot from a file, a module or a package in a process of
    its own, sent only its seat's view (``--isolate``). Returns a
    :class:`~ruledraft.play.runner.Summary`: per seat the bot, win
    share, mean score, spread and mean points per scoring rule; ``to_json()`` is
    ``--json``. Ctrl-C stops it early (``Summary.interrupted``), as on the command
    line; SIGTERM stops it as cleanly (workers ended, the log's lines whole), then is
    raised again, so that the program ends as it asked (or its own handler runs).
    ``engine`` as ``--engine``: ``auto`` (the compiled kernel where it can play
    the ruleset and the bots and it pays), ``kernel`` or ``reference``; the figures
    are the same on both engines (:func:`ruledraft.play.engines.choose_engine` says
    which plays, and why): ``Summary.engine`` names it, and where ``auto`` plays on the
    reference engine a run of 1,000 games or more warns why (a :class:`UserWarning`
    with the line ``--engine auto`` prints). ``log``, a path (created or replaced) or a
    text stream, receives every game's record as a line of JSON in game order, as ``--log``
    writes them (:func:`read_log` and :func:`replay` read them back); a stopped run
    leaves exactly the games it counted.

    :class:`~ruledraft.errors.InputError` for a player count the ruleset does not
    take, an unusable bot, or ``engine="kernel"`` where the kernel cannot play;
    :class:`~ruledraft.errors.ArgumentError` (an ``InputError`` and a ``ValueError``)
    for a seed outside 0..2**53-1, fewer than one game or more than 10,000,000 (as
    ``--games``), a negative ``jobs``, an unknown engine, ``bots`` or ``ruleset`` of
    another type, ``isolate`` not True or False, or ``isolate`` with a bot registered
    in this process (which a process of its own cannot make).
    """
    rs, document, files = _compiled(ruleset)
    players, games, seed, jobs = _run_numbers(players, games, seed, jobs)
    if engine not in ENGINES:
        raise ArgumentError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    match = Match.build(rs, players, bots, seed, document=document, seed_error=ArgumentError)
    if truth_value(isolate, "isolate"):
        _check_isolable(match.bots)
    from ruledraft.lab.figures import LabTally
    from ruledraft.play.engines import choose_engine

    jobs = jobs or runner.available_cores()
    chosen = choose_engine(rs, players, match.bots, engine, games, game=match.game, option="engine=")
    if chosen.note:  # what --engine auto says on standard error, as a warning (shown once for each place it is from)
        warnings.warn(chosen.note, UserWarning, stacklevel=2)
    with _log_stream(log, files) as stream:
        summary = runner.simulate_match(
            match,
            games,
            jobs=jobs,
            collector=LabTally.for_game,
            isolate=isolate,
            engine=chosen.name,
            on_lines=None if stream is None else _writer(stream),
        )
    _end_if_terminated(summary.signal)
    return summary


def _end_if_terminated(signum: int) -> None:
    """After a run stopped cleanly by SIGTERM (or SIGHUP), the signal again: a library
    does not swallow a request to end the program (the handler in place again: the
    default ends the process, or the caller's own runs)."""
    if signum in UNANSWERED:
        signal.raise_signal(signum)


def _writer(stream: TextIO) -> Callable[[str], None]:
    def write(lines: str) -> None:
        stream.write(lines)

    return write


@contextlib.contextmanager
def _log_stream(log: PathText | TextIO | None, files: Sequence[str]) -> Iterator[TextIO | None]:
    """``simulate``'s ``log``: a text stream as it is, a path opened for writing (and
    closed after), or None; :class:`InputError` naming a path that cannot be written or
    is one the run reads (``files``: the rule file and those it extends; a plug-in's or
    a bot's code), which the log would overwrite, or that is no regular file (a FIFO
    would never be read); :class:`ArgumentError` for a ``log`` of another type."""
    if log is None:
        yield log
        return
    if hasattr(log, "write"):
        try:
            log.write("")  # a stream of bytes, read-only or closed refuses text now, not after the games
        except (TypeError, ValueError, OSError) as e:
            raise ArgumentError(f"log must be a text stream open for writing, not {log!r} ({e})") from None
        yield log  # type: ignore[misc]  # a stream, written by the caller's rules
        return
    if not isinstance(log, (str, os.PathLike)):
        raise ArgumentError(f"log must be a path or a text stream, not {log!r}")
    fd, _regular = open_log(os.fspath(log), files, option="log")
    with open(fd, "w", encoding="utf-8", newline="\n") as fh:
        yield fh


def _check_isolable(bots: Sequence[str]) -> None:
    """``isolate`` runs a bot in a process of its own by its spec: a bot registered in
    this process by :func:`register_agent` cannot be (that process has no such name),
    and is refused rather than run unisolated beside the others."""
    registered = [b for b in dict.fromkeys(bots) if is_foreign(b) and not parse_bot(b).kind.foreign]
    if registered:
        names = ", ".join(repr(b) for b in registered)
        raise ArgumentError(
            f"isolate=True cannot isolate {names}, registered in this process: name the bot as FILE.py:CLASS or "
            "MODULE:CLASS, which its own process loads"
        )


def _checked_seed(seed: Any) -> int:
    """``seed`` as a whole number within the seeds' range (:class:`ArgumentError` if not)."""
    seed = whole_number(seed, "seed")
    check_seed(seed, error=ArgumentError)
    return seed


def _run_numbers(players: Any, games: Any, seed: Any, jobs: Any, most: int = MAX_GAMES) -> tuple[int, int, int, int]:
    """A run's numbers, each a whole number in its range (:class:`ArgumentError` if not)."""
    players, games, jobs = whole_number(players, "players"), whole_number(games, "games"), whole_number(jobs, "jobs")
    seed = _checked_seed(seed)
    if games < 1:
        raise ArgumentError(f"games must be at least 1, not {games}")
    if games > most:
        raise ArgumentError(f"games must be at most {most:,} (as --games), not {games}")
    if jobs < 0:
        raise ArgumentError(f"jobs must be 0 (one per processor) or more, not {jobs}")
    return players, games, seed, jobs


def score_table(
    ruleset: RulesetLike, table: Mapping[str, Any], *, partial: bool = False, rules: bool = False
) -> dict[str, Any]:
    """Score a finished table without playing it: what ``ruledraft score`` prints for it.

    ``table`` is ``{"rounds": [[[seat 0's card ids in play order], ...], ...]}``
    (``schemas/score-table.schema.json``). Returns ``{"rounds", "game_end",
    "totals", "winners"}`` (and ``"rules"``, each scoring rule's points, with
    ``rules=True``, as ``--rules``). A table needs every round of the game unless
    ``partial``; one that is not a table of the ruleset raises
    :class:`~ruledraft.errors.InputError` (a ``TableError`` whose ``lines`` are
    ``table: error: PATH: MESSAGE``).
    """
    rs = _compiled(ruleset)[0]
    partial, rules = truth_value(partial, "partial"), truth_value(rules, "rules")
    with _plugin_errors():
        return table_sheet(rs, table, "table", partial=partial).to_json(rules=rules)


def read_log(path: PathText) -> list[dict[str, Any]]:
    """The records of a game log (JSON Lines, as ``simulate --log`` writes), in order.

    Each record is checked against ``schemas/game-log.schema.json``; a line that is
    not JSON or not a game record raises :class:`~ruledraft.errors.InputError`
    naming ``FILE:LINE`` and the problem.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentError(f"path is a game log's path, not {path!r}")
    name = os.fspath(path)
    try:
        input_kind(name)  # a FIFO, a device, a directory: refused before any open
    except UnreadableInput as e:
        raise InputError(str(e)) from None
    records = []
    for line, record in read_records(name):
        if isinstance(record, InputError):
            raise record
        problems = record_problems(record)
        if problems:
            raise InputError(f"{name}:{line}: " + "; ".join(p.removeprefix("error: ") for p in problems))
        records.append(record)
    return records


def replay(
    record: Mapping[str, Any], ruleset: RulesetLike | None = None, *, allow_paths: Sequence[PathText] = ()
) -> State:
    """Play a logged game again under its ruleset; the finished :class:`~ruledraft.engine.state.State`.

    Every pick is checked against the rules and every score against the scoring,
    as ``ruledraft replay`` does; no bot is run. ``ruleset`` defaults to the one
    the record names: its rule file when that is in the current directory or one
    of ``allow_paths``, else its id (a bundled ruleset). A record that does not
    replay clean raises :class:`~ruledraft.errors.ReplayMismatch` listing the
    problems; one that is no JSON object (a mapping) raises :class:`~ruledraft.errors.InputError`.
    """
    if not isinstance(record, Mapping):
        raise InputError(f"a game record is a mapping (a JSON object, a line of a log), not {type(record).__name__}")
    if ruleset is None:
        named = record.get("ruleset")
        path = record.get("ruleset_file")  # the rule file it was played from, when that is still there
        if isinstance(path, str) and path and (not isinstance(named, str) or os.path.lexists(path)):
            named = path
        if not isinstance(named, str):
            raise InputError("the record names no ruleset; pass ruleset=")
        try:
            rs = loading.load_named_ruleset(named, base=".", allow=(".", *allow_paths), within_what="the record")
        except OutOfReach as e:
            raise InputError(f"{e} (or pass ruleset=)") from None
    else:
        rs = _compiled(ruleset)[0]
    state, problems = replay_game(rs, record)
    if state is None:
        raise ReplayMismatch("; ".join(p.removeprefix("error: ") for p in problems))
    return state


def tournament(
    ruleset: RulesetLike,
    bots: Bots,
    players: int = 4,
    games: int = 200,
    seed: int = 0,
    jobs: int = 1,
) -> dict[str, Any]:
    """Play every line-up of ``bots`` (``"planner,greedy,random"`` or a list of specs)
    at ``players`` seats, seats rotated on the same deals: what ``ruledraft
    tournament`` prints, as its ``--json`` document (``ranking``: each bot's win share
    with its 95% Wilson interval, OpenSkill rating and time per decision;
    ``lineups``: each line-up's shares). ``games`` per line-up; ``jobs`` processes
    (0: one per processor) give the same figures but the times; at most 1,000,000
    games a line-up, as ``--games``. Ctrl-C stops it early (``interrupted``); SIGTERM
    stops it as cleanly, then is raised again, as in :func:`simulate`. See
    :mod:`ruledraft.lab.tournament`."""
    from ruledraft.lab.tournament import run_tournament

    rs, document, _files = _compiled(ruleset)
    if not isinstance(bots, (str, list, tuple)):
        raise ArgumentError(f"bots are bot specs such as 'planner,greedy,random' or a list of them, not {bots!r}")
    names = [b.strip() for b in bots.split(",")] if isinstance(bots, str) else list(bots)
    if not all(isinstance(n, str) for n in names):
        raise TypeError("tournament takes bot specs (text), not agent objects: register the bot or name its class")
    if len(dict.fromkeys(names)) < 2:  # a line-up holds two different bots at least
        raise InputError(f"a tournament needs at least two different bots, not {names!r}")
    players, games, seed, jobs = _run_numbers(players, games, seed, jobs, most=MAX_TOURNAMENT_GAMES)
    result = run_tournament(rs, names, players, games, seed, jobs=jobs or runner.available_cores(), document=document)
    _end_if_terminated(result.pop("signal", 0))
    return result
