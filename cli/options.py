"""The arguments and options several commands share, each declared once beside its parser.

A command declares a shared option by calling its function here as the parameter's
default (``seed: int = seed_option("Seed of the games")``). The option's names, its
default, its limits and the part of its help that says what it accepts are written
here once; a command passes only what differs (what the option means for it). The
parser next to each option checks a given value and turns it into what the command
uses, raising :class:`~ruledraft.errors.InputError` with the option's name.
"""

from __future__ import annotations

import signal
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import typer

from ruledraft.engine.state import MAX_SEED
from ruledraft.errors import InputError, stop_behind
from ruledraft.play.match import USUAL_PLAYERS
from ruledraft.play.match import usual_players as usual_players

from . import interrupts
from .common import console, shown

# ---------------------------------------------------------------------- the ruleset


def ruleset_help(*, stdin: bool = False) -> str:
    """The help of a ruleset argument: what it takes, naming the bundled rulesets."""
    from ruledraft.language.bundled import bundled_ids

    also = ", or - for standard input" if stdin else ""
    return f"A bundled ruleset ({', '.join(bundled_ids())}) or a rule file{also}."


def ruleset_argument(*, stdin: bool = False) -> Any:
    """The ``RULESET`` argument: a bundled id or a rule file (or ``-`` with ``stdin``)."""
    return typer.Argument(..., help=ruleset_help(stdin=stdin))


ALLOW_PATH_HELP = (
    "A directory that rule files (their `extends:`) and game logs (their ruleset) may also "
    "read from; without it they reach only bundled rulesets and files in their own directory. "
    "Repeat for several."
)


def allow_path_option() -> Any:
    """The ``--allow-path DIR`` option, the same on every command that loads rule files."""
    return typer.Option([], "--allow-path", metavar="DIR", help=ALLOW_PATH_HELP, show_default=False)


def allowed_dirs(paths) -> tuple:
    """The ``--allow-path`` values, each checked to be a directory (:class:`InputError` if not)."""
    import os
    import stat

    from ruledraft.language.file_access import display_name, os_reason

    dirs = []
    for p in paths or ():
        try:
            mode = os.stat(p).st_mode
        except (OSError, ValueError) as e:
            reason = os_reason(e) if isinstance(e, OSError) else "the name contains a NUL character"
            raise InputError(f"--allow-path {shown(display_name(p))}: {reason}") from None
        if not stat.S_ISDIR(mode):
            raise InputError(f"--allow-path {shown(display_name(p))}: not a directory")
        dirs.append(p)
    return tuple(dirs)


def plugin_option() -> Any:
    """The app's ``--plugin MODULE_OR_FILE.py`` option (before the command)."""
    return typer.Option(
        [],
        "--plugin",
        metavar="MODULE_OR_FILE.py",
        help="Load scoring kinds and card effects from a Python module or file before the command runs (repeatable). "
        "Rule files can then use them; installed plug-ins load without it.",
        show_default=False,
    )


# ---------------------------------------------------------------------- the match


def players_option(default: Any = None, help: str = "Number of players.", *, usual: bool = True) -> Any:
    """``--players/-p``: the number of players (``...`` when it must be given); a
    command that takes several counts says how in ``help``. Left out (None), it is
    :func:`~ruledraft.play.match.usual_players` (``usual``: the help says so; a command
    with a default of its own says it in ``help``)."""
    if default is None and usual:
        help = f"{help.rstrip('.')} (left out: {USUAL_PLAYERS}, or the nearest count the ruleset takes)."
    return typer.Option(default, "--players", "-p", help=help, show_default=default is not None)


def seed_option(what: str, more: str = "") -> Any:
    """``--seed/-s``, 0 by default: ``what`` it seeds, its range, then ``more``."""
    return typer.Option(0, "--seed", "-s", help=f"{what} (0 to {MAX_SEED}){more}.")


