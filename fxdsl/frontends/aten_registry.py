"""The ATen handler table and what every handler uses: `AtenCall` (an fx
node's arguments as traced `Tensor`s and torch's inferred result), the
`@aten` decorator that registers a handler under its overloads' names,
UnsupportedNode, dtype names and small argument helpers. The handlers live
in the `aten_*` family modules; `fxdsl.frontends.aten_ops` imports them all,
so the table is complete wherever it is read through that module.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from fxdsl.ir import graph
from fxdsl.ir.dtypes import numpy_dtype
from fxdsl.tracing import ops
from fxdsl.tracing.trace_state import dtype_attr
from fxdsl.tracing.tracer import Tensor

TORCH_DTYPES = {
    "torch.float32": "f32",
    "torch.float16": "f16",
    "torch.bfloat16": "bf16",
    "torch.float64": "f64",
    "torch.int64": "i64",
    "torch.int32": "i32",
    "torch.int16": "i16",
    "torch.int8": "i8",
    "torch.uint8": "ui8",
    "torch.bool": "i1",
}
"""torch dtype (as `str(dtype)`) → graph element type name."""

FLOAT_DTYPES = ("f32", "f16", "bf16", "f64")
"""Graph element type names of floats; every other one is an integer (i1:
bool)."""


def is_integer(dtype: str) -> bool:
    """Whether a graph element type name is an integer one (bool included)."""
    return dtype not in FLOAT_DTYPES


class UnsupportedNode(Exception):
    """A node the table cannot express (a missing mapping, an argument
    combination without a graph form); the importer adds the node and its
    source line."""


class Decompose(UnsupportedNode):
    """Raised by a handler for an argument combination it leaves to torch's
    decomposition of the op (`batch_norm` in training: its running
    statistics are written, which the decomposition says)."""


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
    draw: Callable[[], Tensor] | None = None
    """The importer's source of seeds (see `seed`)."""

    def seed(self) -> Tensor:
        """The seed (`tensor<2xi64>`, `[key, offset]`) of a new random
        stream of the program: each call gives another stream."""
        if self.draw is None:
            raise UnsupportedNode(f"{self.target} draws random numbers here")
        return self.draw()

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


EXACT_WIDENINGS = {("bf16", "f32"), ("f16", "f32"), ("bf16", "f64"), ("f16", "f64"),
                   ("f32", "f64")}  # fmt: skip
"""(narrow, wide) float types where wide holds every narrow value exactly."""


def cast_to(x: Any, dtype: str) -> Any:
    """A tensor cast to `dtype` (scalars pass through unchanged). Casting
    back a value widened exactly (bf16 -> f32 -> bf16) is the value itself:
    no cast (torch's decompositions upcast 16-bit inputs and cast the
    result back, and a pattern may have kept the 16-bit op)."""
    if not isinstance(x, Tensor) or x.dtype == dtype:
        return x
    owner = x.value.owner
    if isinstance(owner, graph.CastOp) and (dtype, x.dtype) in EXACT_WIDENINGS:
        source = ops.wrap(owner.input)
        if source.dtype == dtype:
            return source
    return ops.cast(x, dtype)


HALF_DTYPES = ("f16", "bf16")
"""The 16-bit floats: in memory only; torch's kernels compute them in f32."""


def widened(dtype: str, *values: Any) -> list[Any]:
    """`values` cast to f32 when `dtype` is 16-bit, else as they are: for a
    composite of several graph ops that torch computes as one kernel in
    f32, rounded once (`_as_torch_says` rounds the node's result to its
    dtype). Each graph op rounds its own result, so a 16-bit composite
    would round after every step: percents off in a long series (lgamma),
    or in a sum of taps that cancel. A GEMM stays on its operands' type
    (tensor cores) and stores its product in f32 instead
    (`ops.matmul(a, b, "f32")`, as `addmm` does)."""
    if dtype not in HALF_DTYPES:
        return list(values)
    return [cast_to(v, "f32") if isinstance(v, Tensor) else v for v in values]


def in_f32(x: Tensor) -> Tensor:
    """A 16-bit tensor cast to f32 (any other as it is): what a gradient
    summed by several graph ops is summed in, to be rounded once."""
    return ops.cast(x, "f32") if x.dtype in HALF_DTYPES else x


def extreme_value(dtype: str, largest: bool) -> float | int:
    """The largest (or smallest) value of `dtype`: +-inf for a float, the
    integer type's own bound (exact: an int64 bound is no float64) for an
    integer, True/False for i1. What a max (min) starts from, and what
    pads a sort so the padding sorts last."""
    if dtype[0] in "fb":
        return math.inf if largest else -math.inf
    if dtype == "i1":
        return int(largest)
    info = np.iinfo(numpy_dtype(dtype_attr(dtype)))
    return int(info.max if largest else info.min)


def dim_of(x: Tensor, dim: int) -> int:
    return ops.normalize_dim("import", int(dim), x.ndim)


def along(x: Tensor, dim: int, fn: Callable[[Tensor, int], Tensor]) -> Tensor:
    """`fn(x, dim)` for a scan or softmax along `dim`; torch takes dim 0 or
    -1 of a 0-d tensor as a dim of size one."""
    if x.ndim:
        return fn(x, dim_of(x, dim))
    ops.normalize_dim("import", int(dim), 1)
    return ops.reshape(fn(ops.reshape(x, [1]), 0), [])


def dims_of(x: Tensor, dims: Any) -> list[int] | None:
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
    return sorted(dim_of(x, d) for d in listed) or None
