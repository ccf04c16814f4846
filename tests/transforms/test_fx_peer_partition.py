"""Peer tests: torch.fx's own partitioner and split_module tests, ported.

The cases of `test/fx/test_fx_passes.py` (TestFXGraphPasses, the
CapabilityBasedPartitioner and `fuse_by_partitions`), `test/fx/
test_partitioner_order.py` and the `split_module` tests of
`test/test_fx_experimental.py`, rewritten on the graph dialect. Each test
names the torch test it mirrors. Torch names partition members by node name
(`add`, `add_1`, ...: the n-th node of a target, in program order); `_fx_names`
gives graph ops the same kind of name (`add`, `add_1`, `transpose_2`...) so the
expectations read as torch's. Every partitioning is also fused and run against
the original with the reference interpreter.

Torch's mock support takes `operator.add`, `getitem`, `aten.view`,
`aten.permute` and `aten.std_mean`; here that is `graph.add`,
`graph.reshape`, `graph.transpose` (and `graph.split`, a multi-result op,
where torch uses `std_mean`). A Python scalar operand becomes a rank-0
`graph.full`, which no support here takes (torch passes it as a literal).

Cases with no meaning on the graph dialect:

* test_partitioner forward13/forward18 getitem reassignment: multi-result ops
  return all their values directly; there is no getitem node to move (the
  partitions themselves are still checked below).
* test_fuser_util `param`/`linear` call_module and get_attr kinds: the graph
  dialect has one kind of op; weights are arguments or `graph.constant`s (a
  constant in a partition is covered).
* test_split_module_input_names `keep_original_input_name`: block arguments
  have no names to keep; the argument order is checked instead.
* test_split_module_return_node: in-place mutation (`x.add_(1)`) has no
  equivalent; graph ops are pure and every function ends in `func.return`.
* test_split_module_tuple_return `tuple_return`: functions return a list of
  values, never a boxed tuple (single-result callees are checked).
* test_split_module_kwargs_expansion: no `**kwargs`; arguments are positional.
* test_split_module_default_arg: no optional (None) arguments in a signature.
* test_split_module_symint_dependency_handling: static shapes only, no SymInt
  values to thread between partitions (and it needs torch.compile).
* test_split_qualname_mapping: no submodule qualified names to map.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Hashable, Iterable, Mapping
from typing import Any

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Operation

import fxdsl
from fxdsl import ops
from fxdsl.ir import utils as ir_utils
from fxdsl.rewrite import CapabilityBasedPartitioner, OpAllowList, Partition
from fxdsl.testing import assert_same_numerics, clone_module
from fxdsl.transforms.graph_split import split_module
from fxdsl.transforms.outlining import is_constant

# the fixtures of tests/transforms/conftest.py
Edges = set[tuple[Hashable, Hashable]]
EdgeFinder = Callable[[Iterable[Operation], Mapping[Operation, Hashable]], Edges]

V4 = fxdsl.TensorSpec((4,))
MOCK = ["graph.add", "graph.reshape", "graph.transpose"]
"""torch's MockOperatorSupport: add, view, permute."""


def _body(function: func.FuncOp) -> list[Operation]:
    return list(function.body.block.ops)[:-1]


def _main(module: ModuleOp) -> func.FuncOp:
    return ir_utils.functions(module)[0]


def _fx_names(module: ModuleOp) -> dict[Operation, str]:
    """torch.fx-style names of the ops of the first function: `add`, `add_1`,
    ... counted per op name in program order."""
    seen: dict[str, int] = {}
    names: dict[Operation, str] = {}
    for op in _body(_main(module)):
        base = op.name.removeprefix("graph.")
        count = seen.get(base, 0)
        seen[base] = count + 1
        names[op] = base if count == 0 else f"{base}_{count}"
    return names


def _named(module: ModuleOp, partitions: list[Partition]) -> set[frozenset[str]]:
    names = _fx_names(module)
    return {frozenset(names[op] for op in p.ops) for p in partitions}


def _by_name(module: ModuleOp) -> dict[str, Operation]:
    return {name: op for op, name in _fx_names(module).items()}


# ---------------------------------------------------------------------------
# TestPartitionFunctions, in fxdsl.ops


