"""Tests for the ruleset expression language (ruledraft.language.expression)."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from ruledraft.errors import RulesetError, ScoringError
from ruledraft.language.catalogue import CardType, Catalogue
from ruledraft.language.expression import CompiledExpression, ExpressionLimits, compile_expression
from ruledraft.tableau import Tableau

# ---------------------------------------------------------------------------
# A small Sushi Go!-like catalogue, built by hand.

_CARDS = [
    # id, group, tags, attributes
    ("tempura", "tempura", (), {}),
    ("sashimi", "sashimi", (), {}),
    ("maki_1", "maki", ("maki",), {"icons": 1}),
    ("maki_2", "maki", ("maki",), {"icons": 2}),
    ("maki_3", "maki", ("maki",), {"icons": 3}),
    ("egg_nigiri", "nigiri", ("nigiri",), {"value": 1}),
    ("salmon_nigiri", "nigiri", ("nigiri",), {"value": 2}),
    ("squid_nigiri", "nigiri", ("nigiri",), {"value": 3}),
    ("wasabi", "nigiri", (), {}),
    ("edamame", "edamame", (), {}),
    ("pudding", "pudding", ("dessert",), {}),
]

CAT = Catalogue(
    tuple(
        CardType(
            index=i,
            id=cid,
            name=cid.replace("_", " ").title(),
            count=5,
            group=group,
            tags=frozenset(tags),
            attributes=dict(attrs_),
        )
        for i, (cid, group, tags, attrs_) in enumerate(_CARDS)
    )
)
IX = {c.id: c.index for c in CAT.cards}


def hand(*ids: str) -> list:
    """Card indices for card ids."""
    return [IX[i] for i in ids]


def table(*seats, round: int = 1) -> Tableau:
    """A tableau from each seat's card ids, in play order."""
    return Tableau.from_cards(CAT.size, [hand(*ids) for ids in seats], round=round)


EMPTY = table(())


def value(text: str, tab: Tableau = EMPTY, seat: int = 0, **kw) -> int:
    """Compile ``text`` and evaluate it for ``seat``."""
    return compile_expression(text, CAT, **kw).fn(tab, seat)


def errors(text: str, **kw) -> list:
    """``(line, column, message)`` of every diagnostic compiling ``text`` raises."""
    with pytest.raises(RulesetError) as info:
        compile_expression(text, CAT, **kw)
    return [(d.line, d.column, d.message) for d in info.value.diagnostics]


def only_error(text: str, **kw) -> tuple:
    """The single diagnostic compiling ``text`` raises."""
    found = errors(text, **kw)
    assert len(found) == 1, found
    return found[0]


# ---------------------------------------------------------------------------
# Arithmetic


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1 + 2 * 3", 7),
        ("(1 + 2) * 3", 9),
        ("10 - 4 - 3", 3),
        ("2 * 3 % 4", 2),
        ("-2 * 3", -6),
        ("2 * -3", -6),
        ("- - 4", 4),
        ("1 - -1", 2),
        ("100 / 10 / 5", 2),
        ("7 - 2 * 3 + 8 / 4", 3),
        ("999999 * 999999", 999999 * 999999),
    ],
)
def test_arithmetic_and_precedence(text, expected):
    """+ - * / % and unary minus follow the usual precedence and associativity."""
    assert value(text) == expected


@pytest.mark.parametrize(
    "a, b, quotient, remainder",
    [
        (7, 2, 3, 1),
        (-7, 2, -3, -1),
        (7, -2, -3, 1),
        (-7, -2, 3, -1),
        (6, 3, 2, 0),
        (-1, 2, 0, -1),
    ],
)
def test_division_rounds_toward_zero(a, b, quotient, remainder):
    """'/' rounds toward zero and '%' is the matching remainder, folded or at run time."""
    assert value(f"({a}) / ({b})") == quotient
    assert value(f"({a}) % ({b})") == remainder
    # The same through run-time closures (round is not a constant).
    tab = table((), round=a + 100)
    assert value(f"(round - 100) / ({b})", tab) == quotient
    assert value(f"(round - 100) % ({b})", tab) == remainder


@pytest.mark.parametrize(
    "text",
    [
        "1 / (count(sashimi) * 2)",
        "count(tempura) % count(sashimi)",
        "10 / count(sashimi)",
        "1 * 2 * 3 / 4 / count(sashimi)",
    ],
)
def test_division_by_zero_is_a_scoring_error_naming_the_expression(text):
    """Dividing by zero raises ScoringError when evaluated, and the message names the expression."""
    compiled = compile_expression(text, CAT)  # compiling is fine
    with pytest.raises(ScoringError) as info:
        compiled.fn(table(("tempura",)), 0)
    assert repr(text) in str(info.value)
    assert "by zero" in str(info.value)


def test_values_are_python_ints():
    """Results are ints, never bools, whatever the expression."""
    for text in ["true", "1 < 2", "not 0", "count(tempura) > 0 and true", "count(tempura) >= 1"]:
        result = value(text, table(("tempura",)))
        assert type(result) is int and result == 1


# ---------------------------------------------------------------------------
# Comparisons, logic, conditionals


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1 == 1", 1),
        ("1 == 2", 0),
        ("1 != 2", 1),
        ("2 != 2", 0),
        ("1 < 2", 1),
        ("2 < 2", 0),
        ("2 <= 2", 1),
        ("3 <= 2", 0),
        ("3 > 2", 1),
        ("2 > 2", 0),
        ("2 >= 2", 1),
        ("1 >= 2", 0),
        ("1 + 1 == 2", 1),
        ("-1 < 0", 1),
    ],
)
def test_comparisons(text, expected):
    """Comparisons give 1 or 0 and bind looser than arithmetic."""
    assert value(text) == expected


