"""The balance lab's HTML report: one self-contained file, ``DIR/index.html``.

:func:`write_report` draws the figures JSON (:mod:`ruledraft.lab.figures`) of one or
more sides -- one for ``simulate``, two for ``compare``, one per player count for
``sweep`` -- with the plots of :mod:`ruledraft.lab.plots` (matplotlib, the ``plots``
extra), each followed by a table of the same numbers. The page needs nothing else:
the plots are PNG images inside it (base64 ``data:`` URLs), the style sheet is in it,
there is no script to run and nothing is fetched, so it works offline and can be
mailed. Its width follows the window (phone to desktop); the images scale.

What it draws, and from what
----------------------------

Everything the report shows comes from one JSON document, embedded in the page as
``<script type="application/json" id="figures">``::

    {"title": ..., "command": ...,
     "sides": [{"label": ..., "figures": {...}}, ...],   # figures() of each side, as given
     "comparison": {...},                                # compare's JSON, when given
     "sweep": {...}}                                     # sweep's JSON, when given

Each plot is a ``<figure data-figure="PATH PATH ...">``: the paths (in that document)
of the numbers it draws, and the plot is built from exactly the numbers those paths
give. A path is keys joined by dots and list steps in brackets: ``[2]`` an index,
``[*]`` every item, ``[group=seats]`` the items whose ``group`` is ``seats``; e.g.
``sides[0].figures.seats[*].win_share``. :func:`resolve` reads a path.
"""

from __future__ import annotations

import base64
import contextlib
import html
import json
import math
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from ruledraft.errors import RuledraftError
from ruledraft.lab.figures import formatted
from ruledraft.version import __version__

INSTALL = "pip install 'ruledraft[plots]'"
PAGE = "index.html"


class ReportError(RuledraftError):
    """The report cannot be written (matplotlib missing, a directory that is a file, a write that failed)."""


class PlotsMissing(ReportError):
    """matplotlib (the ``plots`` extra) cannot be imported."""


# ---------------------------------------------------------------- paths


_STEP = re.compile(r"\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\*|\d+|[A-Za-z_][A-Za-z0-9_]*=[^\]]*)\]")


def _steps(path: str) -> list[str]:
    steps, at = [], 0
    while at < len(path):
        m = _STEP.match(path, at)
        if m is None or m.end() == at:
            raise ValueError(f"not a figure path: {path!r}")
        steps.append(m.group(1) if m.group(1) is not None else "[" + m.group(2))
        at = m.end()
    return steps


def resolve(document: Any, path: str) -> Any:
    """The value at ``path`` in ``document`` (see the module docstring); ``[*]`` and
    ``[key=value]`` give a list, the rest of the path read in each item."""

    def walk(node: Any, steps: Sequence[str]) -> Any:
        if not steps:
            return node
        step, rest = steps[0], steps[1:]
        if not step.startswith("["):
            return walk(node[step], rest)
        inner = step[1:]
        if inner == "*":
            return [walk(item, rest) for item in node]
        if "=" in inner:
            key, value = inner.split("=", 1)
            return [walk(item, rest) for item in node if str(item.get(key)) == value]
        return walk(node[int(inner)], rest)

    return walk(document, _steps(path))


# ---------------------------------------------------------------- the directory


def require_plots() -> None:
    """:class:`ReportError` saying how to install matplotlib when it cannot be imported."""
    from ruledraft.lab import plots

    if not plots.available():
        raise PlotsMissing(f"the HTML report needs matplotlib, which is not installed: {INSTALL}")


def prepare_directory(directory: str | os.PathLike[str], keep: bool = True) -> Path:
    """``directory`` made ready for the report (before any game is played): matplotlib
    importable, the directory created if missing, and a file can be written in it.
    :class:`ReportError` (one line, naming the directory) if not. With ``keep`` false
    (the check before a run) the directories it had to make are removed again: a run
    stopped or refused before its report is written leaves no empty directory behind."""
    require_plots()
    where = Path(directory)
    name = os.fspath(directory)
    if name == "":
        raise ReportError("needs a directory name (an empty one would hold no report)")
    try:
        is_file = where.exists() and not where.is_dir()
    except ValueError:
        raise ReportError(f"{name}: the name contains a NUL character") from None
    except OSError:  # a folder on the way that cannot be searched: mkdir below says so
        is_file = False
    if is_file:
        raise ReportError(f"{name}: not a directory (the report is written as {os.path.join(name, PAGE)})")
    made = []  # the directories mkdir makes, deepest first
    missing = where
    with contextlib.suppress(OSError):
        while not missing.exists() and missing.parent != missing:
            made.append(missing)
            missing = missing.parent
    try:
        where.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=where, prefix=".report-", suffix=".tmp"):
            pass
    except OSError as e:
        raise ReportError(f"{name}: cannot write the report there: {e.strerror or e}") from None
    finally:
        if not keep:
            for path in made:
                with contextlib.suppress(OSError):
                    path.rmdir()
    return where


