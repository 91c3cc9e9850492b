"""Plug-in card effects end to end: `--plugin FILE.py`, `register_card_effect`, the
`ruledraft.card_effects` entry points; the schema, located errors, `show`, `play`,
`simulate --jobs 2` and `replay` of an effect no built-in unit knows."""

from __future__ import annotations

import json
import os
import random
import sys
from pathlib import Path

import attrs
import pytest
from typer.testing import CliRunner

import ruledraft.language.kinds.registry as registry
from ruledraft.cli.app import app
from ruledraft.cli.play import SeatNames, event_line
from ruledraft.engine.state import Game
from ruledraft.errors import RulesetError
from ruledraft.language.effects import EFFECT_KINDS
from ruledraft.language.kinds import SCORING_KINDS
from ruledraft.language.loading import check_ruleset
from ruledraft.play.runner import play_game

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = "examples/plugins/trade_in.py"
VARIANT = "examples/plugins/sushi-go-trade-in.yaml"
ONES = "1\n" * 200  # more answers than a game asks for

runner = CliRunner()


@pytest.fixture(autouse=True)
def no_plugins_after(monkeypatch):
    """Each test starts and ends with the built-in effects and kinds only and no plug-in remembered."""
    monkeypatch.chdir(ROOT)
    monkeypatch.delenv(registry.PLUGINS_ENV, raising=False)
    before = {r: set(r.names()) for r in (EFFECT_KINDS, SCORING_KINDS)}
    loaded = list(registry._loaded)
    modules = set(sys.modules)
    yield
    for r, names in before.items():
        for name in set(r.names()) - names:
            r.unregister(name)
    registry._loaded[:] = loaded
    for name in set(sys.modules) - modules:
        if name.startswith(("ruledraft_plugin_", "fake_effects")):
            del sys.modules[name]
    os.environ.pop(registry.PLUGINS_ENV, None)


def invoke(*args, **kwargs):
    return runner.invoke(app, [str(a) for a in args], **kwargs)


def with_variant(tmp_path: Path, old: str, new: str) -> Path:
    """The variant with ``old`` replaced by ``new``, written beside the original's parent (extends resolves)."""
    text = (ROOT / VARIANT).read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "variant.yaml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_without_the_plugin_the_effect_is_a_located_schema_error_that_says_how_to_load_it():
    """A rule file never imports code: without the plug-in its effect is unknown, at the kind's line and column."""
    result = invoke("validate", VARIANT)
    assert result.exit_code == 1
    assert (
        f"{VARIANT}:12:78: error: 'kind' must be one of "
        "extra_pick, second_pick, draw_and_choose, collision, turn_face_down, copy_earlier, ask_for, not 'trade_in' "
        "(an effect from a plug-in is known once it is loaded: ruledraft --plugin FILE_OR_MODULE ...)"
    ) in result.output


def test_the_schema_command_prints_the_plugin_effect_and_the_committed_file_stays_builtin():
    """`--plugin FILE schema` adds the effect's enum entry and definition; without it, neither."""
    schema = json.loads(invoke("--plugin", PLUGIN, "schema").output)
    assert schema["$defs"]["effect"]["properties"]["kind"]["enum"][-1] == "trade_in"
    assert set(schema["$defs"]["tradeInEffect"]["properties"]) == {"kind", "when", "order", "description", "not"}
    committed = json.loads((ROOT / "schemas" / "ruleset.schema.json").read_text(encoding="utf-8"))
    assert "tradeInEffect" not in committed["$defs"]
    assert "trade_in" not in committed["$defs"]["effect"]["properties"]["kind"]["enum"]


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("not: [pudding]", "nott: [pudding]", "12:88: error: unknown key 'nott' in 'effect' (did you mean 'not'?)"),
        ("not: [pudding]", "not: [puding]", "12:94: error: unknown card 'puding' (did you mean 'pudding'?)"),
        ("trade_in, not", "trade_in, when: turn_end, not", "12:94: error: 'when' must be one of play, not 'turn_end'"),
    ],
)
def test_a_mistake_in_a_plugin_effect_is_located_with_a_suggestion(tmp_path, old, new, message):
    """The plug-in's schema and its builder's names give located lines with did-you-mean, exit 1."""
    path = with_variant(tmp_path, old, new)
    result = invoke("--plugin", PLUGIN, "validate", path)
    assert result.exit_code == 1
    assert f"{path}:{message}" in result.output.splitlines()


