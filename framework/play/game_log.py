"""Game records: one JSON object per game (JSON Lines), and replaying them.

A record is complete: the cards dealt to every seat each round, every seat's
picks every turn (and, for the dummy procedure, who controlled the dummy and what
they drew), the points of each round and of game end, and the winners. From it
alone :func:`replay_record` plays the game again under the ruleset and reports
any illegal pick or any score that does not match. ``schemas/game-log.schema.json``
describes the format.
"""

from __future__ import annotations

import contextlib
import json
import shlex
import sys
from collections.abc import Iterator, Sequence
from typing import Any, BinaryIO

from ruledraft.engine.scoresheet import ScoreSheet
from ruledraft.engine.state import Game, State
from ruledraft.errors import ArgumentError, IllegalMoveError, InputError, LineProblem, ReplayMismatch
from ruledraft.language.bundled import is_bundled_file
from ruledraft.language.json_check import format_problems, json_path, parse_json, plural, schema_problems, show
from ruledraft.language.ruleset import CompiledRuleset

LOG_FORMAT = 1
#: the random scheme a record's seed deals its game with: each game's streams derived
#: from the seed by splitmix64 (``engine.state.derive_seed``), each an MT19937 drawn as
#: CPython's ``random.Random`` draws it; both engines deal with it (``kernel/rng.py``).
#: A record without one was written before records named it, with this same scheme.
GENERATOR = "mt19937-splitmix64"


def record_line(record: dict) -> str:
    """A record as one line of the game log (JSON, compact, ending in a newline)."""
    return json.dumps(record, separators=(",", ":")) + "\n"


def record_game(state: State, seats: str | Sequence[str]) -> dict:
    """The complete record of a finished game, ``seats`` naming the bot (or person) at
    each seat, as ``play_game`` takes its bots (``"greedy,random"`` or a list; the
    last name fills the seats left); :class:`InputError` for a game not finished, no
    name or too many, or a seed past :data:`MAX_SEED`, which would make a record
    ``replay`` refuses."""
    if not isinstance(state, State):
        raise ArgumentError(f"state must be a game's State, not {state!r}")
    game = state.game
    if not state.is_terminal():
        raise InputError("only a finished game has a record: this one is still being played")
    if isinstance(seats, str):
        seats = [name.strip() for name in seats.split(",")]
    seats = list(seats)
    if not seats or len(seats) > game.num_players:
        raise InputError(f"seats names {len(seats)} for {game.num_players} players: one name for each seat")
    seats += seats[-1:] * (game.num_players - len(seats))  # the last fills the seats left
    for n, name in enumerate(seats):
        if not isinstance(name, str):
            raise InputError(f"seats[{n}] is a name (text), not {name!r}")
    if not 0 <= state.seed <= MAX_SEED:  # the engine deals from seeds to 2**64 - 1; a record keeps JSON's exact ones
        raise InputError(
            f"a record keeps a game's seed as a whole number from 0 to {MAX_SEED} (exact in every JSON reader); "
            f"this game's is {state.seed}: play it from a seed in that range to log it"
        )
    ids = game.ruleset.catalogue.ids
    sheet = state.score_sheet()
    round_points = sheet.round_points
    rounds = []
    for r, hist in enumerate(state.history):
        turns = []
        for turn in hist.turns:
            entry: dict[str, Any] = {"picks": _turn_picks(game, turn.actions)}
            if turn.auto:
                entry["auto"] = True
            if turn.controller is not None:
                entry["controller"] = turn.controller
                entry["drawn"] = [ids[c] for c in turn.drawn]
            if turn.decisions:
                entry["decisions"] = [decision_entry(game, seat, action) for seat, action in turn.decisions]
            turns.append(entry)
        rounds.append(
            {
                "hands": [[ids[c] for c in h] for h in hist.hands],
                "turns": turns,
                "scores": round_points[r] if r < len(round_points) else [],
            }
        )
    record = {
        "format": LOG_FORMAT,
        "generator": GENERATOR,
        "ruleset": game.ruleset.id,
        "players": game.num_players,
        "seed": state.seed,
        "seats": list(seats),
        "rounds": rounds,
        "game_end": sheet.game_end_points,
        "totals": sheet.totals[:],
        "winners": sheet.winners[:],
        "rules": sheet.rule_points,
    }
    source = game.ruleset.source
    if source and source != "-" and not source.startswith("<") and not is_bundled_file(source):
        from pathlib import Path

        record["ruleset_file"] = str(Path(source).resolve())  # a rule file read from standard input has none
    return record


