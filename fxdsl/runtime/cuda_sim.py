"""cuda-sim: run the exact CUDA C that `-t cuda` prints on the CPU.

The printer's text is compiled by the host C++ compiler (g++, C++20) against
a small header of our own (`fxdsl.runtime.cuda_sim_header`): `threadIdx`,
`blockIdx`, `blockDim`, `gridDim`, `__shared__`, `__syncthreads` as a barrier
of the block's threads, `__shfl_xor_sync` through per-warp slots and a warp
barrier, `float4`/`make_float4`, `__half`/`__nv_bfloat16` and their
conversions, the f32 math functions. A launch runs one host thread per GPU
thread of a block, the blocks in turn, over the launch's real grid and block.
`__shared__` memory is poisoned (0xff bytes: NaN, -1) before every block.

The host side is the IR emulator's (`CudaSimEmulator` subclasses
`fxdsl.runtime.ir_emulator.Emulator`): buffers, views, GEMMs and calls are
interpreted as there; only a `gpu.launch_func` runs compiled CUDA C instead of
the emulated `gpu.func`.

Why a worker process, not ctypes: the kernels are built with AddressSanitizer
and UndefinedBehaviorSanitizer (an access past an allocation, a misaligned
`float4`, an index past a `__shared__` array fail; or with ThreadSanitizer,
where a missing barrier is a data race), and a sanitizer's runtime must
be the first library of the process: it cannot be dlopen'ed into Python, and
numpy's buffers would not carry its redzones. So each compiled program is an
executable; one worker per program reads launches (kernel, grid, block,
buffers) on stdin, allocates each buffer with its exact size, runs, and
writes the buffers back. A deadlock (a barrier or shuffle that not all threads
of the block/warp reach, or a wait past `timeout` seconds) and any sanitizer
report end the worker with a message that `CudaSimError` carries; a process
is also what lets a deadlocked run be abandoned without a hang.

Executables are cached on disk by the hash of everything compiled (source,
header, flags, compiler), written atomically (build in a private folder, then
`os.replace`). Slow (a thread per GPU thread): for tests and debugging.
"""

from __future__ import annotations

import hashlib
import os
import select
import shutil
import subprocess
import tempfile
import weakref
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np
from xdsl.dialects import gpu
from xdsl.dialects.builtin import BFloat16Type, MemRefType, ModuleOp
from xdsl.dialects.linalg.ops import GenericOp
from xdsl.ir import Operation

from fxdsl.interpreters.run import coerce_inputs, entry_function
from fxdsl.ir.dtypes import bf16_bits
from fxdsl.ir.layout import layout_of_type
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.lowering.graph_bufferize import GEMM_LIBRARY_CALL
from fxdsl.lowering.tensor_core_gemm import (
    GEMM_ROUTES,
    TENSOR_CORE_ELEMENTS,
    GemmShape,
    gemm_of_views,
    gemm_source,
)
from fxdsl.runtime.cuda_sim_header import DRIVER, HEADER
from fxdsl.runtime.ir_emulator import Emulator, Env

DEFAULT_SANITIZERS = "address,undefined"
"""`-fsanitize=` of the default build; "thread" (ThreadSanitizer, which
cannot be combined with ASan) instead finds data races, such as shared memory
read without the `__syncthreads` that orders it after the write."""
FLAGS = ("-std=c++20", "-O0", "-g", "-pthread", "-fno-omit-frame-pointer")
RUNTIME_ENV = {
    "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=0",
    "UBSAN_OPTIONS": "print_stacktrace=1",
    "TSAN_OPTIONS": "halt_on_error=1",
}
Dims = tuple[int, int, int]


class CudaSimError(RuntimeError):
    """The compiled CUDA C failed: a compile error, a sanitizer report, a
    deadlock, or the worker died."""


def compiler() -> str | None:
    """The host C++ compiler (`$CXX` or g++), None when there is none."""
    return shutil.which(os.environ.get("CXX", "g++"))


