"""The Sushi Go Party! card library (rulesets/sushi-go-party.yaml) and its menus, checked
against the numbers of the Party rulebook (shared/reference/sushi-go-party.md)."""

from __future__ import annotations

import os
import random
from collections import Counter
from pathlib import Path

import pytest
from paths import DATA, ROOT
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.engine.table_scoring import score_table
from ruledraft.errors import RulesetError
from ruledraft.language.bundled import bundled_ids, bundled_libraries
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import check_ruleset, load_ruleset
from ruledraft.play.agents import make_agent
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import bot_seed

GOLDEN = DATA / "party"
EXAMPLE = ROOT / "examples" / "my-party-menu.yaml"

#: the reference's dessert schedule: desserts shuffled in before rounds 1, 2, 3
SCHEDULE = {2: (5, 3, 2), 3: (5, 3, 2), 4: (5, 3, 2), 5: (5, 3, 2), 6: (7, 5, 3), 7: (7, 5, 3), 8: (7, 5, 3)}

runner = CliRunner()


def menu_text(dishes: str, extra: str = "") -> str:
    return f"format: 1\nextends: sushi-go-party\nid: test-menu\nname: Test menu\n{extra}menu: [{dishes}]\n"


def write_menu(tmp_path: Path, dishes: str, extra: str = "", name: str = "menu.yaml") -> Path:
    path = tmp_path / name
    path.write_text(menu_text(dishes, extra), encoding="utf-8")
    return path


def problems(path: Path) -> list[tuple[int, int, str]]:
    return [(d.line, d.column, d.message) for d in check_ruleset(path).diagnostics]


#: menus used below; each is a valid menu of the library's cards
CLASSIC = "maki, tempura, sashimi, dumpling, wasabi, tea, pudding"
ICE_CREAM = "maki, tempura, sashimi, dumpling, wasabi, soy_sauce, green_tea_ice_cream"
EDAMAME = "maki, tempura, dumpling, edamame, wasabi, tea, green_tea_ice_cream"


@pytest.fixture(scope="module")
def menus(tmp_path_factory):
    """The compiled menus by name: the bundled starter, and CLASSIC, ICE_CREAM, EDAMAME."""
    folder = tmp_path_factory.mktemp("menus")
    out = {"starter": load_ruleset("sushi-go-party-starter")}
    for name, dishes in (("classic", CLASSIC), ("ice_cream", ICE_CREAM), ("edamame", EDAMAME)):
        out[name] = load_ruleset(write_menu(folder, dishes, name=f"{name}.yaml"))
    return out


def round_points(ruleset, seats, rule):
    """The points ``rule`` gives each seat for one round with these played cards."""
    return score_table(ruleset, {"rounds": [seats]})["rules"][rule]


# ---------------------------------------------------------------- each card's rule


def test_maki_ties_score_in_full_and_keep_the_next_place(menus):
    """The rulebook example (2-5 players, 6 / 3): 5, 5, 3, 1 maki icons score 6, 6, 3, 0."""
    seats = [["maki_3", "maki_2"], ["maki_2", "maki_2", "maki_1"], ["maki_3"], ["maki_1"]]
    assert round_points(menus["classic"], seats, "maki") == [6, 6, 3, 0]


def test_maki_with_six_or_more_players_awards_six_four_two(menus):
    """With 6-8 players maki awards 6 / 4 / 2, ties in full without skipping a place; no maki, no points."""
    seats = [["maki_3", "maki_2"], ["maki_2", "maki_2", "maki_1"], ["maki_3"], ["maki_1"], ["tempura"], []]
    assert round_points(menus["classic"], seats, "maki") == [6, 6, 4, 2, 0, 0]
    assert round_points(menus["classic"], seats + [[], []], "maki") == [6, 6, 4, 2, 0, 0, 0, 0]


def test_maki_needs_at_least_one_maki(menus):
    """Nobody with maki: nobody scores maki (not even the tied 'most' of zero)."""
    assert round_points(menus["classic"], [["tempura"], ["sashimi"], []], "maki") == [0, 0, 0]


