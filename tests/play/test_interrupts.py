"""Stopping ``ruledraft simulate`` with SIGINT, SIGTERM or SIGHUP, as a real process on two workers:
the summary of the finished games, a log of complete lines, the exit status, and no
process left behind."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ruledraft.play.runner import game_seed

GAMES = 1_000_000  # far more than a test waits for: every run here is stopped
WAIT = 120  # seconds; generous, only so that a broken build fails instead of hanging
#: the stop signals and the status each ends a command with
STOPS = [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)]
STOP_NAMES = ["SIGINT", "SIGTERM", "SIGHUP"]

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")


def proc_stat(pid: str):
    """``(ppid, pgrp)`` of a process from /proc, or None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    return int(fields[1]), int(fields[2])


def related(pid: int):
    """Processes other than ``pid`` whose parent is ``pid`` or that are in its process group."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == pid:
            continue
        st = proc_stat(entry)
        if st is not None and pid in st:
            found.append(int(entry))
    return found


def children(pid: int):
    return [p for p in related(pid) if (proc_stat(str(p)) or (0, 0))[0] == pid]


def wait_until(condition, what: str):
    deadline = time.monotonic() + WAIT
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def stops_as_python_leaves_them(ignoring: int = 0):
    """A ``preexec_fn`` that gives the child the stop signals' default actions (the test
    run itself may have been started with SIGHUP ignored, which a child inherits and
    keeps, as nohup means it to), but ``ignoring``, ignored."""

    def preexec() -> None:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, signal.SIG_IGN if sig == ignoring else signal.SIG_DFL)

    return preexec


def started(args: list[str]) -> subprocess.Popen:
    """``args`` run in a process group of its own, its output piped, the stop signals at their defaults."""
    return subprocess.Popen(
        args,
        text=True,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=stops_as_python_leaves_them(),  # noqa: PLW1509
    )


def start(tmp_path, *extra, jobs="2", terminal=None, ignoring=0):
    """A simulate process in its own process group, once its workers run and its log has lines
    (``terminal``: a pty's file descriptor for its three streams, else pipes; ``ignoring``:
    a signal it is started with ignored, as a script's ``cmd &`` starts it with SIGINT
    ignored, or nohup with SIGHUP)."""
    log = tmp_path / "games.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ruledraft",
            "simulate",
            "sushi-go",
            "--players",
            "3",
            "--games",
            str(GAMES),
            "--seed",
            "7",
            "--bots",
            "greedy,random",
            "--jobs",
            jobs,
            "--log",
            str(log),
            *extra,
        ],
        stdin=terminal,
        stdout=subprocess.PIPE if terminal is None else terminal,
        stderr=subprocess.PIPE if terminal is None else terminal,
        text=True,
        start_new_session=True,
        preexec_fn=stops_as_python_leaves_them(ignoring),  # noqa: PLW1509
    )
    try:
        if jobs != "1":
            wait_until(lambda: len(children(proc.pid)) == int(jobs) or proc.poll() is not None, "the workers")
        wait_until(lambda: (log.exists() and log.stat().st_size > 0) or proc.poll() is not None, "the first games")
        assert proc.poll() is None, proc.communicate()
    except BaseException:
        proc.kill()
        proc.communicate()
        raise
    return proc, log


def send(proc, signum: int, to_group: bool) -> None:
    if to_group:
        os.killpg(proc.pid, signum)
    else:
        os.kill(proc.pid, signum)


def finish(proc):
    try:
        out, err = proc.communicate(timeout=WAIT)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError("simulate did not stop") from None
    return out, err


def complete_records(log: Path):
    """The log's records; every line must be complete JSON ending in a newline."""
    text = log.read_text(encoding="utf-8")
    assert text == "" or text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def check_stopped_run(proc, log, out, err, status):
    assert proc.returncode == status, err
    assert "Traceback" not in err and "Error" not in err
    summary = json.loads(out)
    records = complete_records(log)
    n = summary["games"]
    assert err.rstrip().splitlines()[-1] == f"interrupted after {n} of {GAMES} games"
    assert summary["interrupted"] is True and summary["games_requested"] == GAMES
    assert 0 < n < GAMES and len(records) == n
    # exactly the logged games are summarised: sums over the log give the summary's figures
    for seat in summary["seats"]:
        assert sum(r["totals"][seat["seat"]] for r in records) / n == pytest.approx(seat["mean"])
        assert sum(1 / len(r["winners"]) for r in records if seat["seat"] in r["winners"]) == pytest.approx(
            seat["wins"]
        )
    # each a different game of this simulation (in game order, but for the last few)
    seeds = {game_seed(7, i): i for i in range(n + 20_000)}
    assert len({seeds[r["seed"]] for r in records}) == n
    assert related(proc.pid) == []


