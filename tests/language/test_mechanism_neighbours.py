"""The ``neighbours`` kind: each seat compares a quantity with its left and right
neighbours only and scores per neighbour for a win, a tie and a loss (7 Wonders'
military). With 2 players the one opponent is both neighbours and is compared once;
with 3 the two neighbours are the two other seats.

Tables are scored through the engine's pipeline (``score_table``); the arithmetic is in
the comments.
"""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from ruledraft.engine.table_scoring import score_table
from ruledraft.language.kinds.neighbours import neighbours_of
from ruledraft.language.loading import check_ruleset, load_ruleset
from ruledraft.tableau import Tableau

HEAD = """\
format: 1
id: war
name: War
players: {min: 2, max: 7}
cards:
  - {id: shield, count: 40, attributes: {shields: 1}}
  - {id: tower, count: 20, attributes: {shields: 2}}
  - {id: hay, count: 40}
deal: {hand_size: {"2-7": 7}, between_rounds: reshuffle}
rounds: {count: 3}
scoring:
"""
MILITARY = """\
  - id: military
    kind: neighbours
    quantity: {sum: shields}
    win: [1, 3, 5]
    loss: -1
"""


@functools.cache
def ruleset(rules: str = MILITARY):
    return load_ruleset("war.yaml", text=HEAD + rules)


def cards(shields: int) -> list[str]:
    """Cards worth ``shields`` shields: towers (2) and a shield (1), and a hay."""
    return ["tower"] * (shields // 2) + ["shield"] * (shields % 2) + ["hay"]


def military(*rounds: list[int]) -> list[list[int]]:
    """The military points of each round, given each round's shields per seat."""
    seats = len(rounds[0])
    padded = list(rounds) + [[0] * seats] * (3 - len(rounds))
    table = {"rounds": [[cards(n) for n in rnd] for rnd in padded]}
    sheet = score_table(ruleset(), table)
    return sheet["rounds"][: len(rounds)]


def test_four_seats_compare_with_both_neighbours():
    """Shields 3, 1, 2, 2 in round 1 (win 1, tie 0, loss -1 per neighbour)."""
    # seat 0: beats seat 3 (2) and seat 1 (1): 1 + 1 = 2
    # seat 1: loses to seat 0 (3) and seat 2 (2): -1 - 1 = -2
    # seat 2: beats seat 1, ties seat 3: 1 + 0 = 1
    # seat 3: ties seat 2, loses to seat 0: 0 - 1 = -1
    assert military([3, 1, 2, 2]) == [[2, -2, 1, -1]]


def test_the_points_of_a_win_follow_the_round():
    """The same shields in rounds 1, 2, 3: a win is worth 1, 3, 5; a loss -1 throughout."""
    # seat 0's two wins: 2, 6, 10; seat 2's one win: 1, 3, 5
    assert military([3, 1, 2, 2], [3, 1, 2, 2], [3, 1, 2, 2]) == [
        [2, -2, 1, -1],
        [6, -2, 3, -1],
        [10, -2, 5, -1],
    ]


def test_seats_that_are_not_neighbours_are_not_compared():
    """Five seats with shields 1, 0, 9, 0, 0: seat 0 never meets seat 2's nine."""
    # seat 0: beats seat 4 (0) and seat 1 (0): 2; seat 1: loses to 0 and 2: -2
    # seat 2: beats seats 1 and 3: 2; seat 3: loses to 2, ties 4: -1; seat 4: ties 3, loses to 0: -1
    assert military([1, 0, 9, 0, 0]) == [[2, -2, 2, -1, -1]]


def test_two_players_compare_once():
    """With 2 players the opponent is the left and the right neighbour: one comparison, not two."""
    assert neighbours_of(0, 2) == (1,) and neighbours_of(1, 2) == (0,)
    # shields 2 and 1: seat 0 wins once (1, not 2), seat 1 loses once (-1, not -2)
    assert military([2, 1]) == [[1, -1]]
    # level: a tie, 0 each
    assert military([2, 2]) == [[0, 0]]


def test_three_players_compare_with_each_other_seat_once():
    """With 3 players the two neighbours are the two other seats: shields 1, 2, 3 in round 2 (win 3)."""
    assert neighbours_of(0, 3) == (2, 1)
    # seat 0 loses to both: -2; seat 1 beats 0 (3) and loses to 2 (-1): 2; seat 2 beats both: 6
    assert military([0, 0, 0], [1, 2, 3]) == [[0, 0, 0], [-2, 2, 6]]


def test_a_tie_scores_its_own_points():
    """tie: 1 pays a level neighbour: shields 2, 2, 1: seats 0 and 1 tie each other."""
    rs = ruleset(MILITARY + "    tie: 1\n")
    table = {"rounds": [[cards(2), cards(2), cards(1)], [[], [], []], [[], [], []]]}
    # seat 0: ties seat 1 (1), beats seat 2 (1): 2; seat 1 the same: 2; seat 2 loses to both: -2
    assert score_table(rs, table)["rounds"][0] == [2, 2, -2]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.sampled_from([0, 1, 2]), max_size=5), min_size=2, max_size=6), st.data())
