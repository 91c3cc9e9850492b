"""The ask_for effect (Party's spoon): naming a card or a family, asking the seats in
order, the giver's choice, the spoon changing hands, and its place in a turn's play order."""

from __future__ import annotations

import functools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA
from strategies import card_ids as ids
from strategies import card_indices as idx

from ruledraft.engine.state import Game, State
from ruledraft.language.loading import load_ruleset
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import play_game

SPOON = DATA / "effects-spoon.yaml"


@functools.cache
def spoon() -> object:
    return load_ruleset(str(SPOON))


@functools.cache
def game(players: int = 3) -> Game:
    return Game(spoon(), players)  # type: ignore[arg-type]


def family(g: Game, name: str) -> int:
    return g.num_card_types + g.families.index(name)


def after_first_turn(first: list[str], hands: list[list[str]], g: Game | None = None) -> State:
    """A state after turn 1, in which seat s played ``first[s]``, now holding ``hands``
    (padded with tempura to the size turn 2 needs)."""
    g = g or game(len(first))
    size = g.hand_size
    deal = [idx(g, card, *["tempura"] * (size - 1)) for card in first]
    state = g.new_initial_state(1, deals=[deal, [idx(g, "tempura") * size] * len(first)])
    act(state, *first)
    assert state.pending is None and state.turn == 1
    state.hands = [idx(g, *h, *["tempura"] * (size - 1 - len(h))) for h in hands]
    return state


def act(state: State, *names: str) -> None:
    g = state.game
    state.apply_actions([g.ruleset.catalogue.index_of(n) for n in names])


def test_families_are_the_tags_so_naming_nigiri_never_matches_wasabi():
    """The families a decision may name are the cards' tags: nigiri (no wasabi, though it shares the colour) and maki."""
    g = game(3)
    assert g.families == ("maki", "nigiri")
    effect = g.effect_of[idx(g, "spoon_4")[0]]
    assert ids(g, effect.matching("nigiri")) == ["egg_nigiri", "salmon_nigiri"]
    assert ids(g, effect.cards) == list(g.ruleset.catalogue.ids)  # every card type in the deck


def test_the_owner_names_a_card_or_a_family_after_the_reveal_of_a_later_turn():
    """A spoon on the table since an earlier turn asks its owner, after the reveal, for a card
    type or a family to ask for (every card type in the deck, every family, or done)."""
    state = after_first_turn(["spoon_4", "tempura", "tempura"], [[], [], []])
    g = state.game
    act(state, "tempura", "tempura", "tempura")
    d = state.pending
    assert d is not None and (d.seat, d.owner, d.effect, ids(g, [d.card])) == (0, 0, "ask_for", ["spoon_4"])
    assert d.prompt == "Spoon 4: name a card or a family to ask the others for (done: not now)"
    K = g.num_card_types
    assert d.options == (*range(K), family(g, "maki"), family(g, "nigiri"), g.done_action)
    assert state.acting_seats() == (0,) and state.legal_actions(1) == []


def test_naming_an_exact_card_takes_it_from_the_nearest_seat_to_the_left_that_holds_one():
    """Asked left: seat 1 (no maki_2) is skipped, seat 2 gives its maki_2, seat 3 is never asked."""
    g = game(4)
    state = after_first_turn(
        ["spoon_4", "tempura", "tempura", "tempura"], [[], ["maki_1"], ["maki_2", "egg_nigiri"], ["maki_2"]], g
    )
    act(state, "tempura", "tempura", "tempura", "tempura")
    state.apply_actions(idx(g, "maki_2"))
    assert state.pending is None and state.turn == 2
    assert ids(g, state.played[0]) == ["tempura", "maki_2"]  # the spoon left the owner's table
    # the hands passed left after the turn: seat 2's old hand, now with the spoon, is seat 3's
    assert "spoon_4" in ids(g, state.hands[3]) and "maki_2" not in ids(g, state.hands[3])
    assert ids(g, state.hands[0]).count("maki_2") == 1  # seat 3's old hand kept its maki_2
    assert ids(g, state.book.known_in_hand[3]) == ["spoon_4"]
    assert state.history[0].turns[1].decisions == ((0, idx(g, "maki_2")[0]),)


