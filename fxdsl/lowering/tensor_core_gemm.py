"""A tensor-core GEMM kernel in CUDA C: `C[b] = A[b] @ B[b]` with bf16 or
f16 operands, f32 accumulation and a bf16, f16 or f32 result, built on
`fxdsl.lowering.tensor_core`'s `mma.sync.m16n8k16`.

What it is for: fxdsl's in-house tensor-core path, a kernel whose every
line is checked without a GPU (cuda-sim runs it on the CPU under the
sanitizers; `nvcc -ptx -arch=sm_90` compiles it) and a base for fused GEMM
epilogues. What it is not: the default GEMM. At runtime bf16/f16 GEMMs go
to cuBLAS (`fxdsl.runtime.cublas`), and nothing here claims to be as fast:
this kernel has not been timed on a GPU. It is the plain form of the
algorithm, with no cp.async pipelining, no ldmatrix and no swizzled
shared memory, so expect it to be well behind cuBLAS until a GPU
measurement says otherwise.

Like every fxdsl kernel it is specialised to static shapes: M, N, K, the
batch count and the strided views of A, B and C (offsets, batch, row and
column strides: transposed, sliced and broadcast operands read in place)
are constants of the source. A block of
`WARPS` warps computes a `BLOCK_M` x `BLOCK_N` tile of one batch entry
(grid: N tiles, M tiles, batch), walking K `BLOCK_K` at a time:

* the block stages the A tile (`BLOCK_M` x `BLOCK_K`) and the B tile
  (`BLOCK_K` x `BLOCK_N`, or `BLOCK_N` x `BLOCK_K` when B is contiguous
  along K, as a `linear` weight is) in shared memory, zero past M, N and
  K, so a ragged edge needs no test in the inner loop; consecutive threads
  read along the operand's unit stride, 16 bytes (`uint4`) at a time where
  the view's runs of 8 are contiguous and 16-byte aligned (the buffers'
  bases are: CuPy's allocations and cuda-sim's are), else element by
  element;
* each warp owns a `WARP_M` x `WARP_N` sub-tile: per 16 of K it loads
  `WARP_M / 16` A fragments and `WARP_N / 8` B fragments with the
  primitives' loaders and issues one mma per pair into f32 accumulators;
* the epilogue stores each accumulator at `fx_frag_c_row/col`, skipping
  rows past M and columns past N, rounded once to the result type.
"""

from __future__ import annotations

from dataclasses import dataclass

from fxdsl.ir.layout import Layout
from fxdsl.lowering.tensor_core import TENSOR_CORE_CUDA

BLOCK_M, BLOCK_N, BLOCK_K = 64, 64, 32
"""The block tile: M x N of the result, K per shared-memory stage."""
WARPS_M, WARPS_N = 2, 2
"""Warps of a block along M and N (`WARPS` = their product)."""
WARPS = WARPS_M * WARPS_N
WARP_M, WARP_N = BLOCK_M // WARPS_M, BLOCK_N // WARPS_N
PAD = 8
"""Extra 16-bit elements per shared-memory row: rows do not start on the
same bank, and stay 16-byte aligned (the loaders need 4)."""
OPERANDS = TENSOR_CORE_ELEMENTS = ("bf16", "f16")
"""The element types this kernel multiplies."""
GEMM_ROUTES = ("cublas", "tensor-core")
"""Where a runtime sends a GEMM: cuBLAS (the default; cuda-sim emulates it
with numpy) or, for bf16/f16 GEMMs, this kernel (opt-in)."""
RESULTS = ("bf16", "f16", "f32")
MAX_GRID_Z = 65535
"""CUDA's limit on gridDim.z: the batch count of one launch."""


