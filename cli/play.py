"""``ruledraft play``: play a game in the terminal against bots.

The human is one seat; bots from the agent registry fill the others. The human's
seat is played by :class:`HumanAgent`, which has the same shape as a bot
(``name`` and ``act(state, seat) -> action``) but asks for its moves on standard
input, so it could join the registry later.

Everything is plain text read and written line by line, so a game can be driven
through a pipe (``printf '1\\n%.0s' {1..40} | ruledraft play sushi-go``). The human
sees only what their seat may know (:meth:`State.observation`): their own hand,
every table, the scores and the other seats' hand sizes -- never another hand.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import textwrap
from collections.abc import Callable, Collection, Sequence

import typer

from ruledraft.engine.board import board, majority_words
from ruledraft.engine.records import Turn
from ruledraft.engine.state import MAX_SEED, Event, Game, State
from ruledraft.errors import InputError
from ruledraft.language.effects.base import shared_event_line
from ruledraft.language.ruleset import DIRECTION_NAMES
from ruledraft.play.agents import BotFailure, checked_act, make_agent
from ruledraft.play.game_log import record_game
from ruledraft.play.runner import bot_seed

from .common import allow_path_option, allowed_dirs, bots_help, fail, get_ruleset, reported_errors, ruleset_help, shown
from .simulate import parse_bots

HUMAN = "human"

#: longest input line read (in bytes); the rest of a longer line is skipped in
#: bounded chunks and the answer is refused, so a huge line costs little memory
MAX_INPUT_LINE = 1024

#: narrowest layout the game prints (a narrower terminal gets lines this long)
MIN_WIDTH = 40


class QuitGame(Exception):
    """The player typed ``q``/``quit``."""


class EndOfInput(Exception):
    """Standard input ended before the game did."""


class LineTooLong(Exception):
    """An input line longer than :data:`MAX_INPUT_LINE` (its rest has been skipped)."""


def _skip_rest_of_line(read: Callable[[int], str | bytes]) -> None:
    """Read and drop the rest of an over-long line, 64 KiB at a time."""
    while True:
        chunk = read(1 << 16)
        if not chunk or chunk[-1:] in (b"\n", "\n"):
            return


def read_line() -> str:
    """One line of standard input (looked up at call time: click's test runner
    replaces ``sys.stdin``); :class:`EndOfInput` at its end, :class:`LineTooLong`
    past :data:`MAX_INPUT_LINE` bytes. Bytes are read and decoded as UTF-8 with
    undecodable bytes replaced, whatever the locale's encoding. When the input is
    not a terminal the line is echoed, so a piped transcript shows the answers."""
    stdin = sys.stdin
    buffer = getattr(stdin, "buffer", None)
    if buffer is not None:
        raw = buffer.readline(MAX_INPUT_LINE + 1)
        if not raw:
            raise EndOfInput()
        too_long = len(raw) > MAX_INPUT_LINE and not raw.endswith(b"\n")
        if too_long:
            _skip_rest_of_line(buffer.readline)
        line = raw.decode("utf-8", errors="replace")
    else:
        line = stdin.readline(MAX_INPUT_LINE + 1)
        if not line:
            raise EndOfInput()
        too_long = len(line) > MAX_INPUT_LINE and not line.endswith("\n")
        if too_long:
            _skip_rest_of_line(stdin.readline)
    if not stdin_is_terminal():
        echo = shown(line.rstrip("\r\n"))
        typer.echo(safe_for_stdout(echo if len(echo) <= 60 else echo[:60] + "..."))
    if too_long:
        raise LineTooLong()
    return line


def stdin_is_terminal() -> bool:
    """Whether a person types the answers (so the game may wait for them)."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def safe_for_stdout(text: str) -> str:
    """``text`` with the characters standard output cannot encode written as escapes
    (an ASCII-only locale must not end the game with an encoding error)."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        try:
            return text.encode(encoding, "backslashreplace").decode(encoding)
        except LookupError:
            return text.encode("ascii", "backslashreplace").decode("ascii")


def terminal_width() -> int:
    """Columns to fit the game into: the terminal's (or ``COLUMNS``), at least :data:`MIN_WIDTH`."""
    return max(MIN_WIDTH, shutil.get_terminal_size((80, 24)).columns)


def wrapping(write: Callable[..., None], width: int) -> Callable[..., None]:
    """A ``write(text="", nl=True)`` that fits every line of ``text`` into ``width``
    columns, breaking between words (a continued line is indented two more columns
    than its first); lines that already fit are written exactly as they are."""

    def out(text: str = "", nl: bool = True) -> None:
        text = safe_for_stdout(text)
        lines: list[str] = []
        for line in text.split("\n"):
            if len(line) <= width:
                lines.append(line)
                continue
            lead = line[: len(line) - len(line.lstrip(" "))]
            more = lead + "  "
            if len(more) > width // 2:
                lead = more = ""
            lines.extend(
                textwrap.wrap(
                    line.lstrip(" "),
                    width,
                    initial_indent=lead,
                    subsequent_indent=more,
                    break_on_hyphens=False,
                    drop_whitespace=True,
                )
                or [""]
            )
        if not nl and text.endswith(" ") and not lines[-1].endswith(" ") and len(lines[-1]) < width:
            lines[-1] += " "
        for line in lines[:-1]:
            write(line)
        write(lines[-1], nl=nl)

    return out


