"""End to end on a GPU (pytest marker `gpu`; skipped without one): lowered
programs run through CuPy and equal the reference interpreter.

Tolerances: f32 rtol/atol 1e-4 (different summation order, fast math
functions), GEMMs 1e-3 (TF32 may be enabled by CuPy), f16/bf16 2e-2.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import fxdsl
from fxdsl.frontends.models import example_inputs, gpt2_stack
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.testing.modules import load_file

pytestmark = pytest.mark.gpu

cases = load_file(Path(__file__).with_name("cases.py"))


def compare(
    module, name: str, tol: float, inputs=None, pipeline=None, cuda_graph=False
) -> None:
    from fxdsl.runtime.cuda_executor import compile_cuda

    inputs = random_inputs(module, entry=name) if inputs is None else inputs
    expected = run_reference(module, *inputs, entry=name)
    run = compile_cuda(module, pipeline, entry=name, cuda_graph=cuda_graph)
    actual = [np.asarray(a.get()) for a in run(*inputs)]
    for want, got in zip(expected, actual):
        np.testing.assert_allclose(
            got.astype(np.float64), np.asarray(want).astype(np.float64),
            rtol=tol, atol=tol, err_msg=name,
        )  # fmt: skip


@pytest.mark.parametrize("theme", sorted(cases.THEMES))
def test_cases_on_gpu(theme: str) -> None:
    programs = cases.THEMES[theme]()
    module = fxdsl.parse(cases.module(programs))
    for name in programs:
        compare(module, name, 2e-2 if "f16" in name else 1e-4)


# GPT-2 runs on inputs at initialisation scale (models.example_inputs): with
# N(0, 1) weights the activations reach 1e3 and softmax saturates, so f32
# rounding of the 768-term dot products alone moves outputs by 1e-3 relative.


def test_gpt2_block_on_gpu() -> None:
    module = fxdsl.parse(
        (Path(__file__).parents[2] / "examples/gpt2_block.mlir").read_text()
    )
    compare(module, "gpt2_block", 1e-4, example_inputs(module))


def test_gpt2_stack_on_gpu() -> None:
    module = gpt2_stack(12, B=1, T=64, D=768, heads=12)
    name = next(iter(f.sym_name.data for f in module.body.block.ops))
    compare(module, name, 1e-4, example_inputs(module))


@pytest.mark.parametrize("cuda_graph", [False, True])
def test_split_k_stack_on_gpu(cuda_graph: bool) -> None:
    """graph-split-k's batched GEMMs (strided views of x, S = 8 or 16) and
    the partial sums fused into the epilogues, plain and inside a CUDA graph."""
    from fxdsl.lowering.pipeline import GPU_PIPELINE, with_split_k

    module = gpt2_stack(12, B=1, T=64, D=768, heads=12)
    name = next(iter(f.sym_name.data for f in module.body.block.ops))
    pipeline = with_split_k(GPU_PIPELINE)
    compare(module, name, 1e-4, example_inputs(module), pipeline, cuda_graph)


def test_fused_attention_block_on_gpu() -> None:
    """A block large enough for the default graph-fuse-attention (4 x 12
    heads x 512 rows): the attention kernel, not cuBLAS + softmax, with the
    qkv bias folded in (q's prologue, v's epilogue, k's dropped)."""
    from fxdsl.pipeline.lower import lower_for_cuda

    module = gpt2_stack(1, B=4, T=512, D=768, heads=12)
    name = next(iter(f.sym_name.data for f in module.body.block.ops))
    _, plan = lower_for_cuda(module)
    assert any(k.endswith("_attention") for k in plan.kernels), plan.kernels
    compare(module, name, 1e-4, example_inputs(module))


def test_wrong_input_shape_names_the_argument() -> None:
    from fxdsl.runtime.cuda_executor import compile_cuda

    module = fxdsl.parse(cases.module(cases.unary_cases()))
    run = compile_cuda(module, entry="exp_f32")
    with pytest.raises(
        ValueError, match=r"argument 0 of @exp_f32: expected \(4, 40\) f32"
    ):
        run(np.zeros((4, 41), np.float32))


# --- kernel cache, compile counts and the compile-failure fallback -----------

GPT2_SMALL = "gpt2_stack(12, B=1, T=8, D=16, heads=2)"

CACHE_SCRIPT = f"""
import numpy as np
from fxdsl.frontends.models import example_inputs, gpt2_stack
from fxdsl.interpreters.run import random_inputs, run_reference
from fxdsl.runtime import stats
from fxdsl.runtime.cuda_executor import compile_cuda

module = {GPT2_SMALL}
run = compile_cuda(module)
inputs = random_inputs(module)
(got,) = run(*inputs)
(want,) = run_reference(module, *inputs)
np.testing.assert_allclose(got.get(), want, rtol=1e-4, atol=1e-4)
s = stats()
print(f"compiles={{s['compiles']}} hits={{s['hits']}}")
"""


def test_second_process_compiles_nothing(tmp_path: Path) -> None:
    """(a) on the device, default compiler (NVRTC): one compile for the whole
    gpu.module in a cold process, zero in a second one."""
    import os
    import subprocess
    import sys

    env = os.environ | {"FXDSL_CACHE_DIR": str(tmp_path)}
    env.pop("FXDSL_CUDA_COMPILER", None)
    lines = []
    for _ in range(2):
        result = subprocess.run(
            [sys.executable, "-c", CACHE_SCRIPT], capture_output=True, text=True,
            env=env, timeout=600,
        )  # fmt: skip
        assert result.returncode == 0, result.stderr[-4000:]
        lines.append(result.stdout.strip().splitlines()[-1])
    assert lines == ["compiles=1 hits=0", "compiles=0 hits=1"]


def test_default_compiler_is_nvrtc() -> None:
    from fxdsl.runtime.nvrtc import default_compiler

    assert default_compiler().identity.startswith("nvrtc-")


def _gpt2_small():
    return gpt2_stack(12, B=1, T=8, D=16, heads=2)


def _check(run, module) -> None:
    inputs = example_inputs(module)
    expected = run_reference(module, *inputs)
    for want, got in zip(expected, run(*inputs)):
        np.testing.assert_allclose(got.get(), want, rtol=1e-4, atol=1e-4)


def test_corrupt_cache_entry_is_rebuilt_on_gpu(tmp_path: Path) -> None:
    """(b) on the device: a truncated entry is discarded and recompiled."""
    from fxdsl.runtime import reset_stats, stats
    from fxdsl.runtime.cuda_executor import compile_cuda
    from fxdsl.runtime.kernel_cache import KernelCache

    module = _gpt2_small()
    compile_cuda(module, cache=KernelCache(tmp_path))
    (entry,) = tmp_path.iterdir()
    entry.write_bytes(entry.read_bytes()[:100])
    reset_stats()
    run = compile_cuda(module, cache=KernelCache(tmp_path))
    assert (stats()["corrupt"], stats()["compiles"]) == (1, 1)
    _check(run, module)


def test_kernel_that_fails_to_compile_falls_back_on_gpu(tmp_path: Path) -> None:
    """(c) on the device: NVRTC fails on one kernel (its signature broken);
    one warning names it and quotes NVRTC; the outputs stay right."""
    import re
    import warnings

    from fxdsl.runtime.cuda_executor import compile_cuda
    from fxdsl.runtime.kernel_build import KernelCompileWarning
    from fxdsl.runtime.kernel_cache import KernelCache
    from fxdsl.runtime.nvrtc import default_compiler

    module = _gpt2_small()
    nvrtc = default_compiler()
    victim: list[str] = []

    def breaking(source: str, arch: str, options) -> bytes:
        names = re.findall(r"__global__ void (\w+)\(", source)
        victim[:] = victim or [n for n in names if "softmax" in n][:1]
        broken = source.replace(f"void {victim[0]}(", f"void {victim[0]}(bad_t b, ")
        return nvrtc(broken, arch, options)

    breaking.identity = nvrtc.identity  # type: ignore[attr-defined]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        run = compile_cuda(module, compiler=breaking, cache=KernelCache(tmp_path))
    messages = [str(w.message) for w in caught if w.category is KernelCompileWarning]
    assert len(messages) == 1, messages
    assert f"kernel '{victim[0]}' failed to compile (nvrtc-" in messages[0]
    assert "bad_t" in messages[0]
    _check(run, module)


# --- every fused pattern, random graphs, dedup compile counts -----------------

FUSE_CASES = Path(__file__).parents[2] / "tests/filecheck/transforms/graph-fuse.mlir"
# Not runnable by the reference interpreter (see tests/transforms/test_graph_fuse.py).
NOT_RUNNABLE = {"callee", "opaque_group_and_call", "blocks"}


def _fuse_cases():
    """The graph-fuse FileCheck cases without the ones that cannot run (control
    flow is not lowered to the GPU either: an error, see the lit tests)."""
    from xdsl.dialects.func import FuncOp

    module = fxdsl.parse(FUSE_CASES.read_text(), str(FUSE_CASES))
    for op in list(module.body.block.ops):
        if isinstance(op, FuncOp) and op.sym_name.data in NOT_RUNNABLE:
            module.body.block.erase_op(op)
    return module


def _fuse_case_names() -> list[str]:
    return [op.sym_name.data for op in _fuse_cases().body.block.ops]


@pytest.mark.parametrize("name", _fuse_case_names())
def test_fused_patterns_on_gpu(name: str) -> None:
    """Every hand-written graph-fuse case, lowered with fusion, on the GPU."""
    compare(_fuse_cases(), name, 1e-4)


def test_random_graphs_on_gpu(tmp_path: Path) -> None:
    """200 random programs of the shared strategy (f32, f16, bf16 storage)."""
    from hypothesis import HealthCheck, given, settings
    from xdsl.dialects.builtin import ModuleOp

    from fxdsl.runtime.cuda_executor import compile_cuda
    from fxdsl.runtime.kernel_cache import KernelCache
    from fxdsl.testing import graphs

    cache = KernelCache(tmp_path)
    seen = [0]

    @settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
    @given(graphs(max_ops=20, dtypes=("f32", "f16", "bf16")))
    def run(module: ModuleOp) -> None:
        seen[0] += 1
        inputs = random_inputs(module, entry="main")
        expected = run_reference(module, *inputs, entry="main")
        actual = compile_cuda(module, entry="main", cache=cache)(*inputs)
        low = any(a.dtype != np.float32 for a in [*inputs, *expected])
        tol = 2e-2 if low else 1e-3
        for want, got in zip(expected, actual):
            np.testing.assert_allclose(
                np.asarray(got.get()).astype(np.float64),
                np.asarray(want).astype(np.float64), rtol=tol, atol=tol,
            )  # fmt: skip

    run()
    assert seen[0] >= 200


def test_dedup_stack_compiles_each_kernel_once(tmp_path: Path) -> None:
    """The default pipeline outlines the 12 blocks into one function (graph-
    dedup): its kernels are built in one NVRTC run, the same kernel set as a
    single block."""
    from fxdsl.runtime import reset_stats, stats
    from fxdsl.runtime.cuda_executor import compile_cuda
    from fxdsl.runtime.kernel_cache import KernelCache

    counts = {}
    for blocks in (1, 12):
        module = gpt2_stack(blocks, B=1, T=64, D=768, heads=12)
        reset_stats()
        run = compile_cuda(module, cache=KernelCache(tmp_path / str(blocks)))
        counts[blocks] = (len(set(run.plan.kernels)), stats()["compiles"])
        print(
            f"{blocks} blocks: {counts[blocks][0]} kernels, {counts[blocks][1]} compiles"
        )
        if blocks == 12:
            _check(run, module)
    assert counts[12][1] == counts[1][1] == 1
    assert counts[12][0] == counts[1][0]


def test_public_compile_takes_numpy_cupy_and_torch() -> None:
    import cupy

    module = gpt2_stack(1, B=1, T=8, D=16, heads=2)
    run = fxdsl.compile(module, backend="cuda")
    inputs = random_inputs(module)
    (want,) = run_reference(module, *inputs)
    for convert in (lambda a: a, cupy.asarray):
        (got,) = run(*map(convert, inputs))
        assert isinstance(got, cupy.ndarray)
        np.testing.assert_allclose(got.get(), want, rtol=1e-4, atol=1e-4)
    torch = pytest.importorskip("torch")
    (got,) = run(*(torch.from_numpy(a).cuda() for a in inputs))
    np.testing.assert_allclose(cupy.asnumpy(got), want, rtol=1e-3, atol=1e-3)


def test_misaligned_cupy_input_is_read_correctly() -> None:
    """Kernels read f32 buffers as float4: a CuPy view that starts 4 bytes
    into its allocation must not be read through a misaligned pointer."""
    import cupy

    module = fxdsl.parse(cases.module(cases.unary_cases()))
    run = fxdsl.compile(module, backend="cuda", entry="exp_f32")
    (x,) = random_inputs(module, entry="exp_f32")
    backing = cupy.zeros(x.size + 1, np.float32)
    view = backing[1:].reshape(x.shape)
    view[...] = cupy.asarray(x)
    assert view.data.ptr % 16 != 0
    (want,) = run_reference(module, x, entry="exp_f32")
    (got,) = run(view)
    np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-6)


