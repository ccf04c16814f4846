"""The direct cuBLAS binding's host logic without a GPU: a stand-in for the
library records the C calls (or computes them on host memory, as the device
would), a stand-in for CuPy gives streams and device pointers. What runs on
the GPU (the GEMMs themselves, against the reference and inside a CUDA-graph
capture) is tests/lowering/test_gpu_execution.py."""

from __future__ import annotations

import ctypes
import sys
import types
import warnings
from typing import Any

import numpy as np
import pytest

from fxdsl.api import apply, parse
from fxdsl.frontends.models import gpt2_stack
from fxdsl.interpreters.run import entry_function, random_inputs, run_reference
from fxdsl.ir.dtypes import bf16_bits
from fxdsl.lowering.launch_plan import (
    Gemm,
    build_launch_plan,
)
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime.cublas import Cublas
from fxdsl.testing.fake_cublas import FakeLibrary, MemoryCublas, executor_on_host
from fxdsl.testing.optional import need
from fxdsl.util.lru import Lru


def fake_cupy(stream: list[int]) -> Any:
    pointer = types.SimpleNamespace(ptr=0x1000)
    return types.SimpleNamespace(
        empty=lambda *_a, **_k: types.SimpleNamespace(data=pointer),
        cuda=types.SimpleNamespace(
            get_current_stream=lambda: types.SimpleNamespace(ptr=stream[0])
        ),
    )


def gemm_of_a_block() -> Gemm:
    plan = build_launch_plan(
        apply(gpt2_stack(1, B=1, T=8, D=16, heads=2), GPU_PIPELINE)
    )
    return next(step for step in plan.steps if isinstance(step, Gemm))


def test_stream_is_set_only_when_it_changes() -> None:
    stream = [7]
    library = FakeLibrary()
    blas = Cublas(fake_cupy(stream), library)  # type: ignore[arg-type]
    step = gemm_of_a_block()
    params = step.cublas
    assert params is step.cublas  # derived once per step
    for current in (7, 7, 9, 9, 7):
        stream[0] = current
        blas.gemm(params, "f32", 0x100000, 0x200000, 0x300000)
    set_streams = [args[1].value for args in library.named("cublasSetStream_v2")]
    assert set_streams == [7, 9, 7]
    gemms = library.named("cublasSgemmStridedBatched")
    assert len(gemms) == 5
    # the plan's offsets are added to the base addresses (4-byte floats)
    first, second, out = gemms[0][7], gemms[0][10], gemms[0][14]
    assert first == 0x100000 + 4 * params.offset_first
    assert second == 0x200000 + 4 * params.offset_second
    assert out == 0x300000 + 4 * params.offset_c


def test_failed_call_is_an_error() -> None:
    from fxdsl.runtime.cublas import CublasError

    library = FakeLibrary()
    library.cublasSgemmStridedBatched = lambda *_args: 13  # type: ignore[method-assign]
    blas = Cublas(fake_cupy([1]), library)  # type: ignore[arg-type]
    with pytest.raises(CublasError, match="status 13"):
        blas.gemm(gemm_of_a_block().cublas, "f32", 0, 0, 0)


def test_executor_passes_each_gemm_its_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    """With direct cuBLAS the executor hands every f32 GEMM the addresses of
    its rhs, lhs and output buffers (cuBLAS's first operand is the rhs)."""
    cupy = types.ModuleType("cupy")
    for name in ("zeros", "empty", "asarray", "ascontiguousarray", "ndarray"):
        setattr(cupy, name, getattr(np, name))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    from fxdsl.runtime import cuda_executor

    calls: list[tuple[Any, ...]] = []
    fake = types.SimpleNamespace(gemm=lambda *args: calls.append(args))
    monkeypatch.setattr(cuda_executor.Cublas, "create", lambda _cp: fake)
    module = gpt2_stack(1, B=1, T=8, D=16, heads=2)
    plan = build_launch_plan(apply(module, GPU_PIPELINE))
    launchers = {name: lambda *_: None for name in plan.kernels}
    executor = cuda_executor.CudaExecutor(plan, launchers, tf32=True)
    inputs = [np.zeros(s.shape, s.dtype) for s in plan.buffers[: plan.num_inputs]]
    buffers = executor.bind(executor.upload(tuple(inputs)))
    executor.run(buffers)
    gemms = [step for step in plan.steps if isinstance(step, Gemm)]
    address = cuda_executor.device_address
    assert calls == [
        (
            g.cublas,
            "f32",
            address(buffers[g.rhs.slot]),
            address(buffers[g.lhs.slot]),
            address(buffers[g.out.slot]),
            True,  # the executor's tf32 option reaches every GEMM
            "f32",  # the result's type
        )
        for g in gemms
    ]


