"""One scoring pipeline: a game's tables in, its points per round, per rule, at game
end, its totals and its winners out.

:func:`score_game` is the whole pipeline as one pure function of a
:class:`PlayedGame`. Its stages are the functions below it, and the engine calls
those same stages while it plays (:func:`score_scoring` when a round ends and at game
end, :func:`keep_cards` between rounds, :class:`ScoreSheet` when the game is over), so
a game played by the engine and the same game given to ``score`` are scored by one
piece of code. ``score``, the simulation tallies and ``play``'s screens read a
:class:`ScoreSheet`; the points of each rule are summed in one place,
:func:`add_rule_points`.

The input is made for more than the cards: a :class:`PlayedRound` carries the
round's :class:`~ruledraft.engine.records.RoundRecord` (the deal and every turn)
when the round was played by the engine, and a :class:`CardState` per card on the
table (face down, a copy of another card, attributes changed) for rules that need
more than which cards were played.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from operator import add
from typing import TYPE_CHECKING, Any, Protocol, cast

import attrs

from ruledraft.engine.records import RoundRecord
from ruledraft.errors import InputError
from ruledraft.language.compiled_expression import ExpressionLimits
from ruledraft.tableau import Tableau

if TYPE_CHECKING:
    from ruledraft.language.ruleset import CompiledRuleset, TieBreak


class ScoringRule(Protocol):
    """What the pipeline asks of a compiled scoring rule."""

    @property
    def id(self) -> str: ...

    def score(self, t: Tableau) -> list[int]: ...


# ---------------------------------------------------------------------- input


@attrs.frozen
class CardState:
    """How a card lies on a table, beyond which card it is. Every card is face up, as
    printed, unless its round says otherwise."""

    face_down: bool = False
    #: the card index this card counts as (a card that copies another), or None
    copies: int | None = None
    #: attributes that differ from the printed card's
    attributes: Mapping[str, int] = attrs.field(factory=dict)


@attrs.frozen
class PlayedRound:
    """One round as the pipeline scores it."""

    #: per seat, the card indices on its table when the round is scored, in play order
    tables: tuple[tuple[int, ...], ...]
    #: the deal and the turns, when the round was played by the engine (None for a
    #: table given as cards only)
    record: RoundRecord | None = None
    #: per seat, per card of ``tables``: its state; None when every card is face up as printed
    card_states: tuple[tuple[CardState, ...], ...] | None = None


@attrs.frozen
class PlayedGame:
    """A game's rounds (all of them, or the first ones of a game in progress)."""

    #: seats at the table that can win (players; the dummy seats come after them)
    players: int
    rounds: tuple[PlayedRound, ...]

    @property
    def num_seats(self) -> int:
        return len(self.rounds[0].tables) if self.rounds else self.players

    @classmethod
    def from_tables(cls, ruleset: CompiledRuleset, rounds: Sequence[Sequence[Sequence[int]]]) -> PlayedGame:
        """Cards only: per round, per seat, card indices in play order."""
        seats = len(rounds[0]) if rounds else 0
        players = seats - (ruleset.dummy.seats if ruleset.dummy else 0)
        return cls(players, tuple(PlayedRound(tuple(tuple(t) for t in rnd)) for rnd in rounds))

    @classmethod
    def from_history(cls, players: int, history: Iterable[RoundRecord]) -> PlayedGame:
        """The rounds of an engine's history that have ended, with their records."""
        return cls(
            players,
            tuple(PlayedRound(tuple(map(tuple, r.tables)), r) for r in history if r.tables is not None),
        )


# ---------------------------------------------------------------------- output


class Scoring:
    """The points of one scoring (a round end, or game end): per rule, per seat."""

    __slots__ = ("rules", "points", "totals")

    def __init__(self, rules: Sequence[ScoringRule], points: list[list[int]], totals: list[int]) -> None:
        #: the rules scored (the ruleset's round-end or game-end rules; the same tuple every time)
        self.rules = rules
        #: per rule (in ``rules`` order), points per seat
        self.points = points
        #: points per seat, all rules together
        self.totals = totals

    def by_rule(self) -> dict[str, list[int]]:
        """Points per seat of each rule of this scoring, by rule id."""
        return {rule.id: pts[:] for rule, pts in zip(self.rules, self.points)}

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scoring):
            return NotImplemented
        return (self.rules, self.points, self.totals) == (other.rules, other.points, other.totals)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"Scoring({self.by_rule()!r}, totals={self.totals!r})"


def add_rule_points(acc: dict[str, list[int]], scorings: Iterable[Scoring]) -> None:
    """Add the points of every rule in ``scorings`` to ``acc`` (rule id -> points per
    seat). Scorings of the same rules are summed column by column, so a tally's
    thousands of games cost one pass per rule."""
    groups: dict[int, tuple[Sequence[ScoringRule], list[list[list[int]]]]] = {}
    for sc in scorings:
        group = groups.get(id(sc.rules))
        if group is None:
            groups[id(sc.rules)] = (sc.rules, [sc.points])
        else:
            group[1].append(sc.points)
    for rules, all_points in groups.values():
        for rule, per_scoring in zip(rules, zip(*all_points)):
            acc[rule.id] = list(map(add, acc[rule.id], map(sum, zip(*per_scoring))))


