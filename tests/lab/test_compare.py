"""``ruledraft compare``: paired and independent differences, Holm's flags, output and errors."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from paths import ROOT
from processes import until_busy
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.lab.columns import Column
from ruledraft.lab.compare import (
    Side,
    Sums,
    comparison,
    comparison_rows,
    differences,
    labels,
    pairing,
    play_sides,
)
from ruledraft.lab.statistics import holm
from ruledraft.language.loading import load_ruleset

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, ["compare", *args, "--quiet"], env={"COLUMNS": "80"})


def run_json(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def row(result: dict, figure: str) -> dict:
    return next(r for r in result["rows"] if r["figure"] == figure)


def test_holm_flags_a_fixed_list_of_p_values():
    """Holm's step-down: p-values 0.01, 0.04, 0.03, 0.005 adjust to 0.03, 0.06, 0.06, 0.02; the first and last are flagged at 5%."""
    adjusted = holm([0.01, 0.04, 0.03, 0.005], 0.05)
    assert [round(q, 12) for q, _ in adjusted] == [0.03, 0.06, 0.06, 0.02]
    assert [flag for _, flag in adjusted] == [True, False, False, True]


def test_rows_are_flagged_after_holm_over_every_figure():
    """A difference with no spread is certain (p 0) and flagged; an equal one has p 1 and is not."""
    a, b, pairs = Sums(), Sums(), Sums()
    va, vb = {"x": Column([1] * 3), "y": Column([2] * 3)}, {"x": Column([2] * 3), "y": Column([2] * 3)}
    a.add_columns(3, va)
    b.add_columns(3, vb)
    pairs.add_columns(3, differences(va, vb))
    rows = comparison_rows([("x", "rules"), ("y", "rules")], a, b, pairs)
    assert [(r["difference"], r["interval"], r["p_value"], r["flagged"]) for r in rows] == [
        (1.0, [1.0, 1.0], 0.0, True),
        (0.0, [0.0, 0.0], 1.0, False),
    ]


def test_paired_difference_interval_on_four_games():
    """Games A = 1, 2, 3, 4 and B = 2, 2, 5, 5: mean difference 1, sd sqrt(2/3), t(0.975, 3) = 3.182446, so 1 -+ 1.299228; paired t = sqrt(6), p = 0.091722."""
    a, b, pairs = Sums(), Sums(), Sums()
    va, vb = {"x": Column([1, 2, 3, 4])}, {"x": Column([2, 2, 5, 5])}
    a.add_columns(4, va)
    b.add_columns(4, vb)
    pairs.add_columns(4, differences(va, vb))
    (r,) = comparison_rows([("x", "cards")], a, b, pairs)
    assert (r["a"], r["b"], r["difference"]) == (2.5, 3.5, 1.0)
    lo, hi = r["interval"]
    assert lo == pytest.approx(1 - 1.299228, abs=1e-6) and hi == pytest.approx(1 + 1.299228, abs=1e-6)
    # df = 3: P(T <= t) = 1/2 + (atan(u) + u / (1 + u^2)) / pi with u = t / sqrt(3) = sqrt(2)
    u = math.sqrt(2)
    assert r["p_value"] == pytest.approx(2 * (0.5 - (math.atan(u) + u / 3) / math.pi), rel=1e-9)
    assert r["p_value"] == pytest.approx(0.091722, abs=1e-6)


def test_independent_means_differ_by_welch():
    """Independent games: A = 1, 2, 3 and B = 3, 5, 7: difference 3, Welch df = 2.5 (variances 1 and 4 over 3 games)."""
    a, b = Sums(), Sums()
    a.add_columns(3, {"x": Column([1, 2, 3])})
    b.add_columns(3, {"x": Column([3, 5, 7])})
    (r,) = comparison_rows([("x", "rules")], a, b, None)
    se = math.sqrt(1 / 3 + 4 / 3)
    df = (5 / 3) ** 2 / ((1 / 3) ** 2 / 2 + (4 / 3) ** 2 / 2)
    assert df == pytest.approx(50 / 17)
    assert r["difference"] == 3.0
    assert r["interval"][1] - 3 == pytest.approx(3 - r["interval"][0])
    t = (r["interval"][1] - 3) / se  # t(0.975, 50/17): just above t(0.975, 3) = 3.182446, below 4.302653 (2)
    assert 3.182446 < t < 4.302653 and t == pytest.approx(3.2188, abs=1e-3)


