"""The scoring catalogue: a handful of general primitives, each a parameterised piece.

Every rule of every ruleset is one of these kinds, built from its data by a small
builder found in :data:`BUILDERS` (kind name -> builder), in the manner of
jsonschema's keyword table. Variants are data, not subclasses: Sushi Go!'s maki,
its pudding and Sushi Go Party!'s maki are three settings of :class:`Majority`.

A rule's job is one method, ``score(tableau) -> [points per seat]`` (and
``score_seat(tableau, seat)``, the same for one seat, which bots call often; a
rule whose points come from a seat's own cards alone says ``own_cards_only`` and offers
``score_row(counts, cards)``), plus ``describe()`` for people, and ``reads`` (the card types it depends on, or None
for any) so a bot can skip rules a move cannot change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import attrs

from ruledraft.errors import ScoringError
from ruledraft.language.catalogue import Catalogue
from ruledraft.language.quantity import (
    Quantity,
    compile_quantity,
    count_fn,
    selector_indices,
    selector_words,
    weighted_all_fn,
)
from ruledraft.tableau import Tableau

# --------------------------------------------------------------------------- helpers


def split_evenly(amount: int, ways: int) -> int:
    """``amount`` shared by ``ways`` players, the remainder dropped (toward zero)."""
    share = abs(amount) // ways
    return share if amount >= 0 else -share


def parse_player_key(key: str) -> range:
    """``"2"`` -> range(2, 3); ``"6-8"`` -> range(6, 9)."""
    if "-" in key:
        lo, hi = key.split("-", 1)
        return range(int(lo), int(hi) + 1)
    return range(int(key), int(key) + 1)


@attrs.frozen
class Awards:
    """Points for 1st, 2nd, ... place, which may depend on the number of seats scored."""

    default: tuple
    by_seats: Mapping[int, tuple] = attrs.field(factory=dict)

    @classmethod
    def from_spec(cls, spec) -> Awards:
        if spec is None:
            return cls(())
        if isinstance(spec, list):
            return cls(tuple(spec))
        by: dict[int, tuple] = {}
        for key, values in (spec.get("players") or {}).items():
            for n in parse_player_key(key):
                by[n] = tuple(values)
        return cls(tuple(spec.get("default", ())), by)

    def for_seats(self, n: int) -> tuple:
        return self.by_seats.get(n, self.default)

    def words(self) -> str:
        def fmt(v: tuple) -> str:
            return " / ".join(f"{p:+d}" if p < 0 else str(p) for p in v) if v else "nothing"

        text = fmt(self.default)
        runs: list[list] = []  # [first, last, awards] for runs of player counts with the same awards
        for n, v in sorted(self.by_seats.items()):
            if runs and runs[-1][1] == n - 1 and runs[-1][2] == v:
                runs[-1][1] = n
            else:
                runs.append([n, n, v])
        for first, last, v in runs:
            players = str(first) if first == last else f"{first}-{last}"
            text += f"; with {players} players: {fmt(v)}"
        return text


# --------------------------------------------------------------------------- rules

#: most distinct quantity lists a majority remembers the award of (each entry is a
#: few small tuples: this bounds the memory at a few megabytes per rule)
AWARD_MEMO_SIZE = 1 << 14


class OwnCardsRule:
    """A rule whose points for a seat come from that seat's cards alone: it defines
    ``score_row(counts, cards)`` and gets ``score_seat`` from it."""

    __slots__ = ()
    own_cards_only = True

    def score_seat(self, t: Tableau, seat: int) -> int:
        return self.score_row(t.counts[seat], t.cards[seat])


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Sets(OwnCardsRule):
    """Every complete group of ``size`` matching cards scores ``points`` (tempura, sashimi).

    With ``distinct`` the cards are instead split into sets of different card
    types, largest first, and a set of k types scores ``table[k]`` (onigiri).
    """

    id: str
    when: str
    indices: tuple
    size: int
    points: int
    table: tuple = ()
    distinct: bool = False
    words: str = ""

    @property
    def reads(self) -> frozenset:
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
        for row in t.counts:
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

    def describe(self) -> str:
        if self.distinct:
            return f"Sets of different {self.words}: a set of 1, 2, 3... different cards scores {', '.join(map(str, self.table[1:]))}."
        return f"Every complete set of {self.size} {self.words} scores {self.points}; incomplete sets score 0."


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Table:
    """A quantity looked up in a table, capped at the last entry (dumplings: 0, 1, 3, 6, 10, 15)."""

    id: str
    when: str
    quantity: Quantity
    points: tuple
    #: when the quantity is just the count of one card type: its index (a fast path)
    single_card: int | None = None

    @property
    def reads(self) -> frozenset | None:
        return self.quantity.reads

    def score(self, t: Tableau) -> list[int]:
        pts, last = self.points, len(self.points) - 1
        if self.single_card is not None:
            i = self.single_card
            return [pts[row[i] if row[i] < last else last] for row in t.counts]
        q = self.quantity.fn
        return [pts[min(max(q(t, s), 0), last)] for s in range(t.num_seats)]

    @property
    def own_cards_only(self) -> bool:
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

    def describe(self) -> str:
        steps = ", ".join(f"{n}: {p}" for n, p in enumerate(self.points))
        return f"By the {self.quantity.words}: {steps} (and {self.points[-1]} for more)."


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class PerCard(OwnCardsRule):
    """Each matching card scores its own value (nigiri)."""

    id: str
    when: str
    indices: tuple
    values: tuple  # per card index
    words: str
    value_words: str = ""
    pairs: tuple = attrs.field(init=False, eq=False, repr=False)
    all_values: Callable = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        pairs = tuple((i, self.values[i]) for i in self.indices if self.values[i])
        object.__setattr__(self, "pairs", pairs)
        object.__setattr__(self, "all_values", weighted_all_fn(self.indices, self.values))

    @property
    def reads(self) -> frozenset:
        return frozenset(self.indices)

    def score(self, t: Tableau) -> list[int]:
        return self.all_values(t)

    def score_row(self, row: list[int], seq: list[int]) -> int:
        return sum([row[i] * v for i, v in self.pairs])

    def describe(self) -> str:
        values = sorted({self.values[i] for i in self.indices})
        if len(values) == 1:
            return f"Each of {self.words} scores {values[0]}."
        return f"Each of {self.words} scores its value: {self.value_words}."


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Modifier(OwnCardsRule):
    """A card that changes a later card: the next target played after it goes onto the
    oldest modifier with room and scores ``factor`` times (wasabi). This rule scores the
    extra ``(factor - 1) x value``; the target's own rule scores its base value."""

    id: str
    when: str
    card: int
    targets: tuple
    extra: tuple  # per card index: (factor - 1) * value
    capacity: int
    factor: int
    words: str
    target_set: frozenset = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "target_set", frozenset(self.targets))

    @property
    def reads(self) -> frozenset:
        return frozenset(self.targets) | {self.card}

    def score(self, t: Tableau) -> list[int]:
        score_row, mod = self.score_row, self.card
        return [score_row(row, seq) if row[mod] else 0 for row, seq in zip(t.counts, t.cards)]

    def score_row(self, row: list[int], seq: list[int]) -> int:
        mod = self.card
        if not row[mod]:
            return 0
        cap, extra, targets = self.capacity, self.extra, self.target_set
        room = bonus = 0
        for c in seq:
            if c == mod:
                room += cap
            elif room and c in targets:
                room -= 1
                bonus += extra[c]
        return bonus

    def loaded_and_waiting(self, seq: Sequence[int]) -> tuple[int, int]:
        """How many of the modifier cards in ``seq`` (one seat's cards in play order)
        are full (every place taken by a target) and how many still have room."""
        mod, cap, targets = self.card, self.capacity, self.target_set
        rooms: list[int] = []
        for c in seq:
            if c == mod:
                rooms.append(cap)
            elif c in targets:
                for i, room in enumerate(rooms):  # the oldest modifier with room
                    if room:
                        rooms[i] = room - 1
                        break
        waiting = sum(1 for room in rooms if room)
        return len(rooms) - waiting, waiting

    def describe(self) -> str:
        return self.words


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Majority:
    """Rank seats by a quantity and award places.

    Settings (all data): ``most`` / ``least`` awards per place (may depend on the
    number of seats); ``ties`` ``split`` (shared, remainder dropped) or ``full``;
    ``tie_skips_places`` (a tie for a place uses up the places after it);
    ``minimum`` (a seat below it takes no part); ``eligible`` (a seat that fails it
    still counts in the ranking but receives nothing); ``multiplier`` (award times a
    quantity); ``all_equal`` ``nothing`` (everyone level: nobody scores).
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
    #: number of seats -> the non-empty award lists, most first (filled on first use)
    _plans: dict[int, list] = attrs.field(init=False, factory=dict, eq=False, repr=False)
    #: quantities -> points, when the award depends on the quantities alone (no
    #: ``eligible`` or ``multiplier`` reading the table); bounded by AWARD_MEMO_SIZE
    _memo: dict | None = attrs.field(init=False, default=None, eq=False, repr=False)
    _values: Callable = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        if self.eligible is None and self.multiplier is None:
            object.__setattr__(self, "_memo", {})
        q = self.quantity
        object.__setattr__(self, "_values", q.all_fn if q.all_fn is not None else q.values)

    @property
    def reads(self) -> frozenset | None:
        parts = [self.quantity] + [q for q in (self.eligible, self.multiplier) if q is not None]
        if any(p.reads is None for p in parts):
            return None
        return frozenset().union(*(p.reads for p in parts))

    def quantities(self, t: Tableau) -> list[int]:
        """The ranked quantity of every seat."""
        return self.quantity.values(t)

    def score(self, t: Tableau) -> list[int]:
        return self.award(self._values(t), t)

    def award(self, q: list[int], t: Tableau) -> list[int]:
        """Points per seat for these quantities (``t`` is read only by ``eligible`` and ``multiplier``)."""
        memo = self._memo
        if memo is None:
            return self._award(q, t)
        key = tuple(q)  # a few seats' small counts: the same ones come back again and again
        pts = memo.get(key)
        if pts is None:
            pts = self._award(q, t)
            if len(memo) < AWARD_MEMO_SIZE:
                memo[key] = pts
        return pts[:]

    def _award(self, q: list[int], t: Tableau) -> list[int]:
        n = len(q)
        if self.nothing_if_all_equal and min(q) == max(q):
            return [0] * n
        plans = self._plans.get(n)
        if plans is None:
            plans = self._plans[n] = [
                (awards, highest)
                for awards, highest in ((self.most.for_seats(n), True), (self.least.for_seats(n), False))
                if awards
            ]
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

    own_cards_only = False

    def score_seat(self, t: Tableau, seat: int) -> int:
        return self.score(t)[seat]

    def score_seat_changed(self, t: Tableau, seat: int, base_q: list[int]) -> int:
        """``score_seat`` when only ``seat``'s cards differ from those ``base_q`` was computed on."""
        q = base_q[:]
        q[seat] = self.quantity.fn(t, seat)
        return self.award(q, t)[seat]

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


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Expression:
    """Points given by an expression, evaluated for each seat."""

    id: str
    when: str
    quantity: Quantity
    text: str

    @property
    def reads(self) -> frozenset | None:
        return self.quantity.reads

    def score(self, t: Tableau) -> list[int]:
        f = self.quantity.fn
        return [f(t, s) for s in range(t.num_seats)]

    own_cards_only = False  # an expression may read the number of players or the round

    def score_seat(self, t: Tableau, seat: int) -> int:
        return self.quantity.fn(t, seat)

    def describe(self) -> str:
        return f"Points: `{self.text}`."