def bounded_option(
    default: Any, *names: str, low: float, high: float, help: str, metavar: str = "N", grouped: bool = True
) -> Any:
    """An option taking a number from ``low`` to ``high``, said in its help (as "Number of
    games (1 to 10,000,000)."), shown as ``metavar``. typer's own bounds would print
    ``<int range> [1<=x<=10000000]`` in the column of every option's kind, whose width
    then squeezes every option's help at 80 columns to some 24 characters a line.
    ``grouped``: thousands written with commas (not a port's number)."""

    def number(x: float) -> str:
        comma = "," if grouped else ""
        return f"{x:{comma}}" if isinstance(x, int) else f"{x:{comma}g}"

    said = f"{number(low)} to {number(high)}"

    def within(value: Any) -> Any:
        if value is not None and not low <= value <= high:
            raise typer.BadParameter(f"{number(value)} is out of range: {said}")
        return value

    if help.endswith(")."):  # "(0: skip)." -> "(0: skip; 0 to 256)."
        words = f"{help[:-2]}; {said})."
    else:
        words = f"{help[:-1]} ({said})." if help.endswith(".") else f"{help} ({said})"
    return typer.Option(default, *names, metavar=metavar, callback=within, help=words)


def games_option(help: str, fewest: int = 1) -> Any:
    """``--games/-g``: 1000 by default, from ``fewest`` to ten million."""
    return bounded_option(1000, "--games", "-g", low=fewest, high=10_000_000, help=help)


def bots_help(what: str) -> str:
    """The help of a --bots option: ``what`` it does, then the known bots."""
    from ruledraft.play.agents import agent_names

    return f"{what} Bots: {', '.join(agent_names())}."


def seat_bots_help(seats: str = "Bot per seat") -> str:
    """The help of a --bots that gives ``seats`` (whose bots) one bot each: how they
    are listed, how a bot is written, and the known bots."""
    return bots_help(
        f"{seats}, comma-separated; the last fills the remaining seats. Options after colons "
        "(value:tempura=3); your own bot as FILE.py:CLASS or MODULE:CLASS (see `ruledraft bots`)."
    )


#: the help of a --bots read as simulate's
SEAT_BOTS_AS_SIMULATE = "Bot per seat, comma-separated; the last fills the remaining seats (as simulate's)."


#: the bots of simulate, compare, quality and sweep when ``--bots`` is left out
USUAL_LINEUP = "greedy,random"


def lineup_option(help: str) -> Any:
    """``--bots/-b`` left out as None: :func:`usual_lineup` fills it (the help says so:
    click would write a default it is not given as ``(greedy,random)``)."""
    return typer.Option(None, "--bots", "-b", help=f"{help} Left out: {USUAL_LINEUP}.", show_default=False)


def usual_lineup(bots: str | None, players: int) -> str:
    """``--bots`` as given; left out, :data:`USUAL_LINEUP` cut to the seats there are
    (a one-player game plays ``greedy``)."""
    if bots is not None:
        return bots
    return ",".join(USUAL_LINEUP.split(",")[: max(players, 1)])


def bots_option(default: str, help: str) -> Any:
    """``--bots/-b``: bot specs, comma-separated, read by :func:`parse_bots`."""
    return typer.Option(default, "--bots", "-b", help=help)


def parse_bots(spec: str, players: int, *, card_ids: Sequence[str] | None = None, first_seat: int = 0) -> list[str]:
    """``greedy,random`` -> one bot spec per seat; the last fills the seats left. Each
    spec is ``NAME[:KEY=VALUE]...``, ``FILE.py:CLASS[:...]`` or ``MODULE:CLASS[:...]``
    (loaded and its options checked now; with ``card_ids``, card values too). The
    seats are filled by :func:`~ruledraft.play.runner.fill_seats`, as ``ruledraft.simulate`` fills them
    (``first_seat``: the seat of the first bot, people's before it)."""
    from ruledraft.play.agents import BotSpecError
    from ruledraft.play.runner import fill_seats

    try:
        return fill_seats(spec, players, card_ids, option="--bots", first_seat=first_seat)
    except BotSpecError as e:
        raise BotSpecError(shown(e)) from None


def log_option(help: str) -> Any:
    """``--log FILE``: where the games are written, none by default."""
    return typer.Option(None, "--log", help=help)


# ---------------------------------------------------------------------- where the games run


def jobs_option(what: str = "Processes", more: str = "") -> Any:
    """``--jobs/-j``, 1 by default: ``what`` the processes do, what it accepts, then ``more``;
    read by :func:`parse_jobs`."""
    return typer.Option("1", "--jobs", "-j", help=f"{what} (0 or auto: one per processor{more}).")


