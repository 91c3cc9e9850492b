"""What scoring looks at: the cards in front of every seat.

A :class:`Tableau` is the read-only view a scoring rule (or an expression) gets.
For a round-end rule it holds the cards each seat played this round; for a
game-end rule, the cards each seat kept until the end of the game.

Both views of a seat's cards are kept, because rules need both and building
either from the other on every call would cost time in the hot path:

* ``counts[seat][card_index]`` -- how many of each card type;
* ``cards[seat]`` -- the card indices in the order they were played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence


class Tableau:
    """The cards in front of each seat, as counts and as a play-order sequence."""

    __slots__ = ("counts", "cards", "num_seats", "round", "turned", "echoes")

    def __init__(
        self,
        counts: list[list[int]],
        cards: list[list[int]],
        round: int = 1,
        turned: Sequence[Mapping[int, tuple[int, int]]] | None = None,
        echoes: Sequence[frozenset[int]] | None = None,
    ):
        self.counts = counts
        self.cards = cards
        self.num_seats = len(counts)
        #: 1-based number of the round being scored (the last round for game end).
        self.round = round
        #: per seat, its cards turned face down by an effect: position in ``cards`` ->
        #: (the card it was, the seat's number of cards when it was turned); None: none
        #: turned. The face-down card type is in ``cards``; a rule that pairs cards by
        #: play order (a modifier) reads this to keep the pairs made before the turn.
        self.turned = turned
        #: per seat, the positions in ``cards`` that are extra copies of the card before
        #: them: a card a ``boost`` makes count more than once appears that many times in
        #: a row, the first its own, the others echoes (and ``counts`` counts them all).
        #: A rule that pairs cards by play order (a modifier) lets an echo ride with its
        #: card; None: no card counts more than once (every table as played).
        self.echoes = echoes

    @classmethod
    def from_cards(cls, num_card_types: int, cards: Sequence[Sequence[int]], round: int = 1) -> Tableau:
        """Build a tableau from each seat's cards in play order."""
        counts = []
        for seq in cards:
            row = [0] * num_card_types
            for c in seq:
                row[c] += 1
            counts.append(row)
        return cls(counts, [list(seq) for seq in cards], round)

    def of_seat(self, seat: int) -> Tableau:
        """A table of ``seat`` alone (its cards, the cards it turned face down, its
        echoes): what a rule that reads one seat's cards only scores the same there."""
        turned = None if self.turned is None else [self.turned[seat]]
        echoes = None if self.echoes is None else [self.echoes[seat]]
        return Tableau([self.counts[seat]], [self.cards[seat]], self.round, turned, echoes)

    def with_seat(self, seat: int, counts: list[int], cards: list[int]) -> Tableau:
        """A copy in which ``seat`` has other cards (used to try a move without making it)."""
        new_counts = list(self.counts)
        new_counts[seat] = counts
        new_cards = list(self.cards)
        new_cards[seat] = cards
        echoes = self.echoes
        if echoes is not None:  # the seat's new cards are as played: no echoes among them
            echoes = [e if s != seat else frozenset() for s, e in enumerate(echoes)]
        return Tableau(new_counts, new_cards, self.round, self.turned, echoes)


def with_kept(kept: Sequence[bool], t: Tableau, tables: Tableau) -> Tableau:
    """The cards kept so far (``t``) and the cards of this round's ``tables`` that will
    be kept (``kept[card]``), in lists of their own: what game-end rules would see if
    the round ended with the tables as they are."""
    counts = [row[:] for row in t.counts]
    cards = [seq[:] for seq in t.cards]
    for s, seq in enumerate(tables.cards):
        for c in seq:
            if kept[c]:
                counts[s][c] += 1
                cards[s].append(c)
    return Tableau(counts, cards, tables.round)
