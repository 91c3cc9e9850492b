"""Finished tables leave a server's memory once their record is journaled: their links
still open them (read back from the journal), their log still downloads, and only the
games in progress count against the server's cap."""

from __future__ import annotations

import json
import re
import warnings

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

with warnings.catch_warnings():  # newer Starlette asks for httpx2 but takes httpx
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

from ruledraft.errors import InputError  # noqa: E402
from ruledraft.play.game_log import replay_record  # noqa: E402
from ruledraft.web import tables as tables_module  # noqa: E402
from ruledraft.web.app import create_app  # noqa: E402
from ruledraft.web.tables import Tables  # noqa: E402


def play_to_the_end(table) -> None:
    """The person at seat 0 picks the first card of the hand until the game is over."""
    while not table.state.is_terminal():
        table.act(0, {"type": "pick", "cards": [table.view(0)["hand"][0]]})


@pytest.fixture
def tables(tmp_path, monkeypatch):
    """A server's tables that keep one finished game in memory."""
    monkeypatch.setattr(tables_module, "KEEP_FINISHED", 1)
    t = Tables(tmp_path / "tables")
    yield t
    t.close()


def test_a_finished_table_leaves_memory_and_its_links_still_open_it(tables):
    """Two games over with one kept: the first leaves memory; its page, its log and the lobby still tell of it."""
    first = tables.open_table("sushi-go", 2, 1, ["random"], seed=7)
    play_to_the_end(first)
    record = first.record_text()
    second = tables.open_table("sushi-go", 2, 1, ["random"], seed=8)
    assert first.id in tables.tables  # the one finished game kept
    with TestClient(create_app(tables)) as client:
        with client.websocket_connect(f"/t/{second.id}/{second.tokens[0]}/ws") as ws:
            ws.receive_json()
            while not second.state.is_terminal():
                ws.send_json({"type": "pick", "cards": [second.view(0)["hand"][0]]})
                ws.receive_json()
        assert set(tables.tables) == {second.id} and tables.dropped == {first.id}
        page = client.get(f"/t/{first.id}/{first.tokens[0]}")
        assert page.status_code == 200
        view = json.loads(re.search(r'id="initial-view">(.*?)</script>', page.text).group(1))
        assert view["finished"] and view["sheet"]["totals"] == first.state.score_sheet().totals
        log = client.get(f"/t/{first.id}/{first.spectator}/log")
        assert log.status_code == 200 and log.text == record
        assert replay_record(first.game.ruleset, json.loads(record)) == []
        assert set(tables.tables) == {first.id}  # read back, and the other finished one dropped
        assert "and 1 finished game more, no longer listed" in client.get("/").text


def test_a_wrong_token_reads_no_finished_table_back(tables):
    """A dropped table's id with another token opens nothing and leaves it on disk only."""
    first = tables.open_table("sushi-go", 2, 1, ["random"], seed=7)
    play_to_the_end(first)
    play_to_the_end(tables.open_table("sushi-go", 2, 1, ["random"], seed=8))
    tables.trim()
    assert first.id not in tables.tables
    with TestClient(create_app(tables)) as client:
        assert client.get(f"/t/{first.id}/{'x' * 22}").status_code == 404
        assert client.get(f"/t/..%2F{first.id}/{first.tokens[0]}").status_code == 404
    assert first.id not in tables.tables


def test_only_games_in_progress_count_against_the_cap(tables, monkeypatch):
    """With a cap of two, two finished games leave room for two more; a third in progress is refused plainly."""
    monkeypatch.setattr(tables_module, "MAX_TABLES", 2)
    for seed in (1, 2):
        play_to_the_end(tables.open_table("sushi-go", 2, 1, ["random"], seed=seed))
    tables.open_table("sushi-go", 2, 1, ["random"], seed=3)
    tables.open_table("sushi-go", 2, 1, ["random"], seed=4)
    with pytest.raises(InputError, match="already has 2 games in progress, the most it keeps"):
        tables.open_table("sushi-go", 2, 1, ["random"], seed=5)
    assert len(tables.tables) == 3  # two in progress, one finished kept


def test_a_table_a_failing_bot_stopped_frees_its_place(tables, monkeypatch, tmp_path):
    """A game stopped by a bot that raises no longer counts as in progress, and leaves memory as finished ones do."""
    monkeypatch.setattr(tables_module, "MAX_TABLES", 1)
    monkeypatch.setattr(tables_module, "KEEP_FINISHED", 0)
    bot = tmp_path / "boombot.py"
    bot.write_text(
        "class Boom:\n    def __init__(self, seed):\n        pass\n\n    def act(self, view, seat):\n        raise ValueError('no idea')\n"
    )
    stopped = tables.open_table("sushi-go", 2, 1, [f"{bot}:Boom"], seed=1)
    stopped.act(0, {"type": "pick", "cards": [stopped.view(0)["hand"][0]]})
    assert "raised ValueError: no idea" in (stopped.failure or "")
    assert tables.in_progress() == 0
    tables.open_table("sushi-go", 2, 1, ["random"], seed=2)  # the cap of one is free again
    assert stopped.id not in tables.tables
