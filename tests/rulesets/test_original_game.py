"""Caravan Bazaar (examples/caravan-bazaar.yaml): an original game built from card
effects, turn patterns, cards added per round and sets over an attribute."""

from __future__ import annotations

import functools
import os

import pytest
from paths import DATA, ROOT
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.scoresheet import PlayedGame, score_game, score_scoring
from ruledraft.engine.state import Game, State
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import load_ruleset
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import play_game
from ruledraft.tableau import Tableau

BAZAAR = ROOT / "examples" / "caravan-bazaar.yaml"
GOLDEN = DATA / "caravan-bazaar.show.txt"

#: the card every hand-set hand is padded with (a lamp is neither a spice nor silk)
FILLER = "lamp"

runner = CliRunner()


@functools.cache
def ruleset() -> CompiledRuleset:
    return load_ruleset(str(BAZAAR))


@functools.cache
def game(players: int = 3) -> Game:
    return Game(ruleset(), players)


def ix(name: str) -> int:
    return ruleset().catalogue.index_of(name)


def names(cards) -> list[str]:
    return [ruleset().catalogue.ids[c] for c in cards]


def dealt(players: int = 3, hands: list[list[str]] | None = None, deck: list[str] | None = None) -> State:
    """A state whose hands in every round are the cards named, padded with lamps (and
    the top of whose deck is ``deck``)."""
    g = game(players)
    hands = hands or [[] for _ in range(players)]
    size = g.hand_size
    deal = [[ix(n) for n in [*h, *[FILLER] * (size - len(h))]] for h in hands]
    state = g.new_initial_state(1, deals=[deal] * ruleset().rounds)
    if deck is not None:
        state.deck = [ix(n) for n in deck] + state.deck[state.deck_pos + len(deck) :]
        state.deck_pos = 0
    return state


def turn(state: State, *picks: str) -> None:
    """Every seat picks the card named; a card its hand lacks replaces one of its lamps first."""
    for seat, name in enumerate(picks):
        hand = state.hands[seat]
        if ix(name) not in hand:
            hand[hand.index(ix(FILLER))] = ix(name)
    state.apply_actions([ix(n) for n in picks])


def decide(state: State, name: str) -> None:
    """The pending decision: a card, ``done``, or ``family:TAG``."""
    g = state.game
    if name == "done":
        action = g.done_action
    elif name.startswith("family:"):
        action = g.num_card_types + g.families.index(name.removeprefix("family:"))
    else:
        action = ix(name)
    state.apply_actions([action])


def points(state: State) -> dict[str, list[int]]:
    """This round's points per rule, per seat, if the round ended now."""
    scoring = score_scoring(state.game.round_scoring_rules, state.tableau())
    return {rule.id: p for rule, p in zip(scoring.rules, scoring.points)}


def test_the_example_validates():
    """`ruledraft validate` accepts the bazaar and sums it up in one line."""
    result = runner.invoke(app, ["validate", str(BAZAAR)])
    assert result.exit_code == 0, result.output
    assert result.output == (
        f"{BAZAAR}: ok: Caravan Bazaar (caravan-bazaar 1.0): 2-6 players, 18 card types, 76 cards, "
        "3 rounds, 6 scoring rules\n"
    )


def test_the_bazaar_combines_six_effects():
    """Every effect kind but Sushi Go!'s extra pick is on a card of the bazaar."""
    g = game(3)
    kinds = {names([c])[0]: effect.kind for c, effect in enumerate(g.effect_of) if effect is not None}
    assert kinds == {
        "mirage": "collision",
        "porter": "second_pick",
        "haggler": "ask_for",
        "scout": "draw_and_choose",
        "forger": "copy_earlier",
        "camel": "turn_face_down",
    }


# ---------------------------------------------------------------------- the turn shape


def test_hands_go_left_left_right_in_the_first_market_and_left_then_stay_in_the_last():
    """Market 1 passes left, left, right (then again); market 2 right, right, left; market 3
    left, then each seat keeps its hand for a turn."""
    markers = ["silk_3", "mirage", "cinnamon"]
    state = dealt(3, [[m] for m in markers])
    seen: dict[int, list[list[int]]] = {0: [], 1: [], 2: []}
    while not state.finished:  # lamps every turn; the marker is each hand's automatic last card
        if state.turn < 4:
            seen[state.round].append([next(s for s in range(3) if ix(m) in state.hands[s]) for m in markers])
        turn(state, FILLER, FILLER, FILLER)
    assert seen[0] == [[0, 1, 2], [1, 2, 0], [2, 0, 1], [1, 2, 0]]
    assert seen[1] == [[0, 1, 2], [2, 0, 1], [1, 2, 0], [2, 0, 1]]
    assert seen[2] == [[0, 1, 2], [1, 2, 0], [1, 2, 0], [2, 0, 1]]


