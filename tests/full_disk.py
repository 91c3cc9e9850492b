"""An ``open`` whose files a disk with no room is written through, for the tests of full disks."""

from __future__ import annotations

import builtins
import errno
import os
from collections.abc import Callable
from typing import Any


def full_disk_open(modes: str, reaches: int = 0, error: int = errno.ENOSPC) -> Callable[..., Any]:
    """``open``, but a file opened with any of ``modes`` (``"w"``, ``"x"``) fails its first
    write with ENOSPC (or ``error``: EINVAL, as ``/proc/self/status`` refuses one), after
    ``reaches`` characters of it reached the disk."""

    def opened(path: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        f = builtins.open(path, mode, *args, **kwargs)
        if any(m in mode for m in modes):

            def write(text: str) -> int:
                if reaches:
                    f.buffer.write(text[:reaches].encode())
                    f.buffer.flush()
                raise OSError(error, os.strerror(error))

            f.write = write
        return f

    return opened
