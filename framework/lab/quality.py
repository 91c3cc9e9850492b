"""Game-quality measures: how a ruleset plays, beside how its cards score.

The measures the game-design literature uses to compare rulesets (Ludii's metrics,
Browne's and Althöfer's criteria), computed from the games a run plays:

* **skill gap**: a seat with the stronger bot wins more often than a seat with the
  weaker one; how much more (win rate per seat held, strongest bot minus weakest),
  from a line-up with several bots (``--bots greedy,random``);
* **seat advantage**: the best seat's win share minus the worst's, its 95% interval
  (:func:`advantage_interval`) and the chi-square test of equal seats; played with the
  line-up rotated through the seats (each deal once per seating), so that the bots
  cancel out;
* **decisiveness**: the turn after which the eventual winner leads for good, as a
  share of the game's turns (low: decided early);
* **lead changes** per game: how often the sole leader changes;
* **score spread**: the best player's final score minus the worst's;
* **last round decides**: how often the winner was not the sole leader before the
  last round was played;
* **pick share and what it depends on**: per card, how often a seat that holds it
  in a hand with a choice takes it, by the number of cards in the hand; and its
  *lift*, the picks over those a blind pick among the hand's different cards would
  make (1: taken like any other card; 2: twice as often), with the other card whose
  presence in the same hand changes the lift the most. The lift, unlike the raw
  share, does not fall merely because a hand holds more kinds of cards.

How a game is followed
----------------------

A finished game is played again from its seed and its recorded moves (the engine's
own ``apply_actions``), and after each turn every player's running score is read:
the rounds scored so far plus what the round in progress would score now
(``State.round_points_now``); the turn that ends a round (with the last card, which
the engine plays itself) counts the round's scoring, and the last turn the game
end's. The sole leader after a turn is the player with more points than every
other (none while the top is tied). Decisiveness is the first turn from which the
winner is the sole leader after every turn to the end (the last turn counts as led
by the winner, a tie-break included); it is 1 when the winner leads all game.
Games without one winner (a shared win, no winner) count for lead changes and
spread, not for decisiveness or the last round.

:class:`QualityCounts` counts games as integer sums and histograms, merged exactly
in any order (processes, clusters, seatings); :func:`quality_figures` puts the runs
of every seating together.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from operator import add
from typing import Any

from ruledraft.lab.extra_counts import SeatsAndCards
from ruledraft.lab.figures import quantiles
from ruledraft.lab.rotation import bot_shares
from ruledraft.lab.rotation import seatings as seatings  # where the command and tests found it
from ruledraft.lab.statistics import chi_square_uniform, mean_interval, wilson

CONFIDENCE = 0.95

#: offers (seat-turns holding the card with a choice) a group needs before its pick share is compared
MIN_OFFERS = 30

#: what each measure means, one plain sentence each (the command's output and the README say the same)
EXPLANATIONS: dict[str, str] = {
    "skill_gap": "How much more often a seat played by the strongest bot wins than a seat played by the weakest "
    "(win rate per seat, in percentage points); near 0 means skill (or these bots) matters little.",
    "seat_advantage": "The best seat's win share minus the worst seat's, with the line-up rotated through the "
    "seats so that the bots cancel out; near 0 means no seat is favoured. Its 95% interval holds for every seat at "
    "once (each seat's share at 1/k of the error rate, k seats), so it reaches further than the seats' table.",
    "decisiveness": "The turn after which the eventual winner leads for good, as a share of the game's turns: "
    "low means the winner is clear early, near 100% that it stays open to the end.",
    "lead_changes": "How many times per game the sole leader changes: 0 means whoever first leads stays ahead.",
    "score_spread": "The best player's final score minus the worst player's: how far apart the table ends.",
    "last_round_decides": "How often the winner was not the sole leader before the last round: the share of "
    "games the last round turns around (or breaks open).",
    "pick_share": "How often a seat holding the card in a hand with a choice takes it; its lift is that against "
    "a blind pick among the hand's kinds of cards (1: like any other card), and 'depends on' names the other card "
    "whose presence in the hand changes the lift most: a large gap means the card's worth depends on the hand.",
}


# ---------------------------------------------------------------------- following a game


def _turn_groups(history: Sequence[Any]) -> list[tuple[int, list[tuple[list[int] | None, list[int]]]]]:
    """Per turn a player chooses in: (its round, the turns it stands for), each turn as
    (its actions, or None for a turn the engine played itself; the decisions' actions).
    A turn the engine plays comes with the chosen turn before it (one ``apply``)."""
    groups: list[tuple[int, list[tuple[list[int] | None, list[int]]]]] = []
    for r, rec in enumerate(history):
        auto = set(rec.auto_turns)
        decided: dict[int, list[int]] = {}
        for t, _seat, action in rec.decisions:
            decided.setdefault(t, []).append(action)
        for t, actions in enumerate(rec.actions):
            step = (None if t in auto else actions, decided.get(t, []))
            if t in auto and groups and groups[-1][0] == r:
                groups[-1][1].append(step)
            else:
                groups.append((r, [step]))
    return groups


class GameTrace:
    """One finished game followed turn by turn (see the module docstring)."""

    def __init__(self, state: Any) -> None:
        game = state.game
        players = game.num_players
        replay = game.new_initial_state(state.seed)
        #: per chosen turn: its round (0-based), and every player's running score after it
        self.rounds: list[int] = []
        self.standings: list[list[int]] = []
        #: per seat-turn with a choice: (the cards in the hand, the cards taken)
        self.offers: list[tuple[frozenset[int], frozenset[int], int]] = []
        for r, steps in _turn_groups(state.history):
            for actions, decisions in steps:
                if actions is not None:
                    for seat in range(players):
                        hand = replay.hands[seat]
                        held = frozenset(hand)
                        if len(held) > 1:
                            self.offers.append((held, frozenset(game.decode_action(actions[seat])[0]), len(hand)))
                    replay.apply_actions(actions)
                for action in decisions:
                    replay.apply_actions([action])
            now = replay.totals()
            if not replay.finished and replay.round == r:  # the round goes on: what it would score now
                now = list(map(add, now, replay.round_points_now()))
            self.rounds.append(r)
            self.standings.append(now[:players])
        if replay.totals() != state.totals() or replay.winners != state.winners:
            raise RuntimeError(f"game {state.seed} did not replay to the same result")
        self.winners = list(state.winners)
        self.num_rounds = len(state.history)

    @property
    def turns(self) -> int:
        return len(self.standings)

    def leaders(self) -> list[int | None]:
        """The sole leader after each chosen turn (None while the top score is tied)."""
        out: list[int | None] = []
        for row in self.standings:
            top = max(row)
            out.append(row.index(top) if row.count(top) == 1 else None)
        return out

    def lead_changes(self) -> int:
        """How many times the sole leader changes (a tie in between does not count as a change)."""
        changes, last = 0, None
        for leader in self.leaders():
            if leader is None:
                continue
            if last is not None and leader != last:
                changes += 1
            last = leader
        return changes

    def decisive_turn(self) -> int | None:
        """The first turn (1-based) from which the one winner is the sole leader after
        every turn (the last turn counts as its); None without one winner."""
        if len(self.winners) != 1:
            return None
        w = self.winners[0]
        leaders = self.leaders()
        k = self.turns
        while k > 1 and leaders[k - 2] == w:
            k -= 1
        return k

    def last_round_decides(self) -> bool | None:
        """Whether the one winner was not the sole leader after the second-last round
        was scored; None without one winner or with a single round."""
        if len(self.winners) != 1 or self.num_rounds < 2:
            return None
        before = [i for i, r in enumerate(self.rounds) if r == self.num_rounds - 2]
        if not before:
            return None
        return self.leaders()[before[-1]] != self.winners[0]

    def spread(self) -> int:
        """The best player's final score minus the worst's."""
        final = self.standings[-1]
        return max(final) - min(final)


# ---------------------------------------------------------------------- counting


def _bump(histogram: dict, key: Any, by: int = 1) -> None:
    histogram[key] = histogram.get(key, 0) + by


class QualityCounts(SeatsAndCards):
    """The per-game measures over a run, as integer sums and histograms that merge
    exactly (an extra count beside the lab's tally: :mod:`ruledraft.lab.extra_counts`)."""

    key = "quality"

    def __init__(self, players: int, card_ids: Sequence[str]) -> None:
        super().__init__(players, card_ids)
        K = len(self.card_ids)
        self.games = 0
        #: chosen turns per game -> games
        self.turns: dict[int, int] = {}
        #: lead changes per game -> games
        self.lead_changes: dict[int, int] = {}
        #: (decisive turn, turns of the game) -> games with one winner
        self.decisive: dict[tuple[int, int], int] = {}
        #: games with one winner and more than one round; of them, those the last round decided
        self.last_round_games = 0
        self.last_round_decided = 0
        #: final best minus worst player score -> games
        self.spread: dict[int, int] = {}
        #: per card: seat-turns holding it in a hand with a choice, and those that took it
        self.offered = [0] * K
        self.picked = [0] * K
        #: (card, cards in the hand) -> offers, picks
        self.by_size: dict[tuple[int, int], list[int]] = {}
        #: per card c, per other card d (flat, c * K + d): offers of c with d in the same hand, picks of c then
        self.with_offered = [0] * (K * K)
        self.with_picked = [0] * (K * K)
        #: a blind pick's expected picks, in 1/``unit`` (a hand of k kinds of cards: unit // k
        #: per offer): per card, and per card and other card in the hand (flat, as above)
        self.unit = math.lcm(*range(1, K + 1))
        self.expected = [0] * K
        self.with_expected = [0] * (K * K)

    def add_state(self, state: Any) -> None:
        self.add_trace(GameTrace(state))

    def add_trace(self, trace: GameTrace) -> None:
        """Count one game followed turn by turn."""
        self.games += 1
        _bump(self.turns, trace.turns)
        _bump(self.lead_changes, trace.lead_changes())
        decisive = trace.decisive_turn()
        if decisive is not None:
            _bump(self.decisive, (decisive, trace.turns))
        last = trace.last_round_decides()
        if last is not None:
            self.last_round_games += 1
            self.last_round_decided += int(last)
        _bump(self.spread, trace.spread())
        K = len(self.card_ids)
        offered, picked, with_offered, with_picked = self.offered, self.picked, self.with_offered, self.with_picked
        expected, with_expected = self.expected, self.with_expected
        for held, taken, size in trace.offers:
            blind = self.unit // len(held)
            for c in held:
                took = c in taken
                offered[c] += 1
                expected[c] += blind
                row = self.by_size.setdefault((c, size), [0, 0])
                row[0] += 1
                base = c * K
                if took:
                    picked[c] += 1
                    row[1] += 1
                for d in held:
                    with_offered[base + d] += 1
                    with_expected[base + d] += blind
                    if took:
                        with_picked[base + d] += 1

    def merge(self, other: QualityCounts) -> None:
        self.games += other.games
        for name in ("turns", "lead_changes", "decisive", "spread"):
            mine = getattr(self, name)
            for k, v in getattr(other, name).items():
                _bump(mine, k, v)
        self.last_round_games += other.last_round_games
        self.last_round_decided += other.last_round_decided
        for name in ("offered", "picked", "with_offered", "with_picked", "expected", "with_expected"):
            setattr(self, name, list(map(add, getattr(self, name), getattr(other, name))))
        for k, (o, p) in other.by_size.items():
            row = self.by_size.setdefault(k, [0, 0])
            row[0] += o
            row[1] += p

    def state(self) -> dict:
        """Everything counted, as plain JSON data (equal for equal counts, whatever the order)."""
        return {
            "games": self.games,
            "turns": sorted(self.turns.items()),
            "lead_changes": sorted(self.lead_changes.items()),
            "decisive": sorted([t, n, m] for (t, n), m in self.decisive.items()),
            "last_round": [self.last_round_games, self.last_round_decided],
            "spread": sorted(self.spread.items()),
            "offered": self.offered,
            "picked": self.picked,
            "by_size": sorted([c, h, o, p] for (c, h), (o, p) in self.by_size.items()),
            "with_offered": self.with_offered,
            "with_picked": self.with_picked,
            "expected": self.expected,
            "with_expected": self.with_expected,
        }

    @classmethod
    def from_state(cls, players: int, card_ids: Sequence[str], state: dict) -> QualityCounts:
        """Counts from :meth:`state`'s data (as the figures carry it)."""
        out = cls(players, card_ids)
        out.games = state["games"]
        out.turns = {k: v for k, v in state["turns"]}
        out.lead_changes = {k: v for k, v in state["lead_changes"]}
        out.decisive = {(t, n): m for t, n, m in state["decisive"]}
        out.last_round_games, out.last_round_decided = state["last_round"]
        out.spread = {k: v for k, v in state["spread"]}
        out.offered = list(state["offered"])
        out.picked = list(state["picked"])
        out.by_size = {(c, h): [o, p] for c, h, o, p in state["by_size"]}
        out.with_offered = list(state["with_offered"])
        out.with_picked = list(state["with_picked"])
        out.expected = list(state["expected"])
        out.with_expected = list(state["with_expected"])
        return out

    def figures(self, base: dict | None = None) -> dict:
        """The per-game measures (see the module docstring), with the counts behind them
        (``"counts"``: :meth:`state`, for putting seatings together)."""
        return {**self.measures(), "counts": self.state()}

    def measures(self) -> dict:
        """The per-game measures, each with its 95% interval where it has one."""
        n = self.games
        return {
            "games": n,
            "turns": _hist_mean(self.turns),
            "lead_changes": _hist_figures(self.lead_changes),
            "decisiveness": self._decisiveness(),
            "score_spread": _hist_figures(self.spread),
            "last_round_decides": {
                "games": self.last_round_games,
                "rate": self.last_round_decided / self.last_round_games if self.last_round_games else None,
                "interval": list(wilson(self.last_round_decided, self.last_round_games, CONFIDENCE))
                if self.last_round_games
                else None,
            },
            "picks": self._picks(),
        }

    def _decisiveness(self) -> dict:
        games = sum(self.decisive.values())
        # exact sums (as fractions), so that counts merged in any order give the same figures
        share_sum = sum((Fraction(m * t, n) for (t, n), m in self.decisive.items()), Fraction(0))
        share_sq = sum((Fraction(m * t * t, n * n) for (t, n), m in self.decisive.items()), Fraction(0))
        mean, lo, hi = mean_interval(games, float(share_sum), float(share_sq), CONFIDENCE)
        lo, hi = max(lo, 0.0), min(hi, 1.0)  # a share of the turns: the t interval cut to what it can be
        return {
            "games": games,
            "mean_turn": sum(m * t for (t, _), m in self.decisive.items()) / games if games else None,
            "mean_share": mean if games else None,
            "interval": [lo, hi] if games else None,
        }

    def _picks(self) -> list[dict]:
        K = len(self.card_ids)
        out = []
        for c, cid in enumerate(self.card_ids):
            offered, picked = self.offered[c], self.picked[c]
            sizes = sorted((h, o, p) for (card, h), (o, p) in self.by_size.items() if card == c)
            by_size = [{"cards_in_hand": h, "offered": o, "pick_share": p / o} for h, o, p in sizes]
            rates = [p / o for _, o, p in sizes if o >= MIN_OFFERS]
            best: dict | None = None
            unit = self.unit
            for d in range(K):
                if d == c:
                    continue
                i = c * K + d
                o_with, p_with, e_with = self.with_offered[i], self.with_picked[i], self.with_expected[i]
                o_without, p_without = offered - o_with, picked - p_with
                e_without = self.expected[c] - e_with
                if o_with < MIN_OFFERS or o_without < MIN_OFFERS:
                    continue
                lift_with, lift_without = p_with * unit / e_with, p_without * unit / e_without
                gap = lift_with - lift_without
                if best is None or abs(gap) > abs(best["difference"]):
                    best = {"card": self.card_ids[d], "with": lift_with, "without": lift_without, "difference": gap}
            out.append(
                {
                    "card": cid,
                    "offered": offered,
                    "pick_share": picked / offered if offered else None,
                    "lift": picked * unit / self.expected[c] if offered else None,
                    "by_hand_size": by_size,
                    "hand_size_range": max(rates) - min(rates) if len(rates) > 1 else None,
                    "depends_on": best,
                }
            )
        return out


def _hist_mean(histogram: dict[int, int]) -> float | None:
    n = sum(histogram.values())
    return sum(k * m for k, m in histogram.items()) / n if n else None


def _hist_figures(histogram: dict[int, int]) -> dict:
    """Mean with its 95% t interval over games, quantiles and the histogram of an integer per game."""
    n = sum(histogram.values())
    total = sum(k * m for k, m in histogram.items())
    sq = sum(k * k * m for k, m in histogram.items())
    mean, lo, hi = mean_interval(n, total, sq, CONFIDENCE)
    return {
        "mean": mean if n else None,
        "interval": [lo, hi] if n else None,
        "quantiles": quantiles(histogram),
        "histogram": {str(k): v for k, v in sorted(histogram.items())},
    }


# ---------------------------------------------------------------------- seatings together


def gap_interval(
    bots: Sequence[dict], strong: str, weak: str, games: int, wins: float, confidence: float
) -> tuple[float, float]:
    """The interval of the skill gap (``strong``'s win rate per seat minus ``weak``'s;
    ``bots``: :func:`~ruledraft.lab.rotation.bot_shares`, over ``games`` games in which the
    seats won ``wins`` in all). Every bot sits at the table in every game, so the two
    rates come from the same games and are not independent. With two bots and a winner
    in every game (``wins == games``, shared wins split) the weaker bot's share is one
    less the stronger's: the gap is an increasing function of the stronger bot's share,
    and its interval that function of the share's Wilson interval. Otherwise each of
    the k bots' Wilson intervals at 1/k of the error rate, the gap between the two bots'
    far ends: all k hold together in at least ``confidence`` of runs whatever the shares'
    dependence (Bonferroni), so the interval holds for the two bots the data ranked
    strongest and weakest too."""
    by = {b["bot"]: b for b in bots}
    ks, kw = by[strong]["seats"], by[weak]["seats"]
    if games <= 0:
        return (-1.0, 1.0)

    def share(bot: str, level: float) -> tuple[float, float]:  # the bot's share of the games won
        return _share_interval(by[bot]["win_share"] * games, games, level)

    if len(by) == 2 and abs(wins - games) <= 1e-9 * games:
        lo, hi = share(strong, confidence)
        return (lo / ks - (1 - lo) / kw, hi / ks - (1 - hi) / kw)
    each = 1 - (1 - confidence) / len(by)
    (s_lo, s_hi), (w_lo, w_hi) = share(strong, each), share(weak, each)
    return (s_lo / ks - w_hi / kw, s_hi / ks - w_lo / kw)


def _share_interval(wins: float, games: int, level: float) -> tuple[float, float]:
    """The Wilson interval of a share of ``games`` won ``wins`` times (shared wins split)."""
    return wilson(min(max(wins, 0.0), games), games, level)


def _points_apart(high: float, low: float) -> float:
    """``high - low`` (two shares) in percentage points as tables showing each share to
    0.1 give it: the line under a table agrees with the rows a reader subtracts."""
    return round(100 * high, 1) - round(100 * low, 1)


def advantage_points(q: dict) -> float:
    """The seat advantage of the quality document ``q`` in percentage points, as its
    seats' table gives the best and the worst seat (:func:`_points_apart`)."""
    adv, seats = q["seat_advantage"], q["seats"]
    if adv["best_seat"] is None:
        return 100 * adv["difference"]
    return _points_apart(seats[adv["best_seat"]]["win_share"], seats[adv["worst_seat"]]["win_share"])


def gap_points(q: dict) -> float:
    """The skill gap of the quality document ``q`` (which has one) in percentage points
    per seat, as its bots' table gives the two bots' rates (:func:`_points_apart`)."""
    gap = q["skill"]["gap"]
    rates = {b["bot"]: b["win_rate_per_seat"] for b in q["skill"]["bots"]}
    return _points_apart(rates[gap["strongest"]], rates[gap["weakest"]])


def advantage_interval(seat_wins: Sequence[float], games: int, confidence: float) -> tuple[float, float]:
    """The interval of the seat advantage (the best seat's win share minus the worst's,
    the seats' true shares, whichever seats those are) from each seat's wins over
    ``games`` games (shared wins split). One seat has no advantage (0, 0). With two
    seats and a winner in every game the second seat's share is one less the first's:
    the advantage is ``|2 p - 1|`` of the first seat's share, its interval the image of
    the share's Wilson interval (as good as that interval). Otherwise each
    of the k seats' Wilson intervals at 1/k of the error rate (Bonferroni: all hold
    together in at least ``confidence`` of runs), and the range of true shares they
    allow: from the highest low end less the lowest high end (or 0) to the highest high
    end less the lowest low end."""
    k = len(seat_wins)
    if k < 2:
        return (0.0, 0.0)
    if games <= 0:
        return (0.0, 1.0)
    if k == 2 and abs(sum(seat_wins) - games) <= 1e-9 * games:
        lo, hi = _share_interval(seat_wins[0], games, confidence)
        ends = (abs(2 * lo - 1), abs(2 * hi - 1))
        return (0.0 if lo <= 0.5 <= hi else min(ends), max(ends))
    each = 1 - (1 - confidence) / k
    bounds = [_share_interval(w, games, each) for w in seat_wins]
    lows, highs = [b[0] for b in bounds], [b[1] for b in bounds]
    return (max(0.0, max(lows) - min(highs)), max(highs) - min(lows))


def quality_figures(runs: Sequence[tuple[Sequence[str], dict]], players: int, card_ids: Sequence[str]) -> dict:
    """The quality figures of the runs of one ruleset, one run per seating: ``(its bot
    per seat, its figures JSON with the ``"quality"`` counts)``. Each run's games are
    the same deals (the same seed), so the seatings together balance the bots over
    the seats. The ``"counts"`` are taken out of each run's figures."""
    counts = QualityCounts(players, card_ids)
    seat_wins = [0.0] * players
    played = []
    games = 0
    for bots, figures in runs:
        q = figures["quality"]
        counts.merge(QualityCounts.from_state(players, card_ids, q.pop("counts")))
        n = figures["games"]
        games += n
        wins = [0.0] * players
        for s in figures["seats"][:players]:
            seat_wins[s["seat"]] += s["wins"]
            wins[s["seat"]] = s["wins"]
        played.append((bots, wins, n))
    seats = [
        {
            "seat": s,
            "wins": w,
            "win_share": w / games if games else 0.0,
            "interval": list(wilson(w, games, CONFIDENCE)),
        }
        for s, w in enumerate(seat_wins)
    ]
    stat, df, p = chi_square_uniform(seat_wins)
    shares = [w / games if games else 0.0 for w in seat_wins]
    skill = bot_shares(played, CONFIDENCE)
    per_seat = {b["bot"]: b["win_rate_per_seat"] for b in skill}
    gap = None
    if len(per_seat) > 1:
        ranked = sorted(per_seat, key=per_seat.__getitem__)  # two bots, however level (max and min took one twice)
        weak, strong = ranked[0], ranked[-1]
        gap = {
            "strongest": strong,
            "weakest": weak,
            "difference": per_seat[strong] - per_seat[weak],
            "interval": list(gap_interval(skill, strong, weak, games, sum(seat_wins), CONFIDENCE)),
        }
    rotated = len(runs) > 1 or len(skill) == 1
    return {
        "games": games,
        "seatings": [list(bots) for bots, _ in runs],
        "seats": seats,
        "seat_advantage": {
            "difference": max(shares) - min(shares) if shares else 0.0,
            "interval": list(advantage_interval(seat_wins, games, CONFIDENCE)),
            "best_seat": shares.index(max(shares)) if shares else None,
            "worst_seat": shares.index(min(shares)) if shares else None,
            "statistic": stat,
            "df": df,
            "p_value": p,
            "bots_balanced": rotated,
        },
        "skill": {"bots": skill, "gap": gap},
        **counts.measures(),
        "explanations": dict(EXPLANATIONS),
    }


# ---------------------------------------------------------------------- the report


def _report_body(page: Any, labels: Sequence[str]) -> str:
    """The report's section on game quality, from the document's ``"quality"``: the
    seats' win shares (a plot and a table), the bots, the per-game measures and the
    pick shares, each measure with its sentence."""
    from ruledraft.lab import plots
    from ruledraft.lab.report import _e, _interval, _num, _pct, _table

    q = page.get("quality")

    def _points(x: float) -> str:  # percentage points, already
        return f"{_num(x, 1)} percentage points"

    def _points_of(share: float) -> str:  # a difference of shares
        return _num(100 * share, 1)

    k = len(q["seatings"])
    how = f"the line-up rotated through the seats ({k} seatings, the same deals in each)" if k > 1 else "one seating"
    parts = [f"<p>{_e(how)}: {_e(q['games'])} game{'' if q['games'] == 1 else 's'} in all.</p>"]
    seats = [f"Seat {s['seat']}" for s in q["seats"]]
    png = plots.horizontal_bars(
        seats,
        [("win share", page.get("quality.seats[*].win_share"), page.get("quality.seats[*].interval"))],
        "Win share per seat (all seatings)",
        "win share (95% interval)",
        percent=True,
    )
    parts.append(page.figure(["quality.seats[*].win_share", "quality.seats[*].interval"], png, "Win share per seat"))
    adv = q["seat_advantage"]
    parts.append(
        f"<p>Seat advantage: {_points(advantage_points(q))} (95% interval {_interval(adv['interval'], _points_of)}; "
        f"chi-square p {_num(adv['p_value'], 3)}). "
        f"{_e(EXPLANATIONS['seat_advantage'])}</p>"
    )
    skill = q["skill"]
    if skill["gap"] is not None:
        rows = [
            [
                _e(b["bot"]),
                str(b["seats"]),
                _pct(b["win_share"]),
                _pct(b["win_rate_per_seat"]),
                _interval(b["interval"], _pct),
            ]
            for b in skill["bots"]
        ]
        parts.append(_table(["bot", "seats", "wins", "per seat", "95% interval"], rows))
        gap = skill["gap"]
        parts.append(
            f"<p>Skill gap: {_points(gap_points(q))} per seat (95% interval {_interval(gap['interval'], _points_of)}). "
            f"{_e(EXPLANATIONS['skill_gap'])}</p>"
        )
    d = q["decisiveness"]
    lead, spread, last = q["lead_changes"], q["score_spread"], q["last_round_decides"]
    measures = [
        ["decisiveness", _pct(d["mean_share"]), _interval(d["interval"], _pct)],
        ["lead changes", _num(lead["mean"]), _interval(lead["interval"])],
        ["score spread", _num(spread["mean"]), _interval(spread["interval"])],
        ["last round decides", _pct(last["rate"]), _interval(last["interval"], _pct)],
    ]
    parts.append(_table(["measure (per game)", "mean", "95% interval"], measures))
    words = ("decisiveness", "lead_changes", "score_spread", "last_round_decides")
    parts.append(
        '<ul class="notes">'
        + "".join(f"<li>{_e(k.replace('_', ' '))}: {_e(EXPLANATIONS[k])}</li>" for k in words)
        + "</ul>"
    )
    rows = []
    for c in q["picks"]:
        dep = c["depends_on"]
        rows.append(
            [
                _e(c["card"]),
                str(c["offered"]),
                _pct(c["pick_share"]),
                _num(c["lift"]),
                _e(dep["card"]) if dep else "-",
                _num(dep["with"]) if dep else "-",
                _num(dep["without"]) if dep else "-",
            ]
        )
    parts.append(f"<p>{_e(EXPLANATIONS['pick_share'])}</p>")
    parts.append(_table(["card", "offered", "picked", "lift", "depends on", "lift with", "lift without"], rows, 1))
    return "".join(parts)


#: the report's section (``ruledraft.lab.report.Section``): its numbers are the command's JSON
QUALITY_SECTION = ("quality", "Game quality", None, _report_body)
