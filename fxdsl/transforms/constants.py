"""Graph constants: their values at compile time and arrays as constants.

`ConstantEvaluator` is the one evaluator of constant values: each op on the
reference interpreter, once (`graph-fold-constants` folds forward with it,
`graph-fuse-attention` reads masks and scales back from a value). Arrays
that `freeze` binds and `graph-fold-constants` computes become
`graph.full` when every element is equal (one scalar in the IR, whatever
the shape), else a `graph.constant` built from the array's bytes (no Python
list per element, so a frozen conv weight of millions of elements takes
milliseconds)."""

from __future__ import annotations

from functools import cached_property
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
)
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation, SSAValue

from fxdsl.interpreters.run import make_interpreter
from fxdsl.ir import graph
from fxdsl.ir.dtypes import numpy_dtype, to_bytes, to_element_type

Array = np.ndarray[Any, Any]


class ConstantEvaluator:
    """Values known at compile time (`values`), each computed once on the
    reference interpreter; what to evaluate is the caller's policy."""

    def __init__(self) -> None:
        self.values: dict[SSAValue, Array] = {}

    @cached_property
    def interpreter(self) -> Interpreter:
        """Made on first use: most modules evaluate nothing."""
        return make_interpreter(ModuleOp([]))

    def evaluate(self, op: Operation) -> list[Array]:
        """Run `op` on its operands' values (all in `values`), record its
        results and return them; the interpreter's errors propagate."""
        args = tuple(self.values[o] for o in op.operands)
        results = list(self.interpreter.run_op(op, args))
        self.values.update(zip(op.results, results))
        return results


_EXACT_INTEGERS = 2**53
"""`graph.full` holds its value as an f64: integers beyond this may not
survive the round trip, so they stay dense."""


def splat_value(array: Array) -> float | None:
    """The one value of `array` when all its elements are bitwise equal (so
    -0.0 and 0.0 differ, and equal NaNs count) and an f64 holds it exactly;
    else None."""
    flat = np.ascontiguousarray(array).reshape(-1)
    if flat.size == 0:
        return None
    if flat.dtype.kind == "f":
        bits = flat.view(f"u{flat.dtype.itemsize}")
        if not bool((bits == bits[0]).all()):
            return None
        return float(flat[0])
    if not bool((flat == flat[0]).all()):
        return None
    first = int(flat[0])
    return float(first) if abs(first) <= _EXACT_INTEGERS else None


def constant_op(array: Array, typ: TensorType[Any]) -> graph.ConstantOp | graph.FullOp:
    """An op whose result of type `typ` holds `array` (converted to the
    element type as the reference converts): a `graph.full` when every
    element is equal, else a `graph.constant`."""
    element = graph.dtype_of(typ)
    values = to_element_type(np.asarray(array), element)
    assert values.dtype == numpy_dtype(element)
    if values.shape != graph.shape_of(typ):
        raise ValueError(f"array of shape {values.shape} does not fit {typ}")
    value = splat_value(values)
    if value is not None:
        return graph.FullOp(graph.shape_of(typ), value, element)
    return dense_constant(values, typ)


def dense_constant(array: Array, typ: TensorType[Any]) -> graph.ConstantOp:
    """A `graph.constant` of type `typ` holding `array` (converted to the
    element type as the reference converts), even when it is a splat."""
    element = graph.dtype_of(typ)
    values = to_element_type(np.asarray(array), element)
    if values.shape != graph.shape_of(typ):
        raise ValueError(f"array of shape {values.shape} does not fit {typ}")
    return graph.ConstantOp(
        DenseIntOrFPElementsAttr(typ, BytesAttr(to_bytes(values, element)))
    )
