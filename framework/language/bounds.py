"""How many points a seat can reach in a game, bounded from the compiled ruleset.

Every expression's parts are bounded as they are compiled
(:attr:`~ruledraft.language.expression.ExpressionLimits.max_value`, 10**15), but a
seat's total is the sum of every rule's points over every scoring of a game, and
the other kinds multiply numbers too (a card's value times the copies in the deck,
a modifier's factor times a value, a majority's award times a quantity). The
compiled game kernel keeps points in 64-bit integers and the lab's statistics keep
them as floating-point numbers, exact below 2**53; so a ruleset whose totals could
pass the language's limit is refused at validation, at the number that makes it so.

The bound is worked out per rule from its settings and the deck alone (it never
plays a game): a card's points times the copies of it in the whole deck, a lookup
table's largest entry, a set's points times the cards there are, a majority's
largest awards (times its multiplier's bound), an expression's bound; a boost's, the
bounds of the rules it changes on the table before it and after it (each target
counted as many times as the boosts' factors multiplied, expressions bounded again). It is an
upper bound, far above what a real game reaches, and the bundled rulesets sit many
orders of magnitude below the limit. A plug-in kind's rules are left out of the sum:
each of their results is checked against the limit as it is scored
(:mod:`ruledraft.language.kinds.plugin_rule`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ruledraft.errors import RulesetError
from ruledraft.language.catalogue import Catalogue
from ruledraft.language.compiled_expression import ExpressionLimits
from ruledraft.language.kinds.plugin_rule import CheckedRule
from ruledraft.language.quantity import Quantity
from ruledraft.language.ruleset import CompiledRuleset

__all__ = ["MAX_TOTAL", "bound_problems", "rule_bound"]

#: the largest magnitude a seat's points over a game may reach: the language's value limit
MAX_TOTAL = ExpressionLimits.max_value

#: a document path (keys and list indices) and a message
Problem = tuple[tuple[str | int, ...], str]


def _largest(values: Any) -> int:
    """The largest magnitude among numbers (in nested tuples or mappings' values)."""
    if isinstance(values, bool):
        return int(values)
    if isinstance(values, int):
        return abs(values)
    if isinstance(values, Mapping):
        return max((_largest(v) for v in values.values()), default=0)
    if isinstance(values, Sequence) and not isinstance(values, str):
        return max((_largest(v) for v in values), default=0)
    return 0


@attrs.define
class BoundMemo:
    """What one check of a ruleset's bounds keeps from rule to rule: each expression's
    parse tree by its text, and its bound by its text and the card counts it was
    bounded on (a boost's table after it is the next boost's before)."""

    trees: dict[str, Any] = attrs.field(factory=dict)
    bounds: dict[tuple[str, tuple[int, ...]], int] = attrs.field(factory=dict)


def _quantity_bound(
    q: Quantity | None,
    ruleset: CompiledRuleset,
    expressions: int,
    catalogue: Catalogue | None = None,
    memo: BoundMemo | None = None,
) -> int:
    """The largest magnitude a quantity reaches (``expressions``: the rule's largest
    expression bound, for a quantity written as an expression; ``catalogue``: cards
    counted as a boost may count them, an expression then bounded again on them, its
    text parsed once and its bound on each table kept in ``memo``)."""
    cards = (catalogue or ruleset.catalogue).cards
    deck = sum(c.count for c in cards)
    if q is None:
        return 1
    form = q.form
    if not form:  # a plug-in's quantity: its rule's points are checked as it scores
        return MAX_TOTAL
    if form[0] == "count":
        return sum(cards[i].count for i in form[1])
    if form[0] == "sum":
        return sum(cards[i].count * abs(int(form[2][i])) for i in form[1])
    if form[0] == "distinct":
        return len(set(form[1]))
    if form[0] == "expr":
        if catalogue is None:
            return expressions
        memo = memo if memo is not None else BoundMemo()
        key = (form[1], tuple(c.count for c in cards))
        if key not in memo.bounds:
            from ruledraft.language.expression import compile_expression  # lark: only for an expression

            try:
                memo.bounds[key] = compile_expression(form[1], catalogue, trees=memo.trees).bound
            except RulesetError:  # past the language's limit with the boosted counts
                memo.bounds[key] = MAX_TOTAL + 1
        return memo.bounds[key]
    return deck


def _boosted(catalogue: Catalogue, boosts: Sequence[Any]) -> Catalogue:
    """``catalogue`` with each target of ``boosts`` counted as often as they all may make
    it count (their factors multiplied): what a table they changed can hold at most."""
    times = math.prod(b.factor for b in boosts)
    targets = {i for b in boosts for i in b.targets}
    return Catalogue(
        tuple(attrs.evolve(c, count=c.count * times) if c.index in targets else c for c in catalogue.cards)
    )


def rule_bound(
    rule: Any,
    ruleset: CompiledRuleset,
    expressions: int = 0,
    catalogue: Catalogue | None = None,
    memo: BoundMemo | None = None,
) -> int:
    """An upper bound on the magnitude of the points ``rule`` gives one seat in one
    scoring (``expressions``: the largest bound of the rule's expressions; ``catalogue``:
    the cards with the counts a boost may give them, for a rule a boost changes;
    ``memo``: what the bounds of the rules before kept for this one)."""
    if memo is None:
        memo = BoundMemo()
    cards = (catalogue or ruleset.catalogue).cards
    deck = sum(c.count for c in cards)
    kind = type(rule).__name__
    if kind == "Boost":  # what it changes: each rule it reads through, on the table before and after it
        earlier, changed = rule.links()
        base = catalogue or ruleset.catalogue
        before = _boosted(base, earlier) if earlier else base
        after = _boosted(base, (*earlier, rule))
        return sum(
            rule_bound(r, ruleset, expressions, before, memo) + rule_bound(r, ruleset, expressions, after, memo)
            for r in changed
        )
    if kind == "PerCard":
        return sum(cards[i].count * abs(int(rule.values[i])) for i in rule.indices)
    if kind == "Race":  # at most a place for each card, each worth at most the largest place
        return deck * max(_largest(rule.places.default), _largest(rule.places.by_seats))
    if kind == "Modifier":
        return sum(cards[i].count * abs(int(rule.extra[i])) for i in rule.targets)
    if kind == "Table":
        return _largest(rule.points)
    if kind == "Sets":  # at most one set a card
        return deck * max(abs(int(rule.points)), _largest(rule.table))
    if kind == "Majority":  # a seat may take a place among the most and among the fewest
        awards = sum(_largest(a.default) + _largest(a.by_seats) for a in (rule.most, rule.least))
        return awards * max(1, _quantity_bound(rule.multiplier, ruleset, expressions, catalogue, memo))
    if kind == "Neighbours":  # a result against each neighbour
        return 2 * _largest((rule.win, rule.tie, rule.loss))
    if kind == "Expression":
        return _quantity_bound(rule.quantity, ruleset, expressions, catalogue, memo)
    if isinstance(rule, CheckedRule):  # a plug-in's: each result is checked against the limit as it scores
        return 0
    # a kind not named above: its largest number for each card of the deck
    fields = attrs.asdict(rule, recurse=False) if attrs.has(type(rule)) else {}
    return deck * _largest({k: v for k, v in fields.items() if isinstance(v, (int, tuple, Mapping))})


def excess_by_effects(ruleset: CompiledRuleset) -> list[int | None]:
    """Per card type, how many more than its count card effects may put on a table (a
    special order's copies, cards turned face down: each effect's ``table_excess``), or
    None where only the whole deck bounds it."""
    cards = ruleset.catalogue.cards
    counts = [card.count for card in cards]
    more: list[int | None] = [0] * len(cards)
    for effect in ruleset.effects:
        excess = effect.table_excess(counts)
        for c in range(len(cards)) if excess is None else excess:
            n, before = None if excess is None else excess[c], more[c]
            more[c] = None if n is None or before is None else before + n
    return more


def grown_by_effects(ruleset: CompiledRuleset) -> Catalogue | None:
    """The cards with the copies a seat's table may hold once card effects have made
    more (:func:`excess_by_effects`, up to the whole deck), or None where no effect
    makes any: the counts every bound is taken on."""
    cards = ruleset.catalogue.cards
    deck = sum(c.count for c in cards)
    more = excess_by_effects(ruleset)
    if not any(m != 0 for m in more):
        return None
    return Catalogue(
        tuple(attrs.evolve(c, count=deck if m is None else min(deck, c.count + m)) for c, m in zip(cards, more))
    )


def _scorings(rule: Any, ruleset: CompiledRuleset) -> int:
    return 1 if rule.when == "game_end" else ruleset.rounds


def bound_problems(
    ruleset: CompiledRuleset, entries: Sequence[Any], expression_bounds: Mapping[int, int]
) -> list[Problem]:
    """The problems with ``ruleset``'s bounds, located in its document: ``entries`` are
    the document's scoring rules (in order), ``expression_bounds`` the largest bound
    of each one's expressions by its index. One problem at most: a seat's total over
    a game passing :data:`MAX_TOTAL`, at the rule that gives the most."""
    index = {e.get("id"): i for i, e in enumerate(entries) if isinstance(e, Mapping)}
    parts: list[tuple[int, int, int, Any]] = []  # (bound a game, a scoring, scorings, rule)
    every = max(expression_bounds.values(), default=0)  # for a rule not found by its id
    memo = BoundMemo()  # each expression parsed once, however many boosts bound it again
    grown = grown_by_effects(ruleset)  # cards effects make (copies, face-down cards) count too
    for rule in ruleset.rules:
        i = index.get(rule.id)
        each = rule_bound(
            rule, ruleset, expression_bounds.get(i, 0) if i is not None else every, catalogue=grown, memo=memo
        )
        times = _scorings(rule, ruleset)
        parts.append((each * times, each, times, rule))
    total = sum(p[0] for p in parts)
    if total <= MAX_TOTAL:
        return []
    game, each, times, rule = max(parts, key=lambda p: p[0])
    i = index.get(rule.id)
    path: tuple[str | int, ...] = ("scoring",) if i is None else ("scoring", i, *_largest_key(entries[i]))
    if rule.when == "game_end":
        scored = "at the game's end"
    else:
        scored = "at the round's end" if times == 1 else f"at the end of each of {times} rounds"
    return [
        (
            path,
            f"a seat's points over a game could reach {total:,} in size, above or below 0 (rule '{rule.id}' "
            f"alone up to {each:,} {scored}); totals must stay between -{MAX_TOTAL:,} and {MAX_TOTAL:,}, so that the game kernel "
            "and the statistics hold them exactly: use smaller numbers or fewer copies of the cards"
            + (" (counted with the copies card effects may add to a table)" if grown is not None else ""),
        )
    ]


def _largest_key(entry: Any) -> tuple[str | int, ...]:
    """The path, inside a rule's document, to its number of largest magnitude (an
    expression's text if it has one; empty: the rule itself)."""
    best: tuple[int, tuple[str | int, ...]] = (-1, ())

    def walk(value: Any, path: tuple[str | int, ...]) -> None:
        nonlocal best
        if isinstance(value, bool):
            return
        if isinstance(value, int):
            if abs(value) > best[0]:
                best = (abs(value), path)
        elif isinstance(value, Mapping):
            for k, v in value.items():
                if k != "capacity":
                    walk(v, (*path, k))
        elif isinstance(value, list):
            for j, v in enumerate(value):
                walk(v, (*path, j))

    if isinstance(entry, Mapping):
        for key in ("expr", "multiplier"):
            if key in entry:
                return (key,)
        walk(entry, ())
    return best[1]
