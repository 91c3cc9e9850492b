"""Plug-in scoring kinds: `--plugin MODULE_OR_FILE.py`, the `ruledraft.scoring_kinds` entry points, workers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from paths import ROOT
from typer.testing import CliRunner

import ruledraft.language.kinds.registry as registry
from ruledraft.cli.app import app
from ruledraft.language.kinds import SCORING_KINDS
from ruledraft.language.loading import check_ruleset

PLUGIN = "examples/plugins/longest_run.py"
VARIANT = "examples/plugins/sushi-go-conveyor.yaml"

runner = CliRunner()


@pytest.fixture(autouse=True)
def no_plugins_after(monkeypatch):
    """Each test starts and ends with the built-in kinds only and no plug-in remembered."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv(registry.PLUGINS_ENV, raising=False)
    before = set(SCORING_KINDS.names())
    loaded = list(registry._loaded)
    files = set(registry._plugin_files)
    modules = set(sys.modules)
    yield
    for name in set(SCORING_KINDS.names()) - before:
        SCORING_KINDS.unregister(name)
    registry._loaded[:] = loaded
    registry._plugin_files.intersection_update(files)
    for name in set(sys.modules) - modules:
        if name.startswith(("ruledraft_plugin_", "fake_kinds")):
            del sys.modules[name]
    os.environ.pop(registry.PLUGINS_ENV, None)


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_without_the_plugin_the_kind_is_a_located_schema_error():
    """A rule file never imports code: without the plug-in its kind is unknown, at the kind's line and column."""
    result = invoke("validate", VARIANT)
    assert result.exit_code == 1
    assert (
        f"{VARIANT}:13:11: error: 'kind' must be one of sets, table, per_card, modifier, majority, expression, race, neighbours, boost, not 'longest_run'"
        in result.output
    )


def test_the_same_file_checked_again_follows_the_kinds_registered_at_each_check():
    """A rule file's schema problems are remembered for the same text and data only while
    the kinds stay the same: the variant is refused, accepted once the plug-in registers
    its kind, and refused again once the kind is gone."""
    from ruledraft.language.kinds import load_plugin

    def kind_refused() -> bool:
        return any("not 'longest_run'" in d.message for d in check_ruleset(VARIANT).diagnostics)

    assert kind_refused() and kind_refused()
    load_plugin(PLUGIN)
    assert not kind_refused()
    SCORING_KINDS.unregister("longest_run")
    assert kind_refused()


def test_the_plugin_file_makes_the_variant_validate_show_and_simulate():
    """With --plugin FILE.py the variant validates, `show` describes the kind, and --jobs 2 simulates it."""
    result = invoke("--plugin", PLUGIN, "validate", VARIANT)
    assert result.exit_code == 0, result.output
    assert "ok: Sushi Go! (conveyor belt)" in result.output
    result = runner.invoke(app, ["--plugin", PLUGIN, "show", VARIANT], env={"COLUMNS": "300"})
    assert (
        "  conveyor: By the longest run of nigiri cards (Egg Nigiri, Salmon Nigiri, Squid Nigiri) played one after "
        "another: 0: 0, 1: 0, 2: 0, 3: 2, 4: 5, 5: 9 (and 9 for longer)."
    ) in result.output.splitlines()
    result = invoke(
        "--plugin", PLUGIN, "simulate", VARIANT, "--players", "3", "--games", "60", "--jobs", "2", "--quiet"
    )
    assert result.exit_code == 0, result.output
    assert "conveyor" in result.output


def test_the_schema_command_prints_the_plugin_fragment():
    """`ruledraft --plugin FILE schema` adds the kind's definition and enum entry for editors; without it, the shipped file."""
    schema = json.loads(invoke("--plugin", PLUGIN, "schema").output)
    assert schema["$defs"]["scoringRule"]["properties"]["kind"]["enum"][-1] == "longest_run"
    assert schema["$defs"]["longestRunRule"]["required"] == ["cards", "points"]


