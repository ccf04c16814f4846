"""The ATen → graph op table of the torch.export importer.

One handler per family of ATen overloads, registered under the overloads'
names (`"aten.add.Tensor"`). A handler gets an `AtenCall` (the fx node, its
arguments with fx nodes replaced by traced `Tensor`s, and torch's inferred
result) and builds graph ops through `fxdsl.ops`, so shapes are checked by
the dialect's own rules. Torch's type promotion and scalar arguments become
explicit here: operands are cast to the dtype torch computed for the node,
scalars take the tensor's element type, and the importer casts a result whose
dtype still differs from torch's. Inference no-ops (dropout in eval, clone,
alias, same-dtype casts, metadata asserts) return their input.

Nothing here imports torch at module level: the table is plain data, and
torch values are only inspected through duck typing (`.shape`, `.dtype`).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from fxdsl.ir import graph
from fxdsl.ir.dtypes import to_element_type
from fxdsl.tracing import ops
from fxdsl.tracing.trace_state import dtype_attr
from fxdsl.tracing.tracer import Tensor, wrap

TORCH_DTYPES = {
    "torch.float32": "f32",
    "torch.float16": "f16",
    "torch.bfloat16": "bf16",
    "torch.int64": "i64",
    "torch.int32": "i32",
    "torch.bool": "i1",
}
"""torch dtype (as `str(dtype)`) → graph element type name."""


class UnsupportedNode(Exception):
    """A node the table cannot express (a missing mapping, an argument
    combination without a graph form); the importer adds the node and its
    source line."""


@functools.cache
def target_name(target: Any) -> str:
    """`"aten.add.Tensor"` for an fx node's target (an OpOverload, or a
    Python function such as `operator.getitem`). Cached: torch builds the
    name on every `str()`, and importers ask for it per node."""
    return str(target)


def graph_dtype(torch_dtype: object) -> str:
    """The graph dtype name of a torch dtype, or UnsupportedNode."""
    name = str(torch_dtype)
    if name not in TORCH_DTYPES:
        supported = ", ".join(TORCH_DTYPES)
        raise UnsupportedNode(f"dtype {name} is not supported (only {supported})")
    return TORCH_DTYPES[name]


@dataclass
class AtenCall:
    """One call_function node, ready for its handler."""

    target: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]
    result: Any
    """torch's inferred result (a FakeTensor, or a tuple of them)."""
    arg_results: tuple[Any, ...]
    """torch's inferred value of each positional argument (None for
    non-node arguments)."""
    used: frozenset[int] | None = None
    """For a node with several results: the indices that are read."""

    def arg(self, index: int, name: str, default: Any = None) -> Any:
        """Positional argument `index`, else keyword `name`, else default."""
        if index < len(self.args):
            return self.args[index]
        return self.kwargs.get(name, default)

    @property
    def shape(self) -> list[int]:
        return [int(d) for d in self.result.shape]

    @property
    def dtype(self) -> str:
        return graph_dtype(self.result.dtype)


Handler = Callable[[AtenCall], Any]
ATEN: dict[str, Handler] = {}
"""`"aten.add.Tensor"` → handler."""


def aten(*names: str) -> Callable[[Handler], Handler]:
    """A decorator registering its handler for `aten.<name>` for each name;
    stacked, one line per op, where a handler serves several ops."""

    def register(handler: Handler) -> Handler:
        for name in names:
            ATEN[f"aten.{name}"] = handler
        return handler

    return register


def cast_to(x: Any, dtype: str) -> Any:
    """A tensor cast to `dtype` (scalars pass through unchanged)."""
    if isinstance(x, Tensor) and x.dtype != dtype:
        return ops.cast(x, dtype)
    return x


def _dim(x: Tensor, dim: int) -> int:
    return ops.normalize_dim("import", int(dim), x.ndim)


def _along(x: Tensor, dim: int, fn: Callable[[Tensor, int], Tensor]) -> Tensor:
    """`fn(x, dim)` for a scan or softmax along `dim`; torch takes dim 0 or
    -1 of a 0-d tensor as a dim of size one."""
    if x.ndim:
        return fn(x, _dim(x, dim))
    ops.normalize_dim("import", int(dim), 1)
    return ops.reshape(fn(ops.reshape(x, [1]), 0), [])


def _dims(x: Tensor, dims: Any) -> list[int] | None:
    """Reduction dims; None or [] means all dims (torch's convention), as
    does dim 0 or -1 of a 0-d tensor (torch's too)."""
    if dims is None:
        return None
    listed = [dims] if isinstance(dims, int) else list(dims)
    if x.ndim == 0:
        for d in listed:
            ops.normalize_dim("import", int(d), 1)
        return None
    # sorted: one IR for `mean(x, [-1, -2])` and `mean(x, [2, 3])`
    return sorted(_dim(x, d) for d in listed) or None


# --------------------------------------------------------------------------- #
# Elementwise
# --------------------------------------------------------------------------- #

_UNARY: dict[str, Callable[[Tensor], Tensor]] = {
    "neg": ops.neg,
    "abs": ops.abs,
    "relu": ops.relu,
}
"""Unary ops on any dtype; the float functions come from the dialect."""


def _unary(fn: Callable[[Tensor], Tensor]) -> Handler:
    return lambda call: fn(cast_to(call.args[0], call.dtype))


for _name, _fn in _UNARY.items():
    aten(f"{_name}.default", f"{_name}_.default")(_unary(_fn))


FLOAT_ELEMENTWISE: dict[str, type[graph.UnaryOp | graph.BinaryOp]] = {
    op.name.removeprefix("graph."): op
    for op in graph.GRAPH_OPS
    if issubclass(op, graph.UnaryOp | graph.BinaryOp)
    and op.FLOAT_ONLY
    and not op.get_irdl_definition().properties
}
"""The dialect's float functions without properties, by name: each is
torch's op of that name (`graph.acos`: `aten.acos`, `aten.acos_`,
`prims.acos`), so a new one imports without an entry here."""

ELEMENTWISE_OVERLOADS = ("default", "Tensor", "Scalar", "Scalar_Tensor")
"""Overloads of a `FLOAT_ELEMENTWISE` op the importer takes."""


@functools.cache
def _float_elementwise(op_cls: type[graph.UnaryOp | graph.BinaryOp]) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        if call.dtype not in ("f32", "f16", "bf16"):
            raise UnsupportedNode(f"{op_cls.name} on {call.dtype} (only on floats)")
        operands = call.args[: 1 if issubclass(op_cls, graph.UnaryOp) else 2]
        return ops.elementwise(op_cls, *(cast_to(x, call.dtype) for x in operands))

    return handler


