"""``ruledraft serve``: play a ruleset with friends, each in their own browser."""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import signal
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ruledraft.errors import InputError
from ruledraft.play.engines import ready_searches
from ruledraft.play.match import check_players

from .common import counted, fail, reported_errors, shown
from .options import (
    allow_path_option,
    allowed_dirs,
    bots_option,
    bounded_option,
    compiling_status,
    parse_bots,
    players_option,
    ruleset_help,
    seat_bots_help,
    usual_players,
)

if TYPE_CHECKING:
    from ruledraft.web.tables import Table, Tables

NEEDS = "ruledraft serve needs the web extra: pip install 'ruledraft[web]'"


def _holds_a_table(folder: Path) -> bool:
    """Whether ``folder`` holds a journaled table (a folder that cannot be looked in does
    not, and does not stop the others from being resumed)."""
    try:
        return (folder / "table.json").is_file()
    except OSError:
        return False


def serve(
    ruleset: str = typer.Argument(None, help=ruleset_help() + " Optional with --resume."),
    players: int | None = players_option(help="Number of players at the table, people and bots."),
    humans: int = typer.Option(
        1, "--humans", "-H", help="How many seats are people (the first seats); bots take the rest."
    ),
    bots: str = bots_option("greedy", seat_bots_help("Bots for the seats that are not people, in seat order")),
    seed: int = typer.Option(None, "--seed", "-s", help="Seed of the deal and of the bots (default: a random one)."),
    host: str = typer.Option(
        "127.0.0.1", "--host", help="Address to listen on; 0.0.0.0 lets other machines of your network join."
    ),
    port: int = bounded_option(
        8000, "--port", low=0, high=65535, help="Port to listen on (0: any free port).", metavar="PORT", grouped=False
    ),
    journal: str = typer.Option(
        "ruledraft-tables",
        "--journal",
        metavar="DIR",
        help="Directory where each table is journaled move by move (a folder per table).",
    ),
    resume: str = typer.Option(
        None, "--resume", metavar="DIR", help="Continue every table journaled in DIR (after a crash or a restart)."
    ),
    allow_path: list[str] = allow_path_option(),
) -> None:
    """Serve a table in the browser: one link per person, bots in the other seats.

    Prints a link for each person's seat (each with its own secret), a link
    to watch, and the lobby, where more tables can be opened. Each browser is
    sent only its own seat's view; every move is checked by the engine. Each
    table is journaled move by move: --resume DIR continues the games after a
    crash. A finished game's log downloads from its page (check it with
    `ruledraft replay`).
    """
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
        import websockets  # noqa: F401
    except ImportError:
        fail(f"error: {NEEDS}", 1)
    from ruledraft.web.app import create_app

    with reported_errors():
        if ruleset is None and resume is None:
            raise InputError("name a RULESET to serve, or --resume DIR")
        allow = allowed_dirs(allow_path)
        where = Path(resume if resume is not None else journal)
        if resume is not None:
            try:
                is_dir = where.is_dir()
            except OSError as e:  # a folder on the way that cannot be searched
                raise InputError(f"--resume {shown(resume)}: {e.strerror or e}") from None
            if not is_dir:
                raise InputError(f"--resume {shown(resume)}: not a directory")
            try:  # an empty folder or a journal, never a folder of other things (/etc) to write in
                entries = list(itertools.islice(where.iterdir(), 10_000))
                journaled = not entries or any(_holds_a_table(p) for p in entries)
            except OSError as e:
                raise InputError(f"--resume {shown(resume)}: {e.strerror or e}") from None
            if not journaled:
                raise InputError(
                    f"--resume {shown(resume)}: it holds other things and no journaled table (a journal holds "
                    "a folder per table, with its table.json); to start one, serve a RULESET with --journal DIR"
                )
        # the port first: a table is journaled only once it can be served
        try:
            sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
        except OSError as e:
            raise InputError(f"cannot listen on {shown(host)}:{port}: {e.strerror or e}") from None
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, port))
            sock.listen(128)  # connections wait from now on, before the server takes them
        except (OSError, OverflowError) as e:
            sock.close()
            raise InputError(f"cannot listen on {shown(host)}:{port}: {getattr(e, 'strerror', None) or e}") from None
        port = sock.getsockname()[1]
        try:
            tables, opened = _tables(ruleset, resume, journal, where, allow, players, humans, bots, seed)
        except BaseException:
            sock.close()
            raise
    if host in ("0.0.0.0", "::"):
        typer.echo(
            "warning: listening on every network address: anyone who can reach this machine can open tables here",
            err=True,
        )
    shown_host = socket.gethostname() if host in ("0.0.0.0", "::") else (f"[{host}]" if ":" in host else host)
    base = f"http://{shown_host}:{port}"
    for table in opened:
        rs = table.game.ruleset
        state = (
            "finished"
            if table.state.is_terminal()
            else f"{counted(table.game.num_players, 'player')}, seed {table.seed}"
        )
        typer.echo(f"Table {table.id}: {shown(rs.name)}, {state}")
        for s, token in sorted(table.tokens.items()):
            typer.echo(f"  seat {s}: {base}/t/{table.id}/{token}")
        typer.echo(f"  watch:  {base}/t/{table.id}/{table.spectator}")
        typer.echo(f"  links:  {base}/links/{table.id}/{table.host}")
    typer.echo(f"Lobby: {base}/   (journal: {os.path.abspath(where)}; Ctrl-C stops)")
    sys.stdout.flush()  # the links, before the server takes over (standard output may be a pipe)
    import uvicorn
    from uvicorn.config import WS_PROTOCOLS

    app = create_app(tables, [ruleset] if ruleset else [])
    ws = "websockets-sansio" if "websockets-sansio" in WS_PROTOCOLS else "websockets"  # the older one is deprecated
    # log_config=None: uvicorn leaves the process's logging as it is (its dictConfig would
    # close every handler already installed, a host program's or a test runner's)
    # timeout_graceful_shutdown: a Ctrl-C waits a second for the connections, not for a bot
    # thinking (its move runs in a daemon thread; the journal keeps every move told)
    config = uvicorn.Config(
        app,
        ws=ws,
        ws_max_size=65536,
        log_level="warning",
        lifespan="off",
        log_config=None,
        timeout_graceful_shutdown=1,
    )
    logging.getLogger("uvicorn.error").addFilter(_quiet_cancel)
    server = uvicorn.Server(config)
    server.capture_signals = _keeping_ignored_signals(server.capture_signals)  # type: ignore[method-assign,assignment]
    try:
        server.run(sockets=[sock])
    finally:
        tables.close()
        sock.close()


