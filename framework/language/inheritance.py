"""``extends:``: a ruleset written as changes to another one.

A child names its parent (a bundled id such as ``sushi-go``, or a path relative to
the child's file, inside the child's directory unless ``--allow-path`` widens it:
see :func:`ruledraft.language.bundled.resolve_source`) and says only what differs. Merge rules:

* ``id`` and ``name``: the child's (both are required). ``version`` and
  ``description``: the child's when it gives them, otherwise the parent's.
* ``players``, ``deal``, ``rounds``, ``turn``, ``winner``: merged key by key, nested
  mappings too; a list (such as ``rounds.pass``) is replaced whole.
* ``cards``: matched by ``id``. A card the parent has is updated field by field
  (``{id: pudding, count: 12}`` changes only the count; its ``attributes`` and
  ``players`` key by key, so ``{attributes: {spicy: 1}}`` keeps the others; a list
  such as ``tags``, and an ``effect``, are replaced whole); a new id is added at the end.
* ``scoring`` and ``actions``: matched by ``id``. A rule with a parent's id replaces
  that rule whole; a new id is added at the end.
* ``remove: {cards: [...], scoring: [...], actions: [...]}``: drops entries of the
  parent by id (before the child's entries are merged in).

Every value keeps the file and position it came from, so errors point into the
child or the parent, wherever the offending line is.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import attrs

from ruledraft.errors import Diagnostic, InputError, RulesetError
from ruledraft.language.bundled import NotFound, OutOfReach, bundled_ids, resolve_source, rulesets_dir
from ruledraft.language.file_access import UnreadableInput, display_name, input_kind
from ruledraft.language.suggest import closest, did_you_mean
from ruledraft.language.yaml_loader import Document, load_file

#: a chain of parents longer than this is refused
MAX_DEPTH = 16

MERGED_MAPPINGS = ("players", "deal", "rounds", "turn", "winner")
BY_ID_MERGED = ("cards",)
#: a card's fields that are merged key by key when a child updates the card (others are replaced)
MERGED_CARD_FIELDS = ("attributes", "players")
BY_ID_REPLACED = ("scoring", "actions")

DocPath = tuple[Any, ...]
Origin = tuple[Document, DocPath]


class MergedDocument:
    """A document assembled from a child and its parents; each part remembers its origin."""

    def __init__(self, data: Any, origins: dict[DocPath, Origin], child: Document):
        self.data = data
        self._origins = origins
        self.file = child.file
        self.lines = child.lines
        self.child = child
        #: (section, id) -> (file, line, column) of the ``remove:`` entry that dropped it
        self.removed: dict[tuple[str, str], tuple[str, int, int]] = {}
        #: warnings found while resolving ``extends`` (a bundled id shadowing a local file)
        self.warnings: list[Diagnostic] = []

    def origin(self, path: DocPath) -> Origin:
        path = tuple(path)
        for cut in range(len(path), -1, -1):
            hit = self._origins.get(path[:cut])
            if hit is not None:
                doc, base = hit
                return doc, base + path[cut:]
        return self.child, path

    def locate(self, path: DocPath, *, key: bool = False) -> tuple[int, int]:
        doc, p = self.origin(path)
        line, column = doc.locate(p, key=key)
        return line, column

    def scalar_locator(self, path: DocPath) -> Callable[[int], tuple[int, int]]:
        doc, p = self.origin(path)
        return doc.scalar_locator(p)

    def diagnostic(self, path: DocPath, message: str, *, key: bool = False) -> Diagnostic:
        doc, p = self.origin(path)
        return doc.diagnostic(p, message, key=key)

    def file_of(self, path: DocPath) -> str:
        file: str = self.origin(path)[0].file
        return file

    def lines_of(self, path: DocPath) -> Any:
        return self.origin(path)[0].lines


def _parent_suggestion(name: str, base: str | os.PathLike[str] | None) -> str:
    """`` (did you mean 'x'?)`` for a parent not found: the bundled id or the rule file
    beside whose name is closest, the names compared without their ``.yaml`` or ``.yml``
    (which would make any two files' names look alike)."""
    by_stem: dict[str, str] = {}
    for option in [*bundled_ids(), *_rule_files_in(base)]:
        by_stem.setdefault(_stem(option), option)
    close = closest(_stem(name), by_stem)
    return "" if close is None else f" (did you mean '{by_stem[close]}'?)"


def _stem(name: str) -> str:
    for ending in (".yaml", ".yml"):
        if name.endswith(ending):
            return name[: -len(ending)]
    return name


def _rule_files_in(directory: str | os.PathLike[str] | None) -> list[str]:
    """The rule files beside a file that extends (for "did you mean": ``game.yml`` for
    ``game.yaml``), at most a few hundred looked at."""
    try:
        with os.scandir(directory or ".") as entries:
            names = [e.name for _, e in zip(range(500), entries)]
    except OSError:
        return []
    return [n for n in names if n.endswith((".yaml", ".yml"))]


def parent_elsewhere(path: Any, folder: Any, allow: Sequence[Any] = ()) -> str | None:
    """The ``extends:`` value of the rule file ``path`` when a copy of it written in
    ``folder`` would not extend the same file (a parent is found from its file's own
    folder); None when it would, or when the file extends nothing."""
    doc = load_file(path)
    name = doc.data.get("extends") if isinstance(doc.data, dict) else None
    if not isinstance(name, str):
        return None
    try:
        here = resolve_source(name, base=_base_dir(path), allow=allow, within_what="this file")
        there = resolve_source(name, base=Path(folder), allow=allow, within_what="this file")
    except (NotFound, OutOfReach, UnreadableInput):
        return name
    return None if os.path.realpath(here) == os.path.realpath(there) else name


def _base_dir(path: Any) -> Path:
    """The directory a file's ``extends:`` is resolved in: the file's own; the current one for standard input or a pipe."""
    text = os.fspath(path)
    if text in ("-", "<stdin>"):
        return Path(".")
    try:
        if input_kind(text) == "pipe":
            return Path(".")
    except InputError:
        pass
    return Path(text).parent


def is_rule_file(doc: Document) -> bool:
    """The least a rule file has: a top-level mapping with ``format`` and ``id``."""
    return isinstance(doc.data, dict) and "format" in doc.data and "id" in doc.data


def _has_a_rule_file_key(doc: Document) -> bool:
    """A top-level mapping with at least one key a rule file may have (so the file's own
    mistakes are worth listing, line by line)."""
    if not isinstance(doc.data, dict):
        return not doc.data  # an empty file is reported as the rule file it was meant to be
    return any(key in _top_level_keys() for key in doc.data)


@functools.lru_cache(maxsize=1)
def _top_level_keys() -> frozenset[str]:
    import json

    from ruledraft.language.bundled import schema_path

    return frozenset(json.loads(schema_path().read_text(encoding="utf-8"))["properties"])


def _looks_like_a_rule_file(path: Path) -> bool:
    """Whether a file that does not load has, at the start of lines, the two keys every
    rule file has (``format:`` and ``id:``, as :func:`is_rule_file` asks of a loaded one)."""
    import re

    from ruledraft.language.file_access import UnreadableInput, read_input

    try:
        text = read_input(path, 1 << 20).decode("utf-8", "replace")
    except UnreadableInput:
        return False
    return all(re.search(rf"^{key}[ \t]*:", text, re.M) for key in ("format", "id"))


def _load_parent(doc: Document, name: str, parent_file: Path) -> Document:
    """The parent's document; a file that is not a rule file is one error at ``extends``, nothing of it shown."""
    try:
        input_kind(parent_file)
    except UnreadableInput as e:
        raise RulesetError([doc.diagnostic(("extends",), f"cannot read '{display_name(name)}': {e.reason}")]) from None
    try:
        parent = load_file(parent_file)
    except RulesetError:
        # a file that looks like a rule file: its own problems, at their places in it (the file
        # that extends it is named with them); of any other nothing is shown (it may not be a
        # rule file at all, and a message could quote it)
        if _looks_like_a_rule_file(parent_file):
            raise
        parent = None
    if parent is None or not is_rule_file(parent):
        raise RulesetError([doc.diagnostic(("extends",), f"'{display_name(name)}' is not a rule file")])
    return parent


def _shadow_warning(doc: Document, name: str, base: Path, bundled: Path) -> list[Diagnostic]:
    """A bundled id wins over a file of the same name beside the child: say so, never
    silently -- unless that file is a copy of the bundled one (a checkout's rulesets/)."""
    for local in (base / f"{name}.yaml", base / name):
        try:
            if local.is_file():
                if local.stat().st_size == bundled.stat().st_size and local.read_bytes() == bundled.read_bytes():
                    return []
                d = doc.diagnostic(
                    ("extends",),
                    f"'{name}' is the bundled ruleset; the file '{local.name}' beside this one is not used "
                    f"(write 'extends: ./{local.name}' to extend the file)",
                )
                return [attrs.evolve(d, severity="warning")]
        except OSError:
            continue
    return []


def resolve_document(
    path: Any,
    check: Callable[[Document], list[Diagnostic]],
    _chain: tuple[str, ...] = (),
    *,
    allow: Sequence[Any] = (),
    _doc: Document | None = None,
    prepare: Callable[[Document], Document] | None = None,
) -> Any:
    """Load ``path``, check it with ``check`` (the schema), and merge in its parents.

    ``prepare`` (the tune marks' pass, :mod:`ruledraft.language.tunable`) turns each
    loaded file, this one first and then its parents, into the document checked.

    Returns the plain :class:`Document` when there is no ``extends``. A parent is
    found by :func:`ruledraft.language.bundled.resolve_source` inside the child's directory
    or one of the ``allow`` directories; a parent that is not a rule file is one
    error at the ``extends`` line and none of its text is shown.
    """
    doc = _doc if _doc is not None else load_file(path)
    if not _chain and not _has_a_rule_file_key(doc):
        # nothing of a file that is not a rule file is shown (it may be anyone's secrets)
        raise RulesetError(
            [
                Diagnostic(
                    doc.file,
                    1,
                    1,
                    "not a rule file: its top level has none of the keys a rule "
                    "file has (format, id, name, extends, cards, scoring, ...)",
                )
            ]
        )
    if prepare is not None:
        doc = prepare(doc)
    problems = check(doc)
    if problems:
        raise RulesetError(problems)
    name = doc.data.get("extends")
    if name is None:
        return doc
    here = os.path.realpath(path) if os.fspath(path) != "-" else "<stdin>"
    chain = _chain + (here,)
    base = _base_dir(path)
    try:
        parent_file = resolve_source(name, base=base, allow=allow, within_what="this file")
    except NotFound:
        raise RulesetError(
            [
                doc.diagnostic(
                    ("extends",),
                    f"cannot find the ruleset '{display_name(name)}' to extend{_parent_suggestion(name, base)}",
                )
            ]
        ) from None
    except OutOfReach as e:
        raise RulesetError([doc.diagnostic(("extends",), str(e))]) from None
    except UnreadableInput as e:
        raise RulesetError([doc.diagnostic(("extends",), f"cannot read '{display_name(name)}': {e.reason}")]) from None
    warnings = (
        _shadow_warning(doc, name, base, parent_file)
        if parent_file.parent == rulesets_dir() and base != rulesets_dir()
        else []
    )
    if os.path.realpath(parent_file) in chain:
        loop = " -> ".join(os.path.basename(p) for p in chain + (os.path.realpath(parent_file),))
        raise RulesetError([doc.diagnostic(("extends",), f"rulesets extend each other in a cycle: {loop}")])
    if len(chain) > MAX_DEPTH:
        first = os.path.basename(chain[0])  # the file asked for, which the message is otherwise not about
        raise RulesetError(
            [doc.diagnostic(("extends",), f"more than {MAX_DEPTH} levels of 'extends' (counting from {first})")]
        )
    try:
        parent_doc = _load_parent(doc, name, parent_file)
        parent = resolve_document(parent_file, check, chain, allow=allow, _doc=parent_doc, prepare=prepare)
    except RulesetError as e:  # the parent's own problems: said at this file's extends: too, so that a
        # check of this file names it (validate DIR would show the same lines for each file extending it)
        theirs = [d for d in e.diagnostics if d.file != doc.file and d.severity == "error"]
        if all((d.source_line or "").lstrip().startswith("extends:") for d in theirs):
            raise  # none, or only a chain of extends that cannot be followed (a cycle, a file not found): said there
        which = "a problem, shown at its place" if len(theirs) == 1 else "problems, each shown at its place"
        said = doc.diagnostic(("extends",), f"'{display_name(name)}', which this file extends, has {which}")
        raise RulesetError([said, *e.diagnostics]) from None
    merged = merge(parent, doc)
    merged.warnings = getattr(parent, "warnings", []) + warnings
    return merged


def _origins_of(doc: Any) -> Callable[[DocPath], Origin]:
    if isinstance(doc, MergedDocument):
        return doc.origin
    return lambda path: (doc, tuple(path))


def merge(parent: Any, child: Document) -> MergedDocument:
    """The child's changes applied to the parent (see the module docstring): the
    parent's data less what the child removes, then the child's keys, lists merged or
    replaced item by item by id."""
    p_origin = _origins_of(parent)
    origins: dict[DocPath, Origin] = {(): (child, ())}
    data: dict[str, Any] = {}
    problems: list[Diagnostic] = []
    cdata = child.data
    for key, value in parent.data.items():
        if key in ("remove",):
            continue
        data[key] = value
        origins[(key,)] = p_origin((key,))
    removed = _remove(parent, child, data, origins, problems)
    for key, value in cdata.items():
        if key in ("extends", "remove"):
            continue
        if key in MERGED_MAPPINGS and isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = _merge_mapping(data[key], value, (key,), child, origins)
        elif key in BY_ID_MERGED + BY_ID_REPLACED and isinstance(value, list):
            data[key] = _merge_by_id(key, list(data.get(key) or []), value, child, origins, problems)
            origins[(key,)] = origins.get((key,), (child, (key,)))
        else:
            data[key] = value
            origins[(key,)] = (child, (key,))
    if problems:
        raise RulesetError(problems)
    data["extends"] = cdata["extends"]
    origins[("extends",)] = (child, ("extends",))
    result = MergedDocument(data, origins, child)
    result.removed = {**getattr(parent, "removed", {}), **removed}
    return result


def _what(key: str) -> str:
    return "scoring rule" if key == "scoring" else key[:-1]


def _remove(
    parent: Any,
    child: Document,
    data: dict[str, Any],
    origins: dict[DocPath, Origin],
    problems: list[Diagnostic],
) -> dict[tuple[str, str], tuple[str, int, int]]:
    """The child's ``remove:`` applied to the parent's lists in ``data``; what was
    removed, by (list, id), with where the child said so. Data the schema refused is
    merged as far as it can be and never crashes the merge: a 'remove' that is no
    mapping, a list in it that is no list, an id that is no string, are left out (the
    schema's problem is reported)."""
    p_origin = _origins_of(parent)
    removals = child.data.get("remove")
    if not isinstance(removals, dict):
        removals = {}
    removed: dict[tuple[str, str], tuple[str, int, int]] = {}
    for key in BY_ID_MERGED + BY_ID_REPLACED:
        listed = removals.get(key)
        names = (
            [(i, name) for i, name in enumerate(listed) if isinstance(name, str)] if isinstance(listed, list) else []
        )
        parent_items = parent.data.get(key) or []
        known = {it.get("id") for it in parent_items if isinstance(it, dict)}
        for i, name in names:
            if name not in known:
                problems.append(
                    child.diagnostic(
                        ("remove", key, i),
                        f"the parent has no {_what(key)} '{name}' to remove"
                        f"{did_you_mean(name, [k for k in known if k])}",
                    )
                )
            else:
                removed[(key, name)] = (child.file, *child.locate(("remove", key, i)))
        if key not in parent.data:
            continue
        drop = {name for _, name in names}
        items: list[Any] = []
        for i, item in enumerate(parent_items):
            if isinstance(item, dict) and item.get("id") in drop:
                continue
            origins[(key, len(items))] = p_origin((key, i))
            items.append(item)
        data[key] = items
    return removed


def _merge_by_id(
    key: str,
    items: list[Any],
    value: list[Any],
    child: Document,
    origins: dict[DocPath, Origin],
    problems: list[Diagnostic],
) -> list[Any]:
    """The child's list ``value`` for ``key`` laid over the parent's ``items``: an item
    whose id the parent has is merged field by field (``BY_ID_MERGED``) or replaced
    whole; any other is appended. An id given twice by the child is a problem."""
    index = {it.get("id"): n for n, it in enumerate(items) if isinstance(it, dict)}
    seen: dict[Any, int] = {}
    for i, item in enumerate(value):
        ident = item.get("id") if isinstance(item, dict) else None
        if not isinstance(ident, str):
            ident = None  # no usable id: an entry of its own, matched with nothing
        if ident is not None and ident in seen:
            first = child.locate((key, seen[ident], "id"))[0]
            problems.append(
                child.diagnostic((key, i, "id"), f"duplicate {_what(key)} id '{ident}' (first at line {first})")
            )
            continue
        if ident is not None:
            seen[ident] = i
        if ident is not None and ident in index and key in BY_ID_MERGED:
            n = index[ident]
            merged = dict(items[n])
            for field, v in item.items():
                if field in MERGED_CARD_FIELDS and isinstance(v, dict) and isinstance(merged.get(field), dict):
                    merged[field] = {**merged[field], **v}  # {attributes: {spicy: 1}} keeps value: 3
                    for sub in v:
                        origins[(key, n, field, sub)] = (child, (key, i, field, sub))
                    continue
                merged[field] = v
                origins[(key, n, field)] = (child, (key, i, field))
            items[n] = merged
        elif ident is not None and ident in index:
            n = index[ident]
            items[n] = item
            origins[(key, n)] = (child, (key, i))
            for sub in [k for k in origins if len(k) > 2 and k[:2] == (key, n)]:
                del origins[sub]
        else:
            if ident is not None:
                index[ident] = len(items)
            origins[(key, len(items))] = (child, (key, i))
            items.append(item)
    return items


def _merge_mapping(
    base: dict[str, Any], over: dict[str, Any], path: DocPath, child: Document, origins: dict[DocPath, Origin]
) -> dict[str, Any]:
    out = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge_mapping(out[key], value, path + (key,), child, origins)
        else:
            out[key] = value
            origins[path + (key,)] = (child, path + (key,))
    return out
