"""The shipped examples (``examples/``) and the authors' guide (``examples/README.md``)."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest
import update_guide
from paths import EXAMPLES, ROOT

from ruledraft.cli.app import app
from ruledraft.engine.state import Game
from ruledraft.engine.table_scoring import score_table
from ruledraft.language.kinds.expression import Expression
from ruledraft.language.kinds.majority import Majority
from ruledraft.language.kinds.modifier import Modifier
from ruledraft.language.kinds.per_card import PerCard
from ruledraft.language.kinds.sets import Sets
from ruledraft.language.kinds.table import Table
from ruledraft.language.loading import check_ruleset, load_ruleset
from ruledraft.play.game_log import replay_record
from ruledraft.play.runner import simulate

GUIDE = EXAMPLES / "README.md"


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


#: examples/plugins/ holds rule files that need their plug-in (tests/language/test_plugins.py)
ALL_YAML = sorted(p for p in EXAMPLES.rglob("*.yaml") if "plugins" not in p.relative_to(EXAMPLES).parts)
GOOD = [_rel(p) for p in ALL_YAML if not p.name.startswith("broken-")]
BROKEN = [_rel(p) for p in ALL_YAML if p.name.startswith("broken-")]

#: every broken example, with the diagnostics (file, line, column, message) the guide shows for it
BROKEN_EXPECTED = {
    "examples/tutorial/broken-unknown-key.yaml": [
        (
            "examples/tutorial/broken-unknown-key.yaml",
            28,
            5,
            "unknown key 'sise' in a 'sets' scoring rule (did you mean 'size'?)",
        ),
    ],
    "examples/tutorial/broken-unknown-card.yaml": [
        ("examples/tutorial/broken-unknown-card.yaml", 27, 12, "unknown card 'pearr' (did you mean 'pear'?)"),
    ],
    "examples/tutorial/broken-expression.yaml": [
        ("examples/tutorial/broken-expression.yaml", 66, 67, "'=' is not an operator: to compare, write '=='"),
    ],
    "examples/tutorial/broken-deck-too-small.yaml": [
        (
            "examples/tutorial/broken-deck-too-small.yaml",
            13,
            22,
            "the deck has 40 cards, too few to deal 5 cards to 3 seats for 3 rounds (45 needed): add 5 cards or deal fewer, or set deal.between_rounds: reshuffle (then one round's deal must fit)",
        ),
        (
            "examples/tutorial/broken-deck-too-small.yaml",
            13,
            22,
            "the deck has 40 cards, too few to deal 5 cards to 4 seats for 3 rounds (60 needed): add 20 cards or deal fewer, or set deal.between_rounds: reshuffle (then one round's deal must fit)",
        ),
    ],
    # the variant removes a card its parent's rule still names: the error is at the removal, naming the use
    "examples/tutorial/broken-remove.yaml": [
        (
            "examples/tutorial/broken-remove.yaml",
            19,
            11,
            "card 'durian' is removed here, but examples/tutorial/step7.yaml:82:18 still uses it"
            " (keep the card, or remove or rewrite that use in this file)",
        ),
        (
            "examples/tutorial/broken-remove.yaml",
            19,
            11,
            "card 'durian' is removed here, but examples/tutorial/step7.yaml:82:54 still uses it"
            " (keep the card, or remove or rewrite that use in this file)",
        ),
    ],
}


@pytest.fixture
def at_root(monkeypatch):
    """Run from the repository root, as the guide's commands are."""
    monkeypatch.chdir(ROOT)
    return ROOT


def seat_bots(players: int) -> list:
    """One greedy bot, random bots in the other seats."""
    return ["greedy"] + ["random"] * (players - 1)


# ---------------------------------------------------------------- every example


