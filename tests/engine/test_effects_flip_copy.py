"""Party's takeout box (turn cards face down) and special order (copy an earlier card),
with the rulings for effects, on a small test ruleset."""

from __future__ import annotations

import functools
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA

from ruledraft.engine.board import board
from ruledraft.engine.scoresheet import score_scoring
from ruledraft.engine.state import Game, State
from ruledraft.language.loading import check_ruleset, load_ruleset
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import play_game
from ruledraft.tableau import Tableau

FLIP = DATA / "effects-flip-copy.yaml"


@functools.cache
def ruleset() -> CompiledRuleset:
    return load_ruleset(str(FLIP))


@functools.cache
def game(players: int = 2) -> Game:
    return Game(ruleset(), players)


def ix(name: str) -> int:
    return ruleset().catalogue.index_of(name)


def names(cards) -> list[str]:
    return [ruleset().catalogue.ids[c] for c in cards]


def fresh(players: int = 2, seed: int = 1) -> State:
    return game(players).new_initial_state(seed)


def give(state: State, seat: int, *wanted: str) -> None:
    """Put the cards named into ``seat``'s hand, swapping them with other cards of the
    hand from the undealt deck or another hand: every card stays counted."""
    hand = state.hands[seat]
    for name in wanted:
        c = ix(name)
        if c in hand:
            continue
        spare = next(i for i, h in enumerate(hand) if names([h])[0] not in wanted)
        deck = list(state.deck)
        if c in deck[state.deck_pos :]:
            j = deck.index(c, state.deck_pos)
            deck[j], hand[spare] = hand[spare], c
            state.deck = deck
            continue
        other = next(h for s, h in enumerate(state.hands) if s != seat and c in h)
        j = other.index(c)
        other[j], hand[spare] = hand[spare], c


def stack(state: State, *wanted: str) -> None:
    """Put the cards named on top of the undealt deck, in that order (a reordering)."""
    deck = list(state.deck)
    for k, name in enumerate(wanted, state.deck_pos):
        j = deck.index(ix(name), k)
        deck[k], deck[j] = deck[j], deck[k]
    state.deck = deck


def turn(state: State, *picks: str) -> None:
    """Every seat picks the card named (given to it first)."""
    for seat, name in enumerate(picks):
        give(state, seat, name)
    state.apply_actions([ix(n) for n in picks])


def decide(state: State, name: str) -> None:
    state.apply_actions([state.game.done_action if name == "done" else ix(name)])


def points(state: State) -> dict[str, list[int]]:
    """This round's points per rule, per seat, if the round ended now."""
    scoring = score_scoring(state.game.round_scoring_rules, state.tableau())
    return {rule.id: p for rule, p in zip(scoring.rules, scoring.points)}


def finish_round(state: State, avoid: str) -> None:
    """Play the round to its end, never taking ``avoid`` when there is another card, declining every decision."""
    r = state.round
    while state.round == r and not state.is_terminal():
        if state.pending is not None:
            options = state.pending.options
            state.apply_actions([state.game.done_action if state.game.done_action in options else options[0]])
            continue
        actions = []
        for seat in state.acting_seats():
            legal = [a for a in state.legal_actions(seat) if a < state.game.num_card_types]
            actions.append(next((a for a in legal if a != ix(avoid)), legal[0]))
        state.apply_actions(actions)


# ---------------------------------------------------------------------- takeout box


def test_takeout_box_turns_chosen_cards_face_down_one_at_a_time_and_is_discarded():
    """The box asks for one card at a time (done ends); the newest copy turns into the
    face-down card, which scores 2 and breaks the tempura pair; the box is discarded."""
    s = fresh()
    g = s.game
    turn(s, "tempura", "salmon")
    turn(s, "tempura", "salmon")
    assert points(s)["tempura"] == [5, 0]
    turn(s, "takeout_box_10", "salmon")
    d = s.pending
    assert d is not None and (d.seat, d.effect, names([d.card])) == (0, "turn_face_down", ["takeout_box_10"])
    assert d.prompt == "Takeout Box: turn a card of yours face down (done: no more)"
    assert d.options == (ix("tempura"), g.done_action)
    decide(s, "tempura")
    assert s.pending is not None and s.pending.options == (ix("tempura"), g.done_action)
    decide(s, "done")
    assert s.pending is None
    assert names(s.played[0]) == ["tempura", "takeout_face_down"]
    assert names(s.book.discarded) == ["takeout_box_10"]
    p = points(s)
    assert (p["tempura"], p["face_down"]) == ([0, 0], [2, 0])
    assert s.physical(0, 1) == ix("tempura")
    assert s.all_cards() == sorted(g.deck)


