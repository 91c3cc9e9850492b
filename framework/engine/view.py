"""What one seat may know of a game: :class:`SeatView`, what every bot is handed.

A bot never gets the live :class:`~ruledraft.engine.state.State`: it gets the view of
its seat, built from the state by :func:`seat_view`. The view holds copies only, and
answers with immutable values (tuples, a read-only mapping, frozen records):

* the seat's hand, every table (in play order and by card type), the cards kept to
  game end, how many cards each hand holds;
* the cards it has seen in hands it passed on, as they are now (perfect recall:
  every change to a hand since it was seen is public) and cards every seat knows to
  be in a hand (a card an effect gave back in sight of all);
* the decision it must make now (a card effect's, with the cards only it may see),
  or which seat the turn waits for;
* the visible history: per round its own dealt hand, every revealed pick, the
  decisions made, the tables at round end; the card effects' events; the scores;
* the ruleset, and the card names through :meth:`SeatView.card_id` /
  :meth:`SeatView.card_name` / :meth:`SeatView.card_index`;
* :meth:`SeatView.legal_actions`, :meth:`SeatView.decode_action`,
  :meth:`SeatView.action_to_string`;
* for search, :meth:`SeatView.sample_world`: a full engine ``State`` in which
  everything the seat cannot see is dealt again at random, consistently with what it
  has seen (the determinization of information-set search), and
  :meth:`SeatView.world`: the same with the unseen cards laid out in one fixed order.

A world is a copy that knows nothing the seat does not: its unseen cards are
re-dealt, its seed is 0 (the real seed would give away the deal), the deck's dealt
part and the other seats' dealt hands are gone from it, and its game is a twin of the
real game (changing it changes nothing at the table). Two states the seat cannot
tell apart give the same view, which the tests check by walking everything
reachable from a view.

What a view costs: a view of a state without card effects, a dummy or a pending
decision holds the seat's knowledge as tuples (the unseen cards as counts per card
type; what changes only between rounds made once a round and shared by the seat's
views) and makes its world only when it is asked for one (:meth:`SeatView.world`,
:meth:`SeatView.sample_world`, or an answer only an engine state gives); the same
world, card for card, as the one other views make at once. What every seat sees at one
moment is shared by the views made through one :class:`Views`. The built-in bots whose
code only reads its view are handed one that reads what they ask when they ask
(:func:`act_on_view`): the same answers, nothing reachable from it part of the game.

What a view cannot stop: Python code in the same process can always reach any
object (the garbage collector lists them all). A bot contest should run each bot
in its own process (``--isolate``), where a bot receives only its view, serialized.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from sys import getrefcount
from types import MappingProxyType
from typing import Any

import attrs

from ruledraft.engine.records import RoundRecord, Turn
from ruledraft.engine.scoresheet import ScoreSheet, Scoring
from ruledraft.engine.state import Event, Game, State
from ruledraft.language.catalogue import CardType
from ruledraft.language.decision import Decision
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.tableau import Tableau

__all__ = [
    "RoundSeen",
    "SeatView",
    "Views",
    "act_on_view",
    "as_view",
    "Pick",
    "read_kept",
    "read_tables",
    "read_turn",
    "seat_view",
    "trusted_mover",
    "twin_game",
]

#: the seed of every world a view makes: the real one would give the deal away
WORLD_SEED = 0

#: the twins made so far: id of the real game -> (the real game, its twin)
_TWINS: dict[int, tuple[Game, Game]] = {}
#: how many twins :data:`_TWINS` keeps before it starts afresh
_TWINS_SIZE = 64


def twin_game(game: Game) -> Game:
    """The twin of ``game`` the views' worlds play in: the same ruleset and players,
    another object (made once per game), so a bot that changes its world's game
    changes nothing at the real table."""
    found = _TWINS.get(id(game))
    if found is not None and found[0] is game:
        return found[1]
    twin = Game(game.ruleset, game.num_players)
    if len(_TWINS) >= _TWINS_SIZE:
        _TWINS.clear()
    _TWINS[id(game)] = (game, twin)  # the real game kept with it: its id is not reused meanwhile
    return twin


@attrs.frozen
class RoundSeen:
    """One round as a seat saw it."""

    #: the hand the seat was dealt (a dummy's pile and other hands are hidden)
    dealt: tuple[int, ...]
    #: the turns so far: every seat's revealed action, the engine's automatic turns, the
    #: dummy's controller, the cards it drew (only when this seat controlled it), the
    #: decisions made
    turns: tuple[Turn, ...]
    #: every seat's table when the round was scored, in play order (None until then)
    tables: tuple[tuple[int, ...], ...] | None


def _seen_record(record: RoundRecord, seat: int) -> RoundRecord:
    """The record of the round in play, a clone's own copy, without what ``seat`` did
    not see (the other seats' dealt hands, the dummy's draws of the turns another seat
    controlled it) and without the lists it still shares with the real one."""
    record.actions = [a[:] for a in record.actions]
    record.hands = [h[:] if s == seat else [] for s, h in enumerate(record.hands)]
    controllers = record.controllers
    record.drawn = [d[:] if t < len(controllers) and controllers[t] == seat else [] for t, d in enumerate(record.drawn)]
    return record


#: the records of ended rounds as seats saw them, made once: (real record, seat) -> seen
_ENDED: dict[tuple[int, int], tuple[RoundRecord, RoundRecord]] = {}
#: how many :data:`_ENDED` keeps before it starts afresh (a few games' worth)
_ENDED_SIZE = 512


def _ended_record(record: RoundRecord, seat: int) -> RoundRecord:
    """The record of a round that has ended as ``seat`` saw it, every part a tuple: the
    engine never changes an ended round, and nobody can, so every view and world of
    the seat shares one."""
    parts: Any = record.actions
    if isinstance(parts, tuple):  # already one
        return record
    key = (id(record), seat)
    cached = _ENDED.get(key)
    if cached is not None and cached[0] is record:
        return cached[1]
    new = RoundRecord.__new__(RoundRecord)
    frozen: Any = new  # its parts are tuples where the class has lists
    frozen.hands = tuple(tuple(h) if s == seat else () for s, h in enumerate(record.hands))
    frozen.actions = tuple(tuple(a) for a in record.actions)
    frozen.auto_turns = tuple(record.auto_turns)
    frozen.controllers = tuple(record.controllers)
    frozen.drawn = tuple(
        tuple(d) if t < len(record.controllers) and record.controllers[t] == seat else ()
        for t, d in enumerate(record.drawn)
    )
    frozen.tables = None if record.tables is None else tuple(tuple(t) for t in record.tables)
    frozen.counts = None if record.counts is None else tuple(tuple(c) for c in record.counts)
    frozen.decisions = tuple(record.decisions)
    frozen.turned = None if record.turned is None else tuple(MappingProxyType(dict(t)) for t in record.turned)
    frozen.copies = None if record.copies is None else tuple(MappingProxyType(dict(c)) for c in record.copies)
    if len(_ENDED) >= _ENDED_SIZE:
        _ENDED.clear()
    _ENDED[key] = (record, new)  # the real record kept with it: its id is not reused meanwhile
    return new


def _known(state: State, seat: int, held: dict[int, list[int]]) -> dict[int, tuple[int, ...]]:
    """The cards ``seat`` knows to be in each other hand (:meth:`State.known_cards`), sorted."""
    return {s: tuple(sorted(cards)) for s, cards in sorted(state.known_cards(seat, held).items())}


def _plain_canonical(state: State, seat: int, held: dict[int, list[int]]) -> State:
    """``state.canonical_hidden(seat)`` of a state without card effects, a dummy or a
    pending decision (the common case, in a tighter loop): every other hand ``seat``
    has held, sorted; the unseen cards (other hands, the undealt deck) sorted and
    dealt back into the same places."""
    new = state.clone()
    pool: list[int] = []
    unseen = []
    for other, hand in enumerate(state.hands):
        if other == seat:
            continue
        if other in held:
            new.hands[other] = sorted(hand)
        else:
            pool += hand
            unseen.append(other)
    pool += state.deck[state.deck_pos :]
    pool.sort()
    at = 0
    for other in unseen:
        n = len(state.hands[other])
        new.hands[other] = pool[at : at + n]
        at += n
    new.deck = state.deck[: state.deck_pos] + pool[at:]
    if state.reserves:
        new.reserves = [sorted(r) for r in state.reserves]
    return new


#: the scorings as views share them, made once: id of the real scoring -> (it, the shared one)
_SCORINGS: dict[int, tuple[Scoring, Scoring]] = {}


def _shared_scoring(scoring: Scoring) -> Scoring:
    """A scoring with tuples for lists: the engine never changes a scoring once made,
    and nobody can change this one, so every view and world shares it."""
    parts: Any = scoring.totals
    if isinstance(parts, tuple):  # already one
        return scoring
    found = _SCORINGS.get(id(scoring))
    if found is not None and found[0] is scoring:
        return found[1]
    frozen: Any = (tuple(tuple(p) for p in scoring.points), tuple(scoring.totals))
    new = Scoring(scoring.rules, *frozen)
    if len(_SCORINGS) >= _ENDED_SIZE:
        _SCORINGS.clear()
    _SCORINGS[id(scoring)] = (scoring, new)  # the real one kept with it: its id is not reused meanwhile
    return new


def _detach(world: State, seat: int, *, deck: bool = True) -> State:
    """``world`` (a clone) without what it still shares with the state it was cloned
    from, which the engine never changes but a bot could: the records of the rounds,
    the scorings, the deck list (``deck``: not already a new list), the events. What
    ``seat`` did not see of the rounds goes (:func:`_seen_record`)."""
    if deck:
        world.deck = world.deck[:]
    world.history = [_ended_record(r, seat) if r.tables is not None else _seen_record(r, seat) for r in world.history]
    world.scorings = [_shared_scoring(s) for s in world.scorings]
    if world.sheet is not None:
        game = world.game
        world.sheet = ScoreSheet(
            game.ruleset,
            game.num_players,
            game.num_seats,
            world.scorings[:-1],
            world.scorings[-1],
            world.kept_tableau(),
        )
    world.events = _shared_events(world.events)
    return world


#: events as views and worlds share them: id of a tuple of events -> (it, the same with
#: tuples for the engine's lists)
_EVENTS: dict[int, tuple[tuple[Event, ...], tuple[Event, ...]]] = {}
#: the events last made so (the engine adds one event at a time: the earlier ones are reused)
_LAST_EVENTS: list[tuple[Event, ...]] = [(), ()]


def _shared_events(events: tuple[Event, ...]) -> tuple[Event, ...]:
    """``events`` with tuples where the engine noted lists (immutable, so every view and
    world shares them): made once for each event."""
    if not events:
        return events
    found = _EVENTS.get(id(events))
    if found is not None and found[0] is events:
        return found[1]
    last, made = _LAST_EVENTS
    n = len(last)
    if 0 < n <= len(events) and events[:n] == last:
        new = made + tuple(map(_frozen_event, events[n:]))
    else:
        new = tuple(map(_frozen_event, events))
    if len(_EVENTS) >= _ENDED_SIZE:
        _EVENTS.clear()
    _EVENTS[id(events)] = (events, new)  # kept with it: its id is not reused meanwhile
    _EVENTS[id(new)] = (new, new)
    _LAST_EVENTS[:] = [events, new]
    return new


def _frozen_event(event: Event) -> Event:
    """``event`` with tuples for lists."""
    if not any(isinstance(x, list) for x in event.what):
        return event
    return Event(
        event.round, event.turn, event.after, tuple(tuple(x) if isinstance(x, list) else x for x in event.what)
    )


def _world_of(state: State, seat: int, held: dict[int, list[int]], *, detach: bool = True) -> State:
    """The private world of a view: ``state`` with what ``seat`` cannot see laid out in
    one fixed order and every trace of the real deal removed (``detach`` false: but
    for the parts it still shares with ``state``, for a copy made of it and detached
    at once, as :func:`_detach` leaves it)."""
    if state.book is None and state.pending is None and state.controller < 0:
        world = _plain_canonical(state, seat, held)
    else:
        world = state.canonical_hidden(seat)
    world.game = twin_game(state.game)
    world.seed = WORLD_SEED
    world.deck = world.deck[world.deck_pos :]  # the dealt part is the real deal, in order
    world.deck_pos = 0
    world.forced_deals = None
    return _detach(world, seat, deck=False) if detach else world


class _Common:
    """What the views of a state without card effects, a dummy or a pending decision
    share while a round is played (these parts change only when a round ends or is
    dealt): made once a round, as tuples, and shared by every seat's views."""

    game: Game
    winners: tuple[int, ...]
    kept_cards: tuple[tuple[int, ...], ...]
    kept_counts: tuple[tuple[int, ...], ...]
    round_scores: tuple[tuple[int, ...], ...]
    game_end_scores: tuple[int, ...]
    scorings: tuple[Scoring, ...]
    reserves: tuple[tuple[int, ...], ...]
    #: whether the state has a score sheet (the game is over)
    sheet: bool

    __slots__ = (
        "game",
        "winners",
        "kept_cards",
        "kept_counts",
        "round_scores",
        "game_end_scores",
        "scorings",
        "reserves",
        "sheet",
    )