def test_show_describes_the_plugin_effect():
    """`show` lists the plug-in effect under Card effects in its own words."""
    result = invoke("--plugin", PLUGIN, "show", VARIANT, env={"COLUMNS": "300"})
    assert result.exit_code == 0, result.output
    assert "  Recycler: when played (order 0), you may discard a card from your table (not Pudding)." in (
        result.output.splitlines()
    )


def play_lines(seed: int) -> list[str]:
    """The lines of ``ruledraft play`` of the variant against greedy bots, always answering 1."""
    result = invoke(
        "--plugin", PLUGIN, "play", VARIANT, "--players", "3", "--seed", seed, "--bots", "greedy",
        input=ONES, env={"COLUMNS": "80"},
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_play_tells_the_plugin_effect_in_its_own_words():
    """`play` words the plug-in's event through the effect: in the second person for you, the third for a bot."""
    mine, theirs = play_lines(4), play_lines(8)
    assert "  - You trade in your Tempura with your Recycler." in mine
    assert "  - Seat 1 trades in its Wasabi with its Recycler." in theirs
    assert not any(line.startswith("  - traded_in") for line in mine + theirs)  # never the raw event


def test_event_line_asks_the_effect_and_falls_back_to_the_raw_event():
    """event_line finds the plug-in's words for its event; an event nobody words is shown as data."""
    invoke("--plugin", PLUGIN, "schema")
    g = Game(check_ruleset(VARIANT).ruleset, 3)
    idx = g.ruleset.card_index
    what = ("traded_in", 1, idx("tempura"), idx("recycler"))
    assert event_line(g, SeatNames(g, 1, {0: "greedy", 2: "greedy"}), what) == (
        "You trade in your Tempura with your Recycler."
    )
    assert event_line(g, SeatNames(g, 0, {1: "greedy", 2: "greedy"}), ("unknown_event", 1, 2)) == "unknown_event 1 2"


def test_a_simulated_game_on_two_workers_plays_the_effect_and_its_log_replays_clean(tmp_path):
    """`simulate --jobs 2 --log` plays the plug-in's decisions in the workers, and `replay` of the log agrees."""
    log = tmp_path / "games.jsonl"
    result = invoke(
        "--plugin", PLUGIN, "simulate", VARIANT, "--players", "3", "--games", "40", "--jobs", "2",
        "--quiet", "--log", log,
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "recycler" in result.output
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 40
    recycler_turns = [
        t for r in records for rnd in r["rounds"] for t in rnd["turns"] if any("recycler" in p for p in t["picks"])
    ]
    assert any("decisions" in t for t in recycler_turns), "a recycler asked a decision in some game"
    result = invoke("--plugin", PLUGIN, "replay", log)
    assert result.exit_code == 0, result.output
    assert "40 games replayed, 40 clean, 0 with problems" in result.output


def test_simulate_with_spawned_workers_plays_the_plugin_effect(monkeypatch):
    """Where processes cannot fork, --jobs 2 workers start afresh, load the plug-in again and play its effect."""
    import ruledraft.play.runner as runner_module

    monkeypatch.setattr(runner_module, "_start_method", lambda: "spawn")
    result = invoke(
        "--plugin", PLUGIN, "simulate", VARIANT, "--players", "3", "--games", "20", "--jobs", "2", "--quiet"
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "recycler" in result.output


def test_the_effect_acts_by_its_step_and_keeps_every_card():
    """A recycler's decision discards the chosen table card, and every card stays counted at every step,
    across the round ends of a deck that is not reshuffled (cards that leave are out of play, once)."""
    invoke("--plugin", PLUGIN, "schema")
    g = Game(check_ruleset(VARIANT).ruleset, 3)
    assert g.ruleset.between_rounds == "keep_deck"
    state = play_game(g, 4, ["greedy"] * 3)
    traded = [e for e in state.events if e.what[0] == "traded_in"]
    assert traded and all(e.what[3] == g.ruleset.card_index("recycler") for e in traded)
    everything = sorted(g.ruleset.catalogue.deck())
    for seed in range(3):
        state = g.new_initial_state(seed)
        rngs = [random.Random(seed * 10 + s).random for s in range(3)]
        while not state.is_terminal():
            assert state.all_cards() == everything, (seed, state.round, state.turn)
            state.apply_actions([state.sample_action(s, rngs[s]) for s in state.acting_seats()])
        assert state.all_cards() == everything


STEPLESS = """\
from typing import ClassVar
import attrs
from ruledraft.language.effects import register_card_effect
from ruledraft.language.effects.base import EffectBase, common

@attrs.frozen(kw_only=True)
class Idle(EffectBase):
    KIND: ClassVar[str] = "trade_in"

    def describe(self):
        return "idle"

register_card_effect("trade_in", lambda spec, ctx, card: Idle(**common(spec, ctx, card, "play")),
                     {"properties": {"not": True}})
"""


def test_an_effect_without_a_step_is_refused_where_it_is_declared(tmp_path):
    """An effect whose object has no step for its trigger: `validate` and `simulate` name the card's effect, exit 1."""
    plugin = tmp_path / "stepless.py"
    plugin.write_text(STEPLESS, encoding="utf-8")
    expected = (
        f"{VARIANT}:12:78: error: the card effect 'trade_in' of card 'recycler' has no engine step for when: play "
        "(its effect object needs a start method; see register_card_effect)"
    )
    for command in (["validate"], ["simulate", "--games", "2", "--players", "3"]):
        result = invoke("--plugin", plugin, command[0], VARIANT, *command[1:])
        assert result.exit_code == 1
        assert result.output.strip().splitlines()[0] == expected


def test_a_game_refuses_a_stepless_effect_at_build_time_located():
    """Game() itself refuses a ruleset holding an effect with no step (one not built from a file, say), at its place."""
    invoke("--plugin", PLUGIN, "schema")
    rs = check_ruleset(VARIANT).ruleset

    @attrs.frozen
    class Bare:  # the shape an effect had before steps: words, no step
        kind: str
        card: int
        when: str
        order: int

    stepless = attrs.evolve(rs, effects=(Bare("trade_in", rs.effects[0].card, "play", 0),))
    with pytest.raises(RulesetError) as caught:
        Game(stepless, 3)
    [d] = caught.value.diagnostics
    assert (d.file, d.line, d.column) == (VARIANT, 12, 78)
    assert "has no engine step for when: play" in d.message


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("register_card_effect('collision', build, {'properties': {}})", "a card effect named 'collision' is already registered (by ruledraft)"),
        ("register_card_effect('spin', build, {'properties': {}}, when='pick', triggers=['pick'])",
         "card effect 'spin': its triggers must be some of play, reveal, turn_end, its default (when) one of them"),
        ("register_card_effect('spin', build, {'type': 'array'})", "card effect 'spin': its schema must be a JSON Schema of an object"),
        ("register_card_effect('spin', build, {'properties': {'x': {'$ref': '#/$defs/nowhere'}}})",
         "card effect 'spin': its schema refers to '#/$defs/nowhere'; a plug-in may refer to the ruleset schema's "
         "own definitions (#/$defs/selector, #/$defs/points, ...)"),
    ],
)  # fmt: skip
def test_a_plugin_effect_that_cannot_work_is_refused_when_it_registers(tmp_path, call, message):
    """A clash with a built-in effect, a trigger the engine does not run, or a broken schema: one line naming the plug-in, exit 2."""
    plugin = tmp_path / "bad_effect.py"
    plugin.write_text(
        f"from ruledraft.language.effects import register_card_effect\nbuild = lambda spec, ctx, card: None\n{call}\n",
        encoding="utf-8",
    )
    result = invoke("--plugin", plugin, "validate", "sushi-go")
    assert result.exit_code == 2
    assert result.output.strip() == f"error: plug-in '{plugin}': {message}"


def test_an_installed_package_brings_its_effect_through_the_entry_point_group(tmp_path, monkeypatch):
    """A distribution naming an effect in ruledraft.card_effects is loaded with no --plugin, and the variant builds."""
    site = tmp_path / "site"
    site.mkdir()
    source = (ROOT / PLUGIN).read_text(encoding="utf-8")
    (site / "fake_effects.py").write_text(
        source.replace(
            "EFFECT = register_card_effect(NAME, build, SCHEMA)", "EFFECT = EffectKind(NAME, build, SCHEMA)"
        ).replace("import register_card_effect", "import EffectKind"),
        encoding="utf-8",
    )
    info = site / "fake_effects-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fake-effects\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(
        "[ruledraft.card_effects]\ntrade_in = fake_effects:EFFECT\n", encoding="utf-8"
    )
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setattr(EFFECT_KINDS, "_plugins_loaded", False)
    result = check_ruleset(VARIANT)
    assert result.diagnostics == []
    assert "trade_in" in EFFECT_KINDS.names()
    assert [e.kind for e in result.ruleset.effects] == ["trade_in"]


