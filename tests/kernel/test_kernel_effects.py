"""Card effects in the kernel: each part does what its effect's step does on hand-made
tables, and simulate gives the same figures on both engines (the menus' games against the
reference's, every built-in bot, are in test_kernel_games_*.py: kernel_games.check_menu_games)."""

from __future__ import annotations

import random
from typing import Any, ClassVar

import attrs
import numpy as np
import pytest

pytest.importorskip("numba")

from kernel_checks import plain_kernel_module, simulate_on_both_engines  # noqa: E402
from paths import DATA, EXAMPLES  # noqa: E402

from ruledraft.engine.state import Game, State  # noqa: E402
from ruledraft.engine.view import SeatView  # noqa: E402
from ruledraft.kernel import bots_refusal, source_refusal  # noqa: E402
from ruledraft.language.effect import EffectKernelWriter, EffectPart  # noqa: E402
from ruledraft.language.effects.second_pick import SecondPick  # noqa: E402
from ruledraft.language.loading import load_ruleset  # noqa: E402
from ruledraft.play.gains import Baseline  # noqa: E402
from ruledraft.tableau import Tableau  # noqa: E402


def test_simulate_figures_and_logs_of_a_menu_with_decisions_are_the_same_on_both_engines(tmp_path):
    """simulate --json (every lab figure, the cards placed by chopsticks included) and the
    game log of the Sushi Go! menu are the same on the kernel and the reference engine."""
    figures = simulate_on_both_engines(
        tmp_path,
        ["sushi-go-party-sushi-go", "--players", "5", "--games", "120", "--seed", "3", "--bots", "random,greedy,value"],
    )
    assert figures["figures"]["cards"]


def test_simulate_figures_and_logs_of_a_menu_with_spoons_are_the_same_on_both_engines(tmp_path):
    """simulate --json (the cards a spoon brought counted as placed by the seat's choice)
    and the game log of Big Banquet with random and first bots: the same on both engines."""
    simulate_on_both_engines(
        tmp_path,
        ["sushi-go-party-big-banquet", "--players", "4", "--games", "150", "--seed", "8", "--bots", "random,first"],
    )


def test_simulate_figures_and_logs_of_the_sampler_with_takeout_boxes_are_the_same_on_both_engines(tmp_path):
    """simulate --json (every lab figure) and the game log of the Party sampler example,
    its takeout boxes turning cards face down beside wasabi: the same on both engines."""
    figures = simulate_on_both_engines(
        tmp_path,
        [str(EXAMPLES / "sushi-go-party-sampler.yaml"), "--players", "4", "--games", "150", "--seed", "5"]
        + ["--bots", "random,greedy,value,first"],
    )
    assert figures["figures"]["cards"]


def test_a_look_past_the_last_card_sees_the_turns_placements_as_the_reference_does(tmp_path):
    """Value bots deciding a special order's copy on the second-to-last turn: the look
    plays the last card, where the other seat's special order may copy the card it placed
    the turn before (game 196 of this run: copying an uramaki ties the race, 8 points,
    where the kernel once saw the other seat reach it first and took the pudding, 5)."""
    simulate_on_both_engines(
        tmp_path,
        [str(DATA / "race-special-order.yaml"), "--players", "2", "--games", "200", "--seed", "3", "--bots", "value"],
    )


def test_the_menus_with_cards_turned_face_down_beside_pairing_rules_are_not_refused():
    """Every effect has a kernel part now: a menu whose takeout boxes turn cards face down
    beside wasabi (the kernel's pairing reads the turned cards) plays every built-in bot,
    as does one with special orders and a race (Dinner for Two: greedy's, value's and the
    planner's look at a decision plays the race's turn end)."""
    sampler = load_ruleset(str(EXAMPLES / "sushi-go-party-sampler.yaml"))
    assert source_refusal(sampler, 4) is None
    assert source_refusal(sampler, 8, ["greedy", "value", "first", "random", "planner"] + ["random"] * 3) is None
    raced = load_ruleset("sushi-go-party-dinner-for-two")
    assert source_refusal(raced, 4) is None
    assert source_refusal(raced, 6, ["greedy", "value", "first", "random", "planner", "planner:samples=2"]) is None


#: a sparkler that doubles its targets for every rule (added to tests/data/effects-flip-copy.yaml)
BOOST = "  - {{id: sparkle, kind: boost, card: sparkler, targets: {targets}, factor: 2}}\n"


