"""A compare chunk holds more games than a lab tally buffers before folding them (as a
cluster's chunks of up to 2,000 games do): every game still gives its own values."""

from __future__ import annotations

import attrs

from ruledraft.lab import figures as lab_figures
from ruledraft.lab.compare import Side, comparison, empty_compare_tally, pairing, play_chunk
from ruledraft.language.loading import load_ruleset


def test_a_chunk_larger_than_the_fold_gives_the_comparison_of_small_chunks(monkeypatch):
    """play_chunk over more games than a tally folds at equals the same games in small chunks (no 'not yet folded' error)."""
    monkeypatch.setattr(lab_figures, "_FOLD_EVERY", 8)
    rs = load_ruleset("sushi-go")
    a = Side(rs, 3, ["greedy", "random", "random"], 4, label="A")
    b = Side(rs, 3, ["random"] * 3, 4, label="B")
    paired, why = pairing(a, b, False)
    assert paired
    whole = play_chunk(a, b, paired, 0, 30)
    parts = empty_compare_tally(a, b, paired)
    for start in range(0, 30, 5):
        parts.merge(play_chunk(a, b, paired, start, start + 5))
    assert whole.sums_a.n == parts.sums_a.n == 30
    assert comparison(a, b, whole, why) == comparison(a, b, parts, why)


def test_compare_on_one_process_plays_fast_games_in_large_chunks_with_the_same_figures(monkeypatch):
    """compare on one process: both sides on the kernel, chunks of up to 2,000 deals, sized by
    time (a chunk of 10 made the chunks' tallies most of the work: 20,000 games took 45 s);
    the comparison is the one chunks of 10 give; on the reference engine chunks stay at 10
    (a stop waits for a whole chunk)."""
    from ruledraft.lab import compare as compare_module
    from ruledraft.lab.compare import CompareWork, play_sides
    from ruledraft.play import executor

    monkeypatch.setattr(executor, "CHUNK_SECONDS", 1e9)  # as long as a chunk may be: the cap decides, not the clock

    sizes: list[int] = []
    play = CompareWork.play

    def counted(self, start, end, stop=None):
        sizes.append(end - start)
        return play(self, start, end, stop)

    monkeypatch.setattr(CompareWork, "play", counted)
    rs = load_ruleset("sushi-go")
    a = Side(rs, 3, ["random"] * 3, 5, label="A", engine="kernel")
    b = Side(rs, 3, ["first", "random", "random"], 5, label="B", engine="kernel")
    paired, why = pairing(a, b, False)
    large = play_sides(a, b, 2500, paired=paired)
    assert sum(sizes) == 2500 and max(sizes) == compare_module.KERNEL_CHUNK == 2000
    sizes.clear()
    monkeypatch.setattr(compare_module, "KERNEL_CHUNK", 10)
    small = play_sides(a, b, 2500, paired=paired)
    assert sum(sizes) == 2500 and max(sizes) == 10
    assert comparison(a, b, large, why) == comparison(a, b, small, why)
    sizes.clear()
    reference = attrs.evolve(a, engine="reference"), attrs.evolve(b, engine="reference")
    play_sides(*reference, 60, paired=paired)
    assert sum(sizes) == 60 and max(sizes) == 10
