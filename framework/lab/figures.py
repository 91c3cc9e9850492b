"""The balance lab's figures: per seat, per scoring rule and per card, from tallies that merge exactly.

:class:`LabTally` is what each worker folds its games into beside the runner's
:class:`~ruledraft.play.runner.Tally` (which owns it): integer counts, integer sums and
integer histograms only, of a size fixed by the ruleset (card types, rules, seats) and
the range of scores -- never a list per game -- so memory does not grow with the
number of games, and tallies merged in any grouping and any order give identical
figures. :func:`figures` turns a tally into the figures below.

How the figures are counted
---------------------------

* **Wins** are counted as the runner counts them: a win shared by k seats counts 1/k
  to each. Win shares and win rates are those fractional counts over the games (or
  seat-games), and their Wilson intervals are taken at the fractional count.
* **Taken** means chosen: the cards of a seat's picks over the game (both cards of a
  pick with chopsticks), whatever becomes of them later -- a menu or takeout box that
  leaves or turns over after acting, chopsticks going back to the hand, a special
  order that becomes a copy, uramaki or miso soup discarded all count as taken. A
  card an effect then places from the seat's choice (the card chosen from a menu's
  draw, the second card of Party's chopsticks, the card a spoon brings) is not a pick
  and is not counted. Player seats only: a dummy's cards are nobody's choice.
* **Turn taken**: from the picks themselves; turn 1 is the first pick of a round
  (every card of a pick with chopsticks is taken on that turn).
* **Points a card brings** are what scored: each scoring rule's points of a seat are
  shared among the cards that rule reads (its ``reads``; all cards when it reads any)
  on that seat's table when the rule scored (the kept cards for a game-end rule), in
  proportion to their count times their weight -- a card that left the table before
  the scoring brings nothing, a copy counts as the card it became. A
  card's weight for a rule is 1, except for a rule that ranks seats by a quantity of
  the seat's own cards (a majority such as maki rolls): then it is what one such card
  alone is worth to that quantity (its icons), when that is positive for every card
  the rule reads (a rule that reads one card gives it all its points). Points scored
  with none of those cards on the table (pudding's or temaki's penalty for having
  none) and a dummy seat's points belong to no card: they are reported per rule as
  ``unattributed``. So for every rule, the points it brought its cards plus its
  unattributed points are exactly its points over all seats.
  The shares are kept as exact fractions (an integer numerator per card and common
  denominator), so they merge exactly too.
* **Quantiles** of scores and margins are exact, from integer histograms: the q
  quantile is the smallest value whose cumulative count reaches q of the games
  (the inverse of the empirical distribution function).
* **Margin of victory**: the best player total minus the second best (0 when they tie),
  before any tie-break.

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
        {"rule": "maki", "mean": 3.1, "interval": [lo, hi],   # per seat and game, all seats pooled
         "share_of_points": 0.08, "unattributed": 0.0,        # per game, all seats
         "per_seat": [{"mean": 3.2, "interval": [lo, hi]}, ...]}
      ],
      "cards": [                      # null unless the per-card figures were counted (--cards)
        {"card": "tempura",
         "taken_per_game": 2.9,             # copies picked, all player seats together
         "taken_per_seat": [1.5, 1.4],      # per game, per player seat
         "mean_turn": 4.2,                  # null if never picked
         "points_per_game": 6.1,            # points it brings, all player seats, per game
         "points_per_card": 2.1,            # per copy taken (null if never taken)
         "by_count": [{"count": 0, "seats": 700, "win_rate": 0.41, "interval": [lo, hi]}, ...],
                                            # player seat-games that took 0, 1, 2, ... copies
         "takers": {"seats": 1300, "win_rate": 0.55},
         "non_takers": {"seats": 700, "win_rate": 0.41},
         "difference": 0.14, "difference_interval": [lo, hi]}   # Newcombe
      ]
    }
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from itertools import chain, repeat
from operator import add, itemgetter, mul
from typing import Any

from ruledraft.lab.statistics import chi_square_uniform, mean_interval, newcombe, wilson
from ruledraft.tableau import Tableau

CONFIDENCE = 0.95
QUANTILES = (5, 25, 50, 75, 95)

#: picks buffered before a flush folds them (about 4,000 two-player games; bounds memory)
_BUFFER = 1 << 18

#: key strides of the flat dictionaries (a card index times the stride plus a count or a denominator)
_STRIDE = 1 << 32


def _rule_weights(rule: Any, num_card_types: int) -> dict[int, int]:
    """Card index -> weight of the cards ``rule`` shares its points among (see the module docstring)."""
    reads = range(num_card_types) if rule.reads is None else sorted(rule.reads)
    weights = dict.fromkeys(reads, 1)
    q = rule.ranks_by
    if q is not None and q.pure and q.reads is not None and set(q.reads) == set(reads):
        alone = {}
        for c in reads:
            counts = [0] * num_card_types
            counts[c] = 1
            alone[c] = q.fn(Tableau([counts], [[c]]), 0)
        if all(isinstance(v, int) and v > 0 for v in alone.values()):
            weights = alone
    return weights


class _One:
    """``itemgetter`` of one index that still gives a tuple (and pickles)."""

    def __init__(self, index: int):
        self.index = index

    def __call__(self, counts: Sequence[int]) -> tuple[int]:
        return (counts[self.index],)


class CardShares:
    """For a ruleset's round-end or game-end rules: how each rule shares its points
    among the cards it reads (a rule that reads one card gives them all to it, from the
    seats that hold it)."""

    def __init__(self, rules: Sequence[Any], num_card_types: int, first: int = 0):
        #: (rule id, its position in the tally's rule order, ((card, weight), ...)) per rule
        self.shared: list[tuple[str, int, tuple[tuple[int, int], ...]]] = []
        for j, rule in enumerate(rules):
            w = _rule_weights(rule, num_card_types)
            self.shared.append((rule.id, first + j, tuple(w.items())))
        #: the positions of the rules among the scoring's rules
        self.positions = tuple(range(len(self.shared)))
        #: every card a rule reads (sorted)
        self.union = tuple(sorted({c for _, _, ws in self.shared for c, _ in ws}))

        #: a seat's points of the rules, from its points of every rule of the scoring
        #: (a tuple, or a number when there is one rule)
        self.points_of: Any = itemgetter(*self.positions) if self.positions else None
        #: the counts of the cards in ``union``, from a seat's count of every card
        self.counts_of: Any = None
        if len(self.union) == 1:
            self.counts_of = _One(self.union[0])
        elif self.union:
            self.counts_of = itemgetter(*self.union)


class LabTally:
    """Mergeable statistics for the lab's figures (see the module docstring).

    Each game is first counted in C (``collections.Counter`` over small tuples) and
    the counters are folded into the figures' sums by :meth:`flush` (every thousand
    games or so, and before a merge or a pickle), which keeps a game's bookkeeping to
    a few microseconds.
    """

    def __init__(
        self,
        num_seats: int,
        players: int,
        num_card_types: int,
        rule_ids: Sequence[str],
        own_span: int,
        shares: tuple[CardShares, CardShares],
        card_ids: Sequence[str],
        can_win: Sequence[bool],
        rule_order: Sequence[str],
        cards: bool = True,
    ):
        n, P, K = num_seats, players, num_card_types
        #: whether the per-card figures are counted (they cost most of the bookkeeping)
        self.cards = cards
        self.card_ids = tuple(card_ids)
        #: per seat: whether it can win (players; dummy seats when the ruleset lets them)
        self.can_win = tuple(can_win)
        #: the part of an action that encodes a player's own cards (``Game.own_span``)
        self.own_span = own_span
        #: how the round-end and the game-end rules share their points among cards
        self.shares = shares
        #: the rule ids in scoring order (round-end rules, then game-end rules)
        self.rule_order = tuple(rule_order)
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
        #: per rule (in ``rule_order``), per seat (flat, rule * seats + seat): sum over
        #: games of the square of the game's points
        self.rule_sq = [0] * (len(self.rule_order) * n)
        #: per player seat, per card (flat, seat * K + card): copies taken (picked, or placed
        #: by an effect's choice), over the games
        self.taken = [0] * (P * K)
        #: per card: picks and the sum of their turns (1-based)
        self.picks = [0] * K
        self.pick_turns = [0] * K
        #: card * _STRIDE + k (k >= 1 copies over a game) -> player seat-games, and their wins (in ``unit``)
        self.by_count: dict[int, int] = {}
        self.by_count_wins: dict[int, int] = {}
        #: (rule * K + card) * _STRIDE + denominator -> numerator of the points the card
        #: brought through the rule (``rule``: its position in ``rule_order``; exact fractions)
        self.points: dict[int, int] = {}
        #: rule id -> points that belong to no card: scored with none of the cards it reads,
        #: or by a dummy seat
        self.unattributed: dict[str, int] = {}
        self._layouts: dict[int, list[int]] = {}
        self._shares_memo: dict[tuple, tuple] = {}
        self._picked: dict[int, tuple[int, ...]] = {}
        self._card_range = range(K)
        #: per player seat, per card: (seat * K + card) * _STRIDE, the base of a held-cards key
        self._held_offsets = [[(s * K + c) * _STRIDE for c in range(K)] for s in range(P)]
        self._reset_pending()

    def _reset_pending(self) -> None:
        # counted since the last flush, as flat lists the flush counts in C:
        # (seat, total); turn * span + action; per player seat and card, the copies it
        # held over a game, encoded as (seat * K + card) * _STRIDE + copies (the same for
        # the winners, by number of winners); (scoring kind, counts of the cards the
        # sharing rules read, their points)
        self._b_scores: list[tuple[int, int]] = []
        self._b_picks: list[int] = []
        self._b_held: list[int] = []
        self._b_won: dict[int, list[int]] = {}
        self._b_shares: list[tuple] = []

    @classmethod
    def for_game(cls, game: Any, cards: bool = True) -> LabTally:
        """An empty tally for games of ``game`` (an engine ``Game``); ``cards``: count
        the per-card figures too."""
        K = game.num_card_types
        dummy = game.ruleset.dummy
        rs = game.ruleset
        return cls(
            game.num_seats,
            game.num_players,
            K,
            rs.rule_ids,
            game.own_span,
            (CardShares(rs.round_rules, K), CardShares(rs.game_rules, K, len(rs.round_rules))),
            rs.catalogue.ids,
            [s < game.num_players or bool(dummy and dummy.can_win) for s in range(game.num_seats)],
            [r.id for r in rs.round_rules] + [r.id for r in rs.game_rules],
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
            self.shares,
            self.card_ids,
            self.can_win,
            self.rule_order,
            self.cards,
        )

    def decode(self, action: int) -> tuple[int, ...]:
        """The cards of a player's own pick in ``action`` (as ``Game.decode_action``)."""
        K = self.num_card_types
        own = action % self.own_span
        cards = [own % K]
        rest = own // K
        while rest:
            rest, digit = divmod(rest, K + 1)
            cards.append(digit - 1)
        return tuple(cards)

    # ------------------------------------------------------------------ counting

    def _layout(self, turns: int) -> list[int]:
        """Offsets that encode the picks of a round of ``turns`` turns (turn * span + action)."""
        span = self.own_span * (self.num_card_types + 1)
        lay = self._layouts[turns] = [t * span for t in range(turns) for _ in range(self.players)]
        return lay

    def add_game(
        self,
        history: Sequence[Any],
        scorings: Sequence[Any],
        kept_cards: Sequence[Sequence[int]],
        totals: Sequence[int],
        winners: Sequence[int],
    ) -> None:
        """Count one finished game: its rounds (``State.history``), its scorings (the
        rounds', then game end's), each seat's cards kept to game end, its totals and
        its winners."""
        self.games += 1
        P = self.players
        self._b_scores.extend(enumerate(totals))
        if P >= 2:
            best, second = sorted(totals[:P], reverse=True)[:2]
            margin = best - second
        else:
            margin = 0
        margins = self.margins
        margins[margin] = margins.get(margin, 0) + 1
        if not margin:
            self.top_tied += 1
        if len(winners) != 1:
            if winners:
                self.shared_wins += 1
            else:
                self.no_winner += 1
        # points per rule over the game (rule-major, seat-minor), squared
        rounds = scorings[:-1]
        flat = list(chain.from_iterable(rounds[0].points)) if rounds else []
        for sc in rounds[1:]:
            flat = list(map(add, flat, chain.from_iterable(sc.points)))
        flat.extend(chain.from_iterable(scorings[-1].points))
        self.rule_sq = list(map(add, self.rule_sq, map(mul, flat, flat)))
        if not self.cards:
            return
        # per round: the picks, the copies of every card each player seat took (its picks
        # and the cards an effect placed from its choice), and the points of every rule
        # with the counts of the cards it reads on each seat's table (a dummy seat's
        # points belong to no card: it counts as holding none)
        layouts, picks, shares = self._layouts, self._b_picks, self._b_shares
        card_range, K = self._card_range, self.num_card_types
        took = self._took
        sh = self.shares[0]
        counts_of, points_of = sh.counts_of, sh.points_of
        none = (0,) * len(sh.union)
        held: list[list[int]] | None = None
        for rec, sc in zip(history, rounds):
            acts = rec.actions
            offsets = layouts.get(len(acts))
            if offsets is None:
                offsets = self._layout(len(acts))
            picks.extend(map(add, offsets, chain.from_iterable(acts)))
            vecs = took(rec, P, K)
            held = vecs if held is None else [list(map(add, h, v)) for h, v in zip(held, vecs)]
            if points_of is not None:
                per_seat = list(map(points_of, zip(*sc.points)))
                tables = [list(map(t.count, card_range)) for t in rec.tables[:P]]
                shares.extend(zip(repeat(0), map(counts_of, tables), per_seat))
                shares.extend(zip(repeat(0), repeat(none), per_seat[P:]))
        end = self.shares[1]
        if end.points_of is not None:
            per_seat = list(map(end.points_of, zip(*scorings[-1].points)))
            vecs = [list(map(t.count, card_range)) for t in kept_cards[:P]]
            shares.extend(zip(repeat(1), map(end.counts_of, vecs), per_seat))
            shares.extend(zip(repeat(1), repeat((0,) * len(end.union)), per_seat[P:]))
        # the copies of each card each player seat held over the game
        if held is not None:
            won = None
            if winners:
                won = self._b_won.get(len(winners))
                if won is None:
                    won = self._b_won[len(winners)] = []
            bank = self._b_held
            for s, (base, vec) in enumerate(zip(self._held_offsets, held)):
                keys = list(map(add, base, vec))
                bank.extend(keys)
                if won is not None and s in winners:
                    won.extend(keys)
        if len(picks) >= _BUFFER:
            self.flush()

    def _took(self, rec: Any, P: int, K: int) -> list[list[int]]:
        """Per player seat, the copies of each card it took in the round ``rec``: the cards
        of its picks (both of a pick with chopsticks) and the cards placed on its table
        by an effect from its choice."""
        picked = self._picked
        out = []
        for column in zip(*rec.actions):  # one per player seat, its actions over the round
            vec = [0] * K
            for a, m in Counter(column).items():
                cards = picked.get(a)
                if cards is None:
                    cards = picked[a] = self.decode(a)
                for c in cards:
                    vec[c] += m
            out.append(vec)
        return out

    def flush(self) -> None:
        """Fold what was counted since the last flush into the figures' sums."""
        K = self.num_card_types
        for (s, x), m in Counter(self._b_scores).items():
            row = self.scores[s]
            row[x] = row.get(x, 0) + m
        picks, turns, decode = self.picks, self.pick_turns, self.decode
        span = self.own_span * (K + 1)
        for key, m in Counter(self._b_picks).items():
            t, a = divmod(key, span)
            for c in decode(a) if a >= K else (a,):
                picks[c] += m
                turns[c] += (t + 1) * m
        taken, by_count = self.taken, self.by_count
        for key, m in Counter(self._b_held).items():
            sc, k = divmod(key, _STRIDE)
            taken[sc] += k * m
            key = (sc % K) * _STRIDE + k
            by_count[key] = by_count.get(key, 0) + m
        wins = self.by_count_wins
        for w, buffer in self._b_won.items():
            share = self.unit // w
            for key, m in Counter(buffer).items():
                sc, k = divmod(key, _STRIDE)
                key = (sc % K) * _STRIDE + k
                wins[key] = wins.get(key, 0) + m * share
        points, unattributed = self.points, self.unattributed
        memo = self._shares_memo
        for entry, m in Counter(self._b_shares).items():
            parts = memo.get(entry)
            if parts is None:
                parts = self._share_parts(*entry)
                if len(memo) < _BUFFER:
                    memo[entry] = parts
            for where, x in parts:
                if isinstance(where, str):
                    unattributed[where] = unattributed.get(where, 0) + x * m
                else:
                    points[where] = points.get(where, 0) + x * m
        self._reset_pending()

    def _share_parts(self, kind: int, counts: tuple[int, ...], pts: Any) -> tuple[tuple[int | str, int], ...]:
        """What one seat's scoring adds: (card * _STRIDE + denominator, numerator) per
        card, or (rule id, points) for points that belong to no card."""
        sh = self.shares[kind]
        n_of = dict(zip(sh.union, counts))
        out: list[tuple[int | str, int]] = []
        K = self.num_card_types
        for (rid, r, weights), p in zip(sh.shared, pts if isinstance(pts, tuple) else (pts,)):
            if not p:
                continue
            parts = [(c, w * n_of[c]) for c, w in weights if n_of[c]]
            d = sum(x for _, x in parts)
            if not d:
                out.append((rid, p))
                continue
            out.extend(((r * K + c) * _STRIDE + d, p * x) for c, x in parts)
        return tuple(out)

    def merge(self, other: LabTally) -> None:
        """Add the counts of another tally (of other games at the same table)."""
        # what the other has not folded yet joins this one's buffers (folded later, once)
        self._b_scores.extend(other._b_scores)
        self._b_picks.extend(other._b_picks)
        self._b_held.extend(other._b_held)
        for w, buffer in other._b_won.items():
            self._b_won.setdefault(w, []).extend(buffer)
        self._b_shares.extend(other._b_shares)
        self.games += other.games
        self.cards = self.cards and other.cards
        for mine, theirs in zip(self.scores, other.scores):
            _add_into(mine, theirs)
        _add_into(self.margins, other.margins)
        self.top_tied += other.top_tied
        self.shared_wins += other.shared_wins
        self.no_winner += other.no_winner
        self.rule_sq = list(map(add, self.rule_sq, other.rule_sq))
        self.taken = list(map(add, self.taken, other.taken))
        self.picks = list(map(add, self.picks, other.picks))
        self.pick_turns = list(map(add, self.pick_turns, other.pick_turns))
        _add_into(self.by_count, other.by_count)
        _add_into(self.by_count_wins, other.by_count_wins)
        _add_into(self.points, other.points)
        _add_into(self.unattributed, other.unattributed)
        if len(self._b_picks) >= _BUFFER:
            self.flush()

    def rule_squares(self) -> dict[str, list[int]]:
        """Rule id -> per seat, the sum over games of the square of the game's points."""
        n = self.num_seats
        return {rid: self.rule_sq[j * n : (j + 1) * n] for j, rid in enumerate(self.rule_order)}

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
            "rule_sq": self.rule_sq,
            "taken": self.taken,
            "picks": self.picks,
            "pick_turns": self.pick_turns,
            "by_count": dict(sorted(self.by_count.items())),
            "by_count_wins": dict(sorted((k, v) for k, v in self.by_count_wins.items() if v)),
            "points": dict(sorted((k, v) for k, v in self.points.items() if v)),
            "unattributed": dict(sorted((k, v) for k, v in self.unattributed.items() if v)),
        }

    def rule_card_points(self) -> dict[str, dict[int, Fraction]]:
        """Rule id -> card -> the exact points the card brought through that rule, over
        every game and player seat (cards that brought none left out)."""
        self.flush()
        K = self.num_card_types
        out: dict[str, dict[int, Fraction]] = {rid: {} for rid in self.rule_order}
        for key, v in self.points.items():
            rc, d = divmod(key, _STRIDE)
            r, c = divmod(rc, K)
            row = out[self.rule_order[r]]
            row[c] = row.get(c, Fraction(0)) + Fraction(v, d)
        return out

    def card_points(self, card: int) -> Fraction:
        """The exact points card ``card`` brought, through every rule, over every game
        and player seat."""
        self.flush()
        K = self.num_card_types
        return sum(
            (Fraction(v, key % _STRIDE) for key, v in self.points.items() if (key // _STRIDE) % K == card),
            Fraction(0),
        )

    def __getstate__(self) -> dict:  # what travels is the folded counts
        self.flush()
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        K, P = self.num_card_types, self.players
        self._layouts = {}
        self._shares_memo = {}
        self._picked = {}
        self._card_range = range(K)
        self._held_offsets = [[(s * K + c) * _STRIDE for c in range(K)] for s in range(P)]
        self._reset_pending()


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


def _hist_mean(histogram: dict[int, int]) -> float:
    n = sum(histogram.values())
    return sum(v * c for v, c in histogram.items()) / n if n else 0.0


def figures(tally: Any, bots: Sequence[str]) -> dict:
    """Every figure of a runner tally (:class:`~ruledraft.play.runner.Tally` with its
    ``lab``), in the JSON shape of the module docstring."""
    lab: LabTally = tally.lab
    lab.flush()
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
    rules = []
    for rid in tally.rule_ids:
        pts, sq = tally.rules[rid], squares[rid]
        mean, lo, hi = mean_interval(n * tally.num_seats, sum(pts), sum(sq), CONFIDENCE)
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
                "unattributed": lab.unattributed.get(rid, 0) / n if n else 0.0,
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
    P, K = lab.players, lab.num_card_types
    cards = []
    for c, cid in enumerate(lab.card_ids):
        taken_per_seat = [lab.taken[s * K + c] / n if n else 0.0 for s in range(P)]
        taken = sum(lab.taken[s * K + c] for s in range(P))
        counts = sorted(
            (key - c * _STRIDE, seats_k)
            for key, seats_k in lab.by_count.items()
            if c * _STRIDE <= key < (c + 1) * _STRIDE
        )
        rows = [(k, m, lab.by_count_wins.get(c * _STRIDE + k, 0)) for k, m in counts]
        by_count = [
            {
                "count": k,
                "seats": m,
                "win_rate": w / unit / m if m else 0.0,
                "interval": _interval(wilson(w / unit, m, CONFIDENCE)),
            }
            for k, m, w in rows
        ]
        takers = sum(m for k, m, _ in rows if k)
        taker_wins = sum(w for k, _, w in rows if k) / unit
        non = sum(m for k, m, _ in rows if not k)
        non_wins = sum(w for k, _, w in rows if not k) / unit
        d, lo, hi = newcombe(taker_wins, takers, non_wins, non, CONFIDENCE)
        pts = float(lab.card_points(c))
        cards.append(
            {
                "card": cid,
                "taken_per_game": taken / n if n else 0.0,
                "taken_per_seat": taken_per_seat,
                "mean_turn": lab.pick_turns[c] / lab.picks[c] if lab.picks[c] else None,
                "points_per_game": pts / n if n else 0.0,
                "points_per_card": pts / taken if taken else None,
                "by_count": by_count,
                "takers": {"seats": takers, "win_rate": taker_wins / takers if takers else 0.0},
                "non_takers": {"seats": non, "win_rate": non_wins / non if non else 0.0},
                "difference": d,
                "difference_interval": [lo, hi],
            }
        )
    return cards
