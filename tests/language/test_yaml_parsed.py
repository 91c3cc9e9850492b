"""Rule-file texts parsed before, remembered between runs: the same documents, without parsing them again."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import ROOT

from ruledraft.errors import RulesetError
from ruledraft.language import yaml_loader, yaml_parsed
from ruledraft.language.bundled import bundled_ids, bundled_path
from ruledraft.language.yaml_loader import DEFAULT_LIMITS, LoaderLimits, load_document

SOURCES = [bundled_path(rid) for rid in bundled_ids()] + sorted((ROOT / "examples").rglob("*.yaml"))


@pytest.fixture
def memo(tmp_path, monkeypatch):
    """A cache of its own, the memo on, and no document kept in this process."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(yaml_parsed.MEMO, "1")
    monkeypatch.setattr(yaml_loader, "_PARSED", {})
    return tmp_path / "ruledraft" / "parsed"


def _everything(doc) -> tuple:
    """All a document says: its text, lines and data, and for every value its place, its
    key's place, its span and the place of each of its characters."""
    places = {}
    for path in doc._positions:
        span = doc.scalar_span(path)
        at = doc.scalar_locator(path)
        reach = 0 if span is None else span[1] - span[0] + 1
        places[path] = (doc.locate(path), doc.locate(path, key=True), span, [at(i) for i in range(reach)])
    return doc.file, doc.text, doc.lines, repr(doc.data), places, doc._line_starts


def _parsed_again(text: str, file: str, monkeypatch, limits: LoaderLimits = DEFAULT_LIMITS):
    """``text`` loaded in a process that keeps nothing of its own, where the composer fails."""
    monkeypatch.setattr(yaml_loader, "_PARSED", {})

    def no_parse(*args, **kwargs):
        raise AssertionError("parsed again")

    with monkeypatch.context() as m:
        m.setattr(yaml_loader, "_composed", no_parse)
        return load_document(text, file, limits=limits)


@pytest.mark.parametrize("source", SOURCES, ids=lambda p: Path(p).stem)
def test_every_bundled_and_example_file_comes_back_as_it_was_parsed(source, memo, monkeypatch):
    """Each bundled rule file and example, parsed once, loads again from the memo without
    parsing, the same in its data and in the place of every value and character."""
    text = Path(source).read_text(encoding="utf-8")
    try:
        first = load_document(text, str(source))
    except RulesetError:  # a broken example: never remembered
        assert not memo.exists() or not os.listdir(memo)
        return
    assert len(os.listdir(memo)) == 1
    assert _everything(_parsed_again(text, str(source), monkeypatch)) == _everything(first)


#: plain YAML values a rule file's data is made of, floats as YAML 1.2 writes them
_SCALARS = st.none() | st.booleans() | st.integers(-(10**20), 10**20) | st.text(max_size=12)
_SCALARS = _SCALARS | st.floats(allow_nan=False).filter(lambda x: not math.isinf(x) and x == x)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(min_size=1, max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.dictionaries(st.text(min_size=1, max_size=8), _VALUES, min_size=1, max_size=5), flow=st.booleans())
def test_a_text_parsed_before_is_the_same_document(data, flow, memo, monkeypatch):
    """For generated mappings written as YAML (block or flow style), the document read
    back from the memo equals the one parsed, value for value and place for place."""
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True, sort_keys=False)
    try:
        first = load_document(text, "generated.yaml")
    except RulesetError:  # a text this loader refuses (a YAML 1.1 form it reads as text, say)
        return
    assert _everything(_parsed_again(text, "generated.yaml", monkeypatch)) == _everything(first)


def test_a_text_with_a_problem_is_parsed_and_said_every_time(memo, monkeypatch):
    """A text that does not parse is never remembered: the same located error each time."""
    text = "format: 1\nid: x\nid: y\n"
    errors = []
    for _ in range(2):
        monkeypatch.setattr(yaml_loader, "_PARSED", {})
        with pytest.raises(RulesetError) as e:
            load_document(text, "broken.yaml")
        errors.append([str(d) for d in e.value.diagnostics])
    assert errors[0] == errors[1] and "broken.yaml:3:1" in errors[0][0]
    assert not memo.exists() or not os.listdir(memo)


