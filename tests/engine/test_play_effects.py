"""What card effects and races did in a turn: recorded by the engine as events
(``State.events``), told by ``play`` one line each after the reveal and the decisions."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from paths import DATA
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.cli.play import SeatNames, event_line, ordinal
from ruledraft.engine.state import Event, Game, State
from ruledraft.language.loading import load_ruleset
from ruledraft.play.game_log import record_game, replay_game
from ruledraft.play.runner import play_game

SMALL, SPOON, FLIP, RACE = (DATA / f"effects-{n}.yaml" for n in ("small", "spoon", "flip-copy", "race"))
ONES = "1\n" * 120  # more answers than any game here asks for

runner = CliRunner()


@functools.cache
def ruleset(path: Path):
    return load_ruleset(str(path))


def game(path: Path, players: int) -> Game:
    return Game(ruleset(path), players)


def ix(state: State, name: str) -> int:
    return state.game.ruleset.catalogue.index_of(name)


def give(state: State, seat: int, *wanted: str) -> None:
    """Put the cards named into ``seat``'s hand, swapping them with other cards of the
    hand from the undealt deck or another hand: every card stays counted."""
    hand = state.hands[seat]
    for name in wanted:
        c = ix(state, name)
        if c in hand:
            continue
        spare = next(i for i, h in enumerate(hand) if state.game.ruleset.catalogue.ids[h] not in wanted)
        deck = list(state.deck)
        if c in deck[state.deck_pos :]:
            j = deck.index(c, state.deck_pos)
            deck[j], hand[spare] = hand[spare], c
            state.deck = deck
            continue
        other = next(h for s, h in enumerate(state.hands) if s != seat and c in h)
        j = other.index(c)
        other[j], hand[spare] = hand[spare], c


def without(state: State, seat: int, name: str, instead: str) -> None:
    """Swap every ``name`` of ``seat``'s hand for an ``instead`` from another seat's hand or the deck."""
    c, d = ix(state, name), ix(state, instead)
    hand = state.hands[seat]
    while c in hand:
        i = hand.index(c)
        deck = list(state.deck)
        if d in deck[state.deck_pos :]:
            j = deck.index(d, state.deck_pos)
            deck[j], hand[i] = c, d
            state.deck = deck
        else:
            other = next(h for s, h in enumerate(state.hands) if s != seat and d in h)
            other[other.index(d)], hand[i] = c, d


def stack(state: State, *wanted: str) -> None:
    """Put the cards named on top of the undealt deck, in that order (a reordering)."""
    deck = list(state.deck)
    for k, name in enumerate(wanted, state.deck_pos):
        j = deck.index(ix(state, name), k)
        deck[k], deck[j] = deck[j], deck[k]
    state.deck = deck


def turn(state: State, *picks: str) -> None:
    """Every seat picks the card named (given to it first)."""
    for seat, name in enumerate(picks):
        give(state, seat, name)
    state.apply_actions([ix(state, n) for n in picks])


def decide(state: State, name: str) -> None:
    g = state.game
    if name == "done":
        action = g.done_action
    elif name in g.families:
        action = g.num_card_types + g.families.index(name)
    else:
        action = ix(state, name)
    state.apply_actions([action])


def told(state: State, since: int = 0) -> list[tuple]:
    """The events since the ``since``-th as (round, turn, after, what), card indices in
    ``what`` written as card ids."""
    g = state.game
    ids = g.ruleset.catalogue.ids
    K = g.num_card_types
    card_places = {
        "drew": (3,),
        "played": (2, 3),
        "to_hand": (2,),
        "asked": (2, 3),
        "none": (2,),
        "gave": (3,),
        "turned": (2, 3),
        "copied": (2, 3),
        "discarded": (2,),
    }
    out = []
    for e in state.events[since:]:
        what = list(e.what)
        if what[0] == "race":
            what[5] = tuple(ids[c] for c in what[5])
        for i in card_places.get(what[0], ()):
            what[i] = ids[what[i]] if what[i] < K else f"family {g.families[what[i] - K]}"
        out.append((e.round, e.turn, e.after, tuple(what)))
    return out


# ---------------------------------------------------------------------- the engine records them


def test_a_collision_records_each_copy_discarded_with_the_number_played():
    """Two miso soups placed in one turn: one discard event per copy, in seat order, each saying 2 were placed."""
    s = game(FLIP, 3).new_initial_state(1)
    turn(s, "miso_soup", "tempura", "miso_soup")
    assert told(s) == [
        (0, 0, 0, ("discarded", 0, "miso_soup", "collision", 2)),
        (0, 0, 0, ("discarded", 2, "miso_soup", "collision", 2)),
    ]


def test_a_takeout_box_records_each_card_turned_and_its_own_discard_after_the_decisions():
    """Each card turned face down is an event after the decision that chose it; the box's discard follows done, or the last card turned."""
    s = game(FLIP, 2).new_initial_state(1)
    turn(s, "tempura", "salmon")
    turn(s, "salmon", "salmon")
    turn(s, "takeout_box_10", "salmon")
    assert told(s) == []
    decide(s, "tempura")
    decide(s, "done")
    assert told(s) == [
        (0, 2, 1, ("turned", 0, "tempura", "takeout_face_down")),
        (0, 2, 2, ("discarded", 0, "takeout_box_10", "used", 0)),
    ]
    turn(s, "takeout_box_11", "salmon")
    decide(s, "salmon")  # the last card it may turn: no done asked
    assert s.pending is None
    assert told(s, 2) == [
        (0, 3, 3, ("turned", 0, "salmon", "takeout_face_down")),
        (0, 3, 3, ("discarded", 0, "takeout_box_11", "used", 0)),
    ]