@pytest.mark.parametrize("op", ["==", "!=", "<", "<=", ">", ">="])
def test_comparisons_at_run_time_match_python(op):
    """Every comparison agrees with Python, with constants on either side or none."""
    tab = table(("tempura", "tempura"), round=3)
    for a, pa in [("count(tempura)", 2), ("round", 3), ("2", 2)]:
        for b, pb in [("count(tempura)", 2), ("round", 3), ("3", 3)]:
            expected = int(eval(f"{pa} {op} {pb}"))  # noqa: S307 - test oracle on literals
            assert value(f"{a} {op} {b}", tab) == expected, (a, op, b)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("true and true", 1),
        ("true and false", 0),
        ("false or true", 1),
        ("false or false", 0),
        ("not true", 0),
        ("not false", 1),
        ("not 5", 0),
        ("2 and 3", 1),
        ("0 or 7", 1),
        ("true or false and false", 1),
        ("not 1 == 2", 1),
        ("true + true", 2),
        ("false * 5", 0),
        ("1 and 2 and 3 and 0", 0),
        ("0 or 0 or 0 or 4", 1),
    ],
)
def test_booleans(text, expected):
    """and/or/not give 1 or 0; 'and' binds tighter than 'or'; true/false are 1/0."""
    assert value(text) == expected


def test_logic_at_run_time():
    """and/or/not work on run-time values, with any number of operands."""
    tab = table(("tempura", "maki_1"), ("sashimi",))
    assert value("count(tempura) > 0 and count(maki_1) > 0", tab, 0) == 1
    assert value("count(tempura) > 0 and count(maki_1) > 0", tab, 1) == 0
    assert value("count(tempura) or count(sashimi)", tab, 1) == 1
    assert value("count(tempura) or count(pudding) or count(edamame)", tab, 1) == 0
    assert value("count(tempura) and count(maki_1) and count(maki_1) and not count(sashimi)", tab, 0) == 1
    assert value("not count(tempura)", tab, 1) == 1
    assert value("count(tempura) and true", tab, 0) == 1
    assert value("false or count(sashimi)", tab, 1) == 1


def test_and_or_stop_early():
    """'and'/'or' do not evaluate the right side once the answer is known."""
    tab = table(("tempura",))
    assert value("false and 1 / count(sashimi)", tab) == 0
    assert value("count(sashimi) > 0 and 1 / count(sashimi) > 0", tab) == 0
    assert value("count(tempura) > 0 or 1 / count(sashimi) > 0", tab) == 1


@pytest.mark.parametrize(
    "text, expected",
    [
        ("if true then 1 else 2", 1),
        ("if 0 then 1 else 2", 2),
        ("if round == 2 then 10 else if round == 3 then 20 else 30", 20),
        ("1 + (if round > 1 then 5 else 0)", 6),
        ("if round > 5 then 1 else 2 + 3", 5),  # the else part reaches as far right as it can
        ("if count(tempura) == 2 then count(tempura) * 5 else 0", 10),
        ("if count(sashimi) then 1 / count(sashimi) else -1", -1),  # the untaken branch never runs
    ],
)
def test_conditional(text, expected):
    """if/then/else picks a branch by the condition and only evaluates that branch."""
    assert value(text, table(("tempura", "tempura"), round=3)) == expected


# ---------------------------------------------------------------------------
# Literals and variables


def test_players_and_round():
    """'players' is the number of seats and 'round' the round being scored."""
    tab = table((), (), (), round=2)
    assert value("players", tab) == 3
    assert value("round", tab) == 2
    assert value("players * 10 + round", tab) == 32


def test_nine_digit_literals():
    """Integer literals may have up to 9 digits; 10 digits is a located error."""
    assert value("999999999") == 999999999
    assert value("000000007") == 7
    assert only_error("1 + 1234567890") == (1, 5, "number too long: at most 9 digits")


# ---------------------------------------------------------------------------
# Functions on the seat's own cards


SEAT = table(
    ("tempura", "tempura", "maki_1", "maki_3", "salmon_nigiri", "wasabi", "egg_nigiri", "pudding"),
    ("sashimi", "maki_2", "maki_2", "maki_2"),
    (),
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("count()", 8),
        ("count(tempura)", 2),
        ("count(sashimi)", 0),
        ("count(tag:nigiri)", 2),
        ("count(group:nigiri)", 3),  # wasabi is in the nigiri group but has no nigiri tag
        ("count(group:maki)", 2),
        ("count(tempura | pudding)", 3),
        ("count(maki_1 | maki_2 | tag:nigiri)", 3),
        ("count(tempura | tempura)", 2),  # a union counts each card once
        ("count(tag:maki | group:maki)", 2),
        ("sum(icons)", 4),
        ("sum(icons, maki_3)", 3),
        ("sum(icons, maki_2 | maki_3)", 3),
        ("sum(value)", 3),
        ("sum(value, group:nigiri)", 3),  # wasabi has no 'value': it counts 0
        ("sum(value, tempura)", 0),
        ("groups()", 4),  # tempura, maki, nigiri (with wasabi), pudding
        ("groups(tag:maki)", 1),
        ("groups(tempura | sashimi | tag:nigiri)", 2),
        ("groups(sashimi)", 0),
        ("kinds()", 7),
        ("kinds(tag:maki)", 2),
        ("kinds(tempura)", 1),
        ("kinds(group:nigiri | sashimi)", 3),
        ("largest_group()", 3),  # salmon + egg + wasabi in the nigiri group
    ],
)
def test_own_card_functions(text, expected):
    """count/sum/groups/kinds/largest_group look at the current seat's cards."""
    assert value(text, SEAT, 0) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("count()", 4),
        ("count(maki_2)", 3),
        ("sum(icons)", 6),
        ("sum(icons, tag:maki)", 6),
        ("groups()", 2),
        ("kinds()", 2),
        ("largest_group()", 3),
        ("groups(group:maki)", 1),
    ],
)
def test_own_card_functions_other_seat(text, expected):
    """The same functions read the seat they are evaluated for."""
    assert value(text, SEAT, 1) == expected


