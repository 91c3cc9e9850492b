"""What a card effect or a race did, in the words ``play`` prints for it (shared with
the browser's table: they live in :mod:`ruledraft.play.words`)."""

from __future__ import annotations

from ruledraft.play.words import EffectSpeech as EffectSpeech
from ruledraft.play.words import counted as counted
from ruledraft.play.words import event_line as event_line
from ruledraft.play.words import ordinal as ordinal
