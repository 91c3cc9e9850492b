"""``ruledraft play``: a human against bots in the terminal, driven here by scripted input."""

from __future__ import annotations

import errno
import json
import re
from collections import Counter

import pytest
from paths import EXAMPLES, ROOT
from typer.testing import CliRunner

from ruledraft.cli import play as play_module
from ruledraft.cli.app import app
from ruledraft.cli.board import KEPT_ON_REQUEST
from ruledraft.cli.play import HumanAgent, SeatNames, displayed_hand
from ruledraft.engine.state import Game
from ruledraft.language.loading import load_ruleset
from ruledraft.play.agents import make_agent
from ruledraft.play.game_log import replay_record
from ruledraft.play.runner import bot_seed

runner = CliRunner()

ONES = "1\n" * 80  # more than enough picks for any game here


def run(args, input_text, columns=200):
    """``ruledraft play ARGS`` with ``input_text`` typed, in a terminal ``columns`` wide."""
    return runner.invoke(app, ["play", *args], input=input_text, env={"COLUMNS": str(columns)})


def read_log(path):
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert len(lines) == 1
    return json.loads(lines[0])


def table_after(output: str, title: str, rows: int):
    """The data rows of the text table printed after the line ``title`` (header skipped)."""
    lines = output.splitlines()
    start = lines.index(title)
    return lines[start + 2 : start + 2 + rows]


def trailing_ints(line: str, k: int):
    return [int(x) for x in line.split()[-k:]]


@pytest.fixture(scope="module")
def sushi_go():
    return load_ruleset("sushi-go")


# ---------------------------------------------------------------- a whole game


def test_whole_game_prints_winner_and_totals_matching_the_replayed_log(tmp_path, sushi_go):
    """A scripted 3-player game ends with round tables, final totals and the winner that agree with its logged record, which replays clean."""
    log = tmp_path / "game.jsonl"
    result = run(["sushi-go", "--players", "3", "--seed", "1", "--log", str(log)], ONES)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "=== Game over ===" in out
    record = read_log(log)
    assert record["seats"] == ["human", "greedy", "greedy"]
    assert replay_record(sushi_go, record) == []

    # final totals, one row per seat, equal the record's (which the replay confirmed)
    printed = [trailing_ints(line, 1)[0] for line in table_after(out, "Final totals:", 3)]
    assert printed == record["totals"]

    # every round's table: rule columns add up to the round's points, which match the record
    rule_ids = [r.id for r in sushi_go.round_rules]
    for r, rnd in enumerate(record["rounds"]):
        rows = table_after(out, f"Points in round {r + 1}:", 3)
        for seat, line in enumerate(rows):
            values = trailing_ints(line, len(rule_ids) + 2)
            by_rule, round_points = values[:-2], values[-2]
            assert sum(by_rule) == round_points == rnd["scores"][seat]

    # the winner line names the record's winners ("you" for seat 0)
    names = ["you" if s == 0 else f"seat {s}" for s in record["winners"]]
    if len(names) == 1:
        assert f"Winner: {names[0]}, with {record['totals'][record['winners'][0]]} points." in out
    else:
        assert "Shared win: " in out and all(n in out.split("Shared win: ")[1] for n in names)
    assert f"Game record written to {log}" in out


@pytest.mark.parametrize(
    ("players", "seed", "said", "winner"),
    [
        (
            3,
            17,
            "Seat 1 and seat 2 tied on 37 points; tie-break, the highest number of Pudding: seat 1 3, seat 2 4.",
            "Winner: seat 2, with 37 points.",
        ),
        (
            2,
            31,
            "You and seat 1 tied on 52 points; tie-break, the highest number of Pudding: you 1, seat 1 1.",
            "Shared win: you and seat 1, with 52 points each.",
        ),
    ],
    ids=["broken", "shared"],
)
def test_a_tie_on_points_is_explained_by_its_tie_break(players, seed, said, winner):
    """Two seats on the most points: the line before the winner says they tied and each one's puddings, so a win on
    the tie-break (or a shared win) does not look like a mistake; no such line where nobody tied."""
    out = run(["sushi-go", "--players", str(players), "--seed", str(seed)], ONES, columns=80).output
    assert all(len(line) <= 80 for line in out.splitlines())
    assert f"{said} {winner}" in " ".join(out.split())  # the sentence as wrapped to 80 columns
    assert "tied on" not in run(["sushi-go", "--players", "3", "--seed", "1"], ONES, columns=80).output


def test_replay_command_accepts_the_play_log(tmp_path):
    """The record written by `play --log` is accepted by `ruledraft replay`."""
    log = tmp_path / "game.jsonl"
    assert run(["sushi-go", "--players", "3", "--seed", "2", "--log", str(log)], ONES).exit_code == 0
    result = runner.invoke(app, ["replay", str(log)])
    assert result.exit_code == 0, result.output
    assert "1 clean" in result.output


# ---------------------------------------------------------------- input handling


def test_bad_input_is_asked_again_with_a_reason_then_the_game_goes_on():
    """A letter, 0, a number past the hand and two numbers without usable chopsticks are each refused with a reason, and the game continues."""
    bad = "a\n0\n10\n1 2\n"
    result = run(["sushi-go", "--players", "3", "--seed", "1"], bad + ONES)
    assert result.exit_code == 0, result.output
    out = result.output
    first_turn = out.split("Revealed:")[0]
    assert first_turn.count("Your pick [1-9, ? for help]:") == 5  # four refusals, then the good answer
    assert "'a' is not a card number" in first_turn
    assert "There is no card 0: your hand holds 9 cards, pick 1-9." in first_turn
    assert "There is no card 10: your hand holds 9 cards, pick 1-9." in first_turn
    assert "Only one card this time: taking two cards needs Chopsticks already on your table." in first_turn
    assert "or two" not in first_turn  # chopsticks are not offered on the first turn
    assert "=== Game over ===" in out


