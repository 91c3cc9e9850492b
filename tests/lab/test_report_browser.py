"""The HTML reports opened in a real browser (headless Chromium through Playwright): each
report kind (``simulate``, with ``--marginal`` too, ``compare``, ``sweep``, ``quality``,
``tournament``) at a desktop and a phone width loads
without script or console errors, never scrolls sideways, cuts nothing off, decodes
every plot, fetches nothing, and embeds exactly the figures ``--json`` printed.

The browser is the system's (Debian's ``chromium``; ``.ci/run`` installs it). Without one
the module skips, except under ``CI`` (set by ``.ci/run``), where a missing browser fails.
``RULEDRAFT_SCREENSHOTS=DIR`` also saves a full-page screenshot of each page there."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from headless import chromium, chromium_or_skip
from typer.testing import CliRunner

from ruledraft.cli.app import app

WIDTHS = (1280, 390)

#: one run of each report kind, small but with what stresses the layout: eight seats and a
#: long menu of cards; a side whose dummy cannot win (one win-share panel per side); four counts
RUNS = {
    "simulate": ["simulate", "sushi-go-party-master-menu", "-p", "8", "-g", "30", "-b", "greedy,random"],
    "compare": ["compare", "sushi-go", "sushi-go-two-player-dummy", "-p", "2", "-g", "40", "-b", "random"],
    "sweep": ["sweep", "sushi-go", "-p", "2-5", "-g", "20", "-b", "random"],
    "marginal": ["simulate", "sushi-go-soy-sauce", "-g", "30", "-b", "random", "--marginal"],
    "quality": ["quality", "sushi-go-party-master-menu", "-p", "4", "-g", "8", "-b", "greedy,random"],
    "tournament": ["tournament", "sushi-go", "-p", "3", "-g", "9", "-b", "greedy,random,first"],
}
#: the plots each kind draws at least (a tournament draws one: the win share per bot)
FIGURES = {"tournament": 1}

#: what the page says about itself, read in the browser after it loaded
INSPECT = """async () => {
  const images = [];
  for (const img of document.images) {
    const decoded = await img.decode().then(() => true, () => false);
    const box = img.getBoundingClientRect();
    images.push({decoded, natural: [img.naturalWidth, img.naturalHeight],
                 attributes: [Number(img.getAttribute('width')), Number(img.getAttribute('height'))],
                 shown: [box.width, box.height], inFigure: img.closest('figure.plot[data-figure]') !== null});
  }
  // an element reaching past the window's edges must sit in a box that scrolls sideways
  // and itself fits the window; otherwise it is cut off or widens the page
  const edge = (r) => r.left < -0.5 || r.right > innerWidth + 0.5;
  const cut = [];
  for (const el of document.body.querySelectorAll('*')) {
    if (!edge(el.getBoundingClientRect())) continue;
    let scroller = null;
    for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === 'auto' || o === 'scroll') { scroller = p; break; }
    }
    if (scroller === null || edge(scroller.getBoundingClientRect()))
      cut.push(el.tagName.toLowerCase() + (el.className ? '.' + el.className : '') + ': ' +
               (el.textContent || '').trim().slice(0, 40));
  }
  return {scrollWidth: document.scrollingElement.scrollWidth, innerWidth, images, cut: cut.slice(0, 10),
          figures: document.querySelectorAll('figure.plot').length,
          document: JSON.parse(document.getElementById('figures').textContent)};
}"""

#: each table wider than its box, scrolled to its end: whether its first column is still in
#: view and its last reachable; and the words of the command that a line break split
SCROLLED = """() => {
  const tables = [];
  for (const wrap of document.querySelectorAll('.table-wrap')) {
    if (wrap.scrollWidth <= wrap.clientWidth) continue;
    wrap.scrollLeft = wrap.scrollWidth;
    const box = wrap.getBoundingClientRect();
    const inside = (c) => { const r = c.getBoundingClientRect();
                            return r.left >= box.left - 0.5 && r.right <= box.right + 0.5; };
    const rows = [...wrap.querySelectorAll('tr')];
    tables.push({head: rows[0].cells[0].textContent,
                 firstInView: rows.every(r => inside(r.cells[0])),
                 lastInView: rows.every(r => inside(r.cells[r.cells.length - 1]))});
  }
  const lines = (range) => new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top))).size;
  const code = document.querySelector('header code');
  const split = [];
  if (code === null) return {tables, split, commandLines: 0};
  const walk = document.createTreeWalker(code, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    for (const m of node.data.matchAll(/\\S+/g)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      if (lines(range) > 1) split.push(m[0]);
    }
  }
  const whole = document.createRange();
  whole.selectNodeContents(code);
  return {tables, split, commandLines: lines(whole)};
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless Chromium for the whole module."""
    with chromium() as b:
        yield b


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, tuple[Path, dict]]:
    """Each report kind's page and the JSON its command printed with --json in the same run."""
    out = {}
    for kind, args in RUNS.items():
        where = tmp_path_factory.mktemp(kind)
        result = CliRunner().invoke(app, [*args, "-q", "--json", "--report", str(where)])
        assert result.exit_code == 0, result.output
        out[kind] = (where / "index.html", json.loads(result.stdout))
    return out


