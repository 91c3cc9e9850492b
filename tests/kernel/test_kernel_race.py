"""The race (Sushi Go Party!'s uramaki) in the kernel: places taken at turn ends, the race
cards of the seats that scored taken off their tables (and shuffled back in with a
reshuffle), the leftovers' places at round end; games equal to the reference engine's."""

from __future__ import annotations

import importlib.util
import random

import numpy as np
import pytest
from kernel_checks import assert_same_games, simulate_on_both_engines
from paths import DATA

from ruledraft.kernel import Kernel, compile_kernel
from ruledraft.kernel.codegen import _Writer, plain_rule
from ruledraft.language.loading import load_ruleset
from ruledraft.play.runner import game_seed
from ruledraft.tableau import Tableau

ICONS = str(DATA / "kernel" / "race-icons.yaml")
SPLIT = str(DATA / "kernel" / "race-split.yaml")
#: every built-in bot the kernel plays alone, and mixed
LINEUPS = (["random"], ["first"], ["value"], ["greedy"], ["greedy", "random", "value", "first"])


def _plain_turns(ruleset, rule):
    """The race's two game-loop functions (``Race.kernel_turns``) run as plain Python."""
    w = _Writer(ruleset, tuple(ruleset.num_seats(n) for n in ruleset.player_counts))
    turn, end = rule.kernel_turns(w)
    namespace = {"np": np, "njit": lambda *a, **k: lambda f: f}
    exec("\n".join([*w.arrays, *w.functions]), namespace)  # noqa: S102 - the kernel's own source
    return namespace[turn], namespace[end]


def _arrays(t: Tableau, width: int = 40):
    seats = len(t.cards)
    seq = np.zeros((seats, width), dtype=np.int64)
    for s, row in enumerate(t.cards):
        seq[s, : len(row)] = row
    return np.array(t.counts, dtype=np.int64), seq, np.array([len(r) for r in t.cards], dtype=np.int64)


@pytest.mark.parametrize("source", [ICONS, SPLIT], ids=["icons", "split"])
def test_a_round_of_turns_scores_and_discards_as_the_race_does(source):
    """300 random rounds, turn by turn: after each turn end the kernel's progress (places
    used, points) and tables (the scorers' race cards gone, in order) are ``turn_end``'s,
    the discards in the reference's order and counted by seat; at round end its points are ``round_end``'s;
    and the race's plain part (every place open) is ``score``'s."""
    ruleset = load_ruleset(source)
    rng = random.Random(source)
    K = ruleset.catalogue.size
    awarded = 0
    for rule in (r for r in ruleset.round_rules if r.turn_scoring is not None):
        turn, end = _plain_turns(ruleset, rule)
        fresh = plain_rule(ruleset, rule)
        for _ in range(300):
            seats = ruleset.num_seats(rng.choice(list(ruleset.player_counts)))
            tables: list[list[int]] = [[] for _ in range(seats)]
            progress = rule.start(seats)
            prog = np.zeros(seats + 1, dtype=np.int64)
            disc = np.zeros(200, dtype=np.int64)
            took = np.zeros((seats, K), dtype=np.int64)
            left = [[0] * K for _ in range(seats)]
            nd = 0
            for _turn in range(rng.randrange(1, 10)):
                for row in tables:
                    row.append(rng.randrange(K))
                t = Tableau.from_cards(K, tables, 1)
                counts, seq, lens = _arrays(t)
                out = np.zeros(seats, dtype=np.int64)
                fresh(counts, seq, lens, 1, out)
                assert out.tolist() == rule.score(t)
                progress, leaving = rule.turn_end(t, progress)
                was = nd
                nd = turn(counts, seq, lens, 1, prog, took, disc, nd)
                assert [int(prog[0]), prog[1:].tolist()] == [progress.used, list(progress.points)]
                assert disc[was:nd].tolist() == [c for cards in leaving for c in cards]
                for s, cards in enumerate(leaving):
                    for c in cards:
                        left[s][c] += 1
                assert took.tolist() == left
                awarded += len(rule.taken(progress))
                tables = [[c for c in row if c not in cards] for row, cards in zip(tables, leaving)]
                assert [seq[s, : lens[s]].tolist() for s in range(seats)] == tables
                assert counts.tolist() == Tableau.from_cards(K, tables).counts
            t = Tableau.from_cards(K, tables, 1)
            out = np.zeros(seats, dtype=np.int64)
            end(*_arrays(t), 1, prog, out)
            assert out.tolist() == rule.round_end(t, progress)
    assert awarded > 100  # places were taken during the rounds, not only at their ends