def parse_jobs(text: str) -> tuple[int, str | None]:
    """``--jobs``: a number of processes, or ``0``/``auto`` for every processor; more
    than there are processors is capped (with a note to say so)."""
    from ruledraft.play.runner import available_cores

    cores = available_cores()
    word = text.strip().lower()
    if word in ("auto", "0"):
        return cores, None
    try:
        jobs = int(word)
    except ValueError:
        jobs = -1
    if jobs < 0:
        raise InputError(
            f"--jobs takes a number of processes, or 0 or 'auto' for all {cores} processors, not {shown(text)!r}"
        )
    if jobs > cores:
        return (
            cores,
            f"note: --jobs {jobs} is more than the {cores} processor{'s' if cores > 1 else ''} here; using {cores}",
        )
    return jobs, None


def scheduler_option() -> Any:
    """The ``--scheduler ADDRESS`` option (a Dask cluster's scheduler), the same on every
    command that plays games."""
    return typer.Option(
        None,
        "--scheduler",
        metavar="ADDRESS",
        help="Run the games on the Dask cluster of this scheduler (tcp://HOST:8786); needs ruledraft\\[dask].",
    )


def cluster_option() -> Any:
    """The ``--cluster local:N`` option (a Dask cluster started for the run), the same on
    every command that plays games."""
    return typer.Option(
        None,
        "--cluster",
        metavar="local:N",
        help="Run the games on a Dask cluster of N worker processes started here for the run; needs ruledraft\\[dask].",
    )


def cluster_wanted(scheduler: str | None, cluster: str | None, jobs: str) -> tuple[str, int | None] | None:
    """``--scheduler``/``--cluster``: None for the local processes, else how to name the
    cluster in the summary and the number of local workers to start (None for a
    scheduler). :class:`InputError` for a wrong combination or a ``local:N`` that is
    not one, :class:`ClusterError` (saying how to install it) without dask."""
    if scheduler is None and cluster is None:
        return None
    if scheduler is not None and cluster is not None:
        raise InputError("--scheduler and --cluster exclude each other: give one")
    if jobs.strip() != "1":
        raise InputError("--jobs does not apply to a Dask cluster (its workers run the games): leave it out")
    from ruledraft.play.cluster import ClusterError, address_problem, parse_cluster, require_dask

    workers = parse_cluster(cluster) if cluster is not None else None
    if scheduler is not None and not scheduler.strip():
        raise InputError("--scheduler needs an address, such as tcp://10.0.0.5:8786")
    problem = address_problem(scheduler) if scheduler is not None else None
    if problem is not None:  # a command line that cannot be used: status 2, as an empty address
        raise InputError(problem)
    try:
        require_dask()
    except ClusterError as e:
        raise InputError(str(e)) from None
    if workers is None:
        return f"Dask scheduler {shown(scheduler, markup=True)}", None
    from ruledraft.play.runner import available_cores

    cores = available_cores()
    if workers > cores:  # as --jobs: more workers than processors only slow the run (and its stop)
        typer.echo(
            f"note: --cluster local:{workers} is more than the {cores} processor{'s' if cores > 1 else ''} here; "
            f"using {cores}",
            err=True,
        )
        workers = cores
    return f"local Dask cluster of {workers} worker{'s' if workers > 1 else ''}", workers


# ---------------------------------------------------------------------- what is printed


def json_option(what: str) -> Any:
    """``--json``: print ``what`` as JSON instead of the tables."""
    return typer.Option(False, "--json", help=f"Print {what} as JSON.")


def quiet_option() -> Any:
    """``--quiet/-q``: no progress bar."""
    return typer.Option(False, "--quiet", "-q", help="No progress bar.")


def report_option() -> Any:
    """The ``--report DIR`` option (an HTML report with plots), the same on every command that writes one."""
    return typer.Option(
        None,
        "--report",
        metavar="DIR",
        help="Also write an HTML report with plots to DIR/index.html (needs matplotlib, the plots extra).",
        show_default=False,
    )


def report_directory(path: str | None):
    """``--report DIR`` checked before any game is played (:class:`InputError` if it
    cannot be written, or matplotlib is missing; nothing is left made until the report
    is written); None without the option."""
    if path is None:
        return None
    from ruledraft.lab.report import INSTALL, PlotsMissing, ReportError, prepare_directory

    try:
        return prepare_directory(path, keep=False)
    except PlotsMissing:
        raise InputError(f"--report needs matplotlib, which is not installed: {INSTALL}") from None
    except ReportError as e:
        raise InputError(f"--report {shown(e)}") from None


