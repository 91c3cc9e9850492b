"""What a card effect or a race did, in the words ``play`` prints for it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ruledraft.engine.state import Game

from .common import shown
from .naming import SeatNames, card_name, grouped


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ... ``11th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def counted(n: int, word: str) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


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
    ``copies``: the acting seat's cards that are copies of another card type (a
    special order that became a menu), copied type -> the card it is; the card whose
    effect acts is named as it is ("Special Order (as Menu (7))")."""
    rs = game.ruleset

    def name(card: int) -> str:
        return card_name(rs, card)

    def acting(card: int) -> str:
        """The card whose effect acts, named as the card it is when it is a copy."""
        if copies and card in copies:
            return f"{name(copies[card])} (as {name(card)})"
        return name(card)

    def subject(seat: int, verb: str, verb_s: str) -> str:
        """``You take`` or ``Seat 1 takes``."""
        if seat == names.human:
            return f"You {verb}"
        return f"{names.short(seat).capitalize()} {verb_s}"

    def whose(seat: int) -> str:
        return "Your" if seat == names.human else f"{names.short(seat).capitalize()}'s"

    def pronoun(seat: int) -> str:
        return "your" if seat == names.human else "its"

    kind = what[0]
    if kind == "race":
        _, rule, seat, place, points, cards = what
        text = f"{subject(seat, 'take', 'takes')} {ordinal(place)} place in {shown(rule)}"
        text += f"{' (tied)' if tied else ''}: {counted(points, 'point')}"
        if not cards:
            return text + "."
        named = f"{text}, discarding {grouped(rs, cards)}."
        return named if len(named) <= width else f"{text}, discarding {counted(len(cards), 'card')}."
    seat = what[1]
    if kind == "drew":
        n, by = what[2], what[3]
        if not n:
            return f"{whose(seat)} {acting(by)} draws nothing: the deck is empty."
        return f"{subject(seat, 'draw', 'draws')} {counted(n, 'card')} with {pronoun(seat)} {acting(by)}."
    if kind == "returned":
        n = what[2]
        return f"{subject(seat, 'shuffle', 'shuffles')} {counted(n, 'drawn card')} back into the deck."
    if kind == "played":
        return f"{subject(seat, 'play', 'plays')} {name(what[2])} with {pronoun(seat)} {acting(what[3])}."
    if kind == "to_hand":
        return f"{subject(seat, 'take', 'takes')} {acting(what[2])} into {pronoun(seat)} hand."
    if kind in ("asked", "none"):
        asked = what[2]
        K = game.num_card_types
        thing = name(asked) if asked < K else f"{shown(game.families[asked - K])} card"
        if kind == "asked":
            thing = thing if asked < K else f"any {thing}"
            return f"{subject(seat, 'ask', 'asks')} for {thing} with {pronoun(seat)} {acting(what[3])}."
        return f"{subject(seat, 'have', 'has')} no {thing}."
    if kind == "gave":
        owner, card = what[2], what[3]
        to = "you" if owner == names.human else names.short(owner)
        return f"{subject(seat, 'give', 'gives')} {name(card)} to {to} to play."
    if kind == "turned":
        return f"{subject(seat, 'turn', 'turns')} {pronoun(seat)} {name(what[2])} face down (now {name(what[3])})."
    if kind == "copied":
        return f"{whose(seat)} {name(what[3])} becomes a copy of {name(what[2])}."
    if kind == "discarded":
        card, why, n = what[2], what[3], what[4]
        text = f"{whose(seat)} {acting(card)} is discarded"
        if why == "collision":
            return f"{text}: {n} {'was' if n == 1 else 'were'} played this turn."
        return text + {
            "used": " after use.",
            "unmatched": ": nobody had one to give.",
            "nothing_to_copy": ": nothing to copy.",
        }.get(why, ".")
    return shown(" ".join(map(str, what)))  # a kind this screen does not know yet