def test_a_bots_rescore_of_one_seat_matches_a_full_score(rows, data):
    """score_seat_changed (what bots call per candidate card) equals scoring the changed table."""
    (rule,) = ruleset().rules
    t = Tableau.from_cards(3, rows, 2)
    seat = data.draw(st.integers(0, len(rows) - 1))
    card = data.draw(st.sampled_from([0, 1, 2]))
    base_q = rule.quantities(t)
    counts = t.counts[seat][:]
    counts[card] += 1
    hyp = t.with_seat(seat, counts, t.cards[seat] + [card])
    assert rule.score_seat_changed(hyp, seat, base_q) == rule.score(hyp)[seat]


def diagnostics(rules: str) -> list[tuple[int, int, str]]:
    return [(d.line, d.column, d.message) for d in check_ruleset("war.yaml", text=HEAD + rules).diagnostics]


def test_wrong_neighbours_specs_are_located():
    """A misspelt key or attribute gets a did-you-mean at its place; a rule scoring nothing is refused."""
    assert diagnostics(MILITARY.replace("loss: -1", "losses: -1")) == [
        (16, 5, "unknown key 'losses' in a 'neighbours' scoring rule (did you mean 'loss'?)")
    ]
    assert diagnostics(MILITARY.replace("{sum: shields}", "{sum: shield}")) == [
        (14, 21, "no card has the attribute 'shield' (did you mean 'shields'?)")
    ]
    assert diagnostics("  - {id: military, kind: neighbours, quantity: {sum: shields}}\n") == [
        (12, 5, "missing required key 'win', 'tie' or 'loss' in a 'neighbours' scoring rule")
    ]


def test_a_game_end_comparison_takes_one_number_per_outcome():
    """A game-end rule compares once: points by round are a located error there; one number scores."""
    game_end = MILITARY.replace("kind: neighbours", "kind: neighbours\n    when: game_end")
    assert diagnostics(game_end) == [
        (16, 10, "a game-end rule compares once, at the end of the last round: give 'win' as one number")
    ]
    kept = HEAD.replace("{id: shield, count: 40,", "{id: shield, count: 40, keep: game,")
    rs = load_ruleset("war.yaml", text=kept + game_end.replace("win: [1, 3, 5]", "win: 4"))
    table = {"rounds": [[["shield"], ["shield"] * 3], [[], []], [["shield"], []]]}
    # shields kept to the end: 2 and 3; seat 1 wins the one comparison (2 players): -1 and 4
    assert score_table(rs, table)["game_end"] == [-1, 4]


def test_show_says_who_is_compared_and_what_two_players_do():
    """show names the neighbours, the points by round, and the one comparison with 2 players."""
    (rule,) = ruleset().rules
    assert rule.describe() == (
        "Each player compares total 'shields' on all cards with the players to the left and to the right, "
        "and scores for each neighbour with less: 1 in round 1, 3 in round 2, 5 in round 3 and after; "
        "with as much: 0; with more: -1. With 2 players the one opponent is both neighbours and is "
        "compared once."
    )
