"""A kernel's inner functions linked into its entry points, not made machine code apart.

numba compiles each function into a library of its own and finalizes it at once: it
links in the libraries of the functions it calls (each finalized the same way before),
runs LLVM's module passes over the whole and makes its machine code. A kernel is about
a hundred functions called five or six deep, so the code of an inner function was
optimized and made machine code once for itself and again in every caller above it,
though Python only ever calls the entry points (``codegen.ENTRY_POINTS``): the other
functions have neither a Python nor a C wrapper (codegen's ``_UNWRAPPED``), and no
machine code of theirs is ever run but as part of an entry point's.

Here the library of a kernel module's function without either wrapper (a module
``kernel._import`` names ``ruledraft_kernel_...``; numba's own and any other code in the
process compile as numba makes them) is kept as LLVM IR to be linked, unless a function
calls it recursively (numba's recursive calls find their callee by name in machine code):
finalizing it links its callees' IR and does nothing else; the entry point's finalizing
links everything it calls, optimizes it and makes its machine code, once. The games
are the same (each function's own passes still run as it is lowered, and LLVM's module
passes see the whole entry point as before). numba caches every function of a kernel
module: such a function's cache entry holds its IR, so an entry point compiled later in
another process (``play_planner``, ``rollout``) links the cached callees as before.

Measured in processor time on a fresh cache: Dinner for Two's game loop 41.0 -> 25.6 s
at the test suite's optimisation level, and its planner's loop after it (the inner
functions loaded from the cache) 23.9 -> 14.2 s; at numba's full level, as whole
processes compiling the game loop (paired runs, load about 1), Dinner for Two 72.2 ->
53.8 s (peak 561 -> 521 MB) and Sushi Go! 20.5 -> 19.1 s; the kernels' games per second
the same.

:func:`install` puts this on numba only on the versions it was checked on (``TESTED_NUMBA``)
and where its classes have what it wraps, with the arguments it passes; anywhere else
numba's own stand. Each module of this package that compiles with numba imports this one.
"""

# ruff: noqa: SLF001 - it wraps numba's code libraries, whose members it reads and sets by design
from __future__ import annotations

import importlib
import inspect
from typing import Any

#: the serialization kind of an inner function's library in numba's cache: its IR, ready to link
KIND = "ruledraft-linked-ir"
#: the modules whose inner functions are linked: the kernel modules (``kernel._import``
#: names them so); every other function numba compiles in the process is left as numba
#: makes it
KERNEL_MODULE_PREFIX = "ruledraft_kernel_"
#: the numba versions this module was checked on (its tests): on any other, numba's own stand
TESTED_NUMBA = ((0, 68),)
#: the mangled names of kernel functions called recursively, seen so far in the process
_RECURSION_TARGETS: set[str] = set()

_ORIGINAL: dict[str, Any] = {}


def _inner(library: Any) -> bool:
    return bool(getattr(library, "_ruledraft_inner", False))


def _finalize(self: Any) -> None:
    """An inner function's library: its callees' IR linked in, no module passes, no machine code."""
    if not _inner(self):
        _ORIGINAL["finalize"](self)
        return
    from numba.core import codegen

    lock: Any = codegen.require_global_compiler_lock
    lock()
    self._raise_if_finalized()
    seen = set()
    for library in self._linking_libraries:
        if library not in seen:
            seen.add(library)
            self._reload_init.update(library._reload_init)
            self._final_module.link_in(library._get_module_for_linking(), preserve=True)
    self._finalize_dynamic_globals()  # what numba's cache asks of every library
    self._finalized = True


def _get_pointer_to_function(self: Any, name: str) -> int:
    """An inner function has no machine code of its own: no address (numba's 0, for a
    symbol a library does not define, as for a wrapper it never made)."""
    if _inner(self):
        self._ensure_finalized()
        return 0
    return int(_ORIGINAL["get_pointer_to_function"](self, name))


def _serialize_using_object_code(self: Any) -> Any:
    """An inner function's cache entry: its IR, made ready to link (numba's shared module)."""
    if _inner(self):
        self._ensure_finalized()
        return (self.name, KIND, self._get_module_for_linking().as_bitcode())
    return _ORIGINAL["serialize_using_object_code"](self)


def _unserialize(cls: Any, codegen: Any, state: Any) -> Any:
    name, kind, data = state
    if kind != KIND:
        return _ORIGINAL["_unserialize"](codegen, state)
    ll: Any = importlib.import_module("llvmlite.binding")
    self = codegen.create_library(name)
    self._ruledraft_inner = True
    self._final_module = self._shared_module = ll.parse_bitcode(data)
    self._finalized = True
    return self


