"""graph-split: the Python API, error paths and a differential test.

The differential test draws random programs and random partition assignments
and checks, with a cycle test written here independently of the pass, that the
pass fails exactly when the partition graph is cyclic and otherwise keeps the
numerics.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Mapping
from itertools import pairwise
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i64
from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException

import fxdsl
from fxdsl.ir import utils as ir_utils
from fxdsl.testing import assert_same_numerics, clone_module, graphs
from fxdsl.transforms.dependency_graph import CycleError, DependencyGraph
from fxdsl.transforms.graph_split import PARTITION, split_module
from fxdsl.transforms.outlining import is_constant

DOC = """
func.func @doc(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %param: tensor<4x8xf32>,
               %w: tensor<8x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.add %x, %param : tensor<4x8xf32>
  %1 = graph.linear %0, %w, %b
         : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %2 = graph.relu %1 : tensor<4x8xf32>
  %3 = graph.linear %y, %w, %b
         : (tensor<4x8xf32>, tensor<8x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %4 = graph.relu %3 : tensor<4x8xf32>
  %5 = graph.add %2, %4 : tensor<4x8xf32>
  func.return %5 : tensor<4x8xf32>
}
"""


# the fixtures of tests/transforms/conftest.py
Edges = set[tuple[Hashable, Hashable]]
EdgeFinder = Callable[[Iterable[Operation], Mapping[Operation, Hashable]], Edges]


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in ir_utils.functions(module)}


def _body(function: func.FuncOp) -> list[Operation]:
    return list(function.body.block.ops)[:-1]


def _round_robin(n: int):
    counter = iter(range(10**6))
    return lambda op: next(counter) % n


def test_split_module_round_robin_doc_example() -> None:
    module = fxdsl.parse(DOC)
    before = clone_module(module)
    split_module(module, _round_robin(3))
    module.verify()
    functions = _functions(module)
    assert sorted(functions) == ["doc", "submod_0", "submod_1", "submod_2"]
    calls = _body(functions["doc"])
    assert [c.callee.string_value() for c in calls] == [  # type: ignore[attr-defined]
        "submod_0",
        "submod_1",
        "submod_2",
    ]
    # partition 0 = {add x, linear y}: five inputs, two outputs
    assert len(calls[0].operands) == 5
    assert len(calls[0].results) == 2
    assert all(f.sym_visibility is not None for n, f in functions.items() if n != "doc")
    assert_same_numerics(before, module)


def test_split_module_callback_sees_no_constants() -> None:
    module = fxdsl.parse(
        """
        func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
          %c = graph.constant dense<2.0> : tensor<4xf32>
          %a = graph.mul %x, %c : tensor<4xf32>
          %b = graph.add %a, %c : tensor<4xf32>
          func.return %b : tensor<4xf32>
        }
        """
    )
    seen: list[str] = []
    before = clone_module(module)
    split_module(module, lambda op: seen.append(op.name) or len(seen) - 1)
    assert seen == ["graph.mul", "graph.add"]
    functions = _functions(module)
    for name in ("submod_0", "submod_1"):
        assert _body(functions[name])[0].name == "graph.constant"
    assert [op.name for op in _body(functions["f"])] == ["func.call"] * 2
    assert_same_numerics(before, module)


def test_keep_original_order_differs_from_fifo() -> None:
    text = """
    func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
      %a = graph.exp %x : tensor<4xf32>
      %b = graph.neg %a : tensor<4xf32>
      %c = graph.tanh %x : tensor<4xf32>
      func.return %b, %c : tensor<4xf32>, tensor<4xf32>
    }
    """
    orders = {}
    for keep in (False, True):
        module = fxdsl.parse(text)
        split_module(module, _round_robin(3), keep_original_order=keep)
        calls = _body(_functions(module)["f"])
        orders[keep] = [c.callee.string_value() for c in calls]  # type: ignore
    assert orders[False] == ["submod_0", "submod_2", "submod_1"]
    assert orders[True] == ["submod_0", "submod_1", "submod_2"]


def test_cycle_raises_naming_partitions() -> None:
    module = fxdsl.parse(DOC)
    # add->0, linear->1, relu->0: 0 -> 1 -> 0
    ids = iter([0, 1, 0, 2, 2, 2])
    with pytest.raises(PassFailedException, match=r"partitions 0 -> 1 -> 0$"):
        split_module(module, lambda op: next(ids))


def test_numpy_integer_ids_are_accepted() -> None:
    module = fxdsl.parse(DOC)
    split_module(module, lambda op: np.int64(0))
    assert sorted(_functions(module)) == ["doc", "submod_0"]


def test_bad_callback_values_raise() -> None:
    for bad in (-1, "a", None, True):
        module = fxdsl.parse(DOC)
        with pytest.raises(PassFailedException, match="must be an integer >= 0"):
            split_module(module, lambda op, bad=bad: bad)  # type: ignore[misc]


@pytest.mark.parametrize(
    ("text", "pipeline", "message"),
    [
        (
            "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %a = graph.exp %x {graph.partition = 0 : i64} : tensor<4xf32>\n"
            "  %b = graph.neg %a : tensor<4xf32>\n"
            "  func.return %b : tensor<4xf32>\n}\n",
            "graph-split",
            "{file}:3:3: error: graph-split: graph.neg has no graph.partition",
        ),
        (
            "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            '  %a = graph.exp %x {graph.partition = "x"} : tensor<4xf32>\n'
            "  func.return %a : tensor<4xf32>\n}\n",
            "graph-split",
            '{file}:2:3: error: graph-split: graph.partition of graph.exp must be an integer, got "x"',
        ),
        (
            "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %a = graph.exp %x {graph.partition = 0 : i64} : tensor<4xf32>\n"
            "  %b = graph.neg %a {graph.partition = 1 : i64} : tensor<4xf32>\n"
            "  %c = graph.add %a, %b {graph.partition = 0 : i64} : tensor<4xf32>\n"
            "  func.return %c : tensor<4xf32>\n}\n",
            "graph-split",
            "error: graph-split: cycle exists between partitions 0 -> 1 -> 0",
        ),
        (
            "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  func.return %x : tensor<4xf32>\n}\n",
            "graph-split{keep-original-order=maybe}",
            "error:",
        ),
    ],
)
def test_driver_errors(
    fxdsl_opt_error: Callable[[str, str], str],
    tmp_path: Path,
    text: str,
    pipeline: str,
    message: str,
) -> None:
    stderr = fxdsl_opt_error(text, pipeline)
    assert message.format(file=tmp_path / "in.mlir") in stderr


# ---------------------------------------------------------------------------
# Differential: random programs, random partitions


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    module=graphs(max_ops=25),
    data=st.data(),
    n_parts=st.integers(1, 4),
    keep=st.booleans(),
    via_pass=st.booleans(),
)
def test_random_split_differential(
    contracted_edges: EdgeFinder,
    is_acyclic: Callable[[Edges], bool],
    module: ModuleOp,
    data: st.DataObject,
    n_parts: int,
    keep: bool,
    via_pass: bool,
) -> None:
    main = _functions(module)["main"]
    ops = [op for op in _body(main) if not is_constant(op)]
    ids = data.draw(
        st.lists(st.integers(0, n_parts - 1), min_size=len(ops), max_size=len(ops))
    )
    part = dict(zip(ops, ids))
    cyclic = not is_acyclic(contracted_edges(ops, part))
    before = clone_module(module)

    def split() -> None:
        if not via_pass:
            split_module(module, part.__getitem__, keep_original_order=keep)
            return
        for op, pid in part.items():
            op.attributes[PARTITION] = IntegerAttr(pid, i64)
        for op in _body(main):  # ignored on constants
            if is_constant(op):
                op.attributes[PARTITION] = IntegerAttr(n_parts + 7, i64)
        opt = "graph-split{keep-original-order=true}" if keep else "graph-split"
        fxdsl.apply(module, opt)

    if cyclic:
        with pytest.raises(PassFailedException, match="partitions ") as failure:
            split()
        message = str(failure.value)
        named = [int(p) for p in message.rsplit("partitions ", 1)[1].split(" -> ")]
        edges = contracted_edges(ops, part)
        assert named[0] == named[-1], message
        assert len(named) >= 3, message
        assert all(edge in edges for edge in pairwise(named)), named
        return
    split()  # an acyclic partition graph must split
    module.verify()
    # a second run on a copy, by callback, prints the same text
    again = clone_module(before)
    twins = [op for op in _body(_functions(again)["main"]) if not is_constant(op)]
    split_module(again, dict(zip(twins, ids)).__getitem__, keep_original_order=keep)
    assert str(again) == str(module)
    functions = _functions(module)
    body = _body(functions["main"])
    assert all(isinstance(op, func.CallOp) or is_constant(op) for op in body)
    # one function per partition that is still needed, none twice
    callees = [op.callee.string_value() for op in body if isinstance(op, func.CallOp)]
    assert len(callees) == len(set(callees)) <= len(set(ids))
    assert all(PARTITION not in o.attributes for o in module.walk())
    assert_same_numerics(before, module)


# ---------------------------------------------------------------------------
# The cycle mechanism itself, against brute force


def _reaches(succ: dict[int, set[int]], start: int, goal: int) -> bool:
    seen, stack = {start}, [start]
    while stack:
        for nxt in succ.get(stack.pop(), ()):
            if nxt == goal:
                return True
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return False


@pytest.mark.parametrize("seed", range(4))
def test_dependency_graph_add_edge_against_brute_force(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(150):
        n = rng.randint(1, 9)
        graph = DependencyGraph[int](range(n))
        succ: dict[int, set[int]] = {}
        for _ in range(rng.randint(0, 20)):
            a, b = rng.randrange(n), rng.randrange(n)
            if a == b:
                continue
            closes = _reaches(succ, b, a)
            try:
                graph.add_edge(a, b)
            except CycleError as error:
                assert closes
                cycle = error.cycle
                assert cycle[0] == cycle[-1] == min(cycle)
                for x, y in pairwise(cycle):
                    assert (x, y) == (a, b) or y in succ.get(x, ())
                continue
            assert not closes
            succ.setdefault(a, set()).add(b)
        for policy in ("fifo", "stable"):
            order = graph.topological_order(policy)
            where = {node: i for i, node in enumerate(order)}
            assert sorted(order) == list(range(n))
            assert all(where[x] < where[y] for x in succ for y in succ[x])
        # stable keeps insertion order when it is valid
        if all(x < y for x in succ for y in succ[x]):
            assert graph.topological_order("stable") == list(range(n))
