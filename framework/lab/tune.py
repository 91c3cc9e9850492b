"""``ruledraft tune``: search the numbers a rule file leaves open for a target the designer names.

A rule file marks numbers as tunable (``points: {tune: [2, 6]}``: see
:mod:`ruledraft.language.tunable`). :func:`tune` tries values for them, plays the
same games with each try and keeps the values that come closest to the target:

* **Targets** (:func:`parse_target`; several add up): ``cards:K`` -- every card's
  win effect (the win rate of the seats that took it minus that of the seats that
  did not, the figure ``simulate`` prints per card) within ±K percentage points;
  ``cards:K:sashimi,tempura`` -- those cards only; ``seats:K`` -- every seat's win
  share within ±K points of an equal share; ``points:MEAN:K`` -- the mean score of a seat
  within MEAN ± K points.
* **How near a try comes**: each figure the target names lies inside its band or
  some way outside it. A try's *miss* is the root of the sum of those distances
  squared, in the figures' units (0: the figures meet the target); its *spread* the
  same for the 95% intervals' ends beyond the bands (0: every interval lies inside
  its band). Tries are ranked by miss, then spread.
* **Common random numbers**: every try plays the games of one seed (the same deals
  and the same draws of the bots whenever the values leave them so), so two tries
  differ by their values, not by luck, and the same values always give the same
  figures (they are played once).
* **The search**: Optuna's TPE (:func:`tpe_search`, the ``tune`` extra), seeded with
  the run's seed, its first try the marks' starts and the next few at random; or
  (``search="pattern"``) a coordinate pattern search (:func:`pattern_search`): from
  the starts, each mark in turn is moved by its step up, then down; a move that
  ranks better is kept; when no move does, every step is halved, until all are 0.
  Why TPE: README, "Tuning numbers" (``benchmarks/tune_search.py`` measures TPE,
  CMA-ES, random search and the pattern search on the same budget).
* **Stopping**: as soon as a try meets the target with every interval inside its
  band; else when the budget of tries is spent, or the steps are all 0 (the search
  has converged). A stop signal ends the search between games: the try it cut
  short is dropped and the best of the tries finished is kept.

The JSON shape (``tune --json``)
--------------------------------

.. code-block:: text

    {"ruleset": "sushi-go-squid-12", "file": "variant.yaml", "players": 2,
     "bots": ["random", "random"], "games": 300, "seed": 1, "budget": 10,
     "targets": ["cards:10:squid_nigiri"], "search": "tpe",
     "marks": [{"name": "cards[squid_nigiri].attributes.value", "low": 1, "high": 12,
                "start": 12, "line": 11, "column": 44}],
     "tries": [{"try": 1, "values": {...}, "miss": 36.9, "spread": 42.6,
                "met": false, "inside": false,       # miss, spread: in the figures' units
                "figures": [{"target": "cards:10:squid_nigiri", "item": "squid_nigiri",
                             "value": 46.9, "interval": [39.6, 52.6], "band": [-10, 10]}]}],
     "start": 1, "best": 6,          # the try numbers of the start and of the best values
     "stopped": "target met with every interval inside",
     "interrupted": false,
     "indistinct": false,            # best and start differ, each figure inside the other's interval
     "written": "variant.tuned.yaml"}
"""

from __future__ import annotations

import contextlib
import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ruledraft.errors import InputError, RulesetError, printable
from ruledraft.lab.figures import FEWEST_COMPARED, LabTally
from ruledraft.language.loading import check_ruleset
from ruledraft.language.tunable import TuneMarks, tuned_text
from ruledraft.play.engines import choose_engine
from ruledraft.play.executor import Backend, StopSignals
from ruledraft.play.match import Match
from ruledraft.play.runner import simulate_match

TARGET_FORMS = "cards:K, cards:K:CARD,CARD, seats:K or points:MEAN:K"


