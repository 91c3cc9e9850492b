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
import sys
from typing import Callable, Dict, List, Optional, Sequence

import typer

from ruledraft.agents import make_agent
from ruledraft.engine import Game, State
from ruledraft.errors import InputError
from ruledraft.game_log import record_game
from ruledraft.ruleset import DIRECTION_NAMES
from ruledraft.runner import bot_seed

from .common import allow_path_option, allowed_dirs, get_ruleset, reported_errors
from .simulate import parse_bots

HUMAN = "human"


class QuitGame(Exception):
    """The player typed ``q``/``quit``."""


class EndOfInput(Exception):
    """Standard input ended before the game did."""


def read_line() -> str:
    """One line of standard input (looked up at call time: click's test runner
    replaces ``sys.stdin``); :class:`EndOfInput` at its end. When the input is not a
    terminal the line is echoed, so a piped transcript shows the answers."""
    stdin = sys.stdin
    line = stdin.readline()
    if not line:
        raise EndOfInput()
    try:
        interactive = stdin.isatty()
    except (AttributeError, ValueError):
        interactive = False
    if not interactive:
        typer.echo(line.rstrip("\r\n"))
    return line


def displayed_hand(hand: Sequence[int]) -> List[int]:
    """The hand in the order it is shown and numbered (by card type, so copies of a
    card sit together): number ``i`` is ``displayed_hand(hand)[i - 1]``."""
    return sorted(hand)


def grouped(ruleset, cards: Sequence[int]) -> str:
    """``Tempura x2, Maki Roll (3) x1`` (card types in order of first appearance)."""
    if not cards:
        return "-"
    counts: Dict[int, int] = {}
    for c in cards:
        counts[c] = counts.get(c, 0) + 1
    names = ruleset.catalogue.cards
    return ", ".join(f"{names[c].name} x{k}" for c, k in counts.items())


