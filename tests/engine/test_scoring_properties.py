"""Properties of finished-table scoring on random legal tables (hypothesis).

Tables are drawn from the real deck by :func:`strategies.finished_tables`: never more copies
of a card than the deck has, at most a hand's worth of cards per seat and round.
"""

from __future__ import annotations

import copy
import functools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import EXAMPLES
from strategies import (
    bundled_ruleset,
    bundled_table_scored,
    bundled_without_dummy,
    finished_tables,
    played_positions,
    played_ruleset,
    played_sources,
    seat_permutations,
    source_id,
)

from ruledraft.engine.table_scoring import score_table

SETTINGS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])

#: rulesets with ordinary seats (no dummy: a dummy is the last seat by definition, so it cannot be permuted freely)
PERMUTABLE = tuple(rid for rid in bundled_without_dummy() if rid in bundled_table_scored())
#: the rulesets with a wasabi rule (Party menus choose whether to have one)
WITH_WASABI = [rid for rid in PERMUTABLE if "wasabi" in bundled_ruleset(rid).rule_ids]


@st.composite
def tables_and_permutations(draw):
    """``(ruleset id, table, permutation of its seats)``."""
    rid = draw(st.sampled_from(PERMUTABLE))
    t = draw(finished_tables(rid))
    perm = draw(seat_permutations(len(t["rounds"][0])))
    return rid, t, perm


@SETTINGS
@given(tables_and_permutations())
def test_permuting_seats_permutes_the_scores(case):
    """Seating the players in another order moves their round, game-end and total scores (and wins) with them."""
    rid, t, perm = case
    rs = bundled_ruleset(rid)
    # new seat i gets the cards old seat perm[i] played
    moved = {"rounds": [[rnd[perm[i]] for i in range(len(perm))] for rnd in t["rounds"]]}
    before, after = score_table(rs, t), score_table(rs, moved)
    for r, points in enumerate(before["rounds"]):
        assert after["rounds"][r] == [points[perm[i]] for i in range(len(perm))]
    assert after["game_end"] == [before["game_end"][perm[i]] for i in range(len(perm))]
    assert after["totals"] == [before["totals"][perm[i]] for i in range(len(perm))]
    for rule, points in before["rules"].items():
        assert after["rules"][rule] == [points[perm[i]] for i in range(len(perm))]
    assert after["winners"] == sorted(i for i in range(len(perm)) if perm[i] in before["winners"])


@SETTINGS
@given(
    st.sampled_from(("sushi-go", "sushi-go-soy-sauce", "sushi-go-two-player-dummy")).flatmap(
        lambda rid: st.tuples(st.just(rid), finished_tables(rid))
    )
)
def test_scoring_is_deterministic_and_leaves_the_table_alone(case):
    """Scoring the same table twice gives the same result, and the table itself is not changed."""
    rid, t = case
    rs = bundled_ruleset(rid)
    original = copy.deepcopy(t)
    first = score_table(rs, t)
    assert t == original
    assert score_table(rs, t) == first
    assert score_table(rs, copy.deepcopy(t)) == first


@st.composite
def tables_and_reorderings(draw):
    """``(ruleset id, table, the same table with each seat's cards reordered within every round)``."""
    rid = draw(st.sampled_from(("sushi-go", "sushi-go-soy-sauce", "sushi-go-two-player-dummy")))
    t = draw(finished_tables(rid))
    shuffled = {"rounds": [[list(draw(st.permutations(seat))) for seat in rnd] for rnd in t["rounds"]]}
    return rid, t, shuffled


@SETTINGS
@given(tables_and_reorderings())
def test_play_order_only_matters_for_wasabi(case):
    """Reordering a seat's cards within a round changes only the wasabi rule: the total minus wasabi is order-independent."""
    rid, t, shuffled = case
    rs = bundled_ruleset(rid)
    a, b = score_table(rs, t), score_table(rs, shuffled)
    for rule in a["rules"]:
        if rule != "wasabi":
            assert a["rules"][rule] == b["rules"][rule], rule
    assert [x - w for x, w in zip(a["totals"], a["rules"]["wasabi"])] == [
        x - w for x, w in zip(b["totals"], b["rules"]["wasabi"])
    ]
    assert a["game_end"] == b["game_end"]