def test_temaki_most_four_fewest_minus_four_ties_in_full(menus):
    """Temaki: most +4, fewest (none included) -4, tied players score in full."""
    rs = menus["starter"]
    assert round_points(rs, [["temaki", "temaki"], ["temaki"], []], "temaki") == [4, 0, -4]
    assert round_points(rs, [["temaki"], ["temaki"], [], []], "temaki") == [4, 4, -4, -4]


def test_temaki_with_two_players_has_no_penalty_and_level_scores_nothing(menus):
    """With 2 players nobody loses 4 for temaki; everyone tied: nobody scores."""
    rs = menus["starter"]
    assert round_points(rs, [["temaki", "temaki"], ["temaki"]], "temaki") == [4, 0]
    assert round_points(rs, [["temaki"], []], "temaki") == [4, 0]
    assert round_points(rs, [["temaki"], ["temaki"], ["temaki"]], "temaki") == [0, 0, 0]


def test_tempura_sashimi_dumpling_as_in_sushi_go(menus):
    """Tempura 5 a pair, sashimi 10 a triple, dumplings 1/3/6/10/15."""
    rs = menus["classic"]
    assert round_points(rs, [["tempura"] * 3, ["tempura"] * 4], "tempura") == [5, 10]
    assert round_points(rs, [["sashimi"] * 2, ["sashimi"] * 6], "sashimi") == [0, 20]
    assert [round_points(rs, [["dumpling"] * n, []], "dumpling")[0] for n in range(7)] == [0, 1, 3, 6, 10, 15, 15]


@pytest.mark.parametrize("eels, points", [(0, 0), (1, -3), (2, 7), (3, 7), (5, 7)])
def test_eel_one_card_minus_three_two_or_more_seven(menus, eels, points):
    """Eel: 1 card -3; 2 or more 7."""
    assert round_points(menus["starter"], [["eel"] * eels, []], "eel")[0] == points


@pytest.mark.parametrize("tofus, points", [(0, 0), (1, 2), (2, 6), (3, 0), (4, 0)])
def test_tofu_one_two_two_six_three_or_more_nothing(menus, tofus, points):
    """Tofu: 1 card 2, 2 cards 6, 3 or more 0."""
    assert round_points(menus["starter"], [["tofu"] * tofus, []], "tofu")[0] == points


def test_onigiri_sets_of_distinct_shapes(menus):
    """Circle, triangle and two squares score 9 + 1; four shapes 16; two of one shape 1 + 1."""
    rs = menus["starter"]
    seats = [["onigiri_circle", "onigiri_triangle", "onigiri_square", "onigiri_square"], ["onigiri_rectangle"]]
    assert round_points(rs, seats, "onigiri") == [10, 1]
    seats = [["onigiri_circle", "onigiri_triangle", "onigiri_square", "onigiri_rectangle"], []]
    assert round_points(rs, seats, "onigiri") == [16, 0]
    assert round_points(rs, [["onigiri_circle"] * 2, ["onigiri_square"]], "onigiri") == [2, 1]


def test_nigiri_and_wasabi(menus):
    """Nigiri score 1/2/3; on an earlier wasabi, three times as much."""
    rs = menus["classic"]
    seats = [["wasabi", "squid_nigiri", "egg_nigiri"], ["salmon_nigiri", "wasabi"]]
    result = score_table(rs, {"rounds": [seats]})["rules"]
    assert [a + b for a, b in zip(result["nigiri"], result["wasabi"])] == [10, 2]


def test_edamame_one_per_opponent_with_edamame(menus):
    """Each edamame scores 1 per opponent with at least one edamame; alone it scores 0."""
    rs = menus["edamame"]
    seats = [["edamame", "edamame"], ["edamame"], ["tempura"], ["edamame"]]
    assert round_points(rs, seats, "edamame") == [4, 2, 0, 2]
    assert round_points(rs, [["edamame"], ["tempura"], []], "edamame") == [0, 0, 0]


def test_edamame_scores_at_most_four_per_card(menus):
    """With six opponents holding edamame, each edamame still scores 4."""
    seats = [["edamame", "edamame"]] + [["edamame"]] * 6
    assert round_points(menus["edamame"], seats, "edamame") == [8, 4, 4, 4, 4, 4, 4]


