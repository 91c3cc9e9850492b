"""The ``race`` scoring kind (Party's uramaki): places taken at the end of a turn, round-end
leftovers, its points in the score sheet and the log, and ``score`` for a ruleset that needs turns."""

from __future__ import annotations

import functools
import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from paths import DATA
from strategies import card_ids as names
from strategies import card_indices as idx
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.state import Game, State
from ruledraft.language.describe import describe_ruleset
from ruledraft.language.loading import load_ruleset
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import play_game
from ruledraft.tableau import Tableau

RACE = DATA / "effects-race.yaml"
FILL = "salmon"


@functools.cache
def race_ruleset():
    return load_ruleset(str(RACE))


@functools.cache
def game(players: int) -> Game:
    return Game(race_ruleset(), players)


def deal_for(g: Game, picks: list[list[str]]) -> list[list[int]]:
    """The round's hands that let seat s take ``picks[s][t]`` on turn t (the rest of
    its turns: salmon), hands passing left: seat s holds seat (s - t)'s dealt hand."""
    n, size = g.num_seats, g.hand_size
    full = [list(p) + [FILL] * (size - len(p)) for p in picks]
    return [idx(g, *[full[(j + t) % n][t] for t in range(size)]) for j in range(n)]


def played_round(picks: list[list[str]], *, stop_after: int | None = None) -> State:
    """A game whose first round has each seat take ``picks[seat]`` turn by turn (then
    salmon); played to the end of turn ``stop_after`` (default: the round's end)."""
    g = game(len(picks))
    filler = deal_for(g, [[] for _ in picks])
    state = g.new_initial_state(1, deals=[deal_for(g, picks), filler, filler])
    full = [list(p) + [FILL] * (g.hand_size - len(p)) for p in picks]
    last = g.hand_size - 1 if stop_after is None else stop_after  # the last card is played by the engine
    for t in range(last):
        state.apply_actions(idx(g, *[full[s][t] for s in range(g.num_players)]))
    return state


def uramaki_points(state: State) -> list[int]:
    return state.score_sheet().rounds[0].by_rule()["uramaki"]


def test_a_seat_reaching_ten_at_turn_end_takes_eight_and_discards_its_uramaki():
    """Ten icons at the end of a turn: first place (8) at once, and the uramaki leave the table, discarded."""
    state = played_round([["uramaki_5", "uramaki_5"], [], []], stop_after=2)
    g = state.game
    assert names(g, state.played[0]) == []
    assert names(g, state.book.discarded) == ["uramaki_5", "uramaki_5"]
    assert state.book.turn_progress[0].points == (8, 0, 0)
    state = played_round([["uramaki_5", "uramaki_5"], [], []])
    assert uramaki_points(state) == [8, 0, 0]


def test_nine_icons_score_nothing_at_turn_end_and_stay_on_the_table():
    """Below the threshold nothing happens at turn end: the cards stay and no place is taken."""
    state = played_round([["uramaki_5", "uramaki_4"], [], []], stop_after=2)
    assert names(state.game, state.played[0]) == ["uramaki_5", "uramaki_4"]
    assert state.book.turn_progress[0].used == 0 and state.book.discarded == []


def test_two_seats_reaching_it_on_one_turn_with_eleven_and_ten_take_eight_and_five():
    """Same-turn arrivals: more icons first (11 takes 8, 10 takes 5); both discard their uramaki."""
    state = played_round([["uramaki_4", "uramaki_3", "uramaki_4"], ["uramaki_5", FILL, "uramaki_5"], []], stop_after=3)
    assert state.book.turn_progress[0].points == (8, 5, 0)
    assert sorted(names(state.game, state.book.discarded)) == [
        "uramaki_3",
        "uramaki_4",
        "uramaki_4",
        "uramaki_5",
        "uramaki_5",
    ]
    assert uramaki_points(
        played_round([["uramaki_4", "uramaki_3", "uramaki_4"], ["uramaki_5", FILL, "uramaki_5"], []])
    ) == [8, 5, 0]


