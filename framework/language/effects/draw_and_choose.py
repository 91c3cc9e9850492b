"""The ``draw_and_choose`` effect: Party's menu. When played, draw ``draw`` cards from
the deck; the seat plays one of them as if picked (its own effects act), never one of
the cards ``not`` names; the rest go back into the deck, shuffled. With ``discard``
(the default) the card with the effect is then discarded."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from ruledraft.language.decision import Decision
from ruledraft.language.effect import EffectKernelWriter, EffectPart, EffectState, Speech
from ruledraft.language.effects.base import DISCARD, EffectBase, common
from ruledraft.language.kinds.context import RuleContext

NAME = "draw_and_choose"
WHEN = "play"
TRIGGERS = ("play",)
SCHEMA: dict[str, Any] = {
    "title": "Draw and choose",
    "description": "Draw cards from the deck, play one of them, shuffle the rest back.",
    "required": ["draw"],
    "properties": {
        "draw": {
            "title": "Cards drawn",
            "description": "How many cards are drawn from the deck.",
            "type": "integer",
            "minimum": 1,
            "maximum": 20,
        },
        "not": {
            "title": "Not these",
            "description": "Cards that may not be chosen (they go back with the rest).",
            "$ref": "#/$defs/selector",
        },
        "discard": DISCARD,
    },
}


@attrs.frozen(kw_only=True)
class DrawAndChoose(EffectBase):
    KIND: ClassVar[str] = NAME
    deck_taken: ClassVar[int] = 1  # the card it plays comes from the deck
    draw: int
    excluded: frozenset[int]
    discard: bool
    excluded_words: str

    def describe(self) -> str:
        text = f"{self.name}: when played (order {self.order}), draw {self.draw} cards from the deck and play one"
        if self.excluded:
            text += f" (not {self.excluded_words})"
        text += "; the others go back into the deck, shuffled"
        return text + (f"; the {self.name} is discarded." if self.discard else ".")

    def start(self, state: EffectState, seat: int) -> Decision | None:
        drawn = state.draw(self.draw)
        state.note("drew", seat, len(drawn), self.card)
        options = tuple(sorted({c for c in drawn if c not in self.excluded}))
        if not options:
            state.return_to_deck(drawn, seat)
            if drawn:
                state.note("returned", seat, len(drawn))
            if self.discard and state.counts[seat][self.card]:
                self.discard_own(state, seat, self.card, "used")
            return None
        return Decision(
            seat=seat,
            effect=self.kind,
            card=self.card,
            prompt=f"{self.name}: play one of the cards drawn",
            options=options,
            shown=tuple(drawn),
            owner=seat,
        )

    def decide(self, state: EffectState, decision: Decision, action: int) -> None:
        seat = decision.seat
        state.note("played", seat, action, decision.card)
        rest = list(decision.shown)
        rest.remove(action)
        state.return_to_deck(rest, seat)
        if rest:
            state.note("returned", seat, len(rest))
        if self.discard and state.counts[seat][decision.card]:
            self.discard_own(state, seat, decision.card, "used")
        state.place(seat, action)

    def kernel(self, w: EffectKernelWriter) -> EffectPart:
        """:meth:`start` and :meth:`decide` in the kernel: the cards drawn (``fx_draw``),
        the ones allowed offered, the rest shuffled back as the engine's own stream
        shuffles them (``fx_return_shown``). The cards drawn are the seat's own sight:
        greedy and value judge its decision in their re-dealt world (``lookahead``)."""
        card, K = self.card, w.card_types
        excluded = w.array([1 if c in self.excluded else 0 for c in range(K)])
        discard = (
            f"if fx.counts[s, {card}] > 0:\n    fx_discard(fx, fx_remove_newest(fx, s, {card}))\n"
            if self.discard
            else ""
        )
        return EffectPart(
            start=f"""k = fx_draw(fx, {self.draw})
n = 0
for c in range({K}):
    if {excluded}[c] == 0:
        for j in range(k):
            if fx.shown[j] == c:
                fx.opts[n] = c
                n += 1
                break
if n == 0:
    fx_return_shown(fx, s, -1)
{_indent(discard)}    return 0
return n
""",
            decide=f"""fx_note_placed(fx, s, a)
fx_return_shown(fx, s, a)
{discard}fx_place(fx, s, a)
""",
            decisions=w.copies(card),
            placements=w.copies(card),
            lookahead=True,
            grows=not self.discard,  # the card it plays goes beside it
        )

    def redrawn(self, shown: Sequence[int]) -> tuple[int, ...]:
        """The options had the effect drawn ``shown`` (a re-deal of hidden cards)."""
        return tuple(sorted({c for c in shown if c not in self.excluded}))

    def event_line(self, what: Sequence[Any], say: Speech) -> str | None:
        event, seat = what[0], what[1]
        if event == "drew":
            n, by = what[2], what[3]
            if not n:
                return f"{say.whose(seat)} {say.acting(by)} draws nothing: the deck is empty."
            return f"{say.subject(seat, 'draw', 'draws')} {say.counted(n, 'card')} with {say.pronoun(seat)} {say.acting(by)}."
        if event == "returned":
            return (
                f"{say.subject(seat, 'shuffle', 'shuffles')} {say.counted(what[2], 'drawn card')} back into the deck."
            )
        return None


def _indent(text: str, by: str = "    ") -> str:
    return "".join(by + line for line in text.splitlines(keepends=True))


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> DrawAndChoose | None:
    excluded: tuple[int, ...] = ()
    words = ""
    if "not" in spec:
        found = ctx.cards(("not",), spec["not"])
        if found is None:
            return None
        excluded, words = found, ctx.words(spec["not"])
    return DrawAndChoose(
        **common(spec, ctx, card, WHEN),
        draw=spec["draw"],
        excluded=frozenset(excluded),
        discard=spec.get("discard", True),
        excluded_words=words,
    )
