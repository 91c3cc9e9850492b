"""The self-play example (examples/selfplay.py): a tiny run trains a policy that beats random bots."""

from __future__ import annotations

import importlib.util

import numpy as np
from paths import EXAMPLES


def _example():
    spec = importlib.util.spec_from_file_location("selfplay_example", EXAMPLES / "selfplay.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_short_self_play_run_learns_a_policy_that_beats_random_bots():
    """300 self-play games of Sushi Go! at 3 players give a policy whose win share against two random bots is above an equal share, where the untrained policy's is not."""
    selfplay = _example()
    policy = selfplay.train("sushi-go", 3, games=300, seed=1)
    assert np.abs(policy.W).sum() > 0 and np.abs(policy.b).sum() > 0
    trained = selfplay.evaluate(policy, "sushi-go", 3, "random", games=60)
    untrained = selfplay.evaluate(
        selfplay.Policy(policy.W.shape[0], policy.W.shape[1]), "sushi-go", 3, "random", games=60
    )
    assert trained > 1 / 3 + 0.1
    assert trained > untrained


def test_the_wilson_interval_holds_the_share_and_narrows_with_more_games():
    """wilson() contains the observed share and is narrower for 400 games than for 40 at the same share."""
    selfplay = _example()
    low, high = selfplay.wilson(20, 40)
    assert low < 0.5 < high
    low4, high4 = selfplay.wilson(200, 400)
    assert high4 - low4 < high - low