def test_the_plugin_scores_its_rule():
    """The kind's rule scores the longest run in play order, capped at the last entry."""
    invoke("--plugin", PLUGIN, "schema")
    rs = check_ruleset(VARIANT).ruleset
    rule = next(r for r in rs.rules if r.id == "conveyor")
    egg, tempura = rs.card_index("egg_nigiri"), rs.card_index("tempura")
    from ruledraft.tableau import Tableau

    t = Tableau.from_cards(rs.catalogue.size, [[egg, egg, egg], [egg, tempura, egg, egg], [egg] * 7])
    assert rule.score(t) == [2, 0, 9]
    assert [rule.score_seat(t, s) for s in range(3)] == [2, 0, 9]


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("examples/plugins/nothing_here.py", "error: plug-in 'examples/plugins/nothing_here.py': no such file"),
        (
            "no_such_plugin_module",
            "error: plug-in 'no_such_plugin_module' failed to load: ModuleNotFoundError: No module named 'no_such_plugin_module'",
        ),
    ],
)
def test_a_plugin_that_cannot_load_is_one_line(spec, message):
    """A missing file or module is one line naming it, exit 2, no traceback."""
    result = invoke("--plugin", spec, "validate", "sushi-go")
    assert result.exit_code == 2
    assert result.output.strip() == message


def test_a_plugin_that_fails_or_clashes_is_one_line(tmp_path):
    """A plug-in raising on import, or taking a built-in kind's or another plug-in's kind's
    name, is one line naming it (and who has the name), exit 2."""
    bad = tmp_path / "bad.py"
    bad.write_text("raise RuntimeError('broken on purpose')\n", encoding="utf-8")
    result = invoke("--plugin", bad, "validate", "sushi-go")
    assert result.exit_code == 2
    assert result.output.strip() == f"error: plug-in '{bad}' failed to load: RuntimeError: broken on purpose"
    clash = tmp_path / "clash.py"
    clash.write_text(
        "from ruledraft.language.kinds import register_scoring_kind\n"
        "register_scoring_kind('sets', lambda spec, ctx: None, {'properties': {}})\n",
        encoding="utf-8",
    )
    result = invoke("--plugin", clash, "validate", "sushi-go")
    assert result.exit_code == 2
    assert (
        result.output.strip()
        == f"error: plug-in '{clash}': a scoring kind named 'sets' is already registered (by ruledraft)"
    )
    again = tmp_path / "again.py"
    again.write_text(
        "from ruledraft.language.kinds import register_scoring_kind\n"
        "register_scoring_kind('twice', lambda spec, ctx: None, {'properties': {}})\n",
        encoding="utf-8",
    )
    copy = tmp_path / "copy.py"
    copy.write_text(again.read_text(encoding="utf-8"), encoding="utf-8")
    result = invoke("--plugin", again, "--plugin", copy, "validate", "sushi-go")
    assert result.exit_code == 2
    said = f"error: plug-in '{copy}': a scoring kind named 'twice' is already registered (by '{again}')"
    assert result.output.strip() == said


def _fake_distribution(tmp_path: Path) -> Path:
    """A distribution on a path entry: a module and a dist-info naming it in ruledraft.scoring_kinds."""
    site = tmp_path / "site"
    site.mkdir()
    source = (ROOT / PLUGIN).read_text(encoding="utf-8")
    (site / "fake_kinds.py").write_text(
        source.replace("KIND = register_scoring_kind(", "KIND = ScoringKind(").replace(
            "from ruledraft.language.kinds import register_scoring_kind",
            "from ruledraft.language.kinds import ScoringKind",
        ),
        encoding="utf-8",
    )
    info = site / "fake_kinds-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-kinds\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[ruledraft.scoring_kinds]\nlongest_run = fake_kinds:KIND\n", encoding="utf-8"
    )
    return site


