"""Check a rule file against ``schemas/ruleset.schema.json`` (JSON Schema 2020-12).

Every problem is reported (not just the first), each located at the exact key or
value in the file, in plain words::

    rules.yaml:41:5: error: unknown key 'sizee' in a 'sets' scoring rule (did you mean 'size'?)
    rules.yaml:17:45: error: 'count' must be a whole number, not 'ten'
    rules.yaml:44:11: error: 'when' must be one of round_end, game_end, not 'roundend' (did you mean 'round_end'?)

Raw jsonschema errors are rewritten here: unknown keys become one diagnostic per
key (at the key, with a suggestion drawn from the keys the schema allows at that
spot); ``oneOf``/``anyOf`` failures are narrowed to the branch the author
evidently meant; the same spot is never reported twice. jsonschema's own messages and
``best_match`` are used where they serve as well; tests/language/test_front_end_reasons.py pins
each place where the wording here does better.
"""

from __future__ import annotations

import difflib
import functools
import re
import threading
from collections.abc import Iterable, Mapping
from typing import Any, cast

import jsonschema
import referencing
import referencing.exceptions
from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from jsonschema.protocols import Validator
from referencing.jsonschema import DRAFT202012

from ruledraft.errors import Diagnostic, printable
from ruledraft.language.schema_passed import kinds_generation
from ruledraft.language.suggest import MAX_SUGGESTION_INPUT, clipped
from ruledraft.language.yaml_loader import Document

__all__ = ["check_schema", "load_schema", "SCHEMA_NAME"]

SCHEMA_NAME = "ruleset.schema.json"

#: where a value sits: keys and list indices from the top level
_Path = tuple[Any, ...]


def load_schema() -> dict[str, Any]:
    """The ruleset JSON Schema, with every registered scoring kind (plug-ins too), as a fresh ``dict``.

    With the built-in kinds only it is ``schemas/ruleset.schema.json`` (generated
    from the same units; a test keeps the file current).
    """
    from ruledraft.language.schema import ruleset_schema

    return ruleset_schema()


@functools.cache
def _schema_for(generation: tuple[int, int]) -> dict[str, Any]:
    return load_schema()


def _cached_schema() -> dict[str, Any]:
    return _schema_for(kinds_generation())


def _is_whole_number(checker: object, instance: object) -> bool:
    # JSON Schema calls 3.0 an integer; a rule file must write 3.
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator: type[Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_whole_number),
)


@functools.cache
def _validator_for(generation: tuple[int, int]) -> Validator:
    return _Validator(_schema_for(generation))


def _validator() -> Validator:
    return _validator_for(kinds_generation())


def ruleset_schema_now() -> dict[str, Any]:
    """The ruleset JSON Schema with the kinds registered now, made once per set of
    kinds: shared, so read it and never change it (:func:`load_schema` gives a copy)."""
    return _cached_schema()


def is_valid_against(instance: Any, schema: dict[str, Any]) -> bool:
    """Whether ``instance`` is valid against ``schema`` (a part of the ruleset schema,
    with its ``$defs``), whole numbers checked as every rule file's are."""
    return bool(_Validator(schema).is_valid(instance))


def valid_but_for_unknown_keys(instance: Any, schema: dict[str, Any]) -> bool:
    """Whether ``instance`` (a mapping) is valid against ``schema`` (a part of the ruleset
    schema, with its ``$defs``) once the keys the schema does not know at its top are
    left out: a scoring rule whose one mistake is a key of another kind can still be
    checked for what its known keys say."""
    if not isinstance(instance, dict):
        return False
    reporter = _Reporter(cast(Document, None), schema, _Validator(schema))  # only its schema helpers
    known = reporter.allowed_keys(schema, instance)
    kept = {k: v for k, v in instance.items() if k in known}
    return len(kept) < len(instance) and is_valid_against(kept, schema)


# jsonschema types these as possibly unset; an error handed to a handler always has them.
def _expected(error: ValidationError) -> Any:
    """The value of the schema keyword that failed (``3`` for ``minimum: 3``)."""
    return error.validator_value


def _instance(error: ValidationError) -> Any:
    return error.instance


def _schema_of(error: ValidationError) -> dict[str, Any]:
    schema = error.schema
    return dict(schema) if isinstance(schema, Mapping) else {}


