"""Card effects and decisions: Party's chopsticks, menu and miso soup on the general layer."""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA
from strategies import bundled_game, bundled_without_dummy, bundled_without_effects
from strategies import card_ids as ids
from strategies import card_indices as idx

from ruledraft.engine.decisions import Decision
from ruledraft.engine.state import Game, State
from ruledraft.errors import IllegalMoveError
from ruledraft.language.effects import EFFECT_KINDS
from ruledraft.language.loading import load_ruleset
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import play_game

SMALL = DATA / "effects-small.yaml"


@functools.cache
def small() -> object:
    return load_ruleset(str(SMALL))


@functools.cache
def game(players: int = 2) -> Game:
    return Game(small(), players)  # type: ignore[arg-type]


def dealt(players: int, hands: list[list[str]], deck: list[str] | None = None, seed: int = 1) -> State:
    """A state whose round-1 hands (and the top of the deck) are the cards named."""
    g = game(players)
    filler = [["tempura"] * len(hands[0])] * players
    deals = [[idx(g, *h) for h in hands], [idx(g, *h) for h in filler]]
    state = g.new_initial_state(seed, deals=deals)
    if deck is not None:
        state.deck = idx(g, *deck) + state.deck[len(deck) :]
    return state


def act(state: State, *names: str) -> None:
    g = state.game
    state.apply_actions([g.ruleset.catalogue.index_of(n) for n in names])


def test_party_chopsticks_play_a_second_card_after_the_reveal_and_go_into_the_hand():
    """A chopsticks card from an earlier turn lets its seat play a second card after the
    reveal; the chopsticks then go into the hand that is passed on."""
    state = dealt(2, [["chopsticks_1", "tempura", "salmon", "tempura"], ["salmon"] * 4])
    g = state.game
    act(state, "chopsticks_1", "salmon")
    assert state.pending is None
    act(state, "salmon", "salmon")  # seat 0 now holds seat 1's old hand: salmon x3... passed
    d = state.pending
    assert d is not None and (d.seat, d.effect, ids(g, [d.card])) == (0, "second_pick", ["chopsticks_1"])
    assert state.acting_seats() == (0,)
    assert d.options == (*sorted(set(state.hands[0])), g.done_action)
    assert state.legal_actions(1) == []
    before = len(state.hands[0])
    act(state, "salmon")
    assert state.pending is None
    assert ids(g, state.played[0]) == ["salmon", "salmon"]
    assert [len(h) for h in state.hands] == [before, before]
    # the chopsticks went into seat 0's hand, which passed to seat 1
    assert "chopsticks_1" in ids(g, state.hands[1])
    assert state.history[0].turns[1].decisions == ((0, g.ruleset.catalogue.index_of("salmon")),)


def test_party_chopsticks_declined_with_done_stay_on_the_table():
    """Done declines the second card: the chopsticks stay on the table."""
    state = dealt(2, [["chopsticks_1", "tempura", "salmon", "tempura"], ["salmon"] * 4])
    g = state.game
    act(state, "chopsticks_1", "salmon")
    act(state, "salmon", "salmon")
    state.apply_actions([g.done_action])
    assert ids(g, state.played[0]) == ["chopsticks_1", "salmon"]
    assert state.pending is None and state.turn == 2


def test_menu_draws_four_plays_one_returns_three_and_is_discarded():
    """Menu: four cards drawn, only the deciding seat sees them; one is played, three
    go back into the deck and the menu is discarded."""
    state = dealt(2, [["menu", "tempura"] * 2, ["salmon"] * 4], deck=["menu", "salmon", "tempura", "miso_soup"])
    g = state.game
    deck_left = len(state.deck) - state.deck_pos
    act(state, "menu", "salmon")
    d = state.pending
    assert d is not None and d.effect == "draw_and_choose" and d.seat == 0
    assert ids(g, d.shown) == ["menu", "salmon", "tempura", "miso_soup"]
    assert ids(g, d.options) == ["tempura", "salmon", "miso_soup"]  # never a menu
    assert d.prompt == "Menu: play one of the cards drawn"
    assert state.observation(0).pending == d and state.observation(1).pending is None
    act(state, "miso_soup")
    assert ids(g, state.played[0]) == ["miso_soup"]
    assert ids(g, state.book.discarded) == ["menu"]
    assert len(state.deck) - state.deck_pos == deck_left - 1


