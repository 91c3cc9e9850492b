"""The card effects' part of a kernel's source: each effect's own part (its
``kernel(w)``, an :class:`~ruledraft.language.effect.EffectPart`) written as compiled
functions, the constants the turn's resolution reads (``effects.tmpl``), and the
dispatch from an effect's number to its steps.

An effect with no part makes the ruleset refuse the kernel, naming its kind; so adding
an effect is still one unit: its schema, its builder, its step and its kernel part.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ruledraft.engine.view import WORLD_SEED
from ruledraft.language.effect import EffectKernelWriter, EffectPart
from ruledraft.language.ruleset import CompiledRuleset

HERE = Path(__file__).resolve().parent

__all__ = [
    "PLANNER_BRANCH",
    "blind",
    "effect_kinds",
    "effect_part",
    "effects_source",
    "growing",
    "turns_cards",
    "without_part",
]


def effect_part(effect: Any, w: EffectKernelWriter) -> EffectPart | None:
    """``effect``'s kernel part (None: it has none; a plug-in's effect may lack the method)."""
    part = getattr(effect, "kernel", None)
    made = part(w) if callable(part) else None
    if not isinstance(made, EffectPart):
        return None
    when = getattr(effect, "when", None)
    if (when == "turn_end" and made.turn_end is None) or (when in ("play", "reveal") and made.start is None):
        return None  # no step for the trigger it was given
    return made


def effect_kinds(ruleset: CompiledRuleset) -> tuple[str, ...]:
    """Per card type, the kind of its effect ("" for none; the last one a card has, as
    ``Game.effect_of``)."""
    kinds = [""] * ruleset.catalogue.size
    for e in ruleset.effects:
        kinds[e.card] = e.kind
    return tuple(kinds)


class _Probe:
    """A writer that keeps nothing: for asking an effect whether it has a part."""

    def __init__(self, ruleset: CompiledRuleset) -> None:
        self._ruleset = ruleset
        self.done_action = ruleset.catalogue.size + len(ruleset.catalogue.tags)

    def array(self, values: Any) -> str:
        return "A_"

    def copies(self, card: int) -> int:
        return 1

    @property
    def card_types(self) -> int:
        return self._ruleset.catalogue.size

    @property
    def families(self) -> tuple[str, ...]:
        return self._ruleset.catalogue.tags

    @property
    def effect_kinds(self) -> tuple[str, ...]:
        return effect_kinds(self._ruleset)


def without_part(ruleset: CompiledRuleset) -> list[str]:
    """The kinds of the ruleset's effects that have no kernel part, sorted."""
    w = _Probe(ruleset)
    return sorted({e.kind for e in ruleset.effects if effect_part(e, w) is None})


def blind(ruleset: CompiledRuleset) -> bool:
    """Whether an effect of the ruleset asks decisions the kernel's greedy and value bots
    cannot judge as the reference's do (its part has no ``lookahead``)."""
    w = _Probe(ruleset)
    return _blind([p for e in ruleset.effects if (p := effect_part(e, w)) is not None])


def _blind(parts: list[EffectPart]) -> bool:
    """``blind`` from the effects' parts already written."""
    return any(p.decisions > 0 and not p.lookahead for p in parts)


def growing(ruleset: CompiledRuleset) -> list[str]:
    """The kinds of the ruleset's effects whose parts may leave a table longer than a
    hand and two cards (``EffectPart.grows``), sorted."""
    w = _Probe(ruleset)
    return sorted({e.kind for e in ruleset.effects if (p := effect_part(e, w)) is not None and p.grows})


def turns_cards(ruleset: CompiledRuleset) -> bool:
    """Whether an effect of the ruleset turns table cards face down (its part ``turns``)."""
    w = _Probe(ruleset)
    return any(p.turns for e in ruleset.effects if (p := effect_part(e, w)) is not None)


def _declines(effects: Any, card: int) -> int:
    """1 if the last effect of ``card`` is one a look-ahead bot declines."""
    last = [e for e in effects if e.card == card][-1]
    return 1 if getattr(last, "bots_decline", False) else 0