class _Public:
    """What every seat sees of such a state at one moment: shared by the seats' views
    of that moment (:class:`Views`)."""

    __slots__ = ("common", "round", "turn", "finished", "sizes", "played", "counts", "record", "events")

    common: _Common
    round: int
    turn: int
    finished: bool
    sizes: tuple[int, ...]
    played: tuple[tuple[int, ...], ...]
    counts: tuple[tuple[int, ...], ...]
    events: tuple[Event, ...]

    #: the round in play's public record, as tuples: (actions, auto turns, decisions), or None
    record: tuple[tuple[tuple[int, ...], ...], tuple[int, ...], tuple[Any, ...]] | None


class _Seen:
    """What a view of a state without card effects, a dummy or a pending decision (the
    common case) holds: the seat's knowledge as tuples, with the cards it cannot see
    laid out as :func:`_plain_canonical` lays them out. Cheaper to make than the world
    itself, which :meth:`state` builds from it only when it is asked for. What every
    seat sees (``public``) and what changes only between rounds (``ended``, ``dealt``:
    the ended rounds and the hands dealt in the round in play, as this seat saw them)
    are shared."""

    __slots__ = ("seat", "public", "ended", "dealt", "hands", "held", "unseen")

    # a state without card effects, a dummy or a decision (what the view's answers read)
    controller = -1
    pending = None
    book = None

    seat: int
    public: _Public
    ended: tuple[RoundRecord, ...]
    dealt: tuple[tuple[int, ...], ...] | None
    #: per seat: its own hand, the hands it has held (sorted), () for the others
    hands: tuple[tuple[int, ...], ...]
    #: the seats whose hands it has held this round
    held: tuple[int, ...]
    #: how many of each card type it cannot see (the other hands and the undealt deck)
    unseen: tuple[int, ...]

    @property
    def game(self) -> Game:
        return self.public.common.game

    @property
    def round(self) -> int:
        return self.public.round

    @property
    def turn(self) -> int:
        return self.public.turn

    @property
    def finished(self) -> bool:
        return self.public.finished

    @property
    def sizes(self) -> tuple[int, ...]:
        return self.public.sizes

    @property
    def played(self) -> tuple[tuple[int, ...], ...]:
        return self.public.played

    @property
    def counts(self) -> tuple[tuple[int, ...], ...]:
        return self.public.counts

    @property
    def events(self) -> tuple[Event, ...]:
        return self.public.events

    @property
    def winners(self) -> tuple[int, ...]:
        return self.public.common.winners

    @property
    def kept_cards(self) -> tuple[tuple[int, ...], ...]:
        return self.public.common.kept_cards

    @property
    def kept_counts(self) -> tuple[tuple[int, ...], ...]:
        return self.public.common.kept_counts

    @property
    def round_scores(self) -> tuple[tuple[int, ...], ...]:
        return self.public.common.round_scores

    @property
    def history(self) -> tuple[RoundRecord, ...]:
        current = self._current()
        return self.ended if current is None else (*self.ended, current)

    def _current(self) -> RoundRecord | None:
        """The record of the round in play as this seat saw it, every part a tuple (a
        snapshot: the real one grows turn by turn)."""
        record = self.public.record
        if record is None:
            return None
        new = RoundRecord.__new__(RoundRecord)
        frozen: Any = new  # its parts are tuples where the class has lists
        frozen.hands = self.dealt
        frozen.actions, frozen.auto_turns, frozen.decisions = record
        frozen.controllers = ()
        frozen.drawn = ()
        frozen.tables = None
        frozen.counts = None
        frozen.turned = None
        frozen.copies = None
        return new

    def acting_seats(self) -> tuple[int, ...]:
        return tuple(range(self.public.common.game.num_players))

    def totals(self) -> list[int]:
        common = self.public.common
        return list(map(sum, zip(common.game_end_scores, *common.round_scores)))

    def state(self) -> State:
        """The world: a new engine state laid out as the view's (its own lists)."""
        public = self.public
        common = public.common
        w = State.__new__(State)
        w.game = common.game
        w.seed = WORLD_SEED
        # the unseen cards sorted, dealt back into the hands not held, then the deck
        pool = [c for c, k in enumerate(self.unseen) for _ in range(k)]
        hands = w.hands = list(map(list, self.hands))
        at = 0
        for other, n in enumerate(public.sizes):
            if other != self.seat and other not in self.held:
                hands[other] = pool[at : at + n]
                at += n
        w.deck = pool[at:]
        w.deck_pos = 0
        w.forced_deals = None
        w.round = public.round
        w.turn = public.turn
        w.played = list(map(list, public.played))
        w.counts = list(map(list, public.counts))
        w.kept_cards = list(map(list, common.kept_cards))
        w.kept_counts = list(map(list, common.kept_counts))
        w.round_scores = list(map(list, common.round_scores))
        w.game_end_scores = list(common.game_end_scores)
        w.scorings = list(common.scorings)
        w.sheet = None
        history = w.history = list(self.ended)
        current = self._current()
        if current is not None:
            history.append(_thawed_record(current))
        w.controller = -1
        w.drawn = []
        w.dummy_piles = []
        w.reserves = list(map(list, common.reserves))
        w.finished = public.finished
        w.winners = list(common.winners)
        w.pending = None
        w.book = None
        w.events = public.events  # immutable: shared
        if common.sheet:
            game = common.game
            w.sheet = ScoreSheet(
                game.ruleset, game.num_players, game.num_seats, w.scorings[:-1], w.scorings[-1], w.kept_tableau()
            )
        return w