def test_pairing_says_which_and_why():
    """Same deal: paired (B's seed given as A's too); other player counts, other decks or another B seed: independent, with the reason."""
    go, soy = load_ruleset("sushi-go"), load_ruleset("sushi-go-soy-sauce")
    greedy = ["greedy"] * 4
    assert pairing(Side(go, 4, greedy, 0), Side(go, 4, ["random"] * 4, 0), False) == (
        True,
        "paired games: both sides deal game i the same cards from the same seed",
    )
    assert pairing(Side(go, 3, greedy[:3], 0), Side(go, 5, ["greedy"] * 5, 0), False) == (
        False,
        "independent games: the player counts differ (3 and 5)",
    )
    assert pairing(Side(go, 4, greedy, 0), Side(soy, 4, greedy, 0), False) == (
        False,
        "independent games: the decks differ",
    )
    lines = (ROOT / "rulesets" / "sushi-go.yaml").read_text(encoding="utf-8").splitlines(keepends=True)
    tempura = next(i for i, line in enumerate(lines) if line.startswith("  - {id: tempura,"))
    lines[tempura : tempura + 2] = [lines[tempura + 1], lines[tempura]]  # tempura listed after the card below it
    reordered = load_ruleset(ROOT / "rulesets" / "sushi-go.yaml", text="".join(lines))
    assert pairing(Side(go, 4, greedy, 0), Side(reordered, 4, greedy, 0), False) == (
        False,
        "independent games: the decks hold the same cards listed in another order, which a seed shuffles to other hands",
    )
    assert pairing(Side(go, 4, greedy, 0), Side(go, 4, greedy, 7), True) == (
        False,
        "independent games: B's seed was given (--seed-b)",
    )
    # --seed-b the same as --seed: the same games, paired
    assert pairing(Side(go, 4, greedy, 7), Side(go, 4, ["random"] * 4, 7), True) == (
        True,
        "paired games: both sides deal game i the same cards from the same seed",
    )
    assert labels(Side(go, 4, greedy, 0), Side(soy, 4, greedy, 0)) == ("sushi-go", "sushi-go-soy-sauce")
    assert labels(Side(go, 4, greedy, 0), Side(go, 4, greedy, 7)) == ("A", "B")


def test_pairing_claims_every_deal_only_where_the_seed_decides_every_round_before_play():
    """Sushi Go! deals every round of game i alike whatever the bots do, and says so; a Party
    menu shuffles played cards back between rounds, so only the first hands are said alike,
    and later hands do differ between line-ups."""
    import ruledraft

    for rid, every in (("sushi-go", True), ("sushi-go-party-starter", False)):
        rs = load_ruleset(rid)
        paired, words = pairing(Side(rs, 4, ["greedy"] * 4, 3), Side(rs, 4, ["random"] * 4, 3), False)
        assert paired
        assert words == (
            "paired games: both sides deal game i the same cards from the same seed"
            if every
            else "paired games: both sides deal game i's first hands alike; later deals follow the play"
        )
        hands = [
            [[r.hands for r in ruledraft.play_game(rs, 4, bots, seed=s).history] for s in range(5)]
            for bots in ("greedy", "random")
        ]
        firsts = [[game[0] for game in side] for side in hands]
        assert firsts[0] == firsts[1]
        assert (hands[0] == hands[1]) is every


def test_an_equal_share_counts_a_dummy_that_can_win_as_a_rival():
    """Two players and a dummy that can win share the wins three ways: an equal share is 1/3 (1/2 where the dummy
    cannot win)."""
    dummy = load_ruleset("sushi-go-two-player-dummy")
    assert dummy.rivals(2) == 2
    import ruledraft

    winning = ruledraft.load_ruleset(text=DUMMY_WINS, name="wins.yaml")
    assert winning.dummy.can_win and winning.rivals(2) == 3
    assert load_ruleset("sushi-go").rivals(4) == 4


