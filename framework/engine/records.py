"""Typed records of a game as it is played: each round's deal, turns and tables, and
what one seat may see of it (:class:`Observation`).

:class:`RoundRecord` is what :attr:`State.history <ruledraft.engine.state.State.history>`
holds, one per round dealt. It is written by the turn procedures and read by the
game log, the ``play`` screens and the scoring pipeline
(:mod:`ruledraft.engine.scoresheet`).

It stores its turns column by column (the actions of every turn in one list,
automatic turns and the dummy's controllers and draws beside it), because random
play-outs append a turn many thousand times a second; :attr:`RoundRecord.turns`
gives them as :class:`Turn` records. A round that has ended is never changed again,
which is what lets :meth:`State.clone <ruledraft.engine.state.State.clone>` share it
instead of copying it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import attrs

from ruledraft.language.decision import Decision


@attrs.frozen
class Turn:
    """One turn: what every player did, revealed at once."""

    #: one action per player, in seat order (see ``Game.decode_action``)
    actions: tuple[int, ...]
    #: played by the engine itself (the last card of every hand)
    auto: bool = False
    #: the dummy procedure: the seat that controlled the dummy this turn (else None)
    controller: int | None = None
    #: the dummy procedure: the cards the controller drew from the dummy's pile
    drawn: tuple[int, ...] = ()
    #: decisions card effects asked for this turn, in the order made: (seat, action)
    decisions: tuple[tuple[int, int], ...] = ()


class RoundRecord:
    """One round as it was played: the deal, the turns, and the tables at round end."""

    __slots__ = (
        "hands",
        "actions",
        "auto_turns",
        "controllers",
        "drawn",
        "tables",
        "counts",
        "decisions",
        "turned",
        "copies",
    )

    def __init__(self, hands: list[list[int]]) -> None:
        #: the hands dealt, one per seat (a dummy seat's is its face-down pile); never changed
        self.hands = hands
        #: per turn: one action per player
        self.actions: list[list[int]] = []
        #: the turns (0-based) the engine played itself
        self.auto_turns: list[int] = []
        #: the dummy procedure: per turn, the seat that controlled the dummy (else empty)
        self.controllers: list[int] = []
        #: the dummy procedure: per turn, the cards drawn from the dummy's pile (else empty)
        self.drawn: list[list[int]] = []
        #: every seat's cards on the table when the round was scored, in play order
        #: (None until the round ends)
        self.tables: list[list[int]] | None = None
        #: every seat's count of each card in ``tables`` (None until the round ends)
        self.counts: list[list[int]] | None = None
        #: decisions made, in order: (turn, seat, action) (empty without card effects)
        self.decisions: list[tuple[int, int, int]] = []
        #: the cards turned face down on the tables at round end (``Tableau.turned``), or None
        self.turned: list[dict[int, tuple[int, int]]] | None = None
        #: the cards on the tables at round end that were copies of another card (a special
        #: order): per seat, position in ``tables`` -> the physical card; None when none was
        self.copies: list[dict[int, int]] | None = None

    def add_turn(self, actions: Sequence[int], auto: bool = False) -> None:
        """Record a turn (``auto``: the engine played it)."""
        if auto:
            self.auto_turns.append(len(self.actions))
        self.actions.append(list(actions))

    def add_dummy_turn(self, actions: Sequence[int], controller: int, drawn: Sequence[int]) -> None:
        """Record a turn of the dummy procedure: who controlled the dummy, what they drew."""
        self.actions.append(list(actions))
        self.controllers.append(controller)
        self.drawn.append(list(drawn))

    def add_decision(self, turn: int, seat: int, action: int) -> None:
        """Record a decision ``seat`` made in ``turn`` (0-based)."""
        self.decisions.append((turn, seat, action))

    @property
    def turns(self) -> tuple[Turn, ...]:
        """The turns played so far, as records."""
        auto = set(self.auto_turns)
        controllers, drawn = self.controllers, self.drawn
        made: dict[int, list[tuple[int, int]]] = {}
        for t, seat, action in self.decisions:
            made.setdefault(t, []).append((seat, action))
        return tuple(
            Turn(
                tuple(actions),
                t in auto,
                controllers[t] if t < len(controllers) else None,
                tuple(drawn[t]) if t < len(drawn) else (),
                tuple(made.get(t, ())),
            )
            for t, actions in enumerate(self.actions)
        )

    def copy(self) -> RoundRecord:
        """A copy whose turns can grow without touching this one (the hands are shared:
        they never change)."""
        new = RoundRecord.__new__(RoundRecord)
        new.hands = self.hands
        new.actions = self.actions[:]
        new.auto_turns = self.auto_turns[:]
        new.controllers = self.controllers[:]
        new.drawn = self.drawn[:]
        new.tables = self.tables
        new.counts = self.counts
        new.decisions = self.decisions[:]
        new.turned = self.turned
        new.copies = self.copies
        return new

    def __deepcopy__(self, memo: dict[int, object]) -> RoundRecord:
        if isinstance(self.actions, tuple):  # an ended round as a seat saw it: never changed, shared
            return self
        new = RoundRecord.__new__(RoundRecord)
        memo[id(self)] = new
        for name in RoundRecord.__slots__:
            setattr(new, name, copy.deepcopy(getattr(self, name), memo))
        return new

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RoundRecord):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in RoundRecord.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"RoundRecord(hands={self.hands!r}, turns={list(self.turns)!r}, tables={self.tables!r})"


@attrs.frozen
class Observation:
    """What one seat may know at one moment (``State.observation``): its own hand,
    every table, the scores, and the hands it has already held that are now elsewhere.
    Never another seat's unseen hand. Cards are given by id."""

    seat: int
    #: 1-based round and turn
    round: int
    turn: int
    hand: list[str]
    #: cards in each seat's hand (0 for a dummy, whose cards are a pile)
    hand_sizes: list[int]
    #: this round's cards on each seat's table, in play order
    played: list[list[str]]
    #: cards each seat keeps to game end, from earlier rounds
    kept: list[list[str]]
    #: points per seat so far
    scores: list[int]
    #: per round scored, points per seat
    round_scores: list[list[int]]
    #: other seats' hands that this seat has held this round (as they are now)
    known_hands: dict[int, list[str]]
    controls_dummy: bool
    #: whether this seat may take extra cards this turn (a special action such as chopsticks)
    can_use_action: bool
    #: the decision this seat must make now (with the cards only it may see), else None
    pending: Decision | None = None

    def to_json(self) -> dict[str, object]:
        """The observation as plain JSON data (``known_hands`` keyed by seat number)."""
        return attrs.asdict(self)
