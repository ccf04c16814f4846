"""`graph-dedup`: outline identical regions once, call them everywhere.

TorchDynamo's graph deduplication on the `graph` dialect. Region tracking
(`fxdsl.transforms.region_tracking`) finds groups of identical, disjoint
regions within one function; this pass then, per group:

* copies the first copy (the representative, its `scope`s included) into a
  `func.func private @dedup_<n>` marked `graph.dedup`. Its arguments are the
  external inputs in order of first use; two uses share an argument only when
  they read the same value in every copy. Its results are the union over all
  copies of the values used outside their copy (a copy ignores the results it
  does not need);
* replaces each copy by a `func.call` placed where the copy's last op was,
  carrying the common prefix of the copy's scopes; ops in between that depend
  on the copy move after the call (`DependencyGraph`'s stable order). Region
  tracking already left out copies (or ops) whose collapse would close a
  cycle, so every group it returns is outlined.

Tracking and rewriting repeat until nothing changes, so a second run is a
no-op. Calls (not `Pure`) never join a region, and functions marked
`graph.dedup` are not searched: the outlined unit stays whole (one function
per repeated layer, not one per repeated add inside it).

Options: `min-ops` (ops per region, default 2), `min-copies` (default 2).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.traits import IsTerminator
from xdsl.utils.exceptions import PassFailedException

from fxdsl.ir.graph import SCOPE, ScopeAttr
from fxdsl.transforms.dependency_graph import DependencyGraph
from fxdsl.transforms.region_tracking import RegionGroup, find_region_groups, producer

OUTLINED = "graph.dedup"
"""Unit attribute on functions this pass created; they are not searched."""

Slot = tuple[int, int]
"""(local op index, operand or result index) within a region."""


@dataclass
class ReplacedRegion:
    """One copy that became a call: the call and the (erased) ops it replaced,
    in the outlined function's order."""

    call: func.CallOp
    ops: tuple[Operation, ...]


def deduplicate(
    module: ModuleOp, *, min_ops: int = 2, min_copies: int = 2
) -> dict[str, list[ReplacedRegion]]:
    """Run graph-dedup on `module` in place; returns, per outlined function
    name, the regions it replaced (one `ReplacedRegion` per call)."""
    check_options(min_ops, min_copies)
    replaced: dict[str, list[ReplacedRegion]] = {}
    names: set[str] = set()
    for function in list(module.ops):
        if not isinstance(function, func.FuncOp) or OUTLINED in function.attributes:
            continue
        if len(function.body.blocks) != 1:
            continue
        while True:
            groups = find_region_groups(function.body.block, min_ops, min_copies)
            done = _rewrite(module, function, groups, names)
            if not done:
                break
            replaced.update(done)
    return replaced


def check_options(min_ops: int, min_copies: int) -> None:
    if min_ops < 1:
        raise PassFailedException(f"graph-dedup: min-ops must be >= 1, got {min_ops}")
    if min_copies < 2:
        raise PassFailedException(
            f"graph-dedup: min-copies must be >= 2 (one copy is not a duplicate), "
            f"got {min_copies}"
        )


# ------------------------------------------------------------------ placement


def _placement(block: Block, groups: list[RegionGroup]) -> list[Hashable]:
    """The block's new order: copies as `(group, copy)` units, each in its last
    op's place where dependences allow, other ops as themselves. Region
    tracking guaranteed that collapsing all copies leaves no cycle."""
    position = {op: i for i, op in enumerate(block.ops)}
    unit_of: dict[Operation, Hashable] = {}
    last_of: dict[Hashable, Operation] = {}
    for g, group in enumerate(groups):
        for r, copy in enumerate(group.copies):
            unit_of.update((op, (g, r)) for op in copy)
            last_of[(g, r)] = max(copy, key=position.__getitem__)
    graph = DependencyGraph[Hashable]()
    body = [
        op
        for op in block.ops
        if not op.has_trait(IsTerminator, value_if_unregistered=False)
    ]
    for op in body:
        unit = unit_of.get(op, op)
        if unit is op or last_of[unit] is op:
            graph.add_node(unit)
    for op in body:
        for value in op.operands:
            source = producer(value)
            if source is not None and source.parent is block:
                graph.add_edge(unit_of.get(source, source), unit_of.get(op, op))
    return graph.topological_order("stable")


# ------------------------------------------------------------------ rewriting


def _rewrite(
    module: ModuleOp,
    function: func.FuncOp,
    groups: list[RegionGroup],
    names: set[str],
) -> dict[str, list[ReplacedRegion]]:
    block = function.body.block
    order = _placement(block, groups)
    position = {op: i for i, op in enumerate(block.ops)}
    calls: dict[Hashable, func.CallOp] = {}
    done: dict[str, list[ReplacedRegion]] = {}
    # callees follow the function, in creation order
    anchor: Operation = function
    while (nxt := anchor.next_op) is not None and OUTLINED in nxt.attributes:
        anchor = nxt
    for g, group in enumerate(groups):
        name = _fresh_name(module, names)
        callee, params, outputs = _outline(name, group)
        module.body.block.insert_op_after(callee, anchor)
        anchor = callee
        for r, copy in enumerate(group.copies):
            last = max(copy, key=position.__getitem__)
            calls[(g, r)] = _replace(copy, last, name, params, outputs)
        done[name] = [ReplacedRegion(calls[(g, r)], tuple(copy))
                      for r, copy in enumerate(group.copies)]  # fmt: skip
    terminator = block.last_op
    assert terminator is not None
    for unit in order:
        op = calls[unit] if isinstance(unit, tuple) else unit
        assert isinstance(op, Operation)
        if op.parent is block:
            block.detach_op(op)
        block.insert_op_before(op, terminator)
    return done


