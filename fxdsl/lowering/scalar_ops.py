"""Elementwise graph ops as scalar `arith`/`math` ops: one table entry per op.

An op declaring `SCALAR_MATH` (`graph.sin`: `math.sin`) needs no entry: the
table takes that `math` op for it; the entries here are the ops whose
element is more than one `math` op (`graph.gelu`) or depends on the dtype.

Kernels compute floats in f32 (f16/bf16 are storage types: loads extend,
stores truncate), integers in their own width and booleans as i1. Each entry
of `SCALAR_OPS` takes the emitter, the operands' scalar values (already in
compute types) and the graph op, and returns the scalar result.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Callable
from typing import Protocol

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    Signedness,
    f32,
    i1,
)
from xdsl.ir import Attribute, Operation, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.graph import FLOAT_TYPES, dtype_of


class Emitter(Protocol):
    """Where scalar code goes: `emit` appends an op and returns its result."""

    def emit(self, op: Operation) -> SSAValue: ...

    def const(self, value: float | int, typ: Attribute) -> SSAValue: ...


def compute_type(dtype: Attribute) -> Attribute:
    """The type a kernel computes an element of `dtype` in."""
    return f32 if dtype in FLOAT_TYPES else dtype


def is_float(value: SSAValue) -> bool:
    return isinstance(value.type, AnyFloat)


def constant_op(value: float | int, typ: Attribute) -> arith.ConstantOp:
    """`arith.constant` of a Python number in `typ` (index, int, float)."""
    if isinstance(typ, AnyFloat):
        return arith.ConstantOp(FloatAttr(float(value), typ))
    if isinstance(typ, IndexType):
        return arith.ConstantOp(IntegerAttr(int(value), typ))
    assert isinstance(typ, IntegerType)
    if typ == i1:
        return arith.ConstantOp(IntegerAttr(int(bool(value)), typ))
    return arith.ConstantOp(IntegerAttr(int(value), typ))


def convert(e: Emitter, value: SSAValue, dtype: Attribute) -> SSAValue:
    """numpy `astype(dtype)` of a compute value, result in compute type
    (rounding through f16/bf16 happens: truncate, then extend back)."""
    target = compute_type(dtype)
    source = value.type
    if isinstance(source, AnyFloat):
        if isinstance(target, AnyFloat):
            if dtype != f32:
                return e.emit(arith.ExtFOp(e.emit(arith.TruncFOp(value, dtype)), f32))
            return value
        if target == i1:
            return e.emit(arith.CmpfOp(value, e.const(0.0, source), "une"))
        return e.emit(arith.FPToSIOp(value, target))
    assert isinstance(source, IntegerType)
    assert isinstance(target, Attribute)
    if isinstance(target, AnyFloat):
        cast = arith.UIToFPOp if source == i1 else arith.SIToFPOp
        wide = e.emit(cast(value, dtype))  # type: ignore[arg-type]
        return wide if dtype == f32 else e.emit(arith.ExtFOp(wide, f32))
    assert isinstance(target, IntegerType)
    if target == source:
        return value
    if target == i1:
        return e.emit(arith.CmpiOp(value, e.const(0, source), "ne"))
    if source.width.data < target.width.data:
        ext = arith.ExtUIOp if source == i1 else arith.ExtSIOp
        return e.emit(ext(value, target))
    return e.emit(arith.TruncIOp(value, target))


def _float_or_int(
    float_op: type[Operation], int_op: type[Operation]
) -> Callable[[Emitter, list[SSAValue], Operation], SSAValue]:
    def emit(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
        kind = float_op if is_float(args[0]) else int_op
        return e.emit(kind(*args))  # type: ignore[call-arg]

    return emit


def _math(
    op_class: type[Operation],
) -> Callable[[Emitter, list[SSAValue], Operation], SSAValue]:
    return lambda e, args, _op: e.emit(op_class(*args))  # type: ignore[call-arg]


def _neg(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    (x,) = args
    if is_float(x):
        return e.emit(arith.NegfOp(x))
    return e.emit(arith.SubiOp(e.const(0, x.type), x))


def _sigmoid_of(e: Emitter, x: SSAValue) -> SSAValue:
    one = e.const(1.0, x.type)
    denominator = e.emit(arith.AddfOp(one, e.emit(math.ExpOp(e.emit(arith.NegfOp(x))))))
    return e.emit(arith.DivfOp(one, denominator))


def _gelu(e: Emitter, args: list[SSAValue], op: Operation) -> SSAValue:
    (x,) = args
    assert isinstance(op, graph.GeluOp)
    half, one = e.const(0.5, x.type), e.const(1.0, x.type)
    if op.mode == "tanh":
        # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        cube = e.emit(arith.MulfOp(e.emit(arith.MulfOp(x, x)), x))
        inner = e.emit(
            arith.AddfOp(x, e.emit(arith.MulfOp(e.const(0.044715, x.type), cube)))
        )
        scaled = e.emit(
            arith.MulfOp(e.const(pymath.sqrt(2 / pymath.pi), x.type), inner)
        )
        gate = e.emit(math.TanhOp(scaled))
    else:
        # 0.5 x (1 + erf(x / sqrt(2)))
        scaled = e.emit(arith.MulfOp(x, e.const(1 / pymath.sqrt(2), x.type)))
        gate = e.emit(math.ErfOp(scaled))
    return e.emit(
        arith.MulfOp(e.emit(arith.MulfOp(half, x)), e.emit(arith.AddfOp(one, gate)))
    )


def _relu(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    (x,) = args
    if is_float(x):  # x < 0 ? 0 : x, so -0.0 and NaN stay (graph.relu)
        zero = e.const(0.0, x.type)
        below = e.emit(arith.CmpfOp(x, zero, "olt"))
        return e.emit(arith.SelectOp(below, zero, x))
    return e.emit(arith.MaxSIOp(x, e.const(0, x.type)))


def _abs(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    (x,) = args
    return e.emit(math.AbsFOp(x) if is_float(x) else math.AbsIOp(x))


def _reciprocal(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    return e.emit(arith.DivfOp(e.const(1.0, args[0].type), args[0]))


def _div(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    # integers floor-divide, as the reference (torch `//`)
    return e.emit(
        arith.DivfOp(*args) if is_float(args[0]) else arith.FloorDivSIOp(*args)
    )


def _pow(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    return e.emit(math.PowFOp(*args) if is_float(args[0]) else math.IPowIOp(*args))


def _compare(
    float_pred: str, signed_pred: str
) -> Callable[[Emitter, list[SSAValue], Operation], SSAValue]:
    unsigned_pred = (
        signed_pred.replace("s", "u", 1) if signed_pred[0] == "s" else signed_pred
    )

    def emit(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
        if is_float(args[0]):
            return e.emit(arith.CmpfOp(args[0], args[1], float_pred))
        # booleans compare unsigned (false < true)
        predicate = unsigned_pred if args[0].type == i1 else signed_pred
        return e.emit(arith.CmpiOp(args[0], args[1], predicate))

    return emit


def _cast(e: Emitter, args: list[SSAValue], op: Operation) -> SSAValue:
    return convert(e, args[0], dtype_of(op.results[0]))


def _select(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    return e.emit(arith.SelectOp(*args))


def _logical(
    combine: Callable[[Emitter, SSAValue, SSAValue], SSAValue],
) -> Callable[[Emitter, list[SSAValue], Operation], SSAValue]:
    return lambda e, args, _op: combine(e, args[0], args[1])


# i1 logic as selects and compares: ops every backend (CUDA printer, IR
# emulator) already has for booleans.
def _and(e: Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.emit(arith.SelectOp(a, b, e.const(0, i1)))


def _or(e: Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.emit(arith.SelectOp(a, e.const(1, i1), b))


def _not(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    return e.emit(arith.CmpiOp(args[0], e.const(0, i1), "eq"))


def _xor(e: Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
    return e.emit(arith.CmpiOp(a, b, "ne"))


def _bitwise(
    kind: type[arith.AndIOp | arith.OrIOp | arith.XOrIOp],
    logical: Callable[[Emitter, SSAValue, SSAValue], SSAValue],
) -> Callable[[Emitter, list[SSAValue], Operation], SSAValue]:
    """An integer bitwise op; on i1 its logical form (`_and`, ...)."""

    def rule(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
        a, b = args
        return logical(e, a, b) if a.type == i1 else e.emit(kind(a, b))

    return rule


def _bitwise_not(e: Emitter, args: list[SSAValue], op: Operation) -> SSAValue:
    (x,) = args
    if x.type == i1:
        return _not(e, args, op)
    assert isinstance(x.type, IntegerType)
    unsigned = x.type.signedness.data == Signedness.UNSIGNED
    ones = (1 << x.type.width.data) - 1 if unsigned else -1
    return e.emit(arith.XOrIOp(x, e.const(ones, x.type)))


def _shift(left: bool) -> Callable[[Emitter, list[SSAValue], Operation], SSAValue]:
    """torch's shifts: an amount outside [0, width) gives 0 (left) or the
    sign fill (right), where C's shift is undefined; so the amount is
    clamped into range before the shift (no undefined shift is ever
    computed, even where its result is not selected)."""

    def rule(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
        a, b = args
        assert isinstance(a.type, IntegerType)
        width = a.type.width.data
        inside = _and(
            e,
            e.emit(arith.CmpiOp(b, e.const(0, b.type), "sge")),
            e.emit(arith.CmpiOp(b, e.const(width, b.type), "slt")),
        )
        # a signed right shift past the width is the sign fill: a shift by
        # width - 1; a left one, or an unsigned (logical) right one, is 0
        unsigned = a.type.signedness.data == Signedness.UNSIGNED
        fills_sign = not left and not unsigned
        fallback = e.const(width - 1 if fills_sign else 0, b.type)
        amount = e.emit(arith.SelectOp(inside, b, fallback))
        if fills_sign:
            return e.emit(arith.ShRSIOp(a, amount))
        # (ShRSI on an unsigned C type is C's logical shift)
        kind = arith.ShLIOp if left else arith.ShRSIOp
        shifted = e.emit(kind(a, amount))
        return e.emit(arith.SelectOp(inside, shifted, e.const(0, a.type)))

    return rule


def _clamp(e: Emitter, args: list[SSAValue], op: Operation) -> SSAValue:
    assert isinstance(op, graph.ClampOp)
    (x,) = args
    kinds = (arith.MaximumfOp, arith.MinimumfOp)
    if not is_float(x):
        kinds = (arith.MaxSIOp, arith.MinSIOp)
    for kind, bound in zip(kinds, op.bounds):
        if bound is not None:
            limit = e.const(bound if is_float(x) else int(bound), x.type)
            x = e.emit(kind(x, limit))  # type: ignore[call-arg]
    return x


def _fmod_of(e: Emitter, a: SSAValue, b: SSAValue) -> SSAValue:
    # a - trunc(a / b) * b in one rounding (fma); a quotient rounded up to
    # the next integer leaves a remainder of the wrong sign: add b back. A
    # zero quotient leaves a itself (fma's 0 * inf would be NaN). Exact
    # while |a / b| < 2^24, where the f32 quotient resolves the integer;
    # beyond, the result carries the quotient's rounding (C's fmodf does not).
    quotient = e.emit(math.TruncOp(e.emit(arith.DivfOp(a, b))))
    fused = e.emit(math.FmaOp(e.emit(arith.NegfOp(quotient)), b, a))
    whole = e.emit(arith.CmpfOp(quotient, e.const(0.0, a.type), "oeq"))
    rest = e.emit(arith.SelectOp(whole, a, fused))
    return _plus_where_sign_differs(e, rest, a, e.emit(math.CopySignOp(b, a)))


def _plus_where_sign_differs(
    e: Emitter, rest: SSAValue, sign_of: SSAValue, step: SSAValue
) -> SSAValue:
    """`rest + step` where `rest` is nonzero and its sign differs from
    `sign_of`'s, else `rest`."""
    zero = e.const(0.0, rest.type)
    differs = e.emit(
        arith.XOrIOp(
            e.emit(arith.CmpfOp(rest, zero, "olt")),
            e.emit(arith.CmpfOp(sign_of, zero, "olt")),
        )
    )
    nonzero = e.emit(arith.CmpfOp(rest, zero, "une"))
    fix = e.emit(arith.SelectOp(nonzero, differs, e.const(0, i1)))
    return e.emit(arith.SelectOp(fix, e.emit(arith.AddfOp(rest, step)), rest))


