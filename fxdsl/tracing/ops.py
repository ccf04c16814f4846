"""`fxdsl.ops`: the graph ops as functions on traced tensors.

`Tensor` (a symbolic tensor of the running trace, whose operators are these
functions) and `emit` (build, verify and append one op) live here too, with
the functions they call, so that neither imports the other's module; the
trace itself is `fxdsl.tracing.trace_state`, `trace` is in
`fxdsl.tracing.tracer`.

Each function builds one graph op (a few build two: a scalar operand adds a
rank-0 `graph.full`, `split` with an int size computes the pieces) through the
dialect's constructors, so result types come from `shape_rules` and a bad
shape is a `ValueError` naming the op. Dims may be negative; they are
normalised to [0, rank) because the dialect stores only those.

Binary ops accept a Python scalar (or a numpy array, which becomes a
`graph.constant`) on either side as long as one side is a Tensor; it takes the
tensor's element type (no type promotion). `where` also takes two scalars
(their type is torch's, or `dtype`).
"""

from __future__ import annotations

import builtins
import math
import typing
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from fxdsl.ir import graph
from fxdsl.ir.dtypes import numpy_dtype
from fxdsl.ir.graph import SCOPE, ScopeAttr, dtype_of, shape_of
from fxdsl.ir.shape_rules import ShapeError
from fxdsl.tracing.trace_state import (
    TraceState,
    active_state,
    dtype_attr,
    dtype_name,
    numpy_dtype_name,
)

Dims = int | Sequence[int] | None
INTEGER_DTYPES = ("i64", "i32", "i16", "i8", "ui8", "i1")
Scalar = bool | int | float | np.generic
OpT = TypeVar("OpT", bound=graph.GraphOp)


# --------------------------------------------------------------------------- #
# The symbolic tensor, and emitting ops into the running trace
# --------------------------------------------------------------------------- #