@SETTINGS
@given(st.sampled_from(WITH_WASABI).flatmap(lambda rid: st.tuples(st.just(rid), finished_tables(rid))))
def test_wasabi_bonus_is_twice_the_nigiri_on_a_wasabi(case):
    """The wasabi rule adds exactly 2x the value of each nigiri played while a wasabi is empty (recounted here)."""
    rid, t = case
    rs = bundled_ruleset(rid)
    values = {"egg_nigiri": 1, "salmon_nigiri": 2, "squid_nigiri": 3}
    expected = [0] * len(t["rounds"][0])
    for rnd in t["rounds"]:
        for seat, cards in enumerate(rnd):
            empty = 0
            for card in cards:
                if card == "wasabi":
                    empty += 1
                elif card in values and empty:
                    empty -= 1
                    expected[seat] += 2 * values[card]
    result = score_table(rs, t)
    assert result["rules"]["wasabi"] == expected
    assert all(0 <= w <= 2 * n for w, n in zip(result["rules"]["wasabi"], result["rules"]["nigiri"]))


@SETTINGS
@given(st.integers(min_value=2, max_value=5).flatmap(lambda n: finished_tables("sushi-go", players=n, full=True)))
def test_full_tables_are_accepted_and_add_up(t):
    """Full legal tables (every seat a whole hand each round) score, totals = rounds + game end = sum of the rules."""
    rs = bundled_ruleset("sushi-go")
    result = score_table(rs, t)
    seats = len(t["rounds"][0])
    assert all(len(seat) == rs.hand_size(seats) for rnd in t["rounds"] for seat in rnd)
    for s in range(seats):
        assert result["totals"][s] == sum(r[s] for r in result["rounds"]) + result["game_end"][s]
        assert result["totals"][s] == sum(points[s] for points in result["rules"].values())
    assert result["winners"] and set(result["winners"]) <= set(range(seats))
    best = max(result["totals"])
    assert all(result["totals"][w] == best for w in result["winners"])
    # pudding points at game end sum to at most +6 and never below -6 (split shares drop remainders)
    assert -6 <= sum(result["game_end"]) <= 6


#: a table of each round's cards cannot show what a takeout box turned face down
#: (score_table refuses the face-down cards; tests/rulesets/test_party_menus.py pins that)
PER_ROUND = [
    rid for rid in bundled_table_scored() if not any(e.kind == "turn_face_down" for e in bundled_ruleset(rid).effects)
]


@pytest.mark.parametrize("rid", PER_ROUND)
def test_table_scoring_agrees_with_the_engine(rid, monkeypatch):
    """Random engine games score the same through score_table, given each round's cards (read at the engine's round end)."""
    import random

    from ruledraft.engine.state import Game, State

    rs = bundled_ruleset(rid)
    ids = rs.catalogue.ids
    captured = []
    end_round = State.end_round

    def capturing_end_round(state):
        captured.append([[ids[c] for c in cards] for cards in state.played])
        return end_round(state)

    monkeypatch.setattr(State, "end_round", capturing_end_round)
    for players in rs.player_counts:
        game = Game(rs, players)
        for seed in range(4):
            captured.clear()
            state = game.new_initial_state(seed)
            rng = random.Random(seed)
            while not state.is_terminal():
                state.apply_actions([rng.choice(state.legal_actions(s)) for s in state.acting_seats()])
            assert len(captured) == rs.rounds
            result = score_table(rs, {"rounds": captured})
            assert result["rounds"] == state.round_scores
            assert result["game_end"] == state.game_end_scores
            assert result["totals"] == state.totals()
            assert result["winners"] == state.winners


@functools.cache
def _majorities():
    """Every majority rule of the bundled rulesets and examples, the remembered awards included."""
    from ruledraft.language.kinds.majority import Majority
    from ruledraft.language.loading import load_ruleset

    examples = EXAMPLES
    out = []
    for source in (
        "sushi-go",
        "sushi-go-soy-sauce",
        examples / "sushi-go-party-sampler.yaml",
        examples / "midnight-apothecary.yaml",
    ):
        out += [r for r in load_ruleset(source).rules if isinstance(r, Majority)]
    return out


def _remembers(rule) -> bool:
    """Whether a majority's awards depend on the quantities alone (no ``eligible`` or ``multiplier``)."""
    return rule.eligible is None and rule.multiplier is None


