"""The CuPy executor's host logic (argument checks, buffers, views, launch
order, GEMMs, outputs) on the CPU: a stand-in `cupy` module backed by numpy
runs each kernel with the IR emulator. What stays untested without a GPU is
CuPy itself and the generated CUDA C (nvcc checks that it compiles)."""

from __future__ import annotations

import importlib.util
import sys
import types
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import fxdsl
from fxdsl.frontends.models import gpt2_stack
from fxdsl.interpreters.run import random_inputs, run_reference


def load(name: str) -> types.ModuleType:
    spec = importlib.util.spec_from_file_location(
        name, Path(__file__).with_name(f"{name}.py")
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


emulator = load("gpu_emulator")


def fake_cupy(lowered_holder: list[Any]) -> types.ModuleType:
    """numpy with CuPy's names; RawModule kernels run in the IR emulator."""
    cp = types.ModuleType("cupy")
    for name in ("zeros", "asarray", "ascontiguousarray", "matmul", "ndarray",
                 "uint32", "float32", "lib"):  # fmt: skip
        setattr(cp, name, getattr(np, name))
    cp.asnumpy = np.asarray
    cp.from_dlpack = np.from_dlpack

    class RawModule:
        def __init__(self, code: str, options: tuple[str, ...]) -> None:
            assert 'extern "C" __global__' in code
            self.machine = emulator.Emulator(lowered_holder[0])

        def get_function(self, name: str) -> Any:
            def launch(
                grid: tuple[int, ...], block: tuple[int, ...], args: tuple[Any, ...]
            ) -> None:
                self.machine.launch(name, grid[0], block[0], list(args))

            return launch

    cp.RawModule = RawModule
    return cp


@pytest.fixture
def executor_module(monkeypatch: pytest.MonkeyPatch) -> Any:
    from fxdsl.runtime import cuda_executor

    holder: list[Any] = []
    monkeypatch.setitem(sys.modules, "cupy", fake_cupy(holder))
    original = cuda_executor.build_launch_plan

    def remember(module: Any, entry: str | None = None) -> Any:
        holder[:] = [module]
        return original(module, entry)

    monkeypatch.setattr(cuda_executor, "build_launch_plan", remember)
    return cuda_executor


def test_gpt2_block_through_the_executor(executor_module: Any) -> None:
    module = gpt2_stack(1, B=1, T=8, D=32, heads=2)
    name = next(iter(f.sym_name.data for f in module.body.block.ops))
    inputs = random_inputs(module, entry=name)
    run = executor_module.compile_cuda(module, entry=name)
    expected = run_reference(module, *inputs, entry=name)
    for _ in range(2):  # scratch buffers are reused: a second call is the same
        (actual,) = run(*inputs)
        np.testing.assert_allclose(actual, expected[0], rtol=1e-4, atol=1e-4)
    assert executor_module.stats()["compiles"] >= 1


def test_f16_program_and_guards(executor_module: Any) -> None:
    module = fxdsl.parse("""
func.func @f(%x: tensor<4x8xf16>, %w: tensor<8x3xf16>) -> (tensor<4x3xf16>, tensor<4x8xf16>) {
  %s = graph.softmax %x dim 1 : tensor<4x8xf16>
  %y = graph.matmul %s, %w : (tensor<4x8xf16>, tensor<8x3xf16>) -> tensor<4x3xf16>
  func.return %y, %s : tensor<4x3xf16>, tensor<4x8xf16>
}
""")
    inputs = random_inputs(module)
    run = executor_module.compile_cuda(module)
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
