"""ATen handlers: elementwise ops, casts and inference no-ops."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

from fxdsl.frontends.aten_math import floor, trunc
from fxdsl.frontends.aten_registry import (
    ATEN,
    FLOAT_DTYPES,
    AtenCall,
    Handler,
    UnsupportedNode,
    aten,
    cast_to,
    graph_dtype,
    is_integer,
)
from fxdsl.ir import graph
from fxdsl.ir.dtypes import to_element_type
from fxdsl.tracing import ops
from fxdsl.tracing.trace_state import dtype_attr
from fxdsl.tracing.tracer import Tensor

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
        if call.dtype not in FLOAT_DTYPES:
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
    x = cast_to(call.args[0], call.dtype)

    def inexact(bound: Any) -> bool:  # an int a float64 (clamp's) cannot hold
        return isinstance(bound, int) and int(float(bound)) != bound

    if is_integer(call.dtype) and (inexact(low) or inexact(high)):
        # exact bounds as tensors: ops.full keeps an int64 extreme exact
        if low is not None:
            x = ops.maximum(x, ops.full([], low, call.dtype))
        if high is not None:
            x = ops.minimum(x, ops.full([], high, call.dtype))
        return x
    return ops.clamp(x, low, high)


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
    if x.dtype not in FLOAT_DTYPES:  # no integer is infinite
        return ops.full(list(x.shape), 0, "i1")
    return ops.eq(ops.abs(x), math.inf)


@aten("hardtanh.default", "hardtanh_.default")
def _hardtanh(call: AtenCall) -> Tensor:
    low, high = call.arg(1, "min_val", -1.0), call.arg(2, "max_val", 1.0)
    if is_integer(call.dtype):  # torch converts the bounds to the type: -0.5 -> 0
        low, high = int(low), int(high)
    return ops.clamp(call.args[0], low, high)


@aten("relu6.default", "relu6_.default")
def _relu6(call: AtenCall) -> Tensor:
    # what the core-ATen graph has too: hardtanh(x, 0, 6)
    return ops.clamp(call.args[0], 0.0, 6.0)


def _by_scalar(
    fn: Callable[[Any, Any], Tensor], dtype: str, lhs: Any, rhs: Any
) -> Tensor:
    """`fn(lhs, rhs)` in `dtype`, for torch's mul and div (`rhs` as the
    call has it, not yet cast). A bf16 or f16 tensor times (or over) a
    Python scalar that dtype cannot hold, or a 0-d f32/f64 tensor, is
    computed in f32 and rounded once: torch takes that scalar unrounded, in
    its f32 compute type (`x * 0.1` in bf16 differs from `x * bf16(0.1)` in
    half the elements). Torch's CPU add and sub round the scalar first, as
    the importer does for every other op."""
    if dtype not in ("bf16", "f16") or isinstance(rhs, bool):
        return fn(lhs, cast_to(rhs, dtype))
    if isinstance(rhs, Tensor):
        # a 0-d f32/f64 tensor: torch's CPU kernels read it as a scalar of
        # the f32 compute type, unrounded to the 16-bit one
        if rhs.ndim == 0 and rhs.dtype in ("f32", "f64"):
            wide = fn(cast_to(lhs, "f32"), ops.cast(rhs, "f32"))
            return ops.cast(wide, dtype)
        return fn(lhs, cast_to(rhs, dtype))
    wide = float(np.float32(rhs))
    narrow = float(to_element_type(np.float32(wide), dtype_attr(dtype)))
    if narrow == wide or math.isnan(wide):
        return fn(lhs, rhs)
    return ops.cast(fn(cast_to(lhs, "f32"), wide), dtype)


def _arith(fn: Callable[[Any, Any], Tensor], reverse: bool = False) -> Handler:
    def handler(call: AtenCall) -> Tensor:
        lhs, rhs = (cast_to(a, call.dtype) for a in call.args[:2])
        alpha = call.kwargs.get("alpha", call.args[2] if len(call.args) > 2 else 1)
        if reverse:  # rsub(self, other, alpha) = other - alpha * self
            return fn(rhs, lhs if alpha == 1 else ops.mul(lhs, alpha))
        if alpha != 1:  # two Python numbers multiply in Python
            rhs = ops.mul(rhs, alpha) if isinstance(rhs, Tensor) else rhs * alpha
        if fn is ops.mul and isinstance(lhs, Tensor) and alpha == 1:
            return _by_scalar(fn, call.dtype, lhs, call.args[1])
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
    return _by_scalar(ops.div, call.dtype, lhs, call.args[1])


@aten("div.Tensor_mode", "div.Scalar_mode", "floor_divide.default")
def _div_mode(call: AtenCall) -> Tensor:
    mode = call.kwargs.get("rounding_mode", "floor")
    if call.target.startswith("aten.floor_divide"):
        mode = "floor"
    lhs, rhs = (cast_to(a, call.dtype) for a in call.args[:2])
    if mode is None:
        return ops.div(lhs, rhs)
    if mode == "floor" and is_integer(call.dtype):
        return ops.div(lhs, rhs)
    if mode == "trunc" and is_integer(call.dtype):
        return _truncated_division(lhs, rhs, call.dtype)[0]
    if call.dtype not in FLOAT_DTYPES:
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
    if call.dtype in ("i64", "i32", "i16", "i8", "ui8"):
        quotient = ops.div(lhs, rhs)
        return ops.sub(lhs, ops.mul(quotient, rhs))
    return _float_elementwise(graph.RemainderOp)(call)


ATEN["prims.remainder.default"] = _remainder


def _truncated_division(lhs: Any, rhs: Any, dtype: str) -> tuple[Tensor, Tensor]:
    """(the quotient rounded toward zero, C's remainder: the sign of `lhs`)
    of integers: graph.div floors, which is one less where the division is
    inexact and the signs differ. (A zero divisor gives a value where
    eager raises, as integer floor division does.)"""
    lhs, rhs = (
        v if isinstance(v, Tensor) else ops.full([], v, dtype) for v in (lhs, rhs)
    )
    floor = ops.div(lhs, rhs)
    inexact = ops.ne(ops.sub(lhs, ops.mul(floor, rhs)), 0)
    signs = ops.ne(ops.lt(lhs, 0), ops.lt(rhs, 0))
    step = ops.cast(ops.logical_and(inexact, signs), dtype)
    quotient = ops.add(floor, step)
    return quotient, ops.sub(lhs, ops.mul(quotient, rhs))


@aten("fmod.Tensor", "fmod.Scalar")
def _fmod(call: AtenCall) -> Tensor:
    # integers: C's %; floats: graph.fmod
    if is_integer(call.dtype):
        lhs, rhs = (cast_to(a, call.dtype) for a in call.args[:2])
        return _truncated_division(lhs, rhs, call.dtype)[1]
    return _float_elementwise(graph.FmodOp)(call)


ATEN["prims.fmod.default"] = _fmod


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


_POW_AS: dict[float, Callable[[Tensor], Tensor]] = {
    0.5: ops.sqrt,
    -0.5: ops.rsqrt,
    -1.0: ops.reciprocal,
    2.0: lambda x: ops.mul(x, x),
    3.0: lambda x: ops.mul(ops.mul(x, x), x),
    -2.0: lambda x: ops.reciprocal(ops.mul(x, x)),
}
"""Exponents torch's float pow kernels compute another way (CPU and CUDA
alike), which decides the last bit and the sign of a zero: `(-0.0) ** -0.5`
is rsqrt's -inf, not pow's inf. The products only for f32 and f64 (16-bit
types would round between them)."""


@aten("pow.Tensor_Scalar", "pow.Tensor_Tensor", "pow.Scalar")
def _pow(call: AtenCall) -> Tensor:
    base, exponent = (cast_to(a, call.dtype) for a in call.args[:2])
    if (
        isinstance(base, Tensor)
        and call.dtype in FLOAT_DTYPES
        and isinstance(exponent, int | float)
        and not isinstance(exponent, bool)
        and float(exponent) in _POW_AS
        and (abs(float(exponent)) == 0.5 or call.dtype in ("f32", "f64"))
    ):
        return _POW_AS[float(exponent)](base)
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
        return fn(cast_to(lhs, "i1"), cast_to(rhs, "i1"))

    return handler


def _bitwise(
    on_ints: Callable[[Any, Any], Tensor],
    on_bools: Callable[[Tensor, Tensor], Tensor] | None,
) -> Handler:
    """A bitwise op of torch's promoted type: the graph's bitwise op on
    integers, its logical form on bools (where the result is i1; torch
    does not shift bools)."""

    def handler(call: AtenCall) -> Tensor:
        if call.dtype == "i1" and on_bools is not None:
            return _logical(on_bools)(call)
        if not is_integer(call.dtype):
            raise UnsupportedNode(f"bitwise ops on {call.dtype} (integers only)")
        lhs, rhs = (cast_to(v, call.dtype) for v in call.args[:2])
        return on_ints(lhs, rhs)

    return handler


BITWISE_OVERLOADS = ("Tensor", "Scalar", "Scalar_Tensor")
"""ATen's overloads of `bitwise_and` (or, xor)."""
SHIFT_OVERLOADS = ("Tensor", "Tensor_Scalar", "Scalar_Tensor")
"""Those of `bitwise_left_shift` and `bitwise_right_shift`."""
DUNDER_OVERLOADS = ("Tensor", "Scalar")
"""Those of the operator forms (`__and__`, `__lshift__`)."""

