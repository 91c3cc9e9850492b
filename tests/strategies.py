"""Shared hypothesis strategies (and the small helpers they need) for the test suite.

Several test modules add to this file: add your own section, do not rewrite others'.
"""

from __future__ import annotations

# ---------------------------------------------------------------- games: bundled rulesets, seeds, bots
import functools as _functools

import paths as _paths
from hypothesis import strategies as _st

from ruledraft.language.bundled import bundled_ids as _bundled_ids

#: every bundled ruleset id (asked of the package: a new bundled file joins every test)
BUNDLED_RULESETS = tuple(_bundled_ids())

#: the bots every test may seat
BOT_NAMES = ("random", "greedy")


def bundled_ruleset(ruleset_id: str):
    """The compiled bundled ruleset, loaded once per test process (loading is slow;
    the one cache of :func:`played_ruleset`, which every helper loading rule files shares)."""
    return played_ruleset(ruleset_id)


@_functools.cache
def bundled_game(ruleset_id: str, players: int):
    """A :class:`ruledraft.engine.state.Game` of a bundled ruleset, made once per process."""
    from ruledraft.engine.state import Game

    return Game(bundled_ruleset(ruleset_id), players)


def game_seeds():
    """Any seed the engine accepts (64-bit; simulations derive and log 53-bit ones)."""
    return _st.integers(min_value=0, max_value=2**64 - 1)


def bundled_ruleset_ids():
    return _st.sampled_from(BUNDLED_RULESETS)


@_st.composite
def game_setups(draw, ruleset_ids=None, bots=BOT_NAMES):
    """``(ruleset_id, players, seed, bot names one per player)`` for a bundled ruleset,
    the player count drawn from the counts the ruleset allows."""
    rid = draw(ruleset_ids if ruleset_ids is not None else bundled_ruleset_ids())
    rs = bundled_ruleset(rid)
    players = draw(_st.integers(min_value=rs.min_players, max_value=rs.max_players))
    seed = draw(game_seeds())
    names = draw(_st.lists(_st.sampled_from(bots), min_size=players, max_size=players))
    return rid, players, seed, names


# ---------------------------------------------------------------- finished tables: the cards each seat played


def deck_card_ids(ruleset) -> list:
    """The full deck of a compiled ruleset as card ids (each id as many times as its count)."""
    return [c.id for c in ruleset.catalogue.cards for _ in range(c.count)]


@_st.composite
def finished_tables(draw, ruleset_id="sushi-go", players=None, full=False):
    """A legal table for :func:`ruledraft.engine.table_scoring.score_table`:
    ``{"rounds": [[[seat 0's card ids in play order], ...], ...]}`` with every round
    of the ruleset, one list per seat (dummy seats included), the cards drawn from one
    shuffled deck (never more copies than the deck has) and at most a hand's worth of
    cards per seat and round (exactly a hand's worth with ``full=True``).

    ``players``: a number, or None to draw one from the counts the ruleset allows.
    """
    rs = bundled_ruleset(ruleset_id)
    n = players if players is not None else draw(_st.integers(min_value=rs.min_players, max_value=rs.max_players))
    seats = rs.num_seats(n)
    hand = rs.hand_size(n)
    deck = draw(_st.permutations(deck_card_ids(rs)))
    pos = 0
    rounds = []
    for _ in range(rs.rounds):
        rnd = []
        for _ in range(seats):
            k = hand if full else draw(_st.integers(min_value=0, max_value=hand))
            rnd.append(list(deck[pos : pos + k]))
            pos += k
        rounds.append(rnd)
    return {"rounds": rounds}


@_st.composite
def seat_permutations(draw, seats: int):
    """A permutation of ``range(seats)`` as a list."""
    return list(draw(_st.permutations(list(range(seats)))))


# ---------------------------------------------------------------- hand-built positions


def cards(rs, *names):
    """Card indices of the named cards (a name may repeat: ``"tempura*3"``)."""
    out = []
    for name in names:
        name, _, k = name.partition("*")
        out += [rs.card_index(name)] * int(k or 1)
    return out


def card_indices(game, *names) -> list:
    """The card indices of the cards named, in a game of the ruleset."""
    return [game.ruleset.catalogue.index_of(n) for n in names]


def card_ids(game, cards) -> list:
    """The ids of ``cards`` (card indices), in a game of the ruleset."""
    return [game.ruleset.catalogue.ids[c] for c in cards]


def midgame(ruleset_id: str, players: int, seed: int, turns: int):
    """A state of a bundled ruleset after ``turns`` turns of random play."""
    import random

    state = bundled_game(ruleset_id, players).new_initial_state(seed)
    rng = random.Random(seed)
    for _ in range(turns):
        if state.is_terminal():
            break
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    return state


def forced_game(ruleset_id, players, round1, filler="tempura"):
    """A state whose round 1 is dealt ``round1`` (card-name lists, one per seat, dummy
    pile last) and whose rounds 2 and 3 are all ``filler``."""
    game = bundled_game(ruleset_id, players)
    rs = game.ruleset
    first = [cards(rs, *hand) for hand in round1]
    assert all(len(h) == game.hand_size for h in first), [len(h) for h in first]
    rest = [[rs.card_index(filler)] * game.hand_size for _ in range(game.num_seats)]
    return game, game.new_initial_state(0, deals=[first, rest, rest])


