"""Run the console transcripts of the guides and compare them with real output, or rewrite them.

    python3 tests/update_guide.py           # rewrite every stale transcript in place
    python3 tests/update_guide.py --check   # only report; exit status 1 if any is stale

A transcript is a ```console block: lines starting with ``$ `` are commands, run with
bash from the repository root (``ruledraft`` is this Python's ``-m ruledraft``); the
lines after a command are its output (standard output and standard error together).
A line ``...`` stands for any number of output lines. A command ending in
``# fails on purpose: exit status N`` must exit with N, every other command with 0.
Commands that read standard input get a line ``1`` for every question (a player
who always types 1). Every console block of ``examples/README.md`` is a transcript;
in ``README.md`` only the blocks that show output are (the others list commands).

Only what must vary is normalised: timings (``1.64s``), speeds (``305 games/s``)
and absolute temporary paths (``/tmp/...`` in a command runs in a fresh
temporary folder, and its path is written back as ``/tmp``). When a transcript is
rewritten, a line whose normalised text did not change keeps its old text, and
``...`` elisions stay where they were: the lines before the first ``...`` are the
new output's first lines, the lines after the last are its last lines, and a part
between two ``...`` is found again by its first line.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import difflib
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from paths import ROOT

#: guide file -> whether every console block is a transcript (else only blocks showing output)
GUIDES = {"examples/README.md": True, "README.md": False}

ELISION = "..."
FAILS = re.compile(r"#\s*fails on purpose: exit status (\d+)\s*$")
STDIN = "1\n" * 500
TIMEOUT = 300  # seconds: only so that a hung command cannot hang the run

_TIMING = re.compile(r"\b\d[\d,]*(?:\.\d+)? ?(?:s|ms)\b")
_SPEED = re.compile(r"\b\d[\d,]*(?:\.\d+)? games/s\b")


@dataclass
class Command:
    text: str  # what follows "$ "
    status: int  # the exit status the guide promises
    expected: list = field(default_factory=list)  # the output lines shown (with "..." lines)


@dataclass
class Block:
    guide: str  # the guide's path, relative to the repository root
    first: int  # index (0-based) of the block's first line after the fence
    last: int  # index of its closing fence
    commands: list = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.guide}:{self.first + 1}"


@dataclass
class Run:
    command: Command
    status: int
    output: list  # the output lines, temporary paths written back as /tmp


# ---------------------------------------------------------------- reading the guides


def find_blocks(guide: str, text: str | None = None) -> list:
    """Every transcript in ``guide`` (a path relative to the repository root)."""
    if text is None:
        text = (ROOT / guide).read_text(encoding="utf-8")
    lines = text.split("\n")
    blocks = []
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```console":
            end = i + 1
            while end < len(lines) and lines[end].strip() != "```":
                end += 1
            block = Block(guide, i + 1, end)
            for line in lines[i + 1 : end]:
                if line.startswith("$ "):
                    status = FAILS.search(line)
                    block.commands.append(Command(line[2:], int(status.group(1)) if status else 0))
                elif block.commands:
                    block.commands[-1].expected.append(line.rstrip())
            shows_output = any(c.expected for c in block.commands)
            if block.commands and (GUIDES.get(guide, True) or shows_output):
                blocks.append(block)
            i = end
        i += 1
    return blocks


# ---------------------------------------------------------------- running them


def _environment(bindir: Path) -> dict:
    """The commands' environment: this one, with ``ruledraft`` first on the PATH, 80 columns and no colour."""
    env = dict(os.environ)
    for name in ("FORCE_COLOR", "CLICOLOR_FORCE", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        env.pop(name, None)
    env.update(
        {
            "PATH": f"{bindir}{os.pathsep}{env.get('PATH', '')}",
            "COLUMNS": "80",
            "LINES": "50",
            "NO_COLOR": "1",
            "TERM": "dumb",
            "LC_COLLATE": "C",
            "PYTHONUNBUFFERED": "1",
            "PYTHONIOENCODING": "utf-8",
        }
    )
    return env


def run_block(block: Block, tmp: Path, bindir: Path) -> list:
    """Run a block's commands in order, from the repository root; one :class:`Run` each."""
    env = _environment(bindir)
    runs = []
    for command in block.commands:
        script = "set -o pipefail\n" + command.text.replace("/tmp/", f"{tmp}/")
        try:
            done = subprocess.run(
                ["bash", "-c", script],
                cwd=ROOT,
                env=env,
                input=STDIN,
                text=True,
                encoding="utf-8",
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                timeout=TIMEOUT,
            )
            output, status = done.stdout, done.returncode
        except subprocess.TimeoutExpired:
            output, status = f"(no end after {TIMEOUT} s)", -1
        output = output.replace(str(tmp), "/tmp")
        runs.append(Run(command, status, [line.rstrip() for line in output.splitlines()]))
    return runs


# Starting Python and importing ruledraft takes most of a second, longer than most
# commands of the guide run; so a "zygote" process imports ruledraft once and forks
# a child for every command.  The ``ruledraft`` the shell finds is a small client
# that hands the zygote its standard input, output and error, its arguments,
# directory and environment, and exits with the child's status: each command still
# runs in a process of its own, on the very pipes bash gave it.

_CLIENT = """\
import json, os, socket, sys
with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
    s.connect(sys.argv[1])
    socket.send_fds(s, [b"F"], [0, 1, 2])
    s.sendall(json.dumps({"argv": sys.argv[2:], "cwd": os.getcwd(), "env": dict(os.environ)}).encode())
    s.shutdown(socket.SHUT_WR)
    reply = b""
    while True:
        chunk = s.recv(64)
        if not chunk:
            break
        reply += chunk
sys.exit(int(reply) if reply.strip() else 1)
"""


def serve(path: str) -> None:
    """The zygote: import ruledraft, then run every command sent to ``path`` in a forked child."""
    import io
    import json
    import signal
    import socket

    from ruledraft.cli.app import main as ruledraft_main
    from ruledraft.language.loading import load_ruleset

    try:  # build the parsers and the schema validator once, before forking
        load_ruleset("sushi-go")
    except Exception:  # noqa: BLE001 - a broken tree shows up in the commands themselves
        pass

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    for sig in (signal.SIGINT, signal.SIGTERM):  # whatever this process inherited: stoppable
        signal.signal(sig, signal.SIG_DFL)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path + ".new")
    server.listen(64)
    os.rename(path + ".new", path)  # the socket appears only once it listens
    while True:
        conn, _ = server.accept()
        _, fds, _, _ = socket.recv_fds(conn, 1, 3)
        data = b""
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
        if os.fork() == 0:
            server.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # a command may wait for processes of its own
            signal.alarm(TIMEOUT)  # a command that hangs must not outlive the run
            request = json.loads(data)
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
                os.close(fd)
            os.chdir(request["cwd"])
            os.environ.clear()
            os.environ.update(request["env"])
            sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
            sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", write_through=True)
            sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", write_through=True)
            sys.argv = ["ruledraft", *request["argv"]]
            status = 0
            try:
                ruledraft_main()
            except SystemExit as e:
                status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
                if not isinstance(e.code, (int, type(None))):
                    print(e.code, file=sys.stderr)
            except BaseException:  # noqa: BLE001 - reported like an uncaught error in a process
                import traceback

                traceback.print_exc()
                status = 1
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            finally:
                conn.sendall(str(status).encode())
                os._exit(status)
        for fd in fds:
            os.close(fd)
        conn.close()