#: what a state keeps from one round end to the next, as views hold it: id of the
#: state's list of scorings -> (that list, when, the shared part, how many of each
#: card type the undealt deck holds). The list (a state's own: a clone copies it)
#: stands for its state, which is not kept here.
_ROUNDS: dict[int, tuple[list[Scoring], tuple[Any, ...], _Common, tuple[int, ...]]] = {}
#: the same for what one seat saw of the rounds: (id of the list, seat) -> (the list,
#: when, the ended rounds as the seat saw them, the hands dealt in the round in play as it saw them)
_SEAT_ROUNDS: dict[tuple[int, int], tuple[list[Scoring], tuple[Any, ...], Any, Any]] = {}


def _when(state: State) -> tuple[Any, ...]:
    """What tells one round's part of a state from the next (:data:`_ROUNDS`): a state
    without card effects changes its kept cards, scores, records, reserves and deck
    only when a round ends or is dealt."""
    return (len(state.history), len(state.scorings), state.finished, state.deck_pos, id(state.deck))


def _round_common(state: State, when: tuple[Any, ...]) -> tuple[_Common, tuple[int, ...]]:
    """The shared part of a round (made once a round) and how many of each card type
    the undealt deck holds (never handed to a view that has other hands to hide)."""
    scorings = state.scorings
    found = _ROUNDS.get(id(scorings))
    if found is not None and found[0] is scorings and found[1] == when:
        return found[2], found[3]
    common = _Common.__new__(_Common)
    common.game = twin_game(state.game)
    common.winners = tuple(state.winners)
    common.kept_cards = tuple(map(tuple, state.kept_cards))
    common.kept_counts = tuple(map(tuple, state.kept_counts))
    common.round_scores = tuple(map(tuple, state.round_scores))
    common.game_end_scores = tuple(state.game_end_scores)
    common.scorings = tuple(_shared_scoring(s) for s in scorings)
    common.reserves = tuple(tuple(sorted(r)) for r in state.reserves)
    common.sheet = state.sheet is not None
    rest = _card_counts(state.deck, state.deck_pos, state.game.num_card_types)
    if len(_ROUNDS) >= _ENDED_SIZE:
        _ROUNDS.clear()
    _ROUNDS[id(scorings)] = (scorings, when, common, rest)  # the list kept with it: its id is not reused meanwhile
    return common, rest


def _seat_round(state: State, seat: int, when: tuple[Any, ...]) -> tuple[Any, Any]:
    """The ended rounds and the hands dealt in the round in play as ``seat`` saw them
    (made once a round, every part a tuple, shared by the seat's views)."""
    scorings = state.scorings
    key = (id(scorings), seat)
    found = _SEAT_ROUNDS.get(key)
    if found is not None and found[0] is scorings and found[1] == when:
        return found[2], found[3]
    history = state.history
    current = history[-1] if history and history[-1].tables is None else None
    ended = tuple(_ended_record(r, seat) for r in (history[:-1] if current is not None else history))
    dealt = None if current is None else tuple(tuple(h) if s == seat else () for s, h in enumerate(current.hands))
    if len(_SEAT_ROUNDS) >= _ENDED_SIZE:
        _SEAT_ROUNDS.clear()
    _SEAT_ROUNDS[key] = (scorings, when, ended, dealt)
    return ended, dealt


