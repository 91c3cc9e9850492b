"""Running many games (ruledraft.play.runner): seeds, reproducibility, several processes, statistics."""

from __future__ import annotations

import gc
import re
import statistics
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import BUNDLED_RULESETS, bundled_game, bundled_ruleset

from ruledraft.engine import view as view_module
from ruledraft.engine.state import Game, derive_seed
from ruledraft.language.loading import resolve_source
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import (
    GameResult,
    Tally,
    bot_seed,
    game_seed,
    play_game,
    run_games,
    simulate,
    summarize,
    tally_games,
)

TIMING_KEYS = ("elapsed_seconds", "games_per_second")


def without_timing(summary) -> dict:
    data = summary.to_json()
    for key in TIMING_KEYS:
        data.pop(key)
    return data


def bots_for(rs, players):
    return (["greedy", "random"] + ["random"] * players)[:players]


# ---------------------------------------------------------------- seeds and single games


def test_game_and_bot_seeds_are_pure_and_distinct():
    """game_seed and bot_seed are fixed functions of their arguments (derive_seed; a game seed keeps its top 53 bits), different for different games and seats."""
    assert game_seed(1, 5) == game_seed(1, 5) == derive_seed(1, 0x5EED, 5) >> 11
    assert bot_seed(9, 2) == derive_seed(9, 0xB07, 2)
    assert len({game_seed(1, i) for i in range(200)}) == 200
    assert len({bot_seed(game_seed(1, 0), s) for s in range(5)}) == 5
    assert game_seed(1, 0) != game_seed(2, 0)


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS)
def test_a_fixed_seed_replays_the_same_game(ruleset_id):
    """Running the same game indices twice gives equal results: the same totals, winners, points per rule and log record, which replays clean."""
    rs = bundled_ruleset(ruleset_id)
    players = rs.max_players if not rs.dummy else 2
    bots = bots_for(rs, players)
    first = run_games(rs, players, 42, bots, [0, 3], log=True)
    second = run_games(rs, players, 42, bots, [0, 3], log=True)
    assert first == second
    for result in first:
        assert result.seed == game_seed(42, result.index)
        state = play_game(bundled_game(ruleset_id, players), result.seed, bots)
        assert tuple(state.totals()) == result.totals
        assert record_game(state, bots) == result.record
        assert replay_record(rs, result.record) == []
    assert first[0].totals != first[1].totals or first[0].record != first[1].record


# ---------------------------------------------------------------- several processes


@pytest.mark.parametrize("ruleset_id", ["sushi-go", "sushi-go-two-player-dummy"])
def test_jobs_two_gives_the_same_summary_and_logs_as_jobs_one(ruleset_id):
    """simulate with jobs=2 gives a summary equal to jobs=1 (Summary equality and to_json without timing), and hands the results over in game order."""
    rs = bundled_ruleset(ruleset_id)
    players = 3 if not rs.dummy else 2
    bots = bots_for(rs, players)
    one, two = [], []
    s1 = simulate(rs, players, 40, 5, bots, jobs=1, log=True, on_result=one.append)
    s2 = simulate(
        rs, players, 40, 5, bots, jobs=2, source=str(resolve_source(ruleset_id)), log=True, on_result=two.append
    )
    assert s1 == s2
    assert without_timing(s1) == without_timing(s2)
    assert [r.index for r in two] == list(range(40))
    assert one == two


def test_simulate_on_several_processes_needs_no_source():
    """simulate(jobs=2) without the ruleset's source works: the workers start with the compiled ruleset and read no file."""
    rs = bundled_ruleset("sushi-go")
    bots = ["random", "greedy"]
    assert simulate(rs, 2, 12, 0, bots, jobs=2) == simulate(rs, 2, 12, 0, bots, jobs=1)


# ---------------------------------------------------------------- statistics


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS)
def test_win_shares_sum_to_one_and_rule_means_add_up(ruleset_id):
    """Win shares over the player seats sum to 1 (the dummy seat wins nothing), and each seat's mean points per rule add up to its mean score."""
    rs = bundled_ruleset(ruleset_id)
    players = 3 if not rs.dummy else 2
    bots = bots_for(rs, players)
    summary = simulate(rs, players, 30, 2, bots)
    assert summary.games == 30 and summary.players == players
    assert len(summary.seats) == rs.num_seats(players)
    assert sum(s.win_share for s in summary.seats[:players]) == pytest.approx(1.0)
    assert sum(s.wins for s in summary.seats[:players]) == pytest.approx(30)
    for seat in summary.seats[players:]:
        assert seat.bot == "dummy" and seat.wins == 0 and seat.win_share == 0
    for seat in summary.seats:
        assert set(seat.rules) == set(rs.rule_ids)
        assert sum(seat.rules.values()) == pytest.approx(seat.mean)
        assert seat.min <= seat.mean <= seat.max


