"""Plain words for a compiled ruleset, generated from the data (``ruledraft show``)."""

from __future__ import annotations

from ruledraft.errors import display_columns
from ruledraft.language.catalogue import NO_COLOUR, player_span
from ruledraft.language.ruleset import DIRECTION_NAMES, CompiledRuleset, RoundAddition


def _players_list(counts: list[int]) -> str:
    """``[2, 3]`` -> ``2-3 players``, ``[4]`` -> ``4 players``, ``[1]`` -> ``1 player``,
    ``[2, 4, 6]`` -> ``2, 4 or 6 players``."""
    if counts == list(range(counts[0], counts[-1] + 1)):
        return player_span(counts[0], counts[-1])
    return f"{', '.join(map(str, counts[:-1]))} or {counts[-1]} players"


def describe_ruleset(rs: CompiledRuleset) -> str:
    """The rules of a ruleset as a person would read them: its heading, then a
    section for each part of the game, each written by a function of its own."""
    sections = (_heading, _cards, _flow, _actions, _effects, _scoring, _winner)
    out = [line for section in sections for line in section(rs)]
    return "\n".join(out).rstrip() + "\n"


def _heading(rs: CompiledRuleset) -> list[str]:
    title = f"{rs.name} ({rs.id}{' ' + rs.version if rs.version else ''})"
    out = [title, "=" * display_columns(title)]
    if rs.extends:
        out.append(f"Extends: {rs.extends}")
    if rs.description:
        out += [rs.description, ""]
    seats = f"{rs.min_players}-{rs.max_players}" if rs.min_players != rs.max_players else str(rs.min_players)
    out.append(f"Players: {seats}")
    if rs.menu:
        out.append("Menu: " + _menu_words(rs))
    out.append("")
    return out


def _cards(rs: CompiledRuleset) -> list[str]:
    cat = rs.catalogue
    deck = sum(c.count for c in cat.cards)
    out = [f"Cards ({deck} in the deck)"]
    width = max(display_columns(c.name) for c in cat.cards)
    for c in cat.cards:
        extras = []
        if c.tags:
            extras.append("tags: " + ", ".join(sorted(c.tags)))
        if c.attributes:
            extras.append(", ".join(f"{k} {v}" for k, v in sorted(c.attributes.items())))
        if c.keep == "game":
            extras.append("kept until the end of the game")
        if c.players is not None:
            extras.append(f"only with {c.players_words}")
        name = c.name + " " * (width - display_columns(c.name))  # wide characters take two columns
        line = f"  {c.count:>4} x {name}  " + ("no colour" if c.group == NO_COLOUR else f"colour: {c.group}")
        if extras:
            line += "; " + "; ".join(extras)
        out.append(line)
    out.append("")
    return out


def _flow(rs: CompiledRuleset) -> list[str]:
    """Set-up and flow: the deal, rounds, passing, additions, the deck between rounds, turns."""
    out = ["Set-up and flow"]
    by_size: dict[int, list[int]] = {}
    for n in rs.player_counts:
        by_size.setdefault(rs.hand_sizes[n], []).append(n)
    deal = "; ".join(f"{size} cards each with {_players_list(ns)}" for size, ns in by_size.items())
    if rs.dummy:
        out.append(f"  Deal {deal}, and as many to each of {rs.dummy.seats} dummy seat(s).")
    else:
        out.append(f"  Deal {deal}.")
    out.append(f"  {rs.rounds} round{'s' if rs.rounds != 1 else ''}.")
    out.append("  " + _passing_words(rs))
    for addition in rs.additions:
        out.append("  " + _addition_words(rs, addition))
    if rs.between_rounds == "keep_deck":
        out.append("  The deck is not reshuffled between rounds; cards left at the end are not used.")
    else:
        out.append("  Between rounds every card that is not kept is shuffled back into the deck.")
    kept = [c.name for c in rs.catalogue.cards if c.keep == "game"]
    if kept:
        out.append(f"  Played cards are discarded after each round, except {', '.join(kept)}, kept until game end.")
    out += _turn_words(rs)
    out.append("")
    return out


def _passing_words(rs: CompiledRuleset) -> str:
    if rs.pass_patterns:
        return _pattern_words(rs.pass_patterns)
    dirs = [DIRECTION_NAMES[d] for d in rs.pass_directions]
    if len(set(dirs)) == 1:
        return f"Hands pass {dirs[0]} every round" + (" (seat i hands to seat i+1)." if dirs[0] == "left" else ".")
    return "Hands pass " + ", ".join(f"{d} in round {i + 1}" for i, d in enumerate(dirs)) + "."


