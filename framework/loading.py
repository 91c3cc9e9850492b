"""From a file name (or a bundled id) to a compiled ruleset, through every check.

    text -> yaml_loader -> inheritance (extends) -> schema_check -> semantic_check -> compiler

:func:`check_ruleset` returns every problem found; :func:`load_ruleset` raises
:class:`~ruledraft.errors.RulesetError` with them.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import List, Optional, Union

import attrs

from .bundled import bundled_ids, bundled_path
from .compiler import compile_ruleset
from .errors import Diagnostic, InputError, RulesetError
from .inheritance import resolve_document
from .ruleset import CompiledRuleset
from .schema_check import check_schema
from .semantic_check import check_semantics
from .suggest import did_you_mean


def resolve_source(source: Union[str, os.PathLike]) -> Path:
    """A path as given, or the file of a bundled ruleset id (``sushi-go``)."""
    text = os.fspath(source)
    path = Path(text)
    if path.exists() or text.endswith((".yaml", ".yml")) or os.sep in text or "/" in text:
        if not path.exists():
            raise InputError(f"{text}: no such file")
        return path
    found = bundled_path(text)
    if found is None:
        raise InputError(
            f"no ruleset '{text}': not a file, nor a bundled ruleset{did_you_mean(text, bundled_ids())}; "
            f"bundled: {', '.join(bundled_ids())}"
        )
    return found


@attrs.frozen
class CheckResult:
    file: str
    ruleset: Optional[CompiledRuleset]
    diagnostics: List[Diagnostic]

    @property
    def ok(self) -> bool:
        return self.ruleset is not None and not any(d.severity == "error" for d in self.diagnostics)


def check_ruleset(source: Union[str, os.PathLike]) -> CheckResult:
    """Load, check and compile; never raises for a bad rule file (only for a missing one)."""
    path = resolve_source(source)
    try:
        doc = resolve_document(path, check=check_schema)
    except RulesetError as e:
        return CheckResult(str(path), None, list(e.diagnostics))
    diagnostics = check_semantics(doc)
    if any(d.severity == "error" for d in diagnostics):
        return CheckResult(str(path), None, diagnostics)
    try:
        ruleset = compile_ruleset(doc)
    except RulesetError as e:
        return CheckResult(str(path), None, list(e.diagnostics))
    return CheckResult(str(path), ruleset, diagnostics)  # warnings only


def load_ruleset(source: Union[str, os.PathLike]) -> CompiledRuleset:
    """The compiled ruleset, or :class:`RulesetError` listing every problem."""
    result = check_ruleset(source)
    if not result.ok:
        raise RulesetError([d for d in result.diagnostics if d.severity == "error"])
    return result.ruleset
