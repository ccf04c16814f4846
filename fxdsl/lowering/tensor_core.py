"""The warp-level tensor-core primitives of fxdsl's kernels: CUDA C device
code for `mma.sync.aligned.m16n8k16.row.col.f32.{bf16,f16}.{bf16,f16}.f32`
and its fragments, plus the fragment layout as Python facts.

`TENSOR_CORE_CUDA` is pasted once into a kernel's translation unit (it
needs no header: 16-bit values travel as their bits). It defines

* `fx_mma_m16n8k16_bf16(d, a, b, c)` and `_f16`: D = A @ B + C for a 16x16
  A, a 16x8 B and 16x8 f32 C/D, one warp together (all 32 lanes call it);
* `fx_pack_bf16x2(lo, hi)` / `fx_pack_f16x2`: two floats rounded to nearest
  even into one register, `lo` in the low half;
* `fx_load_frag_a` (a row-major 16x16 tile), `fx_load_frag_b_kn` (B from a
  row-major K x N tile), `fx_load_frag_b_nk` (B from a row-major N x K tile,
  i.e. B^T stored: the K of attention's Q K^T), `fx_frag_a_from_c_bf16/_f16`
  (two f32 C fragments, side by side in N, as the A fragment of the next
  product: attention's P @ V), and `fx_frag_c_row/col(lane, i)`, the
  matrix coordinates of accumulator element i, so that a kernel never
  restates the lane mapping;
* `fx_ldmatrix_x4(r, row)` and `_trans` (`ldmatrix.sync...m8n8.x4`, four
  8x8 matrices from shared memory in one instruction) and the loaders
  built on it, the same fragments as the scalar ones above:
  `fx_ldsm_frag_a`, `fx_ldsm_frag_b_nk_x2` (two k steps of B from an
  N x K tile) and `fx_ldsm_frag_b_kn_x2` (two n blocks of B from a K x N
  tile).

The layout is the PTX ISA's (section "Matrix Fragments for mma.m16n8k16
with floating point type"): with `g = lane >> 2`, `t = lane & 3`, each
32-bit register holds two 16-bit values, the lower index in the low half:

    A 16x16:  a[0] row g,   cols 2t, 2t+1     a[2] row g,   cols 2t+8, 2t+9
              a[1] row g+8, cols 2t, 2t+1     a[3] row g+8, cols 2t+8, 2t+9
    B 16x8:   b[0] rows 2t, 2t+1 of col g     b[1] rows 2t+8, 2t+9 of col g
    C/D 16x8: c[0], c[1] row g, cols 2t, 2t+1; c[2], c[3] row g+8, same cols

Under nvcc/NVRTC the mma and the conversions are inline PTX (sm_80 and
later). Under cuda-sim (`FX_CUDA_SIM`, defined by its header) they call the
header's emulation of those instructions (`fx_sim::mma_m16n8k16`,
`fx_sim::cvt_rn_x2`, `fx_sim::ldmatrix_x4`), written from the PTX ISA
independently of the helpers here, so the exact kernels run on the CPU
under the sanitizers.

Python: `a_fragment_coords(lane)` and friends are the same layout as data,
element by element (`a0..a7` in register order, low half first), the table
that tests pack matrices with and read results back by; `a_registers`,
`b_registers`, `c_registers` and `from_c_registers` do that packing;
`ldmatrix_coords(lane, trans)` and `ldmatrix_registers` are ldmatrix's.
"""

from __future__ import annotations

import numpy as np

M, N, K = 16, 8, 16
"""The shape of one mma: A is M x K, B is K x N, C and D are M x N."""
WARP = 32

