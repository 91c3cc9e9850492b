"""Sushi Go! scoring, card by card, checked against the rulebook through ``score_table``.

The truth for every number is the rulebook summary in /work/shared/reference/sushi-go.md.
Tables are built by hand: ``{"rounds": [[[seat 0's cards in play order], [seat 1's], ...], ...]}``.
Every table has the ruleset's 3 rounds (the unused ones empty), as a finished game does.
"""

from __future__ import annotations

import pytest

from ruledraft.engine.table_scoring import score_table
from ruledraft.language.loading import load_ruleset

ROUNDS = 3


@pytest.fixture(scope="module")
def sushi_go():
    """The bundled base game."""
    return load_ruleset("sushi-go")


def table(*rounds) -> dict:
    """A table from rounds given as sequences of seats' card lists, padded with empty rounds to 3."""
    rounds = [[list(seat) for seat in rnd] for rnd in rounds]
    seats = len(rounds[0])
    while len(rounds) < ROUNDS:
        rounds.append([[] for _ in range(seats)])
    return {"rounds": rounds}


def one_round(*seats) -> dict:
    """A game in which only round 1 has cards: ``seats`` are the cards each seat played."""
    return table(seats)


def score(rs, *seats) -> dict:
    """``score_table`` of a game where the given cards were all played in round 1."""
    return score_table(rs, one_round(*seats))


def first_round(rs, *seats) -> list:
    """Round-1 points per seat when ``seats`` played these cards in round 1."""
    return score(rs, *seats)["rounds"][0]


# --------------------------------------------------------------------------- set collections


@pytest.mark.parametrize("n, points", [(0, 0), (1, 0), (2, 5), (3, 5), (4, 10), (5, 10), (6, 15)])
def test_tempura_scores_5_per_complete_pair(sushi_go, n, points):
    """Tempura: 5 points per complete pair, a lone tempura 0 (1 ->0, 2 ->5, 3 ->5, 4 ->10)."""
    result = score(sushi_go, ["tempura"] * n, [])
    assert result["rounds"][0] == [points, 0]
    assert result["rules"]["tempura"] == [points, 0]


@pytest.mark.parametrize("n, points", [(1, 0), (2, 0), (3, 10), (4, 10), (5, 10), (6, 20)])
def test_sashimi_scores_10_per_complete_set_of_three(sushi_go, n, points):
    """Sashimi: 10 points per complete set of 3, fewer score nothing (2 ->0, 3 ->10, 6 ->20)."""
    result = score(sushi_go, [], ["sashimi"] * n)
    assert result["rounds"][0] == [0, points]
    assert result["rules"]["sashimi"] == [0, points]


@pytest.mark.parametrize("n, points", [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 15), (6, 15), (7, 15)])
def test_dumplings_score_by_count_capped_at_15(sushi_go, n, points):
    """Dumplings: 1, 3, 6, 10, 15 for 1..5; six or more still score 15."""
    result = score(sushi_go, ["dumpling"] * n, [])
    assert result["rounds"][0] == [points, 0]
    assert result["rules"]["dumpling"] == [points, 0]


@pytest.mark.parametrize("card, points", [("egg_nigiri", 1), ("salmon_nigiri", 2), ("squid_nigiri", 3)])
def test_nigiri_scores_its_face_value(sushi_go, card, points):
    """Egg, salmon and squid nigiri score 1, 2 and 3 without a wasabi."""
    assert first_round(sushi_go, [card], [card, card]) == [points, 2 * points]


def test_chopsticks_score_nothing(sushi_go):
    """Chopsticks left on the table score 0, alone or several."""
    result = score(sushi_go, ["chopsticks"], ["chopsticks"] * 3)
    assert result["rounds"] == [[0, 0], [0, 0], [0, 0]]
    assert result["totals"] == [0, 0]
    assert all(points == [0, 0] for points in result["rules"].values())


