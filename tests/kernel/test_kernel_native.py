"""The game loop and the lab's fold kept as native code (``ruledraft.kernel.native``):
built beside the kernel, loaded without numba, the same games and figures as numba's."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("numba")

import numpy as np  # noqa: E402

from ruledraft.kernel import Kernel, _import, compile_kernel, native  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.runner import game_seeds  # noqa: E402

#: a run of simulate --json in a process of its own, reporting whether numba was loaded
#: and how many blocks the native fold folded
RUN = """
import json, sys
from typer.testing import CliRunner
from ruledraft.cli.app import app
from ruledraft.kernel import native
folds = []
made = native.NativeFold.__init__
def counted(self, lab_block, described):
    made(self, lambda *a: folds.append(1) or lab_block(*a), described)
native.NativeFold.__init__ = counted
out = CliRunner().invoke(app, sys.argv[1:])
print(json.dumps({"code": out.exit_code, "out": out.stdout, "numba": "numba" in sys.modules, "folds": len(folds)}))
"""

SIMULATE = ["simulate", "sushi-go", "--players", "4", "--games", "700", "--seed", "3", "--engine", "kernel", "--json"]


def _env(native_on: bool, **more: str) -> dict[str, str]:
    return {**os.environ, native.NATIVE: "1" if native_on else "0", **more}


@pytest.fixture
def native_on(monkeypatch):
    """This process keeps and loads native code (the suite turns it off: tests/conftest.py)."""
    monkeypatch.setenv(native.NATIVE, "1")
    monkeypatch.setattr(native, "_KEY", [])
    monkeypatch.setattr(native, "_LOADED", {})
    monkeypatch.setattr(native, "_FOLD", [])


@pytest.fixture
def own_compiler():
    """A test that sets its own C compiler (``CC``): pycc's check that the compiler works,
    which it remembers for the process, is made anew for it and forgotten after it."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # pycc's notice that it is to be replaced
        from numba.pycc import platform

    platform.external_compiler_works.cache_clear()
    yield
    platform.external_compiler_works.cache_clear()