def test_a_special_order_records_its_copy_or_its_discard_with_nothing_to_copy():
    """A special order with one card to copy becomes it at once (a copied event, no decision); as the round's first card it is discarded."""
    s = game(FLIP, 2).new_initial_state(1)
    turn(s, "special_order", "tempura")
    turn(s, "salmon", "tempura")
    turn(s, "special_order", "tempura")
    assert s.pending is None
    assert told(s) == [
        (0, 0, 0, ("discarded", 0, "special_order", "nothing_to_copy", 0)),
        (0, 2, 0, ("copied", 0, "salmon", "special_order")),
    ]


def test_a_menu_records_the_draw_the_card_played_the_cards_returned_and_its_discard():
    """The menu's draw is an event at the reveal; the card played, the rest shuffled back and the menu's discard follow the decision."""
    s = game(FLIP, 2).new_initial_state(1)
    stack(s, "salmon", "squid", "tempura", "egg")
    turn(s, "menu", "tempura")
    assert told(s) == [(0, 0, 0, ("drew", 0, 4, "menu"))]
    decide(s, "squid")
    assert told(s, 1) == [
        (0, 0, 1, ("played", 0, "squid", "menu")),
        (0, 0, 1, ("returned", 0, 3)),
        (0, 0, 1, ("discarded", 0, "menu", "used", 0)),
    ]


def test_chopsticks_record_the_second_card_played_and_their_way_back_into_the_hand():
    """Party's chopsticks: the second card played and the chopsticks taken into the hand are events."""
    s = game(FLIP, 2).new_initial_state(1)
    turn(s, "chopsticks", "tempura")
    give(s, 0, "tempura", "salmon")
    turn(s, "tempura", "tempura")
    decide(s, "salmon")
    assert told(s) == [
        (0, 1, 1, ("played", 0, "salmon", "chopsticks")),
        (0, 1, 1, ("to_hand", 0, "chopsticks")),
    ]


def spoon_asks(nigiri_at: int | None) -> State:
    """Three players; seat 0's spoon on its table since turn 1, asking after turn 2's reveal;
    only seat ``nigiri_at`` (if any) holds an egg nigiri, and nobody a salmon nigiri."""
    s = game(SPOON, 3).new_initial_state(2)
    turn(s, "spoon_4", "tempura", "tempura")
    for seat in range(3):
        without(s, seat, "salmon_nigiri", "tempura")
        if seat != nigiri_at:
            without(s, seat, "egg_nigiri", "tempura")
    if nigiri_at is not None:
        give(s, nigiri_at, "egg_nigiri", "tempura")
    turn(s, "tempura", "tempura", "tempura")
    assert s.pending is not None and s.pending.seat == 0
    return s


