"""The engine: a compiled ruleset played as a game (state, legal moves, simultaneous
picks, passing, scoring). It knows nothing of YAML."""

from ruledraft.engine.records import Observation, RoundRecord, Turn
from ruledraft.engine.scoresheet import PlayedGame, PlayedRound, ScoreSheet, decide_winners, score_game
from ruledraft.engine.state import MAX_SEED, Game, State, derive_seed

__all__ = [
    "MAX_SEED",
    "Game",
    "Observation",
    "PlayedGame",
    "PlayedRound",
    "RoundRecord",
    "ScoreSheet",
    "State",
    "Turn",
    "decide_winners",
    "derive_seed",
    "score_game",
]
