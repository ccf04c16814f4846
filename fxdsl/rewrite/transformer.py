"""`Transformer`: op-by-op rewriting the way `torch.fx.Transformer` does it.

Subclass and override a method named after an op (`graph.add` -> `add`,
other dialects: `func.call` -> `func_call`) or the generic `call_op`:

    class AddToMul(Transformer):
        def add(self, op, lhs, rhs):
            return self.emit(graph.MulOp(lhs, rhs))      # one-to-one

    new_module = AddToMul().transform(module)         # input left untouched

A method receives the op and its operands, already remapped to the new IR,
and returns what replaces the op's results:

* a value (tuple of values for multi-result ops) built with `self.emit(op)`,
  or a Tensor built with `fxdsl.ops.*` / operators on `self.tensor(operand)`:
  one-to-one, or one-to-many when several ops were emitted and the last one
  is returned;
* one of its operands: the op disappears (one-to-none);
* `self.keep(op)` (what `call_op` returns by default) or None: the op stays.

Emitted ops are placed where the op was, in dependency order (so an emitted
op may use the kept op's result, as in "insert relu after add"), and inherit
its `scope` and location. The transformation works on a clone of the input,
through xDSL's `Rewriter`; `apply_in_place` is what the `ModulePass` made by
`as_pass` runs.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, cast

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import VerifyException

from fxdsl.ir.graph import SCOPE, ScopeAttr
from fxdsl.ir.shape_rules import ShapeError
from fxdsl.rewrite.editing import functions, insert_before
from fxdsl.rewrite.python_pass import make_pass
from fxdsl.tracing.ops import Tensor
from fxdsl.tracing.trace_state import emitting_into

Result = SSAValue | Sequence[SSAValue] | None


def method_name(op_name: str) -> str:
    """`graph.add` -> `add`; `func.call` -> `func_call`."""
    op_name = op_name.removeprefix("graph.")
    return op_name.replace(".", "_")


def unwrap(value: object) -> SSAValue[Attribute]:
    """An SSA value from a value or a traced symbolic tensor (`.value`)."""
    for candidate in (value, getattr(value, "value", None)):
        if isinstance(candidate, SSAValue):
            return cast(SSAValue[Attribute], candidate)
    raise TypeError(f"expected an SSA value or a traced tensor, got {value!r}")


class _EmitBlock:
    """Stands in for the tracer's block: appending an op emits it."""

    def __init__(self, transformer: Transformer):
        self._transformer = transformer

    def add_op(self, op: Operation) -> None:
        self._transformer.emit(op)


