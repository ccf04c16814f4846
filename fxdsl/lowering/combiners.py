"""How the kernels compute a reduction's combiner: one table for the kernel
builder and the CUDA printer.

The combiner of a fold (`add`, `max`, `min`) and the value it starts from
are the dialect's (`graph.Combiner`, asked of a reduction op as `COMBINER`
and `identity()`); this module says how a kernel computes one over an
element type's domain: the arith op combining two partials, which the kernel
builder emits and the CUDA printer recognises in a `gpu.all_reduce` region,
and the same combination as C for the printer's block-reduction helper. Over
i1, max is `or` and min is `and` (from false and true): `arith.maxsi` would
compare i1 signed (true is -1). A block-wide reduction moves i1 partials as
i32 0/1 (warp shuffles take 32-bit values), reduced with the int combiner:
max and min of 0/1 are or and and.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute, Operation

from fxdsl.ir.graph import Combiner

Scalar = float | int | bool


@dataclass(frozen=True)
class ArithCombiner:
    op: type[Operation]
    """The arith op combining two partials (operands and result of one type)."""
    c: str
    """The same combination as a C expression of `a` and `b`."""


COMBINERS: dict[tuple[Combiner, str], ArithCombiner] = {
    (Combiner.ADD, "float"): ArithCombiner(arith.AddfOp, "a + b"),
    (Combiner.MAX, "float"): ArithCombiner(arith.MaximumfOp, "fx_maximumf(a, b)"),
    (Combiner.MIN, "float"): ArithCombiner(arith.MinimumfOp, "fx_minimumf(a, b)"),
    (Combiner.ADD, "int"): ArithCombiner(arith.AddiOp, "a + b"),
    (Combiner.MAX, "int"): ArithCombiner(arith.MaxSIOp, "fx_max(a, b)"),
    (Combiner.MIN, "int"): ArithCombiner(arith.MinSIOp, "fx_min(a, b)"),
    (Combiner.MAX, "bool"): ArithCombiner(arith.OrIOp, "a || b"),
    (Combiner.MIN, "bool"): ArithCombiner(arith.AndIOp, "a && b"),
}
"""(combiner, domain of the element type) -> how a kernel computes it."""

REDUCE_KINDS: dict[type[Operation], Combiner] = {
    combiner.op: kind for (kind, _), combiner in COMBINERS.items()
}
"""Combiner op in a `gpu.all_reduce` region -> the dialect's combiner."""


def domain(typ: Attribute) -> str:
    """`float`, `bool` (i1) or `int`: what selects a kind's combiner."""
    if isinstance(typ, AnyFloat):
        return "float"
    if isinstance(typ, IntegerType) and typ.width.data == 1:
        return "bool"
    return "int"


def combiner(kind: str, typ: Attribute) -> ArithCombiner:
    """How a kernel computes combiner `kind` over elements of `typ`
    (KeyError: none, as for a sum of i1, which the dialect does not have)."""
    return COMBINERS[Combiner(kind), domain(typ)]


def identity(kind: str, typ: Attribute) -> Scalar:
    """The value a fold of `kind` over `typ` starts from (the dialect's
    `Combiner.identity`; KeyError where no kernel computes the fold)."""
    combiner(kind, typ)
    return Combiner(kind).identity(typ)
