"""Game records: one JSON object per game (JSON Lines), and replaying them.

A record is complete: the cards dealt to every seat each round, every seat's
picks every turn (and, for the dummy procedure, who controlled the dummy and what
they drew), the points of each round and of game end, and the winners. From it
alone :func:`replay_record` plays the game again under the ruleset and reports
any illegal pick or any score that does not match. ``schemas/game-log.schema.json``
describes the format.
"""

from __future__ import annotations

import json
from typing import Iterator, List, Sequence

from .engine import Game, State
from .errors import IllegalMoveError, InputError, ReplayMismatch
from .ruleset import CompiledRuleset

LOG_FORMAT = 1


def record_game(state: State, seats: Sequence[str]) -> dict:
    """The complete record of a finished game."""
    game = state.game
    ids = game.ruleset.catalogue.ids
    dummy_seat = game.num_players if game.ruleset.dummy else None
    rounds = []
    for r, hist in enumerate(state.history):
        turns = []
        for turn in hist["turns"]:
            picks: List[List[str]] = [[] for _ in range(game.num_seats)]
            for seat, action in enumerate(turn["actions"]):
                cards, dummy_card = game.decode_action(action)
                picks[seat] = [ids[c] for c in cards]
                if dummy_card is not None:
                    picks[dummy_seat] = [ids[dummy_card]]
            entry = {"picks": picks}
            if turn.get("auto"):
                entry["auto"] = True
            if "controller" in turn:
                entry["controller"] = turn["controller"]
                entry["drawn"] = [ids[c] for c in turn["drawn"]]
            turns.append(entry)
        rounds.append(
            {
                "hands": [[ids[c] for c in h] for h in hist["hands"]],
                "turns": turns,
                "scores": state.round_scores[r] if r < len(state.round_scores) else [],
            }
        )
    record = {
        "format": LOG_FORMAT,
        "ruleset": game.ruleset.id,
        "players": game.num_players,
        "seed": state.seed,
        "seats": list(seats),
        "rounds": rounds,
        "game_end": list(state.game_end_scores),
        "totals": state.totals(),
        "winners": list(state.winners),
        "rules": {k: v[:] for k, v in state.rule_points.items()},
    }
    if not is_bundled_file(game.ruleset.source):
        from pathlib import Path

        record["ruleset_file"] = str(Path(game.ruleset.source).resolve())
    return record


def is_bundled_file(source: str) -> bool:
    from pathlib import Path

    from .bundled import rulesets_dir

    try:
        return Path(source).resolve().parent == rulesets_dir().resolve()
    except OSError:
        return False


def read_records(path: str) -> Iterator[tuple]:
    """``(line number, record)`` for each non-blank line of a JSON Lines file."""
    try:
        fh = open(path, encoding="utf-8")
    except OSError as e:
        raise InputError(f"{path}: cannot read: {e.strerror}") from None
    with fh:
        n = 0
        try:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as e:
                    raise InputError(f"{path}:{n}:{e.colno}: not valid JSON: {e.msg}") from None
                except RecursionError:
                    raise InputError(f"{path}:{n}: JSON nested too deeply") from None
                yield n, record
        except UnicodeDecodeError:
            raise InputError(f"{path}:{n + 1}: not UTF-8 text") from None


def _card(ruleset: CompiledRuleset, card_id, where: str) -> int:
    try:
        return ruleset.catalogue.index_of(card_id)
    except (KeyError, TypeError):
        raise ReplayMismatch(f"{where}: unknown card {card_id!r}") from None


def replay_record(ruleset: CompiledRuleset, record: dict) -> List[str]:
    """Replay one logged game; return the problems found (empty: it replays clean)."""
    problems: List[str] = []
    if record.get("format") != LOG_FORMAT:
        return [f"unknown record format {record.get('format')!r} (this version reads format {LOG_FORMAT})"]
    try:
        players = record["players"]
        rounds = record["rounds"]
        if record.get("ruleset") != ruleset.id:
            return [f"the record is a game of {record.get('ruleset')!r}, not of {ruleset.id!r}"]
        game = Game(ruleset, players)
        seed = record["seed"]
        if type(seed) is not int or seed < 0:
            return [f"the seed must be a whole number, not {seed!r}"]
        # the deals are checked against the seed: the shuffle is part of the record
        state = game.new_initial_state(seed)
        dummy_seat = players if ruleset.dummy else None
        for r, rnd in enumerate(rounds):
            if state.is_terminal() or state.round != r:
                break  # reported below, once the turns are compared
            logged = [[_card(ruleset, c, f"round {r + 1} hands") for c in hand] for hand in rnd["hands"]]
            if logged != state.history[r]["hands"]:
                return [f"round {r + 1}: the cards dealt in the log are not those seed {seed} deals"]
            for t, turn in enumerate(rnd["turns"]):
                where = f"round {r + 1}, turn {t + 1}"
                if turn.get("auto"):
                    continue  # played by the engine itself; checked against its history below
                if state.is_terminal():
                    problems.append(f"{where}: the game is already over")
                    return problems
                if state.round != r:
                    problems.append(f"{where}: the rules ended round {r + 1} before this turn")
                    return problems
                if "controller" in turn and turn["controller"] != state.controller:
                    problems.append(f"{where}: seat {turn['controller']} is logged as controlling the dummy, the rules say seat {state.controller}")
                    return problems
                if "drawn" in turn:
                    drawn = [_card(ruleset, c, where) for c in turn["drawn"]]
                    if drawn != state.drawn:
                        problems.append(f"{where}: the dummy pile gave {[ruleset.card_id(c) for c in state.drawn]}, the log says {turn['drawn']}")
                        return problems
                actions = []
                for seat in state.acting_seats():
                    cards = [_card(ruleset, c, where) for c in turn["picks"][seat]]
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
                    return problems
        if not state.is_terminal():
            problems.append("the log ends before the game does")
            return problems
        expected = record_game(state, record.get("seats", []))
        for r, (mine, theirs) in enumerate(zip(expected["rounds"], rounds)):
            if [t["picks"] for t in mine["turns"]] != [t["picks"] for t in theirs["turns"]]:
                problems.append(f"round {r + 1}: the turns played do not match the log (an automatic last card differs?)")
            if mine["scores"] != theirs.get("scores"):
                problems.append(f"round {r + 1}: scores {theirs.get('scores')} in the log, the rules give {mine['scores']}")
        for key in ("game_end", "totals", "winners"):
            if expected[key] != record.get(key):
                problems.append(f"{key}: {record.get(key)} in the log, the rules give {expected[key]}")
        if "rules" in record and record["rules"] != expected["rules"]:
            for rid in sorted(set(expected["rules"]) | set(record["rules"] or {})):
                logged = (record["rules"] or {}).get(rid)
                if logged != expected["rules"].get(rid):
                    problems.append(f"rule {rid}: {logged} in the log, the rules give {expected['rules'].get(rid)}")
    except ReplayMismatch as e:
        problems.append(str(e))
    except (KeyError, TypeError, IndexError, ValueError) as e:
        problems.append(f"the record is malformed ({type(e).__name__}: {e})")
    except InputError as e:
        problems.append(str(e))
    return problems
