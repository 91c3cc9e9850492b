"""``ruledraft play``: play a game in the terminal against bots.

The human is one seat (:class:`~ruledraft.cli.human_seat.HumanAgent`); bots from
the agent registry fill the others. Everything is plain text read and written line
by line, so a game can be driven through a pipe (``printf '1\\n%.0s' {1..40} |
ruledraft play sushi-go``). The human sees only what their seat may know
(:meth:`State.observation`): their own hand, every table, the scores and the other
seats' hand sizes -- never another hand.

The parts: :mod:`.terminal` (reading answers, fitting text to the width),
:mod:`.naming` (seats and cards in words), :mod:`.human_seat` (the human's moves),
:mod:`.board` (every seat's board), :mod:`.event_words` (what effects did, in
words) and :mod:`.reporter` (what is printed after each set of moves). The names
callers imported from this module before it was split (``X as X`` below) still
import from here.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys  # noqa: F401 - callers have replaced the answers through ``play.sys.stdin``
import threading
from collections.abc import Callable

import typer

from ruledraft.engine.board import majority_words, races
from ruledraft.engine.state import MAX_SEED, Game, State
from ruledraft.errors import InputError
from ruledraft.play.agents import BotFailure, checked_act, make_agent, parse_bot
from ruledraft.play.bot_specs import absolute_spec
from ruledraft.play.engines import check_engine, ready_searches
from ruledraft.play.executor import ShippedRuleset
from ruledraft.play.game_log import record_game
from ruledraft.play.isolate import IsolatedAgent
from ruledraft.play.log_target import check_log_path
from ruledraft.play.runner import bot_seed

from .board import board_lines as board_lines
from .common import NO_ROOM, OutputRefused, checked_ruleset, counted, failed_bot, reported_errors, shown
from .event_words import event_line as event_line
from .event_words import ordinal as ordinal
from .human_seat import HUMAN, HumanAgent, QuitGame
from .human_seat import displayed_hand as displayed_hand
from .naming import SeatNames
from .options import (
    allow_path_option,
    allowed_dirs,
    compiling_status,
    engine_option,
    log_option,
    parse_bots,
    players_option,
    ruleset_argument,
    seat_bots_help,
    seed_option,
    usual_players,
)
from .reporter import Reporter
from .terminal import EndOfInput, LineTooLong, read_line, stdin_is_terminal, terminal_width, wrapped, wrapping

#: seconds a bot may take over a move before the screen says it is choosing
THINKING_AFTER = 1.0


def play(
    ruleset: str = ruleset_argument(),
    players: int | None = players_option(help="Number of players, you included."),
    seed: int = seed_option("Seed of the deal and of the bots"),
    bots: str | None = typer.Option(
        None,
        "--bots",
        "-b",
        help=seat_bots_help("Bots for the other seats in seat order (left out: greedy)"),
        show_default=False,
    ),
    seat: int = typer.Option(0, "--seat", help="Your seat (0-based)."),
    log: str | None = log_option("Write the finished game as one JSON line (check it with `ruledraft replay`)."),
    allow_path: list[str] = allow_path_option(),
    isolate: bool = typer.Option(
        False,
        "--isolate",
        help="Run each bot from a file, a module or a package in a process of its own, sent only its seat's view.",
    ),
    engine: str = engine_option(
        help="Which engine plays (auto, kernel or reference): a game with your seat in it plays on the reference "
        "engine, so auto and reference are the same here and kernel is an error (the kernel plays whole games "
        "of bots: simulate, compare, sweep and bench)."
    ),
) -> None:
    """Play a game in the terminal against bots: type a card's number or name to take it.

    You see your own hand, every table, and per seat the points so far, what the
    round would score now, the quantities the majority rules compare, which
    modifier cards are loaded, and the kept cards. Everything fits the terminal's
    width (COLUMNS). Answers are read as lines of at most 1024 bytes.
    """
    with reported_errors():
        if not 0 <= seed <= MAX_SEED:
            raise InputError(f"--seed must be a whole number from 0 to {MAX_SEED}, not {seed}")
        check_engine(engine)
        if engine == "kernel":
            raise InputError(
                "--engine kernel: a game with your seat in it plays on the reference engine (the kernel plays "
                "whole games of bots: simulate, compare, sweep and bench); use auto or reference"
            )
        if ruleset == "-":
            raise InputError(
                "play reads your moves from standard input, so the ruleset cannot come from there (-); give a file or a bundled id"
            )
        checked = checked_ruleset(ruleset, allowed_dirs(allow_path))
        rs = checked.ruleset
        players = usual_players(rs, players)
        game = Game(rs, players)  # checks the player count
        if not 0 <= seat < players:
            raise InputError(f"--seat {seat}: seats are numbered 0-{players - 1} with {counted(players, 'player')}")
        others = [s for s in range(players) if s != seat]
        if bots is None:  # left out: greedy at every other seat (none in a game of one)
            bots = "greedy" if others else ""
        named = [n for n in bots.split(",") if n.strip()]
        if len(named) > len(others):
            raise InputError(f"--bots names {counted(len(named), 'bot')} for the {counted(len(others), 'other seat')}")
        bot_names = dict(zip(others, parse_bots(bots, len(others), card_ids=rs.catalogue.ids))) if others else {}
        log_existed = log is not None and os.path.exists(log)
        if log is not None:  # find out now, not after the game, whether the record can be written
            check_log_path(log, list(checked.files))  # a FIFO, a device, an input file: refused unopened
            try:
                open(log, "a", encoding="utf-8").close()
            except OSError as e:
                raise InputError(f"{log}: cannot write: {e.strerror}") from None
        # a seat's ismcts:kernel=yes compiles its roll-out now, with a status line, not silently at its first move
        ready_searches(rs, players, list(bot_names.values()), compiling_status(rs, quiet=False), game)
        try:
            shipped = ShippedRuleset(rs, checked.document) if isolate else None
            at_terminal = stdin_is_terminal()  # a person waits on the screen: a slow bot is said to be thinking
            state = play_game(
                game,
                seed,
                seat,
                bot_names,
                pause=at_terminal,
                isolate=shipped,
                thinking_after=THINKING_AFTER if at_terminal else None,
            )
        except (QuitGame, EndOfInput, KeyboardInterrupt, BotFailure) as e:
            if log and not log_existed:
                with contextlib.suppress(OSError):
                    os.remove(log)  # no game to record; an existing file is left as it was
            if isinstance(e, BotFailure):  # its text comes from the bot's own code
                failed_bot(e)
            if isinstance(e, QuitGame):
                typer.echo("You left the game.")
                raise typer.Exit(0) from None
            typer.echo("")  # end the prompt's line
            if isinstance(e, EndOfInput):
                typer.echo("Input ended before the game did; game abandoned.", err=True)
                raise typer.Exit(2) from None  # an input that cannot be used: nothing was checked and found wrong
            raise typer.Exit(130) from None  # the entry point says "interrupted"
        if log:
            seat_names = [HUMAN if s == seat else bot_names[s] for s in range(players)]
            line = json.dumps(record_game(state, seat_names), separators=(",", ":")) + "\n"
            opened = False
            try:
                with open(log, "w", encoding="utf-8") as fh:
                    opened = True
                    fh.write(line)
            except OSError as e:
                if opened and os.path.isfile(log):  # our record cut short replays as no game at all: none is left
                    with contextlib.suppress(OSError):
                        os.remove(log)
                if e.errno in NO_ROOM:  # a full disk: status 74, as every output that could not be written
                    raise OSError(e.errno, e.strerror, log) from None
                if opened:  # the file opened and refused the write: an output that could not be written too
                    raise OutputRefused(f"{log}: cannot write: {e.strerror}") from None
                raise InputError(f"{log}: cannot write: {e.strerror}") from None
            wrapping(typer.echo, terminal_width())(
                f"Game record written to {log} (check it with: ruledraft replay {log})."
            )


def _bot(spec: str, seed: int, seat: int, game: Game, isolate: ShippedRuleset | None):
    """The bot of ``seat``: in a process of its own when ``isolate`` and it comes from outside."""
    if isolate is not None and parse_bot(spec).kind.foreign:
        return IsolatedAgent(absolute_spec(spec), seed, isolate, game.num_players, seat, shown=spec)
    return make_agent(spec, seed)


def play_game(
    game: Game,
    seed: int,
    seat: int,
    bot_names: dict[int, str],
    read: Callable[[], str] | None = None,
    write: Callable[..., None] | None = None,
    width: int | None = None,
    pause: bool = False,
    isolate: ShippedRuleset | None = None,
    thinking_after: float | None = None,
) -> State:
    """Play one game, the human at ``seat`` and the named bots elsewhere; the finished state.
    Bot ``s`` is seeded from ``bot_seed(seed, s)``, as in simulations (a bot from outside
    with its :func:`~ruledraft.engine.seeds.private_seed`). Every line
    written fits ``width`` columns (default: the terminal's width, followed as the
    window is resized). With ``pause``
    (a player at a terminal) the game waits for Enter after a pick played for the
    player and after each round's scores, so no key press runs several turns past
    unseen. With ``isolate`` (the ruleset as it travels), each bot from outside plays
    in a process of its own, sent only its seat's view. With ``thinking_after``, a bot
    that takes more than so many seconds over a move is waited for on the screen
    (``play`` at a terminal: :data:`THINKING_AFTER`; never where the answers are
    piped in, so the output does not depend on the machine's speed)."""
    rs = game.ruleset
    write = wrapping(write or typer.echo, width)  # width None: the terminal's, as it is resized
    read = read or (lambda: read_line())
    names = SeatNames(game, seat, bot_names)
    wait = None
    if pause:

        def wait(what: str, over: bool = False) -> None:
            """Wait for Enter; ``over``: the game is over (nothing to quit: q, or the input's end, go on)."""
            write(f"Press Enter {what}{'' if over else ' (q quits)'}: ", nl=False)
            try:
                answer = read().strip().lower()
            except LineTooLong:
                return
            except EndOfInput:
                if over:  # the game is played: its scores and record are still given
                    return
                raise
            if answer in ("q", "quit", "exit") and not over:
                raise QuitGame()

    human = HumanAgent(names, read, write, width, pause=wait)
    agents = [
        human if s == seat else _bot(bot_names[s], bot_seed(seed, s), s, game, isolate) for s in range(game.num_players)
    ]
    state = game.new_initial_state(seed)
    opponents = ", ".join(names.long(s) for s in range(game.num_seats) if s != seat)
    against = f"; playing against {opponents}" if opponents else ", playing alone"
    write(f"{shown(rs.name)}: {counted(game.num_players, 'player')}, seed {seed}. You are seat {seat}{against}.")
    write("Type a card's number or name to take it; ? for help, q to quit.")
    columns = majority_words(state) + tuple(
        (race.rule, f"what each seat's cards count toward {race.target}: a seat that reaches it takes the next place")
        for race in races(state)
    )
    if columns:
        write("On the board:")
        for rid, words in columns:
            for line in wrapped(f"{shown(rid)}: {shown(words)}", width or terminal_width(), "  ", "    "):
                write(line)
    reporter = Reporter(state, names, write, width, pause=wait)
    reporter.after_moves(state)  # a deal that plays itself (hands of one card)

    def bot_move(s: int) -> int:
        notice = (
            contextlib.nullcontext()
            if thinking_after is None
            else ThinkingNotice(lambda: write(f"Waiting for {names.long(s)} to choose..."), thinking_after)
        )
        with notice:
            return checked_act(agents[s], bot_names[s], state, s, seed)

    while not state.is_terminal():
        state.apply_actions([agents[s].act(state, s) if s == seat else bot_move(s) for s in state.acting_seats()])
        reporter.after_moves(state)
    return state


class ThinkingNotice:
    """Around a bot's move: ``say`` is called once if the move takes more than ``after``
    seconds (so a player is not left before a silent screen), never after it is made."""

    def __init__(self, say: Callable[[], None], after: float) -> None:
        self._say = say
        self._lock = threading.Lock()
        self._done = False
        self._timer = threading.Timer(after, self._notice)
        self._timer.daemon = True

    def _notice(self) -> None:
        with self._lock:
            if not self._done:
                self._say()

    def __enter__(self) -> ThinkingNotice:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        with self._lock:
            self._done = True
        self._timer.cancel()