DUMMY_WINS = """\
format: 1
extends: sushi-go-two-player-dummy
id: dummy-wins
name: The dummy can win
turn:
  dummy:
    can_win: true
"""


def test_a_plug_in_effect_is_not_said_to_deal_every_round_alike():
    """An effect from outside ruledraft may draw and shuffle back without saying so: a game with one is paired on
    its first hands only, while the same game with no effect is paired on every deal."""
    import attrs

    from ruledraft.lab.compare import deals_ahead

    go = load_ruleset("sushi-go")
    assert deals_ahead(go)

    class Outside:
        kind = "trade_in"

    Outside.__module__ = "ruledraft_plugin_trade_in"
    assert not deals_ahead(attrs.evolve(go, effects=(Outside(),)))


def test_two_files_of_one_id_are_told_apart_by_their_files(tmp_path):
    """A tuned copy keeps its rule file's id: the two sides are named by id and file, not both 'sushi-go-squid-12'."""
    from paths import DATA

    a, b = tmp_path / "squid.yaml", tmp_path / "squid.tuned.yaml"
    text = (DATA / "tune" / "sushi-go-squid-12.yaml").read_text(encoding="utf-8")
    a.write_text(text, encoding="utf-8")
    b.write_text(text.replace("start: 12", "start: 3"), encoding="utf-8")
    out = run(str(a), str(b), "--players", "3", "--bots", "greedy", "--games", "20").output.splitlines()
    sides = " ".join(line.strip() for line in out[: out.index("20 games a side")])  # (wrapped at 80 columns)
    assert sides == (
        f"A: sushi-go-squid-12 ({a}), 3 players, greedy x3, seed 0 B: sushi-go-squid-12 ({b}), 3 players, greedy x3, seed 0"
    )
    assert all(len(line) <= 80 or "/" in line for line in out)
    result = run_json(str(a), str(b), "--players", "3", "--bots", "greedy", "--games", "20")
    assert (result["a"]["label"], result["a"]["file"]) == (f"sushi-go-squid-12 ({a})", str(a))
    assert not run("sushi-go", "--bots-b", "random", "--games", "20").output.startswith("A: sushi-go (")


def test_at_two_player_counts_a_seats_win_share_is_compared_above_an_equal_share():
    """2 players against 5: each seat's win share is given above 1/2 and 1/5 (an equal share of each), so seats
    near their equal share are not flagged for the player count alone; the JSON says what the shares are above."""
    result = run_json(
        "sushi-go", "--players", "2", "--players-b", "5", "--bots", "greedy", "--games", "300", "--seed", "2"
    )
    assert result["win_share_from"] == [0.5, 0.2]
    for s in (0, 1):
        r = row(result, f"seat {s} win share")
        wins = [result[k]["figures"]["seats"][s]["win_share"] for k in ("a", "b")]
        assert (r["a"], r["b"]) == pytest.approx((wins[0] - 0.5, wins[1] - 0.2))
        assert r["difference"] == pytest.approx(r["b"] - r["a"])
        assert r["interval"][0] < r["difference"] < r["interval"][1] and r["interval"][0] < 0 < r["interval"][1]
        assert not r["flagged"]
    text = run("sushi-go", "--players", "2", "--players-b", "5", "--bots", "greedy", "--games", "300", "--seed", "2")
    assert (
        "seat win shares are given above an equal share (50.0% for A, 20.0% for B): the\nplayer counts differ"
        in text.output
    )
    assert run_json("sushi-go", "--bots", "greedy", "--bots-b", "random", "--games", "30")["win_share_from"] == [0, 0]


