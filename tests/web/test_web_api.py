"""``ruledraft serve``'s pages and WebSocket through Starlette's test client: joining,
picking, the decisions of every Party card effect, illegal and malformed moves, tokens
of no table or of another table, the Origin check, reconnecting, the lobby, the
finished game's log, and resuming every game after the server was killed."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import threading
import time
import warnings
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # newer Starlette asks for httpx2 but takes httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect  # noqa: E402

from ruledraft.play.game_log import replay_record  # noqa: E402
from ruledraft.web.app import create_app  # noqa: E402
from ruledraft.web.tables import ActionError, Tables  # noqa: E402

#: every effect of the Party library that asks a decision, and a bundled menu that has it
EFFECT_MENUS = {
    "ask_for": "sushi-go-party-master-menu",  # spoon
    "turn_face_down": "sushi-go-party-master-menu",  # takeout box
    "draw_and_choose": "sushi-go-party-dinner-for-two",  # menu
    "copy_earlier": "sushi-go-party-dinner-for-two",  # special order
    "second_pick": "sushi-go-party-big-banquet",  # chopsticks
}


@pytest.fixture
def tables(tmp_path) -> Tables:
    t = Tables(tmp_path / "tables")
    yield t
    t.close()


@pytest.fixture
def client(tables):
    with TestClient(create_app(tables)) as c:  # one event loop for every connection, as under uvicorn
        yield c


def ws_path(table, seat) -> str:
    token = table.spectator if seat is None else table.tokens[seat]
    return f"/t/{table.id}/{token}/ws"


class Seats:
    """Every person's WebSocket at a table; each move is followed by one view to each."""

    def __init__(self, client, table, seats):
        self.sockets = {s: client.websocket_connect(ws_path(table, s)) for s in seats}
        self.entered = {s: ws.__enter__() for s, ws in self.sockets.items()}
        self.views = {s: self.entered[s].receive_json() for s in seats}
        self.received: dict[int, list[dict]] = {s: [self.views[s]] for s in seats}

    def send(self, seat, move) -> dict:
        """Send a move; the mover's answer (an error, or its next view, all seats updated)."""
        self.entered[seat].send_json(move)
        first = self.entered[seat].receive_json()
        if first["type"] == "error":
            return first
        self.views[seat] = first
        self.received[seat].append(first)
        for s, ws in self.entered.items():
            if s != seat:
                message = ws.receive_json()
                if message["type"] == "picked":  # the mover's pick waits for others': only who has picked
                    assert first["version"] == self.views[s]["version"]
                    assert set(message) == {"type", "picked", "waiting"}
                    message = {**self.views[s], "picked": message["picked"], "waiting": message["waiting"]}
                self.views[s] = message
                self.received[s].append(message)
        return first

    def close(self):
        for ws in self.sockets.values():
            ws.__exit__(None, None, None)


def a_move(view, rng: random.Random) -> dict | None:
    """A legal-looking move for a seat's view (None: nothing asked of it)."""
    if view["decision"]:
        return {"type": "decide", "option": rng.choice(view["decision"]["options"])["action"]}
    if view["pick"]:
        pick = view["pick"]
        hand = view["hand"][:]
        rng.shuffle(hand)
        k = 1 + (rng.randrange(pick["extra"] + 1) if pick["extra"] else 0)
        move = {"type": "pick", "cards": hand[:k]}
        if pick["dummy"]:
            move["dummy"] = hand[k]
        return move
    return None


def play_to_end(seats: Seats, rng: random.Random, limit: int = 2000) -> list[str]:
    """Every person moves at random until the game ends; the effects whose decisions were asked."""
    asked = []
    for _ in range(limit):
        if all(v["finished"] for v in seats.views.values()):
            return asked
        for s, view in seats.views.items():
            move = a_move(view, rng)
            if move is not None:
                if view["decision"]:
                    asked.append(view["decision"]["effect"])
                answer = seats.send(s, move)
                assert answer["type"] == "view", answer
                break
        else:
            raise AssertionError(f"nobody can move: {seats.views}")
    raise AssertionError("the game did not end")


# ---------------------------------------------------------------------- joining and picking


def test_a_seat_joins_and_sees_its_hand_and_the_others_hand_sizes(client, tables):
    """The page and the first view of a seat hold its own hand, and of the others only how many cards they hold."""
    table = tables.open_table("sushi-go", 4, 2, ["greedy"], seed=5)
    page = client.get(f"/t/{table.id}/{table.tokens[0]}")
    assert page.status_code == 200
    assert "Sushi Go!" in page.text and 'id="initial-view"' in page.text
    assert page.headers["content-security-policy"].startswith("default-src 'none'")
    with client.websocket_connect(ws_path(table, 0)) as ws:
        view = ws.receive_json()
    ids = table.game.ruleset.catalogue.ids
    assert sorted(view["hand"]) == sorted(ids[c] for c in table.state.hands[0])
    assert len(view["hand"]) == 8  # four players: 8 cards each (rulebook)
    assert [b["hand"] for b in view["boards"]] == [8, 8, 8, 8]
    assert view["pick"] == {"extra": 0, "tools": [], "dummy": False, "drawn": []}
    assert view["you"] == 0 and view["round"] == 1 and view["rounds"] == 3


def test_bots_that_take_long_over_their_moves_are_named_to_every_seat_first(tables, monkeypatch):
    """When the bots take longer than the notice's time, each seat and the watcher hear who is thinking, then the view."""
    from ruledraft.web.tables import Table

    real = Table._bot_move

    def slow(self, seat):
        time.sleep(0.4)
        return real(self, seat)

    monkeypatch.setattr(Table, "_bot_move", slow)
    table = tables.open_table("sushi-go", 4, 2, ["greedy", "first"], seed=3)
    with TestClient(create_app(tables, thinking_after=0.1)) as client:
        watcher = client.websocket_connect(ws_path(table, None)).__enter__()
        seats = Seats(client, table, [0, 1])
        try:
            watcher.receive_json()
            seats.entered[0].send_json({"type": "pick", "cards": [seats.views[0]["hand"][0]]})
            assert seats.entered[0].receive_json()["picked"] == [0]  # held: no bot moves yet, no notice
            assert seats.entered[1].receive_json()["type"] == "picked"
            assert watcher.receive_json()["type"] == "picked"
            seats.entered[1].send_json({"type": "pick", "cards": [seats.views[1]["hand"][0]]})
            for ws in [*seats.entered.values(), watcher]:
                assert ws.receive_json() == {"type": "thinking", "seats": [2, 3]}
                view = ws.receive_json()
                assert view["type"] == "view" and view["turn"] == 2 and view["picked"] == []
        finally:
            seats.close()
            watcher.__exit__(None, None, None)


