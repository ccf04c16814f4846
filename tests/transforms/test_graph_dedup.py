"""graph-dedup: numerics, structure and idempotence (FileCheck cases are in
tests/filecheck/transforms/graph-dedup.mlir)."""

from __future__ import annotations

import pytest
from fxdsl.ir.graph import SCOPE, ScopeAttr
from hypothesis import HealthCheck, given, settings
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

import fxdsl
from fxdsl.frontends.models import gpt2_stack
from fxdsl.testing import assert_same_numerics, clone_module, graphs
from fxdsl.transforms.graph_dedup import OUTLINED, GraphDedupPass, deduplicate

HANDWRITTEN = {
    "chains": """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %a = graph.exp %x : tensor<4xf32>
  %b = graph.neg %a : tensor<4xf32>
  %c = graph.add %b, %x : tensor<4xf32>
  %d = graph.exp %y : tensor<4xf32>
  %e = graph.neg %d : tensor<4xf32>
  %f = graph.add %e, %y : tensor<4xf32>
  func.return %c, %f : tensor<4xf32>, tensor<4xf32>
}""",
    "union": """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.tanh %x : tensor<4xf32>
  %a1 = graph.neg %a0 : tensor<4xf32>
  %a2 = graph.mul %a1, %a1 : tensor<4xf32>
  %b0 = graph.tanh %y : tensor<4xf32>
  %b1 = graph.neg %b0 : tensor<4xf32>
  %b2 = graph.mul %b1, %b1 : tensor<4xf32>
  %use = graph.abs %b1 : tensor<4xf32>
  func.return %a2, %b2, %use : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}""",
    "sharing": """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %w: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.mul %x, %x : tensor<4xf32>
  %a1 = graph.sub %a0, %x : tensor<4xf32>
  %b0 = graph.mul %y, %w : tensor<4xf32>
  %b1 = graph.sub %b0, %y : tensor<4xf32>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf32>
}""",
    "shrunk": """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.tanh %x : tensor<4xf32>
  %a1 = graph.neg %a0 : tensor<4xf32>
  %ta = graph.exp %a1 : tensor<4xf32>
  %a2 = graph.add %a1, %ta : tensor<4xf32>
  %b0 = graph.tanh %y : tensor<4xf32>
  %b1 = graph.neg %b0 : tensor<4xf32>
  %tb = graph.sigmoid %b1 : tensor<4xf32>
  %b2 = graph.add %b1, %tb : tensor<4xf32>
  func.return %a2, %b2 : tensor<4xf32>, tensor<4xf32>
}""",
    "crossed": """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>, %z: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.tanh %x : tensor<4xf32>
  %b0 = graph.tanh %y : tensor<4xf32>
  %a1 = graph.add %a0, %b0 : tensor<4xf32>
  %b1 = graph.add %b0, %a0 : tensor<4xf32>
  %c0 = graph.tanh %z : tensor<4xf32>
  %c1 = graph.add %c0, %x : tensor<4xf32>
  func.return %a1, %b1, %c1 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}""",
    "layers": """
func.func @main(%x: tensor<4x4xf32>, %w: tensor<4x4xf32>)
    -> tensor<4x4xf32> {
  %a0 = graph.matmul %x, %w : tensor<4x4xf32>
  %a1 = graph.tanh %a0 : tensor<4x4xf32>
  %a2 = graph.add %a1, %x : tensor<4x4xf32>
  %b0 = graph.matmul %a2, %w : tensor<4x4xf32>
  %b1 = graph.tanh %b0 : tensor<4x4xf32>
  %b2 = graph.add %b1, %a2 : tensor<4x4xf32>
  %c0 = graph.matmul %b2, %w : tensor<4x4xf32>
  %c1 = graph.tanh %c0 : tensor<4x4xf32>
  %c2 = graph.add %c1, %b2 : tensor<4x4xf32>
  func.return %c2 : tensor<4x4xf32>
}""",
}

