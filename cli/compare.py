"""``ruledraft compare``: two rulesets, player counts or bot line-ups, and how their figures differ."""

from __future__ import annotations

import json
import os
import shlex
import textwrap
from collections.abc import Sequence

import attrs
import typer

from ruledraft.errors import InputError
from ruledraft.lab.compare import (
    ROTATION_REPORT,
    Side,
    comparison,
    independent_seed,
    labels,
    pairing,
    play_sides,
    play_sides_on_cluster,
)
from ruledraft.lab.compare import lineup as bot_lineup
from ruledraft.lab.figures import formatted
from ruledraft.play.match import Match, check_seed

from .common import checked_ruleset, counted, fail, leave_interrupted, reported_errors, shown, write_html_report
from .options import (
    SEAT_BOTS_AS_SIMULATE,
    allow_path_option,
    allowed_dirs,
    chosen_engines,
    cluster_option,
    cluster_wanted,
    engine_option,
    games_option,
    jobs_option,
    json_option,
    lineup_option,
    parse_jobs,
    players_option,
    quiet_option,
    report_directory,
    report_option,
    ruleset_argument,
    scheduler_option,
    seed_option,
    usual_lineup,
    usual_players,
)
from .simulate import checked_match, notes, progress_bar, run_errors

WIDTH = 80
#: a space where a line wrapped to WIDTH must not break (textwrap breaks at ASCII spaces
#: only), put back after: a private-use character, which no shown text holds (shown escapes them)
GLUE = "\ue000"
NAME = 27


def lineup(bots: Sequence[str]) -> str:
    """``greedy x3, random``: the bots per seat, runs of the same bot counted (safe to print)."""
    return shown(bot_lineup(bots))


def fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters (an ellipsis says it was cut)."""
    return text if len(text) <= width else text[: width - 1] + "…"


def heading(text: str, indent: str = "") -> list[str]:
    """``text`` wrapped at :data:`WIDTH` columns (later lines after ``indent``), never
    inside a word nor where :data:`GLUE` stands for a space."""
    lines = textwrap.wrap(text, WIDTH, subsequent_indent=indent, break_on_hyphens=False, break_long_words=False)
    return [line.replace(GLUE, " ") for line in lines]


def side_label(side: str, label: str) -> str:
    """A side's name in the report, as the terminal names it: ``A: sushi-go`` (or ``A``)."""
    return side if label in ("", side) else f"{side}: {label}"


def p_text(p: float) -> str:
    return "<0.001" if p < 0.001 else f"{p:.3f}"


#: the measures shown in percent (fractions of games won, and their differences)
PERCENT = ("win_share", "win_rate", "win_rate_per_copy")


def _row_text(row: dict) -> list[str]:
    share = row.get("measure", "win_share" if row["figure"].endswith(" win share") else "") in PERCENT
    scale, unit = (100, "%") if share else (1, "")
    dec = 1 if share else 2

    def num(x: float, sign: str = "") -> str:
        v = x * scale
        if abs(v) >= 1e6:  # huge points: two figures (1.9e14), as the columns hold (--json has them whole)
            return format(v, f"{sign}.1e").replace("e+", "e") + unit
        if v and abs(v) < 0.5 * 10**-dec:  # not zero, though it would show as zero: two figures
            return format(v, f"{sign}.2g") + unit
        return formatted(v, f"{sign}.{dec}f") + unit

    lo, hi = row["interval"]
    interval = f"[{num(lo, '+')}, {num(hi, '+')}]"
    mark = "*" if row["flagged"] else "=" if row.get("same_as") else " "
    name = shown(row["figure"])
    numbers = f"{num(row['a']):>7} {num(row['b']):>7} {num(row['difference'], '+'):>7} {interval:>16} {p_text(row['p_holm']):>6}"
    if len(name) <= NAME:
        return [f"{mark} {name:<{NAME}} {numbers}"]
    # a long name on a line of its own: cut, rows of one card would no longer say which figure they are
    return [f"{mark} {name}", f"  {'':<{NAME}} {numbers}"]


