"""`graph-fuse`: grow `graph.fusion_group`s producer -> consumer (nvFuser's
CudaGraphFuser on the graph dialect).

Each group becomes one kernel later on; what may share a kernel is decided by
`fxdsl.transforms.fusibility` (elementwise, view prologues, row reductions on
one iteration space), acyclicity by `fxdsl.transforms.fusion_groups`.

Per block, until nothing changes:

1. *Vertical*: consumers in reverse topological order pull in their fusible
   producers, latest first. A producer that is already a group is merged
   whole; a producer with users outside becomes an extra group output.
2. *Horizontal* (`horizontal=true`): nodes reading the same non-scalar value
   merge when legal, so the kernel reads that value once.

An attention takes an elementwise prologue on its query and an epilogue on
its result (`fusibility.attention_fusible`). A merge is refused when the
groups need different kernels, when it would
create a cycle, when the group would exceed `max-args` inputs + outputs or
`max-ops-per-group` ops, or when it would turn a view into a group output or
feed a dims-dropping reduction into its own row kernel.

Groups have at least two ops and at least one compute (non-view) op: a lone op
stays as it is. Each group body gets constants cloned in (never passed as
arguments), then CSE and DCE. Pre-existing groups are never split.

Options: `graph-fuse{max-args=128 horizontal=true max-ops-per-group=1024}`;
Python: `fuse(module, max_args=..., horizontal=..., max_ops_per_group=...)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, Region, SSAValue, Use
from xdsl.passes import ModulePass
from xdsl.transforms.common_subexpression_elimination import cse
from xdsl.transforms.dead_code_elimination import region_dce

from fxdsl.ir.graph import FusionGroupOp, YieldOp
from fxdsl.transforms.fusibility import (
    Fusibility,
    attention_fusible,
    classify,
    describe,
    edge_fusible,
    inner_producer,
    is_scalar,
    is_view,
)
from fxdsl.transforms.fusion_groups import OUTSIDE, FusionGraph, is_constant
from fxdsl.transforms.graph_unfuse import inline_group
from fxdsl.transforms.options import check_bool, check_int


class BlockFuser:
    """Fusion decisions for one block (`vertical`, `horizontal` rounds on a
    `FusionGraph`), then the rewrite into groups (`materialize`); `run` does
    all of it."""

    def __init__(self, block: Block, options: GraphFusePass):
        self.options = options
        self.graph = FusionGraph(block)
        described = [describe(op) for op in self.graph.ops]
        self.kernel = [d[0] for d in described]
        self.size = [d[1] for d in described]
        self.compute = [d[2] for d in described]

    def try_merge(self, a: int, b: int) -> int | None:
        """Merge nodes `a` and `b` if legal; returns the new root."""
        ka, kb = self.kernel[a], self.kernel[b]
        if ka is None or kb is None:
            return None
        kernel = ka.merge(kb)
        size = self.size[a] + self.size[b]
        if kernel is None or size > self.options.max_ops_per_group:
            return None
        graph = self.graph
        if kernel.attention and not attention_fusible(
            graph.members[a] + graph.members[b]
        ):
            return None
        edges = graph.edges_between(a, b)
        if not all(edge_fusible(v, use.operation, use.index) for v, use in edges):
            return None
        inputs, outputs = graph.merged_ports(a, b)
        if len(inputs) + len(outputs) > self.options.max_args:
            return None
        if any(is_view(inner_producer(value)) for value in outputs):
            return None
        first, second = sorted((a, b), key=graph.order.__getitem__)
        window = graph.window(first, second)
        if window is None:
            return None
        root = graph.contract(first, second, window, (inputs, outputs))
        self.kernel[root] = kernel
        self.size[root] = size
        self.compute[root] = self.compute[a] or self.compute[b]
        return root

    def vertical(self) -> bool:
        """One round of producer -> consumer merges; True if any happened."""
        graph, changed = self.graph, False
        for node in reversed(graph.roots()):
            if graph.find(node) != node or not self.compute[node]:
                continue
            tried: set[int] = set()
            while True:
                producers = sorted(
                    (p for p in graph.pred[node] if p not in tried),
                    key=graph.order.__getitem__,
                    reverse=True,
                )
                for producer in producers:
                    tried.add(producer)
                    root = self.try_merge(producer, node)
                    if root is not None:
                        node, changed = root, True
                        break
                else:
                    break
        return changed

    def horizontal(self) -> bool:
        """One round of merges between readers of one value; True if any."""
        graph, changed = self.graph, False
        values: list[SSAValue] = list(graph.block.args)
        values += [r for op in graph.ops for r in op.results]
        for value in values:
            if is_constant(value) or is_scalar(value):
                continue
            readers = sorted(
                {n for n in graph.users(value) if n != OUTSIDE and self.compute[n]},
                key=graph.order.__getitem__,
            )
            group = readers[0] if readers else None
            for reader in readers[1:]:
                assert group is not None
                root = self.try_merge(graph.find(group), graph.find(reader))
                if root is not None:
                    group, changed = root, True
        return changed

    def run(self) -> None:
        # Fixpoint: a merge can make another one legal (fewer ports, a path
        # that now runs inside a group), so repeat until a round changes nothing.
        changed = True
        while changed:
            changed = self.vertical()
            if self.options.horizontal:
                changed = self.horizontal() or changed
        self.materialize()

    def materialize(self) -> None:
        """Rewrite the block: nodes in topological order, each with two or
        more ops as one `graph.fusion_group`."""
        graph = self.graph
        block = graph.block
        constants = [op for op in graph.ops if _is_constant_op(op) and _used(op)]
        ordered: list[Operation] = []
        built: list[FusionGroupOp] = []
        for root in graph.roots():
            members = graph.members[root]
            if len(members) == 1:
                ordered.append(members[0])
                continue
            built.append(_build_group(sorted(members, key=graph.index.__getitem__)))
            ordered.append(built[-1])
        for op in list(block.ops):
            op.detach()
        block.add_ops(ordered)
        # CSE may leave a single op (two identical siblings): no group then.
        for group in built:
            if describe(group)[1] < 2:
                inline_group(group)
        # Constants whose every reader now holds its own clone.
        for constant in constants:
            if not _used(constant):
                block.erase_op(constant)


def _is_constant_op(op: Operation) -> bool:
    return classify(op) is Fusibility.CONSTANT


def _build_group(members: list[Operation]) -> FusionGroupOp:
    """Move `members` (in order, still in their block) into a new group."""
    ops: list[Operation] = []
    for op in members:
        ops += inline_group(op) if isinstance(op, FusionGroupOp) else [op]
    inside = set(ops)
    inputs: dict[SSAValue, None] = {}
    constants: dict[Operation, None] = {}
    for op in ops:
        for value in op.operands:
            if value.owner in inside:
                continue
            if is_constant(value):
                constants[value.owner] = None  # type: ignore[index]
            else:
                inputs[value] = None
    body = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args))
    for constant in constants:
        clone = constant.clone()
        body.add_op(clone)
        mapping[constant.results[0]] = clone.results[0]
    for op in ops:
        op.detach()
        body.add_op(op)
        for index, value in enumerate(op.operands):
            if value in mapping:
                op.operands[index] = mapping[value]
    # Both clean-ups only where they can find something (they cost per op).
    if _may_have_duplicates(body):
        cse(body)
    outputs = [
        r
        for op in body.ops
        for r in op.results
        if not all(_inside(use, body) for use in r.uses)
    ]
    terminator = YieldOp(*outputs)
    body.add_op(terminator)
    group = FusionGroupOp(list(inputs), [v.type for v in outputs], Region(body))
    for value, result in zip(outputs, group.outputs):
        value.replace_uses_with_if(result, lambda use: not _inside(use, body))
    if any(_unused(op) for op in body.ops):
        region_dce(group.body)
    return group


def _inside(use: Use, body: Block) -> bool:
    return use.operation.parent_block() is body


def _used(op: Operation) -> bool:
    return any(r.first_use is not None for r in op.results)


def _unused(op: Operation) -> bool:
    return bool(op.results) and not _used(op)


def _may_have_duplicates(body: Block) -> bool:
    """True when two ops have the same name and operands (CSE candidates)."""
    seen: set[tuple[str, tuple[SSAValue, ...]]] = set()
    for op in body.ops:
        key = (op.name, tuple(op.operands))
        if key in seen:
            return True
        seen.add(key)
    return False


@dataclass(frozen=True)
class GraphFusePass(ModulePass):
    """Form `graph.fusion_group`s in every function (see the module docstring).

    Options: `max-args` (inputs + outputs per group, default 128),
    `horizontal` (fuse siblings sharing an input, default true),
    `max-ops-per-group` (default 1024).
    """

    name = "graph-fuse"
    max_args: int = 128
    horizontal: bool = True
    max_ops_per_group: int = 1024

    def __post_init__(self) -> None:
        check_int(self.name, "max-args", self.max_args, 1)
        check_int(self.name, "max-ops-per-group", self.max_ops_per_group, 1)
        check_bool(self.name, "horizontal", self.horizontal)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for func in [f for f in op.walk() if isinstance(f, FuncOp)]:
            for block in func.body.blocks:
                BlockFuser(block, self).run()


def fuse(module: ModuleOp, **options: Any) -> ModuleOp:
    """Run `graph-fuse` on `module` in place (options as keyword arguments,
    `max_args=`, `horizontal=`, `max_ops_per_group=`); returns the module."""
    GraphFusePass(**options).apply(Context(), module)
    return module
