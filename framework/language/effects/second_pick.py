"""The ``second_pick`` effect: Party's chopsticks. On a later turn, after the reveal,
the seat may play a second card from its hand (a decision: a card, or done to
decline); the card with the effect then goes into that hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from ruledraft.language.decision import Decision
from ruledraft.language.effect import EffectKernelWriter, EffectPart, EffectState
from ruledraft.language.effects.base import EffectBase, common
from ruledraft.language.kinds.context import RuleContext

NAME = "second_pick"
WHEN = "reveal"
TRIGGERS = ("reveal",)
SCHEMA: dict[str, Any] = {
    "title": "Second pick (after the reveal)",
    "description": "On a later turn, after the reveal, play a second card from your hand; this card then goes into your hand.",
    "properties": {},
}


@attrs.frozen(kw_only=True)
class SecondPick(EffectBase):
    KIND: ClassVar[str] = NAME

    def describe(self) -> str:
        return (
            f"{self.name}: on a later turn, after the reveal (order {self.order}), you may play a second "
            f"card from your hand, and this card then goes into your hand."
        )

    def start(self, state: EffectState, seat: int) -> Decision | None:
        hand = state.hands[seat]
        if not hand or not state.counts[seat][self.card]:
            return None
        return Decision(
            seat=seat,
            effect=self.kind,
            card=self.card,
            prompt=f"Play a second card with your {self.name}? (done: no)",
            options=tuple(sorted(set(hand))) + (state.game.done_action,),
            owner=seat,
        )

    def rehanded(self, state: Any, decision: Decision, hand: Sequence[int]) -> tuple[int, ...]:
        """Any card of the hand, or done: as :meth:`start` offers them."""
        return tuple(sorted(set(hand))) + (state.game.done_action,) if hand else ()

    def decide(self, state: EffectState, decision: Decision, action: int) -> None:
        if action == state.game.done_action:
            return
        seat = decision.seat
        state.note("played", seat, action, decision.card)
        state.take_from_hand(seat, action)
        state.into_hand(seat, state.remove_from_table(seat, decision.card))
        state.note("to_hand", seat, decision.card)
        state.place(seat, action)

    def kernel(self, w: EffectKernelWriter) -> EffectPart:
        """:meth:`start` and :meth:`decide` in the kernel: the hand's distinct cards and
        done offered while the card is on the table; a card chosen is played and the
        card with the effect goes to the end of the hand. One seat at a time holds it:
        at most as many decisions a turn as the game has copies of the card."""
        card = self.card
        return EffectPart(
            start=f"""if fx.hl[fx.slot[s]] == 0 or fx.counts[s, {card}] == 0:
    return 0
return fx_hand_options(fx, s)
""",
            decide=f"""if a == {w.done_action}:
    return
fx_note_placed(fx, s, a)
fx_take_from_hand(fx, s, a)
fx_into_hand(fx, s, fx_remove_newest(fx, s, {card}))
fx_place(fx, s, a)
""",
            decisions=w.copies(card),
            placements=w.copies(card),
            lookahead=True,
        )


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> SecondPick:
    return SecondPick(**common(spec, ctx, card, WHEN))
