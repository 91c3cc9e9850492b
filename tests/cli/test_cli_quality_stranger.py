"""``ruledraft quality`` (and every command printing through ``console()``) given what a
stranger gives it: emoji codes in a ruleset's name, card ids longer than their column
at 80 columns, seats that win exactly as often as each other, a report on a full disk."""

from __future__ import annotations

import errno
import json
import sys

import pytest
from paths import ROOT
from typer.testing import CliRunner

from ruledraft.cli import app as app_module
from ruledraft.cli.app import app
from ruledraft.cli.quality import quality_parts

runner = CliRunner()


def test_an_emoji_code_in_a_name_is_printed_as_written(tmp_path):
    """A ruleset named 'Sushi :thumbs_up: Go' is printed so by quality and simulate, not with a picture in its place."""
    text = (ROOT / "rulesets" / "sushi-go.yaml").read_text(encoding="utf-8")
    lines = ["name: 'Sushi :thumbs_up: Go'" if line.startswith("name:") else line for line in text.splitlines()]
    path = tmp_path / "emoji.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    for command in (["quality", "-b", "greedy"], ["simulate", "--marginal"]):
        result = runner.invoke(app, [command[0], str(path), "-p", "2", "-g", "2", "-q", *command[1:]])
        assert result.exit_code == 0, result.output
        assert "Sushi :thumbs_up: Go" in result.output
        assert "\N{THUMBS UP SIGN}" not in result.output


def test_long_card_ids_fold_in_the_picks_table_at_80_columns():
    """At 80 columns a Party menu's long card ids (onigiri_rectangle, takeout_face_down) are folded, never cut off with an ellipsis."""
    result = runner.invoke(
        app, ["quality", "sushi-go-party-master-menu", "-p", "3", "-g", "2", "-q"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    assert "…" not in result.output
    rows = [line for line in lines if line.startswith("│ ")]
    first_cells = "".join(row.split("│")[1].strip() for row in rows)
    assert "onigiri_rectangle" in first_cells and "takeout_face_down" in first_cells


def test_seats_that_win_as_often_are_not_called_best_and_worst():
    """With a difference of 0 the seat advantage line says every seat wins as often, not 'seat 0 best, seat 0 worst'."""
    result = runner.invoke(app, ["quality", "sushi-go", "-p", "2", "-g", "3", "-q", "--json"])
    assert result.exit_code == 0, result.output
    q = json.loads(result.output)
    q["seat_advantage"] = {**q["seat_advantage"], "difference": 0.0, "best_seat": 0, "worst_seat": 0}
    line = next(p for p in quality_parts(q, "x") if isinstance(p, str) and p.startswith("seat advantage:"))
    assert line == "seat advantage: 0.0 percentage points (every seat wins as often)"
    q["seat_advantage"] = {**q["seat_advantage"], "difference": 0.25, "best_seat": 1, "worst_seat": 0}
    line = next(p for p in quality_parts(q, "x") if isinstance(p, str) and p.startswith("seat advantage:"))
    assert "(seat 1 best, seat 0 worst)" in line


def test_the_seat_advantage_and_skill_gap_agree_with_the_rows_above_them():
    """25.67% and 24.13% are shown as 25.7% and 24.1%: the line below says 1.6 points, not
    the unrounded 1.5; the skill gap likewise from the bots' per-seat rates as shown."""
    result = runner.invoke(app, ["quality", "sushi-go", "-p", "2", "-g", "4", "-b", "greedy,random", "-q", "--json"])
    assert result.exit_code == 0, result.output
    q = json.loads(result.output)
    q["seats"][0]["win_share"], q["seats"][1]["win_share"] = 0.2567, 0.2413
    q["seat_advantage"] = {**q["seat_advantage"], "difference": 0.0154, "best_seat": 0, "worst_seat": 1}
    bots = q["skill"]["bots"]
    bots[0]["win_rate_per_seat"], bots[1]["win_rate_per_seat"] = 0.6667, 0.3333
    q["skill"]["gap"] = {
        **q["skill"]["gap"],
        "strongest": bots[0]["bot"],
        "weakest": bots[1]["bot"],
        "difference": 0.3334,
    }
    lines = [p for p in quality_parts(q, "x") if isinstance(p, str)]
    assert next(x for x in lines if x.startswith("seat advantage:")).startswith("seat advantage: 1.6 percentage points")
    assert next(x for x in lines if x.startswith("skill gap:")).startswith("skill gap: 33.4 percentage points")


@pytest.mark.parametrize(
    "command",
    [["quality", "sushi-go", "-p", "2"], ["simulate", "sushi-go", "-p", "2", "--marginal"]],
    ids=["quality", "simulate --marginal"],
)
def test_a_report_on_a_full_disk_ends_with_status_74(command, tmp_path, monkeypatch, capsys):
    """--report whose page meets ENOSPC: one line naming the page and status 74, as a full standard output gives."""
    import ruledraft.lab.report as report_module

    def no_room(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(report_module.tempfile, "mkstemp", no_room)
    monkeypatch.setattr(sys, "argv", ["ruledraft", *command, "-g", "2", "-q", "--report", str(tmp_path / "r")])
    with pytest.raises(SystemExit) as stop:
        app_module.main()
    assert stop.value.code == 74
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"ruledraft: cannot write {tmp_path / 'r' / 'index.html'}: No space left on device"
    )