def test_a_spoon_records_what_is_asked_who_had_none_the_gift_and_the_spoon_changing_hands():
    """Asking left for nigiri: seat 1 has none, seat 2 gives its egg nigiri and takes the spoon into its hand."""
    s = spoon_asks(nigiri_at=2)
    decide(s, "nigiri")
    assert told(s) == [
        (0, 1, 1, ("asked", 0, "family nigiri", "spoon_4")),
        (0, 1, 1, ("none", 1, "family nigiri")),
        (0, 1, 1, ("gave", 2, 0, "egg_nigiri")),
        (0, 1, 1, ("to_hand", 2, "spoon_4")),
    ]


def test_a_spoon_nobody_can_answer_records_each_refusal_and_its_discard():
    """Nobody holds the card asked for: each seat asked says so in turn, then the spoon is discarded."""
    s = spoon_asks(nigiri_at=None)
    decide(s, "salmon_nigiri")
    assert told(s) == [
        (0, 1, 1, ("asked", 0, "salmon_nigiri", "spoon_4")),
        (0, 1, 1, ("none", 1, "salmon_nigiri")),
        (0, 1, 1, ("none", 2, "salmon_nigiri")),
        (0, 1, 1, ("discarded", 0, "spoon_4", "unmatched", 0)),
    ]


def race_round(picks: list[list[str]], turns: int) -> State:
    """Effects-race at ``len(picks)`` seats, seat s taking ``picks[s][t]`` on turn t (then salmon), ``turns`` turns played."""
    g = game(RACE, len(picks))
    n, size = g.num_seats, g.hand_size
    full = [list(p) + ["salmon"] * (size - len(p)) for p in picks]
    idx = g.ruleset.catalogue.index_of
    deal = [[idx(full[(j + t) % n][t]) for t in range(size)] for j in range(n)]
    s = g.new_initial_state(1, deals=[deal, deal, deal])
    for t in range(turns):
        s.apply_actions([idx(full[seat][t]) for seat in range(n)])
    return s


def test_a_race_records_each_place_taken_with_its_points_and_the_cards_discarded():
    """Two seats tied at ten take 1st place each (two events, 8 points, their uramaki); a later arrival takes 3rd."""
    picks = [["uramaki_5", "uramaki_5"], ["uramaki_4", "uramaki_3", "uramaki_3"], ["uramaki_5", "uramaki_5"]]
    s = race_round(picks, 3)
    assert told(s) == [
        (0, 1, 0, ("race", "uramaki", 0, 1, 8, ("uramaki_5", "uramaki_5"))),
        (0, 1, 0, ("race", "uramaki", 2, 1, 8, ("uramaki_5", "uramaki_5"))),
        (0, 2, 0, ("race", "uramaki", 1, 3, 2, ("uramaki_4", "uramaki_3", "uramaki_3"))),
    ]


def test_a_turn_end_that_awards_nothing_records_nothing():
    """Below the threshold, and once every place is gone, a turn end adds no race event."""
    s = race_round([["uramaki_5", "uramaki_4"], [], []], 2)
    assert s.events == ()
    picks = [
        ["uramaki_5", "uramaki_5", "salmon", "salmon", "uramaki_4", "uramaki_3", "uramaki_3"],
        ["salmon", "salmon", "uramaki_5", "uramaki_5"],
        ["salmon", "salmon", "uramaki_4", "uramaki_4", "uramaki_3"],
    ]
    s = race_round(picks, 7)  # seat 0 reaches ten again on turn 7, with no place left
    assert [(e.turn, e.what[2], e.what[3]) for e in s.events] == [(1, 0, 1), (3, 1, 2), (4, 2, 3)]


