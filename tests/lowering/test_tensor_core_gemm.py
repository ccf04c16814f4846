"""The tensor-core GEMM kernel (`fxdsl.lowering.tensor_core_gemm`) on
cuda-sim (ASan + UBSan, one exact-size allocation per buffer, poisoned
shared memory) against numpy, for ragged and exact shapes, both B layouts,
a broadcast batch operand and every result type; and under `nvcc -ptx`.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from fxdsl.ir.dtypes import bf16_bits, from_bf16_bits
from fxdsl.ir.layout import Layout
from fxdsl.lowering.tensor_core_gemm import (
    BLOCK_K,
    BLOCK_M,
    BLOCK_N,
    GemmShape,
    gemm_kernel,
    gemm_source,
)
from fxdsl.runtime.cuda_sim import CudaSimError, Worker, build
from fxdsl.testing.nvcc import compile_ptx

SHAPES = {
    # one whole block tile, one K stage
    "exact": GemmShape(BLOCK_M, BLOCK_N, BLOCK_K),
    # ragged M, N and K over several tiles and stages, a batch of 2
    "ragged": GemmShape(BLOCK_M + 6, BLOCK_N - 14, BLOCK_K + 8, batch=2),
    # smaller than one mma in every dimension
    "tiny": GemmShape(5, 3, 7, operand="f16", result="f16"),
    # C = A @ B^T (a linear layer's weight, N x K): staged N x K
    "b_transposed": GemmShape(
        16, 72, 48, batch=2, result="bf16", b=Layout((2, 48, 72), (72 * 48, 1, 48))
    ),
    # B shared by every batch entry (batch stride 0), f16 operands
    "broadcast_b": GemmShape(
        20, 24, 40, batch=3, operand="f16", b=Layout((3, 40, 24), (0, 24, 1))
    ),
    # A read transposed from columns 5.. of a 24 x 30 buffer; C written into
    # columns 8.. of a 20 x 40 buffer
    "strided": GemmShape(
        20,
        24,
        24,
        a=Layout((1, 20, 24), (0, 1, 30), offset=5),
        c=Layout((1, 20, 24), (800, 40, 1), offset=8),
    ),
    # K = 44 in rows of 48: 16-byte loads, and a partial run at the K edge
    "sliced_k": GemmShape(20, 24, 44, a=Layout((1, 20, 44), (960, 48, 1))),
    # offset 4: runs of 8 are not 16-byte aligned, element loads
    "unaligned": GemmShape(
        20, 24, 48, result="bf16", a=Layout((1, 20, 48), (1000, 48, 1), offset=4)
    ),
}
ULP = {"f32": 2.0**-23, "bf16": 2.0**-7, "f16": 2.0**-10}


def to_bits(values: np.ndarray, t: str) -> np.ndarray:
    if t == "bf16":
        return bf16_bits(values.astype(np.float32))
    return values.astype(np.float16).view(np.uint16)


def from_bits(bits: np.ndarray, t: str) -> np.ndarray:
    if t == "bf16":
        return from_bf16_bits(bits).astype(np.float64)
    if t == "f16":
        return bits.view(np.float16).astype(np.float64)
    return bits.astype(np.float64)


def extent(layout: Layout) -> int:
    """The elements of the smallest buffer that holds `layout`."""
    return (
        layout.offset
        + sum((n - 1) * s for n, s in zip(layout.shape, layout.strides))
        + 1
    )


def view(flat: np.ndarray, layout: Layout) -> np.ndarray:
    item = flat.itemsize
    return np.lib.stride_tricks.as_strided(
        flat[layout.offset :], layout.shape, tuple(s * item for s in layout.strides)
    )


def run(program: Path, name: str, shape: GemmShape, seed: int = 0) -> None:
    """Buffers of exactly the views' extent (ASan sees one element past
    them), random operands, poisoned C; the C view must hold A @ B and C's
    other elements stay untouched."""
    rng = np.random.default_rng(seed)
    a, b, c = (shape.layout(x) for x in "abc")
    a_bits = to_bits(rng.standard_normal(extent(a)), shape.operand)
    b_bits = to_bits(rng.standard_normal(extent(b)), shape.operand)
    dtype = np.float32 if shape.result == "f32" else np.uint16
    out = np.full(extent(c), 0x7FC0 if dtype == np.uint16 else np.nan, dtype)
    before = out.copy()
    worker = Worker(program)
    try:
        worker.launch(name, shape.grid, shape.block, [a_bits, b_bits, out])
    finally:
        worker.close()
    va = from_bits(view(a_bits, a), shape.operand)
    vb = from_bits(view(b_bits, b), shape.operand)
    want = va @ vb
    got = from_bits(view(out, c), shape.result)
    # f32 accumulation over K (at most K roundings of the running sum),
    # then one rounding to the result type
    terms = np.abs(va) @ np.abs(vb)
    bound = shape.k * ULP["f32"] * terms + ULP[shape.result] / 2 * np.abs(want)
    bad = ~(np.abs(got - want) <= bound * 1.01 + 1e-30)
    assert not bad.any(), (
        f"{name}: {bad.sum()} of {bad.size} wrong, first at "
        f"{np.argwhere(bad)[0]}: {got[bad][0]} != {want[bad][0]}"
    )
    outside = np.ones(out.shape, bool)
    view(outside, c)[...] = False
    assert out[outside].tobytes() == before[outside].tobytes(), (
        f"{name} wrote outside its C view"
    )


@pytest.fixture(scope="module")
def program() -> Path:
    return build(gemm_source(SHAPES), list(SHAPES))


@pytest.mark.cxx
@pytest.mark.parametrize("name", sorted(SHAPES))
def test_gemm_matches_numpy_on_cuda_sim(program: Path, name: str) -> None:
    run(program, name, SHAPES[name])


def test_shapes_are_checked() -> None:
    with pytest.raises(ValueError, match="operand type"):
        GemmShape(2, 2, 2, operand="f32")
    with pytest.raises(ValueError, match="gridDim.z"):
        GemmShape(2, 2, 2, batch=70000)
    with pytest.raises(ValueError, match=r"a is \(1, 2, 3\), not \(1, 2, 2\)"):
        GemmShape(2, 2, 2, a=Layout.dense((1, 2, 3)))
    assert GemmShape(70, 50, 40, batch=2).grid == (1, 2, 2)
    assert SHAPES["b_transposed"].b_n_by_k
    # 16-byte global loads where the views allow them, for A and for B
    vector = {name: gemm_kernel(shape, name).count("uint4*") // 2
              for name, shape in SHAPES.items()}  # fmt: skip
    assert vector == {
        "exact": 2, "ragged": 1, "tiny": 0, "b_transposed": 2,
        "broadcast_b": 2, "strided": 1, "sliced_k": 2, "unaligned": 1,
    }  # fmt: skip
    assert not SHAPES["broadcast_b"].b_n_by_k


@pytest.mark.cxx
def test_a_missing_bounds_check_is_caught() -> None:
    """The epilogue without its row/column test writes past C at the
    ragged edge: AddressSanitizer reports it."""
    source = gemm_source({"ragged": SHAPES["ragged"]})
    guard = "if (row < 70 && col < 50)"
    assert source.count(guard) == 1, "the kernel changed: update this test"
    program = build(source.replace(guard, "if (true)"), ["ragged"])
    with pytest.raises(CudaSimError, match="heap-buffer-overflow"):
        run(program, "ragged", SHAPES["ragged"])


@pytest.mark.nvcc
def test_nvcc_accepts_the_gemm(tmp_path: Path) -> None:
    ptx = compile_ptx(gemm_source(SHAPES), tmp_path, "tensor_core_gemm")
    assert ptx.count(".entry") == len(SHAPES)
    for t in ("bf16", "f16"):
        assert f"mma.sync.aligned.m16n8k16.row.col.f32.{t}.{t}.f32" in ptx


@pytest.mark.nvcc
def test_ptxas_assembles_the_gemm_without_spills(tmp_path: Path) -> None:
    """ptxas (`nvcc -cubin`, sm_90) takes the mma and keeps the
    accumulators in registers, at a large shape too."""
    shapes = SHAPES | {"large": GemmShape(4096, 4096, 4096, result="bf16")}
    cu = tmp_path / "gemm.cu"
    cu.write_text(gemm_source(shapes))
    result = subprocess.run(
        ["nvcc", "-cubin", "-arch=sm_90", "-Xptxas", "-v", str(cu),
         "-o", str(tmp_path / "gemm.cubin")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr[-4000:]
    spills = re.findall(r"(\d+) bytes spill stores", result.stderr)
    assert len(spills) == len(shapes)
    assert set(spills) == {"0"}, result.stderr


@pytest.mark.cxx
def test_the_gemm_has_no_data_race_and_needs_its_barriers() -> None:
    """Under ThreadSanitizer: the kernel's two barriers order every shared
    access (two K stages, so the tiles are overwritten); without the one
    after the mma loop, the next stage overwrites tiles other warps still
    read, a race TSan reports whatever the timing."""
    shape = SHAPES["ragged"]
    source = gemm_source({"ragged": shape})
    program = build(source, ["ragged"], "thread")
    run(program, "ragged", shape)
    barrier = "__syncthreads();  // every warp has read the tiles"
    assert source.count(barrier) == 1, "the kernel changed: update this test"
    broken = build(source.replace(barrier, "//"), ["ragged"], "thread")
    with pytest.raises(CudaSimError, match="ThreadSanitizer: data race"):
        run(broken, "ragged", shape)


@pytest.mark.cxx
def test_a_wrong_vector_decision_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """16-byte loads forced on a view whose runs are not 16-byte aligned:
    UBSan reports the misaligned `uint4` load."""
    from fxdsl.lowering import tensor_core_gemm

    monkeypatch.setattr(
        tensor_core_gemm._Stage,
        "vectorizable",
        lambda stage, base: stage.col_stride == 1,
    )
    shape = SHAPES["unaligned"]
    program = build(gemm_source({"unaligned": shape}), ["unaligned"])
    with pytest.raises(
        CudaSimError, match="misaligned address .* 'const struct uint4'"
    ):
        run(program, "unaligned", shape)


def random_shapes(seed: int, count: int) -> dict[str, GemmShape]:
    """Random GEMMs: sizes 1..80 (ragged against every tile), A and B
    dense, transposed or broadcast, every type pair."""
    rng = np.random.default_rng(seed)
    shapes = {}
    for index in range(count):
        m, n, k = (int(x) for x in rng.integers(1, 81, 3))
        batch = int(rng.integers(1, 3))
        a = Layout.dense((batch, m, k))
        if rng.random() < 0.4:  # A^T stored
            a = Layout((batch, m, k), (m * k, 1, m))
        b = Layout.dense((batch, k, n))
        kind = rng.integers(3)
        if kind == 1:  # B^T stored (N x K)
            b = Layout((batch, k, n), (k * n, 1, k))
        elif kind == 2:  # one B for every batch entry
            b = Layout((batch, k, n), (0, n, 1))
        operand = str(rng.choice(["bf16", "f16"]))
        result = str(rng.choice(["bf16", "f16", "f32"]))
        shapes[f"random_{index}"] = GemmShape(m, n, k, batch, operand, result, a, b)
    return shapes


@pytest.mark.cxx
def test_random_gemms_match_numpy() -> None:
    """Six random GEMMs (one program), each against numpy."""
    shapes = random_shapes(seed=2026, count=6)
    program = build(gemm_source(shapes), list(shapes))
    for name, shape in shapes.items():
        run(program, name, shape, seed=7)
