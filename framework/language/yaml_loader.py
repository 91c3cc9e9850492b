"""Safe YAML loading that keeps the position of every value.

A rule file is read into plain Python data (``dict``/``list``/``str``/``int``/
``float``/``bool``/``None``) while the line and column of every value -- and of
every mapping key -- are recorded, so that any later stage can point at the exact
spot of a problem (``rules.yaml:12:7: error: ...``).

The data is built from PyYAML's *composer* (node marks, aliases as shared nodes;
never a constructor of arbitrary objects), so that:

* only the standard scalar tags (str, int, float, bool, null) and plain lists and
  mappings are ever produced; any other tag is a located error;
* every mapping key is a string (``2: 10`` gives the key ``"2"``, exactly as
  written); duplicate keys are errors;
* booleans are YAML 1.2's: only ``true``/``false`` (in any of their three
  spellings); YAML 1.1's ``yes``, ``no``, ``on``, ``off`` stay text, so a card
  called ``no`` is not the value ``false``;
* the size of what is built is bounded (:class:`LoaderLimits`): file size, number
  of values (counted while aliases are expanded, which stops "billion laughs"
  bombs before they grow), nesting depth and length of a text value;
* malformed input of any kind ends in :class:`~ruledraft.errors.RulesetError`,
  never in another exception.
"""

from __future__ import annotations

import bisect
import contextlib
import copy
import os
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import attrs
import yaml
from yaml import events as _ev
from yaml.nodes import ScalarNode

from ruledraft.errors import Diagnostic, RulesetError
from ruledraft.language import yaml_parsed
from ruledraft.language.suggest import clipped

__all__ = ["Document", "LoaderLimits", "UnreadableRuleFile", "load_document", "load_file"]

