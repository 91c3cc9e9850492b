"""The drafting engine: a game/state interface every ruleset runs through.

In the spirit of OpenSpiel's Python games:

* :class:`Game` is a compiled ruleset at a table of N players. It makes states.
* :class:`State` is one moment of one game. Moves are simultaneous: every acting
  seat submits one action, then :meth:`State.apply_actions` reveals them all at
  once, resolves special actions, passes the hands and scores rounds.
* Chance is explicit and reproducible: the deck order comes from the seed alone
  (or from logged deals when replaying).

Actions are small integers so states are cheap to copy and bots cheap to run:
a single card is its card index ``c``; several cards taken in order with a
special action (chopsticks) and a pick made for a dummy are encoded by
:meth:`Game.encode_action` / :meth:`Game.decode_action`.

The engine reads only the compiled ruleset: it knows no card by name.
"""

from __future__ import annotations

import _random
import reprlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from itertools import repeat
from typing import Any, NamedTuple

import attrs

from ruledraft.engine.book import EffectBook
from ruledraft.engine.decisions import asked
from ruledraft.engine.procedures import PROCEDURES, RandomFn
from ruledraft.engine.records import Observation, RoundRecord
from ruledraft.engine.scoresheet import (
    ScoreSheet,
    Scoring,
    check_plugin_totals,
    game_rules,
    keep_cards,
    plugin_kinds,
    round_rules,
    score_scoring,
)
from ruledraft.engine.scoresheet import decide_winners as decide_winners  # where it was before the pipeline
from ruledraft.errors import ArgumentError, Diagnostic, IllegalMoveError, InputError, RulesetError, whole_number
from ruledraft.language.decision import Decision
from ruledraft.language.effect import CardEffect
from ruledraft.language.effects import EFFECT_KINDS, has_step, no_step
from ruledraft.language.kinds.registry import PluginError
from ruledraft.language.rule import TurnScoring
from ruledraft.language.ruleset import CompiledRuleset, ExtraPick
from ruledraft.tableau import Tableau

#: why a state method of card effects was called in a game without them (never, on purpose)
NO_BOOK = "only the general path (card effects, races) keeps an effect book"

#: the largest seed a simulation takes or logs: 2**53 - 1, the largest whole number a
#: JSON reader that uses doubles (jq, JavaScript) keeps exactly
MAX_SEED = 2**53 - 1
#: the largest seed the engine's generator tells apart from every other (2**64 - 1)
MAX_ENGINE_SEED = 2**64 - 1
#: deals of another seat's hidden hand tried for one its card effect's decision can be asked of
REHAND_TRIES = 50


def _reordered(arrange: Callable[[list[int]], list[int]], tried: int) -> Callable[[list[int]], list[int]]:
    """``arrange``, its cards then shuffled in a fixed order of try ``tried``'s own: an
    order that depends only on the cards given (a sorted pool stays canonical)."""

    def order(cards: list[int]) -> list[int]:
        return shuffled(arrange(cards), _random.Random(tried))

    return order


class Event(NamedTuple):
    """One thing a card effect or a race did in a turn, in the order it happened
    (:attr:`State.events`): data for a screen to put in words, every part public.
    ``play`` asks the game's effects to word them (``CardEffect.event_line``), so an
    effect (a plug-in's too) may note events of its own.

    ``what`` of the built-in effects and races is one of (cards are card indices,
    seats seat numbers):

    * ``("drew", seat, n, card)``: ``seat``'s ``card`` drew ``n`` cards (only it sees them);
    * ``("returned", seat, n)``: ``seat`` shuffled ``n`` drawn cards back into the deck;
    * ``("played", seat, card, by)``: ``seat`` played ``card`` through its ``by``'s effect;
    * ``("to_hand", seat, card)``: ``card`` went from a table into ``seat``'s hand;
    * ``("asked", seat, asked, by)``: ``seat``'s ``by`` asks the others for ``asked`` (a
      decision action: a card, or ``K + f`` for family ``f``);
    * ``("none", seat, asked)``: ``seat`` held nothing matching ``asked``;
    * ``("gave", giver, owner, card)``: ``giver`` gave ``card`` from its hand to ``owner``,
      who played it;
    * ``("turned", seat, card, face)``: ``seat`` turned its ``card`` face down into ``face``;
    * ``("copied", seat, card, by)``: ``seat``'s ``by`` became a copy of ``card``;
    * ``("discarded", seat, card, why, n)``: ``card`` left ``seat``'s table, discarded,
      ``why`` being ``"collision"`` (``n`` copies were placed this turn), ``"used"`` (its
      effect is done), ``"unmatched"`` (nobody held what it asked for) or
      ``"nothing_to_copy"``;
    * ``("race", rule, seat, place, points, cards)``: at the turn end ``seat`` took
      ``place`` (from 1) of the race rule with id ``rule`` for ``points``, and its
      ``cards`` (faces) left its table, discarded.
    """

    #: the round and the turn in it (both 0-based)
    round: int
    turn: int
    #: the decisions made this round before it (``RoundRecord.decisions``): it comes
    #: after the one with index ``after - 1`` and before the one with index ``after``
    after: int
    what: tuple[Any, ...]


def derive_seed(seed: int, *parts: int) -> int:
    """A seed for a sub-stream (a game of a simulation, a seat's bot, a round's shuffle).

    Pure arithmetic (no hashing of Python objects), so identical on every platform
    and process. The result has 64 bits; a seed that is logged keeps its top 53
    (``derive_seed(...) >> 11``, within :data:`MAX_SEED`).
    """
    x = seed & 0xFFFFFFFFFFFFFFFF
    for p in parts:
        # splitmix64 step mixing in each part
        x = (x + 0x9E3779B97F4A7C15 + (p & 0xFFFFFFFFFFFFFFFF)) & 0xFFFFFFFFFFFFFFFF
        z = x
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & 0xFFFFFFFFFFFFFFFF
        x = z ^ (z >> 31)
    return x


def shuffled(cards: Iterable[int], rng: _random.Random) -> list[int]:
    """A uniformly shuffled copy (sorting by random keys: faster than ``rng.shuffle``
    in pure Python, and just as reproducible).

    The engine seeds ``_random.Random``, the C generator under ``random.Random``:
    the same stream for an integer seed, without the Python-level seeding wrapper.

    The keys are ``rng.random()`` drawn once per card, in the cards' order (a sort
    computes its keys first, left to right), as ``key=lambda _: rng.random()`` would
    draw them; the key function is ``next`` on a lazy map, so no Python-level call
    is made per card.
    """
    out = list(cards)
    out.sort(key=partial(next, map(type(rng).random, repeat(rng, len(out)))))
    return out


def _rules_reading(rules: Sequence[Any], num_card_types: int) -> tuple[tuple[Any, ...], ...]:
    out = []
    for c in range(num_card_types):
        out.append(tuple(r for r in rules if r.reads is None or c in r.reads))
    return tuple(out)


