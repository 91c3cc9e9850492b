"""Points a card brings, as a counterfactual: what its seat's score loses when that one
copy is taken off the table and the round is scored again.

The lab's per-card points (:mod:`ruledraft.lab.figures`) *share* each rule's points
among the cards the rule reads. That answers "whose points are these?", and it gives
a card points for rules it barely matters to: a rule that reads every card (the soy
sauce's colours) spreads its points over all of them, chopsticks included. The
*marginal* points answer another question, "what is this copy worth here?":

* for every copy on a player seat's table when its round is scored, that one copy is
  taken off the table (the seat's other cards keep their play order), the round-end
  rules that read the card score the table again, and the seat's points before minus
  its points after are the copy's marginal points;
* a card kept to game end (pudding) is taken off the kept cards too, and what the
  seat's game-end points lose is added;
* only the copy's own seat is looked at: taking a maki off one table can give a
  neighbour the majority, but that is the neighbour's gain, not this seat's loss;
* a rule that scores during the round (a race) keeps its points: it scored from
  the turns, which a table cannot replay;
* the same table scoring as everywhere (each rule's ``score_seat``), so a copy of a
  rule the engine scores a new way is valued the new way too.

Marginal points do not add up to the seat's score: three sashimi score 10 and each
of them is worth 10 (without it, the set is gone), while a fourth sashimi is worth 0.
A card whose worth is an action (chopsticks) or an effect shows 0, unless a rule that
reads it scores differently without it (soy sauce, a card counted for colours).

:func:`game_losses` values every copy of one game; :class:`MarginalCounts` counts
them over a simulation beside the lab's tally (``simulate --marginal``), the game as
the unit: per card, the sum over games of the game's marginal points (all player
seats) and of its square, and the copies valued.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from operator import add
from typing import Any

import attrs

from ruledraft.engine.scoresheet import PlayedGame, Scoring, keep_cards, score_scoring, turns_needed
from ruledraft.errors import InputError
from ruledraft.lab.statistics import mean_interval
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.tableau import Tableau

CONFIDENCE = 0.95


@attrs.frozen
class CopyLoss:
    """What one copy on a table is worth to its seat (see the module docstring)."""

    #: 1-based round whose table the copy was on
    round: int
    seat: int
    #: its position in the seat's table, in play order (0-based)
    position: int
    card: int
    #: the seat's round points lost without the copy
    round_loss: int
    #: the seat's game-end points lost without it (cards kept to game end; else 0)
    game_end_loss: int

    @property
    def loss(self) -> int:
        """The seat's points lost, round and game end together."""
        return self.round_loss + self.game_end_loss


def _reading(rules: Sequence[Any], num_card_types: int) -> tuple[tuple[int, ...], ...]:
    """Per card, the indices of ``rules`` whose points can change without it (races left out)."""
    return tuple(
        tuple(j for j, r in enumerate(rules) if r.turn_scoring is None and (r.reads is None or c in r.reads))
        for c in range(num_card_types)
    )


def _shifted(turned: Mapping[int, tuple[int, int]], position: int) -> dict[int, tuple[int, int]]:
    """A seat's turned cards (``Tableau.turned``) after the card at ``position`` leaves its table."""
    out = {}
    for p, (card, size) in turned.items():
        if p == position:
            continue
        out[p - 1 if p > position else p] = (card, size - 1 if position < size else size)
    return out


def _without(t: Tableau, seat: int, position: int) -> Tableau:
    """``t`` with the card at ``position`` of ``seat``'s table taken off."""
    seq = t.cards[seat]
    row = t.counts[seat][:]
    row[seq[position]] -= 1
    counts = list(t.counts)
    counts[seat] = row
    cards = list(t.cards)
    cards[seat] = seq[:position] + seq[position + 1 :]
    turned = t.turned
    if turned is not None:
        turned = list(turned)
        turned[seat] = _shifted(turned[seat], position)
    return Tableau(counts, cards, t.round, turned)


