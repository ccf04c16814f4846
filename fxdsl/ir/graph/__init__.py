"""The `graph` dialect: pure tensor operations on builtin ranked tensors.

Every compute op is `Pure`, checks its operand types and infers its result
type through `fxdsl.ir.shape_rules`; a declared result type that differs
from the inferred one is a verifier error naming the op and both types.

Custom syntax (one scheme for every op; the generic form always parses too):

    %r = graph.<name> %operands... [prop value]... {attrs} : <type signature>

Properties follow the operands as `name value` pairs; `value` is written as
`[1, 2]` (integer lists), `3` (integers), `1.0e-05`/`inf` (floats), `"tanh"`
(strings), nothing (unit flags such as `keepdim`) or an attribute (`dense<…>`).
The type signature is `: T` when every operand and the single result have type
`T`, and a function type `(T0, T1) -> R` otherwise:

    %s = graph.sum %x dims [1] keepdim : (tensor<4x8xf32>) -> tensor<4x1xf32>
    %y = graph.gelu %s approximate "tanh" : tensor<4x1xf32>

Provenance is the discardable attribute `scope = #graph.scope<…>` (see
`ScopeAttr`); function arguments that are weights carry `graph.param = "fqn"`.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ArrayAttr, FunctionType
from xdsl.ir import Dialect
from xdsl.irdl import IRDLOperation

from fxdsl.ir.graph.base import (
    CALL_SIGNATURES,
    ELEMENT_TYPES,
    FLOAT_TYPES,
    INDEX_TYPES,
    NAME,
    PARAM,
    SCOPE,
    BoolOperands,
    GraphOp,
    ScopeAttr,
    SignatureAttr,
    bf16,
    dtype_of,
    f16,
    f32,
    i1,
    i32,
    i64,
    ints,
    parse_attr_dict,
    shape_of,
    tensor,
    type_str,
    verify_failed,
)
from fxdsl.ir.graph.constants import (
    ArangeOp,
    ConstantOp,
    FullOp,
    is_graph_constant,
)
from fxdsl.ir.graph.contractions import (
    AttentionOp,
    LinearOp,
    MatmulOp,
)
from fxdsl.ir.graph.conv import (
    AdaptiveAvgPool2dOp,
    AvgPool2dOp,
    BatchNormOp,
    Conv1dOp,
    Conv2dOp,
    ConvOp,
    MaxPool2dOp,
    Pool2dOp,
)
from fxdsl.ir.graph.elementwise import (
    AbsOp,
    AcoshOp,
    AcosOp,
    AddOp,
    AsinhOp,
    AsinOp,
    Atan2Op,
    AtanhOp,
    AtanOp,
    BinaryOp,
    CastOp,
    ClampOp,
    CompareOp,
    CopysignOp,
    CoshOp,
    CosOp,
    DivOp,
    EqOp,
    ErfOp,
    Exp2Op,
    ExpOp,
    FmodOp,
    GeluOp,
    GeOp,
    GtOp,
    HardsigmoidOp,
    HardswishOp,
    LeOp,
    Log2Op,
    Log10Op,
    LogicalAndOp,
    LogicalNotOp,
    LogicalOrOp,
    LogOp,
    LtOp,
    MaximumOp,
    MinimumOp,
    MulOp,
    NegOp,
    NeOp,
    PowOp,
    ReciprocalOp,
    ReluOp,
    RemainderOp,
    RsqrtOp,
    SelectOp,
    SigmoidOp,
    SiluOp,
    SinhOp,
    SinOp,
    SqrtOp,
    SubOp,
    TanhOp,
    TanOp,
    UnaryOp,
)
from fxdsl.ir.graph.movement import (
    BroadcastToOp,
    ConcatOp,
    EmbeddingOp,
    GatherOp,
    IndexCopyOp,
    IndexOp,
    ReshapeOp,
    ShapedResultOp,
    SliceOp,
    SplitOp,
    TransposeOp,
    ViewLike,
)
from fxdsl.ir.graph.random import RandomOp
from fxdsl.ir.graph.reductions import (
    AllOp,
    AnyOp,
    Combiner,
    CumsumOp,
    LayerNormOp,
    LogSoftmaxOp,
    MaxOp,
    MeanOp,
    MinOp,
    ReductionLike,
    ReductionOp,
    SoftmaxLikeOp,
    SoftmaxOp,
    SumOp,
    VarOp,
    fold_op,
)
from fxdsl.ir.graph.structure import (
    FusionGroupOp,
    YieldOp,
)
from fxdsl.ir.shape_rules import Shape, ShapeError
from fxdsl.ir.syntax import (
    PROPERTY_KINDS,
    RESULT_LIST,
    TYPE_TEXT,
    ScopeFrame,
    reuse_parse,
    value_names,
)

__all__ = [  # noqa: RUF022 (grouped by module)
    "TanOp",
    "AcosOp",
    "AsinOp",
    "AtanOp",
    "SinhOp",
    "CoshOp",
    "AsinhOp",
    "AcoshOp",
    "AtanhOp",
    "Exp2Op",
    "Log2Op",
    "Log10Op",
    "Atan2Op",
    "CopysignOp",
    "FmodOp",
    "RemainderOp",
    "IndexCopyOp",
    "Combiner",
    "fold_op",
    "i64",
    "Shape",
    "ShapeError",
    "BoolOperands",
    "CALL_SIGNATURES",
    "ELEMENT_TYPES",
    "FLOAT_TYPES",
    "GraphOp",
    "INDEX_TYPES",
    "NAME",
    "PARAM",
    "SCOPE",
    "ScopeAttr",
    "SignatureAttr",
    "bf16",
    "dtype_of",
    "f16",
    "f32",
    "i1",
    "i32",
    "ints",
    "parse_attr_dict",
    "shape_of",
    "tensor",
    "type_str",
    "verify_failed",
    "AbsOp",
    "AddOp",
    "BinaryOp",
    "CastOp",
    "ClampOp",
    "CompareOp",
    "CosOp",
    "DivOp",
    "EqOp",
    "ErfOp",
    "ExpOp",
    "GeOp",
    "GeluOp",
    "GtOp",
    "HardsigmoidOp",
    "HardswishOp",
    "LeOp",
    "LogOp",
    "LogicalAndOp",
    "LogicalNotOp",
    "LogicalOrOp",
    "LtOp",
    "MaximumOp",
    "MinimumOp",
    "MulOp",
    "NeOp",
    "NegOp",
    "PowOp",
    "ReciprocalOp",
    "ReluOp",
    "RsqrtOp",
    "SelectOp",
    "SigmoidOp",
    "SiluOp",
    "SinOp",
    "SqrtOp",
    "SubOp",
    "TanhOp",
    "UnaryOp",
    "AllOp",
    "AnyOp",
    "CumsumOp",
    "LayerNormOp",
    "LogSoftmaxOp",
    "MaxOp",
    "MeanOp",
    "MinOp",
    "ReductionLike",
    "ReductionOp",
    "SoftmaxLikeOp",
    "SoftmaxOp",
    "SumOp",
    "VarOp",
    "AttentionOp",
    "LinearOp",
    "MatmulOp",
    "BroadcastToOp",
    "ConcatOp",
    "EmbeddingOp",
    "GatherOp",
    "IndexOp",
    "ReshapeOp",
    "ShapedResultOp",
    "SliceOp",
    "SplitOp",
    "TransposeOp",
    "ViewLike",
    "AdaptiveAvgPool2dOp",
    "AvgPool2dOp",
    "BatchNormOp",
    "Conv1dOp",
    "Conv2dOp",
    "ConvOp",
    "MaxPool2dOp",
    "Pool2dOp",
    "ArangeOp",
    "ConstantOp",
    "FullOp",
    "is_graph_constant",
    "FusionGroupOp",
    "YieldOp",
    "RandomOp",
    "RESULT_LIST",
    "TYPE_TEXT",
    "PROPERTY_KINDS",
    "ScopeFrame",
    "reuse_parse",
    "value_names",
    "GRAPH_OPS",
    "Graph",
    "view_ops",
    "ArrayAttr",
    "FunctionType",
]

GRAPH_OPS: tuple[type[IRDLOperation], ...] = (
    NegOp, AbsOp, ExpOp, LogOp, SqrtOp, RsqrtOp, TanhOp, SigmoidOp, ReluOp, GeluOp,
    SiluOp, ErfOp, SinOp, CosOp, ReciprocalOp, CastOp, LogicalNotOp, ClampOp,
    HardswishOp, HardsigmoidOp,
    TanOp, AcosOp, AsinOp, AtanOp, SinhOp, CoshOp, AsinhOp, AcoshOp, AtanhOp,
    Exp2Op, Log2Op, Log10Op,
    AddOp, SubOp, MulOp, DivOp, PowOp, MaximumOp, MinimumOp,
    Atan2Op, CopysignOp, FmodOp, RemainderOp,
    EqOp, NeOp, LtOp, LeOp, GtOp, GeOp, LogicalAndOp, LogicalOrOp, SelectOp,
    SumOp, MeanOp, MaxOp, MinOp, AnyOp, AllOp, VarOp, SoftmaxOp, LogSoftmaxOp,
    CumsumOp, LayerNormOp,
    MatmulOp, LinearOp, AttentionOp,
    ReshapeOp, TransposeOp, BroadcastToOp, SliceOp, ConcatOp, SplitOp, GatherOp,
    EmbeddingOp, IndexOp, IndexCopyOp,
    Conv2dOp, Conv1dOp, MaxPool2dOp, AvgPool2dOp, AdaptiveAvgPool2dOp, BatchNormOp,
    ConstantOp, FullOp, ArangeOp, RandomOp,
    FusionGroupOp, YieldOp,
)  # fmt: skip


def view_ops(**flags: bool) -> tuple[type[IRDLOperation], ...]:
    """The graph ops with the `ViewLike` trait whose flags have the given
    values (`view_ops(strided=True)`; no flags: every view)."""
    return tuple(
        op
        for op in GRAPH_OPS
        if (view := op.get_trait(ViewLike)) is not None
        and all(getattr(view, flag) == value for flag, value in flags.items())
    )


_ = (ArrayAttr, FunctionType)  # re-exported for users building attributes

Graph = Dialect("graph", list(GRAPH_OPS), [ScopeAttr, SignatureAttr])
