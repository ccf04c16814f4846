"""Run a lowered module on an NVIDIA GPU through CuPy (imported lazily).

`compile_cuda(module)` lowers a clone (default pipeline `GPU_PIPELINE`),
builds the launch plan once, compiles the `gpu.module`'s CUDA C once to a
cubin for the device's arch (`fxdsl.runtime.kernel_build`: NVRTC, else nvcc,
through the on-disk kernel cache, so a second process compiles nothing),
loads it (`cupy.RawModule(path=...)`), and returns a `CudaExecutor`: calling
it checks the inputs against the plan (a `ValueError` naming the argument,
the expected and the actual shape/dtype), uploads them, replays the plan's
steps (kernel launches with the base pointers of their buffers; f32, f16
and bf16 GEMMs through cuBLAS directly, `fxdsl.runtime.cublas`, on the
buffers as they are; `cupy.matmul` on the plan's strided views only for
other element types, or, with a `CublasFallbackWarning` and the reason in
`executor.matmul_fallback`, where the library cannot be loaded) and returns
the outputs as CuPy arrays. `tf32=True` lets f32 GEMMs use TF32 tensor cores
(the torch backend passes it for `torch.get_float32_matmul_precision()`
"high" or "medium", as torch's own matmuls do). A kernel
that does not compile runs on the host (`HostKernel`: the IR emulator on
copies of its buffers) after one warning naming it.

bf16 buffers hold raw bf16 bits on the device (`uint16`). A bf16 argument
takes float32 values (rounded to bf16 on the device, into a fresh buffer) or
the `uint16` bits themselves (used as they are, like any input of the
compiled type: torch's `tensor.view(torch.uint16)`, so a CUDA graph keyed by
input addresses replays); bf16 outputs are float32 values, or with
`bf16_bits=True` the `uint16` bits (`.view(torch.bfloat16)` on the torch side).

Verified on an H100 (CuPy 14.2, NVRTC): the `gpu`-marked tests in
tests/lowering/test_gpu_execution.py (every op theme, every graph-fuse case,
200 random graphs, GPT-2 block and 12-block stack, cache, guard, fallback).
Without a GPU the host logic runs against a numpy-backed stand-in for CuPy
whose kernels run in the IR emulator (tests/lowering/test_executor_on_cpu.py)
and the generated CUDA C is compiled with `nvcc`.

`cuda_graph=True` wraps the executor in `fxdsl.runtime.cuda_graph`.
"""

from __future__ import annotations

import tempfile
import warnings
from collections.abc import Callable
from math import prod
from operator import itemgetter
from pathlib import Path
from typing import Any

import numpy as np
from xdsl.dialects.builtin import BFloat16Type, MemRefType, ModuleOp

from fxdsl.ir.dtypes import bf16_bits, from_bf16_bits
from fxdsl.lowering.launch_plan import (
    BufferSpec,
    BufferView,
    Gemm,
    Launch,
    LaunchPlan,
    Solve,
    device_address,
)
from fxdsl.lowering.tensor_core_gemm import GEMM_ROUTES, GemmShape
from fxdsl.pipeline.lower import lower_for_cuda
from fxdsl.runtime import counters, cublas
from fxdsl.runtime.counters import stats
from fxdsl.runtime.cublas import Cublas
from fxdsl.runtime.cuda_graph import GraphedExecutor
from fxdsl.runtime.ir_emulator import Emulator
from fxdsl.runtime.kernel_build import build_kernels
from fxdsl.runtime.kernel_cache import KernelCache
from fxdsl.runtime.nvrtc import Compiler, device_arch
from fxdsl.runtime.solvers import run_solve
from fxdsl.runtime.tensor_core_gemm import build_gemms, plan_gemms

__all__ = [
    "CublasFallbackWarning",
    "CudaExecutor",
    "HostKernel",
    "compile_cuda",
    "stats",
]


class CublasFallbackWarning(RuntimeWarning):
    """GEMMs the direct cuBLAS binding would run go through `cupy.matmul`
    (the library could not be loaded): about 63 µs of Python each, and
    every one cuts a CUDA graph in two."""


def _device_dtype(spec: BufferSpec) -> str:
    return "uint16" if spec.element == "bf16" else spec.dtype


