"""The tables a server plays: seats, moves checked by the engine, bots, and a journal.

A :class:`Table` is one game: the engine's state, which seats are people (each with
its own 128-bit token) and which are bots, the picks handed in this turn (kept here,
unseen by the other seats, until every seat has picked), and its journal: a folder
with ``table.json`` (what it is, its tokens and its rules' digest) and ``moves.jsonl``
(each set of moves applied, and each person's pick held for the others, one JSON
line each, written before anyone is told of them), and once
the game is over ``game.jsonl``, its record in the game log format that ``ruledraft
replay`` checks. :meth:`Tables.resume` reads such folders back and plays their moves
again, so a server that was killed continues every game where it was.

Nothing here knows of HTTP: :mod:`ruledraft.web.app` puts it on the web.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import secrets
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from ruledraft.engine.state import MAX_SEED, Game, State, derive_seed
from ruledraft.errors import IllegalMoveError, InputError, RulesetError, printable
from ruledraft.language.bundled import bundled_ids
from ruledraft.language.loading import check_ruleset
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.language.suggest import clipped
from ruledraft.play.agents import BotFailure, agent_names, checked_act, make_agent, parse_bot
from ruledraft.play.engines import ready_searches_behind
from ruledraft.play.game_log import record_game, record_line
from ruledraft.play.match import usual_players
from ruledraft.play.runner import bot_seed
from ruledraft.play.words import ordinal

from .view import bot_view, card_catalogue, page_view

HUMAN = "human"
JOURNAL_FORMAT = 1
#: what a table.json must hold to resume its table
JOURNAL_KEYS = ("id", "ruleset_id", "players", "seats", "seed", "tokens", "spectator")
#: the most games in progress one server keeps (each a game in memory)
MAX_TABLES = 500
#: the finished games kept in memory, the last to end; older ones are dropped once their
#: record is journaled, and read back from the journal when one of their links is opened
KEEP_FINISHED = 20
#: from the lobby (anyone with a browser), a bot's number option (ismcts's iterations,
#: planner's samples...) may be at most this many times its default...
LOBBY_FACTOR = 10
#: ...and one whose default is 0 (ismcts's ms, off by default) at most this
LOBBY_CEILING = 1000


#: a table's folder name as a link may give it (no path)
_FOLDER = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: a seat's secret as :func:`new_token` makes it (and a longer one a journal may keep)
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


class ActionError(Exception):
    """An action a seat may not take now, or one that is not an action: the message says which."""


def _whole(value: Any) -> bool:
    """Whether a journal's value is a whole number as the server writes one (not 1.0, true or 1e400)."""
    return type(value) is int


def new_token() -> str:
    """A seat's secret: 128 random bits, URL-safe."""
    return secrets.token_urlsafe(16)


def same_secret(known: str, given: str) -> bool:
    """Whether ``given`` (from a link: any text) is the secret ``known``, in constant time
    (as bytes: ``secrets.compare_digest`` refuses text that is not ASCII)."""
    return secrets.compare_digest(known.encode("utf-8", "surrogatepass"), given.encode("utf-8", "surrogatepass"))


def load_rules(source: str, allow: Sequence[str] = ()) -> tuple[CompiledRuleset, str]:
    """The compiled ruleset of a bundled id or a rule file, and the digest of its rules
    (:func:`rules_digest`); :class:`RulesetError` with its problems."""
    result = check_ruleset(source, allow=tuple(allow))
    if not result.ok or result.ruleset is None:
        raise RulesetError([d for d in result.diagnostics if d.severity == "error"])
    if result.ruleset.unplayable is not None:
        raise RulesetError([result.ruleset.unplayable])
    return result.ruleset, rules_digest(result.document)


def rules_digest(document: Any) -> str:
    """A digest of a checked rule file's rules, its ``extends:`` resolved: the same for
    the same rules however the file is laid out (comments, order of keys), another for
    any change a game could see. A journaled table keeps it, so that a game is never
    resumed under rules changed since it began."""
    data = getattr(document, "data", None)
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=repr)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def lobby_limit(default: Any) -> float:
    """The largest value a lobby may give a number option whose default is ``default``."""
    return LOBBY_FACTOR * default if default > 0 else LOBBY_CEILING


