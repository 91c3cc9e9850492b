"""The HTML report (``ruledraft.lab.report``, ``simulate --report``): one page that parses,
embeds its images, has its sections, draws exactly the numbers of the figures JSON it
embeds, comes out the same for the same figures, and says in one line what is wrong
with its directory or how to install matplotlib."""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import NamedTuple

import matplotlib.axes
import pytest
from paths import DATA
from strategies import bundled_ruleset
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.lab.report import PlotsMissing, ReportError, write_report
from ruledraft.play.runner import simulate as run_simulation

SHAPES = DATA / "report"  # hand-written compare and sweep JSON
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
INSTALL_LINE = "error: --report needs matplotlib, which is not installed: pip install 'ruledraft[plots]'"

runner = CliRunner()


class Page(HTMLParser):
    """A parsed report: tag problems, every element's attributes, section ids, tables and the embedded JSON."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.stack: list[str] = []
        self.problems: list[str] = []
        self.elements: list[tuple[str, dict]] = []
        self.sections: list[str] = []
        self.tables: dict[str, list[list[str]]] = {}
        self.section: str | None = None
        self.row: list[str] | None = None
        self.cell: list[str] | None = None
        self.script: list[str] | None = None
        self.figures_json: str | None = None
        self.feed(text)
        self.close()
        if self.stack:
            self.problems.append(f"unclosed: {self.stack}")

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.elements.append((tag, a))
        if tag not in VOID:
            self.stack.append(tag)
        if tag == "section":
            self.section = a.get("id")
            self.sections.append(a.get("id"))
        elif tag == "tr":
            self.row = []
        elif tag in ("td", "th"):
            self.cell = []
        elif tag == "script" and a.get("id") == "figures":
            self.script = []

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.stack[-1:] or 'nothing'}")
            return
        self.stack.pop()
        if tag in ("td", "th") and self.row is not None and self.cell is not None:
            self.row.append("".join(self.cell).strip())
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.tables.setdefault(self.section or "", []).append(self.row)
            self.row = None
        elif tag == "script" and self.script is not None:
            self.figures_json = "".join(self.script)
            self.script = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)
        if self.script is not None:
            self.script.append(data)

    @property
    def document(self) -> dict:
        assert self.figures_json is not None
        return json.loads(self.figures_json)

    def plots(self) -> list[list[str]]:
        """The paths of each plot, in page order."""
        return [a["data-figure"].split() for tag, a in self.elements if tag == "figure" and "data-figure" in a]


def resolve(document, path):
    """The value at a figure path, read here without the report's own reader."""
    steps = re.findall(r"[A-Za-z_][A-Za-z0-9_]*|\[[^\]]*\]", path)
    assert "".join(s if s.startswith("[") else "." + s for s in steps).lstrip(".") == path, path

    def walk(node, steps):
        if not steps:
            return node
        step, rest = steps[0], steps[1:]
        if step == "[*]":
            return [walk(x, rest) for x in node]
        if step.startswith("[") and "=" in step:
            key, value = step[1:-1].split("=", 1)
            return [walk(x, rest) for x in node if str(x[key]) == value]
        if step.startswith("["):
            return walk(node[int(step[1:-1])], rest)
        return walk(node[step], rest)

    return walk(document, steps)


def numbers(value):
    """Every number in a value (lists and dicts' values, in order), None left out."""
    if value is None:
        return []
    if isinstance(value, dict):
        return [n for v in value.values() for n in numbers(v)]
    if isinstance(value, list):
        return [n for v in value for n in numbers(v)]
    assert isinstance(value, (int, float)) and not isinstance(value, bool), value
    return [value]


def roundtrip(value):
    return json.loads(json.dumps(value))


@pytest.fixture(scope="module")
def sim_figures():
    """The figures of 200 three-player sushi-go games (seed 5, greedy then random), per-card figures counted."""
    summary = run_simulation(bundled_ruleset("sushi-go"), 3, 200, 5, ["greedy", "random", "random"], cards=True)
    return roundtrip(summary.figures)


@pytest.fixture(scope="module")
def dummy_figures():
    """The figures of 40 two-player games with a dummy seat that cannot win (seed 2), per-card figures counted."""
    summary = run_simulation(bundled_ruleset("sushi-go-two-player-dummy"), 2, 40, 2, ["greedy", "random"], cards=True)
    figures = roundtrip(summary.figures)
    assert [s["can_win"] for s in figures["seats"]] == [True, True, False]
    return figures


