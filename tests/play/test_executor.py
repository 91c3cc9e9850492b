"""The executor: chunks in, folded tallies out, records in game order, whatever the
order chunks finish in; paths made absolute before a work travels."""

from __future__ import annotations

import os
from types import SimpleNamespace

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


class Timed(Numbers):
    """Games that take ``seconds`` each on a clock of the test's own."""

    def __init__(self, seconds, inline_chunk):
        super().__init__()
        self.seconds = seconds
        self.inline_chunk = inline_chunk
        self.now = 0.0

    def clock(self):
        return self.now

    def play(self, start, end, stop=None):
        self.now += (end - start) * self.seconds
        return super().play(start, end, stop)


def test_in_process_chunks_grow_to_a_fifth_of_a_second_of_fast_games(monkeypatch):
    """The first chunk is a fiftieth of the run; where games are fast (10 us each) the
    next take about 0.2 s each, up to the work's inline_chunk; slow games (1 ms) stay in
    fiftieths. Every game is played once, in order."""
    from ruledraft.play import executor

    sizes = {}
    for seconds, inline in ((1e-5, 15_000), (1e-5, 50_000), (1e-3, 15_000)):
        work = Timed(seconds, inline)
        monkeypatch.setattr(executor, "time", SimpleNamespace(perf_counter=work.clock))
        total = run(work, 100_000, InProcess())
        assert total.games == list(range(100_000))
        sizes[seconds, inline] = [end - start for start, end in work.played]
    assert sizes[1e-5, 15_000] == [2000] + [15_000] * 6 + [8000]
    assert sizes[1e-5, 50_000] == [2000] + [20_000] * 4 + [18_000]
    assert sizes[1e-3, 15_000] == [2000] * 50


def test_a_bot_file_travels_by_its_absolute_path():
    """A FILE.py:CLASS spec names its file absolutely; other specs stay as they are."""
    assert absolute_spec("bot.py:Mine:depth=2") == os.path.abspath("bot.py") + ":Mine:depth=2"
    assert absolute_spec("/a/bot.py:Mine") == "/a/bot.py:Mine"
    assert absolute_spec("value:tempura=3") == "value:tempura=3"
    assert absolute_spec("mybots:Last") == "mybots:Last"
    assert absolute_spec("greedy") == "greedy"
