"""Elementwise graph ops: unary, binary, comparisons, `select`."""

from __future__ import annotations

import math
from typing import ClassVar

from xdsl.dialects import math as scalar_math
from xdsl.dialects.builtin import (
    Float64Type,
    FloatAttr,
    StringAttr,
    TensorType,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
)

from fxdsl.ir import shape_rules as rules
from fxdsl.ir.graph.base import (
    ELEMENT_TYPES,
    FLOAT_TYPES,
    BoolOperands,
    GraphOp,
    IntegerOperands,
    bit_width,
    dtype_of,
    i1,
    shape_of,
    tensor,
)
from fxdsl.ir.shape_rules import ShapeError
from fxdsl.ir.syntax import FLOAT

# --------------------------------------------------------------------------- #
# Elementwise
# --------------------------------------------------------------------------- #


class UnaryOp(GraphOp):
    """Elementwise `y = f(x)`, result type equal to the input type.

    A plain float function (`graph.sin`) declares `SCALAR_MATH`, the xDSL
    `math` op computing one element in f32: the lowering to scalar code, the
    importer (`aten.<op>`, `prims.<op>`) and the lowering tests ask it, so
    such an op is its declaration here plus its numpy reference in
    `interpreters/graph.py` (docs/adding-ops.md).
    """

    FLOAT_ONLY: ClassVar[bool] = True
    SCALAR_MATH: ClassVar[type[Operation] | None] = None
    """The `math` op of one f32 element; None: a rule in `lowering/scalar_ops`."""
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, result_type: Attribute | None = None):
        super().__init__(operands=[input], result_types=[result_type or input.type])

    def verify_operands(self) -> None:
        super().verify_operands()
        if self.FLOAT_ONLY and dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")

    def infer_result_types(self) -> list[Attribute]:
        return [self.input.type]


@irdl_op_definition
class NegOp(UnaryOp):
    """`y = -x`."""

    name = "graph.neg"
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class AbsOp(UnaryOp):
    """`y = |x|`."""

    name = "graph.abs"
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class ExpOp(UnaryOp):
    name = "graph.exp"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.ExpOp


@irdl_op_definition
class LogOp(UnaryOp):
    name = "graph.log"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.LogOp


@irdl_op_definition
class SqrtOp(UnaryOp):
    name = "graph.sqrt"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.SqrtOp


@irdl_op_definition
class RsqrtOp(UnaryOp):
    name = "graph.rsqrt"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.RsqrtOp


@irdl_op_definition
class TanhOp(UnaryOp):
    name = "graph.tanh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.TanhOp


@irdl_op_definition
class SigmoidOp(UnaryOp):
    name = "graph.sigmoid"


@irdl_op_definition
class ReluOp(UnaryOp):
    """`y = x < 0 ? 0 : x`: max(x, 0), keeping -0.0 and NaN as torch's CPU
    kernel does."""

    name = "graph.relu"
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class GeluOp(UnaryOp):
    """GELU; `approximate "tanh"` selects the tanh form (default: erf form).

    %y = graph.gelu %x approximate "tanh" : tensor<8xf32>
    """

    name = "graph.gelu"
    approximate = opt_prop_def(StringAttr)

    def __init__(self, input: SSAValue, approximate: str = "none"):
        super().__init__(input)
        if approximate != "none":
            self.approximate = StringAttr(approximate)

    @property
    def mode(self) -> str:
        return "none" if self.approximate is None else self.approximate.data

    def verify_operands(self) -> None:
        super().verify_operands()
        if self.mode not in ("none", "tanh"):
            raise ShapeError(f'approximate must be "none" or "tanh", got "{self.mode}"')


@irdl_op_definition
class SiluOp(UnaryOp):
    name = "graph.silu"


@irdl_op_definition
class ErfOp(UnaryOp):
    name = "graph.erf"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.ErfOp


@irdl_op_definition
class SinOp(UnaryOp):
    name = "graph.sin"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.SinOp


@irdl_op_definition
class CosOp(UnaryOp):
    name = "graph.cos"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.CosOp


@irdl_op_definition
class TanOp(UnaryOp):
    name = "graph.tan"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.TanOp


@irdl_op_definition
class AcosOp(UnaryOp):
    name = "graph.acos"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AcosOp