def test_a_reload_and_a_new_socket_are_answered_while_the_bots_think(tables, monkeypatch):
    """While the bots think over their moves (held until the test lets them go), the seat's page reloads, the log link answers that the game is not over, and a socket opened meanwhile gets the view at once and the notice of the bots thought over; the turn is then played."""
    from ruledraft.web.tables import Table

    release, thinking = threading.Event(), threading.Event()
    real = Table._bot_move

    def held(self, seat):
        thinking.set()
        release.wait(20)
        return real(self, seat)

    monkeypatch.setattr(Table, "_bot_move", held)
    table = tables.open_table("sushi-go", 3, 1, ["greedy"], seed=5)
    got: dict = {}
    with TestClient(create_app(tables, thinking_after=0.05)) as client:
        with client.websocket_connect(ws_path(table, 0)) as ws:
            view = ws.receive_json()
            ws.send_json({"type": "pick", "cards": [view["hand"][0]]})
            assert thinking.wait(20)
            assert ws.receive_json() == {"type": "thinking", "seats": [1, 2]}

            def meanwhile():
                got["page"] = client.get(f"/t/{table.id}/{table.tokens[0]}")
                got["log"] = client.get(f"/t/{table.id}/{table.tokens[0]}/log")
                with client.websocket_connect(ws_path(table, 0)) as again:
                    got["first"] = again.receive_json()
                    again.send_json({"type": "view"})  # answered in any case: what came before it is read
                    got["then"] = [again.receive_json()]
                    while got["then"][-1]["type"] != "view":
                        got["then"].append(again.receive_json())

            other = threading.Thread(target=meanwhile)
            other.start()
            other.join(10)
            answered = not other.is_alive()
            release.set()
            other.join(20)
            assert answered, "the page waited for the bots"
            assert got["page"].status_code == 200 and got["log"].status_code == 409
            assert got["first"]["type"] == "view" and got["first"]["turn"] == 1
            assert got["then"][0] == {"type": "thinking", "seats": [1, 2]}
            assert ws.receive_json()["turn"] == 2


def test_a_later_step_that_takes_long_names_its_own_bots(tables, monkeypatch):
    """advance playing a quick step of seat 2, then a slow one of seat 3: the notice names seat 3, the seat thought over, once."""
    from ruledraft.web.tables import Table

    real = Table.advance

    def two_steps(self):
        self.moving = [2]
        time.sleep(0.02)
        self.moving = [3]
        time.sleep(0.5)
        real(self)

    monkeypatch.setattr(Table, "advance", two_steps)
    table = tables.open_table("sushi-go", 3, 2, ["greedy"], seed=5)
    with TestClient(create_app(tables, thinking_after=0.1)) as client:
        seats = Seats(client, table, [0, 1])
        try:
            both_pick(seats)
            for ws in seats.entered.values():
                assert ws.receive_json() == {"type": "thinking", "seats": [3]}
                assert ws.receive_json()["type"] == "view"  # told once, then the view
        finally:
            seats.close()


def test_advance_says_which_bots_each_step_waits_for(tables, monkeypatch):
    """While a bot moves, the table's moving names the bots of that step; after advance, none."""
    from ruledraft.web.tables import Table

    seen = []
    real = Table._bot_move

    def watched(self, seat):
        seen.append((seat, list(self.moving)))
        return real(self, seat)

    monkeypatch.setattr(Table, "_bot_move", watched)
    table = tables.open_table("sushi-go", 4, 2, ["greedy", "first"], seed=3)
    ids = table.game.ruleset.catalogue.ids
    for seat in (0, 1):
        table.take(seat, {"type": "pick", "cards": [ids[table.state.hands[seat][0]]]})
    table.advance()
    assert seen == [(2, [2, 3]), (3, [2, 3])] and table.moving == []


def both_pick(seats: Seats) -> None:
    """Seats 0 and 1 pick their first cards, seat 0's answers read, seat 1's left to read."""
    seats.entered[0].send_json({"type": "pick", "cards": [seats.views[0]["hand"][0]]})
    seats.entered[0].receive_json()
    seats.entered[1].receive_json()
    seats.entered[1].send_json({"type": "pick", "cards": [seats.views[1]["hand"][0]]})


def test_a_bot_that_fails_after_the_notice_leaves_no_page_waiting_on_it(tables, monkeypatch):
    """A slow bot that then fails: every seat hears who was thinking, then its view with the failure in it."""
    from ruledraft.play.agents import BotFailure
    from ruledraft.web.tables import Table

    def failing(self, seat):
        time.sleep(0.3)
        raise BotFailure(f"bot 'greedy' at seat {seat} raised RuntimeError: x (game seed 1)")

    monkeypatch.setattr(Table, "_bot_move", failing)
    table = tables.open_table("sushi-go", 3, 2, ["greedy"], seed=5)
    with TestClient(create_app(tables, thinking_after=0.05)) as client:
        seats = Seats(client, table, [0, 1])
        try:
            both_pick(seats)
            for ws in seats.entered.values():
                assert ws.receive_json() == {"type": "thinking", "seats": [2]}
                view = ws.receive_json()
                assert view["type"] == "view" and view["failure"].startswith("bot 'greedy' at seat 2 raised")
        finally:
            seats.close()


def test_a_fault_in_the_bots_moves_is_said_and_every_seat_gets_its_view(tables, monkeypatch):
    """advance failing inside the server: the mover is told it was an internal error, and each seat is sent its view."""
    from ruledraft.web.tables import Table

    def broken(self):
        raise RuntimeError("a fault")

    table = tables.open_table("sushi-go", 3, 2, ["greedy"], seed=5)
    monkeypatch.setattr(Table, "advance", broken)
    with TestClient(create_app(tables)) as client:
        seats = Seats(client, table, [0, 1])
        try:
            both_pick(seats)
            assert "could not make the bots' moves" in seats.entered[1].receive_json()["message"]
            for ws in seats.entered.values():
                assert ws.receive_json()["type"] == "view"
        finally:
            seats.close()


def test_bots_that_move_at_once_send_no_notice(client, tables):
    """With bots quicker than the notice's time, a person's move is answered by the views alone."""
    table = tables.open_table("sushi-go", 3, 1, ["greedy"], seed=4)
    with client.websocket_connect(ws_path(table, 0)) as ws:
        view = ws.receive_json()
        for turn in range(2, 5):
            ws.send_json({"type": "pick", "cards": [view["hand"][0]]})
            view = ws.receive_json()
            assert view["type"] == "view" and view["turn"] == turn


def test_picks_are_revealed_together_once_every_person_has_picked(client, tables):
    """The first pick is held unseen (its seat marked as picked); the second reveals both with the bots' picks."""
    table = tables.open_table("sushi-go", 4, 2, ["greedy"], seed=6)
    seats = Seats(client, table, [0, 1])
    try:
        first = seats.views[0]["hand"][0]
        after = seats.send(0, {"type": "pick", "cards": [first]})
        assert after["pick"] is None and after["picked"] == [0]
        other = seats.views[1]
        assert other["picked"] == [0] and other["waiting"] == [1]
        assert all(b["played"] == [] for b in other["boards"])  # nothing revealed yet
        assert first not in json.dumps(other["boards"])
        second = seats.views[1]["hand"][0]
        seats.send(1, {"type": "pick", "cards": [second]})
        view = seats.views[0]
        assert view["turn"] == 2 and view["picked"] == []
        assert view["boards"][0]["played"] == [first] and view["boards"][1]["played"] == [second]
        assert [len(b["played"]) for b in view["boards"]] == [1, 1, 1, 1]
        assert len(view["hand"]) == 7
        assert view["log"][-1].startswith("Revealed: you: ")
    finally:
        seats.close()


