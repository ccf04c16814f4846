"""torch.fx `CapabilityBasedPartitioner` on the graph dialect.

`propose_partitions()` groups the supported ops of each function body into
the largest groups it can grow such that collapsing every group into one node
leaves the program acyclic; `fuse_partitions()` outlines each group into a
function (`func.call @fused_<id>`) or a `graph.fusion_group`.

Algorithm (near-linear on real programs), torch.fx's: the ops of a block
and their def-use edges go into a `DependencyGraph` (one node per op); then
the ops are visited last to first and a supported op is contracted with the
partition of each supported user, retrying refused users after each success
(a merge can make an earlier one legal). `DependencyGraph.contract` refuses
a merge that would put the merged node on a cycle, which is exactly the trap
`a -> b(unsupported) -> c` plus `a -> c`: `a` and `c` stay apart. Visiting
users first gives torch.fx's partitions where the greedy order matters: an
op that can join either its producers' partition or its users' joins its
users' (tests/transforms/test_fx_peer_partition.py, torch's forward1).
Each contraction searches only the window of the graph's topological order
between the two nodes, and a merged partition takes the lower place, so a
partition growing backwards along a chain is searched over a few nodes.

Then, unless `skip_horizontal_fusion` (torch.fx's flag, default False as
there), partitions that share no edge are merged too, where no cycle forbids
it: every partition is folded into one chain, from the partition of the last
op back (`a + b` and `c + d` become one partition, as torch.fx's forward17
expects). torch.fx retries every pair at every node; here each partition is
tried once, its cycle search capped at `HORIZONTAL_BUDGET` nodes (a capped
search refuses, which is always safe).

Cost O((ops + uses) * w), w the average window: on GPT-2 stacks ~55 us/op at
1k and at 10k ops, outlining included (`benchmarks/bench_graph_partition.py`);
on random DAGs whose operands are drawn from anywhere earlier w grows with
the graph, the quadratic worst case of windowed searches.

`remove_bookend_non_compute_ops(partitions)` then optionally drops the
`non_compute_ops` at a partition's edges (torch.fx's method of that name).

Filtering, after growing: a partition whose ops are all `non_compute_ops` is
dropped; one with a single compute op is a single-node partition, dropped
unless `allows_single_node_partition` or that op is in
`allowed_single_node_partition_ops`. Partition ids count from 0 in program
order (functions in module order, then the first op of each partition).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.traits import IsTerminator

from fxdsl.transforms.dependency_graph import DependencyGraph
from fxdsl.transforms.operator_support import SupportLike, as_support
from fxdsl.transforms.outlining import (
    OutlineCycleError,
    OutlineKind,
    outline_groups,
    unique_symbol,
    used_values,
)

OpName = str | type[Operation]

HORIZONTAL_BUDGET = 64
"""Nodes a horizontal merge's cycle search may expand from each end before
it gives up and keeps the two groups apart."""


@dataclass
class Partition:
    """A group of supported ops of one block, in program order."""

    id: int
    ops: list[Operation] = field(default_factory=list[Operation])

    def __len__(self) -> int:
        return len(self.ops)

    @property
    def block(self) -> Block:
        block = self.ops[0].parent_block()
        assert block is not None
        return block


def _producers(op: Operation, index: dict[Operation, int]) -> list[int]:
    """Indices of the ops of the same block whose values `op` uses."""
    owners = (v.owner for v in used_values(op))
    return [index[o] for o in owners if isinstance(o, Operation) and o in index]


def _producers_of(op: Operation) -> list[Operation]:
    """The ops whose values `op` (or an op nested in it) uses."""
    return [v.owner for v in used_values(op) if isinstance(v.owner, Operation)]


def _users_of(op: Operation) -> list[Operation | None]:
    """The ops of `op`'s block that use its values (directly or nested)."""
    block = op.parent_block()
    assert block is not None
    return [
        block.find_ancestor_op_in_block(use.operation)
        for result in op.results
        for use in result.uses
    ]


def _bookends(
    ordered: Sequence[Operation],
    members: set[Operation],
    is_candidate: Callable[[Operation], bool],
    neighbours: Callable[[Operation], Sequence[Operation | None]],
) -> set[Operation]:
    """The candidate ops of `ordered` whose `neighbours` inside `members` are
    all such ops themselves; `ordered` lists each op after its neighbours
    (program order for producers, reversed for users)."""
    found: set[Operation] = set()
    for op in ordered:
        if is_candidate(op) and all(
            n not in members or n in found for n in neighbours(op)
        ):
            found.add(op)
    return found


def _name(op: OpName) -> str:
    return op if isinstance(op, str) else op.name


