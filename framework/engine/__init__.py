"""The engine: a compiled ruleset played as a game (state, legal moves, simultaneous
picks, passing, scoring). It knows nothing of YAML."""

from ruledraft.engine.state import MAX_SEED, Game, State, decide_winners, derive_seed

__all__ = ["MAX_SEED", "Game", "State", "decide_winners", "derive_seed"]
