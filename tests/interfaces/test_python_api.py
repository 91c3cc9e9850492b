"""The documented Python API: ``import ruledraft`` and the README's "Python API" section."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys

import pytest
from paths import README, ROOT
from typer.testing import CliRunner

import ruledraft
from ruledraft.cli.app import app
from ruledraft.engine.seeds import game_seed

runner = CliRunner()

BROKEN = "format: 1\nid: mine\nname: Mine\nextends: sushi-go\ndeal: 3\n"


def readme_section(title: str) -> str:
    """The text of the README's ``## TITLE`` section, up to the next ``## ``."""
    text = README.read_text(encoding="utf-8")
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def python_blocks() -> list[str]:
    """Every ```python block of the README, in order."""
    return re.findall(r"^```python\n(.*?)^```$", README.read_text(encoding="utf-8"), flags=re.M | re.S)


def without_timing(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in ("elapsed_seconds", "games_per_second")}


# ------------------------------------------------------------------ the names


def test_all_lists_exactly_the_names_of_the_readme_api_table():
    """`ruledraft.__all__` holds exactly the names of the README's Python API table, each once."""
    rows = re.findall(r"^\| `([A-Za-z_]\w*)", readme_section("Python API"), flags=re.M)
    assert len(rows) == len(set(rows))
    assert len(ruledraft.__all__) == len(set(ruledraft.__all__))
    assert sorted(rows) == sorted(ruledraft.__all__)


@pytest.mark.parametrize("name", ruledraft.__all__)
def test_every_stable_name_has_a_docstring(name):
    """Every name in `ruledraft.__all__` resolves and has a docstring of its own."""
    value = getattr(ruledraft, name)
    assert (value.__doc__ or "").strip()


def test_star_import_gives_every_stable_name():
    """`from ruledraft import *` binds every name of `__all__`, and an unknown name is an AttributeError."""
    space: dict = {}
    exec("from ruledraft import *", space)
    assert set(ruledraft.__all__) <= set(space)
    with pytest.raises(AttributeError, match="module 'ruledraft' has no attribute 'no_such_name'"):
        ruledraft.no_such_name  # noqa: B018


def test_importing_ruledraft_loads_none_of_its_modules():
    """`import ruledraft` imports no submodule (the names load when first used), so the command's start-up is not slowed."""
    code = "import sys, ruledraft; print(sorted(m for m in sys.modules if m.startswith('ruledraft.')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("block", python_blocks(), ids=lambda b: b.strip().splitlines()[-1][:40])