@pytest.mark.parametrize(
    ("start", "said"),
    [
        ("return 42", "gave 42"),
        ("return Decision(seat=99, effect=self.kind, card=self.card, prompt='x', options=(0,), owner=99)", "seat=99"),
        (
            "return Decision(seat=seat, effect=self.kind, card=self.card, prompt='x', options=(), owner=seat)",
            "options=()",
        ),
    ],
    ids=["not-a-decision", "no-such-seat", "no-choice"],
)
def test_an_effect_asking_what_no_seat_can_answer_is_one_line_naming_it(tmp_path, start, said):
    """A plug-in effect whose start() returns something other than None or a Decision a seat of the game can make
    (an int, seat 99, no choice) is one line naming the effect and its file, exit 2, not an internal error later."""
    source = (ROOT / PLUGIN).read_text(encoding="utf-8")
    broken = source.replace("        effect_of = state.game.effect_of\n", f"        {start}\n", 1)
    assert broken != source
    plugin = tmp_path / "broken_effect.py"
    plugin.write_text(broken, encoding="utf-8")
    result = invoke("--plugin", plugin, "simulate", VARIANT, "-g", "5", "-q", "-p", "3")
    assert result.exit_code == 2, result.output
    line = result.output.strip()
    assert line.startswith(f"error: card effect 'trade_in' ({plugin}): its start() gave ") and said in line
    assert line.endswith(
        "where None or a Decision of a seat from 0 to 2, about a card of the game, with at least one of the game's "
        f"actions (0 to {Game(check_ruleset(VARIANT).ruleset, 3).done_action}) as its options is wanted"
    )