def _card_counts(cards: list[int], start: int, num_card_types: int) -> tuple[int, ...]:
    """How many of each card type ``cards[start:]`` holds."""
    counts = [0] * num_card_types
    for c in cards[start:]:
        counts[c] += 1
    return tuple(counts)


#: the turns of the rounds in play as views hold them, made a turn at a time: id of
#: the real record -> (the record, how many turns, those turns as tuples)
_TURNS: dict[int, tuple[RoundRecord, int, tuple[tuple[int, ...], ...]]] = {}


def _public_record(record: RoundRecord) -> tuple[Any, ...]:
    """The public parts of the round in play, as tuples: its turns (each turn's made
    once, when first seen: the engine only ever adds turns), auto turns and decisions."""
    actions = record.actions
    n = len(actions)
    found = _TURNS.get(id(record))
    if found is not None and found[0] is record and found[1] <= n:
        turns = found[2] if found[1] == n else found[2] + tuple(map(tuple, actions[found[1] :]))
    else:
        turns = tuple(map(tuple, actions))
    if len(_TURNS) >= _ENDED_SIZE:
        _TURNS.clear()
    _TURNS[id(record)] = (record, n, turns)  # the record kept with it: its id is not reused meanwhile
    return (turns, tuple(record.auto_turns), tuple(record.decisions))


def _thawed_record(frozen: RoundRecord) -> RoundRecord:
    """A record of the round in play made from a view's frozen one, as
    :func:`_seen_record` makes it: lists where the engine keeps lists."""
    parts: Any = frozen
    new = RoundRecord.__new__(RoundRecord)
    new.hands = list(map(list, parts.hands))
    new.actions = list(map(list, parts.actions))
    new.auto_turns = list(parts.auto_turns)
    new.controllers = list(parts.controllers)
    new.drawn = list(map(list, parts.drawn))
    new.tables = None
    new.counts = parts.counts
    new.decisions = list(parts.decisions)
    new.turned = parts.turned
    new.copies = parts.copies
    return new


class Views:
    """The views of one state at one moment, seat by seat, made on demand: what every
    seat sees is read once and shared by the views (the loop that asks bots makes one
    for each turn). The state must not change while its views are made; nothing here
    is reachable from a view."""

    __slots__ = ("_state", "_plain", "_public", "_rest", "_when", "_sorted")

    def __init__(self, state: State) -> None:
        self._state = state
        self._public: _Public | None = None
        self._sorted: dict[int, tuple[int, ...]] = {}
        history = state.history
        self._plain = (
            state.book is None
            and state.pending is None
            and state.controller < 0
            and not state.dummy_piles
            and not (history and history[-1].tables is None and (history[-1].drawn or history[-1].controllers))
        )

    def __call__(self, seat: int) -> SeatView:
        """The view of ``seat``."""
        view = object.__new__(SeatView)
        self.fill(view, seat)
        return view

    def _shared(self) -> _Public:
        """What every seat sees now (made on first use)."""
        state = self._state
        when = self._when = _when(state)
        common, self._rest = _round_common(state, when)
        public = _Public.__new__(_Public)
        public.common = common
        public.round = state.round
        public.turn = state.turn
        public.finished = state.finished
        public.sizes = tuple(map(len, state.hands))
        public.played = tuple(map(tuple, state.played))
        public.counts = tuple(map(tuple, state.counts))
        history = state.history
        public.record = _public_record(history[-1]) if history and history[-1].tables is None else None
        public.events = _shared_events(state.events)
        self._public = public
        return public

    def fill(self, view: SeatView, seat: int) -> None:
        """Make ``view`` (a new :class:`SeatView`, its slots not yet set) the view of ``seat``."""
        state = self._state
        game = state.game
        if not 0 <= seat < game.num_seats:
            raise ValueError(f"no seat {seat} at a table of {game.num_seats}")
        held = game.procedure.known_hands(state, seat)
        _set = _SET
        _set(view, "_seat", seat)
        if not self._plain:
            _set(view, "_known", MappingProxyType(_known(state, seat, held)))
            _set(view, "_world", _world_of(state, seat, held))
            _set(view, "_legal", None)
            return
        # (no card effects, dummy or decision) the world is made only if a bot asks
        # for it; the legal moves now (the seat's own: its hand, its table), as every
        # bot asks for them
        public = self._public
        if public is None:
            public = self._shared()
        seen = _Seen.__new__(_Seen)
        seen.seat = seat
        seen.public = public
        seen.ended, seen.dealt = _seat_round(state, seat, self._when)
        shown = self._sorted
        rest = self._rest
        hands: list[tuple[int, ...]] = []
        unseen: list[int] | None = None
        for other, hand in enumerate(state.hands):
            if other == seat:
                hands.append(tuple(hand))
            elif other in held:
                cards = shown.get(other)
                if cards is None:
                    cards = shown[other] = tuple(sorted(hand))
                hands.append(cards)
            else:  # laid out when the world is made, from the counts of the unseen cards
                if unseen is None:
                    unseen = list(rest)
                for c in hand:
                    unseen[c] += 1
                hands.append(())
        # every other hand held: the undealt deck alone is unseen
        seen.unseen = rest if unseen is None else tuple(unseen)
        seen.hands = tuple(hands)
        seen.held = tuple(sorted(held))
        _set(view, "_known", None)
        _set(view, "_world", seen)
        _set(view, "_legal", tuple(state.legal_actions(seat)))


#: how a view sets its slots (its own __setattr__ refuses)
_SET = object.__setattr__
#: the last view whose world was made to be read, and that world (never handed out)
_LAST_WORLD: list[Any] = [None, None]