@attrs.frozen
class Target:
    """What the designer asks of the figures (see the module docstring)."""

    text: str
    kind: str  # cards, seats, points
    within: float
    value: float = 0.0
    cards: tuple[str, ...] = ()

    def describe(self, players: int) -> str:
        k = _num(self.within)
        if self.kind == "cards":
            which = ", ".join(self.cards) if self.cards else "every card"
            return f"win effect of {which} within ±{k} percentage points"
        if self.kind == "seats":
            return f"every seat's win share within ±{k} points of {_num(100 / players)}%"
        return f"mean score of a seat within {_num(self.value)} ± {k}"


def _num(x: float) -> str:
    return f"{x:g}" if x == int(x) else f"{x:.1f}"


def parse_target(text: str, card_ids: Sequence[str] = ()) -> Target:
    """``cards:K``, ``cards:K:CARD,CARD``, ``seats:K`` or ``points:MEAN:K`` (:class:`InputError` otherwise)."""
    parts = [p.strip() for p in text.split(":")]
    kind = parts[0]
    said = printable(text)

    def number(word: str, what: str) -> float:
        try:
            x = float(word)
        except ValueError:
            raise InputError(f"--target {said}: {what} must be a number, not {word!r}") from None
        if not math.isfinite(x):
            raise InputError(f"--target {said}: {what} must be a finite number")
        return x

    if kind == "cards" and len(parts) in (2, 3):
        within = number(parts[1], "K")
        cards: tuple[str, ...] = ()
        if len(parts) == 3:
            named = [c.strip() for c in parts[2].split(",")]
            cards = tuple(dict.fromkeys(c for c in named if c))  # a card named twice is one card
            if cards and not all(named):
                raise InputError(f"--target {said}: a card name is empty (cards:K:CARD,CARD)")
            unknown = [c for c in cards if card_ids and c not in card_ids]
            if unknown or not cards:
                from ruledraft.language.suggest import did_you_mean

                name = unknown[0] if unknown else ""
                if not cards:
                    raise InputError(f"--target {said}: name the cards after K (cards:K:CARD,CARD)")
                raise InputError(f"--target {said}: no card {name!r}{did_you_mean(name, list(card_ids))}")
        target = Target(text, "cards", within, cards=cards)
    elif kind == "seats" and len(parts) == 2:
        target = Target(text, "seats", number(parts[1], "K"))
    elif kind == "points" and len(parts) == 3:
        mean = number(parts[1], "MEAN")
        target = Target(text, "points", number(parts[2], "K"), value=mean)
    else:
        raise InputError(f"--target takes {TARGET_FORMS}, not {text!r}")
    if target.within < 0:
        raise InputError(f"--target {said}: K must not be negative")
    if target.kind != "points" and target.within > 100:  # any figure meets it: no target at all
        raise InputError(f"--target {said}: K is in percentage points, at most 100")
    return target


@attrs.frozen
class Figure:
    """One figure a target names in one try: its value, 95% interval and the band it should lie in."""

    target: str
    item: str
    value: float
    interval: tuple[float, float]
    band: tuple[float, float]
    #: why the figure could not be measured in this try (then it misses by infinity)
    unmeasured: str | None = None
    #: a card's figure: the fewer of its seat-games with the card and without it, which
    #: the difference rests on (None for a seat's or a score's figure)
    compared: int | None = None

    @property
    def thin(self) -> bool:
        """A card's figure compares too few seat-games to be worth tuning to (one or two
        seats decide it): see :data:`~ruledraft.lab.figures.FEWEST_COMPARED`."""
        return self.compared is not None and self.compared < FEWEST_COMPARED

    @property
    def miss(self) -> float:
        if self.unmeasured:
            return math.inf
        lo, hi = self.band
        return max(0.0, lo - self.value, self.value - hi)

    @property
    def spread(self) -> float:
        if self.unmeasured:
            return math.inf
        lo, hi = self.band
        return max(0.0, lo - self.interval[0]) + max(0.0, self.interval[1] - hi)

    def to_json(self) -> dict[str, Any]:
        if self.unmeasured:
            return {"target": self.target, "item": self.item, "unmeasured": self.unmeasured, "band": list(self.band)}
        return {
            "target": self.target,
            "item": self.item,
            "value": round(self.value, 4),
            "interval": [round(x, 4) for x in self.interval],
            "band": list(self.band),
            **({"compared": self.compared} if self.compared is not None else {}),
        }


