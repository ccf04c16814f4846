"""f32 GEMMs through cuBLAS called directly (ctypes), not `cupy.matmul`.

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
Default math mode: no TF32, results as `cupy.matmul` computes them.

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

from fxdsl.runtime.launch_plan import CublasGemm

WORKSPACE_BYTES = 32 * 2**20
"""cuBLAS workspace (the size NVIDIA recommends for Hopper)."""

_OP = {False: 0, True: 1}  # CUBLAS_OP_N, CUBLAS_OP_T

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
    """One cuBLAS handle with its workspace; `sgemm` runs one plan GEMM."""

    def __init__(self, cupy: Any, library: ctypes.CDLL):
        self.cp = cupy
        self.lib = library
        self.handle = ctypes.c_void_p()
        self._check("cublasCreate_v2", ctypes.byref(self.handle))
        self.workspace = cupy.empty(WORKSPACE_BYTES, dtype="uint8")
        self._check(
            "cublasSetWorkspace_v2",
            self.handle,
            ctypes.c_void_p(self.workspace.data.ptr),
            ctypes.c_size_t(WORKSPACE_BYTES),
        )
        self.stream: int | None = None
        """The stream last given to the handle (set again only on a change)"""
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
        self._gemm = gemm

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

    def sgemm(self, p: CublasGemm, first: int, second: int, out: int) -> None:
        """`out = second @ first` in row-major terms (see `CublasGemm`), on
        the current stream; arguments are the base device addresses of the
        three buffers (the plan's offsets are added here)."""
        stream = self.cp.cuda.get_current_stream().ptr
        if stream != self.stream:  # the handle is ours alone: no one else sets it
            self._check("cublasSetStream_v2", self.handle, ctypes.c_void_p(stream))
            self.stream = stream
        status = self._gemm(
            self.handle, _OP[p.trans_first], _OP[p.trans_second], p.m, p.n, p.k,
            ctypes.byref(self.one),
            first + 4 * p.offset_first, p.ld_first, p.stride_first,
            second + 4 * p.offset_second, p.ld_second, p.stride_second,
            ctypes.byref(self.zero),
            out + 4 * p.offset_c, p.ldc, p.stride_c, p.batch,
        )  # fmt: skip
        if status != 0:
            raise CublasError(f"cublasSgemmStridedBatched failed with status {status}")
