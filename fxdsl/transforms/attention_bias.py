"""Folding a projection's bias into `graph.attention` (part of
`graph-fuse-attention`).

GPT-2 computes q, k and v as views (split, reshape, transpose) of one
`add(x @ W, b)`. Unfolded, that add is a kernel of its own: a read and a
write of the whole qkv tensor before the attention reads it again. Through
the views, each operand is `view(x) + view(b)`, and the bias of each one
folds into the attention kernel (exact in real arithmetic):

* **query**: `attention(view(x) + view(b), ...)`: the add stays, as the
  attention kernel's prologue (evaluated once per query row as q is loaded).
* **key**: dropped when its bias is the same for every key row: it adds
  `q . b_k` to every score of a query row, and softmax does not change
  under a per-row shift.
* **value**: moved after the attention when its bias is the same for every
  key row: the probabilities of a row sum to 1, so `P (v + b_v) = P v + b_v`,
  an epilogue add on the output row. Not with a mask operand: a row whose
  keys are all masked has no probabilities (its output is 0, not `b_v`).

A 16-bit projection arrives with its product widened (`addmm` and
`graph.linear` round once: `cast(matmul_f32(x, W) + cast_f32(b))`). The
fold sees through that form: it narrows the product to the operands' type
(one rounding of x @ W, then the bias added in the attention kernel), as
the folds above are exact in real arithmetic only: the attention then
reads the GEMM's output directly instead of after an epilogue kernel.

Whether a bias is the same along the key rows is read off its strided
layout (`fxdsl.ir.layout`): the bias broadcast to the add's shape,
then every view of the chain; a zero stride on the rows dim means it is.
An add is folded only when every use of it reaches this attention's
operands through views, and the key and value biases (where the add feeds
them) pass that test; otherwise the add stays a kernel of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from fxdsl.ir import graph
from fxdsl.ir.graph import shape_of
from fxdsl.ir.layout import Layout, broadcast, view_layouts
from fxdsl.ir.utils import erase_dead, with_provenance

VIEWS = graph.view_ops(strided=True, injective=True)
"""The views a bias is followed through (each result read once): strided,
so `view_layouts` follows the bias's layout, and reading no element twice
(not broadcast_to)."""

QUERY, KEY, VALUE = 0, 1, 2


@dataclass(frozen=True)
class _Biased:
    """`x + bias` that the views of q, k or v start from: `root` is the
    add's result, or the cast that rounds the add of a widened product
    `wide` (module docstring)."""

    root: SSAValue
    add: graph.AddOp
    wide: graph.MatmulOp | None = None

    def operands(self) -> tuple[SSAValue, SSAValue]:
        """The add's operands, a widened product's as `(product, bias)` in
        the operands' type (the bias before its cast to f32)."""
        if self.wide is None:
            return self.add.lhs, self.add.rhs
        bias = self.add.rhs.owner
        assert isinstance(bias, graph.CastOp)
        return self.wide.result, bias.input


def _widened_add(cast: graph.CastOp) -> _Biased | None:
    """`cast` as the rounding of `matmul_f32(x, W) + cast_f32(b)` back to
    the operands' type, each intermediate read once; else None."""
    add = cast.input.owner
    if not isinstance(add, graph.AddOp) or not cast.input.has_one_use():
        return None
    product, bias = add.lhs.owner, add.rhs.owner
    if not (isinstance(product, graph.MatmulOp) and isinstance(bias, graph.CastOp)):
        return None
    element = graph.dtype_of(cast.result)
    if not product.is_widened or graph.dtype_of(product.lhs) != element:
        return None
    if graph.dtype_of(bias.input) != element or not product.result.has_one_use():
        return None
    return _Biased(cast.result, add, product)


def _chain(operand: SSAValue) -> tuple[_Biased, list[SSAValue]] | None:
    """(the biased value, the view results from it to `operand`, first to
    last) when `operand` is views of one, each view result read once."""
    chain: list[SSAValue] = []
    value = operand
    while not isinstance(value.owner, graph.AddOp):
        if isinstance(value.owner, graph.CastOp):
            found = _widened_add(value.owner)
            if found is not None:
                return found, chain[::-1]
        if not isinstance(value.owner, VIEWS) or not value.has_one_use():
            return None
        chain.append(value)
        value = value.owner.operands[0]
    return _Biased(value, value.owner), chain[::-1]


def _leaves(value: SSAValue) -> list[tuple[Operation, int]]:
    """(user, operand index) of every non-view use of `value` through views."""
    found: list[tuple[Operation, int]] = []
    for use in value.uses:
        if isinstance(use.operation, VIEWS):
            for result in use.operation.results:
                found += _leaves(result)
        else:
            found.append((use.operation, use.index))
    return found


def _layout(
    bias: SSAValue, full: tuple[int, ...], chain: list[SSAValue]
) -> Layout | None:
    """The strided layout of the bias broadcast to `full` and viewed by
    `chain`, or None when a view of the chain needs a copy."""
    layout: Layout | None = broadcast(Layout.dense(shape_of(bias)), full)
    for value in chain:
        layouts = view_layouts(value.owner, layout)  # type: ignore[arg-type]
        if layouts is None:
            return None
        layout = layouts[value.index]  # type: ignore[attr-defined]
    return layout


