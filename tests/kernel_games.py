"""The kernel's games against the reference engine's on every bundled rule file and
example, in parts: the test files ``tests/kernel/test_kernel_games*.py`` each take one
part (each compiles its rule files' kernels, 20-60 s of processor time apiece on an
empty cache; the suite's workers take a file each, so the parts spread over them)."""

from __future__ import annotations

import json
from collections.abc import Callable

from kernel_checks import assert_same_games
from paths import ROOT
from strategies import BUNDLED_RULESETS, played_ruleset

from ruledraft.engine.state import Game
from ruledraft.kernel import Kernel, Unsupported, compile_kernel
from ruledraft.play.agents import default_card_values
from ruledraft.play.game_log import record_game, replay_game
from ruledraft.play.runner import game_seed, kernel_state, play_game

#: the example rule files that are games (the tutorial's broken files are not)
EXAMPLES = tuple(str(p.relative_to(ROOT)) for p in sorted((ROOT / "examples").glob("*.yaml")) if "broken" not in p.name)

#: every rule file whose games are checked
RULE_FILES = BUNDLED_RULESETS + EXAMPLES

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
    # card effects whose decisions greedy and value judge by a look in a re-dealt world
    "sushi-go-party-big-banquet",  # spoons (a card given known to every seat) and chopsticks
    "sushi-go-party-cutthroat-combo",  # spoons and miso soup
    "sushi-go-party-party-sampler",  # menus (cards drawn only their seat sees)
    # cards changed into others: takeout boxes (turned face down), special orders (copies)
    "sushi-go-party-master-menu",
    "examples/caravan-bazaar.yaml",
    "examples/sushi-go-party-sampler.yaml",  # takeout boxes turning wasabi and nigiri face down
    # a race (uramaki) beside special orders: greedy's and value's look plays its turn end
    "sushi-go-party-points-platter",
    "sushi-go-party-dinner-for-two",  # and beside menus and miso soup
}


