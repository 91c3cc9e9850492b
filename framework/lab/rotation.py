"""The line-up rotated through the seats: every deal played once per seating, so that
seat fairness and bot strength come apart.

:func:`seatings` lists the line-ups (each distinct rotation of the bots through the
seats); every seating plays the same games (the same seeds). :func:`rotated_tally`
puts their runner tallies together, each seat's counts kept apart by the bot that
held it (the strata of the lab's Mantel-Haenszel card effect: seat and bot), and
:func:`bot_shares` gives each bot's win share over the seatings, with its Wilson
interval (the game as the unit: the seats a bot holds win at most one game each game).
``simulate --rotate`` and ``ruledraft quality`` both play this way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ruledraft.lab.statistics import wilson

CONFIDENCE = 0.95


def seatings(bots: Sequence[str], rotate: bool) -> list[tuple[str, ...]]:
    """The line-ups to play: ``bots`` and, with ``rotate``, each distinct rotation of
    it through the seats (seat ``s`` gets the bot of seat ``s - k``), so that every bot
    holds every seat equally often."""
    first = tuple(bots)
    if not rotate:
        return [first]
    out: list[tuple[str, ...]] = []
    for k in range(len(first)):
        lineup = first[len(first) - k :] + first[: len(first) - k]
        if lineup not in out:
            out.append(lineup)
    return out


def bot_shares(
    runs: Sequence[tuple[Sequence[str], Sequence[float], int]], confidence: float = CONFIDENCE
) -> list[dict[str, Any]]:
    """Per bot (in the order first seen), from the runs of one line-up's seatings --
    ``(its bot per player seat, each player seat's wins, its games)`` --: the seats it
    holds in each seating, its wins over all games as a share, that share per seat
    held, and the per-seat rate's Wilson interval."""
    wins: dict[str, float] = {}
    seats: dict[str, int] = {}
    games: dict[str, int] = {}
    for bots, seat_wins, n in runs:
        held: dict[str, int] = {}
        for bot, w in zip(bots, seat_wins):
            wins[bot] = wins.get(bot, 0.0) + w
            held[bot] = held.get(bot, 0) + 1
        for bot, k in held.items():
            seats[bot] = k  # a bot holds as many seats in every rotation of one line-up
            games[bot] = games.get(bot, 0) + n
    out = []
    for bot, w in wins.items():
        k, g = seats[bot], games[bot]
        lo, hi = wilson(w, g, confidence)
        out.append(
            {
                "bot": bot,
                "seats": k,
                "win_share": w / g if g else 0.0,
                "win_rate_per_seat": w / g / k if g else 0.0,
                "interval": [lo / k, hi / k],
            }
        )
    return out


def rotated_tally(runs: Sequence[tuple[Sequence[str], Any]]) -> Any:
    """The runner tallies of the seatings -- ``(bot per player seat, its
    :class:`~ruledraft.play.runner.Tally` with the lab's counts)`` -- merged into the
    first, each seat's card strata labelled with its bot first (the tallies are
    changed)."""
    merged = None
    for bots, tally in runs:
        lab = tally.lab
        base = getattr(lab, "base", lab)  # the lab's tally beside extra counts
        base.label_bots(bots)
        if merged is None:
            merged = tally
        else:
            merged.merge(tally)
    if merged is None:
        raise ValueError("no seating was played")
    return merged


def rotation_figures(runs: Sequence[tuple[Sequence[str], Any]], games: int) -> dict[str, Any]:
    """What ``simulate --json`` adds under ``"rotation"``: the seatings, the games each
    was asked for, and each bot's win share (:func:`bot_shares`); ``runs``: (bot per
    player seat, the seating's runner tally)."""
    played = []
    for bots, tally in runs:
        tally.flush()
        played.append((bots, [tally.wins[s] / tally.unit for s in range(len(bots))], tally.games))
    return {
        "seatings": [list(b) for b, _ in runs],
        "games_per_seating": games,
        "games_played": [n for _, _, n in played],
        "bots": bot_shares(played),
    }


def _report_body(page: Any, labels: Sequence[str]) -> str:
    """The report's section on a rotated run, from the document's ``"rotation"``: the
    seatings and each bot's win share."""
    from ruledraft.lab.report import _e, _interval, _pct, _table

    r = page.get("rotation")
    k = len(r["seatings"])
    text = (
        f"The line-up rotated through the seats: {k} seatings of {r['games_per_seating']} deals each, the same "
        "deals in each; the seats are measured with the bots balanced, and the adjusted card effects are taken "
        "within each seat and bot."
    )
    parts = [f"<p>{_e(text)}</p>"]
    rows = [
        [
            _e(b["bot"]),
            str(b["seats"]),
            _pct(b["win_share"]),
            _pct(b["win_rate_per_seat"]),
            _interval(b["interval"], _pct),
        ]
        for b in r["bots"]
    ]
    parts.append(_table(["bot", "seats", "wins", "per seat", "95% interval"], rows))
    return "".join(parts)


#: the report's section (``ruledraft.lab.report.Section``): its numbers are ``figures["rotation"]``
ROTATION_SECTION = ("rotation", "Bots over the seatings", None, _report_body)