def decision_entry(game: Game, seat: int, action: int) -> dict[str, Any]:
    """A decision as the log writes it: ``{"seat": 0, "card": ID}``, ``{"seat": 0,
    "family": NAME}`` or ``{"seat": 0, "done": true}``."""
    K = game.num_card_types
    if 0 <= action < K:
        return {"seat": seat, "card": game.ruleset.catalogue.ids[action]}
    if action == game.done_action:
        return {"seat": seat, "done": True}
    return {"seat": seat, "family": game.families[action - K]}


def decision_action(game: Game, entry: dict, where: str) -> int:
    """The action of a logged decision (see :func:`decision_entry`)."""
    if entry.get("done"):
        return game.done_action
    if "family" in entry:
        if entry["family"] not in game.families:
            raise ReplayMismatch(f"{where}: unknown card family {entry['family']!r}")
        return game.num_card_types + game.families.index(entry["family"])
    if "card" in entry:
        return _card(game.ruleset, entry["card"], where)
    raise ReplayMismatch(f"{where}: a decision names a card, a family or done")


#: The longest line a game log (or a table file for ``score``) may have, in bytes: a
#: record of the largest game a ruleset may describe is well under it, and a longer
#: (hostile) line is refused before it is parsed, so reading costs bounded memory.
MAX_LINE_BYTES = 8 * 2**20

#: Seeds in a record are whole numbers from 0 to 2**53 - 1, so that every JSON reader
#: (JavaScript, jq) reads them exactly.
MAX_SEED = 2**53 - 1


def size_in_words(size: int) -> str:
    """``8 MiB`` or ``10 bytes``."""
    return f"{size // 2**20} MiB" if size % 2**20 == 0 else f"{size} bytes"


def read_lines(fh: BinaryIO, name: str, limit: int = MAX_LINE_BYTES, *, read_on: bool = False) -> Iterator[tuple]:
    """``(line number, text)`` for each line of a binary stream, each decoded as UTF-8
    (a byte-order mark at the start is dropped); a :class:`LineProblem` for a line longer
    than ``limit`` bytes (found without reading it whole) or one that is not UTF-8:
    raised, or with ``read_on`` yielded in the text's place (a longer line is then read
    to its end in pieces of ``limit`` bytes and dropped) and the lines after it read."""
    n = 0
    while True:
        try:
            raw = fh.readline(limit + 1)
        except OSError as e:
            raise InputError(f"{name}: cannot read: {e.strerror}") from None
        if not raw:
            return
        n += 1
        problem = None
        if len(raw) > limit and not (len(raw) == limit + 1 and raw.endswith(b"\n")):
            problem = LineProblem(
                f"{name}:{n}", f"line longer than {size_in_words(limit)} (the limit for one record or table)"
            )
            while read_on and raw and not raw.endswith(b"\n"):  # the rest of the line, never held whole
                try:
                    raw = fh.readline(limit + 1)
                except OSError as e:
                    raise InputError(f"{name}: cannot read: {e.strerror}") from None
        else:
            try:
                text = raw.decode("utf-8-sig" if n == 1 else "utf-8")
            except UnicodeDecodeError as e:
                problem = LineProblem(f"{name}:{n}", f"not UTF-8 text (byte {e.start + 1} of the line)")
        if problem is not None:
            if not read_on:
                raise problem
            yield n, problem
            continue
        yield n, text


#: what messages call standard input read as a log (``-``)
STDIN_NAME = "<stdin>"


