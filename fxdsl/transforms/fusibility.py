"""Which graph ops `graph-fuse` may put in one kernel, and on what iteration space.

Every op falls in one fusibility class (the table `FUSIBILITY`):

* `ELEMENTWISE`: the unary and binary op families (compare and cast among
  them) and select, derived from the dialect's classes. Fuse freely.
* `VIEW`: reshape, transpose, slice, broadcast_to, and concat (an index
  remapping that picks the piece an index falls in: the kernels read it
  lazily, as they read views). Fused as index remapping of a group *input*:
  a view joins a group only as a prologue (its operands come from outside
  the group, are constants or other views in it), and never as a group
  output (a view read by two groups stays between them: a free view, or
  for a concat a copy kernel). A view's result shape does not constrain
  the group's domain (its kernel reads it at whatever index its reader
  asks for), so a chain such as pad (concat) -> strided slices -> maximum,
  a pooling window, is one kernel. `graph.random` fuses as a view too: its
  element at an index is Philox of that index, computed where it is read
  (two groups reading one draw compute the same numbers).
* `REDUCTION`: sum, mean, max, min, var, softmax, log_softmax, layer_norm whose
  reduced dims are the *trailing* dims of the input. Its iteration space is
  `(outer, inner)`, the input shape split before the reduced dims.
* `CONSTANT`: graph.constant, graph.full. Never grouped; cloned into each group
  that reads one, so a constant is never a group argument.
* `ATTENTION`: graph.attention, with or without a mask (`graph-decompose`
  splits a masked one with few query rows into ops that fuse). Its own kernel shape
  (one thread per query row, `fxdsl.lowering.attention_kernel`), which takes
  elementwise ops on either side (`attention_fusible`): a *prologue*
  computing its operands
  (a bias add on q, read as q is loaded) and an *epilogue* on its result
  (a bias add on the output, applied before the row is stored). No views
  (the kernel reads its operands as strided buffers, float4 per row) and
  no reductions; one attention per group.
* `OPAQUE`: matmul and linear (library calls; run `graph-decompose` first so the
  bias add of a linear can fuse), gather, embedding, index, index_copy and
  index_add (data-dependent
  indexing),
  split (several outputs with offsets: a memory operation between kernels),
  reductions over non-trailing dims (a column
  reduction is a different kernel), func.call and every op of other dialects.
  Except a *serial* reduction (`serial_reduction`): a sum/mean/max/min/var
  over non-trailing dims of at most `SERIAL_REDUCTION_MAX` elements per
  output (the partials of `graph-split-k`) is computed by a short loop per
  output element, and is `ELEMENTWISE` for fusion, but reads only group
  inputs (directly or through views; `edge_fusible`).

A group lowers to ONE kernel. A group without reductions is *pointwise*: one
thread per element of its domain, the broadcast of all its op result shapes. A
group with reductions is a *row group*: one block/warp per row of `outer`,
reducing over `inner`; so all its reductions must have the same `(outer,
inner)` (sum then softmax over the last dim of the same tensor: yes; a
reduction over the last dim next to one over the last two dims, or over
tensors of different outer shapes: no). Its elementwise ops must have result
shapes that broadcast to `outer + inner` (full rows, per-row scalars with
keepdim, or inputs recomputed per row). A reduction without `keepdim` that
drops dims (result shape `outer`) ends its group: numpy broadcasting would
align its result with the *trailing* dims of a full row, so it cannot feed
other ops of the same row kernel.

`Kernel` is a group's kernel shape and merges two of them (or refuses);
`edge_fusible` applies the view and dims-dropping rules to one def-use edge;
`describe` gives the kernel of an op or of a whole existing group.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from enum import Enum
from math import prod

from xdsl.dialects.builtin import TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import ConstantLike

from fxdsl.ir import graph
from fxdsl.ir.graph import FusionGroupOp, YieldOp, shape_of
from fxdsl.ir.shape_rules import Shape, ShapeError, broadcast_shapes


class Fusibility(Enum):
    ELEMENTWISE = "elementwise"
    VIEW = "view"
    REDUCTION = "reduction"
    CONSTANT = "constant"
    ATTENTION = "attention"
    OPAQUE = "opaque"


# Every op of the elementwise families: a new unary or binary op fuses
# without a line here (its scalar form is `lowering/scalar_ops.py`'s).
_ELEMENTWISE_OPS = tuple(
    op
    for op in graph.GRAPH_OPS
    if issubclass(op, (graph.UnaryOp, graph.BinaryOp, graph.SelectOp))
)
# Every reduction but any/all (i1 operands): they have no kernel of their
# own, graph-decompose rewrites them to max/min first.
_REDUCTION_OPS = tuple(
    op
    for op in graph.GRAPH_OPS
    if issubclass(op, graph.ReductionLike) and not issubclass(op, graph.BoolOperands)
)
_CONSTANT_OPS = tuple(op for op in graph.GRAPH_OPS if op.has_trait(ConstantLike))
_OPAQUE_OPS = (
    graph.MatmulOp, graph.LinearOp, graph.GatherOp, graph.EmbeddingOp,
    graph.IndexOp, graph.IndexCopyOp, graph.IndexAddOp, graph.SplitOp,
)  # fmt: skip
# Every view fuses as index math, but split (several results) is opaque.
_VIEW_OPS = tuple(op for op in graph.view_ops() if op not in _OPAQUE_OPS)

FUSIBILITY: dict[type[Operation], Fusibility] = {
    **dict.fromkeys(_ELEMENTWISE_OPS, Fusibility.ELEMENTWISE),
    **dict.fromkeys(_VIEW_OPS, Fusibility.VIEW),
    **dict.fromkeys(_REDUCTION_OPS, Fusibility.REDUCTION),
    **dict.fromkeys(_CONSTANT_OPS, Fusibility.CONSTANT),
    **dict.fromkeys(_OPAQUE_OPS, Fusibility.OPAQUE),
    graph.AttentionOp: Fusibility.ATTENTION,
    # an element of a draw is a function of its index alone (Philox of the
    # seed): read lazily as a view is, each reader computes the same numbers
    graph.RandomOp: Fusibility.VIEW,
}
"""Op class -> fusibility class; ops not listed (calls, other dialects) are opaque."""

Space = tuple[Shape, Shape]
"""Iteration space of a row reduction: (outer shape, reduced inner shape)."""


def reduction_space(op: Operation) -> Space | None:
    """`(outer, inner)` of a reduction over trailing dims; None for any other op."""
    if FUSIBILITY.get(type(op)) is not Fusibility.REDUCTION:
        return None
    assert isinstance(op, graph.ReductionLike)
    shape = shape_of(op.operands[0])
    dims = op.reduced_dims()
    split = len(shape) - len(dims)
    if dims != tuple(range(split, len(shape))):
        return None
    return shape[:split], shape[split:]


SERIAL_REDUCTION_MAX = 16
"""Most elements a serial reduction reduces per output (see `classify`)."""


def serial_reduction(op: Operation) -> bool:
    """A sum/mean/max/min/var over non-trailing dims of at most
    `SERIAL_REDUCTION_MAX` elements: one thread computes an output element
    with a short unrolled loop, as cheap as an elementwise op reading that
    many inputs, so it fuses like one."""
    if not isinstance(op, graph.ReductionOp) or reduction_space(op) is not None:
        return False
    shape = shape_of(op.input)
    return prod(shape[d] for d in op.reduced_dims()) <= SERIAL_REDUCTION_MAX


def classify(op: Operation) -> Fusibility:
    """The fusibility class of one op (a non-trailing reduction is opaque,
    but for a short `serial_reduction`, which is elementwise)."""
    kind = FUSIBILITY.get(type(op), Fusibility.OPAQUE)
    if kind is Fusibility.REDUCTION and reduction_space(op) is None:
        return Fusibility.ELEMENTWISE if serial_reduction(op) else Fusibility.OPAQUE
    return kind


def drops_dims(op: Operation) -> bool:
    """True for a reduction whose result has fewer dims than its input."""
    return classify(op) is Fusibility.REDUCTION and len(shape_of(op.results[0])) < len(
        shape_of(op.operands[0])
    )


def is_scalar(value: SSAValue) -> bool:
    """A tensor with one element, or no tensor (not worth a horizontal fusion)."""
    if not isinstance(value.type, TensorType):
        return True
    size = 1
    for dim in shape_of(value):
        size *= dim
    return size == 1


def _broadcast(a: Shape, b: Shape) -> Shape | None:
    try:
        return broadcast_shapes(a, b)
    except ShapeError:
        return None


@dataclass(frozen=True)
class Kernel:
    """What kind of kernel a group is: its row space (None: pointwise) and the
    broadcast domain of its elementwise and view results; `attention` for a
    group around a `graph.attention` (its domain is the attention's result;
    which ops may join is `attention_fusible`'s question, not the domain's)."""

    space: Space | None
    domain: Shape | None
    attention: bool = False

    @staticmethod
    def of(op: Operation) -> Kernel:
        """The kernel of an op alone (only for fusible ops)."""
        if isinstance(op, graph.AttentionOp):
            return Kernel(None, shape_of(op.result), attention=True)
        space = reduction_space(op)
        if space is not None:
            return Kernel(space, None)
        if is_view(op):
            return Kernel(None, None)
        return Kernel(None, shape_of(op.results[0]))

    def merge(self, other: Kernel) -> Kernel | None:
        """The kernel of both groups together, or None when they cannot share
        one (different row spaces, shapes that do not broadcast, two
        attentions, an attention and a reduction)."""
        if self.attention or other.attention:
            if (self.attention and other.attention) or self.space or other.space:
                return None
            return self if self.attention else other
        if self.space and other.space and self.space != other.space:
            return None
        space = self.space or other.space
        domain = self.domain or other.domain
        if self.domain is not None and other.domain is not None:
            domain = _broadcast(self.domain, other.domain)
            if domain is None:
                return None
        if space is not None and domain is not None:
            full = space[0] + space[1]
            if _broadcast(domain, full) != full:
                return None
        return Kernel(space, domain)


def inner_producer(value: SSAValue) -> Operation | None:
    """The op computing `value`, looking through a group's yield."""
    owner = value.owner
    if isinstance(owner, FusionGroupOp):
        owner = owner.yield_op.values[value.index].owner  # type: ignore[attr-defined]
    return owner if isinstance(owner, Operation) else None