def test_readme_python_blocks_run(block, tmp_path):
    """Every ```python block of the README runs to the end without an error (in an empty directory)."""
    script = tmp_path / "example.py"
    script.write_text(block, encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr


def test_the_readme_has_the_promised_examples():
    """The Python API section shows loading, one game, a 200-game simulation, scoring a table, a registered bot and a log."""
    section = readme_section("Python API")
    blocks = re.findall(r"^```python\n(.*?)^```$", section, flags=re.M | re.S)
    text = "\n".join(blocks)
    for call in ("load_ruleset(", "play_game(", "games=200", "score_table(", "register_agent(", "read_log(", "replay("):
        assert call in text


# ------------------------------------------------------------------ rulesets


def test_load_errors_carry_file_line_and_column(tmp_path):
    """A broken rule file (by path or as text) raises RulesetError whose message and diagnostics give FILE:LINE:COLUMN."""
    with pytest.raises(ruledraft.RulesetError) as caught:
        ruledraft.load_ruleset(text=BROKEN, name="mine.yaml")
    assert str(caught.value) == "mine.yaml:5:7: error: 'deal' must be a mapping, not 3"
    path = tmp_path / "mine.yaml"
    path.write_text(BROKEN, encoding="utf-8")
    with pytest.raises(ruledraft.RulesetError) as caught:
        ruledraft.load_ruleset(path)
    (d,) = caught.value.diagnostics
    assert (d.file, d.line, d.column, d.message) == (str(path), 5, 7, "'deal' must be a mapping, not 3")


def test_check_ruleset_returns_the_problems_without_raising():
    """`check_ruleset` gives the same located problems as `load_ruleset` raises, and the ruleset when there are none."""
    result = ruledraft.check_ruleset(text=BROKEN, name="mine.yaml")
    assert not result.ok and result.ruleset is None
    assert [d.format() for d in result.diagnostics] == ["mine.yaml:5:7: error: 'deal' must be a mapping, not 3"]
    good = ruledraft.check_ruleset("sushi-go")
    assert good.ok and good.ruleset.id == "sushi-go"


def test_text_extends_resolves_from_the_current_directory(tmp_path, monkeypatch):
    """Rule-file text extends a file of the current directory, as standard input does."""
    (tmp_path / "base.yaml").write_text(
        (ROOT / "rulesets" / "sushi-go.yaml").read_text(encoding="utf-8").replace("id: sushi-go", "id: base", 1),
        encoding="utf-8",
    )
    monkeypatch.chdir(tmp_path)
    rs = ruledraft.load_ruleset(text="format: 1\nid: child\nname: Child\nextends: base.yaml\n")
    assert (rs.id, rs.name) == ("child", "Child")


def test_load_ruleset_needs_a_source_or_text_but_not_both():
    """Naming no ruleset, or both a source and text, is a TypeError saying to give one."""
    with pytest.raises(TypeError, match=r"^give either a ruleset.s source \(a bundled id or a path\) or its text=$"):
        ruledraft.load_ruleset()
    with pytest.raises(TypeError, match=r"^give either a ruleset.s source \(a bundled id or a path\) or its text=$"):
        ruledraft.load_ruleset("sushi-go", text=BROKEN)


def test_an_unknown_ruleset_name_is_an_input_error():
    """A name that is no bundled id nor file raises InputError with the command line's message."""
    with pytest.raises(
        ruledraft.InputError,
        match=r"^no ruleset 'sushi-goo': not a file, nor a bundled ruleset \(did you mean 'sushi-go'\?\)",
    ):
        ruledraft.load_ruleset("sushi-goo")


def test_bundled_rulesets_are_the_bundled_ids():
    """`bundled_rulesets()` lists the ids `ruledraft rulesets` knows, sushi-go among them."""
    from ruledraft.language.bundled import bundled_ids

    assert ruledraft.bundled_rulesets() == bundled_ids()
    assert "sushi-go" in ruledraft.bundled_rulesets()


# ------------------------------------------------------------------ playing and simulating


def test_simulate_fills_seats_like_the_command_line():
    """`simulate(bots=["greedy"])` at 4 players is `ruledraft simulate --bots greedy`: every seat greedy, the same figures."""
    summary = ruledraft.simulate("sushi-go", players=4, games=20, bots=["greedy"], seed=5)
    result = runner.invoke(
        app,
        ["simulate", "sushi-go", "--players", "4", "--games", "20", "--bots", "greedy", "--seed", "5", "--json", "-q"],
    )
    assert result.exit_code == 0, result.output
    cli = json.loads(result.stdout)
    assert cli["bots"] == ["greedy"] * 4
    assert without_timing(summary.to_json()) == without_timing(cli)


def test_simulate_on_two_processes_gives_the_figures_of_one():
    """`simulate(jobs=2)` (forked workers) gives the same summary as `jobs=1` for the same seed."""
    one = ruledraft.simulate("sushi-go", games=40, bots="greedy,value,first,random", seed=9, jobs=1)
    two = ruledraft.simulate("sushi-go", games=40, bots="greedy,value,first,random", seed=9, jobs=2)
    assert one.games == two.games == 40
    assert one == two


def test_simulate_logs_the_games_the_command_line_logs(tmp_path):
    """`simulate(log=PATH)` writes `--log`'s lines byte for byte (a text stream gets the same on the kernel), and they replay."""
    path = tmp_path / "api.jsonl"
    summary = ruledraft.simulate("sushi-go", players=3, games=6, seed=4, log=path, engine="reference")
    stream = io.StringIO()
    ruledraft.simulate("sushi-go", players=3, games=6, seed=4, log=stream, engine="kernel")
    cli = tmp_path / "cli.jsonl"
    args = ["simulate", "sushi-go", "-p", "3", "-g", "6", "--seed", "4", "-q", "--log", str(cli)]
    assert runner.invoke(app, args).exit_code == 0
    text = path.read_text(encoding="utf-8")
    assert text == stream.getvalue() == cli.read_text(encoding="utf-8")
    records = ruledraft.read_log(path)
    assert [r["seed"] for r in records] == [game_seed(4, i) for i in range(6)]
    assert [list(ruledraft.replay(r).totals()) for r in records] == [r["totals"] for r in records]
    assert summary.games == 6


def test_simulate_log_refuses_the_rule_file_and_an_unwritable_path(tmp_path):
    """`simulate(log=...)` naming the rule file played, or a file it extends, is refused before it is overwritten; a directory, a FIFO and a number are refused naming why."""
    import os

    base = tmp_path / "base.yaml"
    base.write_text("format: 1\nextends: sushi-go\nid: base\nname: Base\n", encoding="utf-8")
    rules = tmp_path / "game.yaml"
    rules.write_text("format: 1\nextends: base.yaml\nid: my-game\nname: My Game\n", encoding="utf-8")
    with pytest.raises(
        ruledraft.InputError, match=f"^log {re.escape(str(rules))} is the rule file: the log would overwrite it$"
    ):
        ruledraft.simulate(rules, games=2, log=rules)
    with pytest.raises(
        ruledraft.InputError,
        match=f"^log {re.escape(str(base))} is .*base.yaml, a rule file that it extends: the log would",
    ):
        ruledraft.simulate(rules, games=2, log=base)
    assert rules.read_text(encoding="utf-8") == "format: 1\nextends: base.yaml\nid: my-game\nname: My Game\n"
    assert base.read_text(encoding="utf-8") == "format: 1\nextends: sushi-go\nid: base\nname: Base\n"
    with pytest.raises(
        ruledraft.InputError, match=f"^log {re.escape(str(tmp_path))}: a directory; log takes a regular file"
    ):
        ruledraft.simulate("sushi-go", games=2, log=tmp_path)
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ruledraft.InputError, match="^log .*fifo: a FIFO; log takes a regular file"):
        ruledraft.simulate("sushi-go", games=2, log=tmp_path / "fifo")
    with pytest.raises(ruledraft.ArgumentError, match="^log must be a path or a text stream, not 123$"):
        ruledraft.simulate("sushi-go", games=2, log=123)
    compiled = ruledraft.load_ruleset(rules)
    with pytest.raises(ruledraft.InputError, match=f"^log {re.escape(str(rules))} is the rule file: the log would"):
        ruledraft.simulate(compiled, games=2, log=rules)
    assert rules.read_text(encoding="utf-8") == "format: 1\nextends: base.yaml\nid: my-game\nname: My Game\n"


