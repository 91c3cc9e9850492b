"""The ``ruledraft`` command: one small module per command group."""

from __future__ import annotations

import os
import signal

import typer

from . import bench, bots, compare, play, replay, rulesets, schema, score, simulate, sweep, validate
from .common import shown

app = typer.Typer(
    name="ruledraft",
    help="Rules-as-data for card-drafting games: validate, show, score, simulate and play rulesets.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

app.command("rulesets")(rulesets.rulesets)
app.command("show")(rulesets.show)
app.command("validate")(validate.validate)
app.command("score")(score.score)
app.command("simulate")(simulate.simulate)
app.command("play")(play.play)
app.command("replay")(replay.replay)
app.command("bench")(bench.bench)
app.command("schema")(schema.schema)
app.command("bots")(bots.bots)
app.command("compare")(compare.compare)
app.command("sweep")(sweep.sweep)


@app.callback()
def _plugins(
    plugin: list[str] = typer.Option(
        [],
        "--plugin",
        metavar="MODULE_OR_FILE.py",
        help="Load scoring kinds and card effects from a Python module or file before the command runs (repeatable). "
        "Rule files can then use them; installed plug-ins load without it.",
        show_default=False,
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

    raise Interrupt(signum)


def _interrupt_behind(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (or SIGTERM's Interrupt) an exit was raised from, if any."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def _leaving() -> None:
    """On the way out, a further Ctrl-C or SIGTERM must not turn the exit into a traceback."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)


def main() -> None:
    """Entry point: any failure that slipped past the commands' own reporting still
    ends in a one-line message, never a traceback (set RULEDRAFT_DEBUG=1 to see it).
    Ctrl-C ends with status 130 and SIGTERM with 143, saying "interrupted"."""
    signal.signal(signal.SIGTERM, _terminated)
    try:
        app()
    except KeyboardInterrupt as e:
        _leaving()
        typer.echo("interrupted", err=True)
        raise SystemExit(128 + getattr(e, "signum", signal.SIGINT)) from None
    except SystemExit as e:  # typer turns an interrupt inside a command into a silent exit 130
        _leaving()
        stop = _interrupt_behind(e)
        if stop is None:
            raise
        typer.echo("interrupted", err=True)
        raise SystemExit(128 + getattr(stop, "signum", signal.SIGINT)) from None
    except Exception as e:  # noqa: BLE001 - the last line of defence
        _leaving()
        if os.environ.get("RULEDRAFT_DEBUG"):
            raise
        from ruledraft.language.kinds.registry import plugin_failure

        failure = plugin_failure(e)  # a plug-in's code failed, not ruledraft's
        if failure is not None:
            typer.echo(f"error: {shown(str(failure))}", err=True)
            raise SystemExit(2) from None
        typer.echo(f"ruledraft: internal error: {type(e).__name__}: {e} (set RULEDRAFT_DEBUG=1 for details)", err=True)
        raise SystemExit(70) from None