def test_two_numbers_in_a_game_whose_second_card_comes_from_an_effect_say_where_it_comes_from():
    """Party's chopsticks give their second card after the reveal: two numbers at a pick are refused naming them, not 'this game has no way to take two cards'."""
    result = run(["sushi-go-party-big-banquet", "--players", "3", "--seed", "3"], "1 2\nq\n")
    first_turn = " ".join(result.output.split("Revealed:")[0].split())
    assert (
        "Only one card this time: a second card comes after the reveal, offered by Chopsticks (1) / Chopsticks (2) /"
        " Chopsticks (3) once on your table." in first_turn
    )
    assert "no way to take two cards" not in result.output


def test_help_prints_the_input_rules_and_quit_leaves():
    """`?` prints how to answer (and the prompt comes back), `q` leaves the game cleanly."""
    result = run(["sushi-go", "--players", "3", "--seed", "1"], "?\nhelp\nq\n")
    assert result.exit_code == 0, result.output
    assert result.output.count("Type the number of the card you take") == 2
    assert result.output.count("Your pick [1-9, ? for help]:") == 3
    assert "You left the game." in result.output
    assert "Traceback" not in result.output


def test_the_start_says_what_each_majority_column_counts():
    """Before the first board, each majority column is named with what it counts (soy sauce: colours, not soy sauces)."""
    result = run(["sushi-go-soy-sauce", "--players", "3", "--seed", "1"], "q\n", columns=80)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    start = lines.index("On the board:")
    assert lines[start + 1].startswith("  maki: total 'icons' on maki cards")
    assert "  soy_sauce: number of different colour groups among all cards" in lines[start + 1 : start + 5]
    assert "  pudding: number of Pudding" in lines[start + 1 : start + 5]
    assert all(len(line) <= 80 for line in lines)
    header = next(line for line in lines if line.lstrip().startswith("seat ") and "soy_sauce" in line)
    assert lines.index(header) > start


def test_only_one_possible_pick_is_played_without_asking(sushi_go):
    """A hand with a single legal action is played for the human without reading input, saying so."""
    game = Game(sushi_go, 3)
    tempura = sushi_go.card_index("tempura")
    others = [c.index for c in sushi_go.catalogue.cards if c.id != "tempura"][:9]
    state = game.new_initial_state(0, deals=[[[tempura] * 9, others, others]])
    said = []

    def no_input():
        raise AssertionError("input was read")

    agent = HumanAgent(
        SeatNames(game, 0, {1: "greedy", 2: "greedy"}), read=no_input, write=lambda text="", nl=True: said.append(text)
    )
    assert agent.act(state, 0) == tempura
    assert "Only one possible pick: Tempura; played for you." in said


# ---------------------------------------------------------------- chopsticks


def chopsticks_seed(ruleset):
    """A seed where seat 0 is dealt chopsticks; after taking them on turn 1 (same bots
    as the CLI) it may take two cards on turn 2. Returns (seed, state before turn 2)."""
    game = Game(ruleset, 3)
    chop = ruleset.card_index("chopsticks")
    for seed in range(500):
        state = game.new_initial_state(seed)
        if chop not in state.hands[0]:
            continue
        bots = {s: make_agent("greedy", bot_seed(seed, s)) for s in (1, 2)}
        state.apply_actions([chop] + [bots[s].act(state, s) for s in (1, 2)])
        if state.can_use_action(0):
            return seed, state
    raise AssertionError("no seed deals chopsticks to seat 0")  # pragma: no cover


def test_chopsticks_take_two_cards_and_go_back_into_the_passed_hand(tmp_path, sushi_go):
    """With chopsticks on the table, '1 2' takes both cards in order and the chopsticks go into the hand passed to the next seat."""
    seed, before = chopsticks_seed(sushi_go)
    game = before.game
    chop = sushi_go.card_index("chopsticks")
    dealt = game.new_initial_state(seed).hands[0]
    chop_number = displayed_hand(dealt).index(chop) + 1
    turn2_hand = displayed_hand(before.hands[0])
    taken = turn2_hand[:2]

    log = tmp_path / "game.jsonl"
    result = run(["sushi-go", "--players", "3", "--seed", str(seed), "--log", str(log)], f"{chop_number}\n1 2\n" + ONES)
    assert result.exit_code == 0, result.output
    out = result.output
    turn2 = out.split("--- Round 1 of 3, turn 2 of 9")[1].split("--- Round 1 of 3, turn 3 of 9")[0]
    assert "Your pick (or two, e.g. '3 5', using your Chopsticks) [1-8, ? for help]: 1 2" in turn2
    assert "Only one card" not in turn2 and turn2.count("Your pick") == 1
    assert "using Chopsticks, returned to the hand passed on" in turn2

    record = read_log(log)
    assert replay_record(sushi_go, record) == []
    ids = sushi_go.catalogue.ids
    assert record["rounds"][0]["turns"][1]["picks"][0] == [ids[c] for c in taken]

    # play the logged turns 1 and 2 again: the chopsticks left seat 0's table for the hand seat 1 now holds
    state = game.new_initial_state(seed)
    for turn in record["rounds"][0]["turns"][:2]:
        state.apply_actions([game.action_from_ids(p) for p in turn["picks"]])
    assert state.counts[0][chop] == 0
    expected = Counter(before.hands[0]) - Counter(taken) + Counter([chop])
    assert Counter(state.hands[1]) == expected  # hands pass left: seat 0's goes to seat 1


