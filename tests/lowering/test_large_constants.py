"""Large constants are device buffers, not kernel literals
(`graph-wrap-kernels`' `buffered_constant`, `graph-bufferize`'s
`memref.global`, the launch plan's `constants`).

A frozen model's folded weights (ResNet-18: 11.7 M values) used to be
printed into the CUDA C as `__device__` arrays (153 MB of source, more than
NVRTC compiles in the GPU check's budget). Here: the values a program
computes with large constants, in f32 and bf16, equal the reference on the
IR emulator, on cuda-sim and through the executor on the CPU stand-in of
CuPy (which uploads each constant once, not per call); a frozen conv net's
CUDA C holds no large literal; the IR FileCheck is
tests/filecheck/lowering/graph-large-constants.mlir.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fxdsl.api import apply, parse
from fxdsl.interpreters.run import run_reference
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.lowering.graph_wrap_kernels import INLINE_CONSTANT_LIMIT
from fxdsl.lowering.launch_plan import build_launch_plan
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime.cuda_sim import CudaSimEmulator
from fxdsl.runtime.ir_emulator import Emulator
from fxdsl.runtime.kernel_cache import KernelCache

N = 2048
"""Elements of the large constant (above `INLINE_CONSTANT_LIMIT`)."""
assert N > INLINE_CONSTANT_LIMIT


def _dense(values: np.ndarray) -> str:
    """A dense literal in MLIR's hex form (little-endian bytes)."""
    return f'dense<"0x{values.tobytes().hex().upper()}">'


def program(element: str) -> str:
    """A constant read by a GEMM through a view, by two fused kernels, and
    a small one inline; `element` f32 or bf16."""
    rng = np.random.default_rng(0)
    weights = rng.standard_normal(N).astype(np.float32)
    if element == "bf16":
        from fxdsl.ir.dtypes import bf16_bits

        literal = _dense(bf16_bits(weights))
    else:
        literal = _dense(weights)
    t, w = f"tensor<32x64x{element}>", f"tensor<{N}x{element}>"
    return f"""
func.func @f(%x: tensor<8x32x{element}>, %y: {t}) -> (tensor<8x64x{element}>, {t}) {{
  %w = graph.constant {literal} : {w}
  %w2 = graph.reshape %w : ({w}) -> {t}
  %r = graph.matmul %x, %w2 : (tensor<8x32x{element}>, {t}) -> tensor<8x64x{element}>
  %m = graph.mul %y, %w2 : {t}
  %e = graph.tanh %m : {t}
  %s = graph.sub %e, %w2 : {t}
  func.return %r, %s : tensor<8x64x{element}>, {t}
}}
"""


def inputs(element: str) -> list[np.ndarray]:
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 32)).astype(np.float32)
    y = rng.standard_normal((32, 64)).astype(np.float32)
    if element == "bf16":
        from fxdsl.ir.dtypes import round_to_bf16

        x, y = round_to_bf16(x), round_to_bf16(y)
    return [x, y]


TOLERANCE = {"f32": 1e-5, "bf16": 2e-2}

# `compile_cuda` on the CPU stand-in of CuPy: test_executor_on_cpu's fixture
sys.path.insert(0, str(Path(__file__).parent))
from test_executor_on_cpu import FakeCompiler, executor_module  # noqa: E402, F401


def check(got: tuple[np.ndarray, ...], element: str) -> None:
    module = parse(program(element))
    want = run_reference(module, *inputs(element), entry="f")
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(
            np.asarray(g, np.float32), np.asarray(w, np.float32),
            rtol=TOLERANCE[element], atol=TOLERANCE[element],
        )  # fmt: skip


@pytest.mark.parametrize("element", ["f32", "bf16"])
def test_the_plan_holds_one_constant_slot_and_no_kernel_literal(element: str) -> None:
    lowered = apply(parse(program(element)), GPU_PIPELINE)
    plan = build_launch_plan(lowered)
    ((slot, values),) = plan.constants
    assert plan.buffers[slot].shape == (N,)
    assert values.shape == (N,)
    # the GEMM and the fused kernel read the constant's slot
    readers = [s for s in plan.steps if slot in getattr(s, "args", ())]
    gemms = [s for s in plan.steps if getattr(s, "rhs", None) is not None]
    assert readers
    assert gemms
    assert all(g.rhs.slot == slot for g in gemms)
    assert f"[{N}]" not in kernel_source(lowered)  # type: ignore[arg-type]


@pytest.mark.parametrize("element", ["f32", "bf16"])
def test_the_emulator_reads_the_constant(element: str) -> None:
    lowered = apply(parse(program(element)), GPU_PIPELINE)
    check(Emulator(lowered).run("f", *inputs(element)), element)  # type: ignore[arg-type]


@pytest.mark.cxx
def test_cuda_sim_reads_the_constant() -> None:
    lowered = apply(parse(program("f32")), GPU_PIPELINE)
    sim = CudaSimEmulator(lowered)  # type: ignore[arg-type]
    try:
        check(sim.run("f", *inputs("f32")), "f32")
    finally:
        sim.close()


@pytest.mark.parametrize("element", ["f32", "bf16"])
def test_the_executor_uploads_each_constant_once(
    executor_module: Any,  # noqa: F811 - the imported fixture
    element: str,
    tmp_path: Path,
) -> None:
    run = executor_module.compile_cuda(
        parse(program(element)), compiler=FakeCompiler(), cache=KernelCache(tmp_path)
    )
    ((slot, _),) = run.plan.constants
    held = run.constants[slot]
    assert held.dtype == (np.uint16 if element == "bf16" else np.float32)
    for _ in range(2):  # the second call reads the same buffer, unchanged
        check(run(*inputs(element)), element)
        assert run.bind(run.upload(tuple(inputs(element))))[slot] is held


def test_a_frozen_conv_net_prints_no_large_literal() -> None:
    """Two 3x3 convs of 32 channels, frozen and folded: their weights
    (9216 values each) are buffers; the CUDA C stays small."""
    torch = pytest.importorskip("torch")
    from fxdsl.frontends.torch_export import from_torch

    net = torch.nn.Sequential(
        torch.nn.Conv2d(32, 32, 3, padding=1), torch.nn.BatchNorm2d(32),
        torch.nn.ReLU(), torch.nn.Conv2d(32, 32, 3, padding=1),
    ).eval()  # fmt: skip
    image = torch.randn(1, 32, 8, 8)
    module = from_torch(net, (image,), freeze=True).module
    lowered = apply(apply(module, "graph-fold-constants"), GPU_PIPELINE)
    plan = build_launch_plan(lowered)
    assert len(plan.constants) >= 2
    source = kernel_source(lowered)  # type: ignore[arg-type]
    literal_sizes = [
        int(line.split("[")[1].split("]")[0])
        for line in source.splitlines()
        if line.startswith("__device__ const")
    ]
    assert all(size <= INLINE_CONSTANT_LIMIT for size in literal_sizes)
    (got,) = Emulator(lowered).run(plan.function, image.numpy())  # type: ignore[arg-type]
    with torch.no_grad():
        want = net(image).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
