"""Exceptions and diagnostics.

Two families, kept apart on purpose (as python-chess keeps malformed input apart
from illegal moves):

* :class:`RulesetError` -- a rule file (or table, or log) is malformed. It carries
  every :class:`Diagnostic` found, each with ``file:line:column``.
* :class:`IllegalMoveError` -- a well-formed game was asked to do something its
  rules forbid.
"""

from __future__ import annotations

import math
import numbers
import operator
import signal
import threading
import unicodedata
from collections.abc import Iterable

import attrs


def display_columns(text: str) -> int:
    """The columns ``text`` takes on a terminal (see :func:`_blank_as`; a tab counts one):
    ``len`` for plain text, more for wide characters, less for joining marks."""
    return len(_blank_as(text))


def _width(ch: str) -> int:
    """Columns a character takes on a terminal: two for a wide one (寿, 🍣), none for a
    mark that joins the one before (combining, a joiner, a selector), one for the rest."""
    if unicodedata.category(ch) in ("Mn", "Me", "Cf"):  # combining marks, joiners, selectors
        return 0
    return 2 if unicodedata.east_asian_width(ch) in "WF" else 1


def _blank_as(text: str) -> str:
    """Blanks as wide on a terminal as ``text`` (:func:`_width`), a tab kept."""
    return "".join(ch if ch == "\t" else " " * _width(ch) for ch in text)


#: Unicode categories a terminal acts on or shows as nothing: controls, formats
#: (bidi overrides), surrogates, private and unassigned code points, line and
#: paragraph separators
_INVISIBLE = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def printable(text: str) -> str:
    """``text`` with what a terminal would act on or break a line at written as
    escapes (``\\x1b``, ``\\n``, ``\\u202e``): a file's or a card's name may hold
    them, and a message must show it, not run it."""
    if text.isprintable():
        return text
    return "".join(
        c if c == " " or unicodedata.category(c) not in _INVISIBLE else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


#: a code frame shows a source line up to this many columns wide whole, a wider one cut
#: to :data:`FRAME_REACH` columns each side of its caret
FRAME_WHOLE = 200
FRAME_REACH = 80
#: characters each side of the caret a code frame looks at (marks of no width aside,
#: more than it can show)
FRAME_WINDOW = 1000
#: the columns a tab is counted as where a frame is cut (a terminal's tab stops are 8 apart)
TAB = 8
#: what a code frame shows as it is, though :func:`printable` writes it as an escape: a
#: tab (the caret's line keeps it to align) and the joiners of emoji and scripts (👩‍🍳)
_FRAMED_AS_IS = frozenset("\t\u200c\u200d")


def _framed(line: str, at: int) -> tuple[str, str]:
    """A source line for a code frame and the text before its caret (at offset ``at``),
    each as a terminal shows it: what it would act on written as escapes (the line
    may hold an escape sequence, which the loader refuses, naming it), tabs and joiners
    kept (:data:`_FRAMED_AS_IS`); a line wider than :data:`FRAME_WHOLE` columns cut around
    the caret ("..." where cut: a line of a megabyte is not printed whole)."""
    at = min(at, len(line))
    low, high = max(at - FRAME_WINDOW, 0), min(at + FRAME_WINDOW, len(line))  # what can be shown
    part, at = line[low:high], at - low
    shown = [ch if ch in _FRAMED_AS_IS else printable(ch) for ch in part]
    widths = [TAB if ch == "\t" else sum(map(_width, text)) for ch, text in zip(part, shown)]
    start, end = 0, len(part)
    if low or high < len(line) or sum(widths) > FRAME_WHOLE:
        start = _cut_before(widths, at, FRAME_REACH)
        end = _cut_after(widths, at, FRAME_REACH)
    head = "..." if low + start else ""
    tail = "..." if low + end < len(line) else ""
    return head + "".join(shown[start:end]) + tail, head + "".join(shown[start:at])


def _cut_before(widths: list[int], at: int, reach: int) -> int:
    """The first offset of the at most ``reach`` columns before offset ``at``, never a
    mark of no width whose character is cut off."""
    start, room = at, reach
    while start > 0 and widths[start - 1] <= room:
        start -= 1
        room -= widths[start]
    while 0 < start < at and widths[start] == 0 and widths[start - 1] > room:
        start += 1
    return start


def _cut_after(widths: list[int], at: int, reach: int) -> int:
    """The offset past the at most ``reach`` columns from offset ``at`` on."""
    end, room = at, reach
    while end < len(widths) and widths[end] <= room:
        room -= widths[end]
        end += 1
    return end


@attrs.frozen(order=True)
class Diagnostic:
    """One problem found in an input file, pointing at ``file:line:column`` (1-based)."""

    file: str
    line: int
    column: int
    message: str
    severity: str = "error"
    #: Optional source line and caret column, for a code-frame under the message.
    source_line: str | None = attrs.field(default=None, eq=False, order=False)

    def format(self, *, with_source: bool = False) -> str:
        """``FILE:LINE:COLUMN: error: MESSAGE`` (optionally with the line and a caret), on
        one line: a key or a name the message quotes from the file may hold a line break,
        which would start a line that reads as a diagnostic of its own."""
        head = f"{printable(self.file)}:{self.line}:{self.column}: {self.severity}: {printable(self.message)}"
        if with_source and self.source_line is not None:
            line, before = _framed(self.source_line, max(self.column - 1, 0))
            return f"{head}\n    {line}\n    {_blank_as(before)}^"
        return head

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "severity": self.severity,
            "message": self.message,
        }

    def __str__(self) -> str:  # pragma: no cover - convenience
        return self.format()


