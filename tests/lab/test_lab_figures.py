"""The lab's figures: per card, per seat and per rule, checked by hand on fixed games;
exact merges in any order; the same figures for any --jobs; simulate's --json and its
80-column tables; memory that does not grow with the number of games."""

from __future__ import annotations

import json
import math
import os
import pickle
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA, EXAMPLES
from strategies import BUNDLED_RULESETS, bundled_game, bundled_ruleset
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.lab.figures import LabTally, figures, quantiles
from ruledraft.lab.statistics import mean_interval, wilson
from ruledraft.play.runner import Tally, game_seed, play_game, run_games, simulate, summarize

runner = CliRunner()
SAMPLER = EXAMPLES / "sushi-go-party-sampler.yaml"


def played(ruleset_id, players, seeds, bots=None):
    game = bundled_game(ruleset_id, players)
    bots = bots or ["random"] * players
    return game, [play_game(game, game_seed(7, i), bots) for i in seeds]


def tally_of(game, states, cards=True):
    tally = Tally.empty(game.num_seats, game.ruleset.rule_ids, lab=LabTally.for_game(game, cards))
    for s in states:
        tally.add_state(s)
    tally.flush()
    return tally


def fig(tally, bots=("random", "random")):
    return figures(tally, list(bots))


# ---------------------------------------------------------------- per card, by hand


def _picked(game, state, seat, card):
    """The copies of ``card`` among ``seat``'s picks over the game (both cards of a chopsticks pick)."""
    return sum(game.decode_action(row[seat])[0].count(card) for rec in state.history for row in rec.actions)


def test_taken_counts_and_win_rates_by_count_follow_the_picks():
    """Taken per seat is the copies it picked over the game; by-count rows count seat-games and their wins."""
    game, states = played("sushi-go", 2, range(6))
    f = fig(tally_of(game, states))
    ids = game.ruleset.catalogue.ids
    for c, cid in enumerate(ids):
        held = [[_picked(game, st_, s, c) for s in range(2)] for st_ in states]
        card = f["cards"][c]
        assert card["card"] == cid
        assert card["taken_per_seat"] == [sum(h[s] for h in held) / 6 for s in range(2)]
        assert card["taken_per_game"] == sum(map(sum, held)) / 6
        rows = {}
        per_game = []  # per game: copies -> (seat-games, wins)
        for h, st_ in zip(held, states):
            mine: dict[int, tuple[int, Fraction]] = {}
            for s in range(2):
                won = Fraction(1, len(st_.winners)) if s in st_.winners else 0
                for acc in (rows, mine):
                    seats, wins = acc.get(h[s], (0, Fraction(0)))
                    acc[h[s]] = (seats + 1, wins + won)
            per_game.append(mine)
        assert [(r["count"], r["seats"]) for r in card["by_count"]] == sorted((k, v[0]) for k, v in rows.items())
        for r in card["by_count"]:
            seats, wins = rows[r["count"]]
            assert r["win_rate"] == pytest.approx(float(wins / seats), abs=1e-12)
            # the game as the unit: Wilson at seat-games over the design effect of the ratio
            rate = wins / seats
            ms = [g.get(r["count"], (0, 0))[0] for g in per_game]
            ws = [g.get(r["count"], (0, 0))[1] for g in per_game]
            var = sum((w - rate * m) ** 2 for m, w in zip(ms, ws)) / 5 / (6 * (Fraction(seats, 6)) ** 2)
            if 0 < rate < 1 and var > 0:
                effective = float(rate * (1 - rate) / var)
                expected = wilson(float(rate) * effective, effective)
            else:
                expected = wilson(float(wins), seats)
            assert r["interval"] == pytest.approx(list(expected), abs=1e-12)
        took = [(k, v) for k, v in rows.items() if k]
        none = rows.get(0, (0, 0))
        if took and none[0]:
            # the game as the unit: each rate's Wilson interval at its effective seat-games (the
            # variance of the rate over the games, from each game's influence on it), combined
            # as Newcombe does with the two rates' correlation over the games
            T, W = sum(n for _, (n, _) in took), sum(w for _, (_, w) in took)
            p1, p0 = W / T, none[1] / none[0]
            z1 = [sum(w - p1 * n for k, (n, w) in g.items() if k) / Fraction(T, 6) for g in per_game]
            z0 = [sum(w - p0 * n for k, (n, w) in g.items() if not k) / Fraction(none[0], 6) for g in per_game]
            v1, v0 = sum(x * x for x in z1) / 30, sum(x * x for x in z0) / 30
            cov = sum(a * b for a, b in zip(z1, z0)) / 30

            def limits(p, v, n):
                if v > 0 and 0 < p < 1:
                    eff = float(p * (1 - p) / v)
                    return wilson(float(p) * eff, eff)
                return wilson(float(p * n), n)

            (l1, u1), (l0, u0) = limits(p1, v1, T), limits(p0, v0, none[0])
            r = float(cov) / math.sqrt(float(v1 * v0)) if v1 and v0 else 0.0
            d = float(p1 - p0)
            a, b, c, e = float(p1) - l1, u0 - float(p0), u1 - float(p1), float(p0) - l0
            lo = d - math.sqrt(max(0.0, a * a + b * b - 2 * r * a * b))
            hi = d + math.sqrt(max(0.0, c * c + e * e - 2 * r * c * e))
            assert card["difference"] == pytest.approx(d, abs=1e-12)
            assert card["difference_interval"] == pytest.approx([max(-1, lo), min(1, hi)], abs=1e-9)