# --- f16/bf16 GEMMs, TF32, and the plans they make -------------------------


def plan_of(text: str) -> Any:
    return build_launch_plan(apply(parse(text), GPU_PIPELINE))


BATCHED = """
func.func @f(%a: tensor<4x6xELEM>, %b: tensor<3x6x2xELEM>, %c: tensor<3x2x5xELEM>, %w: tensor<6x6xELEM>) -> (tensor<3x5x4xELEM>, tensor<4x3xELEM>) {
  %y = graph.matmul %a, %b : (tensor<4x6xELEM>, tensor<3x6x2xELEM>) -> tensor<3x4x2xELEM>
  %t = graph.transpose %c perm [0, 2, 1] : (tensor<3x2x5xELEM>) -> tensor<3x5x2xELEM>
  %u = graph.transpose %y perm [0, 2, 1] : (tensor<3x4x2xELEM>) -> tensor<3x2x4xELEM>
  %z = graph.matmul %t, %u : (tensor<3x5x2xELEM>, tensor<3x2x4xELEM>) -> tensor<3x5x4xELEM>
  %w0, %w1 = graph.split %w dim 1 sizes [3, 3] : (tensor<6x6xELEM>) -> (tensor<6x3xELEM>, tensor<6x3xELEM>)
  %v = graph.matmul %a, %w1 : (tensor<4x6xELEM>, tensor<6x3xELEM>) -> tensor<4x3xELEM>
  func.return %z, %v : tensor<3x5x4xELEM>, tensor<4x3xELEM>
}
"""
"""A broadcast lhs (batch stride 0), two transposed operands, and an operand
that starts inside its buffer (the second half of a split: an offset)."""


@pytest.mark.parametrize(("element", "code"), [("bf16", 14), ("f16", 2)])
def test_16bit_gemm_is_gemm_ex_with_f32_compute(element: str, code: int) -> None:
    """A 16-bit GEMM is one cublasGemmStridedBatchedEx: the cudaDataType of
    the element for A, B and C, CUBLAS_COMPUTE_32F (68), the default algo
    (-1), the plan's transposes, leading dims, strides and batch count, and
    2-byte offsets; alpha 1 and beta 0 as floats."""
    plan = plan_of(BATCHED.replace("ELEM", element))
    gemms = [step for step in plan.steps if isinstance(step, Gemm)]
    assert len(gemms) == 3
    library = FakeLibrary()
    blas = Cublas(fake_cupy([3]), library)  # type: ignore[arg-type]
    for step in gemms:
        assert plan.gemm_element(step) == element
        blas.gemm(step.cublas, element, 0x100000, 0x200000, 0x300000)
    assert library.named("cublasSgemmStridedBatched") == []
    calls = library.named("cublasGemmStridedBatchedEx")
    assert len(calls) == 3
    for step, args in zip(gemms, calls):
        p = step.cublas
        (handle, trans_a, trans_b, m, n, k, alpha,
         a, a_type, lda, stride_a, b, b_type, ldb, stride_b, beta,
         c, c_type, ldc, stride_c, batch, compute, algo) = args  # fmt: skip
        assert handle is blas.handle
        assert (trans_a, trans_b) == (int(p.trans_first), int(p.trans_second))
        assert (m, n, k) == (p.m, p.n, p.k)
        assert (a_type, b_type, c_type) == (code, code, code)
        assert (lda, stride_a) == (p.ld_first, p.stride_first)
        assert (ldb, stride_b) == (p.ld_second, p.stride_second)
        assert (ldc, stride_c, batch) == (p.ldc, p.stride_c, p.batch)
        assert a == 0x100000 + 2 * p.offset_first
        assert b == 0x200000 + 2 * p.offset_second
        assert c == 0x300000 + 2 * p.offset_c
        assert (compute, algo) == (68, -1)
        assert (alpha._obj.value, beta._obj.value) == (1.0, 0.0)
        assert isinstance(alpha._obj, ctypes.c_float)
    # what the test is about: batched, broadcast (stride 0) and transposed
    first, second, third = (g.cublas for g in gemms)
    assert first.batch == second.batch == 3
    assert third.offset_first == 3  # the split's second half
    assert first.stride_second == 0  # the 4x6 lhs serves every batch
    assert second.trans_first
    assert second.trans_second


