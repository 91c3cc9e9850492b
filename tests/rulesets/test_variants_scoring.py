"""The bundled Sushi Go! variants: soy sauce, pass both ways, two players with a dummy.

Numbers from /work/shared/reference/sushi-go.md (section "Variants").
"""

from __future__ import annotations

from collections import Counter

import pytest

from ruledraft.engine.state import Game
from ruledraft.engine.table_scoring import score_table
from ruledraft.language.loading import load_ruleset


def table(*rounds) -> dict:
    """A 3-round table; missing rounds are empty."""
    rounds = [[list(seat) for seat in rnd] for rnd in rounds]
    while len(rounds) < 3:
        rounds.append([[] for _ in rounds[0]])
    return {"rounds": rounds}


# =========================================================================== soy sauce


@pytest.fixture(scope="module")
def soy():
    """The soy sauce promo ruleset."""
    return load_ruleset("sushi-go-soy-sauce")


def soy_points(rs, *seats) -> list:
    """Soy sauce points per seat when ``seats`` played these cards in round 1."""
    return score_table(rs, table(seats))["rules"]["soy_sauce"]


def test_soy_sauce_adds_four_cards_to_the_base_deck(soy):
    """The promo adds 4 soy sauce cards in their own colour group: 112 cards, base rules unchanged."""
    card = soy.catalogue.cards[soy.card_index("soy_sauce")]
    assert (card.count, card.group) == (4, "soy_sauce")
    assert len(soy.catalogue.deck()) == 112
    base = load_ruleset("sushi-go")
    assert set(soy.rule_ids) == set(base.rule_ids) | {"soy_sauce"}
    assert "soy_sauce" in [rule.id for rule in soy.round_rules]  # scored at the end of every round


def test_soy_sauce_with_most_colours_scores_four(soy):
    """The only soy sauce player, with the most colours, takes all 4 points (on top of the other cards)."""
    result = score_table(soy, table([["soy_sauce", "tempura", "tempura", "sashimi"], ["dumpling", "dumpling"]]))
    assert result["rules"]["soy_sauce"] == [4, 0]
    assert result["rounds"][0] == [4 + 5, 3]


@pytest.mark.parametrize(
    "mine, counts_as",
    [
        (["soy_sauce"], 1),  # the soy sauce itself is a colour
        (["soy_sauce", "chopsticks"], 2),  # unused chopsticks count
        (["soy_sauce", "pudding"], 2),  # this round's pudding counts
        (["soy_sauce", "wasabi", "egg_nigiri", "salmon_nigiri", "squid_nigiri"], 2),  # nigiri + wasabi: one colour
        (["soy_sauce", "wasabi"], 2),
        (["soy_sauce", "maki_1", "maki_2", "maki_3"], 2),  # all maki: one colour
        (["soy_sauce", "tempura", "tempura", "tempura"], 2),  # copies count once
        (["soy_sauce", "tempura", "sashimi", "dumpling", "maki_2", "egg_nigiri", "pudding", "chopsticks"], 8),
    ],
)
def test_soy_sauce_counts_colour_groups(soy, mine, counts_as):
    """Colours = distinct colour groups this round (soy sauce, chopsticks, this round's pudding count; nigiri+wasabi one, maki one)."""
    groups = ["tempura", "sashimi", "dumpling", "maki_1", "egg_nigiri", "pudding", "chopsticks"]
    # a rival without soy sauce with exactly as many colours: a tie, so the soy sauce scores
    assert soy_points(soy, mine, groups[:counts_as]) == [4, 0]
    # a rival with one colour more sets a bar the soy sauce player does not reach
    # (with all 8 colours nobody can have more)
    if counts_as < len(groups):
        assert soy_points(soy, mine, groups[: counts_as + 1]) == [0, 0]


def test_pudding_from_an_earlier_round_is_not_a_colour(soy):
    """A pudding counts only in the round it was played: a round-1 pudding does not help in round 2."""
    t = table(
        [["pudding"], ["pudding"]],
        [["soy_sauce", "tempura"], ["tempura", "sashimi", "dumpling"]],
    )
    assert score_table(soy, t)["rules"]["soy_sauce"] == [0, 0]
    t = table(
        [["pudding"], ["pudding"]],
        [["soy_sauce", "tempura", "pudding"], ["tempura", "sashimi", "dumpling"]],
    )
    assert score_table(soy, t)["rules"]["soy_sauce"] == [4, 0]


