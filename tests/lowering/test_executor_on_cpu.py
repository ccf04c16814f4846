"""The CuPy executor's host logic (argument checks, buffers, views, launch
order, GEMMs, outputs, cubin loading, the kernel cache and the fallback for a
kernel that does not compile) on the CPU: a stand-in `cupy` module backed by
numpy loads the cubin by path (checking each kernel is in it) and runs each
kernel with the IR emulator. What stays untested without a GPU is CuPy,
NVRTC and the device itself (nvcc checks that the CUDA C compiles). CUDA
graphs (`cuda_graph=True`) run on stand-in streams that record launches
while capturing."""

from __future__ import annotations

import re
import sys
import types
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import fxdsl
from fxdsl.api import apply
from fxdsl.frontends.models import gpt2_stack
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.ir.dtypes import round_to_bf16
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime import ir_emulator, reset_stats, stats, timings
from fxdsl.runtime.cuda_executor import HostKernel
from fxdsl.runtime.kernel_build import KernelCompileWarning
from fxdsl.runtime.kernel_cache import KernelCache
from fxdsl.runtime.nvrtc import CompileError, NvccCompiler
from fxdsl.testing.fake_cupy import CapturableKernel, FakeStreams, numpy_cupy
from fxdsl.testing.numerics import assert_matches_reference

FAKE_MAGIC = b"FAKE-CUBIN\n"


def kernel_names(source: str) -> list[str]:
    return re.findall(r"__global__ void (\w+)\(", source)


class FakeCompiler:
    """A compiler without a toolkit: the "cubin" lists the kernel names of
    its source; `fail_on` makes every source holding that kernel fail."""

    identity = "fake-compiler 1"

    def __init__(self, fail_on: str | None = None) -> None:
        self.fail_on = fail_on
        self.sources: list[str] = []

    def __call__(self, source: str, arch: str, options: Sequence[str]) -> bytes:
        self.sources.append(source)
        assert arch == "sm_90"
        if self.fail_on in kernel_names(source):
            raise CompileError(
                self.identity,
                f'kernels.cu(42): error: identifier "oops" is undefined\n'
                f"1 error detected in the compilation of {self.fail_on}.",
            )
        return FAKE_MAGIC + "\n".join(kernel_names(source)).encode()


class BreakingNvcc:
    """Real nvcc, with kernel `victim`'s signature made invalid C++: the
    failure and its message come from the real compiler."""

    def __init__(self, victim: str) -> None:
        self.nvcc = NvccCompiler()
        self.identity = self.nvcc.identity
        self.victim = victim

    def __call__(self, source: str, arch: str, options: Sequence[str]) -> bytes:
        broken = source.replace(
            f"void {self.victim}(", f"void {self.victim}(fx_no_such_type bad, "
        )
        return self.nvcc(broken, arch, options)


class DeviceKernel(HostKernel):
    """A kernel of the fake device: the device holds bf16 as raw bits, which
    HostKernel widens and narrows around the emulator."""


def fake_cupy(lowered_holder: list[Any]) -> types.ModuleType:
    """numpy with CuPy's names; RawModule loads a cubin file by path and its
    kernels run in the IR emulator (on bf16 bits, as the device stores them)."""
    cp = numpy_cupy()
    cp.loaded = []  # (path, kernel names asked for) per RawModule

    class RawModule:
        def __init__(self, *, path: str) -> None:
            self.data = Path(path).read_bytes()
            assert self.data.startswith((FAKE_MAGIC, b"\x7fELF")), self.data[:16]
            self.machine = ir_emulator.Emulator(lowered_holder[0])
            self.names: list[str] = []
            cp.loaded.append((path, self.names))

        def get_function(self, name: str) -> Any:
            if name.encode() not in self.data:  # CuPy: CUDA_ERROR_NOT_FOUND
                raise RuntimeError(f"named symbol not found: {name}")
            self.names.append(name)

            return DeviceKernel(cp, self.machine, name)

    cp.RawModule = RawModule
    return cp