def check_schema(doc: Document) -> list[Diagnostic]:
    """Every schema problem of ``doc``, as located :class:`Diagnostic` s sorted by position."""
    key = None
    if len(doc.text) <= _CHECKED_SIZE:  # the same kinds, file, text and data: the same problems
        key = (kinds_generation(), doc.file, doc.text, repr(doc.data))
        with _CHECKED_LOCK:
            found = _CHECKED.pop(key, None)
            if found is not None:
                _CHECKED[key] = found
                return list(found)
    reporter = _Reporter(doc, _cached_schema(), _validator())
    for error in reporter.validator.iter_errors(doc.data):
        reporter.add(error)
    problems = reporter.result()
    if key is not None:
        with _CHECKED_LOCK:
            _CHECKED[key] = tuple(problems)
            while len(_CHECKED) > _CHECKED_KEPT:  # the least recently checked go
                del _CHECKED[next(iter(_CHECKED))]
    return problems


#: the last few documents checked (a parent checked for each file that extends it): the
#: problems follow from the kinds registered, the file's name, its text (the positions)
#: and its data (a tune mark's value changes the data only); texts of at most
#: _CHECKED_SIZE characters
_CHECKED: dict[tuple[Any, ...], tuple[Diagnostic, ...]] = {}
_CHECKED_KEPT = 4
_CHECKED_SIZE = 64 * 1024
_CHECKED_LOCK = threading.Lock()


# ---------------------------------------------------------------------------
# wording helpers

_TYPE_WORDS = {
    "integer": "a whole number",
    "number": "a number",
    "string": "text",
    "boolean": "true or false",
    "object": "a mapping",
    "array": "a list",
    "null": "empty",
}

_RANK = {
    "type": 0,
    "oneOf": 0,
    "anyOf": 0,
    "const": 1,
    "enum": 1,
    "pattern": 2,
    "minLength": 3,
    "maxLength": 3,
    "minimum": 4,
    "maximum": 4,
    "exclusiveMinimum": 4,
    "exclusiveMaximum": 4,
}


#: how a number's bound is worded, by schema keyword
_BOUNDS = {
    "minimum": "at least",
    "maximum": "at most",
    "exclusiveMinimum": "more than",
    "exclusiveMaximum": "less than",
}


def _attribute_hint(path: _Path, value: Any, mapping_allowed: bool) -> str:
    """For ``value: shine`` where a number or a mapping is asked: the form that reads each
    card's attribute, ``{attribute: shine}``."""
    if path and path[-1] == "value" and mapping_allowed and isinstance(value, str):
        if re.fullmatch(r"[a-z][a-z0-9_]*", value):
            return f" (each card's attribute as its value is written {{attribute: {value}}})"
    return ""


def _digits(value: int) -> int:
    """How many decimal digits ``value`` has (past Python's limit on turning one into text too)."""
    try:
        return len(str(abs(value)))
    except ValueError:
        return int(abs(value).bit_length() * 0.30103) + 1


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "an empty value"
    if isinstance(value, str):
        text = value if len(value) <= 40 else value[:37] + "..."
        text = printable(text)  # a line break as \n, on one line
        return f"'{text}'"
    if isinstance(value, int) and value.bit_length() > 128:  # (no wall of digits in a message)
        return f"a whole number of {_digits(value):,} digits"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return repr(value)  # pragma: no cover - documents hold plain data only