@pytest.mark.parametrize("two", ["\uff11\uff0c\uff12", "1\u30012", "\u0661, \u0662"])
def test_two_cards_named_with_a_full_width_or_ideographic_comma_or_other_digits(tmp_path, sushi_go, two):
    """'１，２', '1、2' and '١, ٢' take the two cards '1 2' takes with chopsticks: the same game logged."""
    seed, before = chopsticks_seed(sushi_go)
    chop_number = (
        displayed_hand(before.game.new_initial_state(seed).hands[0]).index(sushi_go.card_index("chopsticks")) + 1
    )
    logs = []
    for answer in ("1 2", two):
        log = tmp_path / f"{len(logs)}.jsonl"
        result = run(
            ["sushi-go", "--players", "3", "--seed", str(seed), "--log", str(log)], f"{chop_number}\n{answer}\n" + ONES
        )
        assert result.exit_code == 0, result.output
        assert "Only one card" not in result.output and "not a card number" not in result.output
        logs.append(log.read_text(encoding="utf-8"))
    assert logs[0] == logs[1]


# ---------------------------------------------------------------- the dummy variant


def test_dummy_variant_asks_for_the_dummy_card_only_when_you_control_it(tmp_path):
    """In the two-player dummy game the human picks the dummy's card on (and only on) the turns they control it (unless just one card can go), and the game finishes."""
    log = tmp_path / "game.jsonl"
    result = run(["sushi-go-two-player-dummy", "--players", "2", "--seed", "0", "--log", str(log)], ONES)
    assert result.exit_code == 0, result.output
    out = result.output
    assert "=== Game over ===" in out
    blocks = out.split("\n--- Round ")[1:]
    controlled = 0
    for block in blocks:
        turn = block.split("Revealed:")[0]
        if "You control the dummy this turn" in turn:
            controlled += 1
            asked = "Card for the dummy [" in turn
            assert asked or "The dummy gets the only card it can" in turn or "Only one possible pick" in turn
        else:
            assert "Card for the dummy" not in turn
    record = read_log(log)
    assert controlled == sum(1 for r in record["rounds"] for t in r["turns"] if t.get("controller") == 0)
    assert controlled > 0 and out.count("Card for the dummy [") > 0
    assert replay_record(load_ruleset("sushi-go-two-player-dummy"), record) == []
    assert len(table_after(out, "Final totals:", 3)) == 3  # the dummy is listed too


# ---------------------------------------------------------------- leaving early


def test_end_of_input_mid_game_exits_nonzero_without_traceback(tmp_path):
    """Input that ends before the game does (Ctrl-D) gives a one-line message, exit code 2 (an input that cannot be
    used, not something checked and found wrong), no traceback and no log file."""
    log = tmp_path / "game.jsonl"
    result = run(["sushi-go", "--players", "3", "--seed", "1", "--log", str(log)], "1\n1\n")
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert "Input ended before the game did" in result.output
    assert "Traceback" not in result.output
    assert not log.exists()


def test_leaving_early_keeps_an_existing_log(tmp_path):
    """Quitting before the end leaves a log file that was already there untouched."""
    log = tmp_path / "game.jsonl"
    log.write_text("earlier\n")
    result = run(["sushi-go", "--players", "3", "--log", str(log)], "q\n")
    assert result.exit_code == 0
    assert log.read_text() == "earlier\n"


def test_ctrl_c_exits_130_with_one_line_and_no_traceback():
    """Ctrl-C (SIGINT) at the prompt of a real process: exit 130 and the one line "interrupted" on standard error, no traceback."""
    import signal
    import subprocess
    import sys
    import time

    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "play", "sushi-go", "--players", "3", "--seed", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        deadline = time.monotonic() + 60
        seen = ""
        while "Your pick" not in seen and time.monotonic() < deadline:
            seen += proc.stdout.read(1)
        proc.send_signal(signal.SIGINT)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert (proc.returncode, err) == (130, "interrupted\n")


# ---------------------------------------------------------------- determinism and what is shown


def test_same_seed_and_input_give_the_same_game():
    """Two runs with the same seed, bots and input print exactly the same transcript; another seed deals differently."""
    args = ["sushi-go", "--players", "4", "--seed", "7", "--bots", "greedy,random"]
    first = run(args, ONES)
    second = run(args, ONES)
    assert first.exit_code == second.exit_code == 0
    assert first.output == second.output
    other = run(["sushi-go", "--players", "4", "--seed", "8", "--bots", "greedy,random"], ONES)
    assert other.output != first.output


def test_view_shows_only_your_own_hand(sushi_go):
    """The first turn's view lists exactly the human's dealt hand (at --seat 1 here), and only the other seats' hand sizes."""
    result = run(["sushi-go", "--players", "3", "--seed", "5", "--seat", "1", "--bots", "random"], "q\n")
    assert result.exit_code == 0, result.output
    view = result.output.split("Your pick")[0]
    state = Game(sushi_go, 3).new_initial_state(5)
    shown = re.findall(r"^\s+\d+\. .+ \((\w+)\)$", view, flags=re.M)
    assert shown == [sushi_go.catalogue.ids[c] for c in displayed_hand(state.hands[1])]
    assert "seat 0 (random)" in view and "you (seat 1)" in view and "seat 2 (random)" in view


