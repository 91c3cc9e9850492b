"""What every command shares: loading a ruleset and turning errors into messages."""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from ruledraft.errors import InputError, LineProblem, RuledraftError, RulesetError, ScoringError
from ruledraft.language.loading import check_ruleset
from ruledraft.play.words import shown as shown

if TYPE_CHECKING:  # rich is imported where it lays out text: a run with --json never does
    from rich.console import Console

#: the output was closed by its reader (`| head`): no message, the status a shell gives
#: a process SIGPIPE ends (128 + 13), so `replay bad.jsonl | head` never passes for clean
EXIT_PIPE_CLOSED = 141
#: a write that failed for want of room or of a working device: one line, exit 74 (EX_IOERR; cli/app.py)
NO_ROOM = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO})


class OutputRefused(RuledraftError):
    """A file the command writes opened, and then refused a write for a reason other
    than room (``/proc/self/status``: "Invalid argument"): status 74, as every output
    that could not be written."""

    status = 74


def cannot_write(error: BaseException | None) -> bool:
    """Whether ``error`` is a write that failed for want of room or of a working device,
    or to a standard output the command was started with closed: status 74."""
    from .streams import OutputClosed

    return isinstance(error, OSError) and (error.errno in NO_ROOM or isinstance(error, OutputClosed))


def counted(n: int, one: str, many: str | None = None) -> str:
    """``1 game``, ``8 games``; ``1 try``, ``8 tries``."""
    return f"{n} {one if n == 1 else many or one + 's'}"


def fail(message: str, code: int = 1) -> typer.Exit:
    """Print ``message`` on standard error and leave with ``code``."""
    typer.echo(message, err=True)
    raise typer.Exit(code)


def failed_bot(e: Exception) -> typer.Exit:
    """A bot's failure (:class:`~ruledraft.play.agents.BotFailure`) in one line, status 1;
    with ``RULEDRAFT_DEBUG`` set, the traceback of what its code raised first."""
    detail = getattr(e, "detail", "")
    if detail and os.environ.get("RULEDRAFT_DEBUG"):
        typer.echo(detail.rstrip("\n"), err=True)
    return fail(f"error: {shown(e)}", 1)


def stopped_words(played: int, requested: int, per_seating: int, seatings: int) -> str:
    """ "interrupted after N of M games", and for a line-up rotated through the seats, in
    which seating: its seats' figures then do not balance the bots over the seats."""
    words = f"interrupted after {played} of {requested} games"
    if seatings > 1 and per_seating > 0:
        words += (
            f" (in seating {min(played // per_seating + 1, seatings)} of {seatings}:"
            " the seats' figures do not balance the line-up)"
        )
    return words


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
    except LineProblem as e:  # located: "FILE:LINE:COLUMN: error: ...", as every located problem
        fail(f"{shown(e.where)}: error: {_safe(e.message)}", 2)  # a file name's line feed escaped, not broken at
    except InputError as e:
        fail(f"error: {_safe(e)}", 2)
    except ScoringError as e:  # already "FILE:LINE:COLUMN: error: ..."
        fail(e.format(), 1)
    except RuledraftError as e:
        if getattr(e, "detail", ""):  # a bot's failure (its module is not loaded for this)
            failed_bot(e)
        fail(f"error: {_safe(e)}", getattr(e, "status", 1))  # an output the disk had no room for: 74
    except BrokenPipeError:  # e.g. piped into `head`: the rest is unread, so never "all is well"
        pipe_closed()


def pipe_closed() -> NoReturn:
    """The output's reader closed it (``| head``): no message, exit
    :data:`EXIT_PIPE_CLOSED` as for SIGPIPE, so what was left unread is never taken for
    checked. Raised from a command (:func:`reported_errors`) or past it (``app``)."""
    try:  # nothing more reaches the closed pipe, not even Python's flush at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.stderr.close()
    raise SystemExit(EXIT_PIPE_CLOSED)


def _safe(error: object) -> str:
    """An error's words for the terminal, line by line: a name it quotes from the command
    line or a file (a bot's, say) may hold escape codes, which must not reach the terminal raw."""
    return "\n".join(shown(line) for line in str(error).split("\n"))