def test_a_turned_maki_has_no_icons_and_the_box_stops_when_nothing_is_left_to_turn():
    """A turned maki counts no icons for the majority; with nothing more to turn, the box is discarded without asking."""
    s = fresh()
    turn(s, "maki_2", "maki_2")
    assert points(s)["maki"] == [3, 3]  # 6 + 3 split, the remainder dropped
    turn(s, "takeout_box_11", "tempura")
    decide(s, "maki_2")
    assert s.pending is None
    assert names(s.played[0]) == ["takeout_face_down"] and names(s.book.discarded) == ["takeout_box_11"]
    p = points(s)
    assert (p["maki"], p["face_down"]) == ([0, 6], [2, 0])


def test_a_turned_dessert_is_not_kept_and_goes_back_into_the_deck():
    """A pudding turned face down is not kept at round end: the physical pudding goes back into the deck."""
    s = fresh()
    g = s.game
    turn(s, "pudding", "salmon")
    turn(s, "takeout_box_12", "salmon")
    decide(s, "pudding")
    assert names(s.played[0]) == ["takeout_face_down"]
    finish_round(s, avoid="pudding")
    table = s.history[0].tables[0]
    assert table[0] == ix("takeout_face_down")
    assert s.history[0].turned is not None and s.history[0].turned[0] == {
        0: (ix("pudding"), 1)
    }  # one card before the box
    assert s.kept_cards[0].count(ix("pudding")) == table.count(ix("pudding"))
    assert ix("takeout_face_down") not in s.kept_cards[0] and s.book.kept_under == ()
    assert s.all_cards() == sorted(g.deck)


def test_a_miso_soup_turned_in_the_turn_of_its_collision_is_discarded():
    """Two soups in a turn: the one turned face down by a takeout box that same turn is discarded too, as a miso soup."""
    s = fresh()
    g = s.game
    turn(s, "chopsticks", "tempura")
    give(s, 0, "miso_soup", "takeout_box_10")
    turn(s, "miso_soup", "miso_soup")
    assert s.pending is not None and s.pending.effect == "second_pick"
    decide(s, "takeout_box_10")
    assert s.pending is not None and s.pending.options == (ix("miso_soup"), g.done_action)
    decide(s, "miso_soup")
    assert s.pending is None
    assert names(s.played[0]) == [] and names(s.played[1]) == ["tempura"]
    assert names(s.book.discarded) == ["takeout_box_10", "miso_soup", "miso_soup"]
    assert s.all_cards() == sorted(g.deck)


def test_a_box_may_turn_another_box_put_down_this_turn_which_then_never_acts():
    """Box 10 resolves with box 11 on the table (chopsticks' second card this turn): it is
    offered, turned face down it scores 2, and it asks nothing: box 10 alone is discarded."""
    s = fresh()
    g = s.game
    turn(s, "chopsticks", "tempura")
    give(s, 0, "takeout_box_10", "takeout_box_11")
    turn(s, "takeout_box_10", "tempura")
    assert s.pending is not None and s.pending.effect == "second_pick"
    decide(s, "takeout_box_11")
    assert s.pending is not None and s.pending.card == ix("takeout_box_10")
    assert s.pending.options == (ix("takeout_box_11"), g.done_action)
    decide(s, "takeout_box_11")
    assert s.pending is None  # nothing else to turn, and box 11 is face down: it does not act
    assert names(s.played[0]) == ["takeout_face_down"]
    assert names(s.book.discarded) == ["takeout_box_10"]
    assert points(s)["face_down"] == [2, 0]
    assert s.physical(0, 0) == ix("takeout_box_11")
    assert s.all_cards() == sorted(g.deck)


