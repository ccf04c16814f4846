"""fxdsl.compile: the CPU backend everywhere, a clear error for CUDA without it."""

from __future__ import annotations

import numpy as np
import pytest

import fxdsl
from fxdsl.interpreters.run import random_inputs
from fxdsl.runtime.compile import BackendUnavailable, cuda_unavailable_reason

IR = """
func.func @f(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = graph.add %x, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  %1 = graph.gelu %0 approximate "tanh" : tensor<4x8xf32>
  %2 = graph.softmax %1 dim 1 : tensor<4x8xf32>
  func.return %2 : tensor<4x8xf32>
}
"""


def test_cpu_backend_matches_reference_and_leaves_input_alone() -> None:
    module = fxdsl.parse(IR)
    before = str(module)
    inputs = random_inputs(module, seed=3)
    compiled = fxdsl.compile(module, backend="cpu")
    (got,) = compiled(*inputs)
    (want,) = fxdsl.run(module, *inputs)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert str(module) == before


def test_cpu_backend_guards_inputs() -> None:
    compiled = fxdsl.compile(fxdsl.parse(IR), backend="cpu", pipeline="cse")
    bad = np.zeros((4, 7), np.float32)
    with pytest.raises(ValueError, match=r"argument 0 .*tensor<4x8xf32>.*\(4, 7\)"):
        compiled(bad, np.zeros(8, np.float32))


def test_unknown_backend_and_option_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown backend 'tpu'"):
        fxdsl.compile(fxdsl.parse(IR), backend="tpu")
    with pytest.raises(TypeError, match="unknown compile options: turbo"):
        fxdsl.compile(fxdsl.parse(IR), backend="cpu", turbo=True)


def test_keyword_inputs_bind_by_argument_name() -> None:
    module = fxdsl.parse(IR)
    x, b = random_inputs(module, seed=1)
    compiled = fxdsl.compile(module, backend="cpu")
    (want,) = compiled(x, b)
    for got in (compiled(b=b, x=x)[0], compiled(x, b=b)[0]):
        np.testing.assert_array_equal(got, want)
    with pytest.raises(TypeError, match="missing input 'b'"):
        compiled(x=x)
    with pytest.raises(
        TypeError, match=r"unexpected or repeated inputs y \(it takes x, b\)"
    ):
        compiled(x, b, y=b)
    # a traced function's arguments have no names: keywords are a clear error
    traced = fxdsl.trace(lambda t: fxdsl.ops.neg(t), fxdsl.TensorSpec((4,)))
    with pytest.raises(TypeError, match="takes its inputs positionally.*: t"):
        fxdsl.compile(traced, backend="cpu")(t=np.zeros(4, np.float32))


def test_bad_module_and_pipeline_are_type_errors() -> None:
    with pytest.raises(TypeError, match="expected a ModuleOp .* got NoneType"):
        fxdsl.compile(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pipeline must be a pass pipeline string"):
        fxdsl.compile(fxdsl.parse(IR), backend="cpu", pipeline=123)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pipeline must be a pass pipeline string"):
        fxdsl.apply(fxdsl.parse(IR), 123)  # type: ignore[arg-type]


def test_backend_unavailable_is_exported() -> None:
    assert fxdsl.BackendUnavailable is BackendUnavailable


@pytest.mark.skipif(cuda_unavailable_reason() is None, reason="a GPU is present")
def test_cuda_backend_without_gpu_says_what_is_missing() -> None:
    with pytest.raises(BackendUnavailable, match="backend='cuda' is unavailable: "):
        fxdsl.compile(fxdsl.parse(IR), backend="cuda")


def test_cuda_backend_without_a_compiler_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """CuPy and a GPU, but neither NVRTC nor nvcc: the same clear error."""
    from fxdsl.runtime import compile as compile_module
    from fxdsl.runtime import cuda_executor
    from fxdsl.runtime.nvrtc import CompilerUnavailable

    def no_compiler(*args: object, **kwargs: object) -> None:
        raise CompilerUnavailable("no CUDA compiler: NVRTC is not available: x")

    monkeypatch.setattr(compile_module, "cuda_unavailable_reason", lambda: None)
    monkeypatch.setattr(cuda_executor, "compile_cuda", no_compiler)
    with pytest.raises(
        BackendUnavailable,
        match="backend='cuda' is unavailable: no CUDA compiler: NVRTC is not",
    ):
        fxdsl.compile(fxdsl.parse(IR), backend="cuda")
