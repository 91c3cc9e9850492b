"""``ruledraft tune`` given what a stranger gives it: options the ruleset cannot play, a
tuned file with nowhere to go, a full disk, marks in a parent, escape sequences in a
target, many marks at 80 columns, a mark's range as wide as the schema allows, a
terminal where the progress bar and the tries share the screen."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import pty
import re
import select
import shutil
import struct
import subprocess
import sys
import termios
import time

import pytest
from full_disk import full_disk_open
from paths import DATA, ROOT
from typer.testing import CliRunner

import ruledraft.lab.tune as tune_module
from ruledraft.cli import app as app_module
from ruledraft.cli.app import app

runner = CliRunner()
VARIANT = DATA / "tune" / "sushi-go-squid-12.yaml"
QUICK = ["-p", "2", "-b", "random", "-g", "4", "--budget", "1", "-q", "-t", "seats:5"]
#: as QUICK, but a target any start meets: the tuned file is written (the start values, its marks resolved)
WRITES = [*QUICK[:-1], "seats:50"]


@pytest.fixture
def variant(tmp_path):
    path = tmp_path / "variant.yaml"
    shutil.copy(VARIANT, path)
    return path


def invoke(*args, **kwargs):
    return runner.invoke(app, ["tune", *(str(a) for a in args)], **kwargs)


def test_players_the_ruleset_cannot_seat_are_refused_before_any_try(variant):
    """-p 9 on a 2-5 player game: one message and status 2 at once, not a search of unplayable tries."""
    result = invoke(variant, *QUICK, "-p", "9")
    assert result.exit_code == 2
    assert result.output.strip() == "error: Sushi Go! (squid nigiri worth 12) is for 2-5 players, not 9"
    assert sorted(p.name for p in variant.parent.iterdir()) == ["variant.yaml"]


@pytest.mark.parametrize("where", ["missing/out.yaml", "variant.yaml/out.yaml"], ids=["no folder", "under a file"])
def test_an_output_with_no_folder_to_go_in_is_refused_before_any_try(variant, where):
    """--output in a folder that does not exist (or under a file): refused before the search, nothing written."""
    target = variant.parent / where
    result = invoke(variant, *QUICK, "-o", target)
    assert result.exit_code == 2
    assert result.output.startswith(f"error: --output {target}: no directory ")
    assert "try" not in result.output
    assert sorted(p.name for p in variant.parent.iterdir()) == ["variant.yaml"]


def test_a_full_disk_ends_with_status_74_and_leaves_no_half_written_file(variant, monkeypatch, capsys):
    """The tuned file's write failing with ENOSPC: one line naming it, status 74, and no empty file left behind."""
    monkeypatch.setattr(tune_module, "open", full_disk_open("x"), raising=False)
    monkeypatch.setattr(sys, "argv", ["ruledraft", "tune", str(variant), *QUICK])
    with pytest.raises(SystemExit) as stop:
        app_module.main()
    assert stop.value.code == 74
    tuned = variant.with_name("variant.tuned.yaml")
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        f"ruledraft: cannot write {tuned}: No space left on device"
    )
    assert not tuned.exists()


def test_a_refused_write_ends_with_status_74_and_leaves_no_half_written_file(variant, monkeypatch, capsys):
    """The tuned file made and its write refused for another reason than room (EINVAL): status 74 naming it, as
    every output that could not be written (it was 2, as if the command line were wrong), and no file left."""
    monkeypatch.setattr(tune_module, "open", full_disk_open("x", error=errno.EINVAL), raising=False)
    monkeypatch.setattr(sys, "argv", ["ruledraft", "tune", str(variant), *QUICK])
    with pytest.raises(SystemExit) as stop:
        app_module.main()
    assert stop.value.code == 74
    tuned = variant.with_name("variant.tuned.yaml")
    assert capsys.readouterr().err.strip().splitlines()[-1] == f"error: cannot write {tuned}: Invalid argument"
    assert not tuned.exists()


