"""The ismcts roll-out in the kernel ends every game as the engine's loop does, card
effects and races included, and ismcts searches the same with it and without it."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

np = pytest.importorskip("numpy")
pytest.importorskip("numba")

from ruledraft.engine.state import Game  # noqa: E402
from ruledraft.engine.view import seat_view  # noqa: E402
from ruledraft.kernel import Kernel, compile_kernel  # noqa: E402
from ruledraft.kernel.rollout import Rollouts  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.ismcts import ISMCTSAgent, kernel_rollouts  # noqa: E402
from ruledraft.play.planner import count_values, policy_action  # noqa: E402
from ruledraft.play.runner import play_game  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent.parent


def _load(ruleset_id: str):
    """A bundled ruleset by id, or an example (or test data) by its path from the repository's root."""
    return load_ruleset(str(ROOT / ruleset_id) if ruleset_id.startswith(("examples/", "tests/")) else ruleset_id)


def _rollouts(ruleset_id: str, players: int) -> tuple[Game, Rollouts]:
    ruleset = _load(ruleset_id)
    kernel = compile_kernel(ruleset, players)
    assert isinstance(kernel, Kernel), kernel
    game = Game(ruleset, players)
    return game, kernel.rollouts(count_values(game))


def _python_rollout(state, values, joint=()) -> tuple[list[int], list[int]]:
    """The engine's roll-out, as ismcts plays it: ``joint`` if given, then every seat by
    ``policy_action`` to the end."""
    det = state.clone()
    if joint:
        det.apply_actions(joint)
    while not det.finished:
        det.apply_actions([policy_action(det, s, values) for s in det.acting_seats()])
    return det.totals(), det.winners


def _searched_both_ways(view, seat: int, seed: int, iterations: int, act: bool = True):
    """The trees (each seat's action statistics) ismcts grows from ``view`` with the kernel's
    roll-outs and with the engine's, and (``act``) the moves it makes: ([yes, no], [yes, no])."""
    trees, moves = [], []
    for use in ("yes", "no"):
        root = ISMCTSAgent(seed=seed, iterations=iterations, kernel=use).search(view, seat)
        trees.append([{a: tuple(e) for a, e in stats.items()} for stats in root.stats])
        if act:
            moves.append(ISMCTSAgent(seed=seed, iterations=iterations, kernel=use).act(view, seat))
    return trees, moves


def _mid_game_worlds(game: Game, games: int, seed: int):
    """Determinized worlds of a random seat at random points of random games (every
    round, a new round's first turn and mid-round turns among them); where cards have
    effects, at a turn's start (no decision pending), where the kernel's roll-out starts."""
    rng = random.Random(seed)
    for g in range(games):
        state = game.new_initial_state(seed * 1000 + g)
        while not state.finished:
            if state.pending is None and rng.random() < 0.35:
                seat = rng.randrange(game.num_players)
                yield seat_view(state, seat).world().resample_hidden(seat, rng.random)
            state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])


@pytest.mark.parametrize(
    ("ruleset_id", "players"),
    [
        ("sushi-go", 2),
        ("sushi-go", 4),
        ("sushi-go", 5),
        ("sushi-go-soy-sauce", 4),  # chopsticks and a soy sauce
        ("sushi-go-party-starter", 5),  # cards added before rounds, reshuffled between them
        ("sushi-go-party-starter", 8),
        ("sushi-go-pass-both-ways", 3),  # a pass direction per round
        ("examples/sushi-go-switchback.yaml", 4),  # a pass direction per turn
        ("tests/data/kernel/race-no-effects.yaml", 2),  # a race, no card effects, reshuffled between rounds
        ("tests/data/kernel/race-no-effects.yaml", 5),
        ("sushi-go-two-player-dummy", 2),  # a dummy: its pile, the controller's drawn card
        ("tests/data/kernel/dummy-can-win.yaml", 2),  # a dummy that can win, reshuffled, passed right
    ],
)
def test_kernel_rollout_ends_every_game_as_the_engine(ruleset_id: str, players: int) -> None:
    """From many mid-game worlds, the kernel's roll-out gives the engine's totals and winners."""
    game, rollouts = _rollouts(ruleset_id, players)
    values = count_values(game)
    checked = 0
    for world in _mid_game_worlds(game, 12, players):
        assert rollouts.refuses(world) is None
        assert rollouts.play(world) == _python_rollout(world, values), (ruleset_id, world.round, world.turn)
        checked += 1
    assert checked > 50


