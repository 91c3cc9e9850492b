"""``ruledraft sweep``: player counts, figures per count, output and errors."""

from __future__ import annotations

import json
import os

import pytest
from processes import until_busy
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.errors import InputError
from ruledraft.lab.sweep import few_seats, player_counts, top_cards
from ruledraft.language.loading import load_ruleset
from ruledraft.play.runner import simulate

runner = CliRunner()


def run(*args: str):
    return runner.invoke(app, ["sweep", *args, "--quiet"], env={"COLUMNS": "80"})


def run_json(*args: str) -> dict:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize(
    ("text", "counts"),
    [("2-5", [2, 3, 4, 5]), ("3,5", [3, 5]), ("2-3,5", [2, 3, 5]), ("4", [4]), (" 5, 3 ,3", [3, 5]), ("3-3", [3])],
)
def test_player_counts_take_ranges_and_lists(text, counts):
    """--players takes a range, a list or both: the counts sorted, each once."""
    assert player_counts(text, 2, 5) == counts


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("5-2", "--players 5-2: the range runs backwards (write 2-5)"),
        ("two", "--players takes counts such as 2-5 or 3,5, not 'two'"),
        ("2-", "--players takes counts such as 2-5 or 3,5, not '2-'"),
        ("2-3-4", "--players takes counts such as 2-5 or 3,5, not '2-3-4'"),
        ("", "--players takes counts such as 2-5 or 3,5, not ''"),
        ("2-7", "Sushi Go! is for 2-5 players, not 6-7"),
        ("1,3", "Sushi Go! is for 2-5 players, not 1"),
        ("1,7,8-9,3", "Sushi Go! is for 2-5 players, not 1, 7-9"),  # every count outside, ranges joined
        ("0-1000000000", "Sushi Go! is for 2-5 players, not 0-1, 6-1000000000"),  # said, never counted out
    ],
)
def test_bad_player_counts_say_what_is_wrong(text, message):
    """A backwards range, words, or counts the ruleset does not allow (every one of them): an InputError saying so."""
    with pytest.raises(InputError) as caught:
        player_counts(text, 2, 5, "Sushi Go!")
    assert str(caught.value) == message


def test_top_cards_rank_by_the_win_rate_difference_within_each_seat_and_bot():
    """The cards whose takers out-win the others most within each seat and bot (the plain difference where there is no adjusted one) come first; a card nobody or everybody took, or with fewer than 30 seat-games of takers or of others, is left out (and named as such)."""
    cards = [
        {"card": "a", "difference": 0.1, "takers": {"seats": 30}, "non_takers": {"seats": 50}},
        {"card": "b", "difference": 0.3, "takers": {"seats": 50}, "non_takers": {"seats": 30}},
        {
            "card": "g",
            "difference": 0.6,
            "adjusted": {"difference": 0.05},
            "takers": {"seats": 40},
            "non_takers": {"seats": 40},
        },
        {"card": "c", "difference": 0.9, "takers": {"seats": 0}, "non_takers": {"seats": 80}},
        {"card": "d", "difference": -0.2, "takers": {"seats": 40}, "non_takers": {"seats": 40}},
        {"card": "e", "difference": 0.33, "takers": {"seats": 79}, "non_takers": {"seats": 1}},
        {"card": "f", "difference": 0.5, "takers": {"seats": 80}, "non_takers": {"seats": 0}},
    ]
    assert top_cards({"cards": cards}, 2) == [("b", 0.3), ("a", 0.1)]
    assert top_cards({"cards": cards}, 4) == [("b", 0.3), ("a", 0.1), ("g", 0.05), ("d", -0.2)]
    assert few_seats({"cards": cards}) == ["e", "f"]
    assert top_cards({"cards": None}) == [] and few_seats({"cards": None}) == []


