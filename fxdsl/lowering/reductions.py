"""Reduction-class ops (sum, mean, max, min, var, softmax, log_softmax,
layer_norm) as *statistics* plus an elementwise *finish*.

`reduction_stats` emits the reductions an op needs through a `Reducer`
(block-wide in a row kernel, serial per thread otherwise), e.g. softmax:
the max, then the sum of `exp(x - max)`; layer_norm: the mean, then the
biased variance and `rsqrt(var + eps)`. `finish` turns those statistics into
element `idx` of the op's result. The kernel builder decides where the
reductions run; this module decides what they compute.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, math
from xdsl.ir import Operation, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.graph import dtype_of, shape_of
from fxdsl.lowering.kernel_emitter import Index, KernelEmitter
from fxdsl.lowering.scalar_ops import compute_type

Reducer = Callable[[str, Callable[[Index], SSAValue]], SSAValue]
"""`reduce(kind, element)`: emits a reduction of `element(index)`, returns it."""


def reduction_stats(
    b: KernelEmitter, op: Operation, reduce: Reducer, count: int
) -> dict[str, SSAValue]:
    """Emit the statistics of reduction-class `op` (sum, mean and variance,
    max and sum of exp, ...) with `reduce(kind, element)` over `count`
    elements."""
    source = op.operands[0]
    typ = compute_type(dtype_of(source))

    def x(full: Index) -> SSAValue:
        return b.value_at(source, full)

    def centered_square(mean: SSAValue) -> Callable[[Index], SSAValue]:
        def f(full: Index) -> SSAValue:
            d = b.emit(arith.SubfOp(x(full), mean))
            return b.emit(arith.MulfOp(d, d))

        return f

    stats: dict[str, SSAValue] = {}
    if isinstance(op, graph.SumOp | graph.MaxOp | graph.MinOp):
        kind = {graph.SumOp: "add", graph.MaxOp: "max", graph.MinOp: "min"}[type(op)]
        stats["value"] = reduce(kind, x)
    elif isinstance(op, graph.MeanOp):
        stats["value"] = b.emit(
            arith.DivfOp(reduce("add", x), b.const(float(count), typ))
        )
    elif isinstance(op, graph.VarOp | graph.LayerNormOp):
        mean = b.emit(arith.DivfOp(reduce("add", x), b.const(float(count), typ)))
        squares = reduce("add", centered_square(mean))
        correction = op.correction_value if isinstance(op, graph.VarOp) else 0
        denominator = b.const(float(max(count - correction, 0)), typ)
        var = b.emit(arith.DivfOp(squares, denominator))
        stats |= {"mean": mean, "value": var}
        if isinstance(op, graph.LayerNormOp):
            eps = b.const(op.eps.value.data, typ)
            stats["rstd"] = b.emit(math.RsqrtOp(b.emit(arith.AddfOp(var, eps))))
    else:
        assert isinstance(op, graph.SoftmaxLikeOp)
        peak = reduce("max", x)

        def shifted_exp(full: Index) -> SSAValue:
            return _shifted_exp(b, op, full, peak)

        stats |= {"max": peak, "sum": reduce("add", shifted_exp)}
        if isinstance(op, graph.LogSoftmaxOp):
            stats["log_sum"] = b.emit(math.LogOp(stats["sum"]))
    return stats


def finish(
    b: KernelEmitter, op: Operation, stats: dict[str, SSAValue], idx: Index
) -> SSAValue:
    """Element `idx` of a reduction-class op's result from its statistics."""
    if "value" in stats and not isinstance(op, graph.LayerNormOp):
        return stats["value"]  # one value per reduced slice
    x = b.value_at(op.operands[0], idx)
    if isinstance(op, graph.LayerNormOp):
        norm = b.emit(
            arith.MulfOp(b.emit(arith.SubfOp(x, stats["mean"])), stats["rstd"])
        )
        weight = b.value_at(op.weight, b.broadcast_index(idx, shape_of(op.weight)))
        bias = b.value_at(op.bias, b.broadcast_index(idx, shape_of(op.bias)))
        return b.emit(arith.AddfOp(b.emit(arith.MulfOp(norm, weight)), bias))
    if isinstance(op, graph.LogSoftmaxOp):
        shifted = _shifted(b, op, idx, stats["max"])
        return b.emit(arith.SubfOp(shifted, stats["log_sum"]))
    exp = _shifted_exp(b, op, idx, stats["max"])
    return b.emit(arith.DivfOp(exp, stats["sum"]))


def _shifted_exp(
    b: KernelEmitter, op: Operation, idx: Index, peak: SSAValue
) -> SSAValue:
    """`exp(x[idx] - max)` of softmax-like `op`, emitted once per region
    scope: in a register-resident row the sum and the store share it."""

    return b.memo(
        (op.results[0], "exp", idx),
        lambda: b.emit(math.ExpOp(_shifted(b, op, idx, peak))),
    )


def _shifted(b: KernelEmitter, op: Operation, idx: Index, peak: SSAValue) -> SSAValue:
    """`x[idx] - max`, once per region scope (log_softmax's finish shares it)."""
    return b.memo(
        (op.results[0], "shifted", idx),
        lambda: b.emit(arith.SubfOp(b.value_at(op.operands[0], idx), peak)),
    )
