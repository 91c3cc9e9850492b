"""``ruledraft play`` at 80 columns and 30 rows, in a real pseudo-terminal.

A scripted player plays Party menus that between them have every card effect
(spoon, menu, takeout box, special order, chopsticks, miso soup) and the uramaki
race, to the end, against greedy bots. At every prompt the screen is checked as a
terminal of 30 rows shows it: no line is wider than 80 columns, and the prompt and
the board it is about (or the round's scores) are on the screen together.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")

ROWS, COLUMNS = 30, 80

#: the end of a prompt waiting for an answer
PROMPT = re.compile(r"(\[[^\]\n]*\? for help\]|Press Enter [^\n]*\(q quits\)|Press Enter to see the final scores): $")

#: cards the scripted player takes whenever it holds one, so each effect comes to act
WANTED = ("Spoon", "Menu", "Takeout Box", "Special Order", "Chopsticks", "Miso Soup", "Uramaki")

#: a numbered card or option on the screen: ``3. Tofu`` (one a line, or in columns)
NUMBERED = re.compile(r"(?:^|\s)(\d+)\. (.+?)(?=\s{2,}\d+\. |\s*$)")


class Screen:
    """The text a pseudo-terminal has shown, as lines (the newest last)."""

    def __init__(self) -> None:
        self.text = ""

    @property
    def lines(self) -> list[str]:
        return self.text.replace("\r", "").split("\n")

    def rows(self) -> list[str]:
        """What a terminal of :data:`ROWS` rows shows now (every line fits one row, which
        the width check makes sure of)."""
        return self.lines[-ROWS:]


def play_in_pty(ruleset: str, players: int, seed: int, timeout: float = 60.0) -> list[tuple[str, list[str], str]]:
    """Play a whole game in a pseudo-terminal of 80x30 with the scripted player: every
    prompt met, with the rows on the screen when it was asked (its own line last) and
    the answer typed."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TERM="xterm", PYTHONIOENCODING="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ruledraft", "play", ruleset, "--players", str(players), "--seed", str(seed)],
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        start_new_session=True,
    )
    os.close(slave)
    screen = Screen()
    prompts: list[tuple[str, list[str], str]] = []
    asked_help = Asked()
    answered = 0  # where the text stood when the last answer was typed
    deadline = time.monotonic() + timeout
    try:
        while True:
            assert time.monotonic() < deadline, "the game did not end in time:\n" + "\n".join(screen.rows())
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # the other side closed: the game is over
                    break
                if not chunk:
                    break
                screen.text += chunk.decode("utf-8", "replace")
            if "\n" not in screen.text[answered:]:
                continue  # the answer's echo has not come back yet
            last = screen.lines[-1]
            if not PROMPT.search(last):
                continue
            rows = screen.rows()
            answer = scripted_answer(last, rows, asked_help)
            prompts.append((last, rows, answer))
            answered = len(screen.text)
            os.write(master, answer.encode() + b"\r")
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait(timeout=10)
        os.close(master)
    assert proc.returncode == 0, "\n".join(screen.lines[-40:])
    assert "=== Game over ===" in screen.text
    return prompts


class Asked(set):
    """The effects whose decisions the scripted player asked help for, and the latest
    decision's (its screen may have scrolled off after a '?')."""

    latest = ""

    def pop_latest(self) -> str:
        return self.latest


def scripted_answer(prompt: str, rows: list[str], asked_help: Asked) -> str:
    """What the scripted player types: Enter to go on; once per card effect '?' (and
    'cards' where the cards are listed on request); at a pick a wanted card when the
    hand holds one, else the first card; else the first option."""
    if prompt.startswith("Press Enter"):
        return ""
    if prompt.startswith("Your choice"):
        effect = decision_of(rows) or asked_help.pop_latest()
        asked_help.latest = effect
        if effect not in asked_help:
            asked_help.add(effect)
            return "?"
        if any("'cards' to list" in r for r in rows) and f"{effect} cards" not in asked_help:
            asked_help.add(f"{effect} cards")
            return "cards"
        return "1"
    hand = rows[max(i for i, r in enumerate(rows) if r == "Your hand:") + 1 : -1]
    cards = [(int(m.group(1)), m.group(2)) for r in hand for m in NUMBERED.finditer(r)]
    for wanted in WANTED:
        for number, name in cards:
            if name.startswith(wanted):
                return str(number)
    return "1"


def board_start(rows: list[str]) -> int | None:
    """The row where the newest board starts, or None if it is off the screen."""
    starts = [i for i, r in enumerate(rows) if r.startswith("--- Round ")]
    return starts[-1] if starts else None


