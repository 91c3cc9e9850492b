"""The ``race`` kind: places awarded during a round when a quantity reaches a
threshold at the end of a turn (Sushi Go Party!'s uramaki).

At the end of every turn each seat's quantity is the sum of a value over its race
cards on the table. Seats at the threshold or more take the next open places, most
first; a seat that scores discards its race cards (they leave the table) and counts
again from zero, so it may take a later place. Seats tied on a turn each take the
place in full (or share the places they cover, with ``ties: split``) and use up as
many places as there are tied seats. When every place is gone nothing more scores
and nothing is discarded. At round end the seats with some quantity left take the
open places in order (``leftovers: places``), ties as above.

A race is the one scoring kind with a turn-end part (:class:`~ruledraft.language.rule.TurnScoring`):
the engine calls :meth:`Race.turn_end` at the end of every turn, takes the cards it
names off the tables, and keeps the race's progress through the round (places used,
points so far), which :meth:`Race.round_end` turns into the round's points under the
rule's id. A table of rounds alone cannot be scored by it: the turns are needed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.rule import KernelWriter, RuleBase, TurnStanding
from ruledraft.language.scoring import Awards, split_evenly
from ruledraft.tableau import Tableau

NAME = "race"

#: its own keys; ScoringKind.full_schema adds `type: object`, no other keys, and id, kind, when, description
SCHEMA: dict[str, Any] = {
    "title": "Race rule",
    "description": "Places awarded at the end of a turn to the players whose cards reach a threshold; "
    "they discard those cards. What is left at round end takes the open places.",
    "required": ["cards", "threshold", "places"],
    "properties": {
        "cards": {
            "title": "Cards",
            "description": "The race cards: counted, and discarded by a player who takes a place.",
            "$ref": "#/$defs/selector",
        },
        "value": {
            "title": "Value",
            "description": "What each race card counts (default 1), e.g. {attribute: icons}.",
            "$ref": "#/$defs/value",
        },
        "threshold": {
            "title": "Threshold",
            "description": "A player whose race cards count this much or more at the end of a turn takes a place.",
            "type": "integer",
            "minimum": 1,
            "maximum": 1000000,
        },
        "places": {
            "title": "Places",
            "description": "Points for 1st, 2nd, ... place, in the order the places are taken.",
            "$ref": "#/$defs/awards",
        },
        "ties": {
            "title": "Ties",
            "description": "Players level on the same turn (more counted goes first): full: each takes the "
            "place in full; split: they share the points of the places they cover (remainder dropped). "
            "Either way k tied players use up k places.",
            "type": "string",
            "enum": ["full", "split"],
        },
        "leftovers": {
            "title": "Leftovers",
            "description": "At round end, players whose race cards still count more than 0: places "
            "(take the open places in order of what they count, ties as above) or nothing.",
            "type": "string",
            "enum": ["places", "nothing"],
        },
    },
}


@attrs.frozen
class RaceProgress:
    """A race's progress through a round: places taken so far, points per seat so far,
    and the places the latest turn end awarded: (seat, place from 1, points)."""

    used: int
    points: tuple[int, ...]
    latest: tuple[tuple[int, int, int], ...] = ()


@attrs.frozen(eq=False)  # rules are compared and hashed by identity
class Race(RuleBase):
    """Places taken during the round when the race cards reach ``threshold`` (see the module docstring)."""

    id: str
    when: str
    indices: tuple[int, ...]
    values: tuple[int, ...]  # per card index
    threshold: int
    places: Awards
    split: bool
    leftovers: bool
    words: str
    value_words: str
    pairs: tuple[tuple[int, int], ...] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "pairs", tuple((i, self.values[i]) for i in self.indices if self.values[i]))

    @property
    def reads(self) -> frozenset[int]:
        return frozenset(self.indices)

    @property
    def turn_scoring(self) -> Race:
        return self

    @property
    def turns_reason(self) -> str:
        return f"it awards places at the end of each turn (a race to {self.threshold})"

    def counted(self, t: Tableau) -> list[int]:
        """What each seat's race cards count now."""
        pairs = self.pairs
        return [sum([row[i] * v for i, v in pairs]) for row in t.counts]

    def start(self, seats: int) -> RaceProgress:
        """The progress at the start of a round: no place taken, no points."""
        return RaceProgress(0, (0,) * seats)

    def _take(
        self, q: Sequence[int], contenders: list[int], progress: RaceProgress, awards: Sequence[int]
    ) -> tuple[RaceProgress, list[int]]:
        """The ``contenders`` take the open places, most first: the new progress and who scored."""
        used = progress.used
        points = list(progress.points)
        scored: list[int] = []
        latest: list[tuple[int, int, int]] = []
        for v in sorted({q[s] for s in contenders}, reverse=True):
            if used >= len(awards):
                break
            group = [s for s in contenders if q[s] == v]
            k = len(group)
            got = split_evenly(sum(awards[used : used + k]), k) if self.split else awards[used]
            for s in group:
                points[s] += got
                latest.append((s, used + 1, got))
            scored += group
            used += k
        return RaceProgress(used, tuple(points), tuple(latest)), scored

    def turn_end(self, t: Tableau, progress: RaceProgress) -> tuple[RaceProgress, list[tuple[int, ...]]]:
        """At the end of a turn: the new progress, and per seat the cards that leave its table."""
        awards = self.places.for_seats(t.num_seats)
        leaving: list[tuple[int, ...]] = [()] * t.num_seats
        if progress.latest:  # what an earlier turn end awarded is no news now
            progress = RaceProgress(progress.used, progress.points)
        if progress.used >= len(awards):
            return progress, leaving
        q = self.counted(t)
        reached = [s for s, v in enumerate(q) if v >= self.threshold]
        if not reached:
            return progress, leaving
        progress, scored = self._take(q, reached, progress, awards)
        for s in scored:
            leaving[s] = tuple(c for c in t.cards[s] if c in self.indices)
        return progress, leaving

    def standing(self, t: Tableau, progress: RaceProgress) -> TurnStanding:
        """What each seat counts now toward the threshold, the places' points and how many are taken."""
        awards = tuple(self.places.for_seats(t.num_seats))
        return TurnStanding(tuple(self.counted(t)), self.threshold, awards, min(progress.used, len(awards)))

    def taken(self, progress: RaceProgress) -> tuple[tuple[int, int, int], ...]:
        """The places the turn end that made ``progress`` awarded: (seat, place from 1, points)."""
        return progress.latest

    def round_end(self, t: Tableau, progress: RaceProgress) -> list[int]:
        """The round's points: those taken during it, and the leftovers' places."""
        if not self.leftovers:
            return list(progress.points)
        q = self.counted(t)
        progress, _ = self._take(q, [s for s, v in enumerate(q) if v > 0], progress, self.places.for_seats(t.num_seats))
        return list(progress.points)

    def score(self, t: Tableau) -> list[int]:
        """The round-end part alone, every place open (what the tables would score if
        no turn had ended yet): the turns are needed for the whole rule."""
        return self.round_end(t, self.start(t.num_seats))

    # ------------------------------------------------------------------ kernel

    def kernel(self, w: KernelWriter) -> str:
        """:meth:`score`: the round-end part alone, every place open (what a bot rescoring
        a move reads; the game loop scores the round by :meth:`kernel_turns`'s second part)."""
        take = self._kernel_take(w)
        counted = self._kernel_counted(w)
        lines = [
            "q = np.zeros(N, np.int64)",
            "cont = np.zeros(N, np.int64)",
            "points = np.zeros(N, np.int64)",
            "for s in range(N):",
            f"    q[s] = {counted}(counts, s)",
        ]
        if self.leftovers:
            lines += ["    cont[s] = 1 if q[s] > 0 else 0", f"{take}(q, cont, 0, points, N)"]
        lines += ["for s in range(N):", "    out[s] = points[s]"]
        return "\n".join(lines) + "\n"

    def kernel_turns(self, w: KernelWriter) -> tuple[str, str]:
        """The race's part of the game loop: the names of two compiled functions over its
        progress ``prog`` (``prog[0]`` the places used this round, ``prog[1 + s]`` seat
        ``s``'s points so far; all 0 when a round starts). ``turn(counts, seq, lens, rnd,
        prog, took, disc, nd)``, at every turn end, :meth:`turn_end`: places taken, and the
        race cards of the seats that scored taken off their tables (``counts``, ``seq`` and
        ``lens`` changed) onto ``disc`` from ``nd`` on, in the order the reference discards
        them, and counted in ``took[seat, card]``; it returns the new ``nd``. ``end(counts, seq, lens, rnd, prog, out)``:
        :meth:`round_end`, the round's points."""
        take = self._kernel_take(w)
        counted = self._kernel_counted(w)
        race = w.array([1 if c in self.indices else 0 for c in range(w.card_types)])
        turn = [
            "N = lens.shape[0]",
            f"if prog[0] >= {self._awards(w)[1]}[N]:",
            "    return nd",
            "q = np.zeros(N, np.int64)",
            "cont = np.zeros(N, np.int64)",
            "reached = False",
            "for s in range(N):",
            f"    q[s] = {counted}(counts, s)",
            f"    if q[s] >= {self.threshold}:",
            "        cont[s] = 1",
            "        reached = True",
            "if not reached:",
            "    return nd",
            f"prog[0] = {take}(q, cont, prog[0], prog[1:], N)",
            "for s in range(N):",
            "    if cont[s] == 2:",
            "        o = 0",
            "        for j in range(lens[s]):",
            "            c = seq[s, j]",
            f"            if {race}[c]:",
            "                disc[nd] = c",
            "                nd += 1",
            "                took[s, c] += 1",
            "                counts[s, c] -= 1",
            "            else:",
            "                seq[s, o] = c",
            "                o += 1",
            "        lens[s] = o",
            "return nd",
        ]
        end = ["N = lens.shape[0]", "for s in range(N):", "    out[s] = prog[1 + s]"]
        if self.leftovers:
            end += [
                "q = np.zeros(N, np.int64)",
                "cont = np.zeros(N, np.int64)",
                "for s in range(N):",
                f"    q[s] = {counted}(counts, s)",
                "    cont[s] = 1 if q[s] > 0 else 0",
                f"{take}(q, cont, prog[0], out, N)",
            ]
        return (
            w.function("counts, seq, lens, rnd, prog, took, disc, nd", turn),
            w.function("counts, seq, lens, rnd, prog, out", end),
        )

    def _kernel_counted(self, w: KernelWriter) -> str:
        """A helper ``(counts, s)``: what seat ``s``'s race cards count."""
        terms = " + ".join(f"counts[s, {i}] * {v}" for i, v in self.pairs) or "0"
        return w.function("counts, s", [f"return {terms}"])

    def _awards(self, w: KernelWriter) -> tuple[str, str, str]:
        """The places' points for every number of seats, as arrays: (all of them, where
        each number of seats starts, how many places it has)."""
        top = max(w.seat_counts) + 1
        flat: list[int] = []
        start = [0] * top
        count = [0] * top
        for n in w.seat_counts:
            awards = self.places.for_seats(n)
            start[n], count[n] = len(flat), len(awards)
            flat += awards
        return w.array(flat or [0]), w.array(count), w.array(start)

    def _kernel_take(self, w: KernelWriter) -> str:
        """:meth:`_take` as a helper ``(q, cont, used, points, N) -> used``: the seats with
        ``cont[s]`` take the open places, most first, their points added to ``points``;
        ``cont[s]`` becomes 2 for each seat that scored."""
        aw, count, start = self._awards(w)
        if self.split:  # their places' points shared, the remainder dropped toward zero
            got = [
                "    total = 0",
                f"    for i in range(used, min(used + k, {count}[N])):",
                f"        total += {aw}[{start}[N] + i]",
                "    got = abs(total) // k",
                "    if total < 0:",
                "        got = -got",
            ]
        else:
            got = [f"    got = {aw}[{start}[N] + used]"]
        body = [
            "started = False",
            "last = 0",
            f"while used < {count}[N]:",
            "    found = False",
            "    v = 0",
            "    for s in range(N):",
            "        if cont[s] and (not started or q[s] < last) and (not found or q[s] > v):",
            "            v = q[s]",
            "            found = True",
            "    if not found:",
            "        break",
            "    started = True",
            "    last = v",
            "    k = 0",
            "    for s in range(N):",
            "        if cont[s] and q[s] == v:",
            "            k += 1",
            *got,
            "    for s in range(N):",
            "        if cont[s] and q[s] == v:",
            "            points[s] += got",
            "            cont[s] = 2",
            "    used += k",
            "return used",
        ]
        return w.function("q, cont, used, points, N", body)

    def describe(self) -> str:
        values = sorted({self.values[i] for i in self.indices})
        if len(self.indices) == 1:  # "each Sugar counts 1", not "Sugar count 1 each"
            counts = f"each {self.words} counts {values[0]}"
        elif len(values) == 1:
            counts = f"{self.words} count {values[0]} each"
        else:
            counts = f"{self.words} count: {self.value_words}"
        parts = [
            f"A race: {counts}. At the end of each turn, players whose cards count {self.threshold} or more "
            f"take the next open places ({self.places.words()}), most first, and discard those cards; "
            "they count again from zero and may take a later place."
        ]
        if self.split:
            parts.append("Players level on the same turn share the points of the places they cover.")
        else:
            parts.append("Players level on the same turn each take the place in full.")
        parts.append("Tied players use up as many places as there are of them; when none is left, nothing more scores.")
        if self.leftovers:
            parts.append("At round end, players with such cards left take the open places in order of what they count.")
        else:
            parts.append("Cards left at round end score nothing.")
        return " ".join(parts)