def test_asking_right_takes_it_from_the_nearest_seat_to_the_right(tmp_path):
    """With ask: right the seat to the right (seat 3 of 4) is asked first."""
    path = tmp_path / "effects-spoon-right.yaml"
    path.write_text(SPOON.read_text(encoding="utf-8").replace("ask: left, order: 4", "ask: right, order: 4"), "utf-8")
    g = Game(load_ruleset(str(path)), 4)
    state = after_first_turn(["spoon_4", "tempura", "tempura", "tempura"], [[], ["maki_2"], ["maki_2"], ["maki_2"]], g)
    act(state, "tempura", "tempura", "tempura", "tempura")
    before = [ids(g, h).count("maki_2") for h in state.hands]
    state.apply_actions(idx(g, "maki_2"))
    assert ids(g, state.played[0]) == ["tempura", "maki_2"]
    # seat 3 gave: its old hand (now seat 0's, passed left) holds the spoon
    assert before == [0, 1, 1, 1]
    assert "spoon_4" in ids(g, state.hands[0]) and "maki_2" not in ids(g, state.hands[0])


def test_naming_a_family_skips_a_seat_with_only_wasabi_and_the_giver_chooses_among_its_kinds():
    """Naming nigiri: seat 1 holds only wasabi (the nigiri colour, not the family) and is
    skipped; seat 2 holds two kinds of nigiri and decides which to give."""
    state = after_first_turn(["spoon_4", "tempura", "tempura"], [[], ["wasabi"], ["egg_nigiri", "salmon_nigiri"]])
    g = state.game
    act(state, "tempura", "tempura", "tempura")
    state.apply_actions([family(g, "nigiri")])
    d = state.pending
    assert d is not None and (d.seat, d.owner, d.effect) == (2, 0, "ask_for")
    assert ids(g, d.options) == ["egg_nigiri", "salmon_nigiri"]
    assert d.prompt == "Spoon 4: you are asked for any nigiri; which card do you give?"
    assert state.acting_seats() == (2,) and state.legal_actions(0) == []
    assert state.observation(2).pending == d and state.observation(0).pending is None
    state.apply_actions(idx(g, "salmon_nigiri"))
    assert state.pending is None
    assert ids(g, state.played[0]) == ["tempura", "salmon_nigiri"]
    assert state.history[0].turns[1].decisions == ((0, family(g, "nigiri")), (2, idx(g, "salmon_nigiri")[0]))
    # seat 2's old hand passed to seat 0: the egg nigiri stayed, the spoon joined it
    assert sorted(ids(g, state.hands[0]))[:3] == ["egg_nigiri", "spoon_4", "tempura"]


def test_a_family_with_one_kind_in_the_giving_hand_asks_the_giver_nothing():
    """The giver is asked only when its matches are of several kinds."""
    state = after_first_turn(["spoon_4", "tempura", "tempura"], [[], ["maki_1", "maki_1"], ["maki_2"]])
    g = state.game
    act(state, "tempura", "tempura", "tempura")
    state.apply_actions([family(g, "maki")])
    assert state.pending is None
    assert ids(g, state.played[0]) == ["tempura", "maki_1"]


def test_nobody_holding_one_discards_the_spoon():
    """Nobody holds the card named: the spoon is discarded, nothing changes hands."""
    state = after_first_turn(["spoon_4", "tempura", "tempura"], [[], ["maki_1"], ["maki_1"]])
    g = state.game
    act(state, "tempura", "tempura", "tempura")
    hands = [sorted(h) for h in state.hands]
    state.apply_actions(idx(g, "salmon_nigiri"))
    assert ids(g, state.played[0]) == ["tempura"]
    assert ids(g, state.book.discarded) == ["spoon_4"]
    assert sorted(sorted(h) for h in state.hands) == sorted(hands)


