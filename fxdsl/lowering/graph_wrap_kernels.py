"""`graph-wrap-kernels`: make every kernel come from a `graph.fusion_group`.

After this pass the top level of each function holds only

* `graph.fusion_group`s (each becomes one GPU kernel),
* `graph.matmul`s (library calls: cuBLAS),
* the linear-algebra ops (`graph.LinalgOp`: host library steps, cuSOLVER
  through CuPy), which read dense buffers,
* views that a strided buffer can express and that every consumer can read
  (`reshape`/`transpose`/`slice`/`broadcast_to`/`split`, see `layout.py`),
* calls, returns and ops of other dialects.

Every other graph op (elementwise, reductions, gather, embedding, concat, and
constants read by the host) becomes a one-op group. A view becomes a one-op
group (a copy kernel) when no strided layout expresses it, or when a consumer
needs a dense buffer: `func.return`/`func.call` operands, and matmul operands
that cuBLAS cannot read as (transposed) strided batches. A `split` that needs
a copy first becomes one `slice` per used result (a kernel has one domain, so
pieces of different shapes cannot share one): each is a view or a copy of
its own. `graph.linear` is
decomposed first (as `graph-decompose` does) so its bias add is a kernel.
Constants read by a group are cloned into it (literals compiled into its
kernel), except a large one (`buffered_constant`: more than
`INLINE_CONSTANT_LIMIT` elements, not a splat) and any read by an
attention group, whose kernel reads buffers only. A large constant stays
at the top level: `graph-bufferize` makes it a `memref.global` that the
runtime uploads once, which groups, GEMMs and library steps read as a
buffer. (A frozen ResNet-18's folded weights as literals were 150 MB of
CUDA C, more than NVRTC compiles in minutes.) A constant the host returns
or passes to a call is copied by a kernel, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import prod

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from fxdsl.ir import graph
from fxdsl.ir.graph import shape_of
from fxdsl.ir.layout import HOST_VIEW_OPS, Layout, matmul_operand, view_layouts
from fxdsl.ir.shape_rules import matmul_dims
from fxdsl.ir.utils import OpFailure, single_block_bodies
from fxdsl.transforms.graph_decompose import GraphDecomposePass


def refuse_non_kernel_types(module: ModuleOp, pass_name: str) -> None:
    """OpFailure at the first graph op with a tensor whose element type
    kernels do not compute in (`graph.KERNEL_TYPES`: f64, i16, i8 and ui8
    run on the reference interpreter only): a clean refusal, never a kernel
    that computes an f64 in f32."""
    for inner in module.walk():
        if not isinstance(inner, graph.GraphOp | graph.FusionGroupOp):
            continue
        for value in (*inner.operands, *inner.results):
            typ = value.type
            if isinstance(typ, TensorType) and typ.element_type not in (
                graph.KERNEL_TYPES
            ):
                raise OpFailure(
                    f"{pass_name}: {inner.name} has a tensor of element type "
                    f"{typ.element_type}, which GPU kernels do not compute in yet "
                    "(only the reference interpreter runs it)",
                    inner,
                )


INLINE_CONSTANT_LIMIT = 1024
"""Elements of the largest non-splat constant a kernel holds as literals."""


def buffered_constant(op: Operation | None) -> bool:
    """A `graph.constant` that lives in a device buffer rather than in the
    kernels reading it: more than `INLINE_CONSTANT_LIMIT` elements, not a
    splat."""
    if not isinstance(op, graph.ConstantOp):
        return False
    return prod(shape_of(op.result)) > INLINE_CONSTANT_LIMIT and not op.value.is_splat()


def _inlined_constant(value: SSAValue) -> bool:
    owner = value.owner
    return graph.is_graph_constant(owner) and not buffered_constant(owner)  # type: ignore[arg-type]


def wrap_in_group(op: Operation) -> graph.FusionGroupOp:
    """Replace `op` by a one-op `graph.fusion_group` computing it; constant
    operands are cloned into the group instead of becoming inputs, except
    large ones (`buffered_constant`) and for attention, whose kernel reads
    buffers only."""
    inline = not isinstance(op, graph.AttentionOp)
    inputs: list[SSAValue] = []
    for operand in op.operands:
        if operand not in inputs and not (inline and _inlined_constant(operand)):
            inputs.append(operand)
    block = Block(arg_types=[v.type for v in inputs])
    mapping: dict[SSAValue, SSAValue] = dict(zip(inputs, block.args))
    for operand in op.operands:
        if operand not in mapping:
            constant = operand.owner.clone()  # type: ignore[union-attr]
            block.add_op(constant)
            mapping[operand] = constant.results[0]
    inner = op.clone(value_mapper=mapping)
    block.add_ops([inner, graph.YieldOp(*inner.results)])
    group = graph.FusionGroupOp(inputs, [r.type for r in op.results], Region(block))
    Rewriter.replace_op(op, group)
    return group


def _hoist_large_constants(
    group: graph.FusionGroupOp, hoisted: dict[Attribute, SSAValue]
) -> None:
    """Move the large constants `graph-fuse` cloned into `group` back out:
    each becomes an input, one top-level constant per value (`hoisted`,
    keyed by the value attribute; equal values share one buffer)."""
    body = group.body.block
    for inner in list(body.ops):
        if not buffered_constant(inner):
            continue
        assert isinstance(inner, graph.ConstantOp)
        top = hoisted.get(inner.value)
        if top is None:
            constant = inner.clone()
            Rewriter.insert_op(constant, InsertPoint.before(group))
            top = hoisted[inner.value] = constant.results[0]
        if top in group.inputs:
            arg = body.args[list(group.inputs).index(top)]
        else:
            group.operands = (*group.operands, top)
            arg = body.insert_arg(top.type, len(body.args))
        inner.results[0].replace_all_uses_with(arg)
        Rewriter.erase_op(inner)


def _reads_buffers(user: Operation) -> bool:
    """Does `user` read its operands as device buffers (a kernel, a GEMM, a
    library step, or a strided view only they read), so that a constant's
    buffer can be its operand?"""
    if isinstance(user, HOST_VIEW_OPS):
        return all(_reads_buffers(u.operation) for r in user.results for u in r.uses)
    return isinstance(user, graph.FusionGroupOp | graph.MatmulOp | graph.LinalgOp)


def _accepts(user: Operation, index: int, layout: Layout) -> bool:
    """Can `user` read its operand `index` through a view with `layout`?
    Kernels (groups, and graph ops that become one) index any strided layout;
    cuBLAS needs (transposed) strided batches; everything else a dense buffer."""
    if isinstance(user, graph.MatmulOp):
        batch, _, _ = matmul_dims(shape_of(user.lhs), shape_of(user.rhs))
        return matmul_operand(layout, batch, lhs=index == 0) is not None
    if isinstance(user, graph.LinalgOp):
        return layout.is_identity  # the solver library reads dense matrices
    if isinstance(user, graph.FusionGroupOp | graph.GraphOp):
        return True
    return layout.is_identity


def _view_results(
    op: Operation, layouts: dict[SSAValue, Layout]
) -> list[Layout] | None:
    """Layouts of a host view's results, None when it must be copied."""
    source = layouts.get(op.operands[0])
    results = None if source is None else view_layouts(op, source)
    if results is None:
        return None
    for result, layout in zip(op.results, results):
        if not all(_accepts(u.operation, u.index, layout) for u in result.uses):
            return None
    return results