# ---------------------------------------------------------------- formatting


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _games(n: Any) -> str:
    """``1 game``, ``8 games`` (escaped)."""
    return f"{_e(n)} game{'' if n == 1 else 's'}"


def _num(x: Any, digits: int = 2) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    return formatted(x, f".{digits}f")


def _pct(x: Any) -> str:
    return "-" if x is None else formatted(x, ".1%")


def _interval(iv: Any, fmt: Any = _num) -> str:
    return "-" if not iv else f"{fmt(iv[0])} to {fmt(iv[1])}"


def _p(p: Any) -> str:
    if p is None:
        return "-"
    return f"{p:.3g}"


def _table(headers: Sequence[str], rows: Iterable[Sequence[str]], text_columns: int = 1) -> str:
    """A table; the first ``text_columns`` columns are text (left), the rest numbers (cells already escaped)."""
    head = "".join(
        f'<th scope="col"{" class=text" if i < text_columns else ""}>{_e(h)}</th>' for i, h in enumerate(headers)
    )
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=text' if i < text_columns else ''}>{c}</td>" for i, c in enumerate(row))
        + "</tr>"
        for row in rows
    )
    return f'<div class="table-wrap"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'


class _Page:
    """The report being built: its document (embedded as JSON) and its plots in page order."""

    def __init__(self, document: dict):
        self.document = document
        self.count = 0

    def get(self, path: str) -> Any:
        return resolve(self.document, path)

    def figure(self, paths: Sequence[str], png: bytes, alt: str, caption: str = "") -> str:
        import struct

        self.count += 1
        width, height = struct.unpack(">II", png[16:24])  # the PNG's IHDR
        data = base64.b64encode(png).decode("ascii")
        cap = f"<figcaption>{_e(caption)}</figcaption>" if caption else ""
        return (
            f'<figure class="plot" id="plot-{self.count}" data-figure="{_e(" ".join(paths))}">'
            f'<img src="data:image/png;base64,{data}" width="{width}" height="{height}" alt="{_e(alt)}">{cap}</figure>'
        )


def _panels(figures: Sequence[str]) -> str:
    if len(figures) == 1:
        return figures[0]
    return '<div class="panels">' + "".join(figures) + "</div>"


def _union(lists: Iterable[Sequence[str]]) -> list[str]:
    seen: dict[str, None] = {}
    for names in lists:
        for n in names:
            seen.setdefault(n, None)
    return list(seen)


def _aligned(names: Sequence[str], own: Sequence[str], values: Sequence[Any]) -> list[Any]:
    by = dict(zip(own, values))
    return [by.get(n) for n in names]


# ---------------------------------------------------------------- sections


