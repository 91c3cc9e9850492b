"""What the process froze out of the collector's way, known without counting it."""

from __future__ import annotations

import gc

import pytest

from ruledraft import heap
from ruledraft.play.executor import steady_heap

#: gc.unfreeze itself (a test puts a recorder in its place)
_UNFREEZE = gc.unfreeze


@pytest.fixture
def thawed(monkeypatch):
    """A process with nothing frozen, as it is again after the test."""
    _UNFREEZE()
    monkeypatch.setattr(heap, "_FROZE", False)
    yield
    _UNFREEZE()


def test_nothing_frozen_is_counted_and_a_freeze_is_remembered(thawed):
    """With nothing frozen the count says so; heap.freeze() freezes and is remembered (no walk asked after)."""
    assert not heap.frozen()
    gc.freeze()
    assert heap.frozen()  # a caller's own gc.freeze, counted
    gc.unfreeze()
    heap.freeze()
    assert gc.get_freeze_count() > 0
    assert heap.frozen()


def test_a_run_leaves_the_heap_as_it_found_it(thawed, monkeypatch):
    """A run of games freezes and thaws a heap nothing had frozen, and never thaws one frozen by heap.freeze."""
    with steady_heap():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0
    heap.freeze()
    thawed_by_it = []
    monkeypatch.setattr(gc, "unfreeze", lambda: thawed_by_it.append(True))
    with steady_heap():
        pass
    assert thawed_by_it == []
    assert gc.get_freeze_count() > 0


def test_code_from_elsewhere_is_a_bot_s_a_plug_in_s_or_a_user_s_script(monkeypatch):
    """ruledraft's modules, its dependencies', Python's and the site's hooks are its own; a bot's file, a plug-in's
    or another package is code from elsewhere, and so is __main__ unless it is the ruledraft command's."""
    import sys
    import types

    monkeypatch.setattr(heap, "_LAUNCHED", True)
    own = ["ruledraft.play.executor", "numpy.linalg", "json", "_distutils_hack", "__editable___ruledraft_finder"]
    assert all(heap.own_module(name) for name in [*own, "__main__", "ruledraft_kernel_k_ab12"])
    for name in ("ruledraft_bot_mine", "ruledraft_plugin_kinds", "mybots.greedy"):
        assert not heap.own_module(name)
    loaded = frozenset(sys.modules)
    assert not heap.code_from_elsewhere(loaded)
    monkeypatch.setitem(sys.modules, "ruledraft_bot_mine", types.ModuleType("ruledraft_bot_mine"))
    assert heap.code_from_elsewhere(loaded)
    monkeypatch.setattr(heap, "_LAUNCHED", False)
    assert not heap.own_module("__main__")
