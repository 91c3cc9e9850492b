"""The ``per_card`` kind: each matching card scores its own value (nigiri)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.quantity import weighted_all_fn, with_the
from ruledraft.language.rule import KernelWriter, OwnCardsRule
from ruledraft.tableau import Tableau

NAME = "per_card"

#: its own keys; ScoringKind.full_schema adds `type: object`, no other keys, and id, kind, when, description
SCHEMA: dict[str, Any] = {
    "title": "Per-card rule",
    "description": "Each selected card scores a value.",
    "required": ["cards", "value"],
    "properties": {
        "cards": {"title": "Cards", "description": "The cards that score.", "$ref": "#/$defs/selector"},
        "value": {"title": "Value", "description": "What each card scores.", "$ref": "#/$defs/value"},
    },
}


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class PerCard(OwnCardsRule):
    """Each matching card scores its own value (nigiri)."""

    id: str
    when: str
    indices: tuple[int, ...]
    values: tuple[int, ...]  # per card index
    words: str
    value_words: str = ""
    pairs: tuple[tuple[int, int], ...] = attrs.field(init=False, eq=False, repr=False)
    all_values: Callable[[Tableau], list[int]] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        pairs = tuple((i, self.values[i]) for i in self.indices if self.values[i])
        object.__setattr__(self, "pairs", pairs)
        object.__setattr__(self, "all_values", weighted_all_fn(self.indices, self.values))

    @property
    def reads(self) -> frozenset[int]:
        return frozenset(self.indices)

    def score(self, t: Tableau) -> list[int]:
        return self.all_values(t)

    def score_row(self, row: list[int], seq: list[int]) -> int:
        return sum([row[i] * v for i, v in self.pairs])

    def kernel(self, w: KernelWriter) -> str:
        """Each card's count times its value."""
        terms = " + ".join(f"counts[s, {i}] * {v}" for i, v in self.pairs) or "0"
        return f"for s in range(N):\n    out[s] = {terms}\n"

    def describe(self) -> str:
        values = sorted({self.values[i] for i in self.indices})
        # "Each Pudding", "Each of the nigiri cards (...)", "Each of Tempura, Sashimi"
        if self.words == "all cards":
            each = "Each card"
        elif len(self.indices) == 1 and with_the(self.words) == self.words:  # one card, by its name
            each = f"Each {self.words}"
        else:
            each = f"Each of {with_the(self.words)}"
        if len(values) == 1:
            return f"{each} scores {values[0]}."
        return f"{each} scores its value: {self.value_words}."


def build(spec: Mapping[str, Any], ctx: RuleContext) -> PerCard | None:
    idx = ctx.cards(("cards",), spec["cards"])
    values = ctx.values(("value",), spec["value"])
    if idx is None or values is None:
        return None
    names = ctx.catalogue.cards
    value_words = ", ".join(f"{names[i].name} {values[i]}" for i in idx)
    return PerCard(spec["id"], spec["when"], idx, values, ctx.words(spec["cards"]), value_words)
