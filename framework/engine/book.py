"""What a state keeps only for card effects and races: :class:`EffectBook`.

A game whose ruleset has neither (``Game.general`` false: Sushi Go!, its
chopsticks included) has no book (``State.book`` is None), so its states are
smaller and cheaper to clone; a game with them clones its book as one unit.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from ruledraft.language.effect import CardEffect

T = TypeVar("T")


class EffectBook:
    """The bookkeeping of card effects and races in one state (``State.book``)."""

    #: effects still to resolve this turn: (order, seat, sequence number, effect)
    jobs: list[tuple[int, int, int, CardEffect]]
    #: per seat, the cards placed on its table this turn, any way (picks, effects)
    placed: list[list[int]]
    #: cards discarded by effects (and, with effects, cards that leave at round end
    #: under ``between_rounds: keep_deck``); under ``reshuffle`` they go back into the
    #: deck at round end
    discarded: list[int]
    #: table cards changed by effects (turned face down, copies): (seat, position on
    #: its table) -> (the physical card there, the face it showed before it was turned
    #: face down or -1, the seat's table length when it was turned); empty without such effects
    under: dict[tuple[int, int], tuple[int, int, int]]
    #: kept cards that are changed cards: (the face kept, the physical card); never changed in place
    kept_under: tuple[tuple[int, int], ...]
    #: per seat, the cards placed on its table this round before this turn (as they
    #: became), kept only for effects that read it (``Game.keeps_round``); never changed in place
    round_placed: tuple[tuple[int, ...], ...]
    #: per seat, cards every seat knows are in its hand (a card an effect gave it);
    #: they pass with the hand and stay in it in a re-deal of hidden cards
    known_in_hand: list[list[int]]
    #: per seat, the cards an effect put into its hand unseen by the others (``private=True``),
    #: each with the seats that know it (bits: the seat it went to, and each seat that has
    #: held the hand since); they pass with the hand. Another seat that held the hand before
    #: does not know them (:meth:`unseen_by`)
    private_in_hand: list[list[tuple[int, int]]]
    #: per rule of ``game.turn_rules``, its progress through this round (immutable values)
    turn_progress: list[Any]

    __slots__ = tuple(__annotations__)

    def __init__(self, seats: int, turn_progress: list[Any]) -> None:
        self.jobs = []
        self.placed = [[] for _ in range(seats)]
        self.discarded = []
        self.under = {}
        self.kept_under = ()
        self.round_placed = tuple(() for _ in range(seats))
        self.known_in_hand = [[] for _ in range(seats)]
        self.private_in_hand = [[] for _ in range(seats)]
        self.turn_progress = turn_progress

    def clone(self) -> EffectBook:
        """A copy that changes independently (tuples and the progress values are immutable: shared)."""
        new = EffectBook.__new__(EffectBook)
        new.jobs = self.jobs[:]
        new.placed = [p[:] for p in self.placed]
        new.discarded = self.discarded[:]
        new.under = self.under.copy() if self.under else {}
        new.kept_under = self.kept_under
        new.round_placed = self.round_placed
        new.known_in_hand = [k[:] for k in self.known_in_hand]
        new.private_in_hand = [p[:] for p in self.private_in_hand]
        new.turn_progress = self.turn_progress[:]
        return new

    def pass_known(self, hands: list[list[int]], direction: int) -> None:
        """What every seat knows to be in a hand goes with the hand (before the hands
        pass ``direction``); a card that has left the hand is no longer known to be there."""
        known, private = self.known_in_hand, self.private_in_hand
        for seat in range(len(known)):  # a card that has left the hand is no longer in it, seen or not
            if known[seat]:
                known[seat] = _still_in(hands[seat], known[seat], lambda c: c)
            if private[seat]:
                private[seat] = _still_in(hands[seat], private[seat], lambda entry: entry[0])
        if direction == 1:
            known.insert(0, known.pop())
            private.insert(0, private.pop())
        elif direction == -1:
            known.append(known.pop(0))
            private.append(private.pop(0))
        for seat, entries in enumerate(private):  # the seat a hand passes to sees all of it
            if entries:
                private[seat] = [(c, knowers | 1 << seat) for c, knowers in entries]

    def unseen_by(self, seat: int, holder: int) -> list[int]:
        """The cards in ``holder``'s hand that ``seat`` has not seen go into it (an
        effect's private ``into_hand`` since ``seat`` held that hand)."""
        return [c for c, knowers in self.private_in_hand[holder] if not knowers >> seat & 1]


def _still_in(hand: list[int], entries: list[T], card: Callable[[T], int]) -> list[T]:
    """The ``entries`` whose cards (``card`` of each) are still in ``hand``, each copy in
    the hand standing for one entry."""
    rest = hand[:]
    still = []
    for entry in entries:
        c = card(entry)
        if c in rest:
            rest.remove(c)
            still.append(entry)
    return still
