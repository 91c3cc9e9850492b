"""What the kernel's tests check again and again: a kernel's games against the
reference engine's, game by game, and ``simulate`` run on both engines."""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.engine.state import Game, State
from ruledraft.play.agents import default_card_values
from ruledraft.play.game_log import record_game
from ruledraft.play.runner import kernel_state, play_game


def kernel_blocks(ruleset_id: str, players: int, bots: Sequence[str], seed: int, sizes) -> tuple[Game, list]:
    """The ruleset's game and blocks of its kernel's games (``bots`` repeated round the
    seats; ``sizes``: each block's first game and number of games under ``seed``)."""
    from ruledraft.kernel import Kernel, compile_kernel
    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.runner import game_seeds

    ruleset = load_ruleset(ruleset_id)
    kernel = compile_kernel(ruleset, players)
    assert isinstance(kernel, Kernel), kernel
    game = Game(ruleset, players)
    lineup = (list(bots) * players)[:players]
    values = default_card_values(game)
    return game, [kernel.play(game_seeds(seed, start, n), lineup, values) for start, n in sizes]


def assert_same_games(
    kernel: Any,
    bots: Sequence[str],
    seeds: Sequence[int],
    *,
    counts: Any = None,
    scorings: bool = False,
    tables: bool = False,
    decisions: bool = False,
    logs: bool = False,
) -> list[State]:
    """Each seed's game on ``kernel`` has the reference engine's moves, totals, winners
    and points per rule (and, when asked, its points per scoring, tables at each
    scoring, card effects' decisions and log record); the reference's finished states.
    ``counts``: the planner's count values, when a seat plays it."""
    game = Game(kernel.ruleset, kernel.players)
    bots = list(bots)
    games = kernel.play(list(seeds), bots, default_card_values(game), counts)
    states = []
    for i, seed in enumerate(seeds):
        state = play_game(game, seed, bots)
        got_seed, totals, winners, rule_points = games.game(i)
        assert got_seed == seed
        assert games.moves[i].tolist() == [r.actions for r in state.history], f"moves differ, seed {seed}, {bots}"
        assert list(totals) == state.totals(), f"totals differ, seed {seed}, {bots}"
        assert list(winners) == state.winners, f"winners differ, seed {seed}, {bots}"
        assert {k: list(v) for k, v in rule_points.items()} == state.rule_points, f"rule points, seed {seed}, {bots}"
        if scorings:
            points = [x for sc in state.scorings for row in sc.points for x in row]
            assert games.scoring_points()[i].tolist() == points, f"points per scoring differ, seed {seed}, {bots}"
        if tables:
            seen = [rec.counts for rec in state.history] + [state.kept_counts]
            assert games.tables[i].tolist() == [[list(row) for row in t] for t in seen], f"tables, seed {seed}"
        if decisions:
            decided = [(r, t, s, a) for r, rec in enumerate(state.history) for t, s, a in rec.decisions]
            assert games.decisions_of(i) == decided, f"decisions differ, seed {seed}, {bots}"
        if logs:
            mine = record_game(kernel_state(game, games, i), bots)
            assert mine == record_game(state, bots), f"logs differ, seed {seed}, {bots}"
        states.append(state)
    return states


def simulate_on_both_engines(tmp_path: Path, args: Sequence[str]) -> dict:
    """``ruledraft simulate ARGS --json --log FILE`` on the reference engine and on the
    kernel: the printed figures (timings left out) and the logs' bytes are asserted
    equal; the kernel's figures."""
    out = {}
    for engine in ("reference", "kernel"):
        log = tmp_path / f"{engine}.jsonl"
        result = CliRunner().invoke(app, ["simulate", *args, "--engine", engine, "--json", "--log", str(log)])
        assert result.exit_code == 0, result.output
        summary = json.loads(result.stdout)
        for key in ("elapsed_seconds", "games_per_second"):
            summary.pop(key, None)
        out[engine] = summary
    assert out["kernel"] == out["reference"]
    assert (tmp_path / "kernel.jsonl").read_bytes() == (tmp_path / "reference.jsonl").read_bytes()
    return out["kernel"]


def plain_kernel_module(ruleset: Any) -> dict[str, Any]:
    """The ruleset's kernel module run as plain Python (numba's decorator a no-op): its
    effects' parts, rules and the turn's resolution, the very text the kernel compiles."""
    import numpy as np

    from ruledraft.engine.state import derive_seed
    from ruledraft.kernel import Unsupported, _source

    made = _source(ruleset)
    assert not isinstance(made, Unsupported), made
    source = made[0].replace("from ruledraft.kernel.rng import njit", "njit = lambda *a, **k: (lambda f: f)")
    namespace: dict[str, Any] = {"__name__": "plain_kernel"}
    exec(compile(source, "<plain kernel>", "exec"), namespace)  # noqa: S102 - our own generated code
    # seeds derived in Python's integers (a compiled call would take one above 2**63 for an int64)
    namespace["derive_seed1"] = lambda seed, a: np.uint64(derive_seed(int(seed), int(a)))
    namespace["derive_seed2"] = lambda seed, a, b: np.uint64(derive_seed(int(seed), int(a), int(b)))
    # the effects' records, numba structures in the kernel (kernel.structs), as named tuples
    # of the same fields: Python reads their fields as the compiled code does
    if "Look" in namespace:
        from collections import namedtuple

        from ruledraft.kernel.structs import FX_FIELDS, LOOK_FIELDS

        namespace["Fx"] = namedtuple("Fx", FX_FIELDS)
        namespace["Look"] = namedtuple("Look", LOOK_FIELDS)
    return namespace


_fresh_names = itertools.count()


def fresh_module_loader(
    source: str, tmp_path: Path, monkeypatch: Any, prefix: str = "ruledraft_test_small_kernel_"
) -> Callable[[], Any]:
    """A function that imports ``source`` (a small module with numba's cached functions,
    standing for a kernel's) afresh at each call: new dispatchers, as in a new process,
    numba's cache in ``tmp_path``; each import's module name is ``prefix`` and a number."""
    import numba

    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "numba"))
    path = tmp_path / "small_kernel.py"
    path.write_text(source, encoding="utf-8")

    def load() -> Any:
        name = f"{prefix}{next(_fresh_names)}"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        monkeypatch.setitem(sys.modules, name, module)
        spec.loader.exec_module(module)
        return module

    return load
