"""Debian's Chromium, headless, for the tests that look at pages in a real browser
(the balance lab's reports, the web table): found, launched and closed in one place."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_or_skip() -> str:
    """The browser's path; skip without one, but fail under CI (a skipped test there hides a defect)."""
    path = shutil.which("chromium") or CHROMIUM
    if os.access(path, os.X_OK):
        return path
    if "CI" in os.environ:
        pytest.fail(f"CI={os.environ['CI']} and no browser at {CHROMIUM}: install Debian's chromium (see .ci/run)")
    pytest.skip(f"no browser at {CHROMIUM} (apt-get install chromium)")


@contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium driven by Playwright (a module's fixture yields it)."""
    path = chromium_or_skip()
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.fail("the browser tests need Playwright: pip install '.[test]'")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=FLAGS, headless=True)
        try:
            yield b
        finally:
            b.close()