def _number(x: float) -> str:
    return str(x) if isinstance(x, int) else f"{x:g}"


def lobby_bounds(name: str) -> None:
    """:class:`InputError` if the bot spec ``name`` gives a number option more than a
    lobby may ask (:func:`lobby_limit`): a bot move that takes practically forever
    would hold its table. Whoever starts the server is bound only by the option's own
    maximum (:class:`~ruledraft.play.bot_specs.BotOption`). Read from the spec's text, before
    the spec is checked whole: a value past the option's own maximum too is told the lobby's
    limit, not a larger one it would then be refused at."""
    bot, _, rest = name.partition(":")
    options = {option.name: option for option in parse_bot(bot).kind.options}
    for part in rest.split(":") if rest else ():
        key, _, text = part.partition("=")
        option = options.get(key.strip())
        if option is None or option.type not in (int, float):
            continue
        try:
            value = float(text)
        except ValueError:
            continue  # (said by the spec's own check)
        limit = lobby_limit(option.default)
        if value > limit:
            raise InputError(
                f"bot '{clipped(name)}': a table opened here takes {option.name} up to {_number(limit)}, not"
                f" {clipped(text.strip())} (a bot's numbers are bounded here, so that no move takes too long)"
            )


#: why a journaled table cannot be resumed, each with words of its own
_CANNOT_RESUME = (InputError, RulesetError, ActionError, IllegalMoveError, ValueError, KeyError, TypeError)
#: a journal edited or damaged by hand, said by the error's name
_DAMAGED = (OSError, IndexError, AttributeError, RecursionError, ArithmeticError)


def _check_journaled_seats(info: dict[str, Any], folder: str) -> None:
    """A ``ValueError`` saying what a hand-edited ``table.json`` got wrong in its id,
    seats, tokens or time (the server writes each of them one way)."""
    if info["id"] != folder:
        raise ValueError(
            f"table.json's id {printable(repr(info['id']))} is not its folder's name (a table's folder is named by its id)"
        )
    seats, players = info["seats"], info["players"]
    if not (isinstance(seats, list) and len(seats) == players and all(isinstance(k, str) and k for k in seats)):
        raise ValueError(f"table.json's seats are not one name (text) for each of its {players} players")
    people = {str(s) for s, kind in enumerate(seats) if kind == HUMAN}
    if set(info["tokens"]) != people:
        raise ValueError("table.json's tokens are not one for each seat of a person")
    created = info.get("created", 0.0)
    if type(created) not in (int, float) or not math.isfinite(created):
        raise ValueError(f"table.json's time created is not a number of seconds: {printable(repr(created))}")