def described(e: BaseException) -> str:
    """An error in one line: its type and the first line of its message (``ValueError:
    boom``), or its type alone when it says nothing (``KeyboardInterrupt``)."""
    try:
        lines = str(e).strip().splitlines()
    except BaseException:  # noqa: BLE001 - an error whose message itself fails (code's own __str__) is named by its type
        lines = []
    return f"{type(e).__name__}: {lines[0].strip()}" if lines else type(e).__name__


def raised_by_stop(e: BaseException) -> bool:
    """Whether ``e`` may be a stop signal's interrupt rather than one raised by code (a
    bot's or a plug-in's own ``raise KeyboardInterrupt``, which is that code's failure).
    An interrupt carrying its ``signum`` is a signal's; in any other thread than the
    main one only code raises KeyboardInterrupt; in the main one, so does it under a
    SIGINT handler that raises none (a run's, which only notes the signal, or SIGINT
    ignored). A handler may say for itself with a ``stop_raised()`` attribute (the
    command line's, which notes the signal before it raises); Python's own, or a
    caller's, may have raised it."""
    if not isinstance(e, KeyboardInterrupt):
        return False
    if getattr(e, "signum", None):
        return True
    if threading.current_thread() is not threading.main_thread():
        return False
    handler = signal.getsignal(signal.SIGINT)
    if handler in (signal.SIG_IGN, signal.SIG_DFL, None):
        return False
    said = getattr(handler, "stop_raised", None)
    return bool(said()) if callable(said) else True


def stop_behind(e: BaseException | None, *, by_code: bool = False) -> KeyboardInterrupt | None:
    """The stop signal's interrupt (see :func:`raised_by_stop`) that ``e`` is, or was
    raised from or while handling: Python 3.11 wraps one that arrives while a class body
    sets up its attributes (``__set_name__``) in a RuntimeError whose cause it is, and
    typer turns one inside a command into an exit. ``by_code``: any KeyboardInterrupt,
    a signal's or not."""
    seen: set[int] = set()
    while e is not None and id(e) not in seen:
        if isinstance(e, KeyboardInterrupt) and (by_code or raised_by_stop(e)):
            return e
        seen.add(id(e))
        e = e.__cause__ or e.__context__
    return None


