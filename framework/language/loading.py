"""From a file name (or a bundled id) to a compiled ruleset, through every check.

    text -> yaml_loader -> tunable (tune marks) -> inheritance (extends) -> schema_check -> build (one walk)

:func:`check_ruleset` returns every problem found; :func:`load_ruleset` raises
:class:`~ruledraft.errors.RulesetError` with them.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs

from ruledraft.errors import Diagnostic, InputError, RulesetError
from ruledraft.language import schema_passed
from ruledraft.language.build import RulesetBuilder, accepted_sections, build_ruleset
from ruledraft.language.bundled import NotFound, OutOfReach, resolve_source  # noqa: F401 - the resolver lives beside the bundled ids
from ruledraft.language.file_access import display_name, input_kind
from ruledraft.language.inheritance import resolve_document
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.language.tunable import TuneMarks, preparer
from ruledraft.language.yaml_loader import UnreadableRuleFile, load_document


@attrs.frozen
class CheckResult:
    file: str
    ruleset: CompiledRuleset | None
    diagnostics: list[Diagnostic]
    #: the checked document the ruleset was compiled from (None when a check failed)
    document: Any = None
    #: every file read for it: the rule file, then each parent named by ``extends:``
    files: tuple[str, ...] = ()
    #: the rule file's tune marks and the numbers put in their places (none: an empty set)
    marks: TuneMarks | None = None
    #: the tune marks of every file read, in the order of ``files`` (a parent's are read as their starts)
    all_marks: tuple[TuneMarks, ...] = ()

    @property
    def ok(self) -> bool:
        return self.ruleset is not None and not any(d.severity == "error" for d in self.diagnostics)


def check_ruleset(
    source: str | os.PathLike[str],
    *,
    allow: Sequence[str | os.PathLike[str]] = (),
    text: str | None = None,
    tune: Mapping[str, int] | None = None,
    _relocate: bool = True,
) -> CheckResult:
    """Load, check and compile; never raises for a bad rule file (only for a name that is no usable file).

    ``source`` is resolved by :func:`resolve_source` as typed on the command line;
    ``allow`` widens where its ``extends:`` may reach. Given ``text`` (rule-file text),
    that is checked instead, ``source`` is the name its messages give, and its
    ``extends:`` is resolved as standard input's is (from the current directory).
    The rule file's tune marks (:mod:`ruledraft.language.tunable`) are replaced by
    their starts, or by the values ``tune`` gives by mark name. (``_relocate``: whether a
    variant's errors in a clean parent are shown in the variant, :func:`_in_the_child`;
    off where only ``ok`` is asked.)
    """
    if text is None:
        path = resolve_source(source)
        if os.fspath(path) != "-":
            input_kind(path)  # a directory, FIFO, device or refused path: InputError, before any read
        file = "<stdin>" if os.fspath(path) == "-" else str(path)
    else:
        path, file = Path("-"), os.fspath(source)
    files: list[str] = []
    refused: list[Diagnostic] = []
    judged: list[Any] = []  # the top file's accepted_sections, once it had schema problems

    def check(document: Any) -> list[Diagnostic]:
        files.append(document.file)
        problems = _schema_problems(document)
        if problems and marked and marked[-1]:  # marked[-1]: this document's tune marks
            problems = _at_marks(problems, marked[-1])
        if problems and len(files) == 1 and isinstance(document.data, dict):
            judged.append(accepted_sections(document.data))
            if judged[0](("extends",)):
                # the walk still checks the sections the schema accepted (merged with the
                # parents' when there are any: a parent's own schema errors still stop)
                refused.extend(problems)
                return []
        return problems

    try:
        given = None if text is None else load_document(text, file)
        prepare, marked = preparer(tune)
        doc = resolve_document(path, check=check, allow=allow, _doc=given, prepare=prepare)
    except UnreadableRuleFile as e:
        if e.diagnostics[0].file == file:  # the file given: an argument that cannot be used
            raise e.input from None
        return CheckResult(file, None, list(e.diagnostics))
    except RulesetError as e:
        if refused:
            return CheckResult(file, None, sorted(set(refused + list(e.diagnostics))))
        return CheckResult(file, None, list(e.diagnostics))
    if refused:
        child = getattr(doc, "child", None)
        valid = judged[0] if child is None else accepted_sections(child.data, doc.data)
        found = RulesetBuilder(doc, valid, tuned=marked[0].names if marked else ()).run()
        if _relocate:
            found = _in_the_child(doc, found, files[1] if len(files) > 1 else None, allow)
        return CheckResult(file, None, list(getattr(doc, "warnings", [])) + sorted(set(refused + found)))
    ruleset, found = build_ruleset(doc, tuned=marked[0].names if marked else ())
    diagnostics = list(getattr(doc, "warnings", [])) + found
    if ruleset is None:
        if _relocate:
            diagnostics = _in_the_child(doc, diagnostics, files[1] if len(files) > 1 else None, allow)
        return CheckResult(file, None, diagnostics)
    marks = marked[0] if marked else None
    return CheckResult(file, ruleset, diagnostics, doc, tuple(files), marks, tuple(marked))  # warnings only


def _in_the_child(
    doc: Any, diagnostics: list[Diagnostic], parent: str | None, allow: Sequence[Any]
) -> list[Diagnostic]:
    """A variant's errors located in its parents, when its own parent (``parent``, the
    file its ``extends:`` names, merged with the files above it) checks clean: they are
    the variant's doing (a tag it took off a card, a card it emptied), so each is shown
    at the variant's ``extends:``, naming the parent's place, and the file being written
    shows every error of its own check. Where the parent has errors of its own, they
    stay where they are. One more check, of the parent alone, without this step."""
    child = getattr(doc, "child", None)
    if child is None or parent is None:
        return diagnostics
    elsewhere = [d for d in diagnostics if d.severity == "error" and d.file != child.file]
    if not elsewhere:
        return diagnostics
    try:
        clean = check_ruleset(parent, allow=allow, _relocate=False).ok
    except (InputError, RulesetError, OSError):
        clean = False
    if not clean:
        return diagnostics
    line, column = child.locate(("extends",))
    source = child.lines[line - 1] if 0 < line <= len(child.lines) else None
    out = [
        Diagnostic(
            child.file,
            line,
            column,
            f"{d.message} (at {display_name(d.file)}:{d.line}:{d.column}; the parent checks clean on its own:"
            " a change this file makes breaks it)",
            source_line=source,
        )
        if d in elsewhere
        else d
        for d in diagnostics
    ]
    return sorted(set(out))


def _at_marks(problems: list[Diagnostic], marks: TuneMarks) -> list[Diagnostic]:
    """A schema problem where a tune mark is written says that the mark put a whole
    number there (a mark stands only for a whole number: not for a name, say)."""
    places = {(m.line, m.column): m for m in marks.marks}
    out = []
    for d in problems:
        mark = places.get((d.line, d.column))
        if mark is not None:
            value = marks.values.get(mark.name, mark.start)
            d = attrs.evolve(d, message=f"{d.message} (tune mark {mark.name} stands for a whole number, here {value})")
        out.append(d)
    return out


def _schema_problems(document: Any) -> list[Diagnostic]:
    """:func:`~ruledraft.language.schema_check.check_schema`'s problems, none where the
    same data passed under the same schema before (:mod:`.schema_passed`: neither the
    check nor jsonschema's import then)."""
    if schema_passed.passed(document.data, document.text):
        return []
    from ruledraft.language.schema_check import check_schema

    problems = check_schema(document)
    if not problems:
        schema_passed.remember(document.data, document.text)
    return problems


def load_ruleset(
    source: str | os.PathLike[str], *, allow: Sequence[str | os.PathLike[str]] = (), text: str | None = None
) -> CompiledRuleset:
    """The compiled ruleset, or :class:`RulesetError` listing every problem (arguments as for :func:`check_ruleset`)."""
    result = check_ruleset(source, allow=allow, text=text)
    if not result.ok:
        raise RulesetError([d for d in result.diagnostics if d.severity == "error"])
    assert result.ruleset is not None  # ok means compiled
    if result.ruleset.unplayable is not None:  # a card library: its menus are played
        raise RulesetError([result.ruleset.unplayable])
    return result.ruleset


def load_named_ruleset(
    name: str, *, base: str | os.PathLike[str], allow: Sequence[str | os.PathLike[str]] = (), within_what: str
) -> CompiledRuleset:
    """A ruleset named inside a shared file (a game log's ruleset): resolved and confined as ``extends:`` is.

    A file that is not a rule file is :class:`InputError` ``'NAME' is not a rule file``
    and nothing of its text is shown; any other problem is the ruleset's
    :class:`RulesetError`.
    """
    from ruledraft.language.inheritance import is_rule_file
    from ruledraft.language.yaml_loader import load_file

    path = resolve_source(name, base=base, allow=allow, within_what=within_what)
    input_kind(path)
    try:
        looks_right = is_rule_file(load_file(path))
    except RulesetError:
        looks_right = False
    if not looks_right:
        raise InputError(f"'{display_name(name)}' is not a rule file")
    return load_ruleset(path, allow=allow)
