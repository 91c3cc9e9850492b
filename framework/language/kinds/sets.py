"""The ``sets`` kind: points for complete sets (tempura, sashimi), or for sets of different cards or of
different values of an attribute.

Sets of different cards (``distinct:``) are counted in one of two ways, which the
``grouping`` key names: ``layers`` (the default, Party's onigiri: the first set takes
one card of every value there is, the next one of every value left, ..., and a set of
n values scores ``points[n]``) or ``disjoint`` (the most sets of exactly ``size``
different values that share no card, each scoring ``points``: "12 per set of 4
different colours")."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.rule import KernelWriter, OwnCardsRule
from ruledraft.language.suggest import did_you_mean
from ruledraft.tableau import Tableau

NAME = "sets"

#: its own keys; ScoringKind.full_schema adds `type: object`, no other keys, and id, kind, when, description
SCHEMA: dict[str, Any] = {
    "title": "Sets rule",
    "description": "Points for complete sets: size cards score points each time; or, with distinct: true, "
    "points[n] for a set of n different cards (distinct: ATTRIBUTE: of n different values of that attribute); "
    "or, with distinct and grouping: disjoint, points for each of the most sets of size different cards.",
    "required": ["cards", "points"],
    "properties": {
        "cards": {"title": "Cards", "description": "The cards that make up sets.", "$ref": "#/$defs/selector"},
        "size": {
            "title": "Set size",
            "description": "How many cards make one set.",
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
        },
        "distinct": {
            "title": "Distinct",
            "description": "true: sets are of different cards, scored by points[set size]; an attribute name "
            "(shape): sets are of cards with different values of that attribute.",
            "oneOf": [
                {"title": "Different cards", "description": "Sets of different card ids.", "const": True},
                {
                    "title": "Different values of an attribute",
                    "description": "Sets of cards whose values of this attribute differ.",
                    "$ref": "#/$defs/identifier",
                },
            ],
        },
        "grouping": {
            "title": "Grouping",
            "description": "How cards of different values make sets (with distinct): layers (the default): "
            "one card of every value, then one of every value left, ..., a set of n values scoring "
            "points[n] (Party's onigiri); disjoint: the most sets of exactly size different values, "
            "no card in two sets, each scoring points.",
            "type": "string",
            "enum": ["layers", "disjoint"],
        },
        "points": {
            "title": "Points",
            "description": "With size: the points per complete set. With distinct: a list of "
            "points indexed by set size (with grouping: disjoint, the points per set).",
        },
    },
    "if": {"required": ["distinct"]},
    "then": {
        # any grouping but layers (a misspelt disjoint too) takes the disjoint branch
        "if": {"required": ["grouping"], "properties": {"grouping": {"not": {"const": "layers"}}}},
        "then": {
            "required": ["size"],
            "properties": {
                "points": {
                    "title": "Points per set",
                    "description": "Points for each set of size different cards.",
                    "$ref": "#/$defs/points",
                },
            },
        },
        "else": {
            "properties": {
                "points": {
                    "title": "Points by set size",
                    "description": "points[n] is the score of a set of n different cards.",
                    "$ref": "#/$defs/pointsList",
                    "minItems": 1,
                },
                "size": {
                    "title": "Set size",
                    "description": "Not with distinct, unless grouping: disjoint.",
                    "not": {},
                    "errorMessage": "'size' and 'distinct' cannot be used together in a sets rule",
                },
            }
        },
    },
    "else": {
        "required": ["size"],
        "properties": {
            "points": {
                "title": "Points per set",
                "description": "Points for each complete set.",
                "$ref": "#/$defs/points",
            },
            "grouping": {
                "title": "Grouping",
                "description": "Only with distinct.",
                "not": {},
                "errorMessage": "'grouping' needs 'distinct': it says how sets of different cards are made",
            },
        },
    },
}


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Sets(OwnCardsRule):
    """Every complete group of ``size`` matching cards scores ``points`` (tempura, sashimi).

    With ``distinct`` the cards are instead split into sets of different card
    types, largest first, and a set of k types scores ``table[k]``; with
    ``classes`` (``distinct: ATTRIBUTE``) the cards of one class (one value of the
    attribute) count as one type (onigiri shapes). With ``disjoint`` (``grouping:
    disjoint``) the types make the most sets of exactly ``size`` different types
    sharing no card, each scoring ``points`` (:func:`most_disjoint_sets`).
    """

    id: str
    when: str
    indices: tuple[int, ...]
    size: int
    points: int
    table: tuple[int, ...] = ()
    distinct: bool = False
    words: str = ""
    #: with distinct: the card indices that count as one type (one attribute value
    #: each); empty: every card index is its own type
    classes: tuple[tuple[int, ...], ...] = ()
    #: the attribute whose values differ (``distinct: ATTRIBUTE``), for describe
    attribute: str = ""
    #: grouping: disjoint (the most sets of exactly ``size`` different types)
    disjoint: bool = False

    @property
    def reads(self) -> frozenset[int]:
        return frozenset(self.indices)

    def score(self, t: Tableau) -> list[int]:
        idx = self.indices
        if not self.distinct:
            size, pts = self.size, self.points
            if len(idx) == 1:
                i = idx[0]
                return [row[i] // size * pts for row in t.counts]
            return [sum([row[i] for i in idx]) // size * pts for row in t.counts]
        out = []
        last = len(self.table) - 1
        classes = self.classes
        if self.disjoint:
            size, pts = self.size, self.points
            for row in t.counts:
                per_type = [sum([row[i] for i in members]) for members in classes] if classes else [row[i] for i in idx]
                out.append(most_disjoint_sets(per_type, size) * pts)
            return out
        table = self.table
        for row in t.counts:
            if classes:
                left = [n for n in [sum([row[i] for i in members]) for members in classes] if n]
            else:
                left = [row[i] for i in idx if row[i]]
            left.sort(reverse=True)
            total = 0
            # peel off sets of distinct types: with counts sorted, the set sizes are
            # how many types still have a card after each peel. The peels from `layer`
            # up to the j-th largest count make sets of j + 1 types (the counts after
            # it are used up), so they are added a run at a time, smallest count first.
            layer = 0
            for j in range(len(left) - 1, -1, -1):
                c = left[j]
                if c > layer:
                    total += (c - layer) * table[min(j + 1, last)]
                    layer = c
            out.append(total)
        return out

    def score_row(self, row: list[int], seq: list[int]) -> int:
        if not self.distinct:
            return sum([row[i] for i in self.indices]) // self.size * self.points
        return self.score(Tableau([row], [seq]))[0]

    def kernel(self, w: KernelWriter) -> str | None:
        """Complete sets: a count divided; sets of different cards: peeled layer by layer,
        or (disjoint) the most sets found by bisection as :func:`most_disjoint_sets` does."""
        if self.disjoint:
            return self._kernel_disjoint()
        if not self.distinct:
            terms = " + ".join(f"counts[s, {i}]" for i in self.indices) or "0"
            return f"for s in range(N):\n    out[s] = ({terms}) // {self.size} * {self.points}\n"
        classes = self.classes or tuple((i,) for i in self.indices)
        table = w.array(self.table)
        lines = [f"left = np.zeros({max(len(classes), 1)}, np.int64)", "for s in range(N):"]
        for j, members in enumerate(classes):
            lines.append(f"    left[{j}] = " + " + ".join(f"counts[s, {i}]" for i in members))
        lines += [
            "    total = 0",
            "    for layer in range(left.max()):",
            "        k = 0",
            f"        for j in range({len(classes)}):",
            "            if left[j] > layer:",
            "                k += 1",
            f"        total += {table}[min(k, {len(self.table) - 1})]",
            "    out[s] = total",
        ]
        return "\n".join(lines) + "\n"

    def _kernel_disjoint(self) -> str:
        """:func:`most_disjoint_sets` over each seat's cards per type, times the points."""
        classes = self.classes or tuple((i,) for i in self.indices)
        T, size = len(classes), self.size
        lines = [f"left = np.zeros({max(T, 1)}, np.int64)", "for s in range(N):"]
        for j, members in enumerate(classes):
            lines.append(f"    left[{j}] = " + " + ".join(f"counts[s, {i}]" for i in members))
        lines += [
            "    kinds = 0",
            "    cards = 0",
            f"    for j in range({T}):",
            "        if left[j] > 0:",
            "            kinds += 1",
            "            cards += left[j]",
            "    lo = 0",
            f"    if kinds >= {size}:",
            f"        hi = cards // {size}",
            "        while lo < hi:",
            "            mid = (lo + hi + 1) // 2",
            "            room = 0",
            f"            for j in range({T}):",
            "                room += left[j] if left[j] < mid else mid",
            f"            if room >= {size} * mid:",
            "                lo = mid",
            "            else:",
            "                hi = mid - 1",
            f"    out[s] = lo * {self.points}",
        ]
        return "\n".join(lines) + "\n"

    def describe(self) -> str:
        if self.disjoint:
            what = f"different {self.attribute}s" if self.attribute else "different cards"
            return (
                f"The most sets of {self.size} {what} among {self.words}, no card in two sets: each set scores "
                f"{self.points}; cards left over score nothing."
            )
        if self.distinct and self.attribute:
            return (
                f"Sets of {self.words} with different {self.attribute}: a set of 1, 2, 3... different "
                f"{self.attribute}s scores {', '.join(map(str, self.table[1:]))}."
            )
        if self.distinct:
            return f"Sets of different {self.words}: a set of 1, 2, 3... different cards scores {', '.join(map(str, self.table[1:]))}."
        return f"Every complete set of {self.size} {self.words} scores {self.points}; incomplete sets score 0."