def test_an_effect_giving_its_options_as_a_list_of_numpy_integers_still_plays(tmp_path):
    """Options given as a list of numpy integers (which the engine took before decisions were checked) are taken as
    a tuple of ints: the games play and replay as with the example's own tuple."""
    source = (ROOT / PLUGIN).read_text(encoding="utf-8")
    listed = source.replace(
        "options=(*options, state.game.done_action),",
        "options=[__import__('numpy').int64(o) for o in (*options, state.game.done_action)],",
    )
    assert listed != source
    plugin = tmp_path / "listed.py"
    plugin.write_text(listed, encoding="utf-8")
    log = tmp_path / "games.jsonl"
    result = invoke("--plugin", plugin, "simulate", VARIANT, "-g", "20", "-q", "-p", "3", "--log", log)
    assert result.exit_code == 0, result.output
    assert invoke("--plugin", plugin, "replay", log).exit_code == 0


def test_a_card_a_plug_in_effect_puts_into_a_hand_unseen_stays_hidden_from_the_seats_that_held_it():
    """A plug-in effect drawing a card into its seat's hand face down (into_hand,
    private=True): a seat that held that hand before is not shown the card once the hand passes (its view,
    the observation's known hands, the re-deals of hidden cards keep it unknown); the
    drawing seat and every seat that holds the hand afterwards know it."""
    from typing import ClassVar

    import ruledraft
    from ruledraft.engine.view import seat_view
    from ruledraft.language.effects.base import EffectBase, common

    @attrs.frozen(kw_only=True)
    class DrawToHand(EffectBase):
        KIND: ClassVar[str] = "draw_to_hand_test"

        def describe(self) -> str:
            return f"{self.name}: draw a card into your hand."

        def start(self, state, seat):
            for c in state.draw(1):
                state.into_hand(seat, c, private=True)  # drawn face down: only this seat sees it
            return None

    ruledraft.register_card_effect(
        "draw_to_hand_test",
        lambda spec, ctx, card: DrawToHand(**common(spec, ctx, card, "play")),
        {"title": "Draw to hand", "properties": {}},
    )
    rules = ruledraft.load_ruleset(
        text="format: 1\nextends: sushi-go\nid: scout\nname: Scout\ncards:\n"
        "  - {id: scout, name: Scout, count: 12, group: scout, effect: {kind: draw_to_hand_test}}\n",
        name="scout.yaml",
    )
    game = Game(rules, 3)
    scout = rules.catalogue.index_of("scout")
    state = game.new_initial_state(0)
    while not (state.turn >= 1 and scout in state.hands[0]):
        state.apply_actions([state.legal_actions(s)[0] for s in range(3)])
    seen_before = sorted(seat_view(state, 2).known_hands[0])  # seat 2 held this hand last turn
    drawn = state.deck[state.deck_pos]
    state.apply_actions([scout, state.legal_actions(1)[0], state.legal_actions(2)[0]])
    hand = sorted(state.hands[1])  # seat 0's hand, passed left to seat 1, with the drawn card
    assert len(hand) == len(seen_before) and drawn in hand  # (one scout played, one card drawn)
    without = hand[:]
    without.remove(drawn)
    assert sorted(seat_view(state, 2).known_hands[1]) == without  # seat 2 never saw the drawn card
    assert sorted(seat_view(state, 0).known_hands[1]) == hand  # seat 0 drew it
    for world in range(20):  # re-dealt for seat 2: the drawn card is among the cards it has not seen
        dealt = state.resample_hidden(2, random.Random(world).random)
        assert sorted(seat_view(dealt, 2).known_hands[1]) == without
    state.apply_actions([state.legal_actions(s)[0] for s in range(3)])
    # the hand moved on to seat 2, who holds it now; seat 1 held it with the drawn card in it
    passed = state.hands[2]
    assert sorted(seat_view(state, 1).known_hands[2]) == sorted(passed)