class Game:
    """A compiled ruleset played by ``num_players`` players."""

    def __init__(self, ruleset: CompiledRuleset, num_players: int):
        if not isinstance(ruleset, CompiledRuleset):  # the engine reads no rule file: the caller loads it
            raise InputError(
                f"Game takes a compiled ruleset, not {type(ruleset).__name__} {reprlib.repr(ruleset)}:"
                " ruledraft.Game(ruledraft.load_ruleset(name_or_path), players)"
            )
        num_players = whole_number(num_players, "players")
        if not ruleset.min_players <= num_players <= ruleset.max_players:
            raise InputError(f"{ruleset.name} is for {ruleset.player_range}, not {num_players}")
        self.ruleset = ruleset
        self.num_players = num_players
        self.num_seats = ruleset.num_seats(num_players)
        self.hand_size = ruleset.hand_size(num_players)
        self.num_card_types = K = ruleset.catalogue.size
        self.kept = tuple(c.kept for c in ruleset.catalogue.cards)
        self.kept_types = tuple(i for i, k in enumerate(self.kept) if k)
        held = {c for a in ruleset.additions for c in a.cards}
        #: the deck at the start: every card but those held back for later rounds
        self.deck = tuple(c for c in ruleset.catalogue.deck() if c not in held)
        #: per addition (rounds.add): its held-back cards, and how many join before each round
        self.reserves = tuple(tuple(c for c in ruleset.catalogue.deck() if c in a.cards) for a in ruleset.additions)
        self.added = tuple(a.counts[num_players] for a in ruleset.additions)
        self.actions = ruleset.actions
        self.max_extra = max((a.extra for a in ruleset.actions), default=0)
        #: size of the part of an action that encodes a player's own cards
        self.own_span: int = K * (K + 1) ** self.max_extra
        #: card families a decision may name (action ``K + f``): the cards' tags, sorted
        #: (a family is a tag, not a colour group: Party's nigiri group also holds wasabi)
        self.families: tuple[str, ...] = ruleset.catalogue.tags
        #: the decision action that ends a multi-card choice or declines an optional one
        self.done_action: int = K + len(self.families)
        #: the card effects other than pick-time extra picks; none: the fast paths
        self.effects = ruleset.effects
        #: the round-end rules that also score at the end of every turn (a race): (index
        #: among the round-end rules, its turn-end part)
        self.turn_rules: tuple[tuple[int, TurnScoring], ...] = tuple(
            (i, r.turn_scoring) for i, r in enumerate(ruleset.round_rules) if r.turn_scoring is not None
        )
        self.general = bool(ruleset.effects) or bool(self.turn_rules)
        #: every action is below this: the picks' (a dummy's card times the own part) and,
        #: where card effects ask them, the decisions'
        picks = self.own_span * ((K + 1) if ruleset.dummy else 1)
        self.action_span: int = max(picks, self.done_action + 1) if self.general else picks
        if ruleset.effects and ruleset.procedure != "standard":
            raise InputError(f"{ruleset.name}: card effects need the standard turn procedure")
        if self.turn_rules and ruleset.procedure != "standard":
            raise InputError(f"{ruleset.name}: scoring at the end of each turn needs the standard turn procedure")
        stepless = [i for i, e in enumerate(ruleset.effects) if not has_step(e)]
        if stepless:
            raise RulesetError(self._stepless(ruleset, i) for i in stepless)
        effect_of: list[CardEffect | None] = [None] * K
        for e in ruleset.effects:
            effect_of[e.card] = e
        #: per card index, its effect (None: none, or a pick-time extra pick)
        self.effect_of: tuple[CardEffect | None, ...] = tuple(effect_of)
        self.play_effects = tuple(e if e is not None and e.when == "play" else None for e in effect_of)
        #: whether an effect reads the cards each seat placed earlier this round (``State.round_placed``)
        self.keeps_round = any(e.keeps_round for e in ruleset.effects)
        #: the plug-in effects' kinds (each once): after each turn with them, the cards are
        #: checked to be the deck's still (:meth:`State.check_cards_kept`)
        self.plugin_effects = tuple(
            dict.fromkeys(e.kind for e in ruleset.effects if not EFFECT_KINDS.is_builtin(e.kind))
        )
        self.whole_deck = tuple(sorted(ruleset.catalogue.deck())) if self.plugin_effects else ()
        self.reveal_effects = tuple(e for e in ruleset.effects if e.when == "reveal")
        self.turn_end_effects = tuple(e for e in ruleset.effects if e.when == "turn_end")
        self.procedure = PROCEDURES[ruleset.procedure](self)
        #: the rules scored at each round end, and at game end
        self.round_scoring_rules = round_rules(ruleset)
        self.game_scoring_rules = game_rules(ruleset)
        #: the plug-in kinds of the ruleset's rules (their totals are checked at game end)
        self.plugin_kinds = plugin_kinds(ruleset)
        #: for each card index, the round-end rules whose score can change when it is played
        self.round_rules_reading = _rules_reading(ruleset.round_rules, K)
        #: the same for game-end rules
        self.game_rules_reading = _rules_reading(ruleset.game_rules, K)

    @staticmethod
    def _stepless(ruleset: CompiledRuleset, i: int) -> Diagnostic:
        """The refusal of effect ``i`` of ``ruleset``, which has no step for its trigger, where it is declared."""
        effect = ruleset.effects[i]
        message = no_step(effect.kind, effect.when, ruleset.card_id(effect.card))
        if i < len(ruleset.effect_places):
            return Diagnostic(*ruleset.effect_places[i], message)
        return Diagnostic(ruleset.source, 1, 1, message)

    # ------------------------------------------------------------------ actions

    def special_action_for(self, table_counts: Sequence[int], num_cards: int) -> ExtraPick | None:
        """The special action (chopsticks) that lets a seat with ``table_counts`` (count per
        card index on its table before the turn) take ``num_cards`` cards at once: the
        first in ruleset order whose card is on the table and allows that many. Its card
        then goes back into the hand."""
        if num_cards < 2:
            return None
        for action in self.actions:
            if table_counts[action.card] and action.extra >= num_cards - 1:
                return action
        return None

    def encode_action(self, cards: Sequence[int], dummy: int | None = None) -> int:
        """Cards taken in order (and a card picked for a dummy) -> one action integer;
        :class:`IllegalMoveError` for more cards than a pick takes."""
        if len(cards) > 1 + self.max_extra:
            raise IllegalMoveError(f"{len(cards)} cards in one pick, where a pick takes at most {1 + self.max_extra}")
        K = self.num_card_types
        a = cards[0]
        place = K
        for c in cards[1:]:
            a += place * (c + 1)
            place *= K + 1
        if dummy is not None:
            a += self.own_span * (dummy + 1)
        return a

    def decode_action(self, action: int) -> tuple[tuple[int, ...], int | None]:
        """Inverse of :meth:`encode_action`: (cards in order, dummy card or None)."""
        K = self.num_card_types
        if 0 <= action < K:
            return (action,), None
        if action < 0 or action >= self.action_span:
            raise IllegalMoveError(f"not an action: {action}")
        dummy_part, own = divmod(action, self.own_span)
        cards = [own % K]
        rest = own // K
        while rest:
            rest, digit = divmod(rest, K + 1)
            if digit == 0:
                raise IllegalMoveError(f"not an action: {action}")
            cards.append(digit - 1)
        return tuple(cards), (dummy_part - 1 if dummy_part else None)

    def action_to_string(self, action: int, state: State | None = None) -> str:
        """An action in words; given ``state`` with a pending decision, what the decision action means."""
        if state is not None and state.pending is not None:
            return self.decision_to_string(action)
        cards, dummy = self.decode_action(action)
        ids = self.ruleset.catalogue.ids
        text = " + ".join(ids[c] for c in cards)
        if dummy is not None:
            text += f" (dummy: {ids[dummy]})"
        return text

    def decision_to_string(self, action: int) -> str:
        """A decision action in words: a card id, ``family NAME`` or ``done``."""
        K = self.num_card_types
        if 0 <= action < K:
            return self.ruleset.catalogue.ids[action]
        if K <= action < self.done_action:
            return f"family {self.families[action - K]}"
        if action == self.done_action:
            return "done"
        raise IllegalMoveError(f"not a decision action: {action}")

    def action_from_ids(self, card_ids: Sequence[str], dummy: str | None = None) -> int:
        idx = self.ruleset.catalogue.index_of
        try:
            return self.encode_action([idx(c) for c in card_ids], idx(dummy) if dummy is not None else None)
        except KeyError as e:
            raise IllegalMoveError(f"unknown card {e.args[0]!r}") from None

    @property
    def num_distinct_actions(self) -> int:
        """Size of the action space (for fixed-size policies, e.g. a PettingZoo adapter)."""
        return self.action_span

    # ------------------------------------------------------------------ states

    def new_initial_state(self, seed: int = 0, deals: Sequence[Sequence[Sequence[int]]] | None = None) -> State:
        """A new game: the deck shuffled by ``seed`` and round 1 dealt.

        ``deals`` (one list of hands per round, card indices) replaces the shuffled
        deal, to set up a game from given hands; the cards dealt leave the deck, as
        a shuffled deal's do, so a seat's view of it (and a search bot's sample of
        the unseen cards) holds every card once. ``seed`` is a whole number from 0 to
        2**64 - 1 (:class:`ArgumentError` otherwise: a larger or negative one would play
        another seed's game).
        """
        if type(seed) is not int or not 0 <= seed <= MAX_ENGINE_SEED:
            seed = whole_number(seed, "seed")
            if not 0 <= seed <= MAX_ENGINE_SEED:
                raise ArgumentError(
                    f"seed must be from 0 to 2**64 - 1, not {seed} (the generator would play the game of"
                    f" seed {seed % 2**64})"
                )
        state = State(self, seed, deals)
        state.start_round()
        return state


