"""Convolution, pooling and batch norm (NCHW / NCW)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float64Type,
    FloatAttr,
    IntegerAttr,
    TensorType,
    UnitAttr,
    i64,
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
    ints,
    shape_of,
    tensor,
)
from fxdsl.ir.shape_rules import ShapeError
from fxdsl.ir.syntax import INT, INTS, UNIT

# --------------------------------------------------------------------------- #
# Convolution, pooling and batch norm (NCHW / NCW)
# --------------------------------------------------------------------------- #

_WINDOW_KINDS: dict[str, str] = {
    "kernel": INTS,
    "stride": INTS,
    "padding": INTS,
    "dilation": INTS,
    "groups": INT,
    "ceil_mode": UNIT,
    "count_include_pad": UNIT,
    "divisor_override": INT,
}
"""Custom syntax of the window properties shared by convolution and pooling."""


def _window_values(name: str, values: int | Sequence[int], rank: int) -> list[int]:
    """A per-spatial-dim list from an int (repeated) or a sequence."""
    listed = [values] * rank if isinstance(values, int) else [int(v) for v in values]
    if len(listed) != rank:
        raise ShapeError(f"{name} needs {rank} entries, got {listed}")
    return listed


class ConvOp(GraphOp):
    """Convolution (cross-correlation, as torch) of an input (N, C, *spatial)
    with a weight (O, C / groups, *kernel) and an optional bias (O,): output
    channel o of group g = o // (O / groups) reads input channels of group g
    only (`groups = C = O` is a depthwise conv). Symmetric zero `padding`,
    `stride` and `dilation` per spatial dim; output length per dim
    `(n + 2 padding - dilation (kernel - 1) - 1) / stride + 1`, rounded down.
    The result has the input's element type, except that 16-bit float
    operands may declare an f32 result (the sums unrounded, as
    `graph.matmul`'s widened product: for a bias added later in f32).
    """

    SPATIAL: ClassVar[int] = 2
    PROP_KINDS: ClassVar[dict[str, str]] = _WINDOW_KINDS
    input = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = opt_operand_def(TensorType)
    stride = prop_def(DenseArrayBase)
    padding = prop_def(DenseArrayBase)
    dilation = prop_def(DenseArrayBase)
    groups = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        weight: SSAValue,
        bias: SSAValue | None = None,
        stride: int | Sequence[int] = 1,
        padding: int | Sequence[int] = 0,
        dilation: int | Sequence[int] = 1,
        groups: int = 1,
        dtype: Attribute | None = None,
    ):
        """`dtype`: the result's element type (default: the input's)."""
        n = self.SPATIAL
        properties: dict[str, Attribute] = {
            "stride": ints(_window_values("stride", stride, n)),
            "padding": ints(_window_values("padding", padding, n)),
            "dilation": ints(_window_values("dilation", dilation, n)),
            "groups": IntegerAttr(groups, i64),
        }
        placeholder = input.type if dtype is None else tensor(shape_of(input), dtype)
        self._build(
            operands=[input, weight, [bias] if bias is not None else []],
            result_types=[placeholder],
            properties=properties,
        )

    @property
    def stride_list(self) -> tuple[int, ...]:
        return tuple(self.stride.get_values())

    @property
    def padding_list(self) -> tuple[int, ...]:
        return tuple(self.padding.get_values())

    @property
    def dilation_list(self) -> tuple[int, ...]:
        return tuple(self.dilation.get_values())

    @property
    def group_count(self) -> int:
        return self.groups.value.data

    def infer_result_types(self) -> list[Attribute]:
        if len({dtype_of(o) for o in self.operands}) != 1:
            raise ShapeError("input, weight and bias must share one element type")
        if dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects float tensors, got {self.input.type}")
        bias = shape_of(self.bias) if self.bias is not None else None
        stride = self.stride_list
        if len(stride) != self.SPATIAL:
            raise ShapeError(
                f"stride needs {self.SPATIAL} entries (one per spatial dim), got "
                f"{list(stride)}"
            )
        shape = rules.conv_shape(
            shape_of(self.input),
            shape_of(self.weight),
            bias,
            stride,
            self.padding_list,
            self.dilation_list,
            self.group_count,
        )
        element = accumulated_type(
            dtype_of(self.input), dtype_of(self.result), "input's"
        )
        return [tensor(shape, element)]


@irdl_op_definition
class Conv2dOp(ConvOp):
    """2-D convolution, NCHW (see `ConvOp`).

    %y = graph.conv2d %x, %w, %b dilation [1, 1] groups 1 padding [1, 1]
           stride [2, 2] : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>,
           tensor<4xf32>) -> tensor<1x4x4x4xf32>
    """

    name = "graph.conv2d"
    SPATIAL: ClassVar[int] = 2


@irdl_op_definition
class Conv1dOp(ConvOp):
    """1-D convolution, NCW (see `ConvOp`).

    %y = graph.conv1d %x, %w dilation [1] groups 1 padding [1] stride [1]
           : (tensor<1x8x16xf32>, tensor<4x8x3xf32>) -> tensor<1x4x16xf32>
    """

    name = "graph.conv1d"
    SPATIAL: ClassVar[int] = 1


class Pool2dOp(GraphOp):
    """A window over the H and W dims of an NCHW float tensor, per channel:
    `kernel`, `stride`, symmetric `padding` (at most half the kernel) and
    `ceil_mode` (round the output size up; the last window still starts
    inside the input or its left padding), as torch's pooling."""

    PROP_KINDS: ClassVar[dict[str, str]] = _WINDOW_KINDS
    input = operand_def(TensorType)
    kernel = prop_def(DenseArrayBase)
    stride = prop_def(DenseArrayBase)
    padding = prop_def(DenseArrayBase)
    ceil_mode = opt_prop_def(UnitAttr)
    result = result_def(TensorType)

    def _window(
        self,
        kernel: int | Sequence[int],
        stride: int | Sequence[int] | None,
        padding: int | Sequence[int],
        ceil_mode: bool,
    ) -> dict[str, Attribute]:
        kernels = _window_values("kernel", kernel, 2)
        strides = kernels if stride is None else _window_values("stride", stride, 2)
        properties: dict[str, Attribute] = {
            "kernel": ints(kernels),
            "stride": ints(strides),
            "padding": ints(_window_values("padding", padding, 2)),
        }
        if ceil_mode:
            properties["ceil_mode"] = UnitAttr()
        return properties

    @property
    def kernel_list(self) -> tuple[int, ...]:
        return tuple(self.kernel.get_values())

    @property
    def stride_list(self) -> tuple[int, ...]:
        return tuple(self.stride.get_values())

    @property
    def padding_list(self) -> tuple[int, ...]:
        return tuple(self.padding.get_values())

    @property
    def dilation_list(self) -> tuple[int, ...]:
        return (1, 1)

    @property
    def is_ceil_mode(self) -> bool:
        return self.ceil_mode is not None

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")
        shape = rules.pool_shape(
            shape_of(self.input),
            self.kernel_list,
            self.stride_list,
            self.padding_list,
            self.dilation_list,
            self.is_ceil_mode,
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class MaxPool2dOp(Pool2dOp):
    """Max over each (dilated) window; padding never wins (it is -inf), NaN
    propagates (torch's max_pool2d, values only).

    %y = graph.max_pool2d %x dilation [1, 1] kernel [3, 3] padding [1, 1]
           stride [2, 2] : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
    """

    name = "graph.max_pool2d"
    dilation = prop_def(DenseArrayBase)

    def __init__(
        self,
        input: SSAValue,
        kernel: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        padding: int | Sequence[int] = 0,
        dilation: int | Sequence[int] = 1,
        ceil_mode: bool = False,
    ):
        properties = self._window(kernel, stride, padding, ceil_mode)
        properties["dilation"] = ints(_window_values("dilation", dilation, 2))
        self._build(operands=[input], result_types=[input.type], properties=properties)

    @property
    def dilation_list(self) -> tuple[int, ...]:
        return tuple(self.dilation.get_values())


@irdl_op_definition
class AvgPool2dOp(Pool2dOp):
    """Mean over each window. The divisor counts the zero padding with
    `count_include_pad` (but not the part of a ceil_mode window past it),
    else only the input elements, as torch's avg_pool2d; `divisor_override`
    (>= 1) replaces it for every window (1: the window's sum).

    %y = graph.avg_pool2d %x count_include_pad kernel [2, 2] padding [0, 0]
           stride [2, 2] : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
    %s = graph.avg_pool2d %x divisor_override 1 kernel [2, 2] padding [0, 0]
           stride [2, 2] : (tensor<1x8x16x16xf32>) -> tensor<1x8x8x8xf32>
    """

    name = "graph.avg_pool2d"
    count_include_pad = opt_prop_def(UnitAttr)
    divisor_override = opt_prop_def(IntegerAttr)

    def __init__(
        self,
        input: SSAValue,
        kernel: int | Sequence[int],
        stride: int | Sequence[int] | None = None,
        padding: int | Sequence[int] = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ):
        properties = self._window(kernel, stride, padding, ceil_mode)
        if count_include_pad:
            properties["count_include_pad"] = UnitAttr()
        if divisor_override is not None:
            properties["divisor_override"] = IntegerAttr(divisor_override, i64)
        self._build(operands=[input], result_types=[input.type], properties=properties)

    @property
    def includes_padding(self) -> bool:
        return self.count_include_pad is not None

    @property
    def divisor(self) -> int | None:
        """The divisor of every window, or None: torch's (per window)."""
        override = self.divisor_override
        return None if override is None else override.value.data

    def infer_result_types(self) -> list[Attribute]:
        divisor = self.divisor
        if divisor == 0:  # torch's rule: any other value divides
            raise ShapeError(f"divisor_override must be nonzero, got {divisor}")
        return super().infer_result_types()


@irdl_op_definition
class AdaptiveAvgPool2dOp(GraphOp):
    """torch's adaptive_avg_pool2d: the result type's H and W give the output
    size; output row i averages input rows floor(i H / oh) to
    ceil((i + 1) H / oh) (exclusive), columns likewise. The importer writes
    a 1x1 output as `graph.mean` over H and W instead.

    %y = graph.adaptive_avg_pool2d %x : (tensor<1x8x7x7xf32>)
           -> tensor<1x8x3x2xf32>
    """

    name = "graph.adaptive_avg_pool2d"
    input = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, output_size: Sequence[int]):
        shape = [*shape_of(input)[:2], *output_size]
        self._build(operands=[input], result_types=[tensor(shape, dtype_of(input))])

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(f"expects a float tensor, got {self.input.type}")
        if dtype_of(self.result) != dtype_of(self.input):
            raise ShapeError(
                f"element type changes: {self.input.type} -> {self.result.type}"
            )
        source, target = shape_of(self.input), shape_of(self.result)
        if len(source) != 4 or len(target) != 4:
            raise ShapeError(
                f"input and result must have rank 4 (N, C, H, W), got {source} and "
                f"{target}"
            )
        if source[:2] != target[:2] or min(target[2:]) < 1 or min(source[2:]) < 1:
            raise ShapeError(
                f"result {target} must keep N and C of {source} and have an "
                "output size >= 1 (from a non-empty input)"
            )
        return [self.result.type]


