"""One fixed-size vector for everything a seat may know: the observation encoder.

:class:`Encoder` turns an :class:`~ruledraft.engine.records.Observation` (what
``State.observation(seat)`` gives) into a list of floats whose length depends only
on the game (the ruleset and the player count), never on the moment. It is the
observation of the PettingZoo environments (:mod:`ruledraft.rl`) and of bots
(:func:`ruledraft.play.agents.observe`), so a bot sees what a learner sees.

Seats are *relative* to the observing seat: relative seat 0 is the seat itself,
1 the next player (seat + 1), and so on round the players; dummy seats (which
never act) come after the players in their own order. Cards are counted by card
type, in the ruleset's card order (``ruleset.catalogue.ids``). With K card types,
P seats (players and dummies), N players and R rounds, the fields in order:

==================  =============  ===========================================================
field               size           what
==================  =============  ===========================================================
``hand``            K              own hand: cards of each type
``known_hands``     (P-1) * K      per relative seat 1..P-1, the cards of each type this seat
                                   knows are in the hand it holds now: all of it if this seat
                                   has held that hand this round, else the cards every seat saw
                                   go into it (a card an effect gave back); else 0
``known``           P-1            per relative seat 1..P-1: 1 if any of its hand is known
                                   (above; ``hand_sizes`` tells whether all of it is)
``hand_sizes``      P              per relative seat, cards in its hand (0 for a dummy's pile)
``played``          P * K          per relative seat, this round's cards on its table by type
``kept``            P * K          per relative seat, cards kept to game end from earlier
                                   rounds, by type
``scores``          P              per relative seat, points so far
``round_scores``    R * P          per round (1..R), per relative seat, the round's points
                                   (0 for rounds not scored yet)
``round``           1              the round, 1-based
``turn``            1              the turn within the round, 1-based
``controls_dummy``  1              1 if this seat picks for the dummy this turn
``can_use_action``  1              1 if this seat may take extra cards this turn (chopsticks)
``deciding``        1              1 if a card effect waits for this seat's choice now
``decision_card``   K              the card whose effect asks (one-hot; 0 when not deciding)
``decision_shown``  K              the cards shown only to this seat for the choice (a menu's
                                   draw), by type
``decision_owner``  P              per relative seat, 1 for the seat whose card acts (the
                                   deciding seat itself, or another: a spoon's owner)
==================  =============  ===========================================================

:attr:`Encoder.fields` gives each field's name, offset and size, to slice a vector.
The table is data (:data:`FIELDS`): a new part of the observation is one more
:class:`FieldSpec` there (its size for a game, its bounds and how it reads an
observation), and every user of the encoder, the environments' spaces included,
follows.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import attrs

from ruledraft.engine.records import Observation
from ruledraft.engine.state import Game

__all__ = ["FIELDS", "Encoder", "Field", "FieldSpec", "Layout", "encoder_for"]


@attrs.frozen
class Layout:
    """What the fields need to know of a game: sizes, the seat order, card indices."""

    #: card types, in the ruleset's order
    ids: tuple[str, ...]
    #: seats at the table (players, then dummies), and players
    seats: int
    players: int
    rounds: int
    #: copies of each card type in the whole game (an upper bound of any count)
    copies: tuple[int, ...]
    #: every card of the game (an upper bound of any hand size or turn)
    deck_size: int
    index: dict[str, int] = attrs.field(eq=False)

    @property
    def num_card_types(self) -> int:
        return len(self.ids)

    def relative_seats(self, seat: int) -> list[int]:
        """The seats in relative order for ``seat``: itself, the next players round the
        table, then the dummy seats."""
        n = self.players
        return [(seat + r) % n for r in range(n)] + list(range(n, self.seats))

    def counts(self, cards: Sequence[str]) -> list[float]:
        """Cards of each type among ``cards`` (ids)."""
        out = [0.0] * len(self.ids)
        index = self.index
        for c in cards:
            out[index[c]] += 1.0
        return out


#: a field's values for one observation (``seats``: :meth:`Layout.relative_seats`)
Reader = Callable[[Layout, Observation, list[int]], list[float]]


@attrs.frozen
class FieldSpec:
    """One entry of the encoding: its name, size for a game, bounds and reader."""

    name: str
    size: Callable[[Layout], int]
    read: Reader
    #: the lowest and highest value one element can take (per game); None: unbounded
    low: Callable[[Layout], float | None]
    high: Callable[[Layout], list[float] | float | None]
    doc: str


@attrs.frozen
class Field:
    """A field placed in one game's vector: ``vector[offset : offset + size]``."""

    name: str
    offset: int
    size: int
    #: bounds per element (None: unbounded, e.g. scores)
    low: tuple[float | None, ...]
    high: tuple[float | None, ...]
    doc: str


