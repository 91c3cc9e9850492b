"""The planner in the kernel beside a dummy and a race (dummy_planner.tmpl, planner.tmpl's
race part): the reference engine's moves and logs for a seed."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from kernel_checks import assert_same_games, simulate_on_both_engines  # noqa: E402

from ruledraft import kernel as kernel_module  # noqa: E402
from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.kernel import Kernel  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play import engines, planner  # noqa: E402
from ruledraft.play.runner import game_seed  # noqa: E402


def _assert_same_games(kernel: Kernel, bots: list[str], seeds: list[int]) -> None:
    """Each seed's game on the kernel: the reference's moves, points, winners and log record."""
    counts = planner.count_values(Game(kernel.ruleset, kernel.players))
    assert_same_games(kernel, bots, seeds, counts=counts, decisions=True, logs=True)


@pytest.mark.parametrize(
    ("path", "bots", "games"),
    [
        ("sushi-go-two-player-dummy", ["planner", "planner"], 6),  # the dummy never wins
        ("sushi-go-two-player-dummy", ["greedy", "planner:samples=3"], 4),
        ("dummy-can-win.yaml", ["planner", "planner"], 5),  # among the rivals; reshuffled, passed right
        ("dummy-can-win.yaml", ["planner", "random"], 4),
    ],
)
def test_the_planner_with_a_dummy_plays_the_references_games(path, bots, games):
    """With a dummy (dummy_planner.tmpl), the planner's samples re-deal the other player's
    unseen cards, the card the controller drew and the dummy's pile, and its play-outs draw
    from the pile with control passing on: the reference's moves and logs, controlling the
    dummy or not; where the dummy can win it is one of the rivals (switched off, games differ)."""
    from paths import DATA

    rs = load_ruleset(str(DATA / "kernel" / path) if path.endswith(".yaml") else path)
    made = kernel_module.compile_kernel(rs, 2)
    assert isinstance(made, Kernel), made
    assert engines.kernel_refusal(rs, 2, bots) is None
    _assert_same_games(made, bots, [game_seed(13, i) for i in range(games)])


def test_simulate_with_planners_and_a_dummy_is_the_same_on_both_engines(tmp_path):
    """simulate of the two-player dummy variant with planners: every figure and the log's bytes the
    same on the kernel, which auto chooses for a long run."""
    args = ["sushi-go-two-player-dummy", "--players", "2", "--games", "6", "--seed", "9", "--bots", "planner,greedy"]
    simulate_on_both_engines(tmp_path, args)
    rs = load_ruleset("sushi-go-two-player-dummy")
    assert engines.choose_engine(rs, 2, ["planner"] * 2, "auto", 10**5).name == "kernel"


def test_a_race_without_card_effects_plays_the_planner_on_the_kernel():
    """The planner's look-ahead plays a race's turn ends and scores its places (a first
    version without them differed in 39 of 40 games): planners alone and beside greedy
    play the reference's games, at 2 and 5 players, and auto chooses the kernel."""
    from paths import DATA

    path = str(DATA / "kernel" / "race-no-effects.yaml")
    rs = load_ruleset(path)
    assert not rs.effects and any(rule.turn_scoring is not None for rule in rs.round_rules)
    for players, bots, games in (
        (2, ["planner", "planner"], 6),
        (5, ["planner:samples=3", "greedy"] * 2 + ["planner"], 3),
    ):
        made = kernel_module.compile_kernel(rs, players)
        assert isinstance(made, Kernel), made
        _assert_same_games(made, bots, [game_seed(7, i) for i in range(games)])
    assert engines.kernel_refusal(rs, 2, ["planner:samples=3", "greedy"]) is None
    assert engines.choose_engine(rs, 2, ["planner"] * 2, "auto", 10**5, background=False).name == "kernel"
