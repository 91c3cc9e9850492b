"""Any ruleset as an OpenSpiel game (``pip install 'ruledraft[openspiel]'``).

Importing this module registers the Python game ``ruledraft`` with OpenSpiel::

    import pyspiel
    import ruledraft.openspiel  # registers "ruledraft"

    game = pyspiel.load_game("ruledraft", {"ruleset": "sushi-go-party-party-sampler", "players": 3})

Parameters: ``ruleset`` (a bundled id or a rule file's path; default ``sushi-go``),
``players`` (0, the default: the ruleset's fewest), ``deals`` (how many different
deals the chance node chooses among; default 65536, at most 1,048,576) and ``returns`` (``points``, the
default: each player's final score; or ``win``: 1 shared equally by the winners).

* **Moves are simultaneous.** While the players pick, ``current_player()`` is
  ``pyspiel.PlayerId.SIMULTANEOUS`` and every player has legal actions; while a card
  effect waits for one seat's choice (a Party menu, a spoon), that seat alone moves
  (``current_player()`` is its number), as in the engine's ``State.acting_seats()``.
  Actions are the engine's (``Game.decode_action``); ``action_to_string`` words them.
* **Chance is one explicit node: the deal.** The engine draws every shuffle of a game
  (the deal, the reshuffles between rounds, the cards a menu draws) from one seed;
  the first node of a game is a chance node whose outcome ``i`` (uniform among
  ``deals``) is that seed, so outcome ``i`` plays the engine's game
  ``Game.new_initial_state(i)``. A chance node per card dealt would describe the same
  distribution over games (a uniform shuffle), with thousands of nodes per game, and
  would lose the engine's reproducible seeds. No player observes the outcome: it
  shows only through the cards a seat is dealt and later sees.
* **Observations** go through an observer (``game.make_py_observer``, so
  ``pyspiel``'s ``observation_tensor``, ``information_state_tensor`` and their
  strings work). The observation tensor is the engine's encoder vector
  (:class:`ruledraft.engine.encoding.Encoder`, the same as the PettingZoo
  environments'); the information-state tensor adds every earlier round's tables by
  seat and type. The observation string is the seat's view now; the
  information-state string is every view the seat has had, with its own moves
  (perfect recall). Both are one player's: public information and that player's
  own (``IIGObservationType(public_info=True, private_info=SINGLE_PLAYER)``, with
  or without ``perfect_recall``); an observer of any other type (public only, every
  player's private information) is refused with a ``ValueError``, never answered
  with the player's hand.
* **Serialization**: OpenSpiel's own (the chance outcome and the moves), so
  ``pyspiel.serialize_game_and_state`` / ``deserialize_game_and_state`` and pickling
  work.

* **Turn by turn, for information-set search**: ``ruledraft_turns`` (same
  parameters) is the same game with the picks taken one seat after another, each
  hidden from the seats after it until the turn is played, and states that
  determinize themselves (``resample_from_infostate``): OpenSpiel's Python
  ``ISMCTSBot`` (``open_spiel.python.algorithms.ismcts``) plays it. Its C++
  ``pyspiel.ISMCTSBot`` cannot play a Python game (see :class:`RuledraftTurnsGame`).

What a seat may see is read through one function, :func:`seat_view`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:
    import pyspiel
except ImportError as e:  # pragma: no cover - the extra is installed wherever the tests run
    raise ImportError("ruledraft.openspiel needs OpenSpiel: pip install 'ruledraft[openspiel]'") from e

from ruledraft.engine.encoding import encoder_for
from ruledraft.engine.records import Observation
from ruledraft.engine.state import Game, State
from ruledraft.errors import IllegalMoveError, InputError, whole_number

__all__ = [
    "DEFAULT_PARAMS",
    "GAME_TYPE",
    "TURNS_GAME_TYPE",
    "RuledraftGame",
    "RuledraftState",
    "RuledraftTurnsGame",
    "RuledraftTurnsState",
    "seat_view",
]

#: the game's parameters and their defaults
DEFAULT_PARAMS: dict[str, Any] = {"ruleset": "sushi-go", "players": 0, "deals": 1 << 16, "returns": "points"}
#: the most chance outcomes a game's deal may have (its chance node lists every one)
MAX_DEALS = 1 << 20
#: what ``returns`` takes
RETURNS = ("points", "win")
#: the most players any ruleset allows (a ruleset's own range is checked when loaded)
MAX_PLAYERS = 10


def _game_type(
    short_name: str,
    long_name: str,
    dynamics: Any,
    information_state_tensor: bool,
    utility: Any = pyspiel.GameType.Utility.GENERAL_SUM,
) -> Any:
    """The ``pyspiel.GameType`` of one of this module's games: what differs is named
    (``utility``: constant-sum for ``returns=win``, whose returns always add up to 1)."""
    return pyspiel.GameType(
        short_name=short_name,
        long_name=long_name,
        dynamics=dynamics,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=1,
        provides_information_state_string=True,
        provides_information_state_tensor=information_state_tensor,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=DEFAULT_PARAMS,
    )


GAME_TYPE = _game_type(
    "ruledraft",
    "ruledraft card-drafting ruleset",
    pyspiel.GameType.Dynamics.SIMULTANEOUS,
    information_state_tensor=True,
)


def _constant_sum(game_type: Any) -> Any:
    """``game_type`` as a constant-sum game (``returns=win``: OpenSpiel checks that a game
    giving ``utility_sum`` says so)."""
    return _game_type(
        game_type.short_name,
        game_type.long_name,
        game_type.dynamics,
        game_type.provides_information_state_tensor,
        pyspiel.GameType.Utility.CONSTANT_SUM,
    )


def seat_view(state: State, seat: int) -> Observation:
    """What ``seat`` may see of ``state``: the one place this module reads a seat's view."""
    return state.observation(seat)


