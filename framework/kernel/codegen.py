"""Writing a kernel's source from a compiled ruleset at a number of players.

The module written holds the ruleset's constants (the deck, the pass directions,
the special action's card, which cards are kept), one compiled function per
quantity and per scoring rule (each written by the rule's own ``kernel(w)``, see
:class:`ruledraft.language.rule.KernelWriter`), the functions scoring a round and
game end and deciding the winners, then the game loop (``game_loop.tmpl``, the same
for every ruleset), the planner's and ismcts's parts (``planner.tmpl``,
``rollout.tmpl``) and the environments' batch of games (``batch.tmpl``). Anything the kernel cannot play raises :class:`NoKernel` with
the reason.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ruledraft.kernel.effects import PLANNER_BRANCH, effect_kinds, effects_source, without_part
from ruledraft.kernel.expression import NoKernelForm, expression_source
from ruledraft.language.quantity import Quantity
from ruledraft.language.ruleset import CompiledRuleset

#: bumped when the generated code changes in a way the sources hashed below do not show
FORMAT = 1

#: the largest card index the random bot's emulation of CPython's set order covers
MAX_CARD_TYPES_WITH_ACTIONS = 32
#: the largest hand it covers (the set grows a second time at 19 distinct cards)
MAX_HAND = 18
#: the most code (characters) the rules, races and card effects may make a kernel's of:
#: its compile grows with it (at numba's full optimisation, a Party menu's 60,000: about 75
#: s and 550 MB; 95 rules of long sums, 123,000: 160 s and 690 MB; 120 cards with effects,
#: 156,000: 160 s and 1.1 GB; 25 rules of nested player aggregates, 235,000: 150-220 s and
#: 1 GB; 165 such rules, a rule file that validates: past 12 minutes and 3.4 GB). Lines
#: told it less well (a long expression is one line). The bundled rulesets and examples
#: make at most 60,630.
MAX_CODE = 150_000

HERE = Path(__file__).resolve().parent


class NoKernel(Exception):
    """The ruleset (at this number of players) has no kernel yet: the message says why."""


class _Writer:
    """The :class:`~ruledraft.language.rule.KernelWriter` the rules write through."""

    def __init__(self, ruleset: CompiledRuleset, seat_counts: tuple[int, ...]) -> None:
        self.ruleset = ruleset
        self._seat_counts = seat_counts
        self.arrays: list[str] = []
        self.functions: list[str] = []
        self._quantities: dict[int, str] = {}
        self._rules: dict[int, str] = {}
        self.why_not: str | None = None

    @property
    def seat_counts(self) -> tuple[int, ...]:
        return self._seat_counts

    @property
    def done_action(self) -> int:
        return self.ruleset.catalogue.size + len(self.ruleset.catalogue.tags)

    def copies(self, card: int) -> int:
        return self.ruleset.catalogue.cards[card].count

    @property
    def effect_kinds(self) -> tuple[str, ...]:
        return effect_kinds(self.ruleset)

    @property
    def card_types(self) -> int:
        return self.ruleset.catalogue.size

    @property
    def families(self) -> tuple[str, ...]:
        return self.ruleset.catalogue.tags

    def array(self, values: Sequence[int]) -> str:
        name = f"A{len(self.arrays)}"
        self.arrays.append(f"{name} = np.array([{', '.join(str(int(v)) for v in values)}], dtype=np.int64)")
        return name

    def quantity(self, q: Quantity) -> str | None:
        known = self._quantities.get(id(q))
        if known is not None:
            return known
        try:
            body = self._quantity_expr(q)
        except NoKernelForm as e:
            self.why_not = f"the quantity `{q.words}`: {e} has no kernel form yet"
            return None
        if body is None:
            self.why_not = f"the quantity '{q.words}' has no kernel form (it is not one of count, sum, distinct, expr)"
            return None
        name = f"q{len(self._quantities)}"
        self.functions.append(f"@njit(cache=True)\ndef {name}(counts, seq, lens, rnd, s):\n    return {body}\n")
        self._quantities[id(q)] = name
        return name

    def function(self, params: str, body: list[str]) -> str:
        """A compiled helper ``(params)`` of ``body`` (lines, unindented): its name."""
        name = f"f{len(self.functions)}"
        lines = "".join(f"    {line}\n" for line in body)
        self.functions.append(f"@njit(cache=True)\ndef {name}({params}):\n{lines}")
        return name

    def rule(self, rule: Any) -> str | None:
        """Another rule's part as a function ``(counts, seq, lens, rnd, out)`` (a boost
        scores the rules it changes on its table): its name, or None with ``why_not``."""
        known = self._rules.get(id(rule))
        if known is None:
            body = _kernel_body(rule, self)
            if body is None:
                self.why_not = self.why_not or f"rule '{rule.id}' has no kernel part"
                return None
            known = self.function("counts, seq, lens, rnd, out", ["N = lens.shape[0]", *body.splitlines()])
            self._rules[id(rule)] = known
        return known

    def _function(self, body: list[str]) -> str:
        """A compiled function ``(counts, seq, lens, rnd, s)`` of ``body``: its name."""
        name = f"f{len(self.functions)}"
        lines = "".join(f"    {line}\n" for line in body)
        self.functions.append(f"@njit(cache=True)\ndef {name}(counts, seq, lens, rnd, s):\n{lines}")
        return name

    def _quantity_expr(self, q: Quantity) -> str | None:
        form = q.form
        if not form:
            return None
        kind = form[0]
        if kind == "count":
            return "(" + (" + ".join(f"counts[s, {i}]" for i in form[1]) or "0") + ")"
        if kind == "sum":
            idx, weights = form[1], form[2]
            return "(" + (" + ".join(f"counts[s, {i}] * {weights[i]}" for i in idx if weights[i]) or "0") + ")"
        if kind == "distinct":
            idx, key = form[1], form[2]
            members: dict[int, list[int]] = {}
            for i in idx:
                members.setdefault(key[i], []).append(i)
            terms = [
                "(1 if " + " or ".join(f"counts[s, {i}] > 0" for i in group) + " else 0)" for group in members.values()
            ]
            return "(" + (" + ".join(terms) or "0") + ")"
        if kind == "expr":
            return expression_source(form[1], self.ruleset.catalogue, self._function)
        return None


def refusal(ruleset: CompiledRuleset, players: int | None = None) -> str | None:
    """Why the kernel cannot play ``ruleset`` (at ``players`` players; None: at any
    count it allows) -- None: it can."""
    if ruleset.procedure not in ("standard", "dummy"):
        return f"the '{ruleset.procedure}' turn procedure has no kernel part yet"
    if ruleset.procedure == "dummy":
        why = _dummy_refusal(ruleset)
        if why is not None:
            return why
        if ruleset.effects:
            return "card effects with the dummy procedure have no kernel part yet"
    missing = without_part(ruleset)
    if missing:
        return f"card effects ({', '.join(missing)}) have no kernel part yet"
    from ruledraft.kernel.effects import growing, turns_cards

    grows = growing(ruleset)
    if grows:  # the kernel's tables hold a hand and two cards (a pick with chopsticks)
        return (
            f"card effects ({', '.join(grows)}) that keep their card beside the one they play have no kernel part yet"
        )

    if turns_cards(ruleset) and any(
        rule.holds_cards and not getattr(rule, "kernel_reads_turned", False) for rule in ruleset.rules
    ):  # a kind's part that pairs cards reads the cards turned face down (Tableau.turned) or not at all
        return "cards turned face down with a rule that pairs cards (modifier, boost) have no kernel part yet"
    if ruleset.actions and any(getattr(e, "changes_cards", False) for e in ruleset.effects):
        return "a special action together with effects that change cards has no kernel part yet"
    if ruleset.between_rounds not in ("keep_deck", "reshuffle"):
        return f"'between_rounds: {ruleset.between_rounds}' has no kernel part yet"
    if len(ruleset.actions) > 1 or any(a.extra != 1 for a in ruleset.actions):
        return "special actions other than one card allowing one extra pick have no kernel part yet"
    if ruleset.actions and ruleset.catalogue.size > MAX_CARD_TYPES_WITH_ACTIONS:
        return f"more than {MAX_CARD_TYPES_WITH_ACTIONS} card types with a special action"
    if players is not None and ruleset.hand_size(players) > MAX_HAND:
        return f"hands of more than {MAX_HAND} cards"
    for rule in ruleset.rules:
        if rule.turn_scoring is not None and not callable(getattr(rule, "kernel_turns", None)):
            return f"rule '{rule.id}' scores during the round, and its kind has no kernel part for that"
    return None


def _dummy_refusal(ruleset: CompiledRuleset) -> str | None:
    """Why the dummy loop (``dummy_loop.tmpl``) cannot play ``ruleset`` (None: it can)."""
    d = ruleset.dummy
    if d is None or d.seats != 1 or d.draw != 1 or ruleset.min_players != ruleset.max_players:
        return (
            "a dummy procedure other than one dummy seat drawing one card a turn, at one number "
            "of players, has no kernel part yet"
        )
    if ruleset.pass_patterns or ruleset.additions:  # (a race needs the standard procedure)
        return "the dummy procedure with pass patterns or cards added before rounds has no kernel part yet"
    return None


def _dummy_source(ruleset: CompiledRuleset) -> list[str]:
    """The dummy procedure's loop and constants (nothing without a dummy)."""
    d = ruleset.dummy
    if ruleset.procedure != "dummy" or d is None:
        return [
            "DUMMY = False",
            "\n\n@njit(cache=True)\ndef _rollout_dummy(buf, values, out):\n"
            "    return  # not reached: rollout plays a state without a dummy itself\n",
        ]
    own_span = ruleset.catalogue.size * (ruleset.catalogue.size + 1) ** max(
        (a.extra for a in ruleset.actions), default=0
    )
    first = [d.first_controller[r] if d.first_controller else 0 for r in range(ruleset.rounds)]
    text = (HERE / "dummy_loop.tmpl").read_text(encoding="utf-8")
    head, sep, loop = text.partition("@njit(cache=True)\ndef play_dummy(")
    if not sep or not PLANNER_BRANCH.search(loop):
        raise AssertionError("dummy_loop.tmpl: the game loop or its planner branch is not where codegen looks")
    return [
        f"P = {ruleset.min_players}  # players; the dummy is seat P",
        f"FIRST_CTRL = np.array({first}, dtype=np.int64)",
        f"OWN_SPAN = {own_span}",
        "DUMMY = True",
        f"DUMMY_WINS = {bool(d.can_win)}  # the dummy among the planner's rivals",
        # the loop twice, as the standard one (_game_loops): with the planner's branch only
        # where a planner plays, so that ``play`` never compiles its look-ahead
        head + sep + PLANNER_BRANCH.sub("", loop, count=1),
        "@njit(cache=True)\ndef play_dummy_planner(" + loop,
        (HERE / "dummy_planner.tmpl").read_text(encoding="utf-8"),
        "play = play_dummy",
        "play_planner = play_dummy_planner",
    ]


