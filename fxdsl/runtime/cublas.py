"""GEMMs through cuBLAS called directly (ctypes), not `cupy.matmul`.

Two measured reasons (H100, CuPy 14.2, see benchmarks/README.md):

* `cupy.matmul` costs about 63 µs of Python per call, which made a 12-block
  GPT-2 forward at B=1 spend 4.5 of its 5.25 ms dispatching 72 GEMMs;
* CuPy refuses to call cuBLAS while a stream is captured, which cut CUDA
  graphs into one piece per run of kernels between GEMMs.

cuBLAS itself supports stream capture when it does not allocate, so this
binding gives its handle a fixed workspace, sets the caller's current stream
(when it changed since the last call), and passes the parameters the launch
plan already derived (`Gemm.cublas`: the row-major product as a column-major
`cublasSgemmStridedBatched`, transposed operands as transpose flags). The
library is the `libcublas` CuPy has already loaded (found in
`/proc/self/maps`), so there is no second copy and no version mismatch.

f32 GEMMs are `cublasSgemmStridedBatched`; f16 and bf16 GEMMs are
`cublasGemmStridedBatchedEx` with f32 compute (tensor cores, f32
accumulators, the result rounded once to the output type, as torch does),
and with an f32 output where graph.matmul widens its product (Ctype
CUDA_R_32F with bf16/f16 A and B: a combination the cuBLAS documentation
lists for CUBLAS_COMPUTE_32F).
The device holds bf16 as its raw 16 bits (`uint16` buffers, see
`cuda_executor`) and f16 as `float16`: both are exactly what cuBLAS reads as
CUDA_R_16BF / CUDA_R_16F, so no conversion runs around a GEMM.

Math mode: cuBLAS's default (no TF32) unless a GEMM asks for TF32 (the
executor's `tf32` option, which the torch backend sets from
`torch.get_float32_matmul_precision()`); the handle is shared, so the mode
is set, like the stream, only when it differs from the last call's.

`Cublas.create(cupy)` returns None (with the reason in `unavailable`) where
the library cannot be found; the executor then keeps `cupy.matmul`. Set
`FXDSL_CUBLAS=0` to force that path. One handle and workspace per device
serve every executor of the process; their work is ordered on the caller's
stream (the graphs of `cuda_graph` too), so they never overlap.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path
from typing import Any

from fxdsl.lowering.launch_plan import CublasGemm, device_address

WORKSPACE_BYTES = 32 * 2**20
"""cuBLAS workspace (the size NVIDIA recommends for Hopper)."""

# Enumerator values, from the CUDA headers the cuBLAS documentation names
# (cublas_api.h, library_types.h; cuBLAS 12 "cuBLAS Datatypes Reference"):
_OP = {False: 0, True: 1}  # cublasOperation_t: CUBLAS_OP_N, CUBLAS_OP_T
DATA_TYPES = {"f32": 0, "f16": 2, "bf16": 14}
"""cudaDataType_t of each element type the binding takes (library_types.h:
CUDA_R_32F = 0, CUDA_R_16F = 2, CUDA_R_16BF = 14)."""
ITEM_BYTES = {"f32": 4, "f16": 2, "bf16": 2}
COMPUTE_32F = 68  # cublasComputeType_t CUBLAS_COMPUTE_32F: f32 accumulation
GEMM_DEFAULT = -1  # cublasGemmAlgo_t CUBLAS_GEMM_DEFAULT: cuBLAS's heuristic
DEFAULT_MATH = 0  # cublasMath_t CUBLAS_DEFAULT_MATH
TF32_TENSOR_OP_MATH = 3  # cublasMath_t CUBLAS_TF32_TENSOR_OP_MATH

unavailable: str | None = None
"""Why the last `Cublas.create` returned None."""


def _library_path() -> str | None:
    """The libcublas CuPy loaded, else what the linker would find."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        maps = ""
    for line in maps.splitlines():
        path = line.split()[-1] if line.split() else ""
        if Path(path).name.startswith("libcublas.so"):
            return path
    return ctypes.util.find_library("cublas")


_HANDLES: dict[int, Cublas] = {}


class CublasError(RuntimeError):
    """A cuBLAS call returned a status other than CUBLAS_STATUS_SUCCESS."""


