"""Decisions: a choice a card effect asks of one seat in the middle of a turn.

The class lives with the card effects that ask them
(:mod:`ruledraft.language.decision`); this is its name in the engine.
"""

from __future__ import annotations

import reprlib
import sys
from typing import Any

from ruledraft.errors import InputError
from ruledraft.language.decision import Decision as Decision

__all__ = ["Decision", "asked"]


def asked(effect: Any, decision: Any, seats: int, done_action: int, step: str) -> Decision | None:
    """What an effect's ``step`` (``start``, ``decide``) returned, checked: None, or a
    :class:`Decision` of one of the ``seats`` with at least one choice among the game's
    actions. Anything else (a plug-in effect's fault) is an :class:`InputError` naming
    the effect, not a failure deep in the engine later."""
    if decision is None or (
        type(decision) is Decision
        and type(decision.seat) is int
        and 0 <= decision.seat < seats
        and isinstance(decision.options, tuple)
        and decision.options
        and all(type(o) is int and 0 <= o <= done_action for o in decision.options)
    ):
        return decision
    kind = getattr(effect, "kind", type(effect).__name__)
    module = type(effect).__module__
    where = getattr(sys.modules.get(module), "__file__", None) or module  # a plug-in's file
    given = repr(decision) if type(decision) is Decision else reprlib.repr(decision)  # (a Decision's is short)
    raise InputError(
        f"card effect '{kind}' ({where}): its {step}() gave {given[:300]}, where None or "
        f"a Decision of a seat from 0 to {seats - 1} with at least one of the game's actions (0 to {done_action}) "
        "as its options is wanted"
    )