def _race_source(ruleset: CompiledRuleset, w: _Writer) -> list[str]:
    """The rules that score during the round (a race) in the game loop: ``NRACE``,
    ``race_turn`` (every turn end: each one's ``turn``, in ruleset order; ``took[race,
    seat, card]`` counts the cards each took off the tables) and
    ``race_end`` (round end: each one's round points over its place in ``pts``); see
    ``Race.kernel_turns``."""
    turns, ends = ["    pass"], ["    pass"]
    n = 0
    for i, rule in enumerate(ruleset.round_rules):
        if rule.turn_scoring is None:
            continue
        turn, end = rule.kernel_turns(w)  # type: ignore[attr-defined]  # refusal() checked it has them
        turns.append(f"    nd = {turn}(counts, seq, lens, rnd, prog[{n}], took[{n}], disc, nd)")
        ends.append(f"    {end}(counts, seq, lens, rnd, prog[{n}], pts[{i}])")
        n += 1
    head = "@njit(cache=True)\ndef race_"
    return [
        f"NRACE = {n}",
        f"{head}turn(counts, seq, lens, rnd, prog, took, disc, nd):\n" + "\n".join(turns) + "\n    return nd\n",
        f"{head}end(counts, seq, lens, rnd, prog, pts):\n" + "\n".join(ends) + "\n",
    ]