def _fmod(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    return _fmod_of(e, args[0], args[1])


def _remainder(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    # torch's: fmod, then + b where the result's sign is not b's
    a, b = args
    return _plus_where_sign_differs(e, _fmod_of(e, a, b), b, b)


def _gcd(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    """Euclid's algorithm on `|a|`, `|b|`, unrolled to its worst case: a
    kernel has no loops, and by Lamé's theorem w-bit operands need at most
    about 1.44 w remainder steps (Fibonacci neighbours are the worst). A
    step whose divisor is already 0 keeps the pair (and divides by 1, not 0)."""
    a, b = (e.emit(math.AbsIOp(x)) for x in args)
    assert isinstance(a.type, IntegerType)
    zero, one = e.const(0, a.type), e.const(1, a.type)
    for _ in range(gcd_steps(a.type.width.data)):
        nonzero = e.emit(arith.CmpiOp(b, zero, "ne"))
        rest = e.emit(arith.RemSIOp(a, e.emit(arith.SelectOp(nonzero, b, one))))
        a = e.emit(arith.SelectOp(nonzero, b, a))
        b = e.emit(arith.SelectOp(nonzero, rest, zero))
    return a


def gcd_steps(width: int) -> int:
    """Remainder steps that finish Euclid's algorithm on any two w-bit
    non-negative operands: log_phi(2^w) + 2."""
    return int(width * 1.4405) + 2


def _relu6_of_x_plus_3(e: Emitter, x: SSAValue) -> SSAValue:
    # torch's order of operations (see the reference interpreter)
    shifted = e.emit(arith.AddfOp(x, e.const(3.0, x.type)))
    low = e.emit(arith.MaximumfOp(shifted, e.const(0.0, x.type)))
    return e.emit(arith.MinimumfOp(low, e.const(6.0, x.type)))


def _hardsigmoid(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    x = args[0]
    return e.emit(arith.DivfOp(_relu6_of_x_plus_3(e, x), e.const(6.0, x.type)))


def _hardswish(e: Emitter, args: list[SSAValue], _op: Operation) -> SSAValue:
    x = args[0]
    scaled = e.emit(arith.MulfOp(x, _relu6_of_x_plus_3(e, x)))
    return e.emit(arith.DivfOp(scaled, e.const(6.0, x.type)))


ScalarRule = Callable[[Emitter, list[SSAValue], Operation], SSAValue]

SCALAR_OPS: dict[type[Operation], ScalarRule] = {
    graph.NegOp: _neg,
    graph.AbsOp: _abs,
    graph.SigmoidOp: lambda e, args, _op: _sigmoid_of(e, args[0]),
    graph.SiluOp: lambda e, args, _op: e.emit(
        arith.MulfOp(args[0], _sigmoid_of(e, args[0]))
    ),
    graph.ReluOp: _relu,
    graph.GeluOp: _gelu,
    graph.ReciprocalOp: _reciprocal,
    graph.CastOp: _cast,
    graph.BitcastOp: lambda e, args, op: e.emit(
        arith.BitcastOp(args[0], dtype_of(op.results[0]))
    ),
    graph.AddOp: _float_or_int(arith.AddfOp, arith.AddiOp),
    graph.SubOp: _float_or_int(arith.SubfOp, arith.SubiOp),
    graph.MulOp: _float_or_int(arith.MulfOp, arith.MuliOp),
    graph.DivOp: _div,
    graph.PowOp: _pow,
    graph.MaximumOp: _float_or_int(arith.MaximumfOp, arith.MaxSIOp),
    graph.MinimumOp: _float_or_int(arith.MinimumfOp, arith.MinSIOp),
    graph.EqOp: _compare("oeq", "eq"),
    graph.NeOp: _compare("une", "ne"),
    graph.LtOp: _compare("olt", "slt"),
    graph.LeOp: _compare("ole", "sle"),
    graph.GtOp: _compare("ogt", "sgt"),
    graph.GeOp: _compare("oge", "sge"),
    graph.SelectOp: _select,
    graph.LogicalAndOp: _logical(_and),
    graph.LogicalOrOp: _logical(_or),
    graph.LogicalNotOp: _not,
    graph.BitwiseAndOp: _bitwise(arith.AndIOp, _and),
    graph.BitwiseOrOp: _bitwise(arith.OrIOp, _or),
    graph.BitwiseXorOp: _bitwise(arith.XOrIOp, _xor),
    graph.BitwiseNotOp: _bitwise_not,
    graph.ShiftLeftOp: _shift(left=True),
    graph.ShiftRightOp: _shift(left=False),
    graph.ClampOp: _clamp,
    graph.HardsigmoidOp: _hardsigmoid,
    graph.HardswishOp: _hardswish,
    graph.FmodOp: _fmod,
    graph.RemainderOp: _remainder,
    graph.GcdOp: _gcd,
} | {
    op: _math(op.SCALAR_MATH)
    for op in graph.GRAPH_OPS
    if issubclass(op, graph.UnaryOp | graph.BinaryOp) and op.SCALAR_MATH is not None
}
"""Elementwise graph op -> its scalar expansion."""