def test_a_figure_whose_name_is_too_long_for_its_column_is_on_a_line_of_its_own():
    """A card id of 30 letters: its four figures are told apart by their whole names, each above its numbers, within 80 columns."""
    from ruledraft.cli.compare import NAME, _row_text

    figure = {"a": 0.1, "b": 0.2, "difference": 0.1, "interval": [0.0, 0.2], "p_holm": 0.5, "flagged": False}
    for what in ("taken", "points", "vs none", "per copy"):
        name = f"card golden_apple_of_the_hesperides {what}"
        lines = _row_text({**figure, "figure": name, "measure": "taken"})
        assert lines[0] == f"  {name}" and lines[1].startswith(" " * (NAME + 3)) and len(lines) == 2
        assert all(len(line) <= 80 for line in lines)
    assert _row_text({**figure, "figure": "card tempura taken", "measure": "taken"})[0].startswith(
        "  card tempura taken "
    )


def test_soy_sauce_rule_is_flagged_against_the_base_game():
    """compare sushi-go sushi-go-soy-sauce with greedy bots flags the soy sauce rule's points and the card taken, from independent games."""
    result = run_json("sushi-go", "sushi-go-soy-sauce", "--bots", "greedy", "--games", "150")
    assert result["paired"] is False
    assert result["pairing"] == "independent games: the decks differ; B's seed is derived from --seed"
    soy = row(result, "rule soy_sauce")
    assert soy["a"] == 0.0 and soy["b"] > 1 and soy["flagged"] is True and soy["interval"][0] > 0
    assert row(result, "card soy_sauce taken")["flagged"] is True
    assert result["a"]["label"] == "sushi-go" and result["b"]["label"] == "sushi-go-soy-sauce"
    assert result["a"]["figures"]["games"] == result["b"]["figures"]["games"] == 150
    assert result["flagged"] == sum(r["flagged"] for r in result["rows"])
    assert set(result) == {"a", "b", "games", "games_requested", "interrupted", "paired", "pairing"} | {
        "alpha",
        "compared",
        "flagged",
        "rows",
        "win_share_from",
    }
    assert (result["games"], result["games_requested"], result["interrupted"]) == (150, 150, False)
    assert set(result["b"]) == {"label", "ruleset", "file", "players", "bots", "seed", "games", "figures"}
    assert result["alpha"] == 0.05 and {g for r in result["rows"] for g in [r["group"]]} == {"seats", "rules", "cards"}
    keys = {"figure", "group", "measure", "a", "b", "difference", "interval", "p_value", "p_holm", "flagged"}
    assert all(set(r) == keys | {"tested", "same_as"} for r in result["rows"])
    # seats, rules, each card's taken and points, and the win figures (vs none, per copy) of the 12 cards both have
    assert len(result["rows"]) == 4 * 2 + 8 + 13 * 2 + 12 * 2
    # no row repeats another's test: B's soy sauce rule reads every card, so no card's points are one rule's
    assert not any(r["same_as"] for r in result["rows"])
    # and the one row with no spread (pudding sums to 0 in every 4-player game, on both sides) is not tested
    assert [r["figure"] for r in result["rows"] if not r["tested"]] == ["rule pudding"]
    assert result["compared"] == sum(r["tested"] for r in result["rows"]) == len(result["rows"]) - 1


def test_a_ruleset_against_itself_from_another_seed_flags_nothing():
    """compare sushi-go sushi-go --seed-b: independent games of one ruleset, nothing flagged (a fixed seed)."""
    result = run_json("sushi-go", "sushi-go", "--bots", "random", "--games", "100", "--seed", "2", "--seed-b", "1002")
    assert result["paired"] is False and result["b"]["seed"] == 1002
    assert result["flagged"] == 0 and not any(r["flagged"] for r in result["rows"])


@pytest.mark.parametrize("games", [100])
def test_independent_flags_stay_within_chance_over_several_seeds(games):
    """Over eight independent comparisons of a ruleset with itself, at most one flags anything, and under 5% of the rows are flagged."""
    rs = load_ruleset("sushi-go")
    flagged, rows, runs_flagging = 0, 0, 0
    for seed in range(2, 10):
        a, b = Side(rs, 4, ["random"] * 4, seed), Side(rs, 4, ["random"] * 4, 1000 + seed)
        result = comparison(a, b, play_sides(a, b, games, paired=False), "x")
        flagged += result["flagged"]
        rows += result["compared"]
        runs_flagging += result["flagged"] > 0
    assert runs_flagging <= 1 and flagged / rows < 0.05