def read_records(path: str, *, dash_is_stdin: bool = False) -> Iterator[tuple]:
    """``(line number, record)`` for each non-blank line of a JSON Lines file (with
    ``dash_is_stdin``, ``-`` is standard input, named ``<stdin>`` in messages, as the
    command line reads it; else a file called ``-``); the records are parsed JSON, not
    yet checked (see :func:`record_problems`). A line that is not JSON (a log cut short
    by a killed writer, say), not UTF-8 or too long is yielded as its
    :class:`LineProblem`, so the lines after it are still read."""
    fh: contextlib.AbstractContextManager[BinaryIO]
    if path == "-" and dash_is_stdin:
        stream: BinaryIO | None = getattr(sys.stdin, "buffer", None)
        if stream is None:
            raise InputError("-: cannot read: there is no standard input")
        fh = contextlib.nullcontext(stream)  # not closed: not ours
        path = STDIN_NAME
    else:
        try:
            fh = open(path, "rb")
        except OSError as e:
            raise InputError(f"{path}: cannot read: {e.strerror}") from None
    with fh as lines:
        peek = getattr(lines, "peek", None)
        if callable(peek) and bytes(peek(2))[:2] == b"\x1f\x8b":  # one message, not one per "line" of it
            how = (
                "zcat FILE | ruledraft replay -"
                if path == STDIN_NAME
                else f"zcat {shlex.quote(path)} | ruledraft replay -"
            )
            raise InputError(f"{path}: gzip data, not JSON Lines: unpack it first ({how})")
        for n, line in read_lines(lines, path, read_on=True):
            if isinstance(line, LineProblem):
                yield n, line
            elif line.strip():
                try:
                    record = parse_json(line, path, n)
                except LineProblem as e:
                    record = e
                yield n, record


def record_problems(record: Any, ruleset: CompiledRuleset | None = None) -> list[str]:
    """Every problem of a record's shape (against ``schemas/game-log.schema.json``)
    and, given the ruleset and when the shape is right, of its consistency with it
    (format, players, seats, rounds, and the length of every per-seat list); each an
    ``error: PATH: MESSAGE`` line. Empty: the record may be replayed."""
    problems = schema_problems(record, "game-log.schema.json")
    if not problems and ruleset is not None:
        problems = _consistency_problems(record, ruleset)
    return format_problems(problems)


def _consistency_problems(record: dict, ruleset: CompiledRuleset) -> list[tuple]:
    out: list[tuple] = []
    if type(record["format"]) is not int:  # JSON Schema's const takes 1.0 for 1
        out.append(("format", f"expected {LOG_FORMAT}, got {show(record['format'])}"))
        return out
    if record["ruleset"] != ruleset.id:
        out.append(("ruleset", f"the record is a game of {show(record['ruleset'])}, not of {ruleset.id!r}"))
        return out
    players = record["players"]
    if players not in ruleset.player_counts:
        out.append(
            (
                "players",
                f"{plural(players, 'player')}, but {ruleset.name} is for {ruleset.player_range}",
            )
        )
        return out
    seats = ruleset.num_seats(players)
    if len(record["seats"]) != players:
        out.append(("seats", f"{plural(len(record['seats']), 'name')} for {plural(players, 'player')}"))
    if len(record["rounds"]) != ruleset.rounds:
        out.append(("rounds", f"{plural(len(record['rounds']), 'round')}, but {ruleset.name} has {ruleset.rounds}"))

    def per_seat(path: str, value: list, what: str) -> None:
        if len(value) != seats:
            out.append((path, f"{plural(len(value), what)} for {plural(seats, 'seat')}"))

    for r, rnd in enumerate(record["rounds"]):
        per_seat(f"rounds[{r}].hands", rnd["hands"], "hand")
        per_seat(f"rounds[{r}].scores", rnd["scores"], "score")
        for t, turn in enumerate(rnd["turns"]):
            per_seat(f"rounds[{r}].turns[{t}].picks", turn["picks"], "list")
            if "controller" in turn and turn["controller"] >= players:
                out.append(
                    (
                        f"rounds[{r}].turns[{t}].controller",
                        f"seat {turn['controller']} controls the dummy, but the players are seats 0-{players - 1}",
                    )
                )
            if ("controller" in turn or "drawn" in turn) and not ruleset.dummy:
                out.append((f"rounds[{r}].turns[{t}]", f"a dummy's turn, but {ruleset.name} has no dummy"))
            elif ruleset.dummy and not turn.get("auto"):
                for key in ("controller", "drawn"):
                    if key not in turn:
                        out.append(
                            (
                                f"rounds[{r}].turns[{t}]",
                                f"missing key '{key}' (every turn of {ruleset.name} has a dummy)",
                            )
                        )
    per_seat("game_end", record["game_end"], "score")
    per_seat("totals", record["totals"], "total")
    can_win = ruleset.rivals(players)  # the players, and a dummy that can win
    for i, w in enumerate(record["winners"]):
        if w >= can_win:
            seats_named = (
                f"the players are seats 0-{players - 1}" if can_win == players else f"seats 0-{can_win - 1} can win"
            )
            out.append((f"winners[{i}]", f"seat {w} wins, but {seats_named}"))
    if len(set(record["winners"])) != len(record["winners"]):
        out.append(("winners", "a seat is named twice"))
    if "rules" in record:
        for rid, pts in record["rules"].items():
            if rid in ruleset.rule_ids:
                per_seat(json_path(("rules", rid)), pts, "score")
    return out


