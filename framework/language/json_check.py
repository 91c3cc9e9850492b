"""JSON documents the tool reads besides rule files, and their checks.

Game-log records (``schemas/game-log.schema.json``) and the tables ``score`` reads
(``schemas/score-table.schema.json``) are JSON: :func:`parse_json` reads one
(integers too long to convert kept as :class:`LongNumber`), :func:`schema_problems`
checks it against its schema and says each problem as a JSON path and plain words,
and :func:`format_problems` writes them as ``error: PATH: MESSAGE`` lines. The
engine's table scoring and the game logs share them.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ruledraft.errors import LineProblem

if TYPE_CHECKING:
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator

__all__ = [
    "MAX_PROBLEMS",
    "LongNumber",
    "format_problems",
    "json_path",
    "kind",
    "parse_json",
    "plural",
    "schema_problems",
    "show",
    "shown_key",
]

#: whether a value is valid against a schema (see :func:`_quick_check`)
Check = Callable[[Any], bool]

#: At most this many problems are reported for one record or table.
MAX_PROBLEMS = 20

#: Integers longer than this are not converted (Python refuses over 4,300 digits,
#: and no field of a record or table needs more than a few).
_MAX_DIGITS = 100


class LongNumber:
    """A JSON integer too long to be converted: kept as its digit count, so a check
    can say where it is and what it is, and no field accepts it."""

    __slots__ = ("digits",)

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))

    def __repr__(self) -> str:
        return f"a number of {self.digits} digits"


def _parse_int(text: str) -> int | LongNumber:
    return LongNumber(text) if len(text) > _MAX_DIGITS else int(text)


class _TwiceOver(Exception):  # noqa: N818 - not an error of its own: parse_json's signal
    def __init__(self, key: str) -> None:
        self.key = key


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object's pairs as a dict, each key once (:class:`_TwiceOver` if not)."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _TwiceOver(key)
            seen.add(key)
    return out


def parse_json(text: str, name: str, line: int | None = None) -> Any:
    """``text`` (line ``line`` of file ``name``, or the whole file) as JSON; :class:`LineProblem`
    naming the file, line and column if it is not. Integers too long to convert are
    kept as :class:`LongNumber` for the checks to report."""
    if line is not None:
        text = text.rstrip("\r\n")  # an error at the end of the line is on the line
    try:
        return json.loads(text, parse_int=_parse_int, object_pairs_hook=_once_each)
    except json.JSONDecodeError as e:
        raise LineProblem(f"{name}:{(line or 1) - 1 + e.lineno}:{e.colno}", f"not valid JSON: {e.msg}") from None
    except _TwiceOver as e:  # JSON keeps the last silently: a table or a record means one of them
        raise LineProblem(
            f"{name}:{line or 1}", f"the key {shown_key(e.key)} appears twice in one object (which one is meant?)"
        ) from None
    except RecursionError:
        raise LineProblem(f"{name}:{line}" if line else name, "JSON nested too deeply") from None


def _is_whole_number(checker: object, instance: object) -> bool:
    # JSON Schema calls 3.0 an integer and Python calls True one; a record writes 3
    return isinstance(instance, int) and not isinstance(instance, bool)


@functools.cache
def _validator(schema_name: str) -> Validator:
    from importlib.resources import files

    import jsonschema
    from jsonschema import Draft202012Validator

    schema = json.loads(files("ruledraft.schemas").joinpath(schema_name).read_text(encoding="utf-8"))
    cls: type[Validator] = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _is_whole_number),
    )
    return cls(schema)


def json_path(path: Iterable[str | int]) -> str:
    """``rounds[1].turns[0]`` for the path ``["rounds", 1, "turns", 0]``."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif _IDENTIFIER.fullmatch(part):
            out += f".{part}" if out else part
        else:
            out += f"[{json.dumps(part)}]"
    return out


_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

#: one step of a path as :func:`json_path` writes it: a key, an index, a quoted key
_STEP = re.compile(r'\.?([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]')
_SPACE = re.compile(r"[ \t\n\r]*")
_ATOM = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?|true|false|null")


def _steps(path: str) -> tuple[str | int, ...] | None:
    """The steps of a path :func:`json_path` wrote (None: not such a path)."""
    steps: list[str | int] = []
    at = 0
    while at < len(path):
        match = _STEP.match(path, at)
        if match is None or match.end() == at:
            return None
        key, index, quoted = match.groups()
        steps.append(key if key is not None else int(index) if index is not None else json.loads(quoted))
        at = match.end()
    return tuple(steps)