@pytest.mark.parametrize(
    "text",
    [
        "count()",
        "count(tag:nigiri)",
        "sum(icons)",
        "sum(value, egg_nigiri)",
        "groups()",
        "groups(tag:maki)",
        "kinds()",
        "kinds(tempura | sashimi)",
        "largest_group()",
    ],
)
def test_own_card_functions_on_no_cards_are_zero(text):
    """With no cards every card function is 0."""
    assert value(text, SEAT, 2) == 0


def test_largest_group_like_tea():
    """largest_group() is the size of the biggest colour group (a Green-Tea-like rule)."""
    tab = table(("tempura", "maki_1", "maki_2", "maki_3", "sashimi", "sashimi"), ("pudding",), ())
    assert [value("largest_group()", tab, s) for s in range(3)] == [3, 1, 0]
    assert value("largest_group() * 2", tab, 0) == 6


def test_largest_group_when_every_group_has_one_card():
    """largest_group() also works on a catalogue whose groups each hold one card type."""
    cat = Catalogue(tuple(CardType(i, f"c{i}", f"C{i}", 1, f"g{i}") for i in range(3)))
    tab = Tableau.from_cards(3, [[0, 1, 1, 2, 1], []])
    compiled = compile_expression("largest_group()", cat)
    assert [compiled.fn(tab, s) for s in range(2)] == [3, 0]


# ---------------------------------------------------------------------------
# Player aggregates


AGG = table(
    ("tempura", "tempura", "edamame"),
    ("tempura",),
    ("edamame", "edamame", "sashimi", "sashimi"),
    (),
)


@pytest.mark.parametrize(
    "text, expected_by_seat",
    [
        ("max_players(count())", [4, 4, 4, 4]),
        ("min_players(count())", [0, 0, 0, 0]),
        ("sum_players(count(tempura))", [3, 3, 3, 3]),
        ("count_players(count(edamame) > 0)", [2, 2, 2, 2]),
        ("max_opponents(count())", [4, 4, 3, 4]),
        ("min_opponents(count())", [0, 0, 0, 1]),
        ("sum_opponents(count(tempura))", [1, 2, 3, 3]),
        ("count_opponents(count(edamame))", [1, 2, 1, 2]),
        ("count() - max_opponents(count())", [-1, -3, 1, -4]),
        ("if count() == max_players(count()) then 6 else 0", [0, 0, 6, 0]),
        ("count_players(count() == max_players(count()))", [1, 1, 1, 1]),  # nested aggregate
        ("sum_players(sum_opponents(count()))", [24, 24, 24, 24]),
    ],
)
def test_player_aggregates(text, expected_by_seat):
    """Aggregates evaluate their argument with each seat (or each other seat) in turn."""
    compiled = compile_expression(text, CAT)
    assert [compiled.fn(AGG, s) for s in range(4)] == expected_by_seat


def test_edamame_like_rule():
    """count(edamame) * min(4, opponents with edamame) scores like Sushi Go Party's Edamame."""
    rule = compile_expression("count(edamame) * min(4, count_opponents(count(edamame) > 0))", CAT)
    assert [rule.fn(AGG, s) for s in range(4)] == [1, 0, 2, 0]
    six = table(*[("edamame",)] * 6)
    assert [rule.fn(six, s) for s in range(6)] == [4] * 6  # capped at 4 opponents
    assert rule.is_local is False
    assert rule.reads == frozenset({IX["edamame"]})


def test_opponent_aggregates_with_a_single_seat_are_zero():
    """max/min/sum/count over no opponents are all 0."""
    solo = table(("tempura",))
    for fn in ("max", "min", "sum", "count"):
        assert value(f"{fn}_opponents(count() + 5)", solo) == 0
    assert value("max_players(count() + 5)", solo) == 6


# ---------------------------------------------------------------------------
# Arithmetic functions


@pytest.mark.parametrize(
    "text, expected",
    [
        ("min(3, 5)", 3),
        ("max(3, 5)", 5),
        ("min(4, 2, 9, 3)", 2),
        ("max(4, 2, 9, 3)", 9),
        ("abs(-4)", 4),
        ("abs(4)", 4),
        ("abs(2 - 9) + max(-1, -2)", 6),
        ("min(count(tempura), 1)", 1),
        ("max(count(sashimi), count(tempura), 1)", 2),
        ("abs(count(sashimi) - count(tempura))", 2),
        ("min(round, 10) * 2", 6),
    ],
)
def test_min_max_abs(text, expected):
    """min/max take two or more arguments, abs one; constant or not."""
    assert value(text, table(("tempura", "tempura"), round=3)) == expected


def test_boolean_mode_returns_zero_or_one():
    """With boolean=True the closure returns 1 for a truthy value and 0 otherwise."""
    tab = table(("tempura", "tempura", "tempura"), ())
    cond = compile_expression("count(tempura)", CAT, boolean=True)
    assert [cond.fn(tab, s) for s in range(2)] == [1, 0]
    assert compile_expression("7", CAT, boolean=True).fn(tab, 0) == 1
    assert compile_expression("0", CAT, boolean=True).fn(tab, 0) == 0
    assert compile_expression("count(tempura) - 3", CAT, boolean=True).fn(tab, 0) == 0
    assert compile_expression("count(tempura) >= 2", CAT, boolean=True).fn(tab, 0) == 1
    assert compile_expression("count(tempura)", CAT).fn(tab, 0) == 3  # numbers stay numbers


# ---------------------------------------------------------------------------
# What an expression looks at