def test_examples_are_found():
    """The examples folder ships the three complete examples, the tutorial steps, the variant and the broken snippets."""
    assert "examples/midnight-apothecary.yaml" in GOOD
    assert "examples/sushi-go-party-sampler.yaml" in GOOD
    assert "examples/sushi-go-party-soy-sauce.yaml" in GOOD
    assert [f"examples/tutorial/step{i}.yaml" for i in range(1, 8)] == [g for g in GOOD if "/step" in g]
    assert "examples/tutorial/variant.yaml" in GOOD
    assert sorted(BROKEN) == sorted(BROKEN_EXPECTED)


@pytest.mark.parametrize("path", GOOD)
def test_example_validates_with_no_diagnostics(path, at_root):
    """Every example that is not a broken-* file loads, passes every check and compiles, with zero diagnostics."""
    result = check_ruleset(path)
    assert result.diagnostics == []
    assert result.ok


@pytest.mark.parametrize("path", GOOD)
def test_example_simulates_at_min_and_max_players_and_its_logs_replay_clean(path, at_root):
    """Every good example plays 20 bot games at its fewest and most players, and each logged game replays clean."""
    rs = load_ruleset(path)
    for players in sorted({rs.min_players, rs.max_players}):
        records = []
        summary = simulate(
            rs,
            players,
            20,
            11,
            seat_bots(players),
            log=True,
            on_result=lambda r, records=records: records.append(r.record),
        )
        assert summary.games == 20
        assert len(records) == 20
        for record in records:
            assert replay_record(rs, record) == [], (path, players, record["seed"])


@pytest.mark.parametrize("path", sorted(BROKEN_EXPECTED))
def test_broken_example_fails_where_the_guide_says(path, at_root):
    """Each broken-* file is rejected with exactly the located diagnostics that the guide pastes for it."""
    result = check_ruleset(path)
    assert not result.ok
    got = [(d.file, d.line, d.column, d.message) for d in result.diagnostics]
    assert got == BROKEN_EXPECTED[path]
    guide = GUIDE.read_text(encoding="utf-8")
    for file, line, column, message in BROKEN_EXPECTED[path]:
        assert f"{file}:{line}:{column}: error: {message}" in guide


# ---------------------------------------------------------------- soy sauce: Party vs promo


def _soy_points(ruleset, round_cards):
    return score_table(ruleset, {"rounds": [round_cards]})["rules"]["soy_sauce"]


@pytest.fixture(scope="module")
def party():
    return load_ruleset(EXAMPLES / "sushi-go-party-soy-sauce.yaml")


@pytest.fixture(scope="module")
def promo():
    return load_ruleset("sushi-go-soy-sauce")


# Colours: seat 0 {soy sauce, tempura, sashimi}, seat 1 {soy sauce, dumpling, nigiri},
# seat 2 {maki, pudding, chopsticks}: all three tie on 3 colours; seat 2 has no soy sauce.
TIED_TABLE = [
    ["soy_sauce", "soy_sauce", "tempura", "sashimi"],
    ["soy_sauce", "dumpling", "egg_nigiri"],
    ["maki_1", "pudding", "chopsticks"],
]


def test_party_soy_sauce_scores_ties_in_full_four_per_card(party):
    """Party soy sauce: tied players with the most colours each score 4 per soy sauce card (2 cards: 8, 1 card: 4); no soy sauce, nothing."""
    assert _soy_points(party, TIED_TABLE) == [8, 4, 0]


def test_promo_soy_sauce_splits_four_once_per_player(promo):
    """The bundled promo on the same table: the two tied soy-sauce players split 4 (2 each), a second soy sauce adds nothing."""
    assert _soy_points(promo, TIED_TABLE) == [2, 2, 0]


def test_party_soy_sauce_needs_the_most_colours(party, promo):
    """A player without soy sauce who has more colours sets the bar, so no soy sauce scores, in either rule."""
    table = [
        ["soy_sauce", "tempura"],
        ["soy_sauce", "soy_sauce", "dumpling"],
        ["maki_1", "pudding", "chopsticks", "tempura"],
    ]
    assert _soy_points(party, table) == [0, 0, 0]
    assert _soy_points(promo, table) == [0, 0, 0]