def handler_for(name: str) -> Handler | None:
    """The handler of the op named `name` (`"aten.acos.default"`): its
    entry in `ATEN`, else its `FLOAT_ELEMENTWISE` op's; an in-place
    overload without one of its own (`aten.clamp_min_.Tensor`, in a
    decomposition) takes its functional op's, whose result is the written
    value (the importer has refused writes that another node reads)."""
    handler = ATEN.get(name)
    parts = name.split(".")
    if handler is not None or len(parts) != 3:
        return handler
    namespace, op, overload = parts
    if namespace == "aten" and op.endswith("_") and not op.startswith("_"):
        op = op[:-1]
        handler = ATEN.get(f"aten.{op}.{overload}")
        if handler is not None:
            return handler
    if (
        namespace in ("aten", "prims")
        and overload in ELEMENTWISE_OVERLOADS
        and op in FLOAT_ELEMENTWISE
    ):
        return _float_elementwise(FLOAT_ELEMENTWISE[op])
    return None


@aten("gelu.default", "gelu_.default")
def _gelu(call: AtenCall) -> Tensor:
    return ops.gelu(call.args[0], call.arg(1, "approximate", "none"))


@aten("hardswish.default", "hardswish_.default")
def _hardswish(call: AtenCall) -> Tensor:
    return ops.hardswish(call.args[0])


@aten("hardsigmoid.default", "hardsigmoid_.default")
def _hardsigmoid(call: AtenCall) -> Tensor:
    return ops.hardsigmoid(call.args[0])


@aten("clamp.default", "clamp_.default", "clip.default")
def _clamp(call: AtenCall) -> Tensor:
    low, high = call.arg(1, "min"), call.arg(2, "max")
    return ops.clamp(cast_to(call.args[0], call.dtype), low, high)


@aten("clamp.Tensor", "clamp_.Tensor", "clip.Tensor")
def _clamp_tensor(call: AtenCall) -> Tensor:
    # min(max(x, low), high) in the result's dtype, as torch converts the
    # bounds (T5 clamps its f16 activations by a 0-d f32 tensor)
    x = cast_to(call.args[0], call.dtype)
    low, high = call.arg(1, "min"), call.arg(2, "max")
    if low is not None:
        x = ops.maximum(x, cast_to(low, call.dtype))
    if high is not None:
        x = ops.minimum(x, cast_to(high, call.dtype))
    return x


@aten("isinf.default")
def _isinf(call: AtenCall) -> Tensor:
    x = call.args[0]
    if x.dtype not in ("f32", "f16", "bf16"):
        raise UnsupportedNode(f"isinf on {x.dtype} (only on floats)")
    return ops.eq(ops.abs(x), math.inf)


@aten("hardtanh.default", "hardtanh_.default")
def _hardtanh(call: AtenCall) -> Tensor:
    low, high = call.arg(1, "min_val", -1.0), call.arg(2, "max_val", 1.0)
    return ops.clamp(call.args[0], low, high)


@aten("relu6.default", "relu6_.default")
def _relu6(call: AtenCall) -> Tensor:
    # what the core-ATen graph has too: hardtanh(x, 0, 6)
    return ops.clamp(call.args[0], 0.0, 6.0)


def _by_scalar(
    fn: Callable[[Any, Any], Tensor], dtype: str, lhs: Any, rhs: Any
) -> Tensor:
    """`fn(lhs, rhs)` in `dtype`, for torch's mul and div. A bf16 or f16
    tensor times (or over) a Python scalar that dtype cannot hold is
    computed in f32 and rounded once: torch takes that scalar unrounded, in
    its f32 compute type (`x * 0.1` in bf16 differs from `x * bf16(0.1)` in
    half the elements). Torch's CPU add and sub round the scalar first, as
    the importer does for every other op."""
    if dtype not in ("bf16", "f16") or isinstance(rhs, Tensor | bool):
        return fn(lhs, rhs)
    wide = float(np.float32(rhs))
    narrow = float(to_element_type(np.float32(wide), dtype_attr(dtype)))
    if narrow == wide or math.isnan(wide):
        return fn(lhs, rhs)
    return ops.cast(fn(cast_to(lhs, "f32"), wide), dtype)


def _arith(fn: Callable[[Any, Any], Tensor], reverse: bool = False) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        lhs, rhs = (cast_to(a, call.dtype) for a in call.args[:2])
        alpha = call.kwargs.get("alpha", call.args[2] if len(call.args) > 2 else 1)
        if alpha != 1:
            rhs = ops.mul(rhs, alpha)
        if reverse:
            return fn(rhs, lhs)
        if fn is ops.mul and isinstance(lhs, Tensor):
            return _by_scalar(fn, call.dtype, lhs, rhs)
        return fn(lhs, rhs)

    return handler


for _name, _fn in {"add": ops.add, "sub": ops.sub, "mul": ops.mul}.items():
    aten(f"{_name}.Tensor", f"{_name}_.Tensor", f"{_name}.Scalar", f"{_name}_.Scalar")(
        _arith(_fn)
    )
aten("rsub.Scalar", "rsub.Tensor")(_arith(ops.sub, reverse=True))
aten("maximum.default", "max.other")(_arith(ops.maximum))
aten("minimum.default", "min.other")(_arith(ops.minimum))


@aten("div.Tensor", "div.Scalar", "div_.Tensor", "div_.Scalar")
def _div(call: AtenCall) -> Tensor:
    lhs, rhs = (cast_to(a, call.dtype) for a in call.args[:2])
    if not isinstance(lhs, Tensor):
        return ops.div(lhs, rhs)
    return _by_scalar(ops.div, call.dtype, lhs, rhs)


@aten("div.Tensor_mode", "div.Scalar_mode", "floor_divide.default")
def _div_mode(call: AtenCall) -> Tensor:
    mode = call.kwargs.get("rounding_mode", "floor")
    if call.target.startswith("aten.floor_divide"):
        mode = "floor"
    lhs, rhs = (cast_to(a, call.dtype) for a in call.args[:2])
    if mode is None:
        return ops.div(lhs, rhs)
    if mode == "floor" and call.dtype in ("i64", "i32"):
        return ops.div(lhs, rhs)
    if call.dtype not in ("f32", "f16", "bf16"):
        raise UnsupportedNode(f"rounding_mode={mode!r} on {call.dtype}")
    if mode == "trunc":
        return trunc(ops.div(lhs, rhs))
    lhs, rhs = (
        v if isinstance(v, Tensor) else ops.full([], float(v), call.dtype)
        for v in (lhs, rhs)
    )
    return _floor_divide(lhs, rhs)


@aten("remainder.Tensor", "remainder.Scalar", "remainder.Scalar_Tensor")
def _remainder(call: AtenCall) -> Tensor:
    # integers: a - (a // b) * b (graph.div floors them); floats: the op
    lhs, rhs = (cast_to(a, call.dtype) for a in call.args[:2])
    if call.dtype in ("i64", "i32"):
        quotient = ops.div(lhs, rhs)
        return ops.sub(lhs, ops.mul(quotient, rhs))
    return _float_elementwise(graph.RemainderOp)(call)


