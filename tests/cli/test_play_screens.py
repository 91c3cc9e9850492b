"""What ``ruledraft play`` shows of races, copies and effect decisions (issue 19's
terminal game): a race's progress on the board, a copy named as the card it is, the
spoon's families first with its cards on request, and each 'no' in words."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ruledraft.cli.app import app
from ruledraft.cli.board import board_lines
from ruledraft.cli.play import SeatNames, event_line
from ruledraft.engine.board import board, races
from ruledraft.engine.state import Game
from ruledraft.language.loading import load_ruleset

runner = CliRunner()
RACE = Path(__file__).resolve().parent.parent / "data" / "effects-race.yaml"


def played(args: list[str], answers: str) -> list[str]:
    """The lines of a whole game of ``play`` at 80 columns, answering ``answers`` then 1s."""
    result = runner.invoke(app, ["play", *args], input=answers + "1\n" * 400, env={"COLUMNS": "80"})
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def test_the_board_shows_what_each_seat_counts_in_the_race_and_the_places_taken_tied_ones_too():
    """After a tie for 1st place in the uramaki race, the board's uramaki column counts each seat's icons toward 10 and the line under it gives both 1st places and leaves only 3rd open."""
    lines = played([str(RACE), "--players", "3", "--seed", "1"], "")
    tie = lines.index("  - Seat 1 takes 1st place in uramaki (tied): 8 points, discarding 2 cards.")
    board = lines[lines.index("", tie) + 1 :]
    assert board[0] == "--- Round 2 of 3, turn 4 of 8 (hands pass left) ---"
    assert board[1].split() == ["seat", "points", "round", "hand", "uramaki"]
    assert [row.split()[-1] for row in board[2:5]] == ["0/10", "0/10", "9/10"]  # the tied seats start again from 0
    assert board[5] == "  uramaki, a race to 10: 1st you (8); 1st seat 1 (8); open: 3rd (2)"
    assert "  uramaki, a race to 10: open: 1st (8), 2nd (5), 3rd (2)" in lines[: tie - 1]
    assert "  uramaki: what each seat's cards count toward 10: a seat that reaches it takes" in lines[:8]


def test_races_reads_the_places_from_the_rule_and_the_rounds_events():
    """engine.board.races gives the race's target, its places' points for the seat count, and no place taken at the deal."""
    rs = load_ruleset(str(RACE))
    state = Game(rs, 4).new_initial_state(3)
    (race,) = races(state)
    assert (race.rule, race.target, race.places, race.taken, race.used) == ("uramaki", 10, (8, 5, 2), (), 0)
    names = SeatNames(state.game, 0, {1: "greedy", 2: "greedy", 3: "greedy"})
    assert board_lines(state, names, 80)[-1] == "  uramaki, a race to 10: open: 1st (8), 2nd (5), 3rd (2)"


def test_a_race_line_follows_the_table_and_the_kept_cards_come_after_it():
    """Two fruit kept from round 1 listed under a table too wide for them: the race's line stays right under the
    table whose column it explains, then the kept cards; the 'kept' command lists every seat, '-' for none."""
    import random

    from ruledraft.cli.human_seat import HumanAgent

    rs = load_ruleset("sushi-go-party-dinner-for-two")
    state, rng = Game(rs, 2).new_initial_state(0), random.Random(0)
    while (state.round, state.turn) != (1, 0):
        acting = [state.pending.seat] if state.pending is not None else state.acting_seats()
        state.apply_actions([rng.choice(state.legal_actions(s)) for s in acting])
    names = SeatNames(state.game, 0, {1: "greedy"})
    assert board_lines(state, names, 80)[1:] == [
        "  you (seat 0)         14      0    10     0/10     -",
        "  seat 1 (greedy)      16      0    10     0/10     2",
        "  uramaki, a race to 10: open: 1st (8), 2nd (5), 3rd (2)",
        "Kept to the end of the game:",
        "  seat 1: Fruit (pineapple + orange), Fruit (watermelon + pineapple)",
    ]
    said: list[str] = []
    HumanAgent(names, input, lambda text="", nl=True: said.append(text), 80).write_kept(state)
    assert said == [
        "Kept to the end of the game:",
        "  you: -",
        "  seat 1: Fruit (pineapple + orange), Fruit (watermelon + pineapple)",
    ]


def test_a_special_order_that_copied_a_menu_is_named_as_the_card_it_is():
    """A special order that became a copy of a menu draws, plays and is discarded as 'Special Order (as Menu (7))', never as a Menu (7) of its own; a copy on the table shows so in the cards played."""
    lines = played(["sushi-go-party-dinner-for-two", "--players", "6", "--seed", "12"], "")
    copied = lines.index("  - Seat 4's Special Order becomes a copy of Menu (7).")
    told = lines[copied : copied + 6]
    assert "  - Seat 4 draws 4 cards with its Special Order (as Menu (7))." in told
    assert "  - Seat 4's Special Order (as Menu (7)) is discarded after use." in told
    assert not any("Seat 4's Menu (7) is discarded" in line for line in told)
    # on the board too: a copy still on the table is named as the card it is
    assert "  seat 3: Squid Nigiri, Miso Soup x2, Tofu, Special Order (as Tofu)" in lines


def test_event_line_names_the_acting_card_as_the_copy_it_is_and_nothing_else():
    """With the seat's copies given, the card whose effect acts is named as the card it is; a card merely played is not."""
    rs = load_ruleset("sushi-go-party-dinner-for-two")
    g = Game(rs, 3)
    ix = rs.catalogue.index_of
    names = SeatNames(g, 0, {1: "greedy", 2: "greedy"})
    copies = {ix("menu_7"): ix("special_order"), ix("tofu"): ix("special_order")}
    discarded = ("discarded", 0, ix("menu_7"), "used", 0)
    assert event_line(g, names, discarded) == "Your Menu (7) is discarded after use."
    assert event_line(g, names, discarded, copies=copies) == "Your Special Order (as Menu (7)) is discarded after use."
    play = ("played", 1, ix("tofu"), ix("menu_7"))
    assert event_line(g, names, play, copies=copies) == "Seat 1 plays Tofu with its Special Order (as Menu (7))."


