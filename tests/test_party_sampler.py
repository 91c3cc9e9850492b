"""Sushi Go Party! cards written as data (examples/sushi-go-party-sampler.yaml),
checked against the numbers of the Party rulebook (shared/reference/sushi-go-party.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruledraft.engine.table_scoring import score_table
from ruledraft.language.loading import load_ruleset

SAMPLER = Path(__file__).resolve().parent.parent / "examples" / "sushi-go-party-sampler.yaml"


@pytest.fixture(scope="module")
def party():
    return load_ruleset(SAMPLER)


def round_points(ruleset, seats, rule):
    """The points ``rule`` gives each seat for one round with these played cards."""
    return score_table(ruleset, {"rounds": [seats]})["rules"][rule]


def test_party_maki_ties_score_in_full_and_keep_the_next_place(party):
    """The rulebook example: 5, 5, 3, 1 maki icons score 6, 6, 3, 0."""
    seats = [["maki_3", "maki_2"], ["maki_2", "maki_2", "maki_1"], ["maki_3"], ["maki_1"]]
    assert round_points(party, seats, "maki") == [6, 6, 3, 0]


def test_party_maki_with_six_players_awards_six_four_two(party):
    """With 6 players maki awards 6 / 4 / 2; tied players each take the place in full; no maki, no points."""
    seats = [["maki_3"], ["maki_3"], ["maki_2"], ["maki_2"], ["maki_1"], ["eel"]]
    assert round_points(party, seats, "maki") == [6, 6, 4, 4, 2, 0]


def test_onigiri_sets_of_different_shapes(party):
    """Circle, triangle and two squares score 9 + 1; four different shapes score 16."""
    seats = [["onigiri_circle", "onigiri_triangle", "onigiri_square", "onigiri_square"], ["onigiri_rectangle"]]
    assert round_points(party, seats, "onigiri") == [10, 1]
    seats = [["onigiri_circle", "onigiri_triangle", "onigiri_square", "onigiri_rectangle"], []]
    assert round_points(party, seats, "onigiri") == [16, 0]


def test_edamame_scores_per_opponent_with_edamame(party):
    """Each edamame scores 1 per opponent who has one too; a player alone with edamame scores 0."""
    seats = [["edamame", "edamame"], ["edamame"], ["eel"], ["edamame"]]
    assert round_points(party, seats, "edamame") == [4, 2, 0, 2]
    assert round_points(party, [["edamame"], ["eel"]], "edamame") == [0, 0]


def test_edamame_is_capped_at_four_per_card(party):
    """With five opponents holding edamame, each edamame still scores at most 4."""
    seats = [["edamame", "edamame"]] + [["edamame"]] * 5  # 7 of the 8 edamame
    assert round_points(party, seats, "edamame") == [8, 4, 4, 4, 4, 4]


@pytest.mark.parametrize("eels, points", [(0, 0), (1, -3), (2, 7), (3, 7)])
def test_eel_one_card_minus_three_two_or_more_seven(party, eels, points):
    """Eel: 1 card -3, 2 or more 7."""
    assert round_points(party, [["eel"] * eels, []], "eel")[0] == points


def test_tea_scores_the_largest_colour_group(party):
    """Tea scores 1 per card of your largest group of one colour (nigiri and wasabi share one)."""
    seats = [["tea", "eel", "eel", "egg_nigiri", "wasabi", "squid_nigiri"], ["tea"]]
    assert round_points(party, seats, "tea") == [3, 1]


def test_fruit_scores_each_kind_by_its_icons_at_game_end(party):
    """Fruit: each kind separately, 0 icons -2, 1 -> 0, 2 -> 1, 3 -> 3, 4 -> 6, 5 or more -> 10."""
    table = {
        "rounds": [
            [["fruit_ww", "fruit_wp"], ["eel"]],
            [["fruit_ww"], ["eel"]],
            [["fruit_wo"], ["eel"]],
        ]
    }
    result = score_table(party, table)
    # seat 0: watermelon 2+1+2+1 = 6 -> 10, pineapple 1 -> 0, orange 1 -> 0; seat 1: no fruit -> -2 x 3
    assert result["rules"]["watermelon"] == [10, -2]
    assert result["rules"]["pineapple"] == [0, -2]
    assert result["rules"]["orange"] == [0, -2]
    assert result["game_end"] == [10, -6]


def test_ties_are_broken_by_the_most_dessert_cards(party):
    """Players tied on points: the one with more dessert (fruit) cards wins."""
    table = {
        "rounds": [
            [["fruit_ww", "fruit_oo", "eel"], ["fruit_pp", "eel", "eel"]],
        ]
    }
    result = score_table(party, table)
    # seat 0: eel -3; watermelon 2 -> 1, pineapple 0 -> -2, orange 2 -> 1: total -3
    # seat 1: eel 7;  pineapple 2 -> 1, watermelon 0 -> -2, orange 0 -> -2: total 4
    assert result["totals"] == [-3, 4] and result["winners"] == [1]
    tied = {"rounds": [[["fruit_ww", "fruit_pp"], ["fruit_oo"]]]}
    # seat 0: 1 + 1 - 2 = 0; seat 1: -2 - 2 + 1 = -3: no tie, seat 0 wins outright
    assert score_table(party, tied)["winners"] == [0]
    level = {"rounds": [[["fruit_ww", "eel", "eel"], ["fruit_ww", "fruit_pp", "eel"]]]}
    # seat 0: eel 7, fruit 1 - 2 - 2 = -3 -> 4; seat 1: eel -3, fruit 1 + 1 - 2 = 0 -> -3
    assert score_table(party, level)["totals"] == [4, -3]


def test_reshuffled_cards_may_come_back_each_round_but_kept_ones_may_not(party):
    """With reshuffling, a table may use both squares every round; kept fruit counts over the whole game."""
    squares = {"rounds": [[["onigiri_square", "onigiri_square"], []]] * 3}
    assert score_table(party, squares)["rules"]["onigiri"] == [6, 0]  # two sets of one shape a round
    from ruledraft.errors import InputError

    fruit = {"rounds": [[["fruit_ww"], ["fruit_ww"]], [["fruit_ww"], []]]}
    with pytest.raises(InputError, match="3 fruit_ww played in round 2, but the deck has only 2"):
        score_table(party, fruit)