NEAR_IDENTICAL = {
    "wiring": """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.tanh %x : tensor<4xf32>
  %a1 = graph.mul %a0, %a0 : tensor<4xf32>
  %b0 = graph.tanh %y : tensor<4xf32>
  %b1 = graph.mul %b0, %y : tensor<4xf32>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf32>
}""",
    "operand_order": """
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %a0 = graph.tanh %x : tensor<4xf32>
  %a1 = graph.sub %a0, %y : tensor<4xf32>
  %b0 = graph.tanh %y : tensor<4xf32>
  %b1 = graph.sub %x, %b0 : tensor<4xf32>
  func.return %a1, %b1 : tensor<4xf32>, tensor<4xf32>
}""",
    "property": """
func.func @main(%x: tensor<4x4xf32>, %y: tensor<4x4xf32>)
    -> (tensor<4x4xf32>, tensor<4x4xf32>) {
  %a0 = graph.softmax %x dim 0 : tensor<4x4xf32>
  %a1 = graph.neg %a0 : tensor<4x4xf32>
  %b0 = graph.softmax %y dim 1 : tensor<4x4xf32>
  %b1 = graph.neg %b0 : tensor<4x4xf32>
  func.return %a1, %b1 : tensor<4x4xf32>, tensor<4x4xf32>
}""",
}


@pytest.mark.parametrize("case", sorted(NEAR_IDENTICAL))
def test_near_identical_regions_do_not_merge(case: str) -> None:
    before = fxdsl.parse(NEAR_IDENTICAL[case])
    after = clone_module(before)
    assert deduplicate(after) == {}
    assert str(after) == str(before)


# case -> (ops per outlined region, calls)
EXPECTED = {
    "chains": (3, 2),
    "union": (3, 2),
    "sharing": (2, 2),
    "shrunk": (2, 2),
    "crossed": (2, 2),
    "layers": (3, 3),
}


def outlined_functions(module: ModuleOp) -> list[func.FuncOp]:
    return [
        op
        for op in module.ops
        if isinstance(op, func.FuncOp) and OUTLINED in op.attributes
    ]


def calls_in(function: func.FuncOp) -> list[func.CallOp]:
    return [op for op in function.body.block.ops if isinstance(op, func.CallOp)]


def body_ops(function: func.FuncOp) -> list[str]:
    return [op.name for op in function.body.block.ops if op.name != "func.return"]


def check_idempotent(module: ModuleOp) -> None:
    text = str(module)
    assert deduplicate(module) == {}
    assert str(module) == text


@pytest.mark.parametrize("case", sorted(HANDWRITTEN))
def test_handwritten_numerics_and_counts(case: str) -> None:
    before = fxdsl.parse(HANDWRITTEN[case])
    after = clone_module(before)
    replaced = deduplicate(after)
    after.verify()
    size, calls = EXPECTED[case]
    assert len(replaced) == 1
    ((name, regions),) = replaced.items()
    assert len(regions) == calls
    assert all(len(r.ops) == size for r in regions)
    (callee,) = outlined_functions(after)
    assert callee.sym_name.data == name
    assert len(body_ops(callee)) == size
    main = after.body.block.first_op
    assert isinstance(main, func.FuncOp)
    assert [c.callee.string_value() for c in calls_in(main)] == [name] * calls
    assert_same_numerics(before, after)
    check_idempotent(after)


def test_union_of_outputs_returns_what_any_copy_exposes() -> None:
    module = fxdsl.parse(HANDWRITTEN["union"])
    deduplicate(module)
    (callee,) = outlined_functions(module)
    assert len(callee.function_type.outputs) == 2  # neg (used by copy 2) + mul


def test_crossed_copy_stays_inline() -> None:
    module = fxdsl.parse(HANDWRITTEN["crossed"])
    (regions,) = deduplicate(module).values()
    main = module.body.block.first_op
    assert isinstance(main, func.FuncOp)
    inline = [op.name for op in main.body.block.ops]
    # copy B (the second tanh/add pair) would close a cycle with A's call
    assert inline.count("graph.tanh") == 1
    assert inline.count("graph.add") == 1
    assert [len(r.ops) for r in regions] == [2, 2]


def test_gpt2_real_size_two_blocks() -> None:
    before = gpt2_stack(2)
    after = clone_module(before)
    replaced = deduplicate(after)
    (regions,) = replaced.values()
    assert len(regions) == 2
    assert_same_numerics(before, after, seeds=(0,), rtol=1e-4, atol=1e-5)


def block_ops(module: ModuleOp, fqn: str) -> int:
    """Graph ops whose scope lies inside module call `fqn` (calls excluded)."""
    return sum(
        1
        for op in module.walk()
        if isinstance(attr := op.attributes.get(SCOPE), ScopeAttr)
        and fqn in attr.fqns
        and not isinstance(op, func.CallOp)
    )


