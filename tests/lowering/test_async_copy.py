"""`cp.async` (`fxdsl.lowering.async_copy`) and cuda-sim's emulation of it.

The emulation writes shared memory only when `wait_group` retires a group,
so the tests can tell a kernel that waits from one that does not: after
the wait the tile holds the rows (zeros where `valid` is false); read
before it, the tile still holds cuda-sim's poison. A copy the thread never
waits for is an error, as are addresses that are not 16-byte aligned or a
destination outside shared memory. `nvcc -ptx` emits the instructions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fxdsl.lowering.async_copy import ASYNC_COPY_CUDA
from fxdsl.runtime.cuda_sim import CudaSimError, Worker, build
from fxdsl.testing.nvcc import compile_ptx

KERNEL = r"""
// thread t copies row t (8 unsigned shorts, 16 bytes) of `in` into shared
// memory asynchronously, rows >= flags[0] as zeros; flags[1]: wait before
// reading the tile back (else after); flags[2]: wait at all; flags[3]:
// an offset in elements added to the shared destination
extern "C" __global__ void stage(const unsigned short* in, unsigned short* out,
                                 const int* flags) {
  alignas(16) __shared__ unsigned short tile[32 * 8];
  const int t = threadIdx.x;
  const bool valid = t < flags[0];
  fx_cp_async16(tile + 8 * t + flags[3], valid ? in + 8 * t : in, valid);
  fx_cp_async_commit();
  if (flags[1]) fx_cp_async_wait_all();
  __syncthreads();
  for (int c = 0; c < 8; ++c) out[8 * t + c] = tile[8 * t + c];
  if (!flags[1] && flags[2]) fx_cp_async_wait_all();
}
"""


@pytest.fixture(scope="module")
def program() -> Path:
    return build(ASYNC_COPY_CUDA + KERNEL, ["stage"])


def stage(
    program: Path, rows: int, wait_first: bool, wait: bool = True, shift: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    data = np.arange(1, 32 * 8 + 1, dtype=np.uint16).reshape(32, 8)
    out = np.zeros((32, 8), np.uint16)
    flags = np.array([rows, wait_first, wait, shift], np.int32)
    Worker(program).launch("stage", (1, 1, 1), (32, 1, 1), [data, out, flags])
    return data, out


@pytest.mark.cxx
def test_rows_land_after_the_wait_and_invalid_rows_are_zeros(program: Path) -> None:
    data, out = stage(program, rows=20, wait_first=True)
    assert np.array_equal(out[:20], data[:20])
    assert not out[20:].any()


@pytest.mark.cxx
def test_a_tile_read_before_the_wait_is_poison(program: Path) -> None:
    _, out = stage(program, rows=32, wait_first=False)
    assert (out == 0xFFFF).all()


@pytest.mark.cxx
def test_a_copy_never_waited_for_is_an_error(program: Path) -> None:
    with pytest.raises(CudaSimError, match="not waited for"):
        stage(program, rows=32, wait_first=False, wait=False)


@pytest.mark.cxx
def test_a_misaligned_destination_is_an_error(program: Path) -> None:
    with pytest.raises(CudaSimError, match="cp.async: an address not 16-byte"):
        stage(program, rows=32, wait_first=True, shift=1)


@pytest.mark.cxx
def test_a_destination_outside_shared_memory_is_an_error() -> None:
    kernel = r"""
extern "C" __global__ void to_global(const unsigned short* in, unsigned short* out) {
  fx_cp_async16(out, in, true);
  fx_cp_async_commit();
  fx_cp_async_wait_all();
}
"""
    program = build(ASYNC_COPY_CUDA + kernel, ["to_global"])
    data, out = np.zeros(8, np.uint16), np.zeros(8, np.uint16)
    with pytest.raises(CudaSimError, match="outside shared memory"):
        Worker(program).launch("to_global", (1, 1, 1), (1, 1, 1), [data, out])


@pytest.mark.nvcc
def test_nvcc_emits_cp_async(tmp_path: Path) -> None:
    ptx = compile_ptx(ASYNC_COPY_CUDA + KERNEL, tmp_path, "async_copy")
    assert "cp.async.cg.shared.global" in ptx
    assert "cp.async.commit_group" in ptx
    assert "cp.async.wait_group 0" in ptx