@pytest.mark.parametrize(
    "args, message",
    [
        (["no-such-game", "--players", "3"], "no ruleset 'no-such-game'"),
        (["sushi-go", "--players", "9"], "is for 2-5 players, not 9"),
        (["sushi-go", "--players", "3", "--bots", "greedy,randm"], "unknown bot 'randm'"),
        (["sushi-go", "--players", "3", "--seat", "3"], "--seat 3"),
        (["sushi-go", "--players", "3", "--bots", "greedy,greedy,greedy"], "3 bots for the 2 other seats"),
    ],
)
def test_bad_arguments_are_reported_without_traceback(args, message):
    """An unknown ruleset or bot, a bad player count or seat, too many bots: a message and a non-zero exit."""
    result = run(args, "")
    assert result.exit_code != 0
    assert message in result.output
    assert "Traceback" not in result.output


def test_digits_that_are_not_plain_card_numbers_are_refused_not_crashed_on():
    """A superscript digit or a thousands-digit answer is refused with a reason, and the game goes on."""
    bad = "\u00b2\n" + "9" * 1000 + "\n"
    result = run(["sushi-go", "--players", "2", "--seed", "3"], bad + ONES)
    assert result.exit_code == 0, result.output
    first_turn = result.output.split("Revealed:")[0]
    assert "'\u00b2' is not a card number" in first_turn
    assert "'999999999999...' is not a card number" in first_turn


@pytest.mark.parametrize("three", ["\u0663", "\uff13"])
def test_a_card_number_in_the_digits_of_another_script_is_that_number(tmp_path, three):
    """An Arabic-Indic or full-width 3 picks card 3, as the command line's options read such digits: the same game logged as for '3'."""
    logs = []
    for answer in ("3", three):
        log = tmp_path / f"{len(logs)}.jsonl"
        result = run(["sushi-go", "--players", "2", "--seed", "3", "--log", str(log)], f"{answer}\n" + ONES)
        assert result.exit_code == 0, result.output
        assert "is not a card number" not in first_turn(result.output)
        logs.append(log.read_text(encoding="utf-8"))
    assert logs[0] == logs[1]


# ---------------------------------------------------------------- cards by name


def first_turn(output: str) -> str:
    return output.split("Revealed:")[0]


def test_a_card_is_taken_by_its_name_or_the_unique_start_of_it(tmp_path, sushi_go):
    """'tempura', 'DUMP', 'Dumpling' and 'maki 2' each name the card they start (name or id, case ignored, a space for '_'), and the logged pick is that card."""
    state = Game(sushi_go, 3).new_initial_state(1)
    held = {sushi_go.catalogue.ids[c] for c in state.hands[0]}
    assert {"tempura", "dumpling", "maki_2"} <= held and "maki_1" not in held  # the deal these answers are written for
    for answer, card in (("tempura", "tempura"), ("DUMP", "dumpling"), ("Dumpling", "dumpling"), ("maki 2", "maki_2")):
        log = tmp_path / f"{answer}.jsonl"
        result = run(["sushi-go", "--players", "3", "--seed", "1", "--log", str(log)], f"{answer}\n" + ONES)
        assert result.exit_code == 0, result.output
        assert f"Your pick [1-9, ? for help]: {answer}\n" in result.output
        assert read_log(log)["rounds"][0]["turns"][0]["picks"][0] == [card]


def test_the_help_names_a_card_of_this_hand():
    """'?' gives an example name from the hand held (the tutorial's fruit, not Sushi Go!'s tempura)."""
    result = run([str(EXAMPLES / "tutorial" / "step1.yaml"), "--players", "2", "--seed", "0"], "?\n" + ONES)
    assert result.exit_code == 0, result.output
    example = re.search(r"or its name or the start of it, e\.g\. '(\w+)'", " ".join(first_turn(result.output).split()))
    assert example is not None and example.group(1) in ("apple", "pear"), result.output
    assert "tempura" not in result.output


@pytest.mark.parametrize("seed", range(8))
def test_every_start_of_a_name_the_help_gives_takes_that_card(seed):
    """The help's example of a name's start ('maki' for maki_1) names that card alone in the hand held: typed, it
    is taken, never refused as ambiguous (a hand with two kinds of maki gets no start of 'maki_1')."""
    help_out = run(["sushi-go", "--players", "5", "--seed", str(seed)], "?\n" + ONES, columns=200).output
    said = re.search(r"or its name or the start of it, e\.g\. '(\w+)'(?: or '(\w+)')?", first_turn(help_out))
    assert said is not None, help_out
    for typed in filter(None, said.groups()):
        out = first_turn(run(["sushi-go", "--players", "5", "--seed", str(seed)], typed + "\n" + ONES).output)
        assert out.count("Your pick [1-7, ? for help]:") == 1, out
        assert f"Your pick [1-7, ? for help]: {typed}\n" in out


def test_an_ambiguous_or_unknown_name_is_refused_with_the_candidates():
    """'maki' with two kinds of maki in hand is refused naming both; a name not in the hand is refused; the game goes on."""
    result = run(["sushi-go", "--players", "5", "--seed", "0"], "maki\nsquid\n" + ONES)
    assert result.exit_code == 0, result.output
    turn = first_turn(result.output)
    assert "  'maki' could be Maki Roll (2) or Maki Roll (3): type more of the name, or the card's number." in turn
    assert (
        "  'squid' is not a card number or the name of a card in your hand: type a card's number, 1-7, "
        "or the start of its name (? for help)."
    ) in turn
    assert turn.count("Your pick [1-7, ? for help]:") == 3


