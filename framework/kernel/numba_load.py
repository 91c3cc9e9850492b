"""ruledraft's compiled functions loaded from numba's cache without numba's compile-time registries.

Before it loads a function from its cache, numba refreshes its typing and target
contexts (``Cache.load_overload``): it imports and installs every registry of the
implementations it compiles with (numba.np, numba.cpython, numba.typed, jitclass...),
a tenth to a fifth of a second, the largest part of loading a cached kernel, though a
load uses none of them: it reads the machine code, links it and sets its
environments (whose modules it imports itself). Only numba's runtime (``rtsys``,
which the machine code allocates arrays through) must be ready first, and numba's
refresh is what readies it; and of the registries' modules one gives the machine code
symbols to link against (``numba.cpython.hashing``, the hash secrets), imported here
too: a symbol missing at a load ends the process, which no fallback could catch.

Here a function of ruledraft's (this package's modules and the kernel modules,
``ruledraft_kernel_...``) is loaded with the runtime readied and nothing refreshed;
a compile in the same process still refreshes both contexts itself (numba's
``CompilerBase`` does, whatever was loaded before), and so does a load of any other
code. Should a load fail this way, numba's own load (the refresh, then the load) is
made in its place. Measured as whole processes, the README's main job on a cached
kernel: see ``DEVELOPERS.md``.

:func:`install` puts this on numba only on the versions it was checked on
(``numba_link.TESTED_NUMBA``) and where numba's cache has what it calls, with the arguments it
passes; anywhere else numba's own stands. Each module of this package that compiles
with numba imports this one.
"""

# ruff: noqa: SLF001 - it wraps numba's cache driver, whose members it calls by design
from __future__ import annotations

import importlib
import inspect
from typing import Any

from ruledraft.kernel.numba_link import KERNEL_MODULE_PREFIX, tested_numba

#: the modules whose functions load without a refresh: this package's and the kernel modules
OWN_MODULES = ("ruledraft.", KERNEL_MODULE_PREFIX)

_ORIGINAL: dict[str, Any] = {}


def ours(cache: Any) -> bool:
    """Whether ``cache`` (numba's cache of one function) holds a function of ruledraft's."""
    module = getattr(getattr(cache, "_py_func", None), "__module__", None)
    return isinstance(module, str) and module.startswith(OWN_MODULES)


def _load_overload(self: Any, sig: Any, target_context: Any) -> Any:
    """numba's ``Cache.load_overload``, but for ruledraft's functions the runtime
    readied instead of every registry refreshed (see the module's docstring)."""
    if not ours(self):
        return _ORIGINAL["load_overload"](self, sig, target_context)
    from numba.core.runtime import rtsys

    try:
        rtsys.initialize(target_context)
        # the one module of the registries that gives the machine code symbols to link against
        # (the hash secrets of str and bytes): a symbol missing from a load ends the process
        importlib.import_module("numba.cpython.hashing")
        with self._guard_against_spurious_io_errors():
            return self._load_overload(sig, target_context)
    except Exception:  # noqa: BLE001 - numba's own load, refreshed, raises what it raises
        return _ORIGINAL["load_overload"](self, sig, target_context)


def _fits() -> Any:
    """numba's cache driver class, where it has what this module calls, with the
    arguments it passes, on a version it was checked on; else None."""
    try:
        from numba.core import caching
        from numba.core.runtime import rtsys

        if not tested_numba():
            return None
        cache: Any = caching.Cache
        wanted = {
            cache.load_overload: ["self", "sig", "target_context"],
            cache._load_overload: ["self", "sig", "target_context"],
            cache._guard_against_spurious_io_errors: ["self"],
            rtsys.initialize: ["ctx"],
        }
        if any(list(inspect.signature(f).parameters) != names for f, names in wanted.items()):
            return None
    except Exception:  # noqa: BLE001 - a numba made otherwise keeps its own load
        return None
    return cache


def install() -> bool:
    """Load ruledraft's cached functions without refreshing numba's registries (see the
    module's docstring), where numba is as this module expects; whether it is on."""
    if _ORIGINAL:
        return True
    cache = _fits()
    if cache is None:
        return False
    _ORIGINAL["load_overload"] = cache.load_overload
    cache.load_overload = _load_overload
    return True


install()