def test_a_whole_game_through_the_websocket_ends_with_the_score_sheet_and_a_log_that_replays(client, tables):
    """Two people and two bots play Sushi Go! to the end: the sheet per rule sums to the totals; the log replays clean."""
    table = tables.open_table("sushi-go", 4, 2, ["greedy"], seed=11)
    assert client.get(f"/t/{table.id}/{table.tokens[0]}/log").status_code == 409  # not over yet
    seats = Seats(client, table, [0, 1])
    try:
        play_to_end(seats, random.Random(1))
        sheet = seats.views[0]["sheet"]
    finally:
        seats.close()
    totals = [sum(r["points"][s] for r in sheet["rules"]) for s in range(4)]
    assert totals == sheet["totals"] == table.state.score_sheet().totals
    assert [r["rule"] for r in sheet["rules"]] == list(table.game.ruleset.rule_ids)
    response = client.get(f"/t/{table.id}/{table.tokens[1]}/log")
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    record = json.loads(response.text)
    assert record["seats"] == ["human", "human", "greedy", "greedy"]
    assert replay_record(table.game.ruleset, record) == []
    assert (tables.journal / table.id / "game.jsonl").read_text() == response.text


def test_every_party_effect_decision_is_asked_of_the_deciding_seat_and_made_through_the_websocket(client, tables):
    """Spoon, takeout box, menu, special order and chopsticks: each asks its seat, and the choice sent is made."""
    rng = random.Random(3)
    seen: set[str] = set()
    for menu in dict.fromkeys(EFFECT_MENUS.values()):
        for seed in range(6):
            table = tables.open_table(menu, 4, 4, [], seed=seed)
            seats = Seats(client, table, range(4))
            try:
                seen.update(play_to_end(seats, rng))
                for s, views in seats.received.items():
                    for v in views:  # a decision is in the view of its deciding seat only
                        assert v["decision"] is None or (v["deciding"] and v["deciding"]["seat"] == s)
            finally:
                seats.close()
            assert replay_record(table.game.ruleset, json.loads(table.record_text())) == []
            if all(effect in seen for effect, m in EFFECT_MENUS.items() if m == menu):
                break
    assert seen >= set(EFFECT_MENUS)


def test_the_log_says_a_declined_decision_in_the_words_the_table_offered_it(tmp_path):
    """A spoon declined is logged as "chose: not now" (what its button said, "not now: keep
    your Spoon ..."), never as "done"; so it is once the game is resumed from its journal."""
    journal = tmp_path / "tables"
    first = Tables(journal)
    rng = random.Random(4)
    for seed in range(30):
        table = first.open_table("sushi-go-party-master-menu", 4, 4, [], seed=seed)
        for _ in range(400):
            state = table.state
            pending = state.pending
            if pending is not None and pending.effect == "ask_for" and state.game.done_action in pending.options:
                offered = table.view(pending.seat)["decision"]["options"]
                assert any(o["label"].startswith("not now: keep your Spoon") for o in offered)
                table.act(pending.seat, {"type": "decide", "option": state.game.done_action})
                log = table.view(None)["log"]
                assert "chose: not now" in log[-1] or any(line.endswith("chose: not now") for line in log)
                assert not any(line.endswith("chose: done") for line in log)
                resumed = Tables(journal).resume(journal)[0]
                (again,) = [t for t in resumed if t.id == table.id]
                assert again.view(None)["log"] == log
                again.close()
                first.close()
                return
            if state.is_terminal():
                break
            s, move = next((s, m) for s in table.humans if (m := a_move(table.view(s), rng)) is not None)
            table.act(s, move)
    raise AssertionError("no spoon was declined in 30 games")


def test_a_menu_shows_the_cards_drawn_to_the_deciding_seat_only(client, tables):
    """A Party menu's drawn cards are in the decider's view and in nobody else's."""
    rng = random.Random(9)
    for seed in range(20):
        table = tables.open_table("sushi-go-party-dinner-for-two", 4, 4, [], seed=seed)
        seats = Seats(client, table, range(4))
        try:
            for _ in range(400):
                deciding = [s for s, v in seats.views.items() if v["decision"] and v["decision"]["shown"]]
                if deciding:
                    s = deciding[0]
                    shown = seats.views[s]["decision"]["shown"]
                    assert len(shown) == 4  # the menu draws 4 (rulebook)
                    for other, v in seats.views.items():
                        if other != s:
                            assert v["decision"] is None
                            assert v["deciding"]["seat"] == s
                    return
                if all(v["finished"] for v in seats.views.values()):
                    break
                s, move = next((s, a_move(v, rng)) for s, v in seats.views.items() if a_move(v, rng))
                seats.send(s, move)
        finally:
            seats.close()
    pytest.fail("no menu was played in 20 games")


# ---------------------------------------------------------------------- refused input


def test_illegal_and_malformed_moves_get_a_clear_error_and_the_game_goes_on(client, tables):
    """Wrong cards, wrong turns, wrong shapes, binary frames and oversized text: each an error; then a good pick works."""
    table = tables.open_table("sushi-go", 4, 2, ["greedy"], seed=8)
    hand = [table.game.ruleset.catalogue.ids[c] for c in table.state.hands[0]]
    missing = next(c for c in table.game.ruleset.catalogue.ids if c not in hand)
    cases = [
        ("{not json", "not JSON"),
        ("[" * 2040 + "]" * 2040, "not JSON"),  # nested past Python's depth, within the size: no crash
        ("[1, 2]", "a JSON object"),
        ('"pick"', "a JSON object"),
        (
            json.dumps({"type": "shout"}),
            "unknown message: 'type' is 'pick' or 'decide' (a move), 'view' or 'seat_view'",
        ),
        (json.dumps({"type": "pick"}), "a list of card ids"),
        (json.dumps({"type": "pick", "cards": "tempura"}), "a list of card ids"),
        (json.dumps({"type": "pick", "cards": []}), "a list of card ids"),
        (json.dumps({"type": "pick", "cards": [3]}), "a list of card ids"),
        (json.dumps({"type": "pick", "cards": ["no-such-card"]}), "not a card of this game"),
        (json.dumps({"type": "pick", "cards": [missing]}), "is not in your hand"),
        (json.dumps({"type": "pick", "cards": hand[:2]}), "only one card this turn"),
        (json.dumps({"type": "decide", "option": 0}), "no decision is asked of you"),
        (json.dumps({"type": "pick", "cards": [hand[0]], "version": 99}), "moved on"),
        (json.dumps({"type": "pick", "cards": [hand[0]], "version": "x"}), "the view's version, a whole number"),
        (json.dumps({"type": "pick", "cards": [hand[0]], "version": False}), "the view's version, a whole number"),
        ("x" * 5000, "at most 4096 bytes"),
    ]
    with client.websocket_connect(ws_path(table, 0)) as ws:
        ws.receive_json()
        for text, words in cases:
            ws.send_text(text)
            answer = ws.receive_json()
            assert answer["type"] == "error" and words in answer["message"], (text[:40], answer)
        ws.send_bytes(b"\x00\x01")
        assert "JSON text" in ws.receive_json()["message"]
        ws.send_json({"type": "pick", "cards": [hand[0]]})
        view = ws.receive_json()
        assert view["type"] == "view" and view["picked"] == [0]
        ws.send_json({"type": "pick", "cards": [hand[1]]})
        assert "picked this turn already" in ws.receive_json()["message"]
    assert table.moves == 0 and table.picks == {
        0: table.game.encode_action([table.game.ruleset.catalogue.index_of(hand[0])])
    }