ATEN["prims.remainder.default"] = _remainder


def _floor_divide(a: Tensor, b: Tensor) -> Tensor:
    """torch's float floor division: (a - fmod(a, b)) / b, one less where
    the remainder's sign is not b's, then floored to the nearest integer (a
    zero keeps the quotient's sign; b = 0 gives a / b)."""
    mod = ops.elementwise(graph.FmodOp, a, b)
    quotient = ops.div(ops.sub(a, mod), b)
    differs = ops.ne(ops.lt(b, 0.0), ops.lt(mod, 0.0))
    quotient = ops.sub(
        quotient, ops.cast(ops.logical_and(ops.ne(mod, 0.0), differs), a.dtype)
    )
    low = floor(quotient)
    rounded = ops.add(low, ops.cast(ops.gt(ops.sub(quotient, low), 0.5), a.dtype))
    plain = ops.div(a, b)
    signed_zero = ops.elementwise(graph.CopysignOp, ops.full([], 0.0, a.dtype), plain)
    result = ops.where(ops.eq(quotient, 0.0), signed_zero, rounded)
    return ops.where(ops.eq(b, 0.0), plain, result)


@aten("pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar")
def _pow(call: AtenCall) -> Tensor:
    base, exponent = (cast_to(a, call.dtype) for a in call.args[:2])
    return ops.pow(base, exponent)


def _compare(fn: Callable[[Any, Any], Tensor]) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        lhs, rhs = call.args[:2]
        common = _common_dtype(call)
        return fn(cast_to(lhs, common), cast_to(rhs, common))

    return handler


def _common_dtype(call: AtenCall) -> str:
    """The dtype torch compares two operands in (its type promotion)."""
    import torch

    values = [
        v if v is not None else a
        for a, v in zip(call.args[:2], call.arg_results[:2], strict=True)
    ]
    return graph_dtype(torch.result_type(*values))


for _name, _fn in {
    "eq": ops.eq,
    "ne": ops.ne,
    "lt": ops.lt,
    "le": ops.le,
    "gt": ops.gt,
    "ge": ops.ge,
}.items():
    aten(f"{_name}.Tensor", f"{_name}.Scalar")(_compare(_fn))


@aten("where.self", "where.ScalarOther", "where.ScalarSelf", "where.Scalar")
def _where(call: AtenCall) -> Tensor:
    cond, lhs, rhs = call.args[:3]
    return ops.where(cond, cast_to(lhs, call.dtype), cast_to(rhs, call.dtype))


def _logical(fn: Callable[[Tensor, Tensor], Tensor]) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        lhs, rhs = call.args[:2]
        if call.dtype != "i1":
            raise UnsupportedNode(f"bitwise ops on {call.dtype} (only on bool)")
        return fn(cast_to(lhs, "i1"), cast_to(rhs, "i1"))

    return handler


aten("logical_and.default", "bitwise_and.Tensor", "__and__.Tensor")(
    _logical(ops.logical_and)
)
aten("logical_or.default", "bitwise_or.Tensor", "__or__.Tensor")(
    _logical(ops.logical_or)
)
aten("logical_xor.default", "bitwise_xor.Tensor", "__xor__.Tensor")(_logical(ops.ne))
# torch's decompositions of logical ops reach the bitwise prims on bools
for _prim, _fn in (("and", ops.logical_and), ("or", ops.logical_or), ("xor", ops.ne)):
    ATEN[f"prims.bitwise_{_prim}.default"] = _logical(_fn)


@aten("logical_not.default", "bitwise_not.default")
def _logical_not(call: AtenCall) -> Tensor:
    if call.target.startswith("aten.bitwise_not") and call.dtype != "i1":
        raise UnsupportedNode(f"bitwise_not on {call.dtype} (only on bool)")
    return ops.logical_not(cast_to(call.args[0], "i1"))


# --------------------------------------------------------------------------- #
# Casts and inference no-ops
# --------------------------------------------------------------------------- #


@aten("to.dtype", "to.dtype_layout", "to.device", "to.other")
@aten("_to_copy.default", "type_as.default")
def _to(call: AtenCall) -> Tensor:
    return cast_to(call.args[0], call.dtype)


DROPOUTS = frozenset(
    f"aten.{name}"
    for name in (
        "dropout.default",
        "dropout_.default",
        "feature_dropout.default",
        "feature_dropout_.default",
        "alpha_dropout.default",
        "alpha_dropout_.default",
        "feature_alpha_dropout.default",
        "feature_alpha_dropout_.default",
        "native_dropout.default",
    )
)
"""Dropouts: `(input, p, train)`, the identity unless they draw."""


def draws_random(target: str, args: Sequence[Any], kwargs: dict[str, Any]) -> bool:
    """Whether a call of an op that torch tags `nondeterministic_seeded`
    draws random numbers with these (fx) arguments: a dropout only in
    training with p > 0 (`native_dropout`'s `train=None` means training),
    attention only with `dropout_p > 0`; every other such op always does."""

    def arg(index: int, name: str, default: Any) -> Any:
        return args[index] if index < len(args) else kwargs.get(name, default)

    if target in DROPOUTS:
        return arg(2, "train", None) is not False and float(arg(1, "p", 0.0)) > 0
    if target == "aten.scaled_dot_product_attention.default":
        return float(arg(4, "dropout_p", 0.0)) > 0
    return True


@aten("copy.default")
def _copy(call: AtenCall) -> Tensor:
    # functional copy(self, src): src in self's shape and dtype
    src = cast_to(call.args[1], call.dtype)
    return src if list(src.shape) == call.shape else ops.broadcast_to(src, call.shape)


@aten("clone.default", "alias.default", "contiguous.default", "lift_fresh_copy.default")
@aten("detach.default", "detach_.default")
@aten("dropout.default", "dropout_.default", "feature_dropout.default")
@aten("native_dropout.default")
def _identity(call: AtenCall) -> Any:
    # The importer leaves a dropout that draws (`draws_random`) to torch;
    # the one that reaches here is the identity.
    if call.target == "aten.native_dropout.default":
        return (call.args[0], None)
    return call.args[0]


# --------------------------------------------------------------------------- #
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
    order = [_dim(x, p) for p in perm]
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
    order = list(range(x.ndim))
    a, b = _dim(x, call.args[1]), _dim(x, call.args[2])
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
    dim = _dim(x, call.arg(1, "dim", 0))
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
    dim = _dim(x, call.args[1])
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
    dim = _dim(x, call.arg(1 if "unbind" in call.target else 2, "dim", 0))
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
    return ops.gather(call.args[0], call.args[1], call.args[2])


@aten("index.Tensor")
def _index(call: AtenCall) -> Tensor:
    return ops.index(call.args[0], list(call.args[1]))


@aten("index_copy.default")
def _index_copy(call: AtenCall) -> Tensor:
    x, dim, index, source = call.args[:4]
    return ops.index_copy(x, dim, index, cast_to(source, call.dtype))