@pytest.mark.parametrize("signum, status", STOPS, ids=STOP_NAMES)
@pytest.mark.parametrize("to_group", [True, False], ids=["process-group", "main-process"])
def test_a_signal_stops_simulate_on_two_workers(tmp_path, signum, status, to_group):
    """SIGINT (or SIGTERM, or SIGHUP: the terminal closed) to the process group or the main process only: simulate --jobs 2 stops, prints the summary of exactly the logged games marked interrupted, exits 130 (143, 129) and leaves no process."""
    proc, log = start(tmp_path, "--json")
    send(proc, signum, to_group)
    out, err = finish(proc)
    check_stopped_run(proc, log, out, err, status)


def test_a_signal_stops_simulate_on_one_process(tmp_path):
    """With --jobs 1, SIGINT stops between two games: the same summary, log and exit status 130."""
    proc, log = start(tmp_path, "--json", jobs="1")
    send(proc, signal.SIGINT, to_group=True)
    out, err = finish(proc)
    check_stopped_run(proc, log, out, err, 130)


def test_a_run_started_with_ctrl_c_ignored_keeps_ignoring_it_and_sigterm_stops_it(tmp_path):
    """Started with SIGINT ignored (a script's `ruledraft ... &`, nohup): a Ctrl-C leaves the run
    playing, as Python leaves it (the run took the signal up once it began: a Ctrl-C a moment
    before it was lost, one a moment later stopped it); SIGTERM stops it as ever."""
    proc, log = start(tmp_path, "--json", jobs="1", ignoring=signal.SIGINT)
    send(proc, signal.SIGINT, to_group=True)
    at_signal = log.stat().st_size
    wait_until(lambda: log.stat().st_size > at_signal + 50_000 or proc.poll() is not None, "more games")
    assert proc.poll() is None, proc.communicate()  # still playing, well past the Ctrl-C
    send(proc, signal.SIGTERM, to_group=True)
    out, err = finish(proc)
    check_stopped_run(proc, log, out, err, 143)


def test_a_run_under_nohup_keeps_ignoring_the_terminal_closing(tmp_path):
    """Started with SIGHUP ignored (nohup): the terminal closing leaves the run and its workers playing; SIGTERM
    stops it as ever."""
    proc, log = start(tmp_path, "--json", ignoring=signal.SIGHUP)
    send(proc, signal.SIGHUP, to_group=True)
    at_signal = log.stat().st_size
    wait_until(lambda: log.stat().st_size > at_signal + 50_000 or proc.poll() is not None, "more games")
    assert proc.poll() is None, proc.communicate()
    send(proc, signal.SIGTERM, to_group=True)
    out, err = finish(proc)
    check_stopped_run(proc, log, out, err, 143)


def test_the_tables_say_the_run_was_interrupted(tmp_path):
    """Without --json the tables are printed for the finished games, followed by a line saying the run was interrupted after N of G games."""
    proc, log = start(tmp_path, "-q")
    send(proc, signal.SIGINT, to_group=True)
    out, err = finish(proc)
    assert proc.returncode == 130, err
    n = len(complete_records(log))
    assert f"Sushi Go!: {n} games, 3 players, seed 7" in out
    assert f"interrupted after {n} of {GAMES} games" in out.splitlines()
    assert err.strip() == f"interrupted after {n} of {GAMES} games"
    assert related(proc.pid) == []