# ---------------------------------------------------------------------- wasabi with takeout


def test_a_wasabi_turned_later_loses_its_x3_and_keeps_its_nigiri():
    """A nigiri on a wasabi that is turned later scores its value only, and a later nigiri finds no wasabi."""
    s = fresh()
    turn(s, "wasabi", "tempura")
    turn(s, "salmon", "tempura")
    assert points(s)["wasabi"] == [4, 0]
    turn(s, "takeout_box_10", "tempura")
    decide(s, "wasabi")
    decide(s, "done")
    turn(s, "squid", "tempura")
    p = points(s)
    assert (p["nigiri"], p["wasabi"], p["face_down"]) == ([5, 0], [0, 0], [2, 0])


def test_a_turned_nigiri_scores_2_and_its_wasabi_stays_used():
    """A nigiri turned face down scores 2, nothing for the wasabi, and the wasabi takes no later nigiri."""
    s = fresh()
    turn(s, "wasabi", "tempura")
    turn(s, "salmon", "tempura")
    turn(s, "takeout_box_10", "tempura")
    decide(s, "salmon")
    decide(s, "done")
    turn(s, "squid", "tempura")
    assert names(s.played[0]) == ["wasabi", "takeout_face_down", "squid"]
    p = points(s)
    assert (p["nigiri"], p["wasabi"], p["face_down"]) == ([3, 0], [0, 0], [2, 0])


def test_score_game_of_the_round_record_keeps_the_wasabi_used_by_a_turned_nigiri():
    """The round's record says which cards were turned, so the scoring pipeline gives the round the engine's points."""
    from ruledraft.engine.scoresheet import PlayedGame, score_game

    s = fresh()
    turn(s, "wasabi", "tempura")
    turn(s, "salmon", "tempura")
    turn(s, "takeout_box_10", "tempura")
    decide(s, "salmon")
    decide(s, "done")
    turn(s, "squid", "tempura")
    finish_round(s, avoid="squid")
    sheet = score_game(ruleset(), PlayedGame.from_history(2, s.history))
    assert sheet.rounds[0].totals == s.round_scores[0]
    assert s.history[0].turned is not None and s.history[0].turned[0] == {
        1: (ix("salmon"), 2)
    }  # two cards before the box


def test_an_empty_wasabi_turned_takes_no_later_nigiri():
    """An empty wasabi turned face down scores 2, and a nigiri placed after it scores its value only."""
    s = fresh()
    turn(s, "wasabi", "tempura")
    turn(s, "takeout_box_10", "tempura")
    decide(s, "wasabi")
    turn(s, "salmon", "tempura")
    p = points(s)
    assert (p["nigiri"], p["wasabi"], p["face_down"]) == ([2, 0], [0, 0], [2, 0])


def test_a_nigiri_goes_onto_the_oldest_wasabi_empty_and_face_up_when_it_is_placed():
    """Of two empty wasabi, the newer is turned: a later nigiri goes onto the older one, a second finds no room."""
    s = fresh()
    turn(s, "wasabi", "tempura")
    turn(s, "wasabi", "tempura")
    turn(s, "takeout_box_10", "tempura")
    decide(s, "wasabi")
    decide(s, "done")
    turn(s, "salmon", "tempura")
    turn(s, "squid", "tempura")
    assert names(s.played[0]) == ["wasabi", "takeout_face_down", "salmon", "squid"]
    p = points(s)
    assert (p["nigiri"], p["wasabi"], p["face_down"]) == ([5, 0], [4, 0], [2, 0])


