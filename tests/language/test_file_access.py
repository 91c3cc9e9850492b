"""What a rule file may reach, and every input path: FIFOs, devices, sockets and paths the
system refuses are one-line messages with the exit status of bad input; ``extends:`` and a
log's ruleset stay inside their directory unless ``--allow-path`` widens it; a file that is
not a rule file is never shown; ``-`` and ``<(...)`` are read once."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from paths import ROOT
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.errors import InputError
from ruledraft.language.bundled import NotFound, OutOfReach, bundled_path, resolve_source
from ruledraft.language.file_access import UnreadableInput, input_kind, read_input, within
from ruledraft.language.loading import check_ruleset

STEP7 = ROOT / "examples" / "tutorial" / "step7.yaml"
STEP7_OK = "ok: Fruit Stand (fruit-stand 1.0): 2-4 players, 9 card types, 90 cards, 3 rounds, 8 scoring rules"
SUSHI_OK = "ok: C (c 1.0): 2-5 players, 12 card types, 108 cards, 3 rounds, 7 scoring rules"
FIFO_REASON = "is a named pipe (FIFO), not a file; to read a pipe, give - and send it to standard input"
SECRETS = ["root:x:0:0:SECRET-root-line:/root:/bin/bash", "api_token: SECRET-hunter2", "id: SECRET-id-line"]

runner = CliRunner()


def invoke(*args, input=None):
    return runner.invoke(app, [str(a) for a in args], input=input)


def cli(*args, user=None, cwd=None, input=None, shell=False):
    """The installed command in a process of its own (generous timeout: a hang fails, never blocks)."""
    command = [sys.executable, "-c", "from ruledraft.cli.app import main; main()", *map(str, args)]
    if user is not None:
        command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd=cwd, input=input)


def bash(script, cwd=None):
    """A bash command line (for process substitution), ``$RULEDRAFT`` being the command."""
    env = dict(os.environ, RULEDRAFT=f"{sys.executable} -c 'from ruledraft.cli.app import main; main()'")
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


def child(directory: Path, extends: str, name: str = "c.yaml") -> Path:
    path = directory / name
    path.write_text(f"format: 1\nextends: {extends}\nid: c\nname: C\n", encoding="utf-8")
    return path


def record_for(tmp_path: Path, ruleset_file: str) -> Path:
    """A log of one game of a non-bundled ruleset whose record names ``ruleset_file``."""
    log = tmp_path / "games.jsonl"
    assert invoke("simulate", "sushi-go", "--games", 1, "-q", "--log", log, "--players", 2).exit_code == 0
    record = json.loads(log.read_text(encoding="utf-8"))  # well formed, so replay goes on to find its ruleset
    record.update(ruleset="not-bundled", ruleset_file=ruleset_file)
    log.write_text(json.dumps(record) + "\n", encoding="utf-8")
    return log


# ------------------------------------------------------------------ FIFOs, devices, sockets


COMMANDS = {
    "validate": lambda f: ["validate", f],
    "show": lambda f: ["show", f],
    "simulate": lambda f: ["simulate", f, "--games", "2", "-q"],
    "score (ruleset)": lambda f: ["score", f, STEP7],
    "score (table)": lambda f: ["score", "sushi-go", f],
    "replay": lambda f: ["replay", f],
    "play": lambda f: ["play", f, "--players", "2"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_named_fifo_is_refused_by_every_command_without_waiting(tmp_path, command):
    """A named FIFO with no writer, given to any command, is a one-line error and exit 2 (no open that waits)."""
    fifo = tmp_path / "rules.yaml"
    os.mkfifo(fifo)
    proc = cli(*COMMANDS[command](fifo))
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == f"error: {fifo}: {FIFO_REASON}\n"


def test_extends_naming_a_fifo_is_an_error_at_the_extends_line(tmp_path):
    """A parent that is a FIFO is reported at the child's extends line, without waiting for a writer."""
    os.mkfifo(tmp_path / "parent.yaml")
    path = child(tmp_path, "parent.yaml")
    proc = cli("validate", path)
    assert (proc.returncode, proc.stdout) == (1, f"{path}:2:10: error: cannot read 'parent.yaml': {FIFO_REASON}\n")


