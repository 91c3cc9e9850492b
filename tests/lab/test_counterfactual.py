"""Marginal points (what a seat loses without one copy): hand-worked tables from the
rulebook, properties against a full rescoring of the game, and ``simulate --marginal``."""

from __future__ import annotations

import json

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import BUNDLED_RULESETS, bundled_game, bundled_ruleset, bundled_table_scored, finished_tables
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.scoresheet import PlayedGame, score_game
from ruledraft.lab.counterfactual import MarginalCounts, _without, game_losses, table_losses
from ruledraft.lab.extra_counts import with_extras
from ruledraft.play.match import Match
from ruledraft.play.runner import game_seed, play_game, simulate_match
from ruledraft.tableau import Tableau

runner = CliRunner()


def table(rs, *seats):
    """One round: per seat, card ids in play order, as card indices."""
    return [[rs.card_index(c) for c in seat] for seat in seats]


def losses_by_seat(rs, rounds):
    """(seat, card id, loss) of every copy, in table order."""
    return [(x.seat, rs.card_id(x.card), x.loss) for x in table_losses(rs, rounds)]


def sushi():
    return bundled_ruleset("sushi-go")


# ---------------------------------------------------------------- the rulebook, by hand


def test_each_of_three_sashimi_is_worth_the_whole_set_and_a_fourth_nothing():
    """Sashimi scores 10 per set of 3: without any one of three the set is gone (10 lost); a fourth adds nothing."""
    rs = sushi()
    three = losses_by_seat(rs, [table(rs, ["sashimi"] * 3, ["tempura"])])
    assert three == [(0, "sashimi", 10)] * 3 + [(1, "tempura", 0)]
    four = losses_by_seat(rs, [table(rs, ["sashimi"] * 4, [])])
    assert [loss for _, _, loss in four] == [0, 0, 0, 0]


def test_a_wasabi_under_a_squid_nigiri_is_worth_six():
    """A squid nigiri on a wasabi scores 9 (3 tripled): without the wasabi it scores 3, so the wasabi brings 6."""
    rs = sushi()
    out = losses_by_seat(rs, [table(rs, ["wasabi", "squid_nigiri", "tempura"], ["egg_nigiri", "wasabi"])])
    assert out == [
        (0, "wasabi", 6),
        (0, "squid_nigiri", 9),
        (0, "tempura", 0),
        (1, "egg_nigiri", 1),  # played before the wasabi: never tripled
        (1, "wasabi", 0),  # no nigiri after it
    ]


def test_a_wasabi_taken_off_lets_the_next_wasabi_triple_the_nigiri():
    """Two wasabi, one squid: the squid lands on the oldest; without it, the second wasabi takes the squid (loss 0)."""
    rs = sushi()
    out = losses_by_seat(rs, [table(rs, ["wasabi", "wasabi", "squid_nigiri"], [])])
    assert out == [(0, "wasabi", 0), (0, "wasabi", 0), (0, "squid_nigiri", 9)]


def test_a_maki_taken_off_changes_the_majority_as_the_rulebook_says():
    """Rulebook: 5, 3, 3, 2 icons score 6, 1, 1, 0. Without the 3-icon maki the 5 falls to 2 and the two 3s
    split first place (seat 0 loses 6); without a 1-icon maki a 3 falls to 2 and loses its share of second (1)."""
    rs = sushi()
    rnd = table(rs, ["maki_3", "maki_2"], ["maki_2", "maki_1"], ["maki_3"], ["maki_2"])
    assert score_game(rs, PlayedGame.from_tables(rs, [rnd])).rounds[0].by_rule()["maki"] == [6, 1, 1, 0]
    out = losses_by_seat(rs, [rnd])
    assert out == [
        (0, "maki_3", 6),  # 2, 3, 3, 2: seats 1 and 2 split 6, no second place
        (0, "maki_2", 4),  # 3, 3, 3, 2: three split 6 (2 each)
        (1, "maki_2", 1),  # 5, 1, 3, 2: seat 2 alone second
        (1, "maki_1", 1),  # 5, 2, 3, 2
        (2, "maki_3", 1),  # 5, 3, 0, 2: its maki gone, it never scores maki
        (3, "maki_2", 0),
    ]


def test_a_pudding_is_valued_at_game_end_by_the_rulebook_example():
    """Rulebook: 4, 3, 0, 0 puddings score +6, 0, -3, -3. One pudding fewer for the 4 makes a tie for most (3 each
    of 6): it loses 3; the 3's pudding changes nothing; the round's points are not touched."""
    rs = sushi()
    rounds = [table(rs, ["pudding"] * 2, ["pudding"] * 3, [], [])] + [table(rs, ["pudding"] * 2, [], [], [])]
    rounds += [table(rs, [], [], ["tempura"], [])]
    sheet = score_game(rs, PlayedGame.from_tables(rs, rounds))
    assert sheet.game_end_points == [6, 0, -3, -3]
    out = table_losses(rs, rounds)
    puddings = [(x.round, x.seat, x.round_loss, x.game_end_loss) for x in out if rs.card_id(x.card) == "pudding"]
    assert puddings == [(1, 0, 0, 3)] * 2 + [(1, 1, 0, 0)] * 3 + [(2, 0, 0, 3)] * 2