def test_party_soy_sauce_lone_leader_scores_every_card(party, promo):
    """Alone with the most colours and 3 soy sauces: 12 with the Party rule, 4 with the promo."""
    table = [["soy_sauce", "soy_sauce", "soy_sauce", "tempura", "sashimi"], ["tempura", "sashimi"]]
    assert _soy_points(party, table) == [12, 0]
    assert _soy_points(promo, table) == [4, 0]


def test_party_soy_sauce_differs_from_the_promo_only_in_the_soy_sauce_rule(party, promo):
    """Same cards, same other rules, same deal; the soy sauce rule is the same Majority primitive with other settings."""
    assert party.id == "sushi-go-party-soy-sauce" and party.name != promo.name
    assert party.catalogue == promo.catalogue
    assert party.hand_sizes == promo.hand_sizes and party.rounds == promo.rounds
    assert [r.id for r in party.rules] == [r.id for r in promo.rules]
    for mine, theirs in zip(party.rules, promo.rules):
        assert type(mine) is type(theirs)
        if mine.id != "soy_sauce":
            assert mine.describe() == theirs.describe()
    soy_party = next(r for r in party.rules if r.id == "soy_sauce")
    soy_promo = next(r for r in promo.rules if r.id == "soy_sauce")
    assert isinstance(soy_party, Majority)
    assert (soy_party.split, soy_party.multiplier is not None) == (False, True)
    assert (soy_promo.split, soy_promo.multiplier is None) == (True, True)


# ---------------------------------------------------------------- Midnight Apothecary


@pytest.fixture(scope="module")
def apothecary():
    return load_ruleset(EXAMPLES / "midnight-apothecary.yaml")


def test_apothecary_uses_every_scoring_kind_an_action_a_kept_card_and_a_tie_break(apothecary):
    """The complete example has sets, table, per_card, modifier, majority and expression rules, an extra pick, a kept card and a tie-break."""
    kinds = {type(r) for r in apothecary.rules}
    assert kinds == {Sets, Table, PerCard, Modifier, Majority, Expression}
    assert [a.card for a in apothecary.actions] == [apothecary.catalogue.index_of("broomstick")]
    assert [c.id for c in apothecary.catalogue.cards if c.keep == "game"] == ["grimoire_page"]
    assert len(apothecary.tie_breaks) == 1
    assert [r.id for r in apothecary.game_rules] == ["grimoire"]
    assert "count_opponents(" in next(r for r in apothecary.rules if r.id == "black_cat").text
    assert (apothecary.min_players, apothecary.max_players) == (2, 6)


def test_apothecary_scores_a_hand_worked_table(apothecary):
    """One round for 3 players, worked by hand: cauldron holds 2 elixirs, crystals tie in full without skipping 2nd, cats, wilted moonpetals, pages."""
    table = {
        "rounds": [
            [
                [
                    "cauldron",
                    "love_elixir",
                    "strength_elixir",
                    "healing_elixir",
                    "crystal_3",
                    "crystal_2",
                    "black_cat",
                    "grimoire_page",
                    "grimoire_page",
                ],
                [
                    "toadstool",
                    "toadstool",
                    "toadstool",
                    "moonpetal",
                    "moonpetal",
                    "crystal_3",
                    "crystal_2",
                    "grimoire_page",
                ],
                ["moonpetal"] * 5 + ["crystal_1", "black_cat", "crystal_2", "grimoire_page", "grimoire_page"],
            ]
        ]
    }
    result = score_table(apothecary, table)
    assert result["rules"] == {
        "toadstool": [0, 9, 0],
        "moonpetal": [0, 5, 3],  # 2 -> 5; 5 or more wilt -> 3
        "elixirs": [6, 0, 0],  # 3 + 2 + 1
        "cauldron": [5, 0, 0],  # love and strength doubled; healing finds the cauldron full
        "crystals": [6, 6, 3],  # 5, 5, 3 shards: tied 1st in full, then 2nd
        "black_cat": [3, 0, 3],  # each cat owner: one opponent (seat 1) has none
        "grimoire": [4, 1, 4],  # 2 pages, none has more: 2 each; 1 page: 1
    }
    assert result["totals"] == [24, 21, 13]
    assert result["winners"] == [0]