def packed(head: str, items: Sequence[str], width: int, sep: str = ";") -> list[str]:
    """``head item; item; ...`` in lines of at most ``width`` columns, broken
    between items where it can; a continued line is indented two columns more
    than ``head``."""
    indent = " " * (len(head) - len(head.lstrip(" ")) + 2)
    lines: list[str] = []
    line = head
    for i, item in enumerate(items):
        item += sep if i < len(items) - 1 else ""
        if line.strip() and len(line) + 1 + len(item) > width:
            lines.append(line)
            line = indent + item
        else:
            line = f"{line} {item}"
    lines.append(line)
    return lines


def grouped_items(ruleset, cards: Sequence[int]) -> list[str]:
    """``["Tempura x2", "Maki Roll (3)"]``: the card types in order of first appearance."""
    if not cards:
        return ["-"]
    counts: dict[int, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    return [card_name(ruleset, c) + (f" x{k}" if k > 1 else "") for c, k in counts.items()]


def displayed_hand(hand: Sequence[int]) -> list[int]:
    """The hand in the order it is shown and numbered (by card type, so copies of a
    card sit together): number ``i`` is ``displayed_hand(hand)[i - 1]``."""
    return sorted(hand)


def card_name(ruleset, card: int) -> str:
    """A card's name from the rule file, safe for the terminal."""
    return shown(ruleset.catalogue.cards[card].name)


def grouped(ruleset, cards: Sequence[int]) -> str:
    """``Tempura x2, Maki Roll (3)`` (card types in order of first appearance)."""
    return ", ".join(grouped_items(ruleset, cards))


def layout(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int,
    short_names: Sequence[str] | None = None,
    right: Collection[int] = (),
) -> list[str]:
    """A table of ``rows`` under ``header`` that fits ``width`` columns: as one line
    per row if it fits (with ``short_names`` in the first column if only they make
    it fit), else one block per row, its name on one line and ``header value`` pairs
    below it, wrapped between pairs."""

    def table(rows) -> list[str]:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        out = []
        for cells in [header, *rows]:
            parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
            out.append(("  " + "  ".join(parts)).rstrip())
        return out

    lines = table(rows)
    if max(map(len, lines)) <= width:
        return lines
    if short_names is not None:
        lines = table([[n, *r[1:]] for n, r in zip(short_names, rows)])
        if max(map(len, lines)) <= width:
            return lines
    out = []
    for r in rows:
        out.append(f"  {r[0]}")
        line = ""
        for h, v in zip(header[1:], r[1:]):
            pair = f"{h} {v}"
            if line and len(line) + 2 + len(pair) > width:
                out.append(line)
                line = ""
            line = f"{line}  {pair}" if line else f"    {pair}"
        if line:
            out.append(line)
    return out


class SeatNames:
    """How seats are called in the transcript: "you", "seat 1 (greedy)", "dummy"."""

    def __init__(self, game: Game, human: int, bots: dict[int, str]):
        self.game = game
        self.human = human
        self.bots = bots

    def short(self, seat: int) -> str:
        if seat == self.human:
            return "you"
        if seat >= self.game.num_players:
            return (
                "dummy"
                if self.game.num_seats == self.game.num_players + 1
                else f"dummy {seat - self.game.num_players + 1}"
            )
        return f"seat {seat}"

    def long(self, seat: int) -> str:
        if seat == self.human:
            return f"you (seat {seat})"
        if seat >= self.game.num_players:
            return f"{self.short(seat)} (seat {seat})"
        return f"seat {seat} ({self.bots[seat]})"

    def list(self, seats: Sequence[int]) -> str:
        names = [self.short(s) for s in seats]
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


class HumanAgent:
    """A seat played from the terminal: shows the seat's view, asks for a pick, and
    re-asks (with the reason) until the answer is a legal action."""

    name = HUMAN

    def __init__(
        self,
        names: SeatNames,
        read: Callable[[], str] | None = None,
        write: Callable[..., None] | None = None,
        width: int | None = None,
        pause: Callable[[str], None] | None = None,
    ):
        """``read()`` returns the next line typed (default :func:`read_line`);
        ``write(text, nl=True)`` shows text (default ``typer.echo``); ``width`` is
        the number of columns the tables must fit (default: the terminal's);
        ``pause(what)``, if given, waits for the player after a pick played for them."""
        self.names = names
        self.pause = pause
        self.read = read or (lambda: read_line())
        self.write = write or typer.echo
        self.width = width or terminal_width()

    # ------------------------------------------------------------------ the agent interface

    def act(self, state: State, seat: int) -> int:
        if state.pending is not None:
            return self.decide(state, seat)
        game = state.game
        rs = game.ruleset
        self.show(state, seat)
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            self.write(f"Only one possible pick: {self.describe(game, legal[0])}; played for you.")
            if self.pause:
                self.pause("to see the cards revealed")
            return legal[0]
        hand = displayed_hand(state.hands[seat])
        extra = game.procedure.extra_available(state, seat) if state.can_use_action(seat) else 0
        while True:
            own = self._ask_own(state, seat, hand, extra)
            rest = hand[:]
            for i in sorted(own, reverse=True):
                del rest[i]
            cards = [hand[i] for i in own]
            dummy_card = None
            if state.controller == seat:
                for_dummy = {d for cs, d in map(game.decode_action, legal) if list(cs) == cards and d is not None}
                if len(for_dummy) == 1:
                    dummy_card = for_dummy.pop()
                    self.write(f"The dummy gets the only card it can: {card_name(rs, dummy_card)}.")
                elif for_dummy:
                    self.write("Cards left for the dummy:")
                    self._list(rs, rest)
                    i = self._ask_cards("Card for the dummy", rest, 0, help=self.dummy_help)[0]
                    dummy_card = rest[i]
            action = game.encode_action(cards, dummy_card)
            if action in legal:
                return action
            self.write(f"  {self.describe(game, action)} is not a legal pick now; choose again.")

    def decide(self, state: State, seat: int) -> int:
        """A decision a card effect asks of this seat: its prompt and numbered options,
        answered by number, by card name, or ``done``."""
        game = state.game
        rs = game.ruleset
        decision = state.observation(seat).pending
        assert decision is not None  # the engine asks only the deciding seat
        options = list(decision.options)
        self.write("")
        if decision.shown:
            for line in packed("Drawn:", [card_name(rs, c) for c in decision.shown], self.width, ","):
                self.write(line)
        self.write(shown(decision.prompt))
        width = len(str(len(options)))
        for i, a in enumerate(options, 1):
            self.write(f"  {i:>{width}}. {self.option_name(game, a)}")
        if len(options) == 1:
            self.write(f"Only one choice: {self.option_name(game, options[0])}; made for you.")
            return options[0]
        n = len(options)
        while True:
            self.write(f"Your choice [1-{n}, ? for help]: ", nl=False)
            try:
                text = " ".join(self.read().split())
            except LineTooLong:
                self.write(f"  That line is longer than {MAX_INPUT_LINE} bytes; type a choice's number or name.")
                continue
            low = text.casefold()
            if low in ("q", "quit", "exit"):
                raise QuitGame()
            K = game.num_card_types
            families = {game.families[a - K].casefold(): a for a in options if K <= a < game.done_action}
            if low in ("?", "h", "help"):
                self.write(
                    f"  Type a number, 1-{n}, or a card's name"
                    + (f" or a family's ({shown(next(iter(families)))} or any ...)" if families else "")
                    + (", or done." if game.done_action in options else ".")
                )
                continue
            if low.isascii() and low.isdigit() and len(low) <= 4 and 1 <= int(low) <= n:
                return options[int(low) - 1]
            if low == "done" and game.done_action in options:
                return game.done_action
            named = self._named(text, [a for a in options if a < game.num_card_types]) if text else []
            if low.startswith("any ") and low[4:] in families:
                return families[low[4:]]
            if len(named) == 1:
                return named[0]
            if low in families:  # a family, unless the word names one card
                return families[low]
            short = shown(text if len(text) <= 12 else text[:12] + "...")
            self.write(f"  '{short}' is not one of the choices: type a number, 1-{n}, or a card's name.")

    @staticmethod
    def option_name(game: Game, action: int) -> str:
        """A decision option in words: a card's name, a family, or done."""
        if action < game.num_card_types:
            return card_name(game.ruleset, action)
        if action == game.done_action:
            return "done (no)"
        return f"any {shown(game.families[action - game.num_card_types])}"

    # ------------------------------------------------------------------ asking

    def _ask_own(self, state: State, seat: int, hand: list[int], extra: int) -> list[int]:
        label = "Your pick"
        if extra:
            tools = self._extra_cards(state, seat)
            how = "two" if extra == 1 else f"up to {extra + 1}"
            label += f" (or {how}, e.g. '3 5', using your {tools})"
        return self._ask_cards(label, hand, extra, state, seat, help=self.help_text(state, seat, extra))

    def _extra_cards(self, state: State, seat: int) -> str:
        rs = state.game.ruleset
        names = [card_name(rs, a.card) for a in state.game.actions if state.counts[seat][a.card]]
        return " / ".join(dict.fromkeys(names)) or "special action"

    def _why_one(self, state: State | None, seat: int) -> str:
        """Why only one card may be taken now."""
        if state is None:
            return "the dummy gets exactly one card"
        game = state.game
        if not game.actions:
            return "this game has no way to take two cards"
        tools = self._action_names(game)
        if not any(state.counts[seat][a.card] for a in game.actions):
            return f"taking two cards needs {tools} already on your table"
        return f"not enough cards left in your hand to use your {tools}"

    def _named(self, word: str, cards: list[int]) -> list[int]:
        """The card types among ``cards`` that ``word`` names: the one whose whole name
        or id it is, else every one whose name or id starts with it (case ignored;
        in an id, a space may stand for ``_``)."""
        catalogue = self.names.game.ruleset.catalogue.cards
        w = " ".join(word.split()).casefold()
        types = list(dict.fromkeys(cards))
        keys = {
            c: (
                " ".join(catalogue[c].name.split()).casefold(),
                catalogue[c].id.casefold(),
                catalogue[c].id.replace("_", " ").casefold(),
            )
            for c in types
        }
        exact = [c for c in types if w in keys[c]]
        if exact:
            return exact
        return [c for c in types if any(k.startswith(w) for k in keys[c])]

    def _ask_cards(
        self, label: str, cards: list[int], extra: int, state: State | None = None, seat: int = -1, help: str = ""
    ) -> list[int]:
        """Indices (0-based) into ``cards`` named by the player, by number or by name
        (or the unique start of one); re-asks until valid."""
        rs = self.names.game.ruleset
        n = len(cards)
        where = "in your hand" if state is not None else "left for the dummy"
        while True:
            self.write(f"{label} [{'1' if n == 1 else f'1-{n}'}, ? for help]: ", nl=False)
            try:
                text = self.read().strip()
            except LineTooLong:
                self.write(f"  That line is longer than {MAX_INPUT_LINE} bytes; type a card's number or name.")
                continue
            low = text.lower()
            if low in ("q", "quit", "exit"):
                raise QuitGame()
            if low in ("?", "h", "help"):
                self.write(help)
                continue
            if low == "rules":
                from ruledraft.language.describe import describe_ruleset

                self.write("\n".join(shown(line) for line in describe_ruleset(rs).rstrip("\n").split("\n")))
                continue
            if not text:
                self.write(f"  Type a card's number, 1-{n}, or its name.")
                continue
            picked = self._parse(text, cards, extra, state, seat, where)
            if isinstance(picked, str):
                self.write(picked)
                continue
            return picked

    def _parse(self, text: str, cards: list[int], extra: int, state: State | None, seat: int, where: str):
        """The indices ``text`` names in ``cards``, or the message saying why it names none.

        Numbers and names may be mixed; several cards are separated by commas or
        spaces (``3 5``, ``tempura, salmon``); a name with spaces is read whole
        when the whole answer names a card."""
        rs = self.names.game.ruleset
        n = len(cards)

        def is_number(w: str) -> bool:
            # plain ASCII digits only ('²'.isdigit() is true too)
            return w.isascii() and w.isdigit()

        if "," in text:
            parts = [p.strip() for p in text.split(",") if p.strip()]
        else:
            parts = text.split()
            if len(parts) > 1 and not all(map(is_number, parts)) and len(self._named(text, cards)) == 1:
                parts = [text]
        if not parts:
            return f"  Type a card's number, 1-{n}, or its name."
        numbers: list[int] = []
        types: list[int] = []
        for word in parts:
            short = shown(word if len(word) <= 12 else word[:12] + "...")
            if is_number(word):
                if len(word) > 4:
                    return f"  '{short}' is not a card number: type a card's number, 1-{n} (? for help)."
                k = int(word)
                if not 1 <= k <= n:
                    return (
                        f"  There is no card {k}: {'your hand holds' if state is not None else 'there are'} "
                        f"{n} card{'s' if n != 1 else ''}, pick 1-{n}."
                    )
                numbers.append(k)
                continue
            named = self._named(word, cards)
            if not named:
                return (
                    f"  '{short}' is not a card number or the name of a card {where}: "
                    f"type a card's number, 1-{n}, or the start of its name (? for help)."
                )
            if len(named) > 1:
                options = [card_name(rs, c) for c in named]
                return (
                    f"  '{short}' could be {', '.join(options[:-1])} or {options[-1]}: "
                    "type more of the name, or the card's number."
                )
            types.append(named[0])
        if len(parts) > 1 + extra:
            if extra == 0:
                return f"  Only one card this time: {self._why_one(state, seat)}."
            return f"  At most {extra + 1} cards this turn."
        if len(set(numbers)) != len(numbers):
            k = next(k for k in numbers if numbers.count(k) > 1)
            name = card_name(rs, cards[k - 1])
            held = cards.count(cards[k - 1])
            more = "" if held == 1 else f" (to take two of your {held} {name}, give two of their numbers)"
            return f"  Card {k} named twice: that is one {name} card{more}."
        taken = [k - 1 for k in numbers]
        for c in types:
            free = [i for i, d in enumerate(cards) if d == c and i not in taken]
            if not free:
                held = cards.count(c)
                return f"  There {'is' if held == 1 else 'are'} only {held} {card_name(rs, c)} {where}."
            taken.append(free[0])
        # in the order named
        order: list[int] = []
        nums = iter(k - 1 for k in numbers)
        named_iter = iter(taken[len(numbers) :])
        for word in parts:
            order.append(next(nums) if is_number(word) else next(named_iter))
        return order

    def help_text(self, state: State, seat: int, extra: int) -> str:
        """What may be typed at the pick prompt this turn."""
        lines = [
            "  Type the number of the card you take, e.g. '3', or its name or the start of it, "
            "e.g. 'tempura' or 'temp'."
        ]
        if extra:
            lines.append(
                f"  This turn you may take two cards instead, using your {self._extra_cards(state, seat)}: "
                "their numbers or names in the order you take them, e.g. '3 5' or 'tempura, salmon'."
            )
        elif state.game.actions:
            lines.append(
                f"  Two numbers ('3 5') take two cards only on a turn when you can use a special card "
                f"({self._action_names(state.game)}) already on your table; not now: {self._why_one(state, seat)}."
            )
        if state.controller == seat:
            lines.append(
                "  You control the dummy this turn: after your own pick you choose, from the cards left, the dummy's card."
            )
        lines.append(
            "  The table: 'points' are those of the rounds scored so far; 'round' what the cards on the "
            "table would score if the round ended now; a modifier is 'loaded' once a card is on it and "
            "'waiting' while it has room; 'kept' are the cards kept to the end of the game."
        )
        lines.append(
            f"  'rules' prints the rules of the game, 'q' quits. Answers longer than {MAX_INPUT_LINE} bytes are refused."
        )
        return "\n".join(lines)

    dummy_help = (
        "  Type the number or name of the card the dummy plays (one card, from those you did not take).\n"
        "  'rules' prints the rules of the game, 'q' quits."
    )

    @staticmethod
    def _action_names(game: Game) -> str:
        return " or ".join(dict.fromkeys(card_name(game.ruleset, a.card) for a in game.actions))

    # ------------------------------------------------------------------ showing

    def show(self, state: State, seat: int) -> None:
        """The seat's view: round and turn, every seat's board, its hand."""
        game = state.game
        rs = game.ruleset
        obs = state.observation(seat)  # only what this seat may know
        idx = rs.catalogue.index_of
        direction = DIRECTION_NAMES[rs.pass_direction(state.round, state.turn)]
        self.write("")
        self.write(
            f"--- Round {obs.round} of {rs.rounds}, turn {obs.turn} of {game.hand_size} (hands pass {direction}) ---"
        )
        for line in board_lines(state, self.names, self.width):
            self.write(line)
        if obs.controls_dummy:
            drawn = ", ".join(card_name(rs, c) for c in state.drawn)
            self.write(
                f"You control the dummy this turn: you drew {drawn or 'nothing'} from its pile; "
                "you take your card, then give the dummy one of the rest."
            )
        elif state.controller >= 0:
            self.write(f"{self.names.short(state.controller).capitalize()} controls the dummy this turn.")
        self.write("Your hand:")
        self._list(rs, displayed_hand([idx(c) for c in obs.hand]))
        if obs.can_use_action:
            self.write(f"You may take two cards this turn with your {self._extra_cards(state, seat)}.")

    def _list(self, rs, cards: Sequence[int]) -> None:
        width = len(str(len(cards)))
        for i, c in enumerate(cards, 1):
            card = rs.catalogue.cards[c]
            self.write(f"  {i:>{width}}. {shown(card.name)} ({shown(card.id)})")

    @staticmethod
    def describe(game: Game, action: int) -> str:
        cards, dummy = game.decode_action(action)
        rs = game.ruleset
        text = " + ".join(card_name(rs, c) for c in cards)
        if dummy is not None:
            text += f", {card_name(rs, dummy)} for the dummy"
        return text


def board_lines(state: State, names: SeatNames, width: int) -> list[str]:
    """Every seat's board fitted into ``width`` columns: a table of points so far,
    the round's running points, hand (or pile) size, each majority's quantity, each
    modifier's state and the kept cards; then each seat's cards played this round."""
    game = state.game
    rs = game.ruleset
    seats = board(state)
    keeps = any(game.kept)
    first = seats[0]
    header = [
        "seat",
        "points",
        "round",
        "hand",
        *(shown(rid) for rid, _ in first.majorities),
        *(shown(rid) for rid, _, _ in first.modifiers),
    ]
    if keeps:
        header.append("kept")
    rows = []
    for b in seats:
        mods = []
        for _, loaded, waiting in b.modifiers:
            parts = ([f"{loaded} loaded"] if loaded else []) + ([f"{waiting} waiting"] if waiting else [])
            mods.append(" ".join(parts) or "-")
        row = [
            names.long(b.seat),
            str(b.points),
            f"{b.round_points:+}" if b.round_points else "0",
            f"pile {b.pile}" if b.pile is not None else str(b.hand),
            *(str(q) for _, q in b.majorities),
            *mods,
        ]
        if keeps:
            row.append(grouped(rs, b.kept))
        rows.append(row)
    right = {1, 2, 3} | set(range(4, 4 + len(first.majorities)))
    lines = layout(header, rows, width, [names.short(b.seat) for b in seats], right)
    if not any(b.played for b in seats):
        return lines  # the round's first turn: nothing on the tables yet
    lines.append("Played this round:")
    for b in seats:
        lines.extend(packed(f"  {names.short(b.seat)}:", grouped_items(rs, b.played), width, ","))
    return lines


# ---------------------------------------------------------------------- after the moves


def take_cards(game: Game, tables: list[list[int]], seat: int, action: int):
    """Put the cards of ``seat``'s ``action`` on ``tables`` (as the engine does: a used
    special card leaves the table); the special action used, if any."""
    cards, dummy = game.decode_action(action)
    if dummy is not None:
        tables[game.num_players].append(dummy)
    counts = [0] * game.num_card_types
    for c in tables[seat]:
        counts[c] += 1
    used = game.special_action_for(counts, len(cards))
    tables[seat].extend(cards)
    if used is not None:
        tables[seat].remove(used.card)
    return used


def round_tables(state: State, r: int) -> list[list[int]]:
    """Every seat's cards played in round ``r`` (0-based), rebuilt from the history
    (the engine clears the tables once a round is scored)."""
    game = state.game
    tables: list[list[int]] = [[] for _ in range(game.num_seats)]
    for actions in state.history[r].actions:
        for seat, action in enumerate(actions):
            take_cards(game, tables, seat, action)
    return tables


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ... ``11th``, ``21st``."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def counted(n: int, word: str) -> str:
    """``1 card``, ``3 cards``."""
    return f"{n} {word}{'' if n == 1 else 's'}"


class EffectSpeech:
    """How a card effect's events speak of seats and cards (the
    :class:`~ruledraft.language.effect.Speech` an effect's ``event_line`` is given)."""

    def __init__(self, game: Game, names: SeatNames):
        self.game = game
        self.names = names

    def name(self, card: int) -> str:
        return card_name(self.game.ruleset, card)

    def subject(self, seat: int, verb: str, verb_s: str) -> str:
        """``You take`` or ``Seat 1 takes``."""
        if seat == self.names.human:
            return f"You {verb}"
        return f"{self.names.short(seat).capitalize()} {verb_s}"

    def whose(self, seat: int) -> str:
        return "Your" if seat == self.names.human else f"{self.names.short(seat).capitalize()}'s"

    def pronoun(self, seat: int) -> str:
        return "your" if seat == self.names.human else "its"

    def whom(self, seat: int) -> str:
        return "you" if seat == self.names.human else self.names.short(seat)

    def counted(self, n: int, noun: str) -> str:
        return counted(n, noun)

    def asked(self, action: int, *, family: str = "") -> str:
        K = self.game.num_card_types
        return self.name(action) if action < K else f"{family}{shown(self.game.families[action - K])} card"


def event_line(game: Game, names: SeatNames, what: Sequence, tied: bool = False, width: int = 80) -> str:
    """One thing a card effect or a race did (an :class:`Event`'s ``what``) as a
    sentence; ``tied``: a race place shared with another seat at the same turn end.
    A race place names the cards discarded when that fits ``width``, else counts them.
    A card effect's events are worded by the effects of the game (their ``event_line``)."""
    rs = game.ruleset
    speech = EffectSpeech(game, names)
    if what[0] == "race":
        _, rule, seat, place, points, cards = what
        text = f"{speech.subject(seat, 'take', 'takes')} {ordinal(place)} place in {shown(rule)}"
        text += f"{' (tied)' if tied else ''}: {counted(points, 'point')}"
        if not cards:
            return text + "."
        named = f"{text}, discarding {grouped(rs, cards)}."
        return named if len(named) <= width else f"{text}, discarding {counted(len(cards), 'card')}."
    for effect in rs.effects:
        line = effect.event_line(what, speech)
        if line is not None:
            return line
    line = shared_event_line(what, speech)
    if line is not None:
        return line
    return shown(" ".join(map(str, what)))  # a kind this screen does not know yet


class Reporter:
    """Prints what happened after each set of moves: the reveal, the decisions and
    what card effects did, round summaries, the end of the game."""

    def __init__(
        self,
        state: State,
        names: SeatNames,
        write: Callable[..., None] = typer.echo,
        width: int | None = None,
        pause: Callable[[str], None] | None = None,
    ):
        self.names = names
        self.pause = pause
        self.write = write
        self.width = width or terminal_width()
        self.seen_rounds = 0
        self.seen_turns = 0  # turns of the current round already reported
        self.seen_decisions = 0  # decisions of the current round already reported
        self.seen_events = 0  # events of the game (``State.events``) already reported
        self.tables: list[list[int]] = [[] for _ in range(state.game.num_seats)]

    def after_moves(self, state: State) -> None:
        game = state.game
        # the turns just played: the moves, and a last card the engine played by itself
        while True:
            self._happenings(state)
            if self.seen_rounds < len(state.round_scores):
                self._round_summary(state, self.seen_rounds)
                self.seen_rounds += 1
                self.seen_turns = 0
                self.seen_decisions = 0
                self.tables = [[] for _ in range(game.num_seats)]
                if self.seen_rounds < len(state.history):
                    continue
            break
        if state.is_terminal():
            self._game_end(state)

    def _reveal(self, game: Game, turn: Turn) -> None:
        rs = game.ruleset
        parts, dummy_parts = [], []
        for seat, action in enumerate(turn.actions):
            cards, dummy = game.decode_action(action)
            used = take_cards(game, self.tables, seat, action)
            text = " + ".join(card_name(rs, c) for c in cards)
            if used is not None:
                text += f" (with {card_name(rs, used.card)}, which go back into the hand passed on)"
            parts.append(f"{self.names.short(seat)}: {text}")
            if dummy is not None:
                dummy_parts.append(
                    f"{self.names.short(game.num_players)}: {card_name(rs, dummy)} (given by {self.names.short(seat)})"
                )
        head = "Last cards (played automatically)" if turn.auto else "Revealed"
        for line in packed(f"{head}:", parts + dummy_parts, self.width):
            self.write(line)

    def _happenings(self, state: State) -> None:
        """What the round has seen since the last report, in the order it happened:
        per turn the reveal, then the decisions made and what the effects did."""
        game = state.game
        r = self.seen_rounds
        hist = state.history[r]
        turns = hist.turns
        # (turn, decisions made before it, 0: an event / 1: a decision, sequence) -> what
        items: list[tuple[tuple[int, int, int, int], object]] = [
            ((t, -1, 0, 0), turns[t]) for t in range(self.seen_turns, len(turns))
        ]
        for i in range(self.seen_decisions, len(hist.decisions)):
            t, seat, action = hist.decisions[i]
            items.append(((t, i, 1, 0), (seat, action)))
        events = state.events
        k = self.seen_events
        while k < len(events) and events[k].round == r:
            items.append(((events[k].turn, events[k].after, 0, k), events[k]))
            k += 1
        self.seen_turns, self.seen_decisions, self.seen_events = len(turns), len(hist.decisions), k
        items.sort(key=lambda item: item[0])
        places: dict[tuple[int, str, int], int] = {}  # race places taken, to tell ties
        for _, e in items:
            if isinstance(e, Event) and e.what[0] == "race":
                key = (e.turn, e.what[1], e.what[3])
                places[key] = places.get(key, 0) + 1
        made: list[tuple[int, int]] = []  # decisions in a row, told on one line
        for _, item in items:
            if isinstance(item, tuple) and not isinstance(item, Event):
                made.append(item)
                continue
            self._decisions(game, made)
            made = []
            if isinstance(item, Turn):
                self._reveal(game, item)
            elif isinstance(item, Event):
                what = item.what
                tied = what[0] == "race" and places[item.turn, what[1], what[3]] > 1
                self.write(f"  - {event_line(game, self.names, what, tied, self.width - 4)}")
        self._decisions(game, made)

    def _decisions(self, game: Game, made: Sequence[tuple[int, int]]) -> None:
        """Decisions card effects asked for, as they were made."""
        if not made:
            return
        parts = [f"{self.names.short(seat)}: {HumanAgent.option_name(game, a)}" for seat, a in made]
        for line in packed("Decided:", parts, self.width):
            self.write(line)

    def _table(self, header: Sequence[str], rows: Sequence[Sequence[str]], seats: Sequence[int]) -> None:
        short = [self.names.short(s) for s in seats]
        for line in layout(header, rows, self.width, short, right=range(1, len(header))):
            self.write(line)

    def _round_summary(self, state: State, r: int) -> None:
        game = state.game
        rs = game.ruleset
        seats = range(game.num_seats)
        self.write("")
        self.write(f"=== End of round {r + 1} of {rs.rounds} ===")
        # with card effects, cards move after the picks: the tables the round was scored on
        tables = state.history[r].tables if game.general else None
        for s in seats:
            table = tables[s] if tables is not None else self.tables[s]
            for line in packed(f"  {self.names.long(s)}:", grouped_items(rs, table), self.width, ","):
                self.write(line)
        sheet = state.score_sheet()
        scoring = sheet.rounds[r]
        rule_ids = [rule.id for rule in scoring.rules]
        totals_after = [sum(sc.totals[s] for sc in sheet.rounds[: r + 1]) for s in seats]
        rows = []
        for s in seats:
            by_rule = [pts[s] for pts in scoring.points]
            rows.append([self.names.long(s), *map(str, by_rule), str(scoring.totals[s]), str(totals_after[s])])
        self.write(f"Points in round {r + 1}:")
        self._table(["seat", *map(shown, rule_ids), "round", "total"], rows, seats)
        if self.pause and r + 1 < rs.rounds:
            self.pause(f"to start round {r + 2}")

    def _game_end(self, state: State) -> None:
        game = state.game
        rs = game.ruleset
        seats = range(game.num_seats)
        self.write("")
        self.write("=== Game over ===")
        sheet = state.score_sheet()
        if rs.game_rules and sheet.game_end is not None:
            scoring = sheet.game_end
            kept = state.kept_cards
            rule_ids = [rule.id for rule in scoring.rules]
            self.write("Kept to the end of the game:")
            for s in seats:
                for line in packed(f"  {self.names.short(s)}:", grouped_items(rs, kept[s]), self.width, ","):
                    self.write(line)
            rows = [
                [
                    self.names.long(s),
                    *(str(pts[s]) for pts in scoring.points),
                    str(scoring.totals[s]),
                ]
                for s in seats
            ]
            self.write("Game-end points (on the cards kept to the end):")
            self._table(["seat", *map(shown, rule_ids), "game end"], rows, seats)
        totals = sheet.totals
        self.write("Final totals:")
        self._table(["seat", "points"], [[self.names.long(s), str(totals[s])] for s in seats], seats)
        winners = sheet.winners
        if not winners:
            self.write("No winner: the tie is not broken and this game does not share wins.")
        elif len(winners) == 1:
            w = winners[0]
            self.write(
                f"Winner: {self.names.short(w)}, with {totals[w]} points."
                + (" Well played!" if w == self.names.human else "")
            )
        else:
            self.write(f"Shared win: {self.names.list(winners)}, with {totals[winners[0]]} points each.")


# ---------------------------------------------------------------------- the command


def play(
    ruleset: str = typer.Argument(..., help=ruleset_help()),
    players: int = typer.Option(..., "--players", "-p", help="Number of players, you included."),
    seed: int = typer.Option(0, "--seed", "-s", help=f"Seed of the deal and of the bots (0 to {MAX_SEED})."),
    bots: str = typer.Option(
        "greedy",
        "--bots",
        "-b",
        help=bots_help(
            "Bots for the other seats in seat order, comma-separated; the last fills the remaining seats. "
            "Options after colons (value:tempura=3); your own bot as FILE.py:CLASS or MODULE:CLASS (see `ruledraft bots`)."
        ),
    ),
    seat: int = typer.Option(0, "--seat", help="Your seat (0-based)."),
    log: str | None = typer.Option(
        None, "--log", help="Write the finished game as one JSON line (check it with `ruledraft replay`)."
    ),
    allow_path: list[str] = allow_path_option(),
) -> None:
    """Play a game in the terminal against bots: type a card's number or name to take it.

    You see your own hand, every table, and per seat the points so far, what the
    round would score now, the quantities the majority rules compare, which
    modifier cards are loaded, and the kept cards. Everything fits the terminal's
    width (COLUMNS). Answers are read as lines of at most 1024 bytes.
    """
    with reported_errors():
        if not 0 <= seed <= MAX_SEED:
            raise InputError(f"--seed must be a whole number from 0 to {MAX_SEED}, not {seed}")
        if ruleset == "-":
            raise InputError(
                "play reads your moves from standard input, so the ruleset cannot come from there (-); give a file or a bundled id"
            )
        rs = get_ruleset(ruleset, allowed_dirs(allow_path))
        game = Game(rs, players)  # checks the player count
        if not 0 <= seat < players:
            raise InputError(f"--seat {seat}: seats are numbered 0-{players - 1} with {players} players")
        others = [s for s in range(players) if s != seat]
        named = [n for n in bots.split(",") if n.strip()]
        if len(named) > len(others):
            raise InputError(
                f"--bots names {len(named)} bots for the {len(others)} other seat{'s' if len(others) != 1 else ''}"
            )
        bot_names = dict(zip(others, parse_bots(bots, len(others), card_ids=rs.catalogue.ids)))
        log_existed = log is not None and os.path.exists(log)
        if log:  # find out now, not after the game, whether the record can be written
            try:
                open(log, "a", encoding="utf-8").close()
            except OSError as e:
                raise InputError(f"{log}: cannot write: {e.strerror}") from None
        try:
            state = play_game(game, seed, seat, bot_names, pause=stdin_is_terminal())
        except (QuitGame, EndOfInput, KeyboardInterrupt, BotFailure) as e:
            if log and not log_existed:
                with contextlib.suppress(OSError):
                    os.remove(log)  # no game to record; an existing file is left as it was
            if isinstance(e, BotFailure):  # its text comes from the bot's own code
                fail(f"error: {shown(e)}", 1)
            if isinstance(e, QuitGame):
                typer.echo("You left the game.")
                raise typer.Exit(0) from None
            typer.echo("")  # end the prompt's line
            if isinstance(e, EndOfInput):
                typer.echo("Input ended before the game did; game abandoned.", err=True)
                raise typer.Exit(1) from None
            raise typer.Exit(130) from None  # the entry point says "interrupted"
        if log:
            seat_names = [HUMAN if s == seat else bot_names[s] for s in range(players)]
            try:
                with open(log, "w", encoding="utf-8") as fh:
                    fh.write(json.dumps(record_game(state, seat_names), separators=(",", ":")) + "\n")
            except OSError as e:
                raise InputError(f"{log}: cannot write: {e.strerror}") from None
            wrapping(typer.echo, terminal_width())(
                f"Game record written to {log} (check it with: ruledraft replay {log})."
            )


def play_game(
    game: Game,
    seed: int,
    seat: int,
    bot_names: dict[int, str],
    read: Callable[[], str] | None = None,
    write: Callable[..., None] | None = None,
    width: int | None = None,
    pause: bool = False,
) -> State:
    """Play one game, the human at ``seat`` and the named bots elsewhere; the finished state.
    Bot ``s`` is seeded with ``bot_seed(seed, s)``, as in simulations. Every line
    written fits ``width`` columns (default: the terminal's width). With ``pause``
    (a player at a terminal) the game waits for Enter after a pick played for the
    player and after each round's scores, so no key press runs several turns past
    unseen."""
    rs = game.ruleset
    width = width or terminal_width()
    write = wrapping(write or typer.echo, width)
    read = read or (lambda: read_line())
    names = SeatNames(game, seat, bot_names)
    wait = None
    if pause:

        def wait(what: str) -> None:
            write(f"Press Enter {what} (q quits): ", nl=False)
            try:
                answer = read().strip().lower()
            except LineTooLong:
                return
            if answer in ("q", "quit", "exit"):
                raise QuitGame()

    human = HumanAgent(names, read, write, width, pause=wait)
    agents = [human if s == seat else make_agent(bot_names[s], bot_seed(seed, s)) for s in range(game.num_players)]
    state = game.new_initial_state(seed)
    opponents = ", ".join(names.long(s) for s in range(game.num_seats) if s != seat)
    write(
        f"{shown(rs.name)}: {game.num_players} players, seed {seed}. You are seat {seat}; playing against {opponents}."
    )
    write("Type a card's number or name to take it; ? for help, q to quit.")
    columns = majority_words(state)
    if columns:
        write("On the board:")
        for rid, words in columns:
            for line in textwrap.wrap(
                f"{shown(rid)}: {shown(words)}", width, initial_indent="  ", subsequent_indent="    "
            ):
                write(line)
    reporter = Reporter(state, names, write, width, pause=wait)
    reporter.after_moves(state)  # a deal that plays itself (hands of one card)
    while not state.is_terminal():
        state.apply_actions(
            [
                agents[s].act(state, s) if s == seat else checked_act(agents[s], bot_names[s], state, s, seed)
                for s in state.acting_seats()
            ]
        )
        reporter.after_moves(state)
    return state