def _split_to_slices(op: graph.SplitOp) -> list[graph.SliceOp]:
    """Replace `op` by one `graph.slice` per used result (same values)."""
    dim, rank = op.dim.value.data, len(shape_of(op.input))
    shape = shape_of(op.input)
    slices: list[graph.SliceOp] = []
    start = 0
    for result, size in zip(op.results, op.sizes.get_values()):
        if result.uses:
            begin = [start if d == dim else 0 for d in range(rank)]
            end = [start + size if d == dim else shape[d] for d in range(rank)]
            piece = graph.SliceOp(op.input, begin, end)
            piece.attributes |= dict(op.attributes)
            Rewriter.insert_op(piece, InsertPoint.before(op))
            result.replace_all_uses_with(piece.result)
            slices.append(piece)
        start += size
    Rewriter.erase_op(op)
    return slices


def _place_view(op: Operation, layouts: dict[SSAValue, Layout]) -> None:
    """Keep host view `op` as a strided view (recording its results'
    layouts), or make it a copy kernel."""
    results = _view_results(op, layouts)
    if results is None and isinstance(op, graph.SplitOp) and len(op.results) > 1:
        for piece in _split_to_slices(op):
            _place_view(piece, layouts)
        return
    if results is None:
        group = wrap_in_group(op)
        results = [Layout.dense(shape_of(r)) for r in group.results]
        op = group
    layouts.update(zip(op.results, results))