TENSOR_CORE_CUDA = r"""
// ---- fxdsl tensor-core primitives (fxdsl/lowering/tensor_core.py) ----
// mma.sync m16n8k16, f32 accumulators. Fragment layout (PTX ISA), with
// g = lane >> 2, t = lane & 3; a register holds two 16-bit values, the
// lower row/column in the low half:
//   A 16x16: a[0] (g, 2t..2t+1)  a[1] (g+8, 2t..)  a[2] (g, 2t+8..)  a[3] (g+8, 2t+8..)
//   B 16x8:  b[0] rows 2t..2t+1 of col g;  b[1] rows 2t+8..2t+9 of col g
//   C/D:     c[0], c[1] (g, 2t), (g, 2t+1);  c[2], c[3] (g+8, 2t), (g+8, 2t+1)

#define FX_TC __device__ inline
// accumulator element i (0..3) of `lane`: its row and column in the 16x8 tile
FX_TC int fx_frag_c_row(int lane, int i) { return (lane >> 2) + 8 * (i >> 1); }
FX_TC int fx_frag_c_col(int lane, int i) { return 2 * (lane & 3) + (i & 1); }
// A register r (0..3): its row, and the column of its low half (high: +1)
FX_TC int fx_frag_a_row(int lane, int r) { return (lane >> 2) + 8 * (r & 1); }
FX_TC int fx_frag_a_col(int lane, int r) { return 2 * (lane & 3) + 8 * (r >> 1); }
// B register r (0..1): the row (k) of its low half (high: +1), and its column
FX_TC int fx_frag_b_row(int lane, int r) { return 2 * (lane & 3) + 8 * r; }
FX_TC int fx_frag_b_col(int lane) { return lane >> 2; }

FX_TC unsigned fx_pair_bits(unsigned short lo, unsigned short hi) {
  return (unsigned)lo | ((unsigned)hi << 16);
}
template <typename T>
FX_TC unsigned short fx_bits16(const T* p) {
  static_assert(sizeof(T) == 2, "a 16-bit element type");
  return *reinterpret_cast<const unsigned short*>(p);
}
// p[0] (low half) and p[1]: one 32-bit load, so p must be 4-byte aligned
template <typename T>
FX_TC unsigned fx_load_pair(const T* p) {
  static_assert(sizeof(T) == 2, "a 16-bit element type");
  return *reinterpret_cast<const unsigned*>(p);
}

// A fragment of the row-major 16x16 tile at `tile`, `ld` elements a row
// (ld even and tile 4-byte aligned: pairs are 32-bit loads)
template <typename T>
FX_TC void fx_load_frag_a(unsigned a[4], const T* tile, int ld, int lane) {
  for (int r = 0; r < 4; ++r)
    a[r] = fx_load_pair(tile + fx_frag_a_row(lane, r) * ld + fx_frag_a_col(lane, r));
}
// B fragment of a row-major K x N tile (16 rows of k, 8 columns of n)
template <typename T>
FX_TC void fx_load_frag_b_kn(unsigned b[2], const T* tile, int ld, int lane) {
  int n = fx_frag_b_col(lane);
  for (int r = 0; r < 2; ++r) {
    const T* low = tile + fx_frag_b_row(lane, r) * ld + n;
    b[r] = fx_pair_bits(fx_bits16(low), fx_bits16(low + ld));
  }
}
// B fragment of a row-major N x K tile (8 rows of n, 16 columns of k): B^T
// stored, as K is for S = Q K^T (ld even and tile 4-byte aligned)
template <typename T>
FX_TC void fx_load_frag_b_nk(unsigned b[2], const T* tile, int ld, int lane) {
  int n = fx_frag_b_col(lane);
  for (int r = 0; r < 2; ++r)
    b[r] = fx_load_pair(tile + n * ld + fx_frag_b_row(lane, r));
}

// ldmatrix.sync.aligned.m8n8.x4[.trans].shared.b16: four 8x8 matrices of
// 16-bit values from shared memory, one warp together. Lane l gives the
// address of row l % 8 of matrix l / 8 (16-byte aligned); register i of
// lane l receives matrix i's row l / 4, columns 2 (l % 4) and 2 (l % 4) + 1
// (.trans: rows 2 (l % 4) and 2 (l % 4) + 1 of column l / 4), the lower
// column (row) in the low half: one instruction for four fragments
FX_TC void fx_ldmatrix_x4(unsigned r[4], const void* row);
FX_TC void fx_ldmatrix_x4_trans(unsigned r[4], const void* row);

// A fragment of a row-major 16x16 tile in shared memory (rows 16-byte
// aligned): matrices (rows 0-7, 8-15) x (cols 0-7, 8-15) are a[0..3]
template <typename T>
FX_TC void fx_ldsm_frag_a(unsigned a[4], const T* tile, int ld, int lane) {
  fx_ldmatrix_x4(a, tile + (lane & 15) * ld + (lane >> 4) * 8);
}
// B fragments of two k steps (b0: k 0..15, b1: k 16..31) of a row-major
// N x K tile in shared memory (8 rows of n, 32 columns of k)
template <typename T>
FX_TC void fx_ldsm_frag_b_nk_x2(unsigned b0[2], unsigned b1[2], const T* tile,
                                int ld, int lane) {
  unsigned r[4];
  fx_ldmatrix_x4(r, tile + (lane & 7) * ld + (lane >> 3) * 8);
  b0[0] = r[0], b0[1] = r[1], b1[0] = r[2], b1[1] = r[3];
}
// B fragments of two n blocks (b0: n 0..7, b1: n 8..15) of a row-major
// K x N tile in shared memory (16 rows of k, 16 columns of n), transposed
// by ldmatrix
template <typename T>
FX_TC void fx_ldsm_frag_b_kn_x2(unsigned b0[2], unsigned b1[2], const T* tile,
                                int ld, int lane) {
  unsigned r[4];
  fx_ldmatrix_x4_trans(r, tile + (lane & 15) * ld + (lane >> 4) * 8);
  b0[0] = r[0], b0[1] = r[1], b1[0] = r[2], b1[1] = r[3];
}

#ifdef FX_CUDA_SIM
FX_TC void fx_ldmatrix_x4(unsigned r[4], const void* row) {
  fx_sim::ldmatrix_x4(r, row, false);
}
FX_TC void fx_ldmatrix_x4_trans(unsigned r[4], const void* row) {
  fx_sim::ldmatrix_x4(r, row, true);
}
FX_TC unsigned fx_pack_bf16x2(float lo, float hi) {
  return fx_sim::cvt_rn_x2(hi, lo, fx_sim::MMA_BF16);
}
FX_TC unsigned fx_pack_f16x2(float lo, float hi) {
  return fx_sim::cvt_rn_x2(hi, lo, fx_sim::MMA_F16);
}
FX_TC void fx_mma_m16n8k16_bf16(float d[4], const unsigned a[4],
                                            const unsigned b[2], const float c[4]) {
  fx_sim::mma_m16n8k16(d, a, b, c, fx_sim::MMA_BF16);
}
FX_TC void fx_mma_m16n8k16_f16(float d[4], const unsigned a[4],
                                           const unsigned b[2], const float c[4]) {
  fx_sim::mma_m16n8k16(d, a, b, c, fx_sim::MMA_F16);
}
#else
#define FX_LDMATRIX_X4(modifier)                                               \
  asm volatile("{ .reg .u64 s; .reg .u32 a; cvta.to.shared.u64 s, %4; "       \
               "cvt.u32.u64 a, s; ldmatrix.sync.aligned.m8n8.x4" modifier     \
               ".shared.b16 {%0, %1, %2, %3}, [a]; }"                         \
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])               \
               : "l"(row))
FX_TC void fx_ldmatrix_x4(unsigned r[4], const void* row) { FX_LDMATRIX_X4(""); }
FX_TC void fx_ldmatrix_x4_trans(unsigned r[4], const void* row) {
  FX_LDMATRIX_X4(".trans");
}
#undef FX_LDMATRIX_X4
// cvt.rn.{bf16x2,f16x2}.f32 d, a, b puts a in the upper half, b in the lower
FX_TC unsigned fx_pack_bf16x2(float lo, float hi) {
  unsigned d;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}
FX_TC unsigned fx_pack_f16x2(float lo, float hi) {
  unsigned d;
  asm("cvt.rn.f16x2.f32 %0, %1, %2;" : "=r"(d) : "f"(hi), "f"(lo));
  return d;
}
#define FX_MMA_M16N8K16(type)                                                        \
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32." type "." type ".f32 "        \
               "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};" \
               : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                      \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),   \
                 "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]))
FX_TC void fx_mma_m16n8k16_bf16(float d[4], const unsigned a[4],
                                            const unsigned b[2], const float c[4]) {
  FX_MMA_M16N8K16("bf16");
}
FX_TC void fx_mma_m16n8k16_f16(float d[4], const unsigned a[4],
                                           const unsigned b[2], const float c[4]) {
  FX_MMA_M16N8K16("f16");
}
#undef FX_MMA_M16N8K16
#endif

// the A fragment (16 rows x 16 k) made of two accumulator fragments side by
// side: c0 holds columns 0..7, c1 columns 8..15 (P @ V after S = Q K^T)
FX_TC void fx_frag_a_from_c_bf16(unsigned a[4], const float c0[4], const float c1[4]) {
  a[0] = fx_pack_bf16x2(c0[0], c0[1]);
  a[1] = fx_pack_bf16x2(c0[2], c0[3]);
  a[2] = fx_pack_bf16x2(c1[0], c1[1]);
  a[3] = fx_pack_bf16x2(c1[2], c1[3]);
}
FX_TC void fx_frag_a_from_c_f16(unsigned a[4], const float c0[4], const float c1[4]) {
  a[0] = fx_pack_f16x2(c0[0], c0[1]);
  a[1] = fx_pack_f16x2(c0[2], c0[3]);
  a[2] = fx_pack_f16x2(c1[0], c1[1]);
  a[3] = fx_pack_f16x2(c1[2], c1[3]);
}
#undef FX_TC
// ---- end of the tensor-core primitives ----
"""