def _zygote_possible() -> bool:
    import socket

    return hasattr(os, "fork") and hasattr(socket, "AF_UNIX") and hasattr(socket, "send_fds")


def run_all(blocks: list) -> dict:
    """Run every block (blocks in parallel, each block's commands in order): block index -> runs."""
    with tempfile.TemporaryDirectory(prefix="ruledraft-guide-") as tmp:
        tmp_path = Path(tmp)
        bindir = tmp_path / "bin"
        bindir.mkdir()
        work = tmp_path / "tmp"
        work.mkdir()
        shim = bindir / "ruledraft"
        zygote = None
        if _zygote_possible():
            sock = tmp_path / "zygote"
            client = tmp_path / "client.py"
            client.write_text(_CLIENT, encoding="utf-8")
            shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -S "{client}" "{sock}" "$@"\n', encoding="utf-8")
            zygote = subprocess.Popen(
                [sys.executable, str(Path(__file__).resolve()), "--serve", str(sock)],
                cwd=ROOT,
                env=_environment(bindir),
                stdin=subprocess.DEVNULL,
            )
            waited = 0.0
            while not sock.exists():
                if zygote.poll() is not None or waited > TIMEOUT:
                    raise RuntimeError("the command runner did not start")
                time.sleep(0.02)
                waited += 0.02
        else:
            shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ruledraft "$@"\n', encoding="utf-8")
        shim.chmod(0o755)
        try:
            workers = max(2, min(8, os.cpu_count() or 2))
            with concurrent.futures.ThreadPoolExecutor(workers) as pool:
                futures = {i: pool.submit(run_block, block, work, bindir) for i, block in enumerate(blocks)}
                return {i: f.result() for i, f in futures.items()}
        finally:
            if zygote is not None:
                zygote.terminate()
                try:
                    zygote.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    zygote.kill()
                    zygote.wait()