def test_two_cards_by_name_with_chopsticks(tmp_path, sushi_go):
    """With chopsticks usable, 'NAME, NAME' takes both named cards in that order."""
    seed, before = chopsticks_seed(sushi_go)
    chop = sushi_go.card_index("chopsticks")
    dealt = before.game.new_initial_state(seed).hands[0]
    chop_number = displayed_hand(dealt).index(chop) + 1
    hand = displayed_hand(before.hands[0])
    ids = sushi_go.catalogue.ids
    second, first = hand[-1], hand[0]  # taken in the order named
    names = sushi_go.catalogue.cards
    log = tmp_path / "game.jsonl"
    result = run(
        ["sushi-go", "--players", "3", "--seed", str(seed), "--log", str(log)],
        f"{chop_number}\n{names[second].name}, {ids[first]}\n" + ONES,
    )
    assert result.exit_code == 0, result.output
    assert read_log(log)["rounds"][0]["turns"][1]["picks"][0] == [ids[second], ids[first]]


def test_the_dummys_card_is_given_by_name(tmp_path):
    """In the dummy game, both your card and the dummy's may be named ('temp', then 'sashimi')."""
    log = tmp_path / "game.jsonl"
    result = run(
        ["sushi-go-two-player-dummy", "--players", "2", "--seed", "0", "--log", str(log)], "temp\nsashimi\n" + ONES
    )
    assert result.exit_code == 0, result.output
    assert "Card for the dummy [1-9, ? for help]: sashimi\n" in result.output
    turn = read_log(log)["rounds"][0]["turns"][0]
    assert turn["controller"] == 0
    assert turn["picks"][0] == ["tempura"] and turn["picks"][2] == ["sashimi"]


# ---------------------------------------------------------------- what is shown


def test_every_forced_turn_is_shown_with_what_was_played(sushi_go):
    """When every pick is forced, each turn still shows the board, says what was played for you and reveals the moves; no input is read."""

    def no_input():
        raise AssertionError("input was read")

    said = []
    play_module.play_game(
        all_tempura_game(sushi_go),
        0,
        0,
        {1: "greedy", 2: "greedy"},
        read=no_input,
        write=lambda text="", nl=True: said.append(text),
        width=80,
    )
    out = "\n".join(said)
    for r in range(1, 4):
        rnd = (
            out.split(f"=== End of round {r - 1} of 3 ===")[-1].split(f"=== End of round {r} of 3 ===")[0]
            if r > 1
            else out.split("=== End of round 1 of 3 ===")[0]
        )
        turns = rnd.split("\n--- Round ")[1:]
        assert len(turns) == 8  # the ninth card is played by the engine
        for t in turns:
            assert t.count("Only one possible pick: Tempura; played for you.") == 1
            assert t.count("Revealed: you: Tempura; seat 1: Tempura; seat 2: Tempura") == 1
        assert rnd.count("Last cards (played automatically): you: Tempura;") == 1


def test_the_board_shows_majorities_modifiers_running_points_and_kept_cards(sushi_go):
    """After wasabi, squid, wasabi, maki 3 and two puddings the board reads: maki 3, wasabi '1 loaded 1 waiting', round points, puddings kept."""
    game = Game(sushi_go, 2)
    ix = sushi_go.card_index
    mine = [
        "wasabi",
        "squid_nigiri",
        "wasabi",
        "maki_3",
        "pudding",
        "pudding",
        "tempura",
        "tempura",
        "tempura",
        "tempura",
    ]
    theirs = [
        "maki_1",
        "egg_nigiri",
        "dumpling",
        "dumpling",
        "dumpling",
        "dumpling",
        "dumpling",
        "dumpling",
        "dumpling",
        "dumpling",
    ]
    deal = [[ix(c) for c in mine], [ix(c) for c in theirs]]
    state = game.new_initial_state(0, deals=[deal, deal, deal])
    for turn in range(6):  # hands pass every turn: each seat plays the next card of the hand it holds
        state.apply_actions([ix((mine if (turn + s) % 2 == 0 else theirs)[turn]) for s in range(2)])
    # seat 0 played wasabi, egg, wasabi, dumpling, pudding, dumpling; seat 1 maki_1, squid, dumpling, maki_3, dumpling, pudding
    names = SeatNames(game, 0, {1: "greedy"})
    lines = play_module.board_lines(state, names, 120)
    assert lines[0].split() == ["seat", "points", "round", "hand", "maki", "pudding", "wasabi", "kept"]
    you = lines[1].split()
    # you: 0 points so far; round: egg nigiri on wasabi 3 + dumplings 3 = 6 (no maki); hand 4; maki 0; pudding 1
    assert you[:9] == ["you", "(seat", "0)", "0", "+6", "4", "0", "1", "1"]
    assert " ".join(you[9:]) == "loaded 1 waiting Pudding"
    seat1 = lines[2].split()
    # seat 1: squid 3 + dumplings 3 + maki most (4 icons) 6 = 12; 1 pudding kept this round
    assert seat1 == ["seat", "1", "(greedy)", "0", "+12", "4", "4", "1", "-", "Pudding"]
    # in the order played: which nigiri a wasabi triples shows
    assert "  you: Wasabi, Egg Nigiri, Wasabi, Dumpling, Pudding, Dumpling" in lines
    assert "  seat 1: Maki Roll (1), Squid Nigiri, Dumpling, Maki Roll (3), Dumpling, Pudding" in lines


