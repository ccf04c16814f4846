"""Small IR queries that any layer may use (interpreters, rewrites, passes).

Kept free of fxdsl imports so that low-level modules such as the reference
interpreter need not import the rewrite API to find a module's functions.
"""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation


def functions(module_or_func: Operation) -> list[func.FuncOp]:
    """The `func.func`s of a module (or the function itself), in order."""
    if isinstance(module_or_func, func.FuncOp):
        return [module_or_func]
    if isinstance(module_or_func, ModuleOp):
        return [op for op in module_or_func.ops if isinstance(op, func.FuncOp)]
    raise TypeError(
        f"expected a builtin.module or func.func, got {module_or_func.name}"
    )
