"""``ruledraft bots``: the bots known by name, what they do and the options they take."""

from __future__ import annotations

import typer

from ruledraft.play.agents import bot_kinds_loaded

from .common import reported_errors, shown
from .terminal import terminal_width, wrapping


def bots() -> None:
    """List the bots, with their options and defaults.

    A bot is named in --bots as NAME, with options after colons
    (NAME:KEY=VALUE:KEY=VALUE); your own as FILE.py:CLASS or MODULE:CLASS (options
    after further colons). Installed packages add bots through the entry point
    group ruledraft.bots.
    """
    with reported_errors():
        echo = wrapping(typer.echo, terminal_width())  # every line within the terminal's width
        kinds, failed = bot_kinds_loaded()
        for kind in kinds:
            echo(f"{shown(kind.name)}: {shown(kind.summary)}" if kind.summary else shown(kind.name))
            for option in kind.options:
                line = f"  {shown(option.describe())}"
                echo(f"{line}: {shown(option.help)}" if option.help else line)
            if kind.card_values:
                echo("  CARD=number (default from the ruleset): the value of a card type, by card id")
        echo("")
        echo("Options: NAME:KEY=VALUE:KEY=VALUE. Your own bot: FILE.py:CLASS or MODULE:CLASS[:KEY=VALUE].")
        for e in failed:  # an installed bot that does not load: the others are listed all the same
            typer.echo(f"error: {shown(str(e))}", err=True)
        if failed:
            raise typer.Exit(2)