def test_a_wrong_or_another_tables_token_opens_nothing(client, tables):
    """A made-up token, and a seat's token at another table, give no page, no log and no WebSocket."""
    one = tables.open_table("sushi-go", 3, 1, ["random"], seed=1)
    two = tables.open_table("sushi-go", 3, 1, ["random"], seed=2)
    for path in (
        f"/t/{one.id}/{two.tokens[0]}",
        f"/t/{two.id}/{one.tokens[0]}",
        f"/t/{one.id}/{two.spectator}",
        f"/t/{one.id}/AAAAAAAAAAAAAAAAAAAAAA",
        f"/t/nosuchtable/{one.tokens[0]}",
    ):
        assert client.get(path).status_code == 404
        assert client.get(path + "/log").status_code == 404
        with pytest.raises(WebSocketDisconnect) as refused:
            with client.websocket_connect(path + "/ws") as ws:
                ws.receive_json()
        assert refused.value.code == 1008
    assert len(one.tokens[0]) == 22  # 16 random bytes, URL-safe base64


def test_a_websocket_from_another_site_is_refused(client, tables):
    """An Origin that is not the page's own site is refused; the page's own is let in."""
    table = tables.open_table("sushi-go", 3, 1, ["random"], seed=1)
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(ws_path(table, 0), headers={"origin": "http://evil.example"}) as ws:
            ws.receive_json()
    with pytest.raises(WebSocketDisconnect):
        with client.websocket_connect(ws_path(table, 0), headers={"origin": "null"}) as ws:
            ws.receive_json()
    with client.websocket_connect(ws_path(table, 0), headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "view"


def test_a_spectator_sees_every_table_but_no_hand_and_cannot_move(client, tables):
    """The watching link's view has no hand, pick or decision, and a move from it is refused."""
    table = tables.open_table("sushi-go", 4, 2, ["greedy"], seed=4)
    with client.websocket_connect(ws_path(table, None)) as ws:
        view = ws.receive_json()
        assert view["you"] is None and view["hand"] == [] and view["pick"] is None and view["decision"] is None
        assert len(view["boards"]) == 4
        ws.send_json({"type": "pick", "cards": ["tempura"]})
        assert "spectator" in ws.receive_json()["message"]


def test_reconnecting_returns_the_seat_with_the_state_as_it_is(client, tables):
    """A seat that leaves mid-turn and comes back is sent its hand and its pending pick as they were."""
    table = tables.open_table("sushi-go", 4, 2, ["greedy"], seed=12)
    seats = Seats(client, table, [0, 1])
    try:
        rng = random.Random(2)
        for _ in range(5):
            for s in (0, 1):
                seats.send(s, a_move(seats.views[s], rng))
        seats.send(0, a_move(seats.views[0], rng))  # seat 0 has picked; seat 1 has not
        before = seats.views[1]
    finally:
        seats.close()
    with client.websocket_connect(ws_path(table, 1)) as ws:
        again = ws.receive_json()
        assert again == before
        ws.send_json(a_move(again, random.Random(0)))
        assert ws.receive_json()["turn"] == 7


# ---------------------------------------------------------------------- the lobby


def test_the_lobby_opens_a_table_and_gives_its_links_only_to_whoever_opened_it(client, tables):
    """A form posted opens a table and is answered with a redirect to the page of its links
    (a 128-bit secret of its own); the lobby lists the table without them."""
    answer = client.post("/tables", data={"ruleset": "sushi-go", "players": "3", "humans": "2", "bots": "random"})
    assert answer.status_code == 200
    (table,) = tables.tables.values()
    assert [r.status_code for r in answer.history] == [303]
    assert answer.url.path == f"/links/{table.id}/{table.host}" and len(table.host) >= 22
    assert table.kinds == ["human", "human", "random"]
    for token in (*table.tokens.values(), table.spectator):
        assert f"/t/{table.id}/{token}" in answer.text
    lobby = client.get("/")
    assert table.id in lobby.text and "Sushi Go!" in lobby.text
    assert all(token not in lobby.text for token in (*table.tokens.values(), table.spectator, table.host))


def test_reloading_the_links_page_shows_the_same_links_and_opens_no_other_table(client, tables):
    """The links' page read again (a reload, the back button) gives the same links and opens
    nothing; a seat's or the spectators' token, another table's host secret or a guess opens no links' page."""
    form = {"ruleset": "sushi-go", "players": "3", "humans": "1", "bots": "random"}
    first = client.post("/tables", data=form)
    again = client.get(first.url.path)
    assert again.status_code == 200 and again.text == first.text
    assert len(tables.tables) == 1
    client.post("/tables", data=form)
    table, other = tables.tables.values()
    for token in (table.tokens[0], table.spectator, other.host, "A" * 22, "x" * 65):
        answer = client.get(f"/links/{table.id}/{token}")
        assert answer.status_code == 404 and table.tokens[0] not in answer.text


def test_the_lobby_reads_the_digits_of_another_script_as_the_command_line_does(client, tables):
    """Players, people and seed in Arabic-Indic or full-width digits open the table they name; a superscript is refused."""
    form = {"ruleset": "sushi-go", "players": "\u0663", "humans": "\uff11", "bots": "random", "seed": "\u0661\u0662"}
    assert client.post("/tables", data=form).status_code == 200
    (table,) = tables.tables.values()
    assert (table.game.num_players, table.kinds, table.seed) == (3, ["human", "random", "random"], 12)
    answer = client.post("/tables", data=form | {"players": "\u00b3"})
    assert answer.status_code == 400 and "players: a whole number" in answer.text


def test_the_lobby_left_without_players_opens_the_usual_count_for_the_game(client, tables):
    """An empty Players field opens 4 seats for Sushi Go! and 2 for the two-player game; the field starts empty."""
    assert 'name="players" type="number" min="1" max="20" value=""' in client.get("/").text
    for ruleset, seats in (("sushi-go", 4), ("sushi-go-two-player-dummy", 2)):
        answer = client.post("/tables", data={"ruleset": ruleset, "players": "", "humans": "1", "bots": "random"})
        assert answer.status_code == 200, answer.text
        (table,) = [t for t in tables.tables.values() if t.game.ruleset.id == ruleset]
        assert table.game.num_players == seats


def test_a_lobby_table_readies_an_ismcts_kernel_yes_rollout_while_the_people_pick(client, tables, monkeypatch):
    """A table opened from the lobby with ismcts:kernel=yes answers at once, its roll-out
    made ready in a thread meanwhile (not at the bot's first move); a table of other bots readies nothing."""
    import threading

    from ruledraft.play import engines

    asked: list[tuple[str, int, list[str], str]] = []
    release = threading.Event()

    def ready(ruleset, players, bots, compiling=None, game=None):
        asked.append((ruleset.id, players, list(bots), threading.current_thread().name))
        release.wait(10)

    monkeypatch.setattr(engines, "ready_searches", ready)
    try:
        form = {"ruleset": "sushi-go", "players": "3", "humans": "1", "bots": "greedy,ismcts:kernel=yes"}
        assert client.post("/tables", data=form).status_code == 200  # while the readying still waits
        client.post("/tables", data={**form, "bots": "greedy,ismcts"})
    finally:
        release.set()
        for thread in threading.enumerate():
            if thread.name == "ruledraft-ready-searches":
                thread.join(10)
    kinds = ["human", "greedy", "ismcts:kernel=yes"]
    assert asked == [("sushi-go", 3, kinds[1:], "ruledraft-ready-searches")]
    assert len(tables.tables) == 2


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"ruleset": "../../etc/passwd", "players": "3", "humans": "1"}, "choose a game from the list"),
        ({"ruleset": "sushi-go", "players": "9", "humans": "1"}, "is for 2-5 players, not 9"),
        ({"ruleset": "sushi-go", "players": "3", "humans": "4"}, "from 1 to the 3 players"),
        ({"ruleset": "sushi-go", "players": "three", "humans": "1"}, "a whole number"),
        ({"ruleset": "sushi-go", "players": "3", "humans": "1", "seed": "-1"}, "from 0 to 9007199254740991, not -1"),
        (
            {"ruleset": "sushi-go", "players": "3", "humans": "1", "seed": "9" * 20},
            "from 0 to 9007199254740991, not 9999",
        ),
        ({"ruleset": "sushi-go", "players": "-2", "humans": "1"}, "is for 2-5 players, not -2"),
        ({"ruleset": "sushi-go", "players": "3", "humans": "1", "seed": "1" * 41}, "the seed: a whole number"),
        ({"ruleset": "sushi-go", "players": "3", "humans": "1", "bots": "/tmp/x.py:Bot"}, "unknown bot"),
        ({"ruleset": "sushi-go", "players": "3", "humans": "1", "bots": "nosuchbot"}, "unknown bot"),
        (
            {"ruleset": "sushi-go", "players": "4", "humans": "1", "bots": "greedy,,random"},
            "the bots have an empty entry (the 2nd): name a bot for every one listed",
        ),
    ],
)
def test_the_lobby_refuses_what_cannot_be_played_with_a_message(client, tables, form, words):
    """A bad form is answered with the lobby and one clear line; no table is opened, no bot file loaded."""
    answer = client.post("/tables", data=form)
    assert answer.status_code == 400
    assert words in answer.text
    assert tables.tables == {}


