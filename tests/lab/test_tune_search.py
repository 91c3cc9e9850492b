"""ruledraft.lab.tune: targets read from the figures, common random numbers across tries, the
pattern search and its stopping rule, and the issue's acceptance test on a mis-valued card."""

from __future__ import annotations

import math

import attrs
import pytest
from paths import DATA

from ruledraft.errors import InputError
from ruledraft.lab.tune import Figure, Trials, Try, parse_target, pattern_search, tune, tuned_path, write_tuned
from ruledraft.language.loading import check_ruleset
from ruledraft.language.tunable import TuneMark, TuneMarks

VARIANT = str(DATA / "tune" / "sushi-go-squid-12.yaml")
SQUID = "cards[squid_nigiri].attributes.value"


def marks_of(path: str) -> TuneMarks:
    result = check_ruleset(path)
    assert result.ok and result.marks
    return result.marks


def test_the_mis_valued_card_is_brought_back_within_the_target():
    """Acceptance: squid nigiri worth 12 has a win effect far outside ±10 points; a small budget finds a value inside."""
    target = parse_target("cards:10:squid_nigiri")
    result = tune(
        VARIANT,
        marks_of(VARIANT),
        [target],
        players=2,
        bots=["random", "random"],
        games=300,
        seed=1,
        budget=10,
    )
    start, best = result.start, result.best
    assert start is not None and best is not None
    assert start.values == {SQUID: 12}
    (at_start,) = start.figures
    assert at_start.item == "squid_nigiri" and at_start.value > 30  # the mis-valued card wins far too often
    assert best.met
    (figure,) = best.figures
    assert -10 <= figure.value <= 10
    assert best.values[SQUID] <= 4  # the rulebook's 3, give or take what 300 games can tell
    assert len(result.tries) <= 10
    assert result.stopped in ("target met with every interval inside", "budget spent") or result.stopped.startswith(
        "search converged"
    )
    assert result.signum == 0


def test_every_try_plays_the_same_games():
    """Common random numbers: tries with other values play the same deals and the same random picks; the same values give the same figures."""
    marks = marks_of(VARIANT)
    target = parse_target("cards:10")

    def trials() -> Trials:
        return Trials(VARIANT, (), 2, ("random", "random"), 60, 5, (target,))

    first = trials()
    high, low = first({SQUID: 12}), first({SQUID: 2})
    assert high.run is not None and low.run is not None
    taken = [[c["taken_per_seat"] for c in t.run["cards"]] for t in (high, low)]
    assert taken[0] == taken[1]  # the random bots ignore the values: the same cards are taken
    assert high.run["seats"][0]["mean"] != low.run["seats"][0]["mean"]  # only the points differ
    again = trials()({SQUID: 12})
    assert again.figures == high.figures and again.run == high.run
    assert first({SQUID: 12}) is high and len(first.tries) == 2  # asked again: not played again
    assert marks.starts() == {SQUID: 12}


def _fake(values_to_value: dict[int, float], interval: float = 1.0):
    """A trial whose one figure is ``values_to_value[v]`` with an interval of ± ``interval``."""
    mark = TuneMark(("x",), "x", 0, 20, 20, 1, 1, (0, 1))
    marks = TuneMarks("f.yaml", "x", (mark,), {"x": 20})
    played: list[int] = []

    def trial(values) -> Try:
        v = values["x"]
        played.append(v)
        y = values_to_value(v) if callable(values_to_value) else values_to_value[v]
        fig = Figure("t", "card", y, (y - interval, y + interval), (-2.0, 2.0))
        return Try(len(played), dict(values), (fig,))

    return marks, trial, played


def test_the_pattern_search_walks_to_the_target_and_stops_when_the_intervals_are_inside():
    """On a figure rising with the value, the search steps down from 20 and stops at the first try whose interval lies in the band."""
    marks, trial, played = _fake(lambda v: 3.0 * (v - 7))
    best, why = pattern_search(marks, trial, 50, lambda: len(played))
    assert best.values == {"x": 7} and best.inside
    assert why == "target met with every interval inside"
    assert played == [20, 15, 10, 5, 0, 7]  # steps of 5 (0 is worse than 5), then of 2


def test_the_pattern_search_keeps_to_the_budget_and_reports_it():
    """With fewer tries than it needs, the search stops at the budget, keeping the best so far."""
    marks, trial, played = _fake(lambda v: 3.0 * (v - 7))
    best, why = pattern_search(marks, trial, 3, lambda: len(played))
    assert len(played) == 3 and why == "budget spent"
    assert best.values == {"x": 10} and not best.met and math.isclose(best.miss, 7.0)


