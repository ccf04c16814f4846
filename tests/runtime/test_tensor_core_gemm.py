"""The opt-in tensor-core GEMM route (`gemm="tensor-core"`): a lowered
program's bf16/f16 GEMMs run fxdsl's tensor-core kernel instead of the
library GEMM, on cuda-sim (`CudaSimEmulator`) and through the CUDA
executor's host logic (`compile_cuda`) with a numpy stand-in for CuPy whose
"cubin" is the CUDA C itself, run by cuda-sim. cuBLAS stays the default.
"""

from __future__ import annotations

import re
import sys
import types
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from fxdsl.api import apply, parse
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.runtime.cuda_sim import CudaSimEmulator, Worker, build, tensor_core_gemms
from fxdsl.runtime.kernel_cache import KernelCache

GRAPH = """func.func @f(%x: tensor<{B}x{M}x{K}x{t}>, %w: tensor<{N}x{K}x{t}>,
                   %b: tensor<{K}x{N}x{t}>) -> (tensor<{B}x{M}x{N}x{t}>, tensor<{B}x{M}x{N}x{t}>) {{
  %y = graph.linear %x, %w : (tensor<{B}x{M}x{K}x{t}>, tensor<{N}x{K}x{t}>) -> tensor<{B}x{M}x{N}x{t}>
  %z = graph.matmul %x, %b : (tensor<{B}x{M}x{K}x{t}>, tensor<{K}x{N}x{t}>) -> tensor<{B}x{M}x{N}x{t}>
  func.return %y, %z : tensor<{B}x{M}x{N}x{t}>, tensor<{B}x{M}x{N}x{t}>
}}"""
"""A linear (its (out, in) weight read transposed) and a matmul whose B is
broadcast over the batch: GEMMs only, so the plan has no other kernel."""
SMALL = {"B": 2, "M": 20, "K": 40, "N": 24}


def graph(t: str, **dims: int) -> str:
    return GRAPH.format(t=t, **(SMALL | dims))