def test_simulate_refuses_bad_bots_with_the_reason():
    """No bot, more bots than players, and an unusable spec are InputErrors saying so."""
    with pytest.raises(ruledraft.InputError, match=r"^bots needs at least one bot name; known: .*greedy"):
        ruledraft.simulate("sushi-go", bots=[])
    with pytest.raises(ruledraft.InputError, match=r"^bots names 5 bots for 4 players$"):
        ruledraft.simulate("sushi-go", bots="greedy,greedy,greedy,greedy,greedy")
    with pytest.raises(ruledraft.InputError, match="ismcts"):
        ruledraft.simulate("sushi-go", bots="ismcts:iterations=-1")
    with pytest.raises(ruledraft.InputError, match=r"^Sushi Go! is for 2-5 players, not 6$"):
        ruledraft.simulate("sushi-go", players=6)
    with pytest.raises(ValueError, match="games must be at least 1, not 0"):
        ruledraft.simulate("sushi-go", games=0)


def test_arguments_of_the_wrong_kind_are_argument_errors_naming_them():
    """A bot that is neither a spec nor an agent, a ruleset source or a log path of another type, a tournament's bots of None, a factory that cannot be called and a stream of bytes as the log are ArgumentErrors, refused before anything is played."""
    import io

    with pytest.raises(
        ruledraft.ArgumentError, match=r"^bots\[0\] is a bot spec or an agent with act\(view, seat\), not None$"
    ):
        ruledraft.simulate("sushi-go", bots=[None])
    with pytest.raises(ruledraft.ArgumentError, match=r"^bots\[1\] is a bot spec or an agent"):
        ruledraft.play_game("sushi-go", 2, ["greedy", object()])
    for call in (ruledraft.load_ruleset, ruledraft.check_ruleset):
        with pytest.raises(ruledraft.ArgumentError, match="^a ruleset's source is a bundled id or a path, not 123$"):
            call(123)
    with pytest.raises(ruledraft.ArgumentError, match="^text is a rule file's text, not 5$"):
        ruledraft.load_ruleset(text=5)
    with pytest.raises(ruledraft.ArgumentError, match="^path is a game log's path, not 123$"):
        ruledraft.read_log(123)
    with pytest.raises(ruledraft.ArgumentError, match="^bots are bot specs such as 'planner,greedy,random'"):
        ruledraft.tournament("sushi-go", None)
    with pytest.raises(ruledraft.ArgumentError, match="^factory makes an agent from a seed"):
        ruledraft.register_agent("not-callable", 5)
    assert "not-callable" not in ruledraft.agent_names()
    with pytest.raises(ruledraft.ArgumentError, match="^log must be a text stream open for writing, not <_io.BytesIO"):
        ruledraft.simulate("sushi-go", games=2, log=io.BytesIO())
    closed = io.StringIO()
    closed.close()
    with pytest.raises(ruledraft.ArgumentError, match="^log must be a text stream open for writing"):
        ruledraft.simulate("sushi-go", games=2, log=closed)


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: ruledraft.simulate("sushi-go", games=0), "games must be at least 1, not 0"),
        (lambda: ruledraft.simulate("sushi-go", seed=-1), "from 0 to 9007199254740991, not -1"),
        (lambda: ruledraft.simulate("sushi-go", games=2, jobs=-1), "jobs must be 0"),
        (lambda: ruledraft.play_game("sushi-go", 3, "greedy", seed=-5), "not -5"),
        (lambda: ruledraft.tournament("sushi-go", "greedy,random", players=2, games=2, jobs=-1), "jobs must be 0"),
        (lambda: ruledraft.tournament("sushi-go", "greedy,random", players=2, games=0), "games must be at least 1"),
        (lambda: ruledraft.play_game("sushi-go", seed=1.5), r"^seed must be a whole number, not 1\.5$"),
        (lambda: ruledraft.play_game("sushi-go", players="4"), r"^players must be a whole number, not '4'$"),
        (lambda: ruledraft.simulate("sushi-go", jobs=2.5), r"^jobs must be a whole number, not 2\.5$"),
        (lambda: ruledraft.simulate("sushi-go", games=True), r"^games must be a whole number, not True$"),
        (lambda: ruledraft.simulate("sushi-go", games=10**30), r"^games must be at most 10,000,000 \(as --games\)"),
        (lambda: ruledraft.simulate("sushi-go", bots=None), r"^bots are bot specs such as 'greedy,random'.*not None$"),
        (lambda: ruledraft.simulate("sushi-go", bots=123), r"^bots are bot specs .* not 123$"),
        (lambda: ruledraft.simulate(b"sushi-go"), r"^ruleset must be a compiled ruleset, a bundled id or a path"),
        (lambda: ruledraft.simulate("sushi-go", games=2, isolate="yes"), r"^isolate must be True or False, not 'yes'$"),
        (
            lambda: ruledraft.score_table("sushi-go", {"rounds": []}, partial="no"),
            r"^partial must be True or False, not 'no'$",
        ),
        (lambda: ruledraft.tournament("sushi-go", "greedy,random", seed="7"), r"^seed must be a whole number"),
        (
            lambda: ruledraft.simulate("sushi-go", games=2, engine="gpu"),
            r"^engine must be one of auto, kernel, reference, not 'gpu'$",
        ),
        (
            lambda: ruledraft.register_agent("my:bot", object),
            r"^a bot's name is a word --bots can give: .* not 'my:bot'$",
        ),
        (lambda: ruledraft.register_agent("", object), r"not ''$"),
        (lambda: ruledraft.register_agent("my,bot", object), r"not 'my,bot'$"),
    ],
)
def test_a_value_out_of_range_is_a_ruledraft_error_and_a_value_error(call, words):
    """A bad number handed to the API is an ArgumentError: caught by except RuledraftError (and InputError) and by except ValueError."""
    with pytest.raises(ruledraft.ArgumentError, match=words) as raised:
        call()
    assert isinstance(raised.value, ruledraft.InputError) and isinstance(raised.value, ValueError)