def _fresh_name(module: ModuleOp, names: set[str]) -> str:
    taken = names | {o.sym_name.data for o in module.ops if isinstance(o, func.FuncOp)}
    n = 0
    while f"dedup_{n}" in taken:
        n += 1
    names.add(f"dedup_{n}")
    return f"dedup_{n}"


def _interface(group: RegionGroup) -> tuple[list[Slot], dict[Slot, int], list[Slot]]:
    """Parameters (first-use slot of each), the parameter of every external
    operand slot, and the union of the slots any copy uses outside."""
    representative = group.copies[0]
    inside = set(representative)
    params: list[Slot] = []
    param_of_values: dict[tuple[SSAValue, ...], int] = {}
    param_of: dict[Slot, int] = {}
    for l, op in enumerate(representative):
        for j, value in enumerate(op.operands):
            if producer(value) in inside:
                continue
            values = tuple(copy[l].operands[j] for copy in group.copies)
            if values not in param_of_values:
                param_of_values[values] = len(params)
                params.append((l, j))
            param_of[(l, j)] = param_of_values[values]
    outputs: set[Slot] = set()
    for copy in group.copies:
        members = set(copy)
        for l, op in enumerate(copy):
            for i, result in enumerate(op.results):
                if any(use.operation not in members for use in result.uses):
                    outputs.add((l, i))
    return params, param_of, sorted(outputs)


def _outline(
    name: str, group: RegionGroup
) -> tuple[func.FuncOp, list[Slot], list[Slot]]:
    representative = group.copies[0]
    params, param_of, outputs = _interface(group)
    inputs = [representative[l].operands[j] for l, j in params]
    body = Block(arg_types=[v.type for v in inputs])
    for arg, value in zip(body.args, inputs):
        arg.name_hint = value.name_hint
    mapping: dict[SSAValue, SSAValue] = {}
    for l, op in enumerate(representative):
        clone = op.clone()
        clone.operands = [
            mapping[v] if v in mapping else body.args[param_of[(l, j)]]
            for j, v in enumerate(op.operands)
        ]
        body.add_op(clone)
        mapping.update(zip(op.results, clone.results))
    results = [mapping[representative[l].results[i]] for l, i in outputs]
    body.add_op(func.ReturnOp(*results))
    callee = func.FuncOp(
        name, (body.arg_types, [v.type for v in results]), Region(body), "private"
    )
    callee.attributes[OUTLINED] = UnitAttr()
    return callee, params, outputs


def _replace(
    copy: list[Operation],
    last: Operation,
    name: str,
    params: list[Slot],
    outputs: list[Slot],
) -> func.CallOp:
    """Swap `copy` for a call (placed by the caller); every use outside the
    copy reads the call's results."""
    values = [copy[l].results[i] for l, i in outputs]
    call = func.CallOp(name, [copy[l].operands[j] for l, j in params],
                       [v.type for v in values])  # fmt: skip
    scope = _common_scope(copy)
    if scope:
        call.attributes[SCOPE] = ScopeAttr(scope)
    members = set(copy)
    block = copy[0].parent
    assert block is not None
    call.location = last.location
    block.insert_op_before(call, last)
    for value, result in zip(values, call.results):
        value.replace_uses_with_if(result, lambda use: use.operation not in members)
    for op in reversed(copy):
        block.erase_op(op)
    return call


def _common_scope(copy: list[Operation]) -> tuple[tuple[str, int, str], ...]:
    prefix: tuple[tuple[str, int, str], ...] | None = None
    for op in copy:
        attr = op.attributes.get(SCOPE)
        frames = attr.data if isinstance(attr, ScopeAttr) else ()
        if prefix is None:
            prefix = frames
            continue
        n = 0
        while n < min(len(prefix), len(frames)) and prefix[n] == frames[n]:
            n += 1
        prefix = prefix[:n]
    return prefix or ()


@dataclass(frozen=True)
class GraphDedupPass(ModulePass):
    """Outline groups of identical regions into one private function each and
    call it for every copy (see the module docstring).

    `graph-dedup{min-ops=2 min-copies=2}`: smallest region worth outlining
    (ops per copy) and fewest copies."""

    name = "graph-dedup"

    min_ops: int = 2
    min_copies: int = 2

    def __post_init__(self) -> None:
        check_options(self.min_ops, self.min_copies)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        deduplicate(op, min_ops=self.min_ops, min_copies=self.min_copies)
