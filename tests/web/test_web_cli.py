"""``ruledraft serve`` as a command: its links, its warnings and errors, the message
without the web extra, and a real server killed mid-game and started again with
``--resume``: the game goes on from the links it printed and its log replays clean."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app

runner = CliRunner()

LINK = re.compile(r"seat (\d+): (http://\S+)")


def serve_quietly(monkeypatch, *args: str):
    """``ruledraft serve ARGS`` with the server's run replaced by nothing (it returns at once)."""
    uvicorn = pytest.importorskip("uvicorn")
    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)
    return runner.invoke(app, ["serve", *args])


def test_serve_prints_a_link_per_person_and_one_to_watch(monkeypatch, tmp_path):
    """Two people at four seats: two seat links with 128-bit tokens, a watching link, the lobby."""
    result = serve_quietly(
        monkeypatch, "sushi-go", "--players", "4", "--humans", "2", "--port", "0", "--journal", str(tmp_path)
    )
    assert result.exit_code == 0, result.output
    links = LINK.findall(result.stdout)
    assert [s for s, _ in links] == ["0", "1"]
    tokens = [url.rsplit("/", 1)[1] for _, url in links]
    assert all(len(t) == 22 for t in tokens) and tokens[0] != tokens[1]
    assert all(url.startswith("http://127.0.0.1:") for _, url in links)
    assert "watch:" in result.stdout and "Lobby: http://127.0.0.1:" in result.stdout
    assert "warning" not in result.stderr
    (folder,) = tmp_path.iterdir()
    assert json.loads((folder / "table.json").read_text())["seats"] == ["human", "human", "greedy", "greedy"]


def test_serve_readies_an_ismcts_kernel_yes_rollout_before_the_table_opens(monkeypatch, tmp_path):
    """A bot seat's ismcts:kernel=yes has its roll-out compiled before the server starts,
    not while the people at the table wait for that seat's first move."""
    from ruledraft.play import ismcts

    asked: list[tuple[str, int, bool, str]] = []
    monkeypatch.setattr(
        ismcts,
        "kernel_rollouts",
        lambda game, compile=False: asked.append(
            (game.ruleset.id, game.num_players, compile, threading.current_thread().name)
        ),
    )
    args = ["sushi-go", "-p", "3", "--bots", "greedy,ismcts:kernel=yes", "--port", "0", "--journal", str(tmp_path)]
    result = serve_quietly(monkeypatch, *args)
    before = list(asked)  # the table, opened after, asks again in a thread: already loaded in a real run
    for thread in threading.enumerate():
        if thread.name == "ruledraft-ready-searches":
            thread.join(10)
    assert result.exit_code == 0, result.output
    assert before[:1] == [("sushi-go", 3, True, threading.main_thread().name)]


def test_serving_on_every_address_prints_a_one_line_warning(monkeypatch, tmp_path):
    """--host 0.0.0.0 says, in one line, that anyone who can reach the machine can open tables."""
    result = serve_quietly(monkeypatch, "sushi-go", "--host", "0.0.0.0", "--port", "0", "--journal", str(tmp_path))
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning")]
    assert len(warnings) == 1 and "every network address" in warnings[0]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["sushi-go", "--humans", "5", "--players", "4"], "--humans must be from 1 to the 4 players, not 5"),
        (["sushi-go", "--players", "9"], "is for 2-5 players, not 9"),
        (["no-such-game"], "no-such-game"),
        (["sushi-go", "--bots", "nosuchbot", "--humans", "1"], "nosuchbot"),
        ([], "name a RULESET to serve, or --resume DIR"),
        (["--resume", "/nonexistent/folder"], "not a directory"),
        (["--resume", "/etc"], "--resume /etc: it holds other things and no journaled table"),
        (
            ["sushi-go", "--players", "4", "--humans", "2", "--bots", "greedy,random,first"],
            "error: --bots names 3 bots for 2 bot seats (seats 2-3; seats 0-1 are people's)\n",
        ),
        (
            ["sushi-go", "--players", "4", "--humans", "3", "--bots", "greedy,random"],
            "error: --bots names 2 bots for 1 bot seat (seat 3; seats 0-2 are people's)\n",
        ),
        (["sushi-go", "--players", "4", "--humans", "1", "--bots", "greedy,,random"], "empty entry (seat 2)"),
        (["sushi-go", "--players", "3", "--humans", "3", "--bots", "nosuchbot"], "unknown bot 'nosuchbot'"),
        (
            ["sushi-go", "--players", "4", "--humans", "1", "--bots", "a,b,c,d"],
            "error: unknown bot 'a'",
        ),
        (
            ["sushi-go", "--players", "4", "--humans", "1", "--bots", "greedy,random,first,value"],
            "error: --bots names 4 bots for 3 bot seats (seats 1-3; seat 0 is a person's)\n",
        ),
    ],
)
def test_serve_refuses_what_it_cannot_serve_in_one_line(monkeypatch, tmp_path, args, words):
    """Bad input: a message on standard error, seats numbered as the table numbers them, and a non-zero exit, never a traceback; the journal's folder is made only for a table that opens (a refused one leaves none)."""
    result = serve_quietly(monkeypatch, *args, "--port", "0", "--journal", str(tmp_path / "j"))
    assert result.exit_code != 0
    assert words in result.stderr
    assert "Traceback" not in result.output
    assert not (tmp_path / "j").exists() or args[:1] == ["--resume"]


