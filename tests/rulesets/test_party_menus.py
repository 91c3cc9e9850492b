"""The bundled Sushi Go Party! menus (rulesets/sushi-go-party-*.yaml) and the library's
cards that act, checked against the Party rulebook (shared/reference/sushi-go-party.md).

Every bundled menu of the library joins these tests by itself: a new menu is its file
and its golden ``show`` file (``RULEDRAFT_UPDATE_GOLDEN=1`` writes it; read it whole)."""

from __future__ import annotations

import functools
import os
import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import DATA, ROOT
from strategies import played_ruleset
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.engine.table_scoring import score_table
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import check_ruleset, load_ruleset
from ruledraft.language.menu import library_menus
from ruledraft.play.agents import make_agent
from ruledraft.play.bench import default_player_counts
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import bot_seed
from ruledraft.tableau import Tableau

GOLDEN = DATA / "party"
SAMPLER = ROOT / "examples" / "sushi-go-party-sampler.yaml"

#: every bundled menu of the card library, asked of the package
MENUS = tuple(library_menus("sushi-go-party"))

#: the rulebook's suggested menus: roll, appetizers, specials, dessert (nigiri always)
SUGGESTED = {
    "my-first-meal": ["maki", "tempura", "sashimi", "miso_soup", "wasabi", "tea", "green_tea_ice_cream"],
    "sushi-go": ["maki", "tempura", "sashimi", "dumpling", "chopsticks", "wasabi", "pudding"],
    "party-sampler": ["temaki", "tempura", "dumpling", "tofu", "wasabi", "menu", "green_tea_ice_cream"],
    "master-menu": ["temaki", "onigiri", "tofu", "sashimi", "spoon", "takeout_box", "fruit"],
    "points-platter": ["uramaki", "onigiri", "dumpling", "edamame", "special_order", "tea", "green_tea_ice_cream"],
    "cutthroat-combo": ["temaki", "eel", "tofu", "miso_soup", "spoon", "soy_sauce", "pudding"],
    "big-banquet": ["maki", "tempura", "dumpling", "eel", "spoon", "chopsticks", "green_tea_ice_cream"],
    "dinner-for-two": ["uramaki", "onigiri", "tofu", "miso_soup", "menu", "special_order", "fruit"],
}

runner = CliRunner()


@functools.cache
def library():
    """The compiled card library (checked, not loaded for play)."""
    result = check_ruleset("sushi-go-party")
    assert result.ok and result.ruleset is not None
    return result.ruleset


def dishes_of(rs) -> list:
    """A compiled menu's chosen dishes (nigiri, always on the menu, left out)."""
    return [d for course in rs.menu if not course.always for d in course.dishes]


def write_menu(tmp_path: Path, dishes: str, extra: str = "") -> Path:
    path = tmp_path / "menu.yaml"
    path.write_text(
        f"format: 1\nextends: sushi-go-party\nid: test-menu\nname: Test menu\n{extra}menu: [{dishes}]\n",
        encoding="utf-8",
    )
    return path


def menu_and_count():
    """Every (bundled menu, player count it allows)."""
    return [(rid, n) for rid in MENUS for n in played_ruleset(rid).player_counts]


# ---------------------------------------------------------------- the library's cards that act


def test_the_suggested_menus_whose_cards_exist_are_bundled_with_the_rulebooks_dishes():
    """Each suggested menu whose dishes the library has is bundled as sushi-go-party-NAME with exactly its dishes."""
    names = {c.id for c in library().catalogue.cards} | set(library().catalogue.tags)
    for name, dishes in SUGGESTED.items():
        rid = f"sushi-go-party-{name}"
        if set(dishes) <= names:
            assert rid in MENUS, f"{rid} is not bundled"
            assert sorted(dishes_of(played_ruleset(rid))) == sorted(dishes), rid
        else:
            assert rid not in MENUS
    assert len(MENUS) >= 7  # six suggested menus and the starter