def test_numpy_integers_are_whole_numbers_to_the_api():
    """A seed and a player count from numpy (an RL loop's) play the game the plain ints play."""
    np = pytest.importorskip("numpy")
    by_numpy = ruledraft.play_game("sushi-go", players=np.int64(3), seed=np.int32(4))
    assert by_numpy.totals() == ruledraft.play_game("sushi-go", players=3, seed=4).totals()


def test_a_tournament_of_one_bot_is_refused_as_on_the_command_line():
    """ruledraft.tournament with one bot (or the same bot twice) is an InputError, as `tournament --bots greedy` is refused."""
    for bots in ("greedy", ["greedy", "greedy"]):
        with pytest.raises(ruledraft.InputError, match="a tournament needs at least two different bots"):
            ruledraft.tournament("sushi-go", bots, players=2, games=2)


def test_game_named_by_a_string_says_to_load_the_ruleset():
    """ruledraft.Game takes a compiled ruleset: a bundled id is an InputError naming load_ruleset, not an AttributeError."""
    with pytest.raises(ruledraft.InputError, match=r"not str 'sushi-go': ruledraft.Game\(ruledraft.load_ruleset"):
        ruledraft.Game("sushi-go", 4)


def test_play_game_with_a_fixed_seed_is_the_same_game():
    """`play_game` with the same seed and bots plays the same game: the same picks and the same scores."""
    a = ruledraft.play_game("sushi-go", players=3, bots="greedy,random", seed=11)
    b = ruledraft.play_game(ruledraft.load_ruleset("sushi-go"), players=3, bots=["greedy", "random", "random"], seed=11)
    assert a.is_terminal()
    assert [r.actions for r in a.history] == [r.actions for r in b.history]
    assert a.score_sheet().to_json() == b.score_sheet().to_json()


