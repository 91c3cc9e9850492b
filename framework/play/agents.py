"""Agents: whoever chooses a seat's action -- bots here, a human in the CLI.

An agent is anything with ``name`` and ``act(view, seat) -> action``. Agents are
found by name through a registry (:func:`register_agent`, :func:`make_agent`), so a
new bot plugs in without touching the runner or the CLI. This module registers the
built-in bots: its own, and the search bots of :mod:`ruledraft.play.planner` and
:mod:`ruledraft.play.ismcts`, which stand below it and know nothing of the registry
(what the bots share lives lower still, in :mod:`ruledraft.play.gains`).

Bots look only at what their seat may know: they are handed the seat's view
(:class:`ruledraft.engine.view.SeatView`), never the live game: its hand, the tables,
the decision it must make, the scores, and worlds dealt again for search. The
built-in bots also take a live ``State`` (they make its view first), for callers of
the older interface. :func:`observe` gives what a seat knows as a record and as the
vector the PettingZoo environments give a learner (:mod:`ruledraft.engine.encoding`).
"""

from __future__ import annotations

import _random
import inspect
import random
import re
from collections.abc import Callable, Sequence
from operator import add
from typing import Any, Protocol

from ruledraft.engine.encoding import encoder_for
from ruledraft.engine.records import Observation
from ruledraft.engine.seeds import private_seed
from ruledraft.engine.state import Game, State
from ruledraft.engine.view import SeatView, act_on_view, as_view, read_kept, read_tables, read_turn, trusted_mover
from ruledraft.errors import ArgumentError, described, stop_behind
from ruledraft.play.bot_specs import (
    BotFailure,
    BotKind,
    BotOption,
    BotRaised,
    BotSpec,
    BotSpecError,
    BotUnmade,
    as_action,
    bot_traceback,
    entry_point_bots,
    entry_point_kind,
    make_checked,
    options_of,
    parse_spec,
    prints_to_stderr,
)
from ruledraft.play.gains import Baseline, returned_by, sampled_gains, with_cards, with_kept
from ruledraft.play.ismcts import ISMCTSAgent
from ruledraft.play.planner import PlannerAgent
from ruledraft.tableau import Tableau

__all__ = [
    "Agent",
    "BotFailure",
    "BotOption",
    "BotSpecError",
    "FirstAgent",
    "GreedyAgent",
    "RandomAgent",
    "ValueAgent",
    "agent_names",
    "bot_kinds",
    "checked_act",
    "is_foreign",
    "make_agent",
    "observe",
    "parse_bot",
    "register_agent",
    "seat_mover",
    "time_budget_note",
]


class Agent(Protocol):
    """A bot: a ``name`` and ``act(view, seat)``, the action it takes (one of
    ``view.legal_actions()``), given the view of its seat (:class:`SeatView`)."""

    name: str

    def act(self, view: Any, seat: int) -> int:  # pragma: no cover - protocol
        """``view``: the :class:`SeatView` of ``seat``."""


AgentFactory = Callable[..., Agent]

_REGISTRY: dict[str, BotKind] = {}
#: what a name --bots gives cannot hold: ':' (options, files), ',' (seats), '=' or spaces
_NOT_IN_A_BOT_NAME = re.compile(r"[:,=\s]")

#: specs parsed so far in this process, by their text (``value:tempura=3``, ``my.py:Bot``)
_SPECS: dict[str, BotSpec] = {}


