"""The ``ask_for`` effect: Party's spoon. On a later turn, after the reveal, the seat
may name a card or a family (a tag: ``maki``, ``nigiri``); the other seats are asked
in turn (``ask: left``, nearest to the left first, around the table; or ``right``),
and the first one holding a match in its hand gives one (its choice, when its
matches are of several kinds). The seat plays the card given (its own effects act)
and the giver gets the card with the effect into its hand. Nobody holds a match: the
card with the effect is discarded. Done declines: the card stays on the table."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import attrs

from ruledraft.language.catalogue import family_words
from ruledraft.language.decision import Decision
from ruledraft.language.effect import EffectKernelWriter, EffectPart, EffectState, Speech
from ruledraft.language.effects.base import EffectBase, common, discarded
from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.suggest import clipped, did_you_mean

NAME = "ask_for"
WHEN = "reveal"
TRIGGERS = ("reveal",)
SCHEMA: dict[str, Any] = {
    "title": "Ask the others for a card (after the reveal)",
    "description": (
        "On a later turn, after the reveal, name a card or a family; the first seat asked that holds a "
        "match gives one, you play it and it gets this card. Nobody has one: this card is discarded."
    ),
    "properties": {
        "ask": {
            "title": "Ask",
            "description": "The order the other seats are asked in: left (nearest to the left first) or right.",
            "enum": ["left", "right"],
            "default": "left",
        },
        "families": {
            "title": "Families",
            "description": "The tags that may be named as a family (default: every tag of the cards in the deck).",
            "type": "array",
            "items": {"type": "string", "minLength": 1, "maxLength": 64},
            "maxItems": 100,
            "uniqueItems": True,
        },
    },
}


@attrs.frozen(kw_only=True)
class AskFor(EffectBase):
    KIND: ClassVar[str] = NAME
    #: +1: the nearest seat to the left first (the way hands pass left); -1: to the right
    step: int
    #: the cards that may be named (every card type in the deck), sorted
    cards: tuple[int, ...]
    #: the families that may be named, each with the cards it matches
    families: tuple[tuple[str, tuple[int, ...]], ...]

    def matching(self, family: str) -> tuple[int, ...]:
        """The cards a named family matches."""
        return dict(self.families)[family]

    def describe(self) -> str:
        side = "left" if self.step == 1 else "right"
        names = ", ".join(family_words(f) for f, _ in self.families)
        what = f"a card or a family ({names})" if names else "a card"
        return (
            f"{self.name}: on a later turn, after the reveal (order {self.order}), you may name {what}; "
            f"the nearest player to your {side} holding a match in their hand gives you one (their choice "
            f"if several kinds match), you play it and they get the {self.name} into their hand; if "
            f"nobody holds one, the {self.name} is discarded."
        )

    def start(self, state: EffectState, seat: int) -> Decision | None:
        if not state.counts[seat][self.card]:
            return None
        if not any(state.hands[s] for s in self.asked(state, seat)):
            return None  # nothing left in any hand to ask for
        game = state.game
        K = game.num_card_types
        families = tuple(K + game.families.index(f) for f, _ in self.families)
        return Decision(
            seat=seat,
            effect=self.kind,
            card=self.card,
            prompt=f"{self.name}: name a card or a family to ask the others for (done: not now)",
            options=tuple(sorted(self.cards + families)) + (game.done_action,),
            owner=seat,
        )

    def asked(self, state: EffectState, seat: int) -> list[int]:
        """The other players in the order they are asked."""
        n = state.game.num_players
        return [(seat + self.step * k) % n for k in range(1, n)]

    def decide(self, state: EffectState, decision: Decision, action: int) -> Decision | None:
        game = state.game
        owner = decision.owner
        if decision.seat != owner:  # the giver chose which card to give
            self.give(state, decision, decision.seat, action)
            return None
        if action == game.done_action:
            return None
        K = game.num_card_types
        if action < K:
            matches: tuple[int, ...] = (action,)
            what = game.ruleset.catalogue.cards[action].name
        else:
            family = game.families[action - K]
            matches = self.matching(family)
            what = f"any {family_words(family)}"
        state.note("asked", owner, action, decision.card)
        for giver in self.asked(state, owner):
            found = tuple(sorted({c for c in state.hands[giver] if c in matches}))
            if not found:
                state.note("none", giver, action)
            elif len(found) == 1:
                self.give(state, decision, giver, found[0])
                return None
            else:
                return Decision(
                    seat=giver,
                    effect=decision.effect,
                    card=decision.card,
                    prompt=f"{self.name}: you are asked for {what}; which card do you give?",
                    options=found,
                    owner=owner,
                )
        self.discard_own(state, owner, decision.card, "unmatched")  # nobody holds one: the physical card
        return None

    def rehanded(self, state: Any, decision: Decision, hand: Sequence[int]) -> tuple[int, ...]:
        """The asking seat's options do not read its hand; the giver's are the kinds of
        its hand that match what was asked (the last ``asked`` event of the card's
        owner), and it is asked only while it holds two or more of them."""
        if decision.seat == decision.owner:
            return decision.options
        asked = next(
            (e.what[2] for e in reversed(state.events) if e.what[0] == "asked" and e.what[1] == decision.owner),
            None,
        )
        if asked is None:
            return ()
        K = state.game.num_card_types
        matches = (asked,) if asked < K else self.matching(state.game.families[asked - K])
        found = tuple(sorted({c for c in hand if c in matches}))
        return found if len(found) > 1 else ()

    @staticmethod
    def give(state: EffectState, decision: Decision, giver: int, card: int) -> None:
        """``giver`` hands ``card`` over: the owner plays it, the giver gets the card with
        the effect, in sight of every seat."""
        owner = decision.owner
        state.note("gave", giver, owner, card)
        state.take_from_hand(giver, card)
        physical = state.remove_from_table(owner, decision.card)  # the physical card (a copy's)
        state.into_hand(giver, physical, known=True)
        state.note("to_hand", giver, physical)
        state.place(owner, card)

    def kernel(self, w: EffectKernelWriter) -> EffectPart:
        """:meth:`start`, :meth:`decide` and :meth:`give` in the kernel. The options are the
        same every time (a constant); a family named matches the cards of its tag
        (``match``: per family, one row of 0/1 per card type). The spoon goes into the
        giver's hand known to every seat (``fx_into_hand_known``): greedy and value judge
        both decisions in the world they would re-deal (``lookahead``)."""
        card, step, K, done = self.card, self.step, w.card_types, w.done_action
        families = w.families
        options = w.array(sorted(self.cards + tuple(K + families.index(f) for f, _ in self.families)) + [done])
        tagged = [dict(self.families).get(f, ()) for f in families]
        match = w.array([1 if c in cards else 0 for cards in tagged for c in range(K)] or [0])
        give = f"""fx_note_placed(fx, owner, c)
