"""``python -m ruledraft.kernel [--with-planner] [--with-batch-planner] FILE``: compile
the kernel module kept at FILE into numba's cache (what ``--engine auto`` starts in the
background for later runs), the ismcts roll-out too (``ismcts`` uses it once it is
there), the planner's game loop for a run where a seat plans (``--with-planner``), and
the batch functions of the reinforcement-learning environments where the kernel holds
the game (with the batch's planner, for environments whose opponents plan).
``--game-loop FILE``: its game loop alone, for a run waiting on it
(``compile_kernel(..., apart=True)``); ``--planner FILE``, ``--rollout FILE``,
``--batch FILE`` and ``--batch-planner FILE``: the planner's loop, the ismcts
roll-out, the batch functions, the batch's planner (``kernel.ready_apart``).
``--native FILE``: the game loop and the lab's fold kept as native code for later runs
(:mod:`ruledraft.kernel.native`), which the background compile does last."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from ruledraft import lifeline


def main(argv: list[str]) -> int:
    argv = list(argv)
    options: set[str] = set()  # the background compile's options
    while argv[:1] in (["--with-planner"], ["--with-batch-planner"]):
        options.add(argv.pop(0))
    batch_planner = "--with-batch-planner" in options
    if argv and argv[0].startswith("--") and argv[0] != "--native":  # a native build outlives its run
        # first (the imports below take a while): a run's worker killed after a stop may have started this
        # after the Ctrl-C, which it never saw, and it would otherwise compile on to its end
        lifeline.end_with_parent()
    from ruledraft.kernel import APART, _import, _use_cache_dir, compiling, later_requests, warm, warm_entry
    from ruledraft.kernel.cache_files import mended

    path = Path(argv[-1])
    if argv[0] == "--native":  # for later runs: the game loop and the fold as native code
        _use_cache_dir()
        from ruledraft.kernel import native

        try:  # the run that started this handed it the building (kernel.start_native)
            with native.kept_failure(path.with_suffix("")):  # not started again for a day
                module = _import(path)
                mended(lambda: warm(module))  # numba's compile first: the same types, checked on a game
                native.build(module, path, claimed=True)
        finally:
            native.release(path)
        return 0
    apart = {flag: function for function, flag in APART.items()}.get(argv[0])
    if apart is not None:  # for a run that holds the compile and waits (kernel._compile_apart)
        # a Ctrl-C ends this at once, as it ends the run (numba's compiler would swallow
        # the KeyboardInterrupt); the run started this with the signal's default action
        # (kernel._spawn_and_wait), so one during the imports above ended it too
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        _use_cache_dir()
        mended(lambda: warm_entry(_import(path), apart))  # a cache file numba cannot read: compiled again
        return 0
    _use_cache_dir()
    try:
        with compiling(path):  # a run that wants the game loop meanwhile waits for it
            module = _import(path)
            mended(lambda: warm(module))  # a cache file numba cannot read: compiled again
            if "--with-planner" in options:  # the planner's game loop, for a run where a seat plans
                mended(lambda: warm_entry(module, "play_planner"))
        from ruledraft.kernel import fold
        from ruledraft.kernel.rollout import warm_rollout

        mended(fold.warm)  # the lab's compiled fold too, which a run with figures calls next
        mended(lambda: warm_rollout(module))  # and ismcts's roll-out, compiled apart
        holds = not getattr(module, "EFFECTS", False) and not module.NRACE and not hasattr(module, "play_dummy")
        if holds:
            from ruledraft.kernel.batch import warm_batch

            mended(lambda: warm_batch(module))  # and the environments' batch functions, where they hold the game
        # the batch's planner, for an environment whose opponents plan; then what runs started
        # meanwhile asked for (kernel.start_compiling): the planners' loops
        asked = {"batch-planner"} if batch_planner else later_requests(path)
        while asked:
            if "planner" in asked:
                mended(lambda: warm_entry(module, "play_planner"))
            if "batch-planner" in asked and holds:
                from ruledraft.kernel.batch import warm_batch_planner

                mended(lambda: warm_batch_planner(module))
            asked = later_requests(path)
    finally:
        path.with_suffix(".compiling").unlink(missing_ok=True)
    from ruledraft.kernel import native, prune_cache

    native.build(module, path)  # for later runs: the game loop and the fold as native code
    prune_cache(path)  # last: a kernel more kept, the least used past the bound removed
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