class HostKernel:
    """A kernel that failed to compile, launched on the host: its buffers are
    copied to numpy (bf16 bits widened to float32), the `gpu.func` runs in the
    IR emulator (every thread, exact IR semantics) and the buffers are copied
    back. Correct, but a device->host->device round trip of every argument
    plus pure-Python execution (about a second per 100k element-ops)."""

    def __init__(self, cp: Any, emulator: Emulator, name: str):
        self.cp, self.emulator, self.name = cp, emulator, name
        arguments = emulator.kernels[name].body.block.args
        self.bf16 = [
            isinstance(a.type, MemRefType)
            and isinstance(a.type.element_type, BFloat16Type)
            for a in arguments
        ]

    def __call__(
        self, grid: tuple[int, ...], block: tuple[int, ...], args: tuple[Any, ...]
    ) -> None:
        # one host copy per device buffer: aliased arguments stay aliased
        copies: dict[int, tuple[Any, np.ndarray, bool]] = {}
        for device, bf16 in zip(args, self.bf16):
            if id(device) not in copies:  # flat, as the kernel indexes it
                host = np.array(self.cp.asnumpy(device)).reshape(-1)
                host = from_bf16_bits(host) if bf16 else host
                copies[id(device)] = (device, host, bf16)
        buffers = [copies[id(device)][1] for device in args]
        self.emulator.launch(self.name, prod(grid), prod(block), buffers)
        for device, host, bf16 in copies.values():
            back = self.cp.asarray(bf16_bits(host) if bf16 else host)
            device[...] = back.reshape(device.shape)


def _load_cubin(
    cp: Any, cubin: bytes, names: tuple[str, ...]
) -> tuple[dict[str, Any], tempfile.TemporaryDirectory[str]]:
    """Kernel handles of a cubin, through the documented `RawModule(path=)`.
    The file lives as long as the executor (CuPy may reload it per device)."""
    folder = tempfile.TemporaryDirectory(prefix="fxdsl-cubin-")
    path = Path(folder.name) / "kernels.cubin"
    path.write_bytes(cubin)
    module = cp.RawModule(path=str(path))
    kernels = {name: module.get_function(name) for name in names}
    counters.count("modules_loaded")
    return kernels, folder


