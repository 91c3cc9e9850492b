"""A boost meets Party's takeout box in play: the engine turns cards face down and the
boost pairs as a modifier does (a pair counts while both cards are face up; a turned
card keeps its place used). The small test ruleset of the takeout box
(``tests/data/effects-flip-copy.yaml``) with a sparkler that doubles the next nigiri
for every rule."""

from __future__ import annotations

import functools

from paths import DATA

from ruledraft.engine.scoresheet import score_scoring
from ruledraft.engine.state import Game, State
from ruledraft.language.loading import load_ruleset
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.game_log import record_game, replay_record
from ruledraft.play.runner import play_game

SPARKLER_CARD = "  - {id: sparkler, count: 4, group: sparkler}\n"
SPARKLE_RULE = "  - {id: sparkle, kind: boost, card: sparkler, targets: {tag: nigiri}, factor: 2}\n"


@functools.cache
def ruleset() -> CompiledRuleset:
    text = (DATA / "effects-flip-copy.yaml").read_text(encoding="utf-8")
    text = text.replace("deal:\n", SPARKLER_CARD + "deal:\n", 1) + SPARKLE_RULE
    return load_ruleset("boost-flip.yaml", text=text)


def ix(name: str) -> int:
    return ruleset().catalogue.index_of(name)


def fresh() -> State:
    return Game(ruleset(), 2).new_initial_state(1)


def give(state: State, seat: int, name: str) -> None:
    """Put card ``name`` into ``seat``'s hand, swapping it with a card of the hand (every card stays counted)."""
    hand, c = state.hands[seat], ix(name)
    if c in hand:
        return
    deck = list(state.deck)
    j = deck.index(c, state.deck_pos)
    deck[j], hand[0] = hand[0], c
    state.deck = deck


def turn(state: State, *picks: str) -> None:
    for seat, name in enumerate(picks):
        give(state, seat, name)
    state.apply_actions([ix(n) for n in picks])


def decide(state: State, name: str) -> None:
    state.apply_actions([state.game.done_action if name == "done" else ix(name)])


def points(state: State) -> dict[str, list[int]]:
    scoring = score_scoring(state.game.round_scoring_rules, state.tableau())
    return {rule.id: p for rule, p in zip(scoring.rules, scoring.points)}


def test_a_boosted_nigiri_counts_twice_until_its_sparkler_is_turned_face_down():
    """A salmon on a sparkler scores 2 more; turning the sparkler face down takes that away,
    and a later squid finds no sparkler (it was used)."""
    s = fresh()
    turn(s, "sparkler", "tempura")
    turn(s, "salmon", "tempura")
    # salmon (2) counts twice for the nigiri rule: 4, so sparkle 2
    assert points(s)["sparkle"] == [2, 0]
    turn(s, "takeout_box_10", "tempura")
    decide(s, "sparkler")
    decide(s, "done")
    turn(s, "squid", "tempura")
    p = points(s)
    # nigiri: salmon 2 + squid 3 = 5; the face-down sparkler 2; nothing boosted
    assert (p["nigiri"], p["face_down"], p["sparkle"]) == ([5, 0], [2, 0], [0, 0])


def test_a_boosted_nigiri_turned_face_down_keeps_its_sparkler_used():
    """The boosted salmon turned face down scores 2 as a face-down card, and the squid after
    it is not boosted: the sparkler's place was taken."""
    s = fresh()
    turn(s, "sparkler", "tempura")
    turn(s, "salmon", "tempura")
    turn(s, "takeout_box_10", "tempura")
    decide(s, "salmon")
    decide(s, "done")
    turn(s, "squid", "tempura")
    p = points(s)
    assert (p["nigiri"], p["face_down"], p["sparkle"]) == ([3, 0], [2, 0], [0, 0])


def test_games_with_a_boost_and_takeout_boxes_replay_clean():
    """Random and greedy games of the ruleset finish with every card counted and replay clean."""
    for seed in range(3):
        bots = ["greedy", "random"]
        state = play_game(Game(ruleset(), 2), seed, bots)
        assert state.all_cards() == sorted(ruleset().catalogue.deck())
        assert replay_record(ruleset(), record_game(state, bots)) == []