def test_apothecary_tie_is_broken_by_grimoire_pages(apothecary):
    """Tied on points, the player with more grimoire pages wins."""
    table = {
        "rounds": [
            [
                ["grimoire_page", "grimoire_page", "toadstool"],  # 0 + 2 pages x 2 = 4
                ["grimoire_page", "strength_elixir", "healing_elixir"],  # 3 + 1 page x 1 = 4
            ]
        ]
    }
    result = score_table(apothecary, table)
    assert result["totals"] == [4, 4]
    assert result["winners"] == [0]


def test_apothecary_crystal_awards_grow_with_five_or_six_players(apothecary):
    """With 5-6 players the crystal race pays a third place (6 / 4 / 2)."""
    table = {"rounds": [[["crystal_3"], ["crystal_2"], ["crystal_1"], ["toadstool"], ["toadstool"]]]}
    assert score_table(apothecary, table)["rules"]["crystals"] == [6, 4, 2, 0, 0]


def test_apothecary_broomstick_takes_two_cards_and_returns_to_the_hand(apothecary):
    """A broomstick played earlier lets a player take two cards in one turn; it then goes back into the hand passed on."""
    game = Game(apothecary, 2)
    cat = apothecary.catalogue
    broom, toad, petal = (cat.index_of(c) for c in ("broomstick", "toadstool", "moonpetal"))
    state = game.new_initial_state(0, deals=[[[broom, toad, petal, toad] + [petal] * 5, [petal] * 9]] * 3)
    state.apply_actions([broom, petal])
    assert state.hands[0] == [petal] * 8  # seat 0 now holds what seat 1 passed it
    two = game.encode_action([petal, petal])
    assert two in state.legal_actions(0)
    state.apply_actions([two, toad])
    assert state.counts[0][broom] == 0  # the broomstick left the table ...
    assert broom in state.hands[1]  # ... inside the hand passed on to seat 1
    assert state.counts[0][petal] == 2


# ---------------------------------------------------------------- the guide's snippets


