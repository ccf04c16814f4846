"""ATen handlers for ops that count or locate values, as composites of
graph ops over every (element, bin) or (element, element) pair: histograms
(`histc`, `histogram`, `histogramdd`), `mode`, `nonzero_static` (nonzero
padded to a size known at export), segment reductions with lengths or
offsets; and
`_local_scalar_dense` (`.item()`), which a static graph cannot express.

Shapes are static, so each result's shape is torch's; what varies with the
values (which bin, which position) is a mask over the pairs, summed or
selected. The pairs are counted against `PAIR_LIMIT` (a 1 GiB i1 mask).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from fxdsl.frontends.aten_movement import reshape
from fxdsl.frontends.aten_registry import (
    AtenCall,
    UnsupportedNode,
    aten,
    cast_to,
    dim_of,
    extreme_value,
    graph_dtype,
    is_integer,
)
from fxdsl.frontends.aten_select import product_of
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

PAIR_LIMIT = 1 << 30
"""The most (element, bin) or (element, element) pairs a handler compares."""


def _check_pairs(what: str, pairs: int) -> None:
    if pairs > PAIR_LIMIT:
        raise UnsupportedNode(f"{what} compares {pairs} pairs (more than {PAIR_LIMIT})")


def _arange(n: int, shape: list[int]) -> Tensor:
    return ops.constant(np.arange(n, dtype=np.int64).reshape(shape), "i64")


# --------------------------------------------------------------------------- #
# Histograms
# --------------------------------------------------------------------------- #


def _edges(low: Any, high: Any, bins: int, dtype: str) -> Tensor:
    """`bins + 1` edges from `low` to `high` (floats or 0-d tensors), as
    torch's linspace computes them: from the start for the first half,
    from the end for the rest (so the last edge is `high` exactly)."""
    low = low if isinstance(low, Tensor) else ops.full([], float(low), dtype)
    high = high if isinstance(high, Tensor) else ops.full([], float(high), dtype)
    step = ops.div(ops.sub(high, low), float(bins))
    k = np.arange(bins + 1, dtype=np.float64)
    up = ops.add(low, ops.mul(step, ops.constant(k.astype(np.float32), dtype)))
    rest = (bins - k).astype(np.float32)
    down = ops.sub(high, ops.mul(step, ops.constant(rest, dtype)))
    first = ops.constant(k < (bins + 1) // 2, "i1")
    return ops.where(first, up, down)


def _histogram(x: Tensor, edges: Tensor, weight: Any, density: bool) -> Tensor:
    """Counts (or summed weights) of `x`'s elements per bin between
    consecutive `edges` (ascending): a bin holds `[e_k, e_k+1)`, the last
    also its right edge; elements outside the edges (and NaN) are left out."""
    count = math.prod(x.shape)
    bins = edges.shape[0] - 1
    _check_pairs("a histogram", count * bins)
    hit = _hits(reshape(x, [count]), edges)  # (count, bins)
    lo = ops.slice(edges, [0], [bins])
    hi = ops.slice(edges, [1], [bins + 1])
    if weight is None:
        values = ops.cast(hit, x.dtype)
    else:
        values = ops.where(hit, reshape(cast_to(weight, x.dtype), [count, 1]), 0.0)
    hist = ops.sum(values, [0])
    if density:
        width = ops.sub(hi, lo)
        hist = ops.div(hist, ops.mul(ops.sum(hist, None), width))
    return hist


def _data_range(x: Tensor, low: float, high: float, widen: float) -> tuple[Any, Any]:
    """torch's range of a histogram without one (`low == high == 0`): the
    data's min and max, widened by `widen` each way when they are equal
    (torch's histc widens by 1, histogram by 0.5)."""
    if low != high or math.prod(x.shape) == 0:
        return low, high
    lo, hi = ops.min(x, None), ops.max(x, None)
    same = ops.eq(lo, hi)
    return (
        ops.where(same, ops.sub(lo, widen), lo),
        ops.where(same, ops.add(hi, widen), hi),
    )


@aten("histc.default")
def _histc(call: AtenCall) -> Tensor:
    """torch's CPU histc: each element in [left, right] goes to bin
    `trunc((x - left) * bins / (right - left))` (the last bin also holds
    `right`), computed in the input's type, each step rounded there, as
    the kernel's scalar arithmetic rounds; not by comparing with linspace
    edges, which differ near a bin boundary in bf16/f16. A quotient that is
    not finite (NaN where the range rounds to one value, bf16 300 +- 1; inf
    where `(x - left) * bins` overflows f16) lands in bin 0, as in eager
    (its int64 cast of it is INT64_MIN, an offset of 0 bytes once scaled by
    the element size)."""
    x: Tensor = cast_to(call.args[0], call.dtype)
    bins = int(call.arg(1, "bins", 100))
    low, high = float(call.arg(2, "min", 0)), float(call.arg(3, "max", 0))
    low_v, high_v = _data_range(x, low, high, 1.0)
    # the outer edges of torch's linspace edges: NaN where its step is not
    # finite (a range of float32's extremes), which then counts nothing
    edges = _edges(low_v, high_v, bins, x.dtype)
    left = ops.slice(edges, [0], [1])
    right = ops.slice(edges, [bins], [bins + 1])
    count = math.prod(x.shape)
    _check_pairs("a histogram", count * bins)
    flat = reshape(x, [count, 1])
    quotient = ops.div(ops.mul(ops.sub(flat, left), float(bins)), ops.sub(right, left))
    finite = ops.lt(ops.abs(quotient), math.inf)
    quotient = ops.where(finite, quotient, 0.0)
    position = ops.minimum(ops.cast(quotient, "i64"), ops.full([], bins - 1, "i64"))
    inside = ops.logical_and(ops.ge(flat, left), ops.le(flat, right))
    hit = ops.logical_and(inside, ops.eq(position, _arange(bins, [1, bins])))
    return ops.sum(ops.cast(hit, x.dtype), [0])


@aten("histogram.bin_ct", "histogram.bins_tensor")
def _histogram_handler(call: AtenCall) -> tuple[Tensor, Tensor]:
    x: Tensor = cast_to(call.args[0], graph_dtype(call.result[0].dtype))
    bins = call.arg(1, "bins", 100)
    weight = call.kwargs.get("weight")
    density = bool(call.kwargs.get("density", False))
    if isinstance(bins, Tensor):
        edges = cast_to(bins, x.dtype)
    else:
        given = call.kwargs.get("range")
        low, high = (0.0, 0.0) if given is None else (float(v) for v in given)
        low_v, high_v = _data_range(x, low, high, 0.5)
        edges = _edges(low_v, high_v, int(bins), x.dtype)
    return _histogram(x, edges, weight, density), edges


def _hits(x: Tensor, edges: Tensor) -> Tensor:
    """(count, bins) i1: which bin between consecutive `edges` holds each
    element of the flat `x` (`_histogram`'s rule)."""
    bins = edges.shape[0] - 1
    flat = reshape(x, [x.shape[0], 1])
    lo = ops.slice(edges, [0], [bins])
    hi = ops.slice(edges, [1], [bins + 1])
    last = ops.constant(np.arange(bins) == bins - 1, "i1")
    below_right = ops.logical_or(
        ops.lt(flat, hi), ops.logical_and(last, ops.eq(flat, hi))
    )
    return ops.logical_and(ops.ge(flat, lo), below_right)


def _histogramdd_edges(x: Tensor, bins: list[int], given: Any) -> list[Tensor]:
    """Each column's edges of an (N, D) sample: `bins[d] + 1` from the
    range's pair (or the column's min and max), widened by 0.5 each way
    where the two are equal, as torch's."""
    edges = []
    for d, count in enumerate(bins):
        if given is not None:
            low: Any = ops.full([], float(given[2 * d]), x.dtype)
            high: Any = ops.full([], float(given[2 * d + 1]), x.dtype)
        elif x.shape[0] == 0:
            low, high = ops.full([], 0.0, x.dtype), ops.full([], 0.0, x.dtype)
        else:
            column = ops.slice(x, [0, d], [x.shape[0], d + 1])
            low, high = ops.min(column, None), ops.max(column, None)
        same = ops.eq(low, high)
        low = ops.where(same, ops.sub(low, 0.5), low)
        high = ops.where(same, ops.add(high, 0.5), high)
        edges.append(_edges(low, high, int(count), x.dtype))
    return edges


def _histogramdd(x: Tensor, edges: list[Tensor], weight: Any, density: bool) -> Tensor:
    """The D-dimensional histogram of an (N, D) sample: the product of each
    column's bin hits, summed over the samples as GEMMs (the first D - 1
    dims' outer product against the last's hits)."""
    count, bins = x.shape[0], [e.shape[0] - 1 for e in edges]
    _check_pairs("a histogramdd", count * math.prod(bins))
    hits = []
    for d, dim_edges in enumerate(edges):
        column = reshape(ops.slice(x, [0, d], [count, d + 1]), [count])
        hits.append(ops.cast(_hits(column, dim_edges), x.dtype))  # (count, bins)
    if weight is not None:
        hits[0] = ops.mul(hits[0], reshape(cast_to(weight, x.dtype), [count, 1]))
    if len(hits) == 1:
        hist = ops.sum(hits[0], [0])
    else:
        outer = hits[0]  # (count, bins of the dims so far)
        for hit in hits[1:-1]:
            product = ops.mul(
                ops.reshape(outer, [count, -1, 1]), ops.reshape(hit, [count, 1, -1])
            )
            outer = ops.reshape(product, [count, -1])
        hist = ops.matmul(ops.transpose(outer, [1, 0]), hits[-1])
    hist = ops.reshape(hist, bins)
    if density:
        hist = ops.div(hist, ops.sum(hist, None))
        for d, dim_edges in enumerate(edges):
            width = ops.sub(ops.slice(dim_edges, [1], [bins[d] + 1]),
                            ops.slice(dim_edges, [0], [bins[d]]))  # fmt: skip
            shape = [bins[d] if e == d else 1 for e in range(len(bins))]
            hist = ops.div(hist, ops.reshape(width, shape))
    return hist


def _samples(call: AtenCall) -> Tensor:
    """The histogramdd input as (N, D)."""
    x: Tensor = cast_to(call.args[0], graph_dtype(call.arg_results[0].dtype))
    width = int(x.shape[-1])
    return reshape(x, [math.prod(x.shape) // max(width, 1), width])


@aten("_histogramdd_bin_edges.default")
def _histogramdd_bin_edges(call: AtenCall) -> list[Tensor]:
    bins = [int(b) for b in call.args[1]]
    return _histogramdd_edges(_samples(call), bins, call.kwargs.get("range"))


@aten("_histogramdd_from_bin_cts.default")
def _histogramdd_from_bin_cts(call: AtenCall) -> Tensor:
    x = _samples(call)
    edges = _histogramdd_edges(
        x, [int(b) for b in call.args[1]], call.kwargs.get("range")
    )
    return _histogramdd(x, edges, call.kwargs.get("weight"),
                        bool(call.kwargs.get("density", False)))  # fmt: skip


@aten("_histogramdd_from_bin_tensors.default")
def _histogramdd_from_bin_tensors(call: AtenCall) -> Tensor:
    x = _samples(call)
    edges = [cast_to(e, x.dtype) for e in call.args[1]]
    return _histogramdd(x, edges, call.kwargs.get("weight"),
                        bool(call.kwargs.get("density", False)))  # fmt: skip


# --------------------------------------------------------------------------- #
# mode, nonzero_static
# --------------------------------------------------------------------------- #


def _same(a: Tensor, b: Tensor) -> Tensor:
    """a == b, with NaN equal to NaN (integers: plain equality)."""
    if is_integer(a.dtype):
        return ops.eq(a, b)
    both_nan = ops.logical_and(ops.ne(a, a), ops.ne(b, b))
    return ops.logical_or(ops.eq(a, b), both_nan)


@aten("mode.default")
def _mode(call: AtenCall) -> tuple[Tensor, Tensor]:
    """The most frequent value along `dim` (the smallest of several) and
    the last index holding it, as torch's: each element's count of equal
    elements, over every (element, element) pair. NaNs count as one value,
    sorted after every number (as torch.sort puts them): the mode is NaN
    only when NaNs are strictly the most frequent."""
    x: Tensor = call.args[0]
    if x.ndim == 0:
        x = reshape(x, [1])
    dim = dim_of(x, call.arg(1, "dim", -1))
    n = x.shape[dim]
    _check_pairs("mode", math.prod(x.shape) * n)
    last = x.ndim - 1
    moved = ops.swapaxes(x, dim, last) if dim != last else x
    outer = list(moved.shape[:-1])
    column, row = reshape(moved, [*outer, n, 1]), reshape(moved, [*outer, 1, n])
    pairs = _same(column, row)
    counts = ops.sum(ops.cast(pairs, "i64"), [last + 1])  # (..., n)
    most = ops.eq(counts, ops.max(counts, [last], keepdim=True))
    largest = extreme_value(x.dtype, largest=True)
    if is_integer(x.dtype):
        value = ops.min(ops.where(most, moved, largest), [last], keepdim=True)
    else:  # the smallest number among the most frequent, else NaN
        number = ops.logical_and(most, ops.eq(moved, moved))
        smallest = ops.min(ops.where(number, moved, largest), [last], keepdim=True)
        value = ops.where(ops.any(number, [last], keepdim=True), smallest, math.nan)
    at = ops.where(_same(moved, value), _arange(n, [1] * last + [n]), -1)
    index = ops.max(at, [last], keepdim=True)
    if dim != last:
        value, index = ops.swapaxes(value, dim, last), ops.swapaxes(index, dim, last)
    # torch's result shapes say whether the dim is kept
    shapes = [list(r.shape) for r in call.result]
    return reshape(value, shapes[0]), reshape(index, shapes[1])


@aten("nonzero_static.default")
def _nonzero_static(call: AtenCall) -> Tensor:
    """The first `size` nonzero positions of `x` in row-major order, one
    row of coordinates each, then rows of `fill_value`: the k-th nonzero
    element is the one where the running count of nonzeros reaches k."""
    x: Tensor = call.args[0]
    size = int(call.kwargs.get("size", call.arg(1, "size", 0)))
    fill = int(call.kwargs.get("fill_value", -1))
    count, rank = math.prod(x.shape), x.ndim
    if size == 0 or rank == 0 or count == 0:  # (size, 0) or only fill rows
        return ops.full(call.shape, float(fill), "i64")
    _check_pairs("nonzero_static", size * count)
    nonzero = reshape(ops.ne(x, 0), [1, count])
    running = ops.cumsum(ops.cast(nonzero, "i64"), 1)
    kth = ops.logical_and(
        nonzero, ops.eq(running, ops.add(_arange(size, [size, 1]), 1))
    )
    flat = ops.sum(ops.where(kth, _arange(count, [1, count]), 0), [1])  # (size,)
    found = reshape(ops.any(kth, [1]), [size, 1])
    table = np.stack(np.unravel_index(np.arange(count), x.shape), axis=1)
    coordinates = ops.index(ops.constant(table.astype(np.int64), "i64"), [flat])
    return ops.where(found, coordinates, fill)


@aten("_local_scalar_dense.default")
def _item(call: AtenCall) -> Any:
    raise UnsupportedNode(
        "it reads a tensor's value as a Python number (`.item()`, a tensor "
        "of split points or sizes), which then sizes or steers the program: "
        "a static-shape compiler cannot take it (pass such numbers as Python "
        "values)"
    )


# --------------------------------------------------------------------------- #
# Segment reductions
# --------------------------------------------------------------------------- #

_SEGMENT_START = {"sum": 0.0, "mean": 0.0, "prod": 1.0, "max": -math.inf}
"""Where a segment's reduction starts without `initial` (min: +inf)."""


def _segment_hits(
    lengths: Tensor | None, offsets: Tensor | None, shape: list[int], axis: int
) -> Tensor:
    """Whether element j (along `axis` of a tensor of `shape`) lies in
    segment s: (..., k, n) i1, where `lengths` (k) or `offsets` (k + 1) has
    a dim per dim of `shape` before `axis` (torch's batched segments) and
    the mask a size-one dim for each after it."""
    bounds = lengths if lengths is not None else offsets
    if bounds is None or list(bounds.shape[:-1]) != list(shape[:axis]):
        raise UnsupportedNode(
            "segment_reduce's lengths or offsets must have the data's dims "
            "before axis, then the segments"
        )
    last = bounds.ndim - 1
    if offsets is not None:
        k = offsets.shape[-1] - 1
        start = ops.slice(offsets, [0] * last + [0], [*offsets.shape[:-1], k])
        end = ops.slice(offsets, [0] * last + [1], list(offsets.shape))
    else:
        k = lengths.shape[-1]
        end = ops.cumsum(lengths, last)
        start = ops.sub(end, lengths)
    n = shape[axis]
    _check_pairs("segment_reduce", math.prod(shape) * k)
    batch = [*shape[:axis], *[1] * (len(shape) - 1 - axis)]
    start, end = reshape(start, [*batch, k, 1]), reshape(end, [*batch, k, 1])
    j = _arange(n, [1, n])
    return ops.logical_and(ops.ge(j, start), ops.lt(j, end))


@aten("segment_reduce.default")
def _segment_reduce(call: AtenCall) -> Tensor:
    """`data` reduced over consecutive segments along `axis`, given by
    `lengths` or `offsets` (a set of segments per index of the dims before
    `axis`): per (segment, element) pair whether the element lies in the
    segment, then the reduction of the hits, starting
    from `initial` (else 0, 1, -inf or +inf); an empty segment's mean is
    `initial`, else NaN, as torch's."""
    data: Tensor = cast_to(call.args[0], call.dtype)
    reduce = str(call.args[1])
    lengths, offsets = call.kwargs.get("lengths"), call.kwargs.get("offsets")
    axis = dim_of(data, call.kwargs.get("axis", 0))
    initial = call.kwargs.get("initial")
    if call.kwargs.get("indices") is not None:
        raise UnsupportedNode("segment_reduce with indices")
    hit = _segment_hits(lengths, offsets, data.shape, axis)
    k, n = hit.shape[-2:]
    last = data.ndim - 1
    moved = ops.swapaxes(data, axis, last) if axis != last else data
    values = reshape(moved, [*moved.shape[:-1], 1, n])
    begin = _SEGMENT_START.get(reduce, math.inf) if initial is None else initial
    begin = float(begin)
    if reduce in ("sum", "mean"):
        result = ops.add(ops.sum(ops.where(hit, values, 0.0), [last + 1]), begin)
    elif reduce == "prod":
        ones = ops.where(hit, values, 1.0)
        product = reshape(product_of(ones, last + 1), [*moved.shape[:-1], k])
        result = ops.mul(product, begin)
    elif reduce in ("max", "min"):
        extreme = ops.max if reduce == "max" else ops.min
        pair = ops.maximum if reduce == "max" else ops.minimum
        fill = -math.inf if reduce == "max" else math.inf
        result = pair(extreme(ops.where(hit, values, fill), [last + 1]), begin)
    else:
        raise UnsupportedNode(f"segment_reduce with reduce={reduce!r}")
    if reduce == "mean":
        count = ops.sum(ops.cast(hit, data.dtype), [last + 1])  # (..., k)
        empty = math.nan if initial is None else begin
        result = ops.where(ops.gt(count, 0), ops.div(result, count), empty)
    return ops.swapaxes(result, axis, last) if axis != last else result
