"""The kernel plays the reference engine's games on the rule files of the part
'examples' (see tests/kernel_games.py): same seed, same deal, same moves, same points."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from kernel_games import MUST_PLAY, check_mixed_games, check_random_games, part  # noqa: E402


@pytest.mark.parametrize("end", ["min", "max"])
@pytest.mark.parametrize("ruleset_id", part("examples"))
def test_random_games_equal_the_reference(ruleset_id, end):
    """At its fewest and most players, 300 seeds of random bots: the kernel's games are the reference's, or it refuses with a reason."""
    check_random_games(ruleset_id, end)


@pytest.mark.parametrize("ruleset_id", sorted(MUST_PLAY.intersection(part("examples"))))
def test_greedy_value_and_first_games_equal_the_reference(ruleset_id):
    """Greedy, value, first and random together at the fewest and most players: identical games."""
    check_mixed_games(ruleset_id)
