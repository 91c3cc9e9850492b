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
on a table, in the deck, kept, set aside in a pending decision, or discarded. What
they do that the players see is written down as they do it (``state.note``: the
kinds of :class:`~ruledraft.engine.state.Event`), for ``play`` to tell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from ruledraft.engine.decisions import Decision

if TYPE_CHECKING:
    from ruledraft.engine.state import State


class Step(Protocol):
    #: whether the step reads the cards placed earlier this round (``State.round_placed``)
    keeps_round: bool
    changes_cards: bool

    def start(self, state: State, seat: int, effect: Any) -> Decision | None: ...
    def decide(self, state: State, decision: Decision, action: int) -> Decision | None: ...
    def turn_end(self, state: State, effect: Any) -> None: ...


class _StepBase:
    #: the step turns table cards into other card types (a face-down card, a copy): a
    #: round's table may then hold more of a type than the deck has
    changes_cards = False
    keeps_round = False

    def start(self, state: State, seat: int, effect: Any) -> Decision | None:
        return None

    def decide(self, state: State, decision: Decision, action: int) -> Decision | None:  # pragma: no cover
        raise NotImplementedError

    def turn_end(self, state: State, effect: Any) -> None:
        return None

    @staticmethod
    def discard_own(state: State, seat: int, card: int, why: str) -> None:
        """The card with the effect leaves ``seat``'s table, discarded (its physical
        card, should it be a copy), and an event says ``why``."""
        state.discard(state.remove_from_table(seat, card))
        state.note("discarded", seat, card, why, 0)


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
        state.note("played", seat, action, decision.card)
        state.hands[seat].remove(action)
        state.hands[seat].append(state.remove_from_table(seat, decision.card))
        state.note("to_hand", seat, decision.card)
        state.place(seat, action)


class DrawAndChooseStep(_StepBase):
    """Party's menu: draw, play one (not an excluded card), shuffle the rest back."""

    def start(self, state: State, seat: int, effect: Any) -> Decision | None:
        drawn = state.draw(effect.draw)
        state.note("drew", seat, len(drawn), effect.card)
        options = tuple(sorted({c for c in drawn if c not in effect.excluded}))
        if not options:
            state.return_to_deck(drawn, seat)
            if drawn:
                state.note("returned", seat, len(drawn))
            if effect.discard and state.counts[seat][effect.card]:
                self.discard_own(state, seat, effect.card, "used")
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
        state.note("played", seat, action, decision.card)
        rest = list(decision.shown)
        rest.remove(action)
        state.return_to_deck(rest, seat)
        if rest:
            state.note("returned", seat, len(rest))
        effect = state.game.effect_of[decision.card]
        if effect is not None and effect.discard and state.counts[seat][decision.card]:
            self.discard_own(state, seat, decision.card, "used")
        state.place(seat, action)


class CollisionStep(_StepBase):
    """Miso soup: enough copies placed this turn, by anyone, and all of them are discarded
    (one turned face down this turn too: it goes as the card it is)."""

    def turn_end(self, state: State, effect: Any) -> None:
        card = effect.card
        placed = state.placed
        n = sum(p.count(card) for p in placed)
        if n < effect.at_least:
            return
        for seat, cards in enumerate(placed):
            for _ in range(cards.count(card)):
                try:
                    gone = state.remove_from_table(seat, card, turned=True)
                except ValueError:  # it has left the table already
                    break
                state.discard(gone)
                state.note("discarded", seat, gone, "collision", n)


def _newest(table: list[int], card: int) -> int:
    """The position of the newest copy of ``card`` in ``table``."""
    return len(table) - 1 - table[::-1].index(card)


