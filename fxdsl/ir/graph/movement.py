"""Data movement: views (the `ViewLike` trait), slicing, concatenation,
gathers, embedding lookups."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.ir import (
    Attribute,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.traits import (
    OpTrait,
    Pure,
)

from fxdsl.ir import shape_rules as rules
from fxdsl.ir.graph.base import INDEX_TYPES, GraphOp, dtype_of, ints, shape_of, tensor
from fxdsl.ir.shape_rules import Shape, ShapeError

# --------------------------------------------------------------------------- #
# Data movement
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class ViewLike(OpTrait):
    """Data movement without arithmetic: each result element is a copy of
    one operand element, at a position fixed by shapes and properties (no
    data-dependent index), as MLIR's ViewLikeOpInterface widened to the
    views a kernel may copy. Passes that need a kind of view ask a flag
    (`view_ops`), never keep a list of classes."""

    strided: bool = False
    """The result is a strided layout of operand 0's buffer: the host keeps
    it as a buffer view where the layout allows."""
    injective: bool = False
    """No operand element appears twice in the results."""
    bijective: bool = False
    """One result holds each element of its one operand exactly once: a
    chain of them can be inverted."""
    same_order: bool = False
    """The result is the operand's elements in the same row-major order, so
    it moves no data even in a kernel."""


class ShapedResultOp(GraphOp):
    """Ops whose result shape is given by the declared result type."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, shape: Sequence[int]):
        super().__init__(
            operands=[input], result_types=[tensor(shape, dtype_of(input))]
        )

    def check(self, source: Shape, target: Shape) -> None:
        raise NotImplementedError  # every concrete subclass defines its rule

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.result) != dtype_of(self.input):
            raise ShapeError(
                f"element type changes: {self.input.type} -> {self.result.type}"
            )
        self.check(shape_of(self.input), shape_of(self.result))
        return [self.result.type]


@irdl_op_definition
class ReshapeOp(ShapedResultOp):
    """Row-major reshape; the element count is kept.

    %y = graph.reshape %x : (tensor<4x8xf32>) -> tensor<32xf32>
    """

    name = "graph.reshape"
    traits = traits_def(
        Pure(), ViewLike(strided=True, injective=True, bijective=True, same_order=True)
    )

    def check(self, source: Shape, target: Shape) -> None:
        rules.reshape_check(source, target)


@irdl_op_definition
class BroadcastToOp(ShapedResultOp):
    """numpy.broadcast_to.

    %y = graph.broadcast_to %x : (tensor<8xf32>) -> tensor<4x8xf32>
    """

    name = "graph.broadcast_to"
    traits = traits_def(Pure(), ViewLike(strided=True))

    def check(self, source: Shape, target: Shape) -> None:
        if not rules.can_broadcast_to(source, target):
            raise ShapeError(f"cannot broadcast {source} to {target}")


