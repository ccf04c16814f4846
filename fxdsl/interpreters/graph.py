"""Reference semantics of the `graph` dialect, as xDSL interpreter functions.

Values are numpy arrays of exactly the dtype and shape of their IR type
(`fxdsl.ir.dtypes.numpy_dtype`). Semantics follow PyTorch:

- gelu: erf form `0.5 x (1 + erf(x / sqrt 2))` by default, tanh form
  `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))` with `approximate "tanh"`.
- div: true division for floats; integers floor-divide (torch `//`, rounding
  toward minus infinity). Integer division by zero gives 0 (numpy's rule;
  torch raises). Integer pow with a negative exponent is an error (as torch).
- var: `sum((x - mean)^2) / (N - correction)`, `correction` default 1.
- layer_norm: over the trailing dims given by the weight's rank, biased
  variance, `(x - mean) / sqrt(var + eps) * weight + bias`.
- softmax / log_softmax subtract the max along `dim` first (stable).
- reductions over `dims` (empty: every dim), `keepdim` keeps size-1 dims.
- gather: torch.gather (the index may be smaller than the input outside
  `dim`); gather and embedding indices out of range are an error.
- clamp: `min(max(x, min), max)` with the bounds in the tensor's dtype
  (NaN propagates; `min > max` gives `max`); hardsigmoid
  `min(max(x + 3, 0), 6) / 6` and hardswish `x * min(max(x + 3, 0), 6) / 6`
  in torch's order of operations.
- cumsum: running sum in the input's dtype (f16 in float32, rounded once).
- random: Philox4x32-10 (`graph.RandomOp`; `interpreters/random.py`).
- arange: `start + i * step` in int64 (integer results) or float64, then
  converted (torch's CPU accumulation types).
- index_copy: torch's `index_copy` on a copy of the input (the input is
  never changed); out of range is an error, a repeated index keeps the last
  source slice. index_add: the slices added in index order, each sum
  rounded to a 16-bit type (torch's CPU kernels).
- index: torch's advanced indexing (numpy's rule for where the indexed dims
  go); negative indices count from the end, out of range is an error.
- attention: torch's SDPA; an i1 mask sets masked scores to -inf, another
  mask is added to the scaled scores; a row whose scores are all -inf gives
  zeros (torch 2.13), not NaN.
- cast: numpy `astype` (float -> int truncates toward zero, x -> i1 is x != 0).
- conv1d/conv2d: torch's cross-correlation with zero padding, per group,
  as one matmul per group over the windows (im2col); max_pool2d pads with
  -inf; avg_pool2d's divisor (unless `divisor_override`) and
  adaptive_avg_pool2d's windows follow torch's CPU kernels; batch_norm
  computes `x * alpha + beta` with
  `alpha = weight * (1 / sqrt(var + eps))`, `beta = bias - mean * alpha`, torch's
  CPU order of operations.

Precision: every op computes in its tensor's dtype, except that
- f16 is computed in float32 and rounded back to float16 after each op;
- bf16 (numpy has none) is held as float32 arrays whose values are rounded to
  bf16 precision (nearest-even on the upper 16 bits) after every op.
Float exceptions (overflow, log of a negative, 0/0) give inf/nan silently.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import DenseArrayBase, IntegerType, TensorType, bf16, f16
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)
from xdsl.ir import Attribute, Operation

from fxdsl.interpreters.erf import erf
from fxdsl.interpreters.random import random_values
from fxdsl.ir import graph
from fxdsl.ir.dtypes import (
    from_bytes,
    is_bf16,
    numpy_dtype,
    round_to_bf16,
    to_element_type,
)
from fxdsl.ir.utils import location_of

Array = np.ndarray[Any, Any]
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


class InterpretationFailure(ValueError):
    """A graph op cannot run on its inputs (index out of range, ...).

    `message` names the op; `where` is its `file:line:col` when known.
    """

    def __init__(self, message: str, where: str | None = None):
        super().__init__(f"{where}: {message}" if where else message)
        self.message = message
        self.where = where


class IndexOutOfRange(InterpretationFailure, IndexError):
    """An index out of its dim's range: an IndexError too, as torch's
    eager indexing raises (code that catches torch's catches fxdsl's)."""


def _fail(op: Operation, message: str) -> InterpretationFailure:
    return InterpretationFailure(f"{op.name}: {message}", location_of(op))


def _out_of_range(op: Operation, message: str) -> IndexOutOfRange:
    return IndexOutOfRange(f"{op.name}: {message}", location_of(op))


def _widen(value: Array) -> Array:
    """f16 is computed in float32 (see the module docstring)."""
    return value.astype(np.float32) if value.dtype == np.float16 else value


def _max_along(x: Array, dim: int) -> Array:
    # initial=-inf: a softmax over a size-0 dim is empty (as in torch), not
    # numpy's "zero-size array to reduction operation maximum"
    return np.max(x, axis=dim, keepdims=True, initial=-np.inf)


def _ints(attr: DenseArrayBase[Any]) -> tuple[int, ...]:
    # The dialect's int-list properties (perm, start, sizes, ...) hold i64.
    return cast(DenseArrayBase[IntegerType], attr).get_values()


def _finish(op: Operation, *values: Any) -> tuple[Array, ...]:
    """Convert computed values to the exact dtype of the op's result types."""
    return tuple(
        to_element_type(value, graph.dtype_of(result))
        for value, result in zip(values, op.results, strict=True)
    )