@pytest.mark.parametrize("signum, status", STOPS, ids=STOP_NAMES)
def test_a_second_signal_leaves_at_once(tmp_path, signum, status):
    """Two SIGINTs (SIGTERMs, SIGHUPs) in a row: simulate leaves with status 130 (143, 129) and 'interrupted', no traceback, no process left, only complete lines in the log."""
    proc, log = start(tmp_path, "--json")
    send(proc, signum, to_group=True)
    time.sleep(0.02)  # two signals, not one (the same signal pending twice is delivered once)
    send(proc, signum, to_group=True)
    out, err = finish(proc)
    assert proc.returncode == status, err
    assert "Traceback" not in err
    assert err.rstrip().splitlines()[-1].startswith("interrupted")
    complete_records(log)
    assert related(proc.pid) == []


@pytest.fixture
def signal_handlers():
    """main() installs handlers for SIGINT, SIGTERM and SIGHUP: put this process's back afterwards."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    yield
    for sig, handler in saved.items():
        signal.signal(sig, handler)


@pytest.mark.parametrize("signum, status", STOPS, ids=STOP_NAMES)
def test_main_maps_an_interrupt_inside_a_command_to_its_status(monkeypatch, capsys, signal_handlers, signum, status):
    """An interrupt raised inside any command (which typer would end silently with 130) makes main() say 'interrupted' and exit 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP."""
    import typer

    from ruledraft.cli import app as app_module
    from ruledraft.play.runner import Interrupt

    tiny = typer.Typer()

    @tiny.command()
    def stopped() -> None:
        raise Interrupt(signum)

    monkeypatch.setattr(app_module, "app", tiny)
    monkeypatch.setattr(sys, "argv", ["ruledraft"])
    with pytest.raises(SystemExit) as leaving:
        app_module.main()
    assert leaving.value.code == status
    assert capsys.readouterr().err == "interrupted\n"


@pytest.mark.parametrize(
    ("second", "status"),
    STOPS,
    ids=STOP_NAMES,
)
def test_a_stop_signal_landing_while_the_way_out_is_worked_out_ends_interrupted(
    monkeypatch, capsys, signal_handlers, second, status
):
    """A second signal that lands while the command line works out how the first one's run ended
    (the run's handlers given back, its exit under way) ends "interrupted" with its status; it
    escaped as a KeyboardInterrupt's traceback, the process killed by SIGINT."""
    from ruledraft.cli import app as app_module
    from ruledraft.cli import interrupts

    def ended_by_the_first() -> None:
        raise SystemExit(130)

    def lands_here(e, **_kwargs):  # what the handler in place does when the signal arrives at this point
        (interrupts.remembered if second == signal.SIGINT else app_module._terminated)(second, None)

    signal.signal(signal.SIGINT, interrupts.remembered)
    monkeypatch.setattr(app_module, "_run", ended_by_the_first)
    monkeypatch.setattr(app_module, "stop_behind", lands_here)
    monkeypatch.setattr(interrupts, "PENDING", 0)
    try:
        app_module._guarded()
    except SystemExit as e:
        code = e.code
    except KeyboardInterrupt:  # (caught here: one reaching pytest would end the whole session)
        pytest.fail("the second signal escaped as a KeyboardInterrupt")
    assert code == status
    assert capsys.readouterr().err == "interrupted\n"
    assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN  # and a third one is ignored


def test_in_a_terminal_the_interrupted_line_shows_once(tmp_path):
    """With both streams on a terminal, the summary's 'interrupted after N of G games' is not repeated on stderr."""
    import pty

    main, child = pty.openpty()
    proc, _log = start(tmp_path, "-q", terminal=child)
    os.close(child)
    chunks = []

    def read_some() -> None:
        try:
            while select.select([main], [], [], 0.05)[0]:
                chunks.append(os.read(main, 65536))
        except OSError:  # the terminal closed with the process
            pass

    try:
        send(proc, signal.SIGINT, to_group=True)
        deadline = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < deadline:
            read_some()
        read_some()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(main)
    text = b"".join(chunks).decode(errors="replace")
    assert proc.returncode == 130, text
    assert text.count("interrupted after") == 1, text


#: a bot file whose first move takes three seconds (it says so in a file first), the rest none
SLOW_FIRST_MOVE = """
import pathlib, time

class SlowStart:
    name = "slow-start"

    def __init__(self, seed=0):
        self.first = True

    def act(self, view, seat):
        if self.first:
            self.first = False
            pathlib.Path({marker!r}).touch()
            time.sleep(3)
        return view.legal_actions()[0]
"""


@pytest.mark.parametrize("on_terminal", [True, False], ids=["terminal", "pipes"])
def test_a_ctrl_c_waiting_for_the_game_in_play_says_it_is_stopping_on_a_terminal(tmp_path, on_terminal):
    """One process, a bot slow to move: Ctrl-C lets the game in play end (it is counted), and on a terminal the run says within a second that it is stopping and how to stop at once; through pipes nothing more is said."""
    import pty

    from ruledraft.play.executor import STILL_STOPPING

    marker = tmp_path / "asked"
    bot = tmp_path / "slow_start.py"
    bot.write_text(SLOW_FIRST_MOVE.format(marker=str(marker)))
    args = [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "2", "-g", "5", "-q"]
    args += ["--bots", f"{bot}:SlowStart", "--jobs", "1"]
    main = child = None
    if on_terminal:
        main, child = pty.openpty()
        streams = {"stdin": child, "stdout": child, "stderr": child}
    else:
        streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    proc = subprocess.Popen(args, text=True, start_new_session=True, **streams)
    if child is not None:
        os.close(child)
    chunks: list[bytes] = []

    def read_some() -> None:
        try:
            while main is not None and select.select([main], [], [], 0.05)[0]:
                chunks.append(os.read(main, 65536))
        except OSError:  # the terminal closed with the process
            pass

    try:
        wait_until(lambda: marker.exists() or proc.poll() is not None, "the bot's first move")
        send(proc, signal.SIGINT, to_group=True)
        if on_terminal:
            deadline = time.monotonic() + WAIT
            while proc.poll() is None and time.monotonic() < deadline:
                read_some()
            read_some()
            text = b"".join(chunks).decode(errors="replace")
        else:
            out, err = finish(proc)
            text = out + err
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        if main is not None:
            os.close(main)
    assert proc.returncode == 130, text
    assert "interrupted after 1 of 5 games" in text, text  # the game in play ended and counts
    assert text.count(STILL_STOPPING) == (1 if on_terminal else 0), text


STUCK_FIRST_MOVE = """
import pathlib
import time


class Stuck:
    def __init__(self, seed=0):
        pass

    def act(self, view, seat):
        pathlib.Path({marker!r}).touch()
        time.sleep(600)
        return view.legal_actions()[0]
"""


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["SIGTERM", "SIGHUP"])
def test_a_sigterm_the_game_in_play_does_not_answer_ends_the_run_after_its_grace(tmp_path, signum, status):
    """One process, a bot that never moves: a single SIGTERM (timeout's, a service
    manager's: nobody sends a second) or SIGHUP (the terminal closed) ends the run
    TERM_GRACE seconds later as a second signal does, status 143 (129) and
    'interrupted', where it waited for the game for ever."""
    from ruledraft.play.executor import TERM_GRACE

    marker = tmp_path / "asked"
    bot = tmp_path / "stuck.py"
    bot.write_text(STUCK_FIRST_MOVE.format(marker=str(marker)))
    args = [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "2", "-g", "5", "-q"]
    args += ["--bots", f"{bot}:Stuck", "--jobs", "1"]
    proc = started(args)
    try:
        wait_until(lambda: marker.exists() or proc.poll() is not None, "the bot's first move")
        sent = time.monotonic()
        send(proc, signum, to_group=False)
        out, err = finish(proc)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == status, err
    assert err.strip().splitlines()[-1] == "interrupted"
    assert TERM_GRACE - 0.5 <= took < WAIT  # it waited its grace for the game, then left
    assert not related(proc.pid)


