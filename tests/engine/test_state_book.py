"""The state owns its changes: the effect book (``State.book``), and procedures and
effect steps that change a state only through its methods, importing one way."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from ruledraft.engine.book import EffectBook
from ruledraft.engine.state import Game
from ruledraft.language.loading import load_ruleset

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "framework" / "engine"
EFFECTS = ROOT / "framework" / "language" / "effects"


def test_a_game_without_effects_or_races_keeps_no_book():
    """Sushi Go! (its chopsticks are a pick, not an effect) goes the fast path: no book, before and after play."""
    g = Game(load_ruleset("sushi-go"), 3)
    state = g.new_initial_state(1)
    assert state.book is None
    state.play_out([random.Random(s).random for s in range(3)])
    assert state.book is None and state.clone().book is None


def test_a_game_with_effects_clones_its_book_as_a_unit():
    """A Party menu's state has a book; a clone's book is another object whose lists change on their own."""
    g = Game(load_ruleset("sushi-go-party-master-menu"), 4)
    state = g.new_initial_state(3)
    rngs = [random.Random(s).random for s in range(4)]
    while not state.book.discarded and not state.is_terminal():
        state.apply_actions([state.sample_action(s, rngs[s]) for s in state.acting_seats()])
    assert isinstance(state.book, EffectBook) and state.book.discarded
    book = state.book
    before = (book.discarded[:], [k[:] for k in book.known_in_hand], [p[:] for p in book.placed], book.jobs[:])
    copy = state.clone()
    assert copy.book is not state.book and copy.book.discarded == state.book.discarded
    copy.book.discarded.append(0)
    copy.book.known_in_hand[0].append(0)
    copy.book.placed[0].append(0)
    copy.book.jobs.append((0, 0, 0, g.ruleset.effects[0]))
    assert (book.discarded, book.known_in_hand, book.placed, book.jobs) == before


def _assigned_state_fields(source: str, name: str) -> list[str]:
    """``state.FIELD = ...`` / ``state.FIELD += ...`` statements in ``source``, as ``NAME:LINE FIELD``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign):
            targets = [node.target]
        else:
            continue
        for t in targets:
            if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "state":
                found.append(f"{name}:{node.lineno} {t.attr}")
    return found


@pytest.mark.parametrize("path", [ENGINE / "procedures.py", *sorted(EFFECTS.glob("*.py"))], ids=lambda p: p.name)
def test_procedures_and_effect_steps_assign_no_field_of_a_state(path):
    """A turn procedure or an effect's step changes a state through its methods, never by assigning its fields."""
    assert _assigned_state_fields(path.read_text(encoding="utf-8"), path.name) == []


def test_the_check_finds_an_assignment():
    """The check above sees a state field assigned or added to (else it would pass on anything)."""
    source = "def f(state, other):\n    state.turn += 1\n    state.hands = []\n    other.turn = 0\n"
    assert _assigned_state_fields(source, "probe.py") == ["probe.py:2 turn", "probe.py:3 hands"]


def test_procedures_do_not_import_the_state_module():
    """The engine's imports run one way: state imports procedures, procedures never import state (not even for types)."""
    tree = ast.parse((ENGINE / "procedures.py").read_text(encoding="utf-8"))
    imported = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    imported |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert "ruledraft.engine.state" not in imported
    assert not any(m and m.startswith("ruledraft.engine.effects") for m in imported)
