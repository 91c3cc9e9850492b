"""Words for a game in progress, shared by every screen that shows one (the terminal's
``play``, the browser's ``serve``): cards by their rule-file names, what declining a
decision means, and what a card effect or a race did (:func:`event_line`).

Seats are named by the screen: a :class:`Names` tells which seat is "you" and how the
others are called.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from ruledraft.engine.decisions import Decision
from ruledraft.engine.scoresheet import tie_breaking
from ruledraft.engine.state import Game, State
from ruledraft.errors import printable
from ruledraft.language.catalogue import family_words
from ruledraft.language.effects.base import shared_event_line


def shown(text: object, *, markup: bool = False) -> str:
    """Text from a rule file or a log made safe for the terminal.

    Control and format characters (ESC, BEL, bidi overrides, ...) are written as
    ``\\x1b``-style escapes so they never reach the terminal raw; with ``markup=True``
    the result is also escaped for rich, so ``[bold`` in a card's name is printed as
    written instead of being read as a style.
    """
    s = printable(str(text))
    if markup:
        from rich.markup import escape

        s = escape(s)
    return s


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


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ... ``11th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def counted(n: int, word: str) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


class Names(Protocol):
    """How a screen calls the seats: ``human`` is the seat spoken to as "you" (-1: none)."""

    human: int

    def short(self, seat: int) -> str: ...


def tie_words(state: State, names: Names) -> str | None:
    """How a finished game's tie on points was broken, as one sentence ("You and seat 2
    tied on 30 points; tie-break, the highest number of Pudding: you 1, seat 2 2."); None when
    no seat tied with the best."""
    if not state.is_terminal():
        return None
    game = state.game
    totals = state.totals()
    broken = tie_breaking(game.ruleset, game.num_players, totals, state.kept_tableau())
    if len(broken.tied) < 2:
        return None
    seats = [names.short(s) for s in broken.tied]
    parts = [f"{', '.join(seats[:-1])} and {seats[-1]} tied on {totals[broken.tied[0]]} points"]
    for tb, values in broken.steps:
        said = ", ".join(f"{names.short(s)} {v}" for s, v in values.items())
        parts.append(f"tie-break, the {'highest' if tb.most else 'lowest'} {shown(tb.quantity.words)}: {said}")
    if not game.ruleset.tie_breaks:
        parts.append("this game has no tie-break")
    text = "; ".join(parts) + "."
    return text[0].upper() + text[1:]


class EffectSpeech:
    """How a card effect's events speak of seats and cards (the
    :class:`~ruledraft.language.effect.Speech` an effect's ``event_line`` is given).
    ``copies``: the acting seat's cards that are copies of another card type (a special
    order that became a menu), copied type -> the card it is."""

    def __init__(self, game: Game, names: Names, copies: Mapping[int, int] | None = None):
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
        return (
            self.name(action) if action < K else f"{family}{shown(family_words(self.game.families[action - K]))} card"
        )


class TableCopies:
    """The copies on each seat's table this round (copied card type -> the card it is:
    a special order acting as chopsticks), kept up to date event by event, so that an
    event about a copy names it as the card it is ("Special Order (as Chopsticks)"):
    :meth:`for_event` gives the copies an event should name. A new one each round."""

    def __init__(self) -> None:
        self.copies: dict[int, dict[int, int]] = {}

    def for_event(self, what: Sequence) -> dict[int, int]:
        kind = what[0]
        if kind == "race":
            return {}
        seat = what[1]
        mine = self.copies.setdefault(seat, {})
        if kind == "copied":
            mine[what[2]] = what[3]
            return {}
        if kind == "discarded" and what[3] == "collision":  # the engine names the card as it is
            mine.pop(what[2], None)
            return {}
        shown = dict(mine)
        if kind in ("discarded", "to_hand"):  # the card leaves the table
            mine.pop(what[2], None)
        return shown


def event_line(
    game: Game,
    names: Names,
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


#: what declining means, by the effect kind that asks: (short, long with ``{card}``)
_DONE_WORDS = {
    "ask_for": ("not now", "not now: keep your {card} for a later turn"),
    "second_pick": ("no second card", "no second card: keep your {card} for a later turn"),
    "turn_face_down": ("no more cards", "no more: turn no other card face down"),
}


def declined_words(effect: str | None) -> str:
    """What ``done`` means, shortly, in a decision the effect kind ``effect`` asks ("not
    now" for a spoon's); plain "done" for another kind or none known."""
    return _DONE_WORDS.get(effect or "", ("done", ""))[0]


def done_words(game: Game, decision: Decision | None, long: bool = False, state: State | None = None) -> str:
    """What ``done`` means in ``decision`` (an effect's own words, e.g. "not now" for a
    spoon), shortly or (``long``) with the card it keeps. Given the ``state``, a second
    pick declined where no later turn of the round deals two cards (the last is played
    for the seats) says the card goes unused rather than kept for a later turn."""
    if not long:
        return declined_words(decision.effect if decision is not None else None)
    full = _DONE_WORDS.get(decision.effect if decision is not None else "", ("done", "done: no more"))[1]
    if decision is not None and decision.effect == "second_pick" and state is not None:
        if state.turn + 1 > game.hand_size - 2:  # a later turn's hand holds one card at most
            full = "no second card: your {card} go unused this round"
    return full.format(card=card_name(game.ruleset, decision.card) if decision is not None else "card")


def option_name(
    game: Game, action: int, decision: Decision | None = None, long: bool = False, state: State | None = None
) -> str:
    """A decision option in words: a card's name, a family, or what declining means
    in ``decision`` (see :func:`done_words`, to which ``state`` goes)."""
    if action < game.num_card_types:
        return card_name(game.ruleset, action)
    if action == game.done_action:
        return done_words(game, decision, long, state)
    return f"any {shown(family_words(game.families[action - game.num_card_types]))}"


def effect_reminder(game: Game, decision: Decision, names: Names) -> str:
    """One sentence of what the effect that asks ``decision`` does, for its prompt
    (``?`` gives the effect's rule in full); empty for a kind this screen does not know."""
    rs = game.ruleset
    card = card_name(rs, decision.card)
    effect = game.effect_of[decision.card]
    kind = decision.effect
    if kind == "ask_for":
        if decision.owner not in (-1, decision.seat):
            owner = "you" if decision.owner == names.human else names.short(decision.owner)
            return f"You give one of them to {owner} and get the {card} into your hand."
        side = "right" if getattr(effect, "step", 1) == -1 else "left"
        return f"The nearest player to your {side} holding one trades it for your {card}."
    if kind == "second_pick":
        return f"You play another card now; your {card} card then goes into your hand."
    if kind == "draw_and_choose":
        return f"You play one of the {len(decision.shown)} cards drawn; the others go back into the deck."
    if kind == "turn_face_down":
        face_down = shown(getattr(effect, "face_down_name", "face-down card"))
        return f"Each card you choose turns face down (a {face_down}), one at a time."
    if kind == "copy_earlier":
        return f"Your {card} becomes a copy of the card you choose; its effect acts too."
    if effect is None:
        return ""
    first = shown(effect.describe()).split(": ", 1)[-1]
    return first[:1].upper() + first[1:]
