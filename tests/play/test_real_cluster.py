"""The cluster path as a real cluster runs it: a ``dask scheduler`` and ``dask worker``
processes started apart, each in its own directory, the command run from a third
with relative paths; the same output and log as ``--jobs 1``, byte for byte, and
one-line messages for what goes wrong."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from processes import cpu_seconds, until_busy
from realcluster import WAIT, real_cluster

pytest.importorskip("distributed")

pytestmark = pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs /proc")

EXAMPLES = Path(__file__).resolve().parent.parent.parent / "examples"

LAST_BOT = """
class Last:
    def __init__(self, seed):
        self.name = "last"

    def act(self, state, seat):
        return state.legal_actions(seat)[-1]
"""


def command(*args, cwd: Path, timeout: float = WAIT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "ruledraft", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def without_timing(text: str) -> list[str]:
    """The output but for the line of timings (games/s, where it ran) and the log's name."""
    return [line for line in text.splitlines() if "games/s" not in line and not line.startswith("log: ")]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A scheduler and two workers for the module, and a client directory holding a rule
    file (extending a bundled ruleset) and a bot file, both named relatively."""
    root = tmp_path_factory.mktemp("cluster")
    with real_cluster(root / "dask") as running:
        client = root / "client"
        client.mkdir()
        shutil.copy(EXAMPLES / "sushi-go-party-soy-sauce.yaml", client / "rules.yaml")
        (client / "last_bot.py").write_text(LAST_BOT, encoding="utf-8")
        yield running, client


def test_simulate_log_on_a_real_cluster_equals_jobs_1_byte_for_byte(cluster):
    """simulate --log with a relative rule file and a relative FILE.py:CLASS bot: the same
    summary and log as --jobs 1, each record naming the client's rule file, and the log replays."""
    running, client = cluster
    args = ["simulate", "rules.yaml", "-p", 3, "-g", 300, "-s", 3, "--bots", "last_bot.py:Last,greedy,random", "-q"]
    local = command(*args, "--log", "local.jsonl", cwd=client)
    remote = command(*args, "--log", "remote.jsonl", "--scheduler", running.address, cwd=client)
    assert local.returncode == remote.returncode == 0, remote.stderr
    assert remote.stderr == ""
    assert without_timing(remote.stdout) == without_timing(local.stdout)
    assert (client / "remote.jsonl").read_bytes() == (client / "local.jsonl").read_bytes()
    assert f'"ruleset_file":"{client / "rules.yaml"}"' in (client / "remote.jsonl").read_text(encoding="utf-8")
    replayed = command("replay", client / "remote.jsonl", cwd=running.dirs[0])
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr


def test_compare_on_a_real_cluster_prints_what_jobs_1_prints(cluster):
    """compare --scheduler with a relative rule file prints exactly what --jobs 1 prints."""
    running, client = cluster
    args = ["compare", "rules.yaml", "--bots", "greedy", "--bots-b", "random", "-p", 3, "-g", 200, "-s", 5, "-q"]
    local = command(*args, cwd=client)
    remote = command(*args, "--scheduler", running.address, cwd=client)
    assert local.returncode == remote.returncode == 0, remote.stderr
    assert remote.stderr == ""
    assert remote.stdout == local.stdout


def test_sweep_on_a_real_cluster_prints_what_jobs_1_prints(cluster):
    """sweep --scheduler with a relative rule file and bot file prints exactly what --jobs 1 prints."""
    running, client = cluster
    args = ["sweep", "rules.yaml", "-p", "2-4", "--bots", "last_bot.py:Last,random", "-g", 150, "-s", 2, "--json", "-q"]
    local = command(*args, cwd=client)
    remote = command(*args, "--scheduler", running.address, cwd=client)
    assert local.returncode == remote.returncode == 0, remote.stderr
    assert remote.stderr == ""
    assert remote.stdout == local.stdout


@pytest.mark.parametrize("how", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_stop_signal_in_compare_on_a_real_cluster_keeps_the_finished_pairs(cluster, how):
    """Ctrl-C or SIGTERM in compare --scheduler: the pairs finished are compared, 'interrupted after N of G games', exit 128 + signal."""
    running, client = cluster
    workers = running.worker_pids()
    before = sum(cpu_seconds(pid) for pid in workers)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "compare", "rules.yaml", "--bots-b", "random", "-g", "1000000", "-q"]
        + ["--scheduler", running.address, "--engine", "reference"],  # no kernel compiled first: games from the start
        cwd=client,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # some chunks finish (each 1-2 s of a worker's time): by the work done, not the clock,
        # which on a busy machine can run out before the first chunk does
        until_busy(proc, workers, before + 8)
        proc.send_signal(how)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + how, err
    lines = out.splitlines()
    played = int(lines[2].split()[0])
    assert lines[2] == f"{played} games a side" and 0 < played < 1_000_000
    assert lines[-1] == f"interrupted after {played} of 1000000 games"
    assert err == f"interrupted after {played} of 1000000 games\n"


READS_ITS_DIRECTORY = """
open("settings.txt").close()  # found where the command runs, not where a worker runs


class Reader:
    def __init__(self, seed):
        self.name = "reader"

    def act(self, state, seat):
        return state.legal_actions(seat)[0]
"""