def test_two_seats_tied_at_ten_both_take_eight_and_the_next_open_place_is_third():
    """A same-turn tie takes the place in full for each and uses up two places: the next seat to arrive takes 2."""
    picks = [
        ["uramaki_5", "uramaki_5"],
        ["uramaki_5", "uramaki_5"],
        [FILL, FILL, "uramaki_3", "uramaki_3", "uramaki_4"],
    ]
    state = played_round(picks, stop_after=2)
    assert state.book.turn_progress[0].points == (8, 8, 0) and state.book.turn_progress[0].used == 2
    assert uramaki_points(played_round(picks)) == [8, 8, 2]


def test_a_seat_that_scored_counts_from_zero_and_takes_a_later_place():
    """After scoring, a seat's new uramaki count from zero: 10 more takes second place; leftovers take third."""
    picks = [["uramaki_5", "uramaki_5", "uramaki_4", "uramaki_3", "uramaki_3"], ["uramaki_4"], []]
    state = played_round(picks, stop_after=4)
    assert names(state.game, state.played[0]) == ["uramaki_4", "uramaki_3"]  # 7: not yet
    assert uramaki_points(played_round(picks)) == [13, 2, 0]


def test_when_every_place_is_gone_nothing_more_scores_or_is_discarded():
    """Three places taken: a fourth arrival at 10 scores nothing, keeps its uramaki, and round end adds nothing."""
    picks = [
        ["uramaki_5", "uramaki_5", FILL, FILL, "uramaki_4", "uramaki_3", "uramaki_3"],
        [FILL, FILL, "uramaki_5", "uramaki_5"],
        [FILL, FILL, "uramaki_4", "uramaki_4", "uramaki_3"],
    ]
    state = played_round(picks, stop_after=5)
    g = state.game
    assert state.book.turn_progress[0].used == 3
    assert sorted(names(g, state.book.discarded)) == ["uramaki_3"] + ["uramaki_4"] * 2 + ["uramaki_5"] * 4
    state = played_round(picks)  # seat 0 reaches 10 on turn 7: too late
    assert uramaki_points(state) == [8, 5, 2]
    assert [c for c in names(g, state.history[0].tables[0]) if c != FILL] == ["uramaki_4", "uramaki_3", "uramaki_3"]


def test_round_end_leftovers_take_the_open_places_in_order_of_icons():
    """No seat reaches 10: at round end 9, 8 and 3 icons take 8, 5 and 2."""
    picks = [["uramaki_5", "uramaki_4"], ["uramaki_5", "uramaki_3"], ["uramaki_3"]]
    assert uramaki_points(played_round(picks)) == [8, 5, 2]


def test_round_end_ties_score_in_full_and_use_up_as_many_places_as_tied_seats():
    """Leftovers tied for second both take 5 and use up second and third: the next seat gets nothing."""
    picks = [["uramaki_4", "uramaki_4"], ["uramaki_5"], ["uramaki_5"], ["uramaki_3"]]
    assert uramaki_points(played_round(picks)) == [8, 5, 5, 0]


def test_round_end_leftovers_take_only_the_places_left_after_the_turns():
    """A place taken during the round is gone at round end: the leftovers start at second place."""
    picks = [["uramaki_5", "uramaki_5"], ["uramaki_4"], ["uramaki_4"]]
    assert uramaki_points(played_round(picks)) == [8, 5, 5]


def test_a_race_with_split_ties_shares_the_places_covered(tmp_path):
    """ties: split: two seats level on one turn share first and second place (8 + 5 = 13: 6 each)."""
    split = tmp_path / "split.yaml"
    split.write_text(RACE.read_text(encoding="utf-8").replace("ties: full", "ties: split"), encoding="utf-8")
    rule = load_ruleset(str(split)).round_rules[0]
    g = game(3)
    t = Tableau.from_cards(g.num_card_types, [idx(g, "uramaki_5", "uramaki_5"), idx(g, "uramaki_5", "uramaki_5"), []])
    progress, leaving = rule.turn_scoring.turn_end(t, rule.turn_scoring.start(3))
    assert (progress.used, progress.points) == (2, (6, 6, 0))
    assert leaving == [tuple(idx(g, "uramaki_5", "uramaki_5"))] * 2 + [()]


