"""The ruleset expression language: parse once, compile to Python closures.

Rule files may compute a number (or a condition) with a small expression, for
example an Edamame-like rule::

    count(edamame) * min(4, count_opponents(count(edamame) > 0))

:func:`compile_expression` parses such a text with the LALR grammar in
``expression.lark`` and compiles it into a closure ``fn(tableau, seat) -> int``
(see :class:`CompiledExpression`).  The text never reaches ``eval``/``exec``;
names are resolved against the :class:`~ruledraft.language.catalogue.Catalogue` at compile
time, so evaluation only indexes lists of small ints.

The language
============

Values are whole numbers (Python ints); ``true``/``false`` and every condition
are the numbers 1 and 0, and a condition holds when its value is not 0.

Literals and variables
    ``0``, ``42`` (at most 9 digits; write ``-5`` for a negative number),
    ``true``, ``false``; ``players`` (the number of seats in the tableau) and
    ``round`` (the 1-based round being scored).

Arithmetic
    ``a + b``, ``a - b``, ``a * b``, ``a / b``, ``a % b``, ``-a``.  ``/`` is whole-number
    division rounding toward zero (``-7 / 2 == -3``) and ``%`` is the matching
    remainder, with the sign of ``a`` (``-7 % 2 == -1``), so that
    ``(a / b) * b + a % b == a``.  Dividing by a constant 0 is refused when the
    expression is compiled; dividing by a value that turns out 0 is a
    :class:`~ruledraft.errors.ScoringError` when the expression is evaluated, naming
    the file, line and column of the divisor.
    There is no power operator.

Comparisons and logic
    ``==  !=  <  <=  >  >=`` give 1 or 0 and do not chain (``a < b < c`` is a
    syntax error: write ``a < b and b < c``).  ``and``, ``or``, ``not`` give 1 or 0
    and evaluate left to right, stopping as soon as the answer is known.
    ``if COND then A else B`` is the conditional; as in Python, the ``else`` part
    reaches as far right as it can, so put the whole conditional in
    parentheses to use it inside a larger expression.

Precedence, loosest first: ``if``-``then``-``else``; ``or``; ``and``; ``not``;
comparisons; ``+ -``; ``* / %``; unary ``-``; atoms and parentheses.

Cards of the seat being scored (``tableau.counts[seat]``)
    ``count()``               how many cards;
    ``count(SEL)``            how many cards matching the selector;
    ``sum(ATTR)``             total of a card attribute over the cards (a card
                              without the attribute counts 0);
    ``sum(ATTR, SEL)``        the same over the cards matching the selector;
    ``groups()``, ``groups(SEL)``  how many distinct colour groups;
    ``kinds()``, ``kinds(SEL)``    how many distinct card types;
    ``largest_group()``       the most cards of a single colour group (0 if none).

Selectors (only as the argument of ``count``, ``groups``, ``kinds`` and the second
argument of ``sum``)
    a card id (``tempura``), ``tag:NAME`` (``tag:nigiri``), ``group:NAME``
    (``group:maki``), and unions of those with ``|``
    (``maki_1 | maki_2 | tag:nigiri``).  Card ids, tags, groups and attributes
    must exist in the catalogue.

Player aggregates (their argument is evaluated with each seat in turn as the
seat being scored; they may nest, up to 3 deep)
    over every seat: ``max_players(E)``, ``min_players(E)``, ``sum_players(E)``,
    ``count_players(COND)`` (how many seats satisfy COND); over the other seats:
    ``max_opponents(E)``, ``min_opponents(E)``, ``sum_opponents(E)``,
    ``count_opponents(COND)``.  The maximum or minimum over no seats is 0.

Arithmetic functions
    ``min(A, B, ...)`` and ``max(A, B, ...)`` take at least two arguments (with one
    argument they would do nothing, and ``max(count(x))`` is nearly always a slip
    for ``max_players(count(x))``); ``abs(A)``.

Reserved words (``if then else and or not true false``) cannot be used as names;
``players`` and ``round`` are variables except inside a selector, where every
name is a card id.

Limits
======

A text longer than :attr:`ExpressionLimits.max_length` characters, or nested more
than :attr:`ExpressionLimits.max_depth` levels (parentheses, calls, operators),
is refused with a located error before anything could recurse deeply: the
parenthesis depth is checked with a plain loop before parsing, the LALR parser
is iterative, and the parse-tree depth is checked iteratively before the
(recursive) compiler runs.  The language has no loops, so evaluation always
terminates; and since each nested player aggregate multiplies the work by the
number of seats, aggregates nest at most :attr:`ExpressionLimits.max_aggregate_depth`
(3) deep, which keeps every evaluation cheap.  Every part of an expression has a
bound on its magnitude worked out from the catalogue (a count is at most the number
of those cards in the deck, ``players`` at most 32, ``round`` at most 20, ...); one
whose bound exceeds :attr:`ExpressionLimits.max_value` (10**15) is refused, so
scores and their statistics never overflow.

Errors
======

Every problem is a :class:`~ruledraft.errors.RulesetError` whose diagnostics point
at the offending token (``file:line:column``, mapped through ``locate``), with
the source line for a caret code frame.  Syntax errors get a plain-words
message chosen by matching the parser error against known bad inputs
(:data:`_SYNTAX_EXAMPLES`, the lark ``UnexpectedInput`` pattern), then by the
offending token; name errors are all collected and carry a "did you mean"
suggestion when one is close.
"""

from __future__ import annotations

import difflib
import operator
import re
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any, cast

import attrs
from lark import Lark, Token, Transformer, Tree, UnexpectedCharacters, UnexpectedInput, UnexpectedToken, v_args
from lark.tree import Meta

from ruledraft.errors import Diagnostic, RulesetError, ScoringError
from ruledraft.language.catalogue import Catalogue
from ruledraft.language.compiled_expression import (
    GRAMMAR_FILE,
    RESERVED_WORDS,
    CompiledExpression,
    ExpressionLimits,
    Fn,
)
from ruledraft.language.suggest import MAX_SUGGESTION_INPUT
from ruledraft.tableau import Tableau

__all__ = ["compile_expression", "CompiledExpression", "ExpressionLimits", "RESERVED_WORDS"]


# ---------------------------------------------------------------------------
# Parser


@cache
def _parser() -> Lark:
    return Lark(
        GRAMMAR_FILE.read_text(encoding="utf-8"),
        parser="lalr",
        lexer="basic",  # reserved words are reserved everywhere
        propagate_positions=True,
        maybe_placeholders=True,
    )


