"""Helpers the scoring kinds share (awards by place, player-count keys), and scoring a list of rules.

The kinds themselves live in :mod:`ruledraft.language.kinds`, one unit each;
what every compiled rule provides is :class:`ruledraft.language.rule.Rule`.
Variants are data, not subclasses: Sushi Go!'s maki, its pudding and Sushi Go
Party!'s maki are three settings of the ``majority`` kind.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ruledraft.tableau import Tableau

if TYPE_CHECKING:
    from ruledraft.language.rule import Rule

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

    default: tuple[int, ...]
    by_seats: Mapping[int, tuple[int, ...]] = attrs.field(factory=dict)

    @classmethod
    def from_spec(cls, spec: Any) -> Awards:
        if spec is None:
            return cls(())
        if isinstance(spec, list):
            return cls(tuple(spec))
        by: dict[int, tuple[int, ...]] = {}
        for key, values in (spec.get("players") or {}).items():
            for n in parse_player_key(key):
                by[n] = tuple(values)
        return cls(tuple(spec.get("default", ())), by)

    def within(self, seats: range | None) -> Awards:
        """These awards without those for numbers of seats no game has (``seats``: the
        numbers a game scores; None: unknown, all kept). A variant inherits its parent's
        keys: the two-player dummy game's pudding, always scored among 3 seats, would
        otherwise be described with the parent's "with 2 players: nothing"."""
        if seats is None or all(n in seats for n in self.by_seats):
            return self
        return Awards(self.default, {n: v for n, v in self.by_seats.items() if n in seats})

    def for_seats(self, n: int) -> tuple[int, ...]:
        return self.by_seats.get(n, self.default)

    def words(self) -> str:
        def fmt(v: tuple[int, ...]) -> str:
            return " / ".join(f"{p:+d}" if p < 0 else str(p) for p in v) if v else "nothing"

        text = fmt(self.default)
        runs: list[list[Any]] = []  # [first, last, awards] for runs of player counts with the same awards
        for n, v in sorted(self.by_seats.items()):
            if runs and runs[-1][1] == n - 1 and runs[-1][2] == v:
                runs[-1][1] = n
            else:
                runs.append([n, n, v])
        for first, last, v in runs:
            players = str(first) if first == last else f"{first}-{last}"
            text += f"; with {players} players: {fmt(v)}"
        return text


def score_rules(rules: Sequence[Rule], t: Tableau) -> tuple[list[int], dict[str, list[int]]]:
    """Total points per seat, and the points of each rule by id."""
    total = [0] * t.num_seats
    by_rule: dict[str, list[int]] = {}
    for rule in rules:
        pts = rule.score(t)
        by_rule[rule.id] = pts
        for s, p in enumerate(pts):
            total[s] += p
    return total, by_rule