def test_cuda_graph_replays_the_plan() -> None:
    """cuda_graph=True: launch runs captured as graphs around the GEMMs,
    replayed for the same device inputs; results equal the reference and
    earlier results are not overwritten by later calls."""
    import cupy

    from fxdsl.runtime.cuda_graph import GraphedExecutor

    module = gpt2_stack(2, B=1, T=8, D=16, heads=2)
    run = fxdsl.compile(module, backend="cuda", cuda_graph=True)
    assert isinstance(run.run, GraphedExecutor)  # behind the KeywordInputs wrapper
    inputs = example_inputs(module)
    device_inputs = [cupy.asarray(a) for a in inputs]
    (want,) = run_reference(module, *inputs)
    (first,) = run(*device_inputs)
    (entry,) = run.entries.values()
    gemms = sum(1 for s in run.plan.steps if type(s).__name__ == "Gemm")
    assert gemms > 0
    # f32 GEMMs go to cuBLAS directly, so they are captured too: one graph
    assert run.executor.blas is not None, run.executor.matmul_fallback
    eager = [
        f"{type(s).__name__} {getattr(s, 'kernel', '')}"
        for s in run.plan.steps
        if not run.executor.capturable(s)
    ]
    assert len(entry.pieces) == 1, f"steps outside the graph: {eager}"
    device_inputs[0][...] = cupy.asarray(inputs[0] * 2)
    (second,) = run(*device_inputs)
    assert len(run.entries) == 1  # replayed, not captured again
    np.testing.assert_allclose(first.get(), want, rtol=1e-4, atol=1e-4)
    (want2,) = run_reference(module, inputs[0] * 2, *inputs[1:])
    np.testing.assert_allclose(second.get(), want2, rtol=1e-4, atol=1e-4)


