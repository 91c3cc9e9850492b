"""`simulate`'s summary says what its words mean: a one-line legend under the tables,
a note when the seats' bots differ (then "vs none" mostly tells the bots apart), a
note on effect cards' zero points, `--explain` for a paragraph per figure; and at
80 columns no interval is split over two lines."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.cli.simulate import CARDS_LEGEND, EXPLANATIONS, FEW_LEGEND, SEATS_LEGEND, TEST_LEGEND

runner = CliRunner()
INTERVAL = re.compile(r"[-+]?\d+\.\d+%? to [-+]?\d+\.\d+%?|\d+\.\d-\d+\.\d%")


def simulate(*args: str) -> list[str]:
    """The summary's lines as printed at 80 columns (as when piped)."""
    done = runner.invoke(app, ["simulate", *args], env={"COLUMNS": "80"})
    assert done.exit_code == 0, done.output
    return done.output.splitlines()


@pytest.fixture(scope="module")
def mixed() -> list[str]:
    """Five seats, greedy against random: the widest Sushi Go! summary."""
    return simulate("sushi-go", "--players", "5", "--games", "60", "--seed", "3", "--bots", "greedy,random")


def test_each_legend_is_one_line_under_its_table(mixed):
    """The legends are printed whole, each on one line of at most 80 columns."""
    for legend in (SEATS_LEGEND, TEST_LEGEND, CARDS_LEGEND):
        assert legend in mixed
        assert len(legend) <= 80
    assert mixed.index(SEATS_LEGEND) < mixed.index(TEST_LEGEND) < mixed.index(CARDS_LEGEND)


def test_no_interval_is_split_at_80_columns(mixed):
    """Every interval cell reads whole on its line ('17.3 to 18.1', never '17.3 to' / '18.1')."""
    assert all(len(line) <= 80 for line in mixed)
    cells = [c.strip() for line in mixed for c in line.split("│")]
    broken = [c for c in cells if c.endswith(" to") or c.startswith("to ")]
    assert not broken
    assert sum(1 for line in mixed if INTERVAL.search(line)) >= 12


def test_different_bots_are_named_as_the_cause_of_vs_none(mixed):
    """With greedy and random seats the summary says 'vs none' mostly shows the bots, and how to fix it."""
    assert "Different bots at the seats: 'vs none' mostly shows which bot takes a card." in mixed
    assert "For card figures give every seat one bot (--bots greedy)." in mixed


def test_a_card_difference_from_few_seat_games_is_marked_and_the_mark_explained():
    """The guide's fruit stand at 3 players: only 2 seat-games took no pear, so its vs none
    (-66.8, an interval that leaves out 0) is marked * and a legend says why; a card
    compared over many seat-games is not marked."""
    lines = simulate("examples/tutorial/step7.yaml", "--players", "3", "--games", "500", "--seed", "1", "-q")
    legend = FEW_LEGEND.format(fewest=30)
    assert legend in lines and len(legend) <= 80
    pear = [line for line in lines if line.startswith("│ pear ")]
    assert len(pear) == 2 and all("*" in line for line in pear)
    assert "-66.8*" in pear[0] and "-12.6*" in pear[1]
    assert not any("*" in line for line in lines if line.startswith("│ cherry "))
    done = runner.invoke(
        app, ["simulate", "examples/tutorial/step7.yaml", "-p", "3", "-g", "500", "--seed", "1", "--json"]
    )
    few = {
        c["card"]
        for c in json.loads(done.stdout)["figures"]["cards"]
        if 0 < min(c["takers"]["seats"], c["non_takers"]["seats"]) < 30
    }
    assert few == {line.split()[1] for line in lines if line.startswith("│ ") and "*" in line} == {"pear"}


def test_one_bot_everywhere_has_no_bots_note():
    """With the same bot at every seat there is nothing to warn about."""
    lines = simulate("sushi-go", "--players", "3", "--games", "30", "--bots", "random")
    assert not any("Different bots" in line for line in lines)
    assert CARDS_LEGEND in lines