def register_agent(
    name: str,
    factory: AgentFactory,
    *,
    replace: bool = False,
    options: Sequence[BotOption] | None = None,
    summary: str | None = None,
    card_values: bool = False,
) -> None:
    """Make ``name`` usable wherever bots are named (``--bots greedy,random``).

    ``factory(seed, **options)`` returns a fresh agent seeded with ``seed`` (a game
    seat's :func:`~ruledraft.engine.seeds.private_seed`: one-way, nothing of the deal
    can be worked back from it); the options given on the command line
    (``name:key=value``) are passed by keyword.
    ``options`` declares them (default: the factory's ``options`` attribute);
    ``summary`` is the line ``ruledraft bots`` shows (default: the first line of
    the factory's docstring). A ``card_values`` bot also takes any card id of the
    ruleset as a number, passed as ``values={card id: number}``.
    """
    if not isinstance(name, str) or not name or _NOT_IN_A_BOT_NAME.search(name):
        raise ArgumentError(
            f"a bot's name is a word --bots can give: not empty, no ':', ',', '=' or spaces; not {name!r}"
        )
    if name in _REGISTRY and not replace:
        raise ArgumentError(f"an agent called {name!r} is already registered (replace=True replaces it)")
    if not callable(factory):
        raise ArgumentError(f"factory makes an agent from a seed (a class or a function), not {factory!r}")
    if summary is None:
        doc = inspect.getdoc(factory) or ""
        summary = doc.splitlines()[0] if doc else ""
    _REGISTRY[name] = BotKind(
        name=name,
        factory=factory,
        options=tuple(options) if options is not None else options_of(factory),
        summary=summary,
        card_values=card_values,
    )
    _SPECS.clear()  # a spec parsed before may name the bot replaced


def agent_names() -> list[str]:
    """The bots known by name: registered ones and installed ones (entry points)."""
    return sorted(set(_REGISTRY) | set(entry_point_bots()))


def bot_kinds() -> list[BotKind]:
    """Every bot known by name, sorted (installed ones are loaded to learn their options;
    one that fails to load raises :class:`BotSpecError`)."""
    kinds, failed = bot_kinds_loaded()
    if failed:
        raise failed[0]
    return kinds


def bot_kinds_loaded() -> tuple[list[BotKind], list[BotSpecError]]:
    """Every bot known by name that loads, sorted, and the failure of each installed one
    that does not (``ruledraft bots`` lists the others beside them)."""
    installed = entry_point_bots()
    kinds: list[BotKind] = []
    failed: list[BotSpecError] = []
    for n in agent_names():
        if n in _REGISTRY:
            kinds.append(_REGISTRY[n])
            continue
        try:
            kinds.append(entry_point_kind(n, installed[n]))
        except BotSpecError as e:
            failed.append(e)
    return kinds, failed


def parse_bot(spec: str, card_ids: Sequence[str] | None = None) -> BotSpec:
    """The bot ``spec`` names, with its options checked (:class:`BotSpecError` if not
    usable; with the ruleset's ``card_ids``, card values are checked too)."""
    parsed = parse_spec(spec, _REGISTRY, card_ids)
    _SPECS[spec] = parsed
    return parsed


def make_agent(name: str, seed: int, *, shown: str | None = None, private: bool = False) -> Agent:
    """A new agent for a bot name or spec (``greedy``, ``value:tempura=3``,
    ``mybot.py:MyBot``); ``KeyError`` if a plain name is unknown, :class:`BotSpecError`
    if a spec is not usable, :class:`BotFailure` if a bot not ruledraft's own raises
    as it is made, naming it ``shown`` (default: ``name``; a run names a bot file as
    typed where it makes it from the file's absolute path). A bot not ruledraft's own
    is made with :func:`~ruledraft.engine.seeds.private_seed` of ``seed`` (``private``:
    ``seed`` is that already), from which the game's seed cannot be worked out."""
    kind = _REGISTRY.get(name)
    if kind is not None:
        if kind.factory in _OWN:
            return kind.factory(seed)
        return make_checked(shown or name, kind.factory, seed if private else private_seed(seed), {})
    spec = _SPECS.get(name)
    if spec is None:
        if ":" not in name and name not in entry_point_bots():
            raise KeyError(name)
        spec = parse_bot(name)
    if spec.kind.foreign or spec.kind.factory not in _OWN:
        return spec.make(seed if private else private_seed(seed), checked=True, shown=shown)
    return spec.make(seed, checked=False, shown=shown)


def is_foreign(name: str) -> bool:
    """Whether the bot ``name`` is not one of ruledraft's own: loaded from a file, a
    module or an installed package, or made by a factory given to :func:`register_agent`.
    An error it raises is a :class:`BotFailure` naming it."""
    kind = _REGISTRY.get(name)
    if kind is None:
        spec = _SPECS.get(name)
        kind = None if spec is None else spec.kind
    return kind is not None and (kind.foreign or kind.factory not in _OWN)


