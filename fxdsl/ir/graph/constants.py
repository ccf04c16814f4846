"""Constants: `constant`, `full`, `arange`, and `is_graph_constant`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    Float64Type,
    FloatAttr,
    TensorType,
    i64,
)
from xdsl.ir import (
    Attribute,
    Block,
    Operation,
)
from xdsl.irdl import (
    irdl_op_definition,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    Pure,
)

from fxdsl.ir.graph.base import (
    ELEMENT_TYPES,
    FLOAT_TYPES,
    GraphOp,
    dtype_of,
    f32,
    i1,
    parse_attr_dict,
    shape_of,
    tensor,
)
from fxdsl.ir.shape_rules import ShapeError
from fxdsl.ir.syntax import DENSE, FLOAT, reuse_parse

# --------------------------------------------------------------------------- #
# Constants
# --------------------------------------------------------------------------- #


def is_graph_constant(op: Operation | Block) -> bool:
    """A constant of this dialect: a graph op with the `ConstantLike` trait
    (graph.constant, graph.full). Passes that evaluate or clone graph
    constants ask this, so other dialects' constants (arith) stay theirs."""
    return isinstance(op, GraphOp) and op.has_trait(ConstantLike)


@irdl_op_definition
class ConstantOp(GraphOp):
    """A tensor literal (attr-dict first, then the dense value with its type,
    as arith.constant).

        %c = graph.constant dense<1.0> : tensor<4xf32>
    """

    name = "graph.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(result_types=[value.type], properties={"value": value})

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.value.type) not in ELEMENT_TYPES:
            raise ShapeError(f"unsupported element type {self.value.type}")
        return [self.value.type]

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        printer.print_attribute(self.value)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attributes = parse_attr_dict(parser)
        value = reuse_parse(parser, DENSE, parser.parse_attribute)
        if not isinstance(value, DenseIntOrFPElementsAttr):
            parser.raise_error(f"graph.constant: expected a dense tensor, got {value}")
        op = cls(value)
        op.attributes |= attributes
        return op


@irdl_op_definition
class FullOp(GraphOp):
    """A tensor filled with one scalar `value` (converted to the dtype).

    %z = graph.full value -inf : tensor<64x64xf32>
    """

    name = "graph.full"
    PROP_KINDS: ClassVar[dict[str, str]] = {"value": FLOAT}
    value = prop_def(FloatAttr)
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, shape: Sequence[int], value: float, dtype: Attribute = f32):
        super().__init__(
            result_types=[tensor(shape, dtype)],
            properties={"value": FloatAttr(float(value), Float64Type())},
        )

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.result) not in ELEMENT_TYPES:
            raise ShapeError(f"unsupported element type {self.result.type}")
        return [self.result.type]


@irdl_op_definition
class ArangeOp(GraphOp):
    """torch.arange: element i is `start + i * step` (computed in float64,
    then converted, as torch does on the CPU); the length is the result's.
    Integer results take integral `start` and `step`; `step` is nonzero.
    Shapes are static, so `graph-decompose` folds it to a `graph.constant`.

    %r = graph.arange start 0.0 step 2.0 : tensor<5xi64>
    """

    name = "graph.arange"
    PROP_KINDS: ClassVar[dict[str, str]] = {"start": FLOAT, "step": FLOAT}
    start = prop_def(FloatAttr)
    step = prop_def(FloatAttr)
    result = result_def(TensorType)

    def __init__(self, start: float, step: float, length: int, dtype: Attribute = i64):
        super().__init__(
            result_types=[tensor([length], dtype)],
            properties={
                "start": FloatAttr(float(start), Float64Type()),
                "step": FloatAttr(float(step), Float64Type()),
            },
        )

    @property
    def start_value(self) -> float:
        return self.start.value.data

    @property
    def step_value(self) -> float:
        return self.step.value.data

    def infer_result_types(self) -> list[Attribute]:
        dtype, shape = dtype_of(self.result), shape_of(self.result)
        if dtype not in ELEMENT_TYPES or dtype == i1:
            raise ShapeError(
                f"result must be a float or integer tensor, got {self.result.type}"
            )
        if len(shape) != 1:
            raise ShapeError(f"result must have rank 1, got {self.result.type}")
        start, step = self.start_value, self.step_value
        if not (math.isfinite(start) and math.isfinite(step)) or step == 0:
            raise ShapeError(
                f"start and step must be finite, step nonzero: got {start}, {step}"
            )
        if dtype not in FLOAT_TYPES and (start != int(start) or step != int(step)):
            raise ShapeError(
                f"start {start} and step {step} must be integers for {self.result.type}"
            )
        return [self.result.type]