def test_tea_counts_the_largest_colour_group_nigiri_and_wasabi_share_one(menus):
    """Tea: 1 per card of your largest colour group; nigiri and wasabi are one colour."""
    rs = menus["classic"]
    seats = [["tea", "tempura", "tempura", "egg_nigiri", "wasabi", "squid_nigiri"], ["tea", "tempura"]]
    assert round_points(rs, seats, "tea") == [3, 1]


def test_tea_counts_itself(menus):
    """Two teas and a tempura: the teas are the largest group (2), so each tea scores 2."""
    assert round_points(menus["classic"], [["tea", "tea", "tempura"], []], "tea") == [4, 0]


def test_soy_sauce_each_card_four_for_the_most_colours_ties_included(menus):
    """Soy sauce: with the most colours (ties included) each soy sauce scores 4; a seat without soy still sets the bar."""
    rs = menus["starter"]
    seats = [
        ["soy_sauce", "eel", "tofu", "temaki"],  # 4 colours
        ["soy_sauce", "eel", "egg_nigiri", "wasabi"],  # soy, eel, nigiri (wasabi too): 3
        ["soy_sauce", "tofu", "temaki", "onigiri_circle"],  # 4 colours: tied for most
    ]
    assert round_points(rs, seats, "soy_sauce") == [4, 0, 4]
    two = [["soy_sauce", "soy_sauce", "eel"], ["eel", "tofu"]]  # 2 colours each: each soy sauce scores 4
    assert round_points(rs, two, "soy_sauce") == [8, 0]
    seats.append(["eel", "tofu", "temaki", "egg_nigiri", "onigiri_circle"])  # 5 colours, no soy sauce
    assert round_points(rs, seats, "soy_sauce") == [0, 0, 0, 0]


def test_pudding_ties_in_full_and_no_penalty_with_two_players(menus):
    """Pudding: most +6, fewest -6, ties in full; 2 players: no -6; everyone level: nothing."""
    rs = menus["classic"]
    three = {"rounds": [[["pudding", "pudding"], ["pudding", "pudding"], ["pudding"]]]}
    assert score_table(rs, three)["rules"]["pudding"] == [6, 6, -6]
    two = {"rounds": [[["pudding"], []]]}
    assert score_table(rs, two)["rules"]["pudding"] == [6, 0]
    level = {"rounds": [[["pudding"], ["pudding"], ["pudding"]]]}
    assert score_table(rs, level)["rules"]["pudding"] == [0, 0, 0]


def test_green_tea_ice_cream_twelve_per_set_of_four(menus):
    """Green tea ice cream: 12 per complete set of 4, kept over the rounds."""
    rs = menus["ice_cream"]
    table = {
        "rounds": [
            [["green_tea_ice_cream"] * 3, ["green_tea_ice_cream"] * 2],
            [["green_tea_ice_cream"], ["green_tea_ice_cream"]],
            [["green_tea_ice_cream"] * 4, []],
        ]
    }
    assert score_table(rs, table)["rules"]["green_tea_ice_cream"] == [24, 0]


def test_fruit_scores_each_kind_by_its_icons(menus):
    """Fruit: each kind separately, 0 icons -2, 1 -> 0, 2 -> 1, 3 -> 3, 4 -> 6, 5 or more -> 10."""
    rs = menus["starter"]
    table = {
        "rounds": [
            [["fruit_ww", "fruit_wp"], ["fruit_oo"]],
            [["fruit_ww"], ["fruit_po", "fruit_po"]],
            [["fruit_wo"], ["fruit_oo"]],
        ]
    }
    result = score_table(rs, table)
    # seat 0: watermelon 2+1+2+1 = 6 -> 10, pineapple 1 -> 0, orange 1 -> 0
    # seat 1: watermelon 0 -> -2, pineapple 2 -> 1, orange 2+2+1+1 = 6 -> 10
    assert result["rules"]["watermelon"] == [10, -2]
    assert result["rules"]["pineapple"] == [0, 1]
    assert result["rules"]["orange"] == [0, 10]
    assert [[score_table(rs, {"rounds": [[["fruit_oo"] * k, []]]})["rules"]["orange"][0]] for k in (1, 2)] == [
        [1],
        [6],
    ]