def _dense_operands(op: graph.LinalgOp, layouts: dict[SSAValue, Layout]) -> None:
    """A copy kernel for each operand of `op` that is not a dense buffer (a
    constant, or a view kept strided for another reader)."""
    for index, operand in enumerate(op.operands):
        layout = layouts.get(operand)
        if layout is not None and layout.is_identity:
            continue
        copy = graph.ReshapeOp(operand, shape_of(operand))
        Rewriter.insert_op(copy, InsertPoint.before(op))
        op.operands[index] = copy.result
        group = wrap_in_group(copy)
        layouts[group.results[0]] = Layout.dense(shape_of(group.results[0]))


def wrap_block(block: Block) -> None:
    """Wrap the ops of one function body (see the module docstring)."""
    # Host buffers: arguments and kernel/library results are dense.
    layouts: dict[SSAValue, Layout] = {
        a: Layout.dense(shape_of(a))
        for a in block.args
        if isinstance(a.type, TensorType)
    }
    hoisted: dict[Attribute, SSAValue] = {}
    for op in list(block.ops):
        if isinstance(op, graph.FusionGroupOp):
            _hoist_large_constants(op, hoisted)
    for op in block.ops:  # a large constant is a dense buffer too
        if buffered_constant(op):
            layouts[op.results[0]] = Layout.dense(shape_of(op.results[0]))
    for op in list(block.ops):
        if isinstance(op, HOST_VIEW_OPS):
            _place_view(op, layouts)
            continue
        library = graph.MatmulOp | graph.LinalgOp
        if isinstance(op, graph.GraphOp) and not (
            graph.is_graph_constant(op) or isinstance(op, library)
        ):
            op = wrap_in_group(op)
        if isinstance(op, graph.LinalgOp):
            _dense_operands(op, layouts)
        if isinstance(op, graph.FusionGroupOp | library):
            layouts.update((r, Layout.dense(shape_of(r))) for r in op.results)
    # Constants the host still reads get a kernel, except large ones that
    # only groups, GEMMs and library steps read (buffers, uploaded once).
    for op in list(block.ops):
        if not graph.is_graph_constant(op):
            continue
        users = [use.operation for use in op.results[0].uses]
        if not users:
            Rewriter.erase_op(op)
        elif not (buffered_constant(op) and all(map(_reads_buffers, users))):
            wrap_in_group(op)


@dataclass(frozen=True)
class GraphWrapKernelsPass(ModulePass):
    """Give every kernel a `graph.fusion_group` (see the module docstring)."""

    name = "graph-wrap-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        refuse_non_kernel_types(op, self.name)
        # ops without a kernel of their own (linear, cumsum, ...); a masked
        # attention has one, whatever the size graph-decompose chose for it
        GraphDecomposePass(attention_min_rows=1).apply(ctx, op)
        for _, block in single_block_bodies(op, self.name):
            wrap_block(block)