@pytest.mark.parametrize(
    "text, is_local, reads",
    [
        ("3 + 4", True, frozenset()),
        ("players * round", True, frozenset()),
        ("count(tempura)", True, {"tempura"}),
        ("count(tag:maki) + count(sashimi)", True, {"maki_1", "maki_2", "maki_3", "sashimi"}),
        ("sum(icons)", True, {"maki_1", "maki_2", "maki_3"}),
        ("sum(value, group:nigiri)", True, {"egg_nigiri", "salmon_nigiri", "squid_nigiri"}),
        ("kinds(tempura | pudding)", True, {"tempura", "pudding"}),
        ("groups(tag:nigiri)", True, {"egg_nigiri", "salmon_nigiri", "squid_nigiri"}),
        ("count()", True, None),
        ("groups()", True, None),
        ("kinds()", True, None),
        ("largest_group() + count(tempura)", True, None),
        ("max_players(count(pudding))", False, {"pudding"}),
        ("count(pudding) == min_opponents(count(pudding))", False, {"pudding"}),
        ("count_opponents(count() > 0)", False, None),
        ("if true then count(tempura) else max_players(count())", True, {"tempura"}),  # folded away
    ],
)
def test_is_local_and_reads(text, is_local, reads):
    """is_local is false exactly when player aggregates are used; reads lists the cards looked at."""
    compiled = compile_expression(text, CAT)
    assert compiled.is_local is is_local
    if reads is None or reads == frozenset():
        assert compiled.reads == reads
    else:
        assert compiled.reads == frozenset(IX[c] for c in reads)


def test_compiled_expression_is_frozen_and_keeps_the_text():
    """CompiledExpression is immutable and remembers its source text."""
    compiled = compile_expression("count(tempura)", CAT)
    assert isinstance(compiled, CompiledExpression)
    assert compiled.text == "count(tempura)"
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        compiled.text = "1"  # type: ignore[misc]


def test_names_that_are_variables_are_card_ids_inside_selectors():
    """Inside a selector every bare name is a card id, even 'players' or 'round'."""
    cat = Catalogue((CardType(0, "round", "Round", 1, "shapes"), CardType(1, "count", "Count", 1, "x")))
    tab = Tableau.from_cards(2, [[0, 0, 1]], round=7)
    assert compile_expression("count(round) * 10 + round + count(count)", cat).fn(tab, 0) == 28


# ---------------------------------------------------------------------------
# Name errors: messages, exact lines and columns


@pytest.mark.parametrize(
    "text, column, message",
    [
        ("count(tempra)", 7, "unknown card 'tempra' (did you mean 'tempura'?)"),
        ("1 + count(maki_1 | tempra)", 20, "unknown card 'tempra' (did you mean 'tempura'?)"),
        ("count(xyzzy)", 7, "unknown card 'xyzzy'"),
        ("count(maki)", 7, "unknown card 'maki' (did you mean 'tag:maki'?)"),
        ("count(tag:nigri)", 11, "unknown tag 'nigri' (did you mean 'nigiri'?)"),
        ("count(group:zzz)", 13, "unknown group 'zzz'"),
        ("groups(group:nigir)", 14, "unknown group 'nigir' (did you mean 'nigiri'?)"),
        ("sum(icon)", 5, "unknown attribute 'icon' (did you mean 'icons'?)"),
        ("sum(icons, tag:mak)", 16, "unknown tag 'mak' (did you mean 'maki'?)"),
        (
            "count(tags:maki)",
            7,
            "unknown selector 'tags:' (did you mean 'tag'?); a selector is a card id, "
            "tag:NAME or group:NAME (or several joined with '|')",
        ),
        ("cout(tempura)", 1, "unknown function 'cout' (did you mean 'count'?)"),
        ("2 * max_player(count())", 5, "unknown function 'max_player' (did you mean 'max_players'?)"),
        ("x + 1", 1, "unknown name 'x'; expressions know 'players' and 'round'"),
        ("plyers * 2", 1, "unknown name 'plyers'; expressions know 'players' and 'round' (did you mean 'players'?)"),
        ("1 + rund", 5, "unknown name 'rund'; expressions know 'players' and 'round' (did you mean 'round'?)"),
        (
            "tempura * 2",
            1,
            "unknown name 'tempura'; expressions know 'players' and 'round' (to count a card, write count(tempura))",
        ),
        (
            "count + 1",
            1,
            "unknown name 'count'; expressions know 'players' and 'round' ('count' is a function: write count(...))",
        ),
    ],
)
def test_name_errors(text, column, message):
    """Unknown cards, tags, groups, attributes, functions and names are located at the name."""
    assert only_error(text) == (1, column, message)


def test_unknown_function_without_close_match_lists_functions():
    """An unknown function with no near miss lists the functions that exist."""
    line, column, message = only_error("1 + frobnicate(2)")
    assert (line, column) == (1, 5)
    assert message.startswith("unknown function 'frobnicate'; functions are abs, count, ")


def test_several_unknown_names_are_all_reported():
    """Every unknown name in an expression is reported, in order of position."""
    assert errors("count(tempra) + sum(icon, tag:mak) + plyers") == [
        (1, 7, "unknown card 'tempra' (did you mean 'tempura'?)"),
        (1, 21, "unknown attribute 'icon' (did you mean 'icons'?)"),
        (1, 38, "unknown name 'plyers'; expressions know 'players' and 'round' (did you mean 'players'?)"),
    ]


