"""Cards turned face down beside rules that pair cards, in the kernel: a takeout box turns
a wasabi or a nigiri on it face down before or after a nigiri is played, and the kernel
scores the table as the reference engine and the rulebook do (Sushi Go Party!'s rulings:
a nigiri lands on the oldest wasabi empty and face up when it is placed and stays there;
a wasabi turned later loses its x3, a turned nigiri leaves its wasabi used, an empty
wasabi turned takes no later nigiri). The module's text runs as plain Python (the very
source the kernel compiles, without numba), so no kernel is compiled here."""

from __future__ import annotations

import functools
import random
from typing import Any

import numpy as np
import pytest
from kernel_checks import plain_kernel_module
from paths import DATA, EXAMPLES

from ruledraft.engine.scoresheet import score_scoring
from ruledraft.engine.state import Game, State
from ruledraft.kernel.codegen import plain_rule
from ruledraft.language.loading import load_ruleset
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.tableau import Tableau

SAMPLER = str(EXAMPLES / "sushi-go-party-sampler.yaml")
LANTERN = str(EXAMPLES / "lantern-festival.yaml")


@functools.cache
def sampler() -> CompiledRuleset:
    return load_ruleset(SAMPLER)


@functools.cache
def uramaki_sampler() -> CompiledRuleset:
    """The sampler's menu with uramaki (a race) for maki."""
    text = (EXAMPLES / "sushi-go-party-sampler.yaml").read_text(encoding="utf-8")
    text = text.replace("menu: [maki,", "menu: [uramaki,").replace("id: sushi-go-party-sampler", "id: uramaki-sampler")
    return load_ruleset("uramaki-sampler.yaml", text=text)


@functools.cache
def boost_flip() -> CompiledRuleset:
    """The takeout box's small test rule file with a sparkler that doubles the next nigiri
    for every rule (as tests/engine/test_boost_face_down.py builds it)."""
    text = (DATA / "effects-flip-copy.yaml").read_text(encoding="utf-8")
    text = text.replace("deal:\n", "  - {id: sparkler, count: 4, group: sparkler}\ndeal:\n", 1)
    text += "  - {id: sparkle, kind: boost, card: sparkler, targets: {tag: nigiri}, factor: 2}\n"
    return load_ruleset("boost-flip.yaml", text=text)


@functools.cache
def plain_module(which: str) -> dict[str, Any]:
    """The kernel module of ``sampler`` or ``uramaki_sampler`` run as plain Python (numba's
    decorator a no-op)."""
    return plain_kernel_module({"sampler": sampler, "uramaki_sampler": uramaki_sampler}[which]())


def ix(name: str) -> int:
    return sampler().catalogue.index_of(name)


# ---------------------------------------------------------------- a turn with a takeout box, on both engines


def _reference(before: list[int], turns: list[tuple[int, list[str]]], ruleset: CompiledRuleset | None = None) -> State:
    """Seat 0 of three with ``before`` on its table plays each turn's card (the other
    seats play edamame), its takeout box turning the cards named (then done)."""
    game = Game(ruleset or sampler(), 3)
    state = game.new_initial_state(0)
    hand = [c for c, _ in turns] + [ix("edamame")] * (len(turns) + 1)
    state.hands = [hand[:] for _ in range(3)]
    state.played = [list(before), [], []]
    state.counts = [[x.count(c) for c in range(game.num_card_types)] for x in state.played]
    for card, turned in turns:
        state.apply_actions([card, ix("edamame"), ix("edamame")])
        for name in turned:
            assert state.pending is not None and state.pending.seat == 0
            state.apply_actions([ix(name)])
        if state.pending is not None:  # the box asks again: done
            state.apply_actions([game.done_action])
        assert state.pending is None
    return state


