"""`graph-split`: torch.fx `split_module` on the graph dialect.

Each op of a function names its partition; every partition becomes a private
function `@submod_<id>` and the function body becomes calls to them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator, is_side_effect_free
from xdsl.utils.exceptions import PassFailedException

from fxdsl.ir.utils import OpFailure, entry_function, single_block_bodies
from fxdsl.transforms.dependency_graph import CycleError, DependencyGraph
from fxdsl.transforms.outlining import (
    is_constant,
    outline_groups,
    unique_symbol,
    used_values,
)

PARTITION = "graph.partition"
"""Discardable attribute giving an op's partition: `{graph.partition = 2 : i64}`."""

PartitionOf = Callable[[Operation], int]


def _attribute_partition(op: Operation) -> int:
    attr = op.attributes.get(PARTITION)
    if attr is None:
        raise OpFailure(
            f"graph-split: {op.name} has no {PARTITION} attribute "
            "(every op but constants needs one)",
            op,
        )
    if not isinstance(attr, IntegerAttr):
        raise OpFailure(
            f"graph-split: {PARTITION} of {op.name} must be an integer, got {attr}",
            op,
        )
    return attr.value.data


def _checked_id(op: Operation, raw: object) -> int:
    """Callbacks are user code: accept any integer (numpy ones too) >= 0."""
    try:
        pid = operator.index(raw)  # type: ignore[arg-type]
    except TypeError:
        pid = -1
    if isinstance(raw, bool):
        pid = -1
    if pid < 0:
        raise OpFailure(
            f"graph-split: partition of {op.name} must be an integer >= 0, got {raw!r}",
            op,
        )
    return pid


def _partitions(
    body: list[Operation], partition_of: PartitionOf
) -> dict[int, list[Operation]]:
    """Partition id -> its ops, ids in order of first appearance."""
    groups: dict[int, list[Operation]] = {}
    for op in body:
        if is_constant(op):
            continue
        groups.setdefault(_checked_id(op, partition_of(op)), []).append(op)
    return groups


def _dependencies(groups: dict[int, list[Operation]]) -> DependencyGraph[int]:
    """The partition dependency graph; raises on the first cycle."""
    graph = DependencyGraph[int](groups)
    partition = {op: pid for pid, ops in groups.items() for op in ops}
    for pid, ops in groups.items():
        for op in ops:
            for value in used_values(op):
                source = partition.get(value.owner)  # type: ignore[arg-type]
                if source is None:
                    continue
                try:
                    graph.add_edge(source, pid)
                except CycleError as error:
                    cycle = " -> ".join(str(p) for p in error.cycle)
                    raise PassFailedException(
                        f"graph-split: cycle exists between partitions {cycle}"
                    ) from error
    return graph


def _drop_dead(
    block: Block, groups: dict[int, list[Operation]], order: list[int]
) -> list[int]:
    """Erase pure partitions none of whose values is used outside them,
    consumers first (so a partition feeding only dropped ones is dropped too);
    returns the live partitions in `order`."""
    live: list[int] = []
    for pid in reversed(order):
        ops = groups[pid]
        members = set(ops)
        used_outside = any(
            block.find_ancestor_op_in_block(use.operation) not in members
            for op in ops
            for result in op.results
            for use in result.uses
        )
        if used_outside or not all(is_side_effect_free(op) for op in ops):
            live.append(pid)
            continue
        used = {v.owner for op in ops for v in used_values(op)}
        for op in reversed(ops):
            block.erase_op(op)
        # constants that only the dropped partition used go with it
        for owner in used:
            if (
                isinstance(owner, Operation)
                and is_constant(owner)
                and owner.parent is block
                and not any(r.uses for r in owner.results)
            ):
                block.erase_op(owner)
    return live[::-1]