@irdl_op_definition
class AsinOp(UnaryOp):
    name = "graph.asin"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AsinOp


@irdl_op_definition
class AtanOp(UnaryOp):
    name = "graph.atan"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AtanOp


@irdl_op_definition
class SinhOp(UnaryOp):
    name = "graph.sinh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.SinhOp


@irdl_op_definition
class CoshOp(UnaryOp):
    name = "graph.cosh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.CoshOp


@irdl_op_definition
class AsinhOp(UnaryOp):
    name = "graph.asinh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AsinhOp


@irdl_op_definition
class AcoshOp(UnaryOp):
    name = "graph.acosh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AcoshOp


@irdl_op_definition
class AtanhOp(UnaryOp):
    name = "graph.atanh"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.AtanhOp


@irdl_op_definition
class Exp2Op(UnaryOp):
    name = "graph.exp2"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.Exp2Op


@irdl_op_definition
class Log2Op(UnaryOp):
    name = "graph.log2"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.Log2Op


@irdl_op_definition
class Log10Op(UnaryOp):
    name = "graph.log10"
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.Log10Op


@irdl_op_definition
class ReciprocalOp(UnaryOp):
    name = "graph.reciprocal"


@irdl_op_definition
class ClampOp(UnaryOp):
    """torch.clamp with scalar bounds: `min(max(x, min), max)`, either bound
    optional (not both absent); NaN stays NaN, and `min > max` gives `max`
    everywhere, as torch. Integer tensors take integral bounds only.

    %y = graph.clamp %x max 6.0 min 0.0 : tensor<8xf32>
    """

    name = "graph.clamp"
    FLOAT_ONLY: ClassVar[bool] = False
    PROP_KINDS: ClassVar[dict[str, str]] = {"min": FLOAT, "max": FLOAT}
    min = opt_prop_def(FloatAttr)
    max = opt_prop_def(FloatAttr)

    def __init__(
        self, input: SSAValue, min: float | None = None, max: float | None = None
    ):
        bounds = {"min": min, "max": max}
        properties: dict[str, Attribute] = {
            k: FloatAttr(float(v), Float64Type())
            for k, v in bounds.items()
            if v is not None
        }
        self._build(operands=[input], result_types=[input.type], properties=properties)

    @property
    def bounds(self) -> tuple[float | None, float | None]:
        """(min, max), None where absent."""
        return tuple(None if b is None else b.value.data for b in (self.min, self.max))  # type: ignore[return-value]

    def verify_operands(self) -> None:
        super().verify_operands()
        if dtype_of(self.input) == i1:
            raise ShapeError(
                f"expects a float or integer tensor, got {self.input.type}"
            )
        if self.bounds == (None, None):
            raise ShapeError("needs a min or a max bound")
        if dtype_of(self.input) in FLOAT_TYPES:
            return
        for bound in self.bounds:
            if bound is not None and not (math.isfinite(bound) and bound == int(bound)):
                raise ShapeError(
                    f"bound {bound} is not an integer, for {self.input.type}"
                )


@irdl_op_definition
class HardswishOp(UnaryOp):
    """torch's hardswish: `x * min(max(x + 3, 0), 6) / 6`."""

    name = "graph.hardswish"


@irdl_op_definition
class HardsigmoidOp(UnaryOp):
    """torch's hardsigmoid: `min(max(x + 3, 0), 6) / 6`."""

    name = "graph.hardsigmoid"


@irdl_op_definition
class CastOp(UnaryOp):
    """Element type conversion, same shape (numpy `astype` semantics).

    %y = graph.cast %x : (tensor<8xf32>) -> tensor<8xf16>
    """

    name = "graph.cast"
    FLOAT_ONLY: ClassVar[bool] = False

    def __init__(self, input: SSAValue, dtype: Attribute):
        super().__init__(input, tensor(shape_of(input), dtype))

    def infer_result_types(self) -> list[Attribute]:
        dtype = dtype_of(self.result)
        if dtype not in ELEMENT_TYPES:
            raise ShapeError(f"unsupported target element type {dtype}")
        return [tensor(shape_of(self.input), dtype)]


