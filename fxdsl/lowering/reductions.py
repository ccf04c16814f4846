"""Reduction-class ops (sum, mean, max, min, any, all, var, softmax,
log_softmax, layer_norm) as *statistics* plus an elementwise *finish*.

A fold (an op with a `COMBINER`: sum, max, min, any, all) is one statistic,
its combiner over its operand, and needs nothing here; the other reductions
have a `ReductionRule` in `RULES`.
`reduction_stats` emits the reductions an op needs through a `Reducer`
(block-wide in a row kernel, serial per thread otherwise), e.g. softmax:
the max, then the sum of `exp(x - max)`; layer_norm: the mean, then the
biased variance and `rsqrt(var + eps)`. `finish` turns those statistics into
element `idx` of the op's result. The kernel builder decides where the
reductions run; this module decides what they compute.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith, math
from xdsl.ir import Operation, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.graph import Combiner, dtype_of, shape_of
from fxdsl.ir.utils import OpFailure
from fxdsl.lowering.kernel_emitter import Index, KernelEmitter
from fxdsl.lowering.scalar_ops import compute_type

Reducer = Callable[[Combiner, Callable[[Index], SSAValue]], SSAValue]
"""`reduce(combiner, element)`: emits a fold of `element(index)`, returns it
(from the combiner's identity for the element type)."""
Stats = dict[str, SSAValue]
StatsRule = Callable[[KernelEmitter, Operation, Reducer, int], Stats]
FinishRule = Callable[[KernelEmitter, Operation, Stats, Index], SSAValue]


@dataclass(frozen=True)
class ReductionRule:
    """How a reduction made of several folds lowers: `stats(b, op, reduce,
    count)` emits its folds over `count` elements and what it derives from
    them; `finish(b, op, stats, idx)` is element `idx` of its result (None:
    the statistic `value`, one per reduced slice)."""

    stats: StatsRule
    finish: FinishRule | None = None


def reduction_stats(
    b: KernelEmitter, op: Operation, reduce: Reducer, count: int
) -> Stats:
    """Emit the statistics of reduction-class `op` (sum, mean and variance,
    max and sum of exp, ...) with `reduce(combiner, element)` over `count`
    elements: a fold asks the op for its combiner, any other reduction has
    a `ReductionRule`."""
    assert isinstance(op, graph.ReductionLike)
    if op.COMBINER is not None:
        return {"value": reduce(op.COMBINER, _element(b, op))}
    rule = RULES.get(type(op))
    if rule is None:
        raise OpFailure(f"convert-groups-to-gpu: no reduction rule for {op.name}", op)
    return rule.stats(b, op, reduce, count)


def finish(b: KernelEmitter, op: Operation, stats: Stats, idx: Index) -> SSAValue:
    """Element `idx` of a reduction-class op's result from its statistics."""
    rule = RULES.get(type(op))
    if rule is None or rule.finish is None:
        return stats["value"]  # one value per reduced slice
    return rule.finish(b, op, stats, idx)


def _element(b: KernelEmitter, op: Operation) -> Callable[[Index], SSAValue]:
    """Element `full` of `op`'s reduced operand."""
    return lambda full: b.value_at(op.operands[0], full)


def _mean(b: KernelEmitter, op: Operation, reduce: Reducer, count: int) -> SSAValue:
    typ = compute_type(dtype_of(op.operands[0]))
    total = reduce(Combiner.ADD, _element(b, op))
    return b.emit(arith.DivfOp(total, b.const(float(count), typ)))


def _mean_stats(b: KernelEmitter, op: Operation, reduce: Reducer, count: int) -> Stats:
    return {"value": _mean(b, op, reduce, count)}


def _moments(b: KernelEmitter, op: Operation, reduce: Reducer, count: int) -> Stats:
    """The mean, then the variance (with var's correction; layer_norm's is
    biased) and for layer_norm `rsqrt(var + eps)`."""
    typ = compute_type(dtype_of(op.operands[0]))
    x = _element(b, op)
    mean = _mean(b, op, reduce, count)

    def centered_square(full: Index) -> SSAValue:
        d = b.emit(arith.SubfOp(x(full), mean))
        return b.emit(arith.MulfOp(d, d))

    squares = reduce(Combiner.ADD, centered_square)
    correction = op.correction_value if isinstance(op, graph.VarOp) else 0
    denominator = b.const(float(max(count - correction, 0)), typ)
    var = b.emit(arith.DivfOp(squares, denominator))
    stats = {"mean": mean, "value": var}
    if isinstance(op, graph.LayerNormOp):
        eps = b.const(op.eps.value.data, typ)
        stats["rstd"] = b.emit(math.RsqrtOp(b.emit(arith.AddfOp(var, eps))))
    return stats


def _layer_norm(b: KernelEmitter, op: Operation, stats: Stats, idx: Index) -> SSAValue:
    assert isinstance(op, graph.LayerNormOp)
    x = b.value_at(op.operands[0], idx)
    norm = b.emit(arith.MulfOp(b.emit(arith.SubfOp(x, stats["mean"])), stats["rstd"]))
    weight = b.value_at(op.weight, b.broadcast_index(idx, shape_of(op.weight)))
    bias = b.value_at(op.bias, b.broadcast_index(idx, shape_of(op.bias)))
    return b.emit(arith.AddfOp(b.emit(arith.MulfOp(norm, weight)), bias))


def _softmax_stats(
    b: KernelEmitter, op: Operation, reduce: Reducer, count: int
) -> Stats:
    """The max, then the sum of `exp(x - max)` (and its log for log_softmax)."""
    peak = reduce(Combiner.MAX, _element(b, op))

    def shifted_exp(full: Index) -> SSAValue:
        return _shifted_exp(b, op, full, peak)

    stats = {"max": peak, "sum": reduce(Combiner.ADD, shifted_exp)}
    if isinstance(op, graph.LogSoftmaxOp):
        stats["log_sum"] = b.emit(math.LogOp(stats["sum"]))
    return stats


def _softmax(b: KernelEmitter, op: Operation, stats: Stats, idx: Index) -> SSAValue:
    exp = _shifted_exp(b, op, idx, stats["max"])
    return b.emit(arith.DivfOp(exp, stats["sum"]))


def _log_softmax(b: KernelEmitter, op: Operation, stats: Stats, idx: Index) -> SSAValue:
    shifted = _shifted(b, op, idx, stats["max"])
    return b.emit(arith.SubfOp(shifted, stats["log_sum"]))


RULES: dict[type[Operation], ReductionRule] = {
    graph.MeanOp: ReductionRule(_mean_stats),
    graph.VarOp: ReductionRule(_moments),
    graph.LayerNormOp: ReductionRule(_moments, _layer_norm),
    graph.SoftmaxOp: ReductionRule(_softmax_stats, _softmax),
    graph.LogSoftmaxOp: ReductionRule(_softmax_stats, _log_softmax),
}
"""Op class -> its rule, for the reductions without a `COMBINER` (a fold
needs none: the kernel folds with its combiner from its identity)."""


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