def test_the_modifier_keeps_a_nigiri_on_the_wasabi_it_was_placed_on_when_that_wasabi_is_turned():
    """Scoring a table with a turned wasabi: a nigiri placed before the turn stays on it
    (no bonus, though a newer wasabi is empty); one placed after goes onto the newer one."""
    rule = next(r for r in ruleset().round_rules if r.id == "wasabi")
    K = ruleset().catalogue.size
    cards = [[ix("takeout_face_down"), ix("wasabi"), ix("salmon")]]
    before = Tableau.from_cards(K, cards)
    before.turned = [{0: (ix("wasabi"), 3)}]  # turned when the salmon was on the table
    after = Tableau.from_cards(K, cards)
    after.turned = [{0: (ix("wasabi"), 1)}]  # turned before the second wasabi and the salmon came
    assert (rule.score(before), rule.score(after)) == ([0], [4])


# ---------------------------------------------------------------------- special order


def test_special_order_copies_a_nigiri_onto_the_empty_wasabi():
    """Special order asks which card played this round to copy; a copied nigiri goes onto the empty wasabi and scores x3."""
    s = fresh()
    turn(s, "salmon", "tempura")
    turn(s, "wasabi", "tempura")
    turn(s, "special_order", "tempura")
    d = s.pending
    assert d is not None and (d.seat, d.effect) == (0, "copy_earlier")
    assert d.prompt == "Special Order: copy one of the cards you played this round"
    assert d.options == (ix("salmon"), ix("wasabi"))
    decide(s, "salmon")
    assert names(s.played[0]) == ["salmon", "wasabi", "salmon"]
    assert s.physical(0, 2) == ix("special_order")
    p = points(s)
    assert (p["nigiri"], p["wasabi"]) == ([4, 0], [4, 0])
    assert s.all_cards() == sorted(s.game.deck)


def test_a_copied_wasabi_is_a_new_empty_wasabi():
    """A special order copying a full wasabi is an empty wasabi: the next nigiri goes onto it."""
    s = fresh()
    turn(s, "wasabi", "tempura")
    turn(s, "salmon", "tempura")
    turn(s, "special_order", "tempura")
    decide(s, "wasabi")
    turn(s, "squid", "tempura")
    p = points(s)
    assert (p["nigiri"], p["wasabi"]) == ([5, 0], [10, 0])


def test_a_copied_dessert_is_kept_and_the_special_order_returns_as_itself():
    """With one card to copy there is no question; a copied pudding is kept to game end as a pudding, the physical card remembered."""
    s = fresh()
    g = s.game
    turn(s, "pudding", "tempura")
    turn(s, "special_order", "tempura")
    assert s.pending is None
    assert names(s.played[0]) == ["pudding", "pudding"]
    finish_round(s, avoid="pudding")
    assert s.kept_cards[0].count(ix("pudding")) == s.history[0].tables[0].count(ix("pudding")) >= 2
    assert s.book.kept_under == ((ix("pudding"), ix("special_order")),)
    assert s.all_cards() == sorted(g.deck)


def test_a_copied_menu_acts_and_is_discarded():
    """A special order copying a menu draws and plays like one, then is discarded as a special order."""
    s = fresh()
    stack(s, "squid", "tempura", "salmon", "egg")
    turn(s, "menu", "tempura")
    decide(s, "squid")
    assert names(s.book.discarded) == ["menu"]
    stack(s, "egg", "tempura", "maki_2", "wasabi")
    turn(s, "special_order", "tempura")
    assert s.pending is not None and s.pending.options == (ix("squid"), ix("menu"))
    decide(s, "menu")
    d = s.pending
    assert d is not None and d.effect == "draw_and_choose" and names(d.shown) == ["egg", "tempura", "maki_2", "wasabi"]
    decide(s, "egg")
    assert names(s.played[0]) == ["squid", "egg"]
    assert names(s.book.discarded) == ["menu", "special_order"]
    assert s.all_cards() == sorted(s.game.deck)


