"""The board's wasabi count (``board.SeatBoard.modifiers``: loaded, waiting) where a
takeout box turned cards face down: a wasabi whose nigiri was turned stays loaded (it
takes no later nigiri, as it scores), and a wasabi turned face down is no wasabi at all.
The small takeout ruleset (``tests/data/effects-flip-copy.yaml``)."""

from __future__ import annotations

import functools

from paths import DATA

from ruledraft.engine.board import board
from ruledraft.engine.state import Game, State
from ruledraft.language.loading import load_ruleset
from ruledraft.language.ruleset import CompiledRuleset


@functools.cache
def ruleset() -> CompiledRuleset:
    return load_ruleset(str(DATA / "effects-flip-copy.yaml"))


def ix(name: str) -> int:
    return ruleset().catalogue.index_of(name)


def give(state: State, seat: int, name: str) -> None:
    """Put card ``name`` into ``seat``'s hand, swapping it with a card of the deck (every card stays counted)."""
    hand, c = state.hands[seat], ix(name)
    if c in hand:
        return
    deck = list(state.deck)
    j = deck.index(c, state.deck_pos)
    deck[j], hand[0] = hand[0], c
    state.deck = deck


def turn(state: State, *picks: str) -> None:
    for seat, name in enumerate(picks):
        give(state, seat, name)
    state.apply_actions([ix(n) for n in picks])


def decide(state: State, name: str) -> None:
    state.apply_actions([state.game.done_action if name == "done" else ix(name)])


def wasabi(state: State, seat: int = 0) -> tuple[int, int]:
    """(loaded, waiting) of the wasabi rule on ``seat``'s side of the board."""
    (found,) = [(loaded, waiting) for rid, loaded, waiting in board(state)[seat].modifiers if rid == "wasabi"]
    return found


def test_a_wasabi_whose_nigiri_is_turned_face_down_stays_loaded():
    """Egg on a wasabi, the egg turned face down: the wasabi shows loaded, not waiting,
    and a squid played after it does not change that (it lands on no wasabi)."""
    s = Game(ruleset(), 2).new_initial_state(1)
    turn(s, "wasabi", "tempura")
    assert wasabi(s) == (0, 1)
    turn(s, "egg", "tempura")
    assert wasabi(s) == (1, 0)
    turn(s, "takeout_box_10", "tempura")
    decide(s, "egg")
    decide(s, "done")
    assert wasabi(s) == (1, 0)
    turn(s, "squid", "tempura")
    assert wasabi(s) == (1, 0)


def test_a_wasabi_turned_face_down_is_counted_neither_loaded_nor_waiting():
    """An empty wasabi turned face down leaves the board's wasabi count; a second,
    face-up wasabi still shows waiting."""
    s = Game(ruleset(), 2).new_initial_state(1)
    turn(s, "wasabi", "tempura")
    turn(s, "takeout_box_10", "tempura")
    decide(s, "wasabi")  # (nothing else to turn: no more asked)
    assert s.pending is None
    assert wasabi(s) == (0, 0)
    turn(s, "wasabi", "tempura")
    assert wasabi(s) == (0, 1)