def test_a_file_whose_parent_holds_the_marks_is_told_to_tune_the_parent(variant):
    """A child of a file with tune marks has none of its own: the message names the parent that has them."""
    child = variant.with_name("child.yaml")
    child.write_text("format: 1\nid: child\nname: Child\nextends: variant.yaml\n", encoding="utf-8")
    result = invoke(child, *QUICK)
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: {child} has no tune marks: the tune marks are in {variant}, which it extends "
        "(a parent's marks are read as their starts; tune that file)"
    )


@pytest.mark.parametrize(
    "target",
    ["cards:\x1b[31mx", "cards:5:\x1b[31mx", "seats:-1\x07", "points:\x1b]0;t\x07:3"],
    ids=["K", "card", "negative", "MEAN"],
)
def test_an_escape_sequence_in_a_target_reaches_the_terminal_as_text(variant, target):
    """A --target holding ESC or BEL is refused with them written as escapes, never sent raw to the terminal."""
    result = invoke(variant, *QUICK, "-t", target, color=True)  # color: nothing is stripped on the way
    assert result.exit_code == 2
    assert result.output.startswith("error: --target ")
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert "\\x1b" in result.output or "\\x07" in result.output


def test_a_cards_target_naming_no_card_says_to_name_some(variant):
    """`cards:5:` (the list left empty) asks for the cards, rather than saying there is no card ''."""
    result = invoke(variant, *QUICK, "-t", "cards:5:")
    assert result.exit_code == 2
    assert result.output.strip() == "error: --target cards:5:: name the cards after K (cards:K:CARD,CARD)"


def test_a_cards_target_with_an_empty_card_name_is_refused(variant):
    """`cards:8:squid_nigiri,,tempura` is refused (as `--bots greedy,,random` is), not read as two cards."""
    result = invoke(variant, *QUICK, "-t", "cards:8:squid_nigiri,,tempura")
    assert result.exit_code == 2
    assert (
        result.output.strip()
        == "error: --target cards:8:squid_nigiri,,tempura: a card name is empty (cards:K:CARD,CARD)"
    )


def test_an_output_elsewhere_is_refused_where_the_parent_would_not_be_found_from_there(tmp_path):
    """A file extending a file beside it, tuned into another folder: refused before any try (the tuned file
    would not validate there); a file extending a bundled ruleset is written there and validates."""
    (tmp_path / "out").mkdir()
    shutil.copy(ROOT / "rulesets" / "sushi-go.yaml", tmp_path / "base.yaml")
    child = tmp_path / "child.yaml"
    child.write_text(VARIANT.read_text(encoding="utf-8").replace("extends: sushi-go", "extends: base.yaml"))
    result = invoke(child, *QUICK, "-o", tmp_path / "out" / "tuned.yaml")
    assert result.exit_code == 2
    assert result.output.strip() == (
        f"error: --output {tmp_path / 'out' / 'tuned.yaml'}: the rule file extends 'base.yaml', which is found "
        f"from its own folder, not from {tmp_path / 'out'}: leave out --output to write the tuned file beside it"
    )
    assert list((tmp_path / "out").iterdir()) == []
    shutil.copy(VARIANT, tmp_path / "bundled.yaml")
    written = tmp_path / "out" / "bundled.yaml"
    assert invoke(tmp_path / "bundled.yaml", *QUICK, "-o", written).exit_code == 0
    assert runner.invoke(app, ["validate", str(written)]).exit_code == 0


