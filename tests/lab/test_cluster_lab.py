"""``compare`` and ``sweep`` on a Dask cluster: the same output as ``--jobs 1``, the same
options, checks and messages as ``simulate``'s, and one cluster for a whole sweep."""

from __future__ import annotations

import socket
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.lab.compare import Side, comparison, pairing, play_sides, play_sides_on_cluster
from ruledraft.language.loading import check_ruleset
from ruledraft.play import cluster as cluster_module
from ruledraft.play.cluster import INSTALL_HINT, chunk_size

WAIT = 120  # seconds; generous, only so that a broken build fails instead of hanging
COMMANDS = {
    "simulate": ["simulate", "sushi-go", "-g", "5"],
    "compare": ["compare", "sushi-go", "--bots-b", "random", "-g", "5"],
    "sweep": ["sweep", "sushi-go", "-p", "2-3", "-g", "5"],
}


def run_cli(*args):
    result = CliRunner().invoke(app, [str(a) for a in args], env={"COLUMNS": "80"})
    assert "Traceback" not in result.output
    return result


@pytest.mark.parametrize(
    "args",
    [
        ["compare", "sushi-go", "--bots-b", "random", "-p", 3, "-g", 90, "-s", 5],
        ["compare", "sushi-go", "sushi-go-soy-sauce", "-g", 90, "-s", 2, "--json"],
    ],
    ids=["paired", "independent"],
)
def test_compare_on_a_cluster_prints_what_jobs_1_prints(client, args):
    """compare --scheduler prints exactly what --jobs 1 prints, paired (the table) and independent (the JSON)."""
    assert 90 // chunk_size(90, 2, log=False) >= 16  # many chunks: a real tree of merges
    local = run_cli(*args, "-q")
    remote = run_cli(*args, "-q", "--scheduler", client.scheduler.address)
    assert local.exit_code == 0, local.output
    assert remote.exit_code == 0, remote.output
    assert remote.stderr == local.stderr == ""
    assert remote.stdout == local.stdout
    assert "flagged (*) at 5% after Holm's correction" in local.stdout or '"rows"' in local.stdout


def test_compare_tally_reduced_on_the_cluster_equals_play_sides(client):
    """play_sides_on_cluster counts every game of both sides once and gives play_sides' comparison, with progress per side."""
    checked = check_ruleset("sushi-go")
    a = Side(checked.ruleset, 2, ["greedy", "random"], 8, label="A")
    b = Side(checked.ruleset, 2, ["random", "random"], 8, label="B")
    paired, why = pairing(a, b, False)
    assert paired
    seen = []
    remote = play_sides_on_cluster(
        a,
        b,
        (checked.document, checked.document),
        70,
        paired=True,
        scheduler=client.scheduler.address,
        progress=seen.append,
    )
    local = play_sides(a, b, 70, paired=True)
    assert sum(seen) == 70
    assert (remote.tally_a.games, remote.tally_b.games, remote.pairs.n) == (70, 70, 70)
    assert comparison(a, b, remote, why) == comparison(a, b, local, why)


def test_sweep_on_a_cluster_prints_what_jobs_1_prints(client):
    """sweep --scheduler prints exactly what --jobs 1 prints, every player count played on the one cluster."""
    args = ["sweep", "sushi-go", "-p", "2,4", "-g", 60, "-s", 9, "-q"]
    local = run_cli(*args)
    remote = run_cli(*args, "--scheduler", client.scheduler.address)
    assert local.exit_code == 0, local.output
    assert remote.exit_code == 0, remote.output
    assert remote.stdout == local.stdout
    assert "4 players" in local.stdout


def test_a_sweep_connects_once_for_every_count(client, monkeypatch):
    """sweep --scheduler opens one client for the whole sweep, not one per player count."""
    opened = []
    connect = cluster_module.connect

    def counting(*args, **kwargs):
        opened.append(args or kwargs)
        return connect(*args, **kwargs)

    monkeypatch.setattr(cluster_module, "connect", counting)
    result = run_cli(
        "sweep", "sushi-go", "-p", "2-4", "-g", 10, "-q", "--json", "--scheduler", client.scheduler.address
    )
    assert result.exit_code == 0, result.output
    assert len(opened) == 1


def closed_port() -> int:
    """A local TCP port nothing listens on (bound, then let go)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("command", ["compare", "sweep"])
def test_a_wrong_scheduler_address_is_the_one_line_error_simulate_gives(command):
    """compare and sweep with nothing listening at --scheduler: simulate's one line naming the address, exit 1."""
    address = f"tcp://127.0.0.1:{closed_port()}"
    result = run_cli(*COMMANDS[command], "-q", "--scheduler", address)
    assert result.exit_code == 1
    assert result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: cannot reach the Dask scheduler at {address} within 5 s: "), lines[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--cluster", "local:2", "--scheduler", "tcp://a:1"],
            "error: --scheduler and --cluster exclude each other: give one",
        ),
        (
            ["--scheduler", "tcp://a:1", "--jobs", "2"],
            "error: --jobs does not apply to a Dask cluster (its workers run the games): leave it out",
        ),
        (
            ["--cluster", "local:x"],
            "error: --cluster takes local:N (N worker processes on this machine), not 'local:x'",
        ),
    ],
)
@pytest.mark.parametrize("command", ["compare", "sweep"])
def test_wrong_cluster_options_are_simulate_s_messages(command, args, message):
    """compare and sweep refuse a wrong --scheduler/--cluster combination with simulate's one line, exit 2."""
    result = run_cli(*COMMANDS[command], *args)
    assert result.exit_code == 2
    assert result.stderr == message + "\n"


BLOCKED = """
import sys
sys.modules["distributed"] = None  # as if the dask extra were not installed
from ruledraft.cli.app import main
sys.argv = ["ruledraft", *sys.argv[1:]]
main()
"""


@pytest.mark.parametrize("command", ["compare", "sweep"])
def test_without_dask_compare_and_sweep_say_how_to_install_it(command):
    """Without dask importable, compare --cluster and sweep --cluster say in one line how to install the extra, exit 2."""
    proc = subprocess.run(
        [sys.executable, "-c", BLOCKED, *COMMANDS[command], "--cluster", "local:2"],
        capture_output=True,
        text=True,
        timeout=WAIT,
    )
    assert proc.returncode == 2
    assert proc.stderr == f"error: {INSTALL_HINT}\n"


def option_help(command: str) -> dict[str, str]:
    """The help text of each option of ``command --help`` (wide, so each fits one line)."""
    result = CliRunner().invoke(app, [command, "--help"], terminal_width=200, env={"COLUMNS": "200"})
    assert result.exit_code == 0
    out = {}
    for line in result.stdout.splitlines():
        words = line.strip("│ ").split()
        if words and words[0] in ("--scheduler", "--cluster"):
            out[words[0]] = " ".join(words)
    return out


@pytest.mark.parametrize("command", ["compare", "sweep"])
def test_compare_and_sweep_help_the_cluster_options_as_simulate_does(command):
    """compare --help and sweep --help list --scheduler ADDRESS and --cluster local:N with simulate's words."""
    mine, simulate = option_help(command), option_help("simulate")
    for option in ("--scheduler", "--cluster"):
        assert mine[option] == simulate[option]
    assert "ADDRESS" in mine["--scheduler"] and "needs ruledraft[dask]." in mine["--scheduler"]
    assert "local:N" in mine["--cluster"]