class Tensor:
    """A symbolic tensor: one SSA value of the trace that is running.

    Operators build graph ops through the functions below; comparisons give i1
    tensors (so `__eq__` is elementwise, and hashing is by identity).
    """

    # Make numpy defer to our reflected operators (`np_array + tensor`).
    __array_ufunc__ = None

    def __init__(self, value: SSAValue, state: TraceState):
        self.value = value
        self._state = state

    # -- metadata -------------------------------------------------------- #

    @property
    def type(self) -> TensorType[Attribute]:
        typ = self.value.type
        assert isinstance(typ, TensorType)
        return typ

    @property
    def shape(self) -> tuple[int, ...]:
        return shape_of(self.value)

    @property
    def dtype(self) -> str:
        return dtype_name(dtype_of(self.value))

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"Tensor(shape={self.shape}, dtype={self.dtype!r})"

    def __hash__(self) -> int:
        return id(self)

    def check_trace(self, state: TraceState, what: str) -> None:
        """ValueError "`what` belongs to a different trace" unless this is a
        value of the trace `state` (a tensor kept from another trace)."""
        if self._state is not state:
            raise ValueError(f"{what} belongs to a different trace")

    def __bool__(self) -> bool:
        raise TypeError(
            "a traced Tensor has no truth value; use fxdsl.ops.where for data-"
            "dependent choices"
        )

    # -- arithmetic ------------------------------------------------------- #

    def __add__(self, other: Any) -> Tensor:
        return add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return add(other, self)

    def __sub__(self, other: Any) -> Tensor:
        return sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return mul(other, self)

    def __truediv__(self, other: Any) -> Tensor:
        return div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return div(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return pow(other, self)

    def __matmul__(self, other: Any) -> Tensor:
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return matmul(other, self)

    def __neg__(self) -> Tensor:
        return neg(self)

    # -- comparisons (elementwise, i1 result) ------------------------------ #

    def __lt__(self, other: Any) -> Tensor:
        return lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        return le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return ge(self, other)

    def __eq__(self, other: object) -> Tensor:  # pyright: ignore[reportIncompatibleMethodOverride]
        return eq(self, other)

    def __ne__(self, other: object) -> Tensor:  # pyright: ignore[reportIncompatibleMethodOverride]
        return ne(self, other)

    # -- shape methods ----------------------------------------------------- #

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """`x.reshape(2, -1)` or `x.reshape((2, -1))`; one dim may be -1."""
        return reshape(self, _varargs(shape))

    def permute(self, *perm: int | Sequence[int]) -> Tensor:
        """Result dim i is input dim perm[i] (negative dims allowed)."""
        return permute(self, _varargs(perm))

    def transpose(self, *dims: int | Sequence[int]) -> Tensor:
        """No dims: reverse all dims. Two dims: swap them (torch's
        `x.transpose(-2, -1)`). Otherwise a full permutation (numpy's)."""
        given = _varargs(dims)
        if not given:
            return transpose(self)
        if len(given) == 2:
            return swapaxes(self, given[0], given[1])
        return transpose(self, given)

    @property
    def T(self) -> Tensor:
        """All dims reversed (the 2-D transpose)."""
        return transpose(self)

    def sum(
        self, dims: int | Sequence[int] | None = None, keepdim: bool = False
    ) -> Tensor:
        return sum(self, dims, keepdim)

    def mean(
        self, dims: int | Sequence[int] | None = None, keepdim: bool = False
    ) -> Tensor:
        return mean(self, dims, keepdim)

    def max(
        self, dims: int | Sequence[int] | None = None, keepdim: bool = False
    ) -> Tensor:
        return max(self, dims, keepdim)

    def min(
        self, dims: int | Sequence[int] | None = None, keepdim: bool = False
    ) -> Tensor:
        return min(self, dims, keepdim)

    def var(
        self,
        dims: int | Sequence[int] | None = None,
        keepdim: bool = False,
        correction: int = 1,
    ) -> Tensor:
        return var(self, dims, keepdim, correction)

    def __getitem__(self, key: Any) -> Tensor:
        """Basic indexing: ints, slices with step >= 1, `...` and `None`;
        a `graph.slice` then a `graph.reshape` (each only when needed)."""
        start, limit, step, shape = _index_plan(self.shape, key)
        result = self
        if (
            list(start) != [0] * self.ndim
            or list(limit) != list(self.shape)
            or builtins.any(s != 1 for s in step)
        ):
            result = slice(self, start, limit, step)
        if tuple(shape) != result.shape:
            result = reshape(result, shape)
        return result


def _varargs(values: tuple[int | Sequence[int], ...]) -> list[int]:
    """`f(1, 2)` and `f((1, 2))` both give [1, 2]."""
    flat: list[int] = []
    for value in values:
        flat.extend([int(value)] if isinstance(value, int) else map(int, value))
    return flat


def _index_plan(
    shape: tuple[int, ...], key: object
) -> tuple[list[int], list[int], list[int], list[int]]:
    """start/limit/step of the slice and the final shape for `x[key]`."""
    items = (
        list(typing.cast("tuple[object, ...]", key))
        if isinstance(key, tuple)
        else [key]
    )
    if builtins.sum(1 for k in items if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = builtins.sum(1 for k in items if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"too many indices for a tensor of rank {len(shape)}")
    fill = [builtins.slice(None)] * (len(shape) - used)
    at = next((i for i, k in enumerate(items) if k is Ellipsis), len(items))
    items[at : at + 1] = fill
    start: list[int] = []
    limit: list[int] = []
    step: list[int] = []
    out: list[int] = []
    axis = 0
    for item in items:
        if item is None:
            out.append(1)
            continue
        size = shape[axis]
        axis += 1
        if isinstance(item, builtins.slice):
            lo, hi, st = item.indices(size)
            if st < 1:
                raise IndexError(f"slice step must be >= 1, got {item!r}")
            hi = builtins.max(hi, lo)
            start.append(lo)
            limit.append(hi)
            step.append(st)
            out.append((hi - lo + st - 1) // st)
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            given = int(typing.cast("int", item))
            index = given + size if given < 0 else given
            if not 0 <= index < size:
                raise IndexError(f"index {given} out of range for dim of size {size}")
            start.append(index)
            limit.append(index + 1)
            step.append(1)
        else:
            raise TypeError(
                f"unsupported index {item!r}: only ints, slices, ... and None"
            )
    return start, limit, step, out


OperationT = TypeVar("OperationT", bound=Operation)


def emit(make: Callable[[], OperationT], name: str, *inputs: Tensor) -> OperationT:
    """Build one op from tensors of the running trace, verify it, append it.

    `make` calls the dialect constructor; `name` is the op name used in
    errors. A shape or dtype error is re-raised as a `ValueError` that names
    the op, and the half-built op is unlinked, so the trace stays valid IR.
    """
    state = active_state(name)
    for tensor in inputs:
        if not isinstance(tensor, Tensor):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"{name}: expected a Tensor, got {type(tensor).__name__}")
        tensor.check_trace(state, f"{name}: operand {tensor!r}")
    try:
        op = make()
        if state.verify_each:
            op.verify()
    except (ShapeError, VerifyException) as error:
        _unlink_orphans(inputs)
        message = str(error)
        types = [str(t.type) for t in inputs]
        if not builtins.all(t in message for t in types):
            message = f"{message} (operands: {', '.join(types)})"
        if not message.startswith(name):
            message = f"{name}: {message}"
        raise ValueError(message) from None
    if state.frames:
        op.attributes[SCOPE] = ScopeAttr(tuple(state.frames))
    state.block.add_op(op)
    state.emitted += 1
    return op


def _unlink_orphans(inputs: Sequence[Tensor]) -> None:
    # A constructor that failed after linking its operands leaves uses by an
    # op that is in no block; drop them so use counts stay truthful.
    for tensor in inputs:
        for use in list(tensor.value.uses):
            if use.operation.parent is None:
                tensor.value.remove_use(use)


def wrap(value: SSAValue) -> Tensor:
    """A Tensor for a value of the running trace."""
    return Tensor(value, active_state("fxdsl.trace"))


# --------------------------------------------------------------------------- #
# Helpers
# --------------------------------------------------------------------------- #


def _create(
    op_cls: type[OpT], operands: Sequence[Tensor], **properties: Attribute
) -> OpT:
    """Build `op_cls` with the result type the dialect infers."""
    return op_cls.create_inferred([t.value for t in operands], properties)


def _unary(op_cls: type[graph.UnaryOp], x: Tensor) -> Tensor:
    x = _tensor(op_cls.name, x)
    return wrap(emit(lambda: op_cls(x.value), op_cls.name, x).result)


def _tensor(name: str, x: Any) -> Tensor:
    # a numpy array where a tensor is expected (layer_norm's weight) is a
    # constant, its element type from its dtype (float64 becomes f32)
    if isinstance(x, np.ndarray):
        return constant(x)
    if not isinstance(x, Tensor):
        raise TypeError(
            f"{name}: expected a Tensor or a numpy array, got {type(x).__name__}"
        )
    return x


def _lift(name: str, value: object, like: Tensor) -> Tensor:
    """`value` as a tensor of `like`'s element type (Tensors pass through).

    Scalars and numpy arrays follow one rule: no type promotion, so a
    non-integral float with an integer tensor is a TypeError, as is a value
    other than 0/1 with an i1 tensor.
    """
    if isinstance(value, Tensor):
        return value
    if not isinstance(value, np.ndarray | np.generic | bool | int | float):
        raise TypeError(
            f"{name}: cannot use {type(value).__name__} as a tensor operand"
        )
    array = np.asarray(value)
    what = "scalar" if array.ndim == 0 else "array"
    shown = array.item() if array.ndim == 0 else array
    fractional = array.dtype.kind == "f" and not np.all(
        np.isfinite(array) & (array == np.trunc(array))
    )
    if like.dtype in INTEGER_DTYPES and fractional:
        raise TypeError(
            f"{name}: float {what} {shown} with a {like.dtype} tensor "
            "(no type promotion; cast the tensor first)"
        )
    if like.dtype == "i1" and not np.isin(array, (0, 1)).all():
        raise TypeError(f"{name}: {what} {shown} is not a valid i1 value")
    if array.ndim == 0 and not isinstance(value, np.ndarray):
        return full((), array.item(), like.dtype)
    return constant(array, like.dtype)


def _pair(name: str, lhs: Any, rhs: Any) -> tuple[Tensor, Tensor]:
    if isinstance(lhs, Tensor):
        return lhs, _lift(name, rhs, lhs)
    if isinstance(rhs, Tensor):
        return _lift(name, lhs, rhs), rhs
    raise TypeError(
        f"{name}: needs at least one Tensor operand, got {type(lhs).__name__} and "
        f"{type(rhs).__name__}"
    )


def _binary(op_cls: type[graph.BinaryOp], lhs: Any, rhs: Any) -> Tensor:
    a, b = _pair(op_cls.name, lhs, rhs)
    return wrap(emit(lambda: _create(op_cls, [a, b]), op_cls.name, a, b).result)


def elementwise(op_cls: type[graph.UnaryOp | graph.BinaryOp], *operands: Any) -> Tensor:
    """`op_cls` of one operand or two (a Python number takes the other's
    element type): every elementwise graph op, including those without a
    function of their own here (`elementwise(graph.AcosOp, x)`)."""
    if issubclass(op_cls, graph.UnaryOp) and len(operands) == 1:
        return _unary(op_cls, operands[0])
    if issubclass(op_cls, graph.BinaryOp) and len(operands) == 2:
        return _binary(op_cls, *operands)
    raise TypeError(f"{op_cls.name}: got {len(operands)} operands")


def normalize_dim(name: str, dim: int, rank: int) -> int:
    """`dim` in [0, rank) (negative counts from the end) or a ValueError."""
    if not -rank <= dim < rank:
        raise ValueError(f"{name}: dim {dim} out of range for rank {rank}")
    return dim + rank if dim < 0 else dim


def _dims(name: str, x: Tensor, dims: Dims) -> list[int]:
    if dims is None:
        return []
    listed = [dims] if isinstance(dims, int) else list(dims)
    return [normalize_dim(name, int(d), x.ndim) for d in listed]


def _reduce(
    op_cls: type[graph.ReductionOp],
    x: Any,
    dims: Dims,
    keepdim: bool,
    **extra: Attribute,
) -> Tensor:
    x = _tensor(op_cls.name, x)
    props: dict[str, Attribute] = {"dims": graph.ints(_dims(op_cls.name, x, dims))}
    if keepdim:
        props["keepdim"] = UnitAttr()
    make = lambda: _create(op_cls, [x], **props, **extra)
    return wrap(emit(make, op_cls.name, x).result)


# --------------------------------------------------------------------------- #
# Elementwise unary
# --------------------------------------------------------------------------- #


def relu(x: Tensor) -> Tensor:
    return _unary(graph.ReluOp, x)


def silu(x: Tensor) -> Tensor:
    return _unary(graph.SiluOp, x)


def sigmoid(x: Tensor) -> Tensor:
    return _unary(graph.SigmoidOp, x)


def tanh(x: Tensor) -> Tensor:
    return _unary(graph.TanhOp, x)


def exp(x: Tensor) -> Tensor:
    return _unary(graph.ExpOp, x)


def log(x: Tensor) -> Tensor:
    return _unary(graph.LogOp, x)


def sqrt(x: Tensor) -> Tensor:
    return _unary(graph.SqrtOp, x)


def rsqrt(x: Tensor) -> Tensor:
    return _unary(graph.RsqrtOp, x)


def erf(x: Tensor) -> Tensor:
    return _unary(graph.ErfOp, x)


def sin(x: Tensor) -> Tensor:
    return _unary(graph.SinOp, x)


def cos(x: Tensor) -> Tensor:
    return _unary(graph.CosOp, x)


def abs(x: Tensor) -> Tensor:
    return _unary(graph.AbsOp, x)


def neg(x: Tensor) -> Tensor:
    return _unary(graph.NegOp, x)


def reciprocal(x: Tensor) -> Tensor:
    return _unary(graph.ReciprocalOp, x)


def logical_not(x: Tensor) -> Tensor:
    """`!x` on an i1 tensor."""
    return _unary(graph.LogicalNotOp, x)


def hardswish(x: Tensor) -> Tensor:
    """torch's hardswish, `x * min(max(x + 3, 0), 6) / 6` (float tensors)."""
    return _unary(graph.HardswishOp, x)


def hardsigmoid(x: Tensor) -> Tensor:
    """torch's hardsigmoid, `min(max(x + 3, 0), 6) / 6` (float tensors)."""
    return _unary(graph.HardsigmoidOp, x)


def clamp(x: Tensor, min: float | None = None, max: float | None = None) -> Tensor:
    """torch.clamp with scalar bounds (at least one); an integer tensor takes
    integral bounds only (no type promotion)."""
    name = graph.ClampOp.name
    x = _tensor(name, x)
    return wrap(emit(lambda: graph.ClampOp(x.value, min, max), name, x).result)


def gelu(x: Tensor, approximate: str = "none") -> Tensor:
    """GELU, erf form (`"none"`) or tanh form (`"tanh"`)."""
    name = graph.GeluOp.name
    x = _tensor(name, x)
    return wrap(emit(lambda: graph.GeluOp(x.value, approximate), name, x).result)


def cast(x: Tensor, dtype: str | Attribute) -> Tensor:
    """Element type conversion (numpy `astype`)."""
    name = graph.CastOp.name
    x = _tensor(name, x)
    target = dtype_attr(dtype)
    return wrap(emit(lambda: graph.CastOp(x.value, target), name, x).result)


def bitcast(x: Tensor, dtype: str | Attribute) -> Tensor:
    """The same bits as another element type of the same width (numpy
    `view`)."""
    name = graph.BitcastOp.name
    x = _tensor(name, x)
    target = dtype_attr(dtype)
    return wrap(emit(lambda: graph.BitcastOp(x.value, target), name, x).result)


# --------------------------------------------------------------------------- #
# Elementwise binary, comparisons, select
# --------------------------------------------------------------------------- #


def add(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.AddOp, lhs, rhs)


def sub(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.SubOp, lhs, rhs)


def mul(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.MulOp, lhs, rhs)


def div(lhs: Any, rhs: Any) -> Tensor:
    """True division for floats; integer tensors floor-divide."""
    return _binary(graph.DivOp, lhs, rhs)


def pow(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.PowOp, lhs, rhs)


def maximum(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.MaximumOp, lhs, rhs)


def minimum(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.MinimumOp, lhs, rhs)


def eq(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.EqOp, lhs, rhs)


def ne(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.NeOp, lhs, rhs)


def lt(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.LtOp, lhs, rhs)


def le(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.LeOp, lhs, rhs)


def gt(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.GtOp, lhs, rhs)


def ge(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.GeOp, lhs, rhs)


def logical_and(lhs: Any, rhs: Any) -> Tensor:
    """`lhs && rhs` on i1 tensors (numpy broadcasting)."""
    return _binary(graph.LogicalAndOp, lhs, rhs)


def logical_or(lhs: Any, rhs: Any) -> Tensor:
    """`lhs || rhs` on i1 tensors (numpy broadcasting)."""
    return _binary(graph.LogicalOrOp, lhs, rhs)


def bitwise_and(lhs: Any, rhs: Any) -> Tensor:
    """`lhs & rhs` on integer (or i1) tensors."""
    return _binary(graph.BitwiseAndOp, lhs, rhs)


def bitwise_or(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.BitwiseOrOp, lhs, rhs)


def bitwise_xor(lhs: Any, rhs: Any) -> Tensor:
    return _binary(graph.BitwiseXorOp, lhs, rhs)


def bitwise_not(x: Tensor) -> Tensor:
    """`~x` on an integer tensor (`!x` on i1)."""
    return _unary(graph.BitwiseNotOp, x)


def shift_left(lhs: Any, rhs: Any) -> Tensor:
    """`lhs << rhs`, wrapping; 0 for a shift outside [0, width)."""
    return _binary(graph.ShiftLeftOp, lhs, rhs)


def shift_right(lhs: Any, rhs: Any) -> Tensor:
    """`lhs >> rhs` (arithmetic; logical for ui8); the sign fill for a
    shift outside [0, width)."""
    return _binary(graph.ShiftRightOp, lhs, rhs)


def gcd(lhs: Any, rhs: Any) -> Tensor:
    """The greatest common divisor of `|lhs|` and `|rhs|` (integers)."""
    return _binary(graph.GcdOp, lhs, rhs)


def _scalar_dtype(*values: Any) -> str:
    """torch's dtype for Python scalars alone: bool, else i64, f32 with a float."""
    kinds = {np.asarray(v).dtype.kind for v in values}
    if kinds == {"b"}:
        return "i1"
    return "f32" if kinds & {"f"} else "i64"


def where(cond: Tensor, lhs: Any, rhs: Any, dtype: str | None = None) -> Tensor:
    """`cond ? lhs : rhs` elementwise; `cond` is i1. Either of lhs/rhs may be
    a Python scalar (a rank-0 `graph.full` of the other's element type); when
    both are, their type is `dtype`, by default torch's: f32 if either is a
    float, i1 if both are bools, else i64."""
    name = graph.SelectOp.name
    c = _tensor(name, cond)
    if not isinstance(lhs, Tensor) and not isinstance(rhs, Tensor):
        kind = dtype or _scalar_dtype(lhs, rhs)
        if kind in INTEGER_DTYPES and float(lhs) != int(lhs):
            raise TypeError(f"{name}: float scalar {lhs} as {kind} (no type promotion)")
        lhs = full((), float(lhs), kind)
    a, b = _pair(name, lhs, rhs)
    make = lambda: _create(graph.SelectOp, [c, a, b])
    return wrap(emit(make, name, c, a, b).result)


select = where


# --------------------------------------------------------------------------- #
# Reductions and normalisations
# --------------------------------------------------------------------------- #


def sum(x: Tensor, dims: Dims = None, keepdim: bool = False) -> Tensor:
    """Sum over `dims` (an int, a sequence, or None for all dims)."""
    return _reduce(graph.SumOp, x, dims, keepdim)


def mean(x: Tensor, dims: Dims = None, keepdim: bool = False) -> Tensor:
    return _reduce(graph.MeanOp, x, dims, keepdim)


def max(x: Tensor, dims: Dims = None, keepdim: bool = False) -> Tensor:
    """Maximum over `dims` (values only, no indices)."""
    return _reduce(graph.MaxOp, x, dims, keepdim)


def min(x: Tensor, dims: Dims = None, keepdim: bool = False) -> Tensor:
    return _reduce(graph.MinOp, x, dims, keepdim)


def any(x: Tensor, dims: Dims = None, keepdim: bool = False) -> Tensor:
    """True where some element of the i1 tensor `x` over `dims` is true."""
    return _reduce(graph.AnyOp, x, dims, keepdim)


def all(x: Tensor, dims: Dims = None, keepdim: bool = False) -> Tensor:
    """True where every element of the i1 tensor `x` over `dims` is true."""
    return _reduce(graph.AllOp, x, dims, keepdim)


def var(
    x: Tensor, dims: Dims = None, keepdim: bool = False, correction: int = 1
) -> Tensor:
    """Variance; `correction=1` is torch's unbiased default, 0 the biased one."""
    correction_attr = IntegerAttr(correction, i64)
    return _reduce(graph.VarOp, x, dims, keepdim, correction=correction_attr)


def _softmax(op_cls: type[graph.SoftmaxLikeOp], x: Tensor, dim: int) -> Tensor:
    x = _tensor(op_cls.name, x)
    d = normalize_dim(op_cls.name, dim, x.ndim)
    return wrap(emit(lambda: op_cls(x.value, d), op_cls.name, x).result)


def softmax(x: Tensor, dim: int = -1) -> Tensor:
    return _softmax(graph.SoftmaxOp, x, dim)


def log_softmax(x: Tensor, dim: int = -1) -> Tensor:
    return _softmax(graph.LogSoftmaxOp, x, dim)


def cumsum(x: Tensor, dim: int) -> Tensor:
    """torch.cumsum along `dim`, in `x`'s element type (no promotion)."""
    name = graph.CumsumOp.name
    x = _tensor(name, x)
    d = normalize_dim(name, dim, x.ndim)
    return wrap(emit(lambda: graph.CumsumOp(x.value, d), name, x).result)


def layer_norm(x: Tensor, weight: Tensor, bias: Tensor, eps: float = 1e-5) -> Tensor:
    """Layer norm over the trailing dims given by `weight`'s shape."""
    name = graph.LayerNormOp.name
    x, w, b = (_tensor(name, t) for t in (x, weight, bias))
    make = lambda: graph.LayerNormOp(x.value, w.value, b.value, eps)
    return wrap(emit(make, name, x, w, b).result)


# --------------------------------------------------------------------------- #
# Contractions
# --------------------------------------------------------------------------- #


def matmul(lhs: Any, rhs: Any, dtype: str | None = None) -> Tensor:
    """numpy.matmul (batched, broadcasting, 1-D operands promoted).
    `dtype="f32"` on bf16/f16 operands: the product stored in f32, not
    rounded to the operands' type (see `graph.MatmulOp`)."""
    name = graph.MatmulOp.name
    a, b = _pair(name, lhs, rhs)
    element = None if dtype is None else dtype_attr(dtype)
    make = lambda: graph.MatmulOp(a.value, b.value, element)
    return wrap(emit(make, name, a, b).result)


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """`x @ weight.T + bias`, weight in torch layout (out, in)."""
    name = graph.LinearOp.name
    operands = [_tensor(name, t) for t in (x, weight, bias) if t is not None]
    make = lambda: _create(graph.LinearOp, operands)
    return wrap(emit(make, name, *operands).result)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    is_causal: bool = False,
    scale: float | None = None,
) -> Tensor:
    """`softmax(q @ k^T * scale + mask) @ v` as one `graph.attention` op
    (torch's signature; `scale` defaults to 1/sqrt(head dim)). `attn_mask`
    broadcasts to (..., T, S): i1 (true: attend) or additive, of the query's
    type. Unlike torch, `attn_mask` and `is_causal` may be given together
    (both apply). A row with every key masked gives zeros, as torch."""
    name = graph.AttentionOp.name
    q, k, v = (_tensor(name, t) for t in (query, key, value))
    masks = [] if attn_mask is None else [_tensor(name, attn_mask)]
    factor = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    mask = masks[0].value if masks else None
    make = lambda: graph.AttentionOp(
        q.value, k.value, v.value, factor, is_causal, mask=mask
    )
    return wrap(emit(make, name, q, k, v, *masks).result)


# --------------------------------------------------------------------------- #
# Convolution, pooling and batch norm (torch.nn.functional's signatures)
# --------------------------------------------------------------------------- #

Window = int | Sequence[int]


def _conv(
    op_cls: type[graph.ConvOp],
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Window,
    padding: Window,
    dilation: Window,
    groups: int,
    dtype: str | None = None,
) -> Tensor:
    name = op_cls.name
    operands = [_tensor(name, t) for t in (x, weight, bias) if t is not None]
    value = [t.value for t in operands]
    element = None if dtype is None else dtype_attr(dtype)
    make = lambda: op_cls(
        value[0],
        value[1],
        value[2] if len(value) > 2 else None,
        stride,
        padding,
        dilation,
        groups,
        element,
    )
    return wrap(emit(make, name, *operands).result)


def conv2d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Window = 1,
    padding: Window = 0,
    dilation: Window = 1,
    groups: int = 1,
    dtype: str | None = None,
) -> Tensor:
    """2-D convolution, NCHW, weight (out, in / groups, kh, kw); an int
    stride, padding or dilation applies to both spatial dims. `dtype="f32"`
    on bf16/f16 operands: the sums stored in f32 (see `graph.ConvOp`)."""
    return _conv(
        graph.Conv2dOp, x, weight, bias, stride, padding, dilation, groups, dtype
    )


