"""ATen handlers: shapes, data movement and creation (static shapes make
fills of torch's result shape)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from fxdsl.frontends.aten_registry import (
    AtenCall,
    Handler,
    UnsupportedNode,
    along,
    aten,
    cast_to,
    dim_of,
)
from fxdsl.ir import graph
from fxdsl.tracing import ops
from fxdsl.tracing.trace_state import dtype_attr
from fxdsl.tracing.tracer import Tensor, wrap

# Shapes and data movement
# --------------------------------------------------------------------------- #


@aten("view.default", "reshape.default", "_unsafe_view.default")
@aten("flatten.using_ints", "unflatten.int")
@aten("squeeze.dim", "squeeze.dims", "squeeze.default", "unsqueeze.default")
def _reshape(call: AtenCall) -> Tensor:
    return reshape(call.args[0], call.shape)


def reshape(x: Tensor, shape: list[int]) -> Tensor:
    """`x` reshaped, looking through a reshape that made `x` (so chains of
    views import as one op, whichever level they came from)."""
    owner = x.value.owner
    if isinstance(owner, graph.ReshapeOp):
        x = wrap(owner.input)
    return x if list(x.shape) == shape else ops.reshape(x, shape)


def permute(x: Tensor, perm: Sequence[int]) -> Tensor:
    """`x` permuted, composed with a transpose that made `x`; the identity
    permutation is `x` itself."""
    order = [dim_of(x, p) for p in perm]
    owner = x.value.owner
    if isinstance(owner, graph.TransposeOp):
        inner = [int(p) for p in owner.perm.get_values()]
        order = [inner[p] for p in order]
        x = wrap(owner.input)
    return x if order == list(range(x.ndim)) else ops.permute(x, order)


@aten("expand.default", "expand_as.default", "broadcast_to.default")
def _expand(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    if list(x.shape) == call.shape:
        return x
    return ops.broadcast_to(x, call.shape)


@aten("permute.default")
def _permute(call: AtenCall) -> Tensor:
    return permute(call.args[0], list(call.args[1]))


@aten("transpose.int")
def _transpose(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    if x.ndim == 0:  # torch takes dims 0 and -1 of a 0-d tensor: a no-op
        return x
    order = list(range(x.ndim))
    a, b = dim_of(x, call.args[1]), dim_of(x, call.args[2])
    order[a], order[b] = order[b], order[a]
    return permute(x, order)


@aten("mT.default", "mH.default", "adjoint.default")
def _mt(call: AtenCall) -> Tensor:
    # the last two dims swapped (mH, adjoint: conjugated too, a no-op on reals)
    x: Tensor = call.args[0]
    order = list(range(x.ndim))
    order[-2:] = order[:-3:-1]
    return permute(x, order)


@aten("t.default", "numpy_T.default")
def _t(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    return permute(x, list(reversed(range(x.ndim))))


@aten("slice.Tensor")
def _slice(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    dim = dim_of(x, call.arg(1, "dim", 0))
    start, end = call.arg(2, "start"), call.arg(3, "end")
    step = call.arg(4, "step", 1)
    size = x.shape[dim]
    lo = 0 if start is None else max(min(int(start), size), -size)
    hi = size if end is None else max(min(int(end), size), -size)
    starts, limits, steps = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[dim], limits[dim], steps[dim] = lo, hi, int(step)
    return ops.slice(x, starts, limits, steps)


@aten("select.int")
def _select(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    dim = dim_of(x, call.args[1])
    index = int(call.args[2])
    index = index + x.shape[dim] if index < 0 else index
    starts, limits = [0] * x.ndim, list(x.shape)
    starts[dim], limits[dim] = index, index + 1
    return ops.reshape(ops.slice(x, starts, limits), call.shape)


@aten("split.Tensor", "split_with_sizes.default", "split.sizes")
def _split(call: AtenCall) -> tuple[Tensor, ...]:
    x: Tensor = call.args[0]
    return ops.split(x, call.args[1], call.arg(2, "dim", 0))


@aten("chunk.default", "unbind.int")
def _chunk(call: AtenCall) -> tuple[Tensor, ...]:
    x: Tensor = call.args[0]
    dim = dim_of(x, call.arg(1 if "unbind" in call.target else 2, "dim", 0))
    sizes = [int(r.shape[dim]) if "chunk" in call.target else 1 for r in call.result]
    pieces = ops.split(x, sizes, dim)
    if "unbind" in call.target:
        return tuple(ops.reshape(p, list(r.shape)) for p, r in zip(pieces, call.result))
    return pieces


@aten("cat.default", "concat.default")
def _cat(call: AtenCall) -> Tensor:
    # torch skips empty operands (a legacy 1-D (0,) tensor of any rank:
    # HF's initial key/value cache), and so does the concat here
    tensors = [cast_to(t, call.dtype) for t in call.args[0] if math.prod(t.shape)]
    if not tensors:
        return ops.full(call.shape, 0.0, call.dtype)
    if len(tensors) == 1:
        return tensors[0]
    return ops.concat(tensors, call.arg(1, "dim", 0))


@aten("embedding.default")
def _embedding(call: AtenCall) -> Tensor:
    return ops.embedding(call.args[1], call.args[0])


@aten("gather.default")
def _gather(call: AtenCall) -> Tensor:
    x, index = call.args[0], call.args[2]
    if 0 in index.shape:  # torch takes any rank and type then: empty
        return ops.full(list(index.shape), 0.0, x.dtype)
    if x.ndim == 0:  # a 0-d tensor is one element along dim 0
        picked = ops.gather(ops.reshape(x, [1]), 0, ops.reshape(index, [1]))
        return ops.reshape(picked, list(index.shape))
    return ops.gather(x, call.args[1], index)


@aten("index.Tensor")
def _index(call: AtenCall) -> Tensor:
    return ops.index(call.args[0], list(call.args[1]))


@aten("index_copy.default")
def _index_copy(call: AtenCall) -> Tensor:
    x, dim, index, source = call.args[:4]
    source = cast_to(source, call.dtype)
    if not x.shape:  # torch takes a 0-d tensor as one element along dim 0
        one = ops.index_copy(
            ops.reshape(x, [1]), 0, ops.reshape(index, [1]), ops.reshape(source, [1])
        )
        return ops.reshape(one, [])
    return ops.index_copy(x, dim, index, source)


@aten("resize.default")
def _resize(call: AtenCall) -> Tensor:
    """`resize(x, size)` (`resize_`'s value): the first elements of `x`,
    row-major, in the new shape; growing is refused (torch leaves the new
    elements uninitialised)."""
    x: Tensor = call.args[0]
    count, have = math.prod(call.shape), math.prod(x.shape)
    if count > have:
        raise UnsupportedNode(
            f"resize from {have} to {count} elements: the new ones are "
            "uninitialised memory"
        )
    flat = reshape(x, [have])
    if count < have:
        flat = ops.slice(flat, [0], [count])
    return reshape(flat, call.shape)


@aten("arange.default", "arange.start", "arange.start_step")
def _arange(call: AtenCall) -> Tensor:
    numbers = [a for a in call.args if isinstance(a, int | float)]
    start, end, step = (0, numbers[0], 1) if len(numbers) == 1 else (*numbers[:2], 1)
    if len(numbers) == 3:
        start, end, step = numbers
    return ops.arange(start, end, step, call.dtype)


@aten("cumsum.default")
def _cumsum(call: AtenCall) -> Tensor:
    return along(cast_to(call.args[0], call.dtype), call.args[1], ops.cumsum)


# --------------------------------------------------------------------------- #
# Creation: shapes are static, so these are fills of torch's result shape.
# --------------------------------------------------------------------------- #


def _fill(value_index: int | None, fill: float = 0.0) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        value = fill if value_index is None else call.args[value_index]
        return ops.full(call.shape, float(value), call.dtype)

    return handler


for _names, _handler in (
    (("zeros.default", "zeros_like.default", "new_zeros.default"), _fill(None)),
    # the zeros autograd hands a backward where a gradient is known to be 0
    (("_efficientzerotensor.default",), _fill(None)),
    (("empty.memory_format", "empty_like.default", "new_empty.default"), _fill(None)),
    (("empty_permuted.default",), _fill(None)),
    (("ones.default", "ones_like.default", "new_ones.default"), _fill(None, 1.0)),
    (("full.default",), _fill(1)),
    (("full_like.default", "new_full.default"), _fill(1)),
    (("scalar_tensor.default",), _fill(0)),
):
    aten(*_names)(_handler)


# --------------------------------------------------------------------------- #


_INTEGER_OF_WIDTH = {8: "i8", 16: "i16", 32: "i32", 64: "i64"}
"""The signed integer type of each element width: what bits are shifted in."""


def _width(dtype: str) -> int:
    return graph.bit_width(dtype_attr(dtype))


def _as_bits(x: Tensor, width: int) -> Tensor:
    """`x`'s bits as the signed integer type of its width."""
    bits = _INTEGER_OF_WIDTH[width]
    return x if x.dtype == bits else ops.bitcast(x, bits)


def _from_bits(bits: Tensor, dtype: str) -> Tensor:
    return bits if bits.dtype == dtype else ops.bitcast(bits, dtype)


@aten("view.dtype")
def _view_dtype(call: AtenCall) -> Tensor:
    """`x.view(dtype)`: `graph.bitcast` between types of one width; across
    widths, the last dim's elements split into (or join from) narrower ones,
    least significant first (torch's little-endian storage), by integer
    shifts and casts between the bitcasts."""
    x: Tensor = call.args[0]
    target = call.dtype
    if x.dtype == target:
        return x
    if "i1" in (x.dtype, target):
        raise UnsupportedNode("a view as or of bool: i1 has no bits to reinterpret")
    wide, narrow = _width(x.dtype), _width(target)
    if wide == narrow:
        return ops.bitcast(x, target)
    if wide > narrow:
        return _split_elements(x, target, wide // narrow)
    return _join_elements(x, target, narrow // wide)


def _split_elements(x: Tensor, target: str, parts: int) -> Tensor:
    bits, width = _as_bits(x, _width(x.dtype)), _width(target)
    # an integer cast keeps the low bits (it wraps), which a bitcast reads
    narrow = target if target == "ui8" else _INTEGER_OF_WIDTH[width]
    pieces = [
        ops.reshape(
            _from_bits(ops.cast(ops.shift_right(bits, k * width), narrow), target),
            [*x.shape, 1],
        )
        for k in range(parts)
    ]
    return ops.reshape(ops.concat(pieces, x.ndim), [*x.shape[:-1], -1])


def _join_elements(x: Tensor, target: str, parts: int) -> Tensor:
    width = _width(x.dtype)
    wide = _INTEGER_OF_WIDTH[_width(target)]
    grouped = ops.reshape(_as_bits(x, width), [*x.shape[:-1], -1, parts])
    low_bits = (1 << width) - 1
    joined: Tensor | None = None
    for k in range(parts):
        start = [0] * (grouped.ndim - 1) + [k]
        piece = ops.slice(grouped, start, [*grouped.shape[:-1], k + 1])
        piece = ops.reshape(piece, list(grouped.shape[:-1]))
        # a signed piece widens with its sign: keep its own bits only
        term = ops.shift_left(
            ops.bitwise_and(ops.cast(piece, wide), low_bits), k * width
        )
        joined = term if joined is None else ops.bitwise_or(joined, term)
    assert joined is not None
    return _from_bits(joined, target)
