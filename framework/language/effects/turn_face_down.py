"""The ``turn_face_down`` effect: Party's takeout box. When played, the seat turns any
number of its cards placed this round (and still on its table, this turn's included)
face down, one card at a time until it says done: each becomes the ``face_down`` card,
a card type the ruleset declares (usually ``count: 0``, scored by an ordinary rule) and
nothing else. With ``discard`` (the default) the card with the effect is then discarded.

The physical card stays under its face and goes back into the deck as itself."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from ruledraft.language.decision import Decision
from ruledraft.language.effect import EffectKernelWriter, EffectPart, EffectState, Speech
from ruledraft.language.effects.base import DISCARD, EffectBase, common
from ruledraft.language.kinds.context import RuleContext

NAME = "turn_face_down"
WHEN = "play"
TRIGGERS = ("play",)
SCHEMA: dict[str, Any] = {
    "title": "Turn face down",
    "description": "Turn any number of your cards placed this round face down: each becomes the face-down card.",
    "required": ["face_down"],
    "properties": {
        "face_down": {
            "title": "Face-down card",
            "description": "The card a turned card becomes (declare it with count: 0 and score it with a rule).",
            "$ref": "#/$defs/identifier",
        },
        "discard": DISCARD,
    },
}


@attrs.frozen(kw_only=True)
class TurnFaceDown(EffectBase):
    KIND: ClassVar[str] = NAME
    changes_cards: ClassVar[bool] = True
    #: turning a card face down costs its points, which a look-ahead does not weigh
    bots_decline: ClassVar[bool] = True
    face_down: int
    discard: bool
    face_down_name: str

    def describe(self) -> str:
        text = (
            f"{self.name}: when played (order {self.order}), turn any number of your cards placed "
            f"this round face down, one at a time (done ends): each becomes a {self.face_down_name}, "
            "which counts for nothing but its own scoring (the newest copy of the card named is turned)"
        )
        return text + (f"; the {self.name} is discarded." if self.discard else ".")

    def table_excess(self, counts: Sequence[int]) -> Mapping[int, int | None]:
        """Only face-down cards: as many as the deck's cards (each is one turned over)."""
        return {self.face_down: None}

    def face_down_cards(self) -> frozenset[int]:
        """Its face-down card: what lies under it, a table does not say."""
        return frozenset({self.face_down})

    def choices(self, state: EffectState, seat: int) -> list[int]:
        """The card types of ``seat``'s table it may turn: not face-down ones, not its own
        card (about to leave). Another box put down this turn (by chopsticks) may be
        turned: it then scores as a face-down card and never acts."""
        # in card order already (enumerate's): no sort
        return [c for c, n in enumerate(state.counts[seat]) if n and c != self.face_down and c != self.card]

    def start(self, state: EffectState, seat: int) -> Decision | None:
        if not state.counts[seat][self.card]:
            return None
        options = self.choices(state, seat)
        if not options:
            self.finish(state, seat)
            return None
        return Decision(
            seat=seat,
            effect=self.kind,
            card=self.card,
            prompt=f"{self.name}: turn a card of yours face down (done: no more)",
            options=(*options, state.game.done_action),
            owner=seat,
        )

    def rehanded(self, state: Any, decision: Decision, hand: Sequence[int]) -> tuple[int, ...]:
        """Its options are cards on the table, which every seat sees: a re-dealt hand leaves them."""
        return decision.options

    def decide(self, state: EffectState, decision: Decision, action: int) -> None:
        seat = decision.seat
        if action == state.game.done_action:
            self.finish(state, seat)
            return
        state.change_card(seat, newest(state.played[seat], action), self.face_down, turned=True)
        state.note("turned", seat, action, self.face_down)
        state.add_job(seat, self)  # the next card, or done

    def finish(self, state: EffectState, seat: int) -> None:
        if self.discard and state.counts[seat][self.card]:
            self.discard_own(state, seat, self.card, "used")

    def kernel(self, w: EffectKernelWriter) -> EffectPart:
        """:meth:`start`, :meth:`decide` and :meth:`finish` in the kernel: the seat's card
        types on its table but the face-down card and its own, then done; a card
        chosen turns its newest copy face down (``fx_change``) and the effect acts again
        for the next. A box asks at most one decision a card on its seat's table and one
        more a round: one a turn on average over the round (the room is per game)."""
        card, face, K = self.card, self.face_down, w.card_types
        finish = (
            f"if fx.counts[s, {card}] > 0:\n    fx_discard(fx, fx_remove_newest(fx, s, {card}))\n"
            if self.discard
            else ""
        )
        then = _indent(finish or "pass\n")
        return EffectPart(
            start=f"""if fx.counts[s, {card}] == 0:
    return 0
n = 0
for c in range({K}):
    if fx.counts[s, c] > 0 and c != {face} and c != {card}:
        fx.opts[n] = c
        n += 1
if n == 0:
{then}    return 0
fx.opts[n] = {w.done_action}
return n + 1
""",
            decide=f"""if a == {w.done_action}:
{then}    return
fx_change(fx, s, fx_newest(fx, s, a), {face}, True)
fx_add_job(fx, s, {card})
""",
            decisions=w.copies(card),
            lookahead=True,
            turns=True,
        )

    def event_line(self, what: Sequence[Any], say: Speech) -> str | None:
        if what[0] == "turned":
            seat = what[1]
            return f"{say.subject(seat, 'turn', 'turns')} {say.pronoun(seat)} {say.name(what[2])} face down (now {say.name(what[3])})."
        return None


def _indent(text: str) -> str:
    return "".join("    " + line for line in text.splitlines(keepends=True))


def newest(table: Sequence[int], card: int) -> int:
    """The position of the newest copy of ``card`` in ``table``."""
    return len(table) - 1 - table[::-1].index(card)


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> TurnFaceDown | None:
    face_down = ctx.card(("face_down",), spec["face_down"])
    if face_down is None:
        return None
    cards = ctx.catalogue.cards
    if face_down == card:
        ctx.error(("face_down",), f"the face-down card must be another card than {cards[card].id}")
        return None
    return TurnFaceDown(
        **common(spec, ctx, card, WHEN),
        face_down=face_down,
        discard=spec.get("discard", True),
        face_down_name=cards[face_down].name,
    )