def _kernel(
    before: list[int], turns: list[tuple[int, list[str]]], ruleset: CompiledRuleset | None = None
) -> tuple[Any, dict[str, Any]]:
    """The same turns on the plain kernel's table of one game (its effects resolved
    through the module's own helpers, seat 0's decisions scripted, then a race's turn
    end): (fx, module)."""
    m = plain_module("sampler" if ruleset is None else ruleset.id.replace("-", "_"))
    N, K, H = 3, m["K"], 10
    hand = np.zeros((N, H + 1), np.int64)
    counts = np.zeros((N, K), np.int64)
    seq = np.zeros((N, H + 2), np.int64)
    lens = np.zeros(N, np.int64)
    for c in before:
        seq[0, lens[0]] = c
        lens[0] += 1
        counts[0, c] += 1
    outputs = (np.full((1, 8, 4), -1, np.int64), np.full((1, 8, 3), -1, np.int64))
    fx = m["_fx_new"](
        hand, np.zeros(N, np.int64), np.arange(N), counts, seq, lens, *outputs, np.zeros(m["DT"], np.int64)
    )
    m["_fx_game"](fx, 0, np.uint64(0))
    races = max(m["NRACE"], 1)
    prog, took, disc = (
        np.zeros((races, N + 1), np.int64),
        np.zeros((races, N, K), np.int64),
        np.zeros(m["DT"], np.int64),
    )
    for t, (card, turned) in enumerate(turns):
        picks = np.array([[card, -1], [ix("edamame"), -1], [ix("edamame"), -1]], np.int64)
        for s in range(N):
            c = picks[s, 0]
            seq[s, lens[s]] = c
            lens[s] += 1
            counts[s, c] += 1
        m["_fx_queue"](fx, picks, t + 1)
        script = [ix(name) for name in turned]
        while fx.ctr[m["J_N"]] > 0:
            s, e = m["_fx_next_job"](fx)
            fx.ctr[m["OWNER_AT"]] = s
            no = m["_fx_start"](fx, e, s)
            while no > 0:
                a = script.pop(0) if script else m["DONE"]
                assert a in fx.opts[:no].tolist()
                m["_fx_decide"](fx, e, s, a)
                no = fx.ctr[m["F_N"]]
                s = fx.ctr[m["F_SEAT"]]
                fx.ctr[m["F_N"]] = 0
        m["_fx_turn_end"](fx)
        if m["NRACE"] > 0:
            m["_race_turn"](fx, counts, seq, lens, 1, prog, took, disc, 0)
        assert not script
    return fx, m


def _kernel_points(fx: Any, m: dict[str, Any], rules: tuple[Any, ...]) -> dict[str, int]:
    pts = np.zeros((m["NRR"], 3), np.int64)
    m["score_round"](fx.counts, m["_fx_scored"](fx, fx.seq), fx.lens, 1, pts)
    return {rule.id: int(pts[i, 0]) for i, rule in enumerate(rules)}


SCORED = ("nigiri", "wasabi", "takeout_face_down")

CASES = [
    # (seat 0's table, its turns: the card played and what its box turns, the rulebook's points)
    pytest.param(
        ["wasabi", "salmon_nigiri"],
        [("takeout_box_10", ["wasabi"]), ("squid_nigiri", [])],
        {"nigiri": 5, "wasabi": 0, "takeout_face_down": 2},
        id="wasabi-turned-after-its-nigiri-loses-its-x3-and-takes-no-later-one",
    ),
    pytest.param(
        ["wasabi", "salmon_nigiri"],
        [("takeout_box_10", ["salmon_nigiri"]), ("squid_nigiri", [])],
        {"nigiri": 3, "wasabi": 0, "takeout_face_down": 2},
        id="nigiri-turned-leaves-its-wasabi-used",
    ),
    pytest.param(
        ["wasabi"],
        [("takeout_box_10", ["wasabi"]), ("salmon_nigiri", [])],
        {"nigiri": 2, "wasabi": 0, "takeout_face_down": 2},
        id="empty-wasabi-turned-takes-no-later-nigiri",
    ),
    pytest.param(
        ["wasabi", "wasabi", "egg_nigiri"],
        [("takeout_box_10", ["wasabi"]), ("squid_nigiri", [])],
        {"nigiri": 4, "wasabi": 2, "takeout_face_down": 2},
        id="newest-wasabi-turned-empty-the-oldest-keeps-its-nigiri",
    ),
    pytest.param(
        ["wasabi", "salmon_nigiri", "wasabi"],
        [("takeout_box_10", ["salmon_nigiri"]), ("squid_nigiri", [])],
        {"nigiri": 3, "wasabi": 6, "takeout_face_down": 2},
        id="nigiri-turned-then-a-later-nigiri-on-the-second-wasabi",
    ),
    pytest.param(
        ["wasabi", "salmon_nigiri"],
        [("takeout_box_10", ["salmon_nigiri", "wasabi"]), ("squid_nigiri", [])],
        {"nigiri": 3, "wasabi": 0, "takeout_face_down": 4},
        id="both-turned",
    ),
]


