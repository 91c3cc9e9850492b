"""Which card goes onto which: the pairing by play order that ``modifier`` and ``boost`` share.

A holder (wasabi, a sunbeam) takes the targets played after it, ``capacity`` each; a
target goes onto the oldest holder that still has room and that it may go onto:

* with ``same`` (a card attribute, such as ``colour``), only a holder whose value of
  it is the target's; a holder without the attribute (a colourless catalyst) takes
  the value of the first target it takes, and then only targets of that value; a
  target without the attribute goes onto no holder;
* a card turned face down (``Tableau.turned``) keeps the pairs made before it was
  turned, and a pair counts only while both its cards are face up; a holder turned
  before a target was played never took it;
* an echo (``Tableau.echoes``: an extra copy of the card before it, left by a boost)
  rides with its card: it goes onto the same holder without taking room.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Literal

import attrs

from ruledraft.language.kinds.context import RuleContext
from ruledraft.language.rule import KernelWriter
from ruledraft.language.suggest import did_you_mean


@attrs.frozen
class Pairing:
    """What :func:`pair` found on one seat's table."""

    #: (holder position, target position) of every pair that counts, echoes included
    pairs: tuple[tuple[int, int], ...]
    #: per holder on the table (face up when played), in play order: its room left
    rooms: tuple[int, ...]


def pair(
    seq: Sequence[int],
    holders: Collection[int],
    targets: Collection[int],
    capacity: int,
    *,
    turned: Mapping[int, tuple[int, int]] | None = None,
    echoes: Collection[int] | None = None,
    colour: Sequence[int | None] | None = None,
) -> Pairing:
    """Pair one seat's cards ``seq`` (in play order); ``colour``: per card index, its
    value of the ``same`` attribute (None: the card has none), or None without ``same``."""
    never = len(seq) + 1
    # per holder: [room, table length when turned (never), its colour, its position]
    rooms: list[list[int | None]] = []
    out: list[tuple[int, int]] = []
    riding: int | None = None  # the holder the last card went onto (for its echoes)
    for q, c in enumerate(seq):
        if echoes and q in echoes:
            if riding is not None:
                out.append((riding, q))
            continue
        riding = None
        was = turned.get(q) if turned else None
        face = c if was is None else was[0]
        if face in holders:
            rooms.append([capacity, never if was is None else was[1], None if colour is None else colour[face], q])
        elif face in targets:
            mine = None if colour is None else colour[face]
            if colour is not None and mine is None:
                continue
            for r in rooms:
                room, stamp, col, at = r
                assert room is not None and stamp is not None and at is not None
                if not room or stamp <= q:
                    continue
                if colour is not None and col is not None and col != mine:
                    continue
                r[0] = room - 1
                if colour is not None:
                    r[2] = mine
                if was is None and stamp == never:
                    out.append((at, q))
                    riding = at
                break
    return Pairing(tuple(out), tuple(int(r[0] or 0) for r in rooms if r[1] == never))


def holders_of(spec: Mapping[str, object], ctx: RuleContext) -> tuple[int, ...] | None:
    """The holder cards ``card:`` names: one card id (as the first version read it), or
    a selector of several."""
    chosen = spec["card"]
    if isinstance(chosen, str):
        one = ctx.card(("card",), chosen)
        return None if one is None else (one,)
    return ctx.cards(("card",), chosen)


def with_article(name: str) -> str:
    """``a Wasabi``, ``an Oven``: a card's name after its indefinite article."""
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def targets_besides(
    spec: Mapping[str, object], ctx: RuleContext, holders: Sequence[int], selected: Sequence[int], what: str
) -> tuple[int, ...] | None:
    """The cards of ``targets:`` that are not holders (a card never goes onto itself),
    or None after recording that none is left: such a rule would never score."""
    targets = tuple(i for i in selected if i not in holders)
    if not targets:
        ctx.error(
            ("targets",),
            f"'targets' names only cards that are {what} cards themselves: {ctx.words(spec['targets'])}; a card "
            "never goes onto itself, so this rule would never score (name other cards as its targets)",
        )
        return None
    return targets