class TurnFaceDownStep(_StepBase):
    """Takeout box: turn cards placed this round face down, one decision per card until
    done (each into the declared face-down card); then the card is discarded."""

    changes_cards = True

    def choices(self, state: State, seat: int, effect: Any) -> list[int]:
        """The card types of ``seat``'s table it may turn (not face-down ones, not cards
        with this effect: they are about to leave)."""
        effect_of = state.game.effect_of
        return sorted(
            c
            for c, n in enumerate(state.counts[seat])
            if n and c != effect.face_down and (effect_of[c] is None or effect_of[c].kind != effect.kind)
        )

    def start(self, state: State, seat: int, effect: Any) -> Decision | None:
        if not state.counts[seat][effect.card]:
            return None
        options = self.choices(state, seat, effect)
        if not options:
            self.finish(state, seat, effect)
            return None
        game = state.game
        name = game.ruleset.catalogue.cards[effect.card].name
        return Decision(
            seat=seat,
            effect=effect.kind,
            card=effect.card,
            prompt=f"{name}: turn a card of yours face down (done: no more)",
            options=(*options, game.done_action),
            owner=seat,
        )

    def decide(self, state: State, decision: Decision, action: int) -> None:
        seat = decision.seat
        effect = state.game.effect_of[decision.card]
        if action == state.game.done_action:
            self.finish(state, seat, effect)
            return
        state.change_card(seat, _newest(state.played[seat], action), effect.face_down, turned=True)
        state.note("turned", seat, action, effect.face_down)
        state.add_job(seat, effect)  # the next card, or done

    def finish(self, state: State, seat: int, effect: Any) -> None:
        if effect.discard and state.counts[seat][effect.card]:
            self.discard_own(state, seat, effect.card, "used")


class CopyEarlierStep(_StepBase):
    """Special order: become a copy of a card type the seat placed earlier this round
    (one decision when there is a choice); with nothing to copy, discarded."""

    keeps_round = True
    changes_cards = True

    def start(self, state: State, seat: int, effect: Any) -> Decision | None:
        if not state.counts[seat][effect.card]:
            return None
        effect_of = state.game.effect_of
        placed = state.placed[seat]
        mine = placed.index(effect.card) if effect.card in placed else len(placed)
        earlier = {*state.round_placed[seat], *placed[:mine]}
        options = sorted(c for c in earlier if effect_of[c] is None or effect_of[c].kind != effect.kind)
        if not options:
            self.discard_own(state, seat, effect.card, "nothing_to_copy")
            return None
        if len(options) == 1:
            self.copy(state, seat, effect.card, options[0])
            return None
        name = state.game.ruleset.catalogue.cards[effect.card].name
        return Decision(
            seat=seat,
            effect=effect.kind,
            card=effect.card,
            prompt=f"{name}: copy one of the cards you played this round",
            options=tuple(options),
            owner=seat,
        )

    def decide(self, state: State, decision: Decision, action: int) -> None:
        self.copy(state, decision.seat, decision.card, action)

    def copy(self, state: State, seat: int, card: int, chosen: int) -> None:
        """``seat``'s newest ``card`` becomes ``chosen``: placed as it this turn, and its
        when-played effect acts."""
        state.change_card(seat, _newest(state.played[seat], card), chosen)
        state.note("copied", seat, chosen, card)
        placed = state.placed[seat]
        if card in placed:
            placed[placed.index(card)] = chosen
        effect = state.game.play_effects[chosen]
        if effect is not None:
            state.add_job(seat, effect)


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
        state.note("asked", owner, action, decision.card)
        for giver in self.asked(state, owner, effect):
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
                    prompt=f"{effect.name}: you are asked for {what}; which card do you give?",
                    options=found,
                    owner=owner,
                )
        self.discard_own(state, owner, decision.card, "unmatched")  # nobody holds one: the physical card
        return None

    @staticmethod
    def give(state: State, decision: Decision, giver: int, card: int) -> None:
        """``giver`` hands ``card`` over: the owner plays it, the giver gets the card with the effect."""
        owner = decision.owner
        state.note("gave", giver, owner, card)
        state.hands[giver].remove(card)
        state.hands[giver].append(state.remove_from_table(owner, decision.card))  # the physical card (a copy's)
        state.known_in_hand[giver].append(state.hands[giver][-1])
        state.note("to_hand", giver, state.hands[giver][-1])
        state.place(owner, card)


#: the run-time step of each effect kind (``extra_pick`` acts at pick time, in the procedure)
STEPS: dict[str, Step] = {
    "second_pick": SecondPickStep(),
    "draw_and_choose": DrawAndChooseStep(),
    "collision": CollisionStep(),
    "turn_face_down": TurnFaceDownStep(),
    "copy_earlier": CopyEarlierStep(),
    "ask_for": AskForStep(),
}
