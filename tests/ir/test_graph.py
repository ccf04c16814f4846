"""The graph dialect from Python: builders infer result types, verifiers name
the op and both types, every op round-trips through its custom syntax."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from xdsl.dialects import func
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    StringAttr,
    f64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.printer import Printer
from xdsl.traits import IsolatedFromAbove, Pure
from xdsl.utils.exceptions import VerifyException

import fxdsl
from fxdsl.ir import graph as g
from fxdsl.ir.shape_rules import ShapeError

T = g.tensor
UI16 = IntegerType(16, Signedness.UNSIGNED)  # not a graph element type


def value(shape: Sequence[int], dtype: Attribute = g.f32) -> SSAValue:
    """A fresh SSA value of the given tensor type (the result of a test.op)."""
    return test_dialect.TestOp(result_types=[T(shape, dtype)]).results[0]


def verify_alone(op: Operation) -> None:
    """Verify `op` with its operands defined by test ops in one module."""
    producers = [o.owner for o in op.operands if isinstance(o.owner, Operation)]
    module = ModuleOp([*dict.fromkeys(producers), op])
    module.verify()


# --------------------------------------------------------------------------- #
# Builders infer the result type (one row per op)
# --------------------------------------------------------------------------- #


def _fusion_group() -> Operation:
    block = Block(arg_types=[T([4], g.f32)])
    neg = g.NegOp(block.args[0])
    block.add_ops([neg, g.YieldOp(neg.result)])
    return g.FusionGroupOp([value([4])], [T([4], g.f32)], Region(block))


x48, x8, x41 = (lambda: value([4, 8])), (lambda: value([8])), (lambda: value([4, 1]))

BUILDERS: list[tuple[str, Callable[[], Operation], list[str]]] = [
    *[
        (cls.name, (lambda cls=cls: cls(x48())), ["tensor<4x8xf32>"])
        for cls in (
            g.NegOp, g.AbsOp, g.ReluOp, g.HardswishOp, g.HardsigmoidOp,
            g.SigmoidOp, g.SiluOp, g.ReciprocalOp,
            # every float function the dialect declares (graph.acos, ...)
            *(op for op in g.GRAPH_OPS
              if issubclass(op, g.UnaryOp) and op.SCALAR_MATH is not None),
        )
    ],
    ("graph.clamp", lambda: g.ClampOp(x48(), 0.0, 6.0), ["tensor<4x8xf32>"]),
    ("graph.clamp", lambda: g.ClampOp(value([3], g.i32), max=2), ["tensor<3xi32>"]),
    ("graph.gelu", lambda: g.GeluOp(value([3], g.bf16), "tanh"), ["tensor<3xbf16>"]),
    ("graph.cast", lambda: g.CastOp(x48(), g.i1), ["tensor<4x8xi1>"]),
    ("graph.bitcast", lambda: g.BitcastOp(x48(), g.i32), ["tensor<4x8xi32>"]),
    *[
        (cls.name, (lambda cls=cls: cls(x41(), x8())), ["tensor<4x8xf32>"])
        for cls in (
            g.AddOp, g.SubOp, g.MulOp, g.DivOp, g.PowOp, g.MaximumOp, g.MinimumOp,
            *(op for op in g.GRAPH_OPS if issubclass(op, g.BinaryOp) and op.FLOAT_ONLY),
        )
    ],
    *[
        (cls.name, (lambda cls=cls: cls(x8(), x41())), ["tensor<4x8xi1>"])
        for cls in (g.EqOp, g.NeOp, g.LtOp, g.LeOp, g.GtOp, g.GeOp)
    ],
    *[
        (cls.name, (lambda cls=cls: cls(value([4, 1], g.i1), value([8], g.i1))), ["tensor<4x8xi1>"])
        for cls in (g.LogicalAndOp, g.LogicalOrOp)
    ],
    ("graph.logical_not", lambda: g.LogicalNotOp(value([3], g.i1)), ["tensor<3xi1>"]),
    *[
        (cls.name, (lambda cls=cls: cls(value([4, 1], g.i32), value([8], g.i32))), ["tensor<4x8xi32>"])
        for cls in (g.BitwiseAndOp, g.BitwiseOrOp, g.BitwiseXorOp, g.ShiftLeftOp, g.ShiftRightOp,
                    g.GcdOp)
    ],
    ("graph.bitwise_not", lambda: g.BitwiseNotOp(value([3], g.ui8)), ["tensor<3xui8>"]),
    ("graph.any", lambda: g.AnyOp(value([4, 8], g.i1), [1]), ["tensor<4xi1>"]),
    ("graph.all", lambda: g.AllOp(value([4, 8], g.i1), [], True), ["tensor<1x1xi1>"]),
    (
        "graph.select",
        lambda: g.SelectOp(value([4, 1], g.i1), x8(), value([1], g.f32)),
        ["tensor<4x8xf32>"],
    ),
    ("graph.sum", lambda: g.SumOp(x48(), [1]), ["tensor<4xf32>"]),
    ("graph.mean", lambda: g.MeanOp(x48(), [0], keepdim=True), ["tensor<1x8xf32>"]),
    ("graph.max", lambda: g.MaxOp(x48(), []), ["tensor<f32>"]),
    ("graph.min", lambda: g.MinOp(value([2, 3, 4]), [0, 2]), ["tensor<3xf32>"]),
    ("graph.var", lambda: g.VarOp(x48(), [1], True, correction=0), ["tensor<4x1xf32>"]),
    ("graph.softmax", lambda: g.SoftmaxOp(x48(), 1), ["tensor<4x8xf32>"]),
    ("graph.log_softmax", lambda: g.LogSoftmaxOp(x48(), 0), ["tensor<4x8xf32>"]),
    ("graph.cumsum", lambda: g.CumsumOp(value([4, 8], g.i64), 0), ["tensor<4x8xi64>"]),
    ("graph.layer_norm", lambda: g.LayerNormOp(x48(), x8(), x8()), ["tensor<4x8xf32>"]),
    (
        "graph.matmul",
        lambda: g.MatmulOp(value([2, 1, 4, 8]), value([3, 8, 5])),
        ["tensor<2x3x4x5xf32>"],
    ),
    ("graph.linear", lambda: g.LinearOp(x48(), value([3, 8])), ["tensor<4x3xf32>"]),
    (
        "graph.linear",
        lambda: g.LinearOp(x48(), value([3, 8]), value([3])),
        ["tensor<4x3xf32>"],
    ),
    (
        "graph.attention",
        lambda: g.AttentionOp(
            value([2, 4, 8]), value([2, 6, 8]), value([2, 6, 3]), 0.125, causal=True
        ),
        ["tensor<2x4x3xf32>"],
    ),
    (
        "graph.attention",
        lambda: g.AttentionOp(
            value([2, 4, 8]), value([2, 6, 8]), value([2, 6, 3]), 0.125,
            mask=value([4, 6], g.i1),
        ),
        ["tensor<2x4x3xf32>"],
    ),
    ("graph.reshape", lambda: g.ReshapeOp(x48(), [2, 16]), ["tensor<2x16xf32>"]),
    ("graph.broadcast_to", lambda: g.BroadcastToOp(x8(), [3, 8]), ["tensor<3x8xf32>"]),
    ("graph.transpose", lambda: g.TransposeOp(value([2, 3, 4]), [2, 0, 1]), ["tensor<4x2x3xf32>"]),
    ("graph.slice", lambda: g.SliceOp(x48(), [1, 0], [4, 8], [2, 3]), ["tensor<2x3xf32>"]),
    ("graph.concat", lambda: g.ConcatOp([x48(), value([4, 2])], 1), ["tensor<4x10xf32>"]),
    (
        "graph.split",
        lambda: g.SplitOp(x48(), 1, [3, 5]),
        ["tensor<4x3xf32>", "tensor<4x5xf32>"],
    ),
    ("graph.gather", lambda: g.GatherOp(x48(), value([4, 2], g.i64), 1), ["tensor<4x2xf32>"]),
    (
        "graph.index",
        lambda: g.IndexOp(value([4, 6, 5]), [value([2, 1], g.i64), value([3], g.i32)], [0, 2]),
        ["tensor<2x3x6xf32>"],
    ),
    (
        "graph.index_copy",
        lambda: g.IndexCopyOp(value([2, 6, 3]), value([2], g.i64), value([2, 2, 3]), 1),
        ["tensor<2x6x3xf32>"],
    ),
    (
        "graph.index_add",
        lambda: g.IndexAddOp(value([5, 4], g.bf16), value([7], g.i32), value([7, 4], g.bf16), 0),
        ["tensor<5x4xbf16>"],
    ),
    (
        "graph.embedding",
        lambda: g.EmbeddingOp(value([1, 5], g.i32), value([10, 6], g.f16)),
        ["tensor<1x5x6xf16>"],
    ),
    (
        "graph.constant",
        lambda: g.ConstantOp(DenseIntOrFPElementsAttr.from_list(T([2], g.i64), [1, 2])),
        ["tensor<2xi64>"],
    ),
    ("graph.full", lambda: g.FullOp([2, 2], float("-inf")), ["tensor<2x2xf32>"]),
    ("graph.arange", lambda: g.ArangeOp(2, 3, 5), ["tensor<5xi64>"]),
    ("graph.arange", lambda: g.ArangeOp(0.5, -0.25, 3, g.f16), ["tensor<3xf16>"]),
    (
        "graph.random",
        lambda: g.RandomOp.of(value([2], g.i64), "normal", [3, 4], g.bf16),
        ["tensor<3x4xbf16>"],
    ),
    ("graph.fusion_group", _fusion_group, ["tensor<4xf32>"]),
    (
        "graph.conv2d",
        lambda: g.Conv2dOp(value([2, 6, 9, 8]), value([4, 3, 3, 2]), value([4]), (2, 1), 1, (2, 3), 2),
        ["tensor<2x4x4x7xf32>"],
    ),
    (
        "graph.conv2d",
        lambda: g.Conv2dOp(value([1, 8, 5, 5], g.f16), value([8, 1, 3, 3], g.f16), groups=8),
        ["tensor<1x8x3x3xf16>"],
    ),
    ("graph.conv1d", lambda: g.Conv1dOp(value([1, 8, 16]), value([4, 8, 3]), None, 2, 1), ["tensor<1x4x8xf32>"]),
    ("graph.max_pool2d", lambda: g.MaxPool2dOp(value([1, 8, 16, 16]), 3, 2, 1), ["tensor<1x8x8x8xf32>"]),
    (
        "graph.max_pool2d",
        lambda: g.MaxPool2dOp(value([1, 2, 10, 9]), (3, 2), 2, 0, (1, 2), ceil_mode=True),
        ["tensor<1x2x5x4xf32>"],
    ),
    ("graph.avg_pool2d", lambda: g.AvgPool2dOp(value([1, 8, 16, 16]), 2), ["tensor<1x8x8x8xf32>"]),
    (
        "graph.avg_pool2d",
        lambda: g.AvgPool2dOp(value([1, 2, 5, 5]), 2, ceil_mode=True, count_include_pad=False),
        ["tensor<1x2x3x3xf32>"],
    ),
    ("graph.adaptive_avg_pool2d", lambda: g.AdaptiveAvgPool2dOp(value([1, 8, 7, 7]), [3, 2]), ["tensor<1x8x3x2xf32>"]),
    (
        "graph.batch_norm",
        lambda: g.BatchNormOp(value([2, 8, 4, 4]), x8(), x8(), x8(), x8(), 1e-3),
        ["tensor<2x8x4x4xf32>"],
    ),
    ("graph.cholesky", lambda: g.CholeskyOp(value([2, 4, 4])), ["tensor<2x4x4xf32>"]),
    (
        "graph.triangular_solve",
        lambda: g.TriangularSolveOp(value([4, 4]), value([2, 4, 3]), upper=True),
        ["tensor<2x4x3xf32>"],
    ),
    (
        "graph.triangular_solve",
        lambda: g.TriangularSolveOp(value([3, 1, 4, 4]), value([2, 3, 4]), right=True),
        ["tensor<3x2x3x4xf32>"],
    ),
    ("graph.lu", lambda: g.LuOp(value([2, 3, 5])), ["tensor<2x3x5xf32>", "tensor<2x3xi32>", "tensor<2x3x3xf32>"]),
    ("graph.qr", lambda: g.QrOp(value([5, 3])), ["tensor<5x3xf32>", "tensor<3x3xf32>"]),
    ("graph.qr", lambda: g.QrOp(value([5, 3]), complete=True), ["tensor<5x5xf32>", "tensor<5x3xf32>"]),
    ("graph.geqrf", lambda: g.GeqrfOp(value([2, 5, 3])), ["tensor<2x5x3xf32>", "tensor<2x3xf32>"]),
    ("graph.svd", lambda: g.SvdOp(value([5, 3])), ["tensor<5x3xf32>", "tensor<3xf32>", "tensor<3x3xf32>"]),
    (
        "graph.svd",
        lambda: g.SvdOp(value([2, 3, 5]), full_matrices=True),
        ["tensor<2x3x3xf32>", "tensor<2x3xf32>", "tensor<2x5x5xf32>"],
    ),
    ("graph.eigh", lambda: g.EighOp(value([4, 4])), ["tensor<4xf32>", "tensor<4x4xf32>"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "build", "expected"),
    BUILDERS,
    ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(BUILDERS)],
)
def test_builder_infers_result_types(
    name: str, build: Callable[[], Operation], expected: list[str]
) -> None:
    op = build()
    assert op.name == name
    assert [str(r.type) for r in op.results] == expected
    verify_alone(op)


def test_every_op_has_a_builder_row() -> None:
    built = {name for name, _, _ in BUILDERS} | {g.YieldOp.name}
    assert built == {op.name for op in g.GRAPH_OPS}


@pytest.mark.parametrize("name", sorted({n for n, _, _ in BUILDERS}))
def test_custom_syntax_round_trips(name: str) -> None:
    """Printing, parsing and printing again gives the same text, in the custom
    and in the generic form."""
    build = next(b for n, b, _ in BUILDERS if n == name)
    op = build()
    producers = [o.owner for o in op.operands if isinstance(o.owner, Operation)]
    module = ModuleOp([*dict.fromkeys(producers), op])
    text = str(module)
    assert f" = {name} " in text or f" {name} (" in text  # custom, not generic
    assert str(fxdsl.parse(text)) == text
    generic = _generic(module)
    assert f'"{name}"' in generic
    assert str(fxdsl.parse(generic)) == text


def _generic(module: ModuleOp) -> str:
    import io

    out = io.StringIO()
    Printer(stream=out, print_generic_format=True).print_op(module)
    return out.getvalue()


# --------------------------------------------------------------------------- #
# Builders reject bad operands with a ShapeError naming what is wrong
# --------------------------------------------------------------------------- #

BAD_BUILDS: list[tuple[Callable[[], Operation], str]] = [
    (lambda: g.AddOp(value([4, 8]), value([3])), r"shapes \(4, 8\), \(3,\) do not broadcast"),
    (lambda: g.MatmulOp(value([4, 8]), value([7, 3])),
     r"contracting dims differ: lhs tensor<4x8xf32> has 8, rhs tensor<7x3xf32> has 7"),
    (lambda: g.TransposeOp(value([4, 8]), [0, 0]), r"perm \[0, 0\] is not a permutation"),
    (lambda: g.SliceOp(value([4]), [0], [5]), r"need 0 <= start <= limit <= 4"),
    (lambda: g.ConcatOp([value([2, 8]), value([2, 7])], 0), r"differ outside concat dim 0"),
    (lambda: g.SplitOp(value([5]), 0, [2, 2]), r"sizes \[2, 2\] must be >= 0 and sum to"),
    (lambda: g.EmbeddingOp(value([2], g.i64), value([10])), r"weight must be 2-D"),
    (lambda: g.SumOp(value([4]), [1]), r"dim 1 out of range for rank 1"),
    (lambda: g.LinearOp(value([4, 8]), value([3, 5])), r"input features 8 != weight in-features 5"),
    (lambda: g.AttentionOp(value([2, 4, 8]), value([2, 6, 7]), value([2, 6, 3]), 1.0),
     r"query and key head dims differ: 8 and 7"),
    (lambda: g.AttentionOp(value([2, 4, 8]), value([2, 6, 8]), value([2, 5, 3]), 1.0),
     r"key and value lengths differ: 6 and 5"),
    (lambda: g.AttentionOp(value([2, 4, 8]), value([1, 6, 8]), value([1, 6, 3]), 1.0),
     r"equal batch dims"),
    (lambda: g.AttentionOp(value([8]), value([8]), value([8]), 1.0), r"rank >= 2"),
    (lambda: g.AttentionOp(value([2, 8]), value([0, 8]), value([0, 8]), 1.0),
     r"key length must be >= 1"),
    (lambda: g.Conv2dOp(value([1, 6, 8, 8]), value([4, 4, 3, 3]), groups=4),
     r"groups 4 must be >= 1 and divide the input channels 6 and the output channels 4"),
    (lambda: g.Conv2dOp(value([1, 6, 8, 8]), value([4, 2, 3, 3]), groups=2),
     r"weight \(4, 2, 3, 3\) takes 2 channels per group, the input has 6 channels"),
    (lambda: g.Conv2dOp(value([1, 3, 2, 2]), value([4, 3, 3, 3])), r"output size \(0, 0\) is too small"),
    (lambda: g.Conv2dOp(value([1, 3, 8]), value([4, 3, 3, 3])), r"input must have rank 4"),
    (lambda: g.Conv2dOp(value([1, 3, 8, 8]), value([4, 3, 3, 3]), value([3])), r"bias must have shape \(4,\)"),
    (lambda: g.Conv1dOp(value([1, 3, 8]), value([4, 3, 3]), stride=0), r"kernel and stride must be >= 1"),
    (lambda: g.Conv2dOp(value([1, 3, 8, 8]), value([4, 3, 3, 3]), padding=-1),
     r"dilation must be >= 1 and padding >= 0"),
    (lambda: g.MaxPool2dOp(value([1, 3, 8, 8]), 3, padding=2), r"padding \[2, 2\] must be at most half"),
    (lambda: g.AvgPool2dOp(value([3, 8, 8]), 2), r"input must have rank 4 \(N, C, \.\.\.\)"),
    (lambda: g.AdaptiveAvgPool2dOp(value([1, 3, 8, 8]), [0, 2]), r"output size >= 1"),
    (lambda: g.BatchNormOp(value([2, 8, 4]), x8(), x8(), x8(), value([4])),
     r"per-channel operands must have shape \(8,\), got \(4,\)"),
]  # fmt: skip


@pytest.mark.parametrize(("build", "message"), BAD_BUILDS)
def test_builder_raises_shape_error(
    build: Callable[[], Operation], message: str
) -> None:
    with pytest.raises(ShapeError, match=message):
        build()


# --------------------------------------------------------------------------- #
# Verifier messages (ops created with `create`, bypassing inference)
# --------------------------------------------------------------------------- #


def _create(
    cls: type[IRDLOperation],
    operands: Sequence[SSAValue],
    results: Sequence[Attribute],
    **props: Attribute,
) -> Operation:
    return cls.create(
        operands=list(operands), result_types=list(results), properties=props
    )


VERIFY_ERRORS: list[tuple[Callable[[], Operation], str]] = [
    (lambda: _create(g.ExpOp, [value([4], g.i32)], [T([4], g.i32)]),
     "graph.exp: expects a float tensor, got tensor<4xi32>"),
    (lambda: _create(g.NegOp, [value([4])], [T([4], g.f16)]),
     "graph.neg: result type tensor<4xf16> does not match inferred type tensor<4xf32> "
     "(operands: tensor<4xf32>)"),
    (lambda: _create(g.AbsOp, [value([4], UI16)], [T([4], UI16)]),
     "graph.abs: operand type tensor<4xui16> is not a supported tensor"),
    (lambda: _create(g.MatmulOp, [value([4, 8]), value([7, 3])], [T([4, 3], g.f32)]),
     "graph.matmul: contracting dims differ: lhs tensor<4x8xf32> has 8, "
     "rhs tensor<7x3xf32> has 7"),
    (lambda: _create(g.SelectOp, [value([4]), value([4]), value([4])], [T([4], g.f32)]),
     "graph.select: condition must be i1, got tensor<4xf32>"),
    (lambda: _create(g.GatherOp, [value([4, 8]), value([4, 2])], [T([4, 2], g.f32)],
                     dim=IntegerAttr(1, g.i64)),
     "graph.gather: index must be i64 or i32, got tensor<4x2xf32>"),
    (lambda: _create(g.CastOp, [value([4])], [T([4], UI16)]),
     "graph.cast: unsupported target element type ui16"),
    (lambda: _create(g.BitcastOp, [value([4])], [T([4], g.bf16)]),
     "graph.bitcast: element widths differ: tensor<4xf32> has 32 bits, "
     "tensor<4xbf16> 16"),
    (lambda: _create(g.ReshapeOp, [value([4, 8])], [T([30], g.f32)]),
     "graph.reshape: element count differs: (4, 8) has 32, (30,) has 30"),
    (lambda: _create(g.BroadcastToOp, [value([3])], [T([4, 8], g.f32)]),
     "graph.broadcast_to: cannot broadcast (3,) to (4, 8)"),
    (lambda: _create(g.LayerNormOp, [value([4, 8]), value([4]), value([4])], [T([4, 8], g.f32)],
                     eps=FloatAttr(1e-5, f64)),
     "graph.layer_norm: weight shape (4,) is not a trailing part of (4, 8)"),
    (lambda: _create(g.SoftmaxOp, [value([4, 8])], [T([4, 8], g.f32)],
                     dim=IntegerAttr(2, g.i64)),
     "graph.softmax: dim 2 out of range for rank 2"),
    (lambda: _create(g.GeluOp, [value([4])], [T([4], g.f32)],
                     approximate=StringAttr("fast")),
     'graph.gelu: approximate must be "none" or "tanh", got "fast"'),
    (lambda: _create(g.AttentionOp, [value([4, 8], g.i32)] * 3, [T([4, 8], g.i32)],
                     scale=FloatAttr(1.0, f64)),
     "graph.attention: query, key and value must share one float type"),
    (lambda: _create(g.FullOp, [], [T([2], UI16)], value=FloatAttr(1.0, f64)),
     "graph.full: unsupported element type tensor<2xui16>"),
    (lambda: _create(g.Conv2dOp, [value([1, 3, 8, 8], g.i32), value([4, 3, 3, 3], g.i32)],
                     [T([1, 4, 6, 6], g.i32)], stride=g.ints([1, 1]), padding=g.ints([0, 0]),
                     dilation=g.ints([1, 1]), groups=IntegerAttr(1, g.i64)),
     "graph.conv2d: expects float tensors, got tensor<1x3x8x8xi32>"),
    (lambda: _create(g.Conv2dOp, [value([1, 3, 8, 8]), value([4, 3, 3, 3])],
                     [T([1, 4, 6, 6], g.f32)], stride=g.ints([1]), padding=g.ints([0, 0]),
                     dilation=g.ints([1, 1]), groups=IntegerAttr(1, g.i64)),
     "graph.conv2d: stride needs 2 entries (one per spatial dim), got [1]"),
    (lambda: _create(g.MaxPool2dOp, [value([1, 3, 8, 8])], [T([1, 3, 4, 4], g.f32)],
                     kernel=g.ints([2, 2]), stride=g.ints([2, 2]), padding=g.ints([0]),
                     dilation=g.ints([1, 1])),
     "graph.max_pool2d: padding needs 2 entries (one per spatial dim), got [0]"),
    (lambda: _create(g.BatchNormOp, [value([2, 8]), *[value([8], g.f16)] * 4], [T([2, 8], g.f32)],
                     eps=FloatAttr(1e-5, f64)),
     "graph.batch_norm: input, statistics, weight and bias must share one float type"),
]  # fmt: skip


@pytest.mark.parametrize(("build", "message"), VERIFY_ERRORS)
def test_verifier_message(build: Callable[[], Operation], message: str) -> None:
    op = build()
    with pytest.raises(VerifyException) as info:
        op.verify()
    assert str(info.value).startswith(message)


def test_fusion_group_verifier() -> None:
    block = Block(arg_types=[T([4], g.f16)])
    block.add_op(g.YieldOp(block.args[0]))
    bad_args = g.FusionGroupOp([value([4])], [T([4], g.f16)], Region(block))
    with pytest.raises(
        VerifyException, match=r"block argument types \(tensor<4xf16>\)"
    ):
        bad_args.verify()
    block = Block(arg_types=[T([4], g.f32)])
    block.add_op(g.YieldOp(block.args[0]))
    bad_results = g.FusionGroupOp([value([4])], [T([2], g.f32)], Region(block))
    with pytest.raises(
        VerifyException, match=r"yielded types \(tensor<4xf32>\) differ"
    ):
        bad_results.verify()


def test_yield_outside_fusion_group() -> None:
    body = Block(arg_types=[T([4], g.f32)])
    body.add_op(g.YieldOp(body.args[0]))
    f = func.FuncOp("f", ([T([4], g.f32)], []), Region(body))
    with pytest.raises(VerifyException, match="expects parent op 'graph.fusion_group'"):
        ModuleOp([f]).verify()


# --------------------------------------------------------------------------- #
# Attributes, traits and the dialect object
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "frames",
    [(), (("layers.0", 0, "Block"),), (('a"b\\c', 3, "T"), ("", 0, "Root"))],
)
def test_scope_attr_round_trips(frames: tuple[tuple[str, int, str], ...]) -> None:
    x = value([2])
    op = g.NegOp(x)
    op.attributes[g.SCOPE] = g.ScopeAttr(frames)
    text = str(ModuleOp([x.owner, op]))  # type: ignore[list-item]
    parsed = fxdsl.parse(text)
    neg = next(o for o in parsed.walk() if isinstance(o, g.NegOp))
    assert neg.attributes[g.SCOPE] == g.ScopeAttr(frames)
    assert g.ScopeAttr(frames).fqns == tuple(f[0] for f in frames)


def test_traits() -> None:
    for cls in g.GRAPH_OPS:
        if cls not in (g.FusionGroupOp,):
            assert cls.has_trait(Pure()), cls.name
    assert g.FusionGroupOp.has_trait(IsolatedFromAbove())


def test_dialect_lists_every_op_once() -> None:
    names = [op.name for op in g.GRAPH_OPS]
    assert len(names) == len(set(names))
    assert {op.name for op in g.Graph.operations} == set(names)
    assert all(name.startswith("graph.") for name in names)


def test_property_syntax_covers_every_property() -> None:
    """Every property prints as a known kind (or as an attribute for `value`)."""
    for cls in g.GRAPH_OPS:
        if not issubclass(cls, g.GraphOp):
            continue
        for prop in cls.get_irdl_definition().properties:
            assert cls.property_kind(prop) in {
                "ints",
                "int",
                "float",
                "str",
                "unit",
                "attr",
            }
            assert prop in g.PROPERTY_KINDS or prop in cls.PROP_KINDS, (cls.name, prop)
