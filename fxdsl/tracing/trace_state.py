"""The state of the running trace, below everything that emits into it.

One trace at a time per context: `emitting_into(block)` makes a
`TraceState` the active one (a `ContextVar`, so nested or concurrent traces
never see each other's), `active_state` finds it, and `scope` / `at_frames`
set the module call stack its ops record. The dtype names the tracer
accepts are here too. `fxdsl.ops` (the symbolic Tensor and its ops),
`fxdsl.tracing.tracer` (`trace`) and `fxdsl.tracing.module_calls` build
on this module.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from typing_extensions import Self
from xdsl.ir import Attribute, Operation, SSAValue

from fxdsl.ir.dtypes import element_type_of
from fxdsl.ir.graph import ELEMENT_TYPES, ScopeFrame, SignatureAttr

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
    """The dtype string a numpy array of this dtype is traced as; float64,
    numpy's default float, becomes f32, torch's (an f64 tensor is asked for
    by its dtype)."""
    dtype = np.dtype(dtype)
    try:
        element_type = element_type_of(np.float32 if dtype == np.float64 else dtype)
        return dtype_name(element_type)
    except (TypeError, ValueError):
        raise TypeError(f"numpy dtype {dtype} has no graph element type") from None


class OpSink(Protocol):
    """Where traced ops go: a Block, or anything else with `add_op`."""

    def add_op(self, operation: Operation, /) -> None: ...


@dataclass
class TraceState:
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


_ACTIVE: ContextVar[TraceState | None] = ContextVar("fxdsl_trace", default=None)


@contextmanager
def emitting_into(
    block: OpSink, frames: Sequence[ScopeFrame] = ()
) -> Generator[TraceState, None, None]:
    """Make `fxdsl.ops` and Tensor operators append their ops to `block`
    under the scope `frames`. `trace` uses it, and so does the rewrite API's
    Transformer to emit in place of an op."""
    state = TraceState(block, list(frames))
    token = _ACTIVE.set(state)
    try:
        yield state
    finally:
        _ACTIVE.reset(token)


def active_state(what: str) -> TraceState:
    state = _ACTIVE.get()
    if state is None:
        raise RuntimeError(f"{what}: only valid inside a function run by fxdsl.trace")
    return state


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
        self._entered: list[TraceState] = []

    def __enter__(self) -> Self:
        state = active_state("fxdsl.scope")
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
    state = active_state("fxdsl.at_frames")
    saved = state.frames
    state.frames = list(frames)
    try:
        yield
    finally:
        state.frames = saved
