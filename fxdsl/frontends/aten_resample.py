"""ATen handlers: resampling that torch's decompositions leave as one node:
antialiased bilinear resizing (`_upsample_bilinear2d_aa`), 3-D grid
sampling (`grid_sampler_3d`), and torchvision's `roi_align` (the region
pooling of Faster and Mask R-CNN).

Shapes are static, so a resize's weights are constants: each output row is
a fixed weighted sum of input rows, and the resize is two matmuls with
(out, in) weight matrices, `A_h @ x @ A_w^T`. Grid sampling reads the grid
at run time: its corners are gathers at computed flat positions, weighted
by the fractional parts, as torch's CPU kernel.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fxdsl.frontends.aten_math import floor, round_half_even
from fxdsl.frontends.aten_registry import (
    ATEN,
    AtenCall,
    UnsupportedNode,
    aten,
    cast_to,
    in_f32,
    is_integer,
    widened,
)
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

Array = np.ndarray[Any, Any]


def _source_scale(size: int, out: int, align_corners: bool, scale: Any) -> float:
    """torch's input-per-output step along one dim."""
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    if scale is not None and scale > 0:
        return 1.0 / float(scale)
    return size / out


def antialias_weights(size: int, out: int, align_corners: bool, scale: Any) -> Array:
    """(out, size): torch's antialiased bilinear weights along one dim, a
    triangle filter widened by the downsampling factor, each row normalised
    to sum to one (torch's `_upsample_bilinear2d_aa`)."""
    step = np.float32(_source_scale(size, out, align_corners, scale))
    # shrinking widens the triangle by the step (it averages), growing does not
    support = step if step >= 1 else np.float32(1.0)
    stretch = np.float32(1.0) / step if step >= 1 else np.float32(1.0)
    matrix = np.zeros((out, size), np.float32)
    for i in range(out):
        center = step * np.float32(i + 0.5)
        low = max(int(center - support + np.float32(0.5)), 0)
        high = min(int(center + support + np.float32(0.5)), size)
        taps = np.arange(low, high, dtype=np.float32)
        weights = np.maximum(
            0, 1 - np.abs((taps - center + np.float32(0.5)) * stretch)
        ).astype(np.float32)
        if weights.sum() != 0:
            weights = weights / weights.sum()
        matrix[i, low:high] = weights
    return matrix


@aten("_upsample_bilinear2d_aa.default")
def _upsample_bilinear2d_aa(call: AtenCall) -> Tensor:
    if is_integer(call.dtype):  # torch's uint8 kernel is fixed-point
        raise UnsupportedNode(f"_upsample_bilinear2d_aa of {call.dtype}")
    x: Tensor = cast_to(call.args[0], call.dtype)
    oh, ow = (int(s) for s in call.args[1])
    align_corners = bool(call.args[2])
    scales = [call.arg(3, "scales_h"), call.arg(4, "scales_w")]
    h, w = x.shape[-2:]
    rows = antialias_weights(h, oh, align_corners, scales[0])
    cols = antialias_weights(w, ow, align_corners, scales[1])
    y = ops.matmul(x, ops.constant(cols.T, x.dtype))
    return ops.matmul(ops.constant(rows, x.dtype), y)


@aten("_upsample_bilinear2d_aa_backward.default")
def _upsample_bilinear2d_aa_backward(call: AtenCall) -> Tensor:
    """The gradient of `_upsample_bilinear2d_aa`, a linear map `R x C^T`
    per plane: `R^T grad C` (16-bit in f32, rounded once)."""
    grad: Tensor = in_f32(call.args[0])
    oh, ow = (int(s) for s in call.args[1])
    h, w = (int(s) for s in call.args[2][-2:])
    align_corners = bool(call.args[3])
    scales = [call.arg(4, "scales_h"), call.arg(5, "scales_w")]
    rows = antialias_weights(h, oh, align_corners, scales[0])
    cols = antialias_weights(w, ow, align_corners, scales[1])
    spread = ops.matmul(grad, ops.constant(cols, grad.dtype))
    return cast_to(ops.matmul(ops.constant(rows.T, grad.dtype), spread), call.dtype)


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """torch's reflect_coordinates: coord mirrored into [low, high]."""
    if twice_low == twice_high:
        return ops.mul(coord, 0.0)
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = ops.abs(ops.sub(coord, low))
    flips = floor(ops.div(distance, span))
    extra = ops.sub(distance, ops.mul(flips, span))
    even = ops.eq(ops.sub(flips, ops.mul(floor(ops.mul(flips, 0.5)), 2.0)), 0.0)
    return ops.where(even, ops.add(extra, low), ops.add(ops.sub(span, extra), low))


