"""What one seat's browser is sent: its view of a table as JSON data.

:func:`page_view` reads one seat's view of a game (the engine's
:class:`~ruledraft.engine.view.SeatView`, what the bots get; for a spectator,
``seat=None``, only what every seat sees) and gives plain JSON data: that seat's hand
and pick, every table and score (the engine's :func:`~ruledraft.engine.board.board`),
the decision a card effect asks of that seat only, what the effects did (in ``play``'s
words) and, once the game is over, the score sheet per rule. Nothing in it can be
another seat's hidden card: it is built from the seat view's world, where those cards
are laid out in one fixed order. :func:`card_catalogue` is what never changes during a game: each card's
name, colour and what it scores, in the ruleset's own words (as ``show`` writes them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from ruledraft.engine.board import board, majority_words, races
from ruledraft.engine.decisions import Decision
from ruledraft.engine.records import Turn
from ruledraft.engine.state import Event, Game, State
from ruledraft.engine.view import seat_view
from ruledraft.language.catalogue import NO_COLOUR
from ruledraft.language.ruleset import DIRECTION_NAMES, NO_PASS, CompiledRuleset
from ruledraft.play.words import (
    TableCopies,
    declined_words,
    effect_reminder,
    event_line,
    option_name,
    ordinal,
    shown,
    tie_words,
)

#: the log's last lines sent with each view
LOG_LINES = 300


class TableNames:
    """How the page calls seats: "you" for the viewer, "seat 2" (and its bot) for the others."""

    def __init__(self, game: Game, viewer: int | None, kinds: Sequence[str]):
        self.game = game
        self.human = -1 if viewer is None else viewer
        self.kinds = kinds

    def short(self, seat: int) -> str:
        if seat == self.human:
            return "you"
        if seat >= self.game.num_players:
            return (
                "dummy"
                if self.game.num_seats == self.game.num_players + 1
                else f"dummy {seat - self.game.num_players + 1}"
            )
        return f"seat {seat}"

    def long(self, seat: int) -> str:
        if seat >= self.game.num_players:
            return self.short(seat)
        kind = self.kinds[seat] if seat < len(self.kinds) else ""
        base = f"you (seat {seat})" if seat == self.human else f"seat {seat}"
        return f"{base} ({shown(kind)})" if kind and seat != self.human else base


def card_catalogue(rs: CompiledRuleset) -> list[dict[str, Any]]:
    """Every card type, by index: id, name, colour, and what it does and scores in the
    ruleset's own words (each rule that reads it: its description, else the rule as
    ``show`` words it; its effect; the special action it gives)."""
    notes = dict(rs.rule_notes)
    out = []
    for card in rs.catalogue.cards:
        lines = []
        for rule in rs.rules:
            reads = rule.reads
            if reads is not None and card.index in reads:
                lines.append(f"{shown(rule.id)}: {shown(notes.get(rule.id) or rule.describe())}")
        for effect in rs.effects:
            if effect.card == card.index:
                lines.append(shown(effect.describe()))
        for action in rs.actions:
            if action.card == card.index:
                extra = "one more card" if action.extra == 1 else f"up to {action.extra} more cards"
                lines.append(
                    f"{shown(action.id)}: on a later turn, take {extra} from your hand; then it goes back into the hand passed on."
                )
        if card.keep == "game":
            lines.append("Kept until the end of the game.")
        out.append(
            {
                "id": card.id,
                "name": shown(card.name),
                "colour": "" if card.group == NO_COLOUR else shown(card.group),
                "text": lines,
            }
        )
    return out


def _passing(state: State) -> str:
    direction = state.game.ruleset.pass_direction(state.round, state.turn)
    return "hands do not pass" if direction == NO_PASS else f"hands pass {DIRECTION_NAMES[direction]}"


def page_view(
    state: State,
    seat: int | None,
    kinds: Sequence[str],
    *,
    picked: Sequence[int] = (),
    held: int | None = None,
    waiting: Sequence[int] = (),
    cache: dict[Any, list[str]] | None = None,
    asked: dict[tuple[int, int], str] | None = None,
) -> dict[str, Any]:
    """The view of ``seat`` (None: a spectator) as JSON data. ``kinds``: each player
    seat's kind ("human", a bot's name); ``picked``: the seats whose pick this turn is in
    but not yet revealed (their cards are not said); ``held``: this seat's own pick among
    them (its action), said to this seat alone as ``mine``; ``waiting``: the human seats the
    table waits for; ``cache``: a table's own dict, where the words of the rounds
    that have ended are kept (they never change); ``asked``: the effect kind that asked
    each decision made, by round and its place among the round's decisions (what every
    seat saw: the log says a spoon's "not now" as the table offered it, not "done").

    A seat's view is read from the engine's :class:`~ruledraft.engine.view.SeatView` of
    that seat, the one the bots get (whose JSON form a client may ask for as it is:
    :func:`bot_view`): the board
    and the log from its world, where everything the seat cannot see is laid out in one
    fixed order, so two states the seat cannot tell apart give the same page. A
    spectator's view reads only what every seat sees (the tables, the scores, the log)."""
    sv = None
    if seat is not None:
        sv = seat_view(state, seat)
        state = sv.world()
    game = state.game
    rs = game.ruleset
    ids = rs.catalogue.ids
    names = TableNames(game, seat, kinds)
    finished = state.is_terminal()
    view: dict[str, Any] = {
        "type": "view",
        "you": seat,
        "round": min(state.round + 1, rs.rounds),
        "rounds": rs.rounds,
        "turn": min(state.turn + 1, game.hand_size),  # a finished game shows its last turn
        "turns": game.hand_size,
        "passing": "" if finished else _passing(state),
        "finished": finished,
        "seats": [{"seat": s, "name": names.long(s), "short": names.short(s)} for s in range(game.num_seats)],
        "picked": sorted(picked),
        "waiting": sorted(waiting),
    }
    # this seat's own part: its hand, its pick, its decision
    hand: list[str] = []
    pick: dict[str, Any] | None = None
    decision: dict[str, Any] | None = None
    if seat is not None and sv is not None:
        hand = [ids[c] for c in sorted(sv.hand)]
        if sv.pending is not None:
            decision = _decision(game, sv.pending, names, state)
        elif sv.acting and seat not in picked:
            extra = game.procedure.extra_available(state, seat) if sv.can_use_action else 0
            tools = [shown(rs.catalogue.cards[a.card].name) for a in game.actions if sv.table_counts[seat][a.card]]
            pick = {
                "extra": extra,
                "tools": list(dict.fromkeys(tools)) if extra else [],
                "dummy": sv.controls_dummy,
                "drawn": [ids[c] for c in state.drawn] if sv.controls_dummy else [],
            }
    view["hand"] = hand
    view["mine"] = None
    if seat is not None and held is not None and seat in picked:  # its own pick, waiting for the others'
        cards, dummy = game.decode_action(held)
        view["mine"] = {"cards": [ids[c] for c in cards], "dummy": None if dummy is None else ids[dummy]}
    view["pick"] = pick
    view["decision"] = decision
    view["deciding"] = (
        None if finished or state.pending is None else {"seat": state.pending.seat, "card": ids[state.pending.card]}
    )
    if not finished and state.controller >= 0:
        view["controller"] = state.controller
    # every seat's board
    boards = []
    race_boards = races(state)
    # at the end, the cards of the last round (the tables are cleared once it is scored)
    last = state.history[-1].tables if finished and state.history else None
    last_copies = (state.history[-1].copies if last is not None else None) or [{} for _ in state.played]
    for b in board(state):
        boards.append(
            {
                "seat": b.seat,
                "points": b.points,
                "round_points": b.round_points,
                "hand": b.hand,
                "pile": b.pile,
                "majorities": [[shown(rid), q] for rid, q in b.majorities],
                "modifiers": [[shown(rid), loaded, waiting_] for rid, loaded, waiting_ in b.modifiers],
                "races": [[shown(rid), q, race.target] for (rid, q), race in zip(b.races, race_boards)],
                "kept": [ids[c] for c in b.kept],
                "played": [ids[c] for c in (last[b.seat] if last is not None else b.played)],
                "copies": [
                    [pos, ids[c]] for pos, c in (sorted(last_copies[b.seat].items()) if last is not None else b.copies)
                ],
            }
        )
    view["boards"] = boards
    view["played_title"] = "Played in the last round" if last is not None else "Played this round"
    view["columns"] = [[shown(rid), shown(words)] for rid, words in majority_words(state)]
    view["races"] = [
        {
            "rule": shown(race.rule),
            "target": race.target,
            "taken": [f"{ordinal(place)} {names.short(s)} ({points})" for s, place, points in race.taken],
            "open": [f"{ordinal(k + 1)} ({race.places[k]})" for k in range(race.used, len(race.places))],
        }
        for race in race_boards
    ]
    view["round_scores"] = [r[:] for r in state.round_scores]
    view["log"] = game_log_lines(state, names, cache, asked)[-LOG_LINES:]
    view["sheet"] = score_sheet(state, names) if finished else None
    return view