def comparison_text(result: dict, games: int) -> list[str]:
    """The terminal form of a comparison (every line within 80 columns, but for long names)."""
    lines = []
    files = [os.path.realpath(result[k].get("file") or "") for k in ("a", "b")]
    same_id = result["a"]["ruleset"] == result["b"]["ruleset"] and files[0] != files[1]
    for key in ("a", "b"):
        s = result[key]
        ruleset = f"{s['ruleset']} ({s['file']})" if same_id else s["ruleset"]  # one id, two files: which is which
        said = f"{key.upper()}: {shown(ruleset)}, {counted(s['players'], 'player')}, {shown(lineup(s['bots']))}"
        lines += heading(f"{said}, seed{GLUE}{s['seed']}", "   ")  # never between "seed" and its number
    lines += [f"{counted(games, 'deal' if 'rotation' in result else 'game')} a side", *result["pairing"].split("; ")]
    base = result.get("win_share_from", [0, 0])
    if any(base):
        lines += textwrap.wrap(
            f"seat win shares are given above an equal share ({formatted(base[0] * 100, '.1f')}% for A, "
            f"{formatted(base[1] * 100, '.1f')}% for B): the player counts differ",
            WIDTH,
            break_on_hyphens=False,
        )
    if "rotation" in result:
        lines += rotation_lines(result["rotation"])
    header = f"  {'figure':<{NAME}} {'A':>7} {'B':>7} {'B - A':>7} {'95% interval':>16} {'p':>6}"
    # rows equal on both sides in every game are not tested: named in one line
    equal = [r for r in result["rows"] if _equal_every_game(r)]
    shown_rows = [r for r in result["rows"] if not _equal_every_game(r)]
    if shown_rows:
        lines += ["", header]
    else:  # no row to show: say why rather than print a header over nothing
        lines += [""] + textwrap.wrap(
            "Every figure was the same on both sides in every game: A and B played the same games"
            " (give B another ruleset, --players-b, --bots-b or --seed-b).",
            WIDTH,
            break_on_hyphens=False,
        )
    flagged = [r for r in shown_rows if r["flagged"]]
    rest = [r for r in shown_rows if not r["flagged"]]
    lines += [line for r in flagged for line in _row_text(r)]
    if flagged and rest:
        lines.append("")
    lines += [line for r in rest for line in _row_text(r)]
    alpha = result["alpha"]
    twins = [r for r in shown_rows if r.get("same_as")]
    lines += [
        "",
        f"{result['compared']} figures compared; {result['flagged']} flagged (*) at {alpha:.0%} after Holm's correction.",
        "B - A with its 95% interval; p: two-sided, Holm-adjusted over those tested.",
        "vs none: takers' win rate minus non-takers', within each seat and its bot;",
        "per copy: win rate per copy taken.",
    ]
    if twins:
        marked = "=, or * where flagged" if any(r["flagged"] for r in twins) else "="
        text = f"{marked}: the same test as another row, counted once: {_names(twins, 'same_as')}."
        lines += textwrap.wrap(text, WIDTH, break_on_hyphens=False)
    if equal:
        lines += textwrap.wrap(
            "Equal on both sides in every game, so not tested: " + _names(equal) + ".", WIDTH, break_on_hyphens=False
        )
    lines += _one_side_only(result)
    return lines


def _one_side_only(result: dict) -> list[str]:
    """A line naming the seats (at two player counts), cards and rules only one side
    has: a seat's rows are not compared, a card's or rule's count 0 on the other side,
    and a card's win figures (vs none, per copy) are not compared."""
    said, kinds = [], set()
    for key, other in (("a", "b"), ("b", "a")):
        theirs, mine = result[other]["figures"], result[key]["figures"]
        cards = {c["card"] for c in theirs["cards"]}
        rules = {r["rule"] for r in theirs["rules"]}
        only = [f"seat {s}" for s in range(result[other]["players"], result[key]["players"])]
        only += [f"card {c['card']}" for c in mine["cards"] if c["card"] not in cards]
        only += [f"rule {r['rule']}" for r in mine["rules"] if r["rule"] not in rules]
        kinds |= {x.split()[0] for x in only}
        if only:
            said.append(f"only {key.upper()} has {', '.join(shown(x) for x in only)}")
    if not said:
        return []
    why = []
    if kinds & {"card", "rule"}:
        why.append(
            "0 on the other side; no win figures for such a card" if kinds != {"rule"} else "0 on the other side"
        )
    if "seat" in kinds:
        why.append("such a seat is not compared")
    text = "; ".join(said) + f" ({'; '.join(why)})."
    return textwrap.wrap(text[0].upper() + text[1:], WIDTH, break_on_hyphens=False)


def rotation_lines(rotation: dict) -> list[str]:
    """How a rotated comparison played each deal, and each side's bots' win shares."""
    counts = [len(rotation[k]["seatings"]) for k in ("a", "b")]
    said = [f"{k} in {n} seating{'s' if n > 1 else ''}" for k, n in zip("AB", counts)]
    lines = textwrap.wrap(
        f"rotated: every deal played {' and '.join(said)}; the deal is the unit", WIDTH, break_on_hyphens=False
    )
    for key in ("a", "b"):
        shares = ", ".join(
            f"{shown(b['bot'])} {formatted(b['win_share'] * 100, '.1f')}%" for b in rotation[key]["bots"]
        )
        lines += textwrap.wrap(f"{key.upper()} bots' win shares: {shares}", WIDTH, break_on_hyphens=False)
    return lines