@irdl_op_definition
class BatchNormOp(GraphOp):
    """Batch norm in inference: channel c (dim 1) of the input becomes
    `(x - mean[c]) / sqrt(var[c] + eps) * weight[c] + bias[c]`, the running
    statistics and affine parameters all of shape (C,) (the importer fills
    a missing weight with ones, a missing bias with zeros). Operands in
    torch.nn.functional.batch_norm's order.

    %y = graph.batch_norm %x, %mean, %var, %w, %b eps 1.0e-05
           : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>,
              tensor<8xf32>) -> tensor<1x8x4x4xf32>
    """

    name = "graph.batch_norm"
    input = operand_def(TensorType)
    running_mean = operand_def(TensorType)
    running_var = operand_def(TensorType)
    weight = operand_def(TensorType)
    bias = operand_def(TensorType)
    eps = prop_def(FloatAttr)
    result = result_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        running_mean: SSAValue,
        running_var: SSAValue,
        weight: SSAValue,
        bias: SSAValue,
        eps: float = 1e-5,
    ):
        self._build(
            operands=[input, running_mean, running_var, weight, bias],
            result_types=[input.type],
            properties={"eps": FloatAttr(eps, Float64Type())},
        )

    @property
    def eps_value(self) -> float:
        return self.eps.value.data

    def infer_result_types(self) -> list[Attribute]:
        dtypes = {dtype_of(o) for o in self.operands}
        if len(dtypes) != 1 or dtype_of(self.input) not in FLOAT_TYPES:
            raise ShapeError(
                "input, statistics, weight and bias must share one float type"
            )
        rules.channel_params_check(
            shape_of(self.input), [shape_of(o) for o in self.operands[1:]]
        )
        return [self.input.type]
