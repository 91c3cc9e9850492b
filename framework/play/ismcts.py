"""The ``ismcts`` bot: information-set Monte Carlo tree search.

Each decision runs a number of iterations. An iteration deals again everything the
seat cannot see (``resample_hidden`` of its view's world: one determinization), walks down the
tree, adds one node, plays the rest of the game out and backs up every seat's reward.
A roll-out (``rollout=values``, the default) lets every seat take the move whose
cards are worth most by the ``planner`` bot's count-aware card values (measured
once per game from the ruleset's own scoring, so they know no card by name); with
``rollout=random`` every seat plays uniformly in the engine's own loop
(``State.play_out``): cheaper, weaker.

Moves are simultaneous, so the tree is decoupled: each node keeps one table of
statistics per seat, every seat picks its own action by UCB from its own table,
and the joint action is applied with ``apply_actions``. A seat's action counts are
kept per action with how often it was available (the other seats' hands differ
between determinizations), and the choice at the root is the most visited action.

Roll-outs by values run in the compiled kernel (:mod:`ruledraft.kernel.rollout`) when
there is one for the ruleset and the state holds nothing it cannot (a replay's deals; a
dummy's world is dealt again in Python, then rolled out in the kernel): the policy draws nothing at random, so the kernel ends each
roll-out with the totals the engine's loop reaches and the search is the same,
iteration for iteration. Where cards have effects, a new node's card effect's decision
and the others its turn asks are played on the engine, the rest in the kernel
(``kernel=auto``, the default: when the kernel's roll-out is compiled in the cache
already, never compiling in the middle of a decision; ``kernel=yes`` compiles it
first if need be, before the run where a command starts it: ``engines.ready_searches``;
``kernel=no``, never).

The bot reads only its seat's view (``legal_actions``, its world) and the scores:
it knows no card by name, so it plays every ruleset, the dummy's controller and
special actions (chopsticks) included.
"""

from __future__ import annotations

import math
import random
import threading
import time
from typing import Any

from ruledraft.engine.view import as_view
from ruledraft.play.bot_specs import BotOption
from ruledraft.play.planner import count_values, policy_action

__all__ = ["DEFAULT_ITERATIONS", "ISMCTSAgent", "KernelUse", "Objective", "Rollout", "kernel_rollouts"]

#: iterations per decision when no budget is given
DEFAULT_ITERATIONS = 400
#: the most iterations, and milliseconds, a decision may be given: a tree grows a node or
#: so an iteration (about 1 kB), so a million iterations hold about a gigabyte
MAX_ITERATIONS = 1_000_000
MAX_MS = 60_000.0


class Objective(str):
    """What the search maximises: ``margin`` (own score minus the best other) or
    ``win`` (1 for a win, 1/k for a win shared by k, else 0)."""

    CHOICES = ("margin", "win")

    def __new__(cls, text: str) -> Objective:
        word = text.strip().lower()
        if word not in cls.CHOICES:
            raise ValueError("expected " + " or ".join(cls.CHOICES))
        return super().__new__(cls, word)


Objective.__name__ = "margin|win"  # how `ruledraft bots` names the option's type


class Rollout(str):
    """How a roll-out plays the rest of the game: ``values`` (every seat takes the move
    whose cards are worth most by the ``planner`` bot's count-aware card values) or
    ``random`` (uniform, in the engine's own loop)."""

    CHOICES = ("values", "random")

    def __new__(cls, text: str) -> Rollout:
        word = text.strip().lower()
        if word not in cls.CHOICES:
            raise ValueError("expected " + " or ".join(cls.CHOICES))
        return super().__new__(cls, word)


Rollout.__name__ = "values|random"


class KernelUse(str):
    """When value roll-outs run in the compiled kernel: ``auto`` (when its roll-out is
    compiled in the cache already), ``yes`` (compiled first if need be: 20-40 s once)
    or ``no``. The results are the same; only the time differs."""

    CHOICES = ("auto", "yes", "no")

    def __new__(cls, text: str) -> KernelUse:
        word = text.strip().lower()
        if word not in cls.CHOICES:
            raise ValueError("expected " + ", ".join(cls.CHOICES[:-1]) + " or " + cls.CHOICES[-1])
        return super().__new__(cls, word)


