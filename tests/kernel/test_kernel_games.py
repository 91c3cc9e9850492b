"""The kernel plays the reference engine's games: same seed, same deal, same moves, same points
(Sushi Go! and its variants here; the other rule files in test_kernel_games_*.py)."""

from __future__ import annotations

import attrs
import pytest

pytest.importorskip("numba")

from kernel_checks import assert_same_games  # noqa: E402
from kernel_games import EFFECT_MENUS, MUST_PLAY, PARTS, RULE_FILES, kernel, part, part_tests  # noqa: E402
from paths import DATA, ROOT  # noqa: E402

from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.kernel import Unsupported, compile_kernel, source_refusal  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.language.rule import RuleBase  # noqa: E402
from ruledraft.play.runner import game_seed, play_game  # noqa: E402

test_random_games_equal_the_reference, test_greedy_value_and_first_games_equal_the_reference = part_tests("sushi-go")


def test_the_parts_hold_every_rule_file_once():
    """The four files of the kernel's games (tests/kernel_games.py parts) check every bundled rule file and example, each once."""
    held = [f for name in PARTS for f in part(name)]
    assert sorted(held) == sorted(RULE_FILES)
    assert MUST_PLAY <= set(RULE_FILES)
    assert set(EFFECT_MENUS) <= {f for name in ("party-1", "party-2", "examples") for f in part(name)}
    # the menus whose effects the kernel must play are found among the files with effects
    assert {"sushi-go-party-master-menu", "examples/caravan-bazaar.yaml", "sushi-go-party-points-platter"} <= set(
        EFFECT_MENUS
    )
    assert "sushi-go" not in EFFECT_MENUS  # chopsticks' extra pick is no card effect here


def test_all_greedy_tables_equal_the_reference():
    """A table of greedy bots only (ties broken by each seat's own stream): identical games."""
    assert_same_games(kernel("sushi-go", 4), ["greedy"] * 4, [game_seed(5, i) for i in range(60)])


@pytest.mark.parametrize(
    ("ruleset_id", "players", "words"),
    [
        (
            str(DATA / "kernel" / "dummy-pass-pattern.yaml"),
            2,
            "the dummy procedure with pass patterns or cards added before rounds has no kernel part yet",
        ),
    ],
)
def test_a_ruleset_without_a_kernel_part_is_refused_with_the_reason(ruleset_id, players, words):
    """A turn procedure's form or an effect with no kernel part: Unsupported, naming what is missing."""
    made = compile_kernel(load_ruleset(ruleset_id), players)
    assert isinstance(made, Unsupported)
    assert words in made.reason


class _PlugInPairing(RuleBase):
    """A plug-in kind that pairs cards, with a kernel part that reads no card turned face down."""

    id = "pairs"
    when = "round_end"
    reads = None
    holds_cards = True

    def score(self, t):
        return [0] * t.num_seats

    def describe(self):
        return "Nothing."

    def kernel(self, w):
        return "for s in range(N):\n    out[s] = 0\n"


def test_cards_turned_face_down_beside_a_pairing_kind_that_cannot_read_them_are_refused():
    """The sampler's takeout boxes beside a plug-in rule that pairs cards but whose kernel part
    reads no turned card: Unsupported, saying so (its wasabi alone plays)."""
    ruleset = load_ruleset(str(ROOT / "examples" / "sushi-go-party-sampler.yaml"))
    plugged = attrs.evolve(ruleset, round_rules=ruleset.round_rules + (_PlugInPairing(),))
    made = compile_kernel(plugged, 3)
    assert isinstance(made, Unsupported)
    assert "cards turned face down with a rule that pairs cards (modifier, boost)" in made.reason
    assert source_refusal(ruleset, 3) is None


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


def test_a_plug_in_kinds_rule_is_refused_by_its_kind_not_its_wrapper():
    """--engine kernel on a rule file using a plug-in kind: the reason names the plug-in kind ('longest_run'), not the
    class that checks its results (in a process of its own: the plug-in stays out of this one)."""
    import subprocess
    import sys

    from paths import ROOT

    args = ["--plugin", "examples/plugins/longest_run.py", "simulate", "examples/plugins/sushi-go-conveyor.yaml"]
    result = subprocess.run(
        [sys.executable, "-m", "ruledraft", *args, "--engine", "kernel", "-g", "5", "-q"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2
    assert result.stderr == (
        "error: the kernel cannot play this: scoring rule 'conveyor' (plug-in kind 'longest_run') has no kernel part "
        "(use --engine reference or auto)\n"
    )


def test_a_bot_without_a_kernel_part_is_refused():
    """The kernel says which bot it cannot play, and play() refuses it."""
    made = kernel("sushi-go", 2)
    assert "ismcts" in (made.refuses(["random", "ismcts"]) or "")
    with pytest.raises(ValueError, match="ismcts"):
        made.play([1], ["random", "ismcts"])


def test_the_value_bot_needs_its_card_values():
    """play() with a value bot and no card values refuses, rather than play with zeros."""
    with pytest.raises(ValueError, match="card values"):
        kernel("sushi-go", 2).play([1], ["value", "random"])


def test_each_scoring_and_table_is_the_references():
    """Each round's points per rule and each seat's cards at each scoring (what the lab
    counts) are the reference state's, game by game."""
    ruleset = load_ruleset("sushi-go")
    game = Game(ruleset, 3)
    seeds = [game_seed(3, i) for i in range(40)]
    games = kernel("sushi-go", 3).play(seeds, ["greedy", "random", "random"])
    for i, seed in enumerate(seeds):
        state = play_game(game, seed, ["greedy", "random", "random"])
        points = [x for sc in state.scorings for row in sc.points for x in row]
        assert games.scoring_points()[i].tolist() == points
        tables = [rec.counts for rec in state.history] + [state.kept_counts]
        assert games.tables[i].tolist() == [[list(row) for row in t] for t in tables]
        assert games.one(i).moves.tolist() == [games.moves[i].tolist()]