@pytest.fixture
def executor_module(monkeypatch: pytest.MonkeyPatch) -> Any:
    from fxdsl.pipeline import lower
    from fxdsl.runtime import cuda_executor

    holder: list[Any] = []
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(holder))
    original = lower.build_launch_plan

    def remember(module: Any, entry: str | None = None) -> Any:
        holder[:] = [module]
        return original(module, entry)

    monkeypatch.setattr(lower, "build_launch_plan", remember)
    reset_stats()
    return cuda_executor


def entry_name(module: ModuleOp) -> str:
    return next(iter(f.sym_name.data for f in module.body.block.ops))


def matches_reference(run: Any, module: ModuleOp, name: str) -> None:
    """`run` (the executor on the emulator) equals the reference on
    random inputs (the shared comparison, rtol = atol = 1e-4)."""
    inputs = random_inputs(module, entry=name)
    assert_matches_reference(module, name, inputs, run, 1e-4, "executor")


def test_gpt2_block_through_the_executor(executor_module: Any, tmp_path: Path) -> None:
    module = gpt2_stack(1, B=1, T=8, D=32, heads=2)
    name = entry_name(module)
    compiler = FakeCompiler()
    run = executor_module.compile_cuda(
        module, entry=name, compiler=compiler, cache=KernelCache(tmp_path)
    )
    inputs = random_inputs(module, entry=name)
    expected = run_reference(module, *inputs, entry=name)
    for _ in range(2):  # scratch buffers are reused: a second call is the same
        (actual,) = run(*inputs)
        np.testing.assert_allclose(actual, expected[0], rtol=1e-4, atol=1e-4)
    # one compile of the whole gpu.module, all kernels loaded from one cubin
    assert len(compiler.sources) == 1
    assert stats()["compiles"] == 1
    assert stats()["modules_loaded"] == 1
    # every phase of the compile was timed
    assert all(seconds > 0 for seconds in timings().values()), timings()
    ((_, loaded),) = sys.modules["cupy"].loaded
    assert sorted(loaded) == sorted(run.plan.kernels)


def test_second_compile_hits_the_cache(executor_module: Any, tmp_path: Path) -> None:
    module = gpt2_stack(2, B=1, T=8, D=16, heads=2)
    compiler = FakeCompiler()
    for _ in range(2):
        executor_module.compile_cuda(
            module, compiler=compiler, cache=KernelCache(tmp_path)
        )
    assert len(compiler.sources) == 1
    assert (stats()["compiles"], stats()["hits"], stats()["misses"]) == (1, 1, 1)


def test_corrupt_cache_entry_is_rebuilt(executor_module: Any, tmp_path: Path) -> None:
    """(b): a truncated entry is discarded and recompiled; the run succeeds."""
    module = gpt2_stack(1, B=1, T=8, D=16, heads=2)
    name = entry_name(module)
    compiler = FakeCompiler()
    executor_module.compile_cuda(module, compiler=compiler, cache=KernelCache(tmp_path))
    (entry,) = tmp_path.iterdir()
    entry.write_bytes(entry.read_bytes()[:40])  # truncated mid-header
    reset_stats()
    run = executor_module.compile_cuda(
        module, compiler=compiler, cache=KernelCache(tmp_path)
    )
    assert (stats()["corrupt"], stats()["compiles"], stats()["hits"]) == (1, 1, 0)
    assert len(compiler.sources) == 2
    matches_reference(run, module, name)
    assert len(entry.read_bytes()) > 40  # rebuilt whole


