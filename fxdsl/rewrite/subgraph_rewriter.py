"""`replace_pattern(_with_filters)`: many-to-one rewrites from Python functions.

    def pattern(x, y):
        return fxdsl.ops.mul(fxdsl.ops.add(x, y), y)

    def replacement(x, y):
        return fxdsl.ops.sub(x, y)

    replace_pattern(module, pattern, replacement)   # in place

`pattern` and `replacement` are Python functions (traced on rank-0 f32
placeholders; their parameters are wildcards), IR text, modules or funcs.
Matching is `SubgraphMatcher`'s (structure, not types: see `matcher.py`).
The replacement's arguments bind the match's wildcards in order; its ops are
re-created on the matched values, so graph ops re-infer their result types
from the real operands (ops whose result type is data, such as `reshape`,
keep the pattern's). Each replacement goes before the first user of the
matched outputs and gets the `scope` and location of the match's first
anchor; the matched ops are erased. As in FX, all matches are found first,
then replaced in order; a match whose wildcard was an output of an earlier
replaced match reads that replacement's value. Matched literals are erased
once unused (they may be shared); the replacement's own literals are used as
written, also with `ignore_literals=True`. A match that fails to rebuild
(shapes that do not fit, a different result type) raises ValueError; its ops
are left as they were (earlier matches stay replaced).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from fxdsl.ir.graph import SCOPE, GraphOp
from fxdsl.ir.shape_rules import ShapeError
from fxdsl.rewrite.editing import inherit_provenance, ops_in_order
from fxdsl.rewrite.matcher import (
    InternalMatch,
    Node,
    PatternLike,
    SubgraphMatcher,
    is_literal,
    load_pattern,
    pattern_ops,
)

MatchFilter = Callable[[InternalMatch, ModuleOp, func.FuncOp], bool]


@dataclass
class ReplacedPatterns:
    """One replaced match: its first anchor (now erased), the pattern -> graph
    map of the match, and the ops inserted in its place."""

    anchor: Operation
    nodes_map: dict[Node, Node]
    replacements: list[Operation]

    def __repr__(self) -> str:
        new = ", ".join(op.name for op in self.replacements)
        return f"ReplacedPatterns(anchor={self.anchor.name}, replacements=[{new}])"


def replace_pattern(
    module: ModuleOp, pattern: PatternLike, replacement: PatternLike
) -> list[ReplacedPatterns]:
    """Replace every non-overlapping match of `pattern` by `replacement`."""
    return replace_pattern_with_filters(module, pattern, replacement)


def replace_pattern_with_filters(
    module: ModuleOp,
    pattern: PatternLike,
    replacement: PatternLike,
    match_filters: Sequence[MatchFilter] | None = None,
    ignore_literals: bool = False,
) -> list[ReplacedPatterns]:
    """`replace_pattern`, keeping only matches for which every filter
    `filter(match, module, pattern_func)` is true. The module is verified
    afterwards (a replacement that breaks types raises)."""
    matcher = SubgraphMatcher(pattern, ignore_literals=ignore_literals)
    replacement_func = load_pattern(replacement)
    _check_arity(matcher, replacement_func)
    matches = [
        match
        for match in matcher.match(module)
        if all(keep(match, module, matcher.pattern) for keep in match_filters or [])
    ]
    renamed: dict[SSAValue, SSAValue] = {}
    # Program positions, computed once: keeps many replacements near-linear.
    order: dict[Operation, float] = {
        op: index for index, op in enumerate(ops_in_order(module))
    }
    replaced: list[ReplacedPatterns] = []
    for match in matches:
        done = _replace_match(match, replacement_func, renamed, order)
        if done is not None:
            replaced.append(done)
    module.verify()
    return replaced


def _check_arity(matcher: SubgraphMatcher, replacement: func.FuncOp) -> None:
    block = replacement.body.block
    terminator = block.last_op
    assert terminator is not None
    if len(block.args) != len(matcher.placeholders):
        raise ValueError(
            f"replace_pattern: the replacement takes {len(block.args)} arguments, "
            f"the pattern {len(matcher.placeholders)}"
        )
    if len(terminator.operands) != len(matcher.returning):
        raise ValueError(
            f"replace_pattern: the replacement returns {len(terminator.operands)} "
            f"values, the pattern {len(matcher.returning)}"
        )


def _replace_match(
    match: InternalMatch,
    replacement: func.FuncOp,
    renamed: dict[SSAValue, SSAValue],
    order: dict[Operation, float],
) -> ReplacedPatterns | None:
    inputs = [renamed.get(value, value) for value in match.placeholder_nodes]
    point = _insertion_point(match, inputs, order)
    if point is None:
        return None
    anchor = match.anchors[0]
    values: dict[SSAValue, SSAValue] = dict(zip(replacement.body.block.args, inputs))
    new_ops: list[Operation] = []
    for op in pattern_ops(replacement):
        try:
            new_op = _rebuild(op, [values.get(o, o) for o in op.operands])
        except ShapeError as error:
            _discard(new_ops)
            raise ValueError(
                f"replace_pattern: the replacement's {op.name} does not fit the "
                f"matched values: {error}"
            ) from None
        inherit_provenance(anchor, new_op)
        Rewriter.insert_op(new_op, InsertPoint.before(point))
        order[new_op] = order[point] - 0.5
        values.update(zip(op.results, new_op.results))
        new_ops.append(new_op)
    terminator = replacement.body.block.last_op
    assert terminator is not None
    outputs = [values.get(value, value) for value in terminator.operands]
    for old, new in zip(match.returning_nodes, outputs, strict=True):
        if new.type != old.type:
            _discard(new_ops)
            raise ValueError(
                f"replace_pattern: the replacement gives {new.type} where the "
                f"match had {old.type} ({anchor.name})"
            )
    for old, new in zip(match.returning_nodes, outputs, strict=True):
        old.replace_all_uses_with(new)
        renamed[old] = new
    for op in sorted(match.compute_ops, key=lambda op: -order[op]):
        Rewriter.erase_op(op)
    # Literals may be shared: they go with their last user.
    for op in match.ops:
        if is_literal(op) and op.parent is not None and not op.results[0].uses:
            Rewriter.erase_op(op)
    return ReplacedPatterns(anchor, match.nodes_map, new_ops)


def _discard(new_ops: list[Operation]) -> None:
    # Leave the module as it was before this match: drop what was inserted.
    for op in reversed(new_ops):
        Rewriter.erase_op(op)


def _rebuild(op: Operation, operands: list[SSAValue]) -> Operation:
    """`op` re-created on `operands`, result types re-inferred for graph ops."""
    result_types = [r.type for r in op.results]

    def create(types: Sequence[Attribute]) -> Operation:
        return type(op).create(
            operands=operands,
            result_types=types,
            properties=dict(op.properties),
            # The pattern's own scope means nothing here; the anchor's is used.
            attributes={k: v for k, v in op.attributes.items() if k != SCOPE},
            regions=[region.clone() for region in op.regions],
        )

    new_op = create(result_types)
    if isinstance(new_op, GraphOp):
        inferred = new_op.infer_result_types()
        if inferred != result_types:
            new_op.drop_all_references()
            new_op = create(inferred)
    return new_op


def _insertion_point(
    match: InternalMatch, inputs: list[SSAValue], order: dict[Operation, float]
) -> Operation | None:
    """The first user of a matched output, if every input is defined above
    it; None when no single point works (the match is then skipped)."""
    matched = set(match.ops)
    users = [
        use.operation
        for value in match.returning_nodes
        for use in value.uses
        if use.operation not in matched and use.operation in order
    ]
    point = min(users, key=lambda op: order[op], default=None)
    if point is None:
        point = max(match.compute_ops, key=lambda op: order[op]).next_op
        assert point is not None, "a function body ends with its terminator"
    for value in inputs:
        owner = value.owner
        if isinstance(owner, Operation) and order.get(owner, -1) >= order[point]:
            return None
    return point