def test_greedy_is_refused_where_a_boost_reads_other_seats_beside_cards_turned_face_down():
    """A boost that changes a majority (it reads every seat's table) beside takeout boxes:
    the reference's greedy rescores it on the table with its turned cards, the kernel's on
    the cards alone, so greedy is refused (by name); value, random and first play; a boost
    of one seat's own cards is rescored alike, so greedy plays beside it."""
    text = (DATA / "effects-flip-copy.yaml").read_text(encoding="utf-8")
    text = text.replace("deal:\n", "  - {id: sparkler, count: 4, group: sparkler}\ndeal:\n", 1)
    own = load_ruleset("own.yaml", text=text + BOOST.format(targets="{tag: nigiri}"))
    wide = load_ruleset("wide.yaml", text=text + BOOST.format(targets="maki_2"))
    assert not next(r for r in wide.rules if r.id == "sparkle").own_cards_only
    for ruleset in (own, wide):
        assert source_refusal(ruleset, 2, ["greedy", "value"]) is None
    assert bots_refusal(own, ["greedy", "greedy"]) is None
    reason = bots_refusal(wide, ["greedy", "random"]) or ""
    assert "greedy" in reason and "turned face down" in reason
    assert bots_refusal(wide, ["value", "first"]) is None
    # why: a maki turned face down on its sparkler leaves it used; the reference's greedy
    # sees that (3 points for one more maki: a tie), a rescoring of the cards alone does not (6)
    ix = wide.catalogue.index_of
    sparkler, maki, face = ix("sparkler"), ix("maki_2"), ix("takeout_face_down")
    cards = Tableau.from_cards(wide.catalogue.size, [[sparkler, face], [maki]], 1)
    turned = Tableau(cards.counts, cards.cards, 1, [{1: (maki, 2)}, {}])
    reading = Game(wide, 2).round_rules_reading[maki]
    assert (Baseline(turned, 0).gain(reading, maki), Baseline(cards, 0).gain(reading, maki)) == (3, 6)


@attrs.frozen(kw_only=True)
class _BlindPick(SecondPick):
    """Party chopsticks whose part does not let greedy and value look ahead."""

    KIND: ClassVar[str] = "second_pick"

    def kernel(self, w: EffectKernelWriter) -> EffectPart:
        return attrs.evolve(super().kernel(w), lookahead=False)


def test_greedy_value_and_the_planner_are_refused_where_an_effects_decisions_allow_no_look():
    """An effect that asks decisions the kernel's greedy, value and planner cannot judge
    refuses those bots (by name), not random and first."""
    ruleset = load_ruleset("sushi-go-party-sushi-go")
    blind = attrs.evolve(
        ruleset,
        effects=tuple(
            _BlindPick(**{f.name: getattr(e, f.name) for f in attrs.fields(type(e))})
            if isinstance(e, SecondPick)
            else e
            for e in ruleset.effects
        ),
    )
    assert "greedy" in (source_refusal(blind, 4, ["random", "greedy", "first", "first"]) or "")
    assert "value" in (source_refusal(blind, 4, ["value", "random", "first", "first"]) or "")
    # a name with spaces around it is the bot the kernel plays, so it is refused alike
    for planner in ("planner", "planner:samples=3", " planner ", " planner:samples=2"):
        reason = source_refusal(blind, 4, [planner, "random", "first", "first"]) or ""
        assert reason == "the planner bot's choices on card effects' decisions have no kernel part yet"
    assert "greedy" in (source_refusal(blind, 4, ["random", " greedy", "first", "first"]) or "")
    assert source_refusal(blind, 4, ["random", "first", "first", "random"]) is None
    assert source_refusal(ruleset, 4, ["greedy", "value", "first", "random"]) is None


def test_a_menu_that_stays_beside_the_card_it_plays_is_refused_by_name():
    """A draw_and_choose effect with discard: false leaves its card beside the one it
    plays, and a chain of them may grow a table past the kernel's room: the kernel
    refuses the ruleset naming the kind (the reference engine plays it); with the card
    discarded, the same ruleset compiles."""
    ruleset = load_ruleset(DATA / "effects-small.yaml")  # its sampler keeps its card
    reason = "card effects (draw_and_choose) that keep their card beside the one they play have no kernel part yet"
    assert source_refusal(ruleset, 3) == reason
    discarded = tuple(attrs.evolve(e, discard=True) if e.kind == "draw_and_choose" else e for e in ruleset.effects)
    assert source_refusal(attrs.evolve(ruleset, effects=discarded), 3) is None


