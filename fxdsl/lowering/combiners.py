"""Reduction combiners: one table for the kernel builder and the CUDA printer.

A reduction kind (`add`, `max`, `min`) combines two partial results with an
arith op and starts from that op's identity; both depend on the element
type's domain. The kernel builder emits the op and the identity constant;
the CUDA printer recognises the op in a `gpu.all_reduce` region and prints
the same combination and identity in its block-reduction helper. Over i1,
max is `or` and min is `and` (from false and true): `arith.maxsi` would
compare i1 signed (true is -1), and its integer identity, -1, is true.
A block-wide reduction moves i1 partials as i32 0/1 (warp shuffles take
32-bit values), reduced with the int combiner: max and min of 0/1 are or
and and.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.ir import Attribute, Operation

Scalar = float | int | bool


@dataclass(frozen=True)
class Combiner:
    op: type[Operation]
    """The arith op combining two partials (operands and result of one type)."""
    c: str
    """The same combination as a C expression of `a` and `b`."""
    identity: Callable[[int], Scalar]
    """The identity, given the element type's bit width."""


def _int_min(width: int) -> int:
    return -(2 ** (width - 1))


def _int_max(width: int) -> int:
    return 2 ** (width - 1) - 1


COMBINERS: dict[tuple[str, str], Combiner] = {
    ("add", "float"): Combiner(arith.AddfOp, "a + b", lambda _: 0.0),
    ("max", "float"): Combiner(
        arith.MaximumfOp, "fx_maximumf(a, b)", lambda _: float("-inf")
    ),
    ("min", "float"): Combiner(
        arith.MinimumfOp, "fx_minimumf(a, b)", lambda _: float("inf")
    ),
    ("add", "int"): Combiner(arith.AddiOp, "a + b", lambda _: 0),
    ("max", "int"): Combiner(arith.MaxSIOp, "fx_max(a, b)", _int_min),
    ("min", "int"): Combiner(arith.MinSIOp, "fx_min(a, b)", _int_max),
    ("max", "bool"): Combiner(arith.OrIOp, "a || b", lambda _: False),
    ("min", "bool"): Combiner(arith.AndIOp, "a && b", lambda _: True),
}
"""(kind, domain of the element type) -> combiner."""

REDUCE_KINDS: dict[type[Operation], str] = {
    combiner.op: kind for (kind, _), combiner in COMBINERS.items()
}
"""Combiner op in a `gpu.all_reduce` region -> reduction kind."""


def domain(typ: Attribute) -> str:
    """`float`, `bool` (i1) or `int`: what selects a kind's combiner."""
    if isinstance(typ, AnyFloat):
        return "float"
    if isinstance(typ, IntegerType) and typ.width.data == 1:
        return "bool"
    return "int"


def combiner(kind: str, typ: Attribute) -> Combiner:
    """The combiner of `kind` over elements of `typ` (KeyError: none, as for
    a sum of i1, which the dialect does not have)."""
    return COMBINERS[kind, domain(typ)]


def identity(kind: str, typ: Attribute) -> Scalar:
    """The value a reduction of `kind` over `typ` starts from."""
    width = typ.width.data if isinstance(typ, IntegerType) else 32
    return combiner(kind, typ).identity(width)