def compile_with_failure(
    executor_module: Any, module: ModuleOp, compiler: Any, tmp_path: Path
) -> tuple[Any, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = executor_module.compile_cuda(
            module, compiler=compiler, cache=KernelCache(tmp_path)
        )
    return run, [w for w in caught if issubclass(w.category, KernelCompileWarning)]


def test_kernel_that_fails_to_compile_runs_on_the_host(
    executor_module: Any, tmp_path: Path
) -> None:
    """(c): one warning naming the kernel and the compiler's message; the
    other kernels come from one cubin without it; outputs equal the reference."""
    module = gpt2_stack(1, B=1, T=8, D=16, heads=2)
    name = entry_name(module)
    victim = next(k for k in kernel_names(lowered_source(module)) if "softmax" in k)
    compiler = FakeCompiler(fail_on=victim)
    run, caught = compile_with_failure(executor_module, module, compiler, tmp_path)
    assert len(caught) == 1, [str(w.message) for w in caught]
    message = str(caught[0].message)
    assert f"kernel '{victim}' failed to compile" in message
    assert 'error: identifier "oops" is undefined' in message
    assert stats()["host_fallbacks"] == 1
    ((_, loaded),) = sys.modules["cupy"].loaded
    assert victim not in loaded
    assert sorted(loaded) == sorted(k for k in run.plan.kernels if k != victim)
    assert type(run.kernels[victim]) is HostKernel  # not a DeviceKernel
    assert stats()["modules_loaded"] == 1
    matches_reference(run, module, name)


def lowered_source(module: ModuleOp) -> str:
    return kernel_source(apply(module.clone(), GPU_PIPELINE))


BF16 = """
func.func @f(%x: tensor<4x40xbf16>, %b: tensor<40xbf16>, %w: tensor<40x8xbf16>) -> (tensor<4x8xbf16>, tensor<4x40xbf16>) {
  %a = graph.add %x, %b : (tensor<4x40xbf16>, tensor<40xbf16>) -> tensor<4x40xbf16>
  %m = graph.matmul %a, %w : (tensor<4x40xbf16>, tensor<40x8xbf16>) -> tensor<4x8xbf16>
  %s = graph.softmax %m dim 1 : tensor<4x8xbf16>
  func.return %s, %a : tensor<4x8xbf16>, tensor<4x40xbf16>
}
"""


@pytest.mark.nvcc
def test_real_nvcc_failure_falls_back_for_bf16(
    executor_module: Any, tmp_path: Path
) -> None:
    """(c) with the real compiler: nvcc's own message, bf16 buffers through
    the host fallback (bits widened and narrowed), the rest a real cubin."""
    module = fxdsl.parse(BF16)
    names = kernel_names(lowered_source(module))
    assert len(names) == 2, names
    victim = next(k for k in names if "softmax" in k)
    run, caught = compile_with_failure(
        executor_module, module, BreakingNvcc(victim), tmp_path
    )
    assert len(caught) == 1
    message = str(caught[0].message)
    assert f"kernel '{victim}' failed to compile (nvcc" in message
    assert "fx_no_such_type" in message
    inputs = random_inputs(module)
    for want, got in zip(run_reference(module, *inputs), run(*inputs)):
        np.testing.assert_allclose(
            got.astype(np.float32), want.astype(np.float32), rtol=2e-2, atol=2e-2
        )


@pytest.mark.nvcc
def test_real_nvcc_cubin_is_cached_and_loaded(
    executor_module: Any, tmp_path: Path
) -> None:
    module = gpt2_stack(1, B=1, T=8, D=16, heads=2)
    compiler = NvccCompiler()
    for _ in range(2):
        run = executor_module.compile_cuda(
            module, compiler=compiler, cache=KernelCache(tmp_path)
        )
    assert (stats()["compiles"], stats()["hits"]) == (1, 1)
    matches_reference(run, module, entry_name(module))


def test_f16_program_and_guards(executor_module: Any, tmp_path: Path) -> None:
    module = fxdsl.parse("""
func.func @f(%x: tensor<4x8xf16>, %w: tensor<8x3xf16>) -> (tensor<4x3xf16>, tensor<4x8xf16>) {
  %s = graph.softmax %x dim 1 : tensor<4x8xf16>
  %y = graph.matmul %s, %w : (tensor<4x8xf16>, tensor<8x3xf16>) -> tensor<4x3xf16>
  func.return %y, %s : tensor<4x3xf16>, tensor<4x8xf16>
}
""")
    inputs = random_inputs(module)
    run = executor_module.compile_cuda(
        module, compiler=FakeCompiler(), cache=KernelCache(tmp_path)
    )
    for want, got in zip(run_reference(module, *inputs), run(*inputs)):
        assert got.dtype == np.float16
        np.testing.assert_allclose(
            got.astype(np.float32), want.astype(np.float32), rtol=2e-2, atol=2e-2
        )
    with pytest.raises(
        ValueError,
        match=r"argument 1 of @f: expected \(8, 3\) f16, got \(3, 8\) float16",
    ):
        run(inputs[0], np.zeros((3, 8), np.float16))
    with pytest.raises(
        ValueError,
        match=r"argument 0 of @f: expected \(4, 8\) f16, got \(4, 8\) float32",
    ):
        run(inputs[0].astype(np.float32), inputs[1])
    with pytest.raises(ValueError, match="@f takes 2 arguments, got 1"):
        run(inputs[0])


def test_cuda_graph_replays_without_allocating(executor_module: Any) -> None:
    """GraphedExecutor on the stand-in: the first call captures one graph
    per run of launches (GEMMs through cupy.matmul stay eager between them),
    a call with the same input arrays replays them and allocates nothing but
    the output copies, and earlier results survive later calls. Inputs that
    come at a new address on each call (activations) are copied into the
    executor's own buffers: one more capture, then every call replays."""
    from fxdsl.lowering.launch_plan import Gemm, build_launch_plan
    from fxdsl.runtime import cuda_graph

    cp = sys.modules["cupy"]
    streams = FakeStreams(cp)
    module = gpt2_stack(1, B=1, T=8, D=32, heads=2)
    lowered = apply(module.clone(), GPU_PIPELINE)
    plan = build_launch_plan(lowered)
    machine = ir_emulator.Emulator(lowered)
    kernels = {
        name: CapturableKernel(HostKernel(cp, machine, name), streams)
        for name in plan.kernels
    }
    executor = executor_module.CudaExecutor(plan, kernels)
    assert executor.blas is None  # no cuBLAS here: GEMMs are eager pieces
    graphed = cuda_graph.GraphedExecutor(executor)
    name = entry_name(module)

    inputs = random_inputs(module, entry=name, seed=1)
    (want,) = run_reference(module, *inputs, entry=name)
    (first,) = graphed(*inputs)
    np.testing.assert_allclose(first, want, rtol=1e-4, atol=1e-4)
    kinds = [isinstance(step, Gemm) for step in plan.steps]
    runs = sum(
        1 for k, gemm in enumerate(kinds) if not gemm and (k == 0 or kinds[k - 1])
    )
    assert streams.captures == streams.replays == runs  # runs of launches
    kept = first.copy()

    allocations = streams.allocations
    inputs[0][...] = random_inputs(module, entry=name, seed=2)[0]  # same arrays
    (second,) = graphed(*inputs)
    (want2,) = run_reference(module, *inputs, entry=name)
    np.testing.assert_allclose(second, want2, rtol=1e-4, atol=1e-4)
    assert streams.captures == runs  # nothing captured again
    assert streams.replays == 2 * runs
    assert streams.allocations == allocations  # the replay allocated nothing
    np.testing.assert_array_equal(first, kept)  # not overwritten
    assert not graphed.moving

    weights = inputs[1:]  # the same arrays each call; the activation is new
    for seed in range(3, 3 + 2 * cuda_graph.MAX_GRAPHS):
        fresh = [random_inputs(module, entry=name, seed=seed)[0], *weights]
        (got,) = graphed(*fresh)
        (expected,) = run_reference(module, *fresh, entry=name)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    assert set(graphed.moving) == {0}  # the activation, copied in
    assert len(graphed.entries) == 1
    assert streams.captures == 2 * runs  # once more, with its own buffer
    assert streams.replays == (2 + 2 * cuda_graph.MAX_GRAPHS) * runs
    np.testing.assert_array_equal(first, kept)


def test_bf16_bits_round_to_nearest_even_with_any_array_module() -> None:
    """The executor converts bf16 on the device with the array module it is
    given (CuPy there, numpy here): same rounding as the reference."""
    from fxdsl.ir.dtypes import bf16_bits, from_bf16_bits

    bits = np.array(
        [
            0x3F800000,
            0x3F808000,
            0x3F818000,
            0x7FC00001,
            0x7F800001,
            0x7F7FFFFF,
            0xBF800001,
        ],
        dtype=np.uint32,
    )
    values = bits.view(np.float32)
    got = bf16_bits(values)
    # 1.0; a tie rounds to even (down); a tie rounds to even (up); NaN stays
    # NaN, also one whose payload is in the low half only (truncation alone
    # would make it inf); the largest f32 overflows to inf; -1.0 - ulp
    assert got.dtype == np.uint16
    assert [hex(b) for b in got] == [
        "0x3f80", "0x3f80", "0x3f82", "0x7fc0", "0x7fc0", "0x7f80", "0xbf80",
    ]  # fmt: skip
    back = from_bf16_bits(got)
    np.testing.assert_array_equal(back[~np.isnan(back)], [1, 1, 1.015625, np.inf, -1])


def test_gemm_only_program_is_graphed_too(executor_module: Any, tmp_path: Path) -> None:
    """A plan without kernels (one GEMM) compiles nothing, and cuda_graph=True
    still wraps it (its GEMMs are what a graph records)."""
    from fxdsl.runtime import cuda_graph

    FakeStreams(sys.modules["cupy"])
    module = fxdsl.parse(
        "func.func @mm(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>) -> tensor<4x3xf32> {\n"
        "  %y = graph.matmul %a, %b : (tensor<4x8xf32>, tensor<8x3xf32>) -> tensor<4x3xf32>\n"
        "  func.return %y : tensor<4x3xf32>\n}"
    )
    compiler = FakeCompiler()
    run = executor_module.compile_cuda(
        module, compiler=compiler, cache=KernelCache(tmp_path), cuda_graph=True
    )
    assert isinstance(run, cuda_graph.GraphedExecutor)
    assert compiler.sources == []
    inputs = random_inputs(module)
    (want,) = run_reference(module, *inputs)
    (got,) = run(*inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("element", ["bf16", "f16", "f32"])
def test_gemm_writes_only_its_strided_output_view(
    executor_module: Any, element: str
) -> None:
    """Two GEMMs write the two column halves of one 4x6 output (a concat done
    in place) and a third its transpose: each GEMM writes only the elements
    of its output view. The bf16 path wrote the whole buffer, row-major."""
    from fxdsl.ir.layout import Layout
    from fxdsl.lowering.launch_plan import BufferSpec, BufferView, Gemm, LaunchPlan

    dtype = {"bf16": "float32", "f16": "float16", "f32": "float32"}[element]
    a, b, c = (BufferSpec(s, dtype, element) for s in ((4, 8), (8, 3), (8, 3)))
    out, out_t = BufferSpec((4, 6), dtype, element), BufferSpec((3, 4), dtype, element)

    def view(
        slot: int, shape: tuple[int, ...], strides: tuple[int, ...], offset: int = 0
    ) -> BufferView:
        return BufferView(slot, Layout(shape, strides, offset))

    plan = LaunchPlan(
        function="halves",
        buffers=(a, b, c, out, out_t),
        num_inputs=3,
        steps=(
            Gemm(view(0, (1, 4, 8), (32, 8, 1)), view(1, (1, 8, 3), (24, 3, 1)),
                 view(3, (1, 4, 3), (24, 6, 1))),
            Gemm(view(0, (1, 4, 8), (32, 8, 1)), view(2, (1, 8, 3), (24, 3, 1)),
                 view(3, (1, 4, 3), (24, 6, 1), offset=3)),
            Gemm(view(0, (1, 4, 8), (32, 8, 1)), view(1, (1, 8, 3), (24, 3, 1)),
                 view(4, (1, 4, 3), (12, 1, 4))),
        ),
        outputs=(view(3, (4, 6), (6, 1)), view(4, (3, 4), (4, 1))),
    )  # fmt: skip
    run = executor_module.CudaExecutor(plan, {})
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s.shape).astype(dtype) for s in (a, b, c)]
    got, got_t = run(*inputs)
    # products of the inputs as the device holds them, in float64
    rounded = round_to_bf16 if element == "bf16" else (lambda t: t)
    x, w, v = (np.asarray(rounded(t), np.float64) for t in inputs)
    want = np.concatenate([x @ w, x @ v], axis=1)
    tol = {"bf16": 2e-2, "f16": 2e-3, "f32": 1e-5}[element]
    np.testing.assert_allclose(np.asarray(got, np.float64), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(
        np.asarray(got_t, np.float64), want[:, :3].T, rtol=tol, atol=tol
    )


IN_PLACE = """
func.func @step(%cache: tensor<2x8x4xf32> {bufferization.writable = true},
    %pos: tensor<1xi64>, %new: tensor<2x1x4xf32>) -> tensor<2x8x4xf32> {
  %r = graph.index_copy %cache, %pos, %new dim 1
    : (tensor<2x8x4xf32>, tensor<1xi64>, tensor<2x1x4xf32>) -> tensor<2x8x4xf32>
  func.return %r : tensor<2x8x4xf32>
}
"""


@pytest.mark.parametrize("graphs", [False, True])
def test_a_donated_cache_is_updated_in_place_and_handed_back(
    executor_module: Any, graphs: bool
) -> None:
    """The executor (eager, and replayed as a CUDA graph) writes the new row
    into the caller's cache array and returns that array, not a copy: the
    plan has no buffer but the arguments."""
    from fxdsl.lowering.launch_plan import build_launch_plan
    from fxdsl.runtime import cuda_graph

    cp = sys.modules["cupy"]
    lowered = apply(fxdsl.parse(IN_PLACE), GPU_PIPELINE)
    plan = build_launch_plan(lowered)
    assert len(plan.buffers) == plan.num_inputs == 3
    machine = ir_emulator.Emulator(lowered)
    streams = FakeStreams(cp)
    kernels: dict[str, Any] = {
        name: CapturableKernel(HostKernel(cp, machine, name), streams)
        if graphs
        else HostKernel(cp, machine, name)
        for name in plan.kernels
    }
    executor = executor_module.CudaExecutor(plan, kernels)
    run = cuda_graph.GraphedExecutor(executor) if graphs else executor
    cache = np.zeros((2, 8, 4), np.float32)
    new = np.arange(8, dtype=np.float32).reshape(2, 1, 4) + 1
    for step, position in enumerate((5, 6)):
        (got,) = run(cache, np.array([position]), new + step)
        assert np.shares_memory(got, cache)
        np.testing.assert_array_equal(cache[:, position], (new + step)[:, 0])
    assert np.count_nonzero(cache.any(axis=2)) == 4  # two rows of two batches


def test_a_donated_cache_at_a_new_address_is_never_copied(
    executor_module: Any,
) -> None:
    """A cache the program writes in place is pinned: a new cache array on
    each call captures a graph for it (up to MAX_GRAPHS, then eagerly), and
    each call writes into its own cache, never into a copy."""
    from fxdsl.lowering.launch_plan import build_launch_plan
    from fxdsl.runtime import cuda_graph

    cp = sys.modules["cupy"]
    lowered = apply(fxdsl.parse(IN_PLACE), GPU_PIPELINE)
    plan = build_launch_plan(lowered)
    machine = ir_emulator.Emulator(lowered)
    streams = FakeStreams(cp)
    kernels = {
        name: CapturableKernel(HostKernel(cp, machine, name), streams)
        for name in plan.kernels
    }
    run = cuda_graph.GraphedExecutor(executor_module.CudaExecutor(plan, kernels))
    new = np.arange(8, dtype=np.float32).reshape(2, 1, 4) + 1
    for step in range(cuda_graph.MAX_GRAPHS + 2):
        cache = np.zeros((2, 8, 4), np.float32)
        (got,) = run(cache, np.array([step]), new + step)
        assert np.shares_memory(got, cache)
        np.testing.assert_array_equal(cache[:, step], (new + step)[:, 0])
    assert 0 not in run.moving
    assert len(run.entries) == cuda_graph.MAX_GRAPHS
