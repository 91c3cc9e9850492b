"""Bots in processes of their own (``--isolate``): what a bot contest needs.

In the process that plays the game, a bot's code can always dig past its view (the
garbage collector lists every object, the live game included). An isolated bot runs
in a separate Python process started afresh (not forked: a fork would copy the
game), and receives only its seat's view, serialized; it sends back its move, which
is checked like any other. One process serves a seat's bot for every game of a run
(a new bot is made for each game, seeded as usual), so the cost is one process start
per seat and worker, and a view sent per decision.

The view travels pickled, its ruleset's definitions (the rules, the card effects,
the game) by name: the other process compiles the same ruleset from its document, as
worker processes do (:class:`~ruledraft.play.executor.ShippedRuleset`). What comes
back is the bot's to write, so it is never unpickled (which would run code of its
choosing in the run): a reply is a small JSON array, ``["ok", move]`` or a kind of
failure and its message, read by :func:`_receive_reply`.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import json
import os
import pickle
import signal
import struct
import subprocess
import sys
from collections.abc import Mapping
from types import MappingProxyType
from typing import IO, Any

from ruledraft import lifeline
from ruledraft.engine.seeds import private_seed
from ruledraft.engine.state import Game
from ruledraft.engine.view import SeatView
from ruledraft.errors import described
from ruledraft.play.bot_specs import BotRaised, BotUnmade, as_action, bot_traceback
from ruledraft.play.executor import ShippedRuleset

__all__ = ["IsolatedAgent", "close_all"]

_HEADER = struct.Struct("!I")


def _definitions(game: Game) -> dict[int, Any]:
    """What a view shares with every game of its ruleset, by name: id -> name."""
    rs = game.ruleset
    names: dict[int, Any] = {id(game): "game", id(rs): "ruleset", id(rs.catalogue): "catalogue"}
    names[id(game.procedure)] = "procedure"
    for i, r in enumerate(rs.round_rules):
        names[id(r)] = ("round_rule", i)
    for i, r in enumerate(rs.game_rules):
        names[id(r)] = ("game_rule", i)
    for i, e in enumerate(rs.effects):
        names[id(e)] = ("effect", i)
    return names


def _named(game: Game, name: Any) -> Any:
    """The definition of ``game`` called ``name`` (see :func:`_definitions`)."""
    rs = game.ruleset
    if name == "game":
        return game
    if name == "ruleset":
        return rs
    if name == "catalogue":
        return rs.catalogue
    if name == "procedure":
        return game.procedure
    kind, i = name
    return {"round_rule": rs.round_rules, "game_rule": rs.game_rules, "effect": rs.effects}[kind][i]


def _read_only(mapping: dict[Any, Any]) -> Mapping[Any, Any]:
    return MappingProxyType(mapping)


class _Pickler(pickle.Pickler):
    def __init__(self, file: IO[bytes], names: Mapping[int, Any]) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self._names = names

    def persistent_id(self, obj: Any) -> Any:
        return self._names.get(id(obj))

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is MappingProxyType:  # the read-only parts of a view, read-only again there
            return (_read_only, (dict(obj),))
        return NotImplemented


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: IO[bytes], game: Game) -> None:
        super().__init__(file)
        self._game = game

    def persistent_load(self, pid: Any) -> Any:
        return _named(self._game, pid)


def view_bytes(view: SeatView, names: Mapping[int, Any] | None = None) -> bytes:
    """``view`` serialized, its ruleset's definitions by name."""
    out = io.BytesIO()
    _Pickler(out, _definitions(view.game) if names is None else names).dump(view)
    return out.getvalue()


def view_from_bytes(data: bytes, game: Game) -> SeatView:
    """The view :func:`view_bytes` serialized, its definitions those of ``game`` (a game
    of the same ruleset and players)."""
    view = _Unpickler(io.BytesIO(data), game).load()
    if type(view) is not SeatView:
        raise TypeError("not a seat's view")
    return view


def _send(stream: IO[bytes], message: Any) -> None:
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream: IO[bytes]) -> Any:
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)