def _load(ruleset: str, players: int) -> Game:
    from ruledraft.language.loading import load_ruleset

    compiled = load_ruleset(ruleset)
    return Game(compiled, players or compiled.min_players)


def _utility_bound(game: Game) -> float:
    """OpenSpiel's utility bound for ``returns=points``: an estimate, ten times the
    largest total of eight random games, times the rounds. The language's hard bound
    (10**15 per rule and scoring, as the RL spaces use) holds for certain but would be
    useless to an algorithm that scales values by it."""
    import random

    best = 1
    for seed in range(8):
        state = game.new_initial_state(seed)
        rngs = [random.Random(seed * 31 + s).random for s in range(game.num_players)]
        state.play_out(rngs)
        best = max(best, *(abs(t) for t in state.totals()))
    return float(10 * best * game.ruleset.rounds)


class RuledraftGame(pyspiel.Game):
    """A ruleset at a table: makes states and observers."""

    #: the game type registered (the turn-by-turn game has its own)
    game_type = GAME_TYPE
    #: whether the seats move one after another (a move per seat and turn)
    in_turn = False

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**DEFAULT_PARAMS, **(params or {})}
        if params["returns"] not in RETURNS:
            raise InputError(f"returns must be one of {', '.join(RETURNS)}, not {params['returns']!r}")
        if not 1 <= int(params["deals"]) <= MAX_DEALS:
            raise InputError(f"deals must be from 1 to {MAX_DEALS:,}, not {params['deals']}")
        self.engine_game = game = _load(str(params["ruleset"]), int(params["players"]))
        self.deals = int(params["deals"])
        self.returns_kind = str(params["returns"])
        bound = 1.0 if self.returns_kind == "win" else _utility_bound(game)
        # the longest game: every turn of every round, each with a decision or two per seat
        turns = game.ruleset.rounds * game.hand_size * (1 + 4 * game.num_players if game.general else 1)
        super().__init__(
            _constant_sum(self.game_type) if self.returns_kind == "win" else self.game_type,
            pyspiel.GameInfo(
                num_distinct_actions=game.num_distinct_actions,
                max_chance_outcomes=self.deals,
                num_players=game.num_players,
                min_utility=0.0 if self.returns_kind == "win" else -bound,
                max_utility=bound,
                utility_sum=1.0 if self.returns_kind == "win" else None,
                max_game_length=turns * (game.num_players if self.in_turn else 1) + 1,
            ),
            {**params, "players": game.num_players},
        )
        self.encoder = encoder_for(game)

    def new_initial_state(self) -> RuledraftState:
        return RuledraftState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> RuledraftObserver:
        return RuledraftObserver(self, iig_obs_type, params)