# ---------------------------------------------------------------- bundled rulesets by shape


def bundled_without_dummy():
    """Ids of the bundled rulesets whose seats are all players (no dummy), for tests of the standard procedure."""
    return tuple(rid for rid in BUNDLED_RULESETS if not bundled_ruleset(rid).dummy)


#: the smallest valid rule file, for tests of the loader and the schema check
MINI = """\
format: 1
id: mini
name: Mini
players: {min: 2, max: 4}
cards:
  - {id: apple, count: 10}
  - {id: pear, count: 10, tags: [fruit], attributes: {value: 2}}
deal:
  hand_size: {2: 5, 3-4: 4}
rounds: {count: 1, pass: left}
scoring:
  - {id: apples, kind: per_card, cards: apple, value: 1}
"""


# ---------------------------------------------------------------- rulesets played with effects: bundled, examples, test data


@_functools.cache
def played_ruleset(source: str):
    """The compiled ruleset of a bundled id or a rule file, loaded once per test process."""
    from ruledraft.language.loading import load_ruleset

    return load_ruleset(source)


@_functools.cache
def played_game(source: str, players: int):
    """A :class:`ruledraft.engine.state.Game` of :func:`played_ruleset`, made once per process."""
    from ruledraft.engine.state import Game

    return Game(played_ruleset(source), players)


def played_positions(source: str, seed: int, players: int, *, last: bool = False):
    """Every state of one game of random moves (seeded), ``last``: the finished one too
    (each is the same state moving on: read it before asking for the next)."""
    import random

    state = played_game(source, players).new_initial_state(seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        yield state
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    if last:
        yield state


def has_effects(source: str) -> bool:
    """Whether a card of the ruleset has an effect (Sushi Go!'s chopsticks included)."""
    rs = played_ruleset(source)
    return any(e is not None for e in played_game(source, rs.min_players).effect_of)


@_functools.cache
def effect_examples() -> tuple[str, ...]:
    """The example rule files whose cards have effects (asked of the files: a new example joins every test)."""
    return tuple(str(p) for p in sorted(_paths.EXAMPLES.glob("*.yaml")) if has_effects(str(p)))


@_functools.cache
def played_sources() -> tuple[str, ...]:
    """Every ruleset the play properties run over: the bundled ones, the examples with
    effects, and the test data's effect rulesets (every effect kind, in small decks)."""
    return BUNDLED_RULESETS + effect_examples() + tuple(str(p) for p in sorted(_paths.DATA.glob("effects-*.yaml")))


def source_id(source: str) -> str:
    """A short pytest id for a ruleset source: the bundled id or the file's name."""
    return source.rsplit("/", 1)[-1].removesuffix(".yaml")


@_st.composite
def played_setups(draw, source: str, bots=BOT_NAMES):
    """``(players, seed, bot names one per player)`` for the ruleset of ``source``, the
    player count drawn from the counts it allows."""
    rs = played_ruleset(source)
    players = draw(_st.sampled_from(list(rs.player_counts)))
    seed = draw(_st.integers(min_value=0, max_value=2**53 - 1))
    names = draw(_st.lists(_st.sampled_from(bots), min_size=players, max_size=players))
    return players, seed, names


def permuted_played_game(played, perm):
    """A :class:`ruledraft.engine.scoresheet.PlayedGame` whose seat ``i`` holds what seat
    ``perm[i]`` held (the players' seats only; dummy seats stay last): every round's tables,
    card states and the cards turned face down (all that scoring reads of a round's record)."""
    from ruledraft.engine.scoresheet import PlayedGame, PlayedRound

    rounds = []
    for rnd in played.rounds:
        order = list(perm) + list(range(len(perm), len(rnd.tables)))
        record = None
        if rnd.record is not None:
            record = rnd.record.copy()
            if record.turned is not None:
                record.turned = [record.turned[s] for s in order]
        states = None if rnd.card_states is None else tuple(rnd.card_states[s] for s in order)
        rounds.append(PlayedRound(tuple(rnd.tables[s] for s in order), record, states))
    return PlayedGame(played.players, tuple(rounds))


def bundled_without_effects():
    """Ids of the bundled rulesets whose cards do nothing but score and take extra picks
    (``Game.general`` false: every seat acts every turn, no decisions): for tests whose
    premise is the plain turn. Rulesets with card effects are played by
    tests/rulesets/test_party_menus.py and tests/engine/test_effects*.py."""
    from ruledraft.engine.state import Game

    return tuple(
        rid for rid in BUNDLED_RULESETS if not Game(bundled_ruleset(rid), bundled_ruleset(rid).min_players).general
    )


def bundled_table_scored():
    """Ids of the bundled rulesets whose scoring reads only the tables (no race scoring
    at turn ends): ``score_game`` and score tables take them; the others need the turns
    (``ruledraft score`` replays a log line for them, tests/language/test_race.py)."""
    from ruledraft.engine.scoresheet import turns_needed

    return tuple(rid for rid in BUNDLED_RULESETS if turns_needed(bundled_ruleset(rid)) is None)
