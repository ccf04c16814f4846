"""`ldmatrix` in the tensor-core primitives (`fxdsl.lowering.tensor_core`)
and in cuda-sim's header.

As for the mma (test_tensor_core.py), checks that cannot be wrong in the
same way silently:

* cuda-sim's `ldmatrix.x4` (written from the PTX ISA in the header), given
  each lane's row address, hands every lane the registers the Python table
  (`ldmatrix_coords`) says, plain and `.trans`;
* the fragment loaders built on it (`fx_ldsm_frag_a`, `fx_ldsm_frag_b_nk_x2`,
  `fx_ldsm_frag_b_kn_x2`) give exactly the registers of the scalar loaders
  (`fx_load_frag_*`), which test_tensor_core checks against the mma;
* a mutated loader or a mutated simulator fails; an address outside shared
  memory or not 16-byte aligned is an error.

`nvcc -ptx -arch=sm_90` accepts the kernels and emits the instruction.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fxdsl.lowering import tensor_core as tc
from fxdsl.runtime import cuda_sim
from fxdsl.runtime.cuda_sim import CudaSimError, Worker, build
from fxdsl.testing.nvcc import compile_ptx

LD = 40
"""Elements per shared-memory row of the loader test's 16 x 32 tile (32
and a pad of 8: rows stay 16-byte aligned)."""

KERNELS = r"""
// four 8x8 matrices (row-major, 64 values each) through shared memory;
// lane l gives row l % 8 of matrix l / 8; out: every lane's 4 registers
extern "C" __global__ void ldsm_raw(const unsigned short* in, unsigned* out,
                                    unsigned* out_trans, const int* shift) {
  alignas(16) __shared__ unsigned short tile[4 * 8 * 16];  // 16 a row: 8 + pad
  int lane = threadIdx.x;
  for (int e = lane; e < 256; e += 32)
    tile[(e / 64) * 128 + (e % 64) / 8 * 16 + e % 8] = in[e];
  __syncthreads();
  unsigned r[4], t[4];
  const unsigned short* row = tile + (lane / 8) * 128 + (lane % 8) * 16 + shift[0];
  fx_ldmatrix_x4(r, row);
  fx_ldmatrix_x4_trans(t, row);
  for (int i = 0; i < 4; ++i) out[4 * lane + i] = r[i], out_trans[4 * lane + i] = t[i];
}
// a 16 x 32 tile: each ldmatrix loader beside the scalar loaders it
// replaces; out: 16 registers a lane for each of the two
extern "C" __global__ void ldsm_loaders(const unsigned short* in, unsigned* ldsm,
                                        unsigned* scalar) {
  alignas(16) __shared__ unsigned short tile[16 * LD];
  int lane = threadIdx.x;
  for (int e = lane; e < 16 * 32; e += 32) tile[e / 32 * LD + e % 32] = in[e];
  __syncthreads();
  unsigned* mine = ldsm + 16 * lane;
  unsigned* theirs = scalar + 16 * lane;
  fx_ldsm_frag_a(mine, tile, LD, lane);  // A: rows 0..15, k 0..15
  fx_load_frag_a(theirs, tile, LD, lane);
  // B from an N x K tile (rows: n 0..7, columns: k 0..31)
  fx_ldsm_frag_b_nk_x2(mine + 4, mine + 6, tile, LD, lane);
  fx_load_frag_b_nk(theirs + 4, tile, LD, lane);
  fx_load_frag_b_nk(theirs + 6, tile + 16, LD, lane);
  // B from a K x N tile (rows: k 0..15, columns: n 0..15)
  fx_ldsm_frag_b_kn_x2(mine + 8, mine + 10, tile, LD, lane);
  fx_load_frag_b_kn(theirs + 8, tile, LD, lane);
  fx_load_frag_b_kn(theirs + 10, tile + 8, LD, lane);
  for (int i = 12; i < 16; ++i) mine[i] = theirs[i] = 0u;
}
""".replace("LD", str(LD))
NAMES = ["ldsm_raw", "ldsm_loaders"]


def source(primitives: str = tc.TENSOR_CORE_CUDA) -> str:
    return primitives + KERNELS


def raw(program: Path, shift: int = 0) -> tuple[np.ndarray, ...]:
    """(matrices, registers, registers with .trans) of the raw kernel."""
    rng = np.random.default_rng(0)
    matrices = rng.integers(0, 2**16, (4, 8, 8), dtype=np.uint16)
    out, out_trans = (np.zeros((32, 4), np.uint32) for _ in range(2))
    Worker(program).launch(
        "ldsm_raw", (1, 1, 1), (32, 1, 1),
        [matrices, out, out_trans, np.array([shift], np.int32)],
    )  # fmt: skip
    return matrices, out, out_trans


def loaders(program: Path) -> tuple[np.ndarray, np.ndarray]:
    tile = np.random.default_rng(1).integers(0, 2**16, (16, 32), dtype=np.uint16)
    ldsm, scalar = (np.full((32, 16), 7, np.uint32) for _ in range(2))
    Worker(program).launch("ldsm_loaders", (1, 1, 1), (32, 1, 1), [tile, ldsm, scalar])
    return ldsm, scalar


@pytest.fixture(scope="module")
def program() -> Path:
    return build(source(), NAMES)


def test_the_table_at_a_few_lanes() -> None:
    """PTX ISA: lane 5 (row 1, threadID_in_group 1) gets columns 2, 3 of
    row 1; with .trans, rows 2, 3 of column 1."""
    assert tc.ldmatrix_coords(5, False)[:2] == [(0, 1, 2), (0, 1, 3)]
    assert tc.ldmatrix_coords(5, True)[6:] == [(3, 2, 1), (3, 3, 1)]
    held = sorted(c for lane in range(32) for c in tc.ldmatrix_coords(lane, True))
    assert held == [(m, r, c) for m in range(4) for r in range(8) for c in range(8)]


@pytest.mark.cxx
def test_sim_ldmatrix_matches_the_table(program: Path) -> None:
    matrices, out, out_trans = raw(program)
    assert np.array_equal(out, tc.ldmatrix_registers(matrices, trans=False))
    assert np.array_equal(out_trans, tc.ldmatrix_registers(matrices, trans=True))


@pytest.mark.cxx
def test_ldmatrix_loaders_equal_the_scalar_loaders(program: Path) -> None:
    ldsm, scalar = loaders(program)
    assert np.array_equal(ldsm, scalar)


@pytest.mark.cxx
def test_a_misaligned_row_is_an_error(program: Path) -> None:
    with pytest.raises(CudaSimError, match="ldmatrix: a row address not 16-byte"):
        raw(program, shift=1)


@pytest.mark.cxx
def test_a_row_outside_shared_memory_is_an_error() -> None:
    kernel = r"""
