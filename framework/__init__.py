"""ruledraft: rules-as-data for card-drafting games.

The stable Python API is the names in ``__all__`` (the README's "Python API"
section lists them): load a ruleset, make a game, play or simulate with bots,
score a table, read and replay game logs, register a bot or a scoring kind.
Each is imported when first used, so ``import ruledraft`` costs almost nothing.
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing (it costs more than the rest)

#: each stable name -> the module it comes from (the names of ``__all__``, and the version)
_SOURCES = {
    "__version__": "ruledraft.version",
    # rulesets
    "load_ruleset": "ruledraft.api",
    "check_ruleset": "ruledraft.api",
    "bundled_rulesets": "ruledraft.api",
    # games
    "Game": "ruledraft.engine.state",
    "State": "ruledraft.engine.state",
    # bots
    "play_game": "ruledraft.api",
    "simulate": "ruledraft.api",
    "tournament": "ruledraft.api",
    "Summary": "ruledraft.play.runner",
    "Agent": "ruledraft.play.agents",
    "SeatView": "ruledraft.engine.view",
    "BotOption": "ruledraft.play.agents",
    "register_agent": "ruledraft.play.agents",
    "agent_names": "ruledraft.play.agents",
    # scoring
    "score_table": "ruledraft.api",
    "register_scoring_kind": "ruledraft.language.kinds",
    "register_card_effect": "ruledraft.language.effects",
    # game logs
    "record_game": "ruledraft.play.game_log",
    "read_log": "ruledraft.api",
    "replay": "ruledraft.api",
    # errors
    "RuledraftError": "ruledraft.errors",
    "RulesetError": "ruledraft.errors",
    "Diagnostic": "ruledraft.errors",
    "InputError": "ruledraft.errors",
    "ArgumentError": "ruledraft.errors",
    "IllegalMoveError": "ruledraft.errors",
    "ScoringError": "ruledraft.errors",
    "ReplayMismatch": "ruledraft.errors",
    "BotFailure": "ruledraft.play.agents",
}

__all__ = [
    # rulesets
    "load_ruleset",
    "check_ruleset",
    "bundled_rulesets",
    # games
    "Game",
    "State",
    # bots
    "play_game",
    "simulate",
    "tournament",
    "Summary",
    "Agent",
    "SeatView",
    "BotOption",
    "register_agent",
    "agent_names",
    # scoring
    "score_table",
    "register_scoring_kind",
    "register_card_effect",
    # game logs
    "record_game",
    "read_log",
    "replay",
    # errors
    "RuledraftError",
    "RulesetError",
    "Diagnostic",
    "InputError",
    "ArgumentError",
    "IllegalMoveError",
    "ScoringError",
    "ReplayMismatch",
    "BotFailure",
]

if TYPE_CHECKING:  # what the names are, for type checkers and editors
    from typing import Any

    from ruledraft.api import (
        bundled_rulesets,
        check_ruleset,
        load_ruleset,
        play_game,
        read_log,
        replay,
        score_table,
        simulate,
        tournament,
    )
    from ruledraft.engine.state import Game, State
    from ruledraft.errors import (
        ArgumentError,
        Diagnostic,
        IllegalMoveError,
        InputError,
        ReplayMismatch,
        RuledraftError,
        RulesetError,
        ScoringError,
    )
    from ruledraft.language.effects import register_card_effect
    from ruledraft.language.kinds import register_scoring_kind
    from ruledraft.play.agents import Agent, BotFailure, BotOption, agent_names, register_agent
    from ruledraft.play.game_log import record_game
    from ruledraft.play.runner import Summary
    from ruledraft.version import __version__ as __version__


def __getattr__(name: str) -> Any:
    """A stable name, imported from its module the first time it is asked for."""
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'ruledraft' has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_SOURCES))
