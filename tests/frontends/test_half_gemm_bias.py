"""A 16-bit GEMM with a bias rounds once, as torch's addmm does: the
product is stored in f32 (`graph.matmul` with an f32 result; cuBLAS's
Ctype f32 on the GPU), the bias is added in f32, the sum is rounded.

The inputs make the check exact: multiples of 1/64 whose products and sums
are exact in f32, with a bias that cancels the product's bf16 (f16)
rounding. Eager's result is then the bits that rounding loses; a product
rounded to 16 bits before the bias is added gives 0 there instead."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from fxdsl.testing.optional import need

torch = need("torch")

import fxdsl  # noqa: E402
from fxdsl.frontends.torch_export import from_torch  # noqa: E402
from fxdsl.ir.dtypes import bf16_bits, from_bf16_bits  # noqa: E402
from fxdsl.testing.fake_cublas import MemoryCublas, executor_on_host  # noqa: E402
from fxdsl.testing.torch_models import function_module  # noqa: E402


def _grid(*shape: int) -> Any:
    """Multiples of 1/64 in [-1, 1]: exact in bf16 and f16."""
    return torch.randint(-64, 65, shape).double() / 64


def _cancelling(product: Any, dtype: Any) -> Any:
    """A bias that cancels `product` as rounded to `dtype`."""
    return -product.to(dtype)


CASES: dict[str, tuple[Callable[..., Any], Callable[[Any], tuple[Any, ...]]]] = {
    "addmm": (
        torch.addmm,
        lambda dt: (lambda x, w: (_cancelling(x @ w, dt), x.to(dt), w.to(dt)))(
            _grid(8, 32), _grid(32, 12)
        ),
    ),
    "baddbmm": (
        torch.baddbmm,
        lambda dt: (lambda x, w: (_cancelling(x @ w, dt), x.to(dt), w.to(dt)))(
            _grid(3, 8, 32), _grid(3, 32, 12)
        ),
    ),
    "linear": (
        lambda x, w, b: torch.nn.functional.linear(x, w, b),
        lambda dt: (lambda x, w: (x.to(dt), w.to(dt), _cancelling(x @ w.T, dt)[0]))(
            _grid(1, 32), _grid(12, 32)
        ),
    ),
}


def _inputs(name: str, dtype: Any) -> tuple[Callable[..., Any], tuple[Any, ...], Any]:
    torch.manual_seed(0)
    fn, make = CASES[name]
    args = make(dtype)
    want = fn(*args)
    assert want.dtype == dtype
    assert torch.count_nonzero(want) > want.numel() // 4  # the lost bits show
    return fn, args, want.double().numpy()


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("name", sorted(CASES))
def test_reference_and_cpu_pipeline_keep_the_products_bits(
    name: str, dtype: Any
) -> None:
    """The imported program and the CPU backend's pipeline (which
    decomposes `graph.linear`) equal eager bit for bit."""
    fn, args, want = _inputs(name, dtype)
    imported = from_torch(function_module(fn), args)
    (got,) = imported.run(*args)
    np.testing.assert_array_equal(np.asarray(got, np.float64), want)
    compiled = fxdsl.compile(imported.module, backend="cpu")
    bf16 = dtype == torch.bfloat16
    arrays = [a.float().numpy() if bf16 else a.numpy() for a in args]
    (got,) = compiled(*imported.weights, *arrays)
    np.testing.assert_array_equal(np.asarray(got, np.float64), want)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("name", sorted(CASES))
def test_gpu_lowering_stores_the_product_in_f32(
    monkeypatch: pytest.MonkeyPatch, name: str, dtype: Any
) -> None:
    """The GPU lowering, run on the host (kernels in the IR emulator, GEMMs
    through the cuBLAS stand-in): the GEMM is cublasGemmStridedBatchedEx
    with 16-bit A and B and an f32 C (CUDA_R_32F = 0), and the result
    equals eager bit for bit."""
    fn, args, want = _inputs(name, dtype)
    imported = from_torch(function_module(fn), args)
    library = MemoryCublas()
    executor, _ = executor_on_host(monkeypatch, imported.module, library)
    bf16 = dtype == torch.bfloat16
    arrays = [a.float().numpy() if bf16 else a.numpy() for a in args]
    if bf16:
        arrays = [bf16_bits(a) for a in arrays]
        executor.bf16_bits = True
    (got,) = executor(*imported.weights, *arrays)
    got = from_bf16_bits(got) if bf16 else got
    np.testing.assert_array_equal(np.asarray(got, np.float64), want)
    calls = library.named("cublasGemmStridedBatchedEx")
    assert len(calls) == 1
    a_type, b_type, c_type = calls[0][8], calls[0][12], calls[0][17]
    assert (a_type, b_type, c_type) == ((14, 14, 0) if bf16 else (2, 2, 0))


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
def test_cupy_matmul_fallback_stores_the_product_in_f32(
    monkeypatch: pytest.MonkeyPatch, dtype: Any
) -> None:
    """Without the direct binding (`FXDSL_CUBLAS=0`), the widened GEMM runs
    through `cupy.matmul` into the f32 buffer: eager's result too."""
    from fxdsl.runtime.cuda_executor import CublasFallbackWarning

    fn, args, want = _inputs("addmm", dtype)
    imported = from_torch(function_module(fn), args)
    with pytest.warns(CublasFallbackWarning):
        executor, _ = executor_on_host(monkeypatch, imported.module, None)
    arrays = [a.float().numpy() if dtype == torch.bfloat16 else a.numpy() for a in args]
    (got,) = executor(*imported.weights, *arrays)
    np.testing.assert_array_equal(np.asarray(got, np.float64), want)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16], ids=str)
@pytest.mark.parametrize("name", sorted(CASES))
def test_widened_gemm_on_gpu(name: str, dtype: Any) -> None:
    """On the GPU: cuBLAS writes the f32 product (Ctype CUDA_R_32F with
    16-bit A and B), the epilogue adds the bias: eager's result bit for bit
    (every f32 sum of these inputs is exact, in any order)."""
    import cupy

    from fxdsl.runtime.cuda_executor import compile_cuda

    fn, args, want = _inputs(name, dtype)
    imported = from_torch(function_module(fn), args)
    run = compile_cuda(imported.module)
    assert run.blas is not None, run.matmul_fallback
    bf16 = dtype == torch.bfloat16
    arrays = [bf16_bits(a.float().numpy()) if bf16 else a.numpy() for a in args]
    (got,) = run(*(cupy.asarray(a) for a in (*imported.weights, *arrays)))
    np.testing.assert_array_equal(np.asarray(got.get(), np.float64), want)
