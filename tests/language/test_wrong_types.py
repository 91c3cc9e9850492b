"""Every value a rule file gives is checked for type and range before it is used:
a wrong value anywhere (null, a list, a mapping, a word, 1e3, .inf, a number past
any bound, a negative one, true) is a located diagnostic, never a crash, a hang or
a run out of memory. Generated over the leaves of rule files that between them use
the whole language."""

from __future__ import annotations

import copy
import resource
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from paths import ROOT

from ruledraft.language.loading import check_ruleset

FILES = (
    "rulesets/sushi-go.yaml",
    "rulesets/sushi-go-two-player-dummy.yaml",
    "rulesets/sushi-go-party.yaml",
    "examples/my-party-menu.yaml",
    "examples/caravan-bazaar.yaml",
    "examples/sushi-go-switchback.yaml",
    "examples/midnight-apothecary.yaml",
    "examples/meadow-keepers.yaml",
)
WRONG: tuple[Any, ...] = (None, [3], {"x": 1}, "word", 1e3, float("inf"), 10**30, -5, True, 0)


def _places(data: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every value's path in ``data``: mappings and lists themselves, and what they hold."""
    if path:
        yield path
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _places(value, path + (key,))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            yield from _places(value, path + (i,))


def _shape(path: tuple[Any, ...]) -> tuple[Any, ...]:
    return tuple("*" if isinstance(p, int) else p for p in path)


def _cases() -> list[tuple[str, tuple[Any, ...], Any]]:
    """One place per shape of path in each file, each given the next wrong value in
    turn (every wrong value comes round many times over the places)."""
    out = []
    turn = 0
    for name in FILES:
        data = yaml.safe_load((ROOT / name).read_text())
        seen = set()
        for path in _places(data):
            if _shape(path) in seen:
                continue
            seen.add(_shape(path))
            out.append((name, path, WRONG[turn % len(WRONG)]))
            turn += 1
    return out


CASES = _cases()


@pytest.fixture(scope="module", autouse=True)
def bounded_memory():
    """A check that built a billion-entry range would fail here, not take the machine."""
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = 4 * 1024**3
    if soft == resource.RLIM_INFINITY or soft > cap:
        resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    yield
    resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def test_the_cases_reach_every_file_and_every_wrong_value():
    """The generated cases cover each file and give every wrong value many times."""
    assert {c[0] for c in CASES} == set(FILES)
    for value in WRONG:
        assert sum(1 for c in CASES if repr(c[2]) == repr(value)) > 20


@pytest.mark.parametrize("name", FILES)
def test_a_wrong_value_anywhere_is_a_located_diagnostic(name):
    """Each wrong value at each place of the file gives located diagnostics, or none
    where the value is allowed there, and never raises."""
    base = yaml.safe_load((ROOT / name).read_text())
    crashed = []
    for file, path, value in CASES:
        if file != name:
            continue
        data = copy.deepcopy(base)
        holder = data
        for p in path[:-1]:
            holder = holder[p]
        holder[path[-1]] = value
        try:
            result = check_ruleset(ROOT / name, text=yaml.safe_dump(data))
        except Exception as e:  # noqa: BLE001 - the point: nothing may escape
            crashed.append(f"{path} = {value!r}: {type(e).__name__}: {e}"[:200])
            continue
        for d in result.diagnostics:
            assert d.line >= 1 and d.column >= 1, (path, value, d)
    assert not crashed, "\n".join(crashed)


def _edited(name: str, old: str, new: str) -> str:
    text = (ROOT / name).read_text()
    assert old in text, (name, old)
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("name", "old", "new", "message"),
    [
        (
            "examples/caravan-bazaar.yaml",
            "players: {min: 2, max: 6}",
            "players: {min: 3, max: 1000000000}",
            "25:24: error: 'max' must be at most 16, not 1000000000",
        ),
        (
            "rulesets/sushi-go-party.yaml",
            "players: {min: 2, max: 8}",
            "players: {min: 3, max: 1000000000}",
            "30:24: error: 'max' must be at most 16, not 1000000000",
        ),
        (
            "examples/sushi-go-switchback.yaml",
            "players: {min: 3}}",
            "players: {min: null}}",
            "23:37: error: 'min' must be a whole number, not an empty value",
        ),
        (
            "examples/sushi-go-switchback.yaml",
            "players: {min: 3}}",
            "players: [3]}",
            "23:31: error: 'players' must be a mapping, not a list",
        ),
        (
            "examples/sushi-go-switchback.yaml",
            "players: {min: 3}}",
            "players: {min: 1e3}}",
            "23:37: error: 'min' must be a whole number, not '1e3'",
        ),
        (
            "examples/sushi-go-switchback.yaml",
            "players: {min: 3}}",
            "players: {min: .inf}}",
            "23:37: error: 'min' must be a whole number, not inf",
        ),
        (
            "rulesets/sushi-go-two-player-dummy.yaml",
            "    seats: 1",
            "    seats: null",
            "23:12: error: 'seats' must be a whole number, not an empty value",
        ),
        (
            "examples/my-party-menu.yaml",
            "menu:",
            "cards: 1\nmenu:",
            "error: 'cards' must be a list, not 1",
        ),
    ],
    ids=["huge max", "huge max, library", "null min", "list", "1e3", "inf", "dummy seats null", "cards: 1"],
)
def test_the_reported_wrong_values_are_located_errors(name, old, new, message):
    """The wrong values found by hand (a billion players, a card's players of the wrong
    type, a dummy's seats of null, a menu's cards of 1) are located errors."""
    result = check_ruleset(ROOT / name, text=_edited(name, old, new))
    assert any(d.format().endswith(message) for d in result.diagnostics), [d.format() for d in result.diagnostics]
    assert not result.ok