def test_a_copy_of_a_copy_counts_and_the_original_may_have_been_turned():
    """A special order copies the maki a first special order copied, after both makis were turned face down."""
    s = fresh()
    turn(s, "maki_2", "tempura")
    turn(s, "special_order", "tempura")  # the only card to copy: a maki
    assert names(s.played[0]) == ["maki_2", "maki_2"]
    turn(s, "takeout_box_10", "tempura")
    decide(s, "maki_2")
    decide(s, "maki_2")
    assert names(s.played[0]) == ["takeout_face_down", "takeout_face_down"]
    assert [s.physical(0, i) for i in range(2)] == [ix("maki_2"), ix("special_order")]
    turn(s, "special_order", "tempura")
    assert s.pending is not None and s.pending.options == (ix("maki_2"), ix("takeout_box_10"))
    decide(s, "maki_2")
    assert names(s.played[0]) == ["takeout_face_down", "takeout_face_down", "maki_2"]
    p = points(s)
    assert (p["maki"], p["face_down"]) == ([6, 0], [4, 0])
    assert s.all_cards() == sorted(s.game.deck)


def test_a_special_order_with_nothing_to_copy_is_discarded():
    """A special order as the round's first card is discarded at once: no decision, no points."""
    s = fresh()
    turn(s, "special_order", "tempura")
    assert s.pending is None and s.played[0] == [] and names(s.book.discarded) == ["special_order"]
    assert all(p[0] == 0 for p in points(s).values())


def test_a_copied_miso_soup_collides_and_leaves_as_a_special_order():
    """A special order copying a miso soup counts in that turn's collision; the special order is what is discarded."""
    s = fresh()
    turn(s, "miso_soup", "tempura")
    turn(s, "special_order", "miso_soup")
    assert names(s.played[0]) == ["miso_soup"] and names(s.played[1]) == ["tempura"]
    assert sorted(names(s.book.discarded)) == ["miso_soup", "special_order"]
    assert s.all_cards() == sorted(s.game.deck)


# ---------------------------------------------------------------------- the language


def test_show_says_what_each_effect_does():
    """The effects' plain words for `show`."""
    words = {e.kind: e.describe() for e in reversed(ruleset().effects)}  # the first of each kind
    assert words["turn_face_down"] == (
        "Takeout Box: when played (order 10), turn any number of your cards placed this round face down, "
        "one at a time (done ends): each becomes a Face-down card, which counts for nothing but its own "
        "scoring (the newest copy of the card named is turned); the Takeout Box is discarded."
    )
    assert words["copy_earlier"] == (
        "Special Order: when played (order 0), becomes a copy of a card you placed earlier this round "
        "(not a Special Order): every rule sees that card, and its when-played effect acts; with nothing "
        "to copy the Special Order is discarded."
    )


def test_a_face_down_card_that_does_not_exist_or_is_the_box_itself_is_a_located_error(tmp_path):
    """An unknown face-down card is refused at its line with did-you-mean; the box itself cannot be its face-down card."""
    text = FLIP.read_text()
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("face_down: takeout_face_down, order: 10", "face_down: takeout_face_dwn, order: 10"))
    result = check_ruleset(bad)
    line = next(i for i, t in enumerate(bad.read_text().splitlines(), 1) if "takeout_face_dwn" in t)
    assert [(d.line, d.message) for d in result.diagnostics] == [
        (line, "unknown card 'takeout_face_dwn' (did you mean 'takeout_face_down'?)")
    ]
    bad.write_text(text.replace("face_down: takeout_face_down, order: 11", "face_down: takeout_box_11, order: 11"))
    result = check_ruleset(bad)
    line = next(i for i, t in enumerate(bad.read_text().splitlines(), 1) if "face_down: takeout_box_11" in t)
    assert [(d.line, d.message) for d in result.diagnostics] == [
        (line, "the face-down card must be another card than takeout_box_11")
    ]


def test_rulesets_without_a_copy_keep_no_list_of_the_round():
    """Only a ruleset with a copy effect keeps each seat's placements of the round."""
    small = Game(load_ruleset(str(DATA / "effects-small.yaml")), 2)
    assert (small.keeps_round, game(2).keeps_round) == (False, True)
    s = small.new_initial_state(1)
    s.play_out([random.Random(s).random for s in range(2)])
    assert s.round_placed == ((), ())