class Table:
    """One game at one table."""

    def __init__(
        self,
        table_id: str,
        source: str,
        ruleset: CompiledRuleset,
        players: int,
        seats: Sequence[str],
        seed: int,
        tokens: dict[int, str],
        spectator: str,
        journal: Path | None,
        rules: str = "",
        host: str | None = None,
    ):
        """``seats``: per player seat, ``"human"`` or a bot's name; ``tokens``: each human
        seat's token; ``journal``: the table's folder (None: not journaled); ``rules``:
        the digest of the rules played (:func:`rules_digest`); ``host``: the secret of the
        page of the table's links, for whoever opened it (None: a new one)."""
        self.id = table_id
        self.source = source
        self.rules = rules
        self.game = Game(ruleset, players)
        self.kinds = list(seats)
        self.seed = seed
        self.tokens = dict(tokens)
        self.spectator = spectator
        #: the secret of the page that lists the links (``/links/TABLE/HOST``)
        self.host = host if host is not None else new_token()
        self.journal = journal
        self.state: State = self.game.new_initial_state(seed)
        #: this turn's picks handed in by people, unseen by the others until all are in
        self.picks: dict[int, int] = {}
        #: the bots' seats of the step :meth:`advance` is playing (read from another thread)
        self.moving: list[int] = []
        self.moves = 0  # sets of moves applied
        self.failure: str | None = None  # a bot that failed stops the table
        self.words: dict[Any, list[str]] = {}  # the log's words of the rounds that have ended
        #: the effect kind that asked each decision made, by (round, its place among the round's)
        self.asked: dict[tuple[int, int], str] = {}
        self.created = time.time()
        #: when the game ended (time.monotonic()), None while it goes on
        self.finished_at: float | None = None
        self._moves_file: TextIO | None = None
        #: held while the game changes (a move taken, a set of moves applied), and by
        #: whoever reads it meanwhile (:meth:`read`): a page, a view or the log is read
        #: while the bots think, which only reads the state too
        self.guard = threading.Lock()

    def read(self, what: Any, *args: Any) -> Any:
        """``what(*args)`` (a view, say) with the game still: never half through a change."""
        with self.guard:
            return what(*args)

    # ------------------------------------------------------------------ seats

    @property
    def humans(self) -> list[int]:
        return sorted(self.tokens)

    def seat_of(self, token: str) -> int | None | bool:
        """The seat a token opens (None for the spectator's), or False: it opens nothing here."""
        for seat, t in self.tokens.items():
            if same_secret(t, token):
                return seat
        if same_secret(self.spectator, token):
            return None
        return False

    def waiting_for(self) -> list[int]:
        """The human seats whose move the table waits for."""
        if self.state.is_terminal() or self.failure:
            return []
        return [s for s in self.state.acting_seats() if s in self.tokens and s not in self.picks]

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` (None: a spectator) is sent."""
        view = page_view(
            self.state,
            seat,
            self.kinds,
            picked=[] if self.state.pending is not None else list(self.picks),
            held=None if seat is None or self.state.pending is not None else self.picks.get(seat),
            waiting=self.waiting_for(),
            cache=self.words,
            asked=self.asked,
        )
        view["table"] = self.id
        view["version"] = self.moves
        view["ruleset"] = self.game.ruleset.name
        view["failure"] = self.failure
        return view

    def bot_view(self, seat: int) -> dict[str, Any]:
        """The seat's view as the bots get it (JSON data)."""
        return {"type": "seat_view", "table": self.id, "version": self.moves, "view": bot_view(self.state, seat)}

    def catalogue(self) -> list[dict[str, Any]]:
        return card_catalogue(self.game.ruleset)

    # ------------------------------------------------------------------ moves

    def act(self, seat: int, message: Any) -> None:
        """Take a seat's move from a message (:meth:`take`); bots then play until a
        person must move (:meth:`advance`)."""
        self.take(seat, message)
        self.advance()

    def take(self, seat: int, message: Any) -> None:
        """Take a seat's move from a message: ``{"type": "pick", "cards": [ids],
        "dummy": id}`` or ``{"type": "decide", "option": n}``; :class:`ActionError`
        says why one is refused. A pick is held until every person has picked; the
        bots' moves are :meth:`advance`'s."""
        with self.guard:
            self._take(seat, message)

    def _take(self, seat: int, message: Any) -> None:
        if self.failure:
            raise ActionError(f"this table stopped: {self.failure}")
        state = self.state
        if state.is_terminal():
            raise ActionError("the game is over")
        if not isinstance(message, dict):
            raise ActionError("a move is a JSON object with a 'type'")
        kind = message.get("type")
        if "version" in message:
            version = message["version"]
            if type(version) is not int:  # (true is no version, though Python counts it 1)
                raise ActionError("'version' is the view's version, a whole number")
            if version != self.moves:
                raise ActionError("the game has moved on since that view; choose again")
        if kind == "pick":
            if state.pending is not None:
                raise ActionError("a card effect's decision is being made: no pick now")
            if seat not in state.acting_seats():
                raise ActionError("it is not your turn to pick")
            if seat in self.picks:
                raise ActionError("you have picked this turn already; wait for the others")
            action = self._pick_action(seat, message)
            self._journal({"n": self.moves, "seat": seat, "pick": action})  # kept over a restart too
            self.picks[seat] = action
        elif kind == "decide":
            pending = state.pending
            if pending is None or pending.seat != seat:
                raise ActionError("no decision is asked of you now")
            option = message.get("option")
            if type(option) is not int or option not in pending.options:
                raise ActionError("that is not one of the choices offered")
            self._apply([option])
        else:
            raise ActionError("unknown message: 'type' is 'pick' or 'decide' (a move), 'view' or 'seat_view'")

    def _pick_action(self, seat: int, message: dict) -> int:
        game = self.game
        cards = message.get("cards")
        dummy = message.get("dummy")
        ids = game.ruleset.catalogue
        if not isinstance(cards, list) or not cards or not all(isinstance(c, str) for c in cards):
            raise ActionError("a pick names one or more cards of your hand: 'cards' is a list of card ids")
        if len(cards) > 1:
            if not self.state.can_use_action(seat):
                raise ActionError("only one card this turn: you have no special card to use")
            if len(cards) > 1 + game.procedure.extra_available(self.state, seat):
                raise ActionError("too many cards for this turn")
        try:
            idx = [ids.index_of(c) for c in cards]
            dummy_idx = None if dummy is None else ids.index_of(dummy)
        except (KeyError, TypeError):
            raise ActionError("a card named is not a card of this game") from None
        hand = list(self.state.hands[seat])
        for c in idx:
            if c not in hand:
                raise ActionError(f"{ids.cards[c].name} is not in your hand (or not that many)")
            hand.remove(c)
        if self.state.controller == seat and dummy_idx is None:
            raise ActionError("you control the dummy this turn: name its card too ('dummy')")
        try:
            action = game.encode_action(idx, dummy_idx)
        except (IndexError, ValueError):
            raise ActionError("that is not a pick") from None
        if action not in self.state.legal_actions(seat):
            raise ActionError("that pick is not allowed now")
        return action

    def _apply(self, actions: list[int]) -> None:
        """Apply a set of moves, journaled first."""
        self._journal_moves(actions)
        try:
            self.step(actions)
        except IllegalMoveError as e:  # checked before; never expected
            raise ActionError(f"illegal move: {e}") from None
        self.moves += 1
        self.picks = {}
        if self.state.is_terminal():
            self.finish_journal()
            self.finished_at = time.monotonic()

    def step(self, actions: list[int]) -> None:
        """The state moved on by ``actions``, the effect kind that asked a decision noted
        (:attr:`asked`, for the log's words)."""
        state = self.state
        pending = state.pending
        if pending is not None:
            key = (state.round, len(state.history[state.round].decisions))
        state.apply_actions(actions)
        if pending is not None:
            self.asked[key] = pending.effect

    def moves_on(self) -> bool:
        """Whether :meth:`advance` has moves to make: every person acting now has moved."""
        if self.state.is_terminal() or self.failure:
            return False
        return not any(s in self.tokens and s not in self.picks for s in self.state.acting_seats())

    def advance(self) -> None:
        """Apply the turn once every person has moved, letting the bots move; stop
        where a person must move (or at the end)."""
        try:
            while self.moves_on():
                acting = self.state.acting_seats()
                self.moving = [s for s in acting if s not in self.tokens]
                try:  # (the bots think without the guard: they only read the game, as readers do)
                    actions = [self.picks[s] if s in self.tokens else self._bot_move(s) for s in acting]
                except BotFailure as e:
                    with self.guard:
                        self.failure = str(e)
                        self.finished_at = time.monotonic()  # stopped for good: it leaves memory as finished tables do
                    return
                with self.guard:
                    self._apply(actions)
        finally:
            self.moving = []

    def _bot_move(self, seat: int) -> int:
        """A bot's move: the bot is made for this move with a seed of the game's, the seat
        and the move number, so a resumed game plays the moves it would have played."""
        name = self.kinds[seat]
        agent = make_agent(name, derive_seed(bot_seed(self.seed, seat), self.moves))
        return checked_act(agent, name, self.state, seat, self.seed)

    # ------------------------------------------------------------------ the journal

    def describe(self) -> dict[str, Any]:
        return {
            "format": JOURNAL_FORMAT,
            "id": self.id,
            "ruleset": self.source,
            "ruleset_id": self.game.ruleset.id,
            "rules": self.rules,
            "players": self.game.num_players,
            "seed": self.seed,
            "seats": self.kinds,
            "tokens": {str(s): t for s, t in self.tokens.items()},
            "spectator": self.spectator,
            "host": self.host,
            "created": self.created,
        }

    def start_journal(self) -> None:
        if self.journal is None:
            return
        self.journal.mkdir(mode=0o700, parents=True, exist_ok=True)  # the seats' own: nobody else's to read
        path = self.journal / "table.json"
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # it holds the seats' tokens
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(self.describe(), fh)
        os.replace(tmp, path)

    def _journal_moves(self, actions: list[int]) -> None:
        self._journal({"n": self.moves, "actions": actions})

    def _journal(self, entry: dict[str, Any]) -> None:
        """A line of ``moves.jsonl``: a set of moves applied (``actions``), or a person's
        pick held until the others' are in (``seat``, ``pick``)."""
        if self.journal is None:
            return
        fh = self._moves_file
        if fh is None:
            # held picks are in it before they are revealed: the seats' own, as table.json's tokens are
            fd = os.open(self.journal / "moves.jsonl", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            fh = self._moves_file = os.fdopen(fd, "a", encoding="utf-8")
        fh.write(json.dumps(entry) + "\n")
        fh.flush()

    def finish_journal(self) -> None:
        if self.journal is None:
            return
        if self._moves_file is not None:
            self._moves_file.close()
            self._moves_file = None
        path = self.journal / "game.jsonl"
        tmp = path.with_suffix(".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)  # as the journal's other files
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(self.record_text())
        os.replace(tmp, path)

    @property
    def droppable(self) -> bool:
        """Whether the game is over and its record journaled: it can be read back from there."""
        return self.finished_at is not None and self.journal is not None and (self.journal / "game.jsonl").is_file()

    def record_text(self) -> str:
        """The finished game's record, one line of the game log format."""
        return record_line(record_game(self.state, [HUMAN if k == HUMAN else k for k in self.kinds]))

    def close(self) -> None:
        if self._moves_file is not None:
            self._moves_file.close()
            self._moves_file = None


class Tables:
    """Every table of a server, found by id; new ones journaled under ``journal``."""

    def __init__(self, journal: Path | None, allow: Sequence[str] = ()):
        self.journal = journal
        self.allow = tuple(allow)
        self.tables: dict[str, Table] = {}
        #: the finished tables dropped from memory (their journal keeps them)
        self.dropped: set[str] = set()
        self._rulesets: dict[str, tuple[CompiledRuleset, str]] = {}

    def ruleset(self, source: str) -> CompiledRuleset:
        return self.rules(source)[0]

    def rules(self, source: str) -> tuple[CompiledRuleset, str]:
        """The compiled ruleset of ``source`` and its rules' digest, loaded once a server."""
        if source not in self._rulesets:
            self._rulesets[source] = load_rules(source, self.allow)
        return self._rulesets[source]

    def get(self, table_id: str) -> Table | None:
        """The table ``table_id`` if it is in memory."""
        return self.tables.get(table_id)

    def find(self, table_id: str, token: str) -> Table | None:
        """The table ``table_id`` if ``token`` opens it: from memory, or a finished game read
        back from its journal (its moves played again) once the token is checked there."""
        table = self.tables.get(table_id)
        if table is not None or self.journal is None or not _FOLDER.fullmatch(table_id):
            return table
        folder = self.journal / table_id
        try:
            if not (folder / "game.jsonl").is_file():
                return None
            info = json.loads((folder / "table.json").read_text(encoding="utf-8"))
            secrets_ = [*info["tokens"].values(), info["spectator"], info.get("host")]
            if not any(isinstance(t, str) and same_secret(t, token) for t in secrets_):
                return None
            table = self._resume_one(folder)
        except (*_CANNOT_RESUME, *_DAMAGED):
            return None
        if table.id != table_id or not table.state.is_terminal():
            return None
        table.close()
        self.tables[table_id] = table
        self.dropped.discard(table_id)
        self.trim()
        return table

    def in_progress(self) -> int:
        """The tables that count against :data:`MAX_TABLES`: every game still being played
        (not a finished one, nor one a failing bot stopped)."""
        return sum(1 for t in list(self.tables.values()) if not t.droppable and not t.failure)

    def trim(self) -> None:
        """Drop from memory the finished tables past the :data:`KEEP_FINISHED` last to end
        (each journaled, so its links still open it), and the tables a failing bot stopped
        (their links then find no game)."""
        finished = sorted(
            (t for t in list(self.tables.values()) if t.droppable or t.failure),
            key=lambda t: t.finished_at or 0.0,
            reverse=True,
        )
        for table in finished[KEEP_FINISHED:]:
            table.close()
            self.tables.pop(table.id, None)
            self.dropped.add(table.id)

    def open_table(
        self,
        source: str,
        players: int | None,
        humans: int,
        bots: Sequence[str],
        seed: int | None = None,
        *,
        named_only: bool = False,
    ) -> Table:
        """A new table: the first ``humans`` seats are people, the others the ``bots``
        (the last named fills the rest); :class:`InputError` for what cannot be played.
        ``named_only``: only the bots known by name (with their options), none from a
        file or module, and their number options bounded (:func:`lobby_bounds`) -- what a page may ask for.
        ``players`` None: the usual count (:func:`~ruledraft.play.match.usual_players`)."""
        self.trim()
        if self.in_progress() >= MAX_TABLES:
            raise InputError(
                f"this server already has {MAX_TABLES} games in progress, the most it keeps:"
                " another table can be opened once one of them is over"
            )
        rs, rules = self.rules(source)
        players = usual_players(rs, players)
        try:
            game = Game(rs, players)
        except (ValueError, RulesetError, InputError) as e:
            raise InputError(str(e)) from None
        del game
        if not 1 <= humans <= players:
            raise InputError(f"the people must be from 1 to the {players} players, not {humans}")
        names = [b.strip() for b in bots]
        if any(names) and "" in names:  # 'greedy,,random': a seat left out would shift the others
            raise InputError(
                f"the bots have an empty entry (the {ordinal(names.index('') + 1)}): name a bot for every one listed"
            )
        names = [n for n in names if n] or ["greedy"]
        kinds: list[str] = []
        for i in range(players - humans):
            kinds.append(names[min(i, len(names) - 1)])
        for name in set(kinds):
            if named_only and name.split(":", 1)[0] not in agent_names():
                raise InputError(f"unknown bot '{name}': a table opened here takes {', '.join(agent_names())}")
            if named_only:
                lobby_bounds(name)
            try:
                make_agent(name, 0)
            except KeyError:
                raise InputError(f"unknown bot '{name}' (ruledraft bots lists them)") from None
            except Exception as e:  # noqa: BLE001 - a bot spec's own error, in one line
                said = str(e).splitlines()[0] if str(e) else type(e).__name__
                raise InputError(said if said.startswith("bot '") else f"bot '{name}': {said}") from None
        if seed is None:
            seed = secrets.randbelow(MAX_SEED + 1)
        if not 0 <= seed <= MAX_SEED:
            raise InputError(f"the seed must be a whole number from 0 to {MAX_SEED}, not {seed}")
        table_id = secrets.token_hex(4)
        while table_id in self.tables or (self.journal is not None and (self.journal / table_id).exists()):
            table_id = secrets.token_hex(4)
        if source not in bundled_ids() and os.path.isfile(source):
            source = os.path.abspath(source)  # a resumed table finds its rule file from any directory
        table = Table(
            table_id,
            source,
            rs,
            players,
            [HUMAN] * humans + kinds,
            seed,
            {s: new_token() for s in range(humans)},
            new_token(),
            self.journal / table_id if self.journal is not None else None,
            rules,
        )
        table.start_journal()
        # a seat's ismcts:kernel=yes compiles its roll-out while the people pick, not at its first move
        ready_searches_behind(rs, players, kinds)
        table.advance()  # a deal that plays itself
        self.tables[table_id] = table
        return table

    def resume(self, directory: Path) -> tuple[list[Table], list[str]]:
        """Every table journaled under ``directory``, its moves played again: the tables,
        and a line for each folder that could not be resumed."""
        resumed: list[Table] = []
        problems: list[str] = []
        for folder in sorted(p for p in directory.iterdir() if (p / "table.json").is_file()):
            try:
                table = self._resume_one(folder)
            except _CANNOT_RESUME as e:
                problems.append(f"{folder.name}: cannot resume: {e}")
                continue
            except _DAMAGED as e:
                problems.append(f"{folder.name}: cannot resume: {type(e).__name__}: {e}")
                continue
            self.tables[table.id] = table
            resumed.append(table)
        self.trim()
        return resumed, problems

    def _resume_one(self, folder: Path) -> Table:
        info = json.loads((folder / "table.json").read_text(encoding="utf-8"))
        if not isinstance(info, dict):
            raise ValueError("table.json is not a JSON object")
        if not isinstance(info.get("ruleset"), str):
            raise ValueError("table.json names no ruleset")
        if info.get("format") != JOURNAL_FORMAT:
            raise ValueError(f"journal format {info.get('format')!r}, expected {JOURNAL_FORMAT}")
        missing = [key for key in JOURNAL_KEYS if key not in info]
        if missing:  # a journal edited by hand
            raise ValueError(f"table.json has no {missing[0]!r}")
        secrets_ = [*info["tokens"].values(), info["spectator"]] if isinstance(info["tokens"], dict) else [None]
        if not all(isinstance(t, str) and _TOKEN.fullmatch(t) for t in secrets_):
            raise ValueError("table.json's tokens are not the seats' secrets (a link would open a guessable seat)")
        rs, rules = self.rules(info["ruleset"])
        if rs.id != info["ruleset_id"]:
            raise ValueError(f"the rule file is now {rs.id!r}, not {info['ruleset_id']!r}")
        if info.get("rules", rules) != rules:  # (a journal from before digests were kept has none)
            raise ValueError(
                f"the rules of {info['ruleset']} have changed since this game began, and a game goes on by the"
                " rules it began with: put the rule file back as it was to resume it, or open a new table"
            )
        if not (_whole(info["players"]) and _whole(info["seed"])):
            raise ValueError("table.json's players and seed are not whole numbers")
        _check_journaled_seats(info, folder.name)
        host = info.get("host")
        if not (isinstance(host, str) and _TOKEN.fullmatch(host)) or host in secrets_:
            # none (a journal from before the links' page), or edited into something guessable
            # or into a link of its own (the watch link would list every seat's): a new one, kept
            host = None
        table = Table(
            info["id"],
            info["ruleset"],
            rs,
            info["players"],
            [str(k) for k in info["seats"]],
            info["seed"],
            {int(s): str(t) for s, t in info["tokens"].items()},
            str(info["spectator"]),
            folder,
            rules,
            host,
        )
        table.created = info.get("created", table.created)
        if host is None:
            table.start_journal()  # (serve prints the links' page of every table it resumes)
        moves = folder / "moves.jsonl"
        lines = moves.read_text(encoding="utf-8").splitlines() if moves.exists() else []
        good = 0
        for i, line in enumerate(lines):
            try:
                entry = json.loads(line)
            except (json.JSONDecodeError, RecursionError):
                if i == len(lines) - 1:  # cut short by the crash: that move never reached anyone
                    break
                raise ValueError(f"moves.jsonl line {i + 1} is not JSON") from None
            where = f"moves.jsonl line {i + 1}"
            if not isinstance(entry, dict) or set(entry) not in ({"n", "actions"}, {"n", "seat", "pick"}):
                raise ValueError(f"{where} is neither a move nor a held pick")
            if not _whole(entry["n"]) or entry["n"] != table.moves:
                raise ValueError(f"{where}: move {entry['n']!r}, expected {table.moves}")
            if "pick" in entry:  # a person's pick, held for the others: checked as it was when made
                seat, pick = entry["seat"], entry["pick"]
                state = table.state
                if not (_whole(seat) and _whole(pick)) or seat not in table.tokens or seat in table.picks:
                    raise ValueError(f"{where}: a pick for seat {seat!r}, which has none to make now")
                if state.pending is not None or pick not in state.legal_actions(seat):
                    raise ValueError(f"{where}: seat {seat} cannot pick {pick} now")
                table.picks[seat] = pick
            else:
                actions = entry["actions"]
                if not isinstance(actions, list) or not all(_whole(a) for a in actions):
                    raise ValueError(f"{where}: the moves are not whole numbers")
                table.step(actions)
                table.moves += 1
                table.picks = {}
            good = i + 1
        if good < len(lines):  # drop the torn line, so the journal goes on cleanly
            with open(moves, "w", encoding="utf-8") as fh:
                fh.writelines(line + "\n" for line in lines[:good])
        if table.state.is_terminal():
            if not (folder / "game.jsonl").exists():
                table.finish_journal()
            table.finished_at = time.monotonic()
        else:
            ready_searches_behind(rs, table.game.num_players, table.kinds)
            table.advance()  # bots whose moves were not yet journaled
        return table

    def close(self) -> None:
        for table in self.tables.values():
            table.close()