class _Valuer:
    """What valuing the copies of a ruleset's games needs, worked out once."""

    def __init__(self, ruleset: CompiledRuleset) -> None:
        self.ruleset = ruleset
        cards = ruleset.catalogue.cards
        self.K = len(cards)
        self.kept = tuple(c.kept for c in cards)
        self.kept_types = tuple(i for i, k in enumerate(self.kept) if k)
        self.round_rules: tuple[Any, ...] = tuple(ruleset.round_rules)
        self.game_rules: tuple[Any, ...] = tuple(ruleset.game_rules)
        self.round_reading = _reading(self.round_rules, self.K)
        self.game_reading = _reading(self.game_rules, self.K)

    def losses(
        self,
        game: PlayedGame,
        scorings: Sequence[Scoring] | None = None,
        kept: Tableau | None = None,
    ) -> list[CopyLoss]:
        """Every player copy's loss in ``game`` (see :func:`game_losses`)."""
        K, players = self.K, game.players
        rounds = game.rounds
        if scorings is None:
            reason = turns_needed(self.ruleset)
            if reason is not None:
                raise InputError(reason)
        tableaus = []
        for r, rnd in enumerate(rounds):
            t = Tableau.from_cards(K, rnd.tables, r + 1)
            if rnd.record is not None:
                t.turned = rnd.record.turned
            tableaus.append(t)
        # the kept cards as the tables give them, round after round in play order
        seats = game.num_seats
        kept_cards: list[list[int]] = [[] for _ in range(seats)]
        kept_counts = [[0] * K for _ in range(seats)]
        kept_from: list[list[int]] = []  # per round, per seat: kept cards before that round's
        for t in tableaus:
            kept_from.append([len(k) for k in kept_cards])
            keep_cards(self.kept, self.kept_types, t.cards, t.counts, kept_cards, kept_counts)
        if kept is None:
            kept = Tableau(kept_counts, kept_cards, len(rounds))
        in_order = [kept.cards[s] == kept_cards[s] for s in range(seats)]
        end_points = (scorings[-1] if scorings is not None else score_scoring(self.game_rules, kept)).points
        out: list[CopyLoss] = []
        end_cache: dict[tuple[int, tuple[int, ...]], int] = {}
        for r, t in enumerate(tableaus):
            points = (scorings[r] if scorings is not None else score_scoring(self.round_rules, t)).points
            for s in range(players):
                seq = t.cards[s]
                kept_before = kept_from[r][s]
                last: tuple[int, int] | None = None  # (card, loss) of the copy just before
                for i, c in enumerate(seq):
                    reading = self.round_reading[c]
                    if not reading:
                        round_loss = 0
                    elif last is not None and last[0] == c and t.turned is None:
                        round_loss = last[1]  # two alike side by side: either gone leaves the same table
                    else:
                        t2 = _without(t, s, i)
                        round_loss = sum(points[j][s] - self.round_rules[j].score_seat(t2, s) for j in reading)
                    last = (c, round_loss)
                    end_loss = 0
                    if self.kept[c] and self.game_reading[c]:
                        end_loss = self._end_loss(kept, end_points, end_cache, s, c, kept_before, seq[:i], in_order[s])
                    out.append(CopyLoss(r + 1, s, i, c, round_loss, end_loss))
        return out

    def _end_loss(
        self,
        kept: Tableau,
        end_points: list[list[int]],
        cache: dict[tuple[int, tuple[int, ...]], int],
        seat: int,
        card: int,
        kept_before: int,
        earlier: Sequence[int],
        in_order: bool,
    ) -> int:
        """What ``seat``'s game-end points lose without this kept copy of ``card``."""
        seq = kept.cards[seat]
        if in_order:  # its place among the kept cards: after earlier rounds', in play order
            at = kept_before + sum(1 for c in earlier if self.kept[c])
        else:  # an effect changed what is kept: the seat's last kept copy of the card
            at = max((p for p, c in enumerate(seq) if c == card), default=-1)
            if at < 0:
                return 0
        rest = tuple(seq[:at]) + tuple(seq[at + 1 :])
        key = (seat, rest)
        loss = cache.get(key)
        if loss is None:
            t2 = _without(kept, seat, at)
            loss = cache[key] = sum(
                end_points[j][seat] - self.game_rules[j].score_seat(t2, seat) for j in self.game_reading[card]
            )
        return loss


def game_losses(
    ruleset: CompiledRuleset,
    game: PlayedGame,
    scorings: Sequence[Scoring] | None = None,
    kept: Tableau | None = None,
) -> list[CopyLoss]:
    """What every copy on a player seat's table in ``game`` is worth to its seat: the
    points the seat loses when that copy alone is taken off and the round (and, for a
    card kept to game end, the game end) is scored again, in table order round by
    round, seat by seat. ``scorings`` (the game's, rounds then game end) and ``kept``
    (the cards kept to game end) are worked out from the tables when not given; a
    ruleset with a race needs them (:class:`~ruledraft.errors.InputError` otherwise)."""
    return _Valuer(ruleset).losses(game, scorings, kept)


def table_losses(ruleset: CompiledRuleset, rounds: Sequence[Sequence[Sequence[int]]]) -> list[CopyLoss]:
    """:func:`game_losses` of a table of card indices: per round, per seat, in play order."""
    return game_losses(ruleset, PlayedGame.from_tables(ruleset, rounds))


