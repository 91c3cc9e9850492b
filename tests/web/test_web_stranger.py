"""``ruledraft serve`` tried as a stranger: a busy port, damaged journals, the lobby's words."""

from __future__ import annotations

import json
import socket

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app

pytest.importorskip("starlette")

from ruledraft.web.tables import Tables  # noqa: E402

runner = CliRunner()


def serve_quietly(monkeypatch, *args: str):
    """``ruledraft serve ARGS`` with the server's run replaced by nothing (it returns at once)."""
    uvicorn = pytest.importorskip("uvicorn")
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    return runner.invoke(app, ["serve", *args])


def test_a_port_in_use_journals_no_table_that_resume_would_bring_back(monkeypatch, tmp_path):
    """The port is taken before the table is opened: nothing is left in the journal."""
    journal = tmp_path / "tables"
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = serve_quietly(monkeypatch, "sushi-go", "--port", str(port), "--journal", str(journal))
    assert result.exit_code == 2
    assert not journal.exists() or not any(journal.iterdir())


def test_a_table_that_cannot_be_opened_leaves_the_port_free(monkeypatch, tmp_path):
    """--humans 9 at 4 players is refused in one line and the port bound first is closed again."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = serve_quietly(monkeypatch, "sushi-go", "--humans", "9", "--port", str(port), "--journal", str(tmp_path))
    assert result.exit_code == 2 and "not 9" in result.stderr
    with socket.socket() as again:
        again.bind(("127.0.0.1", port))


GOOD = {
    "format": 1,
    "ruleset": "sushi-go",
    "ruleset_id": "sushi-go",
    "players": 3,
    "seed": 1,
    "seats": ["human", "random", "random"],
    "tokens": {"0": "a" * 22},
    "spectator": "b" * 22,
}


def test_hand_damaged_journals_are_each_named_and_the_server_still_starts(monkeypatch, tmp_path):
    """A table.json that is a list, names no ruleset, lacks a key, holds a token that is no secret (null) or is nested past
    Python's depth, a moves.jsonl that is a folder or nested so: a warning each, exit 0, never an internal error."""
    journal = tmp_path / "tables"
    missing = {k: v for k, v in GOOD.items() if k != "ruleset_id"} | {"id": "noid"}
    for name, info in [
        ("list", []),
        ("noruleset", {"format": 1, "ruleset": 123}),
        ("folder", GOOD | {"id": "folder"}),
        ("noid", missing),
        ("nulltoken", GOOD | {"id": "nulltoken", "tokens": {"0": None}}),
        ("deepmoves", GOOD | {"id": "deepmoves"}),
    ]:
        (journal / name).mkdir(parents=True)
        (journal / name / "table.json").write_text(json.dumps(info))
    (journal / "folder" / "moves.jsonl").mkdir()
    deep = "[" * 5000 + "]" * 5000
    (journal / "deepmoves" / "moves.jsonl").write_text(f'{{"n": 0, "actions": {deep}}}\n{{"n": 1, "actions": [0]}}\n')
    from ruledraft import Game, load_ruleset

    legal = Game(load_ruleset("sushi-go"), 3).new_initial_state(GOOD["seed"]).legal_actions(0)
    bad_lines = {  # each a line the server never writes, with a move after it
        "hugepick": '{"n": 0, "seat": 0, "pick": 1e400}',
        "twopicks": f'{{"n": 0, "seat": 0, "pick": {legal[0]}}}\n{{"n": 0, "seat": 0, "pick": {legal[1]}}}',
        "floatseat": '{"n": 0, "seat": 0.0, "pick": 1}',
        "mixed": '{"n": 0, "seat": 0, "pick": 1, "actions": [1, 2, 3]}',
        "floatmove": '{"n": 0, "actions": [1.0, 2, 3]}',
    }
    for name, lines in bad_lines.items():
        (journal / name).mkdir(parents=True)
        (journal / name / "table.json").write_text(json.dumps(GOOD | {"id": name}))
        (journal / name / "moves.jsonl").write_text(lines + '\n{"n": 1, "actions": [0, 0, 0]}\n')
    (journal / "hugeseed").mkdir()
    (journal / "hugeseed" / "table.json").write_text(
        json.dumps(GOOD | {"id": "hugeseed"}).replace('"seed": 1', '"seed": 1e400')
    )
    (journal / "deeptable").mkdir()
    (journal / "deeptable" / "table.json").write_text(deep)
    edited = {  # a table.json changed by hand where the server writes one thing only
        "listtime": {"created": [1]},
        "nantime": {"created": "nan"},
        "lettertoken": {"tokens": {"a": "a" * 22}},
        "botstoken": {"tokens": {"0": "a" * 22, "2": "c" * 22}},
        "oneseat": {"seats": ["human"]},
        "objectseat": {"seats": ["human", {"x": 1}, "random"]},
        "elsewhere": {"id": "../../../tmp/x"},
    }
    for name, change in edited.items():
        (journal / name).mkdir()
        (journal / name / "table.json").write_text(json.dumps(GOOD | {"id": name} | change))
    result = serve_quietly(monkeypatch, "--resume", str(journal), "--port", "0")
    assert result.exit_code == 0, result.output
    assert "internal error" not in result.output
    assert "list: cannot resume: table.json is not a JSON object" in result.stderr
    assert "noruleset: cannot resume: table.json names no ruleset" in result.stderr
    assert "folder: cannot resume: IsADirectoryError" in result.stderr
    assert "noid: cannot resume: table.json has no 'ruleset_id'" in result.stderr
    assert "nulltoken: cannot resume: table.json's tokens are not the seats' secrets" in result.stderr
    assert "deepmoves: cannot resume: moves.jsonl line 1 is not JSON" in result.stderr
    assert "deeptable: cannot resume: RecursionError" in result.stderr
    assert "/None" not in result.output
    for name, words in [
        ("hugepick", "moves.jsonl line 1: a pick for seat 0, which has none to make now"),
        ("twopicks", "moves.jsonl line 2: a pick for seat 0, which has none to make now"),
        ("floatseat", "moves.jsonl line 1: a pick for seat 0.0, which has none to make now"),
        ("mixed", "moves.jsonl line 1 is neither a move nor a held pick"),
        ("floatmove", "moves.jsonl line 1: the moves are not whole numbers"),
        ("hugeseed", "table.json's players and seed are not whole numbers"),
        ("listtime", "table.json's time created is not a number of seconds: [1]"),
        ("nantime", "table.json's time created is not a number of seconds: 'nan'"),
        ("lettertoken", "table.json's tokens are not one for each seat of a person"),
        ("botstoken", "table.json's tokens are not one for each seat of a person"),
        ("oneseat", "table.json's seats are not one name (text) for each of its 3 players"),
        ("objectseat", "table.json's seats are not one name (text) for each of its 3 players"),
        (
            "elsewhere",
            "table.json's id '../../../tmp/x' is not its folder's name (a table's folder is named by its id)",
        ),
    ]:
        assert f"{name}: cannot resume: {words}" in result.stderr, name
    assert Tables(journal).resume(journal)[0] == []