@pytest.mark.parametrize(
    "text, column, message",
    [
        ("count(tempura, sashimi)", 1, "count() takes at most 1 argument (a selector), got 2"),
        ("kinds(tempura, sashimi)", 1, "kinds() takes at most 1 argument (a selector), got 2"),
        ("sum()", 1, "sum() takes 1 or 2 arguments (an attribute, then optionally a selector), got 0"),
        (
            "sum(icons, maki_1, maki_2)",
            1,
            "sum() takes 1 or 2 arguments (an attribute, then optionally a selector), got 3",
        ),
        ("1 + largest_group(tempura)", 5, "largest_group() takes no arguments, got 1"),
        ("max_players()", 1, "max_players() takes exactly 1 argument, got 0"),
        ("count_opponents(1, 2)", 1, "count_opponents() takes exactly 1 argument, got 2"),
        (
            "max(count(tempura))",
            1,
            "max() takes at least 2 arguments (for the largest value among the players, use max_players(...)), got 1",
        ),
        (
            "min()",
            1,
            "min() takes at least 2 arguments (for the smallest value among the players, use min_players(...)), got 0",
        ),
        ("abs(1, 2)", 1, "abs() takes exactly 1 argument, got 2"),
    ],
)
def test_wrong_number_of_arguments(text, column, message):
    """A call with the wrong number of arguments is reported at the function name."""
    assert only_error(text) == (1, column, message)


@pytest.mark.parametrize(
    "text, column, message",
    [
        ("tag:nigiri", 1, "a selector like 'tag:nigiri' can only be used inside count(), sum(), groups() or kinds()"),
        (
            "max(group:maki, 1)",
            5,
            "a selector like 'group:maki' can only be used inside count(), sum(), groups() or kinds()",
        ),
        (
            "max(tempura | sashimi, 1)",
            5,
            "selectors joined with '|' can only be used inside count(), sum(), "
            "groups() or kinds(); to combine conditions write 'or'",
        ),
        (
            "count(1 + 2)",
            7,
            "count() expects a selector here: a card id, tag:NAME or group:NAME (or several joined with '|')",
        ),
        ("count(tempura | 2)", 17, "only card ids, tag:NAME and group:NAME can be joined with '|'"),
        ("sum(2, tempura)", 5, "sum() needs a card attribute name first, as in sum(icons) or sum(icons, tag:maki)"),
    ],
)
def test_selectors_only_where_selectors_belong(text, column, message):
    """Selectors outside count/sum/groups/kinds, and expressions where a selector belongs, are errors."""
    assert only_error(text) == (1, column, message)


# ---------------------------------------------------------------------------
# Syntax errors


@pytest.mark.parametrize(
    "text, column, message",
    [
        ("", 1, "empty expression"),
        ("   ", 1, "empty expression"),
        ("(1 + 2", 1, "unclosed parenthesis: this '(' has no matching ')'"),
        ("max(1, (count(tempura)", 8, "unclosed parenthesis: this '(' has no matching ')'"),
        ("1 + 2)", 6, "unmatched ')': there is no '(' before it"),
        ("1 +", 3, "the expression ends too early: something is missing after '+'"),
        ("count(tempura) *", 16, "the expression ends too early: something is missing after '*'"),
        ("not", 1, "the expression ends too early: something is missing after 'not'"),
        ("count(tempura) = 2", 16, "'=' is not an operator: to compare, write '=='"),
        ("round => 2", 7, "write '>=' or '<=' (the '=' comes second)"),
        ("count(tempura) > 0 && round > 1", 20, "write 'and' instead of '&&'"),
        ("count(tempura) > 0 || round > 1", 20, "write 'or' instead of '||'"),
        ("count(tempura || sashimi)", 15, "write 'or' instead of '||'"),
        ("!count(tempura)", 1, "write 'not' instead of '!'"),
        (
            "5 if count(tempura) > 1 else 0",
            3,
            "write a conditional as 'if CONDITION then A else B' (not 'A if CONDITION else B')",
        ),
        (
            "max(count(tempura) if round > 1 else 0, 2)",
            20,
            "write a conditional as 'if CONDITION then A else B' (not 'A if CONDITION else B')",
        ),
        ("(5) if round else 0", 5, "write a conditional as 'if CONDITION then A else B' (not 'A if CONDITION else B')"),
        (
            "count(tempura) * if round > 1 then 2 else 1",
            18,
            "a conditional inside a larger expression goes in parentheses: '2 * (if CONDITION then A else B)'",
        ),
        (
            "1 + if round > 1 then 2 else 1",
            5,
            "a conditional inside a larger expression goes in parentheses: '2 * (if CONDITION then A else B)'",
        ),
        ("if round > 1 5 else 0", 14, "a conditional needs 'then': write 'if CONDITION then A else B'"),
        ("if round > 1 then 5", 19, "a conditional needs 'else': write 'if CONDITION then A else B'"),
        ("if round", 4, "a conditional needs 'then': write 'if CONDITION then A else B'"),
        ("1 < round < 3", 11, "comparisons cannot be chained: write 'a < b and b < c' instead of 'a < b < c'"),
        (
            "count(tempura) == 1 == 1",
            21,
            "comparisons cannot be chained: write 'a < b and b < c' instead of 'a < b < c'",
        ),
        ("2 ** 3", 3, "there is no power operator: multiply instead ('x * x')"),
        ("2 ^ 3", 3, "there is no power operator: multiply instead ('x * x')"),
        ("1.5 * count(tempura)", 2, "whole numbers only: there are no decimal points"),
        ("count(tempura) * .5", 18, "whole numbers only: there are no decimal points"),
        (
            "maki_2.icons",
            7,
            "'.' is not part of the language: a value has no attributes or methods "
            "(the total of a card attribute is sum(ATTR) or sum(ATTR, SELECTOR))",
        ),
        (
            "count(tempura).__class__",
            15,
            "'.' is not part of the language: a value has no attributes or methods "
            "(the total of a card attribute is sum(ATTR) or sum(ATTR, SELECTOR))",
        ),
        ("count(tempura) 2", 16, "missing operator before '2'"),
        ("round count(tempura)", 7, "missing operator before 'count'"),
        ("max(1,, 2)", 7, "missing argument before ','"),
        ("max(1, 2,)", 10, "missing argument before ')'"),
        ("2 * ()", 6, "empty parentheses: put an expression inside"),
        (
            "count(tempura) | 1",
            16,
            "'|' only joins selectors inside count(), sum(), groups() or kinds(); to combine conditions write 'or'",
        ),
        ("round $ 2", 7, "unexpected character '$'"),
        ("__import__('os')", 12, 'unexpected character "\'"'),
        ("1 + * 2", 5, "unexpected '*'; expected '(', '-', 'false', 'true', a name, a number"),
    ],
)
def test_syntax_errors(text, column, message):
    """Syntax errors get a plain-words message located at the offending token."""
    assert only_error(text) == (1, column, message)