def test_met_but_wide_intervals_go_on_and_converge():
    """Figures inside the band whose intervals reach outside do not stop the search; it ends when no step helps."""
    marks, trial, played = _fake(lambda v: 0.0, interval=5.0)
    best, why = pattern_search(marks, trial, 50, lambda: len(played))
    assert best.met and not best.inside and best.values == {"x": 20}
    assert why.startswith("search converged")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("cards", "--target takes cards:K, cards:K:CARD,CARD, seats:K or points:MEAN:K, not 'cards'"),
        ("cards:x", "--target cards:x: K must be a number, not 'x'"),
        ("cards:5:squid_nigri", "--target cards:5:squid_nigri: no card 'squid_nigri' (did you mean 'squid_nigiri'?)"),
        ("seats:-1", "--target seats:-1: K must not be negative"),
        ("seats:200", "--target seats:200: K is in percentage points, at most 100"),  # any share meets it
        ("cards:150", "--target cards:150: K is in percentage points, at most 100"),
        ("points:40", "--target takes cards:K, cards:K:CARD,CARD, seats:K or points:MEAN:K, not 'points:40'"),
        ("length:3", "--target takes cards:K, cards:K:CARD,CARD, seats:K or points:MEAN:K, not 'length:3'"),
    ],
)
def test_a_wrong_target_is_said_in_words(text, message):
    """Targets are checked before any game: the forms, numbers and card ids."""
    ids = check_ruleset(VARIANT).ruleset.catalogue.ids
    with pytest.raises(InputError) as info:
        parse_target(text, ids)
    assert str(info.value) == message


def test_a_card_named_twice_in_a_target_is_one_card():
    """cards:10:squid_nigiri,squid_nigiri targets squid nigiri once, and says it once."""
    target = parse_target("cards:10:squid_nigiri,squid_nigiri", check_ruleset(VARIANT).ruleset.catalogue.ids)
    assert target.cards == ("squid_nigiri",)
    assert target.describe(2) == "win effect of squid_nigiri within ±10 percentage points"


def test_seats_and_points_targets_read_their_figures():
    """seats:K bands each seat's win share around an equal share; points:MEAN:K the seats' mean score."""
    figures = {
        "seats": [
            {
                "seat": 0,
                "win_share": 0.6,
                "win_share_interval": [0.5, 0.7],
                "mean": 40.0,
                "mean_interval": [38.0, 42.0],
            },
            {
                "seat": 1,
                "win_share": 0.4,
                "win_share_interval": [0.3, 0.5],
                "mean": 30.0,
                "mean_interval": [29.0, 31.0],
            },
        ]
    }
    from ruledraft.lab.tune import target_figures

    seats = target_figures(parse_target("seats:5"), figures, 2)
    assert [(f.item, f.value, f.band, f.miss) for f in seats] == [
        ("seat 0", 60.0, (45.0, 55.0), pytest.approx(5.0)),
        ("seat 1", 40.0, (45.0, 55.0), pytest.approx(5.0)),
    ]
    (points,) = target_figures(parse_target("points:36:2"), figures, 2)
    assert (points.value, points.interval, points.band, points.miss) == (35.0, (33.5, 36.5), (34.0, 38.0), 0.0)
    assert points.spread == pytest.approx(0.5)


def test_a_card_every_seat_took_is_unmeasured_and_never_met():
    """cards:K of a card every seat took (or none did) is unmeasured: the try misses by infinity, is not met, and its JSON has no NaN; so is every card when none is measured."""
    import json

    from ruledraft.lab.tune import target_figures

    def card(name, takers, non_takers):
        return {"card": name, "takers": {"seats": takers}, "non_takers": {"seats": non_takers}}

    figures = {"cards": [card("apple", 40, 0), card("pear", 0, 40)]}
    named = target_figures(parse_target("cards:5:apple,pear", ["apple", "pear"]), figures, 2)
    assert [(f.item, f.unmeasured) for f in named] == [
        ("apple", "taken by every seat in every game: no effect to measure"),
        ("pear", "taken in no game: no effect to measure"),
    ]
    every = target_figures(parse_target("cards:5"), figures, 2)
    assert [(f.item, f.miss, f.spread) for f in every] == [("every card", math.inf, math.inf)]
    t = Try(1, {"v": 3}, tuple(every))
    assert not t.met and not t.inside and t.rank() == (math.inf, math.inf)
    shown = json.dumps(t.to_json(), allow_nan=False)  # no Infinity or NaN in the JSON
    assert '"miss": null' in shown and '"unmeasured": "no card was taken by some seats' in shown


