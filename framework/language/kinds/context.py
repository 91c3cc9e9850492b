"""What a kind's builder may ask while it turns a rule's spec into a compiled rule.

Every question takes the place it is about as a path *below the rule* (``("cards",)``,
``("value", "attribute")``), resolves a name or compiles an expression, and, when
something is wrong, records a located diagnostic and answers ``None``. The builder
carries on asking, so every mistake of a rule is reported, and returns ``None`` if
any answer was ``None``. Nothing here raises for a mistake in the rule file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ruledraft.language.catalogue import Catalogue
from ruledraft.language.compiled_expression import CompiledExpression
from ruledraft.language.quantity import Quantity
from ruledraft.language.rule import Rule

Path = tuple[str | int, ...]


class RuleContext(Protocol):
    """The questions a builder may ask (see the module docstring)."""

    @property
    def catalogue(self) -> Catalogue:
        """The ruleset's cards (every name in it exists)."""
        ...

    def error(self, path: Path, message: str, *, key: bool = False) -> None:
        """Record a problem at ``path`` (at its key rather than its value with ``key``)."""

    def warn(self, path: Path, message: str, *, key: bool = False) -> None:
        """Record a warning at ``path``: the rule compiles, but something in it is never used."""

    def tuned(self, path: Path) -> bool:
        """Whether a tune mark stands at ``path`` or under it: its number is the mark's
        start here, and ``ruledraft tune`` may change it (a warning about the number as
        it reads may not hold)."""
        ...

    def seat_counts(self) -> range | None:
        """The numbers of seats a game of this ruleset scores (players and dummy seats), or None if unknown."""

    def card(self, path: Path, card_id: str) -> int | None:
        """The index of a card named by id."""

    def cards(self, path: Path, spec: Any) -> tuple[int, ...] | None:
        """The sorted indices a selector names (an id, a list of ids, ``{tag, group, cards}``)."""

    def words(self, spec: Any) -> str:
        """Plain words for a selector that resolved."""
        ...

    def values(self, path: Path, spec: Any) -> tuple[int, ...] | None:
        """Per card index, a ``value``: a number for every card, or ``{attribute: NAME}``."""

    def quantity(self, path: Path, spec: Any, *, boolean: bool = False) -> Quantity | None:
        """A compiled quantity (``{count: ...}``, ``{sum: ...}``, an expression...)."""

    def expression(self, path: Path, text: str, *, boolean: bool = False) -> CompiledExpression | None:
        """A compiled expression; a division that may fail names the rule."""

    def seat_keys(self, path: Path, mapping: Mapping[str, Any]) -> None:
        """Check keys that are numbers of scoring seats (``"2"``, ``"3-5"``)."""

    def all_rules(self) -> Sequence[Rule]:
        """Every rule of the ruleset, filled in as the build goes on: a rule that scores
        from the other rules' points (a boost) keeps it and reads it when it scores,
        never while it is built."""
        ...

    def left_off_menu(self, what: str, name: str) -> bool:
        """Whether ``name`` (a ``card``, ``tag``, ``group``) is only on cards the menu of a
        card library left out: a unit may then drop it quietly."""
        ...
