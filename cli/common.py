"""What every command shares: loading a ruleset and turning errors into messages."""

from __future__ import annotations

import contextlib
import sys
from typing import Iterator

import typer

from ruledraft.errors import InputError, RuledraftError, RulesetError
from ruledraft.loading import load_ruleset


def fail(message: str, code: int = 1) -> "typer.Exit":
    """Print ``message`` on standard error and leave with ``code``."""
    typer.echo(message, err=True)
    raise typer.Exit(code)


@contextlib.contextmanager
def reported_errors() -> Iterator[None]:
    """Bad input becomes a message and a non-zero exit, never a traceback."""
    try:
        yield
    except RulesetError as e:
        for d in e.diagnostics:
            typer.echo(d.format(), err=True)
        raise typer.Exit(1)
    except InputError as e:
        fail(f"error: {e}", 2)
    except RuledraftError as e:
        fail(f"error: {e}", 1)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        raise typer.Exit(0)


def get_ruleset(source: str):
    """The compiled ruleset named by a bundled id or a path (errors are reported by the caller)."""
    return load_ruleset(source)
