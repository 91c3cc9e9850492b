"""``ruledraft bench``: games per second for the bots on the bundled rulesets."""

from __future__ import annotations

import contextlib
import json
import textwrap
import time

import typer
from rich.console import Console
from rich.table import Table

from ruledraft.errors import InputError
from ruledraft.language.bundled import bundled_ids, resolve_source
from ruledraft.language.loading import load_ruleset
from ruledraft.play.bench import (
    Figure,
    default_player_counts,
    measure,
    measure_jobs,
    measure_kernel,
    player_counts,
)
from ruledraft.play.engines import (
    check_engine,
    choose_engine,
    kernel_refusal,
    kernel_refused,
    ready_searches,
    refuse_unplayable,
)

from .common import console, fitted, reported_errors, shown
from .options import (
    allow_path_option,
    allowed_dirs,
    bots_help,
    bots_option,
    bounded_option,
    compiling_status,
    json_option,
    parse_bots,
    parse_jobs,
    players_option,
)


def bench(
    rulesets: list[str] | None = typer.Argument(
        None,
        help="Rulesets to measure, bundled ids or rule files (default: every bundled one: "
        + ", ".join(bundled_ids())
        + ").",
    ),
    players: str | None = players_option(
        None,
        "Player counts, comma-separated (counts a ruleset does not allow are skipped; one that allows none of them is measured at its smallest). Default: 2 and 4; a menu of a card library at 4 and at the most players it allows.",
        usual=False,
    ),
    bots: str = bots_option("random,greedy", bots_help("Bots to measure, each in every seat.")),
    seconds: float = bounded_option(2.0, "--seconds", low=0.01, high=3600.0, help="Time per figure.", metavar="S"),
    jobs: int = bounded_option(
        0,
        "--jobs",
        "-j",
        low=0,
        high=256,
        help="Also measure simulate with this many processes against 1, on the engine of the figures (0: skip).",
    ),
    jobs_games: int = bounded_option(
        4000, "--jobs-games", low=1, high=10_000_000, help="Games for the --jobs comparison."
    ),
    as_json: bool = json_option("the figures"),
    engine: str = typer.Option(
        "auto",
        "--engine",
        metavar="ENGINE",
        help="auto, kernel or reference. reference: the interpreter; auto: the compiled kernel where the ruleset and the bot "
        "have one, else the interpreter, said in one line; kernel: the compiled kernel, an error where it cannot play. "
        "Compile time is reported apart.",
    ),
    allow_path: list[str] = allow_path_option(),
) -> None:
    """Print games per second for the bots on the bundled rulesets.

    Random and greedy play on one process, and optionally how simulate scales
    with --jobs. Figures only: nothing is asserted.
    """
    with reported_errors():
        names = rulesets or bundled_ids()
        counts: list[int] | None = None
        if players is not None:
            try:
                counts = [int(x) for x in players.split(",") if x.strip()]
                if not counts or min(counts) < 1:
                    raise ValueError
            except ValueError:
                raise InputError(f"--players takes player counts separated by commas, not {players!r}") from None
        check_engine(engine)
        if jobs > 1:  # more processes than processors measure nothing but the waiting: capped, as simulate's
            jobs, note = parse_jobs(str(jobs))
            if note:
                typer.echo(note + ("" if jobs > 1 else ": no --jobs comparison on one processor"), err=True)
        bot_names = list(dict.fromkeys(parse_bots(bots, len(bots.split(",")))))
        allow = allowed_dirs(allow_path)
        loaded = {name: load_ruleset(name, allow=allow) for name in names}
        if engine == "kernel":  # every figure the kernel cannot play refused before any is measured or compiled
            refuse_unplayable(
                (f"{rs.id} at {n} players, {bot}", rs, n, [bot] * n)
                for rs in loaded.values()
                for n in (default_player_counts(rs) if counts is None else player_counts(rs, counts))
                for bot in bot_names
            )
        figures = []
        err = console(stderr=True)
        for name, rs in loaded.items():
            for n in default_player_counts(rs) if counts is None else player_counts(rs, counts):
                for bot in bot_names:
                    fig = measure_on(engine, rs, n, bot, seconds, err, as_json)
                    figures.append(fig)
                    if not as_json:
                        say(
                            err,
                            f"{rs.id:<30} {n} players  {bot:<8} {fig.games_per_second:>9,.0f} games/s"
                            + (" (kernel)" if fig.engine == "kernel" else ""),
                        )
            if jobs > 1:
                n = player_counts(rs, counts or [4])[0]  # the first of --players, else 4
                source = str(resolve_source(name))
                # the engine of the one-process figures: the kernel where it plays the bot (compiled by now)
                on = choose_engine(
                    rs, n, [bot_names[0]] * n, "reference" if engine == "reference" else "auto", background=False
                )
                for j in (1, jobs):
                    fig = measure_jobs(rs, source, n, bot_names[0], j, jobs_games, on.name)
                    figures.append(fig)
                    if not as_json:
                        say(
                            err,
                            f"{rs.id:<30} {n} players  {bot_names[0]:<8} {fig.games_per_second:>9,.0f} games/s with --jobs {j}"
                            + (" (kernel)" if fig.engine == "kernel" else ""),
                        )
        if as_json:
            typer.echo(json.dumps([f.to_json() for f in figures], indent=2))
            return
        runs = any(f.measure == "simulate" for f in figures)  # --jobs: whole runs beside the game loop
        title = "games per second (one process unless jobs > 1)"
        if runs:
            title += "; of: the game loop (games) or a whole simulate run (simulate)"
        table = Table(title=title)
        columns = ["ruleset", "players", "bots", *(["of"] if runs else []), "jobs", "games/s"]
        columns += ["engine"] if engine != "reference" else []
        for col in columns:
            table.add_column(  # a long name folds onto a second line rather than losing its end
                col, justify="right" if col in ("players", "jobs", "games/s") else "left", overflow="fold"
            )
        for f in figures:
            row = [f.ruleset, str(f.players), f.bots, *([f.measure] if runs else []), str(f.jobs)]
            row.append(f"{f.games_per_second:,.0f}")
            table.add_row(*row, *([f.engine] if engine != "reference" else []))
        out = console()
        out.print(fitted(table, out))


