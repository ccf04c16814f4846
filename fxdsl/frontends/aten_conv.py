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
  the transposed conv's scatter-add of the input's products. Undilated and
  strided (an upsampling layer's), most of those products are of inserted
  zeros: there it is split by output phase instead, `stride^N` stride-1
  convolutions of the input itself, interleaved (`_conv_transpose_phases`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from fxdsl.frontends.aten_registry import (
    HALF_DTYPES,
    AtenCall,
    UnsupportedNode,
    aten,
    cast_to,
    widened,
)
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


def _same_padding(
    x: Tensor, weight: Tensor, dilation: list[int]
) -> tuple[Tensor, list[int]]:
    """torch's padding="same": a total of d (k - 1) per spatial dim, half
    on each side, the odd one more on the right. Graph convolutions pad
    symmetrically, so that extra one is padded onto `x` first (as torch's
    kernel does). Returns (x, the symmetric padding)."""
    totals = [d * (k - 1) for k, d in zip(weight.shape[2:], dilation)]
    first = x.ndim - len(totals)
    for i, total in enumerate(totals):
        if total % 2:
            x = pad(x, first + i, 0, 1)
    return x, [t // 2 for t in totals]


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
    dtype: str | None = None,
) -> Tensor:
    """torch's convolution of a batched x (N, C, *spatial), any rank;
    `dtype="f32"`: 16-bit operands' sums kept in f32 (`ops.conv2d`)."""
    rank = weight.ndim - 2
    if rank == 1:
        return ops.conv1d(x, weight, bias, stride, padding, dilation, groups, dtype)
    if rank == 2:
        return ops.conv2d(x, weight, bias, stride, padding, dilation, groups, dtype)
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
    y = conv(
        folded, filters, bias, stride[1:], padding[1:], dilation[1:], groups, dtype
    )
    y = ops.reshape(y, [n, out, *y.shape[1:]])
    return ops.transpose(y, [0, 2, 1, *range(3, y.ndim)])


def _taps(filters: Tensor, axis: int, picked: list[int]) -> Tensor:
    """`filters` (O, C/G, *kernel) with only the `picked` taps, in that
    order, along spatial dim `axis`."""
    if picked == list(range(filters.shape[2 + axis])):
        return filters
    index = ops.constant(np.array(picked, dtype=np.int64), "i64")
    return ops.index(filters, [None] * (2 + axis) + [index])


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
    if any(s > 1 for s in stride) and all(d == 1 for d in dilation):
        return _conv_transpose_phases(
            x, filters, bias, stride, padding, output_padding, groups
        )
    for axis, size in enumerate(kernel):
        filters = _taps(filters, axis, list(range(size - 1, -1, -1)))
    for axis in range(rank):
        dim = 2 + axis
        x = _spread(x, dim, stride[axis])
        border = dilation[axis] * (kernel[axis] - 1) - padding[axis]
        x = pad(x, dim, border, border + output_padding[axis])
    ones = [1] * rank
    return conv(x, filters, bias, ones, [0] * rank, dilation, groups)


def _conv_transpose_phases(
    x: Tensor,
    filters: Tensor,
    bias: Tensor | None,
    stride: list[int],
    padding: list[int],
    output_padding: list[int],
    groups: int,
) -> Tensor:
    """An undilated transposed convolution with stride s as s^N stride-1
    convolutions, one per output phase: the outputs at `q s + r` (before
    the padding is cropped) take the taps `r, r + s, ...` only, each a full
    convolution (padded by its taps - 1) of x by those taps reversed. The
    phases interleave by a stack and a reshape; no product of a spread
    input's zeros is computed."""
    n, _, *size = x.shape
    o, _, *kernel = filters.shape
    rank = len(kernel)
    # 16-bit with a bias: the phases' sums stay f32 for the bias, so the
    # result rounds once, as torch's kernel does
    product = "f32" if bias is not None and x.dtype in HALF_DTYPES else None
    # every phase's output padded to the longest, `size + ceil(k / s) - 1`
    longest = [m + -(-k // s) - 1 for m, k, s in zip(size, kernel, stride)]
    phases: dict[tuple[int, ...], Tensor] = {}
    for phase in np.ndindex(*stride):
        picked = [list(range(r, k, s))[::-1] for r, k, s in zip(phase, kernel, stride)]
        if not all(picked):  # a phase no tap reaches (kernel < stride)
            phases[phase] = ops.full([n, o, *longest], 0.0, product or x.dtype)
            continue
        taps = filters
        for axis, chosen in enumerate(picked):
            taps = _taps(taps, axis, chosen)
        full = [len(chosen) - 1 for chosen in picked]
        y = conv(x, taps, None, [1] * rank, full, [1] * rank, groups, product)
        for axis in range(rank):
            y = pad(y, 2 + axis, 0, longest[axis] - y.shape[2 + axis])
        phases[phase] = y

    # (N, O, *longest) per phase -> (N, O, M0, s0, M1, s1, ...), innermost
    # dims first: the phases along the last dim stack, then the next
    def interleave(prefix: tuple[int, ...]) -> Tensor:
        axis = len(prefix)
        if axis == rank:
            y = phases[prefix]
            return ops.reshape(y, [n, o, *[d for m in longest for d in (m, 1)]])
        parts = [interleave((*prefix, r)) for r in range(stride[axis])]
        return parts[0] if len(parts) == 1 else ops.concat(parts, 3 + 2 * axis)

    spread = [m * s for m, s in zip(longest, stride)]
    y = ops.reshape(interleave(()), [n, o, *spread])
    for axis in range(rank):
        out = (size[axis] - 1) * stride[axis] - 2 * padding[axis] + kernel[axis]
        out += output_padding[axis]
        after = out + padding[axis] - spread[axis]
        y = pad(y, 2 + axis, -padding[axis], after)
    if bias is None:
        return y
    (bias,) = widened(x.dtype, bias)  # y is f32 for 16-bit x (see `product`)
    return ops.add(y, ops.reshape(bias, [o, *[1] * rank]))


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
        x, padding = _same_padding(x, weight, dilation)
    elif padding == "valid":
        padding = 0
    window = (per_dim(stride, rank), per_dim(padding, rank))
    if transposed:
        extra = per_dim(output_padding, rank)
        for added, step, spread in zip(extra, window[0], dilation, strict=True):
            if added >= max(step, spread):  # eager raises: so does torch's node
                raise UnsupportedNode(
                    f"output padding {added} is not smaller than the stride "
                    f"({step}) or the dilation ({spread})"
                )
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


@aten("conv_tbc.default")
def _conv_tbc(call: AtenCall) -> Tensor:
    """`conv_tbc(x (time, batch, in), weight (kernel, in, out), bias (out),
    pad)`: a 1-d convolution on time-major data, as conv1d on (batch, in,
    time) with the weight as (out, in, kernel), back to (time, batch, out)."""
    x, weight, bias = (cast_to(t, call.dtype) for t in call.args[:3])
    padding = int(call.arg(3, "pad", 0))
    batch_major = ops.transpose(x, [1, 2, 0])
    filters = ops.transpose(weight, [2, 1, 0])
    out = conv(batch_major, filters, bias, [1], [padding], [1], 1)
    return ops.transpose(out, [2, 0, 1])
