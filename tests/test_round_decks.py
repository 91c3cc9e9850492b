"""Decks by player count: a card's ``players:`` range and Party's hand sizes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ruledraft.engine.state import Game
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import check_ruleset, load_ruleset

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "sushi-go-switchback.yaml"

HEADER = """\
format: 1
extends: sushi-go
id: decks
name: Decks
"""


def write(tmp_path, body: str, name: str = "decks.yaml") -> Path:
    path = tmp_path / name
    path.write_text(HEADER + body, encoding="utf-8")
    return path


def problems(path) -> list[tuple[str, int, int, str]]:
    return [(Path(d.file).name, d.line, d.column, d.message) for d in check_ruleset(path).diagnostics]


def test_a_card_range_compiles_with_open_ends_filled(tmp_path):
    """players: {min: 3} compiles to (3, 16), {max: 6} to (1, 6), and a card without the key to None."""
    rs = load_ruleset(
        write(
            tmp_path,
            "players: {min: 3, max: 5}\ncards:\n"
            "  - {id: chopsticks, players: {min: 3}}\n  - {id: wasabi, players: {max: 6}}\n",
        )
    )
    cards = {c.id: c.players for c in rs.catalogue.cards}
    assert (cards["chopsticks"], cards["wasabi"], cards["tempura"]) == ((3, 16), (1, 6), None)


def test_a_card_outside_the_game_player_counts_is_refused_where_it_says_so(tmp_path):
    """Each card whose range leaves out some of the game's player counts is refused at its players key, naming those counts."""
    path = write(
        tmp_path,
        "players: {min: 2, max: 5}\ncards:\n"
        "  - {id: chopsticks, players: {min: 3}}\n"
        "  - {id: wasabi, players: {max: 3}}\n"
        "  - {id: pudding, players: {min: 3, max: 4}}\n",
    )
    tail = " (narrow 'players' or set the card's count to 0)"
    assert problems(path) == [
        (
            "decks.yaml",
            7,
            31,
            "card 'chopsticks' is only for 3 or more players, but this game is also for 2 players" + tail,
        ),
        (
            "decks.yaml",
            8,
            27,
            "card 'wasabi' is only for at most 3 players, but this game is also for 4-5 players" + tail,
        ),
        ("decks.yaml", 9, 28, "card 'pudding' is only for 3-4 players, but this game is also for 2, 5 players" + tail),
    ]


def test_a_card_left_out_of_the_deck_may_have_any_range(tmp_path):
    """A card with count 0 is not used, so its range is not compared with the game's player counts."""
    path = write(tmp_path, "players: {min: 2, max: 4}\ncards:\n  - {id: chopsticks, count: 0, players: {min: 4}}\n")
    assert problems(path) == []


def test_a_range_whose_min_is_above_its_max_is_refused(tmp_path):
    """A card range that no player count satisfies is refused at the card's players key."""
    path = write(
        tmp_path, "players: {min: 2, max: 4}\ncards:\n  - {id: chopsticks, count: 0, players: {min: 5, max: 3}}\n"
    )
    assert problems(path) == [("decks.yaml", 7, 41, "card 'chopsticks' is for at least 5 and at most 3 players")]


def test_a_child_that_widens_the_players_is_refused_at_its_own_players(tmp_path):
    """A file extending a card library whose cards need 3 players is refused at its own players.min when it allows 2."""
    write(tmp_path, "players: {min: 3, max: 5}\ncards:\n  - {id: chopsticks, players: {min: 3}}\n", "library.yaml")
    child = tmp_path / "menu.yaml"
    child.write_text("format: 1\nextends: library.yaml\nid: menu\nname: Menu\nplayers: {min: 2}\n", encoding="utf-8")
    assert problems(child) == [
        (
            "menu.yaml",
            5,
            16,
            "card 'chopsticks' is only for 3 or more players, but this game is also for 2 players"
            " (narrow 'players' or set the card's count to 0)",
        )
    ]


def test_a_misspelt_range_key_is_located_with_a_suggestion(tmp_path):
    """An unknown key in a card's players is reported where it is, with the nearest key suggested."""
    path = write(tmp_path, "cards:\n  - {id: chopsticks, players: {mni: 3}}\n")
    assert problems(path) == [("decks.yaml", 6, 32, "unknown key 'mni' in 'players' (did you mean 'min'?)")]


def test_an_empty_range_is_refused(tmp_path):
    """A card's players with neither min nor max is refused."""
    path = write(tmp_path, "cards:\n  - {id: chopsticks, players: {}}\n")
    assert [(line, column) for _, line, column, _ in problems(path)] == [(6, 31)]


def test_show_says_which_player_counts_a_card_is_for():
    """show adds 'only with N or more players' to a card with a range."""
    text = describe_ruleset(load_ruleset(EXAMPLE)).splitlines()
    assert "     4 x Chopsticks     colour: chopsticks; only with 3 or more players" in text


# ---------------------------------------------------------------- Sushi Go Party!'s numbers

PARTY_DEAL = """\
format: 1
id: party-deal
name: Party deal
players: {min: 2, max: 8}
deal:
  hand_size: {2-3: 10, 4-5: 9, 6-7: 8, 8: 7}
  between_rounds: reshuffle
rounds: {count: 3}
scoring:
  - {id: tempura, kind: per_card, cards: tempura, value: 1}
cards:
  - {id: tempura, count: 40}
  - {id: sashimi, count: 40}
"""


def write_party(tmp_path, extra: str, name: str = "party.yaml") -> Path:
    path = tmp_path / name
    path.write_text(PARTY_DEAL + extra, encoding="utf-8")
    return path


def test_party_hand_sizes_fit_the_deal_key(tmp_path):
    """The reference's deal (2-3 players 10 cards, 4-5 9, 6-7 8, 8 7) is a deal.hand_size and each game deals it."""
    rs = load_ruleset(write_party(tmp_path, ""))
    expected = {2: 10, 3: 10, 4: 9, 5: 9, 6: 8, 7: 8, 8: 7}
    assert {n: rs.hand_size(n) for n in rs.player_counts} == expected
    for n, size in expected.items():
        state = Game(rs, n).new_initial_state(1)
        assert [len(h) for h in state.history[0].hands] == [size] * n


@pytest.mark.parametrize(
    ("card", "span", "refused"),
    [
        ("menu", "{max: 6}", [7, 8]),
        ("special_order", "{max: 6}", [7, 8]),
        ("spoon", "{min: 3}", [2]),
        ("edamame", "{min: 3}", [2]),
    ],
)
def test_party_player_count_rules_refuse_the_counts_the_reference_excludes(tmp_path, card, span, refused):
    """Menu and Special Order (2-6 players), Spoon and Edamame (3-8) in a 2-8 player game are refused for exactly the excluded counts."""
    path = write_party(tmp_path, f"  - {{id: {card}, count: 3, players: {span}}}\n")
    (found,) = problems(path)
    counts = f"{refused[0]}-{refused[-1]}" if len(refused) > 1 else str(refused[0])
    assert found[3].endswith(
        f"but this game is also for {counts} players (narrow 'players' or set the card's count to 0)"
    )
    narrowed = write_party(tmp_path, f"  - {{id: {card}, count: 3, players: {span}}}\n", "ok.yaml")
    narrowed.write_text(narrowed.read_text().replace("{min: 2, max: 8}", "{min: 3, max: 6}").replace(", 8: 7", ""))
    assert problems(narrowed) == []