@pytest.mark.parametrize("bots", ["", "greedy,,random"])
def test_every_seat_a_persons_needs_no_bot(monkeypatch, tmp_path, bots):
    """--humans as many as --players: no bot is needed, so an empty --bots or an empty entry is no error (a bot named is still checked)."""
    result = serve_quietly(
        monkeypatch,
        "sushi-go",
        "--players",
        "3",
        "--humans",
        "3",
        "--bots",
        bots,
        "--port",
        "0",
        "--journal",
        str(tmp_path),
    )
    assert result.exit_code == 0, result.output
    assert len(LINK.findall(result.stdout)) == 3


def test_a_resume_folder_that_cannot_be_searched_is_one_line(monkeypatch, tmp_path):
    """--resume DIR whose look fails (EACCES on a folder on the way): the reason in one line, exit 2."""
    import errno
    import pathlib

    def stat(self, *args, **kwargs):
        if self.name == "locked":
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_stat(self, *args, **kwargs)

    real_stat = pathlib.Path.stat
    monkeypatch.setattr(pathlib.Path, "stat", stat)
    result = serve_quietly(monkeypatch, "--resume", str(tmp_path / "locked"), "--port", "0")
    assert result.exit_code == 2
    assert result.stderr == f"error: --resume {tmp_path / 'locked'}: Permission denied\n"


def test_a_port_in_use_is_said_plainly(monkeypatch, tmp_path):
    """A port another program listens on: one line naming it, exit 2."""
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = serve_quietly(monkeypatch, "sushi-go", "--port", str(port), "--journal", str(tmp_path))
    assert result.exit_code == 2
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr


def test_without_the_web_extra_serve_says_how_to_install_it(monkeypatch):
    """No Starlette: one line naming the extra to install, exit 1."""
    monkeypatch.setitem(sys.modules, "starlette", None)
    result = runner.invoke(app, ["serve", "sushi-go"])
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: ruledraft serve needs the web extra: pip install 'ruledraft[web]'"


# ---------------------------------------------------------------------- a real server, killed