_Y = "tag:yaml.org,2002:"
_STR = _Y + "str"
_INT = _Y + "int"
#: how a whole number is written in a rule file (YAML 1.2's decimal form)
_DECIMAL = re.compile(r"[-+]?(0|[1-9][0-9]*)\Z")
#: a number as YAML 1.2's core schema writes one (ASCII digits, no '_', no base 60)
_DECIMAL_FLOAT = re.compile(r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?\Z")
_FLOAT = _Y + "float"
_BOOL = _Y + "bool"
_YAML_1_2_BOOLS = frozenset({"true", "True", "TRUE", "false", "False", "FALSE"})
_NULL = _Y + "null"
_SEQ = _Y + "seq"
_MAP = _Y + "map"
_MERGE = _Y + "merge"
#: Tags PyYAML's resolver gives plain scalars that are kept as the text written.
_IMPLICIT_AS_TEXT = frozenset({_Y + "timestamp", _Y + "value", _MERGE})

#: Line breaks as YAML counts them (so that our line numbers agree with PyYAML's marks).
_LINE_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")
_SKIPPABLE = frozenset(" \t\r\n\x85\u2028\u2029")
_BREAKS = frozenset("\r\n\x85\u2028\u2029")

#: Characters a text value may not hold, because a terminal cannot show them as
#: written: control characters (ESC starts terminal commands, BEL rings, CR
#: overwrites; tab and line feed are allowed), lone surrogates (half of a
#: character: not text at all) and bidirectional-text controls (they make text
#: read differently from how it is stored).
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSHOWABLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@attrs.frozen
class LoaderLimits:
    """Bounds on what a rule file may make the loader build."""

    #: Size of the file in bytes (UTF-8).
    max_file_size: int = 1 << 20
    #: Values built in total (scalars, lists, mappings), aliases counted as expanded.
    max_nodes: int = 100_000
    #: Lists and mappings nested in one another (the top-level mapping is level 1).
    max_depth: int = 64
    #: Characters in one text value.
    max_scalar_length: int = 100_000


DEFAULT_LIMITS = LoaderLimits()


#: Where a value sits: a tuple of keys and list indices from the top level.
Path = tuple[Any, ...]
#: A scalar as written: (style, start index, end index, text as parsed).
_Span = tuple[str | None, int, int, str]


@attrs.frozen
class _Pos:
    """Where one value sits in the text (1-based), and its key if it is in a mapping."""

    line: int
    column: int
    key_line: int | None = None
    key_column: int | None = None
    #: For scalars: (style, start index, end index, text as parsed) of the scalar token.
    scalar: _Span | None = None


@attrs.frozen(eq=False)
class Document:
    """A parsed rule file: its plain data plus the position of every value in it."""

    file: str
    text: str = attrs.field(repr=False)
    lines: tuple[str, ...] = attrs.field(repr=False)
    data: Any
    _positions: dict[Path, _Pos] = attrs.field(factory=dict, repr=False)
    _line_starts: tuple[int, ...] = attrs.field(default=(0,), repr=False)

    def locate(self, path: Iterable[Any], *, key: bool = False) -> tuple[int, int]:
        """1-based ``(line, column)`` of the value at ``path``.

        With ``key=True``, the position of its key in the parent mapping (for list
        items, and for the top level, the value's own position). An unknown path
        gives the position of its nearest known ancestor.
        """
        path = tuple(path)
        probe = path
        while probe and probe not in self._positions:
            probe = probe[:-1]
        pos = self._positions.get(probe)
        if pos is None:
            return (1, 1)
        if key and probe == path and pos.key_line is not None and pos.key_column is not None:
            return (pos.key_line, pos.key_column)
        return (pos.line, pos.column)

    def scalar_locator(self, path: Iterable[Any]) -> Callable[[int], tuple[int, int]]:
        """A function mapping a 0-based offset in the text value at ``path`` to ``(line, column)``.

        Works for plain, quoted and block (``|``, ``>``) scalars, following line
        folding and escapes; an offset past the end maps just after the last
        character. For a path that is not a scalar, every offset maps to
        :meth:`locate` of the path.
        """
        where = tuple(path)
        pos = self._positions.get(where)
        if pos is None or pos.scalar is None:
            here = self.locate(where)
            return lambda offset: here
        style, start, end, value = pos.scalar
        indices = _scalar_indices(self.text, style, start, end, value)
        to_line_col = self._line_col

        def locate_offset(offset: int) -> tuple[int, int]:
            offset = min(max(int(offset), 0), len(indices) - 1)
            return to_line_col(indices[offset])

        return locate_offset

    def scalar_span(self, path: Iterable[Any]) -> tuple[int, int] | None:
        """``(start, end)`` indices in :attr:`text` of the scalar written at ``path``
        (quotes included), or None when ``path`` holds no scalar of its own."""
        pos = self._positions.get(tuple(path))
        if pos is None or pos.scalar is None:
            return None
        return (pos.scalar[1], pos.scalar[2])

    def offset(self, line: int, column: int) -> int:
        """The index in :attr:`text` of 1-based ``line:column``."""
        return self._line_starts[line - 1] + column - 1

    def diagnostic(self, path: Iterable[Any], message: str, *, key: bool = False) -> Diagnostic:
        """A :class:`Diagnostic` at the value (or key) at ``path``, with its source line."""
        line, column = self.locate(path, key=key)
        return self.diagnostic_at(line, column, message)

    def diagnostic_at(self, line: int, column: int, message: str) -> Diagnostic:
        """A :class:`Diagnostic` at ``line:column`` of this file, with its source line."""
        return Diagnostic(self.file, line, column, message, source_line=_source_line(self.lines, line))

    def _line_col(self, index: int) -> tuple[int, int]:
        return _line_col(self._line_starts, index)


def load_document(
    text: str | bytes | bytearray, file: str | os.PathLike[str] = "<string>", *, limits: LoaderLimits = DEFAULT_LIMITS
) -> Document:
    """Parse rule-file text into a :class:`Document`; raise :class:`RulesetError` if it is unusable."""
    file = str(file)
    if isinstance(text, (bytes, bytearray)):
        text = _decode(bytes(text), file, limits)
    if not isinstance(text, str):
        raise TypeError(f"load_document() needs text, not {type(text).__name__}")
    if len(text) > limits.max_file_size or (
        4 * len(text) > limits.max_file_size and len(text.encode("utf-8", "surrogatepass")) > limits.max_file_size
    ):
        raise _too_large(file, len(text.encode("utf-8", "surrogatepass")), limits)
    if len(text) > _PARSED_SIZE:
        data, positions = _composed(text, file, limits)
        lines, starts = _split_lines(text)
        return Document(file, text, lines, data, positions=positions, line_starts=starts)
    key = (file, text, limits)
    with _PARSED_LOCK:
        doc = _PARSED.pop(key, None)
    if doc is None:
        doc = _parsed(text, file, limits)
    with _PARSED_LOCK:
        _PARSED[key] = doc
        while len(_PARSED) > _PARSED_KEPT:  # the least recently read go
            del _PARSED[next(iter(_PARSED))]
    return attrs.evolve(doc, data=copy.deepcopy(doc.data))  # its own data: a caller may change it


#: the last few texts parsed (a parent read for each file that extends it, a file read
#: again by tune's trials), each of at most _PARSED_SIZE characters (a few megabytes kept
#: at most, whatever files are read): a Document's positions never change, so only the
#: data is copied
_PARSED: dict[tuple[str, str, LoaderLimits], Document] = {}
_PARSED_KEPT = 4
_PARSED_SIZE = 64 * 1024
_PARSED_LOCK = threading.Lock()


def _parsed(text: str, file: str, limits: LoaderLimits) -> Document:
    """The document of ``text``, as a run parsed it before (:mod:`.yaml_parsed`), else
    parsed now and remembered."""
    kept = yaml_parsed.recalled(text, file, limits)
    if kept is not None:
        data, rows = kept
        with contextlib.suppress(TypeError, ValueError, IndexError):  # not rows of places: parsed again
            positions = {tuple(r[0]): _Pos(r[1], r[2], r[3], r[4], r[5]) for r in rows}
            lines, starts = _split_lines(text)
            return Document(file, text, lines, data, positions=positions, line_starts=starts)
    data, positions = _composed(text, file, limits)
    rows = [(path, p.line, p.column, p.key_line, p.key_column, p.scalar) for path, p in positions.items()]
    yaml_parsed.remember(text, file, limits, data, rows)
    lines, starts = _split_lines(text)
    return Document(file, text, lines, data, positions=positions, line_starts=starts)


class UnreadableRuleFile(RulesetError):
    """A rule file the system would not let be read (an input/output error while reading
    it): at its 1:1 where another file extends it; ``input`` is the refusal, which a
    command reads as an unusable argument (exit 2) when it is the file it was given."""

    def __init__(self, file: str, refusal: Any) -> None:
        super().__init__([Diagnostic(file, 1, 1, f"cannot read the file: {refusal.reason}")])
        self.input = refusal


def load_file(path: str | os.PathLike[str], *, limits: LoaderLimits = DEFAULT_LIMITS) -> Document:
    """Read and parse a rule file; raise :class:`RulesetError` (at 1:1 if it cannot be read).

    ``-`` reads standard input (named ``<stdin>`` in messages); an already-open pipe
    (``<(...)``) is read once. A named FIFO, a device, a socket or a directory is
    refused without being opened for reading (see :mod:`ruledraft.language.file_access`).
    """
    from ruledraft.language.file_access import UnreadableInput, read_input

    text = os.fspath(path) if isinstance(path, os.PathLike) else str(path)
    file = "<stdin>" if text == "-" else text
    try:
        raw = read_input(text, limits.max_file_size)
    except UnreadableInput as exc:
        raise UnreadableRuleFile(file, exc) from None
    if len(raw) > limits.max_file_size:
        try:
            size = os.path.getsize(text) if text != "-" else 0
        except OSError:
            size = 0
        raise _too_large(file, max(size, len(raw)), limits, more=size < len(raw))
    return load_document(_decode(raw, file, limits), file, limits=limits)


# ---------------------------------------------------------------------------
# helpers


def _too_large(file: str, size: int, limits: LoaderLimits, more: bool = False) -> RulesetError:
    amount = f"more than {limits.max_file_size} bytes" if more else f"{size} bytes"
    return RulesetError.single(
        file, 1, 1, f"the file is too large ({amount}; a rule file may have at most {limits.max_file_size} bytes)"
    )


def _decode(raw: bytes, file: str, limits: LoaderLimits) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        encoding = "utf-16"
    else:
        encoding = "utf-8-sig"
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = len(before) - (before.rfind(b"\n") + 1) + 1
        bad = raw[exc.start : exc.start + 1].hex()
        raise RulesetError.single(
            file, line, column, f"the file is not valid {encoding.split('-sig')[0].upper()} text (byte 0x{bad})"
        ) from None


def _unshowable_message(char: str) -> str:
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:
        what = "a lone surrogate, half of a character"
    elif unicodedata.category(char) == "Cc":
        what = "a control character"
    else:
        what = "a bidirectional-text control"
    return f"character U+{code:04X} ({what}) cannot be shown and is not allowed in a rule file"


def _source_line(lines: tuple[str, ...], line: int) -> str | None:
    if 1 <= line <= len(lines):
        return lines[line - 1]
    return None


def _line_col(line_starts: tuple[int, ...], index: int) -> tuple[int, int]:
    row = bisect.bisect_right(line_starts, index) - 1
    return (row + 1, index - line_starts[row] + 1)


def _split_lines(text: str) -> tuple[tuple[str, ...], tuple[int, ...]]:
    starts = [0]
    starts.extend(m.end() for m in _LINE_BREAK.finditer(text))
    pieces = _LINE_BREAK.split(text)
    if len(pieces) > 1 and pieces[-1] == "":
        pieces.pop()
    return tuple(pieces), tuple(starts)


def _clip(raw: str) -> str:
    """A scalar's text as a message quotes it: at most 40 characters."""
    return raw if len(raw) <= 40 else raw[:37] + "..."


def _tag_name(tag: str) -> str:
    return "!!" + tag[len(_Y) :] if tag.startswith(_Y) else tag


def _kind_name(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if value is None:
        return "empty (null)"
    if isinstance(value, str):
        return "text"
    return f"the value {value!r}"


def _skip_properties(text: str, index: int, end: int) -> int:
    """Skip an anchor (``&a``) and/or tag (``!t``) written before a scalar."""
    while index < end and text[index] in "&!":
        while index < end and text[index] not in " \t\r\n\x85\u2028\u2029":
            index += 1
        while index < end and text[index] in _SKIPPABLE:
            index += 1
    return index


# -- mapping offsets inside a scalar back to the text ---------------------------------------


def _scalar_indices(text: str, style: str | None, start: int, end: int, value: str) -> list[int]:
    """For each offset 0..len(value) in a scalar's value, the index in ``text`` it came from."""
    tokens = _scalar_tokens(text, style, start, end)
    out = []
    t, n = 0, len(tokens)
    fallback = tokens[-1][1] + 1 if tokens else start
    for ch in value:
        # Source characters that produce nothing (indentation, folded line breaks,
        # quotes) are skipped until the character is found or cannot be skipped.
        while t < n and tokens[t][0] != ch and not tokens[t][2] and tokens[t][0] in _SKIPPABLE:
            if ch in " \n" and tokens[t][0] in _BREAKS:
                break  # a line break folded into a space (or newline) maps to the break
            t += 1
        if t < n:
            out.append(tokens[t][1])
            if tokens[t][0] == ch or (ch in " \n" and tokens[t][0] in _BREAKS):
                t += 1
        else:
            out.append(fallback)
    out.append(tokens[t][1] if t < n else fallback)
    return out


def _scalar_tokens(text: str, style: str | None, start: int, end: int) -> list[tuple[str, int, bool]]:
    """``(character, index, literal)`` for the source of a scalar; ``literal`` ones come from escapes."""
    end = min(end, len(text))
    if style in ("|", ">"):
        header = _LINE_BREAK.search(text, start, end)
        begin = header.end() if header else end
        # The indentation is that of the first line with content; it is not part of the value.
        indent = None
        indicator = re.match("[|>]([1-9+-]*)", text[start:begin])
        digits = [c for c in (indicator.group(1) if indicator else "") if c.isdigit()]
        if digits:  # explicit indentation indicator, relative to the line holding the header
            line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
            head = text[line_start:start]
            indent = len(head) - len(head.lstrip(" ")) + int(digits[0])
        for line_match in re.finditer("[^\r\n\x85\u2028\u2029]*", text[begin:end]):
            body = line_match.group()
            if indent is None and body.strip(" "):
                indent = len(body) - len(body.lstrip(" "))
                break
        tokens = []
        column = 0
        for k in range(begin, end):
            ch = text[k]
            if ch in "\r\n\x85\u2028\u2029":
                column = 0
                tokens.append((ch, k, False))
                continue
            if indent is not None and column < indent and ch == " ":
                column += 1
                continue
            column = indent if indent is not None else column
            tokens.append((ch, k, False))
        return tokens
    if style == "'":
        begin = start + 1 if start < end and text[start] == "'" else start
        stop = end - 1 if end - 1 > begin and text[end - 1] == "'" else end
        tokens = []
        k = begin
        while k < stop:
            if text[k] == "'" and k + 1 < stop and text[k + 1] == "'":
                tokens.append(("'", k, True))
                k += 2
            else:
                tokens.append((text[k], k, False))
                k += 1
        return tokens
    if style == '"':
        begin = start + 1 if start < end and text[start] == '"' else start
        stop = end - 1 if end - 1 > begin and text[end - 1] == '"' else end
        tokens = []
        k = begin
        replacements = yaml.scanner.Scanner.ESCAPE_REPLACEMENTS
        codes = yaml.scanner.Scanner.ESCAPE_CODES
        while k < stop:
            ch = text[k]
            if ch == "\\" and k + 1 < stop:
                nxt = text[k + 1]
                if nxt in replacements:
                    tokens.append((replacements[nxt], k, True))
                    k += 2
                elif nxt in codes:
                    code = text[k + 2 : k + 2 + codes[nxt]]
                    try:
                        decoded = chr(int(code, 16))
                    except (ValueError, OverflowError):
                        decoded = "\ufffd"
                    tokens.append((decoded, k, True))
                    k += 2 + codes[nxt]
                else:  # escaped line break: produces nothing
                    k += 2
            else:
                tokens.append((ch, k, False))
                k += 1
        return tokens
    return [(text[k], k, False) for k in range(start, end)]


# -- the composer ---------------------------------------------------------------------------
#
# PyYAML's own composer builds the node graph (marks on every node, an alias is the anchored
# node itself, shared; mappings and lists are composed by PyYAML). compose_node is overridden
# for what the composer alone cannot guarantee: values counted with aliases expanded and
# nesting refused while composing (a bomb or a hundred thousand brackets stop at the spot that
# crosses the limit, before anything grows or the stack runs out); an alias that keeps its own
# place (a shared node has one mark, the anchor's); unknown and recursive aliases reported
# without stopping (PyYAML stops at the first, and lets an alias inside its own anchor build a
# cycle); an anchor that may be named again (YAML 1.2 allows it, PyYAML refuses). Scalars and
# keys are checked as they are composed, so that problems before a syntax error are reported
# with it. tests/language/test_front_end_reasons.py pins each reason, and the columns inside a quoted
# value (_scalar_indices), which a node's mark alone cannot give.


class _Fatal(Exception):
    def __init__(self, line: int, column: int, message: str) -> None:
        super().__init__(message)
        self.line, self.column, self.message = line, column, message


class _AliasNode(yaml.nodes.Node):
    """Where an alias is written; ``target`` is the anchored node (``None`` if it is unusable)."""

    def __init__(self, target: yaml.nodes.Node | None, mark: yaml.Mark) -> None:
        super().__init__("", target, mark, mark)
        self.target = target


_Scalar = tuple[Any, bool]  # (value, usable)


class _Composer(yaml.SafeLoader):
    def __init__(self, text: str, file: str, limits: LoaderLimits) -> None:
        # PyYAML's own state is set up by compose(), where its errors are caught
        self.text, self.file, self.limits = text, file, limits
        self.lines, self.line_starts = _split_lines(text)
        self.errors: list[Diagnostic] = []
        self.reported: set[tuple[int, int, str]] = set()
        self.count = 0
        self.heights: list[int] = []  # for each list or mapping being composed, the height of its highest child
        #: id(anchored node) -> (values it builds, nesting height) once the node is complete
        self.finished: dict[int, tuple[int, int]] = {}
        self.scalars: dict[int, _Scalar] = {}  # id(scalar node) -> its value
        self.spans: dict[int, _Span] = {}  # id(scalar node) -> scalar info
        self.keys: dict[int, str | None] = {}  # id(key node) -> its text, None when unusable
        self.seen: dict[int, dict[str, int]] = {}  # id(mapping node) -> key -> line of first use

    def compose(self) -> yaml.nodes.Node | None:
        yaml.SafeLoader.__init__(self, self.text)
        self.untyped: Any = self  # for PyYAML's methods that carry no types
        node: yaml.nodes.Node | None = self.get_single_node()
        return node

    # -- reporting

    def error(self, line: int, column: int, message: str) -> None:
        if (line, column, message) in self.reported:
            return  # a bidi control inside a value is found twice
        self.reported.add((line, column, message))
        self.errors.append(Diagnostic(self.file, line, column, message, source_line=_source_line(self.lines, line)))

    def line_col(self, index: int) -> tuple[int, int]:
        return _line_col(self.line_starts, max(0, min(index, len(self.text))))

    def add(self, amount: int, line: int, column: int) -> None:
        self.count += amount
        if self.count > self.limits.max_nodes:
            raise _Fatal(
                line,
                column,
                f"the file builds more than {self.limits.max_nodes} values "
                "(aliases repeating aliases can multiply a small file into a huge one)",
            )

    # -- composing

    def compose_node(self, parent: yaml.nodes.Node | None, index: Any) -> yaml.nodes.Node:
        event: Any = self.untyped.peek_event()
        first: Any = event.start_mark  # taken before isinstance() gives the event PyYAML's loose types
        last: Any = event.end_mark
        line, column = first.line + 1, first.column + 1
        as_key = index is None and isinstance(parent, yaml.MappingNode)
        node: yaml.nodes.Node
        if isinstance(event, _ev.AliasEvent):
            node = self._alias(self.untyped.get_event(), line, column)
        else:
            count0 = self.count
            self.add(1, line, column)
            anchor = event.anchor
            if anchor is not None:
                self.anchors.pop(anchor, None)  # an anchor may be named again
            if isinstance(event, _ev.ScalarEvent):
                # built here rather than by PyYAML, which would resolve its tag a second time
                self.untyped.get_event()
                start, end = first.index, last.index
                if anchor is not None or event.tag is not None:
                    start = _skip_properties(self.text, start, end)
                span = (event.style, start, end, event.value)
                value = self._scalar_value(event, span, line, column, as_key=as_key)
                node = ScalarNode(event.tag or "", event.value, first, last, event.style)
                if anchor is not None:
                    self.anchors[anchor] = node
                self.scalars[id(node)] = value
                self.spans[id(node)] = span
                height = 0
                if as_key:
                    self.keys[id(node)] = event.value if value[1] else None
            else:
                is_map = isinstance(event, _ev.MappingStartEvent)
                if len(self.heights) >= self.limits.max_depth:
                    raise _Fatal(line, column, f"values are nested more than {self.limits.max_depth} levels deep")
                tag = event.tag
                if tag is not None and tag != "!" and tag != (_MAP if is_map else _SEQ):
                    self.error(line, column, f"tag '{_tag_name(tag)}' is not allowed in a rule file")
                if as_key:
                    self.error(
                        line, column, f"a mapping key must be a single value, not {_kind_name({} if is_map else [])}"
                    )
                self.heights.append(0)
                node = super().compose_node(parent, index)  # type: ignore[assignment]  # never None here
                height = 1 + self.heights.pop()
                if as_key:
                    self.keys[id(node)] = None
            if self.heights and height > self.heights[-1]:
                self.heights[-1] = height
            if anchor is not None:
                self.finished[id(node)] = (self.count - count0, height)
        if as_key:
            self._check_key(parent, node, line)
        return node

    def _alias(self, event: Any, line: int, column: int) -> yaml.nodes.Node:
        target = self.anchors.get(event.anchor)
        if target is None or id(target) not in self.finished:
            if target is None:
                self.error(line, column, f"unknown alias '*{event.anchor}' (no '&{event.anchor}' before it)")
            else:
                self.error(line, column, f"alias '*{event.anchor}' is used inside the value it names")
            self.add(1, line, column)
            return _AliasNode(None, event.start_mark)
        size, height = self.finished[id(target)]
        self.add(size, line, column)
        if len(self.heights) + height > self.limits.max_depth:
            raise _Fatal(line, column, f"values are nested more than {self.limits.max_depth} levels deep")
        if self.heights and height > self.heights[-1]:
            self.heights[-1] = height
        return _AliasNode(target, event.start_mark)

    def _check_key(self, mapping: Any, node: yaml.nodes.Node, line: int) -> None:
        column = node.start_mark.column + 1
        if isinstance(node, _AliasNode):
            target, text = node.target, None
            if target is not None:
                usable = isinstance(target, yaml.ScalarNode) and self.scalars[id(target)][1]
                if not usable:
                    self.error(line, column, "a mapping key must be a single value, not a list or mapping")
                else:
                    text = self.spans[id(target)][3]
            self.keys[id(node)] = text
        text = self.keys[id(node)]
        if text is None:
            return
        seen = self.seen.setdefault(id(mapping), {})
        first = seen.get(text)
        if first is not None:
            self.error(line, column, f"duplicate key '{text}' (first at line {first})")
            self.keys[id(node)] = None
            return
        seen[text] = line

    def _scalar_value(self, event: Any, span: _Span, line: int, column: int, *, as_key: bool) -> _Scalar:
        """``(value, usable)`` for a scalar event; reports disallowed tags and unreadable values."""
        raw: str = event.value
        if len(raw) > self.limits.max_scalar_length:
            self.error(
                line,
                column,
                f"a text value of {len(raw)} characters is too long "
                f"(at most {self.limits.max_scalar_length} are allowed)",
            )
            return None, False
        bad = _UNSHOWABLE.search(raw)
        if bad is not None:
            indices = _scalar_indices(self.text, *span)
            self.error(*self.line_col(indices[min(bad.start(), len(indices) - 1)]), _unshowable_message(bad.group()))
            return None, False
        tag = event.tag
        explicit = tag is not None
        if tag == "!":  # the non-specific tag: a string (YAML 1.2, 6.9.1)
            tag = _STR
        elif not explicit:
            tag = self.untyped.resolve(ScalarNode, raw, event.implicit)
        if as_key:
            if tag == _MERGE and not explicit:
                self.error(line, column, "merge keys ('<<') are not supported in a rule file; write the keys out")
                return None, False
            if explicit and tag not in (_STR, _INT, _FLOAT, _BOOL, _NULL):
                self.error(line, column, f"tag '{_tag_name(tag)}' is not allowed in a rule file")
                return None, False
            return raw, True
        if tag == _STR:
            return raw, True
        if tag == _NULL:
            return None, True
        if not explicit and tag in _IMPLICIT_AS_TEXT:
            return raw, True
        if tag == _BOOL and not explicit and raw not in _YAML_1_2_BOOLS:
            return raw, True  # yes / no / on / off: text, as YAML 1.2 reads them
        constructors: dict[str, tuple[Callable[[ScalarNode], Any], str]] = {
            _INT: (self.construct_yaml_int, "a whole number"),
            _FLOAT: (self.construct_yaml_float, "a number"),
            _BOOL: (self.construct_yaml_bool, "true or false"),
        }
        if tag not in constructors:
            self.error(line, column, f"tag '{_tag_name(tag)}' is not allowed in a rule file")
            return None, False
        construct, what = constructors[tag]
        try:
            value = construct(ScalarNode(tag, raw))
        except Exception:
            self.error(line, column, f"cannot read '{_clip(raw)}' as {what}")
            return None, False
        if (tag == _INT and not _DECIMAL.match(raw)) or (
            tag == _FLOAT and (not _DECIMAL_FLOAT.match(raw) if explicit else "_" in raw or ":" in raw)
        ):
            # YAML 1.1 reads 010 as 8, 0x1f, 0b101 and 1:10 (= 70) as numbers too: in a rule
            # file that is more likely a slip than a wish, so say so instead of guessing (a
            # tag, !!int "010", asks for a number, not for YAML 1.1's reading of it)
            whole = "whole " if tag == _INT else ""
            self.error(line, column, f"write {whole}numbers in plain decimal: '{_clip(raw)}' would be read as {value}")
            return None, False
        return value, True

    # -- from nodes to plain data

    def data(
        self,
        node: yaml.nodes.Node,
        path: Path,
        positions: dict[Path, _Pos],
        key_pos: tuple[int, int] | None,
    ) -> Any:
        """The plain value of ``node`` (an alias gives a fresh copy), recording every position under ``path``."""
        mark = node.start_mark
        key_line, key_column = key_pos if key_pos else (None, None)
        if isinstance(node, _AliasNode):
            target = node.target
            span = self.spans.get(id(target)) if target is not None else None
            positions[path] = _Pos(mark.line + 1, mark.column + 1, key_line, key_column, span)
            if target is None:
                return None
            if isinstance(target, yaml.ScalarNode):
                return self.scalars[id(target)][0]
            node = target
            mark = None  # the alias's own place is recorded
        if isinstance(node, yaml.ScalarNode):
            if mark is not None:
                positions[path] = _Pos(mark.line + 1, mark.column + 1, key_line, key_column, self.spans[id(node)])
            return self.scalars[id(node)][0]
        if mark is not None:
            positions[path] = _Pos(mark.line + 1, mark.column + 1, key_line, key_column)
        if isinstance(node, yaml.SequenceNode):
            return [self.data(item, path + (n,), positions, None) for n, item in enumerate(node.value)]
        out: dict[str, Any] = {}
        for key, value in node.value:
            text = self.keys[id(key)]
            if text is not None:
                key_mark = key.start_mark
                out[text] = self.data(value, path + (text,), positions, (key_mark.line + 1, key_mark.column + 1))
        return out


def _composed(text: str, file: str, limits: LoaderLimits) -> tuple[Any, dict[Path, _Pos]]:
    """``text``'s data and the place of each of its values, or the located errors."""
    composer = _Composer(text, file, limits)
    # Bidi controls are refused anywhere, comments included: a code frame under a
    # message shows the line, and they would reorder it on the terminal.
    for bidi in _BIDI.finditer(text):
        line, column = composer.line_col(bidi.start())
        composer.error(line, column, _unshowable_message(bidi.group()))
    root: yaml.nodes.Node | None = None
    composed = False
    try:
        root = composer.compose()
        composed = True
    except _Fatal as fatal:
        composer.error(fatal.line, fatal.column, fatal.message)
    except yaml.composer.ComposerError as exc:
        if exc.problem != "but found another document" or exc.problem_mark is None:  # pragma: no cover
            _syntax_error(composer, exc)
        else:
            mark = exc.problem_mark
            message = "a rule file holds a single YAML document, but a second one starts here"
            composer.error(mark.line + 1, mark.column + 1, message)
    except yaml.MarkedYAMLError as exc:
        _syntax_error(composer, exc)
    except yaml.reader.ReaderError as exc:
        line, column = composer.line_col(exc.position if isinstance(exc.position, int) else 0)
        reason = exc.reason or "unreadable text"
        character: Any = exc.character
        if isinstance(character, str) and len(character) == 1:
            character = ord(character)
        if isinstance(character, int) and exc.encoding == "unicode":
            what = f"character #x{character:04x}"
        elif isinstance(character, (int, bytes)):
            what = "byte"
        else:  # pragma: no cover - defensive
            what = "character"
        composer.error(line, column, f"YAML syntax: unacceptable {what} ({reason})")
    except yaml.YAMLError as exc:  # pragma: no cover - every PyYAML error is one of the above
        composer.error(1, 1, f"YAML syntax: {exc}")
    except RecursionError:  # pragma: no cover - nesting is refused long before
        composer.error(1, 1, "the file nests values too deeply to be read")
    except Exception as exc:  # pragma: no cover - a PyYAML bug: still a located error, not a traceback
        composer.error(1, 1, f"could not read the file as YAML ({type(exc).__name__}: {exc})")
    finally:
        composer.dispose()
    if composed:
        if root is None or (isinstance(root, yaml.ScalarNode) and root.value == "" and root.style is None):
            if not composer.errors:
                composer.error(
                    1, 1, "the file is empty: a rule file is a mapping of keys to values (format: 1, id: ...)"
                )
        elif not isinstance(root, yaml.MappingNode):
            value = composer.scalars.get(id(root), (None, False))[0]  # the root may be an unknown alias
            what = "a list" if isinstance(root, yaml.SequenceNode) else _kind_name(value)
            line, column = root.start_mark.line + 1, root.start_mark.column + 1
            composer.error(
                line, column, f"the top level of a rule file must be a mapping of keys to values, not {what}"
            )
    if composer.errors or root is None:
        raise RulesetError(composer.errors)
    positions: dict[Path, _Pos] = {}
    return composer.data(root, (), positions, None), positions


def _syntax_error(composer: _Composer, exc: yaml.MarkedYAMLError) -> None:
    said = _structure_in_words(composer.lines, exc)
    if said is not None:
        composer.error(*said)
        return
    mark = exc.problem_mark or exc.context_mark
    line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
    problem = exc.problem or exc.context or "malformed YAML"
    message = f"YAML syntax: {problem}"
    if exc.problem and exc.context:
        where = ""
        if exc.context_mark is not None and exc.context_mark is not mark:
            where = f" at line {exc.context_mark.line + 1}, column {exc.context_mark.column + 1}"
        message += f" ({exc.context}{where})"
    if "'\\t'" in problem:
        message += "; tabs cannot be used to indent YAML, use spaces"
    elif "expected <block end>" in problem or "expected <block mapping start>" in problem:
        message += "; check the indentation"
    composer.error(line, column, message)


# ---------------------------------------------------------------------- structure in a designer's words

_KEY_LINE = re.compile(r"^(\s*)(- +)?([^\s#:{}\[\]'\"][^:#]*?):(\s+|$)(.*)$")


def _indent(text: str) -> int:
    return len(text) - len(text.lstrip(" "))


def _content(lines: Sequence[str], number: int) -> str | None:
    """Line ``number`` (1-based) when it holds more than blanks and a comment."""
    if not 1 <= number <= len(lines):
        return None
    text = lines[number - 1]
    stripped = text.strip()
    return text if stripped and not stripped.startswith("#") else None


def _before(lines: Sequence[str], number: int) -> tuple[int, str] | None:
    """The nearest line above ``number`` with content, and its number."""
    for n in range(number - 1, 0, -1):
        text = _content(lines, n)
        if text is not None:
            return n, text
    return None


def _plural_spaces(n: int) -> str:
    return "1 space" if n == 1 else f"{n} spaces"


def _structure_in_words(lines: Sequence[str], exc: yaml.MarkedYAMLError) -> tuple[int, int, str] | None:
    """PyYAML's structural errors ("expected <block end>", "mapping values are not
    allowed here", "could not find expected ':'") said the way a designer thinks of
    the mistake, at the line that is wrong: a line indented too little or too much,
    a list item without its ``-``, a key without its ``:``, a value with an unquoted
    ``: ``, a card written on one line in braces that goes on below. None when the
    mistake is none of these (the caller keeps PyYAML's words)."""
    problem = exc.problem or ""
    mark, context = exc.problem_mark, exc.context_mark
    if mark is None:
        return None
    if problem.startswith("expected <block end>") and context is not None:
        return _misplaced_line(lines, mark.line + 1, context, exc.context or "")
    if problem == "mapping values are not allowed here":
        return _unexpected_colon(lines, mark.line + 1, mark.column + 1)
    if problem == "could not find expected ':'" and context is not None:
        return _key_without_colon(lines, context.line + 1, context.column + 1)
    return None


def _misplaced_line(lines: Sequence[str], number: int, context: yaml.Mark, within: str) -> tuple[int, int, str] | None:
    text = _content(lines, number)
    above = _before(lines, number)
    if text is None or above is None:
        return None
    column = _indent(text) + 1
    start = f"YAML syntax: this line is indented by {_plural_spaces(column - 1)}"
    previous_number, previous = above
    if "collection" in within and column == context.column + 1 and not text.lstrip().startswith("-"):
        owner = _item_above(lines, number, column - 1)
        key = text.strip().split(":", 1)[0].strip()
        if owner is not None and owner[1] is not None and key != owner[1]:  # a key of the item above, outdented
            return (
                number,
                column,
                f"{start}, less than the keys of the item at line {owner[0]} ({_plural_spaces(owner[2])}): "
                f"indent it as far as they are, or if '{key}' starts another item, put '- ' before it",
            )
        return (
            number,
            column,
            f"YAML syntax: is a '-' missing before this item? The items of the list at line {context.line + 1} "
            "each start with '- '",
        )
    if text.lstrip().startswith("- ") and previous.lstrip().startswith("- ") and _indent(text) > _indent(previous):
        return (
            number,
            column,
            f"{start}, more than the item on line {previous_number} ({_plural_spaces(_indent(previous))}): "
            "line the items of a list up",
        )
    if previous.rstrip().endswith(("}", "]")) and _indent(text) > _indent(previous):
        shown = text.strip().split(":", 1)[0]
        return (
            number,
            column,
            f"YAML syntax: line {previous_number}'s value is written on one line in {{ }} or [ ], so '{shown}' "
            "cannot go on below it: put it inside the brackets, or indent it as far as the keys it belongs with",
        )
    levels = {context.column}
    for n in range(context.line + 1, number):
        t = _content(lines, n)
        if t is not None:
            levels.add(_indent(t))
            item = re.match(r"\s*-\s+", t)
            if item is not None:
                levels.add(item.end())  # the keys of a list item start after its '- '
    if not any(level < _indent(text) for level in levels):
        return None
    return (
        number,
        column,
        f"{start}, which matches no key above it: line it up with the keys it belongs with "
        f"({' or '.join(_plural_spaces(level) for level in sorted(levels) if level != _indent(text))})",
    )


def _item_above(lines: Sequence[str], number: int, indent: int) -> tuple[int, str | None, int] | None:
    """The nearest list item above line ``number`` whose '-' is at ``indent``: its
    line, its first key (None when it holds no ``key:`` there, as ``- {id: x}``) and
    the indent of its keys; None past a line indented less."""
    for n in range(number - 1, 0, -1):
        t = _content(lines, n)
        if t is None:
            continue
        if _indent(t) < indent:
            return None
        found = re.match(r"(\s*-\s+)([A-Za-z_][\w-]*)\s*:(\s|$)", t) if _indent(t) == indent else None
        if found is not None:
            return n, found.group(2), found.end(1)
        if _indent(t) == indent and t.lstrip().startswith("-"):
            return n, None, indent + 2
    return None


def _unexpected_colon(lines: Sequence[str], number: int, column: int) -> tuple[int, int, str] | None:
    text = _content(lines, number)
    if text is None:
        return None
    line = _KEY_LINE.match(text)
    if line is not None and len(line.group(1)) + len(line.group(2) or "") + len(line.group(3)) + 1 < column:
        key, value = line.group(3), text[len(line.group(1)) + len(line.group(2) or "") + len(line.group(3)) + 1 :]
        return (
            number,
            column,
            f"YAML syntax: the value of '{key}' holds ': ', which YAML reads as another key; "
            f"put the value in quotes: {key}: '{value.strip()}'",
        )
    above = _before(lines, number)
    if above is not None and _indent(text) > _indent(above[1]):
        previous_number, previous = above
        first = _KEY_LINE.match(previous)
        if first is not None and first.group(5).strip():
            return (
                number,
                _indent(text) + 1,
                f"YAML syntax: this line is indented more than line {previous_number} ('{first.group(3)}' "
                "and its value), so YAML reads it as more of that value; indent it as far as the keys beside it "
                f"({_plural_spaces(_indent(previous) + len(first.group(2) or ''))})",
            )
    return None


def _key_without_colon(lines: Sequence[str], number: int, column: int) -> tuple[int, int, str] | None:
    text = _content(lines, number)
    if text is None:
        return None
    above = _before(lines, number)
    if above is not None and above[1].lstrip().startswith("- ") and _indent(above[1]) == column - 1:
        return (
            number,
            column,
            f"YAML syntax: is a '-' missing before this item? The item on line {above[0]} starts with '- '",
        )
    word = text.strip().split()[0] if text.strip() else ""
    return (
        number,
        column,
        f"YAML syntax: '{clipped(text.strip())}' is not 'key: value': is the ':' after '{clipped(word)}' missing?",
    )
