"""How ``play`` names things: seats ("you", "seat 1 (greedy)", "dummy"), cards by
their rule-file names, and the options of a card effect's decision."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ruledraft.engine.decisions import Decision
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


#: what declining means, by the effect kind that asks: (short, long with ``{card}``)
_DONE_WORDS = {
    "ask_for": ("not now", "not now: keep your {card} for a later turn"),
    "second_pick": ("no second card", "no second card: keep your {card} for a later turn"),
    "turn_face_down": ("no more cards", "no more: turn no other card face down"),
}


def done_words(game: Game, decision: Decision | None, long: bool = False) -> str:
    """What ``done`` means in ``decision`` (an effect's own words, e.g. "not now" for a
    spoon), shortly or (``long``) with the card it keeps."""
    short, full = _DONE_WORDS.get(decision.effect if decision is not None else "", ("done", "done: no more"))
    if not long:
        return short
    return full.format(card=card_name(game.ruleset, decision.card) if decision is not None else "card")


def option_name(game: Game, action: int, decision: Decision | None = None, long: bool = False) -> str:
    """A decision option in words: a card's name, a family, or what declining means
    in ``decision`` (see :func:`done_words`)."""
    if action < game.num_card_types:
        return card_name(game.ruleset, action)
    if action == game.done_action:
        return done_words(game, decision, long)
    return f"any {shown(game.families[action - game.num_card_types])}"


def effect_reminder(game: Game, decision: Decision, names: SeatNames) -> str:
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
        return f"You play another card now; your {card} then go into your hand."
    if kind == "draw_and_choose":
        return f"You play one of the {len(decision.shown)} cards drawn; the others go back into the deck."
    if kind == "turn_face_down":
        face_down = shown(getattr(effect, "face_down_name", "face-down card"))
        return f"Each card you choose is turned face down: it becomes a {face_down}, one at a time."
    if kind == "copy_earlier":
        return f"Your {card} becomes a copy of the card you choose; its effect acts too."
    if effect is None:
        return ""
    first = shown(effect.describe()).split(": ", 1)[-1]
    return first[:1].upper() + first[1:]