def test_done_keeps_the_spoon_on_the_table_for_a_later_turn():
    """Declining with done leaves the spoon on the table; the next turn asks again."""
    state = after_first_turn(["spoon_4", "tempura", "tempura"], [[], ["maki_1"], ["maki_1"]])
    g = state.game
    act(state, "tempura", "tempura", "tempura")
    state.apply_actions([g.done_action])
    assert ids(g, state.played[0]) == ["spoon_4", "tempura"] and state.pending is None
    act(state, "tempura", "tempura", "tempura")
    assert state.pending is not None and state.pending.effect == "ask_for"


def test_the_card_given_fires_its_own_effect_and_counts_for_a_miso_collision():
    """A miso soup given through a spoon collides with one picked in the same turn; a menu given acts."""
    state = after_first_turn(["spoon_4", "tempura", "tempura"], [[], ["miso_soup"], ["miso_soup"]])
    g = state.game
    act(state, "tempura", "tempura", "miso_soup")
    state.apply_actions(idx(g, "miso_soup"))
    assert ids(g, state.played[0]) == ["tempura"] and ids(g, state.played[2]) == ["tempura"]
    assert sorted(ids(g, state.book.discarded)) == ["miso_soup", "miso_soup"]

    state = after_first_turn(["spoon_4", "tempura", "tempura"], [[], ["menu"], []])
    act(state, "tempura", "tempura", "tempura")
    state.apply_actions(idx(g, "menu"))
    d = state.pending
    assert d is not None and (d.seat, d.effect, ids(g, [d.card])) == (0, "draw_and_choose", ["menu"])
    assert len(d.shown) == 4


def test_several_effects_in_one_turn_resolve_in_play_order():
    """Chopsticks (order 1) before the spoon (order 4) before a menu (order 7), whatever the seats."""
    state = after_first_turn(["spoon_4", "chopsticks_1", "tempura"], [["maki_1"], ["maki_2"], ["menu", "maki_2"]])
    g = state.game
    act(state, "tempura", "tempura", "menu")
    seen = []
    while state.pending is not None:
        d = state.pending
        seen.append((d.seat, d.effect))
        if d.effect == "second_pick":
            state.apply_actions(idx(g, "maki_2"))  # seat 1's second card: it no longer holds a maki_2
        elif d.effect == "ask_for":
            state.apply_actions(idx(g, "maki_2"))  # seat 1 is skipped: seat 2 gives
        else:
            state.apply_actions([d.options[0]])
    assert seen == [(1, "second_pick"), (0, "ask_for"), (2, "draw_and_choose")]
    assert ids(g, state.played[0]) == ["tempura", "maki_2"]
    assert ids(g, state.played[1]) == ["tempura", "maki_2"]


def test_a_spoon_given_stays_in_the_giving_hand_in_every_re_deal():
    """After the spoon changes hands every seat knows where it is: a re-deal of hidden
    cards for any seat keeps it in that hand, and while the giver decides its matches stay."""
    g = game(4)
    state = after_first_turn(
        ["spoon_4", "tempura", "tempura", "tempura"], [[], [], ["egg_nigiri", "salmon_nigiri"], []], g
    )
    act(state, "tempura", "tempura", "tempura", "tempura")
    state.apply_actions([family(g, "nigiri")])
    rng = random.Random(5).random
    for seat in (0, 1, 3):
        for _ in range(10):
            copy = state.resample_hidden(seat, rng)
            assert set(copy.pending.options) <= set(copy.hands[2])
            assert copy.all_cards() == state.all_cards()
    state.apply_actions(idx(g, "egg_nigiri"))
    holder = next(s for s, h in enumerate(state.hands) if idx(g, "spoon_4")[0] in h)
    for seat in range(4):
        for _ in range(10):
            copy = state.resample_hidden(seat, rng)
            assert "spoon_4" in ids(g, copy.hands[holder])
        assert "spoon_4" in ids(g, state.canonical_hidden(seat).hands[holder])