def _keeping_ignored_signals(
    capture: Callable[[], contextlib.AbstractContextManager[None]],
) -> Callable[[], contextlib.AbstractContextManager[None]]:
    """uvicorn's capture of SIGINT and SIGTERM while it serves, but a signal ignored when
    ``serve`` started stays ignored, as every other command leaves it: a background job of
    a script ignores SIGINT, and uvicorn took it over and stopped, with status 0."""

    @contextlib.contextmanager
    def keeping() -> Iterator[None]:
        ignored = [s for s in (signal.SIGINT, signal.SIGTERM) if signal.getsignal(s) is signal.SIG_IGN]
        with capture():
            if threading.current_thread() is threading.main_thread():  # else uvicorn took none
                for sig in ignored:
                    signal.signal(sig, signal.SIG_IGN)
            yield

    return keeping


def _quiet_cancel(record: logging.LogRecord) -> bool:
    """uvicorn's "Cancel 1 running task(s)" on Ctrl-C, when a bot was thinking: nothing
    went wrong (the move is made again on --resume), so it is not said."""
    return not record.getMessage().startswith("Cancel ")


def _tables(
    ruleset: str | None,
    resume: str | None,
    journal: str,
    where: Path,
    allow: tuple,
    players: int | None,
    humans: int,
    bots: str,
    seed: int | None,
) -> tuple[Tables, list[Table]]:
    """The server's tables (journaled in ``where``): those resumed, then the new one asked for."""
    from ruledraft.engine.state import MAX_SEED
    from ruledraft.web.tables import Tables

    opened: list[Table] = []
    no_folder = f"--journal {shown(journal)}: not a directory (--journal takes a folder for the tables)"
    if where.exists() and not where.is_dir():
        raise InputError(no_folder)
    tables = Tables(where, allow)
    specs: list[str] = []
    if ruleset is not None:  # the table asked for checked before the folder is made: a refusal leaves none
        rs = tables.ruleset(ruleset)
        players = usual_players(rs, players)
        check_players(rs, players)
        if not 1 <= humans <= players:
            raise InputError(f"--humans must be from 1 to the {counted(players, 'player')}, not {humans}")
        if seed is not None and not 0 <= seed <= MAX_SEED:
            raise InputError(f"--seed must be a whole number from 0 to {MAX_SEED}, not {seed}")
        bot_seats = players - humans
        if bot_seats:
            specs = parse_bots(bots, bot_seats, card_ids=rs.catalogue.ids, first_seat=humans)
        else:  # every seat a person's: the bots named are checked all the same (a misspelling is said)
            named = [b for b in (part.strip() for part in bots.split(",")) if b]  # (an empty entry seats nobody)
            if named:
                parse_bots(",".join(named), len(named), card_ids=rs.catalogue.ids)
    try:
        where.mkdir(parents=True, exist_ok=True)
    except FileExistsError:  # a file, not a folder (made meanwhile)
        raise InputError(no_folder) from None
    except OSError as e:
        raise InputError(f"--journal {shown(journal)}: cannot create: {e.strerror}") from None
    if resume is not None:
        resumed, problems = tables.resume(where)
        for line in problems:
            typer.echo(shown(f"warning: {line}"), err=True)
        opened.extend(resumed)
        if not any(not t.state.is_terminal() for t in resumed):
            rest = "" if ruleset is not None else ": starting with the lobby only, where tables can be opened"
            typer.echo(f"note: no unfinished table to resume in {shown(resume)}{rest}", err=True)
    if ruleset is not None:
        assert players is not None
        # a seat's ismcts:kernel=yes compiles its roll-out now, not while the people wait for its first move
        ready_searches(rs, players, specs, compiling_status(rs, quiet=False))
        opened.append(tables.open_table(ruleset, players, humans, specs, seed))
    return tables, opened