@aten("index_put.default")
def _index_put(call: AtenCall) -> Tensor:
    """`x[None, ..., index] = values` with one 1-D integer index tensor
    (what `index_copy_` on a static KV cache becomes): an index_copy, with
    the values broadcast to the indexed slices. Other forms (several index
    tensors, boolean masks, `accumulate=True`) stay in torch."""
    x, indices, values = call.args[:3]
    if call.arg(3, "accumulate", False):
        raise UnsupportedNode("index_put with accumulate=True")
    given = [(d, t) for d, t in enumerate(indices) if t is not None]
    if len(given) != 1:
        raise UnsupportedNode(f"index_put with {len(given)} index tensors (only 1)")
    ((dim, index),) = given
    if index.ndim != 1 or index.dtype not in ("i64", "i32"):
        raise UnsupportedNode(
            f"index_put with a rank-{index.ndim} {index.dtype} index "
            "(only a 1-D i64/i32 one)"
        )
    shape = [index.shape[0] if d == dim else n for d, n in enumerate(x.shape)]
    source = ops.broadcast_to(cast_to(values, call.dtype), shape)
    return ops.index_copy(x, dim, index, source)


@aten("arange.default", "arange.start", "arange.start_step")
def _arange(call: AtenCall) -> Tensor:
    numbers = [a for a in call.args if isinstance(a, int | float)]
    start, end, step = (0, numbers[0], 1) if len(numbers) == 1 else (*numbers[:2], 1)
    if len(numbers) == 3:
        start, end, step = numbers
    return ops.arange(start, end, step, call.dtype)


@aten("cumsum.default")
def _cumsum(call: AtenCall) -> Tensor:
    return _along(cast_to(call.args[0], call.dtype), call.args[1], ops.cumsum)


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
    (("empty.memory_format", "empty_like.default", "new_empty.default"), _fill(None)),
    (("empty_permuted.default",), _fill(None)),
    (("ones.default", "ones_like.default", "new_ones.default"), _fill(None, 1.0)),
    (("full.default",), _fill(1)),
    (("full_like.default", "new_full.default"), _fill(1)),
    (("scalar_tensor.default",), _fill(0)),
):
    aten(*_names)(_handler)


# --------------------------------------------------------------------------- #
# Reductions and normalisations
# --------------------------------------------------------------------------- #


def _reduction(fn: Callable[..., Tensor], dims_index: int = 1) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        x = cast_to(call.args[0], call.dtype)
        dims = call.arg(dims_index, "dim")
        keepdim = bool(call.arg(dims_index + 1, "keepdim", False))
        return fn(x, _dims(x, dims), keepdim)

    return handler


aten("sum.dim_IntList", "sum.default")(_reduction(ops.sum))
aten("mean.dim", "mean.default")(_reduction(ops.mean))
aten("amax.default")(_reduction(ops.max))
aten("amin.default")(_reduction(ops.min))
aten("any.dim", "any.dims", "any.default")(_reduction(lambda *a: ops.any(*a)))
aten("all.dim", "all.dims", "all.default")(_reduction(lambda *a: ops.all(*a)))


@aten("var.correction", "var.dim", "var.default")
@aten("std.correction", "std.dim", "std.default")
def _var(call: AtenCall) -> Tensor:
    return _var_and_mean(call)[0]


@aten("var_mean.correction", "var_mean.dim", "var_mean.default")
@aten("std_mean.correction", "std_mean.dim", "std_mean.default")
def _var_mean(call: AtenCall) -> tuple[Tensor, Tensor]:
    return _var_and_mean(call)


def _var_and_mean(call: AtenCall) -> tuple[Tensor, Tensor]:
    """(var or std, mean) of a var/std/var_mean/std_mean call (the mean
    built only for the *_mean ops)."""
    x: Tensor = call.args[0]
    if call.target.endswith(".default"):  # (self, unbiased): every dim
        dims, keepdim = None, False
        correction = 1 if call.arg(1, "unbiased", True) else 0
    else:
        dims = _dims(x, call.arg(1, "dim"))
        if call.target.endswith("correction"):
            correction = call.kwargs.get("correction")
            correction = 1 if correction is None else correction  # torch's default
        else:
            correction = 1 if call.arg(2, "unbiased", True) else 0
        # var.dim's keepdim is positional (self, dim, unbiased, keepdim);
        # var.correction's is keyword-only.
        keepdim = bool(call.arg(3, "keepdim", False))
    if correction != int(correction):
        raise UnsupportedNode(f"a fractional correction ({correction})")
    result = ops.var(x, dims, keepdim, int(correction))
    if ".std" in call.target:
        result = ops.sqrt(result)
    if "_mean." not in call.target:
        return result, result
    return result, ops.mean(x, dims, keepdim)


@aten("softmax.int", "_softmax.default", "_safe_softmax.default")
def _softmax(call: AtenCall) -> Tensor:
    x, dim = cast_to(call.args[0], call.dtype), call.args[1]
    probs = _along(x, dim, ops.softmax)
    if call.target != "aten._safe_softmax.default":
        return probs
    # _safe_softmax gives 0, not NaN, on a row whose every score is -inf
    # (a fully masked attention row).
    masked = ops.all(ops.eq(x, -math.inf), _dims(x, dim), keepdim=True)
    return ops.where(masked, 0.0, probs)


@aten("log_softmax.int", "_log_softmax.default")
def _log_softmax(call: AtenCall) -> Tensor:
    return _along(cast_to(call.args[0], call.dtype), call.args[1], ops.log_softmax)


@aten("layer_norm.default", "native_layer_norm.default")
def _layer_norm(call: AtenCall) -> Any:
    x: Tensor = call.args[0]
    shape = list(call.args[1])
    weight = call.arg(2, "weight")
    bias = call.arg(3, "bias")
    eps = call.arg(4, "eps", 1e-5)
    weight = weight if weight is not None else ops.full(shape, 1.0, x.dtype)
    bias = bias if bias is not None else ops.full(shape, 0.0, x.dtype)
    y = ops.layer_norm(x, weight, bias, float(eps))
    if not call.target.startswith("aten.native"):
        return y
    if call.used is not None and not call.used & {1, 2}:
        return (y, None, None)
    # native_layer_norm also returns what its backward reads: the mean and
    # 1/std over the normalised dims, kept as size-1 dims (built only when
    # read: in training).
    dims = list(range(x.ndim - len(shape), x.ndim))
    mean = ops.mean(x, dims, keepdim=True)
    variance = ops.var(x, dims, keepdim=True, correction=0)
    return (y, mean, ops.rsqrt(ops.add(variance, float(eps))))


