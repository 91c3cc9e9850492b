"""The options several commands share (``cli/options.py``): the same names, limits and refusals on every command."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.state import MAX_SEED
from ruledraft.play.runner import available_cores

runner = CliRunner()

#: each command that plays games, with the arguments it needs besides the option tried
PLAYING = {
    "simulate": ["sushi-go", "-p", "3", "-g", "2", "-q"],
    "compare": ["sushi-go", "-p", "3", "-g", "2", "-q"],
    "sweep": ["sushi-go", "-p", "3", "-g", "2", "-q"],
    "quality": ["sushi-go", "-p", "3", "-g", "2", "-q"],
}


def invoke(*args: str):
    return runner.invoke(app, list(args), env={"COLUMNS": "200", "TERM": "dumb"})


def options_of(command: str) -> dict[str, str]:
    """The options listed in ``command --help``: long name -> its short name ('' without one)."""
    text = invoke(command, "--help").output
    found = re.findall(r"^│(?:\s+\*)?\s+(--[a-z][a-z-]*)(?:\s+(-[a-z])\s)?", text, flags=re.M)
    return dict(found)


@pytest.mark.parametrize("command", sorted(PLAYING))
def test_every_playing_command_refuses_a_wrong_jobs_in_the_same_words(command):
    """--jobs two is refused by simulate, compare, sweep and quality alike: exit 2 and the one message of the shared parser."""
    result = invoke(command, *PLAYING[command], "--jobs", "two")
    assert result.exit_code == 2, result.output
    assert result.stderr == (
        f"error: --jobs takes a number of processes, or 0 or 'auto' for all {available_cores()} processors, not 'two'\n"
    )


@pytest.mark.parametrize("command", [*sorted(PLAYING), "play"])
def test_every_seed_option_gives_the_same_range(command):
    """Each command's --seed help names the range 0 to MAX_SEED, and a seed past it is refused with that range."""
    help_text = " ".join(invoke(command, "--help").output.split())
    assert f"(0 to {MAX_SEED})" in help_text
    args = PLAYING.get(command, ["sushi-go", "-p", "3"])
    result = invoke(command, *args, "--seed", str(MAX_SEED + 1))
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: --seed must be a whole number from 0 to {MAX_SEED}, not {MAX_SEED + 1}\n"


def test_shared_options_have_the_same_short_names_everywhere():
    """--players, --seed, --bots, --games, --jobs and --quiet have one short name each, and --json, --log and --allow-path none, whichever command lists them."""
    commands = ["simulate", "compare", "sweep", "play", "bench", "quality"]
    shorts: dict[str, set[str]] = {}
    for command in commands:
        for long, short in options_of(command).items():
            shorts.setdefault(long, set()).add(short)
    expected = {
        **{"--players": "-p", "--seed": "-s", "--bots": "-b", "--games": "-g", "--jobs": "-j", "--quiet": "-q"},
        **{"--json": "", "--log": "", "--allow-path": ""},
    }
    assert {long: shorts[long] for long in expected} == {long: {short} for long, short in expected.items()}