def _seats_section(page: _Page, labels: Sequence[str]) -> str:
    from ruledraft.lab import plots

    n = len(labels)
    seat_sets = [page.get(f"sides[{i}].figures.seats") for i in range(n)]
    winnable = [[bool(s["can_win"]) for s in seats] for seats in seat_sets]

    def paths_of(i: int) -> tuple[str, str]:
        # the seats that can win (a dummy that cannot has no win share to show)
        which = "*" if all(winnable[i]) else "can_win=True"
        return f"sides[{i}].figures.seats[{which}].win_share", f"sides[{i}].figures.seats[{which}].win_share_interval"

    def ticks_of(i: int, bots: bool) -> list[str]:
        return [f"{s['seat']}: {s['bot']}" if bots else f"seat {s['seat']}" for s in seat_sets[i] if s["can_win"]]

    out = []
    if n == 1 or all(w == winnable[0] for w in winnable):
        k = sum(winnable[0])
        paths = []
        series = []
        for i in range(n):
            share, interval = paths_of(i)
            paths += [share, interval]
            series.append((labels[i], page.get(share), page.get(interval)))
        png = plots.win_shares(ticks_of(0, n == 1), series, 1 / k if k else None, "Win share per seat")
        out.append(page.figure(paths, png, "Win share per seat with 95% intervals and the fair share"))
    else:
        figs = []
        tops = [iv[1] for i in range(n) for iv in page.get(paths_of(i)[1]) if iv]
        tops += [1 / sum(w) for w in winnable if any(w)]
        top = min(1.0, max(tops) * 1.05) if tops else None
        for i in range(n):
            k = sum(winnable[i])
            share, interval = paths_of(i)
            png = plots.win_shares(
                ticks_of(i, True),
                [(labels[i], page.get(share), page.get(interval))],
                1 / k if k else None,
                labels[i],
                top,
            )
            figs.append(page.figure([share, interval], png, f"Win share per seat, {labels[i]}"))
        out.append(_panels(figs))
    rows = []
    for i, seats in enumerate(seat_sets):
        for s in seats:
            rows.append(
                ([_e(labels[i])] if n > 1 else [])
                + [
                    _e(s["seat"]),
                    _e(s["bot"]),
                    _num(s["wins"], 1) if s["can_win"] else "-",
                    _pct(s["win_share"]) if s["can_win"] else "-",
                    _interval(s["win_share_interval"], _pct) if s["can_win"] else "-",
                    _num(s["mean"]),
                    _interval(s["mean_interval"]),
                    _num(s["stdev"]),
                    _num(s["min"]),
                    _num(s["max"]),
                ]
            )
    heads = ["seat", "bot", "wins", "win share", "95% interval", "mean score", "95% interval", "sd", "min", "max"]
    out.append(_table((["side"] if n > 1 else []) + heads, rows, 3 if n > 1 else 2))
    tests = []
    for i in range(n):
        eq = page.get(f"sides[{i}].figures.seats_equal")
        games = page.get(f"sides[{i}].figures.games")
        who = f"{_e(labels[i])}: " if n > 1 else ""
        p = eq["p_value"]
        # the verdict in words, as the terminal gives it (the hypothesis alone read as the result)
        verdict = "" if not isinstance(p, (int, float)) else "seats differ" if p < 0.05 else "no evidence seats differ"
        tests.append(
            f"<li>{who}{_games(games)}; {verdict + ' ' if verdict else ''}(chi-square test of equal wins: "
            f"{_num(eq['statistic'])}, {_e(eq['df'])} df, p = {_p(p)})</li>"
        )
    out.append('<ul class="notes">' + "".join(tests) + "</ul>")
    intro = (
        "<p>A shared win counts 1/k to each of the k winners. Bars: the win share; lines: its 95% "
        "interval (Wilson); dashed: the fair share (one over the seats that can win; a dummy "
        "seat that cannot win is left out).</p>"
    )
    return _section("seats", "Seats: win share", intro + "".join(out))


def _scores_section(page: _Page, labels: Sequence[str]) -> str:
    from ruledraft.lab import plots

    n = len(labels)
    hists = [page.get(f"sides[{i}].figures.seats[*].histogram") for i in range(n)]
    scores = [int(k) for side in hists for h in side for k in h]
    counts = [v for side in hists for h in side for v in h.values()]
    xlim = (min(scores), max(scores)) if scores else (0, 1)
    ymax = max(counts) if counts else 0
    figs = []
    for i in range(n):
        path = f"sides[{i}].figures.seats[*].histogram"
        seats = page.get(f"sides[{i}].figures.seats")
        series = [(f"{s['seat']}: {s['bot']}", h) for s, h in zip(seats, page.get(path))]
        title = "Scores per seat" if n == 1 else f"Scores per seat, {labels[i]}"
        figs.append(page.figure([path], plots.score_distribution(series, title, xlim, ymax), title))
    rows = []
    for i in range(n):
        for s in page.get(f"sides[{i}].figures.seats"):
            q = s["quantiles"]
            rows.append(
                ([_e(labels[i])] if n > 1 else [])
                + [_e(s["seat"]), _e(s["bot"]), _num(s["mean"])]
                + [_num(q.get(k)) for k in ("5", "25", "50", "75", "95")]
            )
    heads = ["seat", "bot", "mean", "5%", "25%", "median", "75%", "95%"]
    margins = []
    for i in range(n):
        m = page.get(f"sides[{i}].figures.margin")
        t = page.get(f"sides[{i}].figures.ties")
        q = m["quantiles"]
        margins.append(
            ([_e(labels[i])] if n > 1 else [])
            + [_num(m["mean"]), _num(q.get("50")), _num(q.get("95"))]
            + [_pct(t["top_score_tied"]), _pct(t["shared_win"]), _pct(t["no_winner"])]
        )
    body = (
        "<p>Games per total score, one line per seat.</p>"
        + _panels(figs)
        + _table((["side"] if n > 1 else []) + heads, rows, 3 if n > 1 else 2)
        + "<h3>Margin of victory and ties</h3>"
        + "<p>The margin is the best player total minus the second best (0 when they tie); rates are per game.</p>"
        + _table(
            (["side"] if n > 1 else []) + ["mean margin", "median", "95%", "top score tied", "shared win", "no winner"],
            margins,
            1 if n > 1 else 0,
        )
    )
    return _section("scores", "Scores", body)