def forward1(a: Any, b: Any, c: Any) -> Any:
    add = a + b
    add_1 = add + b
    add_2 = add_1 + c
    relu_1 = ops.relu(add_2)
    add_3 = add_1 + add_2
    add_4 = add_1 + relu_1 + add_3
    relu_2 = ops.relu(add_4)
    add_5 = relu_2 + add_4
    add_6 = add_5 + add_4
    return add_4, add_6


def forward2(a: Any, b: Any, _: Any) -> Any:
    add = a + b
    add_1 = add + b
    relu_1 = ops.relu(add_1)  # blocks add_1 -> add_3
    add_3 = add_1 + relu_1
    add_4 = add_1 + add_3
    return add_4, add_1


def forward3(a: Any, b: Any, c: Any) -> Any:
    return a + b, a + c, b + c


def forward4(a: Any, b: Any, c: Any) -> Any:
    add, add_1, add_2 = a + b, a + c, b + c
    return ops.where(add > 0, add_1, add_2)


def forward5(a: Any, b: Any, c: Any) -> Any:
    add = a + 1
    return ops.relu(add), add + 2  # add joins the supported right branch


def forward6(a: Any, b: Any, c: Any) -> Any:
    add = a + 1
    return ops.relu(add), ops.relu(add)  # add stands alone


def forward7(a: Any, b: Any, c: Any) -> Any:
    add = a + 1
    add_1 = add + 2
    add_2 = add + 1
    return add_2 + 1, add_1


def forward8(a: Any, b: Any, c: Any) -> Any:
    add = a + 1
    return (add + 1) + (add + 2)


def _stack(*xs: Any) -> Any:
    return ops.concat(list(xs))  # torch.stack: an unsupported consumer


def forward9(a: Any, b: Any, c: Any) -> Any:
    add = a + 1
    return _stack(add + 1, add + 1, add + 1)


def forward10(a: Any, b: Any, c: Any) -> Any:
    add = a + 1
    add_1 = add + 1
    add_2 = add + 1
    return _stack(add_1, add_2, add + add_2)


def forward11(a: Any, b: Any, c: Any) -> Any:
    add = a + 1
    add_1 = ops.relu(add)
    add_2 = add + add_1
    return _stack(add_1, add_2, ops.relu(add))


def forward12(a: Any, b: Any, c: Any) -> Any:
    b0 = a + 1.0
    c0 = a + 1.5
    x0 = ops.relu(b0)
    x1 = ops.relu(c0)
    b1 = b0 + x1
    _c1 = c0 + 1.2  # dead, as in torch's test
    c2 = x0 + c0
    return b1, c2


def forward13(a: Any, b: Any, c: Any) -> Any:
    a0, a1, _a2, _a3 = ops.split(a, 1, 0)
    return (a0 + b) + (a1 + c)


def forward14(a: Any, b: Any, c: Any) -> Any:
    a0, _a1 = ops.split(a, 2)  # torch: std_mean and two getitems
    return a0 + 1.0


def _permute(x: Any) -> Any:
    return ops.transpose(x, (1, 0))


def forward15(a: Any, b: Any, c: Any) -> Any:
    a1 = _permute(ops.reshape(a, (2, 2)))
    a3 = _permute(a1 + 1.0)
    a5 = _permute(a3 + 1.0)
    return _permute(a5)


def forward16(a: Any, b: Any, c: Any) -> Any:
    a1 = ops.reshape(a - 1.0, (2, 2))
    a3 = _permute(a1) + 1.0
    a5 = _permute(a3) + 1.0
    return _permute(_permute(a5)) - 1.0


def forward17(a: Any, b: Any, c: Any, d: Any, e: Any, f: Any) -> Any:
    return a + b, c + d, e + f


def forward18(a: Any, b: Any, c: Any) -> Any:
    a0, _a1 = ops.split(a, 2)  # torch: var_mean, unsupported, and a getitem
    return a0


def _sets(*groups: tuple[str, ...]) -> set[frozenset[str]]:
    return {frozenset(g) for g in groups}


