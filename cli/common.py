"""What every command shares: loading a ruleset and turning errors into messages."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator

import typer
from rich.console import Console

from ruledraft.errors import InputError, RuledraftError, RulesetError, ScoringError
from ruledraft.language.loading import check_ruleset


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``message`` on standard error and leave with ``code``."""
    typer.echo(message, err=True)
    raise typer.Exit(code)


def leave_interrupted(message: str, signum: int, said: bool) -> typer.Exit:
    """Leave a run a stop signal cut short with status 128 + ``signum``, saying
    ``message`` on standard error -- unless ``said`` (the summary on standard output
    ends with it) and both streams are this terminal, where it would show twice."""
    if said and sys.stdout.isatty() and sys.stderr.isatty():
        raise typer.Exit(128 + signum)
    return fail(message, 128 + signum)


@contextlib.contextmanager
def reported_errors() -> Iterator[None]:
    """Bad input becomes a message and a non-zero exit, never a traceback."""
    try:
        yield
    except RulesetError as e:
        for d in e.diagnostics:
            typer.echo(d.format(), err=True)
        raise typer.Exit(1) from None
    except InputError as e:
        fail(f"error: {e}", 2)
    except ScoringError as e:  # already "FILE:LINE:COLUMN: error: ..."
        fail(e.format(), 1)
    except RuledraftError as e:
        fail(f"error: {e}", 1)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        raise typer.Exit(0) from None


def get_ruleset(source: str, allow=()):
    """The compiled ruleset named by a bundled id or a path (errors are reported by the
    caller); its warnings go to standard error here, as ``validate`` would show them."""
    return checked_ruleset(source, allow).ruleset


def checked_ruleset(source: str, allow=()):
    """:func:`~ruledraft.language.loading.check_ruleset`'s result for a command that goes
    on to use the ruleset: :class:`RulesetError` on errors, warnings on standard error."""
    result = check_ruleset(source, allow=allow)
    if not result.ok:
        raise RulesetError([d for d in result.diagnostics if d.severity == "error"])
    if result.ruleset is not None and result.ruleset.unplayable is not None:  # a card library: play its menus
        raise RulesetError([result.ruleset.unplayable])
    for d in result.diagnostics:
        typer.echo(shown(d.format()), err=True)
    return result


def console(*, stderr: bool = False) -> Console:
    """A rich console that reads no markup: a table cell or title is printed as written,
    so ``[/]`` or ``[bold`` in a ruleset's, rule's or card's name is text, not a style.
    (A progress bar's description is read as markup by its column: pass it through
    :func:`shown` with ``markup=True``.)"""
    return Console(stderr=stderr, markup=False)


_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def shown(text: object, *, markup: bool = False) -> str:
    """Text from a rule file or a log made safe for the terminal.

    Control and format characters (ESC, BEL, bidi overrides, ...) are written as
    ``\\x1b``-style escapes so they never reach the terminal raw; with ``markup=True``
    the result is also escaped for rich, so ``[bold`` in a card's name is printed as
    written instead of being read as a style.
    """
    import unicodedata

    s = str(text)
    if not s.isprintable():
        s = "".join(
            c if c == " " or unicodedata.category(c) not in _INVISIBLE else c.encode("unicode_escape").decode("ascii")
            for c in s
        )
    if markup:
        from rich.markup import escape

        s = escape(s)
    return s


def ruleset_help(*, stdin: bool = False) -> str:
    """The help of a ruleset argument: what it takes, naming the bundled rulesets."""
    from ruledraft.language.bundled import bundled_ids

    also = ", or - for standard input" if stdin else ""
    return f"A bundled ruleset ({', '.join(bundled_ids())}) or a rule file{also}."


def bots_help(what: str) -> str:
    """The help of a --bots option: ``what`` it does, then the known bots."""
    from ruledraft.play.agents import agent_names

    return f"{what} Bots: {', '.join(agent_names())}."


ALLOW_PATH_HELP = (
    "A directory that rule files (their `extends:`) and game logs (their ruleset) may also "
    "read from; without it they reach only bundled rulesets and files in their own directory. "
    "Repeat for several."
)


def allow_path_option():
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


def report_option():
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
    cannot be written, or matplotlib is missing); None without the option."""
    if path is None:
        return None
    from ruledraft.lab.report import INSTALL, PlotsMissing, ReportError, prepare_directory

    try:
        return prepare_directory(path)
    except PlotsMissing:
        raise InputError(f"--report needs matplotlib, which is not installed: {INSTALL}") from None
    except ReportError as e:
        raise InputError(f"--report {shown(e)}") from None


def write_html_report(directory, *, err: bool = False, **report) -> None:
    """Write the report (:func:`ruledraft.lab.report.write_report`'s arguments) and
    print its ``file://`` URL (on standard error with ``err``, e.g. beside ``--json``)."""
    from ruledraft.lab.report import ReportError, write_report

    try:
        path = write_report(directory, **report)
    except ReportError as e:
        raise RuledraftError(f"--report {shown(e)}") from None
    typer.echo(f"report: {shown(path.resolve().as_uri())}", err=err)


def scheduler_option():
    """The ``--scheduler ADDRESS`` option (a Dask cluster's scheduler), the same on every
    command that plays games."""
    return typer.Option(
        None,
        "--scheduler",
        metavar="ADDRESS",
        help="Run the games on the Dask cluster of this scheduler (tcp://HOST:8786); needs ruledraft\\[dask].",
    )


def cluster_option():
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
    from ruledraft.play.cluster import ClusterError, parse_cluster, require_dask

    workers = parse_cluster(cluster) if cluster is not None else None
    if scheduler is not None and not scheduler.strip():
        raise InputError("--scheduler needs an address, such as tcp://10.0.0.5:8786")
    try:
        require_dask()
    except ClusterError as e:
        raise InputError(str(e)) from None
    if workers is None:
        return f"Dask scheduler {shown(scheduler, markup=True)}", None
    return f"local Dask cluster of {workers} worker{'s' if workers > 1 else ''}", workers
