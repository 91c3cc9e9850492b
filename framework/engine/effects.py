"""Run-time steps of card effects, one per effect kind, looked up in :data:`STEPS`.

A step is what the engine does with a compiled effect (see
:mod:`ruledraft.language.effects`) when its trigger comes:

* ``start(state, seat, effect)`` -- the effect of ``seat``'s card acts; it returns a
  :class:`~ruledraft.engine.decisions.Decision` when it needs a choice (the turn
  waits for it), or None when it is done;
* ``decide(state, decision, action)`` -- the choice made (already checked legal); it
  returns the next decision when the choice asks another (of any seat), else None;
* ``turn_end(state, effect)`` -- for ``turn_end`` effects, after every other effect
  of the turn.

Steps change a state only through its seam (``place``, ``remove_from_table``,
``discard``, ``draw``, ``return_to_deck``), so every card stays countable: in a hand,
on a table, in the deck, kept, set aside in a pending decision, or discarded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ruledraft.engine.decisions import Decision

if TYPE_CHECKING:
    from ruledraft.engine.state import State


class Step(Protocol):
    def start(self, state: State, seat: int, effect: Any) -> Decision | None: ...
    def decide(self, state: State, decision: Decision, action: int) -> Decision | None: ...
    def turn_end(self, state: State, effect: Any) -> None: ...


class _StepBase:
    def start(self, state: State, seat: int, effect: Any) -> Decision | None:
        return None

    def decide(self, state: State, decision: Decision, action: int) -> Decision | None:  # pragma: no cover
        raise NotImplementedError

    def turn_end(self, state: State, effect: Any) -> None:
        return None


class SecondPickStep(_StepBase):
    """Party's chopsticks: after the reveal, a second card from the hand (or done);
    then the card with the effect goes into the hand."""

    def start(self, state: State, seat: int, effect: Any) -> Decision | None:
        hand = state.hands[seat]
        if not hand or not state.counts[seat][effect.card]:
            return None
        game = state.game
        return Decision(
            seat=seat,
            effect=effect.kind,
            card=effect.card,
            prompt=f"Play a second card with your {effect.name}? (done: no)",
            options=tuple(sorted(set(hand))) + (game.done_action,),
            owner=seat,
        )

    def decide(self, state: State, decision: Decision, action: int) -> None:
        if action == state.game.done_action:
            return
        seat = decision.seat
        state.hands[seat].remove(action)
        state.remove_from_table(seat, decision.card)
        state.hands[seat].append(decision.card)
        state.place(seat, action)


class DrawAndChooseStep(_StepBase):
    """Party's menu: draw, play one (not an excluded card), shuffle the rest back."""

    def start(self, state: State, seat: int, effect: Any) -> Decision | None:
        drawn = state.draw(effect.draw)
        options = tuple(sorted({c for c in drawn if c not in effect.excluded}))
        if not options:
            state.return_to_deck(drawn, seat)
            if effect.discard and state.counts[seat][effect.card]:
                state.remove_from_table(seat, effect.card)
                state.discard(effect.card)
            return None
        name = state.game.ruleset.catalogue.cards[effect.card].name
        return Decision(
            seat=seat,
            effect=effect.kind,
            card=effect.card,
            prompt=f"{name}: play one of the cards drawn",
            options=options,
            shown=tuple(drawn),
            owner=seat,
        )

    def decide(self, state: State, decision: Decision, action: int) -> None:
        seat = decision.seat
        rest = list(decision.shown)
        rest.remove(action)
        state.return_to_deck(rest, seat)
        effect = state.game.effect_of[decision.card]
        if effect is not None and effect.discard and state.counts[seat][decision.card]:
            state.remove_from_table(seat, decision.card)
            state.discard(decision.card)
        state.place(seat, action)


class CollisionStep(_StepBase):
    """Miso soup: enough copies placed this turn, by anyone, and all of them are discarded."""

    def turn_end(self, state: State, effect: Any) -> None:
        card = effect.card
        placed = state.placed
        if sum(p.count(card) for p in placed) < effect.at_least:
            return
        for seat, cards in enumerate(placed):
            for _ in range(cards.count(card)):
                if state.counts[seat][card]:
                    state.remove_from_table(seat, card)
                    state.discard(card)


class AskForStep(_StepBase):
    """Party's spoon: after the reveal the owner names a card or a family (or done);
    the other seats are asked in the effect's order, and the first holding a match
    gives one (its own decision when its matches are of several kinds). The owner
    plays it, the giver gets the card with the effect into its hand, where every seat
    knows it is. Nobody holds a match: the card with the effect is discarded."""

    def start(self, state: State, seat: int, effect: Any) -> Decision | None:
        if not state.counts[seat][effect.card]:
            return None
        if not any(state.hands[s] for s in self.asked(state, seat, effect)):
            return None  # nothing left in any hand to ask for
        game = state.game
        K = game.num_card_types
        families = tuple(K + game.families.index(f) for f, _ in effect.families)
        return Decision(
            seat=seat,
            effect=effect.kind,
            card=effect.card,
            prompt=f"{effect.name}: name a card or a family to ask the others for (done: not now)",
            options=tuple(sorted(effect.cards + families)) + (game.done_action,),
            owner=seat,
        )

    @staticmethod
    def asked(state: State, seat: int, effect: Any) -> list[int]:
        """The other players in the order they are asked."""
        n = state.game.num_players
        return [(seat + effect.step * k) % n for k in range(1, n)]

    def decide(self, state: State, decision: Decision, action: int) -> Decision | None:
        game = state.game
        owner = decision.owner
        if decision.seat != owner:  # the giver chose which card to give
            self.give(state, decision, decision.seat, action)
            return None
        if action == game.done_action:
            return None
        effect = game.effect_of[decision.card]
        K = game.num_card_types
        if action < K:
            matches: tuple[int, ...] = (action,)
            what = game.ruleset.catalogue.cards[action].name
        else:
            family = game.families[action - K]
            matches = effect.matching(family)
            what = f"any {family}"
        for giver in self.asked(state, owner, effect):
            found = tuple(sorted({c for c in state.hands[giver] if c in matches}))
            if len(found) == 1:
                self.give(state, decision, giver, found[0])
                return None
            if found:
                return Decision(
                    seat=giver,
                    effect=decision.effect,
                    card=decision.card,
                    prompt=f"{effect.name}: you are asked for {what}; which card do you give?",
                    options=found,
                    owner=owner,
                )
        state.remove_from_table(owner, decision.card)  # nobody holds one
        state.discard(decision.card)
        return None

    @staticmethod
    def give(state: State, decision: Decision, giver: int, card: int) -> None:
        """``giver`` hands ``card`` over: the owner plays it, the giver gets the card with the effect."""
        owner = decision.owner
        state.hands[giver].remove(card)
        state.remove_from_table(owner, decision.card)
        state.hands[giver].append(decision.card)
        state.known_in_hand[giver].append(decision.card)
        state.place(owner, card)


#: the run-time step of each effect kind (``extra_pick`` acts at pick time, in the procedure)
STEPS: dict[str, Step] = {
    "second_pick": SecondPickStep(),
    "draw_and_choose": DrawAndChooseStep(),
    "collision": CollisionStep(),
    "ask_for": AskForStep(),
}
