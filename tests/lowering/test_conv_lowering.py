"""Conv nets through the default GPU pipeline (graph-decompose's conv
patterns, then graph-fuse and convert-graph-to-gpu): what each conv-net
pattern lowers to (GEMMs and kernels counted), its numerics on the IR
emulator against the reference, its CUDA C through `nvcc -ptx -arch=sm_90`
and on cuda-sim."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects import gpu
from xdsl.dialects.builtin import ModuleOp

import fxdsl
from fxdsl import ops, trace
from fxdsl.interpreters.run import entry_function, random_inputs, run_reference
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime.ir_emulator import Emulator
from fxdsl.testing.numerics import assert_matches_reference

GEMM = 'library_call = "cublas_gemm_strided_batched"'


def traced(fn: Callable[..., Any], *shapes: tuple[int, ...]) -> ModuleOp:
    return trace(fn, *(np.zeros(s, np.float32) for s in shapes))


def entry(module: ModuleOp) -> str:
    return entry_function(module).sym_name.data


def lowered(module: ModuleOp) -> ModuleOp:
    return fxdsl.apply(module.clone(), GPU_PIPELINE)


def launches(module: ModuleOp) -> list[str]:
    """The kernels the host launches, in order."""
    return [
        op.kernel.nested_references.data[-1].data
        for op in module.walk()
        if isinstance(op, gpu.LaunchFuncOp)
    ]


def kernel_ops(module: ModuleOp, name: str) -> list[str]:
    """Names of the ops in kernel `name`'s body (arith, math, memref, ...)."""
    (kernel,) = [
        op
        for op in module.walk()
        if isinstance(op, gpu.FuncOp) and op.sym_name.data == name
    ]
    return [op.name for op in kernel.walk()]


def assert_emulator_matches(module: ModuleOp, tolerance: float = 1e-5) -> None:
    """The lowered module on the IR emulator equals the reference."""
    name = entry(module)
    machine = Emulator(lowered(module))
    inputs = random_inputs(module, seed=0)
    run = lambda *arrays: machine.run(name, *arrays)
    assert_matches_reference(module, name, inputs, run, tolerance)


def conv_block(x: Any, w: Any, b: Any, residual: Any) -> Any:
    return ops.relu(ops.conv2d(x, w, b, 1, 1)) + residual


def test_conv_block_is_a_gemm_and_one_epilogue() -> None:
    """conv -> bias -> relu -> + residual: the im2col kernel (padding, taps
    and their stack in one), the GEMM, and ONE kernel for bias, relu and the
    residual add."""
    module = traced(conv_block, (1, 8, 6, 6), (16, 8, 3, 3), (16,), (1, 16, 6, 6))
    low = lowered(module)
    assert str(low).count(GEMM) == 1
    columns, epilogue = launches(low)
    # the padding and the stack are concats: a branch per piece (per lane)
    assert kernel_ops(low, columns).count("scf.if") >= 2 * 9 + 8
    body = kernel_ops(low, epilogue)
    assert body.count("arith.addf") == 2  # bias and residual
    assert "arith.maximumf" in body or "arith.cmpf" in body  # relu
    assert_emulator_matches(module)


def test_pointwise_conv_block_needs_no_columns() -> None:
    """A 1x1 conv reads its input as the GEMM's operand: GEMM + epilogue."""
    module = traced(
        lambda x, w, b, r: ops.relu(ops.conv2d(x, w, b)) + r,
        (2, 8, 5, 5),
        (16, 8, 1, 1),
        (16,),
        (2, 16, 5, 5),
    )
    low = lowered(module)
    assert str(low).count(GEMM) == 1
    assert len(launches(low)) == 1
    assert_emulator_matches(module)