def test_a_log_whose_ruleset_names_a_fifo_is_reported_not_waited_on(tmp_path):
    """replay of a record whose ruleset file is a FIFO says so for that record and exits 1."""
    fifo = tmp_path / "rules.yaml"
    os.mkfifo(fifo)
    log = record_for(tmp_path, str(fifo))
    proc = cli("replay", log)
    assert proc.returncode == 1
    assert proc.stderr == f"{log}:1: error: cannot load ruleset '{fifo}': {fifo}: {FIFO_REASON}\n"
    assert proc.stdout == "1 game replayed, 0 clean, 1 with problems\n"


@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero", "/dev/full"])
@pytest.mark.parametrize("command", ["validate", "show"])
def test_devices_are_not_rule_files(device, command):
    """A character device is refused by name with exit 2, never read (/dev/zero would never end)."""
    if not os.path.exists(device):
        pytest.skip(f"no {device} here")
    result = invoke(command, device)
    assert (result.exit_code, result.stdout) == (2, "")
    assert result.stderr == f"error: {device}: is a device, not a file\n"


def test_a_device_as_a_score_table_is_refused():
    """score with /dev/zero as its table fails at once with exit 2."""
    result = invoke("score", "sushi-go", "/dev/zero")
    assert (result.exit_code, result.stderr) == (2, "error: /dev/zero: is a device, not a file\n")


def test_extends_a_device_even_when_allowed_is_refused(tmp_path):
    """extends: /dev/zero with --allow-path /dev is still no file: one error at the extends line."""
    path = child(tmp_path, "/dev/zero")
    result = invoke("validate", path, "--allow-path", "/dev")
    assert (result.exit_code, result.stdout) == (
        1,
        f"{path}:2:10: error: cannot read '/dev/zero': is a device, not a file\n",
    )


def test_a_socket_is_refused(tmp_path):
    """A Unix socket given as a rule file is a one-line error and exit 2."""
    path = Path(tempfile.mkdtemp()) / "s.yaml"  # short: socket names have a length limit
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        result = invoke("show", path)
    finally:
        server.close()
        shutil.rmtree(path.parent)
    assert (result.exit_code, result.stderr) == (2, f"error: {path}: is a socket, not a file\n")


# ------------------------------------------------------------------ paths the system refuses


def test_a_path_through_a_file_is_not_a_directory(tmp_path):
    """ENOTDIR: a path that goes through a file says so, exit 2, for a rule file, a table and a log."""
    through = tmp_path / "rules.yaml" / "x.yaml"
    (tmp_path / "rules.yaml").write_text("format: 1\n", encoding="utf-8")
    for args in (["validate", through], ["show", through], ["score", "sushi-go", through], ["replay", through]):
        result = invoke(*args)
        assert (result.exit_code, result.stderr) == (
            2,
            f"error: {through}: cannot read: a part of the path is not a directory\n",
        ), args


def test_a_name_too_long_is_a_message_not_an_internal_error(tmp_path):
    """ENAMETOOLONG: a huge name is cut short in a one-line message, exit 2 (it used to be exit 70)."""
    name = "r" * 5000 + ".yaml"
    shown = "r" * 60 + "...(5005 characters)"
    for args in (["validate", name], ["simulate", name, "-q"], ["score", "sushi-go", name], ["replay", name]):
        proc = cli(*args, cwd=tmp_path)
        assert (proc.returncode, proc.stderr) == (2, f"error: {shown}: cannot read: the name is too long\n"), args


def test_a_symlink_loop_is_named_as_such(tmp_path):
    """ELOOP: a link loop is "too many levels of symbolic links", not "no such file", exit 2; as a parent, at the extends line."""
    (tmp_path / "a.yaml").symlink_to(tmp_path / "b.yaml")
    (tmp_path / "b.yaml").symlink_to(tmp_path / "a.yaml")
    loop = tmp_path / "a.yaml"
    result = invoke("validate", loop)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {loop}: cannot read: too many levels of symbolic links (a link loop?)\n",
    )
    path = child(tmp_path, "a.yaml")
    result = invoke("validate", path)
    assert (result.exit_code, result.stdout) == (
        1,
        f"{path}:2:10: error: cannot read 'a.yaml': too many levels of symbolic links (a link loop?)\n",
    )


