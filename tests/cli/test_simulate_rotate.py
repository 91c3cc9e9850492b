"""``simulate --rotate``: every rotation of the line-up plays the same deals; the seats are measured with the
bots balanced, each bot's win share comes from the games, and the adjusted card effect is taken within seat and bot."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest
from strategies import bundled_ruleset
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.lab.statistics import mantel_haenszel
from ruledraft.play.match import Match
from ruledraft.play.runner import simulate_match

runner = CliRunner()

ARGS = ["sushi-go", "-p", "2", "-g", "60", "-s", "5", "-b", "greedy,random", "-q", "--json"]


def run(*args) -> dict:
    result = runner.invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


@pytest.fixture(scope="module")
def rotated(tmp_path_factory):
    log = tmp_path_factory.mktemp("rotate") / "games.jsonl"
    out = run("simulate", *ARGS, "--rotate", "--log", log)
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return out, records


def test_rotated_seats_are_the_two_seatings_summed_and_close(rotated):
    """Greedy against random, rotated: 120 games, each seat's wins are the sum of the two plain runs on the same
    seeds, and the two seats' win shares lie close together although greedy wins far more than random."""
    out, _ = rotated
    a = run("simulate", *ARGS, "--no-cards")
    b = run("simulate", *[x if x != "greedy,random" else "random,greedy" for x in ARGS], "--no-cards")
    assert out["games"] == 120 and out["games_requested"] == 120
    wins = [s["wins"] for s in out["seats"]]
    assert wins == pytest.approx([x["wins"] + y["wins"] for x, y in zip(a["seats"], b["seats"])])
    assert [s["bot"] for s in out["seats"]] == ["rotated", "rotated"]
    shares = [s["win_share"] for s in out["seats"]]
    plain = [s["win_share"] for s in a["seats"]]
    assert abs(shares[0] - shares[1]) < 0.15  # seat 0 vs seat 1 with the bots balanced
    assert abs(plain[0] - plain[1]) > 0.4  # without rotation the "seat" difference is greedy over random
    assert out["figures"]["rotation"]["seatings"] == [["greedy", "random"], ["random", "greedy"]]


def test_each_bots_win_share_is_what_the_logged_games_give(rotated):
    """Each bot's win share (and its rate per seat) equals its wins recomputed from the `--log` records of both
    seatings (a shared win counted as a fraction), the first 60 records greedy-random, the next 60 random-greedy,
    on the same seeds."""
    out, records = rotated
    assert len(records) == 120
    assert [r["seed"] for r in records[:60]] == [r["seed"] for r in records[60:]]
    assert {tuple(r["seats"]) for r in records[:60]} == {("greedy", "random")}
    assert {tuple(r["seats"]) for r in records[60:]} == {("random", "greedy")}
    wins: dict[str, Fraction] = {"greedy": Fraction(0), "random": Fraction(0)}
    for r in records:
        for w in r["winners"]:
            wins[r["seats"][w]] += Fraction(1, len(r["winners"]))
    bots = {b["bot"]: b for b in out["figures"]["rotation"]["bots"]}
    for bot in ("greedy", "random"):
        assert bots[bot]["seats"] == 1
        assert bots[bot]["win_share"] == pytest.approx(float(wins[bot]) / 120)
        assert bots[bot]["win_rate_per_seat"] == pytest.approx(float(wins[bot]) / 120)
        lo, hi = bots[bot]["interval"]
        assert lo < bots[bot]["win_share"] < hi
    assert bots["greedy"]["win_share"] > 0.7


def test_adjusted_card_effect_is_stratified_by_seat_and_bot(rotated):
    """The adjusted card effect of a rotated run is Mantel-Haenszel over four strata (seat 0 and 1, each with
    greedy and with random), counted from the two seatings' own tallies."""
    out, _ = rotated
    rs = bundled_ruleset("sushi-go")
    labs = {}
    for bots in (("greedy", "random"), ("random", "greedy")):
        summary = simulate_match(Match.trusted(rs, 2, bots, 5), 60)
        labs[bots] = summary.tally.lab
    checked = 0
    for c, card in enumerate(out["figures"]["cards"]):
        strata = [row for bots, lab in labs.items() for row in lab.card_strata(c)]
        expected = mantel_haenszel(strata)
        if expected is None:
            assert card["adjusted"] is None
            continue
        assert card["adjusted"]["difference"] == pytest.approx(expected[0])
        assert card["adjusted"]["variance"] == pytest.approx(mantel_haenszel(strata, add=1.0)[1])
        checked += 1
    assert checked >= 5


def test_rotate_gives_the_same_figures_on_two_jobs(rotated):
    """`--jobs 2` gives the very figures of `--jobs 1`."""
    one, _ = rotated
    two = run("simulate", *ARGS, "--rotate", "-j", "2")
    for key in ("elapsed_seconds", "games_per_second"):
        one = {k: v for k, v in one.items() if k != key}
        two = {k: v for k, v in two.items() if k != key}
    assert two == one


def test_rotate_text_and_report_show_the_bots(tmp_path):
    """The printed summary and the HTML report of a rotated run show each bot's win share over the seatings."""
    result = runner.invoke(
        app,
        [
            "simulate",
            "sushi-go",
            "-p",
            "2",
            "-g",
            "20",
            "-b",
            "greedy,random",
            "-q",
            "--rotate",
            "--report",
            str(tmp_path / "r"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Bots: win share over the seatings" in result.output
    assert "2 seatings of 20 deals each" in result.output
    assert "this compares the bots, not the seats" not in result.output
    page = "".join(p.read_text(encoding="utf-8") for p in (tmp_path / "r").rglob("*.html"))
    assert "Bots over the seatings" in page


def test_rotate_with_one_bot_plays_the_line_up_once():
    """With one bot at every seat there is one seating: the games are the plain run's, the seats name their bot (not
    'rotated'), and the summary says so."""
    args = ["simulate", "sushi-go", "-p", "2", "-g", "10", "-s", "3", "-b", "greedy", "-q"]
    plain = run(*args, "--json")
    rotated = run(*args, "--json", "--rotate")
    assert rotated["figures"]["rotation"]["seatings"] == [["greedy", "greedy"]]
    assert [s["wins"] for s in rotated["seats"]] == [s["wins"] for s in plain["seats"]]
    assert [s["bot"] for s in rotated["seats"]] == ["greedy", "greedy"]
    assert rotated["figures"]["rotation"]["bots"][0]["win_share"] == pytest.approx(1.0)
    text = runner.invoke(app, [*args, "--rotate"]).output
    assert "one bot at every seat: --rotate plays the line-up as it is" in text