def _zero(layout: Layout) -> float:
    return 0.0


def _unbounded(layout: Layout) -> None:
    return None


def _one(layout: Layout) -> float:
    return 1.0


def _read_hand(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    return layout.counts(obs.hand)


def _read_known_hands(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    out: list[float] = []
    zero = [0.0] * layout.num_card_types
    for s in seats[1:]:
        hand = obs.known_hands.get(s)
        out += zero if hand is None else layout.counts(hand)
    return out


def _read_known(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    return [1.0 if s in obs.known_hands else 0.0 for s in seats[1:]]


def _read_hand_sizes(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    return [float(obs.hand_sizes[s]) for s in seats]


def _read_played(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    return [x for s in seats for x in layout.counts(obs.played[s])]


def _read_kept(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    return [x for s in seats for x in layout.counts(obs.kept[s])]


def _read_scores(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    return [float(obs.scores[s]) for s in seats]


def _read_round_scores(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    out: list[float] = []
    for r in range(layout.rounds):
        if r < len(obs.round_scores):
            row = obs.round_scores[r]
            out += [float(row[s]) for s in seats]
        else:
            out += [0.0] * layout.seats
    return out


def _read_deciding(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    return [0.0 if obs.pending is None else 1.0]


def _read_decision_card(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    out = [0.0] * layout.num_card_types
    if obs.pending is not None:
        out[obs.pending.card] = 1.0
    return out


def _read_decision_shown(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    out = [0.0] * layout.num_card_types
    if obs.pending is not None:
        for c in obs.pending.shown:
            out[c] += 1.0
    return out


def _read_decision_owner(layout: Layout, obs: Observation, seats: list[int]) -> list[float]:
    if obs.pending is None:
        return [0.0] * layout.seats
    return [1.0 if s == obs.pending.owner else 0.0 for s in seats]


def _on_table(layout: Layout) -> list[float]:
    """The most cards of one type a table (or a seat's kept cards) can hold: the whole
    deck, since card effects may turn cards into others (a face-down card, a copy)."""
    return [float(layout.deck_size)] * layout.num_card_types


def _per_card(layout: Layout) -> list[float]:
    return [float(c) for c in layout.copies]


#: the encoding, in order: append a :class:`FieldSpec` to add a part
FIELDS: list[FieldSpec] = [
    FieldSpec("hand", lambda g: g.num_card_types, _read_hand, _zero, _per_card, "own hand: cards of each type"),
    FieldSpec(
        "known_hands",
        lambda g: (g.seats - 1) * g.num_card_types,
        _read_known_hands,
        _zero,
        lambda g: _per_card(g) * (g.seats - 1),
        "per relative seat 1..P-1, the cards of each type in its hand if this seat has held it this round",
    ),
    FieldSpec(
        "known",
        lambda g: g.seats - 1,
        _read_known,
        _zero,
        _one,
        "per relative seat 1..P-1: 1 if any of its hand is known",
    ),
    FieldSpec(
        "hand_sizes",
        lambda g: g.seats,
        _read_hand_sizes,
        _zero,
        lambda g: float(g.deck_size),
        "per relative seat, cards in its hand (0 for a dummy's pile)",
    ),
    FieldSpec(
        "played",
        lambda g: g.seats * g.num_card_types,
        _read_played,
        _zero,
        lambda g: _on_table(g) * g.seats,
        "per relative seat, this round's cards on its table by type",
    ),
    FieldSpec(
        "kept",
        lambda g: g.seats * g.num_card_types,
        _read_kept,
        _zero,
        lambda g: _on_table(g) * g.seats,
        "per relative seat, cards kept to game end from earlier rounds, by type",
    ),
    FieldSpec("scores", lambda g: g.seats, _read_scores, _unbounded, _unbounded, "per relative seat, points so far"),
    FieldSpec(
        "round_scores",
        lambda g: g.rounds * g.seats,
        _read_round_scores,
        _unbounded,
        _unbounded,
        "per round, per relative seat, the round's points (0 until scored)",
    ),
    FieldSpec(
        "round", lambda g: 1, lambda g, o, s: [float(o.round)], _zero, lambda g: float(g.rounds), "the round, 1-based"
    ),
    FieldSpec(
        "turn",
        lambda g: 1,
        lambda g, o, s: [float(o.turn)],
        _zero,
        lambda g: float(g.deck_size),
        "the turn within the round, 1-based",
    ),
    FieldSpec(
        "controls_dummy",
        lambda g: 1,
        lambda g, o, s: [1.0 if o.controls_dummy else 0.0],
        _zero,
        _one,
        "1 if this seat picks for the dummy this turn",
    ),
    FieldSpec(
        "can_use_action",
        lambda g: 1,
        lambda g, o, s: [1.0 if o.can_use_action else 0.0],
        _zero,
        _one,
        "1 if this seat may take extra cards this turn (a special action such as chopsticks)",
    ),
    FieldSpec(
        "deciding", lambda g: 1, _read_deciding, _zero, _one, "1 if a card effect waits for this seat's choice now"
    ),
    FieldSpec(
        "decision_card",
        lambda g: g.num_card_types,
        _read_decision_card,
        _zero,
        _one,
        "the card whose effect asks (one-hot; 0 when not deciding)",
    ),
    FieldSpec(
        "decision_shown",
        lambda g: g.num_card_types,
        _read_decision_shown,
        _zero,
        _per_card,
        "the cards shown only to this seat for the choice (a menu's draw), by type",
    ),
    FieldSpec(
        "decision_owner",
        lambda g: g.seats,
        _read_decision_owner,
        _zero,
        _one,
        "per relative seat, 1 for the seat whose card acts",
    ),
]


class Encoder:
    """The observation vector of one game (a :class:`~ruledraft.engine.state.Game`):
    ``encode(observation)`` is a list of :attr:`size` floats laid out as :attr:`fields`."""

    def __init__(self, game: Game, specs: Sequence[FieldSpec] | None = None) -> None:
        catalogue = game.ruleset.catalogue
        ids = catalogue.ids
        layout = Layout(
            ids=ids,
            seats=game.num_seats,
            players=game.num_players,
            rounds=game.ruleset.rounds,
            copies=tuple(c.count for c in catalogue.cards),
            deck_size=sum(c.count for c in catalogue.cards),
            index={c: i for i, c in enumerate(ids)},
        )
        self.game = game
        self.layout = layout
        self._specs = tuple(FIELDS if specs is None else specs)
        fields = []
        at = 0
        for spec in self._specs:
            size = spec.size(layout)
            fields.append(
                Field(spec.name, at, size, _bounds(spec.low(layout), size), _bounds(spec.high(layout), size), spec.doc)
            )
            at += size
        #: each field's name, offset, size, bounds and meaning, in order
        self.fields: tuple[Field, ...] = tuple(fields)
        #: the length of every vector
        self.size = at
        self._readers = tuple(spec.read for spec in self._specs)

    def field(self, name: str) -> Field:
        """The field called ``name`` (``KeyError`` if there is none)."""
        for f in self.fields:
            if f.name == name:
                return f
        raise KeyError(name)

    def encode(self, observation: Observation) -> list[float]:
        """The vector for ``observation`` (one seat's view of one moment of this game)."""
        layout = self.layout
        seats = layout.relative_seats(observation.seat)
        out: list[float] = []
        for read in self._readers:
            out += read(layout, observation, seats)
        return out

    def decode(self, vector: Sequence[float]) -> dict[str, list[float]]:
        """The vector cut into its fields, by name (for reading and debugging)."""
        return {f.name: list(vector[f.offset : f.offset + f.size]) for f in self.fields}


def _bounds(value: list[float] | float | None, size: int) -> tuple[float | None, ...]:
    if isinstance(value, list):
        if len(value) != size:
            raise ValueError(f"bounds of {len(value)} values for a field of {size}")
        return tuple(value)
    return (value,) * size


_ENCODERS: dict[int, Encoder] = {}


def encoder_for(game: Game) -> Encoder:
    """The encoder of ``game``, made once per game object."""
    enc = _ENCODERS.get(id(game))
    if enc is None or enc.game is not game:
        if len(_ENCODERS) > 64:
            _ENCODERS.clear()
        enc = _ENCODERS[id(game)] = Encoder(game)
    return enc