def test_tf32_math_mode_is_set_when_it_changes() -> None:
    """tf32=True puts the handle in CUBLAS_TF32_TENSOR_OP_MATH (3), False
    back in CUBLAS_DEFAULT_MATH (0), each only on a change (the handle is
    shared by executors with either setting); the default sets nothing."""
    library = FakeLibrary()
    blas = Cublas(fake_cupy([1]), library)  # type: ignore[arg-type]
    params = gemm_of_a_block().cublas
    for tf32 in (False, True, True, False, False, True):
        blas.gemm(params, "f32", 0, 0, 0, tf32)
    modes = [args[1] for args in library.named("cublasSetMathMode")]
    assert modes == [3, 0, 3]
    assert all(args[0] is blas.handle for args in library.named("cublasSetMathMode"))
    assert len(library.named("cublasSgemmStridedBatched")) == 6


def half_gpt2(element: str = "bf16") -> Any:
    """HF GPT-2 (one tiny block, lm head tied to the embedding) cast to
    `element` (bf16 or f16), through torch.export and the importer."""
    torch = need("torch")
    need("transformers")
    from fxdsl.frontends.torch_export import from_torch
    from fxdsl.testing.torch_models import gpt2

    model, args, kwargs = gpt2(layers=1)
    dtype = {"bf16": torch.bfloat16, "f16": torch.float16}[element]
    return from_torch(model.to(dtype), args, kwargs), args


@pytest.mark.parametrize("element", ["bf16", "f16"])
def test_half_gpt2_plan_is_direct_cublas_and_one_cuda_graph(
    monkeypatch: pytest.MonkeyPatch, element: str
) -> None:
    """The bf16 (f16) GPT-2's launch plan: every GEMM goes to the direct
    binding (cublasGemmStridedBatchedEx on the bits the device holds, no
    cupy.matmul step), so every step is capturable and cuda_graph records
    the whole plan as one graph; its replay equals the reference."""
    from fxdsl.runtime.cuda_graph import GraphedExecutor

    imported, (ids,) = half_gpt2(element)
    library = MemoryCublas()
    executor, streams = executor_on_host(monkeypatch, imported.module, library)
    plan = executor.plan
    gemms = [step for step in plan.steps if isinstance(step, Gemm)]
    assert len(gemms) >= 5  # qkv, out proj, two MLP, the tied lm head
    assert {plan.gemm_element(g) for g in gemms} == {element}
    assert executor.blas is not None
    assert executor.matmul_fallback is None
    assert all(executor.direct_gemm(g) for g in gemms)
    assert all(executor.capturable(step) for step in plan.steps)

    monkeypatch.delattr(sys.modules["cupy"], "matmul")  # no cupy.matmul step
    graphed = GraphedExecutor(executor)
    # the weights as the device holds them (bf16: its bits), used as they
    # are: the second call finds the same addresses and replays the graph
    weights = [bf16_bits(w) if element == "bf16" else w for w in imported.weights]
    inputs = (*weights, ids.numpy())
    (first,) = graphed(*inputs)
    (entry,) = graphed.entries.values()
    assert len(entry.pieces) == 1
    assert streams.captures == 1
    assert library.runs == len(gemms)
    (second,) = graphed(*inputs)
    assert streams.captures == 1  # replayed: the recorded GEMMs ran again
    assert len(library.named("cublasGemmStridedBatchedEx")) == len(gemms)
    assert library.runs == 2 * len(gemms)
    (want,) = imported.run(ids)
    for got in (first, second):
        np.testing.assert_allclose(
            np.asarray(got, np.float64), want, rtol=0.05, atol=0.05
        )