def test_fruit_scores_only_when_fruit_is_on_the_menu(menus):
    """A menu without fruit has no fruit cards and no fruit rules: nobody scores -2 for missing fruit."""
    rs = menus["classic"]
    assert not {"watermelon", "pineapple", "orange"} & set(rs.rule_ids)
    assert not [c.id for c in rs.catalogue.cards if c.id.startswith("fruit")]
    result = score_table(rs, {"rounds": [[["tempura"], ["tempura"]]]})
    assert result["game_end"] == [0, 0]


def test_cards_off_the_menu_are_not_in_the_deck_and_their_rules_do_not_score(menus):
    """The classic menu's deck: nigiri 12, maki 12, tempura/sashimi/dumpling 8 each, wasabi and tea 3 each, pudding 15."""
    rs = menus["classic"]
    deck = Counter(rs.catalogue.deck())
    by_id = {rs.card_id(i): n for i, n in deck.items()}
    assert by_id == {
        "egg_nigiri": 4,
        "salmon_nigiri": 5,
        "squid_nigiri": 3,
        "maki_1": 4,
        "maki_2": 5,
        "maki_3": 3,
        "tempura": 8,
        "sashimi": 8,
        "dumpling": 8,
        "wasabi": 3,
        "tea": 3,
        "pudding": 15,
    }
    assert rs.rule_ids == ("nigiri", "wasabi", "maki", "tempura", "sashimi", "dumpling", "tea", "pudding")


def test_ties_on_points_are_broken_by_the_most_dessert_cards(menus):
    """Tied on points, the player with more dessert cards wins; still tied, the win is shared."""
    rs = menus["ice_cream"]
    tied = {"rounds": [[["green_tea_ice_cream", "tempura"], ["tempura"]]]}
    result = score_table(rs, tied)
    assert result["totals"] == [0, 0] and result["winners"] == [0]
    level = {"rounds": [[["green_tea_ice_cream"], ["green_tea_ice_cream"]]]}
    assert score_table(rs, level)["winners"] == [0, 1]


# ---------------------------------------------------------------- deal, rounds, desserts, players


def test_hand_sizes_rounds_and_reshuffle_follow_the_rulebook(menus):
    """Deal 10 (2-3 players), 9 (4-5), 8 (6-7), 7 (8); three rounds; everything but kept desserts reshuffled."""
    rs = menus["starter"]
    assert dict(rs.hand_sizes) == {2: 10, 3: 10, 4: 9, 5: 9, 6: 8, 7: 8, 8: 7}
    assert rs.rounds == 3 and rs.between_rounds == "reshuffle"
    assert [c.id for c in rs.catalogue.cards if c.kept] == [
        "fruit_ww",
        "fruit_pp",
        "fruit_oo",
        "fruit_wp",
        "fruit_wo",
        "fruit_po",
    ]


@pytest.mark.parametrize("menu", ["starter", "classic", "ice_cream"])
def test_the_menus_dessert_is_held_back_and_added_per_round_and_player_count(menus, menu):
    """Only the menu's dessert is held back; 5, 3, 2 (2-5 players) or 7, 5, 3 (6-8) join before rounds 1, 2, 3."""
    rs = menus[menu]
    (addition,) = rs.additions
    assert sorted(rs.catalogue.cards[c].id for c in addition.cards) == sorted(
        c.id for c in rs.catalogue.cards if "dessert" in c.tags
    )
    assert sum(rs.catalogue.cards[c].count for c in addition.cards) == 15
    assert {n: addition.counts[n] for n in rs.player_counts} == SCHEDULE


@pytest.mark.parametrize("players", [2, 5, 6, 8])
def test_desserts_join_the_deck_round_by_round_in_play(menus, players):
    """In a game, the held-back pile shrinks by the schedule before each round."""
    rs = menus["starter"]
    state = Game(rs, players).new_initial_state(players)
    schedule = SCHEDULE[players]
    seen = -1
    while not state.finished:
        if state.round != seen:
            seen = state.round
            assert len(state.reserves[0]) == 15 - sum(schedule[: seen + 1])
        state.apply_actions([state.sample_action(s, random.Random(s).random) for s in state.acting_seats()])