extern "C" __global__ void ldsm_global(const unsigned short* in, unsigned* out) {
  unsigned r[4];
  fx_ldmatrix_x4(r, in + (threadIdx.x % 8) * 8);
  out[threadIdx.x] = r[0];
}
"""
    program = build(tc.TENSOR_CORE_CUDA + kernel, ["ldsm_global"])
    data, out = np.zeros(64, np.uint16), np.zeros(32, np.uint32)
    with pytest.raises(CudaSimError, match="outside shared memory"):
        Worker(program).launch("ldsm_global", (1, 1, 1), (32, 1, 1), [data, out])


LOADER_MUTATIONS = {
    # matrices 1 and 2 of the A fragment swapped (a[1] <-> a[2])
    "a": (
        "fx_ldmatrix_x4(a, tile + (lane & 15) * ld + (lane >> 4) * 8);",
        "fx_ldmatrix_x4(a, tile + (lane & 7) * ld + (lane >> 3 & 1) * 8"
        " + (lane >> 4) * 8 * ld);",
    ),
    # the k steps of the N x K loader in reverse
    "b_nk": (
        "fx_ldmatrix_x4(r, tile + (lane & 7) * ld + (lane >> 3) * 8);",
        "fx_ldmatrix_x4(r, tile + (lane & 7) * ld + (3 - (lane >> 3)) * 8);",
    ),
    # the K x N loader without .trans
    "b_kn": (
        "fx_ldmatrix_x4_trans(r, tile + (lane & 15) * ld",
        "fx_ldmatrix_x4(r, tile + (lane & 15) * ld",
    ),
}


@pytest.mark.cxx
@pytest.mark.parametrize("mutation", sorted(LOADER_MUTATIONS))
def test_a_mutated_loader_fails(mutation: str) -> None:
    old, new = LOADER_MUTATIONS[mutation]
    assert tc.TENSOR_CORE_CUDA.count(old) == 1
    program = build(source(tc.TENSOR_CORE_CUDA.replace(old, new)), NAMES)
    ldsm, scalar = loaders(program)
    registers = {"a": slice(0, 4), "b_nk": slice(4, 8), "b_kn": slice(8, 12)}
    wrong = [
        name
        for name, cut in registers.items()
        if not np.array_equal(ldsm[:, cut], scalar[:, cut])
    ]
    assert wrong == [mutation]


@pytest.mark.cxx
def test_a_mutated_simulator_fails_against_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The simulator's .trans reading rows for columns: the raw check
    fails for .trans only."""
    old = "int matrix_row = trans ? 2 * in_group + h : group;"
    new = "int matrix_row = trans ? group : group;"
    assert cuda_sim.HEADER.count(old) == 1
    monkeypatch.setattr(cuda_sim, "HEADER", cuda_sim.HEADER.replace(old, new))
    matrices, out, out_trans = raw(build(source(), NAMES))
    assert np.array_equal(out, tc.ldmatrix_registers(matrices, trans=False))
    assert not np.array_equal(out_trans, tc.ldmatrix_registers(matrices, trans=True))


@pytest.mark.nvcc
def test_nvcc_accepts_ldmatrix(tmp_path: Path) -> None:
    ptx = compile_ptx(source(), tmp_path, "ldmatrix")
    assert "ldmatrix.sync.aligned.m8n8.x4.shared.b16" in ptx
    assert "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16" in ptx