def test_identical_sides_from_the_same_seeds_differ_by_nothing():
    """One ruleset, one line-up, the same seeds: paired games, every difference and interval 0, no flag."""
    result = run_json("sushi-go", "--bots", "random", "--games", "30")
    assert result["paired"] is True and result["b"]["seed"] == result["a"]["seed"] == 0
    assert {(r["difference"], tuple(r["interval"]), r["p_value"], r["flagged"]) for r in result["rows"]} == {
        (0.0, (0.0, 0.0), 1.0, False)
    }
    assert result["a"]["figures"] == result["b"]["figures"]


def test_two_line_ups_are_paired_and_differ():
    """One ruleset, greedy against random bots: paired games, and greedy's first seat scores differently."""
    result = run_json("sushi-go", "--bots", "greedy", "--bots-b", "random", "--games", "40")
    assert result["paired"] is True
    assert result["a"]["bots"] == ["greedy"] * 4 and result["b"]["bots"] == ["random"] * 4
    assert (result["a"]["label"], result["b"]["label"]) == ("greedy x4", "random x4")


def test_jobs_do_not_change_the_comparison():
    """--jobs 1 and --jobs 2 give the same JSON, paired or not."""
    for extra in ([], ["--seed-b", "5"]):
        args = ["sushi-go", "--bots", "greedy,random", "--bots-b", "random", "--games", "24", *extra]
        assert run_json(*args, "--jobs", "1") == run_json(*args, "--jobs", "2")


def test_player_counts_are_compared_on_their_common_seats():
    """3 against 5 players: independent games, seats 0-2 compared, every rule and card."""
    result = run_json("sushi-go", "--players", "3", "--players-b", "5", "--bots", "random", "--games", "20")
    assert result["paired"] is False and (result["a"]["players"], result["b"]["players"]) == (3, 5)
    seats = [r["figure"] for r in result["rows"] if r["group"] == "seats"]
    assert seats == [f"seat {s} {what}" for s in range(3) for what in ("win share", "score")]


def test_terminal_table_fits_80_columns_and_marks_the_flagged_first():
    """The table's lines fit 80 columns; flagged rows (marked *) come first; the summary counts them."""
    result = run("sushi-go", "sushi-go-soy-sauce", "--bots", "greedy", "--games", "60")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert lines[:5] == [
        "A: sushi-go, 4 players, greedy x4, seed 0",
        "B: sushi-go-soy-sauce, 4 players, greedy x4, seed 2848476260233222",
        "60 games a side",
        "independent games: the decks differ",
        "B's seed is derived from --seed",
    ]
    table = lines[lines.index(next(x for x in lines if x.startswith("  figure"))) + 1 :]
    marks = [x[0] for x in table if x.startswith(("* ", "  seat", "  rule", "  card"))]
    assert marks[0] == "*" and "".join(marks) == "*" * marks.count("*") + " " * marks.count(" ")
    flagged = marks.count("*")
    assert f"{len(marks)} figures compared; {flagged} flagged (*) at 5% after Holm's correction." in lines


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope"], "error: no ruleset 'nope': not a file, nor a bundled ruleset; bundled: "),
        (["sushi-go", "nope"], "error: side B: no ruleset 'nope': not a file, nor a bundled ruleset; bundled: "),
        (["sushi-go", "--players-b", "9"], "error: side B: Sushi Go! is for 2-5 players, not 9\n"),
        (["sushi-go", "--players", "1"], "error: Sushi Go! is for 2-5 players, not 1\n"),
        (
            ["sushi-go", "sushi-go-two-player-dummy", "--players", "4"],
            "error: side B: Sushi Go! (two players with a dummy) is for 2 players, not 4\n",
        ),
        (["sushi-go", "--bots-b", "nope"], "error: side B: unknown bot 'nope'"),
        (
            ["sushi-go", "sushi-go-party-starter", "--bots", "value:edamame=3"],
            "error: side A: bot 'value:edamame=3': 'edamame' is neither an option of value nor a card of the ruleset\n",
        ),
        (["sushi-go", "--bots", "nope"], "error: unknown bot 'nope'"),
        (["sushi-go", "--seed-b", "-1"], "error: --seed-b must be a whole number from 0 to 9007199254740991, not -1\n"),
    ],
)
def test_errors_are_one_line_with_exit_2(args, message):
    """An unknown ruleset, a player count a side does not allow, a B that cannot be played, a bad bot or seed: one line on stderr, exit 2."""
    result = run(*args, "--games", "2")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1


