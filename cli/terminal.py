"""The terminal as ``play`` uses it: answers read line by line (bounded, echoed when
piped), and text written to fit the terminal's width (wrapped lines, packed lists,
tables that fall back to blocks)."""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Callable, Collection, Sequence

import typer
from rich.cells import cell_len

from .common import shown

#: longest input line read (in bytes); the rest of a longer line is skipped in
#: bounded chunks and the answer is refused, so a huge line costs little memory
MAX_INPUT_LINE = 1024

#: narrowest layout the game prints (a narrower terminal gets lines this long)
MIN_WIDTH = 40

#: rows a screen of the game (the board, the hand or a decision, and the prompt) is
#: fitted into when the output is not a terminal whose height is known
SCREEN_ROWS = 30


class EndOfInput(Exception):
    """Standard input ended before the game did."""


class LineTooLong(Exception):
    """An input line longer than :data:`MAX_INPUT_LINE` (its rest has been skipped)."""


def wrapped(text: str, width: int, initial_indent: str = "", subsequent_indent: str = "") -> list[str]:
    """``text`` broken between words into lines of at most ``width`` terminal columns
    (at least one line). A character that takes two columns (林檎) counts two, and an
    accent written apart none, so a card's name in a wide script fits as one in Latin
    letters does; plain ASCII text is wrapped by :func:`textwrap.wrap`."""
    if text.isascii():  # one column a character (a combining accent may hide a wide one from a sum)
        return textwrap.wrap(
            text,
            width,
            initial_indent=initial_indent,
            subsequent_indent=subsequent_indent,
            break_on_hyphens=False,
            drop_whitespace=True,
        ) or [""]
    lines: list[str] = []
    line = initial_indent
    for word in text.split():
        while word:
            room = width - cell_len(line) - (0 if line.strip() == "" else 1)
            if cell_len(word) <= room:
                line = line + word if line.strip() == "" else f"{line} {word}"
                word = ""
            elif line.strip() == "":  # a word wider than a line: cut it by columns (one character at least)
                cut = 1
                while cut < len(word) and cell_len(word[: cut + 1]) <= room:
                    cut += 1
                lines.append(line + word[:cut])
                word, line = word[cut:], subsequent_indent
            else:
                lines.append(line)
                line = subsequent_indent
    if line.strip() or not lines:
        lines.append(line)
    return lines


def _skip_rest_of_line(read: Callable[[int], str | bytes]) -> None:
    """Read and drop the rest of an over-long line, 64 KiB at a time."""
    while True:
        chunk = read(1 << 16)
        if not chunk or chunk[-1:] in (b"\n", "\n"):
            return


def read_line() -> str:
    """One line of standard input (looked up at call time: click's test runner
    replaces ``sys.stdin``); :class:`EndOfInput` at its end, :class:`LineTooLong`
    past :data:`MAX_INPUT_LINE` bytes. Bytes are read and decoded as UTF-8 with
    undecodable bytes replaced, whatever the locale's encoding. When the input is
    not a terminal the line is echoed, so a piped transcript shows the answers."""
    stdin = sys.stdin
    buffer = getattr(stdin, "buffer", None)
    if buffer is not None:
        raw = buffer.readline(MAX_INPUT_LINE + 1)
        if not raw:
            raise EndOfInput()
        too_long = len(raw) > MAX_INPUT_LINE and not raw.endswith(b"\n")
        if too_long:
            _skip_rest_of_line(buffer.readline)
        line = raw.decode("utf-8", errors="replace")
    else:
        line = stdin.readline(MAX_INPUT_LINE + 1)
        if not line:
            raise EndOfInput()
        too_long = len(line) > MAX_INPUT_LINE and not line.endswith("\n")
        if too_long:
            _skip_rest_of_line(stdin.readline)
    if not stdin_is_terminal():
        echo = shown(line.rstrip("\r\n"))
        typer.echo(safe_for_stdout(echo if len(echo) <= 60 else echo[:60] + "..."))
    if too_long:
        raise LineTooLong()
    return line


def stdin_is_terminal() -> bool:
    """Whether a person types the answers (so the game may wait for them)."""
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def safe_for_stdout(text: str) -> str:
    """``text`` with the characters standard output cannot encode written as escapes
    (an ASCII-only locale must not end the game with an encoding error)."""
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
        return text
    except (UnicodeEncodeError, LookupError):
        try:
            return text.encode(encoding, "backslashreplace").decode(encoding)
        except LookupError:
            return text.encode("ascii", "backslashreplace").decode("ascii")


