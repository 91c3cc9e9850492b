"""Whole games played through the table page in a real browser (the system's headless
Chromium, driven by Playwright): two people, each in a browser of their own, and two
bots play to the final score sheet, at a desktop and a phone width, with the keyboard
alone, no console error, no request outside the server, and a page that never scrolls
sideways. The finished game's log, downloaded from the page, replays clean.

Without the browser the module skips, except under ``CI`` (set by ``.ci/run``).
``RULEDRAFT_SCREENSHOTS=DIR`` saves each page's screenshot (mid-game and at the end)."""

from __future__ import annotations

import os
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from headless import chromium  # noqa: E402
from served import serving  # noqa: E402

from ruledraft.play.game_log import replay_record  # noqa: E402

#: what the page says of its layout: anything reaching past the window's edges outside a box that scrolls
LAYOUT = """() => {
  const edge = (r) => r.left < -0.5 || r.right > innerWidth + 0.5;
  const cut = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (el.closest('[hidden]') || !edge(el.getBoundingClientRect())) continue;
    if (el.classList.contains('skip')) continue;
    let scroller = null;
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') { scroller = p; break; }
    }
    if (scroller === null || edge(scroller.getBoundingClientRect()))
      cut.push(el.tagName.toLowerCase() + ': ' + (el.textContent || '').trim().slice(0, 40));
  }
  return {scrollWidth: document.scrollingElement.scrollWidth, innerWidth, cut: cut.slice(0, 10)};
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the module."""
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def served(tmp_path_factory) -> Iterator[Any]:
    with serving(tmp_path_factory.mktemp("tables")) as s:
        yield s


class Player:
    """One person's browser at one seat: what it logged, what it fetched."""

    def __init__(self, browser: Any, url: str, width: int, base: str):
        self.console: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.outside: list[str] = []
        self.decided = 0
        self.context = browser.new_context(viewport={"width": width, "height": 900})
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.console.append((m.type, m.text)))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: None if r.url.startswith(base) else self.outside.append(r.url))
        self.page.goto(url, wait_until="load")
        self.page.wait_for_function("() => document.getElementById('link-state').textContent === 'connected'")

    def state(self) -> str:
        return self.page.evaluate("document.body.dataset.state")

    def act(self) -> bool:
        """Make this seat's move with the keyboard alone if one is asked; whether it moved.
        The page itself puts the focus on the first card or the first choice when a move
        is asked: Enter takes it; a pick of several cards is then confirmed by tabbing to
        the Take button."""
        page = self.page
        state = self.state()
        version = page.evaluate("document.body.dataset.version")
        if state not in ("deciding", "picking"):
            return False
        target = "#decision button" if state == "deciding" else "#hand-cards .card"
        page.wait_for_function("(sel) => document.activeElement && document.activeElement.matches(sel)", arg=target)
        self.decided += state == "deciding"
        several = state == "picking" and page.locator("#take").count() > 0  # asked before the move changes the page
        page.keyboard.press("Enter")
        if several:  # chopsticks may be used, or the dummy's card follows: one card, then Take
            for _ in range(40):
                if page.evaluate("document.activeElement.id") == "take":
                    break
                page.keyboard.press("Tab")
            assert page.evaluate("document.activeElement.id") == "take"
            page.keyboard.press("Enter")
            if page.evaluate(
                "document.querySelector('#pick-bar .hint') !== null && document.body.dataset.state === 'picking'"
            ):
                dummy = page.locator("#pick-bar").text_content()
                if "dummy's card" in dummy:  # the dummy's card next, from the rest of the hand: focused for us
                    page.wait_for_function(
                        "() => document.activeElement && document.activeElement.matches('#hand-cards .card[aria-pressed=false]')"
                    )
                    page.keyboard.press("Enter")
        page.wait_for_function(
            "([v, s]) => document.body.dataset.version !== v || document.body.dataset.state !== s"
            " || !document.getElementById('error').hidden",
            arg=[version, state],
        )
        assert page.locator("#error").is_hidden(), page.locator("#error").text_content()
        return True

    def reload(self) -> None:
        """Reload the page: the seat comes back as it is."""
        self.page.reload(wait_until="load")
        self.page.wait_for_function("() => document.getElementById('link-state').textContent === 'connected'")


