"""Tournaments (``ruledraft.lab.tournament``, ``ruledraft tournament``): line-ups, seatings, the same deals, shares, ratings."""

from __future__ import annotations

import inspect
import json
from collections import Counter

import pytest
from typer.testing import CliRunner

import ruledraft
from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.lab.tournament import TournamentWork, _places, _quantile, lineups, run_tournament, seatings
from ruledraft.language.loading import load_ruleset
from ruledraft.play.executor import ShippedRuleset
from ruledraft.play.runner import game_seed, play_game

runner = CliRunner()


@pytest.fixture(scope="module")
def sushi():
    return load_ruleset("sushi-go")


def without_times(result: dict) -> dict:
    """The figures that must not depend on where the games ran (the times do)."""
    out = {k: v for k, v in result.items() if k not in ("seconds", "signal")}
    out["ranking"] = [{k: v for k, v in r.items() if not k.startswith("decision_ms")} for r in result["ranking"]]
    return out


def test_lineups_are_every_mixed_multiset():
    """Two bots at four seats make three line-ups (1-3, 2-2, 3-1); three bots make C(6,4) - 3 = 12."""
    assert lineups(["a", "b"], 4) == [("a", "a", "a", "b"), ("a", "a", "b", "b"), ("a", "b", "b", "b")]
    assert len(lineups(["a", "b", "c"], 4)) == 12
    assert lineups(["a", "a"], 3) == [("a", "a", "a")]


def test_seatings_turn_the_line_up_round_the_table_once_each():
    """Each bot sits at every seat equally often; a line-up that repeats when turned has fewer seatings."""
    assert seatings(("a", "b", "b", "b")) == [
        ("a", "b", "b", "b"),
        ("b", "b", "b", "a"),
        ("b", "b", "a", "b"),
        ("b", "a", "b", "b"),
    ]
    assert seatings(("a", "b", "a", "b")) == [("a", "b", "a", "b"), ("b", "a", "b", "a")]
    for seating in zip(*seatings(("a", "a", "b", "c"))):
        assert Counter(seating) == Counter({"a": 2, "b": 1, "c": 1})


def test_places_put_winners_first_then_scores():
    """Winners share place 0 (a tie-break winner beats a seat with the same score); the rest go by score."""
    assert _places([30, 40, 40, 10], [1, 2]) == (2, 0, 0, 3)
    assert _places([30, 30, 20], [0]) == (0, 1, 2)


def test_quantile_reads_the_bins():
    """The median of 1, 2, 3 decisions in three bins is the middle bin's centre."""
    bins = Counter({10: 1, 20: 1, 30: 1})
    assert _quantile(bins, 0.5) == pytest.approx(1e-7 * 1.01**20.5)
    assert _quantile(Counter(), 0.5) is None