def path_lines(text: str, paths: Iterable[str]) -> dict[str, int]:
    """The line of ``text`` (valid JSON, as :func:`parse_json` read it) on which each
    path's value starts (:func:`json_path`'s form; ``""`` the whole document), or its
    nearest enclosing value's where the path is not in the document; a path that is not
    such a path is left out. Read without recursion (however deep the document)."""
    wanted: dict[str, tuple[str | int, ...]] = {}
    for path in paths:
        steps = _steps(path)
        if steps is not None:
            wanted[path] = steps
    prefixes = {steps[:n] for steps in wanted.values() for n in range(len(steps) + 1)}
    found: dict[tuple[str | int, ...], int] = {}
    decode = json.decoder.scanstring  # type: ignore[attr-defined]  # (not in the stubs; the C scanner where built)
    # a stack of open containers: (path, the next index of a list or None for an object)
    stack: list[tuple[tuple[str | int, ...], int | None]] = []
    here: tuple[str | int, ...] = ()  # the path of the value about to be read
    at = _SPACE.match(text, 0).end()  # type: ignore[union-attr]
    try:
        while True:
            if here in prefixes and here not in found:
                found[here] = at
            char = text[at : at + 1]
            if char in ("{", "["):
                at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
                closing = "}" if char == "{" else "]"
                if text[at : at + 1] == closing:  # empty: a value read
                    at += 1
                else:
                    stack.append((here, 0 if char == "[" else None))
                    if char == "{":
                        key, at = decode(text, at + 1)
                        at = _SPACE.match(text, text.index(":", at) + 1).end()  # type: ignore[union-attr]
                        here = (*here, key)
                    else:
                        here = (*here, 0)
                    continue
            elif char == '"':
                _, at = decode(text, at + 1)
            else:
                atom = _ATOM.match(text, at)
                if atom is None:
                    break
                at = atom.end()
            # a value read: on to the next in its container, or out of those it ends
            while stack:
                at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
                outer, index = stack[-1]
                if text[at : at + 1] == ",":
                    at = _SPACE.match(text, at + 1).end()  # type: ignore[union-attr]
                    if index is None:
                        key, at = decode(text, at + 1)
                        at = _SPACE.match(text, text.index(":", at) + 1).end()  # type: ignore[union-attr]
                        here = (*outer, key)
                    else:
                        stack[-1] = (outer, index + 1)
                        here = (*outer, index + 1)
                    break
                stack.pop()  # its closing bracket
                at += 1
            else:
                break
    except (ValueError, IndexError):  # not the JSON it was said to be: what was found so far
        pass
    lines = {}
    for path, steps in wanted.items():
        n = len(steps)
        while steps[:n] not in found:
            n -= 1
            if n < 0:
                break
        else:
            lines[path] = text.count("\n", 0, found[steps[:n]]) + 1
    return lines


def kind(value: Any) -> str:
    """What a JSON value is, in words: ``a string``, ``null``, ``a list``, ..."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, int):
        return "a whole number"
    if isinstance(value, float):
        whole = math.isfinite(value) and value.is_integer()
        return f"{value!r} (a whole number is written without a decimal point)" if whole else repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, LongNumber):
        return repr(value)
    return type(value).__name__  # pragma: no cover - JSON gives the kinds above only


def show(value: Any) -> str:
    """A short JSON value as written (long text and containers summarised)."""
    if isinstance(value, str):
        return repr(value if len(value) <= 40 else value[:37] + "...")
    if isinstance(value, (bool, type(None), list, dict, LongNumber)):
        return kind(value) if isinstance(value, (list, dict, LongNumber)) else json.dumps(value)
    return repr(value)


_TYPE_WORDS = {
    "integer": "a whole number",
    "string": "a string",
    "array": "a list",
    "object": "an object",
    "boolean": "true or false",
    "number": "a number",
    "null": "null",
}


def _schema_message(error: ValidationError) -> str:
    """One jsonschema error in plain words."""
    # jsonschema types these as possibly unset; an error it reports always has them
    schema: dict[str, Any] = dict(error.schema) if isinstance(error.schema, Mapping) else {}
    value: Any = error.instance
    v = error.validator
    what = schema.get("title") or _TYPE_WORDS.get(str(schema.get("type")), "a value")
    if v == "type":
        return f"expected {what}, got {kind(value)}"
    if v == "required":
        key = re.match(r"^(.*) is a required property$", error.message)
        return f"missing key {key.group(1)}" if key else error.message
    if v == "additionalProperties":
        from ruledraft.language.suggest import did_you_mean

        allowed = list(schema.get("properties", {}))
        extra = [k for k in value if k not in allowed]
        words = "; ".join(f"unknown key {shown_key(k)}{did_you_mean(k, allowed)}" for k in extra[:5])
        return words + (f"; and {len(extra) - 5} more unknown keys" if len(extra) > 5 else "")
    if v == "const":
        return f"expected {json.dumps(error.validator_value)}, got {show(value)}"
    if v in ("minimum", "maximum"):
        low, high = schema.get("minimum"), schema.get("maximum")
        bounds = f"from {low} to {high}" if high is not None else f"of at least {low}"
        return f"expected {what} {bounds}, got {show(value)}"
    if v == "minItems":
        return f"expected {what} with at least {error.validator_value} item(s), got an empty list"
    if v == "pattern":
        return f"expected {what}, got {show(value)}"
    return error.message  # pragma: no cover - the schemas use the keywords above only


def plural(n: int, word: str) -> str:
    """``1 round``, ``3 rounds``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def shown_key(key: str) -> str:
    """A key from a file, quoted and cut short."""
    return repr(key if len(key) <= 40 else key[:37] + "...")