class Visit:
    """A page loaded at one width: what the browser logged, what it fetched, and what the page says."""

    def __init__(self, browser: Any, url: str, width: int, screenshot: Path | None = None):
        self.console: list[tuple[str, str]] = []
        self.errors: list[str] = []
        self.requests: list[str] = []
        context = browser.new_context(viewport={"width": width, "height": 800}, offline=True)
        try:
            page = context.new_page()
            page.on("console", lambda m: self.console.append((m.type, m.text)))
            page.on("pageerror", lambda e: self.errors.append(str(e)))
            page.on("request", lambda r: self.requests.append(r.url))
            page.goto(url, wait_until="load")
            self.info: dict = page.evaluate(INSPECT)
            if screenshot is not None:
                page.screenshot(path=str(screenshot), full_page=True)
            self.scrolled: dict = page.evaluate(SCROLLED)
        finally:
            context.close()


@pytest.fixture(scope="module")
def visits(browser, runs) -> Iterator[Any]:
    """``visit(kind, width)``: the report of that kind loaded at that width (each page loaded once)."""
    shots = os.environ.get("RULEDRAFT_SCREENSHOTS")
    seen: dict[tuple[str, int], Visit] = {}

    def visit(kind: str, width: int) -> Visit:
        if (kind, width) not in seen:
            shot = Path(shots) / f"{kind}-{width}.png" if shots else None
            if shot is not None:
                shot.parent.mkdir(parents=True, exist_ok=True)
            seen[kind, width] = Visit(browser, runs[kind][0].as_uri(), width, shot)
        return seen[kind, width]

    yield visit


PAGES = [pytest.param(kind, width, id=f"{kind}-{width}") for kind in RUNS for width in WIDTHS]


@pytest.mark.parametrize(("kind", "width"), PAGES)
def test_the_report_loads_without_script_or_console_errors(visits, kind, width):
    """The page raises no script error and logs no error or warning to the console."""
    v = visits(kind, width)
    assert v.errors == []
    assert [m for m in v.console if m[0] in ("error", "warning")] == []


@pytest.mark.parametrize(("kind", "width"), PAGES)
def test_the_report_never_scrolls_sideways_and_cuts_nothing_off(visits, kind, width):
    """The page is no wider than the window; whatever is wider (a table) scrolls in a box that fits."""
    info = visits(kind, width).info
    assert info["innerWidth"] == width
    assert info["scrollWidth"] <= info["innerWidth"]
    assert info["cut"] == []


@pytest.mark.parametrize("kind", list(RUNS))
def test_a_wide_table_scrolled_to_its_end_still_shows_its_first_column(visits, kind):
    """At 390 px the widest tables scroll in their box; scrolled to the end, the first column (the row names) and the last are in view."""
    tables = visits(kind, 390).scrolled["tables"]
    assert tables, "no table is wider than a phone's window: nothing was checked"
    assert [t for t in tables if not (t["firstInView"] and t["lastInView"])] == []


