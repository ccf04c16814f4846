"""The kernel of a `graph.attention` group: fused attention with an online
softmax (the flash-attention recurrence), so the (T, S) scores never reach
memory.

One thread per query row; a block is a tile of `BLOCK` consecutive rows of
one sequence (grid-stride over tiles, the latest rows, which a causal mask
makes the most expensive, first). The thread loads its query row once, pre-scaled, into
registers, then walks the keys `KEYS_PER_STEP` at a time in one `scf.for`
whose iteration arguments are the running max `m`, the running sum `l` and
the output row `o` (dv floats):

    s_c   = q . k[j + c]                   (masked to -inf past the last key)
    m'    = max(m, s_0 .. s_3)
    o     = o * exp2(m - m') + sum_c exp2(s_c - m') * v[j + c]
    l     = l * exp2(m - m') + sum_c exp2(s_c - m')

with q pre-scaled by `scale * log2(e)`, so the scores are in base 2,
and stores `o / l`. A mask operand (i1, or additive) is read per (row,
key) where it broadcasts from (`(B, 1, 1, S)` padding: one element per
key): false or -inf makes s_c = -inf. Then a whole step may be masked
(m' = -inf: the exponents subtract 0, not -inf) and a row may keep no key
at all (l = 0: it stores zeros, as torch's SDPA and the reference do).

A causal row t stops after key t, so causal attention does about half
the work of the unfused product. The threads of a warp read the same key
and value rows in the same step (a broadcast load, from L1 after the first
warp), so q, k and v are each read from memory about once; each dot
product is split into `PARTIAL_SUMS` interleaved partial sums so
consecutive FMAs do not wait on each other. Inputs are strided views (the
heads of a fused qkv projection read in place); float4 loads where a row is
contiguous and aligned (`vectorizable`). Compute is f32 for every float
type.

Registers: d + dv + a few dozen floats per thread (168 at d = dv = 64 for
sm_90), so this suits head dims up to about 128; beyond that the row spills
to local memory but stays correct.
"""

from __future__ import annotations

from collections.abc import Sequence
from math import prod

from xdsl.dialects import arith, math, vector
from xdsl.dialects.builtin import DenseArrayBase, Float32Type, IntegerAttr, i32
from xdsl.ir import BlockArgument, SSAValue

from fxdsl.ir import graph
from fxdsl.ir.graph import shape_of
from fxdsl.ir.utils import OpFailure
from fxdsl.lowering.base2 import FLT_MAX, LOG2_E
from fxdsl.lowering.cuda_printer import MIN_BLOCKS_ATTR
from fxdsl.lowering.kernel_builder import (
    MAX_GRID,
    VECTOR_WIDTH,
    KernelBuilder,
    vectorizable,
)
from fxdsl.lowering.value_rules import Index
from fxdsl.transforms.fusibility import attention_fusible

BLOCK = 64
"""Threads per block: one query row each, a tile of consecutive rows of one
sequence (so a warp reads the same key rows). Small blocks let the block
scheduler balance causal rows, whose cost grows with t; tiles are issued
heaviest first."""
KEYS_PER_STEP = 4
"""Keys per loop step: the rescale of `o` is paid once per step, not per key."""
PARTIAL_SUMS = 4
"""Independent partial sums per dot product."""
MIN_BLOCKS_PER_SM: int | None = None
"""None: ptxas picks the registers (179 at d = dv = 64 with a q prologue,
sm_90: 5 blocks of 64 per SM; 168 without one: 6). A number M asks for
`__launch_bounds__(BLOCK, M)` (`nvvm.minctasm`), trading spills for
occupancy (M = 6: 168 registers and 8 bytes of spill with the prologue).
`benchmarks/bench_attention.py --bias` times both; until a GPU run decides,
the default is ptxas's choice."""


def attention_op(group: graph.FusionGroupOp) -> graph.AttentionOp | None:
    """The group's attention op when it has one: then the group is an
    attention kernel (`build_attention`), possibly with an elementwise
    prologue on the query and an epilogue on the result
    (`fusibility.attention_fusible`)."""
    for op in group.body.block.ops:
        if isinstance(op, graph.AttentionOp):
            return op
    return None


def _operand_row(
    builder: KernelBuilder, value: SSAValue, prefix: Index, size: int
) -> list[SSAValue]:
    """Elements `value[*prefix, 0:size]` of an attention operand: a group
    input read as a row, or a prologue computed element by element (its
    inputs still read as float4s, see `_register_lanes`)."""
    if isinstance(value, BlockArgument) and value in builder.inputs:
        return _row(builder, builder.inputs[value], prefix, size)
    return [builder.value_at(value, (*prefix, builder.index(d))) for d in range(size)]


def _register_lanes(builder: KernelBuilder, size: int) -> None:
    """Make the constant row positions 0..size-1 lanes of float4 steps, so
    that `KernelBuilder.load` reads a prologue's or epilogue's row inputs
    4 elements at a time (where the buffer allows, `vectorizable`)."""
    if size % VECTOR_WIDTH:
        return
    for d in range(size):
        start = builder.index(d - d % VECTOR_WIDTH)
        builder.lanes[builder.index(d)] = (start, d % VECTOR_WIDTH)