def _unmeasured(target: Target, card: str, reason: str, band: tuple[float, float]) -> Figure:
    return Figure(target.text, card, math.nan, (math.nan, math.nan), band, unmeasured=reason)


def target_figures(target: Target, figures: dict, players: int) -> list[Figure]:
    """The figures ``target`` names in one run's figures (``ruledraft.lab.figures``' shape)."""
    out = []
    if target.kind == "cards":
        band = (-target.within, target.within)
        for c in figures.get("cards") or ():
            if target.cards and c["card"] not in target.cards:
                continue
            if not (c["takers"]["seats"] and c["non_takers"]["seats"]):
                # taken by every seat, or by none: no effect to measure; a card the target
                # names misses by it, and so does a target of every card none of which is measured
                if target.cards:
                    how = "by every seat in every game" if c["takers"]["seats"] else "in no game"
                    out.append(_unmeasured(target, c["card"], f"taken {how}: no effect to measure", band))
                continue
            # the effect adjusted for seat and bot (Mantel-Haenszel), the raw one where it has none
            effect = c.get("adjusted") or {"difference": c["difference"], "interval": c["difference_interval"]}
            lo, hi = effect["interval"]
            compared = min(c["takers"]["seats"], c["non_takers"]["seats"])
            out.append(
                Figure(
                    target.text, c["card"], 100 * effect["difference"], (100 * lo, 100 * hi), band, compared=compared
                )
            )
        if not out:
            reason = "no card was taken by some seats and left by others: no effect to measure"
            out.append(_unmeasured(target, "every card", reason, band))
    elif target.kind == "seats":
        fair = 100 / players
        band = (fair - target.within, fair + target.within)
        for s in figures["seats"][:players]:
            lo, hi = s["win_share_interval"]
            out.append(Figure(target.text, f"seat {s['seat']}", 100 * s["win_share"], (100 * lo, 100 * hi), band))
    else:
        seats = figures["seats"][:players]
        mean = sum(s["mean"] for s in seats) / len(seats)
        # the seats' intervals averaged: as wide as their sum's would be were the seats'
        # scores perfectly correlated, so never narrower than the pooled mean's
        half = sum((s["mean_interval"][1] - s["mean_interval"][0]) / 2 for s in seats) / len(seats)
        band = (target.value - target.within, target.value + target.within)
        out.append(Figure(target.text, "mean score", mean, (mean - half, mean + half), band))
    return out


@attrs.frozen
class Try:
    """One set of values played: its figures and how near they come to the target."""

    number: int
    values: dict[str, int]
    figures: tuple[Figure, ...]
    #: why the values give no ruleset, when they do not (then miss and spread are infinite)
    invalid: str | None = None
    #: the run's figures (``ruledraft.lab.figures``' shape), for the report
    run: dict | None = attrs.field(default=None, eq=False, repr=False)

    @property
    def miss(self) -> float:
        return math.inf if self.invalid else math.hypot(*(f.miss for f in self.figures))

    @property
    def spread(self) -> float:
        return math.inf if self.invalid else math.hypot(*(f.spread for f in self.figures))

    @property
    def met(self) -> bool:
        return self.invalid is None and self.miss == 0

    @property
    def inside(self) -> bool:
        return self.met and self.spread == 0

    def rank(self) -> tuple[float, float]:
        return (self.miss, self.spread)

    def to_json(self) -> dict[str, Any]:
        return {
            "try": self.number,
            "values": dict(self.values),
            "miss": round(self.miss, 4) if math.isfinite(self.miss) else None,
            "spread": round(self.spread, 4) if math.isfinite(self.spread) else None,
            "met": self.met,
            "inside": self.inside,
            **({"invalid": self.invalid} if self.invalid else {}),
            "figures": [f.to_json() for f in self.figures],
        }