def test_play_game_takes_agent_objects_and_checks_their_moves():
    """An agent object plays its seat; one that picks an illegal move raises BotFailure naming it, its seat and the seed."""

    class First:
        name = "mine"

        def act(self, state, seat):
            return state.legal_actions(seat)[0]

    class Cheat(First):
        name = "cheat"

        def act(self, state, seat):
            return 10**6

    state = ruledraft.play_game("sushi-go", players=2, bots=[First(), "greedy"], seed=3)
    assert state.is_terminal()
    with pytest.raises(ruledraft.BotFailure) as caught:
        ruledraft.play_game("sushi-go", players=2, bots=["greedy", Cheat()], seed=3)
    assert str(caught.value) == "bot 'cheat' at seat 1 chose 1000000, not a legal action (game seed 3)"


# ------------------------------------------------------------------ scoring a table


def test_score_table_matches_the_score_command(tmp_path):
    """`score_table` gives what `ruledraft score` prints for a whole game's table, with and without --rules."""
    state = ruledraft.play_game("sushi-go", players=4, bots="greedy,random", seed=2)
    ids = state.game.ruleset.catalogue.ids
    table = {"rounds": [[[ids[c] for c in seat] for seat in r.tables] for r in state.history]}
    path = tmp_path / "table.json"
    path.write_text(json.dumps(table), encoding="utf-8")
    for flags, rules in (([], False), (["--rules"], True)):
        result = runner.invoke(app, ["score", "sushi-go", str(path), *flags])
        assert result.exit_code == 0, result.output
        assert ruledraft.score_table("sushi-go", table, rules=rules) == json.loads(result.stdout)
    assert ruledraft.score_table("sushi-go", table)["totals"] == state.totals()


def test_score_table_refuses_a_short_table_unless_partial():
    """A table with fewer rounds than the game is refused with the command's message, and scored with partial=True."""
    table = {"rounds": [[["maki_3", "maki_2"], ["maki_3"], ["maki_1", "maki_2"], ["maki_2"]]]}
    with pytest.raises(ruledraft.InputError) as caught:
        ruledraft.score_table("sushi-go", table)
    assert str(caught.value) == (
        "table: error: rounds: 1 round, but Sushi Go! has 3 (--partial scores the rounds played so far)"
    )
    assert ruledraft.score_table("sushi-go", table, partial=True) == {
        "rounds": [[6, 1, 1, 0]],
        "game_end": [0, 0, 0, 0],
        "totals": [6, 1, 1, 0],
        "winners": [0],
    }