def test_each_of_three_dumplings_is_worth_the_step_of_the_table():
    """Dumplings score 1, 3, 6, 10, 15: with three (6 points) each is worth 6 - 3 = 3; a sixth adds nothing."""
    rs = sushi()
    assert [x for _, _, x in losses_by_seat(rs, [table(rs, ["dumpling"] * 3, [])])] == [3, 3, 3]
    assert {x for _, _, x in losses_by_seat(rs, [table(rs, ["dumpling"] * 6, [])])} == {0}


def test_soy_sauce_and_chopsticks_show_what_they_are_worth():
    """Soy sauce promo: the most colours among players with a soy sauce split 4. A lone soy sauce at the top is
    worth all 4; chopsticks, worth 0 in plain Sushi Go!, are worth 4 when their colour makes the top count."""
    rs = bundled_ruleset("sushi-go-soy-sauce")
    out = losses_by_seat(rs, [table(rs, ["soy_sauce", "chopsticks"], ["tempura", "sashimi"])])
    assert out == [(0, "soy_sauce", 4), (0, "chopsticks", 4), (1, "tempura", 0), (1, "sashimi", 0)]
    plain = losses_by_seat(sushi(), [table(sushi(), ["chopsticks", "tempura"], ["tempura"])])
    assert plain[0] == (0, "chopsticks", 0)


def test_the_neighbours_gain_is_not_this_seats_loss():
    """Two players, 3 and 2 icons score 6 and 3: without its maki seat 0 loses its 6 (seat 1's rise from 3 to 6
    is seat 1's gain, not counted), and seat 1 without its maki loses its 3."""
    rs = sushi()
    out = losses_by_seat(rs, [table(rs, ["maki_3"], ["maki_2"])])
    assert out == [(0, "maki_3", 6), (1, "maki_2", 3)]


# ---------------------------------------------------------------- properties


@settings(max_examples=40)
@given(data=st.data())
def test_a_copys_loss_is_its_seats_total_minus_the_total_of_the_game_without_it(data):
    """For any table of any table-scored ruleset, a copy's marginal points equal its seat's total minus the seat's
    total when the whole game is scored again (score_game) without that one copy."""
    rid = data.draw(st.sampled_from(bundled_table_scored()))
    rs = bundled_ruleset(rid)
    rounds = [[[rs.card_index(c) for c in seat] for seat in rnd] for rnd in data.draw(finished_tables(rid))["rounds"]]
    before = score_game(rs, PlayedGame.from_tables(rs, rounds)).totals
    losses = table_losses(rs, rounds)
    assume(losses)
    pick = data.draw(st.sampled_from(losses))
    without = [[seat[:] for seat in rnd] for rnd in rounds]
    del without[pick.round - 1][pick.seat][pick.position]
    after = score_game(rs, PlayedGame.from_tables(rs, without)).totals
    assert pick.loss == before[pick.seat] - after[pick.seat]
    assert rs.card_id(pick.card) == rs.card_id(rounds[pick.round - 1][pick.seat][pick.position])


@settings(max_examples=40)
@given(data=st.data())
def test_taking_a_card_off_never_changes_another_seats_points_from_its_own_cards(data):
    """A rule that scores each seat from its own cards (per card, sets, tables) gives every other seat the same
    points whichever copy leaves a table."""
    rid = data.draw(st.sampled_from(bundled_table_scored()))
    rs = bundled_ruleset(rid)
    rnd = data.draw(finished_tables(rid))["rounds"][0]
    t = Tableau.from_cards(rs.catalogue.size, [[rs.card_index(c) for c in seat] for seat in rnd])
    seat = data.draw(st.integers(0, t.num_seats - 1))
    assume(t.cards[seat])
    t2 = _without(t, seat, data.draw(st.integers(0, len(t.cards[seat]) - 1)))
    own = [r for r in rs.round_rules if r.own_cards_only]
    assert own
    for other in range(t.num_seats):
        if other != seat:
            assert [r.score_seat(t2, other) for r in own] == [r.score_seat(t, other) for r in own]


NIGIRI = {"egg_nigiri": 1, "salmon_nigiri": 2, "squid_nigiri": 3}