FLIP = DATA / "effects-flip-copy.yaml"


def _placed(state, seat, card):
    """The copies of ``card`` an effect placed on ``seat``'s table from its choice over the game:
    played through a menu or Party's chopsticks, or brought by its spoon."""
    n = 0
    for e in state.events:
        kind = e.what[0]
        if kind == "played" and (e.what[1], e.what[2]) == (seat, card):
            n += 1
        elif kind == "gave" and (e.what[2], e.what[3]) == (seat, card):
            n += 1
    return n


def test_cards_that_leave_the_table_after_acting_count_as_taken():
    """Menus, takeout boxes and special orders are never on a table at round end, yet count as taken when picked."""
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset

    game = Game(load_ruleset(str(FLIP)), 3)
    states = [play_game(game, game_seed(5, i), ["random"] * 3) for i in range(12)]
    f = figures(tally_of(game, states), ["random"] * 3)
    ids = game.ruleset.catalogue.ids
    for name in ("menu", "takeout_box_10", "special_order", "chopsticks", "miso_soup"):
        c = ids.index(name)
        took = [sum(_picked(game, st_, s, c) + _placed(st_, s, c) for st_ in states) for s in range(3)]
        card = f["cards"][c]
        assert card["taken_per_seat"] == [p / 12 for p in took], name
        assert card["taken_per_game"] == sum(took) / 12
    for name in ("menu", "takeout_box_10", "special_order"):
        c = ids.index(name)
        assert sum(t.count(c) for st_ in states for rec in st_.history for t in rec.tables) == 0
        assert f["cards"][c]["taken_per_game"] > 0, name


def _taken_by_hand(game, state):
    """Per seat, the cards it took over the game, counted by hand: the cards of its picks,
    and those an effect placed from its choice."""
    ids = game.ruleset.catalogue.ids
    by_hand = [Counter() for _ in range(game.num_players)]
    for rec in state.history:
        for row in rec.actions:
            for s, a in enumerate(row):
                for c in game.decode_action(a)[0]:
                    by_hand[s][ids[c]] += 1
    for e in state.events:
        if e.what[0] == "played":
            by_hand[e.what[1]][ids[e.what[2]]] += 1
        elif e.what[0] == "gave":
            by_hand[e.what[2]][ids[e.what[3]]] += 1
    return by_hand


def test_taken_in_one_game_by_hand():
    """One three-player game of the flip-and-copy rules: each seat's takes are the cards of its picks, counted by hand."""
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset

    game = Game(load_ruleset(str(FLIP)), 3)
    state = play_game(game, game_seed(2, 0), ["random"] * 3)
    by_hand = _taken_by_hand(game, state)
    f = figures(tally_of(game, [state]), ["random"] * 3)
    for card in f["cards"]:
        assert card["taken_per_seat"] == [float(by_hand[s][card["card"]]) for s in range(3)], card["card"]
    assert sum(card["taken_per_game"] for card in f["cards"]) == sum(sum(h.values()) for h in by_hand)


def _turns_by_hand(game, states):
    """Per card, the copies taken and the sum of the (1-based) turns they were taken on:
    every card of every pick, and every card an effect placed from a seat's choice."""
    picks, turns = Counter(), Counter()
    for st_ in states:
        for rec in st_.history:
            for t, row in enumerate(rec.actions):
                for a in row:
                    for c in game.decode_action(a)[0]:
                        picks[c] += 1
                        turns[c] += t + 1
        for e in st_.events:
            if e.what[0] in ("played", "gave"):
                c = e.what[2] if e.what[0] == "played" else e.what[3]
                picks[c] += 1
                turns[c] += e.turn + 1
    return picks, turns


