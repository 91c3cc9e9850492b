"""``ruledraft bench --engine``: figures on the kernel where it plays, else on the reference engine."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("numba")

from paths import DATA  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from ruledraft.cli.app import app  # noqa: E402


def _figures(*args: str) -> list[dict]:
    result = CliRunner().invoke(app, ["bench", *args, "--seconds", "0.01", "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_bench_measures_on_the_kernel_with_its_compile_time_apart():
    """--engine auto on Sushi Go! with random bots: a kernel figure, its compile time a field of its own."""
    (fig,) = _figures("sushi-go", "-p", "2", "--bots", "random", "--engine", "auto")
    assert fig["engine"] == "kernel"
    # the seconds this process spent making the kernel ready: 0.0 when an earlier command
    # of the same process (another test) had loaded it already
    assert isinstance(fig["compile_seconds"], float) and fig["compile_seconds"] >= 0
    assert fig["games"] >= 20


def test_bench_counts_the_planners_loop_with_the_compile_not_the_games(monkeypatch):
    """A planner's figure: its game loop (compiled apart the first time a planner plays)
    is made ready before the games are timed, and its seconds join the compile's."""
    from ruledraft.cli import bench as bench_command
    from ruledraft.kernel import Kernel

    events: list[str] = []
    ready_for, measure_kernel = Kernel.ready_for, bench_command.measure_kernel

    def ready(self, bots):
        events.append(f"ready {bots[0]}")
        return ready_for(self, bots) + 7.5  # as if its first compile took 7.5 s more

    def measure(*args, **kwargs):
        events.append("games")
        return measure_kernel(*args, **kwargs)

    monkeypatch.setattr(Kernel, "ready_for", ready)
    monkeypatch.setattr(bench_command, "measure_kernel", measure)
    (fig,) = _figures("sushi-go", "-p", "2", "--bots", "planner:samples=1", "--engine", "kernel")
    assert fig["engine"] == "kernel" and events == ["ready planner:samples=1", "games"]
    assert fig["compile_seconds"] >= 7.5


def test_bench_readies_an_ismcts_kernel_yes_rollout_before_the_games(monkeypatch):
    """ismcts:kernel=yes (played on the reference engine, its roll-outs in the kernel): the
    roll-out is compiled before the games are timed, not inside the first one's decision."""
    from ruledraft.cli import bench as bench_command
    from ruledraft.play import ismcts

    events: list[str] = []
    measure = bench_command.measure
    monkeypatch.setattr(ismcts, "kernel_rollouts", lambda game, compile=False: events.append(f"rollout {compile}"))
    monkeypatch.setattr(bench_command, "measure", lambda *a, **k: events.append("games") or measure(*a, **k))
    (fig,) = _figures("sushi-go", "-p", "2", "--bots", "ismcts:kernel=yes:iterations=2")
    assert fig["engine"] == "reference"
    assert events[:2] == ["rollout True", "games"]


def test_each_figure_reports_its_own_compile_time_not_the_kernels_first(monkeypatch):
    """A kernel already loaded in the process costs the next figure nothing: each figure's
    compile_seconds is the time its own making ready took, not that of the kernel's first
    compile (which every figure of a ruleset repeated, so that a sum counted it again and again)."""
    from ruledraft import kernel as kernel_module

    compile_kernel = kernel_module.compile_kernel

    def as_if_slow(*args, **kwargs):
        made = compile_kernel(*args, **kwargs)
        made.compile_seconds = 100.0  # as if its first compile, earlier, had taken 100 s
        return made

    monkeypatch.setattr(kernel_module, "compile_kernel", as_if_slow)
    figures = _figures("sushi-go", "-p", "2", "--bots", "random,greedy", "--engine", "kernel")
    assert [f["engine"] for f in figures] == ["kernel", "kernel"]
    assert all(0 <= f["compile_seconds"] < 100 for f in figures)


