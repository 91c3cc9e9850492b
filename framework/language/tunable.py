"""Tune marks: numbers a rule file leaves open within a range, for ``ruledraft tune``.

Any whole number of a rule file -- a card's points, a cell of a table, a modifier's
factor -- may be written as a *tune mark*::

    points: {tune: [2, 6]}             # any whole number from 2 to 6
    factor: {tune: [1, 4], start: 3}   # ... and 3 until tuned (else the midpoint, rounded down)

This pass runs on the file named on the command line, between the YAML loader and
the schema (``yaml_loader -> tunable -> inheritance -> schema_check -> build``): it
finds every mapping with a ``tune`` key, checks it (located errors: a range that is
not two whole numbers or reaches past ±1,000,000, low above high, a start outside
the range, other keys, too many marks, a mark behind an anchor or alias), records
where it is written (:class:`TuneMark`: its path, a name such as
``scoring[sashimi].points``, its line, column and the span of text it covers) and
puts a number in its place: the start, or the value asked for. Every later stage
sees an ordinary rule file, so ``validate``, ``show`` and ``simulate`` on a file
with tune marks work as on the file with those numbers written in.
:func:`tuned_text` writes the numbers into the text at the recorded spans (comments
and layout kept): the tuned rule file.

A parent named by ``extends:`` may hold tune marks too; they are replaced by their
starts and are not tuned (tune the file that holds them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ruledraft.errors import Diagnostic, RulesetError
from ruledraft.language.json_check import show
from ruledraft.language.yaml_loader import Document

__all__ = [
    "MAX_END",
    "MAX_MARKS",
    "TuneMark",
    "TuneMarks",
    "apply_marks",
    "find_marks",
    "path_name",
    "tuned_text",
    "under_marks",
]

#: the most tune marks one file may hold (each one multiplies the search)
MAX_MARKS = 12
#: the largest size of a mark's ends (the largest number a rule file's schema allows anywhere)
MAX_END = 1_000_000
#: the keys a tune mark may have
_KEYS = ("tune", "start")


@attrs.frozen
class TuneMark:
    """One number left open: where it is written and what it may be."""

    #: keys and list indices from the top of the file to the mark
    path: tuple[Any, ...]
    #: the path in words: ``scoring[sashimi].points``, ``scoring[dumpling].points[3]``
    name: str
    low: int
    high: int
    start: int
    line: int
    column: int
    #: the text the mark covers, ``[begin, end)`` indices in the file's text
    span: tuple[int, int]

    @property
    def size(self) -> int:
        """How many values the mark allows."""
        return self.high - self.low + 1

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "low": self.low,
            "high": self.high,
            "start": self.start,
            "line": self.line,
            "column": self.column,
        }


@attrs.frozen
class TuneMarks:
    """The tune marks of one rule file (in the order written) and the values put in their places."""

    file: str
    text: str = attrs.field(repr=False)
    marks: tuple[TuneMark, ...]
    #: name -> the value put in the mark's place for this load
    values: Mapping[str, int] = attrs.field(factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.marks)

    def starts(self) -> dict[str, int]:
        return {m.name: m.start for m in self.marks}

    def __bool__(self) -> bool:
        return bool(self.marks)


def path_name(data: Any, path: Sequence[Any]) -> str:
    """``path`` in words, as a tune mark is named: list items by their ``id`` when they have one."""
    out = ""
    here = data
    for step in path:
        if isinstance(here, list) and isinstance(step, int):
            item = here[step] if 0 <= step < len(here) else None
            ident = item.get("id") if isinstance(item, dict) else None
            out += f"[{ident}]" if isinstance(ident, str) and ident else f"[{step}]"
            here = item
        else:
            out += f".{step}" if out else str(step)
            here = here.get(step) if isinstance(here, dict) else None
    return out


def under_marks(data: Any, path: Sequence[Any], names: Sequence[str]) -> bool:
    """Whether one of the tune marks named ``names`` stands at ``path`` of ``data`` or
    under it (``data``: the rule file's, or the document it was merged into by id)."""
    if not names:
        return False
    here = path_name(data, path)
    return any(name == here or name.startswith((here + ".", here + "[")) for name in names)


def _is_whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _walk(data: Any, path: tuple[Any, ...], found: list[tuple[tuple[Any, ...], dict[str, Any]]]) -> None:
    if isinstance(data, dict):
        if "tune" in data:
            found.append((path, data))
            return  # a mark's own range is no place for more marks
        for key, value in data.items():
            _walk(value, path + (key,), found)
    elif isinstance(data, list):
        for n, value in enumerate(data):
            _walk(value, path + (n,), found)


def _end_of_mark(doc: Document, path: tuple[Any, ...], begin: int, mark: dict[str, Any]) -> int | None:
    """Where the mark's text ends: after its last scalar, and for ``{...}`` after the closing brace."""
    ends = []
    for key, value in mark.items():
        inner = [(key, n) for n in range(len(value))] if isinstance(value, list) else [(key,)]
        for sub in inner:
            span = doc.scalar_span(path + sub)
            if span is not None:
                ends.append(span[1])
    if not ends:
        return None
    end = max(ends)
    text = doc.text
    if text[begin] != "{":
        return end
    while end < len(text):  # after the last value of a {...}: closing brackets, commas, blanks, comments
        ch = text[end]
        if ch == "}":
            return end + 1
        if ch == "#":
            while end < len(text) and text[end] not in "\r\n":
                end += 1
            continue
        if ch not in " \t\r\n],":
            return None
        end += 1
    return None


def find_marks(doc: Document) -> tuple[list[TuneMark], list[Diagnostic]]:
    """Every tune mark of ``doc`` (in the order written) and the problems of those that are wrong."""
    found: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    _walk(doc.data, (), found)
    marks: list[TuneMark] = []
    problems: list[Diagnostic] = []
    seen: dict[tuple[int, int], str] = {}
    for path, mark in found:
        name = path_name(doc.data, path)
        before = len(problems)
        line, column = doc.locate(path)
        begin = doc.offset(line, column)
        if doc.text[begin : begin + 1] in ("&", "*", "!"):
            problems.append(
                doc.diagnostic(
                    path, f"tune mark {name}: a tune mark cannot be anchored (&), an alias (*) or tagged (!)"
                )
            )
            continue
        others = [k for k in mark if k not in _KEYS]
        for key in others:
            problems.append(
                doc.diagnostic(
                    path + (key,),
                    f"tune mark {name}: '{key}' is not a key of a tune mark (only tune and start)",
                    key=True,
                )
            )
        bounds = mark["tune"]
        if not (isinstance(bounds, list) and len(bounds) == 2):
            problems.append(
                doc.diagnostic(
                    path + ("tune",), f"tune mark {name}: 'tune' takes a range of two whole numbers, such as [2, 6]"
                )
            )
            continue
        for n, bound in enumerate(bounds):
            if not _is_whole(bound):
                problems.append(
                    doc.diagnostic(
                        path + ("tune", n),
                        f"tune mark {name}: the range's {('low', 'high')[n]} end must be a whole number, not {show(bound)}",
                    )
                )
        for n, bound in enumerate(bounds):
            if _is_whole(bound) and abs(bound) > MAX_END:
                problems.append(
                    doc.diagnostic(
                        path + ("tune", n),
                        f"tune mark {name}: the range's {('low', 'high')[n]} end must lie within "
                        f"±{MAX_END:,}, not {bound}",
                    )
                )
        if len(problems) > before:
            continue
        low, high = bounds
        if low > high:
            problems.append(
                doc.diagnostic(
                    path + ("tune",),
                    f"tune mark {name}: the range runs backwards ({low} is above {high}; write [{high}, {low}])",
                )
            )
            continue
        start = mark.get("start", (low + high) // 2)
        if not _is_whole(start):
            problems.append(
                doc.diagnostic(
                    path + ("start",), f"tune mark {name}: 'start' must be a whole number, not {show(start)}"
                )
            )
            continue
        if not low <= start <= high:
            problems.append(
                doc.diagnostic(
                    path + ("start",), f"tune mark {name}: 'start' {start} is outside the range [{low}, {high}]"
                )
            )
            continue
        end = _end_of_mark(doc, path, begin, mark)
        if end is None:
            problems.append(doc.diagnostic(path, f"tune mark {name}: cannot find where the mark's text ends"))
            continue
        if (begin, end) in seen:
            problems.append(doc.diagnostic(path, f"tune mark {name}: the same text as tune mark {seen[begin, end]}"))
            continue
        seen[begin, end] = name
        marks.append(TuneMark(path, name, low, high, start, line, column, (begin, end)))
    if len(found) > MAX_MARKS:
        path = found[MAX_MARKS][0]
        problems.append(
            doc.diagnostic(
                path,
                f"too many tune marks: {len(found)} (at most {MAX_MARKS} in a file; "
                "tune a few numbers at a time, writing the others in)",
            )
        )
    return marks, problems


def _put(data: Any, path: tuple[Any, ...], value: int) -> Any:
    """``data`` with the value at ``path`` replaced (copied along the path only)."""
    if not path:
        return value
    head, rest = path[0], path[1:]
    if isinstance(data, list):
        out_list = list(data)
        out_list[head] = _put(data[head], rest, value)
        return out_list
    out = dict(data)
    out[head] = _put(data[head], rest, value)
    return out


def apply_marks(doc: Document, values: Mapping[str, int] | None = None) -> tuple[Document, TuneMarks]:
    """``doc`` with a number in place of every tune mark (its start, or ``values[name]``),
    and the marks found. :class:`RulesetError` for a wrong mark or a value that does
    not fit its mark; a document without marks comes back as it is."""
    marks, problems = find_marks(doc)
    if problems:
        raise RulesetError(problems)
    given = dict(values or {})
    unknown = sorted(set(given) - {m.name for m in marks})
    if unknown:
        raise RulesetError([Diagnostic(doc.file, 1, 1, f"no tune mark named {name} in this file") for name in unknown])
    chosen: dict[str, int] = {}
    data = doc.data
    for mark in marks:
        value = given.get(mark.name, mark.start)
        if not _is_whole(value) or not mark.low <= value <= mark.high:
            raise RulesetError(
                [doc.diagnostic(mark.path, f"tune mark {mark.name}: {value!r} is outside [{mark.low}, {mark.high}]")]
            )
        chosen[mark.name] = value
        data = _put(data, mark.path, value)
    found = TuneMarks(doc.file, doc.text, tuple(marks), chosen)
    if not marks:
        return doc, found
    return attrs.evolve(doc, data=data), found


def tuned_text(marks: TuneMarks, values: Mapping[str, int]) -> str:
    """The file's text with each tune mark replaced by its value in ``values`` (its
    start when not given): everything else, comments too, as written."""
    text = marks.text
    for mark in sorted(marks.marks, key=lambda m: m.span[0], reverse=True):
        begin, end = mark.span
        line_end = text.find("\n", end)
        follows = bool(text[end : line_end if line_end >= 0 else len(text)].strip())  # a comment after the mark
        text = text[:begin] + _written(text[begin:end], str(values.get(mark.name, mark.start)), follows) + text[end:]
    return text


def _written(mark: str, value: str, follows: bool) -> str:
    """A mark's text (``{tune: [1, 8], start: 3}``, or a block mapping over several lines)
    replaced by ``value``, its comments kept: the value where the mark begins, before its
    first line's comment; each later line of a block mark left as its comment alone (a
    line without one dropped, but for the last when something ``follows`` it on its line:
    its indentation is kept for that)."""
    lines = mark.split("\n")
    first = lines[0]
    hash_at = first.find("#")  # a mark holds numbers and lists only: a # starts a comment
    out = [value if hash_at < 0 else value + first[len(first[:hash_at].rstrip()) : hash_at] + first[hash_at:]]
    for n, line in enumerate(lines[1:], 2):
        indent = line[: len(line) - len(line.lstrip())]
        hash_at = line.find("#")
        if hash_at >= 0:
            out.append(indent + line[hash_at:])
        elif n == len(lines) and follows:
            out.append(indent)
    return "\n".join(out)


def preparer(values: Mapping[str, int] | None = None) -> tuple[Callable[[Document], Document], list[TuneMarks]]:
    """What the loader runs on each file of a chain: the first (the file named) gets
    ``values``, the parents their starts. Returns the function and the list it fills
    with each file's :class:`TuneMarks`, the named file's first."""
    seen: list[TuneMarks] = []

    def prepare(doc: Document) -> Document:
        out, marks = apply_marks(doc, values if not seen else None)
        seen.append(marks)
        return out

    return prepare, seen