@irdl_op_definition
class BitcastOp(UnaryOp):
    """The same bits read as another element type of the same width, same
    shape (torch's `x.view(dtype)`, numpy's `x.view(dtype)`); i1 has no
    bits of its own to reinterpret.

    %y = graph.bitcast %x : (tensor<8xf32>) -> tensor<8xi32>
    """

    name = "graph.bitcast"
    FLOAT_ONLY: ClassVar[bool] = False

    def __init__(self, input: SSAValue, dtype: Attribute):
        super().__init__(input, tensor(shape_of(input), dtype))

    def infer_result_types(self) -> list[Attribute]:
        source, target = dtype_of(self.input), dtype_of(self.result)
        if target not in ELEMENT_TYPES or i1 in (source, target):
            raise ShapeError(
                f"expects element types other than i1, got {self.input.type} "
                f"to {self.result.type}"
            )
        source_bits, target_bits = bit_width(source), bit_width(target)
        if source_bits != target_bits:
            raise ShapeError(
                f"element widths differ: {self.input.type} has {source_bits} "
                f"bits, {self.result.type} {target_bits}"
            )
        return [tensor(shape_of(self.input), target)]


@irdl_op_definition
class LogicalNotOp(BoolOperands, UnaryOp):
    """`y = !x` on i1.

    %y = graph.logical_not %x : tensor<8xi1>
    """

    name = "graph.logical_not"
    FLOAT_ONLY: ClassVar[bool] = False


class BinaryOp(GraphOp):
    """Elementwise binary op with numpy broadcasting; operands share a dtype.

    `FLOAT_ONLY` and `SCALAR_MATH` as for `UnaryOp` (`graph.atan2`).
    """

    FLOAT_ONLY: ClassVar[bool] = False
    SCALAR_MATH: ClassVar[type[Operation] | None] = None
    """The `math` op of one f32 element pair; None: a rule in `lowering/scalar_ops`."""
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        self._build(operands=[lhs, rhs], result_types=[lhs.type])

    def result_dtype(self) -> Attribute:
        return dtype_of(self.lhs)

    def verify_operands(self) -> None:
        super().verify_operands()
        if self.FLOAT_ONLY and dtype_of(self.lhs) not in FLOAT_TYPES:
            raise ShapeError(f"expects float tensors, got {self.lhs.type}")

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.lhs) != dtype_of(self.rhs):
            raise ShapeError(
                f"element types differ: lhs {self.lhs.type}, rhs {self.rhs.type}"
            )
        shape = rules.broadcast_shapes(shape_of(self.lhs), shape_of(self.rhs))
        return [tensor(shape, self.result_dtype())]


class CompareOp(BinaryOp):
    """Elementwise comparison; the result is i1."""

    def result_dtype(self) -> Attribute:
        return i1


@irdl_op_definition
class AddOp(BinaryOp):
    name = "graph.add"


@irdl_op_definition
class SubOp(BinaryOp):
    name = "graph.sub"


@irdl_op_definition
class MulOp(BinaryOp):
    name = "graph.mul"


@irdl_op_definition
class DivOp(BinaryOp):
    """True division for floats; integer operands floor-divide (torch `//`)."""

    name = "graph.div"


@irdl_op_definition
class PowOp(BinaryOp):
    name = "graph.pow"


@irdl_op_definition
class MaximumOp(BinaryOp):
    name = "graph.maximum"


@irdl_op_definition
class MinimumOp(BinaryOp):
    name = "graph.minimum"


@irdl_op_definition
class Atan2Op(BinaryOp):
    """`atan2(lhs, rhs)`: the angle of the point (rhs, lhs)."""

    name = "graph.atan2"
    FLOAT_ONLY: ClassVar[bool] = True
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.Atan2Op


@irdl_op_definition
class CopysignOp(BinaryOp):
    """`|lhs|` with the sign bit of `rhs`."""

    name = "graph.copysign"
    FLOAT_ONLY: ClassVar[bool] = True
    SCALAR_MATH: ClassVar[type[Operation]] = scalar_math.CopySignOp