def cache_dir() -> Path:
    """`$FXDSL_CUDA_SIM_CACHE`, else a folder in the temp dir."""
    default = Path(tempfile.gettempdir()) / f"fxdsl-cuda-sim-{os.getuid()}"
    return Path(os.environ.get("FXDSL_CUDA_SIM_CACHE", default))


def _kernel_table(kernels: Sequence[str]) -> str:
    rows = "".join(f'  {{"{k}", &fx_sim::call<{k}>}},\n' for k in kernels)
    return (
        "static const fx_sim::KernelEntry fx_sim_kernels[] = {\n"
        f'{rows}  {{"", nullptr}},\n}};\n'
    )


def build(
    source: str, kernels: Sequence[str], sanitizers: str = DEFAULT_SANITIZERS
) -> Path:
    """The executable of a CUDA C translation unit (cached by content), built
    with `-fsanitize=<sanitizers>` (none for "")."""
    cxx = compiler()
    if cxx is None:
        raise CudaSimError("cuda-sim needs a host C++ compiler (g++)")
    flags = [*FLAGS]
    if sanitizers:
        flags += [f"-fsanitize={sanitizers}", "-fno-sanitize-recover=all"]
    version = subprocess.run([cxx, "--version"], capture_output=True, text=True)
    driver = '#include "kernels.cu"\n' + _kernel_table(kernels) + DRIVER
    key = hashlib.sha256(
        "\0".join([cxx, version.stdout, *flags, HEADER, source, driver]).encode()
    ).hexdigest()[:24]
    target = cache_dir() / f"sim-{key}"
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent) as work:
        folder = Path(work)
        # the printer's #include <cuda_fp16.h>/<cuda_bf16.h>: our header has them
        for name in ("cuda_fp16.h", "cuda_bf16.h"):
            (folder / name).write_text("// cuda-sim: see cuda_sim.h\n")
        (folder / "cuda_sim.h").write_text(HEADER)
        (folder / "kernels.cu").write_text(source)
        (folder / "driver.cpp").write_text(driver)
        command = [cxx, *flags, "-I", work, "-include", "cuda_sim.h",
                   str(folder / "driver.cpp"), "-o", str(folder / "sim")]  # fmt: skip
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            raise CudaSimError(f"g++ failed on the CUDA C:\n{result.stderr[-6000:]}")
        os.replace(folder / "sim", target)
    return target


def build_module(module: ModuleOp, sanitizers: str = DEFAULT_SANITIZERS) -> Path:
    """The executable of every kernel of a lowered module (its `-t cuda` text)."""
    names = [k.sym_name.data for k in module.walk() if isinstance(k, gpu.FuncOp)]
    return build(kernel_source(module), names, sanitizers)