ALL_SEVEN = (
    "add",
    "add_1",
    "reshape",
    *(f"transpose{s}" for s in ("", "_1", "_2", "_3")),
)
# fn, expected with allows_single_node_partition=True, with False, extra ops
PARTITIONER_CASES = [
    pytest.param(
        forward1,
        _sets(
            ("add_6", "add_7"), ("add_3", "add_4", "add_5"), ("add", "add_1", "add_2")
        ),
        _sets(
            ("add_6", "add_7"), ("add_3", "add_4", "add_5"), ("add", "add_1", "add_2")
        ),
        (),
        id="forward1",
    ),
    pytest.param(
        forward2,
        _sets(("add_2", "add_3"), ("add", "add_1")),
        _sets(("add_2", "add_3"), ("add", "add_1")),
        (),
        id="forward2",
    ),
    pytest.param(
        forward3,
        _sets(("add", "add_1", "add_2")),
        _sets(("add", "add_1", "add_2")),
        (),
        id="forward3",
    ),
    pytest.param(
        forward4,
        _sets(("add", "add_1", "add_2")),
        _sets(("add", "add_1", "add_2")),
        (),
        id="forward4",
    ),
    pytest.param(
        forward5, _sets(("add", "add_1")), _sets(("add", "add_1")), (), id="forward5"
    ),
    pytest.param(forward6, _sets(("add",)), set(), (), id="forward6"),
    *(
        pytest.param(
            fn,
            _sets(("add", "add_1", "add_2", "add_3")),
            _sets(("add", "add_1", "add_2", "add_3")),
            (),
            id=fn.__name__,
        )
        for fn in (forward7, forward8, forward9, forward10)
    ),
    pytest.param(forward11, _sets(("add_1",), ("add",)), set(), (), id="forward11"),
    pytest.param(
        forward13,
        _sets(("add", "add_1", "add_2")),
        _sets(("add", "add_1", "add_2")),
        (),
        id="forward13",
    ),
    pytest.param(
        forward14,
        _sets(("split", "add")),
        _sets(("split", "add")),
        ("graph.split",),
        id="forward14",
    ),
    pytest.param(forward15, _sets(ALL_SEVEN), _sets(ALL_SEVEN), (), id="forward15"),
    pytest.param(forward16, _sets(ALL_SEVEN), _sets(ALL_SEVEN), (), id="forward16"),
    pytest.param(forward18, set(), set(), (), id="forward18"),
]


def _trace(fn: Callable[..., Any], n_args: int = 3) -> ModuleOp:
    return fxdsl.trace(fn, *([V4] * n_args))


@pytest.mark.parametrize("single", [True, False])
@pytest.mark.parametrize(
    ("fn", "with_single", "without_single", "extra"), PARTITIONER_CASES
)
def test_partitioner(
    fn: Callable[..., Any],
    with_single: set[frozenset[str]],
    without_single: set[frozenset[str]],
    extra: tuple[str, ...],
    single: bool,
) -> None:
    # TestFXGraphPasses.test_partitioner (+ allows_single_node_partition=False)
    module = _trace(fn)
    before = clone_module(module)
    partitioner = CapabilityBasedPartitioner(
        module, OpAllowList([*MOCK, *extra]), allows_single_node_partition=single
    )
    partitions = partitioner.propose_partitions()
    assert _named(module, partitions) == (with_single if single else without_single)
    partitioner.fuse_partitions(partitions)
    module.verify()
    calls = [op for op in _body(_main(module)) if isinstance(op, func.CallOp)]
    assert len(calls) == len(partitions)
    assert_same_numerics(before, module)


def test_partitioner_no_cycle_after_merge(
    contracted_edges: EdgeFinder, is_acyclic: Callable[[Edges], bool]
) -> None:
    # test_partitioner forward12: "not necessarily the only partition, just to
    # verify that there's no cyclic dependency after partition"
    module = _trace(forward12)
    before = clone_module(module)
    partitioner = CapabilityBasedPartitioner(
        module, OpAllowList(MOCK), allows_single_node_partition=True
    )
    partitions = partitioner.propose_partitions()
    ops_ = _body(_main(module))
    unit: dict[Operation, Hashable] = {op: op for op in ops_}
    for p in partitions:
        unit.update({op: ("p", p.id) for op in p.ops})
    assert is_acyclic(contracted_edges(ops_, unit))
    names = _named(module, partitions)
    # every add is placed once; b0 (add) and b1 (add_2) cannot share a
    # partition with c0 (add_1) and c2 (add_4): each pair closes a cycle
    # through the relus
    assert sorted(n for group in names for n in group) == [
        "add",
        *(f"add_{i}" for i in range(1, 5)),
    ]
    for group in names:
        assert not {"add", "add_4"} <= group, names
        assert not {"add_1", "add_2"} <= group, names
    partitioner.fuse_partitions(partitions)
    module.verify()
    assert_same_numerics(before, module)


