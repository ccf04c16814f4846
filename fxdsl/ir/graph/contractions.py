"""Contractions: `matmul`, `linear`, `attention`."""

from __future__ import annotations

from xdsl.dialects.builtin import (
    Float64Type,
    FloatAttr,
    TensorType,
    UnitAttr,
)
from xdsl.ir import (
    Attribute,
    SSAValue,
)
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    opt_prop_def,
    prop_def,
    result_def,
)

from fxdsl.ir import shape_rules as rules
from fxdsl.ir.graph.base import (
    FLOAT_TYPES,
    GraphOp,
    accumulated_type,
    dtype_of,
    i1,
    shape_of,
    tensor,
)
from fxdsl.ir.shape_rules import Shape, ShapeError

# --------------------------------------------------------------------------- #
# Contractions
# --------------------------------------------------------------------------- #


@irdl_op_definition
class MatmulOp(GraphOp):
    """numpy.matmul, including batch broadcasting and 1-D operands.

    %c = graph.matmul %a, %b : (tensor<2x4x8xf32>, tensor<8x3xf32>)
           -> tensor<2x4x3xf32>

    The result has the operands' element type, except that 16-bit float
    operands may declare an f32 result: the product accumulated in f32 and
    stored unrounded (cuBLAS's Ctype f32, StableHLO's
    `preferred_element_type`). An epilogue in f32 (addmm's bias) then
    rounds once, as torch's one kernel does:

    %c = graph.matmul %a, %b : (tensor<4x8xbf16>, tensor<8x3xbf16>)
           -> tensor<4x3xf32>
    """

    name = "graph.matmul"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, lhs: SSAValue, rhs: SSAValue, dtype: Attribute | None = None):
        """`dtype`: the result's element type (default: the operands')."""
        placeholder = lhs.type if dtype is None else tensor(shape_of(lhs), dtype)
        self._build(operands=[lhs, rhs], result_types=[placeholder])

    @property
    def is_widened(self) -> bool:
        """Does the result (f32) differ from the operands' 16-bit type?"""
        return dtype_of(self.result) != dtype_of(self.lhs)

    def infer_result_types(self) -> list[Attribute]:
        element = dtype_of(self.lhs)
        if element != dtype_of(self.rhs):
            raise ShapeError(
                f"element types differ: lhs {self.lhs.type}, rhs {self.rhs.type}"
            )
        element = accumulated_type(element, dtype_of(self.result), "operands'")
        lhs, rhs = shape_of(self.lhs), shape_of(self.rhs)
        try:
            shape = rules.matmul_shape(lhs, rhs, ("lhs", "rhs"))
        except ShapeError:
            # Printing the types costs more than the check: only for errors.
            names = (f"lhs {self.lhs.type}", f"rhs {self.rhs.type}")
            shape = rules.matmul_shape(lhs, rhs, names)
        return [tensor(shape, element)]