# ---------------------------------------------------------------------- properties and play


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32), bots=st.integers(0, 2**32))
def test_random_play_never_raises_and_every_card_is_accounted_for(players, seed, bots):
    """Random play at 2-6 players never raises, and the physical cards (under faces,
    kept copies included) are always the whole deck."""
    g = game(players)
    state = g.new_initial_state(seed)
    everything = sorted(g.deck)
    rngs = [random.Random(bots + s).random for s in range(players)]
    while not state.is_terminal():
        assert state.all_cards() == everything
        state.apply_actions([state.sample_action(s, rngs[s]) for s in state.acting_seats()])
    assert state.all_cards() == everything


def test_logs_of_games_with_turned_and_copied_cards_replay_clean():
    """Games by several bots log their takeout and special order decisions, and replay without a problem."""
    kinds: set[str] = set()
    for seed, bots in enumerate(
        (["random", "greedy", "first"], ["value", "random"], ["ismcts:iterations=10", "random"])
    ):
        g = game(len(bots))
        state = play_game(g, seed, bots)
        record = record_game(state, bots)
        assert replay_record(ruleset(), record) == []
        for r in state.history:
            for _turn, _seat, action in r.decisions:
                kinds.add(names([action])[0] if action < g.num_card_types else "done")
    assert "done" in kinds and len(kinds) > 3


def test_play_asks_the_takeout_and_special_order_decisions_and_its_log_replays(tmp_path):
    """`ruledraft play` on the flip-and-copy ruleset asks its decisions within 80 columns, and the log replays clean."""
    from typer.testing import CliRunner

    from ruledraft.cli.app import app

    log = tmp_path / "game.jsonl"
    result = CliRunner().invoke(
        app,
        ["play", str(FLIP), "--players", "3", "--seed", "4", "--log", str(log)],
        input="1\n" * 400,
        env={"COLUMNS": "80"},
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert max(map(len, lines)) <= 80
    assert "Special Order: copy one of the cards you played this round" in lines
    assert "=== Game over ===" in lines
    replay = CliRunner().invoke(app, ["replay", str(log)])
    assert replay.exit_code == 0 and "1 clean" in replay.output, replay.output


@settings(max_examples=10, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_score_game_of_the_history_scores_turned_cards_as_play_did(players, seed):
    """The scoring pipeline given a finished game's history (turned cards recorded per round) gives the engine's scores."""
    from ruledraft.engine.scoresheet import PlayedGame, score_game

    g = game(players)
    state = g.new_initial_state(seed)
    state.play_out([random.Random(seed + s).random for s in range(players)])
    sheet = score_game(ruleset(), PlayedGame.from_history(players, state.history))
    assert (sheet.totals, sheet.winners) == (state.totals(), state.winners)


# ---- the board's wasabi count (board.SeatBoard.modifiers: loaded, waiting) with cards turned face down


def wasabi(state: State, seat: int = 0) -> tuple[int, int]:
    """(loaded, waiting) of the wasabi rule on ``seat``'s side of the board."""
    (found,) = [(loaded, waiting) for rid, loaded, waiting in board(state)[seat].modifiers if rid == "wasabi"]
    return found


def test_a_wasabi_whose_nigiri_is_turned_face_down_stays_loaded():
    """Egg on a wasabi, the egg turned face down: the wasabi shows loaded, not waiting,
    and a squid played after it does not change that (it lands on no wasabi)."""
    s = fresh()
    turn(s, "wasabi", "tempura")
    assert wasabi(s) == (0, 1)
    turn(s, "egg", "tempura")
    assert wasabi(s) == (1, 0)
    turn(s, "takeout_box_10", "tempura")
    decide(s, "egg")
    decide(s, "done")
    assert wasabi(s) == (1, 0)
    turn(s, "squid", "tempura")
    assert wasabi(s) == (1, 0)


def test_a_wasabi_turned_face_down_is_counted_neither_loaded_nor_waiting():
    """An empty wasabi turned face down leaves the board's wasabi count; a second,
    face-up wasabi still shows waiting."""
    s = fresh()
    turn(s, "wasabi", "tempura")
    turn(s, "takeout_box_10", "tempura")
    decide(s, "wasabi")  # (nothing else to turn: no more asked)
    assert s.pending is None
    assert wasabi(s) == (0, 0)
    turn(s, "wasabi", "tempura")
    assert wasabi(s) == (0, 1)