def test_rulesets_without_effects_or_races_record_no_event():
    """Sushi Go! played to the end (the fast path and the bots' path) leaves the events empty."""
    rs = load_ruleset("sushi-go")
    for bots in (["random"] * 3, ["greedy", "random", "greedy"]):
        assert play_game(Game(rs, 3), 5, bots).events == ()


def test_a_clone_keeps_its_own_events():
    """Events are part of a state's value: a clone's later turns never show in the original, nor the reverse."""
    s = game(FLIP, 3).new_initial_state(1)
    turn(s, "tempura", "tempura", "tempura")
    copy = s.clone()
    turn(copy, "miso_soup", "miso_soup", "tempura")
    assert s.events == () and len(copy.events) == 2
    turn(s, "salmon", "salmon", "salmon")
    assert s.events == () and len(copy.events) == 2


@pytest.mark.parametrize("path, players", [(SMALL, 3), (SPOON, 4), (FLIP, 3), (RACE, 3)])
def test_events_stay_out_of_the_game_log_and_come_back_when_it_is_replayed(path, players):
    """The log records picks and decisions only; replaying it makes the same events again."""
    g = game(path, players)
    state = play_game(g, 7, ["greedy"] * players)
    assert state.events
    record = record_game(state, ["greedy"] * players)
    assert "events" not in json.dumps(record)
    replayed, problems = replay_game(g.ruleset, record)
    assert problems == [] and replayed is not None
    assert replayed.events == state.events
    assert all(isinstance(e, Event) and e.round < g.ruleset.rounds for e in state.events)


# ---------------------------------------------------------------------- play tells them


def play(path: Path, players: int, seed: int, columns: int = 80) -> list[str]:
    """The lines of ``ruledraft play`` against greedy bots, always answering 1."""
    result = runner.invoke(
        app,
        ["play", str(path), "--players", str(players), "--seed", str(seed), "--bots", "greedy"],
        input=ONES,
        env={"COLUMNS": str(columns)},
    )
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def turn_told(lines: list[str], first: str, nth: int = 1) -> list[str]:
    """The ``nth`` block that starts with the line ``first``, to the next empty line."""
    starts = [i for i, line in enumerate(lines) if line == first]
    i = starts[nth - 1]
    j = lines.index("", i)
    return lines[i:j]


def test_play_tells_a_miso_collision_after_the_reveal():
    """Two miso soups revealed: after the Revealed line, one line per discarded soup, saying why."""
    lines = play(SMALL, 3, 3)
    assert turn_told(lines, "Revealed: you: Tempura; seat 1: Miso Soup; seat 2: Miso Soup") == [
        "Revealed: you: Tempura; seat 1: Miso Soup; seat 2: Miso Soup",
        "  - Seat 1's Miso Soup is discarded: 2 were played this turn.",
        "  - Seat 2's Miso Soup is discarded: 2 were played this turn.",
    ]


def test_play_tells_a_menu_draw_before_the_decision_and_the_rest_after_it_in_turn_order():
    """The menu's draw follows the reveal, its choice follows the decision, and a decision is told before the automatic last turn that follows it."""
    lines = play(SMALL, 3, 3)
    assert turn_told(lines, "Revealed: you: Tempura; seat 1: Miso Soup; seat 2: Menu") == [
        "Revealed: you: Tempura; seat 1: Miso Soup; seat 2: Menu",
        "  - Seat 2 draws 4 cards with its Menu.",
        "Decided: seat 2: Salmon",
        "  - Seat 2 plays Salmon with its Menu.",
        "  - Seat 2 shuffles 3 drawn cards back into the deck.",
        "  - Seat 2's Menu is discarded after use.",
    ]
    assert turn_told(lines, "Revealed: you: Tempura; seat 1: Sampler; seat 2: Salmon") == [
        "Revealed: you: Tempura; seat 1: Sampler; seat 2: Salmon",
        "  - Seat 1 draws 2 cards with its Sampler.",
        "Decided: seat 1: Miso Soup",
        "  - Seat 1 plays Miso Soup with its Sampler.",
        "  - Seat 1 shuffles 1 drawn card back into the deck.",
        "Last cards (played automatically): you: Chopsticks 1; seat 1: Tempura;",
        "  seat 2: Menu",
        "  - Seat 2 draws 4 cards with its Menu.",
        "Decided: seat 2: Tempura",
        "  - Seat 2 plays Tempura with its Menu.",
        "  - Seat 2 shuffles 3 drawn cards back into the deck.",
        "  - Seat 2's Menu is discarded after use.",
    ]


