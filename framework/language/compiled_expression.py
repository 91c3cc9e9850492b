"""What the expression language's compiler makes, and its limits: the
:class:`CompiledExpression` (a closure with what is known of its value and cost),
:class:`ExpressionLimits` and the language's reserved words. Kept apart from the
compiler (:mod:`ruledraft.language.expression`, which parses with lark): what reads a
compiled ruleset, or its limits, never imports the parser.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import attrs

from ruledraft.errors import Diagnostic
from ruledraft.tableau import Tableau

#: a compiled (sub-)expression: ``fn(tableau, seat) -> int``
Fn = Callable[[Tableau, int], int]

#: the language's grammar (lark's, LALR(1)): the compiler's and the kernel's parsers read it
GRAMMAR_FILE = Path(__file__).with_name("expression.lark")

#: the words of the language (expression.lark's quoted words): no name can be one
RESERVED_WORDS = frozenset({"if", "then", "else", "or", "and", "not", "true", "false"})


class ExpressionLimits:
    """Hard limits on expression texts (class constants)."""

    #: Longest accepted expression text, in characters.
    max_length: int = 1000
    #: Deepest accepted nesting of parentheses, calls and operators.
    max_depth: int = 32
    #: Most digits in an integer literal.
    max_digits: int = 9
    #: Deepest nesting of player aggregates (each level multiplies the work by
    #: the number of seats, so this keeps evaluation cheap).
    max_aggregate_depth: int = 3
    #: Largest magnitude any value (and any part of an expression) may reach, judged
    #: at compile time from the largest counts the catalogue allows: below 2**53, so
    #: scores and their statistics stay exact even as floating-point numbers.
    max_value: int = 10**15
    #: Seats and rounds assumed when bounding values (the schema allows at most 16
    #: players plus dummy seats, and 20 rounds).
    bound_seats: int = 32
    bound_rounds: int = 20


@attrs.frozen
class CompiledExpression:
    """An expression compiled to a closure.

    ``fn(tableau, seat)`` is the value for ``seat`` (for a condition: 1 or 0).
    ``is_local`` is true iff the value never depends on other seats' cards (no
    player aggregates).  ``reads`` is the set of card indices whose counts the
    value can depend on, or ``None`` when it can depend on any card.
    :meth:`steps` bounds the work of one evaluation, so a ruleset's total cost
    can be checked before anything runs.
    """

    text: str
    fn: Callable[[Tableau, int], int] = attrs.field(repr=False, eq=False)
    is_local: bool
    reads: frozenset[int] | None
    #: work per evaluation as polynomial coefficients in the number of seats
    cost: tuple[int, ...] = attrs.field(default=(1,), eq=False)
    #: true when evaluating may divide by a value that can be 0 (a ScoringError)
    may_fail: bool = attrs.field(default=False, eq=False)
    #: the largest magnitude the value can reach (see ExpressionLimits.max_value)
    bound: int = attrs.field(default=0, eq=False)
    #: what compiles but may stop a game: a division by a value that can be 0
    warnings: tuple[Diagnostic, ...] = attrs.field(default=(), eq=False)
    #: a value it never goes below, where one is known (None: nothing is)
    least: int | None = attrs.field(default=None, eq=False)

    def steps(self, seats: int) -> int:
        """An upper bound on the steps of one evaluation with ``seats`` seats."""
        return sum(c * seats**k for k, c in enumerate(self.cost))
