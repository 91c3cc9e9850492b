"""The ``sets`` kind: points for complete sets (tempura, sashimi), or for sets of different cards or of
different values of an attribute (onigiri shapes)."""

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
    "points[n] for a set of n different cards (distinct: ATTRIBUTE: of n different values of that attribute).",
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
        "points": {
            "title": "Points",
            "description": "With size: the points per complete set. With distinct: a list of "
            "points indexed by set size.",
        },
    },
    "if": {"required": ["distinct"]},
    "then": {
        "properties": {
            "points": {
                "title": "Points by set size",
                "description": "points[n] is the score of a set of n different cards.",
                "$ref": "#/$defs/pointsList",
            },
            "size": {"not": {}, "errorMessage": "'size' and 'distinct' cannot be used together in a sets rule"},
        }
    },
    "else": {
        "required": ["size"],
        "properties": {
            "points": {
                "title": "Points per set",
                "description": "Points for each complete set.",
                "$ref": "#/$defs/points",
            }
        },
    },
}


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Sets(OwnCardsRule):
    """Every complete group of ``size`` matching cards scores ``points`` (tempura, sashimi).

    With ``distinct`` the cards are instead split into sets of different card
    types, largest first, and a set of k types scores ``table[k]``; with
    ``classes`` (``distinct: ATTRIBUTE``) the cards of one class (one value of the
    attribute) count as one type (onigiri shapes).
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
        for row in t.counts:
            if classes:
                per_class = [sum([row[i] for i in members]) for members in classes]
                left = sorted((n for n in per_class if n), reverse=True)
            else:
                left = sorted((row[i] for i in idx if row[i]), reverse=True)
            total = 0
            # peel off sets of distinct types: with counts sorted, the set sizes are
            # how many types still have a card after each peel
            for layer in range(left[0] if left else 0):
                k = sum(1 for c in left if c > layer)
                total += self.table[min(k, last)]
            out.append(total)
        return out

    def score_row(self, row: list[int], seq: list[int]) -> int:
        if not self.distinct:
            return sum([row[i] for i in self.indices]) // self.size * self.points
        return self.score(Tableau([row], [seq]))[0]

    def kernel(self, w: KernelWriter) -> str:
        """Complete sets: a count divided; sets of different cards: peeled layer by layer."""
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

    def describe(self) -> str:
        if self.distinct and self.attribute:
            return (
                f"Sets of {self.words} with different {self.attribute}: a set of 1, 2, 3... different "
                f"{self.attribute}s scores {', '.join(map(str, self.table[1:]))}."
            )
        if self.distinct:
            return f"Sets of different {self.words}: a set of 1, 2, 3... different cards scores {', '.join(map(str, self.table[1:]))}."
        return f"Every complete set of {self.size} {self.words} scores {self.points}; incomplete sets score 0."


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Sets | None:
    idx = ctx.cards(("cards",), spec["cards"])
    if idx is None:
        return None
    words = ctx.words(spec["cards"])
    distinct = spec.get("distinct")
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
        return Sets(spec["id"], spec["when"], idx, 1, 0, tuple(spec["points"]), True, words, classes, distinct)
    if distinct:
        return Sets(spec["id"], spec["when"], idx, 1, 0, tuple(spec["points"]), True, words)
    return Sets(spec["id"], spec["when"], idx, spec["size"], spec["points"], (), False, words)
