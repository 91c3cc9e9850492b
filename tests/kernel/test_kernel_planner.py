"""The planner in the kernel plays the reference engine's planner: same seed, same moves, same logs."""

from __future__ import annotations

import pytest

pytest.importorskip("numba")

from kernel_checks import assert_same_games, simulate_on_both_engines  # noqa: E402
from kernel_games import kernel as kernel_of  # noqa: E402

from ruledraft import kernel as kernel_module  # noqa: E402
from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.errors import InputError  # noqa: E402
from ruledraft.kernel import Kernel  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play import engines, planner  # noqa: E402
from ruledraft.play.runner import game_seed  # noqa: E402


def _assert_same_games(kernel: Kernel, bots: list[str], seeds: list[int]) -> None:
    """Each seed's game on the kernel: the reference's moves, card effects' decisions,
    points, winners and log record."""
    counts = planner.count_values(Game(kernel.ruleset, kernel.players))
    assert_same_games(kernel, bots, seeds, counts=counts, decisions=True, logs=True)


@pytest.mark.parametrize(
    ("ruleset_id", "players", "bots", "games"),
    [
        ("sushi-go", 2, ["planner", "planner"], 16),
        ("sushi-go", 4, ["planner"] * 4, 8),
        ("sushi-go", 5, ["planner", "greedy", "random", "planner", "value"], 8),
        (
            "examples/sushi-go-party-soy-sauce.yaml",
            4,
            ["planner", "planner", "greedy", "planner"],
            6,
        ),  # colours' majority
        ("examples/my-party-menu.yaml", 4, ["planner", "first", "planner", "planner"], 6),  # desserts added
        ("examples/sushi-go-switchback.yaml", 5, ["planner"] * 4 + ["random"], 6),  # a direction per turn
        ("examples/midnight-apothecary.yaml", 3, ["planner"] * 3, 6),  # reshuffled between rounds
        # card effects: the planner's picks and its decisions (planner_effects.tmpl)
        ("examples/caravan-bazaar.yaml", 2, ["planner", "planner"], 4),  # six effects, a family named
        ("examples/caravan-bazaar.yaml", 6, ["planner", "greedy", "planner", "value", "random", "first"], 2),
        ("sushi-go-party-dinner-for-two", 3, ["planner"] * 3, 3),  # a race beside menus, miso, special orders
        ("sushi-go-party-cutthroat-combo", 8, ["planner", "greedy", "planner", "value"] * 2, 1),  # spoons, 8 seats
    ],
)
def test_planner_games_equal_the_reference(ruleset_id, players, bots, games):
    """Planners (alone and among greedy, random, value and first bots) play on the kernel
    the very games they play on the reference engine: moves, points, winners, log records."""
    _assert_same_games(kernel_of(ruleset_id, players), bots, [game_seed(31, i) for i in range(games)])


def test_planner_samples_option_plays_as_on_the_reference():
    """planner:samples=1 and planner:samples=8 beside the default: the same games on both
    engines, and the option changes the moves (it is not ignored)."""
    kernel = kernel_of("sushi-go", 4)
    bots = ["planner:samples=1", "planner:samples=8", "random", "planner"]
    seeds = [game_seed(5, i) for i in range(6)]
    _assert_same_games(kernel, bots, seeds)
    game = Game(kernel.ruleset, 4)
    counts = planner.count_values(game)
    one = kernel.play(seeds, ["planner:samples=1"] * 4, None, counts)
    eight = kernel.play(seeds, ["planner:samples=8"] * 4, None, counts)
    assert one.moves.tolist() != eight.moves.tolist()


def test_the_kernel_takes_the_planner_defaults_of_the_reference():
    """The kernel's copies of the planner's default samples and count cap are the planner's own."""
    assert kernel_module.DEFAULT_SAMPLES == planner.DEFAULT_SAMPLES
    assert kernel_module.COUNT_CAP == planner.COUNT_CAP


@pytest.mark.parametrize(
    ("bot", "words"),
    [
        ("planner:depth=2", "samples=N only"),
        ("planner:samples=0", "at least 1"),
        ("planner:samples=two", "whole number"),
        ("greedy:samples=2", "has no kernel part (greedy plays on the kernel only without options; the one option"),
        ("value:tempura=3", "has no kernel part (value plays on the kernel only without options; the one option"),
        ("ismcts", "has no kernel part"),
    ],
)
def test_the_kernel_refuses_other_bot_options_saying_why(bot, words):
    """Only the planner's samples option is played in the kernel; anything else is refused with the reason."""
    reason = kernel_module.bot_refusal(bot)
    assert reason is not None and words in reason
    assert kernel_module.bot_refusal("planner:samples=3") is None
    assert kernel_module.bot_refusal(" planner ") is None


def test_the_kernel_planner_needs_its_count_values():
    """Kernel.play with a planner but no count values (or a table of the wrong shape) is a ValueError."""
    kernel = kernel_of("sushi-go", 2)
    with pytest.raises(ValueError, match="count values"):
        kernel.play([1], ["planner", "random"])
    with pytest.raises(ValueError, match="rows of 7"):
        kernel.play([1], ["planner", "random"], None, [[0.0] * 7])


def test_auto_and_kernel_engines_take_the_planner():
    """--engine kernel plays planner:samples=N; auto chooses the kernel for a long planner run."""
    rs = load_ruleset("sushi-go")
    assert engines.choose_engine(rs, 4, ["planner:samples=2"] * 4, "kernel", 10).name == "kernel"
    assert engines.choose_engine(rs, 4, ["planner"] * 4, "auto", 10**5).name == "kernel"
    with pytest.raises(InputError, match="samples=N only"):
        engines.choose_engine(rs, 4, ["planner:depth=1"] * 4, "kernel", 10)


@pytest.mark.parametrize(("ruleset_id", "games"), [("sushi-go", 12), ("sushi-go-party-dinner-for-two", 3)])
def test_simulate_with_planners_is_the_same_on_both_engines(tmp_path, ruleset_id, games):
    """simulate --bots planner,greedy,random, card effects included: every figure and the
    log's bytes the same on the kernel, which auto chooses for planners on a Party menu too."""
    args = [ruleset_id, "--players", "3", "--games", str(games), "--seed", "3", "--bots", "planner,greedy,random"]
    simulate_on_both_engines(tmp_path, args)
    rs = load_ruleset(ruleset_id)
    assert engines.choose_engine(rs, 3, ["planner"] * 3, "auto", 10**5).name == "kernel"