def test_an_installed_package_brings_its_kind_through_the_entry_point_group(tmp_path, monkeypatch):
    """A distribution naming a kind in ruledraft.scoring_kinds is loaded with no --plugin, and its rules score."""
    site = _fake_distribution(tmp_path)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(SCORING_KINDS, "_plugins_loaded", False)
    result = check_ruleset(VARIANT)
    assert result.diagnostics == []
    assert "longest_run" in SCORING_KINDS.names()
    assert any(r.id == "conveyor" for r in result.ruleset.rules)


def test_workers_that_start_afresh_load_the_plugins_again(tmp_path):
    """A process that does not fork from the command (spawned workers) gets --plugin modules through RULEDRAFT_PLUGINS."""
    code = (
        "from ruledraft.language.loading import load_ruleset\n"
        f"rs = load_ruleset({VARIANT!r})\n"
        "print([r.id for r in rs.rules][-2])\n"
    )
    env = dict(os.environ, **{registry.PLUGINS_ENV: str(ROOT / PLUGIN)})
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "conveyor"


def test_simulate_with_spawned_workers_scores_the_plugin_kind(monkeypatch):
    """Where processes cannot fork, --jobs 2 workers start afresh and still score the plug-in's rule."""
    import ruledraft.play.runner as runner_module

    monkeypatch.setattr(runner_module, "_start_method", lambda: "spawn")
    result = invoke(
        "--plugin", PLUGIN, "simulate", VARIANT, "--players", "3", "--games", "30", "--jobs", "2", "--quiet"
    )
    assert result.exit_code == 0, result.output
    assert "conveyor" in result.output


def test_a_plugin_builder_that_fails_is_a_diagnostic_at_the_rule(tmp_path):
    """A plug-in builder that raises gives one located diagnostic at the rule's kind, not a traceback."""
    plugin = tmp_path / "faulty.py"
    plugin.write_text(
        "from ruledraft.language.kinds import register_scoring_kind\n"
        "def build(spec, ctx):\n"
        "    raise ValueError('no good')\n"
        "register_scoring_kind('longest_run', build, {'properties': {'cards': True, 'points': True}})\n",
        encoding="utf-8",
    )
    result = invoke("--plugin", plugin, "validate", VARIANT)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[0] == (
        f"{VARIANT}:13:11: error: the scoring kind 'longest_run' could not build this rule: ValueError: no good"
    )


def test_an_unknown_kind_says_how_a_plug_in_kind_is_loaded():
    """A rule file using a plug-in's kind without --plugin says where, and how to load the plug-in."""
    from typer.testing import CliRunner

    from ruledraft.cli.app import app

    result = CliRunner().invoke(app, ["validate", "examples/plugins/sushi-go-conveyor.yaml"])
    assert result.exit_code == 1
    assert result.output.startswith("examples/plugins/sushi-go-conveyor.yaml:13:11: error: 'kind' must be one of ")
    assert result.output.rstrip().endswith(
        "not 'longest_run' (a kind from a plug-in is known once it is loaded: ruledraft --plugin FILE_OR_MODULE ...)"
    )


@pytest.mark.parametrize(
    "returns, message",
    [
        ("None", "the scoring kind 'odd_kind' built no rule and reported no problem"),
        ("7", "the scoring kind 'odd_kind' built int, not a rule (see ruledraft.language.rule.Rule)"),
    ],
)
def test_a_plugin_builder_that_gives_no_rule_is_an_error_at_the_rule(tmp_path, returns, message):
    """A plug-in builder returning nothing (without a diagnostic) or a non-rule is an error at the rule's kind, never a dropped rule or exit 70."""
    plugin = tmp_path / "odd.py"
    plugin.write_text(
        "from ruledraft.language.kinds import register_scoring_kind\n"
        f"register_scoring_kind('odd_kind', lambda spec, ctx: {returns}, {{'properties': {{}}}})\n",
        encoding="utf-8",
    )
    rules = tmp_path / "odd.yaml"
    rules.write_text(
        "format: 1\nextends: sushi-go\nid: odd\nname: Odd\nscoring:\n  - id: z\n    kind: odd_kind\n", encoding="utf-8"
    )
    result = invoke("--plugin", plugin, "validate", rules)
    assert result.exit_code == 1
    assert result.output == f"{rules}:7:11: error: {message}\n"


