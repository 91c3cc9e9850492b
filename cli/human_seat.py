"""The human's seat in ``play``: :class:`HumanAgent` shows the seat's view and asks
for its picks and decisions on the terminal, re-asking until the answer is legal.

It has the same shape as a bot (``name`` and ``act(state, seat) -> action``), so it
could join the agent registry later. It sees only what its seat may know
(:meth:`State.observation`).
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable, Sequence

import typer

from ruledraft.engine.decisions import Decision
from ruledraft.engine.state import Game, State
from ruledraft.language.ruleset import DIRECTION_NAMES, NO_PASS

from .board import board_lines, kept_from_earlier_rounds
from .common import shown
from .naming import SeatNames, card_name, effect_reminder, family_words, option_name
from .terminal import (
    MAX_INPUT_LINE,
    LineTooLong,
    grid,
    packed,
    read_line,
    terminal_height,
    terminal_width,
    wrapped,
)

HUMAN = "human"

#: rows of options a decision lists at once; past that, families first, cards on request
DECISION_ROWS = 6


class QuitGame(Exception):
    """The player typed ``q``/``quit``."""


def displayed_hand(hand: Sequence[int]) -> list[int]:
    """The hand in the order it is shown and numbered (by card type, so copies of a
    card sit together): number ``i`` is ``displayed_hand(hand)[i - 1]``."""
    return sorted(hand)


def passing(state: State) -> str:
    """Where the hands go after this turn: "hands pass left", "hands do not pass"."""
    direction = state.game.ruleset.pass_direction(state.round, state.turn)
    return "hands do not pass" if direction == NO_PASS else f"hands pass {DIRECTION_NAMES[direction]}"


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
        height: int | None = None,
    ):
        """``read()`` returns the next line typed (default :func:`read_line`);
        ``write(text, nl=True)`` shows text (default ``typer.echo``); ``width`` is
        the number of columns the tables must fit (default: the terminal's, as it is
        at each screen), ``height``
        the rows a screen (board, hand or decision, prompt) should fit (default:
        :func:`~.terminal.terminal_height`);
        ``pause(what)``, if given, waits for the player after a pick played for them."""
        self.names = names
        self.pause = pause
        self.read = read or (lambda: read_line())
        self.write = write or typer.echo
        self._width = width
        self._height = height

    @property
    def width(self) -> int:
        """The columns to fit: as given, else the terminal's now (a resized window is followed)."""
        return self._width or terminal_width()

    @property
    def height(self) -> int:
        """The rows a screen should fit: as given, else the terminal's now."""
        return self._height or terminal_height()

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
        """A decision a card effect asks of this seat: the board as it is now, the
        question with a one-line reminder of what the effect does, and the options
        (families first and the cards on request when they are many), answered by
        number, by card or family name, or ``no``."""
        game = state.game
        rs = game.ruleset
        decision = state.observation(seat).pending
        assert decision is not None  # the engine asks only the deciding seat
        options = list(decision.options)
        n = len(options)
        K = game.num_card_types
        number = {a: i for i, a in enumerate(options, 1)}
        digits = len(str(n))

        def entries(actions: Sequence[int]) -> list[str]:
            return [f"{number[a]:>{digits}}. {option_name(game, a, decision)}" for a in actions]

        cards = [a for a in options if a < K]
        families = [a for a in options if K <= a < game.done_action]
        done = game.done_action in options
        question = [shown(line) for line in self._question(state, decision)]
        # the cards drawn in the order of the numbered choices below them (a card none of them is, last)
        in_order = sorted(decision.shown, key=lambda c: (number.get(c, n + 1), c))
        drawn = packed("Drawn:", [card_name(rs, c) for c in in_order], self.width, ",") if decision.shown else []
        listed = grid(entries(cards + families), self.width)
        cards_on_request = bool(families) and len(listed) > DECISION_ROWS
        if cards_on_request:
            listed = grid(entries(families), self.width)
            first, last = number[cards[0]], number[cards[-1]]
            listed.append(f"  or a card: its name, or 'cards' to list the {len(cards)} cards ({first}-{last})")
        if done:
            listed.append(
                f"  {number[game.done_action]:>{digits}}. {option_name(game, game.done_action, decision, True, state)}"
            )
        block = [*question, *drawn, *listed]
        board = self._board(state, seat, room=self.height - len(block) - 1)
        for line in ["", *board, *block]:
            self.write(line)
        if n == 1:
            self.write(f"Only one choice: {option_name(game, options[0], decision)}; made for you.")
            return options[0]
        # a family typed as shown (takeout box) or as its tag (takeout_box)
        by_family = {family_words(game.families[a - K]).casefold(): a for a in families}
        by_family |= {game.families[a - K].casefold(): a for a in families}
        no_words = ("done", "no", "n", "none", "not now", "stop")
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
            if not low:
                self.write(f"  Type a choice's number, 1-{n}, or its name (? for help).")
                continue
            if low in ("?", "h", "help"):
                self.write(self._decision_help(game, decision, n, by_family, done, cards_on_request))
                continue
            if low == "kept":
                self.write_kept(state)
                continue
            if low in ("cards", "c") and cards:
                for line in grid(entries(cards), self.width):
                    self.write(line)
                continue
            if low.isdecimal() and len(low) <= 4 and 1 <= int(low) <= n:  # digits of any script, as is_number
                return options[int(low) - 1]
            if low in no_words and done:
                return game.done_action
            named = self._named(text, cards) if text else []
            if low.startswith("any ") and low[4:] in by_family:
                return by_family[low[4:]]
            if len(named) == 1:
                return named[0]
            if low in by_family:  # a family, unless the word names one card
                return by_family[low]
            short = shown(text if len(text) <= 12 else text[:12] + "...")
            self.write(f"  '{short}' is not one of the choices: type a number, 1-{n}, or a name (? for help).")

    def _question(self, state: State, decision: Decision) -> list[str]:
        """The decision's question, then one line (indented) of what the effect does."""
        game = state.game
        prompt = re.sub(r"\s*\((done|no)\b[^)]*\)\s*$", "", decision.prompt)  # the options say what no means
        reminder = effect_reminder(game, decision, self.names)
        lines = wrapped(prompt, self.width, "", "  ")
        if reminder:
            lines.append("  " + textwrap.shorten(reminder, self.width - 2, placeholder=" ..."))
        return lines

    def _decision_help(
        self, game: Game, decision: Decision, n: int, by_family: dict[str, int], done: bool, on_request: bool
    ) -> str:
        """What the effect does (its rule in full) and what may be typed."""
        effect = game.effect_of[decision.card]
        lines = wrapped(
            shown(effect.describe()) if effect is not None else shown(decision.prompt), self.width, "  ", "  "
        )
        ways = [f"a number, 1-{n}", "a card's name (or the start of it)"]
        if by_family:
            ways.append(f"a family ({shown(next(iter(by_family)))} or any {shown(next(iter(by_family)))})")
        if on_request:
            ways.append("'cards' to list the cards")
        if done:
            ways.append(f"'no' for {option_name(game, game.done_action, decision)}")
        lines.extend(wrapped("  Type " + ", ".join(ways) + "; q quits.", self.width, "", "  "))
        return "\n".join(lines)

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
            seconds = dict.fromkeys(
                card_name(game.ruleset, e.card) for e in game.ruleset.effects if e.kind == "second_pick"
            )
            if seconds:  # Party's chopsticks, an apron
                return f"a second card comes after the reveal, offered by {' / '.join(seconds)} once on your table"
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
            if low == "kept" and state is not None:
                self.write_kept(state)
                continue
            # after the rules or the help pushed it away (a card of that name is taken instead)
            if low in ("board", "hand") and state is not None and not self._named(text, cards):
                self.show(state, seat)
                continue
            if low == "rules":
                from ruledraft.language.describe import describe_ruleset

                self.write("\n".join(shown(line) for line in describe_ruleset(rs).rstrip("\n").split("\n")))
                if state is not None:
                    self.write("  ('board' shows the board and your hand again.)")
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
        spaces (``3 5``, ``tempura, salmon``), a full-width or ideographic comma as
        one (``３，５``, ``３、５``); a name with spaces is read whole when the whole
        answer names a card."""
        rs = self.names.game.ruleset
        n = len(cards)
        text = text.replace("\uff0c", ",").replace("\u3001", ",")

        def is_number(w: str) -> bool:
            # decimal digits of any script ('٣', '３'), which int() reads, as the command line's
            # options do; not a superscript ('²'.isdigit() is true, and int() refuses it)
            return w.isdecimal()

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
        ids = state.game.ruleset.catalogue.ids
        hand = state.hands[seat]
        named = list(dict.fromkeys(ids[c] for c in hand)) or [ids[0]]  # this hand's cards, as typed
        first = named[0]
        # the shortest start of it (4 letters or more) that names it alone in this hand, if one is shorter
        starts = (first[:k] for k in range(4, len(first) - 1))
        start = next((f" or '{p}'" for p in starts if hand and self._named(p, hand) == [hand[0]]), "")
        lines = [
            f"  Type the number of the card you take, e.g. '3', or its name or the start of it, e.g. '{first}'{start}."
        ]
        if extra:
            two = ", ".join(named[:2]) if len(named) > 1 else f"{first}, {first}"
            lines.append(
                f"  This turn you may take two cards instead, using your {self._extra_cards(state, seat)}: "
                f"their numbers or names in the order you take them, e.g. '3 5' or '{two}'."
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
            "'waiting' while it has room; 'kept' are the cards kept to the end of the game (a number: how "
            "many, where their names do not fit; the command 'kept' lists them)."
        )
        if state.game.turn_rules:
            lines.append(
                "  A race's column ('7/10') is what your cards count toward its next place; the line "
                "under the table gives the places taken (by whom, for how many points) and those still open."
            )
        lines.append(
            "  'rules' prints the rules of the game, 'kept' the cards kept from earlier rounds, 'board' (or "
            "'hand') the board and your hand again, 'q' quits. "
            f"Answers longer than {MAX_INPUT_LINE} bytes are refused."
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

    def head(self, state: State) -> str:
        """The line that starts the board: round, turn and where the hands go."""
        obs_round, obs_turn = state.round + 1, state.turn + 1
        rs = state.game.ruleset
        return f"--- Round {obs_round} of {rs.rounds}, turn {obs_turn} of {state.game.hand_size} ({passing(state)}) ---"

    def write_kept(self, state: State) -> None:
        """Every seat's cards kept from earlier rounds (the ``kept`` command)."""
        lines = kept_from_earlier_rounds(state, self.names, self.width, every=True)
        for line in lines or ["  No card has been kept from an earlier round."]:
            self.write(line)

    def _board(self, state: State, seat: int, room: int) -> list[str]:
        """The board's head line and every seat's board, in ``room`` rows if it can."""
        return [self.head(state), *board_lines(state, self.names, self.width, room - 1)]

    def show(self, state: State, seat: int) -> None:
        """The seat's view: round and turn, every seat's board, its hand (in columns
        when a card a line would not fit the screen)."""
        game = state.game
        rs = game.ruleset
        obs = state.observation(seat)  # only what this seat may know
        idx = rs.catalogue.index_of
        after: list[str] = []
        if obs.controls_dummy:
            drawn = ", ".join(card_name(rs, c) for c in state.drawn)
            after.append(
                f"You control the dummy this turn: you drew {drawn or 'nothing'} from its pile; "
                "you take your card, then give the dummy one of the rest."
            )
        elif state.controller >= 0:
            after.append(f"{self.names.short(state.controller).capitalize()} controls the dummy this turn.")
        after.append("Your hand:")
        hand = displayed_hand([idx(c) for c in obs.hand])
        tail = []
        if obs.can_use_action:
            tail.append(f"You may take two cards this turn with your {self._extra_cards(state, seat)}.")
        rows = sum(len(wrapped(t, self.width)) for t in [*after, *tail]) + 1  # and the prompt
        board = self._board(state, seat, room=self.height - 1 - rows - len(hand))
        listed = self._card_lines(rs, hand)
        if 1 + len(board) + rows + len(listed) > self.height:
            width = len(str(len(hand)))
            listed = grid([f"{i:>{width}}. {card_name(rs, c)}" for i, c in enumerate(hand, 1)], self.width)
        self.write("")
        for line in board:
            self.write(line)
        for line in after:
            self.write(line)
        for line in listed:
            self.write(line)
        for line in tail:
            self.write(line)

    def _card_lines(self, rs, cards: Sequence[int]) -> list[str]:
        width = len(str(len(cards)))
        return [
            f"  {i:>{width}}. {shown(rs.catalogue.cards[c].name)} ({shown(rs.catalogue.cards[c].id)})"
            for i, c in enumerate(cards, 1)
        ]

    def _list(self, rs, cards: Sequence[int]) -> None:
        for line in self._card_lines(rs, cards):
            self.write(line)

    @staticmethod
    def describe(game: Game, action: int) -> str:
        cards, dummy = game.decode_action(action)
        rs = game.ruleset
        text = " + ".join(card_name(rs, c) for c in cards)
        if dummy is not None:
            text += f", {card_name(rs, dummy)} for the dummy"
        return text