@irdl_op_definition
class FmodOp(BinaryOp):
    """C's `fmod`: `lhs - trunc(lhs / rhs) * rhs`, exactly; the sign of `lhs`."""

    name = "graph.fmod"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class RemainderOp(BinaryOp):
    """torch's `remainder` (Python's `%`): `fmod(lhs, rhs)`, plus `rhs` where
    that is not 0 and its sign is not `rhs`'s; a zero keeps `lhs`'s sign."""

    name = "graph.remainder"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class EqOp(CompareOp):
    name = "graph.eq"


@irdl_op_definition
class NeOp(CompareOp):
    name = "graph.ne"


@irdl_op_definition
class LtOp(CompareOp):
    name = "graph.lt"


@irdl_op_definition
class LeOp(CompareOp):
    name = "graph.le"


@irdl_op_definition
class GtOp(CompareOp):
    name = "graph.gt"


@irdl_op_definition
class GeOp(CompareOp):
    name = "graph.ge"


@irdl_op_definition
class LogicalAndOp(BoolOperands, BinaryOp):
    """`lhs && rhs` on i1, broadcasting.

    %r = graph.logical_and %a, %b : (tensor<4x1xi1>, tensor<8xi1>) -> tensor<4x8xi1>
    """

    name = "graph.logical_and"


@irdl_op_definition
class LogicalOrOp(BoolOperands, BinaryOp):
    """`lhs || rhs` on i1, broadcasting."""

    name = "graph.logical_or"


@irdl_op_definition
class BitwiseAndOp(IntegerOperands, BinaryOp):
    """`lhs & rhs` on integers (two's complement), broadcasting.

    %r = graph.bitwise_and %a, %b : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    """

    name = "graph.bitwise_and"


@irdl_op_definition
class BitwiseOrOp(IntegerOperands, BinaryOp):
    """`lhs | rhs` on integers, broadcasting."""

    name = "graph.bitwise_or"


@irdl_op_definition
class BitwiseXorOp(IntegerOperands, BinaryOp):
    """`lhs ^ rhs` on integers, broadcasting."""

    name = "graph.bitwise_xor"


@irdl_op_definition
class ShiftLeftOp(IntegerOperands, BinaryOp):
    """`lhs << rhs` on integers, wrapping to the type's width; a shift by a
    negative amount or by the width or more gives 0 (torch's and numpy's
    rule, where C leaves it undefined)."""

    name = "graph.shift_left"


@irdl_op_definition
class ShiftRightOp(IntegerOperands, BinaryOp):
    """`lhs >> rhs` on integers: arithmetic for signed types (the sign
    fills in), logical for ui8; a shift by a negative amount or by the
    width or more gives the sign fill (-1 or 0)."""

    name = "graph.shift_right"


@irdl_op_definition
class GcdOp(IntegerOperands, BinaryOp):
    """The greatest common divisor of `|lhs|` and `|rhs|`, broadcasting;
    `gcd(0, 0) = 0` (torch's and numpy's rule).

    %r = graph.gcd %a, %b : (tensor<8xi64>, tensor<8xi64>) -> tensor<8xi64>
    """

    name = "graph.gcd"


@irdl_op_definition
class BitwiseNotOp(IntegerOperands, UnaryOp):
    """`~x` on integers (`!x` on i1).

    %y = graph.bitwise_not %x : tensor<8xi64>
    """

    name = "graph.bitwise_not"
    FLOAT_ONLY: ClassVar[bool] = False


@irdl_op_definition
class SelectOp(GraphOp):
    """`cond ? lhs : rhs` elementwise, all three broadcast together.

    %r = graph.select %c, %a, %b : (tensor<4x1xi1>, tensor<4x8xf32>,
                                    tensor<8xf32>) -> tensor<4x8xf32>
    """

    name = "graph.select"
    cond = operand_def(TensorType)
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, cond: SSAValue, lhs: SSAValue, rhs: SSAValue):
        self._build(operands=[cond, lhs, rhs], result_types=[lhs.type])

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.cond) != i1:
            raise ShapeError(f"condition must be i1, got {self.cond.type}")
        if dtype_of(self.lhs) != dtype_of(self.rhs):
            raise ShapeError(
                f"element types differ: lhs {self.lhs.type}, rhs {self.rhs.type}"
            )
        shape = rules.broadcast_shapes(
            shape_of(self.cond), shape_of(self.lhs), shape_of(self.rhs)
        )
        return [tensor(shape, dtype_of(self.lhs))]