class ScoreSheet:
    """The scores of a game: each round's, game end's, the totals and the winners."""

    __slots__ = ("rule_ids", "num_seats", "rounds", "game_end", "totals", "winners")

    def __init__(
        self,
        ruleset: CompiledRuleset,
        players: int,
        num_seats: int,
        rounds: Sequence[Scoring],
        game_end: Scoring | None,
        kept: Tableau | None,
    ) -> None:
        """``game_end`` and ``kept`` (the cards kept to game end) are None while the game
        is in progress: there are no winners yet."""
        self.rule_ids: tuple[str, ...] = ruleset.rule_ids
        self.num_seats = num_seats
        self.rounds = tuple(rounds)
        self.game_end = game_end
        totals = [0] * num_seats if game_end is None else game_end.totals[:]
        for sc in rounds:
            totals = list(map(add, totals, sc.totals))
        self.totals = totals
        self.winners = [] if game_end is None or kept is None else decide_winners(ruleset, players, totals, kept)

    @property
    def finished(self) -> bool:
        return self.game_end is not None

    @property
    def round_points(self) -> list[list[int]]:
        """Per round scored, points per seat."""
        return [sc.totals[:] for sc in self.rounds]

    @property
    def game_end_points(self) -> list[int]:
        """Game-end points per seat (zeros while the game is in progress)."""
        return self.game_end.totals[:] if self.game_end is not None else [0] * self.num_seats

    @property
    def rule_points(self) -> dict[str, list[int]]:
        """Points per seat of each rule of the ruleset, over the whole game, by rule id."""
        acc = {rid: [0] * self.num_seats for rid in self.rule_ids}
        add_rule_points(acc, self.scorings)
        return acc

    @property
    def scorings(self) -> tuple[Scoring, ...]:
        """Every scoring, in order: the rounds', then game end's."""
        return self.rounds + ((self.game_end,) if self.game_end is not None else ())

    def to_json(self, rules: bool = True) -> dict[str, Any]:
        """``{"rounds", "game_end", "totals", "winners"}`` (and ``"rules"``), as ``score`` prints it."""
        out: dict[str, Any] = {
            "rounds": self.round_points,
            "game_end": self.game_end_points,
            "totals": self.totals[:],
            "winners": self.winners[:],
        }
        if rules:
            out["rules"] = self.rule_points
        return out

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ScoreSheet):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in ScoreSheet.__slots__)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"ScoreSheet({self.to_json()!r})"


# ---------------------------------------------------------------------- the stages


def score_scoring(rules: Sequence[ScoringRule], t: Tableau, scored: Mapping[int, list[int]] | None = None) -> Scoring:
    """Score ``rules`` (a ruleset's round-end or game-end rules) on tableau ``t``.

    ``scored``: the points of rules already worked out, by index in ``rules`` (a rule
    that scored during the round, from its progress through the turns)."""
    if scored:
        points = [scored[i] if i in scored else rule.score(t) for i, rule in enumerate(rules)]
    else:
        points = [rule.score(t) for rule in rules]
    if not points:
        return Scoring(rules, points, [0] * t.num_seats)
    return Scoring(rules, points, list(map(sum, zip(*points))))


def round_rules(ruleset: CompiledRuleset) -> Sequence[ScoringRule]:
    return cast("Sequence[ScoringRule]", ruleset.round_rules)


def game_rules(ruleset: CompiledRuleset) -> Sequence[ScoringRule]:
    return cast("Sequence[ScoringRule]", ruleset.game_rules)


def keep_cards(
    kept: Sequence[bool],
    kept_types: Sequence[int],
    tables: Sequence[Sequence[int]],
    counts: Sequence[Sequence[int]],
    kept_cards: list[list[int]],
    kept_counts: list[list[int]],
    discarded: list[int] | None = None,
) -> None:
    """Between rounds: add each seat's cards kept to game end (``kept[card]``) from its
    table (``tables`` in play order, ``counts`` per card) to ``kept_cards`` and
    ``kept_counts``; the cards not kept go to ``discarded`` when it is given."""
    one_type = discarded is None and len(kept_types) == 1
    for s, row in enumerate(counts):
        if one_type:
            # one kept card type (puddings): its copies are alike, so play order is moot
            k = kept_types[0]
            if row[k]:
                kept_cards[s].extend([k] * row[k])
                kept_counts[s][k] += row[k]
            continue
        if discarded is not None or any(map(row.__getitem__, kept_types)):
            kc, kk = kept_cards[s], kept_counts[s]
            for c in tables[s]:
                if kept[c]:
                    kc.append(c)
                    kk[c] += 1
                elif discarded is not None:
                    discarded.append(c)