@irdl_op_definition
class TransposeOp(GraphOp):
    """Permute dims: result dim i is input dim perm[i].

    %y = graph.transpose %x perm [1, 0] : (tensor<4x8xf32>) -> tensor<8x4xf32>
    """

    name = "graph.transpose"
    traits = traits_def(Pure(), ViewLike(strided=True, injective=True, bijective=True))
    input = operand_def(TensorType)
    perm = prop_def(DenseArrayBase)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, perm: Sequence[int]):
        self._build(
            operands=[input], result_types=[input.type], properties={"perm": ints(perm)}
        )

    def infer_result_types(self) -> list[Attribute]:
        shape = rules.transpose_shape(shape_of(self.input), self.perm.get_values())
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class SliceOp(GraphOp):
    """Basic slicing `x[start:limit:step]` per dim.

    %y = graph.slice %x start [0, 2] limit [4, 8] step [1, 2]
           : (tensor<4x8xf32>) -> tensor<4x3xf32>
    """

    name = "graph.slice"
    traits = traits_def(Pure(), ViewLike(strided=True, injective=True))
    input = operand_def(TensorType)
    start = prop_def(DenseArrayBase)
    limit = prop_def(DenseArrayBase)
    step = prop_def(DenseArrayBase)
    result = result_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        start: Sequence[int],
        limit: Sequence[int],
        step: Sequence[int] | None = None,
    ):
        step = [1] * len(start) if step is None else step
        self._build(
            operands=[input],
            result_types=[input.type],
            properties={"start": ints(start), "limit": ints(limit), "step": ints(step)},
        )

    def infer_result_types(self) -> list[Attribute]:
        shape = rules.slice_shape(
            shape_of(self.input),
            self.start.get_values(),
            self.limit.get_values(),
            self.step.get_values(),
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class ConcatOp(GraphOp):
    """Concatenate along `dim`.

    %y = graph.concat %a, %b dim 0 : (tensor<2x8xf32>, tensor<3x8xf32>)
           -> tensor<5x8xf32>
    """

    name = "graph.concat"
    traits = traits_def(Pure(), ViewLike(injective=True))
    inputs = var_operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(self, inputs: Sequence[SSAValue], dim: int):
        self._build(
            operands=[list(inputs)],
            result_types=[inputs[0].type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_types(self) -> list[Attribute]:
        if len({dtype_of(o) for o in self.inputs}) > 1:
            raise ShapeError("inputs must share one element type")
        shapes = [shape_of(o) for o in self.inputs]
        shape = rules.concat_shape(shapes, self.dim.value.data)
        return [tensor(shape, dtype_of(self.inputs[0]))]


@irdl_op_definition
class SplitOp(GraphOp):
    """Split along `dim` into pieces of the given `sizes`.

    %a, %b = graph.split %x dim 0 sizes [2, 3] : (tensor<5x8xf32>)
               -> (tensor<2x8xf32>, tensor<3x8xf32>)
    """

    name = "graph.split"
    traits = traits_def(Pure(), ViewLike(strided=True, injective=True))
    input = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    sizes = prop_def(DenseArrayBase)
    outputs = var_result_def(TensorType)

    def __init__(self, input: SSAValue, dim: int, sizes: Sequence[int]):
        shapes = rules.split_shapes(shape_of(input), dim, sizes)
        super().__init__(
            operands=[input],
            result_types=[[tensor(s, dtype_of(input)) for s in shapes]],
            properties={"dim": IntegerAttr(dim, i64), "sizes": ints(sizes)},
        )

    def infer_result_types(self) -> list[Attribute]:
        shapes = rules.split_shapes(
            shape_of(self.input), self.dim.value.data, self.sizes.get_values()
        )
        return [tensor(s, dtype_of(self.input)) for s in shapes]


@irdl_op_definition
class GatherOp(GraphOp):
    """torch.gather: `out[i][j] = input[index[i][j]][j]` for `dim 0`.

    %y = graph.gather %x, %idx dim 1 : (tensor<4x8xf32>, tensor<4x2xi64>)
           -> tensor<4x2xf32>
    """

    name = "graph.gather"
    input = operand_def(TensorType)
    index = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, index: SSAValue, dim: int):
        super().__init__(
            operands=[input, index],
            result_types=[tensor(shape_of(index), dtype_of(input))],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.index) not in INDEX_TYPES:
            raise ShapeError(f"index must be i64 or i32, got {self.index.type}")
        shape = rules.gather_shape(
            shape_of(self.input), self.dim.value.data, shape_of(self.index)
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class IndexOp(GraphOp):
    """torch's advanced indexing `x[..., i, ..., j]` (`aten.index.Tensor`):
    one i64/i32 index tensor per dim in `dims` (increasing; the other dims
    are kept whole), broadcast together. Their broadcast shape replaces the
    indexed dims in place when those are adjacent, else it comes first
    (`shape_rules.index_shape`). Negative indices count from the end; one
    out of range is an error in the reference, and unchecked in a kernel (as
    for gather). Lowered like gather: one kernel, an element per thread.

    %y = graph.index %x, %i dims [1] : (tensor<4x8x3xf32>, tensor<5xi64>)
           -> tensor<4x5x3xf32>
    """

    name = "graph.index"
    input = operand_def(TensorType)
    indices = var_operand_def(TensorType)
    dims = prop_def(DenseArrayBase)
    result = result_def(TensorType)

    def __init__(
        self, input: SSAValue, indices: Sequence[SSAValue], dims: Sequence[int]
    ):
        self._build(
            operands=[input, list(indices)],
            result_types=[input.type],
            properties={"dims": ints(dims)},
        )

    @property
    def dim_list(self) -> tuple[int, ...]:
        return tuple(self.dims.get_values())

    def infer_result_types(self) -> list[Attribute]:
        for index in self.indices:
            if dtype_of(index) not in INDEX_TYPES:
                raise ShapeError(f"indices must be i64 or i32, got {index.type}")
        shape = rules.index_shape(
            shape_of(self.input), self.dim_list, [shape_of(i) for i in self.indices]
        )
        return [tensor(shape, dtype_of(self.input))]


class IndexUpdate(GraphOp):
    """The slices of the input at a 1-D `index` along `dim`, updated from
    the source's slices in order (`graph.index_copy`, `graph.index_add`):
    the source is the input's shape with `dim` of the index's size, the
    result the input's shape and type. Value semantics, as every graph op:
    the input is not changed. Indices past the end are an error in the
    reference."""

    input = operand_def(TensorType)
    index = operand_def(TensorType)
    source = operand_def(TensorType)
    dim = prop_def(IntegerAttr)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, index: SSAValue, source: SSAValue, dim: int):
        super().__init__(
            operands=[input, index, source],
            result_types=[input.type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.index) not in INDEX_TYPES:
            raise ShapeError(f"index must be i64 or i32, got {self.index.type}")
        if dtype_of(self.source) != dtype_of(self.input):
            raise ShapeError(
                f"source {self.source.type} and input {self.input.type} "
                "differ in element type"
            )
        shape = rules.index_copy_shape(
            shape_of(self.input),
            self.dim.value.data,
            shape_of(self.index),
            shape_of(self.source),
        )
        return [tensor(shape, dtype_of(self.input))]


@irdl_op_definition
class IndexCopyOp(IndexUpdate):
    """torch's `index_copy`: the input with the slices at `index` along
    `dim` replaced by the source's, `out[..., index[k], ...] = source[...,
    k, ...]` (a static KV cache's update, `aten.index_put` with one index
    tensor). Writing the result into the input's buffer is a bufferization
    decision (`graph-bufferize`, for an input marked
    `bufferization.writable`). Where an index repeats, the last source
    slice wins.

    %y = graph.index_copy %cache, %pos, %new dim 2
           : (tensor<1x2x16x8xf32>, tensor<1xi64>, tensor<1x2x1x8xf32>)
           -> tensor<1x2x16x8xf32>
    """

    name = "graph.index_copy"


@irdl_op_definition
class IndexAddOp(IndexUpdate):
    """torch's `index_add`: the input with each source slice added to the
    slice `index` names, `out[..., index[k], ...] += source[..., k, ...]`,
    in order of `k` (a repeated index sums; in 16-bit types each sum is
    rounded to the type, as torch's CPU kernels add). The gradient of an
    embedding or of a gathered table (`aten.index_put` with
    `accumulate=True`).

    An optional 4th operand `order` (i64, the index's length) is a stable
    argsort of `index`: with it, each result element finds its entries by
    binary search and adds only those, so a kernel costs the result plus
    the source, not the result times the index (a large vocabulary's
    embedding gradient). The reference checks that it is one.

    %g = graph.index_add %zeros, %ids, %rows dim 0
           : (tensor<50x8xf32>, tensor<6xi64>, tensor<6x8xf32>)
           -> tensor<50x8xf32>
    %g = graph.index_add %zeros, %ids, %rows, %order dim 0
           : (tensor<50x8xf32>, tensor<6xi64>, tensor<6x8xf32>, tensor<6xi64>)
           -> tensor<50x8xf32>
    """

    name = "graph.index_add"
    # restated so that `order` comes after the base class's operands
    input = operand_def(TensorType)
    index = operand_def(TensorType)
    source = operand_def(TensorType)
    order = opt_operand_def(TensorType)

    def __init__(
        self,
        input: SSAValue,
        index: SSAValue,
        source: SSAValue,
        dim: int,
        order: SSAValue | None = None,
    ):
        IRDLOperation.__init__(
            self,
            operands=[input, index, source, [] if order is None else [order]],
            result_types=[input.type],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def infer_result_types(self) -> list[Attribute]:
        if self.order is not None and (
            dtype_of(self.order) != i64 or shape_of(self.order) != shape_of(self.index)
        ):
            raise ShapeError(
                f"order must be i64 of the index's shape {list(shape_of(self.index))}, "
                f"got {self.order.type}"
            )
        return super().infer_result_types()


@irdl_op_definition
class EmbeddingOp(GraphOp):
    """Row lookup `weight[indices]` (torch.nn.functional.embedding).

    %y = graph.embedding %ids, %w : (tensor<1x64xi64>, tensor<50257x768xf32>)
           -> tensor<1x64x768xf32>
    """

    name = "graph.embedding"
    indices = operand_def(TensorType)
    weight = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, indices: SSAValue, weight: SSAValue):
        shape = rules.embedding_shape(shape_of(indices), shape_of(weight))
        super().__init__(
            operands=[indices, weight], result_types=[tensor(shape, dtype_of(weight))]
        )

    def infer_result_types(self) -> list[Attribute]:
        if dtype_of(self.indices) not in INDEX_TYPES:
            raise ShapeError(f"indices must be i64 or i32, got {self.indices.type}")
        shape = rules.embedding_shape(shape_of(self.indices), shape_of(self.weight))
        return [tensor(shape, dtype_of(self.weight))]
