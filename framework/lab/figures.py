"""The balance lab's figures: per seat, per scoring rule and per card, from tallies that merge exactly.

:class:`LabTally` is what each worker counts its games into, inside the runner's
:class:`~ruledraft.play.runner.Tally` (which owns it and reads its own sums from it).
Counting a game copies its numbers into flat lists; every thousand games or so they
are folded with numpy, all at once, into integer counts, integer sums and integer
histograms of a size fixed by the ruleset (card types, rules, seats) and the range of
scores -- never a list per game -- so memory does not grow with the number of games,
and tallies merged in any grouping and any order give identical figures. This keeps
every figure within a few percent of a simulation's time (``benchmarks/lab_cost.py``).
:func:`figures` turns a tally into the figures below.

How the figures are counted
---------------------------

* **Wins** are counted as the runner counts them: a win shared by k seats counts 1/k
  to each. Win shares and win rates are those fractional counts over the games (or
  seat-games), and their Wilson intervals are taken at the fractional count (a win
  rate over seat-games at its effective count: see "The game is the unit").
* **Taken** means chosen: the cards of a seat's picks over the game (both cards of a
  pick with chopsticks) and the cards an effect places on its table from its own
  choice (the card chosen from a menu's draw, the second card of Party's chopsticks,
  the card its spoon brings), whatever becomes of them later -- a menu or takeout box
  that leaves or turns over after acting, chopsticks going back to the hand, a
  special order that becomes a copy, uramaki or miso soup discarded all count as
  taken. Player seats only: a dummy's cards are nobody's choice.
* **Turn taken**: the turn of the pick or of the effect that placed the card; turn 1
  is the first turn of a round (every card of a pick with chopsticks is taken on
  that turn).
* **Points a card brings** are what scored: each scoring rule's points of a seat are
  shared among the cards that rule reads (its ``reads``; all cards when it reads any)
  on that seat's table when the rule scored (the kept cards for a game-end rule), in
  proportion to their count times their weight -- a card that left the table before
  the scoring brings nothing, a copy counts as the card it became, and for a race
  (uramaki) the cards that left the table for its places count as on it. A
  card's weight for a rule is what one such card alone is worth to it, the rule's
  weights divided by their greatest common divisor, when that is a positive whole
  number of at most :data:`MAX_WEIGHT` for every card the rule reads; else 1. What
  a card alone is worth: for a rule that ranks seats by a quantity of the seat's own
  cards (a majority such as maki rolls) or looks one up in a table of points (fruit),
  what the card adds to that quantity (its icons, its fruit); for a rule that scores
  each seat's own cards alone and not by turns, what a table of that one card scores
  (a nigiri's value); for an expression of the seat's own cards, what it gives one
  card alone, if that is in the same proportions in every round and at every table
  size (``2 * count(plum) + 5 * count(fig)``: 2 and 5). So a rule that scores each
  card its value gives each card exactly its points. A rule that reads one card gives
  it all its points. A rule that
  names the cards its points belong to (``credited``: a boost's cards) shares them
  among those instead, weight 1 each. Points scored
  with none of those cards on the table (pudding's or temaki's penalty for having
  none) and a dummy seat's points belong to no card: they are reported per rule as
  ``unattributed``. So for every rule, the points it brought its cards plus its
  unattributed points are exactly its points over all seats.
  The shares are kept as exact fractions (an integer numerator per card and
  denominator), so they merge exactly too; numpy sums them in float64 only while no
  sum can reach 2**53, where every integer is exact, and in Python integers beyond.
* **Quantiles** of scores and margins are exact, from integer histograms: the q
  quantile is the smallest value whose cumulative count reaches q of the games
  (the inverse of the empirical distribution function).
* **Margin of victory**: the best player total minus the second best (0 when they tie),
  before any tie-break.
* **The game is the unit** of every mean and interval: the seats of one game are not
  independent (their points come from one deal, one of them wins), so a per-rule
  figure's interval is the t interval over the games of each game's points over its
  seats (a rule that sums to a constant in every game has an interval of no width),
  and the per-card win figures' intervals come from per-game sums (the delta method).

The JSON shape (``figures(...)``; ``simulate --json`` prints it as ``"figures"``)
-------------------------------------------------------------------------------

A contract for the tools built on it (``compare``, ``sweep``, reports); fields are
only ever added. Every interval is 95% and given as ``[low, high]``.

.. code-block:: text

    {
      "confidence": 0.95,
      "games": N,
      "seats": [                      # every seat, players first, then dummy seats
        {"seat": 0, "bot": "greedy", "can_win": true,
         "wins": 512.5,               # shared wins counted 1/k
         "win_share": 0.5125, "win_share_interval": [lo, hi],      # Wilson
         "mean": 41.2, "mean_interval": [lo, hi], "stdev": 9.8,    # Student's t
         "min": 12, "max": 80,
         "quantiles": {"5": 27, "25": 35, "50": 41, "75": 48, "95": 58},
         "histogram": {"41": 37, ...}}                             # score -> games
      ],
      "seats_equal": {"statistic": 1.9, "df": 1, "p_value": 0.17}, # chi-square, seats that can win
      "margin": {"mean": 6.1, "quantiles": {...}, "histogram": {"0": 40, ...}},
      "ties": {"top_score_tied": 0.04, "shared_win": 0.01, "no_winner": 0.0},  # rates per game
      "rules": [
        {"rule": "maki", "mean": 3.1, "interval": [lo, hi],   # per seat and game, all seats pooled;
                                      # t interval over the games (each game's points over its seats / seats)
         "share_of_points": 0.08, "unattributed": 0.0,        # per game, all seats
         "per_seat": [{"mean": 3.2, "interval": [lo, hi]}, ...]}
      ],
      "cards": [                      # null when the per-card figures were left out (--no-cards)
        {"card": "tempura",
         "taken_per_game": 2.9,             # copies taken, all player seats together
         "taken_per_seat": [1.5, 1.4],      # per game, per player seat
         "mean_turn": 4.2,                  # null if never picked
         "points_per_game": 6.1,            # points it brings, all player seats, per game
         "points_per_card": 2.1,            # per copy taken (null if never taken)
         "by_count": [{"count": 0, "seats": 700, "win_rate": 0.41, "interval": [lo, hi]}, ...],
                                            # player seat-games that took 0, 1, 2, ... copies; Wilson
                                            # at the seat-games over the design effect (the game the unit)
         "takers": {"seats": 1300, "win_rate": 0.55},     # win_rate null where seats is 0
         "non_takers": {"seats": 700, "win_rate": 0.41},
         "difference": 0.14, "difference_interval": [lo, hi],   # null where either side has no seats
             # the game as the unit (takers_minus_others): Newcombe's interval from each
             # rate's Wilson interval at its effective seat-games, with their correlation
         "adjusted": {"difference": -0.06, "interval": [lo, hi], "variance": v},
             # the same within each seat (a seat is one bot), pooled by Mantel-Haenszel
             # with Sato's variance (Wald); null when no seat has both takers and others
         "per_copy": 0.05, "per_copy_interval": [lo, hi]}
             # the win rate per copy taken: the least-squares slope of a player seat-game's
             # win on its copies taken; the game as the unit (delta method, Wald); null
             # when every seat-game took as many copies
      ]
    }
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from fractions import Fraction
from operator import add
from typing import TYPE_CHECKING, Any

import attrs

from ruledraft.lab.statistics import (
    Moments,
    chi_square_uniform,
    delta_variance,
    delta_wald,
    mean_interval,
    mover,
    wilson,
)
from ruledraft.language.kinds.expression import Expression
from ruledraft.language.quantity import Quantity
from ruledraft.play.runner import register_collector
from ruledraft.tableau import Tableau

if TYPE_CHECKING:
    from ruledraft.lab.columns import Column

#: the fewest seat-games of a card's takers, and of the seats without it, for its
#: win-rate difference to be ranked (``sweep``) or tuned (``tune``): with fewer, one
#: or two seats decide the figure (a card every seat takes has almost none to compare)
FEWEST_COMPARED = 30

CONFIDENCE = 0.95
QUANTILES = (5, 25, 50, 75, 95)

#: games buffered before their counts are folded into the sums (bounds memory)
_FOLD_EVERY = 1024

#: a kernel's block of at least this many games is folded as it comes, where the fold is compiled
_FOLD_ALONE = 256

#: a tally with at most this many games buffered travels (pickles) as is: one game's
#: result stays cheap to send; a chunk's tally is folded first and sends only sums
_SEND_RAW = 16


#: what each game counts per card for the win figures with the game as the unit
#: (:func:`card_parts`; wins in the tally's unit, player seats only)
CARD_PARTS = ("takers", "taker_wins", "copies", "copies_squared", "copies_times_wins", "wins")


def card_parts(np: Any, held: Any, wins: Any) -> Any:
    """Per game and card, its :data:`CARD_PARTS`: the player seats that took the card,
    their wins, the copies taken, the sum over seats of copies squared and of copies
    times wins, and the wins of all player seats; from ``held`` (games, seats, cards:
    copies taken) and ``wins`` (games, seats). An array (games, cards, parts)."""
    took = held > 0
    w = wins[:, :, None]
    G, K = held.shape[0], held.shape[2]
    return np.stack(
        [
            took.sum(axis=1),
            (took * w).sum(axis=1),
            held.sum(axis=1),
            (held * held).sum(axis=1),
            (held * w).sum(axis=1),
            np.broadcast_to(wins.sum(axis=1)[:, None], (G, K)),
        ],
        axis=-1,
    ).astype(np.int64 if wins.dtype != object else object)


def seat_parts(np: Any, held: Any, wins: Any) -> Any:
    """Per game and card, for each player seat: whether it took the card, its win if it
    did, its win (in that order, seat by seat within each): an array (games, cards, 3 *
    seats), after the :data:`CARD_PARTS` in each game's values (:meth:`LabTally.card_columns`)."""
    took = (held > 0).astype(np.int64)
    w = np.broadcast_to(wins[:, :, None], held.shape)
    return np.concatenate([took, took * w, w], axis=1).transpose(0, 2, 1)