def start(args: list[str], cwd: Path) -> tuple[subprocess.Popen, dict[int, str]]:
    """``ruledraft serve ARGS`` in a process of its own; it and its seat links once printed."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "serve", *args, "--port", "0"],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as at a terminal, even where this runs in the background (which ignores SIGINT)
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    links: dict[int, str] = {}
    deadline = time.monotonic() + 120
    assert proc.stdout is not None
    for line in proc.stdout:
        found = LINK.search(line)
        if found:
            links[int(found.group(1))] = found.group(2)
        if line.startswith("Lobby:"):
            break
        assert time.monotonic() < deadline
    assert links, proc.communicate()
    return proc, links


class Seat:
    """A person's WebSocket to a real server (the websockets package's client)."""

    def __init__(self, url: str):
        from websockets.sync.client import connect

        self.ws = connect(url.replace("http://", "ws://") + "/ws", open_timeout=60).__enter__()
        self.view = json.loads(self.ws.recv(timeout=60))

    def move(self) -> dict | None:
        v = self.view
        if v["decision"]:
            return {"type": "decide", "option": v["decision"]["options"][0]["action"]}
        if v["pick"]:
            return {"type": "pick", "cards": [v["hand"][-1]]}
        return None


def play(seats: list[Seat], moves: int | None) -> int:
    """Up to ``moves`` moves (None: to the end); the moves made."""
    made = 0
    while (moves is None or made < moves) and not seats[0].view["finished"]:
        mover = next((s for s in seats if s.move() is not None), None)
        assert mover is not None, "nobody can move"
        mover.ws.send(json.dumps(mover.move()))
        for s in seats:  # one message to every seat after each move
            message = json.loads(s.ws.recv(timeout=60))
            if message["type"] == "picked":
                message = {**s.view, "picked": message["picked"], "waiting": message["waiting"]}
            s.view = message
            assert s.view["type"] == "view", s.view
        made += 1
    return made


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL")
def test_a_killed_server_started_with_resume_continues_the_game_from_the_same_links(tmp_path):
    """Kill -9 mid-game, serve --resume DIR: the printed links open the same seats, the game
    goes on where it was, and `ruledraft replay` accepts its log."""
    pytest.importorskip("websockets")
    journal = tmp_path / "tables"
    proc, links = start(
        ["sushi-go", "--players", "4", "--humans", "2", "--seed", "3", "--journal", str(journal)], tmp_path
    )
    try:
        seats = [Seat(links[0]), Seat(links[1])]
        assert play(seats, 9) == 9
        hands = [s.view["hand"] for s in seats]
        version = seats[0].view["version"]
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
    proc, again = start(["--resume", str(journal)], tmp_path)
    try:
        assert [u.rsplit("/", 2)[-2:] for u in again.values()] == [u.rsplit("/", 2)[-2:] for u in links.values()]
        seats = [Seat(again[0]), Seat(again[1])]
        assert [s.view["hand"] for s in seats] == hands
        assert seats[0].view["version"] == version
        play(seats, None)
        assert seats[0].view["sheet"] is not None
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)
    (log,) = journal.glob("*/game.jsonl")
    replayed = runner.invoke(app, ["replay", str(log)])
    assert replayed.exit_code == 0, replayed.output
    assert "1 game replayed, 1 clean, 0 with problems" in replayed.stdout


def test_ctrl_c_stops_a_server_at_once_while_a_bot_thinks(tmp_path):
    """SIGINT while a bot takes a minute over its move: the server stops within seconds (the
    bot's move is left to --resume), says "interrupted" and exits 130, with no traceback."""
    pytest.importorskip("websockets")
    proc, links = start(
        ["sushi-go", "--players", "2", "--humans", "1", "--bots", "ismcts:ms=60000", "--journal", str(tmp_path / "t")],
        tmp_path,
    )
    try:
        seat = Seat(links[0])
        seat.ws.send(json.dumps(seat.move()))
        assert json.loads(seat.ws.recv(timeout=60)) == {"type": "thinking", "seats": [1]}
        asked = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        took = time.monotonic() - asked
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert (proc.returncode, err.splitlines()[-1:]) == (130, ["interrupted"]), err
    assert "Traceback" not in err and "Cancel" not in err, err
    assert took < 15, took


def test_a_journal_that_is_a_file_is_said_to_be_no_folder(monkeypatch, tmp_path):
    """--journal naming a file: exit 2, "not a directory", not mkdir's "cannot create: File exists"."""
    (tmp_path / "j").write_text("", encoding="utf-8")
    result = serve_quietly(monkeypatch, "sushi-go", "--port", "0", "--journal", str(tmp_path / "j"))
    assert result.exit_code == 2
    assert (
        result.stderr
        == f"error: --journal {tmp_path / 'j'}: not a directory (--journal takes a folder for the tables)\n"
    )


def test_serve_leaves_a_signal_ignored_at_its_start_ignored(monkeypatch, tmp_path):
    """Started with SIGINT ignored (a background job of a script), serve leaves it ignored
    while it serves (uvicorn took it over, and on SIGINT stopped with status 0); started
    with Python's handler, uvicorn's takes SIGINT, as a Ctrl-C at the terminal needs."""
    uvicorn = pytest.importorskip("uvicorn")
    seen = []

    def run(self, sockets=None):
        with self.capture_signals():
            seen.append(signal.getsignal(signal.SIGINT))

    monkeypatch.setattr(uvicorn.Server, "run", run)
    before = signal.getsignal(signal.SIGINT)
    try:
        for i, handler in enumerate((signal.SIG_IGN, signal.default_int_handler)):
            signal.signal(signal.SIGINT, handler)
            journal = str(tmp_path / str(i))
            result = runner.invoke(app, ["serve", "sushi-go", "--humans", "1", "--port", "0", "--journal", journal])
            assert result.exit_code == 0, result.output
            assert signal.getsignal(signal.SIGINT) is handler  # as it was, after
    finally:
        signal.signal(signal.SIGINT, before)
    assert seen[0] is signal.SIG_IGN
    assert seen[1].__func__ is uvicorn.Server.handle_exit
