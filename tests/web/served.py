"""A ruledraft server for the web tests: uvicorn in a thread on a free port of 127.0.0.1,
its tables journaled in a temporary folder."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ruledraft.web.app import create_app
from ruledraft.web.tables import Tables


class Served:
    """A running server: its address and its tables."""

    def __init__(self, tables: Tables, port: int):
        self.tables = tables
        self.base = f"http://127.0.0.1:{port}"
        self.port = port

    def url(self, table, seat) -> str:
        token = table.spectator if seat is None else table.tokens[seat]
        return f"{self.base}/t/{table.id}/{token}"


@contextmanager
def serving(journal: Path, **app_options: Any) -> Iterator[Served]:
    """A server on a free port, stopped on leaving (``app_options``: ``create_app``'s)."""
    import uvicorn

    tables = Tables(journal)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(tables, **app_options), log_level="warning", lifespan="off", ws="auto")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the server did not start")
        time.sleep(0.02)
    try:
        yield Served(tables, port)
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()
        tables.close()
