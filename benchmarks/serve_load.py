"""Load on ``ruledraft serve``: many tables of scripted people playing at once.

    python3 benchmarks/serve_load.py [--tables 50] [--players 4] [--ruleset sushi-go]

Starts ``ruledraft serve`` in a process of its own on a free port of 127.0.0.1 (its
journal in a temporary folder), opens ``--tables`` tables through the lobby's form,
every seat a person, and plays them all at once from this process: one asyncio
WebSocket client per seat, each making its move (the last card of its hand, the first
choice of a decision) as soon as its view asks for one, or after ``--think`` seconds
on average, as a person would. It measures, for every move,
the time from sending it to receiving the next view, and prints the median, the 95th
percentile and the largest, the whole run's time and the machine's load; then it
downloads each finished game's log and replays it. Figures only: nothing is asserted
but that every game finished and replays clean. Only the loopback address is used.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

from ruledraft.language.loading import load_ruleset
from ruledraft.play.game_log import replay_record

LINK = re.compile(r'href="(http://127\.0\.0\.1:\d+/t/([0-9a-f]+)/([A-Za-z0-9_-]+))"')


def start_server(journal: str) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "serve", "--resume", journal, "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("Lobby:"):
            return proc, line.split()[1].rstrip("/")
    raise SystemExit("the server did not start")


def open_table(base: str, ruleset: str, players: int, seed: int) -> list[str]:
    """A table of ``players`` people opened through the lobby: its seat links, in seat order."""
    form = urllib.parse.urlencode({"ruleset": ruleset, "players": players, "humans": players, "seed": seed}).encode()
    with urllib.request.urlopen(urllib.request.Request(base + "/tables", data=form)) as response:
        page = response.read().decode()
    links = [m.group(1) for m in LINK.finditer(page)]
    return links[:players]  # the last is the watching link


def merged(view: dict, message: dict) -> dict:
    """The view after a message: a new view, or who has picked since."""
    if message["type"] == "error":
        raise RuntimeError(message["message"])
    if message["type"] == "picked":
        return {**view, "picked": message["picked"], "waiting": message["waiting"]}
    return message


async def seat(url: str, delays: list[float], think: float, rng: random.Random) -> None:
    """One person: moves whenever its view asks (after ``think`` seconds on average, drawn
    from 0 to twice that), until the game ends."""
    from websockets.asyncio.client import connect

    async with connect(url.replace("http://", "ws://") + "/ws", max_size=2**22) as ws:
        view = json.loads(await ws.recv())
        sent_at: float | None = None
        sent_version = -1
        while not view["finished"]:
            if sent_at is None:
                move = None
                if view["decision"]:
                    move = {"type": "decide", "option": view["decision"]["options"][0]["action"]}
                elif view["pick"]:
                    move = {"type": "pick", "cards": [view["hand"][-1]]}
                if move is not None and think:
                    await asyncio.sleep(rng.uniform(0, 2 * think))
                    while True:  # views sent meanwhile: the latest one is the one to answer
                        try:
                            view = merged(view, json.loads(await asyncio.wait_for(ws.recv(), timeout=0.001)))
                        except asyncio.TimeoutError:
                            break
                    if view["finished"] or not (view["decision"] or view["pick"]):
                        continue
                    move = (
                        {"type": "decide", "option": view["decision"]["options"][0]["action"]}
                        if view["decision"]
                        else {"type": "pick", "cards": [view["hand"][-1]]}
                    )
                if move is not None:
                    move["version"] = sent_version = view["version"]
                    sent_at = time.perf_counter()
                    await ws.send(json.dumps(move))
            message = merged(view, json.loads(await ws.recv()))
            # the first view that shows the move (not one sent for another seat's move meanwhile)
            if sent_at is not None and (message["version"] != sent_version or message["you"] in message["picked"]):
                delays.append(time.perf_counter() - sent_at)
                sent_at = None
            view = message


async def play_all(tables: list[list[str]], think: float) -> list[float]:
    delays: list[float] = []
    rng = random.Random(1)
    await asyncio.gather(*(seat(url, delays, think, rng) for links in tables for url in links))
    return delays


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--ruleset", default="sushi-go")
    parser.add_argument(
        "--think", type=float, default=0.0, help="seconds a person thinks before a move, on average (0: none)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as journal:
        proc, base = start_server(journal)
        try:
            tables = [open_table(base, args.ruleset, args.players, seed) for seed in range(args.tables)]
            load_before = os.getloadavg()
            start = time.perf_counter()
            delays = asyncio.run(play_all(tables, args.think))
            took = time.perf_counter() - start
            load_after = os.getloadavg()
            rs = load_ruleset(args.ruleset)
            clean = 0
            for links in tables:
                with urllib.request.urlopen(links[0] + "/log") as response:
                    record = json.loads(response.read())
                clean += replay_record(rs, record) == []
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    delays.sort()
    p95 = delays[int(0.95 * (len(delays) - 1))]
    print(
        f"{args.tables} tables x {args.players} people ({args.ruleset}, thinking {args.think:g} s): "
        f"{len(delays)} moves in {took:.1f} s; "
        f"action to next view: median {statistics.median(delays) * 1000:.1f} ms, "
        f"p95 {p95 * 1000:.1f} ms, max {delays[-1] * 1000:.1f} ms"
    )
    print(f"games finished and replayed clean: {clean} of {args.tables}")
    print(f"load average before {load_before[0]:.1f}, after {load_after[0]:.1f} (1 min; {os.cpu_count()} cores)")


if __name__ == "__main__":
    main()