def test_the_top_cards_say_what_is_not_ranked_and_rank_by_the_seat_and_bot_adjusted_effect():
    """Under the top cards: a line when cards were left out for too few seat-games; with
    different bots at the seats each card shown is its adjusted effect, as simulate --json gives it."""
    mixed = run("sushi-go", "--players", "2", "--games", "200", "--bots", "greedy,random", "--seed", "1").stdout
    alike = run("sushi-go", "--players", "2,3", "--games", "40", "--bots", "random").stdout
    assert "  (not ranked: cards with fewer than 30 seat-games of takers or of others)" in alike.splitlines()
    assert "mostly shows which bot" not in mixed
    lines = mixed.splitlines()
    shown = lines[next(i for i, x in enumerate(lines) if x.startswith("top cards:")) + 1].split(None, 2)[2]
    cards = simulate(load_ruleset("sushi-go"), 2, 200, 1, ["greedy", "random"], cards=True).figures["cards"]
    ranked = [c for c in cards if min(c["takers"]["seats"], c["non_takers"]["seats"]) >= 30]
    ranked.sort(key=lambda c: -c["adjusted"]["difference"])
    assert shown == ", ".join(f"{c['card']} {100 * c['adjusted']['difference']:+.0f}" for c in ranked[:3])
    assert any(abs(c["adjusted"]["difference"] - c["difference"]) > 0.1 for c in ranked)  # the plain one differs


def test_each_count_has_simulate_figures_from_the_same_seed():
    """sweep --json: per count, the figures simulate gives at that count from the same seed and bots."""
    result = run_json("sushi-go", "--players", "2,4", "--games", "20", "--bots", "greedy,random", "--seed", "3")
    assert (result["ruleset"], result["bots"], result["games"], result["seed"]) == ("sushi-go", "greedy,random", 20, 3)
    assert [c["players"] for c in result["counts"]] == [2, 4]
    rs = load_ruleset("sushi-go")
    for count in result["counts"]:
        n = count["players"]
        assert count["bots"] == ["greedy"] + ["random"] * (n - 1)
        expected = simulate(rs, n, 20, 3, count["bots"], cards=True).figures
        assert count["figures"] == json.loads(json.dumps(expected))


def test_jobs_do_not_change_the_sweep():
    """--jobs 1 and --jobs 2 give the same JSON."""
    args = ["sushi-go", "--players", "2-3", "--games", "30", "--bots", "random"]
    assert run_json(*args, "--jobs", "1") == run_json(*args, "--jobs", "2")


def test_terminal_blocks_fit_80_columns_with_a_column_per_count():
    """Five counts of a ruleset fit 80 columns in pages of four counts, one block per figure."""
    result = run("sushi-go", "--players", "2-5", "--games", "12", "--bots", "random")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    assert lines[0] == "sushi-go: 12 games per player count, bots random, seed 0"
    header = next(line for line in lines if "players" in line and line.startswith(" "))
    assert header.split() == ["2", "players", "3", "players", "4", "players", "5", "players"]
    for title in (
        "win share % [95% interval]",
        "mean score (sd)",
        "margin of victory",
        "mean points per seat, by rule",
        "top cards: takers' win rate - the others', within each seat and bot (% points)",
    ):
        assert title in lines
    seat4 = next(line for line in lines if line.startswith("  seat 4"))
    assert seat4.split()[2:5] == ["-", "-", "-"]  # seat 4 plays at 5 players only
    assert any(line.startswith("  5 players ") for line in lines)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["nope", "--players", "2-3"], "error: no ruleset 'nope': not a file, nor a bundled ruleset; bundled: "),
        (["sushi-go", "--players", "3-9"], "error: Sushi Go! is for 2-5 players, not 6-9\n"),
        (["sushi-go", "--players", "4-2"], "error: --players 4-2: the range runs backwards (write 2-4)\n"),
        (["sushi-go", "--players", "x"], "error: --players takes counts such as 2-5 or 3,5, not 'x'\n"),
        (["sushi-go", "--players", "2", "--bots", "nope"], "error: unknown bot 'nope'"),
    ],
)
def test_errors_are_one_line_with_exit_2(args, message):
    """An unknown ruleset, a bad player range or a bad bot: one line on stderr, exit 2."""
    result = run(*args, "--games", "2")
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(message) and len(result.stderr.splitlines()) == 1