class CudaExecutor:
    """A compiled host function: `executor(*inputs) -> tuple of CuPy arrays`.
    `kernels` maps each kernel name of the plan to a launcher
    `(grid, block, args) -> None` (a CuPy kernel or a `HostKernel`).

    Per-call host work is kept to the guard and the launches (measured by
    `benchmarks/bench_host.py` with no-op launchers): a device array that
    already has the compiled shape, dtype, contiguity and 16-byte alignment
    is used as is; the buffer list starts from a template holding the
    scratch buffers; each step is a closure with its argument picker built once."""

    def __init__(
        self,
        plan: LaunchPlan,
        kernels: dict[str, Any],
        keep_alive: Any = None,
        *,
        tf32: bool = False,
        bf16_bits: bool = False,
        gemm_kernels: dict[Gemm, tuple[Any, GemmShape]] | None = None,
        conv_tf32: bool | None = None,
    ):
        import cupy  # type: ignore[import-not-found]

        self.cp = cupy
        self.plan = plan
        self.tf32 = tf32
        """f32 GEMMs may use TF32 tensor cores (cuBLAS's math mode)"""
        self.conv_tf32 = tf32 if conv_tf32 is None else conv_tf32
        """the same for a convolution's GEMMs (`Gemm.conv`; None: `tf32`)"""
        self.bf16_bits = bf16_bits
        """bf16 outputs as their `uint16` bits (default: float32 values)"""
        self.gemm_kernels = gemm_kernels or {}
        """GEMM step -> (launcher, shape) of the steps routed to fxdsl's
        tensor-core kernel (`gemm="tensor-core"`), not cuBLAS"""
        self.kernels = kernels
        self._keep_alive = keep_alive  # the cubin file CuPy loaded
        missing = [name for name in plan.kernels if name not in kernels]
        if missing:
            raise ValueError(f"no launcher for kernels {', '.join(missing)}")
        self._scratch_views: dict[BufferView, Any] = {}
        direct = [s for s in plan.steps if isinstance(s, Gemm) and self.direct_gemm(s)]
        self.blas = Cublas.create(cupy) if direct else None
        """Direct cuBLAS for f32/f16/bf16 GEMMs (`fxdsl.runtime.cublas`);
        None: cupy.matmul"""
        self.matmul_fallback: str | None = None
        """Why GEMMs cuBLAS could take run through `cupy.matmul` (None: none do)"""
        if direct and self.blas is None:
            self.matmul_fallback = cublas.unavailable or "cuBLAS unavailable"
            warnings.warn(
                f"@{plan.function}: {len(direct)} GEMMs run through cupy.matmul, "
                f"not cuBLAS directly ({self.matmul_fallback}): slower, and each "
                "one cuts a CUDA graph",
                CublasFallbackWarning,
                stacklevel=2,
            )
        returned = {view.slot for view in plan.outputs}
        # constants are uploaded once; intermediates allocated once; outputs
        # fresh per call (no aliasing)
        self.constants = {
            slot: self._constant(plan.buffers[slot], values)
            for slot, values in plan.constants
        }
        self.scratch = {
            slot: self._empty(spec)
            for slot, spec in enumerate(plan.buffers)
            if slot >= plan.num_inputs
            and slot not in returned
            and slot not in self.constants
        }
        self.scratch.update(self.constants)
        slots = range(len(plan.buffers))
        self._template: list[Any] = [self.scratch.get(s) for s in slots]
        self._fresh = [
            (slot, spec.size, _device_dtype(spec))
            for slot, spec in enumerate(plan.buffers)
            if slot >= plan.num_inputs and slot not in self.scratch
        ]
        """(slot, size, dtype) of the buffers allocated on every call"""
        self._as_is = [
            (spec.shape, np.dtype(_device_dtype(spec)))
            for spec in plan.buffers[: plan.num_inputs]
        ]
        """per input: the (shape, dtype) a device array can be used as is
        (bf16: its uint16 bits)"""
        self._program = [self.runner(step) for step in plan.steps]

    def runner(self, step: Launch | Gemm | Solve) -> Callable[[list[Any]], None]:
        """`step` as a function of the buffer list of one call (`bind`):
        the launch with its argument picker, the GEMM, or the solver call."""
        if isinstance(step, Solve):
            return lambda buffers: self._solve(step, buffers)
        if isinstance(step, Gemm) and step in self.gemm_kernels:
            tc_kernel, shape = self.gemm_kernels[step]
            operands = itemgetter(step.lhs.slot, step.rhs.slot, step.out.slot)
            grid, block = shape.grid, shape.block  # views are in the kernel
            return lambda buffers: tc_kernel(grid, block, operands(buffers))
        if isinstance(step, Gemm) and self.blas is not None and self.direct_gemm(step):
            gemm, params = self.blas.gemm, step.cublas
            element, result = self.plan.gemm_types(step)
            tf32 = self.conv_tf32 if step.conv else self.tf32
            first, second, out = step.rhs.slot, step.lhs.slot, step.out.slot
            return lambda buffers: gemm(
                params,
                element,
                device_address(buffers[first]),
                device_address(buffers[second]),
                device_address(buffers[out]),
                tf32,
                result,
            )
        if isinstance(step, Gemm):
            return lambda buffers: self._gemm(step, buffers)
        kernel, grid, block = self.kernels[step.kernel], step.grid, step.block
        slots = step.args
        if len(slots) == 1:
            (slot,) = slots
            return lambda buffers: kernel(grid, block, (buffers[slot],))
        pick = itemgetter(*slots)
        return lambda buffers: kernel(grid, block, pick(buffers))

    def _empty(self, spec: BufferSpec) -> Any:
        return self.cp.zeros(spec.size, dtype=_device_dtype(spec))

    def _constant(self, spec: BufferSpec, values: np.ndarray) -> Any:
        """A constant's device buffer (bf16: its bits), filled once."""
        if spec.element == "bf16":
            return self.cp.asarray(bf16_bits(values))
        return self.cp.asarray(values)

    def _upload(self, index: int, value: Any) -> Any:
        as_is = self._as_is[index]
        if (
            type(value) is self.cp.ndarray
            and value.shape == as_is[0]
            and value.dtype == as_is[1]
            and value.flags.c_contiguous
            and device_address(value) % 16 == 0
        ):
            return value  # the fast path: nothing to check further or copy
        spec = self.plan.buffers[index]
        array = value
        if not isinstance(value, np.ndarray | self.cp.ndarray) and hasattr(
            value, "__dlpack__"
        ):
            if getattr(value, "requires_grad", False):
                value = value.detach()  # DLPack refuses a tensor that needs grad
            array = self.cp.from_dlpack(value)  # torch tensors etc., zero-copy
        shape = tuple(getattr(array, "shape", ()))
        dtype = np.dtype(getattr(array, "dtype", type(value)))
        bits = spec.element == "bf16" and dtype == np.uint16  # as the device holds
        if shape != spec.shape or (dtype != np.dtype(spec.dtype) and not bits):
            raise ValueError(
                f"argument {index} of @{self.plan.function}: expected "
                f"{spec.shape} {spec.element}, got {shape} {dtype}"
            )
        if spec.element == "bf16" and not bits:
            return bf16_bits(self.cp.asarray(array), self.cp).reshape(-1)
        flat = self.cp.ascontiguousarray(self.cp.asarray(array)).reshape(-1)
        if device_address(flat) % 16:  # kernels read f32 buffers as float4s
            flat = flat.copy()
        return flat

    def _view(self, buffers: list[Any], view: BufferView) -> Any:
        """`view` of its buffer; views of scratch buffers (fixed for the
        executor's life) are built once, not on every call."""
        cacheable = view.slot in self.scratch and not self._is_bf16(view.slot)
        if cacheable and view in self._scratch_views:
            return self._scratch_views[view]
        array = self._make_view(buffers, view)
        if cacheable:
            self._scratch_views[view] = array
        return array

    def _is_bf16(self, slot: int) -> bool:
        return self.plan.buffers[slot].element == "bf16"

    def _make_view(
        self, buffers: list[Any], view: BufferView, bits: bool = False
    ) -> Any:
        """`view` of its buffer; a bf16 buffer as float32 values (a copy), or
        with `bits` as the `uint16` bits it holds (writable in place)."""
        flat = buffers[view.slot].reshape(-1)  # inputs keep their shape
        if self._is_bf16(view.slot) and not bits:
            flat = from_bf16_bits(flat, self.cp)
        item = flat.itemsize
        return self.cp.lib.stride_tricks.as_strided(
            flat[view.layout.offset :],
            view.layout.shape,
            tuple(s * item for s in view.layout.strides),
        )

    def __call__(self, *inputs: Any) -> tuple[Any, ...]:
        buffers = self.bind(self.upload(inputs))
        self.run(buffers)
        return self.outputs(buffers)

    def run(self, buffers: list[Any]) -> None:
        """Every step of the plan on the buffers of one call (`bind`)."""
        for step in self._program:
            step(buffers)

    def upload(self, inputs: tuple[Any, ...]) -> list[Any]:
        """The call's inputs checked against the plan (a `ValueError` naming
        the argument) and on the device, in the form the kernels read."""
        plan = self.plan
        if len(inputs) != plan.num_inputs:
            raise ValueError(
                f"@{plan.function} takes {plan.num_inputs} arguments, got {len(inputs)}"
            )
        return [self._upload(index, value) for index, value in enumerate(inputs)]

    def bind(self, uploaded: list[Any]) -> list[Any]:
        """Every buffer of one call: the uploaded inputs, the scratch
        buffers, fresh outputs (every element of an output is written)."""
        buffers = self._template.copy()
        buffers[: len(uploaded)] = uploaded
        empty = self.cp.empty
        for slot, size, dtype in self._fresh:
            buffers[slot] = empty(size, dtype=dtype)
        return buffers

    def outputs(self, buffers: list[Any]) -> tuple[Any, ...]:
        if self.bf16_bits:
            views = [self._make_view(buffers, v, bits=True) for v in self.plan.outputs]
        else:
            views = [self._view(buffers, v) for v in self.plan.outputs]
        return tuple(self.cp.ascontiguousarray(view) for view in views)

    def direct_gemm(self, step: Gemm) -> bool:
        """Does the direct binding take `step` (f32, f16 or bf16 buffers, not
        routed to the tensor-core kernel)?"""
        if step in self.gemm_kernels:
            return False
        return self.plan.gemm_element(step) in cublas.DATA_TYPES

    def capturable(self, step: Launch | Gemm | Solve) -> bool:
        """Can `step` be recorded in a CUDA graph (see `cuda_graph`)? Not a
        solver call: CuPy's cuSOLVER routines read their status on the host."""
        if isinstance(step, Solve):
            return False
        if isinstance(step, Launch):
            return not isinstance(self.kernels[step.kernel], HostKernel)
        if step in self.gemm_kernels:  # a kernel launch like any other
            return True
        return self.blas is not None and self.direct_gemm(step)

    def _solve(self, step: Solve, buffers: list[Any]) -> None:
        """A linear-algebra step (`fxdsl.runtime.solvers`) into its buffers."""
        inputs = [self._view(buffers, view) for view in step.inputs]
        results = run_solve(self.cp, step, inputs)
        for view, result in zip(step.outputs, results, strict=True):
            out = self._view(buffers, view)
            out[...] = result.astype(out.dtype)

    def _gemm(self, step: Gemm, buffers: list[Any]) -> None:
        """A GEMM through `cupy.matmul` (integers, or no direct cuBLAS)."""
        lhs, rhs = self._view(buffers, step.lhs), self._view(buffers, step.rhs)
        if self._is_bf16(step.out.slot):
            # only the view's elements: it may be a slice or a transpose
            bits = self._make_view(buffers, step.out, bits=True)
            bits[...] = bf16_bits(self.cp.matmul(lhs, rhs), self.cp)
            return
        out = self._view(buffers, step.out)
        if lhs.dtype != out.dtype:  # f16 operands, an f32 product
            lhs, rhs = lhs.astype(out.dtype), rhs.astype(out.dtype)
        if out.flags.c_contiguous:
            self.cp.matmul(lhs, rhs, out=out)  # no temporary, no copy kernel
        else:
            out[...] = self.cp.matmul(lhs, rhs)


