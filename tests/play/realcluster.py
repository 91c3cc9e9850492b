"""A Dask scheduler and workers started as separate processes (as from the shell), each
in its own directory, on 127.0.0.1 only."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import attrs

WAIT = 60  # seconds; generous, only so that a broken build fails instead of hanging
DASK = str(Path(sys.executable).with_name("dask"))


@attrs.define
class RealCluster:
    address: str
    scheduler: subprocess.Popen
    workers: list[subprocess.Popen]
    dirs: list[Path]

    def worker_pids(self) -> list[int]:
        """The process ids of the workers: the children of their nannies that play, not
        multiprocessing's resource tracker (a nanny starts its worker from another of
        its threads: each thread's children are listed apart)."""
        out = []
        for proc in self.workers:
            for children in Path(f"/proc/{proc.pid}/task").glob("*/children"):
                for pid in children.read_text().split():
                    try:
                        line = Path(f"/proc/{pid}/cmdline").read_bytes()
                    except OSError:
                        continue
                    if b"resource_tracker" not in line:
                        out.append(int(pid))
        return out


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=WAIT)


@contextlib.contextmanager
def real_cluster(root: Path, workers: int = 2, preload: Sequence[str] = ()) -> Iterator[RealCluster]:
    """``dask scheduler`` and ``workers`` ``dask worker`` processes (one thread each), each
    in its own directory under ``root``; ``preload``: a module each worker imports first."""
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL, "start_new_session": True}
    (root / "scheduler").mkdir(parents=True)
    info = root / "scheduler" / "scheduler.json"
    scheduler = subprocess.Popen(
        [DASK, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(info)],
        cwd=root / "scheduler",
        **quiet,
    )
    started = [scheduler]
    try:
        deadline = time.monotonic() + WAIT
        while not info.exists() or not info.read_text():
            assert time.monotonic() < deadline and scheduler.poll() is None, "the scheduler did not start"
            time.sleep(0.1)
        time.sleep(0.1)  # the file is written whole
        address = json.loads(info.read_text())["address"]
        dirs = []
        for n in range(workers):
            where = root / f"worker{n}"
            where.mkdir()
            dirs.append(where)
            extra = [arg for module in preload for arg in ("--preload", module)]
            started.append(
                subprocess.Popen(
                    [DASK, "worker", address, "--nthreads", "1", "--host", "127.0.0.1", "--no-dashboard"]
                    + ["--local-directory", str(where), "--name", f"w{n}", *extra],
                    cwd=where,
                    **quiet,
                )
            )
        from distributed import Client

        with Client(address, timeout=WAIT) as client:
            if workers:  # (none: a scheduler alone)
                client.wait_for_workers(workers, timeout=WAIT)
        yield RealCluster(address, scheduler, started[1:], dirs)
    finally:
        for proc in started:
            _stop(proc)