def _equal_every_game(row: dict) -> bool:
    """A row with no spread and no difference (the same on both sides in every game): a
    row repeating another's test too, which is then no test either."""
    lo, hi = row["interval"]
    return row.get("tested") is False and lo == hi and row["difference"] == 0


def _names(rows: Sequence[dict], key: str = "figure") -> str:
    return ", ".join(shown(str(r[key] if key == "figure" else f"{r['figure']} as {r[key]}")) for r in rows)


def load_side(name: str, allow: tuple, which: str):
    """A side's checked ruleset (``.ruleset``, ``.document``); a problem of side B's names the side."""
    if which == "A":
        return checked_ruleset(name, allow)
    try:
        return checked_ruleset(name, allow)
    except InputError as e:
        raise InputError(f"side B: {e}") from None


def side_match(rs, players: int, bots: str, seed: int, document, named: str = "") -> Match:
    """A side's match, checked once; a problem names the side ``named`` ("side B"), if given."""
    try:
        return checked_match(rs, players, bots, seed, document, ruleset_name=shown(rs.name))
    except InputError as e:
        if not named:
            raise
        raise type(e)(f"{named}: {e}") from None


def run_with_progress(
    a: Side,
    b: Side,
    games: int,
    paired: bool,
    jobs: int,
    quiet: bool,
    what: str,
    cluster: tuple[str | None, int | None, tuple] | None = None,
    rotate: bool = False,
    isolate: bool = False,
    documents: tuple = (None, None),
):
    """Play both sides with a progress bar on standard error (none with ``quiet``, or
    when standard error is not a terminal), on ``jobs`` processes or on a Dask cluster
    (``cluster``: the scheduler's address or the number of local workers, and the two
    sides' checked documents; ``documents``: the same, for the local run, where
    ``isolate`` needs them)."""
    with run_errors(), progress_bar(what, games, quiet) as advance:
        if cluster is None:
            return play_sides(
                a,
                b,
                games,
                paired=paired,
                jobs=jobs,
                progress=advance,
                rotate=rotate,
                isolate=isolate,
                documents=documents,
            )
        scheduler, local_workers, documents = cluster
        return play_sides_on_cluster(
            a,
            b,
            documents,
            games,
            paired=paired,
            scheduler=scheduler,
            local_workers=local_workers,
            progress=advance,
            rotate=rotate,
            isolate=isolate,
        )
    raise AssertionError("unreachable")


def sides(match_a: Match, match_b: Match, seed_b_given: bool) -> tuple[Side, Side, bool, str]:
    """The two sides, labelled, whether their games are paired and why; B's seed derived
    from A's when they cannot be paired and none was given."""
    a = Side(match_a.ruleset, match_a.players, match_a.bots, match_a.seed)
    b = Side(match_b.ruleset, match_b.players, match_b.bots, match_b.seed)
    paired, why = pairing(a, b, seed_b_given)
    if not paired and not seed_b_given:
        b = attrs.evolve(b, seed=independent_seed(a.seed))
        why += "; B's seed is derived from --seed"
    label_a, label_b = labels(a, b)
    return attrs.evolve(a, label=label_a), attrs.evolve(b, label=label_b), paired, why


