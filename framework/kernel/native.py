"""The kernel's game loop and the lab's fold kept as native code: extension modules
compiled ahead of time (numba's ``pycc``) and loaded without numba.

numba's own cache keeps a compiled function as machine code, but loading it takes numba:
importing numba costs a process about 0.18 s of processor time, and loading a cached
game loop through it another 0.1 s, more than a Sushi Go! run of 2,000 games spends
playing. Once a kernel's game loop (``play``) is in numba's cache, the background compile
(``python -m ruledraft.kernel``; ``--native FILE`` alone, which a run on a kernel without
it starts) compiles it again, with the same types, into an extension module beside the
kernel's file, and the lab's fold (:func:`ruledraft.kernel.fold.lab_block`) into one of
its own. A later run imports those, and numba only where it plays anything else (the
planner's loop, ismcts's roll-out, the batch functions: :class:`NativeModule` loads the
kernel module for them): compiled again from the same source for the same types, the
same games (``tests/kernel/test_kernel_native.py`` plays both).

Kept only where it can be checked to fit: on Linux (the processor named by
``/proc/cpuinfo``, as the code is compiled for it), under the numba, numpy and Python it
was compiled with and at the same optimisation level (all in the file's name). Building
one needs a C compiler and Python's headers; where that fails, the reason is kept beside
the kernel (``.native-KEY.failed``) and not tried again for a day; runs load the kernel
through numba as before.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any, cast

#: ``RULEDRAFT_NATIVE=0`` in the environment: no native code kept or loaded (numba loads every kernel)
NATIVE = "RULEDRAFT_NATIVE"
#: the layout of the files kept (part of every key: a release that changes it never reads the old)
FORMAT = 2
#: a failed build is not tried again for this long (seconds)
RETRY_AFTER = 24 * 3600
#: a build started this recently is taken to be under way (seconds), where its mark does
#: not say (another machine sharing the cache directory) whether its process still runs
BUILDING_FOR = 600
#: a build still compiling after this long (seconds) is taken for hung: it stops, kept as
#: a failed build (not tried again for :data:`RETRY_AFTER`)
HUNG_AFTER = 3 * BUILDING_FOR

_KEY: list[str | None] = []


def machine_key() -> str | None:
    """What native code compiled here is good for, as a short digest: the processor
    (``/proc/cpuinfo``'s model and flags), Python's extension ABI, numba's and numpy's
    versions, numba's optimisation level and ``NUMBA_BOUNDSCHECK``; None where native
    code is not kept (not Linux, numba is not installed, or ``RULEDRAFT_NATIVE=0``)."""
    if os.environ.get(NATIVE, "1") == "0":
        return None
    if _KEY:
        return _KEY[0]
    try:
        key = _machine_key()
    except Exception:  # noqa: BLE001 - numba without its metadata, an unreadable cpuinfo: no native code
        key = None
    _KEY.append(key)
    return key


def _machine_key() -> str | None:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            lines = [line for line in f.read(1 << 20).splitlines() if line.startswith(("model name", "flags"))]
    except OSError:
        lines = []
    numba = importlib.util.find_spec("numba")
    if not (sys.platform.startswith("linux") and lines and numba is not None and numba.origin):
        return None
    import numpy as np

    from ruledraft.kernel import _optimisation

    parts = [
        str(FORMAT),
        *sorted(set(lines)),
        importlib.machinery.EXTENSION_SUFFIXES[0],
        *_installed(numba.origin),
        np.__version__,
        _optimisation(),
        os.environ.get("NUMBA_BOUNDSCHECK", "").strip(),  # numba's own indexing checks, on or off
    ]
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:12]


def _installed(origin: str) -> list[str]:
    """Which numba is installed, without importing it or importlib.metadata (about 0.015 s):
    its package's metadata folders (their names hold its version) and its ``__init__.py``'s
    place, size and time (a numba installed again is a new file)."""
    package = Path(origin).parent
    folders = sorted(p.name for p in package.parent.glob("numba-*.dist-info"))
    st = os.stat(origin)
    return [*folders, origin, f"{st.st_size} {st.st_mtime_ns}"]


def _files(stem: Path, key: str) -> tuple[Path, Path, str]:
    """(the extension module, its description, the module's name) kept under ``stem``."""
    name = f"ruledraft_kernel_native_{stem.name.replace('.', '_').replace('-', '_')}_{key}"
    base = stem.with_name(f"{stem.name}.native-{key}")
    return (
        base.with_name(base.name + importlib.machinery.EXTENSION_SUFFIXES[0]),
        base.with_name(base.name + ".json"),
        name,
    )


def _failure(stem: Path, key: str) -> Path:
    """Where a failed build's reason is kept."""
    return stem.with_name(f"{stem.name}.native-{key}.failed")


def fold_stem() -> Path:
    """Where the lab's fold is kept as native code (named by a digest of its source)."""
    from ruledraft.kernel import cache_dir

    source = (Path(__file__).parent / "fold.py").read_bytes()
    return cache_dir() / "kernels" / f"fold_{hashlib.sha256(source).hexdigest()[:16]}"


def _fits(specs: list[list[Any]], args: tuple[Any, ...]) -> bool:
    """Whether ``args`` are of the types a native function was compiled for (``specs``,
    as :func:`_specs` writes them): its wrapper converts an array of another type or
    layout as if it were one of them."""
    import numpy as np

    if len(args) != len(specs):
        return False
    for spec, arg in zip(specs, args):
        kind = spec[0]
        if kind == "array":
            if type(arg) is not np.ndarray:  # a subclass (a masked array, a matrix) is numba's to judge
                return False
            flags = arg.flags
            if not (
                arg.dtype == _dtype(spec[1])  # the byte order too
                and arg.ndim == spec[2]
                and (spec[3] != "C" or flags.c_contiguous)
                and (spec[3] != "F" or flags.f_contiguous)
                and flags.writeable
                and flags.aligned
            ):
                return False
        elif kind == "bool":
            if not isinstance(arg, bool | np.bool_):
                return False
        elif kind == "int":
            if isinstance(arg, bool | np.bool_) or not isinstance(arg, int | np.integer):
                return False
        else:
            return False
    return True


@functools.cache
def _dtype(name: str) -> Any:
    """numpy's dtype of the name a description keeps (made once: about a microsecond each)."""
    import numpy as np

    return np.dtype(name)


def _guarded(native: Callable[..., Any], specs: list[list[Any]], numba_own: Callable[[], Any]) -> Callable[..., Any]:
    """``native`` where its arguments fit what it was compiled for, else numba's function
    (``numba_own()``, imported then): never an array read as another type."""

    def call(*args: Any) -> Any:
        if _fits(specs, args):
            return native(*args)
        return numba_own()(*args)

    call.__doc__ = native.__doc__
    return call


class NativeModule:
    """A kernel module's native functions and constants; any other name is the kernel
    module's own, imported (with numba) the first time one is asked for."""

    def __init__(self, path: Path, functions: dict[str, Callable[..., Any]], described: dict[str, Any]):
        self._path = path
        self._names = frozenset(described["names"])
        self.__dict__.update(described["constants"])
        self.__dict__.update(functions)

    def __getattr__(self, name: str) -> Any:
        if name not in self._names:
            raise AttributeError(name)
        from ruledraft.kernel import _import

        return getattr(_import(self._path), name)


class NativeFold:
    """The lab's fold of a kernel's block as native code
    (:func:`ruledraft.kernel.fold.lab_block`) and the constants it is read with."""

    def __init__(self, lab_block: Callable[..., Any], described: dict[str, Any]):
        self.lab_block = lab_block
        self.__dict__.update(described["constants"])


#: what this process loaded, by the stem it is kept under (None: there is none)
_LOADED: dict[Path, tuple[ModuleType, dict[str, Any]] | None] = {}


def _load(stem: Path) -> tuple[ModuleType, dict[str, Any]] | None:
    """The extension module kept under ``stem`` for this machine and its description, or None."""
    if stem in _LOADED:
        return _LOADED[stem]
    made = None
    key = machine_key()
    if key is not None:
        try:
            made = _loaded(stem, key)
        except Exception:  # noqa: BLE001 - a file cut short, of another shape, unloadable: numba loads the kernel
            made = None
            _forget(stem, key)
        if made is not None:  # once a process: kept from pruning (cache_prune.prune_native)
            from ruledraft.kernel.cache_prune import mark_used

            mark_used(_files(stem, key)[1])
    _LOADED[stem] = made
    return made


def _forget(stem: Path, key: str) -> None:
    """Remove native code that cannot be loaded (a file changed or cut short since it was
    built): a later run builds it again. Nothing where none is kept."""
    so, described_at, _ = _files(stem, key)
    if described_at.exists() or so.exists():
        for file in (described_at, so):
            with contextlib.suppress(OSError):
                file.unlink()


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _loaded(stem: Path, key: str) -> tuple[ModuleType, dict[str, Any]]:
    so, described_at, name = _files(stem, key)
    described = json.loads(described_at.read_text(encoding="utf-8"))
    functions, names, constants = described["functions"], described["names"], described["constants"]
    if not (isinstance(functions, dict) and isinstance(names, list) and isinstance(constants, dict)):
        raise ValueError("not a description of native code")
    module = sys.modules.get(name)
    if module is None and _digest(so.read_bytes()) != described["sha256"]:
        # the library as built, byte for byte: one cut short would end the process as it is mapped (SIGBUS)
        raise ValueError(f"{so} is not the library built")
    if module is None:
        loader = importlib.machinery.ExtensionFileLoader(name, str(so))
        spec = importlib.util.spec_from_file_location(name, so, loader=loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        sys.modules[name] = module
    for function, specs in functions.items():
        if not callable(getattr(module, function)) or not all(isinstance(x, list) and x for x in specs):
            raise ValueError(f"no native {function}")
    return module, described


def has_loop(path: Path) -> bool:
    """Whether the game loop of the kernel module at ``path`` is kept as native code here."""
    key = machine_key()
    return key is not None and _files(path.with_suffix(""), key)[1].exists()


def has_fold() -> bool:
    """Whether the lab's fold is kept as native code here."""
    key = machine_key()
    return key is not None and _files(fold_stem(), key)[1].exists()


def load_loop(path: Path) -> NativeModule | None:
    """The kernel module at ``path`` with its game loop as native code, or None."""
    made = _load(path.with_suffix(""))
    if made is None:
        return None
    module, described = made

    def numba_own(name: str) -> Callable[[], Any]:
        def get() -> Any:
            from ruledraft.kernel import _import

            return getattr(_import(path), name)

        return get

    functions = {f: _guarded(getattr(module, f), specs, numba_own(f)) for f, specs in described["functions"].items()}
    return NativeModule(path, functions, described)


_FOLD: list[NativeFold] = []


def load_fold() -> NativeFold | None:
    """The lab's fold as native code, or None."""
    if _FOLD:
        return _FOLD[0]
    made = _load(fold_stem())
    if made is None:
        return None

    def numba_own() -> Any:
        from ruledraft.kernel import fold

        return fold.lab_block

    specs = made[1]["functions"].get("lab_block")
    if specs is None:
        return None
    _FOLD.append(NativeFold(_guarded(made[0].lab_block, specs, numba_own), made[1]))
    return _FOLD[0]


def loaded_fold() -> NativeFold | None:
    """The native fold where this process has loaded it (nothing is loaded here)."""
    return _FOLD[0] if _FOLD else None


# ---- building (in the background compile, with numba loaded) ----


def _failed_recently(stem: Path, key: str) -> bool:
    failed = _failure(stem, key)
    try:
        return time.time() - failed.stat().st_mtime < RETRY_AFTER
    except OSError:
        return False


def native_loop(module: Any) -> bool:
    """Whether a kernel module's game loop can be kept as native code (not a dummy's)."""
    return hasattr(module, "play") and not hasattr(module, "play_dummy")


def wanted(path: Path) -> bool:
    """Whether the kernel module at ``path`` (whose loop :func:`native_loop` says can be
    native) or the fold lacks native code this machine could have: none kept, no build
    failed lately (one under way holds the claim: :func:`claim`)."""
    key = machine_key()
    if key is None:
        return False
    stems = [s for s in (path.with_suffix(""), fold_stem()) if not _files(s, key)[1].exists()]
    if not stems:
        return False
    return not any(_failed_recently(s, key) for s in stems)


def claim(path: Path) -> bool:
    """Take the building of the kernel module at ``path``'s native code (a mark beside
    it, made only if there is none, or only a stale one): False where another process
    holds it or the mark cannot be made. A mark names the process that builds and its
    machine: one of this machine whose process has ended is stale at once; one of another
    machine (a shared cache directory) after :data:`BUILDING_FOR` seconds."""
    mark = _mark(path)
    with contextlib.suppress(OSError):
        if _stale(mark):
            mark.unlink()  # a build that died or hangs: another may start
    try:
        fd = os.open(mark, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except OSError:
        return False
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(_holder(os.getpid()))
    return True


def hand_over(path: Path, pid: int) -> None:
    """The claim on ``path``'s build passed to the process ``pid`` (the one that builds,
    which outlives the run that claimed it): its mark names that process now."""
    with contextlib.suppress(OSError):
        _mark(path).write_text(_holder(pid), encoding="utf-8")


def release(path: Path) -> None:
    """The claim on ``path``'s build given up (the build is over, or never started)."""
    _mark(path).unlink(missing_ok=True)


def _mark(path: Path) -> Path:
    return path.with_suffix(".native-building")


def _holder(pid: int) -> str:
    return f"{pid} {os.uname().nodename}"


def _stale(mark: Path) -> bool:
    """Whether the build ``mark`` names is over (OSError: there is no mark)."""
    age = time.time() - mark.stat().st_mtime
    pid, _, host = mark.read_text(encoding="utf-8", errors="replace").strip().partition(" ")
    if host != os.uname().nodename or not pid.isdigit():  # another machine's (or an unreadable) mark
        return age >= BUILDING_FOR
    if age >= HUNG_AFTER:  # its process stops itself by then; a number the system gave another since
        return True
    try:
        os.kill(int(pid), 0)
    except (ProcessLookupError, OverflowError):  # no such process (or none could be)
        return True
    except OSError:  # another user's process: it runs
        return False
    return False


def _constants(module: Any) -> dict[str, Any]:
    """The module's plain values (numbers, truth values) by name."""
    out = {}
    for name, value in vars(module).items():
        if isinstance(value, bool | int | float) and not name.startswith("__"):
            out[name] = value
    return out


def _build(stem: Path, exports: dict[str, tuple[Callable[..., Any], Any]], described: dict[str, Any]) -> None:
    """Compile ``exports`` (name: (a function numba compiles, its signature)) into the
    extension module kept under ``stem``, with ``described`` beside it; a failure is kept
    (``.failed``, its reason) rather than raised."""
    import shutil
    import tempfile
    import warnings

    key = machine_key()
    if key is None:
        return
    so, described_at, name = _files(stem, key)
    if described_at.exists():
        return
    stem.parent.mkdir(parents=True, exist_ok=True)
    _sweep(stem.parent)
    build = Path(tempfile.mkdtemp(prefix=".native-", dir=stem.parent))
    temporary = tempfile.tempdir
    tempfile.tempdir = str(build)  # pycc's own folder too, which it leaves behind when a build fails
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pycc's notice that it is to be replaced
            from numba import pycc

            cc: Any = cast(Any, pycc).CC(name, source_module=__name__)
            cc.output_dir = str(build)
            cc.target_cpu = "host"
            for exported, (function, signature) in exports.items():
                cc.export(exported, signature)(function)
            cc.compile()
        (built,) = build.glob(name + "*")
        digest = _digest(built.read_bytes())
        os.replace(built, so)
        functions = {n: _specs(sig) for n, (_, sig) in exports.items()}
        text = json.dumps({**described, "functions": functions, "sha256": digest})
        (build / "described").write_text(text, encoding="utf-8")
        os.replace(build / "described", described_at)
    except Exception as e:  # noqa: BLE001 - no compiler, no headers, anything: the kernel loads through numba
        with contextlib.suppress(OSError):
            _failure(stem, key).write_text(f"{type(e).__name__}: {e}\n", encoding="utf-8")
    finally:
        tempfile.tempdir = temporary
        shutil.rmtree(build, ignore_errors=True)


def _sweep(folder: Path) -> None:
    """Remove the folders of builds that ended without removing them (a process killed)."""
    import shutil

    with contextlib.suppress(OSError):
        for left in folder.glob(".native-*"):
            with contextlib.suppress(OSError):
                if left.is_dir() and time.time() - left.stat().st_mtime >= BUILDING_FOR:
                    shutil.rmtree(left, ignore_errors=True)


def _specs(signature: Any) -> list[list[Any]]:
    """What :func:`_fits` checks of each argument of ``signature`` (numba's types)."""
    from numba.core import types

    specs: list[list[Any]] = []
    for t in signature.args:
        if isinstance(t, types.Array):
            specs.append(["array", str(t.dtype), t.ndim, t.layout])
        elif isinstance(t, types.Boolean):
            specs.append(["bool"])
        elif isinstance(t, types.Integer):
            specs.append(["int"])
        else:
            raise TypeError(f"no native argument of type {t}")
    return specs


def _signature(dispatcher: Any, args: tuple[Any, ...]) -> Any:
    """The signature numba compiled ``dispatcher`` with for ``args`` (called with them first)."""
    import numba

    typeof: Any = cast(Any, numba).typeof
    types = tuple(typeof(a) for a in args)
    if types not in dispatcher.overloads:
        dispatcher(*args)
    return dispatcher.overloads[types].signature


def build_loop(module: Any, path: Path) -> None:
    """The game loop of the kernel module at ``path`` (``module``, imported) kept as
    native code, for the types :func:`ruledraft.kernel.loop_arguments` gives it."""
    if not native_loop(module):
        return
    from ruledraft.kernel import loop_arguments

    stem = path.with_suffix("")
    with kept_failure(stem):
        args = loop_arguments(module)
        described = {"names": sorted(vars(module)), "constants": _constants(module)}
        _build(stem, {"play": (module.play.py_func, _signature(module.play, args))}, described)


def build_fold() -> None:
    """The lab's fold kept as native code, for the types a kernel's block gives it."""
    with kept_failure(fold_stem()):
        from ruledraft.kernel import fold

        args = fold.block_arguments()
        described = {"names": [], "constants": {"HIST_COLUMNS": fold.HIST_COLUMNS}}
        _build(fold_stem(), {"lab_block": (fold.lab_block.py_func, _signature(fold.lab_block, args))}, described)


@contextlib.contextmanager
def kept_failure(stem: Path) -> Iterator[None]:
    """A failure before or around :func:`_build` (numba's own compile of the types, say)
    kept as a failed build's is, not raised: runs then do not start it again for a day."""
    try:
        yield
    except Exception as e:  # noqa: BLE001 - anything: the kernel loads through numba
        key = machine_key()
        if key is not None:
            with contextlib.suppress(OSError):
                _failure(stem, key).write_text(f"{type(e).__name__}: {e}\n", encoding="utf-8")


def build(module: Any, path: Path, claimed: bool = False) -> None:
    """Both, as far as they are missing (the background compile's last step; ``claimed``:
    the caller holds the building, :func:`claim`), unless another process is building them."""
    if machine_key() is None or not (claimed or claim(path)):
        return
    try:
        with _time_limit(HUNG_AFTER):
            build_loop(module, path)
            build_fold()
    finally:
        release(path)


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """A compile past ``seconds`` raises TimeoutError (:func:`_build` keeps it as a failed
    build's reason): a C compiler that hangs stops, rather than holding the claim. Only in
    a main thread, where the alarm signal is delivered (elsewhere, no limit)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "SIGALRM"):
        yield
        return

    def hung(signum: int, frame: object) -> None:
        raise TimeoutError(f"the build took more than {seconds} s")

    saved = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, saved)