def test_the_spoon_lists_families_first_its_cards_on_request_and_says_what_no_means():
    """A Party spoon's 28 options: the families in a grid, the cards only on 'cards', a reminder and help saying what the spoon does, and 'no' told as 'not now'."""
    lines = played(["sushi-go-party-master-menu", "--players", "4", "--seed", "3"], "9\n1\n?\ncards\nno\n")
    asked = lines.index("Spoon (4): name a card or a family to ask the others for")
    prompt = next(i for i in range(asked, len(lines)) if lines[i].startswith("Your choice [1-28"))
    assert lines[asked + 1] == "  The nearest player to your left holding one trades it for your Spoon (4)."
    assert lines[asked + 2].split() == ["23.", "any", "fruit", "25.", "any", "onigiri", "27.", "any", "takeout", "box"]
    assert lines[prompt - 2 : prompt] == [
        "  or a card: its name, or 'cards' to list the 22 cards (1-22)",
        "  28. not now: keep your Spoon (4) for a later turn",
    ]
    assert prompt - asked <= 8  # the question, reminder and options of 28 choices in 8 lines
    after = lines[prompt + 1 :]
    assert after[0].startswith("  Spoon (4): on a later turn, after the reveal")  # '?': the spoon's rule in full
    listed = after.index("Your choice [1-28, ? for help]: cards")
    assert after[listed + 1].split()[:3] == ["1.", "Egg", "Nigiri"]
    assert "Decided: you: not now" in after
    assert not any("done (no)" in line for line in lines)


