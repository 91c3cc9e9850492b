"""The web server: a lobby, the table pages, a WebSocket per seat, the finished game's log.

Routes (``TABLE`` a table's id, ``TOKEN`` a seat's or the spectators' secret):

* ``GET /``: the lobby: the tables running, and a form to open another;
* ``POST /tables``: open a table, answered with a redirect to its links' page;
* ``GET /links/TABLE/HOST``: the page of a table's links, for whoever opened it (``HOST``
  its own secret: reloading it, or coming back to it, opens no other table);
* ``GET /t/TABLE/TOKEN``: the table as that seat sees it (server-rendered, then kept
  up to date by ``/static/table.js`` over the WebSocket);
* ``WS /t/TABLE/TOKEN/ws``: the seat's views, and its moves (``{"type": "pick", "cards":
  [ids]}``, ``{"type": "decide", "option": n}``); a refused move gets ``{"type":
  "error", "message": ...}``; a pick that waits for the others' is told to them as
  ``{"type": "picked", ...}`` (who has picked, who the table waits for);
  ``{"type": "seat_view"}`` asks for the seat's view as the bots get it
  (:meth:`ruledraft.engine.view.SeatView.to_dict`), for a scripted client;
* ``GET /t/TABLE/TOKEN/log``: the finished game's record (``ruledraft replay`` checks it).

A token opens only its own table. A WebSocket whose ``Origin`` is another site's is
refused. Every asset is served from the package: the page fetches nothing elsewhere.
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import threading
from collections.abc import Sequence
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, urlsplit

from starlette.applications import Starlette
from starlette.requests import ClientDisconnect, Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ruledraft.errors import InputError, RuledraftError
from ruledraft.language.bundled import bundled_ids
from ruledraft.language.describe import describe_ruleset
from ruledraft.play.agents import agent_names

from .tables import ActionError, Table, Tables, same_secret

log = logging.getLogger("ruledraft.web")

#: the longest message a browser may send (a move is a few dozen bytes)
MAX_MESSAGE = 4096
#: the longest lobby form accepted
MAX_FORM = 4096
#: how long the bots may take over their moves before the seats are told who thinks
THINKING_AFTER = 1.0
#: the messages a socket may have waiting to be sent: a reader that falls this far behind
#: (it stopped reading) is disconnected, so that it never holds up the table
OUTBOX = 64
#: how long one message may take to be sent before its socket is given up
SEND_SECONDS = 10.0
#: how often a socket waiting for room in its queue looks again (Outbox.room)
ROOM_SECONDS = 1.0
#: the most moves (and new tables) made in threads at once, over every table
MOVE_THREADS = 16
#: the close code of a socket given up for reading too slowly: "try again later" (1013),
#: so that a page on a slow link reconnects (1008 says the link opens no seat)
SLOW_READER = 1013

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        "base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "same-origin",  # a link out names no seat; the lobby's form still says its origin
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "no-store",
}


def same_origin(origin: str, host: str | None) -> bool:
    """Whether a WebSocket's ``Origin`` is the page's own site (its host and port are the ``Host`` asked for)."""
    if not host:
        return False
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == host.lower()


class Outbox:
    """What one socket is sent, queued: a table's lock is never held while a message
    waits for a reader, so a page that stops reading (or a client made to) holds up
    nobody. A socket's own requests wait while half its queue is full (:meth:`room`:
    a client that asks faster than it reads is slowed, not dropped); a socket with
    more than :data:`OUTBOX` messages waiting, or one whose send takes more than
    :data:`SEND_SECONDS`, is closed with :data:`SLOW_READER`."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self.closed = False
        self._queue: asyncio.Queue[str] = asyncio.Queue(OUTBOX)
        self._sent = asyncio.Event()  # set after each message sent (and on closing)
        self._task = asyncio.ensure_future(self._send())
        self._closing: asyncio.Future[None] | None = None

    def post(self, data: Any) -> None:
        """Queue ``data`` (a text, or JSON data) to be sent."""
        if self.closed:
            return
        text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
        try:
            self._queue.put_nowait(text)
        except asyncio.QueueFull:
            log.warning("a socket that does not read its messages is closed")
            self.close()

    async def room(self) -> None:
        """Wait while half the queue is full: the socket's own loop reads no more
        requests until its reader has caught up (or the socket is given up). The wait
        looks again every :data:`ROOM_SECONDS`, so that no wake-up missed can hold the
        socket's loop for good, and a sender that has ended gives the socket up."""
        while not self.closed and self._queue.qsize() >= OUTBOX // 2:
            if self._task.done():  # nothing will be sent any more: not a wait for ever
                self.close()
                return
            self._sent.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._sent.wait(), ROOM_SECONDS)

    async def _send(self) -> None:
        try:
            while True:
                text = await self._queue.get()
                await asyncio.wait_for(self.websocket.send_text(text), SEND_SECONDS)
                self._sent.set()
        except asyncio.CancelledError:
            raise
        except Exception:  # noqa: BLE001 - a socket closing or too slow: it is given up
            log.debug("a socket could not be sent its messages", exc_info=True)
            self.close()

    def close(self) -> None:
        """Stop sending, and close the socket with :data:`SLOW_READER` (without waiting
        on its reader: :meth:`finish` waits for the close, at most a second)."""
        if self.closed:
            return
        self.closed = True
        self._sent.set()
        self._task.cancel()
        self._closing = asyncio.ensure_future(self._close())

    async def _close(self) -> None:
        try:
            await asyncio.wait_for(self.websocket.close(code=SLOW_READER), 1.0)
        except Exception:  # noqa: BLE001 - closed already, or its reader gone
            log.debug("a socket could not be closed cleanly", exc_info=True)

    async def finish(self) -> None:
        """The socket's handler is ending: stop sending, and wait for the sending task
        (and a close under way) to end, so that none is left pending."""
        if not self.closed:
            self.closed = True
            self._sent.set()
            self._task.cancel()
        for task in (self._task, self._closing):
            if task is not None:
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task