def test_a_card_chosen_from_a_draw_fires_its_own_when_played_effect():
    """A menu chosen through a sampler acts itself: a second draw and decision follow."""
    state = dealt(
        2,
        [["sampler", "tempura"] * 2, ["salmon"] * 4],
        deck=["menu", "salmon", "tempura", "salmon", "miso_soup", "tempura"],
    )
    g = state.game
    act(state, "sampler", "salmon")
    assert ids(g, state.pending.shown) == ["menu", "salmon"]
    act(state, "menu")
    d = state.pending
    assert d is not None and d.effect == "draw_and_choose" and ids(g, [d.card]) == ["menu"]
    assert len(d.shown) == 4
    state.apply_actions([d.options[0]])
    assert state.pending is None
    assert "sampler" in ids(g, state.played[0]) and "menu" not in ids(g, state.played[0])


def test_two_miso_soups_revealed_in_a_turn_by_two_seats_are_discarded():
    """Miso soup: two placed in one turn (by two seats) are both discarded at turn end."""
    state = dealt(2, [["miso_soup", "tempura"] * 2, ["miso_soup", "salmon"] * 2])
    g = state.game
    act(state, "miso_soup", "miso_soup")
    assert state.played == [[], []]
    assert ids(g, state.book.discarded) == ["miso_soup", "miso_soup"]


def test_a_lone_miso_soup_stays():
    """A single miso soup in a turn stays on the table."""
    state = dealt(2, [["miso_soup", "tempura"] * 2, ["salmon"] * 4])
    g = state.game
    act(state, "miso_soup", "salmon")
    assert ids(g, state.played[0]) == ["miso_soup"] and state.book.discarded == []


def test_a_miso_soup_arriving_through_chopsticks_counts():
    """A soup played as a second card with chopsticks collides with a picked one."""
    state = dealt(2, [["chopsticks_1", "miso_soup", "tempura", "tempura"], ["miso_soup", "salmon", "salmon", "salmon"]])
    g = state.game
    act(state, "chopsticks_1", "salmon")
    act(state, "salmon", "miso_soup")  # the hands have passed: seat 1 now holds a soup
    assert ids(g, state.played[1]) == ["salmon", "miso_soup"]  # not yet: the turn waits for seat 0
    act(state, "miso_soup")  # seat 0's second card, with the chopsticks
    assert ids(g, state.played[0]) == ["salmon"]
    assert ids(g, state.played[1]) == ["salmon"]
    assert ids(g, state.book.discarded) == ["miso_soup", "miso_soup"]


def test_a_miso_soup_arriving_through_a_menu_counts():
    """A soup chosen from a menu collides with a soup picked by another seat."""
    state = dealt(
        2, [["menu", "tempura"] * 2, ["miso_soup", "salmon"] * 2], deck=["miso_soup", "salmon", "tempura", "salmon"]
    )
    g = state.game
    act(state, "menu", "miso_soup")
    act(state, "miso_soup")
    assert state.played == [[], []]
    assert sorted(ids(g, state.book.discarded)) == ["menu", "miso_soup", "miso_soup"]


def test_the_lower_order_number_resolves_first_and_the_later_seat_sees_it():
    """Seat 1's chopsticks 1 resolve before seat 0's chopsticks 2; seat 0 then sees seat 1's second card."""
    state = dealt(
        2, [["chopsticks_2", "tempura", "salmon", "tempura"], ["chopsticks_1", "salmon", "salmon", "tempura"]]
    )
    g = state.game
    act(state, "chopsticks_2", "chopsticks_1")
    act(state, "salmon", "tempura")
    assert state.acting_seats() == (1,)
    act(state, "salmon")
    assert state.acting_seats() == (0,)
    assert ids(g, state.played[1]) == ["tempura", "salmon"]  # seen by seat 0 as it decides
    assert state.observation(0).played[1] == ["tempura", "salmon"]
    state.apply_actions([g.done_action])
    assert state.pending is None


def test_equal_order_numbers_resolve_in_seat_order():
    """Two chopsticks 1 in one turn: seat 0 decides first, then seat 1."""
    state = dealt(
        2, [["chopsticks_1", "tempura", "salmon", "tempura"], ["chopsticks_1", "salmon", "salmon", "tempura"]]
    )
    g = state.game
    act(state, "chopsticks_1", "chopsticks_1")
    act(state, "salmon", "tempura")
    assert state.acting_seats() == (0,)
    state.apply_actions([g.done_action])
    assert state.acting_seats() == (1,)