def test_the_lobby_names_every_bot_it_takes(client):
    """The lobby's help under the bots field names each bot known by name, the planner among them."""
    from ruledraft.play.agents import agent_names

    hint = client.get("/").text.split('id="bots-help"', 1)[1].split("</p>", 1)[0]
    assert all(name in hint for name in agent_names()) and "planner" in hint


def test_a_form_from_another_site_opens_no_table(client, tables):
    """A lobby form posted from another site's page is refused."""
    answer = client.post(
        "/tables",
        data={"ruleset": "sushi-go", "players": "3", "humans": "1"},
        headers={"origin": "http://evil.example"},
    )
    assert answer.status_code == 403 and tables.tables == {}


# ---------------------------------------------------------------------- resuming


def play_moves(table, rng: random.Random, count: int) -> None:
    """``count`` moves of the people at ``table``, made at random through :meth:`Table.act`."""
    for _ in range(count):
        for s in table.humans:
            view = table.view(s)
            move = a_move(view, rng)
            if move is not None:
                table.act(s, move)
                break


def test_a_killed_server_resumes_every_unfinished_game_where_it_was(tmp_path):
    """After a crash (a move's line torn in the journal), --resume continues each game from its last
    whole move, its links still open it, and the finished game replays clean and equals the game
    played without the crash."""
    journal = tmp_path / "tables"
    first = Tables(journal)
    a = first.open_table("sushi-go", 4, 2, ["greedy"], seed=21)
    b = first.open_table("sushi-go-party-master-menu", 3, 1, ["greedy"], seed=22)
    play_moves(a, random.Random(1), 12)
    play_moves(b, random.Random(2), 9)
    seen = {t.id: (t.moves, t.view(0)) for t in (a, b)}
    copy = tmp_path / "copy"
    shutil.copytree(journal, copy)  # the same journal, to play on without a crash
    with open(journal / a.id / "moves.jsonl", "a") as fh:
        fh.write('{"n": 99, "actio')  # the server died while writing a line
    # killed: nothing closed, nothing flushed beyond what each move wrote
    second = Tables(journal)
    resumed, problems = second.resume(journal)
    assert problems == []
    assert sorted(t.id for t in resumed) == sorted([a.id, b.id])
    for t in resumed:
        assert (t.moves, t.view(0)) == seen[t.id]
    again = second.get(a.id)
    with TestClient(create_app(second)) as client:
        assert client.get(f"/t/{a.id}/{a.tokens[1]}").status_code == 200
        seats = Seats(client, again, [0, 1])
        try:
            play_to_end(seats, random.Random(5))
        finally:
            seats.close()
    record = json.loads((journal / a.id / "game.jsonl").read_text())
    assert replay_record(again.game.ruleset, record) == []
    # the same moves without a crash: the same game (the bots' moves follow from the seed and the move)
    third = Tables(copy)
    (same,) = [t for t in third.resume(copy)[0] if t.id == a.id]
    with TestClient(create_app(third)) as client:
        seats = Seats(client, same, [0, 1])
        try:
            play_to_end(seats, random.Random(5))
        finally:
            seats.close()
    assert json.loads(same.record_text()) == record
    second.close()
    third.close()


def test_the_links_page_outlives_a_restart_and_an_old_journal_gets_one(tmp_path):
    """The host's secret is journaled: after --resume its page lists the same links. A journal
    written before there was one, or whose host was edited into something guessable or into the
    watch link (which would then list every seat's link), resumes with a new secret, kept."""
    journal = tmp_path / "tables"
    first = Tables(journal)
    table = first.open_table("sushi-go", 3, 1, ["greedy"], seed=4)
    old = first.open_table("sushi-go", 3, 1, ["greedy"], seed=5)
    first.close()
    info = json.loads((journal / old.id / "table.json").read_text())
    for host in (None, "1234", info["spectator"], info["tokens"]["0"]):
        edited = {k: v for k, v in info.items() if k != "host"} | ({} if host is None else {"host": host})
        (journal / old.id / "table.json").write_text(json.dumps(edited))
        again = Tables(journal)
        assert again.resume(journal)[1] == []
        made = again.get(old.id).host
        assert made not in (host, info["spectator"], info["tokens"]["0"]) and len(made) >= 22
        assert json.loads((journal / old.id / "table.json").read_text())["host"] == made
        with TestClient(create_app(again)) as client:
            page = client.get(f"/links/{table.id}/{table.host}")
            assert page.status_code == 200 and f"/t/{table.id}/{table.tokens[0]}" in page.text
            assert client.get(f"/links/{old.id}/{made}").status_code == 200
            assert client.get(f"/links/{old.id}/{info['spectator']}").status_code == 404
        again.close()


