"""`SubgraphMatcher`: find a pattern function in a module, with FX's semantics.

A pattern is one `func.func` (a traced Python function, IR text, a module or
the func itself). Its arguments are wildcards (placeholders) and the values it
returns are the *returning nodes*; matching starts at the ops that produce
them (the anchors) and walks operands backwards, so pattern ops that do not
feed a returned value are ignored.

Ops match on structure: same op name, operand and result counts, equal
properties, and matching operands. Types (shapes, dtypes) are NOT compared, so
a pattern traced on placeholder shapes matches any shapes -- except the data
some ops carry in their declared result type instead of a property (the
target shape of `reshape` / `broadcast_to`, the element type of `cast`: FX's
list and dtype arguments): the graph op must infer its own result types when
given the pattern op's declared ones. Literals are `graph.constant` /
`graph.full` ops (compared by value: a splat constant equals a full of the
same value), the properties of other ops and that result-type data; with
`ignore_literals=True` a literal op matches any literal op and neither
properties nor result-type data are compared. Discardable attributes
(`scope`, locations) never matter.

As in `torch.fx.passes.utils.matcher_utils`:

* two pattern nodes never map to the same graph node (so `add(x, y)` does
  not match `add(a, a)`), and a wildcard never binds a value computed inside
  the match;
* a match is dropped if a value computed inside it, other than a returning
  node, is used outside it;
* literals are values, as FX's inline constants are: a literal op may be
  shared with the rest of the graph (or stand for several pattern literals),
  and it does not make matches overlap;
* `match_output=True`: the returning nodes must be exactly the function's
  returned values, in order; `match_placeholder=True`: wildcards must bind
  function arguments;
* `remove_overlapping_matches=True` keeps a match only if none of its ops is
  in an earlier kept match.

Matches come per function, in program order of their anchors.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, FloatAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import ConstantLike

from fxdsl.ir.graph import GraphOp
from fxdsl.ir.parsing import parse_module
from fxdsl.ir.shape_rules import ShapeError
from fxdsl.ir.utils import verify_ssa
from fxdsl.rewrite.editing import functions

Node = Operation | SSAValue
PatternLike = str | ModuleOp | func.FuncOp | Callable[..., Any]


@dataclass
class InternalMatch:
    """One occurrence of the pattern.

    `anchors`: graph ops matched to the pattern's anchors (producers of the
    returned values); `nodes_map`: pattern op -> graph op and pattern argument
    -> graph value; `placeholder_nodes`: graph values bound to the pattern
    arguments, in argument order; `returning_nodes`: graph values matched to
    the pattern's returned values, in order.
    """

    anchors: list[Operation]
    nodes_map: dict[Node, Node] = field(default_factory=dict[Node, Node])
    placeholder_nodes: list[SSAValue] = field(default_factory=list[SSAValue])
    returning_nodes: list[SSAValue] = field(default_factory=list[SSAValue])

    def __repr__(self) -> str:
        anchors = ", ".join(op.name for op in self.anchors)
        return f"InternalMatch(anchors=[{anchors}], ops={len(self.ops)})"

    @property
    def ops(self) -> list[Operation]:
        """The graph ops matched to pattern ops, literals included."""
        ops = [g for p, g in self.nodes_map.items() if isinstance(p, Operation)]
        return list(dict.fromkeys(ops))  # type: ignore[arg-type]

    @property
    def compute_ops(self) -> list[Operation]:
        """The matched ops that are not literals (those the match owns)."""
        return [op for op in self.ops if not is_literal(op)]


def load_pattern(pattern: PatternLike) -> func.FuncOp:
    """The pattern's `func.func`: from IR text, a module (its first func), a
    func, or a Python function traced on rank-0 f32 placeholders (use
    `fxdsl.trace` with real specs for patterns that need shapes)."""
    if isinstance(pattern, str):
        pattern = parse_module(pattern, "<pattern>")
        verify_ssa(pattern)
    if isinstance(pattern, (ModuleOp, func.FuncOp)):
        funcs = functions(pattern)
        if not funcs:
            raise ValueError("pattern: the module holds no func.func")
        return funcs[0]
    if callable(pattern):
        from fxdsl.tracing.tracer import TensorSpec, trace

        count = len(inspect.signature(pattern).parameters)
        return functions(trace(pattern, *[TensorSpec(())] * count))[0]
    raise TypeError("pattern: expected IR text, a module, a func or a function")


def is_literal(op: Operation) -> bool:
    """Constant-like ops (`graph.constant`, `graph.full`) are literals."""
    return op.has_trait(ConstantLike, value_if_unregistered=False)


def _literal_key(op: Operation) -> Any:
    """A value-based key for constant-like ops (fill value or dense data)."""
    value = op.properties.get("value")
    if isinstance(value, FloatAttr):
        return ("fill", float(value.value.data))
    if isinstance(value, DenseIntOrFPElementsAttr):
        data = value.get_values()
        if len(set(data)) == 1:
            return ("fill", float(data[0]))
        return ("dense", tuple(value.get_shape() or ()), tuple(data))
    return ("props", tuple(sorted(op.properties.items())))


def _same_type_data(pattern_op: Operation, graph_op: Operation) -> bool:
    """Does `graph_op` carry the same data in its result types as `pattern_op`?

    Some graph ops take part of their meaning from the declared result type
    (a reshape's target shape, a cast's element type). Built on the graph
    op's operands with the pattern op's declared result types, such an op
    keeps those types (or rejects them); an op whose result types are
    inferred from its operands alone gets the graph op's types back. So the
    two agree exactly when the pattern's result-type data is the graph's.
    """
    if not isinstance(graph_op, GraphOp):
        return True
    try:
        probed = type(graph_op).inferred_types(
            list(graph_op.operands),
            dict(graph_op.properties),
            [result.type for result in pattern_op.results],
        )
    except ShapeError:
        return False
    return probed == [result.type for result in graph_op.results]


class SubgraphMatcher:
    """Finds the occurrences of `pattern` (see the module docstring)."""

    def __init__(
        self,
        pattern: PatternLike,
        match_output: bool = False,
        match_placeholder: bool = False,
        remove_overlapping_matches: bool = True,
        ignore_literals: bool = False,
    ) -> None:
        self.pattern = load_pattern(pattern)
        self.match_output = match_output
        self.match_placeholder = match_placeholder
        self.remove_overlapping_matches = remove_overlapping_matches
        self.ignore_literals = ignore_literals
        block = self.pattern.body.block
        terminator = block.last_op
        assert isinstance(terminator, func.ReturnOp)
        self.placeholders: list[BlockArgument] = list(block.args)
        self.returning: list[SSAValue] = list(terminator.operands)
        if not self.returning:
            raise ValueError("pattern: the function returns nothing")
        if any(isinstance(value, BlockArgument) for value in self.returning):
            raise ValueError("pattern: a returned value is an argument, not an op")
        self.anchors: list[Operation] = list(
            dict.fromkeys(value.owner for value in self.returning)  # type: ignore
        )

    # -- node equality ---------------------------------------------------- #

    def ops_equal(self, pattern_op: Operation, graph_op: Operation) -> bool:
        """Same op, arity and (unless literals are ignored) literals."""
        if pattern_op.has_trait(ConstantLike, value_if_unregistered=False):
            if not graph_op.has_trait(ConstantLike, value_if_unregistered=False):
                return False
            return self.ignore_literals or (
                _literal_key(pattern_op) == _literal_key(graph_op)
            )
        if pattern_op.name != graph_op.name:
            return False
        if len(pattern_op.operands) != len(graph_op.operands):
            return False
        if len(pattern_op.results) != len(graph_op.results):
            return False
        if self.ignore_literals:
            return True
        return pattern_op.properties == graph_op.properties and _same_type_data(
            pattern_op, graph_op
        )

    # -- matching --------------------------------------------------------- #

    def match(self, module_or_func: Operation) -> list[InternalMatch]:
        """Every match, per function in order, anchors in program order."""
        matches: list[InternalMatch] = []
        for function in functions(module_or_func):
            matches.extend(self._match_function(function))
        if self.remove_overlapping_matches:
            matches = _without_overlaps(matches)
        return matches

    def _match_function(self, function: func.FuncOp) -> Iterator[InternalMatch]:
        if not function.body.blocks:  # a declaration
            return
        ops = list(function.body.block.ops)
        if self.match_output:
            terminator = function.body.block.last_op
            assert terminator is not None
            if len(terminator.operands) != len(self.returning):
                return
            outputs: dict[Node, Node] = {}
            if self._match_values(self.returning, list(terminator.operands), outputs):
                yield from self._finish(outputs)
            return
        candidates = [op for op in ops if self.ops_equal(self.anchors[0], op)]
        for graph_op in candidates:
            nodes: dict[Node, Node] = {}
            if self._match_op(self.anchors[0], graph_op, nodes):
                yield from self._match_more_anchors(1, nodes, ops)

    def _match_more_anchors(
        self, index: int, nodes: dict[Node, Node], ops: list[Operation]
    ) -> Iterator[InternalMatch]:
        """Backtrack over the candidates of anchors index.. (multi-output)."""
        if index == len(self.anchors):
            yield from self._finish(nodes)
            return
        anchor = self.anchors[index]
        if anchor in nodes:
            yield from self._match_more_anchors(index + 1, nodes, ops)
            return
        for graph_op in self._candidates(anchor, nodes, ops):
            attempt = dict(nodes)
            if self._match_op(anchor, graph_op, attempt):
                yield from self._match_more_anchors(index + 1, attempt, ops)

    def _candidates(
        self, anchor: Operation, nodes: dict[Node, Node], ops: list[Operation]
    ) -> list[Operation]:
        """Graph ops that may match `anchor`: if the anchor depends on an
        already matched node at distance d, only ops at most d users away from
        its image (keeps multi-output matching near-linear)."""
        distance, frontier, seen = 0, [anchor], {anchor}
        image: Node | None = None
        while frontier and image is None:
            distance += 1
            next_frontier: list[Operation] = []
            for op in frontier:
                for operand in op.operands:
                    node: Node = (
                        operand.op if isinstance(operand, OpResult) else operand
                    )
                    if node in nodes:
                        image = nodes[node]
                        break
                    if isinstance(node, Operation) and node not in seen:
                        seen.add(node)
                        next_frontier.append(node)
                if image is not None:
                    break
            frontier = next_frontier
        if image is None:
            return [op for op in ops if self.ops_equal(anchor, op)]
        values = list(image.results) if isinstance(image, Operation) else [image]
        reached: set[Operation] = set()
        for _ in range(distance):
            users = {use.operation for value in values for use in value.uses}
            reached |= users
            values = [result for user in users for result in user.results]
        return [op for op in ops if op in reached and self.ops_equal(anchor, op)]

    def _match_op(
        self, pattern_op: Operation, graph_op: Operation, nodes: dict[Node, Node]
    ) -> bool:
        if pattern_op in nodes:
            return nodes[pattern_op] is graph_op
        if not self.ops_equal(pattern_op, graph_op):
            return False
        if is_literal(pattern_op):
            # A literal is a value, not a node: a shared constant may stand
            # for several pattern literals.
            nodes[pattern_op] = graph_op
            return True
        if graph_op in nodes.values():
            return False
        nodes[pattern_op] = graph_op
        return self._match_values(
            list(pattern_op.operands), list(graph_op.operands), nodes
        )

    def _match_values(
        self,
        pattern: Sequence[SSAValue],
        graph: Sequence[SSAValue],
        nodes: dict[Node, Node],
    ) -> bool:
        for pattern_value, graph_value in zip(pattern, graph, strict=True):
            if isinstance(pattern_value, BlockArgument):
                if not self._bind(pattern_value, graph_value, nodes):
                    return False
                continue
            assert isinstance(pattern_value, OpResult)
            if not isinstance(graph_value, OpResult):
                return False
            if pattern_value.index != graph_value.index:
                return False
            if not self._match_op(pattern_value.owner, graph_value.owner, nodes):
                return False
        return True

    def _bind(
        self, arg: BlockArgument, value: SSAValue, nodes: dict[Node, Node]
    ) -> bool:
        if arg in nodes:
            return nodes[arg] is value
        if self.match_placeholder and not isinstance(value, BlockArgument):
            return False
        if value in nodes.values():
            return False
        nodes[arg] = value
        return True

    def _finish(self, nodes: dict[Node, Node]) -> Iterator[InternalMatch]:
        """Check the complete mapping (FX's containment rules); yield it."""
        matched_ops = {g for p, g in nodes.items() if isinstance(p, Operation)}
        for arg in self.placeholders:
            bound = nodes.get(arg)
            # A wildcard bound to a value computed inside the match is a cycle.
            if isinstance(bound, OpResult) and bound.owner in matched_ops:
                return
        returning = set(self.returning)
        for pattern_op, graph_op in nodes.items():
            # Literals may be shared with the rest of the graph.
            if not isinstance(pattern_op, Operation) or is_literal(pattern_op):
                continue
            assert isinstance(graph_op, Operation)
            for pattern_result, graph_result in zip(
                pattern_op.results, graph_op.results
            ):
                if pattern_result in returning:
                    continue
                if any(use.operation not in matched_ops for use in graph_result.uses):
                    return
        anchors = [nodes[a] for a in self.anchors]
        bound = [nodes[a] for a in self.placeholders if a in nodes]
        yield InternalMatch(
            anchors=anchors,  # type: ignore[arg-type]
            nodes_map=nodes,
            placeholder_nodes=bound,  # type: ignore[arg-type]
            returning_nodes=[_graph_value(v, nodes) for v in self.returning],
        )


def _graph_value(pattern_value: SSAValue, nodes: dict[Node, Node]) -> SSAValue:
    assert isinstance(pattern_value, OpResult)
    owner = nodes[pattern_value.owner]
    assert isinstance(owner, Operation)
    return owner.results[pattern_value.index]


def _without_overlaps(matches: list[InternalMatch]) -> list[InternalMatch]:
    taken: set[Operation] = set()
    kept: list[InternalMatch] = []
    for match in matches:
        ops = match.compute_ops
        if any(op in taken for op in ops):
            continue
        taken.update(ops)
        kept.append(match)
    return kept


def pattern_ops(pattern: func.FuncOp) -> list[Operation]:
    """The pattern's ops (terminator excluded), in order."""
    return [op for op in pattern.body.block.ops if not isinstance(op, func.ReturnOp)]
