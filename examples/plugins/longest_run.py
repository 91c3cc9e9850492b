"""A plug-in scoring kind: ``longest_run``, points for the longest run of cards played in a row.

No data rule can say this: it reads the order in which a player played their
cards, turn after turn. Load it with ``ruledraft --plugin examples/plugins/longest_run.py``
(or install a package that names it in the ``ruledraft.scoring_kinds`` entry-point
group); then a rule file may write::

    - id: conveyor
      kind: longest_run
      cards: {tag: nigiri}     # which cards make up a run
      points: [0, 0, 0, 2, 5, 9]  # points[n] for a longest run of n (the last for longer)
"""

from __future__ import annotations

import attrs

from ruledraft.language.kinds import register_scoring_kind
from ruledraft.language.rule import OwnCardsRule

SCHEMA = {
    "title": "Longest-run rule",
    "description": "Points for the longest run of matching cards played one after another: points[n] for a run of n.",
    "required": ["cards", "points"],
    "properties": {
        "cards": {"title": "Cards", "description": "The cards that make up a run.", "$ref": "#/$defs/selector"},
        "points": {
            "title": "Points by run length",
            "description": "points[n] is the score for a longest run of n cards; longer runs score the last entry.",
            "$ref": "#/$defs/pointsList",
        },
    },
}


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class LongestRun(OwnCardsRule):
    """Points by the longest run of matching cards in a seat's play order."""

    id: str
    when: str
    cards: frozenset[int]
    points: tuple[int, ...]
    words: str

    @property
    def reads(self) -> frozenset[int]:
        return self.cards

    def score(self, t):
        return [self.score_row(row, seq) for row, seq in zip(t.counts, t.cards)]

    def score_row(self, row, seq) -> int:
        best = run = 0
        for card in seq:
            run = run + 1 if card in self.cards else 0
            best = max(best, run)
        return self.points[min(best, len(self.points) - 1)]

    def describe(self) -> str:
        steps = ", ".join(f"{n}: {p}" for n, p in enumerate(self.points))
        return (
            f"By the longest run of {self.words} played one after another: {steps} (and {self.points[-1]} for longer)."
        )


def build(spec, ctx):
    """The rule, or None after ``ctx`` recorded a problem (an unknown card, tag...)."""
    cards = ctx.cards(("cards",), spec["cards"])
    if cards is None:
        return None
    return LongestRun(spec["id"], spec["when"], frozenset(cards), tuple(spec["points"]), ctx.words(spec["cards"]))


KIND = register_scoring_kind("longest_run", build, SCHEMA)
