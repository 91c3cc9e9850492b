"""A boost's bound: the rules it changes, bounded on the table as played and on the table
it leaves (its targets counted factor times), so a boosted total past the language's
limit is refused at validation."""

from __future__ import annotations

from pathlib import Path

from ruledraft.language.bounds import rule_bound
from ruledraft.language.loading import check_ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent.parent

HEAD = """\
format: 1
id: bright
name: Bright
players: {min: 2, max: 4}
cards:
  - {id: apple, count: 40}
  - {id: sparkler, count: 10}
deal:
  hand_size: {2-4: 5}
rounds: {count: 1}
scoring:
  - {id: sq, kind: expression, expr: "count(apple) * count(apple) * 100000000 * 1000"}
"""

BOOST = "  - {id: spark, kind: boost, card: sparkler, targets: apple, factor: FACTOR}\n"


def _errors(tmp_path: Path, factor: int) -> list[str]:
    path = tmp_path / "r.yaml"
    path.write_text(HEAD + BOOST.replace("FACTOR", str(factor)), encoding="utf-8")
    return [d.message for d in check_ruleset(path).diagnostics if d.severity == "error"]


def test_a_boost_that_could_push_a_square_past_the_limit_is_refused(tmp_path):
    """40 apples squared times 10**11 is 1.6 * 10**14; doubled they bound the boost at
    (80**2 + 40**2) * 10**11 and the total stays below 10**15; tripled, 120**2 * 10**11
    alone passes the limit, and the boost is named."""
    assert _errors(tmp_path, 2) == []
    (message,) = _errors(tmp_path, 3)
    assert "(rule 'spark' alone up to" in message
    assert "totals must stay between" in message


def test_the_boost_bound_sums_its_rules_before_and_after(tmp_path):
    """The bound of a boost is each changed rule's bound on both tables: 2 * 40 + 40 cards."""
    path = tmp_path / "r.yaml"
    text = HEAD.replace(
        'expression, expr: "count(apple) * count(apple) * 100000000 * 1000"', "per_card, cards: apple, value: 3"
    )
    path.write_text(text + BOOST.replace("FACTOR", "2"), encoding="utf-8")
    ruleset = load_ruleset(str(path))
    boost = next(r for r in ruleset.rules if r.id == "spark")
    assert rule_bound(boost, ruleset) == 40 * 3 + 80 * 3


def test_lantern_festivals_sparkler_is_bounded_by_the_rules_it_changes():
    """The example's boost: light, garlands, street and dye, as played and with the 30 lanterns doubled."""
    ruleset = load_ruleset(str(ROOT / "examples" / "lantern-festival.yaml"))
    bounds = {r.id: rule_bound(r, ruleset) for r in ruleset.rules}
    lanterns, deck = 30, 55
    light = lanterns + 2 * lanterns
    garlands = deck * 6 + (deck + lanterns) * 6
    street = 2 * 3 * 2
    dye = lanterns * 2 + 2 * lanterns * 2  # each lantern's extra 2 light, as played and doubled
    assert bounds["sparkle"] == light + garlands + street + dye


def test_the_bounds_parse_each_expression_once_however_many_boosts_change_it(monkeypatch):
    """30 boosts over 30 expression rules: the bounds compile each expression again for every boosted table (60 a rule), parsing its text once (check_ruleset parsed 1,800 texts; a 114 KB file of 100 and 99 took 99 s)."""
    from ruledraft.language import expression

    n = 30
    text = (
        "format: 1\nid: boosts\nname: Boosts\nplayers: {min: 2, max: 4}\ncards:\n  - {id: apple, count: 20}\n"
        + "".join(f"  - {{id: b{i}, count: 1}}\n" for i in range(n))
        + 'deal: {hand_size: {"2-4": 5}}\nrounds: {count: 1}\nscoring:\n'
        + "".join(f"  - {{id: e{i}, kind: expression, expr: 'count(apple) + {i}'}}\n" for i in range(n))
        + "".join(f"  - {{id: x{i}, kind: boost, card: b{i}, targets: apple, factor: 2}}\n" for i in range(n))
    )
    parser = expression._parser()
    parsed = []
    real = parser.parse
    monkeypatch.setattr(parser, "parse", lambda t, *a, **k: parsed.append(t) or real(t, *a, **k))
    result = check_ruleset("boosts.yaml", text=text)
    assert len(parsed) <= 2 * n  # once as its rule is built, once for the bounds
    assert sorted(set(parsed)) == sorted(f"count(apple) + {i}" for i in range(n))
    assert result.ok  # 20 apples doubled 30 times, counted by 30 rules: within the limit
    assert [d.message for d in result.diagnostics] == []
