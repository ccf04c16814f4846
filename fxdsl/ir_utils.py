"""Small IR queries that any layer may use (interpreters, rewrites, passes).

Kept free of fxdsl imports so that low-level modules such as the reference
interpreter need not import the rewrite API to find a module's functions.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.utils.exceptions import PassFailedException


def functions(module_or_func: Operation) -> list[func.FuncOp]:
    """The `func.func`s of a module (or the function itself), in order."""
    if isinstance(module_or_func, func.FuncOp):
        return [module_or_func]
    if isinstance(module_or_func, ModuleOp):
        return [op for op in module_or_func.ops if isinstance(op, func.FuncOp)]
    raise TypeError(
        f"expected a builtin.module or func.func, got {module_or_func.name}"
    )


def single_block_bodies(
    root: Operation, pass_name: str
) -> list[tuple[func.FuncOp, Block]]:
    """Every defined `func.func` under `root` with its one block; declarations
    are skipped. A function with several blocks (`cf` control flow) fails
    `pass_name` with a diagnostic naming it: passes that rewrite straight-line
    dataflow (the GPU lowering) do not handle branches."""
    bodies: list[tuple[func.FuncOp, Block]] = []
    for op in root.walk():
        if not isinstance(op, func.FuncOp) or not op.body.blocks:
            continue
        if len(op.body.blocks) > 1:
            from fxdsl.parsing import location_of  # the parser imports this module

            where = location_of(op) or "unknown location"
            raise PassFailedException(
                f"{pass_name}: @{op.sym_name.data} at {where} has "
                f"{len(op.body.blocks)} blocks; only single-block functions "
                "(no control flow) are lowered"
            )
        bodies.append((op, op.body.block))
    return bodies
