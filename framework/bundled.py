"""The rulesets that ship with ruledraft, found inside the installed package."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import List, Optional


def rulesets_dir() -> Path:
    return Path(str(resources.files("ruledraft.rulesets")))


def bundled_ids() -> List[str]:
    """Ids of the bundled rulesets (their file names without ``.yaml``), sorted."""
    return sorted(p.stem for p in rulesets_dir().glob("*.yaml"))


def bundled_path(ruleset_id: str) -> Optional[Path]:
    """The file of a bundled ruleset, or None if there is no such id."""
    if ruleset_id not in bundled_ids():
        return None
    return rulesets_dir() / f"{ruleset_id}.yaml"


def schema_path(name: str = "ruleset.schema.json") -> Path:
    return Path(str(resources.files("ruledraft.schemas"))) / name
