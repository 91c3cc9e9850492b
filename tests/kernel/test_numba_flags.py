"""numba's compile flags, compared by ruledraft.kernel.numba_flags, answer as numba's own methods."""

from __future__ import annotations

import subprocess
import sys

import pytest

pytest.importorskip("numba")

from hypothesis import given  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from numba.core.compiler import Flags  # noqa: E402

from ruledraft.kernel import numba_flags  # noqa: E402

#: values to give the options: each option's default among them, so that a flag given its
#: default and one left unset are compared too
_GIVEN = {
    "nrt": [False, True],
    "no_cpython_wrapper": [False, True],
    "no_cfunc_wrapper": [False, True],
    "boundscheck": [False, True],
    "enable_ssa": [True, False],
    "error_model": ["python", "numpy"],
    "inline": ["never", "always"],
}


def _flags(given: dict[str, object]) -> Flags:
    flags = Flags()
    for name, value in given.items():
        setattr(flags, name, value)
    return flags


_settings = st.fixed_dictionaries({}, optional={name: st.sampled_from(values) for name, values in _GIVEN.items()})


@pytest.mark.parametrize("module", ["ruledraft.kernel.rng", "ruledraft.kernel.fold", "ruledraft.kernel.rollout"])
def test_each_module_that_compiles_puts_the_quick_comparison_on(module):
    """In a fresh process, importing a module that compiles with numba (the random streams
    every kernel module compiles with, the lab's fold, ismcts's re-deal) puts the quick
    comparison and hash on numba's flags."""
    code = (
        f"import {module}\n"
        "from numba.core.targetconfig import TargetConfig\n"
        "print(TargetConfig.__eq__.__module__, TargetConfig.__hash__.__module__)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["ruledraft.kernel.numba_flags"] * 2
    assert numba_flags.quicken()


@given(_settings, _settings)
def test_flags_compare_and_hash_as_numba_compares_and_hashes_them(a, b):
    """Any two sets of given options (defaults given or left unset alike): equal, and
    hashed, exactly as numba's own methods say."""
    one, other = _flags(a), _flags(b)
    assert (one == other) == numba_flags.NUMBA_EQ(one, other)
    assert (one != other) == (not numba_flags.NUMBA_EQ(one, other))
    assert hash(one) == numba_flags.NUMBA_HASH(one)
    assert one.__eq__("nrt") is numba_flags.NUMBA_EQ(one, "nrt") is NotImplemented
    if one == other:
        assert hash(one) == hash(other)
        assert {one: 1}[other] == 1
