"""The variants timed side by side: what each compiles and how it runs.

A `Variant` turns a workload's module into a `Compiled`: a function on
device-resident inputs, the conversions to and from numpy, and the timer that
fits the framework (CUDA events of CuPy or torch, or `perf_counter` on the
CPU). A variant that cannot run here raises `Skipped` with the reason, which
the report shows; the harness never drops a row silently.

* `fxdsl`: `fxdsl.compile` with its default pipeline (fusion on).
* `fxdsl-unfused`: the same pipeline without `graph-fuse`: `graph-wrap-kernels`
  makes every op its own kernel (the "eager CuPy" baseline).
* `fxdsl-cudagraph`: `fxdsl.compile(..., cuda_graph=True)` (CUDA graphs
  around the GEMMs, see `fxdsl.runtime.cuda_graph`).
* `fxdsl-flash-v1` (attention workloads): the first tensor-core attention
  kernel (`convert-graph-to-gpu{flash-pipeline=false}`: plain loads, both
  tiles staged before any mma), timed beside the pipelined default.
* `fxdsl-split-k`, `fxdsl-split-k-cudagraph` (only for workloads of few-row
  GEMMs): the default pipeline with `graph-split-k` after
  `graph-decompose`, without and with CUDA graphs.
* `torch-eager`, `torch-compile`, `torch-compile-reduce-overhead` (only for
  launch-bound workloads), `torch-compile-max-autotune` (only for the GEMM
  workloads: Inductor's Triton GEMMs with the epilogue fused, against
  fxdsl's cuBLAS GEMM + fused epilogue kernel): the workload's torch
  implementation.
* `torch-addmm-activation` (only for GEMM + bias + GELU/ReLU workloads):
  `torch._addmm_activation`, which on CUDA is one cuBLASLt call with the bias
  and the activation fused as its epilogue (the cuBLASLt-epilogue study).
* On CUDA the fxdsl variants run a convolution's GEMMs in TF32
  (`conv_tf32=True`), as the torch variants' convolutions do by default
  (`torch.backends.cudnn.allow_tf32`); other f32 GEMMs stay f32 on both
  sides (`float32_matmul_precision` "highest").
* Torch variants get each input in its argument's type (bf16 as
  `torch.bfloat16`) and hand back float32 arrays for bf16 outputs.
* `copy`: a device-to-device copy moving as many bytes as the workload must
  (read `bytes_moved / 2`, write as much): the bandwidth ceiling.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from fxdsl.bench.timing import CudaDevice, Device, time_events, torch_events
from fxdsl.bench.workloads import (
    Dims,
    Workload,
    argument_elements,
    bytes_moved,
    result_elements,
)
from fxdsl.frontends.aten_attention_grad import CUDA_FORWARDS
from fxdsl.frontends.aten_attention_grad import FORWARD as SDPA_CPU_FORWARD

# the executor's own conversions (numpy here), the one definition of bf16 bits
from fxdsl.ir.dtypes import bf16_bits, from_bf16_bits
from fxdsl.lowering.pipeline import GPU_PIPELINE, with_split_k
from fxdsl.runtime.compile import DEFAULT_PIPELINE
from fxdsl.util.pipeline_syntax import with_options, without_pass

Timer = Callable[[Callable[[], Any], int, int], list[float]]


class Skipped(Exception):
    """The variant does not run here; the message says why."""


@dataclass
class Compiled:
    """A variant ready to run: `fn(*inputs(arrays))` computes the outputs."""

    fn: Callable[..., Any]
    inputs: Callable[[Sequence[np.ndarray]], list[Any]]
    outputs: Callable[[Any], list[np.ndarray]]
    timer: Timer
    synchronize: Callable[[], None] = lambda: None


@dataclass(frozen=True)
class Variant:
    """One way of running a workload (see the module docstring)."""

    name: str
    compile: Callable[[Device, Workload, ModuleOp, Dims], Compiled]
    compiles: bool = True
    """Report compile time (cold and warm cache)."""
    checked: bool = True
    """Compare its outputs with the CPU reference."""
    kernel_pipeline: str | None = None
    """Pipeline whose lowering counts this variant's kernels (fxdsl only)."""
    applies: Callable[[Workload], bool] = field(default=lambda _w: True)


def without_fuse(pipeline: str) -> str:
    """`pipeline` without fusion: its `graph-fuse` and `graph-fuse-attention`
    steps removed (one kernel or library call per op)."""
    return without_pass(without_pass(pipeline, "graph-fuse"), "graph-fuse-attention")


def _tuple(result: Any) -> tuple[Any, ...]:
    return tuple(result) if isinstance(result, tuple | list) else (result,)


