"""Where the tests find the repository's files, defined once for every folder of tests
(``from paths import ROOT, DATA``): the modules sit one folder deeper than this file."""

from __future__ import annotations

from pathlib import Path

#: the folder of the tests (``tests/``), holding this file, ``conftest.py`` and ``strategies.py``
TESTS = Path(__file__).resolve().parent
#: the repository: README.md, examples/, rulesets/, schemas/
ROOT = TESTS.parent
#: the tests' own rule files, corpora and golden files (``tests/data/``)
DATA = TESTS / "data"
#: the example rule files and the authors' guide
EXAMPLES = ROOT / "examples"
#: the README, whose commands and code blocks tests run
README = ROOT / "README.md"
