"""Complex tensors inside an imported program, as pairs of real ones.

The graph dialect has no complex element type. A complex64 value of shape
S imports as a `Complex`: an f32 tensor of shape S + [2] holding (re, im),
the memory layout of `torch.view_as_real`, so `view_as_real` and
`view_as_complex` cost nothing and every later pass, the reference
interpreter and the GPU kernels see ordinary real tensors. (MLIR lowers
its `complex` dialect to pairs of floats the same way, only later; doing
it at import keeps every pass of fxdsl real-valued.)

What takes complex values here:
- layout and linear ops (views, permutes, slices, cat, sum, mean, ...:
  `COMPONENTWISE`) run their real handler on each part;
- arithmetic (`add`, `sub`, `mul`, `div` with complex or real operands,
  `neg`), `conj`, `abs`, `angle`, `exp`, `where`, `constant_pad_nd`,
  `real`, `imag`, `complex`, `polar`, clones and casts to and from complex
  types (`HANDLERS`);
- the FFTs ATen reduces every `torch.fft` function to (`_fft_r2c`,
  `_fft_c2c`, `_fft_c2r`), as DFT GEMMs with constant tables of twiddles:
  dense for a short or prime length, split Cooley-Tukey style for a long
  composite one (`_dft`; FNet's mixing layer, the one complex op of
  PyTorch's Hugging Face suite, is two of them).

A complex value crosses the program's boundary as its real view too: the
function's complex inputs, weights and outputs are pairs (the importer's
`to_numpy` and `ImportedProgram.run` convert; the torch.compile runner
passes torch's complex tensors in and out with `view_as_real` and
`view_as_complex`, and so for a node left to torch). complex32 is refused.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from fxdsl.frontends.aten_elementwise import handler_for
from fxdsl.frontends.aten_registry import (
    ATEN,
    AtenCall,
    UnsupportedNode,
    cast_to,
    dim_of,
    graph_dtype,
)
from fxdsl.ir import graph
from fxdsl.tracing import ops
from fxdsl.tracing.tracer import Tensor

COMPONENT = {"torch.complex64": "f32", "torch.complex128": "f64"}
"""The real type of each importable complex type's parts (complex32 has
no 16-bit FFT on the CPU to check it against)."""


class Complex:
    """A complex tensor as its real view `pair` (shape + [2]: re, im)."""

    def __init__(self, pair: Tensor) -> None:
        self.pair = pair
        self._parts: tuple[Tensor, Tensor] | None = None

    @property
    def shape(self) -> list[int]:
        return list(self.pair.shape[:-1])

    @property
    def dtype(self) -> str:
        """The parts' real type."""
        return self.pair.dtype

    def parts(self) -> tuple[Tensor, Tensor]:
        """(re, im), each of `shape` (sliced once)."""
        if self._parts is None:
            rank = len(self.shape)
            start, limit = [0] * (rank + 1), [*self.shape, 1]
            re = ops.reshape(ops.slice(self.pair, start, limit), self.shape)
            start[-1], limit[-1] = 1, 2
            im = ops.reshape(ops.slice(self.pair, start, limit), self.shape)
            self._parts = (re, im)
        return self._parts


def make(re: Tensor, im: Tensor | None) -> Complex:
    """The complex value re + i im (im None: 0)."""
    if im is None:
        im = ops.full(list(re.shape), 0.0, re.dtype)
    shape = [*re.shape, 1]
    value = Complex(ops.concat([ops.reshape(re, shape), ops.reshape(im, shape)], -1))
    value._parts = (re, im)
    return value


def is_complex(value: Any) -> bool:
    """Whether a torch value (a node's `meta["val"]`) is a complex tensor."""
    return bool(getattr(getattr(value, "dtype", None), "is_complex", False))


def involved(node: Any) -> bool:
    """Whether `node` makes or reads a complex tensor."""
    import torch.utils._pytree as pytree

    values = [node.meta.get("val"), *(n.meta.get("val") for n in node.all_input_nodes)]
    return any(is_complex(v) for v in pytree.tree_leaves(values))