# --------------------------------------------------------------------------- #
# Elementwise math
# --------------------------------------------------------------------------- #


def _sigmoid(x: Array) -> Array:
    # exp(-log(1 + exp(-x))) never overflows, for either sign of x.
    return np.exp(-np.logaddexp(0, -x))


def _relu6_of_x_plus_3(x: Array) -> Array:
    # torch's order of operations for hardsigmoid / hardswish
    three, six = x.dtype.type(3), x.dtype.type(6)
    return np.minimum(np.maximum(x + three, x.dtype.type(0)), six)


def arange_values(op: graph.ArangeOp) -> Array:
    """The elements of `op` before conversion: int64 for integer results,
    float64 otherwise (torch's CPU accumulation types)."""
    (length,) = graph.shape_of(op.result)
    start, step = op.start_value, op.step_value
    if graph.dtype_of(op.result) in graph.FLOAT_TYPES:
        return start + step * np.arange(length, dtype=np.float64)
    return int(start) + int(step) * np.arange(length, dtype=np.int64)


def integer_power(base: Array, exponent: Array) -> Array:
    """torch's pow of integer tensors: wrapping, and for a negative
    exponent 1 where the base is 1, +-1 where it is -1 (by the exponent's
    parity), else 0 (numpy raises instead)."""
    base, exponent = np.broadcast_arrays(np.asarray(base), np.asarray(exponent))
    negative = exponent < 0
    result = np.power(base, np.where(negative, 0, exponent))
    odd = (exponent % 2).astype(bool)
    inverse = np.where(base == 1, 1, np.where(base == -1, np.where(odd, -1, 1), 0))
    return np.where(negative, inverse, result).astype(result.dtype)


def _power(lhs: Array, rhs: Array) -> Array:
    if np.issubdtype(lhs.dtype, np.integer):
        return integer_power(lhs, rhs)
    return np.power(lhs, rhs)


def _div(lhs: Array, rhs: Array) -> Array:
    if np.issubdtype(lhs.dtype, np.integer):
        return np.floor_divide(lhs, rhs)
    return np.true_divide(lhs, rhs)


def _windows(
    x: Array,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    dilation: tuple[int, ...],
    out: tuple[int, ...],
) -> Array:
    """Strided view of x (N, C, *spatial, already padded) as (N, C, *out,
    *kernel): the window of every output position."""
    spans = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    spatial = tuple(range(2, x.ndim))
    view = np.lib.stride_tricks.sliding_window_view(x, spans, axis=spatial)
    picks = tuple(slice(0, (o - 1) * s + 1, s) for o, s in zip(out, stride))
    taps = tuple(slice(None, None, d) for d in dilation)
    return view[(slice(None), slice(None), *picks, *taps)]


def _pad_spatial(
    x: Array, out: tuple[int, ...], fill: float, op: graph.Pool2dOp
) -> Array:
    """x padded by `padding` on both sides of each spatial dim, and on the
    right as far as a ceil_mode window reaches."""
    widths = [(0, 0), (0, 0)]
    for axis, p in enumerate(op.padding_list):
        size = x.shape[2 + axis]
        span = op.dilation_list[axis] * (op.kernel_list[axis] - 1) + 1
        reach = (out[axis] - 1) * op.stride_list[axis] + span
        widths.append((p, max(p, reach - size - p)))
    return np.pad(x, widths, constant_values=fill)