SLOW_MOVES = """
import os
import time


class Slow:
    def __init__(self, seed=0):
        pass

    def act(self, view, seat):
        time.sleep(0.02)
        with open({moves!r}, "a") as f:
            f.write(f"{{os.getpid()}}\\n")
        return view.legal_actions()[0]
"""


@pytest.mark.parametrize("signum, status", STOPS, ids=STOP_NAMES)
def test_a_stop_on_two_workers_keeps_the_games_they_finished_in_their_chunks(tmp_path, signum, status):
    """Two workers, a bot slow to move (its chunks take seconds): stopped once each worker has finished a
    game in the middle of its chunk, the run counts and logs every game the workers finished (the games in
    play played to their end), where the chunks cut short were lost with their finished games."""
    moves = tmp_path / "moves"
    bot = tmp_path / "slow.py"
    bot.write_text(SLOW_MOVES.format(moves=str(moves)))
    log = tmp_path / "games.jsonl"
    args = [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "2", "-g", "40", "--seed", "3"]
    args += ["--bots", f"{bot}:Slow,random", "--jobs", "2", "--json", "--log", str(log)]
    proc = started(args)

    def moves_by_worker() -> list[int]:
        lines = moves.read_text().split() if moves.exists() else []
        return sorted(lines.count(pid) for pid in set(lines))

    try:
        per_game = 3 * 9  # the slow seat's moves in a game of two players: 3 rounds of 10 cards, the last one not asked
        # each worker past its first game and into its second
        wait_until(lambda: moves_by_worker()[:1] >= [per_game + 3] or proc.poll() is not None, "a game each")
        assert proc.poll() is None and len(moves_by_worker()) == 2
        send(proc, signum, to_group=signum == signal.SIGINT)
        out, err = finish(proc)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == status, err
    summary = json.loads(out)
    records = complete_records(log)
    finished = sum(moves_by_worker()) // per_game
    assert sum(moves_by_worker()) % per_game == 0  # every game a worker began was played to its end
    assert summary["interrupted"] is True and summary["games"] == len(records) == finished >= 4
    assert err.rstrip().splitlines()[-1] == f"interrupted after {finished} of 40 games"
    seeds = {game_seed(3, i): i for i in range(40)}
    assert sorted(seeds[r["seed"]] for r in records)[:2] == [0, 1]  # each chunk's first games, kept
    assert related(proc.pid) == []


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_ctrl_c_while_the_kernel_compiles_ends_with_the_summary_of_no_game(
    monkeypatch, capsys, signal_handlers, as_json
):
    """Ctrl-C while a run's kernel compiles in the foreground (a long first run of a rule file just edited): the
    run starts stopped, as after a Ctrl-C just before it, and says so: "interrupted after 0 of N games" (the
    JSON document with interrupted true and no game), status 130; it printed only "interrupted"."""
    from ruledraft.cli import app as app_module
    from ruledraft.cli import interrupts
    from ruledraft.play import engines

    def compiling(*args, **kwargs):
        interrupts.PENDING = signal.SIGINT  # as the command line's handler notes it, then raises
        stop = KeyboardInterrupt()
        stop.signum = signal.SIGINT  # as the wait for the compiling child raises it
        raise stop

    monkeypatch.setattr(engines, "choose_engine", compiling)
    args = ["ruledraft", "simulate", "sushi-go", "-g", "200000", "--jobs", "2", "-q"] + (["--json"] if as_json else [])
    monkeypatch.setattr(sys, "argv", args)
    with pytest.raises(SystemExit) as leaving:
        app_module.main()
    out, err = capsys.readouterr()
    assert leaving.value.code == 130, err
    assert err.rstrip().splitlines()[-1] == "interrupted after 0 of 200000 games"
    if as_json:
        summary = json.loads(out)
        assert (summary["games"], summary["interrupted"], summary["games_requested"]) == (0, True, 200000)
    else:
        assert out.startswith("0 games in ")