def _get_executable(self: Any, library: Any, fndesc: Any, env: Any) -> Any:
    """A function of a kernel module whose library defines neither of its wrappers
    (reached from compiled code only) is marked inner before its library is finalized,
    unless a function calls it recursively (numba's recursive call finds its callee by
    name in machine code). numba's callable for an inner function (compiled, or loaded
    from the cache) has no address, as before, and its environment is set nowhere, as a
    callee's is not when its entry point is loaded from the cache."""
    kernel = str(getattr(fndesc, "modname", "")).startswith(KERNEL_MODULE_PREFIX)
    if (
        kernel
        and _linkable(library)
        and not _defines(library, fndesc.llvm_cpython_wrapper_name)
        and not _defines(library, fndesc.llvm_cfunc_wrapper_name)
    ):
        _RECURSION_TARGETS.update(_unresolved(library))
        library._ruledraft_inner = fndesc.mangled_name not in _RECURSION_TARGETS
    if not _inner(library):
        made = _ORIGINAL["get_executable"](self, library, fndesc, env)
        if kernel:  # only a kernel's functions link inner ones
            _set_linked_envs(library)
        return made
    dynfunc: Any = importlib.import_module("numba._dynfunc")
    library._ensure_finalized()
    name = fndesc.qualname.split(".")[-1]
    return dynfunc.make_function(fndesc.lookup_module(), name, f"linked {name}", 0, env, (library,))


def _unresolved(library: Any) -> set[str]:
    """The functions a library's own code calls recursively (numba calls them through a
    pointer it sets once some machine code defines them by name)."""
    from numba.core import codegen

    prefix = str(codegen.RuntimeLinker.PREFIX)
    return {v.name[len(prefix) :] for v in library._final_module.global_variables if v.name.startswith(prefix)}


def _set_linked_envs(library: Any) -> None:
    """The environments of the inner functions a library links, set in its machine code
    (numba sets each function's own as it makes its machine code, and all a cached
    library names as it loads it): a raise with values made at run time reads them."""
    from numba.core import environment

    lookup: Any = environment.lookup_environment
    for variable in library._final_module.global_variables:
        if variable.name.startswith("_ZN08NumbaEnv"):
            env = lookup(variable.name)
            if env is not None:
                library.codegen.set_env(variable.name, env)


def _set_env(self: Any, env_name: str, env: Any) -> None:
    """numba's, but not for an environment no machine code holds: an inner function's
    library loaded from the cache names its environment among those to set, and has no
    machine code (numba would write through a null address)."""
    if self._engine.get_global_value_address(env_name):
        _ORIGINAL["set_env"](self, env_name, env)


#: what a library must have for :func:`_finalize` and :func:`_unserialize` (numba's CPU library's own)
_NEEDED = ("_linking_libraries", "_final_module", "_reload_init", "_shared_module")
_CALLED = ("_finalize_dynamic_globals", "_get_module_for_linking", "_raise_if_finalized", "_ensure_finalized")


def _linkable(library: Any) -> bool:
    """Whether ``library`` is one this module can keep as IR: not finalized yet, with
    what :func:`_finalize` reads and calls."""
    return (
        getattr(library, "_finalized", True) is False
        and all(hasattr(library, name) for name in _NEEDED)
        and all(callable(getattr(library, name, None)) for name in _CALLED)
    )


def _defines(library: Any, name: str) -> bool:
    try:
        function = library._final_module.get_function(name)
    except NameError:
        return False
    return not function.is_declaration


def tested_numba() -> bool:
    """Whether the numba installed is a version this package's changes to it were checked on (``TESTED_NUMBA``)."""
    import numba

    return tuple(int(part) for part in numba.__version__.split(".")[:2]) in TESTED_NUMBA


def _fits() -> tuple[Any, Any, Any] | None:
    """numba's JIT library class, CPU context and JIT code generator, where they have what this module
    wraps and reads, with the arguments it passes; else None."""
    try:
        from numba.core import codegen, cpu

        if not tested_numba():
            return None

        library: Any = codegen.JITCodeLibrary
        context: Any = cpu.CPUContext
        jit: Any = codegen.JITCPUCodegen
        wanted = {
            library.finalize: ["self"],
            library.get_pointer_to_function: ["self", "name"],
            library.serialize_using_object_code: ["self"],
            library._unserialize.__func__: ["cls", "codegen", "state"],
            context.get_executable: ["self", "library", "fndesc", "env"],
            jit.set_env: ["self", "env_name", "env"],
        }
        if any(list(inspect.signature(f).parameters) != names for f, names in wanted.items()):
            return None
        getattr(codegen, "require_global_compiler_lock")  # noqa: B009 - there, or not this numba
        getattr(codegen.RuntimeLinker, "PREFIX")  # noqa: B009 - as above
    except Exception:  # noqa: BLE001 - a numba made otherwise keeps its own methods
        return None
    return library, context, jit


def install() -> bool:
    """Keep the kernel's inner functions as IR until their entry point (see the module's
    docstring), where numba is as this module expects; whether it is on."""
    if _ORIGINAL:
        return True
    fits = _fits()
    if fits is None:
        return False
    library, context, jit = fits
    _ORIGINAL.update(
        finalize=library.finalize,
        get_pointer_to_function=library.get_pointer_to_function,
        serialize_using_object_code=library.serialize_using_object_code,
        _unserialize=library._unserialize,
        get_executable=context.get_executable,
        set_env=jit.set_env,
    )
    library.finalize = _finalize
    library.get_pointer_to_function = _get_pointer_to_function
    library.serialize_using_object_code = _serialize_using_object_code
    library._unserialize = classmethod(_unserialize)
    context.get_executable = _get_executable
    jit.set_env = _set_env
    return True


install()
