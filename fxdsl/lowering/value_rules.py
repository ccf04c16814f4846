"""How one element of a non-elementwise op's result is read inside a kernel:
views are index remappings (reshape, transpose, slice, broadcast_to, split),
concat selects a piece, gather/embedding/index load their index first, constants
are literals (splats) or `__device__` arrays (`memref.global` in the
`gpu.module`), random numbers are Philox of the linear index
(`random_rule.py`). One rule per op in `VALUE_RULES`.
"""

from __future__ import annotations

from collections.abc import Callable

from xdsl.dialects import arith, memref
from xdsl.dialects.builtin import AnyFloat, IndexType, MemRefType, StringAttr, UnitAttr
from xdsl.ir import Operation, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.graph import dtype_of, shape_of
from fxdsl.lowering.kernel_emitter import Index, KernelEmitter
from fxdsl.lowering.random_rule import random_element
from fxdsl.lowering.scalar_ops import compute_type, convert

ValueRule = Callable[[KernelEmitter, Operation, SSAValue, Index], SSAValue]


def _reshape(b: KernelEmitter, op: Operation, value: SSAValue, idx: Index) -> SSAValue:
    source = op.operands[0]
    src, dst = shape_of(source), shape_of(value)
    # Trailing dims both shapes share pass through (row-major: the outer dims
    # carry the rest), so the innermost index, and a float4 lane, survives.
    kept = 0
    while kept < min(len(src), len(dst)) and src[-1 - kept] == dst[-1 - kept]:
        kept += 1
    outer_dst, outer_src = dst[: len(dst) - kept], src[: len(src) - kept]
    head = tuple(idx[: len(outer_dst)])
    # once per outer index: the lanes of a float4 step share it (and its load)
    outer = b.memo(
        ("reshape", head, outer_dst, outer_src),
        lambda: b.delinearize(b.linearize(head, outer_dst), outer_src),
    )
    return b.value_at(source, (*outer, *idx[len(outer_dst) :]))


def _transpose(b: KernelEmitter, op: Operation, _v: SSAValue, idx: Index) -> SSAValue:
    assert isinstance(op, graph.TransposeOp)
    source_idx: list[SSAValue] = list(idx)
    for i, p in enumerate(op.perm.get_values()):
        source_idx[p] = idx[i]
    return b.value_at(op.input, tuple(source_idx))


def _slice(b: KernelEmitter, op: Operation, _v: SSAValue, idx: Index) -> SSAValue:
    assert isinstance(op, graph.SliceOp)
    source_idx: list[SSAValue] = []
    for i, start, step in zip(idx, op.start.get_values(), op.step.get_values()):
        if step != 1:
            i = b.emit(arith.MuliOp(i, b.index(step)))
        if start != 0:
            i = b.emit(arith.AddiOp(i, b.index(start)))
        source_idx.append(i)
    return b.value_at(op.input, tuple(source_idx))


def _broadcast_to(
    b: KernelEmitter, op: Operation, _v: SSAValue, idx: Index
) -> SSAValue:
    source = op.operands[0]
    return b.value_at(source, b.broadcast_index(idx, shape_of(source)))


def _split(b: KernelEmitter, op: Operation, value: SSAValue, idx: Index) -> SSAValue:
    assert isinstance(op, graph.SplitOp)
    dim = op.dim.value.data % len(idx)
    offset = sum(op.sizes.get_values()[: op.results.index(value)])  # type: ignore[arg-type]
    shifted = list(idx)
    if offset:
        shifted[dim] = b.emit(arith.AddiOp(idx[dim], b.index(offset)))
    return b.value_at(op.input, tuple(shifted))


def _concat(b: KernelEmitter, op: Operation, value: SSAValue, idx: Index) -> SSAValue:
    assert isinstance(op, graph.ConcatOp)
    dim = op.dim.value.data % len(idx)
    pieces = list(op.inputs)
    typ = compute_type(dtype_of(value))

    def piece(k: int, start: int) -> SSAValue:
        shifted = list(idx)
        if start:
            shifted[dim] = b.emit(arith.SubiOp(idx[dim], b.index(start)))
        return b.value_at(pieces[k], tuple(shifted))

    def select(k: int, start: int) -> SSAValue:
        if k == len(pieces) - 1:
            return piece(k, start)
        end = start + shape_of(pieces[k])[dim]
        inside = b.emit(arith.CmpiOp(idx[dim], b.index(end), "ult"))
        return b.choose(
            inside, typ, lambda: piece(k, start), lambda: select(k + 1, end)
        )

    return select(0, 0)