def play_through(served, browser, ruleset: str, width: int, shots: Path | None, seats: int = 4) -> int:
    """Two people and the bots of the other ``seats`` play ``ruleset`` to the end through the page at ``width``,
    watched through the spectators' link; the decisions the people made on the page."""
    table = served.tables.open_table(ruleset, seats, 2, ["greedy"], seed=width)
    players = [Player(browser, served.url(table, s), width, served.base) for s in (0, 1)]
    watcher = Player(browser, served.url(table, None), width, served.base)
    try:
        deadline = time.monotonic() + 120
        moves = 0
        reloaded = False
        while not all(p.state() == "finished" for p in players):
            assert time.monotonic() < deadline, "the game did not end in time"
            # from the fifth move the second seat is held back until it is seen picking and reloaded
            # (left to play, it could pick each hand as it came and the game end without a reload)
            if not reloaded and moves >= 5 and players[1].state() == "picking":
                # a reload mid-game returns the seat with its hand: tried while the table waits for this
                # seat's pick, so that nothing changes the hand meanwhile (a page that has just picked
                # still shows the hand it picked from until the turn is over)
                if shots is not None:
                    players[0].page.screenshot(path=str(shots / f"{ruleset}-{width}-mid.png"), full_page=True)
                hand = players[1].page.locator("#hand-cards .card .name").all_text_contents()
                players[1].reload()
                players[1].page.wait_for_function("() => document.body.dataset.state === 'picking'")
                assert players[1].page.locator("#hand-cards .card .name").all_text_contents() == hand
                reloaded = True
            moved = False
            held = not reloaded and moves >= 5 and players[1].state() != "deciding"  # a decision is made at once
            for p in players[:1] if held else players:
                moved = p.act() or moved
            moves += moved
            if not moved:
                time.sleep(0.02)
        assert reloaded, "the game ended before a reload was tried"
        watcher.page.wait_for_function("() => document.body.dataset.state === 'finished'")
        assert watcher.page.locator("#hand").is_hidden() and watcher.page.locator("#sheet-table").is_visible()
        for p in [*players, watcher]:
            layout = p.page.evaluate(LAYOUT)
            assert layout["scrollWidth"] <= layout["innerWidth"], layout
            assert layout["cut"] == []
            assert p.errors == []
            assert [m for m in p.console if m[0] in ("error", "warning")] == []
            assert p.outside == []
        page = players[0].page
        if shots is not None:
            page.screenshot(path=str(shots / f"{ruleset}-{width}-end.png"), full_page=True)
        sheet = page.locator("#sheet-table").text_content()
        totals = table.state.score_sheet().totals
        assert "total" in sheet
        # the sheet of four seats fits a phone's width, what it holds said in words that wrap
        wide, room = page.evaluate(
            "() => { const s = document.getElementById('sheet-table').parentElement; return [s.scrollWidth, s.clientWidth]; }"
        )
        assert wide <= room, (ruleset, width, wide, room)
        assert page.locator("#sheet-table").get_attribute("aria-describedby") == "sheet-note"
        assert page.locator("#sheet-note").text_content().startswith("Each rule's points over the game")
        winners = page.locator("#winners").text_content()
        assert winners.startswith("Winner") or winners == "No winner."
        href = page.locator("#sheet a[download]").get_attribute("href")
        with urllib.request.urlopen(served.base + href) as response:
            import json

            record = json.loads(response.read())
        assert record["totals"] == totals
        assert replay_record(table.game.ruleset, record) == []
        return sum(p.decided for p in players)
    finally:
        for p in [*players, watcher]:
            p.context.close()


