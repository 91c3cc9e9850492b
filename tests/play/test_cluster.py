"""Simulations on a Dask cluster: the same figures and the same log as ``--jobs 1``, a
worker killed mid-run, a scheduler that cannot be reached, ``--cluster local:2`` end to
end, Ctrl-C, and the message without the ``dask`` extra."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from paths import EXAMPLES
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.language.loading import check_ruleset
from ruledraft.play.cluster import INSTALL_HINT, chunk_size, run_on_cluster
from ruledraft.play.runner import game_seed
from ruledraft.play.runner import simulate as run_simulation

WAIT = 120  # seconds; generous, only so that a broken build fails instead of hanging
TIMING_KEYS = ("elapsed_seconds", "games_per_second")


def run_cli(*args):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


def without_timing(text: str) -> dict:
    data = json.loads(text)
    for key in TIMING_KEYS:
        data.pop(key)
    return data


def test_cluster_gives_the_same_summary_and_log_as_local_processes(client, tmp_path):
    """--scheduler prints the same summary (timing aside) and writes the same log, byte for byte, as --jobs 1 and --jobs 2."""
    args = ["simulate", "sushi-go", "-p", 3, "-g", 150, "-s", 11, "--bots", "greedy,random", "--json", "-q"]
    outputs = []
    for name, extra in (
        ("jobs1", ["--jobs", 1]),
        ("jobs2", ["--jobs", 2]),
        ("dask", ["--scheduler", client.scheduler.address]),
    ):
        log = tmp_path / f"{name}.jsonl"
        result = run_cli(*args, *extra, "--log", log)
        assert result.exit_code == 0, result.output
        outputs.append((without_timing(result.stdout), log.read_bytes()))
    assert outputs[0][0]["games"] == 150 and outputs[0][1].count(b"\n") == 150
    assert outputs[2] == outputs[0]
    assert outputs[1] == outputs[0]


def test_cluster_tally_without_a_log_equals_jobs_1(client):
    """Without a log only the tally reduced on the cluster comes back, and its summary equals --jobs 1's."""
    checked = check_ruleset("sushi-go-soy-sauce")
    bots = ["random", "greedy", "random", "random"]
    games = 700
    assert games // chunk_size(games, 2, log=False) >= 16  # many chunks: a real tree of merges
    seen = []
    tally = run_on_cluster(client, checked.document, 4, bots, games, 3, progress=seen.append)
    assert sum(seen) == games and len(seen) == -(-games // chunk_size(games, 2, log=False))
    local = run_simulation(checked.ruleset, 4, games, 3, bots)
    assert tally.summary(checked.ruleset.id, 4, 3, bots) == local


def test_a_worker_killed_mid_run_loses_and_repeats_nothing(client):
    """kill -9 of a worker during a run: its chunks are played again, the log holds each game once, in order, and the figures equal --jobs 1."""
    checked = check_ruleset("sushi-go")
    bots = ["greedy", "random", "random"]
    games = 320
    victim = max(worker_pids(client))
    records = []
    killed = []

    def progress(n: int) -> None:
        if not killed:  # the first chunk is in: most of the run is still to come
            os.kill(victim, signal.SIGKILL)
            killed.append(victim)

    tally = run_on_cluster(client, checked.document, 3, bots, games, 21, on_record=records.append, progress=progress)
    assert killed == [victim]
    local = []
    summary = run_simulation(checked.ruleset, 3, games, 21, bots, log=True, on_result=lambda r: local.append(r.record))
    assert [r["seed"] for r in records] == [game_seed(21, i) for i in range(games)]
    assert records == local
    assert tally.summary(checked.ruleset.id, 3, 21, bots) == summary
    deadline = time.monotonic() + WAIT  # the scheduler learns of the death (a new worker takes its place)
    while victim in (pids := worker_pids(client)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert victim not in pids


def worker_pids(client) -> set:
    """The process ids of the cluster's workers (a worker starting or going away may not answer yet;
    one killed but not yet struck off is given up on after a second, not Dask's 30 s of reconnecting)."""
    import dask

    try:
        with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
            return set(client.run(os.getpid, on_error="ignore").values())
    except Exception:  # noqa: BLE001 - asked again a moment later
        return set()


def closed_port() -> int:
    """A local TCP port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_wrong_scheduler_address_is_a_one_line_error():
    """--scheduler with nothing listening: one line naming the address and the connect timeout, exit 1, no traceback."""
    address = f"tcp://127.0.0.1:{closed_port()}"
    result = run_cli("simulate", "sushi-go", "-g", 10, "-q", "--scheduler", address)
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: cannot reach the Dask scheduler at {address} within 5 s: "), lines[0]


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("notaurl", "(it names no port)"),
        ("tcp://127.0.0.1:\u00b2", "(it names no port)"),
        ("http://127.0.0.1:8786", "(http:// is not one of tcp, tls"),
    ],
)
def test_a_scheduler_address_of_the_wrong_form_says_what_the_form_is(address, why):
    """--scheduler with no port (a superscript is no port) or a web address: one line giving the form of a Dask address, before anything is asked of it; exit 2, a command line that cannot be used."""
    result = run_cli("simulate", "sushi-go", "-g", 10, "-q", "--scheduler", address)
    assert result.exit_code == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith("error: a Dask scheduler's address is tcp://HOST:PORT (8786 unless") and why in line
    assert f"not {address} " in line and "answers" not in line


MY_BOT = """
class Last:
    def __init__(self, seed):
        self.name = "last"

    def act(self, state, seat):
        return state.legal_actions(seat)[-1]
"""


def test_cluster_local_2_runs_end_to_end_with_a_plugin_and_a_file_bot(tmp_path):
    """--cluster local:2 from the command line, with a --plugin scoring kind and a FILE.py:CLASS bot, prints and logs what --jobs 1 does."""
    (tmp_path / "my_bot.py").write_text(MY_BOT, encoding="utf-8")
    plugin = EXAMPLES / "plugins" / "longest_run.py"
    rules = EXAMPLES / "plugins" / "sushi-go-conveyor.yaml"
    runs = {}
    for name, extra in (("dask", ["--cluster", "local:2"]), ("local", [])):
        proc = subprocess.run(
            [sys.executable, "-m", "ruledraft", "--plugin", str(plugin), "simulate", str(rules), "-p", "3"]
            + ["-g", "40", "-s", "4", "--bots", "my_bot.py:Last,random", "-q", "--log", f"{name}.jsonl", *extra],
            capture_output=True,
            text=True,
            timeout=WAIT,
            cwd=tmp_path,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stderr == ""
        runs[name] = proc.stdout.splitlines()
    assert runs["dask"][-2].endswith("games/s, local Dask cluster of 2 workers)")
    assert runs["local"][-2].endswith("games/s, 1 job)")
    assert any("│ conveyor " in line for line in runs["dask"]) and "my_bot.py:Last" in "".join(runs["dask"])
    assert runs["dask"][:-2] == runs["local"][:-2]
    assert (tmp_path / "dask.jsonl").read_bytes() == (tmp_path / "local.jsonl").read_bytes()


@pytest.mark.parametrize(("stop", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_a_local_clusters_group_summarises_the_finished_chunks(tmp_path, stop, code):
    """SIGINT (Ctrl-C) or SIGTERM (`timeout`, `kill -- -PGID`) to the whole process group: exit 130 or 143 within
    seconds, the summary counts exactly the logged games, and no worker is left."""
    log = tmp_path / "games.jsonl"
    games = 1_000_000
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "simulate", "sushi-go", "-p", "3", "-g", str(games), "-s", "7"]
        + ["--bots", "random", "--cluster", "local:2", "--json", "-q", "--log", str(log)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + WAIT
        while not (log.exists() and log.stat().st_size > 0) and proc.poll() is None:
            assert time.monotonic() < deadline, "no game was logged"
            time.sleep(0.05)
        assert proc.poll() is None, proc.communicate()
        os.killpg(proc.pid, stop)
        sent = time.monotonic()
        out, err = proc.communicate(timeout=WAIT)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == code, err
    assert took < 8, f"{took:.1f} s from the signal to the exit"
    summary = json.loads(out)
    n = summary["games"]
    assert err.splitlines() == [f"interrupted after {n} of {games} games"]
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert 0 < n < games and len(records) == n
    assert sorted(r["seed"] for r in records) == sorted({r["seed"] for r in records})
    for seat in summary["seats"]:
        assert sum(r["totals"][seat["seat"]] for r in records) / n == pytest.approx(seat["mean"])
    deadline = time.monotonic() + WAIT  # the workers leave with their nannies (zombies aside: reaped by init)
    while (left := alive_in_group(proc.pid)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert left == []


def _stops_ignored() -> tuple[bool, bool]:
    return (signal.getsignal(signal.SIGINT) == signal.SIG_IGN, signal.getsignal(signal.SIGTERM) == signal.SIG_IGN)


def test_the_workers_of_a_local_cluster_leave_sigint_and_sigterm_to_the_run():
    """--cluster local:N's workers ignore SIGINT and SIGTERM (a signal to the group would kill them and the results
    they hold, which Dask then computes again before the run can end); this process's own handlers are as before."""
    from ruledraft.play.cluster import connect

    before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))
    with connect(local_workers=2) as client:
        assert set(client.run(_stops_ignored).values()) == {(True, True)}
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before


