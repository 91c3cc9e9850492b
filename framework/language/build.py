"""The one walk from a merged rule document to a :class:`CompiledRuleset`.

It runs on a document the schema check accepted, and both checks and builds: each
name (card, tag, colour group, attribute, rule id) is resolved once, through one
resolver that records a located diagnostic and carries on, and each expression is
compiled exactly once, so a user sees every problem at once and the ruleset that is
built is the one that was checked. What it checks besides the names:

* card ids, rule ids and action ids are unique;
* each player count has a hand size and the deck is big enough for the deals;
* sizes stay within limits (a deck of a billion cards is refused), and so does the
  work of scoring (``MAX_SCORING_STEPS``), of a bot's choice (``MAX_DECISION_STEPS``)
  and of the bots' choices over a whole game (``MAX_GAME_STEPS``).

Each scoring rule is built by its kind's unit (:mod:`ruledraft.language.kinds`),
through a :class:`~ruledraft.language.kinds.context.RuleContext` bound to its place.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeGuard

import attrs

from ruledraft.errors import Diagnostic, RulesetError, ScoringError
from ruledraft.language.bounds import bound_problems
from ruledraft.language.catalogue import (
    MAX_PLAYERS,
    NO_COLOUR,
    CardType,
    Catalogue,
    player_span,
    players_range_words,
)
from ruledraft.language.compiled_expression import RESERVED_WORDS, CompiledExpression
from ruledraft.language.effect import CardEffect
from ruledraft.language.effects import EFFECT_KINDS, has_step, no_step
from ruledraft.language.file_access import display_name
from ruledraft.language.json_check import plural
from ruledraft.language.kinds import SCORING_KINDS
from ruledraft.language.kinds.context import Path
from ruledraft.language.kinds.plugin_rule import CheckedRule
from ruledraft.language.kinds.sets import Sets
from ruledraft.language.menu import Course
from ruledraft.language.quantity import Quantity, compile_quantity, selector_indices, selector_words
from ruledraft.language.rule import Rule
from ruledraft.language.ruleset import (
    LEFT,
    NO_PASS,
    RIGHT,
    CompiledRuleset,
    DummySpec,
    ExtraPick,
    RoundAddition,
    TieBreak,
)
from ruledraft.language.scoring import parse_player_key
from ruledraft.language.suggest import closest, did_you_mean

#: the largest deck ruledraft will deal from
MAX_DECK = 10_000
#: the most expression steps one scoring may take (a few tens of milliseconds)
MAX_SCORING_STEPS = 200_000
#: the most steps a bot may need to choose the cards of one hand (see
#: ``check_decision_work``): about a second of work; the bundled rulesets need under 1% of it
MAX_DECISION_STEPS = 20_000_000
#: the most steps the bots may need to choose every card of one game (the work of a hand,
#: times the seats that choose, times the rounds; see ``check_game_work``): about ten
#: seconds of a greedy bot's work on the reference engine; the bundled rulesets need
#: under 3% of it
MAX_GAME_STEPS = 100_000_000

DIRECTIONS = {"left": LEFT, "right": RIGHT, "none": NO_PASS}


def build_catalogue(cards: Any) -> Catalogue:
    """Card types from the ``cards`` list (entries without an id are skipped, and so is
    anything but a list: the schema reports it)."""
    out: list[CardType] = []
    for spec in cards if isinstance(cards, list) else ():
        if not isinstance(spec, dict) or not isinstance(spec.get("id"), str):
            continue
        count = spec.get("count", 0)
        attributes = spec.get("attributes")
        tags = spec.get("tags")
        keep = spec.get("keep", "round")
        out.append(
            CardType(
                index=len(out),
                id=spec["id"],
                name=str(spec.get("name") or spec["id"].replace("_", " ").title()),
                count=count if _whole(count) and 0 <= count <= MAX_DECK else 0,
                group=str(spec.get("group") or spec["id"]),
                tags=frozenset(t for t in tags if isinstance(t, str)) if isinstance(tags, list) else frozenset(),
                attributes={k: v for k, v in attributes.items() if _whole(v)} if isinstance(attributes, dict) else {},
                keep=keep if keep in ("round", "game") else "round",
                description=str(spec.get("description") or ""),
                players=_card_players(spec.get("players")),
            )
        )
    return Catalogue(tuple(out))


def _span(lo: int, hi: int) -> str:
    return f"{lo}-{hi}" if lo != hi else str(lo)


def _players_words(counts: list[int]) -> str:
    """``[2]`` -> ``2 players``; ``[7, 8]`` -> ``7-8 players``; ``[1, 2, 7]`` -> ``1, 2, 7 players``."""
    if counts == list(range(counts[0], counts[-1] + 1)):
        return f"{_span(counts[0], counts[-1])} players"
    return ", ".join(map(str, counts)) + " players"


#: a dummy's ``seats``: the schema allows exactly one (and reports any other value there)
DUMMY_SEATS = 1


def _whole(value: object) -> TypeGuard[int]:
    """A whole number as the schema means it (YAML's ``true`` is no number)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _player_count(value: object) -> TypeGuard[int]:
    """Whether ``value`` is a player count the schema allows (a whole number 1-16, not a bool):
    the builder also walks files the schema refused, and reads no other value as a count."""
    return _whole(value) and 1 <= value <= MAX_PLAYERS


def players_bounds(players: Any) -> tuple[int, int] | None:
    """A ``players: {min, max}`` mapping as (min, max) when both are counts the schema
    allows (the schema reports anything else); None otherwise."""
    if not isinstance(players, dict):
        return None
    lo, hi = players.get("min"), players.get("max")
    if _player_count(lo) and _player_count(hi):
        return (lo, hi)
    return None


def _card_players(spec: Any) -> tuple[int, int] | None:
    """A card's ``players: {min, max}`` as (fewest, most); None when the card has none,
    or gives a value the schema refuses (reported there)."""
    if not isinstance(spec, dict):
        return None
    return players_bounds({"min": 1, "max": MAX_PLAYERS} | spec)


def expand_player_keys(mapping: Mapping[str, Any]) -> dict[int, Any]:
    """``{"2": 10, "3-4": 9}`` -> ``{2: 10, 3: 9, 4: 9}``."""
    out: dict[int, Any] = {}
    for key, value in mapping.items():
        for n in parse_player_key(key):
            out[n] = value
    return out


def pass_patterns(rounds: Mapping[str, Any]) -> tuple[tuple[int, ...], ...]:
    """Per round, the pass direction after each turn (a pattern repeated through the round)."""
    spec = rounds.get("pass", "left")
    count = int(rounds["count"])
    if not isinstance(spec, list):
        return (_pattern(spec),) * count
    return tuple(_pattern(d) for d in spec)


def _pattern(spec: str | Mapping[str, Any]) -> tuple[int, ...]:
    if isinstance(spec, str):
        return (DIRECTIONS[spec],)
    return tuple(DIRECTIONS[d] for d in spec["turns"])


def _turn_patterns(patterns: tuple[tuple[int, ...], ...]) -> tuple[tuple[int, ...], ...]:
    """``patterns``, or () when no round changes direction from turn to turn."""
    return patterns if any(len(set(p)) > 1 for p in patterns) else ()


def pass_directions(rounds: Mapping[str, Any]) -> tuple[int, ...]:
    """Per round, the direction after its first turn."""
    return tuple(p[0] for p in pass_patterns(rounds))


def compile_expression(text: str, catalogue: Catalogue, **options: Any) -> CompiledExpression:
    """:func:`ruledraft.language.expression.compile_expression`, imported the first time a
    rule file writes an expression: the parser (lark) loads only for one that does."""
    from ruledraft.language.expression import compile_expression as compiled

    return compiled(text, catalogue, **options)


def _naming(compiled: CompiledExpression, rule_id: str) -> CompiledExpression:
    """``compiled`` whose :class:`ScoringError` names ``rule_id``: only an expression
    that can fail (a division by something that may be 0) gets the extra call."""
    if not compiled.may_fail:
        return compiled
    inner = compiled.fn

    def fn(t: Any, s: int) -> int:
        try:
            return inner(t, s)
        except ScoringError as e:
            raise e.for_rule(rule_id) from None

    return attrs.evolve(compiled, fn=fn)


def _as_read(name: str) -> str:
    """A card's name as `play` matches what a person types (case and runs of blanks
    aside) and as a screen shows it (format characters such as a zero-width space unseen)."""
    shown = "".join(c for c in unicodedata.normalize("NFKC", name) if unicodedata.category(c) != "Cf")
    return " ".join(shown.split()).casefold()


class _RuleContext:
    """A :class:`~ruledraft.language.kinds.context.RuleContext` for one place (a rule,
    a tie-break): paths it is given are below ``base``."""

    def __init__(self, walk: RulesetBuilder, base: Path, rule_id: str | None = None) -> None:
        self.walk = walk
        self.base = base
        self.rule_id = rule_id

    @property
    def catalogue(self) -> Catalogue:
        return self.walk.catalogue

    def error(self, path: Path, message: str, *, key: bool = False) -> None:
        self.walk.error(self.base + path, message, key=key)

    def warn(self, path: Path, message: str, *, key: bool = False) -> None:
        self.walk.warn(self.base + path, message, key=key)

    def tuned(self, path: Path) -> bool:
        return self.walk.tuned(self.base + path)

    def seat_counts(self) -> range | None:
        counts = self.walk.possible_counts(self.walk.data, True)
        return range(min(counts), max(counts) + 1) if counts else None

    def card(self, path: Path, card_id: str) -> int | None:
        return self.walk.card(self.base + path, card_id)

    def cards(self, path: Path, spec: Any) -> tuple[int, ...] | None:
        return self.walk.cards(self.base + path, spec)

    def words(self, spec: Any) -> str:
        return selector_words(spec, self.walk.catalogue)

    def values(self, path: Path, spec: Any) -> tuple[int, ...] | None:
        return self.walk.values(self.base + path, spec)

    def quantity(self, path: Path, spec: Any, *, boolean: bool = False) -> Quantity | None:
        return self.walk.quantity(self.base + path, spec, boolean=boolean, rule_id=self.rule_id)

    def expression(self, path: Path, text: str, *, boolean: bool = False) -> CompiledExpression | None:
        return self.walk.expression(self.base + path, text, boolean=boolean, rule_id=self.rule_id)

    def seat_keys(self, path: Path, mapping: Mapping[str, Any]) -> None:
        self.walk.check_player_keys(self.base + path, mapping)
        self.walk.check_unused_player_keys(self.base + path, mapping, seats=True)

    def all_rules(self) -> Sequence[Rule]:
        return self.walk.rules

    def left_off_menu(self, what: str, name: str) -> bool:
        off = getattr(self.walk.doc, "off_menu", None)
        return off is not None and bool(off.has(what, name))


class RulesetBuilder:
    """One walk over a merged document: :meth:`run` returns every diagnostic, and
    :attr:`ruleset` is the compiled ruleset when there was no error."""

    def __init__(self, doc: Any, valid: Callable[[Path], bool] | None = None, tuned: Sequence[str] = ()) -> None:
        from ruledraft.language.menu import apply_menu, library_note

        #: the names of the rule file's tune marks (their numbers are open: see :meth:`tuned`)
        self.tune_names = tuple(tuned)
        #: a menu's problems (the walk stops at them) and its courses
        self.menu_problems: list[Diagnostic] = []
        self.menu: tuple[Course, ...] = ()
        #: a card library on its own: why it is not played (None: it is a game)
        self.library = library_note(doc)
        #: a menu whose dishes are not known (the schema refused the menu, the courses or
        #: the cards): the cards it deals are not known either, so no check reads them
        self.unknown_menu = False
        data = doc.data
        if valid is None or all(valid((k,)) for k in ("menu", "courses", "cards")):
            doc, self.menu_problems, self.menu = apply_menu(doc)
        else:
            self.unknown_menu = data.get("menu") is not None
        self.doc = doc
        #: for a document the schema check refused: which sections (and scoring rules) it
        #: accepted, so their checks still run; None when the whole document passed
        self.valid = valid
        self.data: Mapping[str, Any] = doc.data
        self.out: list[Diagnostic] = []
        self.catalogue: Catalogue = build_catalogue(self.data.get("cards") or [])
        #: every expression compiled, with its place, for the cost checks
        self.expressions: list[tuple[Path, CompiledExpression]] = []
        #: the cards a selector, quantity or expression at a place reads (None: any)
        self.reads: dict[Path, frozenset[int] | None] = {}
        self.rules: list[Rule] = []
        self.actions: list[ExtraPick] = []
        self.effects: list[CardEffect] = []
        #: per player count, the cards the deck holds by each round where cards are added before rounds
        self.round_decks: dict[int, list[int]] = {}
        #: where each effect is declared (its ``kind``): file, line, column
        self.effect_places: list[tuple[str, int, int]] = []
        self.tie_breaks: list[TieBreak] = []
        self.ruleset: CompiledRuleset | None = None
        #: names of cards a menu left out, met while building (a rule that names one does not score)
        self.off_menu_hits = 0

    def error(self, path: Path, message: str, *, key: bool = False) -> None:
        self.out.append(self.doc.diagnostic(path, message, key=key))

    # ------------------------------------------------------------------ names: the one resolver

    def _off_menu(self, what: str, name: str) -> bool:
        """Whether ``name`` is only on cards the menu left out (noted: the rule being built does not score)."""
        off = getattr(self.doc, "off_menu", None)
        if off is None or not off.has(what, name):
            return False
        self.off_menu_hits += 1
        return True

    def _removed(self, card_id: str) -> tuple[str, int, int] | None:
        removed: tuple[str, int, int] | None = getattr(self.doc, "removed", {}).get(("cards", card_id))
        return removed

    def removed_use(self, card_id: str, use: Diagnostic) -> Diagnostic:
        """A use of a card a ``remove:`` dropped. Shown at the use when the file that removed
        the card wrote it; a use in a parent is shown at the ``remove:`` entry, in the file
        the designer is writing, naming where the use is."""
        file, line, column = self._removed(card_id) or (use.file, use.line, use.column)
        if use.file == file:
            return attrs.evolve(
                use, message=f"card '{card_id}' is used here but was removed (remove: cards, {file}:{line})"
            )
        child = getattr(self.doc, "child", None)
        lines = child.lines if child is not None and child.file == file else ()
        return Diagnostic(
            file,
            line,
            column,
            f"card '{card_id}' is removed here, but {use.file}:{use.line}:{use.column} still uses it"
            " (keep the card, or remove or rewrite that use in this file)",
            source_line=lines[line - 1] if 0 < line <= len(lines) else None,
        )

    def card(self, path: Path, card_id: str) -> int | None:
        """The index of card ``card_id``, or None after recording why there is none."""
        if self.catalogue.has_card(card_id):
            return self.catalogue.index_of(card_id)
        removed = self._removed(card_id)
        if self._off_menu("card", card_id):
            self.error(path, f"card '{card_id}' is not on the menu")
        elif removed is not None:
            self.out.append(self.removed_use(card_id, self.doc.diagnostic(path, "")))
        else:
            self.error(path, f"unknown card '{card_id}'{did_you_mean(card_id, self.catalogue.nameable_ids)}")
        return None

    def cards(self, path: Path, spec: Any) -> tuple[int, ...] | None:
        """The indices a selector names, or None after recording every unknown name in it."""
        cat = self.catalogue
        ok = True
        if isinstance(spec, str):
            ok = self.card(path, spec) is not None
        elif isinstance(spec, list):
            for i, card_id in enumerate(spec):
                ok = self.card(path + (i,), card_id) is not None and ok
        elif isinstance(spec, dict):
            if "tag" in spec and not cat.has_tag(spec["tag"]):
                if self._off_menu("tag", spec["tag"]):
                    self.error(path + ("tag",), f"the cards with the tag '{spec['tag']}' are not on the menu")
                else:
                    self.error(
                        path + ("tag",), f"no card has the tag '{spec['tag']}'{did_you_mean(spec['tag'], cat.tags)}"
                    )
                ok = False
            if "group" in spec and not cat.has_group(spec["group"]) and self._off_menu("group", spec["group"]):
                self.error(path + ("group",), f"the cards of the colour group '{spec['group']}' are not on the menu")
                ok = False
            elif "group" in spec and not cat.has_group(spec["group"]):
                self.error(
                    path + ("group",),
                    f"no card is in the colour group '{spec['group']}'{did_you_mean(spec['group'], cat.groups)}",
                )
                ok = False
            for i, card_id in enumerate(spec.get("cards") or []):
                ok = self.card(path + ("cards", i), card_id) is not None and ok
        if not ok:
            return None
        idx = selector_indices(spec, cat)
        self.reads[path] = frozenset(idx)
        return idx

    def in_child(self, *paths: Path) -> Path:
        """Of several places a problem could be shown, the first written in the file
        being checked (for a ruleset that extends another), else the first."""
        child = getattr(self.doc, "child", None)
        if child is not None:
            for p in paths:
                doc, own = self.doc.origin(p)
                if doc.file == child.file and _holds(child.data, own):
                    return p
        return paths[0]

    def attribute(self, path: Path, name: str) -> bool:
        if self.catalogue.has_attribute(name):
            return True
        if self._off_menu("attribute", name):
            self.error(path, f"the cards with the attribute '{name}' are not on the menu")
            return False
        known = self.catalogue.attribute_names
        hint = did_you_mean(name, known) or (
            f"; cards have {', '.join(known)}" if known else "; no card has attributes"
        )
        self.error(path, f"no card has the attribute '{name}'{hint}")
        return False

    def values(self, path: Path, spec: Any) -> tuple[int, ...] | None:
        if isinstance(spec, int):
            return (spec,) * self.catalogue.size
        if not self.attribute(path + ("attribute",), spec["attribute"]):
            return None
        vector: tuple[int, ...] = self.catalogue.attribute_vector(spec["attribute"])
        return vector

    def expression(
        self, path: Path, text: str, *, boolean: bool = False, rule_id: str | None = None
    ) -> CompiledExpression | None:
        """``text`` compiled (the only place an expression of a rule file is compiled)."""
        doc = self.doc
        off = getattr(doc, "off_menu", None)
        if off is not None:
            # an expression that names a card (or tag) a menu left out is not compiled at all
            for word in re.findall(r"(?:tag:|group:)?[A-Za-z_][A-Za-z0-9_]*", text):
                what, _, name = word.rpartition(":")
                if not self.catalogue.has_card(name) and self._off_menu(what or "card", name):
                    self.error(path, f"{what or 'card'} '{name}' is not on the menu")
                    return None
        try:
            compiled = compile_expression(
                text,
                self.catalogue,
                file=doc.file_of(path) if hasattr(doc, "file_of") else doc.file,
                locate=doc.scalar_locator(path),
                source_lines=doc.lines_of(path) if hasattr(doc, "lines_of") else doc.lines,
                boolean=boolean,
            )
        except RulesetError as e:
            for d in e.diagnostics:
                m = re.match(r"unknown card '([^']+)'", d.message)
                if m and self._removed(m.group(1)) is not None:
                    d = self.removed_use(m.group(1), d)
                self.out.append(d)
            return None
        self.expressions.append((path, compiled))
        self.out.extend(compiled.warnings)
        self.reads[path] = compiled.reads
        return _naming(compiled, rule_id) if rule_id is not None else compiled

    def quantity(self, path: Path, spec: Any, *, boolean: bool = False, rule_id: str | None = None) -> Quantity | None:
        """A quantity (a declarative form or an expression), or None after recording why not."""
        expr: CompiledExpression | None = None
        if isinstance(spec, str):
            expr = self.expression(path, spec, boolean=boolean, rule_id=rule_id)
            ok = expr is not None
        else:
            ok = True
            if "expr" in spec:
                expr = self.expression(path + ("expr",), spec["expr"], boolean=boolean, rule_id=rule_id)
                ok = expr is not None
            if "count" in spec:
                ok = self.cards(path + ("count",), spec["count"]) is not None and ok
            if "sum" in spec:
                ok = self.attribute(path + ("sum",), spec["sum"]) and ok
            if "of" in spec:
                ok = self.cards(path + ("of",), spec["of"]) is not None and ok
        if not ok:
            return None
        q = compile_quantity(spec, self.catalogue, lambda _text: expr)
        self.reads[path] = q.reads
        return q

    def check_unique(self, items: list[Any], what: str, section: str) -> None:
        seen: dict[str, int] = {}
        for i, item in enumerate(items):
            ident = item.get("id") if isinstance(item, dict) else None
            if not isinstance(ident, str):
                continue
            if ident in seen:
                first = self.doc.locate((section, seen[ident], "id"))[0]
                self.error((section, i, "id"), f"duplicate {what} id '{ident}' (first at line {first})")
            else:
                seen[ident] = i

    # ------------------------------------------------------------------ sections

    def check_cards(self) -> None:
        cards = self.data.get("cards") or []
        self.check_unique(cards, "card", "cards")
        self.check_card_names(cards)
        self.check_reserved_names(cards)
        total = 0
        for i, card in enumerate(cards):
            if "count" not in card:
                self.error(("cards", i), f"card '{card.get('id')}' has no 'count'", key=False)
            total += card.get("count", 0)
        if total > MAX_DECK:
            self.error(("cards",), f"the deck has {total} cards; ruledraft deals from at most {MAX_DECK}", key=True)
        elif cards and total == 0:
            self.error(("cards",), "the deck is empty: every card has count 0", key=True)

    def check_card_names(self, cards: list[Any]) -> None:
        """A warning where two cards have one name (written, or made from the id), as
        `play` and the reports tell cards apart by their names; not for cards of one
        group (a menu's takeout boxes differ only in their order)."""
        of_id = {c.id: (c.name, c.group) for c in self.catalogue.cards}
        # a name as a person reads or types it -> (the first card with it, its group, its name)
        first: dict[str, tuple[int, str | None, str]] = {}
        ids: set[str] = set()
        for i, card in enumerate(cards):
            ident = str(card.get("id")) if isinstance(card, dict) else ""
            if ident not in of_id or ident in ids:  # a duplicate id is its own error
                continue
            ids.add(ident)
            name, group = of_id[ident]
            key = _as_read(name)
            if key not in first:
                first[key] = (i, group, name)
                continue
            earlier, earlier_group, earlier_name = first[key]
            if group is not None and group == earlier_group:
                continue
            there: Path = ("cards", earlier, "name" if "name" in cards[earlier] else "id")
            line = self.doc.locate(there)[0]
            file = self.doc.file_of(there) if hasattr(self.doc, "file_of") else None
            at = f"{display_name(file)}:{line}" if file and file != self.doc.file_of(("cards", i)) else f"line {line}"
            called = (
                f"two cards are called {name!r}"
                if name == earlier_name
                else f"two cards are called {earlier_name!r} and {name!r}, which read the same (case, width and invisible characters aside)"
            )
            self.warn(
                ("cards", i, "name" if "name" in card else "id"),
                f"{called} (the first at {at}): `play` and the reports tell cards apart by their names",
            )

    def check_reserved_names(self, cards: list[Any]) -> None:
        """A warning where a card id, tag, group or attribute is a word of the expression
        language (``if``, ``and``, ...): the file is valid, but no expression can name it;
        and where a card called ``none`` has no group, so no colour."""
        said: set[str] = set()
        for i, card in enumerate(cards):
            if not isinstance(card, dict):
                continue
            if card.get("id") == NO_COLOUR and "group" not in card and self.written_here(("cards", i, "id")):
                self.warn(
                    ("cards", i, "id"),
                    f"a card without a group is its own colour, but '{NO_COLOUR}' is the group of cards with no"
                    " colour: this card has none (give it a group to give it one)",
                )
            places: list[tuple[Path, Any, str]] = [(("cards", i, "id"), card.get("id"), "card id")]
            places.append((("cards", i, "group"), card.get("group"), "group"))
            places += [(("cards", i, "tags", j), tag, "tag") for j, tag in enumerate(card.get("tags") or [])]
            places += [(("cards", i, "attributes", a), a, "attribute") for a in card.get("attributes") or {}]
            for path, name, what in places:
                if name in RESERVED_WORDS and name not in said and self.written_here(path):
                    said.add(name)
                    self.warn(
                        path,
                        f"the {what} '{name}' is a word of the expression language: no expression can name it"
                        f" (rename it to use it in one)",
                        key=what == "attribute",
                    )

    def check_card_players(self, lo: int, hi: int) -> None:
        """A card in the deck (count above 0) must allow every player count of the game."""
        for i, card in enumerate(self.data.get("cards") or []):
            allowed = _card_players(card.get("players"))
            if allowed is None:
                continue
            fewest, most = allowed
            where = ("cards", i, "players")
            if fewest > most:
                self.error(where, f"card '{card.get('id')}' is for at least {fewest} and at most {most} players")
                continue
            if not card.get("count"):
                continue
            outside = [n for n in range(lo, hi + 1) if not fewest <= n <= most]
            if outside:
                self.error(
                    self.in_child(where, ("players", "min"), ("players", "max")),
                    f"card '{card.get('id')}' is only for {players_range_words(allowed)}, but this game is also for "
                    f"{_players_words(outside)} (narrow 'players' or set the card's count to 0)",
                )

    def check_additions(self, lo: int, hi: int, sizes: Mapping[int, int]) -> None:
        """rounds.add: the cards held back exist and are held once; a count for every
        player count, one number per round, no more than are held back; and each
        round's deal fits the deck as it is then."""
        rounds_spec = self.data.get("rounds") or {}
        rounds = rounds_spec.get("count", 1)
        reshuffle = (self.data.get("deal") or {}).get("between_rounds") == "reshuffle"
        held_by: dict[int, int] = {}
        held_total = 0
        schedules: list[dict[int, list[int]]] = []
        specs: list[Mapping[str, Any]] = []
        for i, item in enumerate(rounds_spec.get("add") or []):
            path: Path = ("rounds", "add", i)
            cards = self.cards(path + ("cards",), item.get("cards"))
            for c in cards or ():
                if c in held_by and held_by[c] != i:
                    self.error(
                        path + ("cards",),
                        f"card '{self.catalogue.cards[c].id}' is already held back by item {held_by[c] + 1} of 'add'",
                    )
                held_by.setdefault(c, i)
            pool = sum(self.catalogue.cards[c].count for c in set(cards or ()))
            held_total += pool
            spec = item.get("count") or {}
            self.check_player_keys(path + ("count",), spec)
            self.check_unused_player_keys(path + ("count",), spec, seats=False)
            by_n = expand_player_keys(spec)
            schedules.append(by_n)
            specs.append(spec)
            for key, numbers in spec.items():
                where = path + ("count", key)
                if len(numbers) != rounds:
                    self.error(where, f"'{key}' lists {_n(len(numbers), 'number')} for {_n(rounds, 'round')}")
                elif cards is not None and sum(numbers) > pool:
                    self.error(where, f"'{key}' adds {sum(numbers)} cards but {_n(pool, 'card')} are held back")
            for n in range(lo, hi + 1):
                if n not in by_n:
                    self.error(
                        path + ("count",),
                        f"no count for {plural(n, 'player')} (the game is for {player_span(lo, hi)})",
                    )
        if not schedules:
            return
        base = sum(c.count for c in self.catalogue.cards) - held_total
        held = set(held_by)
        # kept cards leave the deck for good, but a held-back one only after it was added
        kept_base = sum(c.count for c in self.catalogue.cards if c.keep == "game" and c.index not in held)
        kept_held = sum(c.count for c in self.catalogue.cards if c.keep == "game" and c.index in held)
        seats_extra = self.dummy_seats()
        for n in range(lo, hi + 1):
            if n not in sizes or any(n not in s or len(s[n]) != rounds for s in schedules):
                continue
            deal = (n + seats_extra) * sizes[n]
            available = base
            by_round: list[int] = []
            self.round_decks[n] = by_round
            for r in range(rounds):
                available += sum(s[n][r] for s in schedules)
                by_round.append(available)
                added_before = sum(s[n][q] for s in schedules for q in range(r))
                kept_total = kept_base + min(kept_held, added_before)
                needed = deal + min(kept_total, deal * r) if reshuffle else deal * (r + 1)
                if needed > available:
                    dealt = (
                        f"round {r + 1}'s deal and the cards kept from earlier rounds take {needed} cards"
                        if reshuffle and needed > deal
                        else f"round {r + 1}'s deal takes {needed} cards"
                        if reshuffle or r == 0
                        else f"the deals of rounds 1-{r + 1} take {needed} cards"
                    )
                    short = needed - available
                    fix = f"add {short} more card{'s' if short > 1 else ''} by then, or deal fewer"
                    if not reshuffle and deal <= available:
                        fix += ", or set deal.between_rounds: reshuffle"
                    self.error(
                        ("rounds", "add", 0, "count", self.key_for(specs[0], n)),
                        f"with {n} players {dealt}, but the deck then holds {available}"
                        f" (cards added so far included): {fix}",
                    )
                    break

    def check_players_and_deal(self) -> None:
        bounds = players_bounds(self.data.get("players"))
        if bounds is None:
            return  # missing or outside what the schema allows: reported there
        lo, hi = bounds
        if lo <= hi:
            if self.library is None:  # a library is never dealt whole: its menus are checked
                self.check_card_players(lo, hi)
        if lo > hi:
            self.error(("players", "min"), f"players.min ({lo}) is more than players.max ({hi})")
            return
        deal = self.data.get("deal") or {}
        sizes_spec = deal.get("hand_size") or {}
        for key in sizes_spec:
            if "-" in key:
                a, b = key.split("-", 1)
                if int(a) > int(b):
                    self.error(("deal", "hand_size", key), f"player range '{key}' is empty", key=True)
        self.check_player_keys(("deal", "hand_size"), sizes_spec)
        self.check_unused_player_keys(("deal", "hand_size"), sizes_spec, seats=False)
        sizes = expand_player_keys(sizes_spec)
        if (self.data.get("rounds") or {}).get("add"):
            self.check_additions(lo, hi, sizes)
        # hand sizes inherited for player counts outside players.min..max are unused but
        # not wrong: a ruleset that extends another may narrow the player range
        rounds = (self.data.get("rounds") or {}).get("count", 1)
        deck = sum(c.count for c in self.catalogue.cards)
        dummies = self.dummy_seats()
        reshuffle = deal.get("between_rounds") == "reshuffle"
        for n in range(lo, hi + 1):
            if n not in sizes:
                near, far = ("min", "max") if n - lo < hi - n else ("max", "min")
                # a variant that widened the range without hand sizes for it: at what it wrote
                where = self.in_child(("deal", "hand_size"), ("players", near), ("players", far))
                self.error(
                    where,
                    f"no hand size for {plural(n, 'player')} (the game is for {player_span(lo, hi)})",
                    key=where[0] == "deal",
                )
                continue
            seats = n + dummies
            needed = seats * sizes[n] * (1 if reshuffle else rounds)
            kept_total = sum(c.count for c in self.catalogue.cards if c.keep == "game")
            if reshuffle and rounds > 1:
                # kept cards leave the deck for good: at worst every one was played earlier
                needed += min(kept_total, seats * sizes[n] * (rounds - 1))
            extra = ""
            if dummies:
                extra = f" (with {dummies} dummy seat{'s' if dummies > 1 else ''})"
            if needed > deck and not (self.data.get("rounds") or {}).get("add"):
                # (cards added before rounds: check_additions checks each round's deck)
                kept_leave = (
                    " (cards kept to game end leave the deck)" if reshuffle and rounds > 1 and kept_total else ""
                )
                how = f"every round{kept_leave}" if reshuffle else _n(rounds, "round")
                fix = f"add {_n(needed - deck, 'card')} or deal fewer"
                if not reshuffle and rounds > 1 and seats * sizes[n] <= deck:
                    fix += ", or set deal.between_rounds: reshuffle (then one round's deal must fit)"
                # a variant that shrank its parent's deck is told so in its own file
                self.error(
                    self.in_child(
                        ("deal", "hand_size", self.key_for(sizes_spec, n)),
                        *self.child_card_counts(),
                        ("cards",),
                        ("remove", "cards"),
                        ("rounds", "count"),
                        ("deal", "between_rounds"),
                        ("players", "max"),
                        ("extends",),
                    ),
                    f"the deck has {deck} cards, too few to deal {_n(sizes[n], 'card')} to {_n(seats, 'seat')}{extra} for {how} ({needed} needed): {fix}",
                )

    @staticmethod
    def key_for(sizes_spec: Mapping[str, Any], n: int) -> str:
        for key in sizes_spec:
            if n in expand_player_keys({key: 0}):
                return key
        return ""

    def check_player_keys(self, path: Path, mapping: Mapping[str, Any]) -> None:
        """Each player count may be given by one key only (``2`` and ``02``, or ``2`` and
        ``2-3``, would leave it to chance which value wins)."""
        first: dict[int, str] = {}
        for key in mapping:
            counts = list(expand_player_keys({key: 0}))
            inherited = sorted(
                {first[n] for n in counts if n in first and not self.written_here(path + (first[n],))}, key=str
            )
            if inherited and self.written_here(path + (key,)):  # a child's range over its parent's keys
                self.error(
                    path + (key,),
                    f"'{key}' gives player counts the parent gives too, by {', '.join(repr(k) for k in inherited)}:"
                    " a variant's keys merge with its parent's one by one, so give the same keys"
                    f" ({', '.join(inherited)}) to change them",
                    key=True,
                )
                continue
            for n in counts:
                if n in first:
                    self.error(path + (key,), f"{n} players is given twice: by '{first[n]}' and by '{key}'", key=True)
                    break
                first[n] = key

    def check_unused_player_keys(self, path: Path, mapping: Mapping[str, Any], *, seats: bool) -> None:
        """A key for player counts no game of this ruleset has is an error where it is
        written, and a warning where it is inherited (unless the file that wrote it
        plays those counts: a child may narrow its parent's range).

        ``seats``: the keys count scoring seats (dummy seats included), as majority
        awards do; otherwise players, as hand sizes do.
        """
        possible = self.possible_counts(self.data, seats)
        if possible is None:
            return
        child = getattr(self.doc, "child", None)
        for key in mapping:
            counts = set(expand_player_keys({key: 0}))
            where = path + (key,)
            unit = "seats" if seats and self.dummy_seats() else "players"
            what = ("awards" if seats else "the hand size") + f" for {key} {unit}"
            most = MAX_PLAYERS + (self.dummy_seats() if seats else 0)
            if counts & possible and (min(counts) < 1 or max(counts) > most) and self.written_here(where):
                # a range past what any game can have (0-17) is a slip the file could say exactly; one
                # copied from a wider game (2-3 in a 3-6 player game) is not worth a word
                used = sorted(counts & possible)
                span = f"{used[0]}-{used[-1]}" if len(used) > 1 else str(used[0])
                self.warn(
                    where,
                    f"{what} {'reach' if seats else 'reaches'} past what any game has (1-{most} {unit}) and {self.range_words(possible, seats)}:"
                    f" write '{span}'",
                    key=True,
                )
            if not counts or counts & possible:
                continue  # used, or an empty range (reported on its own)
            message = f"{what} can never be used: {self.range_words(possible, seats)}"
            origin = self.doc.origin(where)[0] if child is not None else None
            if origin is None or child is None or self.doc.file_of(where) == child.file:
                self.error(where, message, key=True)
            else:
                theirs = self.possible_counts(getattr(origin, "data", None), seats)
                if theirs is None or not counts & theirs:
                    self.warn(where, message + " (inherited through 'extends')", key=True)

    def possible_counts(self, data: Any, seats: bool) -> set[int] | None:
        """The player (or scoring seat) counts a ruleset's ``data`` allows, or None if unknown."""
        bounds = players_bounds(data.get("players") if isinstance(data, dict) else None)
        if bounds is None or bounds[0] > bounds[1]:
            return None
        lo, hi = bounds
        extra = 0
        if seats:
            turn = data.get("turn") or {}
            if isinstance(turn, dict) and turn.get("procedure") == "dummy":
                extra = DUMMY_SEATS
        return set(range(lo + extra, hi + extra + 1))

    def range_words(self, possible: set[int], seats: bool) -> str:
        lo, hi = min(possible), max(possible)
        span = f"{lo}-{hi}" if lo != hi else str(lo)
        dummies = self.dummy_seats() if seats else 0
        if dummies:
            players = f"{lo - dummies}-{hi - dummies}" if lo != hi else str(lo - dummies)
            return f"the game is scored with {span} seats ({players} players and {_n(dummies, 'dummy seat')})"
        return f"the game is for {span} players"

    def child_card_counts(self) -> list[Path]:
        """The places of the card counts the file being checked writes (a parent's card
        it updates, or one it adds), in the merged cards' order."""
        cards = self.data.get("cards")
        if getattr(self.doc, "child", None) is None or not isinstance(cards, list):
            return []
        return [("cards", i, "count") for i in range(len(cards)) if self.written_here(("cards", i, "count"))]

    def written_here(self, path: Path) -> bool:
        """Whether ``path`` is written in the file being checked (not inherited from a parent)."""
        child = getattr(self.doc, "child", None)
        return child is None or self.doc.file_of(path) == child.file

    def dummy_seats(self) -> int:
        turn = self.data.get("turn") or {}
        if not isinstance(turn, dict) or turn.get("procedure") != "dummy":
            return 0
        return DUMMY_SEATS

    def check_rounds_and_turn(self) -> None:
        rounds = self.data.get("rounds") or {}
        count = rounds.get("count")
        passes = rounds.get("pass")
        if isinstance(passes, list) and count is not None and len(passes) != count:
            where = self.in_child(("rounds", "pass"), ("rounds", "count"))
            message = f"'pass' lists {_n(len(passes), 'direction')} for {_n(count, 'round')}"
            if where[-1] == "count" and not self.written_here(("rounds", "pass")):  # the list is a parent's
                at = self.doc.locate(("rounds", "pass"))[0]
                message += (
                    f" (the list is the parent's, {display_name(self.doc.file_of(('rounds', 'pass')))}:{at}:"
                    f" write rounds.pass here, a list of {count} or one direction for every round)"
                )
            self.error(where, message)
        turn = self.data.get("turn") or {}
        if turn.get("procedure") == "dummy":
            dummy = turn.get("dummy") or {}
            players = self.data.get("players") or {}
            controllers = dummy.get("first_controller")
            if controllers is not None:
                if count is not None and len(controllers) != count:
                    self.error(
                        ("turn", "dummy", "first_controller"),
                        f"'first_controller' lists {_n(len(controllers), 'seat')} for {_n(count, 'round')}",
                    )
                for i, c in enumerate(controllers):
                    if c >= players.get("min", 0):
                        self.error(
                            ("turn", "dummy", "first_controller", i),
                            f"seat {c} is not a player with {players.get('min')} players",
                        )
        elif "dummy" in turn:
            self.error(("turn", "dummy"), "'dummy' settings need 'procedure: dummy'", key=True)

    def check_actions(self) -> None:
        actions = self.data.get("actions") or []
        self.check_unique(actions, "action", "actions")
        by_effect = {e.card for e in self.actions}  # the cards whose effect: says it already
        for i, a in enumerate(actions):
            card = self.card(("actions", i, "card"), a["card"])
            if card is not None and card not in by_effect:
                self.actions.append(
                    ExtraPick(id=a["id"], card=card, extra=a.get("extra", 1), description=a.get("description", ""))
                )

    def check_effects(self) -> None:
        """Each card's ``effect:``, built by its kind's unit (names resolved, located errors)."""
        for i, spec in enumerate(self.data.get("cards") or []):
            effect = spec.get("effect") if isinstance(spec, dict) else None
            if not isinstance(effect, dict) or not isinstance(spec.get("id"), str):
                continue
            kind = EFFECT_KINDS.get(effect.get("kind", ""))
            if kind is None:  # pragma: no cover - the schema admits registered kinds only
                self.error(("cards", i, "effect", "kind"), f"unknown effect kind '{effect.get('kind')}'")
                continue
            card = self.catalogue.index_of(spec["id"])
            ctx = _RuleContext(self, ("cards", i, "effect"))
            if EFFECT_KINDS.is_builtin(kind.name):
                built = kind.build(effect, ctx, card)
            else:
                told, hits = len(self.out), self.off_menu_hits
                try:
                    built = kind.build(effect, ctx, card)
                except Exception as e:  # noqa: BLE001 - a plug-in's failure is this effect's diagnostic
                    reason = f"{type(e).__name__}: {e}".splitlines()[0]
                    self.error(
                        ("cards", i, "effect", "kind"),
                        f"the card effect '{kind.name}' could not build this effect: {reason}",
                    )
                    continue
                if built is None and len(self.out) == told and self.off_menu_hits == hits:
                    self.error(
                        ("cards", i, "effect", "kind"),
                        f"the card effect '{kind.name}' built no effect and reported no problem",
                    )
                elif built is not None and not isinstance(built, ExtraPick) and not has_step(built):
                    when = getattr(built, "when", None)
                    self.error(("cards", i, "effect", "kind"), no_step(kind.name, when, spec["id"]))
                    continue
            if built is None:
                continue
            if isinstance(built, ExtraPick):
                self.actions.append(built)
            else:
                if self.dummy_seats():
                    self.error(
                        ("cards", i, "effect", "kind"),
                        f"a card effect ('{kind.name}') needs 'turn: {{procedure: standard}}': the dummy turn"
                        " procedure plays none",
                    )
                self.effects.append(built)
                at = self.doc.diagnostic(("cards", i, "effect", "kind"), "")
                self.effect_places.append((at.file, at.line, at.column))

    def check_deck_taken(self) -> None:
        """Under ``between_rounds: keep_deck``, card effects that play cards from the deck
        (a menu) keep them out of it for good: the deck must still hold every deal. Each
        card with such an effect acts at most once in a game (it leaves at its round's
        end), and so does a card that may copy one; at worst all act before the last deal."""
        data = self.data
        deal = data.get("deal") or {}
        rounds = (data.get("rounds") or {}).get("count", 1)
        if deal.get("between_rounds", "keep_deck") != "keep_deck" or rounds < 2:
            return
        cards = self.catalogue.cards
        # (effect, cards one action takes); a plug-in's effect that says nothing takes none
        takers = [(e, n) for e in self.effects if (n := int(getattr(e, "deck_taken", 0))) > 0]
        bounds = players_bounds(data.get("players"))
        if not takers or bounds is None:
            return
        most = max(n for _, n in takers)
        taken = sum(cards[e.card].count * n for e, n in takers)
        taken += sum(cards[e.card].count * most for e in self.effects if getattr(e, "plays_copies", False))
        deck = sum(c.count for c in cards)
        sizes = expand_player_keys(deal.get("hand_size") or {})
        seats_extra = self.dummy_seats()
        for n in range(bounds[0], bounds[1] + 1):
            if n not in sizes:
                continue
            per_round = (n + seats_extra) * sizes[n]
            # what the deck holds by each round (cards added before rounds: check_additions)
            held = self.round_decks.get(n) or [deck] * rounds
            for r in range(1, rounds):
                dealt = per_round * (r + 1)
                if dealt <= held[r] < dealt + taken:
                    i = next(
                        i
                        for i, c in enumerate(data.get("cards") or [])
                        if isinstance(c, dict) and c.get("id") == cards[takers[0][0].card].id
                    )
                    names = ", ".join(sorted({cards[e.card].id for e, _ in takers}))
                    self.error(
                        ("cards", i, "effect", "kind"),
                        f"with 'between_rounds: keep_deck' and {n} players the deck may run out: {r + 1} rounds "
                        f"deal {dealt} of the {held[r]} cards it holds by then and the cards that play cards from "
                        f"it ({names}) can keep {taken} more out of it ({dealt + taken} needed): add "
                        f"{_n(dealt + taken - held[r], 'card')}, deal fewer or set deal.between_rounds: reshuffle",
                    )
                    return

    def check_scoring(self) -> None:
        rules = self.data.get("scoring") or []
        if self.data.get("scoring") == [] and self.valid is None:  # written empty, or every parent's rule removed
            where = self.in_child(("scoring",), ("remove", "scoring"))
            self.error(
                where, "no scoring rule: every game would end with everyone tied at 0 (keep or write one at least)"
            )
        self.check_unique(rules, "scoring rule", "scoring")
        for i, spec in enumerate(rules):
            if self.valid is not None and not self.valid(("scoring", i)):
                continue
            kind = SCORING_KINDS.get(spec["kind"])
            if kind is None:  # pragma: no cover - the schema admits registered kinds only
                self.error(("scoring", i, "kind"), f"unknown scoring kind '{spec['kind']}'")
                continue
            spec = dict(spec)
            spec.setdefault("when", "round_end")
            ctx = _RuleContext(self, ("scoring", i), spec["id"])
            told, hits = len(self.out), self.off_menu_hits
            if SCORING_KINDS.is_builtin(kind.name):
                rule = kind.build(spec, ctx)
            else:
                try:
                    rule = kind.build(spec, ctx)
                except Exception as e:  # noqa: BLE001 - a plug-in's failure is this rule's diagnostic
                    reason = f"{type(e).__name__}: {e}".splitlines()[0]
                    self.error(
                        ("scoring", i, "kind"), f"the scoring kind '{kind.name}' could not build this rule: {reason}"
                    )
                    continue
                # a plug-in must give a rule, or say why not: never drop a rule in silence
                if rule is None and len(self.out) == told and self.off_menu_hits == hits:
                    self.error(
                        ("scoring", i, "kind"),
                        f"the scoring kind '{kind.name}' built no rule and reported no problem",
                    )
                elif rule is not None and not isinstance(rule, Rule):
                    self.error(
                        ("scoring", i, "kind"),
                        f"the scoring kind '{kind.name}' built {type(rule).__name__}, not a rule "
                        "(see ruledraft.language.rule.Rule)",
                    )
                    continue
                if rule is not None:
                    rule = CheckedRule(rule, kind.name)
            if self.off_menu_hits != hits:
                # it names cards the menu left out: it does not score (and is no mistake)
                del self.out[told:]
                self.expressions = [(p, e) for p, e in self.expressions if p[:2] != ("scoring", i)]
                continue
            if rule is not None:
                if self.dummy_seats() and getattr(rule, "turn_scoring", None) is not None:
                    self.error(
                        ("scoring", i, "kind"),
                        f"a {kind.name} scores at the end of every turn, and the dummy turn procedure has no turn"
                        " ends of its own: it needs 'turn: {procedure: standard}'",
                    )
                self.rules.append(rule)

    def check_own_id(self) -> None:
        """A warning where a rule file other than a bundled one takes a bundled ruleset's
        id: logs name a ruleset by its id, and one whose file is gone would be replayed
        against the bundled rules."""
        from ruledraft.language.bundled import bundled_ids, is_bundled_file

        ident = self.data.get("id")
        file = getattr(self.doc, "file", "")
        if isinstance(ident, str) and ident in bundled_ids() and not is_bundled_file(file):
            self.warn(
                ("id",),
                f"'{ident}' is the id of a bundled ruleset; give this rule file an id of its own "
                "(logs and reports name a ruleset by its id)",
            )

    def tuned(self, path: Path) -> bool:
        """Whether a tune mark of the rule file stands at ``path`` or under it: a number
        ``tune`` searches, read here as its start (a warning about that number as it
        reads need not hold once tuned)."""
        from ruledraft.language.tunable import under_marks

        return under_marks(self.data, path, self.tune_names)

    def warn(self, path: Path, message: str, *, key: bool = False) -> None:
        d = self.doc.diagnostic(path, message, key=key)
        self.out.append(Diagnostic(d.file, d.line, d.column, d.message, "warning", d.source_line))

    def check_game_end_reads(self) -> None:
        """Game-end rules and tie-breaks see only cards kept to game end: one that
        reads nothing else can only ever see none."""
        kept = {c.index for c in self.catalogue.cards if c.keep == "game"}
        places: list[tuple[Path, Path, str]] = []  # (where to say it, what was read there, what)
        for i, rule in enumerate(self.data.get("scoring") or []):
            if rule.get("when") == "game_end":
                key = next((k for k in ("quantity", "expr", "cards") if rule.get(k)), None)
                if key is not None:
                    places.append(
                        (
                            ("scoring", i, "when"),
                            ("scoring", i, key),
                            f"scoring rule '{rule.get('id')}' is scored at game end",
                        )
                    )
        for i, tb in enumerate((self.data.get("winner") or {}).get("tie_breaks") or []):
            for key in ("most", "least"):
                if key in tb:
                    place: Path = ("winner", "tie_breaks", i, key)
                    places.append((place, place, "this tie-break is decided at game end"))
        for path, read_at, what in places:
            reads = self.reads.get(read_at)
            if reads is not None and reads and not (reads & kept):
                self.warn(
                    path,
                    f"{what} but reads only cards that are not kept to game end (they are discarded after each round), so it always sees none; add 'keep: game' to those cards",
                )

    def check_cost(self) -> None:
        """Refuse rulesets whose expressions would take too long to score: each is
        evaluated once per seat, and each player aggregate multiplies by the seats."""
        if not self.expressions:
            return
        seats = ((self.data.get("players") or {}).get("max") or 1) + self.dummy_seats()
        costs = [(compiled.steps(seats) * seats, path) for path, compiled in self.expressions]
        total = sum(c for c, _ in costs)
        if total > MAX_SCORING_STEPS:
            worst, path = max(costs, key=lambda c: c[0])
            self.error(
                path,
                f"the expressions of this ruleset would take about {total:,} steps to score once with "
                f"{seats} seats (this one {worst:,}); the limit is {MAX_SCORING_STEPS:,}: "
                f"use fewer or less deeply nested player aggregates",
            )

    def decision_work(self, players: int | None = None) -> tuple[int, int, int, int, int | None] | None:
        """``(total, hand, candidates, per_candidate, worst rule index)``: an estimate of
        the steps the greedy bot takes to choose the cards of one hand (hand size x
        candidate actions x scoring work), or None if it cannot be made; with
        ``players``, in a game of that many (else the largest hand with the most seats).

        For each candidate action (every kind in a full hand, and every ordered pick
        a special action allows) it copies a row of counts and scores each rule that
        reads the cards (the selectors' sizes, the expressions' steps; a majority
        once per seat); it does so for each of the cards of a hand in turn.
        """
        from ruledraft.language.quantity import selector_indices

        spans = self.data.get("players") or {}
        lo, hi = spans.get("min"), spans.get("max")
        sizes = expand_player_keys((self.data.get("deal") or {}).get("hand_size") or {})
        counts = [players] if players is not None else range(lo or 0, (hi or -1) + 1)
        hands = [sizes[n] for n in counts if n in sizes]
        kinds = self.catalogue.size
        if not hands or not kinds:
            return None
        hand: int = max(hands)
        seats: int = (players if players is not None else hi or 0) + self.dummy_seats()
        m = min(hand, kinds)
        extra = max((a.get("extra", 1) for a in self.data.get("actions") or []), default=0)
        candidates = m * (m + 1) ** extra
        steps_by_rule: dict[int, int] = {}
        for path, compiled in self.expressions:
            if path[:1] == ("scoring",) and isinstance(path[1], int):
                steps_by_rule[path[1]] = steps_by_rule.get(path[1], 0) + compiled.steps(seats)

        def selected(spec: Any) -> int:
            try:
                return len(selector_indices(spec, self.catalogue))
            except Exception:  # a name already reported as unknown
                return kinds

        works: list[int] = []
        for i, rule in enumerate(self.data.get("scoring") or []):
            work = 1 + steps_by_rule.get(i, 0)
            for key in ("cards", "targets"):
                if key in rule:
                    work += selected(rule[key])
            for key in ("quantity", "eligible", "multiplier"):
                spec = rule.get(key)
                if isinstance(spec, dict):
                    for inner in ("count", "of"):
                        if inner in spec:
                            work += selected(spec[inner])
            kind = SCORING_KINDS.get(rule.get("kind")) if isinstance(rule.get("kind"), str) else None
            if kind is not None and kind.compares_seats:
                work *= seats
            works.append(work)
        per_candidate = kinds + seats + sum(works)
        worst = max(range(len(works)), key=works.__getitem__) if works else None
        return hand * candidates * per_candidate, hand, candidates, per_candidate, worst

    def check_decision_work(self) -> None:
        """Refuse a ruleset that would make a bot work too long for each card it chooses
        (the cost check bounds each expression, not the total): ``MAX_DECISION_STEPS``."""
        estimate = self.decision_work()
        if estimate is None or estimate[0] <= MAX_DECISION_STEPS:
            return
        total, hand, candidates, per_candidate, worst = estimate
        self._work_error(
            worst,
            f"choosing cards would cost a bot about {total:,} steps per hand ({hand} cards in a hand x "
            f"{candidates:,} candidate actions x {per_candidate:,} steps to score each); the limit is "
            f"{MAX_DECISION_STEPS:,}: use fewer card kinds, smaller hands, or fewer or narrower rules",
        )

    def _work_error(self, rule: int | None, message: str) -> None:
        """A bound on the bots' work passed: an error at the costliest rule, naming it (at the cards if none)."""
        if rule is None:
            self.error(("cards",), message, key=True)
        else:
            self.error(
                ("scoring", rule), f"{message}; the costliest rule is '{(self.data['scoring'][rule] or {}).get('id')}'"
            )

    def check_game_work(self) -> None:
        """Refuse a ruleset whose bots would work too long over one whole game, though
        each hand is within ``MAX_DECISION_STEPS``: for each player count, a hand's work
        times the seats that choose (a dummy's cards are chosen too) times the rounds,
        ``MAX_GAME_STEPS``."""
        players = self.data.get("players") or {}
        rounds = (self.data.get("rounds") or {}).get("count") or 1
        worst: tuple[int, int, int, int | None] | None = None  # (total, players, a hand's work, rule)
        for n in range((players.get("min") or 1), (players.get("max") or 0) + 1):
            estimate = self.decision_work(n)
            if estimate is None:
                continue
            total = estimate[0] * (n + self.dummy_seats()) * rounds
            if worst is None or total > worst[0]:
                worst = (total, n, estimate[0], estimate[4])
        if worst is None or worst[0] <= MAX_GAME_STEPS:
            return
        total, n, per_hand, rule = worst
        self._work_error(
            rule,
            f"with {plural(n, 'player')} one game would cost the bots about {total:,} steps ({per_hand:,} steps to "
            f"choose a hand x {n + self.dummy_seats()} seats x {rounds} rounds); the limit is {MAX_GAME_STEPS:,}: "
            "use fewer players or rounds, fewer card kinds, smaller hands, or fewer or narrower rules",
        )

    def check_winner(self) -> None:
        winner = self.data.get("winner") or {}
        for i, tb in enumerate(winner.get("tie_breaks") or []):
            for key in ("most", "least"):
                if key in tb:
                    q = self.quantity(("winner", "tie_breaks", i, key), tb[key])
                    if q is not None:
                        self.tie_breaks.append(TieBreak(q, key == "most"))

    def run(self) -> list[Diagnostic]:
        """Walk the document once; every diagnostic, sorted (the ruleset in :attr:`ruleset` if no error)."""
        if self.valid is not None:
            return self._run_accepted_sections(self.valid)
        if self.menu_problems:
            return sorted(set(self.menu_problems))
        if self.library is not None:
            self.out.append(attrs.evolve(self.library, severity="warning"))
        self.check_own_id()
        self.check_cards()
        self.check_players_and_deal()
        self.check_rounds_and_turn()
        self.check_effects()  # a card's extra_pick comes first, as the cards come before actions:
        self.check_actions()
        if not self._failed():
            self.check_deck_taken()
        self.check_scoring()
        self.check_winner()
        self.check_cost()
        if not self._failed():
            self.check_decision_work()
        if not self._failed():
            self.check_game_work()
        if not self._failed():
            self.check_game_end_reads()
        if not self._failed():
            self.ruleset = self._compiled()
            self.check_sets_reach(self.ruleset)
            self.check_choices(self.ruleset)
            self.check_variant_typos(self.ruleset)
            self.check_bounds(self.ruleset)
        return sorted(set(self.out))

    def check_variant_typos(self, ruleset: CompiledRuleset) -> None:
        """Warnings where a variant (a file with ``extends:``) reads like a typo of what it
        extends: a card entry whose id is new, close to a card of the parent's, with no
        effect and scored by no rule (``{id: tempora, count: 10}`` adds ten cards worth
        nothing, where tempura was meant to change); an attribute written for a parent's
        card, close to one the card has and that no other card has (``{valu: 4}`` beside
        ``value: 3``, which stays 3: a card's attributes merge key by key)."""
        child = getattr(self.doc, "child", None)
        cards = self.data.get("cards")
        if child is None or not isinstance(cards, list) or len(cards) != len(ruleset.catalogue.cards):
            return
        mine = [self.doc.file_of(("cards", i)) == child.file for i in range(len(cards))]
        parents = [c["id"] for c, new in zip(cards, mine) if not new and isinstance(c.get("id"), str)]
        reads = [rule.reads for rule in ruleset.rules]
        for i, (card, new) in enumerate(zip(cards, mine)):
            if not isinstance(card, dict):
                continue
            ident = card.get("id")
            if new and isinstance(ident, str) and not card.get("effect"):
                scored = any(r is None or i in r for r in reads)
                close = did_you_mean(ident, parents)
                if close and not scored:
                    self.warn(
                        ("cards", i, "id"),
                        f"card '{ident}' is new in this file, and no rule scores it{close}: an entry with the id"
                        " of a card the file extends changes that card; a new id adds a card to the deck",
                    )
            if new or not isinstance(card.get("attributes"), dict):
                continue
            attributes = card["attributes"]
            own = [a for a in attributes if not self.written_here(("cards", i, "attributes", a))]
            for name in attributes:
                if name in own or not self.written_here(("cards", i, "attributes", name)):
                    continue
                elsewhere = any(
                    isinstance(other, dict)
                    and isinstance(other.get("attributes"), dict)
                    and name in other["attributes"]
                    for j, other in enumerate(cards)
                    if j != i
                )
                meant = closest(name, own)
                if meant is not None and not elsewhere:
                    self.warn(
                        ("cards", i, "attributes", name),
                        f"attribute '{name}' is new to card '{ident}' (did you mean '{meant}'?): a card's attributes"
                        f" merge key by key, so its '{meant}' stays {attributes[meant]}",
                        key=True,
                    )

    def check_bounds(self, ruleset: CompiledRuleset) -> None:
        """Refuse a ruleset whose totals could pass the language's value limit
        (:mod:`ruledraft.language.bounds`); the ruleset is then not kept."""
        bounds: dict[int, int] = {}
        for path, compiled in self.expressions:
            if path[:1] == ("scoring",) and isinstance(path[1], int):
                bounds[path[1]] = max(bounds.get(path[1], 0), compiled.bound)
        for path, message in bound_problems(ruleset, self.data.get("scoring") or [], bounds):
            self.error(path, message)
        if self._failed():
            self.ruleset = None

    def check_choices(self, ruleset: CompiledRuleset) -> None:
        """A warning for a game where no pick is a choice: no hand is ever passed on (or
        the game is for one player), so every seat ends each round with the whole hand it
        was dealt, whatever it picks; only where nothing else hangs on the order of picks
        (no card effect, no extra pick, a plain turn, rules of :data:`ORDER_FREE_KINDS` only)."""
        rs = ruleset
        kinds = {spec.get("kind") for spec in self.data.get("scoring") or [] if isinstance(spec, dict)}
        if not rs.picks_alone or rs.actions or not kinds <= ORDER_FREE_KINDS:
            return  # (a modifier or a boost reads the order of play; a plug-in kind may)
        patterns = rs.pass_patterns or tuple((d,) for d in rs.pass_directions)
        kept = all(d == NO_PASS for pattern in patterns for d in pattern)
        alone = rs.max_players == 1
        if not (kept or alone):
            return
        why = "the game is for one player" if alone else "no hand is ever passed on"
        fix = "give cards effects" if alone else "pass hands, or give cards effects,"
        self.warn(
            self.in_child(("rounds", "pass"), ("players", "max")) if kept and not alone else ("players", "max"),
            f"no pick is a choice: {why}, so every seat ends each round with the whole hand it was dealt,"
            f" whatever it picks ({fix} for the picks to matter)",
        )

    def check_sets_reach(self, ruleset: CompiledRuleset) -> None:
        """A warning for a set bigger than a seat's table can ever hold (a set of 20 from
        5-card hands): only where picks alone fill the tables, a card a turn (no effect
        moves or copies cards, no extra pick takes more than one card more)."""
        rs = ruleset
        if not rs.picks_alone:
            return
        hands = [rs.hand_sizes.get(n) for n in rs.player_counts]
        if not hands or None in hands:
            return
        hand = max(h for h in hands if h is not None)
        where = {spec.get("id"): i for i, spec in enumerate(self.data.get("scoring") or [])}
        for rule in rs.rules:
            if not isinstance(rule, Sets) or rule.distinct or rule.id not in where:
                continue
            if not self.written_here(("scoring", where[rule.id], "size")):
                continue  # a parent's rule: its file is not the one being written
            cards = [rs.catalogue.cards[i] for i in rule.indices]
            # a round-end rule sees the round's cards; a game-end one the kept cards of every round
            kept = rule.when == "game_end"
            copies = sum(c.count for c in cards)
            held = hand * rs.rounds if kept else hand
            if rule.size <= min(held, copies):
                continue
            if copies < held:
                why = f"the deck has {_n(copies, 'such card')}"
            else:
                why = f"a seat takes {_n(hand, 'card')} a round" + (f" over {_n(rs.rounds, 'round')}" if kept else "")
            self.warn(
                ("scoring", where[rule.id], "size"),
                f"a set of {rule.size} can never be made: {why}, so this rule never scores",
            )

    def _run_accepted_sections(self, valid: Callable[[Path], bool]) -> list[Diagnostic]:
        """The checks of the sections the schema accepted, in a document it refused: a
        check runs when every section it reads was accepted (cards, when every card has
        an id the rules could name). Nothing is compiled and the whole-ruleset cost
        checks wait for a document without schema errors."""
        data = self.data
        named = isinstance(data.get("cards"), list) and all(
            isinstance(c, dict) and isinstance(c.get("id"), str) for c in data["cards"]
        )
        if self.menu_problems or self.unknown_menu:  # the cards dealt are not known: nothing reads them
            return sorted(set(self.menu_problems))
        if valid(("cards",)):
            self.check_cards()
        elif named:  # a card's mistake does not hide a duplicate id beside it
            self.check_unique(data["cards"], "card", "cards")
        if all(valid((k,)) for k in ("players", "deal", "rounds", "turn", "cards")):
            self.check_players_and_deal()
        if all(valid((k,)) for k in ("players", "rounds", "turn")):
            self.check_rounds_and_turn()
        if named and valid(("cards",)):
            self.check_effects()
        if named and valid(("actions",)):
            self.check_actions()
        if named and isinstance(data.get("scoring"), list):
            self.check_scoring()
        if named and valid(("winner",)):
            self.check_winner()
        return sorted(set(self.out))

    def _failed(self) -> bool:
        return any(d.severity == "error" for d in self.out)

    def _compiled(self) -> CompiledRuleset:
        data = self.data
        turn = data.get("turn") or {}
        dummy = None
        if turn.get("procedure") == "dummy":
            d = turn.get("dummy") or {}
            dummy = DummySpec(
                seats=d.get("seats", 1),
                first_controller=tuple(d.get("first_controller") or [0] * data["rounds"]["count"]),
                draw=d.get("draw", 1),
                can_win=d.get("can_win", False),
            )
        winner = data.get("winner") or {}
        players = data["players"]
        return CompiledRuleset(
            id=data["id"],
            name=data["name"],
            version=str(data.get("version", "")),
            description=str(data.get("description", "")).strip(),
            source=self.doc.file,
            min_players=players["min"],
            max_players=players["max"],
            catalogue=self.catalogue,
            hand_sizes=expand_player_keys(data["deal"]["hand_size"]),
            between_rounds=data["deal"].get("between_rounds", "keep_deck"),
            rounds=data["rounds"]["count"],
            pass_directions=pass_directions(data["rounds"]),
            pass_patterns=_turn_patterns(pass_patterns(data["rounds"])),
            additions=tuple(
                RoundAddition(
                    cards=self.cards(("rounds", "add", i, "cards"), item["cards"]) or (),
                    counts={n: tuple(v) for n, v in expand_player_keys(item["count"]).items()},
                )
                for i, item in enumerate(data["rounds"].get("add") or [])
            ),
            procedure=turn.get("procedure", "standard"),
            dummy=dummy,
            actions=tuple(self.actions),
            effects=tuple(self.effects),
            effect_places=tuple(self.effect_places),
            round_rules=tuple(r for r in self.rules if r.when == "round_end"),
            game_rules=tuple(r for r in self.rules if r.when == "game_end"),
            tie_breaks=tuple(self.tie_breaks),
            shared_win=winner.get("shared", True),
            extends=data.get("extends"),
            menu=self.menu,
            unplayable=self.library,
            rule_notes=tuple(
                (r["id"], str(r["description"]).strip())
                for r in data.get("scoring") or []
                if isinstance(r, dict) and isinstance(r.get("id"), str) and r.get("description")
            ),
        )


#: the built-in scoring kinds that read only which cards a table holds, not their order
ORDER_FREE_KINDS = frozenset({"sets", "table", "per_card", "majority", "expression", "neighbours"})


def _holds(data: Any, path: Path) -> bool:
    """Whether ``data`` has something at ``path`` (keys and list indexes)."""
    for step in path:
        if isinstance(data, dict) and step in data:
            data = data[step]
        elif isinstance(data, list) and isinstance(step, int) and 0 <= step < len(data):
            data = data[step]
        else:
            return False
    return True


def _n(count: int, noun: str) -> str:
    """``1 round``, ``3 rounds``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


#: top-level sections a ruleset without ``extends`` must have
REQUIRED_SECTIONS = ("players", "cards", "deal", "rounds", "scoring")
#: the sections the walk reads (a menu and a library's courses first), each checked on its own against the schema
SECTIONS = ("players", "cards", "deal", "rounds", "turn", "actions", "scoring", "winner", "menu", "courses")


def accepted_sections(data: Any, merged: Any = None) -> Callable[[Path], bool]:
    """For a document the schema check refused: whether a top-level section (or
    ``("extends",)``), or one scoring rule (``("scoring", i)``), is valid on its own
    against the schema.

    ``data`` is the file's own. For a file with ``extends:``, ``merged`` is the data
    merged with its parents' (which passed the schema) and the scoring rules asked
    about are the merged list's: a section the file did not write is its parents'
    (accepted), one it wrote is accepted when the file's own part is, and a scoring
    rule is matched by ``id``: accepted when it is a parent's, or when the file's own
    entry with that id is valid (an entry without a usable id is never accepted)."""
    from ruledraft.language.schema_check import is_valid_against, ruleset_schema_now, valid_but_for_unknown_keys

    schema = ruleset_schema_now()
    then = schema.get("then", {}).get("properties", {}) if "extends" not in data else {}
    defs = schema["$defs"]
    ok: dict[Path, bool] = {}
    for name in SECTIONS:
        if name not in data:
            ok[(name,)] = name not in REQUIRED_SECTIONS or "extends" in data
            continue
        parts = [schema["properties"][name]] + ([then[name]] if name in then else [])
        ok[(name,)] = is_valid_against(data[name], {"$defs": defs, "allOf": parts})
    ok[("extends",)] = "extends" not in data or is_valid_against(
        data["extends"], {"$defs": defs, **schema["properties"]["extends"]}
    )
    rule_schema = {"$defs": defs, "$ref": "#/$defs/scoringRule"}

    def rule_checked(rule: Any) -> bool:  # a rule whose one mistake is an unknown key is checked too
        return is_valid_against(rule, rule_schema) or valid_but_for_unknown_keys(rule, rule_schema)

    rules = data.get("scoring")
    if merged is None:
        if isinstance(rules, list):
            for i, rule in enumerate(rules):
                ok[("scoring", i)] = rule_checked(rule)
        return lambda path: ok.get(path, False)
    own: dict[str, bool] = {}  # the file's own rules, by id: valid or not
    for rule in rules if isinstance(rules, list) else []:
        ident = rule.get("id") if isinstance(rule, dict) else None
        if isinstance(ident, str):
            own[ident] = own.get(ident, True) and rule_checked(rule)
    merged_rules = merged.get("scoring") if isinstance(merged, dict) else None
    for i, rule in enumerate(merged_rules if isinstance(merged_rules, list) else []):
        ident = rule.get("id") if isinstance(rule, dict) else None
        ok[("scoring", i)] = isinstance(ident, str) and own.get(ident, True)
    return lambda path: ok.get(path, False)


def build_ruleset(doc: Any, tuned: Sequence[str] = ()) -> tuple[CompiledRuleset | None, list[Diagnostic]]:
    """The compiled ruleset of a schema-valid document (None if it has an error), and
    every diagnostic (errors and warnings), located and sorted; ``tuned``, the names of
    the rule file's tune marks (:meth:`RulesetBuilder.tuned`).

    A menu (``menu:`` over a card library's ``courses:``) is applied first
    (:func:`ruledraft.language.menu.apply_menu`)."""
    walk = RulesetBuilder(doc, tuned=tuned)
    diagnostics = walk.run()
    return walk.ruleset, diagnostics


def compile_ruleset(doc: Any) -> CompiledRuleset:
    """The compiled ruleset of a schema-valid document, or :class:`RulesetError` with its errors."""
    ruleset, diagnostics = build_ruleset(doc)
    if ruleset is None:
        raise RulesetError([d for d in diagnostics if d.severity == "error"])
    return ruleset
