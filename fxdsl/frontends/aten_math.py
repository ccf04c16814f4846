"""ATen handlers written as composites of existing graph ops: rounding,
sign and float predicates, flips, scatters, scans and special functions."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fxdsl.frontends.aten_movement import reshape
from fxdsl.frontends.aten_registry import (
    ATEN,
    AtenCall,
    Handler,
    UnsupportedNode,
    aten,
    cast_to,
    dim_of,
    extreme_value,
    is_integer,
    widened,
)
from fxdsl.frontends.aten_select import product_of, sorted_along, strided_positions
from fxdsl.ir import graph
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

# Composites: core-ATen ops without a graph op of their own, written with
# existing graph ops (static shapes make index constants and slices cheap).
# --------------------------------------------------------------------------- #

_EXACT = 2.0**23
"""From here on every f32 is an integer (and f16/bf16 ones sooner)."""


def single_precision(call: AtenCall, *values: Any) -> list[Tensor]:
    """`values` cast to f32, for a composite whose series are accurate to
    float32 (erfc, lgamma, digamma, the special functions). A bf16/f16 node
    computes in f32 too and is rounded once at its end (`_as_torch_says`),
    as torch's kernels do: rounded after each of its dozens of ops it
    would be off by percents. An f64 node is refused, never computed to
    float32's precision."""
    if call.dtype == "f64":
        name = call.target.removeprefix("aten.").removeprefix("prims.")
        raise UnsupportedNode(
            f"{name} on f64: its composite is accurate to float32 only"
        )
    return widened(call.dtype, *(cast_to(v, call.dtype) for v in values))