def component(torch_dtype: Any) -> str:
    """The parts' type of a complex torch dtype, or UnsupportedNode."""
    name = str(torch_dtype)
    if name not in COMPONENT:
        raise UnsupportedNode(f"dtype {name} is not supported (complex: only "
                              f"{', '.join(COMPONENT)})")  # fmt: skip
    return COMPONENT[name]


HANDLERS: dict[str, Callable[[AtenCall], Any]] = {}
"""`"aten.mul.Tensor"` → its handler on complex operands."""


def _complex(*names: str) -> Callable[[Any], Any]:
    def register(handler: Any) -> Any:
        for name in names:
            HANDLERS[f"aten.{name}"] = handler
        return handler

    return register


def emit(call: AtenCall) -> Any:
    """`call` (a node that makes or reads complex values) imported: a
    `Complex`, a real tensor, or a list of them; None when no handler here
    takes it (the importer then tries torch's decomposition). A complex
    type without parts fxdsl has (complex32) is an UnsupportedNode."""
    import torch.utils._pytree as pytree

    for value in pytree.tree_leaves([call.result, *call.arg_results]):
        if is_complex(value):
            component(value.dtype)
    handler = HANDLERS.get(call.target)
    if handler is not None:
        return handler(call)
    if call.target in COMPONENTWISE:
        return _componentwise(call)
    return None


def _parts(x: Any) -> tuple[Any, Any]:
    """(re, im) of a Complex, a real tensor (im None), a Python complex
    or a real number."""
    if isinstance(x, Complex):
        return x.parts()
    if isinstance(x, complex):
        return x.real, x.imag
    return x, None


# --------------------------------------------------------------------------- #
# ops that act on each part alone
# --------------------------------------------------------------------------- #

COMPONENTWISE = frozenset(
    f"aten.{name}"
    for name in (
        "view.default", "_unsafe_view.default", "reshape.default",
        "permute.default", "transpose.int", "t.default", "expand.default",
        "slice.Tensor", "select.int", "narrow.default", "unsqueeze.default",
        "squeeze.default", "squeeze.dim", "squeeze.dims", "detach.default",
        "lift_fresh_copy.default", "cat.default", "stack.default",
        "flip.default", "roll.default", "repeat.default", "sum.dim_IntList",
        "sum.default", "mean.dim", "mean.default", "index.Tensor", "gather.default",
        "unbind.int", "split.Tensor", "split_with_sizes.default",
        "movedim.int", "diagonal.default", "unfold.default",
    )
)  # fmt: skip
"""Ops that are real-linear and act on each element whole (f(a + ib) =
f(a) + i f(b)): their real handler runs on re and im."""


def _componentwise(
    call: AtenCall, args_of: Callable[[int], tuple[Any, ...]] | None = None
) -> Any:
    import torch.utils._pytree as pytree

    handler = handler_for(call.target)
    if handler is None:  # `roll`: torch's decomposition, on the pair's parts
        return None

    def part(index: int) -> Any:
        def pick(x: Any) -> Any:
            if isinstance(x, list | tuple):
                return type(x)(pick(v) for v in x)
            return x.parts()[index] if isinstance(x, Complex) else x

        return handler(
            AtenCall(
                call.target,
                pick(call.args if args_of is None else args_of(index)),
                {k: pick(v) for k, v in call.kwargs.items()},
                pytree.tree_map(_real_like, call.result),
                tuple(pytree.tree_map(_real_like, r) for r in call.arg_results),
                call.used,
            )
        )

    re, im = part(0), part(1)
    if isinstance(re, list | tuple):
        return [make(r, i) for r, i in zip(re, im, strict=True)]
    return make(re, im)


@_complex("constant_pad_nd.default")
def _pad(call: AtenCall) -> Any:
    """Each part padded with its part of the fill value."""
    fill = complex(call.arg(2, "value", 0) or 0)
    return _componentwise(
        call, lambda index: (*call.args[:2], (fill.real, fill.imag)[index])
    )