@pytest.mark.parametrize("kind", list(RUNS))
def test_the_command_breaks_between_words_never_at_a_hyphen(visits, kind):
    """At 390 px the command that made the report wraps between its words; no word is split at a hyphen."""
    scrolled = visits(kind, 390).scrolled
    assert scrolled["commandLines"] > 1  # it wraps at this width, so the check means something
    assert scrolled["split"] == []


@pytest.mark.parametrize(("kind", "width"), PAGES)
def test_every_plot_image_decodes_at_its_size_and_fits_the_window(visits, kind, width):
    """Each plot is one image in a figure, decoded with the size the page declares, shown within the window."""
    info = visits(kind, width).info
    images = info["images"]
    assert len(images) == info["figures"] >= FIGURES.get(kind, 4)
    for img in images:
        assert img["inFigure"] and img["decoded"]
        assert img["natural"][0] > 0 and img["natural"][1] > 0
        assert img["natural"] == img["attributes"]
        assert 0 < img["shown"][0] <= width and img["shown"][1] > 0


@pytest.mark.parametrize(("kind", "width"), PAGES)
def test_the_report_fetches_nothing_but_its_own_file(visits, runs, kind, width):
    """The only request the page makes is for its own file: no style, font, script or image from elsewhere."""
    assert visits(kind, width).requests == [runs[kind][0].as_uri()]


@pytest.mark.parametrize("kind", list(RUNS))
def test_the_embedded_figures_are_those_json_printed(visits, runs, kind):
    """The figures the browser reads from the page equal the --json output of the same run, side by side."""
    document = visits(kind, 390).info["document"]
    printed = runs[kind][1]
    if kind in ("simulate", "marginal"):
        assert [s["figures"] for s in document["sides"]] == [printed["figures"]]
    elif kind == "quality":
        assert document["quality"] == printed
    elif kind == "tournament":
        assert document["sides"] == [] and document["tournament"] == printed
    elif kind == "compare":
        assert [s["figures"] for s in document["sides"]] == [printed["a"]["figures"], printed["b"]["figures"]]
        assert document["comparison"] == printed
    else:
        assert [s["figures"] for s in document["sides"]] == [c["figures"] for c in printed["counts"]]
        assert document["sweep"] == printed


def test_a_command_word_longer_than_the_line_wraps_inside_the_window(browser, runs, tmp_path):
    """A rule file's path longer than a phone's line breaks inside itself rather than widening the page."""
    from ruledraft.lab.report import write_report

    figures = runs["simulate"][1]["figures"]
    long_path = "/home/designer/" + "-".join(["a-very-long-rule-file-name"] * 6) + ".yaml"
    page = write_report(tmp_path, title="t", command=f"ruledraft simulate {long_path} -g 30", sides=[("t", figures)])
    v = Visit(browser, page.as_uri(), 390)
    assert v.info["scrollWidth"] <= 390 and v.info["cut"] == []
    assert v.scrolled["split"] == [long_path]  # the one word that cannot fit, and only it


def test_the_checks_see_what_a_broken_page_does(browser, tmp_path):
    """A page that fetches an image, throws and overflows is caught by each check (they can fail)."""
    page = tmp_path / "broken.html"
    page.write_text(
        '<!DOCTYPE html><html><body><img src="http://127.0.0.1:9/x.png" width="5" height="5">'
        '<div style="width:2000px">wide</div><script>throw new Error("boom")</script>'
        '<script type="application/json" id="figures">{}</script></body></html>',
        encoding="utf-8",
    )
    v = Visit(browser, page.as_uri(), 390)
    assert v.requests == [page.as_uri(), "http://127.0.0.1:9/x.png"]
    assert any("boom" in e for e in v.errors)
    assert v.info["scrollWidth"] > 390 and v.info["cut"] == ["div: wide"]
    assert [i["decoded"] for i in v.info["images"]] == [False]


def test_a_missing_browser_fails_under_ci_and_skips_elsewhere(monkeypatch, tmp_path):
    """With no chromium on the machine the module skips, unless CI is set: then it fails."""
    monkeypatch.setattr(shutil, "which", lambda name: None)
    monkeypatch.setattr(os, "access", lambda path, mode: False)
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        chromium_or_skip()
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception):
        chromium_or_skip()