@pytest.mark.parametrize(
    "seats, points",
    [
        ((["soy_sauce", "tempura"], ["soy_sauce", "sashimi"]), [2, 2]),
        ((["soy_sauce", "tempura"], ["soy_sauce", "sashimi"], ["soy_sauce", "dumpling"]), [1, 1, 1]),  # 4 // 3
        (
            (
                ["soy_sauce", "tempura"],
                ["soy_sauce", "sashimi"],
                ["soy_sauce", "dumpling"],
                ["soy_sauce", "egg_nigiri"],
            ),
            [1, 1, 1, 1],
        ),
        (
            (["soy_sauce", "tempura"], ["soy_sauce", "sashimi"], ["dumpling", "pudding"]),
            [2, 2, 0],
        ),  # a tied player without soy sauce gets nothing
        ((["soy_sauce", "tempura", "sashimi"], ["soy_sauce", "sashimi"], []), [4, 0, 0]),  # fewer colours: nothing
    ],
)
def test_soy_sauce_players_tied_on_most_colours_split_four(soy, seats, points):
    """Soy sauce players tied on the most colours split 4, dropping the remainder (3 tied -> 1 each)."""
    assert soy_points(soy, *seats) == points


def test_player_without_soy_sauce_still_sets_the_bar(soy):
    """The most colours is counted over all players: a soy sauce player with fewer colours scores 0, and nobody scores."""
    assert soy_points(soy, ["soy_sauce", "tempura"], ["tempura", "sashimi", "dumpling"], ["soy_sauce"]) == [0, 0, 0]


def test_two_soy_sauces_score_one_share(soy):
    """Only one soy sauce scores per player per round: two soy sauces by one player still take one share."""
    assert soy_points(soy, ["soy_sauce", "soy_sauce", "tempura"], ["sashimi", "dumpling"]) == [4, 0]
    assert soy_points(soy, ["soy_sauce", "soy_sauce", "tempura"], ["soy_sauce", "sashimi"]) == [2, 2]


def test_soy_sauce_is_scored_each_round(soy):
    """Each round's soy sauce majority is separate: points from two rounds add up."""
    t = table(
        [["soy_sauce", "tempura"], ["sashimi"]],
        [["tempura"], ["soy_sauce", "sashimi"]],
        [["soy_sauce", "dumpling"], ["soy_sauce", "tempura"]],
    )
    result = score_table(soy, t)
    assert result["rounds"] == [[4, 0], [0, 4], [3, 2]]  # round 3: 2 each + dumpling 1
    assert result["rules"]["soy_sauce"] == [6, 6]


def test_no_soy_sauce_no_points(soy):
    """Without any soy sauce on the table, the soy sauce rule gives nobody anything."""
    assert soy_points(soy, ["tempura", "sashimi"], ["dumpling"]) == [0, 0]


# =========================================================================== pass both ways


@pytest.fixture(scope="module")
def both_ways():
    """The pass-both-ways ruleset."""
    return load_ruleset("sushi-go-pass-both-ways")


def test_pass_directions_left_right_left(both_ways):
    """Pass both ways: rounds 1 and 3 pass left (+1), round 2 right (-1); the base game always left."""
    assert both_ways.pass_directions == (1, -1, 1)
    assert load_ruleset("sushi-go").pass_directions == (1, 1, 1)


def test_pass_both_ways_scores_like_the_base_game(both_ways):
    """Only the passing changes: the cards and rules are those of the base game."""
    base = load_ruleset("sushi-go")
    assert both_ways.catalogue == base.catalogue
    assert both_ways.rule_ids == base.rule_ids
    t = table([["maki_3", "tempura", "tempura"], ["pudding", "maki_1"], ["wasabi", "squid_nigiri"]])
    assert score_table(both_ways, t) == score_table(base, t)


def _take_first_card_each(state) -> list:
    """One single-card action per seat: the first card of its hand."""
    return [state.hands[s][0] for s in range(len(state.hands))]


def _one_turn(state):
    """Play one turn (everyone takes their first card); the hands before and after."""
    before = [list(h) for h in state.hands]
    actions = _take_first_card_each(state)
    state.apply_actions(actions)
    return before, actions, [list(h) for h in state.hands]


def _passed(before, actions, seat) -> Counter:
    """What is left of ``seat``'s hand after it played its action card."""
    left = Counter(before[seat])
    left[actions[seat]] -= 1
    return +left


@pytest.mark.parametrize("seed", [3, 11])
def test_hands_pass_left_then_right_then_left(both_ways, seed):
    """With 3 players seat 0's hand goes to seat 1 in round 1, to seat 2 (seat i-1) in round 2, to seat 1 in round 3."""
    state = Game(both_ways, 3).new_initial_state(seed)
    expected_receiver = {0: 1, 1: 2, 2: 1}
    for rnd in range(3):
        assert state.round == rnd
        before, actions, after = _one_turn(state)
        # the three hands are different, so where each went is unambiguous
        leftovers = [_passed(before, actions, s) for s in range(3)]
        assert len({tuple(sorted(c.items())) for c in leftovers}) == 3
        receiver = expected_receiver[rnd]
        assert Counter(after[receiver]) == leftovers[0]
        for s in range(3):
            assert Counter(after[(s + both_ways.pass_directions[rnd]) % 3]) == leftovers[s]
        while state.round == rnd and not state.is_terminal():
            state.apply_actions(_take_first_card_each(state))
    assert state.is_terminal()


