"""Region tracking for `graph-dedup`: groups of identical, disjoint regions.

The analysis only reads the IR. `find_region_groups(block, ...)` returns
`RegionGroup`s: k >= min-copies copies of one region, each copy a list of ops
aligned by *local index* (op `l` of every copy plays the same role), the local
order being the first copy's block order.

How regions are found (the idea of TorchDynamo's graph region tracker, made
bidirectional and independent of source lines):

1. Every eligible op (pure, not a terminator, no regions but one straight-
   line block) gets a structural key: name, properties, attributes except
   the provenance `scope`, operand and result types, and the structure of
   its block (a fusion group is one unit). Locations are not attributes and
   never take part.
2. Seed sets: the ops sharing a key, and the same ops split by the keys of
   their producers (to get past stray look-alikes of a layer's ops).
3. Growth, in lockstep: one candidate *tuple* (an op for each copy) at a time,
   producers before consumers, so a copy first takes everything it is
   computed from and only then what consumes it (a stacked layer's boundary
   stays at its input, not inside the next layer). A tuple joins when its ops
   are distinct, unclaimed, share a key and are wired to their copies alike
   (same local indices on every edge to the copy).
4. The biggest unit wins: candidates are ranked by ops per copy, then copies,
   and committed greedily; one that lost ops to a commit is grown again.
5. Collapsibility: replacing every copy of every committed group by one op
   must keep the block acyclic. `DependencyGraph.contract` checks it, copies
   merged one after another on top of the committed groups. A copy that
   cannot be merged is left out while enough copies remain; otherwise the
   refused ops leave every copy (the region shrinks).

Cost: keys and seeds are linear; a growth visits each op of its copies with
its neighbours once; a seed set lying at one local index of an earlier growth
with as many copies is not grown again; the dependency graph is built
once and a refused merge is rolled back (`DependencyGraph.rollback`). A stack
of N equal layers costs O(N * layer size).
"""

from __future__ import annotations

import heapq
from collections import defaultdict, deque
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator, is_side_effect_free

from fxdsl.ir.graph import SCOPE
from fxdsl.ir.utils import block_key
from fxdsl.transforms.dependency_graph import DependencyGraph

Candidate = tuple[Operation | None, ...]
"""One op per copy (None: a block argument), proposed to join all copies."""


@dataclass
class RegionGroup:
    """k identical copies of one region; `copies[r][l]` is op `l` of copy `r`.

    Local order is the first copy's block order (a topological order of every
    copy, since the copies are wired identically)."""

    copies: list[list[Operation]]

    @property
    def size(self) -> int:
        return len(self.copies[0])

    def keep(self, locals_: Sequence[int]) -> RegionGroup:
        return RegionGroup([[copy[i] for i in locals_] for copy in self.copies])


def structural_key(op: Operation) -> Hashable | None:
    """What makes two ops interchangeable, or None when `op` may not join a
    region (side effects, terminators, regions other than one straight-line
    block). An op with one such block (a `graph.fusion_group`) is one unit
    whose body takes part in its key (`ir_utils.block_key`)."""
    if op.has_trait(
        IsTerminator, value_if_unregistered=False
    ) or not is_side_effect_free(op):
        return None
    body: Hashable = ()
    if op.regions:
        if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
            return None
        body = block_key(op.regions[0].block)
        if body is None:
            return None
    attributes = sorted((k, v) for k, v in op.attributes.items() if k != SCOPE)
    return (
        op.name,
        tuple(sorted(op.properties.items())),
        tuple(attributes),
        tuple(o.type for o in op.operands),
        tuple(r.type for r in op.results),
        body,
    )


def producer(value: SSAValue) -> Operation | None:
    """The op defining `value`, or None for a block argument."""
    owner = value.owner
    return owner if isinstance(owner, Operation) else None


def find_region_groups(
    block: Block, min_ops: int = 2, min_copies: int = 2
) -> list[RegionGroup]:
    """Disjoint groups of identical regions in `block`, in commit order (see
    the module docstring). Replacing every copy of every group by one op each
    keeps the block acyclic."""
    return _Tracker(block, min_ops, min_copies).run()


