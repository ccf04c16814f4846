"""Freezing: bind a function's weights as constants at compile time.

    frozen = freeze(program.module, program.weights)        # a new module
    fxdsl.apply(frozen, "graph-fold-constants")              # weight-only math
    (logits,) = fxdsl.run(frozen, x)                         # user inputs only

The weights are the arguments marked `graph.param = "<fqn>"` (what the
torch importer and the tracer make, leading in the importer's order). Each
bound one becomes a `graph.constant` (a `graph.full` when all its elements
are equal) at the top of the function, carrying its `graph.param` fqn as an
attribute and its argument's name, and leaves the signature; the other
arguments keep their order. What that enables is `graph-fold-constants`:
weight transposes and casts computed once, conv -> batch_norm folded.

Weights are either a sequence of arrays, one per `graph.param` argument in
argument order (`ImportedProgram.weights`), or a mapping fqn -> array (a
weights .npz), which may bind only some of them. A wrong count, an unknown
fqn, or an array of the wrong shape or dtype is a ValueError naming the
argument. The constants are built from the arrays' bytes; printed, they are
hex literals (`dense<"0x...">`, 2 characters per byte: a frozen ResNet-18
prints about 94 MB of text), so keep frozen modules in memory rather than
in IR files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FunctionType,
    ModuleOp,
    StringAttr,
    TensorType,
)
from xdsl.ir import Block, Operation

from fxdsl.interpreters.run import coerce_input, entry_function
from fxdsl.ir.graph import PARAM
from fxdsl.ir.utils import arg_attr, reorder_arguments
from fxdsl.transforms.constants import constant_op

Weights = Sequence[Any] | Mapping[str, Any]


def freeze(
    module: ModuleOp, weights: Weights, entry: str | None = "forward"
) -> ModuleOp:
    """A copy of `module` whose function `entry` (None: the first public one)
    has its `graph.param` arguments bound to `weights` as constants and
    dropped from its signature (see the module docstring). `module` is not
    modified."""
    if not isinstance(module, ModuleOp):
        raise TypeError(f"freeze: expected a ModuleOp, got {type(module).__name__}")
    frozen = module.clone()
    freeze_function(frozen, entry_function(frozen, entry), weights)
    return frozen


def freeze_function(module: ModuleOp, function: func.FuncOp, weights: Weights) -> None:
    """`freeze` in place, on `function` of `module`; every array is checked
    before anything changes."""
    name = f"@{function.sym_name.data}"
    _check_not_called(module, function, name)
    block = function.body.block
    constants: dict[int, Operation] = {}
    for index, array in _bind(function, weights, name).items():
        arg = block.args[index]
        assert isinstance(arg.type, TensorType)
        what = f"freeze: {name} {_describe(function, index)}"
        constants[index] = constant_op(coerce_input(array, arg.type, what), arg.type)
    first = block.first_op
    for index, constant in constants.items():
        arg = block.args[index]
        constant.attributes[PARAM] = StringAttr(arg_attr(function, index, PARAM) or "")
        if first is None:
            block.add_op(constant)
        else:
            block.insert_op_before(constant, first)
        constant.results[0].name_hint = arg.name_hint
        arg.replace_all_uses_with(constant.results[0])
    _drop_arguments(function, set(constants))


def _describe(function: func.FuncOp, index: int) -> str:
    arg = function.body.block.args[index]
    fqn = arg_attr(function, index, PARAM)
    return f"argument {index} (%{arg.name_hint or f'arg{index}'}, '{fqn}')"


def _check_not_called(module: ModuleOp, function: func.FuncOp, name: str) -> None:
    for op in module.walk():
        if (
            isinstance(op, func.CallOp)
            and op.callee.root_reference == function.sym_name
        ):
            raise ValueError(
                f"freeze: {name} is called by another function; freeze the "
                "function that binds its weights instead"
            )


def _bind(function: func.FuncOp, weights: Weights, name: str) -> dict[int, Any]:
    """Argument index -> array, for the weight arguments `weights` binds."""
    params = {
        i: fqn
        for i in range(len(function.args))
        if (fqn := arg_attr(function, i, PARAM)) is not None
    }
    if isinstance(weights, Mapping):
        unknown = sorted(set(weights) - set(params.values()))
        if unknown:
            known = ", ".join(sorted(params.values())) or "none"
            raise ValueError(
                f"freeze: {name} has no weight argument '{unknown[0]}' "
                f"(its graph.param arguments: {known})"
            )
        return {i: weights[fqn] for i, fqn in params.items() if fqn in weights}
    if isinstance(weights, str | bytes) or not isinstance(weights, Sequence):
        raise TypeError(
            "freeze: weights must be a sequence of arrays (one per graph.param "
            f"argument) or a mapping fqn -> array, got {type(weights).__name__}"
        )
    if len(weights) != len(params):
        raise ValueError(
            f"freeze: {name} has {len(params)} weight (graph.param) arguments, "
            f"got {len(weights)} arrays"
        )
    return dict(zip(params, weights, strict=True))


def _drop_arguments(function: func.FuncOp, dropped: set[int]) -> None:
    """Remove the (now unused) arguments `dropped` from `function`."""
    kept = [i for i in range(len(function.args)) if i not in dropped]
    reorder_arguments(function, kept)
    block: Block = function.body.block
    function.function_type = FunctionType.from_lists(
        [a.type for a in block.args], list(function.function_type.outputs.data)
    )
    if function.arg_attrs is not None:
        attrs = [function.arg_attrs.data[i] for i in kept]
        # none left is no attribute at all, as the parser reads it back
        has_any = any(a.data for a in attrs)
        function.arg_attrs = ArrayAttr[DictionaryAttr](attrs) if has_any else None


def freeze_and_fold(
    module: ModuleOp, weights: Weights, entry: str | None = "forward"
) -> ModuleOp:
    """`freeze`, then `graph-fold-constants` on the copy (what
    `fxdsl.compile(..., freeze=weights)` compiles)."""
    from fxdsl.transforms.graph_fold_constants import fold_constants

    return fold_constants(freeze(module, weights, entry))