KernelUse.__name__ = "auto|yes|no"

#: by (id of the ruleset, players, compile): the ruleset (to check the id still names it)
#: and its kernel roll-outs, or None (the engine's loop plays them)
_rollouts: dict[tuple[int, int, bool], tuple[object, Any]] = {}
_loading = threading.Lock()


def kernel_rollouts(game: Any, compile: bool = False) -> Any:
    """The compiled kernel's value roll-outs of ``game`` (a ``kernel.rollout.Rollouts``),
    or None where there is none: numba missing, a ruleset the kernel cannot play, or
    (unless ``compile``) a roll-out not compiled in the cache yet. Loaded (importing
    numba: a second or two) once per process."""
    key = (id(game.ruleset), game.num_players, compile)
    known = _rollouts.get(key)
    if known is not None and known[0] is game.ruleset:
        return known[1]
    with _loading:  # a server's table readies it in a thread while a bot may ask (web.tables)
        known = _rollouts.get(key)
        if known is not None and known[0] is game.ruleset:
            return known[1]
        made = _load_rollouts(game, compile)
        _rollouts[key] = (game.ruleset, made)
    return made


def _load_rollouts(game: Any, compile: bool) -> Any:
    import importlib.util

    if importlib.util.find_spec("numba") is None:
        return None
    from ruledraft.kernel import Kernel, compile_kernel, is_cached, ready_apart, source_refusal
    from ruledraft.kernel.effects import blind

    ruleset = game.ruleset
    if ruleset.procedure not in ("standard", "dummy"):  # states the roll-out cannot hold (Rollouts.refuses)
        return None
    if ruleset.effects and blind(ruleset):  # decisions the kernel's policy cannot judge (its look-ahead's)
        return None
    if source_refusal(ruleset, game.num_players) is not None:
        return None
    if not compile and not is_cached(ruleset, "rollout"):
        return None
    kernel = compile_kernel(ruleset, game.num_players, apart=True, loop=False)  # the roll-out alone
    if not isinstance(kernel, Kernel):
        return None
    ready_apart(kernel.path, "rollout")  # compiled in a child process, as the game loop is, and loaded
    return kernel.rollouts(count_values(game))