def same_colour(
    spec: Mapping[str, object], ctx: RuleContext, targets: Sequence[int]
) -> tuple[int | None, ...] | None | Literal[False]:
    """Per card index, its value of the ``same:`` attribute (None where it has none);
    None without ``same``; False after recording that it is wrong."""
    name = spec.get("same")
    if name is None:
        return None
    assert isinstance(name, str)
    cat = ctx.catalogue
    if not cat.has_attribute(name):
        ctx.error(("same",), f"no card has the attribute '{name}'{did_you_mean(name, cat.attribute_names)}")
        return False
    if not any(name in cat.cards[i].attributes for i in targets):
        ctx.error(("same",), f"no target has the attribute '{name}': every target would go onto no card")
        return False
    return tuple(c.attributes.get(name) for c in cat.cards)


def same_words(name: str, attribute: str | None) -> str:
    """How ``same`` reads in ``show`` (empty without it)."""
    if attribute is None:
        return ""
    return (
        f" A card goes only onto a {name} of its own {attribute}; a {name} without a {attribute} takes the "
        f"{attribute} of the first card it takes, and then only cards of that {attribute}."
    )


def kernel_pairing(
    w: KernelWriter,
    holders: Collection[int],
    targets: Collection[int],
    capacity: int,
    colour: Sequence[int | None] | None,
    size: int,
) -> str:
    """:func:`pair` as a kernel helper: a function ``(seq, n, s, N, echo, paired)`` that
    sets ``paired[q]`` to the position of the holder card ``q`` of seat ``s``'s first ``n``
    cards goes onto (echoes included) while both are face up, else -1; ``echo[q]`` is 1
    where card ``q`` is an echo; ``N`` is the number of seats, and a ``seq`` of more than
    ``2 * N`` rows carries the cards turned face down (the face before and the stamp, see
    :class:`~ruledraft.language.rule.KernelWriter`). ``size``: the number of card types."""
    hold = w.array([1 if c in holders else 0 for c in range(size)])
    targ = w.array([1 if c in targets else 0 for c in range(size)])
    body = [
        "room = np.zeros(max(n, 1), np.int64)",
        "at = np.zeros(max(n, 1), np.int64)",
        "col = np.zeros(max(n, 1), np.int64)",
        "has = np.zeros(max(n, 1), np.int64)",
        "stamp = np.zeros(max(n, 1), np.int64)",
        "never = n + 1",
        "turned = seq.shape[0] > 2 * N",
        "nr = 0",
        "riding = -1",
        "for q in range(n):",
        "    c = seq[s, q]",
        "    paired[q] = -1",
        "    if echo[q]:",
        "        paired[q] = riding",
        "        continue",
        "    riding = -1",
        "    was = seq[2 * N + s, q] - 1 if turned else -1",
        "    face = c if was < 0 else was",
        f"    if {hold}[face]:",
        f"        room[nr] = {capacity}",
        "        at[nr] = q",
        "        stamp[nr] = never if was < 0 else seq[3 * N + s, q]",
    ]
    if colour is not None:
        values = w.array([0 if v is None else v for v in colour])
        known = w.array([0 if v is None else 1 for v in colour])
        body += [f"        has[nr] = {known}[face]", f"        col[nr] = {values}[face]"]
    body += ["        nr += 1", f"    elif {targ}[face]:"]
    if colour is not None:
        body += [f"        if not {known}[face]:", "            continue", f"        mine = {values}[face]"]
    body += [
        "        for r in range(nr):",
        "            if room[r] == 0 or stamp[r] <= q:",
        "                continue",
    ]
    if colour is not None:
        body += ["            if has[r] and col[r] != mine:", "                continue"]
        body += ["            col[r] = mine", "            has[r] = 1"]
    body += [
        "            room[r] -= 1",
        "            if was < 0 and stamp[r] == never:",
        "                paired[q] = at[r]",
        "                riding = at[r]",
        "            break",
    ]
    return w.function("seq, n, s, N, echo, paired", body)


def kernel_echoes(n_rows: str = "N") -> list[str]:
    """Kernel lines setting ``echo[:lens[s]]`` for seat ``s`` from a boosted ``seq`` (all 0
    on a table as played): indented for a loop over ``s``."""
    return [
        f"    if seq.shape[0] > {n_rows}:",
        "        for q in range(lens[s]):",
        f"            echo[q] = seq[{n_rows} + s, q]",
        "    else:",
        "        for q in range(lens[s]):",
        "            echo[q] = 0",
    ]