def test_gold_dinars_join_the_deck_before_each_market_by_player_count():
    """Twelve dinars are held back; 2, 3, 4 of them join the deck before the markets with
    3 players, and 3, 4, 5 with 5."""
    for players, schedule in ((3, (2, 3, 4)), (5, (3, 4, 5))):
        state = game(players).new_initial_state(7)
        held = [len(state.reserves[0])]
        while not state.finished:
            r = state.round
            while state.round == r and not state.finished:
                state.apply_actions([state.legal_actions(s)[0] for s in state.acting_seats()])
            if not state.finished:
                held.append(len(state.reserves[0]))
        assert [12 - held[0], held[0] - held[1], held[1] - held[2]] == list(schedule)


# ---------------------------------------------------------------------- the effects


def test_two_mirages_in_one_turn_vanish_and_a_lone_mirage_scores_3():
    """Two mirages placed in one turn are both discarded; a mirage alone in its turn stays and scores 3."""
    state = dealt(3)
    turn(state, "mirage", "mirage", FILLER)
    assert state.played[0] == [] and state.played[1] == []
    assert names(state.book.discarded) == ["mirage", "mirage"]
    turn(state, FILLER, "mirage", FILLER)
    assert names(state.played[1]) == ["mirage"]
    assert points(state)["mirages"] == [0, 3, 0]


def test_porters_play_a_second_card_after_the_reveal_and_go_into_the_hand():
    """Porters on the table let their owner play a second card after a later reveal; they then go into the hand passed on."""
    state = dealt(3)
    turn(state, "porter", FILLER, FILLER)
    state.hands[0][0] = ix("silk_3")
    turn(state, FILLER, FILLER, FILLER)
    d = state.pending
    assert d is not None and (d.seat, d.effect, names([d.card])) == (0, "second_pick", ["porter"])
    assert d.prompt == "Play a second card with your Porters? (done: no)"
    assert names(d.options[:-1]) == ["silk_3", "lamp"]
    decide(state, "silk_3")
    assert state.pending is None
    assert names(state.played[0]) == ["lamp", "silk_3"]
    assert ix("porter") in state.hands[1]  # the hand went left after turn 2
    p = points(state)
    assert (p["silk"], p["lamps"]) == ([6, 0, 0], [1, 3, 3])


def test_a_scout_draws_three_plays_one_and_shuffles_two_back():
    """A scout shows its owner the top three cards; one is played (never a scout), the others go back, the scout is discarded."""
    state = dealt(3, deck=["scout", "silk_3", "mirage"])
    left = len(state.deck) - state.deck_pos
    turn(state, "scout", FILLER, FILLER)
    d = state.pending
    assert d is not None and (d.seat, d.effect) == (0, "draw_and_choose")
    assert d.prompt == "Scout: play one of the cards drawn"
    assert names(d.shown) == ["scout", "silk_3", "mirage"]
    assert names(d.options) == ["silk_3", "mirage"]
    decide(state, "silk_3")
    assert names(state.played[0]) == ["silk_3"]
    assert names(state.book.discarded) == ["scout"]
    assert len(state.deck) - state.deck_pos == left - 1
    assert points(state)["silk"] == [6, 0, 0]


def test_a_forger_becomes_a_copy_of_an_earlier_lamp():
    """A forger asks which card of this market to copy; copying a lamp makes two lamps (3 points)."""
    state = dealt(3)
    turn(state, "lamp", "saffron", "saffron")
    turn(state, "saffron", "saffron", "saffron")
    turn(state, "forger", "saffron", "saffron")
    d = state.pending
    assert d is not None and (d.seat, d.effect) == (0, "copy_earlier")
    assert d.prompt == "Forger: copy one of the cards you played this round"
    assert names(d.options) == ["saffron", "lamp"]
    decide(state, "lamp")
    assert names(state.played[0]) == ["lamp", "saffron", "lamp"]
    assert state.physical(0, 2) == ix("forger")
    p = points(state)
    assert (p["lamps"], p["spices"]) == ([3, 0, 0], [1, 3, 3])