def test_ten_marks_and_every_card_fit_80_columns(tmp_path):
    """Ten marks, every card targeted, an invalid try's message: no line printed wider than 80 columns."""
    text = (ROOT / "rulesets" / "sushi-go.yaml").read_text(encoding="utf-8")
    lines, marked = [], 0
    for line in text.splitlines():
        if "count: " in line and "{id:" in line and marked < 10:
            count = line.split("count: ")[1].split(",")[0]
            line = line.replace(f"count: {count},", f"count: {{tune: [1, 20], start: {count}}},")
            marked += 1
        lines.append("id: many-marks" if line.startswith("id:") else line)
    assert marked == 10
    (tmp_path / "many.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = invoke(tmp_path / "many.yaml", *QUICK, "-t", "cards:1", "--budget", "3", env={"COLUMNS": "80"})
    assert result.exit_code in (0, 1), result.output  # 1: no try came nearer the target than the start
    printed = result.output.splitlines()
    assert sum(line.startswith("  try ") for line in printed) == 3
    assert [line for line in printed if len(line) > 80 and not line.startswith("wrote ")] == []
    # ten values are wider than their column: what each try measured is on the next line, under the column
    tries = [i for i, line in enumerate(printed) if line.startswith("  try ")]
    assert all(re.match(r" {24}(off by|met|unmeasured|invalid)", printed[i + 1]) for i in tries), printed
    assert printed[1] == "4 games per try, seed 0, at most 3 tries"


def test_one_try_is_said_in_the_singular(variant):
    """--budget 1: 'at most 1 try' and '(1 of 1 try)', not '1 tries'."""
    result = invoke(variant, *QUICK)
    assert result.exit_code == 0, result.output
    assert "at most 1 try\n" in result.output and "(1 of 1 try)" in result.output
    assert "1 tries" not in result.output


def test_a_range_as_wide_as_the_schema_allows_is_searched_without_warnings(tmp_path):
    """A mark over [-1000000, 1000000] with TPE: the tries run and nothing but the tries reaches standard error."""
    path = tmp_path / "wide.yaml"
    path.write_text(
        VARIANT.read_text(encoding="utf-8").replace(
            "{tune: [1, 12], start: 12}", "{tune: [-1000000, 1000000], start: 3}"
        ),
        encoding="utf-8",
    )
    result = invoke(path, *QUICK, "--budget", "8")
    assert result.exit_code == 0, result.output
    assert result.stderr == ""
    assert sum(line.startswith("  try ") for line in result.stdout.splitlines()) == 8


def test_in_a_terminal_each_try_line_starts_its_own_line_above_the_progress_bar(variant):
    """Standard output and error one 80-column terminal: every try is printed on a line of its own, never after the bar."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 80, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm", PYTHONIOENCODING="utf-8")
    args = ["-p", "3", "-b", "greedy", "-g", "40", "-t", "cards:5", "--budget", "3", "--search", "pattern"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "tune", str(variant), *args],
        stdin=subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    raw = b""
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the terminal closed: the command ended
                    break
                if not chunk:
                    break
                raw += chunk
            elif proc.poll() is not None:
                break
    finally:
        os.close(master)
        if proc.poll() is None:
            os.killpg(proc.pid, 9)
        proc.wait()
    assert proc.returncode == 0, raw.decode("utf-8", "replace")
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw.decode("utf-8", "replace"))
    starts = [m.start() for m in re.finditer(r"try +\d+: ", text)]
    assert len(starts) == 3
    for at in starts:
        line_start = max(text.rfind("\r", 0, at), text.rfind("\n", 0, at)) + 1
        assert text[line_start:at].strip() == "", repr(text[line_start : at + 20])


def test_the_progress_bar_counts_only_the_tries_the_marks_allow():
    """Two marks of 3 and 2 values allow 6 tries: with --budget 10000 the bar's total is 6 tries' games, not 10000."""
    from ruledraft.cli.tune import _tries_at_most
    from ruledraft.language.tunable import apply_marks
    from ruledraft.language.yaml_loader import load_document

    _, marks = apply_marks(load_document("a: {tune: [1, 3]}\nb: {tune: [0, 1]}\n", "r.yaml"))
    assert [m.size for m in marks.marks] == [3, 2]
    assert _tries_at_most(marks, 10_000) == 6
    assert _tries_at_most(marks, 4) == 4


def test_a_tune_stopped_before_any_try_ended_says_so_in_one_line(tmp_path, variant):
    """SIGINT while the first try's games are still in their workers: "interrupted after 0 tries" alone on stderr, status 130, no tuned file (it said no try gave a playable ruleset)."""
    from processes import interrupted, sleeping_bot, until_exists

    bot, asked = sleeping_bot(tmp_path)
    args = ["tune", str(variant), "-p", "2", "-b", bot, "-g", "4", "--budget", "3", "-t", "seats:5", "--jobs", "2"]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = interrupted(proc, lambda: until_exists(proc, asked))
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["interrupted after 0 tries"], err
    assert "playable" not in out + err
    assert not list(tmp_path.glob("*.tuned.yaml"))
    # with --json: a document all the same (a reader of the output gets no parse error), no tries, nothing written
    asked.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", *args, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    out, err = interrupted(proc, lambda: until_exists(proc, asked))
    assert proc.returncode == 130, err
    document = json.loads(out)
    assert document["interrupted"] is True and document["tries"] == [] and document["written"] is None


HUGE = """\
format: 1
extends: sushi-go
id: sushi-go-eel-tune
name: Sushi Go! (eel, tunable)
cards:
  - {id: squid_nigiri, attributes: {value: {tune: [0, 1000000]}}}
  - {id: eel, name: Eel, count: 8}
rounds:
  pass: [left, right, left]
scoring:
  - {id: eel, kind: sets, cards: eel, size: 2, points: {tune: [2, 12]}}
"""


def test_values_that_miss_and_cannot_be_told_from_the_start_are_not_written(tmp_path):
    """A range far too wide for the budget: every try's squid is worth hundreds of
    thousands, the figures the same within their intervals and the target missed. The
    run says it cannot tell the best from the start, writes nothing and exits 1 (it
    wrote squid 235852 in place of 500000 before, and exited 0)."""
    path = tmp_path / "huge.yaml"
    path.write_text(HUGE, encoding="utf-8")
    args = ["-p", "4", "-g", "200", "-t", "cards:8:squid_nigiri,eel", "--budget", "6", "-s", "3", "-q"]
    result = invoke(path, *args)
    assert result.exit_code == 1, result.output
    assert "note: this run cannot tell these values from the start's" in result.stdout
    assert result.output.strip().splitlines()[-1].startswith("nothing written: try ")
    assert "wrote " not in result.output
    assert sorted(p.name for p in tmp_path.iterdir()) == ["huge.yaml"]


def test_a_seats_target_with_different_bots_at_the_seats_is_warned_and_the_line_up_named(variant):
    """greedy,random at 3 players seats greedy, random, random: the header names that
    line-up, and a seats target is told it compares the bots too."""
    result = invoke(variant, "-p", "3", "-b", "greedy,random", "-g", "4", "--budget", "1", "-q", "-t", "seats:100")
    assert result.exit_code == 0, result.output
    text = " ".join(line.strip() for line in result.stdout.splitlines())
    assert "tuning 1 number, 3 players, bots greedy,random,random 4 games per try" in text
    assert "warning: the seats play different bots, so their win shares compare the bots as much as the seats" in text
    alike = invoke(variant, *WRITES)
    assert alike.exit_code == 0 and "warning: the seats play different bots" not in alike.stdout


def test_a_search_that_finds_nothing_nearer_than_the_start_writes_nothing(variant):
    """The best try is the start, and it misses the target: nothing written (a 'tuned' file would only
    restate the start values), exit 1 and one line saying so; a start that meets the target is written."""
    result = invoke(variant, "-p", "2", "-b", "random", "-g", "20", "--budget", "1", "-q", "-t", "seats:0")
    assert result.exit_code == 1, result.output
    assert result.output.splitlines()[-1] == ("nothing written: no try came nearer the target than the start values")
    assert sorted(p.name for p in variant.parent.iterdir()) == ["variant.yaml"]
    written = invoke(variant, *WRITES)
    assert written.exit_code == 0 and (variant.parent / "variant.tuned.yaml").exists()
