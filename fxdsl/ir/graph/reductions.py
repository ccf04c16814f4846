"""Reductions and normalisations, and the `ReductionLike` interface the
passes ask."""

from __future__ import annotations

import enum
import math
from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    UnitAttr,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)

from fxdsl.ir import shape_rules as rules
from fxdsl.ir.graph.base import (
    FLOAT_TYPES,
    BoolOperands,
    GraphOp,
    dtype_of,
    i1,
    ints,
    shape_of,
    tensor,
)
from fxdsl.ir.shape_rules import ShapeError

# --------------------------------------------------------------------------- #
# Reductions and normalisations
# --------------------------------------------------------------------------- #


class Combiner(enum.StrEnum):
    """How a fold merges two partial results: `add`, `max` or `min`, each
    with the value it starts from (`identity`). Over i1, max is `or` and min
    is `and` (any and all). How a target computes a combiner (the arith op,
    the C expression) is the lowering's (`fxdsl.lowering.combiners`)."""

    ADD = "add"
    MAX = "max"
    MIN = "min"

    def identity(self, dtype: Attribute) -> float | int | bool:
        """The value a fold of this kind over elements of `dtype` starts
        from (combined with any x it gives x): 0; the lowest value for max
        (-inf, the most negative integer, false); the highest for min.
        ValueError for a sum of i1, which the dialect does not have."""
        if dtype == i1:
            if self is Combiner.ADD:
                raise ValueError("no sum over i1")
            return self is Combiner.MIN
        if isinstance(dtype, IntegerType):
            half = 2 ** (dtype.width.data - 1)
            zero, lowest, highest = 0, -half, half - 1
        else:
            zero, lowest, highest = 0.0, -math.inf, math.inf
        return {Combiner.ADD: zero, Combiner.MAX: lowest, Combiner.MIN: highest}[self]


class ReductionLike:
    """Interface of the ops that reduce their first operand over some dims
    (sum/mean/max/min/any/all/var, softmax, log_softmax, layer_norm): fusion,
    the kernel builder and the tolerance of a reordered sum ask the op, so a
    new reduction declares its dims and its fold here and nowhere else.

    A *fold* (sum, max, min, any, all) names its `COMBINER`, and the lowering
    computes it with that combiner from its `identity()`; a reduction made of
    several folds (mean, var, softmax, log_softmax, layer_norm) has none, and
    the lowering states how it combines folds (`fxdsl.lowering.reductions`).
    """

    COMBINER: ClassVar[Combiner | None] = None
    """The combiner of a fold; None for a reduction made of several."""

    def identity(self) -> float | int | bool:
        """The value a fold over this op's input starts from (the result
        over no elements, for sum, any and all)."""
        if self.COMBINER is None:
            raise ValueError(f"{type(self).__name__} is not one fold: no identity")
        assert isinstance(self, Operation)
        return self.COMBINER.identity(dtype_of(self.operands[0]))

    def reduced_dims(self) -> tuple[int, ...]:
        """The dims reduced over, normalised to >= 0, ascending."""
        raise NotImplementedError

    def keeps_reduced_dims(self) -> bool:
        """Whether the reduced dims stay in the result (as size 1, or as the
        input's size for softmax and layer_norm, which broadcast back)."""
        return True


