"""No view sent to a seat holds another seat's hidden cards: whole games played through
the server's WebSockets, every view each seat is sent checked against the state at that
moment. A view must be the same when everything the seat cannot see is dealt again
(``State.resample_hidden``), and no card that only another seat's hand holds may be
named in it."""

from __future__ import annotations

import json
import random
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from ruledraft.web.app import create_app  # noqa: E402
from ruledraft.web.tables import Tables  # noqa: E402
from ruledraft.web.view import page_view  # noqa: E402

#: what the view adds around :func:`page_view` (the table's id, its move count, its name)
AROUND = ("table", "version", "ruleset", "failure")

GAMES = [
    # (ruleset, players, people, bots, seeds)
    ("sushi-go", 4, 4, [], 2),
    ("sushi-go", 5, 3, ["greedy"], 1),
    ("sushi-go-party-dinner-for-two", 4, 4, [], 2),  # a menu's drawn cards, special order
    ("sushi-go-party-master-menu", 4, 3, ["random"], 2),  # spoon, takeout box
    ("sushi-go-party-big-banquet", 3, 3, [], 1),  # chopsticks as a second pick
    ("sushi-go-two-player-dummy", 2, 2, [], 2),  # the dummy: drawn cards seen by the controller only
]


def hidden_from(state, seat: int, view_text: str, rs) -> set[str]:
    """Card ids that only other seats' hands (and unseen piles) hold: in no hand ``seat`` has
    seen, on no table, in no card drawn for it, and not named in what happened."""
    ids = rs.catalogue.ids
    obs = state.observation(seat)
    public = set(obs.hand) | set(rs.rule_ids)  # a rule's id may be a card's (wasabi): the board names rules
    for cards in (*obs.played, *obs.kept, *obs.known_hands.values()):
        public.update(cards)
    if obs.pending is not None:
        public.update(ids[c] for c in obs.pending.shown)
    if state.controller == seat:
        public.update(ids[c] for c in state.drawn)
    for record in state.history:  # the hands it was dealt (the seat view's history says them)
        public.update(ids[c] for c in record.hands[seat])
    hidden = set()
    for other, hand in enumerate(state.hands):
        if other != seat:
            hidden.update(ids[c] for c in hand)
    if state.pending is not None and state.pending.seat != seat:
        hidden.update(ids[c] for c in state.pending.shown)
    names = json.loads(view_text)["log"]
    said = " ".join(names)
    return {c for c in hidden - public if rs.catalogue.cards[rs.catalogue.index_of(c)].name not in said}


def checked_text(view: dict) -> str:
    """The view as JSON, less the list of every card id of the ruleset (a bots' view's ``card_ids``)."""
    if view.get("type") == "seat_view":
        view = {**view, "view": {k: v for k, v in view["view"].items() if k != "card_ids"}}
    return json.dumps(view)


def check_view(table, seat: int, view: dict, rng: random.Random) -> None:
    """The view is what the seat may know, and nothing more (and its turn and round are ones the game has)."""
    assert 1 <= view["turn"] <= view["turns"] and 1 <= view["round"] <= view["rounds"], view
    state = table.state
    rs = table.game.ruleset
    ids = rs.catalogue.ids
    assert sorted(view["hand"]) == sorted(ids[c] for c in state.hands[seat])
    inner = {k: v for k, v in view.items() if k not in AROUND}
    picked = [] if state.pending is not None else list(table.picks)
    held = None if state.pending is not None else table.picks.get(seat)  # its own pick, said to it alone
    for _ in range(2):
        other = state.resample_hidden(seat, rng.random)
        again = page_view(
            other, seat, table.kinds, picked=picked, held=held, waiting=table.waiting_for(), asked=table.asked
        )
        assert again == inner
    text = checked_text(view)
    for card in hidden_from(state, seat, text, rs):
        assert f'"{card}"' not in text, (seat, card)


def a_move(view, rng):
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


@pytest.mark.parametrize(
    ("ruleset", "players", "people", "bots", "seeds"), GAMES, ids=[g[0] + f"-{g[1]}" for g in GAMES]
)
def test_no_view_sent_to_a_seat_holds_another_seats_hidden_cards(tmp_path, ruleset, players, people, bots, seeds):
    """Every view of whole games, to every seat: equal under a re-deal of what it cannot see, no hidden card named."""
    rng = random.Random(ruleset)
    tables = Tables(tmp_path)
    checked = 0
    with TestClient(create_app(tables)) as client:
        for seed in range(seeds):
            table = tables.open_table(ruleset, players, people, bots, seed=seed)
            ids = table.game.ruleset.catalogue.ids
            for s in table.humans:  # the page's own copy of the first view too
                page = client.get(f"/t/{table.id}/{table.tokens[s]}").text
                embedded = page.split('id="initial-view">', 1)[1].split("</script>", 1)[0]
                text = checked_text(json.loads(embedded))
                for card in hidden_from(table.state, s, text, table.game.ruleset):
                    assert f'"{card}"' not in text
            sockets = {s: client.websocket_connect(f"/t/{table.id}/{table.tokens[s]}/ws") for s in table.humans}
            live = {s: ws.__enter__() for s, ws in sockets.items()}
            try:
                views = {s: ws.receive_json() for s, ws in live.items()}
                for s, v in views.items():
                    check_view(table, s, v, rng)
                for _ in range(3000):
                    if table.state.is_terminal():
                        break
                    s, move = next((s, m) for s, v in views.items() if (m := a_move(v, rng)) is not None)
                    live[s].send_json(move)
                    for t, ws in live.items():
                        message = ws.receive_json()
                        if message["type"] == "picked":  # seat numbers only
                            assert t != s and set(message) == {"type", "picked", "waiting"}
                            assert all(type(x) is int for x in message["picked"] + message["waiting"])
                            message = {**views[t], "picked": message["picked"], "waiting": message["waiting"]}
                        views[t] = message
                        assert views[t]["type"] == "view"
                        check_view(table, t, views[t], rng)
                        checked += 1
                        if checked % 7 == 0:  # now and then, the view as the bots get it
                            ws.send_json({"type": "seat_view"})
                            answer = ws.receive_json()
                            assert answer["type"] == "seat_view" and answer["view"]["seat"] == t
                            assert answer["view"]["hand"] == [ids[c] for c in table.state.hands[t]]
                            text = checked_text(answer)
                            for card in hidden_from(table.state, t, checked_text(views[t]), table.game.ruleset):
                                assert f'"{card}"' not in text
                assert table.state.is_terminal()
            finally:
                for ws in sockets.values():
                    ws.__exit__(None, None, None)
    tables.close()
    assert checked > 50 * seeds
