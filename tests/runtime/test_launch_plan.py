"""The launch plan of lowered host functions, executed on the CPU: kernels by
the IR emulator (`fxdsl.runtime.ir_emulator`), GEMMs by a numpy model of
cuBLAS fed with the plan's cuBLAS parameters. Results must equal the
reference interpreter."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from fxdsl.pipeline.lower import lower_for_cuda

from fxdsl.api import apply, parse
from fxdsl.frontends.models import gpt2_stack
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.ir.dtypes import numpy_dtype
from fxdsl.ir.utils import entry_function
from fxdsl.lowering.launch_plan import (
    Gemm,
    Launch,
    LaunchPlan,
    LaunchPlanError,
    build_launch_plan,
    run_gemm_reference,
)
from fxdsl.runtime import ir_emulator as emulator

MATMULS = """
func.func @transposed_weight(%x: tensor<2x5x8xf32>, %w: tensor<3x8xf32>) -> tensor<2x5x3xf32> {
  %t = graph.transpose %w perm [1, 0] : (tensor<3x8xf32>) -> tensor<8x3xf32>
  %y = graph.matmul %x, %t : (tensor<2x5x8xf32>, tensor<8x3xf32>) -> tensor<2x5x3xf32>
  func.return %y : tensor<2x5x3xf32>
}
func.func @transposed_lhs(%x: tensor<8x5xf32>, %w: tensor<8x3xf32>) -> tensor<5x3xf32> {
  %t = graph.transpose %x perm [1, 0] : (tensor<8x5xf32>) -> tensor<5x8xf32>
  %y = graph.matmul %t, %w : (tensor<5x8xf32>, tensor<8x3xf32>) -> tensor<5x3xf32>
  func.return %y : tensor<5x3xf32>
}
func.func @batch_broadcast_lhs(%a: tensor<4x6xf32>, %b: tensor<3x6x2xf32>) -> tensor<3x4x2xf32> {
  %y = graph.matmul %a, %b : (tensor<4x6xf32>, tensor<3x6x2xf32>) -> tensor<3x4x2xf32>
  func.return %y : tensor<3x4x2xf32>
}
func.func @split_k(%x: tensor<2x4x12xf32>, %w: tensor<12x6xf32>) -> tensor<2x4x6xf32> {
  %m = graph.matmul %x, %w : (tensor<2x4x12xf32>, tensor<12x6xf32>) -> tensor<2x4x6xf32>
  func.return %m : tensor<2x4x6xf32>
}
func.func @vector(%a: tensor<6xf32>, %b: tensor<6x2xf32>) -> tensor<2xf32> {
  %y = graph.matmul %a, %b : (tensor<6xf32>, tensor<6x2xf32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}
func.func @sliced_heads(%qkv: tensor<4x12xf32>) -> tensor<4x4xf32> {
  %q, %k, %v = graph.split %qkv dim 1 sizes [4, 4, 4] : (tensor<4x12xf32>) -> (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>)
  %kt = graph.transpose %k perm [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %s = graph.matmul %q, %kt : tensor<4x4xf32>
  %e = graph.exp %s : tensor<4x4xf32>
  %y = graph.matmul %e, %v : tensor<4x4xf32>
  func.return %y : tensor<4x4xf32>
}
func.func @merged_heads(%p: tensor<1x2x3x3xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x3x8xf32> {
  %y = graph.matmul %p, %v : (tensor<1x2x3x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x3x4xf32>
  %t = graph.transpose %y perm [0, 2, 1, 3] : (tensor<1x2x3x4xf32>) -> tensor<1x3x2x4xf32>
  %m = graph.reshape %t : (tensor<1x3x2x4xf32>) -> tensor<1x3x8xf32>
  func.return %m : tensor<1x3x8xf32>
}
func.func @merged_heads_batched(%p: tensor<2x2x3x3xf32>, %v: tensor<2x2x3x4xf32>) -> tensor<2x3x8xf32> {
  %y = graph.matmul %p, %v : (tensor<2x2x3x3xf32>, tensor<2x2x3x4xf32>) -> tensor<2x2x3x4xf32>
  %t = graph.transpose %y perm [0, 2, 1, 3] : (tensor<2x2x3x4xf32>) -> tensor<2x3x2x4xf32>
  %m = graph.reshape %t : (tensor<2x3x2x4xf32>) -> tensor<2x3x8xf32>
  func.return %m : tensor<2x3x8xf32>
}
"""


def execute(
    plan: LaunchPlan, machine: Any, inputs: list[np.ndarray]
) -> list[np.ndarray]:
    """Run a plan on flat numpy buffers (what the CuPy executor does on a GPU)."""
    buffers = [np.zeros(spec.size, dtype=spec.dtype) for spec in plan.buffers]
    for slot, array in enumerate(inputs):
        buffers[slot][...] = np.asarray(array, dtype=plan.buffers[slot].dtype).reshape(
            -1
        )
    for step in plan.steps:
        if isinstance(step, Launch):
            machine.launch(
                step.kernel,
                step.grid[0],
                step.block[0],
                [buffers[a] for a in step.args],
            )
        else:
            params = step.cublas
            out = buffers[step.out.slot]
            result = np.zeros(out.shape, np.float64)
            run_gemm_reference(
                params, buffers[step.rhs.slot], buffers[step.lhs.slot], result
            )
            out[...] = result.astype(out.dtype)
    results = []
    for view in plan.outputs:
        flat = buffers[view.slot]
        item = flat.itemsize
        results.append(np.array(np.lib.stride_tricks.as_strided(
            flat[view.layout.offset:], view.layout.shape,
            tuple(s * item for s in view.layout.strides),
        )))  # fmt: skip
    return results


def check_plan(reference, lowered, name: str) -> LaunchPlan:
    plan = build_launch_plan(lowered, name)
    inputs = random_inputs(reference, entry=name)
    expected = run_reference(reference, *inputs, entry=name)
    actual = execute(plan, emulator.Emulator(lowered), list(inputs))
    for want, got in zip(expected, actual):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    return plan


@pytest.mark.parametrize(
    "name",
    [
        "transposed_weight",
        "transposed_lhs",
        "batch_broadcast_lhs",
        "vector",
        "sliced_heads",
        "merged_heads",
        "merged_heads_batched",
        "split_k",
    ],
)
def test_gemm_plans_match_the_reference(name: str) -> None:
    reference = parse(MATMULS)
    # graph-split-k{splits=3}: x read in place as 3 strided (8, 4) chunks
    split = "graph-split-k{splits=3},graph-fuse," if name == "split_k" else ""
    lowered = apply(parse(MATMULS), split + "convert-graph-to-gpu")
    plan = check_plan(reference, lowered, name)
    gemms = [s for s in plan.steps if isinstance(s, Gemm)]
    assert gemms
    if name == "split_k":
        ((gemm,), launches) = gemms, [s for s in plan.steps if isinstance(s, Launch)]
        assert gemm.cublas.batch == 3
        assert len(launches) == 1  # the sum, no copy of x's chunks
    if name.startswith("transposed"):
        # the transposed operand is read in place with a transpose flag
        flags = {(g.cublas.trans_first, g.cublas.trans_second) for g in gemms}
        assert (
            flags == {(True, False)} if name == "transposed_weight" else {(False, True)}
        )
        assert sum(isinstance(s, Launch) for s in plan.steps) == 0  # no copy kernel


def test_gpt2_block_plan() -> None:
    reference = gpt2_stack(1, B=1, T=8, D=32, heads=2)
    lowered = apply(
        reference.clone(), "graph-decompose,graph-fuse,convert-graph-to-gpu"
    )
    name = next(iter(f.sym_name.data for f in reference.body.block.ops))
    plan = check_plan(reference, lowered, name)
    assert plan.num_inputs == len(random_inputs(reference, entry=name))
    assert sum(isinstance(s, Gemm) for s in plan.steps) == 6
    launched = [s.kernel for s in plan.steps if isinstance(s, Launch)]
    assert len(launched) == len(set(launched)) == len(plan.kernels)
    # inputs are buffers 0..n-1, every other buffer is an allocation of the plan
    assert all(spec.dtype == numpy_dtype_name(spec.element) for spec in plan.buffers)


def numpy_dtype_name(element: str) -> str:
    from fxdsl.ir.parsing import parse_module

    module = parse_module(f'"test.op"() : () -> ({element})')
    return numpy_dtype(module.body.block.first_op.results[0].type).name  # type: ignore[union-attr]


def test_unlowered_module_is_rejected() -> None:
    module = parse(MATMULS)
    with pytest.raises(LaunchPlanError, match="run convert-graph-to-gpu first"):
        build_launch_plan(module, "vector")


def test_deduplicated_functions_are_inlined_and_share_kernels() -> None:
    """After graph-dedup the host calls outlined functions: the plan inlines
    every call (own buffers) and launches the callee's kernels, so a kernel
    is compiled once however often it runs."""
    reference = gpt2_stack(3, B=1, T=8, D=32, heads=2)
    lowered = apply(reference.clone(), "graph-decompose,graph-fuse,cse,graph-dedup")
    calls = sum(op.name == "func.call" for op in lowered.walk())
    assert calls > 0
    apply(lowered, "convert-graph-to-gpu")
    name = next(iter(f.sym_name.data for f in reference.body.block.ops))
    plan = check_plan(reference, lowered, name)
    launches = [s.kernel for s in plan.steps if isinstance(s, Launch)]
    assert len(launches) > len(plan.kernels)  # some kernels run several times


def test_merged_heads_are_written_in_place() -> None:
    """P @ V for heads (1, 2, 3, 4) merged into (1, 3, 8): cuBLAS writes head h
    at column 4h of each row (ldc 8, batch stride 4), no copy kernel. With
    two sequences the batch dims (sequence, head) have no single stride, so
    the product is copied into place by a kernel."""
    lowered = apply(parse(MATMULS), "convert-graph-to-gpu")
    plan = build_launch_plan(lowered, "merged_heads")
    (gemm,) = plan.steps
    assert isinstance(gemm, Gemm)
    params = gemm.cublas
    assert (params.batch, params.ldc, params.stride_c) == (2, 8, 4)
    assert gemm.out.slot == plan.outputs[0].slot
    batched = build_launch_plan(lowered, "merged_heads_batched")
    assert [type(s).__name__ for s in batched.steps] == ["Gemm", "Launch"]


def test_declaration_first_picks_the_same_entry_everywhere() -> None:
    """The first public function is a declaration: the reference, the
    lowering and the launch plan all run @main (the first public function
    with a body), and the plan computes what the reference does."""
    reference = parse(
        "func.func @ext(tensor<4xf32>) -> tensor<4xf32>\n"
        "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
        "  %y = graph.exp %x : tensor<4xf32>\n"
        "  func.return %y : tensor<4xf32>\n"
        "}\n"
    )
    lowered, plan = lower_for_cuda(reference)
    assert plan.function == entry_function(lowered).sym_name.data == "main"
    assert entry_function(reference).sym_name.data == "main"
    inputs = random_inputs(reference)
    (expected,) = run_reference(reference, *inputs)
    (actual,) = execute(plan, emulator.Emulator(lowered), list(inputs))
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
