"""A straightforward hand-written Sushi Go! engine with random players: the yardstick.

Everything ruledraft learns from a rule file is written out here by hand, the way
one would code a single game. ``benchmarks/engine_speed.py`` runs it next to
ruledraft's data-driven engine so the two figures come from the same machine at
the same moment (timings on a shared machine drift; their ratio does not).

This file is a benchmark baseline only: nothing in ruledraft imports it.
"""

from __future__ import annotations

import random
import time

DECK = (
    ["tempura"] * 14
    + ["sashimi"] * 14
    + ["dumpling"] * 14
    + ["maki1"] * 6
    + ["maki2"] * 12
    + ["maki3"] * 8
    + ["egg"] * 5
    + ["salmon"] * 10
    + ["squid"] * 5
    + ["pudding"] * 10
    + ["wasabi"] * 6
    + ["chopsticks"] * 4
)
HAND = {2: 10, 3: 9, 4: 8, 5: 7}
NIGIRI = {"egg": 1, "salmon": 2, "squid": 3}
MAKI = {"maki1": 1, "maki2": 2, "maki3": 3}
DUMPLING = [0, 1, 3, 6, 10, 15]


def score_round(tables):
    scores = []
    icons = []
    for cards in tables:
        s = 0
        s += cards.count("tempura") // 2 * 5
        s += cards.count("sashimi") // 3 * 10
        s += DUMPLING[min(cards.count("dumpling"), 5)]
        free = 0
        for c in cards:
            if c == "wasabi":
                free += 1
            elif c in NIGIRI:
                if free:
                    free -= 1
                    s += 3 * NIGIRI[c]
                else:
                    s += NIGIRI[c]
        scores.append(s)
        icons.append(sum(MAKI.get(c, 0) for c in cards))
    ranked = sorted({i for i in icons if i > 0}, reverse=True)
    if ranked:
        first = [p for p, i in enumerate(icons) if i == ranked[0]]
        for p in first:
            scores[p] += 6 // len(first)
        if len(first) == 1 and len(ranked) > 1:
            second = [p for p, i in enumerate(icons) if i == ranked[1]]
            for p in second:
                scores[p] += 3 // len(second)
    return scores


def play(n: int, rng: random.Random):
    deck = DECK[:]
    rng.shuffle(deck)
    totals = [0] * n
    puddings = [0] * n
    for _ in range(3):
        size = HAND[n]
        hands = [deck[i * size : (i + 1) * size] for i in range(n)]
        del deck[: n * size]
        tables = [[] for _ in range(n)]
        while hands[0]:
            for p in range(n):
                hand, table = hands[p], tables[p]
                card = hand.pop(rng.randrange(len(hand)))
                if len(hand) and "chopsticks" in table and rng.random() < 0.5:
                    second = hand.pop(rng.randrange(len(hand)))
                    table.append(card)
                    table.append(second)
                    table.remove("chopsticks")
                    hand.append("chopsticks")
                else:
                    table.append(card)
            hands = hands[-1:] + hands[:-1]
        for p, s in enumerate(score_round(tables)):
            totals[p] += s
            puddings[p] += tables[p].count("pudding")
    most, least = max(puddings), min(puddings)
    if most != least:
        top = [p for p in range(n) if puddings[p] == most]
        for p in top:
            totals[p] += 6 // len(top)
        if n > 2:
            low = [p for p in range(n) if puddings[p] == least]
            for p in low:
                totals[p] -= 6 // len(low)
    return totals


def games_per_second(players: int = 4, seconds: float = 2.0) -> float:
    rng = random.Random(1)
    n = 0
    started = time.perf_counter()
    while time.perf_counter() - started < seconds:
        play(players, rng)
        n += 1
    return n / (time.perf_counter() - started)


if __name__ == "__main__":
    print(f"hand-written Sushi Go!, 4 random players: {games_per_second():,.0f} games/s")