def in_thread(function: Any, *args: Any, **kwargs: Any) -> asyncio.Future[Any]:
    """``function(*args, **kwargs)`` in a daemon thread of its own (a bot's move may take
    a minute): the server's loop goes on meanwhile, and a server stopped by Ctrl-C
    leaves at once rather than wait for it (the journal keeps every move told)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[Any] = loop.create_future()

    def settle(ok: bool, value: Any) -> None:
        if not future.done():
            future.set_result(value) if ok else future.set_exception(value)

    def run() -> None:
        try:
            result = function(*args, **kwargs)
        except BaseException as e:  # noqa: BLE001 - handed to whoever awaits it
            outcome = (False, e)
        else:
            outcome = (True, result)
        try:
            loop.call_soon_threadsafe(settle, *outcome)
        except RuntimeError:  # the loop has closed: the server has stopped
            pass

    threading.Thread(target=run, daemon=True, name="ruledraft-move").start()
    return future


def _page(title: str, body: str, *, script: bool = False) -> HTMLResponse:
    tail = '<script src="/static/table.js"></script>' if script else ""
    text = (
        '<!doctype html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title>"
        '<link rel="stylesheet" href="/static/table.css"><link rel="icon" href="/static/icon.svg">'
        f"</head><body>{body}{tail}</body></html>\n"
    )
    return HTMLResponse(text, headers=HEADERS)


def _json_script(element_id: str, data: Any) -> str:
    """JSON in the page, safe inside ``<script>`` (``<``, ``>``, ``&`` escaped)."""
    text = json.dumps(data, separators=(",", ":"))
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return f'<script type="application/json" id="{element_id}">{text}</script>'


def _not_found() -> HTMLResponse:
    body = (
        "<main><h1>No such seat</h1><p>This link opens no table on this server: check that it was "
        'copied whole. <a href="/">The lobby</a></p></main>'
    )
    response = _page("No such seat", body)
    response.status_code = 404
    return response


class Server:
    """The tables of one server and who is connected to each."""

    def __init__(self, tables: Tables, choices: Sequence[str] = (), thinking_after: float = THINKING_AFTER):
        self.tables = tables
        self.thinking_after = thinking_after
        self.choices = list(dict.fromkeys([*choices, *bundled_ids()]))
        self.sockets: dict[str, list[tuple[Outbox, int | None]]] = {}
        self.locks: dict[str, asyncio.Lock] = {}
        #: the moves and tables being made in threads at once (the others wait their turn)
        self.threads = asyncio.Semaphore(MOVE_THREADS)
        #: per table, the notice of the bots it waits for while they think (a seat that
        #: connects meanwhile hears it too)
        self.thinking: dict[str, str] = {}

    def lock(self, table: Table) -> asyncio.Lock:
        if table.id not in self.locks:
            self.locks[table.id] = asyncio.Lock()
        return self.locks[table.id]

    def opened(self, table_id: str, token: str) -> tuple[Table, int | None] | None:
        """The table and seat a link opens, or None."""
        if not isinstance(token, str) or len(token) > 64:
            return None
        table = self.tables.find(table_id, token)
        if table is None:
            return None
        seat = table.seat_of(token)
        if seat is False:
            return None
        return table, seat

    # ------------------------------------------------------------------ pages

    async def lobby(self, request: Request) -> Response:
        return _page("ruledraft tables", self._lobby_body())

    def _lobby_body(self, error: str = "", form: dict[str, str] | None = None) -> str:
        form = form or {}
        rows = []
        for t in list(self.tables.tables.values()):
            state = t.state
            status = (
                "finished"
                if state.is_terminal()
                else f"round {state.round + 1} of {t.game.ruleset.rounds}, turn {state.turn + 1}"
            )
            if t.failure:
                status = "stopped"
            humans = len(t.tokens)
            rows.append(
                f"<tr><td>{html.escape(t.id)}</td><td>{html.escape(t.game.ruleset.name)}</td>"
                f"<td>{t.game.num_players} ({humans} {'person' if humans == 1 else 'people'})</td>"
                f"<td>{html.escape(status)}</td></tr>"
            )
        gone = len(self.tables.dropped)
        if gone:
            rows.append(
                f"<tr><td colspan=4>and {gone} finished {'game' if gone == 1 else 'games'} more, no longer listed"
                " (their links still open them)</td></tr>"
            )
        table = (
            '<div class="scroll"><table><caption>Tables on this server (their links are given only to whoever opened them)'
            "</caption><thead><tr><th scope=col>table</th><th scope=col>game</th><th scope=col>players</th>"
            f"<th scope=col>now</th></tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
            if rows
            else "<p>No table yet.</p>"
        )
        chosen = form.get("ruleset", self.choices[0] if self.choices else "")
        options = "".join(
            f'<option value="{html.escape(c)}"{" selected" if c == chosen else ""}>{html.escape(c)}</option>'
            for c in self.choices
        )
        err = f'<p class="error" role="alert">{html.escape(error)}</p>' if error else ""

        def value(name: str, default: str) -> str:
            return html.escape(form.get(name, default), quote=True)

        return (
            "<main><h1>ruledraft tables</h1>"
            f"<section aria-labelledby=tables-h><h2 id=tables-h>Tables</h2>{table}</section>"
            "<section aria-labelledby=new-h><h2 id=new-h>Open another table</h2>"
            f'{err}<form method="post" action="/tables" class="lobby">'
            f'<label>Game <select name="ruleset">{options}</select></label>'
            f'<label>Players <input name="players" type="number" min="1" max="20" value="{value("players", "")}" placeholder="4, or what the game takes"></label>'
            f'<label>People (the others are bots) <input name="humans" type="number" min="1" max="20" value="{value("humans", "2")}" required></label>'
            f'<label>Bots <input name="bots" value="{value("bots", "greedy")}" aria-describedby="bots-help"></label>'
            '<p id="bots-help" class="hint">Bot names separated by commas, one per bot seat (the last fills the rest): '
            f"{html.escape(', '.join(agent_names()))}; options after colons (ismcts:iterations=800), each number at most ten times its default.</p>"
            f'<label>Seed (empty: any) <input name="seed" inputmode="numeric" value="{value("seed", "")}"></label>'
            '<button type="submit">Open the table</button></form></section></main>'
        )

    async def open_table(self, request: Request) -> Response:
        origin = request.headers.get("origin")
        if origin is not None and not same_origin(origin, request.headers.get("host")):
            return PlainTextResponse("refused: a form from another site", status_code=403, headers=HEADERS)
        try:
            body = await _bounded_body(request, MAX_FORM)
        except ClientDisconnect:  # gone before the form was whole: nobody to answer
            return PlainTextResponse("the form was cut off", status_code=400, headers=HEADERS)
        if body is None:
            return PlainTextResponse("refused: the form is too long", status_code=413, headers=HEADERS)
        fields = {k: v[0] for k, v in parse_qs(body.decode("utf-8", "replace")).items()}
        try:
            source = fields.get("ruleset", "")
            if source not in self.choices:
                raise InputError("choose a game from the list")
            players_text = fields.get("players", "").strip()  # empty: the usual count for the game
            players = _whole(players_text, "players") if players_text else None
            humans = _whole(fields.get("humans", ""), "people")
            seed_text = fields.get("seed", "").strip()
            seed = _whole(seed_text, "the seed") if seed_text else None
            bots = fields.get("bots", "greedy").split(",")
            async with self.threads:
                table = await in_thread(self.tables.open_table, source, players, humans, bots, seed, named_only=True)
        except RuledraftError as e:
            response = _page("ruledraft tables", self._lobby_body(str(e), fields))
            response.status_code = 400
            return response
        # the links on a page of their own: a reload (or the back button) shows them again
        # rather than posting the form once more, which would open another table
        return RedirectResponse(f"/links/{table.id}/{table.host}", status_code=303, headers=HEADERS)

    async def links_page(self, request: Request) -> Response:
        table_id, token = request.path_params["table"], request.path_params["token"]
        table = self.tables.find(table_id, token) if len(token) <= 64 else None
        if table is None or not same_secret(table.host, token):
            return _not_found()
        base = str(request.base_url).rstrip("/")
        return _page(f"Table {table.id}", self.links_body(table, base))

    def links_body(self, table: Table, base: str) -> str:
        items = "".join(
            f'<li>Seat {s}: <a href="{html.escape(url)}">{html.escape(url)}</a></li>'
            for s, url in ((s, f"{base}/t/{table.id}/{t}") for s, t in sorted(table.tokens.items()))
        )
        spectator = f"{base}/t/{table.id}/{table.spectator}"
        return (
            f"<main><h1>Table {html.escape(table.id)}: {html.escape(table.game.ruleset.name)}</h1>"
            "<p>Send each person their own link: whoever has a link plays that seat. This page's"
            " address brings these links back; keep it to yourself.</p>"
            f"<ul class=links>{items}</ul>"
            f'<p>To watch without a hand: <a href="{html.escape(spectator)}">{html.escape(spectator)}</a></p>'
            '<p><a href="/">Back to the lobby</a></p></main>'
        )

    async def table_page(self, request: Request) -> Response:
        found = self.opened(request.path_params["table"], request.path_params["token"])
        if found is None:
            return _not_found()
        table, seat = found
        view = table.read(table.view, seat)  # (not the table's lock: the bots may be thinking)
        token = request.path_params["token"]
        rs = table.game.ruleset
        config = {
            "ws": f"/t/{table.id}/{token}/ws",
            "log": f"/t/{table.id}/{token}/log",
            "cards": table.catalogue(),
        }
        who = "watching" if seat is None else f"seat {seat}"
        rules = html.escape(describe_ruleset(rs))
        body = (
            '<a class="skip" href="#hand">Skip to your hand</a>'
            f'<header><h1>{html.escape(rs.name)}</h1><p class="who">Table {html.escape(table.id)}, {who}'
            ' <span id="link-state" class="link-state">connecting...</span></p></header>'
            '<main id="table">'
            '<p id="status" class="status" role="status" aria-live="polite"></p>'
            '<p id="error" class="error" role="alert" hidden></p>'
            '<section id="sheet" aria-labelledby="sheet-h" hidden></section>'
            '<section id="decision" aria-labelledby="decision-h" hidden></section>'
            '<section id="hand" aria-labelledby="hand-h" tabindex="-1"><h2 id="hand-h">Your hand</h2>'
            '<div id="hand-cards" class="cards"></div><div id="pick-bar" class="pick-bar"></div></section>'
            '<section aria-labelledby="boards-h"><h2 id="boards-h">Tables and scores</h2>'
            '<div id="boards"></div></section>'
            '<section aria-labelledby="log-h"><h2 id="log-h">What happened</h2><ol id="log" class="log"></ol></section>'
            f'<details><summary>Rules of the game</summary><pre class="rules">{rules}</pre></details>'
            "</main>"
            f"{_json_script('config', config)}{_json_script('initial-view', view)}"
        )
        return _page(f"{rs.name}: table {table.id}", body, script=True)

    async def game_log(self, request: Request) -> Response:
        found = self.opened(request.path_params["table"], request.path_params["token"])
        if found is None:
            return _not_found()
        table, _ = found
        text = table.read(lambda: table.record_text() if table.state.is_terminal() else None)
        if text is None:
            return PlainTextResponse("the game is not over yet", status_code=409, headers=HEADERS)
        headers = dict(HEADERS)
        headers["Content-Disposition"] = f'attachment; filename="ruledraft-{table.id}.jsonl"'
        return Response(text, media_type="application/x-ndjson", headers=headers)

    # ------------------------------------------------------------------ the WebSocket

    async def socket(self, websocket: WebSocket) -> None:
        origin = websocket.headers.get("origin")
        if origin is not None and not same_origin(origin, websocket.headers.get("host")):
            await websocket.close(code=1008)
            return
        found = self.opened(websocket.path_params["table"], websocket.path_params["token"])
        if found is None:
            # accepted, then closed with 1008: a page whose table has gone (a server started again without it)
            # reads the code and says its link opens no seat; refused in the handshake, a browser sees only 1006
            # and the page would try again for ever
            await websocket.accept()
            await websocket.close(code=1008)
            return
        table, seat = found
        await websocket.accept()
        out = Outbox(websocket)
        entry = (out, seat)
        self.sockets.setdefault(table.id, []).append(entry)
        try:
            out.post(table.read(table.view, seat))
            thinking = self.thinking.get(table.id)
            if thinking is not None:  # joined while the bots think: told as the others were
                out.post(thinking)
            while not out.closed:
                await out.room()  # (outside the table's lock: a slow reader holds up only itself)
                if out.closed:
                    break
                message = await websocket.receive()
                if message["type"] == "websocket.disconnect":
                    break
                text = message.get("text")
                if text is None:
                    _error(out, "send moves as JSON text")
                    continue
                if len(text) > MAX_MESSAGE:
                    _error(out, f"a message may be at most {MAX_MESSAGE} bytes")
                    continue
                try:
                    move = json.loads(text)
                except (ValueError, RecursionError):  # (nested past Python's depth: not a move either)
                    _error(out, "that message is not JSON")
                    continue
                if isinstance(move, dict) and move.get("type") == "view":  # ask again for the view
                    out.post(table.read(table.view, seat))
                    continue
                if seat is None:
                    _error(out, "a spectator watches: no moves")
                    continue
                if isinstance(move, dict) and move.get("type") == "seat_view":  # the bots' form of the view
                    out.post(table.read(table.bot_view, seat))
                    continue
                async with self.lock(table):
                    before, stopped = table.moves, table.failure
                    try:
                        async with self.threads:  # a decision may end the game: its record
                            await in_thread(table.take, seat, move)
                    except ActionError as e:
                        _error(out, str(e))
                        continue
                    except Exception:  # noqa: BLE001 - a fault of ours: said, logged, and the server goes on
                        log.exception("table %s: a move of seat %s failed", table.id, seat)
                        _error(out, "the server could not make that move (an internal error)")
                        continue
                    try:
                        noticed = await self.bots_move(table)
                    except Exception:  # noqa: BLE001 - the same, in the bots' moves: every seat is sent where it stands
                        log.exception("table %s: the bots' moves after seat %s failed", table.id, seat)
                        _error(out, "the server could not make the bots' moves (an internal error)")
                        noticed = True
                    # a pick held until the others have picked changes only who has picked; after a
                    # notice that bots were thinking, or a bot's failure, every seat gets its view
                    moved = table.moves != before or noticed or table.failure != stopped
                    self.broadcast(table, only=None if moved else seat)
                    if table.state.is_terminal():
                        self.tables.trim()  # the finished games past the last few leave memory
        except WebSocketDisconnect:
            pass
        except asyncio.CancelledError:  # the server stopping (Ctrl-C): this seat's socket ends with it
            pass
        finally:
            seats = self.sockets.get(table.id, [])
            if entry in seats:
                seats.remove(entry)
            await out.finish()

    async def bots_move(self, table: Table) -> bool:
        """The bots' moves that follow a person's, in a thread; if they take longer than
        ``thinking_after`` seconds (a search that thinks long, a roll-out still being
        compiled), every seat is told which bots it waits for
        (``{"type": "thinking", "seats": [...]}``) rather than hearing nothing. Whether
        it was told. The bots named are those of the step being played; a later step
        that takes as long names its own."""
        if not table.moves_on():
            return False
        async with self.threads:
            moving = in_thread(table.advance)
            told: list[int] = []
            try:
                while not (await asyncio.wait({moving}, timeout=self.thinking_after))[0]:
                    seats = list(table.moving)
                    if seats and seats != told:
                        told = seats
                        note = self.thinking[table.id] = json.dumps({"type": "thinking", "seats": seats})
                        for out, _seat in list(self.sockets.get(table.id, [])):
                            out.post(note)
                await moving
            finally:
                self.thinking.pop(table.id, None)
        return bool(told)

    def broadcast(self, table: Table, only: int | None = None) -> None:
        """Each seat connected to ``table`` is sent its own view (built once per seat);
        with ``only``, that seat alone, and the others just who has picked and who the
        table waits for (``{"type": "picked", "picked": [...], "waiting": [...]}``)."""
        views: dict[int | None, str] = {}
        progress = None
        if only is not None:
            progress = json.dumps({"type": "picked", "picked": sorted(table.picks), "waiting": table.waiting_for()})
        for out, seat in list(self.sockets.get(table.id, [])):
            if progress is not None and seat != only:
                views[seat] = progress
            elif seat not in views:
                views[seat] = json.dumps(table.view(seat), separators=(",", ":"))
            out.post(views[seat])


def _error(out: Outbox, message: str) -> None:
    out.post({"type": "error", "message": message})


async def _bounded_body(request: Request, most: int) -> bytes | None:
    """The request's body, or None once it is longer than ``most`` bytes (said by its
    Content-Length, or found reading it): never more than that is held."""
    length = request.headers.get("content-length", "")
    if length.isascii() and length.isdigit() and int(length) > most:
        return None
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > most:
            return None
    return bytes(body)


def _whole(text: str, what: str) -> int:
    """The whole number a form's field holds (its range is checked where it is used, which
    names it); a field that holds none, or one of more than 40 digits, is refused. Decimal
    digits of any script ('٣', '３') are read, as the command line reads them."""
    text = text.strip()
    digits = text[1:] if text.startswith("-") else text
    if not digits.isdecimal() or len(digits) > 40:
        raise InputError(f"{what}: a whole number, please")
    return int(text)


def create_app(tables: Tables, choices: Sequence[str] = (), thinking_after: float = THINKING_AFTER) -> Starlette:
    """The ASGI application serving ``tables``; ``choices``: rulesets the lobby offers
    first; ``thinking_after``: the seconds bots may take to move before the seats are
    told they are thinking."""
    server = Server(tables, choices, thinking_after)
    static = resources.files("ruledraft.web") / "static"
    app = Starlette(
        routes=[
            Route("/", server.lobby),
            Route("/tables", server.open_table, methods=["POST"]),
            Route("/links/{table}/{token}", server.links_page),
            Route("/t/{table}/{token}", server.table_page),
            Route("/t/{table}/{token}/log", server.game_log),
            WebSocketRoute("/t/{table}/{token}/ws", server.socket),
            Mount("/static", StaticFiles(directory=str(static)), name="static"),
        ]
    )
    app.state.server = server
    return app