def say_problem(where: str, problem: str) -> str:
    """A record's problem on standard error as ``FILE:LINE: error: MESSAGE`` (a problem
    worded with its ``error:`` already keeps it), each line escaped; the line said."""
    said = _safe(problem if problem.startswith("error: ") else f"error: {problem}")
    text = f"{shown(where)}: {said}"  # the file's name whole on its line, a line feed in it escaped
    typer.echo(text, err=True)
    return text


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
    :func:`shown` with ``markup=True``.) Emoji codes are text too: ``:thumbs_up:`` in a
    name is printed as written, not as a picture."""
    from rich.console import Console

    return Console(stderr=stderr, markup=False, emoji=False)


def plus_minus() -> str:
    """``±`` as standard output prints it (``+/-`` where its encoding is ASCII): a table's
    columns are measured with what is printed in them."""
    from .streams import printable

    return printable("\u00b1", sys.stdout)


def print_parts(parts: Iterable[Any], out: Console | None = None) -> None:
    """Lines and rich tables on standard output, laid out by ``out`` (a new
    :func:`console` by default), without the spaces rich pads a centred title or a
    wrapped line with at its end: a line of text is printed as text, not markup. A
    table too wide for the terminal is printed :func:`fitted`."""
    out = out or console()
    with out.capture() as captured:
        for part in parts:
            if isinstance(part, str):
                out.print(part, markup=False, highlight=False)
            else:
                out.print(fitted(part, out))
    text = captured.get()
    sys.stdout.write("\n".join(line.rstrip(" ") for line in text.split("\n")))
    sys.stdout.flush()


def write_html_report(directory, *, err: bool = False, **report) -> None:
    """Write the report (:func:`ruledraft.lab.report.write_report`'s arguments) and
    print its ``file://`` URL (on standard error with ``err``, e.g. beside ``--json``).
    A disk too full for it raises :class:`OSError` naming the page (status 74, see cli/app.py)."""
    from ruledraft.lab.report import ReportError, write_report

    try:
        path = write_report(directory, **report)
    except ReportError as e:
        cause = e.__context__
        if isinstance(cause, OSError) and cannot_write(cause):  # a full disk: status 74, as for any output
            from ruledraft.lab.report import PAGE

            raise OSError(cause.errno, cause.strerror, os.path.join(os.fspath(directory), PAGE)) from None
        raise RuledraftError(f"--report {shown(e)}") from None
    typer.echo(f"report: {shown(path.resolve().as_uri())}", err=err)


def fitted(part: Any, out: Console) -> Any:
    """``part`` as it is where rich lays it out in ``out``'s width without cutting a cell
    short; else (rich would end a figure or a name with "…", or squeeze a column of names
    to nothing) the same table without its vertical lines and outer edge; where that is
    still too wide, its names fold onto more lines, and where even its figures whole do
    not fit, every cell folds: a narrow terminal gets every figure whole or folded,
    never one cut short."""
    from rich import box
    from rich.cells import cell_len
    from rich.table import Table

    if not isinstance(part, Table):
        return part
    unbounded = out.options.update_width(1 << 16)

    def widest(column: Any) -> int:
        return max((cell_len(str(c)) for c in (column.header, *column.cells)), default=0)

    def natural() -> int:
        """The table's width with no cell wrapped."""
        return out.measure(part, options=unbounded).maximum

    def figures_whole() -> bool:
        """Whether every figure fits whole with a few places left to each column of names."""
        spacing = natural() - sum(map(widest, part.columns))
        return spacing + sum(widest(c) if c.no_wrap else min(widest(c), 6) for c in part.columns) <= out.width

    names = [c for c in part.columns if not c.no_wrap]
    if natural() <= out.width or (all(c.overflow == "fold" for c in names) and figures_whole()):
        return part  # rich's own layout: nothing cut (names that fold, fold)
    part.box = box.SIMPLE_HEAD
    part.show_edge = False
    part.pad_edge = False
    part.collapse_padding = True  # two places between columns, not three
    if natural() <= out.width:
        return part
    for column in names if figures_whole() else part.columns:
        column.no_wrap = False
        column.overflow = "fold"
    return part