def test_effect_cards_have_the_rulebooks_counts_orders_and_player_counts():
    """Miso soup 8; chopsticks 1-3, spoon 4-6, menu 7-9, takeout box 10-12 one each; special order 3; players as the book says."""
    cards = {c.id: c for c in library().catalogue.cards}
    effects = {library().catalogue.cards[e.card].id: e for e in library().effects}
    expected = {
        "miso_soup": (8, "collision", None),
        "chopsticks_1": (1, "second_pick", 1),
        "chopsticks_2": (1, "second_pick", 2),
        "chopsticks_3": (1, "second_pick", 3),
        "spoon_4": (1, "ask_for", 4),
        "spoon_5": (1, "ask_for", 5),
        "spoon_6": (1, "ask_for", 6),
        "menu_7": (1, "draw_and_choose", 7),
        "menu_8": (1, "draw_and_choose", 8),
        "menu_9": (1, "draw_and_choose", 9),
        "takeout_box_10": (1, "turn_face_down", 10),
        "takeout_box_11": (1, "turn_face_down", 11),
        "takeout_box_12": (1, "turn_face_down", 12),
        "special_order": (3, "copy_earlier", None),
    }
    for card_id, (count, kind, order) in expected.items():
        assert cards[card_id].count == count, card_id
        assert effects[card_id].kind == kind, card_id
        if order is not None:
            assert effects[card_id].order == order, card_id
    assert cards["takeout_face_down"].count == 0
    assert len({cards[f"chopsticks_{i}"].group for i in (1, 2, 3)}) == 1
    players = {cid: c.players_words for cid, c in cards.items() if c.players is not None}
    assert players == {
        "edamame": "3 or more players",
        **{f"spoon_{i}": "3 or more players" for i in (4, 5, 6)},
        **{f"menu_{i}": "at most 6 players" for i in (7, 8, 9)},
        "special_order": "at most 6 players",
    }


def test_a_menu_card_draws_four_and_never_chooses_a_menu():
    """Menu: draw 4, play one that is not a menu, the menu is discarded."""
    menu_cards = {c.index for c in library().catalogue.cards if c.id.startswith("menu_")}
    for e in library().effects:
        if e.kind == "draw_and_choose":
            assert (e.draw, set(e.excluded), e.discard) == (4, menu_cards, True)


@pytest.mark.parametrize(
    ("dishes", "players", "message"),
    [
        (
            "temaki, tempura, dumpling, tofu, wasabi, menu, green_tea_ice_cream",
            "players: {max: 8}\n",
            (6, 49, "'menu' is only for at most 6 players, but this menu is for 2-8 players (its 'players')"),
        ),
        (
            "temaki, tempura, dumpling, tofu, special_order, tea, pudding",
            "players: {min: 7, max: 8}\n",
            (6, 41, "'special_order' is only for at most 6 players, but this menu is for 7-8 players (its 'players')"),
        ),
    ],
)
def test_validate_refuses_menu_or_special_order_with_seven_or_eight_players(tmp_path, dishes, players, message):
    """A menu that puts Menu or Special Order with 7-8 players is one located error, and validate exits 1."""
    path = write_menu(tmp_path, dishes, players)
    assert [(d.line, d.column, d.message) for d in check_ruleset(path).diagnostics] == [message]
    result = runner.invoke(app, ["validate", str(path)])
    assert result.exit_code == 1
    assert f"menu.yaml:{message[0]}:{message[1]}: error: {message[2]}" in result.output


def test_a_menu_with_menu_or_special_order_is_for_two_to_six_and_with_a_spoon_three_to_six(tmp_path):
    """Without players of its own a menu takes what its cards allow: menu 2-6; menu and spoon 3-6."""
    assert (
        played_ruleset("sushi-go-party-party-sampler").min_players,
        played_ruleset("sushi-go-party-party-sampler").max_players,
    ) == (
        2,
        6,
    )
    rs = load_ruleset(write_menu(tmp_path, "maki, tempura, dumpling, tofu, spoon, menu, pudding"))
    assert (rs.min_players, rs.max_players) == (3, 6)


# ---------------------------------------------------------------- colours and the tie-break


def round_points(rs, seats, rule):
    return score_table(rs, {"rounds": [seats]})["rules"][rule]