def test_the_name_and_the_limits_are_part_of_what_is_remembered(memo, monkeypatch):
    """The same text under another name, or read within other limits, is parsed again:
    its messages name that file, and other limits may refuse it."""
    text = "format: 1\nid: x\nname: X\n"
    load_document(text, "a.yaml")
    with pytest.raises(AssertionError, match="parsed again"):
        _parsed_again(text, "b.yaml", monkeypatch)
    with pytest.raises(AssertionError, match="parsed again"):
        _parsed_again(text, "a.yaml", monkeypatch, LoaderLimits(max_nodes=50))
    assert _parsed_again(text, "a.yaml", monkeypatch).file == "a.yaml"


def test_a_damaged_file_is_removed_and_the_text_parsed_again(memo, monkeypatch):
    """A memo file cut short, or holding something else, is removed: the text is parsed
    again, to the same document, and remembered anew."""
    text = "format: 1\nid: x\nname: X\ncards: [{id: a, count: 2}]\n"
    first = load_document(text, "x.yaml")
    (kept,) = memo.iterdir()
    good = kept.read_bytes()
    for damage in (good[: len(good) // 2], b"\x00not marshal", __import__("marshal").dumps(("other", 1))):
        kept.write_bytes(damage)
        monkeypatch.setattr(yaml_loader, "_PARSED", {})
        assert _everything(load_document(text, "x.yaml")) == _everything(first)
        assert kept.read_bytes() == good  # removed, then written again by the parse


def test_the_memo_keeps_the_latest_and_can_be_turned_off(memo, monkeypatch):
    """At most KEPT texts are kept (the least recently read go first), none whose data and
    places pass LARGEST_KEPT bytes; with the memo off nothing is kept and every text is parsed."""
    monkeypatch.setattr(yaml_parsed, "KEPT", 2)
    texts = [f"format: 1\nid: t{i}\nname: T\n" for i in range(3)]
    for t in texts:
        load_document(t, "t.yaml")
        os.utime(next(iter(sorted(memo.iterdir(), key=os.path.getmtime))), (1, 1))  # oldest first
    assert len(os.listdir(memo)) == 2
    with pytest.raises(AssertionError, match="parsed again"):
        _parsed_again(texts[0], "t.yaml", monkeypatch)
    _parsed_again(texts[2], "t.yaml", monkeypatch)
    monkeypatch.setenv(yaml_parsed.MEMO, "0")
    with pytest.raises(AssertionError, match="parsed again"):
        _parsed_again(texts[2], "t.yaml", monkeypatch)
    monkeypatch.setenv(yaml_parsed.MEMO, "1")
    monkeypatch.setattr(yaml_parsed, "LARGEST_KEPT", 100)
    big = "format: 1\nid: big\nname: " + "B" * 200 + "\n"
    load_document(big, "big.yaml")
    with pytest.raises(AssertionError, match="parsed again"):
        _parsed_again(big, "big.yaml", monkeypatch)


def test_a_run_that_reads_a_remembered_file_parses_nothing(tmp_path):
    """In a fresh process, sushi-go's file parsed by an earlier run is taken from the memo:
    the composer never runs, and the ruleset is the same."""
    script = (
        "import sys\n"
        "from ruledraft.language import yaml_loader\n"
        "real = yaml_loader._composed\n"
        "calls = []\n"
        "yaml_loader._composed = lambda *a: calls.append(1) or real(*a)\n"
        "from ruledraft.language.loading import load_ruleset\n"
        "rs = load_ruleset('sushi-go')\n"
        "print(len(calls), rs.rule_ids)\n"
    )
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path), yaml_parsed.MEMO: "1"}
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120)]
    runs.append(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120))
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr
    (first, rules), (second, again) = (r.stdout.split(" ", 1) for r in runs)
    assert (first, second) == ("1", "0") and rules == again