class State:
    """One moment of a game. Cheap to :meth:`clone`."""

    game: Game
    seed: int
    #: the deck in play order; dealt from ``deck_pos`` on (never changed in place once
    #: dealt from: a reshuffle makes a new list, so clones share it)
    deck: list[int]
    deck_pos: int
    #: the deals given for a replay (one list of hands per round), or None
    forced_deals: Sequence[Sequence[Sequence[int]]] | None
    #: 0-based index of the current round, and turn within it
    round: int
    turn: int
    hands: list[list[int]]
    played: list[list[int]]
    counts: list[list[int]]
    kept_cards: list[list[int]]
    kept_counts: list[list[int]]
    round_scores: list[list[int]]
    game_end_scores: list[int]
    #: each scoring so far (each round end, then game end), by the scoring pipeline
    scorings: list[Scoring]
    #: the finished game's score sheet (None until the game is over)
    sheet: ScoreSheet | None
    #: per round dealt: its deal, turns and (once it has ended) tables
    history: list[RoundRecord]
    #: the dummy procedure's controller (-1: none), its cards drawn this turn, the dummy piles
    controller: int
    drawn: list[int]
    dummy_piles: list[list[int]]
    #: per addition, the held-back cards not yet shuffled in (lists replaced, never changed in place)
    reserves: list[list[int]]
    finished: bool
    winners: list[int]
    #: the decision the turn waits for (None: the picks, or nothing to decide)
    pending: Decision | None
    #: what card effects and races did so far this game, in order (:class:`Event`);
    #: replaced, never changed in place (clones share it); empty without them
    events: tuple[Event, ...]
    #: the bookkeeping of card effects and races (None in a game without them)
    book: EffectBook | None

    __slots__ = tuple(__annotations__)

    def __init__(self, game: Game, seed: int, deals: Sequence[Sequence[Sequence[int]]] | None = None) -> None:
        self.game = game
        self.seed = seed
        n = game.num_seats
        K = game.num_card_types
        self.deck = shuffled(game.deck, _random.Random(derive_seed(seed, 0)))
        self.deck_pos = 0
        self.forced_deals = deals
        self.round = 0
        self.turn = 0
        self.hands = [[] for _ in range(n)]
        self.played = [[] for _ in range(n)]
        self.counts = [[0] * K for _ in range(n)]
        self.kept_cards = [[] for _ in range(n)]
        self.kept_counts = [[0] * K for _ in range(n)]
        self.round_scores = []
        self.game_end_scores = [0] * n
        self.scorings = []
        self.sheet = None
        self.history = []
        self.controller = -1
        self.drawn = []
        self.dummy_piles = []
        self.reserves = [shuffled(r, _random.Random(derive_seed(seed, 2, i))) for i, r in enumerate(game.reserves)]
        self.finished = False
        self.winners = []
        self.pending = None
        self.events = ()
        # the general path of the turns (card effects, races) keeps its book; the fast one none
        general = game.procedure.general
        self.book = EffectBook(n, [part.start(n) for _, part in game.turn_rules]) if general else None

    # ------------------------------------------------------------------ queries

    def is_terminal(self) -> bool:
        return self.finished

    @property
    def num_seats(self) -> int:
        return self.game.num_seats

    def acting_seats(self) -> tuple[int, ...]:
        """Seats that submit an action now: during the picks every player (a dummy never
        acts itself); while a decision is pending, just the deciding seat."""
        if self.pending is not None:
            return (self.pending.seat,)
        return tuple(range(self.game.num_players))

    def _seat(self, seat: object) -> int:
        """``seat`` as a seat number (numpy's integers too); :class:`ArgumentError` for
        anything else or a seat the game does not have (the players', then any dummy's)."""
        if type(seat) is not int:
            seat = whole_number(seat, "seat")
        if not 0 <= seat < len(self.hands):
            raise ArgumentError(f"no seat {seat!r}: the seats are 0 to {len(self.hands) - 1}")
        return seat

    def legal_actions(self, seat: int) -> list[int]:
        """The distinct legal actions of ``seat`` now (empty when the game is over)."""
        if type(seat) is not int or not 0 <= seat < len(self.hands):  # the quick case inline: a hot path
            seat = self._seat(seat)
        if self.finished:
            return []
        if self.pending is not None:
            return list(self.pending.options) if seat == self.pending.seat else []
        return self.game.procedure.legal_actions(self, seat)

    def sample_action(self, seat: int, random: RandomFn) -> int:
        """A legal action of ``seat`` drawn uniformly, ``random`` being a function
        returning floats in [0, 1) (such as ``random.Random(seed).random``)."""
        if self.finished:
            raise IllegalMoveError("the game is over")
        if self.pending is not None:
            if seat != self.pending.seat:
                self._seat(seat)
                raise IllegalMoveError(f"seat {seat} has no move now: seat {self.pending.seat} is deciding")
            options = self.pending.options
            return options[int(random() * len(options))]
        if type(seat) is not int or seat < 0:  # the seat is not checked on the hot path
            seat = self._seat(seat)
        try:
            return self.game.procedure.sample_action(self, seat, random)
        except IndexError:
            self._seat(seat)  # past the last seat
            raise

    def can_use_action(self, seat: int) -> bool:
        """Whether ``seat`` may take extra cards this turn (chopsticks on its table, enough cards)."""
        return self.game.procedure.extra_available(self, seat) > 0

    def totals(self) -> list[int]:
        """Points per seat so far (rounds scored plus game end)."""
        return list(map(sum, zip(self.game_end_scores, *self.round_scores)))

    def returns(self) -> list[int]:
        """Final points per seat (OpenSpiel's name; the same as :meth:`totals`)."""
        return self.totals()

    def tableau(self) -> Tableau:
        """This round's played cards, as scoring sees them."""
        return Tableau(
            self.counts, self.played, self.round + 1, self.turned() if self.book and self.book.under else None
        )

    def kept_tableau(self) -> Tableau:
        """Cards kept until game end, as game-end scoring sees them."""
        return Tableau(self.kept_counts, self.kept_cards, min(self.round + 1, self.game.ruleset.rounds))

    def resample_hidden(self, seat: int, random: RandomFn, *, copy: bool = True) -> State:
        """A copy in which everything ``seat`` cannot see is dealt again at random,
        consistently with what it has seen: the determinization step of
        information-set search. ``random`` is a function returning floats in [0, 1).

        Kept as they are: ``seat``'s hand, every table, and the cards of other hands
        that ``seat`` has already seen. Re-dealt: the unseen cards of other hands, the
        dummy's face-down pile and the undealt deck, among themselves. ``copy`` false:
        dealt into this state itself, which is returned (the same cards in the same
        places for the same draws), for a state made only to be dealt again.
        """
        # the keys random() draws in the cards' order (as ``key=lambda _: random()``), without
        # a Python call per card: next(it, card) on the iterator of random()'s values
        return self._redeal_hidden(
            seat, lambda cards: sorted(cards, key=partial(next, iter(random, None))), sort_seen=False, copy=copy
        )

    def canonical_hidden(self, seat: int) -> State:
        """A copy in which everything ``seat`` cannot see is laid out in one fixed order
        (the hidden cards sorted, dealt back into the same places): two states ``seat``
        cannot tell apart give the same copy, so a search started from it depends only
        on what the seat knows."""
        return self._redeal_hidden(seat, sorted, sort_seen=True)

    def _redeal_hidden(
        self, seat: int, arrange: Callable[[list[int]], list[int]], *, sort_seen: bool, copy: bool = True
    ) -> State:
        """The copy both of the above make: the cards ``seat`` cannot see, pooled, put in
        the order ``arrange`` gives and dealt back into the places they came from (``copy``
        false: into this state; every part is read before it is dealt into).

        Another seat deciding a card effect from its hidden hand (a second pick, the card
        a spoon's giver gives) is re-dealt that hand like any other, and its decision's
        options are read again from the new hand by the effect (``rehanded``): the
        options themselves are the hand's secret. A deal whose hand could not be asked
        the decision is dealt again, up to :data:`REHAND_TRIES` times, each time in an
        order of its own drawn from the same cards (so a canonical deal stays one that
        depends only on what ``seat`` knows); only then, or for an effect that does not
        say (``rehanded`` None), are the cards of the options kept in that hand."""
        pending = self.pending
        effect = None
        if pending is not None and not pending.shown and pending.seat != seat and pending.seat < len(self.hands):
            effect = self.game.effect_of[pending.card]
            rehanded = getattr(effect, "rehanded", None)
            if rehanded is None or rehanded(self, pending, self.hands[pending.seat]) is None:
                effect = None  # the effect does not say: its options' cards are kept
        if effect is None:
            return self._dealt_hidden(seat, arrange, sort_seen=sort_seen, copy=copy, keep_options=True)
        assert pending is not None
        for tried in range(REHAND_TRIES):
            order = arrange if tried == 0 else _reordered(arrange, tried)
            new = self._dealt_hidden(seat, order, sort_seen=sort_seen, copy=True, keep_options=False)
            options = effect.rehanded(self, pending, new.hands[pending.seat])
            if options:
                new.pending = attrs.evolve(pending, options=tuple(options))
                if not copy:  # dealt into this state, as asked
                    for name in ("hands", "dummy_piles", "deck", "drawn", "reserves", "pending", "book"):
                        setattr(self, name, getattr(new, name))
                    return self
                return new
        return self._dealt_hidden(seat, arrange, sort_seen=sort_seen, copy=copy, keep_options=True)

    def _dealt_hidden(
        self,
        seat: int,
        arrange: Callable[[list[int]], list[int]],
        *,
        sort_seen: bool,
        copy: bool,
        keep_options: bool,
    ) -> State:
        """:meth:`_redeal_hidden`'s deal (``keep_options``: a seat deciding among cards of
        its own hand keeps them, so that the decision stays legal)."""
        new = self.clone() if copy else self
        known = self.game.procedure.known_hands(self, seat)
        pool: list[int] = []
        keep: dict[int, list[int]] = {}
        pending = self.pending
        for other, hand in enumerate(self.hands):
            if other == seat:
                continue
            rest = hand[:]
            kept_cards = []
            # a controller's drawn cards (the last of its hand) are hidden from the others
            hidden = len(self.drawn) if other == self.controller else 0
            seen = list(known.get(other, ()))[: len(hand) - hidden]
            if self.book is not None:
                seen += self.book.known_in_hand[other]
            if keep_options and pending is not None and pending.seat == other and not pending.shown:
                seen.extend(c for c in pending.options if c < self.game.num_card_types)
            for c in seen:
                if c in rest:
                    rest.remove(c)
                    kept_cards.append(c)
            keep[other] = sorted(kept_cards) if sort_seen else kept_cards
            pool.extend(rest)
        for pile in self.dummy_piles:
            pool.extend(pile)
        pool.extend(self.deck[self.deck_pos :])
        redrawn: Decision | None = None
        if pending is not None and pending.shown and pending.seat != seat:
            # cards drawn by another seat's effect: only it has seen them; re-drawn from
            # the pool (the last of it), tries while nothing drawn could be chosen
            k = len(pending.shown)
            for _ in range(20):
                tried = arrange(pool + list(pending.shown))
                redrawn = self.game.procedure.redrawn(pending, tuple(tried[-k:]))
                if redrawn is not None:
                    pool = tried[:-k]
                    break
            else:
                # no arrangement tried drew a card that could be chosen: the last one that
                # could goes among the drawn, so the copy never keeps the real drawn cards
                # (only their seat has seen them)
                tried = arrange(pool + list(pending.shown))
                for j in range(len(tried) - k - 1, -1, -1):
                    if self.game.procedure.redrawn(pending, (tried[j],)) is not None:
                        tried[j], tried[-1] = tried[-1], tried[j]
                        break
                redrawn = self.game.procedure.redrawn(pending, tuple(tried[-k:]))
                pool = tried[:-k] if redrawn is not None else arrange(pool)
        else:
            pool = arrange(pool)
        at = 0
        private = new.book.private_in_hand if new.book is not None and any(new.book.private_in_hand) else None
        for other, kept_cards in keep.items():
            n = len(self.hands[other]) - len(kept_cards)
            new.hands[other] = kept_cards + pool[at : at + n]
            if private is not None and private[other]:
                # the cards put into that hand unseen by ``seat`` are among those dealt again: they stand for them
                dealt = iter(pool[at : at + n])
                private[other] = [
                    (c if knowers >> seat & 1 else next(dealt, c), knowers) for c, knowers in private[other]
                ]
            at += n
        for i, pile in enumerate(self.dummy_piles):
            new.dummy_piles[i] = pool[at : at + len(pile)]
            at += len(pile)
        new.deck = self.deck[: self.deck_pos] + pool[at:]
        if 0 <= self.controller != seat and self.drawn:
            # the controller's re-dealt last cards stand for what it drew: the copy stays consistent
            new.drawn = new.hands[self.controller][-len(self.drawn) :]
        if self.reserves:  # which held-back cards come next is unknown too
            new.reserves = [arrange(r) for r in self.reserves]
        pending = self.pending
        if redrawn is not None:
            new.pending = redrawn
        return new

    def clone(self) -> State:
        """A deep-enough copy: mutating the clone never touches this state."""
        new = State.__new__(State)
        new.game = self.game
        new.seed = self.seed
        new.deck = self.deck  # never mutated in place once dealt from (reshuffle makes a new list)
        new.deck_pos = self.deck_pos
        new.forced_deals = self.forced_deals
        new.round = self.round
        new.turn = self.turn
        new.hands = [h[:] for h in self.hands]
        new.played = [p[:] for p in self.played]
        new.counts = [c[:] for c in self.counts]
        new.kept_cards = [k[:] for k in self.kept_cards]
        new.kept_counts = [k[:] for k in self.kept_counts]
        new.round_scores = [r[:] for r in self.round_scores]
        new.game_end_scores = self.game_end_scores[:]
        new.scorings = self.scorings[:]  # entries are never changed once added
        new.sheet = self.sheet  # never changed once made
        history = new.history = self.history[:]  # rounds that have ended never change: shared
        if history and not self.finished:
            history[-1] = history[-1].copy()
        new.controller = self.controller
        new.drawn = self.drawn[:]
        new.dummy_piles = [p[:] for p in self.dummy_piles]
        new.reserves = self.reserves[:]
        new.finished = self.finished
        new.winners = self.winners[:]
        new.pending = self.pending  # frozen
        new.events = self.events
        new.book = self.book.clone() if self.book is not None else None
        return new

    # ------------------------------------------------------------------ moves

    def apply_actions(self, actions: Sequence[int]) -> None:
        """Reveal one action per acting seat at once, resolve them, pass, score."""
        if self.finished:
            raise IllegalMoveError("the game is over")
        acting = 1 if self.pending is not None else self.game.num_players
        try:
            given = len(actions)
        except TypeError:  # apply_actions(5): one action, not a list of them
            raise ArgumentError(
                f"actions is a list of one action per acting seat ({acting} now), not {actions!r}"
            ) from None
        if given != acting:
            raise IllegalMoveError(
                f"expected {acting} action{'s' if acting != 1 else ''} (one per acting seat), got {given}"
            )
        self.game.procedure.apply(self, actions)

    def play_out(self, randoms: Sequence[RandomFn]) -> None:
        """Play to the end with every player choosing uniformly among its legal actions,
        ``randoms[seat]`` being its function returning floats in [0, 1).

        The same game, draw for draw, as ``apply_actions([sample_action(seat,
        randoms[seat]) ...])`` turn after turn, in a tighter loop: random
        simulations and search bots' roll-outs spend their time here.
        """
        if len(randoms) != self.game.num_players:
            raise ValueError(f"{len(randoms)} random streams for {self.game.num_players} players")
        self.game.procedure.play_out(self, randoms)

    # ------------------------------------------------------------------ the seam procedures use
    #
    # A turn procedure (procedures.py) changes a state only through these methods and
    # the public lists (``hands``, ``played``, ``counts``, ``history``, ...); bots and
    # the command line use apply_actions / play_out, which check the moves.

    def deal_round(self, hands: list[list[int]], *, dummies: int = 0, controller: int = -1) -> None:
        """The round's hands are dealt (recorded by the procedure): the last ``dummies``
        are dummy piles, face down, and ``controller`` picks for the dummy first."""
        if dummies:
            self.dummy_piles = hands[-dummies:]
            hands = hands[:-dummies] + [[] for _ in self.dummy_piles]
        self.hands = hands
        self.controller = controller

    def turn_over(self, turns: int = 1) -> None:
        """``turns`` more turns of the round are over."""
        self.turn += turns

    def wait_for(self, decision: Decision | None) -> None:
        """The turn waits for ``decision`` (None: for nothing more)."""
        self.pending = decision

    def decided(self, seat: int, action: int) -> None:
        """``seat`` has made the pending decision: ``action``, recorded in the round."""
        self.pending = None
        self.history[-1].add_decision(self.turn, seat, action)

    def revealed(self, cards: Sequence[Sequence[int]]) -> None:
        """Each seat's ``cards`` revealed this turn are on its table (the procedure put them
        there): placed this turn."""
        book = self.book
        assert book is not None, NO_BOOK
        for placed, taken in zip(book.placed, cards):
            placed.extend(taken)

    def run_jobs(self) -> Decision | None:
        """Resolve the queued effects, lowest play order first, then seat, then queued
        first, each through its step, until one asks a decision (returned: the turn
        waits for it) or none is left (None)."""
        book = self.book
        assert book is not None, NO_BOOK
        jobs = book.jobs
        while jobs:
            job = min(jobs)
            jobs.remove(job)
            effect = job[3]
            decision = asked(effect, effect.start(self, job[1]), self.game, "start")
            if decision is not None:
                self.pending = decision
                return decision
        return None

    def effect_turn_over(self) -> bool:
        """The effects of this turn are done: its placements join the round's (when an effect
        reads them) and a new turn places nothing yet. Whether a card is known to be in a
        hand (then :meth:`pass_known` before the hands pass)."""
        book = self.book
        assert book is not None, NO_BOOK
        if self.game.plugin_effects:
            self.check_cards_kept()
        if self.game.keeps_round:
            book.round_placed = tuple(r + tuple(p) for r, p in zip(book.round_placed, book.placed))
        book.placed = [[] for _ in book.placed]
        return any(book.known_in_hand) or any(book.private_in_hand)

    def check_cards_kept(self) -> None:
        """After a turn's effects, where plug-in effects act: every card of the deck still
        somewhere, once, and each seat's counts those of its table. A plug-in that made,
        lost or miscounted a card is named (:class:`PluginError`), never a wrong game."""
        ids = self.game.ruleset.catalogue.ids
        where = f"in round {self.round + 1}, turn {self.turn + 1}"
        named = ", ".join(f"'{k}'" for k in self.game.plugin_effects)
        for seat, table in enumerate(self.played):
            held = Counter(table)
            wrong = [c for c, n in enumerate(self.counts[seat]) if n != held.get(c, 0)]
            if wrong:
                c = wrong[0]
                raise PluginError(
                    f"card effect {named} (a plug-in) {where}: seat {seat}'s count of {ids[c]} says "
                    f"{self.counts[seat][c]}, its table holds {held.get(c, 0)}"
                )
        now = Counter(self.all_cards())
        deck = Counter(self.game.whole_deck)
        if now != deck:
            more = ", ".join(f"{n} {ids[c]}" for c, n in sorted((now - deck).items()))
            fewer = ", ".join(f"{n} {ids[c]}" for c, n in sorted((deck - now).items()))
            said = "; ".join(x for x in (more and f"made {more}", fewer and f"lost {fewer}") if x)
            raise PluginError(f"card effect {named} (a plug-in) {where}: the cards are no longer the deck's: {said}")

    def pass_known(self, direction: int) -> None:
        """Before the hands pass ``direction``: what every seat knows to be in a hand goes with it."""
        book = self.book
        assert book is not None, NO_BOOK
        book.pass_known(self.hands, direction)

    def without_unseen(self, seat: int, held: dict[int, list[int]]) -> dict[int, list[int]]:
        """``held`` (the hands ``seat`` has held, as they are now) without the cards an
        effect put into them unseen since ``seat`` held them (changed in place)."""
        book = self.book
        if book is None or not any(book.private_in_hand):
            return held
        for other, cards in held.items():
            for c in book.unseen_by(seat, other):
                if c in cards:  # (one taken from the hand since is gone already)
                    cards.remove(c)
        return held

    def pass_player_hands(self, hands: list[list[int]]) -> None:
        """The players' hands after passing (a dummy's pile stays where it is)."""
        self.hands = hands + self.hands[len(hands) :]

    def controller_draws(self, cards: list[int]) -> None:
        """The dummy's controller drew ``cards`` from the dummy pile into its hand (only it sees them)."""
        if self.controller >= 0:
            self.hands[self.controller].extend(cards)
        self.drawn = cards

    def pass_control(self, players: int) -> None:
        """The next player controls the dummy."""
        self.controller = (self.controller + 1) % players

    @property
    def placed(self) -> list[list[int]]:
        """Per seat, the cards placed on its table this turn, any way (``book.placed``)."""
        book = self.book
        assert book is not None, NO_BOOK
        return book.placed

    @property
    def round_placed(self) -> tuple[tuple[int, ...], ...]:
        """Per seat, its placements of the round before this turn (``book.round_placed``)."""
        book = self.book
        assert book is not None, NO_BOOK
        return book.round_placed

    def play_card(self, seat: int, card: int) -> None:
        """Put ``card`` on ``seat``'s table (it has left the hand already)."""
        self.played[seat].append(card)
        self.counts[seat][card] += 1

    def unplay_card(self, seat: int, card: int) -> int:
        """Take the oldest copy of ``card`` back off ``seat``'s table; the physical card
        that was there (another one when ``card`` is a changed card's face)."""
        table = self.played[seat]
        i = table.index(card)  # the oldest copy
        del table[i]
        self.counts[seat][card] -= 1
        return self._taken(seat, i, card) if self.book and self.book.under else card

    def remove_from_table(self, seat: int, card: int, *, turned: bool = False) -> int:
        """Take the newest copy of ``card`` off ``seat``'s table (an effect moves it on);
        the physical card that was there. With ``turned``, a card turned face down from
        ``card`` counts as one too (the newer of the two goes)."""
        table = self.played[seat]
        book = self.book
        assert book is not None, NO_BOOK
        under = book.under
        for i in range(len(table) - 1, -1, -1):
            c = table[i]
            if c == card or (turned and under and under.get((seat, i), (0, -1, 0))[1] == card):
                del table[i]
                self.counts[seat][c] -= 1
                return self._taken(seat, i, c) if under else c
        raise ValueError(f"no {card} on the table of seat {seat}")

    def _taken(self, seat: int, i: int, face: int) -> int:
        """Position ``i`` of ``seat``'s table has gone: its physical card; later positions shift."""
        book = self.book
        assert book is not None, NO_BOOK
        physical = face
        moved: dict[tuple[int, int], tuple[int, int, int]] = {}
        for (s, p), entry in book.under.items():
            if s != seat or p < i:
                moved[s, p] = entry
            elif p == i:
                physical = entry[0]
            else:
                card, former, stamp = entry
                moved[s, p - 1] = (card, former, stamp)
        for key, (card, former, stamp) in list(moved.items()):
            if key[0] == seat and former >= 0 and stamp > i:
                moved[key] = (card, former, stamp - 1)
        book.under = moved
        return physical

    def change_card(self, seat: int, position: int, new: int, *, turned: bool = False) -> None:
        """The card at ``position`` of ``seat``'s table becomes card type ``new`` (a copy,
        or, ``turned``, a face-down card): every rule sees ``new``, and the physical card
        is remembered to go back into the deck (or be kept) as itself."""
        table, row = self.played[seat], self.counts[seat]
        old = table[position]
        row[old] -= 1
        row[new] += 1
        table[position] = new
        key = (seat, position)
        book = self.book
        assert book is not None, NO_BOOK
        under = book.under
        physical = under[key][0] if key in under else old
        under[key] = (physical, old, len(table)) if turned else (physical, -1, 0)

    def physical(self, seat: int, position: int) -> int:
        """The card that is really at ``position`` of ``seat``'s table."""
        entry = self.book.under.get((seat, position)) if self.book is not None else None
        return entry[0] if entry is not None else self.played[seat][position]

    def turned(self) -> list[dict[int, tuple[int, int]]] | None:
        """Per seat, its cards turned face down: position -> (the face before, the table
        length when turned); None when no card is turned."""
        if self.book is None or not self.book.under:
            return None
        out: list[dict[int, tuple[int, int]]] = [{} for _ in self.played]
        for (seat, p), (_card, former, stamp) in self.book.under.items():
            if former >= 0:
                out[seat][p] = (former, stamp)
        return out if any(out) else None

    def copies(self) -> list[dict[int, int]] | None:
        """Per seat, its cards that are copies of another card (a special order): position
        -> the physical card; None when there is none."""
        if self.book is None or not self.book.under:
            return None
        out: list[dict[int, int]] = [{} for _ in self.played]
        for (seat, p), (card, former, _stamp) in self.book.under.items():
            if former == -1:
                out[seat][p] = card
        return out if any(out) else None

    def place(self, seat: int, card: int) -> None:
        """An effect puts ``card`` on ``seat``'s table (it has left wherever it was): it
        counts as placed this turn, and its own when-played effect acts in turn."""
        self.play_card(seat, card)
        book = self.book
        assert book is not None, NO_BOOK
        book.placed[seat].append(card)
        effect = self.game.play_effects[card]
        if effect is not None:
            self.add_job(seat, effect)

    def add_job(self, seat: int, effect: CardEffect) -> None:
        """Queue ``effect`` of ``seat``'s card for this turn, by play order then seat."""
        book = self.book
        assert book is not None, NO_BOOK
        jobs = book.jobs
        # a sequence number above every queued one: first come, first served, and never a tie
        jobs.append((effect.order, seat, max((j[2] for j in jobs), default=-1) + 1, effect))

    def take_from_hand(self, seat: int, card: int) -> None:
        """``card`` leaves ``seat``'s hand (an effect places it or gives it away)."""
        self.hands[seat].remove(card)

    def into_hand(self, seat: int, card: int, *, known: bool = False, private: bool = False) -> None:
        """``card`` goes into ``seat``'s hand. By default the seats that have held that
        hand see it go in, as they see every change to a hand they held (the chopsticks
        a seat takes back from its table); ``known``: every seat sees it, so it passes
        with the hand as known (:attr:`known_in_hand`); ``private``: that seat alone
        sees it (a card drawn face down), and after it each seat the hand passes to."""
        self.hands[seat].append(card)
        if known or private:
            book = self.book
            assert book is not None, NO_BOOK
            if known:
                book.known_in_hand[seat].append(card)
            else:
                book.private_in_hand[seat].append((card, 1 << seat))

    def became(self, seat: int, card: int, new: int) -> None:
        """``seat``'s ``card`` placed this turn has become ``new`` (a copy): placed as it."""
        book = self.book
        assert book is not None, NO_BOOK
        placed = book.placed[seat]
        if card in placed:
            placed[placed.index(card)] = new

    def discard(self, card: int) -> None:
        """``card`` (already off the table) goes to the discard pile."""
        book = self.book
        assert book is not None, NO_BOOK
        book.discarded.append(card)

    def draw(self, n: int) -> list[int]:
        """Up to ``n`` cards from the top of the deck."""
        drawn = self.deck[self.deck_pos : self.deck_pos + n]
        self.deck_pos += len(drawn)
        return drawn

    def return_to_deck(self, cards: Sequence[int], seat: int) -> None:
        """Shuffle ``cards`` back into the rest of the deck (by the seed; a new list: clones share the old)."""
        rest = self.deck[self.deck_pos :] + list(cards)
        rng = _random.Random(derive_seed(self.seed, 4, self.round, self.turn, seat, len(rest)))
        self.deck = self.deck[: self.deck_pos] + shuffled(rest, rng)

    def note(self, *what: Any) -> None:
        """Record what an effect or a race just did (an :class:`Event`'s ``what``)."""
        self.events += (Event(self.round, self.turn, len(self.history[-1].decisions), what),)

    def score_turn_end(self) -> None:
        """At the end of a turn, the rules that score during the round (``game.turn_rules``)
        act: their progress moves on, and the cards they name leave the tables, discarded."""
        t = self.tableau()
        rules = self.game.ruleset.round_rules
        book = self.book
        assert book is not None, NO_BOOK
        progresses = book.turn_progress
        for j, (i, part) in enumerate(self.game.turn_rules):
            progress, leaving = part.turn_end(t, progresses[j])
            progresses[j] = progress
            for seat, place, points in part.taken(progress):
                self.note("race", rules[i].id, seat, place, points, leaving[seat])
            for seat, cards in enumerate(leaving):
                for c in cards:
                    self.discard(self.remove_from_table(seat, c))  # the physical card (a copy's)

    def turn_rule_points(self, t: Tableau) -> dict[int, list[int]]:
        """The round's points of the rules that score during the round, by their index
        among the round-end rules, were the round to end with tables ``t``."""
        book = self.book
        assert book is not None, NO_BOOK
        progresses = book.turn_progress
        return {i: part.round_end(t, progresses[j]) for j, (i, part) in enumerate(self.game.turn_rules)}

    def round_points_now(self) -> list[int]:
        """Per seat, what this round would score if it ended with the tables as they are
        (the points a race has given during the round included)."""
        game = self.game
        t = self.tableau()
        return score_scoring(game.round_scoring_rules, t, self.turn_rule_points(t) if game.turn_rules else None).totals

    def seat_round_points_now(self, seat: int) -> int:
        """``round_points_now()[seat]``, the other seats' points of a rule that reads one
        seat's cards alone left unscored (a bot's look at its own points)."""
        game = self.game
        t = self.tableau()
        scored = self.turn_rule_points(t) if game.turn_rules else {}
        alone = None  # the seat's table alone, made when first needed
        points = 0
        for i, rule in enumerate(game.ruleset.round_rules):  # the round_scoring_rules, as rules
            if i in scored:
                points += scored[i][seat]
            elif rule.own_cards_only:
                if alone is None:
                    alone = t.of_seat(seat)
                points += rule.score(alone)[0]
            else:
                points += rule.score(t)[seat]
        return points

    def all_cards(self) -> list[int]:
        """Every card of the game, wherever it is now (hands, tables, undealt deck, kept,
        held back, drawn for a pending decision, discarded, out of play since an earlier
        round's end), sorted: the whole deck."""
        out: list[int] = []
        for group in (self.hands, self.played, self.kept_cards, self.dummy_piles, self.reserves):
            for cards in group:
                out.extend(cards)
        out.extend(self.deck[self.deck_pos :])
        if self.pending is not None:
            out.extend(self.pending.shown)
        book = self.book
        if book is None and self.game.ruleset.between_rounds != "reshuffle":
            # the cards that left play at earlier round ends, which a game without card
            # effects lists nowhere else: its rounds' tables but for the cards kept
            kept = self.game.kept
            for done in self.history:
                if done.tables is not None:
                    out.extend(c for table in done.tables for c in table if not kept[c])
        if book is not None:
            out.extend(book.discarded)
            # changed cards: the physical card, not the face
            for (seat, p), (card, _former, _stamp) in book.under.items():
                out.remove(self.played[seat][p])
                out.append(card)
            for face, card in book.kept_under:
                out.remove(face)
                out.append(card)
        return sorted(out)

    def deal_hands(self, seats: int, size: int) -> list[list[int]]:
        """This round's hands: ``seats`` hands of ``size`` cards, from the deck (or the
        deals given for a replay)."""
        if self.forced_deals is not None:
            try:
                hands = [list(h) for h in self.forced_deals[self.round]]
            except IndexError:
                raise InputError(f"no deal given for round {self.round + 1}") from None
            if len(hands) != seats or any(len(h) != size for h in hands):
                raise InputError(f"round {self.round + 1}: expected {seats} hands of {size} cards")
            self._take_from_deck(hands)
            return hands
        if self.deck_pos + seats * size > len(self.deck):
            raise InputError(f"the deck has run out in round {self.round + 1}")  # prevented by the semantic check
        hands = []
        pos = self.deck_pos
        for _ in range(seats):
            hands.append(self.deck[pos : pos + size])
            pos += size
        self.deck_pos = pos
        return hands

    def _take_from_deck(self, hands: list[list[int]]) -> None:
        """The cards of given hands leave the undealt deck (each copy there is, in its
        order), as dealt cards do: a seat's view then counts every card once, so a
        search bot's world of a given deal is the world of the same deal shuffled."""
        rest = self.deck[self.deck_pos :]
        for hand in hands:
            for card in hand:
                try:
                    rest.remove(card)
                except ValueError:  # a set-up with more copies than the deck holds
                    pass
        self.deck, self.deck_pos = rest, 0

    def start_round(self) -> None:
        """Turn 1 of the current round: the procedure deals."""
        self.turn = 0
        if self.reserves:  # given hands too: the deck holds what a shuffled deal's would
            self.add_cards()
        self.game.procedure.deal(self)

    def add_cards(self) -> None:
        """Shuffle this round's share of each held-back family into what is left of the deck."""
        deck = self.deck[self.deck_pos :]
        for i, reserve in enumerate(self.reserves):
            n = self.game.added[i][self.round]
            deck.extend(reserve[:n])
            self.reserves[i] = reserve[n:]
        self.deck = shuffled(deck, _random.Random(derive_seed(self.seed, 3, self.round)))
        self.deck_pos = 0

    def end_round(self) -> None:
        """Score the round, keep the cards kept to game end, then deal the next round
        or score the game end."""
        game = self.game
        rules = game.ruleset
        t = self.tableau()
        scoring = score_scoring(game.round_scoring_rules, t, self.turn_rule_points(t) if game.turn_rules else None)
        self.scorings.append(scoring)
        book = self.book
        if book is not None and game.turn_rules:
            book.turn_progress = [part.start(game.num_seats) for _, part in game.turn_rules]
        self.round_scores.append(scoring.totals[:])
        K = game.num_card_types
        reshuffle = rules.between_rounds == "reshuffle"
        discarded: list[int] | None = [] if reshuffle else None
        played, counts = self.played, self.counts
        if discarded is None and book is not None:
            discarded = book.discarded  # cards that leave: out of play, but still counted
        keep_cards(game.kept, game.kept_types, played, counts, self.kept_cards, self.kept_counts, discarded)
        if book is not None and book.under:
            self.history[-1].turned = self.turned()
            self.history[-1].copies = self.copies()
            self._return_changed(book, discarded)
        if book is not None and game.keeps_round:
            book.round_placed = tuple(() for _ in played)
        self.history[-1].tables = played  # these lists are never changed again
        self.history[-1].counts = counts
        self.played = [[] for _ in played]
        self.counts = [[0] * K for _ in counts]
        if reshuffle and discarded is not None:  # given hands too: they are taken from this deck
            # every card that is not kept goes back: the undealt deck, unplayed hands, played cards
            deck = self.deck[self.deck_pos :] + discarded
            if book is not None:
                deck += book.discarded
                book.discarded = []
            for h in self.hands + self.dummy_piles:
                deck.extend(h)
            self.deck = shuffled(deck, _random.Random(derive_seed(self.seed, 1, self.round)))
            self.deck_pos = 0
        self.hands = [[] for _ in range(game.num_seats)]
        if book is not None:
            book.known_in_hand = [[] for _ in range(game.num_seats)]
            book.private_in_hand = [[] for _ in range(game.num_seats)]
        self.dummy_piles = []
        if self.round + 1 < rules.rounds:
            self.round += 1
            self.start_round()
        else:
            self._end_game()

    def _return_changed(self, book: EffectBook, discarded: list[int] | None) -> None:
        """Round end: a changed card that leaves the table leaves as its physical card; a
        kept one (a copied dessert) is kept as its face, its physical card remembered."""
        kept = self.game.kept
        kept_under = list(book.kept_under)
        for (seat, p), (card, _former, _stamp) in sorted(book.under.items()):
            face = self.played[seat][p]
            if kept[face]:
                kept_under.append((face, card))
            elif discarded is not None:
                discarded.remove(face)
                discarded.append(card)
        book.kept_under = tuple(kept_under)
        book.under = {}

    @property
    def rule_points(self) -> dict[str, list[int]]:
        """Points per seat of each scoring rule so far, by rule id."""
        return self.score_sheet().rule_points

    def score_sheet(self) -> ScoreSheet:
        """The scores so far: the rounds scored (and, once the game is over, game end and the winners)."""
        if self.sheet is not None:
            return self.sheet
        game = self.game
        return ScoreSheet(game.ruleset, game.num_players, game.num_seats, self.scorings, None, None)

    def _end_game(self) -> None:
        game = self.game
        kt = self.kept_tableau()
        scoring = score_scoring(game.game_scoring_rules, kt)
        sheet = ScoreSheet(game.ruleset, game.num_players, game.num_seats, self.scorings[:], scoring, kt)
        if game.plugin_kinds:  # before the game is over: a failed one is not left finished
            check_plugin_totals(game.plugin_kinds, sheet.totals)
        self.scorings.append(scoring)
        self.game_end_scores = scoring.totals[:]
        self.finished = True
        self.sheet = sheet
        self.winners = self.sheet.winners[:]

    # ------------------------------------------------------------------ views

    def known_cards(self, seat: int, held: dict[int, list[int]]) -> dict[int, list[int]]:
        """The cards ``seat`` knows to be in each other hand: the hands it has held this
        round (``held``: the procedure's ``known_hands``, as they are now), and cards every
        seat saw go into a hand (a card an effect gave back in sight of all). What a
        seat's view (``SeatView.known_hands``) and its :meth:`observation` both tell."""
        known = {s: cards for s, cards in held.items() if s != seat}
        book = self.book
        if book is not None:
            for other, cards in enumerate(book.known_in_hand):
                if other == seat or not cards or other in known:
                    continue  # a hand held is known whole already
                known[other] = list(cards)
        if 0 <= self.controller != seat and self.drawn and self.controller in known:
            # a controller's drawn cards (the last of its hand) are hidden from the others
            known[self.controller] = known[self.controller][: len(self.hands[self.controller]) - len(self.drawn)]
        return known

    def observation(self, seat: int) -> Observation:
        """What ``seat`` may know: its hand, every table, scores, and the hands it has
        already seen that are now elsewhere. Never another seat's unseen hand."""
        game = self.game
        ids = game.ruleset.catalogue.ids
        known = self.known_cards(seat, game.procedure.known_hands(self, seat))
        return Observation(
            seat=seat,
            round=self.round + 1,
            turn=self.turn + 1,
            hand=[ids[c] for c in self.hands[seat]],
            hand_sizes=[len(h) for h in self.hands],
            played=[[ids[c] for c in p] for p in self.played],
            kept=[[ids[c] for c in k] for k in self.kept_cards],
            scores=self.totals(),
            round_scores=[r[:] for r in self.round_scores],
            known_hands={s: [ids[c] for c in cards] for s, cards in known.items() if s != seat},
            controls_dummy=self.controller == seat,
            can_use_action=self.can_use_action(seat) if not self.finished and self.pending is None else False,
            pending=self.pending if self.pending is not None and self.pending.seat == seat else None,
        )