def test_unused_chopsticks_are_a_colour_for_tea(tmp_path):
    """Three chopsticks left on the table are one colour of three cards: each tea scores 3."""
    rs = load_ruleset(write_menu(tmp_path, "maki, tempura, sashimi, dumpling, chopsticks, tea, pudding"))
    seats = [["tea", "chopsticks_1", "chopsticks_2", "chopsticks_3", "tempura", "tempura"], ["tea"]]
    assert round_points(rs, seats, "tea") == [3, 1]


def test_a_spoon_on_the_table_is_a_colour_for_soy_sauce():
    """Cutthroat Combo: soy sauce, spoon and eel are three colours and beat soy sauce and eel."""
    rs = played_ruleset("sushi-go-party-cutthroat-combo")
    seats = [["soy_sauce", "spoon_4", "eel"], ["soy_sauce", "eel"], ["tofu"]]
    assert round_points(rs, seats, "soy_sauce") == [4, 0, 0]


def test_miso_soup_is_an_appetizer_of_three_points():
    """My First Meal: each miso soup left on the table scores 3."""
    rs = played_ruleset("sushi-go-party-my-first-meal")
    assert round_points(rs, [["miso_soup", "miso_soup"], ["miso_soup"]], "miso_soup") == [6, 3]


def test_face_down_cards_add_no_colour_for_soy_sauce():
    """Ruling: a face-down card has no colour, so it does not add a colour to a seat's count for soy sauce."""
    lib = library()
    ids = {c.id: c.index for c in lib.catalogue.cards}
    soy = next(r for r in lib.rules if r.id == "soy_sauce")
    seats = [
        [ids["soy_sauce"], ids["tempura"], ids["takeout_face_down"]],
        [ids["soy_sauce"], ids["tempura"], ids["eel"]],
    ]
    # seat 1 has three colours, seat 0 two (the face-down card is none): only seat 1 scores its soy sauce
    assert soy.score(Tableau.from_cards(lib.catalogue.size, seats)) == [0, 4]


def test_face_down_cards_have_no_colour_for_tea():
    """Ruling: a face-down card has no colour, so four of them do not make tea's largest group."""
    lib = library()
    ids = {c.id: c.index for c in lib.catalogue.cards}
    tea = next(r for r in lib.rules if r.id == "tea")
    cards = [ids["tea"], ids["tempura"]] + [ids["takeout_face_down"]] * 4
    assert tea.score(Tableau.from_cards(lib.catalogue.size, [cards, []])) == [1, 0]


def test_score_takes_a_round_with_face_down_cards():
    """A round in which a takeout box turned two cards face down scores them 2 each."""
    rs = played_ruleset("sushi-go-party-master-menu")
    seats = [["tofu", "takeout_face_down", "takeout_face_down"], ["tofu"], ["tofu"]]
    assert round_points(rs, seats, "takeout_face_down") == [4, 0, 0]


def test_the_dessert_tie_break_decides_a_menus_tie():
    """Tied on points, the player with more dessert cards wins; still tied, they share the win."""
    rs = played_ruleset("sushi-go-party-my-first-meal")
    tied = {"rounds": [[["green_tea_ice_cream", "tempura"], ["tempura"], ["tempura"]]]}
    result = score_table(rs, tied)
    assert result["totals"] == [0, 0, 0] and result["winners"] == [0]
    level = {"rounds": [[["green_tea_ice_cream"], ["green_tea_ice_cream"], ["tempura"]]]}
    assert score_table(rs, level)["winners"] == [0, 1]


# ---------------------------------------------------------------- every bundled menu: show, play, logs