def test_a_forger_with_one_card_to_copy_copies_it_without_asking():
    """With one kind of card to copy, the forger becomes it at once."""
    state = dealt(3)
    turn(state, "lamp", "saffron", "saffron")
    turn(state, "forger", "saffron", "saffron")
    assert state.pending is None
    assert names(state.played[0]) == ["lamp", "lamp"] and state.physical(0, 1) == ix("forger")
    assert points(state)["lamps"] == [3, 0, 0]


def test_a_camel_packs_a_mirage_into_a_bale_worth_2():
    """A camel turns the cards its owner names into bales, one at a time until done; each scores 2 and nothing else."""
    state = dealt(3)
    turn(state, "mirage", FILLER, FILLER)
    turn(state, "saffron", FILLER, FILLER)
    assert (points(state)["mirages"], points(state)["spices"]) == ([3, 0, 0], [1, 0, 0])
    turn(state, "camel", FILLER, FILLER)
    d = state.pending
    assert d is not None and (d.seat, d.effect) == (0, "turn_face_down")
    assert d.prompt == "Camel: turn a card of yours face down (done: no more)"
    assert names(d.options[:-1]) == ["saffron", "mirage"] and d.options[-1] == state.game.done_action
    decide(state, "mirage")
    decide(state, "done")
    assert state.pending is None
    assert names(state.played[0]) == ["bale", "saffron"]
    assert names(state.book.discarded) == ["camel"]
    p = points(state)
    assert (p["mirages"], p["bales"], p["spices"]) == ([0, 0, 0], [2, 0, 0], [1, 0, 0])


def test_a_haggler_takes_a_spice_from_the_nearest_merchant_to_the_left_who_has_one():
    """Naming the spice family: seat 1 (silk only) is skipped, seat 2 gives its clove and takes
    the haggler into its hand, which then passes on."""
    state = dealt(3)
    turn(state, "haggler", FILLER, FILLER)
    size = len(state.hands[1])
    state.hands[1] = [ix("silk_1")] + [ix(FILLER)] * (size - 1)
    state.hands[2] = [ix("clove")] + [ix(FILLER)] * (size - 1)
    turn(state, FILLER, FILLER, FILLER)
    d = state.pending
    assert d is not None and (d.seat, d.effect) == (0, "ask_for")
    assert d.prompt == "Haggler: name a card or a family to ask the others for (done: not now)"
    g = state.game
    assert d.options[-3:] == (g.num_card_types + g.families.index("silk"), g.num_card_types + 1, g.done_action)
    decide(state, "family:spice")
    assert state.pending is None
    assert names(state.played[0]) == ["lamp", "clove"]
    # seat 2's hand (the haggler in place of its clove) went left to seat 0
    assert sorted(names(state.hands[0])) == ["haggler"] + ["lamp"] * (size - 2)
    assert points(state)["spices"] == [1, 0, 0]


def copied_haggler() -> State:
    """Seat 0 has a haggler (turn 1) and a forger that copied it (turn 2); it is turn 3."""
    state = dealt(3)
    turn(state, "haggler", FILLER, FILLER)
    turn(state, "forger", FILLER, FILLER)
    decide(state, "done")  # the haggler of turn 1 is not used yet; the forger copies it
    assert names(state.played[0]) == ["haggler", "haggler"] and state.physical(0, 1) == ix("forger")
    return state


def test_a_haggler_copied_by_a_forger_goes_to_the_giver_as_the_forger():
    """A forger that copied a haggler asks as one; the card that then changes hands is the
    physical forger: no haggler is made and no forger lost."""
    state = copied_haggler()
    size = len(state.hands[1])
    state.hands[1] = [ix("clove")] + [ix(FILLER)] * (size - 1)
    turn(state, FILLER, FILLER, FILLER)
    decide(state, "family:spice")  # the newest haggler goes: the forger's copy
    assert state.pending is None
    assert names(state.played[0]) == ["haggler", "lamp", "clove"] and state.book.under == {}
    # the hands went right after turn 3: seat 1's old hand, with the forger, is seat 0's
    assert sorted(names(state.hands[0])) == ["forger"] + ["lamp"] * (size - 2)
    assert names(state.book.known_in_hand[0]) == ["forger"]