# --------------------------------------------------------------------------- builders


@attrs.frozen
class BuildContext:
    """What a builder may use: the cards, and a way to compile a located expression."""

    catalogue: Catalogue
    #: compile_expr(path_suffix, text, boolean=False) -> CompiledExpression
    compile_expr: Callable[..., object]


def _quantity(ctx: BuildContext, spec, key: str, boolean: bool = False) -> Quantity:
    return compile_quantity(
        spec,
        ctx.catalogue,
        lambda text: ctx.compile_expr((key,) if isinstance(spec, str) else (key, "expr"), text, boolean=boolean),
    )


def _value_vector(spec, catalogue: Catalogue) -> tuple:
    if isinstance(spec, int):
        return (spec,) * catalogue.size
    return catalogue.attribute_vector(spec["attribute"])


def build_sets(spec: Mapping, ctx: BuildContext):
    cat = ctx.catalogue
    words = selector_words(spec["cards"], cat)
    idx = selector_indices(spec["cards"], cat)
    if spec.get("distinct"):
        return Sets(spec["id"], spec["when"], idx, 1, 0, tuple(spec["points"]), True, words)
    return Sets(spec["id"], spec["when"], idx, spec["size"], spec["points"], (), False, words)


def build_table(spec: Mapping, ctx: BuildContext):
    if "quantity" in spec:
        q = _quantity(ctx, spec["quantity"], "quantity")
    else:
        idx = selector_indices(spec["cards"], ctx.catalogue)
        q = Quantity(
            count_fn(idx), frozenset(idx), True, f"number of {selector_words(spec['cards'], ctx.catalogue)}", True
        )
        if len(idx) == 1:
            return Table(spec["id"], spec["when"], q, tuple(spec["points"]), idx[0])
    return Table(spec["id"], spec["when"], q, tuple(spec["points"]))