def without_file_permissions(*args: str) -> subprocess.CompletedProcess:
    """Run the command line so that file modes bind it: as root (CI), with the capabilities that bypass them dropped."""
    command = [sys.executable, "-c", "from ruledraft.cli.app import main; main()", *args]
    if os.geteuid() == 0:
        drop = "-dac_override,-dac_read_search"
        command = ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=120, cwd="/")


def test_permission_denied_is_its_own_message(tmp_path):
    """EACCES: a file in a directory that may not be entered, and a file that may not be read, are exit 2 "permission denied"."""
    closed = tmp_path / "closed"
    closed.mkdir()
    shutil.copy(STEP7, closed / "rules.yaml")
    shutil.copy(STEP7, tmp_path / "rules.yaml")
    os.chmod(closed, 0)
    os.chmod(tmp_path / "rules.yaml", 0)
    try:
        for path in (closed / "rules.yaml", tmp_path / "rules.yaml"):
            for args in (["validate", path], ["show", path], ["score", "sushi-go", path], ["replay", path]):
                proc = without_file_permissions(*map(str, args))
                assert (proc.returncode, proc.stderr) == (2, f"error: {path}: cannot read: permission denied\n"), args
    finally:
        os.chmod(closed, 0o755)


def test_an_unreadable_parent_is_permission_denied_at_the_extends_line(tmp_path):
    """EACCES: a parent that may not be read is "cannot read ... permission denied" at the extends line, not "not a rule file"."""
    shutil.copy(STEP7, tmp_path / "parent.yaml")
    os.chmod(tmp_path / "parent.yaml", 0)
    path = child(tmp_path, "parent.yaml")
    proc = without_file_permissions("validate", str(path))
    assert (proc.returncode, proc.stdout) == (1, f"{path}:2:10: error: cannot read 'parent.yaml': permission denied\n")


# ------------------------------------------------------------------ what extends: may reach


@pytest.fixture
def outside(tmp_path):
    """``tmp_path/outside/`` holding a valid ``base.yaml`` and a ``secret`` that is not a rule file; ``tmp_path/rules/`` for children."""
    out = tmp_path / "outside"
    out.mkdir()
    shutil.copy(STEP7, out / "base.yaml")
    (out / "secret").write_text("\n".join(SECRETS) + "\n", encoding="utf-8")
    (out / "secret.yaml").write_text("\n".join(SECRETS) + "\n", encoding="utf-8")
    (tmp_path / "rules").mkdir()
    return out


def test_extends_an_absolute_path_is_refused_unless_allowed(tmp_path, outside):
    """extends: /abs/path is refused at the extends line; --allow-path on its directory lets it through."""
    path = child(tmp_path / "rules", str(outside / "base.yaml"))
    result = invoke("validate", path)
    assert (result.exit_code, result.stdout) == (
        1,
        (
            f"{path}:2:10: error: '{outside / 'base.yaml'}' is an absolute path; this file may name only a bundled ruleset "
            "or a file in its own directory; allow a directory with --allow-path DIR\n"
        ),
    )
    result = invoke("validate", path, "--allow-path", outside)
    assert (result.exit_code, result.stdout) == (0, f"{path}: {STEP7_OK.replace('Fruit Stand (fruit-stand', 'C (c')}\n")


def test_extends_climbing_out_with_dot_dot_is_refused_unless_allowed(tmp_path, outside):
    """extends: ../outside/base.yaml (and sub/../../ forms) is refused; --allow-path widens it."""
    (tmp_path / "rules" / "sub").mkdir()
    for name in ("../outside/base.yaml", "sub/../../outside/base.yaml"):
        path = child(tmp_path / "rules", name)
        result = invoke("validate", path)
        assert (result.exit_code, result.stdout) == (
            1,
            (
                f"{path}:2:10: error: '{name}' is outside the directory of this file ('..' may not climb above it); "
                "allow a directory with --allow-path DIR\n"
            ),
        ), name
        assert invoke("validate", path, "--allow-path", outside).exit_code == 0