def test_a_deck_that_menus_empty_fails_on_the_kernel_with_the_reference_engines_words():
    """keep_deck, with menus that take deck cards onto the tables for good: where the
    deck runs out before a deal, the kernel's games and ismcts's roll-out on it fail as
    the reference engine's do, with its words, never playing on what lies past the deck;
    the games before that one are the reference's."""
    from ruledraft.errors import InputError
    from ruledraft.kernel import Kernel, compile_kernel
    from ruledraft.play.planner import COUNT_CAP, policy_action
    from ruledraft.play.runner import play_game

    ruleset = load_ruleset(DATA / "effects-small.yaml")
    discarded = tuple(attrs.evolve(e, discard=True) if e.kind == "draw_and_choose" else e for e in ruleset.effects)
    kept = attrs.evolve(ruleset, effects=discarded, between_rounds="keep_deck")  # 37 cards; two rounds of 18 dealt
    game = Game(kept, 3)
    outcomes = []
    for seed in range(12):
        try:
            outcomes.append(play_game(game, seed, ["random"] * 3).totals())
        except InputError as e:
            outcomes.append(str(e))
    assert "the deck has run out in round 2" in outcomes and any(isinstance(o, list) for o in outcomes)
    kernel = compile_kernel(kept, 3)
    assert isinstance(kernel, Kernel), kernel
    for seed, outcome in enumerate(outcomes):
        if isinstance(outcome, str):
            with pytest.raises(InputError, match=f"^{outcome}$"):
                kernel.play([seed], ["random"] * 3)
        else:
            assert kernel.play([seed], ["random"] * 3).totals[0].tolist() == outcome
    # ismcts measures its card values on whole games, which fail here too: values of its own
    values = [[float((c * 7 + n) % 5) for n in range(COUNT_CAP + 1)] for c in range(kept.catalogue.size)]
    roll = kernel.rollouts(values)
    assert roll.effects
    rng = random.Random(1)
    failed = played = 0
    for seed in range(40):  # from a point of round 1 or 2 it fails where the policy's game does
        state = game.new_initial_state(seed)
        try:
            for _ in range(rng.randrange(12)):
                state.apply_actions([state.sample_action(s, rng.random) for s in state.acting_seats()])
        except InputError:
            continue  # (the random game itself ran out)
        if state.pending is not None or state.finished:
            continue
        det = state.clone()
        try:
            while not det.finished:
                det.apply_actions([policy_action(det, s, values) for s in det.acting_seats()])
            expected: Any = (det.totals(), det.winners)
        except InputError as e:
            expected = str(e)
        if isinstance(expected, str):
            with pytest.raises(InputError, match=f"^{expected}$"):
                roll.play(state)
            failed += 1
        else:
            assert roll.play(state) == expected
            played += 1
    assert failed > 0 and played > 0


# ---------------------------------------------------------------- each part on hand-made tables


def _second_turn(m: dict[str, Any], hands, before, picks, earlier):
    """The plain module's table after three seats' second turn (first bots): ``before``
    on the tables and ``picks`` played, ``earlier`` placed earlier in the round."""
    fx, lk = _plain_fx(m, hands, [b + [c] for b, c in zip(before, picks)])
    for s, cards in enumerate(earlier):
        for c in cards:
            fx.rpl[s, c] += 1
    p = np.array([[c, -1] for c in picks], np.int64)
    m["_fx_turn"](fx, lk, p, np.ones(3, np.int64), np.zeros((625, 3), np.uint32), 0, 1, 0, 0)
    return fx


def _plain_fx(m: dict[str, Any], hands, tables):
    """The plain kernel's table of one game: ``hands`` (each seat holding its own) and
    ``tables``; (fx, look)."""
    N, K, H = len(hands), m["K"], 12
    hand = np.zeros((N, H + 1), np.int64)
    hl = np.array([len(h) for h in hands], np.int64)
    for s, h in enumerate(hands):
        hand[s, : len(h)] = h
    counts = np.zeros((N, K), np.int64)
    seq = np.zeros((N, H + 2), np.int64)
    lens = np.array([len(x) for x in tables], np.int64)
    for s, x in enumerate(tables):
        seq[s, : len(x)] = x
        for c in x:
            counts[s, c] += 1
    slot = np.arange(N, dtype=np.int64)
    outputs = (np.full((1, 8, 4), -1, np.int64), np.full((1, 8, 3), -1, np.int64))
    fx = m["_fx_new"](hand, hl, slot, counts, seq, lens, *outputs, np.zeros(m["DT"], np.int64))
    m["_fx_game"](fx, 0, np.uint64(0))
    kept = (counts * 0, seq * 0, lens * 0)
    progress = np.zeros((max(m["NRACE"], 1), N + 1), np.int64)  # the races' this round: none yet
    lk = m["_look_new"](
        fx, np.zeros(m["DT"], np.int64), np.zeros(1, np.int64), *kept, np.zeros((1, N), np.int64), progress
    )
    return fx, lk


def _plain_turn(m: dict[str, Any], hands, tables, picks):
    """One turn's effects in the plain kernel, first bots deciding: ``hands`` after the
    picks, ``tables`` with them on. (hands, tables, discarded, decisions) after it."""
    N = len(hands)
    fx, lk = _plain_fx(m, hands, tables)
    p = np.full((N, 2), -1, np.int64)
    p[:, 0] = picks
    m["_fx_turn"](fx, lk, p, np.ones(N, np.int64), np.zeros((625, N), np.uint32), 0, 0, 0, 0)
    hand, hl, seq, lens = fx.hand, fx.hl, fx.seq, fx.lens
    out_hands = [hand[s, : hl[s]].tolist() for s in range(N)]
    out_tables = [seq[s, : lens[s]].tolist() for s in range(N)]
    decisions = [tuple(int(x) for x in row[1:]) for row in fx.dec[0] if row[0] >= 0]
    return out_hands, out_tables, fx.dis[: fx.ctr[m["D_N"]]].tolist(), decisions