class SeatView:
    """What one seat may know of a game at one moment (see the module's doc).

    Made by :func:`seat_view`; read-only: its answers are immutable or fresh copies,
    and nothing reachable from it leads to the real game."""

    __slots__ = ("_seat", "_world", "_known", "_legal")

    _seat: int
    #: the world itself, or (the common case) what it is built from when asked for
    _world: State | _Seen
    #: the known hands (None: read off a :class:`_Seen`'s sorted hands when asked)
    _known: Mapping[int, tuple[int, ...]] | None
    #: the legal actions, once asked
    _legal: tuple[int, ...] | None

    def __init__(self, state: State, seat: int) -> None:
        Views(state).fill(self, seat)

    def _as_world(self) -> State:
        """The view's world as an engine state, to read (never handed out): its own, or
        the one made from its :class:`_Seen` (made once for the last view that asked: a
        search asks one view for many worlds)."""
        w = self._world
        if type(w) is State:
            return w
        last = _LAST_WORLD
        if last[0] is self:
            made: State = last[1]
            return made
        world = w.state()  # type: ignore[union-attr]
        last[:] = [self, world]
        return world

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"a seat's view is read-only: cannot set {name!r}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"a seat's view is read-only: cannot delete {name!r}")

    def __copy__(self) -> SeatView:
        return self  # a view never changes: a copy of it is itself

    def __deepcopy__(self, memo: dict[int, Any]) -> SeatView:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        # pickled as what it holds (a seat's knowledge only), by ruledraft's own channel to a
        # bot's process, which names the ruleset's definitions (plain pickle cannot take a
        # compiled ruleset's functions; a bot keeps a view as it is, or its world())
        known = self._known
        return (_restored_view, (self._seat, self._world, None if known is None else dict(known), self._legal))

    def __repr__(self) -> str:
        return f"SeatView(seat={self._seat}, round={self.round}, turn={self.turn}, hand={list(self.hand)})"

    # ------------------------------------------------------------------ the table

    @property
    def seat(self) -> int:
        """The seat this view is of."""
        return self._seat

    @property
    def players(self) -> int:
        """Players at the table (seats that act; a dummy is a seat, not a player)."""
        return self._world.game.num_players

    @property
    def num_seats(self) -> int:
        """Seats at the table: the players, then the dummies."""
        return self._world.game.num_seats

    @property
    def game(self) -> Game:
        """The rules of the table: ``decode_action``, ``num_card_types``, the scoring
        rules by card, ... A twin of the real game's (the same ruleset, another object):
        every view of the table in this process shares it, and changing it changes
        nothing at the real table."""
        return self._world.game

    @property
    def ruleset(self) -> CompiledRuleset:
        """The compiled ruleset (immutable)."""
        return self._world.game.ruleset

    @property
    def round(self) -> int:
        """The current round, 0-based."""
        return self._world.round

    @property
    def turn(self) -> int:
        """The current turn of the round, 0-based."""
        return self._world.turn

    @property
    def rounds(self) -> int:
        """Rounds in a game."""
        return self._world.game.ruleset.rounds

    @property
    def finished(self) -> bool:
        return self._world.finished

    def is_terminal(self) -> bool:
        return self._world.finished

    @property
    def hand(self) -> tuple[int, ...]:
        """The seat's own hand (card indices, in the order it holds them)."""
        return tuple(self._world.hands[self._seat])  # a _Seen's is a tuple already: itself

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        """Cards in each seat's hand (0 for a dummy, whose cards are a face-down pile)."""
        w = self._world
        return w.sizes if type(w) is _Seen else tuple(len(h) for h in w.hands)

    @property
    def known_hands(self) -> Mapping[int, tuple[int, ...]]:
        """Per other seat, the cards this seat knows to be in its hand now (sorted): a
        hand it held earlier this round (as it is now), cards put into a hand in sight of all."""
        known = self._known
        if known is None:  # a _Seen holds the hands the seat has held sorted
            w: Any = self._world
            return MappingProxyType({s: w.hands[s] for s in w.held})
        return known

    @property
    def tables(self) -> tuple[tuple[int, ...], ...]:
        """This round's cards on each seat's table, in play order."""
        w = self._world
        return w.played if type(w) is _Seen else tuple(map(tuple, w.played))

    @property
    def table_counts(self) -> tuple[tuple[int, ...], ...]:
        """Per seat, how many of each card type its table holds this round."""
        w = self._world
        return w.counts if type(w) is _Seen else tuple(map(tuple, w.counts))

    #: the names ``State`` gives them
    played = tables
    counts = table_counts

    def tableau(self) -> Tableau:
        """This round's tables as scoring sees them (a copy)."""
        w = self._world
        turned = w.turned() if w.book is not None and w.book.under else None
        return Tableau(list(map(list, w.counts)), list(map(list, w.played)), w.round + 1, turned)

    def kept_tableau(self) -> Tableau:
        """The cards kept to game end, as game-end scoring sees them (a copy)."""
        w = self._world
        return Tableau(list(map(list, w.kept_counts)), list(map(list, w.kept_cards)), min(w.round + 1, self.rounds))

    @property
    def kept(self) -> tuple[tuple[int, ...], ...]:
        """Per seat, the cards it keeps to game end from earlier rounds, in order."""
        w = self._world
        return w.kept_cards if type(w) is _Seen else tuple(map(tuple, w.kept_cards))

    @property
    def kept_counts(self) -> tuple[tuple[int, ...], ...]:
        w = self._world
        return w.kept_counts if type(w) is _Seen else tuple(map(tuple, w.kept_counts))

    kept_cards = kept

    @property
    def controls_dummy(self) -> bool:
        """Whether this seat picks for the dummy this turn (the dummy procedure)."""
        return self._world.controller == self._seat

    @property
    def can_use_action(self) -> bool:
        """Whether this seat may take extra cards this turn (a special action such as chopsticks)."""
        w = self._world
        return not w.finished and w.pending is None and self._as_world().can_use_action(self._seat)

    # ------------------------------------------------------------------ deciding

    def acting_seats(self) -> tuple[int, ...]:
        """The seats that choose now: every player during the picks, only the deciding
        seat while a card effect waits for a decision, none once the game is over."""
        return () if self._world.finished else self._world.acting_seats()

    @property
    def acting(self) -> bool:
        """Whether this seat chooses now."""
        return self._seat in self.acting_seats()

    @property
    def pending(self) -> Decision | None:
        """The decision this seat must make now (a card effect's; its ``options``, its
        ``prompt``, the cards only it may see in ``shown``), else None."""
        p = self._world.pending
        return p if p is not None and p.seat == self._seat else None

    @property
    def deciding_seat(self) -> int | None:
        """The seat a card effect's decision waits for (None during the picks)."""
        p = self._world.pending
        return p.seat if p is not None else None

    def legal_actions(self, seat: int | None = None) -> list[int]:
        """This seat's legal actions now, sorted (empty when it does not choose): a new
        list each call. ``seat``, if given, must be this seat (a view knows no other
        seat's moves: they depend on its hand)."""
        if seat is not None and seat != self._seat:
            raise ValueError(f"the view of seat {self._seat} does not know the moves of seat {seat}")
        legal = self._legal
        if legal is None:
            legal = tuple(self._as_world().legal_actions(self._seat))
            object.__setattr__(self, "_legal", legal)
        return list(legal)

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` (a Python ``int``) is one of this seat's legal actions now."""
        if type(action) is not int:
            return False
        legal = self._legal
        if legal is None:
            legal = tuple(self._as_world().legal_actions(self._seat))
            object.__setattr__(self, "_legal", legal)
        return action in legal

    def sample_action(self, random: Any) -> int:
        """A legal action of this seat drawn uniformly, as the engine draws it
        (``State.sample_action``; ``random``: a function returning floats in [0, 1))."""
        return self._as_world().sample_action(self._seat, getattr(random, "random", random))

    def decode_action(self, action: int) -> tuple[tuple[int, ...], int | None]:
        """A pick's action -> (the cards it takes, in order; the card it picks for a
        dummy, or None). A decision's action is a card index, ``num_card_types + f`` for
        card family ``f`` (:attr:`families`), or :attr:`done_action`."""
        return self._world.game.decode_action(action)

    def encode_action(self, cards: Sequence[int], dummy: int | None = None) -> int:
        """The pick's action that takes ``cards`` in order (and ``dummy`` for a dummy)."""
        return self._world.game.encode_action(cards, dummy)

    def action_to_string(self, action: int) -> str:
        """An action in words (card ids; a decision action: a card id, ``family NAME``, ``done``)."""
        w = self._world
        return w.game.action_to_string(action, w if type(w) is State and w.pending is not None else None)

    @property
    def families(self) -> tuple[str, ...]:
        """The card families a decision may name (action ``num_card_types + f``)."""
        return self._world.game.families

    @property
    def done_action(self) -> int:
        """The decision action that ends a choice of several cards or declines."""
        return self._world.game.done_action

    # ------------------------------------------------------------------ cards

    @property
    def num_card_types(self) -> int:
        return self._world.game.num_card_types

    @property
    def cards(self) -> tuple[CardType, ...]:
        """The ruleset's card types, by index (id, display name, tags, count, ...)."""
        return self._world.game.ruleset.catalogue.cards

    def card_id(self, card: int) -> str:
        """The id of card index ``card`` (``tempura``), as rule files and logs name it."""
        return self._world.game.ruleset.catalogue.cards[card].id

    def card_name(self, card: int) -> str:
        """The display name of card index ``card`` (``Tempura``)."""
        return self._world.game.ruleset.catalogue.cards[card].name

    def card_index(self, card_id: str) -> int:
        """The index of the card with id ``card_id``; ``KeyError`` if the ruleset has none."""
        return self._world.game.ruleset.catalogue.index_of(card_id)

    # ------------------------------------------------------------------ scores and history

    @property
    def scores(self) -> tuple[int, ...]:
        """Points per seat so far (rounds scored, and game end once the game is over)."""
        return tuple(self._world.totals())

    def totals(self) -> list[int]:
        """Points per seat so far, as ``State.totals()`` (a new list)."""
        return self._world.totals()

    def round_points_now(self) -> list[int]:
        """Per seat, what this round would score if it ended with the tables as they are."""
        return self._as_world().round_points_now()

    @property
    def round_scores(self) -> tuple[tuple[int, ...], ...]:
        """Per round scored, points per seat."""
        w = self._world
        return w.round_scores if type(w) is _Seen else tuple(map(tuple, w.round_scores))

    @property
    def rule_points(self) -> Mapping[str, tuple[int, ...]]:
        """Points per seat of each scoring rule so far, by rule id."""
        return MappingProxyType({k: tuple(v) for k, v in self._as_world().rule_points.items()})

    @property
    def winners(self) -> tuple[int, ...]:
        """The winning seats once the game is over (else empty)."""
        return tuple(self._world.winners)

    @property
    def history(self) -> tuple[RoundSeen, ...]:
        """The rounds dealt so far, as this seat saw them."""
        out = []
        for r in self._world.history:
            tables = tuple(tuple(t) for t in r.tables) if r.tables is not None else None
            out.append(RoundSeen(tuple(r.hands[self._seat]), r.turns, tables))
        return tuple(out)

    @property
    def events(self) -> tuple[Event, ...]:
        """What card effects and races did so far, in order (public)."""
        return self._world.events

    # ------------------------------------------------------------------ search

    def world(self) -> State:
        """A full game state consistent with this view, everything the seat cannot see
        laid out in one fixed order (two states the seat cannot tell apart give the same
        world): a new copy each call, to play on freely."""
        w = self._world
        return _detach(w.clone(), self._seat) if type(w) is State else w.state()  # type: ignore[union-attr]  # a new one

    def sample_world(self, random: Any) -> State:
        """A full game state consistent with this view, everything the seat cannot see
        dealt again at random (``random``: a function returning floats in [0, 1), such
        as ``random.Random(seed).random``; a ``random.Random`` is taken too): one
        determinization of information-set search. A new copy each call."""
        draw = getattr(random, "random", random)
        return _detach(self._as_world().resample_hidden(self._seat, draw), self._seat)

    # ------------------------------------------------------------------ as data

    def to_dict(self) -> dict[str, Any]:
        """The view as plain JSON data, cards by id: what a browser is sent.
        ``legal_actions`` pairs each action number with its words; ``card_ids`` gives
        the id of each card index (the ``events`` name cards by index)."""
        cid = self._world.game.ruleset.catalogue.ids
        seat = self._seat

        def names(cards: Sequence[int]) -> list[str]:
            return [cid[c] for c in cards]

        pending = self.pending
        return {
            "ruleset": self.ruleset.id,
            "seat": seat,
            "players": self.players,
            "seats": self.num_seats,
            "round": self.round,
            "turn": self.turn,
            "rounds": self.rounds,
            "finished": self.finished,
            "hand": names(self.hand),
            "hand_sizes": list(self.hand_sizes),
            "known_hands": {str(s): names(cards) for s, cards in self.known_hands.items()},
            "tables": [names(t) for t in self.tables],
            "kept": [names(k) for k in self.kept],
            "controls_dummy": self.controls_dummy,
            "can_use_action": self.can_use_action,
            "acting_seats": list(self.acting_seats()),
            "deciding_seat": self.deciding_seat,
            "pending": None
            if pending is None
            else {
                "effect": pending.effect,
                "card": cid[pending.card],
                "owner": pending.owner,
                "prompt": pending.prompt,
                "shown": names(pending.shown),
            },
            "legal_actions": [{"action": a, "text": self.action_to_string(a)} for a in self.legal_actions()],
            "scores": list(self.scores),
            "round_scores": [list(r) for r in self.round_scores],
            "rule_points": {k: list(v) for k, v in self.rule_points.items()},
            "winners": list(self.winners),
            "history": [
                {
                    "dealt": names(r.dealt),
                    "turns": [
                        {
                            "actions": [self._world.game.action_to_string(a) for a in t.actions],
                            "auto": t.auto,
                            "controller": t.controller,
                            "drawn": names(t.drawn),
                            "decisions": [[s, self._world.game.decision_to_string(a)] for s, a in t.decisions],
                        }
                        for t in r.turns
                    ],
                    "tables": None if r.tables is None else [names(t) for t in r.tables],
                }
                for r in self.history
            ],
            # an event's parts as the engine notes them (cards as indices into card_ids)
            "events": [_plain([e.round, e.turn, e.after, *e.what]) for e in self.events],
            "card_ids": list(cid),
        }


def _restored_view(
    seat: int,
    world: State | _Seen,
    known: dict[int, tuple[int, ...]] | None,
    legal: tuple[int, ...] | None = None,
) -> SeatView:
    """A view as :meth:`SeatView.__reduce__` pickled it."""
    view = object.__new__(SeatView)
    object.__setattr__(view, "_seat", seat)
    object.__setattr__(view, "_world", world)
    object.__setattr__(view, "_known", None if known is None else MappingProxyType(known))
    object.__setattr__(view, "_legal", legal)
    return view


def _plain(value: Any) -> Any:
    """``value`` with its tuples as lists (JSON's arrays), recursively."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


def seat_view(state: State, seat: int) -> SeatView:
    """What ``seat`` may know of ``state`` now, as a :class:`SeatView` (copies only)."""
    return SeatView(state, seat)


def as_view(seen: SeatView | State, seat: int) -> SeatView:
    """The view of ``seat``: ``seen`` itself when it is one, else the view of the state
    ``seen`` (for callers of bots written before views)."""
    return seen if isinstance(seen, SeatView) else SeatView(seen, seat)


# ---------------------------------------------------------------------- trusted bots

#: the states that views of trusted bots read while the bot acts: id of the view -> the state
_LIVE: dict[int, State] = {}


def act_on_view(act: Callable[[SeatView, int], Any], state: State, seat: int) -> tuple[Any, bool]:
    """``act(view, seat)`` for a built-in bot whose code is known (``act``: its
    method), on a view of ``seat`` that reads what it is asked when asked instead of
    copying everything first: the answers of :func:`seat_view`'s view, read while
    ``state`` stands still. Nothing reachable from the view leads to the state (the
    view finds it here, by its id, only while the bot acts), and a view kept past the
    move, or asked for what it does not read quickly (a world, the history, ...),
    becomes the view :func:`seat_view` makes first. The action, and whether it is legal."""
    refused: list[Any] = []

    def refuse(_seat: int, action: Any) -> Any:
        refused.append(action)
        return action

    action = trusted_mover(act, state, refuse)(seat)
    return action, not refused


def trusted_mover(
    act: Callable[[SeatView, int], Any],
    state: State,
    refuse: Callable[[int, Any], Any],
    *,
    forced: bool = False,
    pick: Pick | None = None,
    picks_checked: bool = True,
) -> Callable[[int], Any]:
    """:func:`act_on_view` for one bot over one game, as a function of the seat (the
    loop that asks the bots calls it turn after turn): ``act(view, seat)`` on the quick
    view of ``seat`` and ``state`` as it is then; its action if legal, else what
    ``refuse(seat, action)`` returns (or raises). The twin game is found once.
    ``forced``: the bot plays a seat's only legal move without reading or drawing
    anything, so that move is played without asking it. ``pick``: what the bot's
    ``act`` does while no decision waits, given only what it reads there (:data:`Pick`),
    so no view is made for it. ``picks_checked=False``: a pick's move is returned
    unchecked, for a caller that plays it through the procedure's ``apply``, which
    checks every move itself (and names the seat whose move it refused)."""
    global _LAST_TWIN
    game = state.game
    last = _LAST_TWIN  # one read: another thread may replace it
    if last[0] is game:
        twin = last[1]
    else:
        twin = twin_game(game)
        _LAST_TWIN = (game, twin)
    assert twin is not None
    legal_actions = state.legal_actions
    turn_legal = game.procedure.legal_actions  # a seat's moves while no decision waits (state.legal_actions's)
    # a pick's tables: nothing reachable from the reader leads to the state
    reader: Any = _PickReader(state) if pick is not None else None
    read_t, read_k = (reader.tables, reader.kept) if reader is not None else (None, None)
    live = _LIVE
    make = object.__new__
    lazy = _LazyView
    set_seat, set_world, set_legal = _SET_SEAT, _SET_WORLD, _SET_LEGAL
    picks: Any = pick
    #: each seat's quick view, handed again at its next move while nothing else holds it
    spare: list[Any] = [None] * game.num_seats

    def on_view(seat: int, legal: list[int]) -> Any:
        """The bot's action on its quick view (``legal``: the seat's legal moves, its own list)."""
        view = spare[seat]
        if view is None:
            view = spare[seat] = make(lazy)
            set_seat(view, seat)
            set_world(view, twin)  # until it is made whole: the game, all it holds
        set_legal(view, legal)  # (its known hands are set when it is made whole)
        key = id(view)
        live[key] = state
        try:
            return act(view, seat)
        finally:
            try:
                if type(view) is not lazy:  # made whole during the move: it stays as it is
                    spare[seat] = None
                elif getrefcount(view) > _SPARE:
                    spare[seat] = None
                    _seal(view)  # kept: it must answer as now once the game moves on
            finally:
                del live[key]

    def move(seat: int) -> Any:
        """The bot's move on its quick view, checked."""
        legal = legal_actions(seat)  # every bot asks for them (a new list: the view's own)
        if forced and len(legal) == 1:
            return legal[0]
        action = on_view(seat, legal)
        if type(action) is int and action in legal:
            return action
        return refuse(seat, action)

    if picks is None:
        return move
    unchecked = not picks_checked

    def move_by_pick(seat: int) -> Any:
        """While no decision waits, the bot's pick (checked unless ``picks_checked`` is
        off); else :func:`move`."""
        if state.pending is not None or state.finished:
            return move(seat)
        legal = turn_legal(state, seat)
        if forced and len(legal) == 1:
            return legal[0]
        reader.on = True  # the reader reads while the pick runs only
        try:
            action = picks(seat, legal, twin, read_t, read_k)
        finally:
            reader.on = False
        if unchecked or (type(action) is int and action in legal):
            return action
        return refuse(seat, action)

    return move_by_pick


#: a built-in bot's move while no decision waits (see :func:`trusted_mover`), from what
#: it reads on its view there: ``pick(seat, legal, game, tables, kept_tables)`` with its
#: legal moves, the game (the view's: the twin), and functions giving this round's
#: tables (:func:`read_tables`) and the cards kept so far (:func:`read_kept`) during
#: the pick, only read
Pick = Callable[[int, list[int], Game, Callable[[], Tableau], Callable[[], Tableau]], Any]


class _PickReader:
    """The tables a pick reads (:data:`Pick`), in place: the state is found in
    :data:`_LIVE` by the reader's id while the reader lives (its mover's game), and
    read only while a pick runs (``on``), so nothing reachable from what a pick is
    handed leads to the state, and a reader kept past the pick reads nothing
    (KeyError)."""

    __slots__ = ("on",)

    def __init__(self, state: State) -> None:
        self.on = False
        _LIVE[id(self)] = state

    def __del__(self, _live: dict[int, State] = _LIVE) -> None:  # the dict itself: at exit the global may be gone
        _live.pop(id(self), None)

    def tables(self) -> Tableau:
        if not self.on:
            raise KeyError("a pick's tables are read only while it picks")
        return _LIVE[id(self)].tableau()

    def kept(self) -> Tableau:
        if not self.on:
            raise KeyError("a pick's kept cards are read only while it picks")
        return _LIVE[id(self)].kept_tableau()


def read_tables(view: SeatView) -> Tableau:
    """``view.tableau()`` for code of ours that only reads the tables, within the move
    (the built-in bots of :func:`trusted_mover`): on a built-in bot's quick view, the
    tables of the state it reads, not copied (the bot neither changes nor keeps them:
    the greedy bot reads them as it did the state's before views, and copies what it
    changes); on any other view, its copy. The tables are what every seat sees."""
    if type(view) is _LazyView:
        w = _LIVE[id(view)]
        turned = w.turned() if w.book is not None and w.book.under else None
        return Tableau(w.counts, w.played, w.round + 1, turned)
    return view.tableau()


def read_turn(view: SeatView) -> tuple[list[int], Decision | None, Game]:
    """What a built-in bot reads first, at once: ``view.legal_actions()``,
    ``view.pending`` and ``view.game`` (on a built-in bot's quick view, from one look
    at the state)."""
    if type(view) is _LazyView:
        return view.turn_read()
    return view.legal_actions(), view.pending, view.game


def read_kept(view: SeatView) -> Tableau:
    """``view.kept_tableau()`` as :func:`read_tables` reads the tables: on a built-in
    bot's quick view, the kept cards of the state, not copied."""
    if type(view) is _LazyView:
        w = _LIVE[id(view)]
        return Tableau(w.kept_counts, w.kept_cards, min(w.round + 1, w.game.ruleset.rounds))
    return view.kept_tableau()


def _alone() -> int:
    """What ``getrefcount`` says of a view held by nothing but :func:`trusted_mover`'s name for it."""
    view = object.__new__(_LazyView)
    return getrefcount(view)


#: the game of the last view :func:`trusted_mover` made, and its twin
_LAST_TWIN: tuple[Any, Game | None] = (None, None)
#: how :func:`trusted_mover` sets a view's slots (quicker than :data:`_SET` by name)
_SET_SEAT = vars(SeatView)["_seat"].__set__
_SET_WORLD = vars(SeatView)["_world"].__set__
_SET_LEGAL = vars(SeatView)["_legal"].__set__


def _seal(view: SeatView) -> None:
    """``view`` (a trusted bot's, reading its state) becomes the view :func:`seat_view` makes."""
    Views(_LIVE[id(view)]).fill(view, view.seat)
    _SET(view, "__class__", SeatView)


class _LazyView(SeatView):
    """The view a trusted bot is handed (:func:`act_on_view`): what the built-in bots
    read, read off the state while the bot acts, as copies equal to the answers of
    the view :func:`seat_view` makes; anything else makes it that view first."""

    __slots__ = ()

    @property
    def seat(self) -> int:
        return self._seat

    def turn_read(self) -> tuple[list[int], Decision | None, Game]:
        """:func:`read_turn`'s answers, from one look at the state."""
        p = _LIVE[id(self)].pending
        legal: Any = self._legal  # read when it was made
        game: Any = self._world  # the twin game (see game)
        return list(legal), p if p is not None and p.seat == self._seat else None, game

    @property
    def game(self) -> Game:
        game: Any = self._world  # the twin game, until it is made whole
        return game  # type: ignore[no-any-return]

    @property
    def ruleset(self) -> CompiledRuleset:
        return _LIVE[id(self)].game.ruleset

    @property
    def players(self) -> int:
        return _LIVE[id(self)].game.num_players

    @property
    def num_seats(self) -> int:
        return _LIVE[id(self)].game.num_seats

    @property
    def num_card_types(self) -> int:
        return _LIVE[id(self)].game.num_card_types

    @property
    def rounds(self) -> int:
        return _LIVE[id(self)].game.ruleset.rounds

    @property
    def round(self) -> int:
        return _LIVE[id(self)].round

    @property
    def turn(self) -> int:
        return _LIVE[id(self)].turn

    @property
    def finished(self) -> bool:
        return _LIVE[id(self)].finished

    def is_terminal(self) -> bool:
        return _LIVE[id(self)].finished

    @property
    def hand(self) -> tuple[int, ...]:
        return tuple(_LIVE[id(self)].hands[self._seat])

    @property
    def hand_sizes(self) -> tuple[int, ...]:
        return tuple(map(len, _LIVE[id(self)].hands))

    @property
    def tables(self) -> tuple[tuple[int, ...], ...]:
        return tuple(map(tuple, _LIVE[id(self)].played))

    @property
    def table_counts(self) -> tuple[tuple[int, ...], ...]:
        return tuple(map(tuple, _LIVE[id(self)].counts))

    played = tables
    counts = table_counts

    def tableau(self) -> Tableau:
        w = _LIVE[id(self)]
        turned = w.turned() if w.book is not None and w.book.under else None
        return Tableau(list(map(list, w.counts)), list(map(list, w.played)), w.round + 1, turned)

    def kept_tableau(self) -> Tableau:
        w = _LIVE[id(self)]
        rounds = w.game.ruleset.rounds
        return Tableau(list(map(list, w.kept_counts)), list(map(list, w.kept_cards)), min(w.round + 1, rounds))

    @property
    def kept(self) -> tuple[tuple[int, ...], ...]:
        return tuple(map(tuple, _LIVE[id(self)].kept_cards))

    kept_cards = kept

    @property
    def kept_counts(self) -> tuple[tuple[int, ...], ...]:
        return tuple(map(tuple, _LIVE[id(self)].kept_counts))

    @property
    def controls_dummy(self) -> bool:
        return _LIVE[id(self)].controller == self._seat

    def acting_seats(self) -> tuple[int, ...]:
        w = _LIVE[id(self)]
        return () if w.finished else w.acting_seats()

    @property
    def pending(self) -> Decision | None:
        p = _LIVE[id(self)].pending
        return p if p is not None and p.seat == self._seat else None

    @property
    def deciding_seat(self) -> int | None:
        p = _LIVE[id(self)].pending
        return p.seat if p is not None else None

    def legal_actions(self, seat: int | None = None) -> list[int]:
        if seat is not None and seat != self._seat:
            raise ValueError(f"the view of seat {self._seat} does not know the moves of seat {seat}")
        legal: Any = self._legal  # read when it was made
        return list(legal)

    def is_legal(self, action: object) -> bool:
        legal: Any = self._legal
        return type(action) is int and action in legal

    def decode_action(self, action: int) -> tuple[tuple[int, ...], int | None]:
        return _LIVE[id(self)].game.decode_action(action)

    def encode_action(self, cards: Sequence[int], dummy: int | None = None) -> int:
        return _LIVE[id(self)].game.encode_action(cards, dummy)

    @property
    def families(self) -> tuple[str, ...]:
        return _LIVE[id(self)].game.families

    @property
    def done_action(self) -> int:
        return _LIVE[id(self)].game.done_action

    @property
    def cards(self) -> tuple[CardType, ...]:
        return _LIVE[id(self)].game.ruleset.catalogue.cards

    def card_id(self, card: int) -> str:
        return _LIVE[id(self)].game.ruleset.catalogue.cards[card].id

    def card_name(self, card: int) -> str:
        return _LIVE[id(self)].game.ruleset.catalogue.cards[card].name

    def card_index(self, card_id: str) -> int:
        return _LIVE[id(self)].game.ruleset.catalogue.index_of(card_id)

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(_LIVE[id(self)].totals())

    def totals(self) -> list[int]:
        return _LIVE[id(self)].totals()

    @property
    def round_scores(self) -> tuple[tuple[int, ...], ...]:
        return tuple(map(tuple, _LIVE[id(self)].round_scores))

    @property
    def winners(self) -> tuple[int, ...]:
        return tuple(_LIVE[id(self)].winners)

    def sample_world(self, random: Any) -> State:
        # the full view's: its world dealt again, detached (the world itself only a step)
        state = _LIVE[id(self)]
        seat = self._seat
        held = state.game.procedure.known_hands(state, seat)
        draw = getattr(random, "random", random)
        # the world is made here to be dealt again: dealt into itself
        return _detach(_world_of(state, seat, held, detach=False).resample_hidden(seat, draw, copy=False), seat)

    def __reduce__(self) -> tuple[Any, ...]:
        _seal(self)
        return SeatView.__reduce__(self)

    def __copy__(self) -> SeatView:
        _seal(self)  # kept past the move: the full view, which never changes
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> SeatView:
        _seal(self)
        return self


def _sealing(name: str, member: Any) -> Any:
    """``member`` of :class:`SeatView` for a :class:`_LazyView`: it becomes the full view first."""
    if isinstance(member, property):

        def get(self: SeatView) -> Any:
            _seal(self)
            return getattr(self, name)

        return property(get, doc=member.__doc__)

    def call(self: SeatView, *args: Any, **kwargs: Any) -> Any:
        _seal(self)
        return getattr(self, name)(*args, **kwargs)

    call.__doc__ = member.__doc__
    return call


for _name, _member in list(vars(SeatView).items()):
    # every other answer of a view: made by the full view
    if _name in vars(_LazyView) or _name.startswith("__") or not (callable(_member) or isinstance(_member, property)):
        continue
    setattr(_LazyView, _name, _sealing(_name, _member))

#: what ``getrefcount`` says of a spare view of :func:`trusted_mover` that nothing else
#: keeps: a view held by one name, and by the list of spares
_SPARE = _alone() + 1
