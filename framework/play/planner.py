"""The ``planner`` bot: values a move by what it will be worth when the round is scored.

``greedy`` counts the points a card adds to the table as it stands, so it never
starts a set. ``planner`` looks to the end of the round instead. For each of a few
deals of what its seat cannot see (``resample_hidden`` of its view's world: the same deals for
every candidate move, so the moves are compared on equal terms), it plays each
legal move, lets the rest of the round unfold with every seat picking by a cheap
policy, and scores the round as the ruleset does (round-end rules; game-end rules
on the cards kept so far, for cards such as puddings). A move's worth is its mean
margin: the seat's points minus the mean of the other players'.

The policy of the rest of the round is the ``value`` bot's table, refined by how
many of a card a seat already has: for each card type and each count already on a
seat's table, the mean points one more of it adds, measured once per game in a few
random games. So a seat in the look-ahead completes a set it has started, and a
card that starts a set is worth what the sets it leads to are worth.

It knows no card by name: everything comes from the compiled rules through the
engine, so it plays every ruleset, plug-in kinds, expressions and the dummy
procedure included, and it sees only what its seat may know: its seat's view, whose
``world()`` (the unseen cards laid out in one fixed order) the search starts from.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from ruledraft.engine.view import as_view
from ruledraft.play.bot_specs import BotOption
from ruledraft.play.gains import returned_card, sampled_gains

__all__ = ["DEFAULT_SAMPLES", "PlannerAgent", "count_values", "policy_action"]

#: deals of the unseen cards per decision when no option is given
DEFAULT_SAMPLES = 4
#: the most deals a decision may take: a decision's time grows with them (the default 4
#: take about 1 ms on the reference engine, so 10,000 some 2.5 s; on the kernel a game
#: of two players with 10,000 takes about 2.3 s); far more would keep a compiled game,
#: which a Ctrl-C does not stop mid-call, running for hours
MAX_SAMPLES = 10_000
#: random games sampled for the count-aware card values
COUNT_SAMPLE_GAMES = 10
#: counts at or above this share one value (a seat rarely has more of one card)
COUNT_CAP = 6

#: by (id of the ruleset, players): the ruleset (to check the id still names it) and its values
_count_values: dict[tuple[int, int], tuple[object, list[list[float]]]] = {}


def count_values(game: Any) -> list[list[float]]:
    """``values[card][n]``: the mean points one more card of that type adds to a seat
    that already has ``n`` of it on its table this round (``n`` capped at
    :data:`COUNT_CAP`), as the ruleset's own scoring rules count them (round rules
    on the round's table, game-end rules on the cards kept), over every seat and
    turn of :data:`COUNT_SAMPLE_GAMES` random games seeded 0, 1, ... A count seen
    too rarely falls back to the card's mean over every count. Computed once per
    ruleset and player count."""
    key = (id(game.ruleset), game.num_players)
    cached = _count_values.get(key)
    if cached is not None and cached[0] is game.ruleset:
        return cached[1]
    K = game.num_card_types
    sums = [[0.0] * (COUNT_CAP + 1) for _ in range(K)]
    seen = [[0] * (COUNT_CAP + 1) for _ in range(K)]
    for row, gains in sampled_gains(game, COUNT_SAMPLE_GAMES):
        for card, gain in enumerate(gains):
            n = min(row[card], COUNT_CAP)
            sums[card][n] += gain
            seen[card][n] += 1
    values = []
    for card in range(K):
        total = sum(seen[card])
        mean = sum(sums[card]) / total if total else 0.0
        values.append([round(s / k, 3) if k >= 5 else round(mean, 3) for s, k in zip(sums[card], seen[card])])
    _count_values[key] = (game.ruleset, values)
    return values


class PlannerAgent:
    """Values a move by the end of the round: a few deals of the unseen cards, the rest
    of the round played out by a count-aware card-value policy, the round scored."""

    name = "planner"
    options = (
        BotOption(
            "samples",
            int,
            DEFAULT_SAMPLES,
            "deals of the unseen cards per decision",
            minimum=1,
            maximum=MAX_SAMPLES,
        ),
    )

    def __init__(self, seed: int = 0, samples: int = DEFAULT_SAMPLES) -> None:
        if type(samples) is not int or samples < 1:
            raise ValueError(f"samples must be a whole number of at least 1, not {samples!r}")
        self.samples = samples
        self._rng = random.Random(seed)

    def act(self, view: Any, seat: int) -> int:
        view = as_view(view, seat)
        legal = view.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        game = view.game
        values = count_values(game)
        dummy = game.ruleset.dummy
        rivals = game.num_seats if dummy is not None and dummy.can_win else game.num_players
        known = view.world()  # the unseen cards in one fixed order: what follows depends only on what the seat knows
        draw = self._rng.random
        worth = [0.0] * len(legal)
        this_round = view.round
        acting = view.acting_seats()  # every player picking, or one seat deciding for a card's effect
        for _ in range(self.samples):
            det = known.resample_hidden(seat, draw)
            others = {s: policy_action(det, s, values) for s in acting if s != seat}
            for j, action in enumerate(legal):
                sim = det.clone()
                sim.apply_actions([action if s == seat else others[s] for s in acting])
                while not sim.finished and sim.round == this_round:
                    sim.apply_actions([policy_action(sim, s, values) for s in sim.acting_seats()])
                worth[j] += _margin(sim, seat, this_round, rivals)
        best = max(worth)
        choices = [a for a, w in zip(legal, worth) if w == best]
        return int(choices[0] if len(choices) == 1 else self._rng.choice(choices))


def policy_action(state: Any, seat: int, values: Sequence[Sequence[float]]) -> int:
    """The look-ahead's move for ``seat``: the legal move whose cards are worth most by
    ``values`` at the seat's counts (a card handed back, such as chopsticks, subtracted;
    the first such move on a tie)."""
    legal = state.legal_actions(seat)
    if len(legal) == 1:
        return int(legal[0])
    if state.pending is not None:
        return _decision_action(state, seat, legal, values)
    row = state.counts[seat]
    K = state.game.num_card_types
    best_a, best_w = legal[0], None
    for a in legal:
        if a < K:
            w = values[a][min(row[a], COUNT_CAP)]
        else:
            cards, _dummy = state.game.decode_action(a)
            w = 0.0
            extra: dict[int, int] = {}
            for c in cards:
                n = row[c] + extra.get(c, 0)
                w += values[c][min(n, COUNT_CAP)]
                extra[c] = extra.get(c, 0) + 1
            returned = returned_card(state, seat, cards)
            if returned is not None:
                w -= values[returned][min(row[returned], COUNT_CAP)]
        if best_w is None or w > best_w:
            best_a, best_w = a, w
    return int(best_a)


def _decision_action(state: Any, seat: int, legal: Sequence[int], values: Sequence[Sequence[float]]) -> int:
    """The look-ahead's choice for a card effect's decision: a card the seat will play
    (from a menu, a second pick, a named card or family) is judged by ``values`` at its
    counts, the best first; a card it must give away, the least valuable; declining
    ("done") is worth nothing, and an effect bots decline (``bots_decline``: turning
    cards face down) is declined."""
    pending = state.pending
    game = state.game
    K = game.num_card_types
    done = game.done_action
    effect = game.effect_of[pending.card]
    if effect is not None and effect.bots_decline and done in legal:
        return int(done)
    row = state.counts[seat]
    giving = pending.owner != seat
    tags = game.ruleset.catalogue.cards

    def worth(a: int) -> float:
        if a < K:
            w = values[a][min(row[a], COUNT_CAP)]
        elif a == done:
            return 0.0
        else:
            family = game.families[a - K]
            w = max((values[c][min(row[c], COUNT_CAP)] for c in range(K) if family in tags[c].tags), default=0.0)
        return -w if giving else w

    return int(max(legal, key=worth))


def _margin(sim: Any, seat: int, this_round: int, rivals: int) -> float:
    """The seat's points from round ``this_round`` (and the game-end rules on the cards
    kept so far) minus the mean of its rivals'."""
    game = sim.game
    points = list(sim.round_scores[this_round])
    if sim.finished:
        for s, p in enumerate(sim.game_end_scores):
            points[s] += p
    elif game.ruleset.game_rules:
        kept = sim.kept_tableau()
        for rule in game.ruleset.game_rules:
            for s, p in enumerate(rule.score(kept)):
                points[s] += p
    others = [points[s] for s in range(rivals) if s != seat]
    return points[seat] - (sum(others) / len(others) if others else 0.0)