def test_cards_of_different_kinds_add_up(sushi_go):
    """A mixed tableau scores the sum of its parts (tempura pair 5 + sashimi set 10 + 3 dumplings 6 + squid 3)."""
    cards = ["tempura", "sashimi", "dumpling", "tempura", "sashimi", "dumpling", "sashimi", "dumpling", "squid_nigiri"]
    assert first_round(sushi_go, cards, []) == [24, 0]


# --------------------------------------------------------------------------- wasabi


@pytest.mark.parametrize("card, points", [("egg_nigiri", 3), ("salmon_nigiri", 6), ("squid_nigiri", 9)])
def test_nigiri_after_wasabi_is_tripled(sushi_go, card, points):
    """A nigiri played after a wasabi scores triple: 3 / 6 / 9 (the wasabi rule adds the extra 2x)."""
    result = score(sushi_go, ["wasabi", card], [])
    assert result["rounds"][0] == [points, 0]
    assert result["rules"]["nigiri"] == [points // 3, 0]
    assert result["rules"]["wasabi"] == [points - points // 3, 0]


def test_nigiri_before_wasabi_is_not_tripled(sushi_go):
    """Only a nigiri played after the wasabi goes on it: squid then wasabi scores 3."""
    result = score(sushi_go, ["squid_nigiri", "wasabi"], ["salmon_nigiri", "wasabi", "egg_nigiri"])
    assert result["rounds"][0] == [3, 2 + 3]
    assert result["rules"]["wasabi"] == [0, 2]


def test_two_wasabis_then_two_nigiri_are_both_tripled(sushi_go):
    """Two empty wasabis take the next two nigiri: wasabi, wasabi, salmon, squid = 6 + 9."""
    assert first_round(sushi_go, ["wasabi", "wasabi", "salmon_nigiri", "squid_nigiri"], []) == [15, 0]


def test_one_nigiri_per_wasabi(sushi_go):
    """A wasabi holds one nigiri: wasabi, squid, squid = 9 + 3."""
    result = score(sushi_go, ["wasabi", "squid_nigiri", "squid_nigiri"], [])
    assert result["rounds"][0] == [12, 0]
    assert result["rules"]["wasabi"] == [6, 0]


def test_each_new_nigiri_fills_an_empty_wasabi_oldest_first(sushi_go):
    """Wasabi, egg, wasabi, squid, salmon: egg on the first wasabi (3), squid on the second (9), salmon plain (2)."""
    result = score(sushi_go, ["wasabi", "egg_nigiri", "wasabi", "squid_nigiri", "salmon_nigiri"], [])
    assert result["rounds"][0] == [14, 0]
    assert result["rules"]["nigiri"] == [6, 0]
    assert result["rules"]["wasabi"] == [8, 0]


def test_wasabis_filled_in_order_leave_the_newest_empty(sushi_go):
    """Three wasabis and two nigiri: the two nigiri are tripled, the third wasabi stays empty (0)."""
    assert first_round(sushi_go, ["wasabi", "wasabi", "wasabi", "egg_nigiri", "squid_nigiri"], []) == [12, 0]


@pytest.mark.parametrize("cards", [["wasabi"], ["wasabi", "wasabi"], ["wasabi", "tempura", "sashimi"]])
def test_wasabi_without_nigiri_scores_nothing(sushi_go, cards):
    """A wasabi with no nigiri on it scores 0 (and does not triple other cards)."""
    assert first_round(sushi_go, cards, []) == [0, 0]


# --------------------------------------------------------------------------- maki


MAKI = {
    1: ["maki_1"],
    2: ["maki_2"],
    3: ["maki_3"],
    4: ["maki_3", "maki_1"],
    5: ["maki_3", "maki_2"],
    6: ["maki_3", "maki_3"],
    0: [],
}


@pytest.mark.parametrize(
    "icons, points",
    [
        ((5, 3, 3, 2), [6, 1, 1, 0]),  # the rulebook example
        ((3, 3, 1), [3, 3, 0]),  # tie for first splits 6, no second place
        ((2, 2, 2, 1), [2, 2, 2, 0]),  # three-way tie for first: 6 // 3
        ((4, 2, 2), [6, 1, 1]),  # tie for second: 3 // 2 = 1
        ((4, 2, 2, 2), [6, 1, 1, 1]),  # three tie for second: 3 // 3
        ((4, 1, 0), [6, 3, 0]),  # a single second place takes 3
        ((1, 4, 0, 2, 0), [0, 6, 0, 3, 0]),  # seats in any order
        ((4, 0), [6, 0]),  # zero maki: no second place even though it is open
        ((4, 0, 0), [6, 0, 0]),
        ((5, 0, 0, 0, 0), [6, 0, 0, 0, 0]),
        ((2, 2), [3, 3]),  # everyone tied with maki: split 6
        ((1, 1, 1, 1, 1), [1, 1, 1, 1, 1]),  # 6 // 5
        ((0, 0, 0), [0, 0, 0]),  # nobody has maki
    ],
)
def test_maki_majority(sushi_go, icons, points):
    """Maki: most icons 6, second 3, ties split (remainder dropped), a tie for first leaves no second, no maki no points."""
    result = score(sushi_go, *[MAKI[i] for i in icons])
    assert result["rules"]["maki"] == points
    assert result["rounds"][0] == points


def test_maki_counts_icons_not_cards(sushi_go):
    """One maki_3 (3 icons) beats two maki_1 (2 icons)."""
    assert first_round(sushi_go, ["maki_1", "maki_1"], ["maki_3"]) == [3, 6]


def test_maki_is_scored_every_round(sushi_go):
    """The maki majority is decided afresh each round, on that round's cards only."""
    result = score_table(sushi_go, table([["maki_3"], ["maki_1"]], [["maki_1"], ["maki_2"]], [["maki_2"], ["maki_2"]]))
    assert result["rounds"] == [[6, 3], [3, 6], [3, 3]]
    assert result["totals"] == [12, 12]


# --------------------------------------------------------------------------- pudding


def test_pudding_rulebook_example_counted_over_all_rounds(sushi_go):
    """Puddings 4, 3, 0, 0 (spread over the rounds) score +6, 0, -3, -3 at game end only."""
    t = table(
        [["pudding"], ["pudding"], ["tempura"], []],
        [["pudding", "pudding"], [], [], ["sashimi"]],
        [["pudding"], ["pudding", "pudding"], [], []],
    )
    result = score_table(sushi_go, t)
    assert result["rounds"] == [[0, 0, 0, 0]] * 3
    assert result["game_end"] == [6, 0, -3, -3]
    assert result["rules"]["pudding"] == [6, 0, -3, -3]
    assert result["totals"] == [6, 0, -3, -3]
    assert result["winners"] == [0]


@pytest.mark.parametrize(
    "puddings, points",
    [
        ((2, 2, 2), [0, 0, 0]),  # everyone level: nobody scores
        ((1, 1), [0, 0]),
        ((0, 0, 0, 0), [0, 0, 0, 0]),
        ((3, 1), [6, 0]),  # 2 players: no -6
        ((0, 2), [0, 6]),
        ((2, 0, 0, 0, 0), [6, -1, -1, -1, -1]),  # -6 / 4 = -1.5, remainder dropped toward zero
        ((1, 1, 1, 0, 0), [2, 2, 2, -3, -3]),  # +6 / 3 and -6 / 2
        ((2, 2, 0), [3, 3, -6]),
        ((3, 1, 0), [6, 0, -6]),
        ((0, 1, 3, 3), [-6, 0, 3, 3]),
    ],
)
def test_pudding_majority(sushi_go, puddings, points):
    """Pudding at game end: most +6, fewest -6, ties split (remainder dropped), all level nothing, no -6 with 2 players."""
    result = score(sushi_go, *[["pudding"] * n for n in puddings])
    assert result["game_end"] == points
    assert result["rounds"][0] == [0] * len(puddings)


def test_puddings_are_not_scored_at_round_end(sushi_go):
    """A pudding is worth nothing in the round it is played: every round score is 0."""
    t = table([["pudding"], []], [["pudding"], []], [["pudding"], []])
    result = score_table(sushi_go, t)
    assert result["rounds"] == [[0, 0], [0, 0], [0, 0]]
    assert result["game_end"] == [6, 0]


# --------------------------------------------------------------------------- winners


def test_winner_is_the_seat_with_most_points(sushi_go):
    """The seat with the highest total wins alone."""
    result = score(sushi_go, ["tempura", "tempura"], ["sashimi"] * 3, ["dumpling"])
    assert result["totals"] == [5, 10, 1]
    assert result["winners"] == [1]


def test_tie_on_points_is_broken_by_most_puddings(sushi_go):
    """Tied on points, the player with more puddings wins (even when the puddings earned the points)."""
    # seat 0: tempura pair 5 + egg 1 = 6; seat 1: one pudding, +6 at game end (2 players: no -6)
    result = score(sushi_go, ["tempura", "tempura", "egg_nigiri"], ["pudding"])
    assert result["totals"] == [6, 6]
    assert result["winners"] == [1]


def test_tie_break_only_looks_at_the_tied_players(sushi_go):
    """A player with more puddings but fewer points does not take part in the tie-break."""
    # puddings 1, 1, 2: seat 2 +6, seats 0 and 1 share -6 -> -3 each
    result = score(
        sushi_go,
        ["pudding", "sashimi", "sashimi", "sashimi"],
        ["pudding", "sashimi", "sashimi", "sashimi"],
        ["pudding", "pudding"],
    )
    assert result["game_end"] == [-3, -3, 6]
    assert result["totals"] == [7, 7, 6]
    assert result["winners"] == [0, 1]


def test_tie_on_points_and_puddings_is_a_shared_win(sushi_go):
    """Still tied after the pudding tie-break: every tied seat is listed as a winner."""
    result = score(
        sushi_go, ["tempura", "tempura", "pudding"], ["sashimi", "pudding"], ["tempura", "tempura", "pudding"]
    )
    assert result["totals"] == [5, 0, 5]
    assert result["winners"] == [0, 2]


def test_everyone_at_zero_all_share_the_win(sushi_go):
    """An empty table: everyone has 0 points and 0 puddings, so everyone shares the win."""
    result = score_table(sushi_go, table([[], [], []]))
    assert result["totals"] == [0, 0, 0]
    assert result["winners"] == [0, 1, 2]


# --------------------------------------------------------------------------- whole games, worked out by hand

# Game A: 4 players, 8 cards each per round.
#
# Round 1
#   S0 tempura x2 (5), sashimi x3 (10), egg (1), pudding, maki 3 icons        -> 16 + maki
#   S1 wasabi+squid (9), dumpling x3 (6), chopsticks, maki 2+2 = 4 icons        -> 15 + maki
#   S2 salmon (2), wasabi+salmon (6), lone tempura, lone sashimi, pudding x2, maki 1 -> 8 + maki
#   S3 dumpling x6 (15), tempura x2 (5), no maki                                -> 20
#   maki 3, 4, 1, 0 -> S1 6, S0 3, S2 0:            round 1 = [19, 21, 8, 20]
# Round 2
#   S0 maki 3+3+2 = 8, pudding, wasabi+egg (3), tempura x2 (5)                  -> 8 + maki
#   S1 maki 3+3+2 = 8, salmon x2 + squid (7), sashimi x2 (0)                    -> 7 + maki
#   S2 maki 2+1 = 3, pudding x2, dumpling x2 (3), sashimi (0), empty wasabi      -> 3 + maki
#   S3 chopsticks, egg (1), tempura x3 (5), sashimi x3 (10)                     -> 16
#   maki 8, 8, 3, 0: tie for first splits 6 -> 3, 3, no second place: round 2 = [11, 10, 3, 16]
# Round 3
#   S0 wasabi, wasabi, squid (9), salmon (6), egg (1), maki 1, sashimi x2 (0)    -> 16 + maki
#   S1 pudding x3, maki 2+2 = 4, tempura x2 (5), dumpling (1)                   -> 6 + maki
#   S2 maki 3+2 = 5, squid + salmon (5), tempura x2 (5), dumpling x2 (3)         -> 13 + maki
#   S3 maki 3+1 = 4, pudding, salmon (2), chopsticks, sashimi x2 (0), egg (1)   -> 3 + maki
#   maki 1, 4, 5, 4: S2 6, S1 and S3 tie for second 3 // 2 = 1: round 3 = [16, 7, 19, 4]
# Game end: puddings 2, 3, 4, 1 -> S2 +6, S3 -6.
# Totals: S0 19+11+16 = 46, S1 21+10+7 = 38, S2 8+3+19+6 = 36, S3 20+16+4-6 = 34. Winner S0.
GAME_A = {
    "rounds": [
        [
            ["tempura", "tempura", "sashimi", "sashimi", "sashimi", "maki_3", "pudding", "egg_nigiri"],
            ["wasabi", "squid_nigiri", "dumpling", "dumpling", "dumpling", "maki_2", "maki_2", "chopsticks"],
            ["salmon_nigiri", "wasabi", "salmon_nigiri", "tempura", "maki_1", "pudding", "pudding", "sashimi"],
            ["dumpling", "dumpling", "dumpling", "dumpling", "dumpling", "dumpling", "tempura", "tempura"],
        ],
        [
            ["maki_3", "maki_3", "maki_2", "pudding", "wasabi", "egg_nigiri", "tempura", "tempura"],
            ["maki_3", "maki_3", "maki_2", "salmon_nigiri", "salmon_nigiri", "squid_nigiri", "sashimi", "sashimi"],
            ["maki_2", "maki_1", "pudding", "pudding", "dumpling", "dumpling", "sashimi", "wasabi"],
            ["chopsticks", "egg_nigiri", "tempura", "tempura", "tempura", "sashimi", "sashimi", "sashimi"],
        ],
        [
            ["wasabi", "wasabi", "squid_nigiri", "salmon_nigiri", "egg_nigiri", "maki_1", "sashimi", "sashimi"],
            ["pudding", "pudding", "pudding", "maki_2", "maki_2", "tempura", "tempura", "dumpling"],
            ["maki_3", "maki_2", "squid_nigiri", "salmon_nigiri", "tempura", "tempura", "dumpling", "dumpling"],
            ["maki_3", "maki_1", "pudding", "salmon_nigiri", "chopsticks", "sashimi", "sashimi", "egg_nigiri"],
        ],
    ]
}

# Game B: 4 players; two players tie on points and the pudding tie-break decides.
#
# Round 1
#   S0 tempura x4 (10), sashimi x3 (10), pudding                                -> 20
#   S1 dumpling x5 (15), maki 3+3 = 6, pudding                                  -> 15 + maki
#   S2 maki 2+2+1 = 5, egg (1), salmon (2), wasabi+squid (9), chopsticks        -> 12 + maki
#   S3 maki 3+2 = 5, wasabi, wasabi, egg (3 on the first, the second stays empty),
#      lone tempura, lone sashimi, dumpling (1)                                 -> 4 + maki
#   maki 0, 6, 5, 5: S1 6, S2 and S3 tie for second 3 // 2 = 1:  round 1 = [20, 21, 13, 5]
# Round 2
#   S0 pudding x2, maki 1+1 = 2, tempura x2 (5), egg (1), salmon (2)            -> 8 + maki
#   S1 sashimi x6 (20), maki 2, chopsticks                                      -> 20 + maki
#   S2 dumpling x4 (10), wasabi+salmon (6), maki 3, pudding                     -> 16 + maki
#   S3 tempura x3 (5), wasabi+squid (9), maki 2, pudding, salmon (2)            -> 16 + maki
#   maki 2, 2, 3, 2: S2 6; three tie for second 3 // 3 = 1:       round 2 = [9, 21, 22, 17]
# Round 3
#   S0 sashimi x4 (10), squid (3), egg (1), lone tempura, chopsticks            -> 14
#   S1 maki 3+3+3+3+1+1+1 = 15, empty wasabi                                    -> 0 + maki
#   S2 pudding x3, maki 2+2 = 4, egg (1), dumpling (1), chopsticks              -> 2 + maki
#   S3 pudding, maki 2+2+2 = 6, salmon x2 (4), dumpling (1), lone tempura       -> 5 + maki
#   maki 0, 15, 4, 6: S1 6, S3 3, S2 nothing:                     round 3 = [14, 6, 2, 8]
# Game end: puddings 3, 1, 4, 2 -> S2 +6, S1 -6.
# Totals: S0 20+9+14 = 43, S1 21+21+6-6 = 42, S2 13+22+2+6 = 43, S3 5+17+8 = 30.
# S0 and S2 tie on 43; S2 has more puddings (4 against 3) and wins alone.
GAME_B = {
    "rounds": [
        [
            ["tempura", "tempura", "tempura", "tempura", "sashimi", "sashimi", "sashimi", "pudding"],
            ["dumpling", "dumpling", "dumpling", "dumpling", "dumpling", "maki_3", "maki_3", "pudding"],
            ["maki_2", "maki_2", "maki_1", "egg_nigiri", "salmon_nigiri", "wasabi", "squid_nigiri", "chopsticks"],
            ["maki_3", "maki_2", "wasabi", "wasabi", "egg_nigiri", "tempura", "sashimi", "dumpling"],
        ],
        [
            ["pudding", "pudding", "maki_1", "maki_1", "tempura", "tempura", "egg_nigiri", "salmon_nigiri"],
            ["sashimi", "sashimi", "sashimi", "sashimi", "sashimi", "sashimi", "maki_2", "chopsticks"],
            ["dumpling", "dumpling", "dumpling", "dumpling", "wasabi", "salmon_nigiri", "maki_3", "pudding"],
            ["tempura", "tempura", "tempura", "wasabi", "squid_nigiri", "maki_2", "pudding", "salmon_nigiri"],
        ],
        [
            ["sashimi", "sashimi", "sashimi", "sashimi", "squid_nigiri", "egg_nigiri", "tempura", "chopsticks"],
            ["maki_3", "maki_3", "maki_3", "maki_3", "maki_1", "maki_1", "maki_1", "wasabi"],
            ["pudding", "pudding", "pudding", "maki_2", "maki_2", "egg_nigiri", "dumpling", "chopsticks"],
            ["pudding", "maki_2", "maki_2", "maki_2", "salmon_nigiri", "salmon_nigiri", "dumpling", "tempura"],
        ],
    ]
}

# Game C: 4 players; seats 0 and 1 play the same cards every round and share the win.
#
# Round 1
#   S0, S1 maki 3+2 = 5, tempura x2 (5), sashimi x3 (10), pudding               -> 15 + maki each
#   S2 maki 3, dumpling x4 (10), egg (1), wasabi+salmon (6)                     -> 17 + maki
#   S3 maki 1, squid (3), wasabi+squid (9), chopsticks, tempura x3 (5)          -> 17 + maki
#   maki 5, 5, 3, 1: S0 and S1 split 6 -> 3 each, no second:      round 1 = [18, 18, 17, 17]
# Round 2
#   S0, S1 dumpling x3 (6), salmon x2 (4), egg (1), maki 2, pudding             -> 11 + maki each
#   S2 maki 3+3+2 = 8, tempura x2 (5), lone sashimi, wasabi+squid (9)           -> 14 + maki
#   S3 maki 1+1 = 2, sashimi x3 (10), pudding x2, salmon (2)                    -> 12 + maki
#   maki 2, 2, 8, 2: S2 6; three tie for second 3 // 3 = 1:       round 2 = [12, 12, 20, 13]
# Round 3
#   S0, S1 wasabi+squid (9), tempura x2 (5), maki 2+2 = 4, dumpling (1), pudding -> 15 + maki each
#   S2 maki 1+1+1 = 3, sashimi x2 (0), salmon x2 (4), chopsticks                 -> 4 + maki
#   S3 pudding x2, maki 3+3 = 6, sashimi x2 (0), chopsticks, salmon (2)          -> 2 + maki
#   maki 4, 4, 3, 6: S3 6; S0 and S1 tie for second 3 // 2 = 1:   round 3 = [16, 16, 4, 8]
# Game end: puddings 3, 3, 0, 4 -> S3 +6, S2 -6.
# Totals: S0 = S1 = 18+12+16 = 46, S2 17+20+4-6 = 35, S3 17+13+8+6 = 44.
# S0 and S1 tie on 46 with 3 puddings each: a shared win.
_C_ROUND_1_PAIR = ["maki_3", "maki_2", "tempura", "tempura", "sashimi", "sashimi", "sashimi", "pudding"]
_C_ROUND_2_PAIR = [
    "dumpling",
    "dumpling",
    "dumpling",
    "salmon_nigiri",
    "salmon_nigiri",
    "maki_2",
    "pudding",
    "egg_nigiri",
]
_C_ROUND_3_PAIR = ["wasabi", "squid_nigiri", "tempura", "tempura", "maki_2", "maki_2", "dumpling", "pudding"]
GAME_C = {
    "rounds": [
        [
            _C_ROUND_1_PAIR,
            _C_ROUND_1_PAIR,
            ["maki_3", "dumpling", "dumpling", "dumpling", "dumpling", "egg_nigiri", "wasabi", "salmon_nigiri"],
            ["maki_1", "squid_nigiri", "wasabi", "squid_nigiri", "chopsticks", "tempura", "tempura", "tempura"],
        ],
        [
            _C_ROUND_2_PAIR,
            _C_ROUND_2_PAIR,
            ["maki_3", "maki_3", "maki_2", "tempura", "tempura", "sashimi", "wasabi", "squid_nigiri"],
            ["maki_1", "maki_1", "sashimi", "sashimi", "sashimi", "pudding", "pudding", "salmon_nigiri"],
        ],
        [
            _C_ROUND_3_PAIR,
            _C_ROUND_3_PAIR,
            ["maki_1", "maki_1", "maki_1", "sashimi", "sashimi", "salmon_nigiri", "salmon_nigiri", "chopsticks"],
            ["pudding", "pudding", "maki_3", "maki_3", "sashimi", "sashimi", "chopsticks", "salmon_nigiri"],
        ],
    ]
}


@pytest.mark.parametrize(
    "game, expected",
    [
        pytest.param(
            GAME_A,
            {
                "rounds": [[19, 21, 8, 20], [11, 10, 3, 16], [16, 7, 19, 4]],
                "game_end": [0, 0, 6, -6],
                "totals": [46, 38, 36, 34],
                "winners": [0],
            },
            id="A-clear-winner",
        ),
        pytest.param(
            GAME_B,
            {
                "rounds": [[20, 21, 13, 5], [9, 21, 22, 17], [14, 6, 2, 8]],
                "game_end": [0, -6, 6, 0],
                "totals": [43, 42, 43, 30],
                "winners": [2],
            },
            id="B-pudding-tie-break",
        ),
        pytest.param(
            GAME_C,
            {
                "rounds": [[18, 18, 17, 17], [12, 12, 20, 13], [16, 16, 4, 8]],
                "game_end": [0, 0, -6, 6],
                "totals": [46, 46, 35, 44],
                "winners": [0, 1],
            },
            id="C-shared-win",
        ),
    ],
)
def test_full_four_player_games_worked_out_by_hand(sushi_go, game, expected):
    """Whole 3-round, 4-player games score exactly as worked out by hand from the rulebook."""
    for rnd in game["rounds"]:
        assert [len(seat) for seat in rnd] == [8, 8, 8, 8]  # a full 4-player game: 8 cards per seat per round
    result = score_table(sushi_go, game)
    assert {k: result[k] for k in ("rounds", "game_end", "totals", "winners")} == expected
    assert set(result) == {"rounds", "game_end", "totals", "winners", "rules"}
    # the per-rule breakdown adds up to the totals
    for seat in range(4):
        assert sum(points[seat] for points in result["rules"].values()) == expected["totals"][seat]
