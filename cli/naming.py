"""How ``play`` names things: seats ("you", "seat 1 (greedy)", "dummy"), cards by
their rule-file names, and the options of a card effect's decision (the words the
browser's table shares live in :mod:`ruledraft.play.words`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ruledraft.engine.state import Game
from ruledraft.play.words import card_name as card_name
from ruledraft.play.words import done_words as done_words
from ruledraft.play.words import effect_reminder as effect_reminder
from ruledraft.play.words import family_words as family_words
from ruledraft.play.words import grouped as grouped
from ruledraft.play.words import grouped_items as grouped_items
from ruledraft.play.words import option_name as option_name
from ruledraft.play.words import shown


def in_play_order(
    ruleset, cards: Sequence[int], copies: Mapping[int, int] | None = None, counted: Mapping[int, int] | None = None
) -> list[str]:
    """``["Wasabi", "Squid Nigiri", "Tofu x2", "Squid Nigiri"]``: the cards in the order
    they were played (which decides what a modifier such as wasabi acts on); only
    copies played one right after another are counted together. ``copies``: position
    -> the card a copy is ("Special Order (as Tofu)"); ``counted``: position -> how many
    cards a boosted card counts as ("Red Lantern (counts as 2)")."""
    if not cards:
        return ["-"]
    copies = copies or {}
    counted = counted or {}
    runs: list[list] = []
    for i, c in enumerate(cards):
        name = card_name(ruleset, c)
        if i in copies:
            name = f"{card_name(ruleset, copies[i])} (as {name})"
        if i in counted:
            name = f"{name} (counts as {counted[i]})"
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
    return [name + (f" x{k}" if k > 1 else "") for name, k in runs]


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
        return f"seat {seat} ({shown(self.bots[seat])})"  # a bot's file name may hold control characters

    def list(self, seats: Sequence[int]) -> str:
        names = [self.short(s) for s in seats]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
