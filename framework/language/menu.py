"""Card libraries and menus: a ruleset whose cards are chosen by a few lines of YAML.

A card library (Sushi Go Party!) says what a menu is with ``courses``::

    courses:
      always: [nigiri]                     # dishes on every menu
      choose:
        - {name: roll, count: 1, dishes: [maki, temaki]}
        - ...

and a menu extends it and names its dishes: ``menu: [maki, tempura, ...]``. A dish is
a card id or a family: a tag its cards share (``maki`` for maki_1..maki_3). Before the
walk (:mod:`ruledraft.language.build`) compiles the document, :func:`apply_menu`
checks the menu against the courses (each course's number of dishes, unknown dishes,
a dish twice, the dishes' player counts) and leaves out of the deck every card of a
dish that is not on the menu; the walk then drops each scoring rule that names such
a card (it does not score). A menu's player range is the intersection of its
cards' ranges, within the library's; a bound the menu gives itself must suit every
dish. A library without a menu is checked (its courses, cards and rules, every card
with the library's player counts) but not played (:func:`library_note`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from ruledraft.errors import Diagnostic
from ruledraft.language.catalogue import MAX_PLAYERS, players_range_words
from ruledraft.language.suggest import did_you_mean

Path = tuple[Any, ...]


@attrs.frozen
class Course:
    """One course of a compiled menu: its name and the dishes chosen for it."""

    name: str
    dishes: tuple[str, ...]
    #: true for the dishes every menu has (``courses.always``)
    always: bool = False


@attrs.frozen
class OffMenu:
    """The names a menu left out: cards, and the tags, groups and attributes only they had."""

    cards: frozenset[str] = frozenset()
    tags: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    attributes: frozenset[str] = frozenset()

    def has(self, what: str, name: str) -> bool:
        """Whether ``name`` (a ``card``, ``tag``, ``group`` or ``attribute``) is only on cards off the menu."""
        return name in {"card": self.cards, "tag": self.tags, "group": self.groups, "attribute": self.attributes}[what]


class MenuDocument:
    """A merged document with the cards of dishes off the menu left out (and, unless the
    menu gives its own, the player range narrowed); every path still locates in the
    file it came from."""

    def __init__(self, doc: Any, data: dict[str, Any], kept: list[int], off_menu: OffMenu) -> None:
        self._doc = doc
        self.data = data
        self._kept = kept
        self.off_menu = off_menu
        self.file = doc.file
        self.lines = doc.lines
        self.child = getattr(doc, "child", None)
        self.removed = getattr(doc, "removed", {})
        self.warnings = getattr(doc, "warnings", [])

    def _map(self, path: Path) -> Path:
        path = tuple(path)
        if len(path) >= 2 and path[0] == "cards" and isinstance(path[1], int) and path[1] < len(self._kept):
            return ("cards", self._kept[path[1]], *path[2:])
        return path

    def origin(self, path: Path) -> Any:
        return self._doc.origin(self._map(path)) if hasattr(self._doc, "origin") else (self._doc, self._map(path))

    def locate(self, path: Path, *, key: bool = False) -> tuple[int, int]:
        line, column = self._doc.locate(self._map(path), key=key)
        return line, column

    def scalar_locator(self, path: Path) -> Any:
        return self._doc.scalar_locator(self._map(path))

    def diagnostic(self, path: Path, message: str, *, key: bool = False) -> Diagnostic:
        d: Diagnostic = self._doc.diagnostic(self._map(path), message, key=key)
        return d

    def file_of(self, path: Path) -> str:
        if hasattr(self._doc, "file_of"):
            return str(self._doc.file_of(self._map(path)))
        return str(self._doc.file)

    def lines_of(self, path: Path) -> Any:
        if hasattr(self._doc, "lines_of"):
            return self._doc.lines_of(self._map(path))
        return self._doc.lines


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def dish_words(name: str) -> str:
    """``soy_sauce`` -> ``Soy Sauce``."""
    return name.replace("_", " ").title()


def library_menus(library_id: str) -> list[str]:
    """The bundled menus of a bundled card library (the bundled files that extend it)."""
    from ruledraft.language.bundled import bundled_ids, bundled_path

    out = []
    for rid in bundled_ids():
        path = bundled_path(rid)
        try:
            text = path.read_text(encoding="utf-8") if path is not None else ""
        except OSError:
            continue
        if re.search(rf"^extends:\s*['\"]?{re.escape(library_id)}['\"]?\s*(#.*)?$", text, re.M):
            out.append(rid)
    return out


def library_note(doc: Any) -> Diagnostic | None:
    """For a card library without a menu: why it is not played on its own (at ``courses``;
    for a file that extends one without choosing a menu, at its ``extends``), else None."""
    data: Mapping[str, Any] = doc.data
    if data.get("courses") is None or data.get("menu") is not None:
        return None
    ident = data.get("id")
    child = getattr(doc, "child", None)
    own = getattr(child, "data", None)
    if isinstance(own, Mapping) and "courses" not in own and isinstance(own.get("extends"), str):
        # a file that extends a library (its courses a parent's) and gives no menu: said at its extends
        library = own["extends"]
        menus = library_menus(library)
        bundled = f" (or play a bundled menu: {', '.join(menus)})" if menus else ""
        told: Diagnostic = doc.diagnostic(
            ("extends",),
            f"'{ident}' extends the card library '{library}' but chooses no menu: add 'menu: [...]' "
            f"listing its dishes{bundled}",
        )
        return told
    menus = library_menus(ident) if isinstance(ident, str) else []
    bundled = f"; bundled menus: {', '.join(menus)}" if menus else ""
    note: Diagnostic = doc.diagnostic(
        ("courses",),
        f"'{ident}' is a card library, not a game: play one of its menus{bundled}; or write your own "
        f"menu, a file with 'extends: {ident}' and 'menu: [...]' listing its dishes",
        key=True,
    )
    return note


def apply_menu(doc: Any) -> tuple[Any, list[Diagnostic], tuple[Course, ...]]:
    """``doc`` with its menu applied, the menu's problems, and its courses.

    A document without ``menu`` is returned as it is (a library's courses checked). With
    problems the document returned is ``doc`` itself (the caller stops). The steps:
    the library's courses, then the menu's dishes per course, then the player counts
    the dishes allow; each stops at its problems.
    """
    data: Mapping[str, Any] = doc.data
    courses = data.get("courses")
    menu = data.get("menu")
    if courses is None and menu is None:
        return doc, [], ()
    if courses is None:
        return doc, [_menu_without_courses(doc)], ()
    dishes = _Dishes([c for c in data.get("cards") or []])
    always = list(courses.get("always") or [])
    choose = list(courses.get("choose") or [])
    course_of, problems = _check_courses(doc, dishes, always, choose)
    if problems or menu is None:
        return doc, problems, ()  # a library on its own: see library_note
    chosen, seen, problems = _check_menu(doc, menu, course_of, choose)
    if problems:
        return doc, problems, ()
    on_menu = set(always) | set(seen)
    players, problems = _menu_players(doc, data, dishes, on_menu, seen)
    if problems:
        return doc, problems, ()
    kept = dishes.kept(on_menu, course_of)
    new_data = dict(data)
    new_data["cards"] = [dishes.cards[i] for i in kept]
    new_data["players"] = players
    menu_courses: tuple[Course, ...] = (Course("always", tuple(always), True),) if always else ()
    menu_courses += tuple(Course(course["name"], tuple(d for _, d in chosen[k])) for k, course in enumerate(choose))
    return MenuDocument(doc, new_data, kept, _off_menu(dishes.cards, kept)), [], menu_courses


class _Dishes:
    """A library's cards found by dish: a card id, or a family (a tag its cards share)."""

    def __init__(self, cards: list[Any]) -> None:
        self.cards = cards

    def members(self, dish: str) -> list[int]:
        """The indices of the dish's cards."""
        return [
            i
            for i, c in enumerate(self.cards)
            if isinstance(c, dict) and (c.get("id") == dish or dish in (c.get("tags") or []))
        ]

    def names(self) -> list[str]:
        """Every card id, then every tag: what a dish may name."""
        cards = self.cards
        ids = [c.get("id") for c in cards if isinstance(c, dict) and isinstance(c.get("id"), str)]
        tags = sorted({t for c in cards if isinstance(c, dict) for t in c.get("tags") or []})
        return ids + tags

    def span(self, dish: str) -> tuple[int, int]:
        """The player counts every card of the dish allows (the cards dealt, those with a count)."""
        cards = self.cards
        fewest, most = 1, MAX_PLAYERS
        for i in self.members(dish):
            p = cards[i].get("players")
            if isinstance(p, dict) and cards[i].get("count"):
                fewest, most = max(fewest, p.get("min", 1)), min(most, p.get("max", MAX_PLAYERS))
        return fewest, most

    def kept(self, on_menu: set[str], course_of: Mapping[str, int]) -> list[int]:
        """The cards the menu deals: those of its dishes, and those of no course."""
        served = {i for dish in on_menu for i in self.members(dish)}
        in_courses = {i for dish in course_of for i in self.members(dish)}
        return [i for i in range(len(self.cards)) if i in served or i not in in_courses]


def _menu_without_courses(doc: Any) -> Diagnostic:
    problem: Diagnostic = doc.diagnostic(
        ("menu",),
        "'menu' chooses dishes from the courses of a card library, and this ruleset has no "
        "'courses' (extend a card library, such as sushi-go-party)",
        key=True,
    )
    return problem


def _check_courses(
    doc: Any, dishes: _Dishes, always: list[Any], choose: list[Any]
) -> tuple[dict[str, int], list[Diagnostic]]:
    """The library's courses: every dish names cards, and is in one course only.
    Each dish's course (its index in ``choose``; -1: ``always``), and the problems."""
    problems: list[Diagnostic] = []
    course_of: dict[str, int] = {}
    places: list[tuple[Path, str, int]] = [(("courses", "always", j), d, -1) for j, d in enumerate(always)]
    for k, course in enumerate(choose):
        places += [(("courses", "choose", k, "dishes", j), d, k) for j, d in enumerate(course["dishes"])]
    for path, dish, k in places:
        if not dishes.members(dish):
            problems.append(
                doc.diagnostic(
                    path, f"no card or family (tag) '{dish}' for this dish{did_you_mean(dish, dishes.names())}"
                )
            )
        elif dish in course_of:
            problems.append(doc.diagnostic(path, f"the dish '{dish}' is in two courses"))
        else:
            course_of[dish] = k
    return course_of, problems


def _check_menu(
    doc: Any, menu: Any, course_of: Mapping[str, int], choose: list[Any]
) -> tuple[dict[int, list[tuple[int, str]]], dict[str, int], list[Diagnostic]]:
    """The menu: known dishes, each once, so many per course. The dishes chosen per
    course (with their place on the menu), each dish's place, and the problems."""
    problems: list[Diagnostic] = []
    chosen: dict[int, list[tuple[int, str]]] = {k: [] for k in range(len(choose))}
    seen: dict[str, int] = {}
    dishes = list(course_of)
    for i, dish in enumerate(menu):
        if dish in seen:
            first = doc.locate(("menu", seen[dish]))[0]
            problems.append(
                doc.diagnostic(("menu", i), f"the dish '{dish}' is on the menu twice (first at line {first})")
            )
            continue
        seen[dish] = i
        if dish not in course_of:
            problems.append(
                doc.diagnostic(
                    ("menu", i), f"'{dish}' is not a dish of the library's courses{did_you_mean(dish, dishes)}"
                )
            )
            continue
        k = course_of[dish]
        if k >= 0:
            chosen[k].append((i, dish))
    for k, course in enumerate(choose):
        mine = chosen[k]
        want = course["count"]
        if len(mine) == want:
            continue
        listed = ", ".join(d for _, d in mine) or "none"
        where: Path = ("menu", mine[want][0]) if len(mine) > want else ("menu",)
        problems.append(
            doc.diagnostic(
                where,
                f"a menu has {_n(want, course['name'])}, this one has {len(mine)} ({listed}); "
                f"choose from: {', '.join(course['dishes'])}",
                key=where == ("menu",),
            )
        )
    return chosen, seen, problems


def _menu_players(
    doc: Any, data: Mapping[str, Any], dishes: _Dishes, on_menu: set[str], seen: Mapping[str, int]
) -> tuple[dict[str, Any], list[Diagnostic]]:
    """The menu's ``players``: the intersection of the dishes' ranges, within the
    library's; a bound the menu gives itself must suit every dish. The problems too."""
    problems: list[Diagnostic] = []
    players = dict(data.get("players") or {})
    child = getattr(doc, "child", None)
    own = {k for k in ("min", "max") if k in players and (child is None or doc.file_of(("players", k)) == child.file)}
    ordered = [(seen.get(d), d) for d in sorted(on_menu, key=lambda d: seen.get(d, -1))]
    lo, hi = players.get("min", 1), players.get("max", MAX_PLAYERS)
    for _, dish in ordered:
        fewest, most = dishes.span(dish)
        lo = lo if "min" in own else max(lo, fewest)
        hi = hi if "max" in own else min(hi, most)
    if own:
        for at, dish in ordered:
            fewest, most = dishes.span(dish)
            if fewest > lo or most < hi:
                where = ("menu", at) if at is not None else ("players",)
                problems.append(
                    doc.diagnostic(
                        where,
                        f"'{dish}' is only for {players_range_words((fewest, most))}, but this menu is for "
                        f"{players_range_words((lo, hi))} (its 'players')",
                    )
                )
    if lo > hi and not problems:
        problems.append(
            doc.diagnostic(
                ("menu",),
                "no player count suits every dish of this menu: "
                + "; ".join(f"{d} is for {players_range_words(dishes.span(d))}" for _, d in ordered),
                key=True,
            )
        )
    players.update({"min": lo, "max": hi})
    return players, problems


def _off_menu(cards: list[Any], kept: list[int]) -> OffMenu:
    """The names only the cards left out have."""
    off = [cards[i] for i in range(len(cards)) if i not in set(kept)]
    on = [cards[i] for i in kept]

    def only_off(get: Any) -> frozenset[str]:
        return frozenset(set().union(*[set(get(c)) for c in off]) - set().union(*[set(get(c)) for c in on]))

    return OffMenu(
        cards=frozenset(str(c.get("id")) for c in off),
        tags=only_off(lambda c: c.get("tags") or []),
        groups=only_off(lambda c: [c.get("group") or c.get("id")]),
        attributes=only_off(lambda c: list(c.get("attributes") or {})),
    )
