"""`graph-decompose`: rewrite ops into parts that `graph-fuse` can fuse.

Runs before `graph-fuse` in the default pipeline. Decompositions (a table,
one pattern each):

* `linear(x, w, b)` -> `add(matmul(x, transpose(w, [1, 0])), b)`: the matmul
  stays a library call, the bias add becomes fusible, so bias + activation +
  residual epilogues after a linear layer fuse into one group. The transpose
  is a view (no copy); without a bias only the matmul and transpose remain.

* `any` / `all` over i1 -> `max` / `min` over i1 (the same values; the
  kernels already reduce booleans with max and min); over an empty dim,
  the constant false / true, as torch's (max and min of nothing are an
  error).

* `arange` -> `constant` (shapes are static, so its values are known;
  the reference interpreter computes them).

* `cumsum(x, dim d)` -> `sum(select(j <= i, x[.., None, j, ..], 0), d + 1)`:
  each output i sums the inputs j <= i. The mask compares two index
  constants of n elements (not an n x n literal) and fuses with the select
  into the sum's kernel: O(n^2) adds, fine for the mask-sized inputs torch
  programs take cumsums of (the importer folds most at import).

* `attention` with a mask operand and fewer query rows (batch x T) than
  option `attention-min-rows` (default: `graph-fuse-attention`'s
  `MIN_ROWS`) -> `matmul(q, k^T) * scale`, then `select(mask, s, -inf)`
  (i1 mask) or `add(s, mask)` (additive), the causal select when `causal`,
  `softmax`, `matmul(., v)`, and a `select(rowmax(s) > -inf, o, 0)` that
  gives the zeros torch gives for a row with every key masked. A small
  attention runs better this way (cuBLAS and a softmax row kernel spread
  over the whole GPU; the mask and scale fuse into the softmax's kernel)
  than on the fused kernel's one thread per row; a large one stays and
  takes its mask into the fused kernel. Unmasked attention always stays.

* conv1d/conv2d (bias split off as an add), max/avg/adaptive-avg pooling
  and batch norm -> views, concat, elementwise ops, reductions and
  `graph.matmul` (`fxdsl.transforms.conv_decompose`, `CONV_DECOMPOSITIONS`).

Not decomposed, on purpose: `layer_norm`, `softmax`, `log_softmax`, `var`
and `gelu` are fusible as they are (a layer_norm or softmax is a row-reduction
group with its prologue and epilogue; gelu is elementwise), and a row kernel
computes them better from the whole op than from primitives.

Every new op keeps the attributes (`scope`, ...) of the op it replaces.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, i64
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from fxdsl.interpreters.graph import arange_values
from fxdsl.ir import graph
from fxdsl.ir.utils import with_provenance
from fxdsl.transforms.constants import dense_constant
from fxdsl.transforms.conv_decompose import CONV_DECOMPOSITIONS
from fxdsl.transforms.graph_fuse_attention import MIN_ROWS
from fxdsl.transforms.options import check_int


class DecomposeLinear(RewritePattern):
    """linear -> transpose(weight) + matmul (+ bias add). A 16-bit linear
    with a bias rounds once, as `graph.linear` (and torch's addmm) does: the
    matmul's product stays f32, the bias is added in f32, the sum is cast
    back."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.LinearOp, rewriter: PatternRewriter) -> None:
        element = graph.dtype_of(op.result)
        wide = op.bias is not None and element in graph.HALF_FLOAT_TYPES
        transposed = graph.TransposeOp(op.weight, [1, 0])
        product = graph.MatmulOp(
            op.input, transposed.result, graph.f32 if wide else None
        )
        new_ops: list[Operation] = [transposed, product]
        if op.bias is not None and wide:
            bias = graph.CastOp(op.bias, graph.f32)
            total = graph.AddOp(product.result, bias.result)
            new_ops += [bias, total, graph.CastOp(total.result, element)]
        elif op.bias is not None:
            new_ops.append(graph.AddOp(product.result, op.bias))
        rewriter.replace(op, with_provenance(new_ops, op), [new_ops[-1].results[0]])


BOOLEAN_REDUCTIONS: dict[type[graph.ReductionOp], type[graph.ReductionOp]] = {
    op: graph.fold_op(op.COMBINER)
    for op in graph.GRAPH_OPS
    if issubclass(op, graph.ReductionOp)
    and issubclass(op, graph.BoolOperands)
    and op.COMBINER is not None
}
"""i1 reduction -> the reduction that computes it: the plain fold of its
combiner (any: max, all: min)."""


class DecomposeBooleanReduction(RewritePattern):
    """any -> max, all -> min (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: graph.ReductionOp, rewriter: PatternRewriter
    ) -> None:
        fold = BOOLEAN_REDUCTIONS.get(type(op))
        if fold is None:
            return
        shape = graph.shape_of(op.input)
        if any(shape[d] == 0 for d in op.reduced_dims()):
            # nothing to fold: the combiner's identity (any: false, all:
            # true), where max and min of nothing are an error
            identity = 1.0 if isinstance(op, graph.AllOp) else 0.0
            result_shape = graph.shape_of(op.result)
            full = graph.FullOp(result_shape, identity, graph.i1)
            rewriter.replace(op, with_provenance([full], op), [full.result])
            return
        reduction = fold.create_inferred([op.input], dict(op.properties))
        rewriter.replace(op, with_provenance([reduction], op), [reduction.result])


class DecomposeArange(RewritePattern):
    """arange -> constant (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.ArangeOp, rewriter: PatternRewriter) -> None:
        constant = dense_constant(arange_values(op), op.result.type)
        rewriter.replace(op, with_provenance([constant], op), [constant.result])


def _lower_triangle(rows: int, cols: int, trailing: int) -> list[Operation]:
    """Ops computing the i1 mask `j <= i` of shape (rows, cols, 1 x trailing)
    (the last op's result): two index constants of rows and cols elements
    compared, which fuses, instead of a rows x cols literal."""
    ones = (1,) * trailing
    out_index = np.arange(rows, dtype=np.int64).reshape(rows, 1, *ones)
    in_index = np.arange(cols, dtype=np.int64).reshape(cols, *ones)
    outputs = dense_constant(out_index, graph.tensor(out_index.shape, i64))
    inputs = dense_constant(in_index, graph.tensor(in_index.shape, i64))
    return [outputs, inputs, graph.LeOp(inputs.result, outputs.result)]


class DecomposeCumsum(RewritePattern):
    """cumsum -> masked sum over a new dim (module docstring)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.CumsumOp, rewriter: PatternRewriter) -> None:
        shape, dim = graph.shape_of(op.input), op.dim.value.data
        n = shape[dim]
        mask_ops = _lower_triangle(n, n, len(shape) - dim - 1)
        spread = graph.ReshapeOp(op.input, (*shape[:dim], 1, *shape[dim:]))
        zero = graph.FullOp((), 0.0, graph.dtype_of(op.input))
        keep = mask_ops[-1].results[0]
        masked = graph.SelectOp(keep, spread.result, zero.result)
        total = graph.SumOp(masked.result, [dim + 1])
        new_ops = [*mask_ops, spread, zero, masked, total]
        rewriter.replace(op, with_provenance(new_ops, op), [total.result])


@dataclass(frozen=True)
class DecomposeMaskedAttention(RewritePattern):
    """attention with a mask and fewer than `min_rows` query rows -> matmuls,
    masks and softmax (module docstring)."""

    min_rows: int = MIN_ROWS

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: graph.AttentionOp, rewriter: PatternRewriter
    ) -> None:
        if op.mask is None or prod(graph.shape_of(op.query)[:-1]) >= self.min_rows:
            return
        dtype = graph.dtype_of(op.query)
        half = dtype in graph.HALF_FLOAT_TYPES
        compute = graph.f32 if half else dtype  # the scores' type
        rank = len(graph.shape_of(op.key))
        swap = [*range(rank - 2), rank - 1, rank - 2]
        key_t = graph.TransposeOp(op.key, swap)
        product = graph.MatmulOp(op.query, key_t.result, compute if half else None)
        factor = graph.FullOp((), op.scale_value, compute)
        scaled = graph.MulOp(product.result, factor.result)
        minus_inf = graph.FullOp((), float("-inf"), compute)
        new_ops: list[Operation] = [key_t, product, factor, scaled, minus_inf]
        if op.is_boolean_mask:
            masked = graph.SelectOp(op.mask, scaled.result, minus_inf.result)
        else:
            bias = op.mask
            # A mask of another float type is added in the scores' type (as
            # torch promotes f32 scores plus a bf16 mask).
            if graph.dtype_of(bias) != compute:
                cast = graph.CastOp(bias, compute)
                new_ops.append(cast)
                bias = cast.result
            masked = graph.AddOp(scaled.result, bias)
        new_ops.append(masked)
        if op.is_causal:
            t, s = graph.shape_of(masked.result)[-2:]
            mask_ops = _lower_triangle(t, s, 0)
            keep = mask_ops[-1].results[0]
            masked = graph.SelectOp(keep, masked.results[0], minus_inf.result)
            new_ops += [*mask_ops, masked]
        scores = masked.results[0]
        last = len(graph.shape_of(scores)) - 1
        top = graph.MaxOp(scores, [last], keepdim=True)
        if half:
            new_ops.append(top)
            output = _half_softmax_product(scores, top.result, op.value, new_ops)
        else:
            probs = graph.SoftmaxOp(scores, last)
            product = graph.MatmulOp(probs.result, op.value)
            new_ops += [probs, product, top]
            output = product.result
        has_key = graph.NeOp(top.result, minus_inf.result)
        zero = graph.FullOp((), 0.0, compute)
        result = graph.SelectOp(has_key.result, output, zero.result)
        new_ops += [has_key, zero, result]
        if half:
            new_ops.append(graph.CastOp(result.result, dtype))
        rewriter.replace(op, with_provenance(new_ops, op), [new_ops[-1].results[0]])


def _half_softmax_product(
    scores: SSAValue, top: SSAValue, value: SSAValue, new_ops: list[Operation]
) -> SSAValue:
    """softmax(scores) @ value as `graph.attention` computes it on 16-bit
    operands (f32 scores): the numerators exp(s - max) rounded to value's
    type for the product, divided by their f32 sum after it. Appends the
    ops to `new_ops`; returns the f32 result (NaN in a row without keys,
    which the caller's select replaces)."""
    last = len(graph.shape_of(scores)) - 1
    shifted = graph.SubOp(scores, top)
    numerators = graph.ExpOp(shifted.result)
    total = graph.SumOp(numerators.result, [last], keepdim=True)
    rounded = graph.CastOp(numerators.result, graph.dtype_of(value))
    product = graph.MatmulOp(rounded.result, value, graph.f32)
    output = graph.DivOp(product.result, total.result)
    new_ops += [shifted, numerators, total, rounded, product, output]
    return output.result


DECOMPOSITIONS: tuple[RewritePattern, ...] = (
    DecomposeLinear(),
    DecomposeBooleanReduction(),
    DecomposeArange(),
    DecomposeCumsum(),
    *CONV_DECOMPOSITIONS,
)
"""The decompositions without options; `graph-decompose` adds
`DecomposeMaskedAttention` with its `attention-min-rows`."""


@dataclass(frozen=True)
class GraphDecomposePass(ModulePass):
    """Decompose ops whose parts fuse better (see the module docstring)."""

    name = "graph-decompose"

    attention_min_rows: int = MIN_ROWS

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_int(self.name, "attention-min-rows", self.attention_min_rows, 1)
        patterns = [*DECOMPOSITIONS, DecomposeMaskedAttention(self.attention_min_rows)]
        PatternRewriteWalker(
            GreedyRewritePatternApplier(patterns), apply_recursively=False
        ).rewrite_module(op)
