"""The ``ruledraft`` command: one small module per command group."""

from __future__ import annotations

import importlib
import inspect
import os
import signal
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

import typer

from ruledraft.errors import described, raised_by_stop, stop_behind

from . import interrupts
from .common import cannot_write, pipe_closed, shown
from .interrupts import exit_interrupted
from .options import plugin_option

#: the commands, in the order ``--help`` lists them: name -> (module of this package, function)
COMMANDS: dict[str, tuple[str, str]] = {
    "rulesets": ("rulesets", "rulesets"),
    "show": ("rulesets", "show"),
    "validate": ("validate", "validate"),
    "score": ("score", "score"),
    "simulate": ("simulate", "simulate"),
    "play": ("play", "play"),
    "replay": ("replay", "replay"),
    "bench": ("bench", "bench"),
    "schema": ("schema", "schema"),
    "bots": ("bots", "bots"),
    "compare": ("compare", "compare"),
    "sweep": ("sweep", "sweep"),
    "quality": ("quality", "quality"),
    "tune": ("tune", "tune"),
    "tournament": ("tournament", "tournament"),
    "serve": ("serve", "serve"),
}


class FlowingHelp(typer.core.TyperCommand):
    """A command whose help, in a terminal too narrow for its description's lines as
    written (each at most 78 characters, read as written at 80 columns), flows each
    paragraph to the width instead of breaking every line in two."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        from rich.console import Console
        from typer import rich_utils

        written = self.help
        width = Console(width=rich_utils.MAX_WIDTH).width
        if written:
            self.help = flowed(written, width - 2)
        names = ("Table", "Columns")
        kept = [getattr(rich_utils, name, None) for name in names]
        folds = width < 80 and None not in kept  # (a typer without them: its help as it is)
        if folds:
            for name, made in zip(names, folding(*kept)):
                setattr(rich_utils, name, made)
        try:
            super().format_help(ctx, formatter)
        finally:
            self.help = written
            if folds:
                for name, made in zip(names, kept):
                    setattr(rich_utils, name, made)


def folding(table: Any, columns: Any) -> tuple[Any, Any]:
    """rich's ``Table`` and ``Columns`` (``table``, ``columns``) made to fold a word too
    long for its column onto the next line, where rich cuts it with "...": in a terminal
    narrower than 80 columns the help's option tables leave the help a dozen characters,
    narrower than a long number or word. The tables' own columns fold, and so does each
    piece of text of an option's help (typer's ``Columns`` of them)."""

    class FoldingTable(table):
        def add_row(self, *renderables: Any, **options: Any) -> None:
            super().add_row(*renderables, **options)
            for column in self.columns:
                column.overflow = "fold"

    class FoldingColumns(columns):
        def __init__(self, renderables: Any = None, *args: Any, **options: Any) -> None:
            super().__init__(renderables, *args, **options)
            for piece in self.renderables:
                if hasattr(piece, "overflow"):  # rich's Text
                    piece.overflow = "fold"

    return FoldingTable, FoldingColumns


def flowed(help_text: str, room: int) -> str:
    """``help_text`` with each paragraph after the first (which the help joins itself)
    made one line, where one of its lines is longer than ``room``; a paragraph that
    starts with ``\\b`` (kept as written) and the others as they are."""
    first, *rest = inspect.cleandoc(help_text).split("\n\n")
    for i, paragraph in enumerate(rest):
        lines = paragraph.splitlines()
        if not paragraph.startswith("\b") and max(map(len, lines), default=0) > room:
            rest[i] = " ".join(line.strip() for line in lines)
    return "\n\n".join([first, *rest])


def make_app(names: Iterable[str] = COMMANDS) -> typer.Typer:
    """The command line with the commands ``names`` (each module imported here, and the
    lab's figures, which every run the command line makes counts: importing the lab makes
    it the runs' collector, ``register_collector``, whether or not the command's own
    module imports it, as ``bench``'s does not)."""
    importlib.import_module("ruledraft.lab.figures")
    made = typer.Typer(
        name="ruledraft",
        help="Rules-as-data for card-drafting games: validate, show, score, simulate and play rulesets.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )
    for name in names:
        module, function = COMMANDS[name]
        made.command(name, cls=FlowingHelp)(getattr(importlib.import_module(f"{__package__}.{module}"), function))
    made.callback()(_plugins)
    return made


def command_named(argv: Sequence[str]) -> str | None:
    """The command the arguments run, where they name one before any option but
    ``--plugin``; else None (``--help``, ``--version``, no command, a wrong one: what
    the whole command line answers)."""
    at = 0
    while at < len(argv):
        arg = argv[at]
        if arg == "--plugin":
            at += 2
        elif arg.startswith("--plugin="):
            at += 1
        elif arg.startswith("-"):
            return None
        else:
            return arg if arg in COMMANDS else None
    return None


def load(argv: Sequence[str]) -> None:
    """Import the command the arguments run (every command where they name none):
    ``ruledraft simulate ...`` loads the modules of ``simulate`` and not those of the
    fifteen others, about 0.03 s of processor time less (the launcher calls
    this while it loads, where an interrupt is said as one)."""
    command = command_named(argv)
    _LOADED[:] = [_made((command,) if command is not None else tuple(COMMANDS))]


def _made(names: tuple[str, ...]) -> typer.Typer:
    """:func:`make_app` of these commands, made once."""
    if names not in _APPS:
        _APPS[names] = make_app(names)
    return _APPS[names]


_APPS: dict[tuple[str, ...], typer.Typer] = {}
#: the command line :func:`load` made for this process's arguments
_LOADED: list[typer.Typer] = []


def __getattr__(name: str) -> Any:
    """``app``: the whole command line (every command), made on first use."""
    if name != "app":
        raise AttributeError(name)
    made = globals()["app"] = _made(tuple(COMMANDS))
    return made


def _version(value: bool) -> None:
    if value:
        from ruledraft.version import __version__

        typer.echo(f"ruledraft {__version__}")
        raise typer.Exit()


def _plugins(
    plugin: list[str] = plugin_option(),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print ruledraft's version and exit."
    ),
) -> None:
    """Rules-as-data for card-drafting games: validate, show, score, simulate and play rulesets."""
    from ruledraft.language.kinds import PluginError, load_plugin

    from .common import fail

    for spec in plugin:
        try:
            load_plugin(spec)
        except PluginError as e:
            fail(f"error: {e}", 2)


def _terminated(signum, frame) -> None:
    from ruledraft.play.runner import Interrupt

    interrupts.PENDING = signum
    raise Interrupt(signum)


def _leaving() -> None:
    """On the way out, a further Ctrl-C, SIGTERM or SIGHUP must not turn the exit into a traceback."""
    from ruledraft.play.executor import STOP_SIGNALS

    for sig in STOP_SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


EXIT_CANNOT_WRITE = 74


def _run() -> None:
    """The app, with standard output flushed before it returns: a full disk shows here,
    where it is reported, rather than at the interpreter's exit."""
    made = globals().get("app")  # the whole command line where it was asked for (or set, as tests do)
    if made is None:
        if not _LOADED:
            load(sys.argv[1:])
        made = _LOADED[0]
    try:
        made()
    finally:
        sys.stdout.flush()


def _output_lost(e: OSError) -> None:
    """Report a write to standard output (or any file the command did not report itself)
    that failed on a full disk, and point standard output at the null device so that
    the interpreter's own final flush has nothing left to fail on."""
    _leaving()
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    where = f" {e.filename}" if e.filename else " the output"
    typer.echo(f"ruledraft: cannot write{shown(where)}: {e.strerror}", err=True)
    raise SystemExit(EXIT_CANNOT_WRITE) from None


def main() -> None:
    """Entry point: any failure that slipped past the commands' own reporting still
    ends in a one-line message, never a traceback (set RULEDRAFT_DEBUG=1 to see it).
    Ctrl-C ends with status 130, SIGTERM with 143 and SIGHUP (the terminal closed,
    where nothing such as ``nohup`` ignores it) with 129, saying "interrupted"; output
    that cannot be written (a full disk) ends with status 74, saying so."""
    signal.signal(signal.SIGTERM, _terminated)
    if signal.getsignal(signal.SIGHUP) is not signal.SIG_IGN:
        signal.signal(signal.SIGHUP, _terminated)
    from ruledraft.play.executor import StopSignals

    before = StopSignals.__dict__["early"]
    StopSignals.early = interrupts.taken  # a stop signal whose interrupt went astray: the run starts stopped
    hook = sys.unraisablehook
    sys.unraisablehook = lambda raised: _unraisable(raised, hook)
    try:
        _guarded()
    finally:  # (for a caller that goes on, as the tests do: no signal remembered past this command)
        StopSignals.early = before
        interrupts.PENDING = 0
        sys.unraisablehook = hook


def _unraisable(raised: Any, hook: Callable[[Any], object]) -> None:
    """``hook``'s report of an error Python cannot raise (one in a finalizer), but not
    of the interrupt of a stop signal, which it would print as a traceback: the signal
    is remembered, and the command ends "interrupted" all the same."""
    if isinstance(raised.exc_value, KeyboardInterrupt) and interrupts.PENDING:
        return
    hook(raised)


def _plugin_fault(e: BaseException) -> None:
    """A failure of a plug-in's code, not ruledraft's (an error it raised, or ``sys.exit``
    it called, in a scoring rule or an effect): one line naming the plug-in, status 2."""
    from ruledraft.language.kinds.registry import plugin_failure

    failure = plugin_failure(e)
    if failure is not None:
        typer.echo(f"error: {shown(str(failure))}", err=True)
        raise SystemExit(2) from None


def _raised_by_code(e: BaseException) -> NoReturn:
    """A KeyboardInterrupt that no stop signal raised: a plug-in's (in a scoring rule or
    an effect), its failure; else, as no bot's move raised it (which names the bot), not
    "interrupted" but the internal error any other exception there would be."""
    _plugin_fault(e)
    if os.environ.get("RULEDRAFT_DEBUG"):
        raise e
    typer.echo(f"ruledraft: internal error: {described(e)} (set RULEDRAFT_DEBUG=1 for details)", err=True)
    raise SystemExit(70) from None


def _guarded() -> None:
    """:func:`_run`, every way out of it said in words (see :func:`main`). A stop signal
    that lands while that way out is being worked out (a second Ctrl-C just after the
    first ended the run) ends the command "interrupted" too, not in a traceback."""
    try:
        _way_out()
    except KeyboardInterrupt as e:
        if not raised_by_stop(e):  # code's own, raised again on purpose (RULEDRAFT_DEBUG)
            raise
        _leaving()
        exit_interrupted(e)


def _way_out() -> None:
    """:func:`_run`, and how it ended said (:func:`_guarded`)."""
    try:
        _run()
    except KeyboardInterrupt as e:
        by_code = not raised_by_stop(e)  # (each branch asks before _leaving() ignores SIGINT: see raised_by_stop)
        _leaving()
        if by_code:
            _raised_by_code(e)
        exit_interrupted(e)
    except SystemExit as e:  # typer turns an interrupt inside a command into a silent exit 130
        stop = stop_behind(e)
        _leaving()
        if isinstance(e.__context__, OSError) and cannot_write(e.__context__):
            _output_lost(e.__context__)
        if isinstance(e.__context__, BrokenPipeError) and e.code == 1:  # click's exit for a closed output
            pipe_closed()
        _plugin_fault(e)  # not the silent exit with the status the plug-in asked for
        if stop is None and e.code == 130:  # typer's exit for a KeyboardInterrupt code raised (see raised_by_stop)
            raised = stop_behind(e, by_code=True)
            if raised is not None:
                _raised_by_code(raised)
        if stop is None and e.code in (0, None) and interrupts.PENDING:
            # a stop signal whose interrupt a finalizer swallowed (Python printed it as ignored), as one while
            # --report draws can be: no run took it, and the command would have ended as if never stopped
            from ruledraft.play.runner import Interrupt

            stop = Interrupt(interrupts.PENDING)
        if stop is None:
            raise
        exit_interrupted(stop)
    except Exception as e:  # noqa: BLE001 - the last line of defence
        stop = stop_behind(e)  # one wrapped on its way (Python 3.11's RuntimeError from __set_name__)
        _leaving()
        if isinstance(e, OSError) and cannot_write(e):
            _output_lost(e)
        if isinstance(e, BrokenPipeError):
            pipe_closed()
        if stop is not None:
            exit_interrupted(stop)
        if os.environ.get("RULEDRAFT_DEBUG"):
            raise
        _plugin_fault(e)
        typer.echo(f"ruledraft: internal error: {type(e).__name__}: {e} (set RULEDRAFT_DEBUG=1 for details)", err=True)
        raise SystemExit(70) from None
