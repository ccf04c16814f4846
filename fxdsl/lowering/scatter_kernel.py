"""The kernel of a `graph.index_copy` written in place: a scatter.

`graph-bufferize` may give an index_copy's result the buffer of its input
(`in_place_input`: a function argument marked `bufferization.writable`
that nothing else reads, a static KV cache). Then the rows the op does
not replace are already where they belong, and the kernel only writes the
new ones: one thread per element of the source, grid-stride,

    out[..., index[k], ...] = source[..., k, ...]

so a decode step moves the new key/value rows (batch x heads x 1 x head
dim elements), not the whole cache. The functional form (a fresh buffer,
every element written) is a pointwise kernel through `value_rules`.
Where an index repeats, threads race (as torch's `index_copy_` on a GPU
leaves the result unspecified).
"""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType
from xdsl.ir import BlockArgument, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.graph import shape_of
from fxdsl.lowering.kernel_builder import MAX_GRID, POINTWISE_BLOCK, KernelBuilder


def lone_index_copy(group: graph.FusionGroupOp) -> tuple[graph.IndexCopyOp, int] | None:
    """(the op, the group input it copies) when `group` is one
    `graph.index_copy` of a group input, yielded as the group's one output:
    the groups whose output may take the input's buffer."""
    ops = list(group.body.block.ops)
    if len(ops) != 2 or not isinstance(ops[0], graph.IndexCopyOp):
        return None
    copy = ops[0]
    source = copy.input
    if not isinstance(source, BlockArgument) or source.owner is not group.body.block:
        return None
    if group.yield_op.values != (copy.result,):
        return None
    return copy, source.index


def scatter_op(
    group: graph.FusionGroupOp, buffers: list[SSAValue]
) -> graph.IndexCopyOp | None:
    """The group's index_copy when bufferization wrote it in place: a
    `lone_index_copy` whose output buffer is its input's (`buffers`: the
    kernel's, inputs then outputs); else None."""
    found = lone_index_copy(group)
    if found is None:
        return None
    copy, position = found
    return copy if buffers[position] is buffers[len(group.inputs)] else None


def build_scatter(builder: KernelBuilder, op: graph.IndexCopyOp) -> None:
    """Write the source's slices at their positions of the output buffer."""
    shape = shape_of(op.source)
    dim = op.dim.value.data
    out = builder.outputs[0]
    builder.hardware()
    first = builder.emit(arith.AddiOp(
        builder.emit(arith.MuliOp(builder.block_id, builder.block_dim)),
        builder.thread_id,
    ))  # fmt: skip
    stride = builder.emit(arith.MuliOp(builder.grid_dim, builder.block_dim))

    def body(i: SSAValue, _carried: list[SSAValue]) -> list[SSAValue]:
        idx = builder.delinearize(i, shape)
        position = builder.value_at(op.index, (idx[dim],))
        row = builder.emit(arith.IndexCastOp(position, IndexType()))
        target = (*idx[:dim], row, *idx[dim + 1 :])
        builder.store(builder.value_at(op.source, idx), out, target)
        return []

    total = prod(shape)
    builder.loop(first, builder.index(total), stride, [], body)
    blocks = min(max(1, -(-total // POINTWISE_BLOCK)), MAX_GRID)
    builder.launch = (blocks, POINTWISE_BLOCK)
