"""The ``majority`` kind: rank seats by a quantity and award places (maki, pudding)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ruledraft.language.json_check import plural
from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.quantity import Quantity
from ruledraft.language.rule import Cache, KernelWriter, RuleBase
from ruledraft.language.scoring import Awards, parse_player_key, split_evenly
from ruledraft.tableau import Tableau

NAME = "majority"

#: most distinct quantity lists a majority remembers the award of (each entry is a
#: few small tuples: this bounds the memory at a few megabytes per rule)
AWARD_MEMO_SIZE = 1 << 14

#: how a tie for one place is handled
TIE_HANDLING: dict[str, Any] = {"type": "string", "enum": ["split", "full"]}

#: the ties of the places of ``most`` (or ``least``): one handling, or one per place
TIES_BY_PLACE: dict[str, Any] = {
    "oneOf": [
        TIE_HANDLING,
        {
            "title": "Ties by place",
            "description": "The 1st, 2nd, ... place's handling; places past the end use the last.",
            "type": "array",
            "minItems": 1,
            "maxItems": 100,
            "items": TIE_HANDLING,
        },
    ]
}

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
            "(remainder dropped); full: each tied player gets the full points. Or per place: "
            "{most: split, least: full}, a list giving the 1st, 2nd, ... place's handling.",
            "oneOf": [
                TIE_HANDLING,
                {
                    "title": "Ties per place",
                    "description": "How ties are handled for the most and for the fewest: one handling for "
                    "every place, or a list for the 1st, 2nd, ... place (places past its end use its last).",
                    "type": "object",
                    "additionalProperties": False,
                    "minProperties": 1,
                    "properties": {
                        "most": {
                            "title": "Ties for the most",
                            "description": "split or full, or a list for the 1st, 2nd, ... most.",
                            **TIES_BY_PLACE,
                        },
                        "least": {
                            "title": "Ties for the fewest",
                            "description": "split or full, or a list for the 1st, 2nd, ... fewest.",
                            **TIES_BY_PLACE,
                        },
                    },
                },
            ],
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

#: per award list (most, then least) of a number of seats: the points by place, whether
#: it goes to the highest quantities, and whether a tie for each place splits
Plan = list[tuple[tuple[int, ...], bool, tuple[bool, ...]]]


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Majority(RuleBase):
    """Rank seats by a quantity and award places.

    Settings (all data): ``most`` / ``least`` awards per place (may depend on the
    number of seats); ``ties`` ``split`` (shared, remainder dropped) or ``full``;
    ``tie_skips_places`` (a tie for a place uses up the places after it);
    ``minimum`` (a seat below it takes no part); ``eligible`` (a seat that fails it
    still counts in the ranking but receives nothing); ``multiplier`` (award times a
    quantity); ``all_equal`` ``nothing`` (everyone level: nobody scores).
    ``place_ties`` (``ties: {most: ..., least: ...}``) sets the handling per place:
    for the most and for the fewest, a tuple of "splits" flags by place (places past
    its end use its last; an empty tuple: ``split`` for every place).

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
    #: ties per place, for the most and for the fewest (see the class docstring)
    place_ties: tuple[tuple[bool, ...], tuple[bool, ...]] = ((), ())
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
                (awards, highest, self._splits(len(awards), ties))
                for awards, highest, ties in (
                    (self.most.for_seats(n), True, self.place_ties[0]),
                    (self.least.for_seats(n), False, self.place_ties[1]),
                )
                if awards
            ]
            self.plans.put(n, plan)
        return plan

    def _splits(self, places: int, ties: tuple[bool, ...]) -> tuple[bool, ...]:
        """Whether a tie for each of ``places`` places splits its points."""
        if not ties:
            return (self.split,) * places
        return tuple(ties[min(p, len(ties) - 1)] for p in range(places))

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
        skips = self.tie_skips_places
        for awards, highest, splits in plans:
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
                        if splits[place]:
                            amount = split_evenly(amount, tied)
                        for s in range(n):
                            if q[s] == v:
                                pts[s] += amount
                else:
                    group = [s for s in range(n) if q[s] == v]
                    recipients = group if elig is None else [s for s in group if elig.fn(t, s)]
                    if recipients:
                        amount = awards[place]
                        if splits[place] and len(recipients) > 1:
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
        # the seats' quantities as a tuple of the most seats (a seat past the table's
        # repeats the last): no array made at each call, which the greedy bot makes
        # for each card it weighs
        most = max(w.seat_counts)
        lines = [
            "q = (" + ", ".join(f"{q}(counts, seq, lens, rnd, min({s}, N - 1))" for s in range(most)) + ",)",
            "for s in range(N):",
            "    out[s] = 0",
        ]
        if self.nothing_if_all_equal:
            lines += [
                "low = q[0]",
                "high = q[0]",
                "for s in range(1, N):",
                "    low = min(low, q[s])",
                "    high = max(high, q[s])",
                "if low == high:",
                "    return",
            ]
        allowed = f"{elig}{args} != 0" if elig else "True"
        floor = f"x >= {self.minimum} and " if self.minimum is not None else ""
        # the awards depend on the number of seats: one branch per distinct plan
        by_plan: dict[tuple[tuple[tuple[int, ...], bool, tuple[bool, ...]], ...], list[int]] = {}
        for n in w.seat_counts:
            by_plan.setdefault(tuple(self._plan(n)), []).append(n)
        for b, (plan, ns) in enumerate(by_plan.items()):
            lines.append(("if " if b == 0 else "elif ") + " or ".join(f"N == {n}" for n in ns) + ":")
            lines += ["    " + line for line in self._kernel_plan(w, plan, args, allowed, floor, mult)] or ["    pass"]
        return "\n".join(lines) + "\n"

    def _kernel_plan(
        self,
        w: KernelWriter,
        plan: tuple[tuple[tuple[int, ...], bool, tuple[bool, ...]], ...],
        args: str,
        allowed: str,
        floor: str,
        mult: str,
    ) -> list[str]:
        """The kernel lines awarding ``plan`` (most and/or least) on the quantities ``q``."""
        lines: list[str] = []
        for awards, highest, splits in plan:
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
            if any(splits):  # whether a tie for each place splits its points
                split = "" if all(splits) else f"{w.array([int(x) for x in splits])}[place] and "
                lines += [
                    f"        if {split}rec > 1:",
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
        parts.append(self._ties_words())
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

    def _ties_words(self) -> str:
        """How ties are handled, in plain words: one sentence for the whole rule when
        every place is handled alike."""
        handled = {True: "split the points, dropping the remainder", False: "each score in full"}
        sides = [
            (which, ties or (self.split,), max([len(a.default), *map(len, a.by_seats.values())]))
            for which, ties, a in zip(("most", "fewest"), self.place_ties, (self.most, self.least))
            if a.default or a.by_seats
        ]
        flags = {flag for _, ties, _ in sides for flag in ties}
        if len(flags) <= 1:
            return f"Tied players {handled[next(iter(flags)) if flags else self.split]}."
        out = []
        for which, ties, places in sides:
            if len(set(ties)) == 1:
                out.append(f"players tied for the {which} {handled[ties[0]]}")
                continue
            by_place = ", ".join(
                f"{_ordinal(p + 1)} place{' and after' if p == len(ties) - 1 < places - 1 else ''} "
                f"{'split (remainder dropped)' if flag else 'in full'}"
                for p, flag in enumerate(ties)
            )
            out.append(f"players tied for the {which}: {by_place}")
        text = "; ".join(out)
        return text[0].upper() + text[1:] + "."


def _ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _place_ties(
    spec: Any, awards: Mapping[str, Awards], ctx: RuleContext
) -> tuple[tuple[bool, ...], tuple[bool, ...]] | None:
    """``ties: {most: ..., least: ...}`` as splits flags by place; each handling given for
    an award list the rule lacks, or for a place it never awards, is a located error
    (then None)."""
    if not isinstance(spec, dict):
        return (), ()
    out: list[tuple[bool, ...]] = []
    wrong = False
    for key in ("most", "least"):
        given = spec.get(key)
        if given is None:
            out.append(())
            continue
        places = max([len(awards[key].default), *map(len, awards[key].by_seats.values())])
        if places == 0:
            ctx.error(
                ("ties", key),
                f"ties are given for '{key}' but the rule awards nothing for the "
                f"{'most' if key == 'most' else 'fewest'} (add '{key}:' or remove this)",
                key=True,
            )
            wrong = True
        flags = tuple(t == "split" for t in ([given] if isinstance(given, str) else given))
        if not isinstance(given, str) and 0 < places < len(flags):
            ctx.error(
                ("ties", key, places),
                f"ties for place {places + 1} of '{key}', but '{key}' awards {places} "
                f"place{'s' if places > 1 else ''} at most",
            )
            wrong = True
        out.append(flags)
    return None if wrong else (out[0], out[1])


def _unreachable_places(spec: Mapping[str, Any], ctx: RuleContext) -> None:
    """A warning for awards to more places than a game has seats: they are never given."""
    seats = ctx.seat_counts()
    if seats is None:
        return
    for key in ("most", "least"):
        given = spec.get(key)
        lists: list[tuple[tuple[str | int, ...], list[Any], int]] = []  # (where, awards, most seats they meet)
        if isinstance(given, list):
            lists.append(((key,), given, seats.stop - 1))
        elif isinstance(given, dict):
            keyed = {n for count in given.get("players") or {} for n in parse_player_key(count)}
            rest = [n for n in seats if n not in keyed]  # the seat counts the default is for
            if isinstance(given.get("default"), list) and rest:
                lists.append(((key, "default"), given["default"], max(rest)))
            for count, values in (given.get("players") or {}).items():
                in_game = [n for n in parse_player_key(count) if n in seats]
                if isinstance(values, list) and in_game:
                    lists.append(((key, "players", count), values, max(in_game)))
        for path, values, most_seats in lists:
            if len(values) > most_seats:
                ctx.warn(
                    path + (most_seats,),
                    f"{plural(len(values), 'place')} awarded, but a game scores at most {plural(most_seats, 'seat')}:"
                    f" the awards from the {_ordinal(most_seats + 1)} place on are never given",
                )


def _never_negative(quantity: Quantity | None) -> bool:
    """Whether ``quantity`` counts cards and is never below 0 (an expression may be)."""
    form = quantity.form if quantity is not None else ()
    if not form:
        return False
    if form[0] in ("count", "distinct"):
        return True
    return form[0] == "sum" and all(int(form[2][i]) >= 0 for i in form[1])


def _award_lists(spec: Mapping[str, Any], key: str) -> list[Any]:
    """The award lists ``spec`` gives under ``key`` (``most``, ``least``) as written: the
    list, or its default (none written: no award) and each player count's."""
    given = spec.get(key)
    if isinstance(given, dict):
        return [given.get("default", [])] + list((given.get("players") or {}).values())
    return [given] if key in spec else []


def _awards_nothing(spec: Mapping[str, Any], ctx: RuleContext) -> None:
    """A warning for a majority whose every award list, for the most and the fewest and
    at every number of players, is empty or zeros: it never scores."""
    if ctx.tuned(("most",)) or ctx.tuned(("least",)):
        return  # a tune mark's start of 0: the search may give it points
    lists = _award_lists(spec, "most") + _award_lists(spec, "least")
    if lists and all(isinstance(v, list) and not any(isinstance(x, int) and x for x in v) for v in lists):
        ctx.warn(
            ("most" if "most" in spec else "least",),
            "no place is worth any points, for the most or the fewest, at any number of players: this rule never scores",
            key=True,
        )


def _zero_takes_a_place(spec: Mapping[str, Any], quantity: Quantity | None, ctx: RuleContext) -> None:
    """A warning for points below first place for the most with neither ``minimum`` nor
    ``eligible``: a player with 0 (none of the cards) takes part and can win them, where
    the rulebooks' majorities (maki) leave such a player out. Only for a quantity of cards
    that is never below 0 (a count, a sum of values none below 0, distinct cards), where
    ``minimum: 0`` keeps them in, changes no score and silences it."""
    if "minimum" in spec or "eligible" in spec or not _never_negative(quantity):
        return
    for values in _award_lists(spec, "most"):
        if not isinstance(values, list):
            continue
        place = next((i for i, v in enumerate(values) if i and isinstance(v, int) and v), None)
        if place is not None:
            ctx.warn(
                ("most",),
                f"the {_ordinal(place + 1)} place ({plural(values[place], 'point')}) is awarded with no 'minimum':"
                " a player with 0 takes part and can take it (write 'minimum: 1' to leave such players out,"
                " as maki does, or 'minimum: 0' to keep them in)",
                key=True,
            )
            return


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Majority | None:
    quantity = ctx.quantity(("quantity",), spec["quantity"])
    for key in ("most", "least"):
        awards = spec.get(key)
        if isinstance(awards, dict) and isinstance(awards.get("players"), dict):
            ctx.seat_keys((key, "players"), awards["players"])
    eligible = ctx.quantity(("eligible",), spec["eligible"], boolean=True) if "eligible" in spec else None
    multiplier = ctx.quantity(("multiplier",), spec["multiplier"]) if "multiplier" in spec else None
    awards = {key: Awards.from_spec(spec.get(key)) for key in ("most", "least")}
    _unreachable_places(spec, ctx)
    _zero_takes_a_place(spec, quantity, ctx)
    _awards_nothing(spec, ctx)
    ties = spec.get("ties", "split")
    place_ties = _place_ties(ties, awards, ctx)
    awards = {key: a.within(ctx.seat_counts()) for key, a in awards.items()}  # (as written above, for the checks)
    if (
        quantity is None
        or place_ties is None
        or ("eligible" in spec and eligible is None)
        or ("multiplier" in spec and multiplier is None)
    ):
        return None
    return Majority(
        id=spec["id"],
        when=spec["when"],
        quantity=quantity,
        most=awards["most"],
        least=awards["least"],
        split=ties == "split" if isinstance(ties, str) else True,
        tie_skips_places=spec.get("tie_skips_places", True),
        minimum=spec.get("minimum"),
        eligible=eligible,
        multiplier=multiplier,
        nothing_if_all_equal=spec.get("all_equal", "score") == "nothing",
        place_ties=place_ties,
    )
