"""The seeds of a run's games and of their bots, derived from the run's seed.

Each game's seed comes from the run's seed and the game's index, and each bot's
from the game's seed and its seat, so a run gives the same games whatever plays
them: one process or several, a cluster, the reference engine or the compiled
kernel (:mod:`ruledraft.kernel`), which is why they live down here.
"""

from __future__ import annotations

from ruledraft.engine.state import derive_seed

__all__ = ["bot_seed", "bot_seeds", "game_seed"]


def game_seed(seed: int, index: int) -> int:
    """The seed of game number ``index`` of a simulation seeded with ``seed``.

    Logged seeds stay within ``0..MAX_SEED`` (2**53 - 1): a JSON number any reader
    (jq, JavaScript) holds exactly, so a filtered log still replays.
    """
    return derive_seed(seed, 0x5EED, index) >> 11


def bot_seed(seed: int, seat: int) -> int:
    """The seed of the bot at ``seat`` in a game seeded with ``seed``."""
    return derive_seed(seed, 0xB07, seat)


def bot_seeds(seed: int, seats: int) -> list[int]:
    """``[bot_seed(seed, seat) for seat in range(seats)]``, mixing the shared prefix once."""
    base = derive_seed(seed, 0xB07)
    return [derive_seed(base, seat) for seat in range(seats)]
