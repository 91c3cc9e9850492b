"""A one-player game (a solo puzzle): the default bots fit it, and no figure speaks of rivals it has not."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app

runner = CliRunner()

SOLO = """\
format: 1
id: solo
name: Solo
players: {min: 1, max: 2}
cards:
  - {id: apple, count: 30}
  - {id: pear, count: 30}
deal: {hand_size: {1-2: 5}}
rounds: {count: 2, pass: [left, right]}
scoring:
  - {id: apples, kind: per_card, cards: apple, value: 1}
  - {id: pears, kind: sets, cards: pear, size: 2, points: 3}
"""


@pytest.fixture
def solo(tmp_path):
    path = tmp_path / "solo.yaml"
    path.write_text(SOLO, encoding="utf-8")
    return str(path)


def invoke(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "80"})


@pytest.mark.parametrize("engine", ["reference", "kernel"])
def test_simulate_alone_plays_greedy_and_counts_no_tie_or_margin(solo, engine):
    """simulate -p 1 without --bots plays greedy (the default line-up cut to one seat); ties are 0 on both engines and no margin line is printed."""
    result = invoke("simulate", solo, "-p", "1", "-g", "40", "--engine", engine, "--json", "-q")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["bots"] == ["greedy"] and out["players"] == 1
    assert out["figures"]["ties"] == {"top_score_tied": 0.0, "shared_win": 0.0, "no_winner": 0.0}
    text = invoke("simulate", solo, "-p", "1", "-g", "40", "--engine", engine, "-q").output
    assert "1 player, seed 0" in text
    assert "margin of victory" not in text and "top score tied" not in text


def test_a_lineup_given_for_more_seats_than_players_is_still_refused(solo):
    """--bots greedy,random typed for one player is refused, in the singular."""
    result = invoke("simulate", solo, "-p", "1", "-g", "4", "--bots", "greedy,random")
    assert result.exit_code == 2
    assert "error: --bots names 2 bots for 1 player\n" in result.output


def test_sweep_compare_and_quality_take_one_player(solo):
    """sweep 1-2 shows '-' for the margin at one player and keeps the columns apart; compare and quality say '1 player'."""
    lines = invoke("sweep", solo, "-p", "1-2", "-g", "10", "-q").output.splitlines()
    assert lines[3].split() == ["1", "player", "2", "players"]
    margin = lines.index("margin of victory")
    assert lines[margin + 1].split()[:2] == ["mean", "-"] and lines[margin + 3].split()[:5] == [
        "top",
        "score",
        "tied",
        "%",
        "-",
    ]
    assert all(len(line) <= 80 for line in lines)
    seat_1 = next(line for line in lines if line.startswith("  seat 1"))
    assert seat_1.split()[2] == "-"  # no seat 1 at one player, a cell apart from the next
    compared = invoke("compare", solo, "-p", "1", "-g", "10", "-q").output
    assert "A: solo, 1 player, greedy, seed 0" in compared
    quality = invoke("quality", solo, "-p", "1", "-g", "10", "-q")
    assert quality.exit_code == 0, quality.output
    assert "10 games, 1 player, seed 0" in quality.output


def test_play_alone_needs_no_bots_and_play_without_players_takes_the_usual_count(solo):
    """play -p 1 plays the whole game with no bot (none named, none needed); play of the two-player game without --players seats 2."""
    alone = runner.invoke(app, ["play", solo, "-p", "1"], input="1\n" * 20, env={"COLUMNS": "80"})
    assert alone.exit_code == 0, alone.output
    assert alone.output.startswith("Solo: 1 player, seed 0. You are seat 0, playing alone.\n")
    assert "Winner: you, with " in alone.output
    refused = runner.invoke(app, ["play", solo, "-p", "1", "--bots", "random"], input="1\n" * 20)
    assert refused.exit_code == 2 and "--bots names 1 bot for the 0 other seats" in refused.output
    pair = runner.invoke(app, ["play", "sushi-go-two-player-dummy"], input="1\n" * 80, env={"COLUMNS": "80"})
    assert pair.exit_code == 0, pair.output
    assert pair.output.startswith("Sushi Go! (two players with a dummy): 2 players, seed 0.")


def test_one_player_is_said_in_the_singular_everywhere(tmp_path):
    """validate's summary, simulate's and sweep's refusals of a game for one player say '1 player'."""
    path = tmp_path / "alone.yaml"
    path.write_text(SOLO.replace("max: 2", "max: 1"), encoding="utf-8")
    assert invoke("validate", str(path)).output.endswith(
        ": ok: Solo (solo): 1 player, 2 card types, 60 cards, 2 rounds, 2 scoring rules\n"
    )
    assert "error: Solo is for 1 player, not 2" in invoke("simulate", str(path), "-p", "2", "-g", "2").output
    assert "error: Solo is for 1 player, not 2" in invoke("sweep", str(path), "-p", "1-2", "-g", "2").output