def test_a_shared_win_counts_fractionally():
    """A win shared by two seats gives each half a win; shares and rule means follow the results exactly."""
    rs = bundled_ruleset("sushi-go")
    rules = rs.rule_ids

    def points(values):
        return {rid: tuple(values if rid == "tempura" else (0, 0, 0)) for rid in rules}

    results = [
        GameResult(index=1, seed=0, totals=(10, 10, 5), winners=(0, 1), rule_points=points((10, 10, 5))),
        GameResult(index=0, seed=0, totals=(20, 0, 5), winners=(0,), rule_points=points((20, 0, 5))),
        GameResult(index=2, seed=0, totals=(5, 5, 5), winners=(0, 1, 2), rule_points=points((5, 5, 5))),
    ]
    summary = summarize(rs, 3, 0, ["a", "b", "c"], results)
    assert [s.wins for s in summary.seats] == pytest.approx([1 + 1 / 2 + 1 / 3, 1 / 2 + 1 / 3, 1 / 3])
    assert sum(s.win_share for s in summary.seats) == pytest.approx(1.0)
    assert [s.mean for s in summary.seats] == pytest.approx([35 / 3, 5, 5])
    assert [s.rules["tempura"] for s in summary.seats] == pytest.approx([35 / 3, 5, 5])
    assert [(s.min, s.max) for s in summary.seats] == [(5, 20), (0, 10), (5, 5)]
    assert [s.stdev for s in summary.seats] == pytest.approx(
        [statistics.stdev([20, 10, 5]), statistics.stdev([0, 10, 5]), 0.0]
    )
    assert [s.bot for s in summary.seats] == ["a", "b", "c"]


def test_summary_equality_ignores_elapsed_time():
    """Two summaries differing only in elapsed time are equal; to_json differs only in the timing keys."""
    rs = bundled_ruleset("sushi-go")
    results = run_games(rs, 2, 0, ["random", "random"], range(3))
    a = summarize(rs, 2, 0, ["random", "random"], results, elapsed=1.0)
    b = summarize(rs, 2, 0, ["random", "random"], results, elapsed=2.0)
    assert a == b
    assert without_timing(a) == without_timing(b)
    assert a.to_json()["elapsed_seconds"] != b.to_json()["elapsed_seconds"]


# ---------------------------------------------------------------- tallies


@pytest.mark.parametrize("ruleset_id", ["sushi-go", "sushi-go-two-player-dummy"])
def test_jobs_two_without_a_log_gives_the_same_summary_as_jobs_one(ruleset_id):
    """Without a log only tallies travel between processes; the summary is still the one jobs=1 gives."""
    rs = bundled_ruleset(ruleset_id)
    players = 4 if not rs.dummy else 2
    bots = bots_for(rs, players)
    s1 = simulate(rs, players, 60, 9, bots, jobs=1)
    s2 = simulate(rs, players, 60, 9, bots, jobs=2, source=str(resolve_source(ruleset_id)))
    logged = simulate(rs, players, 60, 9, bots, jobs=1, log=True)
    assert s1 == s2 == logged


@given(cuts=st.lists(st.integers(0, 24), max_size=4))
@settings(max_examples=15, deadline=None)
def test_tallies_of_parts_merge_into_the_tally_of_the_whole(cuts):
    """Games tallied in parts and merged in any order give exactly the summary of one tally of them all, and of summarize over their results."""
    import pickle

    rs = bundled_ruleset("sushi-go")
    bots = ["greedy", "random", "random"]
    edges = sorted({0, 24, *cuts})
    parts = [tally_games(rs, 3, 7, bots, range(a, b)) for a, b in zip(edges, edges[1:])]
    merged = Tally.empty(3, rs.rule_ids)
    for part in reversed(parts):
        merged.merge(pickle.loads(pickle.dumps(part)))  # as a worker process hands it over
    whole = tally_games(rs, 3, 7, bots, range(24)).summary(rs.id, 3, 7, bots)
    assert merged.summary(rs.id, 3, 7, bots) == whole
    assert summarize(rs, 3, 7, bots, run_games(rs, 3, 7, bots, range(24))) == whole


def test_a_tally_counts_games_still_buffered_when_it_is_read_or_sent():
    """Points buffered for bulk summing are folded in before a summary is read and before the tally is pickled."""
    import pickle

    rs = bundled_ruleset("sushi-go")
    game = Game(rs, 2)
    tally = Tally.empty(2, rs.rule_ids)
    states = [play_game(game, game_seed(3, i), ["random", "random"]) for i in range(5)]
    for state in states:
        tally.add_state(state)
    sent = pickle.loads(pickle.dumps(tally))
    expected = [
        sum(st.rule_points["maki"][0] for st in states) / 5,
        sum(st.rule_points["maki"][1] for st in states) / 5,
    ]
    assert [s.rules["maki"] for s in sent.summary(rs.id, 2, 3, ["random"] * 2).seats] == pytest.approx(expected)
    assert [s.mean for s in tally.summary(rs.id, 2, 3, ["random"] * 2).seats] == pytest.approx(
        [sum(st.totals()[k] for st in states) / 5 for k in range(2)]
    )