@pytest.mark.parametrize(
    "schema, message",
    [
        ("{'properties': 5}", "its schema is not a valid JSON Schema: 5 is not of type 'object'"),
        ("{'properties': {'x': {'type': object}}}", "its schema is not JSON data"),
        ("{'properties': {'x': {'$ref': '#/$defs/nothing'}}}", "its schema refers to '#/$defs/nothing'"),
    ],
)
def test_a_plugin_schema_that_cannot_work_is_refused_when_it_registers(tmp_path, schema, message):
    """A plug-in whose schema is no JSON, no JSON Schema, or refers to a missing definition is one line at load, exit 2."""
    plugin = tmp_path / "bad_schema.py"
    plugin.write_text(
        "from ruledraft.language.kinds import register_scoring_kind\n"
        f"register_scoring_kind('bad_schema', lambda spec, ctx: None, {schema})\n",
        encoding="utf-8",
    )
    result = invoke("--plugin", plugin, "schema")
    assert result.exit_code == 2
    assert result.output.startswith(f"error: plug-in '{plugin}': scoring kind 'bad_schema': {message}")


@pytest.mark.parametrize(
    "spec, message",
    [
        (".foo", "error: plug-in '.foo': neither a Python file (NAME.py) nor a module name (package.module)"),
        ("/tmp", "error: plug-in '/tmp': a directory, not a Python file"),
    ],
)
def test_a_plugin_spec_that_names_no_file_or_module_says_what_it_is(spec, message):
    """A directory or a word that is no module name is one line saying so (not 'no such file' or an import internals message)."""
    result = invoke("--plugin", spec, "validate", "sushi-go")
    assert (result.exit_code, result.output.strip()) == (2, message)