def test_the_dummy_board_shows_its_pile_size():
    """In the dummy game the dummy's row gives its face-down pile size instead of a hand size."""
    result = run(["sushi-go-two-player-dummy", "--players", "2", "--seed", "0"], "q\n")
    row = next(line for line in result.output.splitlines() if line.startswith("  dummy (seat 2)"))
    assert row.split()[3:7] == ["0", "0", "pile", "8"]  # points, round, pile


def tokens(text: str):
    return set(text.split())


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize(
    "ruleset, players",
    [
        ("sushi-go", 2),
        ("sushi-go", 3),
        ("sushi-go", 4),
        ("sushi-go", 5),
        ("sushi-go-soy-sauce", 5),
        ("sushi-go-two-player-dummy", 2),
        ("examples/sushi-go-party-sampler.yaml", 6),
    ],
)
def test_the_whole_game_fits_the_width_without_breaking_a_word(ruleset, players, columns, at_root):
    """Every line of a whole game (board, reveals, score tables, game end) fits the terminal width, and every word is one that a 1000-column run prints too: nothing is split."""
    args = [ruleset, "--players", str(players), "--seed", "3"]
    narrow = run(args, ONES, columns=columns)
    wide = run(args, ONES, columns=1000)
    assert narrow.exit_code == wide.exit_code == 0, narrow.output
    assert "=== Game over ===" in narrow.output
    assert [line for line in narrow.output.splitlines() if len(line) > columns] == []
    # the one sentence a board too tall for the screen says instead of the kept cards
    assert tokens(narrow.output) - tokens(wide.output) - tokens(KEPT_ON_REQUEST) == set()


@pytest.mark.parametrize("columns", [80, 120])
def test_eight_seats_fit_the_width_too(tmp_path, columns):
    """A Sushi Go! variant for eight players plays a whole game within the width, no word split."""
    rules = tmp_path / "eight.yaml"
    rules.write_text(
        "format: 1\nextends: sushi-go\nid: eight\nname: Sushi Go! for eight\n"
        "players: {max: 8}\ndeal:\n  hand_size: {6: 5, 7: 4, 8: 4}\n",
        encoding="utf-8",
    )
    args = [str(rules), "--players", "8", "--seed", "3"]
    narrow = run(args, ONES, columns=columns)
    assert narrow.exit_code == 0, narrow.output
    assert "=== Game over ===" in narrow.output and "seat 7" in narrow.output
    assert [line for line in narrow.output.splitlines() if len(line) > columns] == []
    assert tokens(narrow.output) - tokens(run(args, ONES, columns=1000).output) == set()


def test_a_narrow_terminal_gets_one_block_per_seat():
    """At 40 columns the board and score tables become one block per seat, every line within 40 columns."""
    result = run(["sushi-go", "--players", "5", "--seed", "3"], ONES, columns=40)
    assert result.exit_code == 0, result.output
    out = result.output
    assert [line for line in out.splitlines() if len(line) > 40] == []
    board = out.split("Round 1 of 3, turn 1 of 7")[1].split("Your hand:")[0]
    assert board.splitlines()[2:4] == ["  you (seat 0)", "    points 0  round 0  hand 7  maki 0"]
    assert tokens(out) - tokens(run(["sushi-go", "--players", "5", "--seed", "3"], ONES, columns=1000).output) == set()


@pytest.fixture
def at_root(monkeypatch):
    """Run from the repository root (the example rule files are named from there)."""

    monkeypatch.chdir(ROOT)


def test_rule_file_text_reaches_the_terminal_escaped(tmp_path):
    """Invisible characters a rule file may hold are printed as '\\u200b' escapes and markup as written, never interpreted."""
    rules = tmp_path / "odd.yaml"
    rules.write_text(
        'format: 1\nextends: sushi-go\nid: odd\nname: "Odd\\u200b [bold"\n'
        'cards:\n  - {id: tempura, name: "Tem\\u200bpura [/]"}\n',
        encoding="utf-8",
    )
    result = run([str(rules), "--players", "3", "--seed", "1"], "rules\n" + ONES)
    assert result.exit_code == 0, result.output
    assert "\u200b" not in result.output
    assert "Tem\\u200bpura [/]" in result.output and "Odd\\u200b [bold: 3 players" in result.output


def test_board_after_the_rules_shows_the_board_and_the_hand_again():
    """'rules' pushes the hand off the screen and says how to get it back: 'board' prints the turn's board and the
    hand again, the same as before, and the pick is then taken as usual."""
    out = first_turn(run(["sushi-go", "--players", "3", "--seed", "1"], "rules\nboard\n" + ONES).output)
    head = "--- Round 1 of 3, turn 1 of 9 (hands pass left) ---"
    assert out.count(head) == 2 and out.count("Your hand:") == 2
    before, after = out.split("  ('board' shows the board and your hand again.)\n")
    assert after.startswith("Your pick [1-9, ? for help]: board\n\n" + head)
    again = after.index(head)
    assert before[before.index(head) : before.index("Your pick")] == after[again : after.index("Your pick", again)]
    assert after.count("Your pick [1-9, ? for help]:") == 2


# ---------------------------------------------------------------- reading input


class ChunkedBytes:
    """A binary stream of one huge line then ``rest``, made on demand; remembers the largest read asked for."""

    def __init__(self, line_bytes: int, rest: bytes):
        self.left = line_bytes
        self.rest = rest
        self.largest = 0

    def readline(self, size=-1):
        assert size > 0, "an unbounded read"
        self.largest = max(self.largest, size)
        if self.left:
            n = min(size, self.left)
            self.left -= n
            return b"7" * n + (b"\n" if not self.left and n < size else b"")
        line, _, self.rest = self.rest.partition(b"\n")
        return line + b"\n" if line or self.rest else line