def test_a_value_that_rounds_to_zero_never_shows_a_minus_sign():
    """Rule means, scores, margins and card differences that round to zero print without a minus sign."""
    import re

    from ruledraft.cli.sweep import sweep_text

    result = run_json("sushi-go", "--players", "2-3", "--games", "6", "--bots", "random")
    for count in result["counts"]:
        f = count["figures"]
        for r in f["rules"]:
            r["mean"] = -0.001
        f["seats"][0]["mean"] = -0.01
        f["margin"]["mean"] = -0.001
        for c in f["cards"]:
            c["difference"] = -0.001
    lines = sweep_text(result)
    bad = re.compile(r"-0(\.0+)?(?![.\d])")
    assert not [x for x in lines if bad.search(x)]
    assert any(line.startswith("  maki ") and line.split()[1:] == ["0.00", "0.00"] for line in lines)


def test_wide_cells_widen_every_column_and_keep_two_spaces_between_them():
    """A certain win ("100.0 [91,100]") and a large score take wider columns, each cell two spaces from the last, within 80 columns."""
    from ruledraft.cli.sweep import sweep_text

    result = run_json("sushi-go", "--players", "2-5", "--games", "6", "--bots", "random")
    for count in result["counts"]:
        seats = count["figures"]["seats"]
        seats[0]["win_share"], seats[0]["win_share_interval"] = 1.0, [0.914, 1.0]
        seats[1]["mean"] = -123456.7
    lines = sweep_text(result)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]
    seat0 = [line for line in lines if line.startswith("  seat 0") and "[" in line]
    assert [line.count("100.0 [91,100]") for line in seat0] == [3, 1]  # three counts a page, then one
    assert all("  100.0 [91,100]" in line[2:] for line in seat0)
    assert any(" -123456.7 (" in line for line in lines)
    header = next(line for line in lines if line.startswith(" " * 20))
    assert len(header) == len(seat0[0])  # the counts' names over their columns


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="needs /proc")
def test_ctrl_c_prints_the_counts_finished_and_the_one_cut_short():
    """SIGINT during a sweep: the counts finished and the one cut short are shown, then 'interrupted after N of G games at P players'; exit 130."""
    import signal
    import subprocess
    import sys
    import time

    # enough games that the sweep is far from done when the signal comes at 6 s (idle,
    # two players take about 6.5 s): a stop after the last game would leave nothing to cut;
    # on the reference engine, which plays them at a known pace (the kernel finishes sooner)
    GAMES = 10_000
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "sweep", "sushi-go", "--players", "2,5", "--bots", "greedy"]
        + ["--games", str(GAMES), "--quiet", "--json", "--engine", "reference"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        started = time.monotonic()
        until_busy(proc, [proc.pid], 1.0)  # started (about 0.4 s) and playing, however busy the machine
        time.sleep(max(0.0, 6 - (time.monotonic() - started)))
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, err
    result = json.loads(out)
    cut = result["interrupted_at"]
    assert cut in (2, 5)
    finished = [c for c in result["counts"] if c["players"] != cut]
    assert [c["players"] for c in finished] == ([2] if cut == 5 else [])
    assert all(c["games"] == c["figures"]["games"] == GAMES for c in finished)
    short = [c for c in result["counts"] if c["players"] == cut]
    played = short[0]["games"] if short else 0
    assert played == (short[0]["figures"]["games"] if short else 0) < GAMES
    done = ", ".join(str(c["players"]) for c in finished)
    also = f" (finished: {done} players)" if finished else ""
    assert err == f"interrupted after {played} of {GAMES} games at {cut} players{also}\n"


def test_the_heading_of_a_long_ruleset_name_is_wrapped_at_80_columns():
    """sushi-go-party-my-first-meal, bots greedy,random: its first line (82 characters) is wrapped, and every line is within 80 columns."""
    out = run("sushi-go-party-my-first-meal", "--players", "2-3", "--games", "5", "--seed", "1").output.splitlines()
    assert out[:2] == ["sushi-go-party-my-first-meal: 5 games per player count, bots greedy,random,", "seed 1"]
    assert max(map(len, out)) <= 80