def _conv(op: graph.ConvOp, x: Array, weight: Array, *bias: Array) -> Array:
    out = graph.shape_of(op.result)[2:]
    widths = [(0, 0), (0, 0), *((p, p) for p in op.padding_list)]
    kernel = weight.shape[2:]
    windows = _windows(np.pad(x, widths), kernel, op.stride_list, op.dilation_list, out)
    n, channels, groups = x.shape[0], x.shape[1], op.group_count
    per_group = channels // groups
    # (N, G, C/G, *out, *kernel) -> (N, G, prod(out), C/G * prod(kernel))
    grouped = windows.reshape(n, groups, per_group, *out, *kernel)
    columns = np.moveaxis(grouped, 2, 2 + len(out)).reshape(
        n, groups, math.prod(out), per_group * math.prod(kernel)
    )
    filters = weight.reshape(groups, weight.shape[0] // groups, -1)
    y = np.matmul(columns, np.swapaxes(filters, 1, 2))  # (N, G, P, O/G)
    y = np.swapaxes(y, 2, 3).reshape(n, weight.shape[0], *out)
    return y + bias[0].reshape(-1, *[1] * len(out)) if bias else y


def _axis_divisors(op: graph.AvgPool2dOp, size: int, axis: int, out: int) -> Array:
    """torch's divisor along one axis for each output position: the window
    clipped to the padded input, or to the input alone."""
    k, s, p = op.kernel_list[axis], op.stride_list[axis], op.padding_list[axis]
    start = np.arange(out) * s - p
    end = np.minimum(start + k, size + p)
    if op.includes_padding:
        return (end - start).astype(np.float64)
    return (np.minimum(end, size) - np.maximum(start, 0)).astype(np.float64)


def avg_pool_divisors(op: graph.AvgPool2dOp) -> Array:
    """The divisor of each output position of an avg_pool2d, (OH, OW):
    `divisor_override` where set, else torch's (the clipped window's area,
    the product of its clipped lengths per axis)."""
    spatial, out = graph.shape_of(op.input)[2:], graph.shape_of(op.result)[2:]
    if op.divisor is not None:
        return np.full(out, float(op.divisor))
    rows, cols = (_axis_divisors(op, spatial[axis], axis, out[axis]) for axis in (0, 1))
    return np.outer(rows, cols)


def _adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


UNARY: dict[type[Operation], Callable[[Array], Array]] = {
    graph.NegOp: np.negative,
    graph.AbsOp: np.abs,
    graph.ExpOp: np.exp,
    graph.LogOp: np.log,
    graph.SqrtOp: np.sqrt,
    graph.RsqrtOp: lambda x: np.reciprocal(np.sqrt(x)),
    graph.TanhOp: np.tanh,
    graph.SigmoidOp: _sigmoid,
    graph.ReluOp: lambda x: np.where(x < 0, np.zeros((), x.dtype), x),
    graph.SiluOp: lambda x: x * _sigmoid(x),
    graph.ErfOp: erf,
    graph.SinOp: np.sin,
    graph.CosOp: np.cos,
    graph.ReciprocalOp: np.reciprocal,
    graph.CastOp: lambda x: x,  # `_finish` converts to the result type
    graph.LogicalNotOp: np.logical_not,
    graph.BitwiseNotOp: np.invert,
    graph.HardsigmoidOp: lambda x: _relu6_of_x_plus_3(x) / x.dtype.type(6),
    graph.HardswishOp: lambda x: x * _relu6_of_x_plus_3(x) / x.dtype.type(6),
    graph.TanOp: np.tan,
    graph.AcosOp: np.arccos,
    graph.AsinOp: np.arcsin,
    graph.AtanOp: np.arctan,
    graph.SinhOp: np.sinh,
    graph.CoshOp: np.cosh,
    graph.AsinhOp: np.arcsinh,
    graph.AcoshOp: np.arccosh,
    graph.AtanhOp: np.arctanh,
    graph.Exp2Op: np.exp2,
    graph.Log2Op: np.log2,
    graph.Log10Op: np.log10,
}


def _bitcast(x: Array, target: Attribute) -> Array:
    """`x`'s bits as `target` values. A bf16 is held as the f32 of its bits
    followed by 16 zeros (`round_to_bf16`), so its bits are the high half."""
    if x.dtype == np.float32 and graph.bit_width(target) == 16:
        x = (x.view(np.uint32) >> 16).astype(np.uint16)
    if is_bf16(target):
        return (x.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
    return x.view(numpy_dtype(target))


def _remainder(a: Array, b: Array) -> Array:
    """torch's (and C's) float remainder: fmod, then + b where it is not 0
    and its sign is not b's; a zero keeps fmod's sign, the dividend's
    (numpy's `remainder` gives it the divisor's)."""
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((mod < 0) != (b < 0)), mod + b, mod)


BINARY: dict[type[Operation], Callable[[Array, Array], Array]] = {
    graph.AddOp: np.add,
    graph.SubOp: np.subtract,
    graph.MulOp: np.multiply,
    graph.DivOp: _div,
    graph.PowOp: _power,
    graph.MaximumOp: np.maximum,
    graph.MinimumOp: np.minimum,
    graph.EqOp: np.equal,
    graph.NeOp: np.not_equal,
    graph.LtOp: np.less,
    graph.LeOp: np.less_equal,
    graph.GtOp: np.greater,
    graph.GeOp: np.greater_equal,
    graph.LogicalAndOp: np.logical_and,
    graph.LogicalOrOp: np.logical_or,
    graph.BitwiseAndOp: np.bitwise_and,
    graph.BitwiseOrOp: np.bitwise_or,
    graph.BitwiseXorOp: np.bitwise_xor,
    # numpy's shifts give 0 (or the sign fill) past the width, as torch's
    graph.ShiftLeftOp: np.left_shift,
    graph.ShiftRightOp: np.right_shift,
    graph.Atan2Op: np.arctan2,
    graph.CopysignOp: np.copysign,
    graph.FmodOp: np.fmod,
    graph.RemainderOp: _remainder,
    graph.GcdOp: np.gcd,
}


REDUCTIONS: dict[type[Operation], Callable[..., Array]] = {
    graph.SumOp: np.sum,
    graph.MeanOp: np.mean,
    graph.MaxOp: np.max,
    graph.MinOp: np.min,
    graph.AnyOp: np.any,
    graph.AllOp: np.all,
}


def _run_unary(
    ft: InterpreterFunctions,
    interpreter: Interpreter,
    op: Operation,
    args: PythonValues,
) -> PythonValues:
    (x,) = args
    try:
        return _finish(op, UNARY[type(op)](_widen(x)))
    except TypeError as error:  # e.g. neg of i1, which torch rejects too
        raise _fail(op, str(error)) from error


def _run_binary(
    ft: InterpreterFunctions,
    interpreter: Interpreter,
    op: Operation,
    args: PythonValues,
) -> PythonValues:
    lhs, rhs = args
    try:
        return _finish(op, BINARY[type(op)](_widen(lhs), _widen(rhs)))
    except (ValueError, TypeError) as error:
        raise _fail(op, str(error)) from error


def _run_reduction(
    ft: InterpreterFunctions,
    interpreter: Interpreter,
    op: Operation,
    args: PythonValues,
) -> PythonValues:
    assert isinstance(op, graph.ReductionOp)
    (x,) = args
    keepdims = op.keepdim is not None
    # as torch: a max or min over no elements has no value (any and all,
    # the same folds over i1, do: false and true); an empty result is fine
    extreme = op.COMBINER in (graph.Combiner.MAX, graph.Combiner.MIN)
    empty_fold = x.size == 0 and np.prod(graph.shape_of(op.results[0])) > 0
    if empty_fold and extreme and not isinstance(op, graph.BoolOperands):
        raise _fail(op, f"reduction of an empty tensor {op.input.type}")
    reduce = REDUCTIONS[type(op)]
    return _finish(op, reduce(_widen(x), axis=op.dim_list, keepdims=keepdims))


def _run_conv(
    ft: InterpreterFunctions,
    interpreter: Interpreter,
    op: Operation,
    args: PythonValues,
) -> PythonValues:
    assert isinstance(op, graph.ConvOp)
    return _finish(op, _conv(op, *(_widen(a) for a in args)))


def _table_impls(cls: type[InterpreterFunctions]) -> type[InterpreterFunctions]:
    """Register one shared runner per op family, from the tables above."""
    families = (
        (UNARY, _run_unary),
        (BINARY, _run_binary),
        (REDUCTIONS, _run_reduction),
        ((graph.Conv1dOp, graph.Conv2dOp), _run_conv),
    )
    for table, runner in families:
        for op_type in table:
            name = f"run_{op_type.name.removeprefix('graph.')}"
            setattr(cls, name, impl(op_type)(runner))
    return cls


# --------------------------------------------------------------------------- #
# The interpreter functions
# --------------------------------------------------------------------------- #


@register_impls
@_table_impls
class GraphFunctions(InterpreterFunctions):
    """numpy implementations of every op in `graph.GRAPH_OPS` but the linear
    algebra's (`fxdsl.interpreters.linalg.LinalgFunctions`).

    Unary, binary/compare ops and the plain reductions come from the
    `UNARY`, `BINARY` and `REDUCTIONS` tables, and the convolutions share
    `_run_conv`; the rest are methods below.
    """

    @impl(graph.GeluOp)
    def run_gelu(
        self, interpreter: Interpreter, op: graph.GeluOp, args: PythonValues
    ) -> PythonValues:
        x = _widen(args[0])
        if op.mode == "tanh":
            inner = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
            return _finish(op, 0.5 * x * (1.0 + np.tanh(inner)))
        return _finish(op, 0.5 * x * (1.0 + erf(x / math.sqrt(2.0))))

    @impl(graph.BitcastOp)
    def run_bitcast(
        self, interpreter: Interpreter, op: graph.BitcastOp, args: PythonValues
    ) -> PythonValues:
        return (_bitcast(np.asarray(args[0]), graph.dtype_of(op.result)),)

    @impl(graph.ClampOp)
    def run_clamp(
        self, interpreter: Interpreter, op: graph.ClampOp, args: PythonValues
    ) -> PythonValues:
        x = _widen(args[0])
        low, high = (None if b is None else x.dtype.type(b) for b in op.bounds)
        if low is not None:
            x = np.maximum(x, low)
        return _finish(op, x if high is None else np.minimum(x, high))

    @impl(graph.SelectOp)
    def run_select(
        self, interpreter: Interpreter, op: graph.SelectOp, args: PythonValues
    ) -> PythonValues:
        cond, lhs, rhs = args
        return _finish(op, np.where(cond, lhs, rhs))

    @impl(graph.VarOp)
    def run_var(
        self, interpreter: Interpreter, op: graph.VarOp, args: PythonValues
    ) -> PythonValues:
        # in float64 as torch's CPU kernels accumulate a float's moments:
        # f32's two passes lose the variance of values far from zero
        # (1e4 + 1e-2 randn: 1e-3 relative, torch's CPU 3e-8)
        x = _widen(args[0]).astype(np.float64)
        keepdims = op.keepdim is not None
        variance = np.var(x, op.dim_list, ddof=op.correction_value, keepdims=keepdims)
        return _finish(op, variance)

    @impl(graph.SoftmaxOp)
    def run_softmax(
        self, interpreter: Interpreter, op: graph.SoftmaxOp, args: PythonValues
    ) -> PythonValues:
        x, dim = _widen(args[0]), op.dim.value.data
        e = np.exp(x - _max_along(x, dim))
        return _finish(op, e / np.sum(e, axis=dim, keepdims=True))

    @impl(graph.LogSoftmaxOp)
    def run_log_softmax(
        self, interpreter: Interpreter, op: graph.LogSoftmaxOp, args: PythonValues
    ) -> PythonValues:
        x, dim = _widen(args[0]), op.dim.value.data
        shifted = x - _max_along(x, dim)
        log_sum = np.log(np.sum(np.exp(shifted), axis=dim, keepdims=True))
        return _finish(op, shifted - log_sum)

    @impl(graph.CumsumOp)
    def run_cumsum(
        self, interpreter: Interpreter, op: graph.CumsumOp, args: PythonValues
    ) -> PythonValues:
        x = _widen(args[0])
        return _finish(op, np.cumsum(x, axis=op.dim.value.data, dtype=x.dtype))

    @impl(graph.LayerNormOp)
    def run_layer_norm(
        self, interpreter: Interpreter, op: graph.LayerNormOp, args: PythonValues
    ) -> PythonValues:
        x, weight, bias = (_widen(a) for a in args)
        axes = tuple(range(x.ndim - op.normalized_ndim, x.ndim))
        centered = x - np.mean(x, axis=axes, keepdims=True)
        variance = np.mean(centered * centered, axis=axes, keepdims=True)
        normed = centered / np.sqrt(variance + op.eps.value.data)
        return _finish(op, normed * weight + bias)

    @impl(graph.MatmulOp)
    def run_matmul(
        self, interpreter: Interpreter, op: graph.MatmulOp, args: PythonValues
    ) -> PythonValues:
        lhs, rhs = args
        return _finish(op, np.matmul(_widen(lhs), _widen(rhs)))

    @impl(graph.AttentionOp)
    def run_attention(
        self, interpreter: Interpreter, op: graph.AttentionOp, args: PythonValues
    ) -> PythonValues:
        q, k, v, *mask = (_widen(a) for a in args)
        scores = np.matmul(q, np.swapaxes(k, -1, -2)) * op.scale_value
        if mask and op.is_boolean_mask:
            scores = np.where(mask[0], scores, -np.inf)
        elif mask:
            scores = scores + mask[0]
        if op.is_causal:
            t, s = scores.shape[-2:]
            scores = np.where(np.tri(t, s, dtype=bool), scores, -np.inf)
        top = np.max(scores, axis=-1, keepdims=True)
        # a row without keys (all -inf) gives zeros, as torch's SDPA
        empty = top == -np.inf
        e = np.exp(scores - np.where(empty, 0, top))
        total = np.where(empty, 1, np.sum(e, axis=-1, keepdims=True))
        dtype = graph.dtype_of(op.query)
        if dtype in graph.HALF_FLOAT_TYPES:
            # FlashAttention's P @ V multiplies 16-bit operands: the
            # numerators exp(s - max) are rounded to q's type, their f32
            # sum divides the f32 product (torch's CPU and CUDA kernels)
            e = to_element_type(e, dtype).astype(np.float32)
            return _finish(op, np.matmul(e, v) / total)
        return _finish(op, np.matmul(e / total, v))

    @impl(graph.LinearOp)
    def run_linear(
        self, interpreter: Interpreter, op: graph.LinearOp, args: PythonValues
    ) -> PythonValues:
        x, weight, *bias = (_widen(a) for a in args)
        y = np.matmul(x, weight.T)
        return _finish(op, y + bias[0] if bias else y)

    @impl(graph.MaxPool2dOp)
    def run_max_pool2d(
        self, interpreter: Interpreter, op: graph.MaxPool2dOp, args: PythonValues
    ) -> PythonValues:
        x = _widen(args[0])
        out = graph.shape_of(op.result)[2:]
        padded = _pad_spatial(x, out, -np.inf, op)
        windows = _windows(
            padded, op.kernel_list, op.stride_list, op.dilation_list, out
        )
        return _finish(op, np.max(windows, axis=(-2, -1)))

    @impl(graph.AvgPool2dOp)
    def run_avg_pool2d(
        self, interpreter: Interpreter, op: graph.AvgPool2dOp, args: PythonValues
    ) -> PythonValues:
        x = _widen(args[0])
        out = graph.shape_of(op.result)[2:]
        padded = _pad_spatial(x, out, 0.0, op)
        windows = _windows(padded, op.kernel_list, op.stride_list, (1, 1), out)
        divisor = avg_pool_divisors(op).astype(x.dtype)
        return _finish(op, np.sum(windows, axis=(-2, -1)) / divisor)

    @impl(graph.AdaptiveAvgPool2dOp)
    def run_adaptive_avg_pool2d(
        self,
        interpreter: Interpreter,
        op: graph.AdaptiveAvgPool2dOp,
        args: PythonValues,
    ) -> PythonValues:
        x = _widen(args[0])
        height, width = graph.shape_of(op.result)[2:]
        y = np.empty((*x.shape[:2], height, width), x.dtype)
        rows = _adaptive_bounds(x.shape[2], height)
        cols = _adaptive_bounds(x.shape[3], width)
        for i, (top, bottom) in enumerate(rows):
            for j, (left, right) in enumerate(cols):
                y[:, :, i, j] = np.mean(x[:, :, top:bottom, left:right], axis=(2, 3))
        return _finish(op, y)

    @impl(graph.BatchNormOp)
    def run_batch_norm(
        self, interpreter: Interpreter, op: graph.BatchNormOp, args: PythonValues
    ) -> PythonValues:
        x, mean, var, weight, bias = (_widen(a) for a in args)
        eps = x.dtype.type(op.eps_value)
        alpha = weight * (x.dtype.type(1) / np.sqrt(var + eps))
        beta = bias - mean * alpha
        channel = (-1, *[1] * (x.ndim - 2))
        return _finish(op, x * alpha.reshape(channel) + beta.reshape(channel))

    @impl(graph.ReshapeOp)
    def run_reshape(
        self, interpreter: Interpreter, op: graph.ReshapeOp, args: PythonValues
    ) -> PythonValues:
        return _finish(op, np.reshape(args[0], graph.shape_of(op.result)))

    @impl(graph.TransposeOp)
    def run_transpose(
        self, interpreter: Interpreter, op: graph.TransposeOp, args: PythonValues
    ) -> PythonValues:
        return _finish(op, np.transpose(args[0], _ints(op.perm)))

    @impl(graph.BroadcastToOp)
    def run_broadcast_to(
        self, interpreter: Interpreter, op: graph.BroadcastToOp, args: PythonValues
    ) -> PythonValues:
        return _finish(op, np.broadcast_to(args[0], graph.shape_of(op.result)))

    @impl(graph.SliceOp)
    def run_slice(
        self, interpreter: Interpreter, op: graph.SliceOp, args: PythonValues
    ) -> PythonValues:
        bounds = zip(_ints(op.start), _ints(op.limit), _ints(op.step))
        return _finish(op, args[0][tuple(slice(*b) for b in bounds)])

    @impl(graph.ConcatOp)
    def run_concat(
        self, interpreter: Interpreter, op: graph.ConcatOp, args: PythonValues
    ) -> PythonValues:
        return _finish(op, np.concatenate(args, axis=op.dim.value.data))

    @impl(graph.SplitOp)
    def run_split(
        self, interpreter: Interpreter, op: graph.SplitOp, args: PythonValues
    ) -> PythonValues:
        offsets = np.cumsum(_ints(op.sizes))[:-1]
        return _finish(op, *np.split(args[0], offsets, axis=op.dim.value.data))

    @impl(graph.GatherOp)
    def run_gather(
        self, interpreter: Interpreter, op: graph.GatherOp, args: PythonValues
    ) -> PythonValues:
        x, index = args
        dim = op.dim.value.data
        _check_indices(op, index, x.shape[dim])
        # torch.gather reads only the leading index-sized window of other dims.
        window = tuple(
            slice(None) if d == dim else slice(0, n) for d, n in enumerate(index.shape)
        )
        return _finish(op, np.take_along_axis(x[window], index.astype(np.intp), dim))

    @impl(graph.EmbeddingOp)
    def run_embedding(
        self, interpreter: Interpreter, op: graph.EmbeddingOp, args: PythonValues
    ) -> PythonValues:
        indices, weight = args
        _check_indices(op, indices, weight.shape[0])
        return _finish(op, np.take(weight, indices.astype(np.intp), axis=0))

    @impl(graph.IndexOp)
    def run_index(
        self, interpreter: Interpreter, op: graph.IndexOp, args: PythonValues
    ) -> PythonValues:
        x, *indices = args
        selection: list[Any] = [slice(None)] * x.ndim
        for dim, index in zip(op.dim_list, indices, strict=True):
            size = x.shape[dim]
            if index.size and (index.min() < -size or index.max() >= size):
                bad = index[(index < -size) | (index >= size)].flat[0]
                raise _out_of_range(
                    op, f"index {bad} is out of range for dim {dim} of size {size}"
                )
            selection[dim] = index.astype(np.intp)
        return _finish(op, x[tuple(selection)])

    @impl(graph.IndexCopyOp)
    def run_index_copy(
        self, interpreter: Interpreter, op: graph.IndexCopyOp, args: PythonValues
    ) -> PythonValues:
        x, index, source = args
        dim = op.dim.value.data
        _check_indices(op, index, x.shape[dim])
        result = x.copy()
        # numpy assigns repeated positions in order: the last slice wins
        selection = (slice(None),) * dim + (index.astype(np.intp),)
        result[selection] = source
        return _finish(op, result)

    @impl(graph.IndexAddOp)
    def run_index_add(
        self, interpreter: Interpreter, op: graph.IndexAddOp, args: PythonValues
    ) -> PythonValues:
        x, index, source, *order = args
        dim = op.dim.value.data
        _check_indices(op, index, x.shape[dim])
        # slice by slice in the order of the index, as torch's CPU kernels
        # add; in a 16-bit type each sum is rounded to it, as there
        result = x.copy()
        at = np.moveaxis(result, dim, 0)  # views: writes reach `result`
        rows = np.moveaxis(source, dim, 0)
        if order:
            # the kernels add in `order`: it must sort the index stably
            index, rows = _stably_sorted(op, index, order[0]), rows[order[0]]
        element = graph.dtype_of(op.result)
        if element not in (bf16, f16):
            np.add.at(at, index.astype(np.intp), rows)
            return _finish(op, result)
        for k, position in enumerate(index.astype(np.intp)):
            total = at[position].astype(np.float32) + rows[k].astype(np.float32)
            at[position] = to_element_type(total, element)
        return _finish(op, result)

    @impl(graph.ConstantOp)
    def run_constant(
        self, interpreter: Interpreter, op: graph.ConstantOp, args: PythonValues
    ) -> PythonValues:
        value = op.value
        shape = tuple(value.get_shape())
        return _finish(op, from_bytes(value.data.data, value.get_element_type(), shape))

    @impl(graph.FullOp)
    def run_full(
        self, interpreter: Interpreter, op: graph.FullOp, args: PythonValues
    ) -> PythonValues:
        value = op.value.value.data
        element_type = graph.dtype_of(op.result)
        if not math.isfinite(value) and np.issubdtype(
            numpy_dtype(element_type), np.integer
        ):
            raise _fail(op, f"value {value} does not fit {op.result.type}")
        return _finish(op, np.full(graph.shape_of(op.result), value))

    @impl(graph.ArangeOp)
    def run_arange(
        self, interpreter: Interpreter, op: graph.ArangeOp, args: PythonValues
    ) -> PythonValues:
        return _finish(op, arange_values(op))

    @impl(graph.RandomOp)
    def run_random(
        self, interpreter: Interpreter, op: graph.RandomOp, args: PythonValues
    ) -> PythonValues:
        shape, dtype = graph.shape_of(op.result), graph.dtype_of(op.result)
        return _finish(op, random_values(op.kind, args[0], shape, dtype))

    @impl(graph.FusionGroupOp)
    def run_fusion_group(
        self, interpreter: Interpreter, op: graph.FusionGroupOp, args: PythonValues
    ) -> PythonValues:
        return interpreter.run_ssacfg_region(op.body, args, "graph.fusion_group")

    @impl_terminator(graph.YieldOp)
    def run_yield(
        self, interpreter: Interpreter, op: graph.YieldOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()


def _stably_sorted(op: Operation, index: Array, order: Array) -> Array:
    """`index` in `order`, which must be a stable argsort of it."""
    count = index.shape[0]
    if np.any(np.sort(order) != np.arange(count)):
        raise _out_of_range(op, "order is not a permutation of the index")
    ordered = index[order]
    later = order[1:] > order[:-1]
    if np.any((ordered[1:] < ordered[:-1]) | ((ordered[1:] == ordered[:-1]) & ~later)):
        raise _out_of_range(op, "order is not a stable argsort of the index")
    return ordered


def _check_indices(op: Operation, indices: Array, size: int) -> None:
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        bad = indices[(indices < 0) | (indices >= size)].flat[0]
        raise _out_of_range(op, f"index {bad} is out of range [0, {size})")


# --------------------------------------------------------------------------- #
# Debug check: every value has exactly its IR type
# --------------------------------------------------------------------------- #


def check_value(value: Any, typ: Attribute) -> str | None:
    """Why `value` is not a valid runtime value of `typ`; None when it is."""
    if not isinstance(typ, TensorType):
        return None
    element_type, shape = graph.dtype_of(typ), graph.shape_of(typ)
    if not isinstance(value, np.ndarray):
        return f"expected an ndarray for {typ}, got {type(value).__name__}"
    if value.dtype != numpy_dtype(element_type) or value.shape != shape:
        got = graph.tensor(value.shape, element_type)
        return f"expected {typ}, got {value.dtype} array of shape {value.shape} ({got})"
    if is_bf16(element_type):
        rounded = round_to_bf16(value)
        if not np.array_equal(rounded, value, equal_nan=True):
            return f"{typ} holds values that are not bf16-representable"
    return None


class TypeChecker(Interpreter.Listener):
    """Interpreter listener asserting that every op result matches its type.

    Used by tests (`run_reference(..., check_types=True)`).
    """

    def did_interpret_op(self, op: Operation, results: PythonValues) -> None:
        for index, (value, result) in enumerate(zip(results, op.results)):
            problem = check_value(value, result.type)
            if problem is not None:
                raise AssertionError(f"{op.name} result {index}: {problem}")
