"""The dependency graph of one block, contracted as ops join fusion groups.

`FusionGraph` is the one mechanism `graph-fuse` uses for acyclicity: nodes are
sets of top-level ops (union-find over the block's ops), edges are def-use
edges between them, and every node carries a position `order[node]` that is
kept a topological order of the contracted graph at all times
(Pearce & Kelly's dynamic topological order). Contracting nodes `a` and `b`
(`order[a] < order[b]`) is legal iff no path `a -> x -> ... -> b` leaves the
pair; such a path only visits nodes ordered between them, so the search is
confined to that window and, past `search_limit` nodes, gives up and refuses
(deterministically), which keeps the pass near-linear on any graph. After a
contraction the nodes of the window that lead to `b` move before the merged
node and those reachable from `a` after it, reusing their own positions.

Nodes also track their ports: `inputs` (values from outside the node, not
constants, which groups clone) and `outputs` (values used outside it).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from xdsl.ir import Block, Operation, SSAValue, Use
from xdsl.traits import ConstantLike

OUTSIDE = -1
"""Pseudo node for what is not an op of the block: its arguments, values and
users in other blocks."""


class FusionGraph:
    """Union-find of a block's ops with a maintained topological order."""

    def __init__(self, block: Block, search_limit: int = 512):
        self.block = block
        self.ops: list[Operation] = list(block.ops)
        self.index: dict[Operation, int] = {op: i for i, op in enumerate(self.ops)}
        self.search_limit = search_limit
        count = len(self.ops)
        self.parent = list(range(count))
        self.order = list(range(count))
        self.members: list[list[Operation]] = [[op] for op in self.ops]
        self.succ: list[set[int]] = [set() for _ in range(count)]
        self.pred: list[set[int]] = [set() for _ in range(count)]
        self.inputs: list[set[SSAValue]] = [set() for _ in range(count)]
        self.outputs: list[set[SSAValue]] = [set() for _ in range(count)]
        for i, op in enumerate(self.ops):
            for value in op.operands:
                owner = self.owner(value)
                if owner != OUTSIDE:
                    self.succ[owner].add(i)
                    self.pred[i].add(owner)
                if not is_constant(value):
                    self.inputs[i].add(value)
            self.outputs[i] = {r for r in op.results if r.first_use is not None}

    # ------------------------------------------------------------------ #
    # Lookup
    # ------------------------------------------------------------------ #

    def find(self, node: int) -> int:
        root = node
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[node] != root:
            self.parent[node], node = root, self.parent[node]
        return root

    def node_of(self, op: Operation) -> int:
        """The node holding `op` or the top-level op that contains it."""
        top = op
        if op.parent is not self.block:
            top = self.block.find_ancestor_op_in_block(op)
        return OUTSIDE if top is None else self.find(self.index[top])

    def owner(self, value: SSAValue) -> int:
        """The node defining `value` (OUTSIDE for block arguments)."""
        owner = value.owner
        return self.node_of(owner) if isinstance(owner, Operation) else OUTSIDE

    def roots(self) -> list[int]:
        """Current nodes in topological order."""
        live = [i for i in range(len(self.ops)) if self.parent[i] == i]
        return sorted(live, key=self.order.__getitem__)

    def users(self, value: SSAValue) -> Iterable[int]:
        return (self.node_of(use.operation) for use in value.uses)

    def edges_between(self, a: int, b: int) -> Iterator[tuple[SSAValue, Use]]:
        """Def-use edges `(value, use)` between nodes `a` and `b`, either way
        (walks the smaller node's ops)."""
        small, big = sorted((a, b), key=lambda n: len(self.members[n]))
        for op in self.members[small]:
            for operand in op.operands:
                if self.owner(operand) == big:
                    yield from ((operand, u) for u in operand.uses if u.operation is op)
            for result in op.results:
                yield from (
                    (result, u) for u in result.uses if self.node_of(u.operation) == big
                )

    # ------------------------------------------------------------------ #
    # Contraction
    # ------------------------------------------------------------------ #

    def merged_ports(self, a: int, b: int) -> tuple[set[SSAValue], set[SSAValue]]:
        """The inputs and outputs the node `a + b` would have."""
        pair = (a, b)
        inputs = {
            v for v in self.inputs[a] | self.inputs[b] if self.owner(v) not in pair
        }
        outputs = {
            v
            for v in self.outputs[a] | self.outputs[b]
            if any(user not in pair for user in self.users(v))
        }
        return inputs, outputs

    def window(self, a: int, b: int) -> tuple[list[int], list[int]] | None:
        """For `order[a] < order[b]`: the nodes of the window reachable from
        `a` (with `a`) and those leading to `b` (with `b`); None when
        contracting the pair would close a cycle or the search is too big."""
        low, high = self.order[a], self.order[b]
        forward, stack = {a}, [a]
        while stack:
            node = stack.pop()
            for nxt in self.succ[node]:
                if nxt == b and node != a:
                    return None
                if nxt not in forward and self.order[nxt] < high:
                    forward.add(nxt)
                    stack.append(nxt)
            if len(forward) > self.search_limit:
                return None
        backward, stack = {b}, [b]
        while stack:
            node = stack.pop()
            for prev in self.pred[node]:
                if prev not in backward and self.order[prev] > low:
                    backward.add(prev)
                    stack.append(prev)
            if len(backward) > self.search_limit:
                return None
        by_order = self.order.__getitem__
        return sorted(forward, key=by_order), sorted(backward, key=by_order)

    def contract(
        self,
        a: int,
        b: int,
        window: tuple[list[int], list[int]],
        ports: tuple[set[SSAValue], set[SSAValue]],
    ) -> int:
        """Merge nodes `a` and `b` (checked with `window`); returns the root."""
        forward, backward = window
        slots = sorted(self.order[n] for n in forward + backward)
        keep, gone = (a, b) if len(self.members[a]) >= len(self.members[b]) else (b, a)
        sequence = [n for n in backward if n != b] + [keep] + forward[1:]
        for node, slot in zip(sequence, slots):
            self.order[node] = slot
        self.parent[gone] = keep
        self.members[keep].extend(self.members[gone])
        self.members[gone] = []
        for nxt in self.succ[gone]:
            self.pred[nxt].discard(gone)
            self.pred[nxt].add(keep)
        for prev in self.pred[gone]:
            self.succ[prev].discard(gone)
            self.succ[prev].add(keep)
        self.succ[keep] |= self.succ[gone]
        self.pred[keep] |= self.pred[gone]
        for edges in (self.succ[keep], self.pred[keep]):
            edges.discard(keep)
            edges.discard(gone)
        self.succ[gone], self.pred[gone] = set(), set()
        self.inputs[keep], self.outputs[keep] = ports
        self.inputs[gone], self.outputs[gone] = set(), set()
        return keep


def is_constant(value: SSAValue) -> bool:
    """Values of constant ops: cloned into groups, never passed to them."""
    owner = value.owner
    return isinstance(owner, Operation) and owner.has_trait(
        ConstantLike, value_if_unregistered=False
    )
