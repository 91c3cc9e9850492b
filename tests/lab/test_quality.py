"""Game-quality measures: recomputed independently from `simulate --log` records and
`simulate --json` runs, properties of every followed game, exact merges, and the
`quality` command's text, JSON and report."""

from __future__ import annotations

import itertools
import json
import math
import random
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import bundled_game, bundled_ruleset, game_setups
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.table_scoring import table_sheet
from ruledraft.lab.quality import (
    EXPLANATIONS,
    MIN_OFFERS,
    GameTrace,
    QualityCounts,
    advantage_interval,
    gap_interval,
    seatings,
)
from ruledraft.play.runner import game_seed, play_game

runner = CliRunner()


def invoke(*args: str) -> str:
    result = runner.invoke(app, list(args), env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output


def logged(tmp_path, rid: str, players: int, games: int, seed: int, bots: str) -> list[dict]:
    """The records `simulate --log` writes for these games."""
    log = tmp_path / "games.jsonl"
    invoke("simulate", rid, "-p", str(players), "-g", str(games), "-s", str(seed), "-b", bots, "-q", "--log", str(log))
    return [json.loads(line) for line in log.read_text().splitlines()]


# ---------------------------------------------------------------- following a logged game by hand


def follow_record(rs, record: dict):
    """From a Sushi Go! log record alone: every player's running score after each chosen turn (rounds scored
    so far plus the round in progress scored by `table_sheet`; a turn the engine played joins the turn before),
    and per seat-turn with a choice (the kinds of cards in the hand, the cards taken). Hands pass to the
    left; a pick of two cards sends one chopsticks from the table back into the hand."""
    players = record["players"]
    standings, offers, done = [], [], []
    for rnd in record["rounds"]:
        hands = [list(h) for h in rnd["hands"]]
        tables: list[list[str]] = [[] for _ in range(players)]
        turns = rnd["turns"]
        for t, turn in enumerate(turns):
            for seat, picks in enumerate(turn["picks"]):
                if not turn.get("auto") and len(set(hands[seat])) > 1:
                    offers.append((frozenset(hands[seat]), frozenset(picks)))
                for c in picks:
                    hands[seat].remove(c)
                    tables[seat].append(c)
                if len(picks) == 2:
                    tables[seat].remove("chopsticks")
                    hands[seat].append("chopsticks")
            hands = [hands[(seat - 1) % players] for seat in range(players)]
            if t + 1 < len(turns) and turns[t + 1].get("auto"):
                continue
            sheet = table_sheet(rs, {"rounds": [*done, tables]}, partial=True)
            standings.append([sum(points) for points in zip(*sheet.round_points)])
        assert sheet.round_points[-1] == rnd["scores"]  # the tables rebuilt score as the log says
        done.append(tables)
    standings[-1] = record["totals"][:players]  # game end
    return standings, offers


def lift(card, offers):
    """Picks of ``card`` over those a blind pick among each hand's kinds of cards would make."""
    return sum(1 for _, took in offers if card in took) / sum(1 / len(held) for held, _ in offers)


def sole_leaders(standings):
    return [row.index(max(row)) if row.count(max(row)) == 1 else None for row in standings]


def measures_by_hand(rs, records):
    """The per-game measures from the records, written out plainly."""
    changes, decisive, last, spread, offers = [], [], [], [], []
    for rec in records:
        standings, seen = follow_record(rs, rec)
        offers += seen
        leaders = sole_leaders(standings)
        known = [x for x in leaders if x is not None]
        changes.append(sum(1 for a, b in zip(known, known[1:]) if a != b))
        spread.append(max(rec["totals"]) - min(rec["totals"]))
        if len(rec["winners"]) == 1:
            w = rec["winners"][0]
            k = len(standings)
            while k > 1 and leaders[k - 2] == w:
                k -= 1
            decisive.append((k, len(standings)))
            per_round = [len([t for t in rnd["turns"] if not t.get("auto")]) for rnd in rec["rounds"]]
            before = sum(per_round[:-1]) - 1  # the chosen turn that ends the second-last round
            last.append(leaders[before] != w)
    return changes, decisive, last, spread, offers


def test_quality_json_matches_the_measures_recomputed_from_the_game_log(tmp_path):
    """`quality --json` gives the lead changes, decisiveness, last-round share, spread and pick shares that the
    records of `simulate --log` (the same seed and bots) give when followed by hand."""
    rs = bundled_ruleset("sushi-go")
    records = logged(tmp_path, "sushi-go", 3, 30, 4, "random")
    q = json.loads(invoke("quality", "sushi-go", "-p", "3", "-g", "30", "-s", "4", "-b", "random", "-q", "--json"))
    assert q["seatings"] == [["random"] * 3]
    changes, decisive, last, spread, offers = measures_by_hand(rs, records)
    assert q["lead_changes"]["histogram"] == {str(k): changes.count(k) for k in sorted(set(changes))}
    assert q["lead_changes"]["mean"] == pytest.approx(sum(changes) / 30)
    assert q["decisiveness"]["games"] == len(decisive)
    assert q["decisiveness"]["mean_turn"] == pytest.approx(sum(k for k, _ in decisive) / len(decisive))
    assert q["decisiveness"]["mean_share"] == pytest.approx(sum(k / n for k, n in decisive) / len(decisive))
    assert q["turns"] == 24  # 9 cards a hand for 3 players: 8 chosen turns a round
    assert q["last_round_decides"]["games"] == len(last)
    assert q["last_round_decides"]["rate"] == pytest.approx(sum(last) / len(last))
    assert q["score_spread"]["mean"] == pytest.approx(sum(spread) / 30)
    wins = [0.0] * 3
    for rec in records:
        for w in rec["winners"]:
            wins[w] += 1 / len(rec["winners"])
    assert [s["wins"] for s in q["seats"]] == pytest.approx(wins)
    for row in q["picks"]:
        mine = [(held, took) for held, took in offers if row["card"] in held]
        assert row["offered"] == len(mine)
        if mine:
            picked = sum(1 for _, took in mine if row["card"] in took)
            assert row["pick_share"] == pytest.approx(picked / len(mine))
            assert row["lift"] == pytest.approx(lift(row["card"], mine))
        dep = row["depends_on"]
        if dep is not None:
            other = dep["card"]
            with_d = [(h, t) for h, t in mine if other in h]
            without = [(h, t) for h, t in mine if other not in h]
            assert len(with_d) >= MIN_OFFERS and len(without) >= MIN_OFFERS

            assert dep["with"] == pytest.approx(lift(row["card"], with_d))
            assert dep["without"] == pytest.approx(lift(row["card"], without))


def test_seat_advantage_and_skill_gap_are_the_rotated_runs_of_simulate_put_together():
    """With greedy,random the line-up is played in both seatings on the same deals: each seat's wins and each
    bot's are the sums of `simulate --json` over the two seatings, and the skill gap is greedy's rate per seat
    minus random's."""
    args = ["-p", "2", "-g", "40", "-s", "9", "-q", "--json"]
    q = json.loads(invoke("quality", "sushi-go", "-b", "greedy,random", *args))
    assert q["seatings"] == [["greedy", "random"], ["random", "greedy"]]
    a = json.loads(invoke("simulate", "sushi-go", "-b", "greedy,random", "--no-cards", *args))
    b = json.loads(invoke("simulate", "sushi-go", "-b", "random,greedy", "--no-cards", *args))
    wins_a, wins_b = [s["wins"] for s in a["seats"]], [s["wins"] for s in b["seats"]]
    assert [s["wins"] for s in q["seats"]] == pytest.approx([x + y for x, y in zip(wins_a, wins_b)])
    assert q["games"] == 80
    bots = {row["bot"]: row for row in q["skill"]["bots"]}
    assert bots["greedy"]["win_share"] == pytest.approx((wins_a[0] + wins_b[1]) / 80)
    assert bots["random"]["win_share"] == pytest.approx((wins_a[1] + wins_b[0]) / 80)
    gap = q["skill"]["gap"]
    assert gap["strongest"] == "greedy"
    assert gap["difference"] == pytest.approx(bots["greedy"]["win_share"] - bots["random"]["win_share"])
    shares = [s["win_share"] for s in q["seats"]]
    assert q["seat_advantage"]["difference"] == pytest.approx(max(shares) - min(shares))
    assert q["seat_advantage"]["bots_balanced"] is True


def test_seatings_rotate_the_line_up_once_each_distinct():
    """Each distinct rotation of the line-up once: every bot holds every seat equally often."""
    assert seatings(("greedy", "random", "random"), True) == [
        ("greedy", "random", "random"),
        ("random", "greedy", "random"),
        ("random", "random", "greedy"),
    ]
    assert seatings(("greedy", "random", "greedy", "random"), True) == [
        ("greedy", "random", "greedy", "random"),
        ("random", "greedy", "random", "greedy"),
    ]
    assert seatings(("greedy", "random"), False) == [("greedy", "random")]


# ---------------------------------------------------------------- properties


@settings(max_examples=25)
@given(setup=game_setups(bots=("random",)))
def test_every_followed_game_has_sane_measures(setup):
    """For any bundled ruleset and seed: lead changes >= 0, the decisive turn within 1..turns (None only without
    one winner), the last standing the game's totals, and one standing per turn a player chose in."""
    rid, players, seed, bots = setup
    state = play_game(bundled_game(rid, players), seed, bots)
    trace = GameTrace(state)
    assert trace.lead_changes() >= 0
    chosen = sum(len(rec.actions) - len(rec.auto_turns) for rec in state.history)
    assert trace.turns == chosen or (trace.turns < chosen and state.history[0].auto_turns[:1] == [0])
    decisive = trace.decisive_turn()
    if len(state.winners) == 1:
        assert decisive is not None and 1 <= decisive <= trace.turns
    else:
        assert decisive is None
    assert trace.standings[-1] == state.totals()[:players]
    assert trace.spread() >= 0
    assert trace.lead_changes() <= max(0, trace.turns - 1)


@settings(max_examples=10)
@given(split=st.integers(0, 8), seed=st.integers(0, 2**32))
def test_counts_merged_in_any_split_are_the_counts_of_all(split, seed):
    """QualityCounts of games counted in two parts and merged equal those counted at once (and round-trip
    through their plain state)."""
    game = bundled_game("sushi-go", 3)
    states = [play_game(game, game_seed(seed, i), ["random"] * 3) for i in range(8)]
    whole = QualityCounts.for_game(game)
    a, b = QualityCounts.for_game(game), QualityCounts.for_game(game)
    for i, s in enumerate(states):
        whole.add_state(s)
        (a if i < split else b).add_state(s)
    b.merge(a)
    assert b.state() == whole.state()
    again = QualityCounts.from_state(3, game.ruleset.catalogue.ids, json.loads(json.dumps(whole.state())))
    assert again.state() == whole.state()
    assert again.measures() == whole.measures()


# ---------------------------------------------------------------- the command


def test_quality_text_explains_every_measure_in_a_sentence():
    """The tables fit 80 columns, no line ends in the spaces rich pads a title or a wrapped line with, and every measure's sentence is printed."""
    text = invoke("quality", "sushi-go", "-g", "20", "-b", "greedy,random", "-q")
    flat = " ".join(text.split())
    for sentence in EXPLANATIONS.values():
        assert " ".join(sentence.split()) in flat
    assert "skill gap:" in text and "seat advantage:" in text
    assert "the line-up rotated through the seats: 4 seatings" in text
    assert max(len(line) for line in text.splitlines()) <= 80
    assert [line for line in text.splitlines() if line.endswith(" ")] == []
    assert re.search(r"^seat advantage 95% CI: .* percentage points; chi-square p [=<] \d", text, re.M)  # not wrapped


def test_quality_gives_the_same_measures_on_one_process_and_two():
    """--jobs does not change any measure (the counts merge exactly)."""
    args = ["quality", "sushi-go", "-p", "3", "-g", "24", "-b", "greedy,random", "-q", "--json"]
    assert json.loads(invoke(*args)) == json.loads(invoke(*args, "-j", "2"))


def test_quality_without_rotation_says_the_seats_test_compares_bots():
    """--no-rotate with a mixed line-up: one seating, and a line under the seat advantage and its interval says they compare the bots too."""
    lines = invoke("quality", "sushi-go", "-g", "10", "-b", "greedy,random", "--no-rotate", "-q").splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("seat advantage 95% CI:"))
    assert lines[at + 1] == "the seats have different bots: the seat advantage compares the bots too"