def test_the_streams_of_the_shuffles_between_rounds_are_kept_for_their_game_seed() -> None:
    """A roll-out keeps each stream it shuffles with between rounds (some 1,250 steps to seed) for the game seed it
    was seeded for: a world rolled out again gives the engine's result from the kept streams, and a world of
    another game seeds them again (rows: the round's reshuffle, then R and the round for the cards added)."""
    game, rollouts = _rollouts("sushi-go-party-starter", 4)
    values = count_values(game)
    rounds = game.ruleset.rounds
    unused = np.iinfo(np.uint64).max
    for seed in (11, 12, 11):
        state = game.new_initial_state(seed)  # round 0: reshuffles after rounds 0 and 1, cards added before 1 and 2
        for _ in range(2):
            assert rollouts.play(state) == _python_rollout(state, values)
        kept = [int(k) for k in rollouts._known]
        assert kept == [seed, seed, unused, unused, seed, seed][: 2 * rounds] and rounds == 3


@pytest.mark.parametrize(
    ("ruleset_id", "players"),
    [
        ("examples/caravan-bazaar.yaml", 2),  # every effect kind, a family named
        ("examples/caravan-bazaar.yaml", 6),
        ("sushi-go-party-dinner-for-two", 3),  # a race beside menus, miso soup and special orders
        ("sushi-go-party-cutthroat-combo", 8),  # spoons: a decision asked of another seat
        ("sushi-go-party-master-menu", 4),  # takeout boxes: cards turned face down
    ],
)
def test_kernel_rollout_ends_every_game_with_card_effects_as_the_engine(ruleset_id: str, players: int) -> None:
    """From many mid-game worlds of menus with card effects (cards discarded, changed,
    known in a hand, races under way), the kernel's roll-out, its decisions for the card
    effects by the policy, gives the engine's totals and winners; so does it after a
    first turn's moves given (random legal ones)."""
    game, rollouts = _rollouts(ruleset_id, players)
    assert rollouts.effects
    values = count_values(game)
    rng = random.Random(players)
    checked = changed = 0
    for world in _mid_game_worlds(game, 8, players):
        if world.finished:
            continue
        assert rollouts.refuses(world) is None
        assert rollouts.play(world) == _python_rollout(world, values), (ruleset_id, world.round, world.turn)
        joint = [world.sample_action(s, rng.random) for s in world.acting_seats()]
        assert rollouts.play(world, joint) == _python_rollout(world, values, joint), (world.round, world.turn, joint)
        checked += 1
        changed += bool(world.book.discarded or world.book.under or any(world.book.known_in_hand))
    assert checked > 40
    assert changed > 0


def test_kernel_rollout_scores_what_the_rulebook_says() -> None:
    """A last turn of Sushi Go! for two rolled out by the kernel, scored as the rulebook says."""
    game, rollouts = _rollouts("sushi-go", 2)
    state = game.new_initial_state(0)
    idx = game.ruleset.catalogue.index_of
    tempura, maki1, pudding = idx("tempura"), idx("maki_1"), idx("pudding")
    # the last round, one card left in each hand: seat 0 already holds two tempura
    state.round = game.ruleset.rounds - 1
    state.round_scores = [[0, 0], [0, 0]]
    state.hands = [[tempura], [maki1]]
    state.played = [[tempura, tempura], [pudding]]
    state.counts = [[0] * game.num_card_types for _ in range(2)]
    for seat, table in enumerate(state.played):
        for c in table:
            state.counts[seat][c] += 1
    state.kept_cards = [[], []]
    state.kept_counts = [[0] * game.num_card_types for _ in range(2)]
    state.deck, state.deck_pos = [], 0
    # seat 0: 3 tempura, one pair = 5; no maki; fewest pudding, but with two players
    # nobody loses 6 for it. seat 1: most maki rolls = 6; most pudding = 6
    assert rollouts.play(state) == ([5, 6 + 6], [1])
    assert rollouts.play(state) == _python_rollout(state, count_values(game))


