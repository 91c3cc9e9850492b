"""Registries of named units, and the plug-ins that add to them.

A unit is a self-contained piece of the language: for a scoring kind, its schema
fragment, its builder and its rule class (which scores and describes itself). The
built-in units are registered when :mod:`ruledraft.language.kinds` is imported;
others come from

* an installed package, through an entry point in a registry's group (for scoring
  kinds ``ruledraft.scoring_kinds``, for card effects ``ruledraft.card_effects``);
  the entry point names a unit, or a function called with no arguments that
  registers units itself;
* a module or ``.py`` file named by ``ruledraft --plugin MODULE_OR_FILE.py``
  (:func:`load_plugin`), which registers its units when imported.

A rule file never names code to import: it can only use the kinds registered.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import os
import re
import sys
import sysconfig
import threading
from collections.abc import Iterator
from typing import Generic, Protocol, TypeVar

from ruledraft.entry_points import entry_points
from ruledraft.errors import InputError, described, stop_behind
from ruledraft.language.file_access import file_kind

#: plug-in modules and files loaded in this process (``--plugin``), passed on to
#: worker processes that start afresh (where processes cannot fork)
PLUGINS_ENV = "RULEDRAFT_PLUGINS"

NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")


class PluginError(InputError):
    """A plug-in that cannot be loaded, or a unit that cannot be registered."""


class Named(Protocol):
    @property
    def name(self) -> str: ...


U = TypeVar("U", bound=Named)


class Registry(Generic[U]):
    """The units of one sort (scoring kinds; card effects, triggers and turn shapes
    follow the same pattern), in the order they were registered.

    ``generation`` changes whenever the set of units does, so anything derived
    from them (the schema, its validator) can be cached per generation.
    """

    def __init__(self, what: str, group: str) -> None:
        self.what = what
        self.group = group
        self._units: dict[str, U] = {}
        self._builtin: set[str] = set()
        self._generation = 0
        self._plugins_loaded = False

    def register(self, unit: U, *, builtin: bool = False) -> U:
        """Add ``unit``; :class:`PluginError` if its name is malformed or taken by another unit."""
        name = unit.name
        if not isinstance(name, str) or not NAME.match(name):
            raise PluginError(f"{self.what} name {name!r} must be lower-case letters, digits and _ (a letter first)")
        known = self._units.get(name)
        if known is unit:
            return unit
        if known is not None:
            raise PluginError(f"a {self.what} named '{name}' is already registered (by {_origin(_module_of(known))})")
        self._units[name] = unit
        if builtin:
            self._builtin.add(name)
        self._generation += 1
        _registered_from.append(_module_of(unit))
        if not builtin:  # its code's failures are then said to be the plug-in's (plugin_failure)
            _note_module(_module_of(unit))
        return unit

    def unregister(self, name: str) -> None:
        """Remove a unit that is not built in (tests, and a plug-in that replaces its own)."""
        if name in self._builtin:
            raise PluginError(f"the built-in {self.what} '{name}' cannot be removed")
        if self._units.pop(name, None) is not None:
            self._generation += 1

    def is_builtin(self, name: str) -> bool:
        return name in self._builtin

    def get(self, name: str) -> U | None:
        self.load_plugins()
        return self._units.get(name)

    def units(self, *, builtin_only: bool = False) -> tuple[U, ...]:
        if builtin_only:
            return tuple(u for n, u in self._units.items() if n in self._builtin)
        self.load_plugins()
        return tuple(self._units.values())

    def names(self) -> tuple[str, ...]:
        return tuple(u.name for u in self.units())

    def __iter__(self) -> Iterator[U]:
        return iter(self.units())

    @property
    def generation(self) -> int:
        self.load_plugins()
        return self._generation

    def load_plugins(self) -> None:
        """Once per process: the installed packages' entry points, then the plug-ins
        the parent process was given (see :data:`PLUGINS_ENV`)."""
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        for ep in entry_points(self.group):
            try:
                target = ep.load()
            except BaseException as e:  # noqa: BLE001 - any failure of foreign code is one message
                if stop_behind(e):
                    raise
                raise PluginError(
                    f"entry point '{ep.name}' ({ep.value}) in {self.group} failed to load: {described(e)}"
                ) from None
            _note_module(getattr(target, "__module__", None) or ep.module)
            self._take(target, f"entry point '{ep.name}' ({ep.value}) in {self.group}")
        for spec in filter(None, os.environ.get(PLUGINS_ENV, "").split(os.pathsep)):
            load_plugin(spec)

    def _take(self, target: object, where: str) -> None:
        if isinstance(target, type(self)):
            return
        if callable(target) and not hasattr(target, "name"):
            try:
                target = target()
            except PluginError:
                raise
            except Exception as e:  # noqa: BLE001
                raise PluginError(f"{where} failed: {described(e)}") from None
            if target is None:
                return
        if not isinstance(getattr(target, "name", None), str):
            raise PluginError(f"{where} is not a {self.what}")
        self.register(target)  # type: ignore[arg-type]


#: the module of every unit registered in this process, in order (see :func:`load_plugin`)
_registered_from: list[str] = []


def _module_of(unit: object) -> str:
    """The module that defined ``unit``: its builder's (a scoring kind or card effect
    registered with a function that builds its rules), else a function's own, or an
    instance's class's."""
    build = getattr(unit, "build", None)
    own = getattr(build, "__module__", None) if callable(build) else None
    if isinstance(own, str):
        return own
    own = getattr(unit, "__module__", None)
    return own if isinstance(own, str) else type(unit).__module__


def _naming(spec: str, e: PluginError) -> PluginError:
    """``e``, raised while plug-in ``spec`` was imported, saying so (once)."""
    text = str(e)
    return e if text.startswith("plug-in ") else PluginError(f"plug-in '{spec}': {text}")


def _origin(module: str) -> str:
    """Where a unit's module came from, for messages: a plug-in file's path, else the
    module's name (ruledraft's own units: "ruledraft")."""
    if module == "ruledraft" or module.startswith("ruledraft."):
        return "ruledraft"
    path = getattr(sys.modules.get(module), "__file__", None)
    return f"'{path}'" if module.startswith("ruledraft_plugin_") and isinstance(path, str) else f"module '{module}'"


def _python_file(spec: str, path: str) -> None:
    """:class:`PluginError` unless ``path`` is a regular file: a FIFO would block the
    import, a directory or device is no Python file."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise PluginError(f"plug-in '{spec}': no such file") from None
    except OSError as e:
        raise PluginError(f"plug-in '{spec}': {e.strerror or e}") from None
    what = file_kind(st.st_mode)
    if what == "not a regular file":
        raise PluginError(f"plug-in '{spec}': {what}")
    if what is not None:
        raise PluginError(f"plug-in '{spec}': {what}, not a Python file")
    if not os.access(path, os.R_OK):
        raise PluginError(f"plug-in '{spec}': permission denied")