@pytest.fixture(scope="module")
def built() -> Path:
    """Sushi Go!'s kernel module with its game loop and the lab's fold built as native
    code, by the background compile's ``--native`` (in the suite's cache)."""
    kernel = compile_kernel(load_ruleset("sushi-go"), 4)
    assert isinstance(kernel, Kernel), kernel
    command = [sys.executable, "-m", "ruledraft.kernel", "--native", str(kernel.path)]
    done = subprocess.run(command, env=_env(True), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(native.NATIVE, "1")
        mp.setattr(native, "_KEY", [])
        key = native.machine_key()
        if key is None or not native.has_loop(kernel.path):  # no C compiler here, say: native code is optional
            failed = native._failure(kernel.path.with_suffix(""), key) if key else None
            pytest.skip(f"no native code on this machine: {failed.read_text() if failed and failed.exists() else key}")
    return kernel.path


def _simulate(native_on: bool, *more: str) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", RUN, *SIMULATE, *more], env=_env(native_on), capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _figures(run: dict) -> dict:
    assert run["code"] == 0, run["out"]
    figures = json.loads(run["out"])
    for key in ("elapsed_seconds", "games_per_second"):
        figures.pop(key)
    return figures


def test_a_run_on_native_code_loads_no_numba_and_gives_numbas_figures(built):
    """simulate --json on the kernel with its native game loop and fold (every lab figure,
    four kinds of bot; the fold folding the large blocks) loads no numba and equals the
    same run through numba, which loads it."""
    bots = ("--bots", "random,greedy,value,first")
    on, off = _simulate(True, *bots), _simulate(False, *bots)
    assert not on["numba"] and off["numba"]
    assert on["folds"] > 0 and off["folds"] == 0
    assert _figures(on) == _figures(off)


def test_loading_native_code_marks_it_used(built, native_on):
    """Loading the game loop and the fold as native code marks each build used now
    (``.native-<key>.used``, read by the cache's pruning), once a process."""
    key = native.machine_key()
    assert key is not None
    marks = [native._files(stem, key)[1].with_suffix(".used") for stem in (built.with_suffix(""), native.fold_stem())]
    for mark in marks:
        mark.unlink(missing_ok=True)
    assert native.load_loop(built) is not None and native.load_fold() is not None
    assert all(mark.exists() and mark.stat().st_mtime > time.time() - 60 for mark in marks)


def test_native_games_are_numbas_game_for_game(built, native_on, monkeypatch):
    """The native game loop's games (every array) are numba's for the same seeds, in
    blocks of several sizes; a name it does not hold natively is the kernel module's."""
    module = native.load_loop(built)
    assert module is not None and module.K == 12
    fits = native._fits
    judged: list[bool] = []
    monkeypatch.setattr(native, "_fits", lambda specs, args: judged.append(fits(specs, args)) or judged[-1])
    ruleset = load_ruleset("sushi-go")
    jit = Kernel(ruleset, 4, _import(built), built, 0.0, False)  # numba's own module
    made = Kernel(ruleset, 4, module, built, 0.0, False)  # type: ignore[arg-type]
    for start, n in ((0, 1), (1, 37), (38, 300)):
        seeds = game_seeds(11, start, n)
        mine, theirs = (
            made.play(seeds, ["random", "greedy", "first", "random"]),
            jit.play(seeds, ["random", "greedy", "first", "random"]),
        )
        for name in ("totals", "rule_points", "winners", "moves", "round_points", "tables"):
            assert np.array_equal(getattr(mine, name), getattr(theirs, name)), name
    assert judged == [True] * 3  # each block played by the native loop
    assert np.array_equal(module.DECK, jit.module.DECK)  # not held natively: the module's own
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018


def test_arguments_of_another_type_go_to_numbas_function(built, native_on):
    """An array of another type, shape or layout than the native loop was compiled for is
    never handed to it (its wrapper would read the memory as the compiled type): numba's
    function takes that call."""
    from ruledraft.kernel import loop_arguments

    specs = native._load(built.with_suffix(""))[1]["functions"]["play"]  # type: ignore[index]
    args = tuple(loop_arguments(compile_kernel(load_ruleset("sushi-go"), 4).module))
    calls: list[str] = []
    play = native._guarded(lambda *a: calls.append("native"), specs, lambda: lambda *a: calls.append("numba"))
    play(*args)
    read_only = args[3].copy()
    read_only.flags.writeable = False
    misaligned = np.frombuffer(bytearray(args[3].nbytes + 1), np.uint8)[1:].view(np.int64).reshape(args[3].shape)
    wrongs = (
        (0, args[0].astype(np.int64)),  # another type
        (0, args[0].astype(">u8")),  # another byte order
        (3, np.zeros((2, 3), np.int64)[:, :2]),  # not C-contiguous
        (3, read_only),
        (3, misaligned),
        (3, np.ma.masked_array(args[3])),  # a subclass: numba's to judge
        (4, args[4][0]),  # another number of dimensions
        (6, 7),  # not an array
    )
    for i, bad in wrongs:
        play(*args[:i], bad, *args[i + 1 :])
    play(*args[:-1])  # one argument short
    assert calls == ["native"] + ["numba"] * (len(wrongs) + 1)


def test_a_build_that_cannot_compile_is_kept_as_failed_and_not_tried_again(tmp_path, native_on, own_compiler):
    """Without a working C compiler the build fails quietly: its reason is kept, nothing
    is loaded (the kernel loads through numba) and the build is not asked for again."""
    from numba import types

    def double(x):
        return 2 * x

    stem = tmp_path / "kernels" / "k_test"
    os.environ["CC"] = "/bin/false"
    try:
        native._build(stem, {"double": (double, types.int64(types.int64))}, {"names": [], "constants": {}})
    finally:
        del os.environ["CC"]
    key = native.machine_key()
    assert key is not None
    failed = native._failure(stem, key)
    assert failed.read_text(encoding="utf-8").strip()
    assert native._load(stem) is None
    assert not native._failed_recently(stem, "another-key") and native._failed_recently(stem, key)
    assert not native.wanted(stem.with_suffix(".py"))  # not started again


def _aged(mark: Path, seconds: float) -> None:
    then = mark.stat().st_mtime - seconds
    os.utime(mark, (then, then))


def test_building_is_claimed_by_one_process_at_a_time_while_it_runs(tmp_path, native_on):
    """Two runs finding native code missing start one build: the second finds the first's
    mark, which names a process that runs (this one), however long it has built, until
    it is taken for hung; the mark of a process that has ended is taken over at once."""
    path = tmp_path / "k_test.py"
    assert native.claim(path) and not native.claim(path)
    mark = path.with_suffix(".native-building")
    _aged(mark, native.BUILDING_FOR + 1)
    assert not native.claim(path)  # a long build, still running
    _aged(mark, native.HUNG_AFTER)
    assert native.claim(path)  # hung
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    native.hand_over(path, int(ended.stdout))  # the build handed to a process that has ended since
    assert native.claim(path)
    native.hand_over(path, 10**30)  # a number no process has
    assert native.claim(path)


def test_the_run_that_starts_a_build_hands_its_claim_to_the_building_process(tmp_path, native_on, monkeypatch):
    """The build outlives the run that starts it: the mark names the process started to
    build (so a later run sees a build under way while that process runs), not the run."""
    from types import ModuleType, SimpleNamespace

    import ruledraft.kernel as kernel_package

    started = []
    monkeypatch.setattr(kernel_package, "_outliving", lambda *args: started.append(args) or SimpleNamespace(pid=4242))
    module = ModuleType("k_loop")
    module.play = lambda *args: None  # type: ignore[attr-defined]
    path = tmp_path / "k_loop.py"
    assert kernel_package.start_native(SimpleNamespace(module=module, path=path))  # type: ignore[arg-type]
    assert started == [("--native", str(path))]
    assert path.with_suffix(".native-building").read_text(encoding="utf-8") == f"4242 {os.uname().nodename}"


def test_another_machine_s_claim_lapses_by_its_age_alone(tmp_path, native_on):
    """A mark made on another machine sharing the cache directory (its process cannot be
    asked) holds for :data:`BUILDING_FOR` seconds, then is taken over; so does one that
    names no process."""
    path = tmp_path / "k_test.py"
    mark = path.with_suffix(".native-building")
    for text in (f"{os.getpid()} not-{os.uname().nodename}", "", "garbled"):
        mark.write_text(text, encoding="utf-8")
        assert not native.claim(path)
        _aged(mark, native.BUILDING_FOR + 1)
        assert native.claim(path)
        mark.unlink()


def test_a_build_whose_compiler_hangs_stops_and_is_kept_as_failed(tmp_path, native_on, monkeypatch, own_compiler):
    """A C compiler that does not return stops the build after ``HUNG_AFTER`` seconds
    (here 2): the build is kept as failed, saying it took too long (not tried again for a
    day), and its mark is gone."""
    from numba import types

    def double(x):
        return 2 * x

    hang = tmp_path / "cc"
    # the compiler as it is for pycc's first check that it compiles, then never ending
    hang.write_text('#!/bin/sh\ncase "$*" in *pycc-build*) exec sleep 15;; esac\nexec cc "$@"\n', encoding="utf-8")
    hang.chmod(0o755)
    stem = tmp_path / "kernels" / "k_test"
    path = stem.with_suffix(".py")
    monkeypatch.setenv("CC", str(hang))
    monkeypatch.setattr(native, "HUNG_AFTER", 2)
    monkeypatch.setattr(native, "build_fold", lambda: None)
    monkeypatch.setattr(
        native, "build_loop", lambda module, at: native._build(stem, {"double": (double, types.int64(types.int64))}, {})
    )
    (tmp_path / "kernels").mkdir()
    assert native.claim(path)
    native.build(None, path, claimed=True)
    key = native.machine_key()
    assert key is not None
    assert "the build took more than 2 s" in native._failure(stem, key).read_text(encoding="utf-8")
    assert not path.with_suffix(".native-building").exists()


def test_no_native_build_is_started_for_a_dummy_s_kernel(tmp_path, native_on):
    """A kernel module whose loop is a dummy's (never kept as native code) starts no build."""
    from types import ModuleType, SimpleNamespace

    from ruledraft.kernel import start_native

    module = ModuleType("k_dummy")
    module.play = module.play_dummy = lambda *args: None  # type: ignore[attr-defined]
    path = tmp_path / "k_dummy.py"
    assert not start_native(SimpleNamespace(module=module, path=path))  # type: ignore[arg-type]
    assert not path.with_suffix(".native-building").exists()


def test_auto_plays_a_shorter_run_on_a_kernel_kept_as_native_code(built, native_on, monkeypatch):
    """A run the reference engine would play in half a second plays on the kernel where its
    game loop and the lab's fold are native code (loaded in hundredths of a second), and on
    the reference engine where they load through numba (about a second of its start)."""
    from ruledraft.play import engines

    monkeypatch.setattr(engines, "reference_seconds", lambda *args: 0.5)
    ruleset = load_ruleset("sushi-go")

    def chosen() -> str:
        return engines.choose_engine(ruleset, 4, ["random"] * 4, "auto", games=2000, background=False).name

    assert chosen() == "kernel"
    planners = ["planner:samples=2"] + ["random"] * 3  # its loop is numba's
    assert engines.choose_engine(ruleset, 4, planners, "auto", games=2000, background=False).name == "reference"
    monkeypatch.setenv(native.NATIVE, "0")
    assert chosen() == "reference"


def test_a_library_cut_short_is_never_loaded_and_is_built_again_later(built, native_on):
    """A native library changed since it was built (cut short here; mapped, it would end
    the process with SIGBUS) is not loaded: the run plays through numba with the same
    figures, and the files are removed, so that a later run builds them again."""
    key = native.machine_key()
    assert key is not None
    so, described, _ = native._files(built.with_suffix(""), key)
    kept = {so: so.read_bytes(), described: described.read_bytes()}

    def put(file: Path, data: bytes) -> None:  # a new file in its place: this process may have the old one mapped
        new = file.with_name(file.name + ".new")
        new.write_bytes(data)
        os.replace(new, file)

    try:
        put(so, kept[so][:4096])
        cut = _simulate(True)
        assert cut["numba"] and cut["folds"] > 0  # the loop through numba, the fold still native
        assert _figures(cut) == _figures(_simulate(False))
        assert not so.exists() and not described.exists()
    finally:
        for file, data in kept.items():
            put(file, data)


def test_the_machine_key_tells_each_numba_setting_and_install_apart(native_on, monkeypatch):
    """Native code built with numba's index checks on, at another optimisation level or
    with another numba installed is another key's: none is loaded for the other."""
    key = native.machine_key()
    if key is None:
        pytest.skip("no native code on this machine")

    def key_with(**env: str) -> str | None:
        monkeypatch.setattr(native, "_KEY", [])
        with monkeypatch.context() as m:
            for name, value in env.items():
                m.setenv(name, value)
            return native.machine_key()

    assert key_with(NUMBA_BOUNDSCHECK="1") not in (key, None)
    assert key_with(NUMBA_OPT="2") not in (key, None)
    real = native._installed
    monkeypatch.setattr(native, "_installed", lambda origin: [*real(origin), "numba-0.99.0.dist-info"])
    assert key_with() not in (key, None)
    monkeypatch.setattr(native, "_installed", real)
    assert key_with() == key