@dataclass
class Worker:
    """One running executable; `launch` runs a kernel on numpy buffers."""

    executable: Path
    timeout: float = 10.0
    process: subprocess.Popen[bytes] | None = None
    errors: IO[bytes] | None = None
    launched: list[tuple[str, Dims, Dims]] = field(default_factory=list)

    def _start(self) -> subprocess.Popen[bytes]:
        if self.process is None or self.process.poll() is not None:
            # a file, not a pipe: a long sanitizer report cannot block the worker
            self.errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed with it
            self.process = subprocess.Popen(
                [str(self.executable), str(self.timeout)],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errors,
                env=os.environ | RUNTIME_ENV,
            )  # fmt: skip
            weakref.finalize(self, self.process.kill)
        return self.process

    def launch(
        self, kernel: str, grid: Dims, block: Dims, buffers: Sequence[np.ndarray]
    ) -> None:
        """Run `kernel<<<grid, block>>>` on C-contiguous `buffers` (in place;
        an array passed twice is one allocation)."""
        unique: dict[int, int] = {}
        arrays: list[np.ndarray] = []
        for array in buffers:
            if id(array) not in unique:
                unique[id(array)] = len(arrays)
                arrays.append(array)
        process = self._start()
        assert process.stdin is not None
        assert process.stdout is not None
        header = [kernel, *grid, *block, len(arrays), len(buffers)]
        header += [a.nbytes for a in arrays] + [unique[id(a)] for a in buffers]
        try:
            process.stdin.write((" ".join(map(str, header)) + "\n").encode())
            for array in arrays:
                process.stdin.write(array.tobytes())
            process.stdin.flush()
        except BrokenPipeError:
            pass  # the worker died; its message is read below
        self.launched.append((kernel, grid, block))
        ready, _, _ = select.select([process.stdout], [], [], self.timeout * 30)
        status = process.stdout.readline() if ready else b""
        if status != b"ok\n":
            self._fail(kernel, grid, block)
        for array in arrays:
            data = process.stdout.read(array.nbytes)
            array.reshape(-1).view(np.uint8)[...] = np.frombuffer(data, np.uint8)

    def _fail(self, kernel: str, grid: Dims, block: Dims) -> None:
        process, errors = self.process, self.errors
        assert process is not None
        assert errors is not None
        process.kill()
        process.wait()
        errors.seek(0)
        message = errors.read().decode(errors="replace")[-8000:]
        errors.close()
        self.process = None
        raise CudaSimError(
            f"{kernel}<<<{grid}, {block}>>> failed (exit {process.returncode}):\n"
            f"{message or 'no output (killed after the timeout)'}"
        )

    def close(self) -> None:
        """Stop the worker process."""
        if self.process is not None:
            self.process.kill()
            self.process.wait()
            self.process = None
        if self.errors is not None:
            self.errors.close()
            self.errors = None


def tensor_core_gemms(module: ModuleOp) -> dict[Operation, tuple[str, GemmShape]]:
    """The bf16/f16 library GEMMs of a lowered module, each with the name
    and shape of its tensor-core kernel (`fxdsl.lowering.tensor_core_gemm`)."""
    gemms: dict[Operation, tuple[str, GemmShape]] = {}
    for op in module.walk():
        call = op.library_call if isinstance(op, GenericOp) else None
        if call is None or call.data != GEMM_LIBRARY_CALL:
            continue
        types = [v.type for v in op.operands]
        assert all(isinstance(t, MemRefType) for t in types)
        element, result = (str(t.element_type) for t in types[::2])  # type: ignore[union-attr]
        if element in TENSOR_CORE_ELEMENTS:
            a, b, c = (layout_of_type(t) for t in types)  # type: ignore[arg-type]
            shape = gemm_of_views(a, b, c, element, result)
            gemms[op] = (f"fx_tc_gemm_{len(gemms)}", shape)
    return gemms