def _engine_state(ruleset: Any, hands, tables):
    """A reference state at the first turn of round one with these hands and tables."""
    game = Game(ruleset, len(hands))
    state = game.new_initial_state(0)
    state.hands = [list(h) for h in hands]
    state.played = [list(x) for x in tables]
    state.counts = [[x.count(c) for c in range(game.num_card_types)] for x in tables]
    return state


def test_collision_discards_every_copy_placed_in_a_turn_as_the_engine_does():
    """Miso soup: two placed in a turn (one seat had one from before): both of this turn
    leave their tables for the discard pile and the older one stays, as the engine's step
    leaves them; a copy alone in its turn stays."""
    ruleset = load_ruleset("sushi-go-party-my-first-meal")
    ids = ruleset.catalogue.index_of
    miso, tempura, maki = ids("miso_soup"), ids("tempura"), ids("maki_1")
    m = plain_kernel_module(ruleset)
    hands = [[miso, tempura, maki, maki], [miso, tempura, maki, maki], [tempura, maki, maki, maki]]
    before = [[miso], [], []]
    for picks in ([miso, miso, tempura], [miso, tempura, tempura]):
        ref = _engine_state(ruleset, hands, before)
        ref.apply_actions(picks)
        assert ref.book is not None
        after = [[c for c in h] for h in hands]
        for h, c in zip(after, picks):
            h.remove(c)
        got = _plain_turn(m, after, [b + [c] for b, c in zip(before, picks)], picks)
        assert got[1] == [list(x) for x in ref.played]
        assert got[2] == ref.book.discarded
    assert got[2] == []  # the second case: one miso soup alone
    assert got[1][0] == [miso, miso]


def test_second_pick_plays_a_second_card_and_takes_the_chopsticks_back_as_the_engine_does():
    """Party chopsticks on the table from an earlier turn: the seat is offered its hand's
    distinct cards and done, as the engine offers them; the card chosen goes on its table
    and the chopsticks to the end of its hand; done changes nothing."""
    ruleset = load_ruleset("sushi-go-party-sushi-go")
    ids = ruleset.catalogue.index_of
    chop, tempura, sashimi, egg = ids("chopsticks_1"), ids("tempura"), ids("sashimi"), ids("egg_nigiri")
    done = ruleset.catalogue.size + len(ruleset.catalogue.tags)
    m = plain_kernel_module(ruleset)
    hands = [[sashimi, egg, tempura, sashimi], [tempura, sashimi, egg, egg]]
    tables = [[chop], [egg]]
    ref = _engine_state(ruleset, hands, tables)
    ref.apply_actions([tempura, egg])
    assert ref.pending is not None and ref.pending.seat == 0
    assert list(ref.pending.options) == [egg, sashimi, done]
    ref.apply_actions([egg])  # what the first bot chooses: the first option
    got_hands, got_tables, _, decisions = _plain_turn(
        m, [[sashimi, egg, sashimi], [tempura, sashimi, egg]], [[chop, tempura], [egg, egg]], [tempura, egg]
    )
    assert decisions == [(0, 0, egg)]
    assert got_tables == [list(x) for x in ref.played] == [[tempura, egg], [egg, egg]]
    assert got_hands[0] == [sashimi, sashimi, chop]
    assert sorted(got_hands[0]) in [sorted(h) for h in ref.hands]  # passed on by now
    # done: nothing moves
    fx, _ = _plain_fx(m, [[sashimi, egg]], [[chop, tempura]])
    e = next(i for i, x in enumerate(ruleset.effects) if x.card == chop)
    assert m["_fx_start"](fx, e, 0) == 3 and fx.opts[:3].tolist() == [egg, sashimi, done]
    m["_fx_decide"](fx, e, 0, done)
    assert fx.hand[0, : fx.hl[0]].tolist() == [sashimi, egg] and fx.seq[0, : fx.lens[0]].tolist() == [chop, tempura]