class _RootDeal:
    """``State.resample_hidden(seat, draw)`` of the root's world, for the kernel's roll-outs:
    the work that is the same at every iteration (which cards of the other hands the seat
    has seen, the pool of the unseen, the roll-out's flat array) done once, and at each
    iteration only the pool dealt again into that array (``kernel.rollout.Redeals``),
    with the same draws in the same order. Only for a world the kernel's roll-out takes
    (no dummy, no pending decision)."""

    def __init__(self, state: Any, seat: int, roll: Any, bits: Any) -> None:
        self.state = state
        self.seat = seat
        self._bits = bits
        known = state.game.procedure.known_hands(state, seat)
        book = state.book
        #: per other seat: the cards of its hand the seat has seen, how many it draws from the pool
        self.others: list[tuple[int, list[int], int]] = []
        kept: list[list[int]] = []
        pool: list[int] = []
        for other, hand in enumerate(state.hands):
            if other == seat:
                kept.append(hand)
                continue
            rest = hand[:]
            seen = []
            # and those every seat knows are in it (a card an effect gave it), as resample_hidden keeps them
            for c in list(known.get(other, ()))[: len(hand)] + (book.known_in_hand[other] if book is not None else []):
                if c in rest:
                    rest.remove(c)
                    seen.append(c)
            self.others.append((other, seen, len(rest)))
            kept.append(seen)
            pool.extend(rest)
        pool.extend(state.deck[state.deck_pos :])
        self.deals = roll.redeals(state, kept, pool)
        #: whether the kernel's shuffle takes a pool this size (else resample_hidden deals)
        self.fits = self.deals.fits
        procedure = state.game.procedure
        actions = getattr(procedure, "action_cards", None)
        #: the seats whose legal actions are their hand's card types in order (no
        #: special action on their table: the turn procedure's hot path), read from a
        #: deal's bitmasks; the others ask the procedure
        self._plain = [
            s != seat and self.deals.masks and actions is not None and not any(row[c] for c in actions)
            for s, row in enumerate(state.counts)
        ]
        self._by_mask: dict[int, list[int]] = {}
        self._hands_now: list[list[int]] | None = None
        self._flat: list[int] = []
        self._own = state.legal_actions(seat)
        self._procedure = procedure
        self._hands = _Hands(state.counts)

    def deal(self) -> list[int]:
        """A re-deal (kept for :meth:`legal`, :meth:`play` and :meth:`world`): the card types
        of each seat's hand as bitmasks."""
        self._hands_now = None
        return self.deals.deal(self._bits)

    def hands(self) -> list[list[int]]:
        """The hands of the last re-deal (new lists at each re-deal)."""
        hands = self._hands_now
        if hands is None:
            flat = self._flat = self.deals.flat()
            hands = self._hands_now = [flat[a:b] for a, b in self.deals.hand_at]
        return hands

    def legal(self, s: int, masks: list[int]) -> list[int]:
        """Seat ``s``'s legal actions in the last re-deal, whose bitmasks are ``masks``."""
        if s == self.seat:
            return self._own
        if self._plain[s]:  # sorted(set(hand)), as the procedure lists them
            m = masks[s]
            legal = self._by_mask.get(m)
            if legal is None:
                legal = self._by_mask[m] = [c for c in range(m.bit_length()) if m >> c & 1]
            return legal
        self._hands.hands = self.hands()
        return self._procedure.legal_actions(self._hands, s)

    def play(self, joint: tuple[int, ...]) -> tuple[list[int], list[int]]:
        """The re-deal played out by the kernel after the first ``joint`` move: totals, winners."""
        return self.deals.play(joint)

    def world(self) -> Any:
        """The last re-deal as a state (what ``resample_hidden`` returns), for a walk down the tree."""
        state = self.state
        hands = self.hands()
        flat = self._flat
        det = state.clone()
        for other, _seen, _n in self.others:
            det.hands[other] = hands[other]
        a, b = self.deals.deck_at
        det.deck = state.deck[: state.deck_pos] + flat[a:b]
        if self.deals.reserve_at:
            det.reserves = [flat[a:b] for a, b in self.deals.reserve_at]
        return det


class _Hands:
    """What the turn procedure reads to list a seat's legal actions: the hands, the tables' counts."""

    __slots__ = ("hands", "counts")

    def __init__(self, counts: list[list[int]]) -> None:
        self.hands: list[list[int]] = []
        self.counts = counts


class _Node:
    """One node of the decoupled tree: per acting seat, per action, the visits, the
    summed reward and how often the action was available; children by joint action."""

    __slots__ = ("stats", "children")

    def __init__(self, seats: int) -> None:
        #: stats[seat][action] = [visits, reward sum, availability]
        self.stats: list[dict[int, list[float]]] = [{} for _ in range(seats)]
        self.children: dict[tuple[int, ...], _Node] = {}


