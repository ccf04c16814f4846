"""ATen handlers: pooling (max, average and adaptive, 1-D to 3-D, with
max pooling's indices).

The graph dialect has 2-D pooling ops (`graph.max_pool2d`, `avg_pool2d`,
`adaptive_avg_pool2d`); the rest is built from them and from ops that exist:

* Indices of a max pool (`max_pool2d_with_indices`, `adaptive_max_pool2d`)
  are the running argmax over the window's taps, in torch's order (row-major
  over the window, a later element wins only when strictly greater or NaN),
  each tap a gather of the input at constant positions; the index is the
  flat position in the input's spatial dims (`h * W + w`), what torch
  returns. A tap outside the input never wins; a window of -inf gives its
  first element inside the input, as torch's CPU kernel.
* 3-D average pooling is separable: a box sum is a sum of sums, and torch's
  divisor (the box clipped to the input or its padding) is the product of
  the clipped lengths per dim. So `avg_pool3d` is an `avg_pool2d` over
  (H, W) with the depth folded into the channels, then one over (D, H W)
  with a (kd, 1) window. `adaptive_avg_pool3d` likewise.
* `divisor_override` is the op's own property (`graph.avg_pool2d`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from fxdsl.frontends.aten_conv import batched, per_dim
from fxdsl.frontends.aten_registry import AtenCall, UnsupportedNode, aten, cast_to
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

Array = np.ndarray[Any, Any]
Axis = tuple[Array, Array]
"""Along one spatial dim: (positions, valid), both (out, taps): the input
position each window tap reads, and whether it lies inside the input."""


def _strided_axis(
    size: int, out: int, kernel: int, stride: int, padding: int, dilation: int
) -> Axis:
    """The taps of a strided window (max_pool's) along one dim."""
    positions = (
        np.arange(out)[:, None] * stride - padding + np.arange(kernel)[None] * dilation
    )
    return positions, (positions >= 0) & (positions < size)


def _adaptive_axis(size: int, out: int) -> Axis:
    """torch's adaptive windows along one dim, `[floor(i n / o), ceil((i + 1)
    n / o))`, padded to the longest with invalid taps."""
    starts = np.arange(out) * size // out
    ends = -(-(np.arange(out) + 1) * size // out)
    positions = starts[:, None] + np.arange(int(np.max(ends - starts)))[None]
    return positions, positions < ends[:, None]


def window_argmax(x: Tensor, axes: Sequence[Axis]) -> tuple[Tensor, Tensor]:
    """(values, indices) of the max over each window of x (N, C, *spatial),
    the windows given per spatial dim by `axes`; indices are flat positions
    in the spatial dims (i64), as torch's max pooling returns."""
    spatial = x.shape[2:]
    out = [positions.shape[0] for positions, _ in axes]
    strides = [math.prod(spatial[a + 1 :]) for a in range(len(spatial))]
    rank = len(axes)

    def spread(values: Array, axis: int) -> Array:
        """A per-dim (out,) vector shaped to broadcast over the output."""
        return values.reshape([-1 if a == axis else 1 for a in range(rank)])

    taps: list[tuple[list[Array], Array, Array]] = []
    for tap in np.ndindex(*[positions.shape[1] for positions, _ in axes]):
        reads = [spread(axes[a][0][:, t], a) for a, t in enumerate(tap)]
        valid = np.ones(out, bool)
        for a, t in enumerate(tap):
            valid = valid & spread(axes[a][1][:, t], a)
        if not valid.any():
            continue
        flat = sum(r * s for r, s in zip(reads, strides))
        clamped = [np.clip(r, 0, n - 1) for r, n in zip(reads, spatial)]
        taps.append((clamped, np.broadcast_to(flat, out), valid))
    if not taps:
        raise UnsupportedNode(f"a window reads no input element (input {x.shape})")
    # where no tap wins (a window of -inf), torch keeps the window's first
    # element inside the input
    first = np.zeros(out, np.int64)
    for _, flat, valid in reversed(taps):
        first = np.where(valid, flat, first)
    lead = list(x.shape[:2])
    best = ops.full([*lead, *out], -math.inf, x.dtype)
    index = ops.broadcast_to(ops.constant(first, "i64"), [*lead, *out])
    for clamped, flat, valid in taps:
        gathers = [ops.constant(c.astype(np.int64), "i64") for c in clamped]
        value = ops.index(x, [None, None, *gathers])
        wins = ops.logical_or(ops.gt(value, best), ops.ne(value, value))
        if not valid.all():
            wins = ops.logical_and(wins, ops.constant(valid, "i1"))
        best = ops.where(wins, value, best)
        index = ops.where(wins, ops.constant(np.array(flat, np.int64), "i64"), index)
    return best, index


def _pool_window(call: AtenCall, rank: int) -> tuple[list[int], ...]:
    """(kernel, stride, padding, dilation) of a max_pool call."""
    kernel = per_dim(call.args[1], rank)
    stride = per_dim(call.arg(2, "stride", []) or kernel, rank)
    padding = per_dim(call.arg(3, "padding", 0), rank)
    dilation = per_dim(call.arg(4, "dilation", 1), rank)
    return kernel, stride, padding, dilation


@aten("max_pool2d.default", "max_pool2d_with_indices.default")
def _max_pool2d(call: AtenCall) -> Any:
    kernel, stride, padding, dilation = _pool_window(call, 2)
    ceil_mode = bool(call.arg(5, "ceil_mode", False))
    y = batched(
        call.args[0],
        2,
        lambda t: ops.max_pool2d(t, kernel, stride, padding, dilation, ceil_mode),
    )
    if call.target == "aten.max_pool2d.default":
        return y
    if call.used is not None and 1 not in call.used:
        return (y, None)
    out = y.shape[-2:]

    def indices(t: Tensor) -> Tensor:
        axes = [
            _strided_axis(t.shape[2 + a], out[a], *window)
            for a, window in enumerate(zip(kernel, stride, padding, dilation))
        ]
        return window_argmax(t, axes)[1]

    return (y, batched(call.args[0], 2, indices))


@aten("adaptive_max_pool2d.default")
def _adaptive_max_pool2d(call: AtenCall) -> tuple[Tensor, ...]:
    x: Tensor = call.args[0]
    out = [int(d) for d in call.result[0].shape[-2:]]
    batched = x if x.ndim == 4 else ops.reshape(x, [1, *x.shape])
    axes = [_adaptive_axis(batched.shape[2 + a], out[a]) for a in range(2)]
    values, indices = window_argmax(batched, axes)
    if x.ndim == 4:
        return values, indices
    return tuple(ops.reshape(t, list(t.shape[1:])) for t in (values, indices))


@aten("max_pool2d_with_indices_backward.default")
def _max_pool2d_backward(call: AtenCall) -> Tensor:
    """The input's gradient: each output's gradient added at the input
    position its index names (a scatter-add over the flat spatial dims)."""
    grad: Tensor = cast_to(call.args[0], call.dtype)
    x: Tensor = call.args[1]
    index: Tensor = call.args[7]
    lead, size = list(x.shape[:-2]), math.prod(x.shape[-2:])
    count = math.prod(grad.shape[-2:])
    # hit[..., p, j]: output j's gradient goes to input position p
    positions = ops.constant(np.arange(size, dtype=np.int64).reshape(size, 1), "i64")
    hit = ops.eq(ops.reshape(cast_to(index, "i64"), [*lead, 1, count]), positions)
    flat = ops.reshape(grad, [*lead, 1, count])
    summed = ops.sum(ops.where(hit, flat, 0.0), [len(lead) + 1])
    return ops.reshape(summed, list(x.shape))


@aten("avg_pool2d.default")
def _avg_pool2d(call: AtenCall) -> Tensor:
    kernel = per_dim(call.args[1], 2)
    stride = per_dim(call.arg(2, "stride", []) or kernel, 2)
    padding = per_dim(call.arg(3, "padding", 0), 2)
    ceil_mode = bool(call.arg(4, "ceil_mode", False))
    include_pad = bool(call.arg(5, "count_include_pad", True))
    divisor = call.arg(6, "divisor_override")
    return batched(
        call.args[0],
        2,
        lambda t: ops.avg_pool2d(
            t, kernel, stride, padding, ceil_mode, include_pad, divisor
        ),
    )


@aten("avg_pool3d.default")
def _avg_pool3d(call: AtenCall) -> Tensor:
    kernel = per_dim(call.args[1], 3)
    stride = per_dim(call.arg(2, "stride", []) or kernel, 3)
    padding = per_dim(call.arg(3, "padding", 0), 3)
    ceil_mode = bool(call.arg(4, "ceil_mode", False))
    include_pad = bool(call.arg(5, "count_include_pad", True))
    divisor = call.arg(6, "divisor_override")

    def pool(t: Tensor) -> Tensor:
        n, c, d, h, w = t.shape
        # the (H, W) sums, each divided by its own part of the divisor (or,
        # with an override, summed: the override divides once at the end)
        plane = ops.avg_pool2d(
            ops.reshape(t, [n, c * d, h, w]),
            kernel[1:],
            stride[1:],
            padding[1:],
            ceil_mode,
            include_pad,
            None if divisor is None else 1,
        )
        oh, ow = plane.shape[2:]
        depth = ops.avg_pool2d(
            ops.reshape(plane, [n, c, d, oh * ow]),
            [kernel[0], 1],
            [stride[0], 1],
            [padding[0], 0],
            ceil_mode,
            include_pad,
            divisor,
        )
        return ops.reshape(depth, [n, c, depth.shape[2], oh, ow])

    return batched(cast_to(call.args[0], call.dtype), 3, pool)


@aten("adaptive_avg_pool2d.default", "_adaptive_avg_pool2d.default")
def _adaptive_avg_pool2d(call: AtenCall) -> Tensor:
    x: Tensor = cast_to(call.args[0], call.dtype)
    size = call.shape[-2:]
    if size == [1, 1]:
        # global pooling, as the core-ATen graph writes it: a mean over H, W
        return ops.mean(x, [x.ndim - 2, x.ndim - 1], keepdim=True)
    return batched(x, 2, lambda t: ops.adaptive_avg_pool2d(t, size))


@aten("adaptive_avg_pool3d.default", "_adaptive_avg_pool3d.default")
def _adaptive_avg_pool3d(call: AtenCall) -> Tensor:
    x: Tensor = cast_to(call.args[0], call.dtype)
    od, oh, ow = call.shape[-3:]
    if [od, oh, ow] == [1, 1, 1]:
        return ops.mean(x, [x.ndim - 3, x.ndim - 2, x.ndim - 1], keepdim=True)

    def pool(t: Tensor) -> Tensor:
        n, c, d, h, w = t.shape
        plane = ops.adaptive_avg_pool2d(ops.reshape(t, [n, c * d, h, w]), [oh, ow])
        depth = ops.adaptive_avg_pool2d(
            ops.reshape(plane, [n, c, d, oh * ow]), [od, oh * ow]
        )
        return ops.reshape(depth, [n, c, od, oh, ow])

    return batched(x, 3, pool)