# Friendly syntax messages, each with bad inputs that produce it (the lark
# ``UnexpectedInput.match_examples`` pattern).  A parser error is matched against
# the examples by parser state, offending token and the set of tokens the parser
# would have accepted there; a lexer error (a character no token starts with) by
# the offending characters.  Errors the examples miss are classified by the
# offending token and what was acceptable instead (:func:`_fallback_message`).
_ENDS_EARLY = "the expression ends too early: something is missing after {prev}"
_UNCLOSED = "unclosed parenthesis: this '(' has no matching ')'"
_STRAY_CLOSE = "unmatched ')': there is no '(' before it"
_PY_IF = "write a conditional as 'if CONDITION then A else B' (not 'A if CONDITION else B')"
_ASSIGN = "'=' is not an operator: to compare, write '=='"
_ARROW = "write '>=' or '<=' (the '=' comes second)"
_AND = "write 'and' instead of '&&'"
_OR = "write 'or' instead of '||'"
_NOT = "write 'not' instead of '!'"
_CHAINED = "comparisons cannot be chained: write 'a < b and b < c' instead of 'a < b < c'"
_POWER = "there is no power operator: multiply instead ('x * x')"
_DECIMAL = "whole numbers only: there are no decimal points"
_DOT = "'.' is not part of the language: a value has no attributes or methods (the total of a card attribute is sum(ATTR) or sum(ATTR, SELECTOR))"
_MISSING_OP = "missing operator before {tok}"
_MISSING_ARG = "missing argument before {tok}"
_EMPTY_PARENS = "empty parentheses: put an expression inside"
_THEN = "a conditional needs 'then': write 'if CONDITION then A else B'"
_ELSE = "a conditional needs 'else': write 'if CONDITION then A else B'"
_IF_INSIDE = "a conditional inside a larger expression goes in parentheses: '2 * (if CONDITION then A else B)'"
_STRAY_BAR = "'|' only joins selectors inside count(), sum(), groups() or kinds(); to combine conditions write 'or'"

_SYNTAX_EXAMPLES = {
    _PY_IF: [
        "1 if 2 else 3",
        "a if b else c",
        "f(a) if b else c",
        "true if b else c",
        "(a) if b else c",
        "f(a if b else c)",
        "x:y if b else c",
    ],
    _ASSIGN: ["a = b", "1 = 2", "f(a) = 1", "a =", "= 1"],
    _ARROW: ["a => b", "a =< b"],
    _AND: ["a && b", "a & b", "f(a) && b", "1 && 2"],
    _NOT: ["!a", "a ! b", "not !a"],
    _CHAINED: ["a < b < c", "1 == 2 == 3", "f(a) < 1 < 2", "a < b > c", "a < 1 < 2", "a < (1) < 2"],
    _POWER: ["2 ^ 3", "a ^ b"],
    _DECIMAL: ["1.5", "0.5 * a", ".5"],
    _MISSING_OP: [
        "1 2",
        "a b",
        "f(a) b",
        "1 (2)",
        "f(a) (b)",
        "f(a) g(b)",
        "1 a",
        "true false",
        "a true",
        "(1) 2",
        "a:b c",
        "a not b",
    ],
    _MISSING_ARG: ["f(a,)", "f(,a)", "f(a,,b)", "f(1,)", "f(g(a),)", "f(a, b,)", "f(a, b,, c)"],
    _EMPTY_PARENS: ["()", "1 + ()", "f(())"],
    _THEN: ["if a else b", "if a b else c", "if f(a) else b", "if 1 else 2"],
    _ELSE: ["if a then b c", "if a then b then c"],
    _STRAY_BAR: ["a | b", "1 | 2", "f(a) | b", "(a | b)"],
}

#: How to name a terminal in a message.
_TERMINAL_WORDS = {
    "INT": "a number",
    "NAME": "a name",
    "LPAR": "'('",
    "RPAR": "')'",
    "COMMA": "','",
    "COLON": "':'",
    "VBAR": "'|'",
    "PLUS": "'+'",
    "MINUS": "'-'",
    "MUL_OP": "'*', '/' or '%'",
    "COMPARE": "a comparison",
    "IF": "'if'",
    "THEN": "'then'",
    "ELSE": "'else'",
    "AND": "'and'",
    "OR": "'or'",
    "NOT": "'not'",
    "TRUE": "'true'",
    "FALSE": "'false'",
    "$END": "the end",
}
_OPERAND_STARTS = frozenset({"INT", "NAME", "LPAR", "TRUE", "FALSE", "NOT", "IF"})


def _error_key(err: UnexpectedInput, text: str) -> tuple[Any, ...]:
    """What identifies a syntax error when matching it against the examples."""
    if isinstance(err, UnexpectedToken):
        return (err.state.position, err.token.type, frozenset(err.accepts))
    return (None, _bad_chars(text, cast(int, err.pos_in_stream)), None)


def _bad_chars(text: str, pos: int) -> str:
    """The characters a lexer error stops at (``&&`` counts as one)."""
    two = text[pos : pos + 2]
    return two if two in ("&&", "=>", "=<") else text[pos : pos + 1]


@cache
def _example_index() -> dict[tuple[Any, ...], str]:
    """``{error key: message}``, built by parsing every example once."""
    index: dict[tuple[Any, ...], str] = {}
    parse = _parser().parse
    for message, examples in _SYNTAX_EXAMPLES.items():
        for example in examples:
            try:
                parse(example)
            except UnexpectedInput as err:
                index.setdefault(_error_key(err, example), message)
            else:  # pragma: no cover - an example that parses is a bug in the table
                raise AssertionError(f"syntax example parses: {example!r}")
    return index


def _token_words(token: Token) -> str:
    if token.type == "$END":
        return "the end of the expression"
    return f"'{token.value}'"


#: a word of the language where only a name can stand (after '(', ',', '|' or 'tag:' and before ')', ',' or '|')
_WORD_AS_NAME = re.compile(
    r"(?:[(,|]\s*(?:[A-Za-z_]\w*\s*:\s*)?|:\s*)(?P<word>if|then|else|and|or|not)\s*(?=[),|])"
    r"|:\s*(?P<atom>true|false)\b"
)


def _fallback_message(token: Token, accepts: Any) -> str:
    """A message for a token error no example matched, from what was acceptable there."""
    if token.type == "IF" and "PLUS" in accepts:
        return _PY_IF
    if token.type == "IF":  # after an operator: 2 * if ... then ... else ...
        return _IF_INSIDE
    if "THEN" in accepts:
        return _THEN
    if "ELSE" in accepts:
        return _ELSE
    if token.type in _OPERAND_STARTS and "PLUS" in accepts:
        return _MISSING_OP
    if token.type == "VBAR":
        return _STRAY_BAR
    expected = sorted({_TERMINAL_WORDS.get(name, name) for name in accepts})
    message = "unexpected {tok}"
    if expected:
        message += "; expected " + ", ".join(expected)
    return message


def _syntax_error(err: UnexpectedInput, text: str, unclosed: list[int], stray_close: int | None) -> tuple[int, str]:
    """``(offset, message)`` for a parser error, in plain words."""
    if isinstance(err, UnexpectedCharacters):
        pos = cast(int, err.pos_in_stream)
        before, after = text[:pos].rstrip(), text[pos + 1 : pos + 2]
        if text[pos] == "." and not after.isdigit() and re.search(r"[A-Za-z_)]\w*$", before):
            return pos, _DOT  # a.b, maki_2.icons, count(x).y: no decimal point, which a digit follows
        message = _example_index().get(_error_key(err, text))
        return pos, message or f"unexpected character {text[pos]!r}"

    if not isinstance(err, UnexpectedToken):  # pragma: no cover - LALR reports the end as a token
        return max(len(text.rstrip()) - 1, 0), _ENDS_EARLY.format(prev="the last word")
    token = err.token
    pos = token.start_pos or 0
    named = _WORD_AS_NAME.search(text)
    if named:  # count(if), tag:and: a card, tag or group named by a word of the language
        group = "word" if named.group("word") else "atom"
        word = named.group(group)
        return named.start(group), (
            f"'{word}' is a word of the expression language, not a name: a card, tag or group called "
            f"'{word}' cannot be named in an expression (rename it)"
        )
    if token.type == "$END":
        if unclosed:
            return unclosed[-1], _UNCLOSED
        # The end token borrows the position of the last real token.
        prev = text[token.start_pos : token.end_pos]
        if "THEN" in err.accepts:
            return pos, _THEN
        if "ELSE" in err.accepts:
            return pos, _ELSE
        return pos, _ENDS_EARLY.format(prev=f"'{prev}'")
    if token.type == "RPAR" and stray_close == pos:
        return pos, _STRAY_CLOSE
    if token.type == "VBAR":  # '||' lexes as two '|': point at the first
        if text.startswith("||", pos):
            return pos, _OR
        if text.startswith("||", pos - 1):
            return pos - 1, _OR
    if token.type == "MUL_OP" and text.startswith("**", pos - 1):
        return pos - 1, _POWER
    message = _example_index().get(_error_key(err, text)) or _fallback_message(token, err.accepts)
    return pos, message.format(tok=_token_words(token))


