"""The plug-ins' entry points, remembered between runs: the same entry points, without importlib.metadata."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from ruledraft import entry_points as eps

#: a process that lists the entry points of a group and says whether it imported
#: importlib.metadata (or, watching it, how often it asked it for entry points)
LIST = """
import json, sys
asked = []
if len(sys.argv) > 2:
    import importlib.metadata as md
    real = md.entry_points
    md.entry_points = lambda **k: asked.append(1) or real(**k)
from ruledraft.entry_points import entry_points
found = [(ep.name, ep.value) for ep in entry_points(sys.argv[1])]
print(json.dumps({"found": found, "metadata": "importlib.metadata" in sys.modules, "asked": len(asked)}))
"""


def _dist(site, name: str, group: str, line: str):
    info = site / f"{name}-1.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n", encoding="utf-8")
    (info / "entry_points.txt").write_text(f"[{group}]\n{line}\n", encoding="utf-8")
    return info


def _list(group: str, site, cache, *watch: str, **env: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", LIST, group, *watch],
        env={**os.environ, "PYTHONPATH": str(site), "XDG_CACHE_HOME": str(cache), eps.MEMO: "1", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("group", eps.GROUPS)
def test_a_later_run_finds_the_same_entry_points_without_importlib_metadata(group, tmp_path):
    """Each group's entry points, found once, are found again in a new process from the
    memo, without asking importlib.metadata for them (only its EntryPoint is made); with
    the memo off it is asked again."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    _dist(site, "fake_plugin", group, "thing = fake_plugin:THING")
    first, second = _list(group, site, cache, "watch"), _list(group, site, cache, "watch")
    assert first["found"] == second["found"] == [["thing", "fake_plugin:THING"]]
    assert first["asked"] and not second["asked"]
    assert _list(group, site, cache, "watch", **{eps.MEMO: "0"})["asked"]


def test_no_plug_in_at_all_is_remembered_too(tmp_path):
    """With no package naming a bot, a second run learns that from the memo alone."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    site.mkdir()
    assert _list("ruledraft.bots", site, cache) == {"found": [], "metadata": True, "asked": 0}
    assert _list("ruledraft.bots", site, cache) == {"found": [], "metadata": False, "asked": 0}


def test_a_package_installed_changed_or_removed_is_seen_at_once(tmp_path):
    """A package added, its entry points edited (same folder, a new file), or removed:
    the next run lists what is installed now, not what was remembered."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    group = "ruledraft.scoring_kinds"
    site.mkdir()
    assert _list(group, site, cache)["found"] == []
    info = _dist(site, "fake_kinds", group, "longest = fake_kinds:ONE")
    assert _list(group, site, cache)["found"] == [["longest", "fake_kinds:ONE"]]
    listing = info / "entry_points.txt"
    listing.write_text(f"[{group}]\nlongest = fake_kinds:TWO\nshortest = fake_kinds:THREE\n", encoding="utf-8")
    os.utime(listing, ns=(1, 1))  # even with an old time: its size changed
    assert _list(group, site, cache)["found"] == [["longest", "fake_kinds:TWO"], ["shortest", "fake_kinds:THREE"]]
    for f in info.iterdir():
        f.unlink()
    info.rmdir()
    assert _list(group, site, cache)["found"] == []


def test_sys_path_changed_in_the_process_is_seen(tmp_path, monkeypatch):
    """A folder put on sys.path after a first look (as a test or an installer does) is
    read at the next call in the same process."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv(eps.MEMO, "1")
    group = "ruledraft.card_effects"
    before = [(ep.name, ep.value) for ep in eps.entry_points(group)]
    _dist(tmp_path / "site", "fake_effects", group, "flip = fake_effects:FLIP")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    assert [(ep.name, ep.value) for ep in eps.entry_points(group)] == [*before, ("flip", "fake_effects:FLIP")]
    (found,) = [ep for ep in eps.entry_points(group) if ep.name == "flip"]
    assert (found.group, found.module, found.attr) == (group, "fake_effects", "FLIP")


def test_a_damaged_memo_is_asked_again(tmp_path):
    """A memo file that is not JSON, or not the memo's shape, is taken as nothing remembered."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    _dist(site, "fake_bots", "ruledraft.bots", "last = fake_bots:Last")
    _list("ruledraft.bots", site, cache)
    memo = cache / "ruledraft" / "entry-points.json"
    damages = ("{not json", json.dumps(["a list"]), json.dumps({"format": eps.FORMAT, "kept": [["x", 3], 4]}))
    for damage in damages:
        memo.write_text(damage, encoding="utf-8")
        again = _list("ruledraft.bots", site, cache, "watch")
        assert again["found"] == [["last", "fake_bots:Last"]] and again["asked"]


def test_a_package_installed_into_a_folder_on_the_path_is_seen_in_the_same_process(tmp_path, monkeypatch):
    """A folder already on sys.path that gains a package between two calls (its time
    changes) is looked through again; while nothing changes, what was found is kept."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv(eps.MEMO, "1")
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    group = "ruledraft.bots"
    before = [(ep.name, ep.value) for ep in eps.entry_points(group)]
    looked = []
    real = eps._where
    monkeypatch.setattr(eps, "_where", lambda: looked.append(1) or real())
    assert [(ep.name, ep.value) for ep in eps.entry_points(group)] == before and not looked
    _dist(site, "late_bots", group, "late = late_bots:Late")
    assert [(ep.name, ep.value) for ep in eps.entry_points(group)] == [*before, ("late", "late_bots:Late")]
    assert looked


def test_two_environments_sharing_a_cache_each_keep_theirs(tmp_path):
    """Two sets of folders on the path (two virtual environments, say) with one cache:
    each one's entry points are kept beside the other's, so neither asks again."""
    cache = tmp_path / "cache"
    one, two = tmp_path / "one", tmp_path / "two"
    _dist(one, "bots_one", "ruledraft.bots", "first_one = bots_one:One")
    _dist(two, "bots_two", "ruledraft.bots", "first_two = bots_two:Two")
    for site in (one, two):
        assert _list("ruledraft.bots", site, cache, "watch")["asked"]
    for site, name in ((one, "first_one"), (two, "first_two")):
        again = _list("ruledraft.bots", site, cache, "watch")
        assert again["found"][0][0] == name and not again["asked"]