def most_disjoint_sets(counts: list[int], size: int) -> int:
    """How many sets of ``size`` different types, no card in two, ``counts`` (cards per
    type) make at most.

    m such sets exist exactly when the types can fill m sets: a type gives at most one
    card to each set, so at most min(count, m) in all, and when those add up to
    ``size`` x m or more the cards can be dealt round the m sets (the largest types
    first) without a set getting two of a type. The largest such m is found by
    bisection, since a smaller number of sets is possible whenever a larger one is.
    """
    counts = [c for c in counts if c > 0]
    if len(counts) < size:
        return 0
    lo, hi = 0, sum(counts) // size
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if sum([c if c < mid else mid for c in counts]) >= size * mid:
            lo = mid
        else:
            hi = mid - 1
    return lo


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Sets | None:
    idx = ctx.cards(("cards",), spec["cards"])
    if idx is None:
        return None
    words = ctx.words(spec["cards"])
    distinct = spec.get("distinct")
    disjoint = spec.get("grouping") == "disjoint"
    if isinstance(distinct, str):
        cat = ctx.catalogue
        if not cat.has_attribute(distinct):
            known = cat.attribute_names
            hint = did_you_mean(distinct, known) or (f"; cards have {', '.join(known)}" if known else "")
            ctx.error(("distinct",), f"no card has the attribute '{distinct}'{hint}")
            return None
        values = cat.attribute_vector(distinct)
        lacking = [cat.cards[i].id for i in idx if distinct not in cat.cards[i].attributes]
        if lacking:
            ctx.error(
                ("distinct",), f"card '{lacking[0]}' has no attribute '{distinct}' (every card of the sets needs one)"
            )
            return None
        by_value: dict[int, list[int]] = {}
        for i in idx:
            by_value.setdefault(values[i], []).append(i)
        classes = tuple(tuple(members) for members in by_value.values())
        if disjoint:
            return _disjoint(spec, ctx, idx, words, classes, distinct)
        return Sets(spec["id"], spec["when"], idx, 1, 0, tuple(spec["points"]), True, words, classes, distinct)
    if distinct and disjoint:
        return _disjoint(spec, ctx, idx, words, (), "")
    if distinct:
        return Sets(spec["id"], spec["when"], idx, 1, 0, tuple(spec["points"]), True, words)
    return Sets(spec["id"], spec["when"], idx, spec["size"], spec["points"], (), False, words)


def _disjoint(
    spec: Mapping[str, Any],
    ctx: RuleContext,
    idx: tuple[int, ...],
    words: str,
    classes: tuple[tuple[int, ...], ...],
    attribute: str,
) -> Sets | None:
    """``grouping: disjoint``: a set needs ``size`` different types, so at least that many
    must be selected (else no set could ever score: a located error)."""
    size = spec["size"]
    types = len(classes) if classes else len(idx)
    if types < size:
        what = f"values of '{attribute}'" if attribute else "different cards"
        ctx.error(
            ("size",),
            f"a set needs {size} different {'values' if attribute else 'cards'}, but the cards selected have "
            f"only {types} {what}: no set could ever score",
        )
        return None
    return Sets(spec["id"], spec["when"], idx, size, spec["points"], (), True, words, classes, attribute, disjoint=True)