def decide_winners(ruleset: CompiledRuleset, num_players: int, totals: Sequence[int], kept: Tableau) -> list[int]:
    """The winning seats: most points among those who can win, then the ruleset's
    tie-break chain on the cards kept to game end; whoever is still tied shares the win
    (or nobody wins, if the ruleset says a tie is not shared)."""
    tied = tie_breaking(ruleset, num_players, totals, kept).left
    if not ruleset.shared_win and len(tied) > 1:
        return []
    return list(tied)


@attrs.frozen
class TieBreaking:
    """How the winners were found: the seats on the most points, each tie-break the
    tie needed with its values for the seats still tied before it, and the seats left."""

    tied: tuple[int, ...]
    steps: tuple[tuple[TieBreak, dict[int, int]], ...]
    left: tuple[int, ...]


def tie_breaking(ruleset: CompiledRuleset, num_players: int, totals: Sequence[int], kept: Tableau) -> TieBreaking:
    """The seats on the most points among those who can win, and the ruleset's
    tie-breaks applied to them in turn while more than one is left."""
    candidates = range(ruleset.rivals(num_players))
    best = max(totals[s] for s in candidates)
    tied = [s for s in candidates if totals[s] == best]
    first = tuple(tied)
    steps = []
    for tb in ruleset.tie_breaks:
        if len(tied) == 1:
            break
        values = {s: tb.quantity.fn(kept, s) for s in tied}
        steps.append((tb, values))
        target = max(values.values()) if tb.most else min(values.values())
        tied = [s for s in tied if values[s] == target]
    return TieBreaking(first, tuple(steps), tuple(tied))


def turns_needed(ruleset: CompiledRuleset) -> str | None:
    """Why a game of ``ruleset`` cannot be scored from its tables (a rule scores at the
    end of each turn, a race: the turns are needed), or None when it can."""
    for rule in ruleset.rules:
        part = rule.turn_scoring
        if part is not None:
            return (
                f"rule '{rule.id}' needs the turns, not only the tables: {part.turns_reason}; "
                "give a game log line (as --log writes it) instead of a table"
            )
    return None


def score_game(ruleset: CompiledRuleset, game: PlayedGame) -> ScoreSheet:
    """The whole pipeline: every round's tables scored by the round-end rules, the
    kept cards gathered, game end scored on them, totals and winners decided.

    :class:`~ruledraft.errors.InputError` for a ruleset whose scoring needs the
    turns (:func:`turns_needed`): the engine scores those as it plays."""
    reason = turns_needed(ruleset)
    if reason is not None:
        raise InputError(reason)
    cards = ruleset.catalogue.cards
    K = len(cards)
    kept = tuple(c.kept for c in cards)
    kept_types = tuple(i for i, k in enumerate(kept) if k)
    seats = game.num_seats
    kept_cards: list[list[int]] = [[] for _ in range(seats)]
    kept_counts = [[0] * K for _ in range(seats)]
    rules = round_rules(ruleset)
    rounds = []
    for r, rnd in enumerate(game.rounds):
        t = Tableau.from_cards(K, rnd.tables, r + 1)
        if rnd.record is not None:  # cards turned face down pair as they did in play
            t.turned = rnd.record.turned
        rounds.append(score_scoring(rules, t))
        keep_cards(kept, kept_types, t.cards, t.counts, kept_cards, kept_counts)
    kt = Tableau(kept_counts, kept_cards, len(game.rounds))
    sheet = ScoreSheet(ruleset, game.players, seats, rounds, score_scoring(game_rules(ruleset), kt), kt)
    kinds = plugin_kinds(ruleset)
    if kinds:
        check_plugin_totals(kinds, sheet.totals)
    return sheet


def plugin_kinds(ruleset: CompiledRuleset) -> tuple[str, ...]:
    """The plug-in kinds of the ruleset's rules, each once, in the rules' order."""
    return tuple(dict.fromkeys(k for r in ruleset.rules if isinstance(k := getattr(r, "plugin_kind", None), str)))


def check_plugin_totals(kinds: Sequence[str], totals: Sequence[int]) -> None:
    """A plug-in rule's each result is checked as it scores, but not its sum: a total
    past the bound every built-in rule keeps to (statistics hold it exactly as a
    float) is the plug-ins' failure (``kinds``, the ruleset's plug-in kinds), named,
    never a figure quietly off. Played games and scored tables alike."""
    worst = max(totals, key=abs, default=0)
    if abs(worst) > ExpressionLimits.max_value:
        from ruledraft.language.kinds.registry import PluginError

        named = ", ".join(f"'{k}'" for k in kinds)
        raise PluginError(
            f"a seat's total over the game is {worst:,}, past the {ExpressionLimits.max_value:,} every total keeps to"
            f" (the game has rules of the plug-in kind{'s' if len(kinds) > 1 else ''} {named},"
            " each result within bounds, their sum not)"
        )