class CapabilityBasedPartitioner:
    """Partition the supported ops of `module` (see the module docstring).

    `operator_support` is an `OperatorSupport` or a plain predicate;
    `non_compute_ops` and `allowed_single_node_partition_ops` are op names or
    op classes."""

    def __init__(
        self,
        module: ModuleOp,
        operator_support: SupportLike,
        allows_single_node_partition: bool = False,
        non_compute_ops: Iterable[OpName] = (),
        allowed_single_node_partition_ops: Iterable[OpName] = (),
        skip_horizontal_fusion: bool = False,
    ) -> None:
        self.module = module
        self.operator_support = as_support(operator_support)
        self.allows_single_node_partition = allows_single_node_partition
        self.skip_horizontal_fusion = skip_horizontal_fusion
        self.non_compute_ops = frozenset(map(_name, non_compute_ops))
        self.allowed_single_node_partition_ops = frozenset(
            map(_name, allowed_single_node_partition_ops)
        )

    def propose_partitions(self) -> list[Partition]:
        """Maximal acyclic groups of supported ops, after filtering (functions
        with control flow, several blocks, are left as they are)."""
        groups = [
            group
            for function in self.module.ops
            if isinstance(function, func.FuncOp) and len(function.body.blocks) == 1
            for group in self._grow(function.body.block)
            if self._keep(group)
        ]
        return [Partition(i, ops) for i, ops in enumerate(groups)]

    def fuse_partitions(
        self, partitions: Sequence[Partition], outline: OutlineKind = "func"
    ) -> ModuleOp:
        """Replace each partition by a call of a new private function
        `@fused_<id>` (`outline="func"`) or by a `graph.fusion_group`
        (`outline="group"`); returns the module."""
        if outline not in ("func", "group"):
            raise ValueError(f"outline must be 'func' or 'group', got {outline!r}")
        by_block: dict[Block, list[Partition]] = {}
        for partition in partitions:
            if partition.ops:
                by_block.setdefault(partition.block, []).append(partition)
        taken: set[str] = set()
        for parts in by_block.values():
            names = [unique_symbol(self.module, f"fused_{p.id}", taken) for p in parts]
            try:
                outline_groups([p.ops for p in parts], outline, names)
            except OutlineCycleError as error:
                ids = " -> ".join(str(parts[i].id) for i in error.cycle)
                raise ValueError(
                    f"fuse_partitions: collapsing partitions {ids} makes a cycle"
                ) from error
        return self.module

    def remove_bookend_non_compute_ops(self, partitions: Sequence[Partition]) -> None:
        """Drop, in place, the `non_compute_ops` at the edges of each
        partition (torch.fx's method of that name): one whose operands all
        come from outside the partition or from such dropped ops (a leading
        reshape), or whose users are all outside or dropped (a trailing
        transpose). Non-compute ops between compute ops stay."""
        for partition in partitions:
            members = set(partition.ops)
            is_bookend = self._is_non_compute
            leading = _bookends(partition.ops, members, is_bookend, _producers_of)
            trailing = _bookends(partition.ops[::-1], members, is_bookend, _users_of)
            partition.ops = [
                op for op in partition.ops if op not in leading and op not in trailing
            ]

    def partition_and_fuse(self, outline: OutlineKind = "func") -> ModuleOp:
        """`fuse_partitions(propose_partitions())`."""
        return self.fuse_partitions(self.propose_partitions(), outline)

    # ----------------------------------------------------------------- helpers

    def _grow(self, block: Block) -> list[list[Operation]]:
        """Supported ops of `block` grouped by contraction, in program order.

        As torch.fx, ops are visited last to first and each supported op is
        contracted with the partitions of its supported users."""
        ops = [
            op
            for op in block.ops
            if not op.has_trait(IsTerminator, value_if_unregistered=False)
        ]
        index = {op: i for i, op in enumerate(ops)}
        graph = DependencyGraph[int]()
        users: list[list[int]] = [[] for _ in ops]
        for i, op in enumerate(ops):
            graph.add_node(i)
            for producer in dict.fromkeys(_producers(op, index)):
                graph.add_edge(producer, i)
                users[producer].append(i)
        merged_into = list(range(len(ops)))  # union-find parents over op indices
        supported: set[int] = set()

        def find(node: int) -> int:
            while merged_into[node] != node:
                merged_into[node] = merged_into[merged_into[node]]
                node = merged_into[node]
            return node

        for i in reversed(range(len(ops))):
            if not self.operator_support.is_node_supported(ops[i]):
                continue
            supported.add(i)
            candidates = [u for u in users[i] if u in supported]
            progress = True
            while progress:
                progress = False
                for user in candidates:
                    mine, theirs = find(i), find(user)
                    if mine == theirs:
                        continue
                    survivor = graph.contract(theirs, mine)
                    if survivor is not None:
                        merged_into[mine] = merged_into[theirs] = survivor
                        progress = True
        if not self.skip_horizontal_fusion:
            self._merge_horizontally(graph, sorted(supported), find, merged_into)
        groups: dict[int, list[Operation]] = {}
        for i in sorted(supported):
            groups.setdefault(find(i), []).append(ops[i])
        return list(groups.values())

    @staticmethod
    def _merge_horizontally(
        graph: DependencyGraph[int],
        supported: list[int],
        find: Callable[[int], int],
        merged_into: list[int],
    ) -> None:
        """torch.fx's horizontal fusion: fold every partition into one chain
        where no cycle forbids it, in torch's order (the partition of the
        last op first), so independent groups (`a + b`, `c + d`) share one.
        One try per partition, each search capped at `HORIZONTAL_BUDGET`
        nodes from each end: two groups far apart in a sequential model
        (every layer's group depends on the last) are refused after a few
        steps instead of a walk over the layers between, which made the
        fold quadratic (GPT-2 stacks: 2.4x slower per op at 10k ops)."""
        newest: dict[int, int] = {}
        for i in supported:
            newest[find(i)] = i
        order = sorted(newest, key=newest.__getitem__, reverse=True)
        if len(order) < 2:
            return
        chain = order[0]
        for other in order[1:]:
            survivor = graph.contract(find(chain), find(other), HORIZONTAL_BUDGET)
            if survivor is not None:
                merged_into[find(chain)] = merged_into[find(other)] = survivor
                chain = survivor

    def _is_non_compute(self, op: Operation) -> bool:
        return op.name in self.non_compute_ops

    def _keep(self, ops: list[Operation]) -> bool:
        compute = [op for op in ops if op.name not in self.non_compute_ops]
        if not compute:
            return False
        if len(compute) > 1 or self.allows_single_node_partition:
            return True
        return compute[0].name in self.allowed_single_node_partition_ops