def compare(
    ruleset_a: str = ruleset_argument(),
    ruleset_b: str | None = typer.Argument(None, help="Side B's ruleset (default: A's).", show_default=False),
    players: int | None = players_option(),
    players_b: int | None = typer.Option(None, "--players-b", help="Side B's number of players."),
    bots: str | None = lineup_option(SEAT_BOTS_AS_SIMULATE),
    bots_b: str | None = typer.Option(None, "--bots-b", help="Side B's bots."),
    games: int = games_option("Games on each side.", fewest=2),
    seed: int = seed_option("Seed of the games"),
    seed_b: int | None = typer.Option(None, "--seed-b", help="Side B's seed: its games are then independent of A's."),
    jobs: str = jobs_option(),
    scheduler: str | None = scheduler_option(),
    cluster: str | None = cluster_option(),
    as_json: bool = json_option("both sides' figures and the rows"),
    quiet: bool = quiet_option(),
    report: str | None = report_option(),
    allow_path: list[str] = allow_path_option(),
    engine: str = engine_option(),
    rotate: bool = typer.Option(
        False,
        "--rotate",
        help="Play every deal once per rotation of each side's bots through the seats (--games deals each), "
        "both sides alike on the same seeds: the deal is the unit, the seats are measured with the bots "
        "balanced, and vs none is taken within each seating and seat.",
    ),
    isolate: bool = typer.Option(
        False,
        "--isolate",
        help="Run each bot from a file, a module or a package in a process of its own, sent only its seat's "
        "view (as simulate --isolate), on both sides.",
    ),
) -> None:
    """Compare two sides: rulesets, player counts or bot line-ups.

    --players-b, --bots-b and --seed-b set side B's; the other options apply to
    both sides (B otherwise equals A). Games are paired (both sides from the same
    seeds) when the sides deal the same cards, and independent otherwise or with
    --seed-b. Each seat's win share and score, each rule's points and each card's
    take rate and points differ by B - A, with a 95% interval, flagged at 5% after
    Holm's correction over all of them; so do each card's win rate of takers minus
    non-takers (vs none) and win rate per copy taken (per copy). Ctrl-C (or
    SIGTERM, or the terminal closing) stops early: the pairs of games finished
    are compared, and the exit status is 130 (143, 129).
    """
    with reported_errors():
        check_seed(seed, "--seed")
        if seed_b is not None:
            check_seed(seed_b, "--seed-b")
        where = cluster_wanted(scheduler, cluster, jobs)
        jobs_used, note = parse_jobs(jobs) if where is None else (1, None)
        allow = allowed_dirs(allow_path)
        checked_a = load_side(ruleset_a, allow, "A")
        checked_b = checked_a if ruleset_b is None or ruleset_b == ruleset_a else load_side(ruleset_b, allow, "B")
        n_b = usual_players(checked_b.ruleset, players if players_b is None else players_b)
        players = usual_players(checked_a.ruleset, players)
        spec_b = usual_lineup(bots, n_b) if bots_b is None else bots_b
        bots = usual_lineup(bots, players)
        # side A is named where the sides differ in ruleset or players: its problem may not be B's
        named_a = "side A" if checked_b is not checked_a or n_b != players else ""
        match_a = side_match(checked_a.ruleset, players, bots, seed, checked_a.document, named_a)
        match_b = side_match(
            checked_b.ruleset, n_b, spec_b, seed if seed_b is None else seed_b, checked_b.document, "side B"
        )
        rs_a, rs_b = match_a.ruleset, match_b.ruleset
        report_dir = report_directory(report)
        notes(note, [*match_a.bots, *match_b.bots])
        a, b, paired, why = sides(match_a, match_b, seed_b is not None)
        runs = {"side A": (rs_a, a.players, a.bots, None), "side B": (rs_b, b.players, b.bots, None)}
        engines = chosen_engines(runs, engine, games, quiet)
        a, b = attrs.evolve(a, engine=engines["side A"]), attrs.evolve(b, engine=engines["side B"])
        on = None if where is None else (scheduler, where[1], (checked_a.document, checked_b.document))
        documents = (checked_a.document, checked_b.document)
        what = rs_a.id if rs_a.id == rs_b.id else f"{rs_a.id} / {rs_b.id}"
        tally = run_with_progress(a, b, games, paired, jobs_used, quiet, what, on, rotate, isolate, documents)
        played = tally.sums_a.n
        unit = "deals" if tally.rotated else "games"  # the header's word: a rotated deal is played in each seating
        stopped = f"interrupted after {played} of {games} {unit}" if tally.signal else ""
        if stopped and not played:
            fail(stopped, 128 + tally.signal)
        result = comparison(a, b, tally, why, requested=games)
        if as_json:
            typer.echo(json.dumps(result, indent=2))
        else:
            for line in comparison_text(result, played):
                typer.echo(line)
            if stopped:
                typer.echo(stopped)
        if report_dir is not None:
            command = ["ruledraft", "compare", ruleset_a, *([ruleset_b] if ruleset_b else [])]
            command += ["-p", str(players), "-g", str(games), "-s", str(seed), "-b", bots]
            b_options: tuple[tuple[str, object], ...] = (
                ("--players-b", players_b),
                ("--bots-b", bots_b),
                ("--seed-b", seed_b),
            )
            for option, given in b_options:
                if given is not None:
                    command += [option, str(given)]
            command += ["--rotate"] if rotate else []
            command += ["--isolate"] if isolate else []
            write_html_report(
                report_dir,
                err=as_json,
                title=f"{rs_a.name} / {rs_b.name}: {counted(played, 'game')} each"
                + (f" ({stopped})" if stopped else ""),
                command=shlex.join(command),
                sides=[(side_label(k.upper(), result[k]["label"]), result[k]["figures"]) for k in ("a", "b")],
                comparison=result,
                extra=[(*ROTATION_REPORT[:2], result["rotation"], ROTATION_REPORT[2])] if "rotation" in result else [],
            )
        if stopped:
            leave_interrupted(stopped, tally.signal, said=not as_json)
