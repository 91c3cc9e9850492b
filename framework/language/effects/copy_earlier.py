"""The ``copy_earlier`` effect: Party's special order. When played, the card becomes a
copy of a card type its seat placed earlier this round (a copy counts as the card it
copies; the original may have left the table or been turned face down; never a card
with this effect): from then on it is that card for every rule, and a copied card's
when-played effect acts. With nothing to copy it is discarded.

The physical card stays under its face and goes back into the deck as itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from ruledraft.language.decision import Decision
from ruledraft.language.effect import EffectKernelWriter, EffectPart, EffectState, Speech
from ruledraft.language.effects.base import EffectBase, common, discarded
from ruledraft.language.effects.turn_face_down import newest
from ruledraft.language.kinds.context import RuleContext

NAME = "copy_earlier"
WHEN = "play"
TRIGGERS = ("play",)
SCHEMA: dict[str, Any] = {
    "title": "Copy an earlier card",
    "description": "Become a copy of a card you placed earlier this round; with nothing to copy, discarded.",
    "properties": {},
}


@attrs.frozen(kw_only=True)
class CopyEarlier(EffectBase):
    KIND: ClassVar[str] = NAME
    keeps_round: ClassVar[bool] = True
    changes_cards: ClassVar[bool] = True
    plays_copies: ClassVar[bool] = True

    def describe(self) -> str:
        return (
            f"{self.name}: when played (order {self.order}), becomes a copy of a card you placed earlier "
            f"this round (not a {self.name}): every rule sees that card, and its when-played effect acts; "
            f"with nothing to copy the {self.name} is discarded."
        )

    def table_excess(self, counts: Sequence[int]) -> Mapping[int, int]:
        """Any type but its own, once for each copy of the card (each may become one)."""
        return {c: counts[self.card] for c in range(len(counts)) if c != self.card}

    def start(self, state: EffectState, seat: int) -> Decision | None:
        if not state.counts[seat][self.card]:
            return None
        effect_of = state.game.effect_of
        placed = state.placed[seat]
        mine = placed.index(self.card) if self.card in placed else len(placed)
        earlier = {*state.round_placed[seat], *placed[:mine]}
        options = sorted(c for c in earlier if not self.same_kind(effect_of[c]))
        if not options:
            self.discard_own(state, seat, self.card, "nothing_to_copy")
            return None
        if len(options) == 1:
            self.copy(state, seat, options[0])
            return None
        return Decision(
            seat=seat,
            effect=self.kind,
            card=self.card,
            prompt=f"{self.name}: copy one of the cards you played this round",
            options=tuple(options),
            owner=seat,
        )

    def rehanded(self, state: Any, decision: Decision, hand: Sequence[int]) -> tuple[int, ...]:
        """Its options are cards on the table, which every seat sees: a re-dealt hand leaves them."""
        return decision.options

    def decide(self, state: EffectState, decision: Decision, action: int) -> None:
        self.copy(state, decision.seat, action)

    def copy(self, state: EffectState, seat: int, chosen: int) -> None:
        """``seat``'s newest card with this effect becomes ``chosen``: placed as it this
        turn, and its when-played effect acts."""
        card = self.card
        state.change_card(seat, newest(state.played[seat], card), chosen)
        state.note("copied", seat, chosen, card)
        state.became(seat, card, chosen)
        effect = state.game.play_effects[chosen]
        if effect is not None:
            state.add_job(seat, effect)

    def kernel(self, w: EffectKernelWriter) -> EffectPart:
        """:meth:`start`, :meth:`decide` and :meth:`copy` in the kernel: the card types
        the seat placed earlier this round (``fx.rpl``) or earlier this turn, none of this
        kind; the newest copy of the card becomes the one chosen (``fx_change``), counts
        as placed as it and its ``play`` effect acts (``fx_add_job``)."""
        card, K = self.card, w.card_types
        same = w.array([1 if k == self.kind else 0 for k in w.effect_kinds])
        copy = f"""fx_change(fx, s, fx_newest(fx, s, {card}), c, False)
for j in range(fx.npl[s]):
    if fx.placed[s, j] == {card}:
        fx.placed[s, j] = c
        break
fx_add_job(fx, s, c)
"""
        return EffectPart(
            start=f"""if fx.counts[s, {card}] == 0:
    return 0
mine = fx.npl[s]
for j in range(fx.npl[s]):
    if fx.placed[s, j] == {card}:
        mine = j
        break
n = 0
for c in range({K}):
    if {same}[c] == 0:
        ok = fx.rpl[s, c] > 0
        for j in range(mine):
            if fx.placed[s, j] == c:
                ok = True
        if ok:
            fx.opts[n] = c
            n += 1
if n == 0:
    fx_discard(fx, fx_remove_newest(fx, s, {card}))
    return 0
if n > 1:
    return n
c = fx.opts[0]
{copy}return 0
""",
            decide=f"c = a\n{copy}",
            decisions=w.copies(card),
            lookahead=True,
            copies=True,
        )

    def event_line(self, what: Sequence[Any], say: Speech) -> str | None:
        if what[0] == "copied":
            return f"{say.whose(what[1])} {say.name(what[3])} becomes a copy of {say.name(what[2])}."
        if what[0] == "discarded" and what[3] == "nothing_to_copy":
            return f"{discarded(what, say)}: nothing to copy."
        return None


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> CopyEarlier:
    return CopyEarlier(**common(spec, ctx, card, WHEN))
