"""The README's two set-up commands: the test command installs every optional extra."""

from __future__ import annotations

import re

from paths import ROOT


def test_the_readme_test_command_installs_every_extra_so_no_test_skips():
    """The README's test command names exactly the extras pyproject.toml declares (CI installs them all too)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = re.findall(r"^python3 -m pip install (\S+) && python3 -m (\S+)", readme, re.M)
    assert [c[1] for c in commands[:2]] == ["ruledraft", "pytest"]
    extras = commands[1][0].strip("'")
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    table = pyproject.split("[project.optional-dependencies]\n", 1)[1].split("\n[", 1)[0]
    declared = re.findall(r"^([a-z][a-z0-9_-]*) = \[", table, re.M)
    assert len(declared) >= 5
    assert extras == f".[{','.join(sorted(declared))}]"