class FakeStdin:
    def __init__(self, buffer):
        self.buffer = buffer

    def isatty(self):
        return True


def test_a_huge_input_line_is_skipped_in_bounded_reads(monkeypatch):
    """A 64 MiB line is refused as too long without ever reading more than 64 KiB at once; the next line is read normally."""
    stream = ChunkedBytes(64 << 20, b"3\n")
    monkeypatch.setattr(play_module.sys, "stdin", FakeStdin(stream))
    with pytest.raises(play_module.LineTooLong):
        play_module.read_line()
    assert stream.left == 0
    assert stream.largest <= 1 << 16
    assert play_module.read_line() == "3\n"


def test_bytes_that_are_not_utf8_are_read_not_crashed_on(monkeypatch):
    """Undecodable bytes in an answer become a refusal, not an error."""
    monkeypatch.setattr(play_module.sys, "stdin", FakeStdin(ChunkedBytes(0, b"\xff\xfe\n")))
    assert play_module.read_line() == "\ufffd\ufffd\n"


def test_play_under_a_strict_ascii_encoding_with_bad_bytes_and_a_huge_line(tmp_path):
    """A real process with ASCII-only standard streams, non-UTF-8 bytes and a 64 MiB line plays on to the end (exit 0), saying why each answer was refused."""
    import subprocess
    import sys as _sys

    data = b"\xff\xfe\n" + b"7" * (64 << 20) + b"\n" + ONES.encode()
    env = {"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "ascii:strict", "COLUMNS": "80", "LC_ALL": "C"}
    proc = subprocess.run(
        [_sys.executable, "-m", "ruledraft", "play", "sushi-go", "--players", "2", "--seed", "3"],
        input=data,
        capture_output=True,
        timeout=300,
        env=env,
    )
    out = proc.stdout.decode("ascii")
    assert proc.returncode == 0, proc.stderr.decode("ascii", "replace")
    assert "'\\ufffd\\ufffd' is not a card number or the name of a card in your hand" in out
    assert "That line is longer than 1024 bytes; type a card's number or name." in out
    assert "=== Game over ===" in out


def all_tempura_game(sushi_go):
    """A 3-player Sushi Go! in which every hand of every round is nine tempura: every pick is forced."""
    tempura = sushi_go.card_index("tempura")

    class AllTempura(Game):
        def new_initial_state(self, seed=0, deals=None):
            return super().new_initial_state(seed, deals=[[[tempura] * 9] * 3] * 3)

    return AllTempura(sushi_go, 3)


def paused_game(sushi_go, read, said: list):
    """The all-tempura game played at a terminal (pause on), ``read`` answering, what is written kept in ``said``."""
    return play_module.play_game(
        all_tempura_game(sushi_go),
        0,
        0,
        {1: "greedy", 2: "greedy"},
        read=read,
        write=lambda text="", nl=True: said.append(text),
        width=80,
        pause=True,
    )


def test_at_a_terminal_the_game_waits_after_a_forced_pick_and_after_each_round(sushi_go):
    """With pause on (a terminal), each forced pick and each round's scores wait for Enter, so one key press never runs several turns past, nor the game's end past the last round's points."""
    said, answers = [], []

    def enter():
        answers.append("")
        said.append("<Enter>")
        return "\n"

    paused_game(sushi_go, enter, said)
    out = "\n".join(said)
    assert len(answers) == 8 * 3 + 3
    assert (
        out.count(
            "Only one possible pick: Tempura; played for you.\nPress Enter to see the cards revealed (q quits): \n<Enter>\nRevealed:"
        )
        == 24
    )
    assert "Press Enter to start round 2 (q quits): " in out and "Press Enter to start round 3 (q quits): " in out
    assert "round 4" not in out
    last = out.index("Points in round 3:")
    assert out.index("Press Enter to see the final scores: ", last) < out.index("=== Game over ===", last)


@pytest.mark.parametrize("answer", ["q", None], ids=["q", "end of input"])
def test_q_or_the_inputs_end_at_the_last_pause_still_gives_the_scores_and_the_record(sushi_go, tmp_path, answer):
    """The game is over at the pause before its final scores: q or the input's end there go on to the scores (and
    the caller writes the record), never 'You left the game' or 'game abandoned' after every move was played."""
    from ruledraft.cli.terminal import EndOfInput

    said = []

    def read():
        if said and "final scores" in said[-1]:
            if answer is None:
                raise EndOfInput()
            return answer
        return "\n"

    state = paused_game(sushi_go, read, said)
    assert state.is_terminal()
    out = "\n".join(said)
    assert "Press Enter to see the final scores: " in out and "=== Game over ===" in out and "Final totals:" in out


def test_q_at_a_pause_leaves_the_game(sushi_go):
    """Typing q when the game waits for Enter quits, as at the pick prompt."""
    with pytest.raises(play_module.QuitGame):
        paused_game(sushi_go, lambda: "q\n", [])


SLOW_BOT = """\
import time


class Slow:
    def __init__(self, seed=0):
        self.moves = 0

    def act(self, view, seat):
        self.moves += 1
        if self.moves == 2:  # one slow move in the game
            time.sleep(0.6)
        return view.legal_actions()[0]
"""


def test_a_slow_bot_is_waited_for_on_the_screen_once_and_a_quick_one_is_not(tmp_path, monkeypatch):
    """With 0.2 s allowed, a bot that takes 0.6 s over its second move is shown as chosen for once, after your pick and before the reveal; quick moves show nothing, and answers piped to the command show no notice at all."""
    from ruledraft.cli.play import play_game

    monkeypatch.setenv("COLUMNS", "300")  # the bot's long path on one line
    bot = tmp_path / "slow.py"
    bot.write_text(SLOW_BOT, encoding="utf-8")
    spec = f"{bot}:Slow"
    rs = load_ruleset("sushi-go")
    lines: list[str] = []

    def write(text: str = "", nl: bool = True) -> None:
        lines.extend(text.split("\n") if nl else [text])

    play_game(Game(rs, 2), 0, 0, {1: spec}, read=lambda: "1", write=write, thinking_after=0.2)
    waits = [i for i, line in enumerate(lines) if line.startswith("Waiting for")]
    assert [lines[i] for i in waits] == [f"Waiting for seat 1 ({spec}) to choose..."], lines
    assert lines[waits[0] - 1].startswith("Your pick [1-9, ? for help]: ")  # turn 2: after your pick
    assert lines[waits[0] + 1].startswith("Revealed: ")
    monkeypatch.setattr(play_module, "THINKING_AFTER", 0.2)
    piped = run(["sushi-go", "--players", "2", "--bots", spec], "1\n" * 40)
    assert piped.exit_code == 0 and "Waiting for" not in piped.output


def test_play_follows_the_terminal_when_the_window_is_resized(monkeypatch):
    """Without a width given, play fits each screen to the terminal as it is then: lines wider than 60 columns at 120, none after a resize to 60."""
    from ruledraft.cli.play import play_game

    monkeypatch.setenv("COLUMNS", "120")
    answers = 0

    def read() -> str:
        nonlocal answers
        answers += 1
        if answers == 4:
            monkeypatch.setenv("COLUMNS", "60")  # the window is made narrower
        return "1"

    lines: list[tuple[int, str]] = []

    def write(text: str = "", nl: bool = True) -> None:
        lines.extend((answers, line) for line in text.split("\n"))

    rs = load_ruleset("sushi-go")
    play_game(Game(rs, 4), 7, 0, {1: "random", 2: "random", 3: "random"}, read=read, write=write)
    before = [text for at, text in lines if at < 4]
    after = [text for at, text in lines if at >= 4]
    assert max(map(len, before)) > 60 and after
    assert max(map(len, after)) <= 60, max(after, key=len)


def test_a_game_record_the_disk_has_no_room_for_ends_with_status_74(tmp_path):
    """play --log past a file size limit: one line saying the record could not be written, status 74 (an output
    that could not be written), as simulate's log and every other output."""
    import resource
    import subprocess
    import sys

    log = tmp_path / "game.jsonl"
    proc = subprocess.run(
        [sys.executable, "-m", "ruledraft", "play", "sushi-go", "--players", "2", "--seed", "1", "--log", str(log)],
        input=ONES,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100)),
    )
    assert proc.returncode == 74, proc.stderr
    assert proc.stderr == f"ruledraft: cannot write {log}: File too large\n"