class Stopped(Exception):
    """A stop signal cut a try short (``signum`` says which)."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@attrs.define
class Trials:
    """Plays tries of values, each once (the same values always give the same figures)."""

    source: str
    allow: tuple
    players: int
    bots: tuple[str, ...]
    games: int
    seed: int
    targets: tuple[Target, ...]
    jobs: int = 1
    backend: Backend | None = None
    progress: Callable[[int], None] | None = None
    on_try: Callable[[Try], None] | None = None
    #: ``reference``, ``kernel`` or ``auto`` (each try's values are a ruleset of their
    #: own: ``auto`` compiles a try's kernel only for a try that would outlast its compile)
    engine: str = "reference"
    tries: list[Try] = attrs.Factory(list)
    _seen: dict[tuple[tuple[str, int], ...], Try] = attrs.Factory(dict)

    def __call__(self, values: Mapping[str, int]) -> Try:
        key = tuple(sorted(values.items()))
        known = self._seen.get(key)
        if known is not None:
            return known
        done = self._play(dict(values))
        self._seen[key] = done
        self.tries.append(done)
        if self.on_try is not None:
            self.on_try(done)
        return done

    def _play(self, values: dict[str, int]) -> Try:
        number = len(self.tries) + 1
        result = check_ruleset(self.source, allow=self.allow, tune=values)
        if not result.ok or result.ruleset is None:
            first = next((d for d in result.diagnostics if d.severity == "error"), None)
            return Try(number, values, (), invalid=first.message if first else "the ruleset does not compile")
        try:
            match = Match.build(result.ruleset, self.players, self.bots, self.seed, document=result.document)
        except (InputError, RulesetError) as e:
            return Try(number, values, (), invalid=str(e))
        # the same games and figures on either engine; no compiler started for later runs (no run
        # plays these values again)
        engine = choose_engine(result.ruleset, self.players, self.bots, self.engine, self.games, background=False)
        summary = simulate_match(
            match,
            self.games,
            jobs=self.jobs,
            cards=True,
            collector=LabTally.for_game,
            progress=self.progress,
            backend=self.backend,
            engine=engine.name,
        )
        if summary.interrupted:
            raise Stopped(summary.signal)
        figures = summary.figures or {}
        found = [f for t in self.targets for f in target_figures(t, figures, self.players)]
        return Try(number, values, tuple(found), run=figures)


def pattern_search(
    marks: TuneMarks, trial: Callable[[Mapping[str, int]], Try], budget: int, count: Callable[[], int]
) -> tuple[Try, str]:
    """The best try found from the marks' starts (see the module docstring) and why the
    search stopped. ``count()``: the tries played so far (``budget`` at most)."""
    seen: dict[tuple[tuple[str, int], ...], Try] = {}

    def tried(values: dict[str, int]) -> Try | None:
        """The try of ``values``, played now unless it was before (then None: nothing new)."""
        key = tuple(sorted(values.items()))
        if key in seen:
            return None
        seen[key] = got = trial(values)
        return got

    x = marks.starts()
    best = tried(x)
    assert best is not None
    if best.inside:
        return best, "target met with every interval inside"
    step = {m.name: max(1, math.ceil((m.high - m.low) / 4)) for m in marks.marks}
    bounds = {m.name: (m.low, m.high) for m in marks.marks}
    while any(step.values()):
        moved = False
        for name in marks.names:
            if not step[name]:
                continue
            for sign in (1, -1):
                lo, hi = bounds[name]
                y = dict(x)
                y[name] = min(hi, max(lo, x[name] + sign * step[name]))
                if y[name] == x[name] or tuple(sorted(y.items())) in seen:
                    continue
                if count() >= budget:
                    return best, "budget spent"
                got = tried(y)
                if got is not None and got.rank() < best.rank():
                    x, best, moved = y, got, True
                    if best.inside:
                        return best, "target met with every interval inside"
                    break
        if not moved:
            step = {k: v // 2 for k, v in step.items()}
    return best, "search converged: no step of one changes a value for the better"


#: the searches ``tune`` offers; the first is the default (README, "Tuning numbers", says why)
SEARCHES = ("tpe", "pattern")
#: TPE's first tries are drawn at random (after the starts) before its model guides it
TPE_STARTUP = 5
INSTALL_TPE = "pip install 'ruledraft[tune]'"


def _objective(t: Try) -> float:
    """One number for a sampler that minimises: the miss, then the spread (a try
    whose values give no ruleset counts as very far)."""
    return t.miss + 1e-3 * t.spread if math.isfinite(t.miss + t.spread) else 1e12


def tpe_search(
    marks: TuneMarks,
    trial: Callable[[Mapping[str, int]], Try],
    budget: int,
    count: Callable[[], int],
    seed: int = 0,
) -> tuple[Try, str]:
    """Optuna's tree-structured Parzen estimator over the marks' whole numbers, from the
    starts, seeded with ``seed``; the best try and why it stopped (as :func:`pattern_search`)."""
    try:
        import optuna
    except ImportError:
        raise InputError(
            f"the tpe search needs optuna, which is not installed: {INSTALL_TPE} (or use --search pattern)"
        ) from None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():  # numpy's warnings from inside the sampler are no news to a designer
        warnings.simplefilter("ignore", RuntimeWarning)
        return _tpe(optuna, marks, trial, budget, count, seed)


def _tpe(
    optuna: Any,
    marks: TuneMarks,
    trial: Callable[[Mapping[str, int]], Try],
    budget: int,
    count: Callable[[], int],
    seed: int,
) -> tuple[Try, str]:
    """:func:`tpe_search`'s loop, ``optuna`` imported."""
    sampler = optuna.samplers.TPESampler(seed=seed % 2**32, n_startup_trials=TPE_STARTUP)
    study = optuna.create_study(sampler=sampler)
    study.enqueue_trial(marks.starts())
    space = math.prod(m.size for m in marks.marks)
    best: Try | None = None
    asked = 0
    while count() < min(budget, space) and asked < 20 * budget:  # a sampler may propose a try again
        asked += 1
        suggestion = study.ask()
        values = {m.name: suggestion.suggest_int(m.name, m.low, m.high) for m in marks.marks}
        got = trial(values)
        study.tell(suggestion, _objective(got))
        if best is None or got.rank() < best.rank():
            best = got
            if best.inside:
                return best, "target met with every interval inside"
    assert best is not None
    if count() >= space:
        return best, "every set of values tried"
    if count() >= budget:
        return best, "budget spent"
    return best, "search converged: the sampler proposes only values already tried"


