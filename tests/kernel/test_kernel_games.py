"""The kernel plays the reference engine's games: same seed, same deal, same moves, same points."""

from __future__ import annotations

from pathlib import Path

import attrs
import pytest

pytest.importorskip("numba")

from kernel_checks import assert_same_games  # noqa: E402
from paths import DATA  # noqa: E402
from strategies import BUNDLED_RULESETS  # noqa: E402

from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.kernel import Kernel, Unsupported, compile_kernel  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.language.rule import RuleBase  # noqa: E402
from ruledraft.play.runner import game_seed, play_game  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent
#: the example rule files that are games (the tutorial's broken files are not)
EXAMPLES = tuple(str(p.relative_to(ROOT)) for p in sorted((ROOT / "examples").glob("*.yaml")) if "broken" not in p.name)

#: the rule files the kernel must play (the others may be refused, with a reason)
MUST_PLAY = {
    "sushi-go",
    "sushi-go-pass-both-ways",
    "sushi-go-soy-sauce",
    "sushi-go-party-starter",  # cards added to the deck before rounds
    "examples/midnight-apothecary.yaml",  # reshuffled between rounds
    "examples/sushi-go-switchback.yaml",  # a pass direction per turn
    "examples/sushi-go-party-soy-sauce.yaml",
    "examples/my-party-menu.yaml",
    "examples/lantern-festival.yaml",  # disjoint sets, neighbours, a boost, a modifier with same
    "examples/meadow-keepers.yaml",
    "sushi-go-two-player-dummy",  # the dummy procedure
}


def _load(ruleset_id: str):
    """A bundled ruleset by id, or an example by its path from the repository's root."""
    return load_ruleset(str(ROOT / ruleset_id) if ruleset_id.startswith("examples/") else ruleset_id)


def _kernel(ruleset_id: str, players: int) -> Kernel:
    kernel = compile_kernel(_load(ruleset_id), players)
    assert isinstance(kernel, Kernel), kernel
    return kernel


def _assert_same_games(kernel: Kernel, bots: list[str], seeds: list[int]) -> None:
    assert_same_games(kernel, bots, seeds)


@pytest.mark.parametrize("ruleset_id", BUNDLED_RULESETS + EXAMPLES)
@pytest.mark.parametrize("end", ["min", "max"])
def test_random_games_equal_the_reference(ruleset_id, end):
    """Every bundled ruleset and example at its smallest and largest player counts: the
    kernel plays 300 seeds of random bots exactly as the reference engine does, or
    refuses with a reason."""
    ruleset = _load(ruleset_id)
    players = ruleset.min_players if end == "min" else ruleset.max_players
    made = compile_kernel(ruleset, players)
    if isinstance(made, Unsupported):
        assert ruleset_id not in MUST_PLAY, made.reason
        assert "no kernel part" in made.reason
    else:
        _assert_same_games(made, ["random"] * players, [game_seed(2024, i) for i in range(300)])


@pytest.mark.parametrize("ruleset_id", sorted(MUST_PLAY))
def test_greedy_value_and_first_games_equal_the_reference(ruleset_id):
    """Greedy (its rescoring and its seeded tie-breaks), value (its default card values), first
    and random bots together: identical games."""
    ruleset = _load(ruleset_id)
    for players, seats in (
        (ruleset.min_players, ["greedy", "value"]),
        (ruleset.max_players, ["greedy", "first", "random", "value"]),
    ):
        lineup = (seats * players)[:players]
        _assert_same_games(_kernel(ruleset_id, players), lineup, [game_seed(99, i) for i in range(60)])


def test_all_greedy_tables_equal_the_reference():
    """A table of greedy bots only (ties broken by each seat's own stream): identical games."""
    _assert_same_games(_kernel("sushi-go", 4), ["greedy"] * 4, [game_seed(5, i) for i in range(60)])


@pytest.mark.parametrize(
    ("ruleset_id", "players", "words"),
    [
        (
            str(DATA / "kernel" / "dummy-pass-pattern.yaml"),
            2,
            "the dummy procedure with pass patterns or cards added before rounds has no kernel part yet",
        ),
        (
            str(ROOT / "examples" / "sushi-go-party-sampler.yaml"),
            3,
            "cards turned face down with a rule that pairs cards (modifier, boost)",
        ),
    ],
)
def test_a_ruleset_without_a_kernel_part_is_refused_with_the_reason(ruleset_id, players, words):
    """A turn procedure's form or an effect with no kernel part: Unsupported, naming what is missing."""
    made = compile_kernel(load_ruleset(ruleset_id), players)
    assert isinstance(made, Unsupported)
    assert words in made.reason


class _PlugInRule(RuleBase):
    """A rule as a plug-in kind might bring it: it scores, but has no kernel part."""

    id = "bonus"
    when = "round_end"
    reads = None

    def score(self, t):
        return [0] * t.num_seats

    def describe(self):
        return "Nothing."


def test_a_rule_of_a_kind_without_a_kernel_part_is_refused_by_name():
    """A rule whose kind gives no kernel part (a plug-in's, say) is named in the reason."""
    ruleset = load_ruleset("sushi-go")
    ruleset = attrs.evolve(ruleset, round_rules=ruleset.round_rules + (_PlugInRule(),))
    made = compile_kernel(ruleset, 3)
    assert isinstance(made, Unsupported)
    assert "scoring rule 'bonus' (_PlugInRule) has no kernel part" in made.reason


def test_a_bot_without_a_kernel_part_is_refused():
    """The kernel says which bot it cannot play, and play() refuses it."""
    kernel = _kernel("sushi-go", 2)
    assert "ismcts" in (kernel.refuses(["random", "ismcts"]) or "")
    with pytest.raises(ValueError, match="ismcts"):
        kernel.play([1], ["random", "ismcts"])


def test_the_value_bot_needs_its_card_values():
    """play() with a value bot and no card values refuses, rather than play with zeros."""
    with pytest.raises(ValueError, match="card values"):
        _kernel("sushi-go", 2).play([1], ["value", "random"])


def test_each_scoring_and_table_is_the_references():
    """Each round's points per rule and each seat's cards at each scoring (what the lab
    counts) are the reference state's, game by game."""
    ruleset = load_ruleset("sushi-go")
    game = Game(ruleset, 3)
    seeds = [game_seed(3, i) for i in range(40)]
    games = _kernel("sushi-go", 3).play(seeds, ["greedy", "random", "random"])
    for i, seed in enumerate(seeds):
        state = play_game(game, seed, ["greedy", "random", "random"])
        points = [x for sc in state.scorings for row in sc.points for x in row]
        assert games.scoring_points()[i].tolist() == points
        tables = [rec.counts for rec in state.history] + [state.kept_counts]
        assert games.tables[i].tolist() == [[list(row) for row in t] for t in tables]
        assert games.one(i).moves.tolist() == [games.moves[i].tolist()]
