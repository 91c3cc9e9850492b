"""A command's help in a terminal narrower than 80 columns flows its description's
paragraphs to the width; at 80 and wider they read as written."""

from __future__ import annotations

import inspect

import pytest
import typer
from typer.testing import CliRunner

from ruledraft.cli.app import app, flowed

runner = CliRunner()
COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]


def _description(output: str) -> list[list[str]]:
    """The paragraphs after the summary in a help page, each as its lines (stripped)."""
    lines = output.splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("╭"))
    blocks: list[list[str]] = [[]]
    for line in lines[:end]:
        if line.strip():
            blocks[-1].append(line.strip())
        elif blocks[-1]:
            blocks.append([])
    return [block for block in blocks if block][2:]  # past the usage line and the summary


@pytest.mark.parametrize("columns", [60, 45])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_narrow_help_flows_each_paragraph_to_the_width(name, columns):
    """At 60 and 45 columns each paragraph of the description has its words in order, and
    every line but its last is full: the next word would not have fitted on it."""
    doc = inspect.cleandoc(COMMANDS[name].callback.__doc__ or "")
    written = [paragraph.split() for paragraph in doc.split("\n\n")[1:]]
    text = runner.invoke(app, [name, "--help"], env={"COLUMNS": str(columns), "TERM": "dumb"}).output
    shown = _description(text)
    assert [" ".join(lines).split() for lines in shown] == written
    room = columns - 2
    for lines in shown:
        for line, after in zip(lines, lines[1:]):
            assert len(line) + 1 + len(after.split()[0]) > room, (line, after)


def test_flowed_joins_only_a_paragraph_with_a_line_too_long():
    """flowed() leaves the first paragraph, a paragraph whose lines fit and one kept as
    written (``\\b``) alone, and makes a paragraph with a line longer than the room one line."""
    text = "Summary\nline.\n\nshort\nlines\n\na line far too long\nfor the room\n\n\bkept as\nwritten and too long"
    assert (
        flowed(text, 12)
        == "Summary\nline.\n\nshort\nlines\n\na line far too long for the room\n\n\bkept as\nwritten and too long"
    )
    assert flowed(text, 80) == text


@pytest.mark.parametrize("columns", [60, 45])
@pytest.mark.parametrize("name", list(COMMANDS))
def test_a_narrow_help_cuts_no_word(name, columns):
    """At 60 and 45 columns no option's help ends a word with "…": a word too long for the
    column goes on onto the next line, so every option and its help read whole."""
    text = runner.invoke(app, [name, "--help"], env={"COLUMNS": str(columns), "TERM": "dumb"}).output
    assert "…" not in text
    letters = "".join(ch for ch in text if ch.isalnum())
    for option in COMMANDS[name].params:
        for word in (option.help or "").split():
            assert "".join(ch for ch in word if ch.isalnum()) in letters, (option.name, word)


def test_a_narrow_help_shows_the_seed_bound_whole():
    """simulate's --seed help at 60 columns carries its upper bound, 9007199254740991, in full."""
    text = runner.invoke(app, ["simulate", "--help"], env={"COLUMNS": "60", "TERM": "dumb"}).output
    assert "9007199254740991" in "".join(ch for ch in text if ch.isalnum())