# ---------------------------------------------------------------------------
# Runtime helpers (the closures call these)


@attrs.frozen
class _Site:
    """Where a divisor is written: the words for a message and its file position."""

    words: str
    file: str | None = None
    line: int | None = None
    column: int | None = None

    def error(self, what: str) -> ScoringError:
        return ScoringError(f"{what} by zero in expression {self.words}", None, self.file, self.line, self.column)


def _div(a: int, b: int, where: _Site) -> int:
    """Whole-number division rounding toward zero."""
    if b == 0:
        raise where.error("division")
    q = a // b
    if q < 0 and q * b != a:
        q += 1
    return q


def _mod(a: int, b: int, where: _Site) -> int:
    """The remainder matching :func:`_div` (sign of ``a``)."""
    if b == 0:
        raise where.error("modulo")
    return a - b * _div(a, b, where)


def _const_fn(k: int) -> Fn:
    return lambda t, s: k


# Arithmetic closures: general, constant on the right, constant on the left.
_ARITH: dict[str, tuple[Any, Any, Any]] = {
    "+": (
        lambda f, g: lambda t, s: f(t, s) + g(t, s),
        lambda f, k: lambda t, s: f(t, s) + k,
        lambda k, g: lambda t, s: k + g(t, s),
    ),
    "-": (
        lambda f, g: lambda t, s: f(t, s) - g(t, s),
        lambda f, k: lambda t, s: f(t, s) - k,
        lambda k, g: lambda t, s: k - g(t, s),
    ),
    "*": (
        lambda f, g: lambda t, s: f(t, s) * g(t, s),
        lambda f, k: lambda t, s: f(t, s) * k,
        lambda k, g: lambda t, s: k * g(t, s),
    ),
}

