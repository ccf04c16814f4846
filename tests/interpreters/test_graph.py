"""Numerics of every graph op on the reference interpreter.

Each case is a one-op function parsed from IR text, run with
`check_types=True` (every value must have exactly its IR type), and compared
with a reference written here independently, mostly in float64 or with
Python loops.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import fxdsl
from fxdsl.interpreters.graph import GraphFunctions, check_value
from fxdsl.interpreters.linalg import LinalgFunctions
from fxdsl.interpreters.run import entry_function, run_reference
from fxdsl.ir import graph
from fxdsl.ir.dtypes import round_to_bf16

Array = np.ndarray[Any, Any]
rng = np.random.default_rng(1234)


def f32(*shape: int) -> Array:
    return rng.standard_normal(shape).astype(np.float32)


def positive(*shape: int) -> Array:
    return rng.uniform(0.1, 4.0, shape).astype(np.float32)


def ints(*shape: int, low: int = -9, high: int = 10, dtype: Any = np.int32) -> Array:
    return rng.integers(low, high, shape).astype(dtype)


def bools(*shape: int) -> Array:
    return rng.integers(0, 2, shape).astype(bool)


def f64(x: Array) -> Array:
    return np.asarray(x, dtype=np.float64)


def elementwise(fn: Callable[[float], float]) -> Callable[[Array], Array]:
    """A float64 reference applying a scalar Python function to each element."""
    return lambda x: np.array([fn(float(v)) for v in x.flat]).reshape(x.shape)


def unit(*shape: int) -> Array:
    return rng.uniform(-0.99, 0.99, shape).astype(np.float32)


def scalar2(fn: Callable[[float, float], float]) -> Callable[[Array, Array], Array]:
    """A float64 reference applying a Python function of two floats to each
    broadcast pair of elements."""

    def ref(a: Array, b: Array) -> Array:
        x, y = np.broadcast_arrays(a, b)
        return np.array(
            [fn(float(u), float(v)) for u, v in zip(x.flat, y.flat)]
        ).reshape(x.shape)

    return ref


def gelu_erf(v: float) -> float:
    return 0.5 * v * (1.0 + math.erf(v / math.sqrt(2.0)))


def gelu_tanh(v: float) -> float:
    return 0.5 * v * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (v + 0.044715 * v**3)))


def sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v)) if v > -700 else 0.0


def var_ref(x: Array, axis: tuple[int, ...], correction: int, keepdims: bool) -> Array:
    x = f64(x)
    n = math.prod(x.shape[a] for a in axis)
    mean = x.sum(axis=axis, keepdims=True) / n
    return ((x - mean) ** 2).sum(axis=axis, keepdims=keepdims) / (n - correction)


def attention_ref(
    q: Array,
    k: Array,
    v: Array,
    scale: float,
    causal: bool,
    mask: Array | None = None,
) -> Array:
    """Row by row in float64: query t sees keys s <= t when causal, and
    keys s where a boolean mask is true (an additive one is added); a row
    that sees no key is zeros (torch's SDPA)."""
    out = np.zeros((*q.shape[:-1], v.shape[-1]))
    full = None if mask is None else np.broadcast_to(mask, (*q.shape[:-1], k.shape[1]))
    for b in range(q.shape[0]):
        for t in range(q.shape[1]):
            keys = [s for s in range(k.shape[1]) if not causal or s <= t]
            if full is not None and full.dtype == bool:
                keys = [s for s in keys if full[b, t, s]]
            if not keys:
                continue
            scores = np.array([f64(q[b, t]) @ f64(k[b, s]) * scale for s in keys])
            if full is not None and full.dtype != bool:
                scores = scores + np.array([full[b, t, s] for s in keys], np.float64)
                if np.all(scores == -np.inf):
                    continue
            weights = np.exp(scores - scores.max())
            out[b, t] = weights @ f64(v[b, keys]) / weights.sum()
    return out


def layer_norm_ref(x: Array, w: Array, b: Array, eps: float) -> Array:
    axes = tuple(range(x.ndim - w.ndim, x.ndim))
    x = f64(x)
    n = math.prod(x.shape[a] for a in axes)
    mean = x.sum(axis=axes, keepdims=True) / n
    var = ((x - mean) ** 2).sum(axis=axes, keepdims=True) / n
    return (x - mean) / np.sqrt(var + eps) * f64(w) + f64(b)


def softmax_ref(x: Array, dim: int) -> Array:
    e = np.exp(f64(x))
    return e / e.sum(axis=dim, keepdims=True)


def gather_ref(x: Array, index: Array, dim: int) -> Array:
    out = np.empty(index.shape, x.dtype)
    for pos in np.ndindex(*index.shape):
        source = list(pos)
        source[dim] = int(index[pos])
        out[pos] = x[tuple(source)]
    return out


def conv_ref(
    x: Array,
    w: Array,
    b: Array | None,
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    groups: int,
) -> Array:
    """torch's convolution by its definition, one output element at a time:
    taps that fall into the padding read zero."""
    kernel, spatial = w.shape[2:], x.shape[2:]
    out = [
        (n + 2 * p - d * (k - 1) - 1) // s + 1
        for n, k, s, p, d in zip(spatial, kernel, stride, padding, dilation)
    ]
    per_group, outs_per_group = x.shape[1] // groups, w.shape[0] // groups
    y = np.zeros((x.shape[0], w.shape[0], *out))
    for batch, o, *pos in np.ndindex(*y.shape):
        group = o // outs_per_group
        total = 0.0 if b is None else float(b[o])
        for c in range(per_group):
            for tap in np.ndindex(*kernel):
                where = [
                    q * s - p + t * d
                    for q, s, p, t, d in zip(pos, stride, padding, tap, dilation)
                ]
                if all(0 <= i < n for i, n in zip(where, spatial)):
                    value = x[(batch, group * per_group + c, *where)]
                    total += float(value) * float(w[(o, c, *tap)])
        y[(batch, o, *pos)] = total
    return y


def pool_windows(
    size: int, out: int, kernel: int, stride: int, padding: int
) -> list[tuple[int, int]]:
    """(start, end) of each window along one dim, in padded coordinates
    shifted back: start may be negative, end may pass the input."""
    return [(o * stride - padding, o * stride - padding + kernel) for o in range(out)]


def max_pool_ref(
    x: Array,
    out: tuple[int, int],
    kernel: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
) -> Array:
    y = np.full((*x.shape[:2], *out), -np.inf)
    for n, c, i, j in np.ndindex(*y.shape):
        for a, bb in np.ndindex(*kernel):
            r = i * stride[0] - padding[0] + a * dilation[0]
            q = j * stride[1] - padding[1] + bb * dilation[1]
            if 0 <= r < x.shape[2] and 0 <= q < x.shape[3]:
                y[n, c, i, j] = max(y[n, c, i, j], float(x[n, c, r, q]))
    return y


def avg_pool_ref(
    x: Array,
    out: tuple[int, int],
    kernel: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    include_pad: bool,
) -> Array:
    """torch's divisor: the window cut at the padded input's end (with
    include_pad), else cut at the input."""
    y = np.zeros((*x.shape[:2], *out))
    rows = pool_windows(x.shape[2], out[0], kernel[0], stride[0], padding[0])
    cols = pool_windows(x.shape[3], out[1], kernel[1], stride[1], padding[1])
    for n, c, i, j in np.ndindex(*y.shape):
        (top, bottom), (left, right) = rows[i], cols[j]
        bottom = min(bottom, x.shape[2] + padding[0])
        right = min(right, x.shape[3] + padding[1])
        inside = x[n, c, max(top, 0) : bottom, max(left, 0) : right]
        count = inside.size if not include_pad else (bottom - top) * (right - left)
        y[n, c, i, j] = f64(inside).sum() / count
    return y


def adaptive_avg_pool_ref(x: Array, out: tuple[int, int]) -> Array:
    y = np.zeros((*x.shape[:2], *out))
    h, w = x.shape[2:]
    for n, c, i, j in np.ndindex(*y.shape):
        top, bottom = math.floor(i * h / out[0]), math.ceil((i + 1) * h / out[0])
        left, right = math.floor(j * w / out[1]), math.ceil((j + 1) * w / out[1])
        y[n, c, i, j] = f64(x[n, c, top:bottom, left:right]).mean()
    return y


def batch_norm_ref(
    x: Array, mean: Array, var: Array, w: Array, b: Array, eps: float
) -> Array:
    shape = (-1, *[1] * (x.ndim - 2))
    normed = (f64(x) - f64(mean).reshape(shape)) / np.sqrt(
        f64(var).reshape(shape) + eps
    )
    return normed * f64(w).reshape(shape) + f64(b).reshape(shape)


def floor_div_ref(a: Array, b: Array) -> Array:
    pairs = zip(
        np.broadcast_to(a, np.broadcast_shapes(a.shape, b.shape)).flat,
        np.broadcast_to(b, np.broadcast_shapes(a.shape, b.shape)).flat,
    )
    shape = np.broadcast_shapes(a.shape, b.shape)
    return np.array([int(p) // int(q) for p, q in pairs]).reshape(shape)


@dataclass
class Case:
    """One op: `body` computes %r0.. from %a0.. (types given); `ref` is the
    expected outputs; `exact` demands bit equality."""

    id: str
    body: str
    args: list[str]
    results: list[str]
    inputs: list[Array]
    ref: Callable[..., Any]
    exact: bool = False

    def module_text(self) -> str:
        params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(self.args))
        names = ", ".join(f"%r{i}" for i in range(len(self.results)))
        types = ", ".join(self.results)
        return (
            f"func.func @f({params}) -> ({types}) {{\n"
            f"  {names} = {self.body}\n"
            f"  func.return {names} : {types}\n}}\n"
        )


def unary(
    name: str,
    ref: Callable[[Array], Array],
    x: Array | None = None,
    typ: str = "tensor<3x5xf32>",
    exact: bool = False,
    props: str = "",
) -> Case:
    x = f32(3, 5) if x is None else x
    return Case(
        name,
        f"graph.{name.split('-')[0]} %a0{props} : {typ}",
        [typ],
        [typ],
        [x],
        ref,
        exact,
    )


def binary(
    name: str,
    ref: Callable[[Array, Array], Array],
    a: Array,
    b: Array,
    ta: str,
    tb: str,
    tr: str,
    exact: bool = False,
) -> Case:
    body = f"graph.{name.split('-')[0]} %a0, %a1 : ({ta}, {tb}) -> {tr}"
    return Case(name, body, [ta, tb], [tr], [a, b], ref, exact)


T = "tensor<4x1xf32>", "tensor<8xf32>", "tensor<4x8xf32>"
TI = "tensor<4x1xi32>", "tensor<8xi32>", "tensor<4x8xi32>"
TB = "tensor<4x8xi1>"
signed_steps = np.array([-3.0, -1.5, -0.5, 0.25, 0.5, 1.0, 2.0, 3.5], np.float32)
big = np.array([[-100.0, -20.0, 0.0, 20.0, 100.0]] * 3, np.float32)
cmp_a, cmp_b = ints(4, 1, low=-2, high=3), ints(8, low=-2, high=3)
div_a, div_b = ints(4, 1), np.array([-3, -2, -1, 1, 2, 3, 5, -7], np.int32)

bit_pair = ints(4, 1, low=-50, high=50), ints(8, low=-50, high=50)
shift_pair = (
    np.array([[-77], [-1], [5], [1 << 30]], np.int32),
    np.array([-1, 0, 1, 3, 31, 32, 33, 100], np.int32),
)


def _shl32(a: int, b: int) -> int:
    """i32's `a << b`: two's complement wrap; 0 outside [0, 32)."""
    if not 0 <= b < 32:
        return 0
    bits = (a << b) & 0xFFFFFFFF
    return bits - (1 << 32) if bits >> 31 else bits


def _shr32(a: int, b: int) -> int:
    """i32's `a >> b`, arithmetic; the sign fill outside [0, 32)."""
    return a >> b if 0 <= b < 32 else (-1 if a < 0 else 0)


def _per_element(fn: Callable[[int, int], int]) -> Callable[[Array, Array], Array]:
    def ref(a: Array, b: Array) -> Array:
        pairs = np.broadcast_arrays(a, b)
        flat = [fn(int(x), int(y)) for x, y in zip(*(p.ravel() for p in pairs))]
        return np.array(flat, np.int32).reshape(pairs[0].shape)

    return ref


F32_BITS = [0x3F800000, 0x80000000, 0x7F800000, 0x7FA12345]

CASES: list[Case] = [
    unary("neg", lambda x: -f64(x)),
    unary("neg-i32", lambda x: -x, ints(3, 5), "tensor<3x5xi32>", exact=True),
    unary("abs", lambda x: np.abs(f64(x))),
    unary("abs-i32", lambda x: np.abs(x), ints(3, 5), "tensor<3x5xi32>", exact=True),
    unary("exp", elementwise(math.exp)),
    unary("log", elementwise(math.log), positive(3, 5)),
    unary("sqrt", elementwise(math.sqrt), positive(3, 5)),
    unary("rsqrt", elementwise(lambda v: 1 / math.sqrt(v)), positive(3, 5)),
    unary("tanh", elementwise(math.tanh)),
    unary("sigmoid", elementwise(sigmoid)),
    unary("sigmoid-large", elementwise(sigmoid), big),
    unary("relu", lambda x: np.where(x > 0, f64(x), 0.0)),
    unary(
        "relu-i32",
        lambda x: np.where(x > 0, x, 0),
        ints(3, 5),
        "tensor<3x5xi32>",
        exact=True,
    ),
    unary("gelu-erf", elementwise(gelu_erf)),
    unary("gelu-tanh", elementwise(gelu_tanh), props=' approximate "tanh"'),
    unary("silu", elementwise(lambda v: v * sigmoid(v))),
    unary("silu-large", elementwise(lambda v: v * sigmoid(v)), big),
    unary("erf", elementwise(math.erf)),
    unary("sin", elementwise(math.sin)),
    unary("cos", elementwise(math.cos)),
    unary("reciprocal", elementwise(lambda v: 1 / v), positive(3, 5)),
    # float functions: Python's math (float64) as the oracle, on their domain
    unary("tan", elementwise(math.tan)),
    unary("acos", elementwise(math.acos), unit(3, 5)),
    unary("asin", elementwise(math.asin), unit(3, 5)),
    unary("atan", elementwise(math.atan)),
    unary("sinh", elementwise(math.sinh)),
    unary("cosh", elementwise(math.cosh)),
    unary("asinh", elementwise(math.asinh)),
    unary("acosh", elementwise(math.acosh), 1 + positive(3, 5)),
    unary("atanh", elementwise(math.atanh), unit(3, 5)),
    unary("exp2", elementwise(lambda v: 2.0**v)),
    unary("log2", elementwise(math.log2), positive(3, 5)),
    unary("log10", elementwise(math.log10), positive(3, 5)),
    Case(
        "cast-f32-i32",
        "graph.cast %a0 : (tensor<5xf32>) -> tensor<5xi32>",
        ["tensor<5xf32>"],
        ["tensor<5xi32>"],
        [np.array([-2.7, -0.5, 0.0, 1.5, 3.99], np.float32)],
        lambda x: np.array([-2, 0, 0, 1, 3]),
        exact=True,
    ),
    Case(
        "cast-f32-i1",
        "graph.cast %a0 : (tensor<4xf32>) -> tensor<4xi1>",
        ["tensor<4xf32>"],
        ["tensor<4xi1>"],
        [np.array([0, -0.0, 0.5, -3], np.float32)],
        lambda x: np.array([False, False, True, True]),
        exact=True,
    ),
    Case(
        "cast-i64-f32",
        "graph.cast %a0 : (tensor<3xi64>) -> tensor<3xf32>",
        ["tensor<3xi64>"],
        ["tensor<3xf32>"],
        [np.array([-5, 0, 7], np.int64)],
        lambda x: np.array([-5.0, 0.0, 7.0]),
        exact=True,
    ),
    Case(
        "cast-i1-i32",
        "graph.cast %a0 : (tensor<2xi1>) -> tensor<2xi32>",
        ["tensor<2xi1>"],
        ["tensor<2xi32>"],
        [np.array([True, False])],
        lambda x: np.array([1, 0]),
        exact=True,
    ),
    Case(
        "bitcast-f32-i32",
        "graph.bitcast %a0 : (tensor<4xf32>) -> tensor<4xi32>",
        ["tensor<4xf32>"],
        ["tensor<4xi32>"],
        # 1.0, -0.0, inf and a NaN with a payload
        [np.array(F32_BITS, np.uint32).view(np.float32)],
        lambda x: np.array(F32_BITS, np.uint32).view(np.int32),
        exact=True,
    ),
    Case(
        "bitcast-bf16-i16",
        "graph.bitcast %a0 : (tensor<3xbf16>) -> tensor<3xi16>",
        ["tensor<3xbf16>"],
        ["tensor<3xi16>"],
        [np.array([1.0, -2.0, -0.0], np.float32)],
        lambda x: np.array([0x3F80, 0xC000, 0x8000], np.uint16).view(np.int16),
        exact=True,
    ),
    binary("add-broadcast", lambda a, b: f64(a) + f64(b), f32(4, 1), f32(8), *T),
    binary(
        "add-i32",
        lambda a, b: a.astype(np.int64) + b,
        ints(4, 1),
        ints(8),
        *TI,
        exact=True,
    ),
    binary("sub", lambda a, b: f64(a) - f64(b), f32(4, 1), f32(8), *T),
    binary("atan2", scalar2(math.atan2), f32(4, 1), f32(8), *T),
    binary("copysign", scalar2(math.copysign), f32(4, 1), f32(8), *T),
    # signs of either operand, exact multiples (a zero result)
    binary("fmod", scalar2(math.fmod), 4 * f32(4, 1), signed_steps, *T),
    binary("remainder", scalar2(lambda a, b: a % b), 4 * f32(4, 1), signed_steps, *T),
    binary("mul", lambda a, b: f64(a) * f64(b), f32(4, 1), f32(8), *T),
    binary("div", lambda a, b: f64(a) / f64(b), f32(4, 1), positive(8), *T),
    binary("div-i32-floor", floor_div_ref, div_a, div_b, *TI, exact=True),
    binary("pow", lambda a, b: f64(a) ** f64(b), positive(4, 1), f32(8), *T),
    binary(
        "pow-i32",
        lambda a, b: a.astype(np.int64) ** b,
        ints(4, 1, low=-3, high=4),
        ints(8, low=0, high=4),
        *TI,
        exact=True,
    ),
    binary("maximum", lambda a, b: np.maximum(f64(a), f64(b)), f32(4, 1), f32(8), *T),
    binary("minimum", lambda a, b: np.minimum(f64(a), f64(b)), f32(4, 1), f32(8), *T),
    binary("eq", lambda a, b: a == b, cmp_a, cmp_b, TI[0], TI[1], TB, exact=True),
    binary("ne", lambda a, b: a != b, cmp_a, cmp_b, TI[0], TI[1], TB, exact=True),
    binary("lt", lambda a, b: a < b, cmp_a, cmp_b, TI[0], TI[1], TB, exact=True),
    binary("le", lambda a, b: a <= b, cmp_a, cmp_b, TI[0], TI[1], TB, exact=True),
    binary("gt", lambda a, b: a > b, cmp_a, cmp_b, TI[0], TI[1], TB, exact=True),
    binary("ge", lambda a, b: a >= b, cmp_a, cmp_b, TI[0], TI[1], TB, exact=True),
    binary(
        "lt-f32",
        lambda a, b: f64(a) < f64(b),
        f32(4, 1),
        f32(8),
        T[0],
        T[1],
        TB,
        exact=True,
    ),
    Case(
        "select-broadcast",
        "graph.select %a0, %a1, %a2 : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<8xf32>)"
        " -> tensor<4x8xf32>",
        ["tensor<4x1xi1>", "tensor<4x8xf32>", "tensor<8xf32>"],
        ["tensor<4x8xf32>"],
        [np.array([[True], [False], [True], [False]]), f32(4, 8), f32(8)],
        lambda c, a, b: [
            [a[i][j] if c[i][0] else b[j] for j in range(8)] for i in range(4)
        ],
        exact=True,
    ),
    Case(
        "sum-dim",
        "graph.sum %a0 dims [1] : (tensor<3x4x5xf32>) -> tensor<3x5xf32>",
        ["tensor<3x4x5xf32>"],
        ["tensor<3x5xf32>"],
        [f32(3, 4, 5)],
        lambda x: f64(x).sum(axis=1),
    ),
    Case(
        "sum-keepdim",
        "graph.sum %a0 dims [0, 2] keepdim : (tensor<3x4x5xf32>) -> tensor<1x4x1xf32>",
        ["tensor<3x4x5xf32>"],
        ["tensor<1x4x1xf32>"],
        [f32(3, 4, 5)],
        lambda x: f64(x).sum(axis=(0, 2), keepdims=True),
    ),
    Case(
        "sum-all",
        "graph.sum %a0 dims [] : (tensor<3x4xf32>) -> tensor<f32>",
        ["tensor<3x4xf32>"],
        ["tensor<f32>"],
        [f32(3, 4)],
        lambda x: sum(float(v) for v in x.flat),
    ),
    Case(
        "sum-i64",
        "graph.sum %a0 dims [0] : (tensor<3x4xi64>) -> tensor<4xi64>",
        ["tensor<3x4xi64>"],
        ["tensor<4xi64>"],
        [ints(3, 4, dtype=np.int64)],
        lambda x: [sum(int(x[i, j]) for i in range(3)) for j in range(4)],
        exact=True,
    ),
    Case(
        "mean",
        "graph.mean %a0 dims [1] keepdim : (tensor<3x4xf32>) -> tensor<3x1xf32>",
        ["tensor<3x4xf32>"],
        ["tensor<3x1xf32>"],
        [f32(3, 4)],
        lambda x: f64(x).sum(axis=1, keepdims=True) / 4,
    ),
    Case(
        "max",
        "graph.max %a0 dims [0] : (tensor<3x4xf32>) -> tensor<4xf32>",
        ["tensor<3x4xf32>"],
        ["tensor<4xf32>"],
        [f32(3, 4)],
        lambda x: [max(x[:, j]) for j in range(4)],
        exact=True,
    ),
    Case(
        "min-i32",
        "graph.min %a0 dims [1] : (tensor<3x4xi32>) -> tensor<3xi32>",
        ["tensor<3x4xi32>"],
        ["tensor<3xi32>"],
        [ints(3, 4)],
        lambda x: [min(x[i]) for i in range(3)],
        exact=True,
    ),
    Case(
        "var-default-correction",
        "graph.var %a0 dims [1] : (tensor<3x6xf32>) -> tensor<3xf32>",
        ["tensor<3x6xf32>"],
        ["tensor<3xf32>"],
        [f32(3, 6)],
        lambda x: var_ref(x, (1,), 1, False),
    ),
    Case(
        "var-correction-0",
        "graph.var %a0 dims [0, 1] correction 0 keepdim : (tensor<3x6xf32>)"
        " -> tensor<1x1xf32>",
        ["tensor<3x6xf32>"],
        ["tensor<1x1xf32>"],
        [f32(3, 6)],
        lambda x: var_ref(x, (0, 1), 0, True),
    ),
    Case(
        "softmax",
        "graph.softmax %a0 dim 1 : tensor<3x6xf32>",
        ["tensor<3x6xf32>"],
        ["tensor<3x6xf32>"],
        [f32(3, 6)],
        lambda x: softmax_ref(x, 1),
    ),
    Case(
        "softmax-dim0-stable",
        "graph.softmax %a0 dim 0 : tensor<2x3xf32>",
        ["tensor<2x3xf32>"],
        ["tensor<2x3xf32>"],
        [np.array([[1000.0, -1000.0, 0.0], [999.0, -1001.0, 1.0]], np.float32)],
        lambda x: softmax_ref(x - x.max(axis=0), 0),
    ),
    Case(
        "log_softmax",
        "graph.log_softmax %a0 dim 1 : tensor<3x6xf32>",
        ["tensor<3x6xf32>"],
        ["tensor<3x6xf32>"],
        [f32(3, 6)],
        lambda x: np.log(softmax_ref(x, 1)),
    ),
    Case(
        "layer_norm",
        "graph.layer_norm %a0, %a1, %a2 eps 1.0e-05 : (tensor<2x3x8xf32>, "
        "tensor<8xf32>, tensor<8xf32>) -> tensor<2x3x8xf32>",
        ["tensor<2x3x8xf32>", "tensor<8xf32>", "tensor<8xf32>"],
        ["tensor<2x3x8xf32>"],
        [f32(2, 3, 8), f32(8), f32(8)],
        lambda x, w, b: layer_norm_ref(x, w, b, 1e-5),
    ),
    Case(
        "layer_norm-2d-eps",
        "graph.layer_norm %a0, %a1, %a2 eps 0.5 : (tensor<2x3x4xf32>, "
        "tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>",
        ["tensor<2x3x4xf32>", "tensor<3x4xf32>", "tensor<3x4xf32>"],
        ["tensor<2x3x4xf32>"],
        [f32(2, 3, 4), f32(3, 4), f32(3, 4)],
        lambda x, w, b: layer_norm_ref(x, w, b, 0.5),
    ),
    Case(
        "attention",
        "graph.attention %a0, %a1, %a2 scale 0.5 : (tensor<2x3x4xf32>, "
        "tensor<2x5x4xf32>, tensor<2x5x2xf32>) -> tensor<2x3x2xf32>",
        ["tensor<2x3x4xf32>", "tensor<2x5x4xf32>", "tensor<2x5x2xf32>"],
        ["tensor<2x3x2xf32>"],
        [f32(2, 3, 4), f32(2, 5, 4), f32(2, 5, 2)],
        lambda q, k, v: attention_ref(q, k, v, 0.5, causal=False),
    ),
    Case(
        "attention-causal",
        "graph.attention %a0, %a1, %a2 scale 0.5 causal : (tensor<2x3x4xf32>, "
        "tensor<2x5x4xf32>, tensor<2x5x2xf32>) -> tensor<2x3x2xf32>",
        ["tensor<2x3x4xf32>", "tensor<2x5x4xf32>", "tensor<2x5x2xf32>"],
        ["tensor<2x3x2xf32>"],
        [f32(2, 3, 4), f32(2, 5, 4), f32(2, 5, 2)],
        lambda q, k, v: attention_ref(q, k, v, 0.5, causal=True),
    ),
    binary(
        "matmul",
        lambda a, b: np.einsum("ik,kj->ij", f64(a), f64(b)),
        f32(4, 8),
        f32(8, 3),
        "tensor<4x8xf32>",
        "tensor<8x3xf32>",
        "tensor<4x3xf32>",
    ),
    binary(
        "matmul-batched",
        lambda a, b: np.einsum("bik,kj->bij", f64(a), f64(b)),
        f32(2, 4, 8),
        f32(8, 3),
        "tensor<2x4x8xf32>",
        "tensor<8x3xf32>",
        "tensor<2x4x3xf32>",
    ),
    binary(
        "matmul-vector",
        lambda a, b: np.einsum("k,bkj->bj", f64(a), f64(b)),
        f32(8),
        f32(2, 8, 3),
        "tensor<8xf32>",
        "tensor<2x8x3xf32>",
        "tensor<2x3xf32>",
    ),
    Case(
        "linear",
        "graph.linear %a0, %a1, %a2 : (tensor<2x4x8xf32>, tensor<3x8xf32>, "
        "tensor<3xf32>) -> tensor<2x4x3xf32>",
        ["tensor<2x4x8xf32>", "tensor<3x8xf32>", "tensor<3xf32>"],
        ["tensor<2x4x3xf32>"],
        [f32(2, 4, 8), f32(3, 8), f32(3)],
        lambda x, w, b: np.einsum("bik,ok->bio", f64(x), f64(w)) + f64(b),
    ),
    binary(
        "linear-nobias",
        lambda x, w: np.einsum("ik,ok->io", f64(x), f64(w)),
        f32(4, 8),
        f32(3, 8),
        "tensor<4x8xf32>",
        "tensor<3x8xf32>",
        "tensor<4x3xf32>",
    ),
    Case(
        "reshape",
        "graph.reshape %a0 : (tensor<2x6xi32>) -> tensor<3x4xi32>",
        ["tensor<2x6xi32>"],
        ["tensor<3x4xi32>"],
        [ints(2, 6)],
        lambda x: [[x.flat[4 * i + j] for j in range(4)] for i in range(3)],
        exact=True,
    ),
    Case(
        "transpose",
        "graph.transpose %a0 perm [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>",
        ["tensor<2x3x4xf32>"],
        ["tensor<4x2x3xf32>"],
        [f32(2, 3, 4)],
        lambda x: [
            [[x[i, j, k] for j in range(3)] for i in range(2)] for k in range(4)
        ],
        exact=True,
    ),
    Case(
        "broadcast_to",
        "graph.broadcast_to %a0 : (tensor<3x1xf32>) -> tensor<2x3x4xf32>",
        ["tensor<3x1xf32>"],
        ["tensor<2x3x4xf32>"],
        [f32(3, 1)],
        lambda x: [[[x[j, 0]] * 4 for j in range(3)]] * 2,
        exact=True,
    ),
    Case(
        "slice-step",
        "graph.slice %a0 start [1, 0] limit [4, 7] step [2, 3]"
        " : (tensor<5x7xf32>) -> tensor<2x3xf32>",
        ["tensor<5x7xf32>"],
        ["tensor<2x3xf32>"],
        [f32(5, 7)],
        lambda x: [[x[i, j] for j in (0, 3, 6)] for i in (1, 3)],
        exact=True,
    ),
    Case(
        "concat",
        "graph.concat %a0, %a1 dim 1 : (tensor<2x3xf32>, tensor<2x1xf32>)"
        " -> tensor<2x4xf32>",
        ["tensor<2x3xf32>", "tensor<2x1xf32>"],
        ["tensor<2x4xf32>"],
        [f32(2, 3), f32(2, 1)],
        lambda a, b: [list(a[i]) + list(b[i]) for i in range(2)],
        exact=True,
    ),
    Case(
        "split",
        "graph.split %a0 dim 0 sizes [1, 3, 1] : (tensor<5x2xf32>)"
        " -> (tensor<1x2xf32>, tensor<3x2xf32>, tensor<1x2xf32>)",
        ["tensor<5x2xf32>"],
        ["tensor<1x2xf32>", "tensor<3x2xf32>", "tensor<1x2xf32>"],
        [f32(5, 2)],
        lambda x: (x[0:1], x[1:4], x[4:5]),
        exact=True,
    ),
    Case(
        "gather-window",
        "graph.gather %a0, %a1 dim 1 : (tensor<3x5xf32>, "
        "tensor<2x4xi64>) -> tensor<2x4xf32>",
        ["tensor<3x5xf32>", "tensor<2x4xi64>"],
        ["tensor<2x4xf32>"],
        [f32(3, 5), ints(2, 4, low=0, high=5, dtype=np.int64)],
        lambda x, i: gather_ref(x, i, 1),
        exact=True,
    ),
    Case(
        "gather-dim0",
        "graph.gather %a0, %a1 dim 0 : (tensor<3x5xi32>, "
        "tensor<4x5xi32>) -> tensor<4x5xi32>",
        ["tensor<3x5xi32>", "tensor<4x5xi32>"],
        ["tensor<4x5xi32>"],
        [ints(3, 5), ints(4, 5, low=0, high=3)],
        lambda x, i: gather_ref(x, i, 0),
        exact=True,
    ),
    Case(
        "embedding",
        "graph.embedding %a0, %a1 : (tensor<2x3xi64>, tensor<6x4xf32>)"
        " -> tensor<2x3x4xf32>",
        ["tensor<2x3xi64>", "tensor<6x4xf32>"],
        ["tensor<2x3x4xf32>"],
        [ints(2, 3, low=0, high=6, dtype=np.int64), f32(6, 4)],
        lambda i, w: [[w[i[r, c]] for c in range(3)] for r in range(2)],
        exact=True,
    ),
    unary(
        "clamp",
        lambda x: [[f64(min(max(v, -0.5), 0.75)) for v in row] for row in x],
        f32(3, 5),
        props=" min -0.5 max 0.75",
    ),
    unary(
        "clamp-nan-and-crossed",
        lambda x: np.where(np.isnan(x), np.nan, -1.0),
        np.array([[np.nan, 0.0, 5.0, -5.0, np.inf]] * 3, np.float32),
        props=" min 1.0 max -1.0",
    ),
    unary(
        "clamp-i32",
        lambda x: np.maximum(x, -2),
        ints(3, 5),
        "tensor<3x5xi32>",
        exact=True,
        props=" min -2.0",
    ),
    unary(
        "hardsigmoid",
        elementwise(lambda v: 0.0 if v <= -3 else 1.0 if v >= 3 else v / 6 + 0.5),
        np.array([[-4, -3, -1.5, 0, 1.5, 3, 4, np.nan]], np.float32),
        "tensor<1x8xf32>",
    ),
    unary(
        "hardswish",
        elementwise(lambda v: 0.0 if v <= -3 else v if v >= 3 else v * (v + 3) / 6),
        np.array([[-4, -3, -1.5, 0, 1.5, 3, 4, np.nan]], np.float32),
        "tensor<1x8xf32>",
    ),
    binary(
        "logical_and",
        np.logical_and,
        bools(4, 1),
        bools(8),
        "tensor<4x1xi1>",
        "tensor<8xi1>",
        TB,
        exact=True,
    ),
    binary(
        "logical_or", np.logical_or, bools(4, 8), bools(8), TB, "tensor<8xi1>", TB, True
    ),
    unary("logical_not", lambda x: ~x, bools(3, 5), "tensor<3x5xi1>", exact=True),
    binary("bitwise_and", lambda a, b: a & b, *bit_pair, *TI, exact=True),
    binary("bitwise_or", lambda a, b: a | b, *bit_pair, *TI, exact=True),
    binary("bitwise_xor", lambda a, b: a ^ b, *bit_pair, *TI, exact=True),
    unary("bitwise_not", lambda x: -x - 1, ints(3, 5), "tensor<3x5xi32>", exact=True),
    binary("shift_left", _per_element(_shl32), *shift_pair, *TI, exact=True),
    binary("shift_right", _per_element(_shr32), *shift_pair, *TI, exact=True),
    binary("gcd", _per_element(math.gcd), *bit_pair, *TI, exact=True),
    Case(
        "any",
        "graph.any %a0 dims [1] : (tensor<3x4xi1>) -> tensor<3xi1>",
        ["tensor<3x4xi1>"],
        ["tensor<3xi1>"],
        [np.array([[0, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 1]], bool)],
        lambda x: [False, True, True],
        exact=True,
    ),
    Case(
        "all",
        "graph.all %a0 dims [1] keepdim : (tensor<3x4xi1>) -> tensor<3x1xi1>",
        ["tensor<3x4xi1>"],
        ["tensor<3x1xi1>"],
        [np.array([[0, 0, 0, 0], [0, 1, 0, 0], [1, 1, 1, 1]], bool)],
        lambda x: [[False], [False], [True]],
        exact=True,
    ),
    Case(
        "any-empty",
        "graph.any %a0 dims [1] : (tensor<2x0xi1>) -> tensor<2xi1>",
        ["tensor<2x0xi1>"],
        ["tensor<2xi1>"],
        [np.zeros((2, 0), bool)],
        lambda x: [False, False],
        exact=True,
    ),
    Case(
        "cumsum",
        "graph.cumsum %a0 dim 1 : tensor<3x5xf32>",
        ["tensor<3x5xf32>"],
        ["tensor<3x5xf32>"],
        [f32(3, 5)],
        lambda x: [[f64(sum(f64(row[: c + 1]))) for c in range(5)] for row in x],
    ),
    Case(
        "cumsum-i32",
        "graph.cumsum %a0 dim 0 : tensor<3x5xi32>",
        ["tensor<3x5xi32>"],
        ["tensor<3x5xi32>"],
        [ints(3, 5)],
        lambda x: [[int(x[: r + 1, c].sum()) for c in range(5)] for r in range(3)],
        exact=True,
    ),
    Case(
        "index-adjacent",
        "graph.index %a0, %a1, %a2 dims [1, 2] : (tensor<2x4x5x3xf32>, "
        "tensor<6xi64>, tensor<2x1xi32>) -> tensor<2x2x6x3xf32>",
        ["tensor<2x4x5x3xf32>", "tensor<6xi64>", "tensor<2x1xi32>"],
        ["tensor<2x2x6x3xf32>"],
        [
            f32(2, 4, 5, 3),
            ints(6, low=-4, high=4, dtype=np.int64),
            ints(2, 1, low=-5, high=5),
        ],
        lambda x, i, j: [
            [
                [[x[a, i[c], j[b, 0], d] for d in range(3)] for c in range(6)]
                for b in range(2)
            ]
            for a in range(2)
        ],
        exact=True,
    ),
    Case(
        "index-separated",
        "graph.index %a0, %a1, %a2 dims [0, 2] : (tensor<2x4x5xi32>, "
        "tensor<3xi64>, tensor<3xi64>) -> tensor<3x4xi32>",
        ["tensor<2x4x5xi32>", "tensor<3xi64>", "tensor<3xi64>"],
        ["tensor<3x4xi32>"],
        [ints(2, 4, 5), np.array([1, -1, 0]), np.array([4, 0, -5])],
        lambda x, i, j: [[x[i[n], m, j[n]] for m in range(4)] for n in range(3)],
        exact=True,
    ),
    Case(
        "index-copy-repeated-index",
        "graph.index_copy %a0, %a1, %a2 dim 1 : (tensor<2x5x3xf32>, "
        "tensor<3xi64>, tensor<2x3x3xf32>) -> tensor<2x5x3xf32>",
        ["tensor<2x5x3xf32>", "tensor<3xi64>", "tensor<2x3x3xf32>"],
        ["tensor<2x5x3xf32>"],
        [f32(2, 5, 3), np.array([4, 1, 4]), f32(2, 3, 3)],
        # position 4 is written twice: the last slice (k = 2) wins
        lambda x, i, s: [
            [s[a, 2] if r == 4 else s[a, 1] if r == 1 else x[a, r] for r in range(5)]
            for a in range(2)
        ],
        exact=True,
    ),
    Case(
        "index-add-repeated-index",
        "graph.index_add %a0, %a1, %a2 dim 1 : (tensor<2x5x3xf32>, "
        "tensor<4xi64>, tensor<2x4x3xf32>) -> tensor<2x5x3xf32>",
        ["tensor<2x5x3xf32>", "tensor<4xi64>", "tensor<2x4x3xf32>"],
        ["tensor<2x5x3xf32>"],
        [f32(2, 5, 3), np.array([4, 1, 4, 4]), f32(2, 4, 3)],
        # position 4 takes three slices, 1 one, the others none
        lambda x, i, s: [
            [x[a, r] + sum(s[a, k] for k in range(4) if i[k] == r) for r in range(5)]
            for a in range(2)
        ],
    ),
    Case(
        "index-add-int",
        "graph.index_add %a0, %a1, %a2 dim 0 : (tensor<3x2xi32>, "
        "tensor<3xi32>, tensor<3x2xi32>) -> tensor<3x2xi32>",
        ["tensor<3x2xi32>", "tensor<3xi32>", "tensor<3x2xi32>"],
        ["tensor<3x2xi32>"],
        [ints(3, 2), np.array([2, 2, 0], dtype=np.int32), ints(3, 2)],
        lambda x, i, s: [
            [x[r, c] + sum(s[k, c] for k in range(3) if i[k] == r) for c in range(2)]
            for r in range(3)
        ],
        exact=True,
    ),
    Case(
        "attention-bool-mask",
        "graph.attention %a0, %a1, %a2, %a3 scale 0.5 : (tensor<2x3x4xf32>, "
        "tensor<2x5x4xf32>, tensor<2x5x2xf32>, tensor<3x5xi1>) -> tensor<2x3x2xf32>",
        [
            "tensor<2x3x4xf32>",
            "tensor<2x5x4xf32>",
            "tensor<2x5x2xf32>",
            "tensor<3x5xi1>",
        ],
        ["tensor<2x3x2xf32>"],
        [
            f32(2, 3, 4),
            f32(2, 5, 4),
            f32(2, 5, 2),
            np.array([[1, 0, 1, 1, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 1]], bool),
        ],
        lambda q, k, v, m: attention_ref(q, k, v, 0.5, causal=False, mask=m),
    ),
    Case(
        "attention-additive-mask-causal",
        "graph.attention %a0, %a1, %a2, %a3 causal scale 0.5 : (tensor<2x3x4xf32>, "
        "tensor<2x5x4xf32>, tensor<2x5x2xf32>, tensor<2x1x5xf32>) -> tensor<2x3x2xf32>",
        [
            "tensor<2x3x4xf32>",
            "tensor<2x5x4xf32>",
            "tensor<2x5x2xf32>",
            "tensor<2x1x5xf32>",
        ],
        ["tensor<2x3x2xf32>"],
        [
            f32(2, 3, 4),
            f32(2, 5, 4),
            f32(2, 5, 2),
            np.array([[[-np.inf, 0.5, 0, -1, 2]], [[0, 1, -np.inf, 0, 0]]], np.float32),
        ],
        lambda q, k, v, m: attention_ref(q, k, v, 0.5, causal=True, mask=m),
    ),
    Case(
        "arange",
        "graph.arange start -3.0 step 2.0 : tensor<5xi64>",
        [],
        ["tensor<5xi64>"],
        [],
        lambda: [-3, -1, 1, 3, 5],
        exact=True,
    ),
    Case(
        "arange-f32",
        # float64 steps rounded once: 0.1 + 2 * 0.3 is 0.7 in f32
        "graph.arange start 0.1 step 0.3 : tensor<3xf32>",
        [],
        ["tensor<3xf32>"],
        [],
        lambda: np.array([0.1, 0.4, 0.7], np.float32),
        exact=True,
    ),
    Case(
        # Random123's Philox4x32-10 answer for counter 0, key 0: 0x6627e8d5
        "random",
        'graph.random %a0 distribution "bits" : (tensor<2xi64>) -> tensor<1xi64>',
        ["tensor<2xi64>"],
        ["tensor<1xi64>"],
        [np.array([0, 0], np.int64)],
        lambda seed: [0x6627E8D5],
        exact=True,
    ),
    Case(
        "random-uniform",
        'graph.random %a0 distribution "uniform" : (tensor<2xi64>) -> tensor<1xf32>',
        ["tensor<2xi64>"],
        ["tensor<1xf32>"],
        [np.array([0, 0], np.int64)],
        lambda seed: np.array([(0x6627E8D5 >> 8) * 2.0**-24], np.float32),
        exact=True,
    ),
    Case(
        "constant",
        "graph.constant dense<[[1.5, -2.0], [0.25, 3.0]]> : tensor<2x2xf32>",
        [],
        ["tensor<2x2xf32>"],
        [],
        lambda: [[1.5, -2.0], [0.25, 3.0]],
        exact=True,
    ),
    Case(
        "constant-splat-i64",
        "graph.constant dense<-7> : tensor<2x3xi64>",
        [],
        ["tensor<2x3xi64>"],
        [],
        lambda: [[-7] * 3] * 2,
        exact=True,
    ),
    Case(
        "constant-i1",
        "graph.constant dense<[true, false, true]> : tensor<3xi1>",
        [],
        ["tensor<3xi1>"],
        [],
        lambda: [True, False, True],
        exact=True,
    ),
    Case(
        "constant-bf16",
        "graph.constant dense<[1.5, -0.125]> : tensor<2xbf16>",
        [],
        ["tensor<2xbf16>"],
        [],
        lambda: [1.5, -0.125],
        exact=True,
    ),
    Case(
        "full",
        "graph.full value -inf : tensor<2x2xf32>",
        [],
        ["tensor<2x2xf32>"],
        [],
        lambda: [[-math.inf] * 2] * 2,
        exact=True,
    ),
    Case(
        "full-i32",
        "graph.full value 3.0 : tensor<3xi32>",
        [],
        ["tensor<3xi32>"],
        [],
        lambda: [3, 3, 3],
        exact=True,
    ),
    Case(
        "conv2d-grouped",
        "graph.conv2d %a0, %a1, %a2 dilation [1, 2] groups 2 padding [1, 0] "
        "stride [2, 1] : (tensor<2x4x7x6xf32>, tensor<6x2x3x2xf32>, tensor<6xf32>) "
        "-> tensor<2x6x4x4xf32>",
        ["tensor<2x4x7x6xf32>", "tensor<6x2x3x2xf32>", "tensor<6xf32>"],
        ["tensor<2x6x4x4xf32>"],
        [f32(2, 4, 7, 6), f32(6, 2, 3, 2), f32(6)],
        lambda x, w, b: conv_ref(x, w, b, (2, 1), (1, 0), (1, 2), 2),
    ),
    Case(
        "conv2d-depthwise",
        "graph.conv2d %a0, %a1 dilation [1, 1] groups 3 padding [1, 1] "
        "stride [2, 2] : (tensor<1x3x5x5xf32>, tensor<3x1x3x3xf32>) "
        "-> tensor<1x3x3x3xf32>",
        ["tensor<1x3x5x5xf32>", "tensor<3x1x3x3xf32>"],
        ["tensor<1x3x3x3xf32>"],
        [f32(1, 3, 5, 5), f32(3, 1, 3, 3)],
        lambda x, w: conv_ref(x, w, None, (2, 2), (1, 1), (1, 1), 3),
    ),
    Case(
        "conv1d",
        "graph.conv1d %a0, %a1, %a2 dilation [2] groups 1 padding [2] stride [2] "
        ": (tensor<2x4x9xf32>, tensor<3x4x3xf32>, tensor<3xf32>) -> tensor<2x3x5xf32>",
        ["tensor<2x4x9xf32>", "tensor<3x4x3xf32>", "tensor<3xf32>"],
        ["tensor<2x3x5xf32>"],
        [f32(2, 4, 9), f32(3, 4, 3), f32(3)],
        lambda x, w, b: conv_ref(x, w, b, (2,), (2,), (2,), 1),
    ),
    Case(
        "max_pool2d-ceil-dilated",
        "graph.max_pool2d %a0 ceil_mode dilation [1, 2] kernel [3, 2] padding [1, 0] "
        "stride [2, 2] : (tensor<1x2x7x6xf32>) -> tensor<1x2x4x3xf32>",
        ["tensor<1x2x7x6xf32>"],
        ["tensor<1x2x4x3xf32>"],
        [f32(1, 2, 7, 6)],
        lambda x: max_pool_ref(x, (4, 3), (3, 2), (2, 2), (1, 0), (1, 2)),
        exact=True,
    ),
    Case(
        "avg_pool2d-ceil-include-pad",
        "graph.avg_pool2d %a0 ceil_mode count_include_pad kernel [3, 3] "
        "padding [1, 1] stride [2, 2] : (tensor<1x2x7x6xf32>) -> tensor<1x2x4x4xf32>",
        ["tensor<1x2x7x6xf32>"],
        ["tensor<1x2x4x4xf32>"],
        [f32(1, 2, 7, 6)],
        lambda x: avg_pool_ref(x, (4, 4), (3, 3), (2, 2), (1, 1), True),
    ),
    Case(
        "avg_pool2d-ceil",
        "graph.avg_pool2d %a0 ceil_mode kernel [3, 3] padding [1, 1] stride [2, 2] "
        ": (tensor<1x2x7x6xf32>) -> tensor<1x2x4x4xf32>",
        ["tensor<1x2x7x6xf32>"],
        ["tensor<1x2x4x4xf32>"],
        [f32(1, 2, 7, 6)],
        lambda x: avg_pool_ref(x, (4, 4), (3, 3), (2, 2), (1, 1), False),
    ),
    Case(
        "adaptive_avg_pool2d",
        "graph.adaptive_avg_pool2d %a0 : (tensor<1x2x7x5xf32>) -> tensor<1x2x3x2xf32>",
        ["tensor<1x2x7x5xf32>"],
        ["tensor<1x2x3x2xf32>"],
        [f32(1, 2, 7, 5)],
        lambda x: adaptive_avg_pool_ref(x, (3, 2)),
    ),
    Case(
        "batch_norm",
        "graph.batch_norm %a0, %a1, %a2, %a3, %a4 eps 1.0e-03 : (tensor<2x3x4xf32>, "
        "tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) "
        "-> tensor<2x3x4xf32>",
        ["tensor<2x3x4xf32>"] + ["tensor<3xf32>"] * 4,
        ["tensor<2x3x4xf32>"],
        [f32(2, 3, 4), f32(3), positive(3), f32(3), f32(3)],
        lambda x, m, v, w, b: batch_norm_ref(x, m, v, w, b, 1e-3),
    ),
    Case(
        "fusion_group",
        "graph.fusion_group (%a0, %a1) : (tensor<4xf32>, tensor<4xf32>)"
        " -> (tensor<4xf32>, tensor<4xf32>) {\n"
        "  ^bb0(%x: tensor<4xf32>, %y: tensor<4xf32>):\n"
        "    %s = graph.add %x, %y : tensor<4xf32>\n"
        "    %e = graph.exp %s : tensor<4xf32>\n"
        "    graph.yield %e, %s : tensor<4xf32>, tensor<4xf32>\n  }",
        ["tensor<4xf32>", "tensor<4xf32>"],
        ["tensor<4xf32>", "tensor<4xf32>"],
        [f32(4), f32(4)],
        lambda a, b: (np.exp(f64(a) + f64(b)), f64(a) + f64(b)),
    ),
]


def _compare(
    case: Case, outputs: tuple[Array, ...], rtol: float = 1e-5, atol: float = 1e-6
) -> None:
    expected = case.ref(*case.inputs)
    if len(case.results) == 1:
        expected = (expected,)
    assert len(outputs) == len(case.results) == len(expected)
    for out, want in zip(outputs, expected):
        want = np.asarray(want)
        assert out.shape == want.shape
        if case.exact:
            np.testing.assert_array_equal(out, want.astype(out.dtype), strict=True)
        else:
            np.testing.assert_allclose(f64(out), want, rtol=rtol, atol=atol)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_op_numerics(case: Case) -> None:
    module = fxdsl.parse(case.module_text())
    outputs = run_reference(module, *case.inputs, check_types=True)
    function = entry_function(module)
    for out, typ in zip(outputs, function.function_type.outputs.data):
        assert check_value(out, typ) is None
    _compare(case, outputs)


# Each op computes in float32 and rounds once: within about one ulp of the
# result type (f16: 2^-11 relative, bf16: 2^-8) of a float64 reference.
LOW_PRECISION = {
    "f16": (lambda x: x.astype(np.float16), 1e-3),
    "bf16": (round_to_bf16, 8e-3),
}
FLOAT_CASES = [
    c
    for c in CASES
    if not c.exact
    and c.args
    and all("xf32>" in t for t in c.args + c.results)
    # One op, one rounding: a region rounds after each of its ops.
    and "graph.yield" not in c.body
]


@pytest.mark.parametrize("dtype", sorted(LOW_PRECISION))
@pytest.mark.parametrize("case", FLOAT_CASES, ids=[c.id for c in FLOAT_CASES])
def test_op_numerics_in_low_precision(case: Case, dtype: str) -> None:
    convert, rtol = LOW_PRECISION[dtype]
    low = Case(
        case.id,
        case.body.replace("xf32>", f"x{dtype}>"),
        [t.replace("xf32>", f"x{dtype}>") for t in case.args],
        [t.replace("xf32>", f"x{dtype}>") for t in case.results],
        [convert(x) for x in case.inputs],
        case.ref,
    )
    outputs = run_reference(
        fxdsl.parse(low.module_text()), *low.inputs, check_types=True
    )
    atol = 1e-5
    if case.id.startswith("attention"):
        # FlashAttention's second rounding: the softmax numerators are
        # rounded to 16 bits for P @ V, off by up to an ulp of v's largest
        atol = rtol * float(np.max(np.abs(low.inputs[2])))
    _compare(low, outputs, rtol=rtol, atol=atol)


def test_every_graph_op_has_an_impl() -> None:
    implemented = {
        op_type
        for functions in (GraphFunctions, LinalgFunctions)
        for op_type, _ in functions._impls()  # pyright: ignore
    }
    missing = [op.name for op in graph.GRAPH_OPS if op not in implemented]
    assert not missing, f"graph ops without an interpreter impl: {missing}"


def test_every_graph_op_has_a_numerics_case() -> None:
    used = {name for c in CASES for name in re.findall(r"graph\.\w+", c.body)}
    # the linear algebra's cases are test_linalg.py's (it checks it has all)
    others = [op for op in graph.GRAPH_OPS if op not in graph.LINALG_OPS]
    missing = [op.name for op in others if op.name not in used]
    assert not missing, f"graph ops without a numerics case: {missing}"


# --------------------------------------------------------------------------- #
# Dtype behaviour
# --------------------------------------------------------------------------- #


def _run_text(text: str, *inputs: Array) -> tuple[Array, ...]:
    return run_reference(fxdsl.parse(text), *inputs, check_types=True)


def test_integer_division_floors_toward_minus_infinity() -> None:
    text = """func.func @f(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
      %r = graph.div %a, %b : tensor<4xi64>
      func.return %r : tensor<4xi64>
    }"""
    a = np.array([7, -7, 7, -7], np.int64)
    b = np.array([2, 2, -2, -2], np.int64)
    (out,) = _run_text(text, a, b)
    np.testing.assert_array_equal(out, [3, -4, -4, 3], strict=True)


def test_variance_of_values_far_from_zero_is_accurate() -> None:
    """graph.var accumulates in float64, as torch's CPU kernels do for f32:
    two f32 passes over 1e4 + 1e-2 noise lose the variance to about 1e-3
    (the mean's rounding, squared)."""
    text = """func.func @f(%a: tensor<4x1000xf32>) -> tensor<4xf32> {
      %r = graph.var %a dims [1] : (tensor<4x1000xf32>) -> tensor<4xf32>
      func.return %r : tensor<4xf32>
    }"""
    a = (1e4 + 1e-2 * rng.standard_normal((4, 1000))).astype(np.float32)
    (out,) = _run_text(text, a)
    exact = np.var(a.astype(np.float64), axis=1, ddof=1)
    np.testing.assert_allclose(out, exact, rtol=1e-6)


def test_f16_computes_in_float32_and_rounds_back() -> None:
    text = """func.func @f(%a: tensor<3xf16>, %b: tensor<3xf16>) -> tensor<3xf16> {
      %r = graph.mul %a, %b : tensor<3xf16>
      %e = graph.exp %r : tensor<3xf16>
      func.return %e : tensor<3xf16>
    }"""
    a = np.array([0.1, 1.5, 3.0], np.float16)
    b = np.array([0.3, -2.0, 2.5], np.float16)
    (out,) = _run_text(text, a, b)
    assert out.dtype == np.float16
    product = (a.astype(np.float32) * b.astype(np.float32)).astype(np.float16)
    expected = np.exp(product.astype(np.float32)).astype(np.float16)
    np.testing.assert_array_equal(out, expected, strict=True)


def test_bf16_values_are_rounded_after_every_op() -> None:
    text = """func.func @f(%a: tensor<3xbf16>, %b: tensor<3xbf16>) -> tensor<3xbf16> {
      %r = graph.add %a, %b : tensor<3xbf16>
      func.return %r : tensor<3xbf16>
    }"""
    # 1 + 2^-8 is halfway between bf16 neighbours 1 and 1 + 2^-7: ties go to even (1);
    # 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: ties go to 1 + 2^-6.
    a = np.array([1.0, 1.0, 2.0], np.float32)
    # 2 + 2^-8 is below half of 2's bf16 spacing (2^-6): it rounds down to 2.
    b = np.array([2.0**-8, 3 * 2.0**-8, 2.0**-8], np.float32)
    (out,) = _run_text(text, a, b)
    expected = np.array([1.0, 1.0 + 2.0**-6, 2.0], np.float32)
    np.testing.assert_array_equal(out, expected, strict=True)


def test_bf16_inputs_are_rounded_on_entry() -> None:
    text = """func.func @f(%a: tensor<2xbf16>) -> tensor<2xbf16> {
      %r = graph.neg %a : tensor<2xbf16>
      func.return %r : tensor<2xbf16>
    }"""
    (out,) = _run_text(text, np.array([1.0 + 2.0**-10, 3.0], np.float32))
    np.testing.assert_array_equal(out, np.array([-1.0, -3.0], np.float32), strict=True)


def test_round_to_bf16_special_values() -> None:
    x = np.array([np.nan, np.inf, -np.inf, 3.4e38, -0.0, 1e-40], np.float32)
    out = round_to_bf16(x)
    assert np.isnan(out[0])
    np.testing.assert_array_equal(out[1:4], [np.inf, -np.inf, np.inf])
    assert out[4] == 0
    assert np.signbit(out[4])
    assert out.view(np.uint32)[5] & 0xFFFF == 0


def test_cast_to_bf16_and_f16() -> None:
    text = """func.func @f(%a: tensor<2xf32>) -> (tensor<2xbf16>, tensor<2xf16>) {
      %b = graph.cast %a : (tensor<2xf32>) -> tensor<2xbf16>
      %h = graph.cast %a : (tensor<2xf32>) -> tensor<2xf16>
      func.return %b, %h : tensor<2xbf16>, tensor<2xf16>
    }"""
    a = np.array([1.0 + 2.0**-9, 65536.0], np.float32)
    bf, half = _run_text(text, a)
    np.testing.assert_array_equal(bf, np.array([1.0, 65536.0], np.float32), strict=True)
    np.testing.assert_array_equal(
        half, np.array([1.0 + 2.0**-9, np.inf], np.float16), strict=True
    )


def test_comparison_outputs_are_bool() -> None:
    text = """func.func @f(%a: tensor<3xf32>) -> tensor<3xi1> {
      %z = graph.full value 0.0 : tensor<3xf32>
      %r = graph.gt %a, %z : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xi1>
      func.return %r : tensor<3xi1>
    }"""
    (out,) = _run_text(text, np.array([-1.0, 0.0, 2.0], np.float32))
    np.testing.assert_array_equal(out, [False, False, True], strict=True)


# --------------------------------------------------------------------------- #
# Calls, structure and errors
# --------------------------------------------------------------------------- #


def test_call_to_private_function() -> None:
    text = """
    func.func private @block(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
      %m = graph.mul %x, %w : tensor<4xf32>
      %r = graph.relu %m : tensor<4xf32>
      func.return %r : tensor<4xf32>
    }
    func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {
      %a = func.call @block(%x, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      %b = func.call @block(%a, %w) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      func.return %b : tensor<4xf32>
    }"""
    x = np.array([1.0, -2.0, 3.0, 0.5], np.float32)
    w = np.array([2.0, 3.0, -1.0, 4.0], np.float32)
    (out,) = _run_text(text, x, w)
    once = np.maximum(x * w, 0)
    np.testing.assert_array_equal(out, np.maximum(once * w, 0), strict=True)


def test_gather_index_out_of_range_is_an_error() -> None:
    text = """func.func @f(%x: tensor<3xf32>, %i: tensor<2xi64>) -> tensor<2xf32> {
      %r = graph.gather %x, %i dim 0 : (tensor<3xf32>, tensor<2xi64>) -> tensor<2xf32>
      func.return %r : tensor<2xf32>
    }"""
    x = np.zeros(3, np.float32)
    with pytest.raises(
        ValueError, match=r"graph.gather: index 3 is out of range \[0, 3\)"
    ):
        _run_text(text, x, np.array([0, 3], np.int64))
    with pytest.raises(ValueError, match="index -1 is out of range"):
        _run_text(text, x, np.array([-1, 0], np.int64))


def test_embedding_index_out_of_range_is_an_error() -> None:
    text = """func.func @f(%i: tensor<2xi32>, %w: tensor<3x2xf32>) -> tensor<2x2xf32> {
      %r = graph.embedding %i, %w : (tensor<2xi32>, tensor<3x2xf32>) -> tensor<2x2xf32>
      func.return %r : tensor<2x2xf32>
    }"""
    with pytest.raises(ValueError, match="graph.embedding: index 5 is out of range"):
        _run_text(text, np.array([0, 5], np.int32), np.zeros((3, 2), np.float32))


def test_integer_pow_with_negative_exponents_is_torchs() -> None:
    """torch's integer pow of tensors: a negative exponent gives 0, 1 for
    a base of 1, and +-1 for -1 by its parity (numpy raises instead)."""
    text = """func.func @f(%a: tensor<6xi32>, %b: tensor<6xi32>) -> tensor<6xi32> {
      %r = graph.pow %a, %b : tensor<6xi32>
      func.return %r : tensor<6xi32>
    }"""
    base = np.array([2, 2, 1, -1, -1, 0], np.int32)
    exponent = np.array([3, -1, -7, -2, -3, -1], np.int32)
    (out,) = _run_text(text, base, exponent)
    want = np.array([8, 0, 1, 1, -1, 0], np.int32)
    np.testing.assert_array_equal(out, want, strict=True)


def test_type_checker_catches_wrong_dtype() -> None:
    typ = fxdsl.parse("""func.func @f(%a: tensor<2xbf16>) -> tensor<2xbf16> {
      func.return %a : tensor<2xbf16>
    }""").body.block.first_op.function_type.inputs.data[0]  # type: ignore[union-attr]
    assert check_value(np.zeros(2, np.float32), typ) is None
    assert "not bf16-representable" in str(
        check_value(np.full(2, 1.001, np.float32), typ)
    )
    assert "expected tensor<2xbf16>" in str(check_value(np.zeros(2, np.float64), typ))
    assert "expected tensor<2xbf16>" in str(check_value(np.zeros(3, np.float32), typ))


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
@pytest.mark.parametrize(("shape", "dim"), [((4, 0), 1), ((0, 4), 1), ((0, 4), 0)])
def test_softmax_over_empty_tensors_is_empty(
    op: str, shape: tuple[int, int], dim: int
) -> None:
    # torch gives an empty tensor; numpy's max over a size-0 axis raised
    t = f"tensor<{shape[0]}x{shape[1]}xf32>"
    module = fxdsl.parse(
        f"func.func @f(%x: {t}) -> {t} {{\n"
        f"  %y = graph.{op} %x dim {dim} : {t}\n  func.return %y : {t}\n}}"
    )
    (y,) = run_reference(module, np.zeros(shape, np.float32))
    assert (y.shape, y.dtype) == (shape, np.float32)


@pytest.mark.parametrize("op", ["max", "min"])
def test_max_over_an_empty_tensor_is_empty_or_an_error(op: str) -> None:
    """Reducing a non-empty dim of an empty tensor gives an empty result,
    as torch's `aminmax(x, dim=0)` of a 5x0x5 tensor (it raised, as a fold
    over no elements does); folding the empty dim itself has no value."""
    t = "tensor<5x0x5xf32>"
    module = fxdsl.parse(
        f"func.func @f(%x: {t}) -> tensor<0x5xf32> {{\n"
        f"  %y = graph.{op} %x dims [0] : ({t}) -> tensor<0x5xf32>\n"
        "  func.return %y : tensor<0x5xf32>\n}"
    )
    (y,) = run_reference(module, np.zeros((5, 0, 5), np.float32))
    assert y.shape == (0, 5)
    folded = fxdsl.parse(
        f"func.func @f(%x: {t}) -> tensor<5x5xf32> {{\n"
        f"  %y = graph.{op} %x dims [1] : ({t}) -> tensor<5x5xf32>\n"
        "  func.return %y : tensor<5x5xf32>\n}"
    )
    with pytest.raises(Exception, match="reduction of an empty tensor"):
        run_reference(folded, np.zeros((5, 0, 5), np.float32))


def test_index_out_of_range_names_the_op_and_dim() -> None:
    text = """func.func @f(%x: tensor<4x3xf32>, %i: tensor<2xi64>) -> tensor<4x2xf32> {
      %r = graph.index %x, %i dims [1] : (tensor<4x3xf32>, tensor<2xi64>) -> tensor<4x2xf32>
      func.return %r : tensor<4x2xf32>
    }"""
    with pytest.raises(
        ValueError, match="graph.index: index -4 is out of range for dim 1 of size 3"
    ):
        _run_text(text, f32(4, 3), np.array([2, -4]))


def test_index_add_in_a_given_order_checks_it_is_a_stable_argsort() -> None:
    text = """func.func @f(%x: tensor<3x2xbf16>, %i: tensor<4xi64>, %s: tensor<4x2xbf16>,
        %o: tensor<4xi64>) -> tensor<3x2xbf16> {
      %r = graph.index_add %x, %i, %s, %o dim 0 : (tensor<3x2xbf16>, tensor<4xi64>,
        tensor<4x2xbf16>, tensor<4xi64>) -> tensor<3x2xbf16>
      func.return %r : tensor<3x2xbf16>
    }"""
    x = np.zeros((3, 2), np.float32)
    index = np.array([2, 0, 2, 0])
    # bf16 sums round each step: 256 + 1 + 1 is 256, in index order
    source = np.array([[256, 1], [1, 1], [1, 1], [1, 2]], np.float32)
    (out,) = _run_text(text, x, index, source, np.array([1, 3, 0, 2]))
    assert out.tolist() == [[2.0, 3.0], [0.0, 0.0], [256.0, 2.0]]
    for order, why in (
        ([1, 3, 3, 2], "not a permutation"),
        ([0, 2, 1, 3], "not a stable argsort"),
        ([3, 1, 0, 2], "not a stable argsort"),
    ):
        with pytest.raises(ValueError, match=f"graph.index_add: order is {why}"):
            _run_text(text, x, index, source, np.array(order))


def test_index_copy_leaves_its_input_unchanged_and_checks_the_range() -> None:
    text = """func.func @f(%x: tensor<4x2xf32>, %i: tensor<1xi64>, %s: tensor<1x2xf32>)
        -> tensor<4x2xf32> {
      %r = graph.index_copy %x, %i, %s dim 0
        : (tensor<4x2xf32>, tensor<1xi64>, tensor<1x2xf32>) -> tensor<4x2xf32>
      func.return %r : tensor<4x2xf32>
    }"""
    x, source = np.zeros((4, 2), np.float32), np.ones((1, 2), np.float32)
    (out,) = _run_text(text, x, np.array([2]), source)
    assert out[2].tolist() == [1.0, 1.0]
    assert out.sum() == 2.0
    assert not x.any()  # value semantics: the argument is not written
    with pytest.raises(
        ValueError, match=r"graph.index_copy: index 4 is out of range \[0, 4\)"
    ):
        _run_text(text, x, np.array([4]), source)