def test_the_race_points_are_the_rule_s_in_the_score_sheet_and_the_log():
    """The points taken at turn end are the uramaki rule's in the round's scores, the sheet and the log record."""
    state = played_round([["uramaki_5", "uramaki_5"], [], []])
    while not state.is_terminal():
        state.apply_actions([state.legal_actions(s)[0] for s in state.acting_seats()])
    sheet = state.score_sheet()
    assert sheet.rounds[0].by_rule()["uramaki"] == [8, 0, 0]
    record = record_game(state, ["a", "b", "c"])
    assert record["rules"]["uramaki"] == sheet.rule_points["uramaki"]
    assert record["rules"]["uramaki"][0] >= 8
    assert record["rounds"][0]["scores"] == sheet.round_points[0]


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32), bots=st.integers(0, 2**32))
def test_every_card_is_accounted_for_at_every_step_of_a_race(players, seed, bots):
    """Random play with a race: every card is always in a hand, on a table, in the deck or discarded."""
    g = game(players)
    state = g.new_initial_state(seed)
    everything = sorted(g.deck)
    rngs = [random.Random(bots + s).random for s in range(players)]
    while not state.is_terminal():
        assert state.all_cards() == everything
        state.apply_actions([state.sample_action(s, rngs[s]) for s in state.acting_seats()])
    assert state.all_cards() == everything


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_and_greedy_play_of_a_race_never_raises_and_replays_clean(players):
    """Whole games of the race ruleset by random and greedy bots finish, score the race and replay clean."""
    g = game(players)
    race_points = 0
    for seed in range(8):
        bots = ["greedy", "random"] * 3
        state = play_game(g, seed, bots[:players])
        assert state.is_terminal()
        sheet = state.score_sheet()
        race_points += sum(sheet.rule_points["uramaki"])
        assert sum(sheet.totals) == sum(sum(pts) for pts in sheet.rule_points.values())
        assert replay_record(race_ruleset(), record_game(state, bots[:players])) == []
    assert race_points > 0


ICONS = {"uramaki_3": 3, "uramaki_4": 4, "uramaki_5": 5}


def race_by_hand(turns: list[dict], seats: int) -> list[int]:
    """The uramaki rulings worked out from the picks alone, written out plainly."""
    icons, points, places = [0] * seats, [0] * seats, [8, 5, 2]
    used = 0

    def take(contenders: list[int]) -> list[int]:
        nonlocal used
        scored = []
        for v in sorted({icons[s] for s in contenders}, reverse=True):
            if used >= len(places):
                break
            group = [s for s in contenders if icons[s] == v]
            for s in group:
                points[s] += places[used]
            used += len(group)
            scored += group
        return scored

    for turn in turns:
        for s, picked in enumerate(turn["picks"]):
            icons[s] += sum(ICONS.get(c, 0) for c in picked)
        for s in take([s for s in range(seats) if icons[s] >= 10]):
            icons[s] = 0
    take([s for s in range(seats) if icons[s] > 0])
    return points


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_the_race_scores_every_round_as_the_rulings_say(players, seed):
    """In random games, each round's uramaki points are those the rulings give from the picks, turn by turn."""
    state = game(players).new_initial_state(seed)
    state.play_out([random.Random(seed + s).random for s in range(players)])
    record = record_game(state, ["random"] * players)
    for rnd, scoring in zip(record["rounds"], state.score_sheet().rounds):
        assert scoring.by_rule()["uramaki"] == race_by_hand(rnd["turns"], players)


def test_show_says_the_race_in_plain_words():
    """`show` explains the race: counting, threshold, places, discarding, ties and leftovers."""
    text = describe_ruleset(race_ruleset())
    assert (
        "  uramaki: A race: cards of the uramaki colour (Uramaki (3), Uramaki (4), Uramaki (5)) count: "
        "Uramaki (3) 3, Uramaki (4) 4, Uramaki (5) 5. At the end of each turn, players whose cards count 10 "
        "or more take the next open places (8 / 5 / 2), most first, and discard those cards; they count again "
        "from zero and may take a later place. Players level on the same turn each take the place in full. "
        "Tied players use up as many places as there are of them; when none is left, nothing more scores. "
        "At round end, players with such cards left take the open places in order of what they count.\n"
    ) in text


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("threshold: 10", "threshhold: 10", "unknown key 'threshhold'"),
        ("kind: race", "kind: rase", "did you mean 'race'?"),
        ("cards: {group: uramaki}", "cards: {group: uramako}", "did you mean 'uramaki'?"),
    ],
)
def test_a_mistake_in_a_race_is_located_with_a_suggestion(tmp_path, old, new, message):
    """A wrong key, kind or name in a race rule is one located line with a did-you-mean, and exit 1."""
    bad = tmp_path / "bad.yaml"
    text = RACE.read_text(encoding="utf-8")
    bad.write_text(text.replace(old, new), encoding="utf-8")
    line = next(n for n, t in enumerate(text.splitlines(), 1) if old in t)
    result = CliRunner().invoke(app, ["validate", str(bad)])
    assert result.exit_code == 1
    out = result.output.strip()
    assert len(out.splitlines()) == 1 and out.startswith(f"{bad}:{line}:") and message in out, out


