"""The two CPU checks of a module's GPU kernels that tests share: its CUDA
C through `nvcc -ptx -arch=sm_90`, and run on cuda-sim (sanitizers on)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def compile_module_ptx(module: Any, directory: Path, name: str) -> str:
    """`module` lowered for CUDA and its kernels compiled to PTX."""
    from fxdsl.lowering.cuda_printer import kernel_source
    from fxdsl.pipeline.lower import lower_for_cuda
    from fxdsl.testing.nvcc import compile_ptx

    lowered, _ = lower_for_cuda(module)
    return compile_ptx(kernel_source(lowered), directory, name)


def run_on_cuda_sim(module: Any, *arrays: Any) -> list[Any]:
    """`module`'s entry run on cuda-sim; the simulator is closed after."""
    from fxdsl.runtime.cuda_sim import CudaSimProgram

    program = CudaSimProgram(module)
    try:
        return list(program(*arrays))
    finally:
        program.close()