# ---------------------------------------------------------------- comparing


def normalise(line: str) -> str:
    """A line with what must vary from run to run (timings, speeds) replaced."""
    line = _SPEED.sub("N games/s", line.rstrip())
    return _TIMING.sub("Ts", line)


def _segments(expected: list) -> list:
    segments, current = [], []
    for line in expected:
        if line.strip() == ELISION:
            segments.append(current)
            current = []
        else:
            current.append(line)
    segments.append(current)
    return segments  # k elisions give k + 1 segments (possibly empty)


def _find(seg: list, actual: list, start: int) -> int:
    for at in range(start, len(actual) - len(seg) + 1):
        if all(normalise(s) == normalise(a) for s, a in zip(seg, actual[at : at + len(seg)])):
            return at
    return -1


def matches(expected: list, actual: list) -> bool:
    """Whether the output ``actual`` is what ``expected`` shows (``...`` lines stand for any lines)."""
    expected = list(expected)
    while expected and expected[-1] == "":
        expected.pop()
    actual = list(actual)
    while actual and actual[-1] == "":
        actual.pop()
    segments = _segments(expected)
    if len(segments) == 1:
        return len(expected) == len(actual) and _find(expected, actual, 0) == 0
    first, *middle, last = segments
    if _find(first, actual, 0) != 0:
        return False
    position = len(first)
    if len(actual) - len(last) < position or _find(last, actual, len(actual) - len(last)) != len(actual) - len(last):
        return False
    end = len(actual) - len(last)
    for seg in middle:
        at = _find(seg, actual[:end], position)
        if at < 0:
            return False
        position = at + len(seg)
    return True


