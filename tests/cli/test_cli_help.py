"""Every command's ``--help``: fits 80 columns, nothing cut off or eaten, and names what its arguments take."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.language.bundled import bundled_ids
from ruledraft.play.agents import agent_names

runner = CliRunner()

COMMANDS = [
    "rulesets",
    "show",
    "validate",
    "score",
    "simulate",
    "play",
    "replay",
    "bench",
    "schema",
    "bots",
    "compare",
    "sweep",
    "quality",
    "tune",
    "tournament",
    "serve",
]


def help_text(*command: str, columns: int = 80) -> str:
    result = runner.invoke(app, [*command, "--help"], env={"COLUMNS": str(columns), "TERM": "dumb"})
    assert result.exit_code == 0, result.output
    return result.output


def flat(text: str) -> str:
    """The help text with the panel borders removed and runs of white space made one space."""
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", text).split())


@pytest.mark.parametrize("command", [[], *([c] for c in COMMANDS)], ids=["ruledraft", *COMMANDS])
@pytest.mark.parametrize("columns", [80, 120])
def test_help_fits_the_width_and_cuts_nothing_off(command, columns):
    """`--help` of the app and of every command has no line wider than the terminal, no word cut off with an ellipsis and no markup left raw."""
    text = help_text(*command, columns=columns)
    assert "Usage: ruledraft" in text
    too_wide = [line for line in text.splitlines() if len(line.rstrip()) > columns]
    assert too_wide == []
    assert "…" not in text
    assert "[/" not in text and "[bold" not in text
    assert "[default: (" not in flat(text)  # click's way of writing a default it is not given: said in the help


@pytest.mark.parametrize("command", COMMANDS)
def test_help_keeps_every_options_metavar_whole_at_80_columns(command):
    """Every option's metavar (ENGINE, N...) reads whole in `--help` at 80 columns, never
    split across two lines of its narrow column."""
    import typer.main

    click_command = typer.main.get_command(app).commands[command]  # type: ignore[attr-defined]
    text = flat(help_text(command))
    metavars = [p.metavar for p in click_command.params if getattr(p, "metavar", None)]
    assert [m for m in metavars if m not in text] == []
    assert command != "simulate" or "ENGINE" in metavars  # the one split before, in its narrowest column


def test_app_help_lists_every_command():
    """`ruledraft --help` names every command."""
    text = help_text()
    listed = re.findall(r"^│ (\w+) ", text, flags=re.M)
    assert listed == COMMANDS


@pytest.mark.parametrize(
    "command",
    ["show", "validate", "score", "simulate", "play", "replay", "bench", "compare", "sweep", "quality", "serve"],
)
def test_help_of_a_command_taking_a_ruleset_names_the_bundled_ones(command):
    """Where an argument or option takes a ruleset, its help names every bundled ruleset id, whole."""
    text = flat(help_text(command))
    ids = bundled_ids()
    assert ids  # the test means something only with bundled rulesets
    assert ", ".join(ids) in text


@pytest.mark.parametrize("command", ["simulate", "play", "bench", "quality", "tune", "serve"])
def test_help_of_a_command_taking_bots_names_the_bots(command):
    """`--bots` help lists every registered bot."""
    text = flat(help_text(command))
    assert f"Bots: {', '.join(agent_names())}." in text
    assert set(agent_names()) >= {"greedy", "random"}


def test_score_help_shows_its_json_example_as_written():
    """`score --help` prints the table format with all its brackets, not eaten as markup."""
    text = flat(help_text("score"))
    assert (
        'A JSON file {"rounds": [[[cards of seat 0 in play order], ...], ...]} (per round, per seat, card ids)' in text
    )


def test_play_help_says_what_the_game_shows_and_reads():
    """`play --help` says names are accepted, the layout fits the width and input lines are capped."""
    text = flat(help_text("play"))
    assert "type a card's number or name to take it" in text
    assert "fits the terminal's width (COLUMNS)" in text
    assert "lines of at most 1024 bytes" in text


def test_quality_help_names_its_measures_and_options():
    """`quality --help` names the measures it gives and its rotation, JSON and report options."""
    text = flat(help_text("quality"))
    for words in ("skill gap", "seat advantage", "decisiveness", "lead changes", "score spread", "last round"):
        assert words in text
    for option in ("--rotate --no-rotate", "--games", "--bots", "--json", "--report DIR", "--jobs"):
        assert option in text
    assert "each deal once per seating" in text


def test_simulate_help_offers_the_marginal_points():
    """`simulate --help` offers --marginal and says what it values."""
    text = flat(help_text("simulate"))
    assert "--marginal" in text
    assert "the points its seat loses without that copy" in text


def test_tune_help_says_what_it_searches_and_writes():
    """`tune --help` names the target forms, the stopping rule, the file it writes and what Ctrl-C keeps."""
    text = flat(help_text("tune"))
    assert "cards:K, cards:K:CARD,CARD, seats:K or points:MEAN:K" in text
    assert "meets the target with every 95% interval inside it" in text
    assert "NAME.tuned.yaml" in text and "nothing is overwritten" in text
    assert "Ctrl-C keeps the best so far, writes it, and exits 130" in text


def test_simulate_help_offers_the_rotation():
    """`simulate --help` offers --rotate and says what it plays and what it adds."""
    text = flat(help_text("simulate"))
    assert "--rotate" in text
    assert "Play every deal once per rotation of the bots through the seats" in text
    assert "each bot's win share" in text and "within each seat and bot" in text


def test_compare_help_offers_the_rotation():
    """`compare --help` offers --rotate and says both sides rotate alike, the deal being the unit."""
    text = flat(help_text("compare"))
    assert "--rotate" in text
    assert "Play every deal once per rotation of each side's bots through the seats" in text
    assert "both sides alike on the same seeds: the deal is the unit" in text
    assert "vs none is taken within each seating and seat" in text


def test_compare_help_offers_isolation():
    """`compare --help` offers --isolate and says what it does, on both sides."""
    text = flat(help_text("compare"))
    assert "--isolate" in text
    assert "in a process of its own, sent only its seat's view (as simulate --isolate), on both sides" in text