@pytest.mark.parametrize("single", [True, False])
def test_partitioner_independent_output(single: bool) -> None:
    # TestFXGraphPasses.test_partitioner_independent_output (forward17)
    module = _trace(forward17, 6)
    before = clone_module(module)
    partitioner = CapabilityBasedPartitioner(
        module, OpAllowList(MOCK), allows_single_node_partition=single
    )
    partitions = partitioner.propose_partitions()
    assert _named(module, partitions) == _sets(("add", "add_1", "add_2"))
    partitioner.fuse_partitions(partitions)
    assert_same_numerics(before, module)


@pytest.mark.parametrize("fn", [forward3, forward4])
def test_partitioner_no_horizontal_fusion(fn: Callable[..., Any]) -> None:
    # TestFXGraphPasses.test_partitioner_xfail (older torch), now torch's
    # skip_horizontal_fusion=True: independent adds are not fused
    # horizontally, with or without a common consumer
    module = _trace(fn)
    before = clone_module(module)
    partitioner = CapabilityBasedPartitioner(
        module,
        OpAllowList(MOCK),
        allows_single_node_partition=True,
        skip_horizontal_fusion=True,
    )
    partitions = partitioner.propose_partitions()
    assert _named(module, partitions) == _sets(("add",), ("add_1",), ("add_2",))
    partitioner.fuse_partitions(partitions)
    assert_same_numerics(before, module)


@pytest.mark.parametrize(
    ("fn", "expected"),
    [
        (forward15, _sets(("transpose_1", "add", "add_1"))),
        (forward16, _sets(("transpose_1", "add", "add_1"))),
    ],
)
def test_partitioner_bookend_non_compute(
    fn: Callable[..., Any], expected: set[frozenset[str]]
) -> None:
    # test_partitioner forward15/16 with bookend_non_compute_pass=True
    module = _trace(fn)
    before = clone_module(module)
    partitioner = CapabilityBasedPartitioner(
        module,
        OpAllowList(MOCK),
        allows_single_node_partition=True,
        non_compute_ops=["graph.reshape", "graph.transpose"],
    )
    partitions = partitioner.propose_partitions()
    assert _named(module, partitions) == _sets(ALL_SEVEN)
    partitioner.remove_bookend_non_compute_ops(partitions)
    assert _named(module, partitions) == expected
    partitioner.fuse_partitions(partitions)
    module.verify()
    main_ops = [op.name for op in _body(_main(module))]
    assert main_ops.count("graph.transpose") == 3  # the bookends stay outside
    assert main_ops.count("graph.reshape") == 1
    assert_same_numerics(before, module)


def test_fuser_pass_deep_model() -> None:
    # TestFXGraphPasses.test_fuser_pass_deep_model: a chain longer than the
    # recursion limit must not recurse
    depth = sys.getrecursionlimit() + 1

    def deep(a: Any, b: Any, c: Any) -> Any:
        o = (a + b) + 1.0
        for _ in range(depth):
            o = o - c
        return o

    module = _trace(deep)
    partitions = CapabilityBasedPartitioner(
        module, OpAllowList(MOCK), allows_single_node_partition=True
    ).propose_partitions()
    assert _named(module, partitions) == _sets(("add", "add_1"))
    # the whole chain as one partition
    chain = CapabilityBasedPartitioner(module, OpAllowList(["graph.add", "graph.sub"]))
    whole = chain.propose_partitions()
    assert [len(p) for p in whole] == [depth + 2]
    before = clone_module(module)
    chain.fuse_partitions(whole)
    body = [op.name for op in _body(_main(module))]
    assert body == ["graph.full", "func.call"]  # the 1.0 stays outside
    assert_same_numerics(before, module, seeds=(0,))


# ---------------------------------------------------------------------------
# test_partitioner_order.py


def _add_module(x: Any) -> Any:
    y = ops.add(x, x)
    return ops.add(y, x)


def test_partitioner_graph_node_order() -> None:
    # TestPartitionerOrder.test_partitioner_graph_node_order
    module = fxdsl.trace(_add_module, V4)
    every = CapabilityBasedPartitioner(
        module, lambda op: True, allows_single_node_partition=True
    )
    partitions = every.propose_partitions()
    assert len(partitions) == 1
    assert partitions[0].ops == _body(_main(module))