def test_a_race_at_game_end_is_refused_where_it_says_so(tmp_path):
    """A race scores during the rounds: when: game_end is a located error."""
    bad = tmp_path / "bad.yaml"
    text = RACE.read_text(encoding="utf-8").replace("    kind: race\n", "    kind: race\n    when: game_end\n")
    bad.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(app, ["validate", str(bad)])
    assert result.exit_code == 1
    assert result.output.strip() == (f"{bad}:20:11: error: a race scores during the rounds: its when must be round_end")


def test_score_refuses_a_table_for_a_race_in_one_line():
    """`score` on a table of rounds says which rule needs the turns and why, in one line, exit 1."""
    table = {"rounds": [[["uramaki_5"], ["salmon"]]] * 3}
    result = CliRunner().invoke(app, ["score", str(RACE), "-"], input=json.dumps(table))
    assert result.exit_code == 1 and result.stdout == ""
    assert result.stderr == (
        "<stdin>: error: rule 'uramaki' needs the turns, not only the tables: it awards places at the end of "
        "each turn (a race to 10); give a game log line (as --log writes it) instead of a table\n"
    )


def test_score_scores_a_game_log_line_through_replay():
    """`score` takes game log lines for a race, replays each and prints its sheet; a changed score is refused."""
    state = play_game(game(3), 5, ["greedy", "random", "random"])
    record = record_game(state, ["greedy", "random", "random"])
    result = CliRunner().invoke(app, ["score", str(RACE), "-", "--rules"], input=json.dumps(record) + "\n")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == state.score_sheet().to_json()
    record["totals"][0] += 1
    result = CliRunner().invoke(app, ["score", str(RACE), "-"], input=json.dumps(record))
    assert result.exit_code == 1 and result.stdout == ""
    totals = state.score_sheet().totals
    assert result.stderr == (
        f"<stdin>: error: totals: {record['totals']} in the log, the rules give {totals}\n"
        "note: the rules score these games otherwise than when they were logged;"
        " --rescore scores them by the rules as they are now\n"
    )


def test_score_takes_a_game_log_line_of_any_ruleset():
    """A log line of Sushi Go! is scored like its table: the same sheet."""
    from strategies import bundled_game

    g = bundled_game("sushi-go", 2)
    state = play_game(g, 3, ["random", "random"])
    record = record_game(state, ["random", "random"])
    result = CliRunner().invoke(app, ["score", "sushi-go", "-", "--rules"], input=json.dumps(record))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == state.score_sheet().to_json()


def test_the_scoring_pipeline_refuses_to_score_a_race_from_tables_alone():
    """score_game of a race ruleset raises the one-line reason instead of scoring the tables without the turns."""
    from ruledraft.engine.scoresheet import PlayedGame, score_game
    from ruledraft.errors import InputError

    state = played_round([["uramaki_5", "uramaki_5"], [], []])
    with pytest.raises(InputError, match=r"^rule 'uramaki' needs the turns, not only the tables: .*\(a race to 10\)"):
        score_game(race_ruleset(), PlayedGame.from_history(3, state.history))


def test_the_board_counts_the_race_points_taken_this_round():
    """`play`'s board shows a seat's race place in its round points as soon as the turn ends."""
    from ruledraft.engine.board import board

    state = played_round([["uramaki_5", "uramaki_5", "salmon"], [], []], stop_after=3)
    # seat 0: 8 for the race and a salmon; the others: three salmon each
    assert [b.round_points for b in board(state)] == [8 + 2, 6, 6]
    assert state.round_points_now() == [10, 6, 6]