# Comparison closures: general and constant on the right.
_COMPARE: dict[str, tuple[Any, Any]] = {
    "==": (
        lambda f, g: lambda t, s: 1 if f(t, s) == g(t, s) else 0,
        lambda f, k: lambda t, s: 1 if f(t, s) == k else 0,
    ),
    "!=": (
        lambda f, g: lambda t, s: 1 if f(t, s) != g(t, s) else 0,
        lambda f, k: lambda t, s: 1 if f(t, s) != k else 0,
    ),
    "<": (lambda f, g: lambda t, s: 1 if f(t, s) < g(t, s) else 0, lambda f, k: lambda t, s: 1 if f(t, s) < k else 0),
    "<=": (
        lambda f, g: lambda t, s: 1 if f(t, s) <= g(t, s) else 0,
        lambda f, k: lambda t, s: 1 if f(t, s) <= k else 0,
    ),
    ">": (lambda f, g: lambda t, s: 1 if f(t, s) > g(t, s) else 0, lambda f, k: lambda t, s: 1 if f(t, s) > k else 0),
    ">=": (
        lambda f, g: lambda t, s: 1 if f(t, s) >= g(t, s) else 0,
        lambda f, k: lambda t, s: 1 if f(t, s) >= k else 0,
    ),
}
_COMPARE_OP = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}
#: ``k OP x`` is ``x FLIPPED k``.
_FLIPPED = {"==": "==", "!=": "!=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


def _truth(f: Fn) -> Fn:
    return lambda t, s: 1 if f(t, s) else 0


# ---------------------------------------------------------------------------
# Compiler


@attrs.define(slots=True)
class _Value:
    """A compiled sub-expression."""

    fn: Any  # None when constant
    const: int | None  # the value, when known at compile time
    start: int  # source offsets (for messages)
    end: int
    local: bool = True
    reads: frozenset[int] | None = frozenset()
    boolean: bool = False  # value is always 0 or 1
    aggregates: int = 0  # deepest nesting of player aggregates inside
    #: work of one evaluation as polynomial coefficients in the number of seats n:
    #: cost[k] * n**k steps (each player aggregate multiplies its argument's work by n)
    cost: tuple[int, ...] = (1,)
    #: the largest magnitude the value can reach (when not constant and not boolean)
    bound: int = 0
    #: a value it is known never to go below, where one is (None: nothing is known)
    least: int | None = None
    #: a value it is known never to go above, where one is. Not the magnitude ``bound``
    #: of card counts: a table can hold more copies than the catalogue lists (cards
    #: turned face down, copied, boosted), so only ``players`` and ``round`` have one
    most: int | None = None

    def func(self) -> Fn:
        return cast(Fn, self.fn) if self.fn is not None else _const_fn(cast(int, self.const))


def _merge_reads(values: Sequence[_Value]) -> frozenset[int] | None:
    out: set[int] = set()
    for v in values:
        if v.reads is None:
            return None
        out |= v.reads
    return frozenset(out)


def _add_costs(*costs: tuple[int, ...]) -> tuple[int, ...]:
    width = max(len(c) for c in costs)
    return tuple(sum(c[k] for c in costs if k < len(c)) for k in range(width))


def _mag(v: _Value) -> int:
    """The largest magnitude ``v`` can reach."""
    if v.const is not None:
        return abs(v.const)
    return 1 if v.boolean else v.bound


def _low(v: _Value) -> int | None:
    """The least value ``v`` can take, where it is known (a divisor whose least is
    above 0 can never be 0); None where it is not."""
    if v.const is not None:
        return v.const
    return 0 if v.boolean else v.least


def _high(v: _Value) -> int | None:
    """The largest value ``v`` can take, where it is known; None where it is not."""
    if v.const is not None:
        return v.const
    return 1 if v.boolean else v.most


def _negated(x: int | None) -> int | None:
    return None if x is None else -x


def _total(xs: Sequence[int | None]) -> int | None:
    """The sum of bounds, unknown if one of them is."""
    return None if any(x is None for x in xs) else sum(cast(int, x) for x in xs)


def _smallest(xs: Sequence[int | None]) -> int | None:
    """The least of lower bounds, unknown if one of them is."""
    return None if any(x is None for x in xs) else min(cast(int, x) for x in xs)


def _at_least(v: _Value, floor: int) -> bool:
    """Whether ``v`` is known never to go below ``floor``."""
    low = _low(v)
    return low is not None and low >= floor


def _derived(
    fn: Any,
    values: Sequence[_Value],
    start: int,
    end: int,
    *,
    boolean: bool = False,
    local: bool = True,
    bound: int = 0,
    least: int | None = None,
    most: int | None = None,
) -> _Value:
    """A non-constant value computed from ``values`` (``bound``: its largest magnitude;
    ``least`` and ``most``: the values it cannot go below and above, where known)."""
    return _Value(
        fn,
        None,
        start,
        end,
        local and all(v.local for v in values),
        _merge_reads(values),
        boolean,
        max(v.aggregates for v in values),
        _add_costs((1,), *(v.cost for v in values)),
        bound,
        least,
        most,
    )


@attrs.define(slots=True)
class _Name:
    """A bare name: a variable in an expression, a card id in a selector."""

    token: Token


@attrs.define(slots=True)
class _Qualified:
    """``tag:NAME`` or ``group:NAME``: only valid as a selector."""

    kind: Token
    name: Token


@attrs.define(slots=True)
class _Union:
    """``A | B | ...``: only valid as a selector."""

    items: list[Any]
    start: int


_VARIABLES = {
    "players": lambda t, s: t.num_seats,
    "round": lambda t, s: t.round,
}

_AGGREGATES = (
    "max_players",
    "min_players",
    "sum_players",
    "count_players",
    "max_opponents",
    "min_opponents",
    "sum_opponents",
    "count_opponents",
)
_SELECTOR_HELP = "a card id, tag:NAME or group:NAME (or several joined with '|')"


@attrs.frozen
class _Call:
    """A function call being compiled: the function's name and where it is, the
    arguments as parsed, and the call's span."""

    name: str
    at: int
    args: list[Any]
    start: int
    end: int


def _did_you_mean(word: str, candidates: Any) -> str:
    if len(word) > MAX_SUGGESTION_INPUT:
        return ""
    close = difflib.get_close_matches(word, list(candidates), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


@v_args(meta=True)
class _Compiler(Transformer[Token, Any]):
    """Turns a parse tree into a :class:`_Value`, one method per grammar alias; a
    function call is compiled by the method :attr:`_CALLS` names for the function."""

    def __init__(self, text: str, catalogue: Catalogue, site: Callable[[int], tuple[str, int, int]] | None = None):
        super().__init__(visit_tokens=False)
        self.text = text
        self.catalogue = catalogue
        self.problems: list[tuple[int, str]] = []  # (offset, message)
        self._group_index = catalogue.group_index
        #: site(offset) -> (file, line, column), for run-time errors
        self._site = site or (lambda offset: ("<expr>", 1, offset + 1))
        self.may_fail = False  # a division by something that can be 0
        self.notes: list[tuple[int, str]] = []  # (offset, message): warnings
        self._too_big = False  # a value over the limit was reported
        self._deck = sum(c.count for c in catalogue.cards)

    # -- helpers ------------------------------------------------------------

    def _problem(self, offset: int, message: str) -> None:
        self.problems.append((offset, message))

    def _dummy(self, start: int, end: int) -> _Value:
        """Stands in for a sub-expression that had an error, so compiling goes on."""
        return _Value(None, 0, start, end)

    def _source(self, v: _Value) -> str:
        """The text of ``v``, with the closing parentheses of its own that a parenthesised
        last operand's span leaves out (``a * (b * (c))``, not ``a * (b * (c``)."""
        text, end = self.text, v.end
        while text.count("(", v.start, end) > text.count(")", v.start, end):
            after = end + len(text[end:]) - len(text[end:].lstrip(" "))
            if not text.startswith(")", after):
                break
            end = after + 1
        return text[v.start : end]

    def expression_of(self, item: Any) -> _Value:
        """The whole expression's value (``item`` used as a number, as :meth:`_expr` does)."""
        return self._expr(item)

    def _expr(self, item: Any) -> _Value:
        """``item`` used as a number: resolve bare names, refuse selectors."""
        if isinstance(item, _Value):
            limit = ExpressionLimits.max_value
            if not self._too_big and _mag(item) > limit:
                self._too_big = True  # the innermost part over the limit says it all
                source, reach = self._source(item), _mag(item)
                shown = source if len(source) <= 60 else f"{source[:40]}...({len(source)} characters)"
                said = f"{reach:,}" if reach < 10**30 else f"at least 10^{len(str(reach)) - 1}"
                self._problem(
                    item.start,
                    f"'{shown}' can reach {said}; values must stay between -{limit:,} and {limit:,}",
                )
            return item
        if isinstance(item, _Name):
            return self._variable(item.token)
        if isinstance(item, _Qualified):
            start, end = cast(int, item.kind.start_pos), cast(int, item.name.end_pos)
            self._problem(
                start,
                f"a selector like '{self.text[start:end]}' can only be used inside count(), sum(), groups() or kinds()",
            )
            return self._dummy(start, end)
        assert isinstance(item, _Union)
        self._problem(
            item.start,
            "selectors joined with '|' can only be used inside count(), sum(), "
            "groups() or kinds(); to combine conditions write 'or'",
        )
        return self._dummy(item.start, item.start + 1)

    def _variable(self, token: Token) -> _Value:
        word = str(token)
        start, end = cast(int, token.start_pos), cast(int, token.end_pos)
        fn = _VARIABLES.get(word)
        if fn is not None:
            bound = ExpressionLimits.bound_seats if word == "players" else ExpressionLimits.bound_rounds
            return _Value(fn, None, start, end, bound=bound, least=1, most=bound)  # seats and rounds count from 1
        message = f"unknown name '{word}'; expressions know 'players' and 'round'"
        if word in self._CALLS:
            message += f" ('{word}' is a function: write {word}(...))"
        elif self.catalogue.has_card(word):
            message += f" (to count a card, write count({word}))"
        else:
            message += _did_you_mean(word, (*_VARIABLES, "true", "false", *self._CALLS))
        self._problem(start, message)
        return self._dummy(start, end)

    def _selector(self, item: Any, fname: str) -> tuple[int, ...] | None:
        """Card indices for a selector argument (``None`` after an error)."""
        cat = self.catalogue
        if isinstance(item, _Union):
            chosen: set[int] = set()
            ok = True
            for part in item.items:
                if isinstance(part, (_Name, _Qualified)):
                    sel = self._selector(part, fname)
                    if sel is None:
                        ok = False
                    else:
                        chosen.update(sel)
                else:
                    start = part.start if isinstance(part, _Value) else item.start
                    self._problem(start, "only card ids, tag:NAME and group:NAME can be joined with '|'")
                    ok = False
            return tuple(sorted(chosen)) if ok else None
        if isinstance(item, _Name):
            word = str(item.token)
            if cat.has_card(word):
                return (cat.index_of(word),)
            if cat.has_tag(word):
                hint = f" (did you mean 'tag:{word}'?)"
            elif cat.has_group(word):
                hint = f" (did you mean 'group:{word}'?)"
            else:
                hint = _did_you_mean(word, cat.nameable_ids)
            self._problem(cast(int, item.token.start_pos), f"unknown card '{word}'{hint}")
            return None
        if isinstance(item, _Qualified):
            kind, word = str(item.kind), str(item.name)
            if kind == "tag":
                if cat.has_tag(word):
                    return cat.select(tags=[word])
                self._problem(cast(int, item.name.start_pos), f"unknown tag '{word}'{_did_you_mean(word, cat.tags)}")
                return None
            if kind == "group":
                if cat.has_group(word):
                    return cat.select(groups=[word])
                self._problem(
                    cast(int, item.name.start_pos), f"unknown group '{word}'{_did_you_mean(word, cat.groups)}"
                )
                return None
            self._problem(
                cast(int, item.kind.start_pos),
                f"unknown selector '{kind}:'{_did_you_mean(kind, ('tag', 'group'))}; a selector is {_SELECTOR_HELP}",
            )
            return None
        assert isinstance(item, _Value)
        self._problem(item.start, f"{fname}() expects a selector here: {_SELECTOR_HELP}")
        return None

    # -- literals and names ---------------------------------------------------

    def number(self, meta: Meta, children: list[Any]) -> _Value:
        (tok,) = children
        if len(tok) > ExpressionLimits.max_digits:
            self._problem(tok.start_pos, f"number too long: at most {ExpressionLimits.max_digits} digits")
            return self._dummy(tok.start_pos, tok.end_pos)
        return _Value(None, int(tok), tok.start_pos, tok.end_pos)

    def true(self, meta: Meta, children: list[Any]) -> _Value:
        return _Value(None, 1, meta.start_pos, meta.end_pos, boolean=True)

    def false(self, meta: Meta, children: list[Any]) -> _Value:
        return _Value(None, 0, meta.start_pos, meta.end_pos, boolean=True)

    def name(self, meta: Meta, children: list[Any]) -> _Name:
        return _Name(children[0])

    def qualified(self, meta: Meta, children: list[Any]) -> _Qualified:
        return _Qualified(children[0], children[1])

    def union(self, meta: Meta, children: list[Any]) -> _Union:
        return _Union(list(children), meta.start_pos)

    def arguments(self, meta: Meta, children: list[Any]) -> list[Any]:
        return list(children)

    # -- operators --------------------------------------------------------------

    def negative(self, meta: Meta, children: list[Any]) -> _Value:
        v = self._expr(children[1])
        if v.const is not None:
            return _Value(None, -v.const, meta.start_pos, meta.end_pos)
        f = v.fn
        high, low = _high(v), _low(v)
        return _derived(
            lambda t, s: -f(t, s),
            [v],
            meta.start_pos,
            meta.end_pos,
            bound=_mag(v),
            least=None if high is None else -high,
            most=None if low is None else -low,
        )

    def arith(self, meta: Meta, children: list[Any]) -> _Value:
        """``a + b - c ...``: constants summed, terms added in one closure."""
        values = [self._expr(children[0])]
        signs = [1]
        for op, item in zip(children[1::2], children[2::2]):
            values.append(self._expr(item))
            signs.append(1 if op == "+" else -1)
        k = sum(sg * v.const for sg, v in zip(signs, values) if v.const is not None)
        terms = [(sg, v.fn) for sg, v in zip(signs, values) if v.const is None]
        start, end = meta.start_pos, meta.end_pos
        if not terms:
            return _Value(None, k, start, end)
        if len(terms) == 1:
            ((sg, f),) = terms
            if sg < 0:
                fn = _ARITH["-"][2](k, f)
            elif k:
                fn = _ARITH["+"][1](f, k)
            else:
                fn = f
        elif len(terms) == 2 and k == 0:
            (s1, f1), (s2, f2) = terms
            if s1 > 0:
                fn = _ARITH["+" if s2 > 0 else "-"][0](f1, f2)
            elif s2 > 0:
                fn = _ARITH["-"][0](f2, f1)
            else:
                fn = lambda t, s: -f1(t, s) - f2(t, s)  # noqa: E731
        else:
            plus = tuple(f for sg, f in terms if sg > 0)
            minus = tuple(f for sg, f in terms if sg < 0)

            def fn(t: Tableau, s: int, plus: tuple[Fn, ...] = plus, minus: tuple[Fn, ...] = minus, k: int = k) -> int:
                v = k
                for f in plus:
                    v += f(t, s)
                for f in minus:
                    v -= f(t, s)
                return v

        lows = [_low(v) if sg > 0 else _negated(_high(v)) for sg, v in zip(signs, values)]
        highs = [_high(v) if sg > 0 else _negated(_low(v)) for sg, v in zip(signs, values)]
        return _derived(
            fn, values, start, end, bound=sum(_mag(v) for v in values), least=_total(lows), most=_total(highs)
        )

    def term(self, meta: Meta, children: list[Any]) -> _Value:
        """``a * b / c % d ...``, left to right."""
        acc = self._expr(children[0])
        steps = [(str(op), self._expr(item)) for op, item in zip(children[1::2], children[2::2])]
        for op, v in steps:
            if op != "*" and v.const == 0:
                what = "division" if op == "/" else "remainder"
                self._problem(v.start, f"{what} by zero: '{self._source(v)}' is always 0")
                return self._dummy(meta.start_pos, meta.end_pos)
        if len(steps) <= 3:
            for op, v in steps:
                acc = self._binary(op, acc, v, meta.start_pos, v.end)
            return acc
        # Long chains: one loop instead of deeply nested closures.
        values = [acc] + [v for _, v in steps]
        if all(v.const is not None for v in values) and not any(op != "*" and v.const == 0 for op, v in steps):
            for op, v in steps:
                acc = self._binary(op, acc, v, meta.start_pos, v.end)
            return acc
        ops = tuple((op, v.func(), self._site_of(v) if op == "*" else self._where(v, op)) for op, v in steps)
        first = acc.func()
        bound = _mag(acc)
        for op, v in steps:
            bound = bound * _mag(v) if op == "*" else (bound if op == "/" else min(bound, _mag(v)))

        def fn(t: Tableau, s: int) -> int:
            x = first(t, s)
            for op, f, where in ops:
                y = f(t, s)
                if op == "*":
                    x *= y
                elif op == "/":
                    x = _div(x, y, where)
                else:
                    x = _mod(x, y, where)
            return x

        least = 0 if all(_at_least(v, 0) for v in values) else None  # no sign can turn
        return _derived(fn, values, meta.start_pos, meta.end_pos, bound=bound, least=least)

    def _where(self, divisor: _Value, op: str) -> _Site:
        """The site of a divisor, for the error if it is 0 when evaluated; one that can
        be 0 (nothing shows it is always above 0) is a warning as well."""
        high = _high(divisor)
        if divisor.const is None and not _at_least(divisor, 1) and not (high is not None and high < 0):
            self.may_fail = True
            source = self._source(divisor)
            what = "division" if op == "/" else "remainder"
            self.notes.append(
                (
                    divisor.start,
                    f"{what} by '{source}', which can be 0: a game where it is stops with an error "
                    f"(write max(1, {source}) for at least 1)",
                )
            )
        return self._site_of(divisor)

    def _site_of(self, divisor: _Value) -> _Site:
        file, line, column = self._site(divisor.start)
        return _Site(f"{self.text!r} ({self._source(divisor)!r} is 0)", file, line, column)

    def _binary(self, op: str, a: _Value, b: _Value, start: int, end: int) -> _Value:
        if op in ("/", "%"):
            where = self._where(b, op)
            helper = _div if op == "/" else _mod
            if a.const is not None and b.const is not None and b.const != 0:
                return _Value(None, helper(a.const, b.const, where), start, end)
            fa, fb = a.func(), b.func()
            bound = _mag(a) if op == "/" else min(_mag(a), _mag(b))
            least = 0 if _at_least(a, 0) and (op == "%" or _at_least(b, 1)) else None
            if b.const is not None and b.const != 0:
                k = b.const
                return _derived(lambda t, s: helper(fa(t, s), k, where), [a, b], start, end, bound=bound, least=least)
            fn = lambda t, s: helper(fa(t, s), fb(t, s), where)  # noqa: E731
            return _derived(fn, [a, b], start, end, bound=bound, least=least)
        general, right_const, left_const = _ARITH[op]
        if a.const is not None and b.const is not None:
            return _Value(
                None, {"+": operator.add, "-": operator.sub, "*": operator.mul}[op](a.const, b.const), start, end
            )
        if b.const is not None:
            fn = right_const(a.fn, b.const)
        elif a.const is not None:
            fn = left_const(a.const, b.fn)
        else:
            fn = general(a.fn, b.fn)
        bound = _mag(a) * _mag(b) if op == "*" else _mag(a) + _mag(b)
        # (term calls this for '*' only: 'arith' works out sums and differences)
        both = op == "*" and _at_least(a, 0) and _at_least(b, 0)
        least = cast(int, _low(a)) * cast(int, _low(b)) if both else None
        return _derived(fn, [a, b], start, end, bound=bound, least=least)

    def compare(self, meta: Meta, children: list[Any]) -> _Value:
        a, op, b = self._expr(children[0]), str(children[1]), self._expr(children[2])
        start, end = meta.start_pos, meta.end_pos
        if a.const is not None and b.const is not None:
            return _Value(None, int(_COMPARE_OP[op](a.const, b.const)), start, end, boolean=True)
        if a.const is not None:
            a, b, op = b, a, _FLIPPED[op]
        general, right_const = _COMPARE[op]
        fn = right_const(a.fn, b.const) if b.const is not None else general(a.fn, b.fn)
        return _derived(fn, [a, b], start, end, boolean=True)

    def logical_not(self, meta: Meta, children: list[Any]) -> _Value:
        v = self._expr(children[0])
        if v.const is not None:
            return _Value(None, 0 if v.const else 1, meta.start_pos, meta.end_pos, boolean=True)
        f = v.fn
        return _derived(lambda t, s: 0 if f(t, s) else 1, [v], meta.start_pos, meta.end_pos, boolean=True)

    def _logic(self, meta: Meta, children: list[Any], is_and: bool) -> _Value:
        values = [self._expr(c) for c in children]
        start, end = meta.start_pos, meta.end_pos
        # Constants that cannot change the result are dropped; one that decides
        # it ends the chain (later operands would never be evaluated).
        kept: list[_Value] = []
        for v in values:
            if v.const is not None:
                if bool(v.const) == is_and:
                    continue
                if not kept:
                    return _Value(None, 0 if is_and else 1, start, end, boolean=True)
                kept.append(v)
                break
            kept.append(v)
        if not kept:
            return _Value(None, 1 if is_and else 0, start, end, boolean=True)
        fns = tuple(v.func() for v in kept)
        if len(fns) == 1:
            fn = fns[0] if kept[0].boolean else _truth(fns[0])
        elif len(fns) == 2:
            f, g = fns
            if is_and:
                fn = lambda t, s: 1 if f(t, s) and g(t, s) else 0  # noqa: E731
            else:
                fn = lambda t, s: 1 if f(t, s) or g(t, s) else 0  # noqa: E731
        elif is_and:
            fn = lambda t, s: 1 if all(f(t, s) for f in fns) else 0  # noqa: E731
        else:
            fn = lambda t, s: 1 if any(f(t, s) for f in fns) else 0  # noqa: E731
        return _derived(fn, kept, start, end, boolean=True)

    def and_test(self, meta: Meta, children: list[Any]) -> _Value:
        return self._logic(meta, children, True)

    def or_test(self, meta: Meta, children: list[Any]) -> _Value:
        return self._logic(meta, children, False)

    def conditional(self, meta: Meta, children: list[Any]) -> _Value:
        cond, a, b = (self._expr(c) for c in children)
        start, end = meta.start_pos, meta.end_pos
        if cond.const is not None:
            chosen = a if cond.const else b
            return attrs.evolve(chosen, start=start, end=end)
        fc, fa, fb = cond.fn, a.func(), b.func()
        return _derived(
            lambda t, s: fa(t, s) if fc(t, s) else fb(t, s),
            [cond, a, b],
            start,
            end,
            boolean=a.boolean and b.boolean,
            bound=max(_mag(a), _mag(b)),
            least=_smallest([_low(a), _low(b)]),
        )

    # -- function calls ---------------------------------------------------------

    def call(self, meta: Meta, children: list[Any]) -> _Value:
        name_tok, args = children
        call = _Call(str(name_tok), cast(int, name_tok.start_pos), args or [], meta.start_pos, meta.end_pos)
        compile_call = self._CALLS.get(call.name)
        if compile_call is None:
            hint = _did_you_mean(call.name, self._CALLS)
            if not hint:
                hint = "; functions are " + ", ".join(sorted(self._CALLS))
            self._problem(call.at, f"unknown function '{call.name}'{hint}")
            return self._dummy(call.start, call.end)
        return compile_call(self, call)

    def _arity(self, call: _Call, message: str) -> _Value:
        """A call with the wrong number of arguments: ``message`` says how many it takes."""
        self._problem(call.at, f"{call.name}() {message}, got {len(call.args)}")
        return self._dummy(call.start, call.end)

    def _on_selector(self, call: _Call, fn: Callable[[tuple[int, ...] | None, int, int], _Value]) -> _Value:
        """``count``, ``groups``, ``kinds``: at most one argument, a selector (none: every card)."""
        if len(call.args) > 1:
            return self._arity(call, "takes at most 1 argument (a selector)")
        sel = None
        if call.args:
            sel = self._selector(call.args[0], call.name)
            if sel is None:
                return self._dummy(call.start, call.end)
        return attrs.evolve(fn(sel, call.start, call.end), least=0)  # a number of cards, kinds or groups

    def _count_call(self, call: _Call) -> _Value:
        return self._on_selector(call, self._fn_count)

    def _groups_call(self, call: _Call) -> _Value:
        return self._on_selector(call, self._fn_groups)

    def _kinds_call(self, call: _Call) -> _Value:
        return self._on_selector(call, self._fn_kinds)

    def _sum_call(self, call: _Call) -> _Value:
        """``sum(ATTRIBUTE[, SELECTOR])``."""
        args, start, end = call.args, call.start, call.end
        if len(args) not in (1, 2):
            return self._arity(call, "takes 1 or 2 arguments (an attribute, then optionally a selector)")
        attr = args[0]
        if not isinstance(attr, _Name):
            where = attr.start if isinstance(attr, (_Value, _Union)) else attr.kind.start_pos
            self._problem(where, "sum() needs a card attribute name first, as in sum(icons) or sum(icons, tag:maki)")
            return self._dummy(start, end)
        word = str(attr.token)
        if not self.catalogue.has_attribute(word):
            self._problem(
                cast(int, attr.token.start_pos),
                f"unknown attribute '{word}'{_did_you_mean(word, self.catalogue.attribute_names)}",
            )
            return self._dummy(start, end)
        sel = None
        if len(args) == 2:
            sel = self._selector(args[1], call.name)
            if sel is None:
                return self._dummy(start, end)
        return self._fn_sum(word, sel, start, end)

    def _largest_group_call(self, call: _Call) -> _Value:
        if call.args:
            return self._arity(call, "takes no arguments")
        return attrs.evolve(self._fn_largest_group(call.start, call.end), least=0)

    def _aggregate_call(self, call: _Call) -> _Value:
        """``max_players(...)`` and the other player aggregates: one argument, nested at most so deep."""
        if len(call.args) != 1:
            return self._arity(call, "takes exactly 1 argument")
        inner = self._expr(call.args[0])
        if inner.aggregates >= ExpressionLimits.max_aggregate_depth:
            self._problem(
                call.at,
                f"player aggregates nested too deeply: at most {ExpressionLimits.max_aggregate_depth} levels",
            )
            return self._dummy(call.start, call.end)
        return self._fn_aggregate(call.name, inner, call.start, call.end)

    def _min_max_call(self, call: _Call) -> _Value:
        """``min(a, b, ...)``, ``max(a, b, ...)``: two arguments or more."""
        fname, start, end = call.name, call.start, call.end
        if len(call.args) < 2:
            other = "largest" if fname == "max" else "smallest"
            return self._arity(
                call, f"takes at least 2 arguments (for the {other} value among the players, use {fname}_players(...))"
            )
        values = [self._expr(a) for a in call.args]
        pick = min if fname == "min" else max
        if all(v.const is not None for v in values):
            return _Value(None, pick(cast(int, v.const) for v in values), start, end)
        fns = tuple(v.func() for v in values)
        if len(fns) == 2:
            f, g = fns
            if pick is min:
                fn = lambda t, s: min(f(t, s), g(t, s))  # noqa: E731
            else:
                fn = lambda t, s: max(f(t, s), g(t, s))  # noqa: E731
        else:
            fn = lambda t, s: pick([f(t, s) for f in fns])  # noqa: E731
        return _derived(
            fn,
            values,
            start,
            end,
            boolean=all(v.boolean for v in values),
            bound=max(_mag(v) for v in values),
            # min: the least of the lows; max: the greatest known low (an unknown one can only raise it)
            least=_smallest([_low(v) for v in values])
            if pick is min
            else max((x for x in (_low(v) for v in values) if x is not None), default=None),
        )

    def _abs_call(self, call: _Call) -> _Value:
        if len(call.args) != 1:
            return self._arity(call, "takes exactly 1 argument")
        v = self._expr(call.args[0])
        if v.const is not None:
            return _Value(None, abs(v.const), call.start, call.end)
        f = v.fn
        fn = lambda t, s: abs(f(t, s))  # noqa: E731
        low = _low(v)
        return _derived(fn, [v], call.start, call.end, boolean=v.boolean, bound=_mag(v), least=max(0, low or 0))

    #: every function of the language: its name -> what compiles a call of it
    _CALLS: dict[str, Callable[[_Compiler, _Call], _Value]] = {
        "count": _count_call,
        "sum": _sum_call,
        "groups": _groups_call,
        "kinds": _kinds_call,
        "largest_group": _largest_group_call,
        **dict.fromkeys(_AGGREGATES, _aggregate_call),
        "min": _min_max_call,
        "max": _min_max_call,
        "abs": _abs_call,
    }

    # The seat's own cards.  ``sel`` is a tuple of card indices, or None for all.

    def _fn_count(self, sel: tuple[int, ...] | None, start: int, end: int) -> _Value:
        if sel is None:
            return _Value(lambda t, s: len(t.cards[s]), None, start, end, reads=None, bound=self._deck)
        bound = sum(self.catalogue.cards[i].count for i in sel)
        if len(sel) == 1:
            (i,) = sel
            fn = lambda t, s: t.counts[s][i]  # noqa: E731
        elif len(sel) == 2:
            i, j = sel

            def fn(t: Tableau, s: int) -> int:
                c = t.counts[s]
                return c[i] + c[j]
        else:
            get = operator.itemgetter(*sel)
            fn = lambda t, s: sum(get(t.counts[s]))  # noqa: E731
        return _Value(fn, None, start, end, reads=frozenset(sel), bound=bound)

    def _fn_sum(self, attribute: str, sel: tuple[int, ...] | None, start: int, end: int) -> _Value:
        weights = self.catalogue.attribute_vector(attribute)
        candidates = range(len(weights)) if sel is None else sel
        pairs = [(i, weights[i]) for i in candidates if weights[i]]
        if not pairs:
            return _Value(None, 0, start, end)
        idx = tuple(i for i, _ in pairs)
        ws = tuple(w for _, w in pairs)
        reads = frozenset(idx)
        bound = sum(self.catalogue.cards[i].count * abs(w) for i, w in pairs)
        # negative weights: no least (a table may hold more copies than the catalogue lists)
        least = 0 if all(w > 0 for w in ws) else None
        if len(set(ws)) == 1:
            w = ws[0]
            counted = self._fn_count(idx, start, end)
            if w == 1:
                return attrs.evolve(counted, least=0)
            f = counted.fn
            return _Value(lambda t, s: f(t, s) * w, None, start, end, reads=reads, bound=bound, least=least)
        get = operator.itemgetter(*idx)
        mul = operator.mul
        fn = lambda t, s: sum(map(mul, get(t.counts[s]), ws))  # noqa: E731
        return _Value(fn, None, start, end, reads=reads, bound=bound, least=least)

    def _members_by_group(self, sel: tuple[int, ...] | None) -> tuple[tuple[int, ...], ...]:
        """For each colour group with a selected card, the selected card indices in it."""
        by_group: dict[int, list[int]] = {}
        for i in range(self.catalogue.size) if sel is None else sel:
            if self._group_index[i] >= 0:  # a card of no colour is in no group
                by_group.setdefault(self._group_index[i], []).append(i)
        return tuple(tuple(members) for members in by_group.values())

    def _fn_groups(self, sel: tuple[int, ...] | None, start: int, end: int) -> _Value:
        reads = None if sel is None else frozenset(sel)
        by_group = self._members_by_group(sel)
        if len(by_group) == 1:
            (members,) = by_group
            if len(members) == 1:
                (i,) = members
                return _Value(lambda t, s: 1 if t.counts[s][i] else 0, None, start, end, reads=reads, boolean=True)
            get: Any = operator.itemgetter(*members) if len(members) > 1 else None
            return _Value(lambda t, s: 1 if any(get(t.counts[s])) else 0, None, start, end, reads=reads, boolean=True)
        if sel is None and min(self._group_index, default=0) >= 0:
            gi = self._group_index
            return _Value(
                lambda t, s: len({gi[c] for c in t.cards[s]}), None, start, end, reads=None, bound=len(by_group)
            )

        def fn(t: Tableau, s: int) -> int:
            c = t.counts[s]
            n = 0
            for members in by_group:
                for i in members:
                    if c[i]:
                        n += 1
                        break
            return n

        return _Value(fn, None, start, end, reads=reads, bound=len(by_group))

    def _fn_kinds(self, sel: tuple[int, ...] | None, start: int, end: int) -> _Value:
        if sel is None:
            return _Value(lambda t, s: len(set(t.cards[s])), None, start, end, reads=None, bound=self.catalogue.size)
        reads = frozenset(sel)
        if len(sel) == 1:
            (i,) = sel
            return _Value(lambda t, s: 1 if t.counts[s][i] else 0, None, start, end, reads=reads, boolean=True)
        get = operator.itemgetter(*sel)
        n = len(sel)
        return _Value(lambda t, s: n - get(t.counts[s]).count(0), None, start, end, reads=reads, bound=n)

    def _fn_largest_group(self, start: int, end: int) -> _Value:
        by_group = self._members_by_group(None)
        if all(len(m) == 1 for m in by_group) and min(self._group_index, default=0) >= 0:
            return _Value(lambda t, s: max(t.counts[s], default=0), None, start, end, reads=None, bound=self._deck)

        def fn(t: Tableau, s: int) -> int:
            c = t.counts[s]
            best = 0
            for members in by_group:
                n = 0
                for i in members:
                    n += c[i]
                if n > best:
                    best = n
            return best

        return _Value(fn, None, start, end, reads=None, bound=self._deck)

    def _fn_aggregate(self, fname: str, v: _Value, start: int, end: int) -> _Value:
        f = v.func()
        what, over = fname.split("_")
        if over == "players":
            if what == "max":
                fn = lambda t, s: max([f(t, o) for o in range(t.num_seats)], default=0)  # noqa: E731
            elif what == "min":
                fn = lambda t, s: min([f(t, o) for o in range(t.num_seats)], default=0)  # noqa: E731
            elif what == "sum":
                fn = lambda t, s: sum([f(t, o) for o in range(t.num_seats)])  # noqa: E731
            else:
                fn = lambda t, s: sum([1 for o in range(t.num_seats) if f(t, o)])  # noqa: E731
        else:
            if what == "max":
                fn = lambda t, s: max([f(t, o) for o in range(t.num_seats) if o != s], default=0)  # noqa: E731
            elif what == "min":
                fn = lambda t, s: min([f(t, o) for o in range(t.num_seats) if o != s], default=0)  # noqa: E731
            elif what == "sum":
                fn = lambda t, s: sum([f(t, o) for o in range(t.num_seats) if o != s])  # noqa: E731
            else:
                fn = lambda t, s: sum([1 for o in range(t.num_seats) if o != s and f(t, o)])  # noqa: E731
        seats = ExpressionLimits.bound_seats
        bound = {"max": _mag(v), "min": _mag(v), "sum": seats * _mag(v)}.get(what, seats)
        low = _low(v)
        if what in ("max", "min"):  # over no other seat: 0
            least: int | None = low if over == "players" or low is None else min(0, low)
        else:
            least = 0 if what == "count" or _at_least(v, 0) else None
        return _Value(
            fn,
            None,
            start,
            end,
            local=False,
            reads=v.reads,
            aggregates=v.aggregates + 1,
            cost=(1,) + v.cost,
            bound=bound,
            least=least,
        )  # n evaluations of the argument


# ---------------------------------------------------------------------------
# Entry point

_TOO_DEEP = "expression nested too deeply: more than {} levels of parentheses, calls or operators"
_LEAVES = frozenset({"number", "true", "false", "name", "qualified"})


def _scan_parentheses(text: str) -> tuple[int | None, list[int], int | None]:
    """One plain pass over the text: ``(too_deep_at, unclosed, stray_close)``.

    ``too_deep_at`` is the offset of the first ``(`` past the depth limit (or None);
    ``unclosed`` the offsets of the ``(`` still open at the end; ``stray_close`` the
    offset of the first ``)`` without a ``(`` (or None).
    """
    open_at: list[int] = []
    stray_close = None
    for pos, ch in enumerate(text):
        if ch == "(":
            open_at.append(pos)
            if len(open_at) > ExpressionLimits.max_depth:
                return pos, open_at, stray_close
        elif ch == ")":
            if open_at:
                open_at.pop()
            elif stray_close is None:
                stray_close = pos
    return None, open_at, stray_close


def _too_deep(tree: Tree[Token]) -> int | None:
    """Offset of the first node nested deeper than the limit, found without recursion."""
    stack = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if node.data in _LEAVES:
            continue
        if node.data != "arguments":
            depth += 1
            if depth > ExpressionLimits.max_depth:
                return node.meta.start_pos
        for child in node.children:
            if isinstance(child, Tree):
                stack.append((child, depth))
    return None


def compile_expression(
    text: str,
    catalogue: Catalogue,
    *,
    file: str = "<expr>",
    locate: Callable[[int], tuple[int, int]] | None = None,
    source_lines: Sequence[str] | None = None,
    boolean: bool = False,
    trees: dict[str, Tree[Token]] | None = None,
) -> CompiledExpression:
    """Compile ``text`` against ``catalogue`` (see the module docstring for the language).

    ``trees``: texts parsed before (by this function, given the same dictionary), kept
    from call to call: the scoring bounds compile an expression again for each boosted
    count of its cards, and parsing is most of a compile.
    ``locate(offset)`` maps a 0-based offset in ``text`` to the 1-based
    ``(line, column)`` in ``file`` (default: line 1, column ``offset + 1``);
    ``source_lines`` are the file's lines, for the code frame under a message.
    ``boolean=True`` compiles a condition: the closure returns 1 or 0.
    Raises :class:`RulesetError` for every problem found.
    """

    def located(problems: list[tuple[int, str]], severity: str = "error") -> list[Diagnostic]:
        diagnostics = []
        for offset, message in problems:
            if locate is None:
                line, column = 1, offset + 1
            else:
                line, column = locate(offset)
            if source_lines is not None:
                src = source_lines[line - 1].rstrip("\r\n") if 1 <= line <= len(source_lines) else None
            elif locate is None:
                src = text.replace("\r", " ").replace("\n", " ").replace("\t", " ")
            else:
                src = None
            diagnostics.append(Diagnostic(file, line, column, message, severity, source_line=src))
        return diagnostics

    def fail(problems: list[tuple[int, str]]) -> RulesetError:
        return RulesetError(located(problems))

    tree = trees.get(text) if trees is not None else None
    if tree is None:
        tree = _parsed(text, fail)
        if trees is not None:
            trees[text] = tree

    def site(offset: int) -> tuple[str, int, int]:
        line, column = (1, offset + 1) if locate is None else locate(offset)
        return (file, line, column)

    compiler = _Compiler(text, catalogue, site)
    value = compiler.expression_of(compiler.transform(tree))
    if compiler.problems:
        raise fail(compiler.problems)

    if value.const is not None:
        k = (1 if value.const else 0) if boolean else value.const
        fn = _const_fn(k)
    elif boolean and not value.boolean:
        fn = _truth(value.fn)
    else:
        fn = value.fn
    return CompiledExpression(
        text=text,
        fn=fn,
        is_local=value.local,
        reads=value.reads,
        cost=value.cost,
        may_fail=compiler.may_fail,
        bound=_mag(value),
        warnings=tuple(located(compiler.notes, "warning")),
        least=0 if boolean else _low(value),  # a condition is 0 or 1; None: nothing is known
    )


def _parsed(text: str, fail: Callable[[list[tuple[int, str]]], RulesetError]) -> Tree[Token]:
    """``text``'s parse tree, within the language's limits of length and depth (else ``fail``'s error)."""
    limits = ExpressionLimits
    if len(text) > limits.max_length:
        raise fail([(0, f"expression too long: {len(text)} characters (at most {limits.max_length})")])
    if not text.strip():
        raise fail([(0, "empty expression")])
    too_deep_at, unclosed, stray_close = _scan_parentheses(text)
    if too_deep_at is not None:
        raise fail([(too_deep_at, _TOO_DEEP.format(limits.max_depth))])
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as err:
        raise fail([_syntax_error(err, text, unclosed, stray_close)]) from None
    deep = _too_deep(tree)
    if deep is not None:
        raise fail([(deep, _TOO_DEEP.format(limits.max_depth))])
    return tree