def test_cuda_graph_without_gemms_is_one_graph() -> None:
    import cupy

    module = fxdsl.parse(cases.module(cases.unary_cases()))
    run = fxdsl.compile(module, backend="cuda", entry="gelu_tanh_f32", cuda_graph=True)
    (x,) = random_inputs(module, entry="gelu_tanh_f32")
    (got,) = run(cupy.asarray(x))
    (entry,) = run.entries.values()
    assert len(entry.pieces) == 1
    (want,) = run_reference(module, x, entry="gelu_tanh_f32")
    np.testing.assert_allclose(got.get(), want, rtol=1e-4, atol=1e-5)


def test_direct_cublas_and_cupy_matmul_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    """The ctypes cuBLAS path (default for f32) and the cupy.matmul path give
    the same GPT-2 outputs, transposed and batched attention GEMMs included."""
    from fxdsl.runtime import cublas

    module = gpt2_stack(1, B=2, T=16, D=32, heads=4)
    inputs = example_inputs(module)
    (direct,) = fxdsl.compile(module, backend="cuda")(*inputs)
    monkeypatch.setenv("FXDSL_CUBLAS", "0")
    monkeypatch.setattr(cublas, "_HANDLES", {})
    run = fxdsl.compile(module, backend="cuda")
    assert run.blas is None
    (fallback,) = run(*inputs)
    (want,) = run_reference(module, *inputs)
    np.testing.assert_allclose(direct.get(), want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(direct.get(), fallback.get(), rtol=1e-5, atol=1e-5)