def test_play_tells_a_spoon_gift_and_who_had_none():
    """A spoon names what it asks for, who had none, who gave what, and whose hand the spoon goes to."""
    lines = play(SPOON, 3, 16)
    assert turn_told(lines, "Revealed: you: Wasabi; seat 1: Salmon Nigiri; seat 2: Egg Nigiri") == [
        "Revealed: you: Wasabi; seat 1: Salmon Nigiri; seat 2: Egg Nigiri",
        "Decided: seat 2: any maki",
        "  - Seat 2 asks for any maki card with its Spoon 6.",
        "  - You have no maki card.",
        "  - Seat 1 gives Maki 2 to seat 2 to play.",
        "  - Seat 1 takes Spoon 6 into its hand.",
    ]


def test_play_tells_a_spoon_that_nobody_could_answer():
    """Every seat asked had none: each says so, and the spoon is discarded."""
    lines = play(SPOON, 3, 7)
    assert turn_told(lines, "Revealed: you: Menu; seat 1: Spoon 6; seat 2: Chopsticks 1")[1:6] == [
        "Decided: seat 1: Spoon 6",
        "  - Seat 1 asks for Spoon 6 with its Spoon 5.",
        "  - Seat 2 has no Spoon 6.",
        "  - You have no Spoon 6.",
        "  - Seat 1's Spoon 5 is discarded: nobody had one to give.",
    ]


def test_play_tells_each_card_a_takeout_box_turns_and_each_special_order_copy():
    """Takeout: one line per card turned, after the decision that chose it, and the box's discard; special orders: the copy each became."""
    lines = play(FLIP, 3, 1)
    assert turn_told(lines, "Revealed: you: Wasabi; seat 1: Takeout Box; seat 2: Wasabi") == [
        "Revealed: you: Wasabi; seat 1: Takeout Box; seat 2: Wasabi",
        "Decided: seat 1: Egg",
        "  - Seat 1 turns its Egg face down (now Face-down card).",
        "Decided: seat 1: Salmon",
        "  - Seat 1 turns its Salmon face down (now Face-down card).",
        "Decided: seat 1: no more cards",
        "  - Seat 1's Takeout Box is discarded after use.",
    ]
    assert turn_told(lines, "Revealed: you: Chopsticks; seat 1: Special Order; seat 2: Special Order")[:5] == [
        "Revealed: you: Chopsticks; seat 1: Special Order; seat 2: Special Order",
        "Decided: seat 1: Squid",
        "  - Seat 1's Special Order becomes a copy of Squid.",
        "Decided: seat 2: Salmon",
        "  - Seat 2's Special Order becomes a copy of Salmon.",
    ]


def test_play_tells_your_own_menu_and_chopsticks_in_the_second_person():
    """The human's own effects read 'You draw ... your Menu', 'You take Chopsticks into your hand'."""
    lines = play(FLIP, 3, 3)
    chosen = lines.index("Decided: you: Special Order")
    assert lines[chosen + 1 : chosen + 3] == [
        "  - You play Special Order with your Chopsticks.",
        "  - You take Chopsticks into your hand.",
    ]
    drawn = play(FLIP, 3, 1)
    assert "  - You draw 4 cards with your Menu." in drawn
    assert "  - You shuffle 3 drawn cards back into the deck." in drawn


