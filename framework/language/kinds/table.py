"""The ``table`` kind: a count (or a quantity) looked up in a table of points (dumplings)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.quantity import Quantity, count_fn
from ruledraft.language.rule import KernelWriter, RuleBase
from ruledraft.tableau import Tableau

NAME = "table"

#: its own keys; ScoringKind.full_schema adds `type: object`, no other keys, and id, kind, when, description
SCHEMA: dict[str, Any] = {
    "title": "Table rule",
    "description": "Points looked up in a table by how many cards the player has (or by a quantity): points[n]; "
    "counts past the end use the last entry.",
    "required": ["points"],
    "properties": {
        "points": {
            "title": "Points table",
            "description": "points[n] is the score for n cards (or a quantity of n).",
            "$ref": "#/$defs/pointsList",
            "minItems": 1,
        },
        "cards": {"title": "Cards", "description": "The cards counted.", "$ref": "#/$defs/selector"},
        "quantity": {
            "title": "Quantity",
            "description": "The quantity looked up, instead of a count of cards.",
            "$ref": "#/$defs/quantity",
        },
    },
    "oneOf": [{"required": ["cards"]}, {"required": ["quantity"]}],
}


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Table(RuleBase):
    """A quantity looked up in a table, capped at the last entry (dumplings: 0, 1, 3, 6, 10, 15)."""

    id: str
    when: str
    quantity: Quantity
    points: tuple[int, ...]
    #: when the quantity is just the count of one card type: its index (a fast path)
    single_card: int | None = None

    @property
    def reads(self) -> frozenset[int] | None:
        return self.quantity.reads

    def score(self, t: Tableau) -> list[int]:
        pts, last = self.points, len(self.points) - 1
        if self.single_card is not None:
            i = self.single_card
            return [pts[row[i] if row[i] < last else last] for row in t.counts]
        q = self.quantity.fn
        return [pts[min(max(q(t, s), 0), last)] for s in range(t.num_seats)]

    @property
    def own_cards_only(self) -> bool:  # type: ignore[override]
        return self.quantity.pure

    def score_row(self, row: list[int], seq: list[int]) -> int:
        if self.single_card is not None:
            q, last = row[self.single_card], len(self.points) - 1
            return self.points[q if q < last else last]
        return self.score_seat(Tableau([row], [seq]), 0)

    def score_seat(self, t: Tableau, seat: int) -> int:
        q = self.quantity.fn(t, seat)
        last = len(self.points) - 1
        return self.points[min(max(q, 0), last)]

    def kernel(self, w: KernelWriter) -> str | None:
        """The quantity looked up in the points, capped at both ends."""
        q = w.quantity(self.quantity)
        if q is None:
            return None
        pts = w.array(self.points)
        return (
            "for s in range(N):\n"
            f"    out[s] = {pts}[min(max({q}(counts, seq, lens, rnd, s), 0), {len(self.points) - 1})]\n"
        )

    def describe(self) -> str:
        steps = ", ".join(f"{n}: {p}" for n, p in enumerate(self.points))
        return f"By the {self.quantity.bare_words}: {steps} (and {self.points[-1]} for more)."


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Table | None:
    points = tuple(spec["points"])
    if "quantity" in spec:
        q = ctx.quantity(("quantity",), spec["quantity"])
        return None if q is None else Table(spec["id"], spec["when"], q, points)
    idx = ctx.cards(("cards",), spec["cards"])
    if idx is None:
        return None
    q = Quantity(
        count_fn(idx), frozenset(idx), True, f"number of {ctx.words(spec['cards'])}", True, form=("count", idx)
    )
    return Table(spec["id"], spec["when"], q, points, idx[0] if len(idx) == 1 else None)
