"""The ``ismcts`` bot: legal, reproducible, blind to what its seat cannot see, stronger than random."""

from __future__ import annotations

import random
import time

import pytest
import strategies
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.play.agents import BotSpecError, make_agent, parse_bot
from ruledraft.play.ismcts import ISMCTSAgent
from ruledraft.play.runner import simulate


@settings(max_examples=12, deadline=None)
@given(st.sampled_from(strategies.bundled_without_effects()), strategies.game_seeds(), st.integers(0, 2**32 - 1))
def test_ismcts_plays_only_legal_moves_on_every_bundled_ruleset(rid, seed, bot_seed):
    """Every move an ismcts bot makes, at every seat of a whole game, is a legal action."""
    rs = strategies.bundled_ruleset(rid)
    game = strategies.bundled_game(rid, rs.min_players)
    state = game.new_initial_state(seed)
    bots = [ISMCTSAgent(bot_seed + s, iterations=2) for s in range(game.num_players)]
    while not state.is_terminal():
        actions = [bots[s].act(state, s) for s in state.acting_seats()]
        for s, a in enumerate(actions):
            assert a in state.legal_actions(s)
        state.apply_actions(actions)
    assert state.is_terminal()


@pytest.mark.parametrize("rid", strategies.bundled_without_effects())
@pytest.mark.parametrize("objective", ["margin", "win"])
def test_ismcts_move_is_the_same_for_the_same_seed_and_budget(rid, objective):
    """Two bots with the same seed and iteration budget choose the same move in the same state."""
    rs = strategies.bundled_ruleset(rid)
    state = strategies.midgame(rid, rs.min_players, 7, 1)
    moves = {ISMCTSAgent(5, iterations=30, objective=objective).act(state.clone(), 0) for _ in range(3)}
    assert len(moves) == 1
    assert moves <= set(state.legal_actions(0))


def test_ismcts_results_are_the_same_for_any_number_of_jobs():
    """A simulation with ismcts seats gives the same summary on one process and on two."""
    rs = strategies.bundled_ruleset("sushi-go")
    bots = ["ismcts:iterations=4", "random"]
    one = simulate(rs, 2, 4, 11, bots, jobs=1)
    two = simulate(rs, 2, 4, 11, bots, jobs=2)
    assert one == two


@pytest.mark.parametrize("rid", strategies.bundled_without_effects())
@pytest.mark.parametrize("turns", [0, 2])
def test_ismcts_does_not_peek_at_hidden_cards(rid, turns):
    """A state and a copy with everything the seat cannot see dealt again give the same move."""
    rs = strategies.bundled_ruleset(rid)
    players = rs.min_players
    for seed in range(4):
        state = strategies.midgame(rid, players, seed, turns)
        seat = seed % players
        other = state.resample_hidden(seat, random.Random(seed + 100).random)
        assert other.hands[seat] == state.hands[seat]
        a = ISMCTSAgent(3, iterations=25).act(state, seat)
        b = ISMCTSAgent(3, iterations=25).act(other, seat)
        assert a == b


def test_ismcts_beats_random_in_a_small_match():
    """Against three random bots over 40 four-player games, ismcts wins clearly more than its fair share."""
    rs = strategies.bundled_ruleset("sushi-go")
    summary = simulate(rs, 4, 40, 1, ["ismcts:iterations=40"] + ["random"] * 3, jobs=2)
    assert summary.seats[0].win_share > 0.4


