"""`graph-split-k`: split the contraction of skinny matmuls into a batch.

A matmul of few rows by a weight matrix, `x (R, K) @ w (K, N)` with R small
(GPT-2 at B=1, T=64: R = 64), gives a GEMM library only `R/tile x N/tile`
output tiles to spread over the SMs: a 64 x 2304 output in 64 x 64 tiles is
36 thread blocks for 132 SMs, and the weight (the bytes that matter) streams
through a quarter of the machine. Splitting K into `S` chunks makes `S`
independent products, one batched GEMM with `S` times the blocks, and a sum
of the `S` partial outputs:

    %xr = graph.reshape %x            : (R, K) -> (R, S, K/S)
    %xt = graph.transpose %xr [1,0,2] : -> (S, R, K/S)       (a view: no copy)
    %wr = graph.reshape %w            : (K, N) -> (S, K/S, N)
    %p  = graph.matmul %xt, %wr       : -> (S, R, N)         (one batched GEMM)
    %y  = graph.sum %p dims [0]       : -> (R, N)

The partials (`S x R x N` floats, a few MB) stay in L2, and `graph-fuse`
puts the sum into the kernel of the matmul's epilogue (a short reduction
over a leading dim is elementwise there: `fusibility.serial_reduction`), so
the split costs no launch. Batch dims of `x` count as rows (x is reshaped
to `(R, K)`; the partials are viewed as `(S, *batch, M, N)` for the sum);
`w` must be 2-D. f32 only: the partials of an f16 product would be rounded
to f16 before they are added. Run it after `graph-decompose`: a
`graph.linear` is not split, but decomposed its weight is a transposed view
`(out, in) -> (K, N)`, whose K chunks are strided views too (no copy).

Options:
* `max-rows` (default 256): split only matmuls with at most this many rows
  R; larger outputs already fill the GPU.
* `splits` (default 0 = choose): S. Chosen, S is the smallest power of two
  that gives about `TARGET_TILES` output tiles of `TILE x TILE` (two blocks
  per SM of an H100), at most `MAX_SPLITS`, with chunks of at least
  `MIN_CHUNK` and K divisible by S. A matmul where no S >= 2 fits is left
  as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import ceil, prod

from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import PassFailedException

from fxdsl.ir import graph
from fxdsl.ir.graph import dtype_of, shape_of
from fxdsl.ir.utils import with_provenance
from fxdsl.transforms.options import check_int

TILE = 64
"""Edge of the output tile a GEMM library gives one thread block (a guess at
cuBLAS's choice for skinny f32 products; only the automatic S uses it)."""
TARGET_TILES = 264
"""Output tiles the automatic S aims for: two per SM of an H100 (132 SMs)."""
MAX_SPLITS = 16
MIN_CHUNK = 32
"""Smallest K chunk: below it a partial product is all overhead."""


def choose_splits(rows: int, k: int, n: int) -> int:
    """The automatic S for an `(rows, k) @ (k, n)` product (module docstring);
    1 when no split fits."""
    tiles = ceil(rows / TILE) * ceil(n / TILE)
    splits = 1
    while splits * tiles < TARGET_TILES and splits < MAX_SPLITS:
        candidate = splits * 2
        if k % candidate or k // candidate < MIN_CHUNK:
            break
        splits = candidate
    return splits


class SplitK(RewritePattern):
    """`x @ w` with few rows -> batched partial products and their sum."""

    def __init__(self, max_rows: int, splits: int):
        self.max_rows, self.splits = max_rows, splits

    def _splits(self, rows: int, k: int, n: int) -> int:
        if not self.splits:
            return choose_splits(rows, k, n)
        return self.splits if k % self.splits == 0 else 1

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: graph.MatmulOp, rewriter: PatternRewriter) -> None:
        x_shape, w_shape = shape_of(op.lhs), shape_of(op.rhs)
        if len(w_shape) != 2 or len(x_shape) < 2:
            return
        if not (dtype_of(op.lhs) == dtype_of(op.rhs) == Float32Type()):
            return
        rows, (k, n) = prod(x_shape[:-1]), w_shape
        if rows > self.max_rows:
            return
        splits = self._splits(rows, k, n)
        if splits < 2:
            return
        # x (..., M, K) -> (S, R, K/S), w -> (S, K/S, N): one batch dim of S
        # on both sides; x's batch dims come back in a view of the product,
        # which the fused sum reads (trailing dims kept: still float4 loads)
        chunk = k // splits
        x_split = graph.ReshapeOp(op.lhs, (rows, splits, chunk))
        x_batch = graph.TransposeOp(x_split.result, [1, 0, 2])
        w_batch = graph.ReshapeOp(op.rhs, (splits, chunk, n))
        partial = graph.MatmulOp(x_batch.result, w_batch.result)
        new_ops: list[Operation] = [x_split, x_batch, w_batch, partial]
        if len(x_shape) != 2:
            unfolded = (splits, *x_shape[:-1], n)
            new_ops.append(graph.ReshapeOp(partial.result, unfolded))
        new_ops.append(graph.SumOp(new_ops[-1].results[0], [0]))
        rewriter.replace(op, with_provenance(new_ops, op), [new_ops[-1].results[0]])


@dataclass(frozen=True)
class GraphSplitKPass(ModulePass):
    """Split the K dim of skinny f32 matmuls into a batch (module docstring).

    Options: `max-rows` (default 256), `splits` (default 0: chosen per matmul).
    """

    name = "graph-split-k"

    max_rows: int = 256
    splits: int = 0

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_int(self.name, "max-rows", self.max_rows, 1)
        check_int(self.name, "splits", self.splits, 0)
        if self.splits == 1:
            raise PassFailedException(
                "graph-split-k: splits=1 splits nothing; use >= 2, or 0 to choose"
            )
        PatternRewriteWalker(
            SplitK(self.max_rows, self.splits), apply_recursively=False
        ).rewrite_module(op)