def _card(ruleset: CompiledRuleset, card_id, where: str) -> int:
    try:
        return ruleset.catalogue.index_of(card_id)
    except (KeyError, TypeError):
        raise ReplayMismatch(f"{where}: unknown card {card_id!r}") from None


def _replay_decisions(game: Game, state: State, turn: dict, t: int, where: str) -> str | None:
    """Make the decisions logged for turn ``t``; a problem in words, or None."""
    for i, entry in enumerate(turn.get("decisions") or []):
        pending = state.pending
        if pending is None:
            return f"{where}: the log has a decision (number {i + 1}) the rules did not ask for"
        if entry["seat"] != pending.seat:
            return f"{where}: seat {entry['seat']} is logged as deciding, the rules ask seat {pending.seat}"
        try:
            state.apply_actions([decision_action(game, entry, where)])
        except IllegalMoveError as e:
            return f"{where}: illegal decision: {e}"
    if state.pending is not None and state.turn == t and not state.is_terminal():
        return (
            f"{where}: the rules ask seat {state.pending.seat} to decide ({state.pending.prompt}); the log does not say"
        )
    return None


def replay_record(ruleset: CompiledRuleset, record: Any, *, shape_checked: bool = False) -> list[str]:
    """Replay one logged game; return the problems found (empty: it replays clean).

    The record is checked first (:func:`record_problems`; ``shape_checked=True``
    skips the schema part, for a caller that has just run it): a record with any
    problem there is not replayed and those problems are returned.
    """
    return replay_game(ruleset, record, shape_checked=shape_checked)[1]


def replay_sheet(
    ruleset: CompiledRuleset, record: Any, *, rescore: bool = False
) -> tuple[ScoreSheet | None, list[str]]:
    """Replay one logged game (see :func:`replay_record`): its score sheet, worked out
    turn by turn by the engine, and no problems; or None and the problems found.
    ``rescore``: the scores the log recorded are not compared (what the game scores
    under rules changed since it was logged; its deals and moves are still checked)."""
    state, problems = replay_game(ruleset, record, rescore=rescore)
    if problems or state is None:
        return None, problems
    return state.score_sheet(), []


def _turn_picks(game: Game, actions: Sequence[int]) -> list[list[str]]:
    """A turn's actions as the log writes its picks: per seat the card ids taken, and a
    dummy's card at the dummy's seat."""
    ids = game.ruleset.catalogue.ids
    picks: list[list[str]] = [[] for _ in range(game.num_seats)]
    dummy_seat = game.num_players if game.ruleset.dummy else None
    for seat, action in enumerate(actions):
        cards, dummy_card = game.decode_action(action)
        picks[seat] = [ids[c] for c in cards]
        if dummy_card is not None and dummy_seat is not None:
            picks[dummy_seat] = [ids[dummy_card]]
    return picks


