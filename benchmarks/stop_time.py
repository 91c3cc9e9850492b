"""How long ``ruledraft simulate`` takes to stop after Ctrl-C.

Starts a long simulation (``--jobs 1``, ``2`` and one per processor), lets it run for a
moment, sends SIGINT to its process group (as a terminal's Ctrl-C does) or to its main
process only, and prints the seconds until the process has exited with everything
reaped. The target is about a second at any ``--jobs``. Figures only: nothing is
asserted.

    python3 benchmarks/stop_time.py [--runs 3] [--bots greedy,random] [--warm 1.5]
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def leftovers(pid: int) -> int:
    """Processes still in the stopped simulation's process group."""
    count = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            text = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2 :].split()
        if int(fields[2]) == pid and int(entry) != pid:
            count += 1
    return count


def one_stop(jobs: int, to_group: bool, bots: str, warm: float, folder: str) -> tuple:
    log = os.path.join(folder, f"stop-{jobs}.jsonl")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ruledraft",
            "simulate",
            "sushi-go",
            "--games",
            "10000000",
            "--jobs",
            str(jobs),
            "--bots",
            bots,
            "-q",
            "--json",
            "--log",
            log,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not (os.path.exists(log) and os.path.getsize(log) > 0):
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise SystemExit(f"simulate did not start: {proc.communicate()[1].decode(errors='replace')}")
        time.sleep(0.02)
    time.sleep(warm)
    sent = time.perf_counter()
    if to_group:
        os.killpg(proc.pid, signal.SIGINT)
    else:
        os.kill(proc.pid, signal.SIGINT)
    try:
        proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        return float("inf"), proc.returncode, leftovers(proc.pid)
    return time.perf_counter() - sent, proc.returncode, leftovers(proc.pid)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--bots", default="greedy,random")
    parser.add_argument("--warm", type=float, default=1.5, help="seconds to let it run before the signal")
    args = parser.parse_args()
    cores = len(os.sched_getaffinity(0))
    print(f"seconds from SIGINT to exit ({args.runs} runs each, {cores} processors, bots {args.bots})")
    print(f"{'jobs':>5} {'signal to':<14} {'median':>7} {'max':>7}  exit  left over")
    with tempfile.TemporaryDirectory() as folder:
        for jobs in sorted({1, 2, cores}):
            for to_group in (True, False):
                runs = [one_stop(jobs, to_group, args.bots, args.warm, folder) for _ in range(args.runs)]
                times = [t for t, _, _ in runs]
                codes = sorted({c for _, c, _ in runs})
                left = sum(n for _, _, n in runs)
                print(
                    f"{jobs:>5} {'process group' if to_group else 'main process':<14} "
                    f"{statistics.median(times):>7.2f} {max(times):>7.2f}  {','.join(map(str, codes)):<5} {left}"
                )


if __name__ == "__main__":
    main()
