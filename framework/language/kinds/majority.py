"""The ``majority`` kind: rank seats by a quantity and award places (maki, pudding)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.quantity import Quantity
from ruledraft.language.rule import Cache, KernelWriter, RuleBase
from ruledraft.language.scoring import Awards, split_evenly
from ruledraft.tableau import Tableau

NAME = "majority"

#: most distinct quantity lists a majority remembers the award of (each entry is a
#: few small tuples: this bounds the memory at a few megabytes per rule)
AWARD_MEMO_SIZE = 1 << 14

#: its own keys; ScoringKind.full_schema adds `type: object`, no other keys, and id, kind, when, description
SCHEMA: dict[str, Any] = {
    "title": "Majority rule",
    "description": "Points for the players with the most (and/or least) of a quantity.",
    "required": ["quantity"],
    "properties": {
        "quantity": {"title": "Quantity", "description": "What players are compared on.", "$ref": "#/$defs/quantity"},
        "most": {"title": "Most", "description": "Points for 1st, 2nd, ... most.", "$ref": "#/$defs/awards"},
        "least": {"title": "Least", "description": "Points for 1st, 2nd, ... least.", "$ref": "#/$defs/awards"},
        "ties": {
            "title": "Ties",
            "description": "split: tied players share the points of the places they cover "
            "(remainder dropped); full: each tied player gets the full points.",
            "type": "string",
            "enum": ["split", "full"],
        },
        "tie_skips_places": {
            "title": "Tie skips places",
            "description": "true: players tied for a place use up the places below it.",
            "type": "boolean",
        },
        "minimum": {
            "title": "Minimum",
            "description": "A player needs at least this much of the quantity to score.",
            "type": "integer",
            "minimum": -1000000,
            "maximum": 1000000,
        },
        "eligible": {
            "title": "Eligible",
            "description": "A condition a player must meet to take part (an expression).",
            "$ref": "#/$defs/expression",
        },
        "multiplier": {
            "title": "Multiplier",
            "description": "Multiply each award by this quantity.",
            "$ref": "#/$defs/quantity",
        },
        "all_equal": {
            "title": "All equal",
            "description": "When every player has the same amount: score (as ties) or nothing.",
            "type": "string",
            "enum": ["score", "nothing"],
        },
    },
    "anyOf": [{"required": ["most"]}, {"required": ["least"]}],
}

Plan = list[tuple[tuple[int, ...], bool]]


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Majority(RuleBase):
    """Rank seats by a quantity and award places.

    Settings (all data): ``most`` / ``least`` awards per place (may depend on the
    number of seats); ``ties`` ``split`` (shared, remainder dropped) or ``full``;
    ``tie_skips_places`` (a tie for a place uses up the places after it);
    ``minimum`` (a seat below it takes no part); ``eligible`` (a seat that fails it
    still counts in the ranking but receives nothing); ``multiplier`` (award times a
    quantity); ``all_equal`` ``nothing`` (everyone level: nobody scores).

    The settings are frozen. Two explicit caches (:class:`~ruledraft.language.rule.Cache`)
    sit beside them and never change a result: ``plans`` (number of seats -> the
    non-empty award lists, most first) and ``award_cache`` (quantities -> points,
    kept only when the award depends on the quantities alone, i.e. no ``eligible``
    or ``multiplier`` reading the table; at most ``AWARD_MEMO_SIZE`` entries).
    """

    id: str
    when: str
    quantity: Quantity
    most: Awards
    least: Awards
    split: bool
    tie_skips_places: bool
    minimum: int | None
    eligible: Quantity | None
    multiplier: Quantity | None
    nothing_if_all_equal: bool
    plans: Cache[int, Plan] = attrs.field(init=False, eq=False, repr=False)
    award_cache: Cache[tuple[int, ...], list[int]] | None = attrs.field(init=False, eq=False, repr=False)
    #: the quantity seats are ranked by (the Rule protocol's ``ranks_by``): a plain
    #: attribute, since bots read it for every candidate move
    ranks_by: Quantity = attrs.field(init=False, eq=False, repr=False)
    #: every seat's quantity in one call (the quantity's fastest way), for ``score``
    all_values: Callable[[Tableau], list[int]] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "ranks_by", self.quantity)
        q = self.quantity
        object.__setattr__(self, "all_values", q.all_fn if q.all_fn is not None else q.values)
        object.__setattr__(self, "plans", Cache(64))
        memo = Cache[tuple[int, ...], list[int]](AWARD_MEMO_SIZE)
        object.__setattr__(self, "award_cache", memo if self.eligible is None and self.multiplier is None else None)

    @property
    def reads(self) -> frozenset[int] | None:
        parts = [self.quantity] + [q for q in (self.eligible, self.multiplier) if q is not None]
        out: frozenset[int] = frozenset()
        for p in parts:
            if p.reads is None:
                return None
            out |= p.reads
        return out

    def quantities(self, t: Tableau) -> list[int]:
        """The ranked quantity of every seat."""
        return self.quantity.values(t)

    def score(self, t: Tableau) -> list[int]:
        return self.award(self.all_values(t), t)

    def award(self, q: list[int], t: Tableau) -> list[int]:
        """Points per seat for these quantities (``t`` is read only by ``eligible`` and ``multiplier``)."""
        cache = self.award_cache
        if cache is None:
            return self._award(q, t)
        memo = cache.entries
        key = tuple(q)  # a few seats' small counts: the same ones come back again and again
        pts = memo.get(key)
        if pts is None:
            pts = self._award(q, t)
            if len(memo) < cache.limit:
                memo[key] = pts
        return pts[:]

    def _plan(self, n: int) -> Plan:
        plan = self.plans.get(n)
        if plan is None:
            plan = [
                (awards, highest)
                for awards, highest in ((self.most.for_seats(n), True), (self.least.for_seats(n), False))
                if awards
            ]
            self.plans.put(n, plan)
        return plan

    def _award(self, q: list[int], t: Tableau) -> list[int]:
        n = len(q)
        if self.nothing_if_all_equal and min(q) == max(q):
            return [0] * n
        plans = self._plan(n)
        values = sorted(set(q), reverse=True)
        minimum = self.minimum
        if minimum is not None:
            while values and values[-1] < minimum:  # below the minimum: no part in the ranking
                values.pop()
        pts = [0] * n
        if not values:
            return pts
        elig, mult = self.eligible, self.multiplier
        split, skips = self.split, self.tie_skips_places
        for awards, highest in plans:
            place = 0
            last = len(awards)
            for v in values if highest else reversed(values):
                if place >= last:
                    break
                tied = q.count(v)
                if elig is None and mult is None:  # the common case, without listing seats
                    amount = awards[place]
                    if tied == 1:
                        pts[q.index(v)] += amount
                    else:
                        if split:
                            amount = split_evenly(amount, tied)
                        for s in range(n):
                            if q[s] == v:
                                pts[s] += amount
                else:
                    group = [s for s in range(n) if q[s] == v]
                    recipients = group if elig is None else [s for s in group if elig.fn(t, s)]
                    if recipients:
                        amount = awards[place]
                        if split and len(recipients) > 1:
                            amount = split_evenly(amount, len(recipients))
                        for s in recipients:
                            pts[s] += amount if mult is None else amount * mult.fn(t, s)
                place += tied if skips else 1
        return pts

    def score_seat(self, t: Tableau, seat: int) -> int:
        return self.score(t)[seat]

    def score_seat_changed(self, t: Tableau, seat: int, base_q: list[int]) -> int:
        """``score_seat`` when only ``seat``'s cards differ from those ``base_q`` was computed on."""
        q = base_q[:]
        q[seat] = self.quantity.fn(t, seat)
        return self.award(q, t)[seat]

    def kernel(self, w: KernelWriter) -> str | None:
        """:meth:`_award` on every seat's quantity, the awards resolved for the kernel's seats."""
        q = w.quantity(self.quantity)
        elig = w.quantity(self.eligible) if self.eligible is not None else ""
        mult = w.quantity(self.multiplier) if self.multiplier is not None else ""
        if q is None or elig is None or mult is None:
            return None
        args = "(counts, seq, lens, rnd, s)"
        lines = [
            "q = np.empty(N, np.int64)",
            "for s in range(N):",
            f"    q[s] = {q}{args}",
            "    out[s] = 0",
        ]
        if self.nothing_if_all_equal:
            lines += ["if q.min() == q.max():", "    return"]
        allowed = f"{elig}{args} != 0" if elig else "True"
        floor = f"x >= {self.minimum} and " if self.minimum is not None else ""
        # the awards depend on the number of seats: one branch per distinct plan
        by_plan: dict[tuple[tuple[tuple[int, ...], bool], ...], list[int]] = {}
        for n in w.seat_counts:
            by_plan.setdefault(tuple(self._plan(n)), []).append(n)
        for b, (plan, ns) in enumerate(by_plan.items()):
            lines.append(("if " if b == 0 else "elif ") + " or ".join(f"N == {n}" for n in ns) + ":")
            lines += ["    " + line for line in self._kernel_plan(w, plan, args, allowed, floor, mult)] or ["    pass"]
        return "\n".join(lines) + "\n"

    def _kernel_plan(
        self,
        w: KernelWriter,
        plan: tuple[tuple[tuple[int, ...], bool], ...],
        args: str,
        allowed: str,
        floor: str,
        mult: str,
    ) -> list[str]:
        """The kernel lines awarding ``plan`` (most and/or least) on the quantities ``q``."""
        lines: list[str] = []
        for awards, highest in plan:
            arr = w.array(awards)
            # the distinct values at or above the minimum, best first, found one after another
            better, beyond = (">", "<") if highest else ("<", ">")
            lines += [
                "place = 0",
                "last = 0",
                "started = False",
                "while True:",
                "    found = False",
                "    v = 0",
                "    for s in range(N):",
                "        x = q[s]",
                f"        if {floor}(not started or x {beyond} last) and (not found or x {better} v):",
                "            v = x",
                "            found = True",
                f"    if not found or place >= {len(awards)}:",
                "        break",
                "    started = True",
                "    last = v",
                "    tied = 0",
                "    rec = 0",
                "    for s in range(N):",
                "        if q[s] == v:",
                "            tied += 1",
                f"            if {allowed}:",
                "                rec += 1",
                "    if rec:",
                f"        amount = {arr}[place]",
            ]
            if self.split:
                lines += [
                    "        if rec > 1:",
                    "            share = abs(amount) // rec",
                    "            amount = share if amount >= 0 else -share",
                ]
            lines += [
                "        for s in range(N):",
                f"            if q[s] == v and {allowed}:",
                f"                out[s] += amount{f' * {mult}{args}' if mult else ''}",
                f"    place += {'tied' if self.tie_skips_places else '1'}",
            ]
        return lines

    def describe(self) -> str:
        parts = [f"Players are ranked by {self.quantity.words}."]
        if self.most.default or self.most.by_seats:
            parts.append(f"Most: {self.most.words()}.")
        if self.least.default or self.least.by_seats:
            parts.append(f"Fewest: {self.least.words()}.")
        if self.split:
            parts.append("Tied players split the points, dropping the remainder.")
        else:
            parts.append("Tied players each score in full.")
        parts.append(
            "A tie for a place uses up the places after it."
            if self.tie_skips_places
            else "A tie does not use up the next place."
        )
        if self.minimum is not None:
            parts.append(f"A player needs at least {self.minimum} to take part.")
        if self.eligible is not None:
            parts.append(f"Only players for whom {self.eligible.words} holds can score.")
        if self.multiplier is not None:
            parts.append(f"Each award is multiplied by {self.multiplier.words}.")
        if self.nothing_if_all_equal:
            parts.append("If everyone is level, nobody scores.")
        return " ".join(parts)


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Majority | None:
    quantity = ctx.quantity(("quantity",), spec["quantity"])
    for key in ("most", "least"):
        awards = spec.get(key)
        if isinstance(awards, dict) and isinstance(awards.get("players"), dict):
            ctx.seat_keys((key, "players"), awards["players"])
    eligible = ctx.quantity(("eligible",), spec["eligible"], boolean=True) if "eligible" in spec else None
    multiplier = ctx.quantity(("multiplier",), spec["multiplier"]) if "multiplier" in spec else None
    if quantity is None or ("eligible" in spec and eligible is None) or ("multiplier" in spec and multiplier is None):
        return None
    return Majority(
        id=spec["id"],
        when=spec["when"],
        quantity=quantity,
        most=Awards.from_spec(spec.get("most")),
        least=Awards.from_spec(spec.get("least")),
        split=spec.get("ties", "split") == "split",
        tie_skips_places=spec.get("tie_skips_places", True),
        minimum=spec.get("minimum"),
        eligible=eligible,
        multiplier=multiplier,
        nothing_if_all_equal=spec.get("all_equal", "score") == "nothing",
    )