def test_ismcts_takes_its_options_from_the_spec():
    """The spec's options reach the bot; the defaults are 400 iterations, the margin objective, card-value roll-outs."""
    spec = parse_bot("ismcts:iterations=7:objective=win:c=1.5")
    bot = spec.make(1)
    assert (bot.iterations, bot.c, bot.ms) == (7, 1.5, 0.0)
    default = make_agent("ismcts", 1)
    assert (default.iterations, default.ms, default.c, default.rollout) == (400, 0.0, 0.7, "values")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("ismcts:iterations=-1", "bot 'ismcts:iterations=-1': option iterations=-1: must be at least 1"),
        ("ismcts:iterations=0", "bot 'ismcts:iterations=0': option iterations=0: must be at least 1"),
        ("ismcts:iterations=lots", "bot 'ismcts:iterations=lots': option iterations=lots: expected a whole number"),
        ("ismcts:ms=-5", "bot 'ismcts:ms=-5': option ms=-5: must be at least 0"),
        (  # a tree of a million nodes holds about a gigabyte
            "ismcts:iterations=1000001",
            "bot 'ismcts:iterations=1000001': option iterations=1000001: must be at most 1,000,000",
        ),
        ("ismcts:ms=60000.5", "bot 'ismcts:ms=60000.5': option ms=60000.5: must be at most 60,000"),
        ("ismcts:c=inf", "bot 'ismcts:c=inf': option c=inf: expected a finite number"),
        ("ismcts:objective=lose", "bot 'ismcts:objective=lose': option objective=lose: expected margin or win"),
        (
            "ismcts:depth=3",
            "bot 'ismcts:depth=3': unknown option 'depth' (options of ismcts: iterations, ms, objective, c, rollout, kernel)",
        ),
    ],
)
def test_bad_ismcts_options_are_one_line_errors(spec, message):
    """A bad ismcts option is refused when parsed, and by simulate in one line with exit status 2."""
    with pytest.raises(BotSpecError) as e:
        parse_bot(spec)
    assert str(e.value) == message
    result = CliRunner().invoke(app, ["simulate", "sushi-go", "--players", "4", "--games", "1", "--bots", spec, "-q"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"error: {message}"]


def test_simulate_notes_that_a_time_budget_is_not_reproducible():
    """simulate with ismcts:ms=... prints one note saying the results cannot be reproduced."""
    result = CliRunner().invoke(
        app, ["simulate", "sushi-go", "--players", "2", "--games", "1", "--bots", "ismcts:ms=1,random", "-q"]
    )
    assert result.exit_code == 0, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note:")]
    assert notes == [
        "note: ismcts:ms=1 searches for a time, not a number of iterations: its moves depend on the machine's "
        "speed and load, so these results cannot be reproduced (iterations=N can)"
    ]


def test_simulate_prints_no_note_for_an_iteration_budget():
    """simulate with ismcts at an iteration budget prints no note about reproducibility."""
    result = CliRunner().invoke(
        app, ["simulate", "sushi-go", "--players", "2", "--games", "1", "--bots", "ismcts:iterations=2,random", "-q"]
    )
    assert result.exit_code == 0, result.output
    assert "note:" not in result.output


def test_bots_lists_ismcts_with_its_options_and_defaults():
    """`ruledraft bots` lists ismcts with each option, its type and its default."""
    result = CliRunner().invoke(app, ["bots"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("ismcts: "))
    assert lines[at + 1 : at + 7] == [
        "  iterations=integer (default 400, at most 1,000,000): search iterations per decision",
        "  ms=number (default 0.0, at most 60,000): time per decision in milliseconds instead of iterations (0: off; not"
        " reproducible)",
        "  objective=margin|win (default margin): margin (own score minus best other) or win",
        "  c=number (default 0.7): UCB exploration constant",
        "  rollout=values|random (default values): values (planner's card values) or random roll-outs",
        "  kernel=auto|yes|no (default auto): value roll-outs compiled: auto (if in the cache), yes or no",
    ]


def test_the_kernel_rollouts_are_loaded_once_when_two_threads_ask_together(monkeypatch):
    """A server's table readying the roll-out in a thread and a bot asking for it meanwhile load it once, and get the same."""
    import threading

    from ruledraft.play import ismcts

    loads: list[int] = []
    started = threading.Event()

    def slow_load(game, compile):
        loads.append(1)
        started.set()
        time.sleep(0.2)
        return object()

    monkeypatch.setattr(ismcts, "_load_rollouts", slow_load)
    monkeypatch.setattr(ismcts, "_rollouts", {})
    game = strategies.bundled_game("sushi-go", 3)
    got: list[object] = []
    first = threading.Thread(target=lambda: got.append(ismcts.kernel_rollouts(game, compile=True)))
    first.start()
    started.wait(5)
    got.append(ismcts.kernel_rollouts(game, compile=True))
    first.join(5)
    assert loads == [1] and len(got) == 2 and got[0] is got[1]


def test_ismcts_alone_in_a_game_of_one_plays_for_its_score():
    """With no other seat that can win, the margin is the seat's own score: a game of one plays to its
    end (it ended in an internal error), a better final score is a larger reward, and simulate runs it."""
    from paths import DATA

    from ruledraft.engine.state import Game
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.runner import play_game

    path = DATA / "kernel" / "solo-race.yaml"
    game = Game(load_ruleset(str(path)), 1)
    bot = ISMCTSAgent(seed=1, iterations=20)
    assert bot._rewards_of(game, [9], [0]) == [9.0] and bot._rewards_of(game, [4], [0]) == [4.0]
    state = play_game(game, 5, ["ismcts:iterations=20:kernel=no"])
    assert state.is_terminal() and state.totals()[0] >= 0
    result = CliRunner().invoke(
        app, ["simulate", str(path), "--players", "1", "--games", "2", "--bots", "ismcts:iterations=10", "--json"]
    )
    assert result.exit_code == 0, result.output
