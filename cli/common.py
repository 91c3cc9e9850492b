"""What every command shares: loading a ruleset and turning errors into messages."""

from __future__ import annotations

import contextlib
import sys
from typing import Iterator

import typer

from ruledraft.errors import InputError, RuledraftError, RulesetError, ScoringError
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
    except ScoringError as e:  # already "FILE:LINE:COLUMN: error: ..."
        fail(e.format(), 1)
    except RuledraftError as e:
        fail(f"error: {e}", 1)
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        raise typer.Exit(0)


def get_ruleset(source: str):
    """The compiled ruleset named by a bundled id or a path (errors are reported by the caller)."""
    return load_ruleset(source)


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


def ruleset_help() -> str:
    """The help of a ruleset argument: what it takes, naming the bundled rulesets."""
    from ruledraft.bundled import bundled_ids

    return f"A bundled ruleset ({', '.join(bundled_ids())}) or a rule file."


def bots_help(what: str) -> str:
    """The help of a --bots option: ``what`` it does, then the known bots."""
    from ruledraft.agents import agent_names

    return f"{what} Bots: {', '.join(agent_names())}."
