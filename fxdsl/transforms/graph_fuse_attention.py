"""`graph-fuse-attention`: the unfused attention graph becomes one
`graph.attention` op (the pattern Inductor's `fuse_attention` replaces
with `scaled_dot_product_attention`).

Matched, from the second matmul backwards, each value used once:

    scores = matmul(q, kt)                  kt = k^T (any value of shape (..., d, S))
    scores = mul(scores, c) | div(scores, c)          optional, c a scalar constant
    scores = select(mask, scores, fill)               optional, or add(scores, bias)
    probs  = softmax(scores, dim = last)
    out    = matmul(probs, v)

The scale and the mask may come in either order. A mask is accepted when it
is a constant (its whole backward slice is graph ops without arguments: an
`arange` compared with itself, a `tril` constant, ...) that equals the
causal mask `key <= query` broadcast over the batch, and the masked scores
are at most `MASKED_LIMIT` (a `select` fill such as GPT-2's -1e9 or -inf).
Masked scores then have probability exactly 0 (exp underflows) unless a
row's real scores are themselves below about `MASKED_LIMIT`, which is the
one semantic liberty the rewrite takes. An additive mask (0 where kept)
adds its value to the real score, so it must be at most
`ADDITIVE_MASK_LIMIT` (torch's `finfo.min`, -inf): no real score offsets
it. q, k and v must have equal batch dims (no broadcasting).

Option `min-rows` (default `MIN_ROWS`): chains with fewer query rows (batch
x T) stay unfused. The fused kernel runs one thread per query row, so a
small attention (GPT-2 at B=1, T=64: 768 rows) would occupy a few SMs for
a long serial loop, where cuBLAS and a softmax kernel spread the work over
the whole GPU; `min-rows=1` fuses every chain.

`kt` is usually `transpose(k)` of the last two dims; then `k` is its input
(a view), else a transpose of `kt` is inserted. The constants the chain
read and nothing else does are erased. Runs before `graph-fuse`: once the
softmax is fused with its producers the chain is gone.

Then (option `fold-bias`, default true) every `graph.attention`, new or
already there, whose q, k, v are views of a bias add gets the bias folded
in (`attention_bias`): q's as an add that `graph-fuse` puts in the
attention kernel's prologue, k's dropped (softmax ignores a per-row shift;
rounding differs from the unfolded graph), v's added to the output (the
kernel's epilogue), so the add is no kernel of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from fxdsl.ir import graph
from fxdsl.ir.graph import shape_of
from fxdsl.ir.utils import erase_dead
from fxdsl.transforms.attention_bias import FoldAttentionBias
from fxdsl.transforms.constants import ConstantEvaluator
from fxdsl.transforms.options import check_bool, check_int

MASKED_LIMIT = -1e4
"""Masked scores must be at most this: exp(-1e4 - max) is 0 in f32 and f64."""

ADDITIVE_MASK_LIMIT = -1e30
"""The masked value of an additive mask must be at most this (module doc)."""

MIN_ROWS = 16384
"""Default `min-rows`: about one thread per row for every SM (132 SMs x 128)."""

MAX_MASK_OPS = 32
"""Largest constant slice evaluated to read a mask (a few ops in practice)."""


class ConstantFolder(ConstantEvaluator):
    """Values of constant graph slices, read back from the value a mask or
    scale is (memoised; None for anything that reads an argument)."""

    def value(self, value: SSAValue) -> np.ndarray | None:
        if value in self.values:
            return self.values[value]
        slice_ops = self._slice(value)
        if slice_ops is None:
            return None
        for op in slice_ops:
            self.evaluate(op)
        return self.values[value]

    def _slice(self, value: SSAValue) -> list[Operation] | None:
        """The ops computing `value` in dependency order, or None."""
        order: list[Operation] = []
        seen: set[Operation] = set()
        stack: list[tuple[SSAValue, bool]] = [(value, False)]
        while stack:
            current, expanded = stack.pop()
            op = current.owner
            if not isinstance(op, graph.GraphOp) or len(seen) > MAX_MASK_OPS:
                return None
            if expanded:
                if op not in seen:
                    seen.add(op)
                    order.append(op)
                continue
            if op in seen or current in self.values:
                continue
            stack.append((current, True))
            stack.extend((o, False) for o in op.operands if o not in self.values)
        return order


@dataclass
class AttentionMatch:
    """What `match_attention` found; `chain` is the ops it replaces."""

    query: SSAValue
    key_t: SSAValue
    value: SSAValue
    scale: float
    causal: bool
    chain: list[Operation]


def _scalar(folder: ConstantFolder, value: SSAValue) -> float | None:
    array = folder.value(value)
    if array is None or array.size == 0 or np.any(array != array.flat[0]):
        return None
    return float(array.flat[0])


def _plane(folder: ConstantFolder, value: SSAValue) -> np.ndarray | None:
    """The trailing 2-D plane of a constant whose leading dims are all 1
    (a mask broadcast over the batch), or None."""
    array = folder.value(value)
    if array is None or array.ndim < 2 or any(d != 1 for d in array.shape[:-2]):
        return None
    return array.reshape(array.shape[-2:])


def _causal_mask(folder: ConstantFolder, value: SSAValue, rows: int, cols: int) -> bool:
    """Is `value` a constant boolean `key <= query` mask of (rows, cols)?"""
    plane = _plane(folder, value)
    causal = np.tri(rows, cols, dtype=bool)
    return (
        plane is not None
        and plane.dtype == np.bool_
        and (plane.shape == causal.shape and bool(np.array_equal(plane, causal)))
    )


def _causal_bias(
    folder: ConstantFolder, value: SSAValue, rows: int, cols: int
) -> float | None:
    """The masked value of a constant additive causal bias (0 where
    `key <= query`, a constant elsewhere), or None."""
    plane = _plane(folder, value)
    causal = np.tri(rows, cols, dtype=bool)
    if plane is None or causal.all():
        return None
    try:
        bias = np.broadcast_to(plane, (rows, cols))
    except ValueError:
        return None
    masked = bias[~causal]
    if np.any(bias[causal] != 0) or np.any(masked != masked[0]):
        return None
    return float(masked[0])


def match_attention(
    folder: ConstantFolder, output: graph.MatmulOp
) -> AttentionMatch | None:
    """The attention chain ending in matmul `output`, or None."""
    probs = output.lhs.owner
    if not isinstance(probs, graph.SoftmaxOp) or not output.lhs.has_one_use():
        return None
    rank = len(shape_of(probs.input))
    if rank < 2 or probs.dim.value.data % rank != rank - 1:
        return None
    rows, cols = shape_of(probs.input)[-2:]
    chain: list[Operation] = [output, probs]
    scores, scale, masked = probs.input, 1.0, None
    while scores.has_one_use():
        op = scores.owner
        if isinstance(op, graph.MulOp | graph.DivOp) and scale == 1.0:
            operands = list(op.operands)
            if isinstance(op, graph.MulOp) and _scalar(folder, operands[0]) is not None:
                operands.reverse()
            factor = _scalar(folder, operands[1])
            if factor is None or factor == 0:
                return None
            if shape_of(operands[0]) != shape_of(op.results[0]):
                return None  # the constant broadcasts the scores to more dims
            scale = 1.0 / factor if isinstance(op, graph.DivOp) else factor
            scores = operands[0]
        elif isinstance(op, graph.SelectOp | graph.AddOp) and masked is None:
            found = _mask(folder, op, rows, cols)
            if found is None:
                return None
            scores, fill = found
            masked = fill * scale  # a scale found so far is applied after the mask
        elif isinstance(op, graph.MatmulOp):
            chain.append(op)
            return _finish(op, output, scale, masked, chain)
        else:
            return None
        chain.append(op)
    return None


def _mask(
    folder: ConstantFolder, op: Operation, rows: int, cols: int
) -> tuple[SSAValue, float] | None:
    """(the scores, the masked value) of a causal `select` or additive mask."""
    if isinstance(op, graph.SelectOp):
        fill = _scalar(folder, op.rhs)
        if fill is None or not _causal_mask(folder, op.cond, rows, cols):
            return None
        if shape_of(op.lhs) != shape_of(op.result):
            return None
        return op.lhs, fill
    for scores, bias in (op.operands, reversed(op.operands)):
        fill = _causal_bias(folder, bias, rows, cols)
        if fill is None or shape_of(scores) != shape_of(op.results[0]):
            continue
        return (scores, fill) if fill <= ADDITIVE_MASK_LIMIT else None
    return None


def _finish(
    scores: graph.MatmulOp,
    output: graph.MatmulOp,
    scale: float,
    masked: float | None,
    chain: list[Operation],
) -> AttentionMatch | None:
    if masked is not None and not masked <= MASKED_LIMIT:
        return None
    if scores.is_widened or output.is_widened:
        return None  # graph.attention rounds to the query's type
    query, key_t, value = scores.lhs, scores.rhs, output.rhs
    shapes = [shape_of(v) for v in (query, key_t, value)]
    if any(len(s) < 2 for s in shapes):
        return None
    batch = shapes[0][:-2]
    if shapes[1][:-2] != batch or shapes[2][:-2] != batch:
        return None
    if (*shapes[0][:-1], shapes[2][-1]) != shape_of(output.result):
        return None  # e.g. a mask that broadcast the scores to more dims
    return AttentionMatch(query, key_t, value, scale, masked is not None, chain)


def _key(key_t: SSAValue, rewriter: PatternRewriter, before: Operation) -> SSAValue:
    """k from k^T: the input of a last-two-dims transpose, else a new one."""
    rank = len(shape_of(key_t))
    swap = [*range(rank - 2), rank - 1, rank - 2]
    owner = key_t.owner
    if isinstance(owner, graph.TransposeOp) and list(owner.perm.get_values()) == swap:
        return owner.input
    transpose = graph.TransposeOp(key_t, swap)
    transpose.attributes |= dict(before.attributes)
    rewriter.insert(transpose, InsertPoint.before(before))
    return transpose.result


class FuseAttention(RewritePattern):
    def __init__(self, min_rows: int) -> None:
        self.folder = ConstantFolder()
        self.min_rows = min_rows

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.MatmulOp, rewriter: PatternRewriter) -> None:
        if prod(shape_of(op.result)[:-1]) < self.min_rows:
            return
        found = match_attention(self.folder, op)
        if found is None:
            return
        key = _key(found.key_t, rewriter, found.chain[-1])
        attention = graph.AttentionOp(
            found.query, key, found.value, found.scale, found.causal
        )
        attention.attributes |= dict(op.attributes)
        rewriter.replace(op, attention)
        erase_dead(rewriter, found.chain[1:])


@dataclass(frozen=True)
class GraphFuseAttentionPass(ModulePass):
    """Attention chains -> `graph.attention` (see the module docstring)."""

    name = "graph-fuse-attention"

    min_rows: int = MIN_ROWS
    fold_bias: bool = True

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_int(self.name, "min-rows", self.min_rows, 1)
        check_bool(self.name, "fold-bias", self.fold_bias)
        patterns: list[RewritePattern] = [FuseAttention(self.min_rows)]
        if self.fold_bias:
            patterns.append(FoldAttentionBias())
        for pattern in patterns:
            walker = PatternRewriteWalker(pattern, apply_recursively=False)
            walker.rewrite_module(op)