def _kernel_body(rule: Any, w: _Writer) -> str | None:
    part = getattr(rule, "kernel", None)  # optional: a plug-in's rule may have none
    return part(w) if callable(part) else None


def _indent(text: str, by: str = "    ") -> str:
    return "".join(by + line if line.strip() else line for line in text.splitlines(keepends=True))


def source_hash() -> str:
    """A digest of the code every kernel is made of (the template, the random streams,
    this writer, the expression writer, the kinds): part of each kernel's file name,
    so a change to any of them compiles anew rather than reusing a stale cache."""
    from ruledraft.language import effects as effects_package
    from ruledraft.language import kinds as kinds_package

    h = hashlib.sha256(str(FORMAT).encode())
    files = (
        sorted(HERE.glob("*.py"))
        + sorted(HERE.glob("*.tmpl"))
        + sorted(Path(kinds_package.__file__).parent.glob("*.py"))
        + sorted(Path(effects_package.__file__).parent.glob("*.py"))
    )
    for path in files:
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def write_source(ruleset: CompiledRuleset) -> str:
    """The kernel module's source, for every player count the ruleset allows (the
    number of seats is an argument of its functions); :class:`NoKernel` with the
    reason if there is none."""
    reason = refusal(ruleset)
    if reason is not None:
        raise NoKernel(reason)
    counts = tuple(n for n in ruleset.player_counts if ruleset.hand_size(n) <= MAX_HAND)
    w = _Writer(ruleset, tuple(ruleset.num_seats(n) for n in counts))
    cat = ruleset.catalogue
    K = cat.size
    held = {c for a in ruleset.additions for c in a.cards}
    deck = [c for c in cat.deck() if c not in held]
    hand_sizes = [0] * (max(ruleset.num_seats(n) for n in counts) + 1)
    for n in counts:
        hand_sizes[ruleset.num_seats(n)] = ruleset.hand_size(n)
    rule_functions: list[tuple[str, str]] = []  # (when, name)
    for i, rule in enumerate(ruleset.rules):
        body = _kernel_body(rule, w)
        if body is None:
            detail = f": {w.why_not}" if w.why_not else ""
            kind = getattr(rule, "plugin_kind", None)  # a plug-in's rule says its kind; else its class
            said = f"plug-in kind '{kind}'" if isinstance(kind, str) else type(rule).__name__
            raise NoKernel(f"scoring rule '{rule.id}' ({said}) has no kernel part{detail}")
        name = f"rule{i}"
        # inlined into the scorers (at numba's full optimisation, as rng.INLINE says): the
        # row of points each rule writes is then no array of its own, whose reference count
        # a call took and gave back for every rule at every scoring (about 4% of a random game)
        w.functions.append(
            f'@njit(cache=True, inline="always")\ndef {name}(counts, seq, lens, rnd, out):\n'
            f"    N = lens.shape[0]\n{_indent(body)}"
        )
        rule_functions.append((rule.when, name))
    races = _race_source(ruleset, w)
    tie_breaks = []
    for tb in ruleset.tie_breaks:
        q = w.quantity(tb.quantity)
        if q is None:
            raise NoKernel(f"a tie-break: {w.why_not}")
        tie_breaks.append((q, tb.most))
    nrr, ngr = len(ruleset.round_rules), len(ruleset.game_rules)

    def scorer(name: str, names: list[str], masked: bool = False) -> str:
        """``name(counts, seq, lens, rnd, pts)``: every rule of ``names`` scored into its row
        of ``pts``; ``masked``: ``name(..., pts, mask)``, only the rules ``j`` with ``mask[j]``,
        the other rows left as they were."""
        lines = [f"@njit(cache=True)\ndef {name}(counts, seq, lens, rnd, pts{', mask' if masked else ''}):"]
        for j, n in enumerate(names):
            call = f"{n}(counts, seq, lens, rnd, pts[{j}])"
            lines += [f"    if mask[{j}]:", f"        {call}"] if masked else [f"    {call}"]
        return "\n".join(lines if names else [*lines, "    pass"]) + "\n"

    round_names = [n for when, n in rule_functions if when != "game_end"]
    reads = [[1 if rule.reads is None or c in rule.reads else 0 for c in range(K)] for rule in ruleset.round_rules]
    game_names = [n for when, n in rule_functions if when == "game_end"]
    assert len(round_names) == nrr and len(game_names) == ngr
    # the seats tied on the most points marked in ``win`` itself, each tie-break's quantity
    # computed again where it is compared: no array made for each game's decision
    decide = [
        "@njit(cache=True)",
        "def decide(tot, kc, ks, kl, rnd, win):",
        "    N = tot.shape[0]",
        *(["    N -= 1  # the dummy's seat never wins"] if ruleset.dummy and not ruleset.dummy.can_win else []),
        "    best = tot[0]",
        "    for s in range(1, N):",
        "        if tot[s] > best:",
        "            best = tot[s]",
        "    n = 0",
        "    for s in range(N):",
        "        win[s] = 1 if tot[s] == best else 0",
        "        n += win[s]",
    ]
    for q, most in tie_breaks:
        decide += [
            "    if n > 1:",
            "        target = 0",
            "        first = True",
            "        for s in range(N):",
            "            if win[s]:",
            f"                v = {q}(kc, ks, kl, rnd, s)",
            f"                if first or v {'>' if most else '<'} target:",
            "                    target = v",
            "                    first = False",
            "        n = 0",
            "        for s in range(N):",
            "            if win[s]:",
            f"                if {q}(kc, ks, kl, rnd, s) != target:",
            "                    win[s] = 0",
            "                else:",
            "                    n += 1",
        ]
    if not ruleset.shared_win:
        decide += ["    if n > 1:", "        for s in range(N):", "            win[s] = 0"]
    chop = ruleset.actions[0].card if ruleset.actions else -1
    # held-back families (rounds.add): their cards in catalogue-deck order, and how many
    # of each join before each round, by number of seats
    reserves = [[c for c in cat.deck() if c in a.cards] for a in ruleset.additions]
    starts = [sum(len(r) for r in reserves[:i]) for i in range(len(reserves))]
    top = max(ruleset.num_seats(n) for n in counts) + 1
    added = [
        [list(a.counts.get(n, ())) + [0] * (ruleset.rounds - len(a.counts.get(n, ()))) for a in ruleset.additions]
        or [[0] * ruleset.rounds]
        for n in range(top)
    ]
    fx_constants, fx_functions = effects_source(ruleset, w, max(hand_sizes))
    size = sum(len(part) for part in [*w.functions, *races, *fx_functions])
    if size > MAX_CODE:  # a compile too long and too large for the speed it would buy
        raise NoKernel(
            f"its rules and card effects make {size:,} characters of kernel code, more than the {MAX_CODE:,} the "
            "kernel compiles in reasonable time and memory (each rule, card effect and player aggregate adds to them)"
        )
    width = max((len(p) for p in ruleset.pass_patterns), default=1)
    patterns = [list(p) + [0] * (width - len(p)) for p in ruleset.pass_patterns] or [[0]] * ruleset.rounds
    parts = [
        f"# The game kernel of {ruleset.id}, written by ruledraft.kernel.codegen.",
        "# Generated: do not edit (it is written again whenever what it is made of changes).",
        "from collections import namedtuple",
        "",
        "import numpy as np",
        "from ruledraft.kernel.rng import (\n    INLINE, PACKED, derive_seed1, derive_seed2, draw_words, mt_seed_many, new_streams, randbelow_at,\n    random_at, shuffle_drawn_into, shuffle_into,\n)",
        "from ruledraft.kernel.rng import njit  # numba's, one compile per plain signature",
        "",
        _WRAPPERS,
        f"K = {K}",
        f"HS = np.array({hand_sizes}, dtype=np.int64)  # hand size by number of seats",
        f"R = {ruleset.rounds}",
        f"D = {len(deck)}",
        f"NRR = {nrr}",
        f"NGR = {ngr}",
        f"CHOP = {chop}",
        f"DECK = np.array({deck}, dtype=np.int64)",
        f"DIRS = np.array({list(ruleset.pass_directions)}, dtype=np.int64)",
        f"RESHUFFLE = {ruleset.between_rounds == 'reshuffle'}",
        f"NADD = {len(reserves)}",
        f"RES = np.array({[c for r in reserves for c in r]}, dtype=np.int64)",
        f"RES_START = np.array({starts or [0]}, dtype=np.int64)",
        f"RES_LEN = np.array({[len(r) for r in reserves] or [0]}, dtype=np.int64)",
        f"ADDED = np.array({added}, dtype=np.int64)  # [seats, family, round]",
        f"DT = {len(deck) + sum(len(r) for r in reserves)}",
        f"PATTERNS = {bool(ruleset.pass_patterns)}",
        f"PAT = np.array({patterns}, dtype=np.int64)  # per round, the direction after each turn (cycled)",
        f"PLEN = np.array({[len(p) for p in ruleset.pass_patterns] or [1] * ruleset.rounds}, dtype=np.int64)",
        f"KEPT = np.array({[1 if c.kept else 0 for c in cat.cards]}, dtype=np.int64)",
        # per round rule, whether it reads each card (the greedy bot rescores only those: State's
        # round_rules_reading); a rule that reads none of a move's cards scores every seat as before
        f"RREAD = np.array({reads}, dtype=np.int64).reshape(({nrr}, {K}))",
        *fx_constants,
        *w.arrays,
        "",
        *w.functions,
        scorer("score_round", round_names),
        scorer("score_round_masked", round_names, masked=True),
        scorer("score_end", game_names),
        *races,
        "\n".join(decide) + "\n",
        *_game_loops(),
        *fx_functions,
        (HERE / "planner.tmpl").read_text(encoding="utf-8"),
        (HERE / "rollout.tmpl").read_text(encoding="utf-8"),  # the ismcts roll-out (kernel/rollout.py)
        *_batch_parts(),  # the environments' batch of games (kernel/batch.py)
        *_dummy_source(ruleset),
    ]
    return "\n".join(parts)


