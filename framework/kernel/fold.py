"""The lab's per-card counts of a block of games, compiled: the loops behind
:meth:`ruledraft.lab.figures.LabTally._fold_cards`, for a process that has numba
loaded already (one that plays on the kernel).

Each function returns integer arrays that the lab adds to its sums exactly as its
numpy fold does (the same numbers: ``tests/kernel/test_kernel_fold.py`` compares
the two); each also says how large its numbers grew, so that the caller keeps to the
numpy fold (Python integers) wherever a sum could pass what an ``int64`` holds.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

# numba's compile flags compared quickly; inner functions made machine code only in their entry points;
# cached functions loaded without numba's registries; function ids that two processes never share (see each)
from ruledraft.kernel import numba_flags, numba_ids, numba_link, numba_load  # noqa: F401


@njit(cache=True)
def held_by_turn(actions: np.ndarray, slots: np.ndarray, K: int) -> Any:
    """From ``actions`` (games, turns, player seats; as ``Game.encode_action`` writes
    them) and ``slots`` (per card slot of an action, the card each action takes in it;
    ``K``: none): the copies of each card each seat took (games, seats, cards) and the
    cards taken on each turn (turns, cards)."""
    G, T, P = actions.shape
    E = slots.shape[0]
    held = np.zeros((G, P, K), np.int64)
    by_turn = np.zeros((T, K), np.int64)
    for g in range(G):
        for t in range(T):
            for p in range(P):
                a = actions[g, t, p]
                for e in range(E):
                    c = slots[e, a]
                    if c < K:
                        held[g, p, c] += 1
                        by_turn[t, c] += 1
    return held, by_turn


@njit(cache=True)
def _card_tables(P: int, K: int, top: int) -> Any:
    """The per-card sums both folds fill, zeroed: the parts' sums (cards, parts) and
    products (cards, parts, parts), takers and their wins (seats, cards), and per card
    and copies the seat-games, their wins, and m*m, w*w, m*w (cards, top)."""
    z = np.zeros
    tables = (z((K, 6), np.int64), z((K, 6, 6), np.int64), z((P, K), np.int64), z((P, K), np.int64))
    return tables + (
        z((K, top), np.int64),
        z((K, top), np.int64),
        z((K, top), np.int64),
        z((K, top), np.int64),
        z((K, top), np.int64),
    )


@njit(cache=True)
def card_sums(held: np.ndarray, wins: np.ndarray) -> Any:
    """The per-card sums of :meth:`LabTally._fold_cards` over ``held`` (games, seats,
    cards) and ``wins`` (games, seats): the :data:`~ruledraft.lab.figures.CARD_PARTS`
    summed (cards, parts) and their products (cards, parts, parts); per seat and card
    the games it took the card and its wins in them; per card and copies ``k`` the
    seat-games that took ``k`` copies, their wins and, with the game as the unit, the
    sums of m*m, w*w and m*w (cards, top); and the largest part (for the caller's
    bound)."""
    G, P, K = held.shape
    top = 1
    for g in range(G):
        for p in range(P):
            for c in range(K):
                if held[g, p, c] + 1 > top:
                    top = held[g, p, c] + 1
    total, products, takers, taker_wins, seats, won, mm, ww, mw = _card_tables(P, K, top)
    m_g = np.zeros(top, np.int64)
    w_g = np.zeros(top, np.int64)
    part = np.zeros(6, np.int64)
    bound = 0
    for g in range(G):
        wsum = 0
        for p in range(P):
            wsum += wins[g, p]
        for c in range(K):
            took = 0
            took_wins = 0
            copies = 0
            squares = 0
            times_wins = 0
            for p in range(P):
                h = held[g, p, c]
                w = wins[g, p]
                if h > 0:
                    took += 1
                    took_wins += w
                    takers[p, c] += 1
                    taker_wins[p, c] += w
                copies += h
                squares += h * h
                times_wins += h * w
                seats[c, h] += 1
                won[c, h] += w
                m_g[h] += 1
                w_g[h] += w
            for p in range(P):
                h = held[g, p, c]
                if m_g[h]:
                    mm[c, h] += m_g[h] * m_g[h]
                    ww[c, h] += w_g[h] * w_g[h]
                    mw[c, h] += m_g[h] * w_g[h]
                    m_g[h] = 0
                    w_g[h] = 0
            part[0] = took
            part[1] = took_wins
            part[2] = copies
            part[3] = squares
            part[4] = times_wins
            part[5] = wsum
            for i in range(6):
                x = part[i]
                total[c, i] += x
                if abs(x) > bound:
                    bound = abs(x)
                products[c, i, i] += x * x
                for j in range(i + 1, 6):
                    y = x * part[j]
                    products[c, i, j] += y
                    products[c, j, i] += y
    return total, products, takers, taker_wins, seats, won, mm, ww, mw, bound


@njit(cache=True)
def share_sums(
    pts: np.ndarray, j: int, counts: np.ndarray, s0: int, cards: np.ndarray, weights: np.ndarray, top: int
) -> Any:
    """One rule's points shared among the cards it reads (:meth:`LabTally._share`):
    ``pts[:, :, j]`` (games, scorings, rules, seats) against the copies of ``cards``
    (weighted) at ``counts[:, s0 + scoring]`` (games, scorings, seats, cards), no
    table's weighted copies reaching ``top``. Returns the points scored with none of
    the cards, the points scored with some (what a rule of one card gives it), per
    card and denominator (the weighted copies on that table) the numerators (cards,
    ``top``), and the sum of every magnitude added (a float: past 2**62 the caller
    keeps to Python integers)."""
    G, S, _, P = pts.shape
    nc = len(cards)
    sums = np.zeros((nc, top), np.int64)
    none = 0
    some = 0
    magnitude = 0.0
    for g in range(G):
        for s in range(S):
            for p in range(P):
                x = pts[g, s, j, p]
                if x == 0:
                    continue
                whole = 0
                for i in range(nc):
                    whole += weights[i] * counts[g, s0 + s, p, cards[i]]
                if whole == 0:
                    none += x
                    continue
                some += x
                for i in range(nc):
                    y = x * weights[i] * counts[g, s0 + s, p, cards[i]]
                    sums[i, whole] += y
                    magnitude += abs(float(y))
                magnitude += abs(float(x))
    return none, some, sums, magnitude


#: the most columns of a histogram of totals (and of a rule's share denominators) that
#: :func:`lab_block` makes: a block whose totals lie further apart is refused (a
#: ruleset's totals may reach 10**15; columns for them would exhaust the memory)
HIST_COLUMNS = 1 << 16


@njit(cache=True)
def lab_block(
    totals: np.ndarray,
    winners: np.ndarray,
    round_points: np.ndarray,
    rule_points: np.ndarray,
    moves: np.ndarray,
    tables: np.ndarray,
    unit: int,
    cards: bool,
    slots: np.ndarray,
    share_pos: np.ndarray,
    share_end: np.ndarray,
    share_first: np.ndarray,
    share_cards: np.ndarray,
    share_weights: np.ndarray,
) -> Any:
    """Every sum the lab folds from a block of kernel games (no dummy, no effects, no
    race), in one pass over each game, straight from :class:`~ruledraft.kernel.KernelGames`'
    arrays: :meth:`LabTally._fold` and, with ``cards``, :meth:`LabTally._fold_cards`
    (the three functions above and the numpy around them), the same numbers.

    ``slots`` as for :func:`held_by_turn`; the rules that share their points among cards
    in ``share_*`` (position in the lab's rule order, whether scored at game end, and
    their cards with their weights: rule ``i``'s at ``share_first[i]:share_first[i + 1]``
    of ``share_cards`` and ``share_weights``). Returns
    ``scalars`` (ok: 0 where an action is not a player's own cards, a sum could pass
    what an int64 holds or the totals lie more than :data:`HIST_COLUMNS` apart, the
    caller then folding the block as before; the lowest total;
    games with the top two tied; shared wins; no winner; a bound on the size of every
    number the block adds, below 2**62, for a caller that adds blocks together), the totals' histogram per seat
    (from the lowest), the margins' histogram, the wins, each rule's sums per seat, of
    their squares and of the squares over every seat, then for the cards: picks, the
    sum of their turns, copies taken (seats, cards), the card parts' sums and products,
    takers and their wins (seats, cards), per card and copies the seat-games, their
    wins and the sums of m*m, w*w and m*w (:func:`card_sums`), and per shared rule the
    points scored with none of its cards, with some, and the numerators per card and
    denominator (none for a rule of one card: the lab gives it ``some``). Its loops
    branch as little as they can (adding a zero instead): the data decide those
    branches at random."""
    G, N = totals.shape
    rounds, R0 = round_points.shape[1], round_points.shape[2]
    R = rule_points.shape[1]
    H, P = moves.shape[2], moves.shape[3]
    K = tables.shape[3]
    E, span = slots.shape
    S = len(share_pos)
    C = 1
    for i in range(S):
        C = max(C, share_first[i + 1] - share_first[i])
    scalars = np.zeros(6, np.int64)
    lo = totals[0, 0] if G else 0
    hi = lo
    for g in range(G):
        for s in range(N):
            lo = min(lo, totals[g, s])
            hi = max(hi, totals[g, s])
    top = rounds * H * E + 1  # more copies than a seat can take in a game (or hold at a scoring)
    width = 1
    for i in range(S):
        w = 1
        for e in range(share_first[i], share_first[i + 1]):
            w += share_weights[e] * (top - 1)
        width = max(width, w)
    # totals (or a share's denominators) too far apart for columns of counts: refused
    # (the caller's fold counts them in a mapping); what is made here stays small
    wide = hi - lo >= HIST_COLUMNS or width > HIST_COLUMNS
    if wide:
        hi, width = lo, 1
    hist = np.zeros((N, hi - lo + 1), np.int64)
    margins = np.zeros(hi - lo + 1, np.int64)
    wins = np.zeros(N, np.int64)
    rule_sum = np.zeros((R, N), np.int64)
    rule_sq = np.zeros((R, N), np.int64)
    rule_game_sq = np.zeros(R, np.int64)
    by_turn = np.zeros((H, K), np.int64)
    picks = np.zeros(K, np.int64)
    pick_turns = np.zeros(K, np.int64)
    taken = np.zeros((P, K), np.int64)
    total, products, takers, taker_wins, seats, won, mm, ww, mw = _card_tables(P, K, top)
    none = np.zeros(S, np.int64)
    some = np.zeros(S, np.int64)
    sums = np.zeros((S, C, width), np.int64)
    out = (scalars, hist, margins, wins, rule_sum, rule_sq, rule_game_sq, picks, pick_turns, taken, total)
    out2 = (products, takers, taker_wins, seats, won, mm, ww, mw, none, some, sums)
    if wide:
        return out + out2
    scalars[1] = lo
    w_row = np.zeros(N, np.int64)
    game = np.zeros(R, np.int64)
    held = np.zeros((P, K), np.int64)
    # the actions below ``single`` take one card each, the card of their own number (as
    # ``Game.encode_action`` writes a pick of one card): counted without reading ``slots``,
    # most of a game's moves (about a tenth off the block)
    single = 0
    while single < min(K, span) and slots[0, single] == single and (slots[1:, single] >= K).all():
        single += 1
    # the per-card sums a seat adds to, side by side (one line of memory and one address
    # reckoned where five arrays took five: about a tenth off the block), put into their
    # arrays after the games: per card and copies the seat-games, their wins, m*m, w*w
    # and m*w; per seat and card the copies taken, the games taken and their wins; per
    # number of copies in one game, its seats and their wins
    cm = np.zeros((K, top, 5), np.int64)
    pk = np.zeros((P, K, 3), np.int64)
    g_mw = np.zeros((top, 2), np.int64)
    weighted = np.zeros(C, np.int64)  # a shared rule's cards at one seat and scoring
    sum_w = 0
    sum_ww = 0
    big = 0  # the largest points of a rule at one scoring (found on the way: the sums are checked after)
    for g in range(G):
        k = 0
        for s in range(N):
            k += winners[g, s]
        share = unit // max(k, 1)
        wsum = 0
        nw = 0
        for s in range(N):
            won_s = min(winners[g, s], 1)
            w_row[s] = share * won_s
            wins[s] += w_row[s]
            wsum += w_row[s] if s < P else 0
            nw += won_s
            hist[s, totals[g, s] - lo] += 1
        scalars[3] += nw > 1
        scalars[4] += nw == 0
        margin = 0
        if P >= 2:
            first = max(totals[g, 0], totals[g, 1])
            second = min(totals[g, 0], totals[g, 1])
            for s in range(2, P):
                x = totals[g, s]
                second = max(second, min(first, x))
                first = max(first, x)
            margin = first - second
            scalars[2] += margin == 0  # (one player ties nobody)
        margins[margin] += 1
        game[:] = 0
        for s in range(N):
            for r in range(R0):
                x = 0
                for rd in range(rounds):
                    y = round_points[g, rd, r, s]
                    big = max(big, abs(y))
                    x += y
                rule_sum[r, s] += x
                rule_sq[r, s] += x * x
                game[r] += x
            for r in range(R0, R):
                x = rule_points[g, r, s]
                big = max(big, abs(x))
                rule_sum[r, s] += x
                rule_sq[r, s] += x * x
                game[r] += x
        for r in range(R):
            rule_game_sq[r] += game[r] * game[r]
        if not cards:
            continue
        held[:, :] = 0
        for rd in range(rounds):
            for h in range(H):
                for p in range(P):
                    a = moves[g, rd, h, p]
                    if 0 <= a < single:  # one card, the action's own number: no look-up
                        held[p, a] += 1
                        by_turn[h, a] += 1
                        continue
                    if a < 0 or a >= span:
                        scalars[0] = 0
                        return out + out2
                    c = slots[0, a]  # the first card of an action is always one
                    held[p, c] += 1
                    by_turn[h, c] += 1
                    for e in range(1, E):
                        c = slots[e, a]
                        if c < K:
                            held[p, c] += 1
                            by_turn[h, c] += 1
        for c in range(K):
            took = 0
            took_wins = 0
            copies = 0
            squares = 0
            times_wins = 0
            for p in range(P):
                h = held[p, c]
                w = w_row[p]
                t = min(h, 1)
                pk[p, c, 0] += h
                took += t
                took_wins += t * w
                pk[p, c, 1] += t
                pk[p, c, 2] += t * w
                copies += h
                squares += h * h
                times_wins += h * w
                cm[c, h, 0] += 1
                cm[c, h, 1] += w
                g_mw[h, 0] += 1
                g_mw[h, 1] += w
            for p in range(P):  # each number of copies once: the second time adds zeros
                h = held[p, c]
                m, w = g_mw[h, 0], g_mw[h, 1]
                cm[c, h, 2] += m * m
                cm[c, h, 3] += w * w
                cm[c, h, 4] += m * w
                g_mw[h, 0] = 0
                g_mw[h, 1] = 0
            total[c, 0] += took
            total[c, 1] += took_wins
            total[c, 2] += copies
            total[c, 3] += squares
            total[c, 4] += times_wins
            products[c, 0, 0] += took * took
            products[c, 0, 1] += took * took_wins
            products[c, 0, 2] += took * copies
            products[c, 0, 3] += took * squares
            products[c, 0, 4] += took * times_wins
            products[c, 0, 5] += took * wsum
            products[c, 1, 1] += took_wins * took_wins
            products[c, 1, 2] += took_wins * copies
            products[c, 1, 3] += took_wins * squares
            products[c, 1, 4] += took_wins * times_wins
            products[c, 1, 5] += took_wins * wsum
            products[c, 2, 2] += copies * copies
            products[c, 2, 3] += copies * squares
            products[c, 2, 4] += copies * times_wins
            products[c, 2, 5] += copies * wsum
            products[c, 3, 3] += squares * squares
            products[c, 3, 4] += squares * times_wins
            products[c, 3, 5] += squares * wsum
            products[c, 4, 4] += times_wins * times_wins
            products[c, 4, 5] += times_wins * wsum
        sum_w += wsum
        sum_ww += wsum * wsum
        for i in range(S):
            j = share_pos[i]
            end = share_end[i]
            e0, e1 = share_first[i], share_first[i + 1]
            if e1 - e0 == 1:  # a rule of one card gives it what it scored with any (``some``): no numerators
                # summed here, not in some[i] and none[i]; a loop for each kind of scoring (not
                # a choice at every seat) and the columns checked once: about a tenth off the block
                c = share_cards[e0]
                got = 0
                scored = 0
                most = 0  # the most copies at a scoring, checked against the columns after the loop
                if end:
                    for p in range(P):
                        x = rule_points[g, j, p]
                        t = tables[g, rounds, p, c]
                        most = max(most, t)
                        got += x * min(t, 1)
                        scored += x
                else:
                    for sc in range(rounds):
                        xs = round_points[g, sc, j]
                        tb = tables[g, sc]
                        for p in range(P):
                            x = xs[p]
                            t = tb[p, c]
                            most = max(most, t)
                            got += x * min(t, 1)
                            scored += x
                if share_weights[e0] * most >= width:  # weights are positive
                    return out + out2
                some[i] += got
                none[i] += scored - got
                continue
            got = 0
            scored = 0
            for sc in range(1 if end else rounds):
                at = rounds if end else sc
                xs = rule_points[g, j] if end else round_points[g, sc, j]
                tb = tables[g, at]
                for p in range(P):
                    x = xs[p]
                    if x == 0:
                        continue
                    scored += x
                    whole = 0
                    for e in range(e0, e1):  # each card's weighted copies, kept for the numerators
                        v = share_weights[e] * tb[p, share_cards[e]]
                        weighted[e - e0] = v
                        whole += v
                    if whole == 0:
                        continue
                    if whole >= width:
                        return out + out2
                    got += x
                    for k in range(e1 - e0):
                        sums[i, k, whole] += x * weighted[k]
            some[i] += got
            none[i] += scored - got
    for p in range(P):
        for c in range(K):
            taken[p, c] += pk[p, c, 0]
            takers[p, c] += pk[p, c, 1]
            taker_wins[p, c] += pk[p, c, 2]
    for c in range(K):
        for h in range(top):
            seats[c, h] += cm[c, h, 0]
            won[c, h] += cm[c, h, 1]
            mm[c, h] += cm[c, h, 2]
            ww[c, h] += cm[c, h, 3]
            mw[c, h] += cm[c, h, 4]
    for c in range(K):
        # the game's weight sum is the same part for every card: its sum and square are
        # added here once a block, not once a card and game in the loop above
        total[c, 5] += sum_w
        products[c, 5, 5] += sum_ww
        for i in range(6):
            for j in range(i + 1, 6):
                products[c, j, i] = products[c, i, j]
    for h in range(H):
        for c in range(K):
            picks[c] += by_turn[h, c]
            pick_turns[c] += (h + 1) * by_turn[h, c]
    # what the sums could reach: each part of a card at most P * (top - 1) * max(top - 1,
    # unit) (the largest of took, its wins, copies, their squares, copies times wins),
    # each share at most G * scorings * P * the largest points * width. Past 2**62 an
    # int64 could have wrapped on the way: the block is refused, its sums thrown away
    bound = float(big) * (rounds + 1) * N
    part = float(P) * (top - 1) * max(top - 1, unit)
    shared = float(G) * (rounds + 1) * P * big * (width + 1)
    most = max(bound * bound * max(G, 1), part * part * max(G, 1), shared)
    if most >= 2.0**62:
        return out + out2
    scalars[5] = np.int64(most) + 1
    scalars[0] = 1
    return out + out2


def warm() -> None:
    """Compile these functions (or load them from numba's cache) for the arrays the lab
    passes: int64 throughout, the points C-contiguous or a view (one of each), and
    :func:`lab_block` for a kernel's block."""
    held, _ = held_by_turn(np.zeros((1, 1, 1), np.int64), np.zeros((1, 2), np.int64), 2)
    card_sums(held, np.zeros((1, 1), np.int64))
    counts = np.zeros((1, 1, 1, 2), np.int64)
    one = np.zeros(1, np.int64)
    share_sums(np.zeros((1, 1, 1, 1), np.int64), 0, counts, 0, one, one + 1, 2)
    share_sums(np.zeros((2, 1, 1, 2), np.int64)[..., :1], 0, np.zeros((2, 1, 1, 2), np.int64), 0, one, one + 1, 2)
    lab_block(*block_arguments())


def block_arguments() -> tuple[Any, ...]:
    """:func:`lab_block`'s arguments for a block of one game: the types the lab passes."""
    z2, z4, z1 = np.zeros((1, 1), np.int64), np.zeros((1, 1, 1, 1), np.int64), np.zeros(1, np.int64)
    return (z2, z2, z4, z2[None], z4, z4, 1, True, z2, z1, z1 > 0, np.zeros(2, np.int64), z1, z1)