fx_take_from_hand(fx, giver, c)
fx_into_hand_known(fx, giver, fx_remove_newest(fx, owner, {card}))
fx_place(fx, owner, c)
"""
        return EffectPart(
            start=f"""if fx.counts[s, {card}] == 0:
    return 0
held = False
for k in range(1, N):
    if fx.hl[fx.slot[(s + {step} * k) % N]] > 0:
        held = True
if not held:
    return 0
for i in range(len({options})):
    fx.opts[i] = {options}[i]
return len({options})
""",
            decide=f"""owner = fx.ctr[OWNER_AT]
if s != owner:  # the giver chose which card to give
    giver = s
    c = a
{_indent(give)}    return
if a == {done}:
    return
for k in range(1, N):
    giver = (owner + {step} * k) % N
    h = fx.slot[giver]
    n = 0
    for c in range({K}):
        if (a < {K} and c == a) or (a >= {K} and {match}[(a - {K}) * {K} + c] == 1):
            for j in range(fx.hl[h]):
                if fx.hand[h, j] == c:
                    fx.opts[n] = c
                    n += 1
                    break
    if n == 1:
        c = fx.opts[0]
{_indent(give, "        ")}        return
    if n > 1:
        fx_follow(fx, giver, n)
        return
fx_discard(fx, fx_remove_newest(fx, owner, {card}))
""",
            decisions=2 * w.copies(card),
            placements=w.copies(card),
            lookahead=True,
        )

    def event_line(self, what: Sequence[Any], say: Speech) -> str | None:
        event, seat = what[0], what[1]
        if event == "asked":
            return f"{say.subject(seat, 'ask', 'asks')} for {say.asked(what[2], family='any ')} with {say.pronoun(seat)} {say.acting(what[3])}."
        if event == "none":
            return f"{say.subject(seat, 'have', 'has')} no {say.asked(what[2])}."
        if event == "gave":
            return f"{say.subject(seat, 'give', 'gives')} {say.name(what[3])} to {say.whom(what[2])} to play."
        if event == "discarded" and what[3] == "unmatched":
            return f"{discarded(what, say)}: nobody had one to give."
        return None


def _indent(text: str, by: str = "    ") -> str:
    return "".join(by + line for line in text.splitlines(keepends=True))


def build(spec: Mapping[str, Any], ctx: RuleContext, card: int) -> AskFor | None:
    catalogue = ctx.catalogue
    in_deck = tuple(c.index for c in catalogue.cards if c.count > 0)
    tags = sorted({t for c in catalogue.cards if c.count > 0 for t in c.tags})
    names = spec.get("families")
    ok = True
    if names is None:
        names = tags
    else:
        kept = []
        for i, family in enumerate(names):
            if family in tags:
                kept.append(family)
            elif not ctx.left_off_menu("tag", family):  # a family a menu left out is simply not asked for
                ctx.error(("families", i), f"no card has the tag '{clipped(family)}'{did_you_mean(family, tags)}")
                ok = False
        names = kept
    if not ok:
        return None
    families = tuple((f, catalogue.select(tags=[f])) for f in sorted(names))
    return AskFor(
        **common(spec, ctx, card, WHEN),
        step=1 if spec.get("ask", "left") == "left" else -1,
        cards=in_deck,
        families=families,
    )
