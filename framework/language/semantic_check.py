"""Semantic checks: what JSON Schema cannot see.

Runs on a document that passed the schema check. Every check adds located
diagnostics to one list, so a user sees all problems at once:

* card ids, rule ids and action ids are unique;
* every card, tag, colour group and attribute a rule names exists ("did you mean ...?");
* each player count has a hand size and the deck is big enough for the deals;
* every expression parses and names only things that exist;
* sizes stay within limits (a deck of a billion cards is refused).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs

from ruledraft.errors import Diagnostic, RulesetError
from ruledraft.language.catalogue import Catalogue
from ruledraft.language.compiler import build_catalogue, expand_player_keys, expression_compiler
from ruledraft.language.suggest import did_you_mean

#: the largest deck ruledraft will deal from
MAX_DECK = 10_000
#: the most expression steps one scoring may take (a few tens of milliseconds)
MAX_SCORING_STEPS = 200_000
#: the most steps a bot may need to choose the cards of one hand (see
#: ``check_decision_work``): about a second of work; the bundled rulesets need under 1% of it
MAX_DECISION_STEPS = 20_000_000


class _Checker:
    def __init__(self, doc):
        self.doc = doc
        self.data: Mapping[str, Any] = doc.data
        self.out: list[Diagnostic] = []
        self.catalogue: Catalogue = build_catalogue(self.data.get("cards") or [])
        #: every expression compiled, with its place, for the cost check
        self.expressions: list[tuple] = []

    def error(self, path: tuple, message: str, *, key: bool = False) -> None:
        self.out.append(self.doc.diagnostic(path, message, key=key))

    # ------------------------------------------------------------------ names

    def check_card(self, path: tuple, card_id: str) -> bool:
        if self.catalogue.has_card(card_id):
            return True
        removed = getattr(self.doc, "removed", {}).get(("cards", card_id))
        if removed is not None:
            self.error(
                path, f"card '{card_id}' is used here but was removed (remove: cards, {removed[0]}:{removed[1]})"
            )
        else:
            self.error(path, f"unknown card '{card_id}'{did_you_mean(card_id, self.catalogue.ids)}")
        return False

    def in_child(self, *paths: tuple) -> tuple:
        """Of several places a problem could be shown, the first written in the file
        being checked (for a ruleset that extends another), else the first."""
        child = getattr(self.doc, "child", None)
        if child is not None:
            for p in paths:
                if self.doc.file_of(p) == child.file:
                    return p
        return paths[0]

    def check_selector(self, path: tuple, spec) -> None:
        cat = self.catalogue
        if isinstance(spec, str):
            self.check_card(path, spec)
        elif isinstance(spec, list):
            for i, card_id in enumerate(spec):
                self.check_card(path + (i,), card_id)
        elif isinstance(spec, dict):
            if "tag" in spec and not cat.has_tag(spec["tag"]):
                self.error(path + ("tag",), f"no card has the tag '{spec['tag']}'{did_you_mean(spec['tag'], cat.tags)}")
            if "group" in spec and not cat.has_group(spec["group"]):
                self.error(
                    path + ("group",),
                    f"no card is in the colour group '{spec['group']}'{did_you_mean(spec['group'], cat.groups)}",
                )
            for i, card_id in enumerate(spec.get("cards") or []):
                self.check_card(path + ("cards", i), card_id)

    def check_attribute(self, path: tuple, name: str) -> None:
        if not self.catalogue.has_attribute(name):
            known = self.catalogue.attribute_names
            hint = did_you_mean(name, known) or (
                f"; cards have {', '.join(known)}" if known else "; no card has attributes"
            )
            self.error(path, f"no card has the attribute '{name}'{hint}")

    def check_expression(self, path: tuple, text: str, boolean: bool = False) -> None:
        compile_expr = expression_compiler(self.doc, self.catalogue, path)
        try:
            compiled = compile_expr((), text, boolean=boolean)
            self.expressions.append((path, compiled))
        except RulesetError as e:
            removed = getattr(self.doc, "removed", {})
            for d in e.diagnostics:
                m = re.match(r"unknown card '([^']+)'", d.message)
                gone = removed.get(("cards", m.group(1))) if m else None
                if gone is not None:
                    d = attrs.evolve(
                        d,
                        message=f"card '{m.group(1)}' is used here but was removed (remove: cards, {gone[0]}:{gone[1]})",
                    )
                self.out.append(d)

    def check_quantity(self, path: tuple, spec, boolean: bool = False) -> None:
        if isinstance(spec, str):
            self.check_expression(path, spec, boolean)
        elif isinstance(spec, dict):
            if "expr" in spec:
                self.check_expression(path + ("expr",), spec["expr"], boolean)
            if "count" in spec:
                self.check_selector(path + ("count",), spec["count"])
            if "sum" in spec:
                self.check_attribute(path + ("sum",), spec["sum"])
            if "of" in spec:
                self.check_selector(path + ("of",), spec["of"])

    def check_unique(self, items: list, what: str, section: str) -> None:
        seen: dict[str, int] = {}
        for i, item in enumerate(items):
            ident = item.get("id") if isinstance(item, dict) else None
            if not isinstance(ident, str):
                continue
            if ident in seen:
                first = self.doc.locate((section, seen[ident], "id"))[0]
                self.error((section, i, "id"), f"duplicate {what} id '{ident}' (first at line {first})")
            else:
                seen[ident] = i

    # ------------------------------------------------------------------ sections

    def check_cards(self) -> None:
        cards = self.data.get("cards") or []
        self.check_unique(cards, "card", "cards")
        total = 0
        for i, card in enumerate(cards):
            if "count" not in card:
                self.error(("cards", i), f"card '{card.get('id')}' has no 'count'", key=False)
            total += card.get("count", 0)
        if total > MAX_DECK:
            self.error(("cards",), f"the deck has {total} cards; ruledraft deals from at most {MAX_DECK}", key=True)
        elif cards and total == 0:
            self.error(("cards",), "the deck is empty: every card has count 0", key=True)

    def check_players_and_deal(self) -> None:
        players = self.data.get("players") or {}
        lo, hi = players.get("min"), players.get("max")
        if lo is None or hi is None:
            return
        if lo > hi:
            self.error(("players", "min"), f"players.min ({lo}) is more than players.max ({hi})")
            return
        deal = self.data.get("deal") or {}
        sizes_spec = deal.get("hand_size") or {}
        for key in sizes_spec:
            if "-" in key:
                a, b = key.split("-", 1)
                if int(a) > int(b):
                    self.error(("deal", "hand_size", key), f"player range '{key}' is empty", key=True)
        self.check_player_keys(("deal", "hand_size"), sizes_spec)
        self.check_unused_player_keys(("deal", "hand_size"), sizes_spec, seats=False)
        sizes = expand_player_keys(sizes_spec)
        # hand sizes inherited for player counts outside players.min..max are unused but
        # not wrong: a ruleset that extends another may narrow the player range
        rounds = (self.data.get("rounds") or {}).get("count", 1)
        deck = sum(c.count for c in self.catalogue.cards)
        dummies = self.dummy_seats()
        reshuffle = deal.get("between_rounds") == "reshuffle"
        for n in range(lo, hi + 1):
            if n not in sizes:
                where = self.in_child(("deal", "hand_size"), ("players", "max" if n == hi else "min"))
                self.error(
                    where, f"no hand size for {n} players (the game is for {lo}-{hi} players)", key=where[0] == "deal"
                )
                continue
            seats = n + dummies
            needed = seats * sizes[n] * (1 if reshuffle else rounds)
            if reshuffle and rounds > 1:
                # kept cards leave the deck for good: at worst every one was played earlier
                kept_total = sum(c.count for c in self.catalogue.cards if c.keep == "game")
                needed += min(kept_total, seats * sizes[n] * (rounds - 1))
            extra = ""
            if dummies:
                extra = f" (with {dummies} dummy seat{'s' if dummies > 1 else ''})"
            if needed > deck:
                how = "every round (cards kept to game end leave the deck)" if reshuffle else _n(rounds, "round")
                self.error(
                    ("deal", "hand_size", self.key_for(sizes_spec, n)),
                    f"the deck has {deck} cards, too few to deal {_n(sizes[n], 'card')} to {_n(seats, 'seat')}{extra} for {how} ({needed} needed)",
                )

    @staticmethod
    def key_for(sizes_spec: Mapping[str, Any], n: int) -> str:
        for key in sizes_spec:
            if n in expand_player_keys({key: 0}):
                return key
        return ""

    def check_player_keys(self, path: tuple, mapping: Mapping[str, Any]) -> None:
        """Each player count may be given by one key only (``2`` and ``02``, or ``2`` and
        ``2-3``, would leave it to chance which value wins)."""
        first: dict[int, str] = {}
        for key in mapping:
            for n in expand_player_keys({key: 0}):
                if n in first:
                    self.error(path + (key,), f"{n} players is given twice: by '{first[n]}' and by '{key}'", key=True)
                    break
                first[n] = key

    def check_unused_player_keys(self, path: tuple, mapping: Mapping[str, Any], *, seats: bool) -> None:
        """A key for player counts no game of this ruleset has is an error where it is
        written, and a warning where it is inherited (unless the file that wrote it
        plays those counts: a child may narrow its parent's range).

        ``seats``: the keys count scoring seats (dummy seats included), as majority
        awards do; otherwise players, as hand sizes do.
        """
        possible = self.possible_counts(self.data, seats)
        if possible is None:
            return
        child = getattr(self.doc, "child", None)
        for key in mapping:
            counts = set(expand_player_keys({key: 0}))
            if not counts or counts & possible:
                continue  # used, or an empty range (reported on its own)
            where = path + (key,)
            unit = "seats" if seats and self.dummy_seats() else "players"
            what = ("awards" if seats else "the hand size") + f" for {key} {unit}"
            message = f"{what} can never be used: {self.range_words(possible, seats)}"
            origin = self.doc.origin(where)[0] if child is not None else None
            if origin is None or self.doc.file_of(where) == child.file:
                self.error(where, message, key=True)
            else:
                theirs = self.possible_counts(getattr(origin, "data", None), seats)
                if theirs is None or not counts & theirs:
                    self.warn(where, message + " (inherited through 'extends')", key=True)

    def possible_counts(self, data, seats: bool):
        """The player (or scoring seat) counts a ruleset's ``data`` allows, or None if unknown."""
        players = data.get("players") if isinstance(data, dict) else None
        lo = players.get("min") if isinstance(players, dict) else None
        hi = players.get("max") if isinstance(players, dict) else None
        if not isinstance(lo, int) or not isinstance(hi, int) or lo > hi:
            return None
        extra = 0
        if seats:
            turn = data.get("turn") or {}
            if isinstance(turn, dict) and turn.get("procedure") == "dummy":
                extra = (turn.get("dummy") or {}).get("seats", 1)
        return set(range(lo + extra, hi + extra + 1))

    def range_words(self, possible: set, seats: bool) -> str:
        lo, hi = min(possible), max(possible)
        span = f"{lo}-{hi}" if lo != hi else str(lo)
        dummies = self.dummy_seats() if seats else 0
        if dummies:
            players = f"{lo - dummies}-{hi - dummies}" if lo != hi else str(lo - dummies)
            return f"the game is scored with {span} seats ({players} players and {_n(dummies, 'dummy seat')})"
        return f"the game is for {span} players"

    def dummy_seats(self) -> int:
        turn = self.data.get("turn") or {}
        if turn.get("procedure") != "dummy":
            return 0
        return (turn.get("dummy") or {}).get("seats", 1)

    def check_rounds_and_turn(self) -> None:
        rounds = self.data.get("rounds") or {}
        count = rounds.get("count")
        passes = rounds.get("pass")
        if isinstance(passes, list) and count is not None and len(passes) != count:
            where = self.in_child(("rounds", "pass"), ("rounds", "count"))
            self.error(where, f"'pass' lists {_n(len(passes), 'direction')} for {_n(count, 'round')}")
        turn = self.data.get("turn") or {}
        if turn.get("procedure") == "dummy":
            dummy = turn.get("dummy") or {}
            players = self.data.get("players") or {}
            controllers = dummy.get("first_controller")
            if controllers is not None:
                if count is not None and len(controllers) != count:
                    self.error(
                        ("turn", "dummy", "first_controller"),
                        f"'first_controller' lists {_n(len(controllers), 'seat')} for {_n(count, 'round')}",
                    )
                for i, c in enumerate(controllers):
                    if c >= players.get("min", 0):
                        self.error(
                            ("turn", "dummy", "first_controller", i),
                            f"seat {c} is not a player with {players.get('min')} players",
                        )
        elif "dummy" in turn:
            self.error(("turn", "dummy"), "'dummy' settings need 'procedure: dummy'", key=True)

    def check_actions(self) -> None:
        actions = self.data.get("actions") or []
        self.check_unique(actions, "action", "actions")
        for i, action in enumerate(actions):
            self.check_card(("actions", i, "card"), action["card"])

    def check_scoring(self) -> None:
        rules = self.data.get("scoring") or []
        self.check_unique(rules, "scoring rule", "scoring")
        for i, rule in enumerate(rules):
            path = ("scoring", i)
            kind = rule.get("kind")
            check = getattr(self, f"rule_{kind}", None)
            if check is not None:
                check(path, rule)

    def rule_sets(self, path: tuple, rule: Mapping) -> None:
        self.check_selector(path + ("cards",), rule["cards"])

    def rule_table(self, path: tuple, rule: Mapping) -> None:
        if "cards" in rule:
            self.check_selector(path + ("cards",), rule["cards"])
        if "quantity" in rule:
            self.check_quantity(path + ("quantity",), rule["quantity"])

    def rule_per_card(self, path: tuple, rule: Mapping) -> None:
        self.check_selector(path + ("cards",), rule["cards"])
        if isinstance(rule.get("value"), dict):
            self.check_attribute(path + ("value", "attribute"), rule["value"]["attribute"])

    def rule_modifier(self, path: tuple, rule: Mapping) -> None:
        self.check_card(path + ("card",), rule["card"])
        self.check_selector(path + ("targets",), rule["targets"])
        if isinstance(rule.get("value"), dict):
            self.check_attribute(path + ("value", "attribute"), rule["value"]["attribute"])

    def rule_majority(self, path: tuple, rule: Mapping) -> None:
        self.check_quantity(path + ("quantity",), rule["quantity"])
        for key in ("most", "least"):
            awards = rule.get(key)
            if isinstance(awards, dict) and isinstance(awards.get("players"), dict):
                self.check_player_keys(path + (key, "players"), awards["players"])
                self.check_unused_player_keys(path + (key, "players"), awards["players"], seats=True)
        if "eligible" in rule:
            self.check_quantity(path + ("eligible",), rule["eligible"], boolean=True)
        if "multiplier" in rule:
            self.check_quantity(path + ("multiplier",), rule["multiplier"])

    def rule_expression(self, path: tuple, rule: Mapping) -> None:
        self.check_expression(path + ("expr",), rule["expr"])

    def warn(self, path: tuple, message: str, *, key: bool = False) -> None:
        d = self.doc.diagnostic(path, message, key=key)
        self.out.append(Diagnostic(d.file, d.line, d.column, d.message, "warning", d.source_line))

    def check_game_end_reads(self) -> None:
        """Game-end rules and tie-breaks see only cards kept to game end: one that
        reads nothing else can only ever see none."""
        kept = {c.index for c in self.catalogue.cards if c.keep == "game"}
        compile_for = lambda path: expression_compiler(self.doc, self.catalogue, path)  # noqa: E731
        from ruledraft.language.quantity import compile_quantity

        def reads_of(path: tuple, spec):
            try:
                q = compile_quantity(
                    spec,
                    self.catalogue,
                    lambda text: compile_for(path if isinstance(spec, str) else path + ("expr",))((), text),
                )
            except (RulesetError, KeyError, ValueError):
                return None
            return q.reads

        places = []
        for i, rule in enumerate(self.data.get("scoring") or []):
            if rule.get("when") == "game_end":
                spec = (
                    rule.get("quantity") or rule.get("expr") or ({"count": rule["cards"]} if "cards" in rule else None)
                )
                if spec is not None:
                    places.append(
                        (("scoring", i, "when"), spec, f"scoring rule '{rule.get('id')}' is scored at game end")
                    )
        for i, tb in enumerate((self.data.get("winner") or {}).get("tie_breaks") or []):
            for key in ("most", "least"):
                if key in tb:
                    places.append((("winner", "tie_breaks", i, key), tb[key], "this tie-break is decided at game end"))
        for path, spec, what in places:
            reads = reads_of(path, spec)
            if reads is not None and reads and not (reads & kept):
                self.warn(
                    path,
                    f"{what} but reads only cards that are not kept to game end (they are discarded after each round), so it always sees none; add 'keep: game' to those cards",
                )

    def check_cost(self) -> None:
        """Refuse rulesets whose expressions would take too long to score: each is
        evaluated once per seat, and each player aggregate multiplies by the seats."""
        if not self.expressions:
            return
        seats = ((self.data.get("players") or {}).get("max") or 1) + self.dummy_seats()
        costs = [(compiled.steps(seats) * seats, path) for path, compiled in self.expressions]
        total = sum(c for c, _ in costs)
        if total > MAX_SCORING_STEPS:
            worst, path = max(costs, key=lambda c: c[0])
            self.error(
                path,
                f"the expressions of this ruleset would take about {total:,} steps to score once with "
                f"{seats} seats (this one {worst:,}); the limit is {MAX_SCORING_STEPS:,}: "
                f"use fewer or less deeply nested player aggregates",
            )

    def decision_work(self):
        """``(total, hand, candidates, per_candidate, worst rule index)``: an estimate of
        the steps the greedy bot takes to choose the cards of one hand (hand size x
        candidate actions x scoring work), or None if it cannot be made.

        For each candidate action (every kind in a full hand, and every ordered pick
        a special action allows) it copies a row of counts and scores each rule that
        reads the cards (the selectors' sizes, the expressions' steps; a majority
        once per seat); it does so for each of the cards of a hand in turn.
        """
        from ruledraft.language.quantity import selector_indices

        players = self.data.get("players") or {}
        lo, hi = players.get("min"), players.get("max")
        sizes = expand_player_keys((self.data.get("deal") or {}).get("hand_size") or {})
        hands = [sizes[n] for n in range(lo or 0, (hi or -1) + 1) if n in sizes]
        kinds = self.catalogue.size
        if not hands or not kinds:
            return None
        hand = max(hands)
        seats = hi + self.dummy_seats()
        m = min(hand, kinds)
        extra = max((a.get("extra", 1) for a in self.data.get("actions") or []), default=0)
        candidates = m * (m + 1) ** extra
        steps_by_rule: dict[int, int] = {}
        for path, compiled in self.expressions:
            if path[:1] == ("scoring",):
                steps_by_rule[path[1]] = steps_by_rule.get(path[1], 0) + compiled.steps(seats)

        def selected(spec) -> int:
            try:
                return len(selector_indices(spec, self.catalogue))
            except Exception:  # a name already reported as unknown
                return kinds

        works = []
        for i, rule in enumerate(self.data.get("scoring") or []):
            work = 1 + steps_by_rule.get(i, 0)
            for key in ("cards", "targets"):
                if key in rule:
                    work += selected(rule[key])
            for key in ("quantity", "eligible", "multiplier"):
                spec = rule.get(key)
                if isinstance(spec, dict):
                    for inner in ("count", "of"):
                        if inner in spec:
                            work += selected(spec[inner])
            if rule.get("kind") == "majority":
                work *= seats
            works.append(work)
        per_candidate = kinds + seats + sum(works)
        worst = max(range(len(works)), key=works.__getitem__) if works else None
        return hand * candidates * per_candidate, hand, candidates, per_candidate, worst

    def check_decision_work(self) -> None:
        """Refuse a ruleset that would make a bot work too long for each card it chooses
        (the cost check bounds each expression, not the total): ``MAX_DECISION_STEPS``."""
        estimate = self.decision_work()
        if estimate is None or estimate[0] <= MAX_DECISION_STEPS:
            return
        total, hand, candidates, per_candidate, worst = estimate
        path = ("scoring", worst) if worst is not None else ("cards",)
        costliest = ""
        if worst is not None:
            costliest = f"; the costliest rule is '{(self.data['scoring'][worst] or {}).get('id')}'"
        self.error(
            path,
            f"choosing cards would cost a bot about {total:,} steps per hand ({hand} cards in a hand x "
            f"{candidates:,} candidate actions x {per_candidate:,} steps to score each); the limit is "
            f"{MAX_DECISION_STEPS:,}: use fewer card kinds, smaller hands, or fewer or narrower rules{costliest}",
            key=worst is None,
        )

    def check_winner(self) -> None:
        winner = self.data.get("winner") or {}
        for i, tb in enumerate(winner.get("tie_breaks") or []):
            for key in ("most", "least"):
                if key in tb:
                    self.check_quantity(("winner", "tie_breaks", i, key), tb[key])

    def run(self) -> list[Diagnostic]:
        self.check_cards()
        self.check_players_and_deal()
        self.check_rounds_and_turn()
        self.check_actions()
        self.check_scoring()
        self.check_winner()
        self.check_cost()
        if not any(d.severity == "error" for d in self.out):
            self.check_decision_work()
        if not any(d.severity == "error" for d in self.out):
            self.check_game_end_reads()
        return self.out


def _n(count: int, noun: str) -> str:
    """``1 round``, ``3 rounds``."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def check_semantics(doc) -> list[Diagnostic]:
    """Every semantic problem in a schema-valid document, located."""
    return sorted(set(_Checker(doc).run()))
