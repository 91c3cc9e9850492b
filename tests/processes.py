"""Waiting on the processes a test starts by the work they have done, never by the clock:
on a busy machine a wall-clock wait (``time.sleep(4)  # some games finish``) may end
before the process has even started (Linux: read from /proc)."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable
from pathlib import Path

#: only so that a hang fails instead of blocking the run
HANG = 120


def cpu_seconds(pid: int) -> float:
    """The processor time (user and system) a process has used so far; 0 once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text[text.rindex(")") + 2 :].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def until_busy(proc, pids, seconds: float) -> None:
    """Wait until ``pids`` have used ``seconds`` of processor time together (that much work
    is done however busy the machine is); fails if ``proc`` ends first or after HANG s."""
    deadline = time.monotonic() + HANG
    while sum(cpu_seconds(pid) for pid in pids) < seconds:
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"no work done in {HANG} s"
        time.sleep(0.05)


def until_exists(proc, path: Path) -> None:
    """Wait until ``path`` exists (a file the process makes once it is where the test
    wants it); fails if ``proc`` ends first or after HANG s."""
    deadline = time.monotonic() + HANG
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} not made in {HANG} s"
        time.sleep(0.05)


def interrupted(proc, ready: Callable[[], None], signum: int = signal.SIGINT) -> tuple[str, str]:
    """``proc``'s standard output and error after ``signum`` (SIGINT), sent once ``ready()``
    returns; the process is killed if the test fails before it ends."""
    try:
        ready()
        proc.send_signal(signum)
        return proc.communicate(timeout=HANG)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


#: a bot file that says it was asked (a file named ``asked`` beside it) and then sleeps
SLEEPING_BOT = """
import pathlib, time

class Sleepy:
    name = "sleepy"

    def __init__(self, seed=0):
        pass

    def act(self, view, seat):
        pathlib.Path({asked!r}).touch()
        time.sleep(300)
"""


def sleeping_bot(folder: Path) -> tuple[str, Path]:
    """A bot spec for ``--bots`` whose first move never ends (while a test waits), and
    the file that appears once a game has asked it: a run stopped then has finished no game."""
    asked = folder / "asked"
    bot = folder / "sleepy.py"
    bot.write_text(SLEEPING_BOT.format(asked=str(asked)))
    return f"{bot}:Sleepy", asked
