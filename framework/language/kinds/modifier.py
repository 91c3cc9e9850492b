"""The ``modifier`` kind: a card that multiplies the next card played onto it (wasabi).

With ``same: ATTRIBUTE`` a target goes only onto a modifier card sharing its value of
the attribute (a catalyst of its colour); a modifier card without the attribute takes
the value of the first target it takes. ``card`` may name several modifier cards (a
catalyst in six colours is one rule). The pairing is :mod:`.pairing`'s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.kinds.pairing import (
    holders_of,
    kernel_echoes,
    kernel_pairing,
    pair,
    same_colour,
    same_words,
    targets_besides,
    with_article,
)
from ruledraft.language.quantity import one_of
from ruledraft.language.rule import KernelWriter, OwnCardsRule
from ruledraft.tableau import Tableau

NAME = "modifier"

#: its own keys; ScoringKind.full_schema adds `type: object`, no other keys, and id, kind, when, description
SCHEMA: dict[str, Any] = {
    "title": "Modifier rule",
    "description": "A card that multiplies the value of the next target card(s) played after it (like wasabi).",
    "required": ["card", "targets", "value", "factor"],
    "properties": {
        "card": {
            "title": "Modifier card",
            "description": "The card that modifies (or several: a card selector).",
            "$ref": "#/$defs/selector",
        },
        "targets": {"title": "Targets", "description": "The cards it can modify.", "$ref": "#/$defs/selector"},
        "value": {"title": "Value", "description": "The base value of a target card.", "$ref": "#/$defs/value"},
        "factor": {
            "title": "Factor",
            "description": "How many times its value a modified card scores in all (3: "
            "triple). Another rule already scores the card once, so this rule "
            "adds factor - 1 times the value.",
            "type": "integer",
            "minimum": -1000,
            "maximum": 1000,
        },
        "capacity": {
            "title": "Capacity",
            "description": "How many target cards one modifier card can take.",
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "default": 1,
        },
        "same": {
            "title": "Same attribute",
            "description": "Targets must share this attribute's value with the modifier card they go onto "
            "(same: colour); a modifier card without it takes the value of the first target it takes.",
            "$ref": "#/$defs/identifier",
        },
    },
}


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Modifier(OwnCardsRule):
    """A card that changes a later card: the next target played after it goes onto the
    oldest modifier with room and scores ``factor`` times (wasabi). This rule scores the
    extra ``(factor - 1) x value``; the target's own rule scores its base value."""

    id: str
    when: str
    card: int
    targets: tuple[int, ...]
    extra: tuple[int, ...]  # per card index: (factor - 1) * value
    capacity: int
    factor: int
    words: str
    #: every modifier card (``card`` is the first); more than one only from a selector
    holders: tuple[int, ...] = ()
    #: with ``same``: per card index, its value of the attribute (None: it has none)
    colour: tuple[int | None, ...] | None = None
    target_set: frozenset[int] = attrs.field(init=False, eq=False, repr=False)
    holder_set: frozenset[int] = attrs.field(init=False, eq=False, repr=False)
    #: one modifier card and no ``same``: the pairing of the first version, kept as it was
    classic: bool = attrs.field(init=False, eq=False, repr=False)

    holds_cards = True
    kernel_reads_turned = True

    def __attrs_post_init__(self) -> None:
        holders = self.holders or (self.card,)
        object.__setattr__(self, "holders", holders)
        object.__setattr__(self, "target_set", frozenset(self.targets))
        object.__setattr__(self, "holder_set", frozenset(holders))
        object.__setattr__(self, "classic", len(holders) == 1 and self.colour is None)

    @property
    def reads(self) -> frozenset[int]:
        return frozenset(self.targets) | self.holder_set

    def score(self, t: Tableau) -> list[int]:
        if not self.classic or t.echoes is not None:
            echoes = t.echoes
            return [
                self.score_paired(seq, None if t.turned is None else t.turned[s], None if echoes is None else echoes[s])
                for s, seq in enumerate(t.cards)
            ]
        score_row, mod = self.score_row, self.card
        if t.turned is not None:
            return [
                self.score_turned(seq, turned) if row[mod] else 0
                for row, seq, turned in zip(t.counts, t.cards, t.turned)
            ]
        return [score_row(row, seq) if row[mod] else 0 for row, seq in zip(t.counts, t.cards)]

    def score_paired(
        self, seq: Sequence[int], turned: Mapping[int, tuple[int, int]] | None, echoes: frozenset[int] | None
    ) -> int:
        """One seat's extra by the general pairing (:func:`.pairing.pair`): several
        modifier cards, ``same``, cards turned face down, echoes of a boosted card."""
        found = pair(
            seq, self.holder_set, self.target_set, self.capacity, turned=turned, echoes=echoes, colour=self.colour
        )
        extra = self.extra
        return sum(extra[seq[q]] for _, q in found.pairs)

    def score_turned(self, seq: Sequence[int], turned: Mapping[int, tuple[int, int]]) -> int:
        """:meth:`score_row` when cards were turned face down (``Tableau.turned``): a
        target goes onto the oldest modifier that had room and was face up when it was
        placed, and stays there; it scores the extra only if both are still face up."""
        cap, extra, targets, mod = self.capacity, self.extra, self.target_set, self.card
        never = len(seq) + 1
        rooms: list[list[int]] = []  # per modifier: [room, table length when turned, or never]
        bonus = 0
        for q, c in enumerate(seq):
            was = turned.get(q)
            face = c if was is None else was[0]
            if face == mod:
                rooms.append([cap, never if was is None else was[1]])
            elif face in targets:
                for r in rooms:
                    if r[0] and r[1] > q:
                        r[0] -= 1
                        if was is None and r[1] == never:
                            bonus += extra[c]
                        break
        return bonus

    def score_row(self, row: list[int], seq: list[int]) -> int:
        if not self.classic:
            return self.score_paired(seq, None, None)
        mod = self.card
        if not row[mod]:
            return 0
        cap, extra, targets = self.capacity, self.extra, self.target_set
        room = bonus = 0
        for c in seq:
            if c == mod:
                room += cap
            elif room and c in targets:
                room -= 1
                bonus += extra[c]
        return bonus

    def loaded_and_waiting(
        self, seq: Sequence[int], turned: Mapping[int, tuple[int, int]] | None = None
    ) -> tuple[int, int]:
        """How many of the modifier cards in ``seq`` (one seat's cards in play order)
        are full (every place taken by a target) and how many still have room, of those
        face up (``turned``: the seat's cards turned face down, ``Tableau.turned``; a
        modifier whose target was turned stays full, as it scores)."""
        if not self.classic or turned:
            rooms = pair(seq, self.holder_set, self.target_set, self.capacity, turned=turned, colour=self.colour).rooms
            waiting = sum(1 for room in rooms if room)
            return len(rooms) - waiting, waiting
        mod, cap, targets = self.card, self.capacity, self.target_set
        rooms_left: list[int] = []
        for c in seq:
            if c == mod:
                rooms_left.append(cap)
            elif c in targets:
                for i, room in enumerate(rooms_left):  # the oldest modifier with room
                    if room:
                        rooms_left[i] = room - 1
                        break
        waiting = sum(1 for room in rooms_left if room)
        return len(rooms_left) - waiting, waiting

    def kernel(self, w: KernelWriter) -> str | None:
        """:meth:`score_row` over each seat's cards in play order; on a table a boost
        changed (echoes in ``seq``) or with cards turned face down (:meth:`score_turned`),
        and for several modifier cards or ``same``, the general pairing
        (:func:`.pairing.kernel_pairing`)."""
        extra = w.array(self.extra)
        pairing = kernel_pairing(w, self.holder_set, self.target_set, self.capacity, self.colour, len(self.extra))
        general = [
            "for s in range(N):",
            *kernel_echoes(),
            f"    {pairing}(seq, lens[s], s, N, echo, paired)",
            "    bonus = 0",
            "    for q in range(lens[s]):",
            "        if paired[q] >= 0:",
            f"            bonus += {extra}[seq[s, q]]",
            "    out[s] = bonus",
        ]
        general = ["    " + line for line in general]
        head = ["echo = np.zeros(seq.shape[1], np.int64)", "paired = np.zeros(seq.shape[1], np.int64)"]
        if not self.classic:
            return "\n".join(head + ["if True:", *general]) + "\n"
        targets = w.array([1 if c in self.target_set else 0 for c in range(len(self.extra))])
        mod, cap = self.card, self.capacity
        classic = [
            "if seq.shape[0] == N:",
            "    for s in range(N):",
            "        room = 0",
            "        bonus = 0",
            f"        if counts[s, {mod}]:",
            "            for j in range(lens[s]):",
            "                c = seq[s, j]",
            f"                if c == {mod}:",
            f"                    room += {cap}",
            f"                elif room and {targets}[c]:",
            "                    room -= 1",
            f"                    bonus += {extra}[c]",
            "        out[s] = bonus",
            "else:",
        ]
        # the general pairing's room made only where it runs (a classic table is scored
        # for each greedy candidate: no allocation there)
        return "\n".join(classic + ["    " + line for line in head] + general) + "\n"

    def describe(self) -> str:
        return self.words


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Modifier | None:
    cat = ctx.catalogue
    holders = holders_of(spec, ctx)
    selected = ctx.cards(("targets",), spec["targets"])
    values = ctx.values(("value",), spec["value"])
    if holders is None or selected is None or values is None:
        return None
    targets = targets_besides(spec, ctx, holders, selected, "modifier")
    if targets is None:
        return None
    colour = same_colour(spec, ctx, targets)
    if colour is False:
        return None
    factor = spec["factor"]
    extra = tuple(v * (factor - 1) for v in values)
    capacity = spec.get("capacity", 1)
    single = len(holders) == 1
    name = cat.cards[holders[0]].name if single else "modifier card"
    which = "" if single else f"The modifier cards are {ctx.words(spec['card'])}. "
    words = which + (
        f"When {one_of(ctx.words(spec['targets']), len(targets))} is played while you have {with_article(name)} with room on it, "
        f"it goes onto the oldest such {name} ({capacity} per {name}) and scores {factor} times its value "
        f"(this rule counts the extra {factor - 1}x). Only cards played after the {name} count; {with_article(name)} alone scores 0."
        + same_words(name, spec.get("same"))
    )
    return Modifier(spec["id"], spec["when"], holders[0], targets, extra, capacity, factor, words, holders, colour)