@pytest.mark.parametrize(
    ("form", "words"),
    [
        ({"players": "3", "humans": "9"}, "the people must be from 1 to the 3 players, not 9"),
        ({"players": "3", "humans": "1", "seed": "9999999999999999"}, "the seed must be a whole number from 0"),
        ({"players": "3", "humans": "1", "bots": "value:maki_1=abc"}, "bot &#x27;value:maki_1=abc&#x27;: card value"),
    ],
)
def test_the_lobby_speaks_of_its_own_fields_not_of_command_options(tmp_path, form, words):
    """A web form's error names no --option and says the bot once."""
    from starlette.testclient import TestClient

    from ruledraft.web.app import create_app

    with TestClient(create_app(Tables(tmp_path))) as client:
        answer = client.post("/tables", data={"ruleset": "sushi-go", **form})
    assert answer.status_code == 400
    assert words in answer.text
    assert "--" not in answer.text.split('role="alert">')[1].split("<")[0]
    assert answer.text.count("value:maki_1=abc&#x27;:") <= 1


def test_serve_still_names_its_seed_option(monkeypatch, tmp_path):
    """--seed out of range from the command line: one line naming --seed, exit 2."""
    result = serve_quietly(monkeypatch, "sushi-go", "--seed", str(2**62), "--port", "0", "--journal", str(tmp_path))
    assert result.exit_code == 2
    assert "--seed must be a whole number from 0" in result.stderr


@pytest.mark.parametrize(
    ("bots", "words"),
    [
        ("ismcts:iterations=999999", "takes iterations up to 4000, not 999999"),
        ("greedy,ismcts:ms=5000", "takes ms up to 1000, not 5000"),
        ("planner:samples=41", "takes samples up to 40, not 41"),
        # past the option's own maximum too (1,000,000 and 60,000): the lobby's limit is the one said
        ("ismcts:iterations=100000000", "takes iterations up to 4000, not 100000000"),
        ("ismcts:ms=999999", "takes ms up to 1000, not 999999"),
    ],
)
def test_the_lobby_bounds_the_numbers_a_bot_is_given(tmp_path, bots, words):
    """A bot option past ten times its default (ms: past 1000) is refused in the page, saying the lobby's limit
    even for a number past the option's own maximum; no table opens."""
    from starlette.testclient import TestClient

    from ruledraft.web.app import create_app

    tables = Tables(tmp_path)
    with TestClient(create_app(tables)) as client:
        answer = client.post("/tables", data={"ruleset": "sushi-go", "players": "3", "humans": "1", "bots": bots})
        assert answer.status_code == 400
        assert words in answer.text.split('role="alert">')[1].split("<")[0]
        assert tables.tables == {}
        fine = client.post(
            "/tables", data={"ruleset": "sushi-go", "players": "3", "humans": "1", "bots": "planner:samples=40"}
        )
        assert fine.status_code == 200 and len(tables.tables) == 1