@irdl_op_definition
class LinearOp(GraphOp):
    """`x @ weight^T + bias` with weight (out, in) and optional bias (out,).

    %y = graph.linear %x, %w, %b : (tensor<4x8xf32>, tensor<3x8xf32>,
           tensor<3xf32>) -> tensor<4x3xf32>
    """

    name = "graph.linear"
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, weight: SSAValue, bias: SSAValue | None = None):
        self._build(
            operands=[input, weight, [bias] if bias is not None else []],
            result_types=[input.type],
        )

    def infer_result_types(self) -> list[Attribute]:
        if len({dtype_of(o) for o in self.operands}) != 1:
            raise ShapeError("input, weight and bias must share one element type")
        bias = shape_of(self.bias) if self.bias is not None else None
        shape = rules.linear_shape(shape_of(self.input), shape_of(self.weight), bias)
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class AttentionOp(GraphOp):
    """Scaled dot-product attention, `softmax(q @ k^T * scale) @ v` over the
    last two dims, as `torch.nn.functional.scaled_dot_product_attention`.

    q is (..., T, d), k is (..., S, d), v is (..., S, dv), the batch dims
    equal; the result is (..., T, dv). With `causal`, query t attends to keys
    s <= t only (top-left aligned, as torch's `is_causal`), so every row has
    at least one key. `graph-fuse-attention` forms it from the unfused graph.

    An optional 4th operand `mask`, broadcastable to (..., T, S), is torch's
    `attn_mask`: i1 (true: attend; false: the score becomes -inf) or additive
    (any float type, added to the scaled scores in the query's type, as torch
    promotes an f32 score plus a bf16 mask to f32). With `causal` too,
    both apply. A row whose scores are all -inf (every key masked) gives
    zeros, as torch 2.13's SDPA does. The fused attention kernel reads the
    mask; `graph-decompose` rewrites a small masked attention into matmuls
    and a softmax.

        %o = graph.attention %q, %k, %v causal scale 1.250000e-01
               : tensor<2x8x16xf32>
        %o = graph.attention %q, %k, %v, %m scale 1.250000e-01
               : (tensor<2x8x16xf32>, tensor<2x8x16xf32>, tensor<2x8x16xf32>,
                  tensor<8x8xi1>) -> tensor<2x8x16xf32>
    """

    name = "graph.attention"
    query = operand_def(TensorType)
    key = operand_def(TensorType)
    value = operand_def(TensorType)
    mask = opt_operand_def(TensorType)
    scale = prop_def(FloatAttr)
    causal = opt_prop_def(UnitAttr)
    result = result_def(TensorType)

    def __init__(
        self,
        query: SSAValue,
        key: SSAValue,
        value: SSAValue,
        scale: float,
        causal: bool = False,
        mask: SSAValue | None = None,
    ):
        properties: dict[str, Attribute] = {"scale": FloatAttr(scale, Float64Type())}
        if causal:
            properties["causal"] = UnitAttr()
        self._build(
            operands=[query, key, value, [] if mask is None else [mask]],
            result_types=[query.type],
            properties=properties,
        )

    @property
    def scale_value(self) -> float:
        return self.scale.value.data

    @property
    def is_causal(self) -> bool:
        return self.causal is not None

    @property
    def is_boolean_mask(self) -> bool:
        return self.mask is not None and dtype_of(self.mask) == i1

    def infer_result_types(self) -> list[Attribute]:
        qkv = (self.query, self.key, self.value)
        dtypes = {dtype_of(o) for o in qkv}
        if len(dtypes) != 1 or dtype_of(self.query) not in FLOAT_TYPES:
            raise ShapeError("query, key and value must share one float type")
        q, k, v = (shape_of(o) for o in qkv)
        if min(len(q), len(k), len(v)) < 2:
            raise ShapeError("query, key and value must have rank >= 2")
        if not q[:-2] == k[:-2] == v[:-2]:
            raise ShapeError("query, key and value must have equal batch dims")
        if q[-1] != k[-1]:
            raise ShapeError(f"query and key head dims differ: {q[-1]} and {k[-1]}")
        if k[-2] != v[-2]:
            raise ShapeError(f"key and value lengths differ: {k[-2]} and {v[-2]}")
        if k[-2] < 1:
            raise ShapeError("key length must be >= 1 (a softmax over no keys)")
        if self.mask is not None:
            self._check_mask((*q[:-1], k[-2]))
        return [tensor((*q[:-1], v[-1]), dtype_of(self.query))]

    def _check_mask(self, scores: Shape) -> None:
        assert self.mask is not None
        if dtype_of(self.mask) != i1 and dtype_of(self.mask) not in FLOAT_TYPES:
            raise ShapeError(f"mask must be i1 or a float type, got {self.mask.type}")
        if not rules.can_broadcast_to(shape_of(self.mask), scores):
            raise ShapeError(
                f"mask {self.mask.type} does not broadcast to the scores' shape "
                f"{scores}"
            )