@pytest.fixture(scope="module")
def shots() -> Path | None:
    where = os.environ.get("RULEDRAFT_SCREENSHOTS")
    if not where:
        return None
    path = Path(where)
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.mark.parametrize("width", [1280, 390])
def test_the_lobby_opens_a_table_by_keyboard_and_gives_its_links(served, browser, width):
    """The lobby's form is filled and sent with the keyboard; the page answered lists the seat
    links, and a reload lists the same ones without opening another table."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    errors: list[str] = []
    try:
        page = context.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type in ("error", "warning") else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(served.base + "/", wait_until="load")
        page.focus("select[name=ruleset]")
        page.keyboard.press("Tab")  # players
        page.keyboard.press("Control+a")
        page.keyboard.type("3")
        page.keyboard.press("Tab")  # people
        page.keyboard.press("Control+a")
        page.keyboard.type("1")
        page.keyboard.press("Enter")
        page.wait_for_selector("ul.links")
        links = page.locator("ul.links a").all_text_contents()
        assert len(links) == 1 and "/t/" in links[0]
        assert "/links/" in page.url
        lobby = context.new_page()
        lobby.goto(served.base + "/", wait_until="load")
        listed = lobby.locator("table tbody tr").count()
        page.reload(wait_until="load")
        assert page.locator("ul.links a").all_text_contents() == links
        lobby.reload(wait_until="load")
        assert lobby.locator("table tbody tr").count() == listed  # no second table from the reload
        lobby.close()
        layout = page.evaluate(LAYOUT)
        assert layout["scrollWidth"] <= layout["innerWidth"] and layout["cut"] == []
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 390])
def test_two_people_and_two_bots_play_sushi_go_to_the_end_in_the_browser(served, browser, shots, width):
    """Sushi Go! through the page, by keyboard, to the final score sheet, whose log replays clean."""
    play_through(served, browser, "sushi-go", width, shots)


def test_two_people_play_sushi_go_with_a_dummy_in_the_browser(served, browser, shots):
    """The two-player variant: the controller picks its card, then the dummy's, by keyboard."""
    play_through(served, browser, "sushi-go-two-player-dummy", 390, shots, seats=2)


def test_a_party_menu_with_card_effects_is_played_to_the_end_in_the_browser(served, browser, shots):
    """A Party menu with a spoon and a takeout box: its decisions are made on the page, by keyboard."""
    assert play_through(served, browser, "sushi-go-party-master-menu", 390, shots) > 0


def test_the_page_names_the_bots_that_take_long_over_their_moves(browser, tmp_path, monkeypatch):
    """Once the person has picked, slow bots are named in the status and the hand waits; then the next turn comes."""
    from ruledraft.web.tables import Table

    real = Table._bot_move

    def slow(self, seat):
        time.sleep(1.5)
        return real(self, seat)

    monkeypatch.setattr(Table, "_bot_move", slow)
    with serving(tmp_path / "tables", thinking_after=0.05) as slow_served:
        table = slow_served.tables.open_table("sushi-go", 2, 1, ["greedy"], seed=8)
        player = Player(browser, slow_served.url(table, 0), 1280, slow_served.base)
        try:
            page = player.page
            page.wait_for_function("() => document.body.dataset.state === 'picking'")
            page.locator("#hand-cards .card").first.click()
            page.wait_for_function("() => document.getElementById('status').textContent.includes('to choose')")
            status = page.locator("#status").text_content()
            assert status == "Round 1 of 3, turn 1 of 10 (hands pass left): waiting for seat 1 to choose."
            assert player.state() == "waiting"
            cards = page.locator("#hand-cards .card")
            assert cards.count() == 10 and cards.evaluate_all("cs => cs.every((c) => c.disabled)")
            page.wait_for_function("() => document.body.dataset.version === '1'", timeout=20_000)
            assert player.state() == "picking" and "to choose" not in page.locator("#status").text_content()
            assert player.errors == [] and [m for m in player.console if m[0] in ("error", "warning")] == []
        finally:
            player.context.close()