def build(spec: Mapping[str, Any], ctx: RuleContext) -> Race | None:
    idx = ctx.cards(("cards",), spec["cards"])
    values = ctx.values(("value",), spec["value"]) if "value" in spec else None
    places = spec["places"]
    if isinstance(places, dict) and isinstance(places.get("players"), dict):
        ctx.seat_keys(("places", "players"), places["players"])
    ok = idx is not None and ("value" not in spec or values is not None)
    if spec["when"] != "round_end":
        ctx.error(("when",), "a race scores during the rounds: its when must be round_end")
        ok = False
    if not ok or idx is None:
        return None
    if values is None:
        values = (1,) * ctx.catalogue.size
    if not any(values[i] for i in idx):
        ctx.error(("value",), "every race card counts 0: nobody could ever reach the threshold")
        return None
    names = ctx.catalogue.cards
    value_words = ", ".join(f"{names[i].name} {values[i]}" for i in idx)
    return Race(
        id=spec["id"],
        when=spec["when"],
        indices=idx,
        values=values,
        threshold=spec["threshold"],
        places=Awards.from_spec(places).within(ctx.seat_counts()),
        split=spec.get("ties", "full") == "split",
        leftovers=spec.get("leftovers", "places") == "places",
        words=ctx.words(spec["cards"]),
        value_words=value_words,
    )
