"""numba's function ids drawn at random, so that code compiled by two processes never shares a name.

numba names each function it compiles, and the environment the function's Python
wrapper reads its constants from, with an id counted from 1 in each process
(``FunctionIdentity._unique_ids``). Two processes that compile the same function after
the same number of others give it the same names, and numba's cache then mixes them:

* a kernel loaded from the cache carries copies of the environments of the functions it
  calls (the random streams' ``new_streams``, say), and numba keeps one environment per
  name in a process;
* a process that loaded such a kernel and then compiled ``new_streams`` itself, with an
  id that happened to be the same, added the constant its wrapper boxes (the arrays'
  dtype) a second time to the environment it found, and cached code that reads the
  second;
* a later process that loads the kernel first, then that ``new_streams``, keeps the
  kernel's copy of one constant, and the call ends in numba's "'descr' is NULL".

It happened to the test suite on a machine whose cache kept the kernels of an earlier run
and not the random streams' code (a new installation's path), as a user's cache would after
a reinstall; a wrong constant could also be read rather than none. Ids drawn at random
(62 bits from the operating system's generator, for each function, in every process and
every forked child) make names from two processes differ; numba uses the id for nothing
else. numba's issue 10486 is this collision of names.

:func:`install` puts this on numba only where its ids are the counter it is known to use;
anywhere else numba's own stand. Each module of this package that compiles with numba
imports this one.
"""

# ruff: noqa: SLF001 - it replaces numba's counter of function ids, by design
from __future__ import annotations

import itertools
import os


class RandomIds:
    """An endless iterator of random ids (62-bit whole numbers, never 0), for numba's ``next()``."""

    def __iter__(self) -> RandomIds:
        return self

    def __next__(self) -> int:
        return (int.from_bytes(os.urandom(8), "little") >> 2) or 1


def install() -> bool:
    """numba's function ids drawn at random (see the module's docstring); whether they are."""
    try:
        from numba.core.bytecode import FunctionIdentity
    except ImportError:  # a numba without this class keeps its own ids
        return False
    ids = FunctionIdentity.__dict__.get("_unique_ids")
    if isinstance(ids, RandomIds):
        return True
    if not isinstance(ids, itertools.count):
        return False
    FunctionIdentity._unique_ids = RandomIds()  # type: ignore[assignment]
    return True


install()