def test_an_illegal_decision_action_raises_and_changes_nothing():
    """A decision action outside the options (named as a card where it is one), or the
    wrong number of actions, is an IllegalMoveError."""
    state = dealt(2, [["chopsticks_1", "tempura", "salmon", "tempura"], ["salmon"] * 4])
    g = state.game
    act(state, "chopsticks_1", "salmon")
    act(state, "salmon", "salmon")
    menu = g.ruleset.catalogue.index_of("menu")
    with pytest.raises(IllegalMoveError) as e:
        state.apply_actions([menu])
    assert str(e.value) == (
        "seat 0: menu is not one of the choices now (Play a second card with your Chopsticks 1? (done: no)): "
        "salmon, done"
    )
    with pytest.raises(IllegalMoveError, match=r"^seat 0: 99999 is not one of the choices now "):
        state.apply_actions([99999])  # no decision action at all: its number
    with pytest.raises(IllegalMoveError, match=r"^expected 1 action \(one per acting seat\), got 2$"):
        state.apply_actions([0, 0])
    assert isinstance(state.pending, Decision)


def test_decision_actions_have_words_and_fit_the_action_space():
    """Decision actions read as a card, a family or done, and fit num_distinct_actions."""
    g = game(2)
    K = g.num_card_types
    assert g.decision_to_string(0) == "tempura"
    assert g.decision_to_string(K + g.families.index("chopsticks")) == "family chopsticks"
    assert g.decision_to_string(g.done_action) == "done"
    assert g.num_distinct_actions > g.done_action


def test_decisions_are_logged_and_replayed():
    """A game with decisions records them per turn and replays clean; a changed decision is caught."""
    g = game(3)
    for seed in range(40):
        state = play_game(g, seed, ["random", "greedy", "first"])
        record = record_game(state, ["random", "greedy", "first"])
        if any("decisions" in t for r in record["rounds"] for t in r["turns"]):
            break
    else:  # pragma: no cover - 40 games without one decision
        pytest.fail("no game with a decision")
    assert replay_record(small(), record) == []
    for r in record["rounds"]:
        for t in r["turns"]:
            if "decisions" in t:
                t["decisions"] = []
                problems = replay_record(small(), record)
                assert len(problems) == 1 and "the log does not say" in problems[0]
                return


@settings(max_examples=30, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32), bots=st.integers(0, 2**32))
def test_every_dealt_card_is_accounted_for_at_every_step(players, seed, bots):
    """Random play of the effects ruleset never raises, and every card is always in a
    hand, on a table, in the deck, drawn for a decision or discarded."""
    g = game(players)
    state = g.new_initial_state(seed)
    everything = sorted(g.deck)
    rngs = [random.Random(bots + s).random for s in range(players)]
    while not state.is_terminal():
        assert state.all_cards() == everything
        seats = state.acting_seats()
        state.apply_actions([state.sample_action(s, rngs[s]) for s in seats])
    assert state.all_cards() == everything


@settings(max_examples=20, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32))
def test_play_out_is_the_same_game_as_sampling_and_applying_with_effects(players, seed):
    """play_out with effects plays the game sample_action + apply_actions play."""
    g = game(players)
    a, b = g.new_initial_state(seed), g.new_initial_state(seed)
    a.play_out([random.Random(seed + s).random for s in range(players)])
    rngs = [random.Random(seed + s).random for s in range(players)]
    while not b.is_terminal():
        b.apply_actions([b.sample_action(s, rngs[s]) for s in b.acting_seats()])
    assert a.history == b.history and a.totals() == b.totals()


@settings(max_examples=15, deadline=None)
@given(
    ruleset_id=st.sampled_from([r for r in bundled_without_dummy() if r in bundled_without_effects()]),
    seed=st.integers(0, 2**32),
    data=st.data(),
)
def test_the_fast_path_and_the_general_path_play_the_same_game(ruleset_id, seed, data):
    """A ruleset without effects plays the same game through the general path as through the fast one."""
    fast = bundled_game(ruleset_id, data.draw(st.integers(2, 4)))
    players = fast.num_players
    slow = Game(fast.ruleset, players)
    slow.procedure.general = True
    a, b = fast.new_initial_state(seed), slow.new_initial_state(seed)
    rngs_a = [random.Random(seed + s).random for s in range(players)]
    rngs_b = [random.Random(seed + s).random for s in range(players)]
    while not a.is_terminal():
        actions = [a.sample_action(s, rngs_a[s]) for s in range(players)]
        assert actions == [b.sample_action(s, rngs_b[s]) for s in range(players)]
        a.apply_actions(actions)
        b.apply_actions(actions)
        assert (a.hands, a.played, a.turn, a.round) == (b.hands, b.played, b.turn, b.round)
    assert b.is_terminal() and a.history == b.history and a.totals() == b.totals()