def _rules_section(page: _Page, labels: Sequence[str]) -> str:
    from ruledraft.lab import plots

    n = len(labels)
    own = [page.get(f"sides[{i}].figures.rules[*].rule") for i in range(n)]
    names = _union(own)
    paths, series = [], []
    for i in range(n):
        mean, interval = f"sides[{i}].figures.rules[*].mean", f"sides[{i}].figures.rules[*].interval"
        paths += [mean, interval]
        series.append((labels[i], _aligned(names, own[i], page.get(mean)), _aligned(names, own[i], page.get(interval))))
    png = plots.horizontal_bars(names, series, "Mean points per rule", "points per seat and game (95% interval)")
    rows = []
    for name in names:
        for i in range(n):
            found = [r for r in page.get(f"sides[{i}].figures.rules") if r["rule"] == name]
            if not found:
                continue
            r = found[0]
            rows.append(
                [_e(name)]
                + ([_e(labels[i])] if n > 1 else [])
                + [_num(r["mean"]), _interval(r["interval"]), _pct(r["share_of_points"]), _num(r["unattributed"])]
            )
    heads = ["rule"] + (["side"] if n > 1 else []) + ["mean points", "95% interval", "share of points", "unattributed"]
    intro = (
        "<p>Mean points of each scoring rule per seat and game (all seats pooled) with 95% intervals "
        "(Student's t); the share of all points scored; points a rule gave that belong to no card "
        "(per game): scored with none of its cards on the table, or by a dummy seat.</p>"
    )
    return _section(
        "rules",
        "Rules: points",
        intro + page.figure(paths, png, "Mean points per rule") + _table(heads, rows, 2 if n > 1 else 1),
    )


def _cards_section(page: _Page, labels: Sequence[str]) -> str:
    from ruledraft.lab import plots

    n = len(labels)
    counted = [i for i in range(n) if page.get(f"sides[{i}].figures.cards") is not None]
    if not counted:
        return _section("cards", "Cards", "<p>The per-card figures were not counted in this run.</p>")
    used = [labels[i] for i in counted]
    own = {i: page.get(f"sides[{i}].figures.cards[*].card") for i in counted}
    names = _union(own[i] for i in counted)
    taken_paths, taken = [], []
    diff_paths, diffs = [], []
    for i in counted:
        t = f"sides[{i}].figures.cards[*].taken_per_game"
        taken_paths.append(t)
        taken.append((labels[i], _aligned(names, own[i], page.get(t)), None))
        d, iv = f"sides[{i}].figures.cards[*].difference", f"sides[{i}].figures.cards[*].difference_interval"
        diff_paths += [d, iv]
        diffs.append((labels[i], _aligned(names, own[i], page.get(d)), _aligned(names, own[i], page.get(iv))))
    taken_png = plots.horizontal_bars(names, taken, "Cards taken per game", "copies picked per game (all players)")
    diff_png = plots.differences(
        names,
        diffs,
        "Win rate: takers minus non-takers",
        "difference in win rate (95% interval)",
        percent=True,
    )
    rows = []
    for name in names:
        for i in counted:
            found = [c for c in page.get(f"sides[{i}].figures.cards") if c["card"] == name]
            if not found:
                continue
            c = found[0]
            rows.append(
                [_e(name)]
                + ([_e(labels[i])] if len(used) > 1 else [])
                + [
                    _num(c["taken_per_game"]),
                    _num(c["mean_turn"]),
                    _num(c["points_per_game"]),
                    _num(c["points_per_card"]),
                    _pct(c["takers"]["win_rate"]),
                    _pct(c["non_takers"]["win_rate"]),
                    _pct(c["difference"]),
                    _interval(c["difference_interval"], _pct),
                    _pct(c["adjusted"]["difference"]) if c.get("adjusted") else "-",
                    _interval(c["adjusted"]["interval"], _pct) if c.get("adjusted") else "-",
                    _pct(c["per_copy"]) if c.get("per_copy") is not None else "-",
                ]
            )
    heads = (
        ["card"]
        + (["side"] if len(used) > 1 else [])
        + [
            "taken / game",
            "turn",
            "points / game",
            "points / card",
            "takers win",
            "others win",
            "difference",
            "95% interval",
            "within seats",
            "95% interval",
            "per copy",
        ]
    )
    intro = (
        "<p>How often each card is taken (picked; see the README), and the win rate of seats that took it at "
        "least once minus that of seats that never did, with its 95% interval (the game as the unit); the same "
        "within each seat and its bot, pooled (Mantel-Haenszel: what the card does rather than who takes it); and "
        "the win rate per copy taken. Points a rule "
        "gives are shared among the cards it reads.</p>"
    )
    body = (
        intro
        + _panels(
            [
                page.figure(taken_paths, taken_png, "Cards taken per game"),
                page.figure(diff_paths, diff_png, "Win rate of takers minus non-takers per card, with 95% intervals"),
            ]
        )
        + _table(heads, rows, 2 if len(used) > 1 else 1)
    )
    return _section("cards", "Cards", body)