def test_a_local_clusters_workers_give_a_peer_that_does_not_answer_seconds_not_half_a_minute():
    """--cluster local:N's workers wait 5 s (not Dask's 30) for a peer to answer: a worker killed mid-run
    held results the others fetch, and they ask the scheduler for them again only after that long."""
    import dask

    from ruledraft.play.cluster import connect

    with connect(local_workers=2) as client:
        waits = client.run(dask.config.get, "distributed.comm.timeouts.connect")
    assert list(waits.values()) == ["5s", "5s"]


def alive_in_group(pgid: int) -> list[str]:
    """``pid command`` of the processes in the group that are still running (not zombies)."""
    ps = subprocess.run(["ps", "-o", "pid=,stat=,args=", "-g", str(pgid)], capture_output=True, text=True)
    return [line for line in ps.stdout.splitlines() if line.split()[1][0] != "Z"]


BLOCKED = """
import sys
sys.modules["distributed"] = None  # as if the dask extra were not installed
from ruledraft.cli.app import main
sys.argv = ["ruledraft", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("option", [["--cluster", "local:2"], ["--scheduler", "tcp://10.0.0.5:8786"]])
def test_without_dask_the_cluster_options_say_how_to_install_it(option):
    """Without dask importable, --cluster and --scheduler say in one line how to install the extra, exit 2."""
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKED, "simulate", "sushi-go", "-g", "5", *option],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"error: {INSTALL_HINT}\n"
    assert INSTALL_HINT == "running on a Dask cluster needs the dask extra: pip install 'ruledraft[dask]'"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--cluster", "local:2", "--scheduler", "tcp://a:1"],
            "error: --scheduler and --cluster exclude each other: give one",
        ),
        (
            ["--cluster", "local:2", "--jobs", "2"],
            "error: --jobs does not apply to a Dask cluster (its workers run the games): leave it out",
        ),
        (
            ["--cluster", "remote:2"],
            "error: --cluster takes local:N (N worker processes on this machine), not 'remote:2'",
        ),
        (
            ["--cluster", "local:0"],
            "error: --cluster takes local:N (N worker processes on this machine), not 'local:0'",
        ),
    ],
)
def test_wrong_cluster_options_are_one_line_messages(args, message):
    """A wrong combination or a --cluster that is not local:N is refused in one line, exit 2, before anything starts."""
    result = run_cli("simulate", "sushi-go", "-g", 5, *args)
    assert result.exit_code == 2
    assert result.stderr == message + "\n"


def test_simulate_help_names_the_cluster_options_and_the_extra():
    """simulate --help lists --scheduler ADDRESS and --cluster local:N, each naming the ruledraft[dask] extra as written."""
    result = CliRunner().invoke(app, ["simulate", "--help"], terminal_width=200, env={"COLUMNS": "200"})
    assert result.exit_code == 0
    lines = {line.split()[1]: line for line in result.stdout.splitlines() if line.startswith("│ --")}
    assert "ADDRESS" in lines["--scheduler"] and "needs ruledraft[dask]." in lines["--scheduler"]
    assert "local:N" in lines["--cluster"] and "needs ruledraft[dask]." in lines["--cluster"]


BOOM_BOT = """
class Boom:
    def __init__(self, seed):
        self.name = "boom"

    def act(self, state, seat):
        raise RuntimeError("no move today")
"""


def test_a_bot_failing_on_a_worker_is_the_message_it_is_locally(client, tmp_path):
    """A file bot that raises on a worker ends the run with the message --jobs 1 gives (bot, seat, a game's seed), exit 1."""
    bot = tmp_path / "boom.py"
    bot.write_text(BOOM_BOT, encoding="utf-8")
    args = ["simulate", "sushi-go", "-p", 2, "-g", 20, "-q", "--bots", f"random,{bot}:Boom"]
    remote = run_cli(*args, "--scheduler", client.scheduler.address)
    local = run_cli(*args)
    said = f"error: bot '{bot}:Boom' at seat 1 raised RuntimeError: no move today (game seed {{}})\n"
    assert (local.exit_code, local.stderr) == (1, said.format(game_seed(0, 0)))
    assert remote.exit_code == 1  # the first chunk to fail may be any game's
    assert remote.stderr in {said.format(game_seed(0, i)) for i in range(20)}