@pytest.mark.parametrize(
    ("args", "fault", "said"),
    [
        (["--bots", "greedy"], "1 // 0", "ZeroDivisionError: integer division or modulo by zero"),
        (["--bots", "random", "--jobs", "2"], "1 // 0", "ZeroDivisionError: integer division or modulo by zero"),
        (["--bots", "random"], "exit(3)", "SystemExit: 3"),
        (["--bots", "random", "--jobs", "2"], "exit(3)", "SystemExit: 3"),
    ],
    ids=["raises", "raises-in-workers", "exits", "exits-in-workers"],
)
def test_a_plugin_rule_that_raises_in_play_is_one_line_naming_the_plugin(tmp_path, args, fault, said):
    """A plug-in kind whose rule raises (or calls sys.exit) while a bot weighs a card or a round is scored is one
    line naming the plug-in's file and line, exit 2, in the main process and in workers; an exit is not the
    silent status the plug-in asked for."""
    source = (ROOT / PLUGIN).read_text(encoding="utf-8")
    broken = source.replace("return self.points[min(best, len(self.points) - 1)]", f"return {fault}")
    assert broken != source
    plugin = tmp_path / "broken_run.py"
    plugin.write_text(broken, encoding="utf-8")
    line = broken.splitlines().index(f"        return {fault}") + 1
    rules = ROOT / "examples" / "plugins" / "sushi-go-conveyor.yaml"
    proc = subprocess.run(
        [sys.executable, "-m", "ruledraft", "--plugin", str(plugin), "simulate", str(rules), "-g", "20", "-q", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"error: plug-in {plugin}, line {line}: {said}\n"


def test_an_own_cards_rule_that_defines_score_alone_scores_a_seat_from_it():
    """A plug-in's OwnCardsRule with only score(t), as the guide shows, scores one seat (what greedy asks) from it,
    not by recursing until Python gives up."""
    from ruledraft.language.rule import OwnCardsRule
    from ruledraft.tableau import Tableau

    class Doubled(OwnCardsRule):
        def score(self, t):
            return [2 * sum(row) for row in t.counts]

    t = Tableau([[1, 0, 2], [0, 3, 0]], [[0, 2, 2], [1, 1, 1]])
    rule = Doubled()
    assert [rule.score_seat(t, s) for s in range(2)] == rule.score(t) == [6, 6]
    assert rule.score_row([4, 1, 0], [0, 0, 0, 0, 1]) == 10


def _writer_rule_kind(name: str, score_row):
    """A plug-in kind registered from this file, its rules scoring each seat's row with ``score_row``."""
    import attrs

    from ruledraft.language.kinds import register_scoring_kind
    from ruledraft.language.rule import OwnCardsRule

    @attrs.frozen(eq=False)
    class Rule(OwnCardsRule):
        id: str
        when: str

        @property
        def reads(self):
            return None

        def score(self, t):
            return [self.score_row(r, q) for r, q in zip(t.counts, t.cards)]

        def score_row(self, row, seq):
            return score_row(row, seq)

        def describe(self):
            return name

    register_scoring_kind(name, lambda spec, ctx: Rule(spec["id"], spec["when"]), {"properties": {}})
    return f"format: 1\nextends: sushi-go\nid: {name}\nname: W\nscoring:\n  - {{id: w, kind: {name}}}\n"


def test_a_plugin_rule_that_writes_to_its_rows_changes_no_game():
    """A rule whose score_row adds a tempura to the row it is given and appends to the cards: greedy bots, who weigh cards by the live rows, play the same game as without it, and it replays clean (it changed the real tables and scores)."""
    import ruledraft

    def writes(row, seq):
        row[0] += 1
        seq.append(seq[0] if seq else 0)
        return 0

    rs = ruledraft.load_ruleset(text=_writer_rule_kind("row_writer", writes))
    for bots in ("greedy", "value"):
        state = ruledraft.play_game(rs, players=3, bots=bots, seed=1)
        plain = ruledraft.play_game("sushi-go", players=3, bots=bots, seed=1)
        assert state.totals() == plain.totals() and state.history == plain.history
        ruledraft.replay(ruledraft.record_game(state, [bots] * 3), ruleset=rs)


def test_a_plugin_rule_that_raises_is_a_plugin_error_naming_its_file_through_the_api():
    """A kind registered from Python (not --plugin) whose rule raises KeyError: play_game, simulate and score_table raise a PluginError naming this file and the line, the KeyError its cause."""
    import ruledraft
    from ruledraft.language.kinds.registry import PluginError

    def fails(row, seq):
        raise KeyError("oops")

    rs = ruledraft.load_ruleset(text=_writer_rule_kind("row_failer", fails))
    table = {"rounds": [[["tempura"], ["tempura"], ["tempura"]]] * 3}
    for call, chained in (
        (lambda: ruledraft.play_game(rs, players=3, bots="random", seed=1), True),
        (lambda: ruledraft.simulate(rs, players=3, games=4, engine="reference"), False),  # as --plugin's runs say it
        (lambda: ruledraft.score_table(rs, table), True),
    ):
        with pytest.raises(PluginError, match=rf"^plug-in {__file__}, line \d+: KeyError: 'oops'$") as caught:
            call()
        assert isinstance(caught.value.__cause__, KeyError) == chained


def test_a_plugin_that_registers_a_builtin_builder_does_not_make_ruledraft_a_plugin():
    """A kind registered with ruledraft's own majority builder, and one with a functools.partial: neither ruledraft's file nor the standard library's is taken for a plug-in's code (a fault there is ruledraft's, not a plug-in's)."""
    import functools

    from ruledraft.language.kinds import majority, register_scoring_kind

    register_scoring_kind("my_majority", majority.build, {"properties": {}})
    register_scoring_kind("my_partial", functools.partial(majority.build), {"properties": {}})
    files = registry.plugin_files()
    assert os.path.realpath(majority.__file__) not in files
    assert os.path.realpath(functools.__file__) not in files


def test_a_plugin_whose_results_sum_past_the_bound_of_every_total_is_named():
    """Each round's result of a plug-in rule is within the language's bound (10**15), but three rounds of them are not: the game ends in a PluginError naming the kind, not a total the statistics' floats round; one round's worth is played out."""
    import ruledraft
    from ruledraft.language.kinds.registry import PluginError

    rs = ruledraft.load_ruleset(text=_writer_rule_kind("row_huge", lambda row, seq: 10**15 // 2))
    with pytest.raises(
        PluginError,
        match=r"^a seat's total over the game is 1,500,000,000,000,\d{3}, past the 1,000,000,000,000,000 every total keeps to \(the game has rules of the plug-in kind 'row_huge', each result within bounds, their sum not\)$",
    ):
        ruledraft.play_game(rs, players=3, bots="random", seed=1)
    small = ruledraft.load_ruleset(text=_writer_rule_kind("row_third", lambda row, seq: 10**15 // 4))
    assert min(ruledraft.play_game(small, players=3, bots="random", seed=1).totals()) >= 3 * (10**15 // 4)


def test_a_scored_table_whose_plugin_results_sum_past_the_bound_is_named():
    """score_table (and so ``ruledraft score``) checks the plug-in rules' sum as a played game does: three rounds of 5 * 10**14 each are a PluginError naming the kind; three of a quarter of the bound are scored."""
    import ruledraft
    from ruledraft.language.kinds.registry import PluginError

    table = {"rounds": [[["tempura"], ["tempura"], ["tempura"]]] * 3}
    rs = ruledraft.load_ruleset(text=_writer_rule_kind("row_huge", lambda row, seq: 10**15 // 2))
    with pytest.raises(
        PluginError, match=r"^a seat's total over the game is 1,500,000,000,000,\d{3}, past .* 'row_huge'"
    ):
        ruledraft.score_table(rs, table)
    small = ruledraft.load_ruleset(text=_writer_rule_kind("row_third", lambda row, seq: 10**15 // 4))
    assert min(ruledraft.score_table(small, table)["totals"]) >= 3 * (10**15 // 4)


def test_score_says_a_table_whose_plugin_totals_pass_the_bound_in_its_place_and_scores_the_rest(tmp_path):
    """`score` of three tables as JSON Lines, the second's plug-in totals past 10**15 (three rounds of 4 * 10**14): it is said on its line, as a table with an unknown card is, and the first and third are scored; exit 1."""
    import ruledraft

    tempura = ruledraft.load_ruleset("sushi-go").catalogue.ids.index("tempura")
    rules, batch = tmp_path / "heavy.yaml", tmp_path / "batch.jsonl"
    rules.write_text(_writer_rule_kind("heavy_tempura", lambda row, seq: row[tempura] * 4 * 10**14), encoding="utf-8")
    light = {"rounds": [[["sashimi"], ["sashimi"], ["sashimi"]]] * 3}
    heavy = {"rounds": [[["tempura"], ["sashimi"], ["sashimi"]]] * 3}
    batch.write_text("".join(json.dumps(t) + "\n" for t in (light, heavy, light)), encoding="utf-8")
    result = runner.invoke(app, ["score", str(rules), str(batch)])
    assert result.exit_code == 1
    out = [json.loads(line) for line in result.stdout.splitlines()]
    assert [list(o) for o in out] == [["rounds", "game_end", "totals", "winners"], ["where", "errors"]] + [
        ["rounds", "game_end", "totals", "winners"]
    ]
    assert out[1]["where"] == f"{batch}:2" and "past the 1,000,000,000,000,000" in out[1]["errors"][0]
    assert "1 of 3 tables could not be scored" in result.stderr