def question_of(rows: list[str]) -> int | None:
    """The row of a decision's question: the first after the board that is not part of it."""
    start = board_start(rows)
    if start is None:
        return None
    return next(
        (
            i
            for i in range(start + 1, len(rows))
            if not rows[i].startswith((" ", "Played this round:", "Kept to the end"))
        ),
        None,
    )


def decision_of(rows: list[str]) -> str | None:
    """The card effect whose decision the screen asks (by its card's name), if any."""
    q = question_of(rows)
    if q is None:
        return None
    return next((name for name in EFFECT_CARDS if name in rows[q]), rows[q])


EFFECT_CARDS = ("Spoon", "Menu", "Takeout Box", "Special Order", "Chopsticks")


GAMES = [
    # menu, special order, miso soup and the uramaki race; six players, the most it allows
    ("sushi-go-party-dinner-for-two", 6, 1),
    # spoon and chopsticks
    ("sushi-go-party-big-banquet", 5, 2),
    # spoon and takeout box
    ("sushi-go-party-master-menu", 4, 3),
]


@pytest.fixture(scope="module")
def games() -> dict[str, list[tuple[str, list[str], str]]]:
    return {ruleset: play_in_pty(ruleset, players, seed) for ruleset, players, seed in GAMES}


def test_no_line_of_a_whole_party_game_is_wider_than_80_columns(games):
    """Every row on the screen at every prompt of three whole Party games is at most 80 columns."""
    wide = [
        (ruleset, r) for ruleset, prompts in games.items() for _, rows, _ in prompts for r in rows if len(r) > COLUMNS
    ]
    assert wide == []


def test_every_prompt_has_its_board_or_the_scores_on_the_30_row_screen(games):
    """At each pick, decision and pause the board it is about (or the round's scores) is on the 30-row screen with the prompt."""
    checked = 0
    for ruleset, prompts in games.items():
        for i, (prompt, rows, _) in enumerate(prompts):
            if prompt.startswith(("Press Enter to start round", "Press Enter to see the final scores")):
                assert any(r.startswith("=== End of round") for r in rows), (ruleset, rows)
                continue
            if i and prompts[i - 1][2] in ("?", "cards"):
                continue  # asked again after '?' or 'cards': the help is on the screen instead
            start = board_start(rows)
            assert start is not None, (ruleset, prompt, "\n".join(rows))
            assert rows[start + 1].lstrip().startswith("seat"), (ruleset, "\n".join(rows))
            checked += 1
    assert checked > 3 * 3 * 6  # three games of three rounds of at least six turns


def test_every_effect_asks_its_decision_with_a_reminder_and_help_that_fit(games):
    """The scripted games meet every decision (spoon, menu, takeout box, special order, chopsticks), each under the board with a one-line reminder of what it does (whole), its help on '?', and a 'no' that says what it means."""
    seen: dict[str, list[str]] = {}
    helped: dict[str, list[str]] = {}
    for prompts in games.values():
        for i, (prompt, rows, _) in enumerate(prompts):
            if not prompt.startswith("Your choice"):
                continue
            if i and prompts[i - 1][2] == "?":
                helped.setdefault(decision_of(prompts[i - 1][1]) or "", rows)
            elif (effect := decision_of(rows)) is not None:
                seen.setdefault(effect, rows)
    assert set(EFFECT_CARDS) <= set(seen), sorted(seen)
    for rows in seen.values():
        q = question_of(rows)
        assert q is not None
        reminder = rows[q + 1]
        assert reminder.startswith("  ") and not reminder.startswith("   ") and len(reminder) <= COLUMNS, rows
        assert not reminder.endswith(" ..."), reminder  # whole, not cut to the width
        assert not any("done (no)" in r for r in rows), rows
    for effect in EFFECT_CARDS:
        help_rows = helped[effect]
        assert any(effect in r for r in help_rows[:-2]) and any(r.startswith("  Type a number") for r in help_rows)


def test_the_race_and_miso_soup_show_on_the_board_and_in_the_events(games):
    """The uramaki race's places are on the board of the menu that has it, and a miso soup collision is told."""
    rows = [r for _, rs, _ in games["sushi-go-party-dinner-for-two"] for r in rs]
    assert any(r.startswith("  uramaki, a race to 10:") for r in rows)
    assert any(re.match(r"  uramaki, a race to 10: 1st (you|seat \d) \(8\)", r) for r in rows)
    assert any("Miso Soup is discarded" in r for r in rows)
