"""The ``collision`` effect: Party's miso soup. At the end of a turn, if at least
``at_least`` copies of the card were placed this turn, by anyone and any way, every
copy placed this turn is discarded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from ruledraft.language.effect import EffectKernelWriter, EffectPart, EffectState, Speech
from ruledraft.language.effects.base import EffectBase, common, discarded
from ruledraft.language.kinds.context import RuleContext

NAME = "collision"
WHEN = "turn_end"
TRIGGERS = ("turn_end",)
SCHEMA: dict[str, Any] = {
    "title": "Collision",
    "description": "At the end of a turn, if enough copies were placed this turn by anyone, all of them are discarded.",
    "properties": {
        "at_least": {
            "title": "At least",
            "description": "How many copies placed in one turn make them all discarded.",
            "type": "integer",
            "minimum": 2,
            "maximum": 100,
            "default": 2,
        },
    },
}


@attrs.frozen(kw_only=True)
class Collision(EffectBase):
    KIND: ClassVar[str] = NAME
    at_least: int

    def describe(self) -> str:
        return (
            f"{self.name}: at the end of a turn, if {self.at_least} or more were placed in it "
            "(by anyone, any way), all of them are discarded."
        )

    def turn_end(self, state: EffectState) -> None:
        card = self.card
        placed = state.placed
        n = sum(p.count(card) for p in placed)
        if n < self.at_least:
            return
        for seat, cards in enumerate(placed):
            for _ in range(cards.count(card)):
                try:
                    gone = state.remove_from_table(seat, card, turned=True)
                except ValueError:  # it has left the table already
                    break
                state.discard(gone)
                state.note("discarded", seat, gone, "collision", n)

    def kernel(self, w: EffectKernelWriter) -> EffectPart:
        """:meth:`turn_end` in the kernel: the copies placed this turn counted, and, at
        ``at_least``, each seat's newest copies (or cards turned face down from it) off its table, one
        per copy it placed, discarded as their physical cards."""
        card = self.card
        return EffectPart(
            turn_end=f"""n = 0
for s in range(N):
    for j in range(fx.npl[s]):
        if fx.placed[s, j] == {card}:
            n += 1
if n >= {self.at_least}:
    for s in range(N):
        for j in range(fx.npl[s]):
            if fx.placed[s, j] == {card}:
                gone = fx_remove_newest_of(fx, s, {card}, True)
                if gone < 0:
                    break
                fx_discard(fx, gone)
"""
        )

    def event_line(self, what: Sequence[Any], say: Speech) -> str | None:
        if what[0] == "discarded" and what[3] == "collision":
            n = what[4]
            return f"{discarded(what, say)}: {n} {'was' if n == 1 else 'were'} played this turn."
        return None


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> Collision:
    return Collision(**common(spec, ctx, card, WHEN), at_least=spec.get("at_least", 2))
