"""What the process has frozen out of the cyclic garbage collector's way, known
without counting it; and whether code from elsewhere (a bot's, a plug-in's) was
loaded, whose objects may hold what only the interpreter's end would write.

``gc.get_freeze_count()`` walks every frozen object to count them: about 3 ms in a
``ruledraft`` process, whose start freezes what its imports made (some 34,000
objects), and a run of games asks whether anything is frozen before it freezes more
(:func:`ruledraft.play.executor.steady_heap`, which leaves a heap its caller froze
frozen). What :func:`freeze` froze is remembered here: asked where it did, the answer
takes no walk.
"""

from __future__ import annotations

import gc
import sys

#: whether :func:`freeze` was called in this process (what it froze stays frozen: only
#: a caller's own ``gc.unfreeze()`` would thaw it)
_FROZE = False


def freeze() -> None:
    """``gc.freeze()``, remembered: everything alive now is left out of every later
    collection, for the life of the process."""
    global _FROZE
    gc.freeze()
    _FROZE = True


def thaw() -> None:
    """``gc.unfreeze()``, remembered: nothing is frozen any more (a caller that ran the
    launcher in its own process, as the tests do, lets its objects go again)."""
    global _FROZE
    gc.unfreeze()
    _FROZE = False


def frozen() -> bool:
    """Whether anything is frozen: known at once where :func:`freeze` froze it, else
    counted (``gc.get_freeze_count``)."""
    return _FROZE or gc.get_freeze_count() > 0


#: the top-level modules ruledraft's commands and runs import themselves, beside Python's
#: own: its dependencies, then those of its extras that a command loads (the report's
#: plots, a Dask cluster, tune's search); one left out only costs a run its quick end
OWN = frozenset(
    "ruledraft numba llvmlite numpy scipy typer click rich markdown_it mdurl pygments shellingham yaml _yaml "
    "jsonschema jsonschema_specifications referencing rpds attr attrs lark typing_extensions annotated_doc idna "
    "cython_runtime __mp_main__ "
    "matplotlib mpl_toolkits PIL cycler dateutil fontTools kiwisolver pyparsing packaging six "
    "dask distributed cloudpickle toolz tlz locket msgpack psutil sortedcontainers tblib tornado zict jinja2 "
    "markupsafe importlib_metadata zipp lazy_importer fsspec partd "
    "optuna colorlog tqdm sqlalchemy alembic".split()
)


#: what the site's start-up imports of its own (a virtual environment's and an editable
#: install's hooks): no code of a bot's or a plug-in's
SITE = frozenset(("_distutils_hack", "sitecustomize", "usercustomize", "_virtualenv"))

#: whether the process's ``__main__`` is the ``ruledraft`` command's (:func:`launched`)
#: rather than a script of the user's that runs ruledraft
_LAUNCHED = False


def launched() -> None:
    """Note that the process's ``__main__`` is the ``ruledraft`` command's own."""
    global _LAUNCHED
    _LAUNCHED = True


def own_module(name: str) -> bool:
    """Whether the module named ``name`` is ruledraft's own (its dependencies' and the
    site's too) or Python's (a bot's file is ``ruledraft_bot_...``, a plug-in's
    ``ruledraft_plugin_...``, a script of the user's ``__main__``: none of them)."""
    if name == "__main__":
        return _LAUNCHED
    top = name.partition(".")[0]
    return (
        top in OWN
        or top in SITE
        or top in sys.stdlib_module_names
        or top.startswith(("ruledraft_kernel_", "_cython_", "_cyutility", "_sysconfigdata", "__editable__"))
    )


def code_from_elsewhere(loaded: frozenset[str] = frozenset()) -> bool:
    """Whether a module imported since ``loaded`` (the modules then) is neither
    ruledraft's nor Python's: a bot's or a plug-in's code, which may hold a file open
    with lines not yet written."""
    return not all(own_module(name) for name in sys.modules.keys() - loaded)
