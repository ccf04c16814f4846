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

import inspect
import re
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast

import numpy as np
from typing_extensions import Self
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from fxdsl.dialects.graph import (
    CALL_SIGNATURES,
    ELEMENT_TYPES,
    NAME,
    PARAM,
    SCOPE,
    ScopeAttr,
    ScopeFrame,
    SignatureAttr,
    dtype_of,
    shape_of,
)
from fxdsl.dialects.shape_rules import ShapeError
from fxdsl.interpreters.dtypes import element_type_of

DTYPES: dict[str, Attribute] = {str(t): t for t in ELEMENT_TYPES}
"""Element type of each dtype string the tracer accepts ("f32", "i64", ...)."""


def dtype_attr(dtype: str | Attribute) -> Attribute:
    """The element type for a dtype string ("f32", ...) or element type."""
    if isinstance(dtype, Attribute):
        if dtype not in ELEMENT_TYPES:
            raise TypeError(f"unsupported element type {dtype}")
        return dtype
    if dtype not in DTYPES:
        raise TypeError(f"unknown dtype {dtype!r}; expected one of {list(DTYPES)}")
    return DTYPES[dtype]


_DTYPE_NAMES: dict[Attribute, str] = {t: name for name, t in DTYPES.items()}


def dtype_name(dtype: Attribute) -> str:
    """The dtype string of an element type (inverse of `dtype_attr`)."""
    # A table, not str(): printing an attribute is slow and this is hot.
    return _DTYPE_NAMES[dtype_attr(dtype)]


def numpy_dtype_name(dtype: np.dtype[Any]) -> str:
    """The dtype string a numpy array of this dtype is traced as; float64
    becomes f32 because the dialect has no f64."""
    dtype = np.dtype(dtype)
    try:
        element_type = element_type_of(np.float32 if dtype == np.float64 else dtype)
        return dtype_name(element_type)
    except (TypeError, ValueError):
        raise TypeError(f"numpy dtype {dtype} has no graph element type") from None


@dataclass(frozen=True)
class TensorSpec:
    """A traced function argument: shape, dtype and, for weights, `param`.

    `param="h.0.attn.weight"` marks a weight: the func argument gets the arg
    attribute `graph.param = "h.0.attn.weight"`. `name` is documentation only
    (it becomes the argument's SSA name hint in printed IR).
    """

    shape: tuple[int, ...]
    dtype: str = "f32"
    name: str | None = None
    param: str | None = None

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


class OpSink(Protocol):
    """Where traced ops go: a Block, or anything else with `add_op`."""

    def add_op(self, operation: Operation, /) -> None: ...


@dataclass
class _TraceState:
    """What one trace owns: its block, the open scopes, per-fqn call counts."""

    block: OpSink
    frames: list[ScopeFrame] = field(default_factory=list)
    calls: dict[str, int] = field(default_factory=dict)
    emitted: int = 0
    """Ops emitted so far."""
    arg_names: dict[SSAValue, str] = field(default_factory=dict)
    """`graph.name`s of block arguments (op results carry theirs)."""
    names: set[str] = field(default_factory=set)
    signatures: dict[str, SignatureAttr] = field(default_factory=dict)
    """Recorded call signatures, by call name."""
    verify_each: bool = True
    """Verify each op as it is emitted (else only the finished module)."""


_ACTIVE: ContextVar[_TraceState | None] = ContextVar("fxdsl_trace", default=None)


@contextmanager
def emitting_into(
    block: OpSink, frames: Sequence[ScopeFrame] = ()
) -> Generator[_TraceState, None, None]:
    """Make `fxdsl.ops` and Tensor operators append their ops to `block`
    under the scope `frames`. `trace` uses it, and so does the rewrite API's
    Transformer to emit in place of an op."""
    state = _TraceState(block, list(frames))
    token = _ACTIVE.set(state)
    try:
        yield state
    finally:
        _ACTIVE.reset(token)


def _active_state(what: str) -> _TraceState:
    state = _ACTIVE.get()
    if state is None:
        raise RuntimeError(f"{what}: only valid inside a function run by fxdsl.trace")
    return state