def test_a_pick_handed_in_is_shown_to_its_seat_alone_until_the_turn_is_played(served, browser):
    """Once a person has picked and the others have not, their page says which card they picked and marks it in the hand; the other person's page says only that they have picked."""
    table = served.tables.open_table("sushi-go", 3, 2, ["greedy"], seed=5)
    players = [Player(browser, served.url(table, s), 390, served.base) for s in (0, 1)]
    try:
        page = players[0].page
        page.wait_for_function("() => document.body.dataset.state === 'picking'")
        card = page.locator("#hand-cards .card").first
        name = card.locator(".name").text_content()
        card.click()
        page.wait_for_function("() => document.getElementById('status').textContent.includes('you picked')")
        status = page.locator("#status").text_content()
        assert status == f"Round 1 of 3, turn 1 of 9 (hands pass left): you picked {name}; waiting for seat 1."
        marked = page.locator('#hand-cards .card[aria-pressed="true"] .name').all_text_contents()
        assert marked == [name]
        assert page.locator("#pick-bar .hint").text_content() == (
            f"You picked {name}: it is revealed when every seat has picked."
        )
        other = players[1].page
        other.wait_for_function("() => document.getElementById('boards').textContent.includes('(picked)')")
        assert "you picked" not in other.locator("#status").text_content()
        assert other.locator('#hand-cards .card[aria-pressed="true"]').count() == 0
        for p in players:
            assert p.errors == [] and [m for m in p.console if m[0] in ("error", "warning")] == []
    finally:
        for p in players:
            p.context.close()


def picking_page(context: Any, url: str) -> Any:
    """A page at a seat's ``url``, picking, that keeps its sockets where the test can close one
    (``window.__sockets``, in the order made)."""
    page = context.new_page()
    page.add_init_script(
        "(() => { const Real = window.WebSocket; window.__sockets = [];"
        " window.WebSocket = function (...a) { const s = new Real(...a); window.__sockets.push(s); return s; };"
        " Object.assign(window.WebSocket, Real); window.WebSocket.prototype = Real.prototype; })();"
    )
    page.goto(url, wait_until="load")
    wait_connected_and_picking(page)
    return page


def wait_connected_and_picking(page: Any) -> None:
    """Wait until the page asks for a pick and its socket is open: the first view is in the page
    itself, so it asks before it is connected, and a click then only says it is not connected."""
    page.wait_for_function(
        "() => document.body.dataset.state === 'picking'"
        " && document.getElementById('link-state').textContent === 'connected'"
    )


def test_the_not_connected_alert_leaves_once_the_page_has_reconnected(served, browser):
    """A pick tried while the link is down says so; once the page has reconnected by itself the alert goes (it stayed until the next move), and the pick can be made."""
    table = served.tables.open_table("sushi-go", 3, 1, ["greedy"], seed=5)
    context = browser.new_context(viewport={"width": 390, "height": 900})
    try:
        page = picking_page(context, served.url(table, 0))
        page.evaluate("window.__sockets[window.__sockets.length - 1].close()")
        page.locator("#hand-cards .card").first.click()
        alert = page.locator("#error")
        assert alert.is_visible()
        assert alert.text_content() == "Not connected: reconnecting... (make that move again once connected)"
        page.wait_for_function(
            "() => window.__sockets.length > 1 && document.getElementById('link-state').textContent === 'connected'"
        )
        page.wait_for_function("() => document.getElementById('error').hidden")
        page.locator("#hand-cards .card").first.click()
        page.wait_for_function("() => document.getElementById('status').textContent.includes('turn 2 of 9')")
    finally:
        context.close()