@pytest.mark.parametrize(
    "ruleset_id, effect",
    [
        ("sushi-go-party-party-sampler", "played"),  # the card chosen from a menu's draw
        ("sushi-go-party-big-banquet", "gave"),  # the card a spoon brings
        ("sushi-go-party-big-banquet", "played"),  # Party chopsticks' second card
    ],
)
def test_cards_an_effect_places_from_a_seats_choice_count_as_taken_on_their_turn(ruleset_id, effect):
    """A card placed by an effect from the seat's own choice is taken, on the turn it was placed."""
    game, states = played(ruleset_id, 4, range(30))
    assert any(e.what[0] == effect for st_ in states for e in st_.events), "the games exercise the effect"
    f = fig(tally_of(game, states), ["random"] * 4)
    ids = game.ruleset.catalogue.ids
    took = [Counter() for _ in range(4)]
    for st_ in states:
        for s, h in enumerate(_taken_by_hand(game, st_)):
            took[s].update(h)
    picks, turns = _turns_by_hand(game, states)
    for c, card in enumerate(f["cards"]):
        assert card["taken_per_seat"] == [took[s][ids[c]] / 30 for s in range(4)], ids[c]
        assert card["mean_turn"] == (pytest.approx(turns[c] / picks[c]) if picks[c] else None), ids[c]


def test_mean_turn_comes_from_the_picks():
    """The mean turn of a card is the mean over its picks of the 1-based turn of the round it was picked on."""
    game, states = played("sushi-go", 2, range(4))
    f = fig(tally_of(game, states))
    picks, turns = _turns_by_hand(game, states)
    for c, card in enumerate(f["cards"]):
        assert card["mean_turn"] == (pytest.approx(turns[c] / picks[c]) if picks[c] else None)


def test_card_points_share_each_rule_by_count_times_worth_alone():
    """A rule's points go to the cards it reads on that table, in proportion to count times what one card alone is worth to the rule (maki: its icons; nigiri: its value), else to count (wasabi, whose card alone scores nothing)."""
    game, states = played("sushi-go", 2, range(5))
    rs = game.ruleset
    ids = rs.catalogue.ids
    idx = {cid: n for n, cid in enumerate(ids)}
    worth = {  # the rulebook's maki icons and nigiri values
        "maki": {idx["maki_1"]: 1, idx["maki_2"]: 2, idx["maki_3"]: 3},
        "nigiri": {idx["egg_nigiri"]: 1, idx["salmon_nigiri"]: 2, idx["squid_nigiri"]: 3},
    }
    expected = [Fraction(0)] * len(ids)
    for st_ in states:
        scorings = st_.scorings
        for i, sc in enumerate(scorings):
            tables = st_.kept_cards if i == len(scorings) - 1 else st_.history[i].tables
            for rule, pts in zip(sc.rules, sc.points):
                reads = sorted(rule.reads)
                for s in range(2):
                    weight = {c: tables[s].count(c) * worth.get(rule.id, {}).get(c, 1) for c in reads}
                    total = sum(weight.values())
                    if pts[s] and total:
                        for c, w in weight.items():
                            expected[c] += Fraction(pts[s] * w, total)
    f = fig(tally_of(game, states))
    for c, card in enumerate(f["cards"]):
        assert card["points_per_game"] == pytest.approx(float(expected[c]) / 5, abs=1e-12)
    assert f["cards"][idx["chopsticks"]]["points_per_game"] == 0.0


def test_points_with_none_of_the_cards_belong_to_no_card():
    """A penalty scored with none of the cards a rule reads is the rule's unattributed points, one-card rules or not."""
    from types import SimpleNamespace

    game = bundled_game("sushi-go", 2)
    rs = game.ruleset
    K = game.num_card_types
    lab = LabTally.for_game(game)
    nothing = [[0] * K, [0] * K]
    rounds = [SimpleNamespace(actions=[[11, 11]], counts=nothing, tables=[[], []]) for _ in range(rs.rounds)]
    minus_three = [SimpleNamespace(points=[[-3, -3] for _ in rs.round_rules]) for _ in range(rs.rounds)]
    minus_three.append(SimpleNamespace(points=[[-3, -3] for _ in rs.game_rules]))
    lab.add_game(rounds, minus_three, nothing, [-21, -21], [0, 1])
    assert lab.unattributed == {r.id: -6 * rs.rounds for r in rs.round_rules} | {r.id: -6 for r in rs.game_rules}
    assert lab.rule_card_points() == {rid: {} for rid in lab.rule_order}


def _rule_totals_add_up(game, states):
    """For every rule: the points it brought each card plus its unattributed points equal its points over all seats."""
    tally = tally_of(game, states)
    per_rule = tally.lab.rule_card_points()
    for rid in game.ruleset.rule_ids:
        brought = sum(per_rule[rid].values(), Fraction(0))
        assert brought + tally.lab.unattributed.get(rid, 0) == sum(tally.rules[rid]), rid