def test_every_seating_plays_simulates_deals(sushi):
    """Game i of a tournament is deal i // T at seating i % T: simulate's game with that seed and those seats."""
    tables = seatings(("greedy", "first", "first"))
    work = TournamentWork(ShippedRuleset(sushi), 3, 5, tables, deals=2)
    chunk = work.play(0, 6)
    assert chunk.end == 6 and sum(chunk.tally.games) == 6
    game = Game(sushi, 3)
    for i, (table, places) in enumerate(chunk.records):
        assert table == i % 3
        state = play_game(game, game_seed(5, i // 3), tables[table])
        assert places == _places(state.totals(), state.winners)


def test_shares_add_up_and_the_stronger_bot_ranks_first(sushi):
    """Every game's wins add to one; greedy beats random at two players, its interval above the fair half and its rating higher."""
    result = run_tournament(sushi, ["random", "greedy"], 2, 60, seed=3)
    assert result["games"] == result["requested"] == 60  # one line-up, two seatings, 30 deals each
    ranking = {r["bot"]: r for r in result["ranking"]}
    assert sum(r["wins"] for r in ranking.values()) == pytest.approx(60)
    assert result["ranking"][0]["bot"] == "greedy"
    assert ranking["greedy"]["win_share_interval"][0] > 0.5
    assert ranking["greedy"]["rating"]["ordinal"] > ranking["random"]["rating"]["ordinal"]
    assert ranking["greedy"]["rating"]["mu"] > 25 > ranking["random"]["rating"]["mu"]


def test_every_decision_is_timed(sushi):
    """Four players hold 8 cards for 3 rounds (the rulebook), the last card of a round taking itself: 21 decisions per seat and game, each timed."""
    result = run_tournament(sushi, ["random", "first"], 4, 4, seed=0)
    for r in result["ranking"]:
        assert r["decisions"] == 3 * 7 * r["seat_games"]
        assert 0 < r["decision_ms_median"] <= r["decision_ms_p95"]


def test_two_jobs_give_the_same_figures(sushi):
    """Worker processes give the shares and ratings of one process (the games and the rating order are fixed)."""
    one = run_tournament(sushi, ["random", "first", "greedy"], 3, 6, seed=9, jobs=1)
    two = run_tournament(sushi, ["random", "first", "greedy"], 3, 6, seed=9, jobs=2)
    assert without_times(one) == without_times(two)
    assert one["games"] == 7 * 3 * 2  # 7 line-ups, 3 seatings each, 2 deals


def test_api_takes_a_bundled_id_and_bot_text():
    """`ruledraft.tournament` is the command's JSON, with the ruleset named and the bots as --bots text."""
    result = ruledraft.tournament("sushi-go", "random,first", players=2, games=2, seed=1)
    assert result["ruleset"] == "sushi-go" and result["games"] == 2
    assert {r["bot"] for r in result["ranking"]} == {"random", "first"}
    assert "signal" not in result


def test_command_prints_the_ranking_and_json():
    """`ruledraft tournament` prints a row per bot and line-up; --json is the API's document."""
    args = ["tournament", "sushi-go", "-b", "random,first", "-p", "2", "-g", "4", "-q"]
    text = runner.invoke(app, args, env={"COLUMNS": "80"})
    assert text.exit_code == 0, text.output
    assert "random" in text.output and "first" in text.output and "4 games" in text.output
    as_json = runner.invoke(app, [*args, "--json"])
    assert as_json.exit_code == 0, as_json.output
    document = json.loads(as_json.output)
    assert without_times(document) == without_times(ruledraft.tournament("sushi-go", "random,first", 2, 4))


def test_command_readies_an_ismcts_kernel_yes_rollout_before_the_games(monkeypatch):
    """A seat's ismcts:kernel=yes has its roll-out compiled before the tournament's games,
    once, not inside a decision whose time the tournament reports."""
    from ruledraft.play import ismcts

    asked: list[tuple[str, int, bool, bool]] = []

    def rollouts(game, compile=False):
        in_a_decision = any(frame.function == "act" for frame in inspect.stack())
        asked.append((game.ruleset.id, game.num_players, compile, in_a_decision))
        return None  # no kernel: the bot rolls out on the reference engine

    monkeypatch.setattr(ismcts, "kernel_rollouts", rollouts)
    args = ["tournament", "sushi-go", "-b", "random,ismcts:kernel=yes:iterations=4", "-p", "2", "-g", "2", "-q"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    assert asked[0] == ("sushi-go", 2, True, False)  # before the games
    assert len(asked) > 1 and all(call == ("sushi-go", 2, True, True) for call in asked[1:])  # then the decisions'


@pytest.mark.parametrize(
    "args, message",
    [
        (["-b", "greedy"], "at least two different bots"),
        (["-b", "greedy,nobot"], "nobot"),
        (["-b", "greedy,random", "-p", "9"], "not 9"),
    ],
)
def test_command_refuses_bad_input(args, message):
    """One bot, an unknown bot or a player count the ruleset does not take: one line, exit 2."""
    result = runner.invoke(app, ["tournament", "sushi-go", "-q", *args])
    assert result.exit_code == 2
    assert message in result.output


def test_report_has_the_tournament_section(tmp_path):
    """--report writes a page with the ranking table and the line-ups."""
    pytest.importorskip("matplotlib")
    out = tmp_path / "rep"
    result = runner.invoke(
        app, ["tournament", "sushi-go", "-b", "random,first", "-p", "2", "-g", "2", "-q", "--report", str(out)]
    )
    assert result.exit_code == 0, result.output
    page = (out / "index.html").read_text()
    assert 'id="tournament"' in page and "Line-ups" in page and "ordinal" in page


class CutAfter:
    """A backend that plays the first ``k`` games, then stops as a Ctrl-C would."""

    def __init__(self, k: int):
        self.k = k

    def play(self, work, games, fold, stop):
        import signal

        fold.add(work.play(0, self.k))
        stop.signum = signal.SIGINT


@pytest.mark.parametrize("cut, deals, balanced", [(6, 1, True), (7, 2, False)])
def test_a_stopped_tournament_says_the_deals_it_played_and_whether_its_seats_balance(
    sushi, monkeypatch, cut, deals, balanced
):
    """Cut after 6 games (two line-ups of three seatings: one deal each) or 7 (one seating a deal ahead): the
    figures and the text count the deals played, not those asked for, and a line-up whose seatings played
    unequal numbers of deals is said not to balance its seats."""
    from ruledraft.play import executor

    result = run_tournament(sushi, ["random", "first"], 3, 30, 1, backend=CutAfter(cut))
    assert result["interrupted"] and result["games"] == cut and result["requested"] == 60
    assert (result["deals"], result["deals_played"], result["balanced"]) == (10, deals, balanced)
    assert sum(lu["games"] for lu in result["lineups"]) == cut
    monkeypatch.setattr(executor, "local", lambda jobs, games, method=None: CutAfter(cut))
    out = runner.invoke(app, ["tournament", "sushi-go", "-b", "random,first", "-p", "3", "-g", "30", "-q"])
    assert out.exit_code == 130, out.output
    said = " ".join(out.output.split())
    assert f"seats rotated on the same {deals} deal{'s' if deals > 1 else ''} (of 10), {cut} games" in said
    last = f"interrupted after {cut} of 60 games"
    if not balanced:
        last += " (a seating cut short: its line-up's seats do not balance)"
    assert out.output.rstrip().splitlines()[-1] == last
