"""ATen handlers written as composites of existing graph ops: index
selection, `as_strided`, padding, products, arg/max/min with a dim, and
sorting (sort, kthvalue, median, topk)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from fxdsl.frontends.aten_movement import reshape
from fxdsl.frontends.aten_registry import (
    ATEN,
    AtenCall,
    UnsupportedNode,
    aten,
    cast_to,
    dim_of,
    extreme_value,
    is_integer,
)
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor


@aten("index_select.default")
def _index_select(call: AtenCall) -> Tensor:
    x, index = call.args[0], call.args[2]
    if x.ndim == 0:
        x, dim = reshape(x, [1]), 0
    else:
        dim = dim_of(x, call.args[1])
    flat = reshape(index, [math.prod(index.shape)])
    return reshape(ops.index(x, [None] * dim + [flat]), call.shape)


@aten("take.default")
def _take(call: AtenCall) -> Tensor:
    """`x.flatten()[index]`, a negative index counting from the end (torch's
    decomposition reads the index's values to check them: data-dependent)."""
    x, index = call.args[:2]
    count = math.prod(x.shape)
    flat = reshape(index, [math.prod(index.shape)])
    wrapped = ops.where(ops.lt(flat, 0), ops.add(flat, count), flat)
    return reshape(ops.index(reshape(x, [count]), [wrapped]), call.shape)


@aten("as_strided.default", "as_strided_copy.default")
def _as_strided(call: AtenCall) -> Tensor:
    # Elements of the input's storage at offset + sum(i_k * stride_k): a
    # gather of the flat input by a constant index, each storage position
    # read mapped back to the input element that holds it. The input may
    # be dense in any dim order (Longformer's overlapping attention chunks;
    # a contiguous slice) or a strided view with gaps (`diagonal`, `unfold`
    # of a sliced or transposed input, which Dynamo hands over as such);
    # only a read of storage the input does not hold (a gap, or past its
    # end: memory it shares with another tensor) has no value here.

    x, size, stride = call.args[0], call.args[1], call.args[2]
    given = call.arg_results[0]
    offset = call.arg(3, "storage_offset")
    offset = given.storage_offset() if offset is None else offset
    numel = math.prod(x.shape)
    own = strided_positions(list(x.shape), list(given.stride()), 0).ravel()
    # positions relative to the input's own first element
    index = strided_positions(list(size), list(stride), offset - given.storage_offset())
    # storage position -> the input's row-major position (-1: not the
    # input's; positions it holds twice, an expand's, hold one value)
    held = np.full(int(own.max()) + 1 if numel else 0, -1, np.int64)
    held[own] = np.arange(numel)
    if index.size and (index.min() < 0 or index.max() >= held.size):
        raise UnsupportedNode(
            f"{call.target} reads past its input's {numel} elements (the "
            "storage it shares with another tensor)"
        )
    if index.size and (held[index] < 0).any():
        raise UnsupportedNode(
            f"{call.target} of a view with strides {tuple(given.stride())} "
            "reads its gaps (storage that is not the view's)"
        )
    flat = reshape(x, [numel])
    picked = ops.index(flat, [ops.constant(held[index].reshape(-1), "i64")])
    return reshape(picked, list(size))


def strided_positions(size: list[int], stride: list[int], offset: int) -> Any:
    """The storage position of each element of a `size` view with `stride`
    from `offset` (an int64 array of shape `size`)."""

    grids = np.indices(tuple(size), dtype=np.int64)
    start = np.full(tuple(size), offset, np.int64)
    return start + sum((g * s for g, s in zip(grids, stride)), start * 0)


@aten("constant_pad_nd.default")
def _constant_pad_nd(call: AtenCall) -> Tensor:
    x: Tensor = cast_to(call.args[0], call.dtype)
    pad = [int(p) for p in call.args[1]]
    value = float(call.arg(2, "value", 0))
    for i in range(len(pad) // 2):
        dim = x.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        if before < 0 or after < 0:  # negative padding crops
            starts, limits = [0] * x.ndim, list(x.shape)
            starts[dim] = -min(before, 0)
            limits[dim] = x.shape[dim] + min(after, 0)
            x = ops.slice(x, starts, limits)
        parts = []
        for size in (max(before, 0), None, max(after, 0)):
            if size is None:
                parts.append(x)
            elif size:
                shape = list(x.shape)
                shape[dim] = size
                parts.append(ops.full(shape, value, x.dtype))
        if len(parts) > 1:
            x = ops.concat(parts, dim)
    return x


def product_of(x: Tensor, dim: int) -> Tensor:
    """The product over `dim` (kept, size one): halves multiplied pairwise,
    log2(n) steps."""
    while x.shape[dim] > 1:
        size, half = x.shape[dim], x.shape[dim] // 2
        parts = []
        for lo, hi in ((0, half), (half, 2 * half), (2 * half, size)):
            starts, limits = [0] * x.ndim, list(x.shape)
            starts[dim], limits[dim] = lo, hi
            parts.append(ops.slice(x, starts, limits))
        x = ops.mul(parts[0], parts[1])
        if size % 2:
            x = ops.concat([x, parts[2]], dim)
    return x


def _prims_prod(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    dims = call.arg(1, "dims")
    reduced = range(x.ndim) if dims is None else sorted({dim_of(x, d) for d in dims})
    if math.prod(x.shape[d] for d in reduced) == 0:
        return ops.full(call.shape, 1.0, call.dtype)
    for dim in reduced:
        x = product_of(x, dim)
    return reshape(cast_to(x, call.dtype), call.shape)


ATEN["prims.prod.default"] = _prims_prod


@aten("prod.default", "prod.dim_int")
def _prod(call: AtenCall) -> Tensor:
    x: Tensor = cast_to(call.args[0], call.dtype)
    if call.target == "aten.prod.default" or x.ndim == 0:
        if math.prod(x.shape) == 0:
            return ops.full(call.shape, 1.0, call.dtype)
        return reshape(product_of(reshape(x, [math.prod(x.shape)]), 0), call.shape)
    dim = dim_of(x, call.args[1])
    if x.shape[dim] == 0:
        return ops.full(call.shape, 1.0, call.dtype)
    return reshape(product_of(x, dim), call.shape)


def _first_index(x: Tensor, hit: Tensor, dim: int, keepdim: bool) -> Tensor:
    """The first index along `dim` where `hit` (i1, x's shape) is true."""

    size = x.shape[dim]
    positions = [1] * x.ndim
    positions[dim] = size
    index = ops.constant(np.arange(size, dtype=np.int64).reshape(positions), "i64")
    return ops.min(ops.where(hit, index, size), [dim], keepdim)


def _extreme_index(call: AtenCall, largest: bool) -> tuple[Tensor, Tensor]:
    """(values, indices) of the max/min over the call's dim (argmax's
    dim=None: over the flattened tensor); NaN counts as the extreme, as
    torch's."""
    x: Tensor = call.args[0]
    dim = call.arg(1, "dim")
    keepdim = bool(call.arg(2, "keepdim", False))
    if dim is None or x.ndim == 0:
        if dim is not None:
            ops.normalize_dim("import", int(dim), 1)
        x = reshape(x, [math.prod(x.shape)])
        dim = 0
    else:
        dim = dim_of(x, dim)
    extreme = (ops.max if largest else ops.min)(x, [dim], True)
    hit = ops.eq(x, extreme)
    if not is_integer(x.dtype):
        nan = ops.ne(x, x)
        hit = ops.logical_or(hit, nan)
        any_nan = ops.any(nan, [dim], True)
        extreme = ops.where(any_nan, math.nan, extreme)
    indices = _first_index(x, hit, dim, keepdim)
    values = extreme if keepdim else ops.reshape(extreme, list(indices.shape))
    return values, indices


@aten("argmax.default")
def _argmax(call: AtenCall) -> Tensor:
    return reshape(_extreme_index(call, largest=True)[1], call.shape)


@aten("argmin.default")
def _argmin(call: AtenCall) -> Tensor:
    return reshape(_extreme_index(call, largest=False)[1], call.shape)


@aten("max.dim")
def _max_dim(call: AtenCall) -> tuple[Tensor, Tensor]:
    values, indices = _extreme_index(call, largest=True)
    return reshape(values, list(call.result[0].shape)), reshape(
        indices, list(call.result[1].shape)
    )


@aten("min.dim")
def _min_dim(call: AtenCall) -> tuple[Tensor, Tensor]:
    values, indices = _extreme_index(call, largest=False)
    return reshape(values, list(call.result[0].shape)), reshape(
        indices, list(call.result[1].shape)
    )


def _before(
    p: tuple[Tensor, Tensor], q: tuple[Tensor, Tensor], descending: bool
) -> Tensor:
    """Whether the (value, index) key p sorts strictly before q: by value
    (NaN counts as the largest, as torch), ties by index (a stable sort)."""
    (pv, pi), (qv, qi) = p, q
    first, second = (qv, pv) if descending else (pv, qv)
    less = ops.lt(first, second)
    same = ops.eq(pv, qv)
    if not is_integer(pv.dtype):
        nan_p, nan_q = ops.ne(pv, pv), ops.ne(qv, qv)
        nan_second = nan_p if descending else nan_q
        nan_first = nan_q if descending else nan_p
        less = ops.logical_or(
            less, ops.logical_and(nan_second, ops.logical_not(nan_first))
        )
        same = ops.logical_or(same, ops.logical_and(nan_p, nan_q))
    return ops.logical_or(less, ops.logical_and(same, ops.lt(pi, qi)))


def _half(x: Tensor, part: int) -> Tensor:
    """Part 0 or 1 of the `2` axis of x (`[..., blocks, 2, j]`), kept."""
    starts, limits = [0] * x.ndim, list(x.shape)
    starts[-2], limits[-2] = part, part + 1
    return ops.slice(x, starts, limits)


def sorted_along(x: Tensor, dim: int, descending: bool) -> tuple[Tensor, Tensor]:
    """(values, indices) of a stable sort of `x` along `dim`: a bitonic
    network over the (value, index) keys, the dim padded to a power of two
    with keys that sort last; log2(n)^2 / 2 compare-and-swap steps."""
    if x.ndim == 0:
        return x, ops.full([], 0.0, "i64")
    if x.dtype == "i1":
        values, index = sorted_along(ops.cast(x, "i32"), dim, descending)
        return ops.cast(values, "i1"), index
    n, last = x.shape[dim], x.ndim - 1
    x = ops.swapaxes(x, dim, last) if dim != last else x
    outer = list(x.shape[:-1])
    size = 1 << max(n - 1, 0).bit_length()
    index = ops.broadcast_to(ops.arange(0, size), [*outer, size])
    values = x
    if size > n:
        if is_integer(x.dtype):
            pad = extreme_value(x.dtype, largest=not descending)
        else:
            pad = -math.inf if descending else math.nan
        values = ops.concat([x, ops.full([*outer, size - n], pad, x.dtype)], last)
    stage = 2
    while stage <= size:
        step = stage // 2
        while step >= 1:
            blocks = size // (2 * step)
            split = [*outer, blocks, 2, step]
            v, i = reshape(values, split), reshape(index, split)
            lo, hi = (_half(v, 0), _half(i, 0)), (_half(v, 1), _half(i, 1))
            swap = _before(hi, lo, descending)
            if stage < size:
                # blocks whose bit `stage` is set sort the other way (an
                # arange, not a constant: a large sort's IR stays small)
                starts = ops.arange(0, size, 2 * step)
                flip = ops.ne(ops.bitwise_and(starts, stage), 0)
                swap = ops.ne(swap, reshape(flip, [blocks, 1, 1]))
            axis = len(outer) + 1
            values = reshape(
                ops.concat(
                    [ops.where(swap, hi[0], lo[0]), ops.where(swap, lo[0], hi[0])], axis
                ),
                [*outer, size],
            )
            index = reshape(
                ops.concat(
                    [ops.where(swap, hi[1], lo[1]), ops.where(swap, lo[1], hi[1])], axis
                ),
                [*outer, size],
            )
            step //= 2
        stage *= 2
    if size > n:
        start, limit = [0] * x.ndim, [*outer, n]
        values, index = ops.slice(values, start, limit), ops.slice(index, start, limit)
    if dim != last:
        values, index = ops.swapaxes(values, dim, last), ops.swapaxes(index, dim, last)
    return values, index


@aten("sort.default", "sort.stable")
def _sort(call: AtenCall) -> tuple[Tensor, Tensor]:
    x: Tensor = call.args[0]
    if call.target == "aten.sort.stable":
        dim, descending = (
            call.kwargs.get("dim", -1),
            call.kwargs.get("descending", False),
        )
    else:
        dim, descending = call.arg(1, "dim", -1), call.arg(2, "descending", False)
    if x.ndim == 0:
        ops.normalize_dim("sort", int(dim), 1)
        return x, ops.full([], 0.0, "i64")
    return sorted_along(x, dim_of(x, dim), bool(descending))


def _order_statistic(
    x: Tensor, dim: int, keepdim: bool, position: Callable[[Tensor], Any]
) -> tuple[Tensor, Tensor]:
    """(value, index) along `dim` of the element at `position(nan_count)`
    (a Tensor or an int, x's shape with `dim` of size one) of the ascending
    sort; NaN sorts last."""
    if x.ndim == 0:
        return x, ops.full([], 0.0, "i64")
    values, indices = sorted_along(x, dim, descending=False)
    nans = ops.full([*x.shape[:dim], 1, *x.shape[dim + 1 :]], 0.0, "i64")
    if not is_integer(x.dtype):
        nans = ops.sum(ops.cast(ops.ne(x, x), "i64"), [dim], keepdim=True)
    where = position(nans)
    if not isinstance(where, Tensor):
        where = ops.full(list(nans.shape), float(where), "i64")
    value, index = ops.gather(values, dim, where), ops.gather(indices, dim, where)
    if not keepdim:
        shape = [n for d, n in enumerate(x.shape) if d != dim]
        value, index = reshape(value, shape), reshape(index, shape)
    return value, index


@aten("kthvalue.default")
def _kthvalue(call: AtenCall) -> tuple[Tensor, Tensor]:
    x: Tensor = call.args[0]
    k = int(call.args[1])
    dim, keepdim = call.arg(2, "dim", -1), bool(call.arg(3, "keepdim", False))
    if x.ndim == 0:
        return _order_statistic(x, 0, keepdim, lambda nans: k - 1)
    return _order_statistic(x, dim_of(x, dim), keepdim, lambda nans: k - 1)


def _median_position(n: int, ignore_nan: bool) -> Callable[[Tensor], Any]:
    """The lower median's position: with NaNs, the first NaN (median) or
    the median of the others (nanmedian; all NaN: a NaN)."""

    def position(nans: Tensor) -> Any:
        if ignore_nan:
            count = ops.sub(ops.full(list(nans.shape), float(n), "i64"), nans)
            return ops.maximum(ops.div(ops.sub(count, 1), 2), 0)
        first_nan = ops.sub(ops.full(list(nans.shape), float(n), "i64"), nans)
        middle = ops.full(list(nans.shape), float((n - 1) // 2), "i64")
        return ops.where(ops.gt(nans, 0), first_nan, middle)

    return position


@aten("median.default", "nanmedian.default", "median.dim", "nanmedian.dim")
def _median(call: AtenCall) -> Any:
    x: Tensor = call.args[0]
    ignore_nan = call.target.startswith("aten.nanmedian")
    if call.target.endswith(".default"):
        n = math.prod(x.shape)
        if n == 0:
            return ops.full([], math.nan, x.dtype)
        flat = reshape(x, [n])
        value, _ = _order_statistic(flat, 0, False, _median_position(n, ignore_nan))
        return value
    keepdim = bool(call.arg(2, "keepdim", False))
    dim = 0 if x.ndim == 0 else dim_of(x, call.args[1])
    n = 1 if x.ndim == 0 else x.shape[dim]
    return _order_statistic(x, dim, keepdim, _median_position(n, ignore_nan))


@aten("topk.default")
def _topk(call: AtenCall) -> tuple[Tensor, Tensor]:
    x: Tensor = call.args[0]
    k = int(call.args[1])
    dim = call.arg(2, "dim", -1)
    largest = bool(call.arg(3, "largest", True))
    if x.ndim == 0:
        ops.normalize_dim("topk", int(dim), 1)
        return x, ops.full([], 0.0, "i64")
    d = dim_of(x, dim)
    values, indices = sorted_along(x, d, descending=largest)
    limit = [k if i == d else n for i, n in enumerate(x.shape)]
    start = [0] * x.ndim
    return ops.slice(values, start, limit), ops.slice(indices, start, limit)


@aten("max.default", "min.default")
def _max_all(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    fn = ops.max if call.target == "aten.max.default" else ops.min
    result = fn(x, None, False)
    if is_integer(x.dtype):
        return result
    return ops.where(ops.any(ops.ne(x, x), None, False), math.nan, result)