def _keep_old(old: list, new: list) -> list:
    """``new``, except that lines equal to old ones once normalised keep their old text."""
    out = list(new)
    matcher = difflib.SequenceMatcher(None, [normalise(o) for o in old], [normalise(n) for n in new], autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            out[j1:j2] = old[i1:i2]
    return out


def refreshed(expected: list, actual: list) -> list | None:
    """The lines to show for ``actual``, keeping ``expected``'s elisions; None if a part cannot be placed."""
    if matches(expected, actual):
        return expected
    actual = list(actual)
    while actual and actual[-1] == "":
        actual.pop()
    segments = _segments(expected)
    if len(segments) == 1:
        return _keep_old(expected, actual)
    first, *middle, last = segments
    head = _keep_old(first, actual[: len(first)])
    tail = _keep_old(last, actual[len(actual) - len(last) :]) if last else []
    position, end = len(head), len(actual) - len(tail)
    out = list(head)
    for seg in middle:
        out.append(ELISION)
        if not seg:
            continue
        anchor = normalise(seg[0])
        at = next((i for i in range(position, end) if normalise(actual[i]) == anchor), -1)
        if at < 0:
            return None
        part = _keep_old(seg, actual[at : min(at + len(seg), end)])
        out += part
        position = at + len(part)
    out.append(ELISION)
    out += tail
    return out if matches(out, actual) else None


# ---------------------------------------------------------------- checking and rewriting


def check(guides=tuple(GUIDES)) -> list:
    """``(block, run, problem)`` for every command whose transcript is stale."""
    blocks = [b for g in guides for b in find_blocks(g)]
    results = run_all(blocks)
    problems = []
    for i, block in enumerate(blocks):
        for run in results[i]:
            if run.status != run.command.status:
                problems.append((block, run, f"exit status {run.status}, the guide says {run.command.status}"))
            elif not matches(run.command.expected, run.output):
                problems.append((block, run, "the output differs from the transcript"))
    return problems


def describe(block: Block, run: Run, problem: str) -> str:
    shown = "\n".join(f"    {line}" for line in run.output) or "    (nothing)"
    return f"{block.where}: $ {run.command.text}\n  {problem}; it prints:\n{shown}"


def update(guides=tuple(GUIDES)) -> tuple:
    """Rewrite the stale transcripts in place: ``(commands rewritten, problems left)``."""
    rewritten, left = [], []
    for guide in guides:
        path = ROOT / guide
        lines = path.read_text(encoding="utf-8").split("\n")
        blocks = find_blocks(guide, "\n".join(lines))
        results = run_all(blocks)
        for i in reversed(range(len(blocks))):  # from the end, so earlier line numbers hold
            block, runs = blocks[i], results[i]
            body, changed = [], False
            skip_block = False
            for run in runs:
                if run.status != run.command.status:
                    left.append(
                        describe(
                            block,
                            run,
                            f"exit status {run.status}, the guide says {run.command.status} (edit the guide by hand)",
                        )
                    )
                    skip_block = True
                    continue
                new = refreshed(run.command.expected, run.output)
                if new is None:
                    left.append(
                        describe(
                            block, run, "a part between '...' lines is no longer in the output (edit the guide by hand)"
                        )
                    )
                    skip_block = True
                    continue
                if new != run.command.expected:
                    changed = True
                    rewritten.append(f"{block.where}: $ {run.command.text}")
                body += ["$ " + run.command.text] + new
            if changed and not skip_block:
                old_body = lines[block.first : block.last]
                lead = old_body[: next(i for i, text in enumerate(old_body) if text.startswith("$ "))]
                lines[block.first : block.last] = lead + body
        text = "\n".join(lines)
        if text != path.read_text(encoding="utf-8"):
            path.write_text(text, encoding="utf-8")
    return rewritten, left


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only report stale transcripts; exit 1 if any")
    parser.add_argument("--serve", metavar="SOCKET", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.serve:
        serve(args.serve)
        return 0
    if args.check:
        problems = check()
        for block, run, problem in problems:
            print(describe(block, run, problem), end="\n\n")
        print(f"{len(problems)} stale transcript(s)" if problems else "every transcript matches")
        return 1 if problems else 0
    rewritten, left = update()
    for where in rewritten:
        print(f"rewritten: {where}")
    for problem in left:
        print(problem, end="\n\n", file=sys.stderr)
    print(f"{len(rewritten)} transcript(s) rewritten, {len(left)} left to edit by hand")
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main())