class Transformer:
    """Base class of FX-style op-by-op rewrites (see the module docstring)."""

    name: ClassVar[str] = ""
    """Pass name used by `as_pass` / the registry (default: the class name)."""

    def __init__(self) -> None:
        self._current: Operation | None = None
        self._emitted: list[Operation] = []
        self._state: Any = None

    # -- API for subclasses ------------------------------------------------ #

    def call_op(self, op: Operation, operands: Sequence[SSAValue]) -> Result:
        """Fallback for ops without a named method: keep the op."""
        return self.keep(op)

    def keep(self, op: Operation) -> tuple[SSAValue, ...]:
        """Keep `op` (with its current operands); returns its results."""
        return tuple(op.results)

    def tensor(self, value: SSAValue) -> Any:
        """`value` as a traced Tensor, so `fxdsl.ops.*` and Tensor operators
        (`x * 2`) emit ops here; return such Tensors like values."""
        if self._state is None:
            raise RuntimeError("Transformer.tensor called outside of a transformation")
        return Tensor(value, self._state)

    def emit(self, new_op: Operation) -> Any:
        """Insert `new_op` where the current op is; returns its result (or the
        tuple of its results when it has several or none)."""
        if self._current is None:
            raise RuntimeError("Transformer.emit called outside of a transformation")
        current = self._current
        try:
            new_op.verify()
        except (VerifyException, ShapeError) as error:
            new_op.drop_all_references()
            raise ValueError(
                f"{type(self).__name__}: op emitted for {current.name} is invalid: "
                f"{error}"
            ) from None
        self._emitted.append(insert_before(current, new_op))
        if len(new_op.results) == 1:
            return new_op.results[0]
        return tuple(new_op.results)

    # -- driving ----------------------------------------------------------- #

    def transform(self, module: ModuleOp) -> ModuleOp:
        """A transformed copy of `module` (verified); `module` is not changed."""
        new_module = module.clone()
        self.apply_in_place(new_module)
        new_module.verify()
        return new_module

    def apply_in_place(self, module: Operation) -> None:
        """Transform every function of `module` (or one `func.func`) in place."""
        for function in functions(module):
            for block in function.body.blocks:
                self._transform_block_ops(list(block.ops))

    @classmethod
    def as_pass(cls, name: str | None = None) -> type[ModulePass]:
        """A `ModulePass` class running this transformer (for `fxdsl-opt`)."""
        name = name or cls.name or cls.__name__
        return make_pass(name, lambda module: cls().transform(module), cls)

    def _transform_block_ops(self, ops: list[Operation]) -> None:
        for op in ops:
            if op.has_trait(IsTerminator, value_if_unregistered=False):
                continue
            handler = getattr(self, method_name(op.name), None)
            if not callable(handler):
                # No named method: `call_op` gets the op, after its regions
                # were transformed (a named method owns its op's regions).
                handler = None
                for region in op.regions:
                    for block in region.blocks:
                        self._transform_block_ops(list(block.ops))
            self._visit(op, handler)

    def _visit(self, op: Operation, handler: Any) -> None:
        self._current, self._emitted = op, []
        try:
            with self._tracing(op):
                operands = list(op.operands)
                if handler is None:
                    result = self.call_op(op, operands)
                else:
                    result = handler(op, *operands)
            self._replace(op, self._normalize(op, result))
        finally:
            self._current, self._emitted = None, []

    @contextmanager
    def _tracing(self, op: Operation) -> Generator[None, None, None]:
        """Make `fxdsl.ops` emit here: a tracer state whose block inserts
        through `emit`, whose frames are the op's scope."""
        scope = op.attributes.get(SCOPE)
        frames = list(scope.data) if isinstance(scope, ScopeAttr) else []
        with emitting_into(_EmitBlock(self), frames) as state:
            self._state = state
            try:
                yield
            finally:
                self._state = None

    def _normalize(self, op: Operation, result: Any) -> tuple[SSAValue, ...]:
        if result is None:
            return tuple(op.results)
        if isinstance(result, (tuple, list)):
            values = tuple(unwrap(v) for v in result)
        else:
            values = (unwrap(result),)
        if len(values) != len(op.results):
            raise ValueError(
                f"{type(self).__name__}: the rewrite of {op.name} returned "
                f"{len(values)} value(s) for {len(op.results)} result(s)"
            )
        for old, new in zip(op.results, values):
            if old.type != new.type:
                raise ValueError(
                    f"{type(self).__name__}: the rewrite of {op.name} returned a "
                    f"value of type {new.type} for a result of type {old.type}"
                )
        return values

    def _replace(self, op: Operation, values: tuple[SSAValue, ...]) -> None:
        emitted = set(self._emitted)
        replaced = False
        for old, new in zip(op.results, values):
            if old is not new:
                replaced = True
                # Emitted ops may read the old result (relu after add): keep those.
                old.replace_uses_with_if(new, lambda use: use.operation not in emitted)
        if replaced and all(not result.uses for result in op.results):
            Rewriter.erase_op(op)
        elif self._emitted:
            self._order_emitted(op)

    def _order_emitted(self, op: Operation) -> None:
        """Place the kept op among the emitted ones in def-use order."""
        group = [*self._emitted, op]
        members = set(group)
        placed: list[Operation] = []
        done: set[Operation] = set()
        pending = list(group)
        while pending:
            ready = next(
                (
                    candidate
                    for candidate in pending
                    if all(
                        operand.owner in done or operand.owner not in members
                        for operand in candidate.operands
                    )
                ),
                None,
            )
            if ready is None:
                raise ValueError(
                    f"{type(self).__name__}: emitted ops and {op.name} form a cycle"
                )
            pending.remove(ready)
            done.add(ready)
            placed.append(ready)
        anchor = op.next_op
        assert anchor is not None, "a kept op is followed by the terminator"
        for member in placed:
            member.detach()
        Rewriter.insert_op(placed, InsertPoint.before(anchor))