@attrs.frozen
class TuneResult:
    """What a search found: every try in order, the start's and the best's, why it stopped."""

    marks: TuneMarks
    tries: tuple[Try, ...]
    start: Try | None
    best: Try | None
    stopped: str
    signum: int = 0

    @property
    def indistinct(self) -> bool:
        """Whether the best values differ from the start's but this run cannot tell them
        apart: every figure of each lies inside the other's 95% interval (the values
        tried made no difference the games could show, though one ranked first)."""
        best, start = self.best, self.start
        if best is None or start is None or best.values == start.values or best.invalid or start.invalid:
            return False
        pairs = list(zip(best.figures, start.figures))
        return bool(pairs) and all(
            not (a.unmeasured or b.unmeasured)
            and a.interval[0] <= b.value <= a.interval[1]
            and b.interval[0] <= a.value <= b.interval[1]
            for a, b in pairs
        )


def tune(
    source: str,
    marks: TuneMarks,
    targets: Sequence[Target],
    *,
    players: int,
    bots: Sequence[str],
    games: int,
    seed: int,
    budget: int,
    allow: Sequence[Any] = (),
    jobs: int = 1,
    backend: Backend | None = None,
    progress: Callable[[int], None] | None = None,
    on_try: Callable[[Try], None] | None = None,
    search: str = SEARCHES[0],
    engine: str = "reference",
) -> TuneResult:
    """Search the values of ``marks`` (the rule file ``source``'s) for ``targets``:
    ``budget`` tries at most, ``games`` games each from ``seed``, on ``jobs``
    processes or ``backend``, by ``search`` (one of :data:`SEARCHES`), on ``engine``
    (``reference``, ``kernel`` or ``auto``: the same figures). A stop signal keeps the
    tries finished (``signum``)."""
    if not marks:
        raise InputError(f"{source} has no tune marks: write a number as {{tune: [LOW, HIGH]}} to tune it")
    if budget < 1:
        raise InputError("--budget must be at least 1 try")
    if search not in SEARCHES:
        raise InputError(f"--search takes {' or '.join(SEARCHES)}, not {search!r}")
    trials = Trials(
        source, tuple(allow), players, tuple(bots), games, seed, tuple(targets), jobs, backend, progress, on_try, engine
    )
    signum = 0
    best: Try | None
    # each try's run catches a stop while it plays; this one catches a stop between two tries
    with StopSignals() as between:

        def played() -> int:
            if between.requested():
                raise Stopped(between.signum)
            return len(trials.tries)

        def trial(values: Mapping[str, int]) -> Try:
            played()
            return trials(values)

        try:
            if search == "tpe":
                best, stopped = tpe_search(marks, trial, budget, played, seed)
            else:
                best, stopped = pattern_search(marks, trial, budget, played)
        except Stopped as e:
            signum = e.signum
            finished = [t for t in trials.tries if t.invalid is None] or list(trials.tries)
            best = min(finished, key=lambda t: (t.rank(), t.number)) if finished else None
            stopped = f"interrupted after {len(trials.tries)} {'try' if len(trials.tries) == 1 else 'tries'}"
    tries = tuple(trials.tries)
    return TuneResult(marks, tries, tries[0] if tries else None, best, stopped, signum)