def _real_like(value: Any) -> Any:
    """A complex torch value's real counterpart (a meta tensor of the parts'
    type, same shape and strides): what a real handler reads of its result
    and arguments."""
    import torch

    if not is_complex(value):
        return value
    dtype = {"f32": torch.float32, "f64": torch.float64}[component(value.dtype)]
    return torch.empty_strided(
        tuple(value.shape), tuple(value.stride()), dtype=dtype, device="meta"
    )


# --------------------------------------------------------------------------- #
# arithmetic
# --------------------------------------------------------------------------- #


def _operands(call: AtenCall, count: int) -> tuple[str, list[tuple[Any, Any]]]:
    """The result's parts type and the (re, im) of the first `count`
    arguments, real tensors cast to it."""
    dtype = component(call.result.dtype)
    parts = []
    for x in call.args[:count]:
        parts.append(tuple(_tensor(p, dtype) for p in _parts(x)))
    return dtype, parts


def _tensor(x: Any, dtype: str) -> Any:
    """A part as a tensor of `dtype` (a number: a 0-d one; None stays)."""
    if x is None or isinstance(x, Tensor):
        return cast_to(x, dtype)
    return ops.full([], float(x), dtype)


def _plus(a: Any, b: Any, sign: float = 1.0) -> Any:
    """a + sign b, either None (0)."""
    if b is None:
        return a
    if a is None:
        return ops.neg(b) if sign < 0 else b
    return ops.add(a, b) if sign > 0 else ops.sub(a, b)


def _times(a: Any, b: Any) -> Any:
    """a b, either None (0): None."""
    return None if a is None or b is None else ops.mul(a, b)


@_complex("add.Tensor", "sub.Tensor", "add.Scalar", "sub.Scalar")
def _add(call: AtenCall) -> Complex:
    _, [(a, b), (c, d)] = _operands(call, 2)
    alpha = call.arg(2, "alpha", 1)
    if isinstance(alpha, complex):
        raise UnsupportedNode(f"{call.target} with a complex alpha")
    if alpha != 1:
        c, d = ops.mul(c, float(alpha)), _times(d, ops.full([], float(alpha), c.dtype))
    sign = -1.0 if ".sub." in call.target else 1.0
    return _made(_plus(a, c, sign), _plus(b, d, sign))


@_complex("mul.Tensor", "mul.Scalar")
def _mul(call: AtenCall) -> Complex:
    _, [(a, b), (c, d)] = _operands(call, 2)
    re = _plus(ops.mul(a, c), _times(b, d), -1.0)
    return _made(re, _plus(_times(a, d), _times(b, c)))


@_complex("div.Tensor", "div.Scalar")
def _div(call: AtenCall) -> Complex:
    _, [(a, b), (c, d)] = _operands(call, 2)
    if d is None:  # by a real: each part
        return _made(ops.div(a, c), _divided(b, c))
    # (a + ib) / (c + id) = (a + ib)(c - id) / (c^2 + d^2)
    norm = ops.add(ops.mul(c, c), ops.mul(d, d))
    re = _plus(ops.mul(a, c), _times(b, d))
    im = _plus(_times(b, c), _times(a, d), -1.0)
    return _made(ops.div(re, norm), _divided(im, norm))


def _divided(x: Any, by: Any) -> Any:
    return None if x is None else ops.div(x, by)


def _made(re: Tensor, im: Tensor | None) -> Complex:
    """re + i im, the two broadcast against each other (im None: 0)."""
    if im is None:
        return make(re, None)
    shape = list(np.broadcast_shapes(tuple(re.shape), tuple(im.shape)))
    re, im = (
        x if list(x.shape) == shape else ops.add(x, ops.full(shape, 0.0, x.dtype))
        for x in (re, im)
    )
    return make(re, im)


@_complex("neg.default")
def _neg(call: AtenCall) -> Complex:
    return Complex(ops.neg(call.args[0].pair))


@_complex(
    "conj.default", "_conj.default", "conj_physical.default", "_conj_physical.default"
)
def _conj(call: AtenCall) -> Any:
    z = call.args[0]
    if not isinstance(z, Complex):
        return z
    re, im = z.parts()
    return make(re, ops.neg(im))


@_complex("resolve_conj.default", "resolve_neg.default", "_neg_view.default")
def _resolved(call: AtenCall) -> Any:
    z = call.args[0]
    if call.target == "aten._neg_view.default":
        return Complex(ops.neg(z.pair))
    return z