def _turn_words(rs: CompiledRuleset) -> list[str]:
    if rs.procedure == "standard":
        return [
            "  Each turn every player picks a card at the same time, all reveal, and hands pass on.",
            "  A last single card is played automatically.",
        ]
    if not rs.dummy:
        return []
    d = rs.dummy
    ctrl = ", ".join(f"seat {c} in round {i + 1}" for i, c in enumerate(d.first_controller))
    return [
        f"  The dummy's hand is a face-down pile. Each turn the player controlling the dummy draws {d.draw} "
        f"card(s) from it, then picks one card for themself and one for the dummy; the other player picks as usual.",
        f"  Control of the dummy alternates every turn, starting with {ctrl}.",
        "  The dummy scores as a seat of its own" + (" and can win." if d.can_win else " but can never win."),
        "  Wherever scoring depends on the number of players, the dummy counts as one "
        f"(this game is scored as a {rs.min_players + d.seats}-player game).",
    ]


def _actions(rs: CompiledRuleset) -> list[str]:
    if not rs.actions:
        return []
    out = ["Special actions"]
    for a in rs.actions:
        name = rs.catalogue.cards[a.card].name
        extra = "one more card" if a.extra == 1 else f"up to {a.extra} more cards"
        out.append(
            f"  {a.id}: with a {name} played on an earlier turn, take {extra} from your hand "
            f"this turn, in the order you choose; then the {name} goes back into your hand and "
            f"is passed on. At most one per turn."
        )
        if a.description:
            out.append(f"    {a.description}")
    out.append("")
    return out


def _effects(rs: CompiledRuleset) -> list[str]:
    if not rs.effects:
        return []
    return ["Card effects", *(f"  {e.describe()}" for e in rs.effects), ""]


def _scoring(rs: CompiledRuleset) -> list[str]:
    out: list[str] = []
    notes = dict(rs.rule_notes)
    for label, rules in (
        ("Scoring at the end of each round", rs.round_rules),
        ("Scoring at the end of the game", rs.game_rules),
    ):
        if not rules:
            continue
        out.append(label)
        for r in rules:
            note = notes.get(r.id)
            # a rule's own description says it in words; the generated line stays for the detail
            out.append(f"  {r.id}: {note}" if note else f"  {r.id}: {r.describe()}")
            if note:
                out.append(f"    ({r.describe()})")
        out.append("")
    return out


def _winner(rs: CompiledRuleset) -> list[str]:
    chain = ["most points"]
    for tb in rs.tie_breaks:
        chain.append(f"the {'highest' if tb.most else 'lowest'} {tb.quantity.bare_words}")
    text = "  " + ", then ".join(chain) + "."
    text += " Players still tied share the win." if rs.shared_win else " Players still tied all lose."
    return ["Winner", text]


def _one_pattern(pattern: tuple[int, ...]) -> str:
    names = [DIRECTION_NAMES[d] for d in pattern]
    if len(set(names)) == 1:
        return f"{names[0]} after every turn"
    return "turn by turn " + ", ".join(names) + " (then again from the start)"


def _pattern_words(patterns: tuple[tuple[int, ...], ...]) -> str:
    """How hands pass when some round changes direction from turn to turn."""
    if len(set(patterns)) == 1:
        return f"Hands pass {_one_pattern(patterns[0])}, every round."
    return "Hands pass " + "; ".join(f"in round {i + 1}: {_one_pattern(p)}" for i, p in enumerate(patterns)) + "."


def _addition_words(rs: CompiledRuleset, addition: RoundAddition) -> str:
    """``Held out of the deck at the start: Pudding (15); before rounds 1, 2, 3 shuffle in 5, 3, 2 of them with 2-5 players; ...``."""
    cat = rs.catalogue
    held = ", ".join(f"{cat.cards[c].name} ({cat.cards[c].count})" for c in addition.cards)
    by_schedule: dict[tuple[int, ...], list[int]] = {}
    for n in rs.player_counts:
        by_schedule.setdefault(addition.counts[n], []).append(n)
    rounds = ", ".join(str(r + 1) for r in range(rs.rounds))
    parts = [f"{', '.join(map(str, numbers))} of them with {_players_list(ns)}" for numbers, ns in by_schedule.items()]
    return f"Held out of the deck at the start: {held}; before rounds {rounds} shuffle in " + "; ".join(parts) + "."


def _menu_words(rs: CompiledRuleset) -> str:
    """``Nigiri always; roll: Maki; appetizers: Tempura, Sashimi, Eel; ...`` (dishes of a card library)."""
    from ruledraft.language.menu import dish_words

    parts = []
    for course in rs.menu:
        dishes = ", ".join(dish_words(d) for d in course.dishes)
        if course.always:
            parts.append(f"{dishes} always")
        elif course.dishes:
            parts.append(f"{course.name}{'s' if len(course.dishes) > 1 else ''}: {dishes}")
    return (
        "; ".join(parts) + f" (the dishes chosen from {rs.extends}'s courses)."
        if rs.extends
        else "; ".join(parts) + "."
    )