@settings(max_examples=30, deadline=None)
@given(rid=st.sampled_from(BUNDLED_RULESETS), seed=st.integers(0, 2**32), count=st.integers(1, 4))
def test_every_rules_points_are_its_cards_shares_plus_its_unattributed_points(rid, seed, count):
    """Over any bundled ruleset and seed, each rule's card shares plus its unattributed points are exactly its total."""
    rs = bundled_ruleset(rid)
    players = rs.min_players if rs.dummy else min(rs.max_players, 4)
    game = bundled_game(rid, players)
    states = [play_game(game, game_seed(seed, i), ["random"] * players) for i in range(count)]
    _rule_totals_add_up(game, states)


def test_pudding_penalty_of_seats_with_none_is_unattributed():
    """Sushi Go!'s pudding: the -6 of a seat with no pudding goes to no card; pudding gets the points of its holders."""
    game, states = played("sushi-go", 4, range(40))
    pudding = game.ruleset.catalogue.ids.index("pudding")
    penalty = brought = 0
    for st_ in states:
        pts = st_.scorings[-1].by_rule()["pudding"]
        for s in range(4):
            if st_.kept_cards[s].count(pudding):
                brought += pts[s]
            else:
                penalty += pts[s]
    tally = tally_of(game, states)
    tally.lab.flush()
    assert penalty < 0
    assert tally.lab.unattributed["pudding"] == penalty
    assert tally.lab.rule_card_points()["pudding"] == {pudding: brought}
    _rule_totals_add_up(game, states)


def test_a_dummy_seats_points_are_unattributed():
    """With a dummy seat, its points of every rule count as unattributed, so the rules still add up."""
    game, states = played("sushi-go-two-player-dummy", 2, range(10))
    tally = tally_of(game, states)
    dummy = {rid: sum(st_.score_sheet().rule_points[rid][2] for st_ in states) for rid in tally.rule_ids}
    assert any(dummy.values())
    _rule_totals_add_up(game, states)


# ---------------------------------------------------------------- per seat and per rule, by hand


def test_seat_figures_by_hand():
    """Win shares with Wilson intervals, mean score intervals, exact quantiles, margins and ties from the games."""
    game, states = played("sushi-go", 3, range(9))
    f = figures(tally_of(game, states), ["random"] * 3)
    totals = [st_.totals() for st_ in states]
    for s in range(3):
        wins = sum(Fraction(1, len(st_.winners)) for st_ in states if s in st_.winners)
        seat = f["seats"][s]
        assert seat["wins"] == pytest.approx(float(wins))
        assert seat["win_share_interval"] == pytest.approx(list(wilson(float(wins), 9)))
        xs = [t[s] for t in totals]
        m, lo, hi = mean_interval(9, sum(xs), sum(x * x for x in xs))
        assert (seat["mean"], seat["mean_interval"]) == (pytest.approx(m), pytest.approx([lo, hi]))
        xs.sort()
        # the q quantile: the smallest value with at least q% of the games at or below it
        assert seat["quantiles"] == {str(q): xs[math.ceil(q * 9 / 100) - 1] for q in (5, 25, 50, 75, 95)}
    margins = Counter(sorted(t, reverse=True)[0] - sorted(t, reverse=True)[1] for t in totals)
    assert f["margin"]["histogram"] == {str(k): v for k, v in sorted(margins.items())}
    assert f["ties"]["top_score_tied"] == margins[0] / 9
    assert f["ties"]["shared_win"] == sum(len(st_.winners) > 1 for st_ in states) / 9


def test_quantiles_of_a_histogram_by_hand():
    """Histogram {1: 1, 2: 1, 3: 2}: 5% -> 1, 25% -> 1, 50% -> 2, 75% -> 3, 95% -> 3."""
    assert quantiles({3: 2, 1: 1, 2: 1}) == {"5": 1, "25": 1, "50": 2, "75": 3, "95": 3}
    assert quantiles({}) == dict.fromkeys(("5", "25", "50", "75", "95"))


def test_rule_figures_by_hand():
    """Per rule: mean points per seat and game with a t interval over the games (each game's points over its seats), and the share of all points."""
    game, states = played("sushi-go", 2, range(8))
    f = fig(tally_of(game, states))
    sheets = [st_.score_sheet().rule_points for st_ in states]
    grand = sum(sum(sum(p) for p in sh.values()) for sh in sheets)
    for r in f["rules"]:
        xs = [p for sh in sheets for p in sh[r["rule"]]]
        per_game = [sum(sh[r["rule"]]) / 2 for sh in sheets]  # the game as the unit
        m, lo, hi = mean_interval(8, sum(per_game), sum(x * x for x in per_game))
        assert (r["mean"], r["interval"]) == (pytest.approx(m), pytest.approx([lo, hi]))
        assert r["share_of_points"] == pytest.approx(sum(xs) / grand)
        for s in range(2):
            ys = [sh[r["rule"]][s] for sh in sheets]
            assert r["per_seat"][s]["interval"] == pytest.approx(
                list(mean_interval(8, sum(ys), sum(y * y for y in ys))[1:])
            )


