"""What an interrupt looks like by the time the command line sees it (no imports: the
launcher uses it before anything else is loaded)."""

from __future__ import annotations


def interrupt_behind(exc: BaseException | None) -> KeyboardInterrupt | None:
    """The KeyboardInterrupt (or SIGTERM's) an error was raised from or while handling,
    if any: Python 3.11 wraps one that arrives while a class body sets up its attributes
    (``__set_name__``, as rich's dataclasses do on import) in a RuntimeError whose cause
    it is, and typer turns one inside a command into an exit."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None
