"""Which search ``ruledraft tune`` uses: its pattern search beside Optuna's TPE, CMA-ES
(Optuna's ``CmaEsSampler``, on the ``cmaes`` package) and random search, on the same
problems and the same budget of tries.

Every try plays the same games (common random numbers), so a set of values always
gives the same figures: they are played once and shared by every method (the
count of tries is kept per method and run). A method *meets* the target at the
first try whose figures lie inside the bands; the table gives, per method, how
many of its runs met it within the budget, the median try that did, the median
best miss (the root of the summed squares of the percentage points outside the
bands) after the budget, and the median try that reached it. The samplers run with several seeds; the pattern search is deterministic.

    pip install optuna cmaes     # not a dependency of ruledraft: only this comparison needs them
    python3 benchmarks/tune_search.py [--games 300] [--budget 20] [--seeds 5] [--players 2] [--bots random]

Figures only: nothing is asserted, and CI never runs this.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path

from ruledraft.lab.tune import Trials, parse_target, pattern_search
from ruledraft.language.loading import check_ruleset

PROBLEMS = {
    # one card mis-valued: the acceptance test's problem
    "one": (
        """\
format: 1
id: bench-one
name: one mark
extends: sushi-go
cards:
  - {id: squid_nigiri, attributes: {value: {tune: [1, 12], start: 12}}}
""",
        "cards:10:squid_nigiri",
    ),
    # three marks, all off
    "three": (
        """\
format: 1
id: bench-three
name: three marks
extends: sushi-go
cards:
  - {id: squid_nigiri, attributes: {value: {tune: [1, 12], start: 12}}}
scoring:
  - {id: tempura, when: round_end, kind: sets, cards: tempura, size: 2, points: {tune: [1, 15], start: 15}}
  - {id: dumpling, when: round_end, kind: table, cards: dumpling, points: [0, {tune: [0, 12], start: 12}, 3, 6, 10, 15]}
""",
        "cards:10:squid_nigiri,tempura,dumpling",
    ),
}


class Shared:
    """Plays each set of values once for every method; counts each method's tries."""

    def __init__(self, trials: Trials):
        self.trials = trials
        self.tries = 0
        self.first_met: int | None = None
        self.best = math.inf
        self.best_at = 0

    def __call__(self, values):
        got = self.trials(values)
        self.tries += 1
        if got.met and self.first_met is None:
            self.first_met = self.tries
        if got.miss < self.best:
            self.best, self.best_at = got.miss, self.tries
        return got


def run_pattern(shared: Shared, marks, budget: int) -> None:
    pattern_search(marks, shared, budget, lambda: shared.tries)


def run_optuna(shared: Shared, marks, budget: int, sampler) -> None:
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    study = optuna.create_study(sampler=sampler)
    study.enqueue_trial(marks.starts())  # every method starts from the file's starts

    def objective(trial):
        values = {m.name: trial.suggest_int(m.name, m.low, m.high) for m in marks.marks}
        got = shared(values)
        return got.miss + 1e-3 * got.spread

    for _ in range(budget):
        study.optimize(objective, n_trials=1)
        if shared.first_met is not None:
            break


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--budget", type=int, default=20)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--bots", default="random")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--problems", default=",".join(PROBLEMS))
    args = parser.parse_args()
    import optuna

    samplers = {
        "tpe": lambda s: optuna.samplers.TPESampler(seed=s, n_startup_trials=5),
        "cma-es": lambda s: optuna.samplers.CmaEsSampler(seed=s, n_startup_trials=1),
        "random": lambda s: optuna.samplers.RandomSampler(seed=s),
    }
    with tempfile.TemporaryDirectory() as where:
        for name in args.problems.split(","):
            text, target_text = PROBLEMS[name]
            path = Path(where) / f"{name}.yaml"
            path.write_text(text, encoding="utf-8")
            checked = check_ruleset(path)
            assert checked.ok and checked.marks, checked.diagnostics
            marks = checked.marks
            targets = (parse_target(target_text),)
            bots = tuple([args.bots] * args.players)
            trials = Trials(str(path), (), args.players, bots, args.games, 1, targets, args.jobs)
            started = time.perf_counter()
            print(
                f"{name}: {len(marks.marks)} marks, target {target_text}, {args.games} games per try, "
                f"budget {args.budget}, bots {args.bots}, {args.players} players"
            )
            print(f"  {'method':<8} {'met':>7} {'median try met':>15} {'median best miss':>17} {'at try':>7}")
            rows = {"pattern": [None]} | {k: list(range(args.seeds)) for k in samplers}
            for method, seeds in rows.items():
                met, when, best, at = 0, [], [], []
                for seed in seeds:
                    shared = Shared(trials)
                    if method == "pattern":
                        run_pattern(shared, marks, args.budget)
                    else:
                        run_optuna(shared, marks, args.budget, samplers[method](seed))
                    if shared.first_met is not None:
                        met += 1
                        when.append(shared.first_met)
                    best.append(shared.best)
                    at.append(shared.best_at)
                median = statistics.median(when) if when else "-"
                print(
                    f"  {method:<8} {met:>3}/{len(seeds):<3} {median!s:>15} {statistics.median(best):>17.1f} "
                    f"{statistics.median(at):>7}"
                )
            print(f"  ({len(trials.tries)} sets of values played, {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    sys.exit(main())