def test_ismcts_searches_the_same_with_the_kernel() -> None:
    """A fixed budget of iterations grows the same tree, and chooses the same move, with
    the kernel's roll-outs as with the engine's, at several points of a game."""
    ruleset = _load("sushi-go-soy-sauce")
    game = Game(ruleset, 3)
    assert kernel_rollouts(game, compile=True) is not None
    rng = random.Random(3)
    state = game.new_initial_state(11)
    decisions = 0
    while not state.finished:
        seat = rng.randrange(3)
        if len(state.legal_actions(seat)) > 1 and rng.random() < 0.3:
            trees, moves = _searched_both_ways(seat_view(state, seat), seat, decisions, 80)
            assert trees[0] == trees[1]
            assert moves[0] == moves[1]
            assert sum(e[0] for e in trees[0][seat].values()) == 80
            decisions += 1
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert decisions >= 3


@pytest.mark.parametrize(
    ("ruleset_id", "players"), [("sushi-go-party-dinner-for-two", 3), ("examples/caravan-bazaar.yaml", 4)]
)
def test_ismcts_searches_the_same_with_the_kernel_where_cards_have_effects(ruleset_id: str, players: int) -> None:
    """With card effects, the same tree with the kernel's roll-outs as with the engine's,
    at picks and at the card effects' decisions (a seat's own and another's)."""
    game = Game(_load(ruleset_id), players)
    assert kernel_rollouts(game, compile=True) is not None
    rng = random.Random(3)
    state = game.new_initial_state(11)
    searched = decisions = 0
    while not state.finished:
        for seat in state.acting_seats():
            if len(state.legal_actions(seat)) > 1 and (state.pending is not None or rng.random() < 0.2):
                trees, _ = _searched_both_ways(seat_view(state, seat), seat, searched, 40, act=False)
                assert trees[0] == trees[1], (state.round, state.turn)
                searched += 1
                decisions += state.pending is not None
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert searched >= 8
    assert decisions >= 3


@pytest.mark.parametrize(
    ("ruleset_id", "players"),
    [
        ("sushi-go", 2),
        ("sushi-go-party-starter", 4),
        ("sushi-go-party-cutthroat-combo", 3),
        ("tests/data/kernel/race-no-effects.yaml", 3),  # a race without card effects
    ],
)
def test_ismcts_plays_the_same_games_with_the_kernel(ruleset_id: str, players: int) -> None:
    """Whole games of ismcts (with a fixed budget) against greedy are move for move the
    same with the kernel's roll-outs and without them."""
    game = Game(_load(ruleset_id), players)
    assert kernel_rollouts(game, compile=True) is not None
    for seed in (1, 2):
        games = []
        for use in ("yes", "no"):
            bots = [f"ismcts:iterations=25:kernel={use}"] + ["greedy"] * (players - 1)
            state = play_game(game, seed, bots)
            games.append(([r.actions for r in state.history], state.totals()))
        assert games[0] == games[1]


def test_states_the_kernel_cannot_hold_play_on_the_engine() -> None:
    """A roll-out of a game without a dummy refuses a dummy's world, one without effects
    a state with them, and a state with a pending decision; the dummy's own roll-out takes its world."""
    dummy = Game(load_ruleset("sushi-go-two-player-dummy"), 2)
    world = seat_view(dummy.new_initial_state(0), 0).world()
    _game, plain = _rollouts("sushi-go", 2)
    assert plain.refuses(world) == "a dummy"
    effects = Game(_load("examples/caravan-bazaar.yaml"), 2).new_initial_state(0)
    assert plain.refuses(effects) == "card effects or a race"
    own = kernel_rollouts(dummy, compile=True)
    assert own is not None and own.dummy and own.refuses(world) is None


