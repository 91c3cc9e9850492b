"""The YAML parser of rule files: PyYAML's composer, turned into plain data and the
place of each value (see :mod:`ruledraft.language.yaml_loader` for what is read and
refused, and how), every problem a located error. Imported only for a text not parsed
before (:mod:`ruledraft.language.yaml_parsed`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

import yaml
from yaml import events as _ev
from yaml.nodes import ScalarNode

from ruledraft.errors import Diagnostic, RulesetError
from ruledraft.language.document import (
    _BIDI,
    _UNSHOWABLE,
    LoaderLimits,
    Path,
    _line_col,
    _Pos,
    _scalar_indices,
    _skip_properties,
    _source_line,
    _Span,
    _split_lines,
    _unshowable_message,
)
from ruledraft.language.suggest import clipped

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
            if tag == _INT and _DECIMAL.match(raw):  # past Python's limit of digits read (4,300)
                digits = len(raw.lstrip("+-").replace("_", ""))
                self.error(line, column, f"a whole number of {digits:,} digits is far too large for any value here")
            else:
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


def composed(text: str, file: str, limits: LoaderLimits) -> tuple[Any, dict[Path, _Pos]]:
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
    if context is not None and problem == "found unexpected end of stream" and "quoted scalar" in (exc.context or ""):
        quote = lines[context.line][context.column : context.column + 1] if context.line < len(lines) else '"'
        return (
            context.line + 1,
            context.column + 1,
            f"YAML syntax: the text quoted here is never closed: the file ends before its closing {quote}",
        )
    closing = {"flow mapping": "}", "flow sequence": "]"}
    within = next((c for what, c in closing.items() if what in (exc.context or "")), None)
    if context is not None and within is not None and problem.startswith(f"expected ',' or '{within}'"):
        opened = "{" if within == "}" else "["
        found = problem.partition("but got ")[2] or "something else"
        before = (
            "the file ends"
            if found == "'<stream end>'"
            else f"{found} at line {mark.line + 1}, column {mark.column + 1}"
        )
        return (
            context.line + 1,
            context.column + 1,
            f"YAML syntax: the '{opened}' here is not closed with '{within}' before {before}",
        )
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