def build_per_card(spec: Mapping, ctx: BuildContext):
    cat = ctx.catalogue
    idx = selector_indices(spec["cards"], cat)
    values = _value_vector(spec["value"], cat)
    value_words = ", ".join(f"{cat.cards[i].name} {values[i]}" for i in idx)
    return PerCard(spec["id"], spec["when"], idx, values, selector_words(spec["cards"], cat), value_words)


def build_modifier(spec: Mapping, ctx: BuildContext):
    cat = ctx.catalogue
    card = cat.index_of(spec["card"])
    targets = tuple(i for i in selector_indices(spec["targets"], cat) if i != card)
    values = _value_vector(spec["value"], cat)
    factor = spec["factor"]
    extra = tuple(v * (factor - 1) for v in values)
    capacity = spec.get("capacity", 1)
    name = cat.cards[card].name
    words = (
        f"When one of {selector_words(spec['targets'], cat)} is played while you have a {name} with room on it, "
        f"it goes onto the oldest such {name} ({capacity} per {name}) and scores {factor} times its value "
        f"(this rule counts the extra {factor - 1}x). Only cards played after the {name} count; a {name} alone scores 0."
    )
    return Modifier(spec["id"], spec["when"], card, targets, extra, capacity, factor, words)


def build_majority(spec: Mapping, ctx: BuildContext):
    return Majority(
        id=spec["id"],
        when=spec["when"],
        quantity=_quantity(ctx, spec["quantity"], "quantity"),
        most=Awards.from_spec(spec.get("most")),
        least=Awards.from_spec(spec.get("least")),
        split=spec.get("ties", "split") == "split",
        tie_skips_places=spec.get("tie_skips_places", True),
        minimum=spec.get("minimum"),
        eligible=_quantity(ctx, spec["eligible"], "eligible", boolean=True) if "eligible" in spec else None,
        multiplier=_quantity(ctx, spec["multiplier"], "multiplier") if "multiplier" in spec else None,
        nothing_if_all_equal=spec.get("all_equal", "score") == "nothing",
    )


