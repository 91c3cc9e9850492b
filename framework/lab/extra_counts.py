"""Counts beside the lab's figures: one collector for the runner that holds the lab's
:class:`~ruledraft.lab.figures.LabTally` and further counts (:class:`ExtraCounts`).

The runner takes one collector per run (:class:`~ruledraft.play.runner.Collector`).
:func:`with_extras` makes a factory for a :class:`WithExtras`: the lab's tally
counts as always, and each extra (the counterfactual points of
:mod:`ruledraft.lab.counterfactual`, the game-quality measures of
:mod:`ruledraft.lab.quality`) counts every finished game beside it and merges as the
tally does, exactly and in any order. Each extra's figures appear in the figures
JSON under its own key (``"marginal"``, ``"quality"``); the lab's own figures keep
their values.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from ruledraft.lab.figures import LabTally


class ExtraCounts(Protocol):
    """What a count kept beside the lab's tally provides."""

    #: its key in the figures JSON
    key: str

    def empty_copy(self) -> ExtraCounts: ...

    def add_state(self, state: Any) -> None:
        """Count one finished game from its engine state."""
        ...

    def merge(self, other: Any) -> None:
        """Add the counts of another (of other games at the same table)."""
        ...

    def state(self) -> dict:
        """Everything counted, as plain data (equal for equal counts, whatever the order)."""
        ...

    def figures(self, base: dict) -> Any:
        """Its figures, given the lab's (``base``, the figures JSON without the extras)."""
        ...


#: ``factory(game)``: an empty extra count for games of ``game`` (an engine ``Game``)
ExtraFactory = Callable[[Any], ExtraCounts]


class _TallyView:
    """A runner tally seen with another collector (the lab's own tally, for its figures)."""

    def __init__(self, tally: Any, lab: LabTally) -> None:
        self.tally = tally
        self.lab = lab

    def __getattr__(self, name: str) -> Any:
        return getattr(self.tally, name)


class WithExtras:
    """The lab's tally and extra counts, counted and merged together (see the module docstring)."""

    def __init__(self, base: LabTally, extras: Sequence[ExtraCounts]) -> None:
        self.base = base
        self.extras = tuple(extras)

    @property
    def wins(self) -> list[int]:
        return self.base.wins

    @property
    def scores(self) -> list[dict[int, int]]:
        return self.base.scores

    def extra(self, key: str) -> ExtraCounts:
        """The extra count with this key."""
        for e in self.extras:
            if e.key == key:
                return e
        raise KeyError(key)

    def empty_copy(self) -> WithExtras:
        return WithExtras(self.base.empty_copy(), [e.empty_copy() for e in self.extras])

    def add_state(self, state: Any, totals: Sequence[int] | None = None) -> None:
        self.base.add_state(state, totals)
        for e in self.extras:
            e.add_state(state)

    def merge(self, other: WithExtras) -> None:
        self.base.merge(other.base)
        for mine, theirs in zip(self.extras, other.extras):
            mine.merge(theirs)

    def flush(self) -> None:
        self.base.flush()

    def rule_points(self) -> dict[str, list[int]]:
        return self.base.rule_points()

    def state(self) -> dict:
        return self.base.state() | {e.key: e.state() for e in self.extras}

    def figures(self, tally: Any, bots: Sequence[str]) -> dict:
        """The lab's figures of ``tally``, and each extra's under its key."""
        out = self.base.figures(_TallyView(tally, self.base), bots)
        base = dict(out)
        for e in self.extras:
            out[e.key] = e.figures(base)
        return out


def _make(extras: tuple[ExtraFactory, ...], game: Any, cards: bool) -> WithExtras:
    return WithExtras(LabTally.for_game(game, cards), [f(game) for f in extras])


def with_extras(*extras: ExtraFactory) -> Callable[[Any, bool], WithExtras]:
    """A collector factory (``factory(game, cards)``) for the lab's tally with these
    extras beside it. It pickles (to worker processes and clusters) when the extras'
    factories do (module-level functions and classmethods)."""
    return functools.partial(_make, tuple(extras))