def split_function(
    function: func.FuncOp,
    partition_of: PartitionOf,
    keep_original_order: bool = False,
) -> list[func.FuncOp]:
    """Split one function (see `GraphSplitPass`); returns the new functions in
    call order."""
    block = function.body.block
    body = [
        op
        for op in block.ops
        if not op.has_trait(IsTerminator, value_if_unregistered=False)
    ]
    for op in body:
        if is_constant(op):
            op.attributes.pop(PARTITION, None)  # constants go where they are used
    groups = _partitions(body, partition_of)
    if not groups:
        return []
    graph = _dependencies(groups)
    order = graph.topological_order("stable" if keep_original_order else "fifo")
    live = _drop_dead(block, groups, order)
    for pid in live:
        for op in groups[pid]:
            op.attributes.pop(PARTITION, None)
    module = function.get_toplevel_object()
    assert isinstance(module, ModuleOp)
    taken: set[str] = set()
    names = [unique_symbol(module, f"submod_{pid}", taken) for pid in live]
    outlined = outline_groups(
        [groups[pid] for pid in live], "func", names, clone_constants=True
    )
    # outline_groups keeps first-appearance order where valid; calls follow `order`.
    terminator = block.last_op
    assert terminator is not None
    for item in outlined:
        block.detach_op(item.op)
        block.insert_op_before(item.op, terminator)
    return [item.callee for item in outlined if item.callee is not None]


def split_module(
    module: ModuleOp,
    callback: PartitionOf,
    keep_original_order: bool = False,
    entry: str | None = None,
) -> ModuleOp:
    """torch.fx `split_module`: split function `entry` (default: the first
    public function) by `callback(op) -> partition id`, in place; returns
    `module`. The callback is not asked about constants (they are duplicated)
    or the terminator. Raises PassFailedException on a cycle."""
    try:
        function = entry_function(module, entry)
    except ValueError as error:
        raise PassFailedException(f"graph-split: {error}") from error
    split_function(function, callback, keep_original_order)
    return module


@dataclass(frozen=True)
class GraphSplitPass(ModulePass):
    """torch.fx `split_module`: one function per partition, called in order.

    The partition of an op is its discardable attribute `graph.partition`
    (an integer >= 0); in Python, `split_module(module, callback)` asks a
    callback instead. Every function in which some op carries the attribute
    is split; other functions are left alone.

    * Constants (operand-less `ConstantLike` ops) need no partition (one given
      is ignored and removed): they are cloned into every partition that uses
      them, never passed. All other ops need one: a missing attribute is an
      error naming the op and where.
    * Partition `p` becomes `func.func private @submod_p` (`@submod_p_1`...
      if the name is taken). Its arguments are the values defined outside and
      used inside, in order of first use; its results the values defined
      inside and used outside (other partitions, the return), in order of
      definition. The attribute is removed from the moved ops.
    * The parent calls the partitions in a topological order of the partition
      dependency graph: torch.fx's (Kahn, ready partitions first-in first-out,
      roots in order of first appearance), or with `keep-original-order` the
      order in which partitions first appear wherever that is valid (the
      stable topological order).
    * A cycle between partitions fails the pass:
      `graph-split: cycle exists between partitions 0 -> 1 -> 0`.
    * A partition none of whose values is used outside it is dropped (no
      function, no call) when all its ops are side-effect free (all graph
      ops are pure), and so is one that only feeds dropped ones, along with
      constants only they used; a `func.call` of unknown effects keeps a
      partition alive.
      Function arguments no partition uses stay in the signature.

    Cost: near-linear in ops + uses; the cycle check and the placement are
    `DependencyGraph`'s (see fxdsl/transforms/dependency_graph.py).
    """

    name = "graph-split"

    keep_original_order: bool = False

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        functions = [
            f for f, block in single_block_bodies(op, self.name)
            if f.parent_op() is op and any(PARTITION in o.attributes for o in block.ops)
        ]  # fmt: skip
        for function in functions:
            split_function(function, _attribute_partition, self.keep_original_order)
