"""`graph-flatten`: inline the module hierarchy back (inverse of unflatten).

Every `func.call` that carries `graph.module` (made by `graph-unflatten`) is
replaced, recursively, by a copy of its callee's body; each copied op gets
`scope` = the stack of module frames that led to it, with fqns made absolute
(`layers.0` + `attn` -> `layers.0.attn`) and call indices counted in call
order per fqn (torch's numbering). Module functions nobody calls any more
are erased. Other calls are left alone.

Value names (`graph.name`) that `graph-unflatten` removed from module
function bodies come back from the module's `graph.call_signatures`: the
values passed to and returned by each call with a signature get its input
and output names, so flatten(unflatten(g)) is g.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException

from fxdsl.ir.graph import SCOPE, ScopeAttr, ScopeFrame, SignatureAttr
from fxdsl.ir.utils import OpFailure
from fxdsl.transforms.call_signatures import (
    SignatureError,
    module_signatures,
    set_value_name,
    value_name,
)
from fxdsl.transforms.scope_tree import call_name, module_frame, scope_frames


@dataclass
class _Inliner:
    functions: dict[str, func.FuncOp]
    signatures: dict[str, SignatureAttr]
    counters: dict[str, int] = field(default_factory=dict[str, int])

    def flatten_function(self, function: func.FuncOp) -> None:
        block = function.body.block
        for op in list(block.ops):
            if module_frame(op) is None:
                continue
            results = self.expand(op, list(op.operands), scope_frames(op), op)
            for old, new in zip(op.results, results):
                old.replace_all_uses_with(new)
            block.erase_op(op)

    def expand(
        self,
        call: Operation,
        operands: Sequence[SSAValue],
        outer: tuple[ScopeFrame, ...],
        anchor: Operation,
    ) -> list[SSAValue]:
        """Copy the body of module call `call` (with these operands, inside
        the frames `outer`) before `anchor`; returns what it returns."""
        frame = module_frame(call)
        assert isinstance(call, func.CallOp)
        assert frame is not None
        relative, _, type_name = frame
        fqn = f"{outer[-1][0]}.{relative}" if outer else relative
        index = self.counters.get(fqn, 0)
        self.counters[fqn] = index + 1
        frames = (*outer, (fqn, index, type_name))
        callee = self.functions.get(call.callee.string_value())
        if callee is None or len(callee.body.blocks) != 1:
            raise OpFailure(
                f"graph-flatten: module call to @{call.callee.string_value()} "
                "has no function body to inline",
                call,
            )
        mapping: dict[SSAValue, SSAValue] = dict(zip(callee.body.block.args, operands))
        block = anchor.parent
        assert block is not None
        for op in callee.body.block.ops:
            if isinstance(op, func.ReturnOp):
                results = [mapping.get(v, v) for v in op.operands]
                self.restore_names(call_name(fqn, index), operands, results)
                return results
            if module_frame(op) is not None:
                inner = [mapping.get(v, v) for v in op.operands]
                mapping.update(zip(op.results, self.expand(op, inner, frames, anchor)))
                continue
            copy = op.clone(mapping)
            copy.attributes[SCOPE] = ScopeAttr((*frames, *scope_frames(op)))
            block.insert_op_before(copy, anchor)
        raise AssertionError(f"{callee.sym_name.data} has no func.return")

    def restore_names(
        self, name: str, operands: Sequence[SSAValue], results: Sequence[SSAValue]
    ) -> None:
        signature = self.signatures.get(name)
        if signature is None:
            return
        fits = len(operands) >= len(signature.inputs)
        if not fits or len(results) != len(signature.outputs):
            raise PassFailedException(
                f"graph-flatten: module call '{name}' does not match its call "
                f"signature {signature}"
            )
        named = [*zip(operands, signature.inputs), *zip(results, signature.outputs)]
        for value, wanted in named:
            if value_name(value) != wanted:
                set_value_name(value, wanted)


def flatten(module: ModuleOp) -> ModuleOp:
    """Inline all module calls of `module` in place; returns `module`."""
    try:
        signatures = module_signatures(module)
    except SignatureError as error:
        raise PassFailedException(f"graph-flatten: {error}") from error
    functions = {f.sym_name.data: f for f in module.ops if isinstance(f, func.FuncOp)}
    targets = {
        op.callee.string_value()
        for f in functions.values()
        for op in f.walk()
        if module_frame(op) is not None
    }
    for name, function in functions.items():
        if name not in targets and len(function.body.blocks) == 1:
            _Inliner(functions, signatures).flatten_function(function)
    # Module functions only called from (now dead) module functions go too.
    still_called = {
        op.callee.string_value()
        for name, f in functions.items()
        if name not in targets
        for op in f.walk()
        if isinstance(op, func.CallOp)
    }
    for name in sorted(targets - still_called):
        if name in functions:
            module.body.block.erase_op(functions[name])
    return module


@dataclass(frozen=True)
class GraphFlattenPass(ModulePass):
    """Inline every module function made by `graph-unflatten` back into its
    caller, restoring each op's `scope`."""

    name = "graph-flatten"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        flatten(op)