def _group(lane: int) -> tuple[int, int]:
    """(groupID, threadID_in_group) of a lane."""
    assert 0 <= lane < WARP
    return lane >> 2, lane % 4


def a_fragment_coords(lane: int) -> list[tuple[int, int]]:
    """(row, col) in the 16x16 A of elements a0..a7 of `lane`; element i
    is the low (i even) or high half of register i // 2."""
    g, t = _group(lane)
    return [
        (g if i < 2 or 4 <= i < 6 else g + 8, 2 * t + (i & 1) + (8 if i >= 4 else 0))
        for i in range(8)
    ]


def b_fragment_coords(lane: int) -> list[tuple[int, int]]:
    """(row, col) in the 16x8 B of elements b0..b3 of `lane` (register i // 2)."""
    g, t = _group(lane)
    return [(2 * t + (i & 1) + (8 if i >= 2 else 0), g) for i in range(4)]


def c_fragment_coords(lane: int) -> list[tuple[int, int]]:
    """(row, col) in the 16x8 C/D of elements c0..c3 of `lane` (one f32 each)."""
    g, t = _group(lane)
    return [(g if i < 2 else g + 8, 2 * t + (i & 1)) for i in range(4)]


def _pack(bits: np.ndarray, coords: object) -> np.ndarray:
    table = [coords(lane) for lane in range(WARP)]  # type: ignore[operator]
    halves = np.array([[bits[r, c] for r, c in row] for row in table], np.uint32)
    return halves[:, 0::2] | (halves[:, 1::2] << 16)