def test_guide_yaml_snippets_are_taken_from_the_shipped_files():
    """Every line of the guide's YAML snippets (bar '...' elisions) is a line of a shipped example or bundled ruleset, and its JSON table is table.json."""
    text = GUIDE.read_text(encoding="utf-8")
    shipped = set()
    for path in ALL_YAML + sorted((ROOT / "rulesets").glob("*.yaml")):
        shipped.update(line.rstrip() for line in path.read_text(encoding="utf-8").splitlines())
    missing = []
    for block in re.findall(r"```yaml\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            if line.strip() and "..." not in line and line.rstrip() not in shipped:
                missing.append(line)
    assert not missing, "guide lines found in no example file:\n" + "\n".join(missing)
    (table,) = re.findall(r"```json\n(.*?)```", text, flags=re.S)
    assert table == (EXAMPLES / "tutorial" / "table.json").read_text(encoding="utf-8")


# ---------------------------------------------------------------- the guide's commands


def guide_commands():
    """``(command text, words, expected exit status)`` for every ``ruledraft`` command of the guide's transcripts."""
    out = []
    for block in update_guide.find_blocks("examples/README.md"):
        for command in block.commands:
            words = shlex.split(command.text.split("|")[-1], comments=True)
            out.append((command.text, words, command.status))
    return out


def _command_name(words: list) -> str:
    """The command of ``ruledraft [--plugin X]... COMMAND ...``."""
    rest = words[1:]
    while rest[:1] == ["--plugin"]:
        rest = rest[2:]
    return rest[0]


def test_guide_commands_exist_and_cover_the_workflow():
    """The guide runs validate, show, score, simulate, play, replay and rulesets, every step file, every broken file, and only real commands."""
    commands = guide_commands()
    registered = {c.name or c.callback.__name__ for c in app.registered_commands}
    assert all(words[0] == "ruledraft" for _, words, _ in commands)
    used = {_command_name(words) for _, words, _ in commands}
    assert {"validate", "show", "score", "simulate", "play", "replay", "rulesets"} <= used
    assert used <= registered
    text_of = " ".join(text for text, _, _ in commands)
    for i in range(1, 8):
        assert f"examples/tutorial/step{i}.yaml" in text_of
    for path in BROKEN:
        text = next(text for text, _, _ in commands if path in text)
        assert "fails on purpose: exit status 1" in text


def test_guide_transcripts_are_found_in_both_guides():
    """Every console block of the guide is a transcript, and the README's only transcript is its `score` example (refused whole, then --partial)."""
    text = GUIDE.read_text(encoding="utf-8")
    blocks = update_guide.find_blocks("examples/README.md")
    assert len(blocks) == text.count("```console\n")
    (readme,) = update_guide.find_blocks("README.md")
    assert [c.text.split("| ")[-1].split()[:2] for c in readme.commands] == [["ruledraft", "score"]] * 2
    assert readme.commands[0].status == 1 and readme.commands[0].expected[0].startswith(
        "<stdin>:1: error: rounds: 1 round"
    )
    assert readme.commands[1].expected[0].startswith('{"rounds": [[6, 1, 1, 0]]')


@pytest.mark.skipif(shutil.which("bash") is None, reason="the transcripts are shell command lines")
def test_guide_transcripts_match_real_output():
    """Every transcript of examples/README.md and the README's `score` example, run for real, exits as shown and prints what is shown."""
    problems = update_guide.check()
    assert not problems, (
        "stale transcripts; after an intended change run python3 tests/update_guide.py\n\n"
        + "\n\n".join(update_guide.describe(*p) for p in problems)
    )


def test_transcript_comparison_normalises_only_timings_and_speeds():
    """Timings and games/s may differ from the transcript; any other difference, a missing line or an extra one, may not."""
    shown = ["500 games in 1.64s (305 games/s, 1 job)"]
    assert update_guide.matches(shown, ["500 games in 12.5s (40 games/s, 1 job)"])
    assert not update_guide.matches(shown, ["501 games in 1.64s (305 games/s, 1 job)"])
    assert not update_guide.matches(["a"], ["a", "b"])
    assert not update_guide.matches(["a", "b"], ["a"])
    assert update_guide.matches([], [])


def test_transcript_elisions_stand_for_any_lines_but_anchor_both_ends():
    """A '...' line stands for zero or more lines; the lines before it start the output, the lines after it end it."""
    out = ["first", "x", "middle", "y", "last"]
    assert update_guide.matches(["first", "...", "last"], out)
    assert update_guide.matches(["first", "...", "middle", "...", "last"], out)
    assert update_guide.matches(["first", "x", "...", "y", "last"], out)
    assert not update_guide.matches(["x", "...", "last"], out)
    assert not update_guide.matches(["first", "...", "y"], out)
    assert not update_guide.matches(["first", "...", "absent", "...", "last"], out)
    assert update_guide.matches(["first", "...", "middle", "y", "last"], out)


def test_refreshing_a_transcript_keeps_its_elisions_and_unchanged_timings():
    """The update tool rewrites only what changed: old timings stay, elided parts stay elided, moved parts are found by their first line."""
    shown = ["Game: 3 players", "...", "=== Round 2 ===", "score 5", "...", "done in 1.0s"]
    now = ["Game: 4 players", "a", "b", "=== Round 2 ===", "score 7", "c", "done in 2.5s"]
    assert update_guide.refreshed(shown, now) == [
        "Game: 4 players",
        "...",
        "=== Round 2 ===",
        "score 7",
        "...",
        "done in 1.0s",
    ]
    assert update_guide.refreshed(shown, ["Game: 4 players", "score 7", "done in 2.5s"]) is None
    assert update_guide.refreshed(["x 1.0s", "old"], ["new", "x 9.9s"]) == ["new", "x 1.0s"]
