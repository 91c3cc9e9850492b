"""The seeds of a run's games and of their bots, derived from the run's seed.

Each game's seed comes from the run's seed and the game's index, and each bot's
from the game's seed and its seat, so a run gives the same games whatever plays
them: one process or several, a cluster, the reference engine or the compiled
kernel (:mod:`ruledraft.kernel`), which is why they live down here.
"""

from __future__ import annotations

import hashlib

from ruledraft.engine.state import derive_seed
from ruledraft.errors import ArgumentError, whole_number

__all__ = ["MAX_ENV_SEED", "bot_seed", "bot_seeds", "env_seed", "game_seed", "private_seed"]

#: the largest seed an environment's ``reset`` takes: what the kernel holds (its
#: ``MAX_KERNEL_SEED``), so a seed plays the same game on either engine
MAX_ENV_SEED = 2**63 - 1


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


def private_seed(seed: int) -> int:
    """The seed a bot from outside ruledraft is made with, from its seat's
    :func:`bot_seed`: a one-way function of it (BLAKE2b), since the derivation of a
    bot's seed can be run backwards to the game's seed, and the game's seed deals every
    hidden hand. A bot gets a seed of 64 bits that says nothing of the deal (beyond
    what trying every seed of a run with a small seed would: its own hand tells those
    apart). ruledraft's own bots keep :func:`bot_seed`, which the kernel's streams copy."""
    digest = hashlib.blake2b(str(seed).encode(), digest_size=8, person=b"ruledraft-bot").digest()
    return int.from_bytes(digest, "little")


def env_seed(seed: object) -> int:
    """A seed handed to an environment's ``reset``, on either engine: a whole number
    (a numpy integer too) from 0 to :data:`MAX_ENV_SEED`; anything else (``1.5``,
    ``True``, ``-1``, ``2**64 + 5``, which would alias seed 5) is an
    :class:`~ruledraft.errors.ArgumentError`."""
    try:
        value = whole_number(seed, "a seed")
    except ArgumentError:
        raise ArgumentError(f"a seed is a whole number from 0 to 2**63 - 1, not {seed!r}") from None
    if not 0 <= value <= MAX_ENV_SEED:
        raise ArgumentError(f"a seed is a whole number from 0 to 2**63 - 1, not {value}")
    return value