def test_partitioner_multiple_runs_order() -> None:
    # TestPartitionerOrder.test_partitioner_multiple_runs_order
    def run() -> tuple[list[list[str]], str]:
        module = _trace(forward1)
        partitioner = CapabilityBasedPartitioner(
            module, OpAllowList(MOCK), allows_single_node_partition=True
        )
        partitions = partitioner.propose_partitions()
        names = _fx_names(module)
        order = [[names[op] for op in p.ops] for p in partitions]
        return order, str(partitioner.fuse_partitions(partitions))

    first = run()
    assert first[0][0] == ["add", "add_1", "add_2"]  # program order
    for _ in range(5):
        assert run() == first


# ---------------------------------------------------------------------------
# fuse_by_partitions on TestModule (test_fuser_util / test_fuser_util_xfail)

TEST_MODULE = """
func.func @test_module(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>, %c: tensor<4x4xf32>,
                       %w1: tensor<4x4xf32>, %b1: tensor<4xf32>,
                       %w2: tensor<4x4xf32>, %b2: tensor<4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>) {
  %add = graph.add %a, %b : tensor<4x4xf32>
  %linear = graph.linear %add, %w1, %b1
      : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %add_1 = graph.add %add, %c : tensor<4x4xf32>
  %param = graph.constant dense<0.5> : tensor<4x4xf32>
  %add_2 = graph.add %add_1, %param : tensor<4x4xf32>
  %add_3 = graph.add %add_1, %linear : tensor<4x4xf32>
  %add_4 = graph.add %add_2, %add_3 : tensor<4x4xf32>
  %linear_1 = graph.linear %add_4, %w2, %b2
      : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<4x4xf32>
  %add_5 = graph.add %linear_1, %add_4 : tensor<4x4xf32>
  %add_6 = graph.add %add_5, %a : tensor<4x4xf32>
  %relu = graph.relu %add_6 : tensor<4x4xf32>
  func.return %add_4, %add_6, %relu : tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>
}
"""
# torch's names: linear2 is `linear_1` here (the second graph.linear)
FULL_GRAPH = (
    "add", "linear", "add_1", "constant", "add_2", "add_3",
    "add_4", "linear_1", "add_5", "add_6", "relu",
)  # fmt: skip


@pytest.mark.parametrize(
    "groups",
    [
        [["add", "add_1"], ["add_5", "add_6"]],
        [["add", "add_1", "add_2"]],  # vertical fusion
        [["add_2", "add_3"]],  # horizontal fusion
        [["add_3", "add_4"]],
        [["add_6", "add_5"]],  # arbitrary op order
        [["add_4", "add_1", "add_3", "add_2"]],
        [["add_5", "add_6"], ["add_1", "add_2", "add_3", "add_4"]],  # any order
        [["add_5", "linear_1"]],
        [["add_6", "relu"]],
        [["constant", "add_2"]],  # torch: param (get_attr) + add_2
        [["constant", "add_1", "linear"]],
        [list(FULL_GRAPH)],  # the whole graph
    ],
)
@pytest.mark.parametrize("outline", ["func", "group"])
def test_fuser_util(groups: list[list[str]], outline: str) -> None:
    # TestFXGraphPasses.test_fuser_util
    module = fxdsl.parse(TEST_MODULE)
    before = clone_module(module)
    ops_ = _by_name(module)
    partitions = [Partition(i, [ops_[n] for n in g]) for i, g in enumerate(groups)]
    partitioner = CapabilityBasedPartitioner(module, OpAllowList(["graph.*"]))
    partitioner.fuse_partitions(partitions, outline)  # type: ignore[arg-type]
    module.verify()
    kind = "func.call" if outline == "func" else "graph.fusion_group"
    body = [op.name for op in _body(_main(module))]
    assert body.count(kind) == len(groups)
    moved = {n for g in groups for n in g}
    assert len(body) == len(ops_) - len(moved) + len(groups)
    assert_same_numerics(before, module)


@pytest.mark.parametrize(
    ("groups", "message"),
    [
        ([["add", "add_1"], ["add_1", "add_5", "add_6"]], "in two groups"),
        ([["add", "add_1", "add_3"]], "makes a cycle"),
        ([["add_4", "add_5"]], "makes a cycle"),
        ([["relu", "add_5"]], "makes a cycle"),
    ],
)
def test_fuser_util_xfail(groups: list[list[str]], message: str) -> None:
    # TestFXGraphPasses.test_fuser_util_xfail: these partitions must be refused
    module = fxdsl.parse(TEST_MODULE)
    text = str(module)
    ops_ = _by_name(module)
    partitions = [Partition(i, [ops_[n] for n in g]) for i, g in enumerate(groups)]
    partitioner = CapabilityBasedPartitioner(module, OpAllowList(["graph.*"]))
    with pytest.raises(ValueError, match=message):
        partitioner.fuse_partitions(partitions)
    assert str(module) == text  # refused before anything moved