def test_play_tells_race_places_with_points_ties_and_the_cards_discarded():
    """A place taken at a turn end is told with its points and cards (named when they fit, else counted); a same-turn tie says so."""
    lines = play(RACE, 3, 2)
    assert turn_told(lines, "Revealed: you: Uramaki (3); seat 1: Uramaki (4); seat 2: Uramaki (5)") == [
        "Revealed: you: Uramaki (3); seat 1: Uramaki (4); seat 2: Uramaki (5)",
        "  - Seat 2 takes 1st place in uramaki: 8 points, discarding Uramaki (5) x2.",
    ]
    assert turn_told(lines, "Revealed: you: Uramaki (4); seat 1: Salmon; seat 2: Salmon") == [
        "Revealed: you: Uramaki (4); seat 1: Salmon; seat 2: Salmon",
        "  - You take 2nd place in uramaki: 5 points, discarding 4 cards.",
    ]
    tie = play(RACE, 3, 1)
    assert turn_told(tie, "Revealed: you: Uramaki (4); seat 1: Uramaki (5); seat 2: Uramaki (4)") == [
        "Revealed: you: Uramaki (4); seat 1: Uramaki (5); seat 2: Uramaki (4)",
        "  - You take 1st place in uramaki (tied): 8 points, discarding 3 cards.",
        "  - Seat 1 takes 1st place in uramaki (tied): 8 points, discarding 2 cards.",
    ]


@pytest.mark.parametrize(
    "path, players, seeds",
    [(SMALL, 4, (1, 3)), (SPOON, 8, (2, 16)), (SPOON, 3, (7,)), (FLIP, 6, (1, 4)), (RACE, 5, (1, 2))],
)
def test_every_line_of_a_game_with_effects_fits_80_columns(path, players, seeds):
    """Whole games of every effects ruleset, most seats included: every line printed is at most 80 columns."""
    for seed in seeds:
        lines = play(path, players, seed)
        assert any(line.startswith("  - ") for line in lines)
        assert [line for line in lines if len(line) > 80] == []


# ---------------------------------------------------------------------- the words


def test_event_lines_speak_of_you_and_of_other_seats():
    """The same events read in the second person for the human and the third for another seat."""
    g = game(SPOON, 3)
    c = g.ruleset.catalogue.index_of
    you, other = SeatNames(g, 0, {1: "greedy", 2: "greedy"}), SeatNames(g, 1, {0: "greedy", 2: "greedy"})
    cases = [
        (("gave", 0, 1, c("tempura")), "You give Tempura to seat 1 to play.", "Seat 0 gives Tempura to you to play."),
        (("none", 0, c("wasabi")), "You have no Wasabi.", "Seat 0 has no Wasabi."),
        (
            ("drew", 0, 0, c("menu")),
            "Your Menu draws nothing: the deck is empty.",
            "Seat 0's Menu draws nothing: the deck is empty.",
        ),
        (
            ("returned", 0, 1),
            "You shuffle 1 drawn card back into the deck.",
            "Seat 0 shuffles 1 drawn card back into the deck.",
        ),
        (
            ("race", "uramaki", 0, 2, 1, ()),
            "You take 2nd place in uramaki: 1 point.",
            "Seat 0 takes 2nd place in uramaki: 1 point.",
        ),
    ]
    for what, mine, theirs in cases:
        assert (event_line(g, you, what), event_line(g, other, what)) == (mine, theirs)


def test_places_are_ordinals():
    """1st, 2nd, 3rd, 4th, 11th to 13th, 21st, 22nd, 101st."""
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "101st",
    ]


def test_names_from_the_rule_file_reach_the_event_lines_escaped(tmp_path):
    """An invisible character in a card's name is shown as an escape in an event line, as everywhere else in play."""
    text = SMALL.read_text(encoding="utf-8").replace("id: miso_soup,", 'id: miso_soup, name: "Miso\\u200b Soup",')
    path = tmp_path / "escaped.yaml"
    path.write_text(text, encoding="utf-8")
    g = Game(load_ruleset(str(path)), 3)
    line = event_line(g, SeatNames(g, 0, {1: "greedy", 2: "greedy"}), ("discarded", 1, 2, "collision", 2))
    assert line == "Seat 1's Miso\\u200b Soup is discarded: 2 were played this turn."