def checked_act(agent: Agent, name: str, seen: Any, seat: int, seed: int, *, foreign: bool = True) -> int:
    """``agent.act(view, seat)`` on the seat's view (``seen``: the view, or the live
    state to make it of), with a :class:`BotFailure` naming the bot, the seat, the
    game's seed and the action if its move is not legal, or, for a bot from outside
    (``foreign``), if it raises. A built-in bot whose code reads its view only
    (:data:`_READS_ONLY`) is handed a view that reads the state when asked
    (:func:`ruledraft.engine.view.act_on_view`): the same answers, without copying
    what it does not read."""
    if type(seen) is State and type(agent) in _READS_ONLY:
        action, legal = act_on_view(agent.act, seen, seat)
        if not legal:
            raise illegal_move(name, seat, action, seed)
        return action
    view = as_view(seen, seat)
    if foreign:
        try:
            with prints_to_stderr(descriptor=True):  # its prints never mix with the run's output
                action = as_action(agent.act(view, seat))
        except BotUnmade:  # an isolated bot that could not be made (said so)
            raise
        except BaseException as e:  # noqa: BLE001 - any failure of a bot (its own BaseException too) is one message
            if stop_behind(e):  # Ctrl-C (a KeyboardInterrupt of the bot's own is its failure)
                raise
            how = str(e).splitlines()[0] if isinstance(e, BotRaised) else f"raised {described(e)}"
            detail = e.detail if isinstance(e, BotRaised) else bot_traceback(e)
            raise BotFailure(f"bot '{name}' at seat {seat} {how} (game seed {seed})", detail) from e
    else:
        action = as_action(agent.act(view, seat))
    if not view.is_legal(action):
        raise illegal_move(name, seat, action, seed)
    return action


def seat_mover(
    agent: Agent, name: str, state: State, seed: int, *, foreign: bool, applied_checked: bool = False
) -> Callable[[int], int]:
    """``checked_act`` on ``state`` for one agent, as a function of the seat, for the
    loop that asks the bots of one game turn after turn. ``applied_checked``: the loop
    plays the moves through the procedure's ``apply``, which checks them, and names the
    bot whose move it refuses (:func:`illegal_move`): a built-in bot's pick is then
    not checked twice."""
    if type(agent) in _READS_ONLY:

        def refuse(seat: int, action: Any) -> int:
            raise illegal_move(name, seat, action, seed)

        pick = getattr(agent, "pick", None)
        return trusted_mover(agent.act, state, refuse, forced=True, pick=pick, picks_checked=not applied_checked)
    return lambda seat: checked_act(agent, name, state, seat, seed, foreign=foreign)


def illegal_move(name: str, seat: int, action: Any, seed: int) -> BotFailure:
    """The failure of bot ``name`` at ``seat`` that chose ``action``, not a legal move."""
    try:
        chosen = repr(action)
    except BaseException as e:  # noqa: BLE001 - the bot's own __repr__ failing (a KeyboardInterrupt too) is its failure
        if stop_behind(e):
            raise
        chosen = f"an object of type {type(action).__name__} that cannot be shown"
    return BotFailure(f"bot '{name}' at seat {seat} chose {chosen}, not a legal action (game seed {seed})")


def observe(state, seat: int) -> tuple[Observation, list[float]]:
    """What ``seat`` may know now: ``state.observation(seat)`` and the same as the
    fixed-size vector of :class:`ruledraft.engine.encoding.Encoder` (the observation
    of the PettingZoo environments; ``encoder_for(state.game).fields`` names its parts)."""
    obs = state.observation(seat)
    return obs, encoder_for(state.game).encode(obs)


def time_budget_note(specs: Sequence[str]) -> str | None:
    """A one-line note when one of the bot ``specs`` is an ``ismcts`` bot with a time
    budget (``ismcts:ms=50``): its moves depend on the machine's speed, so the results
    cannot be reproduced. ``None`` when every bot's moves follow from the seed."""
    for text in dict.fromkeys(specs):
        spec = parse_bot(text)
        if spec.kind.factory is ISMCTSAgent and spec.options.get("ms", 0) > 0:
            return (
                f"note: {text} searches for a time, not a number of iterations: its moves depend "
                "on the machine's speed and load, so these results cannot be reproduced (iterations=N can)"
            )
    return None