def test_ask_for_asks_around_the_table_and_the_giver_chooses_as_the_engine_does():
    """Spoon: a family named; the seat to the left has none, the next holds two kinds of
    it and is asked to choose; the card it gives is played by the asker and the spoon goes
    into the giver's hand, as the engine's step does; a card nobody holds: the spoon is
    discarded."""
    ruleset = load_ruleset("sushi-go-party-big-banquet")
    ids = ruleset.catalogue.index_of
    spoon, tempura, eel, dumpling = ids("spoon_4"), ids("tempura"), ids("eel"), ids("dumpling")
    maki1, maki3 = ids("maki_1"), ids("maki_3")
    K = ruleset.catalogue.size
    maki = K + ruleset.catalogue.tags.index("maki")
    m = plain_kernel_module(ruleset)
    e = next(i for i, x in enumerate(ruleset.effects) if x.card == spoon)
    hands = [[tempura, eel, eel], [dumpling, eel, tempura], [maki3, maki1, eel]]
    tables = [[spoon, tempura], [eel], [dumpling]]
    ref = _engine_state(ruleset, [h + [c] for h, c in zip(hands, (tempura, eel, dumpling))], [[spoon], [], []])
    ref.apply_actions([tempura, eel, dumpling])
    assert ref.pending is not None and ref.pending.seat == 0
    ref.apply_actions([maki])
    assert ref.pending is not None and ref.pending.seat == 2 and list(ref.pending.options) == [maki1, maki3]
    ref.apply_actions([maki3])
    fx, _ = _plain_fx(m, hands, tables)
    fx.ctr[m["OWNER_AT"]] = 0
    n = m["_fx_start"](fx, e, 0)
    assert fx.opts[:n].tolist()[-1] == ruleset.catalogue.size + len(ruleset.catalogue.tags)
    assert maki in fx.opts[:n].tolist()
    m["_fx_decide"](fx, e, 0, maki)
    assert fx.ctr[m["F_SEAT"]] == 2 and fx.opts[: fx.ctr[m["F_N"]]].tolist() == [maki1, maki3]
    m["_fx_decide"](fx, e, 2, maki3)
    assert [fx.seq[s, : fx.lens[s]].tolist() for s in range(3)] == [list(x) for x in ref.played]
    assert fx.hand[2, : fx.hl[2]].tolist() == [maki1, eel, spoon]
    assert sorted(fx.hand[2, : fx.hl[2]].tolist()) in [sorted(h) for h in ref.hands]  # passed on by now
    # a card nobody holds: the spoon leaves the table, discarded
    fx, _ = _plain_fx(m, hands, tables)
    fx.ctr[m["OWNER_AT"]] = 0
    m["_fx_decide"](fx, e, 0, ids("egg_nigiri"))
    assert fx.seq[0, : fx.lens[0]].tolist() == [tempura] and fx.dis[: fx.ctr[m["D_N"]]].tolist() == [spoon]


# ---------------------------------------------------------------- greedy's and value's look at spoons and menus


def test_a_spoon_given_stays_known_in_the_givers_hand_until_it_leaves_as_the_engine_keeps_it():
    """The spoon a giver gets is known to be in its hand (the engine's known_in_hand) and
    passes with that hand; at a pass after it has left the hand it is no longer known."""
    ruleset = load_ruleset("sushi-go-party-big-banquet")
    ids = ruleset.catalogue.index_of
    spoon, tempura, eel, dumpling = ids("spoon_4"), ids("tempura"), ids("eel"), ids("dumpling")
    m = plain_kernel_module(ruleset)
    e = next(i for i, x in enumerate(ruleset.effects) if x.card == spoon)
    hands = [[tempura, eel], [dumpling, eel], [tempura, tempura]]
    ref = _engine_state(ruleset, [h + [c] for h, c in zip(hands, (tempura, eel, dumpling))], [[spoon], [], []])
    ref.apply_actions([tempura, eel, dumpling])
    ref.apply_actions([dumpling])  # asked for dumpling: seat 1 gives it and gets the spoon
    assert ref.book is not None and ref.pending is None
    fx, _ = _plain_fx(m, hands, [[spoon, tempura], [eel], [dumpling]])
    fx.ctr[m["OWNER_AT"]] = 0
    m["_fx_decide"](fx, e, 0, dumpling)
    assert fx.hand[1, : fx.hl[1]].tolist() == [eel, spoon]
    known = [[c for c in range(m["K"]) for _ in range(fx.kn[h, c])] for h in range(3)]
    assert known == [[], [spoon], []]
    m["_fx_known_pass"](fx)
    assert fx.kn[1, spoon] == 1  # still in the hand
    # the hands passed left in the engine: the known spoon went with seat 1's hand to seat 2
    assert ref.book.known_in_hand == [[], [], [spoon]] and spoon in ref.hands[2]
    m["fx_take_from_hand"](fx, 1, spoon)
    m["_fx_known_pass"](fx)
    assert fx.kn.sum() == 0
    ref.book.known_in_hand = [[], [spoon], []]
    ref.book.pass_known([[eel], [eel], [tempura]], 1)
    assert ref.book.known_in_hand == [[], [], []]


def _pending(ruleset_id: str, players: int, kind: str, found: int, known: bool) -> list[State]:
    """Copies of states of random reference games waiting for a decision of ``kind`` with
    more than one option, ``found`` of them (at most one a turn); ``known``: only where a
    hand the deciding seat has not held holds a card known to every seat (a spoon given)."""
    game = Game(load_ruleset(ruleset_id), players)
    out: list[State] = []
    seed = 0
    while len(out) < found:
        seed += 1
        state = game.new_initial_state(seed)
        rngs = [random.Random(seed * 10 + s).random for s in range(players)]
        last = (-1, -1)
        while not state.finished and len(out) < found:
            p = state.pending
            if p is not None and p.effect == kind and len(p.options) > 1 and (state.round, state.turn) != last:
                held = game.procedure.known_hands(state, p.seat)
                hidden_known = any(k for o, k in enumerate(state.book.known_in_hand) if o != p.seat and o not in held)
                if hidden_known or not known:
                    out.append(state.clone())
                last = (state.round, state.turn)
            state.apply_actions([state.sample_action(s, rngs[s]) for s in state.acting_seats()])
    return out


