"""`fxdsl.compile`: turn a module into a callable for a backend.

- `backend="cpu"` runs the pipeline and then the numpy reference interpreter;
  it works everywhere and is what the CUDA backend is checked against.
- `backend="cuda"` needs CuPy and an NVIDIA GPU; without them it fails with
  an error that says what is missing, rather than silently running on the
  CPU (also when no CUDA compiler, NVRTC or nvcc, can run). With them,
  `fxdsl.runtime.cuda_executor` lowers the module (`convert-graph-to-gpu`),
  compiles its kernels once through the disk cache and runs its launch plan.

The returned callable checks its inputs against the entry function's types
(a clear ValueError naming the argument) before running.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from fxdsl.api import apply
from fxdsl.interpreters.run import run_reference
from fxdsl.lowering.pipeline import GRAPH_PIPELINE
from fxdsl.runtime.counters import timed

DEFAULT_PIPELINE = f"{GRAPH_PIPELINE},dce"
"""The CPU backend's pipeline: the GPU pipeline's graph passes, so the
reference runs the same graph the kernels are built from."""


class BackendUnavailable(RuntimeError):
    """The CUDA backend cannot run on this machine or in this build; `reason`
    says what is missing."""

    def __init__(self, reason: str):
        super().__init__(f"backend='cuda' is unavailable: {reason}")
        self.reason = reason


def cuda_unavailable_reason() -> str | None:
    """None when CuPy can run kernels here, else why it cannot."""
    try:
        import cupy  # type: ignore[import-not-found]
    except ImportError as error:
        return f"CuPy is not installed ({error}); install the `gpu` extra"
    try:
        cupy.cuda.runtime.getDeviceCount()
    except Exception as error:  # noqa: BLE001 - any CUDA failure means "no GPU"
        return f"no usable NVIDIA GPU: {error}"
    return None


def compile_module(
    module: ModuleOp,
    backend: str = "cuda",
    pipeline: str | None = None,
    entry: str | None = None,
    cuda_graph: bool = False,
    **options: Any,
) -> Callable[..., tuple[Any, ...]]:
    """Compile a clone of `module` for `backend` with `pipeline` (default:
    DEFAULT_PIPELINE); the input is not modified. `cuda_graph=True` (CUDA
    only) replays the kernels as CUDA graphs (`fxdsl.runtime.cuda_graph`)."""
    if options:
        raise TypeError(f"unknown compile options: {', '.join(sorted(options))}")
    if cuda_graph and backend != "cuda":
        raise ValueError(f"cuda_graph=True needs backend='cuda', not '{backend}'")
    if backend == "cuda":
        reason = cuda_unavailable_reason()
        if reason is not None:
            raise BackendUnavailable(reason)
        from fxdsl.runtime.cuda_executor import compile_cuda
        from fxdsl.runtime.nvrtc import CompilerUnavailable

        try:
            return compile_cuda(
                module, pipeline=pipeline, entry=entry, cuda_graph=cuda_graph
            )
        except CompilerUnavailable as error:
            raise BackendUnavailable(str(error)) from None
    if backend != "cpu":
        raise ValueError(f"unknown backend '{backend}' (expected 'cuda' or 'cpu')")

    compiled = module.clone()
    spec = DEFAULT_PIPELINE if pipeline is None else pipeline
    if spec:
        with timed("lower"):
            apply(compiled, spec)

    def run(*inputs: Any) -> tuple[Any, ...]:
        return run_reference(compiled, *inputs, entry=entry)

    return run