def test_an_empty_log_name_is_refused_before_the_game(tmp_path):
    """play --log "": refused (exit 2, as simulate refuses it), not a game played and logged nowhere."""
    result = run(["sushi-go", "--players", "3", "--log", ""], ONES)
    assert result.exit_code == 2
    assert result.output == "error: --log needs a file name (an empty one would log nothing)\n"


@pytest.mark.parametrize(
    ("error", "said"),
    [
        (errno.ENOSPC, "ruledraft: cannot write {log}: No space left on device"),
        (errno.EINVAL, "error: {log}: cannot write: Invalid argument"),  # as /proc/self/status refuses a write
    ],
    ids=["no room", "refused"],
)
def test_a_record_whose_write_fails_leaves_no_file_and_ends_with_status_74(error, said, tmp_path, monkeypatch, capsys):
    """The record's write failing after the game, for want of room or refused for another reason: one line naming
    the log, status 74 (as every output that could not be written), and no empty or cut file left to replay as
    nothing."""
    import io
    import sys

    from full_disk import full_disk_open

    from ruledraft.cli import app as app_module

    log = tmp_path / "game.jsonl"  # a start of the line reaches the disk, then the write fails
    monkeypatch.setattr(play_module, "open", full_disk_open("w", reaches=10, error=error), raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO(ONES))
    monkeypatch.setattr(sys, "argv", ["ruledraft", "play", "sushi-go", "--players", "3", "--log", str(log)])
    with pytest.raises(SystemExit) as stop:
        app_module.main()
    assert stop.value.code == 74
    assert capsys.readouterr().err.strip().splitlines()[-1] == said.format(log=log)
    assert not log.exists()


def test_a_record_that_cannot_be_opened_leaves_the_file_there_as_it_was(tmp_path, monkeypatch):
    """The log's file refusing to open for writing once the game is over (its permissions changed meanwhile): exit 2 naming it, and the file there before is left whole, not removed as a cut record would be."""
    import builtins

    log = tmp_path / "game.jsonl"
    log.write_text("kept\n", encoding="utf-8")

    def refusing_open(path, mode="r", *args, **kwargs):
        if "w" in mode:
            raise PermissionError(13, "Permission denied")
        return builtins.open(path, mode, *args, **kwargs)

    monkeypatch.setattr(play_module, "open", refusing_open, raising=False)
    result = run(["sushi-go", "--players", "3", "--seed", "1", "--log", str(log)], ONES)
    assert result.exit_code == 2
    assert result.output.rstrip().endswith(f"error: {log}: cannot write: Permission denied")
    assert log.read_text(encoding="utf-8") == "kept\n"