def _fx_of_state(m: dict[str, Any], state: State):
    """The plain kernel's table of a reference state waiting for a decision: hands,
    tables, the undealt deck, the cards shown, the cards known in hands; (fx, look)."""
    N, K = state.game.num_players, m["K"]
    fx, _ = _plain_fx(m, state.hands, state.played)
    deck = fx.deck
    deck[: len(state.deck)] = state.deck
    p = state.pending
    assert p is not None and state.book is not None
    ctr = fx.ctr
    ctr[m["R_AT"]], ctr[m["T_AT"]], ctr[m["OWNER_AT"]] = state.round, state.turn, p.owner
    ctr[m["POS_AT"]], ctr[m["DLEN_AT"]], ctr[m["SHOWN_N"]] = state.deck_pos, len(state.deck), len(p.shown)
    fx.shown[: len(p.shown)] = p.shown
    fx.gs[0] = state.seed
    for seat, cards in enumerate(state.book.known_in_hand):
        for c in cards:
            fx.kn[seat, c] += 1
    kept = (np.zeros((N, K), np.int64), np.zeros((N, 40), np.int64), np.zeros(N, np.int64))
    assert m["NRACE"] == 0  # the menus looked at here have no race (whose progress the look would read)
    progress = np.zeros((1, N + 1), np.int64)
    lk = m["_look_new"](fx, deck, np.zeros(1, np.int64), *kept, np.array([state.totals()], np.int64), progress)
    return fx, lk


def _look_world(m: dict[str, Any], state: State, seed: int):
    """The plain kernel's look at ``state``'s decision, its world dealt (``_look_pool``,
    one key a card from the stream of ``seed``, ``_look_deal``) into a fresh copy; a
    function making that copy again."""
    fx, lk = _fx_of_state(m, state)
    s, t, pos, dlen = state.pending.seat, state.turn, state.deck_pos, len(state.deck)
    streams = np.zeros((625, 1), np.uint32)
    m["mt_seed_many"](streams, np.array([seed], np.uint64))
    npool = m["_look_pool"](fx, lk, s, t, pos, dlen)
    for i in range(npool):
        lk.keys[i] = m["random_at"](streams, 0)
    order = m["_stable_order"](lk.keys, npool)

    def dealt():
        m["_look_copy"](fx, lk.fy)
        m["_look_deal"](fx, lk, lk.fy, s, t, order, pos, dlen)
        return lk.fy

    return dealt


def _hands(fy) -> list[list[int]]:
    return [sorted(fy.hand[fy.slot[s], : fy.hl[fy.slot[s]]].tolist()) for s in range(len(fy.lens))]


@pytest.mark.parametrize(
    ("ruleset_id", "players", "kind", "known"),
    [
        ("sushi-go-party-party-sampler", 4, "draw_and_choose", False),
        ("sushi-go-party-big-banquet", 4, "ask_for", False),
        ("sushi-go-party-big-banquet", 5, "ask_for", True),
        ("sushi-go-party-big-banquet", 5, "second_pick", True),
    ],
)
def test_the_look_re_deals_what_the_seat_cannot_see_as_sample_world_does(ruleset_id, players, kind, known):
    """At menus', spoons' and chopsticks' decisions of reference games, the kernel's look
    deals the hidden hands (keeping a spoon known to be in one) and the undealt deck as
    SeatView.sample_world deals them from the same stream; each option then changes that
    world as the engine's step changes its world: the cards a menu shuffles back by the
    world's seed, a spoon's giver and its choice found in the re-dealt hands."""
    ruleset = load_ruleset(ruleset_id)
    m = plain_kernel_module(ruleset)
    for n, state in enumerate(_pending(ruleset_id, players, kind, 12, known)):
        p = state.pending
        assert p is not None and state.book is not None
        seed = 1000 + n
        dealt = _look_world(m, state, seed)
        world = SeatView(state, p.seat).sample_world(random.Random(seed).random)
        fy = dealt()
        assert _hands(fy) == [sorted(h) for h in world.hands]
        assert fy.deck[state.deck_pos : len(state.deck)].tolist() == world.deck[world.deck_pos :]
        e = next(i for i, x in enumerate(ruleset.effects) if x.card == p.card)
        for a in p.options:
            fy = dealt()
            after = world.clone()
            follow = ruleset.effects[e].decide(after, after.pending, a)
            m["_fx_decide"](fy, e, p.seat, a)
            assert [fy.seq[s, : fy.lens[s]].tolist() for s in range(players)] == after.played, (n, a)
            assert _hands(fy) == [sorted(h) for h in after.hands], (n, a)
            deck = fy.deck[fy.ctr[m["POS_AT"]] : fy.ctr[m["DLEN_AT"]]].tolist()
            assert deck == after.deck[after.deck_pos :], (n, a)
            asked = fy.ctr[m["F_N"]]
            assert (follow is None) == (asked == 0)
            if follow is not None:
                assert (fy.ctr[m["F_SEAT"]], fy.opts[:asked].tolist()) == (follow.seat, list(follow.options))


