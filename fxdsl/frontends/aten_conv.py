"""ATen handlers: convolution, 1-D to N-D, plain and transposed.

The graph dialect has `graph.conv1d` and `graph.conv2d`; the rest is built
from them:

* An N-D convolution (N > 2) folds the taps of its first spatial dim into
  the channels: the input's KD strided slices along D, stacked per group
  after that group's channels and with the output depth moved into the
  batch, are a (N OD, C KD, H, W, ...) input, and the weight (O, C/G, KD,
  KH, KW, ...) read as (O, C/G KD, KH, KW, ...) is that input's filter: one
  (N-1)-D convolution with the same groups, down to `graph.conv2d`.
* A transposed convolution is the convolution of the input with `stride - 1`
  zeros inserted between its elements and `dilation (k - 1) - padding` zeros
  around it (`+ output_padding` on the right; negative: cropped), by the
  weight with its in/out channels swapped per group and its taps reversed,
  at stride 1. Every output element is then one window's dot product, as
  the transposed conv's scatter-add of the input's products.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fxdsl.frontends.aten_registry import AtenCall, UnsupportedNode, aten, cast_to
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor


def per_dim(values: Any, rank: int) -> list[int]:
    """torch's int-or-list window argument as one entry per spatial dim."""
    listed = [int(values)] if isinstance(values, int) else [int(v) for v in values]
    return listed * rank if len(listed) == 1 else listed


def batched(x: Tensor, rank: int, build: Callable[[Tensor], Tensor]) -> Tensor:
    """`build` on an input with a batch dim: torch takes unbatched (C, ...)
    inputs too, which get a batch of one and lose it again."""
    if x.ndim != rank + 1:
        return build(x)
    y = build(ops.reshape(x, [1, *x.shape]))
    return ops.reshape(y, list(y.shape[1:]))