def _families(ruleset: CompiledRuleset) -> list[int]:
    """Per family a decision may name (``Game.families``), per card type, 1 if the card
    is of it (flat; one row of zeros without families)."""
    cards = ruleset.catalogue.cards
    rows = [[1 if f in c.tags else 0 for c in cards] for f in ruleset.catalogue.tags] or [[0] * len(cards)]
    return [x for row in rows for x in row]


def _function(name: str, args: str, body: str | None, default: str) -> str:
    lines = (body or default).rstrip("\n").splitlines() or [default]
    text = "".join(f"    {line}\n" for line in lines)
    return f"@njit(cache=True)\ndef {name}({args}):\n    N = fx.lens.shape[0]\n{text}"


def effects_source(ruleset: CompiledRuleset, w: EffectKernelWriter, hand_size: int) -> tuple[list[str], list[str]]:
    """(constants, functions) of the effects' part of a kernel; the parts are written
    through ``w`` (its arrays join the module's). ``hand_size``: the largest hand."""
    effects = ruleset.effects
    K = ruleset.catalogue.size
    parts: list[EffectPart] = []
    for e in effects:
        part = effect_part(e, w)
        if part is None:  # refusal() names it first
            raise ValueError(f"the card effect '{e.kind}' has no kernel part")
        parts.append(part)
    play = [-1] * K
    for i, e in enumerate(effects):
        if e.when == "play":
            play[e.card] = i
    reveal = [i for i, e in enumerate(effects) if e.when == "reveal"]
    per_turn_decisions = sum(p.decisions for p in parts)
    per_turn_placements = sum(p.placements for p in parts)
    # a copy may become any card with an effect: room for its copies acting as the most asking one
    copying = sum(w.copies(e.card) for e, p in zip(effects, parts) if p.copies)
    if copying:
        per_copy = [(p, max(1, w.copies(e.card))) for e, p in zip(effects, parts)]
        per_turn_decisions += copying * max(-(-p.decisions // n) for p, n in per_copy)
        per_turn_placements += copying * max(-(-p.placements // n) for p, n in per_copy)
    turns = ruleset.rounds * (hand_size + 1)
    # the rules that pair cards read the cards turned face down (effects.tmpl _fx_scored)
    turned = any(p.turns for p in parts) and any(rule.holds_cards for rule in ruleset.rules)
    constants = [
        f"EFFECTS = {bool(effects)}",
        f"DONE = {w.done_action}",
        f"FX_ORDER = np.array({[e.order for e in effects] or [0]}, dtype=np.int64)",
        f"FX_CARD = np.array({[e.card for e in effects] or [0]}, dtype=np.int64)",
        f"PLAY_FX = np.array({play}, dtype=np.int64)  # per card, the number of its play effect (-1: none)",
        f"REVEAL_FX = np.array({reveal or [0]}, dtype=np.int64)",
        f"NREVEAL = {len(reveal)}",
        f"FX_BLIND = {_blind(parts)}",
        f"TURNS = {turned}  # a card turned face down is read by a rule that pairs cards",
        f"MAXD = {max(1, per_turn_decisions * turns)}  # decisions a game can hold",
        f"MAXP = {max(1, per_turn_placements * turns)}  # placements by effects a game can hold",
        f"WORLD_SEED = {WORLD_SEED}  # the seed of the world a bot's look re-deals (engine.view)",
        # per effect, whether the planner's look-ahead declines its decisions (the bots_decline of
        # the last effect of its card, as Game.effect_of); per family a decision may name, its cards
        f"FX_DECLINE = np.array({[_declines(effects, e.card) for e in effects] or [0]}, dtype=np.int64)",
        f"FAMC = np.array({_families(ruleset)}, dtype=np.int64).reshape(({max(1, len(ruleset.catalogue.tags))}, {K}))",
    ]
    if not effects:
        return constants, [(HERE / "no_effects.tmpl").read_text(encoding="utf-8")]
    functions = []
    start = ["@njit(cache=True)", "def _fx_start(fx, e, s):"]
    decide = ["@njit(cache=True)", "def _fx_decide(fx, e, s, a):"]
    turn_end = ["@njit(cache=True)", "def _fx_turn_end(fx):"]
    for i, (e, part) in enumerate(zip(effects, parts)):
        if part.start is not None:
            functions.append(_function(f"fx{i}_start", "fx, s", part.start, "return 0"))
            start += [f"    if e == {i}:", f"        return fx{i}_start(fx, s)"]
        if part.decide is not None:
            functions.append(_function(f"fx{i}_decide", "fx, s, a", part.decide, "return"))
            decide += [f"    if e == {i}:", f"        fx{i}_decide(fx, s, a)"]
        if part.turn_end is not None and e.when == "turn_end":
            functions.append(_function(f"fx{i}_turn_end", "fx", part.turn_end, "return"))
            turn_end.append(f"    fx{i}_turn_end(fx)")
    start.append("    return 0")
    decide.append("    return")
    turn_end.append("    return")
    functions += ["\n".join(start) + "\n", "\n".join(decide) + "\n", "\n".join(turn_end) + "\n"]
    functions += _turns((HERE / "effects.tmpl").read_text(encoding="utf-8"))
    functions.append((HERE / "planner_effects.tmpl").read_text(encoding="utf-8"))
    if _blind(parts):
        functions.append(_BLIND)
    return constants, functions


#: the planner's branch of a bot dispatch (its own line, then its call): in the game
#: loop and the batch's bots (``elif bot == ...``, kernel.codegen) and a turn's decisions
#: (``elif bots[s] == ...``), each written once with it and once without
PLANNER_BRANCH = re.compile(r"\n( +)elif bots?(?:\[s\])? == BOT_PLANNER:[^\n]*\n\1    [^\n]*")
_TURN = "@njit(cache=True)\ndef _fx_turn(fx, lk, picks, bots, streams, sb, t, pos, dlen):"


def _turns(text: str) -> list[str]:
    """``effects.tmpl`` with a turn's resolution twice, as the game loop
    (``codegen._game_loops``): ``_fx_turn`` without the planner's branch, for ``play``,
    and ``_fx_turn_planner``, taking the planner's inputs (``values``), for
    ``play_planner``; so a module compiles the planner's look-ahead only when a planner
    plays."""
    head, sep, rest = text.partition(_TURN)
    turn, sep2, tail = rest.partition("\n\n\n@njit")
    if not sep or not sep2 or not PLANNER_BRANCH.search(turn):
        raise AssertionError(
            "effects.tmpl: a turn's resolution or its planner branch is not where kernel.effects looks"
        )
    planner = _TURN.replace("_fx_turn(", "_fx_turn_planner(").replace("dlen):", "dlen, values):")
    return [head + sep + PLANNER_BRANCH.sub("", turn, count=1), planner + turn, "@njit" + tail]


#: where greedy, value and the planner are refused (FX_BLIND), the look at a decision is
#: never taken: these take the place of effects.tmpl's and planner_effects.tmpl's (numba
#: looks a name up when it compiles its caller, so the later definition is the one
#: compiled), and the module compiles none of the look's machinery (about a quarter of
#: such a module's compile)
_BLIND = """
@njit(cache=True)
def _look_new(fx, deck, rpos, kcounts, kseq, klens, totals, prog):
    return 0


@njit(cache=True)
def _look_choose(fx, lk, e, s, no, streams, st, t, pos, dlen):
    return fx.opts[0]  # not reached: only random and first decide here


@njit(cache=True)
def _plan_fx_pick(fx, lk, seat, r, t, pos, dlen, values, streams, t0, work, picks):
    return  # not reached: the planner is refused here (kernel.decision_refusal)


@njit(cache=True)
def _plan_fx_decide(fx, lk, e, s, no, values, streams, t0, t, last):
    return fx.opts[0]  # not reached, as _plan_fx_pick


@njit(cache=True)
def _rollout_fx(buf, values, out):
    return  # not reached: ismcts's roll-outs play on the reference engine here (play.ismcts)
"""