@pytest.fixture(scope="module")
def compare_json():
    """A hand-written compare-shaped JSON: sushi-go against its soy sauce variant (a rule and a card more)."""
    return json.loads((SHAPES / "compare.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def sweep_json():
    """A hand-written sweep-shaped JSON: sushi-go at 2 and 3 players."""
    return json.loads((SHAPES / "sweep.json").read_text(encoding="utf-8"))


def simulate_report(directory, figures):
    return write_report(
        directory,
        title="Sushi Go!: 200 games, 3 players",
        command="ruledraft simulate sushi-go -p 3 -g 200 -s 5",
        sides=[("sushi-go, 3 players", figures)],
    )


def compare_report(directory, comparison):
    return write_report(
        directory,
        title="sushi-go against sushi-go-soy-sauce",
        command="ruledraft compare sushi-go sushi-go-soy-sauce",
        sides=[("sushi-go", comparison["a"]["figures"]), ("sushi-go-soy-sauce", comparison["b"]["figures"])],
        comparison=comparison,
    )


def sweep_report(directory, sweep):
    return write_report(
        directory,
        title="sushi-go at 2 and 3 players",
        command="ruledraft sweep sushi-go --players 2-3",
        sides=[(f"{c['players']} players", c["figures"]) for c in sweep["counts"]],
        sweep=sweep,
    )


@contextlib.contextmanager
def drawing():
    """While inside, the numbers handed to matplotlib are recorded: the function yielded
    gives them per figure, in the order the figures were drawn."""
    calls: dict[int, list[float]] = {}
    order: list[int] = []
    inside: list[str] = []  # barh draws through bar: count the outer call only
    alive: list = []

    with pytest.MonkeyPatch.context() as monkeypatch:

        def record(method, pick):
            original = getattr(matplotlib.axes.Axes, method)

            def wrapper(self, *args, **kwargs):
                if inside:
                    return original(self, *args, **kwargs)
                key = id(self.figure)
                if key not in calls:
                    calls[key] = []
                    order.append(key)
                    alive.append(self.figure)  # so that no later figure is given the same id
                calls[key].extend(float(v) for v in pick(*args, **kwargs))
                inside.append(method)
                try:
                    return original(self, *args, **kwargs)
                finally:
                    inside.pop()

            monkeypatch.setattr(matplotlib.axes.Axes, method, wrapper)

        record("bar", lambda x, height, *a, **k: list(height))  # bars' heights
        record("barh", lambda y, width, *a, **k: list(width))  # bars' lengths
        record("vlines", lambda x, lo, hi, *a, **k: list(lo) + list(hi))  # intervals' ends
        record("hlines", lambda y, lo, hi, *a, **k: list(lo) + list(hi))
        record("scatter", lambda x, y, *a, **k: list(x))  # points along the x axis
        record("plot", lambda x, y, *a, **k: list(y))  # points over the player counts
        record("stairs", lambda values, edges, *a, **k: [v for v in values if v])  # histogram counts
        yield lambda: [calls[k] for k in order]


class Written(NamedTuple):
    """A report written: the directory asked for, the path returned, and the numbers each
    figure handed to matplotlib while it was drawn."""

    directory: Path
    path: Path
    drawn: list[list[float]]

    def page(self) -> Page:
        return Page(self.path.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def written(tmp_path_factory, sim_figures, dummy_figures, compare_json, sweep_json) -> dict[str, Written]:
    """Each kind of report written once, for the tests that only read it (drawing the
    plots is most of a report's cost): simulate, simulate with a dummy, compare, sweep."""
    base = tmp_path_factory.mktemp("reports")
    makers = {
        "simulate": lambda d: simulate_report(d, sim_figures),
        "dummy": lambda d: simulate_report(d, dummy_figures),
        "compare": lambda d: compare_report(d, compare_json),
        "sweep": lambda d: sweep_report(d, sweep_json),
    }
    reports = {}
    for kind, make in makers.items():
        directory = base / kind / "a" / "b"  # neither it nor its parent exists yet
        with drawing() as drawn:
            path = make(directory)
            reports[kind] = Written(directory, path, drawn())
    return reports


@pytest.fixture(params=["simulate", "compare", "sweep"])
def report(request, written):
    """Each kind of report written, with what it was made from."""
    return request.param, written[request.param].path


def test_write_report_writes_one_file_named_index_html_in_a_new_directory(written):
    """write_report creates the directory (parents too) and returns DIR/index.html, the only file in it."""
    for w in written.values():
        assert w.path == w.directory / "index.html"
        assert sorted(p.name for p in w.path.parent.iterdir()) == ["index.html"]


def test_the_page_parses_with_every_tag_closed(report):
    """Every report parses as HTML with each element closed in order and nothing left open."""
    _, path = report
    text = path.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    page = Page(text)
    assert page.problems == []
    assert page.figures_json is not None


def test_the_page_embeds_its_images_and_reaches_for_nothing_outside(report):
    """Every image is a PNG inside the page; links only jump within it; no style sheet, script or font is fetched."""
    _, path = report
    text = path.read_text(encoding="utf-8")
    page = Page(text)
    images = [a for tag, a in page.elements if tag == "img"]
    assert len(images) >= 5
    for a in images:
        assert a["src"].startswith("data:image/png;base64,")
        png = base64.b64decode(a["src"].split(",", 1)[1], validate=True)
        assert png[:8] == b"\x89PNG\r\n\x1a\n"
        assert a["alt"]
    for tag, a in page.elements:
        assert "src" not in a or a["src"].startswith("data:"), (tag, a)
        assert "href" not in a or a["href"].startswith("#"), (tag, a)
        assert tag != "link"
        assert not (tag == "script" and a.get("type") != "application/json"), a
    assert "url(" not in text and "@import" not in text
    assert "http://" not in text and "https://" not in text


def test_the_page_has_a_section_for_each_group_of_figures(report):
    """Seats, scores, rules and cards always; comparison first for compare, the player counts first for sweep."""
    kind, path = report
    page = Page(path.read_text(encoding="utf-8"))
    first = {"simulate": [], "compare": ["comparison"], "sweep": ["sweep"]}[kind]
    assert page.sections == first + ["seats", "scores", "rules", "cards"]
    assert [a["href"] for tag, a in page.elements if tag == "a"] == ["#" + s for s in page.sections]


def test_the_embedded_json_is_exactly_the_figures_given(written, sim_figures, compare_json, sweep_json):
    """The page embeds each side's figures, the comparison and the sweep unchanged, with its title and command."""
    page = written["simulate"].page()
    assert page.document == {
        "title": "Sushi Go!: 200 games, 3 players",
        "command": "ruledraft simulate sushi-go -p 3 -g 200 -s 5",
        "sides": [{"label": "sushi-go, 3 players", "figures": sim_figures}],
    }
    page = written["compare"].page()
    assert page.document["comparison"] == compare_json
    assert [s["figures"] for s in page.document["sides"]] == [
        compare_json["a"]["figures"],
        compare_json["b"]["figures"],
    ]
    page = written["sweep"].page()
    assert page.document["sweep"] == sweep_json
    assert [s["label"] for s in page.document["sides"]] == ["2 players", "3 players"]


@pytest.mark.parametrize("kind", ["simulate", "dummy", "compare", "sweep"])
def test_each_plot_draws_exactly_the_numbers_its_paths_name(kind, written):
    """The numbers each plot hands to matplotlib are exactly those its data-figure paths give in the embedded JSON."""
    page = written[kind].page()
    plots = page.plots()
    figures = written[kind].drawn
    assert len(plots) == len(figures) >= 5
    for paths, numbers_drawn in zip(plots, figures):
        expected = [float(n) for p in paths for n in numbers(resolve(page.document, p))]
        assert expected, paths
        assert sorted(numbers_drawn) == sorted(expected), paths


def test_the_plots_name_the_figures_they_draw(written):
    """A simulate report plots win shares with their intervals, the histograms, rule means and card figures."""
    page = written["simulate"].page()
    assert page.plots() == [
        ["sides[0].figures.seats[*].win_share", "sides[0].figures.seats[*].win_share_interval"],
        ["sides[0].figures.seats[*].histogram"],
        ["sides[0].figures.rules[*].mean", "sides[0].figures.rules[*].interval"],
        ["sides[0].figures.cards[*].taken_per_game"],
        ["sides[0].figures.cards[*].difference", "sides[0].figures.cards[*].difference_interval"],
    ]


def test_a_dummy_that_cannot_win_has_no_win_share_plotted(written):
    """The win share plot of a ruleset whose dummy cannot win draws the player seats only; the table marks the dummy with -."""
    page = written["dummy"].page()
    assert page.plots()[0] == [
        "sides[0].figures.seats[can_win=True].win_share",
        "sides[0].figures.seats[can_win=True].win_share_interval",
    ]
    assert page.tables["seats"][3][:5] == ["2", "dummy", "-", "-", "-"]


def test_the_tables_show_the_numbers_plotted(written, sim_figures):
    """Under the plots, the seats table gives each seat's win share and interval, the rules table each rule's mean."""
    page = written["simulate"].page()
    seats = page.tables["seats"]
    assert seats[0][:5] == ["seat", "bot", "wins", "win share", "95% interval"]
    for row, s in zip(seats[1:], sim_figures["seats"]):
        lo, hi = s["win_share_interval"]
        assert row[:2] == [str(s["seat"]), s["bot"]]
        assert row[3:5] == [f"{s['win_share']:.1%}", f"{lo:.1%} to {hi:.1%}"]
    rules = page.tables["rules"]
    assert [r[0] for r in rules[1:]] == [r["rule"] for r in sim_figures["rules"]]
    assert [r[1] for r in rules[1:]] == [f"{r['mean']:.2f}" for r in sim_figures["rules"]]
    cards = page.tables["cards"]
    assert [r[0] for r in cards[1:]] == [c["card"] for c in sim_figures["cards"]]


def test_the_comparison_marks_its_flagged_rows(written, compare_json):
    """The comparison table marks exactly the flagged rows, and its differences are compare's."""
    page = written["compare"].page()
    rows = page.tables["comparison"][1:]
    assert [r[0] for r in rows] == [("* " if r["flagged"] else "") + r["figure"] for r in compare_json["rows"]]
    assert [r[-1] for r in rows] == ["flagged" if r["flagged"] else "" for r in compare_json["rows"]]
    shares = [r["measure"] == "win_share" for r in compare_json["rows"]]
    assert [r[4] for r in rows] == [
        f"{r['difference']:+.1%}" if share else f"{r['difference']:+.3f}"
        for r, share in zip(compare_json["rows"], shares)
    ]


def test_the_comparison_plots_win_shares_and_points_on_separate_panels(written, compare_json):
    """Win-share differences (fractions) and score differences (points) never share an axis: one panel per measure."""
    page = written["compare"].page()
    panels = [p for p in page.plots() if p[0].startswith("comparison.")]
    assert panels == [
        [f"comparison.rows[measure={m}].difference", f"comparison.rows[measure={m}].interval"]
        for m in ("win_share", "score", "rule", "taken")
    ]


def test_the_comparison_table_shows_win_shares_in_percent_with_sides_a_and_b(written, compare_json):
    """The comparison table's columns are A, B and B - A as in the terminal; win shares are percentages."""
    page = written["compare"].page()
    table = page.tables["comparison"]
    assert table[0][2:5] == ["A", "B", "B - A"]
    share = next(r for r in compare_json["rows"] if r["measure"] == "win_share")
    row = next(r for r in table[1:] if r[0].endswith(share["figure"]))
    lo, hi = share["interval"]
    assert row[2:6] == [
        f"{share['a']:.1%}",
        f"{share['b']:.1%}",
        f"{share['difference']:+.1%}",
        f"{lo:+.1%} to {hi:+.1%}",
    ]


def test_a_comparison_at_two_player_counts_says_what_the_win_shares_are_above(tmp_path, compare_json):
    """A comparison of 2 and 5 players gives seats' win shares above an equal share; its report says so, and one of
    a single player count says nothing of it."""
    said = "each seat's win share is given above an equal share, 50.0% for A and 20.0% for B."
    text = compare_report(tmp_path / "two", dict(compare_json, win_share_from=[0.5, 0.2])).read_text(encoding="utf-8")
    assert said in " ".join(text.split())
    text = compare_report(tmp_path / "one", compare_json).read_text(encoding="utf-8")
    assert "above an equal share" not in text


def test_a_side_without_card_figures_says_so(tmp_path, sim_figures):
    """Figures counted without the per-card ones give a cards section saying they were not counted, and no card plot."""
    figures = dict(sim_figures, cards=None)
    page = Page(simulate_report(tmp_path / "out", figures).read_text(encoding="utf-8"))
    assert page.sections == ["seats", "scores", "rules", "cards"]
    assert len(page.plots()) == 3
    assert "The per-card figures were not counted in this run." in (tmp_path / "out" / "index.html").read_text()


def test_names_from_rule_files_stay_text(tmp_path, compare_json):
    """A card, rule or title holding markup or a closing script tag is shown as text; the page and its JSON stay whole."""
    hostile = "</script><img src=http://x/a.png>&amp;"
    comparison = json.loads(json.dumps(compare_json).replace("soy_sauce", hostile.replace('"', "")))
    path = write_report(
        tmp_path / "out",
        title=f"<b>{hostile}</b>",
        command=f"ruledraft compare '{hostile}'",
        sides=[("a", comparison["a"]["figures"]), ("b", comparison["b"]["figures"])],
        comparison=comparison,
    )
    text = path.read_text(encoding="utf-8")
    page = Page(text)
    assert page.problems == []
    assert page.document["comparison"] == comparison
    assert page.document["title"] == f"<b>{hostile}</b>"
    assert not any(tag == "img" and not a["src"].startswith("data:") for tag, a in page.elements)
    assert any(hostile in r[0] for r in page.tables["rules"][1:])


def test_the_same_figures_give_the_same_bytes(tmp_path, written, sim_figures, compare_json):
    """Writing a report twice, here and in a fresh process with another hash seed, gives identical files."""
    first = written["simulate"].path.read_bytes()
    assert simulate_report(tmp_path / "two", sim_figures).read_bytes() == first
    (tmp_path / "figures.json").write_text(json.dumps(sim_figures), encoding="utf-8")
    code = (
        "import json, sys\n"
        "from ruledraft.lab.report import write_report\n"
        "figures = json.load(open(sys.argv[1]))\n"
        "write_report(sys.argv[2], title='Sushi Go!: 200 games, 3 players',\n"
        "             command='ruledraft simulate sushi-go -p 3 -g 200 -s 5',\n"
        "             sides=[('sushi-go, 3 players', figures)])\n"
    )
    env = dict(os.environ, PYTHONHASHSEED="12345")
    subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "figures.json"), str(tmp_path / "three")],
        check=True,
        env=env,
        timeout=300,
    )
    assert (tmp_path / "three" / "index.html").read_bytes() == first
    a = written["compare"].path.read_bytes()
    assert compare_report(tmp_path / "c2", compare_json).read_bytes() == a


