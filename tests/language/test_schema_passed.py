"""Rule files the schema passed, remembered between runs: the same rulesets, without jsonschema."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from ruledraft.language import schema_passed

#: a process that loads a rule file and reports what came of it and whether jsonschema was imported
LOAD = """
import json, sys
from ruledraft.language.loading import check_ruleset
result = check_ruleset(sys.argv[1])
print(json.dumps({
    "rules": None if result.ruleset is None else list(result.ruleset.rule_ids),
    "problems": [str(d) for d in result.diagnostics],
    "jsonschema": "jsonschema" in sys.modules,
}))
"""


def _load(source: str, cache, **env: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", LOAD, source],
        env={**os.environ, "XDG_CACHE_HOME": str(cache), schema_passed.MEMO: "1", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_a_rule_file_that_passed_loads_again_without_jsonschema(tmp_path):
    """The second load of a rule file that passed the schema is the same ruleset, with
    neither the schema check nor jsonschema's import; with the memo off, it checks again."""
    first, second = _load("sushi-go", tmp_path), _load("sushi-go", tmp_path)
    assert first["jsonschema"] and not second["jsonschema"]
    assert first["rules"] == second["rules"] and first["rules"]
    assert first["problems"] == second["problems"] == []
    assert _load("sushi-go", tmp_path, **{schema_passed.MEMO: "0"})["jsonschema"]


def test_a_rule_file_with_a_schema_problem_is_checked_and_said_every_time(tmp_path):
    """A document the schema refuses is never remembered: its problem is found and said
    on every load, and a fix of it is checked before it is remembered."""
    rules = tmp_path / "mine.yaml"
    rules.write_text(
        "format: 1\nextends: sushi-go\nid: mine\nname: Mine\nplayers: {min: 2, max: nine}\n", encoding="utf-8"
    )
    first, second = _load(str(rules), tmp_path), _load(str(rules), tmp_path)
    assert first == second and second["jsonschema"] and second["rules"] is None
    assert any("mine.yaml:5" in p for p in second["problems"]), second["problems"]
    rules.write_text(
        "format: 1\nextends: sushi-go\nid: mine\nname: Mine\nplayers: {min: 2, max: 4}\n", encoding="utf-8"
    )
    fixed = _load(str(rules), tmp_path)
    assert fixed["jsonschema"] and fixed["rules"] and not _load(str(rules), tmp_path)["jsonschema"]


def test_the_memo_keeps_the_latest_and_an_unreadable_one_remembers_nothing(tmp_path, monkeypatch):
    """At most KEPT documents, the latest passed; a memo file that is not a list of
    digests is taken as empty (every document checked)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv(schema_passed.MEMO, "1")
    monkeypatch.setattr(schema_passed, "KEPT", 3)
    for n in range(5):
        schema_passed.remember({"n": n}, "n")
    assert [schema_passed.passed({"n": n}, "n") for n in range(5)] == [False, False, True, True, True]
    assert not schema_passed.passed({"n": "4"}, "n")  # another type, another document
    (tmp_path / "ruledraft" / "schema-passed.json").write_text('{"not": "a list"}', encoding="utf-8")
    assert not schema_passed.passed({"n": 4}, "n")
