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
