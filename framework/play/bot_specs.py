"""Bot specs: how a seat's bot is named on the command line, with its options.

One syntax for every bot, free of the comma that separates seats::

    NAME[:KEY=VALUE]...              a registered bot, or an installed one
                                     (entry point group ``ruledraft.bots``)
    FILE.py:CLASS[:KEY=VALUE]...     a class in a Python file
    MODULE:CLASS[:KEY=VALUE]...      a class in an importable module

A spec is parsed (and its file or module imported) once per process and kept, so
making a bot for every game costs a dictionary look-up. Worker processes get the
spec text and load the same bot themselves, whether they were forked or spawned.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import operator
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

from ruledraft.entry_points import entry_points
from ruledraft.errors import InputError, RuledraftError, described, stop_behind
from ruledraft.language.file_access import file_kind
from ruledraft.language.kinds.registry import prints_to_stderr

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

#: the entry point group an installed package lists its bots in
ENTRY_POINT_GROUP = "ruledraft.bots"


class BotSpecError(InputError):
    """A ``--bots`` spec that names no usable bot, or gives it an option it does not take."""


class BotFailure(RuledraftError):
    """A bot raised, or chose a move that is not legal. ``detail``: where a bot's code
    raised, the traceback of what it raised, as text (it travels from a worker process
    with the message; the command line shows it with ``RULEDRAFT_DEBUG=1``, and in this
    process the error raised is the failure's ``__cause__`` too)."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail

    def __reduce__(self) -> tuple[Any, ...]:  # with its detail, from a worker's process
        return (type(self), (str(self), self.detail))


class BotUnmade(BotFailure):
    """A bot not ruledraft's own raised as it was made: ``bot`` as named, and the
    first line of what it raised (``reason``)."""

    def __init__(self, bot: str, reason: str) -> None:
        super().__init__(f"bot '{bot}' could not be made: {reason}")
        self.bot, self.reason = bot, reason

    def __reduce__(self) -> tuple[Any, ...]:  # as it was, from a worker's process
        return (type(self), (self.bot, self.reason))


def as_action(action: Any) -> Any:
    """A bot's move as the engine takes it (``engine.procedures.as_action``): an
    integer-like value (numpy's ``int64``, a 0-d array) as the Python ``int`` it
    equals; anything else as it is (a bool included), to be refused as not a legal action."""
    if type(action) is int or isinstance(action, bool):
        return action
    try:
        return operator.index(action)
    except TypeError:
        return action


def bot_traceback(e: BaseException) -> str:
    """The traceback of what a bot's code raised, as text, from the bot's own frame on
    (the frame of the call into the bot, ruledraft's, left out)."""
    import traceback  # (only where a bot failed)

    below = e.__traceback__.tb_next if e.__traceback__ is not None else None
    return "".join(traceback.format_exception(type(e), e, below))


class BotRaised(Exception):  # noqa: N818 - the bot's own error, passed on
    """A bot in another process (``--isolate``) failed: the message says how, as the
    rest of "bot NAME at seat N ..." (``raised Type: message``, ``ended its process
    (exit status 3)``); ``detail``, the traceback its process sent, if any."""

    def __init__(self, message: str, detail: str = "") -> None:
        super().__init__(message)
        self.detail = detail


_TRUE = {"true", "yes", "on", "1"}
_FALSE = {"false", "no", "off", "0"}


def _number(x: float) -> str:
    """``x`` as a person reads it: 1,000,000 and 60,000, not 1e+06 or 60000.0."""
    return f"{int(x):,}" if x == int(x) else f"{x:,g}"


@attrs.frozen
class BotOption:
    """One option a bot takes: ``name`` (as typed after the colon), its ``type``
    (``int``, ``float``, ``bool`` or ``str``), the ``default`` the bot uses without
    it, a one-line ``help``, and for numbers an optional ``minimum`` and ``maximum``
    (a bound on the work a decision may ask for: a search of a few billion iterations
    would run for days, its tree filling the memory). ``instead_of``: another option
    this one replaces when set (not 0), so a spec giving both is refused rather than
    one of them silently unused."""

    name: str
    type: type
    default: Any
    help: str = ""
    minimum: float | None = None
    maximum: float | None = None
    instead_of: str | None = None

    def parse(self, text: str) -> Any:
        """The option's value from its text; ``ValueError`` with the reason if unusable."""
        if self.type is bool:
            word = text.strip().lower()
            if word in _TRUE:
                return True
            if word in _FALSE:
                return False
            raise ValueError("expected true or false")
        if self.type is int:
            try:
                value: Any = int(text)
            except ValueError:
                raise ValueError("expected a whole number") from None
        elif self.type is float:
            try:
                value = float(text)
            except ValueError:
                raise ValueError("expected a number") from None
            if value != value or value in (float("inf"), float("-inf")):
                raise ValueError("expected a finite number")
        else:
            value = self.type(text)
        if self.minimum is not None and value < self.minimum:
            raise ValueError(f"must be at least {self.minimum:g}")
        if self.maximum is not None and value > self.maximum:
            raise ValueError(f"must be at most {_number(self.maximum)}")
        return value

    def describe(self) -> str:
        kind = {int: "integer", float: "number", bool: "true/false", str: "text"}.get(self.type, self.type.__name__)
        most = f", at most {_number(self.maximum)}" if self.maximum is not None else ""
        return f"{self.name}={kind} (default {self.default}{most})"


@attrs.frozen
class BotKind:
    """What the registry knows of a bot: how to make one and what options it takes.
    ``card_values`` bots also take any card id of the ruleset as a numeric option."""

    name: str
    factory: Callable[..., Any]
    options: tuple[BotOption, ...] = ()
    summary: str = ""
    card_values: bool = False
    #: loaded from a file, a module or an entry point: its moves are checked
    foreign: bool = False


@attrs.frozen
class BotSpec:
    """A parsed spec: the text as typed, the bot, and the options given."""

    text: str
    kind: BotKind
    options: Mapping[str, Any]

    def make(self, seed: int, *, checked: bool | None = None, shown: str | None = None) -> Any:
        """A new bot seeded with ``seed``; ``checked`` (default: a bot from outside,
        ``kind.foreign``) as :func:`make_checked` makes it, named ``shown`` (default:
        the spec as typed)."""
        if not (self.kind.foreign if checked is None else checked):
            return self.kind.factory(seed, **self.options)
        return make_checked(shown or self.text, self.kind.factory, seed, self.options)


def make_checked(text: str, factory: Callable[..., Any], seed: int, options: Mapping[str, Any]) -> Any:
    """``factory(seed, **options)`` for a bot that is not ruledraft's own: what it prints
    goes to standard error, and a failure to make it is one :class:`BotFailure` naming
    it as typed (``text``), since it is the bot's fault, not the run's."""
    try:
        with prints_to_stderr(descriptor=True):  # its prints never mix with the run's output
            return factory(seed, **options)
    except BaseException as e:  # noqa: BLE001 - any failure of a bot (its own BaseException too) is one message
        if stop_behind(e):
            raise
        raise BotUnmade(text, described(e)) from None


def options_of(target: object) -> tuple[BotOption, ...]:
    """The options a bot class declares (its ``options`` attribute: ``BotOption``s)."""
    declared = getattr(target, "options", ())
    if not isinstance(declared, (list, tuple)) or not all(isinstance(o, BotOption) for o in declared):
        return ()
    return tuple(declared)


def _is_file(part: str) -> bool:
    return part.endswith(".py") or os.sep in part or (os.altsep is not None and os.altsep in part)


def _load_file(spec: str, path: str) -> object:
    key = os.path.abspath(path)
    try:
        mode = os.stat(key).st_mode
    except OSError:
        raise BotSpecError(f"bot '{spec}': no such file: {path}") from None
    kind = file_kind(mode)
    if kind is not None:  # a directory, a FIFO (never opened: it would wait), a device
        raise BotSpecError(f"bot '{spec}': {path} is {kind}, not a Python file")
    module_name = "ruledraft_bot_" + hashlib.sha1(key.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    if module_name in sys.modules:
        return sys.modules[module_name]
    found = importlib.util.spec_from_file_location(module_name, key)
    if found is None or found.loader is None:
        raise BotSpecError(f"bot '{spec}': {path} is not a Python file")
    module = importlib.util.module_from_spec(found)
    sys.modules[module_name] = module
    within_reach(os.path.dirname(key))  # it imports the modules beside it, as `python FILE` would
    try:
        with prints_to_stderr(descriptor=True):  # what it prints as it is imported never mixes with the run's output
            found.loader.exec_module(module)
    except BaseException as e:  # noqa: BLE001 - any failure of foreign code is one message
        sys.modules.pop(module_name, None)
        if stop_behind(e):
            raise
        raise BotSpecError(f"bot '{spec}': {path} failed to import: {described(e)}") from None
    _bot_files.add(os.path.realpath(key))
    return module


#: the source files of the bots loaded from a file or a module in this process (real paths)
_bot_files: set[str] = set()


def bot_files() -> tuple[str, ...]:
    """The source files of the bots loaded from a file or a module in this process: a
    run's ``--log`` must not overwrite them."""
    return tuple(sorted(_bot_files))


def within_reach(folder: str) -> None:
    """Put ``folder`` at the end of Python's module path, if it is not on it: a bot's
    modules there can be imported, and none of them hides a module of Python's or an
    installed package's (a ``random.py`` beside a bot is not the ``random`` anything
    imports)."""
    try:
        real = os.path.realpath(folder)
        if any(os.path.realpath(p or os.curdir) == real for p in sys.path):
            return
    except (OSError, ValueError):
        return
    sys.path.append(real)


def _load_module(spec: str, name: str) -> object:
    within_reach(os.getcwd())  # a module in the folder the command runs in, as `python -m` finds it
    try:
        with prints_to_stderr(descriptor=True):
            module = importlib.import_module(name)
    except BaseException as e:  # noqa: BLE001 - any failure of foreign code is one message
        if stop_behind(e):
            raise
        raise BotSpecError(f"bot '{spec}': module {name} failed to import: {described(e)}") from None
    file = getattr(module, "__file__", None)
    if file:
        _bot_files.add(os.path.realpath(file))
    return module


def _bot_class(spec: str, where: str, target: object, attr: str) -> BotKind:
    if not callable(target) or not callable(getattr(target, "act", None)):
        raise BotSpecError(f"bot '{spec}': {attr} in {where} is not a bot (a class with act(view, seat) -> action)")
    doc = inspect.getdoc(target) or ""
    return BotKind(
        name=spec.split(":")[0] + ":" + attr,
        factory=target,
        options=options_of(target),
        summary=doc.splitlines()[0] if doc else "",
        foreign=True,
    )


def _class_in(spec: str, where: str, module: object, attr: str) -> BotKind:
    if not attr.isidentifier():
        raise BotSpecError(f"bot '{spec}': '{attr}' is not a class name")
    target = getattr(module, attr, None)
    if target is None:
        raise BotSpecError(f"bot '{spec}': {where} has no class '{attr}'")
    return _bot_class(spec, where, target, attr)


def entry_point_bots() -> dict[str, EntryPoint]:
    """The installed packages' bots (entry point group ``ruledraft.bots``), by name."""
    return {ep.name: ep for ep in entry_points(ENTRY_POINT_GROUP)}


_entry_kinds: dict[str, BotKind] = {}


def entry_point_kind(name: str, ep: EntryPoint) -> BotKind:
    """The bot an entry point names, loaded once."""
    if name not in _entry_kinds:
        where = f"entry point '{name}' ({ep.value}) in {ENTRY_POINT_GROUP}"
        try:
            target = ep.load()
        except BaseException as e:  # noqa: BLE001 - any failure of foreign code is one message
            if stop_behind(e):
                raise
            raise BotSpecError(f"bot '{name}': {where} failed to load: {described(e)}") from None
        kind = _bot_class(name, where, target, ep.value.rpartition(":")[2] or name)
        _entry_kinds[name] = attrs.evolve(kind, name=name)
    return _entry_kinds[name]


def absolute_spec(spec: str) -> str:
    """``spec`` with its bot file named by its absolute path (``bot.py:Class`` ->
    ``/home/me/bot.py:Class``): the same bot for a process in another directory. Any
    other spec is returned as it is."""
    head, sep, rest = spec.strip().partition(":")
    if not sep or not _is_file(head) or os.path.isabs(head) or "=" in rest.partition(":")[0]:
        return spec
    return os.path.abspath(head) + sep + rest


def _kind_for(spec: str, head: str, rest: list[str], registry: Mapping[str, BotKind]) -> tuple[BotKind, list[str]]:
    """The bot a spec names, and the option parts left after it."""
    named = not _is_file(head) and (head in registry or head in entry_point_bots())
    if rest and "=" not in rest[0] and not named:  # FILE.py:CLASS or MODULE:CLASS
        attr = rest[0]
        if _is_file(head):
            return _class_in(spec, head, _load_file(spec, head), attr), rest[1:]
        return _class_in(spec, f"module {head}", _load_module(spec, head), attr), rest[1:]
    if _is_file(head):
        raise BotSpecError(f"bot '{spec}': name the class after the file ({head}:ClassName)")
    if head in registry:
        return registry[head], rest
    found = entry_point_bots().get(head)
    if found is not None:
        return entry_point_kind(head, found), rest
    from ruledraft.language.suggest import did_you_mean

    known = sorted(set(registry) | set(entry_point_bots()))
    raise BotSpecError(
        f"unknown bot '{head}'{did_you_mean(head, known)}; known: {', '.join(known)} (or FILE.py:CLASS, MODULE:CLASS)"
    )


def parse_spec(spec: str, registry: Mapping[str, BotKind], card_ids: Sequence[str] | None = None) -> BotSpec:
    """Parse ``spec`` (see the module's doc) into a :class:`BotSpec`; :class:`BotSpecError`
    says what is wrong in one line. With ``card_ids`` (the ruleset's), the card values
    a ``card_values`` bot is given are checked too."""
    text = spec.strip()
    head, *rest = text.split(":")
    if not head:
        raise BotSpecError(f"bot '{spec}': no bot name before ':'")
    kind, parts = _kind_for(text, head, rest, registry)
    declared = {o.name: o for o in kind.options}
    values: dict[str, Any] = {}
    card_values: dict[str, float] = {}
    for part in parts:
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or not key:
            raise BotSpecError(f"bot '{text}': '{part}' is not an option (KEY=VALUE)")
        if key in values or key in card_values:
            raise BotSpecError(f"bot '{text}': option '{key}' is given twice")
        option = declared.get(key)
        if option is None and kind.card_values:
            if card_ids is not None and key not in card_ids:
                from ruledraft.language.suggest import did_you_mean

                raise BotSpecError(
                    f"bot '{text}': '{key}' is neither an option of {kind.name} nor a card of the ruleset"
                    f"{did_you_mean(key, list(card_ids))}"
                )
            try:
                number = float(value)
            except ValueError:
                raise BotSpecError(f"bot '{text}': card value {key}={value}: expected a number") from None
            if number != number or number in (float("inf"), float("-inf")):
                raise BotSpecError(f"bot '{text}': card value {key}={value}: expected a finite number")
            card_values[key] = number
            continue
        if option is None:
            offered = ", ".join(o.name for o in kind.options) or "none"
            raise BotSpecError(f"bot '{text}': unknown option '{key}' (options of {kind.name}: {offered})")
        try:
            values[key] = option.parse(value)
        except ValueError as e:
            raise BotSpecError(f"bot '{text}': option {key}={value}: {e}") from None
    for option in kind.options:
        other = option.instead_of
        if other is not None and values.get(option.name) and other in values:
            given = values[option.name]
            shown_value = f"{given:g}" if isinstance(given, float) else given
            raise BotSpecError(
                f"bot '{text}': {option.name} is instead of {other}: give one of them "
                f"({option.name}={shown_value} would leave {other}={values[other]} unused)"
            )
    if card_values:
        values["values"] = card_values
    return BotSpec(text, kind, values)
