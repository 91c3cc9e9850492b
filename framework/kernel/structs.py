"""The records the kernels' card effects pass from function to function: the table an
effect acts on (``Fx``) and what the greedy and value bots' look at a decision works
on (``Look``), as numba structures behind one reference.

As named tuples of arrays (27 and 20 of them), every call, assignment and return
handed each array on with its reference count: in numba's typing, in the machine code
and in LLVM's passes over it, and again on every call as the games ran. A structure
is one pointer. Measured on Big Banquet and Caravan Bazaar: a fifth off their
kernels' compile (73 -> 59 s of processor time for the two, the suite's optimisation),
and random and greedy games on Master Menu and Big Banquet about twice as fast.
Defined here, in a module of their own, so numba's cache finds their types by name
from every kernel module."""

from __future__ import annotations

from typing import Any

from numba.core import types
from numba.experimental import structref

#: numba's functions, untyped
_unliteral: Any = types.unliteral
_define_proxy: Any = structref.define_proxy

#: the fields of ``Fx``, in its constructor's order (the kernel's effects.tmpl says what each is)
FX_FIELDS = (
    "hand hl slot counts seq lens placed npl opts jobs dis dec evp ctr deck shown rest fkeys gs ost oseed und rpl sv svl kn tq"
).split()

#: the fields of ``Look``, in its constructor's order
LOOK_FIELDS = "fy pool keys cnt kc ks kl rpts gpts zc zs zl picks best deck rpos kcounts kseq klens totals prog lprog ltook ldisc".split()


class _Record(types.StructRef):
    """A structure typed by its fields' types, as the constructor was given them."""

    def preprocess_fields(self, fields: Any) -> Any:
        return tuple((name, _unliteral(t)) for name, t in fields)


@structref.register
class FxType(_Record):
    """numba's type of an ``Fx``."""


@structref.register
class LookType(_Record):
    """numba's type of a ``Look``."""


class Fx(structref.StructRefProxy):
    """The table of one game as the card effects see it (made in compiled code only)."""


class Look(structref.StructRefProxy):
    """A decision's look: a copy of the table, the hidden cards re-dealt (compiled code only)."""


_define_proxy(Fx, FxType, FX_FIELDS)
_define_proxy(Look, LookType, LOOK_FIELDS)