def test_quality_report_has_the_measures_section(tmp_path):
    """--report writes the standard report of every seating plus a Game quality section drawn from the JSON."""
    out = tmp_path / "rep"
    invoke("quality", "sushi-go", "-p", "2", "-g", "10", "-b", "greedy,random", "-q", "--report", str(out))
    page = (out / "index.html").read_text()
    assert 'id="quality"' in page and "Game quality" in page
    assert "seating 1: greedy, random" in page and "seating 2: random, greedy" in page
    assert 'data-figure="quality.seats[*].win_share quality.seats[*].interval"' in page
    assert "http://" not in page.replace("http://www.w3.org", "") and "https://" not in page
    document = json.loads(page.split('id="figures">', 1)[1].split("</script>", 1)[0])
    assert document["quality"]["seatings"] == [["greedy", "random"], ["random", "greedy"]]
    assert math.isclose(sum(s["win_share"] for s in document["quality"]["seats"]), 1.0)
    # the report's gaps in percentage points, as the text gives them (the shares' rounded figures apart)
    text = invoke("quality", "sushi-go", "-p", "2", "-g", "10", "-b", "greedy,random", "-q")
    gap = re.search(r"^skill gap: (-?\d+\.\d) percentage points per seat", text, re.M).group(1)
    advantage = re.search(r"^seat advantage: (\d+\.\d) percentage points", text, re.M).group(1)
    assert f"Skill gap: {gap} percentage points per seat (95% interval " in page
    assert f"Seat advantage: {advantage} percentage points (95% interval " in page