def test_the_person_starting_the_server_may_give_a_bot_any_number_the_bot_takes(monkeypatch, tmp_path):
    """serve --bots ismcts:iterations=1000000 opens its table: the terminal is trusted up to
    the bot's own bound (past it, the one line every command gives)."""
    result = serve_quietly(
        monkeypatch, "sushi-go", "--bots", "ismcts:iterations=1000000", "--port", "0", "--journal", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    (folder,) = tmp_path.iterdir()
    assert json.loads((folder / "table.json").read_text())["seats"][1:] == ["ismcts:iterations=1000000"] * 3
    past = serve_quietly(monkeypatch, "sushi-go", "--bots", "ismcts:iterations=1000001", "--port", "0")
    assert past.exit_code == 2 and "must be at most 1,000,000" in past.output


def test_resuming_an_empty_directory_says_so_in_one_line_and_starts(monkeypatch, tmp_path):
    """--resume on a folder with no table: one note naming it, and the lobby is served (exit 0)."""
    result = serve_quietly(monkeypatch, "--resume", str(tmp_path), "--port", "0")
    assert result.exit_code == 0, result.output
    notes = [line for line in result.stderr.splitlines() if line]
    assert notes == [
        f"note: no unfinished table to resume in {tmp_path}: starting with the lobby only, where tables can be opened"
    ]
    assert "Lobby: http://127.0.0.1:" in result.stdout


def test_resuming_a_directory_with_a_game_in_progress_says_no_note(monkeypatch, tmp_path):
    """A folder holding an unfinished table: it is resumed, and no note says there is none."""
    Tables(tmp_path).open_table("sushi-go", 3, 1, ["random"], seed=3).close()
    result = serve_quietly(monkeypatch, "--resume", str(tmp_path), "--port", "0")
    assert result.exit_code == 0, result.output
    assert "note" not in result.stderr and result.stdout.startswith("Table ")


def test_the_pages_log_names_a_special_order_by_the_card_it_copied():
    """A special order that became a copy of a menu draws, plays and is discarded on the page's log as 'Special Order (as Menu (7))', as in the terminal game; never as a Menu (7) of its own."""
    import ruledraft
    from ruledraft.web.view import TableNames, game_log_lines

    state = ruledraft.play_game("sushi-go-party-dinner-for-two", players=6, bots="random", seed=5)
    lines = game_log_lines(state, TableNames(state.game, None, ["random"] * 6))
    copied = lines.index("  Seat 0's Special Order becomes a copy of Menu (7).")
    told = lines[copied : copied + 6]
    assert "  Seat 0 draws 4 cards with its Special Order (as Menu (7))." in told
    assert "  Seat 0 plays Uramaki (5) with its Special Order (as Menu (7))." in told
    assert not any("Seat 0's Menu (7)" in line or "its Menu (7)" in line for line in told)


def test_a_lobby_form_cut_off_mid_upload_leaves_no_traceback(tmp_path):
    """A POST whose body stops short of its Content-Length and whose sender hangs up: the server logs no error (it printed a traceback of the disconnect) and goes on serving."""
    import logging
    import time
    import urllib.request

    from served import serving

    class Kept(logging.Handler):
        def __init__(self):
            super().__init__(logging.ERROR)
            self.records: list[logging.LogRecord] = []

        def emit(self, record):
            self.records.append(record)

    kept = Kept()
    with serving(tmp_path / "tables") as served:
        logging.getLogger("uvicorn.error").addHandler(kept)  # uvicorn's own (it does not propagate)
        with socket.create_connection(("127.0.0.1", served.port)) as s:
            s.sendall(
                b"POST /tables HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n"
                b"Content-Length: 100\r\n\r\nruleset=sushi-go"
            )
        time.sleep(0.5)  # the server reads what came and finds the sender gone
        with urllib.request.urlopen(served.base + "/", timeout=10) as page:
            assert page.status == 200
        logging.getLogger("uvicorn.error").removeHandler(kept)
    assert [r.getMessage() for r in kept.records] == []