#: ``--engine``'s help, where whole games of bots are played
ENGINE_HELP = (
    "Which engine plays the games (auto, kernel or reference); the results are the same. kernel: the compiled "
    "kernel, an error where it cannot play the ruleset or the bots; reference: the interpreter; auto: the "
    "kernel where it can play them and it pays, else the interpreter (a run of 1,000 games or more that the kernel "
    "cannot play says why in one line on standard error)."
)


def engine_option(default: str = "auto", help: str = ENGINE_HELP) -> Any:
    """``--engine kernel|reference|auto``: which engine plays the games (the same games either way)."""
    return typer.Option(default, "--engine", metavar="ENGINE", help=help)


def compiling_status(ruleset, quiet: bool) -> Callable[[], AbstractContextManager[Any]] | None:
    """What says, on a terminal, that a kernel is being compiled before a run (a status
    line that goes when the compile ends; nothing where standard error is not a
    terminal: the output stays the same whether the kernel was in the cache or not), or
    None (``quiet``). The console is made only where a compile starts (loading rich's
    takes a run from the cache about 0.01 s)."""
    if quiet:
        return None

    def status() -> AbstractContextManager[Any]:
        err = console(stderr=True)
        if not err.is_terminal:
            return nullcontext()
        return err.status(shown(f"compiling the kernel of {ruleset.id} (once: it is cached)", markup=True))

    return status


def chosen_engine(ruleset, players: int, bots, engine: str, games: int | None, game=None, quiet: bool = False) -> str:
    """The engine that plays (``kernel`` or ``reference``), the ``auto`` note said on
    standard error (``game``: the match's table, when there is one). While a kernel not
    in the cache yet compiles before the run, a terminal says so (not with ``quiet``)."""
    (name,) = chosen_engines({"": (ruleset, players, bots, game)}, engine, games, quiet).values()
    return name


def chosen_engines(
    runs: Mapping[str, tuple[Any, int, Any, Any]], engine: str, games: int | None, quiet: bool
) -> dict[str, str]:
    """:func:`chosen_engine` for each of several runs of one command (a side of
    ``compare``, a player count of ``sweep``), by name: ``runs[label]`` is (ruleset,
    players, bots, game). Their notes are said once each: a note that every run shares
    as it is, one that only some do with their labels (``engine (side B): reference
    (...)``). An ``--engine kernel`` the kernel cannot play names the run it stops at."""
    from ruledraft.play.engines import choose_engine, refuse_unplayable

    if engine == "kernel" and len(runs) > 1:  # a run it cannot play refused before another's kernel compiles
        refuse_unplayable((label, ruleset, players, bots) for label, (ruleset, players, bots, _) in runs.items())
    chosen = {}
    said: dict[str, list[str]] = {}
    for label, (ruleset, players, bots, game) in runs.items():
        if interrupts.PENDING:  # stopped while a kernel compiled: no game will be played, none compiles
            chosen[label] = "reference"
            continue
        try:
            made = choose_engine(
                ruleset, players, bots, engine, games, game=game, compiling=compiling_status(ruleset, quiet)
            )
        except KeyboardInterrupt as e:  # Ctrl-C while the kernel compiled: the run starts stopped, as one
            stop = stop_behind(e)  # sent just before it would (its summary of no game, "interrupted", 130)
            if stop is None:
                raise
            interrupts.PENDING = interrupts.PENDING or getattr(stop, "signum", signal.SIGINT)
            chosen[label] = "reference"
            continue
        except InputError as e:
            if len(runs) > 1:
                raise InputError(f"{label}: {e}") from None
            raise
        chosen[label] = made.name
        if made.note:
            said.setdefault(made.note, []).append(label)
    for note, labels in said.items():
        if len(labels) < len(runs) and note.startswith("engine: "):
            note = f"engine ({_labels(labels)}): {note.removeprefix('engine: ')}"
        typer.echo(shown(note), err=True)
    return chosen


def _labels(labels: list[str]) -> str:
    """``side B``; ``2 players``; ``2, 4 players`` (player counts given as ``N players``)."""
    counts = [label.removesuffix(" players") for label in labels]
    if len(labels) > 1 and all(label.endswith(" players") for label in labels):
        return ", ".join(counts) + " players"
    return ", ".join(labels)