def terminal_width() -> int:
    """Columns to fit the game into: the terminal's (or ``COLUMNS``), at least :data:`MIN_WIDTH`."""
    return max(MIN_WIDTH, shutil.get_terminal_size((80, 24)).columns)


def terminal_height() -> int:
    """Rows a screen of the game must fit: the terminal's (or ``LINES``) when standard
    output is a terminal, else :data:`SCREEN_ROWS`; at least 20."""
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):
        tty = False
    return max(20, shutil.get_terminal_size((80, SCREEN_ROWS)).lines) if tty else SCREEN_ROWS


def grid(items: Sequence[str], width: int, indent: int = 2, gap: int = 3) -> list[str]:
    """``items`` in as many columns as fit ``width`` (read down each column, as ``ls``
    lists files), each line starting with ``indent`` spaces; one per line when even
    two columns do not fit."""
    if not items:
        return []
    widest = max(map(len, items))
    columns = max(1, min(len(items), (width - indent + gap) // (widest + gap)))
    rows = -(-len(items) // columns)
    columns = -(-len(items) // rows)  # as few columns as give that many rows
    lines = []
    for r in range(rows):
        cells = [items[c * rows + r] for c in range(columns) if c * rows + r < len(items)]
        lines.append((" " * indent + (" " * gap).join(cell.ljust(widest) for cell in cells)).rstrip())
    return lines


def wrapping(write: Callable[..., None], width: int | None) -> Callable[..., None]:
    """A ``write(text="", nl=True)`` that fits every line of ``text`` into ``width``
    columns (None: the terminal's at each write, so a resized window is followed),
    breaking between words (a continued line is indented two more columns than its
    first); lines that already fit are written exactly as they are."""
    fixed = width

    def out(text: str = "", nl: bool = True) -> None:
        width = fixed or terminal_width()
        text = safe_for_stdout(text)
        lines: list[str] = []
        for line in text.split("\n"):
            if cell_len(line) <= width:
                lines.append(line)
                continue
            lead = line[: len(line) - len(line.lstrip(" "))]
            more = lead + "  "
            if len(more) > width // 2:
                lead = more = ""
            lines.extend(wrapped(line.lstrip(" "), width, lead, more))
        if not nl and text.endswith(" ") and not lines[-1].endswith(" ") and cell_len(lines[-1]) < width:
            lines[-1] += " "
        for line in lines[:-1]:
            write(line)
        write(lines[-1], nl=nl)

    return out


def packed(head: str, items: Sequence[str], width: int, sep: str = ";") -> list[str]:
    """``head item; item; ...`` in lines of at most ``width`` columns, broken
    between items where it can; a continued line is indented two columns more
    than ``head``."""
    indent = " " * (len(head) - len(head.lstrip(" ")) + 2)
    lines: list[str] = []
    line = head
    for i, item in enumerate(items):
        item += sep if i < len(items) - 1 else ""
        if line.strip() and len(line) + 1 + len(item) > width:
            lines.append(line)
            line = indent + item
        else:
            line = f"{line} {item}"
    lines.append(line)
    return lines


def layout(
    header: Sequence[str],
    rows: Sequence[Sequence[str]],
    width: int,
    short_names: Sequence[str] | None = None,
    right: Collection[int] = (),
) -> list[str]:
    """A table of ``rows`` under ``header`` that fits ``width`` columns: as one line
    per row if it fits (with ``short_names`` in the first column if only they make
    it fit, then with one space between columns), else one block per row, its name on one line and ``header value`` pairs
    below it, wrapped between pairs."""

    def table(rows, gap: str = "  ") -> list[str]:
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        out = []
        for cells in [header, *rows]:
            parts = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(cells, widths))]
            out.append(("  " + gap.join(parts)).rstrip())
        return out

    lines = table(rows)
    if max(map(len, lines)) <= width:
        return lines
    named = rows
    if short_names is not None:
        named = [[n, *r[1:]] for n, r in zip(short_names, rows)]
        lines = table(named)
        if max(map(len, lines)) <= width:
            return lines
    lines = table(named, " ")  # closer columns, before one block per row
    if max(map(len, lines)) <= width:
        return lines
    out = []
    for r in rows:
        out.append(f"  {r[0]}")
        line = ""
        for h, v in zip(header[1:], r[1:]):
            pair = f"{h} {v}"
            if line and len(line) + 2 + len(pair) > width:
                out.append(line)
                line = ""
            line = f"{line}  {pair}" if line else f"    {pair}"
        if line:
            out.append(line)
    return out