@pytest.mark.parametrize(
    "text, column", [("count(then)", 7), ("count(tempura) + else", 18), ("if then then 1 else 2", 4)]
)
def test_reserved_words_are_not_names(text, column):
    """Reserved words like 'then' are never names, wherever they appear: where only a name can stand, the message says so."""
    line, col, message = only_error(text)
    assert (line, col) == (1, column)
    if text == "count(then)":
        assert message == (
            "'then' is a word of the expression language, not a name: a card, tag or group called 'then'"
            " cannot be named in an expression (rename it)"
        )
    else:
        assert message.startswith("unexpected '")


@pytest.mark.parametrize(
    "text, column, word",
    [
        ("count(if)", 7, "if"),
        ("count(tag:and) + 1", 11, "and"),
        ("count(tempura, or)", 16, "or"),
        ("count(tag:true)", 11, "true"),
    ],
)
def test_a_word_of_the_language_where_a_name_stands_is_named_as_such(text, column, word):
    """count(if), count(tag:and), a list ending in 'or', tag:true: the error names the word and says it cannot be a name."""
    assert only_error(text) == (
        1,
        column,
        f"'{word}' is a word of the expression language, not a name: a card, tag or group called '{word}'"
        " cannot be named in an expression (rename it)",
    )


# ---------------------------------------------------------------------------
# Locations in a file


YAML_LINES = [f"# line {n}" for n in range(1, 12)] + [
    "  points: count(tempra) + cout(x) * sum(icon)",
    "  other: 1",
]


def locate_in_yaml(offset: int) -> tuple:
    """The expression starts at line 12, column 11 of the pretend YAML file."""
    return 12, 11 + offset


def test_locate_maps_errors_into_the_file():
    """A custom locate puts every diagnostic at its line and column in the rule file."""
    with pytest.raises(RulesetError) as info:
        compile_expression(
            "count(tempra) + cout(x) * sum(icon)", CAT, file="game.yaml", locate=locate_in_yaml, source_lines=YAML_LINES
        )
    found = [(d.file, d.line, d.column, d.message) for d in info.value.diagnostics]
    assert found == [
        ("game.yaml", 12, 17, "unknown card 'tempra' (did you mean 'tempura'?)"),
        ("game.yaml", 12, 27, "unknown function 'cout' (did you mean 'count'?)"),
        ("game.yaml", 12, 41, "unknown attribute 'icon' (did you mean 'icons'?)"),
    ]
    for d in info.value.diagnostics:
        assert d.source_line == YAML_LINES[11]
    first = info.value.diagnostics[0]
    assert YAML_LINES[11][first.column - 1 :].startswith("tempra")
    assert first.format(with_source=True) == (
        "game.yaml:12:17: error: unknown card 'tempra' (did you mean 'tempura'?)\n"
        "      points: count(tempra) + cout(x) * sum(icon)\n"
        "                    ^"
    )


def test_locate_maps_syntax_errors_into_the_file():
    """A syntax error is located through locate too, with the file line as code frame."""
    lines = [""] * 11 + ["  points: count(tempura) = 2"]
    with pytest.raises(RulesetError) as info:
        compile_expression("count(tempura) = 2", CAT, file="game.yaml", locate=locate_in_yaml, source_lines=lines)
    (d,) = info.value.diagnostics
    assert (d.file, d.line, d.column) == ("game.yaml", 12, 26)
    assert lines[11][d.column - 1] == "="
    assert d.format(with_source=True).endswith("\n    " + lines[11] + "\n    " + " " * 25 + "^")


def test_locate_over_several_lines():
    """Offsets in a multi-line expression are mapped by locate to the right line."""
    text = "count(tempura)\n  + cout(x)"
    starts = [0, text.index("\n") + 1]

    def locate(offset):
        line = 1 if offset < starts[1] else 2
        return 20 + line, 5 + offset - starts[line - 1]

    assert only_error(text, locate=locate) == (22, 9, "unknown function 'cout' (did you mean 'count'?)")


def test_default_location_and_code_frame():
    """By default errors are on line 1 at offset+1 and the code frame is the expression itself."""
    with pytest.raises(RulesetError) as info:
        compile_expression("1 + count(tempra)", CAT)
    (d,) = info.value.diagnostics
    assert (d.file, d.line, d.column) == ("<expr>", 1, 11)
    assert d.format(with_source=True) == (
        "<expr>:1:11: error: unknown card 'tempra' (did you mean 'tempura'?)\n    1 + count(tempra)\n              ^"
    )


# ---------------------------------------------------------------------------
# Limits


def test_very_deep_parentheses_are_a_clean_error():
    """10,000 nested parentheses give a RulesetError, never a RecursionError."""
    with pytest.raises(RulesetError):
        compile_expression("(" * 10_000 + "1" + ")" * 10_000, CAT)
    with pytest.raises(RulesetError):
        compile_expression("(" * 10_000, CAT)