#: the functions of a kernel module that Python calls (``Kernel.play``, ``Rollouts``,
#: ``batch_env.BatchDraftEnv``)
ENTRY_POINTS = (
    "play",
    "play_planner",
    "play_dummy",
    "play_dummy_planner",
    "rollout",
    "batch_new",
    "batch_step",
    "batch_encode",
    "batch_bot_streams",
    "batch_bots",
    "batch_bots_planner",
)

#: numba builds each compiled function a wrapper for Python's calls and one for C's; the
#: kernel's Python calls only its entry points, so the others are built without them
#: (about a sixth of a kernel's compile, measured on Points Platter); and a function
#: marked ``inline="always"`` is inlined where the random streams' are (``rng.INLINE``)
_WRAPPERS = f"""
def _entry_points_wrapped(jit):
    \"\"\"``jit`` (numba's njit) with no Python or C wrapper but on {", ".join(ENTRY_POINTS)};
    inlined as ruledraft.kernel.rng.INLINE says.\"\"\"

    def njit(*args, **options):
        if options.get("inline") == "always":  # as the random streams' (at numba's full optimisation only)
            options["inline"] = INLINE

        def make(f):
            entry = f.__name__ in {ENTRY_POINTS!r}
            return jit(*args, **options, **({{}} if entry else _UNWRAPPED))(f)

        return make

    return njit


_UNWRAPPED = {{"no_cpython_wrapper": True, "no_cfunc_wrapper": True}}
njit = _entry_points_wrapped(njit)
"""


