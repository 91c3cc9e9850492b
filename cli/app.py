"""The ``ruledraft`` command: one small module per command group."""

from __future__ import annotations

import os
import signal

import typer

from . import bench, play, replay, rulesets, score, simulate, validate

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

def _terminated(signum, frame) -> None:
    from ruledraft.runner import Interrupt

    raise Interrupt(signum)


def main() -> None:
    """Entry point: any failure that slipped past the commands' own reporting still
    ends in a one-line message, never a traceback (set RULEDRAFT_DEBUG=1 to see it)."""
    signal.signal(signal.SIGTERM, _terminated)  # SIGTERM ends like Ctrl-C, with status 143
    try:
        app()
    except KeyboardInterrupt as e:
        typer.echo("interrupted", err=True)
        raise SystemExit(128 + getattr(e, "signum", signal.SIGINT))
    except Exception as e:  # noqa: BLE001 - the last line of defence
        if os.environ.get("RULEDRAFT_DEBUG"):
            raise
        typer.echo(f"ruledraft: internal error: {type(e).__name__}: {e} (set RULEDRAFT_DEBUG=1 for details)", err=True)
        raise SystemExit(70)