def test_a_directory_that_is_a_file_is_refused(tmp_path, sim_figures):
    """write_report into a regular file: one line naming it, and the file is left as it was."""
    target = tmp_path / "report"
    target.write_text("keep", encoding="utf-8")
    with pytest.raises(ReportError) as info:
        simulate_report(target, sim_figures)
    assert str(info.value) == f"{target}: not a directory (the report is written as {target}/index.html)"
    assert target.read_text(encoding="utf-8") == "keep"


def test_a_directory_that_cannot_be_made_or_written_is_refused(tmp_path, sim_figures):
    """A directory under a regular file, or an index.html that is a directory: one line naming it."""
    (tmp_path / "file").write_text("", encoding="utf-8")
    with pytest.raises(ReportError) as info:
        simulate_report(tmp_path / "file" / "out", sim_figures)
    assert str(info.value) == f"{tmp_path}/file/out: cannot write the report there: Not a directory"
    (tmp_path / "out" / "index.html").mkdir(parents=True)
    with pytest.raises(ReportError) as info:
        simulate_report(tmp_path / "out", sim_figures)
    assert str(info.value) == f"{tmp_path}/out/index.html: cannot write the report: Is a directory"
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["index.html"]  # no temporary file left


def test_simulate_report_writes_the_page_of_its_json_figures(tmp_path):
    """simulate --report --json: JSON on stdout, the report's file:// URL on stderr, and the page embeds the --json figures."""
    out = tmp_path / "report"
    result = runner.invoke(
        app,
        [
            "simulate",
            "sushi-go",
            "-p",
            "3",
            "-g",
            "300",
            "-s",
            "7",
            "-b",
            "greedy,random",
            "-q",
            "--json",
            "--report",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    assert result.stderr == f"report: {(out / 'index.html').resolve().as_uri()}\n"
    page = Page((out / "index.html").read_text(encoding="utf-8"))
    assert page.problems == []
    assert page.document["sides"] == [{"label": "sushi-go, 3 players", "figures": printed["figures"]}]
    assert printed["figures"]["cards"] is not None  # --report counts the per-card figures
    assert page.document["command"] == "ruledraft simulate sushi-go -p 3 -g 300 -s 7 -b greedy,random"
    assert page.sections == ["seats", "scores", "rules", "cards"]


def test_simulate_report_prints_the_url_after_the_tables(tmp_path):
    """Without --json the report's file:// URL is the last line of standard output."""
    out = tmp_path / "report"
    result = runner.invoke(app, ["simulate", "sushi-go", "-p", "2", "-g", "200", "-q", "--report", str(out)])
    assert result.exit_code == 0, result.output
    assert result.stdout.splitlines()[-1] == f"report: {(out / 'index.html').resolve().as_uri()}"
    assert (out / "index.html").is_file()


def test_simulate_refuses_a_report_directory_that_is_a_file_before_playing(tmp_path):
    """simulate --report FILE: exit 2 and one line naming it, before any game (the --log file is never made)."""
    target = tmp_path / "taken"
    target.write_text("", encoding="utf-8")
    log = tmp_path / "games.jsonl"
    result = runner.invoke(app, ["simulate", "sushi-go", "-g", "50", "-q", "--log", str(log), "--report", str(target)])
    assert result.exit_code == 2
    assert (
        result.stderr == f"error: --report {target}: not a directory (the report is written as {target}/index.html)\n"
    )
    assert result.stdout == ""
    assert not log.exists()


def test_simulate_refuses_a_report_directory_it_cannot_make(tmp_path):
    """simulate --report under a regular file: exit 2 and one line saying why."""
    (tmp_path / "file").write_text("", encoding="utf-8")
    result = runner.invoke(app, ["simulate", "sushi-go", "-g", "50", "-q", "--report", str(tmp_path / "file" / "r")])
    assert result.exit_code == 2
    assert result.stderr == f"error: --report {tmp_path}/file/r: cannot write the report there: Not a directory\n"


def test_simulate_refuses_an_empty_report_name_in_words_of_the_option():
    """simulate --report "": exit 2, "--report needs a directory name", before any game."""
    result = runner.invoke(app, ["simulate", "sushi-go", "-g", "50", "-q", "--report", ""])
    assert result.exit_code == 2
    assert result.stderr == "error: --report needs a directory name (an empty one would hold no report)\n"


def test_a_run_refused_after_the_report_check_leaves_no_directory_made(tmp_path):
    """simulate --report NEW/DIR with a --log it cannot write: exit 2, and no directory is left behind."""
    (tmp_path / "file").write_text("", encoding="utf-8")
    log = tmp_path / "file" / "games.jsonl"
    result = runner.invoke(
        app, ["simulate", "sushi-go", "-g", "50", "-q", "--log", str(log), "--report", str(tmp_path / "new" / "dir")]
    )
    assert result.exit_code == 2, result.output
    assert result.stderr == f"error: --log {log}: cannot write: Not a directory\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_the_check_before_a_run_leaves_an_existing_directory_as_it_was(tmp_path):
    """The check before a run leaves an existing directory as it was and a missing one unmade until the report."""
    from ruledraft.lab.report import prepare_directory

    (tmp_path / "old").mkdir()
    assert prepare_directory(tmp_path / "old", keep=False) == tmp_path / "old"
    assert list((tmp_path / "old").iterdir()) == []
    assert prepare_directory(tmp_path / "a" / "b", keep=False) == tmp_path / "a" / "b"
    assert not (tmp_path / "a").exists()
    assert prepare_directory(tmp_path / "a" / "b").is_dir()


BLOCKED = "import sys; sys.modules['matplotlib'] = None\n"


def test_simulate_report_without_matplotlib_says_how_to_install_it(tmp_path):
    """With matplotlib not importable, simulate --report exits 2 with the install line, before any game is played."""
    log = tmp_path / "games.jsonl"
    code = BLOCKED + "from ruledraft.cli.app import main\nsys.argv[0] = 'ruledraft'\nmain()\n"
    proc = subprocess.run(
        [
            sys.executable,
            "-c",
            code,
            "simulate",
            "sushi-go",
            "-g",
            "50",
            "-q",
            "--log",
            str(log),
            "--report",
            str(tmp_path / "r"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr == INSTALL_LINE + "\n"
    assert proc.stdout == ""
    assert not log.exists() and not (tmp_path / "r").exists()


def test_write_report_without_matplotlib_raises_plots_missing(tmp_path):
    """Called directly with matplotlib not importable, write_report raises PlotsMissing naming the extra."""
    code = (
        BLOCKED + "from ruledraft.lab.report import PlotsMissing, write_report\n"
        "try:\n"
        "    write_report(sys.argv[1], title='t', command='c', sides=[('a', {})])\n"
        "except PlotsMissing as e:\n"
        "    print(e)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path / "r")], capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "the HTML report needs matplotlib, which is not installed: pip install 'ruledraft[plots]'\n"
    assert issubclass(PlotsMissing, ReportError)


def test_simulate_help_names_the_report_option_and_its_extra():
    """simulate --help lists --report DIR and says it needs matplotlib, the plots extra, with nothing eaten as markup."""
    result = runner.invoke(app, ["simulate", "--help"], env={"COLUMNS": "300"}, terminal_width=300)
    assert result.exit_code == 0
    line = next(line for line in result.output.splitlines() if "--report" in line)
    assert "DIR" in line
    assert "Also write an HTML report with plots to DIR/index.html (needs matplotlib, the plots extra)." in line


def _embedded(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    start = text.index('<script type="application/json" id="figures">') + len(
        '<script type="application/json" id="figures">'
    )
    return json.loads(text[start : text.index("</script>", start)])


@pytest.mark.parametrize(
    ("args", "key"),
    [
        (["compare", "sushi-go", "sushi-go-soy-sauce", "-p", "3", "-g", "40", "-b", "random"], "comparison"),
        (["sweep", "sushi-go", "-p", "2-3", "-g", "30", "-b", "random"], "sweep"),
    ],
)
def test_compare_and_sweep_write_a_report_of_the_figures_they_print(tmp_path, args, key):
    """compare --report and sweep --report write one page whose embedded comparison or sweep is exactly their --json output, with one side per ruleset or count."""
    out = tmp_path / "report"
    result = CliRunner().invoke(app, [*args, "-q", "--json", "--report", str(out)])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    page = _embedded(out / "index.html")
    assert page[key] == roundtrip(printed)
    sides = [printed["a"], printed["b"]] if key == "comparison" else printed["counts"]
    assert [s["figures"] for s in page["sides"]] == [roundtrip(s["figures"]) for s in sides]


@pytest.mark.parametrize(
    ("args", "first"),
    [
        (["simulate", "sushi-go", "-p", "2", "-g", "20"], "Sushi Go!: 20 games, 2 players, seed 0"),
        (["compare", "sushi-go", "-g", "4", "-b", "random"], "A: sushi-go, 4 players, random x4, seed 0"),
        (["sweep", "sushi-go", "-p", "2-3", "-g", "4", "-b", "random"], "sushi-go: 4 games per player count,"),
    ],
)
def test_report_output_starts_with_the_figures_not_a_blank_line(tmp_path, args, first):
    """Without --quiet, output to a file (no terminal) starts with the figures; nothing but the report goes to stderr."""
    proc = subprocess.run(
        [sys.executable, "-m", "ruledraft", *args, "--report", str(tmp_path / "r")],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0].strip().startswith(first)
    assert proc.stdout.splitlines()[-1] == f"report: {(tmp_path / 'r' / 'index.html').resolve().as_uri()}"
    assert proc.stderr == ""


EIGHT = [f"{s}: {'greedy' if s == 0 else 'random'}" for s in range(8)]


@pytest.fixture
def kept(monkeypatch):
    """The matplotlib figures the plots draw, kept open (drawn) for a look at their layout."""
    from ruledraft.lab import plots

    figures = []

    def keep(fig):
        fig.canvas.draw()
        figures.append(fig)
        return b""

    monkeypatch.setattr(plots, "_png", keep)
    return figures


def _inside(fig, artist) -> bool:
    box, frame = artist.get_window_extent(), fig.bbox
    return frame.x0 <= box.x0 and box.x1 <= frame.x1 and frame.y0 <= box.y0 and box.y1 <= frame.y1


def test_eight_seats_win_share_labels_do_not_overlap(kept):
    """With eight seats the seat labels of the win-share plot are turned so that none overlaps the next, all inside the figure."""
    from ruledraft.lab import plots

    plots.win_shares(EIGHT, [("side", [0.125] * 8, [[0.1, 0.15]] * 8)], 0.125, "Win share per seat")
    fig = kept[-1]
    ticks = [t for t in fig.axes[0].get_xticklabels() if t.get_text()]
    assert [t.get_text() for t in ticks] == EIGHT
    import math

    # turned labels are parallel lines of text: apart by the ticks' spacing times the
    # sine of the angle, which must exceed a line's height
    ax = fig.axes[0]
    xs = [ax.transData.transform((x, 0))[0] for x in ax.get_xticks()]
    angle = math.radians(ticks[0].get_rotation())
    line = ticks[0].get_fontsize() * fig.dpi / 72
    assert 0 < angle and (xs[1] - xs[0]) * math.sin(angle) > line
    assert all(_inside(fig, t) for t in ticks)


def test_eight_seats_score_legend_stays_inside_the_figure(kept):
    """The score plot's legend of eight seats fits within the figure's width (no entry cut off at the right)."""
    from ruledraft.lab import plots

    plots.score_distribution([(label, {"10": 3, "12": 5}) for label in EIGHT], "Scores per seat", (10, 12), 5)
    fig = kept[-1]
    (legend,) = fig.legends
    assert [t.get_text() for t in legend.get_texts()] == EIGHT
    assert _inside(fig, legend)


def test_the_cards_table_gives_the_adjusted_effect_and_the_win_rate_per_copy_beside_the_raw_one(written, sim_figures):
    """The report's cards table shows each card's raw takers-minus-others figure, the one within seats (Mantel-Haenszel) with its interval, and the win rate per copy, as in --json."""
    cards = written["simulate"].page().tables["cards"]
    heads = cards[0]
    assert heads[-5:] == ["difference", "95% interval", "within seats", "95% interval", "per copy"]
    from ruledraft.lab.figures import formatted

    def pct(x):
        return formatted(x, ".1%")

    for row, c in zip(cards[1:], sim_figures["cards"]):
        adj = c["adjusted"]
        assert row[-3:-1] == (
            [pct(adj["difference"]), f"{pct(adj['interval'][0])} to {pct(adj['interval'][1])}"] if adj else ["-", "-"]
        )
        assert row[-1] == (pct(c["per_copy"]) if c["per_copy"] is not None else "-")


def test_a_directory_behind_a_folder_that_cannot_be_searched_is_one_line(tmp_path, monkeypatch):
    """--report under a folder that cannot be searched (EACCES): one line saying so, not a traceback."""
    import errno
    import pathlib

    from ruledraft.lab.report import prepare_directory

    locked = tmp_path / "locked"

    def stat(self, *args, **kwargs):
        if locked in (self, *self.parents):
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real_stat(self, *args, **kwargs)

    def mkdir(self, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(self))

    real_stat = pathlib.Path.stat
    monkeypatch.setattr(pathlib.Path, "stat", stat)
    monkeypatch.setattr(pathlib.Path, "mkdir", mkdir)
    with pytest.raises(ReportError) as info:
        prepare_directory(locked / "inner" / "r", keep=False)
    assert str(info.value) == f"{locked}/inner/r: cannot write the report there: Permission denied"


def test_a_report_stopped_while_it_draws_leaves_no_directory_made(tmp_path, monkeypatch):
    """A Ctrl-C while the plots are drawn (after the games) leaves no new directory of the report's behind, empty."""
    from ruledraft.lab import report

    def stopped(**kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "render", stopped)
    with pytest.raises(KeyboardInterrupt):
        report.write_report(tmp_path / "new" / "dir", title="t", command="c", sides=[("a", {})])
    assert list(tmp_path.iterdir()) == []


def test_the_seat_test_gives_its_verdict_in_words_as_the_terminal_does(tmp_path, sim_figures):
    """The seats' chi-square test reads as the terminal's line reads: "seats differ" below p = 0.05 (greedy
    against random), "no evidence seats differ" above (the same figures with the test's p set high); it said
    "all seats equal" in both, the hypothesis read as the result."""
    import copy
    import html
    import re

    assert sim_figures["seats_equal"]["p_value"] < 0.05
    calm = copy.deepcopy(sim_figures)
    calm["seats_equal"]["p_value"] = 0.638
    said = []
    for name, figures in (("differ", sim_figures), ("calm", calm)):
        page = simulate_report(tmp_path / name, figures).read_text(encoding="utf-8")
        said.append(html.unescape(re.search(r"<li>200 games; ([^<]*)</li>", page).group(1)))
    assert said[0].startswith("seats differ (chi-square test of equal wins: ")
    assert said[1].startswith("no evidence seats differ (chi-square test of equal wins: ") and said[1].endswith(
        "p = 0.638)"
    )
    assert all("all seats equal" not in s for s in said)
