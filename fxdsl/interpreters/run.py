"""Running a module on the numpy reference interpreter.

outputs = run_reference(module, x, w)          # first public func
inputs = random_inputs(module, seed=0)         # matching random arrays
outputs = run_reference(module, *inputs, entry="block")
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerType, ModuleOp, TensorType
from xdsl.interpreter import Interpreter
from xdsl.interpreters.cf import CfFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.ir import Attribute, SSAValue
from xdsl.traits import SymbolTable

from fxdsl.interpreters.graph import GraphFunctions, TypeChecker
from fxdsl.interpreters.linalg import LinalgFunctions
from fxdsl.ir import graph
from fxdsl.ir.dtypes import numpy_dtype, to_element_type
from fxdsl.ir.utils import entry_function

Array = np.ndarray[Any, Any]


def make_interpreter(module: ModuleOp, check_types: bool = False) -> Interpreter:
    """An xDSL interpreter with the graph, func and cf implementations registered."""
    listeners = (TypeChecker(),) if check_types else ()
    interpreter = Interpreter(module, listeners=listeners)
    interpreter.register_implementations(GraphFunctions())
    interpreter.register_implementations(LinalgFunctions())
    interpreter.register_implementations(FuncFunctions())
    interpreter.register_implementations(CfFunctions())  # branches between blocks
    return interpreter


def run_reference(
    module: ModuleOp, *arrays: Any, entry: str | None = None, check_types: bool = False
) -> tuple[Array, ...]:
    """Run function `entry` (default: the first public one) on numpy inputs.

    Inputs must match the function type: same count, same shape, and for
    ndarrays the same dtype (bf16 arguments take float32 arrays, rounded to
    bf16). Python scalars and lists are converted with np.asarray when the
    shape matches and the conversion is lossless in kind (no float -> int).
    A mismatch raises ValueError naming the argument. Returns fresh arrays of
    exactly the result types' dtypes and shapes. `check_types` asserts that
    every intermediate value has exactly its IR type (a debug check).
    """
    function = entry_function(module, entry)
    inputs = coerce_inputs(function, arrays)
    interpreter = make_interpreter(module, check_types)
    with np.errstate(all="ignore"):
        results = interpreter.call_op(function, tuple(inputs))
    # Outputs may be views of inputs or read-only broadcasts: hand out copies.
    return tuple(np.array(r, copy=True) for r in results)


def coerce_inputs(function: func.FuncOp, arrays: Sequence[Any]) -> list[Array]:
    """Check `arrays` against the argument types of `function`; see run_reference."""
    types = function.function_type.inputs.data
    name = f"@{function.sym_name.data}"
    if len(arrays) != len(types):
        raise ValueError(f"{name} takes {len(types)} inputs, got {len(arrays)}")
    args = function.body.blocks[0].args if function.body.blocks else ()
    return [
        coerce_input(value, typ, f"argument {i} (%{_arg_name(args, i)})")
        for i, (value, typ) in enumerate(zip(arrays, types))
    ]


def _arg_name(args: Sequence[SSAValue], index: int) -> str:
    hint = args[index].name_hint if index < len(args) else None
    return hint or f"arg{index}"


def coerce_input(value: Any, typ: Attribute, what: str) -> Array:
    """`value` as an array of type `typ` (see run_reference); else a
    ValueError that starts with `what` (the argument)."""
    if not isinstance(typ, TensorType):
        raise ValueError(f"{what}: unsupported argument type {typ}")
    element_type = graph.dtype_of(typ)
    expected = numpy_dtype(element_type)
    array = np.asarray(value)
    if isinstance(value, np.ndarray | np.generic):
        dtype_ok = array.dtype == expected
    else:
        dtype_ok = array.dtype != object and np.can_cast(
            array.dtype, expected, casting="same_kind"
        )
    shape = graph.shape_of(typ)
    shape_ok = len(shape) == array.ndim and all(
        want in (-1, got) for want, got in zip(shape, array.shape)
    )
    if not (dtype_ok and shape_ok):
        raise ValueError(
            f"{what}: expected {typ}, got {array.dtype} array of shape {array.shape}"
        )
    return to_element_type(array, element_type)


# --------------------------------------------------------------------------- #
# Random inputs
# --------------------------------------------------------------------------- #

FLOAT_BOUND = 3.0
"""Random float inputs never exceed this magnitude (random graphs rely on it)."""

# Ops through which an index value keeps its meaning as an index: every
# view (it copies elements) and cast.
_INDEX_PRESERVING = (*graph.view_ops(), graph.CastOp)


def index_bound(module: ModuleOp, value: SSAValue) -> int | None:
    """The exclusive upper bound of valid values for `value` when it is used
    (directly, through data movement, fusion groups or calls) as the indices
    of graph.embedding, the index of graph.gather, graph.index_copy or
    graph.index_add or an index of graph.index; None when it is not."""
    bound: int | None = None
    work, seen = [value], {value}
    while work:
        current = work.pop()
        for use in current.uses:
            user, index = use.operation, use.index
            followed: Sequence[SSAValue] = ()
            limit: int | None = None
            if isinstance(user, graph.EmbeddingOp) and index == 0:
                limit = graph.shape_of(user.weight)[0]
            elif isinstance(user, graph.GatherOp) and index == 1:
                limit = graph.shape_of(user.input)[user.dim.value.data]
            elif isinstance(user, graph.IndexOp) and index > 0:
                limit = graph.shape_of(user.input)[user.dim_list[index - 1]]
            elif isinstance(user, graph.IndexUpdate) and index == 1:
                limit = graph.shape_of(user.input)[user.dim.value.data]
            elif isinstance(user, graph.FusionGroupOp):
                followed = [user.body.block.args[index]]
            elif isinstance(user, func.CallOp):
                callee = SymbolTable.lookup_symbol(module, user.callee)
                if isinstance(callee, func.FuncOp) and callee.body.blocks:
                    followed = [callee.body.block.args[index]]
            elif isinstance(user, _INDEX_PRESERVING):
                followed = list(user.results)
            if limit is not None:
                bound = limit if bound is None else min(bound, limit)
            for value_next in followed:
                if value_next not in seen:
                    seen.add(value_next)
                    work.append(value_next)
    return bound


def random_inputs(
    module: ModuleOp, entry: str | None = None, seed: int = 0
) -> list[Array]:
    """Deterministic random inputs for function `entry` (as run_reference).

    Floats are standard normal clipped to [-FLOAT_BOUND, FLOAT_BOUND] = [-3, 3]
    (then rounded to f16/bf16 as needed); i1 are fair coin flips; integers
    used as embedding/gather/index indices are uniform in [0, size of the indexed
    dim); other integers are uniform in [1, 8] (positive, so that they are
    safe divisors and exponents).
    """
    function = entry_function(module, entry)
    rng = np.random.default_rng(seed)
    arrays: list[Array] = []
    for arg in function.args:
        name = function.sym_name.data
        if not isinstance(arg.type, TensorType):
            raise ValueError(f"@{name}: unsupported argument type {arg.type}")
        if any(n < 0 for n in arg.type.get_shape()):
            raise ValueError(
                f"@{name}: argument type {arg.type} has a dynamic dimension; "
                "graph programs take static shapes only"
            )
        arrays.append(_random_array(rng, arg.type, index_bound(module, arg)))
    return arrays


def _random_array(
    rng: np.random.Generator, typ: TensorType[Attribute], bound: int | None
) -> Array:
    shape, element_type = graph.shape_of(typ), graph.dtype_of(typ)
    if isinstance(element_type, IntegerType):
        if element_type.width.data == 1:
            return rng.random(shape) < 0.5
        low, high = (0, bound) if bound is not None else (1, 9)
        values = rng.integers(low, max(high, low + 1), size=shape)
        return values.astype(numpy_dtype(element_type))
    normal = np.clip(rng.standard_normal(shape), -FLOAT_BOUND, FLOAT_BOUND)
    return to_element_type(normal, element_type)