def test_a_bot_that_fails_on_a_worker_says_it_was_a_worker(cluster):
    """A bot file the client loads but a worker cannot: one line saying which worker, exit 1, no Dask log lines."""
    running, client = cluster
    (client / "reader.py").write_text(READS_ITS_DIRECTORY, encoding="utf-8")
    (client / "settings.txt").write_text("", encoding="utf-8")
    result = command(
        "simulate",
        "rules.yaml",
        "-g",
        20,
        "-q",
        "--bots",
        "reader.py:Reader",
        "--scheduler",
        running.address,
        cwd=client,
    )
    assert result.returncode == 1
    assert result.stdout == ""
    assert re.fullmatch(
        r"error: on the Dask worker at tcp://127\.0\.0\.1:\d+: bot '.*reader\.py:Reader': .*reader\.py failed to import: "
        r"FileNotFoundError: .*'settings\.txt'\n",
        result.stderr,
    ), result.stderr


OTHER_VERSION = """
import ruledraft.version

ruledraft.version.__version__ = "0.0.0-other"
"""


def test_a_worker_of_another_version_is_refused_in_one_line(tmp_path):
    """A worker running another ruledraft version: simulate refuses to run, one line naming the worker and both versions, exit 1."""
    import ruledraft

    preload = tmp_path / "other_version.py"
    preload.write_text(OTHER_VERSION, encoding="utf-8")
    with real_cluster(tmp_path / "dask", workers=1, preload=[str(preload)]) as running:
        result = command("simulate", "sushi-go", "-g", 10, "-q", "--scheduler", running.address, cwd=tmp_path)
    assert result.returncode == 1
    assert result.stdout == ""
    assert re.fullmatch(
        rf"error: the Dask worker at tcp://127\.0\.0\.1:\d+ runs ruledraft 0\.0\.0-other, not {re.escape(ruledraft.__version__)} "
        r"as this client does: install the same version\n",
        result.stderr,
    ), result.stderr


HANGS_IN_ONE_DIRECTORY = """
import os
import time


class Stuck:
    def __init__(self, seed):
        self.name = "stuck"

    def act(self, state, seat):
        while os.path.exists("hang-here"):  # only the worker started in that directory
            time.sleep(1)
        return state.legal_actions(seat)[0]
"""


def test_a_hung_task_is_played_again_on_another_worker(tmp_path):
    """A worker that hangs: its tasks are played again elsewhere after the task time limit, and the tally equals --jobs 1."""
    from distributed import Client

    from ruledraft.language.loading import check_ruleset
    from ruledraft.play.cluster import run_on_cluster
    from ruledraft.play.runner import simulate

    bot = tmp_path / "stuck.py"
    bot.write_text(HANGS_IN_ONE_DIRECTORY, encoding="utf-8")
    bots = [f"{bot}:Stuck", "random", "random"]
    checked = check_ruleset("sushi-go")
    with real_cluster(tmp_path / "dask") as running:
        (running.dirs[0] / "hang-here").write_text("", encoding="utf-8")
        with Client(running.address, timeout=WAIT) as client:
            started = time.monotonic()
            tally = run_on_cluster(client, checked.document, 3, bots, 60, 8, task_time=3)
            took = time.monotonic() - started
    assert tally.summary("sushi-go", 3, 8, bots) == simulate(checked.ruleset, 3, 60, 8, bots)
    assert took < WAIT


def test_losing_the_scheduler_is_one_line(tmp_path):
    """The scheduler killed mid-run: one line saying the connection to it was lost, exit 1, within seconds."""
    with real_cluster(tmp_path / "dask") as running:
        proc = subprocess.Popen(
            [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-g", "1000000", "-q"]
            + ["--scheduler", running.address],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            time.sleep(5)
            os.killpg(running.scheduler.pid, signal.SIGKILL)
            out, err = proc.communicate(timeout=WAIT)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 1
    assert out == ""
    assert err == f"error: lost the connection to the Dask scheduler at {running.address} mid-run\n"


def test_a_worker_killed_mid_run_on_a_real_cluster_loses_and_repeats_nothing(cluster):
    """kill -9 of a worker process while simulate --log runs: the log and summary equal --jobs 1's."""
    running, client = cluster
    args = ["simulate", "rules.yaml", "-p", 4, "-g", 3000, "-s", 6, "--bots", "random", "-q"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", *map(str, args), "--log", "killed.jsonl", "--scheduler", running.address],
        cwd=client,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + WAIT
        log = client / "killed.jsonl"
        while not (log.exists() and log.stat().st_size) and proc.poll() is None:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        os.kill(running.worker_pids()[0], signal.SIGKILL)
        out, err = proc.communicate(timeout=WAIT)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    local = command(*args, "--log", "unkilled.jsonl", cwd=client)
    assert proc.returncode == 0, err
    assert without_timing(out) == without_timing(local.stdout)
    assert (client / "killed.jsonl").read_bytes() == (client / "unkilled.jsonl").read_bytes()


def test_a_scheduler_without_workers_says_the_run_waits_for_one(tmp_path, capsys):
    """A scheduler no worker has joined yet: one line on standard error naming it and how to
    start workers, and the run waits for them (it waited in silence, a progress bar at 0)."""
    from ruledraft.play import cluster as dask_cluster

    with real_cluster(tmp_path / "dask", workers=0) as running:
        with dask_cluster.connect(running.address) as client:
            assert client.nthreads() == {}
    assert capsys.readouterr().err == (
        f"waiting for a worker: the Dask scheduler at {running.address} has none yet "
        f"(start them with `dask worker {running.address}`; Ctrl-C stops)\n"
    )