_GROUPS = ("seats", "rules", "cards")

#: the panels of the comparison, by what the rows measure: title, axis label, whether in percent
_MEASURES = {
    "win_share": ("B - A: win share", "percentage points", True),
    "score": ("B - A: score", "points", False),
    "rule": ("B - A: rule points", "points per seat and game", False),
    "taken": ("B - A: cards taken", "copies per game", False),
    "points": ("B - A: card points", "points per game", False),
    "win_rate": ("B - A: win rate of takers minus non-takers", "percentage points", True),
    "win_rate_per_copy": ("B - A: win rate per copy taken", "percentage points per copy", True),
}


def _comparison_section(page: _Page, labels: Sequence[str]) -> str:
    from ruledraft.lab import plots

    comp = page.get("comparison")
    rows_all = comp.get("rows", [])
    # one panel per measure (each on its own scale: fractions and points never share an
    # axis); rows without a measure (older JSON) get one panel per group
    if all("measure" in r for r in rows_all):
        key = "measure"
        kinds = [m for m in _MEASURES if any(r["measure"] == m for r in rows_all)]
        kinds += [m for m in _union([[str(r["measure"])] for r in rows_all]) if m not in kinds]
    else:
        key = "group"
        kinds = [g for g in _GROUPS if any(r.get("group") == g for r in rows_all)]
        kinds += [g for g in _union([[str(r.get("group"))] for r in rows_all]) if g not in kinds]
    figs = []
    for k in kinds:
        title, axis, percent = _MEASURES.get(k, (f"B - A: {k}", "", False))
        d, iv = f"comparison.rows[{key}={k}].difference", f"comparison.rows[{key}={k}].interval"
        names = [str(x) for x in page.get(f"comparison.rows[{key}={k}].figure")]
        flagged = [bool(x) for x in page.get(f"comparison.rows[{key}={k}].flagged")]
        png = plots.differences(names, [("B - A", page.get(d), page.get(iv))], title, axis, flagged, percent)
        figs.append(page.figure([d, iv], png, f"{title}, flagged ones marked"))

    def value(r: dict, x: Any, sign: str = "") -> str:
        if x is None:
            return "-"
        if r.get("measure") in ("win_share", "win_rate", "win_rate_per_copy"):
            return formatted(x, f"{sign}.1%")
        return formatted(x, f"{sign}.3f")

    rows = [
        [
            ("* " if r.get("flagged") else "") + _e(r.get("figure")),
            _e(r.get("group")),
            value(r, r.get("a")),
            value(r, r.get("b")),
            value(r, r.get("difference"), "+"),
            _interval(r.get("interval"), lambda x, r=r: value(r, x, "+")),
            _p(r.get("p_value")),
            _p(r.get("p_holm")),
            "flagged" if r.get("flagged") else "",
        ]
        for r in rows_all
    ]
    how = "paired" if comp.get("paired") else "played from independent seeds"
    pairing = f" ({_e(comp['pairing'])})" if comp.get("pairing") not in (None, "") else ""
    intro = (
        f"<p>A is the first side, B the second; games {how}{pairing}. Each "
        f"point is B minus A with its 95% interval, win shares in percentage points and the rest "
        f"in their own units, one panel each; a figure is flagged (*) when its p-value after "
        f"Holm's correction over the {_e(comp.get('compared', len(rows_all)))} figures compared is below "
        f"{_e(comp.get('alpha'))}. Rows equal on both sides in every game, and rows that repeat another's "
        f"test, are left out of the correction.{_share_base(comp)}</p>"
    )
    body = (
        intro
        + _panels(figs)
        + _table(["figure", "group", "A", "B", "B - A", "95% interval", "p", "p (Holm)", "flagged"], rows, 2)
    )
    return _section("comparison", "Comparison", body)