class Tensor:
    """A symbolic tensor: one SSA value of the trace that is running.

    Operators build graph ops through `fxdsl.ops`; comparisons give i1
    tensors (so `__eq__` is elementwise, and hashing is by identity).
    """

    # Make numpy defer to our reflected operators (`np_array + tensor`).
    __array_ufunc__ = None

    def __init__(self, value: SSAValue, state: _TraceState):
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

    def __bool__(self) -> bool:
        raise TypeError(
            "a traced Tensor has no truth value; use fxdsl.ops.where for data-"
            "dependent choices"
        )

    # -- arithmetic ------------------------------------------------------- #

    def __add__(self, other: Any) -> Tensor:
        return _ops.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return _ops.add(other, self)

    def __sub__(self, other: Any) -> Tensor:
        return _ops.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _ops.sub(other, self)

    def __mul__(self, other: Any) -> Tensor:
        return _ops.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return _ops.mul(other, self)

    def __truediv__(self, other: Any) -> Tensor:
        return _ops.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _ops.div(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return _ops.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return _ops.pow(other, self)

    def __matmul__(self, other: Any) -> Tensor:
        return _ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return _ops.matmul(other, self)

    def __neg__(self) -> Tensor:
        return _ops.neg(self)

    # -- comparisons (elementwise, i1 result) ------------------------------ #

    def __lt__(self, other: Any) -> Tensor:
        return _ops.lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        return _ops.le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _ops.gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _ops.ge(self, other)

    def __eq__(self, other: object) -> Tensor:  # pyright: ignore[reportIncompatibleMethodOverride]
        return _ops.eq(self, other)

    def __ne__(self, other: object) -> Tensor:  # pyright: ignore[reportIncompatibleMethodOverride]
        return _ops.ne(self, other)

    # -- shape methods ----------------------------------------------------- #

    def reshape(self, *shape: int | Sequence[int]) -> Tensor:
        """`x.reshape(2, -1)` or `x.reshape((2, -1))`; one dim may be -1."""
        return _ops.reshape(self, _varargs(shape))

    def permute(self, *perm: int | Sequence[int]) -> Tensor:
        """Result dim i is input dim perm[i] (negative dims allowed)."""
        return _ops.permute(self, _varargs(perm))

    def transpose(self, *dims: int | Sequence[int]) -> Tensor:
        """No dims: reverse all dims. Two dims: swap them (torch's
        `x.transpose(-2, -1)`). Otherwise a full permutation (numpy's)."""
        given = _varargs(dims)
        if not given:
            return _ops.transpose(self)
        if len(given) == 2:
            return _ops.swapaxes(self, given[0], given[1])
        return _ops.transpose(self, given)

    @property
    def T(self) -> Tensor:
        """All dims reversed (the 2-D transpose)."""
        return _ops.transpose(self)

    def sum(
        self, dims: int | Sequence[int] | None = None, keepdim: bool = False
    ) -> Tensor:
        return _ops.sum(self, dims, keepdim)

    def mean(
        self, dims: int | Sequence[int] | None = None, keepdim: bool = False
    ) -> Tensor:
        return _ops.mean(self, dims, keepdim)

    def max(
        self, dims: int | Sequence[int] | None = None, keepdim: bool = False
    ) -> Tensor:
        return _ops.max(self, dims, keepdim)

    def min(
        self, dims: int | Sequence[int] | None = None, keepdim: bool = False
    ) -> Tensor:
        return _ops.min(self, dims, keepdim)

    def var(
        self,
        dims: int | Sequence[int] | None = None,
        keepdim: bool = False,
        correction: int = 1,
    ) -> Tensor:
        return _ops.var(self, dims, keepdim, correction)

    def __getitem__(self, key: Any) -> Tensor:
        """Basic indexing: ints, slices with step >= 1, `...` and `None`;
        a `graph.slice` then a `graph.reshape` (each only when needed)."""
        start, limit, step, shape = _index_plan(self.shape, key)
        result = self
        if (
            list(start) != [0] * self.ndim
            or list(limit) != list(self.shape)
            or any(s != 1 for s in step)
        ):
            result = _ops.slice(self, start, limit, step)
        if tuple(shape) != result.shape:
            result = _ops.reshape(result, shape)
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
    items = list(cast("tuple[object, ...]", key)) if isinstance(key, tuple) else [key]
    if sum(1 for k in items if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(1 for k in items if k is not None and k is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"too many indices for a tensor of rank {len(shape)}")
    fill = [slice(None)] * (len(shape) - used)
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
        if isinstance(item, slice):
            lo, hi, st = item.indices(size)
            if st < 1:
                raise IndexError(f"slice step must be >= 1, got {item!r}")
            hi = max(hi, lo)
            start.append(lo)
            limit.append(hi)
            step.append(st)
            out.append((hi - lo + st - 1) // st)
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            given = int(cast("int", item))
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


OpT = TypeVar("OpT", bound=Operation)


def emit(make: Callable[[], OpT], name: str, *inputs: Tensor) -> OpT:
    """Build one op from tensors of the running trace, verify it, append it.

    `make` calls the dialect constructor; `name` is the op name used in
    errors. A shape or dtype error is re-raised as a `ValueError` that names
    the op, and the half-built op is unlinked, so the trace stays valid IR.
    """
    state = _active_state(name)
    for tensor in inputs:
        if not isinstance(tensor, Tensor):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(f"{name}: expected a Tensor, got {type(tensor).__name__}")
        if tensor._state is not state:  # pyright: ignore[reportPrivateUsage]
            raise ValueError(f"{name}: operand {tensor!r} belongs to a different trace")
    try:
        op = make()
        if state.verify_each:
            op.verify()
    except (ShapeError, VerifyException) as error:
        _unlink_orphans(inputs)
        message = str(error)
        types = [str(t.type) for t in inputs]
        if not all(t in message for t in types):
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
    return Tensor(value, _active_state("fxdsl.trace"))


class scope:
    """Record that ops built inside come from module `fqn` of type `type_name`.

    Nestable and re-entrant; each entry of the same fqn within one trace gets
    the next call index. Only valid while a trace is running.
    """

    def __init__(self, fqn: str, type_name: str):
        if not fqn or not isinstance(fqn, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise ValueError(
                f"fxdsl.scope: fqn must be a non-empty string, got {fqn!r}"
            )
        if not isinstance(type_name, str):  # pyright: ignore[reportUnnecessaryIsInstance]
            raise TypeError(
                f"fxdsl.scope: type_name must be a string, got {type_name!r}"
            )
        self.fqn = fqn
        self.type_name = type_name
        self._entered: list[_TraceState] = []

    def __enter__(self) -> Self:
        state = _active_state("fxdsl.scope")
        index = state.calls.get(self.fqn, 0)
        state.calls[self.fqn] = index + 1
        state.frames.append((self.fqn, index, self.type_name))
        self._entered.append(state)
        return self

    def __exit__(self, *exc: object) -> None:
        self._entered.pop().frames.pop()


@contextmanager
def at_frames(frames: Sequence[ScopeFrame]) -> Generator[None, None, None]:
    """Ops built inside carry exactly the scope `frames` (outermost first),
    whatever scopes are open: for importers that read each op's module stack
    from their input (torch.export's `nn_module_stack`) instead of nesting
    `scope`s. Call indices are taken as given."""
    state = _active_state("fxdsl.at_frames")
    saved = state.frames
    state.frames = list(frames)
    try:
        yield
    finally:
        state.frames = saved


ResultT = TypeVar("ResultT")


def module_call(
    fqn: str,
    type_name: str,
    fn: Callable[..., ResultT],
    *args: Any,
    preserve_signature: bool = False,
) -> ResultT:
    """`fn(*args)` as a call of module `fqn` of type `type_name` (inside
    `scope(fqn, type_name)`); returns what `fn` returns.

    With `preserve_signature=True` the call's interface is recorded for
    `graph-unflatten`: the tensor arguments are its inputs, named after
    `fn`'s parameters (`xs0`, `xs1`... for a sequence or `*xs`), the returned
    tensors its outputs, named `out0`, `out1`... (or by the keys of a
    returned dict or the fields of a named tuple). A value that already has a
    name keeps it; new names are made unique (`x_1`). The signature is stored
    under the call name (`fqn`, `fqn@1`, ...) in the module attribute
    `graph.call_signatures`. A call that emits no op records nothing (there is
    no module function to make). An output that is neither an input nor
    computed inside the call is a ValueError.
    """
    state = _active_state("fxdsl.module_call")
    emitted = state.emitted
    with scope(fqn, type_name):
        frames = tuple(state.frames)
        returned = fn(*args)
    if not preserve_signature or state.emitted == emitted:
        return returned
    inputs = _tensors(_parameter_labels(fn, args), state, "input")
    outputs = _tensors(_returned_labels(returned), state, "output")
    passed = {tensor.value for _, tensor in inputs}
    for label, tensor in outputs:
        if tensor.value not in passed and not _made_inside(tensor.value, frames):
            raise ValueError(
                f"fxdsl.module_call({fqn!r}): output {label!r} is neither an input "
                "nor computed inside the call"
            )
    signature = (
        tuple(_value_name(state, t.value, label) for label, t in inputs),
        tuple(_value_name(state, t.value, label) for label, t in outputs),
    )
    from fxdsl.transforms.scope_tree import call_name

    _, index, _ = frames[-1]
    state.signatures[call_name(fqn, index)] = SignatureAttr(signature)
    return returned


def _made_inside(value: SSAValue, frames: tuple[ScopeFrame, ...]) -> bool:
    from fxdsl.transforms.scope_tree import scope_frames

    owner = value.owner
    return isinstance(owner, Operation) and scope_frames(owner)[: len(frames)] == frames


def _parameter_labels(
    fn: Callable[..., Any], args: tuple[Any, ...]
) -> list[tuple[str, Any]]:
    try:
        bound: dict[str, Any] = dict(inspect.signature(fn).bind(*args).arguments)
    except (TypeError, ValueError):  # no signature, or args that do not fit
        bound = {f"in{i}": arg for i, arg in enumerate(args)}
    labelled: list[tuple[str, Any]] = []
    for label, value in bound.items():
        if isinstance(value, (tuple, list)):
            items = cast("Sequence[Any]", value)
            labelled.extend((f"{label}{i}", item) for i, item in enumerate(items))
        else:
            labelled.append((label, value))
    return labelled


def _returned_labels(returned: Any) -> list[tuple[str, Any]]:
    if isinstance(returned, dict):
        mapping = cast("dict[Any, Any]", returned)
        return [(str(key), value) for key, value in mapping.items()]
    fields = getattr(returned, "_fields", None)
    if isinstance(returned, tuple) and fields is not None:
        values = cast("tuple[Any, ...]", returned)
        return list(zip(cast("tuple[str, ...]", fields), values))
    if isinstance(returned, (tuple, list)):
        items = cast("Sequence[Any]", returned)
        return [(f"out{i}", item) for i, item in enumerate(items)]
    return [("out0", returned)]


def _tensors(
    pairs: list[tuple[str, Any]], state: _TraceState, what: str
) -> list[tuple[str, Tensor]]:
    # Other Python values (flags, sizes) are not part of a signature.
    tensors = [(label, v) for label, v in pairs if isinstance(v, Tensor)]
    for label, tensor in tensors:
        if tensor._state is not state:  # pyright: ignore[reportPrivateUsage]
            raise ValueError(
                f"fxdsl.module_call: {what} {label!r} belongs to a different trace"
            )
    return tensors


def _value_name(state: _TraceState, value: SSAValue, label: str) -> str:
    """The value's name; a fresh one made from `label` if it has none."""
    from fxdsl.transforms.call_signatures import set_value_name, value_name

    if value in state.arg_names:
        return state.arg_names[value]
    if isinstance(value.owner, Operation) and (existing := value_name(value)):
        return existing
    name, n = label, 0
    while name in state.names:
        n += 1
        name = f"{label}_{n}"
    state.names.add(name)
    if isinstance(value.owner, Operation):
        set_value_name(value, name)
    else:
        state.arg_names[value] = name
    return name


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
    arg_dicts: list[dict[str, Attribute]] = [
        {PARAM: StringAttr(s.param)} if s.param else {} for s in arg_specs
    ]
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


def _results(returned: object, state: _TraceState) -> list[SSAValue]:
    many = isinstance(returned, (tuple, list))
    items = list(cast("Sequence[object]", returned)) if many else [returned]
    values: list[SSAValue] = []
    for item in items:
        if not isinstance(item, Tensor):
            raise TypeError(
                f"fxdsl.trace: the function must return tensors, got {item!r}"
            )
        if item._state is not state:  # pyright: ignore[reportPrivateUsage]
            raise ValueError("fxdsl.trace: a returned tensor belongs to another trace")
        values.append(item.value)
    return values


# Imported last: `fxdsl.ops` builds on the names above, Tensor's operators on it.
from fxdsl.frontends import ops as _ops  # noqa: E402