class SeatNames:
    """How seats are called in the transcript: "you", "seat 1 (greedy)", "dummy"."""

    def __init__(self, game: Game, human: int, bots: Dict[int, str]):
        self.game = game
        self.human = human
        self.bots = bots

    def short(self, seat: int) -> str:
        if seat == self.human:
            return "you"
        if seat >= self.game.num_players:
            return "dummy" if self.game.num_seats == self.game.num_players + 1 else f"dummy {seat - self.game.num_players + 1}"
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

    def __init__(self, names: SeatNames, read: Optional[Callable[[], str]] = None,
                 write: Optional[Callable[..., None]] = None):
        """``read()`` returns the next line typed (default :func:`read_line`);
        ``write(text, nl=True)`` shows text (default ``typer.echo``)."""
        self.names = names
        self.read = read or (lambda: read_line())
        self.write = write or typer.echo

    # ------------------------------------------------------------------ the agent interface

    def act(self, state: State, seat: int) -> int:
        game = state.game
        rs = game.ruleset
        self.show(state, seat)
        legal = state.legal_actions(seat)
        if len(legal) == 1:
            self.write(f"Only one possible pick: {self.describe(game, legal[0])}; played for you.")
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
                for_dummy = {d for cs, d in map(game.decode_action, legal) if list(cs) == cards}
                if len(for_dummy) == 1:
                    dummy_card = for_dummy.pop()
                    self.write(f"The dummy gets the only card it can: {rs.catalogue.cards[dummy_card].name}.")
                elif for_dummy:
                    self.write("Cards left for the dummy:")
                    self._list(rs, rest)
                    i = self._ask_numbers("Card for the dummy", rest, 0, help=self.dummy_help)[0]
                    dummy_card = rest[i]
            action = game.encode_action(cards, dummy_card)
            if action in legal:
                return action
            self.write(f"  {self.describe(game, action)} is not a legal pick now; choose again.")

    # ------------------------------------------------------------------ asking

    def _ask_own(self, state: State, seat: int, hand: List[int], extra: int) -> List[int]:
        label = "Your pick"
        if extra:
            tools = self._extra_cards(state, seat)
            how = "two" if extra == 1 else f"up to {extra + 1}"
            label += f" (or {how}, e.g. '3 5', using your {tools})"
        return self._ask_numbers(label, hand, extra, state, seat, help=self.help_text(state, seat, extra))

    def _extra_cards(self, state: State, seat: int) -> str:
        cards = state.game.ruleset.catalogue.cards
        names = [cards[a.card].name for a in state.game.actions if state.counts[seat][a.card]]
        return " / ".join(dict.fromkeys(names)) or "special action"

    def _why_one(self, state: Optional[State], seat: int) -> str:
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

    def _ask_numbers(self, label: str, cards: List[int], extra: int,
                     state: Optional[State] = None, seat: int = -1, help: str = "") -> List[int]:
        """Indices (0-based) into ``cards`` named by the player; re-asks until valid."""
        rs = self.names.game.ruleset
        n = len(cards)
        while True:
            self.write(f"{label} [{'1' if n == 1 else f'1-{n}'}, ? for help]: ", nl=False)
            text = self.read().strip()
            low = text.lower()
            if low in ("q", "quit", "exit"):
                raise QuitGame()
            if low in ("?", "h", "help"):
                self.write(help)
                continue
            if low == "rules":
                from ruledraft.describe import describe_ruleset

                self.write(describe_ruleset(rs).rstrip("\n"))
                continue
            if not text:
                self.write(f"  Type a card's number, 1-{n}.")
                continue
            words = text.replace(",", " ").split()
            # plain ASCII digits only ('²'.isdigit() is true too), and short enough to be a card number
            bad = next((w for w in words if not (w.isascii() and w.isdigit() and len(w) <= 4)), None)
            if bad is not None:
                shown = bad if len(bad) <= 12 else bad[:12] + "..."
                self.write(f"  '{shown}' is not a card number: type a card's number, 1-{n} (? for help).")
                continue
            numbers = [int(w) for w in words]
            out = next((k for k in numbers if not 1 <= k <= n), None)
            if out is not None:
                self.write(f"  There is no card {out}: {'your hand holds' if state is not None else 'there are'} {n} card{'s' if n != 1 else ''}, pick 1-{n}.")
                continue
            if len(numbers) > 1 + extra:
                if extra == 0:
                    self.write(f"  Only one card this time: {self._why_one(state, seat)}.")
                else:
                    self.write(f"  At most {extra + 1} cards this turn.")
                continue
            if len(set(numbers)) != len(numbers):
                k = next(k for k in numbers if numbers.count(k) > 1)
                name = rs.catalogue.cards[cards[k - 1]].name
                held = cards.count(cards[k - 1])
                more = "" if held == 1 else f" (to take both of your {held} {name}, give both their numbers)"
                self.write(f"  Card {k} named twice: that is one {name} card{more}.")
                continue
            return [k - 1 for k in numbers]

    def help_text(self, state: State, seat: int, extra: int) -> str:
        """What may be typed at the pick prompt this turn."""
        lines = ["  Type the number of the card you take, e.g. '3'."]
        if extra:
            lines.append(f"  This turn you may take two cards instead, using your {self._extra_cards(state, seat)}: "
                         "their numbers in the order you take them, e.g. '3 5'.")
        elif state.game.actions:
            lines.append(f"  Two numbers ('3 5') take two cards only on a turn when you can use a special card "
                         f"({self._action_names(state.game)}) already on your table; not now: {self._why_one(state, seat)}.")
        if state.controller == seat:
            lines.append("  You control the dummy this turn: after your own pick you choose, from the cards left, the dummy's card.")
        lines.append("  'rules' prints the rules of the game, 'q' quits.")
        return "\n".join(lines)

    dummy_help = ("  Type the number of the card the dummy plays (one card, from those you did not take).\n"
                  "  'rules' prints the rules of the game, 'q' quits.")

    @staticmethod
    def _action_names(game: Game) -> str:
        cards = game.ruleset.catalogue.cards
        return " or ".join(dict.fromkeys(cards[a.card].name for a in game.actions))

    # ------------------------------------------------------------------ showing

    def show(self, state: State, seat: int) -> None:
        """The seat's view: round and turn, every table, kept cards, scores, its hand."""
        game = state.game
        rs = game.ruleset
        obs = state.observation(seat)  # only what this seat may know
        idx = rs.catalogue.index_of
        direction = DIRECTION_NAMES[rs.pass_directions[state.round]]
        self.write("")
        self.write(f"--- Round {obs['round']} of {rs.rounds}, turn {obs['turn']} of {game.hand_size} (hands pass {direction}) ---")
        keeps = any(c.keep == "game" for c in rs.catalogue.cards)
        rows = []
        for s in range(game.num_seats):
            is_dummy = s >= game.num_players
            rows.append((
                self.names.long(s),
                str(obs["scores"][s]),
                "" if is_dummy else str(obs["hand_sizes"][s]),
                grouped(rs, [idx(c) for c in obs["kept"][s]]),
                grouped(rs, [idx(c) for c in obs["played"][s]]),
            ))
        head = ("seat", "points", "hand")
        if keeps:
            head += ("kept",)
        head += ("played this round",)
        rows = [r if keeps else r[:3] + r[4:] for r in rows]
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
        right = {1, 2}

        def fmt(cells) -> str:
            parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
            return ("  " + "  ".join(parts)).rstrip()

        self.write(fmt(head))
        for r in rows:
            self.write(fmt(r))
        if obs["controls_dummy"]:
            drawn = ", ".join(rs.catalogue.cards[c].name for c in state.drawn)
            self.write(f"You control the dummy this turn: you drew {drawn or 'nothing'} from its pile; "
                       "you take your card, then give the dummy one of the rest.")
        elif state.controller >= 0:
            self.write(f"{self.names.short(state.controller).capitalize()} controls the dummy this turn.")
        self.write("Your hand:")
        self._list(rs, displayed_hand([idx(c) for c in obs["hand"]]))
        if obs["can_use_action"]:
            self.write(f"You may take two cards this turn with your {self._extra_cards(state, seat)}.")

    def _list(self, rs, cards: Sequence[int]) -> None:
        width = len(str(len(cards)))
        for i, c in enumerate(cards, 1):
            card = rs.catalogue.cards[c]
            self.write(f"  {i:>{width}}. {card.name} ({card.id})")

    @staticmethod
    def describe(game: Game, action: int) -> str:
        cards, dummy = game.decode_action(action)
        names = game.ruleset.catalogue.cards
        text = " + ".join(names[c].name for c in cards)
        if dummy is not None:
            text += f", {names[dummy].name} for the dummy"
        return text