@_complex("abs.default")
def _abs(call: AtenCall) -> Tensor:
    re, im = call.args[0].parts()
    hypot = AtenCall("aten.hypot.default", (re, im), {}, _real_like(call.result), ())
    return ATEN["aten.hypot.default"](hypot)


@_complex("angle.default")
def _angle(call: AtenCall) -> Tensor:
    re, im = call.args[0].parts()
    return ops.elementwise(graph.Atan2Op, im, re)


@_complex("exp.default")
def _exp(call: AtenCall) -> Complex:
    re, im = call.args[0].parts()
    scale = ops.exp(re)
    return make(ops.mul(scale, ops.cos(im)), ops.mul(scale, ops.sin(im)))


@_complex("where.self")
def _where(call: AtenCall) -> Complex:
    dtype = component(call.result.dtype)
    condition = call.args[0]
    (a, b), (c, d) = ((_tensor(p, dtype) for p in _parts(x)) for x in call.args[1:3])
    return make(
        ops.where(condition, a, c),
        ops.where(condition, 0.0 if b is None else b, 0.0 if d is None else d),
    )


# --------------------------------------------------------------------------- #
# conversions
# --------------------------------------------------------------------------- #


@_complex("view_as_real.default")
def _view_as_real(call: AtenCall) -> Tensor:
    return call.args[0].pair


@_complex("view_as_complex.default")
def _view_as_complex(call: AtenCall) -> Complex:
    return Complex(call.args[0])


@_complex("real.default")
def _real(call: AtenCall) -> Tensor:
    return _parts(call.args[0])[0]


@_complex("imag.default")
def _imag(call: AtenCall) -> Tensor:
    return call.args[0].parts()[1]


@_complex("complex.default")
def _from_parts(call: AtenCall) -> Complex:
    dtype = component(call.result.dtype)
    re, im = (_tensor(x, dtype) for x in call.args[:2])
    return _made(re, im)


@_complex("polar.default")
def _polar(call: AtenCall) -> Complex:
    dtype = component(call.result.dtype)
    magnitude, angle = (_tensor(x, dtype) for x in call.args[:2])
    return _made(ops.mul(magnitude, ops.cos(angle)), ops.mul(magnitude, ops.sin(angle)))


@_complex("_to_copy.default", "to.dtype", "clone.default", "alias.default")
def _to_copy(call: AtenCall) -> Any:
    x = call.args[0]
    if not is_complex(call.result):  # complex -> real: the real part, as torch
        return cast_to(_parts(x)[0], graph_dtype(call.result.dtype))
    dtype = component(call.result.dtype)
    if isinstance(x, Complex):
        return Complex(cast_to(x.pair, dtype))
    return make(cast_to(x, dtype), None)


HANDLERS["prims.convert_element_type.default"] = _to_copy


@_complex("copy.default")
def _copy(call: AtenCall) -> Any:
    """Functional `copy(self, src)`: `src` in `self`'s shape and type (the
    backward of a real FFT writes a complex gradient into zeros)."""
    shape = [int(n) for n in call.result.shape]
    re, im = _parts(call.args[1])
    dtype = component(call.result.dtype) if is_complex(call.result) else None
    dtype = dtype or graph_dtype(call.result.dtype)

    def spread(x: Any) -> Any:
        x = _tensor(x, dtype)
        return x if list(x.shape) == shape else ops.broadcast_to(x, shape)

    if not is_complex(call.result):  # the real part, as torch
        return spread(re)
    return make(spread(re), None if im is None else spread(im))


# --------------------------------------------------------------------------- #
# FFTs as dense DFTs
# --------------------------------------------------------------------------- #


