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
    total = np.zeros((K, 6), np.int64)
    products = np.zeros((K, 6, 6), np.int64)
    takers = np.zeros((P, K), np.int64)
    taker_wins = np.zeros((P, K), np.int64)
    seats = np.zeros((K, top), np.int64)
    won = np.zeros((K, top), np.int64)
    mm = np.zeros((K, top), np.int64)
    ww = np.zeros((K, top), np.int64)
    mw = np.zeros((K, top), np.int64)
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


def warm() -> None:
    """Compile these functions (or load them from numba's cache) for the arrays the lab
    passes: int64 throughout, the points C-contiguous or a view (one of each)."""
    held, _ = held_by_turn(np.zeros((1, 1, 1), np.int64), np.zeros((1, 2), np.int64), 2)
    card_sums(held, np.zeros((1, 1), np.int64))
    counts = np.zeros((1, 1, 1, 2), np.int64)
    one = np.zeros(1, np.int64)
    share_sums(np.zeros((1, 1, 1, 1), np.int64), 0, counts, 0, one, one + 1, 2)
    share_sums(np.zeros((2, 1, 1, 2), np.int64)[..., :1], 0, np.zeros((2, 1, 1, 2), np.int64), 0, one, one + 1, 2)
