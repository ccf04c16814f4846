"""ATen handlers: pooling (max, average and adaptive, 1-D to 3-D, with
max pooling's indices).

The graph dialect has 2-D pooling ops (`graph.max_pool2d`, `avg_pool2d`,
`adaptive_avg_pool2d`); the rest is built from them and from ops that exist:

* Indices of a max pool (`max_pool2d_with_indices`, `adaptive_max_pool2d`)
  are the running argmax over the window's taps, in torch's order (row-major
  over the window, a later element wins only when strictly greater or NaN);
  the index is the flat position in the input's spatial dims (`h * W + w`),
  what torch returns. A strided window's tap is a strided slice of the input
  padded with -inf (a view, as `graph-decompose` reads a `max_pool2d`'s),
  which never wins; an adaptive window's is a gather at constant positions,
  masked outside the window. A window of -inf names its first element inside
  the input, as torch's CPU kernel.
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

from fxdsl.frontends.aten_conv import batched, pad, per_dim
from fxdsl.frontends.aten_registry import AtenCall, aten, cast_to, in_f32
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


def adaptive_bounds(size: int, out: int) -> tuple[Array, Array]:
    """(starts, ends) of torch's adaptive windows along one dim,
    `[floor(i n / o), ceil((i + 1) n / o))`."""
    starts = np.arange(out) * size // out
    return starts, -(-(np.arange(out) + 1) * size // out)


def _adaptive_axis(size: int, out: int) -> Axis:
    """The adaptive windows along one dim, padded to the longest with
    invalid taps."""
    starts, ends = adaptive_bounds(size, out)
    positions = starts[:, None] + np.arange(int(np.max(ends - starts)))[None]
    return positions, positions < ends[:, None]


Tap = tuple[Tensor, Tensor, Array | None]
"""One window position's (values (N, C, *out), their flat input positions,
where they lie inside the input: None for everywhere that can win)."""


def _argmax_chain(
    x: Tensor, out: Sequence[int], first: Array, taps: Sequence[Tap]
) -> tuple[Tensor, Tensor]:
    """(values, indices) of the max over the taps, in their order: a tap
    wins where it is strictly greater than the best so far or NaN (torch's
    CPU rule); where none wins (a window of -inf) the index is `first`."""
    lead = list(x.shape[:2])
    best = ops.full([*lead, *out], -math.inf, x.dtype)
    index = ops.broadcast_to(ops.constant(first, "i64"), [*lead, *out])
    for value, position, valid in taps:
        wins = ops.logical_or(ops.gt(value, best), ops.ne(value, value))
        if valid is not None:
            wins = ops.logical_and(wins, ops.constant(valid, "i1"))
        best = ops.where(wins, value, best)
        index = ops.where(wins, position, index)
    return best, index


def _window_mask(axes: Sequence[Axis], tap: Sequence[int]) -> Array:
    """Where tap `tap` of each output window lies inside the input."""
    rank = len(axes)
    valid = np.ones([positions.shape[0] for positions, _ in axes], bool)
    for a, t in enumerate(tap):
        valid = valid & _spread(axes[a][1][:, t], a, rank)
    return valid


def _spread(values: Array, axis: int, rank: int) -> Array:
    """A per-dim (out,) vector shaped to broadcast over the output."""
    return values.reshape([-1 if a == axis else 1 for a in range(rank)])


def _flat(axes: Sequence[Axis], tap: Sequence[int], spatial: Sequence[int]) -> Array:
    """The flat input position each output window's tap `tap` reads."""
    rank = len(axes)
    flat = np.zeros([positions.shape[0] for positions, _ in axes], np.int64)
    for a, t in enumerate(tap):
        flat = flat + _spread(axes[a][0][:, t], a, rank) * math.prod(spatial[a + 1 :])
    return flat


def _first_inside(axes: Sequence[Axis], spatial: Sequence[int]) -> Array:
    """Per output window, the flat position of its first element inside the
    input (what torch names for a window of -inf)."""
    first = None
    for tap in reversed(list(np.ndindex(*[p.shape[1] for p, _ in axes]))):
        valid = _window_mask(axes, tap)
        flat = _flat(axes, tap, spatial)
        first = np.where(valid, flat, 0 if first is None else first)
    assert first is not None
    return first


def strided_argmax(
    x: Tensor, kernel: Sequence[int], window: Sequence[Sequence[int]]
) -> tuple[Tensor, Tensor]:
    """(values, indices) of max pooling x (N, C, *spatial) with `window` =
    (stride, padding, dilation) and `out` per spatial dim: each tap a
    strided slice of x padded with -inf (which never wins), its flat
    positions the first tap's plus a constant."""
    stride, padding, dilation, out = window
    spatial = x.shape[2:]
    axes = [
        _strided_axis(n, *w)
        for n, *w in zip(spatial, out, kernel, stride, padding, dilation)
    ]
    padded = x
    for a, (n, o, k, s, p, d) in enumerate(
        zip(spatial, out, kernel, stride, padding, dilation)
    ):
        reach = (o - 1) * s + d * (k - 1) + 1
        padded = pad(padded, 2 + a, p, max(reach - n - p, 0), -math.inf)
    corner = ops.constant(_flat(axes, [0] * len(axes), spatial), "i64")
    taps: list[Tap] = []
    for tap in np.ndindex(*kernel):
        if not _window_mask(axes, tap).any():
            continue
        start = [t * d for t, d in zip(tap, dilation)]
        limit = [b + (o - 1) * s + 1 for b, o, s in zip(start, out, stride)]
        value = ops.slice(
            padded, [0, 0, *start], [*x.shape[:2], *limit], [1, 1, *stride]
        )
        offset = sum(
            t * d * math.prod(spatial[a + 1 :])
            for a, (t, d) in enumerate(zip(tap, dilation))
        )
        taps.append((value, ops.add(corner, offset) if offset else corner, None))
    return _argmax_chain(x, out, _stepped_start(spatial, out, window[:3]), taps)