def _share_base(comp: dict) -> str:
    """At two player counts, what the seats' win shares are given above (an equal share of each side)."""
    base = comp.get("win_share_from") or [0, 0]
    if not any(base):
        return ""
    return (
        f" The player counts differ: each seat's win share is given above an equal share, "
        f"{_e(f'{100 * base[0]:.1f}')}% for A and {_e(f'{100 * base[1]:.1f}')}% for B."
    )


def _sweep_section(page: _Page) -> str:
    from ruledraft.lab import plots

    sweep = page.get("sweep")
    counts = sweep.get("counts", [])
    players = [int(c["players"]) for c in counts]
    names = _union([r["rule"] for r in c["figures"]["rules"]] for c in counts)
    paths, series = [], []
    for name in names:
        mean = f"sweep.counts[*].figures.rules[rule={name}].mean"
        interval = f"sweep.counts[*].figures.rules[rule={name}].interval"
        paths += [mean, interval]
        means = [m[0] if m else None for m in page.get(mean)]
        intervals = [v[0] if v else None for v in page.get(interval)]
        series.append((name, means, intervals))
    png = plots.by_players(players, series, "Mean points per rule by player count", "points per seat and game")
    rows = []
    for c in counts:
        f = c["figures"]
        seats = [s for s in f["seats"] if s["can_win"]]
        first = seats[0] if seats else None
        rows.append(
            [
                _e(c["players"]),
                _num(f["games"]),
                _pct(first["win_share"]) if first else "-",
                _pct(1 / len(seats)) if seats else "-",
                _p(f["seats_equal"]["p_value"]),
                _num(f["margin"]["mean"]),
                _pct(f["ties"]["shared_win"]),
            ]
        )
    bots = sweep.get("bots")
    bots_text = ", ".join(str(b) for b in bots) if isinstance(bots, list) else str(bots)
    intro = f"<p>{_e(sweep.get('ruleset'))} with {_e(bots_text)}, at each player count.</p>"
    body = (
        intro
        + page.figure(paths, png, "Mean points per rule by player count, with 95% intervals")
        + _table(
            ["players", "games", "seat 0 win share", "fair share", "seats equal: p", "mean margin", "shared win"],
            rows,
            0,
        )
    )
    return _section("sweep", "By player count", body)


def _tournament_section(page: _Page) -> str:
    """A tournament's ranking (win share per bot with its interval, rating, time per
    decision) and each line-up's shares (:mod:`ruledraft.lab.tournament`)."""
    from ruledraft.lab import plots

    ranking = page.get("tournament.ranking")
    share, interval = "tournament.ranking[*].win_share", "tournament.ranking[*].win_share_interval"
    png = plots.horizontal_bars(
        [str(r["bot"]) for r in ranking],
        [("win share", page.get(share), page.get(interval))],
        f"Win share per bot (fair: {page.get('tournament.fair_share'):.0%})",
        "win share",
        percent=True,
    )
    out = [page.figure([share, interval], png, "Win share per bot with 95% intervals")]
    rows = []
    for r in ranking:
        rating = r["rating"] or {}
        rows.append(
            [
                _e(r["bot"]),
                _num(r["seat_games"]),
                _pct(r["win_share"]),
                _interval(r["win_share_interval"], _pct),
                _num(rating.get("mu")),
                _num(rating.get("sigma")),
                _num(rating.get("ordinal")),
                _num(r["decision_ms_median"], 3),
                _num(r["decision_ms_p95"], 3),
            ]
        )
    heads = ["bot", "seats played", "win share", "95% interval", "rating", "sigma", "ordinal", "ms/decision", "p95"]
    out.append(_table(heads, rows))
    lineup_rows = []
    for lu in page.get("tournament.lineups"):
        for bot, v in lu["by_bot"].items():
            lineup_rows.append(
                [
                    _e(", ".join(lu["bots"])),
                    _e(bot),
                    _num(v["seats"]),
                    _num(lu["games"]),
                    _pct(v["win_share"]),
                    _interval(v["win_share_interval"], _pct),
                ]
            )
    out.append("<h3>Line-ups</h3>")
    out.append(_table(["line-up", "bot", "seats", "games", "win share", "95% interval"], lineup_rows, 2))
    intro = (
        f"<p>{_games(page.get('tournament.games'))}: every line-up turned round the table, every "
        f"seating on the same {_e(page.get('tournament.deals'))} deals. Rating: "
        f"{_e(page.get('tournament.rating_model'))}, ranked by ordinal (mu - 3 sigma).</p>"
    )
    return _section("tournament", "Tournament", intro + "".join(out))