def compile_cuda(
    module: ModuleOp,
    pipeline: str | None = None,
    entry: str | None = None,
    *,
    compiler: Compiler | None = None,
    cache: KernelCache | None = None,
    cuda_graph: bool = False,
    tf32: bool = False,
    bf16_bits: bool = False,
    gemm: str = "cublas",
    conv_tf32: bool | None = None,
) -> Callable[..., tuple[Any, ...]]:
    """Lower a clone of `module` and return its `CudaExecutor` (wrapped in a
    `GraphedExecutor` with `cuda_graph=True`); `tf32`: f32 GEMMs on TF32
    tensor cores; `conv_tf32`: the same for a convolution's GEMMs (None:
    as `tf32`); `bf16_bits`: bf16 outputs as `uint16` bits;
    `gemm="tensor-core"`: bf16/f16 GEMMs on fxdsl's own tensor-core kernel
    (`fxdsl.runtime.tensor_core_gemm`; opt-in, not measured against cuBLAS
    yet). `compiler` (default: NVRTC, else nvcc)
    and `cache` (default: the user cache directory) are for tests and tools."""
    if gemm not in GEMM_ROUTES:
        raise ValueError(f"gemm={gemm!r}: not one of {GEMM_ROUTES}")
    import cupy  # type: ignore[import-not-found]

    with counters.timed("lower"):
        lowered, plan = lower_for_cuda(module, pipeline, entry)
    kernels: dict[str, Any] = {}
    folder = None
    if plan.kernels:  # a plan of GEMMs only compiles nothing
        with counters.timed("build"):
            arch = device_arch(cupy)
            build = build_kernels(lowered, plan.kernels, arch, compiler, cache)
        with counters.timed("load"):
            if build.cubin is not None:
                kernels, folder = _load_cubin(cupy, build.cubin, build.compiled)
            if build.failed:
                emulator = Emulator(lowered)
                failed = build.failed
                kernels |= {n: HostKernel(cupy, emulator, n) for n in failed}
    gemm_kernels: dict[Gemm, tuple[Any, GemmShape]] = {}
    routed = plan_gemms(plan) if gemm == "tensor-core" else {}
    if routed:
        with counters.timed("build"):
            cubin = build_gemms(routed, device_arch(cupy), compiler, cache)
        with counters.timed("load"):
            names = tuple(name for name, _ in routed.values())
            launchers, gemm_folder = _load_cubin(cupy, cubin, names)
        folder = (folder, gemm_folder)
        gemm_kernels = {s: (launchers[n], shape) for s, (n, shape) in routed.items()}
    executor = CudaExecutor(
        plan,
        kernels,
        keep_alive=folder,
        tf32=tf32,
        gemm_kernels=gemm_kernels,
        bf16_bits=bf16_bits,
        conv_tf32=conv_tf32,
    )
    if cuda_graph:
        return GraphedExecutor(executor)
    return executor
