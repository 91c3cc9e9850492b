"""Rule-file expressions as kernel source: the text parsed again with the language's
own grammar and written as an integer expression over the kernel's arrays.

The language compiles an expression to closures (:mod:`ruledraft.language.expression`);
the kernel needs the same value as plain code. Only the constructs below have a
kernel form yet; any other makes :func:`expression_source` raise :class:`NoKernelForm`
with the reason, and the ruleset is then played on the reference engine.

The text has been checked by the language already (names exist, arities hold), so
this walk only translates.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any

from ruledraft.language.catalogue import Catalogue
from ruledraft.language.compiled_expression import GRAMMAR_FILE

if TYPE_CHECKING:
    from lark import Lark


class NoKernelForm(Exception):
    """A construct the kernel cannot compile yet (the message says which)."""


@cache
def _parser() -> Lark:
    from lark import Lark  # only where a rule file writes an expression

    return Lark(GRAMMAR_FILE.read_text(encoding="utf-8"), parser="lalr", lexer="basic", maybe_placeholders=True)


_COMPARE = ("==", "!=", "<", "<=", ">", ">=")


#: ``add_function(body) -> name``: a compiled function ``(counts, seq, lens, rnd, s)``
#: of the given body lines (a player aggregate needs one for its argument and one for itself)
AddFunction = Callable[[list[str]], str]

_AGGREGATES = {f"{what}_{over}" for what in ("max", "min", "sum", "count") for over in ("players", "opponents")}


def expression_source(text: str, catalogue: Catalogue, add_function: AddFunction | None = None) -> str:
    """``text`` as a numba expression of ``counts``, ``lens``, ``rnd`` and seat ``s``
    (functions it needs, for player aggregates, are made through ``add_function``)."""
    return _Writer(catalogue, add_function).value(_parser().parse(text))


class _Writer:
    def __init__(self, catalogue: Catalogue, add_function: AddFunction | None) -> None:
        self.catalogue = catalogue
        self.add_function = add_function

    def value(self, node: Any) -> str:
        if isinstance(node, str):  # a leaf (lark's Token is a str), not a tree
            raise NoKernelForm(f"'{node}' alone is no value")
        kind = node.data
        kids = node.children
        if kind == "number":
            return str(int(kids[0]))
        if kind == "true":
            return "1"
        if kind == "false":
            return "0"
        if kind == "name":
            word = str(kids[0])
            if word == "players":
                return "lens.shape[0]"
            if word == "round":
                return "rnd"
            raise NoKernelForm(f"the name '{word}'")
        if kind == "negative":
            return f"(-{self.value(kids[1])})"
        if kind == "arith":
            out = self.value(kids[0])
            for op, item in zip(kids[1::2], kids[2::2]):
                out = f"({out} {op} {self.value(item)})"
            return out
        if kind == "term":
            out = self.value(kids[0])
            for op, item in zip(kids[1::2], kids[2::2]):
                if str(op) == "*":
                    out = f"({out} * {self.value(item)})"
                    continue
                # the language divides rounding toward zero; by a constant only (never by 0)
                if not (not isinstance(item, str) and item.data == "number" and int(str(item.children[0])) > 0):
                    raise NoKernelForm(f"'{op}' by a value that is not a positive constant")
                d = int(str(item.children[0]))
                quotient = f"(abs({out}) // {d} * (1 if {out} >= 0 else -1))"
                out = quotient if str(op) == "/" else f"({out} - {d} * {quotient})"
            return out
        if kind == "compare":
            op = str(kids[1])
            assert op in _COMPARE
            return f"(1 if {self.value(kids[0])} {op} {self.value(kids[2])} else 0)"
        if kind == "logical_not":
            return f"(0 if {self.value(kids[0])} != 0 else 1)"
        if kind in ("and_test", "or_test"):
            join = " and " if kind == "and_test" else " or "
            return "(1 if " + join.join(f"{self.value(k)} != 0" for k in kids) + " else 0)"
        if kind == "conditional":
            c, a, b = (self.value(k) for k in kids)
            return f"({a} if {c} != 0 else {b})"
        if kind == "call":
            return self.call(str(kids[0]), list(kids[1].children) if kids[1] is not None else [])
        raise NoKernelForm(f"the construct '{kind}'")

    def call(self, name: str, args: list[Any]) -> str:
        cat = self.catalogue
        if name == "count":
            if not args:
                return "lens[s]"
            return self.weighted(self.selector(args[0]), [1] * cat.size)
        if name == "sum":
            weights = cat.attribute_vector(str(args[0].children[0]))
            sel = self.selector(args[1]) if len(args) == 2 else tuple(range(cat.size))
            return self.weighted(sel, list(weights))
        if name in ("min", "max"):
            return f"{name}(" + ", ".join(self.value(a) for a in args) + ")"
        if name in ("groups", "largest_group"):
            sel = self.selector(args[0]) if args else tuple(range(cat.size))
            groups: dict[int, list[int]] = {}
            for i in sel:
                if cat.group_index[i] >= 0:  # a card of no colour is in no group
                    groups.setdefault(cat.group_index[i], []).append(i)
            if name == "groups":
                return self.any_of([tuple(m) for m in groups.values()])
            return "max(0, " + ", ".join(self.weighted(tuple(m), [1] * cat.size) for m in groups.values()) + ")"
        if name == "kinds":
            sel = self.selector(args[0]) if args else tuple(range(cat.size))
            return self.any_of([(i,) for i in sel])
        if name in _AGGREGATES:
            return self.aggregate(name, args[0])
        if name == "abs":
            return f"abs({self.value(args[0])})"
        raise NoKernelForm(f"the function {name}()")

    @staticmethod
    def any_of(groups: list[tuple[int, ...]]) -> str:
        """How many of ``groups`` have a card on the seat's table."""
        terms = ["(1 if " + " or ".join(f"counts[s, {i}] > 0" for i in g) + " else 0)" for g in groups if g]
        return "(" + (" + ".join(terms) or "0") + ")"

    def aggregate(self, name: str, arg: Any) -> str:
        """A player aggregate: its argument for every seat (or every other), folded."""
        if self.add_function is None:
            raise NoKernelForm(f"the function {name}() here")
        inner = self.add_function([f"return {self.value(arg)}"])
        what, over = name.split("_")
        fold = {
            "max": ["if not found or v > acc:", "    acc = v", "    found = True"],
            "min": ["if not found or v < acc:", "    acc = v", "    found = True"],
            "sum": ["acc += v"],
            "count": ["if v != 0:", "    acc += 1"],
        }[what]
        body = [
            "acc = 0",
            "found = False",
            "for o in range(lens.shape[0]):",
            *(["    if o == s:", "        continue"] if over == "opponents" else []),
            f"    v = {inner}(counts, seq, lens, rnd, o)",
            *("    " + line for line in fold),
            "return acc",
        ]
        return f"{self.add_function(body)}(counts, seq, lens, rnd, s)"

    @staticmethod
    def weighted(sel: tuple[int, ...], weights: list[int]) -> str:
        terms = [f"counts[s, {i}]" + (f" * {weights[i]}" if weights[i] != 1 else "") for i in sel if weights[i]]
        return "(" + (" + ".join(terms) or "0") + ")"

    def selector(self, node: Any) -> tuple[int, ...]:
        cat = self.catalogue
        if node.data == "name":
            return (cat.index_of(str(node.children[0])),)
        if node.data == "qualified":
            kind, word = str(node.children[0]), str(node.children[1])
            return cat.select(tags=[word]) if kind == "tag" else cat.select(groups=[word])
        if node.data == "union":
            chosen: set[int] = set()
            for part in node.children:
                chosen.update(self.selector(part))
            return tuple(sorted(chosen))
        raise NoKernelForm("a selector that is not a card, tag or group")