def _inner_users(user: Operation, index: int) -> list[Operation]:
    """The ops reading operand `index` of `user`, looking into a group."""
    if isinstance(user, FusionGroupOp):
        return [use.operation for use in user.body.block.args[index].uses]
    return [user]


def is_view(op: Operation | None) -> bool:
    """True for view ops (None, a block argument's owner, is no view)."""
    return op is not None and classify(op) is Fusibility.VIEW


def edge_fusible(value: SSAValue, user: Operation, index: int) -> bool:
    """May the def-use edge `value -> user` lie inside one group?"""
    producer = inner_producer(value)
    if producer is not None and drops_dims(producer):
        return False
    users = _inner_users(user, index)
    if (
        producer is not None
        and not is_view(producer)
        and any(map(serial_reduction, users))
    ):
        # A serial reduction reads across rows; in a row kernel a value
        # computed in the group (from row statistics) exists only for the
        # block's own row. So it reads group inputs, through views at most.
        return False
    return is_view(producer) or not any(map(is_view, users))


def _source(value: SSAValue) -> Operation | None:
    """The op computing `value`, looking through group boundaries (a group's
    block arguments and yields); None for a function argument."""
    while True:
        owner = value.owner
        if isinstance(owner, Block):
            parent = owner.parent_op()
            if not isinstance(parent, FusionGroupOp):
                return None
            value = parent.inputs[value.index]  # type: ignore[attr-defined]
        elif isinstance(owner, FusionGroupOp):
            value = owner.yield_op.values[value.index]  # type: ignore[attr-defined]
        else:
            return owner


