"""A dependency graph kept acyclic online: the one cycle mechanism of fxdsl.

`DependencyGraph` holds nodes (partitions, groups, ops: any hashable) and
"must come before" edges. It always keeps a topological order of its nodes
(the Pearce-Kelly online algorithm), so every change that would close a cycle
is caught at the moment it is made, with the cycle spelled out:

* `add_edge(a, b)` raises `CycleError([b, ..., a, b])` when `b` already
  reaches `a` (used by `graph-split` and by the outlining helper);
* `contract(a, b)` merges two nodes into one and refuses (returns None) when
  the merged node would lie on a cycle (used by `graph-partition`);
  `checkpoint()` then `rollback()` split the nodes contracted since apart
  again, in O(their edges) (`graph-dedup` tries a group's copies so).

Cost: an edge that agrees with the current order is O(1). One that disagrees
searches only the *affected window*, the nodes whose order lies between the
two ends, and reorders the ones it visits. Building a graph in program order,
as all passes do, makes nearly every edge agree. A contraction searches the
window from both ends in lockstep and stops when one side runs out, so it
costs at most twice the smaller side (plus O(degree) to move adjacency); the
merged node keeps that side's place and only the nodes that side visited
move.

`topological_order` then lists the nodes by Kahn's algorithm with a chosen
tie-break: FIFO from the roots ("fifo", torch.fx split_module's order) or the
earliest-inserted ready node first ("stable": insertion order wherever that is
a valid order).
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, Literal, TypeVar

from fxdsl.transforms.order_list import OrderList

Node = TypeVar("Node", bound=Hashable)


class CycleError(Exception):
    """Adding an edge would close a cycle; `cycle` lists it, first node last too."""

    def __init__(self, cycle: list[Hashable]):
        self.cycle = cycle
        super().__init__(" -> ".join(str(n) for n in cycle))


class DependencyGraph(Generic[Node]):
    """A DAG with an online topological order (see the module docstring)."""

    def __init__(self, nodes: Iterable[Node] = ()) -> None:
        # dicts as ordered sets keep every traversal deterministic
        self._succ: dict[Node, dict[Node, None]] = {}
        self._pred: dict[Node, dict[Node, None]] = {}
        self._order = OrderList[Node]()
        self._ord = self._order.label  # node -> position label (same dict)
        self._inserted: dict[Node, int] = {}
        self._next = 0
        # the contractions since `checkpoint()`, to undo (None: not kept)
        self._journal: list[_Contraction[Node]] | None = None
        for node in nodes:
            self.add_node(node)

    # ------------------------------------------------------------------ queries

    def __contains__(self, node: object) -> bool:
        return node in self._ord

    def __len__(self) -> int:
        return len(self._ord)

    def nodes(self) -> list[Node]:
        """Nodes in insertion order."""
        return list(self._inserted)

    def successors(self, node: Node) -> list[Node]:
        return list(self._succ[node])

    def predecessors(self, node: Node) -> list[Node]:
        return list(self._pred[node])

    # ---------------------------------------------------------------- changes

    def add_node(self, node: Node) -> None:
        """Add `node` (a no-op when present); it is ordered after all others."""
        if node in self._ord:
            return
        self._succ[node], self._pred[node] = {}, {}
        self._order.append(node)
        self._inserted[node] = self._next
        self._next += 1

    def add_edge(self, src: Node, dst: Node) -> None:
        """Record that `src` must come before `dst`; raise CycleError if `dst`
        already reaches `src` (self-loops are ignored: a node does not depend
        on itself)."""
        if src == dst or dst in self._succ[src]:
            return
        if self._ord[src] > self._ord[dst]:
            low, high = self._ord[dst], self._ord[src]
            forward, parent = self._search(dst, self._succ, low, high, target=src)
            if src in parent:
                raise CycleError(self._rotate(self._path(parent, src) + [dst]))
            backward, _ = self._search(src, self._pred, low, high)
            self._reorder(backward, forward)
        self._succ[src][dst] = None
        self._pred[dst][src] = None

    def contract(self, a: Node, b: Node, budget: int | None = None) -> Node | None:
        """Merge `a` and `b` into one node, unless that node would lie on a
        cycle (a path between them through a third node): then change nothing
        and return None. Returns the surviving node (the one with more edges;
        the other is removed). With a `budget`, a search that expands more
        nodes than that from each end gives up and refuses too (a refusal is
        always safe: it only leaves two nodes apart)."""
        if self._ord[a] > self._ord[b]:
            a, b = b, a
        low, high = self._ord[a], self._ord[b]
        # A path a -> x -> b lies in the window; searching from both ends in
        # lockstep, the side that runs out first proves there is none, after
        # visiting at most as many nodes as the other side would.
        forward = _Walk(self._succ, self._ord, a, low, high, target=b)
        backward = _Walk(self._pred, self._ord, b, low, high, target=a)
        steps = 0
        while forward.step() and backward.step():
            steps += 1
            if budget is not None and steps > budget:
                return None
        if forward.found or backward.found:
            return None
        keep, gone = (a, b) if self._degree(a) >= self._degree(b) else (b, a)
        by_order = self._ord.__getitem__
        if backward.done:
            # The merged node takes a's place, what leads to b moves before it.
            behind = sorted(backward.visited[1:], key=by_order)
            self._order.remove(b) if keep == a else self._order.replace(a, b)
            self._order.move_before(keep, behind)
        else:
            # The merged node takes b's place, what a reaches moves after it.
            ahead = sorted(forward.visited[1:], key=by_order)
            self._order.remove(a) if keep == b else self._order.replace(b, a)
            self._order.move_after(keep, ahead)
        record = _Contraction(keep, gone, gone == a, self._inserted.pop(gone))
        record.succ = list(self._succ.pop(gone))
        for succ in record.succ:
            del self._pred[succ][gone]
            if succ != keep and succ not in self._succ[keep]:
                record.new_succ.append(succ)
                self._succ[keep][succ] = None
                self._pred[succ][keep] = None
        record.pred = list(self._pred.pop(gone))
        for pred in record.pred:
            del self._succ[pred][gone]
            if pred != keep and pred not in self._pred[keep]:
                record.new_pred.append(pred)
                self._pred[keep][pred] = None
                self._succ[pred][keep] = None
        if self._journal is not None:
            self._journal.append(record)
        return keep

    def checkpoint(self) -> None:
        """Remember the graph as it is, for `rollback` (only contractions
        may happen in between)."""
        self._journal = []

    def rollback(self) -> None:
        """Undo the contractions since `checkpoint()`, newest first. Each
        split-off node goes right next to its survivor, on its side: the
        merged node's place is after all its predecessors and before all its
        successors, so the order stays topological."""
        assert self._journal is not None, "rollback without a checkpoint"
        while self._journal:
            record = self._journal.pop()
            keep, gone = record.keep, record.gone
            for succ in record.new_succ:
                del self._succ[keep][succ], self._pred[succ][keep]
            for pred in record.new_pred:
                del self._pred[keep][pred], self._succ[pred][keep]
            self._succ[gone] = dict.fromkeys(record.succ)
            self._pred[gone] = dict.fromkeys(record.pred)
            for succ in record.succ:
                self._pred[succ][gone] = None
            for pred in record.pred:
                self._succ[pred][gone] = None
            self._inserted[gone] = record.inserted
            self._order.insert(keep, gone, after=not record.first)
        self._journal = None

    # ----------------------------------------------------------------- orders

    def topological_order(
        self, policy: Literal["fifo", "stable"] = "stable"
    ) -> list[Node]:
        """All nodes, each after its predecessors (Kahn's algorithm).

        "stable": among ready nodes, the one inserted first (so insertion order
        whenever that order is valid); "fifo": ready nodes in the order they
        became ready, roots first in insertion order (torch.fx's order)."""
        tick = itertools.count()
        key: Callable[[Node], int] = (
            (lambda _: next(tick)) if policy == "fifo" else self._inserted.__getitem__
        )
        indegree = {n: len(p) for n, p in self._pred.items()}
        ready = [(key(n), n) for n in self._inserted if indegree[n] == 0]
        order: list[Node] = []
        while ready:
            node = heapq.heappop(ready)[1]
            order.append(node)
            for succ in self._succ[node]:
                indegree[succ] -= 1
                if indegree[succ] == 0:
                    heapq.heappush(ready, (key(succ), succ))
        assert len(order) == len(indegree), "DependencyGraph lost acyclicity"
        return order

    # ---------------------------------------------------------------- helpers

    def _degree(self, node: Node) -> int:
        return len(self._succ[node]) + len(self._pred[node])

    def _search(
        self,
        start: Node,
        edges: dict[Node, dict[Node, None]],
        low: int,
        high: int,
        target: Node | None = None,
    ) -> tuple[list[Node], dict[Node, Node]]:
        """DFS from `start` along `edges` through nodes whose order lies
        strictly between `low` and `high` (the affected window). Stops at
        `target`. Returns the visited nodes and their DFS parents."""
        parent: dict[Node, Node] = {}
        visited = [start]
        seen = {start}
        stack = [start]
        while stack:
            node = stack.pop()
            for nxt in edges[node]:
                if nxt in seen:
                    continue
                if nxt == target:
                    parent[nxt] = node
                    return visited, parent
                if not low < self._ord[nxt] < high:
                    continue
                seen.add(nxt)
                parent[nxt] = node
                visited.append(nxt)
                stack.append(nxt)
        return visited, parent

    def _reorder(self, backward: list[Node], forward: list[Node]) -> None:
        """Pearce-Kelly: the `backward` nodes take the lowest of the freed
        order slots, the `forward` nodes the rest, each keeping its relative
        order."""
        backward.sort(key=self._ord.__getitem__)
        forward.sort(key=self._ord.__getitem__)
        self._order.permute(backward + forward)

    def _path(self, parent: dict[Node, Node], end: Node) -> list[Node]:
        path = [end]
        while path[-1] in parent:
            path.append(parent[path[-1]])
        return path[::-1]

    def _rotate(self, cycle: list[Node]) -> list[Hashable]:
        """The cycle (closed: first == last) starting at its earliest node."""
        ring = cycle[:-1]
        first = min(range(len(ring)), key=lambda i: self._inserted[ring[i]])
        ring = ring[first:] + ring[:first]
        return [*ring, ring[0]]


class _Contraction(Generic[Node]):
    """What `contract` changed, for `rollback`: `gone`'s edges, the edges it
    gave `keep`, whether `gone` came first, its insertion number."""

    def __init__(self, keep: Node, gone: Node, first: bool, inserted: int) -> None:
        self.keep, self.gone, self.first, self.inserted = keep, gone, first, inserted
        self.succ: list[Node] = []
        self.pred: list[Node] = []
        self.new_succ: list[Node] = []
        self.new_pred: list[Node] = []


class _Walk(Generic[Node]):
    """A DFS from `start` along `edges` through the nodes whose order lies
    strictly between `low` and `high`, one node expanded per `step()`. Stepping
    from a node other than `start` onto `target` sets `found` (a path through a
    third node); `done` when nothing is left to expand."""

    def __init__(
        self,
        edges: dict[Node, dict[Node, None]],
        order: dict[Node, int],
        start: Node,
        low: int,
        high: int,
        target: Node,
    ) -> None:
        self.edges, self.order = edges, order
        self.start, self.low, self.high, self.target = start, low, high, target
        self.visited = [start]
        self.seen = {start}
        self.stack = [start]
        self.found = False

    @property
    def done(self) -> bool:
        return not self.stack

    def step(self) -> bool:
        """Expand one node; False once the walk is over (done or found)."""
        if not self.stack:
            return False
        node = self.stack.pop()
        for nxt in self.edges[node]:
            if nxt == self.target:
                if node != self.start:
                    self.found = True
                    return False
                continue
            if nxt in self.seen or not self.low < self.order[nxt] < self.high:
                continue
            self.seen.add(nxt)
            self.visited.append(nxt)
            self.stack.append(nxt)
        return bool(self.stack)