def test_a_page_whose_table_has_gone_says_its_link_opens_no_seat(served, browser):
    """A socket to a link that opens no seat closes with 1008 in a real browser (refused in the handshake it
    read 1006), so a page whose table has gone (a server started again without it) says its link opens no
    seat instead of reconnecting for ever."""
    import shutil

    table = served.tables.open_table("sushi-go", 3, 1, ["greedy"], seed=6)
    context = browser.new_context(viewport={"width": 390, "height": 900})
    try:
        page = picking_page(context, served.url(table, 0))
        wrong = served.url(table, 0).rsplit("/", 1)[0] + "/AAAAAAAAAAAAAAAAAAAAAA/ws"
        code = page.evaluate(
            "(url) => new Promise((done) => { const s = new WebSocket(url.replace(/^http/, 'ws'));"
            " s.onclose = (e) => done(e.code); })",
            wrong,
        )
        assert code == 1008
        served.tables.tables.pop(table.id)  # the server forgets the table, its journal too
        shutil.rmtree(served.tables.journal / table.id, ignore_errors=True)
        page.evaluate("window.__sockets[0].close()")
        page.wait_for_function("() => document.getElementById('link-state').textContent === 'this link opens no seat'")
        time.sleep(1.0)  # and it stays so: no reconnecting (which would say so within half a second)
        assert page.locator("#link-state").text_content() == "this link opens no seat"
    finally:
        context.close()


def test_a_double_click_on_a_card_sends_one_pick_and_leaves_no_alert(served, browser):
    """Two clicks on a card before the server answers (a double click; both in one task, so nothing is answered between them): one pick is sent, the turn is played, and no alert that the game had moved on is left on the page."""
    table = served.tables.open_table("sushi-go", 3, 1, ["greedy"], seed=5)
    context = browser.new_context(viewport={"width": 390, "height": 900})
    try:
        page = context.new_page()
        page.add_init_script(  # counts the moves the page sends
            "(() => { window.__sent = []; const send = WebSocket.prototype.send;"
            " WebSocket.prototype.send = function (data) { window.__sent.push(data); return send.call(this, data); }; })();"
        )
        page.goto(served.url(table, 0), wait_until="load")
        wait_connected_and_picking(page)
        page.evaluate("(() => { const c = document.querySelector('#hand-cards .card'); c.click(); c.click(); })()")
        page.wait_for_function("() => document.getElementById('status').textContent.includes('turn 2 of 9')")
        page.wait_for_timeout(300)  # time for an answer to a second pick to arrive, had one been sent
        assert len(page.evaluate("window.__sent")) == 1
        assert page.locator("#error").is_hidden()
    finally:
        context.close()


def test_each_colour_of_a_menu_gets_a_hue_of_its_own(served, browser):
    """The cards' colour edges: each colour of the game a hue spread evenly round the wheel (a hash of
    the name had given pudding and nigiri nearly the same), so two colours in a hand are never within
    360/n degrees less a rounding of each other."""
    import colorsys
    import re

    from ruledraft.engine.state import Game
    from ruledraft.language.catalogue import NO_COLOUR

    game = Game(served.tables.ruleset("sushi-go-party-master-menu"), 4)
    cards = game.ruleset.catalogue.cards
    # a deal whose first hand holds tofu and a takeout box (7 degrees apart by the hash)
    seed = next(
        s for s in range(500) if {"tofu", "takeout_box"} <= {cards[c].group for c in game.new_initial_state(s).hands[0]}
    )
    table = served.tables.open_table("sushi-go-party-master-menu", 4, 1, ["greedy"], seed=seed)
    colours = list(dict.fromkeys(c.group for c in cards if c.group != NO_COLOUR))
    player = Player(browser, served.url(table, 0), 1280, served.base)
    try:
        edges = player.page.evaluate(
            "() => [...document.querySelectorAll('#hand .card')].map((c) => "
            "[c.querySelector('.colour').textContent, getComputedStyle(c).borderLeftColor])"
        )
    finally:
        player.context.close()
    hues: dict[str, float] = {}
    for colour, css in edges:
        if colour.startswith("colour: "):
            r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css)[:3])
            hues[colour.removeprefix("colour: ")] = colorsys.rgb_to_hls(r, g, b)[0] * 360
    assert len(hues) >= 3 and {"tofu", "takeout_box"} <= set(hues), edges
    step = 360 / len(colours)
    for a in hues:
        for b in hues:
            if a < b:
                apart = abs(hues[a] - hues[b])
                assert min(apart, 360 - apart) >= step - 2, (a, b, hues)
