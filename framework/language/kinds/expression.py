"""The ``expression`` kind: points given by an expression, evaluated for each seat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.quantity import Quantity
from ruledraft.language.rule import KernelWriter, RuleBase
from ruledraft.tableau import Tableau

NAME = "expression"

#: its own keys; ScoringKind.full_schema adds `type: object`, no other keys, and id, kind, when, description
SCHEMA: dict[str, Any] = {
    "title": "Expression rule",
    "description": "Points given by an expression.",
    "required": ["expr"],
    "properties": {
        "expr": {"title": "Expression", "description": "The points, as an expression.", "$ref": "#/$defs/expression"},
    },
}


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Expression(RuleBase):
    """Points given by an expression, evaluated for each seat."""

    id: str
    when: str
    quantity: Quantity
    text: str

    @property
    def reads(self) -> frozenset[int] | None:
        return self.quantity.reads

    def score(self, t: Tableau) -> list[int]:
        f = self.quantity.fn
        return [f(t, s) for s in range(t.num_seats)]

    # own_cards_only stays False: an expression may read the number of players or the round

    def score_seat(self, t: Tableau, seat: int) -> int:
        return self.quantity.fn(t, seat)

    def kernel(self, w: KernelWriter) -> str | None:
        """The expression, for each seat."""
        q = w.quantity(self.quantity)
        return None if q is None else f"for s in range(N):\n    out[s] = {q}(counts, seq, lens, rnd, s)\n"

    def describe(self) -> str:
        return f"Points: `{self.text}`."


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Expression | None:
    expr = ctx.expression(("expr",), spec["expr"])
    if expr is None:
        return None
    q = Quantity(expr.fn, expr.reads, expr.is_local, f"`{spec['expr']}`", steps=expr.steps, form=("expr", expr.text))
    return Expression(spec["id"], spec["when"], q, spec["expr"])
