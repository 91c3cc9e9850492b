"""``ruledraft tune``: the search from the command line, the tuned file beside the rule file,
``--json``, what ``validate`` says of tune marks, bad input, and Ctrl-C keeping the best so far."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys

import pytest
from paths import DATA
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.language.loading import check_ruleset

runner = CliRunner()
VARIANT = DATA / "tune" / "sushi-go-squid-12.yaml"
SQUID = "cards[squid_nigiri].attributes.value"
SMALL = ["-p", "2", "-b", "random", "-g", "200", "-s", "1", "-t", "cards:10:squid_nigiri", "--budget", "8", "-q"]


@pytest.fixture
def variant(tmp_path):
    path = tmp_path / "variant.yaml"
    shutil.copy(VARIANT, path)
    return path


def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_tune_prints_the_search_and_writes_the_tuned_file_beside_the_rule_file(variant):
    """The tries, the best value with its figure, and NAME.tuned.yaml holding that value in the mark's place."""
    result = invoke("tune", variant, *SMALL)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == "Sushi Go! (squid nigiri worth 12): tuning 1 number, 2 players, bots random"
    assert lines[1] == "200 games per try, seed 1, at most 8 tries"
    assert lines[2:4] == [
        "target cards:10:squid_nigiri: win effect of squid_nigiri within ±10 percentage",
        "    points",
    ]
    first = next(line for line in lines if line.startswith("  try "))
    assert first.startswith("  try   1: 12           off by ")
    assert " squid_nigiri +" in first  # the figure furthest out, with its interval
    best = next(line for line in lines if line.startswith(f"  {SQUID} = "))
    value = int(best.split("=")[1].split()[0])
    assert 1 <= value <= 4 and best.endswith("(was 12)")
    tuned = variant.with_name("variant.tuned.yaml")
    assert lines[-1] == f"wrote {tuned}"
    checked = check_ruleset(tuned)
    assert checked.ok and not checked.marks
    squid = next(c for c in checked.document.data["cards"] if c["id"] == "squid_nigiri")
    assert squid["attributes"] == {"value": value}
    assert variant.read_text(encoding="utf-8") == VARIANT.read_text(encoding="utf-8")  # the original is untouched