# ---------------------------------------------------------------------------
# split_module (test/test_fx_experimental.py)


def _functions(module: ModuleOp) -> dict[str, func.FuncOp]:
    return {f.sym_name.data: f for f in ir_utils.functions(module)}


def _callees(function: func.FuncOp) -> list[str]:
    return [
        op.callee.string_value()
        for op in _body(function)
        if isinstance(op, func.CallOp)
    ]


def _round_robin(n: int) -> Callable[[Operation], int]:
    counter = iter(range(10**6))
    return lambda op: next(counter) % n


def test_subgraph_creation_keeps_attributes() -> None:
    # test_subgraph_creation: round-robin into 3 partitions, node meta kept
    weight, bias = fxdsl.TensorSpec((5, 4)), fxdsl.TensorSpec((5,))

    def my_module(x: Any, y: Any, param: Any, w: Any, b: Any) -> Any:
        z = ops.clamp(ops.linear(x + param, w, b), min=0.0, max=1.0)
        v = ops.clamp(ops.linear(y, w, b), min=0.0, max=1.0)
        return z + v

    spec = fxdsl.TensorSpec((3, 4))
    module = fxdsl.trace(my_module, spec, spec, spec, weight, bias)
    for op in _body(_main(module)):
        op.attributes["test.meta"] = StringAttr(op.name)
    before = clone_module(module)
    split_module(module, _round_robin(3))
    module.verify()
    functions = _functions(module)
    assert _callees(functions["my_module"]) == ["submod_0", "submod_1", "submod_2"]
    moved = [
        op for n in ("submod_0", "submod_1", "submod_2") for op in _body(functions[n])
    ]
    assert len(moved) == 6
    for op in moved:
        assert op.attributes.get("test.meta") == StringAttr(op.name), op
    assert_same_numerics(before, module)