@dataclass(frozen=True)
class GemmShape:
    """One batched GEMM: `batch` products (M x K) @ (K x N) -> (M x N).
    `a`, `b`, `c` are the strided views (in elements) of the three buffers
    the kernel gets, shaped (batch, M, K), (batch, K, N), (batch, M, N);
    None is dense row-major. A batch stride of 0 broadcasts an operand;
    B with strides (.., 1, K) is B^T stored N x K, as a `linear` weight is."""

    m: int
    n: int
    k: int
    batch: int = 1
    operand: str = "bf16"
    result: str = "f32"
    a: Layout | None = None
    b: Layout | None = None
    c: Layout | None = None

    def __post_init__(self) -> None:
        if self.operand not in OPERANDS:
            raise ValueError(f"operand type {self.operand!r} not in {OPERANDS}")
        if self.result not in RESULTS:
            raise ValueError(f"result type {self.result!r} not in {RESULTS}")
        if min(self.m, self.n, self.k, self.batch) < 1:
            raise ValueError(f"empty GEMM {self}")
        if self.batch > MAX_GRID_Z:
            raise ValueError(f"batch {self.batch} > {MAX_GRID_Z} (gridDim.z)")
        for operand in "abc":
            given, shape = getattr(self, operand), self._shape(operand)
            if given is not None and given.shape != shape:
                raise ValueError(f"{operand} is {given.shape}, not {shape}")

    def _shape(self, operand: str) -> tuple[int, int, int]:
        rows, cols = {"a": (self.m, self.k), "b": (self.k, self.n)}.get(
            operand, (self.m, self.n)
        )
        return (self.batch, rows, cols)

    def layout(self, name: str) -> Layout:
        """The view of operand `name` ("a", "b" or "c"), dense when None."""
        given = getattr(self, name)
        return Layout.dense(self._shape(name)) if given is None else given

    @property
    def b_n_by_k(self) -> bool:
        """B is staged N x K in shared memory (its k stride is 1, its n
        stride is not): global reads and fragment loads both run along k."""
        _, k_stride, n_stride = self.layout("b").strides
        return k_stride == 1 and n_stride != 1 and self.n > 1

    @property
    def grid(self) -> tuple[int, int, int]:
        return (-(-self.n // BLOCK_N), -(-self.m // BLOCK_M), self.batch)

    @property
    def block(self) -> tuple[int, int, int]:
        return (32 * WARPS, 1, 1)


def gemm_of_views(
    a: Layout, b: Layout, c: Layout, element: str, result: str | None = None
) -> GemmShape:
    """The GEMM `c[i] = a[i] @ b[i]` of a launch plan's (or a lowered
    module's) 3-D views, operands of one `element` type (bf16 or f16), the
    result of `result` (default `element`; f32 where graph.matmul widens)."""
    batch, m, k = a.shape
    return GemmShape(m, b.shape[2], k, batch, element, result or element, a, b, c)


_KERNEL = r"""
extern "C" __global__ void __launch_bounds__({threads}) {name}(
    const unsigned short* __restrict__ A, const unsigned short* __restrict__ B,
    {out_type}* __restrict__ C) {{
  // {m} x {n} x {k}, batch {batch}; {operand} operands, f32 accumulators
  __shared__ __align__(16) unsigned short sA[{bm}][{bk} + {pad}];
  __shared__ __align__(16) unsigned short sB[{b_rows}][{b_cols} + {pad}];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int warp_m = (warp / {warps_n}) * {wm}, warp_n = (warp % {warps_n}) * {wn};
  const int m0 = blockIdx.y * {bm}, n0 = blockIdx.x * {bn};
  A += {a_offset} + (long long)blockIdx.z * {a_batch};
  B += {b_offset} + (long long)blockIdx.z * {b_batch};
  C += {c_offset} + (long long)blockIdx.z * {c_batch};
  float acc[{tiles_m}][{tiles_n}][4];
  for (int i = 0; i < {tiles_m}; ++i)
    for (int j = 0; j < {tiles_n}; ++j)
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
  for (int k0 = 0; k0 < {k}; k0 += {bk}) {{
    // stage the tiles, zero past M, N and K
{stage_a}{stage_b}    __syncthreads();
    for (int kk = 0; kk < {bk}; kk += 16) {{
      unsigned a[{tiles_m}][4], b[{tiles_n}][2];
      for (int i = 0; i < {tiles_m}; ++i)
        fx_load_frag_a(a[i], &sA[warp_m + 16 * i][kk], {bk} + {pad}, lane);
      for (int j = 0; j < {tiles_n}; ++j)
        {frag_b};
      for (int i = 0; i < {tiles_m}; ++i)
        for (int j = 0; j < {tiles_n}; ++j)
          fx_mma_m16n8k16_{operand}(acc[i][j], a[i], b[j], acc[i][j]);
    }}
    __syncthreads();  // every warp has read the tiles before the next stage
  }}
  for (int i = 0; i < {tiles_m}; ++i)
    for (int j = 0; j < {tiles_n}; ++j)
      for (int e = 0; e < 4; ++e) {{
        int row = m0 + warp_m + 16 * i + fx_frag_c_row(lane, e);
        int col = n0 + warp_n + 8 * j + fx_frag_c_col(lane, e);
        if (row < {m} && col < {n})
          C[(long long)row * {c_m} + (long long)col * {c_n}] = {store};
      }}
}}
"""
_FRAG_B_KN = "fx_load_frag_b_kn(b[j], &sB[kk][warp_n + 8 * j], {bn} + {pad}, lane)"
_FRAG_B_NK = "fx_load_frag_b_nk(b[j], &sB[warp_n + 8 * j][kk], {bk} + {pad}, lane)"
_STORE = {
    "f32": ("float", "acc[i][j][e]"),
    "bf16": ("unsigned short", "(unsigned short)fx_pack_bf16x2(acc[i][j][e], 0.0f)"),
    "f16": ("unsigned short", "(unsigned short)fx_pack_f16x2(acc[i][j][e], 0.0f)"),
}


VECTOR = 8
"""16-bit elements per 16-byte global load (`uint4`)."""


@dataclass(frozen=True)
class _Stage:
    """Copy a rows x cols tile of `source` into shared `tile`, zero past
    the bounds. Shared (r, c) is global (row0 + r, col0 + c), with the
    global row and column strides and bounds given."""

    tile: str
    rows: int
    cols: int
    source: str
    row0: str
    col0: str
    row_bound: int
    col_bound: int
    row_stride: int
    col_stride: int

    def vectorizable(self, base: int) -> bool:
        """Runs of 8 along the columns are contiguous and 16-byte aligned
        (with the buffer's base, `base` elements past it, 16-byte aligned)."""
        return (
            self.col_stride == 1
            and self.cols % VECTOR == 0
            and self.row_stride % VECTOR == 0
            and base % VECTOR == 0
        )

    def code(self, threads: int, vector: bool) -> str:
        t, src, rows, cols = self.tile, self.source, self.rows, self.cols
        inside = f"gr < {self.row_bound} && gc < {self.col_bound}"
        at = f"(long long)gr * {self.row_stride} + (long long)gc * {self.col_stride}"
        start = f"int gr = {self.row0} + r, gc = {self.col0} + c;"
        if not vector:
            # consecutive threads walk the dimension of global stride 1
            if self.row_stride == 1 and self.col_stride != 1:
                split = f"int r = e % {rows}, c = e / {rows};"
            else:
                split = f"int r = e / {cols}, c = e % {cols};"
            return f"""    for (int e = tid; e < {rows * cols}; e += {threads}) {{
      {split}
      {start}
      {t}[r][c] = ({inside}) ? {src}[{at}] : 0;
    }}
"""
        runs = cols // VECTOR
        return f"""    for (int e = tid; e < {rows * runs}; e += {threads}) {{
      int r = e / {runs}, c = (e % {runs}) * {VECTOR};
      {start}
      if (gr < {self.row_bound} && gc + {VECTOR} <= {self.col_bound}) {{
        *reinterpret_cast<uint4*>(&{t}[r][c]) =
            *reinterpret_cast<const uint4*>(&{src}[{at}]);
      }} else {{  // the tile's edge: element by element, zero outside
        for (int q = 0; q < {VECTOR}; ++q, ++gc, ++c)
          {t}[r][c] = ({inside}) ? {src}[{at}] : 0;
      }}
    }}
"""


def gemm_kernel(shape: GemmShape, name: str) -> str:
    """The CUDA C of one kernel `name` for `shape` (without the primitives:
    see `gemm_source`). Its arguments: the A and B buffers (16-bit bits)
    and the C buffer, each at its base; the views are in the source."""
    out_type, store = _STORE[shape.result]
    a, b, c = (shape.layout(operand) for operand in "abc")
    nk = shape.b_n_by_k
    b_rows, b_cols = (BLOCK_N, BLOCK_K) if nk else (BLOCK_K, BLOCK_N)
    a_stage = _Stage("sA", BLOCK_M, BLOCK_K, "A", "m0", "k0", shape.m, shape.k,
                     a.strides[1], a.strides[2])  # fmt: skip
    if nk:
        b_stage = _Stage("sB", BLOCK_N, BLOCK_K, "B", "n0", "k0", shape.n, shape.k,
                         b.strides[2], b.strides[1])  # fmt: skip
    else:
        b_stage = _Stage("sB", BLOCK_K, BLOCK_N, "B", "k0", "n0", shape.k, shape.n,
                         b.strides[1], b.strides[2])  # fmt: skip
    a_vector = a_stage.vectorizable(a.offset) and a_stage.vectorizable(a.strides[0])
    b_vector = b_stage.vectorizable(b.offset) and b_stage.vectorizable(b.strides[0])
    values = dict(
        name=name, m=shape.m, n=shape.n, k=shape.k, batch=shape.batch,
        operand=shape.operand, out_type=out_type, store=store,
        bm=BLOCK_M, bn=BLOCK_N, bk=BLOCK_K, pad=PAD, wm=WARP_M, wn=WARP_N,
        warps_n=WARPS_N, tiles_m=WARP_M // 16, tiles_n=WARP_N // 8,
        threads=32 * WARPS, b_rows=b_rows, b_cols=b_cols,
        a_offset=a.offset, a_batch=a.strides[0], a_m=a.strides[1], a_k=a.strides[2],
        b_offset=b.offset, b_batch=b.strides[0], b_k=b.strides[1], b_n=b.strides[2],
        c_offset=c.offset, c_batch=c.strides[0], c_m=c.strides[1], c_n=c.strides[2],
        stage_a=a_stage.code(32 * WARPS, a_vector),
        stage_b=b_stage.code(32 * WARPS, b_vector),
    )  # fmt: skip
    frag_b = _FRAG_B_NK if nk else _FRAG_B_KN
    values["frag_b"] = frag_b.format(**values)
    return _KERNEL.format(**values)


def gemm_source(kernels: dict[str, GemmShape]) -> str:
    """One translation unit: the tensor-core primitives once, then a kernel
    per (name, shape)."""
    body = "".join(gemm_kernel(shape, name) for name, shape in kernels.items())
    return "// Generated by fxdsl (tensor-core GEMM). Do not edit.\n" + (
        TENSOR_CORE_CUDA + body
    )