def _deal(action: int, deals: int) -> int:
    """The chance node's outcome ``action``, one of the ``deals`` it lists."""
    if not 0 <= action < deals:
        raise IllegalMoveError(f"deal {action} is not an outcome of the chance node (0 to {deals - 1})")
    return action


class _Held:
    """The engine state inside an OpenSpiel state: OpenSpiel clones a Python state by
    deep-copying its attributes (here the engine's own cheap ``clone``) and serializes
    it by pickling them (here nothing: the state is played again from its moves)."""

    __slots__ = ("state",)

    def __init__(self, state: State | None = None) -> None:
        self.state = state

    def __deepcopy__(self, memo: dict[int, Any]) -> _Held:
        return _Held(None if self.state is None else self.state.clone())

    def __reduce__(self) -> tuple[type[_Held], tuple[()]]:
        return (_Held, ())


class RuledraftState(pyspiel.State):
    """One moment of one game: a chance node (the deal), then the engine's state."""

    def __init__(self, game: RuledraftGame) -> None:
        super().__init__(game)
        #: the chance outcome (the engine's seed; None before the deal) and the moves since
        self.deal: int | None = None
        self.moves: list[tuple[int, ...]] = []
        self._held = _Held()
        #: per player, its views so far with its own moves (the information-state string)
        self.memory: list[list[str]] = [[] for _ in range(game.engine_game.num_players)]

    @property
    def game(self) -> RuledraftGame:
        game: RuledraftGame = self.get_game()
        return game

    @property
    def engine(self) -> State | None:
        """The engine's state (None before the deal); after deserializing, played again from the moves."""
        held = self._held
        if held.state is None and self.deal is not None:
            state = self.game.engine_game.new_initial_state(self.deal)
            for joint in self.moves:
                state.apply_actions(list(joint))
            held.state = state
        return held.state

    # ---------------------------------------------------------------- the moves

    def current_player(self) -> int:
        engine = self.engine
        if engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        if engine.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        if engine.pending is not None:
            return engine.pending.seat
        return int(pyspiel.PlayerId.SIMULTANEOUS)

    def _legal_actions(self, player: int) -> list[int]:
        engine = self.engine
        if engine is None or player < 0:
            return []
        return sorted(engine.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        deals = self.game.deals
        p = 1.0 / deals
        return [(i, p) for i in range(deals)]

    def _apply_action(self, action: int) -> None:
        engine = self.engine
        action = whole_number(action, "action")  # 1.7 is no action (int() would play 1)
        if engine is None:
            self.deal = _deal(action, self.game.deals)
            self._remember({})
            return
        seat = self.current_player()
        engine.apply_actions([action])
        self.moves.append((action,))
        self._remember({seat: action})

    def _apply_actions(self, actions: list[int]) -> None:
        engine = self.engine
        assert engine is not None
        joint = tuple(whole_number(a, "action") for a in actions)
        engine.apply_actions(list(joint))
        self.moves.append(joint)
        self._remember(dict(enumerate(joint)))

    def _remember(self, moves: dict[int, int]) -> None:
        """Add to each player's memory its own move (if it made one) and its view now."""
        engine = self.engine
        assert engine is not None
        game = self.game.engine_game
        for seat, memory in enumerate(self.memory):
            if seat in moves:
                memory.append(f"played {moves[seat]}")
            memory.append(_view_text(game, seat_view(engine, seat)))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        engine = self.engine
        game = self.game.engine_game
        if engine is not None and engine.pending is not None and engine.pending.seat == player:
            return game.decision_to_string(action)
        return game.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.is_terminal()

    def returns(self) -> list[float]:
        engine = self.engine
        players = self.game.engine_game.num_players
        if engine is None or not engine.is_terminal():
            return [0.0] * players
        if self.game.returns_kind == "win":
            winners = engine.winners
            return [1.0 / len(winners) if s in winners else 0.0 for s in range(players)]
        return [float(t) for t in engine.totals()[:players]]

    def __str__(self) -> str:
        engine = self.engine
        if engine is None:
            return "before the deal"
        ids = self.game.engine_game.ruleset.catalogue.ids
        lines = [f"round {engine.round + 1}, turn {engine.turn + 1}"]
        for s, hand in enumerate(engine.hands):
            lines.append(
                f"seat {s}: hand {' '.join(ids[c] for c in hand)}; table {' '.join(ids[c] for c in engine.played[s])}"
            )
        return "\n".join(lines)


def _view_text(game: Game, view: Observation) -> str:
    """One seat's view as one line of text."""
    parts = [f"round {view.round} turn {view.turn}", f"hand {' '.join(sorted(view.hand))}"]
    for s, table in enumerate(view.played):
        parts.append(f"table {s}: {' '.join(table)}")
    for s, kept in enumerate(view.kept):
        if kept:
            parts.append(f"kept {s}: {' '.join(kept)}")
    for s, hand in sorted(view.known_hands.items()):
        parts.append(f"hand {s}: {' '.join(sorted(hand))}")
    parts.append("scores " + " ".join(map(str, view.scores)))
    if view.pending is not None:
        ids = game.ruleset.catalogue.ids
        shown = " ".join(ids[c] for c in view.pending.shown)
        parts.append(f"deciding for {ids[view.pending.card]}: {view.pending.prompt} [{shown}]")
    return "; ".join(parts)


def _one_players(iig_obs_type: Any) -> bool:
    """``perfect_recall`` of an observation type that is one player's view (public
    information and that player's own, OpenSpiel's default); a ``ValueError`` for any
    other type: a public-only observation must not hold the player's hand."""
    if iig_obs_type is None:
        return False
    if not iig_obs_type.public_info or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER:
        raise ValueError(
            "ruledraft observes one player's view (public information and that player's own:"
            " IIGObservationType(public_info=True, private_info=PrivateInfoType.SINGLE_PLAYER)),"
            f" not public_info={iig_obs_type.public_info}, private_info={iig_obs_type.private_info}"
        )
    return bool(iig_obs_type.perfect_recall)


class RuledraftObserver:
    """OpenSpiel's observer: the observation (the encoder's vector, the view now) or
    the information state (adding the earlier rounds' tables; every view so far)."""

    def __init__(self, game: RuledraftGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.game = game
        self.perfect_recall = _one_players(iig_obs_type)
        engine_game = game.engine_game
        encoder = game.encoder
        pieces: list[tuple[str, int, tuple[int, ...]]] = [(f.name, f.size, (f.size,)) for f in encoder.fields]
        if self.perfect_recall:
            rounds, seats, types = engine_game.ruleset.rounds, engine_game.num_seats, engine_game.num_card_types
            pieces.append(("earlier_tables", rounds * seats * types, (rounds, seats, types)))
        self.tensor = np.zeros(sum(size for _, size, _ in pieces), np.float32)
        self.dict: dict[str, np.ndarray] = {}
        at = 0
        for name, size, dims in pieces:
            self.dict[name] = self.tensor[at : at + size].reshape(dims)
            at += size

    def set_from(self, state: RuledraftState, player: int) -> None:
        self.tensor.fill(0)
        engine = state.engine
        if engine is None:
            return
        encoder = self.game.encoder
        self.tensor[: encoder.size] = encoder.encode(seat_view(engine, player))
        if self.perfect_recall:
            seats = encoder.layout.relative_seats(player)
            earlier = self.dict["earlier_tables"]
            for r, record in enumerate(engine.history):
                if record.counts is None:
                    continue
                for rel, s in enumerate(seats):
                    earlier[r, rel] = record.counts[s]

    def string_from(self, state: RuledraftState, player: int) -> str:
        engine = state.engine
        if engine is None:
            return ""
        if self.perfect_recall:
            return "\n".join(state.memory[player])
        return _view_text(self.game.engine_game, seat_view(engine, player))


pyspiel.register_game(GAME_TYPE, RuledraftGame)


# ---------------------------------------------------------------- turn by turn, for information-set search

TURNS_GAME_TYPE = _game_type(
    "ruledraft_turns",
    "ruledraft card-drafting ruleset, picks taken in turn",
    pyspiel.GameType.Dynamics.SEQUENTIAL,
    information_state_tensor=False,
)


class RuledraftTurnsGame(RuledraftGame):
    """The same game with the simultaneous picks taken one seat after another, each
    hidden from the seats after it until the turn is played (what
    ``pyspiel.convert_to_turn_based`` does), written in Python so that a state can be
    determinized: :meth:`RuledraftTurnsState.resample_from_infostate`, which OpenSpiel's
    information-set MCTS (``open_spiel.python.algorithms.ismcts.ISMCTSBot``) calls.
    OpenSpiel's C++ ``ISMCTSBot`` cannot use it: a Python game's states do not pass
    ``ResampleFromInfostate`` to C++ and the Python binding of that bot takes no
    resampler (open_spiel 2.0)."""

    game_type = TURNS_GAME_TYPE
    in_turn = True

    def new_initial_state(self) -> RuledraftTurnsState:
        return RuledraftTurnsState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> TurnsObserver:  # type: ignore[override]
        return TurnsObserver(self, iig_obs_type, params)


class RuledraftTurnsState(pyspiel.State):
    """A state of :class:`RuledraftTurnsGame`: the engine's state, the picks chosen so
    far this turn (seat -> action) and each seat's own moves."""

    def __init__(self, game: RuledraftTurnsGame) -> None:
        super().__init__(game)
        self.deal: int | None = None
        #: the joint moves the engine's state has played since the deal
        self.moves: list[tuple[int, ...]] = []
        #: each time the hidden cards were dealt again (:meth:`resample_from_infostate`):
        #: after how many of ``moves``, for which player, with which seed
        self.resamples: list[tuple[int, int, int]] = []
        self._held = _Held()
        self.chosen: dict[int, int] = {}
        #: per seat, its own moves and its views so far, at the deal and after each turn
        #: (what it knows: its information state recalls every one of them)
        self.own: list[list[int]] = [[] for _ in range(game.engine_game.num_players)]
        self.views: list[list[str]] = [[] for _ in range(game.engine_game.num_players)]

    @property
    def engine(self) -> State | None:
        """The engine's state (None before the deal); after deserializing, played again
        from the deal, the moves and the re-deals."""
        held = self._held
        if held.state is None and self.deal is not None:
            state = self.get_game().engine_game.new_initial_state(self.deal)
            for done in range(len(self.moves) + 1):
                for at, player, seed in self.resamples:
                    if at == done:
                        state = state.resample_hidden(player, _draws(seed))
                if done < len(self.moves):
                    state.apply_actions(list(self.moves[done]))
            held.state = state
        return held.state

    def put(self, world: State, player: int, seed: int) -> None:
        """Play on from ``world``, this state's hidden cards dealt again for ``player``
        by the draws of ``seed`` (kept, so that a pickled copy deals them again)."""
        self._held = _Held(world)
        self.resamples.append((len(self.moves), player, seed))

    def _waiting(self) -> list[int]:
        engine = self.engine
        assert engine is not None
        return [s for s in engine.acting_seats() if s not in self.chosen]

    def current_player(self) -> int:
        engine = self.engine
        if engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        if engine.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return self._waiting()[0]

    def _legal_actions(self, player: int) -> list[int]:
        engine = self.engine
        if engine is None or engine.is_terminal() or player != self.current_player():
            return []
        return sorted(engine.legal_actions(player))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        deals = self.get_game().deals
        return [(i, 1.0 / deals) for i in range(deals)]

    def _apply_action(self, action: int) -> None:
        engine = self.engine
        action = whole_number(action, "action")  # 1.7 is no action (int() would play 1)
        if engine is None:
            self.deal = _deal(action, self.get_game().deals)
            self._held = _Held(self.get_game().engine_game.new_initial_state(self.deal))
            self._remember()
            return
        seat = self.current_player()
        if action not in engine.legal_actions(seat):  # refused now, not when the turn's last seat moves
            raise IllegalMoveError(f"seat {seat}: {action} is not a legal action now")
        self.chosen[seat] = action
        self.own[seat].append(action)
        if not self._waiting():
            joint = tuple(self.chosen[s] for s in engine.acting_seats())
            engine.apply_actions(list(joint))
            self.moves.append(joint)
            self.chosen = {}
            self._remember()

    def _remember(self) -> None:
        """Add each seat's view now to what it has seen."""
        engine = self.engine
        assert engine is not None
        game = self.get_game().engine_game
        for seat, views in enumerate(self.views):
            views.append(_view_text(game, seat_view(engine, seat)))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {action}"
        engine = self.engine
        game = self.get_game().engine_game
        if engine is not None and engine.pending is not None and engine.pending.seat == player:
            return game.decision_to_string(action)
        return game.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.is_terminal()

    def returns(self) -> list[float]:
        engine = self.engine
        players = self.get_game().engine_game.num_players
        if engine is None or not engine.is_terminal():
            return [0.0] * players
        if self.get_game().returns_kind == "win":
            winners = engine.winners
            return [1.0 / len(winners) if s in winners else 0.0 for s in range(players)]
        return [float(t) for t in engine.totals()[:players]]

    def key(self, player: int) -> str:
        """What ``player`` knows: its views at the deal and after each turn, its view
        now, its own moves, and its pick this turn if it has chosen (the picks of the
        seats before it this turn are hidden). Perfect recall: two histories it saw
        differently never share a key, though their views now are alike (an earlier
        round's tables). The view now is read afresh: in a world dealt again for
        another seat (:meth:`resample_from_infostate`) this seat's hand is new."""
        engine = self.engine
        if engine is None:
            return ""
        mine = f"chose {self.chosen[player]}; " if player in self.chosen else ""
        moves = " ".join(map(str, self.own[player]))
        now = _view_text(self.get_game().engine_game, seat_view(engine, player))
        return f"{mine}moves {moves}; seen " + " | ".join(self.views[player]) + f"; now {now}"

    def resample_from_infostate(self, player: int, sampler: Any) -> RuledraftTurnsState:
        """A state ``player`` cannot tell from this one: what it cannot see dealt again
        (``State.resample_hidden``), the picks the seats before it made this turn drawn
        again uniformly among their legal ones. (The other seats' own moves are kept:
        they key only the tree's nodes of those seats.)"""
        engine = self.engine
        assert engine is not None
        seed = int(sampler() * (1 << 53))
        draw = _draws(seed)
        new = self.clone()
        world = engine.resample_hidden(player, draw)
        new.put(world, player, seed)
        for seat, views in enumerate(new.views):  # the others' past views were of the real deal: not this world's
            if seat != player:
                views.clear()
        for seat in list(new.chosen):
            if seat != player:
                legal = sorted(world.legal_actions(seat))
                new.chosen[seat] = legal[int(draw() * len(legal))]
        return new

    def __str__(self) -> str:
        engine = self.engine
        if engine is None:
            return "before the deal"
        return f"round {engine.round + 1}, turn {engine.turn + 1}, chosen {sorted(self.chosen)}"


def _draws(seed: int) -> Any:
    """The draws a re-deal of the hidden cards takes (the same for a seed, as it is played again)."""
    import random

    return random.Random(seed).random


class TurnsObserver:
    """The turn-by-turn game's observer: the encoder's vector of the seat's view, and
    as text :meth:`RuledraftTurnsState.key` (with ``perfect_recall``) or the view."""

    def __init__(self, game: RuledraftTurnsGame, iig_obs_type: Any, params: Any) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.game = game
        self.perfect_recall = _one_players(iig_obs_type)
        self.tensor = np.zeros(game.encoder.size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: RuledraftTurnsState, player: int) -> None:
        self.tensor.fill(0)
        engine = state.engine
        if engine is not None:
            self.tensor[:] = self.game.encoder.encode(seat_view(engine, player))

    def string_from(self, state: RuledraftTurnsState, player: int) -> str:
        engine = state.engine
        if engine is None:
            return ""
        if self.perfect_recall:
            return state.key(player)
        return _view_text(self.game.engine_game, seat_view(engine, player))


pyspiel.register_game(TURNS_GAME_TYPE, RuledraftTurnsGame)
