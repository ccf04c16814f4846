"""ATen handlers: the gradients of max pooling, for training CNNs (ResNet's
3x3 stride-2 pool, 3-D video nets, adaptive heads, fractional pools).

Max pooling's forward returns, per output, the flat position (in the
input's spatial dims) of the element that won; the input's gradient adds
each output's gradient at that position. Two ways to add it, both built
from existing graph ops:

* Strided windows (`max_pool2d_with_indices_backward`, `..._3d_...`): per
  window tap, the outputs whose index names that tap keep their gradient
  (a compare with the tap's constant positions), which is then placed at
  the tap's input positions: interleaved with stride-1 zeros along each
  dim and shifted by the tap's offset (`aten_conv.pad`). The gradient is
  the sum over the taps, `kernel**rank` input-sized adds, so the work is
  linear in the input, as torch's kernels.
* Windows that vary per output or per plane (`adaptive_max_pool2d/3d`'s,
  `fractional_max_pool2d/3d`'s drawn ones): every (input position, output)
  pair is compared and the matching gradients summed (a positions x outputs
  mask, then `graph.sum`). Their outputs are few (an adaptive head's), or
  a fixed fraction of the input (a fractional pool's).

16-bit gradients are added in f32 and rounded once, as torch's kernels
accumulate.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from fxdsl.frontends.aten_conv import pad, per_dim
from fxdsl.frontends.aten_registry import AtenCall, aten, cast_to, in_f32
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor


def _lead(x: Tensor, rank: int) -> list[int]:
    return [int(d) for d in x.shape[: x.ndim - rank]]


def added_at_indices(grad: Tensor, x: Tensor, index: Tensor, rank: int) -> Tensor:
    """x's gradient: each of `grad`'s elements added at the flat spatial
    position `index` names (any windows: every pair is compared)."""
    lead = _lead(x, rank)
    size = math.prod(x.shape[-rank:])
    count = math.prod(grad.shape[-rank:])
    # hit[..., p, j]: output j's gradient goes to input position p
    positions = ops.constant(np.arange(size, dtype=np.int64).reshape(size, 1), "i64")
    hit = ops.eq(ops.reshape(cast_to(index, "i64"), [*lead, 1, count]), positions)
    flat = ops.reshape(in_f32(grad), [*lead, 1, count])
    summed = ops.sum(ops.where(hit, flat, 0.0), [len(lead) + 1])
    return ops.reshape(summed, [int(d) for d in x.shape])


def _placed(values: Tensor, dim: int, stride: int, offset: int, size: int) -> Tensor:
    """`values` along `dim` moved to positions `i * stride + offset` of a
    dim of `size`, zeros elsewhere (positions outside are dropped)."""
    count = values.shape[dim]
    if stride > 1:  # interleave: (.., count, 1, ..) beside (.., count, stride - 1, ..)
        shape = [int(d) for d in values.shape]
        column = [*shape[: dim + 1], 1, *shape[dim + 1 :]]
        gaps = [*shape[: dim + 1], stride - 1, *shape[dim + 1 :]]
        spread = ops.concat(
            [ops.reshape(values, column), ops.full(gaps, 0.0, values.dtype)], dim + 1
        )
        shape[dim] = count * stride
        values = ops.reshape(spread, shape)
    return pad(values, dim, offset, size - offset - values.shape[dim])


def strided_backward(
    grad: Tensor,
    x: Tensor,
    index: Tensor,
    kernel: Sequence[int],
    window: Sequence[Sequence[int]],
) -> Tensor:
    """x's gradient through a strided max pool, `window` = (stride,
    padding, dilation): per tap, the gradients whose index is the tap's
    position, placed at the tap's input positions, summed over the taps."""
    stride, padding, dilation = window
    rank = len(kernel)
    spatial = [int(d) for d in x.shape[-rank:]]
    out = [int(d) for d in grad.shape[-rank:]]
    strides = [math.prod(spatial[a + 1 :]) for a in range(rank)]
    grad, index = in_f32(grad), cast_to(index, "i64")
    total: Tensor | None = None
    for tap in np.ndindex(*kernel):
        offsets = [t * d - p for t, d, p in zip(tap, dilation, padding)]
        # per dim the input position of each output's tap, and whether inside
        along = [np.arange(o) * s + b for o, s, b in zip(out, stride, offsets)]
        inside = [(q >= 0) & (q < n) for q, n in zip(along, spatial)]
        if not all(v.any() for v in inside):
            continue
        flat = np.zeros(out, np.int64)
        valid = np.ones(out, bool)
        for a in range(rank):
            view = [-1 if b == a else 1 for b in range(rank)]
            flat = flat + along[a].reshape(view) * strides[a]
            valid = valid & inside[a].reshape(view)
        hit = ops.eq(index, ops.constant(flat, "i64"))
        if not valid.all():
            hit = ops.logical_and(hit, ops.constant(valid, "i1"))
        placed = ops.where(hit, grad, 0.0)
        first = x.ndim - rank
        for a in range(rank):
            placed = _placed(placed, first + a, stride[a], offsets[a], spatial[a])
        total = placed if total is None else ops.add(total, placed)
    if total is None:  # no tap reaches the input: nothing flows back
        return ops.full([int(d) for d in x.shape], 0.0, grad.dtype)
    return total


@aten(
    "max_pool2d_with_indices_backward.default",
    "max_pool3d_with_indices_backward.default",
)
def _max_pool_backward(call: AtenCall) -> Tensor:
    grad, x = call.args[:2]
    rank = 2 if "pool2d" in call.target else 3
    kernel = per_dim(call.args[2], rank)
    stride = per_dim(call.args[3] or kernel, rank)
    padding = per_dim(call.args[4], rank)
    dilation = per_dim(call.args[5], rank)
    window = (stride, padding, dilation)
    result = strided_backward(grad, x, call.args[7], kernel, window)
    return cast_to(result, call.dtype)


@aten(
    "adaptive_max_pool2d_backward.default",
    "adaptive_max_pool3d_backward.default",
    "fractional_max_pool2d_backward.default",
    "fractional_max_pool3d_backward.default",
)
def _varying_window_backward(call: AtenCall) -> Tensor:
    grad, x = call.args[:2]
    rank = 2 if "pool2d" in call.target else 3
    index = call.args[2] if "adaptive" in call.target else call.args[4]
    return cast_to(added_at_indices(grad, x, index, rank), call.dtype)
