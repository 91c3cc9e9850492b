"""What the process has frozen out of the cyclic garbage collector's way, known
without counting it.

``gc.get_freeze_count()`` walks every frozen object to count them: about 3 ms in a
``ruledraft`` process, whose start freezes what its imports made (some 34,000
objects), and a run of games asks whether anything is frozen before it freezes more
(:func:`ruledraft.play.executor.steady_heap`, which leaves a heap its caller froze
frozen). What :func:`freeze` froze is remembered here: asked where it did, the answer
takes no walk.
"""

from __future__ import annotations

import gc

#: whether :func:`freeze` was called in this process (what it froze stays frozen: only
#: a caller's own ``gc.unfreeze()`` would thaw it)
_FROZE = False


def freeze() -> None:
    """``gc.freeze()``, remembered: everything alive now is left out of every later
    collection, for the life of the process."""
    global _FROZE
    gc.freeze()
    _FROZE = True


def frozen() -> bool:
    """Whether anything is frozen: known at once where :func:`freeze` froze it, else
    counted (``gc.get_freeze_count``)."""
    return _FROZE or gc.get_freeze_count() > 0