def bot_view(state: State, seat: int) -> dict[str, Any]:
    """The seat's view exactly as the bots get it, in its JSON form
    (:meth:`~ruledraft.engine.view.SeatView.to_dict`): for a scripted client."""
    return seat_view(state, seat).to_dict()


def _decision(game: Game, decision: Decision, names: TableNames, state: State) -> dict[str, Any]:
    """A decision asked of the viewer: its question, what the effect does, the cards
    only it sees, and each option's words."""
    rs = game.ruleset
    return {
        "effect": decision.effect,
        "card": rs.catalogue.ids[decision.card],
        "prompt": shown(decision.prompt),
        "reminder": effect_reminder(game, decision, names),
        "shown": [rs.catalogue.ids[c] for c in decision.shown],
        "options": [
            {
                "action": a,
                "label": option_name(game, a, decision, long=True, state=state),
                "card": a < game.num_card_types,
            }
            for a in decision.options
        ],
    }


def game_log_lines(
    state: State,
    names: TableNames,
    cache: dict[Any, list[str]] | None = None,
    asked: dict[tuple[int, int], str] | None = None,
) -> list[str]:
    """What has happened, in words: per turn the picks revealed together, then the
    decisions made and what card effects and races did; each round's points. The
    words of a round that has ended are kept in ``cache``, if given; ``asked``: see
    :func:`page_view`."""
    lines: list[str] = []
    for r in range(len(state.history)):
        ended = r < len(state.round_scores)
        key = (names.human, r)
        if cache is not None and ended and key in cache:
            lines.extend(cache[key])
            continue
        words = _round_lines(state, names, r, asked or {})
        if cache is not None and ended:
            cache[key] = words
        lines.extend(words)
    if state.is_terminal():
        sheet = state.score_sheet()
        winners = sheet.winners
        if not winners:
            lines.append("Game over: no winner (the tie is not broken).")
        else:
            who = " and ".join(names.short(w) for w in winners)
            verb = "win" if len(winners) > 1 or winners[0] == names.human else "wins"
            lines.append(f"Game over: {who} {verb} with {sheet.totals[winners[0]]} points.")
    if len(lines) == 1 and not state.history[0].actions:
        return [f"{shown(state.game.ruleset.name)}: the cards are dealt."]
    return lines