def test_bench_progress_lines_wrap_under_their_indent_at_80_columns():
    """A bot name too long for its column: the progress lines wrap under their own indent,
    never flush left, and the table folds the name rather than cutting it off."""
    bot = "ismcts:iterations=2:objective=margin"
    result = CliRunner().invoke(
        app, ["bench", "sushi-go", "-p", "2", "--bots", bot, "--seconds", "0.01"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    progress = result.stderr.splitlines()
    assert len(progress) >= 4 and all(line.startswith("  ") for line in progress), progress
    assert all(len(line) <= 80 for line in result.output.splitlines())
    assert "…" not in result.stdout
    cells = "".join(line.split("│")[3].strip() for line in result.stdout.splitlines() if line.count("│") > 3)
    assert bot in cells  # the bots' column, read down its lines


def test_bench_falls_back_to_the_reference_engine_where_there_is_no_kernel():
    """--engine auto on a dummy game whose hands pass by a pattern (no kernel part): measured on the reference engine."""
    (fig,) = _figures(str(DATA / "kernel" / "dummy-pass-pattern.yaml"), "--bots", "random", "--engine", "auto")
    assert fig["engine"] == "reference"


@pytest.mark.parametrize(
    ("ruleset", "bot", "why"),
    [
        (str(DATA / "kernel" / "dummy-pass-pattern.yaml"), "random", "pass patterns"),
        ("sushi-go", "ismcts:iterations=2", "ismcts"),
    ],
)
def test_bench_on_the_kernel_by_name_is_an_error_where_the_kernel_cannot_play(ruleset, bot, why):
    """--engine kernel where the kernel has no part for the ruleset or the bot: an error naming why, as simulate's."""
    result = CliRunner().invoke(
        app, ["bench", ruleset, "-p", "2", "--bots", bot, "--engine", "kernel", "--seconds", "0.01"]
    )
    assert result.exit_code == 2, result.output
    assert "the kernel cannot play this:" in result.stderr and why in result.stderr
    assert "(use --engine reference or auto)" in result.stderr and "Traceback" not in result.output
    assert result.stdout == ""


def test_bench_measures_on_the_kernel_by_default():
    """Without --engine (auto), bench measures on the kernel where it has the ruleset and the bot."""
    (fig,) = _figures("sushi-go", "-p", "2", "--bots", "random")
    assert fig["engine"] == "kernel"


def test_bench_measures_the_reference_engine_when_asked():
    """--engine reference measures the interpreter, as bench did before the kernel."""
    (fig,) = _figures("sushi-go", "-p", "2", "--bots", "random", "--engine", "reference")
    assert fig["engine"] == "reference"


@pytest.mark.parametrize(("engine", "on"), [("kernel", "kernel"), ("auto", "kernel"), ("reference", "reference")])
def test_bench_measures_jobs_on_the_engine_of_its_figures(engine, on):
    """--jobs's rows (simulate with 1 and with N processes) play on the engine the one-process figure played on."""
    figures = _figures(
        "sushi-go", "-p", "4", "--bots", "random", "--engine", engine, "--jobs", "2", "--jobs-games", "40"
    )
    assert [(f["jobs"], f["engine"]) for f in figures] == [(1, on), (1, on), (2, on)]
    assert [f["measure"] for f in figures] == ["games", "simulate", "simulate"]


def test_the_jobs_rows_are_told_apart_from_the_game_loops_and_a_player_count_is_measured_once():
    """bench -p 4,4 --jobs 2: one game-loop figure at 4 players, and the table's 'of' column tells it (games) from the two whole simulate runs, which read alike otherwise."""
    args = ["sushi-go", "-p", "4,4", "--bots", "random", "--engine", "reference", "--seconds", "0.01"]
    result = CliRunner().invoke(app, ["bench", *args, "--jobs", "2", "--jobs-games", "20"], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    rows = [line.split("│")[1:-1] for line in result.stdout.splitlines() if line.startswith("│")]
    assert [[cell.strip() for cell in row][3:5] for row in rows] == [
        ["games", "1"],
        ["simulate", "1"],
        ["simulate", "2"],
    ]
    assert "of: the game loop (games) or a whole simulate run (simulate)" in " ".join(result.stdout.split())


def test_bench_measures_jobs_on_the_reference_engine_where_the_kernel_has_no_part():
    """--engine auto on a ruleset without a kernel part: the --jobs rows are the reference engine's, as its figure is."""
    path = str(DATA / "kernel" / "dummy-pass-pattern.yaml")
    figures = _figures(path, "--bots", "random", "--engine", "auto", "--jobs", "2", "--jobs-games", "20")
    assert {f["engine"] for f in figures} == {"reference"} and [f["jobs"] for f in figures][-2:] == [1, 2]


def test_bench_says_why_a_figure_is_on_the_reference_engine_within_80_columns():
    """A figure the kernel cannot play: one line names the table and the reference engine,
    the reason below it (a dummy's pass pattern) indented, wrapped to an 80-column terminal."""
    path = DATA / "kernel" / "dummy-pass-pattern.yaml"
    result = CliRunner().invoke(
        app, ["bench", str(path), "--bots", "random", "--engine", "auto", "--seconds", "0.01"], env={"COLUMNS": "80"}
    )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if line.endswith("on the reference engine:"))
    assert "random" in lines[at] and "players" in lines[at]
    end = next(i for i in range(at, len(lines)) if lines[i].endswith("games/s"))
    reason = lines[at + 1 : end]
    assert reason and all(line.startswith("    ") for line in reason), reason
    assert "pass patterns" in " ".join(line.strip() for line in reason)
    assert all(len(line) <= 80 for line in lines), [line for line in lines if len(line) > 80]


def test_bench_jobs_past_the_processors_are_capped_and_measured_at_the_players_given():
    """--jobs 64 is capped at the processors there are, with simulate's note, and the --jobs rows play at the
    first of --players (2), not at 4."""
    from ruledraft.play.runner import available_cores

    cores = available_cores()
    args = ["sushi-go", "-p", "2", "--bots", "random", "--seconds", "0.05", "--jobs", "64", "--jobs-games", "20"]
    result = CliRunner().invoke(app, ["bench", *args, "--json"])
    assert result.exit_code == 0, result.output
    assert (
        f"note: --jobs 64 is more than the {cores} processor{'s' if cores > 1 else ''} here; using {cores}"
        in result.stderr
    )
    figures = json.loads(result.stdout)
    assert [(f["jobs"], f["players"]) for f in figures][1:] == ([(1, 2), (cores, 2)] if cores > 1 else [])


def test_bench_plays_the_kernel_in_calls_no_larger_than_simulate_s():
    """measure_kernel doubles its calls while they are quick, up to the games simulate gives the kernel in one call
    (KERNEL_BLOCK): calls of tens of thousands of games held hundreds of megabytes for no more speed."""
    import time

    from ruledraft.language.loading import load_ruleset
    from ruledraft.play.bench import measure_kernel
    from ruledraft.play.runner import KERNEL_BLOCK

    class Timed:
        """A kernel whose every call takes 2 ms, whatever its games."""

        ruleset, players, sizes = load_ruleset("sushi-go"), 2, []

        def play(self, seeds, bots, values, counts, room=None):
            self.sizes.append(len(seeds))
            time.sleep(0.002)

    kernel = Timed()
    games, _ = measure_kernel(kernel, "random", min_seconds=0.2)
    assert kernel.sizes[:3] == [1, 2, 4] and max(kernel.sizes) == KERNEL_BLOCK
    assert games == sum(kernel.sizes)


def test_bench_on_the_kernel_refuses_before_it_measures_or_compiles_anything(monkeypatch):
    """--engine kernel with a bot the kernel cannot play after one it can: refused before any figure is measured
    or any kernel compiled, naming the ruleset, the player count and the bot."""
    from ruledraft import kernel

    compiled: list[str] = []
    monkeypatch.setattr(kernel, "compile_kernel", lambda rs, *a, **k: compiled.append(rs.id))
    result = CliRunner().invoke(
        app, ["bench", "sushi-go", "-p", "2", "--bots", "random,ismcts", "--engine", "kernel", "--seconds", "0.01"]
    )
    assert result.exit_code == 2 and compiled == []
    assert result.stderr.startswith("error: sushi-go at 2 players, ismcts: the kernel cannot play this: the bot")