def test_extends_a_symlink_out_of_the_directory_is_refused_unless_allowed(tmp_path, outside):
    """A link beside the child that points outside is refused (links are followed); --allow-path on the target's directory allows it."""
    (tmp_path / "rules" / "base.yaml").symlink_to(outside / "base.yaml")
    path = child(tmp_path / "rules", "base.yaml")
    result = invoke("validate", path)
    assert (result.exit_code, result.stdout) == (
        1,
        (
            f"{path}:2:10: error: 'base.yaml' is a symbolic link to a file outside the directory of this file; "
            "allow a directory with --allow-path DIR\n"
        ),
    )
    assert invoke("validate", path, "--allow-path", outside).exit_code == 0


def test_extends_inside_the_directory_and_links_inside_it_are_fine(tmp_path):
    """A parent in a subdirectory, or a link to a file inside the directory, is in reach without any option."""
    (tmp_path / "sub").mkdir()
    shutil.copy(STEP7, tmp_path / "sub" / "base.yaml")
    (tmp_path / "link.yaml").symlink_to(tmp_path / "sub" / "base.yaml")
    for name in ("sub/base.yaml", "link.yaml", "./sub/../link.yaml"):
        result = invoke("validate", child(tmp_path, name))
        assert result.exit_code == 0, (name, result.output)


@pytest.mark.parametrize("parent", ["secret", "secret.yaml"])
@pytest.mark.parametrize("show_source", [False, True])
def test_a_file_that_is_not_a_rule_file_is_never_shown(tmp_path, outside, parent, show_source):
    """extends: a passwd-like file (allowed) is one error "is not a rule file"; none of its text appears, with or without --show-source."""
    path = child(tmp_path / "rules", f"../outside/{parent}")
    args = ["validate", path, "--allow-path", outside] + (["--show-source"] if show_source else [])
    result = invoke(*args)
    head = f"{path}:2:10: error: '../outside/{parent}' is not a rule file"
    assert result.exit_code == 1
    assert result.stdout == (
        head + f"\n    extends: ../outside/{parent}\n             ^\n" if show_source else head + "\n"
    )
    for text in ["SECRET", "hunter2", "root:x"] + SECRETS:
        assert text not in result.stdout + result.stderr


def test_a_file_that_is_not_a_rule_file_is_not_shown_without_allow_path_either(tmp_path, outside):
    """Out of reach, the secret file is not even read: only its name, as written in the child, is in the message."""
    path = child(tmp_path / "rules", str(outside / "secret"))
    result = invoke("validate", path, "--show-source")
    assert result.exit_code == 1
    assert "is an absolute path" in result.stdout
    assert "SECRET" not in result.stdout + result.stderr


def test_a_log_whose_ruleset_is_not_a_rule_file_never_shows_it(tmp_path, outside):
    """replay of a record whose ruleset file is a secret file says "is not a rule file" and shows none of it."""
    shutil.copy(outside / "secret", tmp_path / "secret")
    log = record_for(tmp_path, str(tmp_path / "secret"))
    result = invoke("replay", log)
    assert result.exit_code == 1
    assert (
        result.stderr
        == f"{log}:1: error: cannot load ruleset '{tmp_path / 'secret'}': '{tmp_path / 'secret'}' is not a rule file\n"
    )
    assert "SECRET" not in result.stdout + result.stderr


