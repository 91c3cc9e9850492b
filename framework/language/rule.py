"""What every compiled rule provides: the :class:`Rule` protocol, and an explicit cache.

The engine, the bots and the board ask a rule questions through these names only,
never by its class or by ``hasattr``, so a kind brought by a plug-in is scored,
shown and played like a built-in one.

* ``id``, ``when`` (``"round_end"`` or ``"game_end"``), ``describe()`` (plain words
  for ``ruledraft show``);
* ``reads``: the card types its points depend on (``None``: any), so a bot can skip
  rules a move cannot change;
* ``score(t)``: points for every seat; ``score_seat(t, seat)``: for one seat;
* ``own_cards_only``: a seat's points come from its own cards alone; then
  ``score_row(counts, cards)`` scores one seat's row without a table;
* ``ranks_by``: the per-seat quantity the rule ranks seats by (a majority), or None;
  then ``quantities(t)``, ``award(q, t)`` and ``score_seat_changed(t, seat, base_q)``
  let a bot rescore one seat's move without recomputing the others;
* ``loaded_and_waiting(cards, turned=None)``: for a rule that puts cards onto earlier
  cards (a modifier, ``holds_cards``), how many of those are full and how many have
  room (of those face up, ``turned`` being the seat's cards turned face down);
* ``turn_scoring``: None, or the rule's part that scores during the round at the end
  of every turn (a race, :class:`TurnScoring`); such a rule needs the turns, not only
  the tables, to be scored.

Optional, outside the protocol (a plug-in's rule may leave it out): ``kernel(w)``,
the rule's part of the compiled game kernel (:class:`KernelWriter`); None, the
default of :class:`RuleBase`, means it has none and its ruleset plays on the
reference engine; a rule that scores during the round adds ``kernel_turns(w)``, its part
of the game loop (``Race.kernel_turns``). ``counted_as(t)``: per seat, (position, times) of each card on the
table that counts as more than one card for the other rules (a ``boost``); the board
shows it (the default: none). ``credited``: the cards a rule's points belong to in the
balance figures, when not the cards it reads (a boost: its own cards).

:class:`RuleBase` gives the defaults; a kind overrides what it offers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Generic, NamedTuple, Protocol, TypeVar, runtime_checkable

from ruledraft.language.quantity import Quantity
from ruledraft.tableau import Tableau

K = TypeVar("K")
V = TypeVar("V")


class Cache(Generic[K, V]):
    """A bounded memo a compiled rule keeps beside its immutable settings.

    Compiled rules are frozen: their settings never change once built. What does
    change is this cache of answers already worked out (say, the award for a list
    of quantities), which never alters a result, only how fast it comes. It holds
    at most ``limit`` entries (the first ones asked for stay) and may be cleared at
    any time. Each process has its own: a forked worker inherits a copy.
    """

    __slots__ = ("entries", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.entries: dict[K, V] = {}

    def get(self, key: K) -> V | None:
        return self.entries.get(key)

    def put(self, key: K, value: V) -> None:
        if len(self.entries) < self.limit:
            self.entries[key] = value

    def clear(self) -> None:
        self.entries.clear()

    def __len__(self) -> int:
        return len(self.entries)


class TurnStanding(NamedTuple):
    """Where a rule that scores during the round stands, as the board shows it."""

    #: per seat, what its cards count now toward its next place
    counted: tuple[int, ...]
    #: what a seat must count to take a place
    target: int
    #: the points of each place, in the order the places are taken
    places: tuple[int, ...]
    #: how many places have been taken this round
    taken: int


class TurnScoring(Protocol):
    """The part of a rule that scores during a round, at the end of every turn.

    Its progress through a round is an immutable value the engine keeps for it:
    :meth:`start` makes it when a round starts, :meth:`turn_end` advances it at the
    end of every turn (and names, per seat, the cards that leave the table: the
    engine discards them), :meth:`round_end` gives the round's points from it and
    the tables, which the score sheet shows under the rule's id; :meth:`taken` tells
    who took which place at the latest turn end (``play`` announces it).
    """

    @property
    def turns_reason(self) -> str:
        """Plain words: why the turns are needed (a table of rounds is not enough)."""
        ...

    def start(self, seats: int) -> Any: ...

    def turn_end(self, t: Tableau, progress: Any) -> tuple[Any, list[tuple[int, ...]]]: ...

    def round_end(self, t: Tableau, progress: Any) -> list[int]: ...

    def standing(self, t: Tableau, progress: Any) -> TurnStanding:
        """Where the rule stands with the tables ``t`` and its ``progress`` (for the board)."""
        ...

    def taken(self, progress: Any) -> Sequence[tuple[int, int, int]]:
        """The places awarded by the turn end that made ``progress``: (seat, place from 1,
        points), in the order awarded (empty when that turn end awarded none)."""
        ...


@runtime_checkable
class Rule(Protocol):
    """What every compiled scoring rule provides (see the module docstring)."""

    @property
    def id(self) -> str: ...

    @property
    def when(self) -> str: ...

    @property
    def reads(self) -> frozenset[int] | None: ...

    @property
    def own_cards_only(self) -> bool: ...

    @property
    def ranks_by(self) -> Quantity | None: ...

    @property
    def holds_cards(self) -> bool: ...

    @property
    def turn_scoring(self) -> TurnScoring | None: ...

    def score(self, t: Tableau) -> list[int]: ...

    def score_seat(self, t: Tableau, seat: int) -> int: ...

    def score_row(self, row: list[int], seq: list[int]) -> int: ...

    def quantities(self, t: Tableau) -> list[int]: ...

    def award(self, q: list[int], t: Tableau) -> list[int]: ...

    def score_seat_changed(self, t: Tableau, seat: int, base_q: list[int]) -> int: ...

    def loaded_and_waiting(
        self, seq: Sequence[int], turned: Mapping[int, tuple[int, int]] | None = None
    ) -> tuple[int, int]: ...

    def describe(self) -> str: ...


class KernelWriter(Protocol):
    """What a rule's ``kernel(w)`` may ask while it writes its part of the game kernel
    (:mod:`ruledraft.kernel`).

    A rule's part is the body of a compiled function ``(counts, seq, lens, rnd, out)``:
    ``counts[s, c]`` is seat ``s``'s number of card ``c`` on the table scored,
    ``seq[s, :lens[s]]`` its cards in play order, ``rnd`` the round (from 1) and ``N``
    the number of seats; the body sets ``out[s]``, the points of every seat, in plain
    numba-compatible Python on integers (``np`` is numpy). One compiled kernel serves
    every player count: what depends on it branches on ``N``.

    A table a ``boost`` has changed carries its echoes (``Tableau.echoes``) in ``seq``
    itself: it then has ``2 * N`` rows, ``seq[N + s, j]`` being 1 where seat ``s``'s card
    ``j`` is an echo (``counts`` and ``lens`` count the echoes). A part that pairs cards by
    play order (a modifier) reads them; the others need not look.

    Where cards were turned face down (``Tableau.turned``, by an effect whose part
    ``turns``), the table scored at round end and in a bot's look at a decision has
    ``4 * N`` rows: ``seq[N + s, j]`` is 0 (no echo), ``seq[2 * N + s, j]`` the face seat
    ``s``'s card ``j`` had before it was turned plus one (0: never turned) and
    ``seq[3 * N + s, j]`` the seat's number of cards when it was turned. Only a part that
    pairs cards reads them (and says so: ``kernel_reads_turned``).
    """

    @property
    def seat_counts(self) -> tuple[int, ...]:
        """The numbers of seats ``N`` may be (awards by seat count are resolved for each)."""
        ...

    @property
    def card_types(self) -> int:
        """How many card types there are (``counts`` has a column for each)."""
        ...

    def quantity(self, q: Quantity) -> str | None:
        """The name of a compiled function ``(counts, seq, lens, rnd, s) -> int`` giving
        ``q`` for seat ``s``; None when ``q`` has no kernel form (then the rule has none)."""
        ...

    def array(self, values: Sequence[int]) -> str:
        """The name of a constant ``int64`` array holding ``values``."""
        ...

    def function(self, params: str, body: list[str]) -> str:
        """The name of a compiled helper function taking ``params`` (their text) whose body
        is ``body`` (its lines, not indented)."""
        ...

    def rule(self, rule: Rule) -> str | None:
        """The name of a compiled function ``(counts, seq, lens, rnd, out)`` scoring
        ``rule`` by its own part (a boost scores the rules it changes); None when it has none."""
        ...


class RuleBase:
    """Defaults for the optional parts of :class:`Rule`: a kind overrides what it offers.

    A subclass defines ``id``, ``when``, ``reads``, ``score`` and ``describe``.
    """

    __slots__ = ()
    own_cards_only: bool = False
    ranks_by: Quantity | None = None
    holds_cards: bool = False
    #: its kernel part reads the cards turned face down (the rows ``2N..4N-1`` of ``seq``,
    #: see :class:`KernelWriter`); a rule that holds cards without it refuses the kernel
    #: beside an effect that turns cards face down
    kernel_reads_turned: bool = False

    @property
    def turn_scoring(self) -> TurnScoring | None:
        """None: the rule scores when its round (or the game) ends, from the tables alone."""
        return None

    def score(self, t: Tableau) -> list[int]:  # pragma: no cover - every kind defines it
        raise NotImplementedError

    def score_seat(self, t: Tableau, seat: int) -> int:
        return self.score(t)[seat]

    def score_row(self, row: list[int], seq: list[int]) -> int:
        """One seat's points from its row alone (meaningful when ``own_cards_only``)."""
        return self.score_seat(Tableau([row], [seq]), 0)

    def quantities(self, t: Tableau) -> list[int]:
        """The ranked quantity of every seat (meaningful when ``ranks_by`` is set)."""
        q = self.ranks_by
        return q.values(t) if q is not None else [0] * t.num_seats

    def award(self, q: list[int], t: Tableau) -> list[int]:
        return self.score(t)

    def score_seat_changed(self, t: Tableau, seat: int, base_q: list[int]) -> int:
        return self.score_seat(t, seat)

    def loaded_and_waiting(
        self, seq: Sequence[int], turned: Mapping[int, tuple[int, int]] | None = None
    ) -> tuple[int, int]:
        return 0, 0

    def kernel(self, w: KernelWriter) -> str | None:
        """The rule's part of the game kernel (see :class:`KernelWriter`); None: it has none."""
        return None

    def counted_as(self, t: Tableau) -> list[tuple[tuple[int, int], ...]]:
        """Per seat, (position in its cards, how many cards it counts as) of the cards
        this rule makes count more than once for the other rules: none."""
        return [() for _ in t.cards]


class OwnCardsRule(RuleBase):
    """A rule whose points for a seat come from that seat's cards alone: it defines
    ``score_row(counts, cards)`` and gets ``score_seat`` from it, or ``score(t)`` alone
    (a plug-in's, as the guide shows) and gets ``score_row`` from that."""

    __slots__ = ()
    own_cards_only = True

    def score_seat(self, t: Tableau, seat: int) -> int:
        return self.score_row(t.counts[seat], t.cards[seat])

    def score_row(self, row: list[int], seq: list[int]) -> int:
        # from ``score`` over a table of one seat (RuleBase's, through score_seat, would come back here)
        return self.score(Tableau([row], [seq]))[0]
