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


@pytest.mark.parametrize(
    ("path", "bots", "games"),
    [
        ("sushi-go-two-player-dummy", ["planner", "planner"], 10),  # the dummy never wins
        ("sushi-go-two-player-dummy", ["greedy", "planner:samples=3"], 6),
        ("dummy-can-win.yaml", ["planner", "planner"], 8),  # among the rivals; reshuffled, passed right
        ("dummy-can-win.yaml", ["planner", "random"], 6),
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
        (2, ["planner", "planner"], 12),
        (5, ["planner:samples=3", "greedy"] * 2 + ["planner"], 4),
    ):
        made = kernel_module.compile_kernel(rs, players)
        assert isinstance(made, Kernel), made
        _assert_same_games(made, bots, [game_seed(7, i) for i in range(games)])
    assert engines.kernel_refusal(rs, 2, ["planner:samples=3", "greedy"]) is None
    assert engines.choose_engine(rs, 2, ["planner"] * 2, "auto", 10**5, background=False).name == "kernel"