def test_resampling_for_another_seat_redraws_the_cards_only_the_decider_saw():
    """resample_hidden for a seat that did not draw keeps the pending decision legal and every card counted."""
    state = dealt(2, [["menu", "tempura"] * 2, ["salmon"] * 4], deck=["menu", "salmon", "tempura", "miso_soup"])
    g = state.game
    act(state, "menu", "salmon")
    rng = random.Random(3).random
    for _ in range(20):
        copy = state.resample_hidden(1, rng)
        d = copy.pending
        assert d is not None and d.seat == 0 and len(d.shown) == 4
        assert d.options and all(c in d.shown and ids(g, [c]) != ["menu"] for c in d.options)
        assert copy.all_cards() == state.all_cards()
    same = state.resample_hidden(0, rng)
    assert same.pending == state.pending


def test_play_asks_the_human_for_decisions_within_80_columns_and_logs_them(tmp_path):
    """`ruledraft play` asks each decision with its prompt and numbered options, shows
    the decisions made, fits 80 columns, and its log replays clean."""
    from typer.testing import CliRunner

    from ruledraft.cli.app import app

    log = tmp_path / "game.jsonl"
    result = CliRunner().invoke(
        app,
        ["play", str(SMALL), "--players", "3", "--seed", "1", "--log", str(log)],
        input="1\n" * 300,
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(map(len, lines)) <= 80
    assert "Your choice [1-3, ? for help]: 1" in lines
    assert any(line.startswith("Decided: ") for line in lines)
    assert "=== Game over ===" in lines
    replay = CliRunner().invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0 and "1 clean" in replay.output, replay.output


def test_greedy_judges_a_decision_by_the_points_it_makes_now():
    """Greedy chooses from a menu the card that raises its own points most (a tempura completing a pair)."""
    from ruledraft.play.agents import make_agent

    state = dealt(
        2,
        [["tempura", "salmon", "salmon", "salmon"], ["menu", "salmon", "salmon", "salmon"]],
        deck=["salmon", "tempura", "menu", "miso_soup"],
    )
    g = state.game
    act(state, "tempura", "salmon")  # the hands pass: seat 0 now holds the menu
    act(state, "menu", "salmon")
    assert state.pending is not None and state.pending.seat == 0
    assert make_agent("greedy", 1).act(state, 0) == g.ruleset.catalogue.index_of("tempura")


def test_every_bot_makes_decisions_in_a_whole_game():
    """random, first, greedy, value and ismcts play a game of the effects ruleset to the end, making its decisions."""
    g = game(2)
    for bots in (["random", "first"], ["greedy", "value"], ["ismcts:iterations=20", "random"]):
        state = play_game(g, 3, bots)
        assert state.is_terminal()
        assert replay_record(small(), record_game(state, bots)) == []


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("not: [menu]", "not: [menuu]", "13:73: error: unknown card 'menuu' (did you mean 'menu'?)"),
        (
            "kind: draw_and_choose, draw: 4",
            "kind: draw_and_chose, draw: 4",
            "13:41: error: 'kind' must be one of "
            + ", ".join(k.name for k in EFFECT_KINDS)
            + ", not 'draw_and_chose' (did you mean 'draw_and_choose'?)",
        ),
        ("at_least: 2", "at_leest: 2", "10:57: error: unknown key 'at_leest' in 'effect' (did you mean 'at_least'?)"),
    ],
)
def test_a_mistake_in_an_effect_is_located_with_a_suggestion(tmp_path, old, new, message):
    """A wrong card, effect kind or key in an effect is one located line with a did-you-mean and exit 1."""
    from typer.testing import CliRunner

    from ruledraft.cli.app import app

    bad = tmp_path / "bad.yaml"
    bad.write_text(SMALL.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(bad)])
    assert result.exit_code == 1
    assert result.output.strip() == f"{bad}:{message}"


def test_show_says_each_effect_in_plain_words():
    """`show` lists the card effects under their own heading."""
    from ruledraft.language.describe import describe_ruleset

    text = describe_ruleset(small())
    assert (
        "Card effects\n"
        "  Miso Soup: at the end of a turn, if 2 or more were placed in it (by anyone, any way), "
        "all of them are discarded.\n"
    ) in text
    assert (
        "  Menu: when played (order 7), draw 4 cards from the deck and play one (not Menu); "
        "the others go back into the deck, shuffled; the Menu is discarded.\n"
    ) in text


def test_an_effect_without_an_order_plays_at_order_0_as_the_schema_says():
    """The schema gives an effect's order a default of 0, and a miso soup written without one compiles at order 0."""
    from ruledraft.language.schema import ruleset_schema

    soup = next(e for e in small().effects if e.kind == "collision")
    assert soup.order == 0
    defaults = [
        spec["properties"]["order"].get("default")
        for spec in ruleset_schema()["$defs"].values()
        if isinstance(spec, dict) and "order" in spec.get("properties", {})
    ]
    assert defaults and set(defaults) == {0}
