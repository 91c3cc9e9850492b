"""A plug-in scoring kind's rule, held to the contract of a rule's results.

A built-in rule's points are whole numbers within the language's bounds by
construction; a plug-in's code may return anything. Its rules are wrapped in
:class:`CheckedRule`, which passes every call through and checks what comes back:
one whole number per seat, each within :attr:`ExpressionLimits.max_value`. A result
that breaks the contract is a :class:`PluginError` naming the rule and the kind,
never a wrong score or a crash further on.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import Any

from ruledraft.language.compiled_expression import ExpressionLimits
from ruledraft.language.kinds.registry import PluginError
from ruledraft.language.rule import OwnCardsRule, RuleBase
from ruledraft.tableau import Tableau


def _points(value: object) -> bool:
    return type(value) is int and -ExpressionLimits.max_value <= value <= ExpressionLimits.max_value


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


class CheckedRule:
    """``rule`` (built by the plug-in kind ``kind``) with its results checked."""

    __slots__ = ("_kind", "_rule")

    def __init__(self, rule: Any, kind: str) -> None:
        self._rule = rule
        self._kind = kind

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rule, name)

    @property
    def plugin_kind(self) -> str:
        """The name of the plug-in kind that built the rule, for messages."""
        return self._kind

    def __reduce__(self) -> tuple[Any, ...]:
        return (CheckedRule, (self._rule, self._kind))

    def __repr__(self) -> str:
        return f"CheckedRule({self._rule!r}, {self._kind!r})"

    def _refuse(self, method: str, what: str) -> PluginError:
        return PluginError(
            f"scoring rule '{self._rule.id}' (plug-in kind '{self._kind}'): {method} gave {what} "
            f"(a rule's points: one whole number per seat, each from -{ExpressionLimits.max_value:,} "
            f"to {ExpressionLimits.max_value:,})"
        )

    def _row(self, method: str, values: object, seats: int) -> list[int]:
        if not isinstance(values, (list, tuple)):
            raise self._refuse(method, f"{type(values).__name__} {_shown(values)}, not a list of one number per seat")
        if len(values) != seats:
            raise self._refuse(method, f"{len(values)} values for {seats} seat{'' if seats == 1 else 's'}")
        for v in values:
            if not _points(v):
                raise self._refuse(method, _shown(v))
        return list(values)

    def _one(self, method: str, value: object) -> int:
        if not _points(value):
            raise self._refuse(method, _shown(value))
        return value  # type: ignore[return-value]

    # Each call hands the plug-in copies of the tables: a rule that changed the lists it
    # was given would change the game's own (a bot weighing a card scores the live rows).

    # A method the plug-in's rule inherits from RuleBase or OwnCardsRule reads the plug-in's
    # own ``score`` and indexes it before any check: such a call goes through the checked
    # ``score`` here instead, so that a ``None`` or a short list is named, not a TypeError.

    def _inherited(self, method: str, base: type) -> bool:
        return getattr(type(self._rule), method, None) is getattr(base, method)

    def score(self, t: Tableau) -> list[int]:
        return self._row("score", _quietly(self._rule.score, _copied(t)), t.num_seats)

    def score_seat(self, t: Tableau, seat: int) -> int:
        if self._inherited("score_seat", OwnCardsRule):
            return self.score_row(t.counts[seat], t.cards[seat])
        if self._inherited("score_seat", RuleBase):
            return self.score(t)[seat]
        return self._one("score_seat", _quietly(self._rule.score_seat, _copied(t), seat))

    def score_row(self, row: list[int], seq: list[int]) -> int:
        if self._inherited("score_row", OwnCardsRule):
            return self.score(Tableau([list(row)], [list(seq)]))[0]
        if self._inherited("score_row", RuleBase):
            return self.score_seat(Tableau([list(row)], [list(seq)]), 0)
        return self._one("score_row", _quietly(self._rule.score_row, list(row), list(seq)))

    def award(self, q: list[int], t: Tableau) -> list[int]:
        return self._row("award", _quietly(self._rule.award, list(q), _copied(t)), t.num_seats)

    def quantities(self, t: Tableau) -> list[int]:
        return self._row("quantities", _quietly(self._rule.quantities, _copied(t)), t.num_seats)

    def score_seat_changed(self, t: Tableau, seat: int, base_q: Sequence[int]) -> int:
        if self._inherited("score_seat_changed", RuleBase):
            return self.score_seat(t, seat)
        return self._one("score_seat_changed", _quietly(self._rule.score_seat_changed, _copied(t), seat, list(base_q)))


def _quietly(method: Any, *args: Any) -> Any:
    """``method(*args)`` with what it prints sent to standard error (in the main thread:
    see :func:`~ruledraft.language.kinds.registry.prints_to_stderr`), wherever a rule is
    scored (a game, the lab's set-up, ``score``): ``--json`` output stays whole. A bare
    swap of ``sys.stdout``, not a context manager: a rule is scored very often."""
    if threading.current_thread() is not _MAIN:
        return method(*args)
    out = sys.stdout
    sys.stdout = sys.stderr
    try:
        return method(*args)
    finally:
        sys.stdout = out


_MAIN = threading.main_thread()


def _copied(t: Tableau) -> Tableau:
    """``t`` with lists of its own (the turned cards' maps too; echoes are frozen sets)."""
    turned = None if t.turned is None else [dict(m) for m in t.turned]
    echoes = None if t.echoes is None else list(t.echoes)
    return Tableau([list(r) for r in t.counts], [list(c) for c in t.cards], t.round, turned, echoes)
