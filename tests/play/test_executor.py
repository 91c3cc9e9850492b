"""The executor: chunks in, folded tallies out, records in game order, whatever the
order chunks finish in; paths made absolute before a work travels."""

from __future__ import annotations

import os

from ruledraft.play.bot_specs import absolute_spec
from ruledraft.play.executor import Chunk, Fold, InProcess, run


class Count:
    """A tally of how many games, and which."""

    def __init__(self, games=()):
        self.games = list(games)

    def merge(self, other):
        self.games += other.games


class Numbers:
    """A work whose games are their own indices."""

    cap = 1000
    inline_chunk = 7

    def __init__(self):
        self.played = []

    def empty(self):
        return Count()

    def play(self, start, end, stop=None):
        self.played.append((start, end))
        return Chunk(start, end, Count(range(start, end)), tuple(range(start, end)))


def test_records_are_handed_over_in_game_order_whatever_order_chunks_finish_in():
    """Chunks folded out of order give their records in game order, each once, and every game's count."""
    seen, progress = [], []
    fold = Fold(Count(), on_records=seen.extend, progress=progress.append)
    for start in (20, 0, 30, 10):
        fold.add(Chunk(start, start + 10, Count(range(start, start + 10)), tuple(range(start, start + 10))))
        assert seen == list(range(len(seen)))  # never a game before one that came earlier
    total = fold.finish()
    assert seen == list(range(40))
    assert sorted(total.games) == list(range(40))
    assert progress == [10, 10, 10, 10]


def test_after_a_gap_the_records_that_finished_are_handed_over_in_order():
    """A stop leaves a gap: finish() hands over the chunks after it too, in order."""
    seen = []
    fold = Fold(Count(), on_records=seen.extend)
    fold.add(Chunk(20, 30, Count(), tuple(range(20, 30))))
    fold.add(Chunk(0, 10, Count(), tuple(range(10))))
    assert seen == list(range(10))
    fold.finish()
    assert seen == list(range(10)) + list(range(20, 30))


def test_in_process_plays_every_game_once_in_small_chunks():
    """run() on this process plays games 0..N once each, in chunks of the work's size."""
    work = Numbers()
    records = []
    total = run(work, 500, InProcess(), on_records=records.extend)
    assert total.games == records == list(range(500))
    assert {end - start for start, end in work.played} == {7, 500 % 7}


def test_a_bot_file_travels_by_its_absolute_path():
    """A FILE.py:CLASS spec names its file absolutely; other specs stay as they are."""
    assert absolute_spec("bot.py:Mine:depth=2") == os.path.abspath("bot.py") + ":Mine:depth=2"
    assert absolute_spec("/a/bot.py:Mine") == "/a/bot.py:Mine"
    assert absolute_spec("value:tempura=3") == "value:tempura=3"
    assert absolute_spec("mybots:Last") == "mybots:Last"
    assert absolute_spec("greedy") == "greedy"