# ------------------------------------------------------------------ logs


def test_a_fixed_seed_replays_from_a_log(tmp_path):
    """A game played with a seed, logged, read back and replayed gives the same finished game."""
    bots = ["greedy", "value", "random"]
    state = ruledraft.play_game("sushi-go-soy-sauce", players=3, bots=bots, seed=21)
    path = tmp_path / "games.jsonl"
    path.write_text(json.dumps(ruledraft.record_game(state, bots)) + "\n", encoding="utf-8")
    (record,) = ruledraft.read_log(path)
    assert (record["seed"], record["seats"]) == (21, bots)
    replayed = ruledraft.replay(record)
    assert replayed.is_terminal()
    assert replayed.score_sheet().to_json() == state.score_sheet().to_json()
    assert [r.actions for r in replayed.history] == [r.actions for r in state.history]


def test_replay_of_a_record_that_does_not_match_raises():
    """A record whose totals were changed raises ReplayMismatch saying what the rules give."""
    state = ruledraft.play_game("sushi-go", players=2, bots="random", seed=4)
    record = ruledraft.record_game(state, ["random", "random"])
    record["totals"] = [0, 0]
    with pytest.raises(
        ruledraft.ReplayMismatch,
        match=rf"^totals: \[0, 0\] in the log, the rules give \[{state.totals()[0]}, {state.totals()[1]}\]$",
    ):
        ruledraft.replay(record)


def test_replay_of_a_dummy_game_uses_the_ruleset_the_record_names():
    """A two-player dummy game replays by the bundled id its record names."""
    state = ruledraft.play_game("sushi-go-two-player-dummy", players=2, bots="greedy,random", seed=8)
    record = ruledraft.record_game(state, ["greedy", "random"])
    assert "ruleset_file" not in record
    assert ruledraft.replay(record).score_sheet().to_json() == state.score_sheet().to_json()


def test_read_log_names_the_line_of_a_bad_record(tmp_path):
    """A log line that is not JSON, or not a game record, is an InputError naming FILE:LINE."""
    state = ruledraft.play_game("sushi-go", players=2, bots="random", seed=1)
    good = json.dumps(ruledraft.record_game(state, ["random", "random"]))
    path = tmp_path / "games.jsonl"
    path.write_text(good + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ruledraft.InputError, match=r"^.*games\.jsonl:2:2: not valid JSON"):
        ruledraft.read_log(path)
    path.write_text(good + '\n{"format": 1}\n', encoding="utf-8")
    with pytest.raises(ruledraft.InputError, match=r"^.*games\.jsonl:2: missing key 'ruleset'; "):
        ruledraft.read_log(path)
    path.write_text(good + "\n\n", encoding="utf-8")
    assert ruledraft.read_log(path) == [json.loads(good)]


def test_simulate_takes_bot_specs_not_agent_objects():
    """An agent object given to `simulate` (which makes fresh bots for every game) is a TypeError saying what to do."""

    class First:
        name = "mine"

        def act(self, state, seat):
            return state.legal_actions(seat)[0]

    with pytest.raises(TypeError, match=r"^simulate takes bot specs \(text\), not agent objects: register the bot"):
        ruledraft.simulate("sushi-go", games=1, bots=["greedy", First()])
    with pytest.raises(TypeError, match=r"^tournament takes bot specs \(text\), not agent objects: register the bot"):
        ruledraft.tournament("sushi-go", [First(), "random"], players=2, games=2)
    with pytest.raises(TypeError, match=r"^bots are specs or agent objects, not the class First: pass First\(seed\)"):
        ruledraft.play_game("sushi-go", 2, [First, "random"])


def test_register_agent_takes_every_name_bots_can_give(monkeypatch):
    """Names with dots, leading digits or letters beyond ASCII register and play, as --bots gives them; only what --bots cannot give is refused."""
    from ruledraft.play import agents

    monkeypatch.setattr(agents, "_REGISTRY", dict(agents._REGISTRY))
    for name in ("my.bot", "2ply", "jäger"):
        ruledraft.register_agent(name, agents.FirstAgent)
        assert (
            ruledraft.play_game("sushi-go", 2, f"{name},random", seed=3).totals()
            == ruledraft.play_game("sushi-go", 2, "first,random", seed=3).totals()
        )