CONJURER = """
import os
from typing import ClassVar

import attrs

from ruledraft.language.effects import register_card_effect
from ruledraft.language.effects.base import EffectBase, common


@attrs.frozen(kw_only=True)
class Conjure(EffectBase):
    KIND: ClassVar[str] = "conjure"

    def describe(self):
        return f"{self.name}: when played, breaks the rules as CONJURE says."

    def start(self, state, seat):
        how = os.environ["CONJURE"]
        if how == "made":  # a card from nowhere
            state.place(seat, 0)
        elif how == "lost":  # a card taken off the table into nowhere
            state.remove_from_table(seat, self.card)
        elif how == "miscounted":  # the counts written past the table
            state.counts[seat][0] += 3
        return None


register_card_effect("conjure", lambda spec, ctx, card: Conjure(**common(spec, ctx, card, "play")), {"properties": {}})
"""


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("made", "the cards are no longer the deck's: made 1 tempura"),
        ("lost", "the cards are no longer the deck's: lost 1 conjurer"),
        ("miscounted", "'s count of tempura says "),
    ],
)
def test_a_plugin_effect_that_makes_loses_or_miscounts_a_card_is_named(tmp_path, monkeypatch, how, said):
    """A plug-in effect placing a card from nowhere, dropping one, or writing the counts
    past the table: the turn's end finds the cards are not the deck's and names the
    effect (exit 2), where the game went on with a table of cards that do not exist."""
    (tmp_path / "conjure.py").write_text(CONJURER, encoding="utf-8")
    variant = tmp_path / "conjured.yaml"
    variant.write_text(
        "format: 1\nextends: sushi-go\nid: conjured\nname: Conjured\ncards:\n"
        "  - {id: conjurer, count: 6, effect: {kind: conjure}}\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("CONJURE", how)
    result = invoke("--plugin", tmp_path / "conjure.py", "simulate", variant, "-p", "3", "-g", "5", "-q")
    assert result.exit_code == 2, result.output
    [line] = result.output.strip().splitlines()
    assert line.startswith("error: card effect 'conjure' (a plug-in) in round ") and said in line
    monkeypatch.setenv("CONJURE", "nothing")
    assert invoke("--plugin", tmp_path / "conjure.py", "simulate", variant, "-p", "3", "-g", "5", "-q").exit_code == 0