def _readers(value: SSAValue) -> Iterator[Operation]:
    """The ops reading `value`, looking through group boundaries."""
    for use in value.uses:
        user = use.operation
        parent = user.parent_op()
        if isinstance(user, FusionGroupOp):
            yield from _readers(user.body.block.args[use.index])
        elif isinstance(user, YieldOp) and isinstance(parent, FusionGroupOp):
            yield from _readers(parent.outputs[use.index])
        else:
            yield user


def attention_fusible(ops: Iterable[Operation]) -> bool:
    """May `ops` (a would-be group's ops; a group stands for its body,
    yields are skipped) form one attention kernel? Exactly one
    `graph.attention`; every other op elementwise and either in the
    *prologue* (it computes the query and nothing else reads it: the kernel
    evaluates it once per query row as the row is loaded) or in the
    *epilogue* (computed from the attention's result, of its shape, from
    nothing in the prologue: evaluated on each output row before it is
    stored). Key, value and mask come from outside (or are constants): a
    prologue there would be recomputed for every (query, key) pair."""
    flat = (
        inner
        for op in ops
        for inner in (op.body.block.ops if isinstance(op, FusionGroupOp) else (op,))
    )
    members = {
        op: None
        for op in flat
        if not isinstance(op, YieldOp) and classify(op) is not Fusibility.CONSTANT
    }
    attentions = [op for op in members if isinstance(op, graph.AttentionOp)]
    if len(attentions) != 1:
        return False
    (attention,) = attentions
    # truly elementwise: the attention kernel has no serial reductions
    if any(
        op is not attention and FUSIBILITY.get(type(op)) is not Fusibility.ELEMENTWISE
        for op in members
    ):
        return False
    if any(
        _source(operand) in members
        for operand in (attention.key, attention.value, attention.mask)
        if operand is not None
    ):
        return False
    prologue: set[Operation] = set()
    pending = [_source(attention.query)]
    while pending:
        op = pending.pop()
        if op in members and op not in prologue:
            prologue.add(op)  # type: ignore[arg-type]
            pending.extend(_source(o) for o in op.operands)  # type: ignore[union-attr]
    readable = prologue | {attention}
    for op in prologue:
        if any(r not in readable for v in op.results for r in _readers(v)):
            return False
    shape = shape_of(attention.result)
    for op in members:
        if op in readable:
            continue
        sources = [_source(o) for o in op.operands]
        inside = [s for s in sources if s in members]
        if shape_of(op.results[0]) != shape or not inside:
            return False
        if any(s in prologue for s in inside):
            return False
    return True


def describe(op: Operation) -> tuple[Kernel | None, int, bool]:
    """(kernel or None if not fusible, op count, has a compute op) of an op or
    of a whole `graph.fusion_group`."""
    body = op.body.block.ops if isinstance(op, FusionGroupOp) else (op,)
    kernel: Kernel | None = None
    size, compute = 0, False
    for inner in body:
        kind = classify(inner)
        if isinstance(inner, YieldOp) or kind is Fusibility.CONSTANT:
            continue
        if kind is Fusibility.OPAQUE:
            return None, 0, False
        own = Kernel.of(inner)
        merged = own if kernel is None else kernel.merge(own)
        if merged is None:
            return None, 0, False
        kernel, size = merged, size + 1
        compute = compute or kind is not Fusibility.VIEW
    return kernel, size, compute
