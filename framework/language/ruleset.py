"""The compiled ruleset: an immutable description of a game the engine can run.

Nothing here knows YAML. The walk (:mod:`ruledraft.language.build`) builds a
:class:`CompiledRuleset` once; the engine, the agents and the runner only read it.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

from ruledraft.errors import Diagnostic
from ruledraft.language.catalogue import Catalogue, player_span
from ruledraft.language.effect import CardEffect
from ruledraft.language.menu import Course
from ruledraft.language.quantity import Quantity
from ruledraft.language.rule import Rule

LEFT, RIGHT, NO_PASS = 1, -1, 0
DIRECTION_NAMES = {LEFT: "left", RIGHT: "right", NO_PASS: "none"}


@attrs.frozen
class ExtraPick:
    """A special action: a card already in front of you lets you take ``extra`` more
    cards in a later turn (chopsticks); at most one per turn, and the card then goes
    back into the hand that is passed on (the schema admits nothing else)."""

    id: str
    card: int
    extra: int = 1
    description: str = ""


@attrs.frozen
class DummySpec:
    """Parameters of the ``dummy`` turn procedure (two players with a dummy hand)."""

    seats: int = 1
    #: which player controls the dummy on the first turn of each round
    first_controller: tuple[int, ...] = ()
    #: cards the controller draws from the dummy pile each turn
    draw: int = 1
    can_win: bool = False


@attrs.frozen
class TieBreak:
    """Among players tied on points, the one with the most (or least) of a quantity wins."""

    quantity: Quantity
    most: bool = True


@attrs.frozen
class RoundAddition:
    """Cards held out of the deck at the start and shuffled in before rounds."""

    #: the card types held back (every copy of each)
    cards: tuple[int, ...]
    #: by number of players: how many of them are shuffled in before each round
    counts: Mapping[int, tuple[int, ...]]


@attrs.frozen
class CompiledRuleset:
    id: str
    name: str
    version: str
    description: str
    source: str
    min_players: int
    max_players: int
    catalogue: Catalogue
    hand_sizes: Mapping[int, int]
    between_rounds: str
    rounds: int
    #: per round: +1 pass to seat i+1 (left), -1 to seat i-1 (right), 0 no passing
    #: (a round with a per-turn pattern: its first turn's direction)
    pass_directions: tuple[int, ...]
    procedure: str
    dummy: DummySpec | None
    actions: tuple[ExtraPick, ...]
    round_rules: tuple[Rule, ...]
    game_rules: tuple[Rule, ...]
    tie_breaks: tuple[TieBreak, ...]
    shared_win: bool = True
    extends: str | None = None
    #: per round, the direction after each turn (repeated through the round); empty
    #: when every round passes one way throughout (then ``pass_directions`` says it all)
    pass_patterns: tuple[tuple[int, ...], ...] = ()
    #: cards held back and added before rounds (empty: the whole deck from the start)
    additions: tuple[RoundAddition, ...] = ()
    #: a menu of a card library: its courses and the dishes chosen (empty: no menu)
    menu: tuple[Course, ...] = ()
    #: each scoring rule's own ``description:`` (plain words for ``show``), by rule id
    rule_notes: tuple[tuple[str, str], ...] = ()
    #: why the ruleset is not played on its own (a card library without a menu), else None
    unplayable: Diagnostic | None = None
    #: the card effects other than pick-time extra picks (those are in ``actions``), in
    #: catalogue order (see :mod:`ruledraft.language.effects`); empty: play is plain picks
    effects: tuple[CardEffect, ...] = ()
    #: where each of ``effects`` is declared (the ``kind`` of the card's ``effect:``):
    #: file, line, column; empty for a ruleset not built from a file
    effect_places: tuple[tuple[str, int, int], ...] = ()

    @property
    def rules(self) -> tuple[Rule, ...]:
        return self.round_rules + self.game_rules

    @property
    def rule_ids(self) -> tuple[str, ...]:
        return tuple(r.id for r in self.rules)

    @property
    def picks_alone(self) -> bool:
        """Whether picks alone fill the tables, a card a turn: no card effect, a plain turn,
        and an extra pick puts the card that gave it back (the schema allows extra: 1 only)."""
        return not self.effects and self.procedure == "standard" and all(a.extra <= 1 for a in self.actions)

    @property
    def player_counts(self) -> range:
        return range(self.min_players, self.max_players + 1)

    def num_seats(self, players: int) -> int:
        """Seats at the table for ``players`` players (a dummy takes a seat too)."""
        return players + (self.dummy.seats if self.dummy else 0)

    def rivals(self, players: int) -> int:
        """The seats that may win a game of ``players`` players, the first of them: the
        players, and the dummies where they can win."""
        return self.num_seats(players) if self.dummy is not None and self.dummy.can_win else players

    def pass_direction(self, round_index: int, turn: int) -> int:
        """Which way hands pass after ``turn`` (0-based) of round ``round_index`` (0-based)."""
        if self.pass_patterns:
            pattern = self.pass_patterns[round_index]
            return pattern[turn % len(pattern)]
        return self.pass_directions[round_index]

    @property
    def player_range(self) -> str:
        """The player counts in words: ``2-5 players``, or ``2 players`` (``1 player``) for one count."""
        return player_span(self.min_players, self.max_players)

    def hand_size(self, players: int) -> int:
        return self.hand_sizes[players]

    def card_id(self, index: int) -> str:
        return self.catalogue.cards[index].id

    def card_index(self, card_id: str) -> int:
        return self.catalogue.index_of(card_id)