aten("logical_and.default")(_logical(ops.logical_and))
aten("logical_or.default")(_logical(ops.logical_or))
aten("logical_xor.default")(_logical(ops.ne))
for _name, _dunder, _prim, _ints, _bools in (
    ("bitwise_and", "__and__", "bitwise_and", ops.bitwise_and, ops.logical_and),
    ("bitwise_or", "__or__", "bitwise_or", ops.bitwise_or, ops.logical_or),
    ("bitwise_xor", "__xor__", "bitwise_xor", ops.bitwise_xor, ops.ne),
    ("bitwise_left_shift", "__lshift__", "shift_left", ops.shift_left, None),
    ("bitwise_right_shift", "__rshift__", "shift_right_arithmetic", ops.shift_right,
     None),
):  # fmt: skip
    _handler = _bitwise(_ints, _bools)
    _kinds = SHIFT_OVERLOADS if "shift" in _name else BITWISE_OVERLOADS
    for _target in (
        *(f"{_name}.{kind}" for kind in _kinds),
        *(f"{_dunder}.{kind}" for kind in DUNDER_OVERLOADS),
        f"prims.{_prim}.default",
    ):
        ATEN[_target if _target.startswith("prims.") else f"aten.{_target}"] = _handler


@aten("gcd.default")
def _gcd(call: AtenCall) -> Tensor:
    if not is_integer(call.dtype) or call.dtype == "i1":
        raise UnsupportedNode(f"gcd on {call.dtype} (integers only)")
    return ops.gcd(*(cast_to(a, call.dtype) for a in call.args[:2]))