@pytest.mark.parametrize("rid", MENUS)
def test_show_of_every_bundled_menu_matches_its_golden_file(rid):
    """show explains each bundled menu as its golden file says (RULEDRAFT_UPDATE_GOLDEN=1 rewrites it)."""
    text = describe_ruleset(played_ruleset(rid))
    path = GOLDEN / f"{rid}.show.txt"
    if os.environ.get("RULEDRAFT_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def test_every_golden_file_is_a_bundled_menu_or_an_example():
    """No golden file is left behind for a menu that is no longer bundled."""
    examples = {"my-party-menu.show.txt", "sushi-go-party-sampler.show.txt"}
    assert {p.name for p in GOLDEN.glob("*.show.txt")} - examples == {f"{rid}.show.txt" for rid in MENUS}


def test_show_of_the_sampler_example_matches_its_golden_file():
    """show explains the sampler example, a menu with miso soup and takeout boxes, as its golden file says."""
    text = describe_ruleset(played_ruleset(str(SAMPLER)))
    path = GOLDEN / "sushi-go-party-sampler.show.txt"
    if os.environ.get("RULEDRAFT_UPDATE_GOLDEN") == "1":
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


@pytest.mark.parametrize(("rid", "players"), menu_and_count())
def test_random_and_greedy_play_of_every_menu_never_raises_and_replays(rid, players):
    """A random and a greedy seat mix at every allowed count finishes, keeps the deck whole and replays clean."""
    rs = played_ruleset(rid)
    for seed in range(2):
        state = Game(rs, players).new_initial_state(seed)
        bots = [make_agent("greedy" if s == seed else "random", bot_seed(seed, s)) for s in range(players)]
        while not state.finished:
            state.apply_actions([bots[s].act(state, s) for s in state.acting_seats()])
        assert state.all_cards() == sorted(rs.catalogue.deck())
        assert replay_record(rs, record_game(state, ["bot"] * players)) == []


@pytest.mark.parametrize("rid", MENUS)
def test_simulate_logs_of_every_menu_replay_with_the_command(tmp_path, rid):
    """simulate --log at the smallest and largest allowed counts, then ruledraft replay: every game clean."""
    rs = played_ruleset(rid)
    for players in (rs.min_players, rs.max_players):
        log = tmp_path / f"{players}.jsonl"
        sim = runner.invoke(
            app, ["simulate", rid, "-p", str(players), "-g", "3", "-b", "random,greedy", "--log", str(log)]
        )
        assert sim.exit_code == 0, sim.output
        replayed = runner.invoke(app, ["replay", str(log)])
        assert replayed.exit_code == 0, replayed.output
        assert "3 games replayed, 3 clean, 0 with problems" in replayed.output


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(menu_and_count()), st.integers(min_value=0, max_value=2**32 - 1))
def test_every_dealt_card_is_accounted_for_at_all_times(case, seed):
    """After every step of a random game of a bundled menu, hands, tables, deck, held-back, kept and discarded cards are the whole deck."""
    rid, players = case
    rs = played_ruleset(rid)
    whole = sorted(rs.catalogue.deck())
    state = Game(rs, players).new_initial_state(seed)
    rng = random.Random(seed)
    assert state.all_cards() == whole
    while not state.finished:
        state.apply_actions([rng.choice(state.legal_actions(s)) for s in state.acting_seats()])
        assert state.all_cards() == whole