def test_chi_square_covers_only_the_seats_that_can_win():
    """With a dummy that cannot win, the test of equal seats has one degree of freedom for two players."""
    game, states = played("sushi-go-two-player-dummy", 2, range(6))
    f = fig(tally_of(game, states))
    assert [s["can_win"] for s in f["seats"]] == [True, True, False]
    assert f["seats_equal"]["df"] == 1


def test_without_cards_the_card_figures_are_null():
    """A tally without the per-card bookkeeping reports ``"cards": null`` and the rest as usual."""
    game, states = played("sushi-go", 2, range(3))
    f = fig(tally_of(game, states, cards=False))
    assert f["cards"] is None
    assert f["seats"][0]["quantiles"]["50"] is not None


# ---------------------------------------------------------------- merging


GAMES = {
    rid: played(rid, 2 if rid in ("sushi-go-two-player-dummy", "sushi-go-party-dinner-for-two") else 3, range(10))
    for rid in (
        "sushi-go-soy-sauce",
        "sushi-go-two-player-dummy",
        "sushi-go-party-dinner-for-two",  # a race, a menu, special orders
        "sushi-go-party-big-banquet",  # spoons, Party chopsticks
    )
}


@settings(max_examples=25, deadline=None)
@given(
    rid=st.sampled_from(sorted(GAMES)),
    cuts=st.lists(st.integers(min_value=0, max_value=10), max_size=4),
    order=st.randoms(use_true_random=False),
)
def test_merging_a_partition_of_the_games_in_any_order_gives_identical_figures(rid, cuts, order):
    """Split the games anywhere, tally each part, merge them in any order (pickled or not): the same counts and figures."""
    game, states = GAMES[rid]
    bots = ["random"] * game.num_players
    whole = tally_of(game, states)
    bounds = [0, *sorted(cuts), len(states)]
    parts = [tally_of(game, states[a:b]) for a, b in zip(bounds, bounds[1:])]
    order.shuffle(parts)
    merged = Tally.empty(game.num_seats, game.ruleset.rule_ids, lab=LabTally.for_game(game))
    for n, part in enumerate(parts):
        if n % 2:
            part = pickle.loads(pickle.dumps(part))
        merged.merge(part)
    assert merged.lab.state() == whole.lab.state()
    assert figures(merged, bots) == figures(whole, bots)


@pytest.mark.parametrize("every", [1, 3, 7])
def test_folding_after_any_number_of_games_gives_identical_counts(every, monkeypatch):
    """The buffered games fold into the sums in bulk; folding after every 1, 3 or 7 games changes nothing."""
    from ruledraft.lab import figures as lab_figures

    for game, states in GAMES.values():
        whole = tally_of(game, states).lab.state()
        monkeypatch.setattr(lab_figures, "_FOLD_EVERY", every)
        assert tally_of(game, states).lab.state() == whole
        monkeypatch.undo()


def test_sums_too_large_for_floating_point_stay_exact():
    """The bulk sums are exact even where float64 would round (weights beyond 2**53)."""
    import numpy as np

    from ruledraft.lab.figures import _exact_bincount

    keys = np.array([0, 1, 1, 2])
    big = 2**60 + 1
    assert _exact_bincount(np, keys, np.array([big, big, 3, -5]), 4).tolist() == [big, big + 3, -5, 0]
    assert _exact_bincount(np, keys, np.array([1, 2, 3, 4]), 4).tolist() == [1, 5, 4, 0]
    assert _exact_bincount(np, keys[:0], keys[:0], 2).tolist() == [0, 0]


WORTH = """format: 1
id: worth
name: Worth
players: {min: 2, max: 4}
cards:
  - {id: shell, name: Shell, count: 20, tags: [sea], attributes: {shine: 1}}
  - {id: conch, name: Conch, count: 20, tags: [sea], attributes: {shine: 3}}
  - {id: plum, name: Plum, count: 20}
  - {id: fig, name: Fig, count: 20}
  - {id: stone, name: Stone, count: 20}
deal:
  hand_size: {"2-4": 8}
rounds:
  count: 2
scoring:
  - {id: shine, kind: per_card, cards: {tag: sea}, value: {attribute: shine}}
  - {id: fruit, kind: expression, expr: "2 * count(plum) + 5 * count(fig)"}
  - {id: spread, kind: expression, expr: "count(stone) * count(plum)"}
"""