def part(name: str) -> list[str]:
    """The rule files of one part: ``examples``; ``party-1`` and ``party-2``, the Party
    menus in two halves (by name); ``sushi-go``, the rest (Sushi Go! and its variants)."""
    party = sorted(f for f in BUNDLED_RULESETS if f.startswith("sushi-go-party"))
    parts = {
        "examples": list(EXAMPLES),
        "party-1": party[: len(party) // 2],
        "party-2": party[len(party) // 2 :],
        "sushi-go": [f for f in BUNDLED_RULESETS if f not in party],
    }
    return parts[name]


#: the parts' names (each is one test file's)
PARTS = ("examples", "party-1", "party-2", "sushi-go")


def load(ruleset_id: str):
    """A bundled ruleset by id, or an example by its path from the repository's root
    (loaded once in a process, in the cache the other helpers share: a compiled ruleset is frozen)."""
    return played_ruleset(str(ROOT / ruleset_id) if ruleset_id.startswith("examples/") else ruleset_id)


#: the rule files with card effects (those of the cards themselves, not chopsticks'
#: extra pick), each played by every built-in bot (alone and mixed) and its decisions and
#: logs compared: miso soup (collision), Party chopsticks (second_pick), spoons
#: (ask_for), menus (draw_and_choose), takeout boxes (turn_face_down; beside wasabi in
#: the sampler), special orders (copy_earlier), races beside them (uramaki). Found by
#: loading each rule file, so a new one with effects is checked without a word here.
EFFECT_MENUS = tuple(f for f in RULE_FILES if load(f).effects)


def kernel(ruleset_id: str, players: int) -> Kernel:
    """The rule file's kernel at ``players`` (it must have one)."""
    made = compile_kernel(load(ruleset_id), players)
    assert isinstance(made, Kernel), made
    return made


def check_random_games(ruleset_id: str, end: str) -> None:
    """At the rule file's fewest (``min``) or most (``max``) players, the kernel plays 300
    seeds of random bots exactly as the reference engine does, or refuses with a reason."""
    ruleset = load(ruleset_id)
    players = ruleset.min_players if end == "min" else ruleset.max_players
    made = compile_kernel(ruleset, players)
    if isinstance(made, Unsupported):
        assert ruleset_id not in MUST_PLAY, made.reason
        assert "no kernel part" in made.reason
    else:
        assert_same_games(made, ["random"] * players, [game_seed(2024, i) for i in range(300)])


def check_mixed_games(ruleset_id: str) -> None:
    """Greedy (its rescoring and seeded tie-breaks), value (its default card values), first
    and random together, at the fewest and the most players: identical games."""
    ruleset = load(ruleset_id)
    for players, seats in (
        (ruleset.min_players, ["greedy", "value"]),
        (ruleset.max_players, ["greedy", "first", "random", "value"]),
    ):
        lineup = (seats * players)[:players]
        assert_same_games(kernel(ruleset_id, players), lineup, [game_seed(99, i) for i in range(60)])


def part_tests(name: str) -> tuple[Callable[..., None], Callable[..., None]]:
    """The two tests of part ``name``, for its file to hold: random games at the fewest
    and most players, and greedy, value, first and random together where it must play."""
    import pytest

    @pytest.mark.parametrize("end", ["min", "max"])
    @pytest.mark.parametrize("ruleset_id", part(name))
    def test_random_games_equal_the_reference(ruleset_id, end):
        """At its fewest and most players, 300 seeds of random bots: the kernel's games are the reference's, or it refuses with a reason."""
        check_random_games(ruleset_id, end)

    @pytest.mark.parametrize("ruleset_id", sorted(MUST_PLAY.intersection(part(name))))
    def test_greedy_value_and_first_games_equal_the_reference(ruleset_id):
        """Greedy, value, first and random together at the fewest and most players: identical games."""
        check_mixed_games(ruleset_id)

    return test_random_games_equal_the_reference, test_greedy_value_and_first_games_equal_the_reference


def _lineups(players: int) -> list[list[str]]:
    mixed = (["greedy", "random", "value", "first"] * players)[:players]
    return [[b] * players for b in ("random", "first", "value", "greedy")] + [mixed]


def check_menu_games(menu: str, end: str) -> None:
    """At the menu's fewest (``min``) or most (``max``) players, each line-up of built-in
    bots (each alone, and mixed) plays on the kernel the reference's games: the same picks,
    decisions (greedy's and value's looks included), points, winners and game logs, and
    each log replays clean."""
    ruleset = load(menu)
    players = ruleset.min_players if end == "min" else ruleset.max_players
    made = kernel(menu, players)
    game = Game(ruleset, players)
    values = default_card_values(game)
    decided = 0
    for bots in _lineups(players):
        assert made.refuses(bots) is None
        seeds = [game_seed(31, i) for i in range(12)]
        games = made.play(seeds, bots, values)
        for i, seed in enumerate(seeds):
            state = play_game(game, seed, bots)
            reference = [(r, t, s, a) for r, rec in enumerate(state.history) for t, s, a in rec.decisions]
            assert games.moves[i].tolist() == [r.actions for r in state.history], (bots, seed)
            assert games.decisions_of(i) == reference, (bots, seed)
            assert list(games.game(i)[1]) == state.totals(), (bots, seed)
            assert list(games.game(i)[2]) == state.winners, (bots, seed)
            decided += len(reference)
            record = record_game(kernel_state(game, games, i), bots)
            assert record == record_game(state, bots)
            replayed, problems = replay_game(ruleset, json.loads(json.dumps(record)))
            assert not problems and replayed is not None
    if menu != "sushi-go-party-my-first-meal":
        assert decided > 0  # the effects asked decisions, and they were compared


def menu_test(name: str) -> Callable[..., None]:
    """The test of part ``name``'s rule files with card effects (for its file to hold)."""
    import pytest

    menus = [f for f in part(name) if f in EFFECT_MENUS]
    assert menus, f"no rule file with card effects in the part {name}"

    @pytest.mark.parametrize("end", ["min", "max"])
    @pytest.mark.parametrize("menu", menus)
    def test_menus_with_effects_play_the_reference_games(menu, end):
        """At its fewest and most players, each line-up of built-in bots (alone and mixed) plays the reference's games on the kernel: picks, decisions, points, winners, logs that replay."""
        check_menu_games(menu, end)

    return test_menus_with_effects_play_the_reference_games