class MarginalCounts:
    """The marginal points of every card over a simulation (see the module docstring):
    integer sums that merge exactly, the game as the unit."""

    key = "marginal"

    def __init__(self, players: int, card_ids: Sequence[str]) -> None:
        K = len(card_ids)
        self.players = players
        self.card_ids = tuple(card_ids)
        self.games = 0
        #: per card: copies valued; the sum over games of the game's marginal points
        #: (all player seats), and of its square
        self.copies = [0] * K
        self.points = [0] * K
        self.squares = [0] * K
        self._valuer: _Valuer | None = None

    @classmethod
    def for_game(cls, game: Any) -> MarginalCounts:
        """Empty counts for games of ``game`` (an engine ``Game``)."""
        return cls(game.num_players, game.ruleset.catalogue.ids)

    def empty_copy(self) -> MarginalCounts:
        return MarginalCounts(self.players, self.card_ids)

    def add_state(self, state: Any) -> None:
        if self._valuer is None or self._valuer.ruleset is not state.game.ruleset:
            self._valuer = _Valuer(state.game.ruleset)
        game = PlayedGame.from_history(self.players, state.history)
        kept = Tableau(state.kept_counts, state.kept_cards, len(game.rounds))
        K = len(self.card_ids)
        copies, points = [0] * K, [0] * K
        for loss in self._valuer.losses(game, state.scorings, kept):
            copies[loss.card] += 1
            points[loss.card] += loss.loss
        self.games += 1
        self.copies = list(map(add, self.copies, copies))
        self.points = list(map(add, self.points, points))
        self.squares = [q + x * x for q, x in zip(self.squares, points)]

    def merge(self, other: MarginalCounts) -> None:
        self.games += other.games
        for name in ("copies", "points", "squares"):
            setattr(self, name, list(map(add, getattr(self, name), getattr(other, name))))

    def state(self) -> dict:
        return {"games": self.games, "copies": self.copies, "points": self.points, "squares": self.squares}

    def figures(self, base: dict) -> list[dict]:
        """Per card: copies valued per game, marginal points per game (all player seats,
        with its 95% t interval over games) and per copy."""
        n = self.games
        out = []
        for c, cid in enumerate(self.card_ids):
            mean, lo, hi = mean_interval(n, self.points[c], self.squares[c], CONFIDENCE)
            out.append(
                {
                    "card": cid,
                    "copies_per_game": self.copies[c] / n if n else 0.0,
                    "points_per_game": mean,
                    "interval": [lo, hi],
                    "points_per_copy": self.points[c] / self.copies[c] if self.copies[c] else None,
                }
            )
        return out

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k != "_valuer"} | {"_valuer": None}


# ---------------------------------------------------------------------- the report


INTRO = (
    "Two answers to what a card brings. Shared points: each rule's points split among the cards it reads "
    "(what the Cards section shows). Marginal points: what the seat's score loses when that one copy is taken "
    "off the table and the round (and, for a card kept to game end, the game end) is scored again; they do "
    "not add up to the score. Both per game, all players together; the marginal points' interval is 95%, "
    "the game as the unit."
)


def _report_body(page: Any, labels: Sequence[str]) -> str:
    """The report's section on marginal points: per side with them, a plot of shared
    beside marginal points per game and a table of the numbers."""
    from ruledraft.lab import plots
    from ruledraft.lab.report import _e, _interval, _num, _table

    parts = [f"<p>{_e(INTRO)}</p>"]
    for i, label in enumerate(labels):
        figures = page.get(f"sides[{i}].figures")
        rows = figures.get("marginal")
        if not rows:
            continue
        names = [r["card"] for r in rows]
        m, iv = f"sides[{i}].figures.marginal[*].points_per_game", f"sides[{i}].figures.marginal[*].interval"
        series: list[tuple[str, Sequence[float | None], Any]] = [("marginal", page.get(m), page.get(iv))]
        paths = [m, iv]
        shared: dict[str, float] = {}
        if figures.get("cards"):
            s = f"sides[{i}].figures.cards[*].points_per_game"
            shared = dict(zip(page.get(f"sides[{i}].figures.cards[*].card"), page.get(s)))
            series.insert(0, ("shared", [shared.get(n) for n in names], None))
            paths.insert(0, s)
        title = "Points per game by card" + (f": {label}" if len(labels) > 1 else "")
        png = plots.horizontal_bars(names, series, title, "points per game (all players)")
        parts.append(page.figure(paths, png, f"Shared and marginal points per game by card ({label})"))
        heads = ["card", "shared / game", "marginal / game", "95% interval", "copies / game", "marginal / copy"]
        table = [
            [
                _e(r["card"]),
                _num(shared.get(r["card"])),
                _num(r["points_per_game"]),
                _interval(r["interval"]),
                _num(r["copies_per_game"]),
                _num(r["points_per_copy"]),
            ]
            for r in rows
        ]
        parts.append(_table(heads, table))
    return "".join(parts)


#: the report's section (``ruledraft.lab.report.Section``) on marginal points
MARGINAL_SECTION = ("marginal", "Card worth", None, _report_body)
