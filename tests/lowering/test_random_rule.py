"""graph.random lowered to a kernel: the same Philox words as the reference,
bit for bit on the IR emulator and in the printed CUDA C (cuda-sim, with
UBSan: no signed overflow in the word arithmetic), normals within an ulp;
and the C compiles for sm_90."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fxdsl.api import apply, parse
from fxdsl.interpreters.run import run_reference
from fxdsl.lowering.cuda_printer import kernel_source
from fxdsl.runtime.ir_emulator import Emulator
from fxdsl.testing.nvcc import compile_ptx

TYPES = "tensor<3x5xf32>, tensor<7xf32>, tensor<4xi64>, tensor<6xf16>, tensor<3x4xf32>"
PROGRAM = f"""func.func @f(%s: tensor<2xi64>) -> ({TYPES}) {{
  %u = graph.random %s distribution "uniform" : (tensor<2xi64>) -> tensor<3x5xf32>
  %n = graph.random %s distribution "normal" : (tensor<2xi64>) -> tensor<7xf32>
  %b = graph.random %s distribution "bits" : (tensor<2xi64>) -> tensor<4xi64>
  %h = graph.random %s distribution "uniform" : (tensor<2xi64>) -> tensor<6xf16>
  %v = graph.random %s distribution "uniform" : (tensor<2xi64>) -> tensor<3x4xf32>
  %k = graph.full value 0.5 : tensor<3x4xf32>
  %m = graph.lt %v, %k : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xi1>
  %z = graph.full value 0.0 : tensor<3x4xf32>
  %d = graph.select %m, %v, %z : (tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3x4xf32>
  func.return %u, %n, %b, %h, %d : {TYPES}
}}"""
SEEDS = [
    np.array([0, 0], np.int64),
    np.array([-123456789012345, 2**40 + 7], np.int64),  # both words of each
    np.array([2**63 - 1, -1], np.int64),
]
NORMAL = 1  # the output computed with log/sqrt/cos


def _lowered(pipeline: str = "convert-graph-to-gpu") -> object:
    return apply(parse(PROGRAM), pipeline)


@pytest.mark.parametrize("seed", SEEDS, ids=["zero", "mixed", "extremes"])
def test_the_emulated_kernel_gives_the_reference_bits(seed: np.ndarray) -> None:
    want = run_reference(parse(PROGRAM), seed)
    for pipeline in ("convert-graph-to-gpu", "graph-fuse,convert-graph-to-gpu"):
        got = Emulator(_lowered(pipeline)).run("f", seed)
        for k, (w, g) in enumerate(zip(want, got)):
            np.testing.assert_array_equal(g, w, err_msg=f"output {k} ({pipeline})")


@pytest.mark.cxx
def test_the_printed_kernel_runs_on_cuda_sim() -> None:
    from fxdsl.runtime.cuda_sim import CudaSimEmulator

    seed = SEEDS[1]
    want = run_reference(parse(PROGRAM), seed)
    sim = CudaSimEmulator(_lowered(), "address,undefined")
    try:
        got = sim.run("f", seed)
    finally:
        sim.close()
    for k, (w, g) in enumerate(zip(want, got)):
        if k == NORMAL:  # the host's logf/cosf, not numpy's: ulp-close
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"output {k}")


@pytest.mark.nvcc
def test_the_kernel_compiles_for_sm_90(tmp_path: Path) -> None:
    source = kernel_source(_lowered("graph-fuse,convert-graph-to-gpu"))
    assert ">>" in source  # Philox's shifts and xors
    assert "^" in source
    compile_ptx(source, tmp_path, "random")


DROPOUT = """func.func @f(%s: tensor<2xi64>, %x: tensor<8x8xf32>) -> ({results}) {{
  %u = graph.random %s distribution "uniform" : (tensor<2xi64>) -> tensor<8x8xf32>
  %k = graph.full value 0.5 : tensor<8x8xf32>
  %m = graph.lt %u, %k : (tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xi1>
  %z = graph.full value 0.0 : tensor<8x8xf32>
  %d = graph.select %m, %x, %z : (tensor<8x8xi1>, tensor<8x8xf32>, tensor<8x8xf32>) -> tensor<8x8xf32>
  {more}func.return {returned}
}}"""
ALONE = DROPOUT.format(
    results="tensor<8x8xf32>", more="", returned="%d : tensor<8x8xf32>"
)
SHARED = DROPOUT.format(
    results="tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>",
    more="%p = graph.matmul %u, %x : (tensor<8x8xf32>, tensor<8x8xf32>) "
    "-> tensor<8x8xf32>\n  ",
    returned="%d, %p, %u : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8x8xf32>",
)


@pytest.mark.parametrize("text", [ALONE, SHARED], ids=["alone", "shared"])
def test_a_draw_fuses_into_its_readers_as_a_view(text: str) -> None:
    """A dropout's draw, compare and select are one kernel; a draw that is
    also returned and read by an opaque op (a matmul) is computed where
    each reader needs it, the same numbers in each."""
    seed = np.array([42, 0], np.int64)
    x = np.random.default_rng(0).standard_normal((8, 8)).astype(np.float32)
    want = run_reference(parse(text), seed, x)
    emulator = Emulator(apply(parse(text), "graph-fuse,convert-graph-to-gpu"))
    got = emulator.run("f", seed, x)
    np.testing.assert_allclose(got[0], want[0], rtol=0, atol=0)
    for k in range(1, len(want)):
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-5)
    if text is ALONE:
        assert emulator.launches == 1