def a_registers(bits: np.ndarray) -> np.ndarray:
    """(32, 4) uint32: every lane's A registers for a 16x16 uint16 matrix of
    bf16/f16 bits."""
    assert bits.shape == (M, K)
    assert bits.dtype == np.uint16
    return _pack(bits, a_fragment_coords)


def b_registers(bits: np.ndarray) -> np.ndarray:
    """(32, 2) uint32: every lane's B registers for a 16x8 uint16 matrix."""
    assert bits.shape == (K, N)
    assert bits.dtype == np.uint16
    return _pack(bits, b_fragment_coords)


def c_registers(values: np.ndarray) -> np.ndarray:
    """(32, 4) float32: every lane's C registers for a 16x8 matrix."""
    assert values.shape == (M, N)
    return np.array(
        [[values[r, c] for r, c in c_fragment_coords(lane)] for lane in range(WARP)],
        np.float32,
    )


def from_c_registers(registers: np.ndarray) -> np.ndarray:
    """The 16x8 matrix held by every lane's (32, 4) C/D registers."""
    out = np.full((M, N), np.nan, np.float32)
    for lane in range(WARP):
        for (r, c), value in zip(c_fragment_coords(lane), registers[lane]):
            out[r, c] = value
    return out


def ldmatrix_coords(lane: int, trans: bool) -> list[tuple[int, int, int]]:
    """(matrix, row, col) of the eight 16-bit halves `lane` receives from
    `ldmatrix...m8n8.x4[.trans]`: register i // 2, low half first."""
    g, t = _group(lane)
    if trans:
        return [(i // 2, 2 * t + (i & 1), g) for i in range(8)]
    return [(i // 2, g, 2 * t + (i & 1)) for i in range(8)]


def ldmatrix_registers(matrices: np.ndarray, trans: bool) -> np.ndarray:
    """(32, 4) uint32: every lane's registers after ldmatrix.x4 of four 8x8
    uint16 matrices (`matrices[i]` is matrix i)."""
    assert matrices.shape == (4, 8, 8)
    assert matrices.dtype == np.uint16
    halves = np.array(
        [[matrices[m, r, c] for m, r, c in ldmatrix_coords(lane, trans)]
         for lane in range(WARP)],
        np.uint32,
    )  # fmt: skip
    return halves[:, 0::2] | (halves[:, 1::2] << 16)