class _Tracker:
    def __init__(self, block: Block, min_ops: int, min_copies: int) -> None:
        self.min_ops, self.min_copies = min_ops, min_copies
        self.position = {op: i for i, op in enumerate(block.ops)}
        interned: dict[Hashable, int] = {}
        self.key: dict[Operation, int] = {}
        for op in block.ops:
            key = structural_key(op)
            if key is not None:
                self.key[op] = interned.setdefault(key, len(interned))
        self.claimed: set[Operation] = set()
        self.found: list[RegionGroup] = []
        # the block with every found copy merged (built on first use)
        self.graph: DependencyGraph[Operation] | None = None

    # ------------------------------------------------------------- selection

    def seed_sets(self) -> list[list[Operation]]:
        by_key: dict[int, list[Operation]] = defaultdict(list)
        by_inputs: dict[Hashable, list[Operation]] = defaultdict(list)
        for op, key in self.key.items():
            by_key[key].append(op)
            inputs = tuple(self.key.get(p, -1) if (p := producer(v)) else -2
                           for v in op.operands)  # fmt: skip
            by_inputs[(key, inputs)].append(op)
        sets = [ops for ops in by_key.values() if len(ops) >= self.min_copies]
        sets += [
            ops
            for ops in by_inputs.values()
            if self.min_copies <= len(ops) < len(by_key[self.key[ops[0]]])
        ]
        return sorted(sets, key=lambda ops: (self.position[ops[0]], -len(ops)))

    def run(self) -> list[RegionGroup]:
        seeds = self.seed_sets()
        heap: list[tuple[int, int, int]] = []
        groups: dict[int, RegionGroup] = {}
        # op -> (seed set, local index) of the first growth that took it: a
        # seed set at one local index of a growth with as many copies would
        # only grow that group again.
        cover: dict[Operation, tuple[int, int]] = {}
        for index, ops in enumerate(seeds):
            spots = {cover.get(op) for op in ops}
            if (
                len(spots) == 1
                and (spot := spots.pop()) is not None
                and len(groups[spot[0]].copies) == len(ops)
            ):
                continue
            if (group := self.grow(ops)) is None:
                continue
            for copy in group.copies:
                for local, op in enumerate(copy):
                    cover.setdefault(op, (index, local))
            groups[index] = group
            heapq.heappush(heap, self.rank(group, index))
        while heap:
            index = heapq.heappop(heap)[2]
            group = groups[index]
            if any(op in self.claimed for copy in group.copies for op in copy):
                updated = self.grow(seeds[index])
            else:
                updated = self.collapsible(group)
            if updated is group:
                self.claimed.update(op for copy in group.copies for op in copy)
                self.found.append(group)
            elif updated is not None:
                groups[index] = updated
                heapq.heappush(heap, self.rank(updated, index))
        return self.found

    def rank(self, group: RegionGroup, index: int) -> tuple[int, int, int]:
        return (-group.size, -len(group.copies), index)

    def acceptable(self, group: RegionGroup) -> RegionGroup | None:
        big_enough = group.size >= self.min_ops
        return group if big_enough and len(group.copies) >= self.min_copies else None

    # ---------------------------------------------------------------- growth

    def grow(self, seeds: Sequence[Operation]) -> RegionGroup | None:
        seeds = sorted((s for s in seeds if s not in self.claimed),
                       key=self.position.__getitem__)  # fmt: skip
        if len(seeds) < self.min_copies:
            return None
        copies = [[seed] for seed in seeds]
        local: list[dict[Operation, int]] = [{seed: 0} for seed in seeds]
        taken = set(seeds)
        producers: deque[Candidate] = deque()
        consumers: deque[Candidate] = deque()
        self.push(seeds, producers, consumers)
        while producers or consumers:
            candidate = producers.popleft() if producers else consumers.popleft()
            members = self.joining(candidate, local, taken)
            if members is None:
                continue
            for r, op in enumerate(members):
                local[r][op] = len(copies[r])
                copies[r].append(op)
                taken.add(op)
            self.push(members, producers, consumers)
        first = copies[0]
        order = sorted(range(len(first)), key=lambda i: self.position[first[i]])
        return self.acceptable(RegionGroup(copies).keep(order))

    def push(
        self,
        members: Sequence[Operation],
        producers: deque[Candidate],
        consumers: deque[Candidate],
    ) -> None:
        for index in range(len(members[0].operands)):
            producers.append(tuple(producer(op.operands[index]) for op in members))
        # users pair up per (result, user key, operand index), in block order
        per_copy = [self.users_by_class(op) for op in members]
        for cls, users in per_copy[0].items():
            lists = [users] + [other.get(cls, []) for other in per_copy[1:]]
            for rank in range(min(len(u) for u in lists)):
                consumers.append(tuple(u[rank] for u in lists))

    def users_by_class(self, op: Operation) -> dict[Hashable, list[Operation]]:
        uses = sorted(
            (self.position.get(use.operation, -1), use.index, i, use.operation)
            for i, result in enumerate(op.results)
            for use in result.uses
            if use.operation in self.key
        )
        classes: dict[Hashable, list[Operation]] = defaultdict(list)
        for _, operand, result, user in uses:
            classes[(result, self.key[user], operand)].append(user)
        return classes

    def joining(
        self,
        candidate: Candidate,
        local: list[dict[Operation, int]],
        taken: set[Operation],
    ) -> list[Operation] | None:
        members = [op for op in candidate if op is not None]
        if len(members) != len(candidate) or len(set(members)) != len(members):
            return None
        if any(op in taken or op in self.claimed for op in members):
            return None
        if len({self.key.get(op) for op in members}) != 1 or members[0] not in self.key:
            return None
        wiring = {self.wiring(op, where) for op, where in zip(members, local)}
        return members if len(wiring) == 1 else None

    def wiring(self, op: Operation, local: dict[Operation, int]) -> Hashable:
        """How `op` connects to the copy it would join, by local indices."""
        producers = [(producer(v), v.index) for v in op.operands]  # type: ignore
        operands = tuple(
            (local[p], index) if p is not None and p in local else None
            for p, index in producers
        )
        users = sorted(
            (local[use.operation], use.index, i)
            for i, result in enumerate(op.results)
            for use in result.uses
            if use.operation in local
        )
        return operands, tuple(users)

    # ------------------------------------------------------- collapsibility

    def collapsible(self, group: RegionGroup) -> RegionGroup | None:
        """`group` itself when its copies merge (on top of the groups found so
        far) without a cycle; else a smaller candidate: without the copies
        that could not merge while enough remain, else without the refused
        ops in every copy. None when too little is left."""
        graph = self.graph = self.graph or self.dependency_graph()
        graph.checkpoint()
        refused = [merge(graph, copy) for copy in group.copies]
        if not any(refused):
            return group
        graph.rollback()
        fine = [copy for copy, bad in zip(group.copies, refused) if not bad]
        if not refused[0] and len(fine) >= self.min_copies:
            return RegionGroup(fine)
        drop = {local for bad in refused for local in bad}
        kept = [local for local in range(group.size) if local not in drop]
        return self.acceptable(group.keep(kept))

    def dependency_graph(self) -> DependencyGraph[Operation]:
        graph = DependencyGraph[Operation](self.position)
        for op in self.position:
            for value in op.operands:
                source = producer(value)
                if source is not None and source in self.position:
                    graph.add_edge(source, op)
        return graph


def merge(graph: DependencyGraph[Operation], copy: list[Operation]) -> list[int]:
    """Merge the ops of `copy` into one node of `graph`, in local order; the
    local indices whose merge would have closed a cycle (left out)."""
    node, refused = copy[0], []
    for local, op in enumerate(copy[1:], start=1):
        merged = graph.contract(node, op)
        if merged is None:
            refused.append(local)
        else:
            node = merged
    return refused
