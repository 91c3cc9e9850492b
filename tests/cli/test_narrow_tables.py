"""Result tables in a terminal narrower than they are: every figure printed whole (or, where
even the figures alone do not fit, folded onto more lines), never cut short with "…"."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.cli.common import console, fitted

runner = CliRunner()

#: a figure as the tables print it: 12.38, -32.3, 15.0%, 10.7-20.6%, +8.9
FIGURE = re.compile(r"[-+]?\d+(?:\.\d+)?%?(?:-\d+(?:\.\d+)?%)?")


def simulate_output(columns: int) -> str:
    args = ["simulate", "sushi-go", "--players", "4", "--games", "40", "--bots", "random,greedy", "--cards"]
    result = runner.invoke(app, [*args, "--engine", "reference"], env={"COLUMNS": str(columns), "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    return result.output.rsplit("\n", 2)[0]  # without the last line, its time and games per second


def test_simulate_at_60_columns_prints_every_figure_of_a_wide_terminal_whole():
    """At 60 columns every line fits, nothing ends in "…", and each figure printed at 200
    columns is printed at 60 too, as many times (names may fold, figures do not)."""
    wide, narrow = simulate_output(200), simulate_output(60)
    assert all(len(line) <= 60 for line in narrow.splitlines()), narrow
    assert "…" not in narrow
    tables = wide.split("\n\n")[0]  # the figures in the tables and lines above the legends
    assert sorted(FIGURE.findall(tables)) == sorted(FIGURE.findall(narrow.split("\n\n")[0]))
    for card in ("tempura", "dumpling", "maki_1", "pudding"):
        assert re.search(rf"^{card}\b", narrow, re.M), card  # a card's name is still there


def test_simulate_at_40_columns_folds_rather_than_cuts():
    """At 40 columns, where the figures alone are wider than the terminal, lines still fit
    and nothing is cut short: a figure folds onto the next line."""
    narrow = simulate_output(40)
    assert "…" not in narrow
    assert all(len(line) <= 40 for line in narrow.splitlines()), narrow


def table_of(rows: list[tuple[str, ...]]):
    from rich.table import Table

    table = Table(title="t")
    table.add_column("card")
    for name in ("taken", "95% CI"):
        table.add_column(name, justify="right", no_wrap=True)
    for row in rows:
        table.add_row(*row)
    return table


@pytest.mark.parametrize("width", [80, 34, 28, 27, 12])
def test_a_table_is_fitted_to_the_width_only_when_it_does_not_fit(width):
    """A table that fits is printed as rich lays it out (its box kept); one that does not
    loses its vertical lines, then its names fold, then everything folds: every line
    within the width, no "…", and a figure whole wherever the figures alone fit."""
    from rich import box

    table = table_of([("salmon_nigiri", "12.38", "-19.4 to +8.9"), ("maki_1", "5.35", "+0.2 to +15.9")])
    out = console()
    out.width = width
    got = fitted(table, out)
    assert got is table
    with out.capture() as captured:
        out.print(got)
    text = captured.get()
    assert "…" not in text
    assert all(len(line) <= width for line in text.splitlines()), text
    if width == 80:
        assert table.box is box.HEAVY_HEAD  # rich's own table, untouched
    else:
        assert table.box is box.SIMPLE_HEAD
    if width >= 28:  # 5 + 13 for the figures, 2 + 2 between the columns, 6 for the names
        assert "-19.4 to +8.9" in text and "+0.2 to +15.9" in text
