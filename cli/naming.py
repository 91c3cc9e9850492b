"""How ``play`` names things: seats ("you", "seat 1 (greedy)", "dummy"), cards by
their rule-file names, and the options of a card effect's decision."""

from __future__ import annotations

from collections.abc import Sequence

from ruledraft.engine.state import Game

from .common import shown


def card_name(ruleset, card: int) -> str:
    """A card's name from the rule file, safe for the terminal."""
    return shown(ruleset.catalogue.cards[card].name)


def grouped_items(ruleset, cards: Sequence[int]) -> list[str]:
    """``["Tempura x2", "Maki Roll (3)"]``: the card types in order of first appearance."""
    if not cards:
        return ["-"]
    counts: dict[int, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    return [card_name(ruleset, c) + (f" x{k}" if k > 1 else "") for c, k in counts.items()]


def grouped(ruleset, cards: Sequence[int]) -> str:
    """``Tempura x2, Maki Roll (3)`` (card types in order of first appearance)."""
    return ", ".join(grouped_items(ruleset, cards))


class SeatNames:
    """How seats are called in the transcript: "you", "seat 1 (greedy)", "dummy"."""

    def __init__(self, game: Game, human: int, bots: dict[int, str]):
        self.game = game
        self.human = human
        self.bots = bots

    def short(self, seat: int) -> str:
        if seat == self.human:
            return "you"
        if seat >= self.game.num_players:
            return (
                "dummy"
                if self.game.num_seats == self.game.num_players + 1
                else f"dummy {seat - self.game.num_players + 1}"
            )
        return f"seat {seat}"

    def long(self, seat: int) -> str:
        if seat == self.human:
            return f"you (seat {seat})"
        if seat >= self.game.num_players:
            return f"{self.short(seat)} (seat {seat})"
        return f"seat {seat} ({self.bots[seat]})"

    def list(self, seats: Sequence[int]) -> str:
        names = [self.short(s) for s in seats]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def option_name(game: Game, action: int) -> str:
    """A decision option in words: a card's name, a family, or done."""
    if action < game.num_card_types:
        return card_name(game.ruleset, action)
    if action == game.done_action:
        return "done (no)"
    return f"any {shown(game.families[action - game.num_card_types])}"