def _gather(b: KernelEmitter, op: Operation, _v: SSAValue, idx: Index) -> SSAValue:
    assert isinstance(op, graph.GatherOp)
    position = b.emit(arith.IndexCastOp(b.value_at(op.index, idx), IndexType()))
    source_idx = list(idx)
    source_idx[op.dim.value.data % len(idx)] = position
    return b.value_at(op.input, tuple(source_idx))


def _embedding(b: KernelEmitter, op: Operation, _v: SSAValue, idx: Index) -> SSAValue:
    assert isinstance(op, graph.EmbeddingOp)
    row = b.emit(arith.IndexCastOp(b.value_at(op.indices, idx[:-1]), IndexType()))
    return b.value_at(op.weight, (row, idx[-1]))


def _index(b: KernelEmitter, op: Operation, _v: SSAValue, idx: Index) -> SSAValue:
    assert isinstance(op, graph.IndexOp)
    dims, shape = op.dim_list, shape_of(op.input)
    rank = len(shape_of(op.result)) - len(shape) + len(dims)  # of the indices
    adjacent = dims[-1] - dims[0] + 1 == len(dims)
    start = dims[0] if adjacent else 0
    positions, kept = idx[start : start + rank], [*idx[:start], *idx[start + rank :]]
    source: list[SSAValue] = []
    for dim, size in enumerate(shape):
        if dim not in dims:
            source.append(kept.pop(0))
            continue
        index = op.indices[dims.index(dim)]
        value = b.value_at(index, b.broadcast_index(positions, shape_of(index)))
        # a negative index counts from the end (in the index's own type)
        negative = b.emit(arith.CmpiOp(value, b.const(0, value.type), "slt"))
        wrapped = b.emit(arith.AddiOp(value, b.const(size, value.type)))
        value = b.emit(arith.SelectOp(negative, wrapped, value))
        source.append(b.emit(arith.IndexCastOp(value, IndexType())))
    return b.value_at(op.input, tuple(source))


