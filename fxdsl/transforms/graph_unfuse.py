"""`graph-unfuse`: inline every `graph.fusion_group` back into its block.

The inverse of `graph-fuse` for debugging and round-trip tests: the body ops
of each group move in front of it, in their order, its block arguments become
the group's operands and its results the yielded values. Constants that
`graph-fuse` cloned into several groups stay separate ops (run `cse` to share
them again).

    fxdsl-opt model.mlir -p graph-fuse,graph-unfuse
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from fxdsl.ir.graph import FusionGroupOp


def inline_group(group: FusionGroupOp) -> list[Operation]:
    """Move the body of `group` in front of it and erase it; returns the moved
    ops in order."""
    block = group.body.block
    for argument, operand in zip(block.args, group.inputs):
        argument.replace_all_uses_with(operand)
    terminator = group.yield_op
    for result, value in zip(group.outputs, terminator.values):
        result.replace_all_uses_with(value)
    moved = [op for op in block.ops if op is not terminator]
    parent = group.parent_block()
    assert parent is not None, "graph.fusion_group without a parent block"
    for op in moved:
        op.detach()
        parent.insert_op_before(op, group)
    parent.erase_op(group)
    return moved


@dataclass(frozen=True)
class GraphUnfusePass(ModulePass):
    """Inline all `graph.fusion_group` ops (innermost first, all functions)."""

    name = "graph-unfuse"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        groups = [g for g in op.walk() if isinstance(g, FusionGroupOp)]
        # walk() is pre-order: reversed, an inner group is inlined before its
        # parent, so every group still sits in a block when it is inlined.
        for group in reversed(groups):
            inline_group(group)