def test_a_rule_that_scores_each_card_its_worth_gives_each_card_exactly_its_points(tmp_path):
    """A per-card rule by an attribute and a sum of counts times numbers give each card its count times its worth; a product, whose cards alone score nothing, shares by count."""
    game, states = _played_from_text(tmp_path, WORTH, 3, 5, 12)
    ids = game.ruleset.catalogue.ids
    taken = Counter()
    spread = {c: Fraction(0) for c in ("stone", "plum")}
    for state in states:
        for record in state.history:
            for table in record.tables:
                taken.update(ids[c] for c in table)
                stones, plums = table.count(ids.index("stone")), table.count(ids.index("plum"))
                if stones and plums:
                    spread["stone"] += Fraction(stones * plums * stones, stones + plums)
                    spread["plum"] += Fraction(stones * plums * plums, stones + plums)
    shares = tally_of(game, states).lab.rule_card_points()
    at = {cid: n for n, cid in enumerate(ids)}
    assert shares["shine"] == {at["shell"]: taken["shell"] * 1, at["conch"]: taken["conch"] * 3}
    assert shares["fruit"] == {at["plum"]: taken["plum"] * 2, at["fig"]: taken["fig"] * 5}
    assert shares["spread"] == {at[c]: v for c, v in spread.items() if v}


def _played_from_text(tmp_path, text, players, seed, games):
    """Random games of the rule file ``text``."""
    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset

    path = tmp_path / "rules.yaml"
    path.write_text(text)
    game = Game(load_ruleset(str(path)), players)
    return game, [play_game(game, game_seed(seed, i), ["random"] * players) for i in range(games)]


BIG = """format: 1
extends: sushi-go
id: big-points
name: Big points
version: "1.0"
description: A rule worth nearly a billion points a tempura.
scoring:
  - {id: big, when: round_end, kind: expression, expr: "count(tempura) * 999999999"}
"""


def test_points_too_large_for_64_bits_stay_exact(tmp_path):
    """A rule worth billions: its sums and squares over the games are exact, past what 64-bit integers hold."""
    game, states = _played_from_text(tmp_path, BIG, 2, seed=1, games=20)
    lab = tally_of(game, states).lab
    by_game = [[sum(sc.by_rule()["big"][s] for sc in st_.scorings[:-1]) for s in range(2)] for st_ in states]
    assert lab.rule_points()["big"] == [sum(g[s] for g in by_game) for s in range(2)]
    assert lab.rule_squares()["big"] == [sum(g[s] ** 2 for g in by_game) for s in range(2)]
    assert max(lab.rule_squares()["big"]) > 2**63
    tempura = game.ruleset.catalogue.ids.index("tempura")
    assert lab.rule_card_points()["big"] == {tempura: sum(map(sum, by_game))}


TWO_RACES = """format: 1
extends: sushi-go-party-points-platter
id: two-races
name: Two races
version: "1.0"
description: A second race on the same uramaki.
scoring:
  - {id: uramaki_b, when: round_end, kind: race, cards: {tag: uramaki}, threshold: 2, places: [3, 1], ties: full, leftovers: nothing}
"""


def _race_shares_by_hand(game, states, race):
    """Rule ``race``'s points shared by hand among its cards at round end and those that left for its places."""
    rule = game.ruleset.round_rules[race]
    reads = sorted(rule.reads)
    expected: dict[int, Fraction] = {}
    none = 0
    for st_ in states:
        for i, rec in enumerate(st_.history):
            for s in range(game.num_players):
                p = st_.scorings[i].points[race][s]
                if not p:
                    continue
                held = Counter({c: rec.tables[s].count(c) for c in reads})
                for e in st_.events:
                    if e.what[0] == "race" and e.what[1] == rule.id and e.round == i and e.what[2] == s:
                        held.update(e.what[5])
                total = sum(held[c] for c in reads)
                if not total:
                    none += p
                for c in reads:
                    if held[c]:
                        expected[c] = expected.get(c, Fraction(0)) + Fraction(p * held[c], total)
    return {c: v for c, v in expected.items() if v}, none


def test_two_races_on_the_same_cards_each_count_only_the_cards_that_left_for_their_own_places(tmp_path):
    """Two races reading the same uramaki: each shares its points among the cards that left for its own places."""
    game, states = _played_from_text(tmp_path, TWO_RACES, 4, seed=2, games=25)
    lab = tally_of(game, states).lab
    races = [j for j, rule in enumerate(game.ruleset.round_rules) if rule.turn_scoring is not None]
    assert len(races) == 2
    for race in races:
        rid = game.ruleset.round_rules[race].id
        assert any(e.what[0] == "race" and e.what[1] == rid for st_ in states for e in st_.events), rid
        expected, none = _race_shares_by_hand(game, states, race)
        assert lab.rule_card_points()[rid] == expected, rid
        assert lab.unattributed.get(rid, 0) == none, rid


