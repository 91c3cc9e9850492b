""" "Did you mean ...?" for near misses."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

#: The longest name a suggestion is looked for (difflib's work and memory grow with
#: the length of the name: about 44 bytes per character, so a hostile 1 GiB name would
#: exhaust memory). No real id is near this long: ids have at most 64 characters.
MAX_SUGGESTION_INPUT = 200
#: The most characters of an unknown name repeated in a message.
MAX_SHOWN_NAME = 80


def did_you_mean(name: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest option, or an empty string.

    A name longer than :data:`MAX_SUGGESTION_INPUT` gets no suggestion.
    """
    close = closest(name, options)
    return f" (did you mean '{close}'?)" if close is not None else ""


def closest(name: str, options: Iterable[str]) -> str | None:
    """The option closest to ``name``, if any is close enough (see :func:`did_you_mean`)."""
    name = str(name)
    if len(name) > MAX_SUGGESTION_INPUT:
        return None
    close = difflib.get_close_matches(name, sorted(set(options)), n=1, cutoff=0.6)
    return close[0] if close else None


def clipped(name: object) -> str:
    """``name`` as text, cut to :data:`MAX_SHOWN_NAME` characters (with the length) if longer."""
    text = str(name)
    if len(text) <= MAX_SHOWN_NAME:
        return text
    return f"{text[: MAX_SHOWN_NAME - 3]}... ({len(text)} characters)"
