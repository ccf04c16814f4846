"""The linear-algebra ops through the GPU lowering, on the CPU: they stay
host library steps (`graph-wrap-kernels` wraps no kernel around them and
copies a strided operand; `graph-bufferize` bridges them to buffers), the
launch plan reads each as one `Solve` step, and both the IR emulator and the
CUDA executor (on the numpy stand-in for CuPy, whose `linalg` is numpy's)
compute what the reference does. The CuPy routines themselves need a GPU
(tests/lowering/test_gpu_execution.py's `gpu` marker)."""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import pytest

from fxdsl.api import parse
from fxdsl.interpreters.run import run_reference
from fxdsl.ir import graph
from fxdsl.lowering.launch_plan import Launch, Solve
from fxdsl.pipeline.lower import lower_for_cuda
from fxdsl.runtime import ir_emulator
from fxdsl.runtime.solvers import SOLVERS
from fxdsl.testing.fake_cupy import numpy_cupy

EYE4 = "dense<[[4.0, 0.0, 0.0, 0.0], [0.0, 4.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0], [0.0, 0.0, 0.0, 4.0]]>"

PROGRAM = f"""
func.func @f(%a: tensor<2x4x4xf32>, %b: tensor<4x3xf32>, %c: tensor<5x3xf32>)
    -> (tensor<2x4x4xf32>, tensor<2x4xi32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>,
        tensor<5x3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<2x4xf32>,
        tensor<2x3x4xf32>, tensor<5x3xf32>, tensor<3xf32>) {{
  %at = graph.transpose %a perm [0, 2, 1] : (tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %aat = graph.matmul %a, %at : (tensor<2x4x4xf32>, tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  %eye = graph.constant {EYE4} : tensor<4x4xf32>
  %spd = graph.add %aat, %eye : (tensor<2x4x4xf32>, tensor<4x4xf32>) -> tensor<2x4x4xf32>
  %lu, %p, %pm = graph.lu %at : (tensor<2x4x4xf32>) -> (tensor<2x4x4xf32>, tensor<2x4xi32>, tensor<2x4x4xf32>)
  %x = graph.triangular_solve %lu, %b upper : (tensor<2x4x4xf32>, tensor<4x3xf32>) -> tensor<2x4x3xf32>
  %l = graph.cholesky %spd : tensor<2x4x4xf32>
  %q, %r = graph.qr %c : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3x3xf32>)
  %u, %s, %vh = graph.svd %c : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>, tensor<3x3xf32>)
  %w, %v = graph.eigh %spd : (tensor<2x4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4x4xf32>)
  %bt = graph.transpose %b perm [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
  %y = graph.triangular_solve %l, %bt right : (tensor<2x4x4xf32>, tensor<3x4xf32>) -> tensor<2x3x4xf32>
  %g, %tau = graph.geqrf %c : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<3xf32>)
  func.return %lu, %p, %x, %l, %q, %r, %s, %w, %y, %g, %tau
      : tensor<2x4x4xf32>, tensor<2x4xi32>, tensor<2x4x3xf32>, tensor<2x4x4xf32>,
        tensor<5x3xf32>, tensor<3x3xf32>, tensor<3xf32>, tensor<2x4xf32>,
        tensor<2x3x4xf32>, tensor<5x3xf32>, tensor<3xf32>
}}
"""

rng = np.random.default_rng(3)


def inputs() -> list[Any]:
    return [
        rng.standard_normal(s).astype(np.float32) for s in ((2, 4, 4), (4, 3), (5, 3))
    ]


def close(got: Any, want: Any) -> None:
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def test_each_linalg_op_is_one_solver_step() -> None:
    lowered, plan = lower_for_cuda(parse(PROGRAM))
    solves = [s for s in plan.steps if isinstance(s, Solve)]
    assert [s.op for s in solves] == [
        "graph.lu", "graph.triangular_solve", "graph.cholesky", "graph.qr",
        "graph.svd", "graph.eigh", "graph.triangular_solve", "graph.geqrf",
    ]  # fmt: skip
    assert solves[1].flags == ("upper",)
    assert solves[-2].flags == ("right",)
    # every operand and result is a dense buffer: the transposes were copied
    for step in solves:
        assert all(v.layout.is_identity for v in (*step.inputs, *step.outputs))
    assert sum(isinstance(s, Launch) for s in plan.steps) >= 2
    # no kernel computes a factorisation: none is named after one
    assert not [k for k in plan.kernels if k.split("_")[-1] in ("lu", "qr", "svd")]
    assert any(isinstance(op, graph.LinalgOp) for op in lowered.walk())


def test_emulator_runs_the_lowered_program_as_the_reference() -> None:
    module = parse(PROGRAM)
    lowered, _ = lower_for_cuda(module)
    arrays = inputs()
    close(
        ir_emulator.Emulator(lowered).run("f", *arrays), run_reference(module, *arrays)
    )


@pytest.fixture
def numpy_executor(monkeypatch: pytest.MonkeyPatch) -> Any:
    """The executor's solver path on numpy under CuPy's names (its kernels
    run in the IR emulator)."""
    from fxdsl.runtime import cuda_executor

    monkeypatch.setitem(sys.modules, "cupy", numpy_cupy())
    return cuda_executor


def test_executor_runs_solver_steps_through_cupy_linalg(numpy_executor: Any) -> None:
    module = parse(PROGRAM)
    lowered, plan = lower_for_cuda(module)
    machine = ir_emulator.Emulator(lowered)
    cp = sys.modules["cupy"]
    kernels = {
        name: numpy_executor.HostKernel(cp, machine, name) for name in plan.kernels
    }
    executor = numpy_executor.CudaExecutor(plan, kernels)
    assert not any(executor.capturable(s) for s in plan.steps if isinstance(s, Solve))
    arrays = inputs()
    close(executor(*arrays), run_reference(module, *arrays))


def test_the_device_cholesky_refuses_an_indefinite_matrix() -> None:
    """CuPy returns NaNs there; the solver step raises instead (numpy's own
    cholesky raises first on the stand-in, the NaN check covers CuPy)."""

    class NanLinalg:
        @staticmethod
        def cholesky(a: Any) -> Any:
            return np.full(a.shape, np.nan, np.float32)

    cp = numpy_cupy()
    cp.linalg = NanLinalg
    indefinite = np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)
    with pytest.raises(np.linalg.LinAlgError, match="graph.cholesky: .*definite"):
        SOLVERS["graph.cholesky"](cp, indefinite)


def test_every_linalg_op_has_a_device_solver() -> None:
    assert set(SOLVERS) == {op.name for op in graph.LINALG_OPS}


@pytest.mark.gpu
def test_solver_steps_on_gpu() -> None:
    """cuSOLVER through CuPy equals the reference (f32 on the device against
    float64 rounded once: 1e-3), and refuses an indefinite Cholesky."""
    from fxdsl.runtime.cuda_executor import compile_cuda

    module = parse(PROGRAM)
    arrays = inputs()
    got = [np.asarray(a.get()) for a in compile_cuda(module)(*arrays)]
    for g, w in zip(got, run_reference(module, *arrays), strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-3)
    typ = "tensor<2x2xf32>"
    cholesky = parse(
        f"func.func @c(%a: {typ}) -> {typ} {{\n"
        f"  %l = graph.cholesky %a : {typ}\n  func.return %l : {typ}\n}}\n"
    )
    indefinite = np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)
    with pytest.raises(np.linalg.LinAlgError):
        compile_cuda(cholesky)(indefinite)