def _floats_only(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    if is_integer(x.dtype):
        return x
    return cast_to(x, call.dtype)


def _signed_like(rounded: Tensor, x: Tensor) -> Tensor:
    """`rounded` with the sign of `x`: every rounding to an integer keeps
    it, zeros included (`trunc(-0.3)` is -0.0, which the trip through i64
    and the ±1 steps lose)."""
    return ops.elementwise(graph.CopysignOp, rounded, x)


def trunc(x: Tensor) -> Tensor:
    """Round toward zero: through i64 where |x| < 2^23 (every f32 beyond is
    an integer already; inf and NaN stay as they are)."""
    if is_integer(x.dtype):
        return x
    whole = ops.cast(ops.cast(x, "i64"), x.dtype)
    return _signed_like(ops.where(ops.lt(ops.abs(x), _EXACT), whole, x), x)


def floor(x: Tensor) -> Tensor:
    if is_integer(x.dtype):
        return x
    t = trunc(x)
    return _signed_like(ops.sub(t, ops.cast(ops.gt(t, x), x.dtype)), x)


def ceil(x: Tensor) -> Tensor:
    if is_integer(x.dtype):
        return x
    t = trunc(x)
    return _signed_like(ops.add(t, ops.cast(ops.lt(t, x), x.dtype)), x)


def round_half_even(x: Tensor) -> Tensor:
    """torch.round: to the nearest integer, ties to the even one."""
    if is_integer(x.dtype):
        return x
    low = floor(x)
    frac = ops.sub(x, low)
    high = ops.add(low, 1.0)
    odd = ops.ne(ops.sub(low, ops.mul(floor(ops.mul(low, 0.5)), 2.0)), 0.0)
    tie = ops.where(odd, high, low)
    near = ops.where(ops.lt(frac, 0.5), low, high)
    return _signed_like(ops.where(ops.eq(frac, 0.5), tie, near), x)


@aten("trunc.default", "fix.default")
def _trunc(call: AtenCall) -> Tensor:
    return trunc(_floats_only(call))


@aten("floor.default")
def _floor(call: AtenCall) -> Tensor:
    return floor(_floats_only(call))


@aten("ceil.default")
def _ceil(call: AtenCall) -> Tensor:
    return ceil(_floats_only(call))


@aten("round.default")
def _round(call: AtenCall) -> Tensor:
    return round_half_even(_floats_only(call))


@aten("round.decimals")
def _round_decimals(call: AtenCall) -> Tensor:
    """As torch's kernel: bf16/f16 scaled in f32 (rounded once, at the
    end), and a negative `decimals` divides first (x / 100, not x * 0.01)."""
    x, decimals = _floats_only(call), int(call.arg(1, "decimals", 0))
    wide = ops.cast(x, "f32") if x.dtype in ("bf16", "f16") else x
    scale = 10.0 ** abs(decimals)
    if decimals < 0:
        rounded = ops.mul(round_half_even(ops.div(wide, scale)), scale)
    else:
        rounded = ops.div(round_half_even(ops.mul(wide, scale)), scale)
    return rounded if wide is x else ops.cast(rounded, x.dtype)


@aten("sign.default", "sgn.default")
def _sign(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    if x.dtype == "i1":
        return x
    positive = ops.cast(ops.gt(x, 0), call.dtype)
    negative = ops.cast(ops.lt(x, 0), call.dtype)
    return ops.sub(positive, negative)  # 0 for NaN, as torch's


@aten("signbit.default")
def _signbit(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    if is_integer(x.dtype):
        return ops.lt(x, 0)
    # the sign bit itself, which copysign carries (-0.0's, a NaN's too)
    one = ops.full([], 1.0, x.dtype)
    return ops.lt(ops.elementwise(graph.CopysignOp, one, x), 0.0)


ATEN["prims.signbit.default"] = _signbit


@aten("hypot.default", "hypot_.default")
def _hypot(call: AtenCall) -> Tensor:
    # sqrt(a^2 + b^2) scaled by the larger magnitude, so squares of large
    # values do not overflow (torch's std::hypot does not); 16-bit in f32,
    # rounded once (`widened`)
    given = (cast_to(v, call.dtype) for v in call.args[:2])
    a, b = (ops.abs(v) for v in widened(call.dtype, *given))
    big, small = ops.maximum(a, b), ops.minimum(a, b)
    safe = ops.where(ops.eq(big, 0.0), 1.0, big)
    ratio = ops.div(small, safe)
    hypot = ops.mul(big, ops.sqrt(ops.add(ops.mul(ratio, ratio), 1.0)))
    # inf wins over NaN, as in C's hypot
    infinite = ops.logical_or(ops.eq(a, math.inf), ops.eq(b, math.inf))
    return ops.where(infinite, math.inf, hypot)


ATEN["prims.hypot.default"] = _hypot


def _fma(call: AtenCall) -> Tensor:
    """Inductor's `prims.fma(a, b, c)`, `a * b + c` (Dynamo writes an
    optimizer's `addcmul_(t1, t2, value=v)` as `fma(t1 * t2, v, self)`): a
    multiply and an add, 16-bit ones in f32 and rounded once. The product
    is rounded once more than a fused one, as eager's addcmul rounds it."""
    a, b, c = widened(call.dtype, *(cast_to(v, call.dtype) for v in call.args[:3]))
    return ops.add(ops.mul(a, b), c)


ATEN["prims.fma.default"] = _fma


def _nan_ignoring(fn: Callable[[Any, Any], Tensor]) -> Handler:
    """torch's fmax/fmin: a NaN operand yields the other one."""

    def handler(call: AtenCall) -> Tensor:
        a, b = (cast_to(v, call.dtype) for v in call.args[:2])
        if is_integer(call.dtype):
            return fn(a, b)
        both = fn(a, b)
        return ops.where(ops.ne(a, a), b, ops.where(ops.ne(b, b), a, both))

    return handler


aten("fmax.default")(_nan_ignoring(ops.maximum))
aten("fmin.default")(_nan_ignoring(ops.minimum))
ATEN["prims.fmax.default"] = _nan_ignoring(ops.maximum)
ATEN["prims.fmin.default"] = _nan_ignoring(ops.minimum)


@aten("isnan.default")
def _isnan(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    if is_integer(x.dtype):
        return ops.full(call.shape, 0.0, "i1")
    return ops.ne(x, x)


@aten("log1p.default")
def _log1p(call: AtenCall) -> Tensor:
    # 16-bit in f32: the correction below needs exact steps (`widened`)
    return log1p(*widened(call.dtype, cast_to(call.args[0], call.dtype)))


def log1p(x: Tensor) -> Tensor:
    """log(1 + x), to its own precision near 0."""
    # log(1 + x) loses small x to rounding: near 0, x * log(u) / (u - 1)
    # with u = 1 + x cancels the rounding of u (Goldberg's form).
    u = ops.add(x, 1.0)
    small = ops.where(
        ops.eq(u, 1.0), x, ops.div(ops.mul(ops.log(u), x), ops.sub(u, 1.0))
    )
    return ops.where(ops.lt(ops.abs(x), 0.5), small, ops.log(u))


@aten("expm1.default")
def _expm1(call: AtenCall) -> Tensor:
    return expm1(*widened(call.dtype, cast_to(call.args[0], call.dtype)))  # as log1p


def expm1(x: Tensor) -> Tensor:
    """exp(x) - 1, to its own precision near 0."""
    # exp(x) - 1 loses small x: near 0, (u - 1) * x / log(u) with u = exp(x)
    # (Kahan's form).
    u = ops.exp(x)
    small = ops.where(
        ops.eq(u, 1.0), x, ops.div(ops.mul(ops.sub(u, 1.0), x), ops.log(u))
    )
    return ops.where(ops.lt(ops.abs(x), 0.5), small, ops.sub(u, 1.0))


def _reversed_index(size: int) -> Tensor:
    import numpy as np

    return ops.constant(np.arange(size - 1, -1, -1, dtype=np.int64), "i64")


@aten("flip.default")
def _flip(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    for dim in sorted({dim_of(x, d) for d in call.args[1]}):
        if x.shape[dim] > 1:
            x = ops.index(x, [None] * dim + [_reversed_index(x.shape[dim])])
    return x


def _storage_positions(
    shape: Sequence[int], size: Sequence[int], stride: Sequence[int], offset: int
) -> Any:
    """The flat positions in a contiguous tensor of `shape` that
    `as_strided(size, stride, offset)` reads, an int64 array of `size`; or
    UnsupportedNode where one falls outside it."""
    positions = strided_positions(list(size), list(stride), offset)
    if positions.size and (positions.min() < 0 or positions.max() >= math.prod(shape)):
        raise UnsupportedNode(
            "as_strided reaches storage outside its input (a view of a larger tensor)"
        )
    return positions


def _contiguous_offset(call: AtenCall, index: int) -> int:
    """The storage offset of argument `index`, which must be contiguous."""
    source = call.arg_results[index]
    if not source.is_contiguous():
        raise UnsupportedNode(f"{call.target} of a non-contiguous tensor")
    return int(source.storage_offset())


def _scatter_at(x: Tensor, src: Tensor, positions: Any) -> Tensor:
    """`x` with `src`'s elements written at the flat `positions` (an int
    array of src's shape; a position written twice takes the last)."""
    count = math.prod(x.shape)
    writer = np.full(count, -1, dtype=np.int64)
    writer[positions.reshape(-1)] = np.arange(positions.size)
    if positions.size == 0:
        return x
    written = ops.constant(writer >= 0, "i1")
    source = ops.constant(np.maximum(writer, 0), "i64")
    flat_src = reshape(cast_to(src, x.dtype), [positions.size])
    values = ops.where(written, ops.index(flat_src, [source]), reshape(x, [count]))
    return reshape(values, list(x.shape))


@aten("as_strided_scatter.default")
def _as_strided_scatter(call: AtenCall) -> Tensor:
    x, src = call.args[:2]
    size, stride = [int(n) for n in call.args[2]], [int(n) for n in call.args[3]]
    base = _contiguous_offset(call, 0)
    offset = call.arg(4, "storage_offset")
    offset = base if offset is None else int(offset)
    positions = _storage_positions(x.shape, size, stride, offset - base)
    return _scatter_at(cast_to(x, call.dtype), src, positions)


@aten("diagonal_scatter.default")
def _diagonal_scatter(call: AtenCall) -> Tensor:
    x, src = call.args[:2]
    offset = int(call.arg(2, "offset", 0))
    dim1, dim2 = dim_of(x, call.arg(3, "dim1", 0)), dim_of(x, call.arg(4, "dim2", 1))
    flat = np.arange(math.prod(x.shape), dtype=np.int64).reshape(x.shape)
    # numpy's diagonal orders its elements as torch's (the diagonal last)
    positions = np.diagonal(flat, offset, dim1, dim2)
    return _scatter_at(cast_to(x, call.dtype), src, positions)


SCATTER_LIMIT = 1 << 26
"""The most (target, source) element pairs a scatter compares."""


def _scatter_region(
    x: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool
) -> Tensor:
    """The part of `x` the index covers (its extent in every other dim),
    each position along `dim` combined with the source elements whose index
    names it: `reduce` is "replace" (the last one), "sum", "prod", "mean",
    "amax" or "amin". Every (position, source) pair is compared."""
    shape = list(index.shape)
    n, m, last = x.shape[dim], shape[dim], x.ndim - 1
    if math.prod(shape) * n > SCATTER_LIMIT:
        raise UnsupportedNode(
            f"scatter of {math.prod(shape)} elements onto a dim of {n} (more "
            f"than {SCATTER_LIMIT} pairs)"
        )
    region = [n if d == dim else size for d, size in enumerate(shape)]
    target = ops.slice(x, [0] * x.ndim, region)
    src = ops.slice(src, [0] * x.ndim, shape)
    if dim != last:
        target, index, src = (ops.swapaxes(t, dim, last) for t in (target, index, src))
    outer = list(index.shape[:-1])
    positions = ops.constant(np.arange(n, dtype=np.int64).reshape(n, 1), "i64")
    # hit[..., p, j]: source j goes to position p (negative indices wrap)
    wrapped = ops.where(ops.lt(index, 0), ops.add(index, n), index)
    hit = ops.eq(reshape(cast_to(wrapped, "i64"), [*outer, 1, m]), positions)
    values = reshape(src, [*outer, 1, m])
    count = ops.sum(ops.cast(hit, "i64"), [last + 1])
    touched = ops.gt(count, 0)
    if reduce == "replace":
        order = ops.constant(np.arange(m, dtype=np.int64), "i64")
        latest = ops.max(ops.where(hit, order, -1), [last + 1], keepdim=True)
        picked = ops.gather(
            ops.broadcast_to(values, [*outer, n, m]),
            last + 1,
            ops.maximum(latest, 0),
        )
        combined = reshape(picked, [*outer, n])
    elif reduce in ("sum", "mean"):
        # a 16-bit sum: in f32 with `x`, rounded once (`widened`)
        wide, self_wide = widened(x.dtype, values, target)
        combined = ops.sum(ops.where(hit, wide, 0), [last + 1])
        if include_self:
            combined = ops.add(combined, self_wide)
        if reduce == "mean":
            total = count if not include_self else ops.add(count, 1)
            divisor = ops.cast(ops.maximum(total, 1), combined.dtype)
            combined = ops.div(combined, divisor)
        combined = cast_to(combined, x.dtype)
    elif reduce == "prod":
        wide, self_wide = widened(x.dtype, values, target)
        ones = ops.where(hit, wide, 1)
        combined = reshape(product_of(ones, last + 1), [*outer, n])
        if include_self:
            combined = ops.mul(combined, self_wide)
        combined = cast_to(combined, x.dtype)
    elif reduce in ("amax", "amin"):
        fill = extreme_value(x.dtype, largest=reduce != "amax")
        extreme = ops.max if reduce == "amax" else ops.min
        combined = extreme(ops.where(hit, values, fill), [last + 1])
        if include_self:
            pair = ops.maximum if reduce == "amax" else ops.minimum
            combined = pair(combined, target)
    else:
        raise UnsupportedNode(f"scatter with reduce={reduce!r}")
    result = ops.where(touched, combined, target)
    return ops.swapaxes(result, dim, last) if dim != last else result


def _scatter(
    x: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, include_self: bool
) -> Tensor:
    """`x` with `_scatter_region`'s result over the index's extent."""
    if math.prod(index.shape) == 0:
        return x
    result = _scatter_region(x, dim, index, src, reduce, include_self)
    done = [x.shape[d] if d == dim else size for d, size in enumerate(index.shape)]
    for d in range(x.ndim):
        if done[d] == x.shape[d]:
            continue
        # the rest of x along d, over what is done in the other dims
        start = [done[d] if k == d else 0 for k in range(x.ndim)]
        limit = [x.shape[d] if k == d else done[k] for k in range(x.ndim)]
        result = ops.concat([result, ops.slice(x, start, limit)], d)
        done[d] = x.shape[d]
    return result


_SCATTER_REDUCE = {"add": "sum", "multiply": "prod"}
"""scatter.reduce's names for scatter_reduce's reductions."""


@aten("scatter.src", "scatter.value", "scatter.reduce", "scatter.value_reduce")
@aten("scatter_add.default", "scatter_reduce.two")
def _scatter_handler(call: AtenCall) -> Tensor:
    x: Tensor = cast_to(call.args[0], call.dtype)
    index: Tensor = call.args[2]
    src = call.args[3]
    dim = 0 if x.ndim == 0 else dim_of(x, call.args[1])
    if x.ndim == 0:
        x, index = reshape(x, [1]), reshape(index, [1])
        src = reshape(src, [1]) if isinstance(src, Tensor) else src
    if not isinstance(src, Tensor):
        src = ops.full(list(index.shape), float(src), x.dtype)
    src = cast_to(src, x.dtype)
    include_self = True
    if call.target == "aten.scatter_add.default":
        reduce = "sum"
    elif call.target == "aten.scatter_reduce.two":
        reduce = str(call.args[4])
        include_self = bool(call.kwargs.get("include_self", True))
    elif "reduce" in call.kwargs:
        reduce = _SCATTER_REDUCE.get(call.kwargs["reduce"], call.kwargs["reduce"])
    else:
        reduce = "replace"
    return reshape(_scatter(x, dim, index, src, reduce, include_self), call.shape)


@aten("index_reduce.default")
def _index_reduce(call: AtenCall) -> Tensor:
    include_self = bool(call.kwargs.get("include_self", True))
    source = cast_to(call.args[3], call.dtype)
    return _along_index(call, source, str(call.args[4]), include_self)


def _along_index(
    call: AtenCall, source: Tensor, reduce: str, include_self: bool
) -> Tensor:
    """`index_reduce`/`index_add` (`x`, `dim`, a 1-D `index`, then the
    source): scatter_reduce with the index spread over the source's other
    dims."""
    x: Tensor = cast_to(call.args[0], call.dtype)
    dim = dim_of(x, call.args[1]) if x.ndim else 0
    if x.ndim == 0:
        x, source = reshape(x, [1]), reshape(source, [1])
    combined = _scatter_along(x, dim, call.args[2], source, reduce, include_self)
    return reshape(combined, call.shape)


INDEX_ADD_WALK_LIMIT = 1 << 30
"""The most (result element, index entry) pairs a `graph.index_add` walks:
its GPU kernel then reads the whole index for each result element (no
atomics, so the sums are deterministic and in the reference's order).
Beyond, the importer adds the index's stable argsort (a bitonic network,
`sorted_along`) as the op's `order`, and each element binary-searches its
entries: cost the result plus the source, plus the network's log2(n)^2 / 2
steps, about what walking 2^30 pairs costs (an estimate, not yet measured
on a GPU). A GPT-2 (50257 x 768 table) embedding gradient walks up to 27
tokens a step."""


def _scatter_along(
    x: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, include_self: bool
) -> Tensor:
    """`x` with each slice of `source` along `dim` combined into the slice
    of `x` its entry of the 1-D `index` names (a negative entry counts from
    the end). A sum is `graph.index_add` (cost: the source's size on the
    CPU); other reductions spread the index over the source's other dims,
    so only positions along `dim` are compared."""
    count = math.prod(index.shape)
    if reduce == "sum" and include_self and x.ndim:
        n = x.shape[dim]
        if index.dtype not in ("i64", "i32"):
            index = cast_to(index, "i64")
        index = ops.where(ops.lt(index, 0), ops.add(index, n), index)
        index = reshape(index, [count])
        order = None
        if math.prod(x.shape) * count > INDEX_ADD_WALK_LIMIT:
            order = sorted_along(index, 0, descending=False)[1]
        return ops.index_add(x, dim, index, source, order)
    along = [count if d == dim else 1 for d in range(x.ndim)]
    spread = ops.broadcast_to(reshape(index, along), list(source.shape))
    return _scatter(x, dim, spread, source, reduce, include_self)


@aten("index_add.default")
def _index_add(call: AtenCall) -> Tensor:
    # index_reduce's sum, the source scaled by alpha
    alpha = call.kwargs.get("alpha", call.args[4] if len(call.args) > 4 else 1)
    source = cast_to(call.args[3], call.dtype)
    if alpha != 1:
        source = ops.mul(source, alpha)
    return _along_index(call, source, "sum", True)


@aten("index_put.default")
def _index_put(call: AtenCall) -> Tensor:
    """`x[indices] = values` (`+=` with accumulate=True) with integer index
    tensors (negative ones count from the end). One index tensor (what
    `index_copy_` on a static KV cache becomes; an embedding's gradient)
    is an index_copy of the flattened index, the values broadcast to the
    indexed slices (with accumulate, an index_add);
    any other is a scatter into the flattened `x` at the flat positions the
    indices select (a constant of `x`'s positions, indexed). Boolean masks
    (data-dependent) stay in torch."""
    x: Tensor = cast_to(call.args[0], call.dtype)
    indices, values = list(call.args[1]), call.args[2]
    accumulate = bool(call.arg(3, "accumulate", False))
    given = [(d, t) for d, t in enumerate(indices) if t is not None]
    if any(t.dtype == "i1" for _, t in given):
        return _masked_put(x, given, values, accumulate)
    if len(given) == 1 and given[0][1].ndim >= 1:
        ((dim, index),) = given
        # the index's dims replace `dim`; flattened, one 1-D index
        spread = [*x.shape[:dim], *index.shape, *x.shape[dim + 1 :]]
        count = math.prod(index.shape)
        shape = [count if d == dim else n for d, n in enumerate(x.shape)]
        source = reshape(ops.broadcast_to(cast_to(values, call.dtype), spread), shape)
        index = reshape(index, [count])
        if accumulate:  # index_add's (an embedding's or a gathered table's
            # gradient: the token ids, Swin's and BEiT's position bias)
            return _scatter_along(x, dim, index, source, "sum", True)
        # a negative index counts from the end, as in `x[..., -1] = v` (HF's
        # sliding-window cache writes its last slot so); index_copy's do not
        index = ops.where(ops.lt(index, 0), ops.add(index, x.shape[dim]), index)
        return ops.index_copy(x, dim, index, source)
    count = math.prod(x.shape)
    where = np.arange(count, dtype=np.int64).reshape(x.shape)
    positions = ops.index(ops.constant(where, "i64"), indices)
    written = math.prod(positions.shape)
    if written == 0:
        return x
    source = ops.broadcast_to(cast_to(values, x.dtype), list(positions.shape))
    reduce = "sum" if accumulate else "replace"
    flat = reshape(x, [count])
    at, source = reshape(positions, [written]), reshape(source, [written])
    return reshape(_scatter(flat, 0, at, source, reduce, True), list(x.shape))


def _masked_put(
    x: Tensor, given: list[tuple[int, Tensor]], values: Any, accumulate: bool
) -> Tensor:
    """`x[mask] = values` (`+=` with accumulate) with one boolean mask over
    `x`'s leading dims. The values broadcast to the selected slices: one
    slice for all (a scalar, or the trailing dims' shape), or one slice per
    true position of the mask, taken in order (the k-th true position gets
    row k, as `masked_scatter` does: the count is the values', which eager
    checks against the mask's)."""
    ((dim, mask),) = given if len(given) == 1 else ((-1, None),)
    if mask is None or dim != 0:
        raise UnsupportedNode(
            "index_put with a boolean mask takes one mask over the leading dims"
        )
    trailing = [int(d) for d in x.shape[mask.ndim :]]
    value = cast_to(values, x.dtype)
    keep = reshape(mask, [*mask.shape, *[1] * len(trailing)])
    rows = isinstance(value, Tensor) and value.ndim == len(trailing) + 1
    if rows and value.shape[0] != 1:
        count, available = math.prod(mask.shape), int(value.shape[0])
        flat_mask = reshape(mask, [count])
        order = ops.sub(ops.cumsum(ops.cast(flat_mask, "i64"), 0), 1)
        order = ops.minimum(ops.maximum(order, 0), available - 1)
        table = ops.broadcast_to(value, [available, *trailing])
        value = reshape(ops.index(table, [order]), list(x.shape))
    elif isinstance(value, Tensor):
        shape = value.shape[1:] if rows else value.shape
        value = ops.broadcast_to(reshape(value, list(shape)), trailing)
    if accumulate:
        return ops.add(x, ops.where(keep, value, 0))
    return ops.where(keep, value, x)


@aten("put.default")
def _put(call: AtenCall) -> Tensor:
    # a scatter into the flattened input (negative indices wrap)
    x: Tensor = cast_to(call.args[0], call.dtype)
    index, source = call.args[1:3]
    accumulate = bool(call.arg(3, "accumulate", False))
    count, written = math.prod(x.shape), math.prod(index.shape)
    if written == 0:
        return x
    flat = reshape(x, [count])
    at = reshape(index, [written])
    values = reshape(cast_to(source, x.dtype), [written])
    reduce = "sum" if accumulate else "replace"
    return reshape(_scatter(flat, 0, at, values, reduce, True), list(x.shape))


@aten("masked_scatter.default")
def _masked_scatter(call: AtenCall) -> Tensor:
    # the k-th true position of the mask takes the source's k-th element;
    # the input and the mask broadcast to a common shape, the result's
    x: Tensor = cast_to(call.args[0], call.dtype)
    shape = list(np.broadcast_shapes(x.shape, call.args[1].shape))
    x, mask = ops.broadcast_to(x, shape), ops.broadcast_to(call.args[1], shape)
    source = cast_to(call.args[2], x.dtype)
    count, available = math.prod(x.shape), math.prod(source.shape)
    if count == 0 or available == 0:
        return x
    flat_mask = reshape(mask, [count])
    order = ops.sub(ops.cumsum(ops.cast(flat_mask, "i64"), 0), 1)
    order = ops.minimum(ops.maximum(order, 0), available - 1)
    taken = ops.index(reshape(source, [available]), [order])
    return reshape(ops.where(flat_mask, taken, reshape(x, [count])), list(x.shape))


def _scan(
    items: tuple[Tensor, ...],
    dim: int,
    pads: tuple[float, ...],
    combine: Callable[[tuple[Tensor, ...], tuple[Tensor, ...]], tuple[Tensor, ...]],
) -> tuple[Tensor, ...]:
    """An inclusive scan of same-shaped tensors along `dim`: log2(n) steps,
    each combining every element with the one `step` earlier (`pads`, the
    combine's identity, before the start)."""
    n = items[0].shape[dim]
    step = 1
    while step < n:
        earlier = []
        for item, pad in zip(items, pads, strict=True):
            shape = list(item.shape)
            shape[dim] = step
            limit = list(item.shape)
            limit[dim] = n - step
            head = ops.full(shape, pad, item.dtype)
            earlier.append(
                ops.concat([head, ops.slice(item, [0] * item.ndim, limit)], dim)
            )
        items = combine(tuple(earlier), items)
        step *= 2
    return items


@aten("cummax.default", "cummin.default")
def _cummax(call: AtenCall) -> tuple[Tensor, Tensor]:
    # the latest NaN so far, else the latest extreme (torch's ties)
    x: Tensor = call.args[0]
    largest = call.target == "aten.cummax.default"
    if x.ndim == 0:
        return x, ops.full([], 0.0, "i64")
    dim = dim_of(x, call.args[1])
    positions = [x.shape[dim] if d == dim else 1 for d in range(x.ndim)]
    index = ops.broadcast_to(
        ops.constant(np.arange(x.shape[dim], dtype=np.int64).reshape(positions), "i64"),
        list(x.shape),
    )
    pad = extreme_value(x.dtype, largest=not largest)

    def combine(
        left: tuple[Tensor, ...], right: tuple[Tensor, ...]
    ) -> tuple[Tensor, ...]:
        (lv, li), (rv, ri) = left, right
        later = ops.ge(rv, lv) if largest else ops.le(rv, lv)
        if not is_integer(x.dtype):
            later = ops.logical_or(
                ops.ne(rv, rv), ops.logical_and(ops.eq(lv, lv), later)
            )
        return ops.where(later, rv, lv), ops.where(later, ri, li)

    values, indices = _scan((x, index), dim, (pad, -1.0), combine)
    return values, indices


@aten("logcumsumexp.default")
def _logcumsumexp(call: AtenCall) -> Tensor:
    x: Tensor = cast_to(call.args[0], call.dtype)
    if x.ndim == 0:
        return x
    dim = dim_of(x, call.args[1])

    def combine(
        left: tuple[Tensor, ...], right: tuple[Tensor, ...]
    ) -> tuple[Tensor, ...]:
        return (_logaddexp(left[0], right[0]),)

    # 16-bit: every step of the scan in f32 and the result rounded once, as
    # torch's kernel (rounded per step, a bf16 gradient was 6 ulps off)
    (wide,) = widened(x.dtype, x)
    return cast_to(_scan((wide,), dim, (-math.inf,), combine)[0], x.dtype)


def _logaddexp(a: Tensor, b: Tensor) -> Tensor:
    """log(exp(a) + exp(b)) without overflow; equal operands (two infs of a
    sign included) give a + log 2."""
    top = ops.maximum(a, b)
    gap = ops.neg(ops.abs(ops.sub(a, b)))
    summed = ops.add(top, ops.log(ops.add(ops.exp(gap), 1.0)))
    return ops.where(ops.eq(a, b), ops.add(a, math.log(2.0)), summed)


_ERFC_SERIES = (
    -1.26551223, 1.00002368, 0.37409196, 0.09678418, -0.18628806,
    0.27886807, -1.13520398, 1.48851587, -0.82215223, 0.17087277,
)  # fmt: skip
"""Coefficients of the Chebyshev fit of erfc in t = 1 / (1 + |x| / 2)
(Numerical Recipes' `erfcc`: fractional error below 1.2e-7 everywhere)."""


@aten("erfc.default", "erfc_.default")
def _erfc(call: AtenCall) -> Tensor:
    return erfc(*single_precision(call, call.args[0]))


def erfc(x: Tensor) -> Tensor:
    """1 - erf(x), to its own relative precision (not 1 - erf(x): that
    loses every digit where erfc is small, x > 3)."""
    t, series = _erfc_fit(x)
    tail = ops.mul(t, ops.exp(ops.sub(series, ops.mul(x, x))))
    return ops.where(ops.lt(x, 0.0), ops.sub(2.0, tail), tail)


def erfcx_of_size(x: Tensor) -> Tensor:
    """exp(x^2) erfc(|x|), the scaled complementary error function at |x|:
    the fit without its exp(-x^2), so it never underflows."""
    t, series = _erfc_fit(x)
    return ops.mul(t, ops.exp(series))


def _erfc_fit(x: Tensor) -> tuple[Tensor, Tensor]:
    """(t, series): erfc(|x|) = t exp(-x^2 + series), t = 1 / (1 + |x|/2)."""
    t = ops.div(1.0, ops.add(ops.mul(ops.abs(x), 0.5), 1.0))
    series = ops.full([], _ERFC_SERIES[-1], x.dtype)
    for coefficient in reversed(_ERFC_SERIES[:-1]):
        series = ops.add(ops.mul(series, t), coefficient)
    return t, series


ATEN["prims.erfc.default"] = _erfc


_SHIFT = 8
"""lgamma/digamma move x below this up by recurrence before their
asymptotic series (whose error there is below 1e-9)."""


def _shifted(x: Tensor) -> tuple[Tensor, Tensor]:
    """(y, small): y = x + _SHIFT where x < _SHIFT (small), else x."""
    small = ops.lt(x, float(_SHIFT))
    return ops.where(small, ops.add(x, float(_SHIFT)), x), small


def _sin_pi(x: Tensor) -> Tensor:
    """|sin(pi x)|, reduced to |r| <= 1/2 first (pi x in f32 is too coarse
    near the integers)."""
    r = ops.sub(x, round_half_even(x))
    return ops.abs(ops.sin(ops.mul(r, math.pi)))


def _zeta(k: int) -> float:
    """Riemann's zeta(k), k >= 2: 1000 terms and the Euler-Maclaurin tail."""
    n = 1000
    head = math.fsum(m ** -float(k) for m in range(1, n + 1))
    tail = n ** (1.0 - k) / (k - 1) - n ** -float(k) / 2 + k * n ** (-k - 1.0) / 12
    return head + tail


_EULER_GAMMA = 0.5772156649015329
_NEAR_ONE = [-_EULER_GAMMA] + [(-1) ** k * _zeta(k) / k for k in range(2, 28)]
"""Taylor coefficients of lgamma(1 + z) from z^1 on (|z| <= 1/2: the
27th term is below 1e-9): -gamma, then (-1)^k zeta(k) / k."""
_NEAR_TWO = [1 - _EULER_GAMMA] + [(-1) ** k * (_zeta(k) - 1) / k for k in range(2, 16)]
"""Those of lgamma(2 + z): 1 - gamma, then (-1)^k (zeta(k) - 1) / k."""
_STIRLING_FROM = 8.5
"""Stirling's series (three terms) from here on: its error is below 1e-9."""


def _power_series(z: Tensor, coefficients: list[float]) -> Tensor:
    """sum_k coefficients[k - 1] z^k (Horner)."""
    total: Any = coefficients[-1]
    for coefficient in reversed(coefficients[:-1]):
        total = ops.add(ops.mul(total, z), coefficient)
    return ops.mul(total, z)


def _stirling(y: Tensor) -> Tensor:
    inverse = ops.div(1.0, y)
    square = ops.mul(inverse, inverse)
    series = ops.mul(
        inverse,
        ops.add(
            1 / 12,
            ops.mul(square, ops.add(-1 / 360, ops.mul(square, 1 / 1260))),
        ),
    )
    return ops.add(
        ops.sub(ops.mul(ops.sub(y, 0.5), ops.log(y)), y),
        ops.add(series, 0.5 * math.log(2 * math.pi)),
    )


def _lgamma_positive(x: Tensor) -> Tensor:
    """log|Gamma(x)| for x > 0, without cancellation: the Taylor series
    about lgamma's roots 1 and 2 on [0.5, 2.5) (below 0.5, lgamma(x + 1)
    - log(x)); on [2.5, 8.5) the
    recurrence down to [1.5, 2.5), lgamma(x) = log((x-1)...(x-m)) +
    lgamma(x - m), every term positive; Stirling's series from 8.5. (The
    old form, Stirling's at x + 8 minus log(x (x+1) ... (x+7)), lost the
    small values near the roots: lgamma(2) came out 1e-6, not 0.)"""
    steps = floor(ops.sub(ops.minimum(x, _STIRLING_FROM - 1.0), 1.5))
    steps = ops.maximum(steps, 0.0)  # m: how far the recurrence goes down
    product: Any = 1.0
    for j in range(1, int(_STIRLING_FROM - 2.5) + 1):
        factor = ops.where(ops.ge(steps, float(j)), ops.sub(x, float(j)), 1.0)
        product = ops.mul(product, factor)
    reduced = ops.sub(x, steps)  # in [1.5, 2.5) where x >= 1.5
    near_two = ops.add(
        ops.log(product), _power_series(ops.sub(reduced, 2.0), _NEAR_TWO)
    )
    # below 1/2: lgamma(x + 1) - log(x), x + 1 within 1/2 of 1 again
    tiny = ops.lt(x, 0.5)
    lifted = ops.where(tiny, x, ops.sub(x, 1.0))
    near_one = _power_series(lifted, _NEAR_ONE)
    positive = ops.where(tiny, x, 1.0)  # no log of the other x taken
    near_one = ops.where(tiny, ops.sub(near_one, ops.log(positive)), near_one)
    small = ops.where(ops.lt(x, 1.5), near_one, near_two)
    large = ops.ge(x, _STIRLING_FROM)
    safe = ops.where(large, x, _STIRLING_FROM)  # no log of small x taken
    return ops.where(large, _stirling(safe), small)


@aten("lgamma.default", "lgamma_.default")
def _lgamma(call: AtenCall) -> Tensor:
    # x < 0 by reflection: log(pi / |sin(pi x)|) - lgamma(1 - x) (which
    # overflows only for a tiny x: -log|x| below); (0, 0.5) is
    # _lgamma_positive's own lgamma(x + 1) - log(x)
    (x,) = single_precision(call, call.args[0])
    low = ops.lt(x, 0.0)
    positive = _lgamma_positive(ops.where(low, ops.sub(1.0, x), x))
    reflected = ops.sub(ops.log(ops.div(math.pi, _sin_pi(x))), positive)
    result = ops.where(low, reflected, positive)
    # |x| tiny: -log|x| (the next term, -gamma x, is far below its ulp),
    # exactly where sin(pi x) would round to a coarse denormal
    magnitude = ops.abs(x)
    tiny = ops.logical_and(ops.lt(magnitude, 1e-30), ops.gt(magnitude, 0.0))
    result = ops.where(tiny, ops.neg(ops.log(ops.where(tiny, magnitude, 1.0))), result)
    result = ops.where(ops.eq(result, 0.0), 0.0, result)  # +0 at the roots 1, 2
    # poles (0, -1, ...) and both infinities: inf, as torch
    pole = ops.logical_and(ops.le(x, 0.0), ops.eq(x, round_half_even(x)))
    infinite = ops.logical_or(pole, ops.eq(ops.abs(x), math.inf))
    return ops.where(infinite, math.inf, result)


ATEN["prims.lgamma.default"] = _lgamma


@aten("digamma.default", "digamma_.default")
def _digamma(call: AtenCall) -> Tensor:
    # the asymptotic series at y >= 8 less 1/x + ... + 1/(x + 7) below;
    # x < 0.5 by reflection: digamma(1 - x) - pi / tan(pi x)
    (x,) = single_precision(call, call.args[0])
    low = ops.lt(x, 0.5)
    z = ops.where(low, ops.sub(1.0, x), x)
    y, small = _shifted(z)
    inverse = ops.div(1.0, y)
    square = ops.mul(inverse, inverse)
    series = ops.mul(
        square,
        ops.add(
            1 / 12,
            ops.mul(square, ops.add(-1 / 120, ops.mul(square, 1 / 252))),
        ),
    )
    asymptotic = ops.sub(ops.sub(ops.log(y), ops.mul(inverse, 0.5)), series)
    steps = ops.div(1.0, z)
    for k in range(1, _SHIFT):
        steps = ops.add(steps, ops.div(1.0, ops.add(z, float(k))))
    positive = ops.where(small, ops.sub(asymptotic, steps), asymptotic)
    r = ops.sub(x, round_half_even(x))
    cot = ops.div(ops.cos(ops.mul(r, math.pi)), ops.sin(ops.mul(r, math.pi)))
    result = ops.where(low, ops.sub(positive, ops.mul(cot, math.pi)), positive)
    # torch: NaN at the negative integers, inf at +inf
    pole = ops.logical_and(ops.lt(x, 0.0), ops.eq(r, 0.0))
    result = ops.where(pole, math.nan, result)
    # at zero, inf of the sign opposite to the zero's
    signed = ops.elementwise(
        graph.CopysignOp, ops.full([], math.inf, x.dtype), ops.neg(x)
    )
    result = ops.where(ops.eq(x, 0.0), signed, result)
    return ops.where(ops.eq(x, math.inf), math.inf, result)


ATEN["prims.digamma.default"] = _digamma


def _distances(a: Tensor, b: Tensor, p: float) -> Tensor:
    """The p-norm distance of every row of a ([..., P, M]) to every row of
    b ([..., R, M]): [..., P, R]."""
    rows, other = a.shape[-2], b.shape[-2]
    lead = list(a.shape[:-2])
    diff = ops.sub(
        reshape(a, [*lead, rows, 1, a.shape[-1]]),
        reshape(b, [*list(b.shape[:-2]), 1, other, b.shape[-1]]),
    )
    last = diff.ndim - 1
    size = ops.abs(diff)
    if p == 0:
        return ops.sum(ops.cast(ops.ne(diff, 0.0), a.dtype), [last])
    if p == math.inf:
        return ops.max(size, [last])
    if p == 1:
        return ops.sum(size, [last])
    if p == 2:
        return ops.sqrt(ops.sum(ops.mul(diff, diff), [last]))
    return ops.pow(ops.sum(ops.pow(size, float(p)), [last]), 1.0 / float(p))


@aten("_cdist_forward.default")
def _cdist(call: AtenCall) -> Tensor:
    a, b = (cast_to(t, call.dtype) for t in call.args[:2])
    if 0 in (a.shape[-1], a.shape[-2], b.shape[-2]):
        return ops.full(call.shape, 0.0, call.dtype)
    return reshape(_distances(a, b, float(call.args[2])), call.shape)


@aten("_pdist_forward.default")
def _pdist(call: AtenCall) -> Tensor:
    # the upper triangle of the rows' distance matrix, row by row
    x: Tensor = cast_to(call.args[0], call.dtype)
    n = x.shape[0]
    if call.shape[0] == 0 or x.shape[1] == 0:
        return ops.full(call.shape, 0.0, call.dtype)
    matrix = _distances(x, x, float(call.arg(1, "p", 2.0)))
    rows, cols = np.triu_indices(n, 1)
    positions = ops.constant((rows * n + cols).astype(np.int64), "i64")
    return ops.index(reshape(matrix, [n * n]), [positions])


@aten("bucketize.Tensor", "searchsorted.Tensor")
def _bucketize(call: AtenCall) -> Tensor:
    # the count of boundaries below x (right: at most x), for sorted 1-D
    # boundaries; a batched searchsorted counts its own row
    if call.target == "aten.bucketize.Tensor":
        x, boundaries = call.args[:2]
    else:
        boundaries, x = call.args[:2]
    sorter = call.kwargs.get("sorter")
    if sorter is not None:
        boundaries = ops.gather(boundaries, boundaries.ndim - 1, sorter)
    right = bool(call.kwargs.get("right", False)) or call.kwargs.get("side") == "right"
    if boundaries.ndim != 1 and list(boundaries.shape[:-1]) != list(x.shape[:-1]):
        raise UnsupportedNode("searchsorted: batch dims of boundaries and input differ")
    n = boundaries.shape[-1]
    # compared in a common dtype: the float one where only one is a float
    floats = [t.dtype for t in (x, boundaries) if not is_integer(t.dtype)]
    common = x.dtype if x.dtype == boundaries.dtype else (floats or ["i64"])[0]
    x, boundaries = cast_to(x, common), cast_to(boundaries, common)
    values = reshape(x, [*x.shape, 1])
    edges = boundaries
    if boundaries.ndim > 1:
        edges = reshape(boundaries, [*boundaries.shape[:-1], 1, n])
    axis = x.ndim
    below = ops.le(edges, values) if right else ops.lt(edges, values)
    count = ops.sum(ops.cast(below, "i64"), [axis])
    if not is_integer(x.dtype):
        # NaN sorts after every boundary
        count = ops.where(ops.ne(x, x), ops.full([], float(n), "i64"), count)
    return cast_to(count, call.dtype)


@aten("angle.default")
def _angle(call: AtenCall) -> Tensor:
    # a real number's angle: pi below zero, else 0 (NaN stays NaN)
    x = cast_to(call.args[0], call.dtype)
    angle = ops.where(ops.lt(x, 0.0), math.pi, ops.full(list(x.shape), 0.0, x.dtype))
    return ops.where(ops.ne(x, x), x, angle)