class ISMCTSAgent:
    """Information-set Monte Carlo tree search (decoupled UCT, roll-outs by card values
    or at random); iterations or a time budget per decision."""

    name = "ismcts"
    options = (
        BotOption(
            "iterations", int, DEFAULT_ITERATIONS, "search iterations per decision", minimum=1, maximum=MAX_ITERATIONS
        ),
        BotOption(
            "ms",
            float,
            0.0,
            "time per decision in milliseconds instead of iterations (0: off; not reproducible)",
            0,
            MAX_MS,
            instead_of="iterations",
        ),
        BotOption("objective", Objective, Objective("margin"), "margin (own score minus best other) or win"),
        BotOption("c", float, 0.7, "UCB exploration constant", minimum=0),
        BotOption("rollout", Rollout, Rollout("values"), "values (planner's card values) or random roll-outs"),
        BotOption(
            "kernel", KernelUse, KernelUse("auto"), "value roll-outs compiled: auto (if in the cache), yes or no"
        ),
    )

    def __init__(
        self,
        seed: int = 0,
        iterations: int = DEFAULT_ITERATIONS,
        ms: float = 0.0,
        objective: str = "margin",
        c: float = 0.7,
        rollout: str = "values",
        kernel: str = "auto",
    ) -> None:
        if type(iterations) is not int or iterations < 1:
            raise ValueError(f"iterations must be a whole number of at least 1, not {iterations!r}")
        if not ms >= 0 or math.isinf(ms):
            raise ValueError(f"ms must be a finite number of at least 0, not {ms!r}")
        if not c >= 0 or math.isinf(c):
            raise ValueError(f"c must be a finite number of at least 0, not {c!r}")
        self._objective = str(Objective(objective))
        self._rng = random.Random(seed)
        self.iterations = iterations
        self.ms = float(ms)
        self.c = float(c)
        self.rollout = str(Rollout(rollout))
        self.kernel = str(KernelUse(kernel))

    # ------------------------------------------------------------------ rewards

    def _rewards(self, state: Any) -> list[float]:
        """Each player's reward at the end of a game: its margin over the best other
        seat that can win (its score where there is none), or its share of the win."""
        return self._rewards_of(state.game, state.totals(), state.winners)

    def _rewards_of(self, game: Any, totals: list[int], winners: list[int]) -> list[float]:
        """:meth:`_rewards` of a game ended with ``totals`` and ``winners``."""
        players = game.num_players
        if self._objective == "win":
            share = 1.0 / len(winners) if winners else 0.0
            return [share if s in winners else 0.0 for s in range(players)]
        dummy = game.ruleset.dummy
        rivals = len(totals) if dummy is not None and dummy.can_win else players
        if rivals < 2:  # no other seat can win (a game of one): the margin over nobody, the score itself
            return [float(totals[s]) for s in range(players)]
        # the best other seat's total: the second highest for a seat at the top, else the highest
        top, second = sorted(totals[:rivals], reverse=True)[:2]
        return [float(totals[s] - (second if totals[s] == top else top)) for s in range(players)]

    # ------------------------------------------------------------------ search

    def act(self, view: Any, seat: int) -> int:
        view = as_view(view, seat)
        legal = view.legal_actions()
        if len(legal) == 1:
            return int(legal[0])
        root = self.search(view, seat)
        stats = root.stats[seat]
        # most visited; ties by the better mean, then the smaller action number
        return max(legal, key=lambda a: (stats[a][0], stats[a][1] / stats[a][0] if stats[a][0] else 0.0, -a))

    def search(self, view: Any, seat: int) -> _Node:
        """The tree grown from ``view`` (the seat's view, or a state to make it of) for
        ``seat`` within the budget."""
        view = as_view(view, seat)
        root = _Node(view.players)
        state = view.world()  # the unseen cards in one fixed order: the search depends only on what the seat knows
        rng = self._rng
        draw = rng.random
        #: the largest reward size seen so far: margins are scaled into [-1, 1] by it
        scale = [1.0]
        # the kernel's roll-outs (loaded before the clock starts), or None: the engine's loop
        roll = None
        if self.rollout == "values" and self.kernel != "no":
            roll = kernel_rollouts(state.game, compile=self.kernel == "yes")
            if roll is not None and roll.refuses(state) is not None:
                roll = None
        # (a dummy's world is dealt again by resample_hidden, then rolled out in the kernel)
        deal = (
            None
            if roll is None or roll.dummy or state.pending is not None
            else _RootDeal(state, seat, roll, rng.getrandbits)
        )
        if deal is not None and not deal.fits:
            deal = None
        if self.ms > 0:
            deadline = time.perf_counter() + self.ms / 1000.0
            self._iterate(state, seat, root, draw, scale, roll, deal)
            while time.perf_counter() < deadline:
                self._iterate(state, seat, root, draw, scale, roll, deal)
        else:
            for _ in range(self.iterations):
                self._iterate(state, seat, root, draw, scale, roll, deal)
        return root

    def _choose(self, table: dict[int, list[float]], legal: list[int], draw: Any, sc: float) -> int:
        """A seat's action among ``legal`` by UCB from its ``table`` (an untried one first, at
        random), each counted as available."""
        if len(legal) == 1:
            a = legal[0]
            entry = table.get(a)
            if entry is None:
                entry = table[a] = [0, 0.0, 0]
            entry[2] += 1
            return a
        c = self.c
        log = math.log
        sqrt = math.sqrt
        get = table.get
        untried = []
        best_a, best_v = legal[0], -math.inf
        for a in legal:
            entry = get(a)
            if entry is None:
                table[a] = [0, 0.0, 1]
                untried.append(a)
                continue
            n, total, seen = entry
            seen += 1
            entry[2] = seen
            if n == 0:
                untried.append(a)
            elif not untried:  # once one is untried, no action's bound is needed
                v = total / (n * sc) + c * sqrt(log(seen) / n)
                if v > best_v:
                    best_a, best_v = a, v
        if untried:
            best_a = untried[int(draw() * len(untried))]
        return best_a

    def _iterate(
        self, state: Any, seat: int, root: _Node, draw: Any, scale: list[float], roll: Any = None, deal: Any = None
    ) -> None:
        players = state.game.num_players
        choose = self._choose
        path: list[tuple[_Node, tuple[int, ...], tuple[int, ...]]] = []
        node = root
        if deal is None:
            det = state.resample_hidden(seat, draw)
        else:  # the kernel's roll-outs from the root's own deal (see _RootDeal)
            masks = deal.deal()  # draws what resample_hidden draws
            seats = state.acting_seats()
            key = tuple([choose(root.stats[s], deal.legal(s, masks), draw, scale[0]) for s in seats])
            path.append((root, seats, key))
            child = root.children.get(key)
            if child is None:  # a new node: the kernel plays the joint move and the rest
                root.children[key] = _Node(players)
                totals, winners = deal.play(key)
                self._back_up(path, self._rewards_of(state.game, totals, winners), scale)
                return
            det = deal.world()
            det.apply_actions(key)
            node = child
        while not det.finished:
            # a pending decision is a simultaneous node with one acting seat
            seats = det.acting_seats()
            key = tuple([choose(node.stats[s], det.legal_actions(s), draw, scale[0]) for s in seats])
            path.append((node, seats, key))
            child = node.children.get(key)
            if child is None:
                node.children[key] = _Node(players)
                if roll is not None:  # the kernel plays the joint move and the rest (see _kernel_rewards)
                    self._back_up(path, self._kernel_rewards(roll, det, key), scale)
                    return
                det.apply_actions(key)
                break
            det.apply_actions(key)
            node = child
        if det.finished:
            rewards = self._rewards(det)
        else:  # (with the kernel's roll-outs, a new node has returned above)
            if self.rollout == "values":
                values = count_values(det.game)
                while not det.finished:
                    det.apply_actions([policy_action(det, s, values) for s in det.acting_seats()])
            else:
                det.play_out([draw] * players)
            rewards = self._rewards(det)
        self._back_up(path, rewards, scale)

    def _kernel_rewards(self, roll: Any, det: Any, key: tuple[int, ...]) -> list[float]:
        """Each seat's reward of the roll-out from ``det`` after the joint move ``key``, in the
        kernel. Where cards have effects and ``key`` is a card effect's decision, it and the
        rest of its turn's decisions (by the roll-out's policy) are played here first: the
        kernel starts at a turn's start."""
        if not roll.effects or det.pending is None:
            totals, winners = roll.play(det, key)
            return self._rewards_of(det.game, totals, winners)
        det.apply_actions(key)
        values = count_values(det.game)
        while det.pending is not None:
            det.apply_actions([policy_action(det, s, values) for s in det.acting_seats()])
        if det.finished:
            return self._rewards(det)
        totals, winners = roll.play(det)
        return self._rewards_of(det.game, totals, winners)

    @staticmethod
    def _back_up(
        path: list[tuple[_Node, tuple[int, ...], tuple[int, ...]]], rewards: list[float], scale: list[float]
    ) -> None:
        """Every seat's reward added to the action it took at each node of ``path``."""
        biggest = max(abs(r) for r in rewards)
        if biggest > scale[0]:
            scale[0] = biggest
        for n_, seats, key in path:
            stats = n_.stats
            for s, a in zip(seats, key):
                entry = stats[s][a]
                entry[0] += 1
                entry[1] += rewards[s]