def measure_on(engine: str, rs, players: int, bot: str, seconds: float, out: Console, quiet: bool) -> Figure:
    """One figure on the engine asked for: the kernel when it has the ruleset and the bot (its
    compile time reported on a line of its own), else (``auto``) the reference engine,
    with a line saying so and one saying why, or (``kernel``) an error. An
    ``ismcts:kernel=yes`` bot's roll-out is compiled first, off the measured time too."""
    bots = [bot] * players
    waiting = compiling_status(rs, quiet)
    ready_searches(rs, players, bots, waiting)
    if engine == "reference":
        return measure(rs, players, bot, min_seconds=seconds)
    reason = kernel_refusal(rs, players, bots)  # found without compiling
    if reason is None:
        from ruledraft.caches import cache_full
        from ruledraft.kernel import Kernel, Unsupported, compile_kernel, is_cached_for

        try:
            with waiting() if waiting is not None and not is_cached_for(rs, bots) else contextlib.nullcontext():
                started = time.perf_counter()  # this figure's own: a kernel this process has loaded already takes none
                kernel = compile_kernel(rs, players, apart=True)
                reason = kernel.refuses(bots) if isinstance(kernel, Kernel) else kernel.reason
                if isinstance(kernel, Kernel) and reason is None:  # the loop these bots play, off the measured time
                    compiled = time.perf_counter() - started + kernel.ready_for(bots)
        except OSError as e:  # a cache with no room for what numba compiled: named, as simulate names it
            full = cache_full(e)
            if full is None:
                raise
            kernel, reason = Unsupported(full), full
        if isinstance(kernel, Kernel) and reason is None:
            if not quiet and compiled >= 0.005:  # (a kernel an earlier row loaded: nothing to say)
                say(out, f"{rs.id:<30} {players} players  kernel compiled or loaded in {compiled:.2f} s")
            games, elapsed = measure_kernel(kernel, bot, min_seconds=seconds)
            return Figure(rs.id, players, bot, 1, games, elapsed, "kernel", round(compiled, 3))
    if engine == "kernel":  # asked for by name, as simulate's: an error, not a figure of another engine
        raise kernel_refused(str(reason))
    if not quiet:  # the reason below, indented
        say(out, f"{rs.id:<30} {players} players  {bot:<8} on the reference engine:")
        say(out, str(reason), indent="    ")
    else:  # --json: the figure says only "reference"; why, on standard error as simulate's note
        typer.echo(shown(f"engine ({rs.id}, {players} players, {bot}): reference ({reason})"), err=True)
    return measure(rs, players, bot, min_seconds=seconds)


def say(out: Console, text: str, indent: str = "  ") -> None:
    """One progress line, wrapped to the terminal's width under its own indent (a long
    bot or ruleset name wraps under the line, never flush left)."""
    wrapped = textwrap.fill(text, max(out.width, 40), initial_indent=indent, subsequent_indent=indent + "  ")
    out.print(wrapped, markup=False, highlight=False, soft_wrap=True)
