"""The opt-in tensor-core GEMM route of the CUDA executor
(`compile_cuda(..., gemm="tensor-core")`): each bf16/f16 GEMM step of a
launch plan runs fxdsl's own kernel (`fxdsl.lowering.tensor_core_gemm`)
instead of cuBLAS. cuBLAS stays the default: this kernel's speed has not
been measured on a GPU, and it is the plain form of the algorithm.

`plan_gemms(plan)` names one kernel per routed step (its views baked in);
`build_gemms` compiles them as one translation unit through the same
compiler and on-disk cache as the plan's own kernels. cuda-sim has the
same route for a lowered module (`CudaSimEmulator(gemm="tensor-core")`).
"""

from __future__ import annotations

from fxdsl.lowering.launch_plan import Gemm, LaunchPlan
from fxdsl.lowering.tensor_core_gemm import (
    TENSOR_CORE_ELEMENTS,
    GemmShape,
    gemm_of_views,
    gemm_source,
)
from fxdsl.runtime.kernel_build import COMPILE_OPTIONS
from fxdsl.runtime.kernel_cache import KernelCache
from fxdsl.runtime.nvrtc import Compiler, default_compiler

Routed = dict[Gemm, tuple[str, GemmShape]]
"""GEMM step -> (kernel name, shape) of its tensor-core kernel."""


def plan_gemms(plan: LaunchPlan) -> Routed:
    """The plan's bf16/f16 GEMM steps, each with its kernel (equal steps
    share one)."""
    routed: Routed = {}
    for step in plan.steps:
        if not isinstance(step, Gemm) or step in routed:
            continue
        element, result = plan.gemm_types(step)
        if element in TENSOR_CORE_ELEMENTS:
            views = (step.lhs.layout, step.rhs.layout, step.out.layout)
            name = f"fx_tc_gemm_{len(routed)}"
            routed[step] = (name, gemm_of_views(*views, element, result))
    return routed


def build_gemms(
    routed: Routed,
    arch: str,
    compiler: Compiler | None = None,
    cache: KernelCache | None = None,
) -> bytes:
    """The cubin of every routed kernel (one compile, cached like the
    plan's kernels; a compile error propagates: there is no host fallback
    for a GEMM route the caller asked for)."""
    compiler = compiler or default_compiler()
    cache = cache if cache is not None else KernelCache()
    source = gemm_source(dict(routed.values()))
    key_options = (*COMPILE_OPTIONS, f"compiler={compiler.identity}")

    def run() -> bytes:
        return compiler(source, arch, COMPILE_OPTIONS)

    return cache.get_or_compile(source, arch, key_options, run)