def test_a_log_may_not_reach_outside_its_directory(tmp_path, outside, monkeypatch):
    """A record's ruleset file outside the log's directory (and the current one) is refused; --allow-path lets it through."""
    logs = tmp_path / "logs"
    logs.mkdir()
    monkeypatch.chdir(logs)
    log = record_for(logs, str(outside / "secret"))
    result = invoke("replay", log)
    assert result.exit_code == 1
    assert result.stderr == (
        f"{log}:1: error: cannot load ruleset '{outside / 'secret'}': '{outside / 'secret'}' is an absolute path; the log may "
        "name only a bundled ruleset or a file in its own directory; allow a directory with --allow-path DIR "
        "(or give the ruleset with --ruleset FILE)\n"
    )
    result = invoke("replay", log, "--allow-path", outside)
    assert (
        result.stderr
        == f"{log}:1: error: cannot load ruleset '{outside / 'secret'}': '{outside / 'secret'}' is not a rule file\n"
    )


def test_a_log_of_a_rule_file_replays_with_allow_path(tmp_path, outside, monkeypatch):
    """simulate --log in another directory, then replay: refused, clean with --allow-path on the rule file's directory."""
    logs = tmp_path / "logs"
    logs.mkdir()
    monkeypatch.chdir(logs)
    log = logs / "games.jsonl"
    assert invoke("simulate", outside / "base.yaml", "--games", 3, "-q", "--log", log, "--players", 2).exit_code == 0
    assert invoke("replay", log).exit_code == 1
    result = invoke("replay", log, "--allow-path", outside)
    assert (result.exit_code, result.stdout) == (0, "3 games replayed, 3 clean, 0 with problems\n")


def test_allow_path_must_be_a_directory(tmp_path):
    """--allow-path naming a missing path or a file is a bad argument: exit 2 and a message, on every command that takes it."""
    missing = tmp_path / "nope"
    for args in (
        ["validate", STEP7],
        ["show", "sushi-go"],
        ["simulate", "sushi-go", "-q"],
        ["score", "sushi-go", "-"],
        ["replay", missing],
        ["play", "sushi-go", "-p", "2"],
    ):
        result = invoke(*args, "--allow-path", missing)
        assert (result.exit_code, result.stderr) == (
            2,
            f"error: --allow-path {missing}: cannot read: no such file\n".replace("cannot read: ", ""),
        ), args
    result = invoke("validate", STEP7, "--allow-path", STEP7)
    assert (result.exit_code, result.stderr) == (2, f"error: --allow-path {STEP7}: not a directory\n")


def test_allow_path_is_in_the_help_of_every_command_that_loads_rule_files():
    """validate, show, simulate, score, replay and play document --allow-path DIR."""
    for command in ("validate", "show", "simulate", "score", "replay", "play"):
        result = invoke(command, "--help")
        assert "--allow-path" in result.stdout and "DIR" in result.stdout, command


# ------------------------------------------------------------------ bundled id or file: which wins


def test_a_bundled_id_wins_over_a_file_of_the_same_name_beside_the_child(tmp_path):
    """extends: sushi-go means the bundled ruleset even with sushi-go.yaml beside the child, and a warning says so."""
    shutil.copy(STEP7, tmp_path / "sushi-go.yaml")
    path = child(tmp_path, "sushi-go")
    result = invoke("validate", path)
    assert (result.exit_code, result.stdout) == (
        0,
        (
            f"{path}:2:10: warning: 'sushi-go' is the bundled ruleset; the file 'sushi-go.yaml' beside this one is not used "
            "(write 'extends: ./sushi-go.yaml' to extend the file)\n"
            f"{path}: {SUSHI_OK}\n"
        ),
    )


def test_a_copy_of_the_bundled_file_beside_the_child_is_no_warning(tmp_path):
    """With an exact copy of the bundled sushi-go.yaml beside the child (a checkout's rulesets/), which one is used makes no difference: no warning."""
    from ruledraft.language.bundled import rulesets_dir

    shutil.copy(rulesets_dir() / "sushi-go.yaml", tmp_path / "sushi-go.yaml")
    path = child(tmp_path, "sushi-go")
    result = invoke("validate", path)
    assert (result.exit_code, result.stdout) == (0, f"{path}: {SUSHI_OK}\n")


