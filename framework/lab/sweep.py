"""One ruleset's figures for several player counts, side by side.

:func:`sweep` plays ``games`` games at each player count through :func:`play_count`
(the runner's ``simulate`` with the per-card figures, from the same inputs) and keeps
each count's figures (:func:`ruledraft.lab.figures.figures`). Every count plays from
the same seed; games of different player counts are dealt differently, so they are
independent and nothing is paired. :func:`key_figures` picks what the terminal shows.

The JSON shape (``sweep --json``)
---------------------------------

A contract for the tools built on it (the HTML report); fields are only ever added.

.. code-block:: text

    {
      "ruleset": "sushi-go",
      "bots": "greedy,random",        # the --bots spec, filled per count (the last fills the seats)
      "games": 1000, "seed": 0,       # the games asked for at each count
      "interrupted_at": null,         # the player count a stop cut short (null: none)
      "counts": [
        {"players": 2, "bots": ["greedy", "random"],
         "games": 1000,               # fewer at the count a stop cut short
         "figures": {...}}            # ruledraft.lab.figures' shape
      ]
    }
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ruledraft.errors import InputError
from ruledraft.lab.figures import FEWEST_COMPARED, LabTally
from ruledraft.language.catalogue import player_span
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.executor import Backend, StopSignals
from ruledraft.play.runner import Summary, simulate

#: how many cards the terminal lists by win-rate effect
TOP_CARDS = 3
#: the fewest seat-games of a card's takers, and of its non-takers, for the top cards
FEWEST_SEATS = FEWEST_COMPARED


def player_counts(text: str, low: int, high: int, name: str = "the ruleset") -> list[int]:
    """``2-5``, ``3,5`` or ``2-3,5`` -> the player counts (sorted, each once), each
    within ``low..high`` (:class:`InputError` otherwise)."""
    counts: set[int] = set()
    outside: list[tuple[int, int]] = []  # the parts of the ranges past low..high
    for part in text.split(","):
        bounds = part.strip().split("-")
        try:
            if len(bounds) not in (1, 2) or not all(b.strip().isdigit() for b in bounds):
                raise ValueError
            first, last = int(bounds[0]), int(bounds[-1])
        except ValueError:
            raise InputError(f"--players takes counts such as 2-5 or 3,5, not {text!r}") from None
        if first > last:
            raise InputError(f"--players {part.strip()}: the range runs backwards (write {last}-{first})")
        if first < low:
            outside.append((first, min(last, low - 1)))
        if last > high:
            outside.append((max(first, high + 1), last))
        if not outside:
            counts.update(range(first, last + 1))
    if outside:
        words = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in _merged(outside))
        raise InputError(f"{name} is for {player_span(low, high)}, not {words}")
    return sorted(counts)


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges ``(first, last)`` sorted, those that meet or touch made one."""
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], b))
        else:
            out.append((a, b))
    return out


def play_count(
    ruleset: CompiledRuleset,
    players: int,
    games: int,
    seed: int,
    bots: Sequence[str],
    *,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    backend: Backend | None = None,
    document: Any = None,
    engine: str = "reference",
) -> Summary:
    """The games of one player count, with every figure (the runner's ``simulate``, on
    ``jobs`` processes or on ``backend``, which needs the checked ``document``; on
    ``engine``, the same games either way)."""
    return simulate(
        ruleset,
        players,
        games,
        seed,
        bots,
        jobs=jobs,
        progress=progress,
        cards=True,
        collector=LabTally.for_game,
        backend=backend,
        document=document,
        engine=engine,
    )


#: the engine a count plays on: a name, or what chooses it from the count and its bots
EngineFor = str | Callable[[int, Sequence[str]], str]


