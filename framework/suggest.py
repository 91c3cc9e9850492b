""""Did you mean ...?" for near misses."""

from __future__ import annotations

import difflib
from typing import Iterable


def did_you_mean(name: str, options: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest option, or an empty string."""
    close = difflib.get_close_matches(str(name), sorted(set(options)), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