def test_very_long_expression_is_a_clean_error():
    """A 100,000-character expression is refused as too long."""
    text = "1 + " * 25_000
    assert only_error(text) == (1, 1, f"expression too long: {len(text)} characters (at most 1000)")
    assert len("1" * ExpressionLimits.max_length) == 1000
    assert value("1" + " " * (ExpressionLimits.max_length - 1)) == 1


DEEP = f"expression nested too deeply: more than {ExpressionLimits.max_depth} levels of parentheses, calls or operators"


def test_nesting_deeper_than_the_limit_is_located():
    """Nesting past max_depth (parentheses, calls or operators) is a located error."""
    assert only_error("(" * 400 + "1" + ")" * 400) == (1, 33, DEEP)
    assert only_error("-" * 900 + "1")[2] == DEEP
    assert only_error("not " * 200 + "true")[2] == DEEP
    nested_if = "if round then 1 else " * 40 + "0"
    assert only_error(nested_if)[2] == DEEP


def test_nesting_at_the_limit_compiles():
    """32 nested calls or parentheses are fine; long flat chains do not count as nesting."""
    text = "1"
    for _ in range(ExpressionLimits.max_depth):
        text = f"max({text}, 2)"
    assert value(text) == 2
    n = ExpressionLimits.max_depth
    assert value("(" * n + "round" + ")" * n) == 1
    assert value(" + ".join(["round"] * 100)) == 100
    assert value("*".join(["(round>0)"] * 100), table((), round=2)) == 1
    assert value(" / ".join(["round"] * 100)) == 1
    assert value(" and ".join(["round"] * 99)) == 1
    assert value(" or ".join(["round"] * 99), table((), round=0)) == 0
    assert value("count(tempura)" + " - count(tempura)" * 50, table(("tempura",))) == -49


def test_player_aggregates_nest_at_most_three_deep():
    """Player aggregates nest up to max_aggregate_depth; deeper is a located error (the work would explode)."""
    three = "max_players(min_opponents(sum_players(count())))"
    assert ExpressionLimits.max_aggregate_depth == 3
    assert value(three, AGG) == 8  # every level sees the same total: 8 cards on the table
    assert only_error(f"1 + count_players({three} > 0)") == (
        1,
        5,
        "player aggregates nested too deeply: at most 3 levels",
    )


def test_nesting_one_past_the_limit_fails():
    """33 nested calls are refused."""
    text = "1"
    for _ in range(ExpressionLimits.max_depth + 1):
        text = f"max({text}, 2)"
    assert only_error(text)[2] == DEEP


# ---------------------------------------------------------------------------
# Properties


LEAVES = [("count(tempura)", "(3)"), ("count(tag:maki)", "(2)"), ("round", "(4)"), ("sum(icons)", "(5)")]
PROPERTY_TABLE = table(("tempura", "tempura", "tempura", "maki_2", "maki_3"), round=4)


def _render(parts):
    (a, pa), op, (b, pb), parenthesise = parts
    if parenthesise:
        return f"({a} {op} {b})", f"({pa} {op} {pb})"
    return f"{a} {op} {b}", f"{pa} {op} {pb}"