def test_split_module_input_order() -> None:
    # test_split_module_input_names: every submodule takes its inputs in the
    # same order, so the three (identical) submodules are interchangeable
    def mod(x: Any, *a: Any) -> Any:
        for i in range(0, 6, 2):
            x = x + ops.mul(a[i], a[i]) + a[i + 1] / 2.0
        return x

    module = fxdsl.trace(mod, *([fxdsl.TensorSpec(())] * 7))
    seen = iter(range(100))
    before = clone_module(module)
    split_module(module, lambda op: next(seen) // 4)
    functions = _functions(module)
    names = ["submod_0", "submod_1", "submod_2"]
    assert _callees(functions["mod"]) == names
    bodies = {
        str(functions[n]).replace(f"@{n}", "@submod") for n in names
    }  # fmt: skip
    assert len(bodies) == 1
    args = [fxdsl.random_inputs(before, seed=0)[i] for i in (1, 0, 2)]
    outs = [fxdsl.run(module, *args, entry=n) for n in names]
    assert all(o[0] == outs[0][0] for o in outs)
    assert_same_numerics(before, module)


def test_split_module_dead_code() -> None:
    # test_split_module_dead_code: before (0), target (1), after (2); the
    # partition after the target only holds dead code
    def dead(x: Any) -> Any:
        output = x * 2.0
        _dead = x + 2.0
        return output

    module = fxdsl.trace(dead, fxdsl.TensorSpec((5,)))
    before = clone_module(module)
    saw_mul = False

    def callback(op: Operation) -> int:
        nonlocal saw_mul
        if op.name == "graph.mul":
            saw_mul = True
            return 1
        return 2 if saw_mul else 0

    split_module(module, callback)
    module.verify()
    functions = _functions(module)
    assert _callees(functions["dead"]) == ["submod_1"]
    assert "submod_2" not in functions
    assert_same_numerics(before, module)


def test_split_module_single_result_callee() -> None:
    # test_split_module_tuple_return: add -> 0, mul -> 1; a one-value
    # partition returns that value itself
    module = fxdsl.trace(lambda x, y: (x + y) * x, V4, V4)
    before = clone_module(module)
    split_module(module, lambda op: 0 if op.name == "graph.add" else 1)
    functions = _functions(module)
    for name in ("submod_0", "submod_1"):
        assert len(functions[name].function_type.outputs.data) == 1
    assert_same_numerics(before, module)


def test_subgraph_trivial_network() -> None:
    # test_subgraph_trivial_resnet: everything in partition 0 is one callee
    def net(x: Any, w1: Any, w2: Any) -> Any:
        y = ops.relu(ops.conv2d(x, w1, padding=1))
        y = ops.max_pool2d(y, 2)
        return ops.mean(ops.relu(ops.conv2d(y, w2, padding=1)), (2, 3))

    module = fxdsl.trace(
        net,
        fxdsl.TensorSpec((1, 3, 8, 8)),
        fxdsl.TensorSpec((4, 3, 3, 3)),
        fxdsl.TensorSpec((4, 4, 3, 3)),
    )
    n_ops = len(_body(_main(module)))
    before = clone_module(module)
    split_module(module, lambda op: 0)
    functions = _functions(module)
    assert sorted(functions) == ["net", "submod_0"]
    assert [op.name for op in _body(functions["net"])] == ["func.call"]
    assert len(_body(functions["submod_0"])) == n_ops
    assert_same_numerics(before, module)


@pytest.mark.parametrize("keep", [False, True])
def test_split_module_keep_original_order_and_noop_graph(keep: bool) -> None:
    # test_split_module_keep_original_order_and_noop_graph: nothing to split
    module = fxdsl.trace(lambda x: (x,), fxdsl.TensorSpec((3, 3)))
    text = str(module)
    split_module(module, lambda op: 0, keep_original_order=keep)
    assert str(module) == text


@pytest.mark.parametrize("keep", [False, True])
def test_split_module_constants_are_not_arguments(keep: bool) -> None:
    # test_split_module_placeholders_before_get_attr: a get_attr between the
    # placeholders; here a constant, cloned into the partition, not passed
    text = """
    func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
      %branch = graph.constant dense<3.0> : tensor<4xf32>
      %m = graph.mul %x, %branch : tensor<4xf32>
      %r = graph.add %m, %y : tensor<4xf32>
      func.return %r : tensor<4xf32>
    }
    """
    module = fxdsl.parse(text)
    before = clone_module(module)
    split_module(module, lambda op: 0, keep_original_order=keep)
    module.verify()
    submod = _functions(module)["submod_0"]
    assert len(submod.function_type.inputs.data) == 2
    assert [op.name for op in _body(submod)] == [
        "graph.constant",
        "graph.mul",
        "graph.add",
    ]
    assert not any(is_constant(op) for op in _body(_functions(module)["f"]))
    assert_same_numerics(before, module)


def test_subgraph_uniquename() -> None:
    # test_subgraph_uniquename: a, b, add -> 0, the rest -> 1
    def my_module(a: Any, b: Any, c: Any, d: Any, w: Any, bias: Any) -> Any:
        add_1 = a + b
        add_2 = add_1 + c
        linear_1 = ops.linear(add_1, w, bias)
        add_3 = add_2 + d
        add_4 = add_2 + linear_1
        return add_3 + add_4

    spec = fxdsl.TensorSpec((4, 4))
    module = fxdsl.trace(my_module, *[spec] * 5, fxdsl.TensorSpec((4,)))
    first_add = _body(_main(module))[0]
    before = clone_module(module)
    split_module(module, lambda op: 0 if op is first_add else 1)
    module.verify()
    functions = _functions(module)
    assert _callees(functions["my_module"]) == ["submod_0", "submod_1"]
    assert [op.name for op in _body(functions["submod_0"])] == ["graph.add"]
    assert_same_numerics(before, module)


def test_split_module_partition_attribute_pass() -> None:
    # the same split by attribute through the pass (graph-split), as torch's
    # split_callback reading node.meta
    module = fxdsl.trace(lambda x, y: ops.relu(x + y) * y, V4, V4)
    for i, op in enumerate(_body(_main(module))):
        op.attributes["graph.partition"] = IntegerAttr(i // 2, i64)
    before = clone_module(module)
    fxdsl.apply(module, "graph-split")
    assert _callees(_main(module)) == ["submod_0", "submod_1"]
    assert_same_numerics(before, module)