RICH_TEMPURA = """\
format: 1
extends: sushi-go
id: sushi-go-rich-tempura
name: Sushi Go! (rich tempura)
scoring:
  - id: tempura
    when: round_end
    kind: sets
    cards: tempura
    size: 2
    points: 8
"""


def test_a_variant_that_changes_only_scoring_is_paired(tmp_path):
    """Two rulesets that deal alike (a variant changing one rule's points) play paired games; the rule's points are flagged."""
    variant = tmp_path / "rich.yaml"
    variant.write_text(RICH_TEMPURA)
    result = run_json("sushi-go", str(variant), "--bots", "greedy", "--games", "40")
    assert result["paired"] is True and result["b"]["seed"] == 0
    assert result["pairing"] == "paired games: both sides deal game i the same cards from the same seed"
    tempura = row(result, "rule tempura")
    assert tempura["flagged"] is True and tempura["interval"][0] > 0
    # every card dealt is taken by someone: the same deals give the same totals taken
    assert row(result, "card tempura taken")["difference"] == 0.0


def _children(pid: int) -> list[int]:
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except OSError:
        return []
    return [int(p) for p in text.split()]


def _gone(pid: int) -> bool:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return True
    return text[text.rindex(")") + 2] == "Z"  # a zombie has ended


@contextlib.contextmanager
def _started(args):
    """A process in its own process group, its output piped; if it is still running at
    the end (a hang), the whole group is killed, workers too, so the test fails instead."""
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=10)


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_a_killed_worker_is_an_error_not_a_hang():
    """A worker process killed mid-run ends compare with exit 70 and a one-line message naming the signal, within seconds."""
    with _started(
        [sys.executable, "-m", "ruledraft", "compare", "sushi-go", "--bots", "greedy", "--games", "100000"]
        + ["--jobs", "2", "--quiet", "--engine", "reference"]  # a worker killed, not a kernel's compile
    ) as proc:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert len(workers) >= 2, "the workers never started"
        time.sleep(0.5)
        os.kill(workers[0], signal.SIGKILL)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 70, err
    assert out == ""
    assert re.fullmatch(r"error: worker process [12] was killed by SIGKILL\n", err)
    assert all(_gone(pid) for pid in workers)


DIES_HOLDING_THE_TASK_LOCK = """
import os, signal, threading
from ruledraft.lab import compare
from ruledraft.language.loading import load_ruleset
from ruledraft.play.runner import WorkerError

HELD = threading.Lock()

def die_holding_a_lock(a, b, paired, start, stop):
    HELD.acquire()  # as a worker killed while it reads its next task or sends a result
    os.kill(os.getpid(), signal.SIGKILL)

compare.play_chunk = die_holding_a_lock
side = compare.Side(load_ruleset("sushi-go"), 3, ["random"] * 3, 0)
try:
    compare.play_sides(side, side, 2000, paired=True, jobs=2)
except WorkerError as e:
    print(e)
"""


