"""The report's plots, drawn with matplotlib (the ``plots`` extra) on the Agg backend.

Every function takes the numbers it draws, exactly as the figures JSON gives them, and
returns a PNG (bytes) of a fixed size with no date or software in its metadata, so the
same numbers always give the same bytes. Values are drawn as given: bars and points at
the value, intervals as lines from the interval's low end to its high end (never as
offsets from the value), histograms as steps over the scores. Labels (seat, rule and
card names) are drawn as plain text, never read as mathematics.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

#: colours told apart with any colour vision (Okabe and Ito), one per side or seat
PALETTE = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")
#: flagged differences
FLAG = "#D55E00"
WIDTH = 5.2  # inches
DPI = 150
ROW = 0.3  # inches per row of a horizontal chart
FAIR = "#555555"

_ready = False


def available() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def _pyplot() -> Any:
    global _ready
    import matplotlib

    if not _ready:
        matplotlib.use("Agg", force=True)
        _ready = True
    import matplotlib.pyplot as plt

    return plt


_STYLE: Any = {  # rc parameters
    "font.size": 11,
    "axes.titlesize": 12,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#dddddd",
    "grid.linewidth": 0.6,
    "axes.axisbelow": True,
    "legend.frameon": False,
    "legend.fontsize": 10,
    "text.usetex": False,
    "text.parse_math": False,
    "path.simplify": False,
}


def _figure(height: float) -> tuple[Any, Any]:
    fig, ax = _pyplot().subplots(figsize=(WIDTH, max(2.2, height)), dpi=DPI, layout="constrained")
    return fig, ax


def _png(fig: Any) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=DPI, metadata={"Software": None})
    _pyplot().close(fig)
    return buf.getvalue()


def _styled(draw: Any) -> Any:
    """Run ``draw`` with the report's style (labels as plain text, light grid)."""

    def wrapped(*args: Any, **kwargs: Any) -> bytes:
        import matplotlib

        _pyplot()
        with matplotlib.rc_context(_STYLE):
            return draw(*args, **kwargs)

    wrapped.__doc__ = draw.__doc__
    wrapped.__name__ = draw.__name__
    return wrapped


#: inches per character of a label at the legend's and the ticks' font size (a generous average)
CHAR = 0.085
#: inches of a legend entry besides its text (the line or patch, the gaps)
ENTRY = 0.75