def build_expression(spec: Mapping, ctx: BuildContext):
    expr = ctx.compile_expr(("expr",), spec["expr"])
    q = Quantity(expr.fn, expr.reads, expr.is_local, f"`{spec['expr']}`", steps=expr.steps)
    return Expression(spec["id"], spec["when"], q, spec["expr"])


#: kind name -> builder(spec, context) -> rule
BUILDERS: dict[str, Callable[[Mapping, BuildContext], object]] = {
    "sets": build_sets,
    "table": build_table,
    "per_card": build_per_card,
    "modifier": build_modifier,
    "majority": build_majority,
    "expression": build_expression,
}


def build_rule(spec: Mapping, ctx: BuildContext):
    """Build one scoring rule from its (validated) spec."""
    spec = dict(spec)
    spec.setdefault("when", "round_end")
    return BUILDERS[spec["kind"]](spec, attrs.evolve(ctx, compile_expr=_naming_rule(ctx.compile_expr, spec["id"])))


def _naming_rule(compile_expr: Callable[..., object], rule_id: str) -> Callable[..., object]:
    """``compile_expr`` whose expressions name ``rule_id`` in a :class:`ScoringError`.

    Only an expression that can fail (a division by something that may be 0) gets
    the extra call; every other one is left as compiled.
    """

    def compile_named(*args, **kwargs):
        compiled = compile_expr(*args, **kwargs)
        if not getattr(compiled, "may_fail", False):
            return compiled
        inner = compiled.fn

        def fn(t, s):
            try:
                return inner(t, s)
            except ScoringError as e:
                raise e.for_rule(rule_id) from None

        return attrs.evolve(compiled, fn=fn)

    return compile_named


def score_rules(rules: Sequence, t: Tableau) -> tuple[list[int], dict[str, list[int]]]:
    """Total points per seat, and the points of each rule by id."""
    total = [0] * t.num_seats
    by_rule: dict[str, list[int]] = {}
    for rule in rules:
        pts = rule.score(t)
        by_rule[rule.id] = pts
        for s, p in enumerate(pts):
            total[s] += p
    return total, by_rule
