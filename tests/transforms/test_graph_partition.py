"""graph-partition and the CapabilityBasedPartitioner API.

Operator-support combinators, the partitioner's rules (cycle trap, islands,
single-node and non-compute filtering), outlining as func or group, driver
errors, and a differential test on random programs with random supported-op
sets: partitions are checked with a brute-force cycle test written here, and
the fused program must verify and compute the same values.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

import fxdsl
from fxdsl.ir import graph as g
from fxdsl.ir import utils as ir_utils
from fxdsl.rewrite import (
    CapabilityBasedPartitioner,
    OpAllowList,
    OperatorSupport,
    Partition,
    any_chain,
    chain,
)
from fxdsl.testing import assert_same_numerics, clone_module, graphs
from fxdsl.transforms.dependency_graph import DependencyGraph

# the fixtures of tests/transforms/conftest.py
Edges = set[tuple[Hashable, Hashable]]
EdgeFinder = Callable[[Iterable[Operation], Mapping[Operation, Hashable]], Edges]

TRAP = """
func.func @trap(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = graph.exp %x : tensor<4xf32>
  %b = graph.tanh %a : tensor<4xf32>
  %c = graph.add %a, %b : tensor<4xf32>
  %d = graph.mul %c, %a : tensor<4xf32>
  func.return %d : tensor<4xf32>
}
"""

ISLANDS = """
func.func @islands(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a = graph.exp %x : tensor<4x4xf32>
  %b = graph.neg %a : tensor<4x4xf32>
  %m = graph.matmul %b, %w : tensor<4x4xf32>
  %c = graph.exp %m : tensor<4x4xf32>
  %d = graph.add %c, %m : tensor<4x4xf32>
  func.return %d, %b : tensor<4x4xf32>, tensor<4x4xf32>
}
"""

RESHAPES = """
func.func @f(%x: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<16xf32>) {
  %r = graph.reshape %x : (tensor<4x4xf32>) -> tensor<16xf32>
  %r2 = graph.reshape %r : (tensor<16xf32>) -> tensor<4x4xf32>
  %t = graph.tanh %r2 : tensor<4x4xf32>
  %v = graph.reshape %t : (tensor<4x4xf32>) -> tensor<16xf32>
  %e = graph.exp %v : tensor<16xf32>
  func.return %r2, %e : tensor<4x4xf32>, tensor<16xf32>
}
"""


def _names(partitions: list[Partition]) -> list[list[str]]:
    return [[op.name.removeprefix("graph.") for op in p.ops] for p in partitions]


def _ops(text: str) -> dict[str, Operation]:
    module = fxdsl.parse(text)
    return {op.name: op for op in module.walk()}


# --------------------------------------------------------------- support


def test_allow_list_names_and_wildcards() -> None:
    ops = _ops(ISLANDS)
    exact = OpAllowList(["graph.exp", "graph.add"])
    assert [
        exact.is_node_supported(ops[n]) for n in ("graph.exp", "graph.add", "graph.neg")
    ] == [True, True, False]
    dialect = OpAllowList(["graph.*"])
    assert dialect.is_node_supported(ops["graph.matmul"])
    assert not dialect.is_node_supported(ops["func.return"])


def test_chain_and_any_chain() -> None:
    ops = _ops(ISLANDS)
    no_matmul = lambda op: op.name != "graph.matmul"
    both = chain(OpAllowList(["graph.*"]), no_matmul)
    either = any_chain(OpAllowList(["graph.exp"]), OpAllowList(["graph.neg"]))
    table = {
        "graph.exp": (True, True),
        "graph.neg": (True, True),
        "graph.matmul": (False, False),
        "graph.add": (True, False),
        "func.return": (False, False),
    }
    for name, (want_all, want_any) in table.items():
        assert both.is_node_supported(ops[name]) is want_all, name
        assert either.is_node_supported(ops[name]) is want_any, name
    assert chain().is_node_supported(ops["graph.exp"])
    assert not any_chain().is_node_supported(ops["graph.exp"])
    # nesting and call syntax
    nested = any_chain(
        chain(OpAllowList(["graph.add"]), no_matmul), OpAllowList(["func.*"])
    )
    assert nested(ops["graph.add"])
    assert nested(ops["func.return"])
    assert not nested(ops["graph.exp"])
    with pytest.raises(TypeError):
        chain(3)  # type: ignore[arg-type]


def test_custom_operator_support_subclass() -> None:
    class FloatOnly(OperatorSupport):
        def is_node_supported(self, op: Operation) -> bool:
            return op.name != "graph.matmul"

    module = fxdsl.parse(ISLANDS)
    partitions = CapabilityBasedPartitioner(module, FloatOnly()).propose_partitions()
    assert _names(partitions) == [["exp", "neg"], ["exp", "add"]]


def test_duck_typed_operator_support() -> None:
    # torch.fx takes any object with is_node_supported; so do we (issue 21)
    class NotASubclass:
        def is_node_supported(self, op: Operation) -> bool:
            return op.name != "graph.matmul"

    module = fxdsl.parse(ISLANDS)
    support = NotASubclass()
    partitions = CapabilityBasedPartitioner(module, support).propose_partitions()
    assert _names(partitions) == [["exp", "neg"], ["exp", "add"]]
    exp = next(op for op in module.walk() if op.name == "graph.exp")
    assert chain(support, OpAllowList(["graph.exp"]))(exp)


# ------------------------------------------------------------ partitioner


def test_cycle_trap_keeps_a_and_c_apart() -> None:
    support = OpAllowList(["graph.exp", "graph.add", "graph.mul"])
    module = fxdsl.parse(TRAP)
    partitions = CapabilityBasedPartitioner(module, support).propose_partitions()
    assert _names(partitions) == [["add", "mul"]]
    assert [p.id for p in partitions] == [0]
    single = CapabilityBasedPartitioner(
        module, support, allows_single_node_partition=True
    ).propose_partitions()
    assert _names(single) == [["exp"], ["add", "mul"]]
    assert [p.id for p in single] == [0, 1]


def test_islands_are_separate_partitions() -> None:
    support = OpAllowList(["graph.exp", "graph.neg", "graph.add"])
    module = fxdsl.parse(ISLANDS)
    partitions = CapabilityBasedPartitioner(module, support).propose_partitions()
    assert _names(partitions) == [["exp", "neg"], ["exp", "add"]]


def test_single_node_partitions_allowed_per_op() -> None:
    support = OpAllowList(["graph.exp", "graph.add", "graph.mul"])
    module = fxdsl.parse(TRAP)
    by_name = CapabilityBasedPartitioner(
        module, support, allowed_single_node_partition_ops=["graph.exp"]
    ).propose_partitions()
    by_class = CapabilityBasedPartitioner(
        module, support, allowed_single_node_partition_ops=[g.ExpOp]
    ).propose_partitions()
    other = CapabilityBasedPartitioner(
        module, support, allowed_single_node_partition_ops=[g.TanhOp]
    ).propose_partitions()
    assert _names(by_name) == _names(by_class) == [["exp"], ["add", "mul"]]
    assert _names(other) == [["add", "mul"]]


def test_non_compute_only_partitions_are_dropped() -> None:
    support = OpAllowList(["graph.reshape", "graph.exp"])
    module = fxdsl.parse(RESHAPES)
    kept = CapabilityBasedPartitioner(
        module, support, allows_single_node_partition=True
    ).propose_partitions()
    assert _names(kept) == [["reshape", "reshape"], ["reshape", "exp"]]
    dropped = CapabilityBasedPartitioner(
        module, support, allows_single_node_partition=True,
        non_compute_ops=["graph.reshape"],
    ).propose_partitions()  # fmt: skip
    assert _names(dropped) == [["reshape", "exp"]]
    # one compute op: a single-node partition, however many reshapes it holds
    strict = CapabilityBasedPartitioner(
        module, support, non_compute_ops=[g.ReshapeOp]
    ).propose_partitions()
    assert strict == []


@pytest.mark.parametrize("outline", ["func", "group"])
def test_fuse_partitions_outline_kinds(outline: str) -> None:
    support = OpAllowList(["graph.exp", "graph.neg", "graph.add"])
    module = fxdsl.parse(ISLANDS)
    before = clone_module(module)
    partitioner = CapabilityBasedPartitioner(module, support)
    assert partitioner.partition_and_fuse(outline) is module  # type: ignore[arg-type]
    module.verify()
    functions = ir_utils.functions(module)
    body = [op.name for op in functions[0].body.block.ops]
    if outline == "func":
        assert [f.sym_name.data for f in functions] == ["islands", "fused_0", "fused_1"]
        assert body == ["func.call", "graph.matmul", "func.call", "func.return"]
    else:
        assert len(functions) == 1
        assert body == [
            "graph.fusion_group",
            "graph.matmul",
            "graph.fusion_group",
            "func.return",
        ]
    assert_same_numerics(before, module)


def test_fuse_rejects_cyclic_partitions_and_bad_kind() -> None:
    module = fxdsl.parse(TRAP)
    ops = [op for op in module.walk() if op.name.startswith("graph.")]
    partitioner = CapabilityBasedPartitioner(module, OpAllowList(["graph.*"]))
    with pytest.raises(ValueError, match="outline must be"):
        kernel: Any = "kernel"
        partitioner.fuse_partitions([Partition(0, ops[:1])], kernel)
    exp, _tanh, add, _mul = ops
    with pytest.raises(ValueError, match="collapsing partitions 7 -> 7 makes a cycle"):
        partitioner.fuse_partitions([Partition(7, [exp, add])])


# ---------------------------------------------------------------- driver


@pytest.mark.parametrize(
    ("pipeline", "message"),
    [
        ("graph-partition{ops}", "option ops is empty"),
        ("graph-partition{ops=add allow-single-node=3}", "expects true or false"),
        ("graph-partition{ops=add max_groups=3}", "unknown option max_groups"),
        ("graph-partition{allow_single_node=3}", "option allow-single-node expects"),
        ("graph-partition{ops=addd}", "ops: unknown op 'graph.addd'"),
        ('graph-partition{ops="nodialect.*"}', "unknown op 'nodialect.*'"),
        ("graph-partition{ops=add non-compute-ops=foo}", "non-compute-ops: unknown op"),
        ("graph-partition{ops=add outline=kernel}", "outline must be func or group"),
        ("graph-partition{ops=graph.nosuch}", "unknown op 'graph.nosuch'"),
        ("graph-partition{ops=add allow-single-node=3}", "error:"),
    ],
)
def test_driver_errors(
    fxdsl_opt_error: Callable[[str, str], str], pipeline: str, message: str
) -> None:
    assert message in fxdsl_opt_error(TRAP, pipeline)


def test_default_supports_every_graph_op() -> None:
    # `-p graph-partition` with no options works (it failed: "ops is empty")
    module = fxdsl.parse(TRAP)
    fxdsl.apply(module, "graph-partition{outline=group}")
    groups = [op for op in module.walk() if isinstance(op, g.FusionGroupOp)]
    assert [len(list(grp.body.block.ops)) for grp in groups] == [5]


def test_pass_matches_python_api() -> None:
    module = fxdsl.parse(ISLANDS)
    fxdsl.apply(module, 'graph-partition{ops=exp,"graph.neg",add outline=group}')
    groups = [op for op in module.walk() if isinstance(op, g.FusionGroupOp)]
    assert [[o.name for o in grp.body.block.ops] for grp in groups] == [
        ["graph.exp", "graph.neg", "graph.yield"],
        ["graph.exp", "graph.add", "graph.yield"],
    ]


# ---------------------------------------------------------- differential


def _units(
    ops: list[Operation], groups: list[list[Operation]]
) -> dict[Operation, Hashable]:
    unit: dict[Operation, Hashable] = {op: op for op in ops}
    for index, members in enumerate(groups):
        unit.update({op: ("p", index) for op in members})
    return unit


SUPPORTABLE = sorted(
    op.name for op in g.GRAPH_OPS if op not in (g.YieldOp, g.FusionGroupOp)
)


@settings(
    max_examples=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    module=graphs(max_ops=30),
    supported=st.sets(st.sampled_from(SUPPORTABLE), min_size=1),
    single=st.booleans(),
    outline=st.sampled_from(["func", "group"]),
)
def test_random_partition_differential(
    contracted_edges: EdgeFinder,
    is_acyclic: Callable[[Edges], bool],
    module: ModuleOp,
    supported: set[str],
    single: bool,
    outline: str,
) -> None:
    main = ir_utils.functions(module)[0]
    ops = list(main.body.block.ops)[:-1]
    support = OpAllowList(sorted(supported))
    partitioner = CapabilityBasedPartitioner(
        module, support, allows_single_node_partition=single
    )
    partitions = partitioner.propose_partitions()
    groups = [p.ops for p in partitions]
    flat = [op for grp in groups for op in grp]
    assert len(flat) == len(set(flat)), "an op is in two partitions"
    assert all(op.name in supported for op in flat)
    assert all(len(grp) >= 2 for grp in groups) or single
    assert [p.id for p in partitions] == list(range(len(partitions)))
    unit = _units(ops, groups)
    assert is_acyclic(contracted_edges(ops, unit)), (
        "collapsing the partitions makes a cycle"
    )
    if single:
        # maximal along edges: no two partitions joined by an edge can merge
        for a, b in contracted_edges(ops, unit):
            if isinstance(a, tuple) and isinstance(b, tuple):
                merged = {
                    op: (("p", -1) if u in (a, b) else u) for op, u in unit.items()
                }
                assert not is_acyclic(contracted_edges(ops, merged)), (a, b)
        # every supported op is in some partition when single nodes are kept
        assert {op for op in ops if op.name in supported} == set(flat)
    before = clone_module(module)
    partitioner.fuse_partitions(partitions, outline)  # type: ignore[arg-type]
    module.verify()
    # the pass on a copy prints the same text: deterministic, same as the API
    again = clone_module(before)
    names = ",".join(f'"{name}"' for name in sorted(supported))
    flags = f"outline={outline}" + (" allow-single-node=true" if single else "")
    fxdsl.apply(again, f"graph-partition{{ops={names} {flags}}}")
    assert str(again) == str(module)
    new_ops = [op.name for op in main.body.block.ops]
    kind = "func.call" if outline == "func" else "graph.fusion_group"
    assert new_ops.count(kind) == len(partitions)
    assert_same_numerics(before, module)


def _random_dag(
    rng: random.Random,
) -> tuple[int, set[tuple[int, int]], DependencyGraph[int]]:
    """Up to 9 nodes, up to 15 edges from lower to higher numbers."""
    n = rng.randint(2, 9)
    edges = {tuple(sorted(rng.sample(range(n), 2))) for _ in range(rng.randint(0, 15))}
    graph = DependencyGraph[int](range(n))
    for a, b in sorted(edges):
        graph.add_edge(a, b)
    return n, edges, graph  # type: ignore[return-value]


@pytest.mark.parametrize("seed", range(4))
def test_dependency_graph_contract_against_brute_force(
    is_acyclic: Callable[[Edges], bool], seed: int
) -> None:
    """`contract` refuses exactly the merges whose collapse makes a cycle and
    keeps a valid order and the collapsed edges after each one."""
    rng = random.Random(seed)
    for _ in range(150):
        n, edges, graph = _random_dag(rng)
        rep = {i: i for i in range(n)}  # op -> surviving node of its group
        for _ in range(rng.randint(0, 8)):
            roots = sorted(set(rep.values()))
            if len(roots) < 2:
                break
            x, y = rng.sample(roots, 2)
            merged = {v: ("m" if r in (x, y) else r) for v, r in rep.items()}
            collapsed = {
                (merged[a], merged[b]) for a, b in edges if merged[a] != merged[b]
            }
            survivor = graph.contract(x, y)
            assert (survivor is not None) == is_acyclic(collapsed), (edges, rep, x, y)
            if survivor is None:
                continue
            assert survivor in (x, y)
            assert len(graph) == len(roots) - 1
            rep = {v: (survivor if r in (x, y) else r) for v, r in rep.items()}
            order = {node: i for i, node in enumerate(graph.topological_order())}
            for a, b in edges:
                if rep[a] != rep[b]:
                    assert rep[b] in graph.successors(rep[a])
                    assert order[rep[a]] < order[rep[b]]
                    # the invariant the windowed searches rely on
                    assert graph._ord[rep[a]] < graph._ord[rep[b]]  # pyright: ignore


@pytest.mark.parametrize("seed", range(4))
def test_a_rollback_splits_contracted_nodes_apart_again(
    is_acyclic: Callable[[Edges], bool], seed: int
) -> None:
    """After `checkpoint`, contractions, `rollback`: every node and edge is
    back, the kept order is topological (the windowed searches rely on it),
    and contractions then refuse exactly the cyclic merges again."""
    rng = random.Random(seed)
    for _ in range(150):
        n, edges, graph = _random_dag(rng)
        for _round in range(2):
            graph.checkpoint()
            for _ in range(rng.randint(1, 6)):
                nodes = sorted(graph.nodes())
                if len(nodes) < 2:
                    break
                graph.contract(*rng.sample(nodes, 2))
            graph.rollback()
            assert sorted(graph.nodes()) == list(range(n))
            assert {(a, b) for a in range(n) for b in graph.successors(a)} == edges
            assert {(a, b) for b in range(n) for a in graph.predecessors(b)} == edges
            for a, b in edges:
                assert graph._ord[a] < graph._ord[b]  # pyright: ignore
        x, y = rng.sample(range(n), 2)
        collapsed = {
            (("m" if a in (x, y) else a), ("m" if b in (x, y) else b))
            for a, b in edges
            if {a, b} != {x, y}
        }
        assert (graph.contract(x, y) is not None) == is_acyclic(collapsed)


def test_a_budgeted_contract_refuses_a_long_search() -> None:
    """Node 0 starts a chain 0 -> ... -> 19 and node 40 ends another, 20 ->
    ... -> 40, with no edge between them: the merge is legal, but proving it
    walks a chain from each end; with a budget the search gives up and
    refuses (safe), leaving the graph unchanged."""
    graph = DependencyGraph[int](range(41))
    for i in [*range(19), *range(20, 40)]:
        graph.add_edge(i, i + 1)
    assert graph.contract(0, 40, budget=8) is None
    assert len(graph) == 41
    assert graph.contract(0, 40, budget=30) is not None
    assert len(graph) == 40