def test_the_local_file_is_reached_by_its_file_name(tmp_path):
    """extends: ./sushi-go.yaml (or sushi-go.yaml) means the local file, with no warning."""
    shutil.copy(STEP7, tmp_path / "sushi-go.yaml")
    for name in ("./sushi-go.yaml", "sushi-go.yaml"):
        path = child(tmp_path, name)
        result = invoke("validate", path)
        assert (result.exit_code, result.stdout) == (
            0,
            f"{path}: {STEP7_OK.replace('Fruit Stand (fruit-stand', 'C (c')}\n",
        ), name


def test_a_bundled_id_wins_on_the_command_line_too(tmp_path, monkeypatch):
    """The command line resolves as extends does: sushi-go is the bundled ruleset even if ./sushi-go exists; ./sushi-go is the file."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(STEP7, tmp_path / "sushi-go")
    assert resolve_source("sushi-go") == bundled_path("sushi-go")
    result = invoke("validate", "./sushi-go")
    assert (result.exit_code, result.stdout) == (0, f"{tmp_path / 'sushi-go'}: {STEP7_OK}\n")


def test_the_resolver_finds_bare_names_as_yaml_files_and_reports_what_is_missing(tmp_path):
    """A bare name that is not bundled is NAME.yaml in the base directory; a missing one is NotFound with a did-you-mean."""
    shutil.copy(STEP7, tmp_path / "fruit.yaml")
    assert resolve_source("fruit", base=tmp_path) == tmp_path / "fruit.yaml"
    with pytest.raises(
        NotFound,
        match=r"^no ruleset 'sushi-goo': not a file, nor a bundled ruleset \(did you mean 'sushi-go'\?\); bundled: sushi-go, ",
    ):
        resolve_source("sushi-goo", base=tmp_path)
    with pytest.raises(NotFound, match=r"^nope/x.yaml: no such file$"):
        resolve_source("nope/x.yaml", base=tmp_path)
    with pytest.raises(OutOfReach):
        resolve_source(str(tmp_path / "fruit.yaml"), base=tmp_path)
    assert resolve_source(str(tmp_path / "fruit.yaml"), base=tmp_path, allow=[tmp_path]) == tmp_path / "fruit.yaml"


def test_within_follows_links_and_never_matches_a_sibling_prefix(tmp_path):
    """within() compares real paths by whole components: /x/ab is not inside /x/a."""
    (tmp_path / "a").mkdir()
    (tmp_path / "ab").mkdir()
    (tmp_path / "a" / "up").symlink_to(tmp_path / "ab")
    assert within(tmp_path / "a" / "f.yaml", [tmp_path / "a"])
    assert not within(tmp_path / "ab" / "f.yaml", [tmp_path / "a"])
    assert not within(tmp_path / "a" / "up" / "f.yaml", [tmp_path / "a"])


# ------------------------------------------------------------------ directories, standard input, pipes


def test_validate_a_directory_checks_its_rule_files_in_order(tmp_path):
    """validate DIR checks DIR's *.yaml and *.yml (not other files, not subdirectories, nor a subdirectory
    named like a rule file) in sorted order."""
    shutil.copy(STEP7, tmp_path / "b.yaml")
    shutil.copy(STEP7, tmp_path / "a.yml")
    (tmp_path / "notes.txt").write_text("not a rule file", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    shutil.copy(STEP7, tmp_path / "sub" / "c.yaml")
    (tmp_path / "old.yaml").mkdir()
    result = invoke("validate", tmp_path)
    assert (result.exit_code, result.stdout) == (
        0,
        f"{tmp_path / 'a.yml'}: {STEP7_OK}\n{tmp_path / 'b.yaml'}: {STEP7_OK}\n",
    )


def test_validate_a_directory_without_rule_files_says_so(tmp_path):
    """validate of a directory with no *.yaml or *.yml is exit 2 and says there are none; other commands say it is a directory."""
    result = invoke("validate", tmp_path)
    assert (result.exit_code, result.stderr) == (
        2,
        f"error: {tmp_path}: no rule files (*.yaml, *.yml) in this directory\n",
    )
    result = invoke("show", tmp_path)
    assert (result.exit_code, result.stderr) == (2, f"error: {tmp_path}: is a directory\n")


def test_validate_reports_a_bad_argument_with_exit_2_and_still_checks_the_rest(tmp_path):
    """A missing file among good ones: the good ones are checked, the missing one is named, exit 2."""
    missing = tmp_path / "nope.yaml"
    result = invoke("validate", STEP7, missing)
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        f"{STEP7}: {STEP7_OK}\n",
        f"error: {missing}: no such file\n",
    )


def test_standard_input_is_a_rule_file_named_stdin():
    """validate - reads the rule file from standard input and calls it <stdin>."""
    result = invoke("validate", "-", input=STEP7.read_text(encoding="utf-8"))
    assert (result.exit_code, result.stdout) == (0, f"<stdin>: {STEP7_OK}\n")
    result = invoke("validate", "-", input="format: 1\nid: [\n")
    assert result.exit_code == 1 and result.stdout.startswith("<stdin>:3:1: error: ")


def test_standard_input_cannot_feed_two_things_at_once():
    """score - -, validate - - and play - are refused with a message (one standard input); simulate - --jobs 2 reads it once and runs."""
    assert (
        invoke("score", "-", "-").stderr
        == "error: the ruleset and the table cannot both be read from standard input (-)\n"
    )
    result = invoke("validate", "-", "-", input=STEP7.read_text(encoding="utf-8"))
    assert (result.exit_code, result.stdout, result.stderr) == (
        2,
        "",
        "error: standard input (-) can be read only once: give - once\n",
    )
    result = invoke("play", "-", "-p", "2")
    assert result.exit_code == 2 and result.stderr.startswith("error: play reads your moves from standard input")
    result = invoke(
        "simulate",
        "-",
        "--jobs",
        "2",
        "-q",
        "--games",
        "6",
        "-p",
        "3",
        "--json",
        input=STEP7.read_text(encoding="utf-8"),
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["games"] == 6


def test_process_substitution_is_read_once_by_validate():
    """validate <(cat rules.yaml): an open pipe is an input, read once in the main process."""
    proc = bash(f'eval "$RULEDRAFT" validate "<(cat {STEP7})"')
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("/dev/fd/") and proc.stdout.endswith(f": {STEP7_OK}\n")


def test_process_substitution_works_with_simulate_on_two_processes():
    """simulate <(cat rules.yaml) --jobs 2: the workers see the text the main process read, and agree with --jobs 1."""
    one = bash(f'eval "$RULEDRAFT" simulate "<(cat {STEP7})" --jobs 1 --games 30 --players 3 --json -q')
    two = bash(f'eval "$RULEDRAFT" simulate "<(cat {STEP7})" --jobs 2 --games 30 --players 3 --json -q')
    assert (one.returncode, two.returncode) == (0, 0), two.stderr
    drop = ("elapsed_seconds", "games_per_second", "jobs")
    a, b = json.loads(one.stdout), json.loads(two.stdout)
    assert {k: v for k, v in a.items() if k not in drop} == {k: v for k, v in b.items() if k not in drop}
    assert a["games"] == 30


def test_process_substitution_with_extends_resolves_in_the_current_directory(tmp_path):
    """A rule file from a pipe has no directory of its own: its extends: is resolved in the current directory."""
    shutil.copy(STEP7, tmp_path / "base.yaml")
    proc = bash(
        'eval "$RULEDRAFT" validate "<(printf \'format: 1\\nextends: base.yaml\\nid: c\\nname: C\\n\')"', cwd=tmp_path
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.endswith(f": {STEP7_OK.replace('Fruit Stand (fruit-stand', 'C (c')}\n")


# ------------------------------------------------------------------ the library functions


def test_input_kind_never_opens_and_read_input_caps_the_size(tmp_path):
    """input_kind classifies by stat alone; read_input returns at most limit + 1 bytes."""
    fifo = tmp_path / "f"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableInput) as info:
        input_kind(fifo)
    assert (info.value.reason, info.value.os_error) == (FIFO_REASON, False)
    assert isinstance(info.value, InputError)
    big = tmp_path / "big.yaml"
    big.write_bytes(b"x" * 100)
    assert input_kind(big) == "file"
    assert read_input(big, 10) == b"x" * 11


def test_check_ruleset_raises_input_error_for_an_unusable_path(tmp_path):
    """check_ruleset: a directory is InputError (a bad argument), never a diagnostic about its content."""
    with pytest.raises(UnreadableInput, match=r": is a directory$"):
        check_ruleset(tmp_path)


def test_simulate_on_several_processes_with_allow_path_agrees_with_one(tmp_path, outside):
    """simulate --jobs 2 of a child that needs --allow-path runs (the workers never re-read files) and agrees with --jobs 1."""
    path = child(tmp_path / "rules", "../outside/base.yaml")
    runs = [
        invoke("simulate", path, "--allow-path", outside, "--jobs", jobs, "--games", 4, "-q", "-p", 2, "--json")
        for jobs in (1, 2)
    ]
    assert [r.exit_code for r in runs] == [0, 0], runs[1].stderr
    one, two = (json.loads(r.stdout) for r in runs)
    assert one["games"] == two["games"] == 4 and one["seats"] == two["seats"]


def test_a_file_given_directly_that_is_not_a_rule_file_is_one_error_showing_none_of_it(tmp_path):
    """validate /etc/shadow-like text: one 'not a rule file' error at 1:1, none of its text, with or without --show-source or JSON."""
    secret = tmp_path / "shadow"
    secret.write_text("root:$6$s3cr3t:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n", encoding="utf-8")
    expected = (
        f"{secret}:1:1: error: not a rule file: its top level has none of the keys a rule file has "
        "(format, id, name, extends, cards, scoring, ...)\n"
    )
    for extra in ([], ["--show-source"]):
        result = invoke("validate", *extra, secret)
        assert (result.exit_code, result.stdout) == (1, expected)
    result = invoke("validate", "--format", "json", secret)
    assert result.exit_code == 1 and "s3cr3t" not in result.stdout and "daemon" not in result.stdout
    for command in (["show", secret], ["simulate", secret, "-q"], ["score", secret, "-"]):
        result = invoke(*command)
        assert result.exit_code == 1 and "s3cr3t" not in result.output and "daemon" not in result.output, command


def test_every_command_that_uses_a_ruleset_shows_its_warnings(tmp_path, monkeypatch):
    """The warning that a bundled id shadows a file beside the child reaches stderr from show, simulate and score too, not only validate."""
    changed = bundled_path("sushi-go").read_text(encoding="utf-8") + "# a local change\n"
    (tmp_path / "sushi-go.yaml").write_text(changed, encoding="utf-8")
    (tmp_path / "s.yaml").write_text("format: 1\nextends: sushi-go\nid: s\nname: S\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    warning = (
        "s.yaml:2:10: warning: 'sushi-go' is the bundled ruleset; the file 'sushi-go.yaml' beside this one is not "
        "used (write 'extends: ./sushi-go.yaml' to extend the file)\n"
    )
    table = tmp_path / "t.json"
    table.write_text('{"rounds": [[["maki_3"], ["maki_2"]]]}', encoding="utf-8")
    for command in (
        ["show", "s.yaml"],
        ["simulate", "s.yaml", "-g", "2", "-q", "-p", "2"],
        ["score", "s.yaml", table, "--partial"],
    ):
        result = invoke(*command)
        assert (result.exit_code, result.stderr) == (0, warning), command


def test_a_copy_of_a_bundled_ruleset_replays_against_its_own_file(tmp_path, monkeypatch):
    """A rule file that keeps a bundled id but changes the deck replays against the file it was played from, not the bundled one."""
    text = bundled_path("sushi-go").read_text(encoding="utf-8")
    assert "count: 14" in text
    (tmp_path / "mysushi.yaml").write_text(text.replace("count: 14", "count: 13"), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert invoke("simulate", "mysushi.yaml", "-g", 2, "-q", "--log", "my.jsonl").exit_code == 0
    result = invoke("replay", "my.jsonl")
    assert (result.exit_code, result.stdout) == (0, "2 games replayed, 2 clean, 0 with problems\n")