def test_a_link_of_any_text_opens_nothing_and_never_fails(client, tables):
    """A token that is not ASCII (a link mistyped or made up) is a page not found, on a seat's
    link and on the links' page: comparing it failed with an internal error (500)."""
    table = tables.open_table("sushi-go", 3, 1, ["greedy"], seed=4)
    for token in ("é", "\u00e9" * 22, "%C3%A9", "\U0001f600"):
        for path in (f"/t/{table.id}/{token}", f"/links/{table.id}/{token}"):
            answer = client.get(path)
            assert answer.status_code == 404, (path, answer.status_code)


def test_picks_handed_in_before_a_restart_are_still_in_after_it(tmp_path):
    """Two of three people pick, the server is killed: resumed, their picks are still held (the
    page says they have picked) and the third's pick plays the turn as it would have."""
    journal = tmp_path / "tables"
    first = Tables(journal)
    table = first.open_table("sushi-go", 4, 3, ["greedy"], seed=21)
    copy = tmp_path / "copy"
    shutil.copytree(journal, copy)
    picks = {}
    for seat in (1, 2):
        table.act(seat, {"type": "pick", "cards": [table.view(seat)["hand"][0]]})
        picks[seat] = table.picks[seat]
    assert table.waiting_for() == [0]
    (resumed,), problems = Tables(journal).resume(journal)
    assert problems == [] and resumed.picks == picks and resumed.waiting_for() == [0]
    assert resumed.view(1)["picked"] == table.view(1)["picked"]
    with pytest.raises(ActionError, match="picked this turn already"):
        resumed.take(1, {"type": "pick", "cards": [resumed.view(1)["hand"][1]]})
    last = {"type": "pick", "cards": [table.view(0)["hand"][0]]}
    table.act(0, last)
    resumed.act(0, last)
    assert resumed.moves == table.moves == 1 and resumed.view(0) == table.view(0)
    first.close()
    # a pick line torn by the crash is dropped: that person picks again
    (again,), _ = Tables(copy).resume(copy)
    again.act(1, {"type": "pick", "cards": [again.view(1)["hand"][0]]})
    again.close()
    with open(copy / again.id / "moves.jsonl", "a") as fh:
        fh.write('{"n": 0, "seat": 2, "pi')
    (torn,), problems = Tables(copy).resume(copy)
    assert problems == [] and list(torn.picks) == [1] and torn.waiting_for() == [0, 2]


def test_resume_reports_a_journal_it_cannot_read_and_goes_on_with_the_others(tmp_path):
    """A folder whose journal is broken is named with its reason; the good tables are resumed."""
    journal = tmp_path / "tables"
    first = Tables(journal)
    good = first.open_table("sushi-go", 3, 1, ["random"], seed=1)
    bad = first.open_table("sushi-go", 3, 1, ["random"], seed=2)
    play_moves(bad, random.Random(0), 2)
    first.close()
    (journal / bad.id / "moves.jsonl").write_text('{"n": 0, "actions": [999999, 0, 0]}\n{"n": 1, "actions": [0]}\n')
    resumed, problems = Tables(journal).resume(journal)
    assert [t.id for t in resumed] == [good.id]
    assert len(problems) == 1 and problems[0].startswith(f"{bad.id}: cannot resume")


def test_a_journal_keeps_the_seat_tokens_and_held_picks_readable_by_its_owner_only(tmp_path):
    """table.json holds the tokens, moves.jsonl the picks held before they are revealed, game.jsonl the whole deal: each is written with mode 0600, in a folder of mode 0700."""
    tables = Tables(tmp_path)
    table = tables.open_table("sushi-go", 3, 2, ["random"], seed=1)
    folder = Path(tmp_path) / table.id
    seat = table.humans[0]
    table.take(seat, {"type": "pick", "cards": [table.game.ruleset.catalogue.ids[table.state.hands[seat][0]]]})
    assert json.loads((folder / "moves.jsonl").read_text())["seat"] == seat  # a pick held, journaled
    play_moves(table, random.Random(1), 200)
    assert table.state.is_terminal()
    assert folder.stat().st_mode & 0o777 == 0o700
    for name in ("table.json", "moves.jsonl", "game.jsonl"):
        assert (folder / name).stat().st_mode & 0o777 == 0o600, name


def test_a_table_of_a_rule_file_resumes_from_another_directory(tmp_path, monkeypatch):
    """A table opened from a rule file by a relative path journals the file's absolute path,
    so --resume finds it from any directory."""
    from paths import EXAMPLES

    game_dir = tmp_path / "game"
    game_dir.mkdir()
    shutil.copy(EXAMPLES / "my-party-menu.yaml", game_dir / "my-menu.yaml")
    monkeypatch.chdir(game_dir)
    first = Tables(tmp_path / "tables")
    table = first.open_table("my-menu.yaml", 3, 1, ["random"], seed=4)
    play_moves(table, random.Random(0), 3)
    first.close()
    info = json.loads((tmp_path / "tables" / table.id / "table.json").read_text())
    assert info["ruleset"] == str(game_dir / "my-menu.yaml")
    monkeypatch.chdir(tmp_path)
    resumed, problems = Tables(tmp_path / "tables").resume(tmp_path / "tables")
    assert problems == [] and [t.id for t in resumed] == [table.id]
    assert resumed[0].moves == table.moves and resumed[0].view(0) == table.view(0)


def test_a_game_is_not_resumed_under_rules_changed_since_it_began(tmp_path):
    """A rule file edited between two runs of a server (a dish swapped, same id) leaves its game
    unresumed, saying why; laid out anew with the same rules (comments, key order), it resumes;
    put back as it was, the game goes on where it was."""
    from paths import EXAMPLES

    rules = tmp_path / "my-menu.yaml"
    original = (EXAMPLES / "my-party-menu.yaml").read_text(encoding="utf-8")
    rules.write_text(original, encoding="utf-8")
    first = Tables(tmp_path / "tables")
    table = first.open_table(str(rules), 3, 1, ["random"], seed=4)
    play_moves(table, random.Random(0), 3)
    first.close()
    rules.write_text(original.replace("dumpling, edamame", "sashimi, edamame"), encoding="utf-8")
    resumed, problems = Tables(tmp_path / "tables").resume(tmp_path / "tables")
    assert resumed == []
    assert problems == [
        f"{table.id}: cannot resume: the rules of {rules} have changed since this game began, and a game goes on"
        " by the rules it began with: put the rule file back as it was to resume it, or open a new table"
    ]
    laid_out = original.replace(
        "format: 1\nextends: sushi-go-party\n", "# the same rules\nextends: sushi-go-party\nformat: 1\n"
    )
    assert laid_out != original
    rules.write_text(laid_out, encoding="utf-8")
    resumed, problems = Tables(tmp_path / "tables").resume(tmp_path / "tables")
    assert problems == [] and [t.id for t in resumed] == [table.id]
    assert resumed[0].moves == table.moves and resumed[0].view(0) == table.view(0)