# --------------------------------------------------------------------------- #
# fxdsl
# --------------------------------------------------------------------------- #


def _fxdsl(
    pipelines: dict[str, str | None], **options: Any
) -> Callable[[Device, Workload, ModuleOp, Dims], Compiled]:
    def compile(device: Device, _w: Workload, module: ModuleOp, _d: Dims) -> Compiled:
        import fxdsl

        # the device holds bf16 as bits: hand them over and take them back
        # as such on CUDA, so no conversion kernel is timed and the same
        # input arrays replay one CUDA graph (torch gets bf16 tensors)
        arguments = argument_elements(module)
        bits = device.name == "cuda" and "bf16" in arguments + result_elements(module)
        if options.get("cuda_graph") and device.name != "cuda":
            raise Skipped("CUDA graphs only apply to backend cuda")
        cuda = {"conv_tf32": True} if device.name == "cuda" else {}
        fn = fxdsl.compile(
            module,
            backend=device.name,
            pipeline=pipelines[device.name],
            **options,
            **cuda,
            **({"bf16_bits": True} if bits else {}),
        )

        def inputs(arrays: Sequence[np.ndarray]) -> list[Any]:
            held = [
                bf16_bits(a) if bits and element == "bf16" else a
                for a, element in zip(arrays, arguments, strict=True)
            ]
            return [device.to_device(a) for a in held]

        def outputs(out: Any) -> list[np.ndarray]:
            host = [device.to_host(o) for o in _tuple(out)]
            return [from_bf16_bits(h) if h.dtype == np.uint16 else h for h in host]

        return Compiled(
            fn,
            inputs=inputs if bits else (lambda a: [device.to_device(x) for x in a]),
            outputs=outputs,
            timer=device.time,
            synchronize=device.synchronize,
        )

    return compile


# --------------------------------------------------------------------------- #
# torch
# --------------------------------------------------------------------------- #


def _import_torch() -> Any:
    try:
        import torch
    except ImportError as error:
        raise Skipped(f"torch is not importable ({error})") from error
    return torch


def _addmm_activation(w: Workload) -> Callable[[Dims], Callable[..., Any]]:
    """`x @ w + b` and the workload's activation in one `_addmm_activation`."""

    def build(_d: Dims) -> Callable[..., Any]:
        import torch

        gelu = w.epilogue == "gelu"  # tanh GELU, as cuBLASLt's epilogue
        return lambda x, w, b: torch._addmm_activation(b, x, w, use_gelu=gelu)

    return build


SDPA_IN_TORCH = {
    "torch_executed_ops": [
        f"aten.{name}" for name in (*CUDA_FORWARDS, SDPA_CPU_FORWARD)
    ]
}
"""The backend's options that leave attention to torch's own kernels (the
fused ones SDPA dispatches to: FlashAttention, memory-efficient, cuDNN on
a GPU, the flash kernel on the CPU): the alternative to fxdsl's attention
that issue 31 asks the default be chosen against."""


def _torch(
    mode: str | None,
    *,
    compiled: bool,
    backend: str = "inductor",
    function: Callable[[Workload], Callable[[Dims], Callable[..., Any]]] = (
        lambda w: w.torch_fn
    ),
    cuda_graph: bool = False,
    options: dict[str, Any] | None = None,
) -> Callable[[Device, Workload, ModuleOp, Dims], Compiled]:
    """torch eager, or `torch.compile` with `backend` (fxdsl's own backend
    runs on the CPU too: its islands then run on the reference; with
    `cuda_graph`, its islands replay as CUDA graphs), of the workload's
    `function` (default: its torch implementation)."""

    def compile(device: Device, w: Workload, m: ModuleOp, dims: Dims) -> Compiled:
        torch = _import_torch()
        inductor = backend == "inductor"
        if compiled and inductor and not isinstance(device, CudaDevice):
            raise Skipped("torch.compile is only timed on backend cuda")
        fn = function(w)(dims)
        if compiled:
            # a fresh dynamo state, so each compile really compiles
            torch._dynamo.reset()
            given = None if inductor else {"device": device.name, **(options or {})}
            if cuda_graph and given is not None:
                given["cuda_graph"] = True
            fn = torch.compile(fn, mode=mode, backend=backend, options=given)
        if mode == "reduce-overhead":
            # CUDA-graph outputs are reused by the next replay; say so.
            graph_fn = fn

            def fn(*args: Any) -> Any:
                torch.compiler.cudagraph_mark_step_begin()
                return graph_fn(*args)

        target = device.name
        if isinstance(device, CudaDevice):
            api = torch_events(device)
            timer: Timer = lambda run, runs, warmup: time_events(run, api, runs, warmup)
            sync = torch.cuda.synchronize
        else:
            timer, sync = device.time, (lambda: None)

        def outputs(out: Any) -> list[np.ndarray]:
            wide = lambda o: o.float() if o.dtype == torch.bfloat16 else o
            return [wide(o.detach()).cpu().numpy() for o in _tuple(out)]

        types = {"bf16": torch.bfloat16, "f16": torch.float16}
        elements = argument_elements(m)

        def inputs(arrays: Sequence[np.ndarray]) -> list[Any]:
            return [
                torch.from_numpy(a).to(target, types.get(element))
                for a, element in zip(arrays, elements, strict=True)
            ]

        return Compiled(
            fn,
            inputs=inputs,
            outputs=outputs,
            timer=timer,
            synchronize=sync,
        )

    return compile