def _round_lines(state: State, names: TableNames, r: int, asked: dict[tuple[int, int], str]) -> list[str]:
    """Round ``r`` in words (:func:`game_log_lines`)."""
    game = state.game
    hist = state.history[r]
    events = state.events
    lines = [f"Round {r + 1}"]
    items: list[tuple[tuple[int, int, int, int], object]] = [((t, -1, 0, 0), turn) for t, turn in enumerate(hist.turns)]
    for i, (t, seat, action) in enumerate(hist.decisions):
        items.append(((t, i, 1, 0), (seat, action, asked.get((r, i)))))
    for k, e in enumerate(events):
        if e.round == r:
            items.append(((e.turn, e.after, 0, k), e))
    items.sort(key=lambda item: item[0])
    places: dict[tuple[int, str, int], int] = {}
    for _, it in items:
        if isinstance(it, Event) and it.what[0] == "race":
            key = (it.turn, it.what[1], it.what[3])
            places[key] = places.get(key, 0) + 1
    copies = TableCopies()
    for _, item in items:
        if isinstance(item, Turn):
            lines.append(_reveal(game, item, names))
        elif isinstance(item, Event):
            what = item.what
            tied = what[0] == "race" and places[item.turn, what[1], what[3]] > 1
            lines.append("  " + event_line(game, names, what, tied, 200, copies.for_event(what)))
        else:
            seat, action, effect = cast("tuple[int, int, str | None]", item)
            said = declined_words(effect) if action == game.done_action else option_name(game, action)
            lines.append(f"  {names.short(seat).capitalize()} chose: {said}")
    if r < len(state.round_scores):
        pts = ", ".join(f"{names.short(s)} {p:+}" for s, p in enumerate(state.round_scores[r]))
        lines.append(f"End of round {r + 1}: {pts}")
    return lines


def _reveal(game: Game, turn: Turn, names: TableNames) -> str:
    rs = game.ruleset
    parts = []
    for seat, action in enumerate(turn.actions):
        cards, dummy = game.decode_action(action)
        text = " + ".join(shown(rs.catalogue.cards[c].name) for c in cards) or "-"
        parts.append(f"{names.short(seat)}: {text}")
        if dummy is not None:
            parts.append(
                f"{names.short(game.num_players)}: {shown(rs.catalogue.cards[dummy].name)} (from {names.short(seat)})"
            )
    head = "Last cards" if turn.auto else "Revealed"
    return f"{head}: " + "; ".join(parts)


def score_sheet(state: State, names: TableNames) -> dict[str, Any]:
    """The final score sheet: each rule's points over the game, each round's and game
    end's totals, then the totals and the winners."""
    sheet = state.score_sheet()
    seats = range(state.game.num_seats)
    rules = [{"rule": shown(rid), "points": pts[:]} for rid, pts in sheet.rule_points.items()]
    scorings = [
        {"when": f"round {r + 1}", "points": [sc.totals[s] for s in seats]} for r, sc in enumerate(sheet.rounds)
    ]
    if sheet.game_end is not None and state.game.ruleset.game_rules:
        scorings.append({"when": "game end", "points": [sheet.game_end.totals[s] for s in seats]})
    return {
        "rules": rules,
        "scorings": scorings,
        "totals": sheet.totals[:],
        "winners": sheet.winners[:],
        "tie": tie_words(state, names),
        "names": [names.short(s) for s in seats],
    }
