"""Speed figures of a kernel (``ruledraft bench --engine kernel``)."""

from __future__ import annotations

import time

from ruledraft.kernel import Kernel
from ruledraft.play.runner import game_seed


def measure_kernel(kernel: Kernel, bot: str, *, min_seconds: float = 1.0, min_games: int = 20) -> tuple[int, float]:
    """Play games with ``bot`` in every seat on the kernel, in growing batches, until
    ``min_seconds`` have passed (and at least ``min_games``): (games, seconds).
    The seeds are those ``bench`` gives the reference engine (run seed 1)."""
    bots = [bot] * kernel.players
    batch = 64
    n = 0
    started = time.perf_counter()
    while True:
        kernel.play([game_seed(1, i) for i in range(n, n + batch)], bots)
        n += batch
        elapsed = time.perf_counter() - started
        if n >= min_games and elapsed >= min_seconds:
            return n, elapsed
        if elapsed < min_seconds / 4:
            batch *= 2