def _turns_problem(r: int, played: list, logged: list) -> str:
    """What differs between the turns of round ``r`` the rules played and those logged
    (the picks of each turn, as the log writes them): turns missing at the end or
    logged past it, else the first turn that differs (an automatic last card)."""
    if len(logged) < len(played) and played[: len(logged)] == logged:
        return (
            f"round {r + 1}: the log has {plural(len(logged), 'turn')}, the rules play {len(played)}: the last"
            f" {'turn is' if len(played) - len(logged) == 1 else f'{len(played) - len(logged)} turns are'} missing"
            f" (the rules play {played[len(logged)]} on turn {len(logged) + 1})"
        )
    if len(logged) > len(played) and logged[: len(played)] == played:
        return f"round {r + 1}: the log has {plural(len(logged), 'turn')}, the rules end the round after {len(played)}"
    t = next(i for i, (a, b) in enumerate(zip(played, logged)) if a != b)  # (neither is the other's start)
    return f"round {r + 1}, turn {t + 1}: the rules play {played[t]}, the log says {logged[t]}"


def _engine_picks(game: Game, state: State, r: int, t: int) -> list[list[str]] | None:
    """The picks the engine made itself on turn ``t`` of round ``r`` (an automatic last
    card), as the log writes them; None where its history has no such turn."""
    if r >= len(state.history) or t >= len(state.history[r].turns):
        return None
    return _turn_picks(game, state.history[r].turns[t].actions)