def _game_loops() -> list[str]:
    """The game loop twice: ``play`` without the planner's branch and ``play_planner``
    with it. numba compiles a function when it is first called, so a module's ``play``
    (what ``warm`` compiles, and every run without a planner calls) does not compile the
    planner's look-ahead, about a third of the compile time; ``Kernel.play`` calls
    ``play_planner`` when a seat plays the planner. ``play_planner`` resolves a turn's
    card effects with ``_fx_turn_planner``, the copy of ``_fx_turn`` where the planner
    decides too (``kernel.effects._turns``)."""
    text = (HERE / "game_loop.tmpl").read_text(encoding="utf-8")
    head, sep, loop = text.partition("@njit(cache=True)\ndef play(")
    if not sep or not PLANNER_BRANCH.search(loop):
        raise AssertionError("game_loop.tmpl: the game loop or its planner branch is not where codegen looks")
    turn = "_fx_turn(fx, lk, picks, bots, streams, sb, t, pos, dlen)"
    if loop.count(turn) != 2:
        raise AssertionError("game_loop.tmpl: the effects' turns are not where codegen looks")
    planner = loop.replace(turn, turn.replace("_fx_turn(", "_fx_turn_planner(").replace("dlen)", "dlen, values)"))
    return [head + sep + PLANNER_BRANCH.sub("", loop, count=1), "@njit(cache=True)\ndef play_planner(" + planner]