def test_a_menus_players_are_what_all_its_cards_allow(menus):
    """Edamame is for 3-8 players, so a menu with it is for 3-8; without it, 2-8."""
    assert (menus["edamame"].min_players, menus["edamame"].max_players) == (3, 8)
    assert (menus["starter"].min_players, menus["starter"].max_players) == (2, 8)


def test_a_menu_may_narrow_its_players_within_its_cards(tmp_path):
    """A menu with players of its own inside what its cards allow is valid and keeps them."""
    rs = load_ruleset(write_menu(tmp_path, EDAMAME, extra="players: {min: 4, max: 6}\n"))
    assert (rs.min_players, rs.max_players) == (4, 6)


def test_a_bound_the_menu_leaves_out_comes_from_its_cards(tmp_path):
    """A menu giving only players.max keeps the least its cards allow (edamame: 3) as its minimum."""
    rs = load_ruleset(write_menu(tmp_path, EDAMAME, extra="players: {max: 5}\n"))
    assert (rs.min_players, rs.max_players) == (3, 5)


# ---------------------------------------------------------------- menu errors, located


@pytest.mark.parametrize(
    ("dishes", "extra", "expected"),
    [
        (
            "maki, tempura, eel, wasabi, tea, pudding",
            "",
            [
                (
                    5,
                    1,
                    "a menu has 3 appetizers, this one has 2 (tempura, eel); choose from: tempura, sashimi, "
                    "dumpling, eel, tofu, onigiri, edamame, miso_soup",
                )
            ],
        ),
        (
            "maki, tempura, eel, tofu, wasabi, tea, soy_sauce, pudding",
            "",
            [
                (
                    5,
                    47,
                    "a menu has 2 specials, this one has 3 (wasabi, tea, soy_sauce); choose from: wasabi, tea, soy_sauce, "
                    "chopsticks, spoon, menu, takeout_box, special_order",
                )
            ],
        ),
        (
            "maki, temaki, tempura, eel, tofu, wasabi, tea, pudding",
            "",
            [(5, 14, "a menu has 1 roll, this one has 2 (maki, temaki); choose from: maki, temaki, uramaki")],
        ),
        (
            "maki, tempura, eel, tofu, wasabi, tea",
            "",
            [
                (
                    5,
                    1,
                    "a menu has 1 dessert, this one has 0 (none); choose from: pudding, green_tea_ice_cream, fruit",
                )
            ],
        ),
        (
            "maki, tempura, eel, tofoo, wasabi, tea, pudding",
            "",
            [
                (5, 28, "'tofoo' is not a dish of the library's courses (did you mean 'tofu'?)"),
                (
                    5,
                    1,
                    "a menu has 3 appetizers, this one has 2 (tempura, eel); choose from: tempura, sashimi, "
                    "dumpling, eel, tofu, onigiri, edamame, miso_soup",
                ),
            ],
        ),
        (
            "maki_2, tempura, eel, tofu, wasabi, tea, pudding",
            "",
            [
                (5, 8, "'maki_2' is not a dish of the library's courses (did you mean 'maki'?)"),
                (5, 1, "a menu has 1 roll, this one has 0 (none); choose from: maki, temaki, uramaki"),
            ],
        ),
        (
            "maki, tempura, eel, tofu, wasabi, tea, tea, pudding",
            "",
            [(5, 47, "the dish 'tea' is on the menu twice (first at line 5)")],
        ),
        (
            EDAMAME,
            "players: {min: 2, max: 8}\n",
            [(6, 33, "'edamame' is only for 3 or more players, but this menu is for 2-8 players (its 'players')")],
        ),
    ],
)
def test_menu_mistakes_are_refused_where_they_are_written(tmp_path, dishes, extra, expected):
    """Each broken menu rule (number per course, unknown dish, a dish twice, a card's player counts) is one located error."""
    path = write_menu(tmp_path, dishes, extra)
    assert sorted(problems(path)) == sorted(expected)
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    line, column, message = expected[0]
    assert f"menu.yaml:{line}:{column}: error: {message}" in result.output


