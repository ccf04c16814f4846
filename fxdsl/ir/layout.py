"""Strided buffer layouts: how views (reshape, transpose, slice, broadcast_to,
split) move through a buffer without copying it.

A `Layout` is the MLIR strided form `offset + sum(i_d * strides[d])` over a
static shape. Every view op maps the layout of its operand to the layout of
its result, or to None when no strided layout can express it (a reshape that
merges dims of a transposed buffer); such a view must be copied instead.
`graph-wrap-kernels` asks these questions to decide what becomes a copy
kernel; `graph-bufferize` uses the same answers to build the view ops.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from math import prod

from xdsl.dialects.builtin import MemRefType, NoneAttr, StridedLayoutAttr
from xdsl.ir import Attribute, Operation

from fxdsl.ir import graph
from fxdsl.ir.graph import shape_of

Shape = tuple[int, ...]


def contiguous_strides(shape: Sequence[int]) -> tuple[int, ...]:
    """Row-major strides of a dense buffer."""
    strides: list[int] = []
    step = 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


@dataclass(frozen=True)
class Layout:
    """`shape` elements at `offset + sum(i_d * strides[d])` of a buffer."""

    shape: Shape
    strides: tuple[int, ...]
    offset: int = 0

    @staticmethod
    def dense(shape: Sequence[int]) -> Layout:
        return Layout(tuple(shape), contiguous_strides(shape))

    @property
    def is_identity(self) -> bool:
        """A dense row-major buffer starting at offset 0 (the plain memref).
        Strides of size-1 dims do not matter."""
        dense = contiguous_strides(self.shape)
        same = all(n == 1 or s == d for n, s, d in zip(self.shape, self.strides, dense))
        return self.offset == 0 and same

    def memref_type(self, element_type: Attribute) -> MemRefType[Attribute]:
        """`memref<shape x T>` for identity layouts, else with `strided<...>`."""
        if self.is_identity:
            return MemRefType(element_type, self.shape, NoneAttr())
        layout = StridedLayoutAttr(self.strides, self.offset)
        return MemRefType(element_type, self.shape, layout)


def layout_of_type(typ: MemRefType[Attribute]) -> Layout:
    """The layout a memref type spells (identity when it has none)."""
    shape = tuple(typ.get_shape())
    layout = typ.layout
    if isinstance(layout, StridedLayoutAttr):
        strides = tuple(s.data for s in layout.strides.data)  # type: ignore[union-attr]
        offset = layout.offset
        return Layout(shape, strides, offset.data if hasattr(offset, "data") else 0)  # type: ignore[union-attr]
    return Layout.dense(shape)


def reshaped(src: Layout, target: Shape) -> Layout | None:
    """numpy's no-copy reshape rule: each run of source dims that is merged or
    split must be one contiguous block of strides."""
    src_dims = [(n, s) for n, s in zip(src.shape, src.strides) if n != 1]
    tgt = [(k, n) for k, n in enumerate(target) if n != 1]
    out: dict[int, int] = {}
    i = j = 0
    while i < len(src_dims) and j < len(tgt):
        # grow a run on both sides until the element counts match
        run_start, tgt_start = i, j
        src_count, tgt_count = src_dims[i][0], tgt[j][1]
        while src_count != tgt_count:
            if src_count < tgt_count:
                i += 1
                if i == len(src_dims):
                    return None
                src_count *= src_dims[i][0]
            else:
                j += 1
                if j == len(tgt):
                    return None
                tgt_count *= tgt[j][1]
        run = src_dims[run_start : i + 1]
        for (_, outer), (inner_n, inner_s) in itertools.pairwise(run):
            if outer != inner_n * inner_s:
                return None
        step = run[-1][1]
        for k, n in reversed(tgt[tgt_start : j + 1]):
            out[k] = step
            step *= n
        i += 1
        j += 1
    if i != len(src_dims) or j != len(tgt):
        return None
    dense = contiguous_strides(target)
    strides = tuple(out.get(k, dense[k]) for k in range(len(target)))
    return Layout(tuple(target), strides, src.offset)


def broadcast(src: Layout, target: Shape) -> Layout:
    """`src` read as numpy broadcasts it to `target` (stride 0 on new and
    stretched dims)."""
    lead = len(target) - len(src.shape)
    strides = [0] * lead + [
        0 if n == 1 and t != 1 else s
        for n, s, t in zip(src.shape, src.strides, target[lead:])
    ]
    return Layout(target, tuple(strides), src.offset)


def view_layouts(op: Operation, src: Layout) -> list[Layout] | None:
    """Layouts of the results of view op `op` over a source with layout `src`,
    or None when `op` is not a view or the result needs a copy."""
    if isinstance(op, graph.ReshapeOp):
        result = reshaped(src, shape_of(op.result))
        return None if result is None else [result]
    if isinstance(op, graph.TransposeOp):
        perm = op.perm.get_values()
        return [
            Layout(
                tuple(src.shape[p] for p in perm),
                tuple(src.strides[p] for p in perm),
                src.offset,
            )
        ]
    if isinstance(op, graph.SliceOp):
        start, step = op.start.get_values(), op.step.get_values()
        offset = src.offset + sum(b * s for b, s in zip(start, src.strides))
        strides = tuple(s * k for s, k in zip(src.strides, step))
        return [Layout(shape_of(op.result), strides, offset)]
    if isinstance(op, graph.BroadcastToOp):
        return [broadcast(src, shape_of(op.result))]
    if isinstance(op, graph.SplitOp):
        dim = op.dim.value.data % len(src.shape)
        layouts: list[Layout] = []
        start = 0
        for result in op.outputs:
            offset = src.offset + start * src.strides[dim]
            layouts.append(Layout(shape_of(result), src.strides, offset))
            start += shape_of(result)[dim]
        return layouts
    return None


HOST_VIEW_OPS = graph.view_ops(strided=True)
"""Ops that stay on the host as buffer views when their layout allows it:
the strided views."""


def collapse(layout: Layout, start: int, stop: int) -> Layout | None:
    """Merge dims `[start, stop)` into one dim, or None when their strides do
    not form one arithmetic progression (size-1 dims are ignored)."""
    dims = [
        (n, s)
        for n, s in zip(layout.shape[start:stop], layout.strides[start:stop])
        if n != 1
    ]
    for (_, outer), (inner_n, inner_s) in itertools.pairwise(dims):
        if outer != inner_n * inner_s:
            return None
    size = prod(layout.shape[start:stop])
    stride = dims[-1][1] if dims else 0
    return Layout(
        layout.shape[:start] + (size,) + layout.shape[stop:],
        layout.strides[:start] + (stride,) + layout.strides[stop:],
        layout.offset,
    )


def row_major(layout: Layout) -> bool:
    """Is the innermost 2-D matrix row-major with a leading dimension (unit
    column stride, rows at least a row apart)?"""
    (rows, cols), (rs, cs) = layout.shape[-2:], layout.strides[-2:]
    return (cs == 1 or cols == 1) and (rs >= cols or rows == 1)


def gemm_operand(layout: Layout) -> bool:
    """Can cuBLAS read this 2-D matrix (row- or column-major with a leading
    dimension) without a copy?"""
    (rows, cols), (rs, cs) = layout.shape[-2:], layout.strides[-2:]
    col_major = (rs == 1 or rows == 1) and (cs >= rows or cols == 1)
    return row_major(layout) or col_major


def batched(layout: Layout, batch: Shape) -> Layout | None:
    """(batch..., rows, cols) merged into a 3-D (batch, rows, cols) view."""
    padded = Layout((1, *layout.shape), (0, *layout.strides), layout.offset)
    return collapse(padded, 0, len(batch) + 1)


def matmul_operand(layout: Layout, batch: Shape, lhs: bool) -> Layout | None:
    """The 3-D `(batch, rows, cols)` view cuBLAS reads for one matmul operand
    (1-D operands become a row or column matrix, batch dims broadcast with
    stride 0 and merge into one), or None when that view needs a copy."""
    if len(layout.shape) == 1:
        (n,), (s,) = layout.shape, layout.strides
        layout = (
            Layout((1, n), (n * s, s), layout.offset)
            if lhs
            else Layout((n, 1), (s, 1), layout.offset)
        )
    full = broadcast(layout, tuple(batch) + layout.shape[-2:])
    merged = batched(full, batch)
    if merged is None or not gemm_operand(merged):
        return None
    return merged
