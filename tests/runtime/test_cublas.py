"""The direct cuBLAS binding's host logic without a GPU: a stand-in for the
library records the C calls, a stand-in for CuPy gives streams and device
pointers. What runs on the GPU (the GEMMs themselves, against cupy.matmul)
is tests/lowering/test_gpu_execution.py."""

from __future__ import annotations

import sys
import types
from typing import Any

import numpy as np
import pytest

from fxdsl.api import apply
from fxdsl.frontends.models import gpt2_stack
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime.cublas import Cublas
from fxdsl.runtime.launch_plan import Gemm, build_launch_plan


class FakeLibrary:
    """libcublas as ctypes sees it: every function returns 0 (success) and
    records its name and arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        def function(*args: Any) -> int:
            self.calls.append((name, args))
            return 0

        setattr(self, name, function)
        return function

    def named(self, name: str) -> list[tuple[Any, ...]]:
        return [args for called, args in self.calls if called == name]


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
        blas.sgemm(params, 0x100000, 0x200000, 0x300000)
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
        blas.sgemm(gemm_of_a_block().cublas, 0, 0, 0)


def test_executor_passes_each_gemm_its_buffers(monkeypatch: pytest.MonkeyPatch) -> None:
    """With direct cuBLAS the executor hands every f32 GEMM the addresses of
    its rhs, lhs and output buffers (cuBLAS's first operand is the rhs)."""
    cupy = types.ModuleType("cupy")
    for name in ("zeros", "empty", "asarray", "ascontiguousarray", "ndarray"):
        setattr(cupy, name, getattr(np, name))
    monkeypatch.setitem(sys.modules, "cupy", cupy)
    from fxdsl.runtime import cuda_executor

    calls: list[tuple[Any, ...]] = []
    fake = types.SimpleNamespace(sgemm=lambda *args: calls.append(args))
    monkeypatch.setattr(cuda_executor.Cublas, "create", lambda _cp: fake)
    module = gpt2_stack(1, B=1, T=8, D=16, heads=2)
    plan = build_launch_plan(apply(module, GPU_PIPELINE))
    launchers = {name: lambda *_: None for name in plan.kernels}
    executor = cuda_executor.CudaExecutor(plan, launchers)
    inputs = [np.zeros(s.shape, s.dtype) for s in plan.buffers[: plan.num_inputs]]
    buffers = executor.bind(executor.upload(tuple(inputs)))
    executor.run(buffers)
    gemms = [step for step in plan.steps if isinstance(step, Gemm)]
    address = cuda_executor.device_address
    assert calls == [
        (
            g.cublas,
            address(buffers[g.rhs.slot]),
            address(buffers[g.lhs.slot]),
            address(buffers[g.out.slot]),
        )
        for g in gemms
    ]