def test_a_menu_without_a_card_library_is_refused(tmp_path):
    """'menu' over a ruleset without courses says what it needs, at the menu key."""
    path = tmp_path / "menu.yaml"
    path.write_text("format: 1\nextends: sushi-go\nid: m\nname: M\nmenu: [maki]\n", encoding="utf-8")
    assert problems(path) == [
        (
            5,
            1,
            "'menu' chooses dishes from the courses of a card library, and this ruleset has no 'courses' "
            "(extend a card library, such as sushi-go-party)",
        )
    ]


def test_the_library_on_its_own_is_not_playable_and_names_its_menus():
    """simulate sushi-go-party exits 1 with one line saying it is a card library and listing the bundled menus."""
    result = runner.invoke(app, ["simulate", "sushi-go-party", "--games", "1"])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    line = next(line for line in result.output.splitlines() if "error:" in line)
    assert line.endswith(
        "sushi-go-party.yaml:32:1: error: 'sushi-go-party' is a card library, not a game: play one of its menus; "
        f"bundled menus: {', '.join(rid for rid in bundled_ids() if rid.startswith('sushi-go-party-'))}; "
        "or write your own menu, a file with 'extends: sushi-go-party' "
        "and 'menu: [...]' listing its dishes"
    )


def test_the_library_validates_with_a_warning_but_does_not_load_for_play():
    """validate checks the library (exit 0, the not-a-game note as a warning); load_ruleset refuses it with that note."""
    result = runner.invoke(app, ["validate", "sushi-go-party"])
    assert result.exit_code == 0, result.output
    assert "sushi-go-party.yaml:32:1: warning: 'sushi-go-party' is a card library, not a game" in result.output
    with pytest.raises(RulesetError, match="is a card library, not a game: play one of its menus"):
        load_ruleset("sushi-go-party")


def test_a_file_extending_the_library_without_a_menu_is_told_at_its_extends(tmp_path):
    """A file that extends the library and chooses no menu is told so at its own extends
    line, naming the library and its bundled menus (not at the library's courses)."""
    path = tmp_path / "mine.yaml"
    path.write_text("format: 1\nextends: sushi-go-party\nid: mine\nname: Mine\n", encoding="utf-8")
    menus = ", ".join(rid for rid in bundled_ids() if rid.startswith("sushi-go-party-"))
    said = (
        "'mine' extends the card library 'sushi-go-party' but chooses no menu: add 'menu: [...]' listing its "
        f"dishes (or play a bundled menu: {menus})"
    )
    assert problems(path) == [(2, 10, said)]
    with pytest.raises(RulesetError) as e:
        load_ruleset(str(path))
    assert str(e.value).endswith(f"mine.yaml:2:10: error: {said}")


@pytest.mark.parametrize(
    "extra, line, column, message",
    [
        ("", 5, 7, "'menu' must be a list, not 'maki'"),
        ("winner: 5\n", 5, 9, "'winner' must be a mapping, not 5"),
    ],
)
def test_a_menu_file_the_schema_refuses_gets_its_own_errors_only(tmp_path, extra, line, column, message):
    """A menu file with a schema error is told that error alone: no error of the library's
    cards, which its menu would have left out (a menu the schema refuses deals nothing known)."""
    path = tmp_path / "menu.yaml"
    menu = "maki" if not extra else f"[{CLASSIC}]"
    path.write_text(f"format: 1\nextends: sushi-go-party\nid: m\nname: M\n{extra}menu: {menu}\n", encoding="utf-8")
    assert problems(path) == [(line, column, message)]


def test_a_menu_s_mistakes_are_told_beside_a_schema_error_elsewhere(tmp_path):
    """With an unknown dish on the menu and a schema error in another section, both are told."""
    path = write_menu(tmp_path, CLASSIC.replace("dumpling", "dumplin"), extra="winner: 5\n")
    found = [m for _, _, m in problems(path)]
    assert "'winner' must be a mapping, not 5" in found
    assert "'dumplin' is not a dish of the library's courses (did you mean 'dumpling'?)" in found
    assert not any("only for" in m for m in found)


def test_the_library_is_not_listed_among_the_rulesets_one_can_play():
    """bundled_ids() lists the starter menu but not the library; bundled_libraries() lists the library."""
    assert "sushi-go-party-starter" in bundled_ids()
    assert "sushi-go-party" not in bundled_ids()
    assert bundled_libraries() == ["sushi-go-party"]