class RandomAgent:
    """Uniform over the legal actions (chopsticks moves included), seeded."""

    name = "random"

    def __init__(self, seed: int = 0):
        # the C generator itself: the same stream as random.Random(seed), seeded
        # without the Python-level wrapper (a simulation seeds one per seat per game)
        #: the stream this agent draws from. An agent with ``uniform_random`` promises
        #: that ``act`` is ``state.sample_action(seat, uniform_random)``, so a table of
        #: such agents can be played by the engine's tighter loop (State.play_out).
        rng = _random.Random(seed) if type(seed) is int else random.Random(seed)  # str seeds: random's own hashing
        self.uniform_random = rng.random

    def act(self, view, seat: int) -> int:
        return as_view(view, seat).sample_action(self.uniform_random)


class GreedyAgent:
    """Takes the action that most raises its own score as the ruleset's scoring rules
    count it right now (round rules on this round's table, game-end rules on the
    cards kept so far); ties are broken by the seeded RNG.

    It knows nothing of any particular game: it asks each compiled rule, and skips
    rules that cannot see the cards a move changes.
    """

    name = "greedy"

    def __init__(self, seed: int = 0):
        self._rng = random.Random(seed)

    def act(self, view, seat: int) -> int:
        return _act_by_pick(self, view, seat, self._rng)

    def pick(
        self, seat: int, legal: list[int], game: Game, tables: Callable[[], Tableau], kept_tables: Callable[[], Tableau]
    ) -> int:
        """Its move while no decision waits, from what it reads: its legal moves, the
        game, and functions giving this round's tables and the cards kept so far, as
        every seat sees them, only read (:func:`ruledraft.engine.view.trusted_mover`
        hands them without a view: :data:`ruledraft.engine.view.Pick`)."""
        round_t = tables()
        K = game.num_card_types
        kept = game.kept
        score_kept = bool(game.ruleset.game_rules)
        reading = game.round_rules_reading
        gain_now = Baseline(round_t, seat).gain
        kept_t: list[Any] = []  # the cards kept to game end, read when first needed
        to_game_end = None
        best: list[int] = []
        best_gain = None
        for action in legal:
            if action < K:
                # the common case: one card, for this seat only
                gain = gain_now(reading[action], action)
                if kept[action] and score_kept:
                    if to_game_end is None:
                        if not kept_t:
                            kept_t.append(with_kept(kept, kept_tables(), round_t))
                        to_game_end = Baseline(kept_t[0], seat)
                    gain += to_game_end.gain(game.game_rules_reading[action], action)
            else:
                gain = self._gain(game, seat, action, round_t, kept_t, kept_tables)
            if best_gain is None or gain > best_gain:
                best_gain, best = gain, [action]
            elif gain == best_gain:
                best.append(action)
        return best[0] if len(best) == 1 else self._rng.choice(best)

    def _gain(
        self,
        game: Game,
        seat: int,
        action: int,
        round_t: Tableau,
        kept_t: list[Any],
        kept_tables: Callable[[], Tableau],
    ) -> int:
        """Score change for any action: several cards, a dummy's card, kept cards.
        ``round_t``: this round's tables; ``kept_t``: the cards kept to game end once
        read (empty until then: read here when needed, from ``kept_tables()``)."""
        ruleset = game.ruleset
        cards, dummy_card = game.decode_action(action)
        dummy_seat = game.num_players if ruleset.dummy else None
        returned = returned_by(game, round_t.counts[seat], cards)
        changed = set(cards)
        if returned is not None:
            changed.add(returned)
        if dummy_card is not None:
            changed.add(dummy_card)
        hyp = with_cards(round_t, seat, cards, returned)
        if dummy_card is not None and dummy_seat is not None:
            hyp = with_cards(hyp, dummy_seat, (dummy_card,), None)
        gain = 0
        rules = {r for c in changed for r in game.round_rules_reading[c]}
        for rule in ruleset.round_rules:  # in ruleset order, for reproducible sums
            if rule in rules:
                gain += rule.score_seat(hyp, seat) - rule.score_seat(round_t, seat)
        kept = game.kept
        kept_cards = tuple(c for c in cards if kept[c])
        kept_dummy = dummy_card is not None and kept[dummy_card]
        if (kept_cards or kept_dummy) and ruleset.game_rules:
            if not kept_t:
                kept_t.append(with_kept(kept, kept_tables(), round_t))
            kept_now_t = kept_t[0]
            hyp_k = with_cards(kept_now_t, seat, kept_cards, None) if kept_cards else kept_now_t
            if kept_dummy and dummy_card is not None and dummy_seat is not None:
                hyp_k = with_cards(hyp_k, dummy_seat, (dummy_card,), None)
            for rule in ruleset.game_rules:
                gain += rule.score_seat(hyp_k, seat) - rule.score_seat(kept_now_t, seat)
        return gain


