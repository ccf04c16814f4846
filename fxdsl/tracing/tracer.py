"""The Python tracer: run a function on symbolic tensors, record graph IR.

    def block(x, w):
        with fxdsl.scope("layer", "Linear"):
            y = fxdsl.ops.linear(x, w)
        return fxdsl.ops.relu(y) + 1.0

    module = fxdsl.trace(block, TensorSpec((4, 8)), TensorSpec((3, 8), param="w"))

`trace` builds one `func.func` in a `builtin.module`: a block argument per
spec (weights carry the arg attribute `graph.param = "fqn"`), the graph ops in
program order, and a `func.return` of what the function returned (a tensor or
a tuple of tensors). Every op goes through `fxdsl.ops`, which builds it with
the dialect's own type inference and verifier (`emit`), so a wrong shape is a
`ValueError` that names the op, raised at the Python line that caused it, and
the module that `trace` returns always verifies.

Python scalars mixed with tensors (`x * 2`, `1 - x`) become a rank-0
`graph.full` of the tensor's element type, emitted just before the op that uses
them (with the same scope); the elementwise ops broadcast it. There is no type
promotion: a float scalar with an integer tensor is a `TypeError` unless the
float is integral.

This module is the entry point; the trace state it runs under is in
`fxdsl.tracing.trace_state`, `Tensor` and `emit` in `fxdsl.ops` (next to
the functions Tensor's operators call), `module_call` in
`fxdsl.tracing.module_calls`; what importers took from here (Tensor,
emit, wrap, scope, ...) is still re-exported.

`scope(fqn, type_name)` records the module call stack, like torch's
`nn_module_stack`: ops created inside carry `scope = #graph.scope<...>` with
every open frame outermost first, and entering the same fqn again within one
trace gets the next call index (0, 1, 2, ...). `module_call(fqn, type_name,
fn, *args, preserve_signature=True)` runs `fn` in such a scope and records
its call signature (torch.export's `preserve_module_call_signature`): its
tensor inputs and outputs get stable names (`graph.name`) and the module gets
`graph.call_signatures`, which `graph-unflatten` follows. Trace state lives in a
`ContextVar`, so nested or concurrent traces never see each other's tensors or
scopes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from fxdsl.ir.graph import ALIASES, CALL_SIGNATURES, NAME, PARAM
from fxdsl.tracing.ops import Tensor, emit, wrap
from fxdsl.tracing.trace_state import (
    DTYPES,
    OpSink,
    TraceState,
    at_frames,
    dtype_attr,
    dtype_name,
    emitting_into,
    numpy_dtype_name,
    scope,
)

__all__ = [
    "DTYPES",
    "OpSink",
    "Tensor",
    "TensorSpec",
    "at_frames",
    "dtype_attr",
    "dtype_name",
    "emit",
    "emitting_into",
    "numpy_dtype_name",
    "scope",
    "trace",
    "wrap",
]


@dataclass(frozen=True)
class TensorSpec:
    """A traced function argument: shape, dtype and, for weights, `param`.

    `param="h.0.attn.weight"` marks a weight: the func argument gets the arg
    attribute `graph.param = "h.0.attn.weight"`; `aliases`, every name of a
    weight the model reaches under several (its `param` included), becomes
    `graph.aliases`. `name` is documentation only (it becomes the
    argument's SSA name hint in printed IR).
    """

    shape: tuple[int, ...]
    dtype: str = "f32"
    name: str | None = None
    param: str | None = None
    aliases: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        shape = tuple(int(d) for d in self.shape)
        if any(d < 0 for d in shape):
            raise ValueError(f"TensorSpec: negative dim in shape {shape}")
        object.__setattr__(self, "shape", shape)
        dtype_attr(self.dtype)

    @staticmethod
    def from_array(
        array: np.ndarray[Any, Any], name: str | None = None, param: str | None = None
    ) -> TensorSpec:
        """The spec of a numpy array (float64 is traced as f32)."""
        return TensorSpec(array.shape, numpy_dtype_name(array.dtype), name, param)

    @property
    def type(self) -> TensorType[Attribute]:
        return TensorType(dtype_attr(self.dtype), list(self.shape))


SpecLike = TensorSpec | np.ndarray[Any, Any]
# What MLIR accepts as an SSA name hint or symbol name without quoting.
_IDENTIFIER = re.compile(r"[A-Za-z_][\w$.]*")


def trace(
    fn: Callable[..., Any],
    *specs: SpecLike,
    name: str | None = None,
    declarations: Sequence[Operation] = (),
    verify_each: bool = True,
) -> ModuleOp:
    """Trace `fn` on symbolic tensors described by `specs` into a module.

    Specs are `TensorSpec`s or numpy arrays (their shape and dtype). `fn`
    returns a tensor or a tuple/list of tensors (inputs may be returned
    directly). The result is a verified `builtin.module` holding one
    `func.func @name` (default: `fn.__name__`; `main` for lambdas), then the
    ops of `declarations` (a list `fn` may fill while it runs: the external
    functions its calls name). `verify_each=False` skips verifying each op
    as it is built (result types are still inferred, so shape errors still
    raise there) and verifies the finished module only: for importers of
    large programs, which retry with it on to find the op at fault.
    """
    arg_specs = [_as_spec(s) for s in specs]
    block = Block(arg_types=[s.type for s in arg_specs])
    for arg, spec in zip(block.args, arg_specs):
        if spec.name is not None and _IDENTIFIER.fullmatch(spec.name):
            arg.name_hint = spec.name
    with emitting_into(block) as state:
        state.verify_each = verify_each
        returned = fn(*(Tensor(arg, state) for arg in block.args))
    results = _results(returned, state)
    block.add_op(func.ReturnOp(*results))
    arg_dicts = [_weight_attrs(s) for s in arg_specs]
    for arg, attrs in zip(block.args, arg_dicts):
        if arg in state.arg_names:
            attrs[NAME] = StringAttr(state.arg_names[arg])
    arg_attrs = None
    if any(arg_dicts):
        arg_attrs = ArrayAttr(DictionaryAttr(attrs) for attrs in arg_dicts)
    func_name = name or fn.__name__
    if not _IDENTIFIER.fullmatch(func_name):
        func_name = "main"
    func_op = func.FuncOp(
        func_name,
        ([s.type for s in arg_specs], [r.type for r in results]),
        Region(block),
        arg_attrs=arg_attrs,
    )
    module = ModuleOp([func_op, *declarations])
    if state.signatures:
        module.attributes[CALL_SIGNATURES] = DictionaryAttr(dict(state.signatures))
    module.verify()
    return module


def _as_spec(spec: Any) -> TensorSpec:
    if isinstance(spec, TensorSpec):
        return spec
    if isinstance(spec, np.ndarray):
        return TensorSpec.from_array(spec)
    raise TypeError(f"fxdsl.trace: expected TensorSpec or numpy array, got {spec!r}")


def _weight_attrs(spec: TensorSpec) -> dict[str, Attribute]:
    attrs: dict[str, Attribute] = {}
    if spec.param:
        attrs[PARAM] = StringAttr(spec.param)
    if spec.aliases:
        attrs[ALIASES] = ArrayAttr(StringAttr(name) for name in spec.aliases)
    return attrs


def _results(returned: object, state: TraceState) -> list[SSAValue]:
    many = isinstance(returned, (tuple, list))
    items = list(cast("Sequence[object]", returned)) if many else [returned]
    values: list[SSAValue] = []
    for item in items:
        if not isinstance(item, Tensor):
            raise TypeError(
                f"fxdsl.trace: the function must return tensors, got {item!r}"
            )
        item.check_trace(state, "fxdsl.trace: a returned tensor")
        values.append(item.value)
    return values
