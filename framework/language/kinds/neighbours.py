"""The ``neighbours`` kind: each seat compares a quantity with the seats to its left and
right only, and scores per neighbour for a win, a tie and a loss (7 Wonders' military).

A kind of its own rather than a majority scope: a majority awards *places* among all
seats (most, least, ties shared or in full, places used up), none of which a pairwise
comparison has; its settings are the points of one comparison.

With 2 players a seat's left and right neighbour are the same seat: it is compared
once (the one opponent is the one neighbour), not twice. With 3 players the two
neighbours are the two other seats, each compared once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.quantity import Quantity
from ruledraft.language.rule import KernelWriter, RuleBase
from ruledraft.tableau import Tableau

NAME = "neighbours"

#: points of one comparison: a number, or a list by round (rounds past its end use its last)
_BY_ROUND: dict[str, Any] = {
    "oneOf": [
        {"$ref": "#/$defs/points"},
        {
            "title": "Points by round",
            "description": "Round 1, 2, ...; rounds past the end use the last.",
            "type": "array",
            "minItems": 1,
            "maxItems": 100,
            "items": {"$ref": "#/$defs/points"},
        },
    ]
}

#: its own keys; ScoringKind.full_schema adds `type: object`, no other keys, and id, kind, when, description
SCHEMA: dict[str, Any] = {
    "title": "Neighbours rule",
    "description": "Each player compares a quantity with the players to the left and to the right only, "
    "scoring per neighbour for a win, a tie and a loss (7 Wonders' military). With 2 players the one "
    "opponent is compared once.",
    "required": ["quantity"],
    "properties": {
        "quantity": {
            "title": "Quantity",
            "description": "What a player compares with each neighbour.",
            "$ref": "#/$defs/quantity",
        },
        "win": {
            "title": "Win",
            "description": "Points for each neighbour who has less: a number, or a list by round.",
            **_BY_ROUND,
        },
        "tie": {
            "title": "Tie",
            "description": "Points for each neighbour who has as much: a number, or a list by round (default 0).",
            **_BY_ROUND,
        },
        "loss": {
            "title": "Loss",
            "description": "Points for each neighbour who has more: a number, or a list by round (default 0).",
            **_BY_ROUND,
        },
    },
    "anyOf": [{"required": ["win"]}, {"required": ["tie"]}, {"required": ["loss"]}],
}


def neighbours_of(seat: int, seats: int) -> tuple[int, ...]:
    """The seats ``seat`` is compared with: to its right and to its left, each once
    (one with 2 seats, none alone)."""
    if seats < 2:
        return ()
    right, left = (seat - 1) % seats, (seat + 1) % seats
    return (right,) if right == left else (right, left)


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Neighbours(RuleBase):
    """Each seat compares ``quantity`` with its neighbours (:func:`neighbours_of`) and
    scores ``win``, ``tie`` or ``loss`` for each, by round (a 1-tuple: every round)."""

    id: str
    when: str
    quantity: Quantity
    win: tuple[int, ...]
    tie: tuple[int, ...]
    loss: tuple[int, ...]
    #: the Rule protocol's ``ranks_by``: bots rescore one seat's move from the others' values
    ranks_by: Quantity = attrs.field(init=False, eq=False, repr=False)
    all_values: Callable[[Tableau], list[int]] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "ranks_by", self.quantity)
        q = self.quantity
        object.__setattr__(self, "all_values", q.all_fn if q.all_fn is not None else q.values)

    @property
    def reads(self) -> frozenset[int] | None:
        return self.quantity.reads

    def quantities(self, t: Tableau) -> list[int]:
        return self.quantity.values(t)

    def score(self, t: Tableau) -> list[int]:
        return self.award(self.all_values(t), t)

    def award(self, q: list[int], t: Tableau) -> list[int]:
        """Points per seat for these quantities (``t`` gives the round)."""
        r = t.round - 1
        win, tie, loss = (v[min(max(r, 0), len(v) - 1)] for v in (self.win, self.tie, self.loss))
        n = len(q)
        out = []
        for s in range(n):
            mine = q[s]
            pts = 0
            for other in neighbours_of(s, n):
                theirs = q[other]
                pts += win if mine > theirs else loss if mine < theirs else tie
            out.append(pts)
        return out

    def comparisons(self, q: Sequence[int]) -> list[tuple[tuple[int, int], ...]]:
        """Per seat, for each neighbour it is compared with: (that seat, 1 if it has more,
        0 as much, -1 less): the board shows these beside the quantity."""
        n = len(q)
        return [tuple((o, (q[s] > q[o]) - (q[s] < q[o])) for o in neighbours_of(s, n)) for s in range(n)]

    def score_seat_changed(self, t: Tableau, seat: int, base_q: list[int]) -> int:
        """``score_seat`` when only ``seat``'s cards differ from those ``base_q`` was computed on."""
        q = base_q[:]
        q[seat] = self.quantity.fn(t, seat)
        return self.award(q, t)[seat]

    def kernel(self, w: KernelWriter) -> str | None:
        """:meth:`award` on every seat's quantity: each seat against the seat to its right
        and, when another, to its left."""
        q = w.quantity(self.quantity)
        if q is None:
            return None
        win, tie, loss = (w.array(v) for v in (self.win, self.tie, self.loss))

        def at(name: str, values: tuple[int, ...]) -> str:
            return f"{name}[min(max(rnd - 1, 0), {len(values) - 1})]"

        return (
            "\n".join(
                [
                    "q = np.empty(N, np.int64)",
                    "for s in range(N):",
                    f"    q[s] = {q}(counts, seq, lens, rnd, s)",
                    f"win = {at(win, self.win)}",
                    f"tie = {at(tie, self.tie)}",
                    f"loss = {at(loss, self.loss)}",
                    "for s in range(N):",
                    "    pts = 0",
                    "    if N >= 2:",
                    "        right = (s + N - 1) % N",
                    "        left = (s + 1) % N",
                    "        for k in range(1 if left == right else 2):",
                    "            o = right if k == 0 else left",
                    "            if q[s] > q[o]:",
                    "                pts += win",
                    "            elif q[s] < q[o]:",
                    "                pts += loss",
                    "            else:",
                    "                pts += tie",
                    "    out[s] = pts",
                ]
            )
            + "\n"
        )

    def describe(self) -> str:
        def points(v: tuple[int, ...]) -> str:
            if len(v) == 1:
                return str(v[0])
            return ", ".join(f"{p} in round {r + 1}" for r, p in enumerate(v)) + " and after"

        return (
            f"Each player compares {self.quantity.words} with the players to the left and to the right, "
            f"and scores for each neighbour with less: {points(self.win)}; with as much: {points(self.tie)}; "
            f"with more: {points(self.loss)}. With 2 players the one opponent is both neighbours and is "
            "compared once."
        )


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Neighbours | None:
    quantity = ctx.quantity(("quantity",), spec["quantity"])
    if quantity is None:
        return None

    def by_round(key: str) -> tuple[int, ...]:
        v = spec.get(key, 0)
        return tuple(v) if isinstance(v, list) else (v,)

    wrong = False
    if spec["when"] == "game_end":
        for key in ("win", "tie", "loss"):
            if isinstance(spec.get(key), list) and len(spec[key]) > 1:
                ctx.error(
                    (key,),
                    f"a game-end rule compares once, at the end of the last round: give '{key}' as one number",
                )
                wrong = True
    if wrong:
        return None
    return Neighbours(spec["id"], spec["when"], quantity, by_round("win"), by_round("tie"), by_round("loss"))
