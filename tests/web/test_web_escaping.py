"""``ruledraft serve``'s pages with a ruleset and a card whose names are HTML: the lobby,
the table page and the JSON embedded in it show them as text, never as tags."""

from __future__ import annotations

import html
import json
import re
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # newer Starlette asks for httpx2 but takes httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from paths import ROOT  # noqa: E402

from ruledraft.web.app import create_app  # noqa: E402
from ruledraft.web.tables import Tables  # noqa: E402

GAME = "<script>alert(1)</script>"
CARD = "<img src=x onerror=alert(1)>"


@pytest.fixture
def hostile(tmp_path):
    """A copy of Sushi Go! named GAME, whose tempura is called CARD, served with a table open."""
    text = (ROOT / "rulesets" / "sushi-go.yaml").read_text(encoding="utf-8")
    text = text.replace("name: Sushi Go!", f"name: {json.dumps(GAME)}", 1)
    text = text.replace("name: Tempura,", f"name: {json.dumps(CARD)},", 1)
    path = tmp_path / "hostile.yaml"
    path.write_text(text, encoding="utf-8")
    tables = Tables(tmp_path / "tables")
    table = tables.open_table(str(path), 3, 1, ["greedy"], seed=5)
    assert table.game.ruleset.name == GAME
    assert CARD in [c.name for c in table.game.ruleset.catalogue.cards]
    with TestClient(create_app(tables, [str(path)])) as client:
        yield client, table
    tables.close()


def embedded(page: str, element_id: str) -> tuple[str, object]:
    """The text of the JSON script ``element_id`` in ``page``, and its data."""
    found = re.search(rf'<script type="application/json" id="{element_id}">(.*?)</script>', page, re.S)
    assert found is not None, element_id
    return found.group(1), json.loads(found.group(1))


def test_the_lobby_shows_an_html_ruleset_name_as_text(hostile):
    """The lobby lists the table's game by its name escaped; the raw tag is nowhere in the page."""
    client, table = hostile
    page = client.get("/").text
    assert GAME not in page and "<script" not in page
    row = re.search(rf"<tr><td>{table.id}</td><td>(.*?)</td>", page)
    assert row is not None and row.group(1) == html.escape(GAME)


def test_the_table_page_and_its_json_show_html_names_as_text(hostile):
    """The table page escapes the game's name (title, heading); its embedded JSON holds the names
    as data with no '<' in the script text; the only script tags are the page's own three."""
    client, table = hostile
    page = client.get(f"/t/{table.id}/{table.tokens[0]}").text
    assert GAME not in page and CARD not in page and "<img" not in page
    assert f"<h1>{html.escape(GAME)}</h1>" in page
    assert f"<title>{html.escape(GAME)}: table {table.id}</title>" in page
    assert len(re.findall(r"<script\b", page)) == 3  # config, initial view, table.js
    config_text, config = embedded(page, "config")
    view_text, view = embedded(page, "initial-view")
    assert "<" not in config_text and ">" not in config_text and "<" not in view_text
    assert CARD in [c["name"] for c in config["cards"]]
    assert view["you"] == 0 and view["hand"]


def test_the_lobby_choice_and_the_opened_tables_page_escape_the_names(hostile):
    """The lobby's game choice (the rule file) and the links page of a table opened from it escape the name."""
    client, _ = hostile
    lobby = client.get("/").text
    (choice,) = re.findall(r'<option value="([^"]*hostile\.yaml)"', lobby)
    answer = client.post("/tables", data={"ruleset": html.unescape(choice), "players": "3", "humans": "1"})
    assert answer.status_code == 200
    assert GAME not in answer.text and html.escape(GAME) in answer.text