def test_the_tuned_file_is_a_new_file_beside_the_original(tmp_path):
    """NAME.tuned.yaml, then NAME.tuned-2.yaml: an existing file is never written over."""
    source = tmp_path / "v.yaml"
    source.write_text((DATA / "tune" / "sushi-go-squid-12.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    marks = marks_of(str(source))
    first = tuned_path(str(source))
    assert first == str(tmp_path / "v.tuned.yaml")
    write_tuned(marks, {SQUID: 3}, first)
    assert tuned_path(str(source)) == str(tmp_path / "v.tuned-2.yaml")
    with pytest.raises(InputError, match="exists already"):
        write_tuned(marks, {SQUID: 4}, first)
    tuned = check_ruleset(first)
    assert tuned.ok and not tuned.marks
    assert tuned.document.data["cards"] == check_ruleset("sushi-go").document.data["cards"]
    assert "# the rulebook: 3" in (tmp_path / "v.tuned.yaml").read_text(encoding="utf-8")


def test_a_try_on_worker_processes_gives_the_figures_of_one_process():
    """--jobs: the tries run through the play executor, and two processes give the same figures as one."""
    target = parse_target("cards:10")
    one = Trials(VARIANT, (), 2, ("greedy", "random"), 80, 3, (target,))({SQUID: 5})
    two = Trials(VARIANT, (), 2, ("greedy", "random"), 80, 3, (target,), jobs=2)({SQUID: 5})
    assert one.run == two.run and one.figures == two.figures
    assert one.run["games"] == 80


def test_tpe_tries_the_starts_first_and_stops_when_the_intervals_are_inside():
    """TPE's first try is the marks' starts; a try inside the band ends the search at once."""
    from ruledraft.lab.tune import tpe_search

    marks, trial, played = _fake(lambda v: 3.0 * (v - 7), interval=0.5)
    best, why = tpe_search(marks, trial, 60, lambda: len(set(played)), seed=1)
    assert played[0] == 20
    assert best.inside and best.values == {"x": 7} and why == "target met with every interval inside"
    assert played[-1] == 7 and len(set(played)) <= 21


def test_tpe_stops_when_every_value_is_tried():
    """On a small range that never meets the target, TPE stops once every value is tried, with the nearest."""
    from ruledraft.lab.tune import tpe_search

    marks, trial, played = _fake(lambda v: 10.0 + v)
    small = TuneMarks("f.yaml", "x", (attrs.evolve(marks.marks[0], low=0, high=3, start=3),), {"x": 3})
    best, why = tpe_search(small, trial, 50, lambda: len(set(played)), seed=2)
    assert why == "every set of values tried"
    assert set(played) == {0, 1, 2, 3} and best.values == {"x": 0}


def test_a_try_misses_by_the_root_of_the_sum_of_its_figures_squared_misses():
    """Two figures 3 and 4 outside their bands (one below, one above) and one inside: the try misses by 5, as the guide says."""
    figures = (
        Figure("cards:5", "kettle", -8.0, (-9.0, -7.0), (-5.0, 5.0)),
        Figure("points:50:2", "mean score", 56.0, (55.0, 57.0), (48.0, 52.0)),
        Figure("points:50:2", "mean score", 50.0, (49.0, 51.0), (48.0, 52.0)),
    )
    assert [f.miss for f in figures] == [3.0, 4.0, 0.0]
    assert Try(1, {"x": 1}, figures).miss == 5.0


def _try(number: int, value: int, figure: float, interval: tuple[float, float]) -> Try:
    return Try(number, {"m": value}, (Figure("cards:5:x", "x", figure, interval, (-5.0, 5.0)),))


def test_best_values_the_run_cannot_tell_from_the_start_are_marked_indistinct():
    """Best and start each inside the other's interval (the designer's 9.26 against 9.35 miss) is indistinct; apart, or the same values, or one unmeasured, is not."""
    from ruledraft.lab.tune import TuneResult

    marks = TuneMarks("r.yaml", "", ())
    start = _try(1, 9, -14.35, (-25.2, -3.5))
    close = _try(6, 7, -14.26, (-25.1, -3.4))
    far = _try(4, 3, 2.0, (-1.0, 5.0))
    assert TuneResult(marks, (start, close), start, close, "budget").indistinct
    assert not TuneResult(marks, (start, far), start, far, "budget").indistinct
    assert not TuneResult(marks, (start,), start, start, "budget").indistinct
    unmeasured = attrs.evolve(close, figures=(attrs.evolve(close.figures[0], unmeasured="no games"),))
    assert not TuneResult(marks, (start, unmeasured), start, unmeasured, "budget").indistinct
