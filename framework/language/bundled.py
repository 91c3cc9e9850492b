"""The rulesets that ship with ruledraft, and the one resolver of "a bundled id or a path"."""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path

from ruledraft.errors import InputError
from ruledraft.language.file_access import UnreadableInput, display_name, os_reason, within
from ruledraft.language.suggest import did_you_mean


def _package_dir(name: str) -> Path:
    """The folder of the package ``name`` (one of ruledraft's data packages, installed as
    files), found as the import system finds it: an editable install maps it too. The
    same folder ``importlib.resources.files`` names, without importing what it brings
    (zip archives and temporary files: about a hundredth of a run's start)."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        raise ModuleNotFoundError(f"ruledraft is installed without its package {name}")
    return Path(next(iter(spec.submodule_search_locations)))


def rulesets_dir() -> Path:
    return _package_dir("ruledraft.rulesets")


def is_bundled_file(source: str | os.PathLike[str]) -> bool:
    """Whether ``source`` is one of the bundled rule files."""
    try:
        return Path(source).resolve().parent == rulesets_dir().resolve()
    except OSError:
        return False


def bundled_ids() -> list[str]:
    """Ids of the bundled rulesets one can play (their file names without ``.yaml``),
    sorted; card libraries (:func:`bundled_libraries`) are not among them."""
    libraries = set(bundled_libraries())
    return sorted(p.stem for p in rulesets_dir().glob("*.yaml") if p.stem not in libraries)


def bundled_libraries() -> list[str]:
    """Ids of the bundled card libraries: rule files with ``courses`` and no ``menu``,
    which menus extend and nobody plays on their own."""
    import re

    out = []
    for p in rulesets_dir().glob("*.yaml"):
        try:
            text = p.read_text(encoding="utf-8")
        except OSError:
            continue
        if re.search(r"^courses:", text, re.M) and not re.search(r"^menu:", text, re.M):
            out.append(p.stem)
    return sorted(out)


def bundled_path(ruleset_id: str) -> Path | None:
    """The file of a bundled ruleset or card library, or None if there is no such id."""
    if ruleset_id not in {p.stem for p in rulesets_dir().glob("*.yaml")}:
        return None
    return rulesets_dir() / f"{ruleset_id}.yaml"


def schema_path(name: str = "ruleset.schema.json") -> Path:
    return _package_dir("ruledraft.schemas") / name


class NotFound(InputError):
    """The name is neither a bundled ruleset nor a file (the message says which it looked like)."""

    def __init__(self, name: str, message: str):
        self.name = name
        super().__init__(message)


class OutOfReach(InputError):
    """A rule file (or a log) names a file the path policy does not let it read."""


def _is_bare(text: str) -> bool:
    """A name such as ``sushi-go``: no directory part, no ``.yaml``/``.yml`` ending."""
    return not ("/" in text or os.sep in text or text.endswith((".yaml", ".yml")) or text in (".", ".."))


def _exists(path: Path) -> bool:
    """Whether there is something at ``path`` (a dangling link counts); a refused path is an error."""
    try:
        os.lstat(path)
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise UnreadableInput(path, os_reason(exc), os_error=True) from None
    except ValueError:
        raise UnreadableInput(os.fspath(path).replace("\0", "\\0"), "the name contains a NUL character") from None
    return True


def resolve_source(
    source: str | os.PathLike[str],
    *,
    base: str | os.PathLike[str] | None = None,
    allow: Sequence[str | os.PathLike[str]] = (),
    within_what: str = "the file that names it",
) -> Path:
    """The one resolver for "a bundled ruleset id or a path", for the command line and ``extends:`` alike.

    In this order:

    1. ``-`` (command line only): standard input.
    2. A bare name (no ``/``, no ``.yaml``/``.yml``) that is a bundled id is the bundled
       ruleset, even when a file of that name lies beside it: a local file never changes
       what a bundled id means (name the file with its ``.yaml`` or as ``./NAME``).
    3. A path, relative to ``base`` (``None``: the current directory); a bare name that
       is no such file is also looked for as ``NAME.yaml``.

    With ``base=None`` (a name typed on the command line) any path may be named. With a
    ``base`` directory (a name written inside a rule file or a log, which are shared
    between people) the file must lie inside ``base`` or one of the ``allow``
    directories (``--allow-path``), links followed: an absolute path, a ``..`` above
    ``base`` or a link out of it is :class:`OutOfReach`. Not found: :class:`NotFound`;
    a path the system refuses: :class:`~ruledraft.language.file_access.UnreadableInput`.
    """
    text = os.fspath(source)
    if not text:  # Path("") is the current directory
        raise UnreadableInput(text, "no file name (the name is empty)")
    if base is None and text == "-":
        return Path("-")
    if _is_bare(text):
        found = bundled_path(text)
        if found is not None:
            return found
    here = Path(".") if base is None else Path(base)
    candidates = [here / text]
    if _is_bare(text):
        candidates.append(here / f"{text}.yaml")
    for candidate in candidates:
        if _exists(candidate):
            if base is not None:
                _check_reach(text, candidate, here, allow, within_what)
            if base is None and _is_bare(str(candidate)) and bundled_path(str(candidate)) is not None:
                return candidate.absolute()  # ./sushi-go: keep it a path when passed on as text
            return candidate
    if not _is_bare(text):
        raise NotFound(text, f"{display_name(text)}: no such file")
    raise NotFound(
        text,
        f"no ruleset '{display_name(text)}': not a file, nor a bundled ruleset{did_you_mean(text, bundled_ids())}; "
        f"bundled: {', '.join(bundled_ids())}",
    )


def _check_reach(
    text: str, candidate: Path, base: Path, allow: Sequence[str | os.PathLike[str]], within_what: str
) -> None:
    """:class:`OutOfReach` unless ``candidate`` lies inside ``base`` or an allowed directory."""
    if within(candidate, allow):
        return
    hint = "; allow a directory with --allow-path DIR"
    shown_name = display_name(text)
    if os.path.isabs(text):
        raise OutOfReach(
            f"'{shown_name}' is an absolute path; {within_what} may name only a bundled ruleset or a file in its own directory{hint}"
        )
    if not within(candidate, [base]):
        if os.path.normpath(text).split(os.sep)[0] == os.pardir:
            raise OutOfReach(
                f"'{shown_name}' is outside the directory of {within_what} ('..' may not climb above it){hint}"
            )
        raise OutOfReach(f"'{shown_name}' is a symbolic link to a file outside the directory of {within_what}{hint}")