def _stepped_start(
    spatial: Sequence[int], out: Sequence[int], window: Sequence[Sequence[int]]
) -> Array:
    """Per output window, the flat position torch names for a window of
    -inf: per dim its start stepped by the dilation until not negative (the
    first element inside, or, for a window wholly in the padding, a
    position past the input, as torch's CPU kernel gives)."""
    stride, padding, dilation = window
    rank = len(spatial)
    flat = np.zeros(list(out), np.int64)
    for a, (o, s, p, d) in enumerate(zip(out, stride, padding, dilation)):
        start = np.arange(o) * s - p
        start = start + d * -(-np.maximum(-start, 0) // d)
        flat = flat + _spread(start, a, rank) * math.prod(spatial[a + 1 :])
    return flat


def adaptive_argmax(x: Tensor, out: Sequence[int]) -> tuple[Tensor, Tensor]:
    """(values, indices) of adaptive max pooling x (N, C, *spatial) to
    `out`: the windows vary in size, so each tap is a gather at constant
    positions (clamped into the input, masked where outside its window)."""
    spatial = x.shape[2:]
    axes = [_adaptive_axis(n, o) for n, o in zip(spatial, out)]
    rank = len(axes)
    taps: list[Tap] = []
    for tap in np.ndindex(*[positions.shape[1] for positions, _ in axes]):
        valid = _window_mask(axes, tap)
        if not valid.any():
            continue
        reads = [
            np.clip(_spread(axes[a][0][:, t], a, rank), 0, n - 1)
            for a, (t, n) in enumerate(zip(tap, spatial))
        ]
        value = ops.index(x, [None, None, *(ops.constant(r, "i64") for r in reads)])
        position = ops.constant(_flat(axes, tap, spatial), "i64")
        taps.append((value, position, None if valid.all() else valid))
    return _argmax_chain(x, out, _first_inside(axes, spatial), taps)


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
    # the argmax chain computes the values too
    window = (stride, padding, dilation, list(y.shape[-2:]))
    x: Tensor = call.args[0]
    if x.ndim == 4:
        return strided_argmax(x, kernel, window)
    values, indices = strided_argmax(ops.reshape(x, [1, *x.shape]), kernel, window)
    return tuple(ops.reshape(t, list(t.shape[1:])) for t in (values, indices))


@aten("adaptive_max_pool2d.default", "adaptive_max_pool3d.default")
def _adaptive_max_pool(call: AtenCall) -> tuple[Tensor, ...]:
    x: Tensor = call.args[0]
    rank = 2 if call.target == "aten.adaptive_max_pool2d.default" else 3
    out = [int(d) for d in call.result[0].shape[-rank:]]
    batched = x if x.ndim == rank + 2 else ops.reshape(x, [1, *x.shape])
    values, indices = adaptive_argmax(batched, out)
    if x.ndim == rank + 2:
        return values, indices
    return tuple(ops.reshape(t, list(t.shape[1:])) for t in (values, indices))


def _avg_pool_args(call: AtenCall, rank: int) -> tuple[Any, ...]:
    """avg_pool{rank}d's arguments: (kernel, stride, padding, ceil_mode,
    count_include_pad, divisor_override), per dim where they are."""
    kernel = per_dim(call.args[1], rank)
    stride = per_dim(call.arg(2, "stride", []) or kernel, rank)
    padding = per_dim(call.arg(3, "padding", 0), rank)
    ceil_mode = bool(call.arg(4, "ceil_mode", False))
    include_pad = bool(call.arg(5, "count_include_pad", True))
    divisor = call.arg(6, "divisor_override")
    return kernel, stride, padding, ceil_mode, include_pad, divisor


@aten("avg_pool2d.default")
def _avg_pool2d(call: AtenCall) -> Tensor:
    kernel, stride, padding, ceil_mode, include_pad, divisor = _avg_pool_args(call, 2)
    return batched(
        call.args[0],
        2,
        lambda t: ops.avg_pool2d(
            t, kernel, stride, padding, ceil_mode, include_pad, divisor
        ),
    )


@aten("avg_pool3d.default")
def _avg_pool3d(call: AtenCall) -> Tensor:
    kernel, stride, padding, ceil_mode, include_pad, divisor = _avg_pool_args(call, 3)

    def pool(given: Tensor) -> Tensor:
        # two stages: a 16-bit plane in f32, so the result rounds once
        t = in_f32(given)
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
        result = ops.reshape(depth, [n, c, depth.shape[2], oh, ow])
        return cast_to(result, given.dtype)

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

    def pool(given: Tensor) -> Tensor:
        t = in_f32(given)  # as avg_pool3d's stages
        n, c, d, h, w = t.shape
        plane = ops.adaptive_avg_pool2d(ops.reshape(t, [n, c * d, h, w]), [oh, ow])
        depth = ops.adaptive_avg_pool2d(
            ops.reshape(plane, [n, c, d, oh * ow]), [od, oh * ow]
        )
        return cast_to(ops.reshape(depth, [n, c, od, oh, ow]), given.dtype)

    return batched(x, 3, pool)