def _source_coordinate(
    coord: Tensor, size: int, padding_mode: int, align_corners: bool
) -> Tensor:
    """A grid coordinate in [-1, 1] as a position along a dim of `size`,
    mirrored (padding_mode 2) or clipped (1, 2) as torch's grid sampler."""
    if align_corners:
        coord = ops.mul(ops.add(coord, 1.0), (size - 1) / 2)
    else:
        coord = ops.div(ops.sub(ops.mul(ops.add(coord, 1.0), float(size)), 1.0), 2.0)
    if padding_mode == 2:
        bounds = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        coord = _reflect(coord, *bounds)
    if padding_mode in (1, 2):
        coord = ops.minimum(ops.maximum(coord, 0.0), float(size - 1))
    return coord


def _corner(
    flat: Tensor, positions: list[Tensor], sizes: list[int]
) -> tuple[Tensor, Tensor]:
    """The values (N, C, P) of flat (N, C, D H W) at the integral float
    `positions` (z, y, x; each (N, 1, P)), and whether each lies inside."""
    inside: Tensor | None = None
    index: Tensor | None = None
    for position, size in zip(positions, sizes, strict=True):
        ok = ops.logical_and(ops.ge(position, 0.0), ops.le(position, size - 1.0))
        inside = ok if inside is None else ops.logical_and(inside, ok)
    assert inside is not None
    for position, size in zip(positions, sizes, strict=True):
        at = ops.cast(ops.where(inside, position, 0.0), "i64")
        index = at if index is None else ops.add(ops.mul(index, size), at)
    assert index is not None
    spread = ops.broadcast_to(index, [flat.shape[0], flat.shape[1], index.shape[2]])
    return ops.gather(flat, 2, spread), inside


@aten("grid_sampler_3d.default")
def _grid_sampler_3d(call: AtenCall) -> Tensor:
    """torch's grid_sampler_3d: x (N, C, D, H, W) sampled at grid (N, OD,
    OH, OW, 3) holding (x, y, z) in [-1, 1]; trilinear (mode 0) or nearest
    (1), padding zeros (0), border (1) or reflection (2)."""
    # 16-bit: coordinates and weights in f32, the result rounded once (a
    # bf16 coordinate near 30 is an eighth of a voxel off)
    x, grid = widened(call.dtype, *(cast_to(a, call.dtype) for a in call.args[:2]))
    mode, padding_mode = int(call.args[2]), int(call.args[3])
    align_corners = bool(call.args[4])
    if mode not in (0, 1) or padding_mode not in (0, 1, 2):
        raise UnsupportedNode(
            f"grid_sampler_3d with interpolation mode {mode} (only 0, bilinear, "
            f"and 1, nearest) or padding mode {padding_mode}"
        )
    n, c, *sizes = x.shape
    out = list(grid.shape[1:4])
    points = math.prod(out)
    flat = ops.reshape(x, [n, c, math.prod(sizes)])
    coords = []
    for axis, size in enumerate(sizes):  # z, y, x: the grid's last dim reversed
        start, limit = [0, 0, 2 - axis], [n, points, 3 - axis]
        coord = ops.reshape(
            ops.slice(ops.reshape(grid, [n, points, 3]), start, limit), [n, 1, points]
        )
        coords.append(_source_coordinate(coord, size, padding_mode, align_corners))
    if mode == 1:
        values, inside = _corner(flat, [round_half_even(t) for t in coords], sizes)
        result = ops.where(inside, values, 0.0)
    else:
        lows = [floor(t) for t in coords]
        fractions = [ops.sub(t, low) for t, low in zip(coords, lows)]
        result = None
        for corner in np.ndindex(2, 2, 2):
            positions = [ops.add(low, float(o)) for low, o in zip(lows, corner)]
            # the far corner gets the fraction, the near one its complement
            shares = [f if o else ops.sub(1.0, f) for f, o in zip(fractions, corner)]
            weight = ops.mul(ops.mul(shares[0], shares[1]), shares[2])
            values, inside = _corner(flat, positions, sizes)
            term = ops.mul(ops.where(inside, values, 0.0), weight)
            result = term if result is None else ops.add(result, term)
    assert result is not None
    return cast_to(ops.reshape(result, [n, c, *out]), call.dtype)


