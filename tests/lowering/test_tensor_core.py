"""The tensor-core primitives (`fxdsl.lowering.tensor_core`) and cuda-sim's
emulation of `mma.sync.m16n8k16` and `cvt.rn.{bf16x2,f16x2}.f32`.

Three checks that cannot be wrong in the same way silently:

* the Python layout table is a bijection onto each matrix (every element
  held by exactly one lane and register half);
* cuda-sim's mma (written from the PTX ISA in the header) fed raw registers
  packed by the Python table equals numpy: the simulator agrees with the
  table;
* kernels that load fragments with the CUDA helpers, run the mma and store
  D by `fx_frag_c_row/col` equal numpy: the helpers agree with the
  simulator. A mutated helper (a swapped register, a swapped half) or a
  mutated simulator must make these fail.

`nvcc -ptx -arch=sm_90` accepts the same kernels and emits the mma and cvt
instructions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fxdsl.ir.dtypes import bf16_bits, from_bf16_bits
from fxdsl.lowering import tensor_core as tc
from fxdsl.runtime import cuda_sim
from fxdsl.runtime.cuda_sim import CudaSimError, Worker, build
from fxdsl.testing.nvcc import compile_ptx

TYPES = ("bf16", "f16")
WARPS = 2
"""Warps per block in the kernels below, each on its own matrices (the
simulator's per-warp scratch must keep them apart)."""

AT = """
// element i of this lane's accumulator fragment in a row-major 16 x 8 tile
#define AT(M, i) M[fx_frag_c_row(lane, i) * 8 + fx_frag_c_col(lane, i)]
"""
HELPER_KERNEL = r"""
extern "C" __global__ void mma_{t}_{layout}(const unsigned short* A,
    const unsigned short* B, const float* C, float* D) {{
  int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  A += warp * 256; B += warp * 128; C += warp * 128; D += warp * 128;
  unsigned a[4], b[2];
  float c[4], d[4];
  fx_load_frag_a(a, A, 16, lane);
  {load_b};
  for (int i = 0; i < 4; ++i) c[i] = AT(C, i);
  fx_mma_m16n8k16_{t}(d, a, b, c);
  for (int i = 0; i < 4; ++i) AT(D, i) = d[i];
}}
"""
LOAD_B = {
    "kn": "fx_load_frag_b_kn(b, B, 8, lane)",  # B stored 16 x 8 (k rows)
    "nk": "fx_load_frag_b_nk(b, B, 16, lane)",  # B^T stored 8 x 16 (n rows)
}
OTHER_KERNELS = r"""
// registers in, registers out: no helper between the test and the mma
extern "C" __global__ void mma_raw_{t}(const unsigned* A, const unsigned* B,
    const float* C, float* D) {{
  int t = threadIdx.x;
  float d[4];
  fx_mma_m16n8k16_{t}(d, A + 4 * t, B + 2 * t, C + 4 * t);
  for (int i = 0; i < 4; ++i) D[4 * t + i] = d[i];
}}
// P (16 x 16 f32, row-major) as two accumulator fragments, rounded into an
// A fragment by fx_frag_a_from_c: D = round(P) @ B
extern "C" __global__ void mma_from_c_{t}(const float* P,
    const unsigned short* B, float* D) {{
  int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  P += warp * 256; B += warp * 128; D += warp * 128;
  float c0[4], c1[4], zero[4] = {{0.f, 0.f, 0.f, 0.f}}, d[4];
  for (int i = 0; i < 4; ++i) {{
    int row = fx_frag_c_row(lane, i), col = fx_frag_c_col(lane, i);
    c0[i] = P[row * 16 + col];
    c1[i] = P[row * 16 + col + 8];
  }}
  unsigned a[4], b[2];
  fx_frag_a_from_c_{t}(a, c0, c1);
  fx_load_frag_b_kn(b, B, 8, lane);
  fx_mma_m16n8k16_{t}(d, a, b, zero);
  for (int i = 0; i < 4; ++i) AT(D, i) = d[i];
}}
"""


def kernel_names() -> list[str]:
    return [
        name
        for t in TYPES
        for name in (f"mma_{t}_kn", f"mma_{t}_nk", f"mma_raw_{t}", f"mma_from_c_{t}")
    ]


def kernels_source(primitives: str = tc.TENSOR_CORE_CUDA) -> str:
    """The primitives and every test kernel, one translation unit."""
    kernels = [
        HELPER_KERNEL.format(t=t, layout=layout, load_b=load_b)
        for t in TYPES
        for layout, load_b in LOAD_B.items()
    ]
    kernels += [OTHER_KERNELS.format(t=t) for t in TYPES]
    return primitives + AT + "".join(kernels)


def to_bits(values: np.ndarray, t: str) -> np.ndarray:
    """(uint16 bits, the float64 values they hold) of `values` rounded to t."""
    if t == "bf16":
        return bf16_bits(values.astype(np.float32))
    return values.astype(np.float16).view(np.uint16)


def from_bits(bits: np.ndarray, t: str) -> np.ndarray:
    if t == "bf16":
        return from_bf16_bits(bits).astype(np.float64)
    return bits.view(np.float16).astype(np.float64)


def problems(seed: int, t: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """WARPS problems: A (w, 16, 16) and B (w, 16, 8) bits, C (w, 16, 8) f32."""
    rng = np.random.default_rng(seed)
    a = to_bits(rng.standard_normal((WARPS, 16, 16)), t)
    b = to_bits(rng.standard_normal((WARPS, 16, 8)), t)
    c = rng.standard_normal((WARPS, 16, 8)).astype(np.float32)
    return a, b, c


def expected(a: np.ndarray, b: np.ndarray, c: np.ndarray, t: str) -> np.ndarray:
    return from_bits(a, t) @ from_bits(b, t) + c.astype(np.float64)


def close(got: np.ndarray, want: np.ndarray) -> bool:
    """f32 sums of 16 exact products: a few ulps of the largest term."""
    return bool(np.allclose(got, want, rtol=1e-5, atol=1e-5))


def run_helpers(program: Path, t: str, layout: str, seed: int = 0) -> tuple:
    a, b, c = problems(seed, t)
    b_stored = b if layout == "kn" else np.ascontiguousarray(b.transpose(0, 2, 1))
    d = np.full((WARPS, 16, 8), np.nan, np.float32)
    worker = Worker(program)
    try:
        worker.launch(f"mma_{t}_{layout}", (1, 1, 1), (32 * WARPS, 1, 1),
                      [a, b_stored, c, d])  # fmt: skip
    finally:
        worker.close()
    return d, expected(a, b, c, t)


def run_raw(program: Path, t: str, seed: int = 0) -> tuple:
    """The sim's mma fed registers packed by the Python table, one warp."""
    a, b, c = problems(seed, t)
    regs_a, regs_b = tc.a_registers(a[0]), tc.b_registers(b[0])
    regs_c = tc.c_registers(c[0])
    regs_d = np.full((32, 4), np.nan, np.float32)
    worker = Worker(program)
    try:
        worker.launch(f"mma_raw_{t}", (1, 1, 1), (32, 1, 1),
                      [regs_a, regs_b, regs_c, regs_d])  # fmt: skip
    finally:
        worker.close()
    return tc.from_c_registers(regs_d), expected(a[0], b[0], c[0], t)


@pytest.fixture(scope="module")
def program() -> Path:
    return build(kernels_source(), kernel_names())


# --- the Python table ---------------------------------------------------------


@pytest.mark.parametrize(
    ("coords", "shape", "per_lane"),
    [
        (tc.a_fragment_coords, (16, 16), 8),
        (tc.b_fragment_coords, (16, 8), 4),
        (tc.c_fragment_coords, (16, 8), 4),
    ],
)
def test_the_layout_table_covers_each_matrix_once(coords, shape, per_lane) -> None:
    held = [rc for lane in range(32) for rc in coords(lane)]
    assert all(len(coords(lane)) == per_lane for lane in range(32))
    assert sorted(held) == [(r, c) for r in range(shape[0]) for c in range(shape[1])]


def test_the_table_is_the_ptx_isa_layout_at_a_few_lanes() -> None:
    """Spot values read off the PTX ISA's figures (lane 0 and lane 5:
    groupID 1, threadID_in_group 1)."""
    assert tc.a_fragment_coords(0) == [
        (0, 0), (0, 1), (8, 0), (8, 1), (0, 8), (0, 9), (8, 8), (8, 9)
    ]  # fmt: skip
    assert tc.a_fragment_coords(5)[2:4] == [(9, 2), (9, 3)]
    assert tc.b_fragment_coords(5) == [(2, 1), (3, 1), (10, 1), (11, 1)]
    assert tc.c_fragment_coords(5) == [(1, 2), (1, 3), (9, 2), (9, 3)]


# --- cuda-sim: the simulator against the table, the helpers against both ----


@pytest.mark.cxx
@pytest.mark.parametrize("t", TYPES)
def test_sim_mma_matches_the_python_table(program: Path, t: str) -> None:
    got, want = run_raw(program, t)
    assert close(got, want), np.abs(got - want).max()


@pytest.mark.cxx
@pytest.mark.parametrize("layout", sorted(LOAD_B))
@pytest.mark.parametrize("t", TYPES)
def test_helpers_load_mma_and_store(program: Path, t: str, layout: str) -> None:
    got, want = run_helpers(program, t, layout)
    assert close(got, want), np.abs(got - want).max()


@pytest.mark.cxx
@pytest.mark.parametrize("t", TYPES)
def test_accumulators_become_an_a_fragment(program: Path, t: str) -> None:
    rng = np.random.default_rng(3)
    p = rng.standard_normal((WARPS, 16, 16)).astype(np.float32)
    _, b, _ = problems(4, t)
    d = np.full((WARPS, 16, 8), np.nan, np.float32)
    worker = Worker(program)
    worker.launch(f"mma_from_c_{t}", (1, 1, 1), (32 * WARPS, 1, 1), [p, b, d])
    worker.close()
    want = from_bits(to_bits(p, t), t) @ from_bits(b, t)
    assert close(d, want), np.abs(d - want).max()


@pytest.mark.cxx
def test_the_sim_mma_has_no_data_race() -> None:
    """Under ThreadSanitizer, two warps each doing an mma: the emulation's
    per-warp scratch is ordered by its two warp barriers."""
    program = build(kernels_source(), kernel_names(), "thread")
    got, want = run_helpers(program, "bf16", "kn")
    assert close(got, want)


@pytest.mark.cxx
def test_mma_in_a_partial_warp_is_an_error(program: Path) -> None:
    a, b, c, d = (np.zeros(n, np.float32) for n in (64, 32, 64, 64))
    with pytest.raises(CudaSimError, match="mma.sync in a warp of 16 threads"):
        Worker(program).launch("mma_raw_bf16", (1, 1, 1), (16, 1, 1), [a, b, c, d])


# --- mutations: a wrong layout must fail --------------------------------------

HELPER_MUTATIONS = {
    # a[1] <-> a[2]: rows and column blocks of A swapped
    "a_registers_swapped": [
        ("(lane >> 2) + 8 * (r & 1); }", "(lane >> 2) + 8 * (r >> 1); }"),
        ("2 * (lane & 3) + 8 * (r >> 1); }", "2 * (lane & 3) + 8 * (r & 1); }"),
    ],
    # c[1] <-> c[2]
    "c_elements_swapped": [
        ("(lane >> 2) + 8 * (i >> 1); }", "(lane >> 2) + 8 * (i & 1); }"),
        ("2 * (lane & 3) + (i & 1); }", "2 * (lane & 3) + (i >> 1); }"),
    ],
    # the halves of a B register (kn loader) swapped
    "b_halves_swapped": [
        (
            "return (unsigned)lo | ((unsigned)hi << 16);",
            "return (unsigned)hi | ((unsigned)lo << 16);",
        ),
    ],
    # B's k rows from threadID_in_group without the factor 2
    "b_rows_wrong": [
        ("{ return 2 * (lane & 3) + 8 * r; }", "{ return (lane & 3) + 8 * r; }")
    ],
}


def mutate(text: str, edits: list[tuple[str, str]]) -> str:
    for old, new in edits:
        assert text.count(old) == 1, f"the source changed: update {old!r}"
        text = text.replace(old, new)
    return text


def fails(program: Path, layout: str) -> bool:
    """The bf16 helper kernel gives wrong numbers or a sanitizer error (a
    wrong pair offset is a misaligned 32-bit load)."""
    try:
        return not close(*run_helpers(program, "bf16", layout))
    except CudaSimError:
        return True


@pytest.mark.cxx
@pytest.mark.parametrize("mutation", sorted(HELPER_MUTATIONS))
def test_a_mutated_helper_fails(mutation: str) -> None:
    source = kernels_source(mutate(tc.TENSOR_CORE_CUDA, HELPER_MUTATIONS[mutation]))
    program = build(source, kernel_names())
    wrong = [layout for layout in sorted(LOAD_B) if fails(program, layout)]
    # the nk loader does not use fx_pair_bits: only kn sees swapped halves
    assert wrong == (["kn"] if mutation == "b_halves_swapped" else ["kn", "nk"])
    got, want = run_raw(program, "bf16")  # the simulator itself is untouched
    assert close(got, want)


@pytest.mark.cxx
def test_a_mutated_pack_fails() -> None:
    edits = [
        ("cvt_rn_x2(hi, lo, fx_sim::MMA_BF16)", "cvt_rn_x2(lo, hi, fx_sim::MMA_BF16)")
    ]
    program = build(kernels_source(mutate(tc.TENSOR_CORE_CUDA, edits)), kernel_names())
    rng = np.random.default_rng(3)
    p = rng.standard_normal((WARPS, 16, 16)).astype(np.float32)
    _, b, _ = problems(4, "bf16")
    d = np.full((WARPS, 16, 8), np.nan, np.float32)
    worker = Worker(program)
    worker.launch("mma_from_c_bf16", (1, 1, 1), (32 * WARPS, 1, 1), [p, b, d])
    worker.close()
    assert not close(d, from_bits(to_bits(p, "bf16"), "bf16") @ from_bits(b, "bf16"))


@pytest.mark.cxx
def test_a_mutated_simulator_fails_against_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The halves of each B register read the other way round: the raw
    check (table vs simulator) fails, and so does the helper check, though
    the helpers are right."""
    old = "int row = in_group * 2 + (i & 1) + (i >= 2 ? 8 : 0), col = group;"
    new = "int row = in_group * 2 + (~i & 1) + (i >= 2 ? 8 : 0), col = group;"
    header = mutate(cuda_sim.HEADER, [(old, new)])
    monkeypatch.setattr(cuda_sim, "HEADER", header)
    program = build(kernels_source(), kernel_names())
    assert not close(*run_raw(program, "bf16"))
    assert not close(*run_helpers(program, "bf16", "kn"))


# --- nvcc ---------------------------------------------------------------------


@pytest.mark.nvcc
def test_nvcc_accepts_the_primitives(tmp_path: Path) -> None:
    ptx = compile_ptx(kernels_source(), tmp_path, "tensor_core")
    for t in TYPES:
        assert f"mma.sync.aligned.m16n8k16.row.col.f32.{t}.{t}.f32" in ptx
        assert f"cvt.rn.{t}x2.f32" in ptx
    assert ptx.count(".entry") == len(kernel_names())