def _tables(seats: int):
    """Tableaux of ``seats`` seats over 40 card types (more than any ruleset here has)."""
    from ruledraft.tableau import Tableau

    rows = st.lists(st.integers(0, 3), min_size=40, max_size=40)
    return st.lists(rows, min_size=seats, max_size=seats).map(
        lambda counts: Tableau(counts, [[c for c, k in enumerate(row) for _ in range(k)] for row in counts])
    )


def test_the_majorities_checked_include_remembered_and_table_reading_ones():
    """The majorities below cover both kinds: awards remembered by quantities, and awards that read the table (soy sauce)."""
    rules = _majorities()
    assert any(_remembers(r) for r in rules)
    assert "soy_sauce" in [r.id for r in rules if not _remembers(r)]


@pytest.mark.parametrize("rule", [r for r in _majorities() if _remembers(r)], ids=lambda r: r.id)
@given(q=st.integers(2, 8).flatmap(lambda n: st.lists(st.integers(-2, 12), min_size=n, max_size=n)))
def test_a_remembered_award_is_the_award_worked_out_afresh(rule, q):
    """A majority that remembers awards by quantities gives what working them out gives, and a caller changing the returned list changes nothing remembered."""
    from ruledraft.tableau import Tableau

    t = Tableau([[0] * 40 for _ in q], [[] for _ in q])
    first = rule.award(q, t)
    assert first == rule._award(q, t)
    first[0] += 1000
    assert rule.award(q, t) == rule._award(q, t)


@pytest.mark.parametrize("rule", [r for r in _majorities() if not _remembers(r)], ids=lambda r: r.id)
@SETTINGS
@given(data=st.data())
def test_a_majority_that_reads_the_table_is_never_remembered(rule, data):
    """A majority with `eligible` or `multiplier` keeps no memory: the same quantities on two different tables each get the award worked out for that table."""
    seats = data.draw(st.integers(2, 8))
    q = data.draw(st.lists(st.integers(-2, 12), min_size=seats, max_size=seats))
    first, second = data.draw(_tables(seats)), data.draw(_tables(seats))
    assert rule.award(q, first) == rule._award(q, first)
    assert rule.award(q, second) == rule._award(q, second)
    assert rule.award_cache is None


def test_remembered_awards_are_bounded(monkeypatch):
    """The award cache stops growing at its limit (AWARD_MEMO_SIZE when built) and keeps answering correctly past it."""
    from ruledraft.language.kinds.majority import AWARD_MEMO_SIZE
    from ruledraft.tableau import Tableau

    rule = next(r for r in bundled_ruleset("sushi-go").rules if r.id == "maki")
    assert rule.award_cache.limit == AWARD_MEMO_SIZE
    monkeypatch.setattr(rule.award_cache, "limit", 10)
    rule.award_cache.clear()
    t = Tableau([[0] * 12 for _ in range(3)], [[] for _ in range(3)])
    for a in range(8):
        for b in range(8):
            q = [a, b, 3]
            assert rule.award(q, t) == rule._award(q, t)
    assert len(rule.award_cache) == 10


@pytest.mark.parametrize("source", played_sources(), ids=source_id)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**53 - 1), data=st.data())
def test_one_seats_points_now_are_that_seats_share_of_the_whole_round(source, seed, data):
    """At every point of a random game, a seat's round points now (``seat_round_points_now``:
    a rule of one seat's cards scored on that seat's table alone) are its entry of
    ``round_points_now``: races, boosts, cards turned face down and dummies included."""
    players = data.draw(st.sampled_from(list(played_ruleset(source).player_counts)), label="players")
    for state in played_positions(source, seed, players):
        whole = state.round_points_now()
        assert [state.seat_round_points_now(s) for s in range(state.game.num_seats)] == whole


def test_one_seats_points_now_read_the_cards_it_turned_face_down():
    """A wasabi turned face down before its nigiri came (the Party sampler example, a
    seeded game at 8 players): the seat's own points now are its entry of the whole
    round's, where scoring its cards without the turned ones (``score_seat``) reads 2 too many."""
    source = str(EXAMPLES / "sushi-go-party-sampler.yaml")
    state = next(s for k, s in enumerate(played_positions(source, 18, 8)) if k == 17)
    wasabi = next(rule for rule in state.game.ruleset.round_rules if rule.id == "wasabi")
    assert wasabi.score_seat(state.tableau(), 4) == wasabi.score(state.tableau())[4] + 2
    assert state.seat_round_points_now(4) == state.round_points_now()[4]
