"""``ruledraft rulesets`` and ``ruledraft show``: what is bundled, and what a ruleset says."""

from __future__ import annotations

import typer

from ruledraft.language.bundled import bundled_ids, bundled_path
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import load_ruleset

from .common import get_ruleset, reported_errors, shown
from .options import allow_path_option, allowed_dirs, ruleset_argument
from .terminal import terminal_width, wrapping


def rulesets() -> None:
    """List the bundled rulesets."""
    with reported_errors():
        ids = bundled_ids()
        width = max([28, *map(len, ids)])  # the ids line up, however long
        for rid in ids:
            path = bundled_path(rid)
            assert path is not None  # every listed id has its file
            rs = load_ruleset(path)
            players = f"{rs.min_players}-{rs.max_players}" if rs.min_players != rs.max_players else str(rs.min_players)
            typer.echo(f"{rid:<{width}} {shown(rs.name)} ({players} players)")


def show(
    ruleset: str = ruleset_argument(stdin=True),
    allow_path: list[str] = allow_path_option(),
) -> None:
    """Print a ruleset's rules in plain words, generated from its data."""
    with reported_errors():
        text = describe_ruleset(get_ruleset(ruleset, allowed_dirs(allow_path)))
        # printed as plain text (not through rich), so markup needs no escaping; every
        # other character a rule file could hold that a terminal would act on is escaped
        # lines longer than the terminal are broken between words
        echo = wrapping(typer.echo, terminal_width())
        for line in text.splitlines():
            echo(shown(line.expandtabs(4)))