@aten(
    "batch_norm.default",
    "_native_batch_norm_legit_no_training.default",
    "native_batch_norm.default",
)
def _batch_norm(call: AtenCall) -> Any:
    x: Tensor = call.args[0]
    weight, bias, mean, var = (call.args[i] for i in (1, 2, 3, 4))
    training = "legit_no_training" not in call.target and bool(call.args[5])
    if training:
        raise UnsupportedNode("batch_norm in training mode (export in eval)")
    eps = float(call.args[-1] if "legit" in call.target else call.args[7])
    if mean is None or var is None:
        raise UnsupportedNode("batch_norm without running statistics")
    y = ops.batch_norm(x, mean, var, weight, bias, eps)
    if call.target == "aten.batch_norm.default":
        return y
    # the saved statistics of eval mode: torch's empty tensors, which a
    # program may return (OpInfo's native_batch_norm does)
    saved = (
        ops.full([int(d) for d in r.shape], 0.0, graph_dtype(r.dtype))
        for r in call.result[1:]
    )
    return (y, *saved)


# --------------------------------------------------------------------------- #
# Convolution and pooling
# --------------------------------------------------------------------------- #


def _per_dim(values: Any, rank: int) -> list[int]:
    """torch's int-or-list window argument as one entry per spatial dim."""
    listed = [int(values)] if isinstance(values, int) else [int(v) for v in values]
    return listed * rank if len(listed) == 1 else listed


def _batched(x: Tensor, rank: int, build: Callable[[Tensor], Tensor]) -> Tensor:
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


@aten(
    "convolution.default",
    "conv2d.default",
    "conv2d.padding",
    "conv1d.default",
    "conv1d.padding",
)
def _convolution(call: AtenCall) -> Tensor:
    x, weight, bias = (
        cast_to(t, call.dtype) for t in (*call.args[:2], call.arg(2, "bias"))
    )
    rank = weight.ndim - 2
    if call.target == "aten.convolution.default":
        stride, padding, dilation, transposed, _, groups = call.args[3:9]
        if transposed:
            raise UnsupportedNode("transposed convolution has no graph form")
    else:
        stride, padding = call.arg(3, "stride", 1), call.arg(4, "padding", 0)
        dilation, groups = call.arg(5, "dilation", 1), call.arg(6, "groups", 1)
    dilation = _per_dim(dilation, rank)
    if padding == "same":
        padding = _same_padding(weight, dilation)
    elif padding == "valid":
        padding = 0
    conv = {1: ops.conv1d, 2: ops.conv2d}.get(rank)
    if conv is None:
        raise UnsupportedNode(f"{rank}-D convolution (only 1-D and 2-D)")
    return _batched(
        x,
        rank,
        lambda t: conv(
            t,
            weight,
            bias,
            _per_dim(stride, rank),
            _per_dim(padding, rank),
            dilation,
            int(groups),
        ),
    )


@aten("max_pool2d.default", "max_pool2d_with_indices.default")
def _max_pool2d(call: AtenCall) -> Any:
    if call.used is not None and 1 in call.used:
        raise UnsupportedNode("max_pool2d's indices have no graph form")
    kernel = _per_dim(call.args[1], 2)
    stride = _per_dim(call.arg(2, "stride", []) or kernel, 2)
    padding = _per_dim(call.arg(3, "padding", 0), 2)
    dilation = _per_dim(call.arg(4, "dilation", 1), 2)
    ceil_mode = bool(call.arg(5, "ceil_mode", False))
    y = _batched(
        call.args[0],
        2,
        lambda t: ops.max_pool2d(t, kernel, stride, padding, dilation, ceil_mode),
    )
    return y if call.target == "aten.max_pool2d.default" else (y, None)


@aten("avg_pool2d.default")
def _avg_pool2d(call: AtenCall) -> Tensor:
    if call.arg(6, "divisor_override") is not None:
        raise UnsupportedNode("avg_pool2d with divisor_override")
    kernel = _per_dim(call.args[1], 2)
    stride = _per_dim(call.arg(2, "stride", []) or kernel, 2)
    padding = _per_dim(call.arg(3, "padding", 0), 2)
    ceil_mode = bool(call.arg(4, "ceil_mode", False))
    include_pad = bool(call.arg(5, "count_include_pad", True))
    return _batched(
        call.args[0],
        2,
        lambda t: ops.avg_pool2d(t, kernel, stride, padding, ceil_mode, include_pad),
    )


@aten("adaptive_avg_pool2d.default", "_adaptive_avg_pool2d.default")
def _adaptive_avg_pool2d(call: AtenCall) -> Tensor:
    x: Tensor = cast_to(call.args[0], call.dtype)
    size = call.shape[-2:]
    if size == [1, 1]:
        # global pooling, as the core-ATen graph writes it: a mean over H, W
        return ops.mean(x, [x.ndim - 2, x.ndim - 1], keepdim=True)
    return _batched(x, 2, lambda t: ops.adaptive_avg_pool2d(t, size))


# --------------------------------------------------------------------------- #
# Contractions
# --------------------------------------------------------------------------- #


@aten("linear.default")
def _linear(call: AtenCall) -> Tensor:
    return ops.linear(call.args[0], call.args[1], call.arg(2, "bias"))


@aten("mm.default", "bmm.default", "matmul.default")
def _matmul(call: AtenCall) -> Tensor:
    return ops.matmul(call.args[0], call.args[1])


@aten("addmm.default", "baddbmm.default", "addbmm.default")
def _addmm(call: AtenCall) -> Tensor:
    bias, lhs, rhs = call.args[:3]
    beta, alpha = call.kwargs.get("beta", 1), call.kwargs.get("alpha", 1)
    product = ops.matmul(lhs, rhs)
    if call.target == "aten.addbmm.default":
        # the batch's products summed
        product = ops.sum(product, [0])
    if alpha != 1:
        product = ops.mul(product, alpha)
    return ops.add(product, bias if beta == 1 else ops.mul(bias, beta))


@aten("scaled_dot_product_attention.default")
def _sdpa(call: AtenCall) -> Tensor:
    q, k, v = call.args[:3]
    mask = call.arg(3, "attn_mask")
    causal = bool(call.arg(5, "is_causal", False))
    scale = call.kwargs.get("scale")
    if call.kwargs.get("enable_gqa", False):
        k, v = repeat_heads(k, q.shape[-3]), repeat_heads(v, q.shape[-3])
    return attention(q, k, v, mask, causal, scale)