def test_tune_json_gives_every_try_and_never_writes_over_a_file(variant):
    """--json: the marks, every try with its figures, the best; a second run writes NAME.tuned-2.yaml."""
    variant.with_name("variant.tuned.yaml").write_text("mine\n", encoding="utf-8")
    result = invoke("tune", variant, *SMALL, "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert out["marks"] == [{"name": SQUID, "low": 1, "high": 12, "start": 12, "line": 11, "column": 44}]
    assert out["targets"] == ["cards:10:squid_nigiri"] and out["bots"] == ["random", "random"]
    assert out["start"] == 1 and out["tries"][0]["values"] == {SQUID: 12}
    best = out["tries"][out["best"] - 1]
    assert best["met"] and -10 <= best["figures"][0]["value"] <= 10
    assert 1 <= len(out["tries"]) <= 8 and not out["interrupted"]
    assert out["written"] == str(variant.with_name("variant.tuned-2.yaml"))
    assert variant.with_name("variant.tuned.yaml").read_text(encoding="utf-8") == "mine\n"
    assert check_ruleset(out["written"]).ok


def test_a_card_figure_on_too_few_seat_games_is_warned_of(variant):
    """Tuned to tempura, which 396 of 400 seat-games take (random, 2 players, 200 games): a warning that its figure compares only 4, where squid nigiri (74 without it) has none."""
    args = [a if a != "cards:10:squid_nigiri" else "cards:10:tempura,squid_nigiri" for a in SMALL]
    result = invoke("tune", variant, *args, "--budget", "2")
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    assert "warning: tempura's figure compares only 4 seat-games with the card or without it (fewer than 30)" in flat
    assert "squid_nigiri's figure compares" not in flat


def test_several_thin_card_figures_are_warned_of_in_one_warning(variant):
    """Every card targeted (random, 2 players, 200 games): the cards whose figures compare too few seat-games are
    named in one warning with their counts, not a paragraph each (ten of them made some 40 lines)."""
    args = [a if a != "cards:10:squid_nigiri" else "cards:10" for a in SMALL]
    result = invoke("tune", variant, *args, "--budget", "1")
    flat = " ".join(result.output.split())
    assert flat.count("warning:") == 1, result.output
    assert "warning: the figures of " in flat and "compare fewer than 30 seat-games with the card or without it" in flat
    assert "tempura (4)" in flat


def test_validate_lists_the_tunable_numbers(variant):
    """validate says the file is valid and, per mark, where it is, its range and the number checked in its place."""
    result = invoke("validate", variant)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == (f"{variant}:11:44: tunable: {SQUID} in [1, 12], checked at 12")
    out = json.loads(invoke("validate", variant, "--format", "json").output)
    assert out[0]["tunable"] == [{"name": SQUID, "low": 1, "high": 12, "start": 12, "line": 11, "column": 44}]


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["sushi-go", "-t", "cards:5"], 2, "has no tune marks: write a number as {tune: [LOW, HIGH]} to tune it"),
        (["VARIANT", "-t", "cards"], 2, "--target takes cards:K"),
        (["VARIANT", "-t", "cards:5", "-o", "VARIANT"], 2, "exists already: tune writes only new files"),
        (["-", "-t", "cards:5"], 2, "tune needs a rule file"),
        (["VARIANT", "-t", "cards:5", "-o", ""], 2, "--output needs a file name"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(variant, args, code, message):
    """No marks, a wrong target, an --output that exists, standard input: a message, no tuned file, no traceback."""
    args = [str(variant) if a == "VARIANT" else a for a in args]
    result = invoke("tune", *args)
    assert result.exit_code == code
    assert message in result.output
    assert "Traceback" not in result.output
    assert sorted(p.name for p in variant.parent.iterdir()) == ["variant.yaml"]


def test_a_pipe_named_as_the_rule_file_is_refused_as_standard_input_is(variant, tmp_path):
    """/dev/fd/N of a pipe (what <(...) and /dev/stdin name): refused, as '-' is (tune ran on it and wrote /dev/stdin.tuned.yaml into /dev)."""
    read, write = os.pipe()
    try:
        os.write(write, variant.read_bytes())
        os.close(write)
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "ruledraft",
                "tune",
                f"/dev/fd/{read}",
                "-t",
                "cards:5",
                "-g",
                "10",
                "--budget",
                "1",
            ],
            pass_fds=(read,),
            capture_output=True,
            text=True,
            cwd=tmp_path,
        )
    finally:
        os.close(read)
    assert result.returncode == 2
    assert result.stderr == (
        "error: tune needs a rule file, not a pipe: every try reads the file again with its values,"
        " and the best are written beside it\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["variant.yaml"]  # nothing written where it ran


def test_ctrl_c_keeps_the_best_so_far_and_writes_it(variant):
    """SIGINT after two tries: the best of the tries finished is printed and written, and the exit status is 130."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "tune", str(variant), "-p", "2", "-b", "random", "-g", "1500"]
        + ["-t", "cards:0.1:squid_nigiri", "--budget", "50", "-q"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        seen = []
        for line in proc.stdout:  # the tries are printed as they finish
            seen.append(line)
            if line.startswith("  try   2:"):
                break
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 130, err
    lines = "".join(seen).splitlines() + out.splitlines()
    stopped = next(line for line in lines if line.startswith("stopped: "))
    assert stopped.startswith("stopped: interrupted after ")
    tries = [line for line in lines if line.startswith("  try ")]
    assert len(tries) >= 2
    tuned = variant.with_name("variant.tuned.yaml")
    assert lines[-1] == f"wrote {tuned}"
    best = int(next(line for line in lines if line.startswith(f"  {SQUID} = ")).split("=")[1].split()[0])
    assert best in {int(t.split(":")[1].split()[0]) for t in tries}
    assert check_ruleset(tuned).ok
    assert err.startswith("interrupted after ")


def test_tune_report_writes_the_page_and_the_search(variant, tmp_path):
    """--report DIR: the HTML page of the start and the best values, and DIR/search.json with every try."""
    report = tmp_path / "report"
    args = [a if a != "8" else "3" for a in SMALL]  # three tries
    result = invoke("tune", variant, *args, "--report", report)
    assert result.exit_code == 0, result.output
    page = (report / "index.html").read_text(encoding="utf-8")
    assert "start values (try 1)" in page
    search = json.loads((report / "search.json").read_text(encoding="utf-8"))
    assert len(search["tries"]) == 3 and search["start"] == 1
    assert search["tries"][search["best"] - 1]["values"][SQUID] < 12
    if search["best"] != 1:
        assert f"tuned values (try {search['best']})" in page
    assert f"report: {(report / 'index.html').resolve().as_uri()}" in result.output


ALL_TAKEN = """\
format: 1
id: all-taken
name: All taken
players: {min: 2, max: 2}
cards:
  - {id: apple, count: 30, attributes: {value: {tune: [1, 5]}}}
  - {id: pear, count: 30}
deal: {hand_size: {"2": 10}}
rounds: {count: 1}
scoring:
  - {id: apples, kind: per_card, cards: apple, value: {attribute: value}}
  - {id: pears, kind: sets, cards: pear, size: 2, points: 3}
"""


def test_a_card_target_no_try_can_measure_fails_and_writes_nothing(tmp_path):
    """Two card types in ten-card hands: every seat takes both in every game, so cards:5 is unmeasured in each try; tune says why, exits 1 and writes no file."""
    path = tmp_path / "all-taken.yaml"
    path.write_text(ALL_TAKEN, encoding="utf-8")
    result = invoke("tune", path, "-g", "40", "--budget", "2", "-t", "cards:5:apple", "-q")
    assert result.exit_code == 1, result.output
    assert "  try   1: 3            unmeasured            apple" in result.output
    assert result.output.splitlines()[-1] == (
        "no try could be measured against the target (budget spent): apple: "
        "taken by every seat in every game: no effect to measure; nothing written"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all-taken.yaml"]


def test_json_of_a_target_no_try_can_measure_lists_the_tries_and_writes_nothing(tmp_path):
    """With --json the unmeasured tries are printed as JSON (no miss, the reason in each figure), then the error; exit 1."""
    path = tmp_path / "all-taken.yaml"
    path.write_text(ALL_TAKEN, encoding="utf-8")
    result = runner.invoke(app, ["tune", str(path), "-g", "40", "--budget", "2", "-t", "cards:5:apple", "-q", "--json"])
    assert result.exit_code == 1
    history = json.loads(result.stdout)
    assert history["written"] is None and len(history["tries"]) == 2
    assert all(t["miss"] is None and not t["met"] for t in history["tries"])
    assert history["tries"][0]["figures"][0]["unmeasured"] == "taken by every seat in every game: no effect to measure"
    assert result.stderr.startswith("no try could be measured against the target")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["all-taken.yaml"]


def test_the_kernel_plays_every_try_with_the_interpreter_s_figures(variant, tmp_path, monkeypatch):
    """--engine kernel compiles each try's values and gives the very tries, figures and best values of
    --engine reference; auto plays tries this short on the interpreter, compiling nothing."""
    from ruledraft.kernel import is_cached
    from ruledraft.lab import tune as tune_module
    from ruledraft.language.loading import load_ruleset

    played = []
    choose = tune_module.choose_engine

    def chosen(*args, **kwargs):
        engine = choose(*args, **kwargs)
        played.append((args[3], engine.name))
        return engine

    monkeypatch.setattr(tune_module, "choose_engine", chosen)
    args = ["-p", "2", "-b", "random", "-g", "60", "-s", "1", "-t", "cards:10:squid_nigiri", "--budget", "2", "--json"]
    runs = {}
    for engine in ("reference", "kernel", "auto"):
        result = invoke("tune", variant, *args, "--engine", engine, "-o", tmp_path / f"{engine}.yaml")
        assert result.exit_code in (0, 1), result.output  # (1: the two tries cannot be told apart)
        runs[engine] = (result.exit_code, json.loads(result.stdout))
        runs[engine][1].pop("written")
        assert len(runs[engine][1]["tries"]) == 2
    assert runs["kernel"] == runs["reference"] == runs["auto"]
    start = load_ruleset(str(variant))
    assert is_cached(start, "play")  # the start values' kernel, compiled by --engine kernel
    tried = {t["values"][SQUID] for t in runs["kernel"][1]["tries"]}
    assert len(tried) == 2
    assert played == [("reference", "reference")] * 2 + [("kernel", "kernel")] * 2 + [("auto", "reference")] * 2


def test_the_kernel_asked_for_where_it_cannot_play_is_refused_before_any_try(variant, tmp_path):
    """--engine kernel with a bot written in Python: exit 2, the reason and --engine reference or auto, no try
    played and nothing written; auto on tries of 1,000 games plays them on the interpreter and says why."""
    bot = tmp_path / "mine.py"
    bot.write_text("class Mine:\n    def act(self, view, seat):\n        return view.legal_actions()[0]\n")
    args = ["-p", "2", "-b", f"{bot}:Mine,random", "-s", "1", "-t", "cards:10:squid_nigiri", "--budget", "1"]
    refused = invoke("tune", variant, *args, "-g", "20", "--engine", "kernel")
    assert refused.exit_code == 2
    assert refused.output.startswith("error: the kernel cannot play this: ")
    assert refused.output.rstrip().endswith("(use --engine reference or auto)")
    assert not variant.with_name("variant.tuned.yaml").exists()
    noted = invoke("tune", variant, *args, "-g", "1000", "--engine", "auto", "-q", "--json")
    assert noted.exit_code in (0, 1), noted.output
    assert noted.stderr.splitlines()[0].startswith("engine: reference (")