def test_race_points_go_to_its_cards_also_those_that_left_for_its_places():
    """Uramaki: a seat's race points are shared among its uramaki at round end and those that left for a place."""
    game, states = played("sushi-go-party-dinner-for-two", 2, range(30))
    race = next(j for j, rule in enumerate(game.ruleset.round_rules) if rule.turn_scoring is not None)
    rid = game.ruleset.round_rules[race].id
    assert any(e.what[0] == "race" for st_ in states for e in st_.events), "the games run races"
    expected, none = _race_shares_by_hand(game, states, race)
    lab = tally_of(game, states).lab
    assert lab.rule_card_points()[rid] == expected
    assert lab.unattributed.get(rid, 0) == none


@pytest.mark.parametrize("ruleset_id", ["sushi-go", "sushi-go-party-big-banquet", "sushi-go-party-dinner-for-two"])
def test_each_games_card_values_add_up_to_the_tallys(ruleset_id):
    """compare's per-game values: each game's takes and card points, folded together, sum to the tally's figures."""
    rs = bundled_ruleset(ruleset_id)
    players = min(rs.max_players, 3)
    results = run_games(rs, players, 5, ["random"] * players, range(12), cards=True)
    batch = results[0].lab.empty_copy()
    for r in results:
        batch.merge(r.lab)
    values = batch.card_columns()
    assert len(values.taken) == 12
    points = list(zip(*(column.values() for column in values.points)))
    for g, r in enumerate(results):
        one = r.lab.empty_copy()
        one.merge(r.lab)
        one.flush()
        K = one.num_card_types
        assert values.taken[g].tolist() == [sum(one.taken[s * K + c] for s in range(players)) for c in range(K)]
        assert list(points[g]) == one.points_by_card()


def test_per_game_results_give_the_same_figures_as_tallies():
    """Games summarised from their results (as with --log) give the figures a tally of them gives."""
    rs = bundled_ruleset("sushi-go")
    results = run_games(rs, 2, 3, ["random", "greedy"], range(40), cards=True)
    from_results = summarize(rs, 2, 3, ["random", "greedy"], results, cards=True)
    direct = simulate(rs, 2, 40, 3, ["random", "greedy"], cards=True)
    assert from_results.figures == direct.figures


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS)
def test_jobs_1_and_2_give_identical_figures(ruleset_id):
    """The same seed on one process and on two gives exactly the same figures, per card included."""
    rs = bundled_ruleset(ruleset_id)
    players = 2 if rs.dummy else 3
    bots = ["greedy"] + ["random"] * (players - 1)
    one = simulate(rs, players, 150, 11, bots, jobs=1, cards=True)
    two = simulate(rs, players, 150, 11, bots, jobs=2, cards=True)
    assert one.figures == two.figures
    assert one.figures["cards"]


# ---------------------------------------------------------------- the command


def test_json_round_trip_carries_every_figure():
    """``simulate --json --cards`` prints the library's figures, intervals and all, and they read back equal."""
    result = runner.invoke(app, ["simulate", "sushi-go", "-p", "2", "-g", "60", "-s", "4", "-q", "--json", "--cards"])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)["figures"]
    direct = simulate(bundled_ruleset("sushi-go"), 2, 60, 4, ["greedy", "random"], cards=True).figures
    assert printed == json.loads(json.dumps(direct))
    assert set(printed) == {"confidence", "games", "seats", "seats_equal", "margin", "ties", "rules", "cards"}
    assert {"win_share_interval", "mean_interval", "quantiles", "histogram"} <= set(printed["seats"][0])
    assert {"difference_interval", "by_count", "mean_turn", "points_per_card"} <= set(printed["cards"][0])


CASES = [(rid, None) for rid in BUNDLED_RULESETS] + [(str(SAMPLER), 6)]


@pytest.mark.parametrize(("ruleset", "players"), CASES)
def test_simulate_tables_fit_80_columns(ruleset, players):
    """Every table and line of ``simulate --cards`` fits 80 columns, for each bundled ruleset and the 6-player sampler."""
    rs_players = players or (2 if "dummy" in ruleset else 4)
    result = runner.invoke(
        app,
        ["simulate", ruleset, "-p", str(rs_players), "-g", "20", "-q", "--cards", "-b", "random"],
        env={"COLUMNS": "80", "TERM": "dumb"},
    )
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    text = result.stdout
    assert "95% CI" in text and "seats differ: p" in text and "Per card" in text