def test_a_haggler_copied_by_a_forger_that_finds_nothing_discards_the_forger():
    """A copied haggler that nobody can answer is discarded as the physical forger."""
    state = copied_haggler()
    turn(state, FILLER, FILLER, FILLER)
    decide(state, "clove")  # nobody holds a clove
    assert state.pending is None
    assert names(state.played[0]) == ["haggler", "lamp"] and state.book.under == {}
    assert names(state.book.discarded) == ["forger"]


# ---------------------------------------------------------------------- scoring


def test_spices_of_one_origin_count_once_in_a_set():
    """Cardamom and pepper share an origin (as clove and nutmeg do): sets of different origins score 1, 3, 6, 10."""
    g = game(3)
    tables = [
        [ix("cardamom"), ix("pepper"), ix("saffron")],  # {2, 1} + {2}: 3 + 1
        [ix("saffron"), ix("pepper"), ix("cinnamon"), ix("nutmeg")],  # four origins: 10
        [ix("clove"), ix("nutmeg")],  # {4} + {4}: 1 + 1
    ]
    scoring = score_scoring(g.round_scoring_rules, Tableau.from_cards(g.num_card_types, tables, 1))
    assert scoring.by_rule()["spices"] == [4, 10, 2]


def test_silk_goes_to_the_most_bolts_and_dinars_to_the_most_at_the_end():
    """Silk: 6 for the most bolts, 3 for the next; dinars at game end: 6 for the most, -6 for
    the fewest (nothing for the fewest with 2 players)."""
    one_round = [
        [ix("silk_3"), ix("silk_1"), ix("dinar"), ix("dinar")],
        [ix("silk_2"), ix("dinar")],
        [ix("lamp")],
    ]
    other = [[ix("lamp")], [ix("lamp")], [ix("lamp")]]
    sheet = score_game(ruleset(), PlayedGame.from_tables(ruleset(), [one_round, other, other]))
    assert sheet.rule_points["silk"] == [6, 3, 0]
    assert sheet.rule_points["dinars"] == [6, 0, -6]
    assert sheet.totals == [14, 5, -3]  # every seat adds a lamp in markets 2 and 3
    two = [[[ix("dinar")], [ix("lamp")]]] * 3
    assert score_game(ruleset(), PlayedGame.from_tables(ruleset(), two)).rule_points["dinars"] == [6, 0]


# ---------------------------------------------------------------------- play, logs, show


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_random_and_greedy_play_at_every_player_count_never_raises_and_replays(players):
    """Random and greedy bots finish games at every player count, every card stays
    accounted for, and the games' logs replay clean."""
    g = game(players)
    for seed, bots in enumerate((["random"] * players, ["greedy"] * players, ["greedy", "random"] * 3)):
        bots = bots[:players]
        state = play_game(g, seed, bots)
        assert state.finished
        assert state.all_cards() == sorted(ruleset().catalogue.deck())
        assert replay_record(ruleset(), record_game(state, bots)) == []


def test_play_asks_the_bazaars_decisions_within_80_columns_and_its_log_replays(tmp_path):
    """`ruledraft play` at 4 seats asks a human who always types 1 the porters', haggler's,
    scout's and camel's decisions within 80 columns, and its log replays clean."""
    log = tmp_path / "game.jsonl"
    result = runner.invoke(
        app,
        ["play", str(BAZAAR), "--players", "4", "--seed", "3", "--log", str(log)],
        input="1\n" * 400,
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert [line for line in lines if len(line) > 80] == []
    assert "=== Game over ===" in lines
    for prompt in (
        "Play a second card with your Porters?",
        "Haggler: name a card or a family to ask the others for",
        "Scout: play one of the cards drawn",
        "Camel: turn a card of yours face down",
    ):
        assert prompt in lines
    # each decision's 'no' says what it means, never "done (no)"
    assert not any("done (no)" in line for line in lines)
    assert any(line.endswith(". not now: keep your Haggler for a later turn") for line in lines)
    replay = runner.invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0, replay.output
    assert "1 game replayed, 1 clean, 0 with problems" in replay.output


def test_show_matches_the_golden_file():
    """show explains the bazaar's cards, effects, turn patterns, dinars and rules as the golden
    file says (RULEDRAFT_UPDATE_GOLDEN=1 rewrites it)."""
    text = describe_ruleset(ruleset())
    if os.environ.get("RULEDRAFT_UPDATE_GOLDEN") == "1":
        GOLDEN.write_text(text, encoding="utf-8")
    assert text == GOLDEN.read_text(encoding="utf-8")