def test_conv_batch_norm_relu_residual_is_one_epilogue() -> None:
    """ResNet's block tail: batch norm, relu and the residual add fuse into
    the one kernel after the GEMM."""

    def block(x: Any, w: Any, m: Any, v: Any, g: Any, b: Any, r: Any) -> Any:
        y = ops.batch_norm(ops.conv2d(x, w, None, 1, 1), m, v, g, b)
        return ops.relu(y + r)

    c = (8,)
    module = traced(block, (1, 4, 5, 5), (8, 4, 3, 3), c, c, c, c, (1, 8, 5, 5))
    low = lowered(module)
    assert str(low).count(GEMM) == 1
    _, epilogue = launches(low)
    assert "math.rsqrt" in kernel_ops(low, epilogue)
    inputs = random_inputs(module, seed=0)
    inputs[3] = np.abs(inputs[3])  # a variance
    (want,) = run_reference(module, *inputs)
    (got,) = Emulator(low).run(entry(module), *inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_patch_embedding_is_one_gemm() -> None:
    """ViT's stride = kernel conv: the patches are a reshape + transpose of
    the input (one copy into the GEMM's layout), then ONE matmul."""
    module = traced(
        lambda x, w, b: ops.conv2d(x, w, b, 8), (1, 3, 32, 32), (32, 3, 8, 8), (32,)
    )
    low = lowered(module)
    assert str(low).count(GEMM) == 1
    assert len(launches(low)) == 2  # the patch copy, the bias add
    assert_emulator_matches(module)


def test_pooling_is_one_windowed_kernel() -> None:
    """max_pool2d (3x3, stride 2, padding 1) -> relu: padding, taps, the
    maximum and the epilogue in one kernel. (An elementwise prologue stays
    a kernel of its own: a pooling kernel reads its input at each tap.)"""
    module = traced(lambda x: ops.relu(ops.max_pool2d(x, 3, 2, 1)), (1, 4, 9, 9))
    low = lowered(module)
    (kernel,) = launches(low)
    found = kernel_ops(low, kernel)
    assert found.count("arith.maximumf") == 8  # 8 taps
    assert found.count("arith.select") >= 1  # relu: x < 0 ? 0 : x
    assert_emulator_matches(module)


def test_depthwise_conv_is_one_kernel() -> None:
    """MobileNet's depthwise conv + batch norm + hardswish: elementwise taps,
    no GEMM, one kernel."""

    def block(x: Any, w: Any, m: Any, v: Any, g: Any, b: Any) -> Any:
        y = ops.conv2d(x, w, None, 2, 1, 1, 8)
        return ops.hardswish(ops.batch_norm(y, m, v, g, b))

    c = (8,)
    module = traced(block, (1, 8, 7, 7), (8, 1, 3, 3), c, c, c, c)
    low = lowered(module)
    assert GEMM not in str(low)
    assert len(launches(low)) == 1
    inputs = random_inputs(module, seed=0)
    inputs[3] = np.abs(inputs[3])
    (want,) = run_reference(module, *inputs)
    (got,) = Emulator(low).run(entry(module), *inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


CASES: dict[str, Callable[[], ModuleOp]] = {
    "conv_dilated_padded": lambda: traced(
        lambda x, w: ops.conv2d(x, w, None, 1, 2, 2), (1, 3, 7, 7), (4, 3, 3, 3)
    ),
    "conv_grouped_strided": lambda: traced(
        lambda x, w, b: ops.conv2d(x, w, b, (2, 1), (1, 0), 1, 2),
        (2, 4, 7, 6),
        (6, 2, 3, 2),
        (6,),
    ),
    "conv1d_strided": lambda: traced(
        lambda x, w, b: ops.conv1d(x, w, b, 2, 1), (1, 6, 11), (4, 6, 3), (4,)
    ),
    "conv1d_depthwise": lambda: traced(
        lambda x, w: ops.conv1d(x, w, None, 1, 2, 2, 4), (1, 4, 9), (4, 1, 3)
    ),
    "max_pool_ceil": lambda: traced(
        lambda x: ops.max_pool2d(x, 3, 2, 1, ceil_mode=True), (1, 2, 8, 7)
    ),
    "avg_pool_ceil_no_pad_count": lambda: traced(
        lambda x: ops.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
        (1, 2, 8, 7),
    ),
    "avg_pool_divisor_override": lambda: traced(
        lambda x: ops.avg_pool2d(x, 3, 2, 1, True, False, divisor_override=4),
        (1, 2, 8, 7),
    ),
    "avg_pool_sum": lambda: traced(
        lambda x: ops.avg_pool2d(x, 2, 1, divisor_override=1), (1, 2, 5, 4)
    ),
    "adaptive_pool": lambda: traced(
        lambda x: ops.adaptive_avg_pool2d(x, (2, 3)), (1, 3, 6, 6)
    ),
    "adaptive_pool_uneven": lambda: traced(
        lambda x: ops.adaptive_avg_pool2d(x, (3, 2)), (1, 3, 7, 5)
    ),
}
"""Small programs, one per lowering route and edge case (the big ones are
the tests above and the models in tests/frontends/test_conv_import.py)."""


@pytest.mark.parametrize("name", list(CASES))
def test_edge_cases_on_the_emulator(name: str) -> None:
    assert_emulator_matches(CASES[name]())


def _all_cases() -> list[tuple[str, ModuleOp]]:
    modules = [(name, make()) for name, make in CASES.items()]
    modules.append(
        ("block", traced(conv_block, (1, 4, 6, 6), (8, 4, 3, 3), (8,), (1, 8, 6, 6)))
    )
    return modules


@pytest.mark.nvcc
def test_conv_kernels_compile_with_nvcc(tmp_path: Path) -> None:
    """Every conv-net kernel compiles with nvcc -ptx -arch=sm_90, one .entry
    per gpu.func."""
    from fxdsl.testing.nvcc import compile_ptx

    for name, module in _all_cases():
        low = lowered(module)
        kernels = [op for op in low.walk() if isinstance(op, gpu.FuncOp)]
        ptx = compile_ptx(kernel_source(low), tmp_path, name)
        assert ptx.count(".entry") == len(kernels), name


@pytest.mark.cxx
def test_conv_kernels_run_on_cuda_sim() -> None:
    """The CUDA C of each case, compiled for the host and run on cuda-sim
    (sanitizers on), equals the reference."""
    from fxdsl.runtime.cuda_sim import CudaSimEmulator

    for name, module in _all_cases():
        inputs = random_inputs(module, seed=0)
        want = run_reference(module, *inputs)
        sim = CudaSimEmulator(lowered(module), "address,undefined")
        try:
            got = sim.run(entry(module), *inputs)
        finally:
            sim.close()
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=name)
        assert len(sim.worker.launched) >= 1
