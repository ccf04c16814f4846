"""Run a lowered module on an NVIDIA GPU through CuPy (imported lazily).

`compile_cuda(module)` lowers a clone (default pipeline `GPU_PIPELINE`),
builds the launch plan once, compiles the `gpu.module`'s CUDA C once as one
`cupy.RawModule`, and returns a `CudaExecutor`: calling it checks the inputs
against the plan (a `ValueError` naming the argument, the expected and the
actual shape/dtype), uploads them, replays the plan's steps (kernel launches
with the base pointers of their buffers; GEMMs as `cupy.matmul` on the plan's
strided views) and returns the outputs as CuPy arrays.

bf16 buffers hold raw bf16 bits on the device (`uint16`); inputs and outputs
are converted at the boundary (values as float32, rounded to bf16).

Status: written without a GPU in this session; its `gpu`-marked tests in
tests/lowering/test_gpu_execution.py have not run yet.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp

from fxdsl.interpreters.dtypes import round_to_bf16
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.lowering.pipeline import GPU_PIPELINE
from fxdsl.runtime.launch_plan import (
    BufferSpec,
    BufferView,
    Gemm,
    Launch,
    LaunchPlan,
    build_launch_plan,
)

COMPILE_OPTIONS = ("--std=c++17",)
STATS = {"compiles": 0}
"""Process-wide counters (`compiles`: CUDA modules compiled)."""


def stats() -> dict[str, int]:
    """A copy of the runtime counters."""
    return dict(STATS)


def _device_dtype(spec: BufferSpec) -> str:
    return "uint16" if spec.element == "bf16" else spec.dtype


def _to_bf16_bits(array: Any) -> Any:
    host = round_to_bf16(np.asarray(array, dtype=np.float32))
    return (host.view(np.uint32) >> 16).astype(np.uint16)


def _from_bf16_bits(cp: Any, bits: Any) -> Any:
    return (bits.astype(cp.uint32) << 16).view(cp.float32)


class CudaExecutor:
    """A compiled host function: `executor(*inputs) -> tuple of CuPy arrays`."""

    def __init__(self, plan: LaunchPlan, source: str):
        import cupy

        self.cp = cupy
        self.plan = plan
        self.kernels: dict[str, Any] = {}
        if plan.kernels:
            module = cupy.RawModule(code=source, options=COMPILE_OPTIONS)
            self.kernels = {name: module.get_function(name) for name in plan.kernels}
            STATS["compiles"] += 1
        returned = {view.slot for view in plan.outputs}
        # intermediates are allocated once; outputs fresh per call (no aliasing)
        self.scratch = {
            slot: self._empty(spec)
            for slot, spec in enumerate(plan.buffers)
            if slot >= plan.num_inputs and slot not in returned
        }

    def _empty(self, spec: BufferSpec) -> Any:
        return self.cp.zeros(spec.size, dtype=_device_dtype(spec))

    def _upload(self, index: int, value: Any) -> Any:
        spec = self.plan.buffers[index]
        array = value
        if not isinstance(value, np.ndarray | self.cp.ndarray) and hasattr(
            value, "__dlpack__"
        ):
            array = self.cp.from_dlpack(value)  # torch tensors etc., zero-copy
        shape = tuple(getattr(array, "shape", ()))
        dtype = np.dtype(getattr(array, "dtype", type(value)))
        if shape != spec.shape or dtype != np.dtype(spec.dtype):
            raise ValueError(
                f"argument {index} of @{self.plan.function}: expected "
                f"{spec.shape} {spec.element}, got {shape} {dtype}"
            )
        if spec.element == "bf16":
            return self.cp.asarray(_to_bf16_bits(self.cp.asnumpy(array))).reshape(-1)
        return self.cp.ascontiguousarray(self.cp.asarray(array)).reshape(-1)

    def _view(self, buffers: list[Any], view: BufferView) -> Any:
        flat = buffers[view.slot]
        if self.plan.buffers[view.slot].element == "bf16":
            flat = _from_bf16_bits(self.cp, flat)
        item = flat.itemsize
        return self.cp.lib.stride_tricks.as_strided(
            flat[view.layout.offset :],
            view.layout.shape,
            tuple(s * item for s in view.layout.strides),
        )

    def __call__(self, *inputs: Any) -> tuple[Any, ...]:
        plan = self.plan
        if len(inputs) != plan.num_inputs:
            raise ValueError(
                f"@{plan.function} takes {plan.num_inputs} arguments, got {len(inputs)}"
            )
        buffers: list[Any] = [None] * len(plan.buffers)
        for index, value in enumerate(inputs):
            buffers[index] = self._upload(index, value)
        for slot, spec in enumerate(plan.buffers):
            if buffers[slot] is None:
                buffers[slot] = self.scratch.get(slot)
            if buffers[slot] is None:
                buffers[slot] = self._empty(spec)
        for step in plan.steps:
            if isinstance(step, Launch):
                args = tuple(buffers[a] for a in step.args)
                self.kernels[step.kernel](step.grid, step.block, args)
            else:
                self._gemm(step, buffers)
        return tuple(
            self.cp.ascontiguousarray(self._view(buffers, v)) for v in plan.outputs
        )

    def _gemm(self, step: Gemm, buffers: list[Any]) -> None:
        lhs, rhs = self._view(buffers, step.lhs), self._view(buffers, step.rhs)
        out = self._view(buffers, step.out)
        product = self.cp.matmul(lhs, rhs)
        if self.plan.buffers[step.out.slot].element == "bf16":
            bits = _to_bf16_bits(self.cp.asnumpy(product)).reshape(-1)
            flat = buffers[step.out.slot]
            flat[...] = self.cp.asarray(bits)
        else:
            out[...] = product


def compile_cuda(
    module: ModuleOp, pipeline: str | None = None, entry: str | None = None
) -> Callable[..., tuple[Any, ...]]:
    """Lower a clone of `module` and return its `CudaExecutor`."""
    from fxdsl.api import apply

    spec = pipeline or GPU_PIPELINE
    if "convert-graph-to-gpu" not in spec.split(","):
        spec += ",convert-graph-to-gpu"  # a user pipeline of graph passes
    lowered = apply(module.clone(), spec)
    plan = build_launch_plan(lowered, entry)
    source = kernel_source(lowered) if plan.kernels else ""
    return CudaExecutor(plan, source)
