"""``ruledraft tournament`` tried as a stranger: odd bots, sizes and widths."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.errors import InputError
from ruledraft.lab.tournament import MAX_GAMES, MAX_LINEUPS, lineups

runner = CliRunner()

LONG_BOT = """
class AVeryLongNamedBotIndeed:
    def __init__(self, seed=0):
        pass

    def act(self, view, seat):
        return view.legal_actions()[0]


class BadInit:
    def __init__(self, seed=0):
        raise ValueError("cannot start")

    def act(self, view, seat):
        return 0


class Crash:
    def __init__(self, seed=0):
        self.moves = 0

    def act(self, view, seat):
        self.moves += 1
        if self.moves > 3:
            raise RuntimeError("boom")
        return view.legal_actions()[0]
"""


def test_the_summary_fits_80_columns_even_with_a_long_bot_name(tmp_path, monkeypatch):
    """Every line printed at COLUMNS=80 is at most 80 wide; a long bot name stands on a line of its own."""
    (tmp_path / "bots.py").write_text(LONG_BOT)
    monkeypatch.chdir(tmp_path)
    bots = "random,first,bots.py:AVeryLongNamedBotIndeed,value:maki_1=3"
    result = runner.invoke(
        app, ["tournament", "sushi-go", "-b", bots, "-p", "3", "-g", "3", "-q"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(len(line) for line in lines) <= 80
    assert "bots.py:AVeryLongNamedBotIndeed" in lines
    assert "16 line-ups" in result.output


def test_one_line_up_is_said_in_the_singular():
    """Two bots at two seats make '1 line-up', not '1 line-ups'; one game a seating is '1 deal', not '1 deals'."""
    result = runner.invoke(app, ["tournament", "sushi-go", "-b", "random,first", "-p", "2", "-g", "2", "-q"])
    assert result.exit_code == 0, result.output
    assert "1 line-up," in result.output
    result = runner.invoke(app, ["tournament", "sushi-go", "-b", "random,first", "-p", "2", "-g", "1", "-q"])
    assert result.exit_code == 0, result.output
    assert " ".join(result.output.split()).startswith(
        "sushi-go, 2 players, seed 0: 1 line-up, seats rotated on the same 1 deal, 2 games;"
    )


def test_games_that_are_no_whole_number_of_deals_a_seating_are_said_rounded_up():
    """--games 5 at 3 players: each line-up's 3 seatings play the same 2 deals, 6 games, and a line says so
    (it played 6 without a word); --games 6 needs no such line."""
    result = runner.invoke(app, ["tournament", "sushi-go", "-b", "random,first", "-p", "3", "-g", "5", "-q"])
    assert result.exit_code == 0, result.output
    assert "(6 games)" in result.output
    assert result.output.splitlines()[-1] == "--games 5 a line-up, rounded up: each seating plays the same 2 deals"
    whole = runner.invoke(app, ["tournament", "sushi-go", "-b", "random,first", "-p", "3", "-g", "6", "-q"])
    assert "rounded up" not in whole.output


def test_six_bots_at_two_seats_make_fifteen_line_ups():
    """Every pair of six different bots is a line-up: C(6, 2) = 15."""
    plan = lineups(["a", "b", "c", "d", "e", "f"], 2)
    assert len(plan) == 15 and len(set(plan)) == 15


def test_too_many_line_ups_are_refused_before_any_is_made():
    """20 bots at 8 seats (2,220,055 line-ups) are refused at once, with the count, exit 2."""
    with pytest.raises(InputError, match="2,220,055 line-ups"):
        lineups([f"b{i}" for i in range(20)], 8)
    assert len(lineups([f"b{i}" for i in range(6)], 8)) <= MAX_LINEUPS
    bots = ",".join(["greedy", "random", "first", "value"] + [f"value:temaki={i}" for i in range(1, 17)])
    result = runner.invoke(app, ["tournament", "sushi-go-party-starter", "-b", bots, "-p", "8", "-g", "1", "-q"])
    assert result.exit_code == 2
    assert "line-ups, more than the 100,000" in result.output and "Traceback" not in result.output


def test_too_many_games_in_all_are_refused_before_playing():
    """11 bots at 6 seats with a million games per line-up would be billions of games: refused, exit 2."""
    bots = ",".join(["greedy", "random", "first", "value"] + [f"value:temaki={i}" for i in range(1, 8)])
    result = runner.invoke(app, ["tournament", "sushi-go-party-starter", "-b", bots, "-p", "6", "-g", "1000000", "-q"])
    assert result.exit_code == 2
    assert f"more than the {MAX_GAMES:,} a tournament plays" in result.output


def test_a_bot_from_a_file_that_cannot_be_made_is_one_line_not_an_internal_error(tmp_path, monkeypatch):
    """A bot whose constructor raises is named with its error, exit 1 (was 'internal error', exit 70)."""
    (tmp_path / "bots.py").write_text(LONG_BOT)
    monkeypatch.chdir(tmp_path)
    for jobs in ("1", "2"):
        result = runner.invoke(
            app, ["tournament", "sushi-go", "-b", "greedy,bots.py:BadInit", "-g", "2", "-q", "-j", jobs]
        )
        assert result.exit_code == 1, result.output
        assert "bots.py:BadInit' could not be made: ValueError: cannot start" in result.output
        assert "internal error" not in result.output


@pytest.mark.parametrize("seed", ["-1", str(2**53)])
def test_a_seed_out_of_range_is_one_line_naming_the_option(seed):
    """--seed -1 or 2**53: one line naming --seed, exit 2 (was 'internal error', exit 70)."""
    result = runner.invoke(
        app, ["tournament", "sushi-go", "-b", "random,first", "-p", "2", "-g", "2", "-q", "-s", seed]
    )
    assert result.exit_code == 2, result.output
    assert "--seed must be a whole number from 0" in result.output


def test_an_unknown_bot_named_with_escape_codes_is_shown_escaped():
    """A bot name holding an escape code comes back escaped in the one-line error, as in
    every other command, never as raw bytes a terminal would act on."""
    result = runner.invoke(app, ["tournament", "sushi-go", "--bots", "greedy,\x1b[31mx", "-q"])
    assert result.exit_code == 2
    assert "unknown bot '\\x1b[31mx'" in result.output and "\x1b" not in result.output


def test_a_bot_that_fails_mid_game_is_named_with_the_seats_of_its_table(tmp_path, monkeypatch):
    """A bot raising on its fourth move: one line naming it, its seat, the game's seed and every seat's bot at
    that table (which line-up and seating of the tournament it was), status 1."""
    (tmp_path / "bots.py").write_text(LONG_BOT)
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["tournament", "sushi-go", "-b", "random,bots.py:Crash", "-p", "2", "-g", "2", "-q"])
    assert result.exit_code == 1
    line = " ".join(result.output.split())
    assert line.startswith("error: bot 'bots.py:Crash' at seat ") and "raised RuntimeError: boom (game seed " in line
    assert line.endswith("(seats: random, bots.py:Crash)") or line.endswith("(seats: bots.py:Crash, random)")
