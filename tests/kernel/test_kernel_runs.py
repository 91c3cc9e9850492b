"""Runs on the kernel (``--engine``): the same figures, logs and results as on the reference engine."""

from __future__ import annotations

import contextlib
import json
import os

import attrs
import pytest

pytest.importorskip("numba")

from paths import DATA, EXAMPLES  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from ruledraft.api import simulate as api_simulate  # noqa: E402
from ruledraft.cli.app import app  # noqa: E402
from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.errors import InputError  # noqa: E402
from ruledraft.lab.figures import LabTally  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play import engines  # noqa: E402
from ruledraft.play.runner import GamesWork, ShippedRuleset, Tally, game_seed, game_seeds, run_games  # noqa: E402

#: a rule file the kernel has no part for (a dummy with hands passing by a pattern)
NO_KERNEL = str(DATA / "kernel" / "dummy-pass-pattern.yaml")

#: the parts of --json that are times, not figures
TIMES = ("elapsed_seconds", "games_per_second")


def _run(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.stdout


def _figures(*args: str) -> dict:
    out = json.loads(_run(*args, "--json"))
    for key in TIMES:
        out.pop(key, None)
    return out


def test_game_seeds_in_bulk_are_the_game_seeds():
    """The runner's seeds for a block of games, made with numpy, are game_seed's one by one."""
    for seed in (0, 1, 7, 2**53 - 1):
        assert game_seeds(seed, 5, 40).tolist() == [game_seed(seed, i) for i in range(5, 45)]


@pytest.mark.parametrize(
    ("ruleset", "players", "bots"),
    [
        ("sushi-go", "4", "greedy,random"),
        ("sushi-go", "2", "value,first"),
        ("sushi-go-party-starter", "5", "random,greedy,value"),
        ("sushi-go-soy-sauce", "3", "random"),
    ],
)
def test_simulate_figures_and_logs_are_the_same_on_both_engines(tmp_path, ruleset, players, bots):
    """simulate --json on the kernel equals the reference engine's (every lab figure), and
    the two game logs are the same bytes."""
    common = ["simulate", ruleset, "--players", players, "--games", "300", "--seed", "11", "--bots", bots]
    ref = _figures(*common, "--engine", "reference", "--log", str(tmp_path / "ref.jsonl"))
    ker = _figures(*common, "--engine", "kernel", "--log", str(tmp_path / "ker.jsonl"))
    assert ker == ref
    assert (tmp_path / "ker.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()
    assert ref["figures"]["cards"]  # the per-card figures were compared too


def test_simulate_on_two_processes_gives_the_same_figures_on_the_kernel():
    """--jobs 2 on the kernel (each worker with the kernel from this process) equals one reference process."""
    common = ["simulate", "sushi-go", "--players", "3", "--games", "2500", "--seed", "4", "--bots", "greedy,random"]
    assert _figures(*common, "--engine", "kernel", "--jobs", "2") == _figures(*common, "--engine", "reference")


def test_simulate_without_cards_is_the_same_on_both_engines():
    """--no-cards: the figures left are the same on both engines."""
    common = ["simulate", "sushi-go", "--games", "200", "--bots", "random", "--no-cards"]
    assert _figures(*common, "--engine", "kernel") == _figures(*common, "--engine", "reference")


def test_a_tally_without_the_lab_sums_kernel_games_as_the_reference():
    """A runner's Tally with no collector counts a kernel's games in bulk to the same sums."""
    rs = load_ruleset("sushi-go")
    tallies = []
    for engine in ("reference", "kernel"):
        work = GamesWork(ShippedRuleset(rs), 4, 3, ["greedy", "random", "random", "value"], engine=engine)
        work.collector = lambda game, cards: None  # no lab: the runner's own sums
        tallies.append(work.play(0, 150).tally)
    ref, ker = tallies
    assert ref.lab is None and ker.lab is None
    for name in ("games", "wins", "total", "total_sq", "low", "high", "rules"):
        assert getattr(ker, name) == getattr(ref, name), name


def test_run_games_on_the_kernel_gives_the_reference_results_and_counts():
    """run_games (what compare plays) on the kernel: equal results with equal records, and
    each game's own lab counts folding to the same state."""
    rs = load_ruleset("sushi-go")
    bots = ["greedy", "random", "first"]
    runs = {
        e: run_games(rs, 3, 9, bots, range(20, 60), log=True, collector=LabTally.for_game, engine=e)
        for e in ("reference", "kernel")
    }
    assert runs["kernel"] == runs["reference"]
    states = []
    for results in runs.values():
        tally = Tally.empty(3, rs.rule_ids, lab=LabTally.for_game(Game(rs, 3)))
        for r in results:
            tally.add_result(r)
        states.append(tally.lab.state())
    assert states[0] == states[1]


def test_compare_is_the_same_on_both_engines():
    """compare --json (every row and interval) is the same on the kernel and the reference engine."""
    common = ["compare", "sushi-go", "--bots", "greedy,random", "--bots-b", "random", "--games", "150", "--seed", "2"]
    assert _figures(*common, "--engine", "kernel") == _figures(*common, "--engine", "reference")


def test_sweep_is_the_same_on_both_engines():
    """sweep --json over three player counts is the same on the kernel and the reference engine."""
    common = ["sweep", "sushi-go", "--players", "2-4", "--bots", "random", "--games", "120"]
    assert _figures(*common, "--engine", "kernel") == _figures(*common, "--engine", "reference")


def test_the_api_takes_an_engine():
    """ruledraft.simulate(engine=...) gives the same summary on both engines; an unknown engine is refused."""
    ref = api_simulate("sushi-go", games=200, bots="random", engine="reference").to_json()
    ker = api_simulate("sushi-go", games=200, bots="random", engine="kernel").to_json()
    for key in TIMES:
        ref.pop(key)
        ker.pop(key)
    assert ker == ref
    with pytest.raises(InputError, match="^engine must be one of auto, kernel, reference, not 'fast'$"):
        api_simulate("sushi-go", games=2, engine="fast")


def test_the_api_plays_one_game_on_either_engine_alike():
    """ruledraft.play_game(engine="kernel") finishes the reference engine's game for each seed: the same record, totals and winners."""
    from ruledraft.api import play_game
    from ruledraft.play.game_log import record_game

    for ruleset, players, bots in (
        ("sushi-go", 4, "greedy,random"),
        ("sushi-go-party-starter", 3, "value,first,random"),
    ):
        for seed in (0, 1, 2**40 + 3):
            ref = play_game(ruleset, players, bots, seed=seed)
            ker = play_game(ruleset, players, bots, seed=seed, engine="kernel")
            names = (bots.split(",") + [bots.split(",")[-1]] * players)[:players]
            assert record_game(ker, names) == record_game(ref, names)
            assert (ker.totals(), ker.winners) == (ref.totals(), ref.winners)
            assert play_game(ruleset, players, bots, seed=seed, engine="auto").totals() == ref.totals()
    planned = play_game("sushi-go", 3, "planner:samples=4,random", seed=5, engine="auto")  # a seat plans: the kernel
    assert planned.totals() == play_game("sushi-go", 3, "planner:samples=4,random", seed=5).totals()


def test_the_api_refuses_one_game_on_a_kernel_that_cannot_play_it():
    """play_game(engine="kernel") of a ruleset with no kernel part, or of an agent object, says why; "auto" plays it."""
    from ruledraft.api import play_game
    from ruledraft.errors import ArgumentError
    from ruledraft.play.agents import make_agent

    with pytest.raises(InputError, match="^the kernel cannot play this: the dummy procedure with pass patterns"):
        play_game(NO_KERNEL, 2, "random", engine="kernel")
    assert play_game(NO_KERNEL, 2, "random", engine="auto").finished
    with pytest.raises(
        InputError,
        match=r"^the kernel cannot play this: the bot 'ismcts:iterations=5' has no kernel part .*\(use engine='reference' or 'auto'\)$",
    ):
        play_game("sushi-go", 2, "ismcts:iterations=5", engine="kernel")
    with pytest.raises(
        InputError,
        match=r"^the kernel cannot play this: the bot 'ismcts:iterations=5' has no kernel part .*\(use engine='reference' or 'auto'\)$",
    ):
        api_simulate("sushi-go", 2, games=2, bots="ismcts:iterations=5", engine="kernel")
    with pytest.raises(ArgumentError, match="^engine='kernel' plays bots named by spec only, not agent objects$"):
        play_game("sushi-go", 2, [make_agent("random", 1)], engine="kernel")
    with pytest.raises(ArgumentError, match="^engine must be one of auto, kernel, reference, not 'fast'$"):
        play_game("sushi-go", 2, "random", engine="fast")


def test_engine_kernel_where_there_is_none_is_an_error_naming_why():
    """--engine kernel on a ruleset or a bot the kernel cannot play: exit 2 (unusable input) and one line saying why."""
    args = ["simulate", NO_KERNEL, "-p", "2", "--games", "5", "--engine", "kernel"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 2
    assert (
        "the kernel cannot play this: the dummy procedure with pass patterns or cards added before rounds has no kernel part yet"
        in result.stderr
    )
    result = CliRunner().invoke(app, ["simulate", "sushi-go", "--games", "5", "--bots", "ismcts", "--engine", "kernel"])
    assert result.exit_code == 2
    assert "the bot 'ismcts' has no kernel part" in result.stderr
    assert "Traceback" not in result.output


def test_auto_says_in_one_line_why_a_long_run_plays_on_the_reference_engine():
    """auto on a long run the kernel cannot play: one line on standard error why, the JSON intact."""
    rs = load_ruleset(NO_KERNEL)
    chosen = engines.choose_engine(rs, 2, ["random", "random"], "auto", 10**7)
    assert chosen == engines.Engine(
        "reference",
        "engine: reference (the dummy procedure with pass patterns or cards added before rounds has no kernel part yet)",
    )
    result = CliRunner().invoke(app, ["simulate", "sushi-go", "--games", "5", "--bots", "random", "--json"])
    assert result.exit_code == 0 and result.stderr == ""  # a short run: the reference engine, nothing to say
    json.loads(result.stdout)


def test_auto_plays_a_short_run_on_the_reference_engine_and_a_long_one_on_the_kernel():
    """auto: a run shorter than loading the kernel plays on the reference engine, a long one on the kernel."""
    rs = load_ruleset("sushi-go")
    assert engines.choose_engine(rs, 4, ["random"] * 4, "auto", 10).name == "reference"
    assert engines.choose_engine(rs, 4, ["random"] * 4, "auto", 10**7).name == "kernel"
    assert engines.choose_engine(rs, 4, ["random"] * 4, "reference", 10**7).name == "reference"


def test_a_compile_before_the_run_happens_inside_the_compiling_hook_only_when_needed(monkeypatch):
    """choose_engine enters ``compiling`` (a terminal's status line) around the compile of a
    kernel not in the cache, and not where the kernel is cached or the reference engine plays."""
    import contextlib

    from ruledraft import kernel

    rs = load_ruleset("sushi-go")
    events: list[str] = []

    @contextlib.contextmanager
    def compiling():
        events.append("enter")
        yield
        events.append("exit")

    compile_kernel = kernel.compile_kernel
    monkeypatch.setattr(kernel, "compile_kernel", lambda *a, **k: events.append("compile") or compile_kernel(*a, **k))
    for cached, engine, expected in (
        (False, "kernel", ["enter", "compile", "exit"]),
        (True, "kernel", ["compile"]),  # loaded from the cache: nothing to wait for
        (False, "reference", []),
    ):
        monkeypatch.setattr(kernel, "is_cached", lambda ruleset, function="play", cached=cached: cached)
        events.clear()
        chosen = engines.choose_engine(rs, 4, ["random"] * 4, engine, 10**7, compiling=compiling)
        assert (chosen.name, events) == (engine, expected)


_FOLD_LOADED = """
import sys
from ruledraft.kernel import fold
from ruledraft.language.loading import load_ruleset
from ruledraft.play.engines import choose_engine

chosen = choose_engine(load_ruleset("sushi-go"), 4, ["random"] * 4, "kernel", 2000, figures=sys.argv[1] == "yes")
print(chosen.name, len(fold.lab_block.overloads))
"""


def test_the_labs_fold_is_ready_before_a_run_with_figures_starts():
    """choose_engine makes the lab's compiled fold ready with the kernel (compiled apart the first time),
    so that no run compiles it on its clock, in each worker; not for a run without figures."""
    import subprocess
    import sys

    def loaded(figures: str) -> str:
        argv = [sys.executable, "-c", _FOLD_LOADED, figures]
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
        assert proc.returncode == 0, proc.stderr
        return proc.stdout

    assert loaded("yes") == "kernel 1\n"
    assert loaded("no") == "kernel 0\n"


def test_the_fold_is_compiled_apart_where_the_cache_lacks_it(monkeypatch):
    """A fold not in numba's cache is compiled in a child process, as the game loop is, then loaded."""
    from ruledraft import kernel

    rs = load_ruleset("sushi-go")
    engines.choose_engine(rs, 4, ["random"] * 4, "kernel", 2000, background=False)  # all of it ready in this process
    apart: list[str] = []
    monkeypatch.setattr(kernel, "_compile_apart", lambda path, function="play": apart.append(function))
    monkeypatch.setattr(kernel, "_cached", lambda path, function: function != "fold")
    monkeypatch.setattr(kernel, "_READY", set())
    engines.choose_engine(rs, 4, ["random"] * 4, "kernel", 2000, background=False)
    assert apart == ["fold"]


def test_a_kernel_compiles_its_other_loops_the_way_its_last_caller_asked(monkeypatch):
    """compile_kernel(..., apart=False) has the planner's loop and the lab's fold compiled in this
    process, as its game loop is (they went to a child process all the same); apart=True, a run's
    way, in a child process, whoever made the kernel first."""
    from ruledraft import kernel

    rs = load_ruleset("sushi-go")
    apart: list[str] = []
    here: list[str] = []
    monkeypatch.setattr(kernel, "_compile_apart", lambda path, function="play": apart.append(function))
    monkeypatch.setattr(kernel, "_cached", lambda path, function: False)
    monkeypatch.setattr(kernel, "warm_entry", lambda module, function: here.append(function))
    for way, (children, loaded) in ((False, ([], ["play_planner", "fold"])), (True, (["play_planner", "fold"],) * 2)):
        monkeypatch.setattr(kernel, "_READY", set())
        apart.clear()
        here.clear()
        made = kernel.compile_kernel(rs, 4, apart=way, loop=False)
        made.ready_for(["planner", "random", "random", "random"])
        made.ready_fold()
        assert (apart, here) == (children, loaded), way


def test_a_terminal_is_told_what_the_compile_before_a_run_is_for(monkeypatch):
    """On a terminal a status line names the kernel being compiled and goes when the compile
    ends; with --quiet, or when standard error is not a terminal, nothing is shown (the output
    is the same whether the kernel was in the cache or not)."""
    import io

    from rich.console import Console

    from ruledraft.cli import options

    rs = load_ruleset("sushi-go")
    screen = io.StringIO()
    monkeypatch.setattr(options, "console", lambda stderr=False: Console(file=screen, force_terminal=True, width=80))
    assert options.compiling_status(rs, quiet=True) is None
    status = options.compiling_status(rs, quiet=False)
    assert status is not None
    with status():
        pass
    assert "compiling the kernel of sushi-go (once: it is cached)" in screen.getvalue()
    elsewhere = io.StringIO()
    monkeypatch.setattr(options, "console", lambda stderr=False: Console(file=elsewhere, force_terminal=False))
    status = options.compiling_status(rs, quiet=False)
    assert status is not None
    with status():
        pass
    assert elsewhere.getvalue() == ""


def test_play_refuses_the_kernel_clearly():
    """play --engine kernel: an error saying a game with a human seat plays on the reference engine."""
    result = CliRunner().invoke(app, ["play", "sushi-go", "--players", "2", "--engine", "kernel"], input="q\n")
    assert result.exit_code == 2
    assert "a game with your seat in it plays on the reference engine" in result.stderr


def test_a_local_cluster_on_the_kernel_gives_the_reference_figures_and_log(tmp_path):
    """--cluster local:2 --engine kernel (each worker loads the kernel from the cache):
    the --json figures and the log equal one reference process's."""
    import subprocess
    import sys

    pytest.importorskip("distributed")
    out = {}
    for name, extra in (("dask", ["--cluster", "local:2", "--engine", "kernel"]), ("ref", ["--engine", "reference"])):
        proc = subprocess.run(
            [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "3", "-g", "600", "-s", "5"]
            + ["--bots", "greedy,random", "--json", "-q", "--log", f"{name}.jsonl", *extra],
            capture_output=True,
            text=True,
            timeout=600,
            cwd=tmp_path,
        )
        assert proc.returncode == 0, proc.stderr
        summary = json.loads(proc.stdout)
        for key in TIMES:
            summary.pop(key)
        out[name] = summary
    assert out["dask"] == out["ref"]
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "ref.jsonl").read_bytes()


MEASURE = """
import json, sys
from ruledraft.language.loading import load_ruleset
from ruledraft.play.runner import simulate


def memory_kib():
    with open("/proc/self/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return [int(fields[key].split()[0]) for key in ("VmRSS", "VmHWM")]


warm, games = int(sys.argv[1]), int(sys.argv[2])
done = 0
marks = []


def progress(n):
    global done
    before, done = done, done + n
    if before < warm <= done or done == games:
        marks.append((done, memory_kib()))


summary = simulate(load_ruleset("sushi-go"), 4, games, 0, ["random"] * 4, progress=progress, engine="kernel")
assert summary.games == games
print(json.dumps(marks))
"""


def test_games_written_over_one_another_in_a_room_are_the_games_written_anew():
    """Blocks played into one Room (each call writing over the last's arrays, a block of
    40 games, then 7, then 40 again) equal the same blocks played into new arrays, every
    field, on a menu whose effects leave most of each game's decisions unset (-1)."""
    import attrs
    import numpy as np

    from ruledraft.kernel import Kernel, Room, compile_kernel

    ruleset = load_ruleset("sushi-go-party-master-menu")
    kernel = compile_kernel(ruleset, 4)
    assert isinstance(kernel, Kernel), kernel
    room = Room()
    for start, n in ((0, 40), (40, 7), (47, 40)):
        seeds = game_seeds(5, start, n)
        kept = kernel.play(seeds, ["random"] * 4, room=room)
        kept = attrs.evolve(kept, **{f.name: np.copy(getattr(kept, f.name)) for f in attrs.fields(type(kept))[2:]})
        anew = kernel.play(seeds, ["random"] * 4)
        assert anew.decisions is not None and (anew.decisions == -1).any()
        for field in attrs.fields(type(anew)):
            assert np.array_equal(getattr(kept, field.name), getattr(anew, field.name)), field.name


@pytest.mark.parametrize(
    ("name", "players", "bots"),
    [
        ("sushi-go", 4, ["random", "first", "random", "random"]),
        ("sushi-go-two-player-dummy", 2, ["random", "first"]),
        ("sushi-go-party-master-menu", 3, ["random"] * 3),
    ],
)
def test_a_room_whose_arrays_hold_anything_gives_the_games_written_anew(name, players, bots):
    """The arrays a Room hands out unfilled (totals, rules' points, round points, tables:
    the game loops write them whole) give the games new arrays give, whatever they held:
    every field equal after each array was set to a value no game writes, for a plain
    ruleset, one with a dummy and one with card effects."""
    import numpy as np

    from ruledraft.kernel import Kernel, Room, compile_kernel

    kernel = compile_kernel(load_ruleset(name), players)
    assert isinstance(kernel, Kernel), kernel
    room = Room()
    seeds = game_seeds(11, 0, 30)
    kernel.play(seeds, bots, room=room)
    for kept in room._arrays.values():
        kept.fill(-7777)
    poisoned = kernel.play(seeds, bots, room=room)
    anew = kernel.play(seeds, bots)
    for field in attrs.fields(type(anew)):
        assert np.array_equal(getattr(poisoned, field.name), getattr(anew, field.name)), field.name


def test_memory_stays_flat_over_the_games_on_the_kernel():
    """Past 20,000 random four-player games on the kernel (every figure counted), memory
    (now and at its peak) grows by less than 20 MB over 200,000 more."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    if not Path("/proc/self/status").exists():
        pytest.skip("reads /proc")
    out = subprocess.run(
        [sys.executable, "-c", MEASURE, "20000", "220000"],
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ.copy(),
    )
    assert out.returncode == 0, out.stderr
    (warm, start), (end, finish) = json.loads(out.stdout)
    assert 20_000 <= warm < end == 220_000
    growth = [(b - a) * 1024 for a, b in zip(start, finish)]
    assert max(growth) < 20 * 2**20, growth


def test_auto_compiles_a_missing_kernel_in_the_background_for_later_runs(tmp_path):
    """With an empty cache, auto plays a mid-sized run on the reference engine, saying
    nothing, and a process of its own leaves the kernel in the cache, which the same run
    then plays, to the same figures. (At the suite's lighter optimisation, which the
    compiler started in the background inherits: its four parts at numba's default took
    44 s of the suite's 15 minutes. Each level's own cache is test_kernel_cache's.)"""
    import os
    import subprocess
    import sys
    import time

    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env |= {"XDG_CACHE_HOME": str(tmp_path), engines.BACKGROUND_COMPILE: "1"}  # the suite sets 0 (tests/conftest.py)
    small = str(EXAMPLES / "tutorial" / "step1.yaml")  # two cards, one rule: a quicker compile than Sushi Go!'s
    rs = load_ruleset(small)
    # about 3 s: past LOAD_SECONDS, so auto starts the compiler (its mark is written before the run)
    games = int(3 / max(engines.reference_seconds(Game(rs, 2), ["random", "random"], 1), 1e-6))
    run = [sys.executable, "-m", "ruledraft", "simulate", small, "-p", "2", "-g", str(games), "-b", "random"]
    proc = subprocess.run([*run, "--json", "-q"], capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""  # nothing said: the same lines whether the cache was empty or not
    reference = json.loads(proc.stdout)
    kernels = tmp_path / "ruledraft" / "kernels"
    deadline = time.monotonic() + 600
    while any(kernels.glob("*.compiling")):  # the compiler removes its mark when it is done
        assert time.monotonic() < deadline, "the background compile did not finish"
        time.sleep(0.5)
    from ruledraft.kernel import _numba_dir

    assert list((tmp_path / "ruledraft" / _numba_dir().name).rglob("k_*.play-*.nbi"))  # the level's own folder
    proc = subprocess.run([*run, "--json", "-q", "--engine", "kernel"], capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    kernel = json.loads(proc.stdout)
    for key in TIMES:
        reference.pop(key, None)
        kernel.pop(key, None)
    assert kernel == reference


def recorded_warms(monkeypatch) -> list[str]:
    """What a background compile (``python -m ruledraft.kernel FILE``, its ``main``) warms,
    in order, recorded instead of compiled, for a kernel module the batch holds."""
    import types

    from ruledraft import kernel
    from ruledraft.kernel import batch, fold, rollout

    warmed: list[str] = []
    held = types.SimpleNamespace(EFFECTS=False, NRACE=0)  # a kernel module the batch holds
    monkeypatch.setattr(kernel, "_use_cache_dir", lambda: None)
    monkeypatch.setattr(kernel, "_import", lambda path: held)
    monkeypatch.setattr(kernel, "warm", lambda module, function="play": warmed.append(function))
    monkeypatch.setattr(fold, "warm", lambda: warmed.append("fold"))
    monkeypatch.setattr(rollout, "warm_rollout", lambda module: warmed.append("rollout"))
    for name in ("warm_batch", "warm_batch_planner"):
        monkeypatch.setattr(batch, name, lambda module, name=name: warmed.append(name))
    return warmed


@pytest.mark.parametrize(("planner", "batch_planner"), [(False, False), (True, False), (False, True), (True, True)])
def test_the_background_compile_warms_the_planners_only_when_asked(tmp_path, monkeypatch, planner, batch_planner):
    """start_compiling(planner=True) passes --with-planner, and that compile warms the
    planner's game loop after the game loop; batch_planner=True passes
    --with-batch-planner, and the batch's planner is warmed after the batch functions;
    without them, neither is."""
    import subprocess

    from ruledraft import kernel
    from ruledraft.kernel import __main__ as main_module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    launched: list[list[str]] = []
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **_: launched.append(argv))
    assert kernel.start_compiling(load_ruleset("sushi-go"), planner=planner, batch_planner=batch_planner)
    (argv,) = launched
    assert argv[-1].endswith(".py")
    assert ("--with-planner" in argv, "--with-batch-planner" in argv) == (planner, batch_planner)

    warmed = recorded_warms(monkeypatch)
    assert main_module.main(argv[3:]) == 0
    loops = ["play", "play_planner"] if planner else ["play"]
    batches = ["warm_batch", "warm_batch_planner"] if batch_planner else ["warm_batch"]
    assert warmed == [*loops, "fold", "rollout", *batches]
    assert not list((tmp_path / "ruledraft" / "kernels").glob("*.compiling"))


def test_a_compile_under_way_is_asked_for_the_planners_loop_and_compiles_it_at_its_end(tmp_path, monkeypatch):
    """A run wanting the planner's loop (or the batch's planner) while a background compile
    started without it is under way starts nothing, but leaves a request that compile
    reads at its end: it warms the loops asked for, once, after its own work."""
    import subprocess

    from ruledraft import kernel
    from ruledraft.kernel import __main__ as main_module

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    launched: list[list[str]] = []
    monkeypatch.setattr(subprocess, "Popen", lambda argv, **_: launched.append(argv))
    rs = load_ruleset("sushi-go")
    assert kernel.start_compiling(rs)  # a run of random bots: no planner
    (argv,) = launched
    assert not kernel.start_compiling(rs)  # under way: nothing asked, nothing started
    assert not kernel.start_compiling(rs, planner=True) and not kernel.start_compiling(rs, batch_planner=True)
    assert len(launched) == 1
    kernels = tmp_path / "ruledraft" / "kernels"
    assert sorted(p.suffix for p in kernels.glob("*.wants-*")) == [".wants-batch-planner", ".wants-planner"]

    warmed = recorded_warms(monkeypatch)
    assert main_module.main(argv[3:]) == 0
    assert warmed == ["play", "fold", "rollout", "warm_batch", "play_planner", "warm_batch_planner"]
    assert not list(kernels.glob("*.wants-*")) and not list(kernels.glob("*.compiling"))


def test_auto_waits_for_no_planners_loop_on_a_short_run_and_compiles_it_for_later(monkeypatch):
    """A run where a seat plans, its game loop cached but not the planner's: auto plays a
    run shorter than the compile on the reference engine and starts a compile of the
    planner's loop too; --engine kernel compiles it before the run (off its clock)."""
    from ruledraft import kernel

    rs = load_ruleset("sushi-go")
    bots = ["planner", "random"]
    monkeypatch.setenv(engines.BACKGROUND_COMPILE, "1")  # the suite sets 0 (tests/conftest.py); nothing starts here
    monkeypatch.setattr(kernel, "is_cached", lambda ruleset, function="play": function == "play")
    started: list[bool] = []
    monkeypatch.setattr(kernel, "start_compiling", lambda ruleset, planner=False: started.append(planner) or True)
    readied: list[str] = []
    monkeypatch.setattr(kernel, "ready_apart", lambda path, function, apart=True: readied.append(function))
    games = int(5 / max(engines.reference_seconds(Game(rs, 2), bots, 1), 1e-6))  # about 5 s
    assert engines.choose_engine(rs, 2, bots, "auto", games).name == "reference"
    assert started == [True] and readied == []
    assert engines.choose_engine(rs, 2, ["random"] * 2, "kernel", 10).name == "kernel"
    assert readied == ["fold"]  # no seat plans: the planner's loop is not wanted (the lab's fold is)
    readied.clear()
    assert engines.choose_engine(rs, 2, [" planner:samples=2", "random"], "kernel", 10).name == "kernel"
    assert readied == ["play_planner", "fold"]  # spaces around a name: the planner all the same


def test_a_run_with_an_ismcts_seat_compiles_its_rollout_for_later_runs(monkeypatch):
    """The kernel does not play ismcts, so auto plays such a run on the reference engine;
    where the roll-out ismcts would take from the cache is missing, it starts the
    compile for later runs (not for roll-outs at random, kernel=no, kernel=yes, which
    compiles it in the run, or one cached)."""
    from ruledraft import kernel
    from ruledraft.play import ismcts

    rs = load_ruleset("sushi-go-party-cutthroat-combo")  # card effects: their roll-out too
    monkeypatch.setenv(engines.BACKGROUND_COMPILE, "1")  # the suite sets 0 (tests/conftest.py); nothing starts here
    monkeypatch.setattr(ismcts, "kernel_rollouts", lambda game, compile=False: None)  # kernel=yes's, before the run
    cached = {"play": True, "rollout": False}
    monkeypatch.setattr(kernel, "is_cached", lambda ruleset, function="play": cached[function])
    started: list[object] = []
    monkeypatch.setattr(kernel, "start_compiling", lambda ruleset, **options: started.append((ruleset, options)))
    for games in (5, 5000, None):
        assert (
            engines.choose_engine(rs, 3, ["ismcts:iterations=5", "random", "random"], "auto", games).name == "reference"
        )
    assert started == [(rs, {})] * 3
    started.clear()
    for bots in (["ismcts:kernel=no"], ["ismcts:rollout=random"], ["greedy", "ismcts:kernel=yes"]):  # yes: in the run
        engines.choose_engine(rs, 3, [*bots, "random", "random"][:3], "auto", 5000)
    engines.choose_engine(rs, 3, ["ismcts", "random", "random"], "reference", 5000)
    assert started == []
    cached["rollout"] = True
    engines.choose_engine(rs, 3, ["ismcts", "random", "random"], "auto", 5000)
    assert started == []
    monkeypatch.setenv(engines.BACKGROUND_COMPILE, "0")
    cached["rollout"] = False
    engines.choose_engine(rs, 3, ["ismcts", "random", "random"], "auto", 5000)
    assert started == []


def test_ismcts_kernel_yes_has_its_rollout_ready_before_the_run(monkeypatch):
    """ismcts:kernel=yes has its roll-out compiled (or loaded) before the run, on either
    engine, with the compiling status shown only while one not in the cache compiles;
    kernel=auto or no, roll-outs at random and other bots ask for nothing."""
    from ruledraft import kernel
    from ruledraft.play import ismcts

    rs = load_ruleset("sushi-go-party-cutthroat-combo")
    cached = {"play": False, "rollout": False, "fold": False}
    monkeypatch.setattr(kernel, "is_cached", lambda ruleset, function="play": cached[function])
    asked: list[tuple[object, int, bool]] = []
    monkeypatch.setattr(
        ismcts, "kernel_rollouts", lambda game, compile=False: asked.append((game.ruleset, game.num_players, compile))
    )
    waits: list[str] = []

    @contextlib.contextmanager
    def status():
        waits.append("compiling")
        yield

    bots = ["random", "ismcts:kernel=yes:iterations=5", "random"]
    for engine in ("auto", "reference"):
        assert engines.choose_engine(rs, 3, bots, engine, 5000, compiling=status).name == "reference"
    assert asked == [(rs, 3, True)] * 2 and waits == ["compiling"] * 2
    cached.update(play=True, rollout=True, fold=True)
    engines.choose_engine(rs, 3, bots, "auto", 5000, compiling=status)
    assert asked == [(rs, 3, True)] * 3 and waits == ["compiling"] * 2  # cached: loaded without a word
    asked.clear()
    for other in (["ismcts:kernel=auto"], ["ismcts:kernel=no"], ["ismcts:kernel=yes:rollout=random"], ["greedy"]):
        engines.choose_engine(rs, 3, [*other, "random", "random"], "auto", 5000, compiling=status)
    assert asked == []


def test_play_readies_an_ismcts_kernel_yes_rollout_before_the_game(monkeypatch):
    """`play` makes a seat's ismcts:kernel=yes roll-out ready before the game starts (a
    status line on a terminal), not in the middle of that seat's first move."""
    from ruledraft.play import ismcts

    asked: list[tuple[str, bool]] = []
    monkeypatch.setattr(ismcts, "kernel_rollouts", lambda game, compile=False: asked.append((game.ruleset.id, compile)))
    result = CliRunner().invoke(app, ["play", "sushi-go", "-p", "2", "--bots", "ismcts:kernel=yes"], input="")
    assert asked == [("sushi-go", True)]
    assert "Input ended before the game did" in result.output and result.exit_code != 0


def test_no_background_compile_when_the_environment_says_0(tmp_path, monkeypatch):
    """RULEDRAFT_BACKGROUND_COMPILE=0: auto plays a mid-sized run with an empty cache on the
    reference engine and starts no compiler (no kernel source, no mark in the cache)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(engines.BACKGROUND_COMPILE, "0")
    rs = load_ruleset("sushi-go")
    games = int(5 / max(engines.reference_seconds(Game(rs, 2), ["random", "random"], 1), 1e-6))  # about 5 s
    assert engines.choose_engine(rs, 2, ["random"] * 2, "auto", games).name == "reference"
    assert not (tmp_path / "ruledraft" / "kernels").exists()


def test_a_collector_without_bulk_counting_plays_its_games_on_the_reference_engine():
    """simulate --marginal (a collector that counts game by game) with --engine kernel:
    the same --json as on the reference engine, marginal points included."""
    common = ["simulate", "sushi-go", "--games", "150", "--bots", "greedy,random", "--marginal"]
    ker = _figures(*common, "--engine", "kernel")
    assert ker == _figures(*common, "--engine", "reference")
    assert "marginal" in json.dumps(ker)


def test_a_cache_that_cannot_be_written_leaves_the_run_on_the_reference_engine(tmp_path):
    """With the cache directory unwritable, --engine kernel says so in one line and auto
    plays on the reference engine, nothing started."""
    import os
    import subprocess
    import sys

    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"} | {"XDG_CACHE_HOME": str(blocked)}
    base = [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "2", "-g", "20", "-b", "random", "-q"]
    proc = subprocess.run([*base, "--engine", "kernel"], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 2, proc.stderr
    assert "the kernel cannot play this: its cache cannot be written" in proc.stderr
    assert proc.stderr.endswith("(use --engine reference or auto)\n")  # as every other refusal of the kernel
    assert "Traceback" not in proc.stderr
    proc = subprocess.run([*base, "--json"], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    code = (
        "import attrs; from ruledraft.language.loading import load_ruleset; "
        "from ruledraft.play.engines import choose_engine; "
        "print(choose_engine(attrs.evolve(load_ruleset('sushi-go')), 2, ['random'] * 2, 'auto', 10**8))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Engine(name='reference', note='engine: reference (its cache cannot be written" in proc.stdout


def test_block_size_starts_small_and_fits_a_call_to_a_quarter_second():
    """The kernel's calls: one game first, then as many as take about a quarter of a
    second by the last call's time, from one game (slow bots) to a thousand."""
    from ruledraft.play.runner import FIRST_BLOCK, KERNEL_BLOCK, BlockSize

    blocks = BlockSize()
    assert blocks.next(10_000) == FIRST_BLOCK == 1
    blocks.played(1, 0.001)  # 1 ms a game: 250 games to a call
    assert blocks.next(10_000) == 250
    blocks.played(250, 0.000_25)  # 1 us a game: as many as a call holds
    assert blocks.next(10_000) == KERNEL_BLOCK
    blocks.played(1000, 5000.0)  # 5 s a game (a planner of 10,000 samples): one game a call
    assert blocks.next(10_000) == 1


def test_kernel_calls_shrink_for_slow_games_and_the_figures_stay_the_same(monkeypatch):
    """Where games are slow, the kernel plays them a few to a call (a Ctrl-C waits for one
    call at most); the figures are the same whatever the calls' sizes."""
    from ruledraft import kernel as kernel_module
    from ruledraft.play import runner

    sizes: list[int] = []
    play = kernel_module.Kernel.play

    def counted(self, seeds, *args, **kwargs):
        sizes.append(len(seeds))
        return play(self, seeds, *args, **kwargs)

    monkeypatch.setattr(kernel_module.Kernel, "play", counted)
    common = {"players": 3, "games": 120, "bots": "greedy,random", "seed": 8, "engine": "kernel"}
    quick = api_simulate("sushi-go", **common).to_json()
    assert sum(sizes) == 120 and sizes[0] <= runner.FIRST_BLOCK and max(sizes) > runner.FIRST_BLOCK
    sizes.clear()
    monkeypatch.setattr(runner, "KERNEL_CALL_SECONDS", 1e-12)  # as if every game took longer than a call may
    slow = api_simulate("sushi-go", **common).to_json()
    assert sum(sizes) == 120 and sizes[0] <= runner.FIRST_BLOCK and set(sizes[1:]) == {1}
    for figures in (quick, slow):
        for timed in ("games_per_second", "elapsed_seconds"):
            figures.pop(timed)
    assert slow == quick


def test_an_unwritable_cache_is_named_by_the_number_of_games_not_by_a_timing(tmp_path, monkeypatch):
    """auto with a cache that cannot be written: the line saying why the reference engine
    plays comes for 1,000 games or more on a fast or a slow machine alike (it came only
    when the three games timed made the run look longer than a compile), never below."""
    import attrs

    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    monkeypatch.setenv(engines.BACKGROUND_COMPILE, "1")  # would start a compile, if it were asked to
    started: list[object] = []
    from ruledraft import kernel

    monkeypatch.setattr(kernel, "start_compiling", lambda ruleset, **options: started.append(ruleset))
    for seconds in (1e-9, 5.0, 1e9):  # instant, shorter than a compile, longer
        monkeypatch.setattr(engines, "reference_seconds", lambda *args, s=seconds, **kw: s)
        rs = attrs.evolve(load_ruleset("sushi-go"))  # a new ruleset object: its source's path is found anew
        chosen = engines.choose_engine(rs, 4, ["random"] * 4, "auto", 30000)
        assert chosen.name == "reference"
        assert chosen.note is not None and chosen.note.startswith("engine: reference (its cache cannot be written (")
        assert "Not a directory" in chosen.note
        assert engines.choose_engine(rs, 4, ["random"] * 4, "auto", 999) == engines.Engine("reference")
    assert started == []


def test_a_cache_with_no_room_for_the_compiled_kernel_is_named_not_the_output(monkeypatch, tmp_path):
    """numba's write of what it compiled meets a full disk (it names no file): --engine
    kernel is refused naming the cache and the disk, exit 2 (it said "cannot write the
    output", status 74, with the output fine); auto plays on the reference engine and says why."""
    import errno

    from ruledraft import kernel

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # as numba's _open_for_write raises it

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))  # where numba writes: the folder named
    monkeypatch.setattr(kernel, "compile_kernel", full)
    monkeypatch.setattr(kernel, "is_cached_for", lambda *args: True)  # no compile started apart: this one is it
    result = CliRunner().invoke(app, ["simulate", "sushi-go", "-p", "3", "-g", "20", "-q", "--engine", "kernel"])
    assert result.exit_code == 2, result.output
    assert "its cache cannot be written (" in result.stderr and "No space left on device)" in result.stderr
    assert f"({tmp_path / 'numba'}: No space left on device)" in result.stderr
    assert "cannot write the output" not in result.stderr
    rs = attrs.evolve(load_ruleset("sushi-go"))
    chosen = engines.choose_engine(rs, 3, ["random"] * 3, "auto")
    assert chosen.name == "reference" and chosen.note is not None
    assert chosen.note.startswith("engine: reference (its cache cannot be written (") and "No space" in chosen.note


def test_auto_names_why_by_the_number_of_games_not_by_a_timing(monkeypatch):
    """auto's line on why the kernel does not play comes from the number of games alone: the same on a fast or slow machine."""
    rs = load_ruleset(NO_KERNEL)
    for seconds in (1e-9, 1e9):  # a machine where the reference engine looks instant, or very slow
        monkeypatch.setattr(engines, "reference_seconds", lambda *args, s=seconds, **kw: s)
        assert engines.choose_engine(rs, 2, ["random", "random"], "auto", engines.NOTE_GAMES - 1).note is None
        long_run = engines.choose_engine(rs, 2, ["random", "random"], "auto", engines.NOTE_GAMES)
        assert long_run == engines.Engine(
            "reference",
            "engine: reference (the dummy procedure with pass patterns or cards added before rounds has no kernel part yet)",
        )


def _stderr(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "-q"])
    assert "Traceback" not in result.output
    return result.exit_code, result.stderr


def test_compare_says_a_note_both_sides_share_once_and_names_the_side_of_one_they_do_not(monkeypatch):
    """compare: auto's note for a line-up both sides play said once; for one side's only, that side named;
    --engine kernel that side B's bots stop names side B."""
    monkeypatch.setattr(engines, "NOTE_GAMES", 5)
    why = "the bot 'value:tempura=3' has no kernel part"
    status, err = _stderr("compare", "sushi-go", "--games", "5", "--bots", "value:tempura=3", "--players-b", "3")
    assert status == 0 and err.count(why) == 1 and err.startswith("engine: reference (")
    status, err = _stderr("compare", "sushi-go", "--games", "5", "--bots-b", "value:tempura=3,random")
    assert status == 0 and err.startswith("engine (side B): reference (" + why)
    assert err.count("\n") == 1
    status, err = _stderr(
        "compare", "sushi-go", "--games", "5", "--bots-b", "value:tempura=3,random", "--engine", "kernel"
    )
    assert status == 2 and err.startswith("error: side B: the kernel cannot play this: " + why)


def test_sweep_says_a_note_every_count_shares_once_and_names_the_counts_of_one_only_some_have(monkeypatch):
    """sweep: auto's note said once, not once a player count; where only some counts cannot play on the
    kernel, the note names them; --engine kernel names the count it stops at."""
    monkeypatch.setattr(engines, "NOTE_GAMES", 5)
    status, err = _stderr("sweep", "sushi-go", "--players", "2-5", "--games", "5", "--bots", "value:tempura=3")
    assert status == 0 and err.count("\n") == 1 and err.startswith("engine: reference (the bot 'value:tempura=3'")
    big = str(DATA / "kernel" / "big-hands-at-two.yaml")
    status, err = _stderr("sweep", big, "--players", "2-3", "--games", "5")
    assert status == 0 and err == "engine (2 players): reference (hands of more than 18 cards)\n"
    status, err = _stderr("sweep", big, "--players", "2-3", "--games", "5", "--engine", "kernel")
    assert status == 2 and err.startswith("error: 2 players: the kernel cannot play this: hands of more than 18 cards")


def test_bench_json_says_on_standard_error_why_a_figure_is_the_reference_engines():
    """bench --json: a figure the kernel cannot play reads "reference" in the JSON, and standard error says why."""
    result = CliRunner().invoke(
        app, ["bench", "sushi-go", "-p", "2", "--bots", "value:tempura=3", "--seconds", "0.01", "--json"]
    )
    assert result.exit_code == 0
    assert [f["engine"] for f in json.loads(result.stdout)] == ["reference"]
    assert result.stderr == (
        "engine (sushi-go, 2 players, value:tempura=3): reference (the bot 'value:tempura=3' has no kernel part"
        " (value plays on the kernel only without options; the one option the kernel takes is planner's samples=N))\n"
    )


def test_the_python_api_warns_why_auto_plays_on_the_reference_engine_and_says_which_played(monkeypatch):
    """ruledraft.simulate: auto's note as a UserWarning (the CLI's line), and Summary.engine names the engine that
    played (a summary made without a run, from a tally alone, says None)."""
    monkeypatch.setattr(engines, "NOTE_GAMES", 5)
    with pytest.warns(UserWarning, match=r"^engine: reference \(the bot 'value:tempura=3' has no kernel part"):
        summary = api_simulate("sushi-go", players=2, games=5, bots="value:tempura=3")
    assert summary.engine == "reference"
    assert api_simulate("sushi-go", players=2, games=5, bots="random", engine="kernel").engine == "kernel"
    from ruledraft.play.match import Match
    from ruledraft.play.runner import simulate_match

    match = Match.trusted(load_ruleset("sushi-go"), 2, ("random",) * 2, 1)
    assert simulate_match(match, 5, engine="kernel").engine == "kernel"  # however the run was made
    assert summary.tally is not None and summary.tally.summary("sushi-go", 2, 0, ["random"] * 2).engine is None


def test_compare_on_the_kernel_refuses_side_b_before_side_a_compiles(monkeypatch):
    """compare --engine kernel where only side B's bots have no kernel part: refused before side A's kernel is
    compiled (half a minute when it is not in the cache)."""
    from ruledraft import kernel

    compiled: list[str] = []
    monkeypatch.setattr(kernel, "compile_kernel", lambda rs, *a, **k: compiled.append(rs.id))
    status, err = _stderr(
        "compare", "sushi-go", "--games", "5", "--bots-b", "value:tempura=3,random", "--engine", "kernel"
    )
    assert status == 2 and compiled == []
    assert err.startswith("error: side B: the kernel cannot play this: the bot 'value:tempura=3'")


def _heavy(rules: int, effects: int = 0) -> str:
    """A valid rule file of ``rules`` expression rules, each with nested player aggregates, and ``effects``
    cards with card effects."""
    term = "count(c{a}) * min(4, count_opponents(count(c{b}) > max_opponents(count(c{a}))))"
    kinds = ("{kind: second_pick, order: %d}", "{kind: draw_and_choose, draw: 4, order: %d}", "{kind: copy_earlier}")
    cards = [f"  - {{id: c{i}, name: C{i}, count: 6}}" for i in range(20)]
    cards += [
        f"  - {{id: e{i}, name: E{i}, count: 2, effect: {kinds[i % 3].replace('%d', str(i + 1))}}}"
        for i in range(effects)
    ]
    scoring = [
        f"  - {{id: r{i}, when: round_end, kind: expression, expr: "
        f'"{" + ".join(term.format(a=(i + k) % 20, b=(i * 7 + k) % 20) for k in range(4))}"}}'
        for i in range(rules)
    ]
    scoring += [
        f"  - {{id: s{i}, when: round_end, kind: sets, cards: e{i}, size: 2, points: 3}}" for i in range(effects)
    ]
    return (
        "format: 1\nid: heavy\nname: Heavy\nplayers: {min: 2, max: 5}\ncards:\n" + "\n".join(cards) + "\n"
        "deal:\n  hand_size: {2: 10, 3: 9, 4: 8, 5: 7}\nrounds:\n  count: 3\n  pass: [left, left, left]\n"
        "turn:\n  procedure: standard\nscoring:\n" + "\n".join(scoring) + "\n"
    )


@pytest.mark.parametrize(("rules", "effects"), [(60, 0), (1, 120)], ids=["aggregates", "effects"])
def test_a_kernel_too_large_to_compile_in_reasonable_time_is_refused_saying_why(tmp_path, rules, effects):
    """A valid rule file whose kernel would take minutes and gigabytes to compile (expressions of nested
    aggregates, or cards with effects, by the dozen) has no kernel, said before anything compiles; a file
    with a few of them keeps its kernel."""
    from ruledraft.kernel.codegen import MAX_CODE

    heavy = tmp_path / "heavy.yaml"
    heavy.write_text(_heavy(rules, effects), encoding="utf-8")
    reason = engines.kernel_refusal(load_ruleset(str(heavy)), 4, ["random"] * 4)
    assert reason is not None and reason.startswith("its rules and card effects make ")
    assert reason.endswith(f"characters of kernel code, more than the {MAX_CODE:,} the kernel compiles in "
                           "reasonable time and memory (each rule, card effect and player aggregate adds to them)")  # fmt: skip
    heavy.write_text(_heavy(rules // 10, effects // 10), encoding="utf-8")
    assert engines.kernel_refusal(load_ruleset(str(heavy)), 4, ["random"] * 4) is None


_REGISTRIES = """
import sys

import ruledraft.kernel  # noqa: F401
from numba.core.registry import cpu_target

cpu_target.target_context.refresh()  # what numba does before its first compile or load
import numba.np.arraymath  # noqa: E402

print(
    "scipy.linalg" in sys.modules,
    any(type(f).__name__ == "_NoSciPyForNumbasCheck" for f in sys.meta_path),
    numba.np.arraymath._HAVE_BLAS,  # as numba notes it where SciPy is installed: np.correlate as without ruledraft
)

import numba
import numpy as np


@numba.njit
def dot(x):
    return np.dot(x, x)


print(dot(np.ones(3)), "scipy" in sys.modules)
"""


def test_numbas_registries_load_without_importing_scipy_and_blas_still_works():
    """Loading numba's registries (before a kernel's first load) no longer imports scipy.linalg (a fifth of a
    second where SciPy is installed), and the hook is gone after; code that wants BLAS still gets it."""
    import subprocess
    import sys

    import scipy  # noqa: F401 - installed with the test extras (open_spiel's): numba's np.dot needs its BLAS

    proc = subprocess.run([sys.executable, "-c", _REGISTRIES], capture_output=True, text=True, timeout=300, check=False)
    assert (proc.returncode, proc.stdout) == (0, "False False True\n3.0 True\n"), proc.stderr


def test_a_numba_cache_that_cannot_be_written_refuses_the_kernel_even_when_it_is_compiled(tmp_path, monkeypatch):
    """numba cannot load cached code from a folder it cannot write (a read-only cache raised "no locator
    available", an internal error): its folder is checked as the kernel's own is, compiled or not."""
    from ruledraft import kernel

    rs = load_ruleset("sushi-go")
    assert kernel.cache_refusal(rs) is None
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(blocked / "numba"))
    assert kernel.cache_refusal(rs) == f"its cache cannot be written ({blocked / 'numba'}: Not a directory)"
