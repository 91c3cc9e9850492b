"""What a card effect or a race did, in the words ``play`` prints for it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ruledraft.engine.state import Game
from ruledraft.language.effects.base import shared_event_line

from .common import shown
from .naming import SeatNames, card_name, grouped


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ... ``11th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def counted(n: int, word: str) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


class EffectSpeech:
    """How a card effect's events speak of seats and cards (the
    :class:`~ruledraft.language.effect.Speech` an effect's ``event_line`` is given).
    ``copies``: the acting seat's cards that are copies of another card type (a special
    order that became a menu), copied type -> the card it is."""

    def __init__(self, game: Game, names: SeatNames, copies: Mapping[int, int] | None = None):
        self.game = game
        self.names = names
        self.copies = copies or {}

    def name(self, card: int) -> str:
        return card_name(self.game.ruleset, card)

    def acting(self, card: int) -> str:
        if card in self.copies:
            return f"{self.name(self.copies[card])} (as {self.name(card)})"
        return self.name(card)

    def subject(self, seat: int, verb: str, verb_s: str) -> str:
        """``You take`` or ``Seat 1 takes``."""
        if seat == self.names.human:
            return f"You {verb}"
        return f"{self.names.short(seat).capitalize()} {verb_s}"

    def whose(self, seat: int) -> str:
        return "Your" if seat == self.names.human else f"{self.names.short(seat).capitalize()}'s"

    def pronoun(self, seat: int) -> str:
        return "your" if seat == self.names.human else "its"

    def whom(self, seat: int) -> str:
        return "you" if seat == self.names.human else self.names.short(seat)

    def counted(self, n: int, noun: str) -> str:
        return counted(n, noun)

    def asked(self, action: int, *, family: str = "") -> str:
        K = self.game.num_card_types
        return self.name(action) if action < K else f"{family}{shown(self.game.families[action - K])} card"


def event_line(
    game: Game,
    names: SeatNames,
    what: Sequence,
    tied: bool = False,
    width: int = 80,
    copies: Mapping[int, int] | None = None,
) -> str:
    """One thing a card effect or a race did (an :class:`Event`'s ``what``) as a
    sentence; ``tied``: a race place shared with another seat at the same turn end.
    A race place names the cards discarded when that fits ``width``, else counts them.
    A card effect's events are worded by the effects of the game (their ``event_line``).
    ``copies``: the acting seat's cards that are copies of another card type (a
    special order that became a menu), copied type -> the card it is; the card whose
    effect acts is named as it is ("Special Order (as Menu (7))")."""
    rs = game.ruleset
    speech = EffectSpeech(game, names, copies)
    if what[0] == "race":
        _, rule, seat, place, points, cards = what
        text = f"{speech.subject(seat, 'take', 'takes')} {ordinal(place)} place in {shown(rule)}"
        text += f"{' (tied)' if tied else ''}: {counted(points, 'point')}"
        if not cards:
            return text + "."
        named = f"{text}, discarding {grouped(rs, cards)}."
        return named if len(named) <= width else f"{text}, discarding {counted(len(cards), 'card')}."
    for effect in rs.effects:
        line = effect.event_line(what, speech)
        if line is not None:
            return line
    line = shared_event_line(what, speech)
    if line is not None:
        return line
    return shown(" ".join(map(str, what)))  # a kind this screen does not know yet
