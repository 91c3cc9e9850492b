"""Compiler: a checked rule document -> an immutable :class:`CompiledRuleset`.

Runs after the schema and semantic checks, so it can trust the document's shape
and cross-references. Expressions are compiled once, here, into closures.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ruledraft.language.catalogue import CardType, Catalogue
from ruledraft.language.expression import compile_expression
from ruledraft.language.quantity import compile_quantity
from ruledraft.language.ruleset import LEFT, NO_PASS, RIGHT, CompiledRuleset, DummySpec, ExtraPick, TieBreak
from ruledraft.language.scoring import BuildContext, build_rule, parse_player_key

DIRECTIONS = {"left": LEFT, "right": RIGHT, "none": NO_PASS}


def build_catalogue(cards: list[Mapping[str, Any]]) -> Catalogue:
    """Card types from the ``cards`` list (entries without an id are skipped)."""
    out = []
    for spec in cards:
        if not isinstance(spec, dict) or not isinstance(spec.get("id"), str):
            continue
        count = spec.get("count", 0)
        attributes = spec.get("attributes") or {}
        out.append(
            CardType(
                index=len(out),
                id=spec["id"],
                name=str(spec.get("name") or spec["id"].replace("_", " ").title()),
                count=count if isinstance(count, int) else 0,
                group=str(spec.get("group") or spec["id"]),
                tags=frozenset(t for t in (spec.get("tags") or []) if isinstance(t, str)),
                attributes={k: v for k, v in attributes.items() if isinstance(v, int)}
                if isinstance(attributes, dict)
                else {},
                keep=spec.get("keep", "round"),
                description=str(spec.get("description") or ""),
            )
        )
    return Catalogue(tuple(out))


def expand_player_keys(mapping: Mapping[str, Any]) -> dict[int, Any]:
    """``{"2": 10, "3-4": 9}`` -> ``{2: 10, 3: 9, 4: 9}``."""
    out: dict[int, Any] = {}
    for key, value in mapping.items():
        for n in parse_player_key(key):
            out[n] = value
    return out


def expression_compiler(doc, catalogue: Catalogue, base_path: tuple):
    """A ``compile_expr(suffix, text, boolean=False)`` bound to a place in ``doc``,
    so every expression error points into the file where the expression is written."""

    def compile_expr(suffix: tuple, text: str, boolean: bool = False):
        path = base_path + tuple(suffix)
        return compile_expression(
            text,
            catalogue,
            file=doc.file_of(path) if hasattr(doc, "file_of") else doc.file,
            locate=doc.scalar_locator(path),
            source_lines=doc.lines_of(path) if hasattr(doc, "lines_of") else doc.lines,
            boolean=boolean,
        )

    return compile_expr


def pass_directions(rounds: Mapping[str, Any]) -> tuple:
    spec = rounds.get("pass", "left")
    count = rounds["count"]
    if isinstance(spec, str):
        return (DIRECTIONS[spec],) * count
    return tuple(DIRECTIONS[d] for d in spec)


def compile_ruleset(doc) -> CompiledRuleset:
    """Compile a document that passed :func:`ruledraft.language.schema_check.check_schema` and
    :func:`ruledraft.language.semantic_check.check_semantics`."""
    data = doc.data
    catalogue = build_catalogue(data["cards"])

    rules = []
    for i, spec in enumerate(data["scoring"]):
        ctx = BuildContext(catalogue, expression_compiler(doc, catalogue, ("scoring", i)))
        rules.append(build_rule(spec, ctx))

    actions = tuple(
        ExtraPick(
            id=a["id"],
            card=catalogue.index_of(a["card"]),
            extra=a.get("extra", 1),
            description=a.get("description", ""),
        )
        for a in data.get("actions") or []
    )

    turn = data.get("turn") or {}
    dummy = None
    if turn.get("procedure") == "dummy":
        d = turn.get("dummy") or {}
        dummy = DummySpec(
            seats=d.get("seats", 1),
            first_controller=tuple(d.get("first_controller") or [0] * data["rounds"]["count"]),
            draw=d.get("draw", 1),
            can_win=d.get("can_win", False),
        )

    winner = data.get("winner") or {}
    tie_breaks = []
    for i, tb in enumerate(winner.get("tie_breaks") or []):
        key = "most" if "most" in tb else "least"
        spec = tb[key]
        compile_expr = expression_compiler(doc, catalogue, ("winner", "tie_breaks", i, key))
        q = compile_quantity(
            spec, catalogue, lambda text, ce=compile_expr, s=spec: ce(() if isinstance(s, str) else ("expr",), text)
        )
        tie_breaks.append(TieBreak(q, key == "most"))

    players = data["players"]
    return CompiledRuleset(
        id=data["id"],
        name=data["name"],
        version=str(data.get("version", "")),
        description=str(data.get("description", "")).strip(),
        source=doc.file,
        min_players=players["min"],
        max_players=players["max"],
        catalogue=catalogue,
        hand_sizes=expand_player_keys(data["deal"]["hand_size"]),
        between_rounds=data["deal"].get("between_rounds", "keep_deck"),
        rounds=data["rounds"]["count"],
        pass_directions=pass_directions(data["rounds"]),
        procedure=turn.get("procedure", "standard"),
        dummy=dummy,
        actions=actions,
        round_rules=tuple(r for r in rules if r.when == "round_end"),
        game_rules=tuple(r for r in rules if r.when == "game_end"),
        tie_breaks=tuple(tie_breaks),
        shared_win=winner.get("shared", True),
        extends=data.get("extends"),
    )