def seat_adjusted(means: Sequence[Fraction], players: int, unit: int) -> tuple[Fraction, list[Fraction]] | None:
    """The Mantel-Haenszel difference over the seats (each seat a stratum of one seat-game
    per game) as a function of the means of the games' :func:`seat_parts` (t, u, v per
    seat): sum(u - v t) / (unit sum(t (1 - t))), and its gradient; None when no seat has
    both takers and others."""
    P = players
    t, u, v = means[:P], means[P : 2 * P], means[2 * P : 3 * P]
    den = sum((x * (1 - x) for x in t), Fraction(0))
    if den == 0:
        return None
    num = sum((a - b * x for x, a, b in zip(t, u, v)), Fraction(0))
    value = num / (unit * den)
    d_t = [(-b * den - num * (1 - 2 * x)) / (unit * den * den) for x, b in zip(t, v)]
    d_u = [1 / (unit * den)] * P
    d_v = [-x / (unit * den) for x in t]
    return value, d_t + d_u + d_v


def versus_none(means: Sequence[Fraction], players: int, unit: int) -> tuple[Fraction, list[Fraction]] | None:
    """The win rate of the seat-games that took the card minus that of those that took
    none, as a function of the means of the games' :data:`CARD_PARTS`, and its gradient
    (None when every seat-game, or none, took it)."""
    T, W, _, _, _, Wp = means
    N = players - T
    if T == 0 or N == 0:
        return None
    rest = Wp - W
    value = W / (unit * T) - rest / (unit * N)
    zero = Fraction(0)
    grad = [
        -W / (unit * T * T) - rest / (unit * N * N),
        1 / (unit * T) + 1 / (unit * N),
        zero,
        zero,
        zero,
        -1 / (unit * N),
    ]
    return value, grad


def per_copy(means: Sequence[Fraction], players: int, unit: int) -> tuple[Fraction, list[Fraction]] | None:
    """The slope of a seat-game's win on the copies of the card it took (least squares
    over the seat-games), as a function of the means of the games' :data:`CARD_PARTS`,
    and its gradient (None when every seat-game took as many copies)."""
    _, _, K1, K2, KW, Wp = means
    P, u = players, unit
    num = KW / (u * P) - K1 * Wp / (u * P * P)
    den = K2 / Fraction(P) - K1 * K1 / Fraction(P * P)
    if den == 0:
        return None
    slope = num / den
    d_num = [Fraction(0), Fraction(0), -Wp / (u * P * P), Fraction(0), Fraction(1, u * P), -K1 / (u * P * P)]
    d_den = [Fraction(0), Fraction(0), -2 * K1 / (P * P), Fraction(1, P), Fraction(0), Fraction(0)]
    return slope, [(a - slope * b) / den for a, b in zip(d_num, d_den)]


def takers_minus_others(
    moments: Moments, players: int, unit: int, confidence: float = 0.95
) -> tuple[float, float, float]:
    """The win rate of the seat-games that took the card minus that of the others, and
    its interval, the game as the unit: each rate's Wilson interval at its effective
    number of seat-games (the plain count over the design effect: the delta method's
    variance of the rate over the games against the binomial one), combined as Newcombe
    does, with the two rates' correlation over the games (they move against each other:
    one seat of a game wins). Either side empty: (0, -1, 1)."""
    T, W, _, _, _, Wp = moments.means()
    N = players - T
    if T == 0 or N == 0:
        return (0.0, -1.0, 1.0)
    G = moments.n
    p1, p0 = W / (unit * T), (Wp - W) / (unit * N)
    zero = Fraction(0)
    g1 = [-W / (unit * T * T), 1 / (unit * T), zero, zero, zero, zero]
    g0 = [(Wp - W) / (unit * N * N), -1 / (unit * N), zero, zero, zero, 1 / (unit * N)]
    v1, v0 = delta_variance(g1, moments), delta_variance(g0, moments)
    both = [a + b for a, b in zip(g1, g0)]
    covariance = (delta_variance(both, moments) - v1 - v0) / 2
    i1 = _effective_wilson(p1, v1, G * T, confidence)
    i0 = _effective_wilson(p0, v0, G * N, confidence)
    corr = float(covariance) / math.sqrt(float(v1 * v0)) if v1 > 0 and v0 > 0 else 0.0
    return mover(float(p1), i1, float(p0), i0, max(-1.0, min(1.0, corr)))


def adjusted_effect(lab: LabTally, card: int, confidence: float = CONFIDENCE) -> dict | None:
    """The takers-minus-others win rate within each stratum of seat and bot, pooled by
    Mantel and Haenszel, with Sato's variance: ``{"difference", "interval", "variance"}``
    (Wald), or None when no stratum has both takers and others. The variance is that of
    the counts with one win and one loss more on each side (Agresti and Caffo's
    adjustment): two seat-games that did not take a card, both lost, would otherwise
    have a variance of 0 and give a confident interval."""
    from ruledraft.lab.statistics import mantel_haenszel, wald

    strata = lab.card_strata(card)
    found = mantel_haenszel(strata)
    adjusted = mantel_haenszel(strata, add=1.0)
    if found is None or adjusted is None:
        return None
    rd, var = found[0], adjusted[1]
    d, lo, hi, _ = wald(rd, var, confidence)
    # a difference of two win rates lies within -1..1, and so does its interval (a Wald
    # interval of a few games can pass the bounds, as mover's intervals never do)
    return {"difference": d, "interval": [max(-1.0, lo), min(1.0, hi)], "variance": var}


def _effective_wilson(
    rate: Fraction, variance: Fraction | float, seats: Fraction, confidence: float
) -> tuple[float, float]:
    """Wilson's interval of ``rate`` at the effective count rate (1 - rate) / variance
    (at the plain count of ``seats`` when the variance is 0 or the rate 0 or 1)."""
    if variance > 0 and 0 < rate < 1:
        effective = float(rate * (1 - rate) / variance)
        return wilson(float(rate) * effective, effective, confidence)
    return wilson(float(rate * seats), float(seats), confidence)


#: the largest weight a card takes for a rule, its weights divided by their greatest
#: common divisor: past it the rule's cards share by count (the exact shares'
#: denominators, and the folds' histograms, grow with the weights)
MAX_WEIGHT = 12


def _rule_weights(rule: Any, num_card_types: int) -> dict[int, int]:
    """Card index -> weight of the cards ``rule`` shares its points among (see the module docstring)."""
    credited = getattr(rule, "credited", None)  # optional, outside the Rule protocol (a boost's cards)
    if credited is not None:
        return dict.fromkeys(sorted(credited), 1)
    reads = range(num_card_types) if rule.reads is None else sorted(rule.reads)
    weights = dict.fromkeys(reads, 1)
    if len(weights) < 2:
        return weights
    try:  # a rule's own code (a plug-in's) may refuse a table of one card: then by count
        alone = _worth_alone(rule, list(reads), num_card_types)
    except Exception:  # noqa: BLE001
        return weights
    if alone is None or max(alone.values()) > MAX_WEIGHT:
        return weights
    return alone


def _worth_alone(rule: Any, reads: list[int], num_card_types: int) -> dict[int, int] | None:
    """What one card alone is worth to ``rule``, card by card, divided by the values'
    greatest common divisor; None unless it is a positive whole number for every card
    (and, for an expression, the same in proportion in every round and at every table size)."""
    ranked = rule.ranks_by
    looked_up = getattr(rule, "quantity", None) if hasattr(rule, "points") else None  # a table's quantity
    q = ranked if ranked is not None else looked_up if isinstance(looked_up, Quantity) else None
    if q is not None:  # a majority's ranking, a table's look-up: what the card adds to the quantity
        if not (q.pure and q.reads is not None and set(q.reads) == set(reads)):
            return None
        return _reduced({c: q.fn(Tableau([_one(c, num_card_types)], [[c]]), 0) for c in reads})
    if rule.turn_scoring is not None:
        return None
    if rule.own_cards_only:  # what a table of that one card scores
        empty = rule.score_row([0] * num_card_types, [])
        return _reduced({c: rule.score_row(_one(c, num_card_types), [c]) - empty for c in reads})
    if not _reads_own_cards(rule):
        return None
    found = None
    for seats, round_ in ((1, 1), (2, 2), (5, 3)):  # an expression may read the round or the players
        worth = _reduced({c: _expression_alone(rule, c, num_card_types, seats, round_) for c in reads})
        if worth is None or (found is not None and worth != found):
            return None
        found = worth
    return found


def _expression_alone(rule: Any, card: int, num_card_types: int, seats: int, round_: int) -> int:
    """An expression rule's points for a seat holding one ``card`` over an empty table,
    at a table of ``seats`` in round ``round_``."""
    counts = [_one(card, num_card_types)] + [[0] * num_card_types for _ in range(seats - 1)]
    cards = [[card]] + [[] for _ in range(seats - 1)]
    empty = [[0] * num_card_types for _ in range(seats)]
    alone = rule.score_seat(Tableau(counts, cards, round=round_), 0)
    return alone - rule.score_seat(Tableau(empty, [[] for _ in range(seats)], round=round_), 0)


