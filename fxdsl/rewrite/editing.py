"""Direct graph editing, the FX `graph.nodes` / `node.replace_all_uses_with` way.

Every helper goes through `xdsl.rewriter.Rewriter`, so the IR is edited in
place and stays a valid xDSL module (nothing here is a second IR):

    for op in ops_in_order(module):
        if isinstance(op, graph.AddOp):
            relu = insert_after(op, graph.ReluOp(op.result))
            replace_all_uses(op.result, relu.result, exclude=[relu])
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xdsl.dialects.builtin import UnknownLoc
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from fxdsl.ir.graph import SCOPE

# `functions` lives with the other layer-neutral IR queries; it stays
# importable from here for the rewrite modules and existing user code.
from fxdsl.ir.utils import functions


def ops_in_order(module_or_func: Operation) -> Iterator[Operation]:
    """The top-level ops of every function body, in program order.

    The list is taken up front, so the caller may insert or erase ops while
    iterating (ops inserted during the walk are not visited).
    """
    ops = [
        op
        for function in functions(module_or_func)
        for block in function.body.blocks
        for op in block.ops
    ]
    yield from ops


def inherit_provenance(anchor: Operation, new_op: Operation) -> None:
    """Give `new_op` the `scope` and location of `anchor`, the op it is made
    for, unless it has its own (provenance survives every rewrite)."""
    if SCOPE in anchor.attributes and SCOPE not in new_op.attributes:
        new_op.attributes[SCOPE] = anchor.attributes[SCOPE]
    if isinstance(new_op.location, UnknownLoc):
        new_op.location = anchor.location


def insert_before(op: Operation, new_op: Operation) -> Operation:
    """Insert `new_op` right before `op`; it inherits `op`'s scope and
    location. Returns it."""
    inherit_provenance(op, new_op)
    Rewriter.insert_op(new_op, InsertPoint.before(op))
    return new_op


def insert_after(op: Operation, new_op: Operation) -> Operation:
    """Insert `new_op` right after `op`; it inherits `op`'s scope and
    location. Returns it."""
    inherit_provenance(op, new_op)
    Rewriter.insert_op(new_op, InsertPoint.after(op))
    return new_op


def replace_all_uses(
    old_value: SSAValue,
    new_value: SSAValue,
    exclude: Iterable[Operation] = (),
) -> None:
    """Make every user of `old_value` use `new_value` instead.

    Users in `exclude` keep `old_value` (FX's `replace_all_uses_with(...,
    delete_user_cb=...)`): typically the op that computes `new_value` from
    `old_value`. Types must agree, else the verifier would fail later.
    """
    if old_value.type != new_value.type:
        raise ValueError(
            f"replace_all_uses: type {new_value.type} of the new value differs "
            f"from type {old_value.type} of the old one"
        )
    skip = set(exclude)
    old_value.replace_uses_with_if(new_value, lambda use: use.operation not in skip)


def erase(op: Operation, force: bool = False) -> None:
    """Remove `op` from its block.

    Refuses (ValueError naming the op and its users) while a result is still
    used, unless `force=True`, which leaves the users with erased values: only
    for ops whose users are about to be erased too.
    """
    users = [use.operation for result in op.results for use in result.uses]
    if users and not force:
        names = ", ".join(sorted({user.name for user in users}))
        raise ValueError(
            f"erase: {op.name} still has {len(users)} use(s) (by {names}); "
            "replace its uses first or pass force=True"
        )
    Rewriter.erase_op(op, safe_erase=not force)