def _plain(value: Any) -> str:
    """An allowed value as the author would write it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    return str(value)


def _or_list(items: Iterable[str], last: str = "or") -> str:
    items = list(items)
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def _and_list(items: Iterable[str]) -> str:
    return _or_list(items, "and")


def _article(noun: str) -> str:
    return ("an " if noun[:1] in "aeiou" else "a ") + noun


def _name(path: _Path) -> str:
    if not path:
        return "the file"
    last = path[-1]
    if isinstance(last, int):
        if len(path) >= 2 and isinstance(path[-2], str):
            return f"item {last + 1} of '{path[-2]}'"
        return f"item {last + 1}"
    return f"'{last}'"


#: a player-count key as written in ``hand_size`` or ``players`` (``"3"``, ``"2-5"``)
_PLAYER_KEY = re.compile(r"[0-9]{1,2}(-[0-9]{1,2})?\Z")
#: words a designer may write for a key of another name: the key, and a few words on why
_SAID_AS: dict[str, tuple[str, str]] = {
    "colour": ("group", "a card's colour is its group"),
    "color": ("group", "a card's colour is its group"),
    "copies": ("count", "how many copies the deck holds"),
}

#: an unknown key without a close match lists the allowed keys when there are at most this many
_LISTED_KEYS = 4


def _closest(word: str, choices: Iterable[str]) -> str | None:
    choices = sorted({c for c in choices if isinstance(c, str)})
    if not isinstance(word, str) or not choices or len(word) > MAX_SUGGESTION_INPUT:
        return None
    lowered = {c.lower(): c for c in choices}
    match = difflib.get_close_matches(word.lower(), list(lowered), n=1, cutoff=0.6)
    if match and lowered[match[0]] != word:
        return lowered[match[0]]
    return None


def _suggest(word: str, choices: Iterable[str]) -> str:
    match = _closest(word, choices)
    return f" (did you mean '{match}'?)" if match else ""


# ---------------------------------------------------------------------------


def _section_of(key: str, schema: Any, besides: Any) -> str | None:
    """The other top-level section of ``schema`` whose keys include ``key`` (None if none)."""
    sections = schema.get("properties", {}) if isinstance(schema, dict) else {}
    for name, part in sections.items():
        if name == besides or not isinstance(part, dict):
            continue
        if "$ref" in part:
            part = schema.get("$defs", {}).get(part["$ref"].rsplit("/", 1)[-1], {})
        if key in part.get("properties", {}):
            return str(name)
    return None


class _Reporter:
    """Turns jsonschema errors into at most one plain-words diagnostic per spot."""

    def __init__(self, doc: Document, schema: dict[str, Any], validator: Validator) -> None:
        self.doc = doc
        self.schema = schema
        self.validator = validator
        resource = DRAFT202012.create_resource(schema)
        base = resource.id() or ""
        self.resolver = referencing.Registry().with_resource(base, resource).resolver(base_uri=base)
        self.best: dict[tuple[str, _Path], tuple[int, int, Diagnostic]] = {}  # spot -> (rank, seq, diagnostic)
        self.missing: dict[
            tuple[str, _Path], list[tuple[tuple[str, ...], str]]
        ] = {}  # ("missing", path) -> [(keys, wording)], keys: the keys any of which would do
        self.suggested: dict[_Path, set[str]] = {}  # path -> keys offered as "did you mean" for unknown keys there
        #: paths whose value may also be a list of the allowed words, with the other forms
        #: it may take (a mapping of required keys: ``{turns: [...]}``)
        self.list_form: dict[_Path, list[str]] = {}
        self.seq = 0

    # -- collection

    def result(self) -> list[Diagnostic]:
        out = []
        for (_, path), entries in self.missing.items():
            # A key missing because it was misspelt is already reported as the unknown key.
            offered = self.suggested.get(path, set())
            parts = [wording for keys, wording in entries if not offered.intersection(keys)]
            if not parts:
                continue
            head = "missing required key" + ("s " if len(parts) > 1 else " ")
            message = head + _and_list(parts) + " " + self.where(path, self.value_at(path))
            out.append(self.diagnostic(path, message, key=True))
        for _, _, diagnostic in self.best.values():
            out.append(diagnostic)
        return sorted(out)

    def diagnostic(self, path: _Path, message: str, *, key: bool = False) -> Diagnostic:
        """A diagnostic at ``path`` (a merged document knows which file each path came from)."""
        return self.doc.diagnostic(path, message, key=key)

    def put(self, spot: tuple[str, _Path], rank: int, diagnostic: Diagnostic) -> None:
        self.seq += 1
        entry = (rank, self.seq, diagnostic)
        if spot not in self.best or entry[:2] < self.best[spot][:2]:
            self.best[spot] = entry

    def value_error(self, path: _Path, message: str, validator: str = "", at: _Path | None = None) -> None:
        where = at if at is not None else path
        self.put(("value", path), _RANK.get(validator, 5), self.diagnostic(where, message))

    def key_error(self, path: _Path, key: str, message: str) -> None:
        self.put(("key", path + (key,)), 0, self.diagnostic(path + (key,), message, key=True))

    def add_missing(self, path: _Path, keys: list[str]) -> None:
        entries = self.missing.setdefault(("missing", path), [])
        entry = (tuple(keys), _or_list([f"'{k}'" for k in keys]))
        if entry not in entries:
            entries.append(entry)

    # -- schema helpers

    def resolve(self, schema: Any) -> Any:
        """Follow ``$ref`` s to the schema they name, with jsonschema's own resolver."""
        for _ in range(32):
            if not isinstance(schema, dict) or not isinstance(schema.get("$ref"), str):
                return schema
            try:
                schema = self.resolver.lookup(schema["$ref"]).contents
            except referencing.exceptions.Unresolvable:
                return schema
        return schema  # pragma: no cover - no ref cycles in our schema

    def is_valid(self, instance: Any, schema: Any) -> bool:
        try:
            return self.validator.evolve(schema=schema).is_valid(instance)
        except Exception:  # pragma: no cover - defensive
            return False

    def type_ok(self, schema: Any, instance: Any) -> bool:
        """Whether ``instance`` has a type ``schema`` accepts (ignoring everything else)."""
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return bool(schema)
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            return any(self.validator.is_type(instance, t) for t in types)
        if "const" in schema or "enum" in schema:
            allowed = [schema["const"]] if "const" in schema else schema["enum"]
            return any(self._same_type(instance, v) for v in allowed)
        for keyword in ("oneOf", "anyOf"):
            if keyword in schema:
                return any(self.type_ok(sub, instance) for sub in schema[keyword])
        return True

    @staticmethod
    def _same_type(a: Any, b: Any) -> bool:
        if isinstance(a, bool) or isinstance(b, bool):
            return isinstance(a, bool) and isinstance(b, bool)
        if isinstance(a, (int, float)) and isinstance(b, (int, float)):
            return True
        return type(a) is type(b)

    def type_words(self, schema: Any) -> list[str]:
        schema = self.resolve(schema)
        if not isinstance(schema, dict):
            return []
        if "const" in schema:
            return [_plain(schema["const"])]
        if "enum" in schema:
            return ["one of " + ", ".join(_plain(v) for v in schema["enum"])]
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            return [_TYPE_WORDS.get(t, str(t)) for t in types]
        words: list[str] = []
        for keyword in ("oneOf", "anyOf"):
            for sub in schema.get(keyword, ()):
                for word in self.type_words(sub):
                    if word not in words:
                        words.append(word)
        return words

    def allowed_keys(self, schema: Any, instance: Any, depth: int = 0) -> set[str]:
        """The keys ``schema`` lets ``instance`` have, following $ref, allOf and if/then/else.

        When no ``if`` of a set of conditional branches holds (say the rule's ``kind``
        is itself wrong), the keys of every branch are allowed, so that only keys
        that fit nowhere are called unknown.
        """
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > 16:
            return set()
        keys = set(schema.get("properties", {}))
        conditionals = [schema] if "if" in schema else []
        for keyword in ("allOf", "anyOf", "oneOf"):
            for sub in schema.get(keyword, ()):
                sub = self.resolve(sub)
                if isinstance(sub, dict) and "if" in sub:
                    conditionals.append(sub)
                else:
                    keys |= self.allowed_keys(sub, instance, depth + 1)
        if conditionals:
            matched = False
            every_branch: set[str] = set()
            for cond in conditionals:
                then_keys = self.allowed_keys(cond.get("then", {}), instance, depth + 1)
                else_keys = self.allowed_keys(cond.get("else", {}), instance, depth + 1)
                every_branch |= then_keys | else_keys
                if self.is_valid(instance, cond["if"]):
                    keys |= then_keys
                    matched = matched or bool(then_keys)
                else:
                    keys |= else_keys
            if not matched:
                keys |= every_branch
        return keys

    def item_schema(self, path: _Path) -> Any:
        """The schema of the value at ``path``, following properties and items only."""
        schema: Any = self.schema
        for step in path:
            schema = self.resolve(schema)
            if not isinstance(schema, dict):
                return None
            if isinstance(step, int):
                schema = schema.get("items")
            else:
                props = schema.get("properties", {})
                if step in props:
                    schema = props[step]
                elif isinstance(schema.get("additionalProperties"), dict):
                    schema = schema["additionalProperties"]
                else:
                    return None
        return self.resolve(schema)

    def value_at(self, path: _Path) -> Any:
        value: Any = self.doc.data
        for step in path:
            try:
                value = value[step]
            except (KeyError, IndexError, TypeError):
                return None
        return value

    def list_above(self, key: str, document: dict[str, Any]) -> str | None:
        """For a key at the top level that no top-level key is: the items of the list
        section just above it (``a scoring rule``, ``a card``) when they take such a key,
        as a key of the last item de-indented by mistake leaves it (None otherwise)."""
        try:
            line = self.doc.locate((key,), key=True)[0]
            before = [(self.doc.locate((k,), key=True)[0], k) for k in document if k != key]
        except (KeyError, IndexError, TypeError):
            return None
        above = max((item for item in before if item[0] < line), default=None)
        if above is None or not isinstance(document.get(above[1]), list) or not document[above[1]]:
            return None
        items = self.resolve(self.item_schema((above[1], 0)))
        if key not in self.keys_anywhere(items):
            return None
        title = items.get("title") if isinstance(items, dict) else None
        return _article(title[0].lower() + title[1:]) if title else f"an item of '{above[1]}'"

    def keys_anywhere(self, schema: Any, depth: int = 0) -> set[str]:
        """Every key a mapping ``schema`` may take, in any of its branches (``allOf``,
        ``anyOf``, ``oneOf``, ``if``/``then``/``else``)."""
        schema = self.resolve(schema)
        if not isinstance(schema, dict) or depth > 8:
            return set()
        keys = set(schema.get("properties", {}))
        for branch in ("allOf", "anyOf", "oneOf"):
            for part in schema.get(branch, []):
                keys |= self.keys_anywhere(part, depth + 1)
        for branch in ("then", "else"):
            keys |= self.keys_anywhere(schema.get(branch), depth + 1)
        return keys

    def where(self, path: _Path, instance: Any) -> str:
        """``at the top level``, ``in a card``, ``in a 'sets' scoring rule``, ``in 'players'``..."""
        if not path:
            return "at the top level"
        if isinstance(path[-1], int):
            schema = self.item_schema(path)
            title = schema.get("title") if isinstance(schema, dict) else None
            if not title:
                parent = path[-2] if len(path) >= 2 else "the list"
                return f"in an item of '{parent}'"
            noun = title[0].lower() + title[1:]
            kind_schema = self.resolve(schema.get("properties", {}).get("kind", {}))
            kinds = kind_schema.get("enum", []) if isinstance(kind_schema, dict) else []
            kind = instance.get("kind") if isinstance(instance, dict) else None
            if isinstance(kind, str) and kind in kinds:
                return f"in {_article(kind)[: -len(kind)]}'{kind}' {noun}"
            return "in " + _article(noun)
        return f"in '{path[-1]}'"

    # -- dispatch

    def add(self, error: ValidationError) -> None:
        path = tuple(error.absolute_path)
        handler = getattr(self, "on_" + str(error.validator), None)
        if "propertyNames" in error.absolute_schema_path:
            self.on_property_name(error, path)
        elif handler is not None:
            handler(error, path)
        else:
            self.value_error(path, f"{_name(path)}: {error.message}", str(error.validator))

    def unknown_keys(
        self, path: _Path, instance: dict[str, Any], unknown: Iterable[str], allowed: Iterable[str]
    ) -> None:
        allowed = list(allowed)
        where = self.where(path, instance)
        for key in unknown:
            match = _closest(key, allowed)
            hint = ""
            said = _SAID_AS.get(key.lower()) if isinstance(key, str) else None
            above = self.list_above(key, instance) if not path else None
            if above is not None:  # a key of the item above, written at the left edge
                hint = f"; '{clipped(key)}' is a key of {above}: indent it as that item's other keys"
            elif said is not None and said[0] in allowed:  # a designer's word for a key of another name
                hint = f" (did you mean '{said[0]}'? {said[1]})"
                self.suggested.setdefault(path, set()).add(said[0])
            elif match:
                hint = f" (did you mean '{match}'?)"
                self.suggested.setdefault(path, set()).add(match)
            elif len(path) == 1 and (home := _section_of(key, self.schema, path[0])):
                hint = f"; '{clipped(key)}' belongs in '{home}' ({home}: {{{key}: ...}})"
            elif _PLAYER_KEY.match(key) and {"default", "players"} <= set(allowed):
                hint = (
                    f"; awards that depend on the number of players go under 'players': "
                    f"write {{default: [...], players: {{'{clipped(key)}': [...]}}}}"
                )
            elif 0 < len(allowed) <= _LISTED_KEYS:
                hint = f"; the keys allowed here are {_and_list(sorted(allowed))}"
            self.key_error(path, key, f"unknown key '{clipped(key)}' {where}{hint}")

    def on_additionalProperties(self, error: ValidationError, path: _Path) -> None:
        instance, schema = _instance(error), _schema_of(error)
        if not isinstance(instance, dict):
            return
        props = schema.get("properties", {})
        patterns = list(schema.get("patternProperties", {}))
        unknown = [k for k in instance if k not in props and not any(re.search(p, k) for p in patterns)]
        self.unknown_keys(path, instance, unknown, props)

    def on_unevaluatedProperties(self, error: ValidationError, path: _Path) -> None:
        instance = _instance(error)
        if not isinstance(instance, dict):
            return
        allowed = self.allowed_keys(_schema_of(error), instance)
        unknown = [k for k in instance if k not in allowed]
        self.unknown_keys(path, instance, unknown, allowed)

    def on_required(self, error: ValidationError, path: _Path) -> None:
        if not isinstance(_instance(error), dict):
            return
        for key in _expected(error):
            if key not in _instance(error):
                self.add_missing(path, [key])

    def on_dependentRequired(self, error: ValidationError, path: _Path) -> None:
        instance = _instance(error)
        for key, needs in _expected(error).items():
            lacking = [n for n in needs if n not in instance]
            if key in instance and lacking:
                self.key_error(
                    path,
                    key,
                    f"'{clipped(key)}' can only be used together with {_and_list([repr(n) for n in lacking])}",
                )

    def on_type(self, error: ValidationError, path: _Path) -> None:
        types = _expected(error) if isinstance(_expected(error), list) else [_expected(error)]
        words = [_TYPE_WORDS.get(t, t) for t in types]
        message = f"{_name(path)} must be {_or_list(words)}, not {_show(_instance(error))}"
        if _instance(error) is None and "string" in types:  # id: null, name: ~ or nothing at all
            message += " (YAML reads nothing written, null and ~ as empty: give a value, or quote a word like null)"
        self.value_error(path, message + _attribute_hint(path, _instance(error), "a mapping" in words), "type")

    def on_enum(self, error: ValidationError, path: _Path) -> None:
        allowed = [_plain(v) for v in _expected(error)]
        also = "".join(f", {form}" for form in self.list_form.get(path, [])) + (
            ", or a list of them" if path in self.list_form else ""
        )
        message = f"{_name(path)} must be one of {', '.join(allowed)}{also}, not {_show(_instance(error))}"
        if isinstance(_instance(error), str):
            hint = _suggest(_instance(error), allowed)
            if not hint and len(path) == 3 and path[0] == "scoring" and path[2] == "kind":
                hint = " (a kind from a plug-in is known once it is loaded: ruledraft --plugin FILE_OR_MODULE ...)"
            elif not hint and len(path) == 4 and path[0] == "cards" and path[2:] == ("effect", "kind"):
                hint = " (an effect from a plug-in is known once it is loaded: ruledraft --plugin FILE_OR_MODULE ...)"
            message += hint
        self.value_error(path, message, "enum")

    def on_const(self, error: ValidationError, path: _Path) -> None:
        self.value_error(
            path, f"{_name(path)} must be {_plain(_expected(error))}, not {_show(_instance(error))}", "const"
        )

    def on_pattern(self, error: ValidationError, path: _Path) -> None:
        hint = _schema_of(error).get("errorMessage") or f"must match the pattern {_expected(error)}"
        value = _instance(error)
        message = f"{_name(path)} {hint}, not {_show(value)}"
        written = re.fullmatch(r"(tag|group):([a-z][a-z0-9_]*)", value) if isinstance(value, str) else None
        if written:  # an expression's spelling in a selector
            message += f" (a selector names a {written[1]} as {{{written[1]}: {written[2]}}})"
        self.value_error(path, message, "pattern")

    def on_property_name(self, error: ValidationError, path: _Path) -> None:
        key = _instance(error)
        if not isinstance(key, str):  # pragma: no cover - keys are always strings
            return
        if error.validator == "pattern":
            hint = _schema_of(error).get("errorMessage") or f"must match the pattern {_expected(error)}"
        else:
            hint = "is not allowed: " + error.message
        self.key_error(path, key, f"key '{clipped(key)}' in {_name(path)} {hint}")

    def on_bound(self, error: ValidationError, path: _Path) -> None:
        words = _BOUNDS[str(error.validator)]
        message = f"{_name(path)} must be {words} {_expected(error)}, not {_show(_instance(error))}"
        self.value_error(path, message, str(error.validator))

    on_minimum = on_maximum = on_exclusiveMinimum = on_exclusiveMaximum = on_bound

    def on_minLength(self, error: ValidationError, path: _Path) -> None:
        if _expected(error) <= 1:
            message = f"{_name(path)} must not be empty"
        else:
            message = f"{_name(path)} must have at least {_expected(error)} characters"
        self.value_error(path, message, "minLength")

    def on_maxLength(self, error: ValidationError, path: _Path) -> None:
        self.value_error(
            path,
            f"{_name(path)} is too long ({len(_instance(error))} characters; at most {_expected(error)} are allowed)",
            "maxLength",
        )

    def on_minItems(self, error: ValidationError, path: _Path) -> None:
        count = _expected(error)
        if count == 1:
            message = f"{_name(path)} must not be empty"
        else:
            message = f"{_name(path)} needs at least {count} items, not {len(_instance(error))}"
        self.value_error(path, message, "minItems")

    def on_maxItems(self, error: ValidationError, path: _Path) -> None:
        count = _expected(error)
        self.value_error(
            path,
            f"{_name(path)} has {len(_instance(error))} items; at most {count} are allowed",
            "maxItems",
            at=path + (count,),
        )

    def on_uniqueItems(self, error: ValidationError, path: _Path) -> None:
        items = _instance(error)
        for index, item in enumerate(items):
            if any(self._same_type(item, other) and item == other for other in items[:index]):
                self.value_error(
                    path, f"{_name(path)} lists {_show(item)} more than once", "uniqueItems", at=path + (index,)
                )
                return

    def on_minProperties(self, error: ValidationError, path: _Path) -> None:
        if _expected(error) <= 1:
            message = f"{_name(path)} must not be empty"
        else:  # pragma: no cover - not used by our schema
            message = f"{_name(path)} needs at least {_expected(error)} entries"
        self.value_error(path, message, "minProperties")

    def on_maxProperties(self, error: ValidationError, path: _Path) -> None:
        self.value_error(
            path,
            f"{_name(path)} has {len(_instance(error))} entries; at most {_expected(error)} are allowed",
            "maxProperties",
        )

    def on_not(self, error: ValidationError, path: _Path) -> None:
        message = _schema_of(error).get("errorMessage")
        negated = _expected(error)
        if isinstance(negated, dict) and list(negated.get("required", [])) and isinstance(_instance(error), dict):
            key = negated["required"][0]
            self.key_error(
                path, key, message or f"'{clipped(key)}' is not allowed {self.where(path, _instance(error))}"
            )
            return
        if negated == {} and path and isinstance(path[-1], str):
            # {"properties": {"size": {"not": {}}}}: the key may not be there at all
            parent = path[:-1]
            self.key_error(
                parent, path[-1], message or f"'{path[-1]}' is not allowed {self.where(parent, self.value_at(parent))}"
            )
            return
        self.value_error(path, message or f"{_name(path)} is not allowed here", "not")

    # -- oneOf / anyOf: find the branch the author meant

    def on_oneOf(self, error: ValidationError, path: _Path) -> None:
        self.choice(error, path)

    def on_anyOf(self, error: ValidationError, path: _Path) -> None:
        self.choice(error, path)

    def choice(self, error: ValidationError, path: _Path) -> None:
        instance = _instance(error)
        branches = [self.resolve(b) for b in _expected(error)]
        by_branch: dict[Any, list[ValidationError]] = {}
        for sub in error.context or ():
            by_branch.setdefault(sub.relative_schema_path[0], []).append(sub)
        exactly_one = error.validator == "oneOf"

        # A choice between keys that must be present ({required: [a]} | {required: [b]}).
        if branches and all(
            isinstance(b, dict) and set(b) <= {"required", "title", "description"} and b.get("required")
            for b in branches
        ):
            forms = [k for b in branches for k in b["required"]]
            self.choose_form(path, instance, forms, exactly_one)
            return

        candidates = [i for i, b in enumerate(branches) if self.type_ok(b, instance)]
        if len(candidates) == 1 and self.is_list_of(
            [b for i, b in enumerate(branches) if i != candidates[0]], branches[candidates[0]]
        ):
            # 'pass: lfet' where 'pass: [left, right]' (or 'pass: {turns: [...]}') would also do
            mappings = [self.resolve(b) for i, b in enumerate(branches) if i != candidates[0]]
            self.list_form[path] = [
                "{" + ", ".join(f"{k}: ..." for k in m["required"]) + "}"
                for m in mappings
                if isinstance(m, dict) and m.get("type") == "object" and m.get("required")
            ]
        if not candidates:
            words = self.type_words({error.validator: _expected(error)})
            hint = _attribute_hint(path, instance, "a mapping" in words)
            self.value_error(path, f"{_name(path)} must be {_or_list(words)}, not {_show(instance)}{hint}", "type")
            return
        if len(candidates) == 1 and by_branch.get(candidates[0]):
            for sub in by_branch[candidates[0]]:
                self.add(sub)
            return
        if isinstance(instance, dict):
            required = {i: list(branches[i].get("required", [])) for i in candidates}
            present = [i for i in candidates if required[i] and all(k in instance for k in required[i])]
            if len(present) == 1 and by_branch.get(present[0]):
                for sub in by_branch[present[0]]:
                    self.add(sub)
                return
            forms = [k for i in candidates for k in required[i]]
            if forms and len(present) != 1:
                if len(present) > 1 and exactly_one:
                    self.choose_form(path, instance, forms, True)
                    return
                if not present:
                    allowed = set()
                    for i in candidates:
                        allowed |= self.allowed_keys(branches[i], instance)
                    unknown = [k for k in instance if k not in allowed]
                    if unknown:
                        self.unknown_keys(path, instance, unknown, allowed)
                    else:
                        self.choose_form(path, instance, forms, exactly_one)
                    return
        best = best_match(error.context) if error.context else None
        if best is not None:
            self.add(best)
            return
        words = self.type_words({error.validator: _expected(error)})
        self.value_error(path, f"{_name(path)} must be {_or_list(words)}, not {_show(instance)}", "type")

    def is_list_of(self, others: list[Any], single: Any) -> bool:
        """Whether one of ``others`` is a list whose items are what ``single`` allows."""
        single = self.resolve(single)
        if not isinstance(single, dict) or "enum" not in single:
            return False
        for other in others:
            other = self.resolve(other)
            if isinstance(other, dict) and other.get("type") == "array":
                items = self.resolve(other.get("items"))
                # the items may be a choice too ('pass': a direction or a per-turn pattern)
                choices = [items] + (items.get("oneOf", []) + items.get("anyOf", []) if isinstance(items, dict) else [])
                if any(self.resolve(c).get("enum") == single["enum"] for c in choices if isinstance(c, dict)):
                    return True
        return False

    def choose_form(self, path: _Path, instance: Any, forms: list[str], exactly_one: bool) -> None:
        """Report a mapping that has none (or, for oneOf, more than one) of the keys ``forms``."""
        quoted = [f"'{f}'" for f in forms]
        if not isinstance(instance, dict):  # pragma: no cover - type errors come first
            return
        present = [f for f in forms if f in instance]
        if not present:
            self.add_missing(path, forms)
        elif len(present) > 1 and exactly_one:
            second = present[1]
            self.key_error(
                path,
                second,
                f"use only one of {_or_list(quoted)} {self.where(path, instance)}, "
                f"not {_and_list([repr(p) for p in present])}",
            )
