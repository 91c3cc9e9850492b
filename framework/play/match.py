"""A match: what a run plays -- a ruleset, its players, a bot per seat, a seed --
checked once where it comes in (the command line, the Python API) and passed down.

:meth:`Match.build` is the one place the seed, the player count and the bots are
checked; what runs the games (:func:`ruledraft.play.runner.simulate_match`, the lab)
takes the match as it is, with its :class:`~ruledraft.engine.state.Game` built once.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import attrs

from ruledraft.engine.state import MAX_SEED, Game
from ruledraft.errors import ArgumentError, InputError
from ruledraft.language.ruleset import CompiledRuleset
from ruledraft.play.agents import agent_names, parse_bot


def check_seed(seed: int, name: str = "the seed", error: type[Exception] = InputError) -> None:
    """``error`` unless ``seed`` is within ``0..MAX_SEED`` (``name``: how the message
    names it, an option such as ``--seed`` on the command line)."""
    if not 0 <= seed <= MAX_SEED:
        raise error(f"{name} must be a whole number from 0 to {MAX_SEED}, not {seed}")


#: the number of players when none is given, if the ruleset takes it
USUAL_PLAYERS = 4


def usual_players(ruleset: CompiledRuleset, players: int | None = None) -> int:
    """``players`` as given; None: :data:`USUAL_PLAYERS` or the nearest count ``ruleset``
    takes (a two-player game plays two)."""
    if players is not None:
        return players
    return min(max(USUAL_PLAYERS, ruleset.min_players), ruleset.max_players)


def check_players(ruleset: CompiledRuleset, players: int, name: str | None = None) -> None:
    """:class:`InputError` unless the ruleset takes ``players`` players (``name``: how
    the message names the ruleset, its name by default)."""
    if not ruleset.min_players <= players <= ruleset.max_players:
        raise InputError(f"{ruleset.name if name is None else name} is for {ruleset.player_range}, not {players}")


def fill_seats(
    bots: str | Sequence[Any],
    players: int,
    card_ids: Sequence[str] | None = None,
    *,
    option: str = "bots",
    first_seat: int = 0,
) -> list:
    """One bot per seat from the bots named, as ``--bots`` takes them: ``greedy,random``
    (or a list), the last filling the seats left. Each spec is checked now
    (:class:`~ruledraft.play.agents.BotSpecError` if unusable; with the ruleset's
    ``card_ids``, card values too); an entry that is not text (an agent) is kept as
    it is. :class:`InputError` for no bot, or more bots than ``players``; ``option``
    is how the messages name the setting. ``first_seat``: the table's seat of the
    first bot, where people take the seats before it (``players`` are then the bots'
    seats alone), as the messages number the seats."""
    if isinstance(bots, (bytes, bytearray)) or not isinstance(bots, (str, Sequence)):
        raise ArgumentError(f"{option} are bot specs such as 'greedy,random' or a list of them, not {bots!r}")
    entries = [n.strip() for n in bots.split(",")] if isinstance(bots, str) else list(bots)
    if all(isinstance(e, str) and not e for e in entries):
        raise InputError(f"{option} needs at least one bot name; known: " + ", ".join(agent_names()))
    for n, entry in enumerate(entries):
        if not isinstance(entry, str) and not callable(getattr(entry, "act", None)):
            raise ArgumentError(f"{option}[{n}] is a bot spec or an agent with act(view, seat), not {entry!r}")
    if "" in entries:  # 'random,,greedy': a seat left out would shift the others
        seat = first_seat + entries.index("")
        raise InputError(f"{option} has an empty entry (seat {seat}): name a bot for every seat listed")
    for entry in entries:
        if isinstance(entry, str):
            parse_bot(entry, card_ids)
    if len(entries) > players and first_seat:
        last = first_seat + players - 1
        bots_at = f"seat {last}" if players == 1 else f"seats {first_seat}-{last}"
        people_at = "seat 0 is a person's" if first_seat == 1 else f"seats 0-{first_seat - 1} are people's"
        raise InputError(
            f"{option} names {len(entries)} bots for {players} bot seat{'s' if players != 1 else ''}"
            f" ({bots_at}; {people_at})"
        )
    if len(entries) > players:
        raise InputError(f"{option} names {len(entries)} bots for {players} player{'s' if players != 1 else ''}")
    return entries + [entries[-1]] * (players - len(entries))


@attrs.frozen
class Match:
    """A ruleset played by ``players`` players with a bot spec per seat from ``seed``;
    ``document`` is the ruleset's checked document (what other processes and
    machines compile), ``game`` the table, built once."""

    ruleset: CompiledRuleset = attrs.field(eq=False)
    players: int
    bots: tuple[str, ...]
    seed: int
    document: Any = attrs.field(default=None, eq=False, repr=False)
    game: Game = attrs.field(default=None, eq=False, repr=False)

    @classmethod
    def build(
        cls,
        ruleset: CompiledRuleset,
        players: int,
        bots: str | Sequence[str],
        seed: int,
        *,
        document: Any = None,
        names: tuple[str, str, str | None] = ("the seed", "bots", None),
        seed_error: type[Exception] = InputError,
    ) -> Match:
        """The match, checked: the seed (``seed_error`` if out of range), the player
        count, then every bot spec (loaded, its options and card values checked).
        ``names``: how messages name the seed, the bots and the ruleset (``("--seed",
        "--bots", None)`` on the command line)."""
        seed_name, bots_name, ruleset_name = names
        check_seed(seed, seed_name, seed_error)
        check_players(ruleset, players, ruleset_name)
        seats = fill_seats(bots, players, ruleset.catalogue.ids, option=bots_name)
        if not all(isinstance(s, str) for s in seats):
            raise TypeError("simulate takes bot specs (text), not agent objects: register the bot or name its class")
        return cls(ruleset, players, tuple(seats), seed, document, Game(ruleset, players))

    @classmethod
    def trusted(
        cls, ruleset: CompiledRuleset, players: int, bots: Sequence[str], seed: int, document: Any = None
    ) -> Match:
        """A match of values already checked (bots one per seat)."""
        return cls(ruleset, players, tuple(bots), seed, document, Game(ruleset, players))


def game_of(ruleset: str | os.PathLike[str] | CompiledRuleset | Game, players: int | None) -> Game:
    """The game an environment or adapter is given: a bundled id or a rule file (loaded),
    a compiled ruleset, or a :class:`Game` (whose players ``players`` must match), at
    ``players`` players (the ruleset's fewest if None)."""
    if isinstance(ruleset, Game):
        if players is not None and players != ruleset.num_players:
            raise InputError(f"the game is for {ruleset.num_players} players, not {players}")
        return ruleset
    if not isinstance(ruleset, CompiledRuleset):
        if not isinstance(ruleset, (str, os.PathLike)):
            raise ArgumentError(
                f"a ruleset is a bundled id, a rule file's path, a compiled ruleset or a Game, not {ruleset!r}"
            )
        from ruledraft.language.loading import load_ruleset

        ruleset = load_ruleset(ruleset)
    return Game(ruleset, players if players is not None else ruleset.min_players)