_loaded: list[str] = []


def prints_to_stderr(*, descriptor: bool = False) -> contextlib.AbstractContextManager[object]:
    """Around code from outside (a plug-in, a bot): what it prints goes to standard
    error, so a run's output (``--json``, ``schema``, the tables) stays whole. In the
    main thread only: the swap is of the process's one ``sys.stdout``, which threads
    (a server's tables) would restore in the wrong order. With ``descriptor`` (a bot's
    move), file descriptor 1 is pointed at standard error too, for what reaches it
    past ``sys.stdout`` (a program it runs, C code, ``os.write(1, ...)``): two system
    calls each way, which a plug-in's rule, called far more often, is spared."""
    if threading.current_thread() is not threading.main_thread():
        return contextlib.nullcontext()
    if descriptor:
        return _both_to_stderr()
    return contextlib.redirect_stdout(sys.stderr)


@contextlib.contextmanager
def _both_to_stderr() -> Iterator[None]:
    with contextlib.redirect_stdout(sys.stderr):
        try:
            saved = os.dup(1)
        except OSError:  # no descriptor 1 to point elsewhere
            yield
            return
        try:
            os.dup2(2, 1)
            yield
        finally:
            os.dup2(saved, 1)
            os.close(saved)


def load_plugin(spec: str) -> None:
    """Import a plug-in: a module name (``my_kinds``) or a Python file (``my_kinds.py``).

    It registers its units when imported. Loading the same plug-in twice does
    nothing the second time. Any failure is one :class:`PluginError` line.
    """
    is_file = spec.endswith(".py") or os.sep in spec or (os.altsep is not None and os.altsep in spec)
    key = os.path.abspath(spec) if is_file else spec
    if key in _loaded:
        return
    before = len(_registered_from)
    if is_file:
        _python_file(spec, key)
        stem = re.sub(r"\W", "_", os.path.splitext(os.path.basename(key))[0])
        module_name = f"ruledraft_plugin_{stem}"
        found = importlib.util.spec_from_file_location(module_name, key)
        if found is None or found.loader is None:  # pragma: no cover - a .py file always has a loader
            raise PluginError(f"plug-in '{spec}': not a Python file")
        module = importlib.util.module_from_spec(found)
        sys.modules[module_name] = module
        try:
            with prints_to_stderr():  # what it prints as it is imported never mixes with the output
                found.loader.exec_module(module)
        except BaseException as e:  # noqa: BLE001 - a SystemExit (any exception) in a plug-in is its failure
            sys.modules.pop(module_name, None)
            if isinstance(e, PluginError):
                raise _naming(spec, e) from None
            if stop_behind(e):
                raise
            raise PluginError(f"plug-in '{spec}' failed to load: {described(e)}") from None
    else:
        if not re.fullmatch(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", spec):
            raise PluginError(f"plug-in '{spec}': neither a Python file (NAME.py) nor a module name (package.module)")
        try:
            with prints_to_stderr():
                importlib.import_module(spec)
        except BaseException as e:  # noqa: BLE001 - any exception in a plug-in is its failure
            if isinstance(e, PluginError):
                raise _naming(spec, e) from None
            if stop_behind(e):
                raise
            raise PluginError(f"plug-in '{spec}' failed to load: {described(e)}") from None
    name = module_name if is_file else spec
    if len(_registered_from) == before and not any(m == name or m.startswith(name + ".") for m in _registered_from):
        # importing it registered nothing, and nothing registered earlier came from it
        if is_file:
            sys.modules.pop(name, None)
        raise PluginError(
            f"plug-in '{spec}' registers no scoring kind or card effect (a plug-in registers its units when it is imported)"
        )
    _loaded.append(key)
    _note_module(name)
    os.environ[PLUGINS_ENV] = os.pathsep.join(_loaded)


#: the source files of the plug-in modules loaded in this process (see :func:`plugin_failure`)
_plugin_files: set[str] = set()


def _note_module(name: str | None) -> None:
    """Count ``name``'s file as a plug-in's code, unless it is ruledraft's own or the
    standard library's (a plug-in may register a built-in builder, or a ``partial``)."""
    if not name or name == "ruledraft" or name.startswith("ruledraft."):
        return
    file = getattr(sys.modules.get(name), "__file__", None)
    if not file:
        return
    real = os.path.realpath(file)
    library = os.path.realpath(sysconfig.get_paths()["stdlib"])
    # (a Python's own site-packages lies inside its library folder: installed plug-ins are there)
    if real.startswith(library + os.sep) and "site-packages" not in real:
        return
    _plugin_files.add(real)


def plugin_failure(error: BaseException) -> PluginError | None:
    """When ``error`` was raised by the code of a loaded plug-in (a scoring rule of a
    plug-in kind failing while a game is scored or a bot weighs a card), a
    :class:`PluginError` saying so in one line: the plug-in's file and line, and the
    error. None when no plug-in's code is on the way (a fault of ruledraft's own)."""
    if not _plugin_files:
        return None
    culprit = None
    tb = error.__traceback__
    while tb is not None:
        file = tb.tb_frame.f_code.co_filename
        if os.path.realpath(file) in _plugin_files:
            culprit = (file, tb.tb_lineno)
        tb = tb.tb_next
    if culprit is None:
        return None
    return PluginError(f"plug-in {culprit[0]}, line {culprit[1]}: {described(error)}")


def plugin_files() -> tuple[str, ...]:
    """The source files of the plug-ins loaded in this process (real paths)."""
    return tuple(sorted(_plugin_files))


def loaded_plugins() -> tuple[str, ...]:
    """The plug-ins :func:`load_plugin` loaded in this process."""
    return tuple(_loaded)