def _own_points(state, seat: int) -> int:
    """``seat``'s points so far plus what its table would score at round end now."""
    points = state.totals()[seat]
    if not state.is_terminal():
        points += state.seat_round_points_now(seat)
    return points


def _act_by_pick(bot: Any, view: Any, seat: int, rng: random.Random) -> int:
    """``act`` of a built-in bot with a ``pick`` (:data:`ruledraft.engine.view.Pick`):
    the only legal move, a pending decision judged a step ahead, else its pick, given
    what it reads from its view (the tables read in place on a built-in bot's quick
    view: the bot only reads them, and copies what a move changes)."""
    state = view if isinstance(view, SeatView) else SeatView(view, seat)  # reads as a state does
    legal, pending, game = read_turn(state)
    if len(legal) == 1:
        return legal[0]
    if pending is not None:
        return _best_decision(state, seat, legal, rng)
    pick: Any = bot.pick
    return int(pick(seat, legal, game, lambda: read_tables(state), lambda: read_kept(state)))


def _best_decision(view: SeatView, seat: int, legal: list[int], rng: random.Random) -> int:
    """A one-step look at a pending decision: each option applied to a copy, the one
    that leaves ``seat`` with the most points now (ties: ``rng``). The copy re-deals
    what ``seat`` cannot see (one deal for every option): a decision that asks other
    seats (a spoon) is judged on what the seat knows, never on their real hands."""
    best: list[int] = []
    best_points = None
    seen = view.sample_world(rng.random)
    for action in legal:
        after = seen.clone()
        after.apply_actions([action])
        points = _own_points(after, seat)
        if best_points is None or points > best_points:
            best_points, best = points, [action]
        elif points == best_points:
            best.append(action)
    return best[0] if len(best) == 1 else rng.choice(best)


class FirstAgent:
    """The first legal move: the card listed first; as strong as the ruleset's card order makes it."""

    name = "first"
    #: a promise that ``act`` is the seat's first legal move (``legal_actions()[0]``), so
    #: the loop that plays whole games takes that move without asking (as it draws a
    #: uniform agent's, :attr:`RandomAgent.uniform_random`). It binds this class only: a
    #: subclass with an ``act`` of its own is asked unless it says so again
    first_legal = True

    def __init__(self, seed: int = 0):
        pass

    def act(self, view, seat: int) -> int:
        return as_view(view, seat).legal_actions()[0]

    def pick(
        self, seat: int, legal: list[int], game: Game, tables: Callable[[], Tableau], kept_tables: Callable[[], Tableau]
    ) -> int:
        """Its move while no decision waits (see :meth:`GreedyAgent.pick`)."""
        return legal[0]


#: games of random play sampled for the value bot's default card values
VALUE_SAMPLE_GAMES = 10
_default_values: dict[int, tuple[object, list[float]]] = {}