def _same_padding(weight: Tensor, dilation: list[int]) -> list[int]:
    totals = [d * (k - 1) for k, d in zip(weight.shape[2:], dilation)]
    if any(t % 2 for t in totals):
        raise UnsupportedNode(
            f'padding="same" needs uneven padding for kernel {weight.shape[2:]} '
            "(graph convolutions pad symmetrically)"
        )
    return [t // 2 for t in totals]


def pad(x: Tensor, dim: int, before: int, after: int, value: float = 0.0) -> Tensor:
    """x with `value`s added around `dim` (a negative count crops)."""
    if before < 0 or after < 0:
        starts, limits = [0] * x.ndim, list(x.shape)
        starts[dim], limits[dim] = max(-before, 0), x.shape[dim] - max(-after, 0)
        x = ops.slice(x, starts, limits)
    parts = [x]
    for size, at in ((before, 0), (after, 1)):
        if size > 0:
            shape = list(x.shape)
            shape[dim] = size
            parts.insert(at * len(parts), ops.full(shape, value, x.dtype))
    return x if len(parts) == 1 else ops.concat(parts, dim)


def _spread(x: Tensor, dim: int, stride: int) -> Tensor:
    """x with `stride - 1` zeros between neighbours along `dim`."""
    size = x.shape[dim]
    if stride == 1 or size < 2:
        return x
    lead, rest = list(x.shape[: dim + 1]), list(x.shape[dim + 1 :])
    column = ops.reshape(x, [*lead, 1, *rest])
    zeros = ops.full([*lead, stride - 1, *rest], 0.0, x.dtype)
    spread = ops.reshape(
        ops.concat([column, zeros], dim + 1), [*lead[:-1], size * stride, *rest]
    )
    limits = list(spread.shape)
    limits[dim] = (size - 1) * stride + 1
    return ops.slice(spread, [0] * x.ndim, limits)


def conv(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: list[int],
    padding: list[int],
    dilation: list[int],
    groups: int,
) -> Tensor:
    """torch's convolution of a batched x (N, C, *spatial), any rank."""
    rank = weight.ndim - 2
    if rank == 1:
        return ops.conv1d(x, weight, bias, stride, padding, dilation, groups)
    if rank == 2:
        return ops.conv2d(x, weight, bias, stride, padding, dilation, groups)
    n, channels, depth, *rest = x.shape
    o, per_group, taps, *kernel = weight.shape
    x = pad(x, 2, padding[0], padding[0])
    reach = dilation[0] * (taps - 1) + 1
    out = (depth + 2 * padding[0] - reach) // stride[0] + 1
    if out < 1:
        raise UnsupportedNode(
            f"convolution window of {reach} along a dim of {depth} padded by "
            f"{padding[0]}"
        )
    pieces = []
    for k in range(taps):
        start = [0, 0, k * dilation[0], *[0] * len(rest)]
        limit = [n, channels, k * dilation[0] + (out - 1) * stride[0] + 1, *rest]
        step = [1, 1, stride[0], *[1] * len(rest)]
        tap = ops.slice(x, start, limit, step)
        pieces.append(ops.reshape(tap, [n, groups, channels // groups, 1, out, *rest]))
    stacked = pieces[0] if taps == 1 else ops.concat(pieces, 3)
    # (N, G, C/G, KD, OD, ...) -> (N, OD, G, C/G, KD, ...): channels of a
    # group, then its taps, as the weight (O, C/G, KD, ...) orders them
    order = [0, 4, 1, 2, 3, *range(5, 5 + len(rest))]
    folded = ops.reshape(
        ops.transpose(stacked, order), [n * out, channels * taps, *rest]
    )
    filters = ops.reshape(weight, [o, per_group * taps, *kernel])
    y = conv(folded, filters, bias, stride[1:], padding[1:], dilation[1:], groups)
    y = ops.reshape(y, [n, out, *y.shape[1:]])
    return ops.transpose(y, [0, 2, 1, *range(3, y.ndim)])


def conv_transpose(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: list[int],
    padding: list[int],
    output_padding: list[int],
    dilation: list[int],
    groups: int,
) -> Tensor:
    """torch's transposed convolution of a batched x (N, C, *spatial), with
    weight (C, O/G, *kernel) (module docstring)."""
    channels, per_group, *kernel = weight.shape
    rank = len(kernel)
    # (G, C/G, O/G, *k) -> (G, O/G, C/G, *k): a convolution's weight
    grouped = ops.reshape(weight, [groups, channels // groups, per_group, *kernel])
    swapped = ops.transpose(grouped, [0, 2, 1, *range(3, 3 + rank)])
    filters = ops.reshape(swapped, [groups * per_group, channels // groups, *kernel])
    for axis, size in enumerate(kernel):
        if size > 1:
            backwards = ops.constant(np.arange(size - 1, -1, -1, dtype=np.int64), "i64")
            filters = ops.index(filters, [None] * (2 + axis) + [backwards])
    for axis in range(rank):
        dim = 2 + axis
        x = _spread(x, dim, stride[axis])
        border = dilation[axis] * (kernel[axis] - 1) - padding[axis]
        x = pad(x, dim, border, border + output_padding[axis])
    ones = [1] * rank
    return conv(x, filters, bias, ones, [0] * rank, dilation, groups)


@aten(
    "convolution.default",
    "conv2d.default",
    "conv2d.padding",
    "conv1d.default",
    "conv1d.padding",
    "conv3d.default",
    "conv3d.padding",
)
def _convolution(call: AtenCall) -> Tensor:
    x, weight, bias = (
        cast_to(t, call.dtype) for t in (*call.args[:2], call.arg(2, "bias"))
    )
    rank = weight.ndim - 2
    transposed, output_padding = False, 0
    if call.target == "aten.convolution.default":
        stride, padding, dilation, transposed, output_padding, groups = call.args[3:9]
    else:
        stride, padding = call.arg(3, "stride", 1), call.arg(4, "padding", 0)
        dilation, groups = call.arg(5, "dilation", 1), call.arg(6, "groups", 1)
    dilation = per_dim(dilation, rank)
    if padding == "same":
        padding = _same_padding(weight, dilation)
    elif padding == "valid":
        padding = 0
    window = (per_dim(stride, rank), per_dim(padding, rank))
    if transposed:
        extra = per_dim(output_padding, rank)
        return batched(
            x,
            rank,
            lambda t: conv_transpose(
                t, weight, bias, *window, extra, dilation, int(groups)
            ),
        )
    return batched(
        x, rank, lambda t: conv(t, weight, bias, *window, dilation, int(groups))
    )