def tuned_path(source: str) -> str:
    """Beside ``source``, a name no file has yet: ``NAME.tuned.yaml``, else ``NAME.tuned-2.yaml``, ..."""
    base, ext = os.path.splitext(source)
    ext = ext or ".yaml"
    n = 1
    while True:
        path = f"{base}.tuned{'' if n == 1 else f'-{n}'}{ext}"
        if not os.path.lexists(path):
            return path
        n += 1


def write_tuned(marks: TuneMarks, values: Mapping[str, int], path: str) -> None:
    """The rule file with ``values`` in place of its tune marks, written to ``path``, a
    new file (:class:`InputError` if there is one already: nothing is overwritten). A
    write that fails once the file is made (a full disk) removes it and raises
    :class:`OSError` naming ``path``."""
    text = tuned_text(marks, values)
    try:
        f = open(path, "x", encoding="utf-8", newline="")
    except FileExistsError:
        raise InputError(f"{path} exists already: tune writes only new files") from None
    except OSError as e:
        raise InputError(f"cannot write {path}: {e.strerror or e}") from None
    try:
        with f:
            f.write(text)
    except OSError as e:  # a full disk: no half-written rule file is left behind
        with contextlib.suppress(OSError):
            os.unlink(path)
        raise OSError(e.errno, e.strerror, path) from None


def result_json(
    result: TuneResult,
    *,
    ruleset: str,
    file: str,
    players: int,
    bots: Sequence[str],
    games: int,
    seed: int,
    budget: int,
    targets: Sequence[Target],
    search: str,
    written: str | None,
) -> dict[str, Any]:
    """``tune --json`` (the module docstring's shape)."""
    return {
        "ruleset": ruleset,
        "file": file,
        "players": players,
        "bots": list(bots),
        "games": games,
        "seed": seed,
        "budget": budget,
        "targets": [t.text for t in targets],
        "search": search,
        "marks": [m.to_json() for m in result.marks.marks],
        "tries": [t.to_json() for t in result.tries],
        "start": result.start.number if result.start else None,
        "best": result.best.number if result.best else None,
        "stopped": result.stopped,
        "interrupted": result.signum != 0,
        "indistinct": result.indistinct,
        "written": written,
    }
