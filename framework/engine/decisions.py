"""Decisions: a choice a card effect asks of one seat in the middle of a turn.

The class lives with the card effects that ask them
(:mod:`ruledraft.language.decision`); this is its name in the engine.
"""

from __future__ import annotations

from ruledraft.language.decision import Decision as Decision

__all__ = ["Decision"]
