"""numba's compile flags compared quickly, with numba's own answers.

numba keys the implementations its typing templates make by the flags of the compile in
hand (a ``TargetConfig``), and hashes and compares those by value: every lookup builds
the dictionary of every option's value (two dozen, each read through a property) once for the
hash and twice for the comparison. A kernel's compile makes tens of thousands of
lookups. Measured alternated at the optimisation level the test suite compiles its
kernels at (``tests/conftest.py``), in processor time: Master Menu's game loop
37.2 -> 33.3 s (four pairs), Dinner for Two's 44.1 -> 39.0 s and Sushi Go!'s
13.6 -> 12.7 s (three pairs each); at numba's full optimisation, where LLVM's passes take
most of a compile, Sushi Go!'s measured the same (21.1 s either way, three pairs).

Here the hash is the one numba computes, which only ever depends on the options' names
(it sorts the dictionary of values, that is its keys); two flags of one kind whose
given options are the same are equal without reading the others; and any other two are
compared as numba compares them, every option's value, read where numba's properties
read it (the given value, else the option's default). :func:`quicken` puts these on
numba's ``TargetConfig`` only where numba's flags behave as this module expects
(checked on real flags first); anywhere else numba's own stand. Each module of this
package that compiles with numba imports this one.
"""

from __future__ import annotations

from typing import Any

from numba.core import targetconfig

#: numba's base class of flags and target options (untyped)
TargetConfig: Any = targetconfig.TargetConfig

#: numba's own methods, as they were before :func:`quicken`
NUMBA_EQ = TargetConfig.__eq__
NUMBA_HASH = TargetConfig.__hash__

_HASHES: dict[type, int] = {}


def _values(config: Any) -> dict[str, Any]:
    """Every option's value, as numba's ``TargetConfig.values`` reads them."""
    given = config._values  # noqa: SLF001 - numba's own store of the given options
    return {name: given.get(name, option.default) for name, option in config.options.items()}


def _eq(self: Any, other: Any) -> Any:
    if not isinstance(other, TargetConfig):
        return NotImplemented
    if self.options is other.options and self._values == other._values:  # noqa: SLF001 - as above
        return True
    return _values(self) == _values(other)


def _hash(self: Any) -> int:
    kind = type(self)
    known = _HASHES.get(kind)
    if known is None:
        known = _HASHES[kind] = hash(tuple(sorted(self.options)))
    return known


def _as_numba_reads(config: Any) -> bool:
    """Whether numba's flags read their values, and hash, as :func:`_values` and :func:`_hash` do."""
    try:
        return bool(_values(config) == config.values() and _hash(config) == NUMBA_HASH(config))
    except Exception:  # noqa: BLE001 - a numba whose flags are made otherwise keeps its own methods
        return False


def quicken() -> bool:
    """Put the quick comparison and hash on numba's flags, where they answer as numba's
    own (checked on its compile flags, unset and set); whether they are on."""
    if TargetConfig.__eq__ is _eq:
        return True
    try:
        from numba.core import compiler

        flags: Any = compiler.Flags
        plain, given = flags(), flags()
        given.nrt = True
        given.no_cpython_wrapper = True
    except Exception:  # noqa: BLE001 - as above
        return False
    if not (_as_numba_reads(plain) and _as_numba_reads(given)):
        return False
    _HASHES.clear()
    TargetConfig.__eq__ = _eq
    TargetConfig.__hash__ = _hash
    return True


quicken()