def _reduced(worth: dict[int, Any]) -> dict[int, int] | None:
    """``worth`` divided by its greatest common divisor; None unless every value is a positive whole number."""
    if not all(isinstance(v, int) and v > 0 for v in worth.values()):
        return None
    divisor = math.gcd(*worth.values())
    return {c: v // divisor for c, v in worth.items()}


def _reads_own_cards(rule: Any) -> bool:
    """Whether ``rule`` scores a seat by an expression of its own cards (and perhaps the
    round or the number of players)."""
    return isinstance(rule, Expression) and rule.quantity.is_local


def _one(card: int, num_card_types: int) -> list[int]:
    """The counts of a table holding one copy of ``card``."""
    counts = [0] * num_card_types
    counts[card] = 1
    return counts


@attrs.frozen
class RuleShare:
    """How one scoring rule shares its points among the cards it reads."""

    #: the rule's id and its position in the tally's rule order (round-end rules, then game-end rules)
    id: str
    position: int
    #: False: scored at round end; True: at game end (on the kept cards)
    game_end: bool
    #: (card, weight) of every card it reads, by card
    weights: tuple[tuple[int, int], ...]
    #: whether it scores during the round (a race): the cards that left a table for its
    #: places count as on that table for it
    race: bool = False

    @property
    def cards(self) -> list[int]:
        return [c for c, _ in self.weights]


class _Games:
    """Games counted but not yet folded (:meth:`LabTally.flush`), all alike (the same
    turns per round), as flat lists of integers: per game, its totals and each seat's wins (in the
    tally's ``unit``); each scoring's points, rule by rule, seat by seat (the rounds',
    then game end's); for the per-card figures, every turn's actions seat by seat, each
    player seat's count of every card at each scoring (its table at each round end,
    then its kept cards), what card effects placed (game, turn, seat, card: four
    numbers each) and what races took from tables (game, round, seat, card, the race
    rule's position: five numbers each). Games counted in bulk (a kernel's) come as
    ``blocks`` of arrays, one row a game, kept in the order the games came."""

    __slots__ = ("turns", "games", "totals", "wins", "points", "actions", "counts", "placed", "left", "blocks")
    ROWS = ("totals", "wins", "points", "actions", "counts")

    def __init__(self, turns: tuple[int, ...]):
        self.turns = turns
        self.games = 0
        self.totals: list[int] = []
        self.wins: list[int] = []
        self.points: list[int] = []
        self.actions: list[int] = []
        self.counts: list[int] = []
        self.placed: list[int] = []
        self.left: list[int] = []
        #: games counted in bulk: (games, {name in ROWS: an array, one row a game})
        self.blocks: list[tuple[int, dict[str, Any]]] = []

    def _listed_to_block(self) -> None:
        """The games held as lists made a block, so that blocks after them keep the order."""
        done = sum(g for g, _ in self.blocks)
        if self.games > done:
            import numpy as np

            rows = {k: np.array(getattr(self, k), dtype=np.int64).reshape(self.games - done, -1) for k in self.ROWS}
            self.blocks.append((self.games - done, rows))
            for k in self.ROWS:
                setattr(self, k, [])

    def add_block(self, games: int, rows: dict[str, Any]) -> None:
        """Add ``games`` games given as arrays (``rows[name]``: one row a game, for each of ROWS)."""
        self._listed_to_block()
        self.blocks.append((games, rows))
        self.games += games

    def array(self, np: Any, name: str, width: int) -> Any:
        """Every game's numbers of ``name`` (one of ROWS), in order, as rows of ``width``."""
        parts = [rows[name].reshape(-1, width) for _, rows in self.blocks]
        listed = getattr(self, name)
        if listed or not parts:
            parts.append(np.array(listed, dtype=np.int64).reshape(-1, width))
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def extend(self, other: _Games) -> None:
        """Add the games of ``other`` after these."""
        g = self.games
        if other.blocks:
            self._listed_to_block()
            self.blocks.extend(other.blocks)
        self.games += other.games
        for name in ("totals", "wins", "points", "actions", "counts"):
            getattr(self, name).extend(getattr(other, name))
        for mine, theirs, width in ((self.placed, other.placed, 4), (self.left, other.left, 5)):
            for i in range(0, len(theirs), width):
                mine.extend((theirs[i] + g, *theirs[i + 1 : i + width]))

    def __getstate__(self) -> tuple:
        return tuple(getattr(self, k) for k in self.__slots__)

    def __setstate__(self, state: tuple) -> None:
        for k, v in zip(self.__slots__, state):
            setattr(self, k, v)


class _BlockSums:
    """The sums of kernel blocks folded by :func:`ruledraft.kernel.fold.lab_block`, added
    together as its arrays until the tally's next flush turns them into its own (Python
    integers): a block costs a few array additions, not a pass over its numbers in
    Python. Blocks are added while the bounds lab_block gives for their sums stay below
    2**62 together, so no sum passes what an int64 holds."""

    __slots__ = ("arrays", "low", "bound", "games")

    def __init__(self, out: tuple, games: int) -> None:
        self.arrays = list(out)  # lab_block's: its scalars (those added: 2 to 4), then the sums
        self.games = games
        self.low = int(out[0][1])  # the total that the histograms' first column counts
        self.bound = int(out[0][5])

    def has_room(self, bound: int) -> bool:
        """Whether a block whose sums reach at most ``bound`` can be added."""
        return self.bound + bound < 2**62

    def columns_with(self, low: int, columns: int) -> int:
        """The histograms' columns once a block's, ``columns`` from the total ``low``, are added."""
        return max(self.low + self.arrays[1].shape[1], low + columns) - min(self.low, low)

    def add(self, out: tuple, games: int) -> None:
        """Add a block's sums (lab_block's arrays) of ``games`` games."""
        import numpy as np

        arrays = self.arrays
        self.games += games
        self.bound += int(out[0][5])
        arrays[0][2:5] += out[0][2:5]  # games with the top two tied, shared wins, no winner
        hist, low = out[1], int(out[0][1])
        mine = arrays[1]
        first, last = min(self.low, low), max(self.low + mine.shape[1], low + hist.shape[1])
        if first != self.low or last != self.low + mine.shape[1]:  # a total outside the columns so far
            grown = np.zeros((mine.shape[0], last - first), np.int64)
            grown[:, self.low - first : self.low - first + mine.shape[1]] = mine
            arrays[1] = mine = grown
            self.low = first
        mine[:, low - self.low : low - self.low + hist.shape[1]] += hist
        margins = out[2]
        if len(margins) > len(arrays[2]):
            margins = margins.copy()
            margins[: len(arrays[2])] += arrays[2]
            arrays[2] = margins
        else:
            arrays[2][: len(margins)] += margins
        for i in range(3, len(arrays)):
            arrays[i] += out[i]


class _GameValues:
    """Each game's own per-card values, gathered while a fold shares them out
    (:meth:`LabTally.card_columns`): the copies taken (games, cards), per card its
    points as numerators by denominator (each an array over the games), and per card
    the game's :data:`CARD_PARTS`, then its seat parts (games, cards, parts)."""

    def __init__(self, games: int):
        self.games = games
        self.taken: Any = None
        self.points: dict[int, dict[int, Any]] = {}
        self.parts: Any = None


@attrs.frozen
class CardColumns:
    """Per-card values of each game of a batch (:meth:`LabTally.card_columns`): the
    copies its player seats took (games, cards), the points each card brought them (a
    :class:`~ruledraft.lab.columns.Column` per card) and per card the game's
    :data:`CARD_PARTS`, then its seat parts (games, cards, parts: :func:`seat_parts`)."""

    taken: Any
    points: list[Column]
    parts: Any


class LabTally:
    """Mergeable statistics for the lab's figures (see the module docstring).

    Counting a game only copies its numbers into flat lists (a few ``list.extend``
    calls); every thousand games or so, and before figures are read, :meth:`flush`
    folds them into the sums with numpy, all games at once. The sums are Python
    integers and exact fractions, so tallies merged in any grouping and order agree
    exactly.
    """

    def __init__(
        self,
        num_seats: int,
        players: int,
        num_card_types: int,
        rule_ids: Sequence[str],
        own_span: int,
        max_extra: int,
        shares: Sequence[RuleShare],
        card_ids: Sequence[str],
        can_win: Sequence[bool],
        cards: bool = True,
    ):
        n, P, K = num_seats, players, num_card_types
        #: whether the per-card figures are counted
        self.cards = cards
        self.card_ids = tuple(card_ids)
        #: per seat: whether it can win (players; dummy seats when the ruleset lets them)
        self.can_win = tuple(can_win)
        #: how actions encode a player's cards (``Game.own_span``, ``Game.max_extra``)
        self.own_span = own_span
        self.max_extra = max_extra
        #: how each rule shares its points among cards, in scoring order
        self.shares = tuple(shares)
        self.num_seats = n
        self.players = P
        self.num_card_types = K
        self.rule_ids = tuple(rule_ids)
        #: the win unit: a win shared by k seats counts unit // k (as the runner's Tally)
        self.unit = math.lcm(*range(1, n + 1))
        self.games = 0
        #: per seat: total score -> games
        self.scores: list[dict[int, int]] = [{} for _ in range(n)]
        #: best player total minus the second best -> games
        self.margins: dict[int, int] = {}
        self.top_tied = 0
        self.shared_wins = 0
        self.no_winner = 0
        #: per seat: its wins (in ``unit``)
        self.wins = [0] * n
        #: per rule (in ``shares`` order), per seat (flat, rule * seats + seat): the sum
        #: over games of the game's points, and of their squares
        self.rule_sum = [0] * (len(self.shares) * n)
        self.rule_sq = [0] * (len(self.shares) * n)
        #: per rule: the sum over games of the square of the game's points over all seats
        #: (the game as the unit: :func:`figures`' per-rule interval)
        self.rule_game_sq = [0] * len(self.shares)
        #: (card, k) -> sums over games of m*m, w*w and m*w, where m is the game's player
        #: seats that took k copies of the card and w their wins (in ``unit``)
        self.by_count_moments: dict[tuple[int, int], tuple[int, int, int]] = {}
        #: per player seat, per card (flat, seat * K + card): copies taken over the games
        self.taken = [0] * (P * K)
        #: per card: copies taken, and the sum of the (1-based) turns they were taken on
        self.picks = [0] * K
        self.pick_turns = [0] * K
        #: (card, k) -> player seat-games that took k copies of the card over a game,
        #: and their wins (in ``unit``)
        self.by_count: dict[tuple[int, int], int] = {}
        self.by_count_wins: dict[tuple[int, int], int] = {}
        #: per rule: the points player seats scored with none of the cards it reads
        self.none_points = [0] * len(self.shares)
        #: per card, the sums over games of its :data:`CARD_PARTS` (flat, card * parts +
        #: part) and of their products two by two (card * parts**2 + i * parts + j):
        #: the per-card win figures with the game as the unit (:meth:`card_moments`)
        #: per player seat, per card (flat, seat * K + card): the games it took the card,
        #: and its wins in them (in ``unit``): the strata of the adjusted card effects
        self.seat_takers = [0] * (P * K)
        self.seat_taker_wins = [0] * (P * K)
        #: (player seat, its bot) -> [games, wins (in ``unit``), then per card the games it
        #: took the card, then per card its wins in them]: the strata when the line-up was
        #: rotated through the seats (:meth:`label_bots`); None while each seat keeps one bot
        self.bot_strata: dict[tuple[int, str], list[int]] | None = None
        self.card_total = [0] * (K * len(CARD_PARTS)) if cards else []
        self.card_products = [0] * (K * len(CARD_PARTS) ** 2) if cards else []
        #: (rule position, card, denominator) -> numerator: the points each card brought
        #: through each rule, as exact fractions
        self.shared: dict[tuple[int, int, int], int] = {}
        #: games counted but not folded yet, by their turns per round
        self.pending: dict[tuple[int, ...], _Games] = {}
        self._setup()

    def _setup(self) -> None:
        """What is derived from the table (not pickled)."""
        self._win_rows: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._buffered = sum(g.games for g in self.pending.values())
        self._round_rules = sum(1 for sh in self.shares if not sh.game_end)
        self._tables: list[Any] | None = None
        self._race_positions = {sh.id: sh.position for sh in self.shares if sh.race}
        #: the rules sharing points among cards as arrays, and the slot tables, for
        #: :meth:`_fold_kernel_block` (made at its first block)
        self._block_shares: tuple | None = None
        #: the sums of the kernel blocks folded since the last flush, as arrays (see _BlockSums)
        self._block_sums: _BlockSums | None = None

    @classmethod
    def for_game(cls, game: Any, cards: bool = True) -> LabTally:
        """An empty tally for games of ``game`` (an engine ``Game``); ``cards``: count
        the per-card figures too."""
        K = game.num_card_types
        rs = game.ruleset
        dummy = rs.dummy
        shares = [
            RuleShare(rule.id, j, False, tuple(_rule_weights(rule, K).items()), rule.turn_scoring is not None)
            for j, rule in enumerate(rs.round_rules)
        ]
        shares += [
            RuleShare(rule.id, len(shares) + j, True, tuple(_rule_weights(rule, K).items()))
            for j, rule in enumerate(rs.game_rules)
        ]
        return cls(
            game.num_seats,
            game.num_players,
            K,
            rs.rule_ids,
            game.own_span,
            game.max_extra,
            shares,
            rs.catalogue.ids,
            [s < game.num_players or bool(dummy and dummy.can_win) for s in range(game.num_seats)],
            cards,
        )

    def empty_copy(self) -> LabTally:
        """An empty tally for the same table."""
        return LabTally(
            self.num_seats,
            self.players,
            self.num_card_types,
            self.rule_ids,
            self.own_span,
            self.max_extra,
            self.shares,
            self.card_ids,
            self.can_win,
            self.cards,
        )

    @property
    def rule_order(self) -> tuple[str, ...]:
        """The rule ids in scoring order (round-end rules, then game-end rules)."""
        return tuple(sh.id for sh in self.shares)

    # ------------------------------------------------------------------ counting

    def add_state(self, state: Any, totals: Sequence[int] | None = None) -> None:
        """Count one finished game from its engine state (``totals``: its totals, when known)."""
        self.add_game(
            state.history,
            state.scorings,
            state.kept_counts,
            state.totals() if totals is None else totals,
            state.winners,
            state.events,
        )

    def add_game(
        self,
        history: Sequence[Any],
        scorings: Sequence[Any],
        kept_counts: Sequence[Sequence[int]],
        totals: Sequence[int],
        winners: Sequence[int],
        events: Sequence[Any] = (),
    ) -> None:
        """Count one finished game: its rounds (``State.history``), its scorings (the
        rounds', then game end's), each seat's count of every card kept to game end,
        its totals, its winners and what card effects did (``State.events``)."""
        # games are buffered by their turns per round (only their number matters without cards)
        turns = tuple([len(rec.actions) for rec in history]) if self.cards else (0,) * len(history)
        games = self.pending.get(turns)
        if games is None:
            games = self.pending[turns] = _Games(turns)
        games.games += 1
        # flat lists of numbers only: rows kept as rows would be objects the garbage
        # collector visits again and again until the fold
        games.totals += totals
        won = self._win_rows.get(tuple(winners))
        if won is None:
            won = self._win_row(winners)
        games.wins += won
        points = games.points
        for sc in scorings:
            for row in sc.points:
                points += row
        if self.cards:
            actions, counts = games.actions, games.counts
            P = self.players
            for rec in history:
                for row in rec.actions:
                    actions += row
                for row in rec.counts[:P]:
                    counts += row
            for row in kept_counts[:P]:
                counts += row
            if events:
                self._note_events(games, events)
        self._buffered += 1
        if self._buffered >= _FOLD_EVERY:
            self.flush()

    def _win_row(self, winners: Sequence[int]) -> tuple[int, ...]:
        row = [0] * self.num_seats
        for w in winners:
            row[w] = self.unit // len(winners)
        out = self._win_rows[tuple(winners)] = tuple(row)
        return out

    def add_kernel_games(self, games: Any, each: bool = False) -> None:
        """Count games a compiled kernel played (:class:`ruledraft.kernel.KernelGames`),
        all at once: the numbers :meth:`add_game` copies, as its arrays (what card effects
        placed by a seat's own choice from ``games.placements``; a race's cards taken off
        the tables from ``games.raced``). ``each``: kept unfolded until :meth:`card_columns`
        reads each game's values (however many games are held)."""
        G = len(games)
        if not G:
            return
        if G >= _FOLD_ALONE and not each:
            fold = _compiled_fold()
            if fold is not None and self._fold_kernel_block(fold, games):
                return
        import numpy as np

        rounds, turns = games.moves.shape[1], games.moves.shape[2]
        key = (turns,) * rounds if self.cards else (0,) * rounds
        pending = self.pending.get(key)
        if pending is None:
            pending = self.pending[key] = _Games(key)
        k = games.winners.sum(axis=1, keepdims=True)
        rows = {
            "totals": games.totals,
            "wins": np.where(games.winners > 0, self.unit // np.maximum(k, 1), 0),
            "points": games.scoring_points(),
            "actions": games.moves.reshape(G, -1) if self.cards else np.zeros((G, 0), np.int64),
            "counts": games.tables[:, :, : self.players].reshape(G, -1) if self.cards else np.zeros((G, 0), np.int64),
        }
        if self.cards and getattr(games, "placements", None) is not None:  # placed through card effects
            at = pending.games
            for g, row in zip(*np.nonzero(games.placements[:, :, 0] >= 0)):
                pending.placed.extend((at + int(g), *(int(x) for x in games.placements[g, row])))
        # kept until the fold: a view of the games' arrays is copied (a run's next block of
        # games is written over this one's, kernel.Room), an array made here is kept as it is
        pending.add_block(G, {k: v if v.base is None else v.copy() for k, v in rows.items()})
        raced = getattr(games, "raced", None)
        if self.cards and raced is not None and raced.size:  # what races took off the tables
            races = [sh.position for sh in self.shares if sh.race]
            g, r, j, s, c = np.nonzero(raced[:, :, :, : self.players])
            for entry in zip(g + (pending.games - G), r, s, c, j, raced[g, r, j, s, c]):
                pending.left.extend([*map(int, entry[:4]), races[entry[4]]] * int(entry[5]))
        self._buffered += G
        if each:
            return
        if self._buffered >= _FOLD_EVERY or (G >= _FOLD_ALONE and _compiled_fold() is not None):
            self.flush()  # a block folded alone (compiled) is not copied into a larger one first

    def _fold_kernel_block(self, fold: Any, games: Any) -> bool:
        """Fold a block of kernel games at once by :func:`ruledraft.kernel.fold.lab_block`
        (no dummy, nothing placed by effects or taken by races): the sums :meth:`_fold`
        adds, without the block's rows copied into the buffer first, kept as arrays
        (:class:`_BlockSums`, games and all) until the next flush adds them to the tally's. False, having
        added nothing, where it cannot (the block is then buffered and folded as before)."""
        import numpy as np

        if self.num_seats != self.players:
            return False
        placements, raced = getattr(games, "placements", None), getattr(games, "raced", None)
        if self.cards and placements is not None and bool((placements[:, :, 0] >= 0).any()):
            return False
        if self.cards and raced is not None and raced.size and bool(raced.any()):
            return False
        if self._block_shares is None:
            shares = [sh for sh in self.shares if sh.weights] if self.cards else []
            positions = np.array([sh.position for sh in shares], np.int64)
            ends = np.array([sh.game_end for sh in shares], np.bool_)
            first = np.cumsum([0] + [len(sh.weights) for sh in shares], dtype=np.int64)
            cards = np.array([c for sh in shares for c, _ in sh.weights], np.int64)
            weights = np.array([w for sh in shares for _, w in sh.weights], np.int64)
            slots = np.ascontiguousarray(np.stack(self._slot_tables(np)), dtype=np.int64)
            self._block_shares = (shares, slots, positions, ends, first, cards, weights)
        shares, slots, positions, ends, first, cards, weights = self._block_shares
        from ruledraft.kernel.cache_files import mended

        out = mended(  # a cache file numba cannot read: compiled again
            lambda: fold.lab_block(
                games.totals,
                games.winners,
                games.round_points,
                games.rule_points,
                games.moves,
                games.tables,
                self.unit,
                self.cards,
                slots,
                positions,
                ends,
                first,
                cards,
                weights,
            )
        )
        scalars = out[0]
        if not scalars[0]:
            return False
        self._fold_pending(None)  # games buffered before come first (the blocks' sums wait)
        sums = self._block_sums
        if sums is not None and not (
            sums.has_room(int(scalars[5])) and sums.columns_with(int(scalars[1]), out[1].shape[1]) <= fold.HIST_COLUMNS
        ):
            self._add_block_sums()
            sums = None
        if sums is None:
            self._block_sums = _BlockSums(out, len(games))
        else:
            sums.add(out, len(games))
        return True

    def _add_block_sums(self) -> None:
        """Add the kernel blocks' sums, kept as arrays since the last flush, to the sums."""
        sums, self._block_sums = self._block_sums, None
        if sums is None:
            return
        import numpy as np

        out = sums.arrays
        self.games += sums.games
        self.top_tied += int(out[0][2])
        self.shared_wins += int(out[0][3])
        self.no_winner += int(out[0][4])
        hist, margins, wins, rule_sum, rule_sq, rule_game_sq = out[1:7]
        for s in range(self.num_seats):
            seen = np.flatnonzero(hist[s])
            _add_counts(self.scores[s], seen + sums.low, hist[s, seen])
        seen = np.flatnonzero(margins)
        _add_counts(self.margins, seen, margins[seen])
        self.wins = _add_list(self.wins, wins)
        self.rule_sum = _add_list(self.rule_sum, rule_sum.ravel())
        self.rule_sq = _add_list(self.rule_sq, rule_sq.ravel())
        self.rule_game_sq = _add_list(self.rule_game_sq, rule_game_sq)
        if not self.cards:
            return
        picks, pick_turns, taken, total, products, takers, taker_wins, seats, won, mm, ww, mw, none, some, shared = out[
            7:
        ]
        self.picks = _add_list(self.picks, picks)
        self.pick_turns = _add_list(self.pick_turns, pick_turns)
        self.taken = _add_list(self.taken, taken.ravel())
        self.card_total = _add_list(self.card_total, total.ravel())
        self.card_products = _add_list(self.card_products, products.ravel())
        self.seat_takers = _add_list(self.seat_takers, takers.ravel())
        self.seat_taker_wins = _add_list(self.seat_taker_wins, taker_wins.ravel())
        self._add_by_count(seats, won, mm, ww, mw)
        assert self._block_shares is not None  # made with the first block
        for i, sh in enumerate(self._block_shares[0]):
            self._add_shared(np, sh, none[i], some[i], shared[i, : len(sh.weights)])

    def _add_by_count(self, seats: Any, won: Any, mm: Any, ww: Any, mw: Any) -> None:
        """Add per card and copies (arrays of cards x copies) the seat-games, their wins
        and their sums of m*m, w*w and m*w to the sums."""
        top = seats.shape[1]
        at = seats.ravel().nonzero()[0]  # the (card, copies) that happened, in order
        keys = [divmod(k, top) for k in at.tolist()]
        seats, won, mm, ww, mw = (x.ravel()[at].tolist() for x in (seats, won, mm, ww, mw))
        by_count, by_count_wins, moments = self.by_count, self.by_count_wins, self.by_count_moments
        for where, m, w in zip(keys, seats, won):
            by_count[where] = by_count.get(where, 0) + m
            if w:
                by_count_wins[where] = by_count_wins.get(where, 0) + w
        for where, a, b, c in zip(keys, mm, ww, mw):
            old = moments.get(where, (0, 0, 0))
            moments[where] = (old[0] + a, old[1] + b, old[2] + c)

    def _add_shared(self, np: Any, sh: RuleShare, none: Any, some: Any, sums: Any) -> None:
        """Add one rule's points scored with none of its cards, and its cards' shares
        (``sums``: per card and denominator the numerators; a rule of one card: ``some``)."""
        self.none_points[sh.position] += int(none)
        if len(sh.weights) == 1:  # one card: it gets the points
            key = (sh.position, sh.weights[0][0], 1)
            self.shared[key] = self.shared.get(key, 0) + int(some)
            return
        rows, denominators = np.nonzero(sums)  # card by card, each by its denominators
        for i, d, x in zip(rows.tolist(), denominators.tolist(), sums[rows, denominators].tolist()):
            key = (sh.position, sh.weights[i][0], d)
            self.shared[key] = self.shared.get(key, 0) + x

    def _note_events(self, games: _Games, events: Sequence[Any]) -> None:
        """The cards an effect placed on a player's table from its own choice (played
        through an effect, brought by a spoon), and those a race took from a table."""
        P, g = self.players, games.games - 1
        for e in events:
            what = e.what
            kind = what[0]
            if kind == "played":
                if what[1] < P:
                    games.placed.extend((g, e.turn, what[1], what[2]))
            elif kind == "gave":
                if what[2] < P:
                    games.placed.extend((g, e.turn, what[2], what[3]))
            elif kind == "race" and what[2] < P:
                race = self._race_positions[what[1]]
                for c in what[5]:
                    games.left.extend((g, e.round, what[2], c, race))

    def merge(self, other: LabTally) -> None:
        """Add the counts of another tally (of other games at the same table)."""
        self._add_block_sums()
        other._add_block_sums()
        if self.cards != other.cards:  # the games buffered differ in what they hold
            self.flush()
            other.flush()
            self.cards = False
            self.card_total, self.card_products = [], []
        self.games += other.games
        for turns, buffered in other.pending.items():
            games = self.pending.get(turns)
            if games is None:
                games = self.pending[turns] = _Games(turns)
            games.extend(buffered)
            self._buffered += buffered.games
        for mine, theirs in zip(self.scores, other.scores):
            _add_into(mine, theirs)
        _add_into(self.margins, other.margins)
        self.top_tied += other.top_tied
        self.shared_wins += other.shared_wins
        self.no_winner += other.no_winner
        names = ["wins", "rule_sum", "rule_sq", "rule_game_sq", "taken", "picks", "pick_turns", "none_points"]
        names += ["seat_takers", "seat_taker_wins"]
        for name in names + (["card_total", "card_products"] if self.cards else []):
            setattr(self, name, list(map(add, getattr(self, name), getattr(other, name))))
        _add_into(self.by_count, other.by_count)
        _add_into(self.by_count_wins, other.by_count_wins)
        for key, sums in other.by_count_moments.items():
            ours = self.by_count_moments.get(key, (0, 0, 0))
            self.by_count_moments[key] = (ours[0] + sums[0], ours[1] + sums[1], ours[2] + sums[2])
        _add_into(self.shared, other.shared)
        if (self.bot_strata is None) != (other.bot_strata is None):
            raise ValueError("cannot merge a tally labelled with its seats' bots and one without (label_bots)")
        if self.bot_strata is not None and other.bot_strata is not None:
            for stratum, row in other.bot_strata.items():
                held = self.bot_strata.get(stratum)
                self.bot_strata[stratum] = list(row) if held is None else list(map(add, held, row))
        if self._buffered >= _FOLD_EVERY:
            self.flush()

    # ------------------------------------------------------------------ folding

    def flush(self) -> None:
        """Fold the games counted since the last flush into the sums."""
        self._add_block_sums()
        self._fold_pending(None)

    def _fold_pending(self, values: list[_GameValues] | None) -> None:
        """Fold every game counted since the last flush; with ``values``, gather each
        game's own per-card values too (:meth:`card_columns`), a batch per turns per round."""
        if not self.pending:
            return
        import numpy as np

        for games in self.pending.values():
            self.games += games.games
            per_game = _GameValues(games.games) if values is not None else None
            self._fold(np, games, per_game)
            if values is not None and per_game is not None:
                values.append(per_game)
        self.pending = {}
        self._buffered = 0

    def _fold(self, np: Any, games: _Games, per_game: _GameValues | None = None) -> None:
        G, n, P = games.games, self.num_seats, self.players
        totals = games.array(np, "totals", n)
        wins = games.array(np, "wins", n)
        for s in range(n):
            _add_counts(self.scores[s], *np.unique(totals[:, s], return_counts=True))
        if P >= 2:
            top = np.sort(totals[:, :P], axis=1)
            margin = top[:, -1] - top[:, -2]
            self.top_tied += int((margin == 0).sum())
        else:  # one player ties nobody
            margin = np.zeros(G, dtype=np.int64)
        _add_counts(self.margins, *np.unique(margin, return_counts=True))
        self.wins = _add_list(self.wins, wins.sum(axis=0))
        winners = (wins > 0).sum(axis=1)
        self.shared_wins += int((winners > 1).sum())
        self.no_winner += int((winners == 0).sum())
        # every rule's points per seat over each game, and squared
        rounds, R0 = len(games.turns), self._round_rules
        points = games.array(np, "points", n).reshape(G, -1)
        bound = int(np.abs(points).max(initial=0)) * (rounds + 1) * n
        if bound * bound * G >= 2**62:  # sums or squares past what int64 holds: Python integers
            points = points.astype(object)
        by_round = points[:, : rounds * R0 * n].reshape(G, rounds, R0, n)
        at_end = points[:, rounds * R0 * n :].reshape(G, -1, n)
        game = np.concatenate([by_round.sum(axis=1), at_end], axis=1)
        self.rule_sum = list(map(add, self.rule_sum, game.sum(axis=0).ravel().tolist()))
        self.rule_sq = list(map(add, self.rule_sq, (game * game).sum(axis=0).ravel().tolist()))
        every_seat = game.sum(axis=2)
        self.rule_game_sq = _add_list(self.rule_game_sq, (every_seat * every_seat).sum(axis=0))
        if self.cards:
            self._fold_cards(np, games, wins[:, :P], by_round[..., :P], at_end[..., :P], per_game)

    def _fold_cards(
        self, np: Any, games: _Games, wins: Any, by_round: Any, at_end: Any, per_game: _GameValues | None
    ) -> None:
        G, P, K = games.games, self.players, self.num_card_types
        rounds = len(games.turns)
        if per_game is None and not games.placed and not games.left and self.num_seats == P:
            fold = _numba_fold()  # the same sums in compiled loops, where numba is loaded already
            if fold is not None:
                from ruledraft.kernel.cache_files import mended

                # it adds nothing before its last call: run again where numba's cache was unreadable
                if mended(lambda: self._fold_cards_compiled(np, fold, games, wins, by_round, at_end)):
                    return
        # the cards of every action, slot by slot (an action takes up to 1 + max_extra
        # cards; K: no card in that slot), as (games, turns, player seats)
        K1 = K + 1
        actions = games.array(np, "actions", P).reshape(G, -1, P)
        if self.num_seats > P:  # a dummy: the part of an action that is the player's own cards
            actions = actions % self.own_span
        slots = [actions] if not self.max_extra else [table[actions] for table in self._slot_tables(np)]
        T = actions.shape[1]
        seat_base = ((np.arange(G) * P)[:, None, None] + np.arange(P)[None, None, :]) * K1
        turn_base = (np.arange(T) * K1)[None, :, None]
        held = sum(np.bincount((seat_base + c).ravel(), minlength=G * P * K1) for c in slots)
        by_turn = sum(np.bincount((turn_base + c).ravel(), minlength=T * K1) for c in slots)
        by_turn = by_turn.reshape(T, K1)[:, :K]
        held = held.reshape(G, P, K1)[:, :, :K]
        turn = np.concatenate([np.arange(1, n + 1) for n in games.turns])  # 1-based, in its round
        picks = by_turn.sum(axis=0)
        pick_turns = turn @ by_turn
        if games.placed:
            placed = np.array(games.placed, dtype=np.int64).reshape(-1, 4)
            g, t, s, c = placed.T
            np.add.at(held, (g, s, c), 1)
            picks = picks + np.bincount(c, minlength=K)
            pick_turns = pick_turns + _exact_bincount(np, c, t + 1, K)
        self.picks = _add_list(self.picks, picks)
        self.pick_turns = _add_list(self.pick_turns, pick_turns)
        self.taken = _add_list(self.taken, held.sum(axis=0).ravel())
        if per_game is not None:
            per_game.taken = held.sum(axis=1)
        self._count_parts(np, held, wins, per_game)
        took = held > 0
        self.seat_takers = _add_list(self.seat_takers, took.sum(axis=0).ravel())
        self.seat_taker_wins = _add_list(self.seat_taker_wins, (took * wins[:, :, None]).sum(axis=0).ravel())
        # seat-games by copies held, and their wins
        top = int(held.max()) + 1 if held.size else 1
        key = (np.arange(K) * top + held).ravel()
        seats = np.bincount(key, minlength=K * top)
        won = _exact_bincount(np, key, np.broadcast_to(wins[:, :, None], held.shape).ravel(), K * top)
        for k in np.nonzero(seats)[0].tolist():
            where = divmod(k, top)
            self.by_count[where] = self.by_count.get(where, 0) + int(seats[k])
            if won[k]:
                self.by_count_wins[where] = self.by_count_wins.get(where, 0) + int(won[k])
        # and per game, for the intervals with the game as the unit
        per_game_key = ((np.arange(G) * (K * top))[:, None, None] + (np.arange(K) * top + held)).ravel()
        m = np.bincount(per_game_key, minlength=G * K * top).reshape(G, K * top)
        w = _exact_bincount(np, per_game_key, np.broadcast_to(wins[:, :, None], held.shape).ravel(), G * K * top)
        w = w.reshape(G, K * top)
        mm, ww, mw = (m * m).sum(axis=0), (w * w).sum(axis=0), (m * w).sum(axis=0)
        for k in np.nonzero(seats)[0].tolist():
            where = divmod(k, top)
            old = self.by_count_moments.get(where, (0, 0, 0))
            self.by_count_moments[where] = (old[0] + int(mm[k]), old[1] + int(ww[k]), old[2] + int(mw[k]))
        # the points of each rule, shared among the cards it reads on each player's table
        counts = games.array(np, "counts", K).reshape(G, rounds + 1, P, K)
        gone = np.array(games.left, dtype=np.int64).reshape(-1, 5)
        for sh in self.shares:
            if not sh.weights:
                continue
            if sh.game_end:
                pts = at_end[:, sh.position - self._round_rules][:, None]
                held_now = counts[:, rounds:, :, sh.cards]
            else:
                pts = by_round[:, :, sh.position]
                held_now = counts[:, :rounds, :, sh.cards]
                mine = gone[gone[:, 4] == sh.position] if sh.race else gone[:0]
                if len(mine):  # the race's cards that left the table for its places
                    left = np.zeros((G, rounds, P, K), dtype=np.int64)
                    np.add.at(left, (mine[:, 0], mine[:, 1], mine[:, 2], mine[:, 3]), 1)
                    held_now = held_now + left[..., sh.cards]
            self._share(np, sh, pts, held_now, per_game)

    def _fold_cards_compiled(self, np: Any, fold: Any, games: _Games, wins: Any, by_round: Any, at_end: Any) -> bool:
        """:meth:`_fold_cards` by :mod:`ruledraft.kernel.fold` (no per-game values, no
        effects, no dummy): the same sums. False, having added nothing, where a sum
        could pass what an int64 holds (the numpy fold then counts in Python integers)."""
        G, P, K = games.games, self.players, self.num_card_types
        if wins.dtype == object or by_round.dtype == object or at_end.dtype == object:
            return False
        rounds = len(games.turns)
        actions = np.ascontiguousarray(games.array(np, "actions", P).reshape(G, -1, P))
        slots = np.ascontiguousarray(np.stack(self._slot_tables(np)), dtype=np.int64)
        if actions.size and not 0 <= int(actions.min()) <= int(actions.max()) < slots.shape[1]:
            return False  # not a player's own cards (the numpy fold says so)
        held, by_turn = fold.held_by_turn(actions, slots, K)
        total, products, takers, taker_wins, seats, won, mm, ww, mw, bound = fold.card_sums(
            held, np.ascontiguousarray(wins)
        )
        if bound * bound * max(G, 1) >= 2**62:
            return False
        counts = np.ascontiguousarray(games.array(np, "counts", K).reshape(G, rounds + 1, P, K))
        most = counts.max(axis=(0, 1, 2)).tolist()  # of each card on any table: the denominators' bound
        ends = at_end[:, None]  # as (games, one scoring, rules, seats)
        shared = []
        for sh in self.shares:
            if not sh.weights:
                continue
            if sh.game_end:
                pts, j, first = ends, sh.position - self._round_rules, rounds
            else:
                pts, j, first = by_round, sh.position, 0
            cards = np.array(sh.cards, dtype=np.int64)
            weights = np.array([w for _, w in sh.weights], dtype=np.int64)
            top = sum(w * most[c] for c, w in sh.weights) + 1
            none, some, sums, size = fold.share_sums(pts, j, counts, first, cards, weights, top)
            if size >= 2**62:
                return False
            shared.append((sh, none, some, sums))
        turn = np.concatenate([np.arange(1, n + 1) for n in games.turns])  # 1-based, in its round
        self.picks = _add_list(self.picks, by_turn.sum(axis=0))
        self.pick_turns = _add_list(self.pick_turns, turn @ by_turn)
        self.taken = _add_list(self.taken, held.sum(axis=0).ravel())
        self.card_total = _add_list(self.card_total, total.ravel())
        self.card_products = _add_list(self.card_products, products.ravel())
        self.seat_takers = _add_list(self.seat_takers, takers.ravel())
        self.seat_taker_wins = _add_list(self.seat_taker_wins, taker_wins.ravel())
        self._add_by_count(seats, won, mm, ww, mw)
        for sh, none, some, sums in shared:
            self._add_shared(np, sh, none, some, sums)
        return True

    def _count_parts(self, np: Any, held: Any, wins: Any, per_game: _GameValues | None) -> None:
        """Add each game's :data:`CARD_PARTS` of every card, and their products, to the sums."""
        parts = card_parts(np, held, wins)
        G, K, m = parts.shape
        bound = int(np.abs(parts).max(initial=0))
        if bound * bound * max(G, 1) >= 2**62:  # past what int64 holds: Python integers
            parts = parts.astype(object)
        self.card_total = _add_list(self.card_total, parts.sum(axis=0).ravel())
        products = (parts[:, :, :, None] * parts[:, :, None, :]).sum(axis=0)
        self.card_products = _add_list(self.card_products, products.ravel())
        if per_game is not None:  # with each seat's parts too: compare's seat-adjusted rows
            per_game.parts = np.concatenate([parts, seat_parts(np, held, wins).astype(parts.dtype)], axis=-1)

    def _slot_tables(self, np: Any) -> list[Any]:
        """Per card slot of an action, the card each own-cards action takes in it (K: none)."""
        if self._tables is None:
            K, K1 = self.num_card_types, self.num_card_types + 1
            own = np.arange(self.own_span)
            tables = [own % K]
            rest = own // K
            for _ in range(self.max_extra):
                digit = rest % K1
                tables.append(np.where(digit == 0, K, digit - 1))
                rest = rest // K1
            self._tables = tables
        return self._tables

    def _share(self, np: Any, sh: RuleShare, pts: Any, held: Any, per_game: _GameValues | None) -> None:
        """Share ``pts`` (per game, scoring and player seat) among the rule's cards by
        ``held`` (the same, per card it reads)."""
        weights = np.array([w for _, w in sh.weights], dtype=np.int64)
        whole = (held * weights).sum(axis=-1)
        scored = pts != 0
        self.none_points[sh.position] += int(pts[scored & (whole == 0)].sum())
        some = scored & (whole > 0)
        if per_game is not None:
            self._share_per_game(np, sh, pts, held, whole, some, per_game)
        if len(sh.weights) == 1:  # one card: it gets the points
            key = (sh.position, sh.weights[0][0], 1)
            self.shared[key] = self.shared.get(key, 0) + int(pts[some].sum())
            return
        denominators = whole[some]
        for i, (c, w) in enumerate(sh.weights):
            sums = _exact_bincount(np, denominators, (pts * (w * held[..., i]))[some], None)
            for d in np.nonzero(sums)[0].tolist():
                key = (sh.position, c, d)
                self.shared[key] = self.shared.get(key, 0) + int(sums[d])

    def _share_per_game(
        self, np: Any, sh: RuleShare, pts: Any, held: Any, whole: Any, some: Any, per_game: _GameValues
    ) -> None:
        """As :meth:`_share`, each game's shares on their own (for :meth:`card_columns`):
        per card and denominator, the numerators of every game."""
        G = pts.shape[0]
        game = np.broadcast_to(np.arange(G).reshape((-1,) + (1,) * (pts.ndim - 1)), pts.shape)[some]
        denominators = whole[some]
        top = int(denominators.max(initial=0)) + 1
        for i, (c, w) in enumerate(sh.weights):
            sums = _exact_bincount(np, game * top + denominators, (pts * (w * held[..., i]))[some], G * top)
            sums = sums.reshape(G, top)
            by_denominator = per_game.points.setdefault(c, {})
            for d in np.flatnonzero((sums != 0).any(axis=0)).tolist():
                column = sums[:, d]
                by_denominator[d] = column if d not in by_denominator else by_denominator[d] + column

    def card_columns(self) -> CardColumns:
        """For the games counted since the last fold, in the order counted, each game's
        per-card values (:class:`CardColumns`). Folds those games (as :meth:`flush`);
        all of them must have had the same turns per round (as every game at one table
        has, but where card effects add turns)."""
        if not self.cards:
            raise ValueError("the per-card figures were not counted")
        if len(self.pending) > 1:
            raise ValueError("the games counted differ in their turns per round")
        import numpy as np

        from ruledraft.lab.columns import Column, combined

        K = self.num_card_types
        gathered: list[_GameValues] = []
        self._fold_pending(gathered)
        if not gathered:
            return CardColumns(np.zeros((0, K), np.int64), [Column([])] * K, np.zeros((0, K, 0), np.int64))
        (values,) = gathered
        points = []
        for c in range(K):
            by_denominator = values.points.get(c, {})
            terms = [(1, Column(x, d)) for d, x in sorted(by_denominator.items())]
            points.append(combined(terms) if terms else Column(np.zeros(values.games, np.int64)))
        return CardColumns(values.taken, points, values.parts)

    # ------------------------------------------------------------------ reading

    def rule_points(self) -> dict[str, list[int]]:
        """Rule id -> per seat, the sum over games of the rule's points."""
        self.flush()
        n = self.num_seats
        return {sh.id: self.rule_sum[sh.position * n : (sh.position + 1) * n] for sh in self.shares}

    def rule_squares(self) -> dict[str, list[int]]:
        """Rule id -> per seat, the sum over games of the square of the game's points."""
        self.flush()
        n = self.num_seats
        return {sh.id: self.rule_sq[sh.position * n : (sh.position + 1) * n] for sh in self.shares}

    def rule_game_squares(self) -> dict[str, int]:
        """Rule id -> the sum over games of the square of the game's points over all seats."""
        self.flush()
        return {sh.id: self.rule_game_sq[sh.position] for sh in self.shares}

    def rule_card_points(self) -> dict[str, dict[int, Fraction]]:
        """Rule id -> card -> the exact points the card brought through that rule, over
        every game and player seat (cards that brought none left out)."""
        self.flush()
        out: dict[str, dict[int, Fraction]] = {sh.id: {} for sh in self.shares}
        for (pos, c, d), v in self.shared.items():
            row = out[self.shares[pos].id]
            row[c] = row.get(c, Fraction(0)) + Fraction(v, d)
        return {rid: {c: v for c, v in row.items() if v} for rid, row in out.items()}

    def points_by_card(self) -> list[Fraction]:
        """Per card, the exact points it brought through every rule, over every game and player seat."""
        self.flush()
        out = [Fraction(0)] * self.num_card_types
        for (_pos, c, d), v in self.shared.items():
            out[c] += Fraction(v, d)
        return out

    def card_points(self, card: int) -> Fraction:
        """The exact points card ``card`` brought, through every rule, over every game
        and player seat."""
        return self.points_by_card()[card]

    @property
    def unattributed(self) -> dict[str, int]:
        """Rule id -> the points that belong to no card (see the module docstring):
        scored with none of the cards it reads, or by a dummy seat (rules with none left out)."""
        self.flush()
        n, P = self.num_seats, self.players
        out = {}
        for sh in self.shares:
            r = sh.position
            if sh.weights:
                x = self.none_points[r] + sum(self.rule_sum[r * n + P : (r + 1) * n])
            else:
                x = sum(self.rule_sum[r * n : (r + 1) * n])
            if x:
                out[sh.id] = x
        return out

    def card_moments(self, card: int) -> Moments:
        """The games' :data:`CARD_PARTS` of ``card``, as sums (the game as the unit)."""
        self.flush()
        m = len(CARD_PARTS)
        return Moments(
            m,
            self.games,
            self.card_total[card * m : (card + 1) * m],
            self.card_products[card * m * m : (card + 1) * m * m],
        )

    def label_bots(self, bots: Sequence[str]) -> None:
        """Label each player seat's counts so far with its bot (``bots``: one per player
        seat), so that tallies of the line-up rotated through the seats merge into strata
        of seat and bot (:meth:`card_strata`). Label every tally before merging them."""
        self.flush()
        if self.bot_strata is not None:
            raise ValueError("this tally's seats are labelled already")
        K = self.num_card_types
        self.bot_strata = {}
        for s, bot in enumerate(bots[: self.players]):
            takers = self.seat_takers[s * K : (s + 1) * K]
            taker_wins = self.seat_taker_wins[s * K : (s + 1) * K]
            self.bot_strata[(s, bot)] = [self.games, self.wins[s], *takers, *taker_wins]

    def card_strata(self, card: int) -> list[tuple[Fraction, int, Fraction, int]]:
        """Per stratum -- player seat, or seat and bot once the tallies are labelled with
        their bots (:meth:`label_bots`; with a fixed line-up, each seat is one bot) --
        (takers' wins, seat-games that took ``card``, the others' wins, seat-games that
        did not), wins as fractions of a game."""
        self.flush()
        K, u = self.num_card_types, self.unit
        out = []
        if self.bot_strata is not None:
            for _key, row in sorted(self.bot_strata.items()):
                games, wins = row[0], row[1]
                n1, x1 = row[2 + card], row[2 + K + card]
                out.append((Fraction(x1, u), n1, Fraction(wins - x1, u), games - n1))
            return out
        for s in range(self.players):
            n1, x1 = self.seat_takers[s * K + card], self.seat_taker_wins[s * K + card]
            out.append((Fraction(x1, u), n1, Fraction(self.wins[s] - x1, u), self.games - n1))
        return out

    def by_count_rows(self, card: int) -> list[tuple[int, int, int]]:
        """(k, player seat-games that took k copies of ``card`` over a game, their wins
        in ``unit``) for every k that happened, in order of k."""
        self.flush()
        return sorted((k, m, self.by_count_wins.get((c, k), 0)) for (c, k), m in self.by_count.items() if c == card)

    def state(self) -> dict:
        """Everything counted, as plain data (equal for equal counts, whatever the order)."""
        self.flush()
        return {
            "games": self.games,
            "scores": [dict(sorted(h.items())) for h in self.scores],
            "margins": dict(sorted(self.margins.items())),
            "top_tied": self.top_tied,
            "shared_wins": self.shared_wins,
            "no_winner": self.no_winner,
            "wins": self.wins,
            "rule_sum": self.rule_sum,
            "rule_sq": self.rule_sq,
            "rule_game_sq": self.rule_game_sq,
            "by_count_moments": dict(sorted(self.by_count_moments.items())),
            "taken": self.taken,
            "picks": self.picks,
            "pick_turns": self.pick_turns,
            "by_count": dict(sorted(self.by_count.items())),
            "by_count_wins": dict(sorted((k, v) for k, v in self.by_count_wins.items() if v)),
            "none_points": self.none_points,
            "shared": dict(sorted((k, v) for k, v in self.shared.items() if v)),
            "seat_takers": self.seat_takers,
            "seat_taker_wins": self.seat_taker_wins,
            "card_total": self.card_total,
            "card_products": self.card_products,
            **({"bot_strata": dict(sorted(self.bot_strata.items()))} if self.bot_strata is not None else {}),
        }

    def figures(self, tally: Any, bots: Sequence[str]) -> dict:
        """The figures of the runner ``tally`` this collector counts for (:func:`figures`)."""
        return figures(tally, bots)

    def __getstate__(self) -> dict:
        self._add_block_sums()
        if self._buffered > _SEND_RAW:
            self.flush()
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self._setup()


def _compiled_fold() -> Any:
    """:mod:`ruledraft.kernel.fold` where numba is loaded already (a process playing on
    the kernel), or the fold as native code where the kernel loaded that
    (:mod:`ruledraft.kernel.native`), else None: the lab never loads numba itself."""
    native = sys.modules.get("ruledraft.kernel.native")
    if native is not None and native.loaded_fold() is not None:
        return native.loaded_fold()
    return _numba_fold()


def _numba_fold() -> Any:
    """:mod:`ruledraft.kernel.fold` where numba is loaded already, else None (the native
    fold has :func:`~ruledraft.kernel.fold.lab_block` only)."""
    if "numba" not in sys.modules:
        return None
    try:
        from ruledraft.kernel import fold
    except ImportError:
        return None
    return fold


def fold_every() -> int:
    """How many games a :class:`LabTally` buffers before it folds them (and can no
    longer give each one's :meth:`~LabTally.card_columns`)."""
    return _FOLD_EVERY


def _add_counts(acc: dict[int, int], values: Any, counts: Any) -> None:
    for v, m in zip(values.tolist(), counts.tolist()):
        acc[v] = acc.get(v, 0) + m


def _add_list(acc: list[int], values: Any) -> list[int]:
    return list(map(add, acc, values.tolist()))


def _exact_bincount(np: Any, keys: Any, weights: Any, length: int | None) -> Any:
    """``np.bincount`` of integer ``weights``, exact: sums in float64 while no sum can
    reach 2**53 (always, for points and turns of games), else in Python integers."""
    weights = np.asarray(weights)
    size = length if length is not None else (int(keys.max()) + 1 if keys.size else 0)
    if keys.size == 0:
        return np.zeros(size, dtype=np.int64)
    if weights.dtype != object and int(np.abs(weights).max()) * weights.size < 2**53:
        return np.rint(np.bincount(keys, weights=weights, minlength=size)).astype(np.int64)
    out = np.zeros(size, dtype=object)
    np.add.at(out, keys, weights.astype(object))
    return out


def _add_into(acc: dict, other: dict) -> None:
    for k, v in other.items():
        acc[k] = acc.get(k, 0) + v


# ---------------------------------------------------------------------- figures


def quantiles(histogram: dict[int, int], qs: Sequence[int] = QUANTILES) -> dict[str, int | None]:
    """The exact quantiles (percent -> value) of an integer histogram (value -> count):
    the smallest value whose cumulative count reaches q% of the total."""
    total = sum(histogram.values())
    out: dict[str, int | None] = {}
    items = sorted(histogram.items())
    for q in qs:
        if not total:
            out[str(q)] = None
            continue
        need = q * total  # compared with 100 * cumulative count: exact
        running = 0
        for value, count in items:
            running += count
            if 100 * running >= need:
                out[str(q)] = value
                break
    return out


def formatted(x: float, spec: str) -> str:
    """``format(x, spec)``, but a number that shows as zero never shows a minus sign
    (``-0.001`` at two decimals is ``0.00``, or ``+0.00`` with a ``+`` in ``spec``)."""
    text = format(x, spec)
    if "-" in text and not any(ch in "123456789" for ch in text):
        text = format(0.0, spec)
    return text


def _interval(pair: tuple[float, float]) -> list[float]:
    return [pair[0], pair[1]]


def clustered_wilson(
    games: int, seats: int, wins: int, moments: tuple[int, int, int], unit: int, confidence: float = CONFIDENCE
) -> tuple[float, float]:
    """The Wilson interval of a win rate over seat-games (``wins`` in ``unit`` of
    ``seats``), the game as the unit: taken at the effective number of seat-games,
    ``seats`` over the design effect (the ratio's variance over the games, by the delta
    method from ``moments`` = sums over games of m*m, w*w, m*w, against the binomial
    variance). At the plain count when the games show no spread."""
    if seats <= 0:
        return (0.0, 1.0)
    rate = Fraction(wins, unit * seats)
    mm, ww, mw = moments
    G = games
    if G < 2:
        return wilson(wins / unit, seats, confidence)
    r = Fraction(wins, seats)  # in unit; the games' w - r m sum to 0
    spread = Fraction(ww - 2 * r * mw + r * r * mm, G - 1)
    m_bar = Fraction(seats, G)
    return _effective_wilson(rate, spread / (m_bar * m_bar * G * unit * unit), Fraction(seats), confidence)


def _hist_mean(histogram: dict[int, int]) -> float:
    n = sum(histogram.values())
    return sum(v * c for v, c in histogram.items()) / n if n else 0.0


def figures(tally: Any, bots: Sequence[str]) -> dict:
    """Every figure of a runner tally (:class:`~ruledraft.play.runner.Tally` with its
    ``lab``), in the JSON shape of the module docstring."""
    lab: LabTally = tally.lab
    tally.flush()
    can_win = lab.can_win
    n = tally.games
    unit = tally.unit
    seats = []
    for s in range(tally.num_seats):
        wins = tally.wins[s] / unit
        mean, lo, hi = mean_interval(n, tally.total[s], tally.total_sq[s], CONFIDENCE)
        var = (n * tally.total_sq[s] - tally.total[s] ** 2) / (n * (n - 1)) if n > 1 else 0.0
        seats.append(
            {
                "seat": s,
                "bot": bots[s] if s < len(bots) else "dummy",
                "can_win": bool(can_win[s]),
                "wins": wins,
                "win_share": wins / n if n else 0.0,
                "win_share_interval": _interval(wilson(wins, n, CONFIDENCE)),
                "mean": mean,
                "mean_interval": [lo, hi],
                "stdev": math.sqrt(max(0.0, var)),
                "min": tally.low[s] if tally.low[s] is not None else 0,
                "max": tally.high[s] if tally.high[s] is not None else 0,
                "quantiles": quantiles(lab.scores[s]),
                "histogram": {str(k): v for k, v in sorted(lab.scores[s].items())},
            }
        )
    stat, df, p = chi_square_uniform([tally.wins[s] / unit for s in range(tally.num_seats) if can_win[s]])
    seats_equal = {"statistic": stat, "df": df, "p_value": p}
    margin = {
        "mean": _hist_mean(lab.margins),
        "quantiles": quantiles(lab.margins),
        "histogram": {str(k): v for k, v in sorted(lab.margins.items())},
    }
    ties = {
        "top_score_tied": lab.top_tied / n if n else 0.0,
        "shared_win": lab.shared_wins / n if n else 0.0,
        "no_winner": lab.no_winner / n if n else 0.0,
    }
    # per rule: mean points per seat and game (all seats pooled, and each seat)
    squares = lab.rule_squares()
    all_points = sum(sum(tally.rules[rid]) for rid in tally.rule_ids)
    unattributed = lab.unattributed
    rules = []
    game_squares = lab.rule_game_squares()
    seats_n = tally.num_seats
    for rid in tally.rule_ids:
        pts, sq = tally.rules[rid], squares[rid]
        # the game as the unit: each game's points over all seats, then per seat
        _, lo, hi = (x / seats_n for x in mean_interval(n, sum(pts), game_squares[rid], CONFIDENCE))
        mean = sum(pts) / (n * seats_n) if n else 0.0
        per_seat = []
        for s in range(tally.num_seats):
            m, a, b = mean_interval(n, pts[s], sq[s], CONFIDENCE)
            per_seat.append({"mean": m, "interval": [a, b]})
        rules.append(
            {
                "rule": rid,
                "mean": mean,
                "interval": [lo, hi],
                "share_of_points": sum(pts) / all_points if all_points else 0.0,
                "unattributed": unattributed.get(rid, 0) / n if n else 0.0,
                "per_seat": per_seat,
            }
        )
    return {
        "confidence": CONFIDENCE,
        "games": n,
        "seats": seats,
        "seats_equal": seats_equal,
        "margin": margin,
        "ties": ties,
        "rules": rules,
        "cards": _card_figures(tally, lab) if lab.cards else None,
    }


def _card_figures(tally: Any, lab: LabTally) -> list[dict]:
    n, unit = tally.games, tally.unit
    points = lab.points_by_card()
    P, K = lab.players, lab.num_card_types
    cards = []
    for c, cid in enumerate(lab.card_ids):
        taken_per_seat = [lab.taken[s * K + c] / n if n else 0.0 for s in range(P)]
        taken = sum(lab.taken[s * K + c] for s in range(P))
        rows = lab.by_count_rows(c)
        by_count = [
            {
                "count": k,
                "seats": m,
                "win_rate": w / unit / m if m else 0.0,
                "interval": _interval(clustered_wilson(n, m, w, lab.by_count_moments.get((c, k), (0, 0, 0)), unit)),
            }
            for k, m, w in rows
        ]
        takers = sum(m for k, m, _ in rows if k)
        taker_wins = sum(w for k, _, w in rows if k) / unit
        non = sum(m for k, m, _ in rows if not k)
        non_wins = sum(w for k, _, w in rows if not k) / unit
        moments = lab.card_moments(c)
        means = moments.means()
        d, lo, hi = takers_minus_others(moments, P, unit, CONFIDENCE)
        adjusted = adjusted_effect(lab, c)
        slope = per_copy(means, P, unit)
        copy_figure = None if slope is None else delta_wald(*slope, moments, CONFIDENCE)
        pts = float(points[c])
        cards.append(
            {
                "card": cid,
                "taken_per_game": taken / n if n else 0.0,
                "taken_per_seat": taken_per_seat,
                "mean_turn": lab.pick_turns[c] / lab.picks[c] if lab.picks[c] else None,
                "points_per_game": pts / n if n else 0.0,
                "points_per_card": pts / taken if taken else None,
                "by_count": by_count,
                # no seat-game on one side (every seat took it, or none did): nothing to compare
                "takers": {"seats": takers, "win_rate": taker_wins / takers if takers else None},
                "non_takers": {"seats": non, "win_rate": non_wins / non if non else None},
                "difference": d if takers and non else None,
                "difference_interval": [lo, hi] if takers and non else None,
                "adjusted": adjusted,
                "per_copy": None if copy_figure is None else copy_figure[0],
                "per_copy_interval": None if copy_figure is None else [copy_figure[1], copy_figure[2]],
            }
        )
    return cards


register_collector(LabTally.for_game)  # the runs that name no collector count the lab's figures