def _row(
    builder: KernelBuilder, buffer: SSAValue, prefix: Index, size: int
) -> list[SSAValue]:
    """Elements `buffer[*prefix, 0:size]` as f32 scalars (float4 loads when
    the buffer allows)."""
    if size % VECTOR_WIDTH or not vectorizable(buffer):
        return [builder.load(buffer, (*prefix, builder.index(d))) for d in range(size)]
    values: list[SSAValue] = []
    for start in range(0, size, VECTOR_WIDTH):
        packed = builder.vector_load(buffer, (*prefix, builder.index(start)))
        values += [
            builder.emit(vector.ExtractOp(packed, [k], Float32Type()))
            for k in range(VECTOR_WIDTH)
        ]
    return values


def _store_row(
    builder: KernelBuilder, values: list[SSAValue], buffer: SSAValue, prefix: Index
) -> None:
    """`buffer[*prefix, :] = values` (float4 stores when the buffer allows)."""
    if len(values) % VECTOR_WIDTH or not vectorizable(buffer):
        for d, value in enumerate(values):
            builder.store(value, buffer, (*prefix, builder.index(d)))
        return
    for start in range(0, len(values), VECTOR_WIDTH):
        chunk = values[start : start + VECTOR_WIDTH]
        builder.vector_store(chunk, buffer, (*prefix, builder.index(start)))


def _dot(
    builder: KernelBuilder, a: Sequence[SSAValue], b: Sequence[SSAValue]
) -> SSAValue:
    """sum(a * b) in `PARTIAL_SUMS` interleaved partial sums, then added."""
    partial: list[SSAValue | None] = [None] * PARTIAL_SUMS
    for d, (x, y) in enumerate(zip(a, b)):
        product = builder.emit(arith.MulfOp(x, y))
        lane = d % PARTIAL_SUMS
        acc = partial[lane]
        partial[lane] = (
            product if acc is None else builder.emit(arith.AddfOp(acc, product))
        )
    sums = [p for p in partial if p is not None]
    total = sums[0]
    for p in sums[1:]:
        total = builder.emit(arith.AddfOp(total, p))
    return total


def _finite_or_zero(builder: KernelBuilder, x: SSAValue) -> SSAValue:
    """`x`, or 0 where `x` is -inf."""
    b = builder
    is_inf = b.emit(arith.CmpfOp(x, b.const(float("-inf"), Float32Type()), "oeq"))
    return b.emit(arith.SelectOp(is_inf, b.const(0.0, Float32Type()), x))


def _base2(builder: KernelBuilder, bias: SSAValue) -> SSAValue:
    """An additive mask element in the kernel's base-2 scores: `bias *
    log2(e)`, at least -FLT_MAX for a finite bias (torch's `finfo.min`
    would overflow to -inf and turn a row of equal very negative scores,
    which softmax averages, into a row of no keys), -inf for -inf."""
    b, f32 = builder, Float32Type()
    scaled = b.emit(arith.MulfOp(bias, b.const(LOG2_E, f32)))
    floor = b.emit(arith.MaximumfOp(scaled, b.const(-FLT_MAX, f32)))
    is_inf = b.emit(arith.CmpfOp(bias, b.const(float("-inf"), f32), "oeq"))
    return b.emit(arith.SelectOp(is_inf, scaled, floor))


