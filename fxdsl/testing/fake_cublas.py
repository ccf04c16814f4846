"""libcublas on the host, for the CUDA executor's tests without a GPU:
`FakeLibrary` records the C calls the direct binding makes, `MemoryCublas`
also computes each GEMM on host memory as the device would, and
`executor_on_host` builds a module's `CudaExecutor` on the numpy CuPy
(`fake_cupy`) with kernels in the IR emulator and GEMMs through such a
library, so launch plans, CUDA-graph capture and the binding's arguments are
checked end to end on the CPU."""

from __future__ import annotations

import ctypes
import sys
from typing import Any, ClassVar

import numpy as np

from fxdsl.lowering.launch_plan import CublasGemm, run_gemm_reference
from fxdsl.testing.fake_cupy import CapturableKernel, FakeStreams, numpy_cupy


class FakeLibrary:
    """libcublas as ctypes sees it: every function returns 0 (success) and
    records its name and arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        def function(*args: Any) -> int:
            self.calls.append((name, args))
            return 0

        setattr(self, name, function)
        return function

    def named(self, name: str) -> list[tuple[Any, ...]]:
        return [args for called, args in self.calls if called == name]


class MemoryCublas(FakeLibrary):
    """libcublas computing on host memory: each GEMM reads its operands at
    the addresses it is given (bf16 as raw bits, f16, f32, as the device
    holds them), multiplies in float64 and writes the result rounded once to
    the output type (the operands', or f32 for a widened product). Work on
    a capturing stream is recorded, not run."""

    TYPES: ClassVar[dict[int, str]] = {0: "f32", 2: "f16", 14: "bf16"}

    def __init__(self, streams: FakeStreams | None = None) -> None:
        super().__init__()
        self.streams = streams
        self.runs = 0
        """GEMMs computed (a captured call runs at each replay)"""
        # functions, not bound methods: the binding sets ctypes' restype on them
        self.cublasSgemmStridedBatched = lambda *args: self._sgemm(*args)
        self.cublasGemmStridedBatchedEx = lambda *args: self._gemm_ex(*args)

    def _sgemm(self, *args: Any) -> int:
        self.calls.append(("cublasSgemmStridedBatched", args))
        (_, ta, tb, m, n, k, _, a, lda, sa, b, ldb, sb, _, c, ldc, sc, batch) = args
        self._later(
            ta, tb, m, n, k, ("f32", "f32"), (a, lda, sa), (b, ldb, sb), (c, ldc, sc),
            batch,
        )  # fmt: skip
        return 0

    def _gemm_ex(self, *args: Any) -> int:
        self.calls.append(("cublasGemmStridedBatchedEx", args))
        (_, ta, tb, m, n, k, _, a, at, lda, sa, b, bt, ldb, sb, _,
         c, ct, ldc, sc, batch, compute, _) = args  # fmt: skip
        assert at == bt
        assert ct in (at, 0)  # C: the operands' type, or f32
        assert compute == 68
        self._later(
            ta, tb, m, n, k, (self.TYPES[at], self.TYPES[ct]),
            (a, lda, sa), (b, ldb, sb), (c, ldc, sc), batch,
        )  # fmt: skip
        return 0

    def _later(self, *gemm: Any) -> None:
        run = lambda: self._run(*gemm)
        if self.streams is None:
            run()
        else:
            self.streams.run_or_record(run)

    def _run(self, ta: int, tb: int, m: int, n: int, k: int,
             elements: tuple[str, str], a: tuple[int, int, int],
             b: tuple[int, int, int], c: tuple[int, int, int],
             batch: int) -> None:  # fmt: skip
        from fxdsl.ir.dtypes import bf16_bits, from_bf16_bits

        self.runs += 1
        stored = {"f32": np.float32, "f16": np.float16, "bf16": np.uint16}

        def flat(
            operand: tuple[int, int, int], rows: int, cols: int, element: str
        ) -> np.ndarray:
            address, ld, stride = operand  # column-major rows x cols, ld >= rows
            count = (batch - 1) * stride + (cols - 1) * ld + rows
            dtype = np.dtype(stored[element])
            raw = (ctypes.c_char * (count * dtype.itemsize)).from_address(address)
            return np.frombuffer(raw, dtype=dtype)

        def load(memory: np.ndarray, element: str) -> np.ndarray:
            return from_bf16_bits(memory) if element == "bf16" else memory

        operand, result = elements
        rows_a, cols_a = (k, m) if ta else (m, k)
        rows_b, cols_b = (n, k) if tb else (k, n)
        memory_c = flat(c, m, n, result)
        with np.errstate(invalid="ignore"):  # C's old bits: beta is 0, unread
            product = load(memory_c, result).astype(np.float64)
        params = CublasGemm(
            bool(ta), bool(tb), m, n, k, a[1], a[2], 0, b[1], b[2], 0,
            c[1], c[2], 0, batch,
        )  # fmt: skip
        run_gemm_reference(
            params,
            load(flat(a, rows_a, cols_a, operand), operand),
            load(flat(b, rows_b, cols_b, operand), operand),
            product,
        )
        if result == "bf16":
            memory_c[...] = bf16_bits(product.astype(np.float32))
        else:
            memory_c[...] = product.astype(stored[result])


def executor_on_host(
    monkeypatch: Any, module: Any, library: MemoryCublas | None
) -> tuple[Any, FakeStreams]:
    """`module`'s CudaExecutor on the numpy CuPy: kernels in the IR emulator,
    GEMMs through `library` (None: cuBLAS not found, cupy.matmul)."""
    cp = numpy_cupy()
    streams = FakeStreams(cp)
    monkeypatch.setitem(sys.modules, "cupy", cp)
    from fxdsl.runtime import cublas, cuda_executor
    from fxdsl.runtime.ir_emulator import Emulator

    monkeypatch.setattr(cublas, "_HANDLES", {})
    if library is None:
        monkeypatch.setenv("FXDSL_CUBLAS", "0")
    else:
        library.streams = streams
        monkeypatch.setattr(
            cublas.Cublas, "create", lambda cupy: cublas.Cublas(cupy, library)
        )
    lowered, plan = cuda_executor.lower_for_cuda(module)
    machine = Emulator(lowered)
    kernels = {
        name: CapturableKernel(cuda_executor.HostKernel(cp, machine, name), streams)
        for name in plan.kernels
    }
    return cuda_executor.CudaExecutor(plan, kernels), streams