def replay_game(
    ruleset: CompiledRuleset, record: Any, *, shape_checked: bool = False, rescore: bool = False
) -> tuple[State | None, list[str]]:
    """:func:`replay_record`, and the finished state of the game replayed (None
    unless it replays clean); ``rescore``: without comparing the recorded scores."""
    if shape_checked:
        problems = format_problems(_consistency_problems(record, ruleset))
    else:
        problems = record_problems(record, ruleset)
    if problems:
        return None, problems
    try:
        players = record["players"]
        rounds = record["rounds"]
        game = Game(ruleset, players)
        seed = record["seed"]
        # the deals are checked against the seed: the shuffle is part of the record
        state = game.new_initial_state(seed)
        dummy_seat = players if ruleset.dummy else None
        for r, rnd in enumerate(rounds):
            if state.is_terminal() or state.round != r:
                break  # reported below, once the turns are compared
            logged = [[_card(ruleset, c, f"round {r + 1} hands") for c in hand] for hand in rnd["hands"]]
            if logged != state.history[r].hands:
                return None, [f"round {r + 1}: the cards dealt in the log are not those seed {seed} deals"]
            for t, turn in enumerate(rnd["turns"]):
                where = f"round {r + 1}, turn {t + 1}"
                if turn.get("auto"):
                    # played by the engine itself, checked against its history now (a changed
                    # pick earlier in the round shows here first, before the next round's deal);
                    # its cards' effects may still ask for decisions
                    played = _engine_picks(game, state, r, t)
                    if played is not None and played != turn.get("picks"):
                        problems.append(
                            f"{where}: the rules play the last cards {played}, the log says {turn.get('picks')}"
                            f" (a pick earlier in round {r + 1} is not the game's?)"
                        )
                        return None, problems
                    problem = _replay_decisions(game, state, turn, t, where)
                    if problem:
                        problems.append(problem)
                        return None, problems
                    continue
                if state.is_terminal():
                    problems.append(f"{where}: the game is already over")
                    return None, problems
                if state.round != r:
                    if t == len(rnd["turns"]) - 1 and _engine_picks(game, state, r, t) == turn.get("picks"):
                        problems.append(
                            f'{where}: the rules play these last cards themselves: the log gives the turn without "auto": true'
                        )
                    else:
                        problems.append(f"{where}: the rules ended round {r + 1} before this turn")
                    return None, problems
                if "controller" in turn and turn["controller"] != state.controller:
                    problems.append(
                        f"{where}: seat {turn['controller']} is logged as controlling the dummy, the rules say seat {state.controller}"
                    )
                    return None, problems
                if "drawn" in turn:
                    drawn = [_card(ruleset, c, where) for c in turn["drawn"]]
                    if drawn != state.drawn:
                        problems.append(
                            f"{where}: the dummy pile gave {[ruleset.card_id(c) for c in state.drawn]}, the log says {turn['drawn']}"
                        )
                        return None, problems
                actions = []
                for seat in state.acting_seats():
                    picked = turn["picks"][seat]
                    if len(picked) > 1 + game.max_extra:  # (before a pick's action is built from them)
                        raise ReplayMismatch(
                            f"{where}: seat {seat} took {len(picked)} cards in one pick; a pick of"
                            f" {game.ruleset.name} takes at most {plural(1 + game.max_extra, 'card')}"
                        )
                    cards = [_card(ruleset, c, where) for c in picked]
                    if not cards:
                        raise ReplayMismatch(f"{where}: seat {seat} picked nothing")
                    dummy_card = None
                    if dummy_seat is not None and seat == state.controller:
                        dummy_picks = turn["picks"][dummy_seat]
                        if len(dummy_picks) != 1:
                            raise ReplayMismatch(f"{where}: the dummy must get exactly one card")
                        dummy_card = _card(ruleset, dummy_picks[0], where)
                    actions.append(game.encode_action(cards, dummy_card))
                try:
                    state.apply_actions(actions)
                except IllegalMoveError as e:
                    problems.append(f"{where}: illegal pick: {e}")
                    return None, problems
                problem = _replay_decisions(game, state, turn, t, where)
                if problem:
                    problems.append(problem)
                    return None, problems
            if not state.is_terminal() and state.round == r and r + 1 < len(rounds):
                problems.append(
                    f"round {r + 1}: the log has {plural(len(rnd['turns']), 'turn')}, and the rules play on"
                    " after them (a turn is missing?)"
                )
                return None, problems
        if not state.is_terminal():
            problems.append("the log ends before the game does")
            return None, problems
        expected = record_game(state, record.get("seats", []))
        for r, (mine, theirs) in enumerate(zip(expected["rounds"], rounds)):
            by_rules = [each["picks"] for each in mine["turns"]]
            in_log = [each["picks"] for each in theirs["turns"]]
            if by_rules != in_log:
                problems.append(_turns_problem(r, by_rules, in_log))
            if mine["scores"] != theirs.get("scores") and not rescore:
                problems.append(
                    f"round {r + 1}: scores {theirs.get('scores')} in the log, the rules give {mine['scores']}"
                )
        for key in ("game_end", "totals", "winners") if not rescore else ():
            if expected[key] != record.get(key):
                problems.append(f"{key}: {record.get(key)} in the log, the rules give {expected[key]}")
        if "rules" in record and record["rules"] != expected["rules"] and not rescore:
            for rid in sorted(set(expected["rules"]) | set(record["rules"] or {})):
                logged_points = (record["rules"] or {}).get(rid)
                if logged_points != expected["rules"].get(rid):
                    problems.append(
                        f"rule {rid}: no points in the log, the rules give {expected['rules'][rid]}"
                        if logged_points is None
                        else f"rule {rid}: {logged_points} in the log, but the rules have no such rule"
                        if rid not in expected["rules"]
                        else f"rule {rid}: {logged_points} in the log, the rules give {expected['rules'][rid]}"
                    )
    except ReplayMismatch as e:
        problems.append(str(e))
    except (KeyError, TypeError, IndexError, ValueError) as e:
        problems.append(f"the record is malformed ({type(e).__name__}: {e})")
    except InputError as e:
        problems.append(str(e))
    return (None if problems else state), problems
