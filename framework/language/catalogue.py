"""The card catalogue of a compiled ruleset: card types as small integers.

Everything downstream of the compiler (scoring, engine, agents) refers to a card
type by its index in :attr:`Catalogue.cards`, never by name, so the hot path works
on lists of small ints.  Selectors (a card id, a tag, a colour group) are resolved
here once, at compile time, into tuples of indices.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

import attrs

#: an id as the schema takes it
_IDENTIFIER = re.compile(r"[a-z][a-z0-9_]*")

#: the most players the schema allows (a card's players.max when it gives none)
MAX_PLAYERS = 16


def family_words(tag: str) -> str:
    """A family (a tag) in running text: ``takeout_box`` -> ``takeout box``."""
    return tag.replace("_", " ")


def player_span(fewest: int, most: int) -> str:
    """``2-5 players``; ``2 players`` (``1 player``) for one count."""
    return f"{fewest}-{most} players" if fewest != most else f"{fewest} player" + "s" * (fewest != 1)


def players_range_words(span: tuple[int, int]) -> str:
    """``(3, 16)`` -> ``3 or more players``; ``(1, 6)`` -> ``at most 6 players``; ``(2, 6)`` -> ``2-6 players``."""
    fewest, most = span
    if most >= MAX_PLAYERS:
        return f"{fewest} or more players" if fewest > 1 else "any number of players"
    if fewest <= 1:
        return f"at most {most} players"
    return player_span(fewest, most)


#: the ``group`` of a card that has no colour: no colour group counts it (tea, soy sauce)
NO_COLOUR = "none"


@attrs.frozen
class CardType:
    """One kind of card, as the ruleset declares it."""

    index: int
    id: str
    name: str
    count: int
    group: str
    tags: frozenset[str] = frozenset()
    attributes: Mapping[str, int] = attrs.field(factory=dict)
    #: ``"round"``: discarded after the round is scored; ``"game"``: stays until game end.
    keep: str = "round"
    description: str = ""
    #: the player counts the card may be used at (fewest, most); None: any
    players: tuple[int, int] | None = None

    @property
    def players_words(self) -> str:
        """The card's player counts in words: ``3 or more players``, ``2-6 players``."""
        return players_range_words(self.players or (1, MAX_PLAYERS))

    @property
    def kept(self) -> bool:
        """Whether the card stays in front of its player until game end (``keep: game``)."""
        return self.keep == "game"


@attrs.frozen
class Catalogue:
    """All card types of a ruleset, with the lookups compilers need."""

    cards: tuple[CardType, ...]
    _index: Mapping[str, int] = attrs.field(init=False, repr=False, eq=False)
    _ids: tuple[str, ...] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_index", {c.id: c.index for c in self.cards})
        object.__setattr__(self, "_ids", tuple(c.id for c in self.cards))  # asked once per card named

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def ids(self) -> tuple[str, ...]:
        return self._ids

    @property
    def nameable_ids(self) -> tuple[str, ...]:
        """The ids a rule file can name (lower-case identifiers): what "did you mean"
        suggests, never an id that is itself refused (``Bucket``)."""
        return tuple(i for i in self._ids if _IDENTIFIER.fullmatch(i))

    def index_of(self, card_id: str) -> int:
        """The index of card ``card_id``; ``KeyError`` if there is none."""
        return self._index[card_id]

    def has_card(self, card_id: str) -> bool:
        return card_id in self._index

    def has_tag(self, tag: str) -> bool:
        return any(tag in c.tags for c in self.cards)

    def has_group(self, group: str) -> bool:
        return any(c.group == group for c in self.cards)

    def has_attribute(self, name: str) -> bool:
        return any(name in c.attributes for c in self.cards)

    @property
    def tags(self) -> tuple[str, ...]:
        return tuple(sorted({t for c in self.cards for t in c.tags}))

    @property
    def groups(self) -> tuple[str, ...]:
        """Colour groups in order of first appearance (:data:`NO_COLOUR` is none)."""
        seen: dict[str, None] = {}
        for c in self.cards:
            if c.group != NO_COLOUR:
                seen.setdefault(c.group, None)
        return tuple(seen)

    @property
    def attribute_names(self) -> tuple[str, ...]:
        return tuple(sorted({a for c in self.cards for a in c.attributes}))

    @property
    def group_index(self) -> tuple[int, ...]:
        """For each card index, the index of its colour group in :attr:`groups`; -1 for a
        card of no colour (``group: none``, such as a card turned face down)."""
        order = {g: i for i, g in enumerate(self.groups)}
        return tuple(order.get(c.group, -1) for c in self.cards)

    def select(
        self, *, ids: Iterable[str] = (), tags: Iterable[str] = (), groups: Iterable[str] = ()
    ) -> tuple[int, ...]:
        """Indices of the cards that have any of the ids, tags or groups (sorted, unique)."""
        id_set, tag_set, group_set = set(ids), set(tags), set(groups)
        return tuple(c.index for c in self.cards if c.id in id_set or c.group in group_set or (c.tags & tag_set))

    def attribute_vector(self, name: str, default: int = 0) -> tuple[int, ...]:
        """For each card index, the value of attribute ``name`` (``default`` when absent)."""
        return tuple(c.attributes.get(name, default) for c in self.cards)

    def deck(self) -> list[int]:
        """The full deck as a list of card indices, in catalogue order."""
        out: list[int] = []
        for c in self.cards:
            out.extend([c.index] * c.count)
        return out


def describe_selection(catalogue: Catalogue, indices: Sequence[int]) -> str:
    """Plain words for a set of cards: ``"Tempura"``, ``"Egg Nigiri, Salmon Nigiri"``."""
    names = [catalogue.cards[i].name for i in indices]
    if not names:
        return "no cards"
    if len(names) == len(catalogue.cards):
        return "any card"
    return ", ".join(names)
