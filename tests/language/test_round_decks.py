"""Decks by player count: a card's ``players:`` range and Party's hand sizes."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import ROOT

from ruledraft.engine.state import Game
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import check_ruleset, load_ruleset
from ruledraft.play.agents import make_agent
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import bot_seed

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


# ---------------------------------------------------------------- cards added before rounds

PARTY_DESSERTS = """\
format: 1
id: party-desserts
name: Party desserts
players: {min: 2, max: 8}
deal:
  hand_size: {2-3: 10, 4-5: 9, 6-7: 8, 8: 7}
  between_rounds: reshuffle
rounds:
  count: 3
  add:
    - cards: {tag: dessert}
      count: {2-5: [5, 3, 2], 6-8: [7, 5, 3]}
scoring:
  - {id: tempura, kind: per_card, cards: tempura, value: 1}
  - {id: pudding, kind: per_card, cards: pudding, value: 2, when: game_end}
cards:
  - {id: tempura, count: 40}
  - {id: sashimi, count: 40}
  - {id: pudding, count: 15, tags: [dessert], keep: game}
"""

#: the reference's dessert schedule: desserts shuffled in before rounds 1, 2, 3
SCHEDULE = {2: (5, 3, 2), 3: (5, 3, 2), 4: (5, 3, 2), 5: (5, 3, 2), 6: (7, 5, 3), 7: (7, 5, 3), 8: (7, 5, 3)}


@pytest.fixture(scope="module")
def desserts(tmp_path_factory):
    path = tmp_path_factory.mktemp("desserts") / "party-desserts.yaml"
    path.write_text(PARTY_DESSERTS, encoding="utf-8")
    return load_ruleset(path)


def _in_game(state) -> Counter:
    """Every card the state holds: hands, tables, kept cards, the undealt deck and the held-back cards."""
    out = Counter(state.deck[state.deck_pos :])
    for seat in range(state.game.num_seats):
        out.update(state.hands[seat])
        out.update(state.played[seat])
        out.update(state.kept_cards[seat])
    for reserve in state.reserves:
        out.update(reserve)
    return out


def test_the_dessert_schedule_is_the_reference_one_at_every_player_count(desserts):
    """Before rounds 1, 2, 3 exactly 5, 3, 2 desserts (2-5 players) or 7, 5, 3 (6-8) leave the held-back pile."""
    pudding = desserts.card_index("pudding")
    assert {n: desserts.additions[0].counts[n] for n in desserts.player_counts} == SCHEDULE
    for n, schedule in SCHEDULE.items():
        game = Game(desserts, n)
        assert pudding not in game.deck
        state = game.new_initial_state(n)
        rnd = -1
        while not state.finished:
            if state.round != rnd:
                rnd = state.round
                assert len(state.reserves[0]) == 15 - sum(schedule[: rnd + 1]), (n, rnd)
            state.apply_actions([state.sample_action(s, random.Random(s).random) for s in state.acting_seats()])
        assert state.reserves == [[pudding] * (15 - sum(schedule))]


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 8), seed=st.integers(0, 2**32 - 1))
def test_every_card_is_accounted_for_at_all_times(desserts, players, seed):
    """With desserts held back and reshuffled rounds, every card is always in a hand, on a table, kept, in the deck or held back."""
    game = Game(desserts, players)
    full = Counter(desserts.catalogue.deck())
    state = game.new_initial_state(seed)
    streams = [random.Random(seed + s).random for s in range(players)]
    while not state.finished:
        assert _in_game(state) == full
        state.apply_actions([state.sample_action(s, streams[s]) for s in state.acting_seats()])
    assert _in_game(state) == full


@pytest.mark.parametrize("players", range(2, 9))
def test_random_play_never_raises_and_logs_replay_clean(desserts, players):
    """Random and greedy games at every allowed player count finish, and their logs replay clean."""
    for seed in range(4):
        game = Game(desserts, players)
        state = game.new_initial_state(seed)
        bots = [make_agent("random" if s % 2 else "greedy", bot_seed(seed, s)) for s in range(players)]
        while not state.finished:
            state.apply_actions([b.act(state, s) for s, b in enumerate(bots)])
        assert replay_record(desserts, record_game(state, ["bot"] * players)) == []


def test_resampling_keeps_what_is_held_back(desserts):
    """resample_hidden deals unseen cards again but keeps the held-back pile's cards (in some order)."""
    state = Game(desserts, 4).new_initial_state(5)
    other = state.resample_hidden(0, random.Random(1).random)
    assert [Counter(r) for r in other.reserves] == [Counter(r) for r in state.reserves]
    assert _in_game(other) == _in_game(state)