class CudaSimEmulator(Emulator):
    """The IR emulator's host side, with every kernel launch run as compiled
    CUDA C (the module's `-t cuda` text) by a `Worker`. GEMMs are the
    emulator's (numpy, as cuBLAS computes them) unless `gemm="tensor-core"`:
    then each bf16/f16 GEMM runs fxdsl's tensor-core GEMM kernel, compiled
    as a second program."""

    def __init__(
        self,
        module: ModuleOp,
        sanitizers: str = DEFAULT_SANITIZERS,
        timeout: float = 10.0,
        gemm: str = "cublas",
    ):
        super().__init__(module)
        if gemm not in GEMM_ROUTES:
            raise ValueError(f"gemm={gemm!r}: not one of {GEMM_ROUTES}")
        self.worker = Worker(build_module(module, sanitizers), timeout)
        self.gemms = tensor_core_gemms(module) if gemm == "tensor-core" else {}
        """library GEMM op -> (kernel name, shape) of the ones routed to the
        tensor-core kernel"""
        self.gemm_worker: Worker | None = None
        if self.gemms:
            kernels = dict(self.gemms.values())
            program = build(gemm_source(kernels), list(kernels), sanitizers)
            self.gemm_worker = Worker(program, timeout)

    def _host_op(self, op: Operation, env: Env) -> None:
        if op not in self.gemms:
            super()._host_op(op, env)
            return
        # out = a @ b, overwritten (the plan zero-fills it first anyway)
        name, shape = self.gemms[op]
        buffers = [env[v] for v in op.operands]
        elements = (shape.operand, shape.operand, shape.result)
        device: dict[int, np.ndarray] = {}
        for flat, element in zip(buffers, elements):
            if id(flat) in device:
                continue
            # bf16: its bits (numpy holds float32); f16: a view, written in
            # place; f32 (a widened product): as it is
            if element == "bf16":
                device[id(flat)] = bf16_bits(flat)
            else:
                device[id(flat)] = flat.view(np.uint16) if element == "f16" else flat
        assert self.gemm_worker is not None
        self.gemm_worker.launch(
            name, shape.grid, shape.block, [device[id(f)] for f in buffers]
        )
        self.launches += 1
        if shape.result == "bf16":
            out = buffers[2]
            out[...] = (device[id(out)].astype(np.uint32) << 16).view(np.float32)

    def _launch(self, op: gpu.LaunchFuncOp, env: Env) -> None:
        grid = (op.gridSizeX, op.gridSizeY, op.gridSizeZ)
        block = (op.blockSizeX, op.blockSizeY, op.blockSizeZ)
        buffers = [env[v] for v in op.kernelOperands]
        name = op.kernel.nested_references.data[-1].data
        grid3: Any = tuple(int(env[v]) for v in grid)
        block3: Any = tuple(int(env[v]) for v in block)
        self.launch(name, grid3, block3, buffers)

    def launch(
        self,
        name: str,
        grid: int | Dims,
        block: int | Dims,
        buffers: list[np.ndarray],
    ) -> None:
        """Run kernel `name` on flat buffers (a 1-D grid/block may be an int)."""
        grid3 = (grid, 1, 1) if isinstance(grid, int) else grid
        block3 = (block, 1, 1) if isinstance(block, int) else block
        self.launches += 1
        args = self.kernels[name].body.block.args
        # numpy holds bf16 as float32: the kernel reads and writes bf16 bits
        converted: dict[int, np.ndarray] = {}
        device: list[np.ndarray] = []
        for arg, flat in zip(args, buffers):
            assert isinstance(arg.type, MemRefType)
            if not isinstance(arg.type.element_type, BFloat16Type):
                device.append(flat)
                continue
            if id(flat) not in converted:
                converted[id(flat)] = bf16_bits(flat)
            device.append(converted[id(flat)])
        self.worker.launch(name, grid3, block3, device)
        for flat in buffers:
            if id(flat) in converted:
                bits = converted[id(flat)].astype(np.uint32) << 16
                flat[...] = bits.view(np.float32)

    def close(self) -> None:
        """Stop the worker processes."""
        self.worker.close()
        if self.gemm_worker is not None:
            self.gemm_worker.close()


class CudaSimProgram:
    """`fxdsl.compile(..., backend="cuda-sim")`: the CUDA backend's lowering
    and launch plan, every kernel run by cuda-sim on the CPU. Slow (a host
    thread per GPU thread, sanitizers on): for debugging a kernel without a
    GPU, not for speed. `plan` and `lowered` are inspectable; `gemm` is
    `CudaSimEmulator`'s."""

    def __init__(
        self,
        module: ModuleOp,
        pipeline: str | None = None,
        entry: str | None = None,
        sanitizers: str = DEFAULT_SANITIZERS,
        gemm: str = "cublas",
    ):
        # imports CuPy only when a GPU run is made, never here
        from fxdsl.pipeline.lower import lower_for_cuda

        self.function = entry_function(module, entry)
        self.lowered, self.plan = lower_for_cuda(module, pipeline, entry)
        self.sim = CudaSimEmulator(self.lowered, sanitizers, gemm=gemm)

    def __call__(self, *inputs: Any) -> tuple[np.ndarray, ...]:
        arrays = coerce_inputs(self.function, inputs)
        return self.sim.run(self.plan.function, *arrays)

    def close(self) -> None:
        """Stop the worker process (also done when the program is collected)."""
        self.sim.close()