def _section(ident: str, heading: str, body: str) -> str:
    return f'<section id="{ident}"><h2>{_e(heading)}</h2>{body}</section>'


_CSS = """
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; background: #f6f6f4; color: #1b1b1b; line-height: 1.45;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 0.75rem; }
header h1 { font-size: 1.45rem; margin: 0.5rem 0; overflow-wrap: anywhere; }
h2 { font-size: 1.2rem; margin: 0 0 0.5rem; }
h3 { font-size: 1rem; margin: 1rem 0 0.4rem; }
p, li { max-width: 75ch; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.9em; background: #ececea;
  padding: 0.1em 0.3em; border-radius: 3px; overflow-wrap: anywhere; }
nav { display: flex; flex-wrap: wrap; gap: 0.4rem 1rem; margin: 0.5rem 0; }
nav a { color: #0b5cad; }
section { background: #fff; border: 1px solid #e0e0dc; border-radius: 6px; padding: 0.9rem; margin: 0.9rem 0; }
figure.plot { margin: 0.5rem 0; max-width: 640px; }
figure.plot img { display: block; width: 100%; height: auto; }
figcaption { font-size: 0.85rem; color: #555; }
.panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 440px), 1fr)); gap: 0.75rem; }
.panels figure.plot { max-width: none; }
/* a table wider than the window scrolls sideways in its box; a shadow at the edge where
   more columns are hidden (covered by the white ends once scrolled to them) says so,
   and the first column stays in view, naming the rows */
.table-wrap { overflow-x: auto; margin: 0.5rem 0; background-color: #fff;
  background-image: linear-gradient(to left, #fff 30%, rgba(255, 255, 255, 0)),
    linear-gradient(to left, rgba(0, 0, 0, 0.2), rgba(0, 0, 0, 0));
  background-position: right center, right center; background-size: 2.5rem 100%, 0.8rem 100%;
  background-repeat: no-repeat; background-attachment: local, scroll; }
table { border-collapse: separate; border-spacing: 0; font-size: 0.88rem; font-variant-numeric: tabular-nums; }
th, td { padding: 0.2rem 0.45rem; border-bottom: 1px solid #eceae6; text-align: right; white-space: nowrap; }
th { background: rgba(60, 60, 20, 0.05); font-weight: 600; }
th:first-child, td:first-child { position: sticky; left: 0; z-index: 1; background: #fff;
  box-shadow: inset -1px 0 0 #eceae6; }
th:first-child { background: #f3f3f0; }
th.text, td.text { text-align: left; }
ul.notes { padding-left: 1.2rem; }
.cmd span { display: inline-block; max-width: 100%; }
@media (max-width: 600px) {
  main { padding: 0.4rem; }
  section { padding: 0.6rem; }
  table { font-size: 0.8rem; }
}
"""


def _command(command: str) -> str:
    """The command with each hyphenated word in a box of its own, so that a narrow window
    breaks the line between words, never at a word's hyphen (a word longer than the line
    still breaks inside its box)."""
    return " ".join(f"<span>{_e(word)}</span>" if "-" in word else _e(word) for word in command.split(" "))