def test_play_at_eight_seats_with_decisions_fits_80_columns_and_replays(tmp_path):
    """play of Big Banquet at 8 seats asks the human's chopsticks, fits 80 columns, and its log replays clean."""
    log = tmp_path / "game.jsonl"
    result = runner.invoke(
        app,
        ["play", "sushi-go-party-big-banquet", "--players", "8", "--seed", "1", "--log", str(log)],
        input="1\n" * 400,
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    assert "Play a second card with your Chopsticks (1)?" in lines  # its 'no' is an option that says what it means
    # asked on turn 6 of 7, whose next hand holds one card: no later turn of the round can use them
    assert any(line.endswith(". no second card: your Chopsticks (1) go unused this round") for line in lines)
    assert "=== Game over ===" in lines
    replayed = runner.invoke(app, ["replay", str(log)])
    assert replayed.exit_code == 0, replayed.output
    assert "1 game replayed, 1 clean, 0 with problems" in replayed.output


# ---------------------------------------------------------------- bench


def test_bench_measures_menus_at_four_and_their_most_players():
    """Unless told, bench measures a menu at 4 and at its largest count (6 with Menu, else 8), others at 2 and 4."""
    assert default_player_counts(played_ruleset("sushi-go-party-party-sampler")) == [4, 6]
    assert default_player_counts(played_ruleset("sushi-go-party-big-banquet")) == [4, 8]
    assert default_player_counts(played_ruleset("sushi-go")) == [2, 4]
    for rid in MENUS:
        rs = played_ruleset(rid)
        assert default_player_counts(rs) == [4, rs.max_players]


def test_bench_lists_every_menu_at_its_default_counts():
    """ruledraft bench --json with a short time gives one figure per menu, count and bot."""
    rids = [m for m in MENUS if m != "sushi-go-party-starter"][:2]
    args = ["bench", *rids, "--bots", "random", "--seconds", "0.01", "--json", "--engine", "reference"]
    result = runner.invoke(app, args)  # the reference engine: no kernel compiled for a listing
    assert result.exit_code == 0, result.output
    import json

    figures = json.loads(result.stdout)
    assert [(f["ruleset"], f["players"]) for f in figures] == [
        (rid, n) for rid in rids for n in default_player_counts(played_ruleset(rid))
    ]


def test_random_play_keeps_only_the_menus_desserts():
    """At the end of a game only the menu's dessert cards are kept or still held back."""
    rs = played_ruleset("sushi-go-party-big-banquet")
    for players in (3, 8):
        state = Game(rs, players).new_initial_state(players)
        rng = random.Random(players)
        while not state.finished:
            state.apply_actions([rng.choice(state.legal_actions(s)) for s in state.acting_seats()])
        held = Counter(c for seat in range(players) for c in state.kept_cards[seat])
        held.update(c for reserve in state.reserves for c in reserve)
        assert {rs.catalogue.cards[c].id for c in held} <= {"green_tea_ice_cream"}


def test_observations_of_a_menu_with_takeout_boxes_stay_within_the_encoders_bounds():
    """Every observation of a Master Menu game encodes within the fields' bounds, face-down cards included."""
    from ruledraft.engine.encoding import encoder_for

    rs = played_ruleset("sushi-go-party-master-menu")
    game = Game(rs, 3)
    enc = encoder_for(game)
    low = [lo for f in enc.fields for lo in f.low]
    high = [hi for f in enc.fields for hi in f.high]
    for seed in range(6):
        state = game.new_initial_state(seed)
        rng = random.Random(seed)
        while not state.finished:
            for seat in range(3):
                v = enc.encode(state.observation(seat))
                assert all((lo is None or lo <= x) and (hi is None or x <= hi) for x, lo, hi in zip(v, low, high))
            state.apply_actions([rng.choice(state.legal_actions(s)) for s in state.acting_seats()])


def test_a_spoon_names_only_the_families_its_menu_has():
    """The library's spoons list every Party family; a menu keeps those its cards have, quietly (Cutthroat Combo: nigiri and spoon)."""
    rs = played_ruleset("sushi-go-party-cutthroat-combo")
    spoons = [e for e in rs.effects if e.kind == "ask_for"]
    assert len(spoons) == 3
    assert {tuple(f for f, _ in e.families) for e in spoons} == {("nigiri", "spoon")}


def test_declining_chopsticks_on_the_last_turn_of_two_cards_says_they_go_unused():
    """The 'no second card' option keeps the chopsticks 'for a later turn' only while a later turn of the round
    deals two cards; on the turn before the last (whose one card is played for the seats) they go unused."""
    import random

    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.words import option_name

    game = Game(load_ruleset("sushi-go-party-big-banquet"), 4)
    said = {}
    state = game.new_initial_state(0)
    rng = random.Random(0)
    while not state.is_terminal():
        asked = state.pending
        if asked is not None and asked.effect == "second_pick" and game.done_action in asked.options:
            words = option_name(game, game.done_action, asked, True, state)
            said.setdefault(state.turn + 1 > game.hand_size - 2, words)
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert said[False].startswith("no second card: keep your Chopsticks") and said[False].endswith("for a later turn")
    assert said[True].startswith("no second card: your Chopsticks") and said[True].endswith("go unused this round")