#: the most bytes a bot's reply may take (a move, or the one line of its failure)
MAX_REPLY = 1 << 16
#: what a reply may say: a move, a move that is no integer (its repr, to be refused), a
#: bot that could not be made (the reason), a bot that raised (the error in words)
_REPLIES = ("ok", "shown", "unmade", "error")


class _Shown:
    """A bot's move that is no integer, as its process showed it: refused as any other,
    its message quoting what the bot chose (not the quotes of a string made of it)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _send_reply(stream: IO[bytes], kind: str, value: Any) -> None:
    data = json.dumps([kind, value]).encode("utf-8")
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive_reply(stream: IO[bytes]) -> tuple[str, Any]:
    """A bot process's reply, checked: :class:`BotRaised` for one that is not a reply
    (too long, not JSON, not a kind of reply with a value of its kind)."""
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(head)
    if size > MAX_REPLY:
        raise BotRaised(f"sent a reply of {size:,} bytes (at most {MAX_REPLY:,})")
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    try:
        reply = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        reply = None
    if (
        type(reply) is not list
        or len(reply) != 2
        or reply[0] not in _REPLIES
        or not (type(reply[1]) is int if reply[0] == "ok" else type(reply[1]) is str)
    ):
        raise BotRaised("sent its process's run something that is not a reply")
    return reply[0], reply[1]


class _Child:
    """One bot's process, and the pipes to it."""

    def __init__(self, spec: str, shipped: ShippedRuleset, players: int) -> None:
        self.spec = spec
        self.process = subprocess.Popen(
            [sys.executable, "-m", "ruledraft.play.isolate"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            # a stop signal sent to the run's process group (Ctrl-C, a SIGTERM to the group) is the run's to
            # answer: it stops between games and closes this pipe. The bot's process never takes it, even while
            # it starts, before it could ignore one (it would die, and the run blame the bot)
            start_new_session=True,
            env=lifeline.child_env(),  # and it ends with this process (lifeline)
        )
        assert self.process.stdin is not None and self.process.stdout is not None
        self.to, self.back = self.process.stdin, self.process.stdout
        _send(self.to, {"spec": spec, "ruleset": shipped, "players": players, "path": list(sys.path)})
        self.names: dict[int, Any] | None = None
        self.game: Game | None = None
        #: a move asked and not answered (a Ctrl-C while the bot thinks): its process is not listening
        self.asked = False

    def ask(self, message: Any) -> int | _Shown:
        try:
            self.asked = True
            _send(self.to, message)
            kind, value = _receive_reply(self.back)
            self.asked = False
        except (EOFError, BrokenPipeError, OSError):
            try:  # its end closed the pipe: wait for its exit status
                code: int | None = self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                code = None
            raise BotRaised(f"ended its process (exit status {code})") from None
        if kind == "error":
            said, _, trace = value.partition("\0")
            raise BotRaised(f"raised {said}", trace)
        if kind == "unmade":
            raise BotUnmade(self.spec, value)
        return _Shown(value) if kind == "shown" else value

    def close(self) -> None:
        try:
            _send(self.to, ("close",))
            self.to.close()
        except (BrokenPipeError, OSError, ValueError):
            pass
        try:
            # a bot still thinking over a move (the run stopped meanwhile) would read the close only once it
            # answered, if ever: ended at once; an idle one is given time to end on its own
            self.process.wait(timeout=0 if self.asked else 5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        # what the bot's process started (it leads a process group of its own) ends with it
        with contextlib.suppress(OSError):
            os.killpg(self.process.pid, signal.SIGKILL)


#: the bots' processes of this process: (pid, spec, ruleset digest, players, seat) -> child
_CHILDREN: dict[tuple[int, str, str, int, int], _Child] = {}


def _child_for(spec: str, shipped: ShippedRuleset, players: int, seat: int) -> _Child:
    pid = os.getpid()
    for key in [k for k in _CHILDREN if k[0] != pid]:  # inherited through a fork: not ours to use
        del _CHILDREN[key]
    key = (pid, spec, shipped.digest, players, seat)
    child = _CHILDREN.get(key)
    if child is None or child.process.poll() is not None:
        child = _CHILDREN[key] = _Child(spec, shipped, players)
    return child


def close_all() -> None:
    """End the bots' processes this process started."""
    pid = os.getpid()
    for key in [k for k in _CHILDREN if k[0] == pid]:
        _CHILDREN.pop(key).close()


atexit.register(close_all)


class IsolatedAgent:
    """A bot run in a process of its own, handed its seat's view serialized (the bot
    named ``spec``, made there as ``make_agent(spec, seed)`` would make it; ``shown``: its name in
    messages, by default ``spec``). A bot that raises as it is made is a
    :class:`BotFailure` saying so, raised with the first move asked of it."""

    def __init__(
        self, spec: str, seed: int, shipped: ShippedRuleset, players: int, seat: int, *, shown: str | None = None
    ) -> None:
        self.name = spec
        self.shown = shown or spec
        self._seed: int | None = private_seed(seed)  # the bot's process never holds the seat's seed
        self._child = _child_for(spec, shipped, players, seat)

    def act(self, view: SeatView, seat: int) -> int:
        child = self._child
        if child.game is not view.game:  # the definitions of this table's views, by name
            child.game, child.names = view.game, _definitions(view.game)
        seed, self._seed = self._seed, None  # the bot is made with the first move of a game
        try:
            action: Any = child.ask(("act", seed, view_bytes(view, child.names), seat))
        except BotUnmade as e:  # named as the run names it
            raise BotUnmade(self.shown, e.reason) from None
        return action


def _serve(requests: IO[bytes], replies: IO[bytes]) -> None:
    """The bot's process: make the bot, answer each view with its move."""
    from ruledraft.play.agents import make_agent

    hello = _receive(requests)
    sys.path[:] = hello["path"]
    spec: str = hello["spec"]
    game = Game(hello["ruleset"].ruleset, hello["players"])
    bot: Any = None
    while True:
        try:
            message = _receive(requests)
        except EOFError:
            return
        if message[0] == "close":
            return
        _kind, seed, data, seat = message
        try:
            if seed is not None:
                bot = make_agent(spec, seed, private=True)
            action = as_action(bot.act(view_from_bytes(data, game), seat))
            reply: tuple[str, Any] = ("ok", action) if type(action) is int else ("shown", _shown(action))
        except BotUnmade as e:  # the reason alone: the run names the bot as typed
            reply = ("unmade", e.reason)
        except BaseException as e:  # noqa: BLE001 - any failure of the bot is one message (Ctrl-C is ignored here)
            # what it raised, then its traceback (a reply cut to its size loses the end of the traceback first)
            reply = ("error", described(e) + "\0" + bot_traceback(e))
        try:
            _send_reply(replies, *_fitted(reply))
        except OSError:  # the run has ended (another seat's failure, a stop): no one to answer
            with contextlib.suppress(OSError):
                replies.close()
            return


def _shown(action: Any) -> str:
    """``repr(action)`` of a move that is no integer, or words for one that cannot be shown."""
    try:
        return repr(action)
    except BaseException:  # noqa: BLE001 - the bot's own __repr__ failing
        return f"an object of type {type(action).__name__} that cannot be shown"


def _fitted(reply: tuple[str, Any]) -> tuple[str, Any]:
    """A reply within :data:`MAX_REPLY` bytes: a long message cut short, as said."""
    kind, value = reply
    most = MAX_REPLY // 16  # characters: JSON writes one outside ASCII as up to 12 bytes
    if type(value) is str and len(value) > most:
        value = value[:most] + f"... ({len(value):,} characters)"
    return kind, value


def main() -> None:
    """``python -m ruledraft.play.isolate``: serve one bot on standard input and output
    (what the bot prints goes to standard error)."""
    lifeline.end_with_parent()  # first: however the run ends, this ends with it (a stuck bot too)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C stops the run, which then closes this pipe
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # (a worker ignores it, and a child inherits that)
    requests = os.fdopen(os.dup(0), "rb")
    replies = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    _serve(requests, replies)


if __name__ == "__main__":
    main()