def test_same_turn_ties_take_the_place_in_full_and_use_up_the_next(tmp_path):
    """The rulebook's uramaki: 12, 10 and 10 icons at one turn end take 8, then 5 and 5 in
    full (more icons first; the two tied use up places 2 and 3); the third place is gone,
    nothing is left for the round end; the three seats' uramaki are discarded."""
    ruleset = load_ruleset(ICONS)
    rule = ruleset.round_rules[0]
    ura3, ura4, ura5, egg = 0, 1, 2, 4
    t = Tableau.from_cards(ruleset.catalogue.size, [[ura4, ura4, ura4], [ura5, egg, ura5], [ura3, ura3, ura4], [egg]])
    turn, end = _plain_turns(ruleset, rule)
    counts, seq, lens = _arrays(t)
    prog = np.zeros(5, dtype=np.int64)
    disc = np.zeros(20, dtype=np.int64)
    took = np.zeros((4, ruleset.catalogue.size), dtype=np.int64)
    nd = turn(counts, seq, lens, 1, prog, took, disc, 0)
    assert prog.tolist() == [3, 8, 5, 5, 0]
    assert disc[:nd].tolist() == [ura4, ura4, ura4, ura5, ura5, ura3, ura3, ura4]
    assert lens.tolist() == [0, 1, 0, 1]
    assert took[:, :3].tolist() == [[0, 3, 0], [0, 0, 2], [2, 1, 0], [0, 0, 0]]
    out = np.zeros(4, dtype=np.int64)
    end(counts, seq, lens, 1, prog, out)
    assert out.tolist() == [8, 5, 5, 0] == rule.round_end(t, rule.turn_end(t, rule.start(4))[0])


needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="numba, the kernel's compiler")


def _assert_same_games(kernel: Kernel, bots: list[str], seeds: list[int]) -> int:
    """Kernel and reference games alike (points per scoring and tables too); how many
    places races took during the rounds."""
    states = assert_same_games(kernel, bots, seeds, scorings=True, tables=True)
    return sum(1 for state in states for e in state.events if e.what[0] == "race")


@needs_numba
@pytest.mark.parametrize("source", [ICONS, SPLIT], ids=["icons", "split"])
def test_race_rule_files_play_the_reference_games_at_their_fewest_and_most_players(source):
    """Fewest and most players; random, first, value and greedy tables and a mixed one: 20
    seeds each with the reference's moves, points per rule and scoring, tables and winners."""
    ruleset = load_ruleset(source)
    during = 0
    for players in (ruleset.min_players, ruleset.max_players):
        kernel = compile_kernel(ruleset, players)
        assert isinstance(kernel, Kernel), kernel
        for j, lineup in enumerate(LINEUPS):
            bots = (lineup * players)[:players]
            during += _assert_same_games(kernel, bots, [game_seed(30 + j, i) for i in range(20)])
    assert during > 50


@needs_numba
def test_simulate_figures_and_logs_are_the_same_on_both_engines(tmp_path):
    """simulate --json and the log of a reshuffled race game: the same on both engines."""
    simulate_on_both_engines(tmp_path, [SPLIT, "-p", "3", "-g", "150", "-s", "8", "--bots", "greedy,random,first"])
