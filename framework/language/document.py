"""A parsed rule file (:class:`Document`): its plain data and the line and column of
every value in it, with what finds a place from a path or an offset, and the limits a
file is read within (:class:`LoaderLimits`). Kept apart from the YAML parser
(:mod:`ruledraft.language.yaml_composer`): a rule file parsed before
(:mod:`ruledraft.language.yaml_parsed`) is made a document without importing PyYAML.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from ruledraft.errors import Diagnostic

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
        text, to_line_col = self.text, self._line_col
        found: list[list[int]] = []  # the places of the text's characters, found at the first offset asked for

        def locate_offset(offset: int) -> tuple[int, int]:
            if not found:
                found.append(_scalar_indices(text, style, start, end, value))
            indices = found[0]
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


def _inside_quotes(text: str, start: int, end: int, quote: str) -> tuple[int, int]:
    """Where the inside of a scalar quoted by ``quote`` at ``text[start:end]`` begins and
    stops (its quotes left out, where they are there)."""
    begin = start + 1 if start < end and text[start] == quote else start
    stop = end - 1 if end - 1 > begin and text[end - 1] == quote else end
    return begin, stop


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
        begin, stop = _inside_quotes(text, start, end, "'")
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
        begin, stop = _inside_quotes(text, start, end, '"')
        tokens = []
        k = begin
        import yaml  # PyYAML's escapes, as it reads them: only where a place inside a double-quoted text is asked for

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
