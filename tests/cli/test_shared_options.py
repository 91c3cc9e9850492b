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


def test_version_prints_the_installed_version():
    """ruledraft --version prints the package's version (the one pyproject reads) and exits 0, before any command."""
    import importlib.metadata

    from ruledraft.version import __version__

    result = invoke("--version")
    assert result.exit_code == 0, result.output
    assert result.output == f"ruledraft {__version__}\n"
    assert importlib.metadata.version("ruledraft") == __version__


#: each command that takes --players, with the arguments it needs besides a ruleset and the output as JSON
PLAYERS_LEFT_OUT = {
    "simulate": ["-g", "2", "-q", "--json"],
    "quality": ["-g", "2", "-q", "--json"],
    "tournament": ["-g", "2", "-q", "--json", "--bots", "random,first"],
}


@pytest.mark.parametrize("command", sorted(PLAYERS_LEFT_OUT))
def test_players_left_out_is_four_or_the_nearest_count_the_ruleset_takes(command):
    """Without --players a 2-5 player game plays 4 and the two-player game 2; --players 4 on the two-player game is still refused."""
    import json

    rest = PLAYERS_LEFT_OUT[command]
    for ruleset, players in (("sushi-go", 4), ("sushi-go-two-player-dummy", 2)):
        result = invoke(command, ruleset, *rest)
        assert result.exit_code == 0, result.output
        assert json.loads(result.output)["players"] == players
    refused = invoke(command, "sushi-go-two-player-dummy", "-p", "4", *rest)
    assert refused.exit_code == 2
    assert "is for 2 players, not 4" in refused.output


def test_compare_without_players_plays_each_side_at_its_own_usual_count():
    """compare of the two-player game with Sushi Go! plays 2 against 4; a --players given is both sides'."""
    import json

    result = invoke("compare", "sushi-go-two-player-dummy", "sushi-go", "-g", "2", "-q", "--json")
    assert result.exit_code == 0, result.output
    sides = json.loads(result.output)
    assert (sides["a"]["players"], sides["b"]["players"]) == (2, 4)
    result = invoke("compare", "sushi-go", "sushi-go-party-sushi-go", "-p", "3", "-g", "2", "-q", "--json")
    sides = json.loads(result.output)
    assert (sides["a"]["players"], sides["b"]["players"]) == (3, 3)
    refused = invoke("compare", "sushi-go", "sushi-go-two-player-dummy", "-p", "3", "-g", "2", "-q")
    assert refused.exit_code == 2 and "is for 2 players, not 3" in refused.output


#: the commands that load rule files (rulesets lists the bundled ones; schema and bots read none)
LOADING = ("show", "validate", "score", "simulate", "play", "replay", "bench")
LOADING += ("compare", "sweep", "quality", "tune", "tournament", "serve")


@pytest.mark.parametrize("command", LOADING)
def test_every_command_that_loads_rule_files_takes_allow_path(command):
    """--allow-path is on every command that loads rule files, as the guide says (bench had none,
    though its error told the reader to give it)."""
    assert "--allow-path" in options_of(command)


def test_bench_measures_a_variant_whose_parent_is_in_an_allowed_directory(tmp_path, monkeypatch):
    """bench of a rule file extending one outside its directory: refused in the words that name
    --allow-path, then measured with it."""
    (tmp_path / "base").mkdir()
    (tmp_path / "mine").mkdir()
    (tmp_path / "base" / "game.yaml").write_text(
        "format: 1\nextends: sushi-go\nid: base\nname: Base\n", encoding="utf-8"
    )
    (tmp_path / "mine" / "v.yaml").write_text(
        "format: 1\nextends: ../base/game.yaml\nid: v\nname: V\n", encoding="utf-8"
    )
    monkeypatch.chdir(tmp_path / "mine")
    args = ["bench", "v.yaml", "--players", "2", "--bots", "random", "--seconds", "0.05", "--engine", "reference"]
    refused = invoke(*args)
    assert refused.exit_code == 1 and "allow a directory with --allow-path DIR" in refused.output
    measured = invoke(*args, "--allow-path", "../base", "--json")
    assert measured.exit_code == 0, measured.output
    assert '"ruleset": "v"' in measured.stdout