class RuledraftError(Exception):
    """Base of every error ruledraft raises on purpose."""


class RulesetError(RuledraftError):
    """Malformed input: one or more located problems in a rule file (or other input file)."""

    def __init__(self, diagnostics: Iterable[Diagnostic]):
        self.diagnostics = sorted(diagnostics)
        super().__init__("\n".join(d.format() for d in self.diagnostics))

    @classmethod
    def single(cls, file: str, line: int, column: int, message: str) -> RulesetError:
        return cls([Diagnostic(file, line, column, message)])


class InputError(RuledraftError):
    """An input that is not a rule file (a table, a log, a command-line value) is unusable."""


class LineProblem(InputError):
    """An input line (or file) that holds nothing to read: not JSON, not UTF-8 or too
    long; ``where`` (``FILE``, ``FILE:LINE`` or ``FILE:LINE:COLUMN``) and ``message`` apart,
    so a reader can word it its own way."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


class ArgumentError(InputError, ValueError):
    """A value handed to the Python API out of its range (a negative seed, no games): an
    :class:`InputError`, and a ``ValueError`` as Python's own functions raise for one."""


def whole_number(value: object, name: str) -> int:
    """``value`` as a whole number (numpy's integers too); :class:`ArgumentError` naming
    it ``name`` for anything else (``1.5``, ``"4"``, ``True``), which Python would fail
    on later with a message about operands."""
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise ArgumentError(f"{name} must be a whole number, not {value!r}")
    return operator.index(value)  # it has __index__: checked above


def truth_value(value: object, name: str) -> bool:
    """``value`` as True or False (numpy's booleans too); :class:`ArgumentError` naming
    it ``name`` for anything else (``"no"`` and ``1`` would pass for true)."""
    if isinstance(value, bool) or getattr(getattr(value, "dtype", None), "kind", None) == "b":
        return bool(value)
    raise ArgumentError(f"{name} must be True or False, not {value!r}")


def finite_number(value: object, name: str) -> float:
    """``value`` as a float (numpy's numbers too); :class:`ArgumentError` naming it
    ``name`` for a bool, a word, an infinity or NaN."""
    if isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(float(value)):
        return float(value)
    raise ArgumentError(f"{name} must be a finite number, not {value!r}")


class IllegalMoveError(RuledraftError):
    """A move that the rules of the game do not allow in the current state."""


class ReplayMismatch(RuledraftError):
    """A logged game does not agree with what the rules produce."""


class ScoringError(RuledraftError):
    """A rule could not be evaluated (for example a division by zero in an expression).

    Carries the scoring rule's id and the ``file:line:column`` of the cause when they
    are known; :meth:`format` is the one-line message. Picklable with all of them,
    so an error raised in a worker process arrives whole.
    """

    def __init__(
        self,
        message: str,
        rule: str | None = None,
        file: str | None = None,
        line: int | None = None,
        column: int | None = None,
    ):
        self.message, self.rule, self.file, self.line, self.column = message, rule, file, line, column
        super().__init__(self.format())

    def __reduce__(self) -> tuple[type[ScoringError], tuple[str, str | None, str | None, int | None, int | None]]:
        return (type(self), (self.message, self.rule, self.file, self.line, self.column))

    def for_rule(self, rule: str) -> ScoringError:
        """The same error, naming the scoring rule being scored."""
        return type(self)(self.message, rule, self.file, self.line, self.column)

    def format(self) -> str:
        """``FILE:LINE:COLUMN: error: scoring rule 'ID': MESSAGE`` (the parts that are known)."""
        text = self.message if self.rule is None else f"scoring rule '{self.rule}': {self.message}"
        if self.file is None:
            return f"error: {text}"
        return f"{self.file}:{self.line}:{self.column}: error: {text}"

    def __str__(self) -> str:
        return self.format()