@settings(max_examples=40)
@given(tables=finished_tables("sushi-go"))
def test_a_nigiri_with_no_wasabi_is_worth_its_printed_value_and_sets_their_step(tables):
    """Without wasabi on the table a nigiri is worth 1, 2 or 3 (per card: its own points); tempura 5 when it
    completes a pair, sashimi 10 when it completes a set; chopsticks nothing."""
    rs = sushi()
    rounds = [[[c for c in seat if c != "wasabi"] for seat in rnd] for rnd in tables["rounds"]]
    idx = [[[rs.card_index(c) for c in seat] for seat in rnd] for rnd in rounds]
    for x in table_losses(rs, idx):
        cid = rs.card_id(x.card)
        n = rounds[x.round - 1][x.seat].count(cid)
        expected = {
            "tempura": 5 if n % 2 == 0 else 0,
            "sashimi": 10 if n % 3 == 0 else 0,
            "chopsticks": 0,
        }.get(cid, NIGIRI.get(cid))
        if expected is not None:
            assert x.loss == expected, (cid, n)


# ---------------------------------------------------------------- over a simulation


@pytest.mark.parametrize("rid", BUNDLED_RULESETS)
def test_played_games_of_every_bundled_ruleset_are_valued_as_their_tables(rid):
    """Every bundled ruleset's played games are valued (card effects, races and the dummy too); where the
    tables alone can be scored, the values from the game's own scorings equal those from its tables."""
    rs = bundled_ruleset(rid)
    game = bundled_game(rid, rs.min_players)
    counts = MarginalCounts.for_game(game)
    for i in range(3):
        state = play_game(game, game_seed(2, i), ["random"] * rs.min_players)
        counts.add_state(state)
        played = PlayedGame.from_history(game.num_players, state.history)
        kept = Tableau(state.kept_counts, state.kept_cards, rs.rounds)
        mine = game_losses(rs, played, state.scorings, kept)
        assert all(x.seat < game.num_players for x in mine)
        if rid in bundled_table_scored():
            assert mine == game_losses(rs, played)
    assert counts.games == 3 and sum(counts.copies) > 0


def test_the_counts_are_the_sum_of_each_games_losses_the_game_as_the_unit():
    """MarginalCounts sums each game's losses per card (player seats), and their squares game by game."""
    game = bundled_game("sushi-go", 3)
    states = [play_game(game, game_seed(5, i), ["random"] * 3) for i in range(12)]
    counts = MarginalCounts.for_game(game)
    for s in states:
        counts.add_state(s)
    K = game.num_card_types
    per_game = []
    for s in states:
        row = [0] * K
        for x in game_losses(game.ruleset, PlayedGame.from_history(3, s.history)):
            row[x.card] += x.loss
        per_game.append(row)
    assert counts.points == [sum(r[c] for r in per_game) for c in range(K)]
    assert counts.squares == [sum(r[c] ** 2 for r in per_game) for c in range(K)]
    figs = counts.figures({})
    tempura = figs[game.ruleset.card_index("tempura")]
    assert tempura["points_per_game"] == counts.points[game.ruleset.card_index("tempura")] / 12


def test_marginal_figures_are_the_same_on_one_process_and_two():
    """--jobs does not change the marginal figures (the counts merge exactly)."""
    rs = sushi()
    match = Match.build(rs, 4, "random", 11)
    one = simulate_match(match, 40, jobs=1, collector=with_extras(MarginalCounts.for_game))
    two = simulate_match(match, 40, jobs=2, collector=with_extras(MarginalCounts.for_game))
    assert one.figures["marginal"] == two.figures["marginal"]
    assert one.figures["cards"] == two.figures["cards"]


def test_simulate_marginal_prints_json_text_and_a_report(tmp_path):
    """`simulate --marginal`: the figures JSON gains "marginal" (shares unchanged), the text a table of shared beside
    marginal points, and the report a Card worth section."""
    base = ["simulate", "sushi-go", "-g", "30", "-b", "random", "-q"]
    plain = json.loads(runner.invoke(app, [*base, "--json"]).output)
    result = runner.invoke(app, [*base, "--json", "--marginal"])
    assert result.exit_code == 0, result.output
    marked = json.loads(result.output)
    assert plain["figures"]["cards"] == marked["figures"]["cards"]
    rows = {r["card"]: r for r in marked["figures"]["marginal"]}
    assert rows["chopsticks"]["points_per_game"] == 0  # no rule of Sushi Go! reads chopsticks
    assert rows["squid_nigiri"]["points_per_copy"] >= 3
    text = runner.invoke(app, [*base, "--marginal"], env={"COLUMNS": "80"}).output
    assert "shared, and marginal" in text and "marginal points do not add up to the score" in text
    flat = " ".join(text.split())
    assert "A race's points are not in marginal" in flat and "copies: the copies on the tables when" in flat
    assert max(len(line) for line in text.splitlines()) <= 80
    report = tmp_path / "r"
    result = runner.invoke(app, [*base, "--marginal", "--report", str(report)])
    assert result.exit_code == 0, result.output
    page = (report / "index.html").read_text()
    assert 'id="marginal"' in page and "Card worth" in page and "figures.marginal[*].points_per_game" in page