def conv1d(
    x: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Window = 1,
    padding: Window = 0,
    dilation: Window = 1,
    groups: int = 1,
    dtype: str | None = None,
) -> Tensor:
    """1-D convolution, NCW, weight (out, in / groups, k); `dtype` as
    `conv2d`'s."""
    return _conv(
        graph.Conv1dOp, x, weight, bias, stride, padding, dilation, groups, dtype
    )


def max_pool2d(
    x: Tensor,
    kernel_size: Window,
    stride: Window | None = None,
    padding: Window = 0,
    dilation: Window = 1,
    ceil_mode: bool = False,
) -> Tensor:
    """Max pooling over H and W of an NCHW tensor; stride defaults to the
    kernel size (values only, no indices)."""
    name = graph.MaxPool2dOp.name
    x = _tensor(name, x)
    make = lambda: graph.MaxPool2dOp(
        x.value, kernel_size, stride, padding, dilation, ceil_mode
    )
    return wrap(emit(make, name, x).result)


def avg_pool2d(
    x: Tensor,
    kernel_size: Window,
    stride: Window | None = None,
    padding: Window = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """Average pooling over H and W of an NCHW tensor; stride defaults to
    the kernel size; `divisor_override` divides every window instead of
    its size."""
    name = graph.AvgPool2dOp.name
    x = _tensor(name, x)
    make = lambda: graph.AvgPool2dOp(
        x.value,
        kernel_size,
        stride,
        padding,
        ceil_mode,
        count_include_pad,
        divisor_override,
    )
    return wrap(emit(make, name, x).result)


def adaptive_avg_pool2d(x: Tensor, output_size: Window) -> Tensor:
    """torch's adaptive_avg_pool2d on an NCHW tensor (an int size is square;
    None in a pair keeps that input dim)."""
    name = graph.AdaptiveAvgPool2dOp.name
    x = _tensor(name, x)
    sizes = [output_size] * 2 if isinstance(output_size, int) else list(output_size)
    if len(sizes) != 2 or x.ndim != 4:
        raise ValueError(
            f"{name}: needs an NCHW tensor and two output sizes, got {x.shape} and "
            f"{output_size}"
        )
    out = [x.shape[2 + i] if s is None else int(s) for i, s in enumerate(sizes)]
    make = lambda: graph.AdaptiveAvgPool2dOp(x.value, out)
    return wrap(emit(make, name, x).result)


def batch_norm(
    x: Tensor,
    running_mean: Tensor,
    running_var: Tensor,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Batch norm in inference over channel dim 1, with the running
    statistics; a missing weight is ones, a missing bias zeros."""
    name = graph.BatchNormOp.name
    x = _tensor(name, x)
    channels = [x.shape[1]] if x.ndim > 1 else []
    w = full(channels, 1.0, x.dtype) if weight is None else _tensor(name, weight)
    b = full(channels, 0.0, x.dtype) if bias is None else _tensor(name, bias)
    mean, var = _tensor(name, running_mean), _tensor(name, running_var)
    operands = (x, mean, var, w, b)
    make = lambda: graph.BatchNormOp(*(t.value for t in operands), eps=eps)
    return wrap(emit(make, name, *operands).result)


# --------------------------------------------------------------------------- #
# Data movement
# --------------------------------------------------------------------------- #


def reshape(x: Tensor, shape: Sequence[int]) -> Tensor:
    """Row-major reshape; at most one dim may be -1 (inferred)."""
    name = graph.ReshapeOp.name
    x = _tensor(name, x)
    target = [int(d) for d in shape]
    if target.count(-1) > 1 or builtins.any(d < -1 for d in target):
        raise ValueError(f"{name}: bad target shape {tuple(target)}")
    if -1 in target:
        known = math.prod(d for d in target if d != -1)
        numel = math.prod(x.shape)
        if known == 0 or numel % known:
            raise ValueError(f"{name}: cannot reshape {x.shape} to {tuple(target)}")
        target[target.index(-1)] = numel // known
    return wrap(emit(lambda: graph.ReshapeOp(x.value, target), name, x).result)


def transpose(x: Tensor, perm: Sequence[int] | None = None) -> Tensor:
    """Result dim i is input dim perm[i]; no perm reverses all dims."""
    name = graph.TransposeOp.name
    x = _tensor(name, x)
    if perm is None:
        order = list(reversed(range(x.ndim)))
    else:
        order = [normalize_dim(name, int(p), x.ndim) for p in perm]
    make = lambda: _create(graph.TransposeOp, [x], perm=graph.ints(order))
    return wrap(emit(make, name, x).result)


permute = transpose


def swapaxes(x: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims (torch's `transpose(dim0, dim1)`)."""
    name = graph.TransposeOp.name
    x = _tensor(name, x)
    a, b = normalize_dim(name, dim0, x.ndim), normalize_dim(name, dim1, x.ndim)
    order = list(range(x.ndim))
    order[a], order[b] = order[b], order[a]
    return transpose(x, order)


def broadcast_to(x: Tensor, shape: Sequence[int]) -> Tensor:
    name = graph.BroadcastToOp.name
    x = _tensor(name, x)
    target = [int(d) for d in shape]
    return wrap(emit(lambda: graph.BroadcastToOp(x.value, target), name, x).result)


def slice(
    x: Tensor,
    start: Sequence[int],
    limit: Sequence[int],
    step: Sequence[int] | None = None,
) -> Tensor:
    """`x[start[0]:limit[0]:step[0], ...]`, one entry per dim, Python slice
    semantics (negative bounds count from the end, bounds clamp); step >= 1."""
    name = graph.SliceOp.name
    x = _tensor(name, x)
    steps = [1] * x.ndim if step is None else [int(s) for s in step]
    if not len(start) == len(limit) == len(steps) == x.ndim:
        raise ValueError(
            f"{name}: start/limit/step need {x.ndim} entries each, got "
            f"{len(start)}/{len(limit)}/{len(steps)}"
        )
    if builtins.any(s < 1 for s in steps):
        raise ValueError(f"{name}: steps must be >= 1, got {steps}")
    bounds = [
        builtins.slice(int(lo), int(hi), st).indices(size)
        for lo, hi, st, size in zip(start, limit, steps, x.shape)
    ]
    lows = [lo for lo, _, _ in bounds]
    highs = [builtins.max(hi, lo) for lo, hi, _ in bounds]
    make = lambda: _create(
        graph.SliceOp,
        [x],
        start=graph.ints(lows),
        limit=graph.ints(highs),
        step=graph.ints(steps),
    )
    return wrap(emit(make, name, x).result)


def concat(xs: Sequence[Tensor], dim: int = 0) -> Tensor:
    name = graph.ConcatOp.name
    inputs = [_tensor(name, t) for t in xs]
    if not inputs:
        raise ValueError(f"{name}: needs at least one input")
    d = normalize_dim(name, dim, inputs[0].ndim)
    make = lambda: _create(graph.ConcatOp, inputs, dim=IntegerAttr(d, i64))
    return wrap(emit(make, name, *inputs).result)


def split(x: Tensor, sizes: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """Split along `dim` into pieces of `sizes`; an int size gives equal
    chunks of that size (the last may be smaller), as torch.split."""
    name = graph.SplitOp.name
    x = _tensor(name, x)
    d = normalize_dim(name, dim, x.ndim)
    if isinstance(sizes, int):
        if sizes < 1:
            raise ValueError(f"{name}: chunk size must be >= 1, got {sizes}")
        total = x.shape[d]
        pieces = [builtins.min(sizes, total - i) for i in range(0, total, sizes)]
    else:
        pieces = [int(s) for s in sizes]
    op = emit(lambda: graph.SplitOp(x.value, d, pieces), name, x)
    return tuple(wrap(r) for r in op.results)


def gather(x: Tensor, dim: int, index: Tensor) -> Tensor:
    """torch.gather: `out[i][j] = x[index[i][j]][j]` for dim 0."""
    name = graph.GatherOp.name
    x, idx = _tensor(name, x), _tensor(name, index)
    d = normalize_dim(name, dim, x.ndim)
    return wrap(
        emit(lambda: graph.GatherOp(x.value, idx.value, d), name, x, idx).result
    )


def index(x: Tensor, indices: Sequence[Tensor | None]) -> Tensor:
    """torch's `x[indices]` (`aten.index.Tensor`): one entry per leading dim
    of `x`, an i64/i32 index Tensor or None (that dim kept whole); the index
    tensors broadcast together, and their shape replaces the indexed dims in
    place when those are adjacent, else it comes first. Negative indices
    count from the end."""
    name = graph.IndexOp.name
    x = _tensor(name, x)
    if len(indices) > x.ndim:
        raise ValueError(f"{name}: {len(indices)} indices for a rank-{x.ndim} tensor")
    dims = [d for d, t in enumerate(indices) if t is not None]
    tensors = [_tensor(name, indices[d]) for d in dims]
    if not tensors:
        raise ValueError(f"{name}: needs at least one index tensor, got only None")
    make = lambda: graph.IndexOp(x.value, [t.value for t in tensors], dims)
    return wrap(emit(make, name, x, *tensors).result)


def index_copy(x: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """torch's `x.index_copy(dim, index, source)`: `x` with the slices at the
    1-D i64/i32 `index` along `dim` replaced by `source`'s (a static KV
    cache's update). A new value: `x` itself is not changed."""
    name = graph.IndexCopyOp.name
    x, idx, src = _tensor(name, x), _tensor(name, index), _tensor(name, source)
    d = normalize_dim(name, dim, x.ndim)
    make = lambda: graph.IndexCopyOp(x.value, idx.value, src.value, d)
    return wrap(emit(make, name, x, idx, src).result)


def index_add(
    x: Tensor, dim: int, index: Tensor, source: Tensor, order: Tensor | None = None
) -> Tensor:
    """torch's `x.index_add(dim, index, source)`: `x` with each slice of
    `source` along `dim` added to the slice the 1-D i64/i32 `index` names
    (a repeated index sums). A new value: `x` itself is not changed.
    `order`, a stable argsort of `index` (i64), makes the GPU kernel's cost
    the result's plus the source's instead of the result's times the
    index's (`graph.IndexAddOp`)."""
    name = graph.IndexAddOp.name
    x, idx, src = _tensor(name, x), _tensor(name, index), _tensor(name, source)
    d = normalize_dim(name, dim, x.ndim)
    sort = [] if order is None else [_tensor(name, order)]
    sort_value = sort[0].value if sort else None
    make = lambda: graph.IndexAddOp(x.value, idx.value, src.value, d, sort_value)
    return wrap(emit(make, name, x, idx, src, *sort).result)


def embedding(indices: Tensor, weight: Tensor) -> Tensor:
    """Rows of `weight` (num, dim) selected by integer `indices`."""
    name = graph.EmbeddingOp.name
    ids, w = _tensor(name, indices), _tensor(name, weight)
    make = lambda: graph.EmbeddingOp(ids.value, w.value)
    return wrap(emit(make, name, ids, w).result)


# --------------------------------------------------------------------------- #
# Constants
# --------------------------------------------------------------------------- #


def constant(value: Any, dtype: str | None = None) -> Tensor:
    """A `graph.constant` holding `value` (array-like). The element type is
    `dtype` or follows the numpy dtype (float64 becomes f32)."""
    array: np.ndarray[Any, np.dtype[Any]] = np.asarray(value)
    name = graph.ConstantOp.name
    target = dtype or numpy_dtype_name(array.dtype)
    element = dtype_attr(target)
    convert = int if target in INTEGER_DTYPES else float
    flat = [convert(v) for v in array.ravel().tolist()]
    typ = TensorType(element, list(array.shape))
    # from_list's overloads are per element class; dtype_attr only returns
    # float and integer types, which it accepts.
    from_list: Any = DenseIntOrFPElementsAttr.from_list
    attr: DenseIntOrFPElementsAttr[Any] = from_list(typ, flat)
    return wrap(emit(lambda: graph.ConstantOp(attr), name).result)


def full(shape: Sequence[int], value: float, dtype: str = "f32") -> Tensor:
    """A tensor of `shape` filled with `value` (`graph.full`, whose value
    is a float64: an integer it cannot hold exactly, such as int64's
    largest, is a 0-d `graph.constant` broadcast instead)."""
    name = graph.FullOp.name
    element = dtype_attr(dtype)
    dims = [int(d) for d in shape]
    if dtype in INTEGER_DTYPES and dtype != "i1" and _beyond_f64(value):
        exact = np.asarray(int(value), dtype=numpy_dtype(element))
        return broadcast_to(constant(exact, dtype), dims)
    return wrap(emit(lambda: graph.FullOp(dims, value, element), name).result)


def _beyond_f64(value: Any) -> bool:
    """Whether `value` is an integer that a float64 does not hold exactly."""
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        return False
    return int(float(value)) != int(value)


def arange(start: float, end: float, step: float = 1, dtype: str = "i64") -> Tensor:
    """torch.arange(start, end, step): `ceil((end - start) / step)` elements
    `start + i * step` of `dtype` (a `graph.arange`)."""
    name = graph.ArangeOp.name
    if step == 0 or not builtins.all(map(math.isfinite, (start, end, step))):
        raise ValueError(f"{name}: start, end and step must be finite, step nonzero")
    length = math.ceil((end - start) / step)
    if length < 0:
        raise ValueError(
            f"{name}: end {end} is not reachable from start {start} with step {step}"
        )
    element = dtype_attr(dtype)
    make = lambda: graph.ArangeOp(start, step, length, element)
    return wrap(emit(make, name).result)


def random(
    seed: Tensor, distribution: str, shape: Sequence[int], dtype: str = "f32"
) -> Tensor:
    """Random numbers of `shape` (`graph.random`): `distribution` "uniform"
    ([0, 1)) or "normal" (standard) of a float `dtype`, or "bits" (i64, 32
    random bits); `seed` is `[key, offset]` (`tensor<2xi64>`): the same seed
    gives the same numbers."""
    name = graph.RandomOp.name
    element, dims = dtype_attr(dtype), [int(d) for d in shape]
    make = lambda: graph.RandomOp.of(seed.value, distribution, dims, element)
    return wrap(emit(make, name, seed).result)


__all__ = [
    "Tensor",
    "abs",
    "adaptive_avg_pool2d",
    "add",
    "all",
    "any",
    "arange",
    "avg_pool2d",
    "batch_norm",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "broadcast_to",
    "cast",
    "clamp",
    "concat",
    "constant",
    "conv1d",
    "conv2d",
    "cos",
    "cumsum",
    "div",
    "elementwise",
    "embedding",
    "eq",
    "erf",
    "exp",
    "full",
    "gather",
    "gcd",
    "ge",
    "gelu",
    "gt",
    "hardsigmoid",
    "hardswish",
    "index",
    "index_add",
    "index_copy",
    "layer_norm",
    "le",
    "linear",
    "log",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "lt",
    "matmul",
    "max",
    "max_pool2d",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mul",
    "ne",
    "neg",
    "normalize_dim",
    "permute",
    "pow",
    "random",
    "reciprocal",
    "relu",
    "reshape",
    "rsqrt",
    "scaled_dot_product_attention",
    "select",
    "shift_left",
    "shift_right",
    "sigmoid",
    "silu",
    "sin",
    "slice",
    "softmax",
    "split",
    "sqrt",
    "sub",
    "sum",
    "swapaxes",
    "tanh",
    "transpose",
    "var",
    "where",
]  # fmt: skip