class Cublas:
    """One cuBLAS handle with its workspace; `gemm` runs one plan GEMM."""

    def __init__(self, cupy: Any, library: ctypes.CDLL):
        self.cp = cupy
        self.lib = library
        self.handle = ctypes.c_void_p()
        self._check("cublasCreate_v2", ctypes.byref(self.handle))
        self.workspace = cupy.empty(WORKSPACE_BYTES, dtype="uint8")
        self._check(
            "cublasSetWorkspace_v2",
            self.handle,
            ctypes.c_void_p(device_address(self.workspace)),
            ctypes.c_size_t(WORKSPACE_BYTES),
        )
        self.stream: int | None = None
        """The stream last given to the handle (set again only on a change)"""
        self.math = DEFAULT_MATH
        """The handle's math mode (cublasCreate's default; set on a change)"""
        self.one = ctypes.c_float(1.0)
        self.zero = ctypes.c_float(0.0)
        gemm = library.cublasSgemmStridedBatched
        gemm.restype = ctypes.c_int
        gemm.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
            ctypes.c_int, ctypes.c_int, ctypes.c_int,
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_int,
        ]  # fmt: skip
        self._sgemm = gemm
        gemm_ex = library.cublasGemmStridedBatchedEx
        gemm_ex.restype = ctypes.c_int
        gemm_ex.argtypes = [
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
            ctypes.c_int, ctypes.c_int, ctypes.c_int,
            ctypes.c_void_p,
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_void_p,
            ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
            ctypes.c_int, ctypes.c_int, ctypes.c_int,
        ]  # fmt: skip
        self._gemm_ex = gemm_ex

    @classmethod
    def create(cls, cupy: Any) -> Cublas | None:
        """The process's handle for the current device (one per device, shared
        by every executor: a handle and a workspace per compiled program
        would pile up), or None (the reason in `unavailable`)."""
        global unavailable
        if os.environ.get("FXDSL_CUBLAS", "1") == "0":
            unavailable = "disabled by FXDSL_CUBLAS=0"
            return None
        try:
            import cupy_backends.cuda.libs.cublas  # noqa: F401 - loads libcublas
        except ImportError as error:
            unavailable = f"CuPy's cuBLAS module is missing: {error}"
            return None
        device = cupy.cuda.Device().id
        if device not in _HANDLES:
            path = _library_path()
            if path is None:
                unavailable = "libcublas was not found"
                return None
            _HANDLES[device] = cls(cupy, ctypes.CDLL(path))
        return _HANDLES[device]

    def _check(self, name: str, *args: Any) -> None:
        status = getattr(self.lib, name)(*args)
        if status != 0:
            raise CublasError(f"{name} failed with cuBLAS status {status}")

    def gemm(
        self,
        p: CublasGemm,
        element: str,
        first: int,
        second: int,
        out: int,
        tf32: bool = False,
        result: str | None = None,
    ) -> None:
        """`out = second @ first` in row-major terms (see `CublasGemm`) on
        operands of `element` (a key of `DATA_TYPES`) into a result of
        `result` (default `element`; f32 for 16-bit operands: cuBLAS's Ctype
        CUDA_R_32F, the product stored unrounded), on the current stream;
        arguments are the base device addresses of the three buffers (the
        plan's offsets, in elements, are added here). `tf32`: f32 products
        on TF32 tensor cores (cuBLAS's math mode; 16-bit operands use tensor
        cores anyway)."""
        result = result or element
        stream = self.cp.cuda.get_current_stream().ptr
        if stream != self.stream:  # the handle is ours alone: no one else sets it
            self._check("cublasSetStream_v2", self.handle, ctypes.c_void_p(stream))
            self.stream = stream
        math = TF32_TENSOR_OP_MATH if tf32 else DEFAULT_MATH
        if math != self.math:
            self._check("cublasSetMathMode", self.handle, math)
            self.math = math
        item = ITEM_BYTES[element]
        a = first + item * p.offset_first
        b = second + item * p.offset_second
        c = out + ITEM_BYTES[result] * p.offset_c
        ops = (self.handle, _OP[p.trans_first], _OP[p.trans_second], p.m, p.n, p.k)
        if element == "f32":
            name = "cublasSgemmStridedBatched"
            status = self._sgemm(
                *ops, ctypes.byref(self.one),
                a, p.ld_first, p.stride_first, b, p.ld_second, p.stride_second,
                ctypes.byref(self.zero), c, p.ldc, p.stride_c, p.batch,
            )  # fmt: skip
        else:  # alpha and beta are floats: the compute type is f32
            name, typ = "cublasGemmStridedBatchedEx", DATA_TYPES[element]
            status = self._gemm_ex(
                *ops, ctypes.byref(self.one),
                a, typ, p.ld_first, p.stride_first,
                b, typ, p.ld_second, p.stride_second,
                ctypes.byref(self.zero), c, DATA_TYPES[result], p.ldc, p.stride_c,
                p.batch, COMPUTE_32F, GEMM_DEFAULT,
            )  # fmt: skip
        if status != 0:
            raise CublasError(f"{name} failed with cuBLAS status {status}")