@pytest.mark.parametrize("typed", ["any takeout box", "takeout_box"])
def test_a_family_is_shown_in_words_and_taken_as_shown_or_as_its_tag(typed):
    """The spoon's family takeout_box reads 'any takeout box' in the options and the events, and is chosen typed either way."""
    lines = played(["sushi-go-party-master-menu", "--players", "4", "--seed", "3"], f"9\n1\n{typed}\n")
    assert "Decided: you: any takeout box" in lines
    assert "  - You ask for any takeout box card with your Spoon (4)." in lines
    assert "  - Seat 1 has no takeout box card." in lines
    assert not any("any takeout_box" in line or "takeout_box card" in line for line in lines)


def test_a_seat_past_the_race_target_while_a_decision_is_pending_shows_the_target_and_its_place_at_turn_end():
    """Dinner for two, 3 players, seed 0: mid-turn (a decision pending) seat 1 counts 14 uramaki icons; its column reads 10/10, not 14/10, and the race's line says its place comes at turn end with 14."""
    import random

    rs = load_ruleset("sushi-go-party-dinner-for-two")
    state = Game(rs, 3).new_initial_state(0)
    draw = random.Random(0)
    icons = rs.catalogue.attribute_vector("icons")
    uramaki = {c for c, cid in enumerate(rs.catalogue.ids) if cid.startswith("uramaki")}
    while not any(sum(icons[c] for c in cards if c in uramaki) >= 10 for cards in state.played):
        state.apply_actions([state.sample_action(s, draw.random) for s in state.acting_seats()])
    assert state.pending is not None
    counted = [sum(icons[c] for c in cards if c in uramaki) for cards in state.played]
    assert counted[1] == 14
    lines = board_lines(state, SeatNames(state.game, 0, {1: "greedy", 2: "greedy"}), 80)
    columns = [re.search(r"\b\d+/10\b", line).group(0) for line in lines[1:4]]
    assert columns == [f"{min(q, 10)}/10" for q in counted]
    assert (
        " ".join(x.strip() for x in lines[4:6])
        == "uramaki, a race to 10: open: 1st (8), 2nd (5), 3rd (2); place at turn end: seat 1 (14)"
    )


def test_a_kept_column_too_wide_for_names_counts_the_cards_and_shows_none_as_a_dash():
    """Where the kept cards' names make the board too wide at 80 columns, the column counts them; a seat with none
    shows '-' as it does with names, never a bare 0 beside counts."""
    import random

    state = Game(load_ruleset("sushi-go-party-master-menu"), 3).new_initial_state(2)
    names = SeatNames(state.game, 0, {1: "random", 2: "random"})
    draw = random.Random(2)
    seen_counted = seen_none = False
    while not state.is_terminal():
        lines = board_lines(state, names, 80)
        cells = [line.split()[-1] for line in lines[1:4]]  # the three seats' rows: kept is the last column
        kept = [len(b.kept) for b in board(state)]  # earlier rounds' and this round's
        if any(c.isdigit() for c in cells):
            seen_counted, seen_none = True, seen_none or 0 in kept
            assert cells == [str(k) if k else "-" for k in kept], lines[:4]
        state.apply_actions([state.sample_action(s, draw.random) for s in state.acting_seats()])
    assert seen_counted and seen_none


def test_the_cards_a_menu_draws_are_listed_in_the_order_they_are_numbered():
    """'Drawn: ...' names the cards in the order of the numbered choices under it, so the second card named is choice 2."""
    lines = played(["sushi-go-party-dinner-for-two", "--players", "2", "--seed", "0"], "menu\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("Drawn: "))
    assert lines[at : at + 3] == [
        "Drawn: Egg Nigiri, Squid Nigiri, Tofu, Onigiri (square)",
        "  1. Egg Nigiri         3. Tofu",
        "  2. Squid Nigiri       4. Onigiri (square)",
    ]
