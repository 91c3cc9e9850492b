"""The ``boost`` kind: a card that makes the next target card count more than once for
every rule -- its count, its icons, what sets, tables and majorities read.

A ``modifier`` (wasabi) multiplies the points of the card it lands on; a boost changes
what the *other rules read*: a boosted card is ``factor`` cards of its type on the
table for every rule scored with it (the rules of the boost's ``when``). Nothing else
changes: rules keep their code, they are given a table on which the boosted card
appears ``factor`` times in a row (``Tableau.echoes`` marks the extra copies, so a
modifier lets them ride with their card: a boosted nigiri on wasabi is two nigiri on
one wasabi, both tripled).

Points: every other rule keeps scoring the table as played; this rule scores the
difference its boost makes to all of them together (a set completed by the second
copy, a table read one row further, a majority won), as a modifier scores its extra.
So a score sheet shows the boost's worth on its own line, and the totals are those of
the rules on the boosted table. In the balance figures the boost's points belong to
the boost cards on the seat's table (``credited``); the other rules' points are shared
among the cards as played, a boosted card counted once. Several boosts act in ruleset order, each on the table
the earlier ones left; each scores what it added.

The pairing of boost cards and targets is :mod:`.pairing`'s (capacity, ``same``,
cards turned face down). A race (a rule scored during the round) is not boosted: its
places are taken turn by turn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.kinds.pairing import (
    holders_of,
    kernel_echoes,
    kernel_pairing,
    pair,
    same_colour,
    same_words,
    targets_besides,
    with_article,
)
from ruledraft.language.quantity import one_of
from ruledraft.language.rule import KernelWriter, Rule, RuleBase
from ruledraft.tableau import Tableau

NAME = "boost"

#: its own keys; ScoringKind.full_schema adds `type: object`, no other keys, and id, kind, when, description
SCHEMA: dict[str, Any] = {
    "title": "Boost rule",
    "description": "A card that makes the next target card played after it count factor times for every "
    "other rule: its count, its attributes, the sets, tables and majorities it is in. Scores the "
    "difference this makes to the other rules.",
    "required": ["card", "targets", "factor"],
    "properties": {
        "card": {
            "title": "Boost card",
            "description": "The card that boosts (or several: a card selector).",
            "$ref": "#/$defs/selector",
        },
        "targets": {"title": "Targets", "description": "The cards it can boost.", "$ref": "#/$defs/selector"},
        "factor": {
            "title": "Factor",
            "description": "How many cards a boosted card counts as (2: double).",
            "type": "integer",
            "minimum": 2,
            "maximum": 10,
        },
        "capacity": {
            "title": "Capacity",
            "description": "How many target cards one boost card can take.",
            "type": "integer",
            "minimum": 1,
            "maximum": 100,
            "default": 1,
        },
        "same": {
            "title": "Same attribute",
            "description": "Targets must share this attribute's value with the boost card they go onto "
            "(same: colour); a boost card without it takes the value of the first target it takes.",
            "$ref": "#/$defs/identifier",
        },
    },
}


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Boost(RuleBase):
    """The next ``capacity`` targets played after a boost card count ``factor`` times
    for every other rule of its ``when``; this rule scores the difference."""

    id: str
    when: str
    holders: tuple[int, ...]
    targets: tuple[int, ...]
    factor: int
    capacity: int
    colour: tuple[int | None, ...] | None
    words: str
    #: every rule of the ruleset, filled as the build goes on (read when scoring only)
    everything: Sequence[Rule] = attrs.field(repr=False)
    holder_set: frozenset[int] = attrs.field(init=False, eq=False, repr=False)
    target_set: frozenset[int] = attrs.field(init=False, eq=False, repr=False)
    #: (the boosts before this one, the rules it changes), worked out when first asked
    _links: list[tuple[tuple[Boost, ...], tuple[Rule, ...]]] = attrs.field(init=False, eq=False, repr=False)
    #: :attr:`reads`, worked out when first asked (each boost's reads take in the earlier
    #: boosts' reads: asked afresh each time, twenty boosts were a million calls)
    _reads: list[frozenset[int] | None] = attrs.field(init=False, eq=False, repr=False)

    holds_cards = True
    kernel_reads_turned = True

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "holder_set", frozenset(self.holders))
        object.__setattr__(self, "target_set", frozenset(self.targets))
        object.__setattr__(self, "_links", [])
        object.__setattr__(self, "_reads", [])

    # ------------------------------------------------------------------ links

    def links(self) -> tuple[tuple[Boost, ...], tuple[Rule, ...]]:
        """The boosts of the same ``when`` before this one (their tables come first), and
        the rules this one changes: the other rules of its ``when`` that read a target
        (a race excepted)."""
        if not self._links:
            earlier: list[Boost] = []
            changed: list[Rule] = []
            mine = False
            for rule in self.everything:
                if rule.when != self.when:
                    continue
                if isinstance(rule, Boost):
                    mine = mine or rule is self
                    if not mine:
                        earlier.append(rule)
                    continue
                if rule.turn_scoring is not None:
                    continue
                reads = rule.reads
                if reads is None or reads & self.target_set:
                    changed.append(rule)
            self._links.append((tuple(earlier), tuple(changed)))
        return self._links[0]

    @property
    def changed_rules(self) -> tuple[Rule, ...]:
        return self.links()[1]

    @property
    def reads(self) -> frozenset[int] | None:
        if not self._reads:
            self._reads.append(self._read_cards())
        return self._reads[0]

    def _read_cards(self) -> frozenset[int] | None:
        reads = set(self.holder_set | self.target_set)
        earlier, changed = self.links()
        for rule in (*earlier, *changed):
            more = rule.reads
            if more is None:
                return None
            reads |= more
        return frozenset(reads)

    @property
    def credited(self) -> frozenset[int]:
        """The cards this rule's points belong to in the balance figures: the boost cards
        (the lab shares a rule's points among these when a rule names them)."""
        return self.holder_set

    @property
    def own_cards_only(self) -> bool:  # type: ignore[override]
        earlier, changed = self.links()
        return all(r.own_cards_only for r in changed)

    # ------------------------------------------------------------------ the table it leaves

    def boosted(self, t: Tableau) -> Tableau:
        """``t`` with this boost's targets counted ``factor`` times: each boosted card
        followed by ``factor - 1`` echoes of it (its echoes too, when an earlier boost
        left some), ``counts`` counting them all, ``turned`` moved along."""
        counts_out: list[list[int]] = []
        cards_out: list[list[int]] = []
        echoes_out: list[frozenset[int]] = []
        turned_out: list[dict[int, tuple[int, int]]] | None = None if t.turned is None else []
        more = self.factor - 1
        for s, seq in enumerate(t.cards):
            turned = None if t.turned is None else t.turned[s]
            echoes = None if t.echoes is None else t.echoes[s]
            found = pair(
                seq,
                self.holder_set,
                self.target_set,
                self.capacity,
                turned=turned,
                echoes=echoes,
                colour=self.colour,
            )
            boosted = {q for _, q in found.pairs}
            row = t.counts[s][:]
            out: list[int] = []
            new_echoes: set[int] = set()
            where: list[int] = []  # old position -> new position
            for q, c in enumerate(seq):
                where.append(len(out))
                if echoes and q in echoes:
                    new_echoes.add(len(out))
                out.append(c)
                if q in boosted:
                    for _ in range(more):
                        new_echoes.add(len(out))
                        out.append(c)
                    row[c] += more
            where.append(len(out))
            counts_out.append(row)
            cards_out.append(out)
            echoes_out.append(frozenset(new_echoes))
            if turned_out is not None:
                assert turned is not None
                turned_out.append({where[q]: (was, where[min(stamp, len(seq))]) for q, (was, stamp) in turned.items()})
        return Tableau(counts_out, cards_out, t.round, turned_out, echoes_out)

    def tables(self, t: Tableau) -> tuple[Tableau, Tableau]:
        """The table before this boost (after the earlier ones) and after it."""
        before = t
        for boost in self.links()[0]:
            before = boost.boosted(before)
        return before, self.boosted(before)

    def as_read(self, t: Tableau) -> Tableau:
        """The table the rules it changes read: ``t`` after the earlier boosts and this one."""
        return self.tables(t)[1]

    # ------------------------------------------------------------------ scoring

    def score(self, t: Tableau) -> list[int]:
        before, after = self.tables(t)
        out = [0] * t.num_seats
        for rule in self.changed_rules:
            for s, (b, a) in enumerate(zip(rule.score(before), rule.score(after))):
                out[s] += a - b
        return out

    def score_seat(self, t: Tableau, seat: int) -> int:
        if not self.own_cards_only:
            return self.score(t)[seat]
        return self.score(t.of_seat(seat))[0]

    def score_row(self, row: list[int], seq: list[int]) -> int:
        return self.score(Tableau([row], [seq]))[0]

    def loaded_and_waiting(
        self, seq: Sequence[int], turned: Mapping[int, tuple[int, int]] | None = None
    ) -> tuple[int, int]:
        """How many boost cards in ``seq`` are full and how many still have room (of
        those face up: ``turned``, the seat's cards turned face down)."""
        rooms = pair(seq, self.holder_set, self.target_set, self.capacity, turned=turned, colour=self.colour).rooms
        waiting = sum(1 for room in rooms if room)
        return len(rooms) - waiting, waiting

    def counted_as(self, t: Tableau) -> list[tuple[tuple[int, int], ...]]:
        """Per seat, (position in its cards as played, how many cards it counts as) of
        every card boosted (by this boost and the earlier ones): what ``play`` shows."""
        out = []
        final = self.tables(t)[1]
        for s, seq in enumerate(t.cards):
            echoes = final.echoes[s] if final.echoes is not None else frozenset()
            marks: list[tuple[int, int]] = []
            q = -1
            for p, _c in enumerate(final.cards[s]):
                if p in echoes:
                    marks[-1] = (marks[-1][0], marks[-1][1] + 1)
                else:
                    q += 1
                    marks.append((q, 1))
            out.append(tuple(m for m in marks if m[1] > 1))
            assert q == len(seq) - 1
        return out

    # ------------------------------------------------------------------ kernel

    def kernel(self, w: KernelWriter) -> str | None:
        """:meth:`score`: the table before this boost (the earlier boosts applied) and after
        it, each changed rule scored on both by its own part, the differences summed. A
        boosted table carries its echoes in ``seq`` (see :class:`KernelWriter`)."""
        earlier, changed = self.links()
        parts = []
        for rule in changed:
            name = w.rule(rule)
            if name is None:
                return None
            parts.append(name)
        steps = [boost.kernel_apply(w) for boost in (*earlier, self)]
        lines = ["c0 = counts", "s0 = seq", "l0 = lens"]
        for i, step in enumerate(steps):
            lines.append(f"c{i + 1}, s{i + 1}, l{i + 1} = {step}(c{i}, s{i}, l{i})")
        b, a = len(earlier), len(earlier) + 1
        lines += [
            "before = np.zeros(N, np.int64)",
            "after = np.zeros(N, np.int64)",
            "for s in range(N):",
            "    out[s] = 0",
        ]
        for name in parts:
            lines += [
                f"{name}(c{b}, s{b}, l{b}, rnd, before)",
                f"{name}(c{a}, s{a}, l{a}, rnd, after)",
                "for s in range(N):",
                "    out[s] += after[s] - before[s]",
            ]
        return "\n".join(lines) + "\n"

    def kernel_apply(self, w: KernelWriter) -> str:
        """:meth:`boosted` as a kernel helper ``(counts, seq, lens) -> (counts, seq, lens)``:
        the new table, its echoes in rows ``N..2N-1`` of its ``seq``, and the cards turned
        face down (rows ``2N..4N-1``, when ``seq`` has them) moved along."""
        pairing = kernel_pairing(w, self.holder_set, self.target_set, self.capacity, self.colour, w.card_types)
        more = self.factor - 1
        body = [
            "N = lens.shape[0]",
            "L = seq.shape[1]",
            "turned = seq.shape[0] > 2 * N",
            "c2 = counts.copy()",
            f"s2 = np.zeros((4 * N if turned else 2 * N, L * {self.factor}), np.int64)",
            "l2 = np.zeros(N, np.int64)",
            "echo = np.zeros(L, np.int64)",
            "paired = np.zeros(L, np.int64)",
            "where = np.zeros(L + 1, np.int64)  # old position -> new position",
            "for s in range(N):",
            *kernel_echoes(),
            f"    {pairing}(seq, lens[s], s, N, echo, paired)",
            "    o = 0",
            "    for q in range(lens[s]):",
            "        where[q] = o",
            "        c = seq[s, q]",
            "        s2[s, o] = c",
            "        s2[N + s, o] = echo[q]",
            "        o += 1",
            "        if paired[q] >= 0:",
            f"            for _ in range({more}):",
            "                s2[s, o] = c",
            "                s2[N + s, o] = 1",
            "                o += 1",
            f"            c2[s, c] += {more}",
            "    where[lens[s]] = o",
            "    l2[s] = o",
            "    if turned:",
            "        for q in range(lens[s]):",
            "            if seq[2 * N + s, q] > 0:",
            "                s2[2 * N + s, where[q]] = seq[2 * N + s, q]",
            "                s2[3 * N + s, where[q]] = where[min(seq[3 * N + s, q], lens[s])]",
            "return c2, s2, l2",
        ]
        return w.function("counts, seq, lens", body)

    def describe(self) -> str:
        return self.words


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Boost | None:
    cat = ctx.catalogue
    holders = holders_of(spec, ctx)
    selected = ctx.cards(("targets",), spec["targets"])
    if holders is None or selected is None:
        return None
    targets = targets_besides(spec, ctx, holders, selected, "boost")
    if targets is None:
        return None
    colour = same_colour(spec, ctx, targets)
    if colour is False:
        return None
    if spec["when"] == "game_end":
        loose = [cat.cards[i].id for i in holders if not cat.cards[i].kept]
        if loose:
            ctx.error(
                ("card",),
                f"a game-end boost works on the cards kept to game end, and {', '.join(loose)} "
                "is not kept (add 'keep: game' to it, or score the boost at round end)",
            )
            return None
    factor = spec["factor"]
    capacity = spec.get("capacity", 1)
    single = len(holders) == 1
    name = cat.cards[holders[0]].name if single else "boost card"
    which = "" if single else f"The boost cards are {ctx.words(spec['card'])}. "
    times = {2: "twice", 3: "three times"}.get(factor, f"{factor} times")
    scored = "each round" if spec["when"] == "round_end" else "at game end"
    words = which + (
        f"When {one_of(ctx.words(spec['targets']), len(targets))} is played while you have {with_article(name)} with room on it, "
        f"it goes onto the oldest such {name} ({capacity} per {name}) and counts {times} for every other "
        f"rule scored {scored}: as {factor} cards, with {times} its attributes. This rule scores what that "
        f"adds to those rules. Only cards played after the {name} count." + same_words(name, spec.get("same"))
    )
    return Boost(spec["id"], spec["when"], holders, targets, factor, capacity, colour, words, ctx.all_rules())