def test_effect_cards_zero_points_are_explained():
    """Chopsticks score nothing themselves: the note names them and says where their worth shows."""
    lines = simulate("sushi-go", "--players", "3", "--games", "30", "--bots", "random")
    assert "pts is 0 for effect cards (chopsticks): their worth shows in win% and vs none" in lines
    row = next(line for line in lines if line.startswith("│ chopsticks"))
    assert row.split("│")[4].strip() == "0.00"


def test_explain_gives_a_paragraph_per_figure():
    """`--explain` prints each figure's paragraph; without it, one line says it exists."""
    plain = "\n".join(simulate("sushi-go", "--players", "2", "--games", "20"))
    told = " ".join(" ".join(simulate("sushi-go", "--players", "2", "--games", "20", "--explain")).split())
    assert "(--explain says what each figure means)" in plain
    assert "(--explain says" not in told
    for name, text in EXPLANATIONS:
        assert f"{name}: {text.split()[0]}" in told
        assert " ".join(text.split()[-3:]) in told


def test_json_has_no_words():
    """`--json` stays JSON: no legend reaches it."""
    done = runner.invoke(app, ["simulate", "sushi-go", "--players", "2", "--games", "5", "--json"])
    assert done.exit_code == 0
    assert SEATS_LEGEND not in done.output


def test_the_seat_test_says_it_compares_bots_when_the_seats_play_different_bots():
    """greedy,random: under the seat test a line says it compares the bots, not the seats; one bot at every seat: no such line."""
    from ruledraft.cli.simulate import MIXED_SEATS

    mixed = runner.invoke(app, ["simulate", "sushi-go", "-p", "2", "-g", "30", "-q"], env={"COLUMNS": "80"}).stdout
    lines = mixed.splitlines()
    test = next(i for i, x in enumerate(lines) if x.startswith(("seats differ", "no evidence seats differ")))
    assert lines[test + 1] == MIXED_SEATS == "The seats play different bots: this compares the bots, not the seats."
    same = runner.invoke(
        app, ["simulate", "sushi-go", "-p", "2", "-g", "30", "-q", "-b", "greedy"], env={"COLUMNS": "80"}
    )
    assert MIXED_SEATS not in same.stdout and "seats differ" in same.stdout


def test_one_game_is_counted_in_the_singular():
    """A run of one game says "1 game" in its title and its timing line, as any other count says "N games"."""
    lines = simulate("sushi-go", "--players", "2", "--games", "1", "--engine", "reference")
    assert any("Sushi Go!: 1 game, 2 players" in line for line in lines), lines
    assert any(line.startswith("1 game in ") for line in lines), lines
    assert not any(re.search(r"(?<![\d,])1 games", line) for line in lines)
    assert any(
        line.startswith("2 games in ") for line in simulate("sushi-go", "-p", "2", "-g", "2", "--engine", "reference")
    )


def test_a_card_only_effects_place_is_named_with_its_points():
    """A card never taken but turned into by takeout boxes (its pts '-') is named under the table with its points a game, as --json has them."""
    import json

    from paths import DATA

    args = [str(DATA / "effects-flip-copy.yaml"), "--players", "4", "--games", "200", "--seed", "3", "--bots", "greedy"]
    figures = json.loads(runner.invoke(app, ["simulate", *args, "--json"]).stdout)["figures"]
    placed = next(c for c in figures["cards"] if c["card"] == "takeout_face_down")
    assert placed["taken_per_game"] == 0 and placed["points_per_game"] > 0
    lines = simulate(*args)
    assert (
        f"never taken, only placed by card effects, points a game: takeout_face_down {placed['points_per_game']:.2f}"
        in lines
    )


def test_a_slow_runs_games_a_second_are_not_rounded_to_nothing():
    """Games a second are whole from 10 up and two figures below: 2 games in 8.92 s read "0 games/s"."""
    from ruledraft.cli.simulate import rate_text

    assert [rate_text(x) for x in (2 / 8.92, 2.0, 9.54, 10.4, 12345.6, 0.0)] == [
        "0.22",
        "2",
        "9.5",
        "10",
        "12,346",
        "0",
    ]
