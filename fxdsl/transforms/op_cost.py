"""A roofline cost model of graph ops: FLOPs and bytes per op, then time.

`op_cost(op)` counts an op's floating-point work and the bytes it moves,
unfused (every operand read once, every result written once); the FLOP
count comes from one table entry per op family. `op_time(op, device)` is
the roofline: max(FLOPs / peak, bytes / memory bandwidth). The numbers are
for planning (where to cut a pipeline, how long a stage takes relative to
another), not predictions of a kernel's measured time: fusion removes most
elementwise traffic, which this model keeps on purpose so that every op has
a cost that does not depend on how the graph is grouped.

    %y = graph.matmul %a, %b : (tensor<64x768xf32>, tensor<768x3072xf32>) -> ...
    op_cost -> flops = 2 * 64 * 768 * 3072, bytes = 4 * (64*768 + 768*3072 + 64*3072)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Attribute, Operation, SSAValue

from fxdsl.ir import graph


@dataclass(frozen=True)
class Device:
    """What the roofline needs of one accelerator and its link to the next."""

    name: str
    flops: float
    """Peak FLOP/s for the graph's dtype (dense, tensor cores where they apply)."""
    bandwidth: float
    """Memory bandwidth, bytes/s."""
    link: float
    """Point-to-point bandwidth to the next pipeline stage, bytes/s."""


DEVICES: dict[str, Device] = {
    # H100 SXM: TF32 dense 495 TFLOP/s, HBM3 3.35 TB/s, NVLink 4 450 GB/s a way.
    "h100": Device("h100", 495e12, 3.35e12, 450e9),
    # A CPU core pair with gloo over loopback: what the CI runs on.
    "cpu": Device("cpu", 100e9, 20e9, 5e9),
}


@dataclass(frozen=True)
class OpCost:
    flops: float
    bytes: float

    def time(self, device: Device) -> float:
        return max(self.flops / device.flops, self.bytes / device.bandwidth)


def value_bytes(value: SSAValue | Attribute) -> int:
    """The size of a tensor value in device memory (bf16 as 2 bytes, i1 as 1)."""
    typ = value.type if isinstance(value, SSAValue) else value
    if not isinstance(typ, TensorType):
        return 0
    bits = getattr(typ.element_type, "bitwidth", 32)
    return math.prod(typ.get_shape()) * max(1, bits // 8)


def _numel(value: SSAValue) -> int:
    typ = value.type
    return math.prod(typ.get_shape()) if isinstance(typ, TensorType) else 0


def _out(op: Operation) -> int:
    return sum(_numel(r) for r in op.results)


def _matmul(op: Operation) -> float:
    # Every output element is a dot product over the contracted dim.
    rhs = graph.shape_of(op.operands[1])
    # linear's weight is (out, in); matmul's rhs is (..., k, n) or (k,).
    k = rhs[-1] if isinstance(op, graph.LinearOp) else rhs[max(0, len(rhs) - 2)]
    return 2.0 * _out(op) * k


def _attention(op: Operation) -> float:
    assert isinstance(op, graph.AttentionOp)
    q, k = graph.shape_of(op.query), graph.shape_of(op.key)
    batch = math.prod(q[:-2])
    work = 2.0 * batch * q[-2] * k[-2] * (q[-1] + graph.shape_of(op.value)[-1])
    return work / 2 if op.is_causal else work


def _conv(op: Operation) -> float:
    # Every output element is a dot product over its group's input channels
    # and the kernel: the weight's shape after the output channels.
    assert isinstance(op, graph.ConvOp)
    return 2.0 * _out(op) * math.prod(graph.shape_of(op.weight)[1:])


def _pool(op: Operation) -> float:
    assert isinstance(op, graph.Pool2dOp)
    return float(_out(op) * math.prod(op.kernel_list))


def _per_output(factor: float) -> Callable[[Operation], float]:
    return lambda op: factor * _out(op)


def _per_input(factor: float) -> Callable[[Operation], float]:
    return lambda op: factor * _numel(op.operands[0])


def _free(op: Operation) -> float:
    return 0.0


# Op family -> FLOPs; the first family an op is an instance of wins, so
# specific ops come before their base classes.
FLOPS: tuple[tuple[type[Operation], Callable[[Operation], float]], ...] = (
    (graph.MatmulOp, _matmul),
    (graph.LinearOp, _matmul),
    (graph.AttentionOp, _attention),
    (graph.ConvOp, _conv),
    (graph.Pool2dOp, _pool),
    (graph.AdaptiveAvgPool2dOp, _per_input(1)),
    (graph.BatchNormOp, _per_output(2)),
    (graph.LayerNormOp, _per_output(8)),
    (graph.SoftmaxLikeOp, _per_output(5)),
    (graph.GeluOp, _per_output(8)),
    (graph.SiluOp, _per_output(4)),
    (graph.UnaryOp, _per_output(1)),
    (graph.BinaryOp, _per_output(1)),
    (graph.SelectOp, _per_output(1)),
    (graph.ReductionOp, _per_input(1)),
    (graph.CumsumOp, _per_input(1)),
)

# Ops that move no data: the views that keep the element order (a reshape
# of a contiguous tensor).
VIEWS: tuple[type[Operation], ...] = graph.view_ops(same_order=True)


def op_cost(op: Operation) -> OpCost:
    """FLOPs and bytes of one op; ops outside the table (data movement,
    calls) cost their bytes only, constants nothing."""
    if isinstance(op, VIEWS) or not op.results:
        return OpCost(0.0, 0.0)
    # A graph op that reads nothing (constant, full, arange) is made at
    # compile time.
    if isinstance(op, graph.GraphOp) and not op.operands:
        return OpCost(0.0, 0.0)
    flops = next((count(op) for kind, count in FLOPS if isinstance(op, kind)), 0.0)
    moved = sum(value_bytes(v) for v in (*op.operands, *op.results))
    if isinstance(op, graph.EmbeddingOp):
        # Only the looked-up rows of the table are read.
        moved = value_bytes(op.operands[0]) + 2 * value_bytes(op.results[0])
    return OpCost(flops, float(moved))


def op_time(op: Operation, device: Device) -> float:
    """Roofline seconds of `op` on `device`."""
    return op_cost(op).time(device)