@pytest.mark.parametrize("n_blocks", [2, 12, 48])
def test_gpt2_stack_one_function_n_calls(n_blocks: int) -> None:
    before = gpt2_stack(n_blocks, T=8, D=64, heads=2)
    after = clone_module(before)
    replaced = deduplicate(after)
    after.verify()
    (callee,) = outlined_functions(after)
    (regions,) = replaced.values()
    main = after.body.block.first_op
    assert isinstance(main, func.FuncOp)
    calls = calls_in(main)
    assert len(calls) == len(regions) == n_blocks
    # the function holds a whole block: every op of block h.i, nothing else
    per_block = block_ops(before, "transformer.h.0")
    assert len(body_ops(callee)) == per_block
    for op in main.body.block.ops:
        scope = op.attributes.get(SCOPE)
        inline = scope.fqns if isinstance(scope, ScopeAttr) else ()
        assert isinstance(op, func.CallOp) or not any(".h." in f for f in inline)
    for index, call in enumerate(calls):
        scope = call.attributes[SCOPE]
        assert isinstance(scope, ScopeAttr)
        assert scope.fqns[-1] == f"transformer.h.{index}"
    if n_blocks <= 12:
        assert_same_numerics(before, after)
    else:
        assert_same_numerics(before, after, seeds=(0,))
    check_idempotent(after)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(graphs(scoped=True, max_ops=50) | graphs(max_ops=50))
def test_random_graphs(module: ModuleOp) -> None:
    after = clone_module(module)
    first = str(after)
    deduplicate(after)
    after.verify()
    assert_same_numerics(module, after, seeds=(0,))
    check_idempotent(after)
    # deterministic: the same input gives the same text
    again = fxdsl.parse(first)
    deduplicate(again)
    assert str(again) == str(after)


def test_fused_gpt2_blocks_are_outlined_whole() -> None:
    """Dedup after graph-fuse on 6 GPT-2 blocks: each block but the last
    (whose final group yields no residual stream) becomes one call of a
    function holding its fusion groups; numerics unchanged."""
    from fxdsl.ir.graph import FusionGroupOp

    before = gpt2_stack(6, B=1, T=8, D=32, heads=2)
    fused = clone_module(before)
    fxdsl.apply(fused, "graph-decompose,graph-fuse,cse")
    replaced = deduplicate(fused, min_ops=8)
    ((name, regions),) = replaced.items()
    assert len(regions) == 5
    (callee,) = outlined_functions(fused)
    assert callee.sym_name.data == name
    groups = [op for op in callee.body.block.ops if isinstance(op, FusionGroupOp)]
    assert len(groups) == 4  # attention prologue, softmax, gelu, add + layer norm
    assert_same_numerics(before, fused, rtol=1e-4, atol=1e-5)
    text = str(fused)
    assert deduplicate(fused, min_ops=8) == {}  # idempotent
    assert str(fused) == text


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(graphs(scoped=True, max_ops=50) | graphs(max_ops=50))
def test_random_fused_graphs(module: ModuleOp) -> None:
    """After graph-fuse, fusion groups are units of regions: outlining fused
    graphs keeps their numerics and is idempotent."""
    fused = clone_module(module)
    fxdsl.apply(fused, "graph-fuse")
    after = clone_module(fused)
    deduplicate(after, min_ops=1)
    after.verify()
    assert_same_numerics(module, after, seeds=(0,))
    check_idempotent(after)


def test_pipeline_and_options() -> None:
    module = fxdsl.parse(HANDWRITTEN["layers"])
    fxdsl.apply(module, "graph-dedup{min-copies=4}")
    assert outlined_functions(module) == []
    fxdsl.apply(module, "graph-dedup{min-ops=3 min-copies=3}")
    assert len(outlined_functions(module)) == 1


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"min_ops": 0}, "min-ops must be >= 1, got 0"),
        ({"min_copies": 1}, "min-copies must be >= 2"),
    ],
)
def test_bad_options(options: dict[str, int], message: str) -> None:
    with pytest.raises(PassFailedException, match=message):
        GraphDedupPass(**options)
    with pytest.raises(PassFailedException, match=message):
        deduplicate(fxdsl.parse(HANDWRITTEN["chains"]), **options)