def build_attention(
    builder: KernelBuilder, op: graph.AttentionOp, block: int | None = None
) -> None:
    """Emit the kernel of the group around `op` (module docstring), `block`
    threads (query rows) a tile (default: the module's `BLOCK`, read at the
    call, so the benchmark's knob applies); the group must be one
    `graph-fuse` may build (`attention_fusible`)."""
    block = BLOCK if block is None else block
    if not attention_fusible(builder.group.body.block.ops):
        raise OpFailure(
            "convert-groups-to-gpu: a fusion group with a graph.attention may "
            "hold only elementwise ops computing its query and elementwise "
            "ops of its result's shape computed from it",
            op,
        )
    q_shape, v_shape = shape_of(op.query), shape_of(op.value)
    batch, rows_per_batch, head = q_shape[:-2], q_shape[-2], q_shape[-1]
    keys, dv = v_shape[-2], v_shape[-1]
    f32 = Float32Type()
    b = builder
    b.hardware()
    _register_lanes(b, max(head, dv))
    sequences = prod(batch)
    tiles_per_sequence = -(-rows_per_batch // block)
    tiles = sequences * tiles_per_sequence
    # scores in base 2: exp(x) = exp2(x * log2(e)), the factor folded into q
    scale = b.const(op.scale_value * LOG2_E, f32)
    neg_inf = b.const(float("-inf"), f32)
    last_key = b.index(keys - 1)

    def tile(n: SSAValue, _carried: list[SSAValue]) -> list[SSAValue]:
        # heaviest tiles first: tile n covers rows of tile index (last - n // sequences)
        order = b.emit(arith.DivUIOp(n, b.index(sequences)))
        sequence = b.emit(arith.RemUIOp(n, b.index(sequences)))
        first_row = b.emit(arith.MuliOp(
            b.emit(arith.SubiOp(b.index(tiles_per_sequence - 1), order)), b.index(block)
        ))  # fmt: skip
        t = b.emit(arith.AddiOp(first_row, b.thread_id))
        inside = b.emit(arith.CmpiOp(t, b.index(rows_per_batch), "slt"))
        outer = b.delinearize(sequence, batch) if batch else ()
        b.when(inside, lambda: row(outer, t))
        return []

    def row(outer: Index, t: SSAValue) -> None:
        query = [
            b.emit(arith.MulfOp(x, scale))
            for x in _operand_row(b, op.query, (*outer, t), head)
        ]

        def key_row(key: SSAValue) -> list[SSAValue]:
            return _operand_row(b, op.key, (*outer, key), head)

        def masked(score: SSAValue, key: SSAValue) -> SSAValue:
            if op.mask is None:
                return score
            at = b.broadcast_index((*outer, t, key), shape_of(op.mask))
            element = b.value_at(op.mask, at)
            if op.is_boolean_mask:
                return b.emit(arith.SelectOp(element, score, neg_inf))
            return b.emit(arith.AddfOp(score, _base2(b, element)))

        count = b.index(keys)
        if op.is_causal:
            count = b.emit(arith.MinSIOp(b.emit(arith.AddiOp(t, b.index(1))), count))
        inits = [neg_inf, b.const(0.0, f32), *[b.const(0.0, f32)] * dv]

        def step(j: SSAValue, carried: list[SSAValue]) -> list[SSAValue]:
            m, l, o = carried[0], carried[1], carried[2:]
            scores, positions = [], []
            for c in range(KEYS_PER_STEP):
                if c == 0:  # the loop bound keeps the first key valid
                    positions.append(j)
                    scores.append(masked(_dot(b, query, key_row(j)), j))
                    continue
                key = b.emit(arith.AddiOp(j, b.index(c)))
                valid = b.emit(arith.CmpiOp(key, count, "slt"))
                key = b.emit(arith.MinSIOp(key, last_key))  # stay inside k and v
                score = masked(_dot(b, query, key_row(key)), key)
                scores.append(b.emit(arith.SelectOp(valid, score, neg_inf)))
                positions.append(key)
            m_new = m
            for score in scores:
                m_new = b.emit(arith.MaximumfOp(m_new, score))
            # with a mask every score so far may be -inf: subtract 0 then
            # (exp2(-inf) = 0), not -inf (-inf - -inf is NaN)
            shift = m_new if op.mask is None else _finite_or_zero(b, m_new)
            rescale = b.emit(math.Exp2Op(b.emit(arith.SubfOp(m, shift))))
            probs = [
                b.emit(math.Exp2Op(b.emit(arith.SubfOp(s, shift)))) for s in scores
            ]
            l_new = b.emit(arith.MulfOp(l, rescale))
            for p in probs:
                l_new = b.emit(arith.AddfOp(l_new, p))
            o_new = [b.emit(arith.MulfOp(x, rescale)) for x in o]
            for p, key in zip(probs, positions):
                values = _operand_row(b, op.value, (*outer, key), dv)
                o_new = [
                    b.emit(arith.AddfOp(acc, b.emit(arith.MulfOp(p, x))))
                    for acc, x in zip(o_new, values)
                ]
            return [m_new, l_new, *o_new]

        final = b.loop(b.index(0), count, b.index(KEYS_PER_STEP), inits, step)
        inverse = b.emit(arith.DivfOp(b.const(1.0, f32), final[1]))
        if op.mask is not None:  # a row with no key kept gives zeros (l = o = 0)
            kept = b.emit(arith.CmpfOp(final[1], b.const(0.0, f32), "ogt"))
            inverse = b.emit(arith.SelectOp(kept, inverse, b.const(0.0, f32)))
        result = [b.emit(arith.MulfOp(acc, inverse)) for acc in final[2:]]
        positions = [(*outer, t, b.index(d)) for d in range(dv)]
        shape = shape_of(op.result)
        for position, element in zip(positions, result):
            # what value_at reads: as the yield asks, and as an epilogue op
            # asks (broadcast_index: index 0 for a size-1 dim, e.g. T = 1)
            b.scopes[-1][(op.result, position)] = element
            b.scopes[-1][(op.result, b.broadcast_index(position, shape))] = element
        for value, buffer in zip(b.group.yield_op.values, b.outputs):
            row = [b.value_at(value, position) for position in positions]
            _store_row(b, row, buffer, (*outer, t))

    b.loop(b.block_id, b.index(tiles), b.grid_dim, [], tile)
    b.launch = (min(max(1, tiles), MAX_GRID), block)
    if MIN_BLOCKS_PER_SM is not None:
        b.func.attributes["gpu.known_block_size"] = DenseArrayBase.from_list(
            i32, [block, 1, 1]
        )
        b.func.attributes[MIN_BLOCKS_ATTR] = IntegerAttr(MIN_BLOCKS_PER_SM, i32)
