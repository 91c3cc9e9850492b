"""Quantities: a number per seat, read from the cards in front of it.

A quantity is what a majority ranks, what a table looks up, what a tie-break
compares. In a rule file it is either a short declarative form::

    {count: pudding}
    {sum: icons, of: {tag: maki}}
    {distinct: group}
    {expr: "count(edamame) * 2"}

or simply an expression string. Both compile to the same thing: a function of
``(tableau, seat)`` plus what it reads, so scoring can tell which cards matter.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import mul
from typing import Any

import attrs

from ruledraft.language.catalogue import Catalogue, describe_selection
from ruledraft.tableau import Tableau


@attrs.frozen
class Quantity:
    """A compiled per-seat number."""

    fn: Callable[[Tableau, int], int]
    #: card indices it depends on (None: any card)
    reads: frozenset[int] | None
    #: True when it only looks at the seat's own cards
    is_local: bool
    #: plain words, e.g. "roll icons on Maki Roll cards"
    words: str
    #: True when it depends on nothing but the seat's own cards (not even the
    #: number of players or the round), so it can be computed from one row alone
    pure: bool = False
    #: steps of one evaluation for a number of seats (declarative forms: 1)
    steps: Callable[[int], int] = lambda seats: 1
    #: ``all_fn(tableau) -> [value per seat]``, a faster way to get every seat's value
    all_fn: Callable[[Tableau], list[int]] | None = None
    #: what it is, as data, for code that compiles it again (the game kernel):
    #: ``("count", indices)``, ``("sum", indices, weights)``, ``("distinct", indices,
    #: key per card)`` or ``("expr", text)``; empty when only ``fn`` says (a plug-in's)
    form: tuple[Any, ...] = ()

    @property
    def bare_words(self) -> str:
        """:attr:`words` without a leading "the", for a phrase that gives its own
        ("By the ...", "the highest ...")."""
        return self.words.removeprefix("the ")

    def values(self, t: Tableau) -> list[int]:
        """The value of every seat."""
        if self.all_fn is not None:
            return self.all_fn(t)
        fn = self.fn
        return [fn(t, s) for s in range(t.num_seats)]


def selector_indices(spec: Any, catalogue: Catalogue) -> tuple[int, ...]:
    """Card indices named by a selector: an id, a list of ids, or ``{tag, group, cards}``.

    The semantic check has already made sure every name exists.
    """
    if spec is None:
        return tuple(range(catalogue.size))
    if isinstance(spec, str):
        return (catalogue.index_of(spec),)
    if isinstance(spec, list):
        return tuple(sorted({catalogue.index_of(s) for s in spec}))
    tags = [spec["tag"]] if "tag" in spec else []
    groups = [spec["group"]] if "group" in spec else []
    return catalogue.select(ids=spec.get("cards", ()), tags=tags, groups=groups)


def with_the(words: str) -> str:
    """A selector's words after "one of" or "each of": ``the nigiri cards (...)``, ``the
    cards of the melon colour (...)``, ``the cards``; card names as they are."""
    if words == "all cards":
        return "the cards"
    if " cards (" in words or words.startswith("cards of the "):
        return f"the {words}"
    return words


def one_of(words: str, cards: int) -> str:
    """ "one of the nigiri cards (...)", or for a selector of a single card type
    "a Baguette" (not "one of Baguette")."""
    if cards == 1 and " cards (" not in words and not words.startswith("cards of the ") and words != "all cards":
        return f"{'an' if words[:1].lower() in 'aeiou' else 'a'} {words}"
    return f"one of {with_the(words)}"


def selector_words(spec: Any, catalogue: Catalogue) -> str:
    """Plain words for a selector."""
    if spec is None:
        return "all cards"
    if isinstance(spec, dict) and set(spec) == {"tag"}:
        return f"{spec['tag']} cards ({describe_selection(catalogue, selector_indices(spec, catalogue))})"
    if isinstance(spec, dict) and set(spec) == {"group"}:
        return (
            f"cards of the {spec['group']} colour ({describe_selection(catalogue, selector_indices(spec, catalogue))})"
        )
    return describe_selection(catalogue, selector_indices(spec, catalogue))


def count_all_fn(indices: tuple[int, ...]) -> Callable[[Tableau], list[int]]:
    """``tableau -> [number of each seat's cards among indices]``."""
    if len(indices) == 1:
        (i,) = indices
        return lambda t: [row[i] for row in t.counts]
    return lambda t: [sum(map(row.__getitem__, indices)) for row in t.counts]


def weighted_all_fn(indices: tuple[int, ...], weights: tuple[int, ...]) -> Callable[[Tableau], list[int]]:
    """``tableau -> [sum of weights over each seat's cards among indices]``."""
    idx = tuple(i for i in indices if weights[i])
    ws = tuple(weights[i] for i in idx)
    # the common small cases spelled out: this runs for every seat at every scoring
    if len(idx) == 1:
        (a,), (wa,) = idx, ws
        return lambda t: [row[a] * wa for row in t.counts]
    if len(idx) == 2:
        (a, b), (wa, wb) = idx, ws
        return lambda t: [row[a] * wa + row[b] * wb for row in t.counts]
    if len(idx) == 3:
        (a, b, c), (wa, wb, wc) = idx, ws
        return lambda t: [row[a] * wa + row[b] * wb + row[c] * wc for row in t.counts]
    return lambda t: [sum(map(mul, map(row.__getitem__, idx), ws)) for row in t.counts]


def count_fn(indices: tuple[int, ...]) -> Callable[[Tableau, int], int]:
    """``(tableau, seat) -> number of the seat's cards among indices``."""
    if len(indices) == 1:
        (i,) = indices

        def count_one(t: Tableau, s: int) -> int:
            return t.counts[s][i]

        return count_one

    def count_many(t: Tableau, s: int) -> int:
        row = t.counts[s]
        return sum([row[i] for i in indices])

    return count_many


def weighted_fn(indices: tuple[int, ...], weights: tuple[int, ...]) -> Callable[[Tableau, int], int]:
    """``(tableau, seat) -> sum of weights[card] over the seat's cards among indices``."""
    pairs = tuple((i, weights[i]) for i in indices if weights[i])

    def weighted(t: Tableau, s: int) -> int:
        row = t.counts[s]
        return sum([row[i] * w for i, w in pairs])

    return weighted


def distinct_fn(indices: tuple[int, ...], key: tuple[int, ...]) -> Callable[[Tableau, int], int]:
    """``(tableau, seat) -> number of distinct key[card] among the seat's cards``."""

    def distinct(t: Tableau, s: int) -> int:
        row = t.counts[s]
        return len({key[i] for i in indices if row[i]})

    return distinct


def compile_quantity(spec: Any, catalogue: Catalogue, compile_expr: Callable[[str], Any]) -> Quantity:
    """Compile a quantity spec. ``compile_expr(text)`` compiles an expression string
    (the caller binds the file position, so errors stay located)."""
    if isinstance(spec, str):
        spec = {"expr": spec}
    if "expr" in spec:
        expr = compile_expr(spec["expr"])
        return Quantity(
            expr.fn,
            expr.reads,
            expr.is_local,
            f"the value of `{spec['expr']}`",
            steps=expr.steps,
            form=("expr", expr.text),
        )
    if "count" in spec:
        idx = selector_indices(spec["count"], catalogue)
        return Quantity(
            count_fn(idx),
            frozenset(idx),
            True,
            f"number of {selector_words(spec['count'], catalogue)}",
            True,
            all_fn=count_all_fn(idx),
            form=("count", idx),
        )
    if "sum" in spec:
        idx = selector_indices(spec.get("of"), catalogue)
        weights = catalogue.attribute_vector(spec["sum"])
        return Quantity(
            weighted_fn(idx, weights),
            frozenset(i for i in idx if weights[i]),
            True,
            f"total '{spec['sum']}' on {selector_words(spec.get('of'), catalogue)}",
            True,
            all_fn=weighted_all_fn(idx, weights),
            form=("sum", idx, weights),
        )
    if "distinct" in spec:
        idx = selector_indices(spec.get("of"), catalogue)
        key = catalogue.group_index if spec["distinct"] == "group" else tuple(range(catalogue.size))
        idx = tuple(i for i in idx if key[i] >= 0)  # a card of no colour adds no colour
        what = "colour groups" if spec["distinct"] == "group" else "card types"
        return Quantity(
            distinct_fn(idx, key),
            frozenset(idx),
            True,
            f"number of different {what} among {selector_words(spec.get('of'), catalogue)}",
            True,
            form=("distinct", idx, key),
        )
    raise ValueError(f"not a quantity: {spec!r}")  # unreachable after the schema check