def _json_for_html(document: Any) -> str:
    """JSON that cannot end the script element it is in (``<``, ``>`` and ``&`` escaped)."""
    text = json.dumps(document, indent=1, ensure_ascii=False, allow_nan=True)
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


#: a section drawn by another module: its id, its heading, its numbers (embedded in the
#: document under its id; None: they are in the sides' figures) and ``draw(page,
#: labels)``, giving its body from the page's document
Section = tuple[str, str, Any, Callable[[Any, Sequence[str]], str]]


def render(
    *,
    title: str,
    command: str,
    sides: Sequence[tuple[str, dict]],
    comparison: dict | None = None,
    sweep: dict | None = None,
    extra: Sequence[Section] = (),
    tournament: dict | None = None,
) -> str:
    """The report's HTML (see :func:`write_report`)."""
    require_plots()

    if not sides and tournament is None:
        raise ValueError("a report needs at least one side")
    document: dict[str, Any] = {
        "title": title,
        "command": command,
        "sides": [{"label": label, "figures": figures} for label, figures in sides],
    }
    if comparison is not None:
        document["comparison"] = comparison
    if sweep is not None:
        document["sweep"] = sweep
    document.update({ident: data for ident, _, data, _ in extra if data is not None})
    if tournament is not None:
        document["tournament"] = tournament
    page = _Page(document)
    labels = [str(label) for label, _ in sides]
    sections = []
    if comparison is not None:
        sections.append(("comparison", "Comparison", _comparison_section(page, labels)))
    if sweep is not None:
        sections.append(("sweep", "By player count", _sweep_section(page)))
    if tournament is not None:
        sections.append(("tournament", "Tournament", _tournament_section(page)))
    if sides:
        sections += [
            ("seats", "Seats", _seats_section(page, labels)),
            ("scores", "Scores", _scores_section(page, labels)),
            ("rules", "Rules", _rules_section(page, labels)),
            ("cards", "Cards", _cards_section(page, labels)),
        ]
    sections += [(ident, name, _section(ident, name, draw(page, labels))) for ident, name, _, draw in extra]
    nav = "".join(f'<a href="#{ident}">{_e(name)}</a>' for ident, name, _ in sections)
    sides_list = "".join(
        f"<li>{_e(label)}: {_games(page.get(f'sides[{i}].figures.games'))}</li>" for i, label in enumerate(labels)
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f'<meta name="generator" content="ruledraft {_e(__version__)}">'
        f"<title>{_e(title)}</title><style>{_CSS}</style></head>\n"
        "<body><main><header>"
        f"<h1>{_e(title)}</h1>"
        f'<p>Made by <code class="cmd">{_command(command)}</code>. Intervals are 95%.</p>'
        f'<ul class="notes">{sides_list}</ul>'
        f"<nav>{nav}</nav></header>\n"
        + "\n".join(body for _, _, body in sections)
        + '\n<script type="application/json" id="figures">'
        + _json_for_html(document)
        + "</script>\n</main></body></html>\n"
    )


def write_report(
    directory: str | os.PathLike[str],
    *,
    title: str,
    command: str,
    sides: Sequence[tuple[str, dict]],
    comparison: dict | None = None,
    sweep: dict | None = None,
    extra: Sequence[Section] = (),
    tournament: dict | None = None,
) -> Path:
    """Write the report as ``directory/index.html`` (creating the directory) and return
    that path. ``sides``: ``(label, figures JSON)`` per side (one for ``simulate``, two
    for ``compare``, one per player count for ``sweep``); ``comparison``: compare's JSON;
    ``sweep``: sweep's JSON; ``tournament``: a tournament's JSON (then ``sides`` may
    be empty); ``extra``: sections other modules draw (:data:`Section`), after the
    others. The same arguments always give the same bytes.
    :class:`ReportError` (one line) when matplotlib is missing or the file cannot be written."""
    require_plots()
    text = render(  # drawn first: a run stopped while it draws leaves no directory made for it
        title=title,
        command=command,
        sides=sides,
        comparison=comparison,
        sweep=sweep,
        extra=extra,
        tournament=tournament,
    )
    where = prepare_directory(directory)
    target = where / PAGE
    name = os.path.join(os.fspath(directory), PAGE)
    try:
        fd, tmp = tempfile.mkstemp(dir=where, prefix=".index-", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            umask = os.umask(0o022)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # as a file opened for writing would be
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as e:
        raise ReportError(f"{name}: cannot write the report: {e.strerror or e}") from None
    return target
