"""Build one `gpu.func` kernel from one `graph.fusion_group`.

A group's tensors are never materialised inside the kernel: `value_at(v,
idx)` emits the scalar code computing element `idx` of tensor `v` on demand,
recursively (loads for group inputs, index remapping for views, the scalar
table for elementwise ops), memoised per region scope so a value used twice
in one loop body is computed once.

Two kernel shapes (see `fxdsl.transforms.fusibility`):

* *pointwise* (no reduction): one thread per element of the domain (the
  broadcast of the group's output shapes), grid-stride `scf.for`; each output
  is stored at the broadcast-mapped index (an output smaller than the domain
  is written several times with the same value, which is benign).
* *row* (reductions over the same trailing dims `(outer, inner)`): one block
  per row (grid-stride over rows); each reduction is a thread-strided
  `scf.for` with an f32 (or integer) accumulator followed by a block-wide
  `gpu.all_reduce` (region form: its combiner is the arith op in the body);
  then one thread-strided loop stores every full-row output, and thread 0
  stores the per-row outputs. Prologue and epilogue ops are recomputed inside
  these loops: the group stays one kernel. When the row is short enough and
  a block shape divides it (`resident_row`: 4096 floats are 256 threads x 4
  float4s), the loops are unrolled instead: each thread loads its part of
  the row once into registers and every statistic and the store reuse it
  (`value_at`'s memo), so the row is read from memory once, not once per
  statistic.

Both shapes are *vectorized* when the innermost dim of their domain (the
row for row kernels) is a multiple of `VECTOR_WIDTH`: each loop iteration
handles 4 consecutive elements (lanes), and a group input or output read or
written at the 4 lanes of a contiguous, 16-byte aligned f32 buffer uses one
`vector.load`/`vector.store` (`float4` in CUDA C) with `vector.extract`/
`vector.insert` per lane; every other access stays scalar. One 16-byte
access per thread instead of four 4-byte ones puts 4x the bytes in flight,
which is what a memory-bound kernel needs to reach the HBM bandwidth.

Reductions that do not share one trailing row space (column reductions,
softmax over a leading dim) lower in a pointwise kernel: the thread that needs
an element reduces its slice serially (`serial_reduce`); neighbouring threads
then read neighbouring addresses. What a reduction computes (statistics,
then an elementwise finish) is in `reductions.py`; how views, constants and
gathers read an element is in `value_rules.py`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Hashable, Sequence
from math import prod
from typing import Any

from xdsl.dialects import arith, gpu, memref, scf, vector
from xdsl.dialects.builtin import (
    Float32Type,
    IndexType,
    IntegerAttr,
    MemRefType,
    UnitAttr,
    VectorType,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.graph import dtype_of, shape_of
from fxdsl.ir.layout import contiguous_strides, layout_of_type
from fxdsl.ir.shape_rules import broadcast_shapes
from fxdsl.ir.utils import OpFailure
from fxdsl.lowering.combiners import combiner, domain, identity
from fxdsl.lowering.kernel_emitter import Index
from fxdsl.lowering.reductions import finish, reduction_stats
from fxdsl.lowering.scalar_ops import SCALAR_OPS, compute_type, constant_op
from fxdsl.lowering.value_rules import VALUE_RULES
from fxdsl.transforms.fusibility import SERIAL_REDUCTION_MAX, reduction_space

ROW_BLOCK = 256
POINTWISE_BLOCK = 256
MAX_GRID = 65535
VECTOR_WIDTH = 4
"""f32 lanes per 128-bit `vector.load`/`vector.store` (see `lane_positions`)."""
MAX_RESIDENT_STEPS = 8
"""Most loop steps per thread of a register-resident row (`resident_row`):
8 float4s, 32 registers per row input; a 4096-float row takes 4."""


class KernelBuilder:
    """Emits the body of one kernel; `emit` appends to the current block."""

    def __init__(
        self,
        name: str,
        group: graph.FusionGroupOp,
        arg_types: Sequence[Attribute],
        globals_out: list[Operation],
    ):
        self.group = group
        self.func = gpu.FuncOp(name, (list(arg_types), []), kernel=True)
        # what upstream's gpu.func always carries and xDSL's lacks: the kernel
        # marker, and the count of workgroup attributions (mlir-opt's
        # GPU-to-NVVM conversion crashed on a gpu.func without it)
        self.func.attributes["gpu.kernel"] = UnitAttr()
        self.func.attributes["workgroup_attributions"] = IntegerAttr(0, i64)
        self.entry = self.func.body.block
        self.block = self.entry
        n_in = len(group.inputs)
        self.inputs = dict(zip(group.body.block.args, self.entry.args[:n_in]))
        self.outputs = list(self.entry.args[n_in:])
        self.scopes: list[dict[Hashable, Any]] = [{}]
        """memo of emitted values per region (see `memo`), innermost last"""
        self.consts: dict[tuple[str, float | int], SSAValue] = {}
        self.const_ops: list[Operation] = []
        self.row_stats: dict[Operation, dict[str, SSAValue]] = {}
        self.globals_out = globals_out
        self.global_refs: dict[Operation, SSAValue] = {}
        self.launch: tuple[int, int] = (1, 1)
        self.lanes: dict[SSAValue, tuple[SSAValue, int]] = {}
        """innermost index of lane k -> (index of lane 0, k), see `lane_positions`"""

    # --- emission primitives ------------------------------------------------

    def emit(self, op: Operation) -> SSAValue:
        self.block.add_op(op)
        return op.results[0] if op.results else None  # type: ignore[return-value]

    def const(self, value: float | int, typ: Attribute) -> SSAValue:
        key = (str(typ), value)
        if key not in self.consts:
            op = constant_op(value, typ)
            self.const_ops.append(op)
            self.consts[key] = op.result
        return self.consts[key]

    def index(self, value: int) -> SSAValue:
        return self.const(value, IndexType())

    def memo(self, key: Hashable, make: Callable[[], Any]) -> Any:
        """`make()`'s result for `key`, emitted once per region scope: a value
        emitted in an enclosing region is reused (it dominates), one emitted
        in a sibling region (another loop body) is not."""
        for scope in reversed(self.scopes):
            if key in scope:
                return scope[key]
        result = make()
        self.scopes[-1][key] = result
        return result

    def _in_region(
        self, arg_types: Sequence[Attribute], body: Callable[[Block], None]
    ) -> Block:
        block = Block(arg_types=arg_types)
        saved, self.block = self.block, block
        self.scopes.append({})
        try:
            body(block)
        finally:
            self.scopes.pop()
            self.block = saved
        return block

    def loop(
        self,
        lower: SSAValue,
        upper: SSAValue,
        step: SSAValue,
        inits: Sequence[SSAValue],
        body: Callable[[SSAValue, list[SSAValue]], list[SSAValue]],
    ) -> list[SSAValue]:
        """`scf.for` with iteration arguments; `body(iv, carried) -> yields`."""

        def fill(block: Block) -> None:
            yields = body(block.args[0], list(block.args[1:]))
            self.emit(scf.YieldOp(*yields))

        types = [IndexType(), *(v.type for v in inits)]
        block = self._in_region(types, fill)
        op = scf.ForOp(lower, upper, step, list(inits), Region(block))
        self.block.add_op(op)
        return list(op.results)

    def when(self, cond: SSAValue, body: Callable[[], None]) -> None:
        def fill(_block: Block) -> None:
            body()
            self.emit(scf.YieldOp())

        self.emit(scf.IfOp(cond, [], Region(self._in_region([], fill))))

    def choose(
        self, cond: SSAValue, typ: Attribute, then: Callable[[], SSAValue],
        otherwise: Callable[[], SSAValue],
    ) -> SSAValue:  # fmt: skip
        regions = [
            Region(self._in_region([], lambda _b, f=f: self.emit(scf.YieldOp(f()))))
            for f in (then, otherwise)
        ]
        return self.emit(scf.IfOp(cond, [typ], regions[0], regions[1]))

    # --- index math ---------------------------------------------------------

    def delinearize(self, linear: SSAValue, shape: Sequence[int]) -> Index:
        indices: list[SSAValue] = []
        rest = linear
        # the outermost non-unit dim takes the rest (the loop bound keeps it in range)
        outermost = next((d for d, size in enumerate(shape) if size != 1), 0)
        for dim in reversed(range(len(shape))):
            size = shape[dim]
            if size == 1:
                indices.append(self.index(0))
            elif dim == outermost:
                indices.append(rest)
            else:
                indices.append(self.emit(arith.RemUIOp(rest, self.index(size))))
                rest = self.emit(arith.DivUIOp(rest, self.index(size)))
        return tuple(reversed(indices))

    def linearize(self, idx: Index, shape: Sequence[int]) -> SSAValue:
        total = self.index(0)
        for i, stride in zip(idx, contiguous_strides(shape)):
            term = i if stride == 1 else self.emit(arith.MuliOp(i, self.index(stride)))
            total = (
                term if total is self.index(0) else self.emit(arith.AddiOp(total, term))
            )
        return total

    def broadcast_index(self, idx: Index, to: Sequence[int]) -> Index:
        """The index into a tensor of shape `to` that numpy broadcasting reads
        for element `idx` of the (larger) result."""
        lead = len(idx) - len(to)
        return tuple(
            self.index(0) if size == 1 else idx[lead + k] for k, size in enumerate(to)
        )

    # --- values -------------------------------------------------------------

    def value_at(self, value: SSAValue, idx: Index) -> SSAValue:
        """Scalar element `idx` of group tensor `value`, in compute type."""
        return self.memo((value, idx), lambda: self._compute(value, idx))

    def load(self, buffer: SSAValue, idx: Index) -> SSAValue:
        lane = self.lanes.get(idx[-1]) if idx else None
        if lane is not None and vectorizable(buffer):
            base, k = lane
            packed = self.vector_load(buffer, (*idx[:-1], base))
            return self.emit(vector.ExtractOp(packed, [k], Float32Type()))
        loaded = self.emit(memref.LoadOp.get(buffer, list(idx)))
        if loaded.type != compute_type(loaded.type):
            return self.emit(arith.ExtFOp(loaded, compute_type(loaded.type)))
        return loaded

    def vector_load(self, buffer: SSAValue, idx: Index) -> SSAValue:
        """The `VECTOR_WIDTH` f32 elements from `idx` on of a `vectorizable`
        buffer, as one `vector.load` (once per region scope)."""
        typ = VectorType(Float32Type(), [VECTOR_WIDTH])
        return self.memo(
            ("vector", buffer, idx),
            lambda: self.emit(vector.LoadOp(buffer, list(idx), typ)),
        )

    def vector_store(
        self, values: Sequence[SSAValue], buffer: SSAValue, idx: Index
    ) -> None:
        """`buffer[idx:idx + VECTOR_WIDTH] = values` as one `vector.store`."""
        typ = VectorType(Float32Type(), [VECTOR_WIDTH])
        packed = self.emit(vector.BroadcastOp(values[0], typ))
        for k, lane_value in enumerate(values[1:], start=1):
            packed = self.emit(vector.InsertOp(lane_value, packed, [k]))
        self.emit(vector.StoreOp(packed, buffer, list(idx)))

    def store(self, value: SSAValue, buffer: SSAValue, idx: Index) -> None:
        assert isinstance(buffer.type, MemRefType)
        element = buffer.type.element_type
        if value.type != element:
            value = self.emit(arith.TruncFOp(value, element))
        self.emit(memref.StoreOp.get(value, buffer, list(idx)))

    def store_lanes(
        self, value: SSAValue, buffer: SSAValue, idx: Index, width: int
    ) -> None:
        """Store `value` at the `width` lanes of domain index `idx` (its
        innermost index is lane 0's): one `vector.store` where the buffer
        allows, one scalar store where every lane maps to one element (a
        broadcast output, or width 1), else a scalar store per lane."""
        positions = [
            self.broadcast_index(lane, shape_of(value))
            for lane in self.lane_positions(idx, width)
        ]
        if all(p == positions[0] for p in positions):
            self.store(self.value_at(value, positions[0]), buffer, positions[0])
            return
        values = [self.value_at(value, p) for p in positions]
        if positions[0][-1] is idx[-1] and vectorizable(buffer):
            self.vector_store(values, buffer, positions[0])
            return
        for lane_value, position in zip(values, positions):
            self.store(lane_value, buffer, position)

    def lane_positions(self, idx: Index, width: int) -> list[Index]:
        """The domain indices of the `width` lanes starting at `idx` (lane 0;
        its innermost index a multiple of the width). The innermost index of
        each lane of a vectorized step is registered in `lanes`, so that
        `load` and `store_lanes` recognise it; width 1 is `[idx]` (a scalar
        loop, also for rank-0 domains, whose index is empty)."""
        if width == 1:
            return [idx]
        return self.memo(("lanes", idx, width), lambda: self._lanes(idx, width))

    def _lanes(self, idx: Index, width: int) -> list[Index]:
        first = idx[-1]
        lanes = [first]
        lanes += [
            self.emit(arith.AddiOp(first, self.index(k))) for k in range(1, width)
        ]
        for k, lane in enumerate(lanes):
            self.lanes[lane] = (first, k)
        return [(*idx[:-1], lane) for lane in lanes]

    def _compute(self, value: SSAValue, idx: Index) -> SSAValue:
        if value in self.inputs:
            return self.load(self.inputs[value], idx)
        op = value.owner
        assert isinstance(op, Operation)
        if type(op) in SCALAR_OPS:
            args = [
                self.value_at(o, self.broadcast_index(idx, shape_of(o)))
                for o in op.operands
            ]
            return SCALAR_OPS[type(op)](self, args, op)
        if op in self.row_stats:
            return finish(self, op, self.row_stats[op], idx)
        if isinstance(op, graph.ReductionLike):
            return self._serial_op(op, idx)
        handler = VALUE_RULES.get(type(op))  # views, constants, gathers
        if handler is None:
            raise OpFailure(f"convert-groups-to-gpu: cannot lower {op.name} here", op)
        return handler(self, op, value, idx)

    # --- reductions -----------------------------------------------------------

    def accumulate(
        self, kind: str, typ: Attribute, bounds: tuple[SSAValue, SSAValue, SSAValue],
        positions: Callable[[SSAValue], list[Index]],
        element: Callable[[Index], SSAValue],
    ) -> SSAValue:  # fmt: skip
        """`scf.for j in bounds` folding `element(p)` for each `p` in
        `positions(j)` (in order) with the combiner of `kind` into one
        accumulator (f32 for floats)."""

        def body(j: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            return [self.fold(kind, typ, carried[0], positions(j), element)]

        identity = self._identity(kind, typ)
        (result,) = self.loop(*bounds, [identity], body)
        return result

    def fold(
        self, kind: str, typ: Attribute, acc: SSAValue, positions: list[Index],
        element: Callable[[Index], SSAValue],
    ) -> SSAValue:  # fmt: skip
        """`acc` combined (by `kind`) with `element(p)` for each of `positions`
        in order."""
        combine = combiner(kind, typ).op
        for position in positions:
            acc = self.emit(combine(acc, element(position)))  # type: ignore[call-arg]
        return acc

    def _identity(self, kind: str, typ: Attribute) -> SSAValue:
        return self.const(identity(kind, typ), typ)

    def block_reduce(
        self, kind: str, outer_idx: Index, inner: Sequence[int],
        element: Callable[[Index], SSAValue], typ: Attribute,
        owned: list[Index] | None,
    ) -> SSAValue:  # fmt: skip
        """Reduce `element(full index)` over one row: thread-strided partials,
        then a block-wide `gpu.all_reduce` (region form, upstream-valid for
        every combiner)."""
        width = self.width(inner)
        if owned is not None:  # the row is in registers: no loop
            partial = self._identity(kind, typ)
            for start in owned:
                lanes = self.lane_positions(start, width)
                partial = self.fold(kind, typ, partial, lanes, element)
        else:

            def positions(j: SSAValue) -> list[Index]:
                return self.lane_positions(
                    self.row_step(outer_idx, j, inner, width), width
                )

            units = self.index(prod(inner) // width)
            bounds = (self.thread_id, units, self.block_dim)
            partial = self.accumulate(kind, typ, bounds, positions, element)
        # warp shuffles move 32-bit values: an i1 partial crosses the block
        # as i32 0/1 (whose max and min are or and and)
        across = i32 if domain(typ) == "bool" else typ
        if across != typ:
            partial = self.emit(arith.ExtUIOp(partial, across))
        reducer = Block(arg_types=[across, across])
        combined = combiner(kind, across).op(*reducer.args)  # type: ignore[call-arg]
        reducer.add_ops([combined, gpu.YieldOp([combined.results[0]])])
        total = self.emit(
            gpu.AllReduceOp.from_body(Region(reducer), partial, UnitAttr())
        )
        return total if across == typ else self.emit(arith.TruncIOp(total, typ))

    def width(self, shape: Sequence[int]) -> int:
        """Lanes per loop step over `shape`: `VECTOR_WIDTH` when its innermost
        dim is a multiple of it, else 1 (one element per step)."""
        return VECTOR_WIDTH if shape and shape[-1] % VECTOR_WIDTH == 0 else 1

    def lane_start(self, step: SSAValue, width: int) -> SSAValue:
        """The linear element index of lane 0 of loop step `step`."""
        if width == 1:
            return step
        return self.emit(arith.MuliOp(step, self.index(width)))

    def serial_reduce(
        self, kind: str, base: dict[int, SSAValue], dims: Sequence[int],
        shape: Sequence[int], element: Callable[[Index], SSAValue], typ: Attribute,
    ) -> SSAValue:  # fmt: skip
        """Reduce `element(full index)` over `dims` in one thread (a column
        reduction: consecutive threads read consecutive addresses). A short
        one (`serial_reduction`) is unrolled with constant indices, so the
        lanes of a float4 step share each load (`vector_load` is memoized)."""
        extents = [shape[d] for d in dims]

        def full(reduced: Sequence[SSAValue]) -> Index:
            where = dict(base) | dict(zip(dims, reduced))
            return tuple(where[d] for d in range(len(shape)))

        if prod(extents) <= SERIAL_REDUCTION_MAX:
            unrolled = [
                full([self.index(i) for i in point])
                for point in itertools.product(*map(range, extents))
            ]
            return self.fold(kind, typ, self._identity(kind, typ), unrolled, element)

        def positions(j: SSAValue) -> list[Index]:
            return [full(self.delinearize(j, extents))]

        total = self.index(prod(extents))
        bounds = (self.index(0), total, self.index(1))
        return self.accumulate(kind, typ, bounds, positions, element)

    def row_step(
        self, outer_idx: Index, j: SSAValue, inner: Sequence[int], width: int
    ) -> Index:
        """The full index of lane 0 of loop step `j` along the row `outer_idx`."""
        return outer_idx + self.delinearize(self.lane_start(j, width), inner)

    def _prepare_row_op(
        self,
        op: Operation,
        outer_idx: Index,
        inner: Sequence[int],
        owned: list[Index] | None,
    ) -> None:
        """Per-row statistics of `op` with block-wide reductions."""
        typ = compute_type(dtype_of(op.operands[0]))

        def reduce(kind: str, f: Callable[[Index], SSAValue]) -> SSAValue:
            return self.block_reduce(kind, outer_idx, inner, f, typ, owned)

        self.row_stats[op] = reduction_stats(self, op, reduce, prod(inner))

    def _serial_op(self, op: graph.ReductionLike, idx: Index) -> SSAValue:
        """Element `idx` of a reduction-class op outside a row kernel: its
        statistics are reduced serially by the thread that needs them."""
        assert isinstance(op, Operation)
        shape = shape_of(op.operands[0])
        dims = op.reduced_dims()
        kept = [d for d in range(len(shape)) if d not in dims]
        dropped = not op.keeps_reduced_dims()
        kept_idx = (
            [idx[k] for k in range(len(kept))] if dropped else [idx[d] for d in kept]
        )
        base = dict(zip(kept, kept_idx))
        typ = compute_type(dtype_of(op.operands[0]))

        def reduce(kind: str, f: Callable[[Index], SSAValue]) -> SSAValue:
            return self.serial_reduce(kind, base, dims, shape, f, typ)

        stats = self.memo(
            (op.results[0], ("stats", *kept_idx)),
            lambda: reduction_stats(self, op, reduce, prod(shape[d] for d in dims)),
        )
        return finish(self, op, stats, idx)

    # --- kernels ------------------------------------------------------------

    def hardware(self) -> None:
        """Emit the thread, block and grid ids and sizes (dimension x) kernels
        index with: `thread_id`, `block_dim`, `block_id`, `grid_dim`."""
        x = gpu.DimensionAttr(gpu.DimensionEnum.X)
        self.thread_id = self.emit(gpu.ThreadIdOp(x))
        self.block_dim = self.emit(gpu.BlockDimOp(x))
        self.block_id = self.emit(gpu.BlockIdOp(x))
        self.grid_dim = self.emit(gpu.GridDimOp(x))

    def _yields(self) -> list[tuple[SSAValue, SSAValue]]:
        return list(zip(self.group.yield_op.values, self.outputs))

    def build_pointwise(self) -> None:
        yields = self._yields()
        domain = broadcast_shapes(*(shape_of(v) for v, _ in yields))
        total = prod(domain)
        self.hardware()
        first = self.emit(arith.AddiOp(
            self.emit(arith.MuliOp(self.block_id, self.block_dim)), self.thread_id
        ))  # fmt: skip
        stride = self.emit(arith.MuliOp(self.grid_dim, self.block_dim))

        width = self.width(domain)

        def body(i: SSAValue, _carried: list[SSAValue]) -> list[SSAValue]:
            idx = self.delinearize(self.lane_start(i, width), domain)
            for value, buffer in yields:
                self.store_lanes(value, buffer, idx, width)
            return []

        units = total // width
        self.loop(first, self.index(units), stride, [], body)
        blocks = min(max(1, -(-units // POINTWISE_BLOCK)), MAX_GRID)
        self.launch = (blocks, POINTWISE_BLOCK)

    def build_row(self, outer: Sequence[int], inner: Sequence[int]) -> None:
        yields = self._yields()
        reductions = [op for op in self.group.body.block.ops if reduction_space(op)]
        self.hardware()
        rank = len(outer) + len(inner)
        width = self.width(inner)
        units = prod(inner) // width
        resident = resident_row(units)
        # a looping row: as many whole warps as steps, up to ROW_BLOCK
        threads, steps = resident or (min(ROW_BLOCK, max(32, -(-units // 32) * 32)), 0)

        def row(r: SSAValue, _carried: list[SSAValue]) -> list[SSAValue]:
            outer_idx = self.delinearize(r, outer)
            owned = None
            if resident is not None:  # steps known: unrolled, values reused
                owned = [
                    self.row_step(outer_idx, j, inner, width)
                    for j in self._thread_steps(threads, steps)
                ]
            for op in reductions:
                self._prepare_row_op(op, outer_idx, inner, owned)
            full_row = [(v, b) for v, b in yields if _spans_inner(v, inner, rank)]
            per_row = [(v, b) for v, b in yields if (v, b) not in full_row]

            def store_at(full: Index) -> None:
                for value, buffer in full_row:
                    self.store_lanes(value, buffer, full, width)

            def store_full(j: SSAValue, _c: list[SSAValue]) -> list[SSAValue]:
                store_at(self.row_step(outer_idx, j, inner, width))
                return []

            if full_row and owned is not None:
                for full in owned:
                    store_at(full)
            elif full_row:
                bounds = (self.thread_id, self.index(units), self.block_dim)
                self.loop(*bounds, [], store_full)

            def store_per_row() -> None:
                full = outer_idx + tuple(self.index(0) for _ in inner)
                for value, buffer in per_row:
                    rank_v = len(shape_of(value))
                    position = (
                        outer_idx[:rank_v] if rank_v < rank and rank_v == len(outer)
                        else self.broadcast_index(full, shape_of(value))
                    )  # fmt: skip
                    self.store(self.value_at(value, position), buffer, position)

            if per_row:
                is_first = self.emit(arith.CmpiOp(self.thread_id, self.index(0), "eq"))
                self.when(is_first, store_per_row)
            return []

        rows = prod(outer)
        self.loop(self.block_id, self.index(rows), self.grid_dim, [], row)
        self.launch = (min(max(rows, 1), MAX_GRID), threads)

    def _thread_steps(self, threads: int, steps: int) -> list[SSAValue]:
        """The loop steps `thread_id + k * threads` (k < steps) one thread of
        a register-resident row owns, in the order the loop would visit them
        (so partial sums round as in the loop form)."""
        return [self.thread_id] + [
            self.emit(arith.AddiOp(self.thread_id, self.index(k * threads)))
            for k in range(1, steps)
        ]

    def finish(self) -> gpu.FuncOp:
        self.emit(gpu.ReturnOp([]))
        first = self.entry.first_op
        for op in self.const_ops:
            if not op.results[0].uses:
                continue  # asked for, then not needed (e.g. a folded index)
            self.entry.insert_op_before(op, first)  # type: ignore[arg-type]
        return self.func


def resident_row(units: int) -> tuple[int, int] | None:
    """(threads, steps) when a row of `units` loop steps (float4s or
    elements) can be held in registers: a block of `threads` (a multiple of
    32, at most ROW_BLOCK, as many as divide the row) covers it in `steps`
    <= MAX_RESIDENT_STEPS steps each, with no thread idle in any step. Then
    the kernel is unrolled: each thread loads its elements once, and every
    statistic and the store reuse them (one HBM read of the row instead of
    one per statistic). None: the row is too long, or no such block exists
    (e.g. 16 steps), and the kernel loops (reloading from L2/HBM); or the
    row is empty (a loop of no steps, where a resident row would load one)."""
    if units == 0:
        return None
    for threads in range(ROW_BLOCK, 31, -32):
        if units % threads == 0 and units // threads <= MAX_RESIDENT_STEPS:
            return threads, units // threads
    return None


def vectorizable(buffer: SSAValue) -> bool:
    """Can 4 consecutive innermost elements of `buffer` (from a multiple of 4)
    be one aligned 16-byte access? f32, innermost stride 1 and size a
    multiple of 4, every other stride and the offset multiples of 4 (the
    runtime passes 16-byte aligned base pointers)."""
    typ = buffer.type
    if not isinstance(typ, MemRefType) or not isinstance(typ.element_type, Float32Type):
        return False
    layout = layout_of_type(typ)  # type: ignore[arg-type]
    if not layout.shape or layout.strides[-1] != 1:
        return False
    if layout.shape[-1] % VECTOR_WIDTH or layout.offset % VECTOR_WIDTH:
        return False
    return all(
        stride % VECTOR_WIDTH == 0
        for size, stride in zip(layout.shape[:-1], layout.strides[:-1])
        if size != 1
    )


def _spans_inner(value: SSAValue, inner: Sequence[int], rank: int) -> bool:
    """Does an output of a row kernel vary along the reduced (inner) dims?"""
    shape = shape_of(value)
    row_reduction = reduction_space(value.owner) is not None  # type: ignore[arg-type]
    if len(shape) < rank and row_reduction:
        return False  # a row reduction that dropped its dims: one value per row
    tail = shape[-len(inner) :] if len(shape) >= len(inner) else shape
    return any(size != 1 for size in tail)