def default_card_values(game) -> list[float]:
    """What the value bot counts a card type as worth without options: the mean points
    one more card of that type would add, as the ruleset's own scoring rules count
    them (round rules on the round's table, game-end rules on the kept cards), over
    every seat and turn of :data:`VALUE_SAMPLE_GAMES` random games seeded 0, 1, ...
    Computed once per game object."""
    cached = _default_values.get(id(game))
    if cached is not None and cached[0] is game:
        return cached[1]
    sums = [0.0] * game.num_card_types
    samples = 0
    for _row, gains in sampled_gains(game, VALUE_SAMPLE_GAMES):
        sums = list(map(add, sums, gains))
        samples += 1
    values = [round(x / max(samples, 1), 3) for x in sums]
    _default_values[id(game)] = (game, values)
    return values


class ValueAgent:
    """A fixed value per card type: takes the move whose cards are worth most.

    Values come from the options (``value:tempura=3:sashimi=4``, by card id) and,
    for the cards not given, from :func:`default_card_values`. A move's worth is
    the sum of the values of the cards it takes (less a card it hands back, such as
    chopsticks); ties are broken by the seeded RNG.
    """

    name = "value"

    def __init__(self, seed: int = 0, values: dict[str, float] | None = None):
        self._rng = random.Random(seed)
        self._given = dict(values or {})
        self._game: object = None
        self._values: list[float] = []

    def values_for(self, game) -> list[float]:
        """The value of each card type in ``game`` (options over the defaults)."""
        if game is not self._game:
            values = list(default_card_values(game))
            index = game.ruleset.catalogue.index_of
            for card_id, v in self._given.items():
                try:
                    values[index(card_id)] = v
                except KeyError:
                    raise ValueError(f"{game.ruleset.id} has no card '{card_id}'") from None
            self._game, self._values = game, values
        return self._values

    def act(self, view, seat: int) -> int:
        return _act_by_pick(self, view, seat, self._rng)

    def pick(
        self, seat: int, legal: list[int], game: Game, tables: Callable[[], Tableau], kept_tables: Callable[[], Tableau]
    ) -> int:
        """Its move while no decision waits (see :meth:`GreedyAgent.pick`)."""
        values = self._values if game is self._game else self.values_for(game)
        row = None  # the seat's table, read for the first move of several cards
        K = game.num_card_types
        best: list[int] = []
        best_worth = None
        for action in legal:
            if action < K:
                worth = values[action]
            else:
                cards, _dummy = game.decode_action(action)
                worth = sum(values[c] for c in cards)
                if row is None:
                    row = tables().counts[seat]
                returned = returned_by(game, row, cards)
                if returned is not None:
                    worth -= values[returned]
            if best_worth is None or worth > best_worth:
                best_worth, best = worth, [action]
            elif worth == best_worth:
                best.append(action)
        return best[0] if len(best) == 1 else self._rng.choice(best)


#: the built-in bots handed views that read the state when asked (:func:`checked_act`):
#: their code, here, asks its view only and keeps nothing of it past its move
_READS_ONLY: frozenset[type] = frozenset({GreedyAgent, ValueAgent, FirstAgent})

#: the factories of the built-in bots: any other registered one is foreign (:func:`is_foreign`)
_OWN: frozenset[Any] = frozenset({RandomAgent, GreedyAgent, FirstAgent, ValueAgent, PlannerAgent, ISMCTSAgent})

register_agent("random", RandomAgent)
register_agent(
    "greedy",
    GreedyAgent,
    summary="The move that most raises its own score right now, as the ruleset's scoring rules count it.",
)
register_agent("first", FirstAgent)
register_agent(
    "value",
    ValueAgent,
    summary="A fixed value per card type (by card id, e.g. value:tempura=3); cards not "
    "given: the mean points one more of them adds in a fixed sample of random games.",
    card_values=True,
)

register_agent(
    "planner",
    PlannerAgent,
    summary="Values a move by what it is worth at round end: a few deals of the unseen cards, "
    "the rest of the round played out by count-aware card values (planner:samples=8).",
)
register_agent(
    "ismcts",
    ISMCTSAgent,
    summary="Information-set Monte Carlo tree search: determinized, decoupled UCT over "
    "simultaneous moves, roll-outs by card values (ismcts:iterations=800, ismcts:ms=50, rollout=random).",
)