# ---------------------------------------------------------------------- after the moves


def take_cards(game: Game, tables: List[List[int]], seat: int, action: int):
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


def round_tables(state: State, r: int) -> List[List[int]]:
    """Every seat's cards played in round ``r`` (0-based), rebuilt from the history
    (the engine clears the tables once a round is scored)."""
    game = state.game
    tables: List[List[int]] = [[] for _ in range(game.num_seats)]
    for turn in state.history[r]["turns"]:
        for seat, action in enumerate(turn["actions"]):
            take_cards(game, tables, seat, action)
    return tables


class Reporter:
    """Prints what happened after each set of moves: the reveal, round summaries,
    the end of the game."""

    def __init__(self, state: State, names: SeatNames, write: Callable[..., None] = typer.echo):
        self.names = names
        self.write = write
        self.seen_rounds = 0
        self.seen_turns = 0  # turns of the current round already reported
        self.tables: List[List[int]] = [[] for _ in range(state.game.num_seats)]
        self.rule_points = {k: v[:] for k, v in state.rule_points.items()}

    def after_moves(self, state: State) -> None:
        game = state.game
        # the turns just played: the moves, and a last card the engine played by itself
        while True:
            hist = state.history[self.seen_rounds]
            for turn in hist["turns"][self.seen_turns:]:
                self._reveal(game, turn)
            self.seen_turns = len(hist["turns"])
            if self.seen_rounds < len(state.round_scores):
                self._round_summary(state, self.seen_rounds)
                self.seen_rounds += 1
                self.seen_turns = 0
                self.tables = [[] for _ in range(game.num_seats)]
                if self.seen_rounds < len(state.history):
                    continue
            break
        if state.is_terminal():
            self._game_end(state)

    def _reveal(self, game: Game, turn: dict) -> None:
        names = game.ruleset.catalogue.cards
        parts, dummy_parts = [], []
        for seat, action in enumerate(turn["actions"]):
            cards, dummy = game.decode_action(action)
            used = take_cards(game, self.tables, seat, action)
            text = " + ".join(names[c].name for c in cards)
            if used is not None:
                tool = names[used.card].name
                text += f" (with {tool}, which go back into the hand passed on)"
            parts.append(f"{self.names.short(seat)}: {text}")
            if dummy is not None:
                dummy_parts.append(f"{self.names.short(game.num_players)}: {names[dummy].name} (given by {self.names.short(seat)})")
        head = "Last cards (played automatically)" if turn.get("auto") else "Revealed"
        self.write(f"{head}: " + "; ".join(parts + dummy_parts))

    def _table(self, header: Sequence[str], rows: Sequence[Sequence[str]]) -> None:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        for cells in [header, *rows]:
            parts = [c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
            self.write("  " + "  ".join(parts))

    def _round_summary(self, state: State, r: int) -> None:
        game = state.game
        rs = game.ruleset
        self.write("")
        self.write(f"=== End of round {r + 1} of {rs.rounds} ===")
        width = max(len(self.names.long(s)) for s in range(game.num_seats)) + 1
        for s in range(game.num_seats):
            self.write(f"  {(self.names.long(s) + ':').ljust(width)}  {grouped(rs, self.tables[s])}")
        rule_ids = [rule.id for rule in rs.round_rules]
        totals_after = [sum(state.round_scores[k][s] for k in range(r + 1)) for s in range(game.num_seats)]
        rows = []
        for s in range(game.num_seats):
            by_rule = [state.rule_points[rid][s] - self.rule_points[rid][s] for rid in rule_ids]
            rows.append([self.names.long(s), *map(str, by_rule), str(state.round_scores[r][s]), str(totals_after[s])])
        for rid in rule_ids:
            self.rule_points[rid] = state.rule_points[rid][:]
        self.write(f"Points in round {r + 1}:")
        self._table(["seat", *rule_ids, "round", "total"], rows)

    def _game_end(self, state: State) -> None:
        game = state.game
        rs = game.ruleset
        self.write("")
        self.write("=== Game over ===")
        if rs.game_rules:
            kept = state.kept_cards
            rule_ids = [rule.id for rule in rs.game_rules]
            rows = [[self.names.long(s), grouped(rs, kept[s]),
                     *(str(state.rule_points[rid][s] - self.rule_points[rid][s]) for rid in rule_ids),
                     str(state.game_end_scores[s])] for s in range(game.num_seats)]
            self.write("Game-end points (on the cards kept to the end):")
            self._table(["seat", "kept", *rule_ids, "game end"], rows)
        totals = state.totals()
        self.write("Final totals:")
        self._table(["seat", "points"], [[self.names.long(s), str(totals[s])] for s in range(game.num_seats)])
        winners = state.winners
        if not winners:
            self.write("No winner: the tie is not broken and this game does not share wins.")
        elif len(winners) == 1:
            w = winners[0]
            self.write(f"Winner: {self.names.short(w)}, with {totals[w]} points." + (" Well played!" if w == self.names.human else ""))
        else:
            self.write(f"Shared win: {self.names.list(winners)}, with {totals[winners[0]]} points each.")


# ---------------------------------------------------------------------- the command


def play(
    ruleset: str = typer.Argument(..., help="A bundled ruleset id (sushi-go) or a rule file."),
    players: int = typer.Option(..., "--players", "-p", help="Number of players, you included."),
    seed: int = typer.Option(0, "--seed", "-s", help="Seed of the deal (and of the bots)."),
    bots: str = typer.Option("greedy", "--bots", "-b", help="Bots for the other seats in seat order, comma-separated; the last fills the remaining seats."),
    seat: int = typer.Option(0, "--seat", help="Your seat (0-based)."),
    log: Optional[str] = typer.Option(None, "--log", help="Write the finished game as one JSON line (check it with `ruledraft replay`)."),
    allow_path: List[str] = allow_path_option(),
) -> None:
    """Play a game in the terminal against bots: type a card's number to take it."""
    with reported_errors():
        if ruleset == "-":
            raise InputError("play reads your moves from standard input, so the ruleset cannot come from there (-); give a file or a bundled id")
        rs = get_ruleset(ruleset, allowed_dirs(allow_path))
        game = Game(rs, players)  # checks the player count
        if not 0 <= seat < players:
            raise InputError(f"--seat {seat}: seats are numbered 0-{players - 1} with {players} players")
        others = [s for s in range(players) if s != seat]
        named = [n for n in bots.split(",") if n.strip()]
        if len(named) > len(others):
            raise InputError(f"--bots names {len(named)} bots for the {len(others)} other seat{'s' if len(others) != 1 else ''}")
        bot_names = dict(zip(others, parse_bots(bots, len(others))))
        log_existed = bool(log) and os.path.exists(log)
        if log:  # find out now, not after the game, whether the record can be written
            try:
                open(log, "a", encoding="utf-8").close()
            except OSError as e:
                raise InputError(f"{log}: cannot write: {e.strerror}") from None
        try:
            state = play_game(game, seed, seat, bot_names)
        except (QuitGame, EndOfInput, KeyboardInterrupt) as e:
            if log and not log_existed:
                with contextlib.suppress(OSError):
                    os.remove(log)  # no game to record; an existing file is left as it was
            if isinstance(e, QuitGame):
                typer.echo("You left the game.")
                raise typer.Exit(0)
            typer.echo("")  # end the prompt's line
            if isinstance(e, EndOfInput):
                typer.echo("Input ended before the game did; game abandoned.", err=True)
                raise typer.Exit(1)
            typer.echo("Interrupted; game abandoned.", err=True)
            raise typer.Exit(130)
        if log:
            seat_names = [HUMAN if s == seat else bot_names[s] for s in range(players)]
            try:
                with open(log, "w", encoding="utf-8") as fh:
                    fh.write(json.dumps(record_game(state, seat_names), separators=(",", ":")) + "\n")
            except OSError as e:
                raise InputError(f"{log}: cannot write: {e.strerror}") from None
            typer.echo(f"Game record written to {log} (check it with: ruledraft replay {log}).")


def play_game(game: Game, seed: int, seat: int, bot_names: Dict[int, str],
              read: Optional[Callable[[], str]] = None, write: Optional[Callable[..., None]] = None) -> State:
    """Play one game, the human at ``seat`` and the named bots elsewhere; the finished state.
    Bot ``s`` is seeded with ``bot_seed(seed, s)``, as in simulations."""
    rs = game.ruleset
    write = write or typer.echo
    names = SeatNames(game, seat, bot_names)
    human = HumanAgent(names, read, write)
    agents = [human if s == seat else make_agent(bot_names[s], bot_seed(seed, s)) for s in range(game.num_players)]
    state = game.new_initial_state(seed)
    opponents = ", ".join(names.long(s) for s in range(game.num_seats) if s != seat)
    write(f"{rs.name}: {game.num_players} players, seed {seed}. You are seat {seat}; playing against {opponents}.")
    write("Type a card's number to take it; ? for help, q to quit.")
    reporter = Reporter(state, names, write)
    reporter.after_moves(state)  # a deal that plays itself (hands of one card)
    while not state.is_terminal():
        state.apply_actions([agents[s].act(state, s) for s in state.acting_seats()])
        reporter.after_moves(state)
    return state
