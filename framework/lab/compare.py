"""Two sides compared: the differences of their figures, with intervals and Holm-corrected flags.

A *side* is a ruleset played by a number of players with a line-up of bots from a
seed (:class:`Side`). :func:`play_sides` plays ``games`` games of each side and folds
them into a :class:`CompareTally`: each side's runner :class:`~ruledraft.play.runner.Tally`
(behind :func:`~ruledraft.lab.figures.figures`), and for every figure compared the
exact sums of its per-game values and their squares -- and, when the games are
paired, of the per-game differences and their squares. Every sum is an integer or
an exact fraction, so tallies of chunks merge in any grouping and order into the
same figures: ``jobs`` (and any other way of spreading the chunks) never changes the
result.

Pairing
-------

Both sides play from the same seeds when that pairs games meaningfully: the same
number of players and seats, and the same deal (:func:`deal_signature`: the same
cards in the same deck order, the same hand size, rounds, turn procedure and cards
added between rounds). Then game i of A and game i of B are dealt the same cards,
and each figure's difference is the mean of the per-game differences, with
Student's t interval and a paired t-test. Otherwise (or when B's seed is given)
the games are independent: B plays from its own seed (derived from A's unless
given), win shares differ by Newcombe's interval with a two-proportion z-test (Welch's
on the deals where a side is rotated: a deal's share is then its mean over the
seatings), and the other figures by Welch's t interval and test. :func:`pairing` says
which and why.

Rotation
--------

With ``rotate`` (``compare --rotate``) each side plays every deal once per seating of
its line-up rotated through the seats (:func:`~ruledraft.lab.rotation.seatings`),
both sides alike on the same seeds, and the deal played in all its seatings is one
unit (:func:`joined_values`): its figures are their mean over the seatings (so a
seat's figures have the bots balanced), and its seat parts are joined, each (seating,
seat) a stratum of its own, so that vs none is pooled by Mantel and Haenszel over
seating and seat and both win figures take their variance from the deals by the
delta method (across the sides when paired, each side's summed otherwise: Sato's
variance would count the seatings of one deal as independent). Each side's figures
are then those of ``simulate --rotate`` (their seats' bot shown as ``rotated``). A
side with one bot at every seat has one seating; when both have, the comparison is
the plain one.

The figures compared (per game, then averaged over the games)
------------------------------------------------------------

* ``seat S win share`` and ``seat S score`` for the player seats both sides have
  (seats from 0, as ``simulate`` numbers them); a win shared by k seats counts 1/k.
* ``rule R`` -- the rule's points per seat and game (all seats pooled: the
  ``mean`` of the figures' rule), for every rule of either side.
* ``card C taken`` and ``card C points`` -- the copies of the card the player seats
  picked per game, and the points it brings per game (the
  figures' ``taken_per_game`` and ``points_per_game``), for every card of either side.

* ``card C vs none`` -- the win rate of the player seat-games that took the card
  minus that of those that took none, within each seat (a seat is one bot) and pooled
  by Mantel and Haenszel (the figures' ``adjusted``): the card's effect, not which
  seat or bot takes it; B - A with the sum of the sides' Sato variances, or when
  paired the delta method's over the games of both sides, Wald interval and test. ``card C per copy`` -- the win
  rate per copy taken (the figures' ``per_copy``: the least-squares slope of a
  seat-game's win on its copies, which still says something when nearly every seat
  takes the card), a function of the means of the games' CARD_PARTS
  (``ruledraft.lab.figures``), so the game is the unit and its standard error comes
  from the delta method (across the sides when paired, where the same deal makes them
  covary), with the Wald interval and test. Both for every card both sides have,
  where both sides can estimate them.

A rule or card one side does not have counts as 0 there. Every figure gets a
two-sided p-value; Holm's step-down correction over all of them gives ``p_holm``,
and a figure is flagged when ``p_holm <= alpha`` (0.05). A difference with no
spread at all (every game the same) has p-value 1 when it is 0 and 0 otherwise.

The JSON shape (``compare --json``)
-----------------------------------

A contract for the tools built on it (the HTML report); fields are only ever added.
Every difference is B minus A; intervals are 95% and given as ``[low, high]``.

.. code-block:: text

    {
      "a": {"label": "sushi-go",            # what tells the side apart
            "ruleset": "sushi-go", "players": 4, "bots": ["greedy", ...],
            "file": "the rule file it was read from",
            "seed": 0, "games": 400,
            "figures": {...}},                # ruledraft.lab.figures' shape
      "b": {...},
      "games": 400,                       # pairs of games played (one game of each side)
      "games_requested": 400,             # more when the run was interrupted
      "interrupted": false,
      "paired": true,
      "pairing": "why the games are (or are not) paired",
      "win_share_from": [0.0, 0.0],       # what each side's seat win shares are given above:
                                          # 0, or at two player counts an equal share of each
                                          # (1/A's players, 1/B's), so that a seat's rows
                                          # compare its edge over an equal share
      "alpha": 0.05,
      "compared": 46, "flagged": 3,
      "rows": [
        {"figure": "seat 0 win share", "group": "seats",   # "seats", "rules" or "cards"
         "measure": "win_share",     # what is measured (its unit): "win_share" (a fraction),
                                     # "score", "rule" or "points" (points), "taken" (cards),
                                     # "win_rate" (a difference of fractions: vs none),
                                     # "win_rate_per_copy" (a fraction per copy)
         "a": 0.25, "b": 0.31, "difference": 0.06, "interval": [0.01, 0.11],
         "p_value": 0.02, "p_holm": 0.9, "flagged": false}
      ],
      "rotation": {                       # only when rotated (--rotate, a side with two bots)
        "a": {"seatings": [["greedy", "random"], ["random", "greedy"]],
              "games_per_seating": 400, "games_played": [400, 400],
              "bots": [...]},             # each bot's win share: as simulate --rotate's
        "b": {...}
      }
    }
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import attrs

from ruledraft.engine.state import Game, derive_seed
from ruledraft.lab.figures import (
    CARD_PARTS,
    CONFIDENCE,
    CardColumns,
    LabTally,
    adjusted_effect,
    figures,
    fold_every,
    per_copy,
    seat_adjusted,
    versus_none,
)
from ruledraft.lab.rotation import bot_shares, seatings
from ruledraft.lab.statistics import (
    Moments,
    delta_variance,
    holm,
    mean_interval,
    newcombe,
    newcombe_p_value,
    t_cdf,
    t_quantile,
    wald,
)
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play import executor
from ruledraft.play.engines import kernel_for
from ruledraft.play.executor import Backend, Chunk, ShippedRuleset, StopSignals, steady_heap
from ruledraft.play.runner import BlockSize, GameResult, Tally, kernel_blocks, run_games

if TYPE_CHECKING:
    from ruledraft.lab.columns import Column

ALPHA = 0.05

#: what the seats of a rotated side show as their bot in its figures (as ``simulate --rotate``)
ROTATED = "rotated"

Number = int | Fraction


@attrs.frozen
class Side:
    """One side of a comparison: a ruleset, its players, a bot per seat and a seed."""

    ruleset: CompiledRuleset = attrs.field(eq=False)
    players: int
    bots: tuple[str, ...] = attrs.field(converter=tuple[str, ...])
    seed: int
    #: what tells this side apart from the other (set by :func:`labels`)
    label: str = ""
    #: the engine that plays its games (the same games either way: see ruledraft.play.engines)
    engine: str = attrs.field(default="reference", eq=False)

    @property
    def ruleset_id(self) -> str:
        return self.ruleset.id


def deal_signature(ruleset: CompiledRuleset, players: int) -> tuple:
    """What decides the cards dealt from a seed: equal signatures deal game i alike."""
    game = Game(ruleset, players)
    ids = ruleset.catalogue.ids
    return (
        game.num_seats,
        game.hand_size,
        ruleset.rounds,
        ruleset.procedure,
        tuple(ids[c] for c in game.deck),
        tuple(tuple(ids[c] for c in r) for r in game.reserves),
        tuple(game.added),
    )


def deals_ahead(ruleset: CompiledRuleset) -> bool:
    """Whether a seed decides every round's hands before anyone plays: not where the
    cards go back into the deck between rounds (``reshuffle``) or where an effect draws
    from the deck, which make a later deal follow the cards played."""
    return ruleset.between_rounds != "reshuffle" and all(
        type(e).__module__.startswith("ruledraft.") and not getattr(e, "deck_taken", 0) for e in ruleset.effects
    )  # a plug-in's effect may draw and shuffle back: not claimed


def pairing(a: Side, b: Side, seed_b_given: bool) -> tuple[bool, str]:
    """Whether the two sides' games are paired (same seeds, same deals), and why (or why
    not); B's seed given as A's is no other seed: its games pair where the deals do."""
    if seed_b_given and b.seed != a.seed:
        return False, "independent games: B's seed was given (--seed-b)"
    if a.players != b.players:
        return False, f"independent games: the player counts differ ({a.players} and {b.players})"
    sa, sb = deal_signature(a.ruleset, a.players), deal_signature(b.ruleset, b.players)
    if sa == sb:
        if a.ruleset.rounds > 1 and not (deals_ahead(a.ruleset) and deals_ahead(b.ruleset)):
            return True, "paired games: both sides deal game i's first hands alike; later deals follow the play"
        return True, "paired games: both sides deal game i the same cards from the same seed"
    if sa[0] != sb[0]:
        why = f"the seat counts differ ({sa[0]} and {sb[0]})"
    elif sorted(sa[4]) != sorted(sb[4]):
        why = "the decks differ"
    elif sa[4] != sb[4] and sa[:4] + sa[5:] == sb[:4] + sb[5:]:
        why = "the decks hold the same cards listed in another order, which a seed shuffles to other hands"
    else:
        why = "the deals differ (hand size, rounds, turns or cards added between rounds)"
    return False, f"independent games: {why}"


def independent_seed(seed: int) -> int:
    """B's seed when its games cannot be paired with A's and none was given."""
    return derive_seed(seed, 0xB) >> 11


def lineup(bots: Sequence[str]) -> str:
    """``greedy x3, random``: the bots per seat, runs of the same bot counted."""
    parts: list[list] = []
    for name in bots:
        if parts and parts[-1][0] == name:
            parts[-1][1] += 1
        else:
            parts.append([name, 1])
    return ", ".join(name + (f" x{k}" if k > 1 else "") for name, k in parts)


def labels(a: Side, b: Side) -> tuple[str, str]:
    """Short names for the two sides: what differs between them (or A and B)."""
    parts_a, parts_b = [], []
    if a.ruleset_id != b.ruleset_id:
        parts_a.append(a.ruleset_id)
        parts_b.append(b.ruleset_id)
    elif os.path.realpath(a.ruleset.source) != os.path.realpath(b.ruleset.source):  # one id, two files (a tuned copy)
        parts_a.append(f"{a.ruleset_id} ({a.ruleset.source})")
        parts_b.append(f"{b.ruleset_id} ({b.ruleset.source})")
    if a.players != b.players:
        parts_a.append(f"{a.players} player{'s' if a.players != 1 else ''}")
        parts_b.append(f"{b.players} player{'s' if b.players != 1 else ''}")
    if a.bots != b.bots:
        parts_a.append(lineup(a.bots))
        parts_b.append(lineup(b.bots))
    if not parts_a:
        return "A", "B"
    return ", ".join(parts_a), ", ".join(parts_b)


# ---------------------------------------------------------------------- per-game values

#: figure -> its value in each game of a batch (see :mod:`ruledraft.lab.columns`)
Columns = dict[str, "Column"]


def side_columns(
    players: int,
    card_ids: Sequence[str],
    rule_ids: Sequence[str],
    totals: Any,
    winners: Any,
    rule_points: Any,
    cards: CardColumns | None,
) -> Columns:
    """The figures compared (see the module docstring), each game's value of each, from
    a batch's ``totals`` (games, seats), ``winners`` (games, seats: nonzero where the
    seat won), ``rule_points`` (games, rules in ``rule_ids`` order, seats) and per-card
    values (:meth:`~ruledraft.lab.figures.LabTally.card_columns`)."""
    import numpy as np

    from ruledraft.lab.columns import Column

    num_seats = totals.shape[1]
    unit = math.lcm(*range(1, num_seats + 1))  # a win shared by k seats: unit // k of it
    won = winners > 0
    shares = np.where(won, unit // np.maximum(won.sum(axis=1, keepdims=True), 1), 0)
    out: Columns = {}
    for s in range(players):
        out[f"seat {s} win share"] = Column(shares[:, s], unit)
        out[f"seat {s} score"] = Column(totals[:, s])
    for j, rid in enumerate(rule_ids):
        out[f"rule {rid}"] = Column(rule_points[:, j].sum(axis=1), num_seats)
    if cards is not None:
        for c, cid in enumerate(card_ids):
            out[f"card {cid} taken"] = Column(cards.taken[:, c])
            out[f"card {cid} points"] = cards.points[c]
    return out


def result_columns(
    results: Sequence[GameResult], players: int, ruleset: CompiledRuleset, cards: CardColumns | None
) -> Columns:
    """:func:`side_columns` of games played one by one (their :class:`~ruledraft.play.runner.GameResult`)."""
    import numpy as np

    from ruledraft.lab.columns import exact

    G, N, rule_ids = len(results), ruleset.num_seats(players), ruleset.rule_ids
    winners = np.zeros((G, N), np.int64)
    for g, r in enumerate(results):
        winners[g, list(r.winners)] = 1
    none = (0,) * N
    points = exact([[r.rule_points.get(rid, none) for rid in rule_ids] for r in results]).reshape(G, len(rule_ids), N)
    totals = exact([r.totals for r in results]).reshape(G, N)
    return side_columns(players, ruleset.catalogue.ids, rule_ids, totals, winners, points, cards)


def _joined_games(batches: Sequence[tuple[Columns, Any]]) -> tuple[Columns, Any]:
    """Batches of games (each its columns and card parts) as one, in order."""
    import numpy as np

    from ruledraft.lab.columns import Column

    if len(batches) == 1:
        return batches[0]
    out: Columns = {}
    for key in batches[0][0]:
        column = [b[0][key] for b in batches]
        common = math.lcm(*(c.denominator for c in column))
        out[key] = Column(np.concatenate([c.over(common) for c in column]), common)
    return out, np.concatenate([b[1] for b in batches])


def _check_rows(cards: CardColumns, games: int) -> None:
    """That each of ``games`` games has its per-card values: a game folded before they
    were read (its counts merged into sums already) would leave the columns short."""
    if len(cards.taken) != games:
        raise ValueError(
            f"{games} games gave per-card values for {len(cards.taken)}: every game's counts must be unfolded"
        )


#: per kernel (its module's file and players) and bots, the size of its calls in this
#: process, from the chunks before: only a process's first chunk starts with a call of one
#: game (a cluster's worker, which unpacks each task's rulesets anew, keeps one entry too)
_block_sizes: dict[tuple[str, int, tuple[str, ...]], BlockSize] = {}


def play_side(
    side: Side, bots: Sequence[str], tally: Tally, start: int, stop: int, isolate: ShippedRuleset | None = None
) -> tuple[Columns, Any]:
    """Play games ``start`` to ``stop - 1`` of ``side`` with ``bots`` (its own, or a
    seating of them) and count them in ``tally`` (a runner tally with the lab's counts,
    none buffered); each game's values of the figures compared (:func:`side_columns`)
    and per card its :data:`~ruledraft.lab.figures.CARD_PARTS`, then its seat parts
    (games, cards, parts). On the kernel, blocks of games are counted and valued in
    bulk; ``isolate``: each bot from outside in a process of its own (the reference
    engine's games)."""
    lab = tally.lab
    assert isinstance(lab, LabTally)
    rs, players = side.ruleset, side.players
    batches = []
    kernel = kernel_for(rs, players, bots) if side.engine == "kernel" and isolate is None else None
    if kernel is not None:
        sizes = _block_sizes.setdefault((str(kernel.path), kernel.players, tuple(bots)), BlockSize())
        for games in kernel_blocks(kernel, Game(rs, players), side.seed, bots, list(range(start, stop)), blocks=sizes):
            tally.add_kernel_games(games, each=True)
            cards = lab.card_columns()
            _check_rows(cards, len(games))
            ids = rs.catalogue.ids
            columns = side_columns(players, ids, rs.rule_ids, games.totals, games.winners, games.rule_points, cards)
            batches.append((columns, cards.parts))
    else:
        results = run_games(
            rs,
            players,
            side.seed,
            bots,
            range(start, stop),
            cards=True,
            collector=LabTally.for_game,
            engine=side.engine,
            isolate=isolate,
        )
        step = max(1, fold_every() - 1)  # fewer games than a tally holds before it folds them itself
        for first in range(0, len(results), step):
            batch = results[first : first + step]
            alike = len({turns for r in batch for turns in getattr(r.lab, "pending", ())}) <= 1
            for some in [batch] if alike else [[r] for r in batch]:  # card effects that add turns: one by one
                for r in some:
                    tally.add_result(r)
                cards = lab.card_columns()
                _check_rows(cards, len(some))
                batches.append((result_columns(some, players, rs, cards), cards.parts))
    if not batches:
        cards = lab.card_columns()
        return result_columns([], players, rs, cards), cards.parts
    return _joined_games(batches)


@attrs.define
class Sums:
    """Per figure: the number of games, and the exact sums of its values and their squares."""

    n: int = 0
    total: dict[str, Number] = attrs.Factory(dict)
    squares: dict[str, Number] = attrs.Factory(dict)

    def add_columns(self, games: int, columns: Mapping[str, Column]) -> None:
        """Count ``games`` games: each figure's value in each of them (:func:`side_columns`)."""
        self.n += games
        total, squares = self.total, self.squares
        for k, column in columns.items():
            t, q = column.sums()
            if q:  # (a figure 0 in every game adds nothing)
                total[k] = total.get(k, 0) + t
                squares[k] = squares.get(k, 0) + q

    def merge(self, other: Sums) -> None:
        self.n += other.n
        for mine, theirs in ((self.total, other.total), (self.squares, other.squares)):
            for k, v in theirs.items():
                mine[k] = mine.get(k, 0) + v

    def mean(self, key: str) -> Fraction:
        return Fraction(self.total.get(key, 0), self.n) if self.n else Fraction(0)

    def variance(self, key: str) -> Fraction:
        """The sample variance (n - 1 in the denominator; 0 with fewer than two games)."""
        n = self.n
        if n < 2:
            return Fraction(0)
        t = self.total.get(key, 0)
        return Fraction(n * self.squares.get(key, 0) - t * t, n * (n - 1))


def differences(columns_a: Mapping[str, Column], columns_b: Mapping[str, Column]) -> Columns:
    """Per figure, B - A in each pair of games (the columns of the same deals; a figure
    one side does not have is 0 there)."""
    from ruledraft.lab.columns import combined, zeros

    games = len(next(iter({**columns_a, **columns_b}.values()))) if columns_a or columns_b else 0
    none = zeros(games)
    keys = columns_a.keys() | columns_b.keys()
    return {k: combined([(1, columns_b.get(k, none)), (-1, columns_a.get(k, none))]) for k in keys}


# ---------------------------------------------------------------------- the tally


@attrs.define
class CompareTally:
    """Everything counted for a comparison; merges exactly (see the module docstring)."""

    tally_a: Tally
    tally_b: Tally
    sums_a: Sums = attrs.Factory(Sums)
    sums_b: Sums = attrs.Factory(Sums)
    #: the per-game differences B - A (None when the games are not paired)
    pairs: Sums | None = None
    #: paired games: per card both sides have, the games' CARD_PARTS of A then of B
    #: (the win figures' covariance across the sides)
    cards: dict[str, Moments] = attrs.Factory(dict)
    #: the signal that stopped the run early (SIGINT, SIGTERM), 0 if every game was played
    signal: int = 0
    #: rotated (``--rotate``): per side, its seatings (:func:`~ruledraft.lab.rotation.seatings`)
    #: and per seating [games, each player seat's wins in the tally's unit]; one seating
    #: each when not rotated (then ``seated`` is empty)
    lineups: tuple[list[tuple[str, ...]], list[tuple[str, ...]]] = attrs.Factory(lambda: ([], []))
    seated: tuple[list[list[int]], list[list[int]]] = attrs.Factory(lambda: ([], []))

    @property
    def strata(self) -> tuple[int, int]:
        """Per side, the seatings of each deal (1 when not rotated)."""
        return max(1, len(self.lineups[0])), max(1, len(self.lineups[1]))

    @property
    def rotated(self) -> bool:
        """Whether a side plays a deal in more than one seating (its game values joined)."""
        return max(self.strata) > 1

    def merge(self, other: CompareTally) -> None:
        self.tally_a.merge(other.tally_a)
        self.tally_b.merge(other.tally_b)
        for mine, theirs in zip(self.seated, other.seated):
            for row, more in zip(mine, theirs):
                row[:] = [x + y for x, y in zip(row, more)]
        self.sums_a.merge(other.sums_a)
        self.sums_b.merge(other.sums_b)
        if self.pairs is not None and other.pairs is not None:
            self.pairs.merge(other.pairs)
        for cid, moments in other.cards.items():
            if cid in self.cards:
                self.cards[cid].merge(moments)
            else:
                self.cards[cid] = Moments(moments.width, moments.n, moments.total, moments.products)


def _empty_tally(side: Side, bots: Sequence[str] | None = None) -> Tally:
    """A side's runner tally of no games; ``bots``: its seats' labels (rotated)."""
    game = Game(side.ruleset, side.players)
    lab = LabTally.for_game(game, True)
    if bots is not None:
        lab.label_bots(bots)
    return Tally.empty(game.num_seats, side.ruleset.rule_ids, lab=lab)


def empty_compare_tally(a: Side, b: Side, paired: bool, rotate: bool = False) -> CompareTally:
    """The tally of no games of the two sides (``rotate``: each side's line-up rotated
    through the seats, :func:`~ruledraft.lab.rotation.seatings`)."""
    lineups = (seatings(a.bots, rotate), seatings(b.bots, rotate))
    rotated = rotate and max(len(lineups[0]), len(lineups[1])) > 1
    if not rotated:
        return CompareTally(_empty_tally(a), _empty_tally(b), pairs=Sums() if paired else None)
    return CompareTally(
        _empty_tally(a, lineups[0][0]),
        _empty_tally(b, lineups[1][0]),
        pairs=Sums() if paired else None,
        lineups=lineups,
        seated=([[0] * (1 + a.players) for _ in lineups[0]], [[0] * (1 + b.players) for _ in lineups[1]]),
    )


def play_chunk(
    a: Side,
    b: Side,
    paired: bool,
    start: int,
    stop: int,
    rotate: bool = False,
    isolate: tuple[ShippedRuleset, ShippedRuleset] | None = None,
) -> CompareTally:
    """Play games ``start`` to ``stop - 1`` of both sides and count them; ``rotate``:
    each deal in every seating of each side's line-up, one unit (:func:`joined_values`);
    ``isolate``: the sides' rulesets as they travel, each bot from outside then playing
    in a process of its own, sent only its seat's view (:mod:`ruledraft.play.isolate`)."""
    out = empty_compare_tally(a, b, paired, rotate)
    per_side = []
    parts = []
    for i, (side, tally, sums) in enumerate(((a, out.tally_a, out.sums_a), (b, out.tally_b, out.sums_b))):
        lineups = out.lineups[i] if out.rotated else [side.bots]
        by_seating = []
        for k, bots in enumerate(lineups):
            here = tally if not out.rotated else _empty_tally(side)
            by_seating.append(play_side(side, bots, here, start, stop, None if isolate is None else isolate[i]))
            if out.rotated:
                here.flush()
                out.seated[i][k][:] = [here.games, *here.wins[: side.players]]
                lab = here.lab
                assert isinstance(lab, LabTally)
                lab.label_bots(bots)
                tally.merge(here)
        columns, side_parts = joined_values(by_seating, side.players)
        sums.add_columns(len(side_parts), columns)
        per_side.append(columns)
        parts.append(side_parts)
    if out.pairs is not None:
        out.pairs.add_columns(len(parts[0]), differences(*per_side))
    if out.pairs is not None or out.rotated:
        out.cards = joint_card_moments(a, b, *parts)
    out.tally_a.flush()
    out.tally_b.flush()
    return out


def joined_values(by_seating: Sequence[tuple[Columns, Any]], players: int) -> tuple[Columns, Any]:
    """One deal played in every seating as one unit: per deal, its figures' values
    averaged over the seatings, and per card its :data:`~ruledraft.lab.figures.CARD_PARTS`
    summed over them and then its seat parts joined (every (seating, seat) a stratum of
    its own: each seating's seats' took, then their wins if took, then their wins); from
    ``by_seating``: per seating, its games' values and per card parts (:func:`play_side`;
    one seating: as they are)."""
    import numpy as np

    from ruledraft.lab.columns import combined

    if len(by_seating) == 1:
        return by_seating[0]
    k, m, P = len(by_seating), len(CARD_PARTS), players
    columns = {key: combined([(1, c[key]) for c, _ in by_seating], divide=k) for key in by_seating[0][0]}
    seatings = [p for _, p in by_seating]
    joined = [sum(p[..., :m] for p in seatings)]
    for block in range(3):
        joined += [p[..., m + block * P : m + (block + 1) * P] for p in seatings]
    return columns, np.concatenate(joined, axis=-1)


def joint_card_moments(a: Side, b: Side, parts_a: Any, parts_b: Any) -> dict[str, Moments]:
    """Per card both sides have: the moments of the paired games' values, A's then B's
    (each side's CARD_PARTS, then its seat parts: :func:`~ruledraft.lab.figures.seat_parts`;
    arrays of games, cards, parts)."""
    import numpy as np

    ids_a, ids_b = a.ruleset.catalogue.ids, b.ruleset.catalogue.ids
    common = [(cid, ids_a.index(cid), ids_b.index(cid)) for cid in ids_a if cid in ids_b]
    out: dict[str, Moments] = {}
    if not common or not len(parts_a):
        return out
    joint = np.concatenate([parts_a[:, [i for _, i, _ in common]], parts_b[:, [j for _, _, j in common]]], axis=-1)
    bound = int(np.abs(joint).max(initial=0))
    joint = joint.astype(np.int64) if bound * bound * len(parts_a) < 2**62 else joint.astype(object)
    products = (joint[:, :, :, None] * joint[:, :, None, :]).sum(axis=0)
    totals = joint.sum(axis=0)
    m = joint.shape[-1]
    for k, (cid, _, _) in enumerate(common):
        out[cid] = Moments(m, len(parts_a), totals[k].tolist(), products[k].ravel().tolist())
    return out


#: deals a chunk may hold where both sides play on the kernel (CompareWork: about 0.2 s of
#: random 4-player games; 500 left a chunk's tallies a tenth of the run)
KERNEL_CHUNK = 2000


class CompareWork:
    """The games of a comparison as :mod:`ruledraft.play.executor` plays them: games
    ``start..end`` of both sides into one :class:`CompareTally` (:func:`play_chunk`).
    It travels to worker processes and clusters, each side's ruleset as a
    :class:`~ruledraft.play.executor.ShippedRuleset` (``documents``: the sides' checked
    documents, needed only where processes do not fork)."""

    #: deals a chunk may hold on a worker process (sized by time up to it), and on this
    #: process (executor.InProcess sizes the chunks by time, about CHUNK_SECONDS each, up to
    #: it): where both sides play on the kernel, :data:`KERNEL_CHUNK` for both (10 made a
    #: chunk's tally, fold and merge most of the work: 20,000 kernel games took 45 s); else
    #: 500 and 10, as a chunk cannot be stopped halfway and a pair of games costs two
    cap = 500
    inline_chunk = 10

    def __init__(
        self,
        a: Side,
        b: Side,
        paired: bool,
        documents: tuple[Any, Any] = (None, None),
        plugins: Sequence[str] | None = None,
        rotate: bool = False,
        isolate: bool = False,
    ) -> None:
        self.shipped_a = ShippedRuleset(a.ruleset, documents[0], plugins)
        same = b.ruleset is a.ruleset and documents[1] is documents[0]
        self.shipped_b = self.shipped_a if same else ShippedRuleset(b.ruleset, documents[1], plugins)
        self.side_a = (a.players, a.bots, a.seed)
        self.side_b = (b.players, b.bots, b.seed)
        self.engines = (a.engine, b.engine)
        if a.engine == b.engine == "kernel":
            self.inline_chunk = self.cap = KERNEL_CHUNK
        self.paired = paired
        self.rotate = rotate
        self.isolate = isolate

    def sides(self) -> tuple[Side, Side]:
        a = Side(self.shipped_a.ruleset, *self.side_a, engine=self.engines[0])
        return a, Side(self.shipped_b.ruleset, *self.side_b, engine=self.engines[1])

    def empty(self) -> CompareTally:
        return empty_compare_tally(*self.sides(), self.paired, self.rotate)

    def play(self, start: int, end: int, stop: Callable[[], bool] | None = None) -> Chunk:
        with steady_heap():
            options: dict[str, Any] = {}  # none: the plain call, as ever
            if self.rotate:
                options["rotate"] = True
            if self.isolate:
                options["isolate"] = (self.shipped_a, self.shipped_b)
            return Chunk(start, end, play_chunk(*self.sides(), self.paired, start, end, **options))


def play_sides(
    a: Side,
    b: Side,
    games: int,
    *,
    paired: bool,
    jobs: int = 1,
    progress: Callable[[int], None] | None = None,
    backend: Backend | None = None,
    documents: tuple[Any, Any] = (None, None),
    rotate: bool = False,
    isolate: bool = False,
) -> CompareTally:
    """Play ``games`` games of each side (on ``jobs`` processes where processes fork,
    or on ``backend``, a cluster; the result never depends on it) and count them.
    ``progress`` gets the number of games (of each side) finished, chunk by chunk.

    SIGINT, SIGTERM or SIGHUP (in the main thread) stops the run: the workers are ended at
    once and the tally counts the pairs of games finished (both sides of each, so
    ``sums_a.n`` of them), with ``signal`` saying which signal. A second signal ends
    the process at once (:class:`~ruledraft.play.executor.StopSignals`).

    ``rotate``: every deal played once per seating of each side's line-up rotated
    through the seats (:func:`~ruledraft.lab.rotation.seatings`), the same seeds on
    both sides; the deal is the unit (:func:`joined_values`), so a side with one bot at
    every seat counts as without it. ``isolate``: each bot from outside in a process of
    its own, sent only its seat's view (``documents`` needed: that process compiles the
    ruleset afresh)."""
    if backend is None:
        forks = executor.start_method() == "fork"
        backend = executor.local(jobs if forks else 1, games)
    work = CompareWork(a, b, paired, documents, rotate=rotate, isolate=isolate)
    with steady_heap(), StopSignals() as stop:
        total: CompareTally = executor.run(work, games, backend, progress=progress, stop=stop)
    total.signal = stop.signum
    return total


def play_sides_on_cluster(
    a: Side,
    b: Side,
    documents: tuple[Any, Any],
    games: int,
    *,
    paired: bool,
    scheduler: str | None = None,
    local_workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    plugins: Sequence[str] | None = None,
    rotate: bool = False,
    isolate: bool = False,
) -> CompareTally:
    """:func:`play_sides` on a Dask cluster: the scheduler at ``scheduler`` or a local
    cluster of ``local_workers`` processes (:func:`ruledraft.play.cluster.connect`);
    ``documents`` are the two sides' checked documents (the same object for both when
    the sides share a ruleset), ``plugins`` the plug-ins the workers load (by default
    the ones loaded here). A stop signal keeps the pairs finished, as locally."""
    from ruledraft.play import cluster

    with cluster.backend(scheduler, local_workers) as on:
        work = CompareWork(a, b, paired, documents, plugins, rotate, isolate)
        with StopSignals() as stop:
            total: CompareTally = executor.run(work, games, on, progress=progress, stop=stop)
    total.signal = stop.signum
    return total


# ---------------------------------------------------------------------- the rows


def _order(a: Side, b: Side) -> list[tuple[str, str]]:
    """(figure, group) in the order of the rows: seats, rules, then cards (A's order, then B's own)."""
    rows = []
    for s in range(min(a.players, b.players)):
        rows += [(f"seat {s} win share", "seats"), (f"seat {s} score", "seats")]
    rules = list(dict.fromkeys([*a.ruleset.rule_ids, *b.ruleset.rule_ids]))
    rows += [(f"rule {rid}", "rules") for rid in rules]
    cards = list(dict.fromkeys([*a.ruleset.catalogue.ids, *b.ruleset.catalogue.ids]))
    for cid in cards:
        rows += [(f"card {cid} {what}", "cards") for what in ("taken", "points", *WIN_FIGURES)]
    return rows


#: the per-card win figures compared, by the words that end their row's name
WIN_FIGURES = {"vs none": versus_none, "per copy": per_copy}

Row = tuple[float, float, float, list[float], float]


def win_rows(a: Side, b: Side, tally: CompareTally) -> dict[str, Row]:
    """Per card both sides have, its win figures (:data:`WIN_FIGURES`) where both sides
    can estimate them: figure -> (A, B, B - A, interval, p). vs none is the
    Mantel-Haenszel difference over the seats (:func:`~ruledraft.lab.figures.adjusted_effect`);
    per copy the least-squares slope. Paired, the game is the unit for both: the delta
    method's variance from the games' values of both sides (their covariance counts);
    independent, each side's own variance (Sato's, or the delta method's) summed. Wald
    interval and test."""
    out: dict[str, Row] = {}
    ids_a, ids_b = a.ruleset.catalogue.ids, b.ruleset.catalogue.ids
    lab_a, lab_b = tally.tally_a.lab, tally.tally_b.lab
    if not (isinstance(lab_a, LabTally) and isinstance(lab_b, LabTally) and lab_a.cards and lab_b.cards):
        return out
    if tally.rotated:
        return rotated_win_rows(a, b, tally)
    for cid in ids_a:
        if cid not in ids_b:
            continue
        ia, ib = ids_a.index(cid), ids_b.index(cid)
        joint = tally.cards.get(cid) if tally.pairs is not None else None
        wa, wb = len(CARD_PARTS) + 3 * a.players, len(CARD_PARTS) + 3 * b.players  # each side's values
        ea_mh, eb_mh = adjusted_effect(lab_a, ia), adjusted_effect(lab_b, ib)
        if ea_mh is not None and eb_mh is not None:  # within seat and bot, then B - A
            va_mh, vb_mh = ea_mh["difference"], eb_mh["difference"]
            if joint is not None:  # paired: the game as the unit, the sides' covariance counted
                ma_j = Moments(3 * a.players, joint.n, joint.total[len(CARD_PARTS) : wa])
                mb_j = Moments(3 * b.players, joint.n, joint.total[wa + len(CARD_PARTS) :])
                sa_mh = seat_adjusted(ma_j.means(), a.players, lab_a.unit)
                sb_mh = seat_adjusted(mb_j.means(), b.players, lab_b.unit)
                assert sa_mh is not None and sb_mh is not None
                zeros = [Fraction(0)] * len(CARD_PARTS)
                gradient = zeros + [-g for g in sa_mh[1]] + zeros + sb_mh[1]
                d, lo, hi, p = wald(sb_mh[0] - sa_mh[0], delta_variance(gradient, joint), CONFIDENCE)
            else:  # independent: the sum of the sides' Sato variances
                d, lo, hi, p = wald(vb_mh - va_mh, ea_mh["variance"] + eb_mh["variance"], CONFIDENCE)
            out[f"card {cid} vs none"] = (va_mh, vb_mh, d, [lo, hi], p)
        ma, mb = lab_a.card_moments(ia), lab_b.card_moments(ib)
        for what, fn in WIN_FIGURES.items():
            if what == "vs none":
                continue
            ea, eb = fn(ma.means(), a.players, lab_a.unit), fn(mb.means(), b.players, lab_b.unit)
            if ea is None or eb is None:
                continue
            (va, ga), (vb, gb) = ea, eb
            if joint is not None:
                pad_a, pad_b = [Fraction(0)] * (wa - len(ga)), [Fraction(0)] * (wb - len(gb))
                var = delta_variance([-g for g in ga] + pad_a + gb + pad_b, joint)
            else:
                var = delta_variance(ga, ma) + delta_variance(gb, mb)
            d, lo, hi, p = wald(vb - va, var, CONFIDENCE)
            out[f"card {cid} {what}"] = (float(va), float(vb), d, [lo, hi], p)
    return out


def rotated_win_rows(a: Side, b: Side, tally: CompareTally) -> dict[str, Row]:
    """:func:`win_rows` of a rotated comparison: the deal (played in every seating) is
    the unit on both sides, so both figures and their variances come from the deals'
    joined values (:func:`joined_values`): vs none pooled by Mantel and Haenszel over
    the strata of seating and seat, per copy the slope over every seat-game; the delta
    method's variance, across the sides when paired, else each side's summed."""
    out: dict[str, Row] = {}
    m = len(CARD_PARTS)
    ka, kb = tally.strata
    pa, pb = ka * a.players, kb * b.players  # each side's strata of seating and seat
    wa = m + 3 * pa
    unit_a, unit_b = tally.tally_a.unit, tally.tally_b.unit
    paired = tally.pairs is not None
    for cid, joint in tally.cards.items():
        means = joint.means()
        wb = joint.width - wa
        cov = _covariance(joint)
        found = {
            "vs none": (seat_adjusted(means[m:wa], pa, unit_a), seat_adjusted(means[wa + m :], pb, unit_b), m),
            "per copy": (per_copy(means[:m], pa, unit_a), per_copy(means[wa : wa + m], pb, unit_b), 0),
        }
        for what, (ea, eb, skip) in found.items():
            if ea is None or eb is None:
                continue
            (va, ga), (vb, gb) = ea, eb
            zero = Fraction(0)
            grad_a = [zero] * skip + list(ga) + [zero] * (wa - skip - len(ga))
            grad_b = [zero] * skip + list(gb) + [zero] * (wb - skip - len(gb))
            if paired:
                var = _delta(cov, [-g for g in grad_a] + grad_b, joint.n)
            else:
                var = _delta(cov, grad_a + [zero] * wb, joint.n) + _delta(cov, [zero] * wa + grad_b, joint.n)
            d, lo, hi, p = wald(vb - va, var, CONFIDENCE)
            out[f"card {cid} {what}"] = (float(va), float(vb), d, [lo, hi], p)
    return out


def _covariance(moments: Moments) -> Any:
    """n times the games' sum of products less the product of sums, as exact integers
    (an object array): the sample covariance times n (n - 1), for :func:`_delta`."""
    import numpy as np

    n, m = moments.n, moments.width
    t = np.array(moments.total, dtype=object)
    return n * np.array(moments.products, dtype=object).reshape(m, m) - np.outer(t, t)


def _delta(scaled: Any, gradient: Sequence[Fraction], n: int) -> Fraction:
    """The delta method's variance g' S g / n, S the games' sample covariance (from
    :func:`_covariance`), exact as :func:`~ruledraft.lab.statistics.delta_variance` but
    in integers over one common denominator: every seating's seat parts make the vectors
    too wide for a product of fractions at each of their pairs."""
    import numpy as np

    if n < 2:
        return Fraction(0)
    common = math.lcm(*(Fraction(x).denominator for x in gradient))
    h = np.array([int(Fraction(x) * common) for x in gradient], dtype=object)
    used = np.flatnonzero(h != 0)
    h = h[used]
    return Fraction(int(h @ scaled[np.ix_(used, used)] @ h), common * common * n * n * (n - 1))


def duplicates(tally: CompareTally) -> dict[str, str]:
    """``card C points`` -> ``rule R`` where the two rows are one test: on each side the
    rule reads card C alone, no other rule reads it, and none of the rule's points went
    to no card (so the card's points per game are the rule's over all seats), or the
    side has neither; and both sides have as many seats (the rule's row is the card's
    over the seats)."""
    labs = [tally.tally_a.lab, tally.tally_b.lab]
    if not all(isinstance(lab, LabTally) for lab in labs) or tally.tally_a.num_seats != tally.tally_b.num_seats:
        return {}
    per_side: list[tuple[dict[str, str], set[str], set[str]]] = []
    for lab in labs:
        assert isinstance(lab, LabTally)
        readers: dict[int, int] = {}
        for sh in lab.shares:
            for c in sh.cards:
                readers[c] = readers.get(c, 0) + 1
        unattributed = lab.unattributed
        alone = {
            sh.id: lab.card_ids[sh.cards[0]]
            for sh in lab.shares
            if len(sh.cards) == 1 and readers[sh.cards[0]] == 1 and not unattributed.get(sh.id)
        }
        per_side.append((alone, {sh.id for sh in lab.shares}, set(lab.card_ids)))
    out = {}
    (alone_a, rules_a, cards_a), (alone_b, rules_b, cards_b) = per_side
    for rid in alone_a.keys() | alone_b.keys():
        cid = alone_a.get(rid) or alone_b.get(rid)
        sides_agree = all(
            alone.get(rid) == cid or (rid not in rules and cid not in cards) for alone, rules, cards in per_side
        )
        if sides_agree:
            out[f"card {cid} points"] = f"rule {rid}"
    return out


def _two_sided_t(d: float, se: float, df: float) -> float:
    return min(1.0, 2 * t_cdf(-abs(d) / se, df))


def paired_row(pairs: Sums, key: str) -> tuple[float, list[float], float]:
    """The mean difference, its t interval and the paired t-test's p-value."""
    n = pairs.n
    d = pairs.mean(key)
    var = pairs.variance(key)
    if not var:
        return float(d), [float(d), float(d)], 1.0 if d == 0 else 0.0
    mean, lo, hi = mean_interval(n, float(pairs.total.get(key, 0)), float(pairs.squares.get(key, 0)), CONFIDENCE)
    return float(d), [lo, hi], _two_sided_t(float(d), math.sqrt(var / n), n - 1)


def proportions_row(sa: Sums, sb: Sums, key: str, null: float = 0.0) -> tuple[float, list[float], float]:
    """B - A of two independent proportions, less ``null`` (what B - A is when nothing
    differs): Newcombe's interval and the p-value that inverts it
    (:func:`~ruledraft.lab.statistics.newcombe_p_value`): one method."""
    xa, xb = float(sa.total.get(key, 0)), float(sb.total.get(key, 0))
    d, lo, hi = newcombe(xb, sb.n, xa, sa.n, CONFIDENCE)
    return d - null, [lo - null, hi - null], newcombe_p_value(xb, sb.n, xa, sa.n, null)


def welch_row(sa: Sums, sb: Sums, key: str, null: float = 0.0) -> tuple[float, list[float], float]:
    """B - A of two independent means, less ``null`` (what B - A is when nothing
    differs): Welch's t interval and test."""
    d = float(sb.mean(key) - sa.mean(key)) - null
    va, vb = sa.variance(key) / sa.n, sb.variance(key) / sb.n
    se2 = va + vb
    if not se2:
        return d, [d, d], 1.0 if d == 0 else 0.0
    df = float(se2 * se2 / (va * va / (sa.n - 1) + vb * vb / (sb.n - 1)))
    se = math.sqrt(se2)
    half = t_quantile(0.5 + CONFIDENCE / 2, df) * se
    return d, [d - half, d + half], _two_sided_t(d, se, df)


def measure(figure: str) -> str:
    """What a figure of the comparison measures (see the JSON shape): win_share, score,
    rule, taken, points, win_rate or win_rate_per_copy."""
    if figure.startswith("rule "):
        return "rule"
    if figure.startswith("card "):
        if figure.endswith(" vs none"):
            return "win_rate"
        if figure.endswith(" per copy"):
            return "win_rate_per_copy"
        return "taken" if figure.endswith(" taken") else "points"
    return "win_share" if figure.endswith(" win share") else "score"


def comparison_rows(
    order: Sequence[tuple[str, str]],
    sums_a: Sums,
    sums_b: Sums,
    pairs: Sums | None,
    alpha: float = ALPHA,
    computed: Mapping[str, Row] | None = None,
    same_as: Mapping[str, str] | None = None,
    equal: tuple[float, float] = (0.0, 0.0),
    deals: bool = False,
) -> list[dict]:
    """The rows of the comparison, in ``order``, flagged after Holm's correction over the
    family of the rows tested: all but those with no spread (one difference in every
    game: certain, p 0 and flagged, or p 1 when it is 0) and those ``same_as`` names as
    another row's test (figure -> that row's figure: they take its p_holm and flag).
    ``computed``: rows worked out elsewhere (:func:`win_rows`), figure -> (A, B, B - A,
    interval, p). ``deals``: each value is a deal's mean over its seatings (rotated),
    so a win share is no proportion of games: independent sides' shares then differ by
    Welch's interval on the deals, as every other figure, not Newcombe's."""
    rows: list[dict] = []
    results: list[tuple[float, list[float], float]] = []
    for key, group in order:
        if computed is not None and key in computed:
            va, vb, d, interval, p = computed[key]
            results.append((d, interval, p))
            rows.append(
                {
                    "figure": key,
                    "group": group,
                    "measure": measure(key),
                    "a": va,
                    "b": vb,
                    "difference": d,
                    "interval": interval,
                    "p_value": p,
                }
            )
            continue
        share = key.endswith(" win share")
        if pairs is not None:
            d, interval, p = paired_row(pairs, key)
        elif share and not deals:
            d, interval, p = proportions_row(sums_a, sums_b, key, equal[1] - equal[0])
        else:
            d, interval, p = welch_row(sums_a, sums_b, key, equal[1] - equal[0] if share else 0.0)
        results.append((d, interval, p))
        rows.append(
            {
                "figure": key,
                "group": group,
                "measure": measure(key),
                "a": float(sums_a.mean(key)) - (equal[0] if share else 0),
                "b": float(sums_b.mean(key)) - (equal[1] if share else 0),
                "difference": d,
                "interval": interval,
                "p_value": p,
            }
        )
    # Holm's family: every row but those with no spread (the same difference in every
    # game: certain, flagged when it is not 0) and those that repeat another row's test
    same = same_as or {}
    tested = [i for i, r in enumerate(rows) if r["interval"][0] != r["interval"][1] and r["figure"] not in same]
    for i, (q, flagged) in zip(tested, holm([results[i][2] for i in tested], alpha)):
        rows[i]["p_holm"], rows[i]["flagged"] = q, flagged
    by_figure = {r["figure"]: r for r in rows}
    for i, row in enumerate(rows):
        row["tested"] = i in set(tested)
        row["same_as"] = same.get(row["figure"])
        if "p_holm" in row:
            continue
        twin = by_figure.get(same.get(row["figure"], ""))
        if twin is not None and "p_holm" in twin:
            row["p_holm"], row["flagged"] = twin["p_holm"], twin["flagged"]
        else:
            row["p_holm"], row["flagged"] = row["p_value"], row["p_value"] <= alpha
    return rows


def comparison(
    a: Side, b: Side, tally: CompareTally, pairing_reason: str, alpha: float = ALPHA, *, requested: int | None = None
) -> dict:
    """The comparison in the JSON shape of the module docstring (``requested``: the
    games asked for on each side; fewer were played when the run was interrupted)."""
    played = tally.sums_a.n
    computed = win_rows(a, b, tally)
    order = [(k, g) for k, g in _order(a, b) if k in computed or not k.endswith(tuple(WIN_FIGURES))]
    # at two player counts a seat's win share is measured from an equal share of each
    equal = (0.0, 0.0) if a.players == b.players else (1 / a.ruleset.rivals(a.players), 1 / b.ruleset.rivals(b.players))
    rows = comparison_rows(
        order, tally.sums_a, tally.sums_b, tally.pairs, alpha, computed, duplicates(tally), equal, tally.rotated
    )

    def side(s: Side, t: Tally, lineups: Sequence[tuple[str, ...]]) -> dict:
        bots = [ROTATED] * s.players if len(lineups) > 1 else s.bots
        return {
            "label": s.label,
            "ruleset": s.ruleset_id,
            "file": s.ruleset.source,
            "players": s.players,
            "bots": list(s.bots),
            "seed": s.seed,
            "games": t.games,
            "figures": figures(t, bots),
        }

    return {
        "a": side(a, tally.tally_a, tally.lineups[0]),
        "b": side(b, tally.tally_b, tally.lineups[1]),
        "games": played,
        "games_requested": played if requested is None else requested,
        "interrupted": bool(tally.signal),
        "paired": tally.pairs is not None,
        "pairing": pairing_reason,
        "win_share_from": list(equal),
        "alpha": alpha,
        "compared": sum(r["tested"] for r in rows),
        "flagged": sum(r["flagged"] for r in rows),
        "rows": rows,
        **({"rotation": rotation(tally, played if requested is None else requested)} if tally.rotated else {}),
    }


def rotation(tally: CompareTally, games: int) -> dict:
    """What a rotated comparison adds under ``"rotation"``: per side (``"a"``, ``"b"``)
    its seatings, the deals asked for and played in each, and each bot's win share over
    them (:func:`~ruledraft.lab.rotation.bot_shares`) -- the shape of ``simulate
    --rotate``'s ``figures["rotation"]``."""
    out = {}
    for key, lineups, seated, t in zip("ab", tally.lineups, tally.seated, (tally.tally_a, tally.tally_b)):
        runs = [(bots, [w / t.unit for w in row[1:]], row[0]) for bots, row in zip(lineups, seated)]
        out[key] = {
            "seatings": [list(b) for b in lineups],
            "games_per_seating": games,
            "games_played": [row[0] for row in seated],
            "bots": bot_shares(runs),
        }
    return out


def _rotation_report(page: Any, labels: Sequence[str]) -> str:
    """The report's section on a rotated comparison: per side, its seatings and each
    bot's win share (as ``simulate --rotate`` reports them)."""
    from ruledraft.lab.report import _e
    from ruledraft.lab.rotation import ROTATION_SECTION

    r = page.get("rotation")
    body = ROTATION_SECTION[3]
    return "".join(f"<h3>{_e(label)}</h3>" + body({"rotation": r[k]}, [label]) for k, label in zip("ab", labels))


#: the report's section on a rotated comparison (``ruledraft.lab.report.Section`` without
#: its data: ``comparison["rotation"]``)
ROTATION_REPORT = ("rotation", "Bots over the seatings", _rotation_report)