class ReductionOp(ReductionLike, GraphOp):
    """Reduce over `dims` (all dims when empty), keeping them as size 1 with
    `keepdim`.

        %s = graph.sum %x dims [1] keepdim : (tensor<4x8xf32>) -> tensor<4x1xf32>
    """

    FLOAT_ONLY: ClassVar[bool] = False
    input = operand_def(TensorType)
    dims = prop_def(DenseArrayBase)
    keepdim = opt_prop_def(UnitAttr)
    result = result_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        dims: Sequence[int],
        keepdim: bool = False,
        **props: Attribute,
    ):
        properties: dict[str, Attribute] = {"dims": ints(dims), **props}
        if keepdim:
            properties["keepdim"] = UnitAttr()
        self._build(operands=[input], result_types=[input.type], properties=properties)

    @property
    def dim_list(self) -> tuple[int, ...]:
        """The reduced dims; all dims when the property is empty."""
        dims = tuple(self.dims.get_values())
        return dims if dims else tuple(range(len(shape_of(self.input))))

    def reduced_dims(self) -> tuple[int, ...]:
        rank = len(shape_of(self.input))
        return tuple(sorted(d % rank for d in self.dim_list))

    def keeps_reduced_dims(self) -> bool:
        return self.keepdim is not None

    def verify_operands(self) -> None:
        super().verify_operands()
        if self.FLOAT_ONLY and dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")

    def infer_result_types(self) -> list[Attribute]:
        shape = rules.reduce_shape(
            shape_of(self.input),
            tuple(self.dims.get_values()),
            self.keepdim is not None,
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class SumOp(ReductionOp):
    name = "graph.sum"
    COMBINER: ClassVar[Combiner | None] = Combiner.ADD


@irdl_op_definition
class MeanOp(ReductionOp):
    name = "graph.mean"
    FLOAT_ONLY: ClassVar[bool] = True


@irdl_op_definition
class MaxOp(ReductionOp):
    name = "graph.max"
    COMBINER: ClassVar[Combiner | None] = Combiner.MAX


@irdl_op_definition
class MinOp(ReductionOp):
    name = "graph.min"
    COMBINER: ClassVar[Combiner | None] = Combiner.MIN


@irdl_op_definition
class AnyOp(BoolOperands, ReductionOp):
    """True where some element over `dims` is true (i1 in, i1 out); false
    over no elements, as torch.any.

        %r = graph.any %m dims [1] : (tensor<4x8xi1>) -> tensor<4xi1>
    """

    name = "graph.any"
    COMBINER: ClassVar[Combiner | None] = Combiner.MAX


@irdl_op_definition
class AllOp(BoolOperands, ReductionOp):
    """True where every element over `dims` is true (i1); true over none."""

    name = "graph.all"
    COMBINER: ClassVar[Combiner | None] = Combiner.MIN


@irdl_op_definition
class VarOp(ReductionOp):
    """Variance with `correction` (default 1, torch's unbiased estimate)."""

    name = "graph.var"
    FLOAT_ONLY: ClassVar[bool] = True
    correction = opt_prop_def(IntegerAttr)

    def __init__(
        self,
        input: SSAValue,
        dims: Sequence[int],
        keepdim: bool = False,
        correction: int = 1,
    ):
        super().__init__(input, dims, keepdim, correction=IntegerAttr(correction, i64))

    @property
    def correction_value(self) -> int:
        return 1 if self.correction is None else self.correction.value.data


def fold_op(combiner: Combiner) -> type[ReductionOp]:
    """The plain reduction op of `combiner` over any element type (sum,
    max, min): what any and all become over i1 (graph-decompose). Other
    folds may share a combiner; this one is the combiner's own."""
    return {Combiner.ADD: SumOp, Combiner.MAX: MaxOp, Combiner.MIN: MinOp}[combiner]


class SoftmaxLikeOp(ReductionLike, GraphOp):
    """Normalisation along one `dim`; result type equals the input type."""

    input = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, dim: int):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def reduced_dims(self) -> tuple[int, ...]:
        return (self.dim.value.data % len(shape_of(self.input)),)

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")
        rules.check_dims([self.dim.value.data], len(shape_of(self.input)))
        return [self.input.type]


@irdl_op_definition
class SoftmaxOp(SoftmaxLikeOp):
    """`exp(x - max) / sum(exp(x - max))` along `dim`.

    %y = graph.softmax %x dim 1 : tensor<4x8xf32>
    """

    name = "graph.softmax"


@irdl_op_definition
class LogSoftmaxOp(SoftmaxLikeOp):
    name = "graph.log_softmax"


@irdl_op_definition
class CumsumOp(GraphOp):
    """torch.cumsum along `dim`, in the input's type (integers wrap; torch
    would promote them to i64, the importer casts first). Lowered by
    graph-decompose as a masked sum (see there).

    %y = graph.cumsum %x dim 1 : tensor<4x8xi64>
    """

    name = "graph.cumsum"
    input = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, dim: int):
        self._build(
            operands=[input],
            result_types=[input.type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.input) == i1:
            raise ShapeError(
                f"expects a float or integer tensor, got {self.input.type}"
            )
        rules.check_dims([self.dim.value.data], len(shape_of(self.input)))
        return [self.input.type]


@irdl_op_definition
class LayerNormOp(ReductionLike, GraphOp):
    """Layer norm over the trailing dims given by `weight`'s shape (biased
    variance, `eps` default 1e-5, as torch).

        %y = graph.layer_norm %x, %w, %b eps 1.0e-05
               : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
    """

    name = "graph.layer_norm"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = operand_def(TensorType)
    eps = prop_def(FloatAttr)
    result = result_def(TensorType)

    def __init__(
        self, input: SSAValue, weight: SSAValue, bias: SSAValue, eps: float = 1e-5
    ):
        super().__init__(
            operands=[input, weight, bias],
            result_types=[input.type],
            properties={"eps": FloatAttr(eps, Float64Type())},
        )

    @property
    def normalized_ndim(self) -> int:
        return len(shape_of(self.weight))

    def reduced_dims(self) -> tuple[int, ...]:
        rank = len(shape_of(self.input))
        return tuple(range(rank - self.normalized_ndim, rank))

    def infer_result_types(self) -> list[Attribute]:
        dtypes = {dtype_of(o) for o in self.operands}
        if len(dtypes) != 1 or dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError("input, weight and bias must share one float type")
        rules.layer_norm_check(
            shape_of(self.input), shape_of(self.weight), shape_of(self.bias)
        )
        return [self.input.type]