def repeat_heads(x: Tensor, heads: int) -> Tensor:
    """Grouped-query attention: each of x's kv heads serves heads/kv queries
    (torch's `repeat_interleave` on dim -3)."""
    kv = x.shape[-3]
    if kv == heads:
        return x
    lead, (t, d) = list(x.shape[:-3]), x.shape[-2:]
    grouped = ops.reshape(x, [*lead, kv, 1, t, d])
    expanded = ops.broadcast_to(grouped, [*lead, kv, heads // kv, t, d])
    return ops.reshape(expanded, [*lead, heads, t, d])


def attention(
    q: Tensor,
    k: Tensor,
    v: Tensor,
    mask: Any,
    causal: bool,
    scale: float | None,
) -> Tensor:
    """`graph.attention`; a mask the importer folded is a `FoldedMask`
    (causal or none), anything else becomes the op's mask operand."""
    if isinstance(mask, FoldedMask):
        causal = causal or mask.causal
        mask = mask.operand
    factor = tidy_scale(scale, q.shape[-1])
    if mask is None:
        return ops.scaled_dot_product_attention(q, k, v, is_causal=causal, scale=factor)
    return ops.scaled_dot_product_attention(
        q, k, v, attn_mask=mask, is_causal=causal, scale=factor
    )


def tidy_scale(scale: float | None, head_dim: int) -> float:
    """The attention scale, canonical: torch's default 1/√d for None or
    anything within rounding of it (`d ** -0.5`, or √s·√s from the core
    decomposition), else 15 digits, so both IR levels print the same."""
    default = 1.0 / math.sqrt(head_dim)
    if scale is None or math.isclose(scale, default, rel_tol=1e-12):
        return default
    return float(f"{float(scale):.15g}")


@dataclass
class FoldedMask:
    """An attention mask the importer evaluated: `causal` when it holds the
    causal pattern, `operand` (a materialised constant) for the rest of it
    (a per-key padding mask, or the whole mask when it is no such
    pattern), None when nothing is left."""

    causal: bool
    operand: Tensor | None


# --------------------------------------------------------------------------- #
# Composites: core-ATen ops without a graph op of their own, written with
# existing graph ops (static shapes make index constants and slices cheap).
# --------------------------------------------------------------------------- #

_EXACT = 2.0**23
"""From here on every f32 is an integer (and f16/bf16 ones sooner)."""


def _floats_only(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    if x.dtype in ("i64", "i32", "i1"):
        return x
    return cast_to(x, call.dtype)


def trunc(x: Tensor) -> Tensor:
    """Round toward zero: through i64 where |x| < 2^23 (every f32 beyond is
    an integer already; inf and NaN stay as they are)."""
    if x.dtype in ("i64", "i32", "i1"):
        return x
    whole = ops.cast(ops.cast(x, "i64"), x.dtype)
    return ops.where(ops.lt(ops.abs(x), _EXACT), whole, x)


def floor(x: Tensor) -> Tensor:
    t = trunc(x)
    return ops.sub(t, ops.cast(ops.gt(t, x), x.dtype)) if x.dtype[0] != "i" else t


def ceil(x: Tensor) -> Tensor:
    t = trunc(x)
    return ops.add(t, ops.cast(ops.lt(t, x), x.dtype)) if x.dtype[0] != "i" else t


def round_half_even(x: Tensor) -> Tensor:
    """torch.round: to the nearest integer, ties to the even one."""
    if x.dtype[0] == "i":
        return x
    low = floor(x)
    frac = ops.sub(x, low)
    high = ops.add(low, 1.0)
    odd = ops.ne(ops.sub(low, ops.mul(floor(ops.mul(low, 0.5)), 2.0)), 0.0)
    tie = ops.where(odd, high, low)
    near = ops.where(ops.lt(frac, 0.5), low, high)
    return ops.where(ops.eq(frac, 0.5), tie, near)


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
    x, decimals = _floats_only(call), int(call.arg(1, "decimals", 0))
    scale = 10.0**decimals
    return ops.div(round_half_even(ops.mul(x, scale)), scale)


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
    if x.dtype[0] == "i":
        return ops.lt(x, 0)
    # -0.0 has its sign bit set: its reciprocal is -inf (a NaN's sign is lost)
    zero_below = ops.logical_and(ops.eq(x, 0.0), ops.lt(ops.reciprocal(x), 0.0))
    return ops.logical_or(ops.lt(x, 0.0), zero_below)


ATEN["prims.signbit.default"] = _signbit


@aten("hypot.default", "hypot_.default")
def _hypot(call: AtenCall) -> Tensor:
    # sqrt(a^2 + b^2) scaled by the larger magnitude, so squares of large
    # values do not overflow (torch's std::hypot does not)
    a, b = (ops.abs(cast_to(v, call.dtype)) for v in call.args[:2])
    big, small = ops.maximum(a, b), ops.minimum(a, b)
    safe = ops.where(ops.eq(big, 0.0), 1.0, big)
    ratio = ops.div(small, safe)
    hypot = ops.mul(big, ops.sqrt(ops.add(ops.mul(ratio, ratio), 1.0)))
    # inf wins over NaN, as in C's hypot
    infinite = ops.logical_or(ops.eq(a, math.inf), ops.eq(b, math.inf))
    return ops.where(infinite, math.inf, hypot)


ATEN["prims.hypot.default"] = _hypot


def _nan_ignoring(fn: Callable[[Any, Any], Tensor]) -> Handler:
    """torch's fmax/fmin: a NaN operand yields the other one."""

    def handler(call: AtenCall) -> Tensor:
        a, b = (cast_to(v, call.dtype) for v in call.args[:2])
        if call.dtype[0] == "i":
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
    if x.dtype[0] == "i":
        return ops.full(call.shape, 0.0, "i1")
    return ops.ne(x, x)


@aten("log1p.default")
def _log1p(call: AtenCall) -> Tensor:
    # log(1 + x) loses small x to rounding: near 0, x * log(u) / (u - 1)
    # with u = 1 + x cancels the rounding of u (Goldberg's form).
    x = cast_to(call.args[0], call.dtype)
    u = ops.add(x, 1.0)
    small = ops.where(
        ops.eq(u, 1.0), x, ops.div(ops.mul(ops.log(u), x), ops.sub(u, 1.0))
    )
    return ops.where(ops.lt(ops.abs(x), 0.5), small, ops.log(u))


@aten("expm1.default")
def _expm1(call: AtenCall) -> Tensor:
    # exp(x) - 1 loses small x: near 0, (u - 1) * x / log(u) with u = exp(x)
    # (Kahan's form).
    x = cast_to(call.args[0], call.dtype)
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
    for dim in sorted({_dim(x, d) for d in call.args[1]}):
        if x.shape[dim] > 1:
            x = ops.index(x, [None] * dim + [_reversed_index(x.shape[dim])])
    return x


def _storage_positions(
    shape: Sequence[int], size: Sequence[int], stride: Sequence[int], offset: int
) -> Any:
    """The flat positions in a contiguous tensor of `shape` that
    `as_strided(size, stride, offset)` reads, an int64 array of `size`; or
    UnsupportedNode where one falls outside it."""
    positions = _strided_positions(list(size), list(stride), offset)
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
    dim1, dim2 = _dim(x, call.arg(3, "dim1", 0)), _dim(x, call.arg(4, "dim2", 1))
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
        combined = ops.sum(ops.where(hit, values, 0), [last + 1])
        if include_self:
            combined = ops.add(combined, target)
        if reduce == "mean":
            total = count if not include_self else ops.add(count, 1)
            combined = ops.div(combined, ops.cast(ops.maximum(total, 1), x.dtype))
    elif reduce == "prod":
        ones = ops.where(hit, values, 1)
        combined = reshape(_product(ones, last + 1), [*outer, n])
        if include_self:
            combined = ops.mul(combined, target)
    elif reduce in ("amax", "amin"):
        fill = -math.inf if reduce == "amax" else math.inf
        if x.dtype[0] == "i":
            info = np.iinfo(np.int64 if x.dtype == "i64" else np.int32)
            fill = float(info.min if reduce == "amax" else info.max)
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
    dim = 0 if x.ndim == 0 else _dim(x, call.args[1])
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
    # scatter_reduce with the 1-D index spread over the source's other dims
    x: Tensor = cast_to(call.args[0], call.dtype)
    dim = _dim(x, call.args[1]) if x.ndim else 0
    index, source = call.args[2], cast_to(call.args[3], call.dtype)
    reduce = str(call.args[4])
    include_self = bool(call.kwargs.get("include_self", True))
    if x.ndim == 0:
        x, source = reshape(x, [1]), reshape(source, [1])
    along = [math.prod(index.shape) if d == dim else 1 for d in range(x.ndim)]
    spread = ops.broadcast_to(reshape(index, along), list(source.shape))
    return reshape(_scatter(x, dim, spread, source, reduce, include_self), call.shape)


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
    # the k-th true position of the mask takes the source's k-th element
    x: Tensor = cast_to(call.args[0], call.dtype)
    mask = ops.broadcast_to(call.args[1], list(x.shape))
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
    dim = _dim(x, call.args[1])
    positions = [x.shape[dim] if d == dim else 1 for d in range(x.ndim)]
    index = ops.broadcast_to(
        ops.constant(np.arange(x.shape[dim], dtype=np.int64).reshape(positions), "i64"),
        list(x.shape),
    )
    pad = -math.inf if largest else math.inf
    if x.dtype[0] == "i":
        info = np.iinfo(np.int64 if x.dtype == "i64" else np.int32)
        pad = float(info.min if largest else info.max)

    def combine(
        left: tuple[Tensor, ...], right: tuple[Tensor, ...]
    ) -> tuple[Tensor, ...]:
        (lv, li), (rv, ri) = left, right
        later = ops.ge(rv, lv) if largest else ops.le(rv, lv)
        if x.dtype[0] != "i":
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
    dim = _dim(x, call.args[1])

    def combine(
        left: tuple[Tensor, ...], right: tuple[Tensor, ...]
    ) -> tuple[Tensor, ...]:
        return (_logaddexp(left[0], right[0]),)

    return _scan((x,), dim, (-math.inf,), combine)[0]


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
    # not 1 - erf(x): that loses every digit where erfc is small (x > 3)
    x = cast_to(call.args[0], call.dtype)
    t = ops.div(1.0, ops.add(ops.mul(ops.abs(x), 0.5), 1.0))
    series = ops.full([], _ERFC_SERIES[-1], x.dtype)
    for coefficient in reversed(_ERFC_SERIES[:-1]):
        series = ops.add(ops.mul(series, t), coefficient)
    tail = ops.mul(t, ops.exp(ops.sub(series, ops.mul(x, x))))
    return ops.where(ops.lt(x, 0.0), ops.sub(2.0, tail), tail)


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


def _lgamma_positive(x: Tensor) -> Tensor:
    """log|Gamma(x)| for x > 0: Stirling's series at y >= 8, moved down by
    log(x (x + 1) ... (x + 7)) below 8."""
    y, small = _shifted(x)
    inverse = ops.div(1.0, y)
    square = ops.mul(inverse, inverse)
    series = ops.mul(
        inverse,
        ops.add(
            1 / 12,
            ops.mul(square, ops.add(-1 / 360, ops.mul(square, 1 / 1260))),
        ),
    )
    stirling = ops.add(
        ops.sub(ops.mul(ops.sub(y, 0.5), ops.log(y)), y),
        ops.add(series, 0.5 * math.log(2 * math.pi)),
    )
    product = x
    for k in range(1, _SHIFT):
        product = ops.mul(product, ops.add(x, float(k)))
    return ops.where(small, ops.sub(stirling, ops.log(product)), stirling)


@aten("lgamma.default", "lgamma_.default")
def _lgamma(call: AtenCall) -> Tensor:
    # x < 0.5 by reflection: log(pi / |sin(pi x)|) - lgamma(1 - x)
    x = cast_to(call.args[0], call.dtype)
    low = ops.lt(x, 0.5)
    positive = _lgamma_positive(ops.where(low, ops.sub(1.0, x), x))
    reflected = ops.sub(ops.log(ops.div(math.pi, _sin_pi(x))), positive)
    result = ops.where(low, reflected, positive)
    # poles (0, -1, ...) and both infinities: inf, as torch
    pole = ops.logical_and(ops.le(x, 0.0), ops.eq(x, round_half_even(x)))
    infinite = ops.logical_or(pole, ops.eq(ops.abs(x), math.inf))
    return ops.where(infinite, math.inf, result)


ATEN["prims.lgamma.default"] = _lgamma


@aten("digamma.default", "digamma_.default")
def _digamma(call: AtenCall) -> Tensor:
    # the asymptotic series at y >= 8 less 1/x + ... + 1/(x + 7) below;
    # x < 0.5 by reflection: digamma(1 - x) - pi / tan(pi x)
    x = cast_to(call.args[0], call.dtype)
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


@aten("polygamma.default")
def _polygamma(call: AtenCall) -> Tensor:
    order = int(call.args[0])
    if order != 0:
        raise UnsupportedNode(f"polygamma of order {order} (only 0, digamma)")
    return _digamma(
        AtenCall(call.target, call.args[1:], {}, call.result, call.arg_results[1:])
    )


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
    floats = [t.dtype for t in (x, boundaries) if t.dtype[0] != "i"]
    common = x.dtype if x.dtype == boundaries.dtype else (floats or ["i64"])[0]
    x, boundaries = cast_to(x, common), cast_to(boundaries, common)
    values = reshape(x, [*x.shape, 1])
    edges = boundaries
    if boundaries.ndim > 1:
        edges = reshape(boundaries, [*boundaries.shape[:-1], 1, n])
    axis = x.ndim
    below = ops.le(edges, values) if right else ops.lt(edges, values)
    count = ops.sum(ops.cast(below, "i64"), [axis])
    if x.dtype[0] != "i":
        # NaN sorts after every boundary
        count = ops.where(ops.ne(x, x), ops.full([], float(n), "i64"), count)
    return cast_to(count, call.dtype)


@aten("angle.default")
def _angle(call: AtenCall) -> Tensor:
    # a real number's angle: pi below zero, else 0 (NaN stays NaN)
    x = cast_to(call.args[0], call.dtype)
    angle = ops.where(ops.lt(x, 0.0), math.pi, ops.full(list(x.shape), 0.0, x.dtype))
    return ops.where(ops.ne(x, x), x, angle)


@aten("index_select.default")
def _index_select(call: AtenCall) -> Tensor:
    x, index = call.args[0], call.args[2]
    if x.ndim == 0:
        x, dim = reshape(x, [1]), 0
    else:
        dim = _dim(x, call.args[1])
    flat = reshape(index, [math.prod(index.shape)])
    return reshape(ops.index(x, [None] * dim + [flat]), call.shape)


@aten("as_strided.default", "as_strided_copy.default")
def _as_strided(call: AtenCall) -> Tensor:
    # Elements of the input's storage at offset + sum(i_k * stride_k): a
    # gather of the flat input by a constant index, where the storage from
    # the input's own offset holds exactly its values (dense, in any dim
    # order: Longformer's overlapping attention chunks; a contiguous slice).
    import numpy as np

    x, size, stride = call.args[0], call.args[1], call.args[2]
    given = call.arg_results[0]
    offset = call.arg(3, "storage_offset")
    offset = given.storage_offset() if offset is None else offset
    numel = math.prod(x.shape)
    own = _strided_positions(list(x.shape), list(given.stride()), 0).ravel()
    dense = np.array_equal(np.sort(own), np.arange(numel))
    if not dense:
        raise UnsupportedNode(
            f"{call.target} of a view with strides {tuple(given.stride())}: "
            "only of a tensor whose storage holds exactly its own elements"
        )
    # positions relative to the input's own first element
    index = _strided_positions(
        list(size), list(stride), offset - given.storage_offset()
    )
    if index.size and (index.min() < 0 or index.max() >= numel):
        raise UnsupportedNode(
            f"{call.target} reads past its input's {numel} elements (the "
            "storage it shares with another tensor)"
        )
    # storage position -> the input's row-major position
    held = np.empty(numel, np.int64)
    held[own] = np.arange(numel)
    flat = reshape(x, [numel])
    picked = ops.index(flat, [ops.constant(held[index].reshape(-1), "i64")])
    return reshape(picked, list(size))


def _strided_positions(size: list[int], stride: list[int], offset: int) -> Any:
    """The storage position of each element of a `size` view with `stride`
    from `offset` (an int64 array of shape `size`)."""
    import numpy as np

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


def _product(x: Tensor, dim: int) -> Tensor:
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
    reduced = range(x.ndim) if dims is None else sorted({_dim(x, d) for d in dims})
    if math.prod(x.shape[d] for d in reduced) == 0:
        return ops.full(call.shape, 1.0, call.dtype)
    for dim in reduced:
        x = _product(x, dim)
    return reshape(cast_to(x, call.dtype), call.shape)


ATEN["prims.prod.default"] = _prims_prod


@aten("prod.default", "prod.dim_int")
def _prod(call: AtenCall) -> Tensor:
    x: Tensor = cast_to(call.args[0], call.dtype)
    if call.target == "aten.prod.default" or x.ndim == 0:
        if math.prod(x.shape) == 0:
            return ops.full(call.shape, 1.0, call.dtype)
        return reshape(_product(reshape(x, [math.prod(x.shape)]), 0), call.shape)
    dim = _dim(x, call.args[1])
    if x.shape[dim] == 0:
        return ops.full(call.shape, 1.0, call.dtype)
    return reshape(_product(x, dim), call.shape)


def _first_index(x: Tensor, hit: Tensor, dim: int, keepdim: bool) -> Tensor:
    """The first index along `dim` where `hit` (i1, x's shape) is true."""
    import numpy as np

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
        dim = _dim(x, dim)
    extreme = (ops.max if largest else ops.min)(x, [dim], True)
    hit = ops.eq(x, extreme)
    if x.dtype[0] != "i":
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
    if pv.dtype[0] != "i":
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


def _sorted_along(x: Tensor, dim: int, descending: bool) -> tuple[Tensor, Tensor]:
    """(values, indices) of a stable sort of `x` along `dim`: a bitonic
    network over the (value, index) keys, the dim padded to a power of two
    with keys that sort last; log2(n)^2 / 2 compare-and-swap steps."""
    if x.ndim == 0:
        return x, ops.full([], 0.0, "i64")
    if x.dtype == "i1":
        values, index = _sorted_along(ops.cast(x, "i32"), dim, descending)
        return ops.cast(values, "i1"), index
    n, last = x.shape[dim], x.ndim - 1
    x = ops.swapaxes(x, dim, last) if dim != last else x
    outer = list(x.shape[:-1])
    size = 1 << max(n - 1, 0).bit_length()
    index = ops.broadcast_to(
        ops.constant(np.arange(size, dtype=np.int64), "i64"), [*outer, size]
    )
    values = x
    if size > n:
        if x.dtype[0] == "i":
            info = np.iinfo(np.int64 if x.dtype == "i64" else np.int32)
            pad = float(info.min if descending else info.max)
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
            # blocks whose bit `stage` is set sort the other way
            flip = (np.arange(blocks) * 2 * step) & stage != 0
            swap = _before(hi, lo, descending)
            if flip.any():
                swap = ops.ne(swap, ops.constant(flip.reshape(blocks, 1, 1), "i1"))
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
    return _sorted_along(x, _dim(x, dim), bool(descending))


def _order_statistic(
    x: Tensor, dim: int, keepdim: bool, position: Callable[[Tensor], Any]
) -> tuple[Tensor, Tensor]:
    """(value, index) along `dim` of the element at `position(nan_count)`
    (a Tensor or an int, x's shape with `dim` of size one) of the ascending
    sort; NaN sorts last."""
    if x.ndim == 0:
        return x, ops.full([], 0.0, "i64")
    values, indices = _sorted_along(x, dim, descending=False)
    nans = ops.full([*x.shape[:dim], 1, *x.shape[dim + 1 :]], 0.0, "i64")
    if x.dtype[0] != "i":
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
    return _order_statistic(x, _dim(x, dim), keepdim, lambda nans: k - 1)


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
    dim = 0 if x.ndim == 0 else _dim(x, call.args[1])
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
    d = _dim(x, dim)
    values, indices = _sorted_along(x, d, descending=largest)
    limit = [k if i == d else n for i, n in enumerate(x.shape)]
    start = [0] * x.ndim
    return ops.slice(values, start, limit), ops.slice(indices, start, limit)


@aten("max.default", "min.default")
def _max_all(call: AtenCall) -> Tensor:
    x: Tensor = call.args[0]
    fn = ops.max if call.target == "aten.max.default" else ops.min
    result = fn(x, None, False)
    if x.dtype[0] == "i":
        return result
    return ops.where(ops.any(ops.ne(x, x), None, False), math.nan, result)
