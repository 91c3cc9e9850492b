"""The engine's declared interfaces: the seam between procedures and State, the typed
turn history and observations, and the kept-card flag."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest
from strategies import BUNDLED_RULESETS, bundled_game, bundled_ruleset

import ruledraft.engine
from ruledraft.engine.records import Observation, RoundRecord, Turn

ENGINE_DIR = Path(ruledraft.engine.__file__).parent


def private_reaches(source: str) -> list[str]:
    """``NAME._private`` uses in ``source`` where NAME is not ``self`` or ``cls`` (as ruff's SLF001 sees them)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value
            if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                out.append(f"{ast.unparse(owner)}.{node.attr} (line {node.lineno})")
    return out


@pytest.mark.parametrize("module", sorted(p.name for p in ENGINE_DIR.glob("*.py")))
def test_the_engine_reaches_into_no_other_object_s_private_names(module):
    """No engine module calls a private method or reads a private field of another object (procedures go through State's public seam)."""
    allowed = {"_random.Random (line"}  # the C generator module, not an object's private name
    found = [u for u in private_reaches((ENGINE_DIR / module).read_text()) if not any(a in u for a in allowed)]
    assert found == []


def test_the_private_reach_check_finds_a_reach():
    """The check above would catch a procedure calling state._end_round()."""
    assert private_reaches("def f(state):\n    state._end_round()\n") == ["state._end_round (line 2)"]
    assert private_reaches("class A:\n    def f(self):\n        self._x()\n") == []


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS)
def test_the_history_is_typed_records_of_every_round_and_turn(ruleset_id):
    """A finished game's history is one RoundRecord per round whose turns are Turn records and whose tables are the cards scored."""
    rs = bundled_ruleset(ruleset_id)
    game = bundled_game(ruleset_id, rs.min_players)
    state = game.new_initial_state(2)
    state.play_out([random.Random(s).random for s in range(game.num_players)])
    assert len(state.history) == rs.rounds
    for record in state.history:
        assert isinstance(record, RoundRecord)
        assert all(isinstance(t, Turn) and len(t.actions) == game.num_players for t in record.turns)
        assert record.tables is not None and len(record.tables) == game.num_seats
        assert (record.controllers != []) == (rs.dummy is not None)
    assert state.history[0].turns[-1].auto == (rs.dummy is None)


def test_clone_shares_ended_rounds_and_copies_the_round_in_progress():
    """A clone shares the records of rounds that have ended (they never change) and copies the current one, so its turns never reach the original."""
    game = bundled_game("sushi-go", 3)
    state = game.new_initial_state(6)
    streams = [random.Random(s).random for s in range(3)]
    while state.round < 1 or state.turn < 2:
        state.apply_actions([state.sample_action(s, streams[s]) for s in state.acting_seats()])
    clone = state.clone()
    assert clone.history[0] is state.history[0]
    assert clone.history[1] is not state.history[1] and clone.history[1] == state.history[1]
    before = state.history[1].turns
    clone.play_out(streams)
    assert state.history[1].turns == before and len(state.history) == 2
    assert clone.history[0] is state.history[0] and len(clone.history) == 3


def test_an_observation_is_a_typed_record_with_a_json_form():
    """State.observation gives an Observation; to_json gives the same data as plain JSON values."""
    game = bundled_game("sushi-go", 2)
    state = game.new_initial_state(1)
    obs = state.observation(1)
    assert isinstance(obs, Observation)
    assert (obs.seat, obs.round, obs.turn, obs.known_hands, obs.controls_dummy) == (1, 1, 1, {}, False)
    assert obs.to_json()["hand"] == [game.ruleset.catalogue.ids[c] for c in state.hands[1]]
    assert set(obs.to_json()) == {
        "seat",
        "round",
        "turn",
        "hand",
        "hand_sizes",
        "played",
        "kept",
        "scores",
        "round_scores",
        "known_hands",
        "controls_dummy",
        "can_use_action",
        "pending",
    }


@pytest.mark.parametrize(
    "ruleset_id", [rid for rid in BUNDLED_RULESETS if bundled_ruleset(rid).catalogue.has_card("pudding")]
)
def test_kept_cards_are_flagged_on_the_card_type(ruleset_id):
    """CardType.kept is true exactly for cards with keep: game (pudding in every bundled ruleset with pudding), and the engine keeps those."""
    rs = bundled_ruleset(ruleset_id)
    assert [c.id for c in rs.catalogue.cards if c.kept] == ["pudding"]
    game = bundled_game(ruleset_id, rs.min_players)
    assert game.kept == tuple(c.keep == "game" for c in rs.catalogue.cards)


def test_a_redeal_keeps_the_dummy_controllers_draw_consistent():
    """In the dummy game, re-dealing (at random or in canonical order) for the other seat makes `drawn` the controller's re-dealt last cards, and both copies keep every card."""
    game = bundled_game("sushi-go-two-player-dummy", 2)
    state = game.new_initial_state(7)
    assert state.drawn and 0 <= state.controller
    other = 1 - state.controller
    rng = random.Random(3)
    for copy in (state.resample_hidden(other, rng.random), state.canonical_hidden(other)):
        hand = copy.hands[state.controller]
        assert copy.drawn == hand[-len(state.drawn) :]
        assert copy.hands[other] == state.hands[other]
        everything = sorted(sum(copy.hands, []) + sum(copy.dummy_piles, []) + copy.deck[copy.deck_pos :])
        assert everything == sorted(sum(state.hands, []) + sum(state.dummy_piles, []) + state.deck[state.deck_pos :])
    assert state.canonical_hidden(other).hands == state.resample_hidden(other, rng.random).canonical_hidden(other).hands
