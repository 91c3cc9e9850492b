"""The kernel plays the reference engine's games on the rule files of the part
'party-2' (see tests/kernel_games.py): same seed, same deal, same moves, same points."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from kernel_games import menu_test, part_tests  # noqa: E402

test_random_games_equal_the_reference, test_greedy_value_and_first_games_equal_the_reference = part_tests("party-2")
test_menus_with_effects_play_the_reference_games = menu_test("party-2")