def test_the_seat_line_says_whether_seats_differ_in_plain_words():
    """A greedy bot against random ones: 'seats differ: p < 0.001'; identical bots over few games: 'no evidence'."""
    differ = runner.invoke(app, ["simulate", "sushi-go", "-p", "2", "-g", "300", "-q"], env={"COLUMNS": "80"})
    assert "seats differ: p < 0.001 (chi-square" in differ.stdout
    same = runner.invoke(
        app, ["simulate", "sushi-go", "-p", "2", "-g", "40", "-q", "-b", "random", "-s", "1"], env={"COLUMNS": "80"}
    )
    f = json.loads(
        runner.invoke(
            app, ["simulate", "sushi-go", "-p", "2", "-g", "40", "-q", "-b", "random", "-s", "1", "--json"]
        ).stdout
    )["figures"]["seats_equal"]
    word = "seats differ" if f["p_value"] < 0.05 else "no evidence seats differ"
    assert f"{word}: p = {f['p_value']:.2f}" in same.stdout or f"{word}: p = {f['p_value']:.3f}" in same.stdout


# ---------------------------------------------------------------- memory

MEASURE = """
import json, os, sys
from ruledraft.language.loading import load_ruleset
from ruledraft.play.runner import simulate


def memory_kib(pid):
    # resident memory now (VmRSS) and at its peak so far (VmHWM); None once the process is gone
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f)
        return [int(fields[key].split()[0]) for key in ("VmRSS", "VmHWM")]
    except (OSError, KeyError):
        return None


def memory():
    me = os.getpid()
    pids = [me]
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == me:
                        pids.append(int(name))
            except OSError:
                pass
    return {pid: kib for pid in pids if (kib := memory_kib(pid)) is not None}


warm, games = int(sys.argv[1]), int(sys.argv[2])
done = 0
marks = []  # (games done, {pid: [now, peak] KiB}) once warm, and once every game is in


def progress(n):
    global done
    before, done = done, done + n
    if before < warm <= done or done == games:
        marks.append((done, memory()))


summary = simulate(load_ruleset("sushi-go"), 2, games, 0, ["random", "random"], jobs=2, cards=True, progress=progress)
assert summary.games == games
marks[-1][1][os.getpid()] = memory_kib(os.getpid())  # the main process's, with the summary made
print(json.dumps({"main": os.getpid(), "marks": marks}))
"""

#: the bound per game of a run: 20 MB over 180,000 games, as the 200,000 games against
#: 20,000 this test once played (each worker plays half of them, so its bound per game it
#: plays is twice this)
GROWTH_PER_GAME = 20 * 1024 * 1024 / 180_000


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads /proc")
def test_memory_does_not_grow_with_the_number_of_games():
    """Past 5,000 random two-player games on two workers, no process's memory (now or peak) grows 116 bytes a game over 20,000 more."""
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, "5000", "25000"],
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ.copy(),
    )
    assert out.returncode == 0, out.stderr
    measured = json.loads(out.stdout)
    (warm, start), (end, finish) = measured["marks"]
    assert 5_000 <= warm < end == 25_000
    pids = start.keys() & finish.keys()
    assert str(measured["main"]) in pids and len(pids) >= 3, measured  # the main process and both workers
    bound = GROWTH_PER_GAME * (end - warm)
    # both the memory held at the end and the peak: a leak shows in the first even where
    # an early peak (the first chunks) hides it from the second
    growth = {
        (pid, what): (finish[pid][i] - start[pid][i]) * 1024 for pid in pids for i, what in enumerate(("now", "peak"))
    }
    assert max(growth.values()) < bound, (growth, bound)


def test_a_card_every_seat_took_has_no_takers_versus_others_figure():
    """Where one side is empty (every seat took the card, or none did) the win rate of that side, the difference and
    its interval are null in --json and '-' in the report, not 0.0% and -100% to 100%."""
    import ruledraft
    from ruledraft.lab.report import _interval, _pct

    cards = ruledraft.simulate("sushi-go", players=2, games=50, seed=1, engine="reference").to_json()["figures"][
        "cards"
    ]
    one_sided = [c for c in cards if not (c["takers"]["seats"] and c["non_takers"]["seats"])]
    assert one_sided, "no card was taken by every seat or by none in this run"
    for c in cards:
        empty = [side for side in ("takers", "non_takers") if not c[side]["seats"]]
        assert [c[side]["win_rate"] for side in empty] == [None] * len(empty)
        if empty:
            assert c["difference"] is None and c["difference_interval"] is None
            assert (_pct(c["difference"]), _interval(c["difference_interval"], _pct)) == ("-", "-")
        else:
            lo, hi = c["difference_interval"]
            assert lo <= c["difference"] <= hi