def _roi_axis(
    start: Tensor, length: Tensor, bins: int, grid: int, size: int
) -> tuple[list[tuple[Tensor, Tensor]], Tensor]:
    """One axis of roi_align's sample points, `bins * grid` per roi:
    `start` (K, 1) and `length` (K, 1) the rois' extent along it, `size`
    the feature map's. The two corners as (position, weight) pairs (K,
    bins * grid) and whether each point is in range, as torchvision's CPU
    kernel computes them (clipped to 0 from above -1, pinned to the last
    row at the far edge)."""
    step = ops.div(length, float(bins))
    offsets = np.add.outer(np.arange(bins), (np.arange(grid) + 0.5) / grid)
    fractions = ops.constant(offsets.reshape(1, bins * grid), start.dtype)
    point = ops.add(start, ops.mul(fractions, step))
    inside = ops.logical_and(ops.ge(point, -1.0), ops.le(point, float(size)))
    point = ops.maximum(point, 0.0)
    low = floor(point)
    edge = ops.ge(low, size - 1.0)
    low = ops.where(edge, float(size - 1), low)
    point = ops.where(edge, low, point)
    high = ops.where(edge, low, ops.add(low, 1.0))
    share = ops.sub(point, low)
    return [(low, ops.sub(1.0, share)), (high, share)], inside


def _roi_align(call: AtenCall) -> Tensor:
    """torchvision's roi_align: x (N, C, H, W) pooled over rois (K, 5) of
    (batch index, x1, y1, x2, y2) into (K, C, PH, PW), each bin the mean of
    `sampling_ratio`² bilinear samples (`aligned`: pixel centres at .5).
    An adaptive sampling ratio (<= 0: a count per roi from its size) is a
    size that depends on values, which a static-shape graph cannot hold."""
    scale = float(call.arg(2, "spatial_scale"))
    bins_h, bins_w = int(call.arg(3, "pooled_height")), int(call.arg(4, "pooled_width"))
    grid, aligned = int(call.arg(5, "sampling_ratio")), bool(call.arg(6, "aligned"))
    if grid <= 0:
        raise UnsupportedNode(
            f"roi_align with sampling_ratio={grid}: an adaptive count of samples "
            "per roi depends on the rois' values (give a positive sampling_ratio)"
        )
    wide = "f64" if call.dtype == "f64" else "f32"  # 16-bit: computed in f32
    x: Tensor = cast_to(call.args[0], wide)
    rois: Tensor = cast_to(call.args[1], wide)
    n, c, height, width = x.shape
    k = rois.shape[0]

    def column(j: int) -> Tensor:
        return ops.slice(rois, [0, j], [k, j + 1])

    offset = 0.5 if aligned else 0.0
    start_w = ops.sub(ops.mul(column(1), scale), offset)
    start_h = ops.sub(ops.mul(column(2), scale), offset)
    length_w = ops.sub(ops.sub(ops.mul(column(3), scale), offset), start_w)
    length_h = ops.sub(ops.sub(ops.mul(column(4), scale), offset), start_h)
    if not aligned:  # a degenerate roi is widened to one pixel
        length_w, length_h = ops.maximum(length_w, 1.0), ops.maximum(length_h, 1.0)
    rows, rows_inside = _roi_axis(start_h, length_h, bins_h, grid, height)
    cols, cols_inside = _roi_axis(start_w, length_w, bins_w, grid, width)
    ys, xs = bins_h * grid, bins_w * grid
    inside = ops.logical_and(
        ops.reshape(rows_inside, [k, ys, 1]), ops.reshape(cols_inside, [k, 1, xs])
    )
    # each roi's image starts at flat position batch * H * W
    base = ops.mul(ops.cast(column(0), "i64"), height * width)
    base = ops.reshape(base, [k, 1, 1])
    flat = ops.reshape(ops.transpose(x, [1, 0, 2, 3]), [c, n * height * width])
    points = k * ys * xs
    total: Tensor | None = None
    for row, row_weight in rows:
        for col, col_weight in cols:
            row_at = ops.reshape(ops.mul(ops.cast(row, "i64"), width), [k, ys, 1])
            col_at = ops.reshape(ops.cast(col, "i64"), [k, 1, xs])
            at = ops.reshape(ops.add(ops.add(row_at, col_at), base), [1, points])
            values = ops.gather(flat, 1, ops.broadcast_to(at, [c, points]))
            weight = ops.mul(
                ops.reshape(row_weight, [k, ys, 1]), ops.reshape(col_weight, [k, 1, xs])
            )
            weight = ops.reshape(ops.where(inside, weight, 0.0), [1, points])
            term = ops.mul(values, weight)
            total = term if total is None else ops.add(total, term)
    assert total is not None
    pooled = ops.reshape(total, [c, k, bins_h, grid, bins_w, grid])
    mean = ops.div(ops.sum(pooled, [3, 5]), float(grid * grid))  # (C, K, PH, PW)
    return cast_to(ops.transpose(mean, [1, 0, 2, 3]), call.dtype)


ATEN["torchvision.roi_align.default"] = _roi_align  # torchvision's namespace