@pytest.mark.parametrize(("before", "turns", "rulebook"), CASES)
def test_a_wasabi_or_its_nigiri_turned_face_down_scores_as_the_reference_and_the_rulebook(before, turns, rulebook):
    """A takeout box turns a wasabi or a nigiri face down before or after a nigiri is played:
    the kernel's points per rule are the reference engine's and the rulebook's."""
    table = [ix(name) for name in before]
    played = [(ix(card), turned) for card, turned in turns]
    state = _reference(table, played)
    rules = sampler().round_rules
    scoring = score_scoring(state.game.round_scoring_rules, state.tableau())
    reference = {rule.id: p[0] for rule, p in zip(scoring.rules, scoring.points)}
    fx, m = _kernel(table, played)
    assert [fx.seq[0, : fx.lens[0]].tolist()] == state.played[:1]
    got = _kernel_points(fx, m, rules)
    assert got == reference
    assert {k: got[k] for k in SCORED} == rulebook


def test_the_stamps_are_the_references_after_the_box_leaves_the_table():
    """Each turned card's stamp (the seat's number of cards when it was turned) is the
    reference's, moved down when the box before it left the table."""
    table = [ix("wasabi"), ix("salmon_nigiri"), ix("wasabi")]
    played = [(ix("takeout_box_10"), ["wasabi", "salmon_nigiri"])]
    state = _reference(table, played)
    fx, m = _kernel(table, played)
    assert state.book is not None
    rows = sorted(tuple(int(x) for x in row) for row in fx.und[: fx.ctr[m["U_N"]]])
    reference = sorted((s, p, c, former, stamp) for (s, p), (c, former, stamp) in state.book.under.items())
    assert (
        rows
        == reference
        == [(0, 1, ix("salmon_nigiri"), ix("salmon_nigiri"), 3), (0, 2, ix("wasabi"), ix("wasabi"), 3)]
    )
    # the rules read them as State.turned gives them: (face before + 1, stamp) in rows 2N..4N-1
    tq = m["_fx_scored"](fx, fx.seq)
    assert tq.shape[0] == 12 and tq[6, :3].tolist() == [0, ix("salmon_nigiri") + 1, ix("wasabi") + 1]
    assert tq[9, 1:3].tolist() == [3, 3] and state.turned() == [
        {1: (ix("salmon_nigiri"), 3), 2: (ix("wasabi"), 3)},
        {},
        {},
    ]


def test_a_race_taking_cards_before_a_turned_nigiri_moves_its_place_and_stamp_as_the_engine_does():
    """Uramaki beside takeout boxes and wasabi: a salmon on its wasabi turned face down, then
    the seat's uramaki reach the race's threshold and leave the table: the turned card's
    position and stamp move down as the engine's (State._taken), and the tables score alike."""
    r = uramaki_sampler()
    u = r.catalogue.index_of
    assert [u(x) for x in ("wasabi", "salmon_nigiri", "edamame")] == [ix("wasabi"), ix("salmon_nigiri"), ix("edamame")]
    table = [u("uramaki_5"), u("wasabi"), u("salmon_nigiri"), u("uramaki_4")]
    played = [(u("takeout_box_10"), ["salmon_nigiri"]), (u("uramaki_3"), [])]
    state = _reference(table, played, r)
    fx, m = _kernel(table, played, r)
    assert state.book is not None and state.played[0] == [u("wasabi"), u("takeout_face_down")]
    assert fx.seq[0, : fx.lens[0]].tolist() == state.played[0]
    rows = sorted(tuple(int(x) for x in row) for row in fx.und[: fx.ctr[m["U_N"]]])
    reference = sorted((s, p, c, former, stamp) for (s, p), (c, former, stamp) in state.book.under.items())
    assert rows == reference == [(0, 1, u("salmon_nigiri"), u("salmon_nigiri"), 2)]
    scoring = score_scoring(state.game.round_scoring_rules, state.tableau())
    got = _kernel_points(fx, m, r.round_rules)
    assert got == {rule.id: p[0] for rule, p in zip(scoring.rules, scoring.points)}
    assert (got["nigiri"], got["wasabi"], got["takeout_face_down"]) == (0, 0, 2)


def test_a_table_with_no_card_turned_is_scored_as_it_lies():
    """Without a card turned face down the rules get the tables themselves (no extra rows)."""
    fx, m = _kernel([ix("wasabi")], [(ix("salmon_nigiri"), [])])
    assert m["TURNS"] and m["_fx_scored"](fx, fx.seq) is fx.seq