def test_fallback_to_cupy_matmul_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the library, bf16 GEMMs run through cupy.matmul: a
    CublasFallbackWarning with the reason, `matmul_fallback` says it, and
    those GEMMs are not capturable (each one cuts the CUDA graph)."""
    from fxdsl.runtime.cuda_executor import CublasFallbackWarning

    module = parse(BATCHED.replace("ELEM", "bf16"))
    with pytest.warns(CublasFallbackWarning, match="3 GEMMs run through cupy.matmul"):
        executor, _ = executor_on_host(monkeypatch, module, None)
    assert executor.blas is None
    assert executor.matmul_fallback == "disabled by FXDSL_CUBLAS=0"
    gemms = [step for step in executor.plan.steps if isinstance(step, Gemm)]
    assert not any(executor.capturable(g) for g in gemms)
    inputs = random_inputs(module)
    for want, got in zip(run_reference(module, *inputs), executor(*inputs)):
        np.testing.assert_allclose(
            np.asarray(got, np.float64), want, rtol=2e-2, atol=2e-2
        )


def test_bf16_bits_in_and_out(monkeypatch: pytest.MonkeyPatch) -> None:
    """bf16 arguments given as their uint16 bits are used as they are (no
    conversion, the caller's array), and `bf16_bits=True` returns the bits
    of the outputs: the same results as float32 values in and out."""
    module = parse(BATCHED.replace("ELEM", "bf16"))
    executor, _ = executor_on_host(monkeypatch, module, MemoryCublas())
    inputs = random_inputs(module)
    values = executor(*inputs)
    bits = [bf16_bits(array) for array in inputs]
    assert all(u is b for u, b in zip(executor.upload(tuple(bits)), bits))
    executor.bf16_bits = True
    results = executor(*bits)
    for got, want in zip(results, values, strict=True):
        assert got.dtype == np.uint16
        np.testing.assert_array_equal(got, bf16_bits(want))


@pytest.mark.parametrize("element", ["bf16", "f16", "f32"])
def test_batched_broadcast_transposed_gemms_on_the_binding(
    monkeypatch: pytest.MonkeyPatch, element: str
) -> None:
    """The binding's arguments computed with, on buffers as the device holds
    them: batched, broadcast and transposed GEMMs equal the reference; no
    warning, no cupy.matmul."""
    module = parse(BATCHED.replace("ELEM", element))
    library = MemoryCublas()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        executor, _ = executor_on_host(monkeypatch, module, library)
    monkeypatch.delattr(sys.modules["cupy"], "matmul")
    inputs = random_inputs(module)
    expected = run_reference(module, *inputs)
    actual = executor(*inputs)
    entry = (
        "cublasSgemmStridedBatched"
        if element == "f32"
        else ("cublasGemmStridedBatchedEx")
    )
    assert len(library.named(entry)) == 3
    tol = {"bf16": 2e-2, "f16": 2e-3, "f32": 1e-5}[element]
    for want, got in zip(expected, actual, strict=True):
        np.testing.assert_allclose(
            np.asarray(got, np.float64), want, rtol=tol, atol=tol
        )


def test_torch_backend_follows_float32_matmul_precision(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The torch backend compiles CUDA islands with tf32 as torch's own f32
    matmuls: TF32 for "high" and "medium", not for "highest"; a change of
    precision compiles again (a different cache key), the CPU takes none."""
    torch = need("torch")
    import fxdsl
    from fxdsl.frontends import torch_compile
    from fxdsl.runtime.compile import compile_module

    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(
        fxdsl, "compile", lambda _module, **options: seen.append(options)
    )
    monkeypatch.setattr(torch_compile, "_COMPILED", Lru(8))
    module = parse(BATCHED.replace("ELEM", "f32"))
    settings = torch_compile.Options.parse(None)
    previous = torch.get_float32_matmul_precision()
    try:
        for precision in ("highest", "high", "medium", "highest"):
            torch.set_float32_matmul_precision(precision)
            torch_compile._compiled(module, "cuda", settings)
        torch_compile._compiled(module, "cpu", settings)
    finally:
        torch.set_float32_matmul_precision(previous)
    assert [options.get("tf32") for options in seen] == [False, True, None]
    assert [options["backend"] for options in seen] == ["cuda", "cuda", "cpu"]
    # CUDA islands hand bf16 back as bits (call_island views them as bf16)
    assert [options.get("bf16_bits") for options in seen] == [True, True, None]
    for option in ("tf32", "bf16_bits"):
        with pytest.raises(ValueError, match=f"{option}=True needs backend='cuda'"):
            compile_module(module, backend="cpu", **{option: True})


def test_bf16_crosses_the_torch_bridge_as_bits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On CUDA a bf16 tensor reaches the island as its uint16 bits and a
    result comes back as bf16: viewed from bits (bf16_bits), or rounded from
    float32 values (an executor without it); other types pass through."""
    import contextlib

    torch = need("torch")
    from fxdsl.frontends import torch_compile
    from fxdsl.runtime import torch_stream
    from fxdsl.runtime.torch_operands import DeviceOperands, crossing

    monkeypatch.setattr(torch_stream, "on_torch_stream", contextlib.nullcontext)
    x = torch.tensor([1.0, -2.5, 3.140625], dtype=torch.bfloat16, requires_grad=True)
    n = torch.arange(3)
    seen: list[Any] = []

    def run(*operands: Any) -> tuple[np.ndarray, ...]:
        seen.extend(operands)
        bits = operands[0]  # the island's results, as numpy "device" arrays
        return bits.copy(), _from_bits(bits), operands[1] + 1

    module = parse(
        "func.func @f(%a: tensor<3xbf16>) -> (tensor<3xbf16>, tensor<3xbf16>, "
        "tensor<3xi64>) {\n  %c = graph.constant dense<0> : tensor<3xi64>\n"
        "  func.return %a, %a, %c : tensor<3xbf16>, tensor<3xbf16>, tensor<3xi64>\n}"
    )
    function = entry_function(module)
    op = types.SimpleNamespace(result_types=list(function.function_type.outputs))
    # numpy's DLPack import stands in for CuPy's (`torch_operands.to_cupy`)
    held = DeviceOperands(lambda t: (np.from_dlpack(crossing(t)), True))
    from_bits, from_values, ints = torch_compile.call_island(
        run, [x, n], "cuda", op, held
    )
    assert seen[0].dtype == np.uint16
    np.testing.assert_array_equal(seen[1], n.numpy())
    for got in (from_bits, from_values):
        assert got.dtype == torch.bfloat16
        assert torch.equal(got, x.detach())
    assert torch.equal(ints, n + 1)


def _from_bits(bits: np.ndarray) -> np.ndarray:
    from fxdsl.ir.dtypes import from_bf16_bits

    return from_bf16_bits(bits)


# --- on a GPU: the same GEMMs through the real library ----------------------


@pytest.mark.gpu
@pytest.mark.parametrize("element", ["bf16", "f16"])
@pytest.mark.parametrize("cuda_graph", [False, True])
def test_16bit_gemms_on_gpu(element: str, cuda_graph: bool) -> None:
    """Batched, broadcast, transposed and offset bf16/f16 GEMMs through
    cublasGemmStridedBatchedEx equal the reference; under cuda_graph the
    whole plan is one captured graph, replayed for the same device inputs."""
    import cupy

    from fxdsl.runtime.cuda_executor import compile_cuda

    module = parse(BATCHED.replace("ELEM", element))
    run = compile_cuda(module, cuda_graph=cuda_graph)
    executor = run.executor if cuda_graph else run
    assert executor.blas is not None, executor.matmul_fallback
    inputs = random_inputs(module)
    # as the device holds them (bf16: bits), so the same arrays replay
    held = bf16_bits if element == "bf16" else (lambda a: a)
    device = [cupy.asarray(held(a)) for a in inputs]
    tol = {"bf16": 2e-2, "f16": 2e-3}[element]
    for _ in range(2):  # the second call replays the graph
        for want, got in zip(run_reference(module, *inputs), run(*device), strict=True):
            np.testing.assert_allclose(
                np.asarray(got.get(), np.float64), want, rtol=tol, atol=tol
            )
    if cuda_graph:
        (entry,) = run.entries.values()
        assert len(entry.pieces) == 1


@pytest.mark.gpu
def test_bf16_gpt2_is_one_cuda_graph_on_gpu() -> None:
    """HF GPT-2 in bf16: every GEMM on the direct binding, the plan one
    captured graph, logits within bf16 tolerance of the reference."""
    import cupy

    import fxdsl

    imported, (ids,) = half_gpt2()
    run = fxdsl.compile(imported.module, backend="cuda", cuda_graph=True)
    assert run.executor.blas is not None, run.executor.matmul_fallback
    weights = [cupy.asarray(bf16_bits(w)) for w in imported.weights]
    inputs = [*weights, cupy.asarray(ids.numpy())]
    (want,) = imported.run(ids)
    for _ in range(2):
        (got,) = run(*inputs)
        np.testing.assert_allclose(
            np.asarray(got.get(), np.float64), want, rtol=0.05, atol=0.05
        )
    (entry,) = run.entries.values()
    assert len(entry.pieces) == 1


@pytest.mark.gpu
def test_tf32_gemm_on_gpu() -> None:
    """tf32=True: the shared handle is in TF32 mode for the f32 GEMM, the
    result stays within TF32's error of the reference (10-bit mantissa
    inputs, f32 accumulation), and a tf32=False executor puts it back."""
    from fxdsl.runtime import cublas
    from fxdsl.runtime.cuda_executor import compile_cuda

    module = parse(BATCHED.replace("ELEM", "f32"))
    inputs = random_inputs(module)
    expected = run_reference(module, *inputs)
    fast = compile_cuda(module, tf32=True)
    exact = compile_cuda(module)
    for want, got in zip(expected, fast(*inputs), strict=True):
        np.testing.assert_allclose(got.get(), want, rtol=1e-2, atol=1e-2)
    assert fast.blas.math == cublas.TF32_TENSOR_OP_MATH
    for want, got in zip(expected, exact(*inputs), strict=True):
        np.testing.assert_allclose(got.get(), want, rtol=1e-5, atol=1e-5)
    assert exact.blas.math == cublas.DEFAULT_MATH


@pytest.mark.gpu
@pytest.mark.parametrize("cuda_graph", [False, True])
def test_bf16_model_through_the_torch_backend_on_gpu(cuda_graph: bool) -> None:
    """A bf16 MLP through torch.compile(backend="fxdsl") on CUDA: bf16
    tensors cross as bits, GEMMs on the direct binding, results bf16 and
    within bf16 tolerance of eager, twice (a CUDA-graph replay the second
    time)."""
    torch = need("torch")
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(64, 256), torch.nn.GELU(), torch.nn.Linear(256, 64)
    )
    model = model.to("cuda", torch.bfloat16).eval()
    options = {"cuda_graph": cuda_graph, "min_block_size": 1}
    compiled = torch.compile(model, backend="fxdsl", options=options)
    x = torch.randn(8, 64, device="cuda", dtype=torch.bfloat16)
    with torch.no_grad():
        want = model(x)
        for _ in range(2):
            got = compiled(x)
            assert got.dtype == torch.bfloat16
            torch.testing.assert_close(got, want, rtol=2e-2, atol=2e-2)


CONV = """
func.func @f(%x: tensor<1x4x6x6xf32>, %w: tensor<8x4x3x3xf32>, %m: tensor<32x8xf32>) -> (tensor<1x8x4x4xf32>, tensor<32x32xf32>) {
  %y = graph.conv2d %x, %w dilation [1, 1] groups 1 padding [0, 0] stride [1, 1] : (tensor<1x4x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x4x4xf32>
  %t = graph.transpose %m perm [1, 0] : (tensor<32x8xf32>) -> tensor<8x32xf32>
  %p = graph.matmul %m, %t : (tensor<32x8xf32>, tensor<8x32xf32>) -> tensor<32x32xf32>
  func.return %y, %p : tensor<1x8x4x4xf32>, tensor<32x32xf32>
}
"""


@pytest.mark.parametrize(
    ("tf32", "conv_tf32", "expected"),
    [
        (False, True, [True, False]),
        (True, False, [False, True]),
        (True, None, [True, True]),
    ],
)
def test_a_convolutions_gemm_takes_conv_tf32(
    monkeypatch: pytest.MonkeyPatch,
    tf32: bool,
    conv_tf32: bool | None,
    expected: list[bool],
) -> None:
    """conv-decompose marks the convolution's GEMM (graph.conv_gemm); the
    plan's Gemm says so, and the executor gives it `conv_tf32` (torch's
    convolutions default to TF32) and every other GEMM `tf32`."""
    cupy = types.ModuleType("cupy")
    for name in ("zeros", "empty", "asarray", "ascontiguousarray", "ndarray"):
        setattr(cupy, name, getattr(np, name))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    from fxdsl.runtime import cuda_executor

    calls: list[tuple[Any, ...]] = []
    fake = types.SimpleNamespace(gemm=lambda *args: calls.append(args))
    monkeypatch.setattr(cuda_executor.Cublas, "create", lambda _cp: fake)
    plan = build_launch_plan(apply(parse(CONV), GPU_PIPELINE))
    gemms = [step for step in plan.steps if isinstance(step, Gemm)]
    assert [g.conv for g in gemms] == [True, False]
    launchers = {name: lambda *_: None for name in plan.kernels}
    executor = cuda_executor.CudaExecutor(
        plan, launchers, tf32=tf32, conv_tf32=conv_tf32
    )
    inputs = [np.zeros(s.shape, s.dtype) for s in plan.buffers[: plan.num_inputs]]
    executor.run(executor.bind(executor.upload(tuple(inputs))))
    assert [call[5] for call in calls] == expected


def test_torch_backend_follows_cudnn_allow_tf32(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CUDA islands take conv_tf32 from torch.backends.cudnn.allow_tf32, as
    torch's convolutions do (a change compiles again); the CPU none."""
    torch = need("torch")
    import fxdsl
    from fxdsl.frontends import torch_compile

    seen: list[dict[str, Any]] = []
    monkeypatch.setattr(
        fxdsl, "compile", lambda _module, **options: seen.append(options)
    )
    monkeypatch.setattr(torch_compile, "_COMPILED", Lru(8))
    module = parse(BATCHED.replace("ELEM", "f32"))
    settings = torch_compile.Options.parse(None)
    cudnn = torch.backends.cudnn
    for allowed in (True, False):
        # the context manager: torch's test utilities, once imported, refuse
        # a plain assignment (disable_global_flags)
        with cudnn.flags(enabled=cudnn.enabled, allow_tf32=allowed):
            torch_compile._compiled(module, "cuda", settings)
    torch_compile._compiled(module, "cpu", settings)
    assert [options.get("conv_tf32") for options in seen] == [True, False, None]