def test_a_fault_in_a_move_is_said_to_the_seat_and_the_server_goes_on(client, tables, monkeypatch):
    """A move that fails inside the server answers with an error; the same socket then plays on."""
    from ruledraft.web.tables import Table

    table = tables.open_table("sushi-go", 3, 1, ["random"], seed=3)
    real = Table.take

    def broken(self, seat, move):
        raise RuntimeError("a fault")

    with client.websocket_connect(ws_path(table, 0)) as ws:
        view = ws.receive_json()
        monkeypatch.setattr(Table, "take", broken)
        ws.send_json({"type": "pick", "cards": [view["hand"][0]]})
        assert "internal error" in ws.receive_json()["message"]
        monkeypatch.setattr(Table, "take", real)
        ws.send_json({"type": "pick", "cards": [view["hand"][0]]})
        assert ws.receive_json()["turn"] == 2


def test_an_oversized_or_garbled_lobby_form_is_refused_without_a_crash(client, tables):
    """A form longer than the lobby takes is refused (413), by its length or, sent in chunks, as soon as it passes
    the limit (the rest is never read into memory); bytes that are not UTF-8 get the lobby's message."""
    assert client.post("/tables", content=b"ruleset=" + b"x" * 5000).status_code == 413
    from ruledraft.web.app import MAX_FORM, _bounded_body

    class Chunked:  # a request without a length, its body arriving in chunks
        headers: dict[str, str] = {}
        read = 0

        async def stream(self):
            while self.read < 10_000:  # 640 MB, were it all read
                self.read += 1
                yield b"x" * 65536

    request = Chunked()
    assert asyncio.run(_bounded_body(request, MAX_FORM)) is None
    assert request.read == 1
    answer = client.post(
        "/tables",
        content=b"ruleset=\xff\xfe&players=\xc3",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert answer.status_code == 400 and "choose a game from the list" in answer.text
    assert tables.tables == {}


def test_chopsticks_take_two_cards_and_go_back_into_the_hand_passed_on(client, tables):
    """Sushi Go!'s chopsticks: once one is on your table, the view offers one extra card, and a pick
    of two cards puts both on the table and the chopsticks back into the hand passed on (rulebook)."""
    rng = random.Random(4)
    for seed in range(30):
        table = tables.open_table("sushi-go", 2, 2, [], seed=seed)
        seats = Seats(client, table, [0, 1])
        try:
            while not seats.views[0]["finished"]:
                offered = [s for s, v in seats.views.items() if v["pick"] and v["pick"]["extra"]]
                if offered:
                    s = offered[0]
                    view = seats.views[s]
                    assert view["pick"]["extra"] == 1 and view["pick"]["tools"] == ["Chopsticks"]
                    two = [c for c in view["hand"] if c != "chopsticks"][:2]
                    before = list(view["boards"][s]["played"])
                    seats.send(s, {"type": "pick", "cards": two})
                    other = 1 - s
                    if seats.views[other]["pick"]:
                        seats.send(other, {"type": "pick", "cards": [seats.views[other]["hand"][0]]})
                    after = seats.views[s]["boards"][s]["played"]
                    expected = [c for c in before]
                    expected.remove("chopsticks")
                    assert after[: len(expected)] == expected and after[len(expected) : len(expected) + 2] == two
                    assert "chopsticks" in seats.views[other]["hand"] or seats.views[s]["round"] > view["round"]
                    return
                mover = next(s for s, v in seats.views.items() if v["pick"])
                hand = seats.views[mover]["hand"]
                choice = "chopsticks" if "chopsticks" in hand else rng.choice(hand)
                seats.send(mover, {"type": "pick", "cards": [choice]})
        finally:
            seats.close()
    pytest.fail("no chopsticks were offered in 30 games")


def test_a_seat_may_ask_for_its_view_as_the_bots_get_it(client, tables):
    """{"type": "seat_view"} answers the engine's SeatView of that seat in its JSON form; a spectator has none."""
    from ruledraft.engine.view import seat_view

    table = tables.open_table("sushi-go", 3, 1, ["greedy"], seed=9)
    with client.websocket_connect(ws_path(table, 0)) as ws:
        ws.receive_json()
        ws.send_json({"type": "seat_view"})
        answer = ws.receive_json()
    assert answer["type"] == "seat_view" and answer["version"] == 0
    assert answer["view"] == seat_view(table.state, 0).to_dict()
    assert [a["action"] for a in answer["view"]["legal_actions"]] == table.state.legal_actions(0)
    with client.websocket_connect(ws_path(table, None)) as ws:
        ws.receive_json()
        ws.send_json({"type": "seat_view"})
        assert "spectator" in ws.receive_json()["message"]


def test_a_bot_that_fails_stops_its_table_with_a_message_for_every_seat(client, tables, tmp_path):
    """A bot from a file that raises: the table says it stopped and why; moves are refused, the server goes on."""
    (tmp_path / "boombot.py").write_text(
        "class Boom:\n    def __init__(self, seed):\n        pass\n\n    def act(self, view, seat):\n        raise ValueError('no idea')\n"
    )
    table = tables.open_table("sushi-go", 2, 1, [f"{tmp_path / 'boombot.py'}:Boom"], seed=1)
    with client.websocket_connect(ws_path(table, 0)) as ws:
        view = ws.receive_json()
        ws.send_json({"type": "pick", "cards": [view["hand"][0]]})
        view = ws.receive_json()
        assert "raised ValueError: no idea" in view["failure"]
        ws.send_json({"type": "pick", "cards": [view["hand"][0]]})
        assert "this table stopped" in ws.receive_json()["message"]
    assert client.get("/").status_code == 200 and "stopped" in client.get("/").text


def test_a_held_pick_is_told_to_its_own_seat_alone(tmp_path):
    """A person's pick held for the others is in that seat's view as `mine` (cards by id); the other seats and the spectator get None, and it goes once the turn is played."""
    table = Tables(None).open_table("sushi-go", 3, 2, ["greedy"], seed=5)
    card = table.view(0)["hand"][0]
    table.act(0, {"type": "pick", "cards": [card]})
    assert table.view(0)["mine"] == {"cards": [card], "dummy": None}
    assert table.view(1)["mine"] is None and table.view(None)["mine"] is None
    table.act(1, {"type": "pick", "cards": [table.view(1)["hand"][0]]})
    assert table.moves == 1 and table.view(0)["mine"] is None


def test_a_finished_game_still_shows_what_each_seat_played_in_the_last_round():
    """At the end the page's boards hold the last round's cards ("Played in the last round"), not the emptied tables."""
    table = Tables(None).open_table("sushi-go", 3, 1, ["greedy"], seed=5)
    assert table.view(0)["played_title"] == "Played this round"
    while not table.state.is_terminal():
        table.act(0, {"type": "pick", "cards": [table.view(0)["hand"][0]]})
    ids = table.game.ruleset.catalogue.ids
    last = table.state.history[-1].tables
    for seat in (0, None):
        view = table.view(seat)
        assert view["played_title"] == "Played in the last round"
        assert [b["played"] for b in view["boards"]] == [[ids[c] for c in t] for t in last]
        assert all(len(b["played"]) == 9 for b in view["boards"])


def test_a_finished_page_says_how_a_tie_on_points_was_broken():
    """The score sheet of a game two seats ended on 32 points says so, with each one's puddings, to each viewer in its own words; a game without a tie says nothing."""
    import ruledraft
    from ruledraft.web.view import page_view

    state = ruledraft.play_game("sushi-go", players=4, bots="random", seed=6)
    assert state.totals() == [24, 21, 32, 32] and state.winners == [3]
    said = {seat: page_view(state, seat, ["random"] * 4)["sheet"]["tie"] for seat in (None, 2)}
    assert said == {
        None: "Seat 2 and seat 3 tied on 32 points; tie-break, the highest number of Pudding: seat 2 3, seat 3 5.",
        2: "You and seat 3 tied on 32 points; tie-break, the highest number of Pudding: you 3, seat 3 5.",
    }
    untied = ruledraft.play_game("sushi-go", players=4, bots="random", seed=0)
    assert len(set(untied.totals())) == 4 and page_view(untied, None, ["random"] * 4)["sheet"]["tie"] is None


def test_a_finished_game_shows_a_special_order_of_the_last_round_as_the_card_it_copied():
    """The last round's boards keep its copies: a special order that became a miso soup is 'Special Order (as Miso Soup)' on the finished page, as it was during the round, not a miso soup of its own."""
    import ruledraft
    from ruledraft.web.view import page_view

    state = ruledraft.play_game("sushi-go-party-dinner-for-two", players=4, bots="random", seed=1)
    ids = state.game.ruleset.catalogue.ids
    assert state.history[-1].copies == [{}, {}, {1: ids.index("special_order")}, {4: ids.index("special_order")}]
    for seat in (0, 2, None):
        boards = page_view(state, seat, ["random"] * 4)["boards"]
        assert [b["copies"] for b in boards] == [[], [], [[1, "special_order"]], [[4, "special_order"]]]
        assert (boards[2]["played"][1], boards[3]["played"][4]) == ("miso_soup", "tofu")


def test_a_socket_that_stops_reading_is_closed_and_holds_up_nobody():
    """Messages to a socket wait in its own queue: one whose reader never reads is closed once
    its queue is full, or once a send takes too long, without the sender ever waiting on it."""
    from ruledraft.web import app as web_app

    class Stuck:
        """A WebSocket whose reader never reads: every send waits for ever."""

        def __init__(self):
            self.closed_with = None

        async def send_text(self, text):
            await asyncio.Event().wait()

        async def close(self, code=1000):
            self.closed_with = code

    async def scenario():
        stuck = Stuck()
        out = web_app.Outbox(stuck)
        started = time.monotonic()
        for n in range(web_app.OUTBOX + 2):  # the first is being sent, the next OUTBOX wait, then one too many
            out.post({"type": "view", "n": n})
        assert time.monotonic() - started < 0.5  # posting never waits on the reader
        await asyncio.sleep(0.05)
        assert out.closed and stuck.closed_with == web_app.SLOW_READER == 1013
        out.post({"type": "view"})  # to a closed socket: nothing, no error
        slow = Stuck()
        out = web_app.Outbox(slow)
        web_app.SEND_SECONDS, before = 0.05, web_app.SEND_SECONDS
        try:
            out.post("one")
            await asyncio.sleep(0.3)
        finally:
            web_app.SEND_SECONDS = before
        assert out.closed and slow.closed_with == web_app.SLOW_READER == 1013
        await out.finish()
        assert out._task.done() and out._closing.done()  # nothing left pending

    asyncio.run(scenario())


def test_a_socket_that_asks_faster_than_it_reads_is_slowed_not_dropped():
    """A client that sends a burst of requests while its page reads slowly waits for room in its queue (room()):
    every answer arrives, in order, and the socket stays open; a handler that ends leaves no task pending."""
    from ruledraft.web import app as web_app

    class Slow:
        def __init__(self):
            self.got = []

        async def send_text(self, text):
            await asyncio.sleep(0.002)
            self.got.append(text)

        async def close(self, code=1000):
            raise AssertionError("a socket that reads is not closed")

    async def scenario():
        slow = Slow()
        out = web_app.Outbox(slow)
        for n in range(3 * web_app.OUTBOX):  # a burst of requests, each answered
            await out.room()
            out.post(str(n))
        while len(slow.got) < 3 * web_app.OUTBOX:
            await asyncio.sleep(0.01)
        assert slow.got == [str(n) for n in range(3 * web_app.OUTBOX)] and not out.closed
        await out.finish()
        assert out._task.done() and out._closing is None

    asyncio.run(asyncio.wait_for(scenario(), 60))  # a wait that never ends fails here, not the whole run


def test_a_socket_waiting_for_room_is_given_up_when_its_sender_has_ended():
    """A socket whose queue is half full waits for room; were its sender to end without closing it, the wait
    gives the socket up at its next look rather than wait for ever."""
    from ruledraft.web import app as web_app

    class Never:
        async def send_text(self, text):
            await asyncio.Event().wait()

        async def close(self, code=1000):
            pass

    async def scenario():
        out = web_app.Outbox(Never())
        for n in range(web_app.OUTBOX // 2 + 1):  # one being sent, half the queue waiting
            out.post(str(n))
        await asyncio.sleep(0)
        out._task.cancel()  # the sender gone (as no code path does), the socket not closed
        await asyncio.sleep(0)
        await out.room()
        assert out.closed
        await out.finish()

    asyncio.run(asyncio.wait_for(scenario(), 30))


def test_a_burst_of_requests_over_a_real_socket_is_answered_whole(client, tables):
    """70 view requests sent at once over the WebSocket each get their view, in order, and the socket stays open."""
    table = tables.open_table("sushi-go", 3, 1, ["greedy"], seed=2)
    with client.websocket_connect(ws_path(table, 0)) as ws:
        first = ws.receive_json()
        for _ in range(70):
            ws.send_text('{"type": "view"}')
        views = [ws.receive_json() for _ in range(70)]
        assert all(v == first for v in views)
        ws.send_json({"type": "pick", "cards": [first["hand"][0]]})
        assert ws.receive_json()["turn"] == 2


def test_a_journaled_pick_while_a_decision_is_asked_is_refused_on_resume(tmp_path):
    """A hand-edited journal's pick line at a move where a card effect's decision waits is not taken for the decision: that table is not resumed."""
    journal = tmp_path / "tables"
    rng = random.Random(3)
    for seed in range(40):
        tables = Tables(journal)
        table = tables.open_table("sushi-go-party-big-banquet", 4, 1, ["random"], seed=seed)
        while not table.state.is_terminal() and not (table.state.pending and table.state.pending.seat == 0):
            table.act(0, a_move(table.view(0), rng))
        if table.state.is_terminal():
            tables.close()
            continue
        option = table.state.pending.options[0]
        tables.close()
        moves = journal / table.id / "moves.jsonl"
        line = len(moves.read_text().splitlines()) + 1
        with open(moves, "a") as fh:
            fh.write(json.dumps({"n": table.moves, "seat": 0, "pick": option}) + "\n")
        resumed, problems = Tables(journal).resume(journal)
        assert table.id not in [t.id for t in resumed]
        assert f"{table.id}: cannot resume: moves.jsonl line {line}: seat 0 cannot pick {option} now" in problems
        return
    pytest.fail("no decision was asked of the person in 40 games")