# ---------------------------------------------------------------- each pairing part on random turned tables


def _turned_rows(t: Tableau, width: int) -> np.ndarray:
    """``t``'s cards with its turned cards as the kernel's rules read them (4N rows)."""
    N = t.num_seats
    seq = np.zeros((4 * N, width), np.int64)
    for s, cards in enumerate(t.cards):
        seq[s, : len(cards)] = cards
        for p, (was, stamp) in (t.turned[s] if t.turned else {}).items():
            seq[2 * N + s, p] = was + 1
            seq[3 * N + s, p] = stamp
    return seq


def _random_turned_table(rng: random.Random, ruleset: CompiledRuleset, seats: int, face: int) -> Tableau:
    """Random tables, some cards turned face down into ``face`` (each stamped with a number
    of cards past its position), the holders and targets of the pairing rules drawn often."""
    K = ruleset.catalogue.size
    paired = sorted({c for rule in ruleset.rules if rule.holds_cards for c in rule.reads or ()})
    cards: list[list[int]] = []
    turned: list[dict[int, tuple[int, int]]] = []
    for _ in range(seats):
        seq = [rng.choice(paired) if rng.random() < 0.7 else rng.randrange(K) for _ in range(rng.randrange(0, 12))]
        marks: dict[int, tuple[int, int]] = {}
        for p in range(len(seq)):
            if rng.random() < 0.3:
                marks[p] = (seq[p], rng.randrange(p + 1, len(seq) + 1))
                seq[p] = face
        cards.append(seq)
        turned.append(marks)
    t = Tableau.from_cards(K, cards, 1)
    return Tableau(t.counts, t.cards, 1, turned)


@pytest.mark.parametrize("which", ["sampler", "lantern-festival", "boost-flip"])
def test_every_pairing_part_scores_random_turned_tables_as_its_rule_does(which):
    """The modifier's and the boost's kernel parts (their pairing, the boost's table moved
    along) score 300 random tables with cards turned face down as their rules do."""
    ruleset = {"sampler": sampler, "lantern-festival": lambda: load_ruleset(LANTERN), "boost-flip": boost_flip}[which]()
    rng = random.Random(which)
    K = ruleset.catalogue.size
    checked = set()
    for rule in ruleset.rules:
        if not rule.holds_cards:
            continue
        part = plain_rule(ruleset, rule)
        assert part is not None and rule.kernel_reads_turned
        for _ in range(300):
            seats = ruleset.num_seats(rng.choice(list(ruleset.player_counts)))
            t = _random_turned_table(rng, ruleset, seats, rng.randrange(K))
            out = np.zeros(seats, np.int64)
            part(np.array(t.counts, np.int64), _turned_rows(t, 14), np.array([len(c) for c in t.cards]), 1, out)
            assert out.tolist() == rule.score(t), f"rule {rule.id}, table {t.cards}, turned {t.turned}"
        checked.add(type(rule).__name__)
    assert checked >= ({"Modifier"} if which == "sampler" else {"Boost"})


def test_a_boosted_nigiri_turned_with_its_sparkler_scores_as_the_engine_counts_it():
    """A sparkler turned face down after its salmon took no later squid, in the kernel's
    boost part as in the reference (test_boost_face_down's table): nothing boosted."""
    r = boost_flip()
    ids = r.catalogue.index_of
    face = next(e.face_down for e in r.effects if e.kind == "turn_face_down")
    cards = [[face, ids("salmon"), ids("squid")], []]
    t0 = Tableau.from_cards(r.catalogue.size, cards, 1)
    t = Tableau(t0.counts, t0.cards, 1, [{0: (ids("sparkler"), 2)}, {}])
    boost = next(rule for rule in r.rules if rule.id == "sparkle")
    out = np.zeros(2, np.int64)
    plain_rule(r, boost)(np.array(t.counts, np.int64), _turned_rows(t, 8), np.array([3, 0]), 1, out)
    assert out.tolist() == boost.score(t) == [0, 0]
    # face up, the sparkler doubles its salmon (2 more for the nigiri rule)
    t_up = Tableau.from_cards(r.catalogue.size, [[ids("sparkler"), ids("salmon"), ids("squid")], []], 1)
    plain_rule(r, boost)(np.array(t_up.counts, np.int64), _turned_rows(t_up, 8)[:2], np.array([3, 0]), 1, out)
    assert out.tolist() == boost.score(t_up) == [2, 0]