def _batch_parts() -> list[str]:
    """``batch.tmpl`` with its bots' function twice, as the game loop (:func:`_game_loops`):
    ``batch_bots`` without the planner's branch, ``batch_bots_planner`` with it."""
    text = (HERE / "batch.tmpl").read_text(encoding="utf-8")
    head, sep, bots = text.partition("@njit(cache=True)\ndef batch_bots(")
    if not sep or not PLANNER_BRANCH.search(bots):
        raise AssertionError("batch.tmpl: the bots' function or its planner branch is not where codegen looks")
    return [head + sep + PLANNER_BRANCH.sub("", bots, count=1), "@njit(cache=True)\ndef batch_bots_planner(" + bots]


def plain_rule(ruleset: CompiledRuleset, rule: Any) -> Any:
    """``rule``'s kernel part run as plain Python (no numba): a function ``(counts, seq,
    lens, rnd, out)``, or None if the rule has no part. The source is the very text
    the kernel compiles, so a test can check every kind's part against its ``score``
    cheaply, over many tables."""
    import numpy as np

    seat_counts = tuple(ruleset.num_seats(n) for n in ruleset.player_counts)
    w = _Writer(ruleset, seat_counts)
    body = _kernel_body(rule, w)
    if body is None:
        return None
    source = "\n".join(
        [*w.arrays, *w.functions, f"def rule(counts, seq, lens, rnd, out):\n    N = lens.shape[0]\n{_indent(body)}"]
    )

    def njit(*args: Any, **kwargs: Any) -> Any:
        return lambda f: f

    namespace: dict[str, Any] = {"np": np, "njit": njit}
    exec(compile(source, f"<kernel part of rule {rule.id}>", "exec"), namespace)  # noqa: S102 - our own generated code
    return namespace["rule"]