def _twiddles(rows: int, columns: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """cos and sin of 2 pi j k / n for j < rows, k < columns (float64; the
    product j k reduced mod n first, so large n keeps full accuracy; the
    quarter turns exact, so the Nyquist term's sine is 0, not 1e-16, and
    what torch's FFT makes exactly 0 stays 0)."""
    turns = np.outer(np.arange(rows), np.arange(columns)) % n
    angle = 2 * np.pi * turns / n
    cos, sin = np.cos(angle), np.sin(angle)
    quarter = (4 * turns) % n == 0
    exact = (4 * turns // max(n, 1)) % 4  # 0, 1, 2, 3 quarter turns
    cos[quarter] = np.array([1.0, 0.0, -1.0, 0.0])[exact[quarter]]
    sin[quarter] = np.array([0.0, 1.0, 0.0, -1.0])[exact[quarter]]
    return cos, sin


def _along(x: Any, dim: int, table: np.ndarray) -> Any:
    """sum_j x[..., j, ...] table[j, k] along `dim` (None stays None)."""
    if x is None:
        return None
    moved = ops.swapaxes(x, dim, -1)
    product = ops.matmul(moved, ops.constant(table, x.dtype))
    return ops.swapaxes(product, dim, -1)


# Transforms up to this length are one dense DFT (a GEMM by an n x n table);
# a longer composite length is split (Cooley-Tukey). A dense DFT's rounding
# error grows with n (6e-5 at n = 1000 in f32, five times torch's) and its
# table with n squared (128 MB at n = 4096); the split keeps both near
# torch's FFT.
DENSE_DFT_MAX = 16


def _split(n: int) -> int | None:
    """The largest factor of n at most sqrt(n), when n is long enough to
    split and is not prime; else None (a dense DFT)."""
    if n <= DENSE_DFT_MAX:
        return None
    for n1 in range(math.isqrt(n), 1, -1):
        if n % n1 == 0:
            return n1
    return None


def _rotated(re: Any, im: Any, cos: Any, sin: Any, sign: float) -> tuple[Any, Any]:
    """(re + i im)(cos -+ i sin) for sign +-1, with cos and sin tensors (or
    applied by `_along`): a cos +- b sin + i (b cos -+ a sin)."""
    return (
        _plus(_times(re, cos), _times(im, sin), sign),
        _plus(_times(im, cos), _times(re, sin), -sign),
    )


def _dft(re: Any, im: Any, dim: int, forward: bool) -> tuple[Any, Any]:
    """The DFT of re + i im along `dim`: X_k = sum_j x_j e^(-+2 pi i jk/n).

    A long composite n = n1 n2 takes the four-step route: with j = n2 j1 +
    j2 and k = k1 + n1 k2, X_k = sum_j2 w_n^(j2 k1) w_n2^(j2 k2) sum_j1 x_j
    w_n1^(j1 k1), so the signal viewed as n1 x n2 gets a DFT of length n1
    down its columns, a twiddle w_n^(j2 k1) per element, a DFT of length n2
    along its rows, and a transpose (k1 is the minor index of k)."""
    part = re if re is not None else im
    n = int(part.shape[dim])
    sign = 1.0 if forward else -1.0
    n1 = _split(n)
    if n1 is None:
        cos, sin = _twiddles(n, n, n)
        return (
            _plus(_along(re, dim, cos), _along(im, dim, sin), sign),
            _plus(_along(im, dim, cos), _along(re, dim, sin), -sign),
        )
    n2, rank = n // n1, len(part.shape)
    dim %= rank
    shape = [int(d) for d in part.shape]
    grid = [*shape[:dim], n1, n2, *shape[dim + 1 :]]
    re, im = (None if x is None else ops.reshape(x, grid) for x in (re, im))
    re, im = _dft(re, im, dim, forward)
    cos, sin = (ops.constant(t, part.dtype) for t in _twiddles(n1, n2, n))
    if dim < rank - 1:  # the (n1, n2) table against the dims after the pair
        trailing = [1] * (rank - 1 - dim)
        cos, sin = (ops.reshape(t, [n1, n2, *trailing]) for t in (cos, sin))
    re, im = _rotated(re, im, cos, sin, sign)
    re, im = _dft(re, im, dim + 1, forward)
    re, im = (None if x is None else ops.swapaxes(x, dim, dim + 1) for x in (re, im))
    return tuple(None if x is None else ops.reshape(x, shape) for x in (re, im))  # type: ignore[return-value]


def _scaled(x: Any, normalization: int, size: int) -> Any:
    """torch's fft_norm_mode: 0 none, 1 by sqrt(n), 2 by n."""
    if x is None or normalization == 0:
        return x
    scale = 1 / math.sqrt(size) if normalization == 1 else 1 / size
    return ops.mul(x, scale)


def _dims(x: Any, dims: Any) -> list[int]:
    return [dim_of(x, d) for d in dims]


@_complex("_fft_c2c.default")
def _fft_c2c(call: AtenCall) -> Complex:
    z, dims, normalization, forward = call.args[:4]
    re, im = z.parts()
    dims = _dims(re, dims)
    for d in dims:
        re, im = _dft(re, im, d, bool(forward))
    size = math.prod(z.shape[d] for d in dims)
    return make(_scaled(re, normalization, size), _scaled(im, normalization, size))


@_complex("_fft_r2c.default")
def _fft_r2c(call: AtenCall) -> Complex:
    x, dims, normalization, onesided = call.args[:4]
    dtype = component(call.result.dtype)
    x = cast_to(x, dtype)
    dims = _dims(x, dims)
    last = dims[-1]
    n = int(x.shape[last])
    if _split(n) is None:
        cos, sin = _twiddles(n, n // 2 + 1 if onesided else n, n)
        # 0 - x sin, not -(x sin): torch's exact zeros are +0 (an angle of them)
        re, im = _along(x, last, cos), ops.sub(0.0, _along(x, last, sin))
    else:  # the whole transform, then its first half
        re, im = _dft(x, None, last, True)
        if onesided:
            limit = [int(d) for d in x.shape]
            limit[last] = n // 2 + 1
            start = [0] * len(limit)
            re, im = ops.slice(re, start, limit), ops.slice(im, start, limit)
    for d in dims[:-1]:
        re, im = _dft(re, im, d, True)
    size = math.prod(int(x.shape[d]) for d in dims)
    return make(_scaled(re, normalization, size), _scaled(im, normalization, size))


def _weighted(x: Any, dim: int, weight: np.ndarray, n: int) -> Any:
    """x times `weight` along `dim`, zero-padded there to length n."""
    if x is None:
        return None
    shape = [int(d) for d in x.shape]
    table = [1] * len(shape)
    table[dim] = len(weight)
    x = ops.mul(x, ops.constant(weight.reshape(table), x.dtype))
    if shape[dim] == n:
        return x
    shape[dim] = n - shape[dim]
    return ops.concat([x, ops.full(shape, 0.0, x.dtype)], dim)


@_complex("_fft_c2r.default")
def _fft_c2r(call: AtenCall) -> Tensor:
    z, dims, normalization, n = call.args[:4]
    re, im = z.parts()
    dims = _dims(re, dims)
    for d in dims[:-1]:
        re, im = _dft(re, im, d, False)
    last, n = dims[-1], int(n)
    # the Hermitian half of a real signal's spectrum: X_(n-k) = conj(X_k),
    # so x_j = sum over k of w_k (Re X_k cos - Im X_k sin), w_k 2 but for
    # the k that are their own mirror (0 and n/2); the imaginary parts of
    # those do not count (sin is 0 there)
    rows = min(int(re.shape[last]), n // 2 + 1)
    weight = np.full((rows, 1), 2.0)
    weight[0] = 1.0
    if n % 2 == 0 and rows == n // 2 + 1:
        weight[-1] = 1.0
    if rows < int(re.shape[last]):
        start = [0] * len(re.shape)
        limit = list(re.shape)
        limit[last] = rows
        re, im = ops.slice(re, start, limit), ops.slice(im, start, limit)
    if _split(n) is None:
        cos, sin = _twiddles(rows, n, n)
        x = ops.sub(_along(re, last, weight * cos), _along(im, last, weight * sin))
    else:  # the same sum is Re of the inverse DFT of w X padded to n
        re, im = (_weighted(part, last, weight[:, 0], n) for part in (re, im))
        x = _dft(re, im, last, False)[0]
    size = math.prod(int(z.shape[d]) for d in dims[:-1]) * n
    return _scaled(x, normalization, size)