# ---------------------------------------------------------------- the garbage collector


def test_steady_heap_leaves_the_collector_as_it_found_it():
    """steady_heap freezes and raises the young-object threshold only while games run, restores both after an error, and keeps a heap the caller froze itself frozen."""
    from ruledraft.play.runner import steady_heap

    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    with pytest.raises(RuntimeError):
        with steady_heap():
            assert gc.get_freeze_count() > 0 and gc.get_threshold()[0] >= 10_000
            raise RuntimeError
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with steady_heap():
            pass
        assert gc.get_freeze_count() > frozen // 2 > 0  # still frozen (a few frozen objects may have died)
    finally:
        gc.unfreeze()


def test_steady_heap_used_by_overlapping_threads_restores_the_threshold_once():
    """Two threads inside steady_heap at once: the threshold they found is back when both have left."""
    from ruledraft.play.runner import steady_heap

    before = gc.get_threshold()
    inside, leave = threading.Barrier(2), threading.Event()

    def run():
        with steady_heap():
            inside.wait()
            leave.wait()

    threads = [threading.Thread(target=run) for _ in range(2)]
    for t in threads:
        t.start()
    leave.set()
    for t in threads:
        t.join()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_tallies_of_different_tables_do_not_merge():
    """Merging a tally of three seats into one of four is refused rather than truncated."""
    rs = bundled_ruleset("sushi-go")
    with pytest.raises(ValueError):
        Tally.empty(4, rs.rule_ids).merge(Tally.empty(3, rs.rule_ids))


# ---------------------------------------------------------------- seeds within 53 bits, workers that fail


@given(seed=st.integers(0, 2**53 - 1), index=st.integers(0, 10_000_000))
def test_game_seeds_fit_in_53_bits(seed, index):
    """Every game seed lies within 0..2**53 - 1, so a JSON reader using doubles (jq, JavaScript) keeps it exact."""
    assert 0 <= game_seed(seed, index) <= 2**53 - 1
    assert float(game_seed(seed, index)) == game_seed(seed, index)


@pytest.mark.parametrize("seed", [-1, 2**53])
def test_simulate_refuses_a_seed_outside_53_bits(seed):
    """simulate refuses a simulation seed below 0 or above 2**53 - 1 with ValueError naming the range."""
    with pytest.raises(ValueError, match=r"^the seed must be within 0\.\.9007199254740991, not "):
        simulate(bundled_ruleset("sushi-go"), 2, 2, seed, ["random", "random"])


class _Failing:
    """A bot that breaks on its first move, in whatever process plays it."""

    name = "failing"

    def __init__(self, seed):
        pass

    def act(self, state, seat):
        raise RuntimeError("no move today")


class _Vanishing(_Failing):
    """A bot whose process dies under it (as if killed from outside)."""

    def act(self, state, seat):
        import os
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


@pytest.fixture
def broken_bots(monkeypatch):
    """The two broken bots registered as if they were built in: a registered bot from
    outside that raises is a BotFailure of its own (test_bot_plugins.py), an error of
    ruledraft's own code an error of the worker."""
    from ruledraft.play import agents

    monkeypatch.setattr(agents, "_OWN", agents._OWN | {_Failing, _Vanishing})
    agents.register_agent("failing", _Failing, replace=True)
    agents.register_agent("vanishing", _Vanishing, replace=True)
    yield
    agents._REGISTRY.pop("failing", None)
    agents._REGISTRY.pop("vanishing", None)


def test_a_worker_error_comes_back_as_one_message(broken_bots, capfd):
    """An exception in a worker process ends the run with WorkerError naming the worker and the error; the worker prints nothing."""
    from ruledraft.play.runner import WorkerError

    with pytest.raises(WorkerError, match=r"^worker process [12] failed: RuntimeError: no move today$"):
        simulate(bundled_ruleset("sushi-go"), 2, 50, 0, ["failing", "random"], jobs=2)
    assert capfd.readouterr().err == ""


def test_a_worker_that_dies_is_reported(broken_bots, capfd):
    """A worker process killed mid-run ends the run with WorkerError saying which signal killed it."""
    from ruledraft.play.runner import WorkerError

    with pytest.raises(WorkerError, match=r"^worker process [12] was killed by SIGKILL$"):
        simulate(bundled_ruleset("sushi-go"), 2, 50, 0, ["vanishing", "random"], jobs=2)
    assert capfd.readouterr().err == ""