@settings(max_examples=40, deadline=None)
@given(players=st.integers(3, 8), seed=st.integers(0, 2**32), bots=st.integers(0, 2**32))
def test_random_play_never_raises_and_every_card_is_accounted_for(players, seed, bots):
    """Random play of the spoon ruleset at 3-8 players never raises, every card is always
    somewhere, and a re-deal for any seat keeps the pending decision legal."""
    g = game(players)
    state = g.new_initial_state(seed)
    everything = sorted(g.deck)
    rngs = [random.Random(bots + s).random for s in range(players)]
    while not state.is_terminal():
        assert state.all_cards() == everything
        if state.pending is not None and state.pending.effect == "ask_for":
            copy = state.resample_hidden((state.pending.seat + 1) % players, rngs[0])
            assert copy.all_cards() == everything
            assert copy.legal_actions(copy.pending.seat) == list(state.pending.options)
            copy.apply_actions([copy.pending.options[-1]])
        state.apply_actions([state.sample_action(s, rngs[s]) for s in state.acting_seats()])
    assert state.all_cards() == everything


def test_logs_of_spoon_games_replay_and_a_changed_gift_is_caught():
    """Games with spoons given (the giver deciding too) are logged and replay clean; a
    giver's decision logged as another seat's is caught."""
    g = game(4)
    for seed in range(200):
        state = g.new_initial_state(seed)
        rngs = [random.Random(seed + s).random for s in range(4)]
        gifts = []
        while not state.is_terminal():
            d = state.pending
            if d is not None and d.effect == "ask_for" and d.seat != d.owner:
                gifts.append((state.round, state.turn, len(state.history[-1].decisions)))
            state.apply_actions([state.sample_action(s, rngs[s]) for s in state.acting_seats()])
        if gifts:
            break
    else:  # pragma: no cover - no game where a giver chose
        pytest.fail("no game where a giver chose")
    record = record_game(state, ["random"] * 4)
    assert replay_record(spoon(), record) == []
    r, t, n = gifts[0]
    turn_decisions = [i for i, (turn, _s, _a) in enumerate(state.history[r].decisions) if turn == t]
    entry = record["rounds"][r]["turns"][t]["decisions"][turn_decisions.index(n)]
    giver = entry["seat"]
    entry["seat"] = (giver + 1) % 4
    problems = replay_record(spoon(), record)
    assert len(problems) == 1 and f"is logged as deciding, the rules ask seat {giver}" in problems[0]


@pytest.mark.parametrize("bots", [["greedy", "random", "value"], ["ismcts:iterations=15", "first", "greedy"]])
def test_every_bot_plays_spoon_games_to_the_end(bots):
    """greedy, value, first and ismcts name, give and play through whole games; the logs replay."""
    g = game(3)
    for seed in range(2):
        state = play_game(g, seed, bots)
        assert state.is_terminal()
        assert replay_record(spoon(), record_game(state, bots)) == []


def test_greedy_names_what_it_can_see_and_never_peeks_at_the_other_hands():
    """Greedy judges naming on a re-deal of the hands it has not seen: peeking at seat 2's
    hand would always name its salmon nigiri (or nigiri); greedy names other cards too."""
    from ruledraft.play.agents import make_agent

    state = after_first_turn(["spoon_4", "tempura", "tempura"], [["wasabi"], [], ["salmon_nigiri"]])
    g = state.game
    act(state, "wasabi", "tempura", "tempura")
    assert state.pending is not None and state.pending.seat == 0
    chosen = {make_agent("greedy", s).act(state, 0) for s in range(12)}
    assert chosen - {*idx(g, "salmon_nigiri"), family(g, "nigiri")}


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        (
            "ask: left, order: 4",
            "ask: lefft, order: 4",
            "17:87: error: 'ask' must be one of left, right, not 'lefft' (did you mean 'left'?)",
        ),
        (
            "ask: left, order: 4}",
            "ask: left, order: 4, families: [makii]}",
            "17:114: error: no card has the tag 'makii' (did you mean 'maki'?)",
        ),
    ],
)
def test_a_mistake_in_a_spoon_is_located_with_a_suggestion(tmp_path, old, new, message):
    """A wrong ask direction or family is one located line, with a did-you-mean, and exit 1."""
    from typer.testing import CliRunner

    from ruledraft.cli.app import app

    bad = tmp_path / "bad.yaml"
    bad.write_text(SPOON.read_text(encoding="utf-8").replace(old, new, 1), encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(bad)])
    assert result.exit_code == 1
    assert result.output.strip() == f"{bad}:{message}"