def test_show_says_what_is_held_back_and_when_it_joins(desserts):
    """show names the held-back cards and the schedule per group of player counts."""
    assert (
        "  Held out of the deck at the start: Pudding (15); before rounds 1, 2, 3 shuffle in "
        "5, 3, 2 of them with 2-5 players; 7, 5, 3 of them with 6-8 players."
    ) in describe_ruleset(desserts).splitlines()


def _party_with(tmp_path, old: str, new: str) -> Path:
    assert old in PARTY_DESSERTS
    path = tmp_path / "party.yaml"
    path.write_text(PARTY_DESSERTS.replace(old, new), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        (
            "{tag: dessert}",
            "{tag: desert}",
            [(11, 20, "no card has the tag 'desert' (did you mean 'dessert'?)")],
        ),
        ("[7, 5, 3]", "[7, 5]", [(12, 36, "'6-8' lists 2 numbers for 3 rounds")]),
        ("[7, 5, 3]", "[7, 5, 4]", [(12, 36, "'6-8' adds 16 cards but 15 cards are held back")]),
        (
            "{2-5: [5, 3, 2], 6-8:",
            "{2-5: [5, 3, 2], 7-8:",
            [(12, 14, "no count for 6 players (the game is for 2-8 players)")],
        ),
        (
            "      count: {2-5",
            "      count: {2-8: [0, 0, 0]}\n    - cards: pudding\n      count: {2-5",
            [(13, 14, "card 'pudding' is already held back by item 1 of 'add'")],
        ),
        (
            "{id: sashimi, count: 40}",
            "{id: sashimi, count: 12}",
            [
                # desserts kept from rounds 1 and 2 (7 + 5 at most) have left the deck
                (
                    12,
                    36,
                    "with 7 players round 3's deal and the cards kept from earlier rounds take 68 cards, but the deck "
                    "then holds 67 (cards added so far included): add 1 more card by then, or deal fewer",
                ),
                (
                    12,
                    36,
                    "with 8 players round 3's deal and the cards kept from earlier rounds take 68 cards, but the deck "
                    "then holds 67 (cards added so far included): add 1 more card by then, or deal fewer",
                ),
            ],
        ),
    ],
)
def test_mistakes_in_add_are_located(tmp_path, old, new, expected):
    """Each mistake in rounds.add is reported once, at the place it is written, in plain words."""
    assert [
        (line, column, message) for _, line, column, message in problems(_party_with(tmp_path, old, new))
    ] == expected


def test_a_deck_too_small_for_the_rounds_dealt_from_it_says_how_to_mend_it(tmp_path):
    """Kept between rounds, the deals add up: the message counts the rounds' deals together and offers a reshuffle."""
    path = _party_with(tmp_path, "  between_rounds: reshuffle\n", "  between_rounds: keep_deck\n")
    messages = [message for _, _, _, message in problems(path)]
    assert (
        "with 8 players the deals of rounds 1-2 take 112 cards, but the deck then holds 92 (cards added so far "
        "included): add 20 more cards by then, or deal fewer, or set deal.between_rounds: reshuffle"
    ) in messages