def test_isolate_refuses_a_bot_registered_in_this_process(monkeypatch):
    """isolate=True cannot run a bot registered with register_agent in a process of its own: an ArgumentError, never the bot run unisolated."""
    from ruledraft.play import agents

    class Peeker:
        def __init__(self, seed):
            self.name = "peeker"

        def act(self, view, seat):
            return view.legal_actions(seat)[0]

    monkeypatch.setattr(agents, "_REGISTRY", dict(agents._REGISTRY))
    ruledraft.register_agent("peeker", Peeker)
    with pytest.raises(
        ruledraft.ArgumentError, match=r"^isolate=True cannot isolate 'peeker', registered in this process"
    ):
        ruledraft.simulate("sushi-go", 2, games=1, bots="peeker,random", isolate=True, engine="reference")
    assert ruledraft.simulate("sushi-go", 2, games=1, bots="greedy,random", isolate=True).games == 1


def test_record_game_refuses_what_replay_would_refuse():
    """record_game of no game, an unfinished game, with no name or a name too many for the seats, is an InputError, not a record replay rejects later."""
    for nothing in (None, "sushi-go"):
        with pytest.raises(ruledraft.ArgumentError, match=f"^state must be a game's State, not {nothing!r}$"):
            ruledraft.record_game(nothing, ["a", "b"])
    unfinished = ruledraft.Game(ruledraft.load_ruleset("sushi-go"), 3).new_initial_state(1)
    with pytest.raises(ruledraft.InputError, match="only a finished game has a record"):
        ruledraft.record_game(unfinished, ["a", "b", "c"])
    finished = ruledraft.play_game("sushi-go", 3, "greedy", seed=1)
    with pytest.raises(ruledraft.InputError, match="seats names 4 for 3 players"):
        ruledraft.record_game(finished, ["a", "b", "c", "d"])
    with pytest.raises(ruledraft.InputError, match="seats names 0 for 3 players"):
        ruledraft.record_game(finished, [])
    with pytest.raises(ruledraft.InputError, match=r"^seats\[0\] is a name \(text\), not 1$"):
        ruledraft.record_game(finished, [1, 2, 3])
    assert ruledraft.replay(ruledraft.record_game(finished, ["a", "b", "c"])).totals() == finished.totals()


def test_record_game_names_the_seats_as_play_game_takes_its_bots():
    """record_game takes the seats as play_game takes its bots: "greedy,random" (or a list), the last filling the seats left."""
    state = ruledraft.play_game("sushi-go", 4, "greedy,random", seed=2)
    whole = ruledraft.record_game(state, ["greedy", "random", "random", "random"])
    assert ruledraft.record_game(state, "greedy, random") == ruledraft.record_game(state, ["greedy", "random"]) == whole
    assert whole["seats"] == ["greedy", "random", "random", "random"]


def test_replay_of_something_not_a_record_is_an_input_error():
    """ruledraft.replay of a string or a list says a record is a mapping, not an AttributeError."""
    for thing in ("x", [1, 2]):
        with pytest.raises(ruledraft.InputError, match="a game record is a mapping"):
            ruledraft.replay(thing)


def test_sigterm_stops_simulate_cleanly_then_ends_the_program(tmp_path):
    """SIGTERM in the middle of ruledraft.simulate: the run stops with its log's lines whole, then the signal is
    raised again, so the program ends as asked (it went on to its next call before)."""
    import signal
    import time

    log = tmp_path / "games.jsonl"
    script = (
        "import ruledraft\n"
        f"s = ruledraft.simulate('sushi-go', players=2, games=5_000_000, bots='random', log={str(log)!r})\n"
        "print('went on', s.games, flush=True)\n"
    )
    from processes import HANG, interrupted

    def playing() -> None:  # games are being played: the log has lines
        deadline = time.monotonic() + HANG
        while not (log.exists() and log.stat().st_size > 0):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.05)

    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = interrupted(proc, playing, signal.SIGTERM)
    assert proc.returncode == -signal.SIGTERM, err
    assert out == "" and err == ""
    text = log.read_text(encoding="utf-8")
    assert text.endswith("\n") and all(json.loads(line)["format"] == 1 for line in text.splitlines())
