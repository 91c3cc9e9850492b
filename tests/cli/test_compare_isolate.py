"""``compare --isolate``: each bot from outside plays in a process of its own on both sides, sent only its seat's
view, as ``simulate --isolate`` runs it."""

from __future__ import annotations

import json
import textwrap

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.play import agents, bot_specs, isolate

runner = CliRunner()

BOTS = textwrap.dedent(
    '''
    import gc


    class Last:
        """The last legal move."""

        def __init__(self, seed):
            self.name = "last"

        def act(self, view, seat):
            return view.legal_actions()[-1]


    class Digger:
        """The last legal move, after looking through its process for the live game (a state whose seed is not 0)."""

        def __init__(self, seed):
            self.name = "digger"

        def act(self, view, seat):
            for obj in gc.get_objects():
                if type(obj).__name__ == "State" and obj.seed != 0:
                    raise RuntimeError("found the live game")
            return view.legal_actions()[-1]
    '''
)


@pytest.fixture
def bot_file(tmp_path):
    """cmpbots.py (Last, and Digger that looks for the live game) in tmp_path."""
    path = tmp_path / "cmpbots.py"
    path.write_text(BOTS, encoding="utf-8")
    yield path
    agents._SPECS.clear()
    bot_specs._entry_kinds.clear()
    isolate.close_all()


def compare(*args):
    return runner.invoke(app, ["compare", "-q", "--json", *map(str, args)])


def test_isolated_bots_play_on_both_sides_and_find_nothing(bot_file):
    """A digging bot on side A and a quiet one making the same moves on side B: in the game's process the digger
    finds the live game (exit 1), isolated it finds nothing and every figure is the same on both sides."""
    args = ["sushi-go", "-p", "3", "-g", "6", "-s", "4", "-b", f"{bot_file}:Digger,greedy,random"]
    args += ["--bots-b", f"{bot_file}:Last,greedy,random"]
    found = compare(*args)
    assert found.exit_code == 1 and "found the live game" in found.output
    result = compare(*args, "--isolate")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["paired"] and out["games"] == 6
    assert all(r["difference"] == 0 for r in out["rows"])
    seats = [[{k: v for k, v in s.items() if k != "bot"} for s in out[k]["figures"]["seats"]] for k in "ab"]
    assert seats[0] == seats[1] and seats[0][0]["mean"] > 0


def test_isolated_compare_is_the_in_process_one_rotated_and_on_two_jobs(bot_file):
    """A quiet bot from a file against greedy plays the same comparison isolated or not, rotated, on two jobs."""
    args = ["sushi-go", "-p", "2", "-g", "8", "-s", "2", "-b", f"{bot_file}:Last,greedy", "--bots-b", "greedy,random"]
    plain = compare(*args, "--rotate")
    assert plain.exit_code == 0, plain.output
    isolated = compare(*args, "--rotate", "--isolate", "-j", "2")
    assert isolated.exit_code == 0, isolated.output
    assert json.loads(isolated.stdout) == json.loads(plain.stdout)
    assert "rotation" in json.loads(plain.stdout)
