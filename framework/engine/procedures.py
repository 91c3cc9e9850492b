"""Turn procedures: how one turn of a round unfolds.

A ruleset names its procedure (``turn: {procedure: standard}``) and gives its
parameters; the engine provides the procedures:

* ``standard`` -- every player picks from their hand at once, all reveal, hands
  pass in the round's direction; a last single card is played automatically.
* ``dummy`` -- two players and a dummy hand (Sushi Go!'s two-player variant): the
  dummy's controller draws from the dummy pile and picks for it too; control
  alternates every turn; the dummy scores as a seat of its own.

Both share the special-action machinery (extra picks such as chopsticks).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Protocol

import attrs

from ruledraft.engine.decisions import asked
from ruledraft.engine.records import RoundRecord
from ruledraft.errors import IllegalMoveError
from ruledraft.language.decision import Decision
from ruledraft.language.effect import CardEffect, EffectGame, EffectState
from ruledraft.language.rule import TurnScoring
from ruledraft.language.ruleset import CompiledRuleset, ExtraPick

#: a source of floats in [0, 1), such as ``random.Random(seed).random``
RandomFn = Callable[[], float]


class TurnGame(EffectGame, Protocol):
    """What a procedure reads of the game (``state.Game``, which builds the procedure:
    the procedures are written against these names so the imports run one way,
    ``state`` -> ``procedures``)."""

    @property
    def ruleset(self) -> CompiledRuleset: ...
    @property
    def actions(self) -> tuple[ExtraPick, ...]: ...
    @property
    def general(self) -> bool: ...
    @property
    def keeps_round(self) -> bool: ...
    @property
    def max_extra(self) -> int: ...
    @property
    def hand_size(self) -> int: ...
    @property
    def num_seats(self) -> int: ...
    @property
    def reveal_effects(self) -> Sequence[CardEffect]: ...
    @property
    def turn_end_effects(self) -> Sequence[CardEffect]: ...
    @property
    def turn_rules(self) -> Sequence[tuple[int, TurnScoring]]: ...
    @property
    def num_distinct_actions(self) -> int: ...

    def special_action_for(self, table_counts: Sequence[int], num_cards: int) -> ExtraPick | None: ...
    def encode_action(self, cards: Sequence[int], dummy: int | None = None) -> int: ...
    def decode_action(self, action: int) -> tuple[tuple[int, ...], int | None]: ...
    def decision_to_string(self, action: int) -> str: ...


class TurnState(EffectState, Protocol):
    """What a procedure reads of a state (``state.State``), and the methods by which it
    changes it (it assigns none of its fields; it moves cards within the lists)."""

    @property
    def game(self) -> TurnGame: ...

    @property
    def hands(self) -> list[list[int]]: ...
    @property
    def played(self) -> list[list[int]]: ...
    @property
    def counts(self) -> list[list[int]]: ...
    @property
    def history(self) -> list[RoundRecord]: ...
    @property
    def round(self) -> int: ...
    @property
    def turn(self) -> int: ...
    @property
    def finished(self) -> bool: ...
    @property
    def pending(self) -> Decision | None: ...
    @property
    def controller(self) -> int: ...
    @property
    def drawn(self) -> list[int]: ...
    @property
    def dummy_piles(self) -> list[list[int]]: ...

    def deal_round(self, hands: list[list[int]], *, dummies: int = 0, controller: int = -1) -> None: ...
    def turn_over(self, turns: int = 1) -> None: ...
    def wait_for(self, decision: Decision | None) -> None: ...
    def decided(self, seat: int, action: int) -> None: ...
    def revealed(self, cards: Sequence[Sequence[int]]) -> None: ...
    def run_jobs(self) -> Decision | None: ...
    def effect_turn_over(self) -> bool: ...
    def pass_known(self, direction: int) -> None: ...
    def without_unseen(self, seat: int, held: dict[int, list[int]]) -> dict[int, list[int]]: ...
    def pass_player_hands(self, hands: list[list[int]]) -> None: ...
    def controller_draws(self, cards: list[int]) -> None: ...
    def pass_control(self, players: int) -> None: ...
    def play_card(self, seat: int, card: int) -> None: ...
    def unplay_card(self, seat: int, card: int) -> int: ...
    def deal_hands(self, seats: int, size: int) -> list[list[int]]: ...
    def end_round(self) -> None: ...
    def score_turn_end(self) -> None: ...
    def sample_action(self, seat: int, random: RandomFn) -> int: ...
    def acting_seats(self) -> tuple[int, ...]: ...


def as_action(seat: int, a: object) -> int:
    """An action as a plain int; integer-like values (numpy integers from an RL
    policy, say) are accepted, anything else is an illegal move."""
    if type(a) is int:
        return a
    if isinstance(a, bool):
        raise IllegalMoveError(f"seat {seat}: an action is an integer, not {a!r}")
    try:
        return operator.index(a)  # type: ignore[arg-type]  # anything may come in; TypeError says it is no action
    except TypeError:
        raise IllegalMoveError(f"seat {seat}: an action is an integer, not {a!r}") from None


def sample_distinct(hand: list[int], random: RandomFn) -> int:
    """One of the distinct cards of ``hand``, each equally likely.

    Rejection sampling: a position drawn uniformly is kept with probability one over
    the number of copies of its card, so every distinct card is kept with the same
    probability, 1 / len(hand), per attempt. No set is built, which is what makes
    random play-outs cheap; a hand of distinct cards takes exactly one draw.
    """
    size = len(hand)
    while True:
        card = hand[int(random() * size)]
        copies = hand.count(card)
        if copies == 1 or random() * copies < 1.0:
            return card


def sample_one_or_two(hand: list[int], random: RandomFn, singles: bool = True) -> tuple[int, int]:
    """One card of ``hand`` or an ordered pair of its cards, each distinct choice
    equally likely (what ``legal_actions`` lists when one extra card may be taken):
    ``(card, -1)`` or ``(first, second)``. One draw, and no list of the choices.

    With ``singles=False``, only the ordered pairs: a card for oneself and another
    for the dummy, say.
    """
    distinct = list(set(hand))  # a set of small ints iterates in an order fixed by its contents
    d = len(distinct)
    doubled = [] if d == len(hand) else [c for c in distinct if hand.count(c) > 1]
    ones = d if singles else 0
    i = int(random() * (ones + d * (d - 1) + len(doubled)))  # singles, pairs of two cards, doubles
    if i < ones:
        return distinct[i], -1
    i -= ones
    pairs = d * (d - 1)
    if i < pairs:
        first, other = divmod(i, d - 1)
        return distinct[first], distinct[other + (other >= first)]
    card = doubled[i - pairs]
    return card, card


class StandardProcedure:
    """Simultaneous pick, reveal, pass."""

    name = "standard"

    def __init__(self, game: TurnGame) -> None:
        self.game = game
        self.K = game.num_card_types
        self.actions = game.actions
        self.directions = game.ruleset.pass_directions
        #: per-turn directions by round; empty when each round passes one way (the fast path)
        self.patterns = game.ruleset.pass_patterns
        self.action_cards = tuple(a.card for a in self.actions)
        #: card effects beyond pick-time extra picks: every turn through the general path
        self.general = game.general

    # ------------------------------------------------------------------ dealing

    def deal(self, state: TurnState) -> None:
        game = self.game
        hands = state.deal_hands(game.num_seats, game.hand_size)
        state.history.append(RoundRecord([h[:] for h in hands]))
        state.deal_round(hands)
        self._maybe_autoplay(state)

    # ------------------------------------------------------------------ special actions

    def extra_available(self, state: TurnState, seat: int) -> int:
        """How many extra cards ``seat`` may take this turn (0: none)."""
        room = len(state.hands[seat]) - 1 - self._reserved(state, seat)
        if room <= 0 or not self.actions:
            return 0
        row = state.counts[seat]
        for action in self.actions:
            if row[action.card]:
                return min(action.extra, room)
        return 0

    def _reserved(self, state: TurnState, seat: int) -> int:
        """Cards of the hand that must be kept for other picks this turn (the dummy's)."""
        return 0

    # ------------------------------------------------------------------ legal actions

    def own_options(self, state: TurnState, seat: int) -> list[tuple[int, ...]]:
        """Card sequences ``seat`` may take for itself (without the dummy's pick)."""
        hand = state.hands[seat]
        singles = sorted(set(hand))
        extra = self.extra_available(state, seat)
        options: list[tuple[int, ...]] = [(c,) for c in singles]
        if extra:
            left = {c: hand.count(c) for c in singles}
            frontier: list[tuple[tuple[int, ...], int]] = [((c,), c) for c in singles]
            for _ in range(extra):
                nxt: list[tuple[tuple[int, ...], int]] = []
                for seq, _last in frontier:
                    used: dict[int, int] = {}
                    for c in seq:
                        used[c] = used.get(c, 0) + 1
                    for c in singles:
                        if used.get(c, 0) < left[c]:
                            nxt.append((seq + (c,), c))
                options.extend(s for s, _ in nxt)
                frontier = nxt
        return options

    def legal_actions(self, state: TurnState, seat: int) -> list[int]:
        hand = state.hands[seat]
        if len(hand) < 2:
            return hand[:]
        row = state.counts[seat]
        for c in self.action_cards:
            if row[c]:
                break
        else:  # no special action on the table: the hot path
            return sorted(set(hand))
        extra = self.extra_available(state, seat)
        if not extra:
            return sorted(set(hand))
        if extra == 1 and self.game.max_extra == 1:
            # one extra card: the ordered pairs, encoded inline (see Game.encode_action)
            K = self.K
            singles = sorted(set(hand))
            out = singles[:]
            for a in singles:
                twice = hand.count(a) > 1
                out.extend([a + K * (b + 1) for b in singles if b != a or twice])
            return out
        encode = self.game.encode_action
        return [encode(seq) for seq in self.own_options(state, seat)]

    def sample_action(self, state: TurnState, seat: int, random: RandomFn) -> int:
        """A legal action drawn uniformly (``random()`` gives floats in [0, 1)),
        without building the action list when no special action is possible:
        the fast path for random play-outs."""
        hand = state.hands[seat]
        if self.action_cards and len(hand) > 1:
            row = state.counts[seat]
            for c in self.action_cards:
                if row[c]:
                    if self.game.max_extra == 1 and self.extra_available(state, seat) == 1:
                        first, second = sample_one_or_two(hand, random)
                        return first if second < 0 else first + self.K * (second + 1)
                    legal = self.legal_actions(state, seat)
                    return legal[int(random() * len(legal))]
        return sample_distinct(hand, random)

    # ------------------------------------------------------------------ applying

    def _check_cards(self, state: TurnState, seat: int, cards: Sequence[int]) -> None:
        hand = state.hands[seat]
        if len(cards) > 1:
            extra = len(cards) - 1
            if extra > self.extra_available(state, seat):
                raise IllegalMoveError(
                    f"seat {seat} cannot take {len(cards)} cards this turn"
                    + ("" if self.actions else " (this game has no special action for it)")
                )
        need: dict[int, int] = {}
        for c in cards:
            need[c] = need.get(c, 0) + 1
        for c, k in need.items():
            if hand.count(c) < k:
                card = self.game.ruleset.catalogue.ids[c] if 0 <= c < self.K else c
                raise IllegalMoveError(
                    f"seat {seat} has no {card!s} in hand to take"
                    if k == 1
                    else f"seat {seat} has fewer than {k} {card!s} in hand"
                )

    def _take(self, state: TurnState, seat: int, cards: Sequence[int]) -> None:
        """Move cards from the seat's hand to its table, then resolve the special action."""
        hand = state.hands[seat]
        action = self.game.special_action_for(state.counts[seat], len(cards))
        for c in cards:
            hand.remove(c)
            state.play_card(seat, c)
        if action is not None:  # its card goes back into the hand that is passed on
            hand.append(state.unplay_card(seat, action.card))

    def _decode(self, seat: int, a: object) -> tuple[int, ...]:
        action = as_action(seat, a)
        if action >= self.game.num_distinct_actions:  # past every pick (and decision): no dummy's card
            raise IllegalMoveError(f"seat {seat}: not an action: {action}")
        cards, dummy = self.game.decode_action(action)
        if dummy is not None:
            raise IllegalMoveError(f"seat {seat} does not control a dummy")
        if any(c >= self.K for c in cards):
            raise IllegalMoveError(f"seat {seat}: not an action: {a}")
        return cards

    def apply(self, state: TurnState, actions: Sequence[int]) -> None:
        if self.general:
            self._apply_general(state, actions)
            return
        K = self.K
        hands = state.hands
        seat = 0
        where: list[int] = []  # where each card taken was in its hand, for an undo
        for a, hand, table, row in zip(actions, hands, state.played, state.counts):
            # the hot path: one card the seat holds (list.index checks that it does)
            if type(a) is int and 0 <= a < K:
                try:
                    i = hand.index(a)
                except ValueError:
                    self._undo(state, actions, where)
                    self._check_cards(state, seat, (a,))  # raises with the reason
                    raise
                del hand[i]
                where.append(i)
                table.append(a)
                row[a] += 1
                seat += 1
            else:
                break
        if seat < len(actions):
            self._apply_slow(state, actions, where)
        state.history[-1].actions.append(list(actions))
        # pass the hands (in place; see _pass)
        d = self.direction(state) if self.patterns else self.directions[state.round]
        if d == 1:
            hands.insert(0, hands.pop())
        elif d == -1:
            hands.append(hands.pop(0))
        state.turn_over()
        if len(hands[0]) <= 1:
            self._maybe_autoplay(state)

    def play_out(self, state: TurnState, randoms: Sequence[RandomFn]) -> None:
        """Play to the end with every player choosing uniformly among its legal
        actions, ``randoms[seat]()`` giving its floats in [0, 1).

        The same game, draw for draw, as asking :meth:`sample_action` for every seat
        and calling :meth:`apply` turn after turn -- only without the per-turn
        checks and calls: the loop of random simulations and of search bots'
        roll-outs. A seat's pick reads only its own hand and table, and changes only
        them, so taking the seats one after the other is the same as all at once.
        """
        if self.general:
            self._play_out_general(state, randoms)
            return
        if self.game.max_extra > 1 or self.patterns:
            # hands shrinking at different speeds, or a direction per turn: the general path
            self._play_out_by_turns(state, randoms)
            return
        K = self.K
        directions = self.directions
        sample_action = self.sample_action
        # one special action allowing one extra card (chopsticks): resolved inline
        inline = self.actions[0].card if len(self.actions) == 1 and self.game.max_extra == 1 else -1
        others = () if inline >= 0 else self.action_cards  # any other set-up: the general path
        seats = tuple(enumerate(randoms))
        while not state.finished:
            hands, played, counts = state.hands, state.played, state.counts
            turns = state.history[-1].actions
            d = directions[state.round]
            turns_over = 0
            while len(hands[0]) > 1:
                actions = [0] * len(seats)
                for seat, random in seats:
                    hand = hands[seat]
                    row = counts[seat]
                    if inline >= 0 and row[inline]:
                        a, b = sample_one_or_two(hand, random)
                        hand.remove(a)
                        played[seat].append(a)
                        row[a] += 1
                        if b >= 0:  # both cards taken; the action's card goes back into the hand
                            hand.remove(b)
                            table = played[seat]
                            table.append(b)
                            row[b] += 1
                            table.remove(inline)
                            row[inline] -= 1
                            hand.append(inline)
                            a += K * (b + 1)
                    elif others and any(row[c] for c in others):
                        a = sample_action(state, seat, random)
                        if a < K:
                            hand.remove(a)
                            played[seat].append(a)
                            row[a] += 1
                        else:
                            self._take(state, seat, self._decode(seat, a))
                    else:  # sample_distinct, inline
                        size = len(hand)
                        while True:
                            a = hand[int(random() * size)]
                            copies = hand.count(a)
                            if copies == 1 or random() * copies < 1.0:
                                break
                        hand.remove(a)
                        played[seat].append(a)
                        row[a] += 1
                    actions[seat] = a
                turns.append(actions)
                if d == 1:
                    hands.insert(0, hands.pop())
                elif d == -1:
                    hands.append(hands.pop(0))
                turns_over += 1  # told the state once per round: nothing in the loop reads the turn
            state.turn_over(turns_over)
            self._maybe_autoplay(state)

    def _play_out_by_turns(self, state: TurnState, randoms: Sequence[RandomFn]) -> None:
        """:meth:`play_out` turn by turn, through the checked path."""
        sample, apply = self.sample_action, self.apply
        seats = tuple(enumerate(randoms))
        while not state.finished:
            apply(state, [sample(state, seat, random) for seat, random in seats])

    def _undo(self, state: TurnState, actions: Sequence[int], where: Sequence[int]) -> None:
        """Take back the single cards the first seats took, each put back at ``where`` it
        was in its hand, so an illegal move leaves the state as it was (a random bot
        reads the hand's order). Each is the newest card of its table: an older copy
        taken instead would reorder the table, which scoring reads (a nigiri before a
        wasabi would move onto it)."""
        played, counts, hands = state.played, state.counts, state.hands
        for seat, i in enumerate(where):
            a = actions[seat]
            played[seat].pop()
            counts[seat][a] -= 1
            hands[seat].insert(i, a)

    def _apply_slow(self, state: TurnState, actions: Sequence[int], where: Sequence[int]) -> None:
        """The seats after the first ``len(where)`` (which took one card each, from
        ``where`` in their hands) when some take several cards: check them all, then apply."""
        first = len(where)
        K = self.K
        hands = state.hands
        decoded: list[int | tuple[int, ...]] = []  # a card index, or a tuple of cards
        try:
            for seat in range(first, len(actions)):
                a = actions[seat]
                if type(a) is int and 0 <= a < K and a in hands[seat]:
                    decoded.append(a)
                    continue
                cards = self._decode(seat, a)
                self._check_cards(state, seat, cards)
                decoded.append(cards)
        except IllegalMoveError:
            self._undo(state, actions, where)
            raise
        played, counts = state.played, state.counts
        for seat, taken in enumerate(decoded, first):
            if isinstance(taken, int):
                hands[seat].remove(taken)
                played[seat].append(taken)
                counts[seat][taken] += 1
            else:
                self._take(state, seat, taken)

    def direction(self, state: TurnState) -> int:
        """Which way the hands pass after the current turn."""
        return self.game.ruleset.pass_direction(state.round, state.turn)

    def _pass(self, state: TurnState) -> None:
        d = self.direction(state)
        hands = state.hands  # rotated in place: states never share this list (see State.clone)
        if d == 1:
            hands.insert(0, hands.pop())
        elif d == -1:
            hands.append(hands.pop(0))

    def _maybe_autoplay(self, state: TurnState) -> None:
        if self.general:
            self._next_turn(state)
            return
        hands = state.hands
        if len(hands[0]) == 1 and set(map(len, hands)) == {1}:  # every hand holds one card
            actions = [hand.pop() for hand in hands]
            played, counts = state.played, state.counts
            for seat, c in enumerate(actions):  # state.play_card, inline
                played[seat].append(c)
                counts[seat][c] += 1
            state.history[-1].add_turn(actions, auto=True)
            state.turn_over()
        if not hands[0] and not any(state.hands):  # every hand is empty
            state.end_round()

    # ------------------------------------------------------------------ card effects: the general path
    #
    # A turn: the picks are revealed and placed; the when-played effects of the cards
    # placed and the after-reveal effects of cards on the tables from earlier turns are
    # queued; they resolve by play order, then seat (each may place more cards, whose
    # own effects join the queue, and may wait for a decision); then the turn-end
    # effects act, the hands pass, and the next turn (or the automatic last card, or
    # the round end) follows.

    def _apply_general(self, state: TurnState, actions: Sequence[int]) -> None:
        pending = state.pending
        if pending is not None:
            seat = pending.seat
            a = as_action(seat, actions[0])
            if a not in pending.options:
                try:
                    said = self.game.decision_to_string(a)  # a card id, a family or done
                except IllegalMoveError:
                    said = str(a)  # no decision action at all
                raise IllegalMoveError(
                    f"seat {seat}: {said} is not one of the choices now ({pending.prompt}): "
                    + ", ".join(self.game.decision_to_string(o) for o in pending.options)
                )
            state.decided(seat, a)
            effect = self.game.effect_of[pending.card]
            assert effect is not None  # a decision is asked by the effect of its card
            follow = asked(effect, effect.decide(state, pending, a), self.game, "decide")
            if follow is not None:  # the choice asks another (of the same seat, or another)
                state.wait_for(follow)
                return
            self._resume(state)
            return
        decoded: list[tuple[int, ...]] = []
        for seat, a in enumerate(actions):
            cards = self._decode(seat, a)
            self._check_cards(state, seat, cards)
            decoded.append(cards)
        state.history[-1].actions.append(list(actions))
        self._reveal(state, decoded)

    def _reveal(self, state: TurnState, decoded: Sequence[Sequence[int]]) -> None:
        """Place the revealed cards, queue the effects they start, resolve."""
        game = self.game
        earlier = [row[:] for row in state.counts]
        for seat, cards in enumerate(decoded):
            if len(cards) == 1:
                state.hands[seat].remove(cards[0])
                state.play_card(seat, cards[0])
            else:
                self._take(state, seat, cards)
        state.revealed(decoded)
        play_effects = game.play_effects
        for seat, cards in enumerate(decoded):
            for c in cards:
                effect = play_effects[c]
                if effect is not None:
                    state.add_job(seat, effect)
            for effect in game.reveal_effects:  # on the table since an earlier turn
                if earlier[seat][effect.card] and state.counts[seat][effect.card]:
                    state.add_job(seat, effect)
        self._resume(state)

    def _resume(self, state: TurnState) -> None:
        """Resolve the queued effects until one waits for a decision or none is left;
        then end the turn."""
        if state.run_jobs() is not None:
            return  # a decision: the turn waits for it
        for effect in self.game.turn_end_effects:
            effect.turn_end(state)
        if self.game.turn_rules:
            state.score_turn_end()
        known = state.effect_turn_over()  # the placements of the turn (a race's discards change none)
        history = state.history[-1]
        if not (history.auto_turns and history.auto_turns[-1] == state.turn):
            if known:
                state.pass_known(self.direction(state))
            self._pass(state)
        state.turn_over()
        self._next_turn(state)

    def _next_turn(self, state: TurnState) -> None:
        """The automatic last card, or the round end, when the hands say so."""
        hands = state.hands
        if hands[0] and all(len(h) == 1 for h in hands):
            cards = [(h[0],) for h in hands]
            state.history[-1].add_turn([c[0] for c in cards], auto=True)
            self._reveal(state, cards)
        elif all(not h for h in hands):
            state.end_round()

    def _play_out_general(self, state: TurnState, randoms: Sequence[RandomFn]) -> None:
        """:meth:`play_out` with card effects: every acting seat (the deciding seat while
        a decision is pending) samples, turn after turn, through the checked path."""
        sample, apply = state.sample_action, self.apply
        while not state.finished:
            apply(state, [sample(seat, randoms[seat]) for seat in state.acting_seats()])

    def redrawn(self, decision: Decision, shown: tuple[int, ...]) -> Decision | None:
        """``decision`` as it would be had its effect drawn ``shown`` instead (for a
        re-deal of hidden cards); None if nothing among them could be chosen."""
        effect = self.game.effect_of[decision.card]
        assert effect is not None  # a decision is asked by the effect of its card
        options = effect.redrawn(shown)
        if not options:
            return None
        return attrs.evolve(decision, shown=shown, options=options)

    # ------------------------------------------------------------------ information

    def _passing_seats(self, state: TurnState) -> int:
        return len(state.hands)

    def known_hands(self, state: TurnState, seat: int) -> dict[int, list[int]]:
        """Hands now at other seats whose contents ``seat`` has seen: all changes since
        are public but the cards an effect put into a hand unseen (``into_hand(...,
        known=False)``), which ``seat`` does not know of unless it has held the hand since."""
        n = self._passing_seats(state)
        if state.round >= len(self.directions):
            return {}
        if self.patterns:
            return state.without_unseen(seat, self._known_hands_by_pattern(state, seat, n))
        d = self.directions[state.round]
        out = {}
        for other in range(n):
            if other == seat or d == 0:
                continue
            k0 = (d * (other - seat)) % n
            if k0 <= state.turn:
                out[other] = state.hands[other][:]
        return state.without_unseen(seat, out)

    def _known_hands_by_pattern(self, state: TurnState, seat: int, n: int) -> dict[int, list[int]]:
        """:meth:`known_hands` when the direction changes from turn to turn: follow each
        hand back through the turns of this round and see whether ``seat`` held it."""
        pattern = self.patterns[state.round]
        out = {}
        for other in range(n):
            if other == seat:
                continue
            at = other
            for turn in range(state.turn - 1, -1, -1):
                at = (at - pattern[turn % len(pattern)]) % n
                if at == seat:
                    out[other] = state.hands[other][:]
                    break
        return out


class DummyProcedure(StandardProcedure):
    """Players plus dummy seats whose hand is a face-down pile; the controller draws
    from it and picks for the dummy; control passes to the next player every turn."""

    name = "dummy"

    def __init__(self, game: TurnGame) -> None:
        super().__init__(game)
        spec = game.ruleset.dummy
        if spec is None:
            raise ValueError(f"{game.ruleset.id} has no dummy")
        self.spec = spec
        self.players = game.num_players
        self.dummy_seat = game.num_players  # the first dummy seat

    def deal(self, state: TurnState) -> None:
        game = self.game
        hands = state.deal_hands(game.num_seats, game.hand_size)
        state.history.append(RoundRecord([h[:] for h in hands]))
        first = self.spec.first_controller[state.round] if self.spec.first_controller else 0
        state.deal_round(hands, dummies=len(hands) - self.players, controller=first)
        self._draw(state)

    def _draw(self, state: TurnState) -> None:
        pile = state.dummy_piles[0]
        drawn = pile[: self.spec.draw]
        del pile[: self.spec.draw]
        state.controller_draws(drawn)

    def _reserved(self, state: TurnState, seat: int) -> int:
        return 1 if seat == state.controller else 0

    def legal_actions(self, state: TurnState, seat: int) -> list[int]:
        if seat != state.controller:
            return super().legal_actions(state, seat)
        hand = state.hands[seat]
        encode = self.game.encode_action
        out = []
        for own in self.own_options(state, seat):
            rest = hand[:]
            for c in own:
                rest.remove(c)
            for d in sorted(set(rest)):
                out.append(encode(own, d))
        return out

    def sample_action(self, state: TurnState, seat: int, random: RandomFn) -> int:
        if seat != state.controller:
            return super().sample_action(state, seat, random)
        if not self.extra_available(state, seat):
            # a card for itself and another for the dummy: the ordered pairs of its hand
            own, dummy = sample_one_or_two(state.hands[seat], random, singles=False)
            return self.game.encode_action((own,), dummy)
        legal = self.legal_actions(state, seat)
        return legal[int(random() * len(legal))]

    def apply(self, state: TurnState, actions: Sequence[int]) -> None:
        decoded = []
        for seat, a in enumerate(actions):
            cards, dummy = self.game.decode_action(as_action(seat, a))
            if any(c >= self.K for c in cards) or (dummy is not None and dummy >= self.K):
                raise IllegalMoveError(f"seat {seat}: not an action: {a}")
            if seat == state.controller:
                if dummy is None:
                    raise IllegalMoveError(f"seat {seat} controls the dummy and must pick a card for it too")
                self._check_cards(state, seat, cards)
                self._check_cards_with_dummy(state, seat, cards, dummy)
            elif dummy is not None:
                raise IllegalMoveError(f"seat {seat} does not control the dummy this turn")
            else:
                self._check_cards(state, seat, cards)
            decoded.append((cards, dummy))
        for seat, (cards, dummy) in enumerate(decoded):
            if dummy is not None:
                state.hands[seat].remove(dummy)
                state.play_card(self.dummy_seat, dummy)
            if len(cards) == 1:
                state.hands[seat].remove(cards[0])
                state.play_card(seat, cards[0])
            else:
                self._take(state, seat, cards)
        state.history[-1].add_dummy_turn(actions, state.controller, state.drawn)
        self._pass(state)
        state.turn_over()
        if all(not h for h in state.hands) and all(not p for p in state.dummy_piles):
            state.controller_draws([])  # nothing: the round is over
            state.end_round()
            return
        state.pass_control(self.players)
        self._draw(state)

    def play_out(self, state: TurnState, randoms: Sequence[RandomFn]) -> None:
        """Play to the end with every player choosing uniformly (see
        :meth:`StandardProcedure.play_out`), turn by turn through the checked path."""
        self._play_out_by_turns(state, randoms)

    def _check_cards_with_dummy(self, state: TurnState, seat: int, cards: tuple[int, ...], dummy: int) -> None:
        hand = state.hands[seat]
        need: dict[int, int] = {}
        for c in cards + (dummy,):
            need[c] = need.get(c, 0) + 1
        for c, k in need.items():
            if hand.count(c) < k:
                raise IllegalMoveError(
                    f"seat {seat} does not have {self.game.ruleset.catalogue.ids[c]} in hand for that"
                )

    def _pass(self, state: TurnState) -> None:
        d = self.direction(state)
        p = self.players
        hands = state.hands[:p]
        if d == 1:
            hands = [hands[-1]] + hands[:-1]
        elif d == -1:
            hands = hands[1:] + [hands[0]]
        state.pass_player_hands(hands)

    def _passing_seats(self, state: TurnState) -> int:
        return self.players

    def known_hands(self, state: TurnState, seat: int) -> dict[int, list[int]]:
        out = {}
        for other, cards in super().known_hands(state, seat).items():
            cards = cards[:]
            if other == state.controller:
                for c in state.drawn:  # drawn from the face-down pile: only the controller saw them
                    if c in cards:
                        cards.remove(c)
                # in order of kind: which copy went would tell where a drawn card sat in the hand
                cards.sort()
            out[other] = cards
        return out


PROCEDURES = {
    "standard": StandardProcedure,
    "dummy": DummyProcedure,
}