ATEN["prims.gcd.default"] = _gcd


@aten("lcm.default")
def _lcm(call: AtenCall) -> Tensor:
    # torch's: |a / gcd * b|, 0 where gcd is 0 (both 0); a / gcd is exact
    a, b = (cast_to(x, call.dtype) for x in call.args[:2])
    divisor = ops.maximum(_gcd(call), ops.full([], 1, call.dtype))
    return ops.abs(ops.mul(ops.div(a, divisor), b))


def _prims_div(call: AtenCall) -> Tensor:
    """prims.div: true division of floats, truncated division of integers."""
    if is_integer(call.dtype):
        lhs, rhs = (cast_to(a, call.dtype) for a in call.args[:2])
        return _truncated_division(lhs, rhs, call.dtype)[0]
    return _div(call)


ATEN["prims.div.default"] = _prims_div


@aten("logical_not.default", "bitwise_not.default")
def _logical_not(call: AtenCall) -> Tensor:
    if call.target.startswith("aten.logical_not") or call.dtype == "i1":
        return ops.logical_not(cast_to(call.args[0], "i1"))
    if not is_integer(call.dtype):
        raise UnsupportedNode(f"bitwise_not on {call.dtype} (integers only)")
    return ops.bitwise_not(cast_to(call.args[0], call.dtype))


ATEN["prims.bitwise_not.default"] = _logical_not


# --------------------------------------------------------------------------- #
# Casts and inference no-ops
# --------------------------------------------------------------------------- #


@aten("to.dtype", "to.dtype_layout", "to.device", "to.other")
@aten("_to_copy.default", "type_as.default")
def _to(call: AtenCall) -> Tensor:
    return cast_to(call.args[0], call.dtype)


# torch's decompositions of 16-bit ops (cumprod, renorm) compute in f32
# between two of these
ATEN["prims.convert_element_type.default"] = _to


@aten("copy.default")
def _copy(call: AtenCall) -> Tensor:
    # functional copy(self, src): src in self's shape and dtype
    src = cast_to(call.args[1], call.dtype)
    return src if list(src.shape) == call.shape else ops.broadcast_to(src, call.shape)


@aten("clone.default", "alias.default", "contiguous.default", "lift_fresh_copy.default")
@aten("detach.default", "detach_.default")
def _identity(call: AtenCall) -> Any:
    # (dropouts, the identity in eval mode, are `aten_random`'s)
    return call.args[0]


# a copy laid out with given strides (torch's decompositions keep a strided
# input's layout with it: `index_fill` of a sliced tensor): values only here,
# the backend hands outputs back in the graph's strides
ATEN["prims.copy_strided.default"] = _identity


# --------------------------------------------------------------------------- #