def assert_matches(got: Sequence[Any], want: Sequence[Any]) -> None:
    """f32 accumulation both ways, one rounding to bf16/f16: the results
    differ by at most an ulp where the roundings fall differently."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g64, w64 = np.asarray(g, np.float64), np.asarray(w, np.float64)
        np.testing.assert_allclose(g64, w64, rtol=2**-7, atol=1e-3)


@pytest.mark.cxx
@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_tensor_core_route_on_cuda_sim(t: str) -> None:
    reference = parse(graph(t))
    lowered = apply(parse(graph(t)), "convert-graph-to-gpu")
    shapes = [shape for _, shape in tensor_core_gemms(lowered).values()]
    assert len(shapes) == 2
    assert any(s.b_n_by_k for s in shapes)  # the linear's (out, in) weight
    assert any(s.layout("b").strides[0] == 0 for s in shapes)  # broadcast B
    inputs = random_inputs(reference, seed=0)
    sim = CudaSimEmulator(lowered, gemm="tensor-core")
    try:
        assert sim.gemm_worker is not None
        got = sim.run("f", *inputs)
        launched = [name for name, _, _ in sim.gemm_worker.launched]
    finally:
        sim.close()
    assert launched == ["fx_tc_gemm_0", "fx_tc_gemm_1"]
    assert_matches(got, run_reference(reference, *inputs))


WIDE = """func.func @f(%x: tensor<2x20x40x{t}>, %b: tensor<40x24x{t}>) -> tensor<2x20x24xf32> {{
  %z = graph.matmul %x, %b : (tensor<2x20x40x{t}>, tensor<40x24x{t}>) -> tensor<2x20x24xf32>
  func.return %z : tensor<2x20x24xf32>
}}"""
"""A 16-bit GEMM that stores its product in f32 (an addmm's, before its bias)."""


@pytest.mark.cxx
@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_tensor_core_route_stores_a_widened_product_in_f32(t: str) -> None:
    """The kernel stores its f32 accumulators as they are: equal to the
    reference's f32 product up to the order of the f32 sums."""
    reference = parse(WIDE.format(t=t))
    lowered = apply(parse(WIDE.format(t=t)), "convert-graph-to-gpu")
    (shape,) = [shape for _, shape in tensor_core_gemms(lowered).values()]
    assert (shape.operand, shape.result) == (t, "f32")
    inputs = random_inputs(reference, seed=0)
    sim = CudaSimEmulator(lowered, gemm="tensor-core")
    try:
        (got,) = sim.run("f", *inputs)
    finally:
        sim.close()
    (want,) = run_reference(reference, *inputs)
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


def test_unknown_gemm_route_is_an_error() -> None:
    lowered = apply(parse(graph("f16")), "convert-graph-to-gpu")
    with pytest.raises(ValueError, match="gemm='cutlass'"):
        CudaSimEmulator(lowered, gemm="cutlass")


# --- the CUDA executor's host logic, on a stand-in CuPy ----------------------


class SourceCompiler:
    """A compiler whose "cubin" is the CUDA C it was given."""

    identity = "source-compiler 1"

    def __init__(self) -> None:
        self.sources: list[str] = []

    def __call__(self, source: str, arch: str, options: Sequence[str]) -> bytes:
        self.sources.append(source)
        return source.encode()


def fake_cupy() -> types.ModuleType:
    """numpy under CuPy's names; `RawModule(path=)` builds the CUDA C in
    the "cubin" with cuda-sim and its kernels launch there."""
    cp = types.ModuleType("cupy")
    for name in ("zeros", "empty", "asarray", "ascontiguousarray", "ndarray",
                 "uint16", "uint32", "float32", "where", "isnan", "lib"):  # fmt: skip
        setattr(cp, name, getattr(np, name))
    cp.asnumpy = np.asarray
    cp.cuda = types.SimpleNamespace(
        Device=lambda: types.SimpleNamespace(compute_capability="90")
    )
    cp.launched = []

    class RawModule:
        def __init__(self, *, path: str) -> None:
            source = Path(path).read_text()
            names = re.findall(
                r"__global__ void __launch_bounds__\(\d+\) (\w+)\(", source
            )
            self.worker = Worker(build(source, names))

        def get_function(self, name: str) -> Any:
            def launch(grid: Any, block: Any, args: tuple[Any, ...]) -> None:
                cp.launched.append(name)
                self.worker.launch(name, grid, block, list(args))

            return launch

    cp.RawModule = RawModule
    return cp


@pytest.mark.cxx
@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_executor_routes_gemms_to_the_tensor_core_kernel(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, t: str
) -> None:
    from fxdsl.runtime import cuda_executor

    cp = fake_cupy()
    monkeypatch.setitem(sys.modules, "cupy", cp)
    module = parse(graph(t))
    compiler = SourceCompiler()
    run = cuda_executor.compile_cuda(
        module, compiler=compiler, cache=KernelCache(tmp_path), gemm="tensor-core"
    )
    assert run.blas is None  # no step is left for cuBLAS
    assert all(run.capturable(step) for step in run.plan.steps)
    inputs = random_inputs(module, seed=1)
    got = run(*inputs)
    assert cp.launched == ["fx_tc_gemm_0", "fx_tc_gemm_1"]
    assert_matches(got, run_reference(module, *inputs))
    assert len(compiler.sources) == 1  # one translation unit for both GEMMs
    with pytest.raises(ValueError, match="gemm='cutlass'"):
        cuda_executor.compile_cuda(module, compiler=compiler, gemm="cutlass")


@pytest.mark.gpu
@pytest.mark.parametrize("t", ["bf16", "f16"])
def test_tensor_core_route_on_the_gpu(t: str) -> None:
    """The same route on the device (NVRTC, CuPy), ragged tiles and
    several blocks: equal to the reference as on cuda-sim."""
    import cupy  # type: ignore[import-not-found]

    from fxdsl.lowering.launch_plan import Gemm
    from fxdsl.runtime.cuda_executor import compile_cuda

    module = parse(graph(t, B=3, M=300, K=136, N=200))
    run = compile_cuda(module, gemm="tensor-core")
    gemms = {s for s in run.plan.steps if isinstance(s, Gemm)}
    assert set(run.gemm_kernels) == gemms
    assert len(gemms) == 2
    inputs = random_inputs(module, seed=2)
    got = [cupy.asnumpy(x) for x in run(*inputs)]
    assert_matches(got, run_reference(module, *inputs))


@pytest.mark.cxx
def test_fxdsl_compile_takes_the_gemm_option() -> None:
    import fxdsl

    module = parse(graph("bf16"))
    run = fxdsl.compile(module, backend="cuda-sim", gemm="tensor-core")
    try:
        inputs = random_inputs(module, seed=3)
        assert_matches(run(*inputs), run_reference(module, *inputs))
        assert run.sim.gemm_worker is not None
        assert len(run.sim.gemm_worker.launched) == 2
    finally:
        run.close()
    with pytest.raises(ValueError, match="needs backend 'cuda' or 'cuda-sim'"):
        fxdsl.compile(module, backend="cpu", gemm="tensor-core")
    with pytest.raises(ValueError, match="gemm='cutlass'"):
        fxdsl.compile(module, backend="cuda-sim", gemm="cutlass")