def _same_for_every_row(layout: Layout | None) -> bool:
    return layout is not None and (layout.shape[-2] == 1 or layout.strides[-2] == 0)


Roles = dict[int, list[SSAValue]]
"""Operand index (QUERY, KEY, VALUE) -> its view chain from one add."""


def _foldable(
    attention: graph.AttentionOp, biased: _Biased, roles: Roles
) -> tuple[SSAValue, SSAValue] | None:
    """(data, bias) operands of the add when its bias folds (module doc)."""
    if roles.keys() == {QUERY} and not roles[QUERY] and biased.wide is None:
        return None  # q = add(x, b) already: the prologue as it stands
    if VALUE in roles and attention.mask is not None:
        return None  # a row with every key masked has probabilities summing to 0
    leaves = _leaves(biased.root)
    if len(leaves) != len(roles) or set(leaves) != {(attention, r) for r in roles}:
        return None  # something else reads the add
    x, bias = biased.operands()
    full = shape_of(biased.root)
    if shape_of(x) != full:
        x, bias = bias, x
    if shape_of(x) != full:
        return None  # both operands broadcast
    for role in (KEY, VALUE):
        if role in roles and not _same_for_every_row(_layout(bias, full, roles[role])):
            return None
    return x, bias


class FoldAttentionBias(RewritePattern):
    """The module docstring's rewrite, on one `graph.attention`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self, op: graph.AttentionOp, rewriter: PatternRewriter
    ) -> None:
        adds: dict[_Biased, Roles] = {}
        qkv = [op.query, op.key, op.value]
        for role, operand in enumerate(qkv):
            found = _chain(operand)
            if found is not None:
                adds.setdefault(found[0], {})[role] = found[1]
        operands = list(qkv)
        epilogue: SSAValue | None = None
        folded = False
        replay = _Replay(rewriter, op)
        for biased, roles in adds.items():
            parts = _foldable(op, biased, roles)
            if parts is None:
                continue
            x, bias = parts
            if biased.wide is not None:  # the product in the operands' type
                narrow = graph.MatmulOp(biased.wide.lhs, biased.wide.rhs)
                narrow.attributes |= dict(biased.wide.attributes)
                rewriter.insert(narrow, InsertPoint.before(op))
                x = narrow.result
            full = shape_of(biased.root)
            if shape_of(bias) != full:
                bias = replay.insert(graph.BroadcastToOp(bias, full))
            for role, chain in roles.items():
                operands[role] = replay(x, chain)
                if role == QUERY:
                    own = replay(bias, chain, named=False)
                    operands[role] = replay.insert(graph.AddOp(operands[role], own))
                elif role == VALUE:
                    epilogue = replay.insert(_first_row(replay(bias, chain, False)))
            folded = True
        if not folded:
            return
        q, k, v = operands
        attention = graph.AttentionOp(
            q, k, v, op.scale_value, op.is_causal, mask=op.mask
        )
        new_ops: list[Operation] = [attention]
        if epilogue is not None:
            new_ops.append(graph.AddOp(attention.result, epilogue))
        old = [o.owner for o in qkv if isinstance(o.owner, Operation)]
        rewriter.replace(op, with_provenance(new_ops, op), [new_ops[-1].results[0]])
        erase_dead(rewriter, old)


def _first_row(value: SSAValue) -> graph.SliceOp:
    """`value[..., 0:1, :]`: a row-constant bias as one row (it broadcasts)."""
    shape = shape_of(value)
    return graph.SliceOp(value, [0] * len(shape), [*shape[:-2], 1, shape[-1]])


class _Replay:
    """Clones of view chains on new sources, inserted before `before`
    (memoised: the split of one source is cloned once for q, k and v)."""

    def __init__(self, rewriter: PatternRewriter, before: Operation):
        self.rewriter = rewriter
        self.before = before
        self.clones: dict[tuple[Operation, SSAValue], Operation] = {}

    def insert(self, new: Operation) -> SSAValue:
        """Insert a new op (with the attention's scope attributes)."""
        new.attributes |= dict(self.before.attributes)
        self.rewriter.insert(new, InsertPoint.before(self.before))
        return new.results[0]

    def __call__(
        self, source: SSAValue, chain: list[SSAValue], named: bool = True
    ) -> SSAValue:
        """`chain`'s views applied to `source` instead of the add (keeping
        the views' value names when `named`: they suit the data, not the
        bias)."""
        value = source
        for step in chain:
            view = step.owner
            assert isinstance(view, Operation)
            key = (view, value)
            if key not in self.clones:
                clone = view.clone(value_mapper={view.operands[0]: value})
                for result in clone.results if not named else ():
                    result.name_hint = None
                self.rewriter.insert(clone, InsertPoint.before(self.before))
                self.clones[key] = clone
            value = self.clones[key].results[step.index]  # type: ignore[attr-defined]
        return value