def test_show_says_what_the_spoon_does_in_plain_words():
    """`show` explains the spoon: after the reveal, name a card or family, nearest to the left gives."""
    from ruledraft.language.describe import describe_ruleset

    text = describe_ruleset(spoon())
    assert (
        "  Spoon 4: on a later turn, after the reveal (order 4), you may name a card or a family "
        "(maki, nigiri); the nearest player to your left holding a match in their hand gives you one "
        "(their choice if several kinds match), you play it and they get the Spoon 4 into their hand; "
        "if nobody holds one, the Spoon 4 is discarded.\n"
    ) in text


def test_play_asks_a_human_giver_when_a_bot_owns_the_spoon():
    """The human at `play` is asked which card to give when another seat's spoon asks it."""
    from ruledraft.cli.play import HumanAgent, SeatNames

    state = after_first_turn(["tempura", "tempura", "spoon_4"], [["egg_nigiri", "salmon_nigiri"], [], []])
    g = state.game
    act(state, "tempura", "tempura", "tempura")
    state.apply_actions([family(g, "nigiri")])  # seat 2 asks: seat 0 is the nearest to its left
    out: list[str] = []
    answers = iter(["salmon nigiri"])
    names = SeatNames(g, 0, {1: "greedy", 2: "greedy"})
    human = HumanAgent(names, read=lambda: next(answers), write=lambda t="", nl=True: out.append(t), width=80)
    assert human.act(state, 0) == idx(g, "salmon_nigiri")[0]
    asked = out.index("Spoon 4: you are asked for any nigiri; which card do you give?")
    assert out[asked + 1 : asked + 3] == [
        "  You give one of them to seat 2 and get the Spoon 4 into your hand.",
        "  1. Egg Nigiri      2. Salmon Nigiri",
    ]
    assert out[1].startswith("--- Round 1 of 2, turn 2") and "  seat 2: Spoon 4, Tempura" in out[1:asked]


def test_play_takes_a_family_by_name_and_helps_with_it():
    """The owner at `play` may type a family (``maki`` or ``any maki``); the help says so."""
    from ruledraft.cli.play import HumanAgent, SeatNames

    state = after_first_turn(["spoon_4", "tempura", "tempura"], [[], ["maki_1"], []])
    g = state.game
    act(state, "tempura", "tempura", "tempura")
    out: list[str] = []
    for typed, expected in (("any Nigiri", family(g, "nigiri")), ("maki", family(g, "maki"))):
        answers = iter(["?", typed])
        names = SeatNames(g, 0, {1: "greedy", 2: "greedy"})
        human = HumanAgent(names, read=answers.__next__, write=lambda t="", nl=True: out.append(t), width=80)
        assert human.act(state, 0) == expected
    said = "\n".join(out)
    assert (
        "  Type a number, 1-15, a card's name (or the start of it), a family (maki or any\n  maki), 'no' for not now"
        in said
    )
    assert "  15. not now: keep your Spoon 4 for a later turn" in out


def test_play_at_8_seats_with_spoons_fits_80_columns_and_its_log_replays(tmp_path):
    """`ruledraft play` of the spoon ruleset at 8 seats fits 80 columns, asks the human's
    spoon decisions, and its log replays clean."""
    from typer.testing import CliRunner

    from ruledraft.cli.app import app

    log = tmp_path / "game.jsonl"
    result = CliRunner().invoke(
        app,
        ["play", str(SPOON), "--players", "8", "--seed", "3", "--log", str(log)],
        input="1\n1\n4\n" + "1\n" * 300,  # the third pick is the spoon 4
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(map(len, lines)) <= 80
    assert "Spoon 4: name a card or a family to ask the others for" in lines
    assert "  The nearest player to your left holding one trades it for your Spoon 4." in lines
    assert "=== Game over ===" in lines
    replay = CliRunner().invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0 and "1 clean" in replay.output, replay.output