def test_round_two_hand_of_seat_zero_goes_to_the_last_seat(both_ways):
    """In round 2 the hand seat 0 held, minus the card it played, is seat 2's hand after the turn."""
    tempura = both_ways.card_index("tempura")
    game = Game(both_ways, 3)
    state = game.new_initial_state(5)
    while state.round == 0:
        state.apply_actions(_take_first_card_each(state))
    assert state.round == 1 and state.turn == 0
    held = list(state.hands[0])
    actions = [tempura if tempura in state.hands[s] else state.hands[s][0] for s in range(3)]
    state.apply_actions(actions)
    rest = Counter(held)
    rest[actions[0]] -= 1
    assert Counter(state.hands[2]) == +rest
    assert Counter(state.hands[1]) != +rest


# =========================================================================== two players with a dummy


@pytest.fixture(scope="module")
def dummy():
    """The two-player-with-a-dummy ruleset."""
    return load_ruleset("sushi-go-two-player-dummy")


def test_dummy_ruleset_has_two_players_and_one_dummy_seat(dummy):
    """Two players, one dummy seat that cannot win, hands of 9, dummy control 0, 1, 0."""
    assert (dummy.min_players, dummy.max_players) == (2, 2)
    assert dummy.num_seats(2) == 3
    assert dummy.hand_size(2) == 9
    assert dummy.dummy.seats == 1 and dummy.dummy.can_win is False
    assert dummy.dummy.first_controller == (0, 1, 0)


def test_dummy_table_needs_three_seats(dummy):
    """A dummy table has 3 seats (players 0 and 1, then the dummy): 2 seats is refused."""
    from ruledraft.errors import InputError

    with pytest.raises(InputError, match="dummy"):
        score_table(dummy, table([["tempura"], ["sashimi"]]))


def test_dummy_wins_maki_majority_like_a_seat(dummy):
    """Maki is ranked over all 3 seats: the dummy with most icons takes 6, pushing the players down."""
    result = score_table(dummy, table([["maki_1"], ["maki_2"], ["maki_3"]]))
    assert result["rules"]["maki"] == [0, 3, 6]
    assert result["rounds"][0] == [0, 3, 6]


def test_dummy_takes_part_in_pudding_with_the_three_seat_rule(dummy):
    """Pudding with a dummy uses the 3-seat rule: the -6 applies, to the dummy too."""
    result = score_table(dummy, table([["pudding", "pudding"], ["pudding"], []]))
    assert result["game_end"] == [6, 0, -6]
    result = score_table(dummy, table([["pudding"], [], ["pudding", "pudding"]]))
    assert result["game_end"] == [0, -6, 6]
    result = score_table(dummy, table([["pudding"], ["pudding"], []]))
    assert result["game_end"] == [3, 3, -6]


def test_the_dummy_games_pudding_rule_is_described_as_it_scores(dummy):
    """The words for pudding (show, the browser's card text) give the -6 it scores among three seats, not Sushi Go!'s 'with 2 players: nothing', which no dummy game uses."""
    (pudding,) = [r for r in dummy.rules if r.id == "pudding"]
    assert pudding.describe().startswith("Players are ranked by number of Pudding. Most: 6. Fewest: -6. Tied players")
    (base,) = [r for r in load_ruleset("sushi-go").rules if r.id == "pudding"]
    assert "Fewest: -6; with 2 players: nothing." in base.describe()


def test_dummy_never_wins_even_with_the_highest_total(dummy):
    """The dummy has a score of its own but is never among the winners, even when it has the most points."""
    result = score_table(dummy, table([["tempura", "tempura"], ["egg_nigiri"], ["sashimi"] * 3 + ["maki_3"]]))
    assert result["totals"] == [5, 1, 16]
    assert result["winners"] == [0]
    result = score_table(dummy, table([["tempura", "tempura"], ["tempura", "tempura"], ["sashimi"] * 3]))
    assert result["totals"] == [5, 5, 10]
    assert result["winners"] == [0, 1]


def test_players_tied_behind_the_dummy_use_the_pudding_tie_break(dummy):
    """Among the two players the usual tie-break applies: tied on points, more puddings wins."""
    # seat 0: maki 6 in round 1, 1 pudding; seat 1: 2 puddings (+6); dummy: no pudding (-6), 3 dumplings
    t = table(
        [["maki_3", "pudding"], ["pudding"], ["dumpling"] * 3],
        [[], ["pudding"], ["sashimi"] * 3],
    )
    result = score_table(dummy, t)
    assert result["rounds"][:2] == [[6, 0, 6], [0, 0, 10]]
    assert result["game_end"] == [0, 6, -6]
    assert result["totals"] == [6, 6, 10]
    assert result["winners"] == [1]


def test_dummy_puddings_do_not_break_ties_between_players(dummy):
    """The dummy's puddings count for scoring but not in the players' tie-break: equal players share the win."""
    t = table([["tempura", "tempura"], ["tempura", "tempura"], ["pudding"] * 3])
    result = score_table(dummy, t)
    assert result["game_end"] == [-3, -3, 6]
    assert result["totals"] == [2, 2, 6]
    assert result["winners"] == [0, 1]
