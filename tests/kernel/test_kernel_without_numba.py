"""Where numba cannot be installed (it is a dependency on CPython only), every run plays
on the reference engine, and a run that asks for the kernel says why in one line."""

from __future__ import annotations

import json
import subprocess
import sys

WITHOUT_NUMBA = """
import sys
sys.modules["numba"] = None  # as if numba could not be installed
from ruledraft.cli.launch import main
sys.argv = ["ruledraft", *sys.argv[1:]]
main()
"""

RUN = ["simulate", "sushi-go", "--players", "4", "--games", "1000", "--seed", "3", "--bots", "random", "--json"]


def _ruledraft(*args: str, numba: bool = True) -> subprocess.CompletedProcess[str]:
    start = [sys.executable, "-c", WITHOUT_NUMBA] if not numba else [sys.executable, "-m", "ruledraft"]
    return subprocess.run([*start, *args], capture_output=True, text=True, timeout=600, check=False)


def test_engine_kernel_without_numba_is_refused_in_one_line():
    """--engine kernel without numba exits 2 with one line naming numba and the engines that still run."""
    proc = _ruledraft(*RUN, "--engine", "kernel", numba=False)
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert proc.stderr == (
        "error: the kernel cannot play this: numba is not installed (pip install numba) "
        "(use --engine reference or auto)\n"
    )


def test_auto_without_numba_plays_the_reference_games_and_says_so():
    """--engine auto without numba says in one line that the reference engine plays, and prints its very figures."""
    without = _ruledraft(*RUN, numba=False)
    reference = _ruledraft(*RUN, "--engine", "reference")
    assert without.returncode == reference.returncode == 0
    assert without.stderr == "engine: reference (numba is not installed (pip install numba))\n"
    figures, expected = (_timeless(json.loads(p.stdout)) for p in (without, reference))
    assert figures == expected
    assert figures["games"] == 1000  # NOTE_GAMES: the fewest for which auto names why


def _timeless(summary: dict) -> dict:
    """A --json summary without the two figures that depend on the clock."""
    return {k: v for k, v in summary.items() if k not in ("elapsed_seconds", "games_per_second")}