def test_an_uninterrupted_summary_says_so():
    """A run that ends normally has interrupted false and games_requested equal to games in its JSON."""
    data = simulate(bundled_ruleset("sushi-go"), 2, 5, 3, ["random", "random"]).to_json()
    assert (data["games"], data["games_requested"], data["interrupted"]) == (5, 5, False)


def test_more_jobs_than_games_still_give_the_same_summary():
    """jobs=8 for 3 games plays each game once (no more workers than games) and equals jobs=1."""
    rs = bundled_ruleset("sushi-go")
    bots = ["greedy", "random"]
    assert simulate(rs, 2, 3, 4, bots, jobs=8) == simulate(rs, 2, 3, 4, bots, jobs=1)


@pytest.mark.parametrize("ruleset_id", ["sushi-go", "sushi-go-party-master-menu", "sushi-go-two-player-dummy"])
def test_an_agent_that_promises_the_first_legal_move_is_not_asked_and_plays_it(ruleset_id):
    """An agent whose class says ``first_legal`` (the first bot's) is never asked: the loop
    plays its seat's first legal move, picks and card effects' decisions alike, and the
    games are those of an agent asked each time that answers the same. A subclass with an
    ``act`` of its own that does not say it again is asked."""
    from ruledraft.play.agents import FirstAgent

    class Promised(FirstAgent):
        first_legal = True

        def act(self, view, seat):
            raise AssertionError("asked, though it promised the first legal move")

    asked: list[int] = []

    class Asked(FirstAgent):  # the promise is its parent's: it is asked
        def act(self, view, seat):
            asked.append(seat)
            return view.legal_actions()[0]

    rs = bundled_ruleset(ruleset_id)
    game = Game(rs, rs.min_players if rs.dummy else 4)
    others = ["greedy", "random", "value"][: game.num_players - 1]
    decided = 0
    for i in range(6):
        seed = game_seed(8, i)
        names = ["first", *others]
        promised = play_game(game, seed, names, [Promised(), *_agents(others, seed)])
        asked_game = play_game(game, seed, names, [Asked(), *_agents(others, seed)])
        assert [r.actions for r in promised.history] == [r.actions for r in asked_game.history]
        assert [r.decisions for r in promised.history] == [r.decisions for r in asked_game.history]
        assert promised.totals() == asked_game.totals()
        decided += sum(1 for r in promised.history for _t, s, _a in r.decisions if s == 0)
    assert decided > 0 or not rs.effects  # Master Menu's decisions were the first bot's too
    assert asked and set(asked) == {0}


def _agents(names, seed):
    """The built-in agents ``names`` for seats 1, 2, ... of the game of ``seed``, as play_game makes them."""
    from ruledraft.play.agents import make_agent
    from ruledraft.play.runner import bot_seeds

    seeds = bot_seeds(seed, len(names) + 1)
    return [make_agent(name, s) for name, s in zip(names, seeds[1:])]


@pytest.mark.parametrize("bot", ["value", "greedy"])
@pytest.mark.parametrize(
    ("rid", "chosen"),
    [("sushi-go", 10**6), ("sushi-go", None), ("sushi-go", "held"), ("sushi-go-party-master-menu", 10**6)],
)
def test_a_built_in_bots_illegal_pick_ends_the_game_with_a_failure_naming_it(monkeypatch, rid, chosen, bot):
    """A built-in bot's pick is played through the procedure's own check, not checked before: an illegal one (out of range, not an int, a card not held) still ends play_game with the BotFailure naming the bot, its seat, its choice and the game's seed, and leaves nothing of the game behind once the failure is dropped."""
    from ruledraft.play import agents
    from ruledraft.play.bot_specs import BotFailure

    game = bundled_game(rid, 4)
    kind = agents.ValueAgent if bot == "value" else agents.GreedyAgent
    honest = kind.pick

    def cheat(self, seat, legal, *read):
        if seat != 2:
            return honest(self, seat, legal, *read)
        if chosen == "held":  # a card the seat does not hold: the first card type not among its moves
            return next(c for c in range(game.num_card_types) if c not in legal)
        return chosen

    monkeypatch.setattr(kind, "pick", cheat)
    gc.collect()  # what earlier tests left in cycles (a failing plug-in bot's traceback) goes first
    before = dict(view_module._LIVE)
    gc.disable()  # nothing of this game may wait for the collector: no cycle holds it
    try:
        with pytest.raises(BotFailure) as caught:
            play_game(game, 5, [bot] * 4)
        message = str(caught.value)
        del caught
        assert view_module._LIVE == before
    finally:
        gc.enable()
    shown = repr(chosen) if chosen != "held" else r"\d+"
    assert re.fullmatch(rf"bot '{bot}' at seat 2 chose {shown}, not a legal action \(game seed 5\)", message)