_TYPES = {"object": dict, "array": list, "string": str, "integer": int}
#: the keywords :func:`_quick_check` reads; the others only describe
_NOTES = {"$schema", "$id", "$defs", "title", "description"}


def _quick_check(schema: dict[str, Any], defs: dict[str, Any]) -> Check:
    """A function telling whether a value is valid against ``schema``: the same answer
    as jsonschema for the keywords the shipped schemas use (a :class:`KeyError` for any
    other keyword), many times faster, since a clean record needs no messages."""
    if "$ref" in schema:
        schema = {**defs[schema["$ref"].rsplit("/", 1)[1]], **{k: v for k, v in schema.items() if k != "$ref"}}
    unknown = (
        set(schema)
        - _NOTES
        - {
            "type",
            "const",
            "required",
            "properties",
            "additionalProperties",
            "items",
            "minItems",
            "minimum",
            "maximum",
            "pattern",
        }
    )
    if unknown:
        raise KeyError(f"no quick check for the schema keywords {sorted(unknown)}")
    kind_ = _TYPES[schema["type"]] if "type" in schema else None
    checks: list[Check] = []
    if "const" in schema:
        const = schema["const"]
        checks.append(lambda v: type(v) is type(const) and v == const)
    if kind_ is dict:
        required = tuple(schema.get("required", ()))
        props = {k: _quick_check(sub, defs) for k, sub in schema.get("properties", {}).items()}
        extra = schema.get("additionalProperties", True)
        extra_check = _quick_check(extra, defs) if isinstance(extra, dict) else None

        def check_object(v: dict[str, Any]) -> bool:
            for k in required:
                if k not in v:
                    return False
            for k, item in v.items():
                sub = props.get(k)
                if sub is not None:
                    if not sub(item):
                        return False
                elif extra is False or (extra_check is not None and not extra_check(item)):
                    return False
            return True

        checks.append(check_object)
    if kind_ is list:
        least = schema.get("minItems", 0)
        item_check = _quick_check(schema["items"], defs) if "items" in schema else None
        checks.append(lambda v: len(v) >= least and (item_check is None or all(map(item_check, v))))
    if kind_ is int:
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is not None:
            checks.append(lambda v: v >= low)
        if high is not None:
            checks.append(lambda v: v <= high)
    if kind_ is str and "pattern" in schema:
        search = re.compile(schema["pattern"]).search
        checks.append(lambda v: search(v) is not None)
    if kind_ is None and set(schema) - _NOTES - {"const"}:
        raise KeyError("a quick check needs a 'type' beside these keywords")

    def check(v: Any) -> bool:
        if kind_ is not None and type(v) is not kind_:
            return False
        for c in checks:
            if not c(v):
                return False
        return True

    return check


@functools.cache
def _quick(schema_name: str) -> Check:
    schema = _validator(schema_name).schema
    if not isinstance(schema, Mapping):  # pragma: no cover - the shipped schemas are objects
        raise TypeError(f"{schema_name} is not a schema object")
    return _quick_check(dict(schema), schema.get("$defs", {}))


#: the validators of a number's range, which a value of the wrong type is not also told of
_RANGES = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})


def schema_problems(value: Any, schema_name: str, limit: int = MAX_PROBLEMS) -> list[tuple[str, str]]:
    """``(JSON path, message)`` for each way ``value`` breaks ``schemas/<schema_name>``
    (at most ``limit`` + 1, so a caller can tell there were more), in path order."""
    if _quick(schema_name)(value):
        return []
    errors = list(itertools.islice(_validator(schema_name).iter_errors(value), limit + 1))
    # a value of the wrong type is said once: not also as out of range (inf as a seed)
    mistyped = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    errors = [e for e in errors if not (e.validator in _RANGES and tuple(e.absolute_path) in mistyped)]
    # in path order (keys and indices never compared with each other)
    errors.sort(key=lambda e: [(isinstance(p, str), p) for p in e.absolute_path])
    return [(json_path(e.absolute_path), _schema_message(e)) for e in errors]


def format_problems(problems: Sequence[tuple[str, str]], limit: int = MAX_PROBLEMS) -> list[str]:
    """``error: PATH: MESSAGE`` lines for ``(path, message)`` pairs, at most ``limit``
    of them and a last line saying that more were left out."""
    lines = [f"error: {path}: {message}" if path else f"error: {message}" for path, message in problems[:limit]]
    if len(problems) > limit:
        lines.append(f"error: more problems not shown (the first {limit} are)")
    return lines