def test_ctrl_c_measures_the_games_finished_and_exits_130():
    """SIGINT stops `quality`: the measures of the games finished so far, marked interrupted, exit status 130."""
    import subprocess
    import sys

    from processes import interrupted, until_busy

    args = ["quality", "sushi-go", "-p", "3", "-g", "1000000", "-b", "random", "-q", "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = interrupted(proc, lambda: until_busy(proc, [proc.pid], 4.0))  # imports, then games
    assert proc.returncode == 130, err
    q = json.loads(out)
    assert q["interrupted"] is True and 0 < q["games"] < 1000000
    assert err.rstrip().splitlines()[-1] == f"interrupted after {q['games']} of 1000000 games"
    assert sum(q["lead_changes"]["histogram"].values()) == q["games"]


def test_ctrl_c_in_a_rotated_run_says_which_seating_it_cut():
    """SIGINT in a line-up rotated through the seats: the last line names the seating cut
    short, whose seats' figures do not balance the bots."""
    import subprocess
    import sys

    from processes import interrupted, until_busy

    args = ["quality", "sushi-go", "-p", "2", "-g", "1000000", "-b", "random,first", "-q", "--json"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = interrupted(proc, lambda: until_busy(proc, [proc.pid], 4.0))
    assert proc.returncode == 130, err
    q = json.loads(out)
    assert q["interrupted"] is True and 0 < q["games"] < 1000000
    assert err.rstrip().splitlines()[-1] == (
        f"interrupted after {q['games']} of 2000000 games (in seating 1 of 2: the seats' figures do not balance"
        " the line-up)"
    )


def test_ctrl_c_before_any_game_finished_says_so_in_one_line_and_measures_nothing(tmp_path):
    """SIGINT while the first games are still in their workers: `quality` prints no tables of zeros and writes no report, only "interrupted after 0 of N games", exit status 130."""
    import subprocess
    import sys

    from processes import interrupted, sleeping_bot, until_exists

    bot, asked = sleeping_bot(tmp_path)
    report = tmp_path / "report"
    args = ["quality", "sushi-go", "-p", "2", "-g", "4", "-b", bot, "--jobs", "2", "-q"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", *args, "--report", str(report)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = interrupted(proc, lambda: until_exists(proc, asked))  # a worker's game is under way
    assert proc.returncode == 130, err
    assert out == ""
    assert err.strip().splitlines()[-1] == "interrupted after 0 of 4 games", err
    assert "Traceback" not in err
    assert not (report / "index.html").exists()


def test_a_tiny_run_keeps_decisiveness_within_the_turns_and_names_two_level_bots():
    """One game: decisiveness's interval stays within 0-100% (a share of the turns; the t
    interval went to 136%), and the skill gap between two bots that won alike names both,
    saying they are level (it said 'greedy over greedy')."""
    q = json.loads(runner.invoke(app, ["quality", "sushi-go", "--games", "1", "-q", "--json"]).stdout)
    lo, hi = q["decisiveness"]["interval"]
    assert 0.0 <= lo <= q["decisiveness"]["mean_share"] <= hi <= 1.0
    assert hi == 1.0  # cut: the t interval of one game's turns passes 100%
    gap = q["skill"]["gap"]
    assert gap["difference"] == 0.0 and {gap["strongest"], gap["weakest"]} == {"greedy", "random"}
    out = runner.invoke(app, ["quality", "sushi-go", "--games", "1", "-q"], env={"COLUMNS": "200"}).stdout
    lines = out.splitlines()
    assert "skill gap: 0.0 percentage points per seat (the bots are level)" in lines
    assert any(re.fullmatch(r"skill gap 95% CI: -?\d+\.\d to -?\d+\.\d percentage points", line) for line in lines)


def _shares(wins: dict[str, float], seats: dict[str, int], games: int) -> list[dict]:
    """bot_shares' rows for bots that won ``wins`` games in all, each at ``seats`` seats."""
    return [{"bot": b, "seats": seats[b], "win_share": w / games} for b, w in wins.items()]


@pytest.mark.parametrize(
    "rates, seats",
    [
        ({"strong": 0.7, "weak": 0.3}, {"strong": 1, "weak": 3}),  # a winner every game: the exact interval
        ({"strong": 0.5, "middle": 0.3, "weak": 0.2}, {"strong": 1, "middle": 1, "weak": 1}),  # Bonferroni
        ({"strong": 0.6, "weak": 0.3}, {"strong": 2, "weak": 2}),  # a game in ten won by nobody: Bonferroni
    ],
    ids=["two bots", "three bots", "games without a winner"],
)
def test_the_skill_gaps_interval_holds_the_true_gap_in_95_percent_of_runs_or_more(rates, seats):
    """Runs of 400 games whose winner is drawn at the given rates: the skill gap's 95%
    interval holds the true gap (the rates per seat, strongest minus weakest) in at
    least 93% of 600 runs; the exact interval of two bots is not needlessly wide (at
    most 97.5%), and each is an interval around the gap the run measured."""
    rng = random.Random(3)
    true_gap = rates["strong"] / seats["strong"] - rates["weak"] / seats["weak"]
    bots, cut = list(rates), list(itertools.accumulate(rates.values()))
    held = 0
    for _ in range(600):
        wins = dict.fromkeys(bots, 0.0)
        for _ in range(400):
            x = rng.random()
            won = next((b for b, c in zip(bots, cut) if x < c), None)
            if won is not None:
                wins[won] += 1
        lo, hi = gap_interval(_shares(wins, seats, 400), "strong", "weak", 400, sum(wins.values()), 0.95)
        measured = wins["strong"] / 400 / seats["strong"] - wins["weak"] / 400 / seats["weak"]
        assert lo <= measured <= hi
        held += lo <= true_gap <= hi
    assert held >= 0.93 * 600
    if len(rates) == 2 and sum(rates.values()) == 1:
        assert held <= 0.975 * 600


@pytest.mark.parametrize(
    "rates",
    [
        [0.56, 0.44],  # two seats, a winner every game: the exact interval
        [0.28, 0.25, 0.25, 0.22],  # Bonferroni over four seats
        [0.25, 0.25, 0.25, 0.25],  # no advantage at all: the interval starts at 0
        [0.5, 0.4],  # a game in ten won by nobody: Bonferroni
    ],
    ids=["two seats", "four seats", "level seats", "games without a winner"],
)
def test_the_seat_advantages_interval_holds_the_true_advantage_in_95_percent_of_runs_or_more(rates):
    """Runs of 400 games whose winning seat is drawn at the given rates: the seat advantage's
    95% interval holds the true advantage (the best rate minus the worst) in at least 93% of
    600 runs (the exact one of two seats at most 97.5%), and the advantage each run measured."""
    rng = random.Random(5)
    true_advantage = max(rates) - min(rates)
    cut = list(itertools.accumulate(rates))
    held = 0
    for _ in range(600):
        wins = [0.0] * len(rates)
        for _ in range(400):
            x = rng.random()
            won = next((s for s, c in enumerate(cut) if x < c), None)
            if won is not None:
                wins[won] += 1
        lo, hi = advantage_interval(wins, 400, 0.95)
        assert 0 <= lo <= (max(wins) - min(wins)) / 400 <= hi
        held += lo <= true_advantage <= hi
    assert held >= 0.93 * 600
    if len(rates) == 2 and sum(rates) == 1:
        assert held <= 0.975 * 600


def test_one_seat_has_no_seat_advantage_and_no_games_say_nothing_of_it():
    """One seat: the advantage is 0 and so is its interval; no games: anything from 0 to 1."""
    assert advantage_interval([7.0], 10, 0.95) == (0.0, 0.0)
    assert advantage_interval([0.0, 0.0, 0.0], 0, 0.95) == (0.0, 1.0)


def test_quality_prints_and_keeps_the_seat_advantages_interval():
    """quality's text has the seat advantage's 95% interval on a line of its own, and --json its interval, around the advantage."""
    args = ["quality", "sushi-go", "-p", "3", "--games", "60", "-q"]
    out = runner.invoke(app, args, env={"COLUMNS": "80"}).stdout
    assert any(
        re.fullmatch(r"seat advantage 95% CI: \d+\.\d to \d+\.\d percentage points; chi-square p [=<] \d\.\d+", line)
        for line in out.splitlines()
    )
    q = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    adv = q["seat_advantage"]
    assert adv["interval"][0] <= adv["difference"] <= adv["interval"][1]
