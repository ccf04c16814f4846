"""Outlining: replace groups of ops of one block by calls or fusion groups.

`outline_groups(groups, kind=...)` takes disjoint groups of top-level ops of
one block (a `func.func` body) and replaces each group by one op:

* `kind="func"`: a new private `func.func @name` holding the group, placed
  after the enclosing function, and a `func.call` to it;
* `kind="group"`: a `graph.fusion_group` whose region holds the group.

The interface of a group is fixed and deterministic: its inputs are the values
defined outside and used inside (by the ops or by ops nested in their regions),
in order of first use (block order, operand order); its outputs are the values
defined inside and used outside, in order of definition. With
`clone_constants=True` a constant (an operand-less `ConstantLike` op) used by a
group is cloned into it instead of becoming an input, and the original is
erased when nothing uses it any more.

Placement: the block is re-ordered with `DependencyGraph` (each group one
node, every other op its own node, inserted in block order), in its "stable"
topological order; ops keep their relative order wherever that is valid. A
set of groups whose collapse would make a cycle raises `OutlineCycleError`
naming the groups. Cost O((ops + uses) log ops) for any number of groups.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import ConstantLike, IsTerminator, SymbolTable

from fxdsl.ir.graph import FusionGroupOp, YieldOp
from fxdsl.transforms.dependency_graph import CycleError, DependencyGraph

OutlineKind = Literal["func", "group"]
Unit = int | Operation
"""A node of the placement graph: a group (by index) or an op outside groups."""


class OutlineCycleError(Exception):
    """Collapsing the groups would create a cycle; `cycle` lists group indices
    (first one repeated last)."""

    def __init__(self, cycle: list[int]):
        self.cycle = cycle
        super().__init__(" -> ".join(str(g) for g in cycle))


@dataclass
class Outlined:
    """What one group became."""

    op: Operation
    """The `func.call` or `graph.fusion_group` that replaced the group."""
    callee: func.FuncOp | None
    """The outlined function (`kind="func"`)."""
    inputs: list[SSAValue]
    """The values passed in, in order (the new op's operands)."""


def is_constant(op: Operation) -> bool:
    """Operand-less, region-less `ConstantLike` ops: cheap to duplicate."""
    return (
        not op.operands
        and not op.regions
        and op.has_trait(ConstantLike, value_if_unregistered=False)
    )


def used_values(op: Operation) -> list[SSAValue]:
    """Values `op` and the ops nested in it use that are defined outside it."""
    if not op.regions:
        return list(op.operands)
    inside: set[SSAValue] = set()
    for inner in op.walk():
        inside.update(inner.results)
        for region in inner.regions:
            for block in region.blocks:
                inside.update(block.args)
    return [v for inner in op.walk() for v in inner.operands if v not in inside]


def unique_symbol(module: ModuleOp, base: str, taken: set[str]) -> str:
    """`base`, or `base_1`, `base_2`... : the first name no symbol has."""
    name, n = base, 0
    while name in taken or SymbolTable.lookup_symbol(module, name) is not None:
        n += 1
        name = f"{base}_{n}"
    taken.add(name)
    return name


def outline_groups(
    groups: Sequence[Sequence[Operation]],
    kind: OutlineKind = "func",
    names: Sequence[str] | None = None,
    clone_constants: bool = False,
) -> list[Outlined]:
    """Outline each group (see the module docstring); returns one `Outlined`
    per group, in the order given. `names` are the function names
    (`kind="func"`); the caller makes them unique."""
    if not groups:
        return []
    block = _common_block(groups)
    position = {op: i for i, op in enumerate(block.ops)}
    group_of: dict[Operation, int] = {}
    for index, ops in enumerate(groups):
        for op in ops:
            if op in group_of or op.has_trait(
                IsTerminator, value_if_unregistered=False
            ):
                raise ValueError(f"outline: {op.name} is a terminator or in two groups")
            group_of[op] = index
    ordered = [sorted(ops, key=position.__getitem__) for ops in groups]
    units = _placement(block, group_of)
    outlined: list[Outlined] = []
    for index, ops in enumerate(ordered):
        name = names[index] if names is not None else None
        outlined.append(_outline_one(block, ops, kind, name, clone_constants))
    terminator = block.last_op
    assert terminator is not None
    assert terminator.has_trait(IsTerminator, value_if_unregistered=False)
    for unit in units:
        op = outlined[unit].op if isinstance(unit, int) else unit
        if op.parent is not block:
            continue  # a constant that was cloned into groups and erased
        block.detach_op(op)
        block.insert_op_before(op, terminator)
    if kind == "func":
        _insert_callees(block, [o.callee for o in outlined if o.callee is not None])
    return outlined


def _common_block(groups: Sequence[Sequence[Operation]]) -> Block:
    blocks = {op.parent for ops in groups for op in ops}
    if len(blocks) != 1 or None in blocks or any(not ops for ops in groups):
        raise ValueError("outline: groups must be non-empty and share one block")
    block = blocks.pop()
    assert block is not None
    return block


def _placement(block: Block, group_of: dict[Operation, int]) -> list[Unit]:
    """The new order of the block's units: group indices and other ops."""
    graph = DependencyGraph[Unit]()
    unit_of: dict[Operation, Unit] = {}
    for op in block.ops:
        if op.has_trait(IsTerminator, value_if_unregistered=False):
            continue
        unit = group_of.get(op, op)
        unit_of[op] = unit
        graph.add_node(unit)
        for value in used_values(op):
            producer = _producer_in(block, value)
            if producer is None:
                continue
            try:
                graph.add_edge(unit_of[producer], unit)
            except CycleError as error:
                ring = [n for n in error.cycle[:-1] if isinstance(n, int)]
                raise OutlineCycleError(ring + ring[:1]) from error
    return graph.topological_order("stable")


def _producer_in(block: Block, value: SSAValue) -> Operation | None:
    owner = value.owner
    return owner if isinstance(owner, Operation) and owner.parent is block else None


def _outline_one(
    block: Block,
    ops: list[Operation],
    kind: OutlineKind,
    name: str | None,
    clone_constants: bool,
) -> Outlined:
    members = set(ops)
    inputs: dict[SSAValue, None] = {}
    constants: dict[Operation, None] = {}
    for op in ops:
        for value in used_values(op):
            producer = _producer_in(block, value)
            if producer in members:
                continue
            if clone_constants and producer is not None and is_constant(producer):
                constants[producer] = None
            else:
                inputs[value] = None
    outputs = [
        result
        for op in ops
        for result in op.results
        if any(
            block.find_ancestor_op_in_block(u.operation) not in members
            for u in result.uses
        )
    ]
    body = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, body.args))
    for value, arg in mapping.items():
        arg.name_hint = value.name_hint  # keeps the outlined body readable
    for constant in constants:
        clone = constant.clone()
        body.add_op(clone)
        mapping.update(zip(constant.results, clone.results))
    for op in ops:
        block.detach_op(op)
        body.add_op(op)
        for inner in op.walk():
            inner.operands = tuple(mapping.get(v, v) for v in inner.operands)
    result_types = [v.type for v in outputs]
    callee = None
    if kind == "func":
        assert name is not None, "outline: kind='func' needs names"
        body.add_op(func.ReturnOp(*outputs))
        callee = func.FuncOp(
            name, (body.arg_types, result_types), Region(body), "private"
        )
        new_op: Operation = func.CallOp(name, list(inputs), result_types)
    else:
        body.add_op(YieldOp(*outputs))
        new_op = FusionGroupOp(list(inputs), result_types, Region(body))
    new_op.location = ops[0].location
    for old, new in zip(outputs, new_op.results):
        old.replace_uses_with_if(
            new, lambda use: body.find_ancestor_op_in_block(use.operation) is None
        )
    terminator = block.last_op
    assert terminator is not None
    block.insert_op_before(new_op, terminator)  # outline_groups places it for real
    for constant in constants:
        if all(not r.uses for r in constant.results):
            block.erase_op(constant)
    return Outlined(new_op, callee, list(inputs))


def _insert_callees(block: Block, callees: list[func.FuncOp]) -> None:
    anchor = block.parent_op()
    module_block = anchor.parent if anchor is not None else None
    assert anchor is not None
    assert module_block is not None
    for callee in callees:
        module_block.insert_op_after(callee, anchor)
        anchor = callee