def _first_decisions(state: Any) -> None:
    """The reference state's pending decisions of this turn each answered by its first option."""
    while state.pending is not None:
        state.apply_actions([state.pending.options[0]])


def _under(fx: Any, m: dict[str, Any]) -> list[tuple[int, int, int, int]]:
    """The plain kernel's changed table cards: (seat, position, physical card, face before turned)."""
    return sorted(tuple(int(x) for x in row[:4]) for row in fx.und[: fx.ctr[m["U_N"]]])


def _box_turn(m: dict[str, Any], ruleset: Any, hands, before, picks, offered):
    """A turn of three seats whose first plays a takeout box, on the reference engine
    (its decision offering ``offered``, each answered by its first option) and in the
    plain kernel's turn (first bots): (the reference state, the kernel's table), the
    tables already checked alike."""
    ref = _engine_state(ruleset, [h + [c] for h, c in zip(hands, picks)], before)
    ref.apply_actions(list(picks))
    assert ref.pending is not None and list(ref.pending.options) == offered
    _first_decisions(ref)
    assert ref.book is not None
    fx, lk = _plain_fx(m, hands, [b + [c] for b, c in zip(before, picks)])
    p = np.array([[c, -1] for c in picks], np.int64)
    m["_fx_turn"](fx, lk, p, np.ones(3, np.int64), np.zeros((625, 3), np.uint32), 0, 1, 0, 0)
    assert [fx.seq[s, : fx.lens[s]].tolist() for s in range(3)] == [list(x) for x in ref.played]
    return ref, fx


def test_turn_face_down_turns_cards_one_at_a_time_then_discards_the_box_as_the_engine_does():
    """Takeout box: its seat is offered its table's card types (not the box, not a face-down
    card) and done; each card chosen (the first bot's: the first) has its newest copy turned
    into the face-down card, its physical card remembered, and the box asks again; at done
    the box is discarded, as the engine's steps do."""
    ruleset = load_ruleset("sushi-go-party-master-menu")
    ids = ruleset.catalogue.index_of
    box, face, temaki, tofu, sashimi = (
        ids(x) for x in ("takeout_box_10", "takeout_face_down", "temaki", "tofu", "sashimi")
    )
    done = ruleset.catalogue.size + len(ruleset.catalogue.tags)
    m = plain_kernel_module(ruleset)
    hands = [[tofu, tofu], [temaki, sashimi], [sashimi, tofu]]
    ref, fx = _box_turn(
        m, ruleset, hands, [[tofu, temaki, tofu], [sashimi], []], (box, temaki, sashimi), [temaki, tofu, done]
    )
    assert fx.seq[0, : fx.lens[0]].tolist() == [face, face, face]
    assert fx.dis[: fx.ctr[m["D_N"]]].tolist() == ref.book.discarded == [box]
    # after the third card nothing is left to turn: the box is discarded without asking
    assert [tuple(row[2:]) for row in fx.dec[0] if row[0] >= 0] == [(0, temaki), (0, tofu), (0, tofu)]
    assert _under(fx, m) == sorted((s, p, c, c) for (s, p), (c, _, _) in ref.book.under.items())
    # the physical cards go back into the deck at round end, each in place of its face
    rest = np.zeros(m["DT"], np.int64)
    rest[:3] = [face, face, face]
    fx.ctr[m["DLEN_AT"]] = fx.ctr[m["POS_AT"]] = 0
    n = m["_fx_discarded"](fx, rest, 3)
    assert rest[:n].tolist() == [tofu, temaki, tofu, box] and fx.ctr[m["U_N"]] == 0


def test_turn_face_down_may_turn_another_box_on_its_table_as_the_engine_does():
    """A box whose table holds another box (put down by chopsticks this turn, or left from
    an earlier turn here) is offered it; turned, it becomes a face-down card: both engines."""
    ruleset = load_ruleset("sushi-go-party-master-menu")
    ids = ruleset.catalogue.index_of
    box, other, face, tofu, temaki = (
        ids(x) for x in ("takeout_box_10", "takeout_box_11", "takeout_face_down", "tofu", "temaki")
    )
    done = ruleset.catalogue.size + len(ruleset.catalogue.tags)
    m = plain_kernel_module(ruleset)
    hands = [[tofu, tofu], [temaki, tofu], [tofu, temaki]]
    ref, fx = _box_turn(m, ruleset, hands, [[tofu, other], [], []], (box, temaki, tofu), sorted([tofu, other]) + [done])
    assert fx.seq[0, : fx.lens[0]].tolist() == [face, face]
    assert fx.dis[: fx.ctr[m["D_N"]]].tolist() == ref.book.discarded == [box]
    assert sorted(row[3] for row in fx.dec[0] if row[0] >= 0) == sorted([tofu, other])
    assert _under(fx, m) == sorted((s, p, c, c) for (s, p), (c, _, _) in ref.book.under.items())