def test_distinct_over_an_unknown_attribute_or_a_card_without_it_is_located(tmp_path):
    """sets with distinct: ATTRIBUTE: an unknown attribute gets a did-you-mean; a selected card without it is named."""
    path = tmp_path / "sets.yaml"
    base = (
        "format: 1\nextends: sushi-go\nid: s\nname: S\n"
        "cards:\n  - {id: tempura, attributes: {shape: 1}}\n  - {id: sashimi, attributes: {shape: 2}}\n"
        "scoring:\n  - {id: shapes, kind: sets, cards: [tempura, sashimi, dumpling], distinct: %s, points: [0, 1, 4]}\n"
    )
    path.write_text(base % "shap", encoding="utf-8")
    assert problems(path) == [(9, 77, "no card has the attribute 'shap' (did you mean 'shape'?)")]
    path.write_text(base % "shape", encoding="utf-8")
    assert problems(path) == [(9, 77, "card 'dumpling' has no attribute 'shape' (every card of the sets needs one)")]


# ---------------------------------------------------------------- play, logs, show


def _allowed(rs):
    return list(rs.player_counts)


@pytest.mark.parametrize("menu", ["starter", "edamame"])
def test_random_play_at_every_allowed_player_count_never_raises_and_logs_replay(menus, menu):
    """Random and greedy games of each menu at every allowed count finish, keep only desserts, and replay clean."""
    rs = menus[menu]
    full = Counter(rs.catalogue.deck())
    for players in _allowed(rs):
        for seed in range(2):
            state = Game(rs, players).new_initial_state(seed)
            bots = [make_agent("random" if s % 2 else "greedy", bot_seed(seed, s)) for s in range(players)]
            while not state.finished:
                state.apply_actions([b.act(state, s) for s, b in enumerate(bots)])
            held = Counter(c for seat in range(players) for c in state.kept_cards[seat])
            held.update(c for reserve in state.reserves for c in reserve)
            # what is kept or still held back at the end is the menu's 15 desserts at most
            assert all("dessert" in rs.catalogue.cards[c].tags for c in held)
            assert not held - full
            assert replay_record(rs, record_game(state, ["bot"] * players)) == []


@pytest.mark.parametrize("players", [2, 8])
def test_simulate_play_and_replay_the_starter_menu(tmp_path, players):
    """simulate and play (8 seats within 80 columns) run the starter menu, and replay accepts play's log."""
    sim = runner.invoke(app, ["simulate", "sushi-go-party-starter", "-p", str(players), "-g", "3"])
    assert sim.exit_code == 0, sim.output
    log = tmp_path / "game.jsonl"
    played = runner.invoke(
        app,
        ["play", "sushi-go-party-starter", "--players", str(players), "--seed", "3", "--log", str(log)],
        input="1\n" * 80,
        env={"COLUMNS": "80"},
    )
    assert played.exit_code == 0, played.output
    assert "=== Game over ===" in played.output
    assert [line for line in played.output.splitlines() if len(line) > 80] == []
    replayed = runner.invoke(app, ["replay", str(log)])
    assert replayed.exit_code == 0, replayed.output
    assert "1 game replayed, 1 clean, 0 with problems" in replayed.output


@pytest.mark.parametrize(
    ("source", "golden"),
    [("sushi-go-party-starter", "sushi-go-party-starter.show.txt"), (str(EXAMPLE), "my-party-menu.show.txt")],
)
def test_show_matches_the_golden_file(source, golden):
    """show explains each menu's cards, deal, desserts, rules and winner as the golden file says
    (RULEDRAFT_UPDATE_GOLDEN=1 rewrites it)."""
    text = describe_ruleset(load_ruleset(source))
    path = GOLDEN / golden
    if os.environ.get("RULEDRAFT_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_show_names_the_menus_dishes(menus):
    """show says which dishes the menu chose from the library's courses."""
    assert (
        "Menu: Nigiri always; roll: Maki; appetizers: Tempura, Sashimi, Dumpling; specials: Wasabi, Tea; "
        "dessert: Pudding (the dishes chosen from sushi-go-party's courses)."
    ) in describe_ruleset(menus["classic"]).splitlines()
