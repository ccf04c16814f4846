"""`fxdsl.compile`: turn a module into a callable for a backend.

- `backend="cpu"` runs the pipeline and then the numpy reference interpreter;
  it works everywhere and is what the CUDA backend is checked against.
- `backend="cuda"` needs CuPy and an NVIDIA GPU; without them it fails with
  an error that says what is missing, rather than silently running on the
  CPU (also when no CUDA compiler, NVRTC or nvcc, can run). With them,
  `fxdsl.runtime.cuda_executor` lowers the module (`convert-graph-to-gpu`),
  compiles its kernels once through the disk cache and runs its launch plan.
- `backend="cuda-sim"` lowers as `cuda` does and runs the emitted CUDA C on
  the CPU (`fxdsl.runtime.cuda_sim`: g++ with ASan/UBSan, a host thread per
  GPU thread). Very slow; for debugging kernels without a GPU.

The returned callable checks its inputs against the entry function's types
(a clear ValueError naming the argument) before running. It takes inputs
positionally; keywords work where the entry function's arguments have names
(`%x` in IR text), else they are a TypeError saying so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import ModuleOp

from fxdsl.interpreters.run import entry_function, run_reference
from fxdsl.lowering.pipeline import GRAPH_PIPELINE
from fxdsl.lowering.tensor_core_gemm import GEMM_ROUTES
from fxdsl.pipeline.pass_pipeline import apply
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
    tf32: bool = False,
    gemm: str = "cublas",
    bf16_bits: bool = False,
    conv_tf32: bool | None = None,
    **options: Any,
) -> Callable[..., tuple[Any, ...]]:
    """Compile a clone of `module` for `backend` with `pipeline` (default:
    DEFAULT_PIPELINE); the input is not modified. `cuda_graph=True` (CUDA
    only) replays the kernels as CUDA graphs (`fxdsl.runtime.cuda_graph`);
    `tf32=True` (CUDA only) lets f32 GEMMs use TF32 tensor cores, and
    `conv_tf32` the GEMMs of convolutions (None: as `tf32`; torch's default
    for convolutions is TF32, `torch.backends.cudnn.allow_tf32`);
    `gemm="tensor-core"` (CUDA and cuda-sim) runs bf16/f16 GEMMs on fxdsl's
    own tensor-core kernel instead of cuBLAS (`fxdsl.runtime.tensor_core_gemm`;
    opt-in, not measured against cuBLAS yet); `bf16_bits=True` (CUDA only)
    returns bf16 results as their `uint16` bits, as the device holds them
    (the torch bridge views them as `torch.bfloat16`, zero-copy)."""
    if not isinstance(module, ModuleOp):
        raise TypeError(
            "fxdsl.compile: expected a ModuleOp (from fxdsl.parse or fxdsl.trace), "
            f"got {type(module).__name__}"
        )
    if pipeline is not None and not isinstance(pipeline, str):
        raise TypeError(
            "fxdsl.compile: pipeline must be a pass pipeline string such as "
            f"'graph-decompose,graph-fuse' or None, got {type(pipeline).__name__}"
        )
    if options:
        raise TypeError(f"unknown compile options: {', '.join(sorted(options))}")
    if cuda_graph and backend != "cuda":
        raise ValueError(f"cuda_graph=True needs backend='cuda', not '{backend}'")
    cuda_only = (("tf32", tf32), ("bf16_bits", bf16_bits), ("conv_tf32", conv_tf32))
    for name, value in cuda_only:
        if value and backend != "cuda":
            raise ValueError(f"{name}=True needs backend='cuda', not '{backend}'")
    if gemm not in GEMM_ROUTES:
        raise ValueError(f"gemm={gemm!r}: not one of {GEMM_ROUTES}")
    if gemm != "cublas" and backend not in ("cuda", "cuda-sim"):
        raise ValueError(f"gemm={gemm!r} needs backend 'cuda' or 'cuda-sim'")
    run = _compile(
        module, backend, pipeline, entry, cuda_graph, tf32, gemm, bf16_bits, conv_tf32
    )
    return KeywordInputs(run, [a.name_hint for a in entry_function(module, entry).args])


def _compile(
    module: ModuleOp,
    backend: str,
    pipeline: str | None,
    entry: str | None,
    cuda_graph: bool,
    tf32: bool = False,
    gemm: str = "cublas",
    bf16_bits: bool = False,
    conv_tf32: bool | None = None,
) -> Callable[..., tuple[Any, ...]]:
    if backend == "cuda":
        reason = cuda_unavailable_reason()
        if reason is not None:
            raise BackendUnavailable(reason)
        from fxdsl.runtime.cuda_executor import compile_cuda
        from fxdsl.runtime.nvrtc import CompilerUnavailable

        try:
            return compile_cuda(
                module, pipeline=pipeline, entry=entry, cuda_graph=cuda_graph,
                tf32=tf32, gemm=gemm, bf16_bits=bf16_bits, conv_tf32=conv_tf32,
            )  # fmt: skip
        except CompilerUnavailable as error:
            raise BackendUnavailable(str(error)) from None
    if backend == "cuda-sim":
        from fxdsl.runtime.cuda_sim import CudaSimProgram

        return CudaSimProgram(module, pipeline=pipeline, entry=entry, gemm=gemm)
    if backend != "cpu":
        raise ValueError(
            f"unknown backend '{backend}' (expected 'cuda', 'cpu' or 'cuda-sim')"
        )

    compiled = module.clone()
    spec = DEFAULT_PIPELINE if pipeline is None else pipeline
    if spec:
        with timed("lower"):
            apply(compiled, spec, verify_each=False)

    def run(*inputs: Any) -> tuple[Any, ...]:
        return run_reference(compiled, *inputs, entry=entry)

    return run


class KeywordInputs:
    """A compiled callable that also takes inputs by the entry function's
    argument names; attributes (`plan`, `entries`, ...) are the wrapped one's."""

    def __init__(
        self, run: Callable[..., tuple[Any, ...]], names: Sequence[str | None]
    ):
        self.run = run
        self.names = tuple(names)

    def __call__(self, *inputs: Any, **named: Any) -> tuple[Any, ...]:
        if not named:
            return self.run(*inputs)
        return self.run(*_bind(inputs, named, self.names))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.run, name)


def _bind(
    inputs: Sequence[Any], named: dict[str, Any], names: Sequence[str | None]
) -> list[Any]:
    if None in names:
        raise TypeError(
            "the compiled function takes its inputs positionally (its arguments "
            f"have no names); got keyword arguments: {', '.join(named)}"
        )
    bound = list(inputs)
    for name in names[len(inputs) :]:
        if name not in named:
            raise TypeError(f"the compiled function is missing input '{name}'")
        bound.append(named.pop(name))
    if named:
        taken = ", ".join(str(n) for n in names)
        raise TypeError(
            f"the compiled function got unexpected or repeated inputs "
            f"{', '.join(named)} (it takes {taken})"
        )
    return bound
