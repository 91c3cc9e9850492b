"""``python -m ruledraft.kernel FILE``: compile the kernel module kept at FILE into numba's
cache (what ``--engine auto`` starts in the background for later runs), the ismcts
roll-out too (``ismcts`` uses it once it is there). ``--game-loop FILE``: its game
loop alone, for a run waiting on it (``compile_kernel(..., apart=True)``); ``--planner
FILE`` and ``--rollout FILE``: the planner's loop, the ismcts roll-out
(``kernel.ready_apart``)."""

from __future__ import annotations

import signal
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from ruledraft.kernel import _import, _use_cache_dir, compiling, warm

    path = Path(argv[-1])
    if argv[0] in ("--game-loop", "--planner", "--rollout"):
        # compiled for a run waiting on it: a Ctrl-C ends this at once, as it ends the run
        # (numba's compiler would swallow the KeyboardInterrupt; and a run's worker may
        # ignore the signal, which a child inherits)
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    _use_cache_dir()
    if argv[0] in ("--game-loop", "--planner"):  # for a run that holds the compile and waits (kernel._compile_apart)
        warm(_import(path), "play_planner" if argv[0] == "--planner" else "play")
        return 0
    if argv[0] == "--rollout":
        from ruledraft.kernel.rollout import warm_rollout

        warm_rollout(_import(path))
        return 0
    try:
        with compiling(path):  # a run that wants the game loop meanwhile waits for it
            module = _import(path)
            warm(module)
        from ruledraft.kernel import fold
        from ruledraft.kernel.rollout import warm_rollout

        fold.warm()  # the lab's compiled fold too, which a run with figures calls next
        warm_rollout(module)  # and ismcts's roll-out, compiled apart
    finally:
        path.with_suffix(".compiling").unlink(missing_ok=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