def sweep(
    ruleset: CompiledRuleset,
    counts: Sequence[int],
    games: int,
    seed: int,
    bots: Callable[[int], list[str]],
    spec: str,
    *,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    backend: Backend | None = None,
    document: Any = None,
    engine: EngineFor = "reference",
) -> tuple[dict, int]:
    """Every count's figures in the JSON shape of the module docstring, and the signal
    that stopped the run early (0 if none: then every count played every game). A
    stop keeps the counts finished and the one cut short, with the games it played
    (none left out if it played none). Each count is played by :func:`play_count`, on
    ``jobs`` processes or on ``backend`` (a cluster, with the checked ``document``:
    :func:`sweep_on_cluster`)."""
    out: list[dict] = []
    # each count's run catches a stop while it plays; this one catches a stop that
    # comes between two counts' runs, which the next count must not play through
    with StopSignals() as between:
        for i, n in enumerate(counts):
            if between.requested():
                return _result(ruleset, spec, games, seed, out, n), between.signum
            names = bots(n)
            on = engine(n, names) if callable(engine) else engine
            summary = play_count(
                ruleset,
                n,
                games,
                seed,
                names,
                jobs=jobs,
                progress=progress,
                backend=backend,
                document=document,
                engine=on,
            )
            if summary.games:
                out.append({"players": n, "bots": list(names), "games": summary.games, "figures": summary.figures})
            if summary.interrupted:
                # a stop after the count's last game cuts short the next count, not this one
                cut = n if summary.games < games else (counts[i + 1] if i + 1 < len(counts) else None)
                return _result(ruleset, spec, games, seed, out, cut), summary.signal
    return _result(ruleset, spec, games, seed, out), 0


def sweep_on_cluster(
    ruleset: CompiledRuleset,
    document: Any,
    counts: Sequence[int],
    games: int,
    seed: int,
    bots: Callable[[int], list[str]],
    spec: str,
    *,
    scheduler: str | None = None,
    local_workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    engine: EngineFor = "reference",
) -> tuple[dict, int]:
    """:func:`sweep` on a Dask cluster: every player count's games on the one connection
    (:func:`ruledraft.play.cluster.connect`), each count's tally reduced there. A stop
    signal ends the sweep as it ends a local one."""
    from ruledraft.play import cluster

    with cluster.backend(scheduler, local_workers) as on:
        return sweep(
            ruleset, counts, games, seed, bots, spec, progress=progress, backend=on, document=document, engine=engine
        )


def _result(
    ruleset: CompiledRuleset, spec: str, games: int, seed: int, counts: list[dict], cut: int | None = None
) -> dict:
    return {
        "ruleset": ruleset.id,
        "bots": spec,
        "games": games,
        "seed": seed,
        "interrupted_at": cut,
        "counts": counts,
    }


def card_effect(card: dict) -> float:
    """A card's takers-minus-others win rate within each seat and its bot (the figures'
    ``adjusted``), the plain difference where it has none: with different bots at the
    seats the plain one mostly says which bot takes the card (as tune ranks them)."""
    adjusted = card.get("adjusted")
    return float(adjusted["difference"] if adjusted is not None else card["difference"])


def top_cards(figures: dict, k: int = TOP_CARDS, fewest: int = FEWEST_SEATS) -> list[tuple[str, float]]:
    """The ``k`` cards whose takers win most more often than their non-takers, within
    each seat and bot: (card, :func:`card_effect`). A card with fewer than ``fewest``
    seat-games of takers or of non-takers is left out: its difference rests on a handful
    of seats (a card every seat takes has one or two to compare with) and ranks noise first."""
    cards = [c for c in figures.get("cards") or () if min(c["takers"]["seats"], c["non_takers"]["seats"]) >= fewest]
    ranked = sorted(((card_effect(c), c["card"]) for c in cards), key=lambda x: (-x[0], x[1]))
    return [(card, d) for d, card in ranked[:k]]


def few_seats(figures: dict, fewest: int = FEWEST_SEATS) -> list[str]:
    """The cards taken, but by fewer than ``fewest`` seat-games or by all but fewer:
    what :func:`top_cards` leaves out."""
    return [
        c["card"]
        for c in figures.get("cards") or ()
        if c["takers"]["seats"] and min(c["takers"]["seats"], c["non_takers"]["seats"]) < fewest
    ]


def key_figures(figures: dict, players: int) -> dict:
    """What the terminal shows of one count's figures."""
    seats = figures["seats"][:players]
    return {
        "win_share": [(s["win_share"], *s["win_share_interval"]) for s in seats],
        "seats_equal_p": figures["seats_equal"]["p_value"],
        "score": [(s["mean"], s["stdev"]) for s in seats],
        "margin_mean": figures["margin"]["mean"],
        "margin_median": figures["margin"]["quantiles"]["50"],
        "top_tied": figures["ties"]["top_score_tied"],
        "rules": {r["rule"]: r["mean"] for r in figures["rules"]},
        "top_cards": top_cards(figures),
    }