# --------------------------------------------------------------------------- #
# copy
# --------------------------------------------------------------------------- #


def copy_bytes(module: ModuleOp) -> int:
    """Bytes the copy baseline copies: it reads and writes them, so it moves
    `bytes_moved(module)` in all."""
    return bytes_moved(module) // 2


def _copy(device: Device, _w: Workload, module: ModuleOp, _d: Dims) -> Compiled:
    copy = device.copy_fn(copy_bytes(module))
    return Compiled(
        lambda: copy(),
        inputs=lambda _arrays: [],
        outputs=lambda _out: [],
        timer=device.time,
        synchronize=device.synchronize,
    )


def default_variants() -> list[Variant]:
    """Every variant, in report order."""
    fused: dict[str, str | None] = {"cuda": None, "cpu": None}

    def edited(edit: Callable[[str], str]) -> dict[str, str | None]:
        """Both backends' default pipelines, edited the same way."""
        return {"cuda": edit(GPU_PIPELINE), "cpu": edit(DEFAULT_PIPELINE)}

    unfused = edited(without_fuse)
    unfused_attention = edited(lambda p: without_pass(p, "graph-fuse-attention"))
    unfolded_bias = edited(
        lambda p: with_options(p, "graph-fuse-attention", fold_bias=False)
    )
    split_k = edited(with_split_k)
    first_flash = edited(
        lambda p: with_options(p, "convert-graph-to-gpu", flash_pipeline=False)
    )

    def fxdsl(
        name: str,
        pipelines: dict[str, str | None],
        applies: Callable[[Workload], bool] = lambda _w: True,
        cuda_graph: bool = False,
    ) -> Variant:
        """fxdsl compiled with `pipelines`; its kernels counted in the
        lowering of its CUDA pipeline (None: the default)."""
        options = {"cuda_graph": True} if cuda_graph else {}
        return Variant(
            name,
            _fxdsl(pipelines, **options),
            kernel_pipeline=pipelines["cuda"] or GPU_PIPELINE,
            applies=applies,
        )

    return [
        fxdsl("fxdsl", fused),
        fxdsl("fxdsl-unfused", unfused),
        fxdsl("fxdsl-unfused-attention", unfused_attention, lambda w: w.attention),
        fxdsl("fxdsl-bias-unfolded", unfolded_bias, lambda w: w.attention),
        fxdsl("fxdsl-flash-v1", first_flash, lambda w: w.torch_attention),
        fxdsl("fxdsl-split-k", split_k, lambda w: w.skinny),
        fxdsl("fxdsl-cudagraph", fused, cuda_graph=True),
        fxdsl("fxdsl-split-k-cudagraph", split_k, lambda w: w.skinny, cuda_graph=True),
        Variant("fxdsl-backend", _torch(None, compiled=True, backend="fxdsl")),
        Variant(
            "fxdsl-backend-cudagraph",
            _torch(None, compiled=True, backend="fxdsl", cuda_graph=True),
            applies=lambda w: w.reduce_overhead,
        ),
        Variant(
            "fxdsl-backend-sdpa",
            _torch(None, compiled=True, backend="fxdsl", options=SDPA_IN_TORCH),
            applies=lambda w: w.torch_attention,
        ),
        Variant("torch-eager", _torch(None, compiled=False), compiles=False),
        Variant("torch-compile", _torch(None, compiled=True)),
        Variant(
            "torch-compile-reduce-overhead",
            _torch("reduce-overhead", compiled=True),
            applies=lambda w: w.reduce_overhead,
        ),
        Variant(
            "torch-compile-max-autotune",
            _torch("max-autotune-no-cudagraphs", compiled=True),
            applies=lambda w: w.max_autotune,
        ),
        Variant(
            "torch-addmm-activation",
            _torch(None, compiled=False, function=_addmm_activation),
            compiles=False,
            applies=lambda w: w.epilogue is not None,
        ),
        Variant("copy", _copy, compiles=False, checked=False),
    ]


TORCH_PREFIX = "torch-"
