"""Every command's help reads as written at 80 columns: its summary is one row of the
command list, and no line of its description is broken in two by the terminal."""

from __future__ import annotations

import inspect
import re

import pytest
import typer
from typer.testing import CliRunner

from ruledraft.cli.app import app

runner = CliRunner()
COMMANDS = typer.main.get_command(app).commands  # type: ignore[attr-defined]


def test_every_command_summary_is_one_row_of_the_command_list():
    """At 200 columns each command's row in `ruledraft --help` is followed by the next command, not by the rest of its summary."""
    text = runner.invoke(app, ["--help"], env={"COLUMNS": "200", "TERM": "dumb"}).output
    panel = text[text.index("Commands") :]
    rows = [line for line in panel.splitlines() if line.startswith("│")]
    names = [re.match(r"│ (\w*)", row).group(1) for row in rows]
    assert names == list(COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_no_description_line_is_wider_than_the_help_text(name):
    """The lines after a command's summary (kept as written by the help) are at most 78 characters, so 80 columns never break one."""
    doc = inspect.cleandoc(COMMANDS[name].callback.__doc__ or "")
    rest = doc.split("\n\n", 1)[1:] or [""]
    assert [line for line in rest[0].splitlines() if len(line) > 78] == []
    text = runner.invoke(app, [name, "--help"], env={"COLUMNS": "80", "TERM": "dumb"}).output
    for line in rest[0].splitlines():
        if line.strip():
            assert f" {line.strip()}" in text
