"""What the per-op kernel rules (`value_rules.py`, `reductions.py`) may ask
of the kernel being built: `KernelBuilder` provides it. A protocol, so that
the rules depend on this interface and the builder on the rules, one way."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Protocol

from xdsl.dialects import gpu
from xdsl.ir import Attribute, Operation, SSAValue

Index = tuple[SSAValue, ...]
"""An element position: one `index` value per dim."""


class KernelEmitter(Protocol):
    """Emission into one kernel's body (see `KernelBuilder` for each)."""

    func: gpu.FuncOp
    const_ops: list[Operation]
    globals_out: list[Operation]
    global_refs: dict[Operation, SSAValue]

    def emit(self, op: Operation) -> SSAValue: ...

    def const(self, value: float | int, typ: Attribute) -> SSAValue: ...

    def index(self, value: int) -> SSAValue: ...

    def memo(self, key: Hashable, make: Callable[[], Any]) -> Any: ...

    def choose(
        self,
        cond: SSAValue,
        typ: Attribute,
        then: Callable[[], SSAValue],
        otherwise: Callable[[], SSAValue],
    ) -> SSAValue: ...

    def loop(
        self,
        lower: SSAValue,
        upper: SSAValue,
        step: SSAValue,
        inits: Sequence[SSAValue],
        body: Callable[[SSAValue, list[SSAValue]], list[SSAValue]],
    ) -> list[SSAValue]: ...

    def delinearize(self, linear: SSAValue, shape: Sequence[int]) -> Index: ...

    def linearize(self, idx: Index, shape: Sequence[int]) -> SSAValue: ...

    def broadcast_index(self, idx: Index, to: Sequence[int]) -> Index: ...

    def value_at(self, value: SSAValue, idx: Index) -> SSAValue: ...

    def load(self, buffer: SSAValue, idx: Index) -> SSAValue: ...