def _over_index(
    b: KernelEmitter,
    op: graph.IndexUpdate,
    value: SSAValue,
    idx: Index,
    update: Callable[[SSAValue, Index], SSAValue],
) -> SSAValue:
    """Element `idx` of an index_copy/index_add: the input's, then
    `update(carried, source position)` for each `k` (in order) whose
    `index[k]` is `idx[dim]`. One thread per result element walks the whole
    index: no atomics, so the result is deterministic and in the
    reference's order, at the cost of reading the index once per element."""
    dim, typ = op.dim.value.data, compute_type(dtype_of(value))

    def step(k: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
        position = b.emit(arith.IndexCastOp(b.value_at(op.index, (k,)), IndexType()))
        hit = b.emit(arith.CmpiOp(position, idx[dim], "eq"))
        source = (*idx[:dim], k, *idx[dim + 1 :])
        kept = lambda: carried[0]
        return [b.choose(hit, typ, lambda: update(carried[0], source), kept)]

    start = b.value_at(op.input, idx)
    bounds = (b.index(0), b.index(shape_of(op.index)[0]), b.index(1))
    return b.loop(*bounds, [start], step)[0]


def _index_copy(
    b: KernelEmitter, op: Operation, value: SSAValue, idx: Index
) -> SSAValue:
    """The functional form (a new buffer): the source's slice `k` for the
    last `k` whose `index[k]` is `idx[dim]`, else the input's. Where the
    input's buffer may be written in place, the group is a scatter kernel
    instead (`scatter_kernel.py`)."""
    assert isinstance(op, graph.IndexCopyOp)
    return _over_index(b, op, value, idx, lambda _, at: b.value_at(op.source, at))


def _index_add(
    b: KernelEmitter, op: Operation, value: SSAValue, idx: Index
) -> SSAValue:
    """The input's element plus the source's slices `index` names for it,
    each sum rounded to a 16-bit type as the reference rounds it. With an
    `order` (a stable argsort of the index), only the entries naming this
    element's position are visited (`_sorted_entries`), in index order."""
    assert isinstance(op, graph.IndexAddOp)
    dtype = dtype_of(value)
    add = arith.AddfOp if isinstance(compute_type(dtype), AnyFloat) else arith.AddiOp

    def added(carried: SSAValue, at: Index) -> SSAValue:
        total = b.emit(add(carried, b.value_at(op.source, at)))
        return convert(b, total, dtype)

    if op.order is None:
        return _over_index(b, op, value, idx, added)
    order, dim = op.order, op.dim.value.data
    lower, upper = b.memo(
        ("index_add", op, idx[dim]), lambda: _sorted_entries(b, op, idx[dim])
    )

    def step(j: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
        k = b.emit(arith.IndexCastOp(b.value_at(order, (j,)), IndexType()))
        return [added(carried[0], (*idx[:dim], k, *idx[dim + 1 :]))]

    start = b.value_at(op.input, idx)
    return b.loop(lower, upper, b.index(1), [start], step)[0]


def _sorted_entries(
    b: KernelEmitter, op: graph.IndexAddOp, position: SSAValue
) -> tuple[SSAValue, SSAValue]:
    """[lower, upper): the entries of `order` whose index is `position`,
    by two binary searches over the sorted index, `bit_length(count)` steps
    of a fixed loop (each step at least halves a non-empty range)."""
    assert op.order is not None
    count = shape_of(op.index)[0]
    last, one = b.index(max(count - 1, 0)), b.index(1)

    def halve(_i: SSAValue, bounds: list[SSAValue]) -> list[SSAValue]:
        halved: list[SSAValue] = []
        for lo, hi, relation in ((*bounds[:2], "slt"), (*bounds[2:], "sle")):
            mid = b.emit(arith.DivUIOp(b.emit(arith.AddiOp(lo, hi)), b.index(2)))
            # the load stays in bounds once the range is empty (lo = count)
            at = b.emit(arith.MinSIOp(mid, last))
            entry = b.emit(arith.IndexCastOp(b.value_at(op.order, (at,)), IndexType()))
            key = b.emit(arith.IndexCastOp(b.value_at(op.index, (entry,)), IndexType()))
            right = b.emit(arith.CmpiOp(key, position, relation))
            open_ = b.emit(arith.CmpiOp(lo, hi, "slt"))
            up = b.emit(arith.AndIOp(right, open_))
            halved.append(
                b.emit(arith.SelectOp(up, b.emit(arith.AddiOp(mid, one)), lo))
            )
            halved.append(b.emit(arith.SelectOp(right, hi, mid)))
        return halved

    steps = (b.index(0), b.index(count.bit_length()), one)
    start = [b.index(0), b.index(count)] * 2
    lower, _, upper, _ = b.loop(*steps, start, halve)
    return lower, upper


def _full(b: KernelEmitter, op: Operation, value: SSAValue, _idx: Index) -> SSAValue:
    assert isinstance(op, graph.FullOp)
    typ = compute_type(dtype_of(value))
    number = op.value.value.data
    return b.const(number if isinstance(typ, AnyFloat) else int(number), typ)


def _constant(b: KernelEmitter, op: Operation, value: SSAValue, idx: Index) -> SSAValue:
    assert isinstance(op, graph.ConstantOp)
    typ = compute_type(dtype_of(value))
    data = op.value.get_values()
    if len(set(data)) == 1:
        return b.const(data[0] if isinstance(typ, AnyFloat) else int(data[0]), typ)
    if op not in b.global_refs:
        # a non-splat literal lives in the gpu.module as a constant global
        name = f"{b.func.sym_name.data}_cst{len(b.global_refs)}"
        mtype = MemRefType(dtype_of(value), shape_of(value))
        b.globals_out.append(memref.GlobalOp.get(
            StringAttr(name), mtype, op.value, constant=UnitAttr()
        ))  # fmt: skip
        get = memref.GetGlobalOp(name, mtype)
        b.const_ops.append(get)
        b.global_refs[op] = get.memref
    return b.load(b.global_refs[op], idx)


VALUE_RULES: dict[type[Operation], ValueRule] = {
    graph.ReshapeOp: _reshape,
    graph.TransposeOp: _transpose,
    graph.SliceOp: _slice,
    graph.BroadcastToOp: _broadcast_to,
    graph.SplitOp: _split,
    graph.ConcatOp: _concat,
    graph.GatherOp: _gather,
    graph.EmbeddingOp: _embedding,
    graph.IndexOp: _index,
    graph.IndexCopyOp: _index_copy,
    graph.IndexAddOp: _index_add,
    graph.FullOp: _full,
    graph.ConstantOp: _constant,
    graph.RandomOp: random_element,
}
"""Non-elementwise op -> how an element of its result is read."""