def _legend(fig: Any, ax: Any) -> None:
    """The legend below the plot, where it covers nothing, in as many columns as fit
    the figure's width (so that no entry is cut off at the right edge)."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        widest = max(len(str(label)) for label in labels) * CHAR + ENTRY
        ncols = max(1, min(4, len(handles), int((WIDTH - 0.2) // widest)))
        fig.legend(handles, labels, loc="outside lower center", ncols=ncols)


def _ticks_fit(labels: Sequence[str]) -> bool:
    """Whether labels side by side along the x axis fit without touching."""
    return bool(labels) and max(len(str(t)) for t in labels) * CHAR + 0.1 <= (WIDTH - 1.0) / len(labels)


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def _offsets(n: int, width: float) -> list[float]:
    """Centres of ``n`` bars side by side within ``width`` around 0."""
    step = width / n
    return [-width / 2 + step * (i + 0.5) for i in range(n)]


@_styled
def win_shares(
    seat_labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float], Sequence[Sequence[float]]]],
    fair: float | None,
    title: str,
    ymax: float | None = None,
) -> bytes:
    """Win share per seat, one bar per side (grouped), a line from each interval's low
    to high end, and the fair share as a dashed line. ``series``: (label, shares,
    intervals) per side, each as long as ``seat_labels`` or shorter; ``ymax``: the top
    of the scale (shared by the panels that are compared)."""
    fig, ax = _figure(3.4)
    n = len(series)
    width = 0.8 if n > 1 else 0.6
    for i, ((label, shares, intervals), dx) in enumerate(zip(series, _offsets(n, width))):
        xs = [s + dx for s in range(len(shares))]
        colour = PALETTE[i % len(PALETTE)]
        ax.bar(xs, list(shares), width=width / n * 0.92, color=colour, alpha=0.85, label=label)
        ax.vlines(xs, [iv[0] for iv in intervals], [iv[1] for iv in intervals], color="#222222", linewidth=1.4)
    if fair is not None:
        ax.axhline(fair, color=FAIR, linestyle="--", linewidth=1, label=f"fair share {fair:.1%}")
    if _ticks_fit(seat_labels):
        ax.set_xticks(range(len(seat_labels)), list(seat_labels))
    else:  # turned, so that long labels or many seats never overlap
        ax.set_xticks(range(len(seat_labels)), list(seat_labels), rotation=40, ha="right", rotation_mode="anchor")
    ax.set_ylabel("win share (95% interval)")
    ax.set_ylim(0, ymax)
    ax.yaxis.set_major_formatter(_percent())
    ax.set_title(title)
    _legend(fig, ax)
    return _png(fig)


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(1.0, decimals=0)


@_styled
def score_distribution(
    histograms: Sequence[tuple[str, dict[str, int]]], title: str, xlim: tuple[int, int], ymax: int
) -> bytes:
    """Each seat's scores as steps over the scores (games per score), overlaid; ``xlim``
    and ``ymax`` shared by the panels that are compared."""
    fig, ax = _figure(3.0)
    for i, (label, hist) in enumerate(histograms):
        scores = sorted(int(k) for k in hist)
        if not scores:
            continue
        lo, hi = scores[0], scores[-1]
        values = [hist.get(str(v), 0) for v in range(lo, hi + 1)]
        edges = [v - 0.5 for v in range(lo, hi + 2)]
        colour = PALETTE[i % len(PALETTE)]
        ax.stairs(values, edges, color=colour, linewidth=1.6, label=label)
    ax.set_xlim(xlim[0] - 1, xlim[1] + 1)
    ax.set_ylim(0, ymax * 1.08 if ymax else 1)
    ax.set_xlabel("total score")
    ax.set_ylabel("games")
    ax.set_title(title)
    _legend(fig, ax)
    return _png(fig)


@_styled
def horizontal_bars(
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None], Sequence[Sequence[float] | None] | None]],
    title: str,
    xlabel: str,
    percent: bool = False,
) -> bytes:
    """Horizontal bars, one row per label and one bar per side, with a line from each
    interval's low to high end where intervals are given. A value of None (a label the
    side does not have) draws nothing."""
    n = len(series)
    fig, ax = _figure(0.9 + ROW * len(labels) * max(1, n * 0.6))
    height = 0.8 if n > 1 else 0.6
    for i, ((label, values, intervals), dy) in enumerate(zip(series, _offsets(n, height))):
        colour = PALETTE[i % len(PALETTE)]
        rows = [r for r, v in enumerate(values) if _finite(v)]
        ys = [r + dy for r in rows]
        ax.barh(ys, [values[r] for r in rows], height=height / n * 0.92, color=colour, alpha=0.85, label=label)
        if intervals is not None:
            spans = [(r + dy, intervals[r]) for r in rows if intervals[r] is not None]
            ax.hlines(
                [y for y, _ in spans],
                [iv[0] for _, iv in spans],  # type: ignore[index]
                [iv[1] for _, iv in spans],  # type: ignore[index]
                color="#222222",
                linewidth=1.4,
            )
    ax.set_yticks(range(len(labels)), list(labels))
    ax.invert_yaxis()
    return _finish(fig, ax, title, xlabel, percent, n > 1)


def _finish(fig: Any, ax: Any, title: str, xlabel: str, percent: bool, legend: bool) -> bytes:
    """The end every row plot shares: the axis label (as percentages with ``percent``),
    the title, a legend when several sides are drawn, and the PNG bytes."""
    ax.set_xlabel(xlabel)
    if percent:
        ax.xaxis.set_major_formatter(_percent())
    ax.set_title(title)
    if legend:
        _legend(fig, ax)
    return _png(fig)


@_styled
def differences(
    labels: Sequence[str],
    series: Sequence[tuple[str, Sequence[float | None], Sequence[Sequence[float] | None]]],
    title: str,
    xlabel: str,
    flagged: Sequence[bool] | None = None,
    percent: bool = False,
) -> bytes:
    """A point per row at its difference and a line from its interval's low to high
    end, one point per side; zero as a line. ``flagged`` rows (one side only) are drawn
    in the warning colour, filled, and their labels marked with an asterisk."""
    n = len(series)
    fig, ax = _figure(0.9 + ROW * len(labels) * max(1, n * 0.6))
    ax.axvline(0, color=FAIR, linewidth=1)
    band = 0.6 if n > 1 else 0.0
    for i, ((label, values, intervals), dy) in enumerate(zip(series, _offsets(n, band) if n > 1 else [0.0])):
        colour = PALETTE[i % len(PALETTE)]
        rows = [r for r, v in enumerate(values) if _finite(v)]
        marks = [bool(flagged[r]) if flagged is not None else False for r in rows]
        colours = [FLAG if m else colour for m in marks]
        ax.hlines(
            [r + dy for r in rows if intervals[r] is not None],
            [intervals[r][0] for r in rows if intervals[r] is not None],  # type: ignore[index]
            [intervals[r][1] for r in rows if intervals[r] is not None],  # type: ignore[index]
            color=[c for r, c in zip(rows, colours) if intervals[r] is not None],
            linewidth=1.6,
        )
        ax.scatter(
            [values[r] for r in rows],
            [r + dy for r in rows],
            color=colours,
            marker="o",
            s=[42 if m else 26 for m in marks],
            zorder=3,
            label=label,
        )
    shown = [f"* {t}" if flagged is not None and flagged[r] else t for r, t in enumerate(labels)]
    ax.set_yticks(range(len(labels)), shown)
    for r, tick in enumerate(ax.get_yticklabels()):
        if flagged is not None and flagged[r]:
            tick.set_color(FLAG)
            tick.set_fontweight("bold")
    ax.set_ylim(len(labels) - 0.5, -0.5)
    return _finish(fig, ax, title, xlabel, percent, n > 1)


@_styled
def by_players(
    players: Sequence[int],
    series: Sequence[tuple[str, Sequence[float | None], Sequence[Sequence[float] | None]]],
    title: str,
    ylabel: str,
) -> bytes:
    """One line per series over the player counts, a point at each value and a line
    from each interval's low to high end."""
    fig, ax = _figure(3.6)
    for i, (label, values, intervals) in enumerate(series):
        colour = PALETTE[i % len(PALETTE)]
        rows = [r for r, v in enumerate(values) if _finite(v)]
        xs = [players[r] + (i - (len(series) - 1) / 2) * 0.03 for r in rows]
        ax.plot(xs, [values[r] for r in rows], color=colour, marker="o", markersize=4, linewidth=1.4, label=label)
        spans = [(x, intervals[r]) for x, r in zip(xs, rows) if intervals[r] is not None]
        ax.vlines(
            [x for x, _ in spans],
            [iv[0] for _, iv in spans],  # type: ignore[index]
            [iv[1] for _, iv in spans],  # type: ignore[index]
            color=colour,
            linewidth=1.2,
        )
    ax.set_xticks(list(players), [str(p) for p in players])
    ax.set_xlabel("players")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    _legend(fig, ax)
    return _png(fig)