@pytest.mark.parametrize("ruleset_id", ["sushi-go-two-player-dummy", "tests/data/kernel/dummy-can-win.yaml"])
def test_ismcts_with_a_dummy_searches_the_same_with_the_kernel(ruleset_id: str) -> None:
    """With a dummy, each iteration's world is dealt again by resample_hidden and rolled out in the
    kernel: the same tree and the same move as with the engine's roll-outs, the seat controlling the dummy or not."""
    game = Game(_load(ruleset_id), 2)
    assert kernel_rollouts(game, compile=True) is not None
    rng = random.Random(5)
    state = game.new_initial_state(17)
    searched = controlling = 0
    while not state.finished:
        for seat in state.acting_seats():
            if len(state.legal_actions(seat)) > 1 and rng.random() < 0.25:
                trees, moves = _searched_both_ways(seat_view(state, seat), seat, searched, 40)
                assert trees[0] == trees[1], (state.round, state.turn, seat)
                assert moves[0] == moves[1]
                searched += 1
                controlling += seat == state.controller
        state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
    assert searched >= 6 and controlling >= 2


def test_kernel_option_is_checked() -> None:
    """The kernel option takes auto, yes or no, and says so otherwise."""
    assert ISMCTSAgent(kernel=" YES ").kernel == "yes"
    with pytest.raises(ValueError, match="expected auto, yes or no"):
        ISMCTSAgent(kernel="always")


def test_auto_uses_the_kernel_only_when_its_rollout_is_compiled(monkeypatch) -> None:
    """kernel=auto never compiles: with the roll-out missing from the cache it plays the
    engine's roll-outs (the same move), with it there it loads the kernel."""
    import ruledraft.kernel as kernel_package

    game = Game(load_ruleset("sushi-go"), 3)  # a ruleset object of its own: nothing remembered for it
    real = kernel_package.is_cached
    monkeypatch.setattr(kernel_package, "is_cached", lambda ruleset, function="play": function != "rollout")
    assert kernel_rollouts(game) is None
    view = seat_view(game.new_initial_state(4), 0)
    engine_move = ISMCTSAgent(seed=5, iterations=40).act(view, 0)
    monkeypatch.setattr(kernel_package, "is_cached", real)
    assert kernel_rollouts(Game(load_ruleset("sushi-go"), 3), compile=True) is not None
    fresh = Game(load_ruleset("sushi-go"), 3)
    assert kernel_rollouts(fresh) is not None  # compiled now, so auto takes it
    assert ISMCTSAgent(seed=5, iterations=40).act(seat_view(fresh.new_initial_state(4), 0), 0) == engine_move


@pytest.mark.parametrize(
    ("ruleset_id", "players"),
    [
        ("sushi-go", 4),
        ("sushi-go-party-starter", 5),
        ("sushi-go-party-cutthroat-combo", 5),  # spoons: cards known in a hand stay there
        ("examples/caravan-bazaar.yaml", 3),
    ],
)
def test_root_deals_deal_as_resample_hidden(ruleset_id: str, players: int) -> None:
    """The kernel's re-deals of a root (one getrandbits a deal) give resample_hidden's
    hands, deck and held-back cards, and leave the generator where its draws leave it;
    where cards have effects too (their layout of the roll-out's array)."""
    from ruledraft.play.ismcts import _RootDeal

    game, rollouts = _rollouts(ruleset_id, players)
    checked = 0
    for world in _mid_game_worlds(game, 6, players + 7):
        if world.finished:
            continue
        seat = checked % players
        mine, theirs = random.Random(checked), random.Random(checked)
        deal = _RootDeal(world, seat, rollouts, theirs.getrandbits)
        assert deal.fits
        for _ in range(3):
            expected = world.resample_hidden(seat, mine.random)
            masks = deal.deal()
            got = deal.world()
            for s in range(players):  # the bitmasks hold each hand's card types
                assert masks[s] == sum(1 << c for c in set(expected.hands[s]))
                if s != seat:
                    assert deal.legal(s, masks) == expected.legal_actions(s)
            assert (got.hands, got.deck, got.reserves) == (expected.hands, expected.deck, expected.reserves)
            assert got.deck_pos == expected.deck_pos
            assert mine.random() == theirs.random()
        checked += 1
    assert checked > 20