def test_a_worker_killed_while_it_holds_the_task_queue_lock_is_an_error_not_a_hang():
    """A worker killed while it holds a lock (as one killed while reading its next task) ends the run with WorkerError, not a hang."""
    with _started([sys.executable, "-c", DIES_HOLDING_THE_TASK_LOCK]) as proc:
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    assert re.fullmatch(r"worker process [12] was killed by SIGKILL\n", out), out


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_ctrl_c_stops_compare_on_two_workers():
    """Ctrl-C (SIGINT to the process group) on two workers: the pairs finished compared, 'interrupted after N of G games', exit 130, no process left."""
    with _started(
        [sys.executable, "-m", "ruledraft", "compare", "sushi-go", "--bots", "greedy", "--games", "100000"]
        + ["--jobs", "2", "--quiet", "--engine", "reference"]  # the workers' Ctrl-C, not a kernel's compile
    ) as proc:
        deadline = time.monotonic() + 60
        while len(_children(proc.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert len(workers) >= 2, "the workers never started"
        until_busy(proc, workers, 1.0)  # some chunks (about 0.2 s each) finish
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    lines = out.splitlines()
    played = int(lines[2].split()[0])
    assert lines[2] == f"{played} games a side" and 0 < played < 100000
    assert lines[-1] == f"interrupted after {played} of 100000 games"
    assert "figures compared;" in out
    assert err == f"interrupted after {played} of 100000 games\n"
    deadline = time.monotonic() + 10
    while not all(_gone(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(pid) for pid in workers)


NEGATIVE_ZERO = re.compile(r"-0(\.0+)?(?![.\d])")


def test_a_value_too_small_for_its_decimals_shows_two_figures_never_a_signed_zero():
    """Differences, intervals and means that would round to zero print with two significant figures (a flagged
    -0.0042 read '+0.00'), never as -0.00; an exact zero is 0.00 (+0.00 as a difference)."""
    from ruledraft.cli.compare import comparison_text

    result = run_json("sushi-go", "--games", "4", "--bots", "random")
    rule = next(r for r in result["rows"] if r["group"] == "rules")
    rule.update(a=-0.001, b=-0.004, difference=-0.003, interval=[-0.004, -0.001])
    share = next(r for r in result["rows"] if r["figure"].endswith("win share"))
    share.update(a=0.2, b=0.19996, difference=-0.00004, interval=[-0.0004, 0.0002])
    lines = comparison_text(result, 4)
    text = "\n".join(lines)
    assert not NEGATIVE_ZERO.search(text), [x for x in lines if NEGATIVE_ZERO.search(x)]
    assert f"{rule['figure']:<27}  -0.001  -0.004  -0.003 [-0.004, -0.001]" in text
    assert f"{share['figure']:<27}   20.0%   20.0% -0.004% [-0.04%, +0.02%]" in text
    rule.update(a=0.0, b=0.01, difference=0.01, interval=[0.0, 0.02])
    assert f"{rule['figure']:<27}    0.00    0.01   +0.01   [+0.00, +0.02]" in "\n".join(comparison_text(result, 4))


def test_huge_points_show_two_figures_within_80_columns():
    """A ruleset of huge points (scores near 10**14) shows them as 1.9e14, each row within 80 columns."""
    from ruledraft.cli.compare import comparison_text

    result = run_json("sushi-go", "--games", "4", "--bots", "random")
    score = next(r for r in result["rows"] if r["figure"].endswith(" score"))
    score.update(a=35.6, b=1.86e14, difference=1.86e14 - 35.6, interval=[1.82e14, 1.9e14])
    text = "\n".join(comparison_text(result, 4))
    assert f"{score['figure']:<27}   35.60  1.9e14 +1.9e14 [+1.8e14, +1.9e14]" in text
    assert max(map(len, text.splitlines())) <= 80


def test_a_flagged_row_that_is_another_rows_test_is_explained_by_the_footnote():
    """A twin row flagged shows *, not =: the footnote then says '=, or * where flagged' (it said '=' alone)."""
    from ruledraft.cli.compare import comparison_text

    result = run_json("sushi-go", "sushi-go-pass-both-ways", "--games", "6", "--bots", "random")
    twins = [r for r in result["rows"] if r.get("same_as") and r["interval"][0] != r["interval"][1]]
    assert twins, "no row of Sushi Go! is another's test"
    assert any(line.startswith("=: the same test as another row") for line in comparison_text(result, 4))
    twins[0]["flagged"] = True
    lines = comparison_text(result, 4)
    assert any(line.startswith("* " + twins[0]["figure"]) for line in lines)
    assert any(line.startswith("=, or * where flagged: the same test as another row") for line in lines)


def test_formatted_numbers_drop_the_sign_of_zero():
    """formatted() gives 0.00 for -0.001, +0.0 for -0.04 with '+', and keeps real negatives."""
    from ruledraft.lab.figures import formatted

    assert formatted(-0.001, ".2f") == "0.00"
    assert formatted(-0.04, "+.1f") == "+0.0"
    assert formatted(-0.0004, ".1%") == "0.0%"
    assert formatted(-0.006, ".2f") == "-0.01"
    assert formatted(-0.0, ">7.2f") == "   0.00"


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")
def test_ctrl_c_stops_compare_on_one_process_with_json():
    """SIGINT during a one-process run with --json: the JSON of the pairs finished, marked interrupted; exit 130."""
    with _started(
        [sys.executable, "-m", "ruledraft", "compare", "sushi-go", "--bots", "greedy", "--games", "100000"]
        + ["--quiet", "--json", "--engine", "reference"]  # the run's Ctrl-C, not a kernel's compile
    ) as proc:
        until_busy(proc, [proc.pid], 1.5)  # past starting (about 0.4 s), pairs of games (2 ms each) finish
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    result = json.loads(out)
    played = result["games"]
    assert 0 < played < 100000
    assert (result["games_requested"], result["interrupted"]) == (100000, True)
    assert result["a"]["games"] == result["b"]["games"] == played
    assert err == f"interrupted after {played} of 100000 games\n"


def test_two_sides_playing_the_same_games_say_so_and_show_no_row():
    """compare sushi-go alone (B equals A, paired): no table of '=' rows repeating tests never made; one line says A and B played the same games and how to change B; every figure is named as not tested."""
    result = runner.invoke(app, ["compare", "sushi-go", "-g", "12", "-q"])
    assert result.exit_code == 0, result.output
    text = " ".join(result.stdout.split())
    assert "Every figure was the same on both sides in every game: A and B played the same games" in text
    assert "  figure " not in result.stdout and "\n= " not in result.stdout
    assert "the same test as another row" not in text
    equal = text.split("so not tested: ", 1)[1]
    assert "rule tempura," in equal and "card tempura points," in equal and "seat 3 score," in equal
    assert "0 figures compared; 0 flagged" in text


def test_a_side_named_past_80_columns_is_wrapped():
    """My First Meal at 4 and 6 players: B's line (a 16-digit derived seed, 84 characters) is wrapped, and every line is within 80 columns."""
    out = run("sushi-go-party-my-first-meal", "-p", "4", "--players-b", "6", "-g", "10", "-s", "1").output.splitlines()
    assert out[1] == "B: sushi-go-party-my-first-meal, 6 players, greedy, random x5,"
    assert out[2].startswith("   seed ") and out[3] == "10 games a side"
    assert max(map(len, out)) <= 80


def test_cards_and_rules_only_one_side_has_are_named_once():
    """Soy sauce is only in side B: a line says so, that its rows count 0 on side A and that its win figures are
    not compared (there are no vs none or per copy rows of it); a fifth seat only B has is named too."""
    from ruledraft.cli.compare import comparison_text

    result = run_json("sushi-go", "sushi-go-soy-sauce", "--games", "20", "--bots", "random")
    text = " ".join("\n".join(comparison_text(result, 20)).split())
    assert "Only B has card soy_sauce, rule soy_sauce (0 on the other side; no win figures for such a card)." in text
    assert not [r for r in result["rows"] if r["figure"].startswith("card soy_sauce ") and "vs none" in r["figure"]]
    same = run_json("sushi-go", "--games", "20", "--bots", "random")
    assert "Only " not in "\n".join(comparison_text(same, 20))
    five = run_json("sushi-go", "--players-b", "5", "--games", "20", "--bots", "random")
    assert "Only B has seat 4 (such a seat is not compared)." in "\n".join(comparison_text(five, 20))