def test_copy_earlier_becomes_a_card_placed_earlier_this_round_as_the_engine_does():
    """Special order: offered the card types its seat placed earlier this round (and
    earlier this turn), never another special order; the newest special order becomes the
    first bot's choice (counted as placed as it, its physical card remembered); with one
    card to copy it copies without asking; with none it is discarded."""
    ruleset = load_ruleset("sushi-go-party-points-platter")
    ids = ruleset.catalogue.index_of
    order, dumpling, tea, edamame, uramaki = (
        ids(x) for x in ("special_order", "dumpling", "tea", "edamame", "uramaki_4")
    )
    m = plain_kernel_module(ruleset)
    hands = [[tea, tea], [tea, edamame], [tea, tea]]
    before = [[tea, dumpling, order], [uramaki], []]
    picks = (order, order, order)
    ref = _engine_state(ruleset, [h + [c] for h, c in zip(hands, picks)], before)
    assert ref.book is not None
    earlier = ((tea, dumpling, order), (uramaki,), ())
    ref.book.round_placed = earlier
    ref.apply_actions(list(picks))
    assert ref.pending is not None and ref.pending.seat == 0 and list(ref.pending.options) == [dumpling, tea]
    _first_decisions(ref)
    fx = _second_turn(m, hands, before, picks, earlier)
    assert [fx.seq[s, : fx.lens[s]].tolist() for s in range(3)] == [list(x) for x in ref.played]
    assert fx.seq[0, : fx.lens[0]].tolist() == [tea, dumpling, order, dumpling]  # the newest became a dumpling
    assert fx.seq[1, : fx.lens[1]].tolist() == [uramaki, uramaki]  # one card to copy: no decision
    assert fx.dis[: fx.ctr[m["D_N"]]].tolist() == ref.book.discarded == [order]  # seat 2: nothing to copy
    assert [tuple(row[2:]) for row in fx.dec[0] if row[0] >= 0] == [(0, dumpling)]
    assert _under(fx, m) == sorted((s, p, c, -1) for (s, p), (c, _, _) in ref.book.under.items())
    assert fx.rpl[0, dumpling] == 2 and fx.rpl[1, uramaki] == 2  # placed as the copy this turn


def test_a_race_takes_a_copy_off_its_table_as_its_physical_card_after_the_effects_discards():
    """Uramaki beside special orders: a special order copies an uramaki, the seat's icons
    reach the race's goal, and every uramaki leaves its table; each is discarded as the
    engine's turn end discards it (the newest copy of a card first, so the special order
    under its face), after the cards the turn's effects discarded, and no changed card is left."""
    ruleset = load_ruleset("sushi-go-party-points-platter")
    ids = ruleset.catalogue.index_of
    order, u3, u5, tea = (ids(x) for x in ("special_order", "uramaki_3", "uramaki_5", "tea"))
    m = plain_kernel_module(ruleset)
    hands = [[tea, tea], [tea, tea], [tea, tea]]
    before = [[u5, u3], [], []]
    picks = (order, tea, order)
    ref = _engine_state(ruleset, [h + [c] for h, c in zip(hands, picks)], before)
    assert ref.book is not None
    earlier = ((u5, u3), (), ())
    ref.book.round_placed = earlier
    ref.apply_actions(list(picks))
    assert ref.pending is not None and list(ref.pending.options) == [u3, u5]
    _first_decisions(ref)  # the special order becomes the third uramaki (3 icons): 11 reach the goal
    assert ref.played[0] == [] and ref.book.discarded == [order, u5, order, u3]
    fx = _second_turn(m, hands, before, picks, earlier)
    assert fx.seq[0, : fx.lens[0]].tolist() == [u5, u3, u3] and _under(fx, m) == [(0, 2, order, -1)]
    K, N = ruleset.catalogue.size, 3
    prog, took = np.zeros((1, N + 1), np.int64), np.zeros((1, N, K), np.int64)
    nd = m["_race_turn"](fx, fx.counts, fx.seq, fx.lens, 1, prog, took, np.zeros(m["DT"], np.int64), 0)
    assert nd == 0 and fx.lens[0] == 0 and _under(fx, m) == []
    assert fx.dis[: fx.ctr[m["D_N"]]].tolist() == ref.book.discarded
    assert took[0, 0, u3] == 2 and took[0, 0, u5] == 1  # the lab counts the faces the race took