_literal = st.integers(min_value=-(10**9 - 1), max_value=10**9 - 1).map(lambda n: (str(n), str(n)))
_leaf = st.one_of(_literal, st.sampled_from(LEAVES))
arithmetic = st.recursive(
    _leaf,
    lambda inner: st.tuples(inner, st.sampled_from(["+", "-", "*"]), inner, st.booleans()).map(_render),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(arithmetic)
def test_integer_arithmetic_matches_python(pair):
    """Random + - * expressions (constant or read from cards) evaluate as Python computes them."""
    text, python_text = pair
    expected = eval(python_text, {"__builtins__": {}})  # noqa: S307 - oracle on generated literals
    try:
        got = value(text, PROPERTY_TABLE)
    except RulesetError as err:  # some part could pass ExpressionLimits.max_value: refused, never wrong
        assert "values must stay between" in str(err)
        return
    assert got == expected


@settings(max_examples=200, deadline=None)
@given(st.integers(-(10**6), 10**6), st.integers(-(10**6), 10**6).filter(bool))
def test_division_and_remainder_agree(a, b):
    """a / b truncates toward zero and (a / b) * b + a % b == a, folded or not."""
    tab = table((), round=a)
    q = value(f"round / ({b})", tab)
    r = value(f"round % ({b})", tab)
    assert q == int(a / b) if abs(a) < 2**52 else True
    assert q * b + r == a
    assert abs(r) < abs(b) and (r == 0 or (r > 0) == (a > 0))
    assert value(f"({a}) / ({b})") == q and value(f"({a}) % ({b})") == r


# Every form the least-value reasoning covers, over a catalogue with a negative
# attribute, evaluated on tables of one to four seats with any cards: more copies
# of a card than the catalogue lists too, as cards turned face down, copied or
# boosted make.
_SPICED = Catalogue(
    tuple(
        CardType(index=i, id=cid, name=cid, count=4, group=cid, tags=frozenset(), attributes={"heat": heat})
        for i, (cid, heat) in enumerate([("chili", 3), ("mint", -2), ("rice", 0)])
    )
)
_BOUNDED_LEAVES = [
    "count(chili)",
    "count()",
    "kinds()",
    "groups()",
    "largest_group()",
    "sum(heat)",
    "sum(heat, mint)",
    "round",
    "players",
    "(count(mint) > 1)",
]


def _bounded_form(parts):
    form, a, b = parts
    return form.format(a=a, b=b)


bounded = st.recursive(
    st.one_of(st.sampled_from(_BOUNDED_LEAVES), st.integers(-3, 3).map(lambda n: f"({n})")),
    lambda inner: st.tuples(
        st.sampled_from(
            [
                "({a} + {b})",
                "({a} - {b})",
                "({a} * {b})",
                "({a} / {b})",
                "({a} % {b})",
                "({a} * {b} / {a} % {b} * {a})",
                "(-{a})",
                "max({a}, {b})",
                "min({a}, {b}, 2)",
                "abs({a})",
                "(if {a} > {b} then {a} else {b})",
                "max_players({a})",
                "min_opponents({a})",
                "sum_opponents({b})",
                "count_players({a})",
            ]
        ),
        inner,
        inner,
    ).map(_bounded_form),
    max_leaves=8,
)
_spiced_tables = st.integers(1, 4).flatmap(
    lambda seats: st.tuples(
        st.lists(st.lists(st.integers(0, 2), max_size=8), min_size=seats, max_size=seats), st.integers(1, 5)
    )
)


@settings(max_examples=400, deadline=None)
@given(bounded, _spiced_tables)
@example("min_opponents(players)", ([[]], 1))  # no other seat: 0
@example("sum(heat)", ([[1, 1, 1, 1, 1]], 1))  # five mints of the four the catalogue lists
@example("10 / (5 - count(chili))", ([[0] * 5], 1))
@example("(count(mint) - sum(heat, mint) / (count() + 1))", ([[1, 1, 1], []], 2))
def test_a_value_never_goes_below_its_least_and_a_divisor_without_a_warning_is_never_zero(text, setup):
    """The compiled least is a true lower bound on any table, and only an expression warned of divides by 0."""
    try:
        compiled = compile_expression(text, _SPICED)
    except RulesetError as err:  # a constant 0 divisor: refused, not run
        assert "is always 0" in str(err)
        return
    seats, round_ = setup
    tab = Tableau.from_cards(_SPICED.size, seats, round=round_)
    for seat in range(len(seats)):
        try:
            got = compiled.fn(tab, seat)
        except ScoringError as err:  # only at a divisor warned of
            assert err.column in {d.column for d in compiled.warnings}, f"{text!r} divided by 0 with no warning there"
            assert compiled.may_fail
            continue
        assert compiled.least is None or got >= compiled.least, (text, got, compiled.least)


@pytest.mark.parametrize(
    ("text", "warned"),
    [
        ("count(chili) / count(mint)", ["count(mint)"]),
        ("count(chili) % (players - players)", ["players - players"]),
        ("count(chili) / (round - 1) + 1 / sum(heat)", ["round - 1", "sum(heat)"]),
        ("count(chili) / players + count() % round", []),
        ("count(chili) / max(1, count(mint)) + 7 / (count() + 1)", []),
        ("count(chili) / (2 * kinds() + players) + 5 / abs(-3)", []),
        ("count(chili) / (count(mint) > 0)", ["count(mint) > 0"]),
        ("10 / (4 - count(chili))", ["4 - count(chili)"]),  # a table can hold more than the 4 listed
        ("10 / (0 - players) + 3 % -round", []),  # always below 0: never 0
    ],
)
def test_a_divisor_is_warned_of_unless_it_is_always_above_zero(text, warned):
    """Each divisor that can be 0 gets a warning at its column naming it; one always above 0 gets none."""
    compiled = compile_expression(text, _SPICED)
    assert [(d.severity, d.column) for d in compiled.warnings] == [("warning", text.index(w) + 1) for w in warned]
    for d, w in zip(compiled.warnings, warned):
        assert d.message.startswith(f"{'remainder' if '%' in text else 'division'} by '{w}', which can be 0")
    assert compiled.may_fail is bool(warned)


_truth_leaf = st.sampled_from(
    [
        ("0", "0"),
        ("1", "1"),
        ("2", "2"),
        ("true", "True"),
        ("false", "False"),
        ("count(tempura)", "3"),
        ("count(sashimi)", "0"),
        ("round > 3", "(4 > 3)"),
        ("round < 3", "(4 < 3)"),
    ]
)


def _render_logic(parts):
    kind, (a, pa), (b, pb) = parts
    if kind == "not":
        return f"not ({a})", f"not ({pa})"
    return f"({a} {kind} {b})", f"({pa} {kind} {pb})"


logic = st.recursive(
    _truth_leaf,
    lambda inner: st.tuples(st.sampled_from(["and", "or", "not"]), inner, inner).map(_render_logic),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None)
@given(logic)
def test_logic_matches_python_truthiness(pair):
    """Random and/or/not expressions are true exactly when Python finds them true."""
    text, python_text = pair
    expected = bool(eval(python_text, {"__builtins__": {}}))  # noqa: S307 - oracle on generated literals
    assert bool(value(text, PROPERTY_TABLE)) is expected
    assert value(text, PROPERTY_TABLE, boolean=True) == int(expected)


_SOUP = [
    "(",
    ")",
    "1",
    "42",
    "-",
    "+",
    "*",
    "/",
    "%",
    "==",
    "<",
    ">=",
    "and",
    "or",
    "not",
    "if",
    "then",
    "else",
    "count(",
    "sum(",
    "icons",
    ",",
    "tempura",
    "tag:maki",
    "|",
    "max(",
    "abs(",
    "max_players(",
    "count_opponents(",
    "largest_group()",
    "groups(",
    "round",
    "players",
    "true",
    "x",
    "=",
    "&&",
    "||",
    "**",
    ".",
    "count()",
    "tempra",
    "$",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_SOUP), max_size=300))
def test_any_text_compiles_or_raises_ruleset_error(tokens):
    """Whatever the text, compiling gives a CompiledExpression or a located RulesetError, nothing else."""
    text = " ".join(tokens)
    try:
        compiled = compile_expression(text, CAT)
    except RulesetError as err:
        assert err.diagnostics
        for d in err.diagnostics:
            assert d.line == 1 and 1 <= d.column <= max(len(text), 1)
        return
    for seat in range(4):
        try:
            assert type(compiled.fn(AGG, seat)) is int
        except ScoringError:
            pass
